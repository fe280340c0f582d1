"""The chapter kit: the jobs every chapter shares, each done once.

A chapter notebook starts with one call and then uses the run it returns for
everything that is not specific to its paper::

    from anonbook.chapters import kit, ch01_syntactic_anonymity as chapter
    run = kit.start(chapter.CHAPTER, globals())   # check the parameters, set the book's style

    run.glue_paper(chapter.PAPER)                 # the ledger's reported values, for the prose
    table = run.cached("ladder", lambda: build(...), rows=run.p["adult_rows"])   # an expensive step
    run.glue("k_fig2", 4)                         # a measured value, for the prose ({glue:text}`k_fig2`)
    run.record(chapter.measure_claims(...))       # claim measurements -> the chapter's verdict table
    run.glue_verdicts(chapter.VERDICTS)          # each verdict in the rules' own words
    run.provenance()                              # versions, data checksums, parameters

The jobs:

declare
    :class:`~anonbook.chapters.Chapter` (parameters, quick preset, goals,
    exercises); every chapter also takes :data:`USE_CACHE`, the one switch of
    the result cache. The notebook's ``parameters`` cell is generated from the
    declaration (:func:`parameters_cell`), so each parameter is described once.
glue
    :meth:`ChapterRun.glue` / :meth:`ChapterRun.glue_all`: a value for the
    prose (strings become Markdown), never shown in the notebook;
    :meth:`ChapterRun.glue_paper`: the ledger's reported values beside them;
    :meth:`ChapterRun.glue_sentence`: a sentence that compares, chosen from
    the numbers (:mod:`anonbook.chapters.sentences`) and recorded with them.
phrase a verdict
    :meth:`ChapterRun.verdict` and :meth:`ChapterRun.phrase` ask the verdict
    rules (:mod:`anonlab.claims.rules`); a chapter never compares a measured
    value with a paper value itself.
cache
    :meth:`ChapterRun.cached`: the result cache (:mod:`anonbook.cache`) under
    the chapter's name, keyed by the step's own inputs; off when
    ``use_cache`` is False.
record
    :meth:`ChapterRun.record` (claim measurements) and
    :meth:`ChapterRun.record_attack` (an attack for the yardstick).
read other chapters
    :meth:`ChapterRun.yardstick`, :meth:`ChapterRun.recorded_runs` and
    :meth:`ChapterRun.recorded_verdicts`: what the chapters this one reads
    (its declared ``after``) recorded, scored on one yardstick, the runs
    they come from and their claims' verdicts by the rules (a synthesis
    chapter recomputes nothing).

``tests/test_house_style.py`` fails when a chapter module or notebook does
one of these jobs its own way (a local glue helper, a hand-built cache key,
its own verdict wording, a comparison with a reported value).
"""

from __future__ import annotations

import sys

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import pandas as pd

from anonlab import claims
from anonbook import verdicts
from anonbook import cache
from anonlab.claims import Measurement
from anonbook.chapters import USE_CACHE

__all__ = ["USE_CACHE", "ChapterRun", "start", "parameters_cell", "sync_parameters_cell", "Measurement"]

T = TypeVar("T")

def _literal(value: Any) -> str:
    """A parameter's default as Python source (lists and strings with double quotes)."""
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_literal(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def parameters_cell(chapter: Any) -> str:
    """The source of a chapter notebook's ``parameters`` cell, generated from its declaration.

    One line per parameter, ``name = default  # meaning``: the same text
    ``--list-parameters``, the chapter's Parameters section and the course
    plan read (``tests/test_house_style.py`` checks every notebook's cell
    word for word; ``python -m anonlab parameters --write`` rewrites them).

    >>> from anonbook.chapters import Chapter
    >>> from anonlab.validation import Param, ParameterSpec
    >>> print(parameters_cell(Chapter("00_x", "X", ParameterSpec([Param("k", "int", 4, "smallest class")]))))
    k = 4  # smallest class
    use_cache = True  # reuse results computed before with identical parameters, library and data
    """
    return "\n".join(f"{p.name} = {_literal(p.default)}  # {p.help}" for p in chapter.parameters.params)


def sync_parameters_cell(notebook: Any, write: bool = False) -> bool:
    """Is the notebook's ``parameters`` cell the one generated from its chapter's declaration?

    With ``write``, rewrite it when it is not (outputs stay stripped). Returns
    whether the cell was already up to date.
    """
    import nbformat

    from anonbook.chapters import get

    path = notebook if hasattr(notebook, "stem") else __import__("pathlib").Path(notebook)
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if not cells:
        raise ValueError(f"{path.name} has no cell tagged 'parameters'")
    want = parameters_cell(get(path.stem))
    if cells[0].source == want:
        return True
    if write:
        cells[0].source = want
        nbformat.write(nb, path)
    return False


class ChapterRun:
    """One run of a chapter: its checked parameters, its glue, its result cache and its record.

    Made by :func:`start`; see the module docstring for the jobs.

    Attributes
    ----------
    chapter
        The chapter's declaration.
    p
        The run's parameters, checked against the declaration.
    recorder
        The :class:`~anonlab.claims.Recorder` of the chapter's claims.
    """

    def __init__(self, chapter: Any, parameters: Mapping[str, Any]) -> None:
        self.chapter = chapter
        self.p: dict[str, Any] = dict(parameters)
        self.recorder = claims.Recorder(chapter.name)

    # -- glue ---------------------------------------------------------------
    @staticmethod
    def progress(message: str) -> None:
        """The run's progress printer (an :data:`anonlab.progress.Progress`): one line to standard error,
        which the publish step moves to the kernel log, never onto the page."""
        print(message, file=sys.stderr, flush=True)

    def glue(self, key: str, value: Any) -> None:
        """Store ``value`` for the prose, never shown in the notebook.

        A string is stored as text and as Markdown, so both ``{glue:text}`key```
        and ``{glue:md}`key``` paste it (the latter renders its Markdown); a
        NumPy scalar is stored as the Python number it holds, so a format such
        as ``{glue:text}`key:.1%``` applies to it.
        """
        from anonbook.glue import glue

        if isinstance(value, str):
            value = Prose(value)
        elif hasattr(value, "item") and getattr(value, "ndim", None) == 0:
            value = value.item()
        glue(key, value, display=False)

    def glue_sentence(self, sentence: Any) -> None:
        """Glue a comparing sentence (:mod:`anonbook.chapters.sentences`) under its key and record it.

        The run's ``results.json`` keeps its text, its numbers and the relation it asserts, so a test can
        recompute the relation at any parameters (``tests/test_random_parameters.py``).
        """
        self.glue(sentence.key, sentence.text)
        self.recorder.record_sentence(sentence.as_dict())

    def glue_sentences(self, sentences: Iterable[Any]) -> None:
        """:meth:`glue_sentence` each of ``sentences``."""
        for s in sentences:
            self.glue_sentence(s)

    def glue_all(self, values: Mapping[str, Any]) -> None:
        """:meth:`glue` every ``{key: value}``."""
        for key, value in values.items():
            self.glue(key, value)

    def paper(self, claim_id: str) -> Any:
        """The value the paper reports for ``claim_id`` (from the ledger)."""
        return claims.reported(claim_id)

    def glue_paper(self, keys: Mapping[str, str]) -> None:
        """Glue the reported value of each ``{glue key: claim id}`` (numbers as they are in the ledger)."""
        for key, cid in keys.items():
            self.glue(key, self.paper(cid))

    # -- cache --------------------------------------------------------------
    def cache_key(self, step: str, **key: Any) -> dict[str, Any]:
        """The cache key of a step: the chapter, the step and its own inputs."""
        return {"chapter": self.chapter.name, "step": step, **key}

    def cached(self, step: str, compute: Callable[[], T], **key: Any) -> T:
        """``compute()`` once per ``key`` (every input that changes the result), unless ``use_cache`` is off."""
        if not self.p.get("use_cache", True):
            return compute()
        return cache.cached(_cache_name(self.chapter.name, step), self.cache_key(step, **key), compute)

    def is_cached(self, step: str, **key: Any) -> bool:
        """Would :meth:`cached` load this step's result instead of computing it?"""
        return bool(self.p.get("use_cache", True)) and cache.is_cached(
            _cache_name(self.chapter.name, step), self.cache_key(step, **key))

    def cached_each(self, step: str, keys: Mapping[Any, Mapping[str, Any]],
                    compute_missing: Callable[[list[Any]], Mapping[Any, T]]) -> dict[Any, T]:
        """Several settings of one step, each cached under its own key, the missing ones computed together.

        ``keys`` maps each setting to its key; ``compute_missing(settings)``
        computes the settings not in the cache at once (one sweep) and
        returns ``{setting: result}``.
        """
        todo = [s for s in keys if not self.is_cached(step, **keys[s])]
        fresh = dict(compute_missing(todo)) if todo else {}
        return {s: self.cached(step, lambda s=s: fresh[s], **keys[s]) for s in keys}

    def explorable(self, title: str, parameter: str, values: Iterable[Any],
                   frame: Callable[[Any], Mapping[str, tuple[Any, Any]]], *, x_label: str, y_label: str,
                   claim_id: str | None = None, key: Mapping[str, Any] | None = None, current: Any = None,
                   **kw: Any) -> Any:
        """An explorable figure (:mod:`anonbook.explore`): a slider over ``parameter``, one frame per value.

        ``frame(value)`` runs the chapter's library code at that value and returns ``{series: (x, y)}``;
        each frame is cached under the step ``explore_<parameter>`` and ``key`` (every other input it
        depends on) like any other step. With ``claim_id`` the figure draws the band of values the
        claim's tolerance accepts. The run's own value of ``parameter`` (or ``current``, for a parameter
        that is not one of the chapter's) gives the static fallback and the slider's starting place.
        """
        from anonbook import explore

        values = list(values)
        frames = {v: self.cached(f"explore_{parameter}", lambda v=v: dict(frame(v)), value=v, **dict(key or {}))
                  for v in values}
        if claim_id is not None and "band" not in kw:
            kw["band"] = explore.claim_band(claims.claim(claim_id), frames.values())
        return explore.build_explorable(title, parameter, values, frames.__getitem__, x_label=x_label,
                                        y_label=y_label,
                                        current=self.p.get(parameter) if current is None else current, **kw)

    # -- record and verdicts -------------------------------------------------
    def record(self, measurements: Mapping[str, Measurement | Any]) -> pd.DataFrame:
        """Record claim measurements; return their verdicts (id -> reported, measured, ci, verdict)."""
        return self.recorder.record_all(measurements)

    def record_attack(self, name: str, result: Any, baseline: Any = None) -> None:
        """Keep an attack's result (and its baseline) for the yardstick."""
        self.recorder.record_attack(name, result, baseline)

    def verdict(self, claim_id: str) -> str:
        """The verdict of a recorded claim (``not run`` when it was not recorded), by the rules."""
        return claims.decide(claims.claim(claim_id), self.recorder._entries.get(claim_id))

    def phrase(self, claim_id: str) -> str:
        """The verdict of a recorded claim in the rules' words, with the readings where they disagree."""
        return claims.phrase(claims.claim(claim_id), self.recorder._entries.get(claim_id))

    def glue_verdicts(self, keys: Mapping[str, str]) -> None:
        """Glue :meth:`phrase` of each ``{glue key: claim id}``."""
        for key, cid in keys.items():
            self.glue(key, self.phrase(cid))

    def verdicts(self, claim_ids: Iterable[str] | None = None) -> pd.Series:
        """Claim id -> verdict, for these claims (default: every recorded one)."""
        ids = list(self.recorder._entries) if claim_ids is None else list(claim_ids)
        return pd.Series({cid: self.verdict(cid) for cid in ids}, dtype=object, name="verdict")

    def verdict_counts(self, claim_ids: Iterable[str] | None = None) -> str:
        """How many of these claims (default: every recorded one) got each verdict, in words.

        ``"3 reproduced, 1 not reproduced"``, in the rules' order of verdicts.
        """
        counts = self.verdicts(claim_ids).value_counts()
        return ", ".join(f"{int(counts[v])} {v}" for v in claims.VERDICTS if v in counts.index)

    def claims_table(self) -> "ClaimsTable":
        """The chapter's claims as the ledger states them (before anything is recorded): where, what, reported.

        A DataFrame indexed by claim id that renders in the page as the statement in full, where the paper
        makes it and the paper's value (no statement cut short).
        """
        rows = [{"id": c.id, "where": c.where, "statement": c.statement, "reported": c.describe_reported()}
                for c in claims.chapter_claims(self.chapter.name)]
        return ClaimsTable(pd.DataFrame(rows, columns=["id", "where", "statement", "reported"]).set_index("id"))

    def verdict_table(self) -> "VerdictTable":
        """The chapter's recorded claims, shown as the book's one verdict table (:func:`claims.pages.claim_table_html`).

        A DataFrame (id, chapter, paper, where, statement, reported, measured, ci, verdict, readings) that
        renders in the page as the statement, the paper's value, the measurement and the verdict badge.
        """
        return VerdictTable(self.recorder.table())

    # -- read what other chapters recorded -------------------------------------
    def yardstick(self, chapters: Iterable[str] | None = None, confidence: float = 0.95) -> pd.DataFrame:
        """Every attack these chapters (default: the declared ``after``) recorded, scored on one yardstick.

        See :func:`anonbook.verdicts.yardstick_table`: precision, coverage, the
        baseline's precision on the same targets, PI, what each spent, and
        the run it comes from; nothing is recomputed.
        """
        names = list(self.chapter.after if chapters is None else chapters)
        return verdicts.yardstick_table(names, confidence=confidence)

    def recorded_runs(self, chapters: Iterable[str] | None = None) -> pd.DataFrame:
        """The run behind each chapter's published results: preset, parameters, cache key, when, seconds."""
        rows = []
        for ch in (self.chapter.after if chapters is None else chapters):
            r = verdicts.recorded_run(ch)
            rows.append({"chapter": ch, "run": "not run" if r is None else r.preset,
                         "cache key": None if r is None else (r.cache_key or "")[:12],
                         "finished": None if r is None else r.finished,
                         "seconds": None if r is None else r.seconds})
        return pd.DataFrame(rows).set_index("chapter")

    def recorded_verdicts(self, claim_ids: Iterable[str]) -> pd.Series:
        """Claim id -> the verdict of a claim another chapter recorded, by the rules (``not run`` if none)."""
        return pd.Series(verdicts.recorded_verdicts(list(claim_ids)), dtype=object, name="verdict")

    # -- provenance -----------------------------------------------------------
    def provenance(self, data: Iterable[str] | None = None) -> None:
        """Show the run's provenance: versions, the checksums of the data sets it read, its parameters.

        ``data`` names the manifest's data sets this run read, where that
        depends on its parameters; default: the chapter's declared ``data``.
        """
        from anonbook import provenance

        provenance.show(parameters=self.p, data=list(self.chapter.data if data is None else data))


class VerdictTable(pd.DataFrame):
    """A chapter's verdict rows that render as the book's verdict table; any operation gives a plain DataFrame."""

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    def _repr_html_(self) -> str:
        from anonbook.verdicts.table import claim_table_html

        return claim_table_html(pd.DataFrame(self), rulebook="verdicts.html#rulebook")


class ClaimsTable(pd.DataFrame):
    """A chapter's claims that render as a readable table (statement, where, paper); operations give DataFrames."""

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    def _repr_html_(self) -> str:
        from anonbook.verdicts.table import escape

        rows = "".join(f'<tr><td>{escape(r["statement"])}<br><code class="claim-id">{escape(cid)}</code></td>'
                       f'<td>{escape(r["where"])}</td><td>{escape(r["reported"])}</td></tr>'
                       for cid, r in self.iterrows())
        return ('<table class="verdict-table claims-table"><thead><tr><th>claim</th><th>where</th><th>paper</th>'
                "</tr></thead><tbody>" + rows + "</tbody></table>")


class Prose:
    """A string for the prose: displayed as itself in plain text and as Markdown (see :meth:`ChapterRun.glue`)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(self.text)

    def _repr_markdown_(self) -> str:
        return self.text


def _cache_name(chapter: str, step: str) -> str:
    """``ch01_<step>``: the folder of a step's results in the cache."""
    return f"ch{chapter.split('_', 1)[0]}_{step}"


def start(chapter: Any, namespace: Mapping[str, Any]) -> ChapterRun:
    """Check a notebook's parameters against the declaration, set the book's figure and table style, return the run."""
    from anonbook import plotting
    from anonbook.logs import show_library_messages

    show_library_messages()  # the science's data fetches and warnings: the run's log
    run = ChapterRun(chapter, chapter.check(namespace))
    plotting.book_style()
    plotting.table_style()
    return run

"""The chapters: each one's declared parameters, classroom preset and claim measurements.

The four rooms (``data``, ``mechanisms``, ``attacks``, ``measures``) know
nothing of the book. This package is the thin layer between them and the
notebooks: one module per chapter, named ``ch`` + the notebook's name
(``01_syntactic_anonymity`` -> :mod:`anonbook.chapters.ch01_syntactic_anonymity`),
holding

* ``CHAPTER``: a :class:`Chapter` with the declared parameters (one place:
  name, type, range or choices, default, meaning) and the ``quick`` preset
  (the fast settings a class and the test suite use);
* the tested functions that turn the chapter's results into claim
  measurements (``{claim id: Measurement}``), so that deciding a claim is
  library code and the notebook only records.

The notebook validates its parameters with one call::

    from anonbook.chapters import ch01_syntactic_anonymity as chapter
    chapter.CHAPTER.check(globals())

and the runner checks a run against the same declaration before it starts.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from anonbook.cache import per_file_version
from anonbook.memory import MiB, MemoryEstimate
from anonlab.validation import Param, ParameterError, ParameterSpec

__all__ = ["Chapter", "Exercise", "SPINE", "USE_CACHE", "CHAPTERS_PATH_ENV", "get", "module_name", "has_chapter",
           "run_order", "exercise_label", "page_exercises", "page_markdown", "with_questions", "interval_text", "rate_interval_text"]

#: Extra folders searched for chapter modules ``ch<name>.py`` (``os.pathsep``-separated): a course's
#: own chapters, or the worked example of the guide to adding a chapter. Read when the package is imported.
CHAPTERS_PATH_ENV = "ANONLAB_CHAPTERS_PATH"
__path__ += [p for p in os.environ.get(CHAPTERS_PATH_ENV, "").split(os.pathsep) if p and p not in __path__]

#: Peak memory of a chapter run that holds little data: a kernel with the library and its imports
#: (pandas, scikit-learn, matplotlib). Chapters with large data declare their own estimate.
BASE_MEMORY = 260 * MiB

#: The result cache's one switch, which every chapter takes (:class:`Chapter` adds it to the declaration).
USE_CACHE = Param("use_cache", "bool", True,
                  "reuse results computed before with identical parameters, library and data")

#: The headings (H2) of every chapter, in order (see the book's introduction).
#: A heading matches when it starts with the entry ("Beyond the paper",
#: "Beyond the slides: Adult").
SPINE = ("The claim", "Parameters", "Setup", "Reproduction", "Verdict", "Beyond the",
         "Exercises", "Provenance")


def interval_text(ci: tuple[float, float] | Any, digits: int = 2) -> str:
    """A 95 % interval as the text a chapter glues next to its value (``value_ci``): ``"[0.77, 0.96]"``."""
    lo, hi = ci
    return f"[{float(lo):.{digits}f}, {float(hi):.{digits}f}]"


def rate_interval_text(rate: float, n: int, digits: int = 2) -> str:
    """The Wilson 95 % interval of a rate measured on ``n`` cases, as text (``"[0.01, 0.24]"``).

    The successes are ``round(rate * n)``; see
    :func:`anonlab.measures.rates.wilson_interval` (E. B. Wilson, 1927).
    """
    from anonlab.measures import wilson_interval

    return interval_text(wilson_interval(round(rate * n), n), digits) if n else "not measured (no case)"


@dataclass(frozen=True)
class Exercise:
    """A predict-first exercise whose solution the book build computes: the run the solution makes.

    The question and its solution's place are written in the chapter's page
    (sphinx-exercise's ``exercise`` and ``solution`` directives); this
    declares the run beside them: what it changes, on which base, what answers it.

    Attributes
    ----------
    key
        A short name, unique in the chapter (``"bucket5"``).
    parameters
        The parameters the exercise changes, on top of the chapter's quick
        preset (the solution run is the quick preset plus these).
    answer
        ``{glue key: what it is}``: values the chapter's notebook glues that
        answer the question; the solution shows them for the quick run and
        for this variant, side by side.
    figure
        Optional glue key of a figure the notebook glues (``glue(key, fig)``),
        shown for the variant.
    base
        The run the exercise changes: ``"quick"`` (the chapter's quick
        preset, the default), ``"default"`` (the chapter's default run, the one
        the chapter shows: its values are read from the published run) or a
        mapping of parameters on top of the quick preset (a medium preset, for
        an effect the quick preset is too small to show).
    explain
        A worked answer to the question's "why", as text with placeholders
        filled from the glued values (:func:`anonbook.course.fill_explanation`):
        ``{key}`` is the variant's value, ``{key@base}`` the base run's,
        ``{key:change}`` the move between them in words ("rises from 0.12 to
        0.19", "falls from ...", "stays at ..."), ``{key:overlap}`` whether
        their 95 % intervals overlap, ``{a:vs:b}`` how two values compare. The
        conclusion is computed, never typed.
    grading
        A note for whoever grades the exercise (the instructor edition only).
    intervals
        ``{answer key: glue key}`` of a value's 95 % interval glued under
        another name than ``<key>_ci`` (which the solution finds by itself).
    question
        The question as the student reads it (MyST markdown: a prediction first, then the change). It is
        written in the chapter's page, in an ``{exercise}`` directive labelled
        ``exercise-<chapter>-<key>`` (sphinx-exercise), and read from there by :func:`get`.
    """

    key: str
    parameters: Mapping[str, Any]
    answer: Mapping[str, str]
    figure: str | None = None
    base: str | Mapping[str, Any] = "quick"
    explain: str = ""
    grading: str = ""
    intervals: Mapping[str, str] = field(default_factory=dict)
    question: str = ""

    def __post_init__(self) -> None:
        if not self.key.isidentifier():
            raise ValueError(f"exercise key must be a plain name, got {self.key!r}")
        if not self.parameters:
            raise ValueError(f"exercise {self.key!r} must change at least one parameter")
        if not self.answer:
            raise ValueError(f"exercise {self.key!r} must name the glue keys that answer it")
        object.__setattr__(self, "answer", dict(self.answer))
        object.__setattr__(self, "intervals", dict(self.intervals))
        if set(self.intervals) - set(self.answer):
            raise ValueError(f"exercise {self.key!r}: intervals of values it does not show: "
                             f"{sorted(set(self.intervals) - set(self.answer))}")
        if isinstance(self.base, str) and self.base not in ("quick", "default"):
            raise ValueError(f"exercise {self.key!r}: base must be 'quick', 'default' or parameters, "
                             f"got {self.base!r}")
        if not isinstance(self.base, str):
            object.__setattr__(self, "base", dict(self.base))

    def base_parameters(self, quick: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters of the run this exercise changes (its base), given the chapter's quick preset."""
        if self.base == "default":
            return {}
        if self.base == "quick":
            return dict(quick)
        return {**quick, **self.base}  # type: ignore[dict-item]

    def run_parameters(self, quick: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters of the exercise's solution run: its base plus its own parameters."""
        return {**self.base_parameters(quick), **self.parameters}


@dataclass(frozen=True)
class Chapter:
    """A chapter's declaration.

    Attributes
    ----------
    name
        The notebook's name, ``"01_syntactic_anonymity"``.
    title
        The chapter's title (its H1).
    parameters
        The declared parameters.
    quick
        Overrides of the defaults for a fast run (classroom, tests): ``python
        -m anonlab run NAME --quick``. Checked against ``parameters``.
    data
        Names of the manifest's data sets the chapter reads (provenance).
    goals
        What a student should learn from the chapter (three at most).
    assumes
        What the chapter assumes the student knows (one sentence).
    exercises
        Predict-first exercises with computed solutions (:class:`Exercise`).
    memory
        The run's estimated peak memory from its parameters
        (:class:`~anonbook.memory.MemoryEstimate`, checked by the runner before
        a run starts); default :data:`BASE_MEMORY`, a kernel with the library.
    after
        The chapters whose recorded results (``book/<chapter>.results.json``,
        ``.attacks.pkl``, ``.params.json``) this one reads: they run before
        it, and a new run of any of them makes this one stale (the runner's
        cache key includes their published files). Default: none.
    environment
        What a run depends on outside the project's files, from its
        parameters: a string in the run's key (the runner's
        :func:`~anonbook.runner.cache_key`), so a run made without a tool's
        environment is stale once it appears (chapter 9's peers). Default: none.
    """

    name: str
    title: str
    parameters: ParameterSpec
    quick: Mapping[str, Any] = field(default_factory=dict)
    data: tuple[str, ...] = ()
    goals: tuple[str, ...] = ()
    assumes: str = ""
    exercises: tuple[Exercise, ...] = ()
    memory: Callable[[Mapping[str, Any]], MemoryEstimate] | None = None
    after: tuple[str, ...] = ()
    environment: Callable[[Mapping[str, Any]], str] | None = None

    def __post_init__(self) -> None:
        if self.name in self.after:
            raise ValueError(f"chapter {self.name}: a chapter cannot run after itself")
        if "use_cache" not in self.parameters.names:
            object.__setattr__(self, "parameters", ParameterSpec([*self.parameters.params, USE_CACHE],
                                                                 self.parameters.checks))
        try:
            self.parameters.validate(dict(self.quick))
        except ParameterError as exc:
            raise ValueError(f"chapter {self.name}: the quick preset is invalid: {exc}") from None
        if len(self.goals) > 3:
            raise ValueError(f"chapter {self.name}: at most three learning goals, got {len(self.goals)}")
        keys = [e.key for e in self.exercises]
        if len(set(keys)) != len(keys):
            raise ValueError(f"chapter {self.name}: exercise keys repeat: {keys}")
        for e in self.exercises:
            try:
                self.parameters.validate(e.run_parameters(self.quick))
            except ParameterError as exc:
                raise ValueError(f"chapter {self.name}, exercise {e.key!r}: {exc}") from None

    def check(self, namespace: Mapping[str, Any]) -> dict[str, Any]:
        """Validate the notebook's parameters (its ``globals()``); return them as a dict."""
        return self.parameters.validate_namespace(namespace)

    def peak_memory(self, values: Mapping[str, Any]) -> MemoryEstimate:
        """The estimated peak memory of a run with these (validated) parameters."""
        return self.memory(values) if self.memory is not None else MemoryEstimate(BASE_MEMORY)

    def environment_state(self, values: Mapping[str, Any]) -> str:
        """The run's outside environment (:attr:`environment`) for these (validated) parameters; ``""`` if none."""
        return self.environment(values) if self.environment is not None else ""

    def quick_parameters(self) -> dict[str, Any]:
        """The quick preset as a full set of parameters."""
        return self.parameters.validate(dict(self.quick))


def module_name(notebook: str) -> str:
    """``01_syntactic_anonymity`` -> ``anonbook.chapters.ch01_syntactic_anonymity``."""
    return f"{__name__}.ch{notebook}"


def has_chapter(notebook: str) -> bool:
    """Is there a chapter module for this notebook?"""
    return importlib.util.find_spec(module_name(notebook)) is not None


def run_order(names: list[str]) -> list[str]:
    """``names`` in order, except that a chapter comes after the chapters it reads (its ``after``).

    Stable: chapters with no dependency keep their order. A dependency that
    is not among ``names`` is ignored (it is not run here).
    """
    pending = list(names)
    done: list[str] = []
    while pending:
        for name in pending:
            deps = get(name).after if has_chapter(name) else ()
            if all(d in done or d not in pending for d in deps):
                done.append(name)
                pending.remove(name)
                break
        else:
            raise ValueError(f"chapters read each other's results in a circle: {pending}")
    return done


def exercise_label(chapter: str, key: str) -> str:
    """The label of an exercise on its chapter page: ``exercise-<chapter>-<key>``, spelt as Sphinx spells ids.

    >>> exercise_label("01_syntactic_anonymity", "one_more_qi")
    'exercise-01-syntactic-anonymity-one-more-qi'
    """
    return f"exercise-{chapter}-{key}".replace("_", "-").lower()


_EXERCISE = re.compile(r"^:::\{exercise\}[^\n]*\n:label:\s*(\S+)\s*\n(.*?)\n:::\s*$", re.M | re.S)


def page_exercises(text: str) -> dict[str, str]:
    """The ``{exercise}`` directives of a page's markdown: ``{label: question}`` in page order."""
    return {m.group(1): m.group(2).strip() for m in _EXERCISE.finditer(text)}


def _markdown_cells(path: Path) -> str:
    """The markdown cells of a notebook file, joined (``""`` if it cannot be read as a notebook)."""
    import json

    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    return "\n\n".join("".join(c["source"]) for c in nb.get("cells", []) if c.get("cell_type") == "markdown")


_page_markdown = per_file_version(_markdown_cells)


def page_markdown(notebook: str) -> str:
    """The markdown cells of the chapter's source notebook (``notebooks/<name>.ipynb``), joined; ``""`` if none.

    Read once per version of the file (:func:`anonbook.cache.per_file_version`)."""
    from anonlab import paths

    path = paths.notebooks_dir() / f"{notebook}.ipynb"
    try:
        return _page_markdown(path)
    except OSError:
        return ""


def with_questions(ch: Chapter, text: str) -> Chapter:
    """``ch`` with each exercise's question read from its page's ``{exercise}`` directive (``text``)."""
    found = page_exercises(text)
    exercises = tuple(replace(e, question=found.get(exercise_label(ch.name, e.key), e.question))
                      for e in ch.exercises)
    return replace(ch, exercises=exercises)


def get(notebook: str) -> Chapter:
    """The declaration of a chapter, by notebook name, with its exercises' questions read from its page."""
    if not has_chapter(notebook):
        raise KeyError(f"no chapter module {module_name(notebook)} for notebook {notebook!r}")
    ch = importlib.import_module(module_name(notebook)).CHAPTER
    return with_questions(ch, page_markdown(notebook)) if ch.exercises else ch

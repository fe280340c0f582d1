"""What a run is, where it lands, and how the pages say which run they show.

Every run of a chapter has an identity (:class:`RunIdentity`): the
**default** run (every parameter at its declared default), a named
**preset** (``quick``, an exercise's), or a **custom** run with the
parameters that differ from the defaults and their values. The runner
writes it into ``params.json`` (``"run"``) and, through
:data:`~anonlab.claims.recorder.RUN_IDENTITY_ENV`, into ``results.json``;
the publish step puts a banner on the chapter page of any run that is not
the default (:func:`banner_markdown`); the front page, the verdicts page
and the chapters that read others (chapter 9) name each chapter that is not
at its default (:func:`runs_banner_markdown`, :func:`dependents_banner`).

A run from the command line that is not the default lands beside the
published one, under ``book/runs/<chapter>/<name>/`` (:func:`run_folder`),
unless it is published explicitly (``python -m anonlab run ... --publish``,
:func:`anonbook.rerun.run_chapter`); ``--html`` renders that one page
(:func:`anonbook.rerun.render_page`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anonlab import paths

__all__ = ["RunIdentity", "identify", "recorded_identity", "run_folder", "banner_markdown",
           "runs_banner_markdown", "dependents_banner", "stale_dependents", "dependents_of", "not_default",
           "default_run_dir", "input_keys", "RUNS_DIR"]

#: ``book/runs``: where the runs that are not published land, one folder per chapter and run name.
RUNS_DIR = "runs"
#: Parameters that never change what a run computes (left out of a run's identity).
NEUTRAL = frozenset({"use_cache"})


@dataclass(frozen=True)
class RunIdentity:
    """Which run this is: ``kind`` default / preset / custom, the preset's name, the changed parameters."""

    kind: str
    preset: str | None = None
    changed: Mapping[str, Any] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    base: str | None = None
    base_changed: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_default(self) -> bool:
        """Every parameter at its declared default."""
        return self.kind == "default"

    @property
    def name(self) -> str:
        """A folder name: ``default``, ``quick``, ``exercise-fewer_known`` or ``known_votes-50`` (custom)."""
        if self.kind == "default":
            return "default"
        if self.kind == "preset" and self.preset:
            return _slug(self.preset)
        own = self.own_changes()
        text = (f"{self.base}-" if self.base else "") + "_".join(
            f"{k}-{_slug(json.dumps(v, default=str))}" for k, v in sorted(own.items()))
        if len(text) > 60:
            import hashlib

            text = text[:48] + "-" + hashlib.sha256(text.encode()).hexdigest()[:8]
        return text or "custom"

    def own_changes(self) -> dict[str, Any]:
        """The changed parameters that the base preset (if any) does not set already."""
        return {k: v for k, v in self.changed.items() if k not in self.base_changed or self.base_changed[k] != v}

    def changes_text(self) -> str:
        """``known_votes = 50 (default 100), p_example = 0.01 (default 0.0001)``, after ``the quick preset +``."""
        text = ", ".join(f"{k} = {_show(v)} (default {_show(self.defaults.get(k))})"
                         for k, v in sorted(self.own_changes().items()))
        return f"the {self.base} preset + {text}" if self.base else text

    @property
    def label(self) -> str:
        """In words: ``default run``, ``quick preset run: ...`` or ``custom run: known_votes = 50 (default 100)``."""
        if self.kind == "default":
            return "default run"
        what = f"{self.preset} preset run" if self.kind == "preset" else "custom run"
        return f"{what}: {self.changes_text()}"

    def as_dict(self) -> dict[str, Any]:
        """The record kept in ``params.json`` and ``results.json``."""
        return {"kind": self.kind, "preset": self.preset, "name": self.name, "label": self.label,
                "changed": dict(self.changed), "defaults": dict(self.defaults), "base": self.base,
                "base_changed": dict(self.base_changed)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RunIdentity:
        """The inverse of :meth:`as_dict`."""
        return cls(str(d.get("kind", "custom")), d.get("preset"), dict(d.get("changed") or {}),
                   dict(d.get("defaults") or {}), d.get("base"), dict(d.get("base_changed") or {}))


def _show(v: Any) -> str:
    return repr(v) if isinstance(v, str) else json.dumps(v, default=str)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._]+", "-", str(text)).strip("-") or "x"


def identify(chapter: str, parameters: Mapping[str, Any], preset: str | None = None) -> RunIdentity:
    """The identity of a run of ``chapter`` with these (given) ``parameters``.

    A run whose checked parameters equal the declared defaults (``use_cache``
    aside) is the default run, however they were given; one that equals the
    quick preset is the ``quick`` preset; ``preset`` names another preset
    (an exercise's); anything else is custom.
    """
    from anonbook.chapters import get

    ch = get(chapter)
    spec = ch.parameters
    full = spec.validate(dict(parameters))
    defaults = {q.name: q.default for q in spec.params}
    changed = {k: v for k, v in full.items() if k not in NEUTRAL and v != defaults.get(k)}
    shown_defaults = {k: defaults.get(k) for k in changed}
    if not changed:
        return RunIdentity("default")
    base, base_changed = None, {}
    if preset is None and ch.quick:
        quick = {k: v for k, v in spec.validate(dict(ch.quick)).items() if k not in NEUTRAL and v != defaults.get(k)}
        if quick == changed:
            preset = "quick"
        elif quick and all(changed.get(k) == v for k, v in quick.items()):
            base, base_changed = "quick", quick  # the quick preset with more changes
    return RunIdentity("preset" if preset else "custom", preset, changed, shown_defaults, base, base_changed)


def recorded_identity(chapter: str, results_dir: str | Path | None = None) -> RunIdentity | None:
    """The identity of the run published in ``results_dir`` (default ``book/``), or ``None`` if it has not run.

    Read from its ``params.json`` (``"run"``); a run recorded before identities were kept is identified
    from its parameters.
    """
    d = Path(results_dir) if results_dir is not None else paths.book_dir()
    f = d / f"{chapter}.params.json"
    if not f.exists():
        return None
    try:
        meta = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(meta.get("run"), Mapping):
        return RunIdentity.from_dict(meta["run"])
    from anonbook.chapters import has_chapter

    if not has_chapter(chapter):
        return None
    try:
        return identify(chapter, meta.get("parameters") or {})
    except Exception:  # noqa: BLE001 - parameters the declaration no longer accepts
        return RunIdentity("custom", None, dict(meta.get("parameters") or {}), {})


def not_default(chapters: Iterable[str], results_dir: str | Path | None = None) -> dict[str, RunIdentity]:
    """Chapter -> identity, for each of ``chapters`` whose published run is not the default run."""
    out = {}
    for ch in chapters:
        ident = recorded_identity(ch, results_dir)
        if ident is not None and not ident.is_default:
            out[ch] = ident
    return out


def default_run_dir(chapter: str, book_dir: str | Path | None = None) -> Path | None:
    """The folder holding the chapter's default run: the book, or ``runs/<chapter>/default`` when a run that is
    not the default was published over it (:func:`run_chapter` keeps the default there); ``None`` if neither."""
    book = Path(book_dir) if book_dir is not None else paths.book_dir()
    kept = book / RUNS_DIR / chapter / "default"
    for d in (book, kept):
        ident = recorded_identity(chapter, d)
        if ident is not None and ident.is_default:
            return d
    return None if (book / f"{chapter}.params.json").exists() or kept.exists() else book


def run_folder(chapter: str, identity: RunIdentity) -> Path:
    """``book/runs/<chapter>/<name>/``: where a run that is not published lands."""
    return paths.book_dir() / RUNS_DIR / chapter / identity.name


def banner_markdown(identity: RunIdentity, *, published: bool = True) -> str:
    """The banner at the top of a chapter page whose run is not the default ("" for the default run)."""
    if identity.is_default:
        return ""
    what = (f"the **{identity.preset}** preset" if identity.kind == "preset" else "a **custom run**")
    where = ("It is the run published in this book" if published
             else "It is not the run published in the book, which stays as it was")
    return (":::{admonition} Not the default run\n:class: warning\n"
            f"This page shows {what} of the chapter, with parameters changed from their defaults: "
            f"{_md_changes(identity)}. Every number, verdict and sentence on it is of this run. {where}; the "
            "verdict pins and the graded assignments come from default runs only.\n:::\n")


def _md_changes(identity: RunIdentity) -> str:
    text = ", ".join(_md_change(k, v, identity.defaults.get(k)) for k, v in sorted(identity.own_changes().items()))
    return f"the {identity.base} preset + {text}" if identity.base else text


#: A changed list parameter whose value and default together are longer than this (characters) is told by count.
LONG_CHANGE = 80


def _md_change(name: str, value: Any, default: Any) -> str:
    """One changed parameter in the banner; a long list by its length and what it leaves out of the default or adds.

    >>> _md_change("k", 5, 10)
    '`k = 5` (default `10`)'
    >>> _md_change("qi", [f"a{i}" for i in range(20)], [f"a{i}" for i in range(25)])
    "`qi`: 20 values instead of the default's 25 (leaving out `a20`, `a21`, `a22` and 2 more)"
    """
    shown, base = _show(value), _show(default)
    if len(shown) + len(base) <= LONG_CHANGE or not (isinstance(value, list) and isinstance(default, list)):
        return f"`{name} = {shown}` (default `{base}`)"
    dropped = [x for x in default if x not in value]
    added = [x for x in value if x not in default]
    what = [f"leaving out {_some(dropped)}"] * bool(dropped) + [f"adding {_some(added)}"] * bool(added)
    order = "" if what else ", in another order"
    return (f"`{name}`: {len(value)} values instead of the default's {len(default)}{order}"
            + (f" ({'; '.join(what)})" if what else ""))


def _some(values: list[Any], most: int = 3) -> str:
    """The first ``most`` values in code type, and how many more."""
    head = ", ".join(f"`{v}`" for v in values[:most])
    return f"{head} and {len(values) - most} more" if len(values) > most else head


def runs_banner_markdown(chapters: Mapping[str, str], results_dir: str | Path | None = None) -> str:
    """The front page's and the verdicts page's banner: each chapter whose published run is not the default.

    ``chapters`` maps chapter names to titles; "" when every chapter's run is the default.
    """
    off = not_default(chapters, results_dir)
    stale = stale_dependents(chapters, results_dir)
    if not off and not stale:
        return ""
    lines = ["::::{admonition} Not every chapter is at its default run\n:class: warning\n"]
    if off:
        # one line on the first screen; the runs' parameters (a screen or more) fold away below it
        lines.append(f":::{{dropdown}} The verdicts and values below come from the published runs: {len(off)} of "
                     f"{len(chapters)} chapters' runs are not the default (which, and their parameters)")
        lines += [f"- [{chapters[ch]}]({ch}.ipynb): {ident.label}" for ch, ident in off.items()]
        lines.append(":::")
    if stale:
        lines.append("\nThese chapters read others whose published run changed after they ran (their pages "
                     "are stale until they are rerun):\n")
        lines += [f"- [{chapters.get(ch, ch)}]({ch}.ipynb) read an older run of {', '.join(deps)}"
                  for ch, deps in stale.items()]
    lines.append("::::\n")
    return "\n".join(lines)


def dependents_banner(chapter: str, results_dir: str | Path | None = None) -> str:
    """For a chapter that reads others (its ``after``): a banner naming each one not at its default run."""
    from anonbook.chapters import get, has_chapter

    if not has_chapter(chapter) or not get(chapter).after:
        return ""
    off = not_default(get(chapter).after, results_dir)
    if not off:
        return ""
    rows = "\n".join(f"- `{ch}`: {ident.label}" for ch, ident in off.items())
    return (":::{admonition} Some chapters it reads are not at their default run\n:class: warning\n"
            "This chapter reads what the others recorded; these rows come from runs that are not the default:\n\n"
            f"{rows}\n:::\n")


def dependents_of(chapter: str, chapters: Iterable[str]) -> list[str]:
    """The chapters among ``chapters`` that read ``chapter`` (have it in their declared ``after``)."""
    from anonbook.chapters import get, has_chapter

    return [c for c in chapters if has_chapter(c) and chapter in get(c).after]


def input_keys(chapter: str, results_dir: str | Path | None = None) -> dict[str, str | None]:
    """The cache key of each published run ``chapter`` reads: recorded with its run, compared later."""
    from anonbook.chapters import get, has_chapter

    d = Path(results_dir) if results_dir is not None else paths.book_dir()
    if not has_chapter(chapter):
        return {}
    out: dict[str, str | None] = {}
    for dep in get(chapter).after:
        try:
            out[dep] = json.loads((d / f"{dep}.params.json").read_text(encoding="utf-8")).get("cache_key")
        except (OSError, ValueError):
            out[dep] = None
    return out


def unpublished_inputs(chapter: str, results_dir: str | Path | None = None) -> list[str]:
    """The chapters ``chapter`` reads (its declared ``after``) that have no published run to read."""
    from anonbook.chapters import get, has_chapter

    d = Path(results_dir) if results_dir is not None else paths.book_dir()
    if not has_chapter(chapter):
        return []
    return [dep for dep in get(chapter).after if not (d / f"{dep}.params.json").exists()]


def stale_dependents(chapters: Iterable[str], results_dir: str | Path | None = None) -> dict[str, list[str]]:
    """Chapter -> the chapters it reads whose published run changed after it ran (empty: nothing stale).

    A chapter that reads others records their cache keys with its run (``params.json``, ``"inputs"``);
    a run recorded before that is not judged.
    """
    d = Path(results_dir) if results_dir is not None else paths.book_dir()
    out = {}
    for ch in chapters:
        try:
            recorded = json.loads((d / f"{ch}.params.json").read_text(encoding="utf-8")).get("inputs")
        except (OSError, ValueError):
            continue
        if not isinstance(recorded, Mapping):
            continue
        now = input_keys(ch, d)
        changed = [dep for dep, key in now.items() if recorded.get(dep) != key]
        if changed:
            out[ch] = changed
    return out

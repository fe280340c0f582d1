"""The book as a course: computed exercise solutions, chapter headers, the course plan.

A chapter declares its learning goals, what it assumes and its exercises
(:class:`anonlab.chapters.Exercise`). The book build then

1. runs each chapter's quick preset and, for every exercise, the quick
   preset with the exercise's parameters (ordinary runs through
   :func:`anonlab.runner.run_notebook`, cached like any run, written under
   ``book/_exercises/<chapter>/``); a failing solution run fails the build;
2. writes, for each chapter, ``_generated/chapters/<chapter>.header.md``
   (goals, prerequisites, run times read from the recorded runs) and
   ``_generated/chapters/<chapter>.exercises.md`` (each question with its
   solution in a dropdown the reader opens: the values that answer it for
   the quick preset and for the variant, side by side, and the variant's
   figure), which the chapter includes;
3. writes ``_generated/course_plan.md``, included by the course-plan page.

No answer is typed anywhere: a solution is read from the executed variant,
so it stays true when the code changes.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import chapters, paths
from .syllabus import course_plan  # the schedule (anonlab.syllabus), written by write_course_pages

__all__ = ["course_plan", "exercise_dir", "exercise_runs", "run_exercises", "glued_outputs", "write_course_pages",
           "INSTALL_NOTE"]

GENERATED = "_generated"


INSTALL_NOTE = (
    "Python 3.11 or newer with pip, `make`, and about 1 GB of disk for the environment; "
    "`make env` installs the pinned environment and `python -m anonlab data` fetches the "
    "data sets (about 60 MB) once."
)


def exercise_dir(chapter: str) -> Path:
    """``book/_exercises/<chapter>``: the executed quick run and exercise variants."""
    return paths.book_dir() / "_exercises" / chapter


def exercise_runs(chapter: str) -> list[tuple[str, dict[str, Any]]]:
    """The solution runs of a chapter, in order: ``("quick", quick preset)``, then each exercise's variant.

    A variant is the quick preset plus the exercise's parameters.
    """
    ch = chapters.get(chapter)
    return [("quick", dict(ch.quick))] + [(e.key, {**ch.quick, **e.parameters}) for e in ch.exercises]


def run_exercises(chapter: str, *, force: bool = False, progress: bool = True, shared: bool = True,
                  log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the chapter's quick preset and every exercise variant; return ``{key: RunResult}``.

    The quick run is under the key ``"quick"``. With ``shared`` (the
    default) the runs share one kernel (:class:`anonlab.runner.SharedKernel`):
    the kernel's start and the imports are paid once, and what the library
    keeps in memory and in the result cache from one run serves the next;
    without it each run starts a kernel of its own. Runs that are up to date
    are not repeated (and start no kernel). ``log`` receives one line per run
    (default: standard error). A failing run raises
    :class:`anonlab.runner.RunError` naming the exercise.
    """
    from contextlib import nullcontext

    from .runner import RunError, SharedKernel, run_notebook

    say = log or (lambda line: print(line, file=sys.stderr, flush=True))
    out: dict[str, Any] = {}
    with SharedKernel(chapter) if shared else nullcontext() as kernel:
        for key, params in exercise_runs(chapter):
            try:
                out[key] = res = run_notebook(chapter, params, out_dir=exercise_dir(chapter) / key, force=force,
                                              progress=False, kernel=kernel)
            except RunError as exc:
                raise RunError(f"{chapter}: the solution run of exercise {key!r} failed:\n{exc}") from None
            if progress:
                say(f"[anonlab] {chapter}: solution run {key!r} "
                    + ("up to date" if res.cached else f"done in {res.seconds:.1f} s"))
    return out


def glued_outputs(notebook: Path) -> dict[str, dict[str, Any]]:
    """The values a notebook glued (myst-nb ``glue``): ``{name: {mime type: data}}``."""
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    out: dict[str, dict[str, Any]] = {}
    for cell in nb.get("cells", []):
        for o in cell.get("outputs", []):
            meta = (o.get("metadata") or {}).get("scrapbook") or {}
            if "name" in meta:
                prefix = meta.get("mime_prefix", "")
                out[meta["name"]] = {k[len(prefix):] if k.startswith(prefix) else k: v
                                     for k, v in (o.get("data") or {}).items()}
    return out


def _text(data: Mapping[str, Any] | None) -> str:
    """A glued value as short text (numbers rounded to 4 significant digits)."""
    if not data:
        return "—"
    raw = data.get("text/markdown") or data.get("text/plain") or ""
    raw = "".join(raw) if isinstance(raw, list) else str(raw)
    raw = raw.strip().strip("'\"")
    try:
        x = float(raw)
        return f"{x:.4g}" if not x.is_integer() or abs(x) >= 1e15 else str(int(x))
    except ValueError:
        return raw.replace("|", "\\|").replace("\n", " ")


def _run_meta(run_dir: Path, chapter: str) -> dict[str, Any]:
    try:
        return json.loads((run_dir / f"{chapter}.params.json").read_text())
    except (OSError, ValueError):
        return {}


def _seconds(run_dir: Path, chapter: str) -> float | None:
    try:
        return float(_run_meta(run_dir, chapter)["seconds"])
    except (KeyError, TypeError, ValueError):
        return None


def _fmt_seconds(s: float | None) -> str:
    if s is None:
        return "not measured in this build"
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.1f} min"


def run_times(chapter: str) -> tuple[float | None, float | None]:
    """Seconds of the recorded default run (``book/``) and of the quick run (``_exercises``).

    A published run made with other parameters than the defaults is no
    default run: then the first is ``None`` (and it is the quick time when
    those parameters are the quick preset).
    """
    meta = _run_meta(paths.book_dir(), chapter)
    published = _seconds(paths.book_dir(), chapter)
    quick = _seconds(exercise_dir(chapter) / "quick", chapter)
    given = meta.get("parameters") or {}
    if not given:
        return published, quick
    if chapters.has_chapter(chapter) and given == dict(chapters.get(chapter).quick) and quick is None:
        quick = published
    return None, quick


def chapter_header(chapter: str) -> str:
    """The box at the top of a chapter: goals, what it assumes, run times (from the recorded runs)."""
    ch = chapters.get(chapter)
    default, quick = run_times(chapter)
    lines = [":::{admonition} In this chapter", ":class: tip", ""]
    if ch.goals:
        lines += ["**You will learn**", ""] + [f"- {g}" for g in ch.goals] + [""]
    if ch.assumes:
        lines += [f"**It assumes** {ch.assumes}", ""]
    shared = " while other runs shared the machine" if _run_meta(paths.book_dir(), chapter).get(
        "concurrent_build") else ""
    lines += [f"**Run time** (measured when this copy of the book was built{shared}): {_fmt_seconds(default)} "
              f"with the default parameters, {_fmt_seconds(quick)} with `--quick` "
              f"(`python -m anonlab run {chapter} --quick`).", ":::", ""]
    return "\n".join(lines)


def exercise_changes(ch: chapters.Chapter, e: chapters.Exercise) -> str:
    """What an exercise changes, in the declaration's own words: ``name = value`` (its meaning), joined."""
    return "; ".join(f"`{k} = {json.dumps(v)}` ({ch.parameters[k].help})" for k, v in e.parameters.items())


def chapter_exercises(chapter: str, figure_dir: Path) -> str:
    """The exercises of a chapter, each with its computed solution in a dropdown."""
    ch = chapters.get(chapter)
    base = exercise_dir(chapter)
    quick_vals = glued_outputs(base / "quick" / f"{chapter}.ipynb") if (base / "quick" / f"{chapter}.ipynb").exists() else {}
    parts = []
    for i, e in enumerate(ch.exercises, 1):
        nb = base / e.key / f"{chapter}.ipynb"
        flags = " ".join(f"-p {k} '{json.dumps(v)}'" if not isinstance(v, str) else f"-p {k} {v}"
                         for k, v in e.parameters.items())
        parts.append(f"{i}. {e.question.strip()}\n")
        parts.append(f"   ::::{{dropdown}} Solution (computed by this build)\n")
        parts.append(f"   `python -m anonlab run {chapter} --quick {flags}`\n\n")
        parts.append(f"   Changes {exercise_changes(ch, e)}.\n\n")
        if not nb.exists():
            parts.append("   The solution run was not part of this build "
                         "(`python -m anonlab book` computes it).\n   ::::\n\n")
            continue
        vals = glued_outputs(nb)
        parts.append("   | | quick preset | this exercise |\n   |---|---|---|\n")
        for key, label in e.answer.items():
            parts.append(f"   | {label} | {_text(quick_vals.get(key))} | {_text(vals.get(key))} |\n")
        if e.figure and "image/png" in vals.get(e.figure, {}):
            png = figure_dir / f"{chapter}.{e.key}.png"
            png.write_bytes(base64.b64decode(vals[e.figure]["image/png"]))
            rel = png.relative_to(paths.book_dir()).as_posix()
            parts.append(f"\n   ![The figure for this exercise](/{rel})\n")
        parts.append("   ::::\n\n")
    return "".join(parts)


def write_course_pages(names: list[str]) -> None:
    """Write every chapter's header and exercises, and the course plan, under ``book/_generated``."""
    out = paths.book_dir() / GENERATED / "chapters"
    out.mkdir(parents=True, exist_ok=True)
    for c in names:
        if not chapters.has_chapter(c):
            continue
        (out / f"{c}.header.md").write_text(chapter_header(c), encoding="utf-8")
        (out / f"{c}.exercises.md").write_text(chapter_exercises(c, out), encoding="utf-8")
    (paths.book_dir() / GENERATED / "course_plan.md").write_text(course_plan(names), encoding="utf-8")

"""The book as a course: computed exercise solutions, chapter headers, the course plan.

A chapter declares its learning goals, what it assumes and its exercises
(:class:`anonbook.chapters.Exercise`). The book build then

1. runs each chapter's quick preset and, for every exercise, its base
   preset with the exercise's parameters (the quick preset, a medium preset,
   or the defaults when the effect needs them: ordinary runs through
   :func:`anonbook.runner.run_notebook`, cached like any run, written under
   ``book/_exercises/<chapter>/``); a failing solution run fails the build;
2. writes, for each chapter, ``_generated/chapters/<chapter>.header.md``
   (goals, prerequisites, run times read from the recorded runs) and, for
   each exercise, ``_generated/chapters/<chapter>/<key>.solution.md``: the
   preset it ran on, the values that answer it for the base run and the
   variant side by side with their intervals, a worked "why" filled from
   those values (:mod:`anonbook.solutions`), the variant's figure and a
   grading note. The chapter's page writes the question in sphinx-exercise's
   ``{exercise}`` directive and includes the solution in a ``{solution}``
   dropdown under it; the student edition hides the solutions
   (``hide_solutions``);
3. writes ``_generated/course_plan.md``, included by the course-plan page.

No answer is typed anywhere: a solution is read from the executed variant,
so it stays true when the code changes.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from anonlab import paths
from anonbook import chapters
from anonbook.chapters import exercise_label  # the label of the page's {exercise} directive
from anonbook.syllabus import course_plan  # the schedule (anonbook.syllabus), written by write_course_pages

__all__ = ["course_plan", "exercise_dir", "exercise_runs", "run_exercises", "glued_outputs", "write_course_pages",
           "EDITIONS", "chapter_solutions", "solution_file", "page_include", "exercise_label", "solution",
           "base_key", "preset_problems",
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


def base_key(ch: chapters.Chapter, e: chapters.Exercise) -> str:
    """The name of an exercise's base run: ``"quick"``, ``"default"`` or ``"base_<key>"`` for a medium preset.

    A medium preset shared by several exercises is named after the first of them (one run).
    """
    if isinstance(e.base, str):
        return e.base
    first = next(x for x in ch.exercises if not isinstance(x.base, str) and dict(x.base) == dict(e.base))
    return f"base_{first.key}"


def exercise_runs(chapter: str) -> list[tuple[str, dict[str, Any]]]:
    """The solution runs of a chapter, in order: each base run, then each exercise's variant.

    ``("quick", quick preset)`` comes first; a medium preset (an exercise's
    ``base`` parameters) is a run ``base_<key>``; an exercise on the
    ``"default"`` base compares with the chapter's published default run,
    which is not repeated here. A variant is its base plus the exercise's
    parameters.
    """
    ch = chapters.get(chapter)
    runs: dict[str, dict[str, Any]] = {"quick": dict(ch.quick)}
    for e in ch.exercises:
        key = base_key(ch, e)
        if key != "default":
            runs.setdefault(key, e.base_parameters(ch.quick))
    return list(runs.items()) + [(e.key, e.run_parameters(ch.quick)) for e in ch.exercises]


def run_exercises(chapter: str, *, force: bool = False, progress: bool = True, shared: bool = True,
                  log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the chapter's quick preset and every exercise variant; return ``{key: RunResult}``.

    The quick run is under the key ``"quick"``. With ``shared`` (the
    default) the runs share one kernel (:class:`anonbook.runner.SharedKernel`):
    the kernel's start and the imports are paid once, and what the library
    keeps in memory and in the result cache from one run serves the next;
    without it each run starts a kernel of its own. Runs that are up to date
    are not repeated (and start no kernel). ``log`` receives one line per run
    (default: standard error). A failing run raises
    :class:`anonbook.runner.RunError` naming the exercise.
    """
    from contextlib import nullcontext

    from anonbook.runner import RunError, SharedKernel, run_notebook

    say = log or (lambda line: print(line, file=sys.stderr, flush=True))
    out: dict[str, Any] = {}
    with SharedKernel(chapter) if shared else nullcontext() as kernel:
        for key, params in exercise_runs(chapter):
            try:
                out[key] = res = run_notebook(chapter, params, out_dir=exercise_dir(chapter) / key, force=force,
                                              progress=False, kernel=kernel, preset=f"exercise {key}")
            except RunError as exc:
                raise RunError(f"{chapter}: the solution run of exercise {key!r} failed:\n{exc}") from None
            if progress:
                say(f"[anonlab] {chapter}: solution run {key!r} "
                    + ("up to date" if res.cached else f"done in {res.seconds:.1f} s"))
    return out


def exercises_current(chapter: str) -> bool:
    """Is every run of :func:`run_exercises` up to date (so that running them starts no kernel)?"""
    from anonbook.runner import is_current

    return all(is_current(chapter, params, exercise_dir(chapter) / key) for key, params in exercise_runs(chapter))


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


def _flags(params: Mapping[str, Any]) -> str:
    return " ".join(f"-p {k} '{json.dumps(v)}'" if not isinstance(v, str) else f"-p {k} {v}"
                    for k, v in params.items())


def solution_command(chapter: str, e: chapters.Exercise) -> str:
    """The command that makes an exercise's solution run: its base preset and its parameters."""
    quick = "" if e.base == "default" else " --quick"
    extra = {} if isinstance(e.base, str) else dict(e.base)
    return f"python -m anonlab run {chapter}{quick} {_flags({**extra, **e.parameters})}".rstrip()


def published_default_glue(chapter: str) -> dict[str, dict[str, Any]] | None:
    """The glued values of the chapter's published run when it ran on the defaults, else ``None``."""
    nb = paths.book_dir() / f"{chapter}.ipynb"
    meta = _run_meta(paths.book_dir(), chapter)
    if not nb.exists() or meta.get("parameters", None) != {}:
        return None
    return glued_outputs(nb)


def base_glue(chapter: str, e: chapters.Exercise) -> dict[str, dict[str, Any]] | None:
    """The glued values of an exercise's base run (``None`` when it is not part of this build)."""
    if e.base == "default":
        return published_default_glue(chapter)
    nb = exercise_dir(chapter) / base_key(chapters.get(chapter), e) / f"{chapter}.ipynb"
    return glued_outputs(nb) if nb.exists() else None


def solution(chapter: str, e: chapters.Exercise, figure_dir: Path) -> str:
    """One exercise's solution (MyST, inside its dropdown): command, preset, values with intervals, why, figure."""
    from anonbook import solutions

    ch = chapters.get(chapter)
    nb = exercise_dir(chapter) / e.key / f"{chapter}.ipynb"
    parts = [f"`{solution_command(chapter, e)}`\n\n", f"Changes {exercise_changes(ch, e)}.\n\n",
             f"{solutions.preset_note(ch, e)}\n\n"]
    if not nb.exists():
        return "".join(parts) + ("The solution run was not part of this build "
                                 "(`python -m anonlab book` computes it).\n")
    vals = glued_outputs(nb)
    base = base_glue(chapter, e)
    if base is None:
        parts.append("The base run was not part of this build (the chapter above was not run with its "
                     "default parameters), so only this exercise's values are shown.\n\n")
    base = base or {}
    parts.append(f"| | {solutions.base_label(e)} | this exercise |\n|---|---|---|\n")
    parts += [f"| {label} | {solutions.cell(base, key, e.intervals.get(key))} | "
              f"{solutions.cell(vals, key, e.intervals.get(key))} |\n" for key, label in e.answer.items()]
    if any(vals.get(e.intervals.get(k, k + solutions.INTERVAL_SUFFIX)) for k in e.answer):
        parts.append("\nAfter a value, in brackets or parentheses: its 95 % interval.\n")
    if e.explain and base:
        parts.append(f"\n**Why.** {solutions.fill_explanation(e.explain.strip(), base, vals)}\n")
    if e.figure and "image/png" in vals.get(e.figure, {}):
        png = figure_dir / f"{chapter}.{e.key}.png"
        png.write_bytes(base64.b64decode(vals[e.figure]["image/png"]))
        rel = png.relative_to(paths.book_dir()).as_posix()
        parts.append(f"\n![The figure for this exercise](/{rel})\n")
    return "".join(parts)


def grading_note(e: chapters.Exercise) -> str:
    """The exercise's grading note: its own, or what to credit, read from what the solution shows."""
    if e.grading:
        return e.grading.strip()
    shown = "; ".join(e.answer.values())
    return ("Credit the prediction made before the run and its reason, whichever way the run came out: a "
            f"direction (or a value) for each of: {shown}. The table above is what this build computed "
            "on the preset it names.")


#: The editions of the book: the instructor's (solutions, grading notes) and the student's (questions only).
EDITIONS = ("instructor", "student")


def solution_file(chapter: str, key: str) -> Path:
    """``book/_generated/chapters/<chapter>/<key>.solution.md``: what the page's ``{solution}`` directive includes."""
    return paths.book_dir() / GENERATED / "chapters" / chapter / f"{key}.solution.md"


def page_include(chapter: str, key: str) -> str:
    """The include line of an exercise's solution, as the chapter's page writes it inside its ``{solution}``."""
    return f"```{{include}} {GENERATED}/chapters/{chapter}/{key}.solution.md\n```"


def chapter_solutions(chapter: str, figure_dir: Path, edition: str = "instructor") -> dict[str, str]:
    """The computed solution of each exercise of a chapter (``{key: MyST}``), with its grading note.

    The chapter's page writes each question in an ``{exercise}`` directive and,
    under it, a ``{solution}`` directive that includes this text. The student
    edition hides the solutions through sphinx-exercise (``hide_solutions``,
    :func:`anonbook.book.edition_config`); its includes are written empty as
    well, because the download copy of a notebook inlines them without Sphinx
    (:func:`anonbook.publish.resolve_myst`).
    """
    if edition not in EDITIONS:
        raise ValueError(f"edition must be one of {EDITIONS}, got {edition!r}")
    ch = chapters.get(chapter)
    if edition == "student":
        return {e.key: "" for e in ch.exercises}
    return {e.key: f"{solution(chapter, e, figure_dir)}\n**Grading note.** {grading_note(e)}\n"
            for e in ch.exercises}


def preset_problems(chapter: str) -> list[str]:
    """Solutions on the generated page that cite a value the chapter shows, with another value, unnamed.

    Reads the instructor edition's solution files (:func:`solution_file`)
    and compares each solution's base run with the chapter's published
    default run (:func:`anonbook.solutions.preset_disagreements`); nothing to
    compare when the published run is not a default run.
    """
    from anonbook import solutions

    published = published_default_glue(chapter)
    ch = chapters.get(chapter)
    files = [solution_file(chapter, e.key) for e in ch.exercises]
    if published is None or not any(f.exists() for f in files):
        return []
    page = "".join(f.read_text("utf-8") for f in files if f.exists())
    shown = [e for e in ch.exercises if (exercise_dir(chapter) / e.key / f"{chapter}.ipynb").exists()]
    bases = {e.key: base_glue(chapter, e) or {} for e in shown}  # a solution not run cites nothing
    return [f"{chapter}/{p}" for p in solutions.preset_disagreements(ch, published, bases, page)]


def write_course_pages(names: list[str], edition: str = "instructor") -> None:
    """Write every chapter's header and exercise solutions, and the course plan, under ``book/_generated``.

    ``edition="student"`` writes the solutions' includes empty (:func:`chapter_solutions`).
    """
    out = paths.book_dir() / GENERATED / "chapters"
    out.mkdir(parents=True, exist_ok=True)
    for c in names:
        if not chapters.has_chapter(c):
            continue
        (out / f"{c}.header.md").write_text(chapter_header(c), encoding="utf-8")
        for key, text in chapter_solutions(c, out, edition).items():
            solution_file(c, key).parent.mkdir(parents=True, exist_ok=True)
            solution_file(c, key).write_text(text, encoding="utf-8")
    (paths.book_dir() / GENERATED / "course_plan.md").write_text(course_plan(names), encoding="utf-8")

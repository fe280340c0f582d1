"""The course schedule: thirteen weeks a lecturer can adopt, as data, and the page that shows it.

Each :class:`Week` names its topic, the chapter(s) it teaches, the readings (keys of ``book/references.bib``,
cited with ``{cite}``, with the part to read and the time it takes), the exercises to assign (a chosen
subset of the chapter's declared exercises, linked to the exercise on the chapter page) and the time in
class. A student's homework is computed, not typed: :data:`EXERCISE_HOURS` per assigned exercise, plus
:data:`GRADED_HOURS` in a week with a chapter (its graded assignment, :mod:`anonbook.assignments` when that
package exists), plus the week's project work. The yardstick (precision, coverage and precision
improvement over the non-member baseline) is taught in week 2, before every chapter that measures
attacks on it (:func:`uses_yardstick`).

:func:`course_plan` renders the schedule as MyST markdown (one table at a glance, then a section per
week); the book build writes it to ``book/_generated/course_plan.md``, which ``book/course.md`` includes.
Nothing here imports :mod:`anonbook.course` (which re-exports :func:`course_plan`).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anonlab import paths
from anonbook import chapters
from anonbook.chapters import exercise_label  # the anchor the schedule links to

__all__ = ["Reading", "Week", "WEEKS", "YARDSTICK_WEEK", "EXERCISE_HOURS", "GRADED_HOURS", "exercise_label",
           "exercise_number", "exercise_href", "slides_href", "deck_available", "graded_assignments", "assignment_href",
           "homework_hours", "week_hours", "course_hours", "week_of", "uses_yardstick", "course_plan",
           "first_question"]

#: Homework per assigned exercise (predict, run the variant with ``--quick``, compare with the solution), hours.
EXERCISE_HOURS = 1.0
#: Homework for the graded assignment of a week that teaches a chapter, hours.
GRADED_HOURS = 3.0


@dataclass(frozen=True)
class Reading:
    """A reading: a key of ``book/references.bib``, the part to read and the time it takes (hours)."""

    key: str
    part: str
    hours: float


@dataclass(frozen=True)
class Week:
    """One week of the course.

    ``exercises`` are ``(chapter, exercise key)`` pairs; ``project_hours`` is homework that is not an
    exercise (setting up, the project); ``activity`` says what happens in class in a week without a chapter.
    """

    number: int
    title: str
    chapters: tuple[str, ...] = ()
    readings: tuple[Reading, ...] = ()
    exercises: tuple[tuple[str, str], ...] = ()
    in_class: float = 3.0
    project_hours: float = 0.0
    activity: str = ""


#: The weeks of the midterm and of the project presentations, and their pages (:mod:`anonbook.assessments`).
MIDTERM_WEEK, PROJECT_WEEK = 7, 13
ASSESSMENT_PAGES = {MIDTERM_WEEK: ("midterm.md", "The midterm"),
                    PROJECT_WEEK: ("project.md", "The project brief and its rubric")}

#: The week that teaches the yardstick; :func:`uses_yardstick` chapters come after it.
YARDSTICK_WEEK = 2

#: The thirteen weeks. Readings name the seed papers and the papers they build on (``book/references.bib``).
WEEKS: tuple[Week, ...] = (
    Week(1, "Removing names is not anonymising: the attacks this course reproduces",
         readings=(Reading("sweeney2002k", "§1–3", 1.5), Reading("cmu18734slides2019", "the slides on linking", 0.5)),
         project_hours=2.0,
         activity="What an anonymised release promises and how the five source documents attack it; set up the "
                  "environment (`make lab`) and run one chapter with `--quick`."),
    Week(2, "The yardstick: precision, coverage and precision improvement over a non-member baseline",
         ("05_nonmember_framework",),
         readings=(Reading("francis2024towards", "§1–4", 3.0),),
         exercises=(("05_nonmember_framework", "smaller_pii"), ("05_nonmember_framework", "coarse_synthesizer"))),
    Week(3, "k-anonymity, l-diversity and t-closeness, and the attacks that break them",
         ("01_syntactic_anonymity",),
         readings=(Reading("cmu18734slides2019", "k-anonymity, l-diversity, t-closeness", 1.0),
                   Reading("machanavajjhala2007ldiversity", "§1–3", 1.5),
                   Reading("li2007tcloseness", "§1–3", 1.0)),
         exercises=(("01_syntactic_anonymity", "one_more_qi"), ("01_syntactic_anonymity", "salary_bands"))),
    Week(4, "Noise against inference: differentially private counts and Anatomy",
         ("02_dp_vs_definetti",),
         readings=(Reading("cormode2011", "the whole paper", 2.5), Reading("dwork2006calibrating", "§1–3", 1.0),
                   Reading("kifer2009attacks", "§1–3", 1.0)),
         exercises=(("02_dp_vs_definetti", "laplace"), ("02_dp_vs_definetti", "drop_income"))),
    Week(5, "Sparse data: de-anonymising the Netflix Prize", ("03_netflix_eccentricity",),
         readings=(Reading("narayanan2008robust", "§1–5", 2.5),),
         exercises=(("03_netflix_eccentricity", "phi3"), ("03_netflix_eccentricity", "date_scale3"))),
    Week(6, "Reconstruction from published tables: the US Census", ("04_census_reconstruction",),
         readings=(Reading("francis2024towards", "§3, the census reconstruction", 1.5),),
         exercises=(("04_census_reconstruction", "worse_linkage"),
                    ("04_census_reconstruction", "heavy_swapping"))),
    Week(7, "Review, midterm and project proposals", project_hours=5.0,
         activity="Review of weeks 1–6 on the yardstick; the written midterm (its questions are exercises of "
                  "weeks 1–6); each team proposes a project (a release audited under a new parameter, data "
                  "set or attacker) and predicts its result."),
    Week(8, "Attacking a query interface: Diffix's sticky noise and the differential attack",
         ("06a_diffix_differential",),
         readings=(Reading("gadotti2019signal", "§1–4", 2.5),),
         exercises=(("06a_diffix_differential", "no_rounding"), ("06a_diffix_differential", "another_salt"))),
    Week(9, "Diffix's cloning attack", ("06b_diffix_cloning",),
         readings=(Reading("gadotti2019signal", "§5–7", 1.5),),
         exercises=(("06b_diffix_cloning", "target_minority"), ("06b_diffix_cloning", "fewer_dummies"))),
    Week(10, "Membership inference at realistic base rates", ("07_membership_base_rates",),
         readings=(Reading("shokri2017membership", "§1–5", 1.5), Reading("carlini2022membership", "§1–4", 1.5),
                   Reading("francis2024towards", "§5, membership inference", 1.0)),
         exercises=(("07_membership_base_rates", "member_fraction"),
                    ("07_membership_base_rates", "logistic_regression"))),
    Week(11, "Who is the attacker? Passive and active partial knowledge", ("08_passive_active",),
         readings=(Reading("desfontaines2020lowering", "the chapter on partial knowledge", 2.5),),
         exercises=(("08_passive_active", "fewer_known"), ("08_passive_active", "no_threshold"))),
    Week(12, "One yardstick for every attack, and an audit of your own release on it",
         ("09_one_yardstick", "10_audit_your_release"),
         readings=(Reading("francis2024towards", "§2 again, the measures", 1.0),
                   Reading("giomi2023unified", "§3, Anonymeter's three attacks", 1.0)),
         exercises=(("09_one_yardstick", "stricter_intervals"), ("09_one_yardstick", "cormode_alone"),
                    ("10_audit_your_release", "quasi_identifiers_only"))),
    Week(13, "Project presentations", project_hours=6.0,
         activity="Each team presents its project: the prediction, the audit on the yardstick and the verdict "
                  "by the book's rules, graded by the project brief's rubric."),
)


def exercise_number(chapter: str, key: str) -> int:
    """The number the book shows for an exercise: sphinx-exercise numbers them through the whole book, in the
    order of ``_toc.yml`` (chapter 2's first is 6 when chapter 1 has five); within the chapter when the
    chapter is not in the table of contents."""
    from anonbook.runner import toc_notebooks

    names = toc_notebooks()
    before = names[:names.index(chapter)] if chapter in names else []
    earlier = sum(len(chapters.get(c).exercises) for c in before if chapters.has_chapter(c))
    return earlier + 1 + [e.key for e in chapters.get(chapter).exercises].index(key)


def exercise_href(chapter: str, key: str) -> str:
    """The link from the course page (or a deck one folder down, with ``../``) to an exercise.

    ``<chapter>.html#<exercise_label>`` when the chapter's page (``notebooks/<chapter>.ipynb``) has an
    ``{exercise}`` directive with that label, else the chapter's Exercises section (``#exercises``), so
    that no link points at an anchor the page lacks.
    """
    label = exercise_label(chapter, key)
    if label in chapters.page_exercises(chapters.page_markdown(chapter)):
        return f"{chapter}.html#{label}"
    return f"{chapter}.html#exercises"


def slides_href(chapter: str) -> str:
    """Where the build writes a chapter's deck, relative to the book's HTML root."""
    return f"slides/{chapter}.html"


def deck_available(chapter: str, book_dir: Path | None = None) -> bool:
    """Whether the build makes a deck for the chapter: it needs the executed run ``book/<chapter>.ipynb``."""
    return ((book_dir or paths.book_dir()) / f"{chapter}.ipynb").exists()


def graded_assignments() -> dict[str, list[tuple[str, str]]]:
    """Chapter -> ``[(key, title)]`` of the graded assignments (:mod:`anonbook.assignments`); ``{}`` without it.

    Read from the package's ``ASSIGNMENTS`` (a sequence or a mapping of ``Assignment(chapter, key, ...)``).
    """
    try:
        mod = importlib.import_module("anonbook.assignments")
    except ImportError:
        return {}
    found: Any = getattr(mod, "ASSIGNMENTS", ())
    items: Iterable[Any] = found.values() if isinstance(found, dict) else found
    out: dict[str, list[tuple[str, str]]] = {}
    for a in items:
        if hasattr(a, "chapter") and hasattr(a, "key"):
            out.setdefault(a.chapter, []).append((a.key, str(getattr(a, "title", "") or a.key)))
    return out


def assignment_href(chapter: str, key: str) -> str:
    """The link to a graded assignment on the assignments page: ``assignments.html#<chapter>-<key>``."""
    return f"assignments.html#{chapter}-{key}"


def homework_hours(week: Week) -> float:
    """Homework (hours) = :data:`EXERCISE_HOURS` × exercises + :data:`GRADED_HOURS` if the week has a chapter + project."""
    return EXERCISE_HOURS * len(week.exercises) + (GRADED_HOURS if week.chapters else 0.0) + week.project_hours


def week_hours(week: Week) -> dict[str, float]:
    """A student's time in the week (hours): reading, in class, homework and their total."""
    parts = {"reading": sum(r.hours for r in week.readings), "in class": week.in_class,
             "homework": homework_hours(week)}
    return {**parts, "total": sum(parts.values())}


def course_hours(weeks: Sequence[Week] = WEEKS) -> dict[str, float]:
    """The course's total time per kind (hours), the sum of :func:`week_hours` over the weeks."""
    totals = {"reading": 0.0, "in class": 0.0, "homework": 0.0, "total": 0.0}
    for w in weeks:
        for k, v in week_hours(w).items():
            totals[k] += v
    return totals


def week_of(chapter: str, weeks: Sequence[Week] = WEEKS) -> int | None:
    """The week that teaches ``chapter`` (``None`` if none does)."""
    return next((w.number for w in weeks if chapter in w.chapters), None)


def uses_yardstick(chapter: str) -> bool:
    """Whether a chapter measures on the yardstick: its notebook records attacks (``run.record_attack``, each
    placed by precision, coverage and PI) or it reads other chapters' records (its declared ``after``)."""
    nb = paths.notebooks_dir() / f"{chapter}.ipynb"
    records = nb.exists() and "record_attack(" in nb.read_text(encoding="utf-8")
    return records or (chapters.has_chapter(chapter) and bool(chapters.get(chapter).after))


def first_question(chapter: str) -> tuple[str, str] | None:
    """The exercise a chapter's deck asks (key, question): the first one the schedule assigns, else the first."""
    ch = chapters.get(chapter)
    by_key = {e.key: e for e in ch.exercises}
    keys = [k for w in WEEKS for c, k in w.exercises if c == chapter and k in by_key] + list(by_key)
    return (keys[0], by_key[keys[0]].question.strip()) if keys else None


def _hours(x: float) -> str:
    """``1.5`` -> ``1.5 h``, ``3.0`` -> ``3 h`` (a no-break space: the unit stays with its number)."""
    return f"{x:g}\u00a0h"


def _time_line(h: dict[str, float]) -> str:
    return (f"{_hours(h['reading'])} reading, {_hours(h['in class'])} in class, {_hours(h['homework'])} "
            f"homework: **{_hours(h['total'])}**")


def _glance(weeks: Sequence[Week], names: Sequence[str]) -> list[str]:
    """The schedule at a glance: one row per week (week, topic, hours), and the course's total."""
    rows = ["| Week | Topic | Hours |", "|---|---|---|"]
    for w in weeks:
        rows.append(f"| {w.number} | {{ref}}`{w.title} <week-{w.number}>` | {_hours(week_hours(w)['total'])} |")
    total = course_hours(weeks)
    rows.append(f"| | **The course** ({_time_line(total).replace('**', '')}) | **{_hours(total['total'])}** |")
    return rows


def _chapter_lines(chapter: str, names: Sequence[str]) -> list[str]:
    """A week's chapter: link, goals as a list, the deck."""
    if chapter not in names or not chapters.has_chapter(chapter):
        return [f"- **Chapter:** `{chapter}` is not part of this copy of the book."]
    ch = chapters.get(chapter)
    lines = [f"- **Chapter:** [{ch.title}]({chapter}.ipynb)"]
    if ch.goals:
        lines.append("  - **You will learn:**")
        lines += [f"    - {g.strip().rstrip('.')}." for g in ch.goals]
    if ch.assumes:
        lines.append(f"  - **It assumes** {ch.assumes.strip()}")
    if deck_available(chapter):
        lines.append(f'  - **Slides:** <a href="{slides_href(chapter)}">the deck</a> (claim, key figure, '
                     "verdict, a question to predict; arrow keys to move)")
    return lines


def _exercise_lines(week: Week) -> list[str]:
    """The exercises to assign, each linked to its question (and folded solution) on the chapter page."""
    if not week.exercises:
        return []
    lines = ["- **Exercises to assign** (each asks for a prediction first; in the instructor edition the solution "
             "is folded under it):"]
    for chapter, key in week.exercises:
        question = " ".join(next(e for e in chapters.get(chapter).exercises if e.key == key).question.split())
        lines.append(f'  - <a href="{exercise_href(chapter, key)}">Exercise {exercise_number(chapter, key)}</a>: '
                     f"{_first_sentence(question)}")
    return lines


def _first_sentence(text: str, limit: int = 200) -> str:
    """The first sentence of ``text`` (cut at a word with "…" past ``limit`` characters)."""
    import re

    first = re.split(r"(?<=[.?!])\s+(?=[A-Z*])", text)[0]
    return first if len(first) <= limit else first[:limit].rsplit(" ", 1)[0] + " …"


def _graded_line(week: Week, graded: dict[str, list[tuple[str, str]]]) -> list[str]:
    """The week's graded assignment(s), linked to the assignments page; a note when there is none."""
    if not week.chapters:
        return []
    found = [(c, key, title) for c in week.chapters for key, title in graded.get(c, [])]
    if not found:
        return ["- **Graded assignment:** none in this copy of the book."]
    links = ", ".join(f'<a href="{assignment_href(c, key)}">{title}</a>' for c, key, title in found)
    return [f"- **Graded assignment:** {links}"]


def week_markdown(week: Week, names: Sequence[str], graded: dict[str, list[tuple[str, str]]]) -> str:
    """One week's section: chapter(s), what happens in class, readings, exercises, graded work, student time."""
    lines = [f"(week-{week.number})=", f"## Week {week.number}: {week.title}", ""]
    for c in week.chapters:
        lines += _chapter_lines(c, names)
    if week.activity:
        lines.append(f"- **In class:** {week.activity}")
    if week.readings:
        lines.append("- **Reading:**")
        lines += [f"  - {{cite}}`{r.key}`, {r.part} ({_hours(r.hours)})" for r in week.readings]
    lines += _exercise_lines(week)
    lines += _graded_line(week, graded)
    if week.number in ASSESSMENT_PAGES:
        page, title = ASSESSMENT_PAGES[week.number]
        lines.append(f'- **Assessment:** <a href="{page.removesuffix(".md")}.html">{title}</a>')
    h = week_hours(week)
    lines.append(f"- **Student time:** {_time_line(h)}")
    return "\n".join(lines) + "\n"


def course_plan(names: list[str]) -> str:
    """The schedule page's generated part: the weeks at a glance, then a section per week (MyST markdown).

    ``names`` are the chapters in this copy of the book (``_toc.yml``); a week's chapter that is not
    among them is named as missing rather than linked.
    """
    graded = graded_assignments()
    rule = (f"Homework counts {_hours(EXERCISE_HOURS)} per assigned exercise, {_hours(GRADED_HOURS)} for the "
            "graded assignment of a week with a chapter, and the project work of the weeks without one.")
    parts = ["## The weeks at a glance", "", rule, "", *_glance(WEEKS, names), ""]
    parts += [week_markdown(w, names, graded) for w in WEEKS]
    return "\n".join(parts)

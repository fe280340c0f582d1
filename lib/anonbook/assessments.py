"""The course's two scheduled assessments: the midterm (week 7) and the project brief (week 13).

The midterm's questions are drawn from the chapters' predict-first exercises of the weeks before it (the first
exercise each week assigns; :func:`midterm_questions`); its key is each exercise's solution as this build
computed it (:func:`anonbook.course.solution`) with the exercise's grading note. The project brief asks a
team to audit a release with the book's yardstick; its rubric (:data:`RUBRIC`) is shown to students, how to
grade each criterion and the yardstick's standing of the book's own attacks are the instructor's.

Each assessment is written as two generated files, like the assignments page: ``_generated/<name>.md`` (the
questions, both editions) and ``_generated/<name>.instructor.md`` (the key), which the student edition empties
(:func:`anonbook.book.blank_instructor_pages`). ``book/midterm.md`` and ``book/project.md`` include both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from anonlab import paths
from anonbook import chapters, syllabus

__all__ = ["MIDTERM_WEEK", "PROJECT_WEEK", "RUBRIC", "Criterion", "midterm_questions", "midterm_key",
           "midterm_page", "project_brief", "project_key", "rubric_points", "write_assessment_pages"]

#: The weeks of the schedule (:data:`anonbook.syllabus.WEEKS`) that hold the midterm and the project.
MIDTERM_WEEK, PROJECT_WEEK = syllabus.MIDTERM_WEEK, syllabus.PROJECT_WEEK
GENERATED = "_generated"


@dataclass(frozen=True)
class Criterion:
    """One line of the project's rubric: what is assessed, its points, and how to grade it (instructor only)."""

    name: str
    points: int
    asks: str
    grading: str


#: The project's rubric: the points add up to 100 (:func:`rubric_points`).
RUBRIC: tuple[Criterion, ...] = (
    Criterion("The release and the question", 10,
              "Which release is audited (a chapter's mechanism under a new parameter, data set or attacker), "
              "what an attacker wants from it, and what the attacker knows.",
              "Full marks for a release the book's library can produce and an attacker stated as a chapter "
              "states one; half when the attacker's knowledge is left implicit."),
    Criterion("The prediction", 15,
              "Written before the run: the precision, coverage and precision improvement the team expects, "
              "and why.",
              "Credit a prediction with a reason, whichever way the run came out; none for one written after "
              "the run (the proposal of week 7 holds it)."),
    Criterion("The non-member baseline", 20,
              "The baseline the attack is measured against (week 2): what it guesses, on which records, and "
              "why it is the right one for this release.",
              "The baseline must see what the attacker sees except the target's membership; a baseline that "
              "sees less overstates the attack (the book's chapter 5)."),
    Criterion("The audit on the yardstick", 25,
              "The attack run with the library, its precision and coverage with their 95 % intervals, and "
              "its precision improvement over the baseline, from a seeded run anyone can repeat "
              "(`python -m anonlab run ... -p ...`).",
              "Check that the command reproduces the numbers; intervals on every rate measured on a sample; "
              "the improvement computed as the book's measures compute it."),
    Criterion("The verdict", 20,
              "By the book's rules: does the release protect against this attacker, and how does the attack "
              "stand beside the book's own attacks on the yardstick (chapter 9)?",
              "The verdict must follow from the measured improvement and its interval, not from the "
              "prediction; compare with the yardstick's table below."),
    Criterion("Presentation", 10,
              "Ten minutes in week 13: the prediction, the run, the verdict; one figure.",
              "Clarity and honesty about what did not work."),
)


def rubric_points(rubric: tuple[Criterion, ...] = RUBRIC) -> int:
    """The rubric's total (100)."""
    return sum(c.points for c in rubric)


def midterm_questions(weeks: tuple[syllabus.Week, ...] = syllabus.WEEKS,
                      before: int = MIDTERM_WEEK) -> list[tuple[str, chapters.Exercise]]:
    """(chapter, exercise) of each midterm question: the first exercise each week before ``before`` assigns.

    Only exercises the chapter declares count (a week naming a missing exercise is skipped).
    """
    out = []
    for week in weeks:
        if week.number >= before or not week.exercises:
            continue
        for chapter, key in week.exercises:
            if not chapters.has_chapter(chapter):
                continue
            found = [e for e in chapters.get(chapter).exercises if e.key == key]
            if found:
                out.append((chapter, found[0]))
                break
    return out


def _question(i: int, chapter: str, e: chapters.Exercise) -> str:
    """One midterm question (MyST): its number, the chapter it comes from and the exercise's question."""
    href = syllabus.exercise_href(chapter, e.key)
    return (f"(midterm-{i})=\n### Question {i}\n\nFrom <a href=\"{href}\">chapter {chapter.split('_')[0]}</a>.\n\n"
            f"{e.question.strip()}\n")


def midterm_page(questions: list[tuple[str, chapters.Exercise]]) -> str:
    """The students' part of the midterm: how it runs, then the questions (no solution, no grading note)."""
    intro = (f"The midterm of week {MIDTERM_WEEK}: {len(questions)} questions, one from each chapter taught "
             "so far, each a predict-first exercise of its chapter. Answer each with a prediction and its "
             "reason first; then say which run would check it and what you expect it to show. Allow 15 "
             "minutes a question.\n\n")
    return "## Questions\n\n" + intro + "\n".join(_question(i, c, e) for i, (c, e) in enumerate(questions, 1))


def midterm_key(questions: list[tuple[str, chapters.Exercise]], figure_dir: Path) -> str:
    """The instructor's key: each question's solution as this build computed it, then its grading note."""
    from anonbook.course import grading_note, solution

    parts = ["## Key (instructor edition)\n\nEach answer is the exercise's solution computed by this build "
             "(the same run as under the exercise in its chapter).\n"]
    for i, (chapter, e) in enumerate(questions, 1):
        parts.append(f"### Key to question {i}\n\n{solution(chapter, e, figure_dir)}\n"
                     f"**Grading note.** {grading_note(e)}\n")
    return "\n".join(parts)


def project_brief(rubric: tuple[Criterion, ...] = RUBRIC) -> str:
    """The students' part of the project brief: the task and the rubric (what each criterion asks, its points)."""
    rows = "\n".join(f"| {c.name} | {c.asks} | {c.points} |" for c in rubric)
    return (
        "## The task\n\n"
        f"In teams of two or three, audit one release with the book's yardstick. Propose it in week "
        f"{MIDTERM_WEEK} (the release, the attacker, and your prediction, written down) and present it in week "
        f"{PROJECT_WEEK}. The release is one a chapter makes, under a parameter, data set or attacker the "
        "chapter does not run; the audit measures an attack's precision and coverage and its precision "
        "improvement over a non-member baseline (week 2), with the book's library and a seeded run anyone "
        "can repeat, and gives a verdict by the book's rules. A release you made yourself (a synthetic "
        "copy, a generalized extract) can be audited by every attack of the book at once: `python -m anonlab "
        "audit --members M.csv --release R.csv --non-members N.csv --secret S --html DIR` (chapter 10).\n\n"
        "## Rubric\n\n| criterion | what it asks | points |\n|---|---|---|\n"
        f"{rows}\n| total | | {rubric_points(rubric)} |\n")


def project_key(rubric: tuple[Criterion, ...] = RUBRIC, yardstick: str | None = None) -> str:
    """The instructor's part: how to grade each criterion and, when this build has it, the yardstick's row."""
    lines = ["## Grading the project (instructor edition)\n"]
    lines += [f"- **{c.name}** ({c.points} points). {c.grading}" for c in rubric]
    lines.append("")
    if yardstick:
        lines += ["Where the book's own attacks stand on the yardstick in this build (chapter 9), to compare "
                  "a team's verdict with:\n", yardstick, ""]
    else:
        lines.append("The yardstick's chapter was not run in this build: compare verdicts with chapter 9 "
                     "once it is.\n")
    return "\n".join(lines)


def write_assessment_pages(book_dir: Path | None = None) -> list[Path]:
    """Write ``midterm.md``, ``midterm.instructor.md``, ``project.md`` and ``project.instructor.md`` under
    ``<book>/_generated``; return them."""
    out = (book_dir or paths.book_dir()) / GENERATED
    figures = out / "chapters"
    figures.mkdir(parents=True, exist_ok=True)
    questions = midterm_questions()
    summary = out / "yardstick_summary.md"
    files = {
        "midterm.md": midterm_page(questions),
        "midterm.instructor.md": midterm_key(questions, figures),
        "project.md": project_brief(),
        "project.instructor.md": project_key(yardstick=summary.read_text(encoding="utf-8")
                                             if summary.exists() else None),
    }
    written = []
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
        written.append(out / name)
    return written

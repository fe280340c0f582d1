"""The midterm (week 7) and the project brief (week 13): questions for students, a key for instructors."""

from __future__ import annotations

from pathlib import Path

import pytest

from anonbook import assessments, book, chapters, syllabus
from anonbook.course import course_plan
from anonbook.runner import toc_notebooks

ROOT = Path(__file__).resolve().parents[1]


def test_the_midterm_draws_one_exercise_from_each_chapter_week_before_it() -> None:
    questions = assessments.midterm_questions()
    weeks = [w for w in syllabus.WEEKS if w.number < syllabus.MIDTERM_WEEK and w.exercises]
    assert [c for c, _ in questions] == [w.exercises[0][0] for w in weeks]
    for chapter, e in questions:
        assert e in chapters.get(chapter).exercises


def test_the_midterm_page_has_the_questions_and_the_key_their_solutions(tmp_path: Path) -> None:
    questions = assessments.midterm_questions()
    page = assessments.midterm_page(questions)
    for i, (chapter, e) in enumerate(questions, 1):
        assert f"### Question {i}" in page and e.question.strip() in page
        assert syllabus.exercise_href(chapter, e.key) in page
    assert "Solution" not in page and "Grading note" not in page and "Key" not in page
    key = assessments.midterm_key(questions, tmp_path)
    assert key.count("**Grading note.**") == len(questions)
    from anonbook.course import solution_command

    assert all(solution_command(c, e) in key for c, e in questions), "each key names the run that computes it"


def test_the_project_rubric_adds_up_and_its_grading_is_the_instructors() -> None:
    assert assessments.rubric_points() == 100
    brief, key = assessments.project_brief(), assessments.project_key(yardstick="<the yardstick row>")
    assert "yardstick" in brief and f"| total | | {assessments.rubric_points()} |" in brief
    for c in assessments.RUBRIC:
        assert c.asks in brief and c.grading not in brief and c.grading in key
    assert "<the yardstick row>" in key
    assert "was not run" in assessments.project_key()


def test_the_pages_are_in_the_book_and_the_schedule_links_them(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    toc = (ROOT / "_toc.yml").read_text()
    for page in ("midterm", "project"):
        assert f"- file: {page}\n" in toc
        text = (ROOT / "book" / f"{page}.md").read_text()
        assert f"_generated/{page}.md" in text and f"_generated/{page}.instructor.md" in text
    plan = course_plan(toc_notebooks())
    for week, (page, _) in syllabus.ASSESSMENT_PAGES.items():
        section = plan.split(f"(week-{week})=")[1].split("(week-")[0]
        assert f'href="{page.removesuffix(".md")}.html"' in section


def test_the_student_edition_has_the_questions_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "book").mkdir()
    monkeypatch.setenv("ANONLAB_ROOT", str(tmp_path))
    monkeypatch.setattr(assessments.paths, "book_dir", lambda: tmp_path / "book")
    written = assessments.write_assessment_pages(tmp_path / "book")
    assert sorted(p.name for p in written) == ["midterm.instructor.md", "midterm.md", "project.instructor.md",
                                               "project.md"]
    blanked = book.blank_instructor_pages(tmp_path / "book" / "_generated")
    assert {p.name for p in blanked} == {"midterm.instructor.md", "project.instructor.md"}
    assert all(p.read_text() == "" for p in blanked)
    assert "### Question 1" in (tmp_path / "book" / "_generated" / "midterm.md").read_text()
    assert "| total |" in (tmp_path / "book" / "_generated" / "project.md").read_text()

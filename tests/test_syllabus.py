"""The course schedule (anonbook.syllabus): every chapter scheduled, the yardstick first, links that resolve,
hours that add up, goals as lists."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

from anonlab import paths
from anonbook import chapters, course, syllabus
from anonbook.runner import toc_notebooks


def _bib_keys() -> set[str]:
    text = (paths.book_dir() / "references.bib").read_text(encoding="utf-8")
    return set(re.findall(r"^@\w+\{([^,\s]+),", text, re.M))


def test_thirteen_weeks_in_order_and_every_chapter_of_the_toc_is_taught() -> None:
    assert [w.number for w in syllabus.WEEKS] == list(range(1, 14))
    names = toc_notebooks()
    assert names, "no chapters in _toc.yml"
    missing = [c for c in names if syllabus.week_of(c) is None]
    assert missing == []
    taught = [c for w in syllabus.WEEKS for c in w.chapters]
    assert len(taught) == len(set(taught)), "a chapter is taught twice"
    assert set(taught) <= set(names), "the schedule names a chapter the book does not have"
    assert any(not w.chapters for w in syllabus.WEEKS), "weeks without a chapter (review, projects) are allowed"


def test_the_yardstick_week_precedes_every_chapter_that_measures_on_it() -> None:
    week = syllabus.WEEKS[syllabus.YARDSTICK_WEEK - 1]
    assert "05_nonmember_framework" in week.chapters
    users = [c for c in toc_notebooks() if syllabus.uses_yardstick(c) and c not in week.chapters]
    # chapters 1-4 (the complaint) record attacks on the yardstick, and so does every attack chapter
    assert {"01_syntactic_anonymity", "02_dp_vs_definetti", "03_netflix_eccentricity",
            "04_census_reconstruction", "09_one_yardstick"} <= set(users)
    late = {c: syllabus.week_of(c) for c in users if (syllabus.week_of(c) or 0) <= syllabus.YARDSTICK_WEEK}
    assert late == {}


def test_readings_are_references_of_the_book_and_exercises_are_declared() -> None:
    keys = _bib_keys()
    for w in syllabus.WEEKS:
        for r in w.readings:
            assert r.key in keys, f"week {w.number}: {r.key} is not in book/references.bib"
            assert r.hours > 0 and r.part
        for chapter, key in w.exercises:
            assert chapter in w.chapters, f"week {w.number} assigns an exercise of another week's chapter"
            assert key in [e.key for e in chapters.get(chapter).exercises], f"{chapter} has no exercise {key!r}"
        if w.chapters:
            assert 1 <= len(w.exercises) < sum(len(chapters.get(c).exercises) for c in w.chapters) + 1
            assert w.readings, f"week {w.number} teaches a chapter with nothing to read"
    seeds = {"cormode2011", "cmu18734slides2019", "francis2024towards", "gadotti2019signal",
             "desfontaines2020lowering"}
    assert seeds <= {r.key for w in syllabus.WEEKS for r in w.readings}


def _cited(notebook: str) -> set[str]:
    text = (paths.notebooks_dir() / f"{notebook}.ipynb").read_text(encoding="utf-8")
    return {k.strip() for group in re.findall(r"\{cite[a-z:]*\}`([^`]+)`", text) for k in group.split(",")}


def test_a_weeks_reading_is_what_its_chapter_cites() -> None:
    everywhere = set().union(*(_cited(c) for c in toc_notebooks()))
    for w in syllabus.WEEKS:
        cited = set().union(*(_cited(c) for c in w.chapters)) if w.chapters else everywhere
        assert {r.key for r in w.readings} <= cited, f"week {w.number} reads what its chapter does not cite"


def test_hours_add_up_per_week_and_for_the_course() -> None:
    total = {"reading": 0.0, "in class": 0.0, "homework": 0.0}
    for w in syllabus.WEEKS:
        h = syllabus.week_hours(w)
        assert h["reading"] == sum(r.hours for r in w.readings)
        assert h["homework"] == (syllabus.EXERCISE_HOURS * len(w.exercises)
                                 + (syllabus.GRADED_HOURS if w.chapters else 0) + w.project_hours)
        assert h["total"] == h["reading"] + h["in class"] + h["homework"]
        for k in total:
            total[k] += h[k]
    course_total = syllabus.course_hours()
    assert {k: course_total[k] for k in total} == total
    assert course_total["total"] == sum(total.values())
    assert 100 <= course_total["total"] <= 180, "a one-semester course of about 5 ECTS"


def test_the_page_shows_goals_as_lists_hours_and_every_week(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(syllabus, "graded_assignments", lambda: {})
    names = toc_notebooks()
    plan = course.course_plan(names)  # course re-exports the schedule for write_course_pages
    assert course.course_plan is syllabus.course_plan
    assert ".;" not in plan and "; " not in "".join(re.findall(r"- \*\*You will learn:\*\*.*", plan))
    for w in syllabus.WEEKS:
        assert f"## Week {w.number}: {w.title}" in plan and f"(week-{w.number})=" in plan
        assert f"**{syllabus._hours(syllabus.week_hours(w)['total'])}**" in plan
    assert plan.index("## Week 2:") < plan.index("## Week 3:")
    assert f"**{syllabus._hours(syllabus.course_hours()['total'])}**" in plan
    for c in names:
        for g in chapters.get(c).goals:
            assert f"    - {g.strip().rstrip('.')}." in plan
    assert plan.count("Graded assignment:** none") == sum(1 for w in syllabus.WEEKS if w.chapters)


def _exercise_links(text: str) -> list[tuple[str, str]]:
    return re.findall(r'href="([0-9a-z_]+)\.html#([^"]+)"', text)


def test_every_exercise_link_resolves_on_its_chapter_page(mini_project: Path) -> None:
    """A link names the exercise's anchor when the chapter's page labels an ``{exercise}`` with it, else the
    Exercises section."""
    import json

    root = Path(__file__).resolve().parents[1]
    names = [c for c in syllabus.WEEKS[2].chapters]
    plan = "\n".join(syllabus._exercise_lines(syllabus.WEEKS[2]))
    assert _exercise_links(plan) == [(c, "exercises") for c, _ in syllabus.WEEKS[2].exercises]  # no page here
    nb = (root / "notebooks" / f"{names[0]}.ipynb").read_text(encoding="utf-8")
    assert '"## Exercises' in nb, "the fallback anchor is the chapter's Exercises section"
    page = "".join(f":::{{exercise}}\n:label: {syllabus.exercise_label(c, k)}\n\nPredict first?\n:::\n\n"
                   for c, k in syllabus.WEEKS[2].exercises)
    mine = mini_project / "notebooks" / f"{names[0]}.ipynb"
    mine.write_text(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": page}],
                                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    plan = "\n".join(syllabus._exercise_lines(syllabus.WEEKS[2]))
    links = _exercise_links(plan)
    assert [a for _, a in links] == [syllabus.exercise_label(c, k) for c, k in syllabus.WEEKS[2].exercises]
    assert all(a in chapters.page_exercises(page) for _, a in links)


def test_the_chapter_pages_carry_the_schedule_anchors() -> None:
    """Every exercise the schedule assigns is an ``{exercise}`` of its chapter's page, labelled as it links."""
    labels = {c: chapters.page_exercises(chapters.page_markdown(c)) for w in syllabus.WEEKS for c in w.chapters}
    missing = [(c, k) for w in syllabus.WEEKS for c, k in w.exercises
               if syllabus.exercise_label(c, k) not in labels[c]]
    assert missing == []


def test_graded_assignments_are_linked_when_the_package_exists(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anonbook.assignments", None)  # absent: the schedule still renders
    assert syllabus.graded_assignments() == {}
    fake = types.ModuleType("anonbook.assignments")
    fake.ASSIGNMENTS = (types.SimpleNamespace(chapter="01_syntactic_anonymity", key="homogeneity",
                                              title="The homogeneity attack"),)
    monkeypatch.setitem(sys.modules, "anonbook.assignments", fake)
    graded = syllabus.graded_assignments()
    assert graded == {"01_syntactic_anonymity": [("homogeneity", "The homogeneity attack")]}
    text = syllabus.week_markdown(syllabus.WEEKS[2], toc_notebooks(), graded)
    assert '<a href="assignments.html#01_syntactic_anonymity-homogeneity">The homogeneity attack</a>' in text


def test_a_chapter_missing_from_the_book_is_named_not_linked(monkeypatch: pytest.MonkeyPatch) -> None:
    text = syllabus.week_markdown(syllabus.WEEKS[1], ["01_syntactic_anonymity"], {})
    assert "`05_nonmember_framework` is not part of this copy of the book" in text
    assert "05_nonmember_framework.ipynb" not in text


def test_exercise_numbers_run_through_the_book_as_sphinx_exercise_numbers_them() -> None:
    names = [c for c in toc_notebooks() if chapters.has_chapter(c)]
    first, second = chapters.get(names[0]), chapters.get(names[1])
    assert syllabus.exercise_number(names[0], first.exercises[0].key) == 1
    assert syllabus.exercise_number(names[1], second.exercises[1].key) == len(first.exercises) + 2
    last = chapters.get(names[-1])
    total = sum(len(chapters.get(c).exercises) for c in names)
    assert syllabus.exercise_number(names[-1], last.exercises[-1].key) == total

"""Solutions that agree with the chapter, and the two editions (instructor, student) from one source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anonbook import book, chapters, course, solutions
from anonbook.chapters import Chapter, Exercise
from anonlab.validation import Param, ParameterSpec

from .test_course import _executed

SPEC = ParameterSpec([Param("x", "float", 0.5, "a value", low=0, high=1),
                      Param("n", "int", 100, "rows sampled: 100 means the whole table", low=1, high=10_000)])
NAME = "00_mini_chapter"


def _v(x: str) -> dict:
    return {"text/plain": x}


@pytest.fixture
def mini(mini_project: Path, monkeypatch: pytest.MonkeyPatch) -> Chapter:
    ch = Chapter(NAME, "A mini chapter", SPEC, quick={"n": 10}, exercises=(
        Exercise("bigger", {"x": 0.9}, {"value": "the value"},
                 explain="The value {value:change}; it is {value:vs:other} the other.",
                 grading="Full marks for the direction with a reason.", question="Predict first: what if x = 0.9? Why?"),
        Exercise("full", {"x": 0.1}, {"value": "the value"}, base="default", question="Predict first: on the whole table?"),
        Exercise("medium", {"x": 0.2}, {"value": "the value"}, base={"n": 50}, question="Predict first: on 50 rows?"),
    ))
    monkeypatch.setattr(chapters, "get", lambda name: ch)
    monkeypatch.setattr(chapters, "has_chapter", lambda name: name == ch.name)
    return ch


def _publish_default(root: Path, value: str) -> None:
    _executed(root / "book", 5.0, value=_v(value))
    (root / "book" / f"{NAME}.params.json").write_text(json.dumps({"seconds": 5.0, "parameters": {}}))


def _run_all(mini_project: Path) -> None:
    base = course.exercise_dir(NAME)
    _executed(base / "quick", 1.0, value=_v("0.25"), other=_v("0.3"), value_ci=_v("[0.10, 0.40]"))
    _executed(base / "bigger", 1.0, value=_v("0.5"), other=_v("0.3"), value_ci=_v("[0.33, 0.67]"))
    _executed(base / "full", 1.0, value=_v("0.75"))
    _executed(base / "base_medium", 1.0, value=_v("0.3"))
    _executed(base / "medium", 1.0, value=_v("0.35"))
    _publish_default(mini_project, "0.6")


def test_each_exercise_runs_on_its_base_preset(mini: Chapter) -> None:
    runs = dict(course.exercise_runs(NAME))
    assert runs["quick"] == {"n": 10} and runs["bigger"] == {"n": 10, "x": 0.9}
    assert runs["full"] == {"x": 0.1}  # the defaults: the base is the published run, not run again
    assert "default" not in runs
    assert runs["base_medium"] == {"n": 50} and runs["medium"] == {"n": 50, "x": 0.2}
    assert course.solution_command(NAME, mini.exercises[1]) == f"python -m anonlab run {NAME} -p x '0.1'"
    with pytest.raises(ValueError, match="base must be"):
        Exercise("e", {"x": 1}, {"k": "v"}, base="medium", question="q?")


def test_a_solution_names_its_preset_shows_intervals_and_explains(mini_project: Path, mini: Chapter) -> None:
    _run_all(mini_project)
    out = mini_project / "book" / "_generated" / "chapters"
    out.mkdir(parents=True)
    text = "".join(course.chapter_solutions(NAME, out).values())
    # the preset, from the declaration: the parameter, its value, the chapter's value and its meaning
    assert "Ran on the quick preset, not on the chapter's default run above: it differs in `n = 10` " \
           "(the chapter: `100`)" in text
    assert "| | quick preset | this exercise |" in text
    assert "| the value | 0.25 [0.10, 0.40] | 0.5 [0.33, 0.67] |" in text and "its 95 % interval" in text
    assert "**Why.** The value rises from 0.25 to 0.5; it is larger than the other." in text
    assert "**Grading note.** Full marks" in text
    # the default base is the chapter's own run
    assert "| | the chapter's default run (shown above) | this exercise |" in text
    assert "| the value | 0.6 | 0.75 |" in text
    assert "| | medium preset | this exercise |" in text and "| the value | 0.3 | 0.35 |" in text
    assert "Ran on a medium preset (the quick preset with `n = 50`)" in text
    assert course.exercise_label(NAME, "bigger") == "exercise-00-mini-chapter-bigger"  # as Sphinx spells ids


def test_an_interval_glued_under_another_name_is_shown(mini_project: Path) -> None:
    glued = {"n": _v("5"), "n_range": _v("5 to 7")}
    assert solutions.cell(glued, "n") == "5"
    assert solutions.cell(glued, "n", "n_range") == "5 (5 to 7)"
    with pytest.raises(ValueError, match="intervals of values it does not show"):
        Exercise("e", {"x": 1}, {"k": "v"}, intervals={"other": "other_ci"}, question="q?")


def test_the_student_edition_shows_the_questions_only(mini_project: Path, mini: Chapter) -> None:
    """The student build hides every ``{solution}`` directive (sphinx-exercise), and its includes carry nothing."""
    _run_all(mini_project)
    out = mini_project / "book" / "_generated" / "chapters"
    out.mkdir(parents=True)
    assert set(course.chapter_solutions(NAME, out, "student").values()) == {""}
    assert all("| the value |" in t for t in course.chapter_solutions(NAME, out, "instructor").values())
    with pytest.raises(ValueError, match="edition"):
        course.chapter_solutions(NAME, out, "teacher")
    import yaml

    (mini_project / "_config.yml").write_text("title: t\nsphinx:\n  extra_extensions: [sphinx_exercise]\n")
    student = yaml.safe_load(book.edition_config("student", mini_project / "_build" / "student").read_text())
    assert student["sphinx"]["config"]["hide_solutions"] is True
    assert student["sphinx"]["extra_extensions"] == ["sphinx_exercise"] and student["title"] == "t"
    assert book.edition_config("instructor", mini_project / "_build") == mini_project / "_config.yml"


def test_the_student_edition_empties_every_instructor_page(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "assignments.instructor.md").write_text("hidden test: assert x == 3")
    (tmp_path / "sub" / "a.instructor.md").write_text("grading note")
    (tmp_path / "assignments.md").write_text("the questions")
    emptied = book.blank_instructor_pages(tmp_path)
    assert len(emptied) == 2 and all(f.read_text() == "" for f in emptied)
    assert (tmp_path / "assignments.md").read_text() == "the questions"
    assert book.edition_dir("student").parts[-3:] == ("_build", "student", "html")


def test_explanations_compute_their_direction_words() -> None:
    base, var = {"a": _v("0.12"), "b": _v("5"), "s": _v("level 6")}, {"a": _v("0.19"), "b": _v("5"),
                                                                       "s": _v("never")}
    assert solutions.fill_explanation("{a:change}", base, var) == "rises from 0.12 to 0.19"
    assert solutions.fill_explanation("{a:change}", var, base) == "falls from 0.19 to 0.12"
    assert solutions.fill_explanation("{b:change}", base, var) == "stays at 5"
    assert solutions.fill_explanation("{s:change}", base, var) == "changes from level 6 to never"
    assert solutions.fill_explanation("{a@base} {a} {a@base:vs:b}", base, var) == "0.12 0.19 smaller than"
    assert solutions.placeholders("{a:change} {b@base:vs:c}") == ["a", "b", "c"]
    base["a_ci"], var["a_ci"] = _v("[0.01, 0.24]"), _v("[0.11, 0.47]")
    assert solutions.fill_explanation("{a:overlap}", base, var).endswith("overlap, so these samples cannot tell "
                                                                         "the two apart")
    var["a_ci"] = _v("[0.30, 0.47]")
    assert "do not overlap" in solutions.fill_explanation("{a:overlap}", base, var)


def test_the_preset_check_fails_on_an_unnamed_disagreement(mini_project: Path, mini: Chapter) -> None:
    _run_all(mini_project)
    published = {"value": _v("0.6")}
    bases = {"bigger": {"value": _v("0.25")}, "full": {"value": _v("0.6")}, "medium": {"value": _v("0.3")}}
    out = mini_project / "book" / "_generated" / "chapters"
    out.mkdir(parents=True)
    page = "".join(course.chapter_solutions(NAME, out).values())
    assert solutions.preset_disagreements(mini, published, bases, page) == []
    bare = page.replace("Ran on the quick preset", "Ran on")  # a solution that does not say its preset
    assert [p.split(":")[0] for p in solutions.preset_disagreements(mini, published, bases, bare)] == ["bigger"]
    wrong = {**bases, "full": {"value": _v("0.7")}}  # labelled the chapter's run, another value
    assert "full: value is 0.7 in the column labelled the chapter's run" in \
        solutions.preset_disagreements(mini, published, wrong, page)[0]
    for key, text in course.chapter_solutions(NAME, out).items():
        course.solution_file(NAME, key).parent.mkdir(parents=True, exist_ok=True)
        course.solution_file(NAME, key).write_text(text.replace("Ran on the quick preset", "Ran on"))
    assert [p.split(":")[0] for p in course.preset_problems(NAME)] == [f"{NAME}/bigger"]
    import shutil

    shutil.rmtree(course.exercise_dir(NAME) / "bigger")  # a solution not run cites nothing
    assert course.preset_problems(NAME) == []


@pytest.mark.parametrize("name", [n for n in sorted(p.stem for p in (Path(__file__).resolve().parents[1]
                                                                     / "notebooks").glob("*.ipynb"))])
def test_every_explanation_cites_values_its_solution_shows(name: str) -> None:
    """An ``explain`` template reads only the glue keys the solution's table shows (the reader can check it)."""
    for e in chapters.get(name).exercises:
        cited = set(solutions.placeholders(e.explain))
        assert cited <= set(e.answer), f"{name}/{e.key}: explains with {sorted(cited - set(e.answer))}"


def test_the_download_copy_shows_a_solution_only_where_the_edition_wrote_one(tmp_path: Path) -> None:
    """The download copy inlines the solution include without Sphinx: the student's (empty) leaves no box."""
    from anonbook import publish

    page = (":::{exercise}\n:label: exercise-00-mini-chapter-bigger\n\nPredict first: x = 0.9?\n:::\n\n"
            ":::{solution} exercise-00-mini-chapter-bigger\n:class: dropdown\n\n"
            f"{course.page_include(NAME, 'bigger')}\n:::\n")
    include = tmp_path / "_generated" / "chapters" / NAME / "bigger.solution.md"
    include.parent.mkdir(parents=True)
    include.write_text("| the value | 0.25 | 0.5 |\n")
    shown = publish.resolve_myst(page, tmp_path, {}, [])
    assert "> Predict first: x = 0.9?" in shown and "<summary>Solution</summary>" in shown and "0.25" in shown
    include.write_text("")
    shown = publish.resolve_myst(page, tmp_path, {}, [])
    assert "Predict first" in shown and "Solution" not in shown and "exercise-00" not in shown

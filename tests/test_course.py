"""The course layer: exercise declarations, computed solutions read from executed runs, the plan."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from anonbook import chapters, course
from anonbook.chapters import Chapter, Exercise
from anonlab.validation import Param, ParameterSpec

SPEC = ParameterSpec([Param("x", "float", 0.5, "a value", low=0, high=1),
                      Param("n", "int", 100, "a size", low=1, high=10_000)])
PNG = base64.b64encode(b"\x89PNG fake").decode()


def _glue(name: str, data: dict) -> dict:
    prefix = "application/papermill.record/"
    return {"output_type": "display_data", "data": {prefix + k: v for k, v in data.items()},
            "metadata": {"scrapbook": {"name": name, "mime_prefix": prefix}}}


def _executed(path: Path, seconds: float, **glued: dict) -> None:
    path.mkdir(parents=True, exist_ok=True)
    nb = {"cells": [{"cell_type": "code", "source": "", "metadata": {},
                     "outputs": [_glue(k, v) for k, v in glued.items()]}], "metadata": {}}
    (path / "00_mini_chapter.ipynb").write_text(json.dumps(nb))
    (path / "00_mini_chapter.params.json").write_text(json.dumps({"seconds": seconds}))


@pytest.fixture
def mini_course(mini_project: Path, monkeypatch: pytest.MonkeyPatch) -> Chapter:
    ch = Chapter("00_mini_chapter", "A mini chapter", SPEC, quick={"n": 10},
                 goals=("see a value move",), assumes="nothing",
                 exercises=(Exercise("bigger", {"x": 0.9},
                                     {"value": "the value"}, figure="fig", question="Predict first: what if x = 0.9?"),))
    monkeypatch.setattr(chapters, "get", lambda name: ch)
    monkeypatch.setattr(chapters, "has_chapter", lambda name: name == ch.name)
    return ch


def test_declarations_are_checked() -> None:
    with pytest.raises(ValueError, match="at least one parameter"):
        Exercise("e", {}, {"k": "v"}, question="q?")
    with pytest.raises(ValueError, match="glue keys"):
        Exercise("e", {"x": 1}, {}, question="q?")
    with pytest.raises(ValueError, match="exercise 'bad'.*'x' must be <= 1"):
        Chapter("c", "t", SPEC, exercises=(Exercise("bad", {"x": 2.0}, {"k": "v"}, question="q?"),))
    with pytest.raises(ValueError, match="three learning goals"):
        Chapter("c", "t", SPEC, goals=("a", "b", "c", "d"))


def test_glued_values_are_read_back(tmp_path: Path) -> None:
    _executed(tmp_path, 1.0, value={"text/plain": "0.123456"}, fig={"image/png": PNG})
    got = course.glued_outputs(tmp_path / "00_mini_chapter.ipynb")
    assert got["value"] == {"text/plain": "0.123456"} and "image/png" in got["fig"]


def test_solutions_come_from_the_runs_not_from_typed_answers(mini_project: Path, mini_course: Chapter) -> None:
    base = course.exercise_dir("00_mini_chapter")
    out = mini_project / "book" / "_generated" / "chapters"
    out.mkdir(parents=True)
    text = course.chapter_solutions("00_mini_chapter", out)["bigger"]
    assert "not part of this build" in text  # nothing run yet: no made-up answer
    _executed(base / "quick", 2.0, value={"text/plain": "0.25"})
    _executed(base / "bigger", 3.0, value={"text/plain": "0.123456"}, fig={"image/png": PNG})
    text = course.chapter_solutions("00_mini_chapter", out)["bigger"]
    assert "| the value | 0.25 | 0.1235 |" in text
    assert "-p x '0.9'" in text and "**Grading note.**" in text
    assert (out / "00_mini_chapter.bigger.png").read_bytes() == b"\x89PNG fake"
    header = course.chapter_header("00_mini_chapter")
    assert "see a value move" in header and "2 s with `--quick`" in header


def test_run_exercises_runs_quick_and_each_variant(mini_project: Path, monkeypatch) -> None:
    ch = Chapter("00_mini_chapter", "mini", ParameterSpec([Param("x", "float", 0.5, "v", low=0, high=1),
                                                          Param("fail", "bool", False, "f"),
                                                          Param("label", "str", "a", "l")]),
                 exercises=(Exercise("high", {"x": 0.9}, {"k": "v"}, question="q?"),
                            Exercise("broken", {"fail": True}, {"k": "v"}, question="q?")))
    monkeypatch.setattr(chapters, "get", lambda name: ch)
    monkeypatch.setattr(chapters, "has_chapter", lambda name: True)
    from anonbook.runner import RunError

    with pytest.raises(RunError, match="solution run of exercise 'broken' failed"):
        course.run_exercises("00_mini_chapter", progress=False)
    base = course.exercise_dir("00_mini_chapter")
    assert (base / "quick" / "00_mini_chapter.ipynb").exists()
    assert (base / "high" / "00_mini_chapter.ipynb").exists()


def test_a_published_run_with_other_parameters_is_not_called_the_default(mini_project: Path,
                                                                       mini_course: Chapter) -> None:
    book = mini_project / "book"
    (book / "00_mini_chapter.params.json").write_text(json.dumps({"seconds": 7.0, "parameters": {"n": 10}}))
    assert course.run_times("00_mini_chapter") == (None, 7.0)  # the quick preset, published
    (book / "00_mini_chapter.params.json").write_text(json.dumps({"seconds": 9.0, "parameters": {}}))
    assert course.run_times("00_mini_chapter") == (9.0, None)

"""Declared parameters, the one validation module, the chapter registry and the runner's use of them."""

from __future__ import annotations

import numpy as np
import pytest

from anonbook import chapters, runner
from anonlab.validation import Param, ParameterError, ParameterSpec, check_random_state

SPEC = ParameterSpec(
    [
        Param("k", "int", 4, "smallest class size", low=1, high=1000),
        Param("eps", "float_list", [0.1, 1.0], "privacy budgets", low=0, low_inclusive=False, max_len=3),
        Param("table", "choice", "slides", "which table", choices=("slides", "adult")),
        Param("attrs", "str_list", ["age"], "known attributes", choices=("age", "sex")),
        Param("path", "path", None, "your copy of the file", nullable=True),
    ],
    checks=[lambda v: None if v["k"] < 100 or v["table"] == "adult" else
            (_ for _ in ()).throw(ParameterError("parameter 'k' above 99 needs table 'adult'"))],
)


def test_defaults_validate_and_values_are_returned_unchanged() -> None:
    assert SPEC.validate({}) == SPEC.defaults()
    assert SPEC.validate({"k": 5})["k"] == 5


@pytest.mark.parametrize("values, match", [
    ({"kk": 1}, "unknown parameter"),
    ({"k": 0}, "'k' must be >= 1"),
    ({"k": 5000}, "'k' must be <= 1000"),
    ({"k": 2.5}, "'k' must be an integer"),
    ({"eps": [0.0]}, r"'eps\[0\]' must be > 0"),
    ({"eps": [1, 2, 3, 4]}, "at most 3"),
    ({"table": "x"}, "'table' must be one of"),
    ({"attrs": ["zip"]}, "unknown value"),
    ({"path": "/no/such/file"}, "'path': no file or folder"),
    ({"k": 200}, "needs table 'adult'"),
])
def test_every_bad_value_names_its_parameter(values: dict, match: str) -> None:
    with pytest.raises(ParameterError, match=match):
        SPEC.validate(values)


def test_validate_namespace_and_describe() -> None:
    ns = {"k": 3, "eps": [1.0], "table": "adult", "attrs": ["sex"], "path": None, "In": []}
    assert SPEC.validate_namespace(ns)["k"] == 3
    with pytest.raises(ParameterError, match="does not define"):
        SPEC.validate_namespace({"k": 3})
    text = SPEC.describe()
    assert "smallest class size" in text and ">= 1" in text


def test_check_random_state() -> None:
    assert check_random_state(3).random() == np.random.default_rng(3).random()
    g = np.random.default_rng(0)
    assert check_random_state(g) is g
    for bad in (True, -1, 1.5, "0"):
        with pytest.raises(ParameterError):
            check_random_state(bad)


def test_every_declared_chapter_has_a_valid_quick_preset() -> None:
    from pathlib import Path

    names = [p.stem for p in (Path(__file__).parents[1] / "notebooks").glob("*.ipynb")]
    for name in names:
        if chapters.has_chapter(name):
            ch = chapters.get(name)
            assert ch.name == name
            ch.quick_parameters()


def test_runner_refuses_a_bad_value_before_running(mini_project) -> None:
    with pytest.raises(runner.RunError, match="parameter 'x' must be a number"):
        runner.run_notebook("00_mini_chapter", {"x": "high"}, progress=False)

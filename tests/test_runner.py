"""The papermill runner: parameter checks, atomic publication, failures, caching, CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from anonlab import claims
from anonbook import runner
from anonbook.runner import RunError, parse_cli_value, run_notebook

from .conftest import read_json

ROOT = Path(__file__).resolve().parents[1]

NB = "00_mini_chapter"


def test_parameters_are_read_from_the_tagged_cell(mini_project: Path) -> None:
    declared = runner.notebook_parameters(runner.resolve_notebook(NB))
    assert declared == {"x": 0.5, "fail": False, "label": "a"}


def test_unknown_parameter_is_refused_before_execution(mini_project: Path) -> None:
    with pytest.raises(RunError, match=r"unknown parameter\(s\) y; this chapter takes: x, fail, label, use_cache"):
        run_notebook(NB, {"y": 1}, progress=False)
    assert not (mini_project / "book" / f"{NB}.ipynb").exists()


@pytest.mark.parametrize(
    "name, value",
    [("x", "high"), ("fail", 1), ("label", 3), ("x", True), ("x", [0.1]), ("x", 1.5)],
)
def test_ill_typed_parameter_is_refused(mini_project: Path, name: str, value: object) -> None:
    with pytest.raises(RunError, match=f"parameter '{name}' must be"):
        run_notebook(NB, {name: value}, progress=False)


def test_int_is_accepted_for_a_float_parameter(mini_project: Path) -> None:
    assert runner.validate_parameters(runner.resolve_notebook(NB), {"x": 1}) == {"x": 1}


def test_a_notebook_without_a_declaration_is_refused(mini_project: Path) -> None:
    src = mini_project / "notebooks" / "00_mini_chapter.ipynb"
    src.rename(src.with_name("09_undeclared.ipynb"))
    with pytest.raises(RunError, match="no chapter declaration anonbook.chapters.ch09_undeclared"):
        run_notebook("09_undeclared", {}, progress=False)


def test_unknown_notebook_lists_the_available_ones(mini_project: Path) -> None:
    with pytest.raises(RunError, match="available: 00_mini_chapter"):
        runner.resolve_notebook("02_nope")


@pytest.mark.parametrize(
    "text, value",
    [("5", 5), ("0.1", 0.1), ("true", True), ("[0.1, 1]", [0.1, 1]), ("adult", "adult"), ("None", None)],
)
def test_cli_values_are_parsed_as_yaml(text: str, value: object) -> None:
    assert parse_cli_value(text) == value


def test_a_run_publishes_notebook_results_and_parameters(mini_project: Path) -> None:
    res = run_notebook(NB, {"x": 0.55}, progress=False)
    book = mini_project / "book"
    assert res.notebook == book / f"{NB}.ipynb" and res.notebook.exists()
    results = read_json(book / f"{NB}.results.json")["results"]
    assert results["slides.mini.approx"]["measured"] == 0.55
    assert claims.collect_results(book)["slides.mini.approx"]["verdict"] == "reproduced"
    meta = read_json(book / f"{NB}.params.json")
    assert meta["parameters"] == {"x": 0.55}
    assert not list(book.glob(".run-*")), "temporary run folders must be cleaned up"


def test_an_unchanged_run_is_served_from_the_cache(mini_project: Path) -> None:
    first = run_notebook(NB, {"x": 0.5}, progress=False)
    second = run_notebook(NB, {"x": 0.5}, progress=False)
    third = run_notebook(NB, {"x": 0.9}, progress=False)
    assert (first.cached, second.cached, third.cached) == (False, True, False)
    assert claims.collect_results(mini_project / "book")["slides.mini.approx"]["verdict"] == "not reproduced"


def test_a_failed_run_keeps_the_published_notebook(mini_project: Path) -> None:
    run_notebook(NB, {"x": 0.5}, progress=False)
    published = mini_project / "book" / f"{NB}.ipynb"
    before = published.read_bytes()
    with pytest.raises(RunError) as err:
        run_notebook(NB, {"fail": True}, progress=False)
    msg = str(err.value)
    assert "(if fail: ...) failed with RuntimeError: asked to fail" in msg
    assert "parameters of this run: fail=True" in msg
    assert "kept at" in msg
    assert published.read_bytes() == before
    assert (mini_project / "_build" / "failed" / f"{NB}.ipynb").exists()


def test_a_parameter_error_names_the_parameter(mini_project: Path) -> None:
    with pytest.raises(RunError) as err:
        run_notebook(NB, {"x": 0.97}, progress=False)  # the declaration allows it, the notebook's own check not
    msg = str(err.value)
    assert "ParameterError" in msg and "parameter 'x' must be <= 0.95" in msg
    assert "parameter at fault: x" in msg


def test_cli_rejects_bad_parameters_with_exit_code_2(mini_project: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "anonlab", "run", NB, "-p", "epsilon", "1"],
        capture_output=True, text=True,
    )
    assert proc.returncode == 2
    assert "unknown parameter(s) epsilon" in proc.stderr


def test_toc_order_keeps_only_chapters_with_notebooks(mini_project: Path) -> None:
    assert runner.toc_notebooks() == [NB]


def test_the_cache_key_follows_the_book_machines_source_as_well_as_the_sciences(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A chapter module (lib/anonbook) writes the page's sentences: editing it must make the run stale."""
    for rel in ("notebooks/x.ipynb", "data/claims.yaml", "lib/anonlab/science.py",
                "lib/anonbook/chapters/chx.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("# v1\n")
    monkeypatch.setenv("ANONLAB_ROOT", str(tmp_path))
    nb = tmp_path / "notebooks" / "x.ipynb"
    keys = [runner.cache_key(nb, {"a": 1})]
    for rel in ("lib/anonbook/chapters/chx.py", "lib/anonlab/science.py"):
        (tmp_path / rel).write_text("# v2, a longer line\n")
        keys.append(runner.cache_key(nb, {"a": 1}))
    assert len(set(keys)) == 3
    assert runner.cache_key(nb, {"a": 1}) == keys[-1]


def test_a_chapter_that_reads_unpublished_chapters_fails_before_any_cell_naming_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chapter 9 on a fresh clone: one clear error naming what to run first, not a KeyError in cell 10."""
    from anonbook import chapters

    for rel in ("notebooks", "book", "data"):
        (tmp_path / rel).mkdir()
    name = "09_one_yardstick"
    (tmp_path / "notebooks" / f"{name}.ipynb").write_text((ROOT / "notebooks" / f"{name}.ipynb").read_text())
    (tmp_path / "data" / "claims.yaml").write_text((ROOT / "data" / "claims.yaml").read_text())
    monkeypatch.setenv("ANONLAB_ROOT", str(tmp_path))
    after = chapters.get(name).after
    for dep in after[:-1]:  # all but one published
        (tmp_path / "book" / f"{dep}.params.json").write_text("{}")
    with pytest.raises(RunError, match=f"reads the published runs of {after[-1]}, which have none") as err:
        run_notebook(name, {}, progress=False)
    assert "python -m anonlab book" in str(err.value) and not (tmp_path / "book" / f"{name}.ipynb").exists()

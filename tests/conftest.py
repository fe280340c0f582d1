"""Shared fixtures: a miniature project for runner and claims tests; the book executed with small parameters."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

MINI_LEDGER = """
- id: slides.mini.approx
  paper: cmu18734slides2019
  source: 001_72ade336009ef92b.txt
  where: "test"
  statement: "A test claim compared approximately."
  reported: 0.5
  unit: fraction
  compare: approx
  tolerance: 0.1
  chapter: 00_mini_chapter
  data: none
- id: slides.mini.unavailable
  paper: cmu18734slides2019
  source: 001_72ade336009ef92b.txt
  where: "test"
  statement: "A test claim whose data cannot be had."
  reported: 3
  unit: count
  compare: at_least
  tolerance: 0
  chapter: 00_mini_chapter
  data: unavailable
"""


MINI_CHAPTER = """
from anonbook.chapters import Chapter
from anonlab.validation import Param, ParameterSpec

CHAPTER = Chapter(
    name="00_mini_chapter",
    title="A mini chapter",
    parameters=ParameterSpec([
        Param("x", "float", 0.5, "the value to record", low=0, high=1),
        Param("fail", "bool", False, "raise in the third cell"),
        Param("label", "str", "a", "a label"),
    ]),
)
"""


def add_chapter_module(folder: Path, name: str, source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``anonbook.chapters.ch<name>`` importable from ``folder``, here and in the kernels the runner starts."""
    import importlib
    import sys

    import anonbook.chapters

    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"ch{name}.py").write_text(source)
    monkeypatch.setenv("ANONLAB_CHAPTERS_PATH", str(folder))
    monkeypatch.setattr(anonbook.chapters, "__path__", [*anonbook.chapters.__path__, str(folder)])
    monkeypatch.delitem(sys.modules, f"anonbook.chapters.ch{name}", raising=False)
    importlib.invalidate_caches()


def make_notebook(path: Path, params_src: str, body: list[str]) -> Path:
    """Write a small notebook with a `parameters` cell followed by code cells."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells.append(nbformat.v4.new_markdown_cell("# A mini chapter"))
    cell = nbformat.v4.new_code_cell(params_src)
    cell.metadata["tags"] = ["parameters"]
    nb.cells.append(cell)
    nb.cells.extend(nbformat.v4.new_code_cell(src) for src in body)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


@pytest.fixture
def mini_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throw-away project root (ANONLAB_ROOT) with a two-claim ledger and one declared chapter."""
    root = tmp_path / "project"
    (root / "data").mkdir(parents=True)
    (root / "book").mkdir()
    (root / "data" / "claims.yaml").write_text(MINI_LEDGER)
    make_notebook(
        root / "notebooks" / "00_mini_chapter.ipynb",
        "x = 0.5  # the value to record\nfail = False  # raise in the third cell\nlabel = 'a'\n",
        [
            "from anonlab import validation, claims\nvalidation.check_number('x', x, low=0, high=0.95)  # stricter than the declaration\n",
            "rec = claims.Recorder('00_mini_chapter')\nrec.record('slides.mini.approx', x)\n",
            "if fail:\n    raise RuntimeError('asked to fail')\n",
        ],
    )
    (root / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n  - file: 00_mini_chapter\n  - file: missing_page\n"
    )
    add_chapter_module(root / "chapters", "00_mini_chapter", MINI_CHAPTER, monkeypatch)
    monkeypatch.setenv("ANONLAB_ROOT", str(root))
    monkeypatch.delenv("ANONLAB_OUTPUT_DIR", raising=False)
    return root


def read_json(path: Path) -> dict:
    return json.loads(path.read_text())


@pytest.fixture(scope="session")
def executed_book(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A copy of the project's book sources with every notebook executed (small parameters).

    Here, not in ``test_notebooks.py``, so that the session runs the notebooks once for every module that
    reads their records (``test_notebooks.py``, ``test_assignments.py``).
    """
    from anonbook import chapters, runner
    from tests.test_notebooks import ROOT, SMALL, _selected_chapters, _with_what_they_read

    root = tmp_path_factory.mktemp("book-project")
    for name in ("_config.yml", "_toc.yml", "requirements.lock"):  # the lock: the autograder zips' requirements
        shutil.copy(ROOT / name, root / name)
    for folder in ("book", "notebooks", "data"):
        shutil.copytree(ROOT / folder, root / folder,
                        ignore=shutil.ignore_patterns("*.ipynb", "*.json", "_generated", ".run-*", "runs")
                        if folder == "book" else None)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ANONLAB_ROOT", str(root))
        mp.delenv("ANONLAB_OUTPUT_DIR", raising=False)
        mp.setenv("ANONLAB_NO_CACHE", "1")  # cold runs: what the pins and the memory estimates are about
        only = _with_what_they_read(_selected_chapters())  # chapter 9 needs what 1-8 record
        for name in chapters.run_order(runner.toc_notebooks()):
            if not only or name in only:
                runner.run_notebook(name, SMALL.get(name, {}), progress=False, force=True)
    yield root

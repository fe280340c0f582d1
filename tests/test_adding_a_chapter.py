"""The guide to adding a chapter (book/adding_a_chapter.md) runs as written.

The test reads the guide's code blocks by their captions (the ledger entry,
the chapter module, the notebook's cells), builds a throw-away project from
them, runs the chapter through the runner at its default and quick settings,
and holds it to the house style like every chapter of the book.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from anonlab import claims
from anonbook import runner
from anonbook.chapters import get, kit

from .conftest import add_chapter_module
from .test_house_style import _own_job_problems

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "book" / "adding_a_chapter.md"
NAME = "00_hello_k"


def guide_blocks() -> dict[str, str]:
    """Caption -> source of every captioned code block of the guide."""
    text = GUIDE.read_text(encoding="utf-8")
    blocks = re.findall(r"```\{code-block\} \w+\n:caption: ([^\n]+)\n(.*?)\n```", text, flags=re.S)
    return {caption.strip(): source for caption, source in blocks}


def guide_notebook(blocks: dict[str, str]) -> nbformat.NotebookNode:
    """The notebook the guide shows, cell by cell (caption ``notebooks/<name>.ipynb, cell N (tags: ...)``)."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells.append(nbformat.v4.new_markdown_cell("# Hello, k"))
    cells = sorted((int(m.group(1)), m.group(2), src) for cap, src in blocks.items()
                   if (m := re.match(rf"notebooks/{NAME}\.ipynb, cell (\d+)(?: \(tags: ([\w, -]+)\))?$", cap)))
    for _, tags, src in cells:
        cell = nbformat.v4.new_code_cell(src)
        if tags:
            cell.metadata["tags"] = [t.strip() for t in tags.split(",")]
        nb.cells.append(cell)
    return nb


@pytest.fixture
def guide_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    blocks = guide_blocks()
    root = tmp_path / "project"
    (root / "data").mkdir(parents=True)
    (root / "book").mkdir()
    (root / "data" / "claims.yaml").write_text(blocks["data/claims.yaml"])
    shutil.copy(ROOT / "data" / "manifest.yaml", root / "data" / "manifest.yaml")
    add_chapter_module(root / "chapters", NAME, blocks[f"lib/anonbook/chapters/ch{NAME}.py"], monkeypatch)
    (root / "notebooks").mkdir()
    nbformat.write(guide_notebook(blocks), root / "notebooks" / f"{NAME}.ipynb")
    monkeypatch.setenv("ANONLAB_ROOT", str(root))
    monkeypatch.delenv("ANONLAB_OUTPUT_DIR", raising=False)
    return root


def test_the_guide_shows_every_part_of_a_chapter() -> None:
    blocks = guide_blocks()
    assert {"data/claims.yaml", f"lib/anonbook/chapters/ch{NAME}.py"} <= set(blocks)
    assert len(guide_notebook(blocks).cells) >= 4


def test_the_guide_example_follows_the_house_style(guide_project: Path) -> None:
    blocks = guide_blocks()
    module = blocks[f"lib/anonbook/chapters/ch{NAME}.py"]
    assert _own_job_problems(ast.parse(module), "guide module") == []
    nb = guide_notebook(blocks)
    params = [c.source for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert params == [kit.parameters_cell(get(NAME))], "the guide's parameters cell is not the generated one"
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and "parameters" not in cell.metadata.get("tags", []):
            assert _own_job_problems(ast.parse(cell.source), f"guide cell {i}") == []


@pytest.mark.parametrize("parameters, k", [({}, 4), ("quick", 4)])
def test_the_guide_example_runs_and_records_its_claim(guide_project: Path, parameters, k: int) -> None:
    if parameters == "quick":
        parameters = runner.quick_parameters(NAME)
    runner.run_notebook(NAME, parameters, progress=False)
    recorded = claims.collect_results(guide_project / "book")["example.fig2.k"]
    assert recorded["measured"] == k and recorded["verdict"] == "reproduced"


def test_the_guide_example_refuses_a_bad_parameter(guide_project: Path) -> None:
    with pytest.raises(runner.RunError, match="parameter 'quasi_identifiers'"):
        runner.run_notebook(NAME, {"quasi_identifiers": ["zip_code", "salary"]}, progress=False)

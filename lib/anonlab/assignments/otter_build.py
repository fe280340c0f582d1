"""Each assignment as an otter-grader "master" notebook, ``otter assign`` on it, and grading (no Docker).

:func:`master_notebook` writes otter's assign format (``# ASSIGNMENT CONFIG``, ``# BEGIN QUESTION``,
``# BEGIN SOLUTION``, ``# BEGIN TESTS`` with the hidden test of :func:`~.model.hidden_test`);
:func:`assign` runs ``otter assign`` on it (in this process, cached by the master's content and otter's
version) and keeps the student notebook (no solution, no hidden test), the instructor notebook (with the
solution) and the autograder zip. :func:`grade` grades a notebook with ``otter.api.grade_submission`` (otter's
non-containerised grading: a fresh kernel per submission, no Docker). :func:`build` does every assignment and
writes the book's pages (:mod:`.pages`). otter is imported only inside these functions.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import nbformat

from .. import paths
from .catalog import ASSIGNMENTS
from .model import Assignment, Built, ExpectedValue, expected_value, hidden_test, public_test

__all__ = ["assign", "build", "fill_in", "grade", "grade_in_process", "master_notebook", "otter_version"]

#: otter's assign configuration: no Docker image, no PDF, the check cell and the grader's init cell.
ASSIGN_CONFIG = {"name": None, "requirements": None, "environment": None, "export_cell": False, "init_cell": True,
                 "check_all_cell": False, "run_tests": False, "generate": True, "files": [],
                 "solutions_pdf": False, "template_pdf": False}
#: What otter writes in place of the solution in the student's notebook.
PLACEHOLDER = "..."
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def otter_version() -> str:
    """The installed otter-grader's version (raises ImportError when it is missing: ``pip install .[course]``)."""
    try:
        import otter
    except ImportError as exc:
        raise ImportError("the assignments need otter-grader (the course extra): "
                          "pip install -r requirements.lock, or make env") from exc

    return str(otter.__version__)


def _header(a: Assignment, expected: ExpectedValue) -> str:
    """The notebook's first cell: title, claim, what is checked (never the expected value)."""
    how = ("compared exactly" if expected.tolerance is None
           else f"accepted within ±{expected.tolerance:g} (the claim's tolerance in the ledger) of the book's value")
    return (f"# {a.title}\n\nChapter `{a.chapter}`, claim `{a.claim_id}`.\n\n{a.task}\n\n"
            f"Your `{a.answer}` is {how}. Run the cells in order; `grader.check` runs the public test only.")


def master_notebook(a: Assignment, expected: ExpectedValue) -> nbformat.NotebookNode:
    """The otter assign master notebook of ``a`` with its hidden test on ``expected``."""
    v4 = nbformat.v4
    config = {**ASSIGN_CONFIG, "name": a.slug}
    cells = [
        v4.new_raw_cell("# ASSIGNMENT CONFIG\n" + "\n".join(f"{k}: {json.dumps(v)}" for k, v in config.items())),
        v4.new_markdown_cell(_header(a, expected)),
        v4.new_raw_cell(f"# BEGIN QUESTION\nname: {a.key}\npoints: 1"),
        v4.new_markdown_cell(f"Set `{a.answer}`."),
        v4.new_code_cell(a.starter),
        v4.new_raw_cell("# BEGIN SOLUTION"),
        v4.new_code_cell(f"# BEGIN SOLUTION\n{a.solution}\n# END SOLUTION\n{a.answer}"),
        v4.new_raw_cell("# END SOLUTION"),
        v4.new_raw_cell("# BEGIN TESTS"),
        v4.new_code_cell(public_test(a, expected)),
        v4.new_code_cell(hidden_test(a, expected)),
        v4.new_raw_cell("# END TESTS"),
        v4.new_raw_cell("# END QUESTION"),
    ]
    nb = v4.new_notebook(cells=cells)
    nb.metadata.update({"kernelspec": KERNELSPEC, "language_info": {"name": "python"}})
    return nb


def _key(master: nbformat.NotebookNode, version: str) -> str:
    """Cache key of one assign step: the master's cells and otter's version."""
    text = json.dumps([c["source"] for c in master.cells]) + version
    return hashlib.sha256(text.encode()).hexdigest()


def assign(a: Assignment, expected: ExpectedValue, out_dir: Path) -> Built:
    """``otter assign`` on ``a``'s master notebook into ``out_dir/<slug>/`` (skipped when its inputs did not change).

    Keeps ``student/<slug>.ipynb``, ``instructor/<slug>.ipynb`` (solution and tests) and
    ``autograder/<slug>-autograder.zip`` (every test, the hidden one included).
    """
    start = time.process_time()
    master = master_notebook(a, expected)
    version = otter_version()
    folder = out_dir / a.slug
    built = Built(a, expected, folder / "student" / f"{a.slug}.ipynb", folder / "instructor" / f"{a.slug}.ipynb",
                  folder / "autograder" / f"{a.slug}-autograder.zip", 0.0, True)
    key = _key(master, version)
    stamp = folder / "inputs.sha256"
    if stamp.exists() and stamp.read_text() == key and all(p.exists() for p in (built.student, built.instructor,
                                                                                   built.autograder)):
        return built
    from otter.assign import main as otter_assign

    if folder.exists():
        shutil.rmtree(folder)
    (folder / "master").mkdir(parents=True)
    master_path = folder / "master" / f"{a.slug}.ipynb"
    nbformat.write(master, master_path)
    otter_assign(str(master_path), str(folder / "dist"), no_run_tests=True, no_pdfs=True)
    dist = folder / "dist"
    for sub in ("student", "instructor", "autograder"):
        (folder / sub).mkdir()
    shutil.copy(dist / "student" / f"{a.slug}.ipynb", built.student)
    shutil.copy(dist / "autograder" / f"{a.slug}.ipynb", built.instructor)
    shutil.copy(next((dist / "autograder").glob("*-autograder_*.zip")), built.autograder)
    shutil.rmtree(dist)
    stamp.write_text(key)
    return Built(a, expected, built.student, built.instructor, built.autograder,
                 time.process_time() - start, False)


def fill_in(student: Path, code: str, dest: Path) -> Path:
    """A submission: the student notebook with the placeholder of its answer cell replaced by ``code``."""
    nb = nbformat.read(student, as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code" and PLACEHOLDER in c.source.splitlines()]
    if len(cells) != 1:
        raise ValueError(f"{student}: expected one answer cell with {PLACEHOLDER!r}, found {len(cells)}")
    lines = cells[0].source.splitlines()
    cells[0].source = "\n".join(code if line == PLACEHOLDER else line for line in lines)
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dest)
    return dest


def grade(submission: Path, autograder: Path) -> tuple[float, float]:
    """(score, possible) of a submission notebook, graded by otter without Docker (a fresh kernel)."""
    from otter.api import grade_submission

    r = grade_submission(str(submission), str(autograder), quiet=True)
    return float(r.total), float(r.possible)


def grade_in_process(submission: Path, autograder: Path) -> tuple[float, float]:
    """(score, possible) by otter's own test runner in this process: faster than :func:`grade`, no kernel.

    Runs the submission's code cells (not otter's ``grader`` cells) in one namespace, then every test file
    of the autograder zip (hidden tests included) with ``otter.test_files.OKTestFile``.
    """
    import tempfile
    import zipfile

    from otter.test_files.ok_test import OKTestFile

    env: dict[str, Any] = {"__name__": "__main__"}
    for cell in nbformat.read(submission, as_version=4).cells:
        if cell.cell_type == "code" and "grader" not in cell.source:
            exec(compile(cell.source, str(submission), "exec"), env)  # noqa: S102 - grading a notebook
    score = possible = 0.0
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(autograder) as z:
        names = [n for n in z.namelist() if n.startswith("tests/") and n.endswith(".py")]
        z.extractall(tmp, names)
        for name in names:
            test = OKTestFile.from_file(str(Path(tmp) / name))
            test.run(env)
            score, possible = score + float(test.score), possible + float(test.possible)
    return score, possible


def _default_run_dir(chapter: str, book_dir: Path) -> Path:
    """Where the chapter's default run is (graded assignments come from default runs only, :mod:`anonlab.runs`)."""
    from ..runs import default_run_dir

    found = default_run_dir(chapter, book_dir)
    if found is None:
        raise FileNotFoundError(f"{chapter}: no default run to take the graded assignments' values from (the "
                                f"published run is not the default); run it: python -m anonlab run {chapter}")
    if found != book_dir:
        print(f"[anonlab] assignments of {chapter}: values from its default run in {found} (the published run "
              "is not the default)", file=sys.stderr)
    return found


def build(out_dir: Path | None = None, book_dir: Path | None = None,
          results_dir: Path | None = None) -> dict[str, Any]:
    """Assign every assignment, copy the student notebooks into the book and write its generated pages.

    ``out_dir``: default ``_build/assignments``; ``book_dir``: the book, which gets the pages
    (``_generated/``) and the student notebooks (``_static/assignments/``); ``results_dir``: where the
    chapters' results files are (the expected values' source; default the book). Returns a summary: how many were built or cached, otter's version, CPU seconds.
    """
    from .pages import write_pages

    out_dir = out_dir or paths.project_root() / "_build" / "assignments"
    book_dir = book_dir or paths.book_dir()
    start = time.process_time()
    built = [assign(a, expected_value(a, results_dir or _default_run_dir(a.results_chapter, book_dir)), out_dir)
             for a in ASSIGNMENTS]
    static = book_dir / "_static" / "assignments"
    if static.exists():
        shutil.rmtree(static)
    static.mkdir(parents=True)
    for b in built:
        shutil.copy(b.student, static / b.student.name)
    write_pages(built, book_dir / "_generated")
    return {"assignments": len(built), "assigned": sum(not b.cached for b in built),
            "cached": sum(b.cached for b in built), "otter": otter_version(),
            "cpu_seconds": round(time.process_time() - start, 2), "out_dir": str(out_dir)}

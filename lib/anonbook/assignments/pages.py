"""The book's assignments page: ``_generated/assignments.md`` (students) and ``assignments.instructor.md``.

The student file has, per chapter, each assignment's title (with the anchor ``<chapter>-<key>`` the
syllabus links to), its claim (linked to the verdict table's ``claim-<id>`` row), the task and the student
notebook to download. Everything only an instructor may see (the book's value, the tolerance, the reference
solution, the wrong solution the autograder must fail) is in the instructor file, which the student edition
leaves out.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path

from anonlab import paths
from anonlab.claims import claim
from anonbook.assignments.model import Built

__all__ = ["chapter_heading", "instructor_page", "student_page", "write_pages", "STUDENT_FILE", "INSTRUCTOR_FILE"]

STUDENT_FILE = "assignments.md"
INSTRUCTOR_FILE = "assignments.instructor.md"
#: Where the student notebooks are published in the book (relative to the book's source folder).
STATIC = "_static/assignments"


def _chapters(built: Sequence[Built]) -> dict[str, list[Built]]:
    """The built assignments grouped by chapter, in declaration order."""
    out: dict[str, list[Built]] = {}
    for b in built:
        out.setdefault(b.assignment.chapter, []).append(b)
    return out


def chapter_heading(chapter: str) -> str:
    """``Chapter NN: <title>`` linked to the chapter, the title being its notebook's first heading."""
    title = chapter
    nb_path = paths.notebooks_dir() / f"{chapter}.ipynb"
    if nb_path.exists():
        cells = json.loads(nb_path.read_text(encoding="utf-8"))["cells"]
        lines = [ln for c in cells if c["cell_type"] == "markdown" for ln in "".join(c["source"]).splitlines()]
        title = next((ln[2:].strip() for ln in lines if ln.startswith("# ")), chapter)
    return f"## Chapter {chapter.split('_')[0]}: [{title}]({chapter}.ipynb)"


def _claim_link(claim_id: str) -> str:
    """The claim's id linked to its row of the verdict table (a raw HTML id there, so an HTML link here)."""
    cid = html.escape(claim_id)
    return f'<a href="verdicts.html#claim-{cid}"><code>{cid}</code></a>'


def student_page(built: Sequence[Built]) -> str:
    """MyST of the students' part: title + anchor, claim, task, download of the notebook; no value, no solution."""
    parts = []
    for chapter, items in _chapters(built).items():
        parts.append(chapter_heading(chapter) + "\n")
        for b in items:
            a = b.assignment
            c = claim(a.claim_id)
            parts.append(
                f'<div id="{html.escape(a.anchor)}"></div>\n\n### {a.title}\n\n'
                f"**Claim** {_claim_link(a.claim_id)}: {c.statement}\n\n{a.task}\n\n"
                f"{{download}}`Student notebook ({b.student.name}) </{STATIC}/{b.student.name}>`\n")
    return "\n".join(parts)


def instructor_page(built: Sequence[Built]) -> str:
    """MyST of the instructor's notes: the book's value and tolerance, the reference and the wrong solution."""
    parts = ["## Grading notes (instructor edition)\n",
             "Each hidden test accepts the book's computed value for the claim ± the claim's tolerance in the "
             "ledger (equality for exact counts and yes/no claims). `make test` grades the reference solution "
             "(full score) and the wrong one (must fail) with otter-grader.\n"]
    for b in built:
        a, e = b.assignment, b.expected
        tol = "equal" if e.tolerance is None else f"± {e.tolerance:g}"
        parts.append(
            f"### {a.anchor}\n\nExpected `{a.answer}` = `{e.value!r}` ({tol}; from `{e.source}`).\n\n"
            f"Reference solution:\n\n```python\n{a.solution}\n```\n\n"
            f"The wrong solution the autograder must fail ({a.wrong_does}):\n\n```python\n{a.wrong}\n```\n")
    return "\n".join(parts)


def write_pages(built: Sequence[Built], generated: Path) -> tuple[Path, Path]:
    """Write both generated files into ``generated`` (the book's ``_generated`` folder)."""
    generated.mkdir(parents=True, exist_ok=True)
    student, instructor = generated / STUDENT_FILE, generated / INSTRUCTOR_FILE
    student.write_text(student_page(built), encoding="utf-8")
    instructor.write_text(instructor_page(built), encoding="utf-8")
    return student, instructor

"""The book's assignments page: ``_generated/assignments.md`` (students) and ``assignments.instructor.md``.

The student file has, per chapter, each assignment's title (with the anchor ``<chapter>-<key>`` the
syllabus links to), the task and the student notebook to download: no claim id, no value. Everything only an
instructor may see (the claim whose method it applies, the hidden variants and the values the library computed
for them, the reference solution, the wrong solution that must score 0, the grading commands) is in the
instructor file, which the student edition leaves out.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any
from pathlib import Path

from anonlab import paths
from anonbook.assignments.model import HIDDEN_POINTS, PUBLIC_POINTS, Built
from anonbook.assignments.otter_build import grading_commands

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


def student_page(built: Sequence[Built]) -> str:
    """MyST of the students' part: title + anchor, task, download of the notebook; no claim, value or solution."""
    parts = []
    for chapter, items in _chapters(built).items():
        parts.append(chapter_heading(chapter) + "\n")
        for b in items:
            a = b.assignment
            parts.append(
                f'<div id="{html.escape(a.anchor)}"></div>\n\n### {a.title}\n\n{a.task}\n\n'
                f"{{download}}`Student notebook ({b.student.name}) </{STATIC}/{b.student.name}>`\n")
    return "\n".join(parts)


def grading_section(example_zip: str) -> str:
    """MyST of how to grade: the points, then the setup, single-submission and batch commands (tested)."""
    cmd = grading_commands(example_zip)
    return (
        "## Grading (instructor edition)\n\n"
        f"Each notebook's public check is worth {PUBLIC_POINTS} points; the hidden test carries all "
        f"{HIDDEN_POINTS}: it calls the student's function on every hidden variant below and gives the point "
        "only if every answer agrees with the library's value (a typed constant or the wrong solution scores "
        "0; `make test` checks both for every assignment). Each autograder zip "
        "(`_build/assignments/<name>/autograder/`) carries what grading needs on any machine with Python "
        "3.11+ and no access to this checkout: the tests, the library's source (`files/anonlab/`) and "
        "`files/requirements.txt`, the lock's pins of otter-grader and of every package the tests import. "
        f"With the zip of an assignment (here `{example_zip}`) in the current folder:\n\n"
        "Once per machine, a grading environment:\n\n"
        f"```bash\n{cmd['setup']}\n```\n\n"
        "One submission (prints the score; `results/results.json` has each test's output):\n\n"
        f"```bash\n{cmd['single']}\n```\n\n"
        "Every notebook of `submissions/` (one `results/<name>/results.json` each):\n\n"
        f"```bash\n{cmd['batch']}\n```\n\n"
        "The kernel's notice that it talks over TCP without encryption (a local kernel) is silenced by the "
        "environment's `ipython/` configuration. The assignments that read Adult fetch it on first use (the "
        "library's data fetch, checked against the zip's `files/data/manifest.yaml`) into the grader's cache "
        "folder.\n")


def _call_args(case: Any) -> str:
    """A hidden variant's arguments as the call's parenthesised list: ``(3, 1.0)``, ``(3)``."""
    args = case if isinstance(case, tuple) else (case,)
    return "(" + ", ".join(repr(x) for x in args) + ")"


def _expected_text(value: Any) -> str:
    """An expected value as the key shows it: numbers to six significant digits (the hidden test's tolerance is
    stated above the table), lists and tuples item by item."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return f"`{value!r}`"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10000 else str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_expected_text(v).strip("`") for v in value) + "]"
    return f"`{value!r}`"


def instructor_page(built: Sequence[Built]) -> str:
    """MyST of the instructor's notes: grading commands, then per assignment the claim, variants, solutions."""
    parts = [grading_section(built[0].autograder.name if built else "<name>-autograder.zip")]
    for b in built:
        a, g = b.assignment, b.expected
        how = "equal" if g.tolerance is None else f"relative tolerance {g.tolerance:g}"
        rows = "\n".join(f"| `{a.function}{_call_args(c)}` | {_expected_text(v)} |"
                         for c, v in zip(g.cases, g.values))
        parts.append(
            f"### {a.anchor}\n\nApplies the method of claim `{a.claim_id}` (chapter `{a.results_chapter}`). "
            f"Hidden variants of `{a.function}` and the values the library computed for them ({how}; "
            f"{g.seconds:g} s of CPU; numbers shown to six significant digits):\n\n"
            f"| call | expected |\n|---|---|\n{rows}\n\n"
            f"Reference solution:\n\n```python\n{a.solution}\n```\n\n"
            f"The wrong solution that must score 0 ({a.wrong_does}):\n\n```python\n{a.wrong}\n```\n")
    return "\n".join(parts)


def write_pages(built: Sequence[Built], generated: Path) -> tuple[Path, Path]:
    """Write both generated files into ``generated`` (the book's ``_generated`` folder)."""
    generated.mkdir(parents=True, exist_ok=True)
    student, instructor = generated / STUDENT_FILE, generated / INSTRUCTOR_FILE
    student.write_text(student_page(built), encoding="utf-8")
    instructor.write_text(instructor_page(built), encoding="utf-8")
    return student, instructor

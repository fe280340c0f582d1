"""Graded assignments, declared once and turned into otter-grader notebooks and autograder zips.

:mod:`.model` (the declaration, the hidden variants' values computed with the library, the tests),
:mod:`.catalog`
(the assignments), :mod:`.otter_build` (master notebooks, ``otter assign``, grading; imports otter lazily) and
:mod:`.pages` (the book's assignments page). ``import anonlab`` does not import this package.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anonbook.assignments.catalog import ASSIGNMENTS, by_chapter
from anonbook.assignments.model import (Assignment, ExpectedValue, Graded, accepted_tolerance, expected_value, hidden_expectations,
                    hidden_test, public_test)

__all__ = ["ASSIGNMENTS", "Assignment", "ExpectedValue", "Graded", "accepted_tolerance", "build", "by_chapter",
           "expected_value", "hidden_expectations", "hidden_test", "public_test"]


def build(out_dir: Path | None = None, book_dir: Path | None = None,
          results_dir: Path | None = None) -> dict[str, Any]:
    """Generate every assignment's notebooks with otter (:func:`.otter_build.build`) and the book's pages
    (:func:`.pages.write_pages`); return the build's summary."""
    from anonlab import paths
    from anonbook.assignments.otter_build import build as _build
    from anonbook.assignments.pages import write_pages

    summary = _build(out_dir, book_dir, results_dir)
    write_pages(summary.pop("built"), (book_dir or paths.book_dir()) / "_generated")
    return summary

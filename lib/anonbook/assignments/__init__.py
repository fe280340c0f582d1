"""Graded "reproduce this claim" assignments, declared once and turned into otter-grader notebooks.

:mod:`.model` (the declaration, the expected value from the book's run, the hidden test), :mod:`.catalog`
(the assignments), :mod:`.otter_build` (master notebooks, ``otter assign``, grading; imports otter lazily) and
:mod:`.pages` (the book's assignments page). ``import anonlab`` does not import this package.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anonbook.assignments.catalog import ASSIGNMENTS, by_chapter
from anonbook.assignments.model import Assignment, ExpectedValue, accepted_tolerance, expected_value, hidden_test, public_test

__all__ = ["ASSIGNMENTS", "Assignment", "ExpectedValue", "accepted_tolerance", "build", "by_chapter",
           "expected_value", "hidden_test", "public_test"]


def build(out_dir: Path | None = None, book_dir: Path | None = None,
          results_dir: Path | None = None) -> dict[str, Any]:
    """Generate every assignment's notebooks with otter and the book's pages (:func:`.otter_build.build`)."""
    from anonbook.assignments.otter_build import build as _build

    return _build(out_dir, book_dir, results_dir)

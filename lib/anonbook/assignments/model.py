"""One graded assignment ("reproduce this claim"), its expected value and its hidden test.

An :class:`Assignment` is declared once (:mod:`anonbook.assignments.catalog`); everything the student and the
autograder see is generated from it: the expected value is the one the book computed for the claim (the
chapter's ``<chapter>.results.json``, :func:`expected_value`), the accepted interval is the claim's tolerance
in the ledger (:func:`accepted_tolerance`), and the hidden test (:func:`hidden_test`) checks the student's
answer against both. Nothing here imports otter: the book's kernels never need it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anonlab import paths
from anonlab.claims import claim

__all__ = ["Assignment", "Built", "ExpectedValue", "accepted_tolerance", "expected_value", "hidden_test", "public_test",
           "results_path"]


@dataclass(frozen=True)
class Assignment:
    """One "reproduce this claim" exercise of a chapter.

    ``task`` is MyST shown to the student; ``starter`` is the code the student starts from (imports, data);
    ``solution`` the reference code and ``wrong`` a plausible mistake (``wrong_does`` says which), each of
    which must set the variable ``answer``. ``results_from`` names the chapter whose run records the
    claim when it is not the assignment's own (chapter 9 scores chapter 5's examples). ``tolerance`` / ``tolerance_why`` are only for claims whose
    ledger entry has no numeric tolerance (``exact`` and ``holds`` are compared exactly otherwise).
    """

    chapter: str
    key: str
    claim_id: str
    title: str
    task: str
    starter: str
    solution: str
    wrong: str
    wrong_does: str
    answer: str = "answer"
    tolerance: float | None = None
    tolerance_why: str = ""
    results_from: str | None = None

    @property
    def results_chapter(self) -> str:
        """The chapter whose recorded run holds the claim's value (``results_from``, else the own chapter)."""
        return self.results_from or self.chapter

    @property
    def anchor(self) -> str:
        """The id the assignments page gives this assignment: ``<chapter>-<key>``."""
        return f"{self.chapter}-{self.key}"

    @property
    def slug(self) -> str:
        """File-name stem of the assignment's notebooks."""
        return f"{self.chapter}_{self.key}"


@dataclass(frozen=True)
class ExpectedValue:
    """What the hidden test accepts: ``value`` ± ``tolerance`` (``None``: equal), and where it came from."""

    value: Any
    tolerance: float | None
    source: str


@dataclass(frozen=True)
class Built:
    """One assignment's products of ``otter assign`` under ``_build/assignments/<slug>/`` (:mod:`.otter_build`)."""

    assignment: Assignment
    expected: ExpectedValue
    student: Path
    instructor: Path
    autograder: Path
    seconds: float
    cached: bool


def results_path(chapter: str, book_dir: Path | None = None) -> Path:
    """The chapter's recorded run, ``<book>/<chapter>.results.json`` (the default run the book publishes)."""
    return (book_dir or paths.book_dir()) / f"{chapter}.results.json"


def expected_value(a: Assignment, book_dir: Path | None = None) -> ExpectedValue:
    """The value the book computed for ``a``'s claim (never typed) and the accepted tolerance.

    Raises ``FileNotFoundError`` when the chapter has not been run and ``ValueError`` when its run did not
    measure the claim.
    """
    path = results_path(a.results_chapter, book_dir)
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run the chapter first (python -m anonlab run {a.results_chapter})")
    record = json.loads(path.read_text(encoding="utf-8"))["results"].get(a.claim_id)
    if record is None or record.get("measured") is None or record.get("is_nan"):
        raise ValueError(f"{path.name} has no measured value for {a.claim_id}")
    return ExpectedValue(record["measured"], accepted_tolerance(a), f"{path.name}: results['{a.claim_id}']")


def accepted_tolerance(a: Assignment) -> float | None:
    """The claim's tolerance from the ledger; the assignment's own (with its reason) when the ledger has none.

    ``exact`` and ``holds`` claims without a declared tolerance are compared for equality (``None``).
    """
    c = claim(a.claim_id)
    if c.compare in ("exact", "holds") and c.tolerance is None:
        return a.tolerance
    if c.tolerance is None:
        if a.tolerance is None or not a.tolerance_why:
            raise ValueError(f"{a.anchor}: claim {a.claim_id} has no tolerance; declare one with its reason")
        return a.tolerance
    return float(c.tolerance)


def _literal(value: Any) -> str:
    """A Python literal for a JSON value (float written exactly: ``repr``)."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"float({str(value)!r})"
    return repr(value)


def public_test(a: Assignment, expected: ExpectedValue) -> str:
    """The test the student sees: the answer exists and has the right kind (no value is given away)."""
    if isinstance(expected.value, bool):
        return f"assert {a.answer} in (True, False), '{a.answer} must be True or False'"
    return (f"import numbers\nassert isinstance({a.answer}, numbers.Real) and "
            f"type({a.answer}).__name__ not in ('bool', 'bool_'), '{a.answer} must be a number'")


def hidden_test(a: Assignment, expected: ExpectedValue) -> str:
    """The hidden test: |answer − expected| ≤ tolerance, or equality (booleans, exact counts)."""
    v = _literal(expected.value)
    if isinstance(expected.value, bool):
        return f"# HIDDEN\nassert bool({a.answer}) is {v}, 'not the value the book computed'"
    if expected.tolerance is None:
        return f"# HIDDEN\nassert {a.answer} == {v}, 'not the value the book computed'"
    return (f"# HIDDEN\nassert abs(float({a.answer}) - {v}) <= {_literal(float(expected.tolerance))} + 1e-12, "
            "'outside the claim tolerance around the value the book computed'")

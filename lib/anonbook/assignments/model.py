"""One graded assignment (apply a chapter's method to variants the book does not show) and its tests.

An :class:`Assignment` is declared once (:mod:`anonbook.assignments.catalog`). The student writes one function;
the hidden test calls it on several *variants* (another seed, ε, subset, attribute, skew: ``cases``) that no
page of the book shows, and compares each answer with the value the build computed by calling the library
itself on that variant (:func:`hidden_expectations`, the assignment's ``reference``). A typed constant cannot
pass: the build refuses an assignment whose variants do not give at least two different values. The public
check (:func:`public_test`) only says whether the function runs on the starter's example and returns the right
kind of value; it is worth 0 points, the hidden test carries all of them (:data:`PUBLIC_POINTS`,
:data:`HIDDEN_POINTS`).

:func:`expected_value` is the one place that reads a chapter's recorded run (``<chapter>.results.json``):
the value the book publishes for the assignment's claim, which the grading must *not* accept as an answer.
Nothing here imports otter: the book's kernels never need it.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from anonlab import paths
from anonlab.claims import claim

__all__ = ["Assignment", "Built", "ExpectedValue", "Graded", "HIDDEN_POINTS", "PUBLIC_POINTS",
           "accepted_tolerance", "constant_submission", "expected_value", "hidden_expectations", "hidden_test",
           "public_test", "results_path", "value_kind"]

#: Points of the public check (the student sees it) and of the hidden test (all the points).
PUBLIC_POINTS, HIDDEN_POINTS = 0, 1
#: Relative tolerance of a float answer: the reference and a right answer call the same deterministic code.
RELATIVE_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Assignment:
    """One exercise of a chapter: write ``function``, which the hidden test calls on every variant of ``cases``.

    ``task`` is MyST shown to the student (it names no claim id and quotes no graded value); ``starter`` is the
    code the student starts from (imports and the example inputs ``public_args``, a Python expression of the
    function's arguments, evaluated after ``starter``). ``solution`` is the reference definition of
    ``function`` and ``wrong`` a plausible mistake (``wrong_does`` says which); the grading must give the
    reference every point and ``wrong`` none. ``setup`` is the code the hidden test runs before building its
    variants; each of ``cases`` is a Python expression (evaluated after ``setup``) of one variant's arguments,
    a tuple. ``reference`` computes one variant's expected value by calling the library with those arguments
    (the build's hidden run). ``claim_id`` is the ledger claim whose method the assignment applies: instructor
    notes only. ``results_from`` names the chapter whose run records the claim when it is not the own chapter.
    """

    chapter: str
    key: str
    claim_id: str
    title: str
    task: str
    function: str
    starter: str
    public_args: str
    solution: str
    wrong: str
    wrong_does: str
    setup: str
    cases: tuple[str, ...]
    reference: Callable[..., Any] = field(compare=False)
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
    """The book's published value of the assignment's claim (``value``) and where it came from."""

    value: Any
    tolerance: float | None
    source: str


@dataclass(frozen=True)
class Graded:
    """What the hidden test accepts: one ``values[i]`` per variant ``cases[i]``, compared as ``kind``.

    ``kind`` is ``"bool"``, ``"int"`` (equality), ``"float"`` or ``"array"`` (within ``tolerance``, relative);
    ``seconds`` is the CPU time of the hidden runs.
    """

    cases: tuple[str, ...]
    values: tuple[Any, ...]
    kind: str
    tolerance: float | None
    seconds: float


@dataclass(frozen=True)
class Built:
    """One assignment's products of ``otter assign`` under ``_build/assignments/<slug>/`` (:mod:`.otter_build`)."""

    assignment: Assignment
    expected: Graded
    student: Path
    instructor: Path
    autograder: Path
    seconds: float
    cached: bool


def results_path(chapter: str, book_dir: Path | None = None) -> Path:
    """The chapter's recorded run, ``<book>/<chapter>.results.json`` (the default run the book publishes)."""
    return (book_dir or paths.book_dir()) / f"{chapter}.results.json"


def expected_value(a: Assignment, book_dir: Path | None = None) -> ExpectedValue:
    """The value the book publishes for ``a``'s claim: what a student can read, so never a graded answer.

    The only function that reads a chapter's results. Raises ``FileNotFoundError`` when the chapter has not
    been run and ``ValueError`` when its run did not measure the claim.
    """
    path = results_path(a.results_chapter, book_dir)
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run the chapter first (python -m anonlab run {a.results_chapter})")
    record = json.loads(path.read_text(encoding="utf-8"))["results"].get(a.claim_id)
    if record is None or record.get("measured") is None or record.get("is_nan"):
        raise ValueError(f"{path.name} has no measured value for {a.claim_id}")
    return ExpectedValue(record["measured"], accepted_tolerance(a), f"{path.name}: results['{a.claim_id}']")


def accepted_tolerance(a: Assignment) -> float | None:
    """The claim's tolerance in the ledger (``None`` for a claim compared exactly)."""
    c = claim(a.claim_id)
    return None if c.tolerance is None else float(c.tolerance)


def value_kind(value: Any) -> str:
    """``bool``, ``int``, ``float`` or ``array``: how the hidden test compares an answer with ``value``."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, (list, tuple, np.ndarray)):
        return "array"
    raise TypeError(f"a reference returned {type(value).__name__}; expected a number, a bool or an array")


def _plain(value: Any) -> Any:
    """A JSON-able Python value for a reference's result (arrays as lists of floats)."""
    kind = value_kind(value)
    if kind == "bool":
        return bool(value)
    if kind == "int":
        return int(value)
    if kind == "float":
        return float(value)
    return [float(v) for v in np.asarray(value, dtype=float).ravel()]


def case_arguments(a: Assignment, case: str, namespace: dict[str, Any]) -> tuple[Any, ...]:
    """One variant's arguments: ``case`` evaluated in ``namespace`` (where ``a.setup`` ran); always a tuple."""
    args = eval(case, namespace)  # noqa: S307 - the catalog's own expressions
    if not isinstance(args, tuple):
        raise ValueError(f"{a.anchor}: case {case!r} must evaluate to a tuple of arguments")
    return args


def hidden_expectations(a: Assignment) -> Graded:
    """Run ``a.reference`` (the library) on every variant: the values the hidden test expects.

    Raises ``ValueError`` when the variants give fewer than two different values (a constant would pass)
    or values of different kinds.
    """
    start = time.process_time()
    namespace: dict[str, Any] = {"__name__": "anonlab_hidden_run"}
    exec(a.setup, namespace)  # noqa: S102 - the catalog's own code
    values = tuple(_plain(a.reference(*case_arguments(a, c, namespace))) for c in a.cases)
    kinds = {value_kind(v) for v in values}
    if len(kinds) != 1:
        raise ValueError(f"{a.anchor}: the variants give values of different kinds {sorted(kinds)}")
    distinct = {json.dumps(v) for v in values}
    if len(a.cases) < 2 or len(distinct) < 2:
        raise ValueError(f"{a.anchor}: the hidden variants must give at least two different values "
                         f"(got {values}); otherwise a typed constant passes")
    kind = kinds.pop()
    tol = None if kind in ("bool", "int") else RELATIVE_TOLERANCE
    return Graded(a.cases, values, kind, tol, round(time.process_time() - start, 3))


def _literal(value: Any) -> str:
    """A Python literal for a JSON value (float written exactly: ``repr``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return repr(value)


def public_test(a: Assignment) -> str:
    """The check the student sees (0 points): the function runs on the starter's example; no value given away."""
    return (f"import numbers\nimport numpy as _np\n_r = {a.function}({a.public_args.strip().rstrip(',')})\n"
            "assert isinstance(_r, (numbers.Real, _np.ndarray, list, tuple)) and _np.size(_r) > 0, "
            f"'{a.function} must return a number (or an array of numbers)'")


_COMPARE = {
    "bool": "bool(_got) is _want",
    "int": "int(_got) == _want and float(_got) == _want",
    "float": "abs(float(_got) - _want) <= {tol} * max(1.0, abs(_want))",
    "array": "_np.shape(_np.ravel(_got)) == (len(_want),) and "
             "_np.allclose(_np.ravel(_np.asarray(_got, dtype=float)), _want, rtol={tol}, atol={tol})",
}


def hidden_test(a: Assignment, graded: Graded) -> str:
    """The hidden test: ``function`` on every variant equals the library's value (all or nothing)."""
    compare = _COMPARE[graded.kind].format(tol=_literal(graded.tolerance))
    cases = ",\n    ".join(f"({c})" for c in graded.cases)
    values = ", ".join(_literal(v) for v in graded.values)
    return (f"# HIDDEN\nimport numpy as _np\n{a.setup}\n_cases = [\n    {cases},\n]\n_expected = [{values}]\n"
            "for _i, (_args, _want) in enumerate(zip(_cases, _expected)):\n"
            f"    _got = {a.function}(*_args)\n"
            f"    assert {compare}, f'variant {{_i + 1}}: not the value the library computes for it'")


def constant_submission(a: Assignment, graded: Graded) -> str:
    """A submission that types an answer: ``function`` returns the first variant's value whatever its input."""
    return f"def {a.function}(*args, **kwargs):\n    return {_literal(graded.values[0])}"

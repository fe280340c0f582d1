"""The verdict rules: how a recorded measurement is judged against its claim (one place).

Verdicts
--------
``reproduced``
    the measured value satisfies the claim's comparison within tolerance;
``not reproduced``
    it does not (or the measurement is undefined, NaN), under every reading
    of the paper the ledger lists;
``depends on an unstated choice``
    the paper leaves a choice open (the ledger's ``choices``: an attribute
    set, a tie-break, a scale, a reading of a sentence) and the claim holds
    under one reasonable alternative and fails under another; the record
    keeps the measurement under each alternative;
``inconclusive``
    the evidence cannot decide: the measurement misses the tolerance while
    its interval reaches into it (the tolerance already allows for noise;
    such a run cannot be called a failure), or some readings are decided
    and others are not;
``illustrated, not tested``
    the measurement is shown but is not evidence either way: the claim is
    about data the book can only stand in for (the ledger's ``stand_in``
    says with what, and what would decide it), or its test cannot fail on
    plausible inputs (the ledger's ``illustration`` says why: it holds by
    construction, or asks only that some case exists);
``not run``
    no notebook has recorded the claim (yet, or with these parameters);
``data unavailable``
    not run because the data it needs cannot be had here.

The rulebook (:data:`RULEBOOK`, shown on the verdicts page and enforced by
the recorder and ``tests/test_claims.py``) says how the categories are
applied, the same way in every chapter.

A verdict is never stored: :func:`decide` computes it from the ledger and
the recorded measurement whenever it is needed (the chapter's prose, the
verdict pages, the pins), so a ledger edit takes effect without a rerun and
there is one source of truth. :func:`phrase` words it, the same way in every
chapter.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .ledger import Claim, ClaimError

__all__ = ["VERDICTS", "SHORT_VERDICT", "verdict", "decide", "reading_verdict", "reading_verdicts",
           "accepted_interval", "phrase", "join_words", "ILLUSTRATED", "RULEBOOK", "BASELINE_RULE",
           "rulebook_markdown", "verdict_slug"]

ILLUSTRATED = "illustrated, not tested"

VERDICTS = ("reproduced", "not reproduced", "depends on an unstated choice", "inconclusive", ILLUSTRATED,
            "not run", "data unavailable")

SHORT_VERDICT = {"reproduced": "reproduced", "not reproduced": "not reproduced",
                 "depends on an unstated choice": "depends on a choice", "inconclusive": "inconclusive",
                 ILLUSTRATED: "illustrated", "not run": "not run", "data unavailable": "no data"}


def _baseline_rule() -> str:
    """The yardstick's baseline rule, worded from the kinds of baseline the science builds."""
    from anonlab.measures.protocol import (BLOCK_MAJORITY, MAJORITY_PRIOR, MEMBER_SHARE, NONMEMBER_MODEL,
                                           UNIFORM_PRIOR)

    return ("Every attack on the yardstick (chapter 9) is scored against the non-member baseline on its own "
            "targets wherever one can be built: a model fitted on people who are not the targets, over the "
            f"attributes the attacker knows about them (*{NONMEMBER_MODEL}*, Francis and Wagner §4), or, for "
            f"membership inference with members drawn at random, the share of members (*{MEMBER_SHARE}*, §5). Each row "
            "names its baseline's kind, set where the baseline is built. A row that has only a weaker prior "
            f"(*{MAJORITY_PRIOR}*, *{UNIFORM_PRIOR}*, *{BLOCK_MAJORITY}*) is marked so and counted apart: "
            "whatever its PI, it never counts among the attacks that learn beyond their baseline.")


#: The yardstick's one baseline rule (a rule of :data:`RULEBOOK`; chapter 9 and the front page state it).
BASELINE_RULE = _baseline_rule()


#: The rules every verdict follows (Markdown; the verdicts page shows them, each chapter links there).
RULEBOOK = (
    ("A named and defined quantity is read as defined.",
     "Where the paper names a quantity and defines it (recall, precision, an equation), the book measures "
     "that quantity; another quantity can be shown beside it but does not decide the verdict."),
    ("*Depends on an unstated choice* only for a choice the paper leaves open.",
     "The ledger lists the choice with the passage that leaves it open, quoted (`choices[].why`); "
     "the book's own compute shortcuts and its own extra bars are never a reading of the paper."),
    ("One reading per setup.",
     "A reading is a choice about the paper's setup: the claims of one table or figure are judged under "
     "the same reading, and choices that combine are measured in combination."),
    ("Every Monte Carlo measurement carries its interval, under every reading.",
     "A measurement from random draws (`monte_carlo` in the ledger) is recorded with its interval; a miss "
     "whose interval reaches the accepted values is *inconclusive*, not a failure."),
    ("A measured claim is never *not run*.",
     "Claims that share a measurement are each scored on it; *not run* means that no run of the chapter "
     "measured the quantity."),
    ("Every tolerance has a reason, and a test that cannot fail is an illustration.",
     "The ledger says in one line why each tolerance is what it is (`tolerance_why`); a claim whose test "
     "cannot fail on plausible inputs, or which is measured only on stand-in data, is "
     "*illustrated, not tested*."),
    ("One baseline rule on the yardstick.", BASELINE_RULE),
    ("The published run's verdicts are pinned.",
     "The default run's verdicts of every chapter are pinned in `tests/verdicts/default/` beside the quick "
     "run's; the book build fails on a flip that the pin does not record."),
)

def verdict_slug(v: str) -> str:
    """A verdict as a CSS-safe name: ``illustrated, not tested`` -> ``illustrated-not-tested``."""
    import re

    return re.sub(r"[^a-z0-9]+", "-", v.lower()).strip("-")


def rulebook_markdown() -> str:
    """The rulebook (:data:`RULEBOOK`) as a numbered Markdown list, for the verdicts page."""
    return "\n".join(f"{i}. **{head}** {body}" for i, (head, body) in enumerate(RULEBOOK, 1)) + "\n"


def _as_number(x: Any) -> float:
    return float(x)


def verdict(c: Claim, measured: Any) -> str:
    """Compare a measurement with a claim.

    ``approx``: ``|m − r| ≤ tol``; ``at_least``: ``m ≥ r − tol``;
    ``at_most``: ``m ≤ r + tol``; ``range``: ``lo − tol ≤ m ≤ hi + tol``;
    ``exact``: equal (numbers within ``tol``, default 1e-9);
    ``holds``: ``bool(m) == bool(r)``. A missing measurement is ``not run``
    (or ``data unavailable`` when the ledger says so); NaN is ``not reproduced``.
    """
    if measured is None:
        return "data unavailable" if c.data == "unavailable" else "not run"
    if c.compare == "holds":
        return "reproduced" if bool(measured) == bool(c.reported) else "not reproduced"
    if c.compare == "exact" and not isinstance(c.reported, (int, float)):
        return "reproduced" if measured == c.reported else "not reproduced"
    m = _as_number(measured)
    if math.isnan(m):
        return "not reproduced"
    tol = float(c.tolerance or 0.0)
    if c.compare == "approx":
        ok = abs(m - _as_number(c.reported)) <= tol + 1e-12
    elif c.compare == "at_least":
        ok = m >= _as_number(c.reported) - tol
    elif c.compare == "at_most":
        ok = m <= _as_number(c.reported) + tol
    elif c.compare == "range":
        lo, hi = (_as_number(v) for v in c.reported)
        ok = lo - tol <= m <= hi + tol
    elif c.compare == "exact":
        ok = abs(m - _as_number(c.reported)) <= max(tol, 1e-9)
    else:  # pragma: no cover - the schema forbids it
        raise ClaimError(f"claim {c.id!r} has unknown comparison {c.compare!r}")
    return "reproduced" if ok else "not reproduced"


def accepted_interval(c: Claim) -> tuple[float, float] | None:
    """The values a numeric claim accepts, as an interval (``None`` for non-numeric comparisons)."""
    tol = float(c.tolerance or 0.0)
    try:
        if c.compare == "approx":
            r = float(c.reported)
            return (r - tol, r + tol)
        if c.compare == "at_least":
            return (float(c.reported) - tol, math.inf)
        if c.compare == "at_most":
            return (-math.inf, float(c.reported) + tol)
        if c.compare == "range":
            lo, hi = (float(v) for v in c.reported)
            return (lo - tol, hi + tol)
    except (TypeError, ValueError):
        return None
    return None


def decide(c: Claim, record: Mapping[str, Any] | None) -> str:
    """The verdict of a claim from its recorded measurement (see the module docstring).

    In order: nothing recorded -> ``not run`` / ``data unavailable``; NaN ->
    ``not reproduced``; a stand-in measurement (not lifted by ``real_data``)
    or a claim the ledger marks as an ``illustration`` -> ``illustrated,
    not tested``; each reading (the default and every alternative) is
    judged by :func:`verdict` with the interval rule (a miss whose interval
    reaches the accepted values is ``inconclusive``); readings that reproduce
    and readings that fail -> ``depends on an unstated choice``; decided
    readings beside undecidable ones -> ``inconclusive``; otherwise the
    shared verdict.
    """
    measured = None if record is None else record.get("measured")
    if record is not None and record.get("is_nan"):
        return "not reproduced"
    if measured is None:
        return verdict(c, None)
    if (c.stand_in and not record.get("real_data")) or c.illustration:
        return ILLUSTRATED
    return _readings_verdict(c, record)


def _readings_verdict(c: Claim, record: Mapping[str, Any]) -> str:
    """The verdict from the readings alone (the default and every alternative), see :func:`decide`."""
    if record.get("is_nan"):
        return "not reproduced"
    if record.get("measured") is None:
        return verdict(c, None)
    base = reading_verdict(c, record)
    alts = record.get("alternatives") or {}
    readings = {base, *(reading_verdict(c, a) for a in alts.values())}
    if len(readings) > 1:
        decided = readings - {"inconclusive"}
        return "depends on an unstated choice" if len(decided) > 1 else "inconclusive"
    return base


def reading_verdict(c: Claim, reading: Mapping[str, Any]) -> str:
    """The verdict of one measurement (the default reading or an alternative), with the interval rule.

    A miss whose interval reaches into the accepted values is inconclusive.
    """
    if reading.get("is_nan"):
        return "not reproduced"
    base = verdict(c, reading.get("measured"))
    ci = reading.get("ci")
    accepted = accepted_interval(c)
    if base == "not reproduced" and ci and accepted and all(v is not None for v in ci):
        lo, hi = float(ci[0]), float(ci[1])
        if lo <= accepted[1] + 1e-12 and hi >= accepted[0] - 1e-12:
            return "inconclusive"
    return base



def reading_verdicts(c: Claim, record: Mapping[str, Any] | None) -> dict[str, str]:
    """The verdict under each alternative reading the record holds (``{}`` without alternatives)."""
    alts = (record or {}).get("alternatives") or {}
    return {str(label): reading_verdict(c, a) for label, a in alts.items()}


def join_words(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``.

    >>> join_words(["x"]), join_words(["x", "y", "z"])
    ('x', 'x, y and z')
    """
    items = list(items)
    if not items:
        return ""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _short_value(x: Any) -> str:
    if isinstance(x, bool):
        return "holds" if x else "does not hold"
    if isinstance(x, float):
        return f"{x:.3g}"
    return str(x)


def phrase(c: Claim, record: Mapping[str, Any] | None) -> str:
    """The verdict of a claim in words (Markdown), naming the readings where they disagree.

    The one wording of a verdict in the book: the verdict itself, and for a
    claim that depends on an unstated choice the readings (the ledger's
    alternatives, the default among them) under which it is reproduced and
    those under which it is not, each with its value::

        depends on an unstated choice: reproduced with *y* (0.28); not reproduced with *x* (0.3)

    >>> from anonlab.claims.ledger import Claim
    >>> c = Claim(id="a", paper="p", source="s", where="w", statement="s", reported=0.3, unit="fraction",
    ...           compare="approx", chapter="ch", data="available", tolerance=0.05,
    ...           choices=[{"name": "n", "alternatives": ["x", "y"], "default": "x"}])
    >>> phrase(c, {"measured": 0.31, "alternatives": {"x": {"measured": 0.31}, "y": {"measured": 0.5}}})
    'depends on an unstated choice: reproduced with *x* (0.31); not reproduced with *y* (0.5)'
    >>> phrase(c, None)
    'not run'
    """
    v = decide(c, record)
    alts = (record or {}).get("alternatives") or {}
    if v == ILLUSTRATED:
        why = "on stand-in data" if c.stand_in and not (record or {}).get("real_data") else "a test that cannot fail"
        shown = _readings_verdict(c, record or {})
        agree = {"reproduced": "agrees with the paper", "not reproduced": "does not agree with the paper"}
        return f"{v} ({why}; the measurement {agree.get(shown, 'does not settle it either way')})"
    if v != "depends on an unstated choice" or not alts:
        return v
    groups: dict[str, list[str]] = {}
    for label, a in alts.items():
        groups.setdefault(reading_verdict(c, a), []).append(f"*{label}* ({_short_value(a.get('measured'))})")
    ordered = sorted(groups.items(), key=lambda kv: (kv[0] != "reproduced", kv[0]))
    return v + ": " + "; ".join(f"{g} with {join_words(xs)}" for g, xs in ordered)

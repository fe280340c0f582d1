"""The verdict rules: how a recorded measurement is judged against its claim (one place).

Verdicts
--------
The seven categories (:data:`VERDICTS`) are defined once, in
:data:`DEFINITIONS`; every page that defines them (the front page, the
verdicts page) shows :func:`definitions_markdown`, and the front page's
reasons for an undecided claim are :data:`REASONS`.

The rulebook (:data:`RULEBOOK`, shown on the verdicts page and enforced by the recorder and ``tests/test_claims.py``)
says how the categories are applied, the same way in every chapter.

A verdict is never stored: :func:`decide` computes it from the ledger and the recorded measurement whenever it is
needed (the chapter's prose, the verdict pages, the pins), so a ledger edit takes effect without a rerun and there is
one source of truth. :func:`phrase` words it, the same way in every chapter.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .ledger import Claim, ClaimError

__all__ = ["VERDICTS", "SHORT_VERDICT", "verdict", "decide", "reading_verdict", "reading_verdicts",
           "accepted_interval", "phrase", "join_words", "ILLUSTRATED", "RULEBOOK", "BASELINE_RULE",
           "rulebook_markdown", "verdict_slug", "condition_holds", "conditions_hold", "DEFINITIONS", "REASONS",
           "definitions_markdown"]

ILLUSTRATED = "illustrated, not tested"

#: What each verdict means: the one definition, shown by every page that defines the categories.
DEFINITIONS = {
    "reproduced": "the measured value satisfies the claim's comparison within its tolerance; a Monte Carlo *holds* "
                  "claim, when every comparison's interval over the repetitions lies on the side the claim states",
    "not reproduced": "it does not, or the measurement is undefined, under every reading of the paper the ledger "
                      "lists; the chapter says why as far as the evidence goes",
    "depends on an unstated choice": "the paper leaves a choice open (the ledger quotes the passage) and the claim "
                                     "holds under one reasonable reading and fails under another; the record keeps "
                                     "the measurement under each",
    "inconclusive": "the evidence cannot decide: the measurement misses the accepted values while its interval "
                    "reaches into them (the tolerance already allows for noise, so such a run is not a failure), a "
                    "Monte Carlo *holds* claim's interval over the repetitions straddles its bar, or some readings "
                    "decide and others cannot",
    ILLUSTRATED: "the measurement is shown but is not evidence either way: the book can only stand in for the "
                 "paper's data (the ledger says with what, and what would decide it), or the claim's test cannot "
                 "fail on plausible inputs or checks only a proxy for what the paper compares (the ledger says why)",
    "not run": "no chapter has measured it (yet, or with these parameters)",
    "data unavailable": "not run because the data it needs cannot be had here",
}

#: Why a claim of each undecided category is undecided, in a few words (the front page's findings).
REASONS = {
    "depends on an unstated choice": "a choice the paper leaves open",
    "inconclusive": "evidence that cannot decide: a miss whose interval reaches the accepted values, or an interval "
                    "that straddles its bar",
    ILLUSTRATED: "stand-in data, a test that cannot fail, or a proxy test",
    "not run": "runs not made",
    "data unavailable": "data the book cannot fetch",
}

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
     "A measurement from random draws (`monte_carlo` in the ledger) is recorded with its interval. A Monte Carlo "
     "number is decided on its value against the accepted values (the paper's value with its tolerance, which "
     "already allows for the noise of the paper's own estimate), and its interval decides a miss: a miss whose "
     "interval reaches the accepted values is *inconclusive*, not a failure; a value inside whose interval reaches "
     "past an edge stays *reproduced*, its interval shown beside it (asking the whole interval to fit would count "
     "the noise twice, and a run could then reproduce only a value equal to the paper's). A Monte Carlo *holds* claim "
     "that compares means over repetitions with a bar is decided on each mean's Student-t interval over the "
     "repetitions, whose values the record keeps: it holds when every interval lies on the side the claim states, "
     "fails when one lies wholly on the other side, and is *inconclusive* when one straddles its bar. Every reading "
     "runs as many repetitions as the default."),
    ("A measured claim is never *not run*.",
     "Claims that share a measurement are each scored on it; *not run* means that no run of the chapter "
     "measured the quantity."),
    ("Every tolerance has a reason, and a test that cannot fail is an illustration.",
     "The ledger says in one line why each tolerance is what it is (`tolerance_why`), set from the paper's words "
     "before measuring; a claim whose test cannot fail on plausible inputs, which checks only a proxy for what the "
     "paper compares (another paper's numbers the book does not have), or which is measured only on stand-in "
     "data, is *illustrated, not tested* (the ledger's `illustration` or `stand_in` says why)."),
    ("One baseline rule on the yardstick.", BASELINE_RULE),
    ("The published run's verdicts are pinned.",
     "The default run's verdicts of every chapter are pinned in `tests/verdicts/default/` beside the quick "
     "run's; the book build fails on a flip that the pin does not record."),
)

def verdict_slug(v: str) -> str:
    """A verdict as a CSS-safe name: ``illustrated, not tested`` -> ``illustrated-not-tested``."""
    import re

    return re.sub(r"[^a-z0-9]+", "-", v.lower()).strip("-")


def definitions_markdown() -> str:
    """The verdict categories with their one definition (:data:`DEFINITIONS`), as a Markdown list.

    >>> definitions_markdown().splitlines()[0].startswith("- **reproduced**: the measured value")
    True
    """
    return "\n".join(f"- **{v}**: {DEFINITIONS[v]};" if i < len(VERDICTS) - 1 else f"- **{v}**: {DEFINITIONS[v]}."
                     for i, v in enumerate(VERDICTS)) + "\n"


def rulebook_markdown() -> str:
    """The rulebook (:data:`RULEBOOK`) as a numbered Markdown list, for the verdicts page."""
    return "\n".join(f"{i}. **{head}** {body}" for i, (head, body) in enumerate(RULEBOOK, 1)) + "\n"


def _as_number(x: Any) -> float:
    return float(x)


def verdict(c: Claim, measured: Any) -> str:
    """Compare a measurement with a claim.

    ``approx``: ``|m − r| ≤ tol``; ``at_least``: ``m ≥ r − tol``; ``at_most``: ``m ≤ r + tol``; ``range``: ``lo − tol
    ≤ m ≤ hi + tol``; ``exact``: equal (numbers within ``tol``, default 1e-9); ``holds``: ``bool(m) == bool(r)``. A
    missing measurement is ``not run`` (or ``data unavailable`` when the ledger says so); NaN is ``not reproduced``.
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

    In order: nothing recorded -> ``not run`` / ``data unavailable``; NaN -> ``not reproduced``; a stand-in
    measurement (not lifted by ``real_data``) or a claim the ledger marks as an ``illustration`` -> ``illustrated, not
    tested``; each reading (the default and every alternative) is judged by :func:`verdict` with the interval rule (a
    miss whose interval reaches the accepted values is ``inconclusive``); readings that reproduce and readings that
    fail -> ``depends on an unstated choice``; decided readings beside undecidable ones -> ``inconclusive``; otherwise
    the shared verdict.
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


def condition_holds(cond: Mapping[str, Any]) -> bool | None:
    """One recorded comparison of a Monte Carlo *holds* claim, decided on its interval over the repetitions.

    ``True`` when the interval (``ci``, Student t over the repetitions' values) lies within the accepted values
    (``accepted``: ``[low, high]``, ``None`` for an open end), ``False`` when it lies wholly outside them, ``None``
    (undecided) when it straddles an end or is undefined (one repetition).

    >>> condition_holds({"ci": [0.38, 0.40], "accepted": [None, 0.41]})
    True
    >>> condition_holds({"ci": [0.40, 0.42], "accepted": [None, 0.41]}) is None
    True
    """
    ci = cond.get("ci") or [None, None]
    if len(ci) != 2 or any(v is None or math.isnan(float(v)) for v in ci):
        return None
    lo, hi = float(ci[0]), float(ci[1])
    a_lo, a_hi = cond.get("accepted") or [None, None]
    a_lo = -math.inf if a_lo is None else float(a_lo)
    a_hi = math.inf if a_hi is None else float(a_hi)
    if a_lo <= lo and hi <= a_hi:
        return True
    if hi < a_lo or lo > a_hi:
        return False
    return None


def conditions_hold(conditions: list[Mapping[str, Any]]) -> bool | None:
    """A Monte Carlo *holds* claim's statement over its comparisons (:func:`condition_holds`).

    It fails when any comparison fails, holds when every one holds, and is undecided (``None``) otherwise.
    """
    states = [condition_holds(k) for k in conditions]
    if any(s is False for s in states):
        return False
    return True if states and all(states) else None


def reading_verdict(c: Claim, reading: Mapping[str, Any]) -> str:
    """The verdict of one measurement (the default reading or an alternative), with the interval rule.

    A miss whose interval reaches into the accepted values is inconclusive. A Monte Carlo *holds* claim recorded with
    its comparisons (``conditions``) is decided on their intervals (:func:`conditions_hold`): undecided is
    inconclusive, whatever the means say.
    """
    if reading.get("is_nan"):
        return "not reproduced"
    if c.compare == "holds" and reading.get("conditions") and reading.get("measured") is not None:
        holds = conditions_hold(reading["conditions"])
        if holds is None:
            return "inconclusive"
        return "reproduced" if holds == bool(c.reported) else "not reproduced"
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

    The one wording of a verdict in the book: the verdict itself, and for a claim that depends on an unstated choice
    the readings (the ledger's alternatives, the default among them) under which it is reproduced and those under
    which it is not, each with its value::

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
        why = "on stand-in data" if c.stand_in and not (record or {}).get("real_data") else "a test that cannot decide it"
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

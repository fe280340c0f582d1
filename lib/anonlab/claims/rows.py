"""One row of a verdict table: a claim beside its recorded measurement, formatted for reading."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .ledger import Claim, claim
from .rules import condition_holds, decide, reading_verdict

__all__ = ["COLUMNS", "claim_row", "claim_rows", "format_number"]

COLUMNS = ["id", "chapter", "paper", "where", "statement", "reported", "measured", "ci", "verdict", "readings",
           "note"]


def _decimals(width: float) -> int:
    """Decimals that an interval of this width supports: one significant digit of the width, plus one."""
    if not width > 0 or math.isinf(width):
        return 3
    return int(min(6, max(0, 1 - math.floor(math.log10(width)))))


def format_number(x: Any, ci: Sequence[float] | None = None) -> str:
    """A measured number to the precision its interval supports, in plain decimals (no ``e-05``).

    With an interval ``[lo, hi]``, as many decimals as one significant digit of ``hi - lo`` plus one; without one,
    three significant digits. Integers stay integers; very small values keep two significant digits.

    >>> format_number(0.31234, (0.29, 0.33)), format_number(3.229e-05), format_number(30718)
    ('0.312', '0.000032', '30718')
    """
    if isinstance(x, bool):
        return "holds" if x else "does not hold"
    if not isinstance(x, (int, float)):
        return str(x)
    if isinstance(x, int) or (float(x).is_integer() and abs(x) >= 1 and not ci):
        return f"{int(x)}"
    x = float(x)
    if math.isnan(x):
        return "undefined"
    if ci and len(ci) == 2 and all(isinstance(v, (int, float)) for v in ci):
        d = _decimals(float(ci[1]) - float(ci[0]))
        if x != 0 and abs(x) < 10 ** -d:  # the interval is wider than the value's first digit
            d = min(8, 1 - math.floor(math.log10(abs(x))))
        return f"{x:.{d}f}"
    if x != 0 and abs(x) < 1e-3:
        return f"{x:.{min(10, 1 - math.floor(math.log10(abs(x))))}f}"
    return f"{x:.3g}" if abs(x) >= 1e-3 and abs(x) < 1e6 else f"{x:.0f}"


def _fmt_measured(r: Mapping[str, Any] | None) -> str:
    if not r:
        return ""
    m = r.get("measured")
    if m is None:
        return "undefined" if r.get("is_nan") else ""
    return format_number(m, _ci(r))


def _ci(r: Mapping[str, Any] | None) -> list[float] | None:
    ci = (r or {}).get("ci")
    if not ci or len(ci) != 2 or any(v is None for v in ci) or (r or {}).get("is_nan"):
        return None
    return [float(ci[0]), float(ci[1])]


def _accepted(cond: Mapping[str, Any]) -> str:
    """A comparison's accepted values in words, to its interval's precision: ``below 0.340``, ``in [0.30, 0.36]``."""
    lo, hi = cond.get("accepted") or [None, None]
    ci = cond.get("ci")
    ci = ci if ci and all(v is not None for v in ci) else None
    if lo is None and hi is None:
        return "any value"
    if lo is None:
        return f"below {format_number(float(hi), ci)}"
    if hi is None:
        return f"above {format_number(float(lo), ci)}"
    return f"in [{format_number(float(lo), ci)}, {format_number(float(hi), ci)}]"


def _fmt_condition(cond: Mapping[str, Any]) -> str:
    """One comparison of a Monte Carlo holds claim: its mean, interval, the bar, and what the interval says."""
    ci = cond.get("ci") or [None, None]
    state = {True: "holds", False: "fails", None: "straddles"}[condition_holds(cond)]
    if any(v is None for v in ci):
        shown, state = format_number(cond.get("mean")), "undecided (one repetition)"
    else:
        d = _decimals(float(ci[1]) - float(ci[0]))
        shown = f"{format_number(cond.get('mean'), ci)} [{float(ci[0]):.{d}f}, {float(ci[1]):.{d}f}]"
    return f"{cond.get('label')}: {shown}, needs {_accepted(cond)}: {state}"


def _deciding_condition(conditions: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The comparison that decides: the first that fails, else the first undecided, else the first."""
    states = [condition_holds(k) for k in conditions]
    for want in (False, None):
        if want in states:
            return conditions[states.index(want)]
    return conditions[0]


def _fmt_ci(r: Mapping[str, Any] | None) -> str:
    if (r or {}).get("conditions"):
        return _fmt_condition(_deciding_condition(r["conditions"]))
    ci = _ci(r)
    if ci is None:
        return ""
    d = _decimals(ci[1] - ci[0])
    return f"[{ci[0]:.{d}f}, {ci[1]:.{d}f}]"


def _readings(c: Claim, r: Mapping[str, Any] | None) -> str:
    """The verdict under each alternative reading (with its interval), and why a stand-in or an illustration cannot decide."""
    parts = []
    if (r or {}).get("conditions"):
        parts.append("decided on the interval over the repetitions of each comparison: "
                     + "; ".join(_fmt_condition(k) for k in r["conditions"]))
    for label, a in ((r or {}).get("alternatives") or {}).items():
        ci = f" {_fmt_ci(a)}" if _fmt_ci(a) else ""
        if a.get("conditions"):
            ci = f" on the means; {ci.strip()}"
        parts.append(f"{label}: {_fmt_measured(a)}{ci} ({reading_verdict(c, a)})")
    if c.stand_in and not (r or {}).get("real_data"):
        parts.append(f"stand-in: {c.stand_in}")
    if c.illustration:
        parts.append(f"illustration: {c.illustration}")
    return "; ".join(parts)


def claim_row(c: Claim, r: Mapping[str, Any] | None) -> dict[str, Any]:
    v = decide(c, r)
    return {
        "id": c.id,
        "chapter": c.chapter,
        "paper": c.paper,
        "where": c.where,
        "statement": c.statement,
        "reported": c.describe_reported(),
        "measured": _fmt_measured(r),
        "ci": _fmt_ci(r),
        "verdict": v,
        "readings": _readings(c, r),
        "note": str((r or {}).get("note") or ""),
    }


def claim_rows(results: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """One row (:data:`COLUMNS`) per recorded claim, in the order given."""
    return pd.DataFrame([claim_row(claim(cid), r) for cid, r in results.items()], columns=COLUMNS)

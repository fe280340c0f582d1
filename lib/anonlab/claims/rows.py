"""One row of a verdict table: a claim beside its recorded measurement, formatted for reading."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from .ledger import Claim, claim
from .rules import decide, reading_verdict

__all__ = ["COLUMNS", "claim_row", "claim_rows"]

COLUMNS = ["id", "chapter", "where", "statement", "reported", "measured", "ci", "verdict", "readings"]


def _fmt_measured(r: Mapping[str, Any] | None) -> str:
    if not r:
        return ""
    m = r.get("measured")
    if m is None:
        return "nan" if r.get("is_nan") else ""
    if isinstance(m, bool):
        return "holds" if m else "does not hold"
    if isinstance(m, float):
        return f"{m:.4g}"
    return str(m)


def _fmt_ci(r: Mapping[str, Any] | None) -> str:
    ci = (r or {}).get("ci")
    if not ci or any(v is None for v in ci):
        return ""
    return f"[{ci[0]:.3g}, {ci[1]:.3g}]"


def _readings(c: Claim, r: Mapping[str, Any] | None) -> str:
    """The verdict under each alternative reading (with its interval), and why a stand-in or an illustration cannot decide."""
    parts = []
    for label, a in ((r or {}).get("alternatives") or {}).items():
        ci = f" {_fmt_ci(a)}" if _fmt_ci(a) else ""
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
        "where": c.where,
        "statement": c.statement,
        "reported": c.describe_reported(),
        "measured": _fmt_measured(r),
        "ci": _fmt_ci(r),
        "verdict": v,
        "readings": _readings(c, r),
    }


def claim_rows(results: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """One row (:data:`COLUMNS`) per recorded claim, in the order given."""
    return pd.DataFrame([claim_row(claim(cid), r) for cid, r in results.items()], columns=COLUMNS)

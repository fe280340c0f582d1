"""The claims ledger: ``data/claims.yaml``, read and validated (its one job).

Every quantitative claim of the five source documents is one row: where it is made, the reported value, how a
measurement is compared with it and the tolerance (see ``data/claims.schema.json``). The verdict rules are in
:mod:`anonlab.claims.rules`, recording in :mod:`anonlab.claims.recorder`, the verdict pages in
:mod:`anonbook.verdicts.pages`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from .. import paths

__all__ = ["COMPARISONS", "DATA_STATES", "Claim", "ClaimError", "describe_reported", "load_ledger", "ledger",
           "claim", "reported", "chapter_claims"]

COMPARISONS = ("approx", "at_least", "at_most", "range", "exact", "holds")
DATA_STATES = ("available", "unavailable", "synthetic", "none")


class ClaimError(KeyError):
    """An unknown claim id, or a ledger entry that does not follow the schema."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class Claim:
    """One row of the ledger (see ``data/claims.schema.json``)."""

    id: str
    paper: str
    source: str
    where: str
    statement: str
    reported: Any
    unit: str
    compare: str
    chapter: str
    data: str
    tolerance: float | None = None
    quote: str | None = None
    params: Mapping[str, Any] | None = None
    note: str | None = None
    choices: Sequence[Mapping[str, Any]] | None = None
    stand_in: str | None = None
    tolerance_why: str | None = None
    illustration: str | None = None
    monte_carlo: bool = False

    def alternatives(self) -> list[str]:
        """The labels of every alternative reading the ledger lists (over all open choices)."""
        return [str(a) for ch in (self.choices or []) for a in ch.get("alternatives", [])]

    def describe_reported(self) -> str:
        """The reported value as a short human string, e.g. ``0.13 ± 0.02``."""
        return describe_reported(self.compare, self.reported, self.tolerance)


def describe_reported(compare: str, value: Any, tolerance: float | None) -> str:
    """Format a reported value with its comparison and the tolerance the verdict allows.

    Wherever a claim's reported value is shown, its tolerance is shown with it, so that a verdict can be read from the
    row: a measurement just outside the paper's range can be reproduced, one inside the widened range inconclusive
    only by its interval.

    >>> describe_reported("range", [0.93, 1], 0.017), describe_reported("at_least", 0.66, 0.02)
    ('[0.93, 1] ± 0.017', '≥ 0.66 ± 0.02')
    >>> describe_reported("approx", 0.13, 0.02), describe_reported("at_most", 0.3, 0.0)
    ('0.13 ± 0.02', '≤ 0.3')
    """
    tol = f" ± {tolerance:g}" if tolerance else ""
    if compare == "holds":
        return "holds" if value else "does not hold"
    if compare == "range":
        return f"[{value[0]:g}, {value[1]:g}]{tol}"
    if compare == "at_least":
        return f"≥ {value:g}{tol}"
    if compare == "at_most":
        return f"≤ {value:g}{tol}"
    if compare == "exact":
        return f"{value:g}{tol}" if isinstance(value, (int, float)) else str(value)
    return f"{value:g}{tol}"


@lru_cache(maxsize=4)
def _load(path: str, mtime: float) -> tuple[Claim, ...]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C parser is ~10x faster
    with open(path, encoding="utf-8") as fh:
        rows = yaml.load(fh, Loader=loader) or []
    claims = []
    seen: set[str] = set()
    for row in rows:
        try:
            c = Claim(**row)
        except TypeError as exc:
            raise ClaimError(f"ledger entry {row.get('id', row)!r} has unexpected keys: {exc}") from None
        if c.id in seen:
            raise ClaimError(f"ledger id {c.id!r} appears twice in {path}")
        seen.add(c.id)
        claims.append(c)
    return tuple(claims)


def load_ledger(path: str | Path | None = None) -> tuple[Claim, ...]:
    """Read the ledger (cached until the file changes)."""
    p = Path(path) if path is not None else paths.ledger_path()
    if not p.exists():
        raise FileNotFoundError(f"claims ledger not found at {p}")
    return _load(str(p), p.stat().st_mtime)


def ledger(path: str | Path | None = None) -> pd.DataFrame:
    """The ledger as a DataFrame, one row per claim."""
    rows = [c.__dict__ for c in load_ledger(path)]
    return pd.DataFrame(rows)


def claim(claim_id: str) -> Claim:
    """Look a claim up by id; unknown ids raise :class:`ClaimError` with near matches."""
    for c in load_ledger():
        if c.id == claim_id:
            return c
    import difflib

    ids = [c.id for c in load_ledger()]
    near = difflib.get_close_matches(claim_id, ids, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise ClaimError(f"unknown claim id {claim_id!r} (not in {paths.ledger_path()}){hint}")


def reported(claim_id: str) -> Any:
    """The value the paper reports for ``claim_id`` (from the ledger)."""
    return claim(claim_id).reported


def chapter_claims(chapter: str) -> tuple[Claim, ...]:
    """The ledger's claims of one chapter, in ledger order."""
    return tuple(c for c in load_ledger() if c.chapter == chapter)

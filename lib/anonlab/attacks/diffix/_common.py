"""Small helpers shared by the Diffix attacks: SQL templates and argument checks."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from anonlab.validation import check_int, check_number

# ---------------------------------------------------------------------------
# SQL helpers
# ---------------------------------------------------------------------------


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@lru_cache(maxsize=4096)
def _placeholder_condition(column: str, op: str) -> str:
    """``"column" op ?``: one condition of a prepared statement (memoised: the attacks reuse a few)."""
    return f"{_ident(column)} {op} ?"


def _template(table: str, conditions: Sequence[tuple[str, str]]) -> str:
    """``SELECT count(*) FROM table WHERE c1 op ? AND ...`` for (column, op) pairs.

    Memoised on the pairs: an attack sends the same statement shapes many
    times, and the proxy finds a text it has seen (the same string object)
    in its cache of statements at once.
    """
    return _template_of(table, tuple(map(tuple, conditions)))


@lru_cache(maxsize=1 << 14)
def _template_of(table: str, conditions: tuple[tuple[str, str], ...]) -> str:
    where = " AND ".join(itertools.starmap(_placeholder_condition, conditions))
    return f"SELECT count(*) FROM {table}" + (f" WHERE {where}" if where else "")


def _py(v: Any) -> Any:
    """numpy scalars to Python values for binding."""
    return v.item() if isinstance(v, np.generic) else v



def _positive_int(name: str, value: Any) -> int:
    """An integer >= 1 (numpy integers accepted), checked by :func:`anonlab.validation.check_int`."""
    if isinstance(value, np.integer):
        value = int(value)
    return check_int(name, value, low=1)


def _cloning_settings(n_dummy: Any, sigma_star: Any) -> tuple[int, float]:
    """Check ``|Delta|`` (an integer >= 2: a variance needs two samples) and ``sigma*`` (a number >= 0)."""
    if isinstance(n_dummy, np.integer):
        n_dummy = int(n_dummy)
    n = check_int("n_dummy", n_dummy, low=2)
    return n, check_number("sigma_star", sigma_star, low=0)

"""Syntactic anonymity: what a data owner does to a table before publishing it.

Generalisation (numeric ranges, categorical hierarchies, prefix masking of strings such as ZIP codes, several columns
at once), suppression (records in classes smaller than k, or attribute values) and the trade-off over a ladder of
levels (:func:`generalisation_sweep`). Which model the result satisfies is measured by
:mod:`anonlab.measures.syntactic`; the worked tables of the CMU 18-734 slides (Fall 2019) are in
:mod:`anonlab.data.tables`. Sources: L. Sweeney, IJUFKS 10(5), 2002; A. Machanavajjhala et al., ACM TKDD 1(1), 2007.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..measures.syntactic import (
    Distance,
    Hierarchy,
    as_parent_map,
    check_release,
    class_ids,
    privacy_report,
)
from ..validation import check_int

__all__ = [
    "Suppression",
    "generalize",
    "generalize_categorical",
    "generalize_numeric",
    "generalisation_sweep",
    "mask_prefix",
    "suppress_small_classes",
    "suppress_values",
]


# ---------------------------------------------------------------------------
# generalisation
# ---------------------------------------------------------------------------


def _fmt_edge(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def generalize_numeric(
    values: pd.Series,
    *,
    width: float | None = None,
    bins: Sequence[float] | None = None,
    labels: Sequence[str] | None = None,
    origin: float = 0.0,
) -> pd.Series:
    """Replace numbers by the range that contains them: an ordered categorical of range labels.

    Exactly one of ``width`` (buckets [origin + j·width, origin + (j+1)·width), labelled ``"[20, 30)"``) or ``bins``
    (increasing edges, left-closed as ``age < 30`` on the slides, named by ``labels`` or ``"[b_i, b_i+1)"``; a value
    outside raises ``ValueError``, so use ``±inf`` edges). Missing values stay missing. The slides' age ranges (Fig.
    2):

    >>> ages = pd.Series([28, 36, 50])
    >>> generalize_numeric(ages, bins=[0, 30, 40, np.inf],
    ...                    labels=["< 30", "3*", "≥ 40"]).tolist()
    ['< 30', '3*', '≥ 40']
    >>> generalize_numeric(ages, width=10).tolist()
    ['[20, 30)', '[30, 40)', '[50, 60)']
    """
    if not isinstance(values, pd.Series):
        values = pd.Series(values)
    if (width is None) == (bins is None):
        raise ValueError("give exactly one of width= or bins=")
    if not pd.api.types.is_numeric_dtype(values):
        raise ValueError(
            f"generalize_numeric needs a numeric column, got dtype {values.dtype} "
            f"for {values.name!r}"
        )
    x = values.astype(float)
    if width is not None:
        if labels is not None:
            raise ValueError("labels= is only used with bins=")
        if not np.isfinite(width) or width <= 0:
            raise ValueError(f"width must be > 0, got {width!r}")
        lower = np.floor((x - origin) / width) * width + origin
        edges = np.unique(lower.dropna().to_numpy())
        cats = [f"[{_fmt_edge(lo)}, {_fmt_edge(lo + width)})" for lo in edges]
        label_of = dict(zip(edges, cats))
        out = pd.Series(pd.Categorical(lower.map(label_of), categories=cats, ordered=True),
                        index=values.index, name=values.name)
        return out
    edges_arr = np.asarray(bins, dtype=float)
    if edges_arr.ndim != 1 or len(edges_arr) < 2 or np.any(np.diff(edges_arr) <= 0):
        raise ValueError(f"bins must be at least two strictly increasing edges, got {list(bins)}")
    if labels is not None and len(labels) != len(edges_arr) - 1:
        raise ValueError(
            f"labels needs one label per bucket: {len(edges_arr) - 1} expected, got {len(labels)}"
        )
    outside = x.notna() & ((x < edges_arr[0]) | (x >= edges_arr[-1]))
    if outside.any():
        raise ValueError(
            f"{int(outside.sum())} value(s) of {values.name!r} fall outside the bins "
            f"[{edges_arr[0]:g}, {edges_arr[-1]:g}), e.g. {x[outside].iloc[0]:g}"
        )
    if labels is None:
        labels = [f"[{_fmt_edge(a)}, {_fmt_edge(b)})" for a, b in zip(edges_arr[:-1], edges_arr[1:])]
    cut = pd.cut(x, edges_arr, right=False, labels=list(labels), ordered=True)
    return pd.Series(cut, index=values.index, name=values.name)


def generalize_categorical(
    values: pd.Series, hierarchy: Hierarchy, levels: int = 1
) -> pd.Series:
    """Replace each value by its ancestor ``levels`` (>= 0) steps up a hierarchy, stopping at the root.

    Sweeney's (2002) domain generalisation hierarchy on one attribute; ``hierarchy`` as :func:`as_parent_map`, every
    value must be a node of it; returns strings.

    >>> h = {"*": {"Asia": ["Japanese", "Indian"], "West": ["American", "Russian"]}}
    >>> generalize_categorical(pd.Series(["Japanese", "Russian"]), h).tolist()
    ['Asia', 'West']
    >>> generalize_categorical(pd.Series(["Japanese", "Russian"]), h, levels=2).tolist()
    ['*', '*']
    """
    levels = check_int("levels", levels, low=0)
    if not isinstance(values, pd.Series):
        values = pd.Series(values)
    parents = as_parent_map(hierarchy)
    out = values.astype("string").astype(object).where(values.notna(), None)
    present = pd.unique(out.dropna())
    unknown = [v for v in present if v not in parents]
    if unknown:
        raise ValueError(
            f"value(s) {unknown[:10]} of {values.name!r} are not in the hierarchy "
            f"(its nodes: {sorted(parents)[:20]}{' ...' if len(parents) > 20 else ''})"
        )
    up = {n: (p if p is not None else n) for n, p in parents.items()}
    for _ in range(int(levels)):  # one vectorised map per level, not per record
        out = out.map(up)
    return pd.Series(out.to_numpy(dtype=object), index=values.index, name=values.name)


def mask_prefix(values: pd.Series, keep: int, mask_char: str = "*") -> pd.Series:
    """Keep the first ``keep`` characters of each string and mask the rest: ``"13053"`` -> ``"130**"``.

    Pass ZIP codes as strings to keep leading zeros; missing values stay missing.

    >>> mask_prefix(pd.Series(["13053", "14853"]), 3).tolist()
    ['130**', '148**']
    """
    keep = check_int("keep", keep, low=0)
    if not isinstance(mask_char, str) or len(mask_char) != 1:
        raise ValueError(f"mask_char must be one character, got {mask_char!r}")
    if not isinstance(values, pd.Series):
        values = pd.Series(values)
    s = values.astype("string")
    # every character after the first `keep` becomes mask_char (one vectorised regex)
    masked = s.str.slice(0, keep) + s.str.slice(keep).str.replace(r"(?s).", mask_char, regex=True)
    return pd.Series(masked.astype(object).where(values.notna(), np.nan),
                     index=values.index, name=values.name)


def generalize(
    df: pd.DataFrame,
    *,
    ranges: Mapping[str, float | Sequence[float]] | None = None,
    hierarchies: Mapping[str, tuple[Hierarchy, int]] | None = None,
    prefixes: Mapping[str, int] | None = None,
    suppress: Iterable[str] = (),
    token: str = "*",
) -> pd.DataFrame:
    """Generalise several columns at once (full-domain recoding); a copy.

    ``ranges`` ``{column: width or [edges]}``, ``hierarchies`` ``{column: (hierarchy, levels)}``, ``prefixes``
    ``{column: keep}``, ``suppress`` columns replaced by ``token``.

    >>> df = pd.DataFrame({"zip": ["13053", "13068"], "age": [28, 29], "nat": ["a", "b"]})
    >>> generalize(df, ranges={"age": 10}, prefixes={"zip": 3}, suppress=["nat"]).values.tolist()
    [['130**', '[20, 30)', '*'], ['130**', '[20, 30)', '*']]
    """
    ranges = dict(ranges or {})
    hierarchies = dict(hierarchies or {})
    prefixes = dict(prefixes or {})
    suppress = list(suppress)
    named = list(ranges) + list(hierarchies) + list(prefixes) + suppress
    unknown = [c for c in named if c not in df.columns]
    if unknown:
        raise ValueError(f"unknown column(s) {unknown}; available: {list(df.columns)}")
    twice = sorted({c for c in named if named.count(c) > 1})
    if twice:
        raise ValueError(f"column(s) {twice} are given more than one generalisation")
    out = df.copy()
    for col, spec in ranges.items():
        if np.ndim(spec) == 0:
            out[col] = generalize_numeric(df[col], width=float(spec))  # type: ignore[arg-type]
        else:
            out[col] = generalize_numeric(df[col], bins=list(spec))  # type: ignore[arg-type]
    for col, (hier, levels) in hierarchies.items():
        out[col] = generalize_categorical(df[col], hier, levels)
    for col, keep in prefixes.items():
        out[col] = mask_prefix(df[col], keep)
    for col in suppress:
        out[col] = token
    return out


# ---------------------------------------------------------------------------
# suppression
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Suppression:
    """Result of :func:`suppress_small_classes`: the kept ``table``, ``k`` and the suppression cost."""

    table: pd.DataFrame
    k: int
    n_suppressed: int
    fraction_suppressed: float
    n_classes_suppressed: int


def suppress_small_classes(
    df: pd.DataFrame, quasi_identifiers: Sequence[str], k: int
) -> Suppression:
    """Remove every record whose class has fewer than ``k`` (>= 1) records: the rest is k-anonymous.

    >>> df = pd.DataFrame({"zip": ["1", "1", "2"], "x": [0, 1, 2]})
    >>> s = suppress_small_classes(df, ["zip"], 2)
    >>> s.n_suppressed, s.table["x"].tolist()
    (1, [0, 1])
    """
    qis, _ = check_release(df, quasi_identifiers)
    k = check_int("k", k, low=1)
    cid = class_ids(df, qis)
    sizes = cid.map(cid.value_counts())
    keep = sizes >= k
    n_supp = int((~keep).sum())
    return Suppression(
        table=df.loc[keep.to_numpy()],
        k=k,
        n_suppressed=n_supp,
        fraction_suppressed=n_supp / len(df),
        n_classes_suppressed=int(cid[~keep].nunique()),
    )


def suppress_values(
    df: pd.DataFrame,
    columns: str | Sequence[str],
    mask: pd.Series | np.ndarray | None = None,
    token: str = "*",
) -> pd.DataFrame:
    """Replace attribute values by ``token``: the whole column, or only rows where ``mask`` is true; a copy.

    >>> df = pd.DataFrame({"nat": ["a", "b", "a"]})
    >>> suppress_values(df, "nat", df["nat"] == "b")["nat"].tolist()
    ['a', '*', 'a']
    """
    cols = [columns] if isinstance(columns, str) else list(columns)
    unknown = [c for c in cols if c not in df.columns]
    if unknown:
        raise ValueError(f"unknown column(s) {unknown}; available: {list(df.columns)}")
    out = df.copy()
    if mask is None:
        for c in cols:
            out[c] = token
        return out
    m = np.asarray(mask, dtype=bool)
    if m.shape != (len(df),):
        raise ValueError(f"mask must have one entry per record ({len(df)}), got shape {m.shape}")
    for c in cols:
        out[c] = out[c].astype(object)
        out.loc[m, c] = token
    return out


def generalisation_sweep(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    sensitive_attribute: str,
    levels: Sequence[Mapping[str, Any]],
    *,
    k: int | None = None,
    distance: Distance | None = "auto",
    hierarchy: Hierarchy | None = None,
) -> pd.DataFrame:
    """k, l and t of a table at several generalisation levels, with the cost of suppressing to ``k``.

    Level i is ``generalize(df, **levels[i])`` (``{}`` the original): one row (index ``level``) with the fields of
    :func:`privacy_report` and, given ``k``, ``suppressed`` (fraction) and ``k_after``, ``l_distinct_after``,
    ``l_entropy_after``, ``t_after`` (NaN if nothing is kept). ``distance=None`` skips t.
    """
    if k is not None:
        k = check_int("k", k, low=1)
    rows = []
    for spec in levels:  # one pass per level (a handful), each vectorised
        g = generalize(df, **spec)
        rep = privacy_report(g, quasi_identifiers, sensitive_attribute,
                             distance=distance, hierarchy=hierarchy)
        row: dict[str, Any] = {
            "n_classes": rep.n_classes, "n_unique": rep.n_unique, "k": rep.k,
            "l_distinct": rep.l_distinct, "l_entropy": rep.l_entropy, "t": rep.t,
        }
        if k is not None:
            supp = suppress_small_classes(g, quasi_identifiers, k)
            row["suppressed"] = supp.fraction_suppressed
            if len(supp.table):
                after = privacy_report(supp.table, quasi_identifiers, sensitive_attribute,
                                       distance=distance, hierarchy=hierarchy)
                row.update(k_after=after.k, l_distinct_after=after.l_distinct,
                           l_entropy_after=after.l_entropy, t_after=after.t)
            else:
                row.update(k_after=np.nan, l_distinct_after=np.nan,
                           l_entropy_after=np.nan, t_after=np.nan)
        rows.append(row)
    return pd.DataFrame(rows, index=pd.RangeIndex(len(rows), name="level"))

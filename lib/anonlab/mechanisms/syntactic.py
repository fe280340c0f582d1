"""Syntactic anonymity: what a data owner does to a table before publishing it.

The mechanisms of the "syntactic" privacy models:

- **generalisation**: numeric values into ranges (:func:`generalize_numeric`),
  categorical values up a hierarchy (:func:`generalize_categorical`), strings
  such as ZIP codes by prefix masking (:func:`mask_prefix`), several columns
  at once (:func:`generalize`);
- **suppression**: whole records whose equivalence class is smaller than
  ``k`` (:func:`suppress_small_classes`), or attribute values
  (:func:`suppress_values`);
- the trade-off over a ladder of generalisation levels
  (:func:`generalisation_sweep`: k, l and t at each level and the cost of
  suppressing to k).

Which privacy model the result satisfies (k-anonymity, l-diversity,
t-closeness, the Earth Mover's Distance, equivalence classes) is measured by
:mod:`anonlab.measures.syntactic`. The worked tables of the lecture slides
(CMU 18-734, Fall 2019, *Database privacy: k-anonymity and de-anonymization
attacks*) are in :mod:`anonlab.data.tables`.

Every function works on whole columns (pandas / numpy); none loops over
records.

References
----------
.. [1] L. Sweeney, "k-anonymity: a model for protecting privacy",
   Int. J. Uncertainty, Fuzziness and Knowledge-Based Systems 10(5), 2002.
.. [2] A. Machanavajjhala, D. Kifer, J. Gehrke, M. Venkitasubramaniam,
   "l-diversity: privacy beyond k-anonymity", ACM TKDD 1(1), 2007.
.. [3] S. Bhagavatula (after P. Mardziel and A. Datta), "Database privacy:
   k-anonymity and de-anonymization attacks", CMU 18-734 lecture slides,
   Fall 2019.
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
    """Replace numbers by the range (bucket) that contains them.

    Exactly one of ``width`` or ``bins`` is given.

    - ``width``: equal-width buckets ``[origin + j*width, origin + (j+1)*width)``,
      labelled ``"[20, 30)"``; ``j = floor((x - origin) / width)``.
    - ``bins``: increasing edges ``b_0 < b_1 < ... < b_n``; ``x`` goes to
      ``[b_i, b_{i+1})`` (left-closed, as ``age < 30`` on the slides), labelled
      by ``labels`` (``n`` strings) or ``"[b_i, b_{i+1})"``. Values outside
      ``[b_0, b_n)`` raise ``ValueError``; use ``-inf``/``inf`` edges for
      open-ended ranges.

    Parameters
    ----------
    values : pandas.Series
        Numeric column.
    width : float, optional
        Bucket width (> 0), in the unit of ``values``.
    bins : sequence of float, optional
        Bucket edges, strictly increasing.
    labels : sequence of str, optional
        One label per bucket (only with ``bins``).
    origin : float, default 0
        Left edge of one of the equal-width buckets (only with ``width``).

    Returns
    -------
    pandas.Series
        Ordered categorical of range labels (missing values stay missing),
        same index as ``values``.

    Examples
    --------
    The age ranges of the slides' 4-anonymous table (Fig. 2):

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
    """Replace each value by its ancestor ``levels`` steps up a hierarchy.

    ``g(v) = parent^levels(v)``, stopping at the root (``"*"`` in most
    hierarchies): a value ``levels`` or more steps below the root becomes the
    root. ``levels=0`` leaves the column unchanged. This is the "domain
    generalisation hierarchy" of Sweeney (2002) applied to one attribute.

    Parameters
    ----------
    values : pandas.Series
        Categorical or string column. Missing values stay missing.
    hierarchy : mapping
        Child -> parent mapping or nested tree (see :func:`as_parent_map`).
        Every value in the column must be a node of it.
    levels : int, default 1
        Number of steps up (>= 0).

    Returns
    -------
    pandas.Series
        Strings (object dtype), same index and name as ``values``.

    Examples
    --------
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
    """Keep the first ``keep`` characters of each string, mask the rest.

    ``"13053"`` with ``keep=3`` becomes ``"130**"`` (the ZIP codes of the
    slides' Fig. 2). The masked string has the length of the original.

    Parameters
    ----------
    values : pandas.Series
        Strings (numbers are converted with ``str``; pass ZIP codes as
        strings to keep leading zeros). Missing values stay missing.
    keep : int
        Number of leading characters kept (>= 0).
    mask_char : str, default "*"
        One character.

    Returns
    -------
    pandas.Series
        Strings, same index and name.

    Examples
    --------
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
    """Generalise several columns of a table at once (full-domain recoding).

    Parameters
    ----------
    df : pandas.DataFrame
        The table; it is not modified.
    ranges : mapping, optional
        ``{column: width}`` for equal-width buckets or ``{column: [edges]}``
        (see :func:`generalize_numeric`).
    hierarchies : mapping, optional
        ``{column: (hierarchy, levels)}`` (see :func:`generalize_categorical`).
    prefixes : mapping, optional
        ``{column: keep}`` (see :func:`mask_prefix`).
    suppress : iterable of str
        Columns replaced entirely by ``token`` (attribute suppression, e.g.
        Nationality ``*`` on the slides).
    token : str, default "*"
        The suppression token.

    Returns
    -------
    pandas.DataFrame
        A copy with the named columns generalised; other columns unchanged.

    Examples
    --------
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
    """Result of :func:`suppress_small_classes`.

    Attributes
    ----------
    table : pandas.DataFrame
        The records kept (original index preserved).
    k : int
        The k that was enforced.
    n_suppressed : int
        Records removed.
    fraction_suppressed : float
        ``n_suppressed / n_records`` (the suppression cost).
    n_classes_suppressed : int
        Equivalence classes removed (those of size < k).
    """

    table: pd.DataFrame
    k: int
    n_suppressed: int
    fraction_suppressed: float
    n_classes_suppressed: int


def suppress_small_classes(
    df: pd.DataFrame, quasi_identifiers: Sequence[str], k: int
) -> Suppression:
    """Remove every record whose equivalence class has fewer than ``k`` records.

    After this, every remaining class has at least ``k`` records, so the
    kept table is k-anonymous (Sweeney 2002) unless it is empty. The records
    removed are the price of suppression.

    Parameters
    ----------
    df : pandas.DataFrame
        The (generalised) table.
    quasi_identifiers : sequence of str
        Columns that define the classes.
    k : int
        Minimum class size (>= 1).

    Returns
    -------
    Suppression
        Kept table and suppression cost.

    Examples
    --------
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
    """Replace attribute values by a suppression token.

    With ``mask=None`` the whole column is suppressed (the slides' Nationality
    ``*``); otherwise only the rows where ``mask`` is true (local
    suppression, e.g. of rare values).

    Parameters
    ----------
    df : pandas.DataFrame
        The table; it is not modified.
    columns : str or sequence of str
        Columns to suppress.
    mask : boolean Series or array, optional
        Rows to suppress, aligned with ``df``.
    token : str, default "*"
        Replacement value.

    Returns
    -------
    pandas.DataFrame
        A copy.

    Examples
    --------
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
    """k, l and t of a table at several generalisation levels, with the cost
    of suppressing to ``k``.

    Level ``i`` is the table ``generalize(df, **levels[i])``. For each level
    the result has one row with the fields of :func:`privacy_report`
    (``n_classes``, ``n_unique``, ``k``, ``l_distinct``, ``l_entropy``,
    ``t``) and, if ``k`` is given, the result of
    :func:`suppress_small_classes` at that level: ``suppressed`` (fraction
    of records removed) and ``k_after``, ``l_distinct_after``,
    ``l_entropy_after``, ``t_after`` of the kept table (NaN if nothing is
    kept).

    Parameters
    ----------
    df : pandas.DataFrame
        The original table.
    quasi_identifiers : sequence of str
        The quasi-identifier columns.
    sensitive_attribute : str
        The sensitive column (no missing values).
    levels : sequence of mapping
        Keyword arguments of :func:`generalize` for each level (``{}`` is the
        original table).
    k : int, optional
        Enforce k-anonymity by suppression at each level.
    distance, hierarchy
        For t (see :func:`emd_by_class`); ``distance=None`` skips t.

    Returns
    -------
    pandas.DataFrame
        One row per level, index ``level`` (0, 1, ...).
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

"""Syntactic anonymity: generalisation, suppression and the privacy models.

What a data owner does to a table before publishing it under the "syntactic"
privacy models, and how to measure which model the result satisfies:

- **generalisation**: numeric values into ranges (:func:`generalize_numeric`),
  categorical values up a hierarchy (:func:`generalize_categorical`), strings
  such as ZIP codes by prefix masking (:func:`mask_prefix`), several columns
  at once (:func:`generalize`);
- **suppression**: whole records whose equivalence class is smaller than
  ``k`` (:func:`suppress_small_classes`), or attribute values
  (:func:`suppress_values`);
- **equivalence classes** on a list of quasi-identifiers
  (:func:`equivalence_classes`, one row per class);
- **privacy models**: k-anonymity (Sweeney 2002, :func:`k_anonymity`),
  distinct and entropy l-diversity and recursive (c, l)-diversity
  (Machanavajjhala et al. 2007, :func:`distinct_l_diversity`,
  :func:`entropy_l_diversity`, :func:`recursive_cl_diversity`) and
  t-closeness with the Earth Mover's Distance (Li, Li & Venkatasubramanian
  2007, :func:`t_closeness`, :func:`emd_by_class`), all at once
  (:func:`privacy_report`) and over a ladder of generalisation levels
  (:func:`generalisation_sweep`).

The worked tables of the lecture slides (CMU 18-734, Fall 2019, *Database
privacy: k-anonymity and de-anonymization attacks*) are in
:mod:`anonlab.data.tables`.

Conventions
-----------
An *equivalence class* is the set of records that share the same values on
all quasi-identifiers. Missing quasi-identifier values (NaN) form a class of
their own (``groupby(dropna=False)``): a missing value is something an
attacker sees too. Missing *sensitive* values are rejected with a
``ValueError``; drop or fill them first. Every function works on whole
columns (pandas ``groupby`` / numpy); none loops over records.

References
----------
.. [1] L. Sweeney, "k-anonymity: a model for protecting privacy",
   Int. J. Uncertainty, Fuzziness and Knowledge-Based Systems 10(5), 2002.
.. [2] A. Machanavajjhala, D. Kifer, J. Gehrke, M. Venkitasubramaniam,
   "l-diversity: privacy beyond k-anonymity", ACM TKDD 1(1), 2007.
.. [3] N. Li, T. Li, S. Venkatasubramanian, "t-closeness: privacy beyond
   k-anonymity and l-diversity", ICDE 2007.
.. [4] S. Bhagavatula (after P. Mardziel and A. Datta), "Database privacy:
   k-anonymity and de-anonymization attacks", CMU 18-734 lecture slides,
   Fall 2019.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.special import entr

__all__ = [
    "Distance",
    "Hierarchy",
    "PrivacyReport",
    "Suppression",
    "as_parent_map",
    "class_ids",
    "distinct_l_diversity",
    "emd_by_class",
    "emd_equal",
    "emd_hierarchical",
    "emd_ordered",
    "entropy_l_diversity",
    "equivalence_classes",
    "generalize",
    "generalize_categorical",
    "generalize_numeric",
    "generalisation_sweep",
    "k_anonymity",
    "mask_prefix",
    "privacy_report",
    "recursive_cl_diversity",
    "suppress_small_classes",
    "suppress_values",
    "t_closeness",
]

Distance = Literal["auto", "ordered", "equal", "hierarchical"]
"""Ground distance of the EMD: see :func:`emd_by_class`."""

Hierarchy = Mapping[str, Any]
"""A value hierarchy: either a child -> parent mapping (``{"flu":
"respiratory infection", ...}``, the root has no entry or maps to ``None``)
or a nested tree (``{"root": {"inner": ["leaf", "leaf"]}}``)."""


# ---------------------------------------------------------------------------
# argument checks (messages for the reader, not numpy stack traces)
# ---------------------------------------------------------------------------


def _check_table(df: Any) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")
    if len(df) == 0:
        raise ValueError("the table has no records")
    return df


def _check_qis(df: pd.DataFrame, quasi_identifiers: Any) -> list[str]:
    if isinstance(quasi_identifiers, str):
        quasi_identifiers = [quasi_identifiers]
    qis = list(quasi_identifiers)
    if not qis:
        raise ValueError("quasi_identifiers must name at least one column, got []")
    unknown = [c for c in qis if c not in df.columns]
    if unknown:
        raise ValueError(
            f"unknown quasi-identifier column(s) {unknown}; available: {list(df.columns)}"
        )
    if len(set(qis)) != len(qis):
        raise ValueError(f"quasi_identifiers lists a column twice: {qis}")
    return qis


def _check_sa(df: pd.DataFrame, sensitive_attribute: Any, qis: Sequence[str]) -> str:
    if not isinstance(sensitive_attribute, str) or sensitive_attribute not in df.columns:
        raise ValueError(
            f"unknown sensitive attribute {sensitive_attribute!r}; "
            f"available: {list(df.columns)}"
        )
    if sensitive_attribute in qis:
        raise ValueError(
            f"sensitive attribute {sensitive_attribute!r} is also a quasi-identifier"
        )
    n_missing = int(df[sensitive_attribute].isna().sum())
    if n_missing:
        raise ValueError(
            f"sensitive attribute {sensitive_attribute!r} has {n_missing} missing "
            "value(s); drop or fill them first"
        )
    return sensitive_attribute


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return int(k)


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


def as_parent_map(hierarchy: Hierarchy) -> dict[str, str | None]:
    """Normalise a value hierarchy to a child -> parent mapping.

    Parameters
    ----------
    hierarchy : mapping
        Either a child -> parent mapping (values are ``str`` or ``None``), or a
        nested tree whose values are mappings, lists of leaves, or ``None``
        for a leaf: ``{"root": {"inner": ["leaf1", "leaf2"]}}``.

    Returns
    -------
    dict
        ``{node: parent}`` for every node; the single root maps to ``None``.

    Raises
    ------
    ValueError
        If there is not exactly one root, or a node has a cycle.

    Examples
    --------
    >>> as_parent_map({"*": ["a", "b"]})
    {'*': None, 'a': '*', 'b': '*'}
    """
    if not isinstance(hierarchy, Mapping) or not hierarchy:
        raise ValueError("hierarchy must be a non-empty mapping (child -> parent, or a nested tree)")
    parents: dict[str, str | None] = {}
    if all(v is None or isinstance(v, str) for v in hierarchy.values()) and not all(
        v is None for v in hierarchy.values()
    ):
        for child, parent in hierarchy.items():
            parents[str(child)] = None if parent is None else str(parent)
            if parent is not None:
                parents.setdefault(str(parent), None)
    else:

        def walk(node: Any, parent: str | None) -> None:
            if isinstance(node, Mapping):
                for name, sub in node.items():
                    if str(name) in parents:
                        raise ValueError(f"hierarchy lists node {name!r} twice")
                    parents[str(name)] = parent
                    if sub is not None:
                        walk(sub, str(name))
            elif isinstance(node, (list, tuple, set, frozenset)):
                for leaf in node:
                    if isinstance(leaf, (Mapping, list, tuple)):
                        walk(leaf, parent)
                        continue
                    if str(leaf) in parents:
                        raise ValueError(f"hierarchy lists node {leaf!r} twice")
                    parents[str(leaf)] = parent
            else:
                raise ValueError(f"cannot read hierarchy node {node!r}")

        walk(hierarchy, None)
    roots = [n for n, p in parents.items() if p is None]
    if len(roots) != 1:
        raise ValueError(f"a hierarchy needs exactly one root, found {len(roots)}: {roots}")
    # cycle check: every node must reach the root within len(parents) steps
    for node in parents:
        seen, cur = 0, node
        while parents[cur] is not None:
            cur = parents[cur]  # type: ignore[assignment]
            seen += 1
            if seen > len(parents):
                raise ValueError(f"the hierarchy has a cycle through {node!r}")
    return parents


@dataclass(frozen=True)
class _Tree:
    parents: dict[str, str | None]
    root: str
    depth: dict[str, int]
    leaves: list[str]
    internal: list[str]
    height: dict[str, int]


def _tree(hierarchy: Hierarchy) -> _Tree:
    parents = as_parent_map(hierarchy)
    root = next(n for n, p in parents.items() if p is None)
    depth: dict[str, int] = {}
    for node in parents:
        d, cur = 0, node
        while parents[cur] is not None:
            cur = parents[cur]  # type: ignore[assignment]
            d += 1
        depth[node] = d
    has_child = {p for p in parents.values() if p is not None}
    leaves = [n for n in parents if n not in has_child]
    internal = [n for n in parents if n in has_child]
    # height(N) = length of the longest path from N down to a leaf
    height = {n: 0 for n in parents}
    for leaf in leaves:
        cur, h = leaf, 0
        while parents[cur] is not None:
            cur = parents[cur]  # type: ignore[assignment]
            h += 1
            height[cur] = max(height[cur], h)
    return _Tree(parents, root, depth, leaves, internal, height)


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
    if isinstance(levels, bool) or not isinstance(levels, (int, np.integer)) or levels < 0:
        raise ValueError(f"levels must be an integer >= 0, got {levels!r}")
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
    if isinstance(keep, bool) or not isinstance(keep, (int, np.integer)) or keep < 0:
        raise ValueError(f"keep must be an integer >= 0, got {keep!r}")
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
    _check_table(df)
    qis = _check_qis(df, quasi_identifiers)
    k = _check_k(k)
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


# ---------------------------------------------------------------------------
# equivalence classes
# ---------------------------------------------------------------------------


def class_ids(df: pd.DataFrame, quasi_identifiers: Sequence[str]) -> pd.Series:
    """Number the equivalence classes and give each record its class id.

    Classes are numbered ``0, 1, ...`` in the sorted order of their
    quasi-identifier values (the row order of :func:`equivalence_classes`).

    Returns
    -------
    pandas.Series
        Integer class id per record, same index as ``df``, named ``"class"``.
    """
    _check_table(df)
    qis = _check_qis(df, quasi_identifiers)
    ids = df.groupby(qis, dropna=False, observed=True, sort=True).ngroup()
    return ids.rename("class")


def _counts(
    df: pd.DataFrame, qis: list[str], sa: str
) -> tuple[pd.Series, pd.DataFrame]:
    """Class ids and the (classes x sensitive values) count matrix.

    Columns are the sensitive values present in the table, sorted (numeric
    order; category order for an ordered categorical).
    """
    cid = class_ids(df, qis)
    col = df[sa]
    counts = (
        pd.DataFrame({"class": cid.to_numpy(), "value": col.to_numpy()})
        .groupby(["class", "value"], observed=True, sort=True)
        .size()
        .unstack("value", fill_value=0)
    )
    if isinstance(col.dtype, pd.CategoricalDtype):
        order = [c for c in col.cat.categories if c in counts.columns]
        counts = counts[order]
    return cid, counts


def _entropy(counts: pd.DataFrame) -> pd.Series:
    n = counts.to_numpy(dtype=float)
    p = n / n.sum(axis=1, keepdims=True)
    return pd.Series(entr(p).sum(axis=1), index=counts.index)


def equivalence_classes(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    sensitive_attribute: str | None = None,
    *,
    distance: Distance | None = None,
    hierarchy: Hierarchy | None = None,
) -> pd.DataFrame:
    """One row per equivalence class: its QI values, size and, if a sensitive
    attribute is given, how diverse its sensitive values are.

    For a class ``E`` with sensitive-value counts ``n_1 >= n_2 >= ... >= n_m``
    and ``p_i = n_i / |E|``:

    - ``size`` = ``|E|``;
    - ``n_distinct`` = ``m`` (distinct l-diversity of ``E``);
    - ``entropy`` = ``H(E) = -sum_i p_i ln p_i`` (nats);
    - ``entropy_l`` = ``exp(H(E))`` (entropy l-diversity of ``E``,
      Machanavajjhala et al. 2007);
    - ``top_value``, ``top_share`` = the most frequent sensitive value and
      ``p_1`` (ties broken by value order): an attacker's best guess and its
      posterior probability;
    - ``emd`` (only if ``distance`` is given) = EMD between the class's
      sensitive distribution and the whole table's (see :func:`emd_by_class`).

    Parameters
    ----------
    df : pandas.DataFrame
        The published table.
    quasi_identifiers : sequence of str
        Columns that define the classes.
    sensitive_attribute : str, optional
        Column whose diversity is measured.
    distance : {"auto", "ordered", "equal", "hierarchical"}, optional
        Add the ``emd`` column with this ground distance.
    hierarchy : mapping, optional
        For ``distance="hierarchical"`` (or ``"auto"`` on a categorical).

    Returns
    -------
    pandas.DataFrame
        Index ``class`` (as :func:`class_ids`), columns as above.

    Examples
    --------
    >>> from anonlab.data.tables import inpatient_4_anonymous
    >>> ec = equivalence_classes(inpatient_4_anonymous(),
    ...                          ["zip_code", "age", "nationality"], "condition")
    >>> ec[["zip_code", "age", "size", "n_distinct"]].values.tolist()
    [['130**', '3*', 4, 1], ['130**', '< 30', 4, 2], ['1485*', '≥ 40', 4, 3]]
    """
    _check_table(df)
    qis = _check_qis(df, quasi_identifiers)
    groups = df.groupby(qis, dropna=False, observed=True, sort=True)
    table = groups.size().rename("size").reset_index()
    table.index = pd.RangeIndex(len(table), name="class")
    if sensitive_attribute is None:
        if distance is not None:
            raise ValueError("distance= needs a sensitive_attribute")
        return table
    sa = _check_sa(df, sensitive_attribute, qis)
    _, counts = _counts(df, qis, sa)
    n = counts.to_numpy()
    table["n_distinct"] = (n > 0).sum(axis=1)
    h = _entropy(counts).to_numpy()
    table["entropy"] = h
    table["entropy_l"] = np.exp(h)
    top = n.argmax(axis=1)
    table["top_value"] = counts.columns.to_numpy()[top]
    table["top_share"] = n.max(axis=1) / n.sum(axis=1)
    if distance is not None:
        table["emd"] = emd_by_class(df, qis, sa, distance=distance, hierarchy=hierarchy).to_numpy()
    return table


# ---------------------------------------------------------------------------
# privacy models
# ---------------------------------------------------------------------------


def k_anonymity(df: pd.DataFrame, quasi_identifiers: Sequence[str]) -> int:
    """The k of a table: the size of its smallest equivalence class.

    ``k(T) = min_E |E|`` over the equivalence classes ``E`` of ``T`` on the
    quasi-identifiers. ``T`` is k-anonymous for every ``k <= k(T)``: each
    record is indistinguishable from at least ``k - 1`` others on the
    quasi-identifiers (Sweeney 2002, Definition "k-anonymity"; slides,
    "K-anonymity").

    Parameters
    ----------
    df : pandas.DataFrame
        The published table (at least one record).
    quasi_identifiers : sequence of str
        The quasi-identifier columns.

    Returns
    -------
    int

    Examples
    --------
    >>> from anonlab.data.tables import inpatient_4_anonymous
    >>> k_anonymity(inpatient_4_anonymous(), ["zip_code", "age", "nationality"])
    4
    """
    _check_table(df)
    qis = _check_qis(df, quasi_identifiers)
    return int(df.groupby(qis, dropna=False, observed=True).size().min())


def distinct_l_diversity(
    df: pd.DataFrame, quasi_identifiers: Sequence[str], sensitive_attribute: str
) -> int:
    """The l of distinct l-diversity: the fewest distinct sensitive values in
    any equivalence class.

    ``l(T) = min_E |{ s(t) : t in E }|``. A class with ``l = 1`` is
    homogeneous: its sensitive value is disclosed to anyone who can place a
    target in it (Machanavajjhala et al. 2007, "distinct l-diversity"; slides,
    "L-diversity").

    Parameters
    ----------
    df : pandas.DataFrame
        The published table.
    quasi_identifiers : sequence of str
        The quasi-identifier columns.
    sensitive_attribute : str
        The sensitive column (no missing values).

    Returns
    -------
    int

    Examples
    --------
    >>> from anonlab.data.tables import inpatient_3_diverse
    >>> distinct_l_diversity(inpatient_3_diverse(), ["zip_code", "age", "nationality"],
    ...                      "condition")
    3
    """
    _check_table(df)
    qis = _check_qis(df, quasi_identifiers)
    sa = _check_sa(df, sensitive_attribute, qis)
    return int(df.groupby(qis, dropna=False, observed=True)[sa].nunique().min())


def entropy_l_diversity(
    df: pd.DataFrame, quasi_identifiers: Sequence[str], sensitive_attribute: str
) -> float:
    """The largest l for which the table is entropy l-diverse.

    A class ``E`` is entropy l-diverse if ``H(E) = -sum_s p(E,s) ln p(E,s)
    >= ln l``, with ``p(E,s)`` the fraction of records of ``E`` whose
    sensitive value is ``s`` (Machanavajjhala et al. 2007, "entropy
    l-diversity"). Hence the table's value is

    ``l_ent(T) = min_E exp(H(E))``,

    a real number with ``1 <= l_ent <= l_distinct``; it equals the number of
    distinct values only when they are equally frequent in the worst class.

    Parameters
    ----------
    df : pandas.DataFrame
        The published table.
    quasi_identifiers : sequence of str
        The quasi-identifier columns.
    sensitive_attribute : str
        The sensitive column (no missing values).

    Returns
    -------
    float

    Examples
    --------
    Each class of the slides' 3-diverse table holds 2, 1, 1 of three
    conditions: ``exp(H) = 2^{3/2} = 2.83``.

    >>> from anonlab.data.tables import inpatient_3_diverse
    >>> round(entropy_l_diversity(inpatient_3_diverse(),
    ...                           ["zip_code", "age", "nationality"], "condition"), 3)
    2.828
    """
    _check_table(df)
    qis = _check_qis(df, quasi_identifiers)
    sa = _check_sa(df, sensitive_attribute, qis)
    _, counts = _counts(df, qis, sa)
    return float(np.exp(_entropy(counts).min()))


def recursive_cl_diversity(
    df: pd.DataFrame, quasi_identifiers: Sequence[str], sensitive_attribute: str, l: int
) -> float:
    """The threshold c* of recursive (c, l)-diversity for a given l.

    With the counts of a class sorted in decreasing order ``r_1 >= r_2 >= ...
    >= r_m``, the class is recursive (c, l)-diverse if
    ``r_1 < c (r_l + r_{l+1} + ... + r_m)`` (Machanavajjhala et al. 2007,
    "recursive (c, l)-diversity"). The table is therefore recursive
    (c, l)-diverse exactly for the constants ``c > c*``, with

    ``c* = max_E r_1(E) / (r_l(E) + ... + r_m(E))``,

    and ``c* = inf`` when some class has fewer than ``l`` distinct values.

    Parameters
    ----------
    df : pandas.DataFrame
        The published table.
    quasi_identifiers : sequence of str
        The quasi-identifier columns.
    sensitive_attribute : str
        The sensitive column (no missing values).
    l : int
        The l of the definition (>= 1).

    Returns
    -------
    float
        ``c*``; the table is (c, l)-diverse for every ``c > c*``.

    Examples
    --------
    >>> from anonlab.data.tables import inpatient_3_diverse
    >>> recursive_cl_diversity(inpatient_3_diverse(),
    ...                        ["zip_code", "age", "nationality"], "condition", 2)
    1.0
    """
    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 1:
        raise ValueError(f"l must be an integer >= 1, got {l!r}")
    _check_table(df)
    qis = _check_qis(df, quasi_identifiers)
    sa = _check_sa(df, sensitive_attribute, qis)
    _, counts = _counts(df, qis, sa)
    r = -np.sort(-counts.to_numpy(), axis=1)  # decreasing counts per class
    tail = r[:, l - 1 :].sum(axis=1) if l <= r.shape[1] else np.zeros(len(r))
    with np.errstate(divide="ignore"):
        ratio = np.where(tail > 0, r[:, 0] / np.maximum(tail, 1), np.inf)
    return float(ratio.max())


# ---------------------------------------------------------------------------
# t-closeness and the Earth Mover's Distance
# ---------------------------------------------------------------------------


def _as_2d(p: Any, q: Any) -> tuple[np.ndarray, np.ndarray]:
    p_arr = np.asarray(p, dtype=float)
    q_arr = np.asarray(q, dtype=float)
    if p_arr.shape[-1] != q_arr.shape[-1]:
        raise ValueError(
            f"p and q must be over the same domain: lengths {p_arr.shape[-1]} and {q_arr.shape[-1]}"
        )
    return p_arr, q_arr


def emd_ordered(p: Any, q: Any) -> np.ndarray | float:
    """Earth Mover's Distance with the ordered distance (numeric attributes).

    For a domain of ``m`` ordered values ``v_1 < ... < v_m`` with ground
    distance ``|i - j| / (m - 1)`` (Li et al. 2007, EMD for numerical
    attributes):

    ``EMD(P, Q) = 1/(m-1) * sum_{i=1}^{m} | sum_{j=1}^{i} (p_j - q_j) |``.

    Parameters
    ----------
    p, q : array_like
        Probability vectors over the same ordered domain (last axis); extra
        leading axes are broadcast (one row per class).

    Returns
    -------
    float or numpy.ndarray
        In ``[0, 1]``; 0 when ``m = 1``.

    Examples
    --------
    The slides' class {3K, 5K, 9K} against the nine salaries 3K..11K:

    >>> q = np.full(9, 1 / 9); p = np.zeros(9); p[[0, 2, 6]] = 1 / 3
    >>> round(float(emd_ordered(p, q)), 3)
    0.167
    """
    p_arr, q_arr = _as_2d(p, q)
    diff = p_arr - q_arr
    m = diff.shape[-1]
    if m < 2:  # a single value: nothing to move
        out = np.zeros(diff.shape[:-1])
    else:
        out = np.abs(np.cumsum(diff, axis=-1)).sum(axis=-1) / (m - 1)
    return float(out) if np.ndim(out) == 0 else out


def emd_equal(p: Any, q: Any) -> np.ndarray | float:
    """Earth Mover's Distance with the equal distance (categorical, no hierarchy).

    Every two distinct values are at distance 1 (Li et al. 2007, "equal
    distance"), so the EMD is the total variation distance:

    ``EMD(P, Q) = 1/2 * sum_i |p_i - q_i|``.

    Parameters
    ----------
    p, q : array_like
        Probability vectors over the same domain (last axis).

    Returns
    -------
    float or numpy.ndarray
        In ``[0, 1]``.

    Examples
    --------
    >>> emd_equal([1, 0], [0.5, 0.5])
    0.5
    """
    p_arr, q_arr = _as_2d(p, q)
    out = 0.5 * np.abs(p_arr - q_arr).sum(axis=-1)
    return float(out) if np.ndim(out) == 0 else out


def _hierarchical_matrix(
    extra_leaves: np.ndarray, leaves: Sequence[str], tree: _Tree
) -> np.ndarray:
    """Vectorised hierarchical EMD; ``extra_leaves`` is (classes x leaves) of p - q."""
    nodes = list(tree.parents)
    pos = {n: i for i, n in enumerate(nodes)}
    # descendant-leaf indicator (leaves x nodes): loop over leaves and their
    # ancestors (the size of the hierarchy, not of the table)
    below = np.zeros((len(leaves), len(nodes)))
    for i, leaf in enumerate(leaves):
        cur: str | None = leaf
        while cur is not None:
            below[i, pos[cur]] = 1.0
            cur = tree.parents[cur]
    extra = extra_leaves @ below  # extra(N) = sum of (p - q) over the leaves below N
    # child indicator (nodes x internal nodes)
    child_of = np.zeros((len(nodes), len(tree.internal)))
    ipos = {n: j for j, n in enumerate(tree.internal)}
    for n, parent in tree.parents.items():
        if parent is not None:
            child_of[pos[n], ipos[parent]] = 1.0
    pos_extra = np.clip(extra, 0, None) @ child_of
    neg_extra = np.clip(-extra, 0, None) @ child_of
    big_h = tree.height[tree.root]
    weights = np.array([tree.height[n] / big_h for n in tree.internal])
    return (np.minimum(pos_extra, neg_extra) * weights).sum(axis=1)


def emd_hierarchical(
    p: Mapping[str, float] | pd.Series, q: Mapping[str, float] | pd.Series, hierarchy: Hierarchy
) -> float:
    """Earth Mover's Distance with the hierarchical distance (categorical).

    The ground distance between two leaves ``v_i``, ``v_j`` of a hierarchy of
    height ``H`` is ``level(v_i, v_j) / H``, the height of their lowest common
    ancestor over the height of the tree. The EMD then has the closed form of
    Li, Li & Venkatasubramanian (2007, hierarchical distance):

    - ``extra(N) = p_N - q_N`` for a leaf, ``sum_{C child of N} extra(C)``
      otherwise;
    - ``pos_extra(N) = sum_{C: extra(C) > 0} extra(C)``,
      ``neg_extra(N) = sum_{C: extra(C) < 0} -extra(C)``;
    - ``cost(N) = height(N) / H * min(pos_extra(N), neg_extra(N))``;
    - ``EMD(P, Q) = sum_{N internal} cost(N)``.

    Here ``height(N)`` is the length of the longest path from ``N`` down to a
    leaf and ``H = height(root)``; for a balanced tree (all leaves at the same
    depth) this is the paper's definition.

    Parameters
    ----------
    p, q : mapping or pandas.Series
        Probabilities indexed by leaf value; leaves not listed have
        probability 0. Every key must be a leaf of ``hierarchy``.
    hierarchy : mapping
        Child -> parent mapping or nested tree (see :func:`as_parent_map`).

    Returns
    -------
    float
        In ``[0, 1]``.

    Examples
    --------
    >>> h = {"*": {"a": ["a1", "a2"], "b": ["b1", "b2"]}}
    >>> emd_hierarchical({"a1": 1.0}, {"a2": 1.0}, h)   # siblings: 1/2
    0.5
    >>> emd_hierarchical({"a1": 1.0}, {"b1": 1.0}, h)   # across the root: 1
    1.0
    """
    tree = _tree(hierarchy)
    ps, qs = pd.Series(dict(p), dtype=float), pd.Series(dict(q), dtype=float)
    keys = list(dict.fromkeys([*ps.index, *qs.index]))
    not_leaf = [v for v in keys if v not in tree.leaves]
    if not_leaf:
        raise ValueError(f"value(s) {not_leaf} are not leaves of the hierarchy; leaves: {tree.leaves}")
    diff = ps.reindex(keys, fill_value=0.0) - qs.reindex(keys, fill_value=0.0)
    return float(_hierarchical_matrix(diff.to_numpy()[None, :], keys, tree)[0])


def emd_by_class(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    sensitive_attribute: str,
    *,
    distance: Distance = "auto",
    hierarchy: Hierarchy | None = None,
) -> pd.Series:
    """EMD between each class's sensitive distribution and the whole table's.

    ``D[P_E, Q]`` for every equivalence class ``E``, where ``P_E`` is the
    distribution of the sensitive attribute in ``E`` and ``Q`` its
    distribution in the whole table (Li et al. 2007). The domain is the set
    of sensitive values present in the table.

    Parameters
    ----------
    df : pandas.DataFrame
        The published table.
    quasi_identifiers : sequence of str
        The quasi-identifier columns.
    sensitive_attribute : str
        The sensitive column (no missing values).
    distance : {"auto", "ordered", "equal", "hierarchical"}, default "auto"
        Ground distance. ``"ordered"`` (:func:`emd_ordered`) needs a numeric
        or ordered-categorical column and uses ``m`` = number of distinct
        values in the table; ``"equal"`` (:func:`emd_equal`);
        ``"hierarchical"`` (:func:`emd_hierarchical`) needs ``hierarchy``.
        ``"auto"`` picks ordered for numeric / ordered categorical columns,
        hierarchical when a hierarchy is given, equal otherwise.
    hierarchy : mapping, optional
        Value hierarchy of the sensitive attribute.

    Returns
    -------
    pandas.Series
        Named ``"emd"``, indexed by class id (as :func:`class_ids`).
    """
    _check_table(df)
    qis = _check_qis(df, quasi_identifiers)
    sa = _check_sa(df, sensitive_attribute, qis)
    col = df[sa]
    ordered_ok = pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)
    ordered_ok = ordered_ok or (isinstance(col.dtype, pd.CategoricalDtype) and col.cat.ordered)
    allowed = ("auto", "ordered", "equal", "hierarchical")
    if distance not in allowed:
        raise ValueError(f"distance must be one of {allowed}, got {distance!r}")
    if distance == "auto":
        distance = "ordered" if ordered_ok else ("hierarchical" if hierarchy is not None else "equal")
    if distance == "ordered" and not ordered_ok:
        raise ValueError(
            f"the ordered distance needs a numeric or ordered categorical column; "
            f"{sa!r} has dtype {col.dtype} (use distance='equal' or 'hierarchical')"
        )
    if distance == "hierarchical" and hierarchy is None:
        raise ValueError("distance='hierarchical' needs hierarchy= (child -> parent mapping or tree)")
    _, counts = _counts(df, qis, sa)
    n = counts.to_numpy(dtype=float)
    p_class = n / n.sum(axis=1, keepdims=True)
    q_table = n.sum(axis=0) / n.sum()
    if distance == "ordered":
        d = emd_ordered(p_class, q_table[None, :])
    elif distance == "equal":
        d = emd_equal(p_class, q_table[None, :])
    else:
        tree = _tree(hierarchy)  # type: ignore[arg-type]
        values = [str(v) for v in counts.columns]
        not_leaf = [v for v in values if v not in tree.leaves]
        if not_leaf:
            raise ValueError(
                f"value(s) {not_leaf} of {sa!r} are not leaves of the hierarchy; "
                f"leaves: {tree.leaves}"
            )
        d = _hierarchical_matrix(p_class - q_table[None, :], values, tree)
    return pd.Series(np.asarray(d, dtype=float).reshape(-1), index=counts.index.rename("class"),
                     name="emd")


def t_closeness(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    sensitive_attribute: str,
    *,
    distance: Distance = "auto",
    hierarchy: Hierarchy | None = None,
) -> float:
    """The t of a table: the largest EMD between a class and the whole table.

    ``t(T) = max_E D[P_E, Q]``: the table satisfies t-closeness for every
    threshold ``t >= t(T)`` (Li, Li & Venkatasubramanian 2007, "the
    t-closeness principle"; slides, "T-closeness"). See :func:`emd_by_class`
    for the distances.

    Parameters
    ----------
    df : pandas.DataFrame
        The published table.
    quasi_identifiers : sequence of str
        The quasi-identifier columns.
    sensitive_attribute : str
        The sensitive column (no missing values).
    distance : {"auto", "ordered", "equal", "hierarchical"}, default "auto"
        Ground distance (see :func:`emd_by_class`).
    hierarchy : mapping, optional
        Value hierarchy of the sensitive attribute.

    Returns
    -------
    float

    Examples
    --------
    The slides' t-closeness table (Li et al. 2007, Table 5):

    >>> from anonlab.data.tables import salary_disease_t_close
    >>> round(t_closeness(salary_disease_t_close(), ["zip_code", "age"], "salary"), 3)
    0.167
    """
    return float(
        emd_by_class(
            df, quasi_identifiers, sensitive_attribute, distance=distance, hierarchy=hierarchy
        ).max()
    )


# ---------------------------------------------------------------------------
# all at once
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PrivacyReport:
    """The privacy models a table satisfies (see :func:`privacy_report`)."""

    n_records: int
    n_classes: int
    k: int
    l_distinct: int
    l_entropy: float
    t: float | None
    n_unique: int

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict."""
        return dict(self.__dict__)


def privacy_report(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    sensitive_attribute: str,
    *,
    distance: Distance | None = "auto",
    hierarchy: Hierarchy | None = None,
) -> PrivacyReport:
    """k, distinct l, entropy l and t of a table in one pass over its classes.

    Parameters
    ----------
    df : pandas.DataFrame
        The published table.
    quasi_identifiers : sequence of str
        The quasi-identifier columns.
    sensitive_attribute : str
        The sensitive column (no missing values).
    distance : {"auto", "ordered", "equal", "hierarchical"} or None
        Ground distance for t; ``None`` skips t.
    hierarchy : mapping, optional
        Value hierarchy of the sensitive attribute.

    Returns
    -------
    PrivacyReport
        Also ``n_unique``: records alone in their class (``|E| = 1``).
    """
    ec = equivalence_classes(
        df, quasi_identifiers, sensitive_attribute, distance=distance, hierarchy=hierarchy
    )
    return PrivacyReport(
        n_records=int(ec["size"].sum()),
        n_classes=len(ec),
        k=int(ec["size"].min()),
        l_distinct=int(ec["n_distinct"].min()),
        l_entropy=float(ec["entropy_l"].min()),
        t=None if distance is None else float(ec["emd"].max()),
        n_unique=int((ec["size"] == 1).sum()),
    )


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
        k = _check_k(k)
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

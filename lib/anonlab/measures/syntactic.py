"""Measures of a syntactic release: k-anonymity, l-diversity, t-closeness.

One number per privacy model, computed over the equivalence classes of a published table on its quasi-identifiers:
k-anonymity (L. Sweeney, IJUFKS 10(5), 2002), distinct, entropy and recursive (c, l)-diversity (A. Machanavajjhala et
al., ACM TKDD 1(1), 2007), t-closeness with the ordered, equal and hierarchical Earth Mover's Distance (N. Li, T. Li,
S. Venkatasubramanian, ICDE 2007), and all at once (:func:`privacy_report`). The worked tables of the CMU 18-734
slides (Fall 2019) are in :mod:`anonlab.data.tables`; generalisation is in :mod:`anonlab.mechanisms.syntactic`, the
homogeneity attack in :mod:`anonlab.attacks.homogeneity`. Missing quasi-identifier values form a class of their own
(an attacker sees them too); a missing *sensitive* value is a ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.special import entr

from ..validation import ParameterError, check_column, check_columns, check_int

__all__ = [
    "Distance",
    "Hierarchy",
    "PrivacyReport",
    "as_parent_map",
    "check_release",
    "class_ids",
    "class_row",
    "distinct_l_diversity",
    "emd_by_class",
    "emd_equal",
    "emd_hierarchical",
    "emd_ordered",
    "entropy_l_diversity",
    "equivalence_classes",
    "hierarchy_height",
    "k_anonymity",
    "privacy_report",
    "recursive_cl_diversity",
    "t_closeness",
    "taller_hierarchy",
]

Distance = Literal["auto", "ordered", "equal", "hierarchical"]
"""Ground distance of the EMD: see :func:`emd_by_class`."""

Hierarchy = Mapping[str, Any]
"""A value hierarchy: either a child -> parent mapping (``{"flu":
"respiratory infection", ...}``, the root has no entry or maps to ``None``)
or a nested tree (``{"root": {"inner": ["leaf", "leaf"]}}``). Generalisation
climbs it (:func:`anonlab.mechanisms.syntactic.generalize_categorical`); the
hierarchical ground distance of the EMD is defined on it
(:func:`emd_hierarchical`)."""


# ---------------------------------------------------------------------------
# argument checks (messages for the reader, not numpy stack traces)
# ---------------------------------------------------------------------------


def check_release(
    df: Any, quasi_identifiers: Any, sensitive_attribute: Any = None
) -> tuple[list[str], str | None]:
    """Check a published table, its quasi-identifiers and sensitive attribute; return ``(qis, sensitive)``.

    ``df`` a non-empty DataFrame (else ``TypeError``); at least one quasi-identifier column, none twice (a single name
    is accepted); the sensitive column, if given, exists, is not a quasi-identifier and has no missing value.
    Otherwise a ``ParameterError`` (a ``ValueError``) naming the argument.

    >>> df = pd.DataFrame({"zip": ["130**"], "age": ["3*"], "condition": ["Cancer"]})
    >>> check_release(df, ["zip", "age"], "condition")
    (['zip', 'age'], 'condition')
    >>> check_release(df, ["zip", "age"], "age")
    Traceback (most recent call last):
    ...
    anonlab.validation.ParameterError: parameter 'sensitive_attribute': 'age' is a quasi-identifier; the sensitive attribute must not be one of the quasi-identifiers ['zip', 'age']
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")
    if len(df) == 0:
        raise ValueError("the table has no records")
    if isinstance(quasi_identifiers, str):
        quasi_identifiers = [quasi_identifiers]
    elif isinstance(quasi_identifiers, Iterable) and not isinstance(quasi_identifiers, Mapping):
        quasi_identifiers = list(quasi_identifiers)
    qis = check_columns("quasi_identifiers", quasi_identifiers, df.columns)
    if sensitive_attribute is None:
        return qis, None
    sa = check_column("sensitive_attribute", sensitive_attribute, df.columns)
    if sa in qis:
        raise ParameterError(
            f"parameter 'sensitive_attribute': {sa!r} is a quasi-identifier; the sensitive "
            f"attribute must not be one of the quasi-identifiers {qis}"
        )
    n_missing = int(df[sa].isna().sum())
    if n_missing:
        raise ValueError(
            f"sensitive attribute {sa!r} has {n_missing} missing value(s); drop or fill them first"
        )
    return qis, sa


# ---------------------------------------------------------------------------
# value hierarchies
# ---------------------------------------------------------------------------


def as_parent_map(hierarchy: Hierarchy) -> dict[str, str | None]:
    """A value hierarchy as ``{node: parent}``, the single root mapping to ``None``.

    Takes a child -> parent mapping or a nested tree (``{"root": {"inner": ["leaf1", "leaf2"]}}``, ``None`` for a
    leaf); ``ValueError`` unless there is exactly one root and no cycle.

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


def hierarchy_height(hierarchy: Hierarchy) -> int:
    """The height H of a hierarchy (longest root-to-leaf path), as in :func:`emd_hierarchical`.

    >>> hierarchy_height({"*": {"a": ["a1", "a2"], "b": ["b1"]}})
    2
    >>> from anonlab.data.tables import disease_hierarchy
    >>> hierarchy_height(disease_hierarchy())
    3
    """
    tree = _tree(hierarchy)
    return tree.height[tree.root]


def taller_hierarchy(hierarchy: Hierarchy) -> dict[str, str | None]:
    """The hierarchy with one extra level between each child of the root and the root.

    Siblings 1/3 apart in a tree of height 3 are 1/4 apart in the taller one (chapter 1).

    >>> h = taller_hierarchy({"*": {"a": ["a1", "a2"]}})
    >>> h["a"], h["a (extra level)"], hierarchy_height(h)
    ('a (extra level)', '*', 3)
    """
    parents = as_parent_map(hierarchy)
    root = next(node for node, parent in parents.items() if parent is None)
    taller = dict(parents)
    for child in [node for node, parent in parents.items() if parent == root]:
        taller[child], taller[child + " (extra level)"] = child + " (extra level)", root
    return taller


# ---------------------------------------------------------------------------
# equivalence classes
# ---------------------------------------------------------------------------


def class_ids(df: pd.DataFrame, quasi_identifiers: Sequence[str]) -> pd.Series:
    """Each record's equivalence class id (Series ``"class"``), classes numbered in sorted QI order."""
    qis, _ = check_release(df, quasi_identifiers)
    ids = df.groupby(qis, dropna=False, observed=True, sort=True).ngroup()
    return ids.rename("class")


def _counts(
    df: pd.DataFrame, qis: list[str], sa: str
) -> tuple[pd.Series, pd.DataFrame]:
    """Class ids and the (classes x sensitive values) count matrix, values sorted."""
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
    """One row per equivalence class: its QI values, size and how diverse its sensitive values are.

    With counts n_1 >= ... >= n_m and p_i = n_i / |E|: ``size`` |E|, ``n_distinct`` m, ``entropy`` H = -Σ p_i ln p_i
    (nats), ``entropy_l`` exp(H) (Machanavajjhala et al. 2007), ``top_value``/``top_share`` the attacker's best guess
    and p_1, and with ``distance`` the ``emd`` to the whole table (:func:`emd_by_class`). Index as :func:`class_ids`.

    >>> from anonlab.data.tables import inpatient_4_anonymous
    >>> ec = equivalence_classes(inpatient_4_anonymous(),
    ...                          ["zip_code", "age", "nationality"], "condition")
    >>> ec[["zip_code", "age", "size", "n_distinct"]].values.tolist()
    [['130**', '3*', 4, 1], ['130**', '< 30', 4, 2], ['1485*', '≥ 40', 4, 3]]
    """
    qis, sa = check_release(df, quasi_identifiers, sensitive_attribute)
    groups = df.groupby(qis, dropna=False, observed=True, sort=True)
    table = groups.size().rename("size").reset_index()
    table.index = pd.RangeIndex(len(table), name="class")
    if sa is None:
        if distance is not None:
            raise ValueError("distance= needs a sensitive_attribute")
        return table
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


def class_row(classes: pd.DataFrame, **values: Any) -> pd.Series:
    """The row of an :func:`equivalence_classes` table whose quasi-identifiers have ``values``.

    >>> from anonlab.data import tables
    >>> ec = equivalence_classes(tables.inpatient_4_anonymous(), tables.INPATIENT_QUASI_IDENTIFIERS, "condition")
    >>> class_row(ec, zip_code="130**", age="3*")["top_value"]
    'Cancer'
    """
    unknown = [c for c in values if c not in classes.columns]
    if unknown:
        raise ValueError(f"no column(s) {unknown} in the class table; it has {list(classes.columns)}")
    mask = np.ones(len(classes), dtype=bool)
    for col, value in values.items():
        mask &= (classes[col] == value).to_numpy()
    if not mask.any():
        raise ValueError(f"no equivalence class has {values}")
    return classes.loc[mask].iloc[0]


# ---------------------------------------------------------------------------
# privacy models
# ---------------------------------------------------------------------------


def k_anonymity(df: pd.DataFrame, quasi_identifiers: Sequence[str]) -> int:
    """The k of a table, k(T) = min_E |E|: its smallest equivalence class (Sweeney 2002; slides).

    >>> from anonlab.data.tables import inpatient_4_anonymous
    >>> k_anonymity(inpatient_4_anonymous(), ["zip_code", "age", "nationality"])
    4
    """
    qis, _ = check_release(df, quasi_identifiers)
    return int(df.groupby(qis, dropna=False, observed=True).size().min())


def distinct_l_diversity(
    df: pd.DataFrame, quasi_identifiers: Sequence[str], sensitive_attribute: str
) -> int:
    """Distinct l-diversity: the fewest distinct sensitive values in any class (Machanavajjhala et al. 2007).

    l = 1 means a homogeneous class, whose value anyone who places a target in it learns.

    >>> from anonlab.data.tables import inpatient_3_diverse
    >>> distinct_l_diversity(inpatient_3_diverse(), ["zip_code", "age", "nationality"],
    ...                      "condition")
    3
    """
    qis, sa = check_release(df, quasi_identifiers, sensitive_attribute)
    return int(df.groupby(qis, dropna=False, observed=True)[sa].nunique().min())


def entropy_l_diversity(
    df: pd.DataFrame, quasi_identifiers: Sequence[str], sensitive_attribute: str
) -> float:
    """Entropy l-diversity l = min_E exp(H(E)), H in nats (Machanavajjhala et al. 2007); 1 <= l <= distinct l.

    The slides' 3-diverse table holds 2, 1, 1 of three conditions per class: exp(H) = 2^(3/2).

    >>> from anonlab.data.tables import inpatient_3_diverse
    >>> round(entropy_l_diversity(inpatient_3_diverse(),
    ...                           ["zip_code", "age", "nationality"], "condition"), 3)
    2.828
    """
    qis, sa = check_release(df, quasi_identifiers, sensitive_attribute)
    _, counts = _counts(df, qis, sa)
    return float(np.exp(_entropy(counts).min()))


def recursive_cl_diversity(
    df: pd.DataFrame, quasi_identifiers: Sequence[str], sensitive_attribute: str, l: int
) -> float:
    """The c* of recursive (c, l)-diversity: max_E r_1 / (r_l + ... + r_m), counts sorted decreasing.

    Machanavajjhala et al. 2007: the table is (c, l)-diverse for every c > c*; ``inf`` when a class has fewer than
    ``l`` (>= 1) distinct values.

    >>> from anonlab.data.tables import inpatient_3_diverse
    >>> recursive_cl_diversity(inpatient_3_diverse(),
    ...                        ["zip_code", "age", "nationality"], "condition", 2)
    1.0
    """
    l = check_int("l", l, low=1)
    qis, sa = check_release(df, quasi_identifiers, sensitive_attribute)
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
    """Ordered-distance EMD = 1/(m-1) · Σ_i |Σ_{j<=i} (p_j - q_j)| (Li et al. 2007, numerical attributes).

    Over the last axis (leading axes broadcast, one row per class); in [0, 1], 0 when m = 1. The slides' class {3K,
    5K, 9K} against the nine salaries 3K..11K:

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
    """Equal-distance EMD = ½ Σ |p_i - q_i|, the total variation distance (Li et al. 2007).

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
    """Hierarchical-distance EMD = Σ_{N internal} height(N)/H · min(pos_extra(N), neg_extra(N)).

    The closed form of Li, Li & Venkatasubramanian (2007); extra(N) is p - q at a leaf and summed over children,
    pos/neg_extra sum the positive/negative children; ground distance level(lowest common ancestor) / H. ``p``, ``q``
    map leaves to probabilities (absent ones 0); ``hierarchy`` as :func:`as_parent_map`. In [0, 1].

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
    """EMD D[P_E, Q] between each class's sensitive distribution and the table's (Li et al. 2007).

    ``distance``: ``"ordered"`` (numeric or ordered categorical, m = distinct values in the table), ``"equal"``,
    ``"hierarchical"`` (needs ``hierarchy``) or ``"auto"`` (ordered where it can, hierarchical with a hierarchy, else
    equal). A Series ``"emd"`` indexed by class id.
    """
    qis, sa = check_release(df, quasi_identifiers, sensitive_attribute)
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
    """The t of a table, t(T) = max_E D[P_E, Q] (Li, Li & Venkatasubramanian 2007; slides).

    Distances as in :func:`emd_by_class`. The slides' table (Li et al. 2007, Table 5):

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
    """k, distinct l, entropy l and t (``distance=None`` skips it) of a table in one pass over its classes.

    Also ``n_unique``, the records alone in their class.
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

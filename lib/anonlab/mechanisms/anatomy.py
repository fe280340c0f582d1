"""Anatomy (Xiao & Tao 2006): l-diverse groups published as two separate tables.

X. Xiao and Y. Tao, *Anatomy*, VLDB 2006 (Fig. 3 *Anatomize*), as used by Kifer (2009) and Cormode (2011, §3.1): the n
tuples are split into groups of l (some of l + 1) with no sensitive (SA) value twice in a group, and published as the
QI table (quasi-identifiers and group id) and the SA table (``group, sa, count``), withholding the links; a uniform
adversary believes any association with probability at most 1/l. Feasible for l <= ⌊n / max_s |s|⌋
(:func:`max_l_diversity`; 7 for Adult occupation, Cormode §3.2). Cormode's *larger groups* merge 2 or 3 adjacent
groups (:func:`merge_groups`), still no value above 1/l of its group.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anonlab.validation import check_choice, check_int, check_random_state

__all__ = [
    "TIES",
    "Anatomy",
    "max_l_diversity",
    "anatomize",
    "anatomy_groups",
    "merge_groups",
    "check_anatomy",
    "uniform_belief",
    "anatomy_checks",
    "anatomy_limits",
]


def _check_l(l: int) -> int:  # noqa: E741 - the paper's name
    """``l`` >= 1 (:func:`anonlab.validation.check_int`; numpy integers accepted)."""
    return check_int("l", int(l) if isinstance(l, np.integer) else l, low=1)


def max_l_diversity(sa_values: Sequence | np.ndarray | pd.Series) -> int:
    """Largest l for which Anatomy can make the data l-diverse: ⌊n / max_s |{r: r_s = s}|⌋ (eligibility).

    >>> max_l_diversity(["a", "a", "b", "c", "d"])
    2
    """
    vals = pd.Series(np.asarray(sa_values, dtype=object))
    if len(vals) == 0:
        raise ValueError("no sensitive values given")
    if vals.isna().any():
        raise ValueError("sensitive values must not be missing")
    return int(len(vals) // vals.value_counts().max())


#: How :func:`anatomy_groups` breaks ties between equally large buckets (Xiao & Tao do not say).
TIES: tuple[str, ...] = ("random", "stable")


def anatomy_groups(
    sa_codes: np.ndarray, l: int, *, seed: int | np.random.Generator | None = None,  # noqa: E741
    ties: str = "random",
) -> np.ndarray:
    """Group id (0..G-1) of every tuple under Xiao & Tao's *Anatomize* (Fig. 3).

    While l buckets (one per SA value) are non-empty, a group takes one tuple from each of the l largest; the residual
    tuples join random groups lacking their value. Groups have l or l + 1 tuples with distinct values. ``ties``:
    equally large buckets are drawn at random per group (``"random"``) or by smallest SA code (``"stable"``), a choice
    the paper leaves open. ``seed`` picks the tuples. ``ValueError`` if ``l`` exceeds :func:`max_l_diversity`.
    """
    l = _check_l(l)  # noqa: E741
    sa = np.asarray(sa_codes)
    n = sa.shape[0]
    if n == 0:
        raise ValueError("no tuples to group")
    values, sa_idx = np.unique(sa, return_inverse=True)
    sa_idx = sa_idx.reshape(-1)
    counts = np.bincount(sa_idx, minlength=len(values)).astype(np.int64)
    l_max = int(n // counts.max())
    if l > l_max:
        raise ValueError(
            f"l = {l} is above the largest feasible l-diversity of this data, {l_max} "
            f"(the most frequent sensitive value covers {counts.max()} of {n} tuples, more than n/l)"
        )
    ties = check_choice("ties", ties, TIES)
    rng = check_random_state(seed)
    if l == 1:
        return rng.permutation(n)
    k = len(values)
    g_max = n // l
    if ties == "random":
        tie = rng.random((g_max, k)) * 0.5  # counts are integers: only breaks ties
    else:  # a fixed preference below 1/2: the smallest code first among equal counts
        tie = np.broadcast_to((k - 1 - np.arange(k)) / (2.0 * k), (g_max, k))
    chosen = _choose_buckets(counts, l, tie)
    g = len(chosen)
    # Place tuples: the r-th pick of bucket b takes the r-th tuple of b in a random order.
    order = np.lexsort((rng.random(n), sa_idx))  # tuples by bucket, random within bucket
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    flat_bucket = chosen.ravel()
    flat_group = np.repeat(np.arange(g), l)
    by_bucket = np.argsort(flat_bucket, kind="stable")
    rank = np.empty_like(by_bucket)
    sorted_b = flat_bucket[by_bucket]
    first = np.searchsorted(sorted_b, sorted_b, side="left")
    rank[by_bucket] = np.arange(len(sorted_b)) - first
    group = np.full(n, -1, dtype=np.int64)
    group[order[starts[flat_bucket] + rank]] = flat_group
    # Residual tuples (at most l - 1, distinct SA values): a random group lacking their value.
    # Xiao & Tao pick any such group; we prefer one no other residual tuple joined, so that
    # groups have l or l + 1 tuples as Cormode (§3.1) describes.
    residue = np.flatnonzero(group < 0)
    grown = np.zeros(g, dtype=bool)
    for t in residue:  # at most l - 1 tuples
        ok = ~np.any(chosen == sa_idx[t], axis=1)
        if not ok.any():  # pragma: no cover - impossible under the eligibility condition
            raise RuntimeError("Anatomy could not place a residual tuple")
        best = ok & ~grown
        target = int(rng.choice(np.flatnonzero(best if best.any() else ok)))
        group[t] = target
        grown[target] = True
    return group


def _choose_buckets(counts: np.ndarray, l: int, tie: np.ndarray) -> np.ndarray:  # noqa: E741
    """The buckets of each group of *Anatomize*: the l largest (ties by ``tie[g]``) while l are non-empty.

    Steps whose choice no tie-break can change (an integer gap below the cut) are taken at once; the loop runs on the
    bucket sizes, never on tuples.

    >>> _choose_buckets(np.array([3, 1, 2]), 2, np.array([[0, 0.2, 0.1]] * 3)).tolist()
    [[0, 2], [0, 1], [2, 0]]
    """
    k = len(counts)
    g_max = int(counts.sum()) // l
    chosen = np.empty((g_max, l), dtype=np.int64)
    left = [int(c) for c in counts]
    nonzero = sum(c > 0 for c in left)
    buckets = range(k)
    g = 0
    # k is small (14 for Adult occupation): plain Python on lists beats numpy calls per step
    while g < g_max and nonzero >= l:
        row = tie[g].tolist()
        keys = [c + t for c, t in zip(left, row)]  # the same float64 sums as numpy's left + tie[g]
        order = sorted(buckets, key=keys.__getitem__, reverse=True)
        top = order[:l]
        gap = left[order[l - 1]] - (left[order[l]] if k > l else 0)
        d = min(gap, g_max - g) if gap >= 1 else 1  # gap >= 1: the same l buckets whatever the ties
        chosen[g:g + d] = top
        for b in top:
            left[b] -= d
            nonzero -= left[b] == 0
        g += d
    return chosen[:g]


def merge_groups(group: np.ndarray, multiplier: int) -> np.ndarray:
    """Merge adjacent groups in runs of ``multiplier`` (Cormode 2011, §3.2 *larger groups*): g -> g // multiplier.

    Leftover groups join the last merged group, so none is smaller than ``multiplier`` groups.

    >>> merge_groups(np.array([0, 0, 1, 1, 2, 2, 3, 3, 4, 4]), 2).tolist()
    [0, 0, 0, 0, 1, 1, 1, 1, 1, 1]
    """
    multiplier = check_int("multiplier", int(multiplier) if isinstance(multiplier, np.integer) else multiplier,
                           low=1)
    group = np.asarray(group, dtype=np.int64)
    n_groups = int(group.max()) + 1
    n_new = max(n_groups // multiplier, 1)
    return np.minimum(group // multiplier, n_new - 1)


@dataclass(frozen=True, eq=False)
class Anatomy:
    """An Anatomy release: each tuple's ``group``, the QI table ``qit`` and the SA table ``st``.

    ``multiplier`` is 1 for Anatomy's own groups, 2 or 3 after :func:`merge_groups`.
    """

    l: int
    multiplier: int
    group: np.ndarray
    qit: pd.DataFrame
    st: pd.DataFrame
    sensitive: str

    @property
    def n_groups(self) -> int:
        """Number of groups."""
        return int(self.group.max()) + 1

    @property
    def group_sizes(self) -> np.ndarray:
        """Tuples per group."""
        return np.bincount(self.group)

    def merged(self, multiplier: int) -> Anatomy:
        """The same release with adjacent groups merged (``multiplier`` of them at a time)."""
        if self.multiplier != 1:
            raise ValueError("merge the tight release, not an already merged one")
        group = merge_groups(self.group, multiplier)
        return _release(self.qit.drop(columns="group"), self.st, self.group, group, self.l,
                        multiplier, self.sensitive)


def _release(qi: pd.DataFrame, st_tight: pd.DataFrame | None, old_group: np.ndarray | None,
             group: np.ndarray, l: int, multiplier: int, sensitive: str,  # noqa: E741
             sa: pd.Series | None = None) -> Anatomy:
    qit = qi.reset_index(drop=True).copy()
    qit["group"] = group
    if sa is None:  # rebuild the ST of merged groups from the tight ST
        assert st_tight is not None and old_group is not None
        mapping = pd.Series(group).groupby(old_group).first()
        st = st_tight.assign(group=st_tight["group"].map(mapping))
        st = st.groupby(["group", sensitive], sort=True, as_index=False)["count"].sum()
    else:
        st = (pd.DataFrame({"group": group, sensitive: sa.to_numpy()})
              .groupby(["group", sensitive], sort=True).size().rename("count").reset_index())
    return Anatomy(l=l, multiplier=multiplier, group=group, qit=qit, st=st, sensitive=sensitive)


def anatomize(
    df: pd.DataFrame,
    sensitive: str,
    l: int,  # noqa: E741
    *,
    quasi_identifiers: Sequence[str] | None = None,
    seed: int | np.random.Generator | None = None,
) -> Anatomy:
    """Anatomize a table (Xiao & Tao 2006): l-diverse groups, QIT and ST (QIs default to every other column).

    >>> df = pd.DataFrame({"age": [30, 40, 50, 60], "disease": ["flu", "flu", "hiv", "cold"]})
    >>> a = anatomize(df, "disease", 2, seed=0)
    >>> a.group_sizes.tolist()
    [2, 2]
    """
    if sensitive not in df.columns:
        raise ValueError(f"unknown sensitive attribute {sensitive!r}; available: {list(df.columns)}")
    qis = [c for c in df.columns if c != sensitive] if quasi_identifiers is None else list(quasi_identifiers)
    unknown = [c for c in qis if c not in df.columns]
    if unknown:
        raise ValueError(f"unknown quasi-identifier(s) {unknown}; available: {list(df.columns)}")
    sa = df[sensitive]
    if sa.isna().any():
        raise ValueError(f"sensitive attribute {sensitive!r} has missing values; drop those tuples first")
    codes = pd.factorize(sa, sort=True)[0]
    group = anatomy_groups(codes, l, seed=seed)
    return _release(df[qis], None, None, group, int(l), 1, sensitive, sa=sa)


def check_anatomy(group: np.ndarray, sa_codes: np.ndarray, l: int) -> dict[str, object]:  # noqa: E741
    """Check a grouping against Anatomy's promises: a dict of sizes, repeats, shares, ``tight``, ``l_diverse``.

    ``max_repeats``/``max_share``: the most one SA value occurs in a group; ``tight``: every group has l or l + 1
    distinct values; ``l_diverse``: ``max_share <= 1/l``.
    """
    l = _check_l(l)  # noqa: E741
    group = np.asarray(group, dtype=np.int64)
    sa = pd.factorize(np.asarray(sa_codes))[0]
    k = int(sa.max()) + 1
    table = np.bincount(group * k + sa, minlength=(int(group.max()) + 1) * k).reshape(-1, k)
    sizes = table.sum(axis=1)
    max_rep = int(table.max())
    max_share = float((table.max(axis=1) / sizes).max())
    return {
        "min_size": int(sizes.min()),
        "max_size": int(sizes.max()),
        "max_repeats": max_rep,
        "max_share": max_share,
        "tight": bool(sizes.min() >= l and sizes.max() <= l + 1 and max_rep == 1),
        "l_diverse": bool(max_share <= 1.0 / l + 1e-12),
    }


def uniform_belief(group: np.ndarray, sa_codes: np.ndarray) -> np.ndarray:
    """Largest belief of the uniform adversary per tuple: max_s |{s in g}| / |g| (Cormode 2011, §3.1)."""
    group = np.asarray(group, dtype=np.int64)
    sa = pd.factorize(np.asarray(sa_codes))[0]
    k = int(sa.max()) + 1
    table = np.bincount(group * k + sa, minlength=(int(group.max()) + 1) * k).reshape(-1, k)
    per_group = table.max(axis=1) / table.sum(axis=1)
    return per_group[group]


def anatomy_checks(sa_codes: np.ndarray, l_grid: Sequence[int], multipliers: Sequence[int],
                   seed: int | np.random.Generator | None = None) -> pd.DataFrame:
    """Anatomy's promises at every l and group size: :func:`check_anatomy` and the uniform adversary's belief.

    One row per (l, multiplier), groups drawn afresh from ``seed`` for each l.
    """
    rows = []
    for l in l_grid:  # noqa: E741
        g = anatomy_groups(sa_codes, l, seed=seed)
        for mult in multipliers:
            gg = g if mult == 1 else merge_groups(g, mult)
            rep = check_anatomy(gg, sa_codes, l)
            rows.append({"l": l, "multiplier": mult, "groups": int(gg.max()) + 1, **rep,
                         "max uniform belief": float(uniform_belief(gg, sa_codes).max()), "1/l": 1 / l})
    return pd.DataFrame(rows)


def anatomy_limits(sa_codes: np.ndarray) -> tuple[int, float]:
    """Anatomy's limits on a table: the largest feasible l (:func:`max_l_diversity`) and the top SA value's share."""
    codes = np.asarray(sa_codes)
    return max_l_diversity(codes), float(np.bincount(codes).max() / codes.size)

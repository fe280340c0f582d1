"""Differentially private release of the counts a Naive-Bayes classifier needs.

Cormode (2011), *Personal privacy vs population privacy*, §2.1-2.2: one non-adaptive batch of count queries, query (1)
c_i(v, s) = |{r : r_i = v ∧ r_s = s}| for every QI i = 1..m, value v and sensitive value s, optionally with the
marginal |{r : r_s = s}|. Each tuple is counted once per table, so the L1 sensitivity is s_q = m (m + 1 with the
marginal, which Cormode does not ask). Noise: two-sided geometric, α = exp(-ε/s_q) (Ghosh, Roughgarden & Sundararajan
2009), or Laplace with scale s_q/ε (Dwork et al. 2006). :class:`EncodedTable` is the integer coding that the query and
the naive and deFinetti attacks share.

>>> import pandas as pd
>>> df = pd.DataFrame({"sex": ["F", "M", "F"], "job": ["a", "b", "b"]})
>>> t = encode_table(df, ["sex"], "job")
>>> pair_counts(t)
array([[1, 1],
       [0, 1]])
>>> query_sensitivity(t.m)
1
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from anonlab.validation import check_choice, check_int, check_number, check_random_state
from anonlab.intervals import t_half_width

__all__ = [
    "CORNER_HALF_WIDTH",
    "corner_means",
    "MISSING",
    "EncodedTable",
    "NoisyCounts",
    "encode_table",
    "encode_train_test",
    "pair_counts",
    "sa_marginal",
    "query_sensitivity",
    "measured_sensitivity",
    "geometric_alpha",
    "two_sided_geometric",
    "laplace_noise",
    "expected_abs_noise",
    "noise_by_epsilon",
    "noise_check",
    "release_counts",
]

NoiseKind = Literal["geometric", "laplace"]
NOISE_KINDS: tuple[str, ...] = ("geometric", "laplace")

MISSING = "?"
"""Label given to a missing quasi-identifier value: Cormode keeps tuples with
missing QI values (§2.3), so a missing value is one more category."""


# ---------------------------------------------------------------------------
# argument checks
# ---------------------------------------------------------------------------


def _scalar(value: object) -> object:
    """A numpy scalar as the Python number it holds (the public checks take Python numbers)."""
    return value.item() if isinstance(value, (np.integer, np.floating)) else value


def _check_epsilon(epsilon: float) -> float:
    """ε > 0 (:func:`anonlab.validation.check_number`); ``math.inf`` means no noise."""
    epsilon = _scalar(epsilon)
    if isinstance(epsilon, float) and epsilon == math.inf:
        return math.inf
    return check_number("epsilon", epsilon, low=0, low_inclusive=False)


def _check_sensitivity(sensitivity: float) -> float:
    return check_number("sensitivity", _scalar(sensitivity), low=0, low_inclusive=False)


# ---------------------------------------------------------------------------
# the encoded table
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class EncodedTable:
    """A table's m quasi-identifiers and its sensitive attribute (SA) as integer codes.

    Code ``c`` of QI ``i`` means ``qi_domains[i][c]``, SA code ``s`` means ``sa_domain[s]`` (labels as strings);
    ``qi_codes`` has shape (n, m), ``sa_codes`` (n,).
    """

    qi_names: tuple[str, ...]
    sa_name: str
    qi_domains: tuple[np.ndarray, ...]
    sa_domain: np.ndarray
    qi_codes: np.ndarray
    sa_codes: np.ndarray

    @property
    def n(self) -> int:
        """Number of tuples."""
        return int(self.sa_codes.shape[0])

    @property
    def m(self) -> int:
        """Number of quasi-identifiers."""
        return len(self.qi_names)

    @property
    def n_sa(self) -> int:
        """Size of the SA domain, |SA|."""
        return len(self.sa_domain)

    @property
    def cardinalities(self) -> np.ndarray:
        """Domain size |T_i| of each QI."""
        return np.array([len(d) for d in self.qi_domains], dtype=np.int64)

    @property
    def offsets(self) -> np.ndarray:
        """Row where each QI's block starts in the stacked count table (length m + 1)."""
        return np.concatenate([[0], np.cumsum(self.cardinalities)])

    @property
    def n_cells(self) -> int:
        """Rows of the stacked count table, Σ_i |T_i|."""
        return int(self.cardinalities.sum())

    @property
    def cell_codes(self) -> np.ndarray:
        """Row of the stacked count table that each tuple hits for each QI, shape (n, m)."""
        return self.qi_codes + self.offsets[:-1][None, :]

    def subset(self, rows: np.ndarray) -> EncodedTable:
        """The same coding restricted to some rows (an index or boolean mask)."""
        return EncodedTable(self.qi_names, self.sa_name, self.qi_domains, self.sa_domain,
                            self.qi_codes[rows], self.sa_codes[rows])

    def with_qis(self, names: Sequence[str]) -> EncodedTable:
        """The same table with only some of its quasi-identifiers (in the given order)."""
        idx = [self.qi_names.index(q) for q in names]
        return EncodedTable(tuple(names), self.sa_name, tuple(self.qi_domains[i] for i in idx),
                            self.sa_domain, self.qi_codes[:, idx], self.sa_codes)


def _labels(series: pd.Series) -> pd.Series:
    return series.astype(object).where(series.notna(), MISSING).astype(str)


def encode_table(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    sensitive: str,
    *,
    domains: Mapping[str, Sequence[str]] | None = None,
) -> EncodedTable:
    """Code a table's quasi-identifiers and sensitive attribute as integers (an :class:`EncodedTable`).

    A missing QI value becomes the category :data:`MISSING` (``"?"``), as Cormode keeps such tuples (§2.3); a missing
    sensitive value is an error. ``domains`` gives public domains (default: sorted values present); a value outside
    raises ``ValueError``.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")
    qis = [quasi_identifiers] if isinstance(quasi_identifiers, str) else list(quasi_identifiers)
    if not qis:
        raise ValueError("quasi_identifiers must name at least one column, got []")
    unknown = [c for c in [*qis, sensitive] if c not in df.columns]
    if unknown:
        raise ValueError(f"unknown attribute(s) {unknown}; available: {list(df.columns)}")
    if sensitive in qis:
        raise ValueError(f"sensitive attribute {sensitive!r} is also a quasi-identifier")
    if len(set(qis)) != len(qis):
        raise ValueError(f"quasi_identifiers lists a column twice: {qis}")
    n_missing = int(df[sensitive].isna().sum())
    if n_missing:
        raise ValueError(
            f"sensitive attribute {sensitive!r} has {n_missing} missing value(s); drop those tuples first"
        )
    domains = dict(domains or {})

    def code(col: str) -> tuple[np.ndarray, np.ndarray]:
        labels = _labels(df[col])
        if col in domains:
            dom = np.asarray([str(v) for v in domains[col]], dtype=object)
            if len(set(dom)) != len(dom):
                raise ValueError(f"the domain given for {col!r} lists a value twice")
        else:
            dom = np.asarray(sorted(labels.unique()), dtype=object)
        cat = pd.Categorical(labels, categories=list(dom))
        codes = np.asarray(cat.codes, dtype=np.int64)
        if (codes < 0).any():
            bad = sorted(set(labels[codes < 0]))[:5]
            raise ValueError(f"column {col!r} has value(s) {bad} outside the domain given for it")
        return dom, codes

    qi_domains, qi_codes = [], []
    for q in qis:
        dom, codes = code(q)
        qi_domains.append(dom)
        qi_codes.append(codes)
    sa_domain, sa_codes = code(sensitive)
    return EncodedTable(
        qi_names=tuple(qis),
        sa_name=sensitive,
        qi_domains=tuple(qi_domains),
        sa_domain=sa_domain,
        qi_codes=np.stack(qi_codes, axis=1) if qi_codes else np.empty((len(df), 0), np.int64),
        sa_codes=sa_codes,
    )


def encode_train_test(
    train: pd.DataFrame,
    test: pd.DataFrame | None,
    quasi_identifiers: Sequence[str],
    sensitive: str,
) -> tuple[EncodedTable, EncodedTable | None]:
    """Code a training and an optional test table alike: (train, test or None).

    Drops tuples with a missing sensitive value (Cormode 2011 §2.3: 30,718 Adult training tuples remain for
    occupation); each column's domain is the union of both tables.
    """
    cols = [*quasi_identifiers, sensitive]
    frames = [train] if test is None else [train, test]
    for f in frames:
        missing = [c for c in cols if c not in f.columns]
        if missing:
            raise ValueError(f"unknown attribute(s) {missing}; available: {list(f.columns)}")
    frames = [f[f[sensitive].notna()] for f in frames]
    domains = {c: sorted(set().union(*(set(_labels(f[c])) for f in frames))) for c in cols}
    tables = [encode_table(f, quasi_identifiers, sensitive, domains=domains) for f in frames]
    return tables[0], (tables[1] if test is not None else None)


# ---------------------------------------------------------------------------
# the count query and its sensitivity
# ---------------------------------------------------------------------------


def pair_counts(table: EncodedTable) -> np.ndarray:
    """Exact answers of Cormode's query (1), c_i(v, s), as the m tables stacked (n_cells, n_sa).

    Rows ``table.offsets[i]:table.offsets[i+1]`` hold QI ``i``.
    """
    flat = (table.cell_codes * table.n_sa + table.sa_codes[:, None]).ravel()
    counts = np.bincount(flat, minlength=table.n_cells * table.n_sa)
    return counts.reshape(table.n_cells, table.n_sa)


def sa_marginal(table: EncodedTable) -> np.ndarray:
    """Counts of each sensitive value, |{r : r_s = s}| (§2.2)."""
    return np.bincount(table.sa_codes, minlength=table.n_sa)


def query_sensitivity(m: int, *, include_sa_marginal: bool = False) -> int:
    """L1 sensitivity of the Naive-Bayes count query (Cormode 2011, §2.2): m, or m + 1 with the marginal.

    >>> query_sensitivity(5), query_sensitivity(5, include_sa_marginal=True)
    (5, 6)
    """
    m = check_int("m", _scalar(m), low=1)  # the number of quasi-identifiers
    return m + (1 if include_sa_marginal else 0)


def measured_sensitivity(
    table: EncodedTable, rows: Sequence[int] | np.ndarray, *, include_sa_marginal: bool = False
) -> int:
    """The largest ||q(T) - q(T - {r})||₁ over the tuples in ``rows``: a brute-force :func:`query_sensitivity`."""
    rows = np.asarray(rows, dtype=np.int64)
    if rows.size == 0:
        raise ValueError("rows must name at least one tuple")

    def answer(t: EncodedTable) -> np.ndarray:
        parts = [pair_counts(t).ravel()]
        if include_sa_marginal:
            parts.append(sa_marginal(t))
        return np.concatenate(parts)

    full = answer(table)
    keep = np.ones(table.n, dtype=bool)
    worst = 0
    for r in rows:  # a deliberate brute force over a handful of neighbours
        keep[r] = False
        worst = max(worst, int(np.abs(full - answer(table.subset(keep))).sum()))
        keep[r] = True
    return worst


# ---------------------------------------------------------------------------
# noise
# ---------------------------------------------------------------------------


def geometric_alpha(epsilon: float, sensitivity: float) -> float:
    """Parameter of the two-sided geometric mechanism, α = exp(-ε / s_q) (§2.1).

    >>> round(geometric_alpha(1.0, 5), 4)
    0.8187
    """
    return math.exp(-_check_epsilon(epsilon) / _check_sensitivity(sensitivity))


def two_sided_geometric(
    alpha: float, size: int | tuple[int, ...], seed: int | np.random.Generator | None = None
) -> np.ndarray:
    """Two-sided geometric noise, Pr[Z = k] = (1 - α)/(1 + α) · α^|k| (Ghosh et al. 2009; Cormode §2.1).

    The difference of two geometric draws; ``alpha`` in [0, 1), 0 for no noise; int64.
    """
    if not (isinstance(alpha, (int, float, np.floating)) and 0.0 <= float(alpha) < 1.0):
        raise ValueError(f"alpha must be in [0, 1), got {alpha!r}")
    g = check_random_state(seed)
    if alpha == 0:
        return np.zeros(size, dtype=np.int64)
    p = 1.0 - float(alpha)
    return g.geometric(p, size=size).astype(np.int64) - g.geometric(p, size=size).astype(np.int64)


def laplace_noise(
    scale: float, size: int | tuple[int, ...], seed: int | np.random.Generator | None = None
) -> np.ndarray:
    """Laplace noise with density e^(-|x|/b) / 2b, b = ``scale`` = s_q/ε."""
    if not (isinstance(scale, (int, float, np.floating)) and math.isfinite(scale) and scale >= 0):
        raise ValueError(f"scale must be a finite number >= 0, got {scale!r}")
    return check_random_state(seed).laplace(0.0, float(scale), size=size)


def expected_abs_noise(epsilon: float, sensitivity: float, noise: NoiseKind = "geometric") -> float:
    """Mean |noise| per count: 2α / (1 - α²) for the geometric (α = e^(-ε/s_q)), s_q/ε for Laplace.

    >>> round(expected_abs_noise(1.0, 3), 2)
    2.95
    """
    check_choice("noise", noise, NOISE_KINDS)
    if noise == "laplace":
        return _check_sensitivity(sensitivity) / _check_epsilon(epsilon)
    a = geometric_alpha(epsilon, sensitivity)
    return 2.0 * a / (1.0 - a * a)


def noise_by_epsilon(epsilons: Sequence[float], ms: Sequence[int], noise: NoiseKind = "geometric") -> pd.DataFrame:
    """Mean absolute noise per count (:func:`expected_abs_noise`) per ε (rows) and sensitivity m (columns ``m = ...``).

    >>> noise_by_epsilon([1.0], [3]).round(2).to_dict("list")
    {'epsilon': [1.0], 'm = 3': [2.95]}
    """
    rows = [{"epsilon": float(e), **{f"m = {m}": expected_abs_noise(e, m, noise) for m in ms}} for e in epsilons]
    return pd.DataFrame(rows)


@dataclass(frozen=True, eq=False)
class NoisyCounts:
    """What the data owner publishes: ``counts`` (draws, n_cells, n_sa), noisy answers of query (1).

    Negative values are published as drawn (the attacker clamps them); ``epsilon`` ``inf`` means exact counts;
    ``sensitivity`` is the s_q of the noise.
    """

    counts: np.ndarray
    epsilon: float
    sensitivity: int
    noise: str
    offsets: np.ndarray

    @property
    def draws(self) -> int:
        """Number of independent releases."""
        return int(self.counts.shape[0])


def release_counts(
    table: EncodedTable,
    epsilon: float,
    *,
    noise: NoiseKind = "geometric",
    draws: int = 1,
    sensitivity: int | None = None,
    seed: int | np.random.Generator | None = None,
) -> NoisyCounts:
    """Answer query (1) under ε-differential privacy (Cormode 2011, §2.1-2.2): a :class:`NoisyCounts`.

    Independent geometric (α = e^(-ε/s_q)) or Laplace (scale s_q/ε) noise on every count, s_q = m by default;
    ``epsilon=math.inf`` releases the exact counts; ``draws`` independent releases.
    """
    eps = _check_epsilon(epsilon)
    check_choice("noise", noise, NOISE_KINDS)
    draws = check_int("draws", _scalar(draws), low=1)
    s_q = query_sensitivity(table.m) if sensitivity is None else int(_check_sensitivity(sensitivity))
    exact = pair_counts(table)
    shape = (int(draws), *exact.shape)
    if math.isinf(eps):
        counts = np.broadcast_to(exact, shape).copy()
    elif noise == "geometric":
        counts = exact[None] + two_sided_geometric(geometric_alpha(eps, s_q), shape, seed)
    else:
        counts = exact[None] + laplace_noise(s_q / eps, shape, seed)
    return NoisyCounts(counts=counts, epsilon=eps, sensitivity=s_q, noise=noise,
                       offsets=table.offsets)


def noise_check(table: EncodedTable, seed: int | np.random.Generator,
                n_removed: int = 20, corner_draws: int = 100_000) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The count query's sensitivity, derived and measured, and the noise at the corners of Cormode's §2.2.

    From one generator: ``n_removed`` tuples for :func:`measured_sensitivity`, then
    ``corner_draws`` geometric values at each (ε, m) in {1, 0.1} × {3, 10}, with their mean
    |value| and the half-width of its 95 % Student-t interval. Returns (sensitivity, corners).
    """
    rng = check_random_state(seed)
    rows = rng.choice(table.n, size=min(n_removed, table.n), replace=False)
    sens = pd.DataFrame([{
        "answer vector": label, "derived (§2.2)": query_sensitivity(table.m, include_sa_marginal=marg),
        "measured: max L1 change when one tuple is removed": measured_sensitivity(table, rows,
                                                                                  include_sa_marginal=marg),
    } for label, marg in [("joint counts + SA marginal", True), ("joint counts only (the attack)", False)]])
    rows_out = []
    for e in (1.0, 0.1):
        for m in (3, 10):
            z = np.abs(two_sided_geometric(geometric_alpha(e, m), corner_draws, rng))
            rows_out.append({"epsilon": e, "m": m, "alpha": geometric_alpha(e, m),
                             "E|noise| (formula)": expected_abs_noise(e, m),
                             f"mean |noise| ({corner_draws:,} draws)": z.mean(),
                             CORNER_HALF_WIDTH: t_half_width(float(z.std(ddof=1)) if corner_draws > 1
                                                             else math.nan, corner_draws)})
    return sens, pd.DataFrame(rows_out)


#: The column of :func:`noise_check`'s corners with the half-width of the mean's 95% interval.
CORNER_HALF_WIDTH = "± (95% interval of the mean)"


def corner_means(corners: pd.DataFrame) -> pd.Series:
    """The simulated mean |noise| of each corner of :func:`noise_check` (its one such column)."""
    (col,) = [c for c in corners.columns if str(c).startswith("mean |noise|")]
    return corners[col]

"""Noise-exploitation attacks on Diffix (Gadotti et al. 2019).

A. Gadotti, F. Houssiau, L. Rocher, B. Livshits, Y.-A. de Montjoye, *When the
signal is in the noise: exploiting Diffix's sticky noise*, USENIX Security
2019 (cited below as [G19]). Every attack talks to the data only through a
:class:`anonlab.mechanisms.diffix.DiffixProxy`, so its queries are counted
and logged by the proxy.

The differential attack (§3.1)
------------------------------
For a victim unique on her known attributes ``A = {a_1..a_k}``, the pair

``Q_j = count(AND_{i != j} a_i = x_i AND s = 0)`` and
``Q'_j = count(AND_{i != j} a_i = x_i AND a_j <> x_j AND s = 0)``

differs only by the victim, if her secret is 0. Sticky noise cancels in the
difference except for the negated condition, so (Eq. 6)

``q_j = Q_j - Q'_j ~ N(0, 2)`` if ``x^(s) = 1``, ``N(1, 2k + 2)`` if ``x^(s) = 0``,

and the ``s = 1`` pairs give ``r_j`` with the roles swapped. A likelihood
ratio test over the 2k samples decides (App. A):
:func:`differential_attack`, :func:`full_differential_attack` (subset
exploration with a uniqueness oracle), :func:`likelihood_ratio_test`, and the
test's accuracy ``acc(k)``: exactly by Imhof's method for the linear
combination of non-central chi-square variables (:func:`theoretical_accuracy`),
by Monte Carlo (:func:`monte_carlo_accuracy`) and with rounded outputs
(:func:`simulated_accuracy_rounding`).

The cloning attack (§3.2)
-------------------------
Dummy conditions ``Delta_j`` (here ``d <> b_j`` for an attribute ``d`` in
``A'`` with ``b_j != x^(d)``) change the noise but not the query set. With

``Q_j = count(A' = x^(A') AND_{l != j} Delta_l AND s = v)`` and
``Q'_j = count(A' = x^(A') AND_{l != j} Delta_l AND u <> x^(u) AND s = v)``

(Eqs. 12-13) the differences ``q_j`` are all equal when the two query sets
coincide, i.e. when the victim (value-unique on ``(A', u)``) has ``x^(s) !=
v``, and scatter otherwise; the sample variance against a cut-off ``sigma*``
decides: :func:`cloning_attack`, the validation tests
:func:`no_bucket_suppression` and :func:`value_unique`, the full attack with
subset exploration :func:`full_cloning_attack` (optionally the double test of
§5) and the query-frugal :func:`greedy_select_subset` /
:func:`greedy_full_cloning_attack` (App. B).

Experiments
-----------
:func:`run_differential_experiment` and :func:`run_cloning_experiment` attack
many users of a :class:`~anonlab.data.diffix_datasets.DiffixDataset` and
return one row per user; :func:`summarize_differential` and
:func:`summarize_cloning` turn them into the paper's quantities with Wilson
intervals.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import integrate, stats

from anonlab.mechanisms.diffix import DiffixProxy

__all__ = [
    "LRTestParameters",
    "differential_distributions",
    "log_likelihood_ratio",
    "likelihood_ratio_test",
    "chi2_combination",
    "imhof_sf",
    "lr_test_error",
    "theoretical_accuracy",
    "monte_carlo_accuracy",
    "simulated_accuracy_rounding",
    "accuracy_curves",
    "run_complete_k",
    "differential_sample_moments",
    "DifferentialOutcome",
    "differential_attack",
    "differential_attack_many",
    "UniquenessOracle",
    "subsets_by_decreasing_size",
    "FullDifferentialOutcome",
    "full_differential_attack",
    "dummy_values",
    "CloningQueries",
    "cloning_queries",
    "no_bucket_suppression",
    "value_unique",
    "cloning_inference",
    "cloning_attack",
    "FullCloningOutcome",
    "full_cloning_attack",
    "greedy_select_subset",
    "greedy_full_cloning_attack",
    "greedy_query_bound",
    "cloning_miss_probability",
    "run_differential_experiment",
    "run_cloning_experiment",
    "summarize_differential",
    "summarize_cloning",
    "majority_baseline",
    "inference_yardstick",
    "progress_printer",
]

# ---------------------------------------------------------------------------
# The likelihood-ratio test and its accuracy (§3.1, Appendix A)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LRTestParameters:
    """The two normal distributions the test separates ([G19] App. A).

    ``f = N(mu0, var0)`` and ``g = N(mu1, var1)`` with ``mu0 < mu1`` and
    ``var0 < var1``; ``n`` samples of each of X and Y.
    """

    mu0: float
    var0: float
    mu1: float
    var1: float
    n: int

    def __post_init__(self) -> None:
        if not (self.var0 > 0 and self.var1 > 0):
            raise ValueError(f"variances must be > 0, got {self.var0}, {self.var1}")
        if not self.var0 < self.var1:
            raise ValueError(f"the Fact needs var0 < var1, got {self.var0} and {self.var1}")
        if isinstance(self.n, bool) or not isinstance(self.n, (int, np.integer)) or self.n < 1:
            raise ValueError(f"n must be an integer >= 1, got {self.n!r}")


def differential_distributions(k: int) -> LRTestParameters:
    """The distributions of Eq. 6 for k known attributes: ``f = N(0, 2)``, ``g = N(1, 2k + 2)``, n = k.

    Examples
    --------
    >>> differential_distributions(5)
    LRTestParameters(mu0=0.0, var0=2.0, mu1=1.0, var1=12.0, n=5)
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    return LRTestParameters(0.0, 2.0, 1.0, 2.0 * k + 2.0, int(k))


def log_likelihood_ratio(q: Any, r: Any, k: int) -> float:
    """``log Lambda(q, r) = sum_j log f(q_j)/g(q_j) + sum_j log g(r_j)/f(r_j)`` ([G19] App. A).

    ``f`` and ``g`` are the densities of ``N(0, 2)`` and ``N(1, 2k + 2)``;
    ``q`` are the samples from the ``s = 0`` pairs, ``r`` from the ``s = 1``
    pairs (either may be empty; they need not have the same length).

    Examples
    --------
    A single q_1 = 0 favours x^(s) = 1 (positive log ratio):

    >>> log_likelihood_ratio([0.0], [], 1) > 0
    True
    """
    p = differential_distributions(k)
    q = np.asarray(q, dtype=float)
    r = np.asarray(r, dtype=float)
    sf, sg = math.sqrt(p.var0), math.sqrt(p.var1)
    lf = lambda x: stats.norm.logpdf(x, p.mu0, sf)  # noqa: E731
    lg = lambda x: stats.norm.logpdf(x, p.mu1, sg)  # noqa: E731
    return float(np.sum(lf(q) - lg(q)) + np.sum(lg(r) - lf(r)))


def likelihood_ratio_test(q: Any, r: Any, k: int) -> int:
    """The differential attack's decision: ``x^(s) = 1`` if ``Lambda(q, r) >= 1``, else 0.

    Procedure DifferentialAttack, lines 23-25 ([G19] §3.1).
    """
    return int(log_likelihood_ratio(q, r, k) >= 0.0)


def chi2_combination(p: LRTestParameters) -> tuple[float, float, float, float]:
    """The Fact of [G19] App. A: ``p_err = Pr[alpha0 Z0 - alpha1 Z1 < 0]``.

    ``Z_i`` is non-central chi-square with ``n`` degrees of freedom and
    non-centrality

    ``lambda_i = n (mu_i/sigma_i + (mu0 sigma1^2 - mu1 sigma0^2) / (sigma_i (sigma0^2 - sigma1^2)))^2``

    and ``alpha_i = (sigma0^2 - sigma1^2) / (2 sigma_{1-i}^2)``. (Derivation:
    ``log Lambda = c [sum (x_j - m)^2 - sum (y_j - m)^2]`` with ``c < 0`` and
    ``m = (mu1 sigma0^2 - mu0 sigma1^2) / (sigma0^2 - sigma1^2)``.)

    Returns
    -------
    alpha0, alpha1, lambda0, lambda1 : float

    Examples
    --------
    For k = 1 (f = N(0, 2), g = N(1, 4)): m = -1, lambda0 = 1/2, lambda1 = 1:

    >>> [round(v, 6) for v in chi2_combination(differential_distributions(1))]
    [-0.25, -0.5, 0.5, 1.0]
    """
    s0, s1 = math.sqrt(p.var0), math.sqrt(p.var1)
    shift = (p.mu0 * p.var1 - p.mu1 * p.var0) / (p.var0 - p.var1)
    lam0 = p.n * (p.mu0 / s0 + shift / s0) ** 2
    lam1 = p.n * (p.mu1 / s1 + shift / s1) ** 2
    alpha0 = (p.var0 - p.var1) / (2.0 * p.var1)
    alpha1 = (p.var0 - p.var1) / (2.0 * p.var0)
    return alpha0, alpha1, lam0, lam1


def imhof_sf(x: float, weights: Sequence[float], dof: Sequence[float],
             noncentrality: Sequence[float]) -> float:
    """``Pr[Q > x]`` for ``Q = sum_j w_j chi2(h_j, delta_j)`` by Imhof's method.

    J. P. Imhof, "Computing the distribution of quadratic forms in normal
    variables", Biometrika 48 (1961), Eq. 3.2: with

    ``theta(u) = 1/2 sum_j [h_j atan(w_j u) + delta_j w_j u / (1 + w_j^2 u^2)] - x u / 2``
    ``rho(u) = prod_j (1 + w_j^2 u^2)^(h_j/4) exp(1/2 sum_j delta_j w_j^2 u^2 / (1 + w_j^2 u^2))``

    ``Pr[Q > x] = 1/2 + 1/pi int_0^inf sin(theta(u)) / (u rho(u)) du``,

    an exact expression evaluated by adaptive quadrature (the paper used the
    saddle-point approximations of the R package sadists).

    Parameters
    ----------
    x : float
    weights : sequence of float
        Non-zero weights ``w_j`` (may be negative).
    dof : sequence of float
        Degrees of freedom ``h_j > 0``.
    noncentrality : sequence of float
        ``delta_j >= 0`` (the sum of squared means).

    Examples
    --------
    >>> round(imhof_sf(3.84, [1.0], [1], [0.0]), 4)   # central chi2(1): 5% tail
    0.05
    """
    w = np.asarray(weights, dtype=float)
    h = np.asarray(dof, dtype=float)
    d = np.asarray(noncentrality, dtype=float)
    if not (w.shape == h.shape == d.shape) or w.ndim != 1 or w.size == 0:
        raise ValueError("weights, dof and noncentrality must be 1-D sequences of the same length")
    if np.any(w == 0) or np.any(h <= 0) or np.any(d < 0):
        raise ValueError("weights must be non-zero, dof > 0 and noncentrality >= 0")

    def a_logrho(u: float) -> tuple[float, float]:
        """theta(u) without the -x u / 2 term, and log rho(u)."""
        wu = w * u
        one = 1.0 + wu * wu
        a_u = 0.5 * np.sum(h * np.arctan(wu) + d * wu / one)
        log_rho = np.sum(0.25 * h * np.log(one)) + 0.5 * np.sum(d * wu * wu / one)
        return float(a_u), float(log_rho)

    def near(u: float) -> float:  # sin(theta(u)) / (u rho(u))
        if u == 0.0:
            return float(0.5 * np.sum(h * w + d * w) - 0.5 * x)  # the limit theta'(0)
        a_u, lr = a_logrho(u)
        return math.sin(a_u - 0.5 * x * u) / (u * math.exp(lr))

    cut = 1.0 / float(np.max(np.abs(w)))
    with warnings.catch_warnings():  # quad's accuracy warnings: checked against scipy in the tests
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        total = integrate.quad(near, 0.0, cut, limit=200, epsabs=1e-13, epsrel=1e-11)[0]
        if x == 0.0:
            # u = e^t turns the slowly decaying tail into an exponentially decaying one
            def far(t: float) -> float:
                a_u, lr = a_logrho(math.exp(t))
                return math.sin(a_u) * math.exp(-lr)

            t_hi = math.log(cut)
            while a_logrho(math.exp(t_hi))[1] < 32.0 and t_hi < 300.0:
                t_hi += 0.5
            total += integrate.quad(far, math.log(cut), t_hi, limit=500, epsabs=1e-13,
                                    epsrel=1e-11)[0]
        else:
            # sin(A - x u / 2) = sin A cos(omega u) -/+ cos A sin(omega u): Fourier integrals (QAWF)
            omega, sign = 0.5 * abs(x), (1.0 if x > 0 else -1.0)

            def amp_sin(u: float) -> float:
                a_u, lr = a_logrho(u)
                return math.sin(a_u) / (u * math.exp(lr))

            def amp_cos(u: float) -> float:
                a_u, lr = a_logrho(u)
                return math.cos(a_u) / (u * math.exp(lr))

            total += integrate.quad(amp_sin, cut, np.inf, weight="cos", wvar=omega, limlst=200)[0]
            total -= sign * integrate.quad(amp_cos, cut, np.inf, weight="sin", wvar=omega,
                                           limlst=200)[0]
    return float(min(1.0, max(0.0, 0.5 + total / math.pi)))


def lr_test_error(p: LRTestParameters) -> float:
    """Exact error ``p_err = Pr[alpha0 Z0 - alpha1 Z1 < 0]`` of the test ([G19] App. A, Fact).

    Equivalently ``Pr[sigma0^2 Z0 - sigma1^2 Z1 > 0]``, computed by
    :func:`imhof_sf`. The two error probabilities (under H0 and H1) are equal.
    """
    _, _, lam0, lam1 = chi2_combination(p)
    return imhof_sf(0.0, [p.var0, -p.var1], [p.n, p.n], [lam0, lam1])


def theoretical_accuracy(k: int) -> float:
    """``acc(k) = 1 - p_err(k)``: the differential attack's accuracy with k attributes.

    [G19] App. A applied to Eq. 6: ``mu0 = 0, sigma0^2 = 2, mu1 = 1,
    sigma1^2 = 2k + 2, n = k``, with no rounding and no bucket suppression.

    Examples
    --------
    >>> round(theoretical_accuracy(1), 3)
    0.673
    """
    return 1.0 - lr_test_error(differential_distributions(k))


def monte_carlo_accuracy(k: int, n_experiments: int = 100_000,
                         rng: np.random.Generator | int | None = 0) -> float:
    """Monte Carlo estimate of ``acc(k)``: draw the 2k samples under each hypothesis and test.

    Under H0 (``x^(s) = 1``): ``q ~ f``, ``r ~ g``; under H1 the reverse
    (equal numbers of each). Returns the fraction of correct decisions.
    """
    p = differential_distributions(k)
    g = _rng(rng)
    n = _positive_int("n_experiments", n_experiments)
    sf, sg = math.sqrt(p.var0), math.sqrt(p.var1)
    correct = 0
    for truth in (1, 0):
        a = g.normal(p.mu0, sf, (n, k))
        b = g.normal(p.mu1, sg, (n, k))
        q, r = (a, b) if truth == 1 else (b, a)
        llr = _llr_rows(q, r, p)
        correct += int(np.sum((llr >= 0) == (truth == 1)))
    return correct / (2 * n)


def _llr_rows(q: np.ndarray, r: np.ndarray, p: LRTestParameters,
              q_ok: np.ndarray | None = None, r_ok: np.ndarray | None = None) -> np.ndarray:
    """Row-wise log Lambda; ``*_ok`` masks select the samples that count."""
    sf, sg = math.sqrt(p.var0), math.sqrt(p.var1)
    dq = stats.norm.logpdf(q, p.mu0, sf) - stats.norm.logpdf(q, p.mu1, sg)
    dr = stats.norm.logpdf(r, p.mu1, sg) - stats.norm.logpdf(r, p.mu0, sf)
    if q_ok is not None:
        dq = np.where(q_ok, dq, 0.0)
    if r_ok is not None:
        dr = np.where(r_ok, dr, 0.0)
    return dq.sum(axis=1) + dr.sum(axis=1)


def simulated_accuracy_rounding(k: int, n_experiments: int = 1000, B: int = 12,
                                rng: np.random.Generator | int | None = 0,
                                rounding: bool = True, share_static: bool = False) -> float:
    """Accuracy of the test when Diffix's outputs are rounded ([G19] App. A, numerical simulation).

    Simulates, for each experiment and each value of the secret, the 4k
    outputs of Diffix (Eq. 1, no bucket suppression) on Complete_k: the query
    sets of ``Q_j`` / ``Q'_j`` hold the ``B - 1`` other users sharing ``k - 1``
    attributes with the victim (each with secret 0 or 1 at random) plus the
    victim when the secret matches. Dynamic noise is drawn once per
    (condition, query set); static noise once per pair, as the paper assumes
    the 2k samples independent, or (``share_static=True``) once per distinct
    condition, as Diffix does, which correlates ``q_j`` and ``r_j`` through
    the static noise of ``a_j <> x_j``. Each sample is
    ``round(Q_j) - round(Q'_j)``, rounded to the nearest non-negative
    integer; every pair counts, null outputs included.

    Parameters
    ----------
    k : int
    n_experiments : int
        Experiments per value of the secret (the paper: 1000).
    B : int
        Values per attribute of Complete_k.
    rng : Generator or seed
    rounding : bool
        ``False`` gives the same simulation without rounding (with
        ``share_static=False`` a check of the closed form).
    share_static : bool
        Draw one static noise value per distinct condition across all 4k
        queries (Diffix's behaviour) instead of one per pair.

    Returns
    -------
    float
        Fraction of correct decisions over the ``2 n_experiments`` runs.
    """
    p = differential_distributions(k)
    g = _rng(rng)
    n = _positive_int("n_experiments", n_experiments)
    if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 2:
        raise ValueError(f"B must be an integer >= 2, got {B!r}")
    rnd = (lambda x: np.maximum(np.rint(x), 0.0)) if rounding else (lambda x: x)  # noqa: E731
    correct = 0
    for secret in (1, 0):
        # static noise per distinct condition: a_i = x_i (k), a_j <> x_j (k), s = 0, s = 1
        st_eq = g.standard_normal((n, k))
        st_ne = g.standard_normal((n, k))
        st_s = g.standard_normal((n, 2))
        n_zero = g.binomial(B - 1, 0.5, (n, k))  # other users sharing k - 1 attributes with s = 0
        samples = []
        for sv in (0, 1):  # q (s = 0 pairs) then r (s = 1 pairs)
            others = n_zero if sv == 0 else (B - 1) - n_zero
            victim_in = 1 if secret == sv else 0
            # static part common to Q_j and Q'_j: k - 1 equalities (i != j) and s = sv
            if share_static:
                shared = st_eq.sum(axis=1, keepdims=True) - st_eq + st_s[:, [sv]]
                neg = st_ne
            else:
                shared = g.normal(0.0, math.sqrt(k), (n, k))
                neg = g.standard_normal((n, k))
            dyn_q = g.normal(0.0, math.sqrt(k), (n, k))  # k dynamic layers of Q_j's query set
            # the victim outside both sets: same query set, same dynamic noise per shared condition
            dyn_qbar = g.normal(0.0, math.sqrt(k), (n, k)) if victim_in else dyn_q
            dyn_neg = g.standard_normal((n, k))  # dynamic noise of a_j <> x_j in Q'_j
            big_q = others + victim_in + shared + dyn_q
            small_q = others + shared + dyn_qbar + neg + dyn_neg
            samples.append(rnd(big_q) - rnd(small_q))
        llr = _llr_rows(samples[0], samples[1], p)
        correct += int(np.sum((llr >= 0) == (secret == 1)))
    return correct / (2 * n)


def accuracy_curves(k_values: Sequence[int], *, n_monte_carlo: int = 100_000, n_simulations: int = 1000,
                    B: int = 12, seed: int = 0) -> pd.DataFrame:
    """The theoretical curves of [G19] Fig. 2 and their checks, one row per k.

    Columns: ``theory`` (:func:`theoretical_accuracy`, exact), ``monte_carlo``
    (:func:`monte_carlo_accuracy`), ``rounding`` (the paper's numerical
    simulation with rounded outputs, :func:`simulated_accuracy_rounding` with
    independent pairs), ``rounding_shared_static`` (the same with one static
    noise value per condition, as Diffix draws it) and ``mc_se`` (standard
    error of the Monte Carlo column).
    """
    rows = []
    for i, k in enumerate(k_values):
        th = theoretical_accuracy(int(k))
        rows.append({
            "k": int(k), "theory": th,
            "monte_carlo": monte_carlo_accuracy(int(k), n_monte_carlo, rng=[seed, 1, i]),
            "rounding": simulated_accuracy_rounding(int(k), n_simulations, B=B, rng=[seed, 2, i]),
            "rounding_shared_static": simulated_accuracy_rounding(int(k), n_simulations, B=B, rng=[seed, 3, i],
                                                                  share_static=True),
            "mc_se": math.sqrt(th * (1 - th) / (2 * n_monte_carlo)),
        })
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# SQL helpers
# ---------------------------------------------------------------------------


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _template(table: str, conditions: Sequence[tuple[str, str]]) -> str:
    """``SELECT count(*) FROM table WHERE c1 op ? AND ...`` for (column, op) pairs."""
    where = " AND ".join(f"{_ident(c)} {op} ?" for c, op in conditions)
    return f"SELECT count(*) FROM {table}" + (f" WHERE {where}" if where else "")


def _py(v: Any) -> Any:
    """numpy scalars to Python values for binding."""
    return v.item() if isinstance(v, np.generic) else v


# ---------------------------------------------------------------------------
# The differential attack (§3.1)
# ---------------------------------------------------------------------------


@dataclass
class DifferentialOutcome:
    """Result of :func:`differential_attack` for one victim.

    Attributes
    ----------
    guess : int or None
        Inferred secret (0/1); ``None`` when no pair survived (NoSamples).
    q, r : numpy.ndarray
        The valid samples from the ``s = 0`` and ``s = 1`` pairs.
    log_lr : float
        ``log Lambda(q, r)`` (nan without samples).
    n_queries : int
        Queries sent (4k).
    all_pairs : numpy.ndarray, shape (2, k)
        Every difference ``Q_j - Q'_j`` (row 0) and ``R_j - R'_j`` (row 1),
        valid or not (the owner's check of Eq. 6; the attack uses only the
        valid ones).
    """

    guess: int | None
    q: np.ndarray
    r: np.ndarray
    log_lr: float
    n_queries: int
    all_pairs: np.ndarray = field(default_factory=lambda: np.zeros((2, 0)))


def differential_attack_many(proxy: DiffixProxy, records: pd.DataFrame, attributes: Sequence[str],
                             secret: str, *, analyst: str = "attacker") -> list[DifferentialOutcome]:
    """Procedure DifferentialAttack ([G19] §3.1) for many victims known on the same attributes.

    For each ``j``: ``Q_j, Q'_j`` with ``s = 0`` and ``R_j, R'_j`` with
    ``s = 1`` (Eqs. 7-8); a pair counts only if both outputs are > 0
    (a zero may be bucket suppression); the likelihood ratio test of
    :func:`likelihood_ratio_test` decides. Issues ``4k`` queries per victim,
    batched per query shape.

    Parameters
    ----------
    proxy : DiffixProxy
    records : pandas.DataFrame
        The victims' known values; must contain ``attributes``.
    attributes : sequence of str
        ``A = {a_1, ..., a_k}``, k >= 1.
    secret : str
        The secret attribute's column name in the proxy.
    analyst : str
        Name under which the proxy counts the queries.
    """
    attrs = list(attributes)
    k = len(attrs)
    if k < 1:
        raise ValueError("attributes must name at least one attribute")
    missing = [a for a in attrs if a not in records.columns]
    if missing:
        raise ValueError(f"records lack the attribute column(s) {missing}")
    n = len(records)
    vals = {a: [_py(v) for v in records[a].to_numpy()] for a in attrs}
    diffs = np.zeros((2, n, k))
    ok = np.zeros((2, n, k), dtype=bool)
    batch = []
    for j in range(k):
        others = [a for i, a in enumerate(attrs) if i != j]
        t_q = _template(proxy.table, [(a, "=") for a in others] + [(secret, "=")])
        t_qbar = _template(proxy.table, [(a, "=") for a in others] + [(attrs[j], "<>"), (secret, "=")])
        base = [tuple(vals[a][i] for a in others) for i in range(n)]
        rows = [b + (sv,) for sv in (0, 1) for b in base]
        rows_bar = [b + (vals[attrs[j]][i], sv) for sv in (0, 1) for i, b in enumerate(base)]
        batch += [(t_q, rows), (t_qbar, rows_bar)]
    answers = proxy.execute_batch(batch, analyst=analyst)
    for j in range(k):
        big = answers[2 * j].reshape(2, n)
        small = answers[2 * j + 1].reshape(2, n)
        diffs[:, :, j] = big - small
        ok[:, :, j] = (big > 0) & (small > 0)
    out = []
    p = differential_distributions(k)
    llr = _llr_rows(diffs[0], diffs[1], p, ok[0], ok[1])
    for i in range(n):
        q, r = diffs[0, i][ok[0, i]], diffs[1, i][ok[1, i]]
        if q.size == 0 and r.size == 0:
            out.append(DifferentialOutcome(None, q, r, float("nan"), 4 * k, diffs[:, i]))
        else:
            out.append(DifferentialOutcome(int(llr[i] >= 0), q, r, float(llr[i]), 4 * k, diffs[:, i]))
    return out


def differential_attack(proxy: DiffixProxy, record: Mapping[str, Any], attributes: Sequence[str],
                        secret: str, *, analyst: str = "attacker") -> DifferentialOutcome:
    """Procedure DifferentialAttack ([G19] §3.1) against one victim ``record``.

    See :func:`differential_attack_many`.
    """
    return differential_attack_many(proxy, pd.DataFrame([dict(record)]), attributes, secret,
                                    analyst=analyst)[0]


class UniquenessOracle:
    """The oracle ``Unique(z^(R))`` of [G19] H4: is a restricted record unique in the data?

    Built from the data without the secret (the "inference dataset" Diffix
    claims to protect against). Consulting it is not a query to Diffix.

    Parameters
    ----------
    data : pandas.DataFrame
        The attributes the attacker may know (one row per user).
    """

    def __init__(self, data: pd.DataFrame) -> None:
        self._codes: dict[str, np.ndarray] = {}
        self._lookup: dict[str, dict[Any, int]] = {}
        for c in data.columns:
            codes, uniques = pd.factorize(data[c], use_na_sentinel=True)
            self._codes[c] = codes.astype(np.int32)
            self._lookup[c] = {_py(v): i for i, v in enumerate(uniques)}
        self._n = len(data)

    def matches(self, a: str, value: Any) -> np.ndarray:
        """Boolean mask of the records whose attribute ``a`` equals ``value``."""
        code = self._lookup[a].get(_py(value), -2)  # -2: a value no record has
        return self._codes[a] == code

    def __call__(self, record: Mapping[str, Any], attributes: Sequence[str]) -> bool:
        """True iff exactly one record matches ``record`` on ``attributes``."""
        sel = np.logical_and.reduce([self.matches(a, record[a]) for a in attributes])
        return int(np.count_nonzero(sel)) == 1

    def for_record(self, record: Mapping[str, Any], a_star: Sequence[str]) -> Callable[[Sequence[str]], bool]:
        """A fast oracle for many subsets of one victim's ``A*`` (at most 64 attributes).

        Every record gets a bitmask of the attributes of ``A*`` on which it
        agrees with the victim; ``x^(S)`` is unique iff exactly one record
        (the victim) agrees on all of ``S``. Records are sorted by how many
        attributes they agree on, so a subset of size m only looks at records
        agreeing on at least m.
        """
        a_star = list(a_star)
        if len(a_star) > 64:
            raise ValueError(f"at most 64 known attributes, got {len(a_star)}")
        agree = np.zeros(self._n, dtype=np.uint64)
        for j, a in enumerate(a_star):
            agree |= self.matches(a, record[a]).astype(np.uint64) << np.uint64(j)
        counts = np.bitwise_count(agree)
        order = np.argsort(-counts.astype(np.int64), kind="stable")
        agree, counts = agree[order], counts[order]
        # first[m] = number of records agreeing on at least m attributes
        first = np.searchsorted(-counts.astype(np.int64), -np.arange(len(a_star) + 2), side="right")
        bit = {a: np.uint64(1) << np.uint64(j) for j, a in enumerate(a_star)}

        def unique(subset: Sequence[str]) -> bool:
            mask = np.uint64(0)
            for a in subset:
                mask |= bit[a]
            cand = agree[: first[len(subset)]]
            return int(np.count_nonzero((cand & mask) == mask)) == 1

        return unique


def subsets_by_decreasing_size(items: Sequence[str], rng: np.random.Generator, *, min_size: int = 1,
                               max_size: int | None = None,
                               per_size_limit: int = 2000) -> Iterator[tuple[str, ...]]:
    """Random subsets of ``items``, largest first, each size in random order.

    The order of the subset exploration of FullDifferentialAttack and
    FullCloningAttack ([G19] §3). Sizes with at most ``per_size_limit``
    subsets are enumerated completely (shuffled); larger ones are sampled
    without repetition up to ``per_size_limit`` subsets.
    """
    items = list(items)
    top = len(items) if max_size is None else min(max_size, len(items))
    for m in range(top, min_size - 1, -1):
        total = math.comb(len(items), m)
        if total <= per_size_limit:
            combos = list(itertools.combinations(range(len(items)), m))
            for i in rng.permutation(len(combos)):
                yield tuple(items[t] for t in combos[i])
        else:
            seen: set[tuple[int, ...]] = set()
            while len(seen) < per_size_limit:
                pick = tuple(sorted(rng.choice(len(items), size=m, replace=False).tolist()))
                if pick in seen:
                    continue
                seen.add(pick)
                yield tuple(items[t] for t in pick)


@dataclass
class FullDifferentialOutcome:
    """Result of :func:`full_differential_attack` for one victim.

    Attributes
    ----------
    guess : int or None
        The inferred secret, ``None`` for NonAttackable.
    subset : tuple of str
        The attributes ``A`` the final test used (empty if NonAttackable).
    n_subsets_checked : int
        Subsets put to the uniqueness oracle.
    n_subsets_attacked : int
        Unique subsets attacked (each costs 4|A| queries).
    n_queries : int
    n_samples : int
        Samples in the final test.
    """

    guess: int | None
    subset: tuple[str, ...]
    n_subsets_checked: int
    n_subsets_attacked: int
    n_queries: int
    n_samples: int

    @property
    def attackable(self) -> bool:
        return self.guess is not None


def full_differential_attack(proxy: DiffixProxy, record: Mapping[str, Any], a_star: Sequence[str],
                             secret: str, oracle: UniquenessOracle, *,
                             rng: np.random.Generator | int | None = 0, max_attacked: int | None = None,
                             max_checked: int = 5000,
                             analyst: str = "attacker") -> FullDifferentialOutcome:
    """Procedure FullDifferentialAttack ([G19] §3.1): subset exploration, oracle, test.

    Draws random subsets ``A`` of ``A*`` by decreasing size until the oracle
    says ``x^(A)`` is unique, runs :func:`differential_attack` on it, and
    stops at the first subset that yields samples. The paper does not bound
    the exploration (the default, ``max_attacked=None``); ``max_attacked``
    bounds the unique subsets attacked and ``max_checked`` the subsets put to
    the oracle, after which the victim is NonAttackable.
    """
    g = _rng(rng)
    unique = oracle.for_record(record, a_star)
    checked = attacked = queries = 0
    if not unique(a_star):  # no subset of a non-unique restricted record is unique
        return FullDifferentialOutcome(None, (), 1, 0, 0, 0)
    for subset in subsets_by_decreasing_size(list(a_star), g):
        if checked >= max_checked or (max_attacked is not None and attacked >= max_attacked):
            break
        checked += 1
        if not unique(subset):
            continue
        attacked += 1
        res = differential_attack(proxy, record, subset, secret, analyst=analyst)
        queries += res.n_queries
        if res.guess is not None:
            return FullDifferentialOutcome(res.guess, tuple(subset), checked, attacked, queries,
                                           int(res.q.size + res.r.size))
    return FullDifferentialOutcome(None, (), checked, attacked, queries, 0)


# ---------------------------------------------------------------------------
# The cloning attack (§3.2)
# ---------------------------------------------------------------------------


def dummy_values(value: Any, domain: Sequence[Any], n_dummy: int,
                 rng: np.random.Generator) -> list[Any]:
    """``|Delta|`` plausible values ``b_j != value`` for the dummy conditions ``d <> b_j``.

    Drawn at random from the attribute's domain without ``value`` ([G19] §4:
    "b_j being some plausible values for x_1 different from a_1"). When the
    domain has too few other values, values outside it are added (numbers
    above the maximum, or tagged strings): "pragmatic" dummy conditions that
    hold for everyone (§5).
    """
    n = _positive_int("n_dummy", n_dummy)
    others = [v for v in domain if v != value]
    picked = [others[i] for i in rng.permutation(len(others))[:n]]
    extra = n - len(picked)
    if extra > 0:
        if all(isinstance(v, (int, float, np.integer, np.floating)) for v in domain):
            top = max(domain) if len(domain) else 0
            picked += [_py(top) + 1 + i for i in range(extra)]
        else:
            picked += [f"~none{i}" for i in range(extra)]
    return [_py(v) for v in picked]


@dataclass(frozen=True)
class CloningQueries:
    """The 2|Delta| queries of CloningAttack / NoBucketSuppression for one ``(A', u, v)``.

    ``template_q`` / ``template_qbar`` are prepared statements for Eqs. 12 and
    13; ``rows_q`` / ``rows_qbar`` hold one row of values per ``j``.
    """

    template_q: str
    template_qbar: str
    rows_q: list[tuple[Any, ...]]
    rows_qbar: list[tuple[Any, ...]]


def cloning_queries(table: str, record: Mapping[str, Any], a_prime: Sequence[str], u: str,
                    dummy_attribute: str, dummies: Sequence[Any], secret: str, v: int) -> CloningQueries:
    """Build Eqs. 12-13 for every j:

    ``Q_j = count(A' = x^(A') AND_{l != j} d <> b_l AND s = v)``,
    ``Q'_j = count(A' = x^(A') AND_{l != j} d <> b_l AND u <> x^(u) AND s = v)``.
    """
    a_prime = list(a_prime)
    if dummy_attribute not in a_prime:
        raise ValueError(f"the dummy attribute {dummy_attribute!r} must be one of A' = {a_prime}")
    m = len(dummies)
    if m < 2:
        raise ValueError(f"need at least 2 dummy conditions, got {m}")
    conds = [(a, "=") for a in a_prime] + [(dummy_attribute, "<>")] * (m - 1)
    t_q = _template(table, conds + [(secret, "=")])
    t_qbar = _template(table, conds + [(u, "<>"), (secret, "=")])
    base = tuple(_py(record[a]) for a in a_prime)
    rows_q, rows_qbar = [], []
    for j in range(m):
        dj = tuple(dummies[l] for l in range(m) if l != j)
        rows_q.append(base + dj + (int(v),))
        rows_qbar.append(base + dj + (_py(record[u]), int(v)))
    return CloningQueries(t_q, t_qbar, rows_q, rows_qbar)


def no_bucket_suppression(q_answers: Any, qbar_answers: Any) -> bool:
    """Procedure NoBucketSuppression's test ([G19] §3.2): some ``Q_j > 0`` and some ``Q'_j > 0``.

    All ``Q_j`` share one query set, hence one sticky threshold, so one
    positive answer proves none of them was suppressed (and likewise for the
    ``Q'_j``).
    """
    return bool(np.any(np.asarray(q_answers) > 0) and np.any(np.asarray(qbar_answers) > 0))


def value_unique(answer: float) -> bool:
    """Procedure ValueUnique ([G19] §3.2): ``count(A' = x^(A') AND u = x^(u)) == 0``.

    A zero answer means the query set was suppressed, so few users share
    ``x^(A', u)``, taken as evidence of value-uniqueness.
    """
    return bool(answer == 0)


def cloning_inference(q_answers: Any, qbar_answers: Any, sigma_star: float, v: int) -> tuple[int, float]:
    """CloningAttack's decision ([G19] §3.2, lines 5-8).

    ``q_j = Q_j - Q'_j``; ``S^2 = 1/(|Delta| - 1) sum_j (q_j - mean)^2``. If
    ``S^2 <= sigma*`` the two query sets coincide, so the victim is not in the
    ``s = v`` set: the secret is ``1 - v``; otherwise it is ``v``.

    Returns
    -------
    guess : int
    s2 : float
    """
    q = np.asarray(q_answers, dtype=float) - np.asarray(qbar_answers, dtype=float)
    s2 = float(np.var(q, ddof=1))
    return (1 - int(v) if s2 <= sigma_star else int(v)), s2


@dataclass
class CloningOutcome:
    """One run of CloningAttack with its validation tests for a given ``(A', u, v)``."""

    value_unique: bool
    no_suppression: bool
    guess: int | None
    s2: float
    n_queries: int


def cloning_attack(proxy: DiffixProxy, record: Mapping[str, Any], a_prime: Sequence[str], u: str,
                   secret: str, *, v: int = 0, dummies: Sequence[Any] | None = None,
                   dummy_attribute: str | None = None, domains: Mapping[str, Sequence[Any]] | None = None,
                   n_dummy: int = 10, sigma_star: float = 0.7, check_value_unique: bool = True,
                   rng: np.random.Generator | int | None = 0,
                   analyst: str = "attacker") -> CloningOutcome:
    """ValueUnique, NoBucketSuppression and CloningAttack for one ``(A', u)`` ([G19] §3.2).

    Sends ``1 + 2|Delta|`` queries (``2|Delta|`` without the ValueUnique
    query, or if it fails: then only 1). The inference reuses the
    NoBucketSuppression answers, as in the paper.

    Parameters
    ----------
    proxy, record, a_prime, u, secret
        As in the paper: known attributes ``A'`` and ``u`` (not in ``A'``).
    v : {0, 1}
        Secret value in the queries.
    dummies, dummy_attribute
        The values ``b_j`` of the dummy conditions ``dummy_attribute <> b_j``;
        by default the attribute of ``A'`` with the largest domain and values
        from :func:`dummy_values` (``domains`` is then required).
    n_dummy : int
        ``|Delta|`` when ``dummies`` is not given.
    sigma_star : float
        Variance cut-off (the paper: 0.7).
    """
    a_prime = list(a_prime)
    if not a_prime:
        raise ValueError("A' must hold at least one attribute")
    if u in a_prime:
        raise ValueError(f"u = {u!r} must not be in A' = {a_prime}")
    if v not in (0, 1):
        raise ValueError(f"v must be 0 or 1, got {v!r}")
    g = _rng(rng)
    queries = 0
    if check_value_unique:
        vu_t = _template(proxy.table, [(a, "=") for a in a_prime] + [(u, "=")])
        ans = proxy.execute(vu_t, [tuple(_py(record[a]) for a in a_prime + [u])], analyst=analyst)[0]
        queries += 1
        if not value_unique(ans):
            return CloningOutcome(False, False, None, float("nan"), queries)
    d_attr, d_vals = _dummies(record, a_prime, dummies, dummy_attribute, domains, n_dummy, g)
    cq = cloning_queries(proxy.table, record, a_prime, u, d_attr, d_vals, secret, v)
    big, small = proxy.execute_batch([(cq.template_q, cq.rows_q), (cq.template_qbar, cq.rows_qbar)],
                                     analyst=analyst)
    queries += 2 * len(d_vals)
    if not no_bucket_suppression(big, small):
        return CloningOutcome(True, False, None, float("nan"), queries)
    guess, s2 = cloning_inference(big, small, sigma_star, v)
    return CloningOutcome(True, True, guess, s2, queries)


def _dummies(record: Mapping[str, Any], a_prime: list[str], dummies: Sequence[Any] | None,
             dummy_attribute: str | None, domains: Mapping[str, Sequence[Any]] | None, n_dummy: int,
             g: np.random.Generator) -> tuple[str, list[Any]]:
    if dummies is not None:
        if dummy_attribute is None:
            raise ValueError("give dummy_attribute together with dummies")
        return dummy_attribute, [_py(b) for b in dummies]
    if domains is None:
        raise ValueError("give either dummies (with dummy_attribute) or domains")
    d_attr = dummy_attribute or max(a_prime, key=lambda a: (len(domains[a]), -a_prime.index(a)))
    return d_attr, dummy_values(_py(record[d_attr]), list(domains[d_attr]), n_dummy, g)


@dataclass
class FullCloningOutcome:
    """Result of :func:`full_cloning_attack` / :func:`greedy_full_cloning_attack` for one victim.

    Attributes
    ----------
    guess : int or None
        The inferred secret; ``None`` for NonAttackable.
    a_prime : tuple of str
        The ``A'`` used (empty if NonAttackable).
    u : str or None
    s2 : float
        Sample variance of the final test (``nan`` if none).
    n_subsets : int
        Subsets ``(A', u)`` tried.
    n_queries : int
        Queries sent for this victim.
    """

    guess: int | None
    a_prime: tuple[str, ...]
    u: str | None
    s2: float
    n_subsets: int
    n_queries: int

    @property
    def attackable(self) -> bool:
        """Predicted attackable: a subset passed the tests."""
        return self.guess is not None


def full_cloning_attack(proxy: DiffixProxy, record: Mapping[str, Any], a_star: Sequence[str],
                        secret: str, domains: Mapping[str, Sequence[Any]], *, v: int = 0,
                        n_dummy: int = 10, sigma_star: float = 0.7, double_test: bool = False,
                        max_subsets: int | None = None, rng: np.random.Generator | int | None = 0,
                        analyst: str = "attacker") -> FullCloningOutcome:
    """Procedure FullCloningAttack ([G19] §3.2), optionally with the double test of §5.

    Random subsets ``A'`` of ``A*`` (sizes ``|A*| - 1`` down to 1) each with a
    random ``u`` from ``A* \\ A'``; for each, ValueUnique then
    NoBucketSuppression; the first subset passing both is attacked and the
    guess returned. With ``double_test`` NoBucketSuppression must pass for
    both ``v = 0`` and ``v = 1``, both inferences are made, and the guess is
    kept only if they agree (otherwise the exploration continues).
    ``max_subsets`` bounds the subsets tried (default: all of them).
    """
    a_star = list(a_star)
    if len(a_star) < 2:
        raise ValueError(f"A* needs at least 2 attributes (A' and u), got {a_star}")
    g = _rng(rng)
    queries = tried = 0
    for subset in subsets_by_decreasing_size(a_star, g, max_size=len(a_star) - 1):
        if max_subsets is not None and tried >= max_subsets:
            break
        tried += 1
        rest = [a for a in a_star if a not in subset]
        u = rest[int(g.integers(len(rest)))]
        if not double_test:
            out = cloning_attack(proxy, record, subset, u, secret, v=v, domains=domains,
                                 n_dummy=n_dummy, sigma_star=sigma_star, rng=g, analyst=analyst)
            queries += out.n_queries
            if out.guess is not None:
                return FullCloningOutcome(out.guess, tuple(subset), u, out.s2, tried, queries)
            continue
        first = cloning_attack(proxy, record, subset, u, secret, v=0, domains=domains, n_dummy=n_dummy,
                               sigma_star=sigma_star, rng=g, analyst=analyst)
        queries += first.n_queries
        if first.guess is None:
            continue
        second = cloning_attack(proxy, record, subset, u, secret, v=1, domains=domains,
                                n_dummy=n_dummy, sigma_star=sigma_star, check_value_unique=False,
                                rng=g, analyst=analyst)
        queries += second.n_queries
        if second.guess is not None and second.guess == first.guess:
            return FullCloningOutcome(first.guess, tuple(subset), u, first.s2, tried, queries)
    return FullCloningOutcome(None, (), None, float("nan"), tried, queries)


def greedy_select_subset(proxy: DiffixProxy, record: Mapping[str, Any], a_star: Sequence[str], *,
                         analyst: str = "attacker") -> tuple[list[str], str, int]:
    """Procedure GreedySelectSubset ([G19] App. B), with ``|A*| + 1`` queries.

    Estimates the total number of users ``N`` (``count(*)``) and, for each
    ``a`` in ``A*``, the fraction ``f_a = count(a = x^(a)) / N`` of users
    sharing the victim's value. ``u`` is the attribute with the lowest
    fraction; ``A'`` takes the remaining attributes by decreasing fraction
    until ``prod_{a in A' + u} f_a < 1/N`` (so ``x^(A', u)`` is probably
    unique while ``x^(A')`` selects many users), or all of them.

    Returns
    -------
    a_prime : list of str
    u : str
    n_queries : int
    """
    a_star = list(a_star)
    if len(a_star) < 2:
        raise ValueError(f"A* needs at least 2 attributes, got {a_star}")
    n_est = float(proxy.execute(f"SELECT count(*) FROM {proxy.table}", [()], analyst=analyst)[0])
    n_est = max(n_est, 1.0)
    fractions = {}
    for a in a_star:
        ans = proxy.execute(_template(proxy.table, [(a, "=")]), [(_py(record[a]),)], analyst=analyst)[0]
        fractions[a] = max(float(ans), 0.0) / n_est
    order = sorted(a_star, key=lambda a: (fractions[a], a_star.index(a)))
    u = order[0]
    a_prime: list[str] = []
    prod = fractions[u]
    for a in sorted(order[1:], key=lambda a: (-fractions[a], a_star.index(a))):
        a_prime.append(a)
        prod *= fractions[a]
        if prod < 1.0 / n_est:
            break
    return a_prime, u, len(a_star) + 1


def cloning_miss_probability(n_dummy: int, sigma_star: float) -> float:
    """P(S^2 <= sigma*) when the victim *is* in the ``s = v`` query set: the variance test's own error.

    When the victim is inside, ``Q_j`` and ``Q'_j`` select sets that differ by
    her, so the dynamic noise of every condition differs between them. All
    the ``Q_j`` share one query set (the dummy conditions do not change it),
    so across ``j`` only the omitted dummy condition's two dynamic terms vary:
    ``q_j = C - (n_j - n'_j)`` with ``n_j, n'_j ~ N(0, 1)`` i.i.d. ([G19] §2
    and §3.2), hence ``var(q_j) = 2`` and, ignoring rounding,

    .. math:: \\frac{(|\\Delta| - 1) S^2}{2} \\sim \\chi^2_{|\\Delta| - 1},
              \\qquad P(S^2 \\le \\sigma^*) = F_{\\chi^2_{|\\Delta|-1}}\\big((|\\Delta| - 1)\\sigma^* / 2\\big).

    Such a victim is declared outside (guess ``1 - v``): a wrong guess.

    Examples
    --------
    >>> round(cloning_miss_probability(10, 0.7), 4)
    0.042
    """
    n, sigma_star = _cloning_settings(n_dummy, sigma_star)
    return float(stats.chi2.cdf((n - 1) * sigma_star / 2.0, n - 1))


def greedy_query_bound(n_known: int, n_dummy: int) -> int:
    """Queries of GreedyFullCloningAttack at most: ``|A*| + 2|Delta| + 2`` ([G19] App. B).

    >>> greedy_query_bound(10, 10)
    32
    """
    return int(n_known) + 2 * int(n_dummy) + 2


def greedy_full_cloning_attack(proxy: DiffixProxy, record: Mapping[str, Any], a_star: Sequence[str],
                               secret: str, domains: Mapping[str, Sequence[Any]], *, v: int = 0,
                               n_dummy: int = 10, sigma_star: float = 0.7,
                               rng: np.random.Generator | int | None = 0,
                               analyst: str = "attacker") -> FullCloningOutcome:
    """GreedyFullCloningAttack ([G19] App. B): one subset from :func:`greedy_select_subset`.

    Then ValueUnique, NoBucketSuppression and CloningAttack on it; at most
    ``|A*| + 2|Delta| + 2`` queries.
    """
    g = _rng(rng)
    a_prime, u, q0 = greedy_select_subset(proxy, record, a_star, analyst=analyst)
    out = cloning_attack(proxy, record, a_prime, u, secret, v=v, domains=domains, n_dummy=n_dummy,
                         sigma_star=sigma_star, rng=g, analyst=analyst)
    if out.guess is None:
        return FullCloningOutcome(None, (), None, float("nan"), 1, q0 + out.n_queries)
    return FullCloningOutcome(out.guess, tuple(a_prime), u, out.s2, 1, q0 + out.n_queries)


# ---------------------------------------------------------------------------
# Experiments over many users
# ---------------------------------------------------------------------------


def _user_rngs(seed: int, n: int) -> list[np.random.Generator]:
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]


def _sample_users(n_records: int, n_users: int, seed: int) -> np.ndarray:
    """``n_users`` distinct random rows, or every row when the data set is smaller."""
    n_users = min(_positive_int("n_users", n_users), n_records)
    return np.sort(np.random.default_rng(seed).choice(n_records, size=n_users, replace=False))


def _known_attributes(attributes: list[str], k_star: int, g: np.random.Generator) -> list[str]:
    """A random A* of size k* (kept in the data set's column order)."""
    picked = set(g.choice(len(attributes), size=k_star, replace=False).tolist())
    return [a for i, a in enumerate(attributes) if i in picked]


ProgressFn = Callable[[int, int], None]


def progress_printer(label: str, every: int = 100) -> ProgressFn:
    """A progress callback that prints ``label: done/total`` every ``every`` users."""
    def report(done: int, total: int) -> None:
        if done == total or done % every == 0:
            print(f"{label}: {done}/{total} users", flush=True)
    return report


# -- per-user work, shared by the serial loop and the worker processes --------------------


def _differential_user(ds: Any, proxy: DiffixProxy, oracle: UniquenessOracle, row: int,
                       g: np.random.Generator, k: int, max_attacked: int | None) -> tuple:
    attrs = list(ds.attributes)
    a_star = _known_attributes(attrs, k, g)
    record = {a: _py(ds.data[a].iat[row]) for a in a_star}
    unique = oracle(record, a_star)
    out = full_differential_attack(proxy, record, a_star, ds.secret, oracle, rng=g,
                                   max_attacked=max_attacked, analyst="differential")
    return (unique, out.guess, out.n_queries, len(out.subset), out.n_samples)


def _cloning_user(ds: Any, proxy: DiffixProxy, row: int, g: np.random.Generator, k: int,
                  params: Mapping[str, Any], domains: Mapping[str, Sequence[Any]],
                  oracle: UniquenessOracle, secret: np.ndarray) -> tuple:
    attrs = list(ds.attributes)
    a_star = _known_attributes(attrs, k, g)
    # ground truth (not the attacker's view): who shares the victim's x^(A*), and their secrets
    share = np.logical_and.reduce([oracle.matches(a, ds.data[a].iat[row]) for a in a_star])
    peers = secret[share]
    vu, un = bool(np.all(peers == secret[row])), bool(peers.size == 1)
    record = {a: _py(ds.data[a].iat[row]) for a in a_star}
    common = dict(v=params["v"], n_dummy=params["n_dummy"], sigma_star=params["sigma_star"], rng=g,
                  analyst="cloning")
    if params["variant"] == "full":
        out = full_cloning_attack(proxy, record, a_star, ds.secret, domains,
                                  double_test=params["double_test"],
                                  max_subsets=params["max_subsets"], **common)
    else:
        out = greedy_full_cloning_attack(proxy, record, a_star, ds.secret, domains, **common)
    return (vu, un, out.attackable, -1 if out.guess is None else out.guess,
            out.n_queries, out.n_subsets, len(out.a_prime), out.s2)


_WORKER: dict[str, Any] = {}


def _init_worker(ds: Any, settings: Mapping[str, Any]) -> None:
    """Worker process: its own proxy with the same salt and switches (same answers)."""
    _WORKER["ds"] = ds
    _WORKER["proxy"] = DiffixProxy(ds.data, **settings)
    _WORKER["oracle"] = UniquenessOracle(ds.data[list(ds.attributes)])
    _WORKER["domains"] = ds.domains()
    _WORKER["secret"] = ds.data[ds.secret].to_numpy()


def _worker_chunk(kind: str, positions: Sequence[int], users: Sequence[int], seed: int, k: int,
                  params: Mapping[str, Any]) -> tuple[list[tuple], int, list[tuple[str, float]]]:
    ds, proxy = _WORKER["ds"], _WORKER["proxy"]
    analyst = "differential" if kind == "differential" else "cloning"
    proxy.reset_log()  # counters and log of this chunk only
    rngs = _user_rngs(seed, len(users))
    out = []
    for pos in positions:
        if kind == "differential":
            out.append(_differential_user(ds, proxy, _WORKER["oracle"], int(users[pos]), rngs[pos], k,
                                          params["max_attacked"]))
        else:
            out.append(_cloning_user(ds, proxy, int(users[pos]), rngs[pos], k, params,
                                     _WORKER["domains"], _WORKER["oracle"], _WORKER["secret"]))
    log = list(proxy.log()[["sql", "answer"]].itertuples(index=False, name=None)) if proxy.keep_log else []
    return out, proxy.n_queries(analyst), log


def _run_users(kind: str, ds: Any, proxy: DiffixProxy, users: np.ndarray, seed: int, k: int,
               params: Mapping[str, Any], n_jobs: int, progress: ProgressFn | None) -> list[tuple]:
    """Run the per-user attack over ``users``, in this process or in ``n_jobs`` worker processes."""
    n = len(users)
    if n_jobs <= 1 or n < 2 * n_jobs:
        rngs = _user_rngs(seed, n)
        out = []
        oracle = UniquenessOracle(ds.data[list(ds.attributes)])
        if kind != "differential":
            domains, secret = ds.domains(), ds.data[ds.secret].to_numpy()
        for i, row in enumerate(users):
            if kind == "differential":
                out.append(_differential_user(ds, proxy, oracle, int(row), rngs[i], k, params["max_attacked"]))
            else:
                out.append(_cloning_user(ds, proxy, int(row), rngs[i], k, params, domains, oracle, secret))
            if progress is not None:
                progress(i + 1, n)
        return out
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    chunks = [c.tolist() for c in np.array_split(np.arange(n), max(n_jobs, min(40, n // 10)))]
    results: dict[int, list[tuple]] = {}
    done = 0
    settings = proxy.settings()
    analyst = "differential" if kind == "differential" else "cloning"
    with ProcessPoolExecutor(n_jobs, mp_context=mp.get_context("spawn"), initializer=_init_worker,
                             initargs=(ds, settings)) as ex:
        futures = {ex.submit(_worker_chunk, kind, c, users.tolist(), seed, k, dict(params)): i
                   for i, c in enumerate(chunks)}
        for fut in as_completed(futures):
            rows, n_q, log = fut.result()
            results[futures[fut]] = rows
            proxy.record_activity(analyst, n_q, log)
            done += len(rows)
            if progress is not None:
                progress(done, n)
    return [r for i in range(len(chunks)) for r in results[i]]


def run_differential_experiment(ds: Any, proxy: DiffixProxy, *, n_users: int = 1000,
                                k_star: int | None = None, full: bool = True, seed: int = 0,
                                max_attacked: int | None = None, n_jobs: int = 1,
                                progress: ProgressFn | None = None) -> pd.DataFrame:
    """Attack ``n_users`` random users of a data set with the differential attack.

    (All users when the data set has fewer, e.g. Complete_2 with 144.)
    ``full=False``: DifferentialAttack with all attributes, no oracle, no
    subset exploration (Complete_k, [G19] Fig. 2). ``full=True``:
    FullDifferentialAttack knowing a random ``A*`` of size ``k_star`` per user
    (Fig. 3). A user without a guess gets a uniformly random one (the paper's
    rule), recorded separately.

    Parameters
    ----------
    ds : DiffixDataset
    proxy : DiffixProxy
        Serving ``ds.data``; queries are counted under the analyst
        ``"differential"``.
    n_jobs : int
        Worker processes for the full attack (each builds its own copy of the
        proxy, with the same salt, so the answers are the same); their
        queries are added to ``proxy``'s counter (and log).

    Returns
    -------
    pandas.DataFrame
        One row per user: ``user`` (row index), ``truth``, ``unique`` (on her
        ``A*``), ``attacked`` (the attack made a guess), ``guess`` (the attack's
        or the random one), ``correct``, ``n_queries``, ``subset_size``,
        ``n_samples``.
    """
    data = ds.data
    attrs = list(ds.attributes)
    users = _sample_users(len(data), n_users, seed)
    guess_rng = np.random.default_rng([seed, 7])
    truth = data[ds.secret].to_numpy()[users].astype(int)
    if not full:
        outs = differential_attack_many(proxy, data.iloc[users], attrs, ds.secret, analyst="differential")
        guesses = [o.guess for o in outs]
        uniq = np.ones(len(users), dtype=bool)
        queries = [o.n_queries for o in outs]
        sizes = [len(attrs)] * len(users)
        samples = [o.q.size + o.r.size for o in outs]
    else:
        k = len(attrs) if k_star is None else _positive_int("k_star", k_star)
        if k > len(attrs):
            raise ValueError(f"k_star must be <= {len(attrs)} (attributes of {ds.name}), got {k}")
        rows = _run_users("differential", ds, proxy, users, seed + 1, k,
                          {"max_attacked": None if max_attacked is None else _positive_int("max_attacked", max_attacked)},
                          _positive_int("n_jobs", n_jobs), progress)
        uniq = np.array([r[0] for r in rows], dtype=bool)
        guesses = [r[1] for r in rows]
        queries = [r[2] for r in rows]
        sizes = [r[3] for r in rows]
        samples = [r[4] for r in rows]
    attacked = np.array([gs is not None for gs in guesses])
    random_guess = guess_rng.integers(0, 2, size=len(users))
    final = np.where(attacked, [gs if gs is not None else -1 for gs in guesses], random_guess)
    return pd.DataFrame({
        "user": users, "truth": truth, "unique": uniq, "attacked": attacked,
        "guess": final.astype(int), "correct": final == truth, "n_queries": queries,
        "subset_size": sizes, "n_samples": samples,
    })


def run_complete_k(k: int, *, B: int = 12, n_users: int = 1000, salt: int | str = 0, rounding: bool = True,
                   bucket_suppression: bool = True, seed: int = 0,
                   n_salts: int = 1) -> tuple[pd.DataFrame, dict[str, Any]]:
    """[G19] Fig. 2, empirical: DifferentialAttack on Complete_k through a Diffix proxy.

    Builds Complete_k (:func:`anonlab.data.diffix_datasets.complete_k`), a
    proxy with the given salt and switches, and attacks ``n_users`` random
    users knowing all k attributes, with no oracle and no subset exploration.
    A victim without samples gets a random guess.

    All victims share the static noise of the few conditions ``a_j <> v``
    and ``s = v``, so one salt gives strongly correlated outcomes. With
    ``n_salts > 1`` the same victims are attacked under further salts
    (``salt:1``, ``salt:2``, ... via :meth:`DiffixProxy.with_salt`) and the
    interval comes from the spread between salts.

    Returns
    -------
    results : pandas.DataFrame
        As :func:`run_differential_experiment`, plus a ``salt`` column.
    summary : dict
        :func:`summarize_differential` of all runs pooled, plus
        ``accuracy_by_salt``, ``accuracy_ci`` (mean +- 2 standard errors over
        salts when ``n_salts > 1``), ``suppressed`` (fraction of the attack's
        queries that were bucket suppressed, from the owner's audit),
        ``pairs_used`` (fraction of the 2k pairs per victim that entered the
        test) and ``queries_per_user``.
    """
    from anonlab.data.diffix_datasets import complete_k

    n_salts = _positive_int("n_salts", n_salts)
    ds = complete_k(k, B=B, seed=[seed, k])
    base = DiffixProxy(ds.data, table="complete", salt=salt, rounding=rounding,
                       bucket_suppression=bucket_suppression)
    runs, supp = [], []
    for i in range(n_salts):
        proxy = base if i == 0 else base.with_salt(f"{salt}:{i}")
        res = run_differential_experiment(ds, proxy, n_users=n_users, full=False, seed=seed)
        runs.append(res.assign(salt=i))
        supp.append(float(proxy.audit("differential")["suppressed"].mean()))
    res = pd.concat(runs, ignore_index=True)
    summary = summarize_differential(res)
    by_salt = [float(r["correct"].mean()) for r in runs]
    if n_salts > 1:
        se = float(np.std(by_salt, ddof=1) / math.sqrt(n_salts))
        summary["accuracy_ci"] = (float(np.mean(by_salt) - 2 * se), float(np.mean(by_salt) + 2 * se))
    summary.update({"k": k, "n_records": ds.n_records, "n_salts": n_salts, "accuracy_by_salt": by_salt,
                    "n_users": len(runs[0]), "suppressed": float(np.mean(supp)),
                    "pairs_used": float(res["n_samples"].mean() / (2 * k)),
                    "queries_per_user": float(res["n_queries"].mean())})
    return res, summary


def differential_sample_moments(k: int, *, B: int = 12, n_salts: int = 40, n_users: int = 100,
                                salt: int = 0, seed: int = 0) -> pd.DataFrame:
    """Mean and variance of the differential samples ``q_j`` by secret (Eq. 6), without rounding or suppression.

    All k pairs of every victim count: the attack itself keeps only pairs
    with both outputs > 0, which truncates the noise and biases the samples.

    Victims sharing a value share the static noise of ``a_j <> x_j``, so the
    samples are drawn under ``n_salts`` salts (independent noise, same data)
    from Complete_k, ``n_users`` victims each.

    Returns
    -------
    pandas.DataFrame
        Rows ``x(s) = 1`` and ``x(s) = 0``: ``n``, ``mean``, ``var``,
        ``var_se`` and the values Eq. 6 predicts.
    """
    from anonlab.data.diffix_datasets import complete_k

    ds = complete_k(k, B=B, seed=[seed, k])
    base = DiffixProxy(ds.data, table="complete", salt=salt, rounding=False, bucket_suppression=False,
                       keep_log=False)
    rng = np.random.default_rng([seed, 11])
    q = {0: [], 1: []}
    for i in range(n_salts):
        proxy = base.with_salt(f"{salt}:{i}")
        users = ds.data.iloc[np.sort(rng.choice(len(ds.data), size=min(n_users, len(ds.data)), replace=False))]
        for o, sv in zip(differential_attack_many(proxy, users, ds.attributes, ds.secret), users[ds.secret]):
            q[int(sv)].append(o.all_pairs[0])  # every s = 0 pair: the attack's > 0 filter would bias them
    rows = []
    for sv, mean, var in ((1, 0.0, 2.0), (0, 1.0, 2.0 * k + 2.0)):
        x = np.concatenate(q[sv])
        rows.append({"secret": sv, "n": x.size, "mean": float(x.mean()), "var": float(x.var(ddof=1)),
                     "var_se": float(x.var(ddof=1) * math.sqrt(2 / (x.size - 1))),
                     "eq6_mean": mean, "eq6_var": var})
    return pd.DataFrame(rows)


def run_cloning_experiment(ds: Any, proxy: DiffixProxy, *, n_users: int = 1000, k_star: int | None = None,
                           variant: str = "full", double_test: bool = False, v: int = 0,
                           n_dummy: int = 10, sigma_star: float = 0.7, max_subsets: int | None = None,
                           seed: int = 0, n_jobs: int = 1,
                           progress: ProgressFn | None = None) -> pd.DataFrame:
    """Attack ``n_users`` random users with the full (or greedy) cloning attack.

    Each user's ``A*`` is a random set of ``k_star`` attributes (all of them
    by default). Ground truth: value-uniqueness of the user on ``A*`` in the
    data (:func:`anonlab.data.diffix_datasets.uniqueness`).

    Parameters
    ----------
    variant : {"full", "greedy"}
        :func:`full_cloning_attack` or :func:`greedy_full_cloning_attack`.
    double_test : bool
        The §5 variant (full only).
    n_jobs : int
        Worker processes (see :func:`run_differential_experiment`); the
        results do not depend on it.

    Returns
    -------
    pandas.DataFrame
        One row per user: ``user``, ``truth``, ``value_unique``, ``unique``,
        ``attackable``, ``guess`` (-1 if none), ``correct``, ``n_queries``,
        ``n_subsets``, ``a_prime_size``, ``s2``.
    """
    if variant not in ("full", "greedy"):
        raise ValueError(f"variant must be 'full' or 'greedy', got {variant!r}")
    if double_test and variant != "full":
        raise ValueError("the double test is a variant of the full cloning attack")
    if v not in (0, 1):
        raise ValueError(f"v must be 0 or 1, got {v!r}")
    n_dummy, sigma_star = _cloning_settings(n_dummy, sigma_star)
    if max_subsets is not None:
        _positive_int("max_subsets", max_subsets)
    data = ds.data
    attrs = list(ds.attributes)
    k = len(attrs) if k_star is None else _positive_int("k_star", k_star)
    if not 2 <= k <= len(attrs):
        raise ValueError(f"k_star must be in [2, {len(attrs)}] for {ds.name}, got {k}")
    users = _sample_users(len(data), n_users, seed)
    truth = data[ds.secret].to_numpy()[users].astype(int)
    params = {"variant": variant, "double_test": double_test, "v": v, "n_dummy": n_dummy,
              "sigma_star": sigma_star, "max_subsets": max_subsets}
    rows = _run_users("cloning", ds, proxy, users, seed + 1, k, params, _positive_int("n_jobs", n_jobs),
                      progress)
    df = pd.DataFrame(rows, columns=["value_unique", "unique", "attackable", "guess", "n_queries",
                                     "n_subsets", "a_prime_size", "s2"])
    df.insert(0, "truth", truth)
    df.insert(0, "user", users)
    df["correct"] = df["attackable"] & (df["guess"] == df["truth"])
    return df


def summarize_differential(res: pd.DataFrame) -> dict[str, Any]:
    """The Fig. 2 / Fig. 3 quantities of one differential experiment, with Wilson intervals.

    ``accuracy``: correct guesses (random ones included) over all users;
    ``accuracy_unique``: the same over users unique on their ``A*`` (the
    paper's "correctly inferred / unique"); ``unique``: fraction of unique
    users; ``attacked``: fraction with a guess of the attack's own;
    ``precision_attacked``: accuracy of those guesses.
    """
    from anonlab.measures import wilson_interval

    n = len(res)
    out: dict[str, Any] = {"n_users": n}

    def rate(name: str, succ: int, tot: int) -> None:
        out[name] = succ / tot if tot else float("nan")
        lo, hi = wilson_interval(succ, tot)
        out[name + "_ci"] = (float(lo), float(hi))

    rate("accuracy", int(res["correct"].sum()), n)
    u = res[res["unique"]]
    rate("accuracy_unique", int(u["correct"].sum()), len(u))
    rate("unique", int(res["unique"].sum()), n)
    rate("attacked", int(res["attacked"].sum()), n)
    a = res[res["attacked"]]
    rate("precision_attacked", int(a["correct"].sum()), len(a))
    out["correct_fraction"] = float(res["correct"].mean())
    out["median_queries"] = float(res["n_queries"].median())
    out["max_queries"] = int(res["n_queries"].max())
    return out


def summarize_cloning(res: pd.DataFrame) -> dict[str, Any]:
    """The Table 1 / Fig. 4 / Table 2 quantities of one cloning experiment, with Wilson intervals.

    ``value_unique``: fraction of users value-unique on their ``A*``;
    ``attackable``: fraction predicted attackable (all users);
    ``attackable_of_vu``: the same among value-unique users (Table 1's fourth
    column); ``accuracy_pa``: correct among predicted attackable;
    ``accuracy_all``: correct among all users (NonAttackable counts as not
    inferred); query statistics per user.
    """
    from anonlab.measures import wilson_interval

    n = len(res)
    out: dict[str, Any] = {"n_users": n}

    def rate(name: str, succ: int, tot: int) -> None:
        out[name] = succ / tot if tot else float("nan")
        lo, hi = wilson_interval(succ, tot)
        out[name + "_ci"] = (float(lo), float(hi))

    rate("value_unique", int(res["value_unique"].sum()), n)
    rate("unique", int(res["unique"].sum()), n)
    rate("attackable", int(res["attackable"].sum()), n)
    vu = res[res["value_unique"]]
    rate("attackable_of_vu", int(vu["attackable"].sum()), len(vu))
    pa = res[res["attackable"]]
    rate("accuracy_pa", int(pa["correct"].sum()), len(pa))
    rate("accuracy_all", int(res["correct"].sum()), n)
    out["median_queries"] = float(res["n_queries"].median())
    out["max_queries"] = int(res["n_queries"].max())
    out["mean_queries"] = float(res["n_queries"].mean())
    return out


def majority_baseline(truth: Any, predicted_mask: Any = None, majority: int | None = None) -> dict[str, float]:
    """Precision of guessing the majority secret value on the same targets, and the attack's PI.

    The book's yardstick until the non-member baseline exists: an attacker
    who knows only the secret's distribution and always guesses its most
    common value. ``majority`` defaults to the most common value among
    ``truth``; ``predicted_mask`` restricts to the targets the attack made a
    prediction for (equal coverage).
    """
    t = np.asarray(truth).astype(int)
    m = np.ones(t.shape, dtype=bool) if predicted_mask is None else np.asarray(predicted_mask, dtype=bool)
    if majority is None:
        majority = int(np.bincount(t, minlength=2).argmax())
    sel = t[m]
    return {"majority": majority, "precision": float(np.mean(sel == majority)) if sel.size else float("nan"),
            "n": int(sel.size)}


def inference_yardstick(truth: Any, guess: Any, predicted: Any, *, majority: int) -> dict[str, float]:
    """Score a binary secret-inference attack the book's way: precision at its coverage, against a baseline.

    Two readings of [FW24] §4 for a binary secret ``s``, both at the attack's
    own coverage (the baseline predicts for exactly the targets the attack
    predicts for, so ``C_atk == C_base`` as Eq. 6 requires):

    * all guesses: ``precision`` is the fraction of the attack's guesses that
      are right; the baseline guesses the data set's ``majority`` value for
      every covered target; ``PI = (P_atk - P_base) / (1 - P_base)`` (Eq. 6).
    * the rare value ``m = 1 - majority`` (the attribute value worth
      inferring: high income, bad credit): ``precision_rare`` is
      ``P(truth = m | guess = m)`` over the covered targets, the baseline is
      the prevalence of ``m`` among them (a guesser with no information about
      the target), ``recall_rare`` the share of covered targets with ``m``
      whom the attack finds.

    Parameters
    ----------
    truth, guess : array_like of int
        True and guessed secret per target (``guess`` is ignored where
        ``predicted`` is False).
    predicted : array_like of bool
        The targets the attack makes a prediction for (not NonAttackable, not
        a random guess).
    majority : {0, 1}
        The most common secret value in the data set.

    Returns
    -------
    dict
        ``targets``, ``coverage``, ``precision``, ``baseline_precision``,
        ``PI``, ``rare_guesses``, ``precision_rare``, ``baseline_rare``,
        ``PI_rare``, ``recall_rare``; ``nan`` where a ratio has no
        denominator.

    Examples
    --------
    >>> y = inference_yardstick([0, 0, 1, 1], [0, 1, 1, 0], [True, True, True, False], majority=0)
    >>> y["coverage"], round(y["precision"], 3), round(y["baseline_precision"], 3), y["precision_rare"]
    (0.75, 0.667, 0.667, 0.5)
    """
    from anonlab.measures import precision_improvement

    if majority not in (0, 1):
        raise ValueError(f"majority must be 0 or 1, got {majority!r}")
    t = np.asarray(truth).astype(int)
    g = np.asarray(guess).astype(int)
    m = np.asarray(predicted, dtype=bool)
    if not t.shape == g.shape == m.shape:
        raise ValueError(f"truth, guess and predicted must have the same length, got {t.shape}, {g.shape}, {m.shape}")

    def ratio(a: int, b: int) -> float:
        return a / b if b else float("nan")

    rare = 1 - int(majority)
    tc, gc = t[m], g[m]
    p_att = ratio(int(np.sum(tc == gc)), tc.size)
    p_base = majority_baseline(t, m, majority=int(majority))["precision"]
    p_rare = ratio(int(np.sum((gc == rare) & (tc == rare))), int(np.sum(gc == rare)))
    b_rare = ratio(int(np.sum(tc == rare)), tc.size)
    return {
        "targets": int(t.size), "coverage": ratio(int(m.sum()), t.size),
        "precision": p_att, "baseline_precision": p_base, "PI": float(precision_improvement(p_att, p_base)),
        "rare_guesses": int(np.sum(gc == rare)), "precision_rare": p_rare, "baseline_rare": b_rare,
        "PI_rare": float(precision_improvement(p_rare, b_rare)),
        "recall_rare": ratio(int(np.sum((gc == rare) & (tc == rare))), int(np.sum(tc == rare))),
    }


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------


def _rng(rng: np.random.Generator | int | None) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def _cloning_settings(n_dummy: Any, sigma_star: Any) -> tuple[int, float]:
    """Check ``|Delta|`` (an integer >= 2: a variance needs two samples) and ``sigma*`` (a number >= 0)."""
    n = _positive_int("n_dummy", n_dummy)
    if n < 2:
        raise ValueError(f"n_dummy must be >= 2 (a variance needs two samples), got {n}")
    if isinstance(sigma_star, bool) or not isinstance(sigma_star, (int, float)) or not sigma_star >= 0:
        raise ValueError(f"sigma_star must be a number >= 0, got {sigma_star!r}")
    return n, float(sigma_star)


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)

"""The theory of the Diffix attacks: the likelihood-ratio test, acc(k), Eq. 6 and the miss probability.

[G19] A. Gadotti, F. Houssiau, L. Rocher, B. Livshits, Y.-A. de Montjoye, *When the signal is in the noise*, USENIX
Security 2019. The differential attack's test separates f = N(0, 2) from g = N(1, 2k + 2) (Eq. 6); its accuracy acc(k)
(App. A) exactly by Imhof's method for the Fact's combination of non-central chi-squares, by Monte Carlo and with
rounded outputs (:func:`accuracy_curves` tables Fig. 2); the cloning test's own error (§3.2); and the result §6 cites,
Dinur & Nissim's reconstruction from subset sums with noise o(√n).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import integrate, stats

from anonlab.validation import check_random_state
from anonlab.streams import stream

from ._common import _cloning_settings, _positive_int

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
    "llr_rows",
    "error_probabilities",
    "simulated_accuracy_rounding",
    "accuracy_curves",
    "cloning_miss_probability",
    "dinur_nissim_recovery",
]

# ---------------------------------------------------------------------------
# The likelihood-ratio test and its accuracy (§3.1, Appendix A)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LRTestParameters:
    """The two normals the test separates ([G19] App. A): f = N(mu0, var0), g = N(mu1, var1), n samples each."""

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


def differential_distributions(k: int, noise_sd: float = 1.0) -> LRTestParameters:
    """Eq. 6 for k known attributes: f = N(0, 2σ²), g = N(1, (2k + 2)σ²), n = k; σ = ``noise_sd`` (Diffix: 1).

    >>> differential_distributions(5)
    LRTestParameters(mu0=0.0, var0=2.0, mu1=1.0, var1=12.0, n=5)
    >>> differential_distributions(5, noise_sd=2.0)
    LRTestParameters(mu0=0.0, var0=8.0, mu1=1.0, var1=48.0, n=5)
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    if not (math.isfinite(noise_sd) and noise_sd > 0):
        raise ValueError(f"noise_sd must be a finite number > 0, got {noise_sd!r}")
    v = float(noise_sd) ** 2
    return LRTestParameters(0.0, 2.0 * v, 1.0, (2.0 * k + 2.0) * v, int(k))


def log_likelihood_ratio(q: Any, r: Any, k: int) -> float:
    """log Λ(q, r) = Σ_j log f(q_j)/g(q_j) + Σ_j log g(r_j)/f(r_j) ([G19] App. A; f, g of Eq. 6).

    ``q`` from the s = 0 pairs, ``r`` from the s = 1 pairs (either may be empty). A single q_1 = 0 favours x^(s) = 1:

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
    """The differential attack's decision: x^(s) = 1 if Λ(q, r) >= 1, else 0 ([G19] §3.1, lines 23-25)."""
    return int(log_likelihood_ratio(q, r, k) >= 0.0)


def chi2_combination(p: LRTestParameters) -> tuple[float, float, float, float]:
    """The Fact of [G19] App. A, p_err = Pr[α0 Z0 - α1 Z1 < 0]: returns (α0, α1, λ0, λ1).

    Z_i ~ χ²(n, λ_i), λ_i = n (μ_i/σ_i + (μ0 σ1² - μ1 σ0²) / (σ_i (σ0² - σ1²)))², α_i = (σ0² - σ1²) / (2 σ_{1-i}²).
    For k = 1 (f = N(0, 2), g = N(1, 4)):

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
    """Pr[Q > x] for Q = Σ_j w_j χ²(h_j, δ_j) by Imhof's method (Biometrika 48, 1961, Eq. 3.2).

    Pr[Q > x] = 1/2 + 1/π ∫_0^∞ sin θ(u) / (u ρ(u)) du by adaptive quadrature (the paper used sadists' saddle-point
    approximations); weights non-zero, h_j > 0, δ_j >= 0.

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
    """Exact error p_err = Pr[σ0² Z0 - σ1² Z1 > 0] of the test ([G19] App. A, Fact), both errors being equal."""
    _, _, lam0, lam1 = chi2_combination(p)
    return imhof_sf(0.0, [p.var0, -p.var1], [p.n, p.n], [lam0, lam1])


def theoretical_accuracy(k: int, noise_sd: float = 1.0) -> float:
    """acc(k) = 1 - p_err(k) for Eq. 6 ([G19] App. A), no rounding or suppression; ``noise_sd`` scales the variances.

    >>> round(theoretical_accuracy(1), 3)
    0.673
    """
    return 1.0 - lr_test_error(differential_distributions(k, noise_sd))


def monte_carlo_accuracy(k: int, n_experiments: int = 100_000,
                         seed: np.random.Generator | int | None = 0) -> float:
    """Monte Carlo acc(k): draw 2k samples under each hypothesis (q ~ f, r ~ g and the reverse) and test."""
    p = differential_distributions(k)
    g = check_random_state(seed)
    n = _positive_int("n_experiments", n_experiments)
    sf, sg = math.sqrt(p.var0), math.sqrt(p.var1)
    correct = 0
    for truth in (1, 0):
        a = g.normal(p.mu0, sf, (n, k))
        b = g.normal(p.mu1, sg, (n, k))
        q, r = (a, b) if truth == 1 else (b, a)
        llr = llr_rows(q, r, p)
        correct += int(np.sum((llr >= 0) == (truth == 1)))
    return correct / (2 * n)


_LOG_SQRT_2PI = np.log(np.sqrt(2 * np.pi))


def _norm_logpdf(x: np.ndarray, loc: float, scale: float) -> np.ndarray:
    """``scipy.stats.norm.logpdf(x, loc, scale)`` for an array, the same operations without its overhead.

    >>> x = np.array([[-3.0, 0.5], [1.0, 7.25]])
    >>> bool(np.array_equal(_norm_logpdf(x, 1.0, 2.5), stats.norm.logpdf(x, 1.0, 2.5)))
    True
    """
    x = np.asarray(x, dtype=np.float64)
    z = (x - np.asarray(loc, dtype=np.float64)) / np.asarray(scale, dtype=np.float64)
    return -z**2 / 2.0 - _LOG_SQRT_2PI - np.log(np.full(1, scale, dtype=np.float64))


def llr_rows(q: np.ndarray, r: np.ndarray, p: LRTestParameters,
              q_ok: np.ndarray | None = None, r_ok: np.ndarray | None = None) -> np.ndarray:
    """Row-wise log Λ for ``q``, ``r`` of shape (n, k); ``*_ok`` masks select the samples that count.

    >>> p = differential_distributions(1)
    >>> bool(np.isclose(llr_rows(np.array([[0.0]]), np.zeros((1, 0)), p)[0], log_likelihood_ratio([0.0], [], 1)))
    True
    """
    sf, sg = math.sqrt(p.var0), math.sqrt(p.var1)
    dq = _norm_logpdf(q, p.mu0, sf) - _norm_logpdf(q, p.mu1, sg)
    dr = _norm_logpdf(r, p.mu1, sg) - _norm_logpdf(r, p.mu0, sf)
    if q_ok is not None:
        dq = np.where(q_ok, dq, 0.0)
    if r_ok is not None:
        dr = np.where(r_ok, dr, 0.0)
    return dq.sum(axis=1) + dr.sum(axis=1)


def error_probabilities(k: int, n_experiments: int = 40_000,
                        seed: np.random.Generator | int | None = 0) -> tuple[float, float]:
    """Monte Carlo of the two error probabilities apart ([G19] App. A: p_err0 = p_err1).

    p_err0: says 0 although x^(s) = 1 (q ~ f, r ~ g); p_err1 the reverse. Draws f samples of shape (2, n_experiments,
    k), then g samples.

    >>> e0, e1 = error_probabilities(5, 20_000, seed=0)
    >>> abs(e0 - e1) < 0.02 and abs(1 - e0 - theoretical_accuracy(5)) < 0.02
    True
    """
    p = differential_distributions(k)
    n = _positive_int("n_experiments", n_experiments)
    g = check_random_state(seed)
    f_ = g.normal(0, math.sqrt(2), (2, n, k))
    g_ = g.normal(1, math.sqrt(2 * k + 2), (2, n, k))
    return (float(np.mean(llr_rows(f_[0], g_[0], p) < 0)), float(np.mean(llr_rows(g_[1], f_[1], p) >= 0)))


def simulated_accuracy_rounding(k: int, n_experiments: int = 1000, B: int = 12,
                                seed: np.random.Generator | int | None = 0,
                                rounding: bool = True, share_static: bool = False,
                                noise_sd: float = 1.0) -> float:
    """Accuracy of the test when Diffix's outputs are rounded ([G19] App. A, numerical simulation).

    Simulates the 4k outputs (Eq. 1, no suppression) on Complete_k with ``B`` values per attribute, ``n_experiments``
    per secret value (the paper: 1000); samples round(Q_j) - round(Q'_j), null outputs included. Static noise once per
    pair (the paper's independence) or, with ``share_static``, once per condition as Diffix draws it.
    ``rounding=False`` checks the closed form; ``noise_sd`` scales every layer. Returns the fraction correct over
    2·n_experiments runs.
    """
    p = differential_distributions(k, noise_sd)
    g = check_random_state(seed)
    n = _positive_int("n_experiments", n_experiments)
    sd = float(noise_sd)
    if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 2:
        raise ValueError(f"B must be an integer >= 2, got {B!r}")
    rnd = (lambda x: np.maximum(np.rint(x), 0.0)) if rounding else (lambda x: x)  # noqa: E731
    correct = 0
    for secret in (1, 0):
        # static noise per distinct condition: a_i = x_i (k), a_j <> x_j (k), s = 0, s = 1
        st_eq = g.standard_normal((n, k)) * sd
        st_ne = g.standard_normal((n, k)) * sd
        st_s = g.standard_normal((n, 2)) * sd
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
                shared = g.normal(0.0, math.sqrt(k), (n, k)) * sd
                neg = g.standard_normal((n, k)) * sd
            dyn_q = g.normal(0.0, math.sqrt(k), (n, k)) * sd  # k dynamic layers of Q_j's query set
            # the victim outside both sets: same query set, same dynamic noise per shared condition
            dyn_qbar = g.normal(0.0, math.sqrt(k), (n, k)) * sd if victim_in else dyn_q
            dyn_neg = g.standard_normal((n, k)) * sd  # dynamic noise of a_j <> x_j in Q'_j
            big_q = others + victim_in + shared + dyn_q
            small_q = others + shared + dyn_qbar + neg + dyn_neg
            samples.append(rnd(big_q) - rnd(small_q))
        llr = llr_rows(samples[0], samples[1], p)
        correct += int(np.sum((llr >= 0) == (secret == 1)))
    return correct / (2 * n)


def accuracy_curves(k_values: Sequence[int], *, n_monte_carlo: int = 100_000, n_simulations: int = 1000,
                    B: int = 12, seed: int = 0) -> pd.DataFrame:
    """The curves of [G19] Fig. 2 and their checks, one row per k.

    Columns ``theory``, ``monte_carlo``, ``rounding``, ``rounding_shared_static`` and ``mc_se`` (standard error of the
    Monte Carlo column).
    """
    rows = []
    for i, k in enumerate(k_values):
        th = theoretical_accuracy(int(k))
        rows.append({
            "k": int(k), "theory": th,
            "monte_carlo": monte_carlo_accuracy(int(k), n_monte_carlo, seed=stream(seed, "diffix.theory_monte_carlo", i)),
            "rounding": simulated_accuracy_rounding(int(k), n_simulations, B=B,
                                                    seed=stream(seed, "diffix.theory_rounding", i)),
            "rounding_shared_static": simulated_accuracy_rounding(int(k), n_simulations, B=B,
                                                                  seed=stream(seed, "diffix.theory_filtered", i),
                                                                  share_static=True),
            "mc_se": math.sqrt(th * (1 - th) / (2 * n_monte_carlo)),
        })
    return pd.DataFrame(rows)



def cloning_miss_probability(n_dummy: int, sigma_star: float) -> float:
    """P(S² <= σ*) when the victim *is* in the s = v query set: the variance test's own error ([G19] §3.2).

    Inside, only the omitted dummy's two dynamic layers vary across j, so var(q_j) = 2 and, without rounding, (|Δ| -
    1) S² / 2 ~ χ²_{|Δ|-1}: P = F((|Δ| - 1) σ* / 2). Such a victim is guessed 1 - v.

    >>> round(cloning_miss_probability(10, 0.7), 4)
    0.042
    """
    n, sigma_star = _cloning_settings(n_dummy, sigma_star)
    return float(stats.chi2.cdf((n - 1) * sigma_star / 2.0, n - 1))


# ---------------------------------------------------------------------------
# §6: the reconstruction result the paper cites
# ---------------------------------------------------------------------------


def dinur_nissim_recovery(n: int, noise_bound: float, *, n_queries: int | None = None,
                          seed: np.random.Generator | int | None = 0) -> float:
    """Share of ``n`` secret bits recovered from noisy subset sums by an LP (Dinur & Nissim 2003; [G19] §6).

    ``n_queries`` (default 4n) random halves answered Σ_S x_i + e_S, |e_S| <= ``noise_bound``; any feasible y in [0,
    1]^n rounded at 1/2. Noise o(√n) recovers all but o(n) bits, order √n does not.

    >>> dinur_nissim_recovery(64, 0.4, seed=0)  # noise below 1/2: the sums pin every bit
    1.0
    """
    from scipy.optimize import linprog

    n = _positive_int("n", n)
    m = 4 * n if n_queries is None else _positive_int("n_queries", n_queries)
    if not noise_bound >= 0:
        raise ValueError(f"noise_bound must be >= 0, got {noise_bound!r}")
    g = check_random_state(seed)
    x = g.integers(0, 2, n)
    subsets = g.integers(0, 2, (m, n)).astype(float)
    answers = subsets @ x + g.uniform(-noise_bound, noise_bound, m)
    res = linprog(np.zeros(n), A_ub=np.vstack([subsets, -subsets]),
                  b_ub=np.concatenate([answers + noise_bound, noise_bound - answers]), bounds=(0, 1), method="highs")
    if res.x is None:  # pragma: no cover - x itself is feasible
        raise RuntimeError(f"the reconstruction program found no solution: {res.message}")
    return float(np.mean((res.x > 0.5) == x))

r"""The privacy loss random variable, δ(ε), and passive vs active partial knowledge.

After D. Desfontaines, *Lowering the cost of anonymization* (PhD thesis, ETH Zürich 2020), §2.2.2 and §3.1.3. Privacy
loss L = ln Pr[M(D) = O | D_i = t, B] / Pr[M(D) = O | D_i = t', B] (Definitions 13, 56; ln(x/0) = +∞); δ(ε) = E[max(0,
1 - e^(ε-L))] = Σ_o max(0, P_t(o) - e^ε P_t'(o)) (Proposition 8); active δ_A = max_B δ_B (APKDP, Definition 57),
passive δ_P = Σ_B Pr[B] δ_B (PPKDP, Definition 58; Theorem 1), each over both ordered pairs (t, t'). Computed in log
space: passive δ far below 1e-300 occurs (Example 7).

>>> pld = privacy_loss_distribution(np.log([0.5, 0.5]), np.log([0.25, 0.75]))
>>> [round(float(x), 4) for x in pld.loss]
[0.6931, -0.4055]
>>> float(delta(pld, [0.0])[0])  # Σ max(0, P - Q) = 0.5 - 0.25
0.25
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..validation import ParameterError, check_int
from anonlab.intervals import wilson_interval

__all__ = [
    "LOSS_TOLERANCE",
    "logsumexp",
    "DIRECTIONS",
    "PrivacyLossDistribution",
    "privacy_loss_distribution",
    "log_delta",
    "delta",
    "same_privacy_loss",
    "PartialKnowledgeDelta",
    "partial_knowledge_delta",
    "MonteCarloDelta",
    "monte_carlo_delta",
    "post_process",
    "mix",
]

def logsumexp(a: np.ndarray, axis: int | None = None) -> np.ndarray | float:
    """log Σ exp(a) along ``axis``; ``-inf`` for an empty sum or all ``-inf`` (numpy only, fast).

    >>> float(logsumexp(np.log([1.0, 3.0])))
    1.3862943611198906
    >>> float(logsumexp(np.array([-np.inf, -np.inf])))
    -inf
    """
    a = np.asarray(a, dtype=float)
    if a.size == 0:
        return -np.inf if axis is None else np.full(np.delete(a.shape, axis), -np.inf)
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    out = np.squeeze(out, axis=axis) if axis is not None else out.reshape(())
    return float(out) if out.ndim == 0 else out


LOSS_TOLERANCE = 1e-9
"""Privacy losses within this of ε count as equal to ε (floating-point rounding of a log ratio).

An atom with loss in (ε, ε + 1e-9] would add at most 1e-9 times its
probability to δ; treating it as ε keeps exact zeros exact (a noisy count's
loss is exactly ε_N in theory, ε_N ± 1e-12 in floating point)."""

DIRECTIONS = ((1, 0), (0, 1))
"""The ordered pairs (t, t') of the target's vote: Yes vs No, and No vs Yes."""


def _eps_grid(epsilons: Iterable[float]) -> np.ndarray:
    eps = np.asarray(list(epsilons), dtype=float)
    if eps.ndim != 1 or not len(eps):
        raise ParameterError("epsilons must be a non-empty list of numbers")
    if np.isnan(eps).any() or (eps < 0).any():
        raise ParameterError(f"every epsilon must be >= 0 (inf allowed), got {eps.tolist()}")
    return eps


@dataclass(frozen=True)
class PrivacyLossDistribution:
    """The distribution of the privacy loss L under O ~ P_t: atoms (log-probability, loss).

    ``loss`` may hold ``+inf`` (outputs impossible under t') and ``-inf``.
    """

    log_prob: np.ndarray
    loss: np.ndarray

    def log_mass_infinite(self) -> float:
        """log Pr[L = +∞]: the probability that the output rules t' out."""
        inf = np.isposinf(self.loss)
        return float(logsumexp(self.log_prob[inf])) if inf.any() else -np.inf

    def canonical(self, decimals: int = 9) -> pd.DataFrame:
        """Atoms with equal loss (rounded) merged, sorted by loss: the distribution itself."""
        key = np.round(np.where(np.isfinite(self.loss), self.loss, np.sign(self.loss) * 1e30), decimals)
        df = pd.DataFrame({"loss": key, "log_prob": self.log_prob})
        df = df[np.isfinite(df.log_prob)]
        out = df.groupby("loss", sort=True)["log_prob"].agg(lambda s: float(logsumexp(s.to_numpy())))
        return out.reset_index()


def privacy_loss_distribution(log_p: np.ndarray, log_q: np.ndarray) -> PrivacyLossDistribution:
    r"""The PLRV L = ln P(O)/Q(O) under O ~ P from log-probabilities on common atoms (``+inf`` where Q = 0)."""
    log_p = np.asarray(log_p, dtype=float)
    log_q = np.asarray(log_q, dtype=float)
    if log_p.shape != log_q.shape:
        raise ValueError(f"P and Q need the same atoms, got shapes {log_p.shape} and {log_q.shape}")
    keep = np.isfinite(log_p)
    lp, lq = log_p[keep], log_q[keep]
    loss = np.where(np.isfinite(lq), lp - np.where(np.isfinite(lq), lq, 0.0), np.inf)
    return PrivacyLossDistribution(lp, loss)


def log_delta(pld: PrivacyLossDistribution, epsilons: Iterable[float],
              tolerance: float = LOSS_TOLERANCE) -> np.ndarray:
    r"""log δ(ε) = logsumexp over L_j > ε of log p_j + log(1 - e^(ε-L_j)) (Proposition 8), exact.

    ``-inf`` where δ = 0; ``ε = inf`` gives log Pr[L = +∞].

    >>> pld = privacy_loss_distribution(np.log([0.9, 0.1]), np.array([np.log(0.1), -np.inf]))
    >>> [round(float(np.exp(v)), 4) for v in log_delta(pld, [0.0, np.inf])]
    [0.9, 0.1]
    """
    return _log_delta(pld, _eps_grid(epsilons), tolerance)


def _log_delta(pld: PrivacyLossDistribution, eps: np.ndarray, tolerance: float = LOSS_TOLERANCE) -> np.ndarray:
    """:func:`log_delta` on an ε grid already checked by ``_eps_grid``."""
    lp, loss = pld.log_prob, pld.loss
    out = np.full(len(eps), -np.inf)
    fin = np.isfinite(eps)
    if np.isinf(eps).any():
        out[~fin] = pld.log_mass_infinite()
    if not len(lp) or not fin.any():
        return out
    e = eps[fin][None, :]
    some = loss > e.min() + tolerance                  # atoms with a loss above some ε: the others add 0
    lp, loss = lp[some], loss[some]
    hit = loss[:, None] > e + tolerance                                   # atoms × ε
    with np.errstate(invalid="ignore", over="ignore"):
        gap = np.where(np.isposinf(loss)[:, None], -np.inf, e - loss[:, None])
        gap = np.where(hit, gap, -1.0)                                    # placeholder, masked below
        terms = np.where(hit, lp[:, None] + np.log(-np.expm1(gap)), -np.inf)
    out[fin] = logsumexp(terms, axis=0)
    return out


def delta(pld: PrivacyLossDistribution, epsilons: Iterable[float]) -> np.ndarray:
    """δ(ε) in linear space (values below ~1e-308 become 0: use :func:`log_delta` for those)."""
    return np.exp(log_delta(pld, epsilons))


def same_privacy_loss(a: PrivacyLossDistribution, b: PrivacyLossDistribution,
                      atol: float = 1e-9) -> bool:
    """Do two PLRVs have the same distribution within ``atol``? (What Θ-reducibility gives, Theorem 2.)"""
    ca, cb = a.canonical(), b.canonical()
    if len(ca) != len(cb):
        return False
    return bool(np.allclose(ca.loss, cb.loss, atol=atol, rtol=0)
                and np.allclose(np.exp(ca.log_prob), np.exp(cb.log_prob), atol=atol, rtol=0))


@dataclass(frozen=True)
class PartialKnowledgeDelta:
    """δ_b(ε) for every partial knowledge b, and the passive and active δ.

    Arrays ``log_delta_by_background`` (direction, b, ε) and ``log_infinite_by_background`` (direction, b: log Pr[L =
    +∞]) over the ordered pairs of :data:`DIRECTIONS`, with ``log_background`` = log Pr[B = b].
    """

    epsilons: np.ndarray
    backgrounds: np.ndarray
    log_background: np.ndarray
    log_delta_by_background: np.ndarray
    log_infinite_by_background: np.ndarray

    @property
    def log_passive_by_direction(self) -> np.ndarray:
        """log δ_P(ε) per direction: Σ_b Pr[B=b] δ_b(ε) (PPKDP, Definition 58; Theorem 1)."""
        return logsumexp(self.log_delta_by_background + self.log_background[None, :, None], axis=1)

    @property
    def log_active_by_direction(self) -> np.ndarray:
        """log δ_A(ε) per direction: max_b δ_b(ε) (APKDP, Definition 57; Theorem 1)."""
        return self.log_delta_by_background.max(axis=1)

    @property
    def log_passive(self) -> np.ndarray:
        """log δ_P(ε), the maximum over both directions."""
        return self.log_passive_by_direction.max(axis=0)

    @property
    def log_active(self) -> np.ndarray:
        """log δ_A(ε), the maximum over both directions."""
        return self.log_active_by_direction.max(axis=0)

    @property
    def log_passive_infinite(self) -> float:
        """log Pr[L = +∞] for the passive attacker (max over directions)."""
        return float(logsumexp(self.log_infinite_by_background + self.log_background[None, :], axis=1).max())

    @property
    def log_active_infinite(self) -> float:
        """log max_b Pr[L = +∞]: how often the output settles the target's vote, worst case."""
        return float(self.log_infinite_by_background.max())

    def worst_background(self, epsilon_index: int = 0) -> int:
        """The partial knowledge that maximises δ at ``epsilons[epsilon_index]`` (APKDP's choice)."""
        per_b = self.log_delta_by_background[:, :, epsilon_index].max(axis=0)
        return int(self.backgrounds[int(np.argmax(per_b))])

    def table(self) -> pd.DataFrame:
        """One row per ε: log10 and value of the passive and active δ."""
        ln10 = np.log(10)
        return pd.DataFrame({
            "epsilon": self.epsilons,
            "log10_delta_passive": self.log_passive / ln10,
            "log10_delta_active": self.log_active / ln10,
            "delta_passive": np.exp(self.log_passive),
            "delta_active": np.exp(self.log_active),
        })


def partial_knowledge_delta(
    conditional: Callable[[int], tuple[np.ndarray, np.ndarray]],
    backgrounds: Sequence[int],
    log_background: np.ndarray,
    epsilons: Iterable[float],
) -> PartialKnowledgeDelta:
    """δ_b(ε) for every background b, from ``conditional(b) -> (log_p_no, log_p_yes)`` on common atoms.

    ``log_background`` is log Pr[B = b] under the data distribution (for the passive attacker).
    """
    eps = _eps_grid(epsilons)
    bs = np.asarray(list(backgrounds))
    lb = np.asarray(log_background, dtype=float)
    if lb.shape != bs.shape:
        raise ValueError("log_background needs one value per background")
    out = np.empty((2, len(bs), len(eps)))
    inf = np.empty((2, len(bs)))
    for j, b in enumerate(bs):
        logs = conditional(int(b))
        for d, (t, t2) in enumerate(DIRECTIONS):
            pld = privacy_loss_distribution(logs[t], logs[t2])
            out[d, j] = _log_delta(pld, eps)
            inf[d, j] = pld.log_mass_infinite()
    return PartialKnowledgeDelta(eps, bs, lb, out, inf)


@dataclass(frozen=True)
class MonteCarloDelta:
    """A Monte Carlo estimate of δ(ε) with its confidence interval, per ε."""

    epsilons: np.ndarray
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n_samples: int

    def contains(self, exact: np.ndarray) -> np.ndarray:
        """Is each exact δ inside the interval?"""
        exact = np.asarray(exact, dtype=float)
        return (self.low - 1e-12 <= exact) & (exact <= self.high + 1e-12)

    def table(self, exact: np.ndarray | None = None) -> pd.DataFrame:
        df = pd.DataFrame({"epsilon": self.epsilons, "monte_carlo": self.estimate,
                           "ci_low": self.low, "ci_high": self.high})
        if exact is not None:
            df["exact"] = exact
            df["inside"] = self.contains(exact)
        return df


def monte_carlo_delta(losses: np.ndarray, epsilons: Iterable[float],
                      confidence: float = 0.95) -> MonteCarloDelta:
    r"""Estimate δ(ε) = E[max(0, 1 - e^(ε-L))] from sampled losses, with a Wilson interval.

    Valid for [0, 1]-valued draws (variance at most μ(1 - μ)); positive width at all-zero draws.

    >>> mc = monte_carlo_delta(np.array([np.inf, 0.0, 0.0, 0.0]), [0.0])
    >>> float(mc.estimate[0])
    0.25
    """
    eps = _eps_grid(epsilons)
    loss = np.asarray(losses, dtype=float)
    n = check_int("n_samples", len(loss), low=1)
    est, lo, hi = [], [], []
    for e in eps:
        with np.errstate(over="ignore"):
            contrib = np.where(loss > e + LOSS_TOLERANCE,
                               -np.expm1(np.where(np.isposinf(loss), -np.inf, e - loss)), 0.0)
        s = float(contrib.sum())
        lw, hg = wilson_interval(s, n, confidence)
        est.append(s / n)
        lo.append(float(lw))
        hi.append(float(hg))
    return MonteCarloDelta(eps, np.array(est), np.array(lo), np.array(hi), n)


def post_process(labels: np.ndarray, log_prob: np.ndarray,
                 f: Callable[[np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The output distribution of f(M): atoms relabelled by ``f`` and merged (Proposition 25)."""
    new = np.asarray(f(np.asarray(labels)))
    uniq, inv = np.unique(new, return_inverse=True)
    order = np.argsort(inv, kind="stable")
    starts = np.searchsorted(inv[order], np.arange(len(uniq)))
    out = np.logaddexp.reduceat(np.asarray(log_prob, dtype=float)[order], starts)
    return uniq, out


def mix(labels_a: np.ndarray, log_a: np.ndarray, labels_b: np.ndarray, log_b: np.ndarray,
        weight_a: float) -> tuple[np.ndarray, np.ndarray]:
    """The output distribution of running A with probability ``weight_a``, else B (convexity, Proposition 25)."""
    if not 0 < weight_a < 1:
        raise ParameterError(f"weight_a must be in (0, 1), got {weight_a!r}")
    uniq = np.union1d(labels_a, labels_b)
    out = np.full(len(uniq), -np.inf)
    for lab, lp, w in ((labels_a, log_a, weight_a), (labels_b, log_b, 1 - weight_a)):
        idx = np.searchsorted(uniq, lab)
        out[idx] = np.logaddexp(out[idx], np.log(w) + lp)
    return uniq, out


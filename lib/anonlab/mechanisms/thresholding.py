r"""Counting mechanisms over independent binary records: exact, thresholded, noisy.

The setting of D. Desfontaines, *Lowering the cost of anonymization* (PhD thesis, ETH Zürich 2020), §3.1.3 (Example 7)
and §3.2: ``n`` people vote Yes with probability ``p``; the attacker targets one and knows ``k`` other votes, ``b`` of
them Yes; the tally is T = t + b + U, U ~ Bin(n - 1 - k, p). Mechanisms: the exact tally (Proposition 26), the tally
only if T > τ, else ⊥ (Example 7; Definition 60), and noisy variants with two-sided geometric noise Z (α = e^(-ε_N)):
``noise_mode="count"`` releases T + Z above τ (ε_N-DP), ``"threshold"`` releases T when T + Z > τ (Diffix's low-count
filter). Output distributions are exact, in log space (probabilities reach 1e-400); the infinite runs of outputs with
constant privacy loss are one atom each (``LOWER_TAIL``, ``UPPER_TAIL``).

>>> mech = thresholded_tally(threshold=100)
>>> d = conditional_distributions(mech, n_unknown=899, p=1e-4, known_yes=100)
>>> round(float(np.exp(d.log_prob[0][d.index(BOTTOM)])), 4)  # target No: ⊥ iff nobody else votes Yes
0.914
>>> float(np.exp(d.log_prob[1][d.index(BOTTOM)]))  # target Yes: never ⊥
0.0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..measures.privacy_loss import LOSS_TOLERANCE, PartialKnowledgeDelta, logsumexp, partial_knowledge_delta
from ..validation import ParameterError, check_choice, check_int, check_number, check_random_state

__all__ = [
    "BOTTOM",
    "LOWER_TAIL",
    "UPPER_TAIL",
    "NOISE_MODES",
    "CountingMechanism",
    "ConditionalOutputs",
    "exact_tally",
    "thresholded_tally",
    "unknown_tally_log_pmf",
    "geometric_log_cdf",
    "conditional_distributions",
    "sample_outputs",
    "neighbour_distributions",
    "tally_partial_knowledge_delta",
    "tally_loss_samples",
    "privacy_loss_of_outputs",
    "dp_delta",
]

BOTTOM = -1
"""Label of the output ⊥ (nothing released)."""
LOWER_TAIL = -2
"""Label of the atom that merges every released output below the smallest possible tally (noise only)."""
UPPER_TAIL = -3
"""Label of the atom that merges every output above the largest possible tally (noise only)."""
NOISE_MODES = ("count", "threshold")
MAX_RECORDS = 100_000


@dataclass(frozen=True)
class CountingMechanism:
    """A tally of binary records, released only if ``T > threshold`` (else ⊥; ``None``: always) and noised.

    ``noise_epsilon``: ε of the two-sided geometric noise (``None``: none); ``noise_mode`` ``"count"`` (the noisy
    tally, ε-DP) or ``"threshold"`` (only the decision is noisy, as in Diffix).
    """

    threshold: int | None = None
    noise_epsilon: float | None = None
    noise_mode: str = "count"

    def __post_init__(self) -> None:
        if self.threshold is not None:
            check_int("threshold", self.threshold, low=-1)
        if self.noise_epsilon is not None:
            check_number("noise_epsilon", self.noise_epsilon, low=0, low_inclusive=False, high=50)
        check_choice("noise_mode", self.noise_mode, NOISE_MODES)
        if self.noise_mode == "threshold" and self.noise_epsilon is not None and self.threshold is None:
            raise ParameterError("noise_mode 'threshold' needs a threshold (it noises the suppression decision)")

    @property
    def label(self) -> str:
        """A short human name, e.g. ``tally > 100, noisy threshold (ε=1)``."""
        name = "exact tally" if self.threshold is None else f"tally if > {self.threshold}"
        if self.noise_epsilon is not None:
            where = "noisy count" if self.noise_mode == "count" else "noisy threshold"
            name += f", {where} (ε={self.noise_epsilon:g})"
        return name


def exact_tally() -> CountingMechanism:
    """The exact count of Yes votes (no threshold, no noise)."""
    return CountingMechanism()


def thresholded_tally(threshold: int, noise_epsilon: float | None = None,
                      noise_mode: str = "count") -> CountingMechanism:
    """The count, released only if it is above ``threshold`` (⊥ otherwise); see :class:`CountingMechanism`."""
    return CountingMechanism(threshold=threshold, noise_epsilon=noise_epsilon, noise_mode=noise_mode)


@lru_cache(maxsize=256)
def _unknown_log_pmf(m: int, p: float) -> np.ndarray:
    from scipy import stats  # here, not at import: scipy.stats costs ~0.7 s of a kernel's start

    out = stats.binom.logpmf(np.arange(m + 1), m, p)
    out.setflags(write=False)
    return out


def unknown_tally_log_pmf(n_unknown: int, p: float) -> np.ndarray:
    r"""log Pr[U = u] for u = 0..m, U ~ Bin(m, p), exact in log space.

    >>> np.round(np.exp(unknown_tally_log_pmf(2, 0.5)), 3)
    array([0.25, 0.5 , 0.25])
    """
    check_int("n_unknown", n_unknown, low=0, high=MAX_RECORDS)
    check_number("p", p, low=0, high=1, low_inclusive=False, high_inclusive=False)
    return _unknown_log_pmf(int(n_unknown), float(p))


def geometric_log_cdf(x: np.ndarray, epsilon: float) -> np.ndarray:
    r"""log Pr[Z ≤ x] of two-sided geometric noise: α^(-x)/(1+α) for x < 0, 1 - α^(x+1)/(1+α) for x ≥ 0.

    >>> round(float(np.exp(geometric_log_cdf(np.array([-1]), np.log(2.0))[0])), 12)  # α = 1/2: (1/2)/(3/2)
    0.333333333333
    """
    x = np.asarray(x, dtype=float)
    log1pa = np.log1p(np.exp(-epsilon))
    neg = epsilon * x - log1pa
    with np.errstate(divide="ignore"):
        pos = np.log1p(-np.exp(-epsilon * (np.maximum(x, 0) + 1) - log1pa))
    return np.where(x < 0, neg, pos)


@dataclass(frozen=True)
class ConditionalOutputs:
    """The output distribution given the known Yes votes: ``log_prob[t]`` over the atoms ``labels``, t = 0 (No), 1."""

    labels: np.ndarray
    log_prob: tuple[np.ndarray, np.ndarray]
    known_yes: int

    def index(self, label: int) -> int:
        """Position of an output atom (raises ``KeyError`` when absent)."""
        hit = np.flatnonzero(self.labels == label)
        if not len(hit):
            raise KeyError(f"output {label} is not an atom of this distribution")
        return int(hit[0])


def _noisy_count_grid(f: np.ndarray, eps: float) -> np.ndarray:
    r"""log Σ_j P_j c α^{|i-j|} for every i (exact convolution with the geometric noise, in log space)."""
    j = np.arange(len(f), dtype=float)
    a = np.logaddexp.accumulate(f + j * eps) - j * eps          # Σ_{j≤i} P_j α^{i-j}
    rc = np.logaddexp.accumulate((f - j * eps)[::-1])[::-1]     # Σ_{j≥i} P_j α^{-j}
    b = np.append(rc[1:], -np.inf) + j * eps                    # Σ_{j>i} P_j α^{j-i}
    log_c = np.log1p(-np.exp(-eps)) - np.log1p(np.exp(-eps))
    with np.errstate(invalid="ignore"):
        return log_c + np.logaddexp(a, b)


def conditional_distributions(mech: CountingMechanism, n_unknown: int, p: float,
                              known_yes: int) -> ConditionalOutputs:
    r"""Exact output distribution of ``mech`` given ``known_yes`` = b, for t = 0 and 1 (§3.1.3, Example 7).

    T = t + b + U, U ~ Bin(``n_unknown``, p), p in (0, 1). Atoms: released tallies in [b, b + m + 1] above the
    threshold, ⊥ with a threshold, and the two tails with count noise.
    """
    m = check_int("n_unknown", n_unknown, low=0, high=MAX_RECORDS)
    b = check_int("known_yes", known_yes, low=0)
    f = unknown_tally_log_pmf(m, p)
    tau = mech.threshold
    eps = mech.noise_epsilon
    lo_all, hi_all = b, b + m + 1                   # the tally's range over both t
    full = {t: np.full(m + 2, -np.inf) for t in (0, 1)}
    for t in (0, 1):
        full[t][t:t + m + 1] = f                    # index i <-> tally b + i
    tallies = np.arange(lo_all, hi_all + 1)
    labels: list[np.ndarray] = []
    logs: dict[int, list[np.ndarray]] = {0: [], 1: []}

    if eps is None or mech.noise_mode == "threshold":
        keep = tallies > tau if (tau is not None and eps is None) else np.ones_like(tallies, bool)
        labels.append(tallies[keep])
        for t in (0, 1):
            lp = full[t]
            if eps is not None:                     # released with Pr[T + Z > τ] = Pr[Z ≤ T - τ - 1]
                lp = lp + geometric_log_cdf(tallies - tau - 1, eps)
            logs[t].append(lp[keep])
        if tau is not None:
            labels.append(np.array([BOTTOM]))
            for t in (0, 1):
                if eps is None:
                    bot = logsumexp(full[t][tallies <= tau]) if (tallies <= tau).any() else -np.inf
                else:
                    bot = logsumexp(full[t] + geometric_log_cdf(tau - tallies, eps))
                logs[t].append(np.array([bot]))
    else:                                           # noisy count, then threshold
        keep = tallies > tau if tau is not None else np.ones_like(tallies, bool)
        labels.append(tallies[keep])
        log_c = np.log1p(-np.exp(-eps)) - np.log1p(np.exp(-eps))
        log_1ma = np.log1p(-np.exp(-eps))
        i = np.arange(m + 2)
        lower_start = -np.inf if tau is None else tau + 1
        has_lower = lower_start <= b - 1
        upper_start = hi_all + 1 if tau is None else max(hi_all + 1, tau + 1)
        for t in (0, 1):
            logs[t].append(_noisy_count_grid(full[t], eps)[keep])
        if has_lower:
            labels.append(np.array([LOWER_TAIL]))
            span = np.inf if tau is None else b - lower_start
            tail = 0.0 if np.isinf(span) else np.log1p(-np.exp(-eps * span))
            for t in (0, 1):
                logs[t].append(np.array([log_c + logsumexp(full[t] - eps * (i + 1)) + tail - log_1ma]))
        labels.append(np.array([UPPER_TAIL]))
        for t in (0, 1):
            logs[t].append(np.array([log_c + logsumexp(full[t] - eps * (upper_start - (b + i))) - log_1ma]))
        if tau is not None:
            labels.append(np.array([BOTTOM]))
            for t in (0, 1):
                logs[t].append(np.array([logsumexp(full[t] + geometric_log_cdf(tau - tallies, eps))]))
    return ConditionalOutputs(
        labels=np.concatenate(labels).astype(np.int64),
        log_prob=(np.concatenate(logs[0]), np.concatenate(logs[1])),
        known_yes=b,
    )


def _two_sided_geometric(rng: np.random.Generator, eps: float, size: int) -> np.ndarray:
    q = 1.0 - np.exp(-eps)
    return rng.geometric(q, size) - rng.geometric(q, size)


def sample_outputs(mech: CountingMechanism, n_voters: int, p: float, known: int, target: int,
                   n_samples: int, seed: int | np.random.Generator | None = None,
                   known_yes: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Simulate the mechanism: draws of the known Yes count and of the output atom, (known_yes, labels).

    ``known_yes=None`` draws the known votes from the data (passive attacker); a number fixes them (active). Atoms as
    in :func:`conditional_distributions`.
    """
    n = check_int("n_voters", n_voters, low=1, high=MAX_RECORDS)
    k = check_int("known", known, low=0, high=n - 1)
    check_choice("target", target, (0, 1))
    size = check_int("n_samples", n_samples, low=1, high=100_000_000)
    rng = check_random_state(seed)
    m = n - 1 - k
    if known_yes is None:
        b = rng.binomial(k, p, size)
    else:
        b = np.full(size, check_int("known_yes", known_yes, low=0, high=k))
    tally = target + b + rng.binomial(m, p, size)
    tau, eps = mech.threshold, mech.noise_epsilon
    if eps is None:
        out = tally.copy()
        released = tally > tau if tau is not None else np.ones(size, bool)
    else:
        noisy = tally + _two_sided_geometric(rng, eps, size)
        released = noisy > tau if tau is not None else np.ones(size, bool)
        if mech.noise_mode == "threshold":
            out = tally.copy()
        else:
            out = noisy
            out = np.where(out < b, LOWER_TAIL, out)
            out = np.where(out > b + m + 1, UPPER_TAIL, out)
    return b, np.where(released, out, BOTTOM).astype(np.int64)


def neighbour_distributions(mech: CountingMechanism, count: int,
                            window: int = 2000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Output distributions (labels, prob_no, prob_yes) on two neighbouring datasets (plain DP).

    The others' tally is ``count``. An independent, linear-space implementation over ``window`` noise values each
    side, to check that APKDP with full knowledge is DP (§3.1.3).
    """
    c = check_int("count", count, low=0)
    tau, eps = mech.threshold, mech.noise_epsilon
    if eps is None:
        labels = np.array([c, c + 1, BOTTOM])
        no = np.array([1.0, 0.0, 0.0])
        yes = np.array([0.0, 1.0, 0.0])
        if tau is not None:
            no = np.where(labels == BOTTOM, float(c <= tau), np.where(labels == c, float(c > tau), 0.0))
            yes = np.where(labels == BOTTOM, float(c + 1 <= tau), np.where(labels == c + 1, float(c + 1 > tau), 0.0))
        return labels, no, yes
    a = np.exp(-eps)
    z = np.arange(-window, window + 1)
    pz = (1 - a) / (1 + a) * a ** np.abs(z)
    if mech.noise_mode == "threshold":
        labels = np.array([c, c + 1, BOTTOM])
        rel = [pz[c + z > tau].sum(), pz[c + 1 + z > tau].sum()]
        no = np.array([rel[0], 0.0, 1 - rel[0]])
        yes = np.array([0.0, rel[1], 1 - rel[1]])
        return labels, no, yes
    outs = np.arange(c - window, c + window + 2)
    no = np.zeros(len(outs))
    yes = np.zeros(len(outs))
    no[:-1] = pz
    yes[1:] = pz
    if tau is None:
        return outs, no, yes
    rel = outs > tau
    labels = np.append(outs[rel], BOTTOM)
    return labels, np.append(no[rel], no[~rel].sum()), np.append(yes[rel], yes[~rel].sum())


def tally_partial_knowledge_delta(mech: CountingMechanism, n_voters: int, p: float, known: int,
                                  epsilons: Sequence[float],
                                  known_yes: Sequence[int] | None = None) -> PartialKnowledgeDelta:
    r"""Passive (PPKDP) and active (APKDP) δ(ε) of a counting mechanism, exactly (Definitions 57-58; Theorem 1).

    The attacker knows ``known`` other votes: B ~ Bin(k, p) for the passive, any of 0..k (or ``known_yes``) for the
    active attacker.

    >>> r = tally_partial_knowledge_delta(thresholded_tally(100), 1000, 1e-4, 100, [1.0])
    >>> r.worst_background()  # the active attacker makes every known vote Yes
    100
    >>> round(float(np.exp(r.log_active[0])), 3), float(r.log_passive[0] / np.log(10)) < -250
    (0.914, True)
    """
    n = check_int("n_voters", n_voters, low=1, high=MAX_RECORDS)
    k = check_int("known", known, low=0, high=n - 1)
    check_number("p", p, low=0, high=1, low_inclusive=False, high_inclusive=False)
    m = n - 1 - k
    bs = np.arange(k + 1) if known_yes is None else np.asarray(list(known_yes), dtype=int)
    if bs.min() < 0 or bs.max() > k:
        raise ParameterError(f"known_yes values must be in [0, {k}], got {bs.tolist()}")
    from scipy import stats

    log_bg = stats.binom.logpmf(bs, k, p)

    def conditional(b: int) -> tuple[np.ndarray, np.ndarray]:
        return conditional_distributions(mech, m, p, b).log_prob

    return partial_knowledge_delta(conditional, bs, log_bg, epsilons)


def privacy_loss_of_outputs(mech: CountingMechanism, n_unknown: int, p: float, known_yes: np.ndarray,
                            labels: np.ndarray, target: int = 1) -> np.ndarray:
    """The exact privacy loss ln P(O | t) / P(O | 1 - t) of observed outputs, one per draw (``±inf`` allowed)."""
    known_yes = np.asarray(known_yes)
    labels = np.asarray(labels)
    loss = np.empty(len(labels))
    for bv in np.unique(known_yes):
        d = conditional_distributions(mech, n_unknown, p, int(bv))
        with np.errstate(invalid="ignore"):
            lt = d.log_prob[target] - d.log_prob[1 - target]
        lt = np.where(np.isneginf(d.log_prob[1 - target]), np.inf, lt)
        lt = np.where(np.isneginf(d.log_prob[target]), -np.inf, lt)
        order = np.argsort(d.labels)
        sel = known_yes == bv
        pos = order[np.minimum(np.searchsorted(d.labels[order], labels[sel]), len(order) - 1)]
        if not np.array_equal(d.labels[pos], labels[sel]):  # pragma: no cover - a bug in the atoms
            raise RuntimeError("a simulated output is not an atom of the exact distribution")
        loss[sel] = lt[pos]
    return loss


def tally_loss_samples(mech: CountingMechanism, n_voters: int, p: float, known: int, target: int,
                       n_samples: int, seed: int | np.random.Generator | None = None,
                       known_yes: int | None = None) -> np.ndarray:
    """Privacy losses L(O, B) of simulated runs (target votes ``target``, against ``1 - target``).

    Averaging max(0, 1 - e^(ε-L)) estimates δ (:func:`~anonlab.measures.privacy_loss.monte_carlo_delta`).
    """
    b, out = sample_outputs(mech, n_voters, p, known, target, n_samples, seed, known_yes)
    return privacy_loss_of_outputs(mech, n_voters - 1 - known, p, b, out, target)


def dp_delta(mech: CountingMechanism, n_voters: int, epsilons: Sequence[float]) -> np.ndarray:
    """Plain DP δ(ε): the worst case over neighbouring datasets and both directions.

    Uses :func:`neighbour_distributions`; ratios within 1e-9 of e^ε count as equal (``LOSS_TOLERANCE``).
    """
    n = check_int("n_voters", n_voters, low=1, high=MAX_RECORDS)
    eps = np.asarray(list(epsilons), dtype=float)
    worst = np.zeros(len(eps))
    for c in range(n):
        labels, no, yes = neighbour_distributions(mech, c)
        for p1, p2 in ((yes, no), (no, yes)):
            with np.errstate(over="ignore"):
                d = np.array([np.where(p1 > np.exp(e) * p2 * (1 + LOSS_TOLERANCE), p1 - np.exp(e) * p2, 0.0).sum()
                              if np.isfinite(e) else p1[p2 == 0].sum() for e in eps])
            worst = np.maximum(worst, d)
    return worst

"""Model inversion on a dosing model, attacked on members and non-members (F&W §3.3).

Fredrikson et al. (2014) predict a warfarin patient's VKORC1 genotype as the value that best explains the dose given
the demographics, weighted by its marginal; Francis & Wagner note that the same attack on non-members is the allowed
baseline and nearly as accurate. Synthetic here (no IWPC data): ``g ∈ {0, 1, 2}`` with a stated marginal, two
standardised covariates, ``dose = β·x + γ·g + noise``, a linear model fitted on the members; the attack predicts
``argmax_g P(g) · N(dose − f(x, g); 0, σ̂²)``, the marginal baseline the most common genotype.

>>> r = warfarin_example(2000, seed=0)
>>> r["members"] > r["marginal"]
True
"""

from __future__ import annotations

import numpy as np

from ..validation import check_int, check_number, check_random_state
from ..intervals import percentile_interval

__all__ = ["warfarin_example", "gain_intervals", "GENOTYPE_SHARES"]

#: Marginal of the illustrative marker (three genotypes).
GENOTYPE_SHARES = np.array([0.35, 0.45, 0.20])


def _simulate(n: int, rng: np.random.Generator, effect: float,
              noise: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = rng.choice(3, size=n, p=GENOTYPE_SHARES)
    x = rng.normal(size=(n, 2))
    dose = 5.0 + 0.8 * x[:, 0] - 0.5 * x[:, 1] - effect * g + rng.normal(0, noise, n)
    return x, g, dose


def _design(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    return np.column_stack([np.ones(len(g)), x, g == 1, g == 2]).astype(float)


def gain_intervals(hit: np.ndarray, base_paired: np.ndarray, hit_other: np.ndarray, n_boot: int = 1000,
                   seed: int | np.random.Generator | None = 0, confidence: float = 0.95) -> dict[str, float]:
    """Percentile bootstrap intervals of the four gains of :func:`warfarin_example`.

    ``hit``: the attack right on each member; ``base_paired``: the marginal guess right on the same members (resampled
    with them); ``hit_other``: the attack right on each non-member (resampled on their own). Keys
    ``vs_marginal_abs_low`` ... ``vs_nonmembers_rel_high``: members − baseline (``_abs``) and members / baseline − 1
    (``_rel``), the patients redrawn ``n_boot`` times (the fitted model held fixed).

    >>> r = gain_intervals(np.ones(50, bool), np.r_[np.ones(25, bool), np.zeros(25, bool)], np.ones(50, bool))
    >>> r["vs_nonmembers_abs_low"], r["vs_nonmembers_abs_high"], 0.5 < r["vs_marginal_abs_high"] < 0.8
    (0.0, 0.0, True)
    """
    check_int("n_boot", n_boot, low=10)
    rng = check_random_state(seed)
    i = rng.integers(0, len(hit), (n_boot, len(hit)))
    j = rng.integers(0, len(hit_other), (n_boot, len(hit_other)))
    acc, marg, other = hit[i].mean(1), base_paired[i].mean(1), hit_other[j].mean(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        draws = {"vs_marginal_abs": acc - marg, "vs_marginal_rel": acc / marg - 1,
                 "vs_nonmembers_abs": acc - other, "vs_nonmembers_rel": acc / other - 1}
    out = {}
    for k, d in draws.items():
        out[f"{k}_low"], out[f"{k}_high"] = percentile_interval(d, confidence)
    return out


def warfarin_example(n_patients: int = 4000, *, effect: float = 0.8, noise: float = 1.0,
                     seed: int | np.random.Generator | None = 0) -> dict[str, float]:
    """Accuracy of the inversion on members and non-members, and of the marginal guess.

    Half of ``n_patients`` are members (training data of the least-squares dose model), half non-members. Returns the
    three accuracies and the improvements over the marginal baseline and over the non-member baseline, in percentage
    points (``*_abs``) and relative (``*_rel``), each with its 95 % bootstrap interval (``*_low``, ``*_high``,
    :func:`gain_intervals`, drawn from the same seed's generator).
    """
    check_int("n_patients", n_patients, low=20)
    check_number("effect", effect)
    check_number("noise", noise, low=0, low_inclusive=False)
    rng = check_random_state(seed)
    x, g, dose = _simulate(n_patients, rng, effect, noise)
    m = np.arange(n_patients) < n_patients // 2
    coef, *_ = np.linalg.lstsq(_design(x[m], g[m]), dose[m], rcond=None)
    sigma = float(np.std(dose[m] - _design(x[m], g[m]) @ coef))

    def invert(rows: np.ndarray) -> np.ndarray:
        scores = np.stack([np.log(GENOTYPE_SHARES[k]) - 0.5 * ((dose[rows] - _design(
            x[rows], np.full(int(rows.sum()), k)) @ coef) / sigma) ** 2 for k in range(3)], axis=1)
        return scores.argmax(axis=1)

    hit, hit_other, base = invert(m) == g[m], invert(~m) == g[~m], g[m] == GENOTYPE_SHARES.argmax()
    members, non_members, marginal = float(hit.mean()), float(hit_other.mean()), float(base.mean())
    return {"members": members, "non_members": non_members, "marginal": marginal,
            "vs_marginal_abs": members - marginal, "vs_marginal_rel": members / marginal - 1,
            "vs_nonmembers_abs": members - non_members, "vs_nonmembers_rel": members / non_members - 1,
            **gain_intervals(hit, base, hit_other, seed=rng)}

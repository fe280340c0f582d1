"""Every confidence interval the book computes, one function per method.

Each function names its method; the chapters, attacks and measures call these and no other.

* :func:`wilson_interval`: a binomial proportion (Wilson, 1927).
* :func:`t_interval`, :func:`mean_interval`, :func:`t_half_width`: a mean of independent draws (Student t).
* :func:`two_se_interval`: a mean ± 2 standard errors (the normal approximation with z = 2).
* :func:`percentile_interval`: a percentile bootstrap, from the statistic's bootstrap draws.
* :func:`mean_difference_interval`: a conservative interval of a mean of differences of rates.
* :func:`two_proportion_z`, :func:`z_critical`: the pooled two-proportion test and its critical value.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["z_critical", "wilson_interval", "t_half_width", "t_interval", "mean_interval", "two_se_interval",
           "percentile_interval", "mean_difference_interval", "two_proportion_z"]


def z_critical(confidence: float = 0.95) -> float:
    """The two-sided standard normal critical value Φ⁻¹(1/2 + confidence/2) (1.96 at 95 %).

    >>> round(z_critical(0.95), 4)
    1.96
    """
    if not (isinstance(confidence, (int, float, np.floating)) and 0 < confidence < 1):
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    from scipy.stats import norm  # here, not at import: scipy.stats costs ~0.7 s of every kernel's start

    return float(norm.ppf(0.5 + confidence / 2.0))


def _counts(name: str, value: npt.ArrayLike) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    bad = ~np.isfinite(arr) | (arr < 0)
    if np.any(bad):
        raise ValueError(f"{name} must be a finite non-negative count, got {arr[bad].flat[0].item()}")
    return arr


def _out(a: np.ndarray) -> Any:
    a = np.asarray(a, dtype=float)
    return float(a) if a.ndim == 0 else a


def wilson_interval(successes: npt.ArrayLike, n: npt.ArrayLike, confidence: float = 0.95) -> tuple[Any, Any]:
    r"""Wilson score interval of a binomial proportion ``successes / n`` (E. B. Wilson, JASA 22, 1927).

    With :math:`\hat p = s/n`, :math:`z` = :func:`z_critical`: :math:`(\hat p + z^2/2n \pm z\sqrt{\hat p(1-\hat p)/n +
    z^2/4n^2}) / (1 + z^2/n)`, inside [0, 1] and of positive width at 0 and n successes. Arrays broadcast; ``(nan,
    nan)`` where ``n == 0``.

    >>> low, high = wilson_interval(0, 10)
    >>> low, round(high, 4)
    (0.0, 0.2775)
    """
    z = z_critical(confidence)
    s, n_arr = _counts("successes", successes), _counts("n", n)
    a, o = np.broadcast_arrays(s, n_arr)
    if np.any(a > o):
        raise ValueError(f"successes must not exceed n, got successes={a[a > o].flat[0].item()} "
                         f"and n={o[a > o].flat[0].item()}")
    z2 = z * z
    p_hat = np.full(a.shape, np.nan)
    np.divide(a, o, out=p_hat, where=o != 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = 1.0 + z2 / n_arr
        centre = (p_hat + z2 / (2.0 * n_arr)) / denom
        half = (z / denom) * np.sqrt(p_hat * (1.0 - p_hat) / n_arr + z2 / (4.0 * n_arr * n_arr))
    low = np.where(n_arr > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
    high = np.where(n_arr > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    # Guard the point estimate against rounding at the ends (e.g. s == n).
    low = np.where(n_arr > 0, np.minimum(low, p_hat), np.nan)
    high = np.where(n_arr > 0, np.maximum(high, p_hat), np.nan)
    return _out(low), _out(high)


def t_half_width(sd: float, n: int, confidence: float = 0.95) -> float:
    """Half-width of the Student-t interval of a mean of ``n`` draws: t_{(1+c)/2, n−1} · sd / √n (NaN if n < 2).

    >>> round(t_half_width(0.02, 5), 4)
    0.0248
    """
    if n < 2 or not np.isfinite(sd):
        return math.nan
    from scipy.stats import t

    return float(t.ppf((1 + confidence) / 2, n - 1)) * sd / math.sqrt(n)


def t_interval(mean: float, sd: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Student-t interval of a mean of ``n`` independent draws: mean ± :func:`t_half_width` ((NaN, NaN) if n < 2).

    >>> [round(x, 4) for x in t_interval(0.3, 0.02, 5)]
    [0.2752, 0.3248]
    """
    half = t_half_width(sd, n, confidence)
    if math.isnan(half):
        return (math.nan, math.nan)
    return (mean - half, mean + half)


def mean_interval(values: npt.ArrayLike, confidence: float = 0.95) -> tuple[float, float]:
    """:func:`t_interval` of the mean of independent draws (sample standard deviation); (NaN, NaN) when empty.

    >>> [round(x, 3) for x in mean_interval(np.array([0.2, 0.22, 0.24]))]
    [0.17, 0.27]
    """
    v = np.asarray(values, dtype=float)
    if not len(v):
        return (math.nan, math.nan)
    return t_interval(float(v.mean()), float(v.std(ddof=1)) if len(v) > 1 else math.nan, len(v), confidence)


def two_se_interval(values: npt.ArrayLike, low: float = 0.0, high: float = 1.0) -> tuple[float, float]:
    """Mean ± 2 standard errors (sd with ddof 1 over √n) of a few repetitions, clipped to [low, high].

    >>> two_se_interval([0.5, 0.6, 0.7])
    (0.48452994616207484, 0.7154700538379251)
    """
    v = np.asarray(values, dtype=float)
    if v.size < 2:
        raise ValueError("two_se_interval needs at least two values")
    se = float(np.std(v, ddof=1) / math.sqrt(v.size))
    return (max(low, float(np.mean(v) - 2 * se)), min(high, float(np.mean(v) + 2 * se)))


def percentile_interval(draws: npt.ArrayLike, confidence: float = 0.95) -> tuple[float, float]:
    """The percentile bootstrap interval: the (1 ∓ confidence)/2 quantiles of a statistic's bootstrap draws
    (NaN draws ignored).

    >>> percentile_interval(np.array([2] * 10 + [3] * 80 + [4] * 10))
    (2.0, 4.0)
    """
    tail = 100 * (1 - confidence) / 2
    lo, hi = np.nanpercentile(np.asarray(draws, dtype=float), [tail, 100 - tail])
    return float(lo), float(hi)


def mean_difference_interval(diffs: npt.ArrayLike, half_a: npt.ArrayLike, half_b: npt.ArrayLike
                             ) -> tuple[float, float]:
    """A conservative interval of the mean of differences of rates measured on independent target sets.

    Each difference has half-width ``h = sqrt(ha² + hb²)`` (the two rates' interval half-widths); however the
    differences correlate, the mean of the ``h`` bounds the mean's half-width (Minkowski).

    >>> [round(x, 3) for x in mean_difference_interval([0.1, 0.1], [0.1, 0.1], [0.1, 0.1])]
    [-0.041, 0.241]
    """
    h = float(np.sqrt(np.asarray(half_a, dtype=float) ** 2 + np.asarray(half_b, dtype=float) ** 2).mean())
    gain = float(np.mean(np.asarray(diffs, dtype=float)))
    return gain - h, gain + h


def two_proportion_z(p1: Any, n1: Any, p0: Any, n0: Any) -> Any:
    """The pooled two-proportion z statistic of proportions ``p1`` on ``n1`` and ``p0`` on ``n0`` cases.

    >>> round(float(two_proportion_z(0.6, 3000, 0.5, 3000)), 2)
    7.78
    """
    pooled = (p1 * n1 + p0 * n0) / np.maximum(n1 + n0, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (p1 - p0) / np.sqrt(np.maximum(pooled * (1 - pooled), 1e-12) * (1 / n1 + 1 / n0))

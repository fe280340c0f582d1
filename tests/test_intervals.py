"""The one intervals module: each method against an independent computation of the same interval."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from anonlab import intervals


def test_z_critical_is_the_normal_quantile_and_refuses_bad_levels() -> None:
    assert intervals.z_critical(0.9) == pytest.approx(stats.norm.ppf(0.95))
    with pytest.raises(ValueError, match="confidence"):
        intervals.z_critical(1.0)


def test_wilson_matches_statsmodels_formula_written_out() -> None:
    s, n = 7, 40
    z = stats.norm.ppf(0.975)
    p = s / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert intervals.wilson_interval(s, n) == pytest.approx((centre - half, centre + half))


def test_t_interval_is_scipy_t_interval() -> None:
    v = np.array([0.2, 0.25, 0.31, 0.22, 0.27])
    expected = stats.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=stats.sem(v))
    assert intervals.mean_interval(v) == pytest.approx(expected)
    assert all(math.isnan(x) for x in intervals.mean_interval(np.array([0.3])))


def test_two_se_interval_is_clipped_and_needs_two_values() -> None:
    lo, hi = intervals.two_se_interval([0.98, 1.0, 0.99])
    assert hi == 1.0 and lo < 0.99
    with pytest.raises(ValueError):
        intervals.two_se_interval([0.5])


def test_percentile_interval_ignores_nan_draws_and_follows_the_level() -> None:
    draws = np.r_[np.arange(1000, dtype=float), np.nan]
    lo95, hi95 = intervals.percentile_interval(draws)
    lo50, hi50 = intervals.percentile_interval(draws, 0.5)
    assert lo95 == pytest.approx(np.percentile(np.arange(1000), 2.5))
    assert lo95 < lo50 < hi50 < hi95


def test_mean_difference_interval_covers_the_mean_difference() -> None:
    lo, hi = intervals.mean_difference_interval([0.1, 0.3], [0.05, 0.05], [0.0, 0.0])
    assert lo == pytest.approx(0.15) and hi == pytest.approx(0.25)


def test_two_proportion_z_is_zero_for_equal_shares_and_signed() -> None:
    assert float(intervals.two_proportion_z(0.5, 100, 0.5, 100)) == 0.0
    assert float(intervals.two_proportion_z(0.4, 100, 0.5, 100)) < 0

"""Tests for anonlab.measures (precision, coverage, PI, base rates, Wilson).

Reference: P. Francis and D. Wagner, "Towards more accurate and useful data
anonymity vulnerability measures", arXiv:2403.06595 (2024), cited as [FW24].
Expected values are worked by hand and written as fractions, so a wrong
formula in the library cannot also be on the expected side.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.measures import (
    attack_score,
    accuracy,
    baseline_precision,
    baseline_precision_at_skew,
    coverage,
    false_positive_rate,
    parse_skew,
    precision,
    precision_at_skew,
    precision_improvement,
    precision_improvement_at_skew,
    prediction_rate,
    recall,
    roc_to_precision_recall,
    true_positive_rate,
    wilson_interval,
)

Z95 = 1.959963984540054  # standard normal 0.975 quantile, written out

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


# ---------------------------------------------------------------------------
# [FW24] §1, worked examples
# ---------------------------------------------------------------------------


class TestSection1BaseRateExample:
    """FPR 0.05, FNR 0 (so TPR 1), 2000 people tested."""

    def test_half_members(self) -> None:
        # M = N = 1000: TP = 1.0 * 1000 = 1000, FP = 0.05 * 1000 = 50.
        expected = 1000 / 1050
        assert precision_at_skew(1.0, 0.05, members=1000, non_members=1000) == pytest.approx(expected)
        assert precision(1000, 50) == pytest.approx(expected)
        assert round(precision(1000, 50), 3) == 0.952

    def test_one_percent_members(self) -> None:
        # M = 20, N = 1980: TP = 20, FP = 0.05 * 1980 = 99.
        expected = 20 / 119
        assert precision_at_skew(1.0, 0.05, members=20, non_members=1980) == pytest.approx(expected)
        assert precision(20, 99) == pytest.approx(expected)
        assert precision_at_skew(1.0, 0.05, 20, 1980) == pytest.approx(0.17, abs=0.005)

    def test_one_percent_members_as_skew(self) -> None:
        # 1980 non-members per 20 members is a skew of 99 (1:99).
        p, r = roc_to_precision_recall(1.0, 0.05, 99)
        assert p == pytest.approx(1 / (1 + 0.05 * 99))
        assert p == pytest.approx(20 / 119)
        assert r == 1.0

    def test_rates_from_counts(self) -> None:
        # Eqs 7-8 on the 1% population: TPR = 20/20, FPR = 99/1980.
        assert true_positive_rate(20, 20) == 1.0
        assert false_positive_rate(99, 1980) == pytest.approx(1 / 20)

    def test_one_percent_members_from_predictions(self) -> None:
        # The same example as individual predictions: 20 members all
        # flagged, 99 of the 1980 non-members wrongly flagged.
        s = attack_score(2000, 20 + 99, 20, n_positives=20)
        assert (s.n_predictions, s.n_correct, s.n_positives) == (119, 20, 20)
        assert s.precision == pytest.approx(20 / 119)
        assert s.recall == 1.0
        assert s.coverage == pytest.approx(119 / 2000)


def test_section1_allowed_inference_example() -> None:
    # [FW24] §1: predicting sex = 'male' for every 'Computer Scientist' gives
    # 80% precision; the same guess made without the data about anyone (the
    # baseline) is as good, so it is no loss of anonymity: PI = 0.
    attack = attack_score(10, 10, 8)  # 10 predictions "male", 8 of them right
    assert attack.precision == pytest.approx(8 / 10)
    assert attack.coverage == 1.0
    assert precision_improvement(attack.precision, 8 / 10) == 0.0


# ---------------------------------------------------------------------------
# Confusion-count measures, [FW24] §2 Eqs 1-5
# ---------------------------------------------------------------------------


def test_accuracy_counts_negatives() -> None:
    # (TP + TN) / all = (3 + 5) / (3 + 5 + 1 + 1)
    assert accuracy(3, 5, 1, 1) == pytest.approx(8 / 10)


def test_precision_and_recall_hand_values() -> None:
    assert precision(3, 1) == pytest.approx(3 / 4)
    assert recall(3, 2) == pytest.approx(3 / 5)


def test_prediction_rate_eq4_differs_from_coverage() -> None:
    # 20 targets: 6 correct, 2 wrong, 12 abstentions.
    assert prediction_rate(6, 2, 12) == pytest.approx(6 / 20)  # Eq 4: TP / (TP+FP+np)
    assert coverage(6 + 2, 20) == pytest.approx(8 / 20)  # §4.3: |P| / |T|


@pytest.mark.parametrize(
    "value",
    [
        lambda: precision(0, 0),
        lambda: recall(0, 0),
        lambda: accuracy(0, 0, 0, 0),
        lambda: prediction_rate(0, 0, 0),
        lambda: coverage(0, 0),
        lambda: true_positive_rate(0, 0),
        lambda: false_positive_rate(0, 0),
    ],
)
def test_no_predictions_is_nan_not_zero(value) -> None:
    assert math.isnan(value())


def test_zero_and_full_success() -> None:
    assert precision(0, 7) == 0.0
    assert precision(7, 0) == 1.0
    assert recall(0, 4) == 0.0
    assert recall(4, 0) == 1.0
    assert coverage(0, 9) == 0.0
    assert coverage(9, 9) == 1.0


def test_arrays_are_vectorised_and_scalars_give_float() -> None:
    out = precision(np.array([1, 0, 3]), np.array([1, 0, 1]))
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, [1 / 2, np.nan, 3 / 4])
    assert type(precision(1, 1)) is float
    # broadcasting a scalar against an array
    np.testing.assert_allclose(recall(np.array([0, 1, 2]), 2), [0 / 2, 1 / 3, 2 / 4])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: precision(-1, 3), r"tp must be a finite non-negative count, got -1"),
        (lambda: recall(1, np.array([1, np.inf])), r"fn must be a finite non-negative count, got inf"),
        (lambda: coverage(5, 4), r"n_predictions must not exceed n_targets"),
        (lambda: true_positive_rate(3, 2), r"tp must not exceed members"),
        (lambda: precision("x", 1), r"tp must be a number"),
    ],
)
def test_count_validation(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()


# ---------------------------------------------------------------------------
# Precision improvement, [FW24] §4.3 Eq 6
# ---------------------------------------------------------------------------


def test_pi_paper_examples() -> None:
    # Both pairs in §4.3 have PI = 0.5.
    assert precision_improvement(0.75, 0.5) == pytest.approx((0.75 - 0.5) / (1 - 0.5))
    assert precision_improvement(0.75, 0.5) == pytest.approx(0.5)
    assert precision_improvement(0.97, 0.94) == pytest.approx(0.03 / 0.06)
    assert precision_improvement(0.97, 0.94) == pytest.approx(0.5)


def test_pi_range_and_sign() -> None:
    assert precision_improvement(1.0, 0.3) == 1.0
    assert precision_improvement(0.25, 0.5) == pytest.approx(-0.25 / 0.5)


def test_pi_undefined_when_baseline_is_perfect() -> None:
    # §4.7: P_base = 1.0 (Total_Revolving_Bal) leaves no room to improve.
    assert math.isnan(precision_improvement(0.2, 1.0))
    assert math.isnan(precision_improvement(1.0, 1.0))


def test_pi_vectorised_and_nan_propagates() -> None:
    out = precision_improvement(np.array([0.75, 0.5, np.nan, 0.9]), np.array([0.5, 0.5, 0.5, 1.0]))
    np.testing.assert_allclose(out, [0.5, 0.0, np.nan, np.nan])


def test_pi_rejects_out_of_range() -> None:
    with pytest.raises(ValueError, match=r"p_base must be in \[0, 1\], got 1.2"):
        precision_improvement(0.5, 1.2)
    with pytest.raises(ValueError, match=r"p_attack must be in \[0, 1\], got -0.1"):
        precision_improvement(-0.1, 0.5)


@given(b=st.floats(min_value=0.0, max_value=1.0, exclude_max=True))
def test_pi_of_baseline_against_itself_is_zero(b: float) -> None:
    assert precision_improvement(b, b) == 0.0


@given(b=st.floats(min_value=0.0, max_value=1.0, exclude_max=True))
def test_pi_of_perfect_attack_is_one(b: float) -> None:
    assert precision_improvement(1.0, b) == pytest.approx(1.0)


# ---------------------------------------------------------------------------
# ROC points at a skew, [FW24] §5 Eqs 7-11
# ---------------------------------------------------------------------------


def test_precision_at_skew_figure10_point() -> None:
    # Carlini et al. at FPR 0.01, TPR 0.5 (Figure 10), skew 1:30:
    # 0.5 / (0.5 + 0.01 * 30) = 0.5 / 0.8
    p, r = roc_to_precision_recall(0.5, 0.01, 30)
    assert p == pytest.approx(5 / 8)
    assert r == 0.5
    assert precision_at_skew(0.5, 0.01, members=1, non_members=30) == pytest.approx(5 / 8)


def test_only_ratio_of_members_matters() -> None:
    assert precision_at_skew(0.5, 0.01, 100, 3000) == pytest.approx(5 / 8)


def test_roc_broadcasts_to_curves_by_skew() -> None:
    tpr = np.array([0.1, 0.5, 1.0])
    fpr = np.array([0.00001, 0.01, 1.0])
    skews = np.array([1.0, 30.0, 240.0])
    p, r = roc_to_precision_recall(tpr[:, None], fpr[:, None], skews[None, :])
    assert p.shape == r.shape == (3, 3)
    assert p[1, 1] == pytest.approx(0.5 / (0.5 + 0.01 * 30))
    assert p[0, 2] == pytest.approx(0.1 / (0.1 + 0.00001 * 240))
    np.testing.assert_allclose(p[2], [1 / 2, 1 / 31, 1 / 241])
    np.testing.assert_allclose(r[:, 2], tpr)


def test_roc_edges() -> None:
    p, _ = roc_to_precision_recall(0.0, 0.0, 30)  # predicts no one
    assert math.isnan(p)
    p, _ = roc_to_precision_recall(0.3, 0.0, 30)  # no false positives
    assert p == 1.0
    p, _ = roc_to_precision_recall(0.0, 0.2, 30)  # no true positives
    assert p == 0.0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: precision_at_skew(0.5, 1.5, 1, 30), r"fpr must be in \[0, 1\], got 1.5"),
        (lambda: roc_to_precision_recall(np.array([0.2, -0.5]), 0.1, 30), r"tpr must be in \[0, 1\], got -0.5"),
        (lambda: roc_to_precision_recall(0.2, 0.1, -3), r"skew must be a finite non-negative count, got -3"),
        (lambda: roc_to_precision_recall(float("nan"), 0.1, 3), r"tpr must be in \[0, 1\], got nan"),
        (lambda: precision_at_skew(0.5, 0.1, -1, 30), r"members must be a finite non-negative count"),
    ],
)
def test_roc_validation(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_baseline_precision_everyone_is_member() -> None:
    assert baseline_precision(20, 1980) == pytest.approx(20 / 2000)
    assert baseline_precision(1000, 1000) == pytest.approx(1 / 2)
    assert baseline_precision_at_skew(30) == pytest.approx(1 / 31)
    np.testing.assert_allclose(baseline_precision_at_skew(np.array([1, 240])), [1 / 2, 1 / 241])
    assert math.isnan(baseline_precision(0, 0))


def test_pi_at_skew_hand_value() -> None:
    # P = 5/8 (see above), P_base = 1/31: PI = (5/8 - 1/31) / (1 - 1/31)
    expected = (5 / 8 - 1 / 31) / (30 / 31)
    assert precision_improvement_at_skew(0.5, 0.01, 30) == pytest.approx(expected)
    assert precision_improvement_at_skew(0.5, 0.01, 30) == pytest.approx(4557 / 7440)


def test_pi_at_skew_edges() -> None:
    assert precision_improvement_at_skew(0.3, 0.3, 30) == pytest.approx(0.0)  # random guess
    assert precision_improvement_at_skew(0.1, 0.3, 30) < 0  # worse than guessing
    assert math.isnan(precision_improvement_at_skew(0.3, 0.1, 0))  # all members: base 1


@pytest.mark.parametrize(("text", "expected"), [("1:30", 30.0), ("1:240", 240.0), ("2:5", 2.5), (" 1 : 1 ", 1.0)])
def test_parse_skew(text: str, expected: float) -> None:
    assert parse_skew(text) == expected


@pytest.mark.parametrize("text", ["30", "1:x", "0:5", "-1:3", ""])
def test_parse_skew_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="skew must"):
        parse_skew(text)


@given(tpr=unit, fpr=unit, k1=st.floats(0, 1e4), dk=st.floats(0, 1e4))
def test_precision_at_skew_never_increases_with_skew(tpr: float, fpr: float, k1: float, dk: float) -> None:
    p1, _ = roc_to_precision_recall(tpr, fpr, k1)
    p2, _ = roc_to_precision_recall(tpr, fpr, k1 + dk)
    if not (math.isnan(p1) or math.isnan(p2)):
        assert p2 <= p1 + 1e-12


@given(
    tpr=st.floats(1e-3, 1.0),
    fpr=st.floats(1e-3, 1.0),
    k1=st.floats(0, 1e3),
    dk=st.floats(1e-2, 1e3),
)
def test_precision_at_skew_strictly_decreases(tpr: float, fpr: float, k1: float, dk: float) -> None:
    p1, _ = roc_to_precision_recall(tpr, fpr, k1)
    p2, _ = roc_to_precision_recall(tpr, fpr, k1 + dk)
    assert p2 < p1


# Rates below 1e-12 are kept out: r * k underflows for subnormal r.
@given(r=st.floats(1e-12, 1.0), k=st.floats(1e-3, 1e4))
def test_pi_at_skew_is_zero_on_the_diagonal(r: float, k: float) -> None:
    assert precision_improvement_at_skew(r, r, k) == pytest.approx(0.0, abs=1e-9)


def test_pi_at_skew_nan_when_no_one_predicted() -> None:
    assert math.isnan(precision_improvement_at_skew(0.0, 0.0, 30))


@given(tpr=unit, fpr=unit, k=st.floats(0, 1e4))
def test_precision_at_skew_lies_in_unit_interval(tpr: float, fpr: float, k: float) -> None:
    p, r = roc_to_precision_recall(tpr, fpr, k)
    assert math.isnan(p) or 0.0 <= p <= 1.0
    assert r == tpr


# ---------------------------------------------------------------------------
# Wilson interval
# ---------------------------------------------------------------------------


def _wilson_by_hand(s: int, n: int, z: float = Z95) -> tuple[float, float]:
    p = s / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_wilson_hand_values() -> None:
    low, high = wilson_interval(8, 10)
    assert (low, high) == pytest.approx(_wilson_by_hand(8, 10))
    # published value for 8/10 at 95%: [0.490, 0.943]
    assert (round(low, 3), round(high, 3)) == (0.490, 0.943)


def test_wilson_zero_successes() -> None:
    low, high = wilson_interval(0, 10)
    assert low == 0.0
    assert high == pytest.approx(Z95**2 / (10 + Z95**2))  # upper bound when p = 0


def test_wilson_all_successes() -> None:
    low, high = wilson_interval(10, 10)
    assert high == 1.0
    assert low == pytest.approx(10 / (10 + Z95**2))
    assert 0.0 < low < 1.0


def test_wilson_empty_sample_is_nan() -> None:
    low, high = wilson_interval(0, 0)
    assert math.isnan(low) and math.isnan(high)


def test_wilson_vectorised() -> None:
    low, high = wilson_interval(np.array([0, 8, 3]), np.array([0, 10, 4]))
    assert low.shape == high.shape == (3,)
    assert math.isnan(low[0]) and math.isnan(high[0])
    assert (low[1], high[1]) == pytest.approx(_wilson_by_hand(8, 10))
    assert (low[2], high[2]) == pytest.approx(_wilson_by_hand(3, 4))


def test_wilson_confidence_level() -> None:
    z90 = 1.6448536269514722  # standard normal 0.95 quantile
    assert wilson_interval(8, 10, confidence=0.90) == pytest.approx(_wilson_by_hand(8, 10, z90))
    lo90, hi90 = wilson_interval(8, 10, confidence=0.90)
    lo99, hi99 = wilson_interval(8, 10, confidence=0.99)
    assert lo99 < lo90 and hi90 < hi99


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: wilson_interval(11, 10), r"successes must not exceed n"),
        (lambda: wilson_interval(-1, 10), r"successes must be a finite non-negative count"),
        (lambda: wilson_interval(1, 10, confidence=1.0), r"confidence must be in \(0, 1\), got 1.0"),
        (lambda: wilson_interval(1, 10, confidence=0), r"confidence must be in \(0, 1\)"),
    ],
)
def test_wilson_validation(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()


@settings(max_examples=300)
@given(
    data=st.data(),
    n=st.integers(min_value=1, max_value=10**7),
    confidence=st.floats(0.5, 0.999),
)
def test_wilson_contains_estimate_inside_unit_interval(data, n: int, confidence: float) -> None:
    s = data.draw(st.integers(min_value=0, max_value=n))
    low, high = wilson_interval(s, n, confidence)
    assert 0.0 <= low <= s / n <= high <= 1.0
    assert low < high


# ---------------------------------------------------------------------------



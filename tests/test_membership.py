"""Membership inference and base rates: anonlab.measures.base_rates and anonlab.attacks.membership.

Hand-worked values come from [FW24] (Francis & Wagner 2024) §1 and the
Fig. 10 ROC table, computed here from the formulas on paper, not from the
code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.attacks import membership as mm
from anonlab.measures import base_rates as br

# Fig. 10 of [FW24], Carlini et al.'s column (as in the claims ledger)
CARLINI_F = np.array([1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.25, 0.5, 1.0])
CARLINI_T = np.array([0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.0, 1.0])
SHOKRI_F = np.array([1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0])
SHOKRI_T = np.array([0.0003, 0.002, 0.015, 0.1, 0.4, 1.0])


# ---------------------------------------------------------------------------
# ROC -> precision/recall at a skew (Eqs 7-11) against hand computations
# ---------------------------------------------------------------------------


def test_conversion_hand_values_fig10_point() -> None:
    # Shokri, FPR 1e-4, TPR 0.002: P = 0.002 / (0.002 + k * 1e-4)
    pr = br.precision_recall_at_skews([1e-4], [0.002], ["1:1", "1:30", "1:240"])
    assert pr["precision"].tolist() == pytest.approx([0.002 / 0.0021, 0.4, 0.002 / 0.026])
    assert pr["recall"].tolist() == [0.002] * 3
    assert pr["baseline_precision"].tolist() == pytest.approx([0.5, 1 / 31, 1 / 241])
    # PI = (0.4 - 1/31) / (1 - 1/31) = (12.4 - 1) / 30 = 0.38
    assert pr.loc[1, "pi"] == pytest.approx(0.38)
    assert pr.loc[1, "targets_fraction"] == pytest.approx(0.002 / 31)
    assert pr["skew_label"].tolist() == ["1:1", "1:30", "1:240"]


def test_conversion_section1_example_counts() -> None:
    ex = br.worked_example(2000, fpr=0.05, fnr=0.0, member_share=[0.5, 0.01])
    assert ex["tp"].tolist() == [1000, 20]
    assert ex["fp"].tolist() == pytest.approx([50, 99])
    assert ex["precision"].tolist() == pytest.approx([1000 / 1050, 20 / 119])
    assert ex["skew"].tolist() == pytest.approx([1, 99])
    # the same numbers through Eq 11 on the ROC point (FPR 0.05, TPR 1)
    pr = br.precision_recall_at_skews([0.05], [1.0], [1, 99])
    assert pr["precision"].tolist() == pytest.approx(ex["precision"].tolist())


def test_worked_example_validation() -> None:
    with pytest.raises(ValueError, match="'population' must be > 0"):
        br.worked_example(0, 0.05, 0.0, 0.5)
    with pytest.raises(ValueError, match="'fpr' must be <= 1"):
        br.worked_example(2000, 1.5, 0.0, 0.5)
    with pytest.raises(ValueError, match="member_share must be in"):
        br.worked_example(2000, 0.05, 0.0, [0.5, 2])


def test_eq11_equals_counting_on_a_population() -> None:
    # 40 members, 1200 non-members (skew 30); flag the top scores and count
    rng = np.random.default_rng(1)
    member = np.r_[np.ones(40, bool), np.zeros(1200, bool)]
    scores = rng.normal(size=member.size) + 1.5 * member
    roc = br.roc_from_scores(scores, member)
    for i in (3, len(roc.fpr) // 4, len(roc.fpr) // 2):
        counted = roc.tp[i] / (roc.tp[i] + roc.fp[i])
        pr = br.precision_recall_at_skews([roc.fpr[i]], [roc.tpr[i]], 1200 / 40)
        assert pr.loc[0, "precision"] == pytest.approx(counted)


def test_everyone_is_member_is_the_end_of_every_roc_curve() -> None:
    base = br.everyone_is_member(["1:1", "1:30", "1:240"])
    assert base["precision"].tolist() == pytest.approx([1 / 2, 1 / 31, 1 / 241])
    assert base["recall"].tolist() == [1.0, 1.0, 1.0]
    assert base["pi"].tolist() == [0.0, 0.0, 0.0]
    end = br.precision_recall_at_skews([1.0], [1.0], ["1:1", "1:30", "1:240"])
    assert end["precision"].tolist() == pytest.approx(base["precision"].tolist())


def test_skews_parse_and_label() -> None:
    assert br.as_skews(["1:2", "2:5", 10, 50.0]).tolist() == [2.0, 2.5, 10.0, 50.0]
    assert br.skew_label(30) == "1:30"
    with pytest.raises(ValueError, match="skew must be a finite number >= 0"):
        br.as_skews([-1])
    with pytest.raises(ValueError, match="members:non_members"):
        br.as_skews(["30"])
    with pytest.raises(ValueError, match="at least one skew"):
        br.as_skews([])


def test_targets_fraction_round_trip() -> None:
    assert br.targets_fraction(0.31, 30) == pytest.approx(0.01)
    assert br.recall_for_targets_fraction(0.01, 30) == pytest.approx(0.31)
    with pytest.raises(ValueError, match="recall would exceed 1"):
        br.recall_for_targets_fraction(0.1, 30)


# ---------------------------------------------------------------------------
# Reading curves: interpolation, operating points
# ---------------------------------------------------------------------------


def test_log_interpolation_is_a_straight_line_on_log_log_axes() -> None:
    # halfway in log FPR between 1e-4 and 1e-2 is 1e-3; log TPR halfway: sqrt(0.01 * 0.1)
    assert br.interpolate_roc([1e-4, 1e-2], [0.01, 0.1], 1e-3) == pytest.approx(math.sqrt(0.001))
    # linear: 0.01 + 0.09 * (0.0009 / 0.0099)
    assert br.interpolate_roc([1e-4, 1e-2], [0.01, 0.1], 1e-3, scale="linear") == pytest.approx(
        0.01 + 0.09 * 0.0009 / 0.0099)
    # the curve's own points come back exactly
    got = br.interpolate_roc(CARLINI_F, CARLINI_T, CARLINI_F)
    assert got.tolist() == pytest.approx(CARLINI_T.tolist())


def test_interpolation_edges() -> None:
    # below the first point: nan unless extrapolating along the first log segment
    assert np.isnan(br.interpolate_roc(SHOKRI_F, SHOKRI_T, 1e-6))
    b = math.log(0.002 / 0.0003) / math.log(10)
    expect = 0.0003 * 0.1 ** b
    assert br.interpolate_roc(SHOKRI_F, SHOKRI_T, 1e-6, extrapolate=True) == pytest.approx(expect)
    # a segment from (0, 0) is read linearly
    assert br.interpolate_roc([0, 0.1], [0, 0.5], 0.05) == pytest.approx(0.25)
    # step: best TPR with FPR at most x
    assert br.interpolate_roc([0, 0.01, 0.1, 1], [0, 0.3, 0.6, 1], [0.005, 0.05], scale="step").tolist() \
        == [0.0, 0.3]
    with pytest.raises(ValueError, match="'scale' must be one of"):
        br.interpolate_roc([0, 1], [0, 1], 0.5, scale="cubic")


@pytest.mark.parametrize(
    "fpr, tpr, message",
    [
        ([0.1, 0.01], [0.2, 0.3], "fpr must be sorted"),
        ([0.01, 0.1], [0.3, 0.2], "tpr must not decrease"),
        ([0.01, 1.5], [0.3, 0.4], r"fpr must be in \[0, 1\]"),
        ([0.01], [0.3, 0.4], "same length"),
        ([], [], "at least one point"),
    ],
)
def test_roc_validation(fpr, tpr, message) -> None:
    with pytest.raises(ValueError, match=message):
        br.check_roc(fpr, tpr)


def test_max_recall_at_precision_hand_solution() -> None:
    # Carlini, 1:240, precision >= 0.95. On the segment (1e-5, 0.1)-(1e-4, 0.2) read on
    # log-log axes, TPR = 0.1 x^b with x = FPR/1e-5 and b = log10(2); the condition
    # TPR/FPR >= 240 * 0.95/0.05 = 4560 gives x* = (1e4/4560)^(1/(1-b)).
    b = math.log10(2)
    x = (1e4 / 4560) ** (1 / (1 - b))
    pt = br.max_recall_at_precision(CARLINI_F, CARLINI_T, "1:240", 0.95)
    assert pt.tpr == pytest.approx(0.1 * x ** b)
    assert pt.fpr == pytest.approx(1e-5 * x)
    assert pt.precision == pytest.approx(0.95)
    assert pt.targets_fraction == pytest.approx(0.1 * x ** b / 241)
    # step reading: only the table's own points; the best with P >= 0.95 is (1e-5, 0.1)
    st_pt = br.max_recall_at_precision(CARLINI_F, CARLINI_T, "1:240", 0.95, scale="step")
    assert (st_pt.fpr, st_pt.tpr) == (1e-5, 0.1)
    assert st_pt.precision == pytest.approx(0.1 / (0.1 + 240e-5))


def test_max_recall_at_precision_unreachable_and_trivial() -> None:
    # Shokri never reaches 80% at 1:30 (its best is 0.5 at the first point)
    assert math.isnan(br.max_recall_at_precision(SHOKRI_F, SHOKRI_T, 30, 0.8).tpr)
    # at skew 0 every flagged person is a member: precision 1 up to recall 1
    assert br.max_recall_at_precision(SHOKRI_F, SHOKRI_T, 0, 1.0).tpr == 1.0
    with pytest.raises(ValueError, match="'min_precision' must be > 0"):
        br.max_recall_at_precision(SHOKRI_F, SHOKRI_T, 30, 0.0)


def test_max_recall_agrees_with_a_dense_grid() -> None:
    for k in (1, 30, 240):
        for p in (0.5, 0.8, 0.95):
            exact = br.max_recall_at_precision(CARLINI_F, CARLINI_T, k, p)
            f, t = br.roc_grid(CARLINI_F, CARLINI_T, points_per_decade=4000)
            prec = t / (t + k * f)
            on_grid = t[prec >= p].max()
            assert exact.tpr >= on_grid - 1e-12
            assert exact.tpr == pytest.approx(on_grid, rel=2e-3)


def test_max_recall_for_many_cases_is_the_one_case_solution() -> None:
    """One vectorised call over (skew, bar) pairs gives exactly what one call per pair gives, and the table too."""
    ks, ps = np.array([0.0, 1, 30, 240, 30]), np.array([1.0, 0.5, 0.8, 0.95, 0.99])
    for f_, t_ in ((CARLINI_F, CARLINI_T), (SHOKRI_F, SHOKRI_T)):
        for scale in ("log", "linear", "step"):
            f, r = br.max_recall_at_precisions(f_, t_, ks, ps, scale=scale)
            one = [br.max_recall_at_precision(f_, t_, k, p, scale=scale) for k, p in zip(ks, ps)]
            np.testing.assert_array_equal(r, [pt.tpr for pt in one])
            np.testing.assert_array_equal(f, [pt.fpr for pt in one])
    table = br.max_recall_table(CARLINI_F, CARLINI_T, [1, 240], [0.5, 0.95], scales=("log", "step"))
    for row in table.itertuples():
        pt = br.max_recall_at_precision(CARLINI_F, CARLINI_T, row.skew, row.min_precision, scale=row.scale)
        assert (row.recall, row.fpr) == (pt.tpr, pt.fpr) or (math.isnan(row.recall) and math.isnan(pt.tpr))
    with pytest.raises(ValueError, match="min_precisions"):
        br.max_recall_at_precisions(CARLINI_F, CARLINI_T, [30], [0.0])


def test_precision_at_recall_hand_value() -> None:
    # recall 0.0031 on the Shokri segment (1e-4, 0.002)-(1e-3, 0.015):
    # log10 FPR = -4 + log10(0.0031/0.002) / log10(7.5)
    f = 10 ** (-4 + math.log10(0.0031 / 0.002) / math.log10(7.5))
    pt = br.precision_at_recall(SHOKRI_F, SHOKRI_T, 30, 0.0031)
    assert pt.fpr == pytest.approx(f)
    assert pt.precision == pytest.approx(0.0031 / (0.0031 + 30 * f))
    # below the first point there is no reading without extrapolation
    assert math.isnan(br.precision_at_recall(SHOKRI_F, SHOKRI_T, 30, 1e-4).precision)
    assert br.precision_at_recall(SHOKRI_F, SHOKRI_T, 30, 1e-4, extrapolate=True).precision > 0.5


def test_roc_grid_keeps_the_points_and_is_dense() -> None:
    f, t = br.roc_grid(CARLINI_F, CARLINI_T, points_per_decade=10)
    assert set(CARLINI_F.tolist()) <= set(f.tolist())
    assert np.all(np.diff(f) > 0) and np.all(np.diff(t) >= -1e-12)
    assert len(f) >= 50
    with pytest.raises(ValueError, match="points_per_decade"):
        br.roc_grid(CARLINI_F, CARLINI_T, points_per_decade=0)


# ---------------------------------------------------------------------------
# Empirical ROC curves
# ---------------------------------------------------------------------------


def test_roc_from_scores_hand_example_with_ties() -> None:
    roc = br.roc_from_scores([0.9, 0.8, 0.8, 0.1, 0.1], [True, True, False, False, True])
    # thresholds 0.9: 1 TP; 0.8: 2 TP 1 FP; 0.1: 3 TP 2 FP
    assert roc.tp.tolist() == [0, 1, 2, 3]
    assert roc.fp.tolist() == [0, 0, 1, 2]
    assert roc.tpr.tolist() == pytest.approx([0, 1 / 3, 2 / 3, 1])
    assert roc.fpr.tolist() == pytest.approx([0, 0, 0.5, 1])
    assert roc.min_fpr == 0.5


def test_roc_from_scores_matches_sklearn() -> None:
    from sklearn.metrics import roc_auc_score, roc_curve

    rng = np.random.default_rng(0)
    y = rng.random(500) < 0.3
    s = np.round(rng.normal(size=500) + y, 1)  # rounding creates ties
    roc = br.roc_from_scores(s, y)
    f, t, _ = roc_curve(y, s, drop_intermediate=False)
    assert roc.fpr.tolist() == pytest.approx(f.tolist())
    assert roc.tpr.tolist() == pytest.approx(t.tolist())
    assert roc.auc == pytest.approx(roc_auc_score(y, s))


def test_roc_from_scores_validation() -> None:
    with pytest.raises(ValueError, match="members and non-members"):
        br.roc_from_scores([1, 2], [True, True])
    with pytest.raises(ValueError, match="nan"):
        br.roc_from_scores([1, np.nan], [True, False])
    with pytest.raises(ValueError, match="length of scores"):
        br.roc_from_scores([1, 2], [True])


def test_low_fpr_table_counts_and_resolution() -> None:
    member = np.r_[np.ones(100, bool), np.zeros(500, bool)]
    scores = np.r_[np.arange(100) + 1000.0, np.arange(500.0)]  # members all above
    roc = br.roc_from_scores(scores, member)
    tab = br.low_fpr_table(roc, [1e-2, 1e-3])
    assert tab["tpr"].tolist() == [1.0, 1.0]
    assert tab["fp"].tolist() == [0, 0]  # TPR 1 is reached without a false positive
    assert tab["resolvable"].tolist() == [True, False]  # 1e-3 < 1/500
    lo, hi = tab.loc[0, ["tpr_low", "tpr_high"]]
    assert lo < 1.0 == hi
    assert br.tpr_at_fpr(roc.fpr, roc.tpr, 1e-2) == 1.0
    # interleaved: members 10, 8, 6; non-members 9, 7, 5, ..., -2 (N = 10)
    roc = br.roc_from_scores([10, 8, 6, 9, 7, 5, 4, 3, 2, 1, 0, -1, -2], [True] * 3 + [False] * 10)
    tab = br.low_fpr_table(roc, [0.1, 0.05])
    assert tab["tp"].tolist() == [2, 1] and tab["fp"].tolist() == [1, 0]
    assert tab["resolvable"].tolist() == [True, False]


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

unit = st.floats(min_value=1e-6, max_value=1.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(unit, unit), min_size=2, max_size=8),
       st.floats(min_value=0.5, max_value=500), st.floats(min_value=0.5, max_value=500))
def test_precision_falls_with_skew_at_every_point(points, k1, dk) -> None:
    f = np.sort([p[0] for p in points])
    t = np.sort([p[1] for p in points])
    pr = br.precision_recall_at_skews(f, t, [k1, k1 + dk])
    p1, p2 = pr["precision"].to_numpy().reshape(2, -1)
    assert np.all(p2 < p1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(unit, unit), min_size=2, max_size=8),
       st.floats(min_value=0, max_value=300), st.floats(min_value=0.05, max_value=0.9),
       st.floats(min_value=0.01, max_value=0.09))
def test_max_recall_shrinks_as_the_precision_bar_rises(points, k, p, dp) -> None:
    f = np.sort([q[0] for q in points])
    t = np.sort([q[1] for q in points])
    lo = br.max_recall_at_precision(f, t, k, p)
    hi = br.max_recall_at_precision(f, t, k, p + dp)
    if not math.isnan(hi.tpr):
        assert lo.tpr >= hi.tpr - 1e-12
        assert hi.precision >= p + dp - 1e-9


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=1e-5, max_value=1.0), st.floats(min_value=0.1, max_value=1000))
def test_pi_is_zero_on_the_diagonal(r, k) -> None:
    pr = br.precision_recall_at_skews([r], [r], k)
    assert pr.loc[0, "pi"] == pytest.approx(0.0, abs=1e-12)


# ---------------------------------------------------------------------------
# Attacks: memorising model -> near perfect; membership-independent model -> chance
# ---------------------------------------------------------------------------


class LookupClassifier:
    """Memorises its training rows: one-hot on the true label for a seen row, 0.5/0.5 otherwise."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit(self, X, y):
        self.table_ = {row.tobytes(): int(lab) for row, lab in zip(X, y, strict=True)}
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        out = np.full((len(X), 2), 0.5)
        for i, row in enumerate(X):
            lab = self.table_.get(row.tobytes())
            if lab is not None:
                out[i] = 0.0
                out[i, lab] = 1.0
        return out


class FixedFunctionClassifier:
    """Ignores its training data: the same logistic function of x whatever it was fitted on."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        p1 = 1 / (1 + np.exp(-(X[:, 0] - X[:, 1])))
        return np.column_stack([1 - p1, p1])


def _synthetic(n: int = 1200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)).astype(np.float32)  # continuous: no duplicate rows
    y = (rng.random(n) < 1 / (1 + np.exp(-X[:, 0]))).astype(np.int64)
    return X, y


@pytest.fixture(scope="module")
def memorised() -> pd.DataFrame:
    X, y = _synthetic()
    models = mm.train_shadow_models(X, y, LookupClassifier, n_models=9, member_fraction=0.5, seed=3)
    return mm.run_attacks(models, n_targets=3, seed=3)


@pytest.fixture(scope="module")
def independent() -> pd.DataFrame:
    X, y = _synthetic(seed=1)
    models = mm.train_shadow_models(X, y, FixedFunctionClassifier, n_models=9, member_fraction=0.5, seed=4)
    return mm.run_attacks(models, n_targets=3, seed=4)


@pytest.mark.parametrize("attack", mm.ATTACKS)
def test_memorising_model_gives_a_near_perfect_attack(memorised, attack) -> None:
    roc = mm.attack_rocs(memorised)[attack]
    if attack == "confidence":
        # label-free: a memorised row has confidence 1, an unseen one 0.5
        assert roc.auc == pytest.approx(1.0)
        return
    assert roc.auc > 0.99
    assert br.tpr_at_fpr(roc.fpr, roc.tpr, 1e-3) > 0.95


@pytest.mark.parametrize("attack", mm.ATTACKS)
def test_membership_independent_model_gives_chance(independent, attack) -> None:
    roc = mm.attack_rocs(independent)[attack]
    assert abs(roc.auc - 0.5) < 0.05
    # no high-precision regime: TPR at FPR 0.05 stays near 0.05
    assert br.tpr_at_fpr(roc.fpr, roc.tpr, 0.05) < 0.12


def test_real_model_attack_ranking_on_synthetic_data() -> None:
    # an overfitting forest: every attack beats chance, LiRA beats the plain loss attack
    X, y = _synthetic(n=1500, seed=5)
    spec = mm.ModelSpec("random_forest", n_estimators=30)
    models = mm.train_shadow_models(X, y, spec, n_models=9, member_fraction=0.5, seed=5)
    rocs = mm.attack_rocs(mm.run_attacks(models, n_targets=2, seed=5))
    assert all(r.auc > 0.55 for r in rocs.values())
    assert rocs["lira_online"].auc > rocs["loss"].auc


# ---------------------------------------------------------------------------
# Attack formulas on hand-made numbers
# ---------------------------------------------------------------------------


def test_lira_hand_example() -> None:
    # one record, four reference models: IN confidences 2 and 4, OUT 0 and 2; target 3
    phi = np.array([[2.0], [4.0], [0.0], [2.0]])
    inm = np.array([[True], [True], [False], [False]])
    target = np.array([3.0])
    # global variance: pooled residuals (1 + 1) / (2 - 1) for each group -> sigma = sqrt(2)
    s = math.sqrt(2)
    assert mm.lira_offline(phi, inm, target)[0] == pytest.approx((3 - 1) / s)
    # log N(3; 3, 2) - log N(3; 1, 2) = 0 + 2^2 / (2 * 2) = 1
    assert mm.lira_online(phi, inm, target)[0] == pytest.approx(1.0)
    # per-example variance: std (ddof 0) of [2, 4] and [0, 2] = 1 -> online 2, offline 2
    assert mm.lira_online(phi, inm, target, variance="per_example")[0] == pytest.approx(2.0)
    assert mm.lira_offline(phi, inm, target, variance="per_example")[0] == pytest.approx(2.0)


def test_lira_record_without_in_models_uses_the_mean_shift() -> None:
    # record 0: IN 3, 5 and OUT 0, 2 (shift 4 - 1 = 3); record 1: no IN model, OUT 1, 2, 3, 2
    phi = np.array([[3.0, 1.0], [5.0, 2.0], [0.0, 3.0], [2.0, 2.0]])
    inm = np.array([[True, False], [True, False], [False, False], [False, False]])
    out = mm.lira_online(phi, inm, np.array([5.0, 5.0]))
    # sigma_in = sqrt(2 / 1), sigma_out = sqrt((2 + 2) / (6 - 2)) = 1; record 1: mu_in = 2 + 3 = 5
    # log N(5; 5, 2) - log N(5; 2, 1) = -log(sqrt 2) + 9/2
    assert out[1] == pytest.approx(-math.log(math.sqrt(2)) + 4.5)


@pytest.mark.parametrize("variance", ["global", "per_example"])
def test_lira_scores_equal_the_two_attacks_bit_for_bit(variance) -> None:
    rng = np.random.default_rng(3)
    inm = rng.random((7, 300)) < 0.5
    inm[:, :3] = False  # no IN model
    inm[:, 3:6] = True  # no OUT model
    phi = rng.normal(size=(7, 300)) + inm
    target = rng.normal(size=300)
    off, on = mm.lira_scores(phi, inm, target, variance=variance)
    assert np.array_equal(off, mm.lira_offline(phi, inm, target, variance=variance))
    assert np.array_equal(on, mm.lira_online(phi, inm, target, variance=variance))
    assert np.all(off[3:6] == 0.0) and np.all(np.isfinite(on))


def test_run_attacks_keeps_the_order_of_the_attacks() -> None:
    X, y = _synthetic(n=200, seed=1)
    models = mm.train_shadow_models(X, y, mm.ModelSpec("random_forest", n_estimators=3), n_models=3, seed=1)
    order = ["lira_online", "loss", "lira_offline"]
    df = mm.run_attacks(models, attacks=order)
    assert list(df.columns) == ["target_model", "record", "is_member", *order]
    phi = mm.logit_confidence(models.proba, models.y)
    assert np.array_equal(df["lira_offline"], mm.lira_offline(phi[1:], models.in_mask[1:], phi[0]))


def test_lira_validation() -> None:
    with pytest.raises(ValueError, match="'variance' must be one of"):
        mm.lira_online(np.zeros((2, 3)), np.zeros((2, 3), bool), np.zeros(3), variance="local")
    with pytest.raises(ValueError, match="boolean"):
        mm.lira_offline(np.zeros((2, 3)), np.zeros((2, 3)), np.zeros(3))
    with pytest.raises(ValueError, match="finite"):
        mm.lira_offline(np.full((2, 3), np.inf), np.zeros((2, 3), bool), np.zeros(3))


def test_threshold_attack_statistics() -> None:
    proba = np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]])
    y = np.array([0, 0, 1])
    assert mm.true_class_probability(proba, y).tolist() == [0.9, 0.2, 0.5]
    assert mm.loss_attack(proba, y).tolist() == pytest.approx(np.log([0.9, 0.2, 0.5]).tolist())
    assert mm.confidence_attack(proba).tolist() == [0.9, 0.8, 0.5]
    assert mm.logit_confidence(proba, y).tolist() == pytest.approx(
        [math.log(9), math.log(0.25), 0.0])
    with pytest.raises(ValueError, match="class indices"):
        mm.true_class_probability(proba, np.array([0, 2, 1]))


def test_shokri_learns_in_from_out() -> None:
    rng = np.random.default_rng(0)
    n, k = 400, 6
    inm = rng.random((k, n)) < 0.5
    p_true = np.where(inm, 0.95, 0.6) + rng.normal(0, 0.02, (k, n))
    y = np.zeros(n, dtype=np.int64)
    shadow = np.stack([p_true, 1 - p_true], axis=-1)
    target_in = rng.random(n) < 0.5
    t_true = np.where(target_in, 0.95, 0.6)
    scores = mm.shokri_attack(shadow, inm, y, np.column_stack([t_true, 1 - t_true]))
    assert br.roc_from_scores(scores, target_in).auc > 0.95


def test_training_sets_and_determinism() -> None:
    m = mm.sample_training_sets(100, 4, 0.3, np.random.default_rng(0))
    assert m.sum(axis=1).tolist() == [30] * 4
    assert not np.all(m[0] == m[1])
    with pytest.raises(ValueError, match="'member_fraction' must be < 1"):
        mm.sample_training_sets(100, 4, 1.0, np.random.default_rng(0))
    X, y = _synthetic(n=300)
    spec = mm.ModelSpec("random_forest", n_estimators=5)
    a = mm.train_shadow_models(X, y, spec, n_models=3, seed=7)
    b = mm.train_shadow_models(X, y, spec, n_models=3, seed=7)
    c = mm.train_shadow_models(X, y, spec, n_models=3, seed=8)
    assert np.array_equal(a.proba, b.proba) and np.array_equal(a.in_mask, b.in_mask)
    assert not np.array_equal(a.in_mask, c.in_mask)
    acc = a.accuracy()
    assert list(acc.columns) == ["model", "train_accuracy", "test_accuracy", "gap"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(model="svm"), "'model' must be one of"),
        (dict(model="logistic_regression", max_depth=3), "tree models only"),
        (dict(max_depth=0), "'max_depth' must be >= 1"),
        (dict(n_estimators=0), "'n_estimators' must be >= 1"),
    ],
)
def test_model_spec_validation(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        mm.ModelSpec(**kwargs)


def test_every_model_kind_fits_and_predicts() -> None:
    X, y = _synthetic(n=200)
    X = np.column_stack([X, (X[:, 2] > 0).astype(np.float32)])  # one categorical code column
    for name in mm.MODELS:
        est = mm.ModelSpec(name, n_estimators=5, categorical=(3,))(0)
        est.fit(X, y)
        assert est.predict_proba(X).shape == (200, 2)


def test_pool_size_and_run_attacks_validation() -> None:
    assert mm.pool_size("adult", 10_000, 0.5) == 20_000
    with pytest.raises(ValueError, match="lower n_members or raise member_fraction"):
        mm.pool_size("adult", 40_000, 0.5)
    with pytest.raises(ValueError, match="'dataset' must be one of"):
        mm.pool_size("texas", 10, 0.5)
    X, y = _synthetic(n=100)
    models = mm.train_shadow_models(X, y, mm.ModelSpec(n_estimators=3), n_models=2, seed=0)
    with pytest.raises(ValueError, match="'n_targets' must be <= 2"):
        mm.run_attacks(models, n_targets=3)
    with pytest.raises(ValueError, match="attacks must be"):
        mm.run_attacks(models, attacks=["guess"])


def test_encode_features() -> None:
    df = pd.DataFrame({"a": [3, 1], "b": ["y", "x"], "lab": ["p", "q"]})
    X, y, names, cat, classes = mm.encode_features(df, "lab")
    assert X.tolist() == [[3.0, 1.0], [1.0, 0.0]] and y.tolist() == [0, 1]
    assert names == ["a", "b"] and cat.tolist() == [False, True] and classes == ["p", "q"]
    with pytest.raises(ValueError, match="missing values"):
        mm.encode_features(df.assign(a=[1, None]), "lab")
    with pytest.raises(ValueError, match="unknown column"):
        mm.encode_features(df, "label")


@pytest.mark.network
def test_adult_pool_has_the_documented_size() -> None:
    data = mm.load_membership_data("adult")
    assert data.n_records == mm.DATASET_ROWS["adult"]
    assert data.classes == ["<=50K", ">50K"]
    assert "fnlwgt" not in data.feature_names
    sample = mm.load_membership_data("adult", n_records=500, seed=1)
    assert sample.n_records == 500


def test_precision_interval_hand_value() -> None:
    # 50 of 1000 members flagged, 0 of 1000 non-members, skew 30:
    # Wilson: TPR in [0.0381, 0.0652], FPR in [0, z^2 / (n + z^2)] = [0, 0.003827]
    z2 = 1.959963984540054 ** 2
    f_hi = z2 / (1000 + z2)
    t_lo = (0.05 + z2 / 2000 - 1.959963984540054 * math.sqrt(0.05 * 0.95 / 1000 + z2 / 4e6)) / (1 + z2 / 1000)
    lo, hi = br.precision_interval_at_skew(50, 1000, 0, 1000, 30)
    assert float(hi) == 1.0
    assert float(lo) == pytest.approx(t_lo / (t_lo + 30 * f_hi))
    roc = br.roc_from_scores(np.r_[np.arange(10.0) + 100, np.arange(90.0)], np.r_[np.ones(10, bool),
                                                                                  np.zeros(90, bool)])
    tab = br.low_fpr_table(roc, [0.1], skews=["1:1", "1:30"])
    assert tab["skew"].tolist() == [1.0, 30.0]
    assert tab["precision"].tolist() == pytest.approx([1.0, 1.0])  # no false positive needed
    assert (tab["precision_low"] < 1).all()


def test_empirical_max_recall_zero_false_positives_is_not_proof() -> None:
    # 20 members above 1000 non-members except one: point estimates say precision 1 at any skew,
    # the conservative reading does not trust FPR = 0 measured on 1000 non-members at skew 1000
    member = np.r_[np.ones(20, bool), np.zeros(1000, bool)]
    scores = np.r_[np.arange(20.0) + 2000, np.arange(1000.0)]
    roc = br.roc_from_scores(scores, member)
    t = br.empirical_max_recall_table(roc, [1, 1000], [0.9])
    assert t["recall"].tolist() == [1.0, 1.0]
    assert t.loc[0, "recall_conservative"] == 1.0  # at 1:1 the interval clears 0.9
    assert math.isnan(t.loc[1, "recall_conservative"])
    assert t.loc[1, "one_in_targets"] == pytest.approx(1001 / 1.0)


@pytest.mark.parametrize("module", [br, mm], ids=["base_rates", "membership"])
def test_docstring_examples(module) -> None:
    import doctest

    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_full_recall_against_everyone_is_a_member() -> None:
    # Carlini's column reaches TPR 1 at FPR 0.25: precision 1/(1 + 30 * 0.25) at 1:30
    t = br.full_recall_vs_baseline(CARLINI_F, CARLINI_T, ["1:30"])
    assert t.loc[0, "fpr"] == 0.25
    assert t.loc[0, "precision"] == pytest.approx(1 / 8.5)
    assert t.loc[0, "baseline_precision"] == pytest.approx(1 / 31)
    assert bool(t.loc[0, "beats_baseline"])
    # Shokri's reaches TPR 1 only at FPR 1: exactly the baseline, PI 0
    s = br.full_recall_vs_baseline(SHOKRI_F, SHOKRI_T, ["1:1", "1:240"])
    assert s["precision"].tolist() == pytest.approx(s["baseline_precision"].tolist())
    assert not s["beats_baseline"].any() and s["pi"].tolist() == pytest.approx([0, 0])


def test_counted_precision_at_a_skew() -> None:
    # 10 members (scores 10..19) and 300 non-members (scores 0..299): at 1:30 one member is drawn
    scores = np.r_[np.arange(10.0) + 10, np.arange(300.0)]
    member = np.r_[np.ones(10, bool), np.zeros(300, bool)]
    c = br.counted_precision(scores, member, 290, "1:30", np.random.default_rng(0))
    assert (c["members"], c["non_members"]) == (10, 300)  # round(300 / 30) = 10 members
    assert (c["tp"], c["fp"]) == (0, 10)  # flags scores >= 290: only non-members 290..299
    assert c["precision"] == 0.0 and c["ci_low"] == 0.0 and c["ci_high"] > 0

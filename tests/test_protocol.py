"""The scoring protocol: AttackResult -> score, baselines on the same targets, yardstick."""

from __future__ import annotations

import math

import numpy as np
import pytest

from anonlab.measures import AttackResult, majority_baseline, score, yardstick


def _toy() -> tuple[AttackResult, AttackResult]:
    truth = ["a", "b", "a", "b", "a"]
    attack = AttackResult.from_predictions("toy", truth, ["a", None, "a", "a", None],
                                           resources={"queries": 3})
    base = AttackResult.from_predictions("always b", truth, ["b"] * 5)
    return attack, base


def test_precision_coverage_by_hand() -> None:
    attack, _ = _toy()
    s = score(attack)
    assert (s.n_targets, s.n_predictions, s.n_correct) == (5, 3, 2)
    assert s.precision == pytest.approx(2 / 3) and s.coverage == pytest.approx(3 / 5)
    assert s.prediction_rate == pytest.approx(2 / 5)
    assert s.precision_ci[0] < 2 / 3 < s.precision_ci[1]
    assert s.recall is None and math.isnan(s.precision_improvement)
    assert s.resources == {"queries": 3}


def test_baseline_is_measured_on_the_targets_the_attack_predicted_for() -> None:
    attack, base = _toy()
    s = score(attack, base)
    # predicted targets 0, 2, 3 with truths a, a, b: "always b" is right once
    assert s.baseline_precision == pytest.approx(1 / 3)
    # PI = (2/3 - 1/3) / (1 - 1/3) = 0.5  ([FW24] Eq 6, by hand)
    assert s.precision_improvement == pytest.approx(0.5)
    lo, hi = s.precision_improvement_ci
    assert lo < 0.5 < hi


def test_baseline_against_itself_has_zero_improvement() -> None:
    _, base = _toy()
    assert score(base, base).precision_improvement == 0.0


def test_baseline_must_cover_the_attacks_targets() -> None:
    attack, base = _toy()
    with pytest.raises(ValueError, match="not attacked"):
        score(attack, base.subset(np.array([True, False, False, False, False])))


def test_positive_value_gives_recall() -> None:
    truth = [True, True, False, False]
    r = AttackResult.from_predictions("mia", truth, [True, False, True, False], positive=True)
    s = score(r)
    assert s.n_predictions == 2 and s.precision == 0.5 and s.recall == 0.5


def test_no_prediction_gives_nan_not_zero() -> None:
    r = AttackResult.from_predictions("silent", ["a", "b"], [None, None])
    s = score(r)
    assert s.coverage == 0 and math.isnan(s.precision)


def test_thresholds_trade_precision_for_coverage() -> None:
    r = AttackResult.from_predictions("c", ["a", "a", "b", "b"], ["a", "a", "a", "a"],
                                      confidence=[0.9, 0.8, 0.4, 0.3])
    hi = score(r.at_threshold(0.5))
    assert hi.coverage == 0.5 and hi.precision == 1.0
    assert score(r).precision == 0.5
    with pytest.raises(ValueError, match="confidence"):
        AttackResult.from_predictions("x", ["a"], ["a"]).at_threshold(0.5)


def test_explicit_correctness_and_tolerance() -> None:
    r = AttackResult.from_predictions("num", [10.0, 20.0, 30.0], [10.4, 25.0, 30.0], tolerance=0.5)
    assert r.is_correct().tolist() == [True, False, True]
    c = AttackResult.from_predictions("rel", [1, 2], [1, 2], correct=[True, False])
    assert score(c).n_correct == 1


def test_majority_baseline_and_yardstick() -> None:
    attack, _ = _toy()
    base = majority_baseline(attack.truth)
    assert set(base.prediction) == {"a"}
    table = yardstick({"toy": attack}, {"toy": base})
    assert table.loc["toy", "baseline_precision"] == pytest.approx(2 / 3)
    assert table.loc["toy", "resource_queries"] == 3


def test_bad_results_are_refused() -> None:
    with pytest.raises(ValueError, match="one per target"):
        AttackResult("x", np.arange(3), np.zeros(2), np.ones(3, bool), np.zeros(3))
    with pytest.raises(ValueError, match="distinct"):
        AttackResult("x", np.array([1, 1]), np.zeros(2), np.ones(2, bool), np.zeros(2))
    with pytest.raises(ValueError, match="boolean"):
        AttackResult("x", np.arange(2), np.zeros(2), np.ones(2), np.zeros(2))


def test_distinct_check_agrees_with_python_set() -> None:
    """The fast distinct-targets check answers as len(set(...)) does, for every kind of integer array."""
    from anonlab.measures.protocol import _all_distinct

    rng = np.random.default_rng(0)
    for _ in range(3000):
        n = int(rng.integers(0, 60))
        v = rng.integers(-5 if rng.random() < 0.3 else 0, int(rng.integers(1, 300)), n)
        if rng.random() < 0.1:
            v = v * 10**11
        if rng.random() < 0.1:
            v = v.astype(np.uint16)
        assert _all_distinct(v) == (len(set(v.tolist())) == v.size)

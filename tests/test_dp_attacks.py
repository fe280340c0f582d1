"""Tests of anonlab.mechanisms.dp (noisy counts) and anonlab.attacks.naive_bayes (Cormode's naive attack).

Hand-worked values use tiny tables whose counts can be read off by eye; the
formulas are those of Cormode (2011), §2.1-2.2.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.attacks.naive_bayes import (
    bucketize,
    dirichlet_naive_bayes,
    evaluate_model,
    high_confidence,
    log_scores,
    naive_attack,
    naive_bayes_from_counts,
    naive_bayes_result,
    posterior,
    predict,
    strictly_above,
    summarize_attack,
)
from anonlab.measures import majority_baseline, score
from anonlab.mechanisms.dp import (
    MISSING,
    encode_table,
    expected_abs_noise,
    geometric_alpha,
    laplace_noise,
    measured_sensitivity,
    pair_counts,
    query_sensitivity,
    release_counts,
    sa_marginal,
    two_sided_geometric,
)

# A tiny table: 2 QIs (sex: F/M, edu: hs/uni), SA job in {a, b}.
TINY = pd.DataFrame({
    "sex": ["F", "F", "F", "M", "M", "M"],
    "edu": ["hs", "uni", "uni", "hs", "hs", None],
    "job": ["a", "a", "b", "b", "b", "a"],
})


@pytest.fixture
def tiny():
    return encode_table(TINY, ["sex", "edu"], "job")


# ---------------------------------------------------------------- encoding and counts


def test_encode_table_codes_sorted_labels_and_missing_as_category(tiny):
    assert tiny.qi_names == ("sex", "edu")
    assert list(tiny.qi_domains[0]) == ["F", "M"]
    assert list(tiny.qi_domains[1]) == [MISSING, "hs", "uni"]  # '?' sorts first
    assert list(tiny.sa_domain) == ["a", "b"]
    assert tiny.qi_codes[:, 1].tolist() == [1, 2, 2, 1, 1, 0]
    assert tiny.offsets.tolist() == [0, 2, 5]


def test_pair_counts_hand_checked(tiny):
    # rows: sex=F, sex=M, edu=?, edu=hs, edu=uni ; columns: job a, b
    expected = np.array([
        [2, 1],  # F: a, a, b
        [1, 2],  # M: b, b, a
        [1, 0],  # ?: a
        [1, 2],  # hs: a, b, b
        [1, 1],  # uni: a, b
    ])
    np.testing.assert_array_equal(pair_counts(tiny), expected)
    np.testing.assert_array_equal(sa_marginal(tiny), [3, 3])


def test_encode_table_errors():
    with pytest.raises(ValueError, match="unknown attribute"):
        encode_table(TINY, ["sex", "age"], "job")
    with pytest.raises(ValueError, match="missing value"):
        encode_table(TINY.assign(job=[None, "a", "a", "b", "b", "b"]), ["sex"], "job")
    with pytest.raises(ValueError, match="outside the domain"):
        encode_table(TINY, ["sex"], "job", domains={"sex": ["F"]})
    with pytest.raises(ValueError, match="also a quasi-identifier"):
        encode_table(TINY, ["sex", "job"], "job")


def test_encode_table_with_a_public_domain_keeps_unused_values():
    t = encode_table(TINY, ["sex"], "job", domains={"sex": ["F", "M", "X"]})
    assert t.cardinalities.tolist() == [3]
    assert pair_counts(t)[2].tolist() == [0, 0]


# ---------------------------------------------------------------- sensitivity


def test_query_sensitivity_is_m_or_m_plus_1():
    assert query_sensitivity(5) == 5
    assert query_sensitivity(5, include_sa_marginal=True) == 6
    with pytest.raises(ValueError, match="m"):
        query_sensitivity(0)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(2, 30),
    m=st.integers(1, 4),
    seed=st.integers(0, 10_000),
    marginal=st.booleans(),
)
def test_removing_one_tuple_changes_the_answer_by_exactly_the_sensitivity(n, m, seed, marginal):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({f"q{i}": rng.integers(0, 3, n) for i in range(m)})
    df["s"] = rng.integers(0, 4, n)
    t = encode_table(df, [f"q{i}" for i in range(m)], "s")
    got = measured_sensitivity(t, range(n), include_sa_marginal=marginal)
    assert got == query_sensitivity(m, include_sa_marginal=marginal)


# ---------------------------------------------------------------- noise


def test_geometric_alpha_formula():
    assert geometric_alpha(1.0, 5) == pytest.approx(math.exp(-0.2))
    with pytest.raises(ValueError, match="'epsilon' must be > 0, got -1"):
        geometric_alpha(-1, 5)
    with pytest.raises(ValueError, match="'epsilon' must be > 0"):
        geometric_alpha(0.0, 5)


def test_two_sided_geometric_matches_its_pmf():
    alpha = 0.6
    z = two_sided_geometric(alpha, 400_000, np.random.default_rng(0))
    assert z.dtype == np.int64
    for k in range(-4, 5):
        pmf = (1 - alpha) / (1 + alpha) * alpha ** abs(k)
        assert np.mean(z == k) == pytest.approx(pmf, abs=0.004)
    assert np.mean(np.abs(z)) == pytest.approx(2 * alpha / (1 - alpha**2), rel=0.02)


def test_expected_abs_noise_of_the_paper_corners():
    # Cormode §2.2: eps in [0.1, 1], m in [3, 10] -> single to double digits
    assert expected_abs_noise(1.0, 3) == pytest.approx(2 * math.exp(-1 / 3) / (1 - math.exp(-2 / 3)))
    assert 1 < expected_abs_noise(1.0, 3) < 10
    assert 90 < expected_abs_noise(0.1, 10) < 101
    assert expected_abs_noise(0.5, 4, "laplace") == pytest.approx(8.0)


def test_laplace_noise_scale():
    z = laplace_noise(3.0, 200_000, np.random.default_rng(1))
    assert np.mean(np.abs(z)) == pytest.approx(3.0, rel=0.02)


def test_release_counts_seeded_shapes_and_noiseless(tiny):
    a = release_counts(tiny, 0.5, draws=4, seed=7)
    b = release_counts(tiny, 0.5, draws=4, seed=7)
    np.testing.assert_array_equal(a.counts, b.counts)
    assert a.counts.shape == (4, 5, 2)
    assert a.sensitivity == 2 and a.noise == "geometric"
    exact = release_counts(tiny, math.inf, draws=2)
    np.testing.assert_array_equal(exact.counts[1], pair_counts(tiny))
    lap = release_counts(tiny, 1.0, noise="laplace", seed=1)
    assert lap.counts.dtype == float
    with pytest.raises(ValueError, match="'epsilon' must be > 0"):
        release_counts(tiny, 0)
    with pytest.raises(ValueError, match="'noise' must be one of"):
        release_counts(tiny, 1.0, noise="gauss")


def test_release_noise_has_the_calibrated_spread():
    df = pd.DataFrame({"q": np.zeros(10, int), "s": np.zeros(10, int)})
    t = encode_table(df, ["q"], "s")
    rel = release_counts(t, 0.5, draws=100_000, seed=3)  # one cell, s_q = 1
    noise = rel.counts[:, 0, 0] - 10
    assert np.mean(np.abs(noise)) == pytest.approx(expected_abs_noise(0.5, 1), rel=0.03)


# ---------------------------------------------------------------- the classifier


def test_naive_bayes_from_counts_clamp_laplace_and_prior():
    # one QI with 2 values, SA with 2 values; one noisy count is negative
    counts = np.array([[3.0, -2.0],
                       [1.0, 4.0]])
    model = naive_bayes_from_counts(counts, np.array([0, 2]))
    # c' = 1 + max(0, c): [[4, 1], [2, 5]]
    cond = np.exp(model.log_cond[0])
    np.testing.assert_allclose(cond, [[4 / 6, 1 / 6], [2 / 6, 5 / 6]])
    # Pr[s] from the summed corrected counts: 6 / 12 each
    np.testing.assert_allclose(np.exp(model.log_prior[0]), [0.5, 0.5])


def test_prior_sums_over_all_tables(tiny):
    model = naive_bayes_from_counts(pair_counts(tiny), tiny.offsets)
    # corrected counts 1 + c: F [3, 2], M [2, 3], ? [2, 1], hs [2, 3], uni [2, 2]
    c = pair_counts(tiny) + 1
    by_s = c.sum(axis=0)
    assert by_s.tolist() == [3 + 2 + 2 + 2 + 2, 2 + 3 + 1 + 3 + 2]
    np.testing.assert_allclose(np.exp(model.log_prior[0]), by_s / by_s.sum())


def test_posterior_and_prediction_hand_worked(tiny):
    model = naive_bayes_from_counts(pair_counts(tiny), tiny.offsets)
    # tuple (M, hs): Pr[a] Pr[M|a] Pr[hs|a]  vs  Pr[b] Pr[M|b] Pr[hs|b]
    # corrected: M: a 2, b 3 (of 5 each); hs: a 2 of 6, b 3 of 6; Pr[a] = Pr[b] = 11/22
    sa_ = 0.5 * (2 / 5) * (2 / 6)
    sb_ = 0.5 * (3 / 5) * (3 / 6)
    code = np.array([[1, 1]])
    post = posterior(model, code)[0, 0]
    np.testing.assert_allclose(post, [sa_ / (sa_ + sb_), sb_ / (sa_ + sb_)])
    assert predict(model, code)[0, 0] == 1
    np.testing.assert_allclose(posterior(model, tiny.qi_codes).sum(axis=-1), 1.0)


def test_log_scores_rejects_codes_outside_the_domain(tiny):
    model = naive_bayes_from_counts(pair_counts(tiny), tiny.offsets)
    with pytest.raises(ValueError, match="outside"):
        log_scores(model, np.array([[0, 3]]))
    with pytest.raises(ValueError, match="shape"):
        log_scores(model, np.array([[0]]))


def test_high_confidence_threshold():
    post = np.array([[0.9, 0.1], [0.8, 0.2], [0.5, 0.5]])
    assert high_confidence(post, 0.8).tolist() == [True, False, False]
    with pytest.raises(ValueError, match="threshold"):
        high_confidence(post, 1.0)


def test_majority_baseline_through_the_protocol(tiny):
    """The majority guess on SA codes (measures.majority_baseline), scored by measures.score."""
    assert score(majority_baseline(tiny.sa_codes)).precision == 0.5
    other = encode_table(TINY.assign(job=["b"] * 6), ["sex"], "job",
                         domains={"job": ["a", "b"]})
    train = encode_table(TINY, ["sex"], "job")
    # train's top value is 'a' (code 0, first of a tie): wrong on every tuple of `other`
    assert score(majority_baseline(other.sa_codes, reference=train.sa_codes)).precision == 0.0


def test_strictly_above_keeps_beliefs_above_the_threshold():
    t = strictly_above(0.8)
    assert t > 0.8 and np.nextafter(t, 0.0) == 0.8
    post = np.array([[0.9, 0.1], [0.8, 0.2], [0.5, 0.5]])
    assert (post.max(axis=1) >= t).tolist() == high_confidence(post, 0.8).tolist()


def test_naive_bayes_result_scores_like_evaluate_model():
    """precision = accuracy, coverage / precision at the threshold = confident share / accuracy, per draw."""
    rng = np.random.default_rng(11)
    df = pd.DataFrame({"a": rng.integers(0, 4, 400), "b": rng.integers(0, 3, 400)})
    df["s"] = (df["a"] + rng.integers(0, 2, 400)) % 5
    t = encode_table(df, ["a", "b"], "s")
    model = naive_bayes_from_counts(release_counts(t, 2.0, draws=3, seed=4))
    ev = evaluate_model(model, t, threshold=0.6)
    for d in range(3):
        res = naive_bayes_result(model, t, draw=d, attack="nb")
        assert res.n_targets == 400 and res.predicted.all()
        np.testing.assert_array_equal(res.prediction, predict(model, t.qi_codes)[d])
        assert score(res).precision == ev["accuracy"][d]
        conf = score(res.at_threshold(strictly_above(0.6)))
        assert conf.n_predictions == ev["n_confident"][d]
        assert conf.coverage == ev["confident_share"][d]
        assert conf.precision == pytest.approx(ev["confident_accuracy"][d], nan_ok=True)
    with pytest.raises(ValueError, match="draw"):
        naive_bayes_result(model, t, draw=3)


def test_dirichlet_variant_is_seeded_and_centred_on_the_point_estimate(tiny):
    counts = pair_counts(tiny) * 200  # large counts: draws concentrate on the estimate
    point = naive_bayes_from_counts(counts, tiny.offsets)
    a = dirichlet_naive_bayes(np.broadcast_to(counts, (50, *counts.shape)), tiny.offsets, seed=4)
    b = dirichlet_naive_bayes(np.broadcast_to(counts, (50, *counts.shape)), tiny.offsets, seed=4)
    np.testing.assert_array_equal(a.log_cond, b.log_cond)
    np.testing.assert_allclose(np.exp(a.log_cond).mean(axis=0), np.exp(point.log_cond[0]), atol=0.02)
    # every conditional distribution is normalised within its block
    for i in range(2):
        lo, hi = tiny.offsets[i], tiny.offsets[i + 1]
        np.testing.assert_allclose(np.exp(a.log_cond[:, lo:hi]).sum(axis=1), 1.0)


# ---------------------------------------------------------------- the attack


def test_bucketize_paper_hours():
    got = bucketize(pd.Series([0, 25, 26, 40, 41, 60, 61, 99, None]), [25, 40, 60]).tolist()
    assert got == ["0-25", "0-25", "26-40", "26-40", "41-60", "41-60", "61+", "61+", None]
    with pytest.raises(ValueError, match="increasing"):
        bucketize(pd.Series([1]), [40, 25])


def test_noiseless_attack_is_perfect_when_a_qi_determines_the_sa():
    rng = np.random.default_rng(0)
    s = rng.integers(0, 5, 500)
    df = pd.DataFrame({"copy": s, "junk": rng.integers(0, 3, 500), "s": s})
    t = encode_table(df, ["copy", "junk"], "s")
    res = naive_attack(t, [math.inf])
    assert res["accuracy"].iloc[0] == 1.0
    assert len(res) == 1  # one draw for the noiseless classifier


def test_evaluate_model_matches_per_tuple_scoring(tiny):
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"a": rng.integers(0, 4, 300), "b": rng.integers(0, 3, 300)})
    df["s"] = (df["a"] + rng.integers(0, 2, 300)) % 3
    t = encode_table(df, ["a", "b"], "s")
    model = naive_bayes_from_counts(release_counts(t, 0.5, draws=3, seed=1))
    res = evaluate_model(model, t, threshold=0.6)
    post = posterior(model, t.qi_codes)
    pred = post.argmax(axis=-1)
    conf = post.max(axis=-1) > 0.6
    np.testing.assert_allclose(res["accuracy"], (pred == t.sa_codes).mean(axis=1))
    np.testing.assert_array_equal(res["n_confident"], conf.sum(axis=1))
    for d in range(3):
        ok = (pred[d] == t.sa_codes)[conf[d]]
        expect = ok.mean() if ok.size else np.nan
        np.testing.assert_allclose(res["confident_accuracy"].iloc[d], expect)


def test_naive_attack_is_reproducible_and_summarised(tiny):
    a = naive_attack(tiny, [0.1, 1.0], targets={"train": tiny, "test": tiny}, draws=3, seed=9)
    b = naive_attack(tiny, [0.1, 1.0], targets={"train": tiny, "test": tiny}, draws=3, seed=9)
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 2 * 3 * 2
    s = summarize_attack(a)
    assert {"accuracy_min", "accuracy_mean", "accuracy_max"} <= set(s.columns)
    assert (s["accuracy_min"] <= s["accuracy_mean"]).all()
    with pytest.raises(ValueError, match="'epsilon' must be > 0"):
        naive_attack(tiny, [0.0])


def test_naive_attack_accuracy_grows_with_epsilon():
    rng = np.random.default_rng(5)
    n = 4000
    s = rng.integers(0, 4, n)
    df = pd.DataFrame({"q1": (s + (rng.random(n) < 0.2)) % 4, "q2": rng.integers(0, 5, n), "s": s})
    t = encode_table(df, ["q1", "q2"], "s")
    res = summarize_attack(naive_attack(t, [0.001, 1.0], draws=5, seed=0))
    low, high = res["accuracy_mean"].tolist()
    assert high > low
    assert high == pytest.approx(0.8, abs=0.03)


def test_targets_must_share_the_coding(tiny):
    other = encode_table(TINY, ["sex"], "job")
    with pytest.raises(ValueError, match="not coded like"):
        naive_attack(tiny, [1.0], targets={"x": other})

"""Tests of the Narayanan-Shmatikov attack (anonlab.attacks.netflix) and its data
(anonlab.data.netflix_synthetic, the Netflix Prize loader).

Every formula is checked on a tiny matrix whose answer is worked out by hand in
the test; properties (nesting of aux records, aligned dates, the incremental
scores of the experiments) are checked with hypothesis or against the one-shot
functions.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.attacks import netflix as nf
from anonlab.data import load_netflix_prize
from anonlab.measures import score
from anonlab.data.netflix_synthetic import (NETFLIX_SHAPE, RatingMatrix, generate_netflix_like,
                                            shape_statistics)

LINEAR5 = nf.Similarity("linear", 5.0, None)


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def slides_db() -> RatingMatrix:
    """The slides' worked example: v1..v3 rated by r1 = (5, 2, -), r2 = (3, 1, 4), r3 = (-, 2, 4)."""
    t = pd.DataFrame({"v1": [5, 3, np.nan], "v2": [2, 1, 2], "v3": [np.nan, 4, 4]},
                     index=["r1", "r2", "r3"])
    return RatingMatrix.from_dense(t)


@pytest.fixture(scope="module")
def dated_db() -> RatingMatrix:
    """Four users, three movies, with dates."""
    df = pd.DataFrame({
        "user_id": [1, 1, 2, 2, 3, 4, 4],
        "movie_id": [10, 20, 10, 30, 20, 10, 20],
        "rating": [4, 3, 4, 5, 1, 2, 3],
        "date": pd.to_datetime(["2005-01-01", "2005-01-11", "2005-01-01", "2005-02-01",
                                "2005-01-21", "2005-03-02", "2005-01-11"]),
    })
    return RatingMatrix.from_frame(df)


@pytest.fixture(scope="module")
def small_synth() -> RatingMatrix:
    return generate_netflix_like(3_000, 800, seed=3)


# --------------------------------------------------------------------------- weights


def test_weights_natural_by_hand() -> None:
    w = nf.attribute_weights([0, 1, 2, 3, 100])
    expected = [0.0, 1 / math.log(2), 1 / math.log(2), 1 / math.log(3), 1 / math.log(100)]
    assert w == pytest.approx(expected)


def test_weights_slides_convention_gives_the_slide_numbers() -> None:
    # supports 2, 3, 2 -> 1/log2(3) = 0.6309..., 1/log2(4) = 0.5
    assert nf.attribute_weights([2, 3, 2], "slides") == pytest.approx([0.63093, 0.5, 0.63093], abs=1e-5)


def test_weights_bad_input() -> None:
    with pytest.raises(ValueError, match="convention"):
        nf.attribute_weights([2], "log10")
    with pytest.raises(ValueError, match="non-negative"):
        nf.attribute_weights([-1])


@given(st.lists(st.integers(1, 10**6), min_size=2, max_size=20))
def test_rarer_movies_weigh_at_least_as_much(support: list[int]) -> None:
    for conv in nf.WEIGHT_CONVENTIONS:
        w = nf.attribute_weights(support, conv)
        order = np.argsort(support)
        assert np.all(np.diff(w[order]) <= 1e-12)


# --------------------------------------------------------------------------- similarity and scores


def test_similarity_kinds_by_hand() -> None:
    a, r = np.array([4.0]), np.array([2.0])
    ad, d = np.array([10.0]), np.array([40.0])
    exp = nf.attribute_similarity(a, r, ad, d, nf.Similarity("exponential", 1.5, 30.0))
    assert exp == pytest.approx([math.exp(-2 / 1.5) + math.exp(-1.0)])
    thr = nf.attribute_similarity(a, r, ad, d, nf.Similarity("threshold", 2.0, 30.0))
    assert thr.tolist() == [1.0]
    thr = nf.attribute_similarity(a, r, ad, d, nf.Similarity("threshold", 1.0, 30.0))
    assert thr.tolist() == [0.0]
    lin = nf.attribute_similarity(a, r, ad, d, nf.Similarity("linear", 4.0, 60.0))
    assert lin == pytest.approx([0.5 * 0.5])
    # dates ignored when date_scale is None
    no_d = nf.attribute_similarity(a, r, ad, d, nf.Similarity("exponential", 1.5, None))
    assert no_d == pytest.approx([math.exp(-2 / 1.5)])


def test_similarity_rejects_bad_scales() -> None:
    with pytest.raises(ValueError, match="kind"):
        nf.Similarity("cosine")
    with pytest.raises(ValueError, match="rating_scale"):
        nf.Similarity("exponential", 0.0)
    with pytest.raises(ValueError, match="date_scale"):
        nf.Similarity("exponential", 1.5, -3.0)


def test_slides_worked_example_scores(slides_db: RatingMatrix) -> None:
    aux = nf.aux_from_mapping(slides_db, {"v1": 4.5, "v2": 2.3})
    s = nf.scores(slides_db, aux, similarity=LINEAR5, weights="slides", normalize=True)
    w1, w2 = 1 / math.log2(3), 1 / math.log2(4)
    r1 = (w1 * (1 - 0.5 / 5) + w2 * (1 - 0.3 / 5)) / 2
    r2 = (w1 * (1 - 1.5 / 5) + w2 * (1 - 1.3 / 5)) / 2
    r3 = (w2 * (1 - 0.3 / 5)) / 2
    assert s == pytest.approx([r1, r2, r3])
    # the slide prints 0.52 / 0.40 / 0.23: the same to within 0.006
    assert np.abs(s - [0.52, 0.40, 0.23]).max() < 0.006


def test_scores_with_dates_by_hand(dated_db: RatingMatrix) -> None:
    # users 1..4 -> rows 0..3, movies 10, 20, 30 -> columns 0..2; day 0 = 2005-01-01
    aux = nf.AuxRecord(movies=np.array([0, 1]), ratings=np.array([4.0, 3.0]), days=np.array([0.0, 10.0]),
                       wrong=np.zeros(2, bool), enter=np.array([2, 2]))
    s = nf.scores(dated_db, aux)  # exponential, rho0 = 1.5, d0 = 30, natural weights
    w10, w20 = 1 / math.log(3), 1 / math.log(3)  # movie 10 rated by 3 users, movie 20 by 3
    sim = lambda dr, dd: math.exp(-dr / 1.5) + math.exp(-dd / 30)  # noqa: E731
    expected = [
        w10 * sim(0, 0) + w20 * sim(0, 0),  # user 1: exact
        w10 * sim(0, 0),  # user 2: rated movie 10 only
        w20 * sim(2, 10),  # user 3: movie 20, 1 star, 2005-01-21
        w10 * sim(2, 60) + w20 * sim(0, 0),  # user 4
    ]
    assert s == pytest.approx(expected)
    assert int(np.argmax(s)) == 0


def test_exclusion_removes_record_and_its_support(dated_db: RatingMatrix) -> None:
    aux = nf.AuxRecord(movies=np.array([2]), ratings=np.array([5.0]), days=None,
                       wrong=np.zeros(1, bool), enter=np.array([1]))
    s = nf.scores(dated_db, aux, similarity=nf.Similarity("threshold", 0.0, None), exclude=1)
    assert np.isnan(s[1])
    assert np.nansum(s) == 0.0  # nobody else rated movie 30
    s_in = nf.scores(dated_db, aux, similarity=nf.Similarity("threshold", 0.0, None))
    assert s_in[1] == pytest.approx(1 / math.log(2))  # support 1 is given the weight of 2


def test_scores_equal_a_plain_loop_over_records_and_exclusion_counts_each_record_once(
        small_synth: RatingMatrix) -> None:
    aux = nf.make_aux(small_synth, int(nf.eligible_targets(small_synth, 6)[0]), 6, rating_error=1,
                      date_error=14, wrong_fraction=0.34, seed=3)
    w = nf.attribute_weights(small_synth.support[aux.movies])
    want = np.zeros(small_synth.n_users)
    for u in range(small_synth.n_users):  # the formula, record by record
        movies, stars, days = small_synth.record(u)
        for j, i in enumerate(aux.movies):
            hit = np.flatnonzero(movies == i)
            if hit.size:
                want[u] += w[j] * nf.attribute_similarity(aux.ratings[j:j + 1], stars[hit], aux.days[j:j + 1],
                                                          days[hit])[0]
    assert nf.scores(small_synth, aux) == pytest.approx(want, rel=1e-12)
    t = aux.target
    once, twice = nf.scores(small_synth, aux, exclude=t), nf.scores(small_synth, aux, exclude=[t, t])
    assert np.array_equal(once, twice, equal_nan=True) and np.isnan(once[t])


# --------------------------------------------------------------------------- eccentricity and matching


def test_eccentricity_by_hand() -> None:
    # scores 1, 0, 0, 0: gap 1, population sd sqrt(3/16)
    assert nf.eccentricity(np.array([1.0, 0, 0, 0])) == pytest.approx(1 / math.sqrt(3 / 16))
    assert nf.eccentricity(np.array([2.0, 2.0, 2.0])) == 0.0
    assert nf.eccentricity(np.array([3.0, np.nan, 1.0, 1.0])) == pytest.approx(2 / np.std([3, 1, 1]))
    with pytest.raises(ValueError, match="two"):
        nf.eccentricity(np.array([1.0, np.nan]))


@given(st.lists(st.integers(0, 1000), min_size=2, max_size=50), st.floats(0.01, 10), st.floats(-5, 5))
def test_eccentricity_is_invariant_to_scale_and_shift(xs: list[int], a: float, b: float) -> None:
    s = np.array(xs) / 10.0
    e = nf.eccentricity(s)
    if e > 0:
        assert nf.eccentricity(a * s + b) == pytest.approx(e, rel=1e-6, abs=1e-6)


def test_scoreboard_rh_no_match_and_match(slides_db: RatingMatrix) -> None:
    aux = nf.aux_from_mapping(slides_db, {"v1": 4.5, "v2": 2.3})
    m = nf.scoreboard_rh(slides_db, aux, phi=1.5, similarity=LINEAR5, weights="slides", normalize=True)
    assert m.best == 0 and not m.matched and m.record is None
    assert m.eccentricity == pytest.approx(nf.eccentricity(m.scores))
    m = nf.scoreboard_rh(slides_db, aux, phi=0.5, similarity=LINEAR5, weights="slides", normalize=True)
    assert m.matched and m.record == 0
    with pytest.raises(ValueError, match="phi"):
        nf.scoreboard_rh(slides_db, aux, phi=-1)


def test_aux_from_mapping_unknown_movie(slides_db: RatingMatrix) -> None:
    with pytest.raises(ValueError, match="not in the data"):
        nf.aux_from_mapping(slides_db, {"v9": 3})


# --------------------------------------------------------------------------- the theorem


def test_m_bound_by_hand() -> None:
    # N = 943, eps = 0.05, delta = 0.5: (ln 943 - ln 0.05) / ln 2 = (6.84907 + 2.99573) / 0.693147
    assert nf.m_bound(943, 0.05, 0.5) == pytest.approx(14.2031, abs=1e-4)
    # base of the log cancels
    n, e, d = 480_189, 0.01, 0.1
    assert nf.m_bound(n, e, d) == pytest.approx((math.log10(n) - math.log10(e)) / -math.log10(1 - d))


@pytest.mark.parametrize("args", [(0, 0.1, 0.1), (10, 0.0, 0.1), (10, 0.1, 1.0), (10, 1.5, 0.1)])
def test_m_bound_rejects_bad_values(args: tuple) -> None:
    with pytest.raises(ValueError):
        nf.m_bound(*args)


# --------------------------------------------------------------------------- auxiliary information


def test_wrong_count() -> None:
    assert nf.wrong_count(8, 0.25) == 2
    assert nf.wrong_count(2, 0.0) == 0
    with pytest.raises(ValueError, match="wrong_fraction"):
        nf.wrong_count(8, 1.0)


@given(st.floats(0, 0.99))
def test_wrong_and_correct_counts_never_decrease(f: float) -> None:
    w = np.array([nf.wrong_count(m, f) for m in range(1, 40)])
    c = np.arange(1, 40) - w
    assert np.all(np.diff(w) >= 0) and np.all(np.diff(c) >= 0)


def test_make_aux_exact_is_part_of_the_record(small_synth: RatingMatrix) -> None:
    t = int(nf.eligible_targets(small_synth, 10)[0])
    aux = nf.make_aux(small_synth, t, 10, rating_error=0, date_error=0, seed=1)
    movies, ratings, days = small_synth.record(t)
    assert aux.m == 10 and not aux.wrong.any()
    idx = np.searchsorted(movies, aux.movies)
    assert np.array_equal(movies[idx], aux.movies)
    assert np.array_equal(ratings[idx], aux.ratings) and np.array_equal(days[idx], aux.days)


def test_make_aux_errors_are_bounded_and_wrong_entries_are_wrong(small_synth: RatingMatrix) -> None:
    t = int(nf.eligible_targets(small_synth, 12)[1])
    aux = nf.make_aux(small_synth, t, 12, rating_error=1, date_error=14, wrong_fraction=0.25, seed=2)
    movies, ratings, days = small_synth.record(t)
    assert aux.wrong.sum() == 3
    assert not np.isin(aux.movies[aux.wrong], movies).any()
    ok = ~aux.wrong
    idx = np.searchsorted(movies, aux.movies[ok])
    assert np.array_equal(movies[idx], aux.movies[ok])
    assert np.abs(aux.ratings[ok] - ratings[idx]).max() <= 1
    assert np.abs(aux.days[ok] - days[idx]).max() <= 14
    assert aux.ratings.min() >= 1 and aux.ratings.max() <= 5


def test_make_aux_nested_and_reproducible(small_synth: RatingMatrix) -> None:
    t = int(nf.eligible_targets(small_synth, 8)[2])
    a = nf.make_aux(small_synth, t, [2, 4, 8], wrong_fraction=0.25, seed=5)
    b = nf.make_aux(small_synth, t, [2, 4, 8], wrong_fraction=0.25, seed=5)
    assert np.array_equal(a.movies, b.movies) and np.array_equal(a.ratings, b.ratings)
    prev: set[int] = set()
    for m in (2, 4, 8):
        cur = set(a.at(m).movies.tolist())
        assert len(cur) == m and prev <= cur
        assert a.at(m).wrong.sum() == nf.wrong_count(m, 0.25)
        prev = cur


def test_make_aux_rare_selection_avoids_top_movies(small_synth: RatingMatrix) -> None:
    top = np.argsort(-small_synth.support, kind="stable")[:50]
    targets = nf.eligible_targets(small_synth, 6, selection="rare", top_movies=50)
    for t in targets[:5]:
        aux = nf.make_aux(small_synth, int(t), 6, selection="rare", top_movies=50, seed=0)
        assert not np.isin(aux.movies, top).any()
    pop = nf.make_aux(small_synth, int(nf.eligible_targets(small_synth, 3, selection="popular",
                                                           top_movies=50)[0]),
                      3, selection="popular", top_movies=50, seed=0)
    assert np.isin(pop.movies, top).all()


def test_make_aux_errors(small_synth: RatingMatrix, slides_db: RatingMatrix) -> None:
    with pytest.raises(ValueError, match="needs"):
        nf.make_aux(small_synth, int(np.argmin(small_synth.activity)), 5_000)
    with pytest.raises(ValueError, match="rating_error"):
        nf.make_aux(small_synth, 0, 1, rating_error=-1)
    with pytest.raises(ValueError, match="selection"):
        nf.make_aux(small_synth, 0, 1, selection="obscure")
    with pytest.raises(ValueError, match="no dates"):
        nf.make_aux(slides_db, 0, 1, date_error=3)
    with pytest.raises(ValueError, match=r"parameter 'm\[0\]' must be >= 1"):
        nf.make_aux(small_synth, 0, [0, 2])
    with pytest.raises(ValueError, match="integer"):
        nf.make_aux(small_synth, 0, [1.5])
    with pytest.raises(ValueError, match="seed"):
        nf.make_aux(small_synth, 0, 1, seed=-1)


def test_make_aux_seed_int_and_generator_draw_the_same(small_synth: RatingMatrix) -> None:
    t = int(nf.eligible_targets(small_synth, 8)[0])
    a = nf.make_aux(small_synth, t, 8, wrong_fraction=0.25, seed=7)
    b = nf.make_aux(small_synth, t, 8, wrong_fraction=0.25, seed=np.random.default_rng(7))
    assert np.array_equal(a.movies, b.movies) and np.array_equal(a.days, b.days)


def test_trials_seed_accepts_a_generator(small_synth: RatingMatrix) -> None:
    targets = nf.eligible_targets(small_synth, 4)[:3]
    a = nf.reidentification_trials(small_synth, targets, [2, 4], seed=np.random.default_rng(1))
    b = nf.reidentification_trials(small_synth, targets, [2, 4], seed=np.random.default_rng(1))
    assert a.equals(b)
    with pytest.raises(ValueError, match="seed"):
        nf.reidentification_trials(small_synth, targets, [2], seed=-3)


# --------------------------------------------------------------------------- experiments


def test_trials_agree_with_one_shot_scores(small_synth: RatingMatrix) -> None:
    targets = nf.eligible_targets(small_synth, 6)[:4]
    grid = [1, 3, 6]
    for member in (True, False):
        tr = nf.reidentification_trials(small_synth, targets, grid, date_error=14, wrong_fraction=0.2,
                                        member=member, seed=9)
        assert len(tr) == len(targets) * len(grid)
        for row in tr.itertuples():
            aux = nf.make_aux(small_synth, row.target, grid, date_error=14, wrong_fraction=0.2,
                              seed=np.random.default_rng([9, row.target])).at(row.m)
            s = nf.scores(small_synth, aux, exclude=None if member else row.target)
            best, b, s2 = nf.top_two(s)
            assert row.best == best and row.best_score == pytest.approx(b)
            assert row.second_score == pytest.approx(s2)
            assert row.eccentricity == pytest.approx(nf.eccentricity(s))
            assert set(row.aux_movies) == set(aux.movies.tolist())
        if not member:
            assert not tr["correct"].any()
            assert (tr["best"] != tr["target"]).all()


def test_exact_aux_finds_the_target(small_synth: RatingMatrix) -> None:
    targets = nf.eligible_targets(small_synth, 10)[:20]
    tr = nf.reidentification_trials(small_synth, targets, [10], date_error=0, seed=1)
    assert tr["correct"].mean() >= 0.95


def _trials(ecc: list[float], correct: list[bool], m: int = 4) -> pd.DataFrame:
    target = list(range(len(ecc)))
    return pd.DataFrame({"target": target, "m": m, "member": True, "eccentricity": ecc, "correct": correct,
                         "best": [t if c else t + 100 for t, c in zip(target, correct)]})


def test_reidentification_rate_counts() -> None:
    tr = _trials([3.0, 2.0, 1.0, 0.5], [True, False, True, True])
    r = nf.reidentification_rate(tr, phi=1.5).loc[4]
    assert r["n"] == 4 and r["reidentified"] == 1 and r["rate"] == 0.25
    assert r["top1"] == 0.75 and r["match_rate"] == 0.5
    assert r["ci_low"] < 0.25 < r["ci_high"]


def _pop(target: list[int], best: list[int], ecc: list[float], member: bool, m: int = 4) -> pd.DataFrame:
    return pd.DataFrame({"target": target, "m": m, "member": member, "best": best, "eccentricity": ecc,
                         "correct": [member and b == t for t, b in zip(target, best)]})


def test_attack_result_scores_members_and_removed_targets_by_hand() -> None:
    # members: 10 found (ecc 3), 11 -> 7 (ecc 2, wrong), 12 found but ecc 1 < phi, 13 found, ecc 0.5
    mem = _pop([10, 11, 12, 13], [10, 7, 12, 13], [3.0, 2.0, 1.0, 0.5], True)
    non = _pop([10, 11, 12, 13], [4, 5, 6, 8], [2.5, 0.1, 0.2, 0.3], False)
    r = nf.attack_result(mem, phi=1.5)
    assert r.targets.tolist() == ["row 10", "row 11", "row 12", "row 13"]
    assert r.predicted.tolist() == [True, True, False, False]
    assert r.resources == {"aux_ratings": 4} and r.confidence.tolist() == [3.0, 2.0, 1.0, 0.5]
    s = score(r)
    assert (s.coverage, s.precision, s.prediction_rate) == (0.5, 0.5, 0.25)
    s_non = score(nf.attack_result(non, phi=1.5))
    assert s_non.coverage == 0.25 and s_non.n_correct == 0  # truth "no record": a false match
    both = nf.attack_result(pd.concat([mem, non]), phi=1.5)
    assert "row 10, removed" in both.targets.tolist() and both.truth[4] is None
    s_mix = score(both)
    assert s_mix.precision == pytest.approx(1 / 3) and s_mix.coverage == pytest.approx(3 / 8)
    s_high = score(nf.attack_result(mem, phi=5.0))
    assert s_high.coverage == 0.0 and math.isnan(s_high.precision)


def test_attack_result_refuses_several_m() -> None:
    two = pd.concat([_pop([1], [1], [2.0], True, m=2), _pop([1], [1], [2.0], True, m=4)])
    with pytest.raises(ValueError, match="one aux size"):
        nf.attack_result(two)
    with pytest.raises(ValueError, match="phi"):
        nf.attack_result(two.iloc[:1], phi=-1)


def test_reidentification_rate_matches_the_protocol() -> None:
    mem = _pop([10, 11, 12, 13], [10, 7, 12, 13], [3.0, 2.0, 1.0, 0.5], True)
    r = nf.reidentification_rate(mem, 1.5).loc[4]
    s = score(nf.attack_result(mem, 1.5))
    assert r["rate"] == s.prediction_rate and (r["ci_low"], r["ci_high"]) == s.prediction_rate_ci
    assert r["match_rate"] == s.coverage and r["match_ci_low"] == s.coverage_ci[0]


# --------------------------------------------------------------------------- amplification


def test_amplification_by_hand(dated_db: RatingMatrix) -> None:
    # target user 4 (row 3) rated movies 10 (2 stars) and 20 (3 stars); aux = movie 20
    a = nf.amplification(dated_db, 3, [1], matched=3).set_index("movie")
    assert list(a.index) == [0]
    assert a.loc[0, "true"] == 2 and a.loc[0, "predicted"] == 2 and a.loc[0, "from_match"]
    # baseline: mean of movie 10 without the target (4, 4) = 4, plus aux bias:
    # target's 3 stars on movie 20 minus its mean without the target ((3 + 1) / 2 = 2) = +1
    assert a.loc[0, "baseline"] == pytest.approx(5.0)
    wrong = nf.amplification(dated_db, 3, [1], matched=1).set_index("movie")
    assert wrong.loc[0, "predicted"] == 4  # user 2 rated movie 10 with 4 stars
    none = nf.amplification(dated_db, 3, [1], matched=None)
    assert not none["from_match"].any() and (none["predicted"] == none["baseline"]).all()


def test_amplification_summary_beats_baseline_when_matched(small_synth: RatingMatrix) -> None:
    targets = nf.eligible_targets(small_synth, 8)[:15]
    tr = nf.reidentification_trials(small_synth, targets, [8], date_error=3, seed=0)
    s = nf.amplification_summary(small_synth, tr, phi=0.0).loc[8]
    assert s["targets"] == 15 and s["held_out"] > 0
    assert s["attack_exact"] > s["baseline_exact"]
    assert s["attack_rmse"] < s["baseline_rmse"]


# --------------------------------------------------------------------------- the rating matrix and loaders


def test_from_frame_unix_timestamps_and_ids() -> None:
    df = pd.DataFrame({"user_id": [5, 5, 9], "movie_id": [100, 7, 7], "rating": [1, 2, 3],
                       "timestamp": [86_400 * 10, 86_400 * 12 + 5, 86_400 * 11]})
    d = RatingMatrix.from_frame(df)
    assert list(d.user_ids) == [5, 9] and list(d.movie_ids) == [7, 100]
    assert d.by_user.toarray().tolist() == [[2, 1], [3, 0]]
    assert str(d.date_origin) == "1970-01-11"
    movies, ratings, days = d.record(0)
    assert movies.tolist() == [0, 1] and days.tolist() == [2, 0]


def test_from_arrays_rejects_duplicates_and_bad_indices() -> None:
    with pytest.raises(ValueError, match="twice"):
        RatingMatrix.from_arrays(np.array([0, 0]), np.array([1, 1]), np.array([3, 4]), None,
                                 n_users=1, n_movies=2)
    with pytest.raises(ValueError, match="movie indices"):
        RatingMatrix.from_arrays(np.array([0]), np.array([2]), np.array([3]), None, n_users=1, n_movies=2)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_column_order_keeps_dates_aligned(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_u, n_m = int(rng.integers(1, 30)), int(rng.integers(1, 20))
    cells = rng.random((n_u, n_m)) < 0.3
    u, m = np.nonzero(cells)
    r = rng.integers(1, 6, u.size)
    d = rng.integers(0, 2000, u.size)
    perm = rng.permutation(u.size)
    data = RatingMatrix.from_arrays(u[perm], m[perm], r[perm], d[perm], n_users=n_u, n_movies=n_m)
    dense_r = np.zeros((n_u, n_m))
    dense_d = np.full((n_u, n_m), -1)
    dense_r[u, m], dense_d[u, m] = r, d
    csc = data.by_movie
    cols = np.repeat(np.arange(n_m), np.diff(csc.indptr))
    assert np.array_equal(csc.data, dense_r[csc.indices, cols])
    assert np.array_equal(data.dates_by_movie, dense_d[csc.indices, cols])
    rows = np.repeat(np.arange(n_u), np.diff(data.by_user.indptr))
    assert np.array_equal(data.dates_by_user, dense_d[rows, data.by_user.indices])
    assert np.array_equal(data.support, cells.sum(axis=0))


def test_without_users(dated_db: RatingMatrix) -> None:
    sub = dated_db.without_users(np.array([1]))
    assert sub.n_users == 3 and list(sub.user_ids) == [1, 3, 4]
    assert sub.support.tolist() == [2, 3, 0]
    _, r, d = sub.record(2)
    assert r.tolist() == [2, 3] and d.tolist() == [60, 10]


def test_netflix_prize_format_file(tmp_path: Path) -> None:
    folder = tmp_path / "training_set"
    folder.mkdir()
    (folder / "mv_0000001.txt").write_text("1:\n6,3,2005-09-06\n7,5,2005-05-13\n")
    (folder / "mv_0000002.txt").write_text("2:\n7,4,2005-05-20\n8,1,2004-12-01\n")
    df = load_netflix_prize(tmp_path)
    data = RatingMatrix.from_frame(df)
    assert (data.n_users, data.n_movies, data.n_ratings) == (3, 2, 4)
    assert list(data.user_ids) == [6, 7, 8] and list(data.movie_ids) == [1, 2]
    assert str(data.date_origin) == "2004-12-01"
    movies, ratings, days = data.record(1)  # user 7
    assert movies.tolist() == [0, 1] and ratings.tolist() == [5, 4]
    assert days.tolist() == [163, 170]
    aux = nf.make_aux(data, 1, 2, date_error=0, seed=0)
    assert nf.scoreboard_rh(data, aux, phi=0.0).record == 1


# --------------------------------------------------------------------------- the generator


def test_generator_shape_statistics() -> None:
    d = generate_netflix_like(20_000, NETFLIX_SHAPE["n_movies"], seed=11)  # 1/24 of the users
    st_ = shape_statistics(d)
    assert st_["n_users"] == 20_000 and st_["n_movies"] == NETFLIX_SHAPE["n_movies"]
    target_mean = NETFLIX_SHAPE["n_ratings"] / NETFLIX_SHAPE["n_users"]
    assert st_["ratings_per_user_mean"] == pytest.approx(target_mean, rel=0.1)
    assert st_["ratings_per_user_median"] == pytest.approx(96, rel=0.1)
    assert st_["ratings_per_user_max"] <= 0.52 * NETFLIX_SHAPE["n_movies"]  # expected <= half
    # long tails: mean well above median for users and movies
    assert st_["ratings_per_user_mean"] > 1.8 * st_["ratings_per_user_median"]
    assert st_["raters_per_movie_mean"] > 3 * st_["raters_per_movie_median"]
    assert st_["raters_per_movie_max"] <= 0.6 * 20_000
    assert 3.3 < st_["mean_stars"] < 3.9
    assert d.by_user.data.min() >= 1 and d.by_user.data.max() <= 5
    assert st_["first_date"] >= NETFLIX_SHAPE["first_date"] and st_["last_date"] <= NETFLIX_SHAPE["last_date"]
    assert st_["date_span_years"] > 5.5
    # one rating per (user, movie): column indices strictly increase within each row
    ind, ptr = d.by_user.indices, d.by_user.indptr
    inc = np.diff(ind) > 0
    row_start = np.zeros(ind.size, bool)
    row_start[ptr[1:-1][ptr[1:-1] < ind.size]] = True
    assert np.all(inc | row_start[1:])
    assert d.dates_by_user.dtype == np.int16 and d.by_user.data.dtype == np.uint8


def test_generator_is_reproducible() -> None:
    a = generate_netflix_like(500, 300, seed=4)
    b = generate_netflix_like(500, 300, seed=4)
    c = generate_netflix_like(500, 300, seed=5)
    assert (a.by_user != b.by_user).nnz == 0 and np.array_equal(a.dates_by_user, b.dates_by_user)
    assert a.n_ratings != c.n_ratings or (a.by_user != c.by_user).nnz > 0


@pytest.mark.parametrize("kw", [{"n_users": 0}, {"n_movies": 1}, {"max_movie_share": 0.0},
                                {"median_ratings_per_user": 500.0}])
def test_generator_rejects_bad_parameters(kw: dict) -> None:
    with pytest.raises(ValueError):
        generate_netflix_like(**{"n_users": 100, "n_movies": 50, **kw})


def test_record_similarity_by_hand(dated_db: RatingMatrix) -> None:
    # user 1 (row 0): movie 10 (4, day 0), 20 (3, day 10); user 4 (row 3): 10 (2, day 60), 20 (3, day 10)
    assert nf.record_similarity(dated_db, 0, 0) == 1.0
    assert nf.record_similarity(dated_db, 0, 3) == pytest.approx(1 / 2)  # agree on movie 20 only
    # user 2 (row 1): 10 (4, day 0), 30 (5, day 31): union {10, 20, 30}, agree on 10
    assert nf.record_similarity(dated_db, 0, 1) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="threshold"):
        nf.record_similarity(dated_db, 0, 1, nf.Similarity())


def test_eligible_targets_counts_movies_of_the_kind() -> None:
    # 3 users; movie 0 is rated by everybody (the most rated), 1 and 2 by fewer
    t = pd.DataFrame({"a": [5, 4, 3], "b": [1, np.nan, 2], "c": [np.nan, np.nan, 4]})
    d = RatingMatrix.from_dense(t)
    assert nf.eligible_targets(d, 2).tolist() == [0, 2]
    assert nf.eligible_targets(d, 2, selection="rare", top_movies=1).tolist() == [2]
    assert nf.eligible_targets(d, 1, selection="popular", top_movies=1).tolist() == [0, 1, 2]
    assert nf.eligible_targets(d, 2, wrong_fraction=0.5).tolist() == [0, 1, 2]  # 1 correct + 1 wrong

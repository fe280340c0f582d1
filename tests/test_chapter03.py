"""Chapter 3 (Netflix): the declaration, the experiments' plumbing and the claim measurements.

Every ``measure_*`` function is checked on tiny hand-made trials whose rates
are known, on both sides of its criterion, so a wrong comparison fails.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anonlab.attacks import netflix as nf
from anonlab.claims import Measurement
from anonlab import claims
from anonbook.chapters import ch03_netflix_eccentricity as ch
from anonbook.chapters import kit
from anonlab.data.netflix_synthetic import RatingMatrix, generate_netflix_like
from anonlab.measures import score
from anonlab.validation import ParameterError

SPEC = ch.CHAPTER.parameters


# --------------------------------------------------------------------------- the declaration


def test_defaults_and_quick_preset_are_valid() -> None:
    assert SPEC.validate({})["pc_m"] == 8
    quick = ch.CHAPTER.quick_parameters()
    assert quick["m_grid"] == [1, 2, 4, 8] and quick["synthetic_users"] == 5000
    assert quick["n_targets"] == 40 and quick["synthetic_targets"] == 20 and quick["synthetic_m_grid"] == [2, 8]


@pytest.mark.parametrize("values, message", [
    ({"pc_m": 5000}, "parameter 'pc_m' must be <= 100"),
    ({"pc_m": 30}, "parameter 'pc_m' = 30 must be <= max\\(m_grid\\) = 20"),
    ({"m_grid": [1, 500]}, "parameter 'm_grid\\[1\\]' must be <= 100"),
    ({"n_targets": 10**6}, "parameter 'n_targets' must be <= 5000"),
    ({"synthetic_users": 10**7}, "parameter 'synthetic_users' must be <= 480189"),
    ({"netflix_path": "/tmp"}, "parameter 'netflix_path'"),
    ({"dataset": "netflix-prize"}, "parameter 'netflix_path' must name your copy"),
    ({"dataset": "netflix-prize", "netflix_path": "/no/such/file.txt"}, "parameter 'netflix_path': no file"),
    ({"theorem_epsilon": 1e-300}, "need an aux of m = "),
    ({"rare_top": 17_769}, "parameter 'rare_top' = 17769 scales to 1682"),
    ({"weight_convention": "log10"}, "parameter 'weight_convention' must be one of"),
    ({"rng": 3}, "unknown parameter"),
])
def test_bad_runs_are_refused_up_front(values: dict, message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        SPEC.validate(values)


def test_a_path_given_with_another_dataset_is_refused(tmp_path) -> None:
    f = tmp_path / "combined_data_1.txt"
    f.write_text("1:\n6,3,2005-09-06\n")
    assert SPEC.validate({"dataset": "netflix-prize", "netflix_path": str(f)})["netflix_path"] == str(f)
    with pytest.raises(ParameterError, match="only read with dataset = 'netflix-prize'"):
        SPEC.validate({"dataset": "synthetic", "netflix_path": str(f)})


def test_scaled_top_k_by_hand() -> None:
    assert ch.scaled_top_k(500, 17_770) == 500
    assert ch.scaled_top_k(500, 1_682) == 47  # 500 * 1682 / 17770 = 47.33
    assert ch.scaled_top_k(1, 100) == 1  # never below one movie
    with pytest.raises(ParameterError, match="rare_top"):
        ch.scaled_top_k(17_700, 100)  # 99.6 rounds to all 100 movies


def test_theorem_m_rounds_the_bound_up() -> None:
    assert ch.theorem_m(943, 0.05, 0.5) == 15  # bound 14.203
    assert ch.theorem_m(480_189, 0.05, 0.5) == math.ceil(nf.m_bound(480_189, 0.05, 0.5))


# --------------------------------------------------------------------------- hand-made trials


def _trials(hits: dict[int, tuple[int, int]], member: bool = True, start: int = 0) -> pd.DataFrame:
    """Trials whose rate at each m is known: ``{m: (re-identified, targets)}``.

    Re-identified targets have eccentricity 3 and best = target; the others
    eccentricity 0.5 (no answer at φ = 1.5) and the wrong best record.
    """
    rows = []
    for m, (k, n) in hits.items():
        for i in range(n):
            t = start + i
            hit = i < k and member
            rows.append({"target": t, "m": m, "member": member, "best": t if hit else t + 1000,
                         "eccentricity": 3.0 if i < k else 0.5, "correct": hit})
    return pd.DataFrame(rows)


def _curves(ref: dict, nodate: dict, uni: dict, rare: dict, absent: dict, d: int = 14, r: int = 1) -> nf.Curves:
    trials = {f"exact ratings, dates ±{d} d": _trials(ref), "exact ratings, no dates": _trials(nodate),
              f"ratings ±{r}, dates ±{d} d": _trials(uni),
              f"ratings ±{r}, dates ±{d} d, rare movies": _trials(rare)}
    n = max(v[1] for v in ref.values())
    return nf.Curves(trials, _trials(absent, member=False), 1.5, np.arange(n), np.arange(n))


GOOD = dict(ref={1: (1, 4), 2: (2, 4), 8: (4, 4)}, nodate={1: (0, 4), 2: (1, 4), 8: (3, 4)},
            uni={1: (0, 4), 2: (1, 4), 8: (2, 4)}, rare={1: (1, 4), 2: (2, 4), 8: (3, 4)},
            absent={1: (0, 4), 2: (0, 4), 8: (0, 4)})


def test_curves_rates_and_summary() -> None:
    c = _curves(**GOOD)
    assert c.rates["exact ratings, dates ±14 d"]["rate"].tolist() == [0.25, 0.5, 1.0]
    assert c.summary()["target removed: false matches"].tolist() == [0.0, 0.0, 0.0]
    assert nf.first_m(c.rates["exact ratings, dates ±14 d"]) == 2  # 0.5 reaches one half
    assert nf.first_m(c.rates["ratings ±1, dates ±14 d"], 0.9) is None
    assert ch.reference_m(c, 8) == 8 and ch.reference_m(c, 5) == 8


def test_measure_curves_by_hand() -> None:
    got = ch.measure_curves(_curves(**GOOD), 8, 1, [3, 14], "toy")
    assert {k: m.value for k, m in got.items()} == {
        "ns.empirical.exact_ratings_approx_dates": True,  # 4/4 > 0.5 at m = 8
        "ns.empirical.no_dates": True,  # half from m = 8 without dates, m = 2 with; 0.75 at m = 8
        "ns.empirical.rare_movies": True,  # mean gain (0.25 + 0.25 + 0.25) / 3 > 0
        "slides.netflix.rare_dimensions": True,  # 3/4 > 0.5
    }
    assert "across m = +0.250 [" in got["ns.empirical.rare_movies"].note  # with its conservative interval
    assert got["ns.empirical.exact_ratings_approx_dates"].note.startswith("toy: 1.000 [")  # the rate's Wilson interval
    assert got["ns.empirical.exact_ratings_approx_dates"].n == 4
    bad = dict(GOOD, ref={1: (0, 4), 2: (1, 4), 8: (2, 4)}, nodate={1: (0, 4), 2: (2, 4), 8: (2, 4)},
               rare={1: (0, 4), 2: (1, 4), 8: (2, 4)})
    got = ch.measure_curves(_curves(**bad), 8, 1, [3, 14], "toy")
    assert not any(m.value for m in got.values())  # 0.5 is not "more than half"; no gain


def test_measure_aux_errors_by_hand() -> None:
    wrong = pd.DataFrame({"re-identified": [0.9, 0.7, 0.6, 0.3, 0.1]}, index=pd.Index(range(5), name="wrong entries"))
    wrong = wrong.assign(ci_low=wrong["re-identified"] - 0.05, ci_high=wrong["re-identified"] + 0.05)
    got = ch.measure_aux_errors(wrong, 8, 0.25, "toy")["ns.empirical.aux_errors"]
    assert got.value is True and "0.900 with no wrong entry, 0.600 [0.550, 0.650] with 2 wrong; 0.100 with 4" in got.note
    wrong.loc[2, "re-identified"] = 0.5  # 2 of 8 wrong (the paper's setting) must stay above one half
    assert ch.measure_aux_errors(wrong, 8, 0.25, "toy")["ns.empirical.aux_errors"].value is False
    assert ch.wrong_values(wrong, 8, 0.25) == {"wrong_k": 2, "wrong_m": 8, "wrong_rate": 0.5}
    assert math.isnan(ch.wrong_values(wrong.iloc[:2], 8, 0.25)["wrong_rate"])


def test_precision_coverage_by_hand() -> None:
    mem = _trials({8: (3, 4)})  # 3 answered and right, one not answered
    non = _trials({8: (1, 4)}, member=False, start=0)  # one removed target answered (wrongly)
    pc = nf.precision_coverage(mem, non, [1.5, 0.0, 1.5]).set_index("phi")
    assert pc.index.tolist() == [0.0, 1.5]
    row = pc.loc[1.5]
    assert (row["coverage"], row["precision"], row["recall"]) == (0.75, 1.0, 0.75)
    assert row["false_match_rate"] == 0.25
    assert row["coverage_mixed"] == 0.5 and row["precision_mixed"] == 0.75
    assert pc.loc[0.0, "coverage_mixed"] == 1.0 and pc.loc[0.0, "precision_mixed"] == 3 / 8
    vals = ch.pc_values(pc.reset_index(), 1.5)
    assert vals.pop("mixed_prec_ci").startswith("[0.")
    assert vals == {"mixed_prec": 0.75, "mixed_cov": 0.5, "member_prec_min": 0.75}
    assert row["answers_mixed"] == 4 and row["precision_mixed_ci_low"] < 0.75 < row["precision_mixed_ci_high"]


def test_detection_verdict_uses_the_interval() -> None:
    """A precision below 0.9 whose interval reaches 0.9 is inconclusive; one clearly below fails."""
    from anonlab import claims

    c = claims.claim("ns.empirical.detect_not_in_sample")
    alts = {ch.SIM_PAPER: 0.886, ch.SIM_MATCHED: 0.88}
    rec = {"measured": 0.886, "ci": [0.85, 0.91], "alternatives": {k: {"measured": v} for k, v in alts.items()}}
    assert claims.decide(c, rec) == "inconclusive"
    assert claims.decide(c, dict(rec, ci=[0.85, 0.89])) == "not reproduced"
    rec["alternatives"][ch.SIM_MATCHED]["measured"] = 0.95
    assert claims.decide(c, rec) == "depends on an unstated choice"


def test_with_readings_keeps_the_default_and_every_reading() -> None:
    a = {"x": Measurement(0.5, ci=(0.4, 0.6), n=10, note="paper")}
    b = {"x": Measurement(0.7, note="matched")}
    got = ch.with_readings({ch.SIM_PAPER: a, ch.SIM_MATCHED: b})["x"]
    assert (got.value, got.ci, got.n) == (0.5, (0.4, 0.6), 10)
    assert dict(got.alternatives) == {ch.SIM_PAPER: Measurement(0.5, ci=(0.4, 0.6)), ch.SIM_MATCHED: 0.7}
    assert got.note == f"paper | {ch.SIM_MATCHED}: matched"
    with pytest.raises(ValueError, match="default reading"):
        ch.with_readings({ch.SIM_MATCHED: b})


def test_matched_similarity_is_one_within_the_aux_errors() -> None:
    sim = nf.matched_similarity(1, 14)
    got = nf.attribute_similarity(np.array([3, 3, 3, 3]), np.array([4, 2, 5, 3]), np.array([0, 0, 0, 0]),
                                  np.array([14, -14, 0, 15]), sim)
    assert got.tolist() == [1.0, 1.0, 0.0, 0.0]  # 2 stars off; 15 days off
    assert nf.matched_similarity(0, None).date_scale is None


def test_measure_detection_by_hand() -> None:
    c = _curves(**dict(GOOD, ref={8: (40, 40)}, nodate={8: (1, 40)}, uni={8: (1, 40)}, rare={8: (1, 40)},
                       absent={8: (2, 40)}))
    pc = nf.precision_coverage(nf.at_m(c.trials["exact ratings, dates ±14 d"], 8), nf.at_m(c.absent, 8), [1.5])
    got = ch.measure_detection(c, pc, 8, [3, 14], "toy")
    det = got["ns.empirical.detect_not_in_sample"]
    assert det.value == pytest.approx(40 / 42) and det.n == 42  # 40 right of 42 answers
    assert det.ci[0] < 40 / 42 < det.ci[1] and det.ci[1] <= 1
    assert got["ns.eccentricity.rule"].value is True and got["ns.eccentricity.rule"].n == 80
    c = _curves(**dict(GOOD, ref={8: (10, 40)}, nodate={8: (1, 40)}, uni={8: (1, 40)}, rare={8: (1, 40)},
                       absent={8: (8, 40)}))
    pc = nf.precision_coverage(nf.at_m(c.trials["exact ratings, dates ±14 d"], 8), nf.at_m(c.absent, 8), [1.5])
    got = ch.measure_detection(c, pc, 8, [3, 14], "toy")
    assert got["ns.empirical.detect_not_in_sample"].value == pytest.approx(10 / 18)
    assert got["ns.eccentricity.rule"].value is False  # 0.25 vs 0.2: the intervals overlap


def test_measure_theorem_by_hand() -> None:
    thm = pd.DataFrame({"m": 15, "record_similarity": [1.0] * 19 + [0.4]})
    assert ch.theorem_share(thm, 0.05, 0.5) == 0.95
    got = ch.measure_theorem(thm, 0.05, 0.5, "toy")["ns.theorem.m_bound"]
    assert got.value is True and got.n == 20 and "m = 15" in got.note  # 0.95 >= 1 - 0.05
    thm.loc[0, "record_similarity"] = 0.2
    assert ch.measure_theorem(thm, 0.05, 0.5, "toy")["ns.theorem.m_bound"].value is False


def test_measure_headlines_carries_rate_interval_and_n() -> None:
    h8 = pd.Series({"rate": 0.75, "ci_low": 0.7, "ci_high": 0.8, "n": 200})
    h2 = pd.Series({"rate": 0.5, "ci_low": 0.45, "ci_high": 0.55, "n": 200})
    got = ch.measure_headlines(h8, h2, 100_000, 1.5)
    m = got[ch.HEADLINE_8]
    assert (m.value, tuple(m.ci), m.n) == (0.75, (0.7, 0.8), 200)
    assert m.note == "synthetic Netflix-shaped data, 100,000 users, phi = 1.5"
    assert got[ch.HEADLINE_2].value == 0.5


def test_attack_results_use_the_protocol() -> None:
    c = _curves(**GOOD)
    res = ch.attack_results(c, 8, "toy", 1.5, [3, 14])
    assert len(res) == 4 + 2
    assert "toy: targets removed (exact ratings, dates ±14 d), m = 8" in res
    mixed = res["toy: half the targets removed (exact ratings, dates ±14 d), m = 8"]
    s = score(mixed)
    assert s.n_targets == 8 and s.n_correct == 4 and s.coverage == 0.5 and s.resources == {"aux_ratings": 8}
    assert all(r.attack == name for name, r in res.items())


# --------------------------------------------------------------------------- the worked example


def test_measure_worked_example_by_hand() -> None:
    ex, bob = ch.worked_example(1.5), ch.bob_example(1.5)
    got = ch.measure_worked_example(ex, bob)
    # the weights as the slide defines them, 1/log|supp(i)|, under each base (supports 2, 3, 2)
    assert got["slides.netflix.weight_v1"].value == pytest.approx(1 / math.log(2))
    assert dict(got["slides.netflix.weight_v2"].alternatives) == pytest.approx(
        {"natural log (N-S)": 1 / math.log(3), "log base 2": 1 / math.log2(3), "log base 10": 1 / math.log10(3)})
    assert "1/log2(|supp| + 1) = 0.500" in got["slides.netflix.weight_v2"].note
    for v in ("v1", "v2", "v3"):  # no base gives the printed numbers
        c = claims.claim(f"slides.netflix.weight_{v}")
        assert claims.decide(c, {"measured": got[c.id].value, "alternatives": {
            k: {"measured": x} for k, x in got[c.id].alternatives.items()}}) == "not reproduced"
    w1, w2 = 1 / math.log2(3), 0.5  # the scores: the book's fitted convention (an illustration)
    assert got["slides.netflix.score_r1"].value == pytest.approx((w1 * (1 - 0.5 / 5) + w2 * (1 - 0.3 / 5)) / 2)
    assert got["slides.netflix.score_r3"].value == pytest.approx(w2 * (1 - 0.3 / 5) / 2)
    out = got["slides.netflix.example_output_r1"]
    assert out.value is False and "eccentricity 0.97" in out.note  # 0.97 <= 1.5: no match
    assert dict(out.alternatives) == {ch.EX_PHI_NS: False, ch.EX_PHI_BELOW: True}
    bob_m = got["slides.netflix.bob_isolation"]
    assert bob_m.value is False and set(bob_m.alternatives) == set(ch.BOB_SIMS)
    assert not any(bob_m.alternatives.values())  # r2 best (linear, exponential); a three-way tie (0/1)
    scores = ch.bob_readings(bob)
    assert scores["Sim = 1 within ±1 star, else 0 (N-S's 0/1 test)"].tolist() == [0.5, 0.5, 0.5]
    # the phi of the chapter does not move the recorded readings
    assert ch.measure_worked_example(ch.worked_example(0.5), bob)["slides.netflix.example_output_r1"] == out
    glued = ex.prose_values(1.5, claims.reported)
    assert glued["ex_best"] == "r1" and glued["ex_scores"] == "0.519 / 0.406 / 0.235"


def test_the_quoted_claims_are_this_chapters() -> None:
    """Every claim the prose quotes (reported values, verdicts) is a ledger claim of this chapter."""
    ids = {c.id for c in claims.load_ledger() if c.chapter == ch.NAME}
    assert set(ch.PAPER.values()) | set(ch.VERDICT_GLUE.values()) <= ids
    assert ch.VERDICT_GLUE["v_example_output_r1"] == "slides.netflix.example_output_r1"
    assert claims.reported(ch.PAPER["detect_min"]) == 0.9
    ex = ch.worked_example(1.5)
    assert ex.score_table(claims.reported)["slide"].tolist() == [claims.reported(ch.PAPER[f"paper_s{i}"])
                                                                 for i in (1, 2, 3)]


# --------------------------------------------------------------------------- the experiment


@pytest.fixture(scope="module")
def small() -> nf.Release:
    return nf.Release(generate_netflix_like(2_000, 400, seed=2), "small", {"dataset": "test-small"})


def test_pick_targets_draws_as_before(small: nf.Release) -> None:
    exp = nf.Experiment(small, nf.Similarity(), "natural", 1.5, 7)
    pool = nf.eligible_targets(small.data, 6)
    want = np.sort(np.random.default_rng(7).choice(pool, size=30, replace=False))
    assert np.array_equal(exp.pick_targets(6, 30), want)
    with pytest.raises(ParameterError, match="no user of small"):
        exp.pick_targets(10_000, 30)


@pytest.mark.parametrize("use_cache", [True, False])
def test_run_caches_trials_through_the_kit(small: nf.Release, tmp_path, monkeypatch: pytest.MonkeyPatch,
                                           use_cache: bool) -> None:
    monkeypatch.setenv("ANONLAB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ANONLAB_RESULTS_DIR", raising=False)  # the results follow the data cache
    monkeypatch.delenv("ANONLAB_NO_CACHE", raising=False)
    run = kit.ChapterRun(ch.CHAPTER, {"use_cache": use_cache})
    exp = ch.CachedExperiment(small, nf.Similarity(), "natural", 1.5, 0, cached=run.cached, verbose=False)
    stored = lambda: len(list((tmp_path / "results" / "ch03_trials").glob("*.pkl")))  # noqa: E731
    t = exp.pick_targets(4, 5)
    a = exp.run(t, [2, 4], "x", date_error=14)
    assert stored() == int(use_cache)
    b = exp.run(t, [4, 2], "x", date_error=14)  # same settings: read from the cache
    assert a.equals(b) and stored() == int(use_cache)
    direct = nf.reidentification_trials(small.data, t, [2, 4], date_error=14, seed=0)
    assert a.equals(direct)
    exp.run(t, [2, 4], "x", date_error=3)
    assert stored() == 2 * int(use_cache)


def test_reidentification_curves_settings(small: nf.Release) -> None:
    """The main curves, and with wrong_fraction the headlines' curve instead of the approximate ratings."""
    exp = nf.Experiment(small, nf.Similarity(), "natural", 1.5, 0)
    main = ch.reidentification_curves(exp, [2, 4], 10, [3, 14], 1, 40)
    assert list(main.trials) == ["exact ratings, dates ±3 d", "exact ratings, dates ±14 d", "exact ratings, no dates",
                                 "ratings ±1, dates ±14 d", "ratings ±1, dates ±14 d, rare movies"]
    assert len(main.targets) == 10 and not main.absent["member"].any()
    syn = ch.reidentification_curves(exp, [2, 4], 10, [3, 14], 1, 40, wrong_fraction=0.25)
    assert list(syn.trials)[2:4] == ["exact ratings, dates ±14 d, 25% wrong", "exact ratings, no dates"]
    assert "ratings ±1, dates ±14 d" not in syn.trials
    assert syn.trials["exact ratings, no dates"].equals(main.trials["exact ratings, no dates"])
    matched = ch.reidentification_curves(exp, [2, 4], 10, [3, 14], 1, 40, reading=ch.SIM_MATCHED)
    assert np.array_equal(matched.targets, main.targets)  # same targets and aux, another Sim
    with pytest.raises(ValueError, match="reading must be one of"):
        ch.reidentification_curves(exp, [2, 4], 10, [3, 14], 1, 40, reading="another")


def test_synthetic_source_reuses_the_main_data() -> None:
    src = nf.Release(RatingMatrix.from_dense(pd.DataFrame({"a": [1.0, 2.0]})), "x",
                     {"dataset": "synthetic", "users": 1000, "seed": 0})
    assert ch.synthetic_source(1000, 0, src) is src
    prize = nf.Release(src.data, "Netflix Prize", {"dataset": "netflix-prize", "path": "/x"})
    assert ch.synthetic_source(1000, 0, prize) is prize  # the scale section runs on the Prize itself
    h = pd.Series({"rate": 0.5, "ci_low": 0.4, "ci_high": 0.6, "n": 10})
    assert ch.measure_headlines(h, h, 480_189, 1.5, "Netflix Prize")[ch.HEADLINE_8].note.startswith("Netflix Prize, 480,189")


class _FakeExperiment:
    """Answers each run with hand-made trials: ``4 - date_error // 10`` of 4 targets re-identified at m = 2
    (one fewer with wrong entries), all 4 at m = 8; records the settings it was asked for."""

    phi = 1.5

    def __init__(self) -> None:
        self.asked: list[dict] = []

    def run(self, targets, grid, label, **kw) -> pd.DataFrame:
        self.asked.append({"grid": list(grid), **kw})
        k = 4 - kw["date_error"] // 10 - (1 if kw.get("wrong_fraction") else 0)
        return _trials({2: (k, 4), 8: (4, 4)})


def test_the_date_error_frame_reads_each_headline_setting_at_that_date_error() -> None:
    exp = _FakeExperiment()
    f = ch.date_error_frame(exp, np.arange(4), [2, 8], 20, 0.25)
    assert f == {"exact ratings": ([2, 8], [0.5, 1.0]), "exact ratings, 25% wrong": ([2, 8], [0.25, 1.0])}
    assert exp.asked == [{"grid": [2, 8], "date_error": 20}, {"grid": [2, 8], "date_error": 20, "wrong_fraction": 0.25}]


def test_the_date_error_explorable_draws_the_headlines_and_starts_at_the_smaller_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ANONLAB_OUTPUT_DIR", str(tmp_path))
    monkeypatch.setenv("ANONLAB_NO_CACHE", "1")
    run = kit.ChapterRun(ch.CHAPTER, SPEC.defaults())
    exp = _FakeExperiment()
    exp.data, exp.similarity, exp.weights, exp.seed = nf.Release(None, "toy", {"toy": 1}), nf.Similarity(
        "exponential", 1.5, 30.0), "natural", 0
    e = ch.date_error_explorable(run, exp, np.arange(4), [2, 8], [3, 14], 0.25)
    assert list(e.values) == [0, 3, 7, 14, 30, 90] and e.values[e.default] == 3
    assert [s.y for s in e.paper] == [[claims.claim(ch.HEADLINE_2).reported, claims.claim(ch.HEADLINE_8).reported]]
    assert [s.x for s in e.paper] == [[2, 8]]  # the ledger's m of each headline
    assert e.band[:2] == pytest.approx((0.675, 0.685))
    assert [s.y for s in e.frames[-1]] == [[0.0, 1.0], [0.0, 1.0]]  # 90 days: 4 - 9 < 0, none re-identified

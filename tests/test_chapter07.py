"""Chapter 7 (membership inference and base rates): declaration, claim decisions, protocol results."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from anonlab import claims
from anonlab.attacks import membership as mm
from anonbook import chapters
from anonbook.chapters import ch07_membership_base_rates as ch
from anonbook.figures import membership as figures
from anonlab.measures import base_rates as br
from anonlab.measures import score
from anonlab.validation import ParameterError

SPEC = ch.CHAPTER.parameters


def _values(**kw):
    return {**SPEC.defaults(), **kw}


# ---------------------------------------------------------------------------
# Declaration
# ---------------------------------------------------------------------------


def test_quick_preset_is_the_small_test_parameters() -> None:
    assert dict(ch.CHAPTER.quick) == {"n_members": 1000, "n_shadow_models": 4, "n_target_models": 1,
                                      "sweep_max_depths": [4, None], "use_cache": False}
    assert ch.CHAPTER.quick_parameters()["n_members"] == 1000


@pytest.mark.parametrize("skews", [[30, 240], ["1:30", 240], ["1:1", "1:30", "1:240"], [2.5], ["2:5"]])
def test_every_valid_form_of_skews_is_accepted(skews) -> None:
    assert SPEC.validate({"skews": skews})["skews"] == skews
    assert SPEC.validate({"recommended_skews": skews})["recommended_skews"] == skews


@pytest.mark.parametrize("skews, message", [
    (["1:0"], "'skews': skew '1:0' must be > 0"),
    ([0], "'skews': skew 0 must be > 0"),
    (["1:x"], "'skews': skew must look like"),
    ([], "'skews' must be a non-empty list"),
    ("1:30", "'skews' must be a non-empty list"),
    ([True], "'skews': a skew is a number"),
    ([float("inf")], "'skews': skew inf must be > 0"),
    (list(range(1, 20)), "at most 12 skews"),
    ([50_000], "needs more than the 40,000 non-member observations"),
])
def test_invalid_skews_are_refused_up_front_naming_the_parameter(skews, message) -> None:
    with pytest.raises(ParameterError, match=message):
        SPEC.validate({"skews": skews})


def test_recommended_skews_are_checked_too() -> None:
    with pytest.raises(ParameterError, match="'recommended_skews': skew '1:0'"):
        SPEC.validate({"recommended_skews": [2, "1:0"]})
    # only the observed skews are bounded by the number of non-members
    assert SPEC.validate({"recommended_skews": [50_000]})


def test_check_skews_returns_non_members_per_member() -> None:
    assert ch.check_skews("skews", ["1:1", 30, "2:5"]).tolist() == [1.0, 30.0, 2.5]
    assert ch.check_skews("skews", [10], max_skew=10).tolist() == [10.0]
    with pytest.raises(ParameterError):
        ch.check_skews("skews", [11], max_skew=10)


@pytest.mark.parametrize("kw, message", [
    (dict(model="logistic_regression", max_depth=3), "'max_depth' must be None for model 'logistic_regression'"),
    (dict(n_shadow_models=4, n_target_models=6), "'n_target_models' must be <= n_shadow_models \\+ 1 = 5"),
    (dict(n_members=40_000), "'n_members': .* adult has only 45,222"),
    (dict(sweep_max_depths=[0]), "'sweep_max_depths\\[0\\]' must be None or an integer"),
    (dict(sweep_max_depths=[4.5]), "'sweep_max_depths\\[0\\]'"),
    (dict(sweep_max_depths="4"), "'sweep_max_depths' must be a list"),
    (dict(n_members=99), "'n_members' must be >= 100"),
    (dict(n_shadow_models=257), "'n_shadow_models' must be <= 256"),
])
def test_bad_combinations_are_refused(kw, message) -> None:
    with pytest.raises(ParameterError, match=message):
        SPEC.validate(kw)


def test_logistic_regression_and_an_empty_sweep_are_fine() -> None:
    assert SPEC.validate({"model": "logistic_regression", "sweep_max_depths": []})
    assert ch.check_depths("d", [None, 1, 64]) == [None, 1, 64]


def test_non_member_observations() -> None:
    assert ch.non_member_observations(_values()) == 4 * (20_000 - 10_000)
    assert ch.non_member_observations(_values(n_members=1000, n_target_models=1)) == 1000


# ---------------------------------------------------------------------------
# The paper's numbers
# ---------------------------------------------------------------------------


def _fake_claim(cid: str, reported, **params) -> claims.Claim:
    return claims.Claim(id=cid, paper="p", source="s", where="w", statement="s", reported=reported, unit="fraction",
                        compare="approx", chapter=ch.NAME, data="unavailable", tolerance=0.1, params=params)


def test_fig10_points_and_inputs_from_a_ledger() -> None:
    ledger = [_fake_claim("fw.fig10.shokri.tpr_at_fpr_1", 1.0, fpr=1.0),
              _fake_claim("fw.fig10.shokri.tpr_at_fpr_0_1", 0.5, fpr=0.1),
              _fake_claim("fw.fig10.carlini.tpr_at_fpr_0_1", 0.7, fpr=0.1),
              _fake_claim("fw.s5.texas.n_records", 67000),
              _fake_claim("fw.s5.other", 1)]
    pts = ch.fig10_points(ledger)
    assert pts[["attack", "fpr", "tpr"]].values.tolist() == [["carlini", 0.1, 0.7], ["shokri", 0.1, 0.5],
                                                             ["shokri", 1.0, 1.0]]
    cv = ch.curves(pts)
    assert cv["shokri"][0].tolist() == [0.1, 1.0] and cv["shokri"][1].tolist() == [0.5, 1.0]
    m = ch.measure_inputs(ledger)
    assert sorted(m) == ["fw.fig10.carlini.tpr_at_fpr_0_1", "fw.fig10.shokri.tpr_at_fpr_0_1",
                         "fw.fig10.shokri.tpr_at_fpr_1", "fw.s5.texas.n_records"]
    assert all(v.value is None and "not available" in v.note for v in m.values())


def test_the_ledgers_fig10_gives_two_curves_and_fourteen_inputs() -> None:
    pts = ch.fig10_points()
    assert set(pts.attack) == {"shokri", "carlini"}
    assert len(ch.measure_inputs()) == len(pts) + 1
    assert all(claims.verdict(claims.claim(c), m.value) == "data unavailable" for c, m in ch.measure_inputs().items())


def test_chapter_7_records_no_fw_s1_claim() -> None:
    ids = _recorded_ids()
    assert not [i for i in ids if i.startswith("fw.s1.")]
    assert all(claims.claim(i).chapter == ch.NAME for i in ids)


def test_s1_example_recomputes_the_paper() -> None:
    s1 = ch.s1_example()
    assert s1.values["s1_skewed_exact"] == pytest.approx(20 / 119)
    assert s1.measurements == {}
    prec = s1.table[s1.table.quantity.eq("precision")]
    assert prec["recomputed"].tolist() == pytest.approx([1000 / 1050, 20 / 119])


def test_skews_by_hand() -> None:
    f = ch.measure_skews()
    m = {k: v.value for k, v in f.measurements.items()}
    assert m["fw.s5.shokri.train_fraction"] == pytest.approx(10_000 / 67_000)
    assert m["fw.s5.skew_hospitals"] == pytest.approx(29.0)  # (1 - 1/30) / (1/30)
    assert m["fw.s5.skew_texas"] == pytest.approx(239.0)  # (2.4M - 10K) / 10K
    assert m["fw.s5.balanced_impossible"] is True  # 57K / 10K = 5.7 > 1
    assert f.values["min_skew"] == pytest.approx(5.7)
    assert f.values["skew_h_exact"] == pytest.approx((1 - 0.2 * 10 / 67) / (0.2 * 10 / 67))
    assert len(f.table) == 5


def _recorded_ids() -> set[str]:
    cv = ch.curves(ch.fig10_points())
    shokri = ch.measure_shokri(cv)
    return set(ch.measure_inputs()) | set(ch.measure_skews().measurements) \
        | set(ch.measure_skew_effect(cv).measurements) | set(shokri.measurements) \
        | set(ch.measure_carlini(cv).measurements) \
        | set(ch.measure_full_recall(ch.fig10_points(), shokri.values["k40"]).measurements) | set(ch.measure_eq11()) \
        | set(ch.measure_recommended(cv))


def test_the_glued_verdicts_and_paper_values_name_ledger_claims() -> None:
    recorded = _recorded_ids()
    assert set(ch.VERDICT_GLUE.values()) <= recorded  # a verdict the chapter glues is one it records
    assert all(claims.claim(cid).reported is not None for cid in ch.PAPER.values())
    assert not set(ch.VERDICT_GLUE) & set(ch.PAPER)


def test_skew_effect_on_a_hand_worked_curve() -> None:
    cv = {"a": (np.array([0.01, 0.1]), np.array([0.5, 0.9]))}
    f = ch.measure_skew_effect(cv)
    assert f.measurements["fw.s5.skew_lowers_precision"].value is True
    # precision at 1:1 / at 1:240: 0.5/0.51 / (0.5/2.9) and 0.9/1.0 / (0.9/24.9); the median of the two
    r1 = (0.5 / 0.51) / (0.5 / 2.9)
    r2 = 0.9 / (0.9 / 24.9)
    assert f.values["skew_ratio"] == pytest.approx((r1 + r2) / 2)


def test_skew_effect_fails_where_precision_does_not_fall() -> None:
    # a point at FPR 0 has precision 1 at every skew: it is left out, so this curve still falls
    cv = {"a": (np.array([0.0, 0.5]), np.array([0.1, 0.5]))}
    assert ch.measure_skew_effect(cv).measurements["fw.s5.skew_lowers_precision"].value is True
    # a point with TPR 0 has precision 0 at every skew: precision does not fall there
    cv = {"a": (np.array([0.1, 0.5]), np.array([0.0, 0.5]))}
    assert ch.measure_skew_effect(cv).measurements["fw.s5.skew_lowers_precision"].value is False


def test_shokri_and_carlini_statements_against_fig10() -> None:
    cv = ch.curves(ch.fig10_points())
    s = ch.measure_shokri(cv)
    m = s.measurements["fw.s5.shokri.precision_40"]
    c = claims.claim("fw.s5.shokri.precision_40")
    assert m.value == pytest.approx(0.39, abs=0.01)  # the ledger's hand reading: about 0.39
    assert sorted(m.alternatives) == sorted(c.alternatives())
    assert m.alternatives["the plot's x axis (FPR, authors' code)"] == pytest.approx(0.4)  # 0.002 / (0.002 + 30e-4)
    assert m.alternatives["members, recall (Eq 9)"] >= s.values["shokri_first_precision"] == pytest.approx(0.5)
    verdicts = {k: claims.verdict(c, v) for k, v in m.alternatives.items()}
    assert verdicts["members, recall (Eq 9)"] == "not reproduced"
    assert verdicts["everyone observed, TP/(M+N)"] == "reproduced"
    assert s.values["shokri_best"] < 0.5
    car = ch.measure_carlini(cv)
    m95 = car.measurements["fw.s5.carlini.precision_95_targets"]
    m80 = car.measurements["fw.s5.carlini.precision_80_targets"]
    assert 1 / 2000 < m95.value < 1 / 1500  # about 1/1700, not 1/8000
    c95, c80 = claims.claim("fw.s5.carlini.precision_95_targets"), claims.claim("fw.s5.carlini.precision_80_targets")
    assert sorted(m95.alternatives) == sorted(c95.alternatives())
    assert sorted(m80.alternatives) == sorted(c80.alternatives())
    assert {claims.verdict(c95, v) for v in [m95.value, *m95.alternatives.values()]} == {"not reproduced"}
    # "recall" is defined (Eq 9): the 80 % statement is read as a recall, 0.25 at 1:240, far from 1/800
    assert m80.value == pytest.approx(0.253, abs=0.002)
    assert m80.alternatives["recall, 1:30"] == pytest.approx(0.426, abs=0.002)
    assert {claims.verdict(c80, v) for v in [m80.value, *m80.alternatives.values()]} == {"not reproduced"}
    assert car.values["k_star"] == 240.0
    assert 900 < car.values["c80_one_in"] < 1000  # as TP/(M+N), the reading the ledger used before issue 22


def test_the_paper_plot_reads_fpr_as_its_x_axis() -> None:
    # the authors' code joins Eq 11's points with straight lines on a log x axis that holds the FPR
    f, t = np.array([1e-5, 1e-4, 1e-3]), np.array([0.1, 0.2, 0.35])
    x = br.plot_line_reach(f, t, 30.0, 0.95)
    p0, p1 = 0.2 / (0.2 + 30e-4), 0.35 / (0.35 + 30e-3)
    assert np.log10(x) == pytest.approx(-4 + (p0 - 0.95) / (p0 - p1))
    assert br.plot_line_reach(f, t, 30.0, 0.999) != br.plot_line_reach(f, t, 30.0, 0.999)  # nan: never reached
    assert br.plot_line_reach(f, t, 30.0, 0.5) == 1e-3  # every point reaches it: the last one
    assert br.precision_at_fpr(f, t, 30.0, 1e-4) == pytest.approx(p0)


def test_full_recall_statement() -> None:
    pts = ch.fig10_points()
    assert pts.loc[pts.fpr.eq(0.5), "attack"].tolist() == ["shokri"]  # as in the authors' plotting code
    assert pts.loc[pts.fpr.eq(0.25), "attack"].tolist() == ["carlini"]
    f = ch.measure_full_recall(pts, 30.0)
    assert f.measurements["fw.s5.no_better_than_all_member"].value is False
    assert f.values["fpr_full_recall"] == 0.25 and f.values["fpr_full_recall_shokri"] == 0.5
    assert f.values["full_recall_base_30"] == pytest.approx(1 / 31)
    assert f.values["full_recall_prec_30"] == pytest.approx(1 / (1 + 30 * 0.25))  # TPR 1 at FPR 0.25
    assert f.values["full_recall_prec_30_shokri"] == pytest.approx(1 / (1 + 30 * 0.5))


def test_single_value_rows_are_reassigned() -> None:
    p = pd.DataFrame({"attack": ["a", "b", "b"], "fpr": [0.1, 0.1, 0.5], "tpr": [0.2, 0.3, 0.9]})
    out = ch.single_value_rows_to(p, "a")
    assert out["attack"].tolist() == ["a", "a", "b"] and out["fpr"].tolist() == [0.1, 0.5, 0.1]


def test_recommended_skews_are_recorded_and_cannot_fail() -> None:
    cv = ch.curves(ch.fig10_points())
    m = ch.measure_recommended(cv)
    assert list(m) == list(ch.RECOMMENDED_IDS)
    assert [claims.claim(i).params["skew"] for i in m] == ["1:2", "1:5", "1:10", "1:50"]
    assert all(v.value is True for v in m.values())
    assert all(claims.decide(claims.claim(i), {"measured": v.value}) == claims.ILLUSTRATED for i, v in m.items())
    assert "0.375 at FPR 1e-05" in m["fw.s5.recommended_skew.1_50"].note  # Shokri: 3e-4 / (3e-4 + 50e-5)
    # whatever the curves, the ranking is the ROC's: random curves never break it
    rng = np.random.default_rng(1)
    for _ in range(5):
        a = np.sort(rng.uniform(1e-5, 1, 4)), np.sort(rng.uniform(1e-3, 1, 4))
        b = np.sort(rng.uniform(1e-5, 1, 4)), np.sort(rng.uniform(1e-3, 1, 4))
        curves = {"a": (np.r_[a[0], 1.0], np.r_[a[1], 1.0]), "b": (np.r_[b[0], 1.0], np.r_[b[1], 1.0])}
        assert br.ranking_kept(curves, 50.0)


def test_eq11_agrees_with_counting() -> None:
    m = ch.measure_eq11()["fw.s5.eq11.precision_from_roc"]
    assert m.value is True and "0.9524" in m.note


def test_recommended_table_and_plain() -> None:
    cv = {"a": (np.array([0.01, 0.1]), np.array([0.5, 0.9]))}
    t = ch.recommended_table(cv, np.array([1.0]))
    assert list(t.columns) == ["precision 1:1", "pi 1:1"]
    assert t["precision 1:1"].tolist() == pytest.approx([0.5 / 0.51, 0.9])
    assert type(ch.plain({"x": np.float64(0.5)})["x"]) is float and ch.plain({"s": "x"}) == {"s": "x"}
    assert type(ch.Findings(values={"n": np.int64(3)}).values["n"]) is int  # glued values are plain numbers
    assert ch.one_in(8000.2) == "1 in 8,000" and ch.one_in(math.inf) == "never"


# ---------------------------------------------------------------------------
# Live attacks: protocol results and tables
# ---------------------------------------------------------------------------


def _scores(n: int = 400, targets: int = 2, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frames = []
    for t in range(targets):
        member = rng.random(n) < 0.5
        frames.append(pd.DataFrame({
            "target_model": t, "record": np.arange(n), "is_member": member,
            "loss": np.where(member, 0.0, rng.choice([0.0, -1.0], n)),
            "lira_online": rng.normal(member * 1.5, 1.0)}))
    return pd.concat(frames, ignore_index=True)


def test_membership_result_scores_by_hand() -> None:
    r = mm.membership_result("toy", [True, True, False, False], [0.9, 0.4, 0.6, 0.1], 0.5)
    base = br.everyone_is_member_result(r.truth, targets=r.targets)
    s = score(r, base)
    assert (s.precision, s.recall, s.coverage) == (0.5, 0.5, 0.5)
    assert s.baseline_precision == 0.5 and s.precision_improvement == 0.0
    s2 = score(mm.membership_result("toy", [True, True, False, False], [0.9, 0.4, 0.6, 0.1], 0.7), base)
    assert (s2.precision, s2.recall, s2.coverage, s2.precision_improvement) == (1.0, 0.5, 0.25, 1.0)
    none = score(mm.membership_result("toy", [True, False], [0.9, 0.6], math.inf), base.subset([True, True, False, False]))
    assert math.isnan(none.precision) and none.coverage == 0.0
    assert r.at_threshold(0.8).predicted.tolist() == [True, False, False, False]
    with pytest.raises(ValueError, match="threshold must be a number"):
        mm.membership_result("toy", [True], [0.1], float("nan"))
    with pytest.raises(ValueError, match="one entry per target"):
        mm.membership_result("toy", [True, False], [0.1], 0.0)


def test_everyone_is_member_result() -> None:
    base = br.everyone_is_member_result([1, 0, 0, 0, 0], targets=[10, 11, 12, 13, 14])
    s = score(base)
    assert s.precision == 0.2 and s.recall == 1.0 and s.coverage == 1.0
    assert base.targets.tolist() == [10, 11, 12, 13, 14]
    # the precision of the baseline at skew k is the 1/(1+k) of everyone_is_member
    assert br.everyone_is_member([4])["precision"].iloc[0] == pytest.approx(s.precision)
    with pytest.raises(ValueError):
        br.everyone_is_member_result([[True]])


def test_threshold_at_fpr_matches_low_fpr_table() -> None:
    df = _scores()
    roc = br.roc_from_scores(df["lira_online"], df["is_member"])
    for fpr in (0.001, 0.01, 0.1, 0.5):
        thr = br.threshold_at_fpr(roc, fpr)
        row = br.low_fpr_table(roc, [fpr]).iloc[0]
        flagged = df["lira_online"] >= thr
        assert int((flagged & df.is_member).sum()) == row.tp and int((flagged & ~df.is_member).sum()) == row.fp
    # ties at the top (the loss attack): flag no one at a low FPR
    roc_loss = br.roc_from_scores(df["loss"], df["is_member"])
    assert br.threshold_at_fpr(roc_loss, 0.001) == math.inf
    with pytest.raises(ValueError):
        br.threshold_at_fpr(roc, 0)


def test_attack_results_and_live_results() -> None:
    df = _scores()
    res = mm.attack_results(df, 0.1, reference_models=7)
    assert list(res) == ["loss", "lira_online"]
    r = res["lira_online"]
    assert r.n_targets == len(df) and len(set(r.targets.tolist())) == len(df)
    assert r.resources["reference_models"] == 7 and "reference_models" not in res["loss"].resources
    s = score(r)
    roc = br.roc_from_scores(df["lira_online"], df["is_member"])
    row = br.low_fpr_table(roc, [0.1]).iloc[0]
    assert s.recall == pytest.approx(row.tpr) and s.n_predictions == row.tp + row.fp
    p = {"low_fprs": [0.1], "n_shadow_models": 7}
    results, everyone = ch.live_results(df, p)
    assert results["loss"].attack == "loss (Yeom), FPR ≤ 0.1"
    assert score(everyone).precision == pytest.approx(df.is_member.mean())
    assert np.array_equal(everyone.targets, results["loss"].targets)


def test_live_tables() -> None:
    df = _scores()
    rocs = mm.attack_rocs(df)
    skews = np.array([1.0, 30.0])
    low = ch.low_fpr_tables(rocs, [0.01, 0.1], skews)
    assert set(low.table.attack) == {"loss (Yeom)", "LiRA online"}
    assert low.values["lowest_fpr"] == 0.01 and list(low.more["precision"].columns) == ["1:1", "1:30"]
    hp = ch.high_precision_table(rocs, skews, [0.5, 0.8])
    assert hp.values["hp_cells"] == 2 * 2 * 1  # attacks x skews x bars >= 0.8
    full = ch.full_recall_live(rocs, skews)
    assert full.values["live_max_pi_full_recall"] <= 1
    assert ch.observation_counts(df) == {"n_obs_members": int(df.is_member.sum()),
                                         "n_obs_non": int((~df.is_member).sum())}


def test_counted_check_is_seeded() -> None:
    df = _scores()
    rocs = mm.attack_rocs(df)
    a = ch.counted_check(df, rocs, np.array([1.0, 3.0]), 0)
    b = ch.counted_check(df, rocs, np.array([1.0, 3.0]), np.random.default_rng(0))
    pd.testing.assert_frame_equal(a.table, b.table)
    assert a.values["n_checks"] == 4


def test_figures_draw() -> None:
    import matplotlib.pyplot as plt

    cv = ch.curves(ch.fig10_points())
    shokri, carlini = ch.measure_shokri(cv), ch.measure_carlini(cv)
    figs = [figures.plot_worked_example(2000, 0.05, 0.0), figures.plot_fig9_roc(cv),
            figures.plot_fig9_precision(cv, np.array([1.0, 30.0])),
            figures.plot_statements(cv, shokri.values["k40"], carlini.values["k_star"]),
            figures.plot_live_rocs(mm.attack_rocs(_scores())),
            figures.plot_pr_at_skews(mm.attack_rocs(_scores()), np.array([1.0, 2.0, 5.0, 10.0, 50.0])),
            figures.plot_sweep(pd.DataFrame({"gap": [0.1, 0.2], "AUC": [0.6, 0.7], "max_depth": [4, "unlimited"]}))]
    assert all(f is not None for f in figs)
    assert figures.plot_sweep(pd.DataFrame()) is None
    plt.close("all")


def test_figures_fit_the_text_column_with_text_of_10_pt() -> None:
    """Every figure passes the book's one figure checker: natural width, 10 pt text, 2 panels a row, no legend over a line."""
    import matplotlib.pyplot as plt

    from anonbook import plotting
    from tests.test_figures_01_03_04_08 import layout_problems

    plotting.book_style()
    cv = ch.curves(ch.fig10_points())
    shokri, carlini = ch.measure_shokri(cv), ch.measure_carlini(cv)
    rocs = mm.attack_rocs(_scores())
    figs = [figures.plot_worked_example(2000, 0.05, 0.0), figures.plot_fig9_roc(cv),
            figures.plot_fig9_precision(cv, np.array([1.0, 30.0, 240.0])),
            figures.plot_statements(cv, shokri.values["k40"], carlini.values["k_star"]), figures.plot_live_rocs(rocs),
            figures.plot_pr_at_skews(rocs, np.array([1.0, 2.0, 5.0, 10.0, 30.0, 50.0, 240.0])),
            figures.plot_pr_at_skews(rocs, np.array([1.0, 30.0])),
            figures.plot_sweep(pd.DataFrame({"gap": [0.1, 0.2], "AUC": [0.6, 0.7], "max_depth": [4, "unlimited"]}))]
    problems = {fig.axes[0].get_title() or str(i): layout_problems(fig) for i, fig in enumerate(figs)}
    plt.close("all")
    assert not any(problems.values()), problems


def test_the_explorable_frames_are_eq11_at_each_skew_with_the_statements_as_paper_points() -> None:
    cv = ch.curves(ch.fig10_points())
    low, high = figures.skew_frame(cv, "1:1"), figures.skew_frame(cv, "1:240")
    assert set(low) == {"Shokri et al.", "Carlini et al. (LiRA)"}
    x, y = low["Shokri et al."]
    x2, y2 = high["Shokri et al."]
    # at the table's first point (FPR 1e-5, TPR 3e-4): precision 3e-4 / (3e-4 + k 1e-5), share TPR / (1 + k)
    assert np.isclose(y[0], 3e-4 / (3e-4 + 1e-5)) and np.isclose(y2[0], 3e-4 / (3e-4 + 240e-5))
    assert np.isclose(x[0], 3e-4 / 2) and np.isclose(x2[0], 3e-4 / 241)
    names = [s.name for s in figures.statement_points()]
    assert len(names) == 2 and "40%" in names[0] and "8,000" in names[1]


# ---------------------------------------------------------------------------
# Randomness: seed is an int or a Generator, with identical draws
# ---------------------------------------------------------------------------


def test_seed_int_or_generator_gives_the_same_draws() -> None:
    a = mm.sample_training_sets(50, 3, 0.5, 4)
    b = mm.sample_training_sets(50, 3, 0.5, np.random.default_rng(4))
    assert np.array_equal(a, b)
    member = [True] * 10 + [False] * 30
    assert np.array_equal(br.subsample_to_skew(member, "1:30", 1),
                          br.subsample_to_skew(member, "1:30", np.random.default_rng(1)))
    with pytest.raises(ValueError, match="'seed'"):
        br.subsample_to_skew(member, "1:3", -1)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.int64)
    spec = mm.ModelSpec("random_forest", n_estimators=3)
    m1 = mm.train_shadow_models(X, y, spec, n_models=3, seed=5)
    m2 = mm.train_shadow_models(X, y, spec, n_models=3, seed=np.random.default_rng(5))
    assert np.array_equal(m1.proba, m2.proba) and np.array_equal(m1.in_mask, m2.in_mask)
    s_int = mm.run_attacks(m1, n_targets=1, attacks=["shokri"], seed=2)
    s_gen = mm.run_attacks(m1, n_targets=1, attacks=["shokri"], seed=np.random.default_rng(2))
    assert np.array_equal(s_int["shokri"], s_gen["shokri"])
    with pytest.raises(ValueError, match="'seed'"):
        mm.run_attacks(m1, seed=-3)


# ---------------------------------------------------------------------------
# The course: exercises and the values that answer them
# ---------------------------------------------------------------------------


def test_exercises_are_declared_predict_first_and_validate() -> None:
    ex = chapters.get(ch.CHAPTER.name).exercises  # the questions are read from the page
    assert len(ex) >= 3 and 1 <= len(ch.CHAPTER.goals) <= 3 and ch.CHAPTER.assumes
    for e in ex:
        assert "predict" in e.question.lower(), e.key
        SPEC.validate({**ch.CHAPTER.quick, **e.parameters})  # raises if the variant is refused


def _tiny_models() -> mm.ShadowModels:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)).astype(np.float32)
    y = (X[:, 0] + rng.normal(0, 0.5, 200) > 0).astype(np.int64)
    return mm.train_shadow_models(X, y, mm.ModelSpec("random_forest", n_estimators=3), n_models=3, seed=0)


def _glued_by_chapter(monkeypatch: pytest.MonkeyPatch) -> dict[str, set[str]]:
    """``{function name: keys it returns for gluing}``, every value function the notebook glues, on small inputs."""
    class FakeData:
        n_records, n_duplicate_rows = 2000, 3

    monkeypatch.setattr(mm, "load_membership_data", lambda *a, **k: FakeData())
    fig10 = ch.fig10_points()
    cv = ch.curves(fig10)
    df = _scores()
    rocs = mm.attack_rocs(df)
    skews = np.array([1.0, 30.0])
    p = {**SPEC.defaults(), **ch.CHAPTER.quick}
    shokri = ch.measure_shokri(cv)
    return {
        "s1_example": set(ch.s1_example().values),
        "example_values": set(ch.example_values(2000, 0.05, 0.0, [0.5])),
        "recommended_values": set(ch.recommended_values(cv, skews)),
        "measure_skews": set(ch.measure_skews().values),
        "measure_skew_effect": set(ch.measure_skew_effect(cv).values),
        "measure_shokri": set(shokri.values),
        "measure_carlini": set(ch.measure_carlini(cv).values),
        "measure_full_recall": set(ch.measure_full_recall(fig10, shokri.values["k40"]).values),
        "load_data": set(ch.load_data(p)[1]),
        "accuracy_summary": set(ch.accuracy_summary(_tiny_models()).values),
        "auc_values": set(ch.auc_values(rocs)) | {f"auc_{a}" for a in mm.ATTACKS},
        "observation_counts": set(ch.observation_counts(df)),
        "low_fpr_tables": set(ch.low_fpr_tables(rocs, [0.01], skews).values),
        "high_precision_table": set(ch.high_precision_table(rocs, skews, [0.8]).values),
        "live_results": {"member_share", "recorded_fpr"},  # glued by name beside it
    }


def test_every_exercise_answer_is_a_value_the_notebook_glues(monkeypatch: pytest.MonkeyPatch) -> None:
    import json
    from pathlib import Path

    nb = json.loads((Path(__file__).parents[1] / "notebooks" / f"{ch.NAME}.ipynb").read_text())
    glue_cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"
                  and "glue" in "".join(c["source"])]
    producers = _glued_by_chapter(monkeypatch)
    for e in ch.CHAPTER.exercises:
        keys = [*e.answer, *([e.figure] if e.figure else [])]
        for key in keys:
            by = [f for f, glued in producers.items() if key in glued]
            assert by, f"exercise {e.key!r}: no chapter function gives {key!r}"
            assert any(f"{f}(" in cell or f'glue("{key}"' in cell for f in by for cell in glue_cells), \
                f"exercise {e.key!r}: the notebook does not glue {key!r}"


def test_example_values_solve_eq2_for_half_precision() -> None:
    v = ch.example_values(2000, 0.05, 0.0, [0.05 / 1.05])
    assert v["example_share_half"] == pytest.approx(0.05 / 1.05)
    assert v["example_precisions"] == "0.500"
    assert ch.example_values(100, 0.1, 0.5, [0.5])["example_share_half"] == pytest.approx(0.1 / 0.6)


def test_recommended_values_at_the_largest_skew() -> None:
    cv = ch.curves(ch.fig10_points())
    v = ch.recommended_values(cv, np.array([2.0, 2500.0]))
    f, t = cv["carlini"]
    i = int(np.argmin(f))
    assert v["rec_max_skew"] == 2500.0 and v["rec_carlini_lowest_fpr"] == f[i]
    assert v["rec_carlini_lowest_fpr_precision"] == pytest.approx(t[i] / (t[i] + 2500 * f[i]))


# ---------------------------------------------------------------------------
# Readings of the 95 % statement, the cache key of the models, the figures' thinning
# ---------------------------------------------------------------------------


def test_readings_of_the_95_statement() -> None:
    cv = ch.curves(ch.fig10_points())
    v = ch.measure_carlini(cv).values
    assert v["c95_readings"] == 3 * 3 * len(ch.fig9_skews())  # three meanings x three scales x skews
    assert v["c95_readings_within"] == 1  # only the table's points on the FPR axis at 1:30: 1 in 10,000


def test_readings_within_counts_what_the_rules_accept() -> None:
    c = claims.claim("fw.s5.carlini.precision_95_targets")
    rng = np.random.default_rng(0)
    one_in = 1 / rng.uniform(0, 3 * c.reported, 200)
    recall = rng.uniform(0, 3 * c.reported, 200)
    fpr = rng.uniform(0, 3 * c.reported, 200)
    t = pd.DataFrame({"min_precision": 0.95, "one_in_targets": one_in, "recall": recall, "fpr": fpr})
    within, n = ch.readings_within(t, c.id)
    assert n == 600
    assert within == sum(claims.verdict(c, float(x)) == "reproduced" for x in np.r_[1 / one_in, recall, fpr])
    assert 0 < within < n


class _FakeRun:
    """What shadow_models and depth_sweep need of a run: its parameters and its cache."""

    def __init__(self, **p) -> None:
        self.p = {**SPEC.defaults(), **p}
        self.keys: list[tuple[str, dict]] = []

    def cached(self, step, compute, **key):
        self.keys.append((step, key))
        return compute()


def test_shadow_models_are_cached_under_every_input() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)).astype(np.float32)

    class Data:
        n_records, categorical = 200, np.zeros(3, dtype=bool)

    Data.X, Data.y = X, (X[:, 0] > 0).astype(np.int64)
    run = _FakeRun(model="logistic_regression", seed=3)
    models = ch.shadow_models(run, Data, None, 3)
    assert models.proba.shape[0] == 3
    assert run.keys == [("shadow_models", {"dataset": "adult", "n_records": 200, "model": "logistic_regression",
                                           "max_depth": None, "n_models": 3, "member_fraction": 0.5, "seed": 3})]
    assert ch.depth_sweep(run, Data).empty  # logistic regression has no depth


def test_thin_roc_keeps_the_ends_of_every_cell_and_the_curve_within_a_cell() -> None:
    rng = np.random.default_rng(0)
    member = rng.random(20_000) < 0.5
    roc = br.roc_from_scores(rng.normal(size=20_000) + member, member)
    keep = figures.thin_roc(roc.fpr, roc.tpr)
    assert keep[0] == 0 and keep[-1] == roc.fpr.size - 1 and np.all(np.diff(keep) > 0)
    assert keep.size < roc.fpr.size / 2
    # every dropped point lies between two kept neighbours within one cell (1/200 decade) on both axes
    dropped = np.setdiff1d(np.arange(roc.fpr.size), keep)
    after = keep[np.searchsorted(keep, dropped)]
    for arr in (roc.fpr, roc.tpr):
        assert np.all(np.log10(arr[after]) - np.log10(arr[dropped]) <= 1 / 200 + 1e-12)


def test_the_plot_axis_is_read_with_one_method_shared_by_the_page_and_the_ledger() -> None:
    """Issue 35: the values on the paper's plot axis (the FPR) come from one function, plot_line_reach (straight
    segments between Fig. 10's points on the plot's log x axis), which the ledger notes name; the page's glued
    values and the recorded readings are that function's, not the ROC's log-log operating point."""
    cv = ch.curves(ch.fig10_points())
    f, t = cv["carlini"]
    got = ch.measure_carlini(cv)
    for cid, prec in (("fw.s5.carlini.precision_95_targets", 0.95), ("fw.s5.carlini.precision_80_targets", 0.8)):
        assert "base_rates.plot_line_reach" in claims.claim(cid).note
        assert hasattr(br, "plot_line_reach")
        for label, k in ch.carlini_skews().items():
            assert ch.targets_readings(f, t, k, prec)[ch.PLOT_X] == br.plot_line_reach(f, t, k, prec)
    assert got.values["c95_plot_one_in"] == pytest.approx(1 / br.plot_line_reach(f, t, 240.0, 0.95))
    assert got.values["c80_plot_one_in_30"] == pytest.approx(1 / br.plot_line_reach(f, t, 30.0, 0.8))
    alt = got.measurements["fw.s5.carlini.precision_95_targets"].alternatives
    assert alt[f"{ch.PLOT_X}, 1:240"] == br.plot_line_reach(f, t, 240.0, 0.95)
    # the reading differs from the ROC operating point's FPR (log-log), which the ledger notes used to quote
    roc = br.max_recall_table(f, t, [240.0], [0.95], scales=("log",))["fpr"].iloc[0]
    assert abs(1 / roc - got.values["c95_plot_one_in"]) > 1000

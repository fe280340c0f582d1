"""Tests of anonbook.chapters.ch02_dp_vs_definetti: the declaration and the claim measurements.

The measure functions get small hand-made summaries whose verdicts can be
read off by eye (accuracies chosen so that each claim holds or fails for a
known reason).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from anonlab.attacks import definetti
from anonlab.attacks.definetti import DeFinettiSweep, Fig4, definetti_attack_records, definetti_sweep, fig4_of, \
    kept_run, moves_check, replay_sweep_run
from anonlab.attacks.naive_bayes import NaiveRun, naive_attack, naive_attack_records, nonmember_naive_bayes, \
    nonmember_table, median_of_means, report_epsilon, summarize_attack, tradeoff_table
from anonlab.intervals import mean_interval, t_interval
from anonbook.chapters import ch02_dp_vs_definetti as ch
from anonbook.chapters import kit
from anonlab.claims import Measurement
from anonbook.figures import cormode as figures
from anonlab.measures import majority_baseline, score, wilson_interval
from anonlab.mechanisms.anatomy import anatomy_checks, anatomy_limits
from anonlab.mechanisms.dp import corner_means, encode_table, encode_train_test, noise_by_epsilon, noise_check
from anonlab.validation import ParameterError

# ---------------------------------------------------------------- fixtures


def _frame(n: int = 600, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.integers(0, 4, n), "b": rng.integers(0, 3, n), "c": rng.integers(0, 2, n)})
    df["s"] = (df["a"] * 2 + rng.integers(0, 3, n)) % 6
    df["t"] = (df["b"] + df["c"]) % 3
    return df.astype(str)


@pytest.fixture(scope="module")
def tables():
    df = _frame()
    train, test = df.iloc[:400], df.iloc[400:]
    return {"s": encode_train_test(train, test, ["a", "b", "c", "t"], "s")}


def _naive_run(acc_by_eps: dict[float, float], test_shift: float = 0.0, share: float = 0.1,
               conf_acc: float = 0.9, n: int = 1000) -> NaiveRun:
    """A NaiveRun of two draws per ε whose accuracy is the given one ± 0.01 (train; test ``test_shift`` lower)."""
    rows = []
    for split, shift in (("train", 0.0), ("test", test_shift)):
        for eps, a in acc_by_eps.items():
            for draw, d in ((0, -0.01), (1, 0.01)):
                rows.append({"epsilon": eps, "split": split, "draw": draw, "n": n, "accuracy": a - shift + d,
                             "n_confident": share * n, "confident_share": share, "confident_accuracy": conf_acc})
    res = pd.DataFrame(rows)
    return NaiveRun(results=res, summary=summarize_attack(res), seconds=1.0)


GRID = [0.01, 0.1, 1.0, 10.0]
SMOOTH = {0.01: 0.20, 0.1: 0.26, 1.0: 0.31, 10.0: 0.34, math.inf: 0.341}


# ---------------------------------------------------------------- declaration


def test_the_quick_preset_and_the_defaults_are_valid():
    p = ch.CHAPTER.quick_parameters()
    assert p["l_grid"] == [2, 3] and p["iterations"] == 30
    assert ch.CHAPTER.parameters.validate({})["l_grid"] == [2, 3, 4, 5, 6, 7]


@pytest.mark.parametrize("bad, message", [
    ({"l_grid": [50]}, "l_grid"),  # above Param's bound and above l_max
    ({"l_grid": [2, 8]}, "largest feasible l-diversity of 'occupation' on this data, 7"),
    ({"definetti_sensitive": "marital_status", "l_grid": [2, 3]}, "feasible l-diversity of 'marital_status'"),
    ({"history": 200, "iterations": 100}, "history"),
    ({"sensitive_attributes": ["job"]}, "unknown attribute"),
    ({"quasi_identifiers": ["sex"]}, "at least 2"),
    ({"hours_buckets": [40, 25]}, "increasing"),
    ({"dataset": "internet"}, "internet_path"),
    ({"definetti_sensitive": "job"}, "definetti_sensitive"),
    ({"draws": 10_000}, "draws"),
    ({"iterations": 10**6}, "iterations"),
    ({"epsilons": [0.1, 0]}, "epsilons"),
    ({"threshold": 1.0}, "threshold"),
])
def test_the_declaration_refuses_what_cannot_work_before_the_run(bad, message):
    with pytest.raises(ParameterError, match=message):
        ch.CHAPTER.parameters.validate(bad)


def test_l_grid_is_not_checked_against_pinned_l_max_for_custom_buckets():
    # age_group's l_max depends on the buckets: only the run can tell
    ch.CHAPTER.parameters.validate({"definetti_sensitive": "age_group", "age_buckets": [30, 50],
                                    "l_grid": [2, 3]})
    with pytest.raises(ParameterError):
        ch.CHAPTER.parameters.validate({"definetti_sensitive": "age_group", "l_grid": [2, 4]})


def test_pinned_adult_l_max_matches_the_data():
    from anonlab.attacks.naive_bayes import bucketize
    from anonlab.data import load_adult
    from anonlab.mechanisms.anatomy import max_l_diversity

    d = load_adult("train")
    d["hours"] = bucketize(d["hours_per_week"], ch.DEFAULT_HOURS_BUCKETS)
    d["age_group"] = bucketize(d["age"], ch.DEFAULT_AGE_BUCKETS)
    assert set(ch.ADULT_L_MAX) == set(ch.COLUMNS["adult"])
    for col, l_max in ch.ADULT_L_MAX.items():
        assert max_l_diversity(d[col].dropna()) == l_max, col


def test_settings_fill_in_the_papers_choices_and_sort_the_grids():
    v = dict(ch.CHAPTER.parameters.defaults(), epsilons=[1, 0.1], l_grid=[3, 2, 3], group_multipliers=[2, 1])
    s = ch.settings(v)
    assert s.epsilons == [0.1, 1.0] and all(isinstance(e, float) for e in s.epsilons)
    assert s.l_grid == [2, 3] and s.multipliers == [1, 2]
    assert s.sensitive == ["occupation", "marital_status"] and s.definetti_sensitive == "occupation"
    assert s.tradeoff_attributes[0] == "education" and s.adult and s.paper_target
    s2 = ch.settings(dict(v, definetti_sensitive="marital_status", l_grid=[2]))
    assert not s2.paper_target


def test_check_l_grid():
    assert ch.check_l_grid([2, 3], 3, "s") == [2, 3]
    with pytest.raises(ParameterError, match="l = 4 .* 's' on this data, 3"):
        ch.check_l_grid([2, 4], 3, "s")
    with pytest.raises(ParameterError, match="parameter 'l_grid': l = 50 is above the largest feasible "
                                             "l-diversity of 'occupation' on this data, 7"):
        ch.check_l_grid([50], 7, "occupation")


# ---------------------------------------------------------------- §2.2


def test_noise_check_and_its_claims():
    t = encode_table(_frame(200), ["a", "b", "c"], "s")
    sens, corners = noise_check(t, 0, n_removed=5, corner_draws=20_000)
    assert sens.iloc[:, 1].tolist() == [4, 3] and sens.iloc[:, 2].tolist() == [4, 3]
    assert list(corners.columns[-2:]) == ["mean |noise| (20,000 draws)", "± (95% interval of the mean)"]
    # the mean |noise| approaches E|Z| = 2 alpha / (1 - alpha^2), within its interval
    means, half = corner_means(corners), corners["± (95% interval of the mean)"]
    np.testing.assert_allclose(means, corners["E|noise| (formula)"], rtol=0.05)
    assert ((means - corners["E|noise| (formula)"]).abs() < 2.5 * half).all()
    got = ch.measure_noise(sens, corners, t, n_removed=5)
    assert got["cormode.s2_2.sensitivity_m_plus_1"].value is True
    assert got["cormode.s2_2.sensitivity_reduced_to_m"].value is True
    assert got["cormode.s2_2.sensitivity_m_plus_1"].note == "m = 3; 5 tuples removed one at a time"
    noise = got["cormode.s2_2.noise_magnitude"]
    # the claim is decided on the expectation (the formula), the simulation is its check (in the note)
    assert noise.value == corners["E|noise| (formula)"].max() and noise.ci is None
    assert f"{means.max():.2f}" in noise.note
    g = ch.noise_numbers(noise_by_epsilon([0.1], [10]), corners)
    assert g["noise_formula"] == noise.value and g["noise_corner"] == means.max()
    # a wrong sensitivity is caught
    bad = sens.copy()
    bad.iloc[1, 2] = 4
    assert ch.measure_noise(bad, corners, t)["cormode.s2_2.sensitivity_reduced_to_m"].value is False


# ---------------------------------------------------------------- Figs 1-3


def test_majority_through_the_protocol_and_the_setup_table(tables):
    tr, te = tables["s"]
    base = score(majority_baseline(tr.sa_codes))
    top = np.bincount(tr.sa_codes).argmax()
    assert base.precision == np.mean(tr.sa_codes == top)
    assert base.precision_ci == tuple(float(x) for x in wilson_interval(int((tr.sa_codes == top).sum()), tr.n))
    row = figures.setup_table(tables).iloc[0]
    assert row["m"] == 4 and row["train tuples"] == 400 and row["majority baseline (train)"] == base.precision
    assert row["majority baseline (test)"] == np.mean(te.sa_codes == top)  # train's guess on test


def test_gradual_decrease_reads_the_trend():
    assert ch.gradual_decrease([0.2, 0.26, 0.31, 0.34]) is True
    assert ch.gradual_decrease([0.2, 0.2, 0.2, 0.32]) is False  # one step holds all the change
    assert ch.gradual_decrease([0.34, 0.31, 0.26, 0.2]) is False  # falls with eps
    assert ch.gradual_decrease([0.2, 0.21, 0.22, 0.5]) is False  # one abrupt step
    assert ch.gradual_decrease([0.2, 0.3, 0.4]) is None


def test_measure_fig1_on_hand_made_curves():
    tables = {"occupation": (_FakeTable(30718, 14), _FakeTable(15315, 14)),
              "marital_status": (_FakeTable(32561, 7), _FakeTable(16281, 7))}
    naive = {"occupation": _naive_run(SMOOTH, test_shift=0.004),
             "marital_status": _naive_run({e: a + 0.2 for e, a in SMOOTH.items()}, test_shift=-0.002)}
    got = ch.measure_fig1(naive, tables, GRID, adult=True, n_rows=0)
    assert got["cormode.s2_3.adult.n_tuples"].value == 30718
    assert got["cormode.fig1.occupation.n_categories"].value == 14
    base = got["cormode.fig1.occupation.majority_baseline"]
    assert base.value == pytest.approx(0.5) and base.n == 30718 and base.ci[0] < 0.5 < base.ci[1]
    assert got["cormode.fig1.accuracy_decreases_with_noise"].value is True
    # |acc(10) - acc(inf)| = 0.001 <= 0.005
    assert got["cormode.fig1.high_eps_equals_noiseless"].value is True
    assert "= 0.0010 at most (tolerance 0.005)" in got["cormode.fig1.high_eps_equals_noiseless"].note
    gap = got["cormode.fig1.train_test_gap"]  # paired per draw: every draw differs by the shift
    assert gap.value == pytest.approx(0.004) and gap.ci == pytest.approx((0.004, 0.004))
    assert "occupation, eps = " in gap.note
    occ = got["cormode.fig1.occupation.eps001_nontrivial"]
    assert occ.value == pytest.approx(0.20) and occ.ci[0] < 0.19 and occ.ci[1] > 0.21  # draws 0.19 and 0.21
    assert occ.ci == pytest.approx(mean_interval(np.array([0.19, 0.21])))
    assert got["cormode.fig1.marital.eps001_nontrivial"].value == pytest.approx(0.40)
    # without 0.01 in the grid the claim is not measured
    no001 = {sa: _naive_run({e: a for e, a in SMOOTH.items() if e != 0.01}) for sa in naive}
    got = ch.measure_fig1(no001, tables, GRID[1:], adult=True, n_rows=0)
    assert got["cormode.fig1.occupation.eps001_nontrivial"] == Measurement(None, note="0.01 not in the grid")
    assert got["cormode.fig1.accuracy_decreases_with_noise"].value is None  # three eps only
    # a noiseless classifier far above the top eps fails the claim
    far = {sa: _naive_run({**SMOOTH, math.inf: 0.40}) for sa in naive}
    assert ch.measure_fig1(far, tables, GRID, adult=True, n_rows=0)[
        "cormode.fig1.high_eps_equals_noiseless"].value is False


def test_measure_fig1_internet_records_figure_2():
    tables = {"Household Income": (_FakeTable(1000, 9), None)}
    got = ch.measure_fig1({"Household Income": _naive_run(SMOOTH)}, tables, GRID, adult=False, n_rows=10108)
    assert set(got) == {"cormode.fig2.income.n_categories", "cormode.fig2.income.majority_baseline",
                        "cormode.fig2.trend", "cormode.s2_3.internet.n_tuples"}
    assert got["cormode.fig2.trend"].value is True and got["cormode.s2_3.internet.n_tuples"].value == 10108


class _FakeTable:
    """Just what measure_fig1 reads of an EncodedTable: n, n_sa, the codes (half are the majority)."""

    def __init__(self, n: int, n_sa: int):
        self.n, self.n_sa = n, n_sa
        self.sa_codes = np.where(np.arange(n) % 2 == 0, 0, 1 + np.arange(n) % (n_sa - 1))


def test_measure_fig3_takes_the_median_over_the_grid():
    naive = {"occupation": _naive_run(SMOOTH, share=0.014, conf_acc=0.85),
             "marital_status": _naive_run(SMOOTH, share=0.25, conf_acc=0.80)}
    got, numbers = ch.measure_fig3(naive, adult=True, seed=0)
    share = got["cormode.fig3.adult_occupation.confident_share"]
    assert share.value == pytest.approx(0.014) and share.ci == pytest.approx((0.014, 0.014))  # no spread
    assert got["cormode.fig3.confident_accuracy_085"].ci == pytest.approx((0.85, 0.85))
    assert got["cormode.fig3.adult_marital.confident_count"].value == pytest.approx(250)
    assert got["cormode.fig3.confident_more_accurate"].value is True
    assert got["cormode.fig3.confident_accuracy_085"].value == pytest.approx(0.85)
    assert numbers["conf_share_last"] == pytest.approx(0.25)
    # the confident subset less accurate than all tuples somewhere: the claim fails
    worse = dict(naive, marital_status=_naive_run(SMOOTH, share=0.25, conf_acc=0.3))
    assert ch.measure_fig3(worse, adult=True, seed=0)[0]["cormode.fig3.confident_more_accurate"].value is False


def test_median_of_means_has_a_bootstrap_interval_over_the_draws():
    rows = [{"epsilon": e, "split": "train", "draw": d, "confident_share": 0.1 * k + 0.01 * d}
            for k, e in enumerate([0.1, 1.0, 10.0]) for d in range(4)]
    run = NaiveRun(pd.DataFrame(rows), pd.DataFrame(), 0.0)
    value, ci = median_of_means(run, "confident_share", seed=1)
    assert value == pytest.approx(0.115)  # the middle eps, mean of 0.10 ... 0.13
    assert 0.10 <= ci[0] < 0.115 < ci[1] <= 0.13
    assert median_of_means(run, "confident_share", seed=1) == (value, ci)  # seeded


def test_measure_timing_and_internet_unavailable():
    got = ch.measure_timing(0.25, adult=True, target="occupation")
    assert got["cormode.timing.adult"].value == 0.25 and "target occupation" in got["cormode.timing.adult"].note
    assert set(ch.measure_timing(1.0, adult=False, target="x")) == {"cormode.timing.internet"}
    un = ch.internet_unavailable(True)
    assert len(un) == 12 and all(m.value is None for m in un.values())
    assert ch.internet_unavailable(False) == {}


# ---------------------------------------------------------------- Anatomy and Fig. 4


def test_anatomy_checks_and_claims():
    t = encode_table(_frame(300), ["a", "b"], "s")
    l_max, top = anatomy_limits(t.sa_codes)
    assert l_max == int(t.n // np.bincount(t.sa_codes).max()) and top == np.bincount(t.sa_codes).max() / t.n
    checks = anatomy_checks(t.sa_codes, [2, 3], [1, 2], seed=0)
    assert len(checks) == 4 and checks.loc[checks["multiplier"] == 1, "tight"].all()
    got = ch.measure_anatomy(checks, l_max, top, paper_target=True)
    assert got["cormode.s3_1.anatomy.groups"].value is True
    assert got["cormode.s3_1.anatomy.uniform_bound"].value is True
    broken = checks.assign(**{"max uniform belief": checks["1/l"] + 0.1})
    assert ch.measure_anatomy(broken, l_max, top, paper_target=True)[
        "cormode.s3_1.anatomy.uniform_bound"].value is False
    assert ch.measure_anatomy(checks, l_max, top, paper_target=False) == {}


def _fig4(perm, group, open_, L=(2, 3, 4, 5, 6, 7), mults=(1, 2, 3), noiseless=0.34, share=None):
    """A Fig4 whose mean accuracy is perm(l, mult), group(l, mult), open_(l, mult)."""
    rows = []
    for mult in mults:
        for l in L:  # noqa: E741
            for m, f in (("permutation", perm), ("group", group), ("open", open_)):
                a = f(l, mult)
                rows.append({"multiplier": mult, "l": l, "group_size": l * mult, "method": m,
                             "accuracy_min": a - 0.01, "accuracy_mean": a, "accuracy_max": a + 0.01,
                             "accuracy_sd": 0.01, "repetitions": 5,
                             "confident_share_mean": (share or (lambda l, mu: 0.5 / l))(l, mult),
                             "confident_accuracy_mean": 0.9, "final_l1_mean": 0.0})
    return Fig4(pd.DataFrame(rows), noiseless, list(L), list(mults))


def test_measure_fig4_reads_the_papers_reading_of_fig4():
    # permutation ahead at small l, group ahead at large l; both decrease; 2l groups closer to 1/l
    perm = lambda l, mu: 1 / l + 0.3 / mu - 0.02 * l  # noqa: E731
    group = lambda l, mu: 1 / l + 0.3 / mu - 0.025 * l + (0.05 if l >= 6 else -0.02)  # noqa: E731
    open_ = lambda l, mu: 0.30  # noqa: E731
    f = _fig4(perm, group, open_)
    got = ch.measure_fig4(f, adult=True, paper_target=True)
    assert got["cormode.fig4a.agrees_with_kifer"].value is True
    assert got["cormode.fig4a.above_1_over_l"].value is True
    assert "at or below 1/l for l in [2, 3]" in got["cormode.fig4a.above_1_over_l"].note
    assert got["cormode.fig4a.open_le_noiseless"].value is True
    assert got["cormode.fig4a.perm_vs_group"].value is True
    l7 = got["cormode.fig4a.l7_below_30pct"]
    assert l7.value == pytest.approx(f.best(1, 7)) and f.best_method(1, 7) == "group"
    assert l7.ci == pytest.approx(t_interval(f.best(1, 7), 0.01, 5)) and "(group)" in l7.note
    wide = Fig4(f.summary.assign(accuracy_sd=0.5, repetitions=2), f.noiseless, f.l_grid, f.multipliers)
    assert wide.interval(1, 7, "group") == (0.0, 1.0)  # an accuracy's interval stays in [0, 1]
    one = Fig4(f.summary.assign(repetitions=1, accuracy_sd=np.nan), f.noiseless, f.l_grid, f.multipliers)
    assert all(math.isnan(x) for x in one.interval(1, 7, "group")) and one.interval(9, 7, "group") is None
    assert got["cormode.fig4b.above_1_over_l_smaller_margin"].value is True
    assert got["cormode.fig4b.below_noiseless_at_l5"].value is True  # best(2, 5) = open 0.30 < 0.34
    assert got["cormode.fig4b.group_dominates_perm"].value is False  # group behind at small l
    # size-3l permutation: 1/l + 0.1 - 0.02 l, at most 0.06 away from 1/l (l = 2): above 0.03
    assert got["cormode.fig4.merge3_perm_about_1_over_l"].value is False
    assert "largest |mean - 1/l| 0.0600" in got["cormode.fig4.merge3_perm_about_1_over_l"].note
    assert got["cormode.fig4.merge3_perm_about_1_over_l"].conditions is None  # no per-repetition rows: no intervals
    assert got["cormode.s3_2.high_confidence_dwindles"].value is True
    assert got["cormode.s3_3.large_params_1_over_l"].value is False  # l = 6, size 12: open 0.30 > 1/6 + 0.03
    assert got["cormode.fig4a.decreases_with_l"].value is False  # group jumps up at l = 6


def _with_runs(f: Fig4, spread: float) -> Fig4:
    """``f`` with five repetitions per configuration: its mean ± spread·(−2, −1, 0, 1, 2)."""
    rows = [{"multiplier": r.multiplier, "l": r.l, "repetition": i, "method": r.method,
             "accuracy": r.accuracy_mean + spread * d} for r in f.summary.itertuples()
            for i, d in enumerate((-2, -1, 0, 1, 2))]
    return replace(f, runs=pd.DataFrame(rows))


def test_monte_carlo_holds_claims_of_fig4_are_decided_on_the_repetitions_intervals():
    """Issue 35: below_noiseless_at_l5, merge3 and large_params keep every repetition and are decided on
    the t intervals; with the same means, a wide spread makes them inconclusive."""
    from anonlab.claims import claim, decide
    from anonlab.claims.recorder import _reading_entry

    perm = lambda l, mu: 1 / l + (0.0 if mu == 3 else 0.3 / mu ** 2)  # noqa: E731  size 3l: exactly 1/l
    group = lambda l, mu: 1 / l + (0.0 if mu >= 2 else 0.2)  # noqa: E731
    open_ = lambda l, mu: 0.33  # noqa: E731  best at l = 5, size 10: 0.33 against the noiseless 0.34
    base = _fig4(perm, group, open_)
    ids = ("cormode.fig4b.below_noiseless_at_l5", "cormode.fig4.merge3_perm_about_1_over_l")
    verdicts = {}
    for spread in (0.001, 0.02):
        got = ch.measure_fig4(_with_runs(base, spread), adult=True, paper_target=True)
        m = got["cormode.fig4b.below_noiseless_at_l5"]
        assert m.value is True and m.conditions[0].high == pytest.approx(0.34)
        assert m.conditions[0].values == pytest.approx([0.33 + spread * d for d in (-2, -1, 0, 1, 2)])
        merge = got["cormode.fig4.merge3_perm_about_1_over_l"]
        assert [k.label for k in merge.conditions] == [f"l = {l}, size {3 * l}" for l in base.l_grid]
        for cid in ids:
            entry = _reading_entry(cid, got[cid].value, None, None, got[cid].conditions)
            verdicts[cid, spread] = decide(claim(cid), entry)
    assert verdicts[ids[0], 0.001] == "reproduced" and verdicts[ids[0], 0.02] == "inconclusive"
    assert verdicts[ids[1], 0.001] == "reproduced" and verdicts[ids[1], 0.02] == "inconclusive"


#: Issue 35: chapter 2's other Monte Carlo holds claims, decided on the t intervals of their comparisons.
SEVEN = ("cormode.fig4a.above_1_over_l", "cormode.fig4a.decreases_with_l", "cormode.fig4a.perm_vs_group",
         "cormode.fig4b.group_dominates_perm", "cormode.fig4b.above_1_over_l_smaller_margin",
         "cormode.fig4a.open_le_noiseless", "cormode.s3_2.high_confidence_dwindles")


def _seven_means(broken: str | None = None):
    """Means under which the seven claims hold (Fig. 4's shape), or with the statement of ``broken`` turned round."""
    def perm(l, mu):  # noqa: E741
        if mu == 2:
            return 1 / l + 0.15 - 0.01 * l + (0.2 if broken == "cormode.fig4b.above_1_over_l_smaller_margin" else 0)
        up = 0.1 if broken == "cormode.fig4a.decreases_with_l" and l == 4 else 0.0
        return 1 / l + 0.3 / mu - 0.01 * l + up

    def group(l, mu):  # noqa: E741
        if mu == 2:
            return perm(l, 2) + (-0.05 if broken == "cormode.fig4b.group_dominates_perm" else 0.01)
        if broken == "cormode.fig4a.above_1_over_l" and mu == 1 and l == 7:
            return 1 / 7 - 0.05
        lead = 0.02 if broken == "cormode.fig4a.perm_vs_group" else -0.02
        return perm(l, mu) + (lead if l <= 3 else -lead if l >= 6 else 0.0)

    open_ = 0.40 if broken == "cormode.fig4a.open_le_noiseless" else 0.30
    share = (lambda l, mu: 0.1 * l) if broken == "cormode.s3_2.high_confidence_dwindles" else (lambda l, mu: 0.5 / l)
    return _fig4(perm, group, lambda l, mu: open_, noiseless=0.34, share=share)


def _noisy_runs(f: Fig4, spread: float) -> Fig4:
    """``f`` with five repetitions per configuration, mean ± spread·(−2, −1, 0, 1, 2) in an order that turns with
    the configuration (so the repetition-by-repetition differences of two configurations vary too)."""
    d = (-2, -1, 0, 1, 2)
    rows = [{"multiplier": r.multiplier, "l": r.l, "repetition": i, "method": r.method,
             "accuracy": r.accuracy_mean + spread * d[(i + k) % 5],
             "confident_share": r.confident_share_mean + spread * d[(i + 2 * k) % 5],
             "confident_accuracy": r.confident_accuracy_mean + spread * d[(i + 3 * k) % 5]}
            for k, r in enumerate(f.summary.itertuples()) for i in range(5)]
    return replace(f, runs=pd.DataFrame(rows))


def _seven_verdicts(f: Fig4) -> dict[str, str]:
    from anonlab.claims import claim, decide
    from anonlab.claims.recorder import _reading_entry

    got = ch.measure_fig4(f, adult=True, paper_target=True)
    assert all(got[cid].conditions for cid in SEVEN)  # each is recorded with its comparisons
    return {cid: decide(claim(cid), _reading_entry(cid, got[cid].value, None, None, got[cid].conditions))
            for cid in SEVEN}


def test_the_seven_holds_claims_hold_when_every_interval_lies_on_the_claims_side():
    assert _seven_verdicts(_noisy_runs(_seven_means(), 0.001)) == dict.fromkeys(SEVEN, "reproduced")


def test_the_seven_holds_claims_are_inconclusive_when_the_intervals_straddle_their_bars():
    """The same means, repetitions spread too widely to decide any comparison."""
    f = _noisy_runs(_seven_means(), 0.3)
    assert ch.measure_fig4(f, adult=True, paper_target=True)["cormode.fig4a.above_1_over_l"].value is True
    assert _seven_verdicts(f) == dict.fromkeys(SEVEN, "inconclusive")


@pytest.mark.parametrize("cid", SEVEN)
def test_each_holds_claim_fails_when_an_interval_lies_wholly_on_the_other_side(cid):
    assert _seven_verdicts(_noisy_runs(_seven_means(broken=cid), 0.001))[cid] == "not reproduced"


def test_fig4_of_keeps_each_repetitions_confident_predictions():
    """high_confidence_dwindles reads the share and accuracy of each repetition's confident predictions."""
    t = encode_table(_frame(300), ["a", "b"], "s")
    sweep = definetti_sweep(t, [2], multipliers=[1], repetitions=2, iterations=6, history=2, seed=3)
    f = fig4_of(sweep, t, [2], [1])
    for col in ("confident_share", "confident_accuracy"):
        want = sweep.results[(sweep.results["method"] == "group")].sort_values("repetition")[col].tolist()
        assert ch._per_rep(f, 1, 2, "group", col) == pytest.approx(want, nan_ok=True) and len(want) == 2


def test_every_reading_runs_as_many_repetitions_as_the_default():
    defaults = ch.CHAPTER.parameters.defaults()
    assert ch.reading_repetitions(defaults) == defaults["repetitions"] == 5


def test_measure_fig4_small_grids_are_not_run():
    f = _fig4(lambda l, mu: 0.5, lambda l, mu: 0.45, lambda l, mu: 0.3, L=(2, 3), mults=(1, 2))
    got = ch.measure_fig4(f, adult=True, paper_target=True)
    assert got["cormode.fig4a.perm_vs_group"] == Measurement(None, note="needs l = 2 and l >= 6 in the grid")
    assert got["cormode.fig4a.l7_below_30pct"].value is None
    assert got["cormode.fig4a.decreases_with_l"].value is None
    assert got["cormode.fig4b.below_noiseless_at_l5"].value is None
    assert "cormode.fig4.merge3_perm_about_1_over_l" not in got
    assert got["cormode.s3_3.large_params_1_over_l"].value is None
    assert ch.measure_fig4(f, adult=True, paper_target=False) == {}
    internet = ch.measure_fig4(f, adult=False, paper_target=False)
    assert set(internet) == {"cormode.fig5a.open_le_noiseless", "cormode.fig5b.l4_equals_noiseless",
                             "cormode.fig5.merge3_below_1_over_l"}
    assert internet["cormode.fig5a.open_le_noiseless"].value is True


def test_plateau_convergence_and_its_claims():
    flat = np.r_[np.linspace(5, 1, 50), np.ones(50)]
    assert definetti.plateau(flat) and not definetti.plateau(np.linspace(5, 1, 100))
    assert definetti.plateau(np.zeros(20))
    assert definetti.plateau([5.0, 4.0, 3.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.05])  # last tenth within 10% of the one before
    assert not definetti.plateau([5.0, 4.0, 3.0, 2.0, 1.0, 0.9, 0.8, 0.7, 0.6, 0.5])
    traces = pd.concat([pd.DataFrame({"l": 2, "multiplier": 1, "repetition": r, "iteration": np.arange(1, 101),
                                      "l1": flat if r else np.linspace(5, 1, 100)}) for r in range(2)])
    results = pd.DataFrame({"multiplier": 1, "l": 2, "method": ["group", "group", "open", "open"],
                            "repetition": [0, 1, 0, 1], "accuracy": [0.50, 0.53, 0.30, 0.30]})
    conv, spread = ch.convergence(DeFinettiSweep(results, traces))
    assert conv.tolist() == [False, True]
    assert spread.loc[(1, 2, "group")] == pytest.approx(0.03)
    got = ch.measure_convergence(conv, spread, repetitions=2, paper_target=True)
    assert got["cormode.s3_2.convergence"].value is False  # 50% is not most runs
    assert got["cormode.s3_2.repetition_spread"].value is False  # one of two configurations: not a majority
    assert "50% of the 2 configurations" in got["cormode.s3_2.repetition_spread"].note
    assert "0.0300 (size 1l, l = 2, group)" in got["cormode.s3_2.repetition_spread"].note
    assert ch.measure_convergence(conv, spread, repetitions=1, paper_target=True)[
        "cormode.s3_2.repetition_spread"].value is None


def test_measure_headline_compares_the_two_attacks():
    f = _fig4(lambda l, mu: 0.30 if l == 7 else 0.5 / mu, lambda l, mu: 0.2, lambda l, mu: 0.2)
    nd = _naive_run({0.01: 0.2, 0.1: 0.31, 1.0: 0.335}).summary
    nd = nd[nd["split"] == "train"]
    got = ch.measure_headline(nd, f, paper_target=True)
    assert got["cormode.fig4a.l7_below_naive_dp"].value is True  # 0.30 < 0.31
    assert got["cormode.s3_3.dp_can_be_more_susceptible"].value is True
    assert got["cormode.abstract.similar_accuracy"].value is True  # 0.31 vs 0.30: 0.01 apart
    note = got["cormode.abstract.similar_accuracy"].note
    assert "eps = 0.1 (0.310)" in note and "l = 7, groups of size l" in note and "0.0100 apart, within the 0.02" in note
    assert ch.headline_numbers(nd) == {"naive_usual_lo": 0.31, "naive_usual_hi": 0.335}
    out = nd[nd["epsilon"] < 0.1]  # no eps in [0.1, 1]
    got = ch.measure_headline(out, f, paper_target=True)
    assert got["cormode.fig4a.l7_below_naive_dp"].value is None
    assert got["cormode.abstract.similar_accuracy"].value is None


# ---------------------------------------------------------------- attacks on the yardstick


def test_naive_attack_records_are_draw_zero_of_fig1():
    df = _frame(500)
    tr, te = encode_train_test(df.iloc[:400], df.iloc[400:], ["a", "b", "c"], "s")
    tables = {"s": (tr, te)}
    kw = dict(draws=3, noise="geometric", threshold=0.5, dirichlet=False, seed=7)
    recs = naive_attack_records(tables, [0.1, 1.0], **kw)
    assert list(recs) == ["naive Bayes on ε-DP counts (ε = 1), s", "naive Bayes on ε-DP counts (ε = 1), s, belief > 0.5"]
    res, base = recs["naive Bayes on ε-DP counts (ε = 1), s"]
    fig1 = naive_attack(tr, [0.1, 1.0, math.inf], targets={"train": tr}, draws=3, threshold=0.5, seed=7)
    row = fig1[(fig1["epsilon"] == 1.0) & (fig1["draw"] == 0)].iloc[0]
    assert score(res).precision == row["accuracy"]
    high, _ = recs["naive Bayes on ε-DP counts (ε = 1), s, belief > 0.5"]
    assert score(high).n_predictions == row["n_confident"]
    # the baseline is the same classifier fitted on the test tuples (non-members), predicting the same targets
    assert base.baseline_kind == "non-member model" and base.targets.tolist() == res.targets.tolist()
    assert score(base).precision == score(nonmember_naive_bayes(tr, te)).precision
    _, base_none = naive_attack_records({"s": (tr, None)}, [0.1, 1.0], **kw)["naive Bayes on ε-DP counts (ε = 1), s"]
    assert base_none.baseline_kind == "majority prior"  # no non-members: the weaker prior, marked as such
    assert score(base_none).precision == score(majority_baseline(tr.sa_codes)).precision
    table = figures.attack_yardstick(recs)
    assert table["targets"].tolist() == [400, 400] and table.loc[res.attack, "coverage"] == 1.0


def test_definetti_attack_records_replay_the_sweep():
    t = encode_table(_frame(300), ["a", "b"], "s")
    kw = dict(repetitions=2, iterations=12, history=4, moves_per_iteration=1, seed=3)
    assert kept_run([2, 7, 3], [2, 1]) == (7, 1, 0)
    sweep = definetti_sweep(t, [2, 3], multipliers=[1, 2], threshold=0.8, keep=[kept_run([2, 3], [1, 2])], **kw)
    recs = definetti_attack_records(t, sweep, [2, 3], [1, 2])
    assert len(recs) == 3
    # the kept run is the run the replay gives
    replay = replay_sweep_run(t, [2, 3], [1, 2], l=3, multiplier=1, repetition=0, **kw)
    np.testing.assert_array_equal(replay.predictions["group"], sweep.kept[(3, 1, 0)].predictions["group"])
    with pytest.raises(ValueError, match="did not keep"):
        definetti_attack_records(t, definetti_sweep(t, [2, 3], multipliers=[1, 2], **kw), [2, 3], [1, 2])
    row = sweep.results[(sweep.results["l"] == 3) & (sweep.results["multiplier"] == 1)
                        & (sweep.results["repetition"] == 0)].set_index("method")
    for name, (res, base) in recs.items():
        method = name.split("(")[1].split(" method")[0]
        assert score(res).precision == row.loc[method, "accuracy"]
    # the replay of a later group size runs the earlier one first, as the sweep does
    res2 = replay_sweep_run(t, [2, 3], [1, 2], l=2, multiplier=2, repetition=1, **kw)
    sc = res2.scores(t.sa_codes).set_index("method")
    r2 = sweep.results[(sweep.results["l"] == 2) & (sweep.results["multiplier"] == 2)
                       & (sweep.results["repetition"] == 1)].set_index("method")
    pd.testing.assert_series_equal(sc["accuracy"], r2["accuracy"])
    with pytest.raises(ValueError, match="must be in l_grid"):
        replay_sweep_run(t, [2, 3], [1, 2], l=4, multiplier=1, **kw)
    with pytest.raises(ValueError, match="cannot be replayed"):
        replay_sweep_run(t, [2, 3], [1, 2], l=2, multiplier=1, **{**kw, "seed": None})


def test_report_epsilon_and_grid_seconds():
    assert report_epsilon([0.01, 0.1, 1.0, 10.0]) == 1.0
    assert report_epsilon([0.5, 2.0]) == 0.5  # equally far on a log scale: the smaller
    naive = {"a": _naive_run(SMOOTH), "b": _naive_run(SMOOTH)}
    assert ch.grid_seconds(naive, GRID) == pytest.approx(2.0 / 8)


def test_tradeoff_glue_and_moves_check():
    ts = pd.DataFrame({0.1: [0.2, 0.3, 0.25], math.inf: [0.2, 0.31, 0.33]},
                      index=pd.MultiIndex.from_tuples([(1, "x"), (2, "y"), (3, "z")], names=["m", "added"]))
    assert ch.tradeoff_numbers(ts) == {"trade_eps": 0.1, "trade_best_m": 2, "trade_best_m_exact": 3,
                                    "trade_loss": pytest.approx(0.05), "trade_all_m": 3}
    base = pd.DataFrame({"multiplier": 1, "l": 7, "repetition": [0, 1, 0, 1],
                         "method": ["group", "group", "permutation", "permutation"],
                         "accuracy": [0.30, 0.40, 0.31, 0.33]})
    more = base.assign(accuracy=[0.35, 0.37, 0.36, 0.36])
    per_rep, nums = moves_check(DeFinettiSweep(base, pd.DataFrame()), DeFinettiSweep(more, pd.DataFrame()),
                                   l_top=7, moves=1, more_moves=7)
    assert nums["moves_spread_base"] == pytest.approx(0.10) and nums["moves_spread_more"] == pytest.approx(0.02)
    assert nums["moves_best_more"] == pytest.approx((0.36 + 0.37) / 2) and per_rep.shape == (4, 2)
    skipped, nums = moves_check(DeFinettiSweep(base, pd.DataFrame()), None, l_top=7, moves=1, more_moves=0)
    assert skipped is None and math.isnan(nums["moves_spread_more"]) and nums["check_moves"] == 0


def test_nonmember_table_uses_eq6():
    tables = {"s": (_FakeTable(1000, 4), _FakeTable(500, 4))}
    naive = {"s": _naive_run({0.1: 0.40, 1.0: 0.50}, test_shift=0.1)}
    nm = nonmember_table(naive, tables)
    # PI = (P_members - P_non-members) / (1 - P_non-members) = (0.5 - 0.4) / 0.6
    assert nm.loc[nm["epsilon"] == 1.0, "PI"].iloc[0] == pytest.approx(0.1 / 0.6)
    assert ch.nonmember_numbers(nm)["pi_max"] == pytest.approx(max(0.1 / 0.7, 0.1 / 0.6))
    assert math.isnan(ch.nonmember_numbers(pd.DataFrame())["pi_max"])


def test_many_cases_is_read_as_most_configurations():
    spread = pd.Series([0.0, 0.01, 0.02, 0.15], index=pd.MultiIndex.from_tuples(
        [(1, 2, "group"), (1, 2, "open"), (1, 3, "group"), (3, 7, "group")], names=["multiplier", "l", "method"]))
    assert ch.spread_share(spread) == 0.75
    got = ch.measure_convergence(pd.Series([True, True]), spread, repetitions=2, paper_target=True)
    m = got["cormode.s3_2.repetition_spread"]
    assert m.value is True and m.alternatives is None  # one reading: the largest spread is only reported
    assert "75% of the 4 configurations" in m.note and "0.1500 (size 3l, l = 7, group)" in m.note
    half = ch.measure_convergence(pd.Series([True]), spread.iloc[[0, 3]], repetitions=2, paper_target=True)
    assert half["cormode.s3_2.repetition_spread"].value is False  # half is not a majority


def test_with_choices_records_every_reading_with_its_interval():
    from anonlab import claims

    measured = {cid: ch.Measurement(True) for cid in ch.choice_claims()}
    measured["cormode.fig4a.l7_below_30pct"] = ch.Measurement(0.31, ci=(0.29, 0.33), note="n")
    alts = {label: {cid: ch.Measurement(False) for cid in ch.choice_claims()} for label in ch.ALTERNATIVE_RUNS}
    for label in alts:
        alts[label]["cormode.fig4a.l7_below_30pct"] = ch.Measurement(0.28, ci=(0.25, 0.31))
    got = ch.with_choices(measured, alts)
    assert set(got) == set(ch.choice_claims())
    for cid in ch.choice_claims():
        c = claims.claim(cid)
        assert sorted(got[cid].alternatives) == sorted(c.alternatives()) == sorted(ch.READINGS), cid
        assert c.monte_carlo and c.choices[0]["default"] == ch.DEFAULT_READING
        assert got[cid].alternatives[ch.DEFAULT_READING].value == measured[cid].value
    l7 = got["cormode.fig4a.l7_below_30pct"]
    assert l7.alternatives[ch.DEFAULT_READING] == ch.Measurement(0.31, ci=(0.29, 0.33)) and l7.note == "n"
    assert all(a.ci == (0.25, 0.31) for k, a in l7.alternatives.items() if k != ch.DEFAULT_READING)
    assert ch.with_choices({"cormode.fig4a.l7_below_30pct": ch.Measurement(None)}, alts) == {}
    assert ch.with_choices(measured, {}) == {}
    # the readings: both choices, alone and together
    assert set(ch.READINGS.values()) == {((), "random"), ((), "stable"), (("marital_status",), "random"),
                                         (("marital_status",), "stable")}
    assert ch.READINGS[ch.DEFAULT_READING] == ((), "random") and ch.DEFAULT_READING not in ch.ALTERNATIVE_RUNS


def test_claims_of_one_figure_share_their_readings():
    """One reading per figure: every claim measured on the deFinetti sweep lists the same readings."""
    from anonlab import claims

    swept = [claims.claim(cid) for cid in ch.choice_claims()]
    assert all(c.choices == swept[0].choices for c in swept)
    assert sorted(c.id.split(".")[1] for c in swept) == sorted(
        ["fig4a"] * 7 + ["fig4b"] * 3 + ["fig4"] + ["s3_2"] * 3 + ["s3_3"])  # every claim measured on the sweep


def test_the_glued_verdicts_and_paper_values_name_this_chapters_claims():
    from anonlab import claims

    ours = {c.id for c in claims.chapter_claims(ch.NAME)}
    assert set(ch.VERDICTS.values()) <= ours and set(ch.PAPER.values()) <= ours
    assert all(k.startswith("v_") for k in ch.VERDICTS)
    unavailable = ch.internet_unavailable(True)
    assert len(unavailable) == 12 and all(m.value is None for m in unavailable.values())
    assert ch.internet_unavailable(False) == {}


def test_noise_by_epsilon_is_the_formula():
    t = noise_by_epsilon([0.1, 1.0], [3, 10])
    # 1/sinh(eps/m): the mean |noise| of the two-sided geometric
    np.testing.assert_allclose(t["m = 10"], [1 / np.sinh(0.01), 1 / np.sinh(0.1)])
    corners = pd.DataFrame({"E|noise| (formula)": [2.9, 99.998], "mean |noise| (10 draws)": [3.0, 100.2]})
    g = ch.noise_numbers(t, corners)
    assert g["noise_grid_m"] == 10 and g["noise_grid_hi"] > 99.99
    assert g["noise_corner"] == 100.2 and g["noise_formula"] == 99.998
    assert noise_by_epsilon([0.5], [4], "laplace")["m = 4"].iloc[0] == 8.0


def test_fig4_of_a_partial_sweep_reads_nan_where_not_run():
    t = encode_table(_frame(300), ["a", "b"], "s")
    kw = dict(repetitions=1, iterations=6, history=2, seed=3)
    sweep = definetti_sweep(t, [2], multipliers=[2], **kw)
    f = fig4_of(sweep, t, [2, 3], [1, 2])
    assert len(f.summary) == 2 * 2 * 3
    assert math.isnan(f.acc(1, 2, "group")) and not math.isnan(f.acc(2, 2, "group"))
    full = fig4_of(definetti_sweep(t, [2, 3], multipliers=[1, 2], **kw), t, [2, 3], [1, 2])
    assert list(full.summary.columns) == list(f.summary.columns)


def _run(**p):
    """A run of the chapter with these parameters (on top of the defaults)."""
    return kit.ChapterRun(ch.CHAPTER, {**ch.CHAPTER.parameters.defaults(), **p})


def test_launch_sweeps_runs_every_reading_on_the_whole_grid():
    rng = np.random.default_rng(5)
    n = 420
    df = pd.DataFrame({c: rng.integers(0, k, n).astype(str) for c, k in
                       [("workclass", 3), ("education", 4), ("sex", 2), ("hours", 3), ("income", 2),
                        ("marital_status", 3)]})
    df["occupation"] = rng.integers(0, 7, n).astype(str)
    data = ch.Data(df, None, [])
    s = ch.Settings(dataset="adult", sensitive=["occupation"], qi_pool=ch.PAPER_SETTING["adult"]["qis"], epsilons=[1.0],
                    definetti_sensitive="occupation", l_grid=[2, 3, 4], multipliers=[1, 2],
                    tradeoff_epsilons=[1.0], tradeoff_attributes=["education"])
    table = ch.definetti_table(data, s)
    kw = dict(repetitions=3, iterations=6, history=2, moves_per_iteration=1, threshold=0.8, seed=9)
    run = _run(check_moves=2, use_cache=False, reading_repetitions=2, **kw)
    assert ch.reading_repetitions(run.p) == 2 and ch.reading_repetitions({**run.p, "repetitions": 1}) == 1
    sw = ch.launch_sweeps(run, data, s, table)()
    assert set(sw.alternatives) == set(ch.ALTERNATIVE_RUNS) and len(sw.alternatives) == 3
    marital = [sw.alternatives[k][0] for k, (extra, _) in ch.ALTERNATIVE_RUNS.items() if extra]
    assert len(marital) == 2 and marital[0] is marital[1]  # one table for the two readings that know marital status
    assert list(marital[0].qi_names) == list(table.qi_names) + ["marital_status"]
    assert sw.alternatives["§2.3 attributes, stable ties"][0] is table
    for label, (tab, res) in sw.alternatives.items():
        ran = set(map(tuple, res.results[["multiplier", "l", "repetition"]].drop_duplicates().to_numpy().tolist()))
        assert ran == {(mu, l, r) for mu in (1, 2) for l in (2, 3, 4) for r in (0, 1)}, label  # every l, every size
    # the main sweep is definetti_sweep's, and keeps the yardstick's run
    main = definetti_sweep(table, [2, 3, 4], multipliers=[1, 2], keep=[(4, 1, 0)],
                           **{k: v for k, v in kw.items()})
    cols = ["l", "multiplier", "repetition", "method", "accuracy"]
    pd.testing.assert_frame_equal(sw.main.results[cols], main.results[cols])
    assert list(sw.main.kept) == [(4, 1, 0)]
    assert set(sw.more.results["l"]) == {4} and set(sw.more.results["multiplier"]) == {1}
    # the choices table and the claims under every reading
    f4 = fig4_of(sw.main, table, s.l_grid, s.multipliers)
    nd = ch.headline_naive(table, [0.1, 1.0], draws=2, noise="geometric", seed=9)
    figs, meas = ch.measure_alternatives(sw, s, nd, draws=2, noise="geometric", seed=9, repetitions=2)
    assert set(meas) == set(ch.ALTERNATIVE_RUNS)
    assert {"cormode.fig4a.above_1_over_l", "cormode.s3_2.convergence", "cormode.s3_2.repetition_spread",
            "cormode.fig4a.decreases_with_l"} <= set(meas["§2.3 + marital status, stable ties"])
    t = figures.choice_table(f4, nd, figs, meas)
    assert list(t.columns) == [f"{ch.DEFAULT_READING} (default)", *ch.ALTERNATIVE_RUNS]
    assert math.isnan(t.iloc[0, 0])  # no l = 7 in this grid
    g = ch.choice_numbers(t)
    assert math.isnan(g["choice_l7_lo"]) and g["choice_naive_lo"] == t.loc[
        "naive attack, lowest mean for ε in [0.1, 1]"].min()
    assert all(math.isnan(v) for v in ch.choice_numbers(None).values())


def test_choice_numbers_give_the_ranges_over_the_readings():
    t = pd.DataFrame({"a": [0.31, 0.32], "b": [0.29, 0.33]},
                     index=["best method, l = 7", "naive attack, lowest mean for ε in [0.1, 1]"])
    g = ch.choice_numbers(t)
    assert (g["choice_l7_lo"], g["choice_l7_hi"]) == (0.29, 0.31)
    assert g["choice_margin_lo"] == pytest.approx(0.01) and g["choice_margin_hi"] == pytest.approx(0.04)


def test_the_sweeps_are_cached_through_the_run(tmp_path, monkeypatch):
    """With use_cache each sweep is stored under its own inputs; a second run computes nothing."""
    monkeypatch.setenv("ANONLAB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ANONLAB_RESULTS_DIR", raising=False)  # the results follow the data cache
    monkeypatch.delenv("ANONLAB_NO_CACHE", raising=False)
    rng = np.random.default_rng(1)
    df = pd.DataFrame({c: rng.integers(0, 3, 240).astype(str) for c in ch.PAPER_SETTING["adult"]["qis"]})
    s = ch.settings(dict(ch.CHAPTER.parameters.defaults(), l_grid=[2], group_multipliers=[1],
                         definetti_sensitive="education"))
    table = ch.definetti_table(ch.Data(df, None, []), s)
    kw = dict(repetitions=1, iterations=5, history=2, check_moves=2, use_cache=True)
    started = []
    real = definetti.start_sweeps
    monkeypatch.setattr(ch, "start_sweeps", lambda specs, **kw: started.append(len(specs)) or real(specs, **kw))
    first = ch.launch_sweeps(_run(**kw), ch.Data(df, None, []), s, table)()
    assert len(list((tmp_path / "results" / "ch02_definetti_sweep").iterdir())) == 2  # main and the rerun
    again = ch.launch_sweeps(_run(**kw), ch.Data(df, None, []), s, table)()
    assert started == [2, 0]
    pd.testing.assert_frame_equal(first.main.results, again.main.results)
    pd.testing.assert_frame_equal(first.more.traces, again.more.traces)
    ch.launch_sweeps(_run(**{**kw, "seed": 1}), ch.Data(df, None, []), s, table)()
    assert started == [2, 0, 2]  # other inputs, other keys
    ch.launch_sweeps(_run(**{**kw, "use_cache": False}), ch.Data(df, None, []), s, table)()
    assert started[-1] == 2  # the switch off: computed again

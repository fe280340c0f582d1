"""Chapter 8: counting mechanisms with partial knowledge, δ(ε), PPKDP vs APKDP (Desfontaines 2020, §3.1.3)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anonlab import claims
from anonbook import chapters
from anonbook.chapters import ch08_passive_active as ch
from anonlab.measures.privacy_loss import (
    PrivacyLossDistribution,
    delta,
    log_delta,
    logsumexp,
    mix,
    monte_carlo_delta,
    post_process,
    privacy_loss_distribution,
    same_privacy_loss,
)
from anonlab.mechanisms import queries
from anonlab.mechanisms.thresholding import (
    BOTTOM,
    CountingMechanism,
    conditional_distributions,
    dp_delta,
    exact_tally,
    geometric_log_cdf,
    tally_loss_samples,
    tally_partial_knowledge_delta,
    thresholded_tally,
)
from anonlab.validation import ParameterError

EPS = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0]
MECHS = [exact_tally(), thresholded_tally(8), thresholded_tally(8, 1.0, "count"),
         thresholded_tally(8, 0.7, "threshold"), CountingMechanism(None, 0.5, "count")]


# --- log-space arithmetic -------------------------------------------------------------

def test_logsumexp_matches_numpy_and_handles_minus_infinity():
    x = np.log(np.array([[0.2, 0.3], [0.1, 0.4]]))
    assert np.allclose(logsumexp(x, axis=0), np.log([0.3, 0.7]))
    assert logsumexp(np.array([-np.inf, -np.inf])) == -np.inf
    assert math.isclose(logsumexp(np.array([-1000.0, -1000.0])), -1000 + math.log(2))


def test_delta_hand_example():
    # P = (0.5, 0.5), Q = (0.25, 0.75): δ(0) = 0.25, δ(ln 2) = 0, losses ln 2 and ln(2/3)
    pld = privacy_loss_distribution(np.log([0.5, 0.5]), np.log([0.25, 0.75]))
    assert np.allclose(pld.loss, [math.log(2), math.log(2 / 3)])
    d = delta(pld, [0.0, 0.5, math.log(2)])
    assert np.allclose(d, [0.25, 0.5 * (1 - math.exp(0.5 - math.log(2))), 0.0])


def test_infinite_loss_counts_fully_and_at_epsilon_infinity():
    pld = privacy_loss_distribution(np.log([0.3, 0.7]), np.array([-np.inf, np.log(0.7)]))
    assert np.isposinf(pld.loss[0])
    assert np.allclose(delta(pld, [0.0, 5.0, np.inf]), [0.3, 0.3, 0.3])


def test_tiny_deltas_survive_in_log_space():
    # δ = 1e-400: zero in float64, exact in log space
    lp = np.array([-400 * math.log(10), math.log1p(-1e-300)])
    pld = PrivacyLossDistribution(lp, np.array([np.inf, 0.0]))
    assert delta(pld, [1.0])[0] == 0.0
    assert math.isclose(log_delta(pld, [1.0])[0] / math.log(10), -400)


def test_post_processing_and_mixture_keep_probability():
    labels, lp = post_process(np.array([1, 2, 3, BOTTOM]), np.log([0.1, 0.2, 0.3, 0.4]), lambda x: np.minimum(x, 2))
    assert labels.tolist() == [BOTTOM, 1, 2] and np.allclose(np.exp(lp), [0.4, 0.1, 0.5])
    labels, lp = mix(np.array([1, 2]), np.log([0.5, 0.5]), np.array([2, 3]), np.log([0.5, 0.5]), 0.5)
    assert labels.tolist() == [1, 2, 3] and np.allclose(np.exp(lp), [0.25, 0.5, 0.25])
    with pytest.raises(ParameterError, match="weight_a"):
        mix(labels, lp, labels, lp, 1.0)


# --- the mechanisms' exact distributions -----------------------------------------------

@pytest.mark.parametrize("mech", MECHS, ids=lambda m: m.label)
@pytest.mark.parametrize("b", [0, 3, 7, 10])
def test_output_distributions_sum_to_one(mech, b):
    d = conditional_distributions(mech, 15, 0.3, b)
    for t in (0, 1):
        assert abs(logsumexp(d.log_prob[t])) < 1e-10
    assert len(np.unique(d.labels)) == len(d.labels)


def test_exact_tally_privacy_loss_closed_form():
    """L(b + u) = ln[u (1 - p) / ((m - u + 1) p)] for the exact tally, Yes against No (u = 1..m)."""
    m, p, b = 12, 0.3, 4
    d = conditional_distributions(exact_tally(), m, p, b)
    pld_loss = d.log_prob[1] - d.log_prob[0]
    for u in range(1, m + 1):
        i = d.index(b + u)
        assert math.isclose(pld_loss[i], math.log(u * (1 - p) / ((m - u + 1) * p)), rel_tol=1e-10)
    assert np.isneginf(d.log_prob[1][d.index(b)])               # a tally of b rules Yes out
    assert np.isneginf(d.log_prob[0][d.index(b + m + 1)])       # a tally of b + m + 1 rules No out
    assert math.isclose(math.exp(d.log_prob[1][d.index(b + m + 1)]), p ** m)


def test_thresholded_distribution_by_hand():
    # m = 2 unknown, p = 1/2, b = 1, threshold 2: No -> T = 1 + U, Yes -> T = 2 + U
    d = conditional_distributions(thresholded_tally(2), 2, 0.5, 1)
    no = {int(l): math.exp(v) for l, v in zip(d.labels, d.log_prob[0])}
    yes = {int(l): math.exp(v) for l, v in zip(d.labels, d.log_prob[1])}
    assert no == pytest.approx({BOTTOM: 0.75, 3: 0.25, 4: 0.0})
    assert yes == pytest.approx({BOTTOM: 0.25, 3: 0.5, 4: 0.25})


def test_geometric_cdf():
    a = math.exp(-1.0)
    assert math.isclose(math.exp(geometric_log_cdf(np.array([0]), 1.0)[0]), 1 - a / (1 + a))
    assert math.isclose(math.exp(geometric_log_cdf(np.array([-3]), 1.0)[0]), a ** 3 / (1 + a))


def test_bad_mechanism_parameters_name_the_parameter():
    with pytest.raises(ParameterError, match="threshold"):
        CountingMechanism(threshold=-5)
    with pytest.raises(ParameterError, match="noise_epsilon"):
        thresholded_tally(3, noise_epsilon=0.0)
    with pytest.raises(ParameterError, match="noise_mode"):
        thresholded_tally(3, 1.0, "both")
    with pytest.raises(ParameterError, match="p"):
        tally_partial_knowledge_delta(exact_tally(), 10, 1.5, 2, EPS)
    with pytest.raises(ParameterError, match="known"):
        tally_partial_knowledge_delta(exact_tally(), 10, 0.5, 10, EPS)


# --- δ(ε): zeros, monotonicity, theorems ---------------------------------------------

def test_delta_zero_cases():
    # noisy count (ε_N-DP): δ = 0 from ε_N on, for both attackers
    r = tally_partial_knowledge_delta(thresholded_tally(8, 1.0), 40, 0.2, 10, [0.5, 1.0, 2.0])
    assert np.isfinite(r.log_active[0]) and np.isneginf(r.log_active[1:]).all()
    assert np.isneginf(r.log_passive[1:]).all()
    # a threshold nobody can reach: always ⊥, δ = 0 everywhere
    r = tally_partial_knowledge_delta(thresholded_tally(40), 40, 0.2, 10, EPS)
    assert np.isneginf(r.log_active).all() and np.isneginf(r.log_passive).all()


@pytest.mark.parametrize("mech", MECHS, ids=lambda m: m.label)
def test_delta_decreases_with_epsilon(mech):
    r = tally_partial_knowledge_delta(mech, 30, 0.2, 8, np.linspace(0, 6, 25))
    for series in (r.log_passive, r.log_active, *r.log_delta_by_background.reshape(-1, 25)):
        finite = np.where(np.isfinite(series), series, -1e308)
        assert (np.diff(finite) <= 1e-9).all()


@pytest.mark.parametrize("mech", MECHS, ids=lambda m: m.label)
@pytest.mark.parametrize("p", [0.02, 0.3])
def test_theorem1_passive_at_most_active(mech, p):
    r = tally_partial_knowledge_delta(mech, 30, p, 8, EPS)
    lp, la = r.log_passive_by_direction, r.log_active_by_direction
    assert (np.where(np.isfinite(lp), lp, -np.inf) <= la + 1e-9).all()
    assert np.array_equal(np.isneginf(lp), np.isneginf(la))


@pytest.mark.parametrize("mech", MECHS[:4], ids=lambda m: m.label)
def test_full_knowledge_apkdp_is_dp(mech):
    eps = [0.0, 0.5, 1.0, 2.0, np.inf]
    r = tally_partial_knowledge_delta(mech, 20, 0.3, 19, eps)
    assert np.allclose(np.exp(r.log_active), dp_delta(mech, 20, eps), atol=1e-12)


def test_geometric_mechanism_dp_closed_form():
    eps_n = 1.0
    a = math.exp(-eps_n)
    d = dp_delta(CountingMechanism(None, eps_n), 5, [0.0, 0.5, 1.0])
    assert np.allclose(d, [(1 - math.exp(e - eps_n)) / (1 + a) for e in (0.0, 0.5)] + [0.0])


def test_example7_active_attacker_makes_a_plain_count():
    p, m = 1e-4, 899
    thr = tally_partial_knowledge_delta(thresholded_tally(100), 1000, p, 100, EPS)
    ex = tally_partial_knowledge_delta(exact_tally(), 1000, p, 100, EPS)
    assert thr.worst_background() == 100
    assert np.allclose(thr.log_active, ex.log_active)
    assert math.isclose(math.exp(thr.log_active_infinite), (1 - p) ** m, rel_tol=1e-9)
    assert thr.log_passive.max() / math.log(10) < -250
    assert np.allclose(ex.log_passive, ex.log_active)       # the exact tally is Θ-reducible


# --- Monte Carlo ----------------------------------------------------------------------

@pytest.mark.parametrize("mech", MECHS, ids=lambda m: m.label)
@pytest.mark.parametrize("known_yes", [None, 6])
def test_monte_carlo_within_interval(mech, known_yes):
    eps = [0.0, 0.5, 1.0, 2.0]
    r = tally_partial_knowledge_delta(mech, 40, 0.25, 12, eps)
    exact = r.log_passive_by_direction[0] if known_yes is None else r.log_delta_by_background[0, known_yes]
    loss = tally_loss_samples(mech, 40, 0.25, 12, 1, 60_000, seed=3, known_yes=known_yes)
    mc = monte_carlo_delta(loss, eps)
    assert mc.contains(np.exp(exact)).all(), mc.table(np.exp(exact))


def test_monte_carlo_interval_can_fail():
    mc = monte_carlo_delta(np.zeros(10_000), [0.0])
    assert not mc.contains(np.array([0.5]))[0]
    assert mc.contains(np.array([0.0]))[0] and mc.high[0] > 0


# --- Θ-reducibility (Proposition 26, Remark 2) -------------------------------------------

def test_reducibility_by_brute_force():
    red = ch.reducibility([0.0, 1.0])
    per = red.groupby("query")["reducible"].first()
    assert not per["thresholded count (> 3)"]
    assert per.drop("thresholded count (> 3)").all()


def test_same_privacy_loss_detects_a_difference():
    q = queries.query_function("thresholded_count", threshold=3)
    a = queries.query_pld(q, 6, [0, 0], 1, 0, [0, 1], [0.5, 0.5])
    b = queries.query_pld(q, 6, [1, 1], 1, 0, [0, 1], [0.5, 0.5])
    assert same_privacy_loss(a, a) and not same_privacy_loss(a, b)


# --- the chapter: parameters and claim measurements ---------------------------------------

def test_chapter_refuses_bad_parameters_by_name():
    spec = ch.CHAPTER.parameters
    with pytest.raises(ParameterError, match="known_votes"):
        spec.validate({"n_voters": 50, "threshold": 10, "known_votes": 50})
    with pytest.raises(ParameterError, match="threshold"):
        spec.validate({"n_voters": 50, "threshold": 60, "known_votes": 5})
    with pytest.raises(ParameterError, match="referendum_known_yes"):
        spec.validate({"referendum_known_yes": 1001})
    with pytest.raises(ParameterError, match="p_example"):
        spec.validate({"p_example": 0.0})
    with pytest.raises(ParameterError, match="n_voters"):
        spec.validate({"n_voters": 10**6})
    assert ch.CHAPTER.quick_parameters()["mc_samples"] < spec.defaults()["mc_samples"]


@pytest.fixture(scope="module")
def small_run():
    eps = ch.epsilon_grid([0.0, 1.0, 2.0], 1.0)
    ps = [1e-4, 0.1, 0.5]
    sweep = ch.example7_sweep(200, 20, 20, ps, eps, 1.0)
    return eps, ps, sweep


def test_measure_example7(small_run):
    eps, ps, sweep = small_run
    m = ch.measure_example7(sweep, 1e-4, 20, 20, 1.0, 1e-6, 0.5)
    assert set(m) == {"desfontaines.ex7.active_defeats_threshold", "desfontaines.ex7.passive_private",
                      "desfontaines.ex7.active_gap"}
    assert all(v.value is True for v in m.values())
    # at p = 0.5 the threshold never fires: no gap, no certain disclosure
    m = ch.measure_example7(sweep, 0.5, 20, 20, 1.0, 1e-6, 0.5)
    assert m["desfontaines.ex7.active_defeats_threshold"].value is False
    assert m["desfontaines.ex7.active_gap"].value is False


def test_measure_theorem1_and_axioms(small_run):
    eps, ps, sweep = small_run
    th = ch.theorem1_table(sweep)
    fk = ch.full_knowledge_table(30, 20, 1e-4, eps, 1.0)
    m = ch.measure_theorem1(th, fk)
    assert all(v.value is True for v in m.values())
    broken = th.assign(implication_holds=[False] + [True] * (len(th) - 1))
    assert ch.measure_theorem1(broken, fk)["desfontaines.thm1.apkdp_implies_ppkdp"].value is False
    broken = th.assign(equivalent_at_zero=False)
    assert ch.measure_theorem1(broken, fk)["desfontaines.thm1.equivalent_delta0"].value is False
    ax = ch.axioms_table(sweep, 200, 20, 20, ps)
    assert ch.measure_axioms(ax)["desfontaines.prop25.axioms"].value is True
    assert ch.measure_axioms(ax.assign(holds=False))["desfontaines.prop25.axioms"].value is False


def test_measure_reducibility(small_run):
    eps, ps, sweep = small_run
    rr, rt = ch.referendum(60, 30, 15, 0.5, eps)
    red = ch.reducibility(eps)
    r2 = ch.remark2_table(sweep, 200, 20, 20)
    m = ch.measure_reducibility(rr, rt, sweep, red, r2)
    assert all(v.value is True for v in m.values())
    # if the thresholded tally behaved like the smaller database everywhere, Remark 2 would fail
    same = r2.assign(same_as_smaller_database=True)
    assert ch.measure_reducibility(rr, rt, sweep, red, same)[
        "desfontaines.remark2.threshold_not_reducible"].value is False


def test_every_ledger_claim_of_the_chapter_is_measured(small_run):
    eps, ps, sweep = small_run
    rr, rt = ch.referendum(60, 30, 15, 0.5, eps)
    measured = {**ch.measure_example7(sweep, 1e-4, 20, 20, 1.0, 1e-6, 0.5),
                **ch.measure_theorem1(ch.theorem1_table(sweep), ch.full_knowledge_table(30, 20, 1e-4, eps)),
                **ch.measure_axioms(ch.axioms_table(sweep, 200, 20, 20, ps)),
                **ch.measure_reducibility(rr, rt, sweep, ch.reducibility(eps), ch.remark2_table(sweep, 200, 20, 20))}
    ledger = {c.id for c in claims.load_ledger() if c.chapter == "08_passive_active"}
    assert set(measured) == ledger
    assert isinstance(ch.sweep_table(sweep, 1.0, 1e-6, 0.5), pd.DataFrame)


# --- the certain-vote attack on the yardstick ------------------------------------------------

def test_certain_vote_attack_is_always_right_and_covers_as_predicted():
    from anonlab.attacks.passive_active import certain_vote_attack
    from anonlab.measures import score, wilson_interval

    p, m = 0.002, 299
    r = certain_vote_attack(thresholded_tally(20), 320, p, 20, 40_000, seed=1, known_yes=20)
    s = score(r)
    assert s.precision == 1.0
    # certain iff (target No and ⊥): Pr = (1 - p) (1 - p)^m
    lo, hi = wilson_interval(int(r.predicted.sum()), r.n_targets, 0.999)
    assert lo <= (1 - p) ** (m + 1) <= hi
    passive = certain_vote_attack(thresholded_tally(20), 320, p, 20, 40_000, seed=1)
    assert passive.predicted.sum() == 0
    assert r.resources == {"aux_records": 20, "controlled_records": 20}


def test_certain_vote_attacks_pair_each_attack_with_a_baseline():
    from anonlab.attacks.passive_active import certain_vote_attacks

    out = certain_vote_attacks(120, 10, 10, [0.001], 2000, 0)
    assert set(out) == {"passive attacker, p = 0.001", "active attacker, p = 0.001"}
    for res, base in out.values():
        assert base.n_targets == res.n_targets and base.predicted.all()


# --- Example 7 under the ledger's readings of the lost p ---------------------------------

def test_p_readings_come_from_the_ledger_and_are_shared():
    readings = ch.p_readings()
    assert readings == {"p = 1e-05": 1e-05, "p = 0.0001": 0.0001, "p = 0.001": 0.001, "p = 0.01": 0.01}
    for cid in ch.EX7_CLAIMS:
        assert ch.p_readings(cid) == readings
        c = claims.claim(cid)
        assert c.choices[0]["default"] in readings
    assert ch.CHAPTER.parameters.defaults()["p_example"] == readings[c.choices[0]["default"]]


def test_measure_example7_records_every_reading(small_run):
    eps, ps, sweep = small_run
    readings = {"p = 0.0001": 1e-4, "p = 0.5": 0.5}
    m = ch.measure_example7(sweep, 1e-4, 20, 20, 1.0, 1e-6, 0.5, readings=readings)
    assert m["desfontaines.ex7.active_defeats_threshold"].alternatives == {"p = 0.0001": True, "p = 0.5": False}
    assert m["desfontaines.ex7.active_gap"].alternatives == {"p = 0.0001": True, "p = 0.5": False}
    assert m["desfontaines.ex7.passive_private"].alternatives["p = 0.0001"] is True
    # the value under the default reading is the value at p_example
    for cid, v in ch.example7_at(ch.example7_table(sweep, 1.0, 1e-6, 0.5), 1e-4).items():
        assert m[cid].value is v
    with pytest.raises(KeyError, match="not in the sweep"):
        ch.measure_example7(sweep, 1e-4, 20, 20, 1.0, 1e-6, 0.5, readings={"p = 0.3": 0.3})


def test_the_book_s_stronger_test_is_shown_but_decides_nothing(small_run, tmp_path, monkeypatch):
    """The thesis's claim (a plain count, δ_A above the privacy bar) holds at every reading of p; the book's
    stronger test (the vote settled with probability ≥ 0.5) fails at p = 0.01 and only the note says so."""
    from anonbook.chapters import kit

    eps, ps, sweep = small_run
    sweep = {**sweep, **ch.example7_sweep(200, 20, 20, [1e-5, 1e-3, 1e-2], eps, None)}
    t = ch.example7_table(sweep, 1.0, 1e-6, 0.5)
    assert t.loc[[1e-5, 1e-4, 1e-3, 1e-2], "defeats"].all() and not t.loc[0.5, "defeats"]
    assert t.loc[1e-4, "settles"] and not t.loc[1e-2, "settles"] and t.loc[1e-2, "delta_active"] > 0.1
    m = ch.measure_example7(sweep, 1e-4, 20, 20, 1.0, 1e-6, 0.5, readings=ch.p_readings())
    defeats = "desfontaines.ex7.active_defeats_threshold"
    assert set(m[defeats].alternatives.values()) == {True}
    assert "stronger test" in m[defeats].note and "p in {1e-05, 0.0001, 0.001}" in m[defeats].note
    monkeypatch.setenv("ANONLAB_OUTPUT_DIR", str(tmp_path))
    run = kit.ChapterRun(ch.CHAPTER, ch.CHAPTER.quick_parameters())
    table = run.record(m)
    assert table.loc[defeats, "verdict"] == run.verdict(defeats) == "reproduced"
    # an attacker who controls fewer votes than the threshold does not turn it into a count: the test can fail
    few = ch.example7_sweep(200, 20, 10, [1e-4, 1e-2], eps, None)
    assert not ch.example7_table(few, 1.0, 1e-6, 0.5)[["same_as_count", "defeats"]].any().any()


def test_theorem1_checks_are_marked_as_illustrations():
    """δ_A is the maximum and δ_P a weighted mean of the same δ_b: Theorem 1 holds by construction."""
    for cid in ("desfontaines.thm1.apkdp_implies_ppkdp", "desfontaines.thm1.equivalent_delta0"):
        assert claims.decide(claims.claim(cid), {"measured": True}) == claims.ILLUSTRATED
    assert claims.decide(claims.claim("desfontaines.prop25.axioms"), {"measured": True}) == "reproduced"


def test_paper_settings_and_claims_come_from_the_ledger():
    settings = ch.paper_settings()
    assert settings["paper_voters"] == 1000 and settings["paper_ref_known_yes"] == 500
    from anonbook.chapters import kit

    table = kit.ChapterRun(ch.CHAPTER, ch.CHAPTER.quick_parameters()).claims_table()  # the notebook's table
    assert set(table.index) == {c.id for c in claims.load_ledger() if c.chapter == "08_passive_active"}
    assert list(table.columns) == ["where", "statement", "reported"]


def test_first_zero_epsilon(small_run):
    eps, ps, sweep = small_run
    # the noisy count is ε_N-DP (ε_N = 1): δ = 0 from ε = 1 on; the noisy threshold never reaches 0
    assert ch.first_zero_epsilon(sweep["noisy count, thresholded", 1e-4]) == "1"
    assert ch.first_zero_epsilon(sweep["noisy threshold (Diffix-like)", 1e-4]) == "never on the grid"


# --- the course: goals, exercises, the glue keys they read --------------------------------



def _notebook() -> dict:
    import json
    from pathlib import Path

    return json.loads((Path(__file__).resolve().parents[1] / "notebooks" / "08_passive_active.ipynb").read_text())


def _glued_keys() -> set[str]:
    """Keys the notebook glues: the literal keys of its ``run.glue*`` calls and the keys of its glue loops."""
    import ast

    source = "\n".join("".join(c["source"]) for c in _notebook()["cells"] if c["cell_type"] == "code")
    keys = set(ch.paper_settings())
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.startswith("glue"):
            arg = node.args[0]
            named = [arg] if isinstance(arg, ast.Constant) else arg.keys if isinstance(arg, ast.Dict) else \
                arg.args[0].args[0].elts if getattr(getattr(arg, "func", None), "id", "") == "dict" else []
            keys |= {n.value for n in named if isinstance(n, ast.Constant)}
    loops = {
        '{f"ex_{k}": float(row[k]) for k in ("log10_delta_passive", "delta_active", "settled_active", "gap_orders")}':
            {f"ex_{k}" for k in ("log10_delta_passive", "delta_active", "settled_active", "gap_orders")},
        'for short, cid in zip(("defeats", "private", "gap"), chapter.EX7_CLAIMS)':
            {f"ex7_{s}_at_p" for s in ("defeats", "private", "gap")},
        'for name, short in (("noisy count, thresholded", "nc"), ("noisy threshold (Diffix-like)", "nt")):':
            {f"{s}_{k}" for s in ("nc", "nt") for k in ("log10_passive", "delta_active", "first_zero")},
    }
    for line, ks in loops.items():
        assert line in source, line
        keys |= ks
    return keys


def test_goals_and_assumptions():
    assert 1 <= len(ch.CHAPTER.goals) <= 3 and all(g.endswith(".") for g in ch.CHAPTER.goals)
    assert ch.CHAPTER.assumes


def test_exercises_validate_and_read_glued_values():
    glued = _glued_keys()
    assert {"ex_settled_active", "ex7_defeats_at_p", "nc_first_zero", "ref_same_plrv", "ex_gap_orders"} <= glued
    assert len(ch.CHAPTER.exercises) >= 3
    quick = ch.CHAPTER.quick_parameters()
    for e in chapters.get(ch.CHAPTER.name).exercises:  # the questions are read from the page
        variant = ch.CHAPTER.parameters.validate({**ch.CHAPTER.quick, **e.parameters})
        assert variant != quick, e.key
        assert "Predict" in e.question, e.key
        for name in e.parameters:
            assert f"`{name} = " in e.question, (e.key, name)
        assert set(e.answer) <= glued, (e.key, set(e.answer) - glued)
        assert e.figure is None or e.figure in glued


def test_the_notebook_includes_the_course_pages_and_links_the_glossary():
    import re

    md = ["".join(c["source"]) for c in _notebook()["cells"] if c["cell_type"] == "markdown"]
    assert md[0].startswith("# Passive and active attackers")
    assert md[1].strip() == "```{include} _generated/chapters/08_passive_active.header.md\n```"
    exercises = next(m for m in md if m.startswith("## Exercises"))
    assert chapters.page_exercises(exercises)  # the questions are written in the page
    text = "\n".join(md)
    for term in ["PPKDP", "APKDP", "differential privacy", "ε", "bucket suppression"]:
        assert re.search(r"\{term\}`(" + re.escape(term) + r"|[^`<]+<" + re.escape(term) + r">)`", text), term


def test_readings_detail_reads_the_sweep_table(small_run):
    eps, ps, sweep = small_run
    table = ch.sweep_table(sweep, 1.0, 1e-6, 0.5)
    d = ch.readings_detail(table, {"p = 0.0001": 1e-4, "p = 0.5": 0.5})
    assert d.index.tolist() == ["p = 0.0001", "p = 0.5"]
    assert d.loc["p = 0.5", "gap_orders"] < ch.MIN_GAP_ORDERS <= d.loc["p = 0.0001", "gap_orders"]
    assert 0.5 < d.loc["p = 0.0001", "settled_active"] <= 1


# --- the explorable figure over p ------------------------------------------------------------------------------------

def test_delta_frame_shows_the_sweep_at_one_p(small_run):
    """Each frame is the sweep's thresholded tally at that p: at p = 1e-4 the active line is the exact tally's and
    the passive one is far below the bar; at p = 0.5 the threshold never fires and the three lines coincide."""
    eps, ps, sweep = small_run
    f = ch.delta_frame(sweep, 1e-4)
    passive, active, exact = (f[k][1] for k in ("passive attacker (PPKDP)", "active attacker (APKDP)",
                                                 "exact tally (both attackers)"))
    assert f["passive attacker (PPKDP)"][0] == [float(e) for e in eps]
    table = ch.sweep_table(sweep, 1.0, 1e-6, 0.5).set_index(["mechanism", "p"])
    i = list(eps).index(1.0)
    assert math.isclose(passive[i], table.loc[("thresholded tally", 1e-4), "log10_delta_passive"])
    assert np.allclose(active, exact) and max(passive) < -6
    g = ch.delta_frame(sweep, 0.5)
    assert np.allclose(g["passive attacker (PPKDP)"][1], g["exact tally (both attackers)"][1])
    assert not np.allclose(f["passive attacker (PPKDP)"][1], g["passive attacker (PPKDP)"][1])
    with pytest.raises(KeyError):
        ch.delta_frame(sweep, 0.3)  # not swept: no frame is made up


def test_private_band_runs_from_the_lowest_frame_value_to_the_bar(small_run):
    eps, ps, sweep = small_run
    lo, hi, label = ch.private_band(sweep, ps, 1e-6)
    assert hi == -6.0 and "1e-06" in label
    lowest = min(min(y) for p in ps for _, y in ch.delta_frame(sweep, p).values())
    assert lo == lowest < hi

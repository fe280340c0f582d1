"""Each chapter's comparing sentences (issue 34) pick the other wording when their numbers are reversed.

One test per sentence function of chapters 1, 2, 3, 4, 5, 6a, 6b, 7 and 9: the function is called with numbers on both
sides of its comparison, each wording is checked against its own recorded numbers
(:func:`anonbook.chapters.sentences.check`), and the two wordings differ. The chapters' runs at random
parameters are in ``tests/test_random_parameters.py``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from anonbook.chapters import ch01_syntactic_anonymity as ch01
from anonbook.chapters import ch02_dp_vs_definetti as ch02
from anonbook.chapters import ch03_netflix_eccentricity as ch03
from anonbook.chapters import ch04_census_reconstruction as ch04
from anonbook.chapters import ch05_nonmember_framework as ch05
from anonbook.chapters import ch06a_diffix_differential as ch06a
from anonbook.chapters import ch06b_diffix_cloning as ch06b
from anonbook.chapters import ch07_membership_base_rates as ch07
from anonbook.chapters import ch09_one_yardstick as ch09
from anonbook.chapters import sentences
from anonbook.chapters.sentences import Sentence
from anonlab.claims import Measurement


def both_ways(a: Sentence, b: Sentence) -> None:
    """``a`` and ``b`` (the same sentence at reversed numbers) are true, and worded and related differently."""
    assert a.key == b.key
    assert sentences.check(a.as_dict()) is None and sentences.check(b.as_dict()) is None
    assert a.relation != b.relation and a.text != b.text


# -- chapter 1 ------------------------------------------------------------------


def test_ch01_salary_sentences() -> None:
    sd3 = ch01.slide_tables().sd3
    wide = {s.key: s for s in ch01.salary_sentences(ch01.salary_similarity_table(sd3, ch01.SALARY_SPAN))}
    narrow = {s.key: s for s in ch01.salary_sentences(ch01.salary_similarity_table(sd3, 1))}
    for key in ("sd3_salary_story", "sd3_salary_single"):
        both_ways(wide[key], narrow[key])
    assert "same story" in wide["sd3_salary_story"].text and "none of the" in narrow["sd3_salary_single"].text


def test_ch01_uniqueness_sentence() -> None:
    both_ways(ch01.uniqueness_sentence(295, 3000), ch01.uniqueness_sentence(0, 3000))
    assert "1 record (" in ch01.uniqueness_sentence(1, 3000).text


def _sweep(k: list[int], suppressed: float, l_after: float) -> pd.DataFrame:
    n = len(k)
    return pd.DataFrame({"k": k, "suppressed": [suppressed] * n, "l_distinct_after": [l_after] * n,
                         "l_entropy_after": [l_after * 0.9] * n, "t": [0.1] * n})


def test_ch01_sweep_sentences() -> None:
    reached_late = ch01.sweep_sentences(_sweep([1, 1, 1, 5], 0.1, 2), 4, 14, "`occupation`")
    reached_at_0 = ch01.sweep_sentences(_sweep([5, 5, 5, 5], 0.0, 14), 4, 14, "`occupation`")
    never = ch01.sweep_sentences(_sweep([1, 1, 2, 3], 1.0, float("nan")), 4, 14, "`occupation`")
    both_ways(reached_late[0], reached_at_0[0])
    both_ways(reached_late[0], never[0])
    both_ways(reached_late[1], reached_at_0[1])  # l below every value / every value in every class
    both_ways(reached_late[1], never[1])          # nothing left after suppression
    assert "far up" not in reached_at_0[0].text and "already 4-anonymous" in reached_at_0[0].text


def test_ch01_best_guess_sentence() -> None:
    both_ways(ch01.best_guess_sentence(0.23, 0.13, 3, 4), ch01.best_guess_sentence(0.13, 0.13, 3, 4))


# -- chapter 3 ------------------------------------------------------------------


def _curves(with_dates: list[float], without: list[float]) -> Any:
    grid = list(range(1, len(with_dates) + 1))
    return SimpleNamespace(rates={"exact ratings, dates ±14 d": pd.DataFrame({"rate": with_dates}, index=grid),
                                  "exact ratings, no dates": pd.DataFrame({"rate": without}, index=grid)})


def test_ch03_half_sentence() -> None:
    helps = ch03.half_sentence(_curves([0.2, 0.6, 0.9], [0.1, 0.3, 0.7]), 1, [3, 14])
    alike = ch03.half_sentence(_curves([0.2, 0.6, 0.9], [0.1, 0.6, 0.7]), 1, [3, 14])
    costs = ch03.half_sentence(_curves([0.1, 0.3, 0.7], [0.2, 0.6, 0.9]), 1, [3, 14])
    never = ch03.half_sentence(_curves([0.1, 0.2, 0.3], [0.1, 0.2, 0.3]), 1, [3, 14])
    both_ways(helps, alike)
    both_ways(helps, costs)
    assert sentences.check(never.as_dict()) is None and "Fewer than half" in never.text
    assert "None" not in helps.text + never.text


def test_ch03_wrong_sentence() -> None:
    both_ways(ch03.wrong_sentence({"wrong_k": 2, "wrong_m": 8, "wrong_rate": 0.7}),
              ch03.wrong_sentence({"wrong_k": 2, "wrong_m": 8, "wrong_rate": 0.0}))
    beyond = ch03.wrong_sentence({"wrong_k": 7, "wrong_m": 8, "wrong_rate": float("nan")})
    assert sentences.check(beyond.as_dict()) is None and "nan" not in beyond.text


def test_ch03_theorem_sentence() -> None:
    both_ways(ch03.theorem_sentence(3, 15), ch03.theorem_sentence(16, 15))
    assert ch03.theorem_sentence(None, 15).relation == "at or above"


def test_ch03_false_match_sentence() -> None:
    both_ways(ch03.false_match_sentence(0.12, "943", "MovieLens 100K", 1.5, 8),
              ch03.false_match_sentence(0.0, "943", "MovieLens 100K", 1.5, 8))


def test_ch03_low_phi_sentence() -> None:
    pc = pd.DataFrame({"phi": [0.0, 1.5], "precision_mixed": [0.5, 0.9], "coverage_mixed": [1.0, 0.4],
                       "false_match_rate": [1.0, 0.1]})
    both_ways(ch03.low_phi_sentence(pc, 1.5), ch03.low_phi_sentence(pc.assign(precision_mixed=[0.9, 0.5]), 1.5))


# -- chapter 4 ------------------------------------------------------------------


def test_ch04_precise_sentence() -> None:
    both_ways(ch04.precise_sentence(0.82, 0.75), ch04.precise_sentence(0.70, 0.75))


def test_ch04_conjecture_sentence() -> None:
    d = pd.DataFrame({"share of correct": [0.8]}, index=["block-majority people"])
    both_ways(ch04.conjecture_sentence(d), ch04.conjecture_sentence(d.assign(**{"share of correct": [0.3]})))


def test_ch04_minority_sentences() -> None:
    d = pd.DataFrame({"precision": [0.45], "correct": [2862]}, index=["block-minority people"])
    gain, strong = ch04.minority_sentences(d, 0.82)
    higher, _ = ch04.minority_sentences(d, 0.40)
    none_gain, none_strong = ch04.minority_sentences(d.assign(precision=[0.0], correct=[0]), 0.82)
    both_ways(gain, higher)
    both_ways(gain, none_gain)
    both_ways(strong, none_strong)


def test_ch04_new_attack_sentence() -> None:
    both_ways(ch04.new_attack_sentence(0.18, 0.01), ch04.new_attack_sentence(0.005, 0.01))


def test_ch04_dp_sentences() -> None:
    v = {"dp_per_p": 0.72, "per_p": 0.82, "dp_minority_p": 0.31, "guess_change": 0.01, "dp_low_maj_p": 0.61,
         "maj_p": 0.75, "dp_single_r": 0.0, "single_r": 0.03}
    flipped = {**v, "dp_per_p": 0.85, "guess_change": 0.05, "dp_low_maj_p": 0.80, "dp_single_r": 0.04}
    for a, b in zip(ch04.dp_sentences_from(v, 4.0, 0.5), ch04.dp_sentences_from(flipped, 4.0, 0.5)):
        both_ways(a, b)


def test_ch04_trace_sentences() -> None:
    for a, b in zip(ch04.trace_sentences(0.75, 0.68, 0.73), ch04.trace_sentences(0.70, 0.72, 0.73)):
        both_ways(a, b)


def test_ch04_alternatives_sentences() -> None:
    def measured(dp: dict[str, bool], beats: dict[str, bool]) -> dict[str, Measurement]:
        return {"fw.s3_1.majority_same_under_dp": Measurement(any(dp.values()), alternatives=dp),
                "fw.s3_1.majority_beats_reconstruction": Measurement(any(beats.values()), alternatives=beats)}

    some = ch04.alternatives_sentences(measured({"ε=0.5": False, "ε=4": True}, {"recall": True, "coverage": False}))
    none = ch04.alternatives_sentences(measured({"ε=0.5": False, "ε=4": False}, {"recall": False, "coverage": False}))
    for a, b in zip(some, none):
        both_ways(a, b)
    assert all(": none" not in s.text and "= none" not in s.text for s in none)


# -- chapter 5 ------------------------------------------------------------------


def test_ch05_all_vs_pii_sentence() -> None:
    both_ways(ch05.all_vs_pii_sentence(0.8, 0.7), ch05.all_vs_pii_sentence(0.7, 0.8))
    assert ch05.all_vs_pii_sentence(0.7, 0.7).text == "makes no difference"


def test_ch05_pi_moves_sentence() -> None:
    both_ways(ch05.pi_moves_sentence(0.4), ch05.pi_moves_sentence(0.01))


def test_ch05_name_list() -> None:
    both_ways(ch05.name_list("sig6_list", ["age (continuous)"]), ch05.name_list("sig6_list", []))


def test_ch05_twin_sentence() -> None:
    gaps = pd.DataFrame({"secret": ["a", "b"], "recognised": [True, False]})
    both_ways(ch05.twin_sentence(gaps), ch05.twin_sentence(gaps.assign(recognised=[False, False])))


def test_ch05_naive_sentence() -> None:
    both_ways(ch05.naive_sentence(0.3, 0.1), ch05.naive_sentence(0.3, -0.1))
    assert ch05.naive_sentence(-0.1, 0.2).text == ch05.naive_phrase(-0.1, 0.2)


# -- chapter 7 ------------------------------------------------------------------


def test_ch07_gap_sentence() -> None:
    both_ways(ch07.gap_sentence(0.95, 0.82), ch07.gap_sentence(0.82, 0.83))


def test_ch07_depth_sentences() -> None:
    sweep = pd.DataFrame({"max_depth": [4, 8, "unlimited"], "AUC": [0.52, 0.58, 0.65],
                          "TPR at FPR 1e-2": [0.015, 0.02, 0.0]})
    reversed_ = sweep.assign(AUC=[0.65, 0.58, 0.52], **{"TPR at FPR 1e-2": [0.0, 0.01, 0.03]})
    for a, b in zip(ch07.depth_sentences(sweep), ch07.depth_sentences(reversed_)):
        both_ways(a, b)
    (one,) = ch07.depth_sentences(sweep.iloc[:1])
    assert sentences.check(one.as_dict()) is None and "fewer than two" in one.text


# -- chapter 6b -----------------------------------------------------------------


def test_ch06b_outside_error_sentence() -> None:
    both_ways(ch06b.outside_error_sentence({"err_outside_rate": 0.4, "miss_measured": 0.05}),
              ch06b.outside_error_sentence({"err_outside_rate": 0.01, "miss_measured": 0.05}))
    none = ch06b.outside_error_sentence({"err_outside_rate": float("nan"), "miss_measured": 0.05})
    assert sentences.check(none.as_dict()) is None and "cannot be compared" in none.text


def test_ch06b_miss_sentence() -> None:
    both_ways(ch06b.miss_sentence({"miss_n": 100, "miss_count": 5, "miss_measured": 0.05, "miss_expected": 0.06}),
              ch06b.miss_sentence({"miss_n": 400, "miss_count": 100, "miss_measured": 0.25, "miss_expected": 0.06}))
    none = ch06b.miss_sentence({"miss_n": 0, "miss_count": 0, "miss_measured": float("nan"), "miss_expected": 0.06})
    assert sentences.check(none.as_dict()) is None and "not measured" in none.text


def _cloning(attackable: list[bool]) -> pd.DataFrame:
    return pd.DataFrame({"user": range(len(attackable)), "attackable": attackable, "correct": attackable,
                         "truth": [0] * len(attackable), "value_unique": attackable, "unique": attackable,
                         "n_queries": [30] * len(attackable)})


def test_ch06b_census_greedy_sentence() -> None:
    both_ways(ch06b.census_greedy_sentence(_cloning([True, False]), _cloning([True, True]), 41),
              ch06b.census_greedy_sentence(_cloning([True, True]), _cloning([True, False]), 41))
    none = ch06b.census_greedy_sentence(None, None, None)
    assert sentences.check(none.as_dict()) is None and "not run on CENSUS" in none.text


def test_ch06b_sweep_sentences() -> None:
    t = pd.DataFrame({"test": ["single", "double", "single", "double"], "σ*": [0.7, 0.7, 1.0, 1.0],
                      "coverage": [0.9, 0.6, 0.9, 0.7], "precision": [0.8, 0.9, 0.7, 0.85]})
    moved = t.assign(coverage=[0.9, 0.6, 0.8, 0.7])
    a, b = ch06b.sweep_sentences(t, 0.7, 0.7), ch06b.sweep_sentences(moved, 0.5, 0.5)
    both_ways(a[0], b[0])
    both_ways(a[1], b[1])
    assert "whatever σ*" in a[0].text and "not among" in b[1].text and "0.5" in b[1].text


def test_ch06b_max_subsets_and_attribute_sentences() -> None:
    both_ways(ch06b.max_subsets_sentence(None), ch06b.max_subsets_sentence(20))
    table = pd.DataFrame({"all three agree": [False, True]}, index=["a", "b"])
    both_ways(ch06b.attribute_set_sentence(table), ch06b.attribute_set_sentence(table.assign(**{"all three agree": False})))


def test_ch06b_census_yard_sentence() -> None:
    y = pd.DataFrame({"baseline_precision": [0.94], "precision": [0.95], "PI": [0.1], "rare_guesses": [20],
                      "precision_rare": [0.6], "baseline_rare": [0.06], "PI_rare": [0.57], "recall_rare": [0.4]},
                     index=pd.MultiIndex.from_tuples([("census", "g")]))
    both_ways(ch06b.census_yard_sentence(y, ("census", "g")),
              ch06b.census_yard_sentence(y.assign(PI_rare=0.05), ("census", "g")))
    for s in (ch06b.census_yard_sentence(y, None), ch06b.census_yard_sentence(y.assign(rare_guesses=0), ("census", "g"))):
        assert sentences.check(s.as_dict()) is None and s.relation == "none"


def test_coverage_bias_sentence() -> None:
    from anonbook import diffix_harness as harness

    census = SimpleNamespace(name="census", data=pd.DataFrame({"s": [0] * 90 + [1] * 10}), secret="s", majority=0)

    def yard(n_cov: int, k_maj: int) -> pd.DataFrame:
        return pd.DataFrame([{"data set": "census", "attack": "cloning, full (k* = 41)", "targets": n_cov,
                              "coverage": 1.0, "baseline_precision": k_maj / n_cov}]).set_index(["data set", "attack"])

    both_ways(harness.coverage_bias_sentence(yard(200, 200), census), harness.coverage_bias_sentence(yard(10, 9), census))
    assert harness.coverage_bias_sentence(yard(10, 9), None).relation == "none"


# -- chapter 6a ------------------------------------------------------------------


def test_ch06a_suppression_sentence() -> None:
    both_ways(ch06a.suppression_sentence(0.24, 12), ch06a.suppression_sentence(0.0, 12))
    assert "B/2 = 6 users" in ch06a.suppression_sentence(0.24, 12).text
    assert "B/2 = 2 users" in ch06a.suppression_sentence(0.24, 4).text


def test_ch06a_census_reach_sentence() -> None:
    t = pd.DataFrame({"data set": ["census"] * 2, "k*": [10, 40], "attacked": [0.1, 0.3], "unique": [0.5, 0.9],
                      "users": [200, 200]})
    all_reached = t.assign(attacked=t["unique"])
    both_ways(ch06a.census_reach_sentence(t), ch06a.census_reach_sentence(all_reached))
    assert "at k* = 40" in ch06a.census_reach_sentence(t).text
    assert ch06a.census_reach_sentence(t[t["data set"] == "adult"]).relation == "none"


def test_ch06a_yardstick_sentence() -> None:
    def yard(pi: float) -> pd.DataFrame:
        return pd.DataFrame({"precision": [0.6], "baseline_precision": [0.55], "PI": [pi]},
                            index=pd.MultiIndex.from_tuples([("adult", "differential, full (k* = 10)")]))
    both_ways(ch06a.yardstick_sentence(yard(0.11)), ch06a.yardstick_sentence(yard(-0.05)))
    assert "worse" in ch06a.yardstick_sentence(yard(-0.05)).text
    assert ch06a.yardstick_sentence(yard(float("nan"))).relation == "none"


def test_ch06a_filter_and_fig2_sentences() -> None:
    f = pd.DataFrame({"secret": [0, 0], "pairs": ["all", "kept (> 0)"], "mean": [1.0, 0.9], "var": [8.0, 7.7],
                      "Eq. 6 mean": [1.0, 1.0], "Eq. 6 var": [8.0, 8.0]})
    g = f.assign(mean=[1.0, 1.1], var=[8.0, 8.3])
    for a, b in zip(ch06a.filter_sentences(f), ch06a.filter_sentences(g)):
        both_ways(a, b)
    t = pd.DataFrame({"k": [1, 2, 3], "rounding": [0.7, 0.80, 0.90], "rounding_shared_static": [0.7, 0.82, 0.89],
                      "empirical": [float("nan"), 0.81, 0.85]})
    u = t.assign(rounding_shared_static=[0.7, 0.78, 0.9], empirical=[float("nan"), 0.79, 0.95])
    for a, b in zip(ch06a.fig2_gap_sentences(t), ch06a.fig2_gap_sentences(u)):
        both_ways(a, b)
    assert "At k = 3" in ch06a.fig2_gap_sentences(t)[0].text and "k = 2" in ch06a.fig2_gap_sentences(t)[1].text


def test_ch07_low_fpr_and_realistic_precision_sentences() -> None:
    from anonlab.measures import base_rates
    truth = pd.Series([True, False, True, False, True, False])
    tied = pd.DataFrame({"is_member": truth, "loss": [1.0, 1.0, 1.0, 1.0, 0.2, 0.1],
                         "confidence": [3.0, 0.0, 2.0, 0.5, 1.0, 0.4]})
    rocs = {a: base_rates.roc_from_scores(tied[a].to_numpy(), truth.to_numpy()) for a in ("loss", "confidence")}
    loss, conf = ch07.low_fpr_sentences(tied, rocs, 0.1)
    assert loss.relation == "above" and "cannot operate" in loss.text and "4 observations tie" in loss.text
    assert conf.relation == "at or below"
    both_ways(loss, conf.__class__(loss.key, conf.text, conf.relation, conf.left, conf.right))
    low = ch07.realistic_precision_sentence(rocs, 0.5, [1.0, 30.0])
    same = ch07.realistic_precision_sentence(rocs, 0.5, [1.0, 0.5])
    both_ways(low, same)
    never = {"loss": base_rates.roc_from_scores(np.array([0.0, 1.0]), np.array([True, False]))}
    assert ch07.realistic_precision_sentence(never, 0.1, [30.0]).relation == "none"


# -- chapter 9 ------------------------------------------------------------------


def _yard(positions: list[str], coverage: list[float], chapter: str = "01_x") -> pd.DataFrame:
    n = len(positions)
    return pd.DataFrame({"recorded": [True] * n, "position": positions, "pi": np.linspace(0.5, 0.1, n),
                         "pi_low": [0.05] * n, "pi_high": [0.9] * n, "predictions": [500] * n,
                         "name": [f"a{i}" for i in range(n)], "chapter": [chapter] * n, "coverage": coverage,
                         "pi_side": ["above"] * n, "baseline_kind": ["majority prior"] * n})


def test_ch09_findings_sentences() -> None:
    from anonbook.verdicts.yardstick import BEYOND, PRIOR_ONLY, SAME, WORSE

    a = ch09.findings_sentences(_yard([BEYOND, BEYOND, SAME, WORSE, PRIOR_ONLY], [0.01, 0.9, 1, 1, 1]))
    b = ch09.findings_sentences(_yard([], []))
    c = ch09.findings_sentences(_yard([BEYOND, BEYOND, SAME], [0.5, 0.5, 1]))
    for x, y in zip(a, b):
        both_ways(x, y)
    assert [s.key for s in a] == ["beyond_list", "beyond_spread", "same_list", "worse_list", "prior_list",
                                  "baseline_decides"]
    assert a[0].text == "a0 (ch. 01, PI 0.50); a1 (ch. 01, PI 0.40)" and b[0].text == "none"
    assert c[1].relation == "equal" and c[5].relation == "below"
    assert all(sentences.check(s.as_dict()) is None for s in a + b + c)


def test_ch09_known_sentences() -> None:
    n = {"unique_members": 0.2, "alc_members_ctl": 0.4001, "risk_members": 0.4, "pi_naive": -0.01, "risk_naive": 0.0}
    m = {"unique_members": 0.8, "alc_members_ctl": -0.1, "risk_members": 0.0, "pi_naive": 0.02, "risk_naive": 0.01}
    for x, y in zip(ch09.known_sentences(n), ch09.known_sentences(m)):
        both_ways(x, y)
    missing = ch09.peer_sentences_missing("the peers were not run")
    assert [s.key for s in missing] == list(ch09.PEER_SENTENCES)
    assert all(s.relation == "none" and sentences.check(s.as_dict()) is None for s in missing)


def test_ch09_membership_sentence() -> None:
    from anonbook.verdicts.yardstick import SAME

    both_ways(ch09.membership_sentence(_yard([SAME], [0.0004], ch09.MEMBERSHIP_CHAPTER)),
              ch09.membership_sentence(_yard([SAME], [0.3], ch09.MEMBERSHIP_CHAPTER)))
    none = ch09.membership_sentence(_yard([SAME], [0.3]))
    assert none.relation == "none" and sentences.check(none.as_dict()) is None


# -- chapter 2 ------------------------------------------------------------------


def test_ch02_beyond_sentences() -> None:
    both_ways(ch02.nonmember_sentence({"pi_max": 0.01}), ch02.nonmember_sentence({"pi_max": 0.3}))
    assert ch02.nonmember_sentence({"pi_max": float("nan")}).relation == "none"
    n = {"trade_eps": 0.1, "trade_best_m": 3, "trade_all_m": 8, "trade_loss": 0.02, "trade_best_m_exact": 8}
    for a, b in zip(ch02.tradeoff_sentences(n), ch02.tradeoff_sentences(dict(n, trade_best_m=8, trade_best_m_exact=5))):
        both_ways(a, b)
    y = {"yard_conf_precision": 0.6, "yard_conf_base": 0.5, "yard_conf_pi": 0.2, "yard_base_words": "the baseline"}
    both_ways(ch02.yardstick_sentence(y), ch02.yardstick_sentence(dict(y, yard_conf_precision=0.4, yard_conf_pi=-0.2)))
    assert ch02.yardstick_sentence(dict(y, yard_conf_base=float("nan"))).relation == "none"

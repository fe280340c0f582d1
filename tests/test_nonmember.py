"""The non-member baseline ([FW24] §4), the CART synthesizer and chapter 5's claim decisions."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from anonbook import chapters
from anonbook.chapters import ch05_nonmember_framework as ch
from anonlab.data import load_bank_churners
from anonlab.data.loaders import BANK_CHURNERS_COLUMNS
from anonlab.measures import AttackResult, majority_baseline, score
from anonlab.measures import nonmember as nm
from anonlab.mechanisms.synthesis import cart_synthesize
from anonlab.validation import ParameterError


def _toy(n: int = 1000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    job = rng.choice(["prof", "clerk", "nurse"], size=n)
    return pd.DataFrame({
        "job": job,
        "degree": pd.Series(job).map({"prof": "phd", "clerk": "hs", "nurse": "ba"}).to_numpy(),  # function of job
        "coin": rng.choice(["h", "t"], size=n, p=[0.7, 0.3]),  # independent of everything
        "age": rng.integers(20, 70, size=n).astype(float),
    })


def test_secret_that_is_a_function_of_a_known_attribute_has_precision_one() -> None:
    df = _toy()
    split = nm.split_members(df, 700, 300, seed=1)
    base = nm.nonmember_baseline(df, "degree", members=split.members, targets=split.non_members,
                                 known=["job"], settings=nm.ModelSettings(C=1.0))
    s = score(base)
    assert s.precision == 1.0 and s.coverage == 1.0


def test_independent_secret_gives_the_majority_share() -> None:
    df = _toy(4000)
    split = nm.split_members(df, 3000, 1000, seed=2)
    base = nm.nonmember_baseline(df, "coin", members=split.members, targets=split.non_members,
                                 known=["job", "age"])
    share = float((df.loc[split.non_members, "coin"] == "h").mean())
    assert score(base).precision == pytest.approx(share)
    assert set(base.prediction.tolist()) == {"h"}


def test_best_analysis_never_below_the_most_common_value() -> None:
    df = _toy()
    split = nm.split_members(df, 700, 300, seed=3)
    kw = dict(members=split.members, targets=split.non_members)
    best = score(nm.nonmember_baseline(df, "coin", **kw)).precision
    common = score(nm.nonmember_baseline(df, "coin", analysis="most_common", **kw)).precision
    assert best >= common


def test_five_percent_rule() -> None:
    # relative: within 5 % of the true value (the paper's text)
    assert nm.correct_within([105.0, 105.1, 95.0, 94.9], [100.0] * 4, 0.05).tolist() == [True, False, True, False]
    assert nm.correct_within([0.0, 0.1], [0.0, 0.0], 0.05).tolist() == [True, False]
    # range: within 5 % of max - min of the truth (the authors' code): range 200 -> bound 10
    assert nm.correct_within([10.0, 211.0], [0.0, 200.0], 0.05, basis="range").tolist() == [True, False]
    assert nm.correct_within([10.0], [0.0], 0.05, basis="range", value_range=100).tolist() == [False]
    with pytest.raises(ParameterError, match="basis"):
        nm.correct_within([1.0], [1.0], 0.05, basis="absolute")


def test_continuous_baseline_uses_the_rule() -> None:
    df = _toy()
    df["twice"] = 2 * df["age"]
    split = nm.split_members(df, 700, 300, seed=4)
    base = nm.nonmember_baseline(df, "twice", members=split.members, targets=split.non_members, known=["age"],
                                 settings=nm.ModelSettings(tolerance_basis="relative"))
    assert base.correct is not None and score(base).precision == 1.0


def test_pi_by_hand_on_the_attacks_targets() -> None:
    truth = ["a", "a", "b", "b", "a"]
    attack = AttackResult.from_predictions("atk", truth, ["a", "a", "b", None, None])  # 3 of 3 right
    base = AttackResult.from_predictions("base", truth, ["a", "b", "a", "b", "a"])  # on targets 0-2: 1 of 3
    s = score(attack, base)
    assert s.precision == 1.0 and s.coverage == pytest.approx(0.6)
    assert s.baseline_precision == pytest.approx(1 / 3)
    assert s.precision_improvement == pytest.approx((1 - 1 / 3) / (1 - 1 / 3))
    attack2 = AttackResult.from_predictions("atk", truth, ["a", "b", "b", None, None])  # 2 of 3
    assert score(attack2, base).precision_improvement == pytest.approx((2 / 3 - 1 / 3) / (2 / 3))


def test_baseline_refuses_targets_that_are_members() -> None:
    df = _toy(100)
    with pytest.raises(ValueError, match="members"):
        nm.nonmember_baseline(df, "coin", members=df.index[:80], targets=df.index[70:])


def test_split_sizes_and_errors() -> None:
    df = _toy(100)
    s = nm.split_members(df, 70, 30, seed=0)
    assert s.sizes == (70, 30) and not set(s.members) & set(s.non_members)
    assert np.array_equal(s.members, nm.split_members(df, 70, 30, seed=0).members)
    with pytest.raises(ParameterError, match="n_members"):
        nm.split_members(df, 80, 30)


def test_replication_raises_precision_on_replicated_records_only() -> None:
    # a secret that only a memorising model can know: each record has its own id
    rng = np.random.default_rng(0)
    n = 1000
    df = pd.DataFrame({"id": [f"p{i}" for i in range(n)], "secret": rng.choice(["x", "y"], size=n)})
    kinds = {"id": nm.CATEGORICAL, "secret": nm.CATEGORICAL}
    rep = nm.replication_test(df, ["secret"], [0.5], n_targets=300, kinds=kinds,
                              settings=nm.ModelSettings(C=100.0, max_iter=500), analysis="model", seed=0)
    none, half = rep.iloc[0], rep.iloc[1]
    assert none["n_dependent"] == 0 and 50 < half["n_dependent"] < 250
    assert half["precision_dependent"] > 0.95  # the model memorised the copy among the members
    assert abs(half["precision_independent"] - 0.5) < 0.15  # unseen ids: a coin flip
    assert abs(none["precision"] - 0.5) < 0.1
    assert half["precision"] > none["precision"] + 0.1


def test_replicate_records_keeps_sources() -> None:
    df = pd.DataFrame({"a": range(10)})
    r = nm.replicate_records(df, 0.3, seed=0)
    assert len(r) == 13 and r["_source"].value_counts().max() == 2
    assert len(nm.replicate_records(df, 0.0)) == 10


def test_threshold_curve_and_perfect_precision() -> None:
    r = AttackResult.from_predictions("t", truth=["a", "b", "a", "b"], prediction=["a", "a", "a", "b"],
                                      confidence=[0.9, 0.6, 0.8, 0.95])
    c = nm.precision_vs_prediction_rate(r, [0.0, 0.7, 0.99])
    assert c["prediction_rate"].tolist() == [1.0, 0.75, 0.0]
    assert c["precision"].iloc[1] == 1.0 and math.isnan(c["precision"].iloc[2])
    p = nm.perfect_precision(c)
    assert p["perfect"] and p["prediction_rate"] == 0.75
    assert not nm.perfect_precision(c, min_predictions=4)["perfect"]


def test_the_confidence_walk_is_the_threshold_curve_at_every_distinct_value() -> None:
    rng = np.random.default_rng(3)
    conf = np.round(rng.uniform(0.3, 1.0, 400), 2)  # many ties
    truth = rng.choice(["a", "b", "c"], 400)
    pred = np.where(rng.uniform(size=400) < conf, truth, "a")
    r = AttackResult.from_predictions("t", truth=truth, prediction=pred, confidence=conf)
    walk = nm.confidence_walk(r)
    grid = nm.precision_vs_prediction_rate(r, sorted(set(conf)))
    assert len(walk) == len(set(conf))
    pd.testing.assert_frame_equal(walk[grid.columns].astype(float), grid.astype(float))
    assert nm.precision_vs_prediction_rate(r).equals(walk)


def test_perfect_bootstrap_agrees_with_the_walk_on_each_sample() -> None:
    rng = np.random.default_rng(4)
    for trial in range(4):
        n = 60
        conf = np.round(rng.uniform(0.5, 1.0, n), 1)
        ok = rng.uniform(size=n) < 0.5 + 0.5 * (conf - 0.5) * 2
        truth = np.array(["x"] * n, dtype=object)
        r = AttackResult.from_predictions("t", truth=truth, prediction=np.where(ok, "x", "y"), confidence=conf)
        got = nm.perfect_bootstrap(r, 5, n_boot=30, seed=trial)
        gen = np.random.default_rng(trial)
        w = gen.multinomial(n, np.full(n, 1.0 / n), size=30)
        for b in range(30):
            idx = np.repeat(np.arange(n), w[b])
            sample = AttackResult.from_predictions("s", truth=truth[idx], prediction=r.prediction[idx],
                                                   confidence=conf[idx])
            expect = nm.perfect_precision(nm.confidence_walk(sample), 5)["perfect"]
            assert got[b] == expect, (trial, b)


def test_fig5_counts_and_their_interval() -> None:
    from anonlab.intervals import percentile_interval

    assert percentile_interval(np.array([3] * 100)) == (3.0, 3.0)
    rep = pd.DataFrame({"fraction": [0.0, 1.0, 0.0, 1.0], "secret": ["a", "a", "b", "b"], "kind": ["continuous"] * 4,
                        "precision": [0.5, 0.6, 0.5, 0.51], "targets": [3000] * 4})
    lo, hi = ch.replication_count_interval(rep, seed=1)
    assert lo <= 1 <= hi and hi <= 2


def test_pi_across_tolerances_changes_with_the_bound() -> None:
    a = AttackResult.from_predictions("a", truth=[100.0, 100.0], prediction=[101.0, 108.0])
    b = AttackResult.from_predictions("b", truth=[100.0, 100.0], prediction=[104.0, 120.0])
    t = nm.pi_across_tolerances(a, b, [0.02, 0.1, 0.5], basis="relative")
    assert t["pi"].iloc[:2].tolist() == [0.5, 1.0] and math.isnan(t["pi"].iloc[2])


def test_leave_one_out_matches_relaxed_on_a_deterministic_secret() -> None:
    df = _toy(300)
    kinds = nm.attribute_kinds(df)
    split = nm.split_members(df, 200, 100, seed=0)
    loo = nm.leave_one_out_baseline(df, "degree", split.non_members[:5], known=["job"], kinds=kinds,
                                    settings=nm.ModelSettings(C=1.0))
    assert score(loo).precision == 1.0 and loo.n_targets == 5


def test_cart_synthesizer_is_deterministic_and_keeps_values() -> None:
    df = _toy(500)
    a, b = cart_synthesize(df, seed=3), cart_synthesize(df, seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert a.shape == df.shape and list(a.columns) == list(df.columns)
    assert set(a["job"]) <= set(df["job"]) and set(a["age"]) <= set(df["age"])
    # degree is a function of job in the original; CART keeps it (leaves are pure)
    assert (a["degree"] == a["job"].map({"prof": "phd", "clerk": "hs", "nurse": "ba"})).all()
    assert not a.equals(cart_synthesize(df, seed=4))


def test_attribute_kinds_rule() -> None:
    df = pd.DataFrame({"n": np.arange(30) % 12, "few": np.arange(30) % 3, "s": ["a"] * 30})
    assert nm.attribute_kinds(df) == {"n": "continuous", "few": "categorical", "s": "categorical"}
    assert nm.attribute_kinds(df, overrides={"few": "continuous"})["few"] == "continuous"


def test_bank_churners_loader_reads_a_tiny_csv(tmp_path) -> None:
    rows = []
    for i in range(4):
        row = {c: (i if c not in ("Attrition_Flag", "Gender", "Education_Level", "Marital_Status",
                                  "Income_Category", "Card_Category") else f" v{i % 2} ")
               for c in BANK_CHURNERS_COLUMNS}
        row["Naive_Bayes_Classifier_x"] = 0.5
        rows.append(row)
    path = tmp_path / "BankChurners.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    df = load_bank_churners(path)
    assert list(df.columns) == BANK_CHURNERS_COLUMNS and len(df) == 4
    assert df["Gender"].tolist() == ["v0", "v1", "v0", "v1"]
    table, kinds = ch.load_table("bankchurners", path=str(path))
    assert "CLIENTNUM" not in table.columns
    assert sum(k == nm.CATEGORICAL for k in kinds.values()) == 6
    assert sum(k == nm.CONTINUOUS for k in kinds.values()) == 14
    m = ch.measure_bankchurners(table)
    assert m["fw.fig3.n_categorical"].value == 6 and m["fw.fig3.n_pii"].value == 5
    assert m["fw.fig3.distinct_values"].value is False  # a 4-row file has other counts
    assert m["fw.fig4.some_baselines_high"].value is None


# --------------------------------------------------------------------------- chapter decisions


def test_measure_s1_and_pi_examples() -> None:
    s1 = ch.measure_s1()
    assert s1["fw.s1.base_rate.balanced.tp"].value == 1000 and s1["fw.s1.base_rate.skewed.fp"].value == 99
    assert s1["fw.s1.base_rate.skewed.precision"].value == pytest.approx(20 / 119)
    assert s1["fw.s1.majority_sex_example"].value == pytest.approx(0.8)
    assert all(m.value == pytest.approx(0.5) for m in ch.measure_s4_3().values())


def test_majority_guess_equals_majority_share() -> None:
    r = majority_baseline(["m"] * 8 + ["f"] * 2)
    assert score(r).precision == pytest.approx(0.8)


def test_outlier_attack_claim() -> None:
    m = ch.measure_s2(0)["fw.s2.outlier_attack_low_coverage"]
    assert m.value is True


def test_bankchurners_claims_without_the_file_are_not_measured() -> None:
    m = ch.measure_bankchurners(None)
    assert set(m) == set(ch.BANKCHURNERS_IDS)
    assert all(v.value is None and "bankchurners_path" in v.note for v in m.values())


def _toy_stand_in_checks() -> pd.DataFrame:
    """The BankChurners tests applied to a toy stand-in table of two secrets."""
    f4 = pd.DataFrame({"secret": ["a", "a", "b", "b"], "kind": ["categorical", "categorical", "continuous", "continuous"],
                       "known": ["all other attributes", "PII only"] * 2, "precision": [0.95, 0.5, 0.25, 0.2],
                       "prediction_rate": [1.0] * 4})
    s5 = pd.DataFrame({"secret": ["a"], "perfect (≥1 prediction)": [True], "perfect (≥10 predictions)": [True]})
    c5 = pd.DataFrame({"secret": ["a", "a"], "threshold": [0.0, 0.9], "predictions": [100, 20],
                       "prediction_rate": [1.0, 0.2], "precision": [0.9, 1.0]})
    e6 = pd.DataFrame({"secret": ["a"], "kind": ["categorical"], "change": [0.0], "significant": [False]})
    f8 = pd.DataFrame({"secret": ["a", "b"], "difference": [0.0, -0.3], "non-member": [0.95, 0.25],
                       "prior (synthetic)": [0.95, 0.0]})
    return ch.stand_in_checks("Toy", f4=f4, f5_summary=s5, f5_curves=c5, rep_effects=e6, f8=f8)


def test_each_bankchurners_claim_without_the_file_says_why_in_its_own_words() -> None:
    """Issue 35: no shared stand-in sentence: a count of the file says why no stand-in has it, a test that a
    stand-in can run gives its value there and what the rules would read."""
    stand = _toy_stand_in_checks()
    m = ch.measure_bankchurners(None, stand_in=stand)
    notes = {cid: v.note for cid, v in m.items()}
    assert len(set(notes.values())) == len(ch.BANKCHURNERS_IDS)  # one note per claim
    assert all(v.value is None for v in m.values())
    assert "on Toy the same test gives 0" in notes["fw.fig6.replication_effect"]
    assert "would read as not reproduced" in notes["fw.fig6.replication_effect"]  # no significant change; paper 2
    assert "on Toy the same test gives holds" in notes["fw.fig4.some_baselines_high"]
    assert "would read as reproduced" in notes["fw.fig4.some_baselines_high"]
    assert "no stand-in" in notes["fw.s4_4.bankchurners.rows"] and "Toy" not in notes["fw.s4_4.bankchurners.rows"]
    assert set(ch.NO_STAND_IN) | set(ch.STAND_IN_IDS) == set(ch.BANKCHURNERS_IDS)


def test_measure_adult_decisions() -> None:
    pit = pd.DataFrame({"secret": ["a", "a", "b", "b"], "tolerance": [0.01, 0.1] * 2, "pi": [0.1, 0.12, 0.2, 0.5],
                        "spread": [0.02, 0.02, 0.3, 0.3], "spread_low": [0.0, 0.0, 0.1, 0.1],
                        "spread_high": [0.05, 0.05, 0.5, 0.5]})
    cvr = pd.DataFrame({"secret": ["s"], "difference": [0.01], "targets": [100]})
    m = ch.measure_adult(pit, cvr)
    c = ch.claim("fw.s4_3.pi_independent_of_error")
    pi = m["fw.s4_3.pi_independent_of_error"]
    assert pi.value == 0.3 and pi.ci == (0.1, 0.5)  # b: the interval that lies highest
    assert ch.rules.decide(c, {"measured": pi.value, "ci": list(pi.ci)}) == "not reproduced"
    assert m["fw.s4_2.relaxed_close_to_complete"].value is True
    m2 = ch.measure_adult(pit[pit["secret"] == "a"], cvr.assign(difference=[-0.2]))
    pi2 = m2["fw.s4_3.pi_independent_of_error"]
    assert ch.rules.decide(c, {"measured": pi2.value, "ci": list(pi2.ci)}) == "reproduced"
    assert m2["fw.s4_2.relaxed_close_to_complete"].value is False


def test_the_spread_of_pi_comes_with_a_bootstrap_interval() -> None:
    rng = np.random.default_rng(6)
    truth = rng.uniform(50, 150, 800)
    a = AttackResult.from_predictions("a", truth=truth, prediction=truth * rng.normal(1, 0.05, 800))
    b = AttackResult.from_predictions("b", truth=truth, prediction=truth * rng.normal(1, 0.2, 800))
    out = nm.pi_spread_bootstrap(a, b, [0.01, 0.05, 0.2], basis="relative", n_boot=100, seed=1)
    pi = nm.pi_across_tolerances(a, b, [0.01, 0.05, 0.2], basis="relative")["pi"]
    assert out["spread"] == pytest.approx(pi.max() - pi.min())
    assert out["low"] <= out["spread"] <= out["high"] and out["high"] - out["low"] < 0.5
    assert nm.pi_spread_bootstrap(a, b, [0.01, 0.05, 0.2], basis="relative", n_boot=100, seed=1) == out


def test_fig_summaries() -> None:
    f4 = pd.DataFrame({"secret": ["x", "x", "y", "y"], "kind": ["categorical"] * 2 + ["continuous"] * 2,
                       "known": ["all other attributes", "PII only"] * 2, "precision": [0.9, 0.8, 0.5, 0.6],
                       "prediction_rate": [1.0] * 4})
    f = ch.fig4_findings(f4)
    assert f["max_precision"] == 0.9 and f["pii_higher"] == ["y"] and f["categorical_perfect"] == 0
    curves = pd.DataFrame({"secret": ["x"] * 3, "threshold": [0.0, 0.5, 0.9], "predictions": [100, 50, 20],
                           "prediction_rate": [1.0, 0.5, 0.2], "precision": [0.7, 0.9, 1.0]})
    assert ch.threshold_tradeoff(curves, 10)["holds"]
    assert ch.prior_gaps(pd.DataFrame({"secret": ["a", "b", "c"], "difference": [0.0, -0.01, -0.8]}))["share_close"] \
        == pytest.approx(2 / 3)


def test_chapter_parameters_refuse_bad_values() -> None:
    spec = ch.CHAPTER.parameters
    with pytest.raises(ParameterError, match="tolerance_basis"):
        spec.validate({"tolerance_basis": "absolute"})
    with pytest.raises(ParameterError, match="n_members"):
        spec.validate({"n_members": 25_000, "n_non_members": 10_000})
    with pytest.raises(ParameterError, match="adult_pii"):
        spec.validate({"adult_pii": ["age", "salary"]})
    with pytest.raises(ParameterError, match="thresholds"):
        spec.validate({"thresholds": [0.9, 0.5]})  # Fig 5 walks every distinct p_max: no grid to give
    with pytest.raises(ParameterError, match="bankchurners_path"):
        spec.validate({"bankchurners_path": "/nonexistent/BankChurners.csv"})
    with pytest.raises(ParameterError, match="secrets"):
        spec.validate({"secrets": ["salary"]})
    assert spec.validate({"secrets": ["income", "citizenship"]})["secrets"] == ["income", "citizenship"]
    with pytest.raises(ParameterError, match="datasets"):
        spec.validate({"datasets": ["adult", "netflix"]})


def test_marginal_synthesizer_keeps_marginals_and_breaks_relations() -> None:
    from anonlab.mechanisms.synthesis import marginal_synthesize

    df = _toy(2000)
    syn = marginal_synthesize(df, seed=0)
    assert syn.shape == df.shape and set(syn["job"]) == set(df["job"])
    assert abs((syn["coin"] == "h").mean() - (df["coin"] == "h").mean()) < 0.05
    same = (syn["degree"] == syn["job"].map({"prof": "phd", "clerk": "hs", "nurse": "ba"})).mean()
    assert same < 0.5  # degree no longer follows job


# ---------------------------------------------------------------------------
# the course: goals, exercises, the glue keys they read
# ---------------------------------------------------------------------------

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "05_nonmember_framework.ipynb"


def _glued_keys() -> set[str]:
    """Glue keys the notebook glues through the run: ``run.glue("key", ...)``, the keys of the dicts given to
    ``run.glue_all`` / ``run.glue_verdicts``, and the ledger's values (``run.glue_paper(chapter.PAPER)``)."""
    import ast

    nb = json.loads(NOTEBOOK.read_text())
    keys: set[str] = set()
    for c in nb["cells"]:
        if c["cell_type"] != "code" or "parameters" in c["metadata"].get("tags", []):
            continue
        for node in ast.walk(ast.parse("".join(c["source"]))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "run"):
                continue
            arg = node.args[0] if node.args else None
            if node.func.attr == "glue" and isinstance(arg, ast.Constant):
                keys.add(arg.value)
            elif node.func.attr in ("glue_all", "glue_verdicts") and isinstance(arg, ast.Dict):
                keys |= {k.value for k in arg.keys if isinstance(k, ast.Constant)}
            elif node.func.attr == "glue_paper":
                assert ast.unparse(arg) == "chapter.PAPER"
                keys |= set(ch.PAPER)
            elif node.func.attr in ("glue_sentence", "glue_sentences"):
                keys |= _sentence_keys(node)
    return keys


def _sentence_keys(node: Any) -> set[str]:
    """The keys of the chapter's sentences glued by one ``run.glue_sentence(s)`` call: ``chapter.name_list``'s
    first argument, and the key each other sentence function of the chapter gives (called here on small numbers)."""
    import ast

    gaps = pd.DataFrame({"secret": ["a"], "recognised": [False]})
    fixed = {"all_vs_pii_sentence": ch.all_vs_pii_sentence(1.0, 0.0).key, "pi_moves_sentence": ch.pi_moves_sentence(0.0).key,
             "twin_sentence": ch.twin_sentence(gaps).key, "naive_sentence": ch.naive_sentence(0.1, 0.1).key}
    keys = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                and isinstance(call.func.value, ast.Name) and call.func.value.id == "chapter":
            if call.func.attr == "name_list":
                keys.add(call.args[0].value)
            elif call.func.attr in fixed:
                keys.add(fixed[call.func.attr])
    return keys


def test_every_glue_key_of_the_prose_is_glued() -> None:
    nb = json.loads(NOTEBOOK.read_text())
    prose = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    used = set(re.findall(r"\{glue:text\}`([^`:]+)", prose))
    assert used and used <= _glued_keys(), used - _glued_keys()


def test_goals_and_assumptions() -> None:
    assert 1 <= len(ch.CHAPTER.goals) <= 3 and all(g.endswith(".") for g in ch.CHAPTER.goals)
    assert ch.CHAPTER.assumes


def test_exercises_validate_and_read_glued_values() -> None:
    glued = _glued_keys()
    assert {"a4_mean_cat", "a4_mean_cont", "pi_spread", "v_pi", "share_close8", "naive_pi_nb"} <= glued
    assert len(ch.CHAPTER.exercises) >= 3
    quick = ch.CHAPTER.parameters.validate(dict(ch.CHAPTER.quick))
    for e in chapters.get(ch.CHAPTER.name).exercises:  # the questions are read from the page
        variant = ch.CHAPTER.parameters.validate({**ch.CHAPTER.quick, **e.parameters})
        assert variant != quick, e.key  # the exercise changes something
        assert "Predict" in e.question, e.key  # prediction first
        for name in e.parameters:  # the question names the change
            assert f"`{name} = " in e.question, (e.key, name)
        assert set(e.answer) <= glued, (e.key, set(e.answer) - glued)


def test_fig4_findings_give_the_means_the_exercises_read() -> None:
    f4 = pd.DataFrame({"secret": ["a", "a", "b", "b"], "kind": ["categorical", "categorical", "continuous", "continuous"],
                       "known": ["all other attributes", "PII only"] * 2, "precision": [1.0, 0.5, 0.25, 0.75],
                       "prediction_rate": [1.0] * 4})
    f = ch.fig4_findings(f4)
    assert (f["mean_categorical"], f["mean_continuous"], f["mean_all"], f["mean_pii"]) == (1.0, 0.25, 0.625, 0.625)
    assert f["pii_higher"] == ["b"] and f["categorical_perfect"] == 1


def test_the_notebook_includes_the_course_pages() -> None:
    nb = json.loads(NOTEBOOK.read_text())
    md = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    assert md[1].strip() == "```{include} _generated/chapters/05_nonmember_framework.header.md\n```"
    exercises = next(m for m in md if m.startswith("## Exercises"))
    assert chapters.page_exercises(exercises)  # the questions are written in the page
    prose = "\n".join(md)
    for term in ("non-member baseline", "precision improvement", "precision", "coverage", "prediction rate",
                 "base rate"):
        assert "{term}`" + term in prose, term


# ---------------------------------------------------------------------------
# speed: one fit per distinct input, independent fits on two processes, same results
# ---------------------------------------------------------------------------


def test_a_repeated_fit_is_served_from_the_callers_store_with_the_same_predictions(monkeypatch) -> None:
    df = _toy(600)
    split = nm.split_members(df, 400, 200, seed=1)
    fits = nm.FitStore()
    kw = dict(members=split.members, targets=split.non_members, analysis="model")
    first = nm.nonmember_baseline(df, "degree", fits=fits, **kw)
    assert len(fits) == 1
    calls = []
    real = nm._fit_model
    monkeypatch.setattr(nm, "_fit_model", lambda *a: calls.append(a) or real(*a))
    again = nm.nonmember_baseline(df, "degree", fits=fits, **kw)
    assert not calls and np.array_equal(first.prediction, again.prediction)
    assert np.array_equal(first.confidence, again.confidence)
    again.prediction[:] = "changed"  # a caller's edit does not reach the store
    third = nm.nonmember_baseline(df, "degree", fits=fits, **kw)
    assert np.array_equal(first.prediction, third.prediction)
    nm.nonmember_baseline(df, "degree", **kw)  # without a store nothing is kept: the science does not cache
    assert len(calls) == 1


def test_the_tolerance_rule_is_not_part_of_a_fits_key() -> None:
    df = _toy(300)
    kinds = nm.attribute_kinds(df)
    a = nm._fit_key(df, df, "age", ["job"], kinds, nm.ModelSettings(tolerance_basis="range"))
    b = nm._fit_key(df, df, "age", ["job"], kinds, nm.ModelSettings(tolerance_basis="relative", tolerance=0.1))
    c = nm._fit_key(df, df, "age", ["job"], kinds, nm.ModelSettings(alpha=0.5))
    d = nm._fit_key(df.iloc[::-1], df, "age", ["job"], kinds, nm.ModelSettings())
    assert a == b and a != c and a != d


def test_parallel_fits_equal_the_sequential_loop() -> None:
    df = _toy(800, seed=3)
    kinds = nm.attribute_kinds(df)
    split = nm.split_members(df, 500, 300, seed=2)
    settings = nm.ModelSettings(C=0.5)
    one, _ = nm.framework_table(df.loc[split.members], df.loc[split.non_members], list(df.columns),
                                {"all": None, "job only": ["job"]}, kinds=kinds, settings=settings, n_jobs=1)
    two, _ = nm.framework_table(df.loc[split.members], df.loc[split.non_members], list(df.columns),
                                {"all": None, "job only": ["job"]}, kinds=kinds, settings=settings, n_jobs=2)
    pd.testing.assert_frame_equal(one, two, check_exact=True)
    targets = split.non_members[:6]
    a = nm.leave_one_out_baseline(df, "age", targets, kinds=kinds, n_jobs=1)
    b = nm.leave_one_out_baseline(df, "age", targets, kinds=kinds, n_jobs=2)
    assert np.array_equal(a.prediction.astype(float), b.prediction.astype(float))
    assert np.array_equal(a.targets, b.targets) and np.array_equal(a.is_correct(), b.is_correct())


def test_the_prepared_leave_one_out_path_gives_fit_predicts_results() -> None:
    rng = np.random.default_rng(5)
    n = 300
    df = pd.DataFrame({"job": rng.choice(["a", "b", "c"], n), "sex": rng.choice(["f", "m"], n),
                       "age": rng.integers(18, 80, n).astype(float), "hours": rng.normal(40, 8, n)})
    kinds = nm.attribute_kinds(df)
    targets = np.array([3, 17, 250])
    settings = nm.ModelSettings(C=1.0)
    for secret, span in (("sex", None), ("job", None), ("hours", 30.0)):
        args = dict(known=None, kinds=kinds, settings=settings, analysis="model", value_range=span)
        fast = nm._leave_one_out_chunk(df, secret, targets, args)
        slow = [nm.fit_predict(df.drop(index=[t]), df.loc[[t]], secret, **args) for t in targets]
        for a, b in zip(fast, slow):
            assert np.array_equal(a.prediction, b.prediction) and np.array_equal(a.is_correct(), b.is_correct())
            assert (a.confidence is None) == (b.confidence is None)
            if a.confidence is not None:
                assert np.array_equal(a.confidence, b.confidence)


def _awkward(n: int = 400, seed: int = 3) -> tuple[pd.DataFrame, dict[str, str]]:
    """A table with what the encoder must get right: NaN, integer and float categories, many and few levels."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"job": rng.choice(["a", "b", "c", None], n).astype(object),
                       "code": rng.choice([3, 10, 21, 100], n), "grade": rng.choice([1.0, 2.5, np.nan], n),
                       "sex": rng.choice(["f", "m"], n), "town": rng.choice([f"t{i}" for i in range(40)], n),
                       "age": rng.integers(18, 80, n).astype(float), "hours": rng.normal(40, 8, n)})
    kinds = {"job": nm.CATEGORICAL, "code": nm.CATEGORICAL, "grade": nm.CATEGORICAL, "sex": nm.CATEGORICAL,
             "town": nm.CATEGORICAL, "age": nm.CONTINUOUS, "hours": nm.CONTINUOUS}
    return df, kinds


def _pipeline_matrices(train: pd.DataFrame, targets: pd.DataFrame, known: list, kinds: dict) -> tuple:
    tr, te = nm._prepare(train[known], kinds), nm._prepare(targets[known], kinds)
    features = nm._pipeline(known, kinds, nm.CATEGORICAL, nm.ModelSettings()).named_steps["features"]
    return features.fit_transform(tr), features.transform(te)


def _identical(a: object, b: object) -> bool:
    from scipy import sparse

    if type(a) is not type(b) or a.shape != b.shape:
        return False
    if sparse.issparse(a):
        return all(np.array_equal(getattr(a, k), getattr(b, k)) and getattr(a, k).dtype == getattr(b, k).dtype
                   for k in ("indptr", "indices", "data"))
    return a.dtype == b.dtype and np.array_equal(a, b)


@pytest.mark.parametrize("known", [["job", "code", "grade", "town", "age", "hours"], ["job", "code", "grade", "sex"],
                                   ["age", "hours"], ["sex", "age", "hours"], ["town"]])
def test_the_design_matrix_is_the_pipelines_entry_for_entry(known: list) -> None:
    from anonlab.measures.design import design_pair

    df, kinds = _awkward()
    train, targets = df.iloc[:300].copy(), df.iloc[300:].copy()
    train = train[train["town"] != "t7"]  # a category only targets have: unknown to the encoder
    want = _pipeline_matrices(train, targets, known, kinds)
    got = design_pair(train, targets, known, kinds, nm._prepare)
    assert _identical(got[0], want[0]) and _identical(got[1], want[1])


def test_the_fits_predict_what_the_pipeline_predicts() -> None:
    df, kinds = _awkward()
    train, targets = df.iloc[:300], df.iloc[300:]
    settings = nm.ModelSettings(C=1.0)
    for secret in ("sex", "town", "hours"):
        known = [c for c in df.columns if c != secret]
        pipe = nm._pipeline(known, kinds, kinds[secret], settings)
        tr, te = nm._prepare(train, kinds), nm._prepare(targets[known], kinds)
        pipe.fit(tr[known], tr[secret].to_numpy())
        pred, conf = nm._fit_model(train, targets, secret, known, kinds, settings)
        if kinds[secret] == nm.CATEGORICAL:
            proba = pipe.predict_proba(te)
            assert np.array_equal(conf, proba.max(axis=1))
            assert np.array_equal(pred, pipe.named_steps["model"].classes_[proba.argmax(axis=1)].astype(object))
        else:
            assert conf is None and np.array_equal(pred, pipe.predict(te).astype(float))


def test_leave_one_out_fits_are_the_pipelines_fits_without_the_target() -> None:
    df, kinds = _awkward(200)
    df.loc[5, "town"] = "only-here"  # dropping row 5 drops a category
    settings = nm.ModelSettings(C=1.0)
    for secret, span in (("sex", None), ("hours", 30.0)):
        args = dict(known=None, kinds=kinds, settings=settings, analysis="model", value_range=span)
        fast = nm._leave_one_out_chunk(df, secret, np.array([5, 17]), args)
        known = [c for c in df.columns if c != secret]
        for res, t in zip(fast, (5, 17)):
            tr, te = nm._prepare(df.drop(index=[t]), kinds), nm._prepare(df.loc[[t], known], kinds)
            pipe = nm._pipeline(known, kinds, kinds[secret], settings).fit(tr[known], tr[secret].to_numpy())
            if kinds[secret] == nm.CATEGORICAL:
                assert np.array_equal(res.confidence, pipe.predict_proba(te).max(axis=1))
            else:
                assert np.array_equal(res.prediction.astype(float), pipe.predict(te).astype(float))
            assert list(res.targets) == [t]


def test_a_table_of_fits_memoises_columns_only_while_it_runs() -> None:
    d = _prepared_toy()
    members, targets = d["table"].loc[d["split"].members], d["table"].loc[d["split"].non_members]
    settings = nm.ModelSettings(C=1.0)
    args = dict(kinds=d["kinds"], settings=settings, n_jobs=1)
    fits = nm.FitStore()
    first, _ = nm.framework_table(members, targets, ["job", "age"], {"all": None, "PII": ["age"]}, fits=fits, **args)
    assert fits.columns is None and len(fits) > 0
    again, _ = nm.framework_table(members, targets, ["job", "age"], {"all": None, "PII": ["age"]}, **args)
    pd.testing.assert_frame_equal(first, again)
    changed = members.copy()
    changed["coin"] = changed["coin"].to_numpy()[::-1]
    with fits.reading() as store:
        k1 = nm._fit_key(members, targets, "job", ["coin", "age"], d["kinds"], settings, store.columns)
        k2 = nm._fit_key(changed, targets, "job", ["coin", "age"], d["kinds"], settings, store.columns)
        assert k1 != k2 and k1 == nm._fit_key(members, targets, "job", ["coin", "age"], d["kinds"], settings,
                                              store.columns)
    assert k1 == nm._fit_key(members, targets, "job", ["coin", "age"], d["kinds"], settings)  # memo or not


def test_bankchurners_monte_carlo_counts_and_precisions_carry_intervals() -> None:
    from anonlab import claims
    from anonlab.claims.recorder import _check_intervals

    raw = pd.DataFrame({"Gender": ["F", "M"], "Credit_Limit": [1.0, 2.0]})
    s5 = pd.DataFrame({"secret": ["a", "b"], "perfect (≥1 prediction)": [True, True],
                       "perfect (≥10 predictions)": [True, False]})
    c5 = pd.DataFrame({"secret": ["a", "a"], "threshold": [0.0, 0.9], "predictions": [100, 20],
                       "prediction_rate": [1.0, 0.2], "precision": [0.9, 1.0]})
    rep = pd.DataFrame({"fraction": [0.0, 1.0], "secret": ["a", "a"], "kind": ["continuous"] * 2,
                        "precision": [0.5, 0.6], "targets": [3000, 3000]})
    f8 = pd.DataFrame({"secret": ["Total_Revolving_Bal"], "difference": [-0.5], "non-member": [0.95],
                       "prior (synthetic)": [0.45], "non-member low": [0.94], "non-member high": [0.96],
                       "prior low": [0.43], "prior high": [0.47]})
    m = ch.measure_bankchurners(raw, f5_summary=s5, f5_curves=c5, rep_effects=ch.replication_effects(rep), f8=f8,
                                f5_boot=np.array([1] * 90 + [2] * 10), rep=rep)
    assert m["fw.fig5.perfect_precision_count"].value == 1 and m["fw.fig5.perfect_precision_count"].ci == (1.0, 2.0)
    assert m["fw.fig6.replication_effect"].ci == (1.0, 1.0)
    assert m["fw.fig8.total_revolving_bal.prior"].ci == (0.43, 0.47)
    for cid, v in m.items():  # the recorder's rule: a Monte Carlo number has its interval
        if claims.claim(cid).monte_carlo:
            _check_intervals(cid, v.value, v.ci, v.alternatives)


def test_stand_in_checks_apply_the_bankchurners_tests_without_recording() -> None:
    t = _toy_stand_in_checks()
    got = t.set_index("claim")["the rules on this value"]
    assert got["fw.fig4.some_baselines_high"] == "reproduced" and got["fw.fig4.all_vs_pii"] == "reproduced"
    assert got["fw.fig6.replication_effect"] == "not reproduced"  # no significant change; the paper found 2
    assert set(got) <= {"reproduced", "not reproduced"} and list(t["claim"]) == ch.STAND_IN_IDS


# ---------------------------------------------------------------------------
# figures: designed for the text column; the explorable Fig 5
# ---------------------------------------------------------------------------


def _prepared_toy(n: int = 600) -> dict:
    df = _toy(n)
    kinds = nm.attribute_kinds(df)
    return {"table": df, "kinds": kinds, "split": nm.split_members(df, 400, 200, seed=0), "secrets": list(df.columns),
            "pii": ["age"], "label": "toy"}


def test_fig5_curves_are_fig5s_curves_and_thin_to_real_thresholds() -> None:
    from anonbook.figures import nonmember as figures

    d = _prepared_toy()
    settings = nm.ModelSettings(C=1.0)
    curves = ch.fig5_curves(d, settings)
    pd.testing.assert_frame_equal(curves, ch.fig5(d, settings, 5, n_boot=5)[0])
    series = figures.fig5_series(curves, per_decade=2)
    assert set(series) == {"job", "degree", "coin"}
    for secret, (x, y) in series.items():
        c = curves[curves["secret"] == secret]
        rows = set(zip(c["prediction_rate"], c["precision"]))
        assert set(zip(x, y)) <= rows  # real thresholds only, nothing interpolated
        assert x[0] == c["prediction_rate"].iloc[0] and x[-1] == c["prediction_rate"].iloc[-1]  # both ends kept
    assert ch.fig5_curves({**d, "secrets": ["age"]}, settings).empty


def test_figures_fit_the_text_column_with_text_of_10_pt() -> None:
    """Each figure's natural width (bbox tight, 110 dpi) is at most 857 px, no text below 10 pt, at most 2 panels a row."""
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    from anonbook import plotting
    from anonbook.figures import nonmember as figures

    plotting.book_style()
    from anonlab.data.loaders import CENSUS_INCOME_COLUMNS

    secrets = BANK_CHURNERS_COLUMNS[1:]  # the widest real case of Figs 5-8: BankChurners' 20 attributes
    long4 = sorted(CENSUS_INCOME_COLUMNS, key=len)[-20:]  # and Census-Income's longest names in Fig 4
    f4 = pd.DataFrame({"secret": np.repeat(long4, 2), "kind": "categorical",
                       "known": ["all other attributes", "PII only"] * 20, "precision": np.linspace(0, 1, 40)})
    rep = pd.DataFrame({"secret": np.repeat(secrets, 4), "fraction": [0.0, 0.1, 0.5, 1.0] * 20,
                        "precision": np.linspace(0, 1, 80)})
    rep10 = pd.DataFrame({"secret": np.repeat(secrets, 11), "fraction": [0.0, *np.linspace(0.1, 1.0, 10)] * 20,
                          "precision": np.linspace(0, 1, 220)})
    cmp_ = pd.DataFrame({"secret": secrets, "non-member": np.linspace(0, 1, 20), "prior (synthetic)": np.linspace(0, 0.9, 20)})
    curves = pd.DataFrame({"secret": np.repeat(secrets[:9], 3), "predictions": [100, 10, 1] * 9,
                           "prediction_rate": [1.0, 0.1, 0.01] * 9, "precision": [0.5, 0.8, 1.0] * 9})
    pit = pd.DataFrame({"secret": np.repeat(secrets[:5], 2), "tolerance": [0.01, 0.2] * 5, "pi": np.linspace(-0.5, 0.5, 10)})
    figs = [figures.plot_fig4({"Adult": f4, "KDD Census-Income": f4}), figures.plot_fig5(curves, title="t"),
            figures.plot_fig6(rep, title="t"), figures.plot_fig6(rep10, title="t"), figures.plot_fig8(cmp_, title="t"), figures.plot_pi_vs_tolerance(pit)]
    from .test_figures_01_03_04_08 import layout_problems  # the book's one checker of the column's rules

    for fig in figs:
        assert layout_problems(fig) == [], fig.axes[0].get_title()
    plt.close("all")

"""Tests of anonbook.chapters.ch01_syntactic_anonymity: the declaration and the claim decisions.

The slides' values are hand-checked in tests/test_syntactic.py; here we check
that each claim function decides on the right number, that it can fail
(a changed table flips it), and that bad parameters are refused before a run
starts, with a message naming the problem.
"""

from __future__ import annotations

import ast
import json
import math
import re
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

from anonbook import runner
from anonbook import chapters
from anonbook.chapters import ch01_syntactic_anonymity as ch
from anonbook.chapters import kit
from anonbook.figures import syntactic as figures
from anonlab.data import tables
from anonlab.measures import syntactic as ms
from anonlab.mechanisms import syntactic as syn
from anonlab.validation import ParameterError

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "01_syntactic_anonymity.ipynb"
SQI = tables.SALARY_DISEASE_QUASI_IDENTIFIERS


@pytest.fixture()
def slides() -> ch.SlideTables:
    return ch.slide_tables()


@pytest.fixture()
def run(tmp_path, monkeypatch) -> kit.ChapterRun:
    """A run of the chapter at its defaults that records into ``tmp_path``."""
    monkeypatch.setenv("ANONLAB_OUTPUT_DIR", str(tmp_path))
    return kit.ChapterRun(ch.CHAPTER, ch.CHAPTER.parameters.defaults())


# ---------------------------------------------------------------------------
# the declaration
# ---------------------------------------------------------------------------


def test_declaration_defaults_and_quick_preset():
    spec = ch.CHAPTER.parameters
    assert ch.CHAPTER.name == NOTEBOOK.stem
    assert spec.defaults() == runner.notebook_parameters(NOTEBOOK)
    assert dict(ch.CHAPTER.quick) == {"table": "adult", "adult_rows": 3000}
    assert ch.CHAPTER.data == ("adult-train",)
    for p in spec.params:  # every parameter: a meaning, and a range or choices (or a switch)
        assert p.help
        assert p.choices is not None or p.high is not None or p.kind == "bool", p.name


def test_sensitive_attribute_that_is_a_quasi_identifier_is_named_as_such():
    with pytest.raises(ParameterError) as err:
        ch.CHAPTER.parameters.validate({"sensitive_attribute": "age"})
    msg = str(err.value)
    assert "'age' is a quasi-identifier" in msg
    assert "must not be a quasi-identifier" in msg
    assert "unknown" not in msg


@pytest.mark.parametrize("values, message", [
    ({"sensitive_attribute": "race", "quasi_identifiers": ["sex"]}, "coarsened by the generalisation ladder"),
    ({"sensitive_attribute": "age", "quasi_identifiers": ["sex"]}, "coarsened by the generalisation ladder"),
    ({"adult_rows": 10_000_000}, "parameter 'adult_rows' must be <= 30162, got 10000000"),
    ({"adult_rows": -1}, "parameter 'adult_rows' must be >= 0"),
    ({"k_target": 0}, "parameter 'k_target' must be >= 1"),
    ({"attack_level": 7}, "parameter 'attack_level' must be <= 6"),
    ({"age_bucket_width": 0}, "parameter 'age_bucket_width' must be >= 1"),
    ({"seed": 2**32}, "parameter 'seed' must be <="),
    ({"table": "adlt"}, "parameter 'table' must be one of 'slides', 'adult'"),
    ({"quasi_identifiers": ["age", "age"]}, "lists a value twice"),
    ({"quasi_identifiers": ["zip"]}, r"unknown value\(s\) \['zip'\]"),
    ({"quasi_identifiers": []}, "needs at least 1 value"),
    ({"sensitive_attribute": "salary"}, "parameter 'sensitive_attribute' must be one of"),
])
def test_bad_parameters_are_refused(values, message):
    with pytest.raises(ParameterError, match=message):
        ch.CHAPTER.parameters.validate(values)


def test_the_runner_refuses_a_run_that_cannot_fit_before_it_starts():
    with pytest.raises(runner.RunError, match="adult_rows' must be <= 30162"):
        runner.validate_parameters(NOTEBOOK, {"adult_rows": 10_000_000})
    assert runner.validate_parameters(NOTEBOOK, {"sensitive_attribute": "income"}) == {
        "sensitive_attribute": "income"}


def test_sample_adult_is_bounded_by_the_loaded_data_and_seeded():
    df = pd.DataFrame({"x": np.arange(50)})
    assert ch.sample_adult(df, 0, 0) is df
    a, b = ch.sample_adult(df, 10, 3), ch.sample_adult(df, 10, 3)
    assert a.equals(b) and list(a.index) == list(range(10))
    assert a["x"].tolist() == df.sample(10, random_state=3)["x"].tolist()
    with pytest.raises(ParameterError, match="parameter 'adult_rows' must be <= 50, got 51"):
        ch.sample_adult(df, 51, 0)
    with pytest.raises(ParameterError, match="parameter 'seed' must be >= 0"):
        ch.sample_adult(df, 5, -1)


# ---------------------------------------------------------------------------
# the slides' claims
# ---------------------------------------------------------------------------


def test_measure_slides_claims_values_and_notes(slides):
    m = ch.measure_slides_claims(slides)
    assert list(m) == [
        "slides.kanon.fig2.k", "slides.kanon.linking_yields_4", "slides.kanon.homogeneity_attack",
        "slides.ldiv.table.k", "slides.ldiv.table.l", "slides.ldiv.similarity_attack",
        "slides.tclose.salary_t", "slides.tclose.disease_t", "slides.linking.zip_gender_dob_unique"]
    got = {cid: (x.value, x.note) for cid, x in m.items()}
    assert got["slides.kanon.fig2.k"] == (4, "")
    assert got["slides.kanon.linking_yields_4"] == (4, "candidates per patient range 4-4")
    assert got["slides.kanon.homogeneity_attack"] == (True, "class (130**, 3*): only Cancer")
    assert got["slides.ldiv.table.k"] == (4, "")
    assert got["slides.ldiv.table.l"] == (True, "distinct l = 3")
    assert got["slides.ldiv.similarity_attack"] == (
        True, "class (476**, 2*): 3 diseases, one group (stomach diseases)")
    assert got["slides.tclose.salary_t"][0] == pytest.approx(1 / 6, abs=1e-15)
    assert got["slides.tclose.disease_t"] == (
        pytest.approx(8 / 27, abs=1e-15),
        "hierarchical EMD; t = 8/27 (Li et al. (height 3)), 5/18 (one level taller (height 4)), "
        "5/9 (no hierarchy (equal distance))")
    assert m["slides.tclose.disease_t"].alternatives == pytest.approx(
        {"Li et al. (height 3)": 8 / 27, "one level taller (height 4)": 5 / 18,
         "no hierarchy (equal distance)": 5 / 9}, abs=1e-15)
    assert all(x.alternatives is None for cid, x in m.items() if cid != "slides.tclose.disease_t")
    assert got["slides.linking.zip_gender_dob_unique"][0] is None
    # plain Python values (JSON and the -W book build need them)
    assert all(type(x.value) in (int, float, bool, type(None)) for x in m.values())


def test_fig2_claims_can_fail(slides):
    # one patient of the (130**, 3*) class has another condition: no homogeneous class
    fig2 = slides.fig2.assign(condition=slides.fig2["condition"].where(slides.fig2.index != 9, "Flu"))
    micro = slides.micro.assign(condition=fig2["condition"])
    m = ch.measure_fig2_claims(micro, fig2)
    assert m["slides.kanon.homogeneity_attack"].value is False
    assert m["slides.kanon.fig2.k"].value == 4
    # a release that is not the recoded microdata is refused, not linked
    with pytest.raises(ValueError, match="not the published table"):
        ch.measure_fig2_claims(slides.micro, slides.fig2.assign(age="*"))


def test_ldiv_claim_compares_with_the_ledger(slides):
    assert ch.measure_ldiv_claims(slides.ldiv)["slides.ldiv.table.l"].value is True
    wrong = ch.measure_ldiv_claims(slides.ldiv, l_expected=2)["slides.ldiv.table.l"]
    assert wrong.value is False and wrong.note == "distinct l = 3"


def test_similarity_claim_can_fail(slides):
    # a hierarchy in which the three stomach diseases are in different groups
    flat = {"*": {"g1": ["gastric ulcer", "flu"], "g2": ["gastritis", "bronchitis"],
                  "g3": ["stomach cancer", "pneumonia"]}}
    sim = ch.similarity_table(slides.sd3, flat)
    assert ms.class_row(sim, **ch.SD3_FIRST_CLASS)["n_distinct_group"] == 3
    assert ch.measure_similarity_claim(slides.sd3, flat)["slides.ldiv.similarity_attack"].value is False


def test_t_closeness_table_and_the_taller_hierarchy(slides):
    t = ch.t_closeness_table(slides.sdt, slides.hierarchy)
    assert list(t.columns) == ["zip_code", "age", "size", "salary (ordered)",
                               "disease (hierarchical)", "disease (one level taller)", "disease (equal)"]
    assert t["salary (ordered)"].max() == pytest.approx(1 / 6)
    assert t["disease (hierarchical)"].max() == pytest.approx(8 / 27)
    assert t["disease (equal)"].max() == pytest.approx(5 / 9)
    assert t["disease (one level taller)"].max() == pytest.approx(5 / 18)
    taller = ms.taller_hierarchy(slides.hierarchy)
    assert ms.hierarchy_height(taller) == ms.hierarchy_height(slides.hierarchy) + 1 == 4
    # same leaves, same groups; only the systems gain a parent
    assert ms.as_parent_map(taller)["flu"] == "respiratory infection"
    assert ms.t_closeness(slides.sdt, SQI, "disease", hierarchy=taller) == pytest.approx(5 / 18)
    # the nested-tree form gives the same taller tree
    assert ms.taller_hierarchy({"*": {"a": ["x"]}}) == {"*": None, "a": "a (extra level)",
                                                          "x": "a", "a (extra level)": "*"}


def test_small_text_helpers(slides):
    assert ch.fraction_text(5 / 18) == "5/18"
    assert ch.linking_range_text(pd.Series([4, 4, 4])) == "4"
    assert ch.linking_range_text(pd.Series([3, 5])) == "between 3 and 5"
    ec = ms.equivalence_classes(slides.fig2, tables.INPATIENT_QUASI_IDENTIFIERS, "condition")
    with pytest.raises(ValueError, match="no equivalence class has"):
        ms.class_row(ec, zip_code="999**")
    with pytest.raises(ValueError, match=r"no column\(s\) \['zip'\]"):
        ms.class_row(ec, zip="130**")


# ---------------------------------------------------------------------------
# Adult: ladder, attacked table, sweep findings
# ---------------------------------------------------------------------------


@pytest.fixture()
def toy_adult() -> pd.DataFrame:
    return pd.DataFrame({
        "age": [23, 37, 38, 61, 45, 29],
        "sex": ["F", "M", "M", "F", "M", "F"],
        "race": ["White", "Black", "White", "Other", "White", "White"],
        "native_country": ["United-States", "Cuba", "United-States", "India", "United-States", "Cuba"],
        "occupation": ["a", "b", "a", "c", "b", "a"],
    })


def test_adult_ladder_levels(toy_adult):
    ladder = ch.adult_ladder(toy_adult, 10)
    assert len(ladder) == ch.LADDER_LEVELS == 7
    assert ladder[0] == {} and ladder[4]["ranges"] == {"age": 20}
    top = syn.generalize(toy_adult, **ladder[6])
    assert set(top["native_country"]) == {"*"} and set(top["race"]) == {"*"}
    level3 = syn.generalize(toy_adult, **ladder[3])
    assert level3["native_country"].tolist() == ["US", "non-US", "US", "non-US", "US", "non-US"]
    assert level3["race"].tolist() == ["white", "non-white", "white", "non-white", "white", "white"]
    assert level3["age"].astype(str).tolist()[:2] == ["[20, 30)", "[30, 40)"]
    assert level3["occupation"].equals(toy_adult["occupation"])  # the secret is never generalised
    # each level coarsens the previous one: k never drops along the ladder
    qis = ["age", "sex", "race", "native_country"]
    ks = [ms.k_anonymity(syn.generalize(toy_adult, **spec), qis) for spec in ladder]
    assert ks == sorted(ks)
    with pytest.raises(ParameterError, match="age_bucket_width"):
        ch.adult_ladder(toy_adult, 0)


def test_describe_ladder(toy_adult):
    d = ch.describe_ladder(ch.adult_ladder(toy_adult, 5))
    assert list(d.columns) == list(ch.LADDER_COLUMNS)
    assert d.loc[0].tolist() == ["exact"] * 3
    assert d.loc[2].tolist() == ["ranges of 5 years", "US / non-US", "exact"]
    assert d.loc[5].tolist() == ["ranges of 20 years", "US / non-US", "white / non-white"]
    assert d.loc[6].tolist() == ["ranges of 20 years", "*", "*"]


def test_attacked_table(slides, toy_adult):
    ladder = ch.adult_ladder(toy_adult, 10)
    a = ch.attacked_table("slides", slides, toy_adult, ladder, 3, ["age"], "occupation")
    assert a.table is slides.fig2 and a.quasi_identifiers == tables.INPATIENT_QUASI_IDENTIFIERS
    b = ch.attacked_table("adult", slides, toy_adult, ladder, 6, ["age", "sex"], "occupation")
    assert b.name == "Adult, level 6" and b.sensitive_attribute == "occupation"
    assert b.table.equals(syn.generalize(toy_adult, **ladder[6]))
    with pytest.raises(ParameterError, match="attack_level"):
        ch.attacked_table("adult", slides, toy_adult, ladder, 7, ["age"], "occupation")
    with pytest.raises(ParameterError, match="table"):
        ch.attacked_table("census", slides, toy_adult, ladder, 0, ["age"], "occupation")


def test_sweep_findings_on_a_real_sweep_and_the_edges(toy_adult):
    qis = ["age", "sex", "race", "native_country"]
    sweep = syn.generalisation_sweep(toy_adult, qis, "occupation", ch.adult_ladder(toy_adult, 10), k=2)
    f = ch.sweep_findings(sweep, 2)
    reached = [lvl for lvl in sweep.index if sweep.loc[lvl, "k"] >= 2]
    assert f["first_level_k"] == (f"level {reached[0]}" if reached else "no level of the ladder")
    assert f["supp_level1"] == sweep.loc[1, "suppressed"]
    assert all(type(v) in (str, float) for v in f.values())
    # nothing reaches k; everything suppressed at level 3
    assert f["t_level3"] == sweep.loc[3, "t"]
    edge = pd.DataFrame({"k": [1] * 7, "suppressed": [1.0] * 7, "t": [0.5] * 7,
                         "l_distinct_after": [np.nan] * 7, "l_entropy_after": [np.nan] * 7})
    f = ch.sweep_findings(edge, 2)
    assert f["first_level_k"] == "no level of the ladder"
    assert f["l_after_level3"] == "undefined" and math.isnan(f["lent_after_level3"])


def test_the_attack_is_recorded_through_the_protocol(slides):
    from anonlab import measures
    from anonlab.attacks.homogeneity import homogeneity_attack

    a = ch.attacked_table("slides", slides, pd.DataFrame(), [{}], 0, [], "")
    result = homogeneity_attack(a.table, a.quasi_identifiers, a.sensitive_attribute).as_attack_result()
    base = measures.majority_baseline(result.truth, targets=result.targets)
    table = measures.yardstick({"homogeneity": result}, {"homogeneity": base})
    row = table.iloc[0]
    assert (row["targets"], row["predictions"], row["precision"]) == (12, 4, 1.0)
    assert row["baseline_precision"] == 1.0  # Cancer is also the majority guess


# ---------------------------------------------------------------------------
# figures and the notebook's exercise
# ---------------------------------------------------------------------------


def test_figures_draw(slides, toy_adult):
    import matplotlib.pyplot as plt

    fig = figures.plot_t_closeness(ch.t_closeness_table(slides.sdt, slides.hierarchy), 0.167, 0.278,
                                   ch.DISEASE_T_COLUMNS)
    assert len(fig.axes) == 2 and fig.axes[0].get_ylim()[1] == pytest.approx(1.1 * 5 / 9)
    assert len(fig.axes[1].patches) == 3 * 3  # three readings x three classes
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [  # one legend, below both panels
        "the slides' t", "salary, per class", *(f"disease: {r}" for r in ch.DISEASE_T_READINGS)]
    qis = ["age", "sex", "race", "native_country"]
    sweep = syn.generalisation_sweep(toy_adult, qis, "occupation", ch.adult_ladder(toy_adult, 10), k=2)
    fig2 = figures.plot_sweep(sweep, 2)
    assert fig2.axes[1].get_ylabel() == "records suppressed (%)"
    assert fig2.axes[1].get_title() == "cost of reaching k = 2"
    plt.close("all")


def test_publishing_nationality_in_figure_2_breaks_k(slides):
    """What Figure 2 gains by suppressing nationality (the old Exercise 1, now a unit test)."""
    with_nationality = slides.fig2.assign(nationality=slides.micro["nationality"])
    assert ms.k_anonymity(slides.fig2, tables.INPATIENT_QUASI_IDENTIFIERS) == 4
    assert ms.k_anonymity(with_nationality, tables.INPATIENT_QUASI_IDENTIFIERS) == 1


# ---------------------------------------------------------------------------
# the Disease t under each reading of the unstated hierarchy (issue 16)
# ---------------------------------------------------------------------------


def test_the_readings_are_the_ledgers_choices():
    from anonlab import claims

    c = claims.claim("slides.tclose.disease_t")
    assert tuple(c.alternatives()) == ch.DISEASE_T_READINGS
    assert c.choices[0]["default"] == ch.DISEASE_T_READINGS[0]


def test_disease_t_readings_exact_values(slides):
    t = ch.t_closeness_table(slides.sdt, slides.hierarchy)
    r = ch.disease_t_readings(t)
    assert list(r) == list(ch.DISEASE_T_READINGS) == list(ch.DISEASE_T_COLUMNS)
    assert r == pytest.approx(dict(zip(ch.DISEASE_T_READINGS, [8 / 27, 5 / 18, 5 / 9])), abs=1e-15)
    # each reading is the t-closeness of the table under that distance (the maximum of its column)
    sqi = tables.SALARY_DISEASE_QUASI_IDENTIFIERS
    assert r["Li et al. (height 3)"] == ms.t_closeness(slides.sdt, sqi, "disease", hierarchy=slides.hierarchy)
    assert r["one level taller (height 4)"] == ms.t_closeness(
        slides.sdt, sqi, "disease", hierarchy=ms.taller_hierarchy(slides.hierarchy))
    assert r["no hierarchy (equal distance)"] == ms.t_closeness(slides.sdt, sqi, "disease", distance="equal")
    # a flat hierarchy (every disease a child of the root) is the equal distance
    flat = {"*": sorted(set(slides.sdt["disease"]))}
    assert ch.disease_t_readings(ch.t_closeness_table(slides.sdt, flat))["Li et al. (height 3)"] == \
        pytest.approx(5 / 9)


def test_disease_t_readings_table(slides):
    t = ch.disease_t_readings_table(ch.disease_t_readings(ch.t_closeness_table(slides.sdt, slides.hierarchy)))
    assert list(t.index) == list(ch.DISEASE_T_READINGS)
    assert t["exact"].tolist() == ["8/27", "5/18", "5/9"]
    assert list(t.columns) == ["t", "exact"]


def test_the_disease_t_verdict_is_computed_from_every_reading(slides, run):
    from anonlab import claims

    table = run.record(ch.measure_slides_claims(slides))
    assert table.loc["slides.tclose.disease_t", "verdict"] == "depends on an unstated choice"
    entry = run.recorder.results["slides.tclose.disease_t"]
    assert {k: a["verdict"] for k, a in entry["alternatives"].items()} == {
        "Li et al. (height 3)": "not reproduced", "one level taller (height 4)": "reproduced",
        "no hierarchy (equal distance)": "not reproduced"}
    # every other claim of the slides keeps its verdict
    verdicts = run.verdicts().to_dict()
    assert verdicts == table["verdict"].to_dict()
    assert verdicts["slides.linking.zip_gender_dob_unique"] == "data unavailable"
    assert [v for cid, v in verdicts.items() if cid not in (
        "slides.tclose.disease_t", "slides.linking.zip_gender_dob_unique")] == ["reproduced"] * 7
    # the verdict can fail both ways: same verdict under every reading -> that verdict
    c = claims.claim("slides.tclose.disease_t")
    miss = {"measured": 0.3, "alternatives": {k: {"measured": v} for k, v in
                                              zip(ch.DISEASE_T_READINGS, [0.3, 0.31, 0.5])}}
    hit = {"measured": 0.278, "alternatives": {k: {"measured": 0.278} for k in ch.DISEASE_T_READINGS}}
    assert claims.decide(c, miss) == "not reproduced" and claims.decide(c, hit) == "reproduced"
    # a reading missing from the measurement is refused
    bad = ch.measure_slides_claims(slides)["slides.tclose.disease_t"]
    with pytest.raises(claims.ClaimError, match="each alternative"):
        run.record({"slides.tclose.disease_t": kit.Measurement(
            bad.value, alternatives={"Li et al. (height 3)": bad.value})})


def test_the_verdicts_the_prose_lists_are_the_rules_words(slides, run):
    measured = ch.measure_slides_claims(slides)
    assert list(ch.VERDICTS.values()) == list(ch.CLAIMS.values()) == list(measured)
    assert set(ch.PAPER.values()) <= set(measured)
    run.record(measured)
    assert run.phrase("slides.tclose.disease_t") == (
        "depends on an unstated choice: reproduced with *one level taller (height 4)* (0.278); "
        "not reproduced with *Li et al. (height 3)* (0.296) and *no hierarchy (equal distance)* (0.556)")
    assert run.phrase("slides.linking.zip_gender_dob_unique") == "data unavailable"
    assert run.phrase("slides.kanon.fig2.k") == "reproduced"
    # a changed measurement changes the words (nothing typed)
    run.record({"slides.ldiv.table.k": 3})
    assert run.phrase("slides.ldiv.table.k") == "not reproduced"


# ---------------------------------------------------------------------------
# the similarity check on Salary
# ---------------------------------------------------------------------------


def test_salary_bands():
    s = pd.Series([3000, 4000, 5000, 11000])
    assert ch.salary_bands(s, 2000).tolist() == ["[3000, 5000)", "[3000, 5000)", "[5000, 7000)",
                                                  "[11000, 13000)"]
    assert ch.salary_bands(s, ch.SALARY_SPAN).nunique() == 1
    with pytest.raises(ParameterError, match="salary_band_width' must be >= 1"):
        ch.salary_bands(s, 0)


@pytest.mark.parametrize("width, n_bands", [
    (1000, [3, 3, 3]),  # each salary its own band: the distinct l
    (2000, [2, 2, 3]),  # bands 3-4K | 5-6K | 7-8K | 9-10K | 11-12K: {3,4|5}, {7|9,10}, {6|8|11}
    (3000, [1, 2, 2]),  # low / medium / high: the first class is all "low"
    (ch.SALARY_SPAN, [1, 1, 1]),
])
def test_salary_similarity_table(slides, width, n_bands):
    t = ch.salary_similarity_table(slides.sd3, width)
    assert t[["zip_code", "age"]].values.tolist() == [["476**", "2*"], ["476**", "3*"], ["4790*", "≥ 40"]]
    assert t["n_distinct"].tolist() == [3, 3, 3]
    assert t["n_bands"].tolist() == n_bands
    assert (t["band"] == "several").tolist() == [n > 1 for n in t["n_bands"]]
    if width == 3000:
        assert t["band"].iloc[0] == "[3000, 6000)"


# ---------------------------------------------------------------------------
# the course: goals, exercises, the glue keys they read
# ---------------------------------------------------------------------------


def _glued_keys() -> set[str]:
    """Glue keys the notebook glues: ``run.glue("key", ...)``, the keys of ``run.glue_all({...})`` dict
    literals, and the keys of the chapter's mappings the run glues (paper values, verdicts, sweep findings)."""
    nb = json.loads(NOTEBOOK.read_text())
    source = "\n".join("".join(c["source"]) for c in nb["cells"]
                       if c["cell_type"] == "code" and "parameters" not in c["metadata"].get("tags", []))
    keys: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "run":
            arg = node.args[0]
            if node.func.attr == "glue" and isinstance(arg, ast.Constant):
                keys.add(arg.value)
            elif node.func.attr == "glue_all" and isinstance(arg, ast.Dict):
                keys |= {k.value for k in arg.keys if isinstance(k, ast.Constant)}
    assert "run.glue_paper(chapter.PAPER)" in source
    assert "run.glue_verdicts(chapter.VERDICTS)" in source
    assert "**chapter.sweep_findings(sweep, k_target)" in source
    sweep = pd.DataFrame({"k": [1, 2, 5, 6], "suppressed": [0.5, 0.2, 0.0, 1.0], "t": [0.4, 0.3, 0.2, 0.1],
                          "l_distinct_after": [1, 2, 3, np.nan], "l_entropy_after": [1.0, 1.5, 2.5, np.nan]})
    assert "run.glue_sentences(chapter.salary_sentences(salary_sim))" in source
    assert "run.glue_sentence(chapter.uniqueness_sentence(" in source
    assert "run.glue_sentences(chapter.sweep_sentences(" in source
    assert "run.glue_sentence(chapter.best_guess_sentence(" in source
    said = [*ch.salary_sentences(ch.salary_similarity_table(ch.slide_tables().sd3, 3000)),
            ch.uniqueness_sentence(1, 2), *ch.sweep_sentences(sweep, 4, 14, "`occupation`"),
            ch.best_guess_sentence(0.2, 0.1, 3, 4)]
    return keys | set(ch.PAPER) | set(ch.VERDICTS) | set(ch.sweep_findings(sweep, 4)) | {s.key for s in said}


def test_every_glue_key_of_the_prose_is_glued():
    nb = json.loads(NOTEBOOK.read_text())
    md = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    used = set(re.findall(r"\{glue:(?:text|md)\}`([^`:]+)", md))
    assert used - _glued_keys() == set()
    assert {"verdict_disease_t", "rep_disease_t", "attack_precision"} <= used


def test_goals_and_assumptions():
    assert 1 <= len(ch.CHAPTER.goals) <= 3 and all(g.endswith(".") for g in ch.CHAPTER.goals)
    assert ch.CHAPTER.assumes


def test_exercises_validate_and_read_glued_values():
    glued = _glued_keys()
    assert {"attack_fraction", "supp_level3", "t_disease_h4", "verdict_disease_t"} <= glued
    assert len(ch.CHAPTER.exercises) >= 3
    quick = ch.CHAPTER.quick_parameters()
    for e in chapters.get(ch.CHAPTER.name).exercises:  # the questions are read from the page
        variant = ch.CHAPTER.parameters.validate({**ch.CHAPTER.quick, **e.parameters})
        assert variant != quick, e.key  # the exercise changes something
        assert "Predict" in e.question, e.key  # prediction first
        for name in e.parameters:  # the question names the change
            assert f"`{name} = " in e.question, (e.key, name)
        assert set(e.answer) <= glued, (e.key, set(e.answer) - glued)
        assert e.figure is None or e.figure in glued


def test_the_notebook_includes_the_course_pages():
    nb = json.loads(NOTEBOOK.read_text())
    md = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    assert md[0].startswith("# Syntactic anonymity") and "## The claim" not in md[0]  # the opening paragraph
    assert md[1].strip() == "```{include} _generated/chapters/01_syntactic_anonymity.header.md\n```"
    assert md[2].startswith("## The claim")  # the chapter box comes before the claim
    exercises = next(m for m in md if m.startswith("## Exercises"))
    assert chapters.page_exercises(exercises)  # the questions are written in the page
    text = "\n".join(md)
    for term in ["quasi-identifier", "equivalence class", "k-anonymity", "l-diversity", "t-closeness",
                 "Earth Mover's Distance"]:
        assert re.search(r"\{term\}`(" + re.escape(term) + r"|[^`<]+<" + re.escape(term) + r">)`", text), term


def test_the_homogeneity_frame_counts_each_share_of_the_records() -> None:
    """Level 0: classes {a, a}, {a, b, b}, {b}; level 1 merges all six records into one class."""
    t0 = pd.DataFrame({"zip": list("112223"), "d": list("aaabbb")})
    levels = [t0, t0.assign(zip="*")]
    f = ch.homogeneity_frame(levels, ["zip"], "d", 2)
    lines = ch.FRAME_LINES
    assert f[lines["disclosed"]] == ([0, 1], [2 / 6, 0.0])  # the {a, a} class; one mixed class discloses nothing
    assert f[lines["suppressed"]][1] == [1 / 6, 0.0]
    assert f[lines["best_guess"]][1] == pytest.approx([4 / 6, 3 / 6])  # the {b} record gets the release's 'a'
    assert f[lines["majority"]][1] == pytest.approx([3 / 6, 3 / 6])
    assert ch.homogeneity_frame(levels, ["zip"], "d", 1)[lines["disclosed"]][1] == [3 / 6, 0.0]


def test_the_homogeneity_explorable_has_one_frame_per_k_and_finds_the_last_disclosing_k(run, monkeypatch) -> None:
    monkeypatch.setenv("ANONLAB_NO_CACHE", "1")  # a toy table: keep it out of the results cache
    t0 = pd.DataFrame({"zip": list("112223"), "d": list("aaabbb")})
    e = ch.homogeneity_explorable(run, [t0, t0.assign(zip="*")], ["zip"], "d", key={"toy": 1})
    assert list(e.values) == sorted({*ch.EXPLORE_KS, run.p["k_target"]}) and e.band is None
    assert e.values[e.default] == run.p["k_target"]
    assert ch.last_disclosing_k(e) == 2  # the {a, a} class survives k = 2, not k = 3

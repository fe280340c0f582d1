"""Tests of anonlab.measures.syntactic, anonlab.mechanisms.syntactic,
anonlab.attacks.homogeneity and the slide tables of anonlab.data.tables.

Hand-worked values come from the lecture slides (CMU 18-734, Fall 2019) and
the papers they quote; cross-checks use the independent implementation
``pycanon`` (Sainz-Pardo & López García, 2022), scipy's 1-D Wasserstein
distance and an exact linear-programming EMD.

Conventions of pycanon 1.0.x that differ from ours (checked in the tests):

- ``entropy_l_diversity`` returns ``int(e ** H_min)``, the *floor* of the
  entropy l, computed with ``np.exp(1) ** H``; for a class split evenly
  between two values this is ``1.9999999999999998`` and so ``1``, where the
  exact value is 2. We return the real number ``min_E exp(H(E))``.
- ``t_closeness`` picks the ground distance from the dtype: numeric columns
  get the ordered distance (with ``m`` = number of distinct values in the
  table, as ours), string columns the equal distance (total variation). It
  has no hierarchical distance, so the slides' Disease value can only be
  cross-checked under the equal distance.
- equivalence classes are looked up with ``data.iloc[group labels]``, so
  pycanon needs a default ``RangeIndex`` (the slide tables are indexed by
  record number 1..n and must be ``reset_index(drop=True)`` first), and its
  ``groupby`` drops rows with a missing quasi-identifier (ours keeps them as
  a class of their own).
- ``recursive_c_l_diversity`` sorts counts in *increasing* order and reports
  ``floor(r_min / sum(r[l-1:]) + 1)``, a different quantity from the
  definition's ``r_1 / (r_l + ... + r_m)``; it is not cross-checked.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonlab.attacks.homogeneity import homogeneity_attack
from anonlab.data import tables
from anonlab.data.tables import (
    INPATIENT_QUASI_IDENTIFIERS as IQI,
    SALARY_DISEASE_QUASI_IDENTIFIERS as SQI,
)
from anonlab.measures import syntactic as ms
from anonlab.mechanisms import syntactic as syn

pycanon = pytest.importorskip("pycanon.anonymity")

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------------
# the slides' tables, hand-worked
# ---------------------------------------------------------------------------


def test_slide_tables_shape_and_content():
    micro = tables.inpatient_microdata()
    assert micro.shape == (12, 4)
    assert list(micro.index) == list(range(1, 13))
    assert micro.loc[3].tolist() == ["13068", 21, "Japanese", "Viral Infection"]
    assert micro["condition"].value_counts().to_dict() == {
        "Cancer": 5, "Viral Infection": 4, "Heart Disease": 3}
    # the generalised tables keep each record's condition
    for f in (tables.inpatient_4_anonymous, tables.inpatient_3_diverse):
        g = f()
        assert g["condition"].equals(micro.loc[g.index, "condition"])
    assert list(tables.inpatient_3_diverse().index) == [1, 4, 9, 10, 5, 6, 7, 8, 2, 3, 11, 12]
    td = tables.salary_disease_t_close()
    assert sorted(td["salary"]) == list(range(3000, 12000, 1000))
    three = tables.salary_disease_3_diverse()
    assert td.sort_index()[["salary", "disease"]].equals(three[["salary", "disease"]])
    # a fresh copy each call
    micro.loc[1, "age"] = 99
    assert tables.inpatient_microdata().loc[1, "age"] == 28


def test_microdata_is_not_anonymous():
    micro = tables.inpatient_microdata()
    assert ms.k_anonymity(micro, IQI) == 1
    assert ms.privacy_report(micro, IQI, "condition", distance=None).n_unique == 12


def test_four_anonymous_table_k4_l1():
    """Slides: 'linking on ZIP, age, nationality yields 4 records'; the (130**, 3*)
    class is all Cancer, so l = 1 (the homogeneity attack)."""
    t = tables.inpatient_4_anonymous()
    assert ms.k_anonymity(t, IQI) == 4
    assert ms.distinct_l_diversity(t, IQI, "condition") == 1
    assert ms.entropy_l_diversity(t, IQI, "condition") == pytest.approx(1.0)
    ec = ms.equivalence_classes(t, IQI, "condition")
    assert ec["size"].tolist() == [4, 4, 4]
    assert ec.set_index(["zip_code", "age"])["n_distinct"].to_dict() == {
        ("130**", "3*"): 1, ("130**", "< 30"): 2, ("1485*", "≥ 40"): 3}


def test_three_diverse_table_k4_l3():
    """Slides, 'L-diversity': k = 4, l = ? -- distinct l = 3; each class holds
    {2, 1, 1} of three conditions, so entropy l = exp(1.5 ln 2) = 2^1.5."""
    t = tables.inpatient_3_diverse()
    assert ms.k_anonymity(t, IQI) == 4
    assert ms.distinct_l_diversity(t, IQI, "condition") == 3
    h = -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25))
    assert ms.entropy_l_diversity(t, IQI, "condition") == pytest.approx(math.exp(h))
    assert ms.entropy_l_diversity(t, IQI, "condition") == pytest.approx(2 ** 1.5)
    # recursive (c, 2): r1 / (r2 + r3) = 2 / 2 in every class
    assert ms.recursive_cl_diversity(t, IQI, "condition", 2) == pytest.approx(1.0)
    assert ms.recursive_cl_diversity(t, IQI, "condition", 3) == pytest.approx(2.0)
    assert ms.recursive_cl_diversity(t, IQI, "condition", 4) == math.inf


def test_generalisation_reproduces_the_slide_tables():
    micro = tables.inpatient_microdata()
    # Fig. 2: 130** / 1485*, < 30 / 3* / >= 40, nationality suppressed
    zip_ = micro["zip_code"].where(
        ~micro["zip_code"].str.startswith("130"), syn.mask_prefix(micro["zip_code"], 3))
    zip_ = zip_.where(micro["zip_code"].str.startswith("130"), syn.mask_prefix(micro["zip_code"], 4))
    fig2 = pd.DataFrame({
        "zip_code": zip_,
        "age": syn.generalize_numeric(micro["age"], bins=[0, 30, 40, np.inf],
                                      labels=["< 30", "3*", "≥ 40"]).astype(str),
        "nationality": "*",
        "condition": micro["condition"],
    })
    pd.testing.assert_frame_equal(fig2, tables.inpatient_4_anonymous())
    # the 3-diverse table: 4-digit ZIP prefixes, age <= 40 / > 40
    three = syn.generalize(micro, prefixes={"zip_code": 4}, ranges={"age": [0, 41, np.inf]},
                           suppress=["nationality"])
    three["age"] = three["age"].astype(str).map({"[0, 41)": "≤ 40", "[41, inf)": "> 40"})
    pd.testing.assert_frame_equal(three.loc[tables.inpatient_3_diverse().index],
                                  tables.inpatient_3_diverse())


def test_salary_t_closeness_slide_value():
    """Slides: Salary t = 0.167. Hand-worked: class {3K, 5K, 9K} has cumulative
    differences 2,1,3,2,1,0,2,1,0 (/9), so EMD = (12/9)/8 = 1/6; {6K, 8K, 11K}
    also 1/6; {4K, 7K, 10K} gives 6/72 = 1/12."""
    t = tables.salary_disease_t_close()
    emd = ms.equivalence_classes(t, SQI, "salary", distance="ordered").set_index("zip_code")["emd"]
    assert emd.to_dict() == pytest.approx({"4767*": 1 / 6, "4790*": 1 / 6, "4760*": 1 / 12})
    assert ms.t_closeness(t, SQI, "salary") == pytest.approx(1 / 6)
    assert round(ms.t_closeness(t, SQI, "salary"), 3) == 0.167


def test_salary_emd_examples_of_li_et_al():
    """Li et al. (2007): D[{3K,4K,5K}, Q] = 0.375 and D[{6K,8K,11K}, Q] = 0.167,
    which are the salary classes of the slides' 3-diverse table."""
    t = tables.salary_disease_3_diverse()
    emd = ms.equivalence_classes(t, SQI, "salary", distance="ordered").set_index("age")["emd"]
    assert emd["2*"] == pytest.approx(0.375)
    assert emd["≥ 40"] == pytest.approx(1 / 6)
    assert ms.t_closeness(t, SQI, "salary") == pytest.approx(0.375)


def _disease_emd(table, hierarchy):
    return (ms.equivalence_classes(table, SQI, "disease", distance="hierarchical",
                                    hierarchy=hierarchy)
            .set_index("zip_code")["emd"])


def test_disease_t_closeness_hierarchical_hand_worked():
    """Slides: Disease t = 0.278. With Li et al.'s height-3 disease hierarchy
    (ground distances 1/3, 2/3, 1) the three classes have EMD 7/27, 8/27 and
    5/27, worked by hand:

    {gastritis, flu, bronchitis} - table, in ninths: stomach (-1, +1, -2) ->
    cost 1/3 * 1/9; respiratory infection (+2, +1, -1) -> 1/3 * 1/9; the root
    moves 2/9 at distance 1. Total 1/27 + 1/27 + 6/27 = 8/27 = 0.296.

    So the table's t is 8/27 = 0.296, not the slides' 0.278 (see the next test).
    """
    t = tables.salary_disease_t_close()
    emd = _disease_emd(t, tables.disease_hierarchy())
    assert emd.to_dict() == pytest.approx({"4767*": 7 / 27, "4790*": 8 / 27, "4760*": 5 / 27})
    t_dis = ms.t_closeness(t, SQI, "disease", hierarchy=tables.disease_hierarchy())
    assert Fraction(t_dis).limit_denominator(100) == Fraction(8, 27)
    assert round(t_dis, 3) == 0.296 != 0.278


def test_disease_slide_value_matches_a_height_four_hierarchy():
    """0.278 = 5/18 is what the same formula gives if siblings are 1/4 apart
    while the root stays at distance 1, i.e. with one more level between the
    systems and the root (H = 4): 8/27 -> 2/9 * 1/4 + 2/9 * 1 = 5/18. A
    diagnostic of what the reported number needs, not a claim about the paper.
    An extra level *above* the old root instead gives 2/9 * 1/4 + 2/9 * 3/4."""
    base = tables.disease_hierarchy()
    old_root = next(n for n, p in base.items() if p is None)
    between = dict(base)
    for system in ("respiratory system diseases", "digestive system diseases"):
        between[system + " (extra level)"] = old_root
        between[system] = system + " (extra level)"
    above = {**base, old_root: "all diseases", "all diseases": None}
    t = tables.salary_disease_t_close()
    assert ms.t_closeness(t, SQI, "disease", hierarchy=between) == pytest.approx(5 / 18)
    assert ms.t_closeness(t, SQI, "disease", hierarchy=above) == pytest.approx(2 / 9)


def test_disease_equal_distance():
    """Without a hierarchy (equal distance) the Disease t is the largest total
    variation: class {gastric ulcer, stomach cancer, pneumonia} gives 5/9."""
    t = tables.salary_disease_t_close()
    assert ms.t_closeness(t, SQI, "disease") == pytest.approx(5 / 9)
    assert ms.t_closeness(t, SQI, "disease", distance="equal") == pytest.approx(5 / 9)


# ---------------------------------------------------------------------------
# tiny tables with known answers
# ---------------------------------------------------------------------------


def test_tiny_table_known_answers():
    df = pd.DataFrame({"q": ["a", "a", "a", "b", "b"], "s": ["x", "x", "y", "x", "x"]})
    assert ms.k_anonymity(df, ["q"]) == 2
    assert ms.distinct_l_diversity(df, ["q"], "s") == 1
    assert ms.entropy_l_diversity(df, ["q"], "s") == pytest.approx(1.0)
    ec = ms.equivalence_classes(df, ["q"], "s", distance="equal")
    assert ec["entropy_l"].tolist() == pytest.approx(
        [math.exp(-(2 / 3) * math.log(2 / 3) - (1 / 3) * math.log(1 / 3)), 1.0])
    # table: x 4/5, y 1/5; class a: 2/3, 1/3 -> TV = 2/15; class b: 1, 0 -> 1/5
    assert ec["emd"].tolist() == pytest.approx([2 / 15, 1 / 5])
    assert ec["top_value"].tolist() == ["x", "x"]
    assert ec["top_share"].tolist() == pytest.approx([2 / 3, 1.0])


def test_even_split_entropy_l_is_exactly_two():
    df = pd.DataFrame({"q": [1, 1, 2, 2], "s": ["a", "b", "a", "b"]})
    assert ms.entropy_l_diversity(df, ["q"], "s") == pytest.approx(2.0, abs=1e-12)


def test_missing_qi_forms_its_own_class():
    df = pd.DataFrame({"q": ["a", None, None, "a"], "s": [1, 2, 3, 4]})
    assert ms.k_anonymity(df, ["q"]) == 2
    assert ms.equivalence_classes(df, ["q"])["size"].tolist() == [2, 2]


def test_ordered_emd_extremes_and_single_value():
    assert ms.emd_ordered([1, 0, 0], [0, 0, 1]) == pytest.approx(1.0)
    assert ms.emd_ordered([1, 0, 0], [0, 1, 0]) == pytest.approx(0.5)
    assert ms.emd_ordered([1.0], [1.0]) == 0.0
    df = pd.DataFrame({"q": [1, 2], "s": [5, 5]})
    assert ms.t_closeness(df, ["q"], "s") == 0.0


def test_hierarchical_emd_ground_distances():
    h = tables.disease_hierarchy()
    assert ms.emd_hierarchical({"flu": 1}, {"bronchitis": 1}, h) == pytest.approx(1 / 3)
    assert ms.emd_hierarchical({"flu": 1}, {"pulmonary edema": 1}, h) == pytest.approx(2 / 3)
    assert ms.emd_hierarchical({"flu": 1}, {"stomach cancer": 1}, h) == pytest.approx(1.0)
    assert ms.emd_hierarchical({"flu": 0.5, "gastritis": 0.5},
                                {"flu": 0.5, "gastritis": 0.5}, h) == pytest.approx(0.0)


def test_hierarchy_formats_agree():
    tree = {"*": {"A": ["a1", "a2"], "B": ["b1"]}}
    parents = {"a1": "A", "a2": "A", "b1": "B", "A": "*", "B": "*"}
    assert ms.as_parent_map(tree) == ms.as_parent_map(parents)
    s = pd.Series(["a1", "b1", "a2", None])
    for levels, expected in [(1, ["A", "B", "A"]), (5, ["*", "*", "*"]), (0, ["a1", "b1", "a2"])]:
        got = syn.generalize_categorical(s, tree if levels == 1 else parents, levels)
        assert got.tolist()[:3] == expected
        assert pd.isna(got.iloc[3])  # missing stays missing


def test_mask_prefix_and_numeric_buckets():
    z = pd.Series(["13053", "1485", None, "9"])
    assert syn.mask_prefix(z, 3).tolist()[:2] == ["130**", "148*"]
    assert pd.isna(syn.mask_prefix(z, 3).iloc[2])
    assert syn.mask_prefix(z, 3).iloc[3] == "9"
    assert syn.mask_prefix(z, 0).iloc[0] == "*****"
    ages = pd.Series([17, 25, 39, 90])
    got = syn.generalize_numeric(ages, width=20)
    assert got.tolist() == ["[0, 20)", "[20, 40)", "[20, 40)", "[80, 100)"]
    assert list(got.cat.categories) == ["[0, 20)", "[20, 40)", "[80, 100)"]
    assert syn.generalize_numeric(ages, width=10, origin=5).tolist()[0] == "[15, 25)"


def test_suppress_values_and_small_classes():
    df = pd.DataFrame({"q": ["a", "a", "b", "c", "c", "c"], "s": list("xyzxyz")})
    s = syn.suppress_small_classes(df, ["q"], 2)
    assert s.n_suppressed == 1 and s.n_classes_suppressed == 1
    assert s.fraction_suppressed == pytest.approx(1 / 6)
    assert list(s.table.index) == [0, 1, 3, 4, 5]
    assert syn.suppress_small_classes(df, ["q"], 1).n_suppressed == 0
    out = syn.suppress_values(df, "q", df["q"] == "b")
    assert out["q"].tolist() == ["a", "a", "*", "c", "c", "c"]
    assert syn.suppress_values(df, ["q"])["q"].eq("*").all()
    assert df["q"].tolist()[2] == "b"  # input untouched


def test_generalisation_sweep_on_the_inpatient_microdata():
    """Level 0 is the microdata (every record unique); level 1 is the slides'
    3-diverse recoding (4-digit ZIP, age split at 40, nationality suppressed)."""
    micro = tables.inpatient_microdata()
    levels = [{}, {"prefixes": {"zip_code": 4}, "ranges": {"age": [0, 41, np.inf]},
                   "suppress": ["nationality"]}]
    sweep = syn.generalisation_sweep(micro, IQI, "condition", levels, k=4)
    assert list(sweep.index) == [0, 1]
    assert sweep.loc[0, ["n_classes", "n_unique", "k", "l_distinct"]].tolist() == [12, 12, 1, 1]
    assert sweep.loc[0, "suppressed"] == 1.0 and np.isnan(sweep.loc[0, "k_after"])
    assert sweep.loc[1, ["n_classes", "k", "l_distinct", "k_after"]].tolist() == [3, 4, 3, 4]
    assert sweep.loc[1, "suppressed"] == 0.0
    assert sweep.loc[1, "l_entropy"] == pytest.approx(2 ** 1.5)
    assert "suppressed" not in syn.generalisation_sweep(micro, IQI, "condition", levels)


# ---------------------------------------------------------------------------
# errors a reader can act on
# ---------------------------------------------------------------------------


def test_errors_name_the_problem():
    t = tables.inpatient_4_anonymous()
    with pytest.raises(ValueError, match=r"parameter 'quasi_identifiers': unknown attribute\(s\) "
                                         r"\['zip'\]; available: zip_code"):
        ms.k_anonymity(t, ["zip", "age"])
    with pytest.raises(ValueError, match="parameter 'sensitive_attribute': unknown attribute 'disease'"):
        ms.distinct_l_diversity(t, IQI, "disease")
    with pytest.raises(ValueError, match="parameter 'k' must be >= 1, got 0"):
        syn.suppress_small_classes(t, IQI, 0)
    with pytest.raises(ValueError, match="parameter 'k' must be an integer"):
        syn.suppress_small_classes(t, IQI, 2.5)
    with pytest.raises(ValueError, match="needs at least 1 column"):
        ms.k_anonymity(t, [])
    with pytest.raises(ValueError, match="'age' is a quasi-identifier; the sensitive attribute "
                                         "must not be one"):
        ms.entropy_l_diversity(t, IQI, "age")
    with pytest.raises(ValueError, match="no records"):
        ms.k_anonymity(t.iloc[:0], IQI)
    with pytest.raises(ValueError, match="ordered distance needs a numeric"):
        ms.t_closeness(t, IQI, "condition", distance="ordered")
    with pytest.raises(ValueError, match="needs hierarchy="):
        ms.t_closeness(t, IQI, "condition", distance="hierarchical")
    with pytest.raises(ValueError, match=r"not leaves of the hierarchy"):
        ms.t_closeness(t, IQI, "condition", hierarchy=tables.disease_hierarchy())
    with pytest.raises(ValueError, match="distance must be one of"):
        ms.t_closeness(t, IQI, "condition", distance="euclid")  # type: ignore[arg-type]
    bad = t.assign(condition=t["condition"].where(t.index != 3))
    with pytest.raises(ValueError, match="1 missing value"):
        ms.entropy_l_diversity(bad, IQI, "condition")
    with pytest.raises(ValueError, match="exactly one root"):
        ms.as_parent_map({"a": "A", "b": "B"})
    with pytest.raises(ValueError, match="cycle"):
        ms.as_parent_map({"a": "b", "b": "a", "c": None})
    with pytest.raises(ValueError, match=r"not in the hierarchy"):
        syn.generalize_categorical(pd.Series(["x"], name="col"), {"*": ["a"]})
    with pytest.raises(ValueError, match="exactly one of width= or bins="):
        syn.generalize_numeric(pd.Series([1]))
    with pytest.raises(ValueError, match="fall outside the bins"):
        syn.generalize_numeric(pd.Series([1, 50]), bins=[0, 40])
    with pytest.raises(ValueError, match=r"unknown column\(s\) \['nope'\]"):
        syn.generalize(t, suppress=["nope"])
    with pytest.raises(ValueError, match="parameter 'l' must be >= 1, got 0"):
        ms.recursive_cl_diversity(t, IQI, "condition", 0)


# ---------------------------------------------------------------------------
# the homogeneity attack
# ---------------------------------------------------------------------------


def test_homogeneity_attack_on_the_slides():
    r = homogeneity_attack(tables.inpatient_4_anonymous(), IQI, "condition")
    assert r.n_targets == 12 and r.n_disclosed == 4
    assert r.disclosed_fraction == pytest.approx(1 / 3)
    disclosed = r.targets[r.targets["disclosed"]]
    assert list(disclosed.index) == [9, 10, 11, 12]
    assert set(disclosed["inferred"]) == {"Cancer"}
    assert disclosed["correct"].tolist() == [True] * 4
    assert r.targets["class_size"].eq(4).all()
    # the 3-diverse table resists it
    r3 = homogeneity_attack(tables.inpatient_3_diverse(), IQI, "condition")
    assert r3.n_disclosed == 0 and r3.disclosed_fraction == 0


def test_background_knowledge_umeko():
    """Machanavajjhala et al.: Umeko (21, 13068, Japanese; record 3) is in the
    (130**, < 30) class {HD, HD, VI, VI}; knowing Japanese patients rarely have
    heart disease leaves only Viral Infection."""
    t = tables.inpatient_4_anonymous()
    r = homogeneity_attack(t, IQI, "condition", excluded={3: ["Heart Disease"]})
    assert r.targets.loc[3, "disclosed"] and r.targets.loc[3, "inferred"] == "Viral Infection"
    assert r.targets.loc[3, "correct"] is True
    assert r.n_disclosed == 5
    # without that knowledge the best guess is a coin flip
    r0 = homogeneity_attack(t, IQI, "condition")
    assert r0.targets.loc[3, "top_share"] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="not in the targets' index"):
        homogeneity_attack(t, IQI, "condition", excluded={99: "Cancer"})


def test_homogeneity_attack_explicit_targets():
    t = tables.inpatient_4_anonymous()
    targets = pd.DataFrame(
        {"zip_code": ["130**", "1485*", "999**"], "age": ["3*", "≥ 40", "< 30"],
         "nationality": ["*", "*", "*"]}, index=["bob", "carol", "stranger"])
    r = homogeneity_attack(t, IQI, "condition", targets)
    assert r.targets["disclosed"].tolist() == [True, False, False]
    assert r.targets.loc["bob", "inferred"] == "Cancer"
    assert r.targets.loc["stranger", "class_size"] == 0
    assert r.targets.loc["carol", "top_value"] == "Viral Infection"
    assert "correct" not in r.targets
    with pytest.raises(ValueError, match=r"targets lack quasi-identifier column\(s\)"):
        homogeneity_attack(t, IQI, "condition", targets[["zip_code"]])


# ---------------------------------------------------------------------------
# property tests
# ---------------------------------------------------------------------------


@st.composite
def small_tables(draw, numeric_sa: bool = False):
    n = draw(st.integers(1, 40))
    q1 = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    q2 = draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n))
    if numeric_sa:
        s = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    else:
        s = draw(st.lists(st.sampled_from(["x", "y", "z", "w"]), min_size=n, max_size=n))
    return pd.DataFrame({"q1": q1, "q2": q2, "s": s})


@SETTINGS
@given(small_tables(), st.integers(1, 6))
def test_suppression_to_k_gives_k_anonymity(df, k):
    s = syn.suppress_small_classes(df, ["q1", "q2"], k)
    assert s.n_suppressed + len(s.table) == len(df)
    if len(s.table):
        assert ms.k_anonymity(s.table, ["q1", "q2"]) >= k
    # nothing is suppressed when the table is already k-anonymous
    if ms.k_anonymity(df, ["q1", "q2"]) >= k:
        assert s.n_suppressed == 0


@SETTINGS
@given(small_tables())
def test_l_orderings(df):
    qis = ["q1", "q2"]
    l_dist = ms.distinct_l_diversity(df, qis, "s")
    l_ent = ms.entropy_l_diversity(df, qis, "s")
    assert 1 - 1e-12 <= l_ent <= l_dist + 1e-9
    assert l_dist <= ms.k_anonymity(df, qis)
    t = ms.t_closeness(df, qis, "s")
    assert -1e-12 <= t <= 1 + 1e-12
    ec = ms.equivalence_classes(df, qis, "s")
    assert ec["size"].sum() == len(df)


@SETTINGS
@given(small_tables(numeric_sa=True), st.sampled_from([1, 2, 3]))
def test_coarser_buckets_never_lower_k(df, width):
    """Buckets of width 2w are unions of buckets of width w (origin 0), so
    every class of the coarser table is a union of classes: k cannot drop."""
    fine = syn.generalize(df, ranges={"q1": width})
    coarse = syn.generalize(df, ranges={"q1": 2 * width})
    assert ms.k_anonymity(coarse, ["q1", "q2"]) >= ms.k_anonymity(fine, ["q1", "q2"])
    assert ms.k_anonymity(fine, ["q1", "q2"]) >= ms.k_anonymity(df, ["q1", "q2"])


@SETTINGS
@given(st.lists(st.floats(0.01, 1), min_size=2, max_size=8),
       st.lists(st.floats(0.01, 1), min_size=2, max_size=8))
def test_ordered_emd_is_scipy_wasserstein_over_ranks(a, b):
    from scipy.stats import wasserstein_distance

    m = min(len(a), len(b))
    p, q = np.array(a[:m]) / sum(a[:m]), np.array(b[:m]) / sum(b[:m])
    ranks = np.arange(m)
    expected = wasserstein_distance(ranks, ranks, p, q) / (m - 1)
    assert ms.emd_ordered(p, q) == pytest.approx(expected, abs=1e-9)


def _lp_emd(p: np.ndarray, q: np.ndarray, dist: np.ndarray) -> float:
    from scipy.optimize import linprog

    m = len(p)
    a_eq = np.zeros((2 * m, m * m))
    for i in range(m):
        a_eq[i, i * m:(i + 1) * m] = 1  # flow out of i = p_i
        a_eq[m + i, i::m] = 1  # flow into i = q_i
    res = linprog(dist.ravel(), A_eq=a_eq, b_eq=np.concatenate([p, q]), bounds=(0, None),
                  method="highs")
    assert res.status == 0
    return float(res.fun)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=10, max_size=10),
       st.lists(st.floats(0, 1), min_size=10, max_size=10))
def test_hierarchical_emd_is_the_exact_transport_cost(a, b):
    """The closed form of Li et al. equals the optimal transport cost with
    ground distance level(v_i, v_j) / H, solved as a linear program."""
    if sum(a) < 1e-3 or sum(b) < 1e-3:
        return
    h = tables.disease_hierarchy()
    tree = ms._tree(h)
    leaves = tree.leaves
    p, q = np.array(a) / sum(a), np.array(b) / sum(b)

    def ancestors(v):
        out = [v]
        while h[out[-1]] is not None:
            out.append(h[out[-1]])
        return out

    dist = np.zeros((10, 10))
    for i, u in enumerate(leaves):
        for j, v in enumerate(leaves):
            if i != j:
                lca = next(x for x in ancestors(u) if x in ancestors(v))
                dist[i, j] = tree.height[lca] / tree.height[tree.root]
    got = ms.emd_hierarchical(dict(zip(leaves, p)), dict(zip(leaves, q)), h)
    assert got == pytest.approx(_lp_emd(p, q, dist), abs=1e-7)


@SETTINGS
@given(small_tables())
def test_homogeneity_attack_agrees_with_class_diversity(df):
    qis = ["q1", "q2"]
    r = homogeneity_attack(df, qis, "s")
    ec = ms.equivalence_classes(df, qis, "s")
    expected = ec.loc[ec["n_distinct"] == 1, "size"].sum() / len(df)
    assert r.disclosed_fraction == pytest.approx(expected)
    assert r.targets.loc[r.targets["disclosed"], "correct"].eq(True).all()


# ---------------------------------------------------------------------------
# cross-checks against pycanon
# ---------------------------------------------------------------------------


def _pyc_entropy_matches(pyc: int, ours: float) -> bool:
    """pycanon returns int(e ** H) (floor), and e ** ln 2 = 1.9999999999999998
    floors to 1: accept floor(ours), or one less when ours is an integer."""
    if pyc == math.floor(ours + 1e-9):
        return True
    return abs(ours - round(ours)) < 1e-9 and pyc == round(ours) - 1


@pytest.mark.parametrize("make", [tables.inpatient_microdata, tables.inpatient_4_anonymous,
                                  tables.inpatient_3_diverse])
def test_pycanon_on_inpatient_tables(make):
    t = make().reset_index(drop=True)  # pycanon indexes classes by position
    assert pycanon.k_anonymity(t, IQI) == ms.k_anonymity(t, IQI)
    assert pycanon.l_diversity(t, IQI, ["condition"]) == ms.distinct_l_diversity(
        t, IQI, "condition")
    assert _pyc_entropy_matches(pycanon.entropy_l_diversity(t, IQI, ["condition"]),
                                ms.entropy_l_diversity(t, IQI, "condition"))
    assert pycanon.t_closeness(t, IQI, ["condition"]) == pytest.approx(
        ms.t_closeness(t, IQI, "condition", distance="equal"))


@pytest.mark.parametrize("make", [tables.salary_disease_3_diverse, tables.salary_disease_t_close])
def test_pycanon_on_salary_disease_tables(make):
    t = make().reset_index(drop=True)
    assert pycanon.k_anonymity(t, SQI) == ms.k_anonymity(t, SQI) == 3
    for sa in ("salary", "disease"):
        assert pycanon.l_diversity(t, SQI, [sa]) == ms.distinct_l_diversity(t, SQI, sa) == 3
    # numeric -> ordered distance in both
    assert pycanon.t_closeness(t, SQI, ["salary"]) == pytest.approx(
        ms.t_closeness(t, SQI, "salary", distance="ordered"))
    # string -> pycanon's equal distance (it has no hierarchical distance)
    assert pycanon.t_closeness(t, SQI, ["disease"]) == pytest.approx(
        ms.t_closeness(t, SQI, "disease", distance="equal"))


def test_pycanon_entropy_convention_on_an_even_split():
    df = pd.DataFrame({"q": [1, 1, 2, 2], "s": ["a", "b", "a", "b"]})
    assert ms.entropy_l_diversity(df, ["q"], "s") == pytest.approx(2.0)
    assert pycanon.entropy_l_diversity(df, ["q"], ["s"]) in (1, 2)  # 1 from floating point


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_tables(), st.booleans())
def test_pycanon_on_random_tables(df, numeric):
    qis = ["q1", "q2"]
    if numeric:
        df = df.assign(s=df["s"].map({"x": 10, "y": 20, "z": 35, "w": 90}))
    assert pycanon.k_anonymity(df, qis) == ms.k_anonymity(df, qis)
    assert pycanon.l_diversity(df, qis, ["s"]) == ms.distinct_l_diversity(df, qis, "s")
    assert _pyc_entropy_matches(pycanon.entropy_l_diversity(df, qis, ["s"]),
                                ms.entropy_l_diversity(df, qis, "s"))
    if df["s"].nunique() > 1 or not numeric:  # pycanon divides by m - 1 = 0 otherwise
        assert pycanon.t_closeness(df, qis, ["s"]) == pytest.approx(
            ms.t_closeness(df, qis, "s"), abs=1e-9)


# ---------------------------------------------------------------------------
# argument checks, hierarchy height, the attack in the scoring protocol
# ---------------------------------------------------------------------------


def test_check_release_accepts_and_refuses():
    t = tables.inpatient_4_anonymous()
    assert ms.check_release(t, "age") == (["age"], None)
    assert ms.check_release(t, t.columns[:2], "condition") == (["zip_code", "age"], "condition")
    with pytest.raises(TypeError, match="expected a pandas DataFrame, got list"):
        ms.check_release([1, 2], IQI)
    with pytest.raises(ValueError, match="lists a column twice"):
        ms.check_release(t, ["age", "age"])
    # the sensitive attribute is known, but it is a quasi-identifier: say so
    with pytest.raises(ValueError, match="'age' is a quasi-identifier") as err:
        ms.check_release(t, IQI, "age")
    assert "unknown" not in str(err.value)
    # numpy integers are integers
    assert ms.k_anonymity(t, IQI) == 4
    assert syn.suppress_small_classes(t, IQI, np.int64(5)).n_suppressed == 12
    assert ms.recursive_cl_diversity(t, IQI, "condition", np.int32(1)) == pytest.approx(1.0)


def test_hierarchy_height():
    assert ms.hierarchy_height({"*": ["a", "b"]}) == 1
    assert ms.hierarchy_height({"*": {"x": ["a"], "b": None}}) == 2  # unbalanced: longest path
    assert ms.hierarchy_height(tables.disease_hierarchy()) == 3


def test_homogeneity_attack_as_attack_result():
    from anonlab import measures

    t = tables.inpatient_4_anonymous()
    res = homogeneity_attack(t, IQI, "condition").as_attack_result()
    assert res.attack == "homogeneity"
    assert res.targets.tolist() == list(range(1, 13))
    assert res.predicted.tolist() == [False] * 8 + [True] * 4
    assert res.prediction[8:].tolist() == ["Cancer"] * 4
    assert res.truth.tolist() == t["condition"].tolist()
    assert res.resources == {"background_facts": 0}
    base = measures.majority_baseline(res.truth, targets=res.targets)
    s = measures.score(res, base)
    assert (s.n_predictions, s.n_correct, s.precision) == (4, 4, 1.0)
    assert s.coverage == pytest.approx(1 / 3)
    # Cancer (5 of 12) is also the majority guess, right for all 4 disclosed
    assert s.baseline_precision == 1.0 and math.isnan(s.precision_improvement)
    # background knowledge: Umeko (record 3) is disclosed too
    bk = homogeneity_attack(t, IQI, "condition", excluded={3: ["Heart Disease"]}).as_attack_result("bk")
    assert bk.predicted.sum() == 5 and bk.resources == {"background_facts": 1}
    assert measures.score(bk).precision == 1.0
    # a wrong inference is scored as wrong: the targets' truth differs from the class
    liar = t.assign(condition=t["condition"].where(t.index != 9, "Flu"))
    r = homogeneity_attack(t, IQI, "condition", targets=liar).as_attack_result()
    assert measures.score(r).n_correct == 3
    # targets without the sensitive column cannot be scored
    no_truth = homogeneity_attack(t, IQI, "condition", targets=t[IQI])
    with pytest.raises(ValueError, match="no true sensitive value"):
        no_truth.as_attack_result()

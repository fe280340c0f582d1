"""Chapter 1, syntactic anonymity: parameters, the slides' claims and the Adult ladder.

The lecture slides (CMU 18-734, Fall 2019, *Database privacy: k-anonymity and
de-anonymization attacks*) recomputed from their printed tables
(:mod:`anonlab.data.tables`), then the same measures on UCI Adult. Here:
:data:`CHAPTER`, the claim measurements (:func:`measure_slides_claims`; the
Disease t under each reading of the hierarchy the slides leave unstated,
:func:`disease_t_readings`) and the Adult ladder. Figures: :mod:`anonbook.figures.syntactic`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from anonlab.attacks.homogeneity import homogeneity_attack
from anonbook.figures.syntactic import FRAME_LINES, homogeneity_frame, last_disclosing_k
from anonlab.claims import Measurement, claim
from anonlab.data import tables
from anonlab.data.loaders import ADULT_COLUMNS
from anonlab.measures import syntactic as ms
from anonlab.mechanisms import syntactic as syn
from anonlab.validation import Param, ParameterError, ParameterSpec, check_choice, check_int
from anonbook.chapters import Chapter, Exercise
from anonbook.chapters.sentences import Sentence, compare

NAME = "01_syntactic_anonymity"

#: Complete records (no missing value) of the Adult training file: the most
#: ``adult_rows`` can ask for.
ADULT_TRAIN_COMPLETE_ROWS = 30_162

#: Adult columns the generalisation ladder coarsens (so none of them can be
#: the sensitive attribute: the data owner generalises quasi-identifiers).
LADDER_COLUMNS = ("age", "native_country", "race")

#: Levels of the ladder, 0 (as published) to 6.
LADDER_LEVELS = 7

INPATIENT_SENSITIVE = "condition"

#: Lowest and highest salary (dollars) of the slides' salary/disease tables:
#: the salary bands of the similarity check start at the lowest, and a band
#: as wide as the span holds every salary.
SALARY_MIN, SALARY_MAX = 3000, 11000
SALARY_SPAN = SALARY_MAX - SALARY_MIN + 1000

#: The readings of the Disease hierarchy behind ``slides.tclose.disease_t``
#: (labels exactly as in the ledger's ``choices``): the slides do not print it.
DISEASE_T_READINGS = ("Li et al. (height 3)", "one level taller (height 4)",
                      "no hierarchy (equal distance)")

#: The column of :func:`t_closeness_table` that holds the Disease EMD under each reading.
DISEASE_T_COLUMNS = dict(zip(DISEASE_T_READINGS, ("disease (hierarchical)", "disease (one level taller)",
                                                  "disease (equal)")))

#: The slides' claims, in the chapter's order, by a short name.
CLAIMS = {"fig2_k": "slides.kanon.fig2.k", "linking": "slides.kanon.linking_yields_4",
          "homogeneity": "slides.kanon.homogeneity_attack", "ldiv_k": "slides.ldiv.table.k",
          "ldiv_l": "slides.ldiv.table.l", "similarity": "slides.ldiv.similarity_attack",
          "salary_t": "slides.tclose.salary_t", "disease_t": "slides.tclose.disease_t",
          "unique": "slides.linking.zip_gender_dob_unique"}

#: Glue keys of the reported values quoted in the prose -> claim ids (``run.glue_paper``).
PAPER = {f"rep_{k}": CLAIMS[k] for k in ("fig2_k", "ldiv_k", "salary_t", "disease_t", "linking", "unique")}

#: Glue keys of the verdicts the prose lists -> claim ids (``run.glue_verdicts``).
VERDICTS = {f"verdict_{k}": cid for k, cid in CLAIMS.items()}

#: The class of Fig. 2 that is all Cancer, and the first class of the
#: 3-diverse salary/disease table (all stomach diseases), as the slides print them.
FIG2_HOMOGENEOUS_CLASS = {"zip_code": "130**", "age": "3*"}
SD3_FIRST_CLASS = {"zip_code": "476**", "age": "2*"}

# -- parameters ---------------------------------------------------------------


def _sensitive_is_not_a_quasi_identifier(values: Mapping[str, Any]) -> None:
    sa, qis = values["sensitive_attribute"], list(values["quasi_identifiers"])
    if sa in qis:
        raise ParameterError(
            f"parameter 'sensitive_attribute': {sa!r} is a quasi-identifier (quasi_identifiers = "
            f"{qis}); the sensitive attribute must not be a quasi-identifier: choose another "
            f"column or remove {sa!r} from quasi_identifiers"
        )


def _sensitive_is_not_generalised(values: Mapping[str, Any]) -> None:
    sa = values["sensitive_attribute"]
    if sa in LADDER_COLUMNS:
        raise ParameterError(
            f"parameter 'sensitive_attribute': {sa!r} is coarsened by the generalisation ladder "
            f"(it generalises {', '.join(LADDER_COLUMNS)}), so its values would change from level "
            "to level; choose another column"
        )


CHAPTER = Chapter(
    name=NAME,
    title="Syntactic anonymity: k-anonymity, l-diversity and t-closeness",
    parameters=ParameterSpec(
        [
            Param("table", "choice", "slides",
                  "table attacked in 'The homogeneity attack': the slides' Figure 2, or Adult "
                  "at attack_level", choices=("slides", "adult")),
            Param("salary_band_width", "int", 3000,
                  "dollars per salary band of the similarity check on Salary (bands start at the "
                  "table's lowest salary, 3000 dollars: 3000 gives low / medium / high)",
                  low=1, high=SALARY_SPAN),
            Param("quasi_identifiers", "str_list", ["age", "sex", "race", "native_country"],
                  "Adult columns the attacker knows (distinct column names)",
                  choices=tuple(ADULT_COLUMNS), max_len=len(ADULT_COLUMNS) - 1),
            Param("sensitive_attribute", "choice", "occupation",
                  "Adult column to protect (not a quasi-identifier; not age, race or native_country, "
                  "which the ladder coarsens)",
                  choices=tuple(ADULT_COLUMNS)),
            Param("k_target", "int", 4,
                  "k enforced on Adult by suppressing small classes (records per class); "
                  "4 as on the slides", low=1, high=ADULT_TRAIN_COMPLETE_ROWS),
            Param("adult_rows", "int", 0,
                  "Adult records used: 0 means every complete record of the training file "
                  f"({ADULT_TRAIN_COMPLETE_ROWS:,}), n > 0 a random sample of n records",
                  low=0, high=ADULT_TRAIN_COMPLETE_ROWS),
            Param("age_bucket_width", "int", 10,
                  "years per age range at ladder level 1 (doubled at level 4, x4 at levels 5-6)",
                  low=1, high=100),
            Param("attack_level", "int", 3,
                  "ladder level of Adult attacked when table is 'adult' (see 'What generalisation reaches')",
                  low=0, high=LADDER_LEVELS - 1),
            Param("seed", "int", 0,
                  "random seed of the Adult sample (used only when adult_rows > 0)",
                  low=0, high=2**32 - 1),
        ],
        checks=[_sensitive_is_not_a_quasi_identifier, _sensitive_is_not_generalised],
    ),
    quick={"table": "adult", "adult_rows": 3000},
    data=("adult-train",),
    goals=(
        "Compute k, l and t of a released table and read what each promises, and what it does not.",
        "Run the homogeneity and similarity attacks on a k-anonymous or l-diverse table.",
        "See how a choice the paper leaves open (the hierarchy behind a distance) moves a "
        "reported number, and what generalisation costs on a real table.",
    ),
    assumes=("a table of records (rows with columns) and the idea of a probability distribution; "
             "no privacy background."),
    exercises=(
        Exercise(
            "one_more_qi",
            {"quasi_identifiers": ["age", "sex", "race", "native_country", "education"]},
            {"adult_unique_frac": "records alone in their class (as published)",
             "supp_level3": "records suppressed to reach k at level 3",
             "attack_fraction": "targets disclosed by the homogeneity attack (level 3)"},
            base={"adult_rows": 0},  # the whole of Adult, as the chapter: 3,000 rows cannot show it
            explain="With `education` known the share of records alone in their class "
                    "{adult_unique_frac:change}: one more attribute can only split classes, never merge them. "
                    "Reaching k at level 3 now suppresses {supp_level3} of the records (it {supp_level3:change}).",
        ),
        Exercise(
            "bucket5",
            {"age_bucket_width": 5},
            {"supp_level1": "records suppressed at level 1",
             "supp_level3": "records suppressed at level 3",
             "first_level_k": "first level whose k reaches the target"},
            base="default",  # the ladder's levels as the chapter reports them (a sample reaches k elsewhere)
            explain="Narrower age ranges make smaller classes at level 1, so the suppression there "
                    "{supp_level1:change}; at level 3 it {supp_level3:change}. The first level whose k reaches "
                    "the target without suppression is {first_level_k} (the chapter's run: {first_level_k@base}).",
        ),
        Exercise(
            "income",
            {"sensitive_attribute": "income"},
            {"n_sa_values": "distinct values of the sensitive attribute",
             "l_after_level3": "distinct l after suppression (level 3)",
             "lent_after_level3": "entropy l after suppression (level 3)",
             "t_level3": "t at level 3 (equal distance)"},
            base="default",
            explain="The sensitive attribute now has {n_sa_values} values, so no class can be more than "
                    "{n_sa_values}-diverse; the entropy l after suppression at level 3 is {lent_after_level3} "
                    "(the distinct l: {l_after_level3}). t {t_level3:change}.",
        ),
        Exercise(
            "level0",
            {"attack_level": 0},
            {"adult_unique_frac": "records alone in their class",
             "attack_fraction": "targets disclosed by the homogeneity attack",
             "attack_baseline_precision": "majority guess's precision on the same targets"},
            base={"adult_rows": 0},  # the whole of Adult, as the chapter: 3,000 rows cannot show it
            explain="The attack discloses {attack_fraction} of the targets, {attack_fraction:vs:adult_unique_frac} "
                    "the share of records alone in their class ({adult_unique_frac}): a record alone in its class "
                    "is disclosed (its class holds one sensitive value), and so is every record of a larger "
                    "class whose records all share one value, so the fraction can only be at least the "
                    "uniqueness rate. The majority guess is right on {attack_baseline_precision} of the same targets.",
        ),
        Exercise(
            "salary_bands",
            {"salary_band_width": 2000},
            {"n_salary_bands": "salary bands in the table",
             "sd3_first_salary_bands": "bands spanned by the first class (476**, 2*)",
             "sd3_single_band_classes": "classes whose salaries share one band"},
        ),
    ),
)


# -- the slides' tables and their claims --------------------------------------


@dataclass(frozen=True)
class SlideTables:
    """The slides' worked tables (:mod:`anonlab.data.tables`).

    ``micro``, ``fig2``, ``ldiv``: the inpatient microdata (Fig. 1), its 4-anonymous release (Fig. 2)
    and the l-diversity slide's re-generalised release; ``sd3``, ``sdt``: the salary/disease tables
    of the l-diversity problem and of the t-closeness slide; ``hierarchy``: the disease hierarchy of
    Li, Li & Venkatasubramanian (2007).
    """

    micro: pd.DataFrame
    fig2: pd.DataFrame
    ldiv: pd.DataFrame
    sd3: pd.DataFrame
    sdt: pd.DataFrame
    hierarchy: dict[str, str | None]


def slide_tables() -> SlideTables:
    """Fresh copies of every table the chapter reproduces.

    >>> s = slide_tables()
    >>> len(s.micro), len(s.fig2), len(s.sdt)
    (12, 12, 9)
    """
    return SlideTables(
        micro=tables.inpatient_microdata(), fig2=tables.inpatient_4_anonymous(),
        ldiv=tables.inpatient_3_diverse(), sd3=tables.salary_disease_3_diverse(),
        sdt=tables.salary_disease_t_close(), hierarchy=tables.disease_hierarchy(),
    )


def fig2_recoding(micro: pd.DataFrame) -> pd.DataFrame:
    """The attacker's view of each patient: their true quasi-identifiers, recoded as Fig. 2 was made.

    ZIP codes masked to ``130**`` / ``1485*``, ages cut at 30 and 40
    (``< 30``, ``3*``, ``≥ 40``), nationality suppressed.

    >>> r = fig2_recoding(tables.inpatient_microdata())
    >>> r.loc[3, ["zip_code", "age", "nationality"]].tolist()
    ['130**', '< 30', '*']
    """
    return micro.assign(
        zip_code=micro["zip_code"].str[:3].map({"130": "130**", "148": "1485*"}),
        age=syn.generalize_numeric(micro["age"], bins=[0, 30, 40, np.inf],
                                   labels=["< 30", "3*", "≥ 40"]).astype(str),
        nationality="*")


def linking_candidates(micro: pd.DataFrame, fig2: pd.DataFrame) -> pd.Series:
    """For every patient, the number of published records that match their recoded quasi-identifiers.

    Recodes the microdata as Fig. 2 was made (:func:`fig2_recoding`), checks
    that this gives Fig. 2 exactly, and links each patient against the
    release (the size of the class the homogeneity attack finds for them).
    Raises ``ValueError`` if the recoding does not reproduce ``fig2``.

    >>> s = slide_tables()
    >>> linking_candidates(s.micro, s.fig2).unique().tolist()
    [4]
    """
    recoded = fig2_recoding(micro)
    try:
        pd.testing.assert_frame_equal(recoded, fig2)
    except AssertionError as exc:
        raise ValueError(f"the recoded microdata is not the published table: {exc}") from None
    qis = tables.INPATIENT_QUASI_IDENTIFIERS
    return homogeneity_attack(fig2, qis, INPATIENT_SENSITIVE, targets=recoded).targets["class_size"]


def linking_range_text(linking: pd.Series) -> str:
    """``"4"`` when every patient has as many candidates, else ``"between 2 and 4"``.

    >>> linking_range_text(pd.Series([4, 4])), linking_range_text(pd.Series([2, 4]))
    ('4', 'between 2 and 4')
    """
    lo, hi = linking.min(), linking.max()
    return f"{lo}" if lo == hi else f"between {lo} and {hi}"


def measure_fig2_claims(micro: pd.DataFrame, fig2: pd.DataFrame) -> dict[str, Measurement]:
    """The claims of the k-anonymity slides on Fig. 2.

    - ``slides.kanon.fig2.k``: k of the release;
    - ``slides.kanon.linking_yields_4``: the fewest published records a
      patient's recoded quasi-identifiers link to;
    - ``slides.kanon.homogeneity_attack``: the class (``130**``, ``3*``) holds
      a single condition (one distinct value, posterior probability 1).
    """
    qis = tables.INPATIENT_QUASI_IDENTIFIERS
    linking = linking_candidates(micro, fig2)
    hom = ms.class_row(ms.equivalence_classes(fig2, qis, INPATIENT_SENSITIVE), **FIG2_HOMOGENEOUS_CLASS)
    where = ", ".join(FIG2_HOMOGENEOUS_CLASS.values())
    return {
        "slides.kanon.fig2.k": Measurement(ms.k_anonymity(fig2, qis)),
        "slides.kanon.linking_yields_4": Measurement(
            int(linking.min()), note=f"candidates per patient range {linking.min()}-{linking.max()}"),
        "slides.kanon.homogeneity_attack": Measurement(
            bool(hom["n_distinct"] == 1 and hom["top_share"] == 1.0),
            note=f"class ({where}): only {hom['top_value']}"),
    }


def measure_ldiv_claims(ldiv: pd.DataFrame, l_expected: int | None = None) -> dict[str, Measurement]:
    """The claims of the l-diversity slide (k = 4, l = ?).

    ``slides.ldiv.table.l`` holds when the distinct l equals ``l_expected``
    (default: the ledger's ``l_distinct_expected``, 3).
    """
    qis = tables.INPATIENT_QUASI_IDENTIFIERS
    if l_expected is None:
        l_expected = claim("slides.ldiv.table.l").params["l_distinct_expected"]  # type: ignore[index]
    l_distinct = ms.distinct_l_diversity(ldiv, qis, INPATIENT_SENSITIVE)
    return {
        "slides.ldiv.table.k": Measurement(ms.k_anonymity(ldiv, qis)),
        "slides.ldiv.table.l": Measurement(l_distinct == l_expected, note=f"distinct l = {l_distinct}"),
    }


def similarity_table(sd3: pd.DataFrame, hierarchy: ms.Hierarchy) -> pd.DataFrame:
    """Equivalence classes of the 3-diverse table by disease and by disease group.

    Each disease is replaced by its group one level up ``hierarchy``
    (:func:`~anonlab.mechanisms.syntactic.generalize_categorical`); the
    columns of :func:`~anonlab.measures.syntactic.equivalence_classes` by
    disease are joined with ``n_distinct_group`` and ``top_value_group``.

    >>> s = slide_tables()
    >>> similarity_table(s.sd3, s.hierarchy)[["n_distinct", "n_distinct_group"]].values.tolist()
    [[3, 1], [3, 2], [3, 2]]
    """
    qis = tables.SALARY_DISEASE_QUASI_IDENTIFIERS
    groups = sd3.assign(disease_group=syn.generalize_categorical(sd3["disease"], hierarchy, levels=1))
    by_disease = ms.equivalence_classes(sd3, qis, "disease")
    by_group = ms.equivalence_classes(groups, qis, "disease_group")[["n_distinct", "top_value"]]
    return by_disease.join(by_group, rsuffix="_group")


def measure_similarity_claim(sd3: pd.DataFrame, hierarchy: ms.Hierarchy) -> dict[str, Measurement]:
    """``slides.ldiv.similarity_attack``: the first class has >= 3 diseases but one disease group."""
    first = ms.class_row(similarity_table(sd3, hierarchy), **SD3_FIRST_CLASS)
    where = ", ".join(SD3_FIRST_CLASS.values())
    return {
        "slides.ldiv.similarity_attack": Measurement(
            bool(first["n_distinct"] >= 3 and first["n_distinct_group"] == 1),
            note=f"class ({where}): {first['n_distinct']} diseases, one group "
                 f"({first['top_value_group']})"),
    }


def salary_bands(salary: pd.Series, band_width: int) -> pd.Series:
    """Salaries replaced by equal-width bands starting at the lowest: a one-level hierarchy of Salary.

    :func:`~anonlab.mechanisms.syntactic.generalize_numeric` with ``width =
    band_width`` and ``origin = min(salary)``, as strings.

    >>> salary_bands(pd.Series([3000, 5000, 6000, 11000]), 3000).tolist()
    ['[3000, 6000)', '[3000, 6000)', '[6000, 9000)', '[9000, 12000)']
    """
    w = check_int("salary_band_width", band_width, low=1)
    return syn.generalize_numeric(salary, width=w, origin=float(salary.min())).astype(str)


def salary_similarity_table(sd3: pd.DataFrame, band_width: int) -> pd.DataFrame:
    """The similarity check on Salary: each class's salaries, grouped in bands of ``band_width``.

    Salaries are replaced by equal-width bands starting at the table's lowest
    salary (:func:`salary_bands`: a one-level hierarchy of Salary) and the
    homogeneity check is rerun on the bands, as
    :func:`similarity_table` does for Disease. Columns ``zip_code``, ``age``,
    ``size``, ``n_distinct`` (salaries), ``n_bands`` (bands spanned) and
    ``band`` (the band, when the class sits in one; else ``"several"``).

    >>> s = slide_tables()
    >>> salary_similarity_table(s.sd3, 3000)[["n_distinct", "n_bands", "band"]].values.tolist()
    [[3, 1, '[3000, 6000)'], [3, 2, 'several'], [3, 2, 'several']]
    """
    qis = tables.SALARY_DISEASE_QUASI_IDENTIFIERS
    bands = sd3.assign(salary_band=salary_bands(sd3["salary"], band_width))
    by_salary = ms.equivalence_classes(sd3, qis, "salary")[["zip_code", "age", "size", "n_distinct"]]
    by_band = ms.equivalence_classes(bands, qis, "salary_band")[["n_distinct", "top_value"]]
    one = by_band["n_distinct"].to_numpy() == 1
    return by_salary.assign(n_bands=by_band["n_distinct"].to_numpy(),
                            band=np.where(one, by_band["top_value"].to_numpy(), "several"))


def t_closeness_table(sdt: pd.DataFrame, hierarchy: ms.Hierarchy) -> pd.DataFrame:
    """Per class of the t-closeness table: the EMD to the whole table for Salary and Disease.

    Columns ``zip_code``, ``age``, ``size``, ``salary (ordered)`` (ordered
    distance) and the Disease EMD under each reading of the hierarchy the
    slides leave unstated (:data:`DISEASE_T_COLUMNS`, the ledger's readings):

    - ``disease (hierarchical)``: the tree of Li, Li & Venkatasubramanian
      (2007), ``hierarchy``; ground distance level/height (their Sec. 4.2);
    - ``disease (one level taller)``: the same tree with one extra level
      between each system and the root (:func:`~anonlab.measures.syntactic.taller_hierarchy`);
    - ``disease (equal)``: every two diseases at distance 1 (half the L1
      distance, their Sec. 4.2 "equal distance").

    The t of each (:func:`~anonlab.measures.syntactic.t_closeness`) is the column's maximum.

    >>> s = slide_tables()
    >>> t = t_closeness_table(s.sdt, s.hierarchy)
    >>> [round(float(t[c].max()), 4) for c in ["salary (ordered)", "disease (hierarchical)"]]
    [0.1667, 0.2963]
    """
    qis = tables.SALARY_DISEASE_QUASI_IDENTIFIERS
    table = ms.equivalence_classes(sdt, qis, "salary", distance="ordered")[["zip_code", "age", "size", "emd"]]
    table = table.rename(columns={"emd": "salary (ordered)"})
    readings = [{"hierarchy": hierarchy}, {"hierarchy": ms.taller_hierarchy(hierarchy)}, {"distance": "equal"}]
    for column, how in zip(DISEASE_T_COLUMNS.values(), readings):
        table[column] = ms.emd_by_class(sdt, qis, "disease", **how).to_numpy()
    return table


def fraction_text(x: float) -> str:
    """``x`` as the nearest fraction with denominator at most 1000, e.g. ``"8/27"``.

    >>> fraction_text(8 / 27)
    '8/27'
    """
    return str(Fraction(x).limit_denominator(1000))


def disease_t_readings(t_table: pd.DataFrame) -> dict[str, float]:
    """The Disease t under each reading of the unstated hierarchy (:data:`DISEASE_T_READINGS`).

    ``t_table`` is :func:`t_closeness_table`; t is the largest Earth Mover's
    Distance between a class and the whole table.

    >>> s = slide_tables()
    >>> {k: fraction_text(v) for k, v in disease_t_readings(t_closeness_table(s.sdt, s.hierarchy)).items()}
    {'Li et al. (height 3)': '8/27', 'one level taller (height 4)': '5/18', 'no hierarchy (equal distance)': '5/9'}
    """
    return {reading: float(t_table[column].max()) for reading, column in DISEASE_T_COLUMNS.items()}


def disease_t_readings_table(readings: Mapping[str, float]) -> pd.DataFrame:
    """One row per reading of the Disease hierarchy: t and its exact fraction (:func:`fraction_text`)."""
    return pd.DataFrame({"t": list(readings.values()), "exact": [fraction_text(t) for t in readings.values()]},
                        index=pd.Index(list(readings), name="reading"))


def measure_t_closeness_claims(sdt: pd.DataFrame, hierarchy: ms.Hierarchy) -> dict[str, Measurement]:
    """The t-closeness slide: t for Salary (ordered distance) and for Disease.

    The Disease t is measured under every reading of the hierarchy the slides
    leave unstated (:func:`disease_t_readings`); the value under the default
    reading is Li et al.'s own tree, and the note gives the exact fractions.
    """
    t_table = t_closeness_table(sdt, hierarchy)
    readings = disease_t_readings(t_table)
    return {
        "slides.tclose.salary_t": Measurement(float(t_table["salary (ordered)"].max())),
        "slides.tclose.disease_t": Measurement(
            readings[DISEASE_T_READINGS[0]], alternatives=readings,
            note="hierarchical EMD; t = " + ", ".join(f"{fraction_text(t)} ({label})"
                                                     for label, t in readings.items())),
    }


def measure_slides_claims(slides: SlideTables) -> dict[str, Measurement]:
    """Every claim of the slides, in the chapter's order: ``{claim id: Measurement}``.

    ``slides.linking.zip_gender_dob_unique`` is not measurable here (it needs US population data).

    >>> m = measure_slides_claims(slide_tables())
    >>> m["slides.kanon.fig2.k"].value, m["slides.ldiv.table.l"].value
    (4, True)
    """
    return {
        **measure_fig2_claims(slides.micro, slides.fig2),
        **measure_ldiv_claims(slides.ldiv),
        **measure_similarity_claim(slides.sd3, slides.hierarchy),
        **measure_t_closeness_claims(slides.sdt, slides.hierarchy),
        "slides.linking.zip_gender_dob_unique": Measurement(
            None, note="needs US population data; see the Adult uniqueness rate in 'Beyond the slides'"),
    }


# -- Adult: sample, ladder, attacked table, sweep -----------------------------


def sample_adult(adult_all: pd.DataFrame, adult_rows: int, seed: int) -> pd.DataFrame:
    """The Adult records the chapter uses: all of them (``adult_rows = 0``) or a sample.

    ``adult_rows`` is checked against the loaded table (at most
    ``len(adult_all)``); the sample is ``adult_all.sample(adult_rows,
    random_state=seed)`` with a fresh index.

    >>> df = pd.DataFrame({"x": range(5)})
    >>> sample_adult(df, 0, 0) is df, len(sample_adult(df, 3, 1))
    (True, 3)
    >>> sample_adult(df, 6, 0)
    Traceback (most recent call last):
    ...
    anonlab.validation.ParameterError: parameter 'adult_rows' must be <= 5, got 6
    """
    check_int("adult_rows", adult_rows, low=0, high=len(adult_all))
    check_int("seed", seed, low=0)
    if not adult_rows:
        return adult_all
    return adult_all.sample(adult_rows, random_state=seed).reset_index(drop=True)


def adult_hierarchies(adult: pd.DataFrame) -> dict[str, ms.Hierarchy]:
    """Two-level hierarchies of Adult's native country (US / non-US) and race (white / non-white).

    >>> h = adult_hierarchies(pd.DataFrame({"native_country": ["Cuba", "United-States"],
    ...                                     "race": ["White", "Other"]}))
    >>> h["native_country"]
    {'*': {'US': ['United-States'], 'non-US': ['Cuba']}}
    """
    return {
        "native_country": {"*": {"US": ["United-States"],
                                 "non-US": sorted(set(adult["native_country"]) - {"United-States"})}},
        "race": {"*": {"white": ["White"], "non-white": sorted(set(adult["race"]) - {"White"})}},
    }


def adult_ladder(adult: pd.DataFrame, width: int) -> list[dict[str, Any]]:
    """The generalisation ladder of Adult: arguments of :func:`~anonlab.mechanisms.syntactic.generalize` per level.

    ====  ============================================================
    0     as published
    1     age in ranges of ``width`` years
    2     + native country US / non-US
    3     + race white / non-white
    4     age in ranges of ``2 width`` years
    5     age in ranges of ``4 width`` years
    6     native country and race suppressed (``*``)
    ====  ============================================================

    Columns not named stay exact.

    >>> ladder = adult_ladder(pd.DataFrame({"native_country": ["Cuba"], "race": ["White"]}), 10)
    >>> len(ladder), ladder[1], ladder[5]["ranges"]
    (7, {'ranges': {'age': 10}}, {'age': 40})
    """
    w = check_int("age_bucket_width", width, low=1)
    h = adult_hierarchies(adult)
    country, race = h["native_country"], h["race"]
    return [
        {},
        {"ranges": {"age": w}},
        {"ranges": {"age": w}, "hierarchies": {"native_country": (country, 1)}},
        {"ranges": {"age": w}, "hierarchies": {"native_country": (country, 1), "race": (race, 1)}},
        {"ranges": {"age": 2 * w}, "hierarchies": {"native_country": (country, 1), "race": (race, 1)}},
        {"ranges": {"age": 4 * w}, "hierarchies": {"native_country": (country, 1), "race": (race, 1)}},
        {"ranges": {"age": 4 * w}, "hierarchies": {"native_country": (country, 2), "race": (race, 2)}},
    ]


def _level_text(hierarchy: ms.Hierarchy, levels: int) -> str:
    """The values a column takes ``levels`` steps up a hierarchy whose leaves are at one depth."""
    parents = ms.as_parent_map(hierarchy)
    depth = lambda node: 0 if parents[node] is None else 1 + depth(parents[node])  # noqa: E731
    target = max(0, ms.hierarchy_height(hierarchy) - levels)
    return " / ".join(n for n in parents if depth(n) == target)


def describe_ladder(ladder: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """What each level of a ladder does to each generalised column, in words.

    >>> ladder = adult_ladder(pd.DataFrame({"native_country": ["Cuba"], "race": ["White"]}), 10)
    >>> describe_ladder(ladder).loc[3].tolist()
    ['ranges of 10 years', 'US / non-US', 'white / non-white']
    """
    rows = []
    for spec in ladder:
        row = {c: "exact" for c in LADDER_COLUMNS}
        for col, width in spec.get("ranges", {}).items():
            row[col] = f"ranges of {width:g} years"
        for col, (hier, levels) in spec.get("hierarchies", {}).items():
            row[col] = _level_text(hier, levels)
        rows.append(row)
    return pd.DataFrame(rows, index=pd.RangeIndex(len(rows), name="level"))


@dataclass(frozen=True)
class AttackedTable:
    """The table the homogeneity attack targets, with its columns and a name for the yardstick."""

    name: str
    table: pd.DataFrame
    quasi_identifiers: list[str]
    sensitive_attribute: str


def attacked_table(table: str, slides: SlideTables, adult: pd.DataFrame,
                   ladder: Sequence[Mapping[str, Any]], attack_level: int,
                   quasi_identifiers: Sequence[str], sensitive_attribute: str) -> AttackedTable:
    """Figure 2 (``table = "slides"``) or Adult generalised to ``attack_level`` (``"adult"``).

    >>> a = attacked_table("slides", slide_tables(), pd.DataFrame(), [{}], 0, [], "")
    >>> a.name, a.sensitive_attribute
    ('Figure 2', 'condition')
    """
    check_choice("table", table, ["slides", "adult"])
    if table == "slides":
        return AttackedTable("Figure 2", slides.fig2, list(tables.INPATIENT_QUASI_IDENTIFIERS),
                             INPATIENT_SENSITIVE)
    check_int("attack_level", attack_level, low=0, high=len(ladder) - 1)
    return AttackedTable(f"Adult, level {attack_level}", syn.generalize(adult, **ladder[attack_level]),
                         list(quasi_identifiers), sensitive_attribute)


def sweep_findings(sweep: pd.DataFrame, k_target: int, level: int = 3) -> dict[str, Any]:
    """What the ladder's sweep says, for the prose: glue key -> value (str = Markdown).

    - ``first_level_k``: the first level whose k reaches ``k_target``
      without suppression ("level 4", or "no level of the ladder");
    - ``supp_level1``, ``supp_level3``: fraction suppressed at levels 1 and ``level``;
    - ``l_after_level3``, ``lent_after_level3``: distinct and entropy l after
      suppression at ``level`` ("undefined" / NaN when everything is suppressed);
    - ``t_level3``: t at ``level`` without suppression.

    >>> sweep = pd.DataFrame({"k": [1, 2, 5, 6], "suppressed": [0.5, 0.2, 0.0, 1.0],
    ...                       "t": [0.4, 0.3, 0.2, 0.1], "l_distinct_after": [1, 2, 3, np.nan],
    ...                       "l_entropy_after": [1.0, 1.5, 2.5, np.nan]})
    >>> f = sweep_findings(sweep, 4, level=3)
    >>> f["first_level_k"], f["supp_level1"], f["l_after_level3"]
    ('level 2', 0.2, 'undefined')
    """
    reached = sweep.index[sweep["k"] >= k_target]
    kept = sweep.loc[level, "suppressed"] < 1
    return {
        "first_level_k": f"level {reached[0]}" if len(reached) else "no level of the ladder",
        "supp_level1": float(sweep.loc[1, "suppressed"]),
        "supp_level3": float(sweep.loc[level, "suppressed"]),
        "l_after_level3": str(int(sweep.loc[level, "l_distinct_after"])) if kept else "undefined",
        "lent_after_level3": float(sweep.loc[level, "l_entropy_after"]) if kept else float("nan"),
        "t_level3": float(sweep.loc[level, "t"]),
    }


# -- sentences that compare, chosen from the numbers (issue 34) -----------------


def _plural(n: int, one: str, many: str) -> str:
    """``one`` when ``n`` is 1, else ``many`` (grammar, not a claim)."""
    return one if n == 1 else many


def salary_sentences(salary_sim: pd.DataFrame) -> list[Sentence]:
    """Whether Salary's bands tell the similarity attack's story (:func:`salary_similarity_table`), in words.

    ``salary_story``: "the same story" when the first class sits in one band, as its diseases sit in one
    group; ``salary_single``: how many classes sit inside one band, and what that discloses (nothing, at a
    width narrow enough that none does).

    >>> s = salary_sentences(salary_similarity_table(slide_tables().sd3, 1000))
    >>> [x.relation for x in s], s[1].text
    (['above', 'equal'], "none of the 3 classes sits inside a single band: at this width the bands disclose no one's salary band")
    """
    first = ms.class_row(salary_sim, **SD3_FIRST_CLASS)
    n_classes = len(salary_sim)
    single = int((salary_sim["n_bands"] == 1).sum())
    story = compare("sd3_salary_story", int(first["n_bands"]), 1, {
        "equal": "Salary tells the same story",
        "above": "Salary tells a weaker story at this band width",
    })
    sits = _plural(single, "sits", "sit")
    single_sentence = compare("sd3_salary_single", single, 0, {
        "above": (f"{{left:.0f}} of the {n_classes} classes {sits} inside a single band. For anyone in such a "
                  "class the band is disclosed, although the class's salaries are all distinct"),
        "equal": (f"none of the {n_classes} classes sits inside a single band: at this width the bands disclose "
                  "no one's salary band"),
    })
    return [story, single_sentence]


def uniqueness_sentence(n_unique: int, n_records: int) -> Sentence:
    """How many Adult records are alone in their class as published, in words (none, at coarse quasi-identifiers).

    >>> uniqueness_sentence(0, 3000).text
    "As published, no record is alone in its equivalence class: knowing a target's quasi-identifiers leaves at least two candidate records"
    """
    share = n_unique / n_records if n_records else 0.0
    return compare("adult_unique_sentence", n_unique, 0, {
        "above": (f"As published, {{left:,.0f}} {_plural(n_unique, 'record', 'records')} ({share:.1%}) "
                  f"{_plural(n_unique, 'is', 'are')} alone in their equivalence class: anyone who knows their "
                  "quasi-identifiers finds their record, and its sensitive value"),
        "equal": ("As published, no record is alone in its equivalence class: knowing a target's "
                  "quasi-identifiers leaves at least two candidate records"),
    })


def sweep_sentences(sweep: pd.DataFrame, k_target: int, n_sa_values: int, sa_name: str,
                    level: int = 3) -> list[Sentence]:
    """What the ladder's sweep (:func:`~anonlab.mechanisms.syntactic.generalisation_sweep`) says, in words.

    ``sweep_first_k``: where k first reaches ``k_target`` without suppression (level 0: the table as
    published; none: the top's smallest class against the target); ``sweep_l_after``: the l left after
    suppression at ``level`` against the sensitive attribute's ``n_sa_values`` values (every value in every
    class, or fewer; nothing left when everything is suppressed).

    >>> sweep = pd.DataFrame({"k": [1, 2, 3], "suppressed": [0.5, 0.2, 1.0],
    ...                       "l_distinct_after": [1, 2, np.nan], "l_entropy_after": [1.0, 1.5, np.nan]})
    >>> [s.text for s in sweep_sentences(sweep, 4, 2, "`income`", level=1)][0]
    'reaches the target at no level of the ladder: even at the top the smallest class has 3 records, fewer than k = 4, as a few records with rare combinations (the oldest ages, small countries) keep k low all the way up'
    """
    reached = sweep.index[sweep["k"] >= k_target]
    if len(reached):
        first = compare("sweep_first_k", int(reached[0]), 0, {
            "above": ("first reaches the target at level {left:.0f}: a few records with rare combinations (the "
                      "oldest ages, small countries) keep k below it up to that level"),
            "equal": f"reaches the target at level 0: the table as published is already {k_target}-anonymous",
        })
    else:
        top = int(sweep["k"].max())
        first = compare("sweep_first_k", top, k_target, {
            "below": (f"reaches the target at no level of the ladder: even at the top the smallest class has "
                      f"{{left:.0f}} {_plural(top, 'record', 'records')}, fewer than k = {{right:.0f}}, as a few "
                      "records with rare combinations (the oldest ages, small countries) keep k low all the way up"),
        })
    suppressed = float(sweep.loc[level, "suppressed"])
    if suppressed >= 1:
        after = compare("sweep_l_after", suppressed, 1, {
            "equal": (f"After suppression at level {level} nothing is left (every class is smaller than "
                      f"k = {k_target}), so its l is undefined; but k says nothing about the sensitive attribute "
                      "anyway, which is what l-diversity and t-closeness were introduced to catch"),
        })
    else:
        l_after = int(sweep.loc[level, "l_distinct_after"])
        lent = float(sweep.loc[level, "l_entropy_after"])
        after = compare("sweep_l_after", l_after, n_sa_values, {
            "below": (f"But k says nothing about the sensitive attribute. After suppression at level {level} the "
                      f"distinct l is {{left:.0f}} and the entropy l {lent:.2f}, while the table has {{right:.0f}} "
                      f"distinct values of the sensitive attribute {sa_name}: k-anonymous classes can still be "
                      "dominated by a few sensitive values, which is what l-diversity and t-closeness were "
                      "introduced to catch"),
            "equal": (f"But k says nothing about the sensitive attribute. After suppression at level {level} the "
                      f"distinct l is {{left:.0f}}: every class holds all {{right:.0f}} values of {sa_name}, and "
                      f"the entropy l is {lent:.2f}. Here k happens to leave every value in every class, but it "
                      "does not promise it, which is what l-diversity and t-closeness were introduced to check"),
        })
    return [first, after]


def best_guess_sentence(best: float, majority: float, level: int, k: int) -> Sentence:
    """Whether the class's most common value beats the majority guess at ``level`` and ``k``, in words.

    >>> best_guess_sentence(0.2, 0.2, 3, 4).relation
    'at or below'
    """
    where = f"at level {level} with k = {k}"
    return compare("explore_best_sentence", best, majority, {
        "above": (f"Certainty is not the only leak: {where}, the most common value of a record's class is its "
                  "own for {left:.1%} of the records, against {right:.1%} for the majority guess"),
        "at or below": (f"Beyond certainty the class adds nothing {where}: the most common value of a record's "
                        "class is its own for {left:.1%} of the records, no more than the majority guess's "
                        "{right:.1%}"),
    })


#: The k targets the explorable figure moves through (the slides' Figure 2: k = 4).
EXPLORE_KS = (1, 2, 3, 4, 5, 10, 20, 50)


def homogeneity_explorable(run: Any, levels: Sequence[pd.DataFrame], quasi_identifiers: Sequence[str],
                           sensitive_attribute: str, key: Mapping[str, Any]) -> Any:
    """The explorable figure of :func:`homogeneity_frame` over ``k_target`` (:data:`EXPLORE_KS` and the run's own).

    The slides' homogeneity claim is qualitative (no band) and they print no value for Adult (no paper point).
    """
    ks = sorted({*EXPLORE_KS, int(run.p["k_target"])})
    return run.explorable(
        "What the attacker learns", "k_target", ks,
        lambda k: homogeneity_frame(levels, quasi_identifiers, sensitive_attribute, k),
        x_label="generalisation level", y_label="share of the records", claim_id=CLAIMS["homogeneity"], key=key,
        alt=f"Line chart of four shares of Adult's records against the generalisation level 0 to {len(levels) - 1}: "
            "disclosed with certainty by the homogeneity attack, guessed right from the class, guessed right by "
            f"the majority guess, and suppressed; a slider moves the k enforced by suppression from {ks[0]} to {ks[-1]}.")

"""The course's graded assignments: two per chapter, each a function the hidden test calls on variants.

Each :class:`~anonbook.assignments.model.Assignment` asks the student to write one function applying the
chapter's method (an attack, a measure, or the paper's arithmetic) and calls it, in the hidden test, on
variants no page of the book shows: other tables or subsets, another attribute, seed, ε, threshold, skew. The
values it expects are computed by the build with the ``reference`` functions below, which call the library on
each variant (:func:`~anonbook.assignments.model.hidden_expectations`); no expected value is written here.
The starter's example (``public_args``) is what the student can try the function on; the 0-point public
check runs it there. ``wrong`` is a mistake students make; the tests check that it scores 0.

Every hidden run takes at most a few seconds (the Adult ones load the cached file once).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonbook.assignments.model import Assignment

__all__ = ["ASSIGNMENTS", "by_chapter"]

_CH1, _CH2, _CH3 = "01_syntactic_anonymity", "02_dp_vs_definetti", "03_netflix_eccentricity"
_CH4, _CH5, _CH6A = "04_census_reconstruction", "05_nonmember_framework", "06a_diffix_differential"
_CH6B, _CH7, _CH8, _CH9 = "06b_diffix_cloning", "07_membership_base_rates", "08_passive_active", "09_one_yardstick"
_CH10 = "10_audit_your_release"


# --- the hidden runs: one variant's expected value, by the library ---------------------------------------------
def _k_anonymity(table: Any, qis: list[str]) -> int:
    from anonlab.measures.syntactic import k_anonymity

    return int(k_anonymity(table, qis))


def _t_ordered(table: Any, qis: list[str], sensitive: str) -> float:
    from anonlab.measures.syntactic import t_closeness

    return float(t_closeness(table, qis, sensitive, distance="ordered"))


def _majority_precision(table: Any, attribute: str) -> float:
    from anonlab.measures import majority_baseline, score

    return float(score(majority_baseline(table[attribute].dropna().to_numpy())).precision)


def _usable_rows(table: Any, attribute: str) -> int:
    return int(table[attribute].notna().sum())


def _weights(support: list[int]) -> np.ndarray:
    from anonlab.attacks.netflix import attribute_weights

    return attribute_weights(support, "natural")


def _eccentricity(scores: np.ndarray) -> float:
    from anonlab.attacks.netflix import eccentricity

    return float(eccentricity(np.asarray(scores, dtype=float)))


def _reconstruction_rate(pop: Any, publication: Any) -> float:
    from anonlab.attacks.reconstruction import exact_match_rate, reconstruct

    return float(exact_match_rate(reconstruct(publication, check_unique=False), pop.type_counts()))


def _home_work_share(home_hours: float, work_hours: float, trace_hours: float) -> float:
    return (home_hours + work_hours) / trace_hours


def _precision(population: float, member_share: float, fpr: float, fnr: float) -> float:
    from anonlab.measures.rates import precision_at_skew

    members = population * member_share
    return float(precision_at_skew(1 - fnr, fpr, members, population - members))


def _baseline(members: float, non_members: float) -> float:
    from anonlab.measures.rates import baseline_precision

    return float(baseline_precision(members, non_members))


def _accuracy(k: int, noise_sd: float) -> float:
    from anonlab.attacks.diffix.theory import theoretical_accuracy

    return float(theoretical_accuracy(k, noise_sd))


def _complete_records(table: Any) -> int:
    return len(table.dropna())


def _queries(n_dummy: int) -> int:
    return 2 * n_dummy + 1


def _mean_class(ds: Any) -> float:
    from anonlab.data.diffix_datasets import value_unique_classes

    return float(value_unique_classes(ds.data, ds.attributes, ds.secret).mean())


def _odds(visit_rate: float, train_fraction: float) -> float:
    share = visit_rate * train_fraction
    return (1 - share) / share


def _precision_at(tpr: float, fpr: float, skew: float) -> float:
    from anonlab.measures.rates import precision_at_skew

    return float(precision_at_skew(tpr, fpr, 1, skew))


def _log_delta(which: str, thresholded: bool) -> Any:
    def run(n_voters: int, threshold: int, known: int, p: float) -> float:
        from anonlab.mechanisms.thresholding import exact_tally, tally_partial_knowledge_delta, thresholded_tally

        mech = thresholded_tally(threshold) if thresholded else exact_tally()
        r = tally_partial_knowledge_delta(mech, n_voters, p, known, [1.0])
        return float(getattr(r, f"log_{which}")[0])

    return run


def _pi(p_atk: float, p_base: float) -> float:
    from anonlab.measures.rates import precision_improvement

    return float(precision_improvement(p_atk, p_base))


def _pi_at_skew(tpr: float, fpr: float, skew: float) -> float:
    from anonlab.measures.rates import precision_improvement_at_skew

    return float(precision_improvement_at_skew(tpr, fpr, skew))


def _excess_share(coverage: float, p_atk: float, p_base: float) -> float:
    from anonbook.chapters.ch10_audit_your_release import excess_share

    return float(excess_share({"coverage": coverage, "precision": p_atk, "baseline_precision": p_base}))


def _nearest_row_precision(release: Any, targets: Any, secret: str, known: list[str]) -> float:
    import pandas as pd

    from anonlab.attacks.release import nearest_row_attack
    from anonlab.measures.nonmember import attribute_kinds

    kinds = attribute_kinds(pd.concat([release, targets], ignore_index=True))
    return float(nearest_row_attack(release, targets, secret, known, kinds=kinds).is_correct().mean())


_TABLES = "from anonlab.data import tables\n"
_ADULT = ("from anonlab.data import load_adult\n_adult = load_adult('train')\n"
          "def _sample(n, seed):\n    return _adult.sample(n=n, random_state=seed)\n")
_BLOCKS = ("from anonlab.data.census_blocks import generate_blocks\nfrom anonlab.mechanisms.census import publish\n"
           "def _release(n_blocks, seed, mechanism, **kw):\n"
           "    pop = generate_blocks(n_blocks, seed=seed)\n    return pop, publish(pop, mechanism, seed=seed, **kw)\n")
_TALLY = ("import numpy as np\nfrom anonlab.mechanisms.thresholding import tally_partial_knowledge_delta, "
          "thresholded_tally, exact_tally\n")

def _formula(chapter: str, key: str, claim_id: str, title: str, task: str, function: str, args: str, example: str,
             right: str, wrong: str, wrong_does: str, cases: tuple[str, ...], reference: Any,
             results_from: str | None = None) -> Assignment:
    """An assignment on the paper's arithmetic: ``function(args)`` whose body is ``right`` (``wrong`` the mistake).

    The starter sets ``args = example``; the hidden test needs no setup.
    """
    def define(body: str) -> str:
        return f"def {function}({args}):\n    " + body.replace("\n", "\n    ")

    return Assignment(chapter, key, claim_id, title, task, function, f"{args} = {example}", args, define(right),
                      define(wrong), wrong_does, "", cases, reference, results_from=results_from)


ASSIGNMENTS: tuple[Assignment, ...] = (
    # --- chapter 1: k and t of a release, from scratch with pandas ---------------------------------------------
    Assignment(
        _CH1, "k-anonymity", "slides.kanon.fig2.k", "k of a released table",
        "Write `k_of(table, quasi_identifiers)`: group the records by the quasi-identifiers and return the size "
        "of the smallest equivalence class (an integer), from scratch with pandas. Try it on the slides' "
        "generalised inpatient table; the grader calls it on other tables and other sets of quasi-identifiers.",
        "k_of",
        _TABLES + "fig2 = tables.inpatient_4_anonymous()\nqis = ['zip_code', 'age', 'nationality']\nfig2",
        "fig2, qis",
        "def k_of(table, quasi_identifiers):\n    return int(table.groupby(list(quasi_identifiers)).size().min())",
        "def k_of(table, quasi_identifiers):\n"
        "    return int(table.groupby(list(quasi_identifiers) + ['condition']).size().min())",
        "groups by the sensitive attribute too (the condition is not a quasi-identifier)",
        _TABLES,
        ("tables.inpatient_4_anonymous().iloc[3:], ['zip_code', 'age', 'nationality']",
         "tables.inpatient_4_anonymous(), ['zip_code']",
         "tables.inpatient_3_diverse(), ['zip_code', 'age']",
         "tables.inpatient_microdata(), ['nationality']"),
        _k_anonymity),
    Assignment(
        _CH1, "t-closeness-salary", "slides.tclose.salary_t", "t of a numeric attribute (ordered distance)",
        "Write `t_of(table, quasi_identifiers, sensitive)`: the largest Earth Mover's Distance, with the "
        "*ordered distance*, between an equivalence class's distribution of the numeric `sensitive` column "
        "and the whole table's. Over the m distinct values in order, EMD = Σ_i |Σ_{j≤i} (p_j − q_j)| / (m − 1) "
        "(Li, Li & Venkatasubramanian 2007, Sec. 4.2). From scratch with numpy and pandas; the grader calls "
        "it on other tables and other quasi-identifiers.",
        "t_of",
        "import numpy as np\n" + _TABLES + "sdt = tables.salary_disease_t_close()\nsdt",
        "sdt, ['zip_code', 'age'], 'salary'",
        "def t_of(table, quasi_identifiers, sensitive):\n"
        "    values = np.sort(table[sensitive].unique())\n    m = len(values)\n"
        "    q = table[sensitive].value_counts(normalize=True).reindex(values, fill_value=0).to_numpy()\n"
        "    emds = []\n    for _, cls in table.groupby(list(quasi_identifiers)):\n"
        "        p = cls[sensitive].value_counts(normalize=True).reindex(values, fill_value=0).to_numpy()\n"
        "        emds.append(np.abs(np.cumsum(p - q)).sum() / (m - 1))\n    return float(max(emds))",
        "def t_of(table, quasi_identifiers, sensitive):\n"
        "    values = np.sort(table[sensitive].unique())\n    m = len(values)\n"
        "    q = table[sensitive].value_counts(normalize=True).reindex(values, fill_value=0).to_numpy()\n"
        "    emds = []\n    for _, cls in table.groupby(list(quasi_identifiers)):\n"
        "        p = cls[sensitive].value_counts(normalize=True).reindex(values, fill_value=0).to_numpy()\n"
        "        emds.append(np.abs(np.cumsum(p - q)).sum() / m)\n    return float(max(emds))",
        "divides by m instead of m − 1 (the largest ordered distance)",
        _TABLES + _ADULT,
        # samples of Adult: the slides' small tables give simple fractions (1/6, 3/8) that other pages show too
        ("_sample(400, 3), ['sex', 'race'], 'education_num'",
         "_sample(1000, 8), ['sex'], 'hours_per_week'",
         "_sample(250, 21), ['race', 'sex'], 'age'"),
        _t_ordered),
    # --- chapter 2: Adult, the baseline and the tuples an attack uses ----------------------------------------------
    Assignment(
        _CH2, "majority-baseline", "cormode.fig1.occupation.majority_baseline", "The majority baseline",
        "Write `majority_baseline(table, attribute)`: the accuracy of always guessing the most common value of "
        "`attribute`, over the rows where it is known (a fraction). Try it on Adult's occupation; the grader "
        "calls it on random samples of Adult and on other attributes.",
        "majority_baseline",
        "from anonlab.data import load_adult\nadult = load_adult('train')\nadult.head()",
        "adult, 'occupation'",
        "def majority_baseline(table, attribute):\n"
        "    return float(table[attribute].dropna().value_counts(normalize=True).iloc[0])",
        "def majority_baseline(table, attribute):\n    return 1 / table[attribute].dropna().nunique()",
        "takes a uniform random guess (1 / number of values) as the baseline instead of the majority guess",
        _ADULT,
        ("_sample(3001, 11), 'education'", "_sample(4999, 23), 'marital_status'", "_adult, 'workclass'",
         "_sample(2000, 5), 'occupation'"),
        _majority_precision),
    Assignment(
        _CH2, "adult-tuples", "cormode.s2_3.adult.n_tuples", "How many tuples an attack on an attribute uses",
        "Cormode's attack on a sensitive attribute uses the rows where that attribute is known, whatever else "
        "is missing. Write `usable_rows(table, sensitive)`: the number of such rows (an integer). The grader "
        "calls it on random samples of Adult and other sensitive attributes.",
        "usable_rows",
        "from anonlab.data import load_adult\nadult = load_adult('train')\nadult.isna().sum()",
        "adult, 'occupation'",
        "def usable_rows(table, sensitive):\n    return int(table[sensitive].notna().sum())",
        "def usable_rows(table, sensitive):\n    return len(table.dropna())",
        "drops every row with any missing value (the native country too), not only those missing the secret",
        _ADULT,
        ("_sample(4000, 3), 'workclass'", "_sample(6000, 8), 'occupation'", "_sample(2500, 21), 'native_country'"),
        _usable_rows),
    # --- chapter 3: the weighted scoring and its eccentricity ------------------------------------------------------
    Assignment(
        _CH3, "weights", "slides.netflix.weight_v1", "Movie weights from their support",
        "Narayanan and Shmatikov weigh movie i by w(i) = 1 / log |supp(i)| (natural logarithm), where "
        "|supp(i)| is the number of records that rated it. Write `weights(support)`: the weights of a list of "
        "supports (an array). The grader calls it on other supports.",
        "weights",
        "import numpy as np\nsupport = [2, 3, 2]  # records that rated each of three movies",
        "support",
        "def weights(support):\n    return 1 / np.log(np.asarray(support, dtype=float))",
        "def weights(support):\n    return 1 / np.log2(np.asarray(support, dtype=float))",
        "takes the logarithm to base 2",
        "",
        ("[5, 40, 7],", "[3, 1000, 17, 2],", "[12, 6],"),
        _weights),
    Assignment(
        _CH3, "eccentricity", "ns.eccentricity.rule", "Eccentricity of a score vector",
        "The de-anonymization declares a match only when the best score stands out: the eccentricity "
        "(max − second max) / σ, with σ the *population* standard deviation of all the scores. Write "
        "`eccentricity(scores)` (scores: an array of floats). The grader calls it on other score vectors.",
        "eccentricity",
        "import numpy as np\nscores = np.array([0.9, 0.4, 0.35, 0.3])",
        "scores",
        "def eccentricity(scores):\n    s = np.sort(np.asarray(scores, dtype=float))[::-1]\n"
        "    return float((s[0] - s[1]) / np.std(s))",
        "def eccentricity(scores):\n    s = np.sort(np.asarray(scores, dtype=float))[::-1]\n"
        "    return float((s[0] - s[1]) / np.std(s, ddof=1))",
        "takes the sample standard deviation (ddof = 1) instead of the population one",
        "import numpy as np\n",
        ("np.random.default_rng(5).random(40),", "np.random.default_rng(17).exponential(size=200),",
         "np.r_[np.random.default_rng(2).random(60), 3.0],"),
        _eccentricity),
    # --- chapter 4: reconstruction from block tables ---------------------------------------------------------------
    Assignment(
        _CH4, "reconstruction-rate", "fw.s3_1.abowd2019.exact_match", "Reconstructing census blocks",
        "Write `reconstruction_rate(population, publication)`: reconstruct every block of the publication with "
        "`anonlab.attacks.reconstruction.reconstruct(publication, check_unique=False)` and return the share of "
        "reconstructed records that match a true record exactly "
        "(`anonlab.attacks.reconstruction.exact_match_rate` against `population.type_counts()`). The grader "
        "calls it on other synthetic populations, published exactly, with swapping and with noise.",
        "reconstruction_rate",
        "from anonlab.data.census_blocks import generate_blocks\nfrom anonlab.mechanisms.census import publish\n"
        "from anonlab.attacks.reconstruction import reconstruct, exact_match_rate\n"
        "population = generate_blocks(5, seed=0)\npublication = publish(population, 'exact')",
        "population, publication",
        "def reconstruction_rate(population, publication):\n"
        "    return float(exact_match_rate(reconstruct(publication, check_unique=False), population.type_counts()))",
        "def reconstruction_rate(population, publication):\n"
        "    import numpy as np\n    r = reconstruct(publication, check_unique=False)\n"
        "    x, true = r.counts, population.type_counts()\n"
        "    return float(np.minimum(x, true).sum() / true.sum())",
        "divides the matches by the true records instead of by the reconstructed ones",
        _BLOCKS,
        ("_release(8, 3, 'swapping', swap_rate=0.1)", "_release(8, 4, 'dp', epsilon=2.0)",
         "_release(6, 5, 'dp', table_set='pl94', epsilon=0.5)"),
        _reconstruction_rate),
    Assignment(
        _CH4, "home-work", "fw.s3_2.home_work_share", "How much of a trace home and work explain",
        "Francis & Wagner argue that a location trace is mostly home and work. Write "
        "`home_work_share(home_hours, work_hours, trace_hours)`: the share of a trace of `trace_hours` hourly "
        "points spent at home or at work. The grader calls it on other schedules.",
        "home_work_share",
        "home_hours, work_hours, trace_hours = 12, 8, 24",
        "home_hours, work_hours, trace_hours",
        "def home_work_share(home_hours, work_hours, trace_hours):\n"
        "    return (home_hours + work_hours) / trace_hours",
        "def home_work_share(home_hours, work_hours, trace_hours):\n    return work_hours / trace_hours",
        "counts only the hours at work",
        "",
        ("(13.5, 9.25, 24)", "(70, 41, 168)", "(10, 7.5, 24)"),
        _home_work_share),
    # --- chapter 5: precision and its baseline ---------------------------------------------------------------------
    Assignment(
        _CH5, "precision", "fw.s1.base_rate.balanced.precision", "Precision of a membership attack",
        "Write `precision(population, member_share, fpr, fnr)`: with TP = (1 − FNR) · members and "
        "FP = FPR · non-members, the precision TP / (TP + FP). The grader calls it on other populations, "
        "member shares and error rates.",
        "precision",
        "population, member_share, fpr, fnr = 1000, 0.3, 0.1, 0.2",
        "population, member_share, fpr, fnr",
        "def precision(population, member_share, fpr, fnr):\n"
        "    members = population * member_share\n    tp = (1 - fnr) * members\n"
        "    fp = fpr * (population - members)\n    return tp / (tp + fp)",
        "def precision(population, member_share, fpr, fnr):\n"
        "    members = population * member_share\n    tp = (1 - fnr) * members\n    return tp / members",
        "divides by the members (the recall) instead of by everyone the attack calls a member",
        "",
        ("(20000, 0.07, 0.013, 0.31)", "(5000, 0.42, 0.21, 0.05)", "(123456, 0.003, 0.0007, 0.4)"),
        _precision),
    Assignment(
        _CH5, "baseline", "fw.s1.base_rate.skewed.precision", "The everyone-is-a-member baseline",
        "The weakest membership attack calls everyone a member. Write `baseline_precision(members, "
        "non_members)`: its precision. The grader calls it on other populations.",
        "baseline_precision",
        "members, non_members = 300, 700",
        "members, non_members",
        "def baseline_precision(members, non_members):\n    return members / (members + non_members)",
        "def baseline_precision(members, non_members):\n    return members / non_members",
        "divides by the non-members (the odds) instead of by everyone",
        "",
        ("(137, 9851)", "(2917, 4083)", "(41, 1999)"),
        _baseline),
    # --- chapter 6a: the differential attack -----------------------------------------------------------------------
    Assignment(
        _CH6A, "accuracy", "gadotti.s1.differential_acc_k5", "The differential attack's exact accuracy",
        "Gadotti et al.'s likelihood-ratio test has an exact accuracy acc(k) when Diffix's noise is not "
        "rounded (App. A). Write `accuracy(k, noise_sd)` with "
        "`anonlab.attacks.diffix.theory.theoretical_accuracy` for k known attributes (not counting the "
        "secret). The grader calls it on other k and other noise levels.",
        "accuracy",
        "from anonlab.attacks.diffix import theory\nk, noise_sd = 2, 1.0",
        "k, noise_sd",
        "def accuracy(k, noise_sd):\n    return theory.theoretical_accuracy(k, noise_sd)",
        "def accuracy(k, noise_sd):\n    return theory.theoretical_accuracy(k - 1, noise_sd)",
        "counts the secret among the k attributes (an off-by-one)",
        "",
        ("(3, 1.3)", "(7, 1.0)", "(6, 2.5)"),  # not (3, 1.0): chapter 6a's explorable figure shows acc(3) at sd 1
        _accuracy),
    Assignment(
        _CH6A, "adult-records", "gadotti.s4.datasets.adult_records", "The records the Diffix paper keeps",
        "The Diffix paper keeps the rows with no missing value. Write `complete_records(table)`: how many "
        "rows of `table` it keeps. The grader calls it on random samples of Adult.",
        "complete_records",
        "from anonlab.data import load_adult\nadult = load_adult('train')",
        "adult,",
        "def complete_records(table):\n    return len(table.dropna())",
        "def complete_records(table):\n    return len(table)",
        "keeps the rows with missing values",
        _ADULT,
        ("_sample(3000, 1),", "_sample(7000, 9),", "_sample(1234, 77),"),
        _complete_records),
    # --- chapter 6b: the cloning attack's cost and value-unique classes --------------------------------------------
    Assignment(
        _CH6B, "queries-per-subset", "gadotti.s3.cloning.queries_per_subset", "Queries per attribute set",
        "The cloning attack validates its assumptions with |Δ| dummy conditions: one query per dummy with the "
        "target's value, one per dummy without it, and the attack query. Write `queries(n_dummy)`: the number "
        "of queries for one attribute set. The grader calls it on other |Δ|.",
        "queries",
        "n_dummy = 4",
        "n_dummy,",
        "def queries(n_dummy):\n    return 2 * n_dummy + 1",
        "def queries(n_dummy):\n    return n_dummy + 1",
        "counts one query per dummy instead of two",
        "",
        ("(3,)", "(11,)", "(26,)"),
        _queries),
    Assignment(
        _CH6B, "value-unique-mean", "gadotti.s4.adult_value_unique_class_mean", "Mean size of value-unique classes",
        "A value-unique class is a set of value-unique users sharing the same record without the secret. Write "
        "`mean_class_size(ds)` for a data set of `anonlab.data.diffix_datasets` (its `data`, `attributes` and "
        "`secret`) with `value_unique_classes`. The grader calls it on ADULT restricted to other attribute "
        "sets. Takes a few seconds.",
        "mean_class_size",
        "from anonlab.data import diffix_datasets as dd\nds = dd.adult()",
        "ds,",
        "def mean_class_size(ds):\n"
        "    return float(dd.value_unique_classes(ds.data, ds.attributes, ds.secret).mean())",
        "def mean_class_size(ds):\n"
        "    return float(dd.uniqueness(ds.data, ds.attributes, ds.secret)['value_unique'].mean())",
        "takes the share of value-unique users for the mean class size",
        "from anonlab.data import diffix_datasets as _dd\n",
        ("_dd.adult(attributes=['age', 'workclass', 'education', 'occupation', 'race']),",
         "_dd.adult(attributes=['age', 'marital_status', 'relationship', 'sex', 'hours_per_week', "
         "'native_country']),"),
        _mean_class),
    # --- chapter 7: skews and precision at a skew ------------------------------------------------------------------
    _formula(
        _CH7, "skew", "fw.s5.skew_hospitals", "The member:non-member skew of a scenario",
        "If a fraction r of the population visits a hospital and the model's training set samples a fraction f "
        "of the visitors, a person the attacker picks is a member with probability r · f. Write "
        "`skew(visit_rate, train_fraction)`: x in the skew 1 : x (one member for x non-members). The grader "
        "calls it on other rates.",
        "skew", "visit_rate, train_fraction", "0.5, 0.1",
        "share = visit_rate * train_fraction\nreturn (1 - share) / share",
        "return 1 / (visit_rate * train_fraction)",
        "takes 1 / share (one member in x people) for the odds (one member for x non-members)",
        ("(0.37, 0.02)", "(0.8, 0.35)", "(0.12, 0.005)"),
        _odds),
    _formula(
        _CH7, "precision-at-skew", "fw.s5.eq11.precision_from_roc", "Precision of an ROC point at a skew",
        "An attack's ROC point (TPR, FPR) gives a precision that depends on the skew 1 : x of the population "
        "attacked. Write `precision_at(tpr, fpr, skew)` (one member for `skew` non-members). The grader calls "
        "it on other ROC points and skews.",
        "precision_at", "tpr, fpr, skew", "0.5, 0.1, 1",
        "return tpr / (tpr + fpr * skew)",
        "return tpr / (tpr + fpr)",
        "ignores the skew (the precision of a balanced population)",
        ("(0.62, 0.03, 10)", "(0.9, 0.004, 250)", "(0.33, 0.1, 0.5)"),
        _precision_at),
    # --- chapter 8: Example 7, the thresholded referendum ----------------------------------------------------------
    Assignment(
        _CH8, "passive-delta", "desfontaines.ex7.passive_private", "The thresholded tally against a passive attacker",
        "A referendum tally is released only above a threshold. Write `log_passive_delta(n_voters, threshold, "
        "known, p)`: the natural log of the passive attacker's δ at ε = 1 for the thresholded tally "
        "(`tally_partial_knowledge_delta(...).log_passive[0]`), who knows `known` votes drawn at random and "
        "each unknown vote is Yes with probability `p`. The grader calls it on other referendums.",
        "log_passive_delta",
        _TALLY + "n_voters, threshold, known, p = 300, 20, 30, 1e-3",
        "n_voters, threshold, known, p",
        "def log_passive_delta(n_voters, threshold, known, p):\n"
        "    r = tally_partial_knowledge_delta(thresholded_tally(threshold), n_voters, p, known, [1.0])\n"
        "    return float(r.log_passive[0])",
        "def log_passive_delta(n_voters, threshold, known, p):\n"
        "    r = tally_partial_knowledge_delta(exact_tally(), n_voters, p, known, [1.0])\n"
        "    return float(r.log_passive[0])",
        "measures the plain tally, without the threshold",
        "",
        ("(500, 50, 60, 1e-3)", "(2000, 30, 200, 1e-2)", "(800, 10, 80, 5e-3)"),
        _log_delta("passive", True)),
    Assignment(
        _CH8, "active-delta", "desfontaines.ex7.active_defeats_threshold", "The active attacker and the threshold",
        "Same mechanism; the active attacker casts the `known` votes itself. Write `log_active_delta(n_voters, "
        "threshold, known, p)`: the natural log of the active δ at ε = 1 for the thresholded tally. The grader "
        "calls it on other referendums.",
        "log_active_delta",
        _TALLY + "n_voters, threshold, known, p = 300, 20, 30, 1e-3",
        "n_voters, threshold, known, p",
        "def log_active_delta(n_voters, threshold, known, p):\n"
        "    r = tally_partial_knowledge_delta(thresholded_tally(threshold), n_voters, p, known, [1.0])\n"
        "    return float(r.log_active[0])",
        "def log_active_delta(n_voters, threshold, known, p):\n"
        "    r = tally_partial_knowledge_delta(thresholded_tally(threshold), n_voters, p, known, [1.0])\n"
        "    return float(r.log_passive[0])",
        "uses the passive δ (votes drawn at random) where the attacker chooses the votes",
        "",
        ("(500, 50, 60, 1e-3)", "(2000, 30, 200, 1e-2)", "(800, 10, 80, 5e-3)"),
        _log_delta("active", True)),
    # --- chapter 9: the one yardstick ------------------------------------------------------------------------------
    _formula(
        _CH9, "pi", "fw.s4_3.pi_example_2", "Precision improvement, the yardstick's score",
        "Chapter 9 scores every attack by its precision improvement over a baseline, PI = (P_atk − P_base) / "
        "(1 − P_base) ([FW24] Eq 6). Write `pi(p_atk, p_base)`. The grader calls it on other precisions.",
        "pi", "p_atk, p_base", "0.8, 0.5",
        "return (p_atk - p_base) / (1 - p_base)",
        "return (p_atk - p_base) / p_base",
        "normalises by the baseline's precision (a relative gain) instead of by what is left to gain",
        ("(0.93, 0.61)", "(0.47, 0.12)", "(0.305, 0.3)"),
        _pi, results_from=_CH5),
    _formula(
        _CH9, "pi-at-skew", "fw.s1.base_rate.balanced.precision", "Precision improvement at a skew",
        "The yardstick compares an ROC point (TPR, FPR) with the everyone-is-a-member baseline at the "
        "population's skew 1 : x. Write `pi_at_skew(tpr, fpr, skew)`: the precision improvement of the "
        "attack's precision over the baseline's precision 1 / (1 + x). The grader calls it on other points "
        "and skews.",
        "pi_at_skew", "tpr, fpr, skew", "0.5, 0.1, 1",
        "p_atk = tpr / (tpr + fpr * skew)\np_base = 1 / (1 + skew)\nreturn (p_atk - p_base) / (1 - p_base)",
        "p_atk = tpr / (tpr + fpr * skew)\nreturn (p_atk - 0.5) / 0.5",
        "compares with a balanced population's baseline (1/2) whatever the skew",
        ("(0.62, 0.03, 10)", "(0.9, 0.004, 250)", "(0.33, 0.1, 3)"),
        _pi_at_skew, results_from=_CH5),
    # --- chapter 10: an audit of a release -------------------------------------------------------------------------
    _formula(
        _CH10, "excess-share", "fw.s2.outlier_attack_low_coverage", "What an attack learns beyond the baseline",
        "Chapter 10's verdict says of how many members an attacker learns the secret beyond what the non-members "
        "already tell: of the targets, the share the attack is right about less the share a model of the "
        "non-members is right about on the same targets. The attack guesses for a share `coverage` of the "
        "targets with precision `p_atk`; on those targets the non-member model's precision is `p_base`. Write "
        "`excess_share(coverage, p_atk, p_base)`. The grader calls it on other attacks.",
        "excess_share", "coverage, p_atk, p_base", "0.5, 0.9, 0.6",
        "return coverage * (p_atk - p_base)",
        "return coverage * (p_atk - p_base) / (1 - p_base)",
        "reports coverage × PI, a share of what was left to learn, instead of a share of the targets",
        ("(0.58, 1.0, 0.33)", "(1.0, 0.37, 0.31)", "(0.12, 0.75, 0.5)"),
        _excess_share, results_from=_CH5),
    Assignment(
        _CH10, "nearest-row", "fw.fig4.all_vs_pii", "Anonymeter's nearest-row attack on a release",
        "The nearest-row attack (Anonymeter's, chapter 10) guesses a target's `secret` as that of the release "
        "row nearest to it on the `known` columns, by the Gower distance: for a numeric column (more than "
        "nine distinct numbers) |x − y| divided by the column's range over the release and the targets "
        "together, for any other column 1 when the values differ, summed over the columns; a tie goes to the "
        "first release row. Write `nearest_row_precision(release, targets, secret, known)`: the share of "
        "targets whose guess is their own secret. The grader calls it on other samples of Adult, secrets "
        "and known columns.",
        "nearest_row_precision",
        _ADULT + "release, targets = _sample(300, 1), _sample(50, 2)",
        "release, targets, 'income', ['age', 'education', 'sex']",
        "def nearest_row_precision(release, targets, secret, known):\n"
        "    import numpy as np\n    import pandas as pd\n"
        "    both = pd.concat([release, targets])\n    d = np.zeros((len(targets), len(release)))\n"
        "    for c in known:\n        numeric = pd.api.types.is_numeric_dtype(both[c]) and both[c].nunique() >= 10\n"
        "        if numeric:\n            span = float(both[c].max() - both[c].min()) or 1.0\n"
        "            d += np.abs(targets[c].to_numpy(float)[:, None] - release[c].to_numpy(float)[None, :]) / span\n"
        "        else:\n            d += targets[c].astype(str).to_numpy()[:, None] != release[c].astype(str).to_numpy()[None, :]\n"
        "    guess = release[secret].to_numpy()[d.argmin(axis=1)]\n"
        "    return float(np.mean(guess.astype(str) == targets[secret].to_numpy().astype(str)))",
        "def nearest_row_precision(release, targets, secret, known):\n"
        "    import numpy as np\n    import pandas as pd\n"
        "    d = np.zeros((len(targets), len(release)))\n"
        "    for c in known:\n        if pd.api.types.is_numeric_dtype(release[c]):\n"
        "            d += np.abs(targets[c].to_numpy(float)[:, None] - release[c].to_numpy(float)[None, :])\n"
        "        else:\n            d += targets[c].astype(str).to_numpy()[:, None] != release[c].astype(str).to_numpy()[None, :]\n"
        "    guess = release[secret].to_numpy()[d.argmin(axis=1)]\n"
        "    return float(np.mean(guess.astype(str) == targets[secret].to_numpy().astype(str)))",
        "adds raw numeric differences (years, hours) to the 0/1 mismatches, so the numeric columns decide alone",
        _ADULT,
        ("_sample(400, 3), _sample(211, 4), 'income', ['age', 'education', 'sex', 'hours_per_week']",
         "_sample(600, 5), _sample(223, 6), 'occupation', ['age', 'workclass', 'education', 'sex']",
         "_sample(300, 7), _sample(227, 8), 'marital_status', ['age', 'relationship', 'hours_per_week']"),
        _nearest_row_precision, results_from=_CH5),
)


def by_chapter() -> dict[str, list[Assignment]]:
    """The assignments grouped by chapter, in the book's order."""
    out: dict[str, list[Assignment]] = {}
    for a in ASSIGNMENTS:
        out.setdefault(a.chapter, []).append(a)
    return out

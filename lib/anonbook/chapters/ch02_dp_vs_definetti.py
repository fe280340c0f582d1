"""Chapter 2: differential privacy's naive attack vs the deFinetti attack (Cormode 2011).

The declaration of the notebook ``02_dp_vs_definetti`` and the functions that
turn its results into claim measurements (``{claim id: Measurement}``): every
decision about a claim (which number is compared, the book's readings of
"about" and "barely distinguishable", the notes) is made here. The attacks are
:mod:`anonlab.attacks.naive_bayes` and :mod:`anonlab.attacks.definetti`, the
figures :mod:`anonbook.figures.cormode`.

G. Cormode, *Personal privacy vs population privacy: learning to attack
anonymization*, KDD 2011: §2 the naive attack on differentially private
counts (Figs 1-3), §3 Kifer's deFinetti attack on Anatomy (Figs 4-5).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from anonlab.attacks.definetti import (
    DeFinettiSweep,
    Fig4,
    Sweeps,
    collect_sweeps,
    definetti_sweeps,
    fig4_of,
    fig4_sweep_specs,
    start_sweeps,
    sweep_key,
)
from anonlab.attacks.definetti import convergence as sweep_convergence
from anonlab.attacks.naive_bayes import NaiveRun, bucketize, median_of_means, naive_attack, \
    summarize_attack, timed_naive_attack, train_test_gap
from anonlab.intervals import mean_interval
from anonlab.claims import Condition, Measurement, chapter_claims
from anonlab.data.loaders import ADULT_COLUMNS, INTERNET_USAGE_REQUIRED, load_adult, load_internet_usage
from anonlab.measures import majority_baseline, score
from anonlab.mechanisms.anatomy import max_l_diversity
from anonlab.mechanisms.dp import CORNER_HALF_WIDTH, EncodedTable, corner_means, encode_train_test
from anonlab.streams import legacy_seed
from anonlab.validation import Param, ParameterError, ParameterSpec, check_columns, check_path
from anonbook.memory import MiB, MemoryEstimate, granted_cores
from anonbook.chapters import Chapter, Exercise
from anonbook.chapters.kit import ChapterRun

NAME = "02_dp_vs_definetti"

Tables = Mapping[str, tuple[EncodedTable, EncodedTable | None]]

#: The paper's setting per data set (§2.3, §2.5, §3.2): naive-attack targets, attribute pool,
#: deFinetti target, and the order in which §2.5's trade-off adds attributes.
PAPER_SETTING: dict[str, dict[str, Any]] = {
    "adult": dict(sensitive=["occupation", "marital_status"],
                  qis=["workclass", "education", "occupation", "sex", "hours", "income"],
                  definetti="occupation",
                  tradeoff=["education", "workclass", "sex", "hours", "income", "relationship",
                            "race", "age_group", "marital_status", "native_country"]),
    "internet": dict(sensitive=["Household Income", "Major Occupation"],
                     qis=["Age", "Country", "Education Attainment", "Gender", "Major Occupation",
                          "Marital Status", "Household Income"],
                     definetti="Household Income", tradeoff=[]),
}

#: Columns each data set offers (Adult with the bucketed ``hours`` and ``age_group``).
COLUMNS: dict[str, list[str]] = {"adult": ADULT_COLUMNS + ["hours", "age_group"], "internet": list(INTERNET_USAGE_REQUIRED)}

#: Largest feasible l-diversity, floor(n / top count), of each Adult column (missing values dropped, default
#: buckets): pinned (checked against the data by the tests), so an impossible ``l_grid`` is refused before a run.
ADULT_L_MAX: dict[str, int] = {
    "age": 36, "workclass": 1, "fnlwgt": 2504, "education": 3, "education_num": 3,
    "marital_status": 2, "occupation": 7, "relationship": 2, "race": 1, "sex": 1,
    "capital_gain": 1, "capital_loss": 1, "hours_per_week": 2, "native_country": 1,
    "income": 1, "hours": 1, "age_group": 3,
}
DEFAULT_HOURS_BUCKETS = [25, 40, 60]
DEFAULT_AGE_BUCKETS = [19, 29, 39, 49, 59, 69]

#: The book's readings of the paper's qualitative words (the paper gives no numbers).
TOLERANCES: dict[str, float] = {
    "noiseless": 0.005,  # "essentially" the noiseless classifier; "never better" than it; "decreases"
    "spearman": 0.9,  # "falls gradually": rank correlation of accuracy with eps at least this
    "step_share": 0.5,  # ... and no single step of the eps grid holds more than this share of the change
    "similar": 0.02,  # "quite similar" accuracies; "barely distinguishable" repetitions
    "about_1_over_l": 0.03,  # "about 1/l", "reduces to 1/l"
    "plateau": 0.1,  # a run is on a plateau: last tenth of the L1 trace within 10% of the tenth before
    "l4_noiseless": 0.02,  # Fig. 5(b): "the same as" the noiseless classifier
}

#: The ε range "usual in practice" of the headline comparison (§3.3).
USUAL_EPS = (0.1, 1.0)

FIG1_IDS = {"occupation": "cormode.fig1.occupation", "marital_status": "cormode.fig1.marital",
            "Household Income": "cormode.fig2.income", "Major Occupation": "cormode.fig2.occupation"}
PAPER_SHARE = {"occupation": "cormode.fig3.adult_occupation.confident_share",
               "marital_status": "cormode.fig3.adult_marital.confident_share",
               "Major Occupation": "cormode.fig3.internet_occupation.confident",
               "Household Income": "cormode.fig3.internet_income.confident"}

#: Glue keys of the paper's values and of the verdicts quoted in the prose -> claim ids.
PAPER = {"paper_base_occ": "cormode.fig1.occupation.majority_baseline",
         "paper_base_mar": "cormode.fig1.marital.majority_baseline",
         "paper_conf_occ": "cormode.fig3.adult_occupation.confident_share",
         "paper_conf_mar": "cormode.fig3.adult_marital.confident_share",
         "paper_conf_acc": "cormode.fig3.confident_accuracy_085",
         "paper_time": "cormode.timing.adult", "paper_l7": "cormode.fig4a.l7_below_30pct"}

VERDICTS = {
    "v_noise": "cormode.s2_2.noise_magnitude", "v_decrease": "cormode.fig1.accuracy_decreases_with_noise",
    "v_traintest": "cormode.fig1.train_test_gap", "v_groups": "cormode.s3_1.anatomy.groups",
    "v_bound": "cormode.s3_1.anatomy.uniform_bound", "v_open": "cormode.fig4a.open_le_noiseless",
    "v_dwindle": "cormode.s3_2.high_confidence_dwindles", "v_conv": "cormode.s3_2.convergence",
    "v_spread": "cormode.s3_2.repetition_spread", "v_l7": "cormode.fig4a.l7_below_30pct",
    "v_l7_naive": "cormode.fig4a.l7_below_naive_dp", "v_merge3": "cormode.fig4.merge3_perm_about_1_over_l",
    "v_large": "cormode.s3_3.large_params_1_over_l", "v_pvg": "cormode.fig4a.perm_vs_group",
    "v_gdp": "cormode.fig4b.group_dominates_perm", "v_similar": "cormode.abstract.similar_accuracy",
    "v_susceptible": "cormode.s3_3.dp_can_be_more_susceptible", "v_l5": "cormode.fig4b.below_noiseless_at_l5",
}


# --- the declaration --------------------------------------------------------------------------------------------------


def _check_combination(v: Mapping[str, Any]) -> None:
    """Checks no single parameter can make: data set, columns, buckets, history, l against the data."""
    dataset = v["dataset"]
    if not isinstance(v["internet_path"], str):
        raise ParameterError(f"parameter 'internet_path' must be a string, got {v['internet_path']!r}")
    if dataset == "internet":
        check_path("internet_path", v["internet_path"])
    elif v["internet_path"]:
        raise ParameterError(f"parameter 'internet_path' is read only with dataset 'internet' (this run reads "
                             f"{dataset!r}): add -p dataset internet, or leave internet_path out")
    cols = COLUMNS[dataset]
    paper = PAPER_SETTING[dataset]
    sens = check_columns("sensitive_attributes", v["sensitive_attributes"] or paper["sensitive"], cols)
    pool = check_columns("quasi_identifiers", v["quasi_identifiers"] or paper["qis"], cols, min_len=2)
    for sa in sens:
        if not [q for q in pool if q != sa]:
            raise ParameterError(f"parameter 'quasi_identifiers' leaves no attribute besides the target {sa!r}")
    target = v["definetti_sensitive"] or paper["definetti"]
    if not isinstance(target, str) or target not in cols:
        raise ParameterError(f"parameter 'definetti_sensitive': unknown attribute {target!r}; "
                             f"available: {', '.join(cols)}")
    check_columns("tradeoff_attributes", v["tradeoff_attributes"] or paper["tradeoff"] or pool, cols)
    for name in ("hours_buckets", "age_buckets"):
        if any(b <= a for a, b in zip(v[name], v[name][1:])):
            raise ParameterError(f"parameter {name!r} must be increasing, got {list(v[name])}")
    if v["history"] > v["iterations"]:
        raise ParameterError(f"parameter 'history' must be <= iterations ({v['iterations']}), got {v['history']}")
    bucketed = {"hours": v["hours_buckets"] == DEFAULT_HOURS_BUCKETS,
                "age_group": v["age_buckets"] == DEFAULT_AGE_BUCKETS}
    if dataset == "adult" and bucketed.get(target, True):
        check_l_grid(v["l_grid"], ADULT_L_MAX[target], target)


def check_l_grid(l_grid: Sequence[int], l_max: int, target: str) -> list[int]:
    """Refuse an l above ``l_max = floor(n / top count)``: Anatomy needs every SA value on at most n/l tuples."""
    top = max(l_grid)
    if top > l_max:
        raise ParameterError(f"parameter 'l_grid': l = {top} is above the largest feasible l-diversity "
                             f"of {target!r} on this data, {l_max}")
    return list(l_grid)


CHAPTER = Chapter(
    name=NAME,
    title="Differential privacy's naive attack vs the deFinetti attack",
    parameters=ParameterSpec([
        Param("dataset", "choice", "adult", "data of the reproduction: 'adult' (fetched automatically) or "
              "'internet' (needs internet_path)", choices=("adult", "internet")),
        Param("internet_path", "any", "", "path to your copy of final_general.dat (UCI Internet Usage); "
              "empty: not available"),
        Param("sensitive_attributes", "str_list", [], "naive-attack targets (Figs 1-3); empty list: the paper's "
              "(adult: occupation, marital_status; internet: Household Income, Major Occupation)",
              min_len=0, max_len=10),
        Param("quasi_identifiers", "str_list", [], "attribute pool, the target left out of it; empty list: the paper's "
              "(adult: workclass, education, occupation, sex, hours, income)", min_len=0, max_len=20),
        Param("hours_buckets", "float_list", [25, 40, 60], "upper edges of the hours-per-week buckets (hours): "
              "[0-25], [26-40], [41-60], 61+; increasing", low=0, high=168, max_len=20),
        Param("age_buckets", "float_list", [19, 29, 39, 49, 59, 69], "upper edges of the age buckets (years) "
              "of age_group, used by the §2.5 trade-off; increasing", low=0, high=120, max_len=20),
        Param("epsilons", "float_list", [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0],
              "privacy parameter grid (the noiseless classifier is added)", low=0, low_inclusive=False,
              high=1e6, max_len=40),
        Param("noise", "choice", "geometric", "noise of the counts: 'geometric' (two-sided, alpha "
              "exp(-eps/m), the paper's) or 'laplace' (scale m/eps)", choices=("geometric", "laplace")),
        Param("draws", "int", 9, "independent noise draws per epsilon (paper: 9)", low=1, high=200),
        Param("threshold", "float", 0.8, "belief above which a prediction is high-confidence (paper: 0.8)",
              low=0, high=1, high_inclusive=False),
        Param("dirichlet", "bool", False, "draw the classifier's parameters from Dirichlet posteriors "
              "(footnote 2) instead of point estimates"),
        Param("definetti_sensitive", "any", "", "target of the deFinetti attack; empty: the paper's "
              "(adult: occupation; internet: Household Income)"),
        Param("l_grid", "int_list", [2, 3, 4, 5, 6, 7], "Anatomy's l, each from 2 to the target's largest "
              "feasible l-diversity (7 for Adult occupation)", low=2, high=50, max_len=20),
        Param("group_multipliers", "int_list", [1, 2, 3], "group size as a multiple of l: 1 tight (Fig. 4a), "
              "2 larger (Fig. 4b), 3 (§3.2, not shown)", low=1, high=10, max_len=5),
        Param("iterations", "int", 1000, "Markov-chain iterations of the deFinetti attack (paper: 1000)",
              low=1, high=20_000),
        Param("history", "int", 100, "final iterations whose assignments and counts the predictors use "
              "(at most iterations)", low=1, high=20_000),
        Param("moves_per_iteration", "int", 1, "swap proposals per group between two model refreshes "
              "(not stated in the paper)", low=1, high=100),
        Param("check_moves", "int", 7, "Beyond the paper: rerun the largest l (tight groups) with this many "
              "proposals per group per iteration; 0 skips", low=0, high=100),
        Param("repetitions", "int", 5, "deFinetti runs per (l, group size), each on a fresh Anatomy "
              "(paper: 5)", low=1, high=50),
        Param("reading_repetitions", "int", 5, "deFinetti runs per (l, group size) under each reading of the two "
              "open choices other than the default (at most repetitions; the default runs as many as the main "
              "reading, the paper's 5, so that every reading's interval is over the same protocol)", low=1, high=50),
        Param("tradeoff_epsilons", "float_list", [0.1, 1.0], "epsilons of the accuracy-vs-m trade-off (§2.5)",
              low=0, low_inclusive=False, high=1e6, max_len=10),
        Param("tradeoff_attributes", "str_list", [], "QIs in the order §2.5 adds them; empty list: adult education, "
              "workclass, sex, hours, income, relationship, race, age_group, marital_status, native_country",
              min_len=0, max_len=20),
        Param("seed", "int", 2011, "seed of every random draw (noise, Anatomy, Markov chain)", low=0),
    ], checks=[_check_combination]),
    quick={"epsilons": [0.01, 0.1, 1.0], "draws": 2, "l_grid": [2, 3], "group_multipliers": [1, 2],
           "iterations": 30, "history": 10, "repetitions": 2, "tradeoff_epsilons": [1.0], "check_moves": 2,
           "use_cache": False},
    data=("adult-train", "adult-test"),
    memory=lambda values: MemoryEstimate(700 * MiB),  # kernel + 2 sweep workers, default and quick (measured)
    goals=(
        "Build the naive Bayes attack on differentially private counts and read its accuracy against ε and "
        "the majority baseline.",
        "Run Kifer's deFinetti attack on Anatomy and see why its accuracy falls towards 1/l as groups grow.",
        "Tell a claim that fails from one that turns on a choice the paper leaves open.",
    ),
    assumes="Bayes' rule and conditional independence, and k-anonymity and l-diversity as in chapter 1.",
    exercises=(
        Exercise(
            "laplace",
            {"noise": "laplace"},
            {"acc_low_first": "mean accuracy at the smallest ε, first target",
             "acc_noiseless_first": "the noiseless classifier (unchanged by the noise)"}),
        Exercise(
            "dirichlet",
            {"dirichlet": True},
            {"conf_share_first": "share of tuples with belief > threshold (median over ε), first target",
             "acc_low_first": "mean accuracy at the smallest ε, first target"}),
        Exercise(
            "drop_income",
            {"quasi_identifiers": ["workclass", "education", "occupation", "sex", "hours"]},
            {"acc_eps01_first": "mean accuracy at ε = 0.1, first target",
             "acc_noiseless_first": "the noiseless classifier, first target"}),
        Exercise(
            "history1",
            {"history": 1}, base={"l_grid": [2, 7]},  # the chapter's largest l, 7 (the quick preset stops at 3)
            answer={"df_pvg_top": "permutation − group accuracy at the largest l, tight groups",
                    "df_best_top": "best method at the largest l, tight groups"}),
        Exercise(
            "iterations",
            {"iterations": 300}, base={"l_grid": [2, 7]},
            answer={"spread_max": "largest max − min accuracy over repetitions",
                    "df_best_top": "best method at the largest l, tight groups"}),
    ),
)


@dataclass(frozen=True)
class Settings:
    """The parameters with the paper's defaults filled in, the grids sorted (``l_grid``, ``multipliers`` once)."""

    dataset: str
    sensitive: list[str]
    qi_pool: list[str]
    epsilons: list[float]
    definetti_sensitive: str
    l_grid: list[int]
    multipliers: list[int]
    tradeoff_epsilons: list[float]
    tradeoff_attributes: list[str]

    @property
    def adult(self) -> bool:
        return self.dataset == "adult"

    @property
    def paper_target(self) -> bool:
        """Is the deFinetti target the paper's (Adult occupation), so that Fig. 4's claims apply?"""
        return self.adult and self.definetti_sensitive == "occupation"


def settings(values: Mapping[str, Any]) -> Settings:
    """Resolve the run's parameters into :class:`Settings`."""
    v = CHAPTER.parameters.validate(dict(values))
    paper = PAPER_SETTING[v["dataset"]]
    pool = list(v["quasi_identifiers"] or paper["qis"])
    return Settings(
        dataset=v["dataset"],
        sensitive=list(v["sensitive_attributes"] or paper["sensitive"]),
        qi_pool=pool,
        epsilons=sorted(float(e) for e in v["epsilons"]),
        definetti_sensitive=v["definetti_sensitive"] or paper["definetti"],
        l_grid=sorted(set(v["l_grid"])),
        multipliers=sorted(set(v["group_multipliers"])),
        tradeoff_epsilons=[float(e) for e in v["tradeoff_epsilons"]],
        tradeoff_attributes=list(v["tradeoff_attributes"] or paper["tradeoff"] or pool),
    )


# --- setup: the data --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Data:
    """The raw tables of a run: training data, the withheld test file (Adult only), the manifest's names."""

    train: pd.DataFrame
    test: pd.DataFrame | None
    names: list[str]


def load_data(s: Settings, hours_buckets: Sequence[float], age_buckets: Sequence[float],
              internet_path: str = "") -> Data:
    """Adult's ``adult.data`` and ``adult.test`` with bucketed ``hours`` and ``age_group`` (§2.3), or Internet Usage."""
    if not s.adult:
        return Data(load_internet_usage(internet_path), None, [])
    train, test = load_adult("train"), load_adult("test")
    for d in (train, test):
        d["hours"] = bucketize(d["hours_per_week"], hours_buckets)
        d["age_group"] = bucketize(d["age"], age_buckets)
    return Data(train, test, list(CHAPTER.data))


def encode_targets(data: Data, s: Settings) -> Tables:
    """Per naive-attack target, the coded training and test tables (the target left out of the QIs)."""
    return {sa: encode_train_test(data.train, data.test, [q for q in s.qi_pool if q != sa], sa)
            for sa in s.sensitive}


# --- §2.2: sensitivity and noise --------------------------------------------------------------------------------------


def measure_noise(sens: pd.DataFrame, corners: pd.DataFrame, table: EncodedTable,
                  n_removed: int = 20) -> dict[str, Measurement]:
    """§2.2: the sensitivity is m + 1 with the SA marginal and m without it; the noise per count.

    ``sens``, ``corners``: :func:`~anonlab.mechanisms.dp.noise_check`'s tables. The noise claim is measured at
    its largest corner (ε = 0.1, m = 10), where the mean absolute noise :math:`1/\\sinh(ε/m)` is 99.998: the
    simulated mean with its 95% interval, "double-digit" taken strictly (at most 99), with no slack.
    """
    m, n_removed = table.m, min(n_removed, table.n)
    mean_abs = corner_means(corners)
    lo_c, top = mean_abs.min(), int(mean_abs.to_numpy().argmax())
    hi_c, half = float(mean_abs.iloc[top]), float(corners[CORNER_HALF_WIDTH].iloc[top])
    formula_hi = float(corners["E|noise| (formula)"].max())
    return {
        "cormode.s2_2.sensitivity_m_plus_1": Measurement(
            bool(sens.iloc[0, 1] == sens.iloc[0, 2] == m + 1),
            note=f"m = {m}; {n_removed} tuples removed one at a time"),
        "cormode.s2_2.sensitivity_reduced_to_m": Measurement(
            bool(sens.iloc[1, 1] == sens.iloc[1, 2] == m),
            note="Pr[s] derived from the summed joint counts (anonlab.attacks.naive_bayes)"),
        "cormode.s2_2.noise_magnitude": Measurement(
            formula_hi,
            note=f"expected |noise| 1/sinh(eps/m) at the largest corner (eps 0.1, m 10): {formula_hi:.3f}; the "
                 f"simulation gives {hi_c:.2f} ± {half:.2f} there and {lo_c:.2f} at the smallest corner (eps 1, m 3)"),
    }


def noise_numbers(grid: pd.DataFrame, corners: pd.DataFrame) -> dict[str, float]:
    """The noise at §2.2's largest corner (``corners``: simulated, as recorded, and the formula's) and its range
    over the ε grid at its largest m (``grid``)."""
    col = grid.columns[-1]
    return {"noise_grid_lo": float(grid[col].min()), "noise_grid_hi": float(grid[col].max()),
            "noise_grid_m": int(col.split("= ")[1]), "noise_corner": float(corner_means(corners).max()),
            "noise_formula": float(corners["E|noise| (formula)"].max())}


# --- §2.3, Figs 1-3: the naive attack ---------------------------------------------------------------------------------


def gradual_decrease(accuracy: Sequence[float]) -> bool | None:
    """Fig. 1's "the accuracy reduces gradually" on mean accuracies by increasing ε.

    True when the accuracy rises with ε (Spearman ρ ≥ ``TOLERANCES["spearman"]`` against the grid order, total
    change > 0) and no single step holds more than ``TOLERANCES["step_share"]`` of the total change; ``None``
    with fewer than four ε.
    """
    acc = np.asarray(accuracy, dtype=float)
    if len(acc) < 4:
        return None
    rho = pd.Series(acc).corr(pd.Series(np.arange(len(acc))), method="spearman")
    total = acc[-1] - acc[0]
    return bool(rho >= TOLERANCES["spearman"] and total > 0
                and np.max(np.abs(np.diff(acc))) <= TOLERANCES["step_share"] * total)


def measure_fig1(naive: Mapping[str, NaiveRun], tables: Tables,
                 epsilons: Sequence[float], *, adult: bool, n_rows: int) -> dict[str, Measurement]:
    """Figs 1-2 (§2.3): domain sizes, majority baselines, the trend, high ε, train vs test, ε = 0.01.

    The majority baseline is scored with its Wilson interval, the noisy measures with their interval over the
    draws; ``n_rows`` is the Internet Usage file's rows.
    """
    out: dict[str, Measurement] = {}
    for sa, (tr, _) in tables.items():
        if sa not in FIG1_IDS or FIG1_IDS[sa].startswith("cormode.fig1") != adult:
            continue
        pre = FIG1_IDS[sa]
        base = score(majority_baseline(tr.sa_codes))
        out[pre + ".n_categories"] = Measurement(tr.n_sa)
        out[pre + ".majority_baseline"] = Measurement(base.precision, ci=base.precision_ci, n=tr.n)
    if not adult:
        flags = [gradual_decrease(naive[sa].curve()["accuracy_mean"]) for sa in naive if sa in FIG1_IDS]
        out["cormode.fig2.trend"] = Measurement(None if (not flags or None in flags) else all(flags))
        out["cormode.s2_3.internet.n_tuples"] = Measurement(n_rows, note="rows of the file given")
        return out
    if "occupation" in tables:
        out["cormode.s2_3.adult.n_tuples"] = Measurement(tables["occupation"][0].n,
                                                         note="adult.data without missing occupation")
    both = [sa for sa in ("occupation", "marital_status") if sa in tables]
    if both:
        flags = [gradual_decrease(naive[sa].curve()["accuracy_mean"]) for sa in both]
        out["cormode.fig1.accuracy_decreases_with_noise"] = Measurement(
            None if None in flags else all(flags),
            note="mean accuracy rises with eps (Spearman >= 0.9), no step > half the total change")
        top = max(epsilons)
        gaps = [abs(naive[sa].at_eps(top) - naive[sa].noiseless()) for sa in both]
        tol = TOLERANCES["noiseless"]
        out["cormode.fig1.high_eps_equals_noiseless"] = Measurement(
            bool(max(gaps) <= tol),
            note=f"|acc(eps={top:g}) - acc(noiseless)| = {max(gaps):.4f} at most (tolerance {tol:g})")
        gap, gap_ci, where = train_test_gap(naive, both)
        out["cormode.fig1.train_test_gap"] = Measurement(
            gap, ci=gap_ci, note=f"train - test accuracy, mean over the draws where it is largest over the eps "
                                 f"grid and both targets ({where})")
    for sa, cid in (("occupation", "cormode.fig1.occupation.eps001_nontrivial"),
                    ("marital_status", "cormode.fig1.marital.eps001_nontrivial")):
        if sa in tables:
            v = naive[sa].draws(0.01)
            out[cid] = Measurement(float(v.mean()), ci=mean_interval(v),
                                   note=f"mean over the {len(v)} draws at eps = 0.01, train") if len(v) else \
                Measurement(None, note="0.01 not in the grid")
    return out


def fig1_numbers(naive: Mapping[str, NaiveRun], tables: Tables, epsilons: Sequence[float]) -> dict[str, float]:
    """Numbers quoted after Fig. 1 (first target)."""
    first = naive[next(iter(naive))]
    eps01 = first.at_eps(0.1)
    return {"acc_noiseless_first": first.noiseless(), "acc_eps01_first": float("nan") if eps01 is None else eps01,
            "acc_low_first": float(first.curve()["accuracy_mean"].iloc[0]), "eps_low": float(min(epsilons)),
            "base_first": score(majority_baseline(tables[next(iter(naive))][0].sa_codes)).precision}


def measure_fig3(naive: Mapping[str, NaiveRun], *, adult: bool,
                 seed: int) -> tuple[dict[str, Measurement], dict[str, float]]:
    """Fig. 3, the high-confidence subset: the claims and the numbers the text quotes.

    The paper does not say at which ε it counts: the measure is the median over the ε grid of the mean over
    draws (:func:`~anonlab.attacks.naive_bayes.median_of_means`); the best accuracy on the subset is the best
    mean over draws of any (target, ε), with its interval over those draws.
    """
    note = "median over the eps grid of the mean over draws, train; bootstrap interval over draws"
    share, count = ({sa: Measurement(*median_of_means(r, col, seed=seed), note=note) for sa, r in naive.items()}
                    for col in ("confident_share", "n_confident"))
    more_acc = True
    for r in naive.values():
        c = r.curve().dropna(subset=["confident_accuracy_mean"])
        more_acc &= bool((c["confident_accuracy_mean"] > c["accuracy_mean"]).all())
    _, sa, e = max((np.nan_to_num(r.at_eps(e, col="confident_accuracy_mean"), nan=-1.0), sa, e)
                   for sa, r in naive.items() for e in r.curve()["epsilon"])
    conf = naive[sa].draws(e, "confident_accuracy")
    best_conf = Measurement(float(np.mean(conf)) if len(conf) else math.nan, ci=mean_interval(conf),
                            note=f"best mean over draws of any eps and Adult target ({sa}, eps = {e:g})")
    out: dict[str, Measurement] = {}
    if adult:
        for sa, pre in (("occupation", "cormode.fig3.adult_occupation"),
                        ("marital_status", "cormode.fig3.adult_marital")):
            if sa in share:
                out[pre + ".confident_share"] = share[sa]
                out[pre + ".confident_count"] = count[sa]
        out["cormode.fig3.confident_more_accurate"] = Measurement(
            more_acc, note="at every eps with confident tuples, every target")
        out["cormode.fig3.confident_accuracy_085"] = best_conf
    else:
        for sa, cid in (("Major Occupation", "cormode.fig3.internet_occupation.confident"),
                        ("Household Income", "cormode.fig3.internet_income.confident")):
            if sa in share:
                out[cid] = share[sa]
    first, last = list(naive)[0], list(naive)[-1]
    return out, {"conf_share_first": share[first].value, "conf_n_first": count[first].value,
                 "conf_share_last": share[last].value, "conf_best_acc": best_conf.value}


def time_attack(s: Settings, tables: Tables,
                hours_buckets: Sequence[float], internet_path: str, *, noise: str, seed: int) -> float:
    """Seconds of the whole naive attack as §2.3 times it: load, bucket, count, noise, classify (ε = 1)."""
    def prepare(d: pd.DataFrame) -> pd.DataFrame:
        if s.adult:
            d["hours"] = bucketize(d["hours_per_week"], hours_buckets)
        return d

    load = (lambda: load_adult("train")) if s.adult else (lambda: load_internet_usage(internet_path))
    tsa = s.sensitive[0]
    secs, _ = timed_naive_attack(load, prepare, list(tables[tsa][0].qi_names), tsa, 1.0, noise=noise, seed=seed)
    return secs


def grid_seconds(naive: Mapping[str, NaiveRun], epsilons: Sequence[float]) -> float:
    """Seconds of the Fig. 1 experiment per ε and target (all draws, both files)."""
    return sum(r.seconds for r in naive.values()) / max(1, len(epsilons) * len(naive))


def timing_claim_id(adult: bool) -> str:
    """The timing claim of the data set."""
    return "cormode.timing.adult" if adult else "cormode.timing.internet"


def measure_timing(seconds: float, *, adult: bool, target: str) -> dict[str, Measurement]:
    """§2.3: the attack takes about 3 s (Adult) in the paper's 2011 Python."""
    return {timing_claim_id(adult): Measurement(
        seconds, note=f"eps = 1, one draw, target {target}; load + bucket + count + noise + classify")}


# --- §3.1: Anatomy ----------------------------------------------------------------------------------------------------


def headline_naive(table: EncodedTable, epsilons: Sequence[float], *, draws: int, noise: str,
                   seed: int) -> pd.DataFrame:
    """The naive attack on the deFinetti target over the ε grid (the stream ``cormode.definetti_target_naive``), summarised by ε."""
    res = naive_attack(table, list(epsilons), draws=draws, noise=noise, seed=legacy_seed(seed, "cormode.definetti_target_naive"))
    return summarize_attack(res).sort_values("epsilon")


def definetti_table(data: Data, s: Settings) -> EncodedTable:
    """The deFinetti target coded with the rest of the attribute pool as QIs; refuses an infeasible ``l_grid``."""
    sa = s.definetti_sensitive
    table, _ = encode_train_test(data.train, None, [q for q in s.qi_pool if q != sa], sa)
    check_l_grid(s.l_grid, max_l_diversity(table.sa_codes), sa)
    return table


def definetti_non_members(data: Data, s: Settings) -> EncodedTable | None:
    """The withheld test tuples coded with the deFinetti target's attributes: who its non-member baseline is
    fitted on (``None`` without a test file: the attack is then scored against the majority guess)."""
    if data.test is None:
        return None
    sa = s.definetti_sensitive
    return encode_train_test(data.train, data.test, [q for q in s.qi_pool if q != sa], sa)[1]


def measure_anatomy(checks: pd.DataFrame, l_max: int, top_share: float, *,
                    paper_target: bool) -> dict[str, Measurement]:
    """§3.1 and Fig. 4: l_max = 7 for Adult occupation, tight groups, the uniform bound 1/l."""
    if not paper_target:
        return {}
    return {
        "cormode.fig4.l_max": Measurement(l_max),
        "cormode.fig4.top_occupation_share": Measurement(top_share),
        "cormode.s3_1.anatomy.groups": Measurement(
            bool(checks.loc[checks["multiplier"] == 1, "tight"].all()),
            note="sizes l or l+1 and distinct SA values, every l of the grid"),
        "cormode.s3_1.anatomy.uniform_bound": Measurement(
            bool((checks["max uniform belief"] <= checks["1/l"] + 1e-12).all()), note="tight and merged groups"),
    }


# --- §3.2, Figs 4-5: the deFinetti attack -----------------------------------------------------------------------------


def _ok_all(values: Sequence[bool | None]) -> bool | None:
    """True/False over the values that could be measured; None when none could."""
    vals = [v for v in values if v is not None]
    return all(vals) if vals else None


def _per_rep(f: Fig4, mult: int, l: int, method: str, column: str = "accuracy") -> list[float]:  # noqa: E741
    """``column`` of each repetition of one configuration, in repetition order (``[]`` without per-repetition rows)."""
    R = f.runs
    if R is None or column not in R:
        return []
    hit = R[(R["multiplier"] == mult) & (R["l"] == l) & (R["method"] == method)].sort_values("repetition")
    return [float(v) for v in hit[column]]


def _diff(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """Repetition-by-repetition differences ``a - b``: the repetitions are independent draws, so the i-th
    differences are too and their t interval is one for the difference of the means."""
    return [x - y for x, y in zip(a, b)] if len(a) == len(b) else []


def _conds(conditions: Sequence[Condition] | None) -> list[Condition] | None:
    """The comparisons when each has one finite value per repetition, else ``None`` (decided on the means)."""
    if conditions is None:
        return None
    conditions = list(conditions)
    ok = conditions and all(k.values and not any(math.isnan(v) for v in k.values) for k in conditions)
    return conditions if ok else None


def measure_fig4(f: Fig4, *, adult: bool, paper_target: bool) -> dict[str, Measurement]:
    """Fig. 4 (Adult occupation) or Fig. 5 (Internet Usage): the deFinetti attack against l and group size."""
    L, mults, tight, nl = f.l_grid, f.multipliers, f.tight, f.noiseless
    tol, about = TOLERANCES["noiseless"], TOLERANCES["about_1_over_l"]
    acc, best = f.acc, f.best
    out: dict[str, Measurement] = {}
    if not adult:
        out["cormode.fig5a.open_le_noiseless"] = Measurement(
            _ok_all([acc(mu, l, "open") <= nl + tol for mu in mults for l in L]))
        out["cormode.fig5b.l4_equals_noiseless"] = Measurement(
            abs(best(2, 4) - nl) <= TOLERANCES["l4_noiseless"] if (2 in mults and 4 in L) else None,
            note="best method at l = 4, size 2l, within 0.02 of the noiseless classifier")
        out["cormode.fig5.merge3_below_1_over_l"] = Measurement(
            _ok_all([best(3, l) < 1 / l for l in L]) if 3 in mults else None)
        return out
    if not paper_target:
        return out
    locate = ("permutation", "group")  # the methods that locate the target in its group
    per_rep = f.runs is not None  # the sweep's per-repetition rows: the holds claims are decided on their intervals
    out["cormode.fig4a.agrees_with_kifer"] = Measurement(
        _ok_all([acc(1, l, "permutation") > 1 / l for l in (2, 3, 4) if tight and l in L]),
        note="Kifer's numbers are not in the text: checks that his (permutation) method beats 1/l for l = 2..4")
    open_below = [l for l in L if tight and acc(1, l, "open") <= 1 / l]
    out["cormode.fig4a.above_1_over_l"] = Measurement(
        _ok_all([acc(1, l, m) > 1 / l for l in L if tight for m in locate]),
        conditions=_conds([Condition(f"l = {l}, tight, {m}", f.values(1, l, m), low=1 / l) for l in L for m in locate]
        if tight and per_rep else None),
        note="permutation and group methods above 1/l, decided on the t intervals over the repetitions; the open "
             f"method is bounded by the noiseless classifier ({nl:.3f}) and is at or below 1/l for l in {open_below}")
    steps = list(zip(L, L[1:]))
    out["cormode.fig4a.decreases_with_l"] = Measurement(
        all(bool(np.all(np.diff([acc(1, l, m) for l in L]) <= tol)) for m in locate) if tight and len(L) >= 3 else None,
        conditions=_conds([Condition(f"{m}, l = {a} -> {b}, tight", _diff(f.values(1, b, m), f.values(1, a, m)), high=tol)
                    for m in locate for a, b in steps] if tight and len(L) >= 3 and per_rep else None),
        note=f"permutation and group, tight groups: each step up in l changes the mean by at most +{tol:g}, decided "
             "on the t interval of the repetition-by-repetition differences")
    out["cormode.fig4a.open_le_noiseless"] = Measurement(
        _ok_all([acc(mu, l, "open") <= nl + tol for mu in mults for l in L]),
        conditions=_conds([Condition(f"l = {l}, size {'l' if mu == 1 else f'{mu}l'}, open", f.values(mu, l, "open"),
                              high=nl + tol) for mu in mults for l in L] if per_rep else None),
        note=f"noiseless classifier {nl:.4f}; tolerance 0.005; decided on the open method's t intervals over the "
             "repetitions")
    pvg = None
    if tight and min(L) == 2 and max(L) >= 6:
        lo_l, hi_l = min(L), max(L)
        pvg = (acc(1, lo_l, "permutation") > acc(1, lo_l, "group")
               and acc(1, hi_l, "group") > acc(1, hi_l, "permutation"))
        note = (f"l={lo_l}: perm {acc(1, lo_l, 'permutation'):.3f} vs group {acc(1, lo_l, 'group'):.3f}; "
                f"l={hi_l}: perm {acc(1, hi_l, 'permutation'):.3f} vs group {acc(1, hi_l, 'group'):.3f}")
    else:
        note = "needs l = 2 and l >= 6 in the grid"
    out["cormode.fig4a.perm_vs_group"] = Measurement(pvg, conditions=_conds([
        Condition(f"l = {min(L)}: permutation - group", _diff(f.values(1, min(L), "permutation"),
                                                              f.values(1, min(L), "group")), low=0.0),
        Condition(f"l = {max(L)}: group - permutation", _diff(f.values(1, max(L), "group"),
                                                              f.values(1, max(L), "permutation")), low=0.0)]
        if pvg is not None and per_rep else None),
        note=note + ("; decided on the t intervals of the per-repetition differences (the methods of one "
                     "repetition attack the same Anatomy)" if pvg is not None else ""))
    top = f.best_method(1, 7) if tight and 7 in L else None
    out["cormode.fig4a.l7_below_30pct"] = Measurement(best(1, 7), ci=f.interval(1, 7, top), values=f.values(1, 7, top) if per_rep else None, note=(
        f"best of the three methods ({top}), mean over the repetitions with its t interval")) if top else \
        Measurement(None, note="needs l = 7 and tight groups")
    if 2 in mults:
        margins = [(best(2, l) - 1 / l, best(1, l) - 1 / l) for l in L] if tight else []
        out["cormode.fig4b.above_1_over_l_smaller_margin"] = Measurement(
            _ok_all([acc(2, l, m) > 1 / l for l in L for m in locate] + [m2 < m1 for m2, m1 in margins])
            if tight else None,
            conditions=_conds([Condition(f"l = {l}, size {2 * l}, {m}", f.values(2, l, m), low=1 / l) for l in L for m in locate]
            + [Condition(f"l = {l}: margin at size {2 * l} - margin tight",
                         _diff(f.values(2, l, f.best_method(2, l)), f.values(1, l, f.best_method(1, l))), high=0.0)
               for l in L] if tight and per_rep else None),
            note="permutation and group above 1/l at size 2l, best-method margin over 1/l below the tight one "
                 "at every l; decided on the t intervals over the repetitions (the margins' difference "
                 "repetition by repetition)")
        top5 = f.best_method(2, 5) if 5 in L else None
        out["cormode.fig4b.below_noiseless_at_l5"] = Measurement(
            (best(2, 5) < nl) if top5 else None,
            conditions=[Condition(f"l = 5, size 10, {top5} method", f.values(2, 5, top5), high=nl)]
            if top5 and per_rep else None,
            note=(f"best method ({top5}) at l = 5, size 10: {best(2, 5):.4f} against the noiseless classifier's "
                  f"{nl:.4f}; decided on the t interval over the repetitions" if top5 else "needs l = 5"))
        gap = {l: max(acc(2, l, "group"), acc(2, l, "permutation")) - acc(2, l, "open") for l in L}
        closer = gap[max(L)] < gap[min(L)] if len(L) >= 2 else None
        def gap_reps(l: int) -> list[float]:  # noqa: E741
            top = max(locate, key=lambda m: acc(2, l, m))
            return _diff(f.values(2, l, top), f.values(2, l, "open"))

        out["cormode.fig4b.group_dominates_perm"] = Measurement(
            _ok_all([acc(2, l, "group") >= acc(2, l, "permutation") for l in L] + [closer]),
            conditions=_conds([Condition(f"l = {l}, size {2 * l}: group - permutation",
                                  _diff(f.values(2, l, "group"), f.values(2, l, "permutation")), low=0.0) for l in L]
            + ([Condition(f"gap to open at l = {max(L)} - gap at l = {min(L)}",
                          _diff(gap_reps(max(L)), gap_reps(min(L))), high=0.0)] if len(L) >= 2 else [])
            if per_rep else None),
            note="group >= permutation at every l, and both closer to open at the largest l; decided on the t "
                 "intervals of the per-repetition differences")
    if 3 in mults:
        dev = max(abs(acc(3, l, "permutation") - 1 / l) for l in L)
        out["cormode.fig4.merge3_perm_about_1_over_l"] = Measurement(
            bool(dev <= about),
            conditions=[Condition(f"l = {l}, size {3 * l}", f.values(3, l, "permutation"), low=1 / l - about,
                                  high=1 / l + about) for l in L] if per_rep else None,
            note=f"permutation method within 1/l ± {about:g} at every l with size-3l groups; largest |mean - 1/l| "
                 f"{dev:.4f}; decided on the t intervals over the repetitions")
    if tight and len(L) >= 2:
        S = f.summary
        g = S[(S["multiplier"] == 1) & (S["method"] == "group")].sort_values("l")
        share = g["confident_share_mean"].to_numpy()
        dwindle = bool(share[-1] < share[0] and g["confident_accuracy_mean"].iloc[0] > g["accuracy_mean"].iloc[0])
        cs = {l: _per_rep(f, 1, l, "group", "confident_share") for l in (L[0], L[-1])}
        ca = _per_rep(f, 1, L[0], "group", "confident_accuracy")
        dw_conds = [Condition(f"group, tight: confident share at l = {L[-1]} - at l = {L[0]}",
                              _diff(cs[L[-1]], cs[L[0]]), high=0.0),
                    Condition(f"group, tight, l = {L[0]}: confident accuracy - accuracy",
                              _diff(ca, f.values(1, L[0], "group")), low=0.0)]
        out["cormode.s3_2.high_confidence_dwindles"] = Measurement(
            dwindle, conditions=_conds(dw_conds) if per_rep else None,
            note=f"group method, tight: confident share {share[0]:.3f} at l={L[0]} -> "
                 f"{share[-1]:.3f} at l={L[-1]}; decided on the t intervals of the per-repetition differences")
    big = [(l, mu) for l in L for mu in mults if l >= 6 and l * mu >= 10]
    out["cormode.s3_3.large_params_1_over_l"] = Measurement(
        _ok_all([best(mu, l) <= 1 / l + about for l, mu in big]) if big else None,
        conditions=[Condition(f"l = {l}, size {l * mu}, {f.best_method(mu, l)} method",
                              f.values(mu, l, f.best_method(mu, l)), high=1 / l + about) for l, mu in big]
        if big and per_rep else None,
        note="best method at l >= 6 with groups of >= 10 tuples at most 1/l + 0.03, decided on the t intervals "
             "over the repetitions: "
             + "; ".join(f"l={l} size {l * mu}: {best(mu, l):.3f} vs 1/l {1 / l:.3f}" for l, mu in big))
    return out


def fig4_numbers(f: Fig4) -> dict[str, float]:
    """Numbers quoted after Fig. 4."""
    L = f.l_grid
    return {"df_l_top": max(L), "df_best_top": f.best(1, max(L)) if f.tight else float("nan"),
            "df_pvg_top": f.acc(1, max(L), "permutation") - f.acc(1, max(L), "group") if f.tight else float("nan"),
            "df_best_2": f.best(1, min(L)) if f.tight else float("nan"), "df_noiseless": f.noiseless}


def convergence(sweep: DeFinettiSweep) -> tuple[pd.Series, pd.Series]:
    """:func:`~anonlab.attacks.definetti.convergence` with the book's plateau tolerance (``TOLERANCES["plateau"]``)."""
    return sweep_convergence(sweep, TOLERANCES["plateau"])


def spread_share(spread: pd.Series) -> float:
    """The share of configurations whose spread (:func:`convergence`'s) is at most ``TOLERANCES["similar"]``."""
    return float((spread.to_numpy() <= TOLERANCES["similar"] + 1e-12).mean())


def measure_convergence(conv: pd.Series, spread: pd.Series, *, repetitions: int,
                        paper_target: bool) -> dict[str, Measurement]:
    """§3.2: the chain almost converges in most runs; repetitions are barely distinguishable in many cases.

    "In many cases" is read as more than half of the configurations (group size, l, method) with a spread of at
    most ``TOLERANCES["similar"]`` (asking it of every configuration would contradict the words); the largest
    spread is in the note.
    """
    if not paper_target:
        return {}
    tol = TOLERANCES["similar"]
    where = spread.idxmax()
    share = spread_share(spread)
    return {
        "cormode.s3_2.convergence": Measurement(
            bool(conv.mean() > 0.5),
            note=f"{conv.mean():.0%} of runs on a plateau (last 10% within 10% of the previous 10%); a share of "
                 "runs, each run one observation, not a mean over repetitions against a bar: no per-repetition "
                 "interval decides it, it is decided on the share"),
        "cormode.s3_2.repetition_spread": Measurement(
            bool(share > 0.5) if repetitions > 1 else None,
            note=f"{share:.0%} of the {len(spread)} configurations (size, l, method) within {tol:g}; largest "
                 f"max - min over repetitions {spread.max():.4f} (size {where[0]}l, l = {where[1]}, {where[2]}); "
                 "the claim is itself about the spread over the repetitions, not a mean with an interval over them: "
                 "decided on the share, without a per-repetition interval"),
    }


def convergence_numbers(conv: pd.Series, spread: pd.Series, sweep: DeFinettiSweep, l_top: int) -> dict[str, float]:
    """Numbers quoted after the convergence figure: best method of single runs at the largest l, tight groups."""
    R = sweep.results
    top_runs = R[(R["multiplier"] == 1) & (R["l"] == l_top)].groupby("repetition")["accuracy"].max()
    tol = TOLERANCES["similar"]
    return {"conv_share": float(conv.mean()), "spread_max": float(spread.max()),
            "spread_share_ok": spread_share(spread), "spread_tol": tol,
            "top_rep_min": float(top_runs.min()), "top_rep_max": float(top_runs.max())}


def usual_range(naive_summary: pd.DataFrame) -> pd.DataFrame:
    """The naive attack's summary rows with ε in the range usual in practice, [0.1, 1]."""
    nd = naive_summary
    return nd[(nd["epsilon"] >= USUAL_EPS[0]) & (nd["epsilon"] <= USUAL_EPS[1])]


def measure_headline(naive_summary: pd.DataFrame, f: Fig4, *, paper_target: bool) -> dict[str, Measurement]:
    """§3.3 and the abstract: the naive attack at ε in [0.1, 1] (:func:`headline_naive`) against the deFinetti one."""
    if not paper_target:
        return {}
    usual = usual_range(naive_summary)
    L, mults, best = f.l_grid, f.multipliers, f.best
    out: dict[str, Measurement] = {}
    if len(usual) and f.tight and 7 in L:
        top, bar = f.best_method(1, 7), float(usual["accuracy_mean"].min())
        out["cormode.fig4a.l7_below_naive_dp"] = Measurement(
            bool(best(1, 7) < bar),
            conditions=[Condition(f"l = 7, tight, {top} method", f.values(1, 7, top), high=bar)]
            if f.runs is not None else None,
            note=f"deFinetti l=7 {best(1, 7):.4f} vs naive mean {bar:.4f}-{usual['accuracy_mean'].max():.4f} for eps "
                 "in [0.1, 1]; decided on the deFinetti repetitions' t interval against the naive attack's lowest "
                 "mean (its own spread over the noise draws is not added)")
    else:
        out["cormode.fig4a.l7_below_naive_dp"] = Measurement(None, note="needs l = 7 and an eps in [0.1, 1]")
    df_vals = [best(mu, l) for mu in mults for l in L if (mu == 1 and l == 7) or mu >= 2]
    if len(usual) and df_vals:
        out["cormode.s3_3.dp_can_be_more_susceptible"] = Measurement(
            bool(usual["accuracy_mean"].max() > min(df_vals)),
            note="some eps in [0.1, 1] beats some deFinetti setting with l = 7 or size >= 2l; an existence claim "
                 "(a maximum against a minimum over settings), so no per-repetition interval decides it, and the "
                 "ledger makes it an illustration")
        d, e, a, mu, l, b = min((abs(a - b), e, a, mu, l, b)  # noqa: E741
                                for e, a in zip(usual["epsilon"], usual["accuracy_mean"])
                                for mu in mults for l in L if (b := best(mu, l)) is not None)
        size = "l" if mu == 1 else f"{mu}l"
        out["cormode.abstract.similar_accuracy"] = Measurement(
            bool(d <= TOLERANCES["similar"]),
            note=f"closest pair: the naive attack on eps-DP counts at eps = {e:g} ({a:.3f}) and the deFinetti attack "
                 f"on Anatomy at l = {l}, groups of size {size} ({f.best_method(mu, l)} method, {b:.3f}), {d:.4f} "
                 f"apart, {'within' if d <= TOLERANCES['similar'] else 'beyond'} the {TOLERANCES['similar']:g} read "
                 "as 'quite similar'; a minimum over pairs of settings, which the paper's grid all but guarantees, "
                 "so it illustrates the thesis rather than tests it")
    else:
        out["cormode.s3_3.dp_can_be_more_susceptible"] = Measurement(None)
        out["cormode.abstract.similar_accuracy"] = Measurement(None)
    return out


def headline_numbers(naive_summary: pd.DataFrame) -> dict[str, float]:
    """The naive attack's range of mean accuracy over ε in [0.1, 1]."""
    usual = usual_range(naive_summary)["accuracy_mean"]
    return {"naive_usual_lo": float(usual.min()), "naive_usual_hi": float(usual.max())}  # NaN when none


# --- §3.2: two choices the paper leaves open, measured together ------------------------------------------------------

#: The ledger's readings of the deFinetti experiment on Adult occupation: each fixes both open choices, which
#: attributes the attacker knows (§2.3's five besides the target, or those and marital status, the paper's second
#: target) and how Anatomy breaks ties between equally large buckets; label -> (extra known attributes, ties).
READINGS: dict[str, tuple[tuple[str, ...], str]] = {
    "§2.3 attributes, random ties": ((), "random"),
    "§2.3 attributes, stable ties": ((), "stable"),
    "§2.3 + marital status, random ties": (("marital_status",), "random"),
    "§2.3 + marital status, stable ties": (("marital_status",), "stable"),
}
#: The default reading (the main sweep); :data:`ALTERNATIVE_RUNS` are the others, each a sweep of its own.
DEFAULT_READING = "§2.3 attributes, random ties"
ALTERNATIVE_RUNS = {label: r for label, r in READINGS.items() if label != DEFAULT_READING}


def choice_claims() -> list[str]:
    """The claims the ledger lists with the readings: those measured on the deFinetti sweep (one reading a figure)."""
    return [c.id for c in chapter_claims(NAME) if c.choices]


def reading_repetitions(p: Mapping[str, Any]) -> int:
    """Repetitions of each reading other than the default: ``reading_repetitions``, at most ``repetitions``."""
    return int(min(p["reading_repetitions"], p["repetitions"]))


def alternative_tables(data: Data, s: Settings, table: EncodedTable) -> dict[str, tuple[EncodedTable, str]]:
    """The deFinetti table and Anatomy tie-break of each reading of :data:`ALTERNATIVE_RUNS` (paper target only).

    Readings with the same known attributes share one table (its layout and naive attack are computed once).
    """
    tables, out = {(): table}, {}  # one table per set of extra known attributes
    for label, (extra, ties) in ALTERNATIVE_RUNS.items() if s.paper_target else ():
        if (add := tuple(a for a in extra if a not in table.qi_names and a != s.definetti_sensitive)) not in tables:
            tables[add] = encode_train_test(data.train, None, [*table.qi_names, *add], s.definetti_sensitive)[0]
        out[label] = (tables[add], ties)
    return out


def launch_sweeps(run: ChapterRun, data: Data, s: Settings, table: EncodedTable) -> Callable[[], Sweeps]:
    """Start the sweeps of :func:`~anonlab.attacks.definetti.fig4_sweep_specs` in worker processes; call to wait.

    The run's parameters give the protocol (the other readings: :func:`reading_repetitions`); each sweep is cached
    through the run under its own inputs (:func:`~anonlab.attacks.definetti.sweep_key`), and those not in the cache
    start at once, so the notebook goes on while the chains run. The returned function waits for the ``Sweeps``.
    """
    alts = alternative_tables(data, s, table)
    specs = fig4_sweep_specs(table, s.l_grid, s.multipliers, alts, reading_repetitions=reading_repetitions(run.p),
                             **{k: run.p[k] for k in ("seed", "check_moves", "repetitions", "iterations", "history",
                                                      "moves_per_iteration", "threshold")})
    keys = {k: sweep_key(sp) for k, sp in specs.items()}
    todo = [k for k in specs if not run.is_cached("definetti_sweep", **keys[k])]
    pending = start_sweeps([specs[k] for k in todo], n_jobs=granted_cores(at_most=4))

    def result() -> Sweeps:
        done = dict(zip(todo, pending.result()))
        return collect_sweeps(run.cached_each("definetti_sweep", keys, lambda missing: {
            k: done[k] if k in done else definetti_sweeps([specs[k]])[0] for k in missing}), alts)
    return result


def measure_alternatives(sweeps: Sweeps, s: Settings, naive_summary: pd.DataFrame, *, draws: int, noise: str,
                         seed: int, repetitions: int) -> tuple[dict[str, Fig4], dict[str, dict[str, Measurement]]]:
    """Fig. 4, the convergence and the headline's claims under each alternative reading (``repetitions`` each).

    The headline's naive attack is rerun (:func:`headline_naive`, same seed) once per other set of known attributes.
    """
    figs, meas = {}, {}
    naive_of = {(): naive_summary}  # the naive attack per set of extra known attributes
    for label, (tab, sw) in sweeps.alternatives.items():
        figs[label] = f = fig4_of(sw, tab, s.l_grid, s.multipliers)
        if (extra := READINGS[label][0]) not in naive_of:
            naive_of[extra] = headline_naive(tab, s.epsilons, draws=draws, noise=noise, seed=seed)
        nd = naive_of[extra]
        conv, spread = convergence(sw)
        meas[label] = {**measure_fig4(f, adult=s.adult, paper_target=s.paper_target),
                       **measure_headline(nd, f, paper_target=s.paper_target),
                       **measure_convergence(conv, spread, repetitions=repetitions, paper_target=s.paper_target),
                       "naive_usual_lo": Measurement(headline_numbers(nd)["naive_usual_lo"])}
    return figs, meas


def with_choices(measured: Mapping[str, Measurement],
                 alternatives: Mapping[str, Mapping[str, Measurement]]) -> dict[str, Measurement]:
    """The claims of :func:`choice_claims` with their value (and interval) under every reading (the ledger's labels).

    The default reading (:data:`DEFAULT_READING`) carries the main measurement; claims not measured are left out.
    """
    return {cid: replace(m, alternatives={label: Measurement(r.value, ci=r.ci, values=r.values,
                                                             conditions=r.conditions) for label, r in [
        (DEFAULT_READING, m), *((label, meas[cid]) for label, meas in alternatives.items())]})
            for cid in choice_claims() if (m := measured.get(cid)) is not None and m.value is not None and alternatives}


def choice_numbers(table: pd.DataFrame | None) -> dict[str, float]:
    """Ranges over the readings of the best method at l = 7 (tight), the naive attack's low end, and their margin.

    ``table`` is :func:`anonbook.figures.cormode.choice_table`'s (its first row and its row of the naive
    attack); NaN without one.
    """
    keys = [f"choice_{k}_{e}" for k in ("l7", "naive", "margin") for e in ("lo", "hi")]
    if table is None:
        return {k: float("nan") for k in keys}
    r0 = table.iloc[0]
    r1 = table.loc[next(i for i in table.index if str(i).startswith("naive attack"))]
    margin = r1 - r0  # the naive attack's low end minus the deFinetti attack at l = 7, per reading
    return dict(zip(keys, (float(r0.min()), float(r0.max()), float(r1.min()), float(r1.max()),
                           float(margin.min()), float(margin.max()))))


def internet_unavailable(adult: bool) -> dict[str, Measurement]:
    """The Internet Usage claims (the ledger's ``data: unavailable``) as not measured in an Adult run."""
    note = "Internet Usage data not available in this run (dataset = 'adult')"
    return {c.id: Measurement(None, note=note) for c in chapter_claims(NAME) if adult and c.data == "unavailable"}


# --- the attacks on the common yardstick ------------------------------------------------------------------------------


#: The baseline of the chapter's attacks in words, by its kind (:data:`anonlab.measures.BASELINE_KINDS`).
BASELINE_WORDS = {"non-member model": "the same classifier fitted on the withheld test tuples (non-members)",
                  "majority prior": "the majority guess"}


def yardstick_numbers(table: pd.DataFrame) -> dict[str, Any]:
    """Precision, the baseline's precision on the same tuples, and PI of the first high-confidence row.

    ``table`` is :func:`attack_yardstick`'s; NaN when no row is a high-confidence subset.
    ``yard_base_words`` names that row's baseline (:data:`BASELINE_WORDS`).
    """
    rows = [k for k in table.index if ", belief > " in k]
    r = table.loc[rows[0]] if rows else {}
    out: dict[str, Any] = {f"yard_conf_{k}": float(r.get(c, np.nan)) for k, c in
                           (("precision", "precision"), ("base", "baseline_precision"), ("pi", "pi"))}
    out["yard_base_words"] = BASELINE_WORDS.get(r.get("baseline_kind") if rows else None, "its baseline")
    return out


# --- beyond the paper -------------------------------------------------------------------------------------------------


def nonmember_numbers(nonmember: pd.DataFrame) -> dict[str, float]:
    """The largest |PI| over ε and targets (NaN without a test file)."""
    return {"pi_max": float(nonmember["PI"].abs().max()) if len(nonmember) else float("nan")}


def tradeoff_numbers(ts: pd.DataFrame) -> dict[str, float]:
    """Where the accuracy peaks (smallest ε, and noiseless) and what the last attribute costs."""
    e0 = min(e for e in ts.columns if not math.isinf(e))
    return {"trade_eps": e0, "trade_best_m": int(ts[e0].idxmax()[0]),
            "trade_best_m_exact": int(ts[math.inf].idxmax()[0]),
            "trade_loss": float(ts[e0].max() - ts[e0].iloc[-1]),
            "trade_all_m": int(ts.index.get_level_values("m").max())}




# --- comparing sentences of "Beyond the paper", chosen from the numbers (issue 34) --------------------------------------

#: "Almost exactly as accurate on people who never contributed their data" read as: |PI| at most this on all tuples.
ALMOST_EXACT_PI = 0.05


def nonmember_sentence(numbers: Mapping[str, float]) -> Any:
    """``nonmember_sentence``: the largest |PI| on all tuples (:func:`nonmember_numbers`) against
    :data:`ALMOST_EXACT_PI`; an empty listing without a test file.

    >>> nonmember_sentence({"pi_max": 0.01}).relation, nonmember_sentence({"pi_max": float("nan")}).relation
    ('at or below', 'none')
    """
    from anonbook.chapters.sentences import compare, listing

    pi = float(numbers["pi_max"])
    if math.isnan(pi):
        return listing("nonmember_sentence", [], some="{items}",
                       none="This data set has no withheld test file, so there is no non-member baseline to set the "
                            "attack against.")
    return compare("nonmember_sentence", pi, ALMOST_EXACT_PI, {
        "at or below": "On all tuples the precision improvement never exceeds {left:.3f} in absolute value (at most "
                       "the {right:g} the book reads \"almost exactly\" as): the attack is almost exactly as accurate "
                       "on people who never contributed their data.",
        "above": "On all tuples the precision improvement reaches {left:.3f} in absolute value, more than the "
                 "{right:g} the book reads \"almost exactly\" as: at these parameters the attack is not as accurate "
                 "on people who never contributed their data.",
    })


def tradeoff_sentences(numbers: Mapping[str, float]) -> list[Any]:
    """``trade_peak`` (at the smallest ε, does the accuracy peak before the last attribute?) and ``trade_exact`` (and
    the classifier built from exact counts?), from :func:`tradeoff_numbers`.

    >>> n = {"trade_eps": 0.1, "trade_best_m": 3, "trade_all_m": 8, "trade_loss": 0.02, "trade_best_m_exact": 8}
    >>> [s.relation for s in tradeoff_sentences(n)]
    ['below', 'equal']
    """
    from anonbook.chapters.sentences import compare

    e0, loss = float(numbers["trade_eps"]), float(numbers["trade_loss"])
    peak = compare("trade_peak", numbers["trade_best_m"], numbers["trade_all_m"], {
        "below": f"At ε = {e0:g} the accuracy peaks with {{left:.0f}} of the {{right:.0f}} attributes and loses "
                 f"{loss:.3f} by the last one",
        "equal": f"At ε = {e0:g} the accuracy is highest with all {{right:.0f}} attributes: at this budget each "
                 "added attribute still pays for its noise",
    })
    exact = compare("trade_exact", numbers["trade_best_m_exact"], numbers["trade_all_m"], {
        "below": "the classifier built from exact counts peaks at {left:.0f} attributes: past that peak extra "
                 "attributes do not help Naive Bayes even without noise (they are correlated with the ones already "
                 "in)",
        "equal": "the classifier built from exact counts is best with all {right:.0f}: without noise every attribute "
                 "adds to it",
    })
    return [peak, exact]


def yardstick_sentence(numbers: Mapping[str, Any]) -> Any:
    """``yard_sentence``: the first high-confidence row's precision against its baseline's on the same tuples
    (:func:`yardstick_numbers`); an empty listing when no row is a high-confidence subset.

    >>> n = {"yard_conf_precision": 0.6, "yard_conf_base": 0.5, "yard_conf_pi": 0.2, "yard_base_words": "b"}
    >>> yardstick_sentence(n).relation, yardstick_sentence(dict(n, yard_conf_precision=float("nan"))).relation
    ('above', 'none')
    """
    from anonbook.chapters.sentences import compare, listing

    p, b = float(numbers["yard_conf_precision"]), float(numbers["yard_conf_base"])
    if math.isnan(p) or math.isnan(b):
        return listing("yard_sentence", [], some="{items}",
                       none="No attack of this run guesses only where its belief is above the threshold, so there is "
                            "no high-confidence subset to score.")
    head = ("on the first target the naive attack's predictions with a belief above the threshold are right "
            "{left:.1%} of the time")
    words, pi = numbers["yard_base_words"], float(numbers["yard_conf_pi"])
    return compare("yard_sentence", p, b, {
        "above": "Precision alone flatters the high-confidence subsets: " + head + f", but {words} is right "
                 f"{{right:.1%}} of the time on the same tuples, a precision improvement of {pi:.3f}.",
        "at or below": head[0].upper() + head[1:] + f", and {words} is right {{right:.1%}} of the time on the same "
                       f"tuples: no better (a precision improvement of {pi:.3f}).",
    })

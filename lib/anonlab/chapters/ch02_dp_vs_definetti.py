"""Chapter 2: differential privacy's naive attack vs the deFinetti attack (Cormode 2011).

The declaration of the notebook ``02_dp_vs_definetti`` (its parameters and the
quick preset) and the tested functions that run its experiments and turn the
results into claim measurements (``{claim id: Measurement}``). The notebook
calls them and records what they return; every decision about a claim (which
number is compared, the book's tolerances for "about" and "barely
distinguishable", the notes) is made here.

G. Cormode, *Personal privacy vs population privacy: learning to attack
anonymization*, KDD 2011 ([C11]). Sections: §2 the naive attack on
differentially private counts (Figs 1-3), §3 Kifer's deFinetti attack on
Anatomy (Figs 4-5).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..attacks.definetti import METHODS, DeFinettiResult, DeFinettiSweep, summarize_sweep
from ..attacks.naive_bayes import (
    bucketize,
    naive_attack,
    naive_attack_models,
    naive_bayes_result,
    strictly_above,
    summarize_attack,
    timed_naive_attack,
)
from ..claims import Measurement, reported
from ..data.loaders import ADULT_COLUMNS, INTERNET_USAGE_REQUIRED
from ..measures import AttackResult, Score, majority_baseline, precision_improvement, score, wilson_interval
from ..mechanisms.anatomy import anatomy_groups, check_anatomy, max_l_diversity, merge_groups, uniform_belief
from ..mechanisms.dp import (
    EncodedTable,
    encode_train_test,
    expected_abs_noise,
    geometric_alpha,
    measured_sensitivity,
    query_sensitivity,
    two_sided_geometric,
)
from ..validation import (
    Param,
    ParameterError,
    ParameterSpec,
    check_columns,
    check_path,
    check_random_state,
)
from . import Chapter, Exercise

__all__ = [
    "CHAPTER", "PAPER", "ADULT_L_MAX", "TOLERANCES", "Settings", "settings", "paper_values",
    "load_data", "encode_targets", "majority", "setup_table", "check_l_grid",
    "noise_check", "measure_noise", "run_naive", "curve", "noiseless", "at_eps", "gradual_decrease",
    "fig1_table", "measure_fig1", "confident_table", "measure_fig3", "time_attack", "measure_timing",
    "anatomy_checks", "measure_anatomy", "Fig4", "measure_fig4", "plateau", "convergence",
    "measure_convergence", "measure_headline", "internet_unavailable", "naive_attack_records",
    "definetti_attack_records", "nonmember_table", "tradeoff_table", "moves_check",
    "plot_fig1", "plot_fig3", "plot_timing", "plot_fig4", "plot_convergence", "plot_headline",
    "plot_nonmember", "plot_tradeoff", "glue_all", "grid_seconds", "definetti_table", "anatomy_limits",
    "confidence_by_l", "nonmember_glue", "attack_yardstick", "noiseless_accuracy", "headline_naive",
    "fig1_glue", "fig4_glue", "convergence_glue", "headline_glue", "tradeoff_glue", "report_epsilon",
    "yardstick_glue",
]

NAME = "02_dp_vs_definetti"

#: The paper's setting per data set (§2.3, §2.5, §3.2): naive-attack targets, attribute pool,
#: deFinetti target, and the order in which §2.5's trade-off adds attributes.
PAPER: dict[str, dict[str, Any]] = {
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
COLUMNS: dict[str, list[str]] = {
    "adult": ADULT_COLUMNS + ["hours", "age_group"],
    "internet": list(INTERNET_USAGE_REQUIRED),
}

#: Largest feasible l-diversity of each Adult column in ``adult.data`` (tuples with a missing
#: value dropped; ``hours`` and ``age_group`` with the default buckets): floor(n / top count),
#: Xiao & Tao's eligibility condition. Pinned data (the manifest's checksums), checked against
#: the data by the tests; it lets a run with an impossible ``l_grid`` be refused before it starts.
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
INTERNET_IDS = ["cormode.s2_3.internet.n_tuples", "cormode.fig2.income.n_categories",
                "cormode.fig2.income.majority_baseline", "cormode.fig2.occupation.n_categories",
                "cormode.fig2.occupation.majority_baseline", "cormode.fig2.trend",
                "cormode.fig3.internet_occupation.confident", "cormode.fig3.internet_income.confident",
                "cormode.timing.internet", "cormode.fig5a.open_le_noiseless",
                "cormode.fig5b.l4_equals_noiseless", "cormode.fig5.merge3_below_1_over_l"]
METHOD_COLORS = {"permutation": "tab:red", "group": "tab:blue", "open": "tab:green"}
GROUP_NAMES = {1: "tight groups (size l)", 2: "larger groups (size 2l)", 3: "groups of size 3l"}


# ---------------------------------------------------------------------------
# the declaration
# ---------------------------------------------------------------------------


def _is_increasing(name: str, edges: Sequence[float]) -> None:
    if any(b <= a for a, b in zip(edges, edges[1:])):
        raise ParameterError(f"parameter {name!r} must be increasing, got {list(edges)}")


def _check_combination(v: Mapping[str, Any]) -> None:
    """Checks no single parameter can make: data set, columns, buckets, history, l against the data."""
    dataset = v["dataset"]
    if not isinstance(v["internet_path"], str):
        raise ParameterError(f"parameter 'internet_path' must be a string, got {v['internet_path']!r}")
    if dataset == "internet":
        check_path("internet_path", v["internet_path"])
    cols = COLUMNS[dataset]
    paper = PAPER[dataset]
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
    _is_increasing("hours_buckets", v["hours_buckets"])
    _is_increasing("age_buckets", v["age_buckets"])
    if v["history"] > v["iterations"]:
        raise ParameterError(f"parameter 'history' must be <= iterations ({v['iterations']}), got {v['history']}")
    bucketed = {"hours": v["hours_buckets"] == DEFAULT_HOURS_BUCKETS,
                "age_group": v["age_buckets"] == DEFAULT_AGE_BUCKETS}
    if dataset == "adult" and bucketed.get(target, True):
        check_l_grid(v["l_grid"], ADULT_L_MAX[target], target)


def check_l_grid(l_grid: Sequence[int], l_max: int, target: str) -> list[int]:
    """Refuse an l above the largest feasible l-diversity of the deFinetti target.

    Anatomy needs every sensitive value to cover at most n/l tuples (Xiao &
    Tao's eligibility condition), so ``l <= l_max = floor(n / top count)``.

    >>> check_l_grid([2, 7], 7, "occupation")
    [2, 7]
    >>> check_l_grid([50], 7, "occupation")
    Traceback (most recent call last):
    ...
    anonlab.validation.ParameterError: parameter 'l_grid': l = 50 is above the largest feasible l-diversity of 'occupation' on this data, 7
    """
    top = max(l_grid)
    if top > l_max:
        raise ParameterError(f"parameter 'l_grid': l = {top} is above the largest feasible l-diversity "
                             f"of {target!r} on this data, {l_max}")
    return list(l_grid)


CHAPTER = Chapter(
    name=NAME,
    title="Differential privacy's naive attack vs the deFinetti attack",
    parameters=ParameterSpec([
        Param("dataset", "choice", "adult", "data of the reproduction: 'adult' (fetched) or 'internet' "
              "(needs internet_path)", choices=("adult", "internet")),
        Param("internet_path", "any", "", "path to your copy of final_general.dat (UCI Internet Usage); "
              "'' when not available"),
        Param("sensitive_attributes", "str_list", [], "naive-attack targets (Figs 1-3); [] = the paper's",
              min_len=0, max_len=10),
        Param("quasi_identifiers", "str_list", [], "attribute pool, the target left out of it; [] = the paper's",
              min_len=0, max_len=20),
        Param("hours_buckets", "float_list", [25, 40, 60], "upper edges of the hours-per-week buckets (hours), "
              "increasing", low=0, high=168, max_len=20),
        Param("age_buckets", "float_list", [19, 29, 39, 49, 59, 69], "upper edges of the age buckets (years) "
              "of age_group, increasing", low=0, high=120, max_len=20),
        Param("epsilons", "float_list", [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0],
              "privacy parameter grid (the noiseless classifier is added)", low=0, low_inclusive=False,
              high=1e6, max_len=40),
        Param("noise", "choice", "geometric", "noise of the counts: two-sided geometric (the paper's) or "
              "Laplace", choices=("geometric", "laplace")),
        Param("draws", "int", 9, "independent noise draws per epsilon (paper: 9)", low=1, high=200),
        Param("threshold", "float", 0.8, "belief above which a prediction is high-confidence (paper: 0.8)",
              low=0, high=1, high_inclusive=False),
        Param("dirichlet", "bool", False, "draw the classifier's parameters from Dirichlet posteriors "
              "(footnote 2)"),
        Param("definetti_sensitive", "any", "", "target of the deFinetti attack; '' = the paper's"),
        Param("l_grid", "int_list", [2, 3, 4, 5, 6, 7], "Anatomy's l, each from 2 to the target's largest "
              "feasible l-diversity (7 for Adult occupation)", low=2, high=50, max_len=20),
        Param("group_multipliers", "int_list", [1, 2, 3], "group size as a multiple of l (1 tight, 2 larger, "
              "3 as in §3.2)", low=1, high=10, max_len=5),
        Param("iterations", "int", 1000, "Markov-chain iterations of the deFinetti attack (paper: 1000)",
              low=1, high=20_000),
        Param("history", "int", 100, "final iterations whose assignments and counts the predictors use "
              "(<= iterations)", low=1, high=20_000),
        Param("moves_per_iteration", "int", 1, "swap proposals per group between two model refreshes "
              "(not stated in the paper)", low=1, high=100),
        Param("check_moves", "int", 7, "Beyond the paper: rerun the largest l with this many proposals per "
              "group per iteration; 0 skips", low=0, high=100),
        Param("repetitions", "int", 5, "deFinetti runs per (l, group size), each on a fresh Anatomy "
              "(paper: 5)", low=1, high=50),
        Param("tradeoff_epsilons", "float_list", [0.1, 1.0], "epsilons of the accuracy-vs-m trade-off (§2.5)",
              low=0, low_inclusive=False, high=1e6, max_len=10),
        Param("tradeoff_attributes", "str_list", [], "QIs in the order §2.5 adds them; [] = the book's Adult "
              "order", min_len=0, max_len=20),
        Param("seed", "int", 2011, "seed of every random draw (noise, Anatomy, Markov chain)", low=0),
        Param("use_cache", "bool", True, "reuse deFinetti results of an earlier run with the same data, "
              "parameters and library code"),
    ], checks=[_check_combination]),
    quick={"epsilons": [0.01, 0.1, 1.0], "draws": 2, "l_grid": [2, 3], "group_multipliers": [1, 2],
           "iterations": 30, "history": 10, "repetitions": 2, "tradeoff_epsilons": [1.0], "check_moves": 2,
           "use_cache": False},
    data=("adult-train", "adult-test"),
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
            "Predict first: Laplace noise with scale m/ε has about the same mean size as the two-sided "
            "geometric noise of the paper but real values and heavier tails. Will the naive attack's accuracy "
            "at the smallest ε go up, go down, or stay put? Then run it with `noise = \"laplace\"`.",
            {"noise": "laplace"},
            {"acc_low_first": "mean accuracy at the smallest ε, first target",
             "acc_noiseless_first": "the noiseless classifier (unchanged by the noise)"}),
        Exercise(
            "dirichlet",
            "Predict first: footnote 2 draws the classifier's parameters from Dirichlet posteriors instead of "
            "using the noisy counts directly. Will the share of tuples with a belief above the threshold "
            "shrink or grow, and what happens to the accuracy at the smallest ε? Then run it with "
            "`dirichlet = True`.",
            {"dirichlet": True},
            {"conf_share_first": "share of tuples with belief > threshold (median over ε), first target",
             "acc_low_first": "mean accuracy at the smallest ε, first target"}),
        Exercise(
            "drop_income",
            "Predict first: without `income` occupation is predicted from m = 4 attributes, so each count "
            "gets less noise but the classifier has less evidence. Better or worse at ε = 0.1? Then run it "
            "with `quasi_identifiers = [\"workclass\", \"education\", \"occupation\", \"sex\", \"hours\"]`.",
            {"quasi_identifiers": ["workclass", "education", "occupation", "sex", "hours"]},
            {"acc_eps01_first": "mean accuracy at ε = 0.1, first target",
             "acc_noiseless_first": "the noiseless classifier, first target"}),
        Exercise(
            "history1",
            "Predict first: the permutation method votes over the last `history` assignments of the chain. "
            "With `history = 1` (Kifer's single final permutation), will it keep its lead over the group "
            "method at the largest l? Then run it with `history = 1`.",
            {"history": 1},
            {"df_pvg_top": "permutation − group accuracy at the largest l, tight groups",
             "df_best_top": "best method at the largest l, tight groups"}),
        Exercise(
            "iterations",
            "Predict first: will ten times more Markov-chain iterations pull the repetitions together "
            "(a smaller spread) and move the accuracy at the largest l up or down? Then run it with "
            "`iterations = 300` (the quick preset has 30).",
            {"iterations": 300},
            {"spread_max": "largest max − min accuracy over repetitions",
             "df_best_top": "best method at the largest l, tight groups"}),
    ),
)


@dataclass(frozen=True)
class Settings:
    """The parameters with the paper's defaults filled in (empty lists and strings resolved).

    Lists are sorted where the notebook treats them as grids (``epsilons``,
    ``l_grid``, ``group_multipliers``, without repeats for the last two).
    """

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
    """Resolve validated parameters (``CHAPTER.check(globals())``) into :class:`Settings`.

    >>> s = settings(CHAPTER.parameters.defaults())
    >>> s.sensitive, s.definetti_sensitive, s.l_grid[-1]
    (['occupation', 'marital_status'], 'occupation', 7)
    """
    v = CHAPTER.parameters.validate(dict(values))
    paper = PAPER[v["dataset"]]
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


def paper_values() -> dict[str, float]:
    """The paper's numbers quoted in the chapter's opening, from the ledger (glue keys)."""
    ids = {"paper_base_occ": "cormode.fig1.occupation.majority_baseline",
           "paper_base_mar": "cormode.fig1.marital.majority_baseline",
           "paper_conf_occ": "cormode.fig3.adult_occupation.confident_share",
           "paper_conf_mar": "cormode.fig3.adult_marital.confident_share",
           "paper_conf_acc": "cormode.fig3.confident_accuracy_085",
           "paper_time": "cormode.timing.adult",
           "paper_l7": "cormode.fig4a.l7_below_30pct"}
    return {k: reported(cid) for k, cid in ids.items()}


def glue_all(values: Mapping[str, Any]) -> None:
    """``anonlab.glue.glue`` every value (as a plain Python number: numpy scalars break ``-W`` builds)."""
    from ..glue import glue

    for key, val in values.items():
        if isinstance(val, (np.integer, np.floating, np.bool_)):
            val = val.item()
        glue(key, val, display=False)


# ---------------------------------------------------------------------------
# setup: data, tables, majority baseline
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Data:
    """The raw tables of a run: training data, the withheld test file (Adult only), manifest names."""

    train: pd.DataFrame
    test: pd.DataFrame | None
    names: list[str]


def load_data(s: Settings, hours_buckets: Sequence[float], age_buckets: Sequence[float],
              internet_path: str = "") -> Data:
    """Adult's ``adult.data`` and ``adult.test`` with the bucketed ``hours`` and ``age_group`` (§2.3), or Internet Usage."""
    from ..data import load_adult, load_internet_usage

    if not s.adult:
        return Data(load_internet_usage(internet_path), None, [])
    train, test = load_adult("train"), load_adult("test")
    for d in (train, test):
        d["hours"] = bucketize(d["hours_per_week"], hours_buckets)
        d["age_group"] = bucketize(d["age"], age_buckets)
    return Data(train, test, ["adult-train", "adult-test"])


def encode_targets(data: Data, s: Settings) -> dict[str, tuple[EncodedTable, EncodedTable | None]]:
    """Per naive-attack target, the coded training and test tables (the target left out of the QIs)."""
    return {sa: encode_train_test(data.train, data.test, [q for q in s.qi_pool if q != sa], sa)
            for sa in s.sensitive}


def majority(table: EncodedTable, reference: EncodedTable | None = None, *,
             name: str = "majority guess") -> AttackResult:
    """The majority guess on ``table``'s tuples (:func:`anonlab.measures.majority_baseline` on SA codes).

    The guess is the most frequent SA value of ``reference`` (default: of
    ``table`` itself); ties go to the first value of the sorted domain.
    Scored with :func:`anonlab.measures.score`, its precision is the
    majority-class baseline of Fig. 1 (13% for Adult occupation).
    """
    ref = None if reference is None else reference.sa_codes
    return majority_baseline(table.sa_codes, reference=ref, name=name)


def setup_table(tables: Mapping[str, tuple[EncodedTable, EncodedTable | None]]) -> pd.DataFrame:
    """One row per target: QIs, m, SA domain size, tuples, majority baseline on train and test."""
    return pd.DataFrame([{
        "target": sa, "quasi-identifiers": ", ".join(tr.qi_names), "m": tr.m, "SA values": tr.n_sa,
        "train tuples": tr.n, "test tuples": te.n if te is not None else 0,
        "majority baseline (train)": score(majority(tr)).precision,
        "majority baseline (test)": score(majority(te, tr)).precision if te is not None else np.nan,
    } for sa, (tr, te) in tables.items()])


# ---------------------------------------------------------------------------
# §2.2: sensitivity and noise
# ---------------------------------------------------------------------------


def noise_check(table: EncodedTable, seed: int | np.random.Generator,
                n_removed: int = 20, corner_draws: int = 100_000) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The sensitivity of the count query, derived and measured, and the noise at the corners of §2.2.

    One generator from ``seed`` first picks ``n_removed`` tuples to remove
    one at a time (:func:`~anonlab.mechanisms.dp.measured_sensitivity`), then
    draws ``corner_draws`` two-sided geometric values at each (ε, m) in
    {1, 0.1} × {3, 10}.

    Returns
    -------
    sensitivity, corners : pandas.DataFrame
    """
    rng = check_random_state(seed)
    rows = rng.choice(table.n, size=min(n_removed, table.n), replace=False)
    sens = pd.DataFrame([{
        "answer vector": label, "derived (§2.2)": query_sensitivity(table.m, include_sa_marginal=marg),
        "measured: max L1 change when one tuple is removed": measured_sensitivity(table, rows,
                                                                                  include_sa_marginal=marg),
    } for label, marg in [("joint counts + SA marginal", True), ("joint counts only (the attack)", False)]])
    corners = pd.DataFrame([{"epsilon": e, "m": m, "alpha": geometric_alpha(e, m),
                             "E|noise| (formula)": expected_abs_noise(e, m),
                             f"mean |noise| ({corner_draws:,} draws)":
                                 np.abs(two_sided_geometric(geometric_alpha(e, m), corner_draws, rng)).mean()}
                            for e in (1.0, 0.1) for m in (3, 10)])
    return sens, corners


def measure_noise(sens: pd.DataFrame, corners: pd.DataFrame, table: EncodedTable,
                  n_removed: int = 20) -> dict[str, Measurement]:
    """§2.2: the sensitivity is m + 1 with the SA marginal and m without it; the noise per count.

    ``sens`` and ``corners`` are :func:`noise_check`'s tables for ``table``
    (``n_removed`` as given to it). The noise claim is measured at its
    largest corner (ε = 0.1, m = 10), where the mean absolute noise
    :math:`1/\\sinh(ε/m)` is 99.998: "double-digit" taken strictly (at
    most 99), with no slack.
    """
    m, n_removed = table.m, min(n_removed, table.n)
    mean_abs = corners.iloc[:, -1]
    lo_c, hi_c = mean_abs.min(), mean_abs.max()
    formula_hi = float(corners["E|noise| (formula)"].max())
    return {
        "cormode.s2_2.sensitivity_m_plus_1": Measurement(
            bool(sens.iloc[0, 1] == sens.iloc[0, 2] == m + 1),
            note=f"m = {m}; {n_removed} tuples removed one at a time"),
        "cormode.s2_2.sensitivity_reduced_to_m": Measurement(
            bool(sens.iloc[1, 1] == sens.iloc[1, 2] == m),
            note="Pr[s] derived from the summed joint counts (anonlab.attacks.naive_bayes)"),
        "cormode.s2_2.noise_magnitude": Measurement(
            hi_c, note=f"mean |noise| at the largest corner (eps 0.1, m 10), formula {formula_hi:.3f}; "
                       f"smallest corner (eps 1, m 3) {lo_c:.2f}"),
    }


def noise_by_epsilon(epsilons: Sequence[float], ms: Sequence[int], noise: str = "geometric") -> pd.DataFrame:
    """Mean absolute noise per count per ε and m (:func:`~anonlab.mechanisms.dp.expected_abs_noise`).

    Two-sided geometric: :math:`2α/(1-α^2)` with α = exp(−ε/m) (§2.2); Laplace: m/ε.

    >>> noise_by_epsilon([1.0], [3]).round(2).to_dict("list")
    {'epsilon': [1.0], 'm = 3': [2.95]}
    """
    rows = [{"epsilon": float(e), **{f"m = {m}": expected_abs_noise(e, m, noise) for m in ms}} for e in epsilons]
    return pd.DataFrame(rows)


def noise_glue(table: pd.DataFrame) -> dict[str, float]:
    """The ε grid's range of mean absolute noise at the largest m of ``table`` (:func:`noise_by_epsilon`)."""
    col = table.columns[-1]
    return {"noise_grid_lo": float(table[col].min()), "noise_grid_hi": float(table[col].max()),
            "noise_grid_m": int(col.split("= ")[1]),
            "noise_eps_double": float(table.loc[table[col] < 100, "epsilon"].min())
            if (table[col] < 100).any() else float("nan")}


# ---------------------------------------------------------------------------
# §2.3, Figs 1-3: the naive attack
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class NaiveRun:
    """The naive attack on one target: per-draw results, their summary, wall-clock seconds."""

    results: pd.DataFrame
    summary: pd.DataFrame
    seconds: float


def run_naive(tables: Mapping[str, tuple[EncodedTable, EncodedTable | None]], epsilons: Sequence[float], *,
              draws: int, noise: str, threshold: float, dirichlet: bool, seed: int) -> dict[str, NaiveRun]:
    """Fig. 1's experiment for every target: the ε grid plus the noiseless classifier, train and test.

    Target ``i`` (in order) uses seed ``seed + i``.
    """
    out = {}
    for i, (sa, (tr, te)) in enumerate(tables.items()):
        targets = {"train": tr} if te is None else {"train": tr, "test": te}
        t0 = time.perf_counter()
        res = naive_attack(tr, list(epsilons) + [math.inf], targets=targets, draws=draws, noise=noise,
                           threshold=threshold, dirichlet=dirichlet, seed=seed + i)
        out[sa] = NaiveRun(res, summarize_attack(res), time.perf_counter() - t0)
    return out


def curve(run: NaiveRun, split: str = "train") -> pd.DataFrame:
    """The summary rows of one split over the finite ε grid, by increasing ε."""
    s = run.summary
    return s[(s["split"] == split) & np.isfinite(s["epsilon"])].sort_values("epsilon")


def noiseless(run: NaiveRun, split: str = "train", col: str = "accuracy") -> float:
    """Mean ``col`` of the classifier built from exact counts (ε = ∞)."""
    s = run.summary
    return float(s[(s["split"] == split) & np.isinf(s["epsilon"])][f"{col}_mean"].iloc[0])


def at_eps(run: NaiveRun, eps: float, split: str = "train", col: str = "accuracy_mean") -> float | None:
    """``col`` at ε = ``eps``, or ``None`` when ``eps`` is not in the grid."""
    c = curve(run, split)
    hit = c[np.isclose(c["epsilon"], eps)]
    return float(hit[col].iloc[0]) if len(hit) else None


def gradual_decrease(accuracy: Sequence[float]) -> bool | None:
    """Fig. 1's "the accuracy reduces gradually" on mean accuracies by increasing ε.

    True when the accuracy rises with ε (Spearman ρ ≥ ``TOLERANCES["spearman"]``
    against the grid order, total change > 0) and no single step holds more
    than ``TOLERANCES["step_share"]`` of the total change; ``None`` with fewer
    than four ε.

    >>> gradual_decrease([0.2, 0.25, 0.3, 0.32])
    True
    >>> gradual_decrease([0.2, 0.2, 0.2, 0.32])  # one abrupt step
    False
    >>> gradual_decrease([0.2, 0.3]) is None
    True
    """
    acc = np.asarray(accuracy, dtype=float)
    if len(acc) < 4:
        return None
    rho = pd.Series(acc).corr(pd.Series(np.arange(len(acc))), method="spearman")
    total = acc[-1] - acc[0]
    return bool(rho >= TOLERANCES["spearman"] and total > 0
                and np.max(np.abs(np.diff(acc))) <= TOLERANCES["step_share"] * total)


def fig1_table(naive: Mapping[str, NaiveRun]) -> pd.DataFrame:
    """Min / mean / max accuracy over draws per ε (train), one column group per target."""
    return pd.concat({sa: curve(r).set_index("epsilon")[["accuracy_min", "accuracy_mean", "accuracy_max"]]
                      for sa, r in naive.items()}, axis=1)


def _applies(sa: str, adult: bool) -> bool:
    return sa in FIG1_IDS and FIG1_IDS[sa].startswith("cormode.fig1") == adult


def measure_fig1(naive: Mapping[str, NaiveRun], tables: Mapping[str, tuple[EncodedTable, EncodedTable | None]],
                 epsilons: Sequence[float], *, adult: bool, n_rows: int) -> dict[str, Measurement]:
    """Figs 1-2 (§2.3): domain sizes, majority baselines, the trend, high ε, train vs test, ε = 0.01.

    The majority baseline is :func:`majority` scored by
    :func:`anonlab.measures.score` (precision, Wilson interval). ``n_rows``
    is the number of rows of the Internet Usage file (its claim only).
    """
    out: dict[str, Measurement] = {}
    for sa, (tr, _) in tables.items():
        if not _applies(sa, adult):
            continue
        pre = FIG1_IDS[sa]
        base = score(majority(tr))
        out[pre + ".n_categories"] = Measurement(tr.n_sa)
        out[pre + ".majority_baseline"] = Measurement(base.precision, ci=base.precision_ci, n=tr.n)
    if not adult:
        flags = [gradual_decrease(curve(naive[sa])["accuracy_mean"]) for sa in naive if sa in FIG1_IDS]
        out["cormode.fig2.trend"] = Measurement(None if (not flags or None in flags) else all(flags))
        out["cormode.s2_3.internet.n_tuples"] = Measurement(n_rows, note="rows of the file given")
        return out
    if "occupation" in tables:
        out["cormode.s2_3.adult.n_tuples"] = Measurement(tables["occupation"][0].n,
                                                         note="adult.data without missing occupation")
    both = [sa for sa in ("occupation", "marital_status") if sa in tables]
    if both:
        flags = [gradual_decrease(curve(naive[sa])["accuracy_mean"]) for sa in both]
        out["cormode.fig1.accuracy_decreases_with_noise"] = Measurement(
            None if None in flags else all(flags),
            note="mean accuracy rises with eps (Spearman >= 0.9), no step > half the total change")
        top = max(epsilons)
        gaps = [abs(at_eps(naive[sa], top) - noiseless(naive[sa])) for sa in both]
        tol = TOLERANCES["noiseless"]
        out["cormode.fig1.high_eps_equals_noiseless"] = Measurement(
            bool(max(gaps) <= tol),
            note=f"|acc(eps={top:g}) - acc(noiseless)| = {max(gaps):.4f} at most (tolerance {tol:g})")
        tt = [curve(naive[sa], "train")["accuracy_mean"].to_numpy() - curve(naive[sa], "test")["accuracy_mean"].to_numpy()
              for sa in both]
        out["cormode.fig1.train_test_gap"] = Measurement(
            max(float(np.max(np.abs(g))) for g in tt),
            note="largest |train - test| mean accuracy over the eps grid, both targets")
    for sa, cid in (("occupation", "cormode.fig1.occupation.eps001_nontrivial"),
                    ("marital_status", "cormode.fig1.marital.eps001_nontrivial")):
        if sa in tables:
            v = at_eps(naive[sa], 0.01)
            out[cid] = Measurement(v, note="mean over draws at eps = 0.01, train" if v is not None
                                   else "0.01 not in the grid")
    return out


def fig1_glue(naive: Mapping[str, NaiveRun], tables: Mapping[str, tuple[EncodedTable, EncodedTable | None]],
              epsilons: Sequence[float]) -> dict[str, float]:
    """Numbers quoted after Fig. 1 (first target)."""
    first = next(iter(naive))
    eps01 = at_eps(naive[first], 0.1)
    return {"acc_noiseless_first": noiseless(naive[first]),
            "acc_eps01_first": float("nan") if eps01 is None else eps01,
            "acc_low_first": float(curve(naive[first])["accuracy_mean"].iloc[0]),
            "eps_low": float(min(epsilons)),
            "base_first": score(majority(tables[first][0])).precision}


def confident_table(naive: Mapping[str, NaiveRun]) -> pd.DataFrame:
    """Fig. 3's numbers per ε (train): tuples and share with belief above the threshold, their accuracy."""
    cols = ["n_confident_mean", "confident_share_mean", "confident_accuracy_mean", "accuracy_mean"]
    return pd.concat({sa: curve(r).set_index("epsilon")[cols] for sa, r in naive.items()}, axis=1)


def measure_fig3(naive: Mapping[str, NaiveRun], *, adult: bool) -> tuple[dict[str, Measurement], dict[str, float]]:
    """Fig. 3: the high-confidence subset (belief above the threshold).

    The paper does not say at which ε it counts, so the measure is the median
    over the ε grid of the mean over draws. Returns the claims and the numbers
    the text quotes.
    """
    med = {sa: float(curve(r)["confident_share_mean"].median()) for sa, r in naive.items()}
    med_n = {sa: float(curve(r)["n_confident_mean"].median()) for sa, r in naive.items()}
    more_acc = True
    for r in naive.values():
        c = curve(r).dropna(subset=["confident_accuracy_mean"])
        more_acc &= bool((c["confident_accuracy_mean"] > c["accuracy_mean"]).all())
    best_conf = max(float(curve(r)["confident_accuracy_mean"].max()) for r in naive.values())
    note = "median over the eps grid of the mean over draws, train"
    out: dict[str, Measurement] = {}
    if adult:
        if "occupation" in med:
            out["cormode.fig3.adult_occupation.confident_share"] = Measurement(med["occupation"], note=note)
            out["cormode.fig3.adult_occupation.confident_count"] = Measurement(med_n["occupation"], note=note)
        if "marital_status" in med:
            out["cormode.fig3.adult_marital.confident_share"] = Measurement(med["marital_status"], note=note)
            out["cormode.fig3.adult_marital.confident_count"] = Measurement(med_n["marital_status"], note=note)
        out["cormode.fig3.confident_more_accurate"] = Measurement(
            more_acc, note="at every eps with confident tuples, every target")
        out["cormode.fig3.confident_accuracy_085"] = Measurement(
            best_conf, note="best mean over draws, any eps, any Adult target")
    else:
        for sa, cid in (("Major Occupation", "cormode.fig3.internet_occupation.confident"),
                        ("Household Income", "cormode.fig3.internet_income.confident")):
            if sa in med:
                out[cid] = Measurement(med[sa], note=note)
    names = list(naive)
    glue = {"conf_share_first": med[names[0]], "conf_n_first": med_n[names[0]],
            "conf_share_last": med[names[-1]], "conf_best_acc": best_conf}
    return out, glue


def time_attack(s: Settings, tables: Mapping[str, tuple[EncodedTable, EncodedTable | None]],
                hours_buckets: Sequence[float], internet_path: str, *, noise: str, seed: int) -> float:
    """Seconds of the whole naive attack as §2.3 times it: load, bucket, count, noise, classify (ε = 1)."""
    from ..data import load_adult, load_internet_usage

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


# ---------------------------------------------------------------------------
# §3.1: Anatomy
# ---------------------------------------------------------------------------


def noiseless_accuracy(table: EncodedTable) -> float:
    """Accuracy on ``table`` of the Naive-Bayes classifier built from its exact counts (ε = ∞)."""
    return float(naive_attack(table, [math.inf])["accuracy"].iloc[0])


def headline_naive(table: EncodedTable, epsilons: Sequence[float], *, draws: int, noise: str,
                   seed: int) -> pd.DataFrame:
    """The naive attack on the deFinetti target over the ε grid (seed ``seed + 99``), summarised by ε."""
    res = naive_attack(table, list(epsilons), draws=draws, noise=noise, seed=seed + 99)
    return summarize_attack(res).sort_values("epsilon")


def anatomy_checks(table: EncodedTable, l_grid: Sequence[int], multipliers: Sequence[int],
                   seed: int) -> pd.DataFrame:
    """Anatomy's promises at every l and group size: sizes, repeats, shares, the uniform adversary's belief."""
    rows = []
    for l in l_grid:  # noqa: E741
        g = anatomy_groups(table.sa_codes, l, seed=seed)
        for mult in multipliers:
            gg = g if mult == 1 else merge_groups(g, mult)
            rep = check_anatomy(gg, table.sa_codes, l)
            rows.append({"l": l, "multiplier": mult, "groups": int(gg.max()) + 1, **rep,
                         "max uniform belief": float(uniform_belief(gg, table.sa_codes).max()), "1/l": 1 / l})
    return pd.DataFrame(rows)


def definetti_table(data: Data, s: Settings) -> EncodedTable:
    """The deFinetti target coded with the rest of the attribute pool as QIs (the Anatomy input).

    Raises :class:`~anonlab.validation.ParameterError` when ``l_grid`` holds
    an l above the target's largest feasible l-diversity on this data.
    """
    sa = s.definetti_sensitive
    table, _ = encode_train_test(data.train, None, [q for q in s.qi_pool if q != sa], sa)
    check_l_grid(s.l_grid, max_l_diversity(table.sa_codes), sa)
    return table


def anatomy_limits(table: EncodedTable) -> tuple[int, float]:
    """Largest feasible l and the most common SA value's share."""
    return max_l_diversity(table.sa_codes), float(np.bincount(table.sa_codes).max() / table.n)


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


# ---------------------------------------------------------------------------
# §3.2, Figs 4-5: the deFinetti attack
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Fig4:
    """The sweep's summary (:func:`~anonlab.attacks.definetti.summarize_sweep`) with lookups.

    ``noiseless`` is the accuracy of the Naive-Bayes classifier built from the
    exact counts of the deFinetti target.
    """

    summary: pd.DataFrame
    noiseless: float
    l_grid: list[int]
    multipliers: list[int]

    def acc(self, mult: int, l: int, method: str) -> float | None:  # noqa: E741
        """Mean accuracy over repetitions, or ``None`` when not run."""
        S = self.summary
        hit = S[(S["multiplier"] == mult) & (S["l"] == l) & (S["method"] == method)]
        return float(hit["accuracy_mean"].iloc[0]) if len(hit) else None

    def best(self, mult: int, l: int) -> float | None:  # noqa: E741
        """The best of the three methods' mean accuracies."""
        vals = [self.acc(mult, l, m) for m in METHODS]
        return None if None in vals else max(vals)

    @property
    def tight(self) -> bool:
        return 1 in self.multipliers


def _ok_all(values: Sequence[bool | None]) -> bool | None:
    """True/False over the values that could be measured; None when none could.

    >>> _ok_all([True, None]), _ok_all([True, False]), _ok_all([None]) is None
    (True, False, True)
    """
    vals = [v for v in values if v is not None]
    return all(vals) if vals else None


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
    out["cormode.fig4a.agrees_with_kifer"] = Measurement(
        _ok_all([acc(1, l, "permutation") > 1 / l for l in (2, 3, 4) if tight and l in L]),
        note="Kifer's numbers are not in the text: checks that his (permutation) method beats 1/l for l = 2..4")
    open_below = [l for l in L if tight and acc(1, l, "open") <= 1 / l]
    out["cormode.fig4a.above_1_over_l"] = Measurement(
        _ok_all([acc(1, l, m) > 1 / l for l in L if tight for m in locate]),
        note="permutation and group methods; the open method is bounded by the noiseless classifier "
             f"({nl:.3f}) and is at or below 1/l for l in {open_below}")
    dec = None
    if tight and len(L) >= 3:
        dec = all(bool(np.all(np.diff([acc(1, l, m) for l in L]) <= tol)) for m in locate)
    out["cormode.fig4a.decreases_with_l"] = Measurement(dec, note="permutation and group, tight groups, tolerance 0.005")
    out["cormode.fig4a.open_le_noiseless"] = Measurement(
        _ok_all([acc(mu, l, "open") <= nl + tol for mu in mults for l in L]),
        note=f"noiseless classifier {nl:.4f}; tolerance 0.005")
    pvg = None
    if tight and min(L) == 2 and max(L) >= 6:
        lo_l, hi_l = min(L), max(L)
        pvg = (acc(1, lo_l, "permutation") > acc(1, lo_l, "group")
               and acc(1, hi_l, "group") > acc(1, hi_l, "permutation"))
        note = (f"l={lo_l}: perm {acc(1, lo_l, 'permutation'):.3f} vs group {acc(1, lo_l, 'group'):.3f}; "
                f"l={hi_l}: perm {acc(1, hi_l, 'permutation'):.3f} vs group {acc(1, hi_l, 'group'):.3f}")
    else:
        note = "needs l = 2 and l >= 6 in the grid"
    out["cormode.fig4a.perm_vs_group"] = Measurement(pvg, note=note)
    out["cormode.fig4a.l7_below_30pct"] = Measurement(best(1, 7) if tight and 7 in L else None,
                                                      note="best of the three methods, mean over repetitions")
    if 2 in mults:
        margins = [(best(2, l) - 1 / l, best(1, l) - 1 / l) for l in L] if tight else []
        out["cormode.fig4b.above_1_over_l_smaller_margin"] = Measurement(
            _ok_all([acc(2, l, m) > 1 / l for l in L for m in locate] + [m2 < m1 for m2, m1 in margins])
            if tight else None,
            note="permutation and group above 1/l at size 2l, best-method margin over 1/l below the tight one "
                 "at every l")
        out["cormode.fig4b.below_noiseless_at_l5"] = Measurement(
            (best(2, 5) < nl) if 5 in L else None,
            note=f"best method at l = 5, size 10: {best(2, 5) if 5 in L else float('nan'):.4f}")
        closer = None
        if len(L) >= 2:
            def gap(l: int) -> float:  # noqa: E741
                return max(acc(2, l, "group"), acc(2, l, "permutation")) - acc(2, l, "open")
            closer = gap(max(L)) < gap(min(L))
        out["cormode.fig4b.group_dominates_perm"] = Measurement(
            _ok_all([acc(2, l, "group") >= acc(2, l, "permutation") for l in L] + [closer]),
            note="group >= permutation at every l, and both closer to open at the largest l")
    if 3 in mults:
        dev = max(abs(acc(3, l, "permutation") - 1 / l) for l in L)
        out["cormode.fig4.merge3_perm_about_1_over_l"] = Measurement(
            bool(dev <= about),
            note=f"largest |permutation - 1/l| over l with size-3l groups: {dev:.4f} (tolerance {about:g})")
    if tight and len(L) >= 2:
        S = f.summary
        g = S[(S["multiplier"] == 1) & (S["method"] == "group")].sort_values("l")
        share = g["confident_share_mean"].to_numpy()
        dwindle = bool(share[-1] < share[0] and g["confident_accuracy_mean"].iloc[0] > g["accuracy_mean"].iloc[0])
        out["cormode.s3_2.high_confidence_dwindles"] = Measurement(
            dwindle, note=f"group method, tight: confident share {share[0]:.3f} at l={L[0]} -> "
                          f"{share[-1]:.3f} at l={L[-1]}")
    big = [(l, mu) for l in L for mu in mults if l >= 6 and l * mu >= 10]
    out["cormode.s3_3.large_params_1_over_l"] = Measurement(
        _ok_all([best(mu, l) <= 1 / l + about for l, mu in big]) if big else None,
        note="best method at l >= 6 with groups of >= 10 tuples, tolerance 0.03: "
             + "; ".join(f"l={l} size {l * mu}: {best(mu, l):.3f} vs 1/l {1 / l:.3f}" for l, mu in big))
    return out


def confidence_by_l(f: Fig4) -> pd.DataFrame:
    """§3.2's high-confidence view of the group method: share and accuracy above the threshold, per l and size."""
    S = f.summary
    return S[S["method"] == "group"].pivot_table(
        index="l", columns="multiplier", values=["confident_share_mean", "confident_accuracy_mean", "accuracy_mean"])


def fig4_glue(f: Fig4) -> dict[str, float]:
    """Numbers quoted after Fig. 4."""
    L = f.l_grid
    return {"df_l_top": max(L), "df_best_top": f.best(1, max(L)) if f.tight else float("nan"),
            "df_pvg_top": f.acc(1, max(L), "permutation") - f.acc(1, max(L), "group") if f.tight else float("nan"),
            "df_best_2": f.best(1, min(L)) if f.tight else float("nan"), "df_noiseless": f.noiseless}


def plateau(trace: Sequence[float], rel: float | None = None) -> bool:
    """Is an L1 trace on a plateau? Mean of its last tenth within ``rel`` (10%) of the tenth before.

    A sampler never stops moving, so the L1 distance between successive joint
    distributions settles on a plateau rather than reaching zero (§3.2's
    "almost converge").

    >>> plateau([5.0, 4.0, 3.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.05])
    True
    >>> plateau([5.0, 4.0, 3.0, 2.0, 1.0, 0.9, 0.8, 0.7, 0.6, 0.5])
    False
    """
    rel = TOLERANCES["plateau"] if rel is None else rel
    t = np.asarray(trace, dtype=float)
    k = max(1, len(t) // 10)
    last, before = t[-k:].mean(), t[-2 * k:-k].mean() if len(t) >= 2 * k else np.nan
    return bool(abs(last / before - 1) <= rel) if before > 0 else bool(last == 0)


def convergence(sweep: DeFinettiSweep) -> tuple[pd.Series, pd.Series]:
    """Per run: on a plateau? Per (multiplier, l, method): max − min accuracy over repetitions."""
    tr = sweep.traces
    conv = tr.groupby(["l", "multiplier", "repetition"])["l1"].apply(lambda s: plateau(s.to_numpy()))
    spread = sweep.results.groupby(["multiplier", "l", "method"])["accuracy"].agg(lambda a: a.max() - a.min())
    return conv, spread


#: The readings of §3.2's "in many cases, the max, min and average values are so close that they are
#: barely distinguishable" (the ledger's ``choices`` of ``cormode.s3_2.repetition_spread``).
SPREAD_LARGEST, SPREAD_MOST = "largest spread <= 0.02", "most configurations <= 0.02"


def spread_readings(spread: pd.Series) -> dict[str, bool]:
    """§3.2's "barely distinguishable in many cases" under each reading.

    ``spread`` is max - min accuracy over repetitions per configuration
    (multiplier, l, method), :func:`convergence`'s second value. Readings:
    the largest spread is at most ``TOLERANCES["similar"]`` (every
    configuration), or more than half of the configurations are ("many"
    as a majority).

    >>> spread_readings(pd.Series([0.01, 0.0, 0.15]))
    {'largest spread <= 0.02': False, 'most configurations <= 0.02': True}
    """
    tol = TOLERANCES["similar"]
    ok = spread.to_numpy() <= tol + 1e-12
    return {SPREAD_LARGEST: bool(ok.all()), SPREAD_MOST: bool(ok.mean() > 0.5)}


def measure_convergence(conv: pd.Series, spread: pd.Series, *, repetitions: int,
                        paper_target: bool) -> dict[str, Measurement]:
    """§3.2: the chain almost converges in most runs; repetitions are barely distinguishable.

    The second claim is recorded under both readings of "in many cases"
    (:func:`spread_readings`); the default is the strict one (largest spread).
    """
    if not paper_target:
        return {}
    tol = TOLERANCES["similar"]
    where = spread.idxmax()
    readings = spread_readings(spread) if repetitions > 1 else None
    share = float((spread.to_numpy() <= tol + 1e-12).mean())
    return {
        "cormode.s3_2.convergence": Measurement(
            bool(conv.mean() > 0.5),
            note=f"{conv.mean():.0%} of runs on a plateau (last 10% within 10% of the previous 10%)"),
        "cormode.s3_2.repetition_spread": Measurement(
            readings[SPREAD_LARGEST] if readings else None, alternatives=readings,
            note=f"largest max - min over repetitions: {spread.max():.4f} "
                 f"(size {where[0]}l, l = {where[1]}, {where[2]}); "
                 f"{share:.0%} of the {len(spread)} configurations (size, l, method) within {tol:g}"),
    }


def convergence_glue(conv: pd.Series, spread: pd.Series, sweep: DeFinettiSweep, l_top: int) -> dict[str, float]:
    """Numbers quoted after the convergence figure: best method of single runs at the largest l, tight groups."""
    R = sweep.results
    top_runs = R[(R["multiplier"] == 1) & (R["l"] == l_top)].groupby("repetition")["accuracy"].max()
    tol = TOLERANCES["similar"]
    return {"conv_share": float(conv.mean()), "spread_max": float(spread.max()),
            "spread_share_ok": float((spread.to_numpy() <= tol + 1e-12).mean()), "spread_tol": tol,
            "top_rep_min": float(top_runs.min()) if len(top_runs) else float("nan"),
            "top_rep_max": float(top_runs.max()) if len(top_runs) else float("nan")}


def usual_range(naive_summary: pd.DataFrame) -> pd.DataFrame:
    """The naive attack's summary rows with ε in the range usual in practice, [0.1, 1]."""
    nd = naive_summary
    return nd[(nd["epsilon"] >= USUAL_EPS[0]) & (nd["epsilon"] <= USUAL_EPS[1])]


def measure_headline(naive_summary: pd.DataFrame, f: Fig4, *, paper_target: bool) -> dict[str, Measurement]:
    """§3.3 and the abstract: the naive attack at ε in [0.1, 1] against the deFinetti attack on Anatomy.

    ``naive_summary`` is :func:`~anonlab.attacks.naive_bayes.summarize_attack`
    of the naive attack on the deFinetti target (train, finite ε).
    """
    if not paper_target:
        return {}
    usual = usual_range(naive_summary)
    L, mults, best = f.l_grid, f.multipliers, f.best
    out: dict[str, Measurement] = {}
    if len(usual) and f.tight and 7 in L:
        out["cormode.fig4a.l7_below_naive_dp"] = Measurement(
            bool(best(1, 7) < usual["accuracy_mean"].min()),
            note=f"deFinetti l=7 {best(1, 7):.4f} vs naive mean {usual['accuracy_mean'].min():.4f}-"
                 f"{usual['accuracy_mean'].max():.4f} for eps in [0.1, 1]")
    else:
        out["cormode.fig4a.l7_below_naive_dp"] = Measurement(None, note="needs l = 7 and an eps in [0.1, 1]")
    df_vals = [best(mu, l) for mu in mults for l in L if (mu == 1 and l == 7) or mu >= 2]
    if len(usual) and df_vals:
        out["cormode.s3_3.dp_can_be_more_susceptible"] = Measurement(
            bool(usual["accuracy_mean"].max() > min(df_vals)),
            note="some eps in [0.1, 1] beats some deFinetti setting with l = 7 or size >= 2l")
        d = min(abs(a - b) for a in usual["accuracy_mean"] for b in [best(mu, l) for mu in mults for l in L])
        out["cormode.abstract.similar_accuracy"] = Measurement(
            bool(d <= TOLERANCES["similar"]),
            note=f"closest pair (naive at eps in [0.1, 1], deFinetti at any l and size): {d:.4f} apart")
    else:
        out["cormode.s3_3.dp_can_be_more_susceptible"] = Measurement(None)
        out["cormode.abstract.similar_accuracy"] = Measurement(None)
    return out


def headline_glue(naive_summary: pd.DataFrame) -> dict[str, float]:
    """The naive attack's range of mean accuracy over ε in [0.1, 1]."""
    usual = usual_range(naive_summary)
    return {"naive_usual_lo": float(usual["accuracy_mean"].min()) if len(usual) else float("nan"),
            "naive_usual_hi": float(usual["accuracy_mean"].max()) if len(usual) else float("nan")}


# ---------------------------------------------------------------------------
# §3.2: two choices the paper leaves open
# ---------------------------------------------------------------------------

#: The ledger's alternatives of the two open choices of the deFinetti experiment on Adult occupation:
#: which attributes the attacker knows (§2.3's five besides the target, or those and marital status,
#: the paper's second target) and how Anatomy breaks ties between equally large buckets.
KNOWN_PAPER, KNOWN_MARITAL = "known: §2.3 attributes", "known: §2.3 + marital status"
TIES_RANDOM, TIES_STABLE = "ties: random", "ties: stable"
#: Each alternative run with the other choice at its default: extra known attributes, Anatomy's tie-break.
ALTERNATIVE_RUNS: dict[str, tuple[tuple[str, ...], str]] = {
    KNOWN_MARITAL: (("marital_status",), "random"), TIES_STABLE: ((), "stable")}
#: The claims recorded under every alternative (those the two choices plausibly move).
CHOICE_CLAIMS = ("cormode.fig4a.l7_below_30pct", "cormode.fig4a.l7_below_naive_dp",
                 "cormode.fig4.merge3_perm_about_1_over_l", "cormode.s3_3.large_params_1_over_l",
                 "cormode.fig4a.perm_vs_group", "cormode.fig4b.group_dominates_perm")


@dataclass(frozen=True)
class Sweeps:
    """Every deFinetti sweep of a run: the main one, each alternative reading's, the ``check_moves`` rerun.

    ``alternatives`` maps an alternative's label to its table and sweep
    (empty unless the deFinetti target is the paper's).
    """

    main: DeFinettiSweep
    alternatives: dict[str, tuple[EncodedTable, DeFinettiSweep]]
    more: DeFinettiSweep | None


def alternative_tables(data: Data, s: Settings, table: EncodedTable) -> dict[str, tuple[EncodedTable, str]]:
    """The deFinetti table and Anatomy tie-break of each alternative reading (paper target only).

    The known-attributes alternative adds the attributes of
    :data:`ALTERNATIVE_RUNS` to the QIs (left as is when already there).
    """
    if not s.paper_target:
        return {}
    out = {}
    for label, (extra, ties) in ALTERNATIVE_RUNS.items():
        add = [a for a in extra if a not in table.qi_names and a != s.definetti_sensitive]
        if add:
            tab, _ = encode_train_test(data.train, None, list(table.qi_names) + add, s.definetti_sensitive)
        else:
            tab = table
        out[label] = (tab, ties)
    return out


def alternative_configurations(l_grid: Sequence[int], multipliers: Sequence[int]) -> list[tuple[list[int], list[int]]]:
    """The (l grid, multipliers) pairs an alternative reading runs: what :data:`CHOICE_CLAIMS` compare.

    Merged groups (size 2l, 3l) at every l; tight groups only at the
    smallest and the largest l (permutation vs group, l = 7). The tight runs
    at the l in between feed no choice-dependent claim, and they are the
    dearest (most groups), so the alternatives skip them.

    >>> alternative_configurations([2, 3, 4, 5, 6, 7], [1, 2, 3])
    [([2, 3, 4, 5, 6, 7], [2, 3]), ([2, 7], [1])]
    >>> alternative_configurations([2, 3], [1])
    [([2, 3], [1])]
    """
    L, mults = sorted(set(l_grid)), sorted(set(multipliers))
    out = []
    merged = [m for m in mults if m > 1]
    if merged:
        out.append((L, merged))
    if 1 in mults:
        out.append((sorted({L[0], L[-1]}), [1]))
    return out


def run_sweeps(data: Data, s: Settings, table: EncodedTable, *, repetitions: int, iterations: int, history: int,
               moves_per_iteration: int, check_moves: int, threshold: float, seed: int,
               use_cache: bool) -> Sweeps:
    """Fig. 4's sweep, the sweeps of each alternative reading, and the ``check_moves`` rerun, in one pool.

    :func:`launch_sweeps` and wait for them.
    """
    return launch_sweeps(data, s, table, repetitions=repetitions, iterations=iterations, history=history,
                         moves_per_iteration=moves_per_iteration, check_moves=check_moves, threshold=threshold,
                         seed=seed, use_cache=use_cache).result()


class PendingChapterSweeps:
    """The chapter's deFinetti sweeps under way (:func:`launch_sweeps`); ``.result()`` gives :class:`Sweeps`."""

    def __init__(self, pending: Any, alts: dict[str, tuple[EncodedTable, str]], parts: list[tuple[str, int]],
                 more: bool) -> None:
        self._pending, self._alts, self._parts, self._more = pending, alts, parts, more
        self._done: Sweeps | None = None

    def result(self) -> Sweeps:
        if self._done is None:
            done = self._pending.result()
            alternatives = {}
            for label, (tab, _) in self._alts.items():
                runs = [done[k] for lab, k in self._parts if lab == label]
                alternatives[label] = (tab, DeFinettiSweep(
                    results=pd.concat([r.results for r in runs], ignore_index=True),
                    traces=pd.concat([r.traces for r in runs], ignore_index=True)))
            self._done = Sweeps(main=done[0], alternatives=alternatives, more=done[-1] if self._more else None)
        return self._done


def launch_sweeps(data: Data, s: Settings, table: EncodedTable, *, repetitions: int, iterations: int,
                  history: int, moves_per_iteration: int, check_moves: int, threshold: float, seed: int,
                  use_cache: bool) -> PendingChapterSweeps:
    """Start Fig. 4's sweep, the alternative readings' sweeps and the ``check_moves`` rerun in worker processes.

    Returns at once (:func:`~anonlab.attacks.definetti.start_sweeps`), so
    the notebook goes on (Anatomy's checks) while the chains run;
    ``.result()`` waits. The notebook starts them after the naive attack's
    timing, which would otherwise share the processors with them. An alternative runs the configurations of
    :func:`alternative_configurations` with the main protocol (repetitions,
    iterations, history, moves): its merged groups from seed ``seed``, its
    tight groups from ``seed + 2``. The rerun with ``check_moves`` proposals
    per group is the largest l with tight groups, seed ``seed + 1``. The main
    sweep keeps its run :func:`kept_run` for the yardstick.
    """
    from ..attacks.definetti import start_sweeps

    common = dict(repetitions=repetitions, iterations=iterations, history=history, threshold=threshold,
                  moves_per_iteration=moves_per_iteration)
    specs = [dict(table=table, l_grid=s.l_grid, multipliers=s.multipliers, seed=seed,
                  keep=[kept_run(s.l_grid, s.multipliers)], **common)]
    alts = alternative_tables(data, s, table)
    parts: list[tuple[str, int]] = []
    for label, (tab, ties) in alts.items():
        for L, mults in alternative_configurations(s.l_grid, s.multipliers):
            specs.append(dict(table=tab, l_grid=L, multipliers=mults, ties=ties,
                              seed=seed if mults != [1] else seed + 2, **common))
            parts.append((label, len(specs) - 1))
    more = bool(check_moves) and 1 in s.multipliers
    if more:
        specs.append(dict(table=table, l_grid=[max(s.l_grid)], multipliers=[1], seed=seed + 1,
                          **{**common, "moves_per_iteration": check_moves}))
    return PendingChapterSweeps(start_sweeps(specs, use_cache=use_cache), alts, parts, more)


def fig4_of(sweep: DeFinettiSweep, table: EncodedTable, s: Settings) -> Fig4:
    """:class:`Fig4` of a sweep on ``table`` (its noiseless classifier from ``table``'s exact counts).

    Configurations (multiplier, l, method) the sweep did not run get NaN
    rows, so that a lookup gives NaN rather than failing.
    """
    S = summarize_sweep(sweep.results)
    full = pd.MultiIndex.from_product([s.multipliers, s.l_grid, sorted(METHODS)], names=["multiplier", "l", "method"])
    if len(S) < len(full):
        cols = list(S.columns)
        S = S.set_index(["multiplier", "l", "method"]).reindex(full).reset_index()
        S["group_size"] = S["multiplier"] * S["l"]
        S = S[cols]
    return Fig4(S, noiseless_accuracy(table), s.l_grid, s.multipliers)


def measure_alternatives(sweeps: Sweeps, s: Settings, naive_summary: pd.DataFrame, *, draws: int, noise: str,
                         seed: int) -> tuple[dict[str, Fig4], dict[str, dict[str, Measurement]]]:
    """Fig. 4 and the headline's claims under each alternative reading.

    The naive attack of the headline comparison is rerun on the
    alternative's table when its known attributes differ
    (:func:`headline_naive`, same seed); otherwise ``naive_summary`` is reused.
    """
    figs, meas = {}, {}
    for label, (tab, sw) in sweeps.alternatives.items():
        f = fig4_of(sw, tab, s)
        nd = naive_summary if ALTERNATIVE_RUNS[label][0] == () else headline_naive(
            tab, s.epsilons, draws=draws, noise=noise, seed=seed)
        figs[label] = f
        meas[label] = {**measure_fig4(f, adult=s.adult, paper_target=s.paper_target),
                       **measure_headline(nd, f, paper_target=s.paper_target),
                       "naive_usual_lo": Measurement(headline_glue(nd)["naive_usual_lo"])}
    return figs, meas


def with_choices(measured: Mapping[str, Measurement],
                 alternatives: Mapping[str, Mapping[str, Measurement]]) -> dict[str, Measurement]:
    """The claims of :data:`CHOICE_CLAIMS` with their value under every alternative (the ledger's labels).

    The default readings (:data:`KNOWN_PAPER`, :data:`TIES_RANDOM`) carry
    the main measurement; claims not measured are left out.

    >>> m = {"cormode.fig4a.l7_below_30pct": Measurement(0.31)}
    >>> alt = {KNOWN_MARITAL: {"cormode.fig4a.l7_below_30pct": Measurement(0.35)},
    ...        TIES_STABLE: {"cormode.fig4a.l7_below_30pct": Measurement(0.28)}}
    >>> with_choices(m, alt)["cormode.fig4a.l7_below_30pct"].alternatives[TIES_STABLE]
    0.28
    """
    out = {}
    for cid in CHOICE_CLAIMS:
        m = measured.get(cid)
        if m is None or m.value is None or not alternatives:
            continue
        alts = {KNOWN_PAPER: m.value, TIES_RANDOM: m.value,
                **{label: meas[cid].value for label, meas in alternatives.items()}}
        out[cid] = replace(m, alternatives=alts)
    return out


def choice_table(main: Fig4, naive_summary: pd.DataFrame, figs: Mapping[str, Fig4],
                 alt_measured: Mapping[str, Mapping[str, Measurement]]) -> pd.DataFrame:
    """The numbers behind the choice-dependent claims, one column per reading (default first).

    Rows: the best method at l = 7 with tight groups, the naive attack's
    lowest mean accuracy for ε in [0.1, 1], the largest |permutation − 1/l|
    at size 3l, the largest margin of the best method over 1/l at l ≥ 6 with
    ≥ 10 tuples per group, permutation − group at the smallest and group −
    permutation at the largest l (tight), the smallest group − permutation
    at size 2l, and the noiseless classifier. NaN where the grid lacks it.
    """
    def numbers(f: Fig4, naive_lo: float) -> dict[str, float]:
        L, M = f.l_grid, f.multipliers
        nan = float("nan")

        def a(mu: int, l: int, m: str) -> float:  # noqa: E741
            v = f.acc(mu, l, m) if mu in M and l in L else None
            return nan if v is None else v

        def b(mu: int, l: int) -> float:  # noqa: E741
            v = f.best(mu, l) if mu in M and l in L else None
            return nan if v is None else v

        big = [b(mu, l) - 1 / l for l in L for mu in M if l >= 6 and l * mu >= 10]
        return {
            "best method, l = 7, tight (paper: < 0.30)": b(1, 7),
            "naive attack, lowest mean for ε in [0.1, 1]": naive_lo,
            "largest |permutation − 1/l|, size 3l (about 1/l: ≤ 0.03)": max(
                (abs(a(3, l, "permutation") - 1 / l) for l in L), default=nan) if 3 in M else nan,
            "largest best − 1/l, l ≥ 6 and ≥ 10 tuples (≤ 0.03)": max(big) if big else nan,
            f"permutation − group, l = {min(L)}, tight (> 0)": a(1, min(L), "permutation") - a(1, min(L), "group"),
            f"group − permutation, l = {max(L)}, tight (> 0)": a(1, max(L), "group") - a(1, max(L), "permutation"),
            "smallest group − permutation over l, size 2l (≥ 0)": min(
                a(2, l, "group") - a(2, l, "permutation") for l in L) if 2 in M else nan,
            "noiseless classifier": f.noiseless,
        }
    cols = {f"{KNOWN_PAPER}, {TIES_RANDOM} (default)": numbers(main, headline_glue(naive_summary)["naive_usual_lo"])}
    for label, f in figs.items():
        cols[label] = numbers(f, alt_measured[label]["naive_usual_lo"].value)
    return pd.DataFrame(cols)


def choice_glue(table: pd.DataFrame | None) -> dict[str, float]:
    """Ranges over the readings: best method at l = 7 (tight), the naive attack's low end, and their margin.

    ``table`` is :func:`choice_table`'s (rows 0 and 1); NaN without one.

    >>> t = pd.DataFrame({"a": [0.31, 0.32], "b": [0.29, 0.33]})
    >>> {k: round(v, 2) for k, v in choice_glue(t).items()}["choice_margin_hi"]
    0.04
    """
    keys = ("choice_l7_lo", "choice_l7_hi", "choice_naive_lo", "choice_naive_hi", "choice_margin_lo",
            "choice_margin_hi")
    if table is None:
        return {k: float("nan") for k in keys}
    r0, r1 = table.iloc[0], table.iloc[1]
    margin = r1 - r0  # the naive attack's low end minus the deFinetti attack at l = 7, per reading
    return dict(zip(keys, (float(r0.min()), float(r0.max()), float(r1.min()), float(r1.max()),
                           float(margin.min()), float(margin.max()))))


#: Glue keys of the verdict phrases the prose uses (``v_<key>``, and ``r_<key>`` for the readings).
VERDICT_KEYS: dict[str, str] = {
    "noise": "cormode.s2_2.noise_magnitude", "decrease": "cormode.fig1.accuracy_decreases_with_noise",
    "traintest": "cormode.fig1.train_test_gap", "groups": "cormode.s3_1.anatomy.groups",
    "bound": "cormode.s3_1.anatomy.uniform_bound", "open": "cormode.fig4a.open_le_noiseless",
    "dwindle": "cormode.s3_2.high_confidence_dwindles", "conv": "cormode.s3_2.convergence",
    "spread": "cormode.s3_2.repetition_spread", "l7": "cormode.fig4a.l7_below_30pct",
    "l7_naive": "cormode.fig4a.l7_below_naive_dp", "merge3": "cormode.fig4.merge3_perm_about_1_over_l",
    "large": "cormode.s3_3.large_params_1_over_l", "pvg": "cormode.fig4a.perm_vs_group",
    "gdp": "cormode.fig4b.group_dominates_perm", "similar": "cormode.abstract.similar_accuracy",
    "susceptible": "cormode.s3_3.dp_can_be_more_susceptible",
}


def readings_phrase(entry: Mapping[str, Any] | None) -> str:
    """Which readings a recorded claim holds under, e.g. ``"reproduced under a, c; not reproduced under b"``.

    ``entry`` is one claim of :attr:`anonlab.claims.Recorder.results`; ""
    when it has no alternatives.

    >>> readings_phrase({"alternatives": {"a": {"verdict": "reproduced"}, "b": {"verdict": "not reproduced"},
    ...                                   "c": {"verdict": "reproduced"}}})
    'reproduced under a, c; not reproduced under b'
    >>> readings_phrase({"alternatives": {"a": {"verdict": "reproduced"}, "b": {"verdict": "reproduced"}}})
    'the same under every reading'
    """
    alts = (entry or {}).get("alternatives") or {}
    by: dict[str, list[str]] = {}
    for label, a in alts.items():
        by.setdefault(a["verdict"], []).append(label)
    if len(by) == 1:
        return "the same under every reading"
    return "; ".join(f"{v} under {', '.join(labels)}" for v, labels in by.items())


def verdict_glue(results: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """The recorded verdict of each claim of :data:`VERDICT_KEYS` (``v_<key>``) and its readings (``r_<key>``).

    ``results`` is :attr:`anonlab.claims.Recorder.results`; a claim not
    recorded reads "not run". Every sentence of the chapter that states a
    verdict quotes these phrases.

    >>> g = verdict_glue({"cormode.fig4a.l7_below_30pct": {"verdict": "not reproduced"}})
    >>> g["v_l7"], g["v_spread"], g["r_l7"]
    ('not reproduced', 'not run', 'no alternative reading recorded')
    """
    out = {}
    for key, cid in VERDICT_KEYS.items():
        entry = results.get(cid)
        out[f"v_{key}"] = entry["verdict"] if entry else "not run"
        out[f"r_{key}"] = readings_phrase(entry) or "no alternative reading recorded"
    return out


def internet_unavailable(adult: bool) -> dict[str, Measurement]:
    """The Internet Usage claims as *data unavailable* in an Adult run (no package ships that data)."""
    if not adult:
        return {}
    note = "Internet Usage data not available in this run (dataset = 'adult')"
    return {cid: Measurement(None, note=note) for cid in INTERNET_IDS}


# ---------------------------------------------------------------------------
# the attacks on the common yardstick
# ---------------------------------------------------------------------------


def report_epsilon(epsilons: Sequence[float]) -> float:
    """The grid's ε nearest to 1 on a log scale: the naive attack kept for the book's yardstick.

    >>> report_epsilon([0.01, 0.1, 2.0]), report_epsilon([0.01, 0.5, 5.0])
    (2.0, 0.5)
    """
    return float(min(epsilons, key=lambda e: (abs(math.log(e)), e)))


def naive_attack_records(tables: Mapping[str, tuple[EncodedTable, EncodedTable | None]], epsilons: Sequence[float],
                         *, draws: int, noise: str, threshold: float, dirichlet: bool,
                         seed: int) -> dict[str, tuple[AttackResult, AttackResult]]:
    """The naive attack as :class:`~anonlab.measures.AttackResult`\\ s with their majority baselines.

    Per target: the first noise draw at :func:`report_epsilon`, on the
    training tuples, all of them and those with belief above ``threshold``
    (``at_threshold(strictly_above(threshold))``). The models are those of
    Fig. 1 (:func:`run_naive`'s seeds), so the accuracy is draw 0 of that
    experiment.
    """
    eps = report_epsilon(epsilons)
    eps_list = list(epsilons) + [math.inf]
    out = {}
    for i, (sa, (tr, _)) in enumerate(tables.items()):
        models = naive_attack_models(tr, eps_list, draws=draws, noise=noise, dirichlet=dirichlet, seed=seed + i)
        name = f"naive Bayes on ε-DP counts (ε = {eps:g}), {sa}"
        res = naive_bayes_result(dict(models)[eps], tr, draw=0, attack=name,
                                 resources={"epsilon": eps, "queries": tr.n_cells * tr.n_sa})
        base = majority(tr)
        out[name] = (res, base)
        high_name = f"{name}, belief > {threshold:g}"
        out[high_name] = (replace(res.at_threshold(strictly_above(threshold)), attack=high_name), base)
    return out


def definetti_attack_records(table: EncodedTable, sweep: DeFinettiSweep, l_grid: Sequence[int],
                             multipliers: Sequence[int]) -> dict[str, tuple[AttackResult, AttackResult]]:
    """The deFinetti attack's three methods as :class:`~anonlab.measures.AttackResult`\\ s (majority baselines).

    Repetition 0 of the sweep at the largest l with the smallest group
    multiplier, which the sweep keeps (``keep=``:func:`kept_run` ``(...)``);
    :func:`~anonlab.attacks.definetti.replay_sweep_run` reruns it exactly.
    """
    key = kept_run(l_grid, multipliers)
    if key not in sweep.kept:
        raise ValueError(f"the sweep did not keep run (l, multiplier, repetition) = {key}: pass keep=[{key}]")
    run: DeFinettiResult = sweep.kept[key]
    l, mult, _ = key  # noqa: E741
    base = majority(table)
    out = {}
    for m in METHODS:
        name = f"deFinetti on Anatomy ({m} method, l = {l}, size {mult}l), {table.sa_name}"
        out[name] = (run.attack_result(m, table.sa_codes, attack=name), base)
    return out


def kept_run(l_grid: Sequence[int], multipliers: Sequence[int]) -> tuple[int, int, int]:
    """The run of the sweep the yardstick keeps: (largest l, smallest multiplier, repetition 0).

    >>> kept_run([2, 7, 3], [2, 1])
    (7, 1, 0)
    """
    return int(max(l_grid)), int(min(multipliers)), 0


# ---------------------------------------------------------------------------
# beyond the paper
# ---------------------------------------------------------------------------


def nonmember_table(naive: Mapping[str, NaiveRun],
                    tables: Mapping[str, tuple[EncodedTable, EncodedTable | None]]) -> pd.DataFrame:
    """Members (train) against non-members (test) per ε: accuracy, Wilson interval, PI ([FW24] Eq 6)."""
    rows = []
    for sa, (tr, te) in tables.items():
        if te is None:
            continue
        a, b = curve(naive[sa], "train"), curve(naive[sa], "test")
        for (_, ra), (_, rb) in zip(a.iterrows(), b.iterrows()):
            lo, hi = wilson_interval(int(round(ra["accuracy_mean"] * tr.n)), tr.n)
            ca, cb = ra["confident_accuracy_mean"], rb["confident_accuracy_mean"]
            rows.append({"target": sa, "epsilon": ra["epsilon"], "members (train)": ra["accuracy_mean"],
                         "95% CI": f"[{lo:.3f}, {hi:.3f}]", "non-members (test)": rb["accuracy_mean"],
                         "PI": precision_improvement(ra["accuracy_mean"], rb["accuracy_mean"]),
                         "PI, belief > threshold": precision_improvement(ca, cb)
                         if np.isfinite(ca) and np.isfinite(cb) else np.nan})
    return pd.DataFrame(rows)


def nonmember_glue(nonmember: pd.DataFrame) -> dict[str, float]:
    """The largest |PI| over ε and targets (NaN without a test file)."""
    return {"pi_max": float(nonmember["PI"].abs().max()) if len(nonmember) else float("nan")}


def attack_yardstick(records: Mapping[str, tuple[AttackResult, AttackResult]]) -> pd.DataFrame:
    """The recorded attacks scored by :func:`anonlab.measures.yardstick` against their majority baselines."""
    from ..measures import yardstick

    table = yardstick({k: r for k, (r, _) in records.items()}, {k: b for k, (_, b) in records.items()})
    cols = ["targets", "predictions", "precision", "precision_low", "precision_high", "coverage",
            "baseline_precision", "pi"]
    return table[cols]


def yardstick_glue(table: pd.DataFrame) -> dict[str, float]:
    """Precision, the majority guess's precision on the same tuples, and PI of the first high-confidence row.

    ``table`` is :func:`attack_yardstick`'s; NaN when no row is a high-confidence subset.
    """
    rows = [k for k in table.index if ", belief > " in k]
    if not rows:
        return {"yard_conf_precision": float("nan"), "yard_conf_base": float("nan"), "yard_conf_pi": float("nan")}
    r = table.loc[rows[0]]
    return {"yard_conf_precision": float(r["precision"]), "yard_conf_base": float(r["baseline_precision"]),
            "yard_conf_pi": float(r["pi"])}


def tradeoff_table(data: Data, s: Settings, *, draws: int, noise: str, seed: int) -> pd.DataFrame:
    """§2.5: mean accuracy of the first target with the first m attributes, per ε (and noiseless)."""
    from ..attacks.naive_bayes import accuracy_vs_attributes

    tsa = s.sensitive[0]
    order = [a for a in s.tradeoff_attributes if a != tsa]
    df = data.train[data.train[tsa].notna()]
    trade = accuracy_vs_attributes(df, tsa, order, list(s.tradeoff_epsilons) + [math.inf], draws=draws,
                                   noise=noise, seed=seed)
    return trade.groupby(["m", "added", "epsilon"])["accuracy"].mean().unstack("epsilon")


def tradeoff_glue(ts: pd.DataFrame) -> dict[str, float]:
    """Where the accuracy peaks (smallest ε, and noiseless) and what the last attribute costs."""
    e0 = min(e for e in ts.columns if not math.isinf(e))
    return {"trade_eps": e0, "trade_best_m": int(ts[e0].idxmax()[0]),
            "trade_best_m_exact": int(ts[math.inf].idxmax()[0]),
            "trade_loss": float(ts[e0].max() - ts[e0].iloc[-1]),
            "trade_all_m": int(ts.index.get_level_values("m").max())}


def moves_check(sweep: DeFinettiSweep, more: DeFinettiSweep | None, *, l_top: int, moves: int,
                more_moves: int) -> tuple[pd.DataFrame | None, dict[str, float]]:
    """Repetition spread at the largest l (tight groups) with ``moves`` and ``more_moves`` proposals per group.

    ``more`` is the sweep rerun with ``more_moves`` (``None`` when skipped).
    Returns the per-repetition accuracies and the numbers the text quotes.
    """
    nan = float("nan")
    if more is None:
        return None, {"moves_spread_more": nan, "moves_spread_base": nan, "moves_best_more": nan,
                      "check_moves": more_moves}
    R = sweep.results
    both = pd.concat({f"{moves} per group": R[(R["multiplier"] == 1) & (R["l"] == l_top)],
                      f"{more_moves} per group": more.results}, names=["proposals per iteration"])
    per_rep = both.pivot_table(index=["proposals per iteration", "repetition"], columns="method", values="accuracy")
    spreads = both.groupby(level=0).apply(
        lambda d: d.groupby("method")["accuracy"].agg(lambda a: a.max() - a.min()).max())
    best_more = more.results.groupby(["repetition", "method"])["accuracy"].first().unstack().max(axis=1).mean()
    return per_rep, {"moves_spread_more": float(spreads[f"{more_moves} per group"]),
                     "moves_spread_base": float(spreads[f"{moves} per group"]),
                     "moves_best_more": float(best_more), "check_moves": more_moves}


# ---------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------


def plot_fig1(naive: Mapping[str, NaiveRun], tables: Mapping[str, tuple[EncodedTable, EncodedTable | None]]):
    """Fig. 1: accuracy against ε (band: min-max over draws), noiseless classifier, majority baselines."""
    import matplotlib.pyplot as plt

    from .. import plotting

    fig, axes = plt.subplots(1, len(tables), figsize=(6.2 * len(tables), 4.2), squeeze=False)
    for ax, (sa, (tr, te)) in zip(axes[0], tables.items()):
        for split in (["train", "test"] if te is not None else ["train"]):
            c = curve(naive[sa], split)
            plotting.measured_band(ax, c["epsilon"], c["accuracy_min"], c["accuracy_mean"], c["accuracy_max"],
                                   label=f"naive attack, {split}")
        ax.axhline(noiseless(naive[sa]), color="tab:green", linestyle=":", label="noiseless classifier")
        ax.axhline(score(majority(tr)).precision, color="grey", label="majority baseline (measured)")
        if sa in FIG1_IDS:
            plotting.paper_hline(ax, reported(FIG1_IDS[sa] + ".majority_baseline"), label="majority baseline (paper)")
        ax.set(xscale="log", xlabel="ε", ylabel="accuracy", title=f"target: {sa} (m = {tr.m})")
        ax.legend(fontsize=8)
    plt.tight_layout()
    return fig


def plot_fig3(naive: Mapping[str, NaiveRun], tables: Mapping[str, tuple[EncodedTable, EncodedTable | None]],
              threshold: float, *, adult: bool):
    """Fig. 3: share of tuples with belief above the threshold (top) and their accuracy (bottom)."""
    import matplotlib.pyplot as plt

    from .. import plotting

    fig, axes = plt.subplots(2, len(tables), figsize=(6.2 * len(tables), 7), squeeze=False)
    for j, (sa, (_, te)) in enumerate(tables.items()):
        for split in (["train", "test"] if te is not None else ["train"]):
            c = curve(naive[sa], split)
            plotting.measured_band(axes[0, j], c["epsilon"], c["confident_share_min"], c["confident_share_mean"],
                                   c["confident_share_max"], label=split)
            plotting.measured_band(axes[1, j], c["epsilon"], c["confident_accuracy_min"],
                                   c["confident_accuracy_mean"], c["confident_accuracy_max"],
                                   label=f"belief > {threshold:g}, {split}")
        c = curve(naive[sa])
        axes[1, j].plot(c["epsilon"], c["accuracy_mean"], color="grey", label="all tuples, train")
        if sa in PAPER_SHARE:
            plotting.paper_hline(axes[0, j], reported(PAPER_SHARE[sa]), label="paper (ε not stated)")
        if adult:
            plotting.paper_hline(axes[1, j], reported("cormode.fig3.confident_accuracy_085"),
                                 label="paper: up to 85% 'in some cases'")
        axes[0, j].set(xscale="log", xlabel="ε", ylabel=f"share with belief > {threshold:g}", title=f"target: {sa}")
        axes[1, j].set(xscale="log", xlabel="ε", ylabel="accuracy")
        axes[0, j].legend(fontsize=8)
        axes[1, j].legend(fontsize=8, loc="lower right")
    plt.tight_layout()
    return fig


def plot_timing(seconds: float, *, adult: bool):
    """The whole attack's time here against the paper's."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 2.2))
    ax.barh(["this book"], [seconds], color="tab:blue")
    ax.barh(["paper (2011)"], [reported(timing_claim_id(adult))], color="white", edgecolor="black", linestyle="--")
    ax.set_xlabel("seconds for the whole naive attack")
    plt.tight_layout()
    return fig


def plot_fig4(f: Fig4, *, adult: bool):
    """Fig. 4: accuracy of the three methods against l, one panel per group size."""
    import matplotlib.pyplot as plt

    from .. import plotting

    S, L = f.summary, f.l_grid
    fig, axes = plt.subplots(1, len(f.multipliers), figsize=(5.2 * len(f.multipliers), 4.2), squeeze=False,
                             sharey=True)
    ls = np.array(L)
    for ax, mult in zip(axes[0], f.multipliers):
        for m in METHODS:
            s = S[(S["multiplier"] == mult) & (S["method"] == m)].sort_values("l")
            plotting.measured_band(ax, s["l"], s["accuracy_min"], s["accuracy_mean"], s["accuracy_max"],
                                   label=m, color=METHOD_COLORS[m])
        ax.axhline(f.noiseless, color="black", linestyle=":", label="noiseless classifier")
        ax.plot(ls, 1 / ls, color="grey", linestyle="-.", label="1/l")
        if adult and mult == 1 and 7 in L:
            plotting.paper_points(ax, [7], [reported("cormode.fig4a.l7_below_30pct")],
                                  label="paper: below 30% at l = 7")
        if adult and mult == 2 and 5 in L:
            ax.axvline(5, **plotting.PAPER_STYLE, label="paper: below noiseless from l = 5")
        ax.set(xlabel="l", ylabel="accuracy", title=GROUP_NAMES.get(mult, f"size {mult}l"), xticks=L)
        ax.legend(fontsize=8)
    plt.tight_layout()
    return fig


def plot_convergence(sweep: DeFinettiSweep, l_grid: Sequence[int], multipliers: Sequence[int]):
    """Median L1 distance between successive joint distributions over repetitions, per l."""
    import matplotlib.pyplot as plt

    tr = sweep.traces
    fig, axes = plt.subplots(1, len(multipliers), figsize=(5.2 * len(multipliers), 3.6), squeeze=False,
                             sharey=True)
    for ax, mult in zip(axes[0], multipliers):
        for l in l_grid:  # noqa: E741
            t = tr[(tr["multiplier"] == mult) & (tr["l"] == l)].groupby("iteration")["l1"].median()
            ax.plot(t.index, t.values, label=f"l = {l}")
        ax.set(xscale="log", yscale="log", xlabel="iteration", ylabel="L1 between successive joints",
               title=GROUP_NAMES.get(mult, f"size {mult}l"))
        ax.legend(fontsize=7)
    plt.tight_layout()
    return fig


def plot_headline(naive_summary: pd.DataFrame, f: Fig4, table: EncodedTable):
    """The naive attack across ε (left) and the deFinetti attack across l (right), on one scale."""
    import matplotlib.pyplot as plt

    from .. import plotting

    nd, target = naive_summary, table.sa_name
    majority_accuracy = score(majority(table)).precision
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    plotting.measured_band(a1, nd["epsilon"], nd["accuracy_min"], nd["accuracy_mean"], nd["accuracy_max"],
                           label="naive attack on ε-DP counts")
    a1.axvspan(*USUAL_EPS, color="grey", alpha=0.1, label="ε usual in practice (0.1-1)")
    a1.set(xscale="log", xlabel="ε", ylabel="accuracy", title=f"differential privacy, target {target}")
    for mult in f.multipliers:
        a2.plot(f.l_grid, [f.best(mult, l) for l in f.l_grid], marker="o",
                label=f"deFinetti, best method, {GROUP_NAMES.get(mult, f'size {mult}l')}")
    a2.set(xlabel="l", title=f"Anatomy + deFinetti, target {target}", xticks=f.l_grid)
    for ax in (a1, a2):
        ax.axhline(f.noiseless, color="black", linestyle=":", label="noiseless classifier")
        ax.axhline(majority_accuracy, color="grey", label="majority baseline")
        ax.legend(fontsize=8)
    plt.tight_layout()
    return fig


def plot_nonmember(nonmember: pd.DataFrame, threshold: float):
    """PI over the non-member baseline against ε, all tuples and the high-confidence subset."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    for sa, g in nonmember.groupby("target"):
        ax.plot(g["epsilon"], g["PI"], marker="o", label=f"{sa}, all tuples")
        ax.plot(g["epsilon"], g["PI, belief > threshold"], marker="x", linestyle="--",
                label=f"{sa}, belief > {threshold:g}")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set(xscale="log", xlabel="ε", ylabel="PI over the non-member baseline")
    ax.legend(fontsize=8)
    plt.tight_layout()
    return fig


def plot_tradeoff(ts: pd.DataFrame, target: str):
    """§2.5: accuracy against the number of attributes m, one line per ε."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.8))
    for eps in ts.columns:
        ax.plot(ts.index.get_level_values("m"), ts[eps], marker="o",
                label="noiseless" if math.isinf(eps) else f"ε = {eps:g}")
    ax.set_xticks(ts.index.get_level_values("m"))
    ax.set_xticklabels([f"{m}: +{a}" for m, a in ts.index], fontsize=7, rotation=35, ha="right")
    ax.set(xlabel="m (attribute added)", ylabel="accuracy", title=f"target {target}: accuracy vs number of attributes")
    ax.legend(fontsize=8)
    plt.tight_layout()
    return fig

"""Chapter 5: the non-member framework (Francis & Wagner 2024, §1, §2, §4).

Declared parameters, the classroom preset, the chapter's computations (each
a call into :mod:`anonlab.measures.nonmember`) and the functions that turn
them into claim measurements.

Data: Adult and KDD Census-Income stand in for BankChurners, which no
package ships; with ``bankchurners_path`` set, the figures are also made on
BankChurners with the paper's split and PII set, and its ledger claims are
measured. Without it they are recorded as not measured (the ledger marks
them "data unavailable").
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonlab.claims import Measurement, claim, rules
from anonlab.data.loaders import ADULT_COLUMNS, BANK_CHURNERS_COLUMNS, CENSUS_INCOME_COLUMNS
from anonlab.measures import AttackResult, base_rates, precision_improvement, score
from anonlab.measures import nonmember as nm
from anonlab.measures.protocol import majority_baseline
from anonlab.validation import Param, ParameterError, ParameterSpec
from anonlab.intervals import percentile_interval, two_proportion_z, z_critical
from anonbook.memory import MiB, MemoryEstimate
from anonbook.chapters import Chapter, Exercise
from anonbook.chapters.sentences import Sentence, compare, listing

NAME = "05_nonmember_framework"
DATASETS = ("adult", "census")
LABELS = {"adult": "Adult", "census": "KDD Census-Income", "bankchurners": "BankChurners"}
#: The attributes of each table (Adult without the sampling weight ``fnlwgt``, BankChurners without its id).
ADULT_ATTRIBUTES = [c for c in ADULT_COLUMNS if c != "fnlwgt"]
BANKCHURNERS_ATTRIBUTES = [c for c in BANK_CHURNERS_COLUMNS if c != "CLIENTNUM"]
ADULT_PII = ["age", "sex", "race", "marital_status", "education", "native_country"]
CENSUS_PII = ["age", "sex", "race", "marital_stat", "education", "country_of_birth_self"]
#: Every attribute of KDD Census-Income (without ``instance_weight``, a sampling weight like Adult's ``fnlwgt``).
CENSUS_ATTRIBUTES = [c for c in CENSUS_INCOME_COLUMNS if c != "instance_weight"]
#: 17 of Census-Income's attributes: the secrets of its Fig 4 panel (a compute cap: all 41 as secrets cost about
#: 55 s more CPU, which the chapter's 60 s cannot hold), and the known attributes of the classroom preset.
CENSUS_SUBSET = [
    "age", "class_of_worker", "education", "wage_per_hour", "marital_stat", "major_industry_code",
    "major_occupation_code", "race", "sex", "capital_gains", "capital_losses", "dividends_from_stocks",
    "weeks_worked_in_year", "num_persons_worked_for_employer", "country_of_birth_self", "citizenship", "income",
]
#: [FW24] Fig 3 / the authors' ``piiColumns``.
BANKCHURNERS_PII = ["Customer_Age", "Dependent_count", "Education_Level", "Gender", "Marital_Status"]
#: Secrets of the complete-vs-relaxed comparison on Adult (one categorical, one continuous).
COMPLETE_SECRETS = ("sex", "age")

#: What "quite high", "close", "significant" mean in this chapter's claim decisions.
HIGH_PRECISION = 0.9
CLOSE = 0.05
REPLICATION_MIN_EFFECT = 0.02

#: The paper's values quoted in the chapter's prose (glue key -> ledger id).
PAPER = {
    "paper_sex": "fw.s1.majority_sex_example", "paper_bal": "fw.s1.base_rate.balanced.precision",
    "paper_skw": "fw.s1.base_rate.skewed.precision", "paper_nonmembers": "fw.s4_4.split.non_members",
    "paper_members": "fw.s4_4.split.members", "paper_rows": "fw.s4_4.bankchurners.rows",
    "paper_perfect": "fw.fig5.perfect_precision_count", "paper_rep": "fw.fig6.replication_effect",
    "paper_trb_prior": "fw.fig8.total_revolving_bal.prior", "paper_trb_non": "fw.fig8.total_revolving_bal.nonmember",
}


def _check_bankchurners_file(path: str) -> None:
    """The user's BankChurners file is a CSV file whose header has every column the loader needs."""
    from pathlib import Path

    p = Path(path).expanduser()
    if not p.is_file():
        raise ParameterError(f"parameter 'bankchurners_path': {path!r} is not a file (give the path of "
                             "BankChurners.csv itself)")
    try:
        header = [str(c).strip() for c in pd.read_csv(p, nrows=0).columns]
    except (ValueError, UnicodeDecodeError, OSError) as exc:
        raise ParameterError(f"parameter 'bankchurners_path': {path!r} cannot be read as CSV ({exc})") from None
    missing = [c for c in BANK_CHURNERS_COLUMNS if c not in header]
    if missing:
        raise ParameterError(f"parameter 'bankchurners_path': {path!r} lacks the column(s) {missing} of "
                             "Kaggle's BankChurners.csv")


def _check(values: Mapping[str, Any]) -> None:
    if values["n_members"] + values["n_non_members"] > 30_162:
        raise ParameterError("parameter 'n_members' + 'n_non_members' must be at most 30162 "
                             f"(the Adult rows without missing values), got {values['n_members'] + values['n_non_members']}")
    for name in ("adult_pii", "census_pii", "census_secrets"):
        pool = ADULT_ATTRIBUTES if name == "adult_pii" else values["census_attributes"]
        bad = [c for c in values[name] if c not in pool]
        if bad:
            raise ParameterError(f"parameter {name!r}: unknown attribute(s) {bad}; available: {', '.join(pool)}")
    pool = set(ADULT_ATTRIBUTES if "adult" in values["datasets"] else []) | \
        set(values["census_attributes"] if "census" in values["datasets"] else [])
    if values["bankchurners_path"]:
        _check_bankchurners_file(values["bankchurners_path"])
        pool |= set(BANKCHURNERS_ATTRIBUTES)
    bad = [c for c in values["secrets"] if c not in pool]
    if bad:
        raise ParameterError(f"parameter 'secrets': {bad} is not an attribute of any selected data set")


def peak_memory(values: Mapping[str, Any]) -> MemoryEstimate:
    """Peak memory: the kernel and two model-fitting workers on samples of at most 45,000 rows, about
    1.1 GB at the default and quick settings alike (measured by the runner)."""
    return MemoryEstimate(1080 * MiB)

CHAPTER = Chapter(
    name=NAME,
    title="The non-member framework: an allowed baseline, precision, coverage and PI",
    parameters=ParameterSpec([
        Param("datasets", "str_list", ["adult", "census"], "stand-in data sets of the paper's Fig 4", choices=DATASETS),
        Param("secrets", "str_list", [], "secret attributes of the paper's Figs 4-8 (empty list: every attribute of each data set)",
              min_len=0),
        Param("bankchurners_path", "path", None, "your copy of Kaggle's BankChurners.csv; None: not available",
              nullable=True),
        Param("n_members", "int", 7088, "members (training rows) drawn per data set, rows (paper: 7088)",
              low=50, high=30_000),
        Param("n_non_members", "int", 3039, "non-members (targets) drawn per data set, rows (paper: 3039)",
              low=20, high=15_000),
        Param("adult_pii", "str_list", ADULT_PII, "Adult attributes that play PII (the PII-only known set)"),
        Param("census_pii", "str_list", CENSUS_PII, "Census-Income attributes that play PII"),
        Param("census_attributes", "str_list", CENSUS_ATTRIBUTES, "Census-Income attributes used (default: all 41 "
              "but the sampling weight)", min_len=3, max_len=41, choices=tuple(CENSUS_INCOME_COLUMNS)),
        Param("census_secrets", "str_list", CENSUS_SUBSET, "Census-Income attributes taken in turn as the secret "
              "in the paper's Fig 4 (empty list: every attribute used; default: 17 of them, a compute cap)", min_len=0,
              max_len=41),
        Param("C", "float", 0.01, "inverse L1 strength of the logistic regression (paper: 0.01)", low=0.0, high=1e6,
              low_inclusive=False),
        Param("alpha", "float", 0.1, "L1 strength of the Lasso (paper: 0.1)", low=0.0, high=1e6, low_inclusive=False),
        Param("max_iter", "int", 100, "saga iterations of the logistic regression", low=1, high=10_000),
        Param("tolerance", "float", 0.05, "a continuous prediction is correct within this fraction (paper: 0.05)",
              low=0.0, high=1.0, low_inclusive=False),
        Param("tolerance_basis", "choice", "range", "\"range\": fraction of the targets' range (authors' "
              "code); \"relative\": of the true value (paper's text)", choices=("range", "relative")),
        Param("min_predictions", "int", 10, "predictions needed before precision 1.0 counts as perfect",
              low=1, high=1000),
        Param("replication", "float_list", [0.1, 0.5, 1.0],
              "shares of records duplicated in the paper's Fig 6 (paper: 10, 50, 100 %)", low=0.0, high=1.0,
              low_inclusive=False, max_len=10),
        Param("synthesizer", "choice", "cart", "synthesizer of the prior framework: \"cart\" (sequential CART, "
              "synthpop's method) or \"marginals\" (independent columns)", choices=("cart", "marginals")),
        Param("synth_min_leaf", "int", 5, "smallest leaf of the CART synthesizer, rows (synthpop: 5)", low=1,
              high=1000),
        Param("complete_targets", "int", 100, "targets of the leave-one-out (complete) baseline, one fit each",
              low=5, high=2000),
        Param("pi_tolerances", "float_list", [0.01, 0.02, 0.05, 0.1, 0.2],
              "error bounds of the PI-vs-bound test (§4.3)", low=0.0, high=1.0, low_inclusive=False,
              min_len=2, max_len=20),
        Param("naive_epsilon", "float", 1.0, "ε of the DP counts behind Cormode's naive attack", low=0.0,
              high=1e6, low_inclusive=False),
        Param("naive_threshold", "float", 0.8, "belief above which the naive attack predicts (Cormode: 0.8)", low=0.0,
              high=1.0, high_inclusive=False),
        Param("seed", "int", 0, "seed of every draw (samples, splits, synthesizer, noise)", low=0,
              high=2**32 - 1),
    ], checks=[_check]),
    quick={"n_members": 1400, "n_non_members": 600, "complete_targets": 40, "replication": [0.5, 1.0],
           "pi_tolerances": [0.02, 0.1], "census_attributes": CENSUS_SUBSET},
    data=("adult-train", "census-income-train"),
    memory=peak_memory,
    goals=(
        "Measure what an analysis of a data set predicts about people who are not in it, and use that as "
        "the allowed baseline an attack must beat.",
        "Report an attack by precision together with its prediction rate, and against a baseline by "
        "precision improvement on the same targets.",
        "See how a baseline depends on what the attacker knows, on the model, on the tolerance rule and on "
        "the data it is fitted on (members or a synthetic copy).",
    ),
    assumes="what precision is, what a logistic regression and a Lasso fit, and basic pandas.",
    exercises=(
        Exercise(
            "more_iterations",
            {"max_iter": 1000},
            {"a4_mean_cat": "mean baseline precision, categorical secrets, all other attributes known (Adult)",
             "a4_mean_all": "mean baseline precision, every secret, all other attributes known (Adult)",
             "n_perfect5": "categorical secrets reaching precision 1.0 (the paper's Fig 5)"},
            intervals={"n_perfect5": "perfect5_ci"},
        ),
        Exercise(
            "relative_tolerance",
            {"tolerance_basis": "relative"},
            {"a4_mean_cont": "mean baseline precision, continuous secrets, all other attributes known (Adult)",
             "pi_spread": "largest spread of PI over the error bounds",
             "pi_spread_secret": "the secret with that spread",
             "v_pi": "verdict on 'PI is independent of the error bound'"},
            base={"pi_tolerances": [0.01, 0.02, 0.05, 0.1, 0.2]},  # the chapter's bounds: two show no spread
            explain="Under the text's rule the continuous baselines' mean precision {a4_mean_cont:change}; the "
                    "largest spread of PI over the error bounds {pi_spread:change} (for {pi_spread_secret}).",
        ),
        Exercise(
            "smaller_pii",
            {"adult_pii": ["age", "sex"]},
            {"a4_mean_pii": "mean baseline precision, PII known (Adult)",
             "a4_mean_all": "mean baseline precision, all other attributes known (Adult)",
             "a4_pii_higher": "secrets where the PII-only baseline is higher"},
        ),
        Exercise(
            "coarse_synthesizer",
            {"synth_min_leaf": 200},
            {"share_close8": "share of secrets whose prior baseline is within 0.05 of the non-member one",
             "drop8": "largest drop of the prior baseline", "drop8_secret": "for which secret"},
        ),
        Exercise(
            "census_all_attributes",
            {"census_attributes": CENSUS_ATTRIBUTES},
            {"c4_mean_all": "mean baseline precision, all other attributes known (Census-Income)",
             "c4_mean_pii": "mean baseline precision, PII known (Census-Income)",
             "c4_n_secrets": "secrets of Census-Income"},
        ),
        Exercise(
            "little_noise",
            {"naive_epsilon": 100.0},
            {"naive_pi_nb": "PI over the naive-Bayes baseline (every target)",
             "naive_pi_lr": "PI over the logistic-regression baseline (every target)"},
        ),
    ),
)


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------


def _kinds_as_fig3(df: pd.DataFrame) -> dict[str, str]:
    """BankChurners' attribute kinds as in [FW24] Fig 3: numeric columns continuous, text columns categorical."""
    return {c: nm.CONTINUOUS if pd.api.types.is_numeric_dtype(df[c]) else nm.CATEGORICAL for c in df.columns}


def load_table(dataset: str, *, n_rows: int | None = None, census_attributes: Sequence[str] = CENSUS_ATTRIBUTES,
               path: str | None = None, seed: int = 0) -> tuple[pd.DataFrame, dict[str, str]]:
    """The table and attribute kinds of a data set, sampled to ``n_rows`` rows.

    * ``adult``: ``adult.data`` without rows with a missing value (30,162),
      without ``fnlwgt`` (a sampling weight, not an attribute of a person);
    * ``census``: the ``census_attributes`` of KDD Census-Income (train, 199,523 rows);
    * ``bankchurners``: the user's file, every row (10,127), ``CLIENTNUM``
      dropped; kinds as in [FW24] Fig 3 (the text columns are categorical).

    Kinds elsewhere follow :func:`~anonlab.measures.nonmember.attribute_kinds`.
    """
    from anonlab.data import load_adult, load_bank_churners, load_census_income

    if dataset == "adult":
        df = load_adult(drop_missing="any").drop(columns=["fnlwgt"])
    elif dataset == "census":
        df = load_census_income()[list(census_attributes)]
    elif dataset == "bankchurners":
        df = load_bank_churners(path).drop(columns=["CLIENTNUM"])
        return df.reset_index(drop=True), _kinds_as_fig3(df)
    else:
        raise ParameterError(f"unknown data set {dataset!r}; one of adult, census, bankchurners")
    if n_rows is not None and n_rows < len(df):
        df = df.sample(n=n_rows, random_state=seed)
    df = df.reset_index(drop=True)
    return df, nm.attribute_kinds(df)


def census_secrets_of(p: Mapping[str, Any]) -> list[str]:
    """The secrets of the Census-Income panel of a run: ``secrets`` it has, else ``census_secrets``, else all.

    >>> census_secrets_of({"census_attributes": ["a", "b", "c"], "secrets": [], "census_secrets": ["b"]})
    ['b']
    """
    cols = list(p["census_attributes"])
    return ([c for c in cols if c in p["secrets"]] or [c for c in cols if c in p["census_secrets"]] or cols)


def settings_from(p: Mapping[str, Any], **change: Any) -> nm.ModelSettings:
    """The model settings of a run's parameters (``change`` overrides some: ``tolerance_basis="relative"``)."""
    q = {**p, **change}
    return nm.ModelSettings(C=q["C"], alpha=q["alpha"], max_iter=q["max_iter"], tolerance=q["tolerance"],
                            tolerance_basis=q["tolerance_basis"])


def prepare(p: Mapping[str, Any], dataset: str) -> dict[str, Any]:
    """Load a data set for a run and split it: table, kinds, split, PII set, secrets, label and ``key``.

    Adult and Census-Income are sampled to ``n_members + n_non_members``
    rows (the size of BankChurners by default); BankChurners is used whole.
    ``key`` names everything the prepared data depend on, for
    :meth:`~anonbook.chapters.kit.ChapterRun.cached` (the user's file by
    path, size and modification time).
    """
    n = p["n_members"] + p["n_non_members"]
    key: dict[str, Any] = {"dataset": dataset, "n_members": p["n_members"], "n_non_members": p["n_non_members"],
                           "seed": p["seed"]}
    if dataset == "bankchurners":
        table, kinds = load_table("bankchurners", path=p["bankchurners_path"])
        pii = BANKCHURNERS_PII
        if n > len(table):
            raise ParameterError(f"parameter 'n_members' + 'n_non_members' = {n} exceeds BankChurners' "
                                 f"{len(table)} rows")
        st = os.stat(p["bankchurners_path"])
        key["file"] = [str(p["bankchurners_path"]), st.st_size, st.st_mtime]
    else:
        table, kinds = load_table(dataset, n_rows=n, census_attributes=p["census_attributes"], seed=p["seed"])
        pii = p["adult_pii"] if dataset == "adult" else p["census_pii"]
        if dataset == "census":
            key["census_attributes"] = list(p["census_attributes"])
    split = nm.split_members(table, p["n_members"], p["n_non_members"], seed=p["seed"])
    # the requested secrets this data set has; none of them (or none requested): Census-Income's own
    # secrets (census_secrets), else every attribute (census_secrets_of)
    secrets = census_secrets_of(p) if dataset == "census" else \
        [c for c in table.columns if c in p["secrets"]] or list(table.columns)
    key.update(pii=list(pii), secrets=secrets)
    return {"name": dataset, "label": LABELS[dataset], "table": table, "kinds": kinds, "split": split,
            "pii": list(pii), "secrets": secrets, "key": key, "fits": nm.FitStore()}


# ---------------------------------------------------------------------------
# the figures, each on a prepared data set ``d`` (:func:`prepare`)
# ---------------------------------------------------------------------------


def _members(d: Mapping[str, Any]) -> pd.DataFrame:
    return d["table"].loc[d["split"].members]


def _non_members(d: Mapping[str, Any]) -> pd.DataFrame:
    return d["table"].loc[d["split"].non_members]


def fig4(d: Mapping[str, Any], settings: nm.ModelSettings) -> pd.DataFrame:
    """Baseline precision per secret, all other attributes vs PII only (§4.4, Fig 4)."""
    return nm.framework_table(_members(d), _non_members(d), list(d["secrets"]),
                              {"all other attributes": None, "PII only": list(d["pii"])}, kinds=d["kinds"],
                              settings=settings, fits=d.get("fits"))[0]


def fig5(d: Mapping[str, Any], settings: nm.ModelSettings, min_predictions: int, *, n_boot: int = 200,
         seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """Precision against prediction rate for every categorical secret, at every threshold (§4.5, Fig 5).

    The logistic regression with all other attributes known, thresholded on
    :math:`p_{max}` at each of its distinct values
    (:func:`~anonlab.measures.nonmember.confidence_walk`). Returns the
    curves; per secret, whether (and at what prediction rate) precision
    reaches 1.0 with at least 1 and at least ``min_predictions``
    predictions, and in what share of ``n_boot`` bootstrap samples of the
    targets it does (:func:`~anonlab.measures.nonmember.perfect_bootstrap`);
    and the count of such secrets in each bootstrap sample (the same
    samples for every secret), for its interval.
    """
    table, kinds, split = d["table"], d["kinds"], d["split"]
    curves, summary, boots = [], [], []
    for secret in [c for c in d["secrets"] if kinds[c] == nm.CATEGORICAL]:
        res = nm.nonmember_baseline(table, secret, members=split.members, targets=split.non_members,
                                    kinds=kinds, settings=settings, analysis="model", fits=d.get("fits"))
        c = nm.confidence_walk(res).assign(secret=secret)
        curves.append(c)
        p1, pk = nm.perfect_precision(c, 1), nm.perfect_precision(c, min_predictions)
        boot = nm.perfect_bootstrap(res, min_predictions, n_boot=n_boot, seed=seed)
        boots.append(boot)
        summary.append({"secret": secret, "precision at PR 1": float(c["precision"].iloc[0]),
                        "thresholds": len(c),
                        "perfect (≥1 prediction)": p1["perfect"], "PR at precision 1 (≥1)": p1["prediction_rate"],
                        f"perfect (≥{min_predictions} predictions)": pk["perfect"],
                        f"PR at precision 1 (≥{min_predictions})": pk["prediction_rate"],
                        "perfect in bootstrap samples": float(boot.mean())})
    if not curves:
        empty = pd.DataFrame(columns=["secret", "threshold", "predictions", "correct", "prediction_rate", "precision"])
        return empty, pd.DataFrame(columns=["secret", "perfect (≥1 prediction)",
                                            f"perfect (≥{min_predictions} predictions)"]), np.zeros(n_boot, int)
    return pd.concat(curves, ignore_index=True), pd.DataFrame(summary), np.sum(boots, axis=0)


#: The L1 strengths of the explorable Fig 5 (with the run's own ``C``): from "majority vote" to a weak penalty.
EXPLORE_C = (0.001, 0.003, 0.01, 0.03, 0.1)


def fig5_curves(d: Mapping[str, Any], settings: nm.ModelSettings) -> pd.DataFrame:
    """Fig 5's curves alone (:func:`fig5` without its summary and bootstrap), for the explorable figure's frames."""
    kinds, split = d["kinds"], d["split"]
    curves = [nm.confidence_walk(nm.nonmember_baseline(d["table"], s, members=split.members, targets=split.non_members,
                                                       kinds=kinds, settings=settings, analysis="model",
                                                       fits=d.get("fits"))).assign(secret=s)
              for s in d["secrets"] if kinds[s] == nm.CATEGORICAL]
    return pd.concat(curves, ignore_index=True) if curves else pd.DataFrame(columns=["secret", "predictions"])


def fig6(d: Mapping[str, Any], settings: nm.ModelSettings, fractions: Sequence[float], seed: int) -> pd.DataFrame:
    """The replication test (§4.6, Fig 6) on the members, as many targets as non-members."""
    return nm.replication_test(_members(d), list(d["secrets"]), fractions, n_targets=int(d["split"].non_members.size),
                               kinds=d["kinds"], settings=settings, seed=seed, fits=d.get("fits"))


def replication_effects(rep: pd.DataFrame, min_effect: float = REPLICATION_MIN_EFFECT) -> pd.DataFrame:
    """Per secret: the change of precision at the largest replication, and whether it is significant.

    Significant: the change exceeds ``min_effect`` and a two-proportion z
    test at the 5 % level (|z| > :func:`~anonlab.intervals.z_critical`, 1.96). [FW24] §4.6 counts two such
    attributes on BankChurners.

    >>> rep = pd.DataFrame({"fraction": [0.0, 1.0, 0.0, 1.0], "secret": ["a", "a", "b", "b"],
    ...                     "kind": ["continuous"] * 4, "precision": [0.5, 0.6, 0.5, 0.51],
    ...                     "targets": [3000] * 4})
    >>> replication_effects(rep)["significant"].tolist()
    [True, False]
    """
    top = rep["fraction"].max()
    rows = []
    for secret, g in rep.groupby("secret", sort=False):
        p0 = g.loc[g["fraction"] == 0.0].iloc[0]
        p1 = g.loc[g["fraction"] == top].iloc[0]
        diff = float(p1.precision - p0.precision)
        z = float(two_proportion_z(p1.precision, p1.targets, p0.precision, p0.targets))
        rows.append({"secret": secret, "kind": p0.kind, "precision (none)": float(p0.precision),
                     f"precision ({top:.0%})": float(p1.precision), "change": diff, "z": z,
                     "significant": bool(abs(diff) > min_effect and abs(z) > z_critical(0.95))})
    return pd.DataFrame(rows)


def replication_count_interval(rep: pd.DataFrame, n_boot: int = 200, seed: int = 0,
                               min_effect: float = REPLICATION_MIN_EFFECT) -> tuple[float, float]:
    """95 % interval of the number of secrets whose precision changes significantly (:func:`replication_effects`).

    A parametric bootstrap: each secret's precision without and with the
    largest replication is redrawn as a binomial share of its targets
    (``n_boot`` times, one generator seeded with ``seed``) and the
    significant changes counted again; the percentile interval of the counts.

    >>> rep = pd.DataFrame({"fraction": [0.0, 1.0], "secret": ["a", "a"], "kind": ["continuous"] * 2,
    ...                     "precision": [0.5, 0.6], "targets": [3000, 3000]})
    >>> replication_count_interval(rep)
    (1.0, 1.0)
    """
    rng = np.random.default_rng(seed)
    top = rep["fraction"].max()
    base = rep[rep["fraction"] == 0.0].set_index("secret")
    high = rep[rep["fraction"] == top].set_index("secret").loc[base.index]
    n0, n1 = base["targets"].to_numpy(int), high["targets"].to_numpy(int)
    p0 = rng.binomial(n0, base["precision"].to_numpy(float), size=(n_boot, n0.size)) / n0
    p1 = rng.binomial(n1, high["precision"].to_numpy(float), size=(n_boot, n1.size)) / n1
    z = two_proportion_z(p1, n1, p0, n0)
    counts = np.sum((np.abs(p1 - p0) > min_effect) & (np.abs(z) > z_critical(0.95)), axis=1)
    return percentile_interval(counts)


def fig8(d: Mapping[str, Any], settings: nm.ModelSettings, *, min_leaf: int, seed: int,
         synthesizer: str = "cart") -> pd.DataFrame:
    """Non-member vs prior framework, all other attributes known (§4.7, Fig 8).

    The prior framework fits the same analysis on a synthetic copy of the
    members (``synthesizer``: "cart", sequential CART,
    :func:`~anonlab.mechanisms.synthesis.cart_synthesize`; or "marginals",
    independent columns) and predicts the same non-members. Returns the
    comparison table.
    """
    from anonlab.mechanisms.synthesis import SYNTHESIZERS

    members, kinds, secrets = _members(d), d["kinds"], list(d["secrets"])
    synthetic = SYNTHESIZERS[synthesizer](members, min_leaf=min_leaf, kinds=kinds, seed=seed)
    known = {"all other attributes": None}
    non, _ = nm.framework_table(members, _non_members(d), secrets, known, kinds=kinds, settings=settings,
                                fits=d.get("fits"))
    prior, _ = nm.framework_table(synthetic, _non_members(d), secrets, known, kinds=kinds, settings=settings,
                                  framework="prior", fits=d.get("fits"))
    cmp_ = non[["secret", "kind", "precision"]].rename(columns={"precision": "non-member"})
    cmp_["prior (synthetic)"] = prior["precision"].to_numpy()
    cmp_["difference"] = cmp_["prior (synthetic)"] - cmp_["non-member"]
    cmp_["non-member low"], cmp_["non-member high"] = non["precision_low"].to_numpy(), non["precision_high"].to_numpy()
    cmp_["prior low"], cmp_["prior high"] = prior["precision_low"].to_numpy(), prior["precision_high"].to_numpy()
    return cmp_


def prior_gaps(cmp_: pd.DataFrame, close: float = CLOSE) -> dict[str, Any]:
    """How often the prior framework's baseline is within ``close`` of the non-member one, and the largest drop.

    >>> prior_gaps(pd.DataFrame({"secret": ["a", "b"], "difference": [-0.01, -0.5]}))["share_close"]
    0.5
    """
    d = cmp_["difference"].to_numpy(dtype=float)
    worst = int(np.argmin(d))
    return {"share_close": float(np.mean(np.abs(d) <= close)), "n": int(d.size),
            "largest_drop_secret": str(cmp_["secret"].iloc[worst]), "largest_drop": float(d[worst])}


# ---------------------------------------------------------------------------
# beyond the figures: the prior framework's flattery, the outlier attack of §2
# ---------------------------------------------------------------------------


def apparent_improvement(cmp_: pd.DataFrame) -> pd.DataFrame:
    """PI that an attack merely matching the non-member baseline shows against the prior framework's baseline.

    An attack with :math:`P_{atk} = P_{non}` does no better than an allowed
    inference (PI 0 against the non-member baseline) but scores
    :math:`(P_{non} - P_{prior}) / (1 - P_{prior})` against the prior
    framework's ([FW24] §4.7, "an attack substantially exceeds the
    artificially low baseline").

    >>> apparent_improvement(pd.DataFrame({"secret": ["x"], "non-member": [1.0], "prior (synthetic)": [0.2]}))["apparent PI"].tolist()
    [1.0]
    """
    out = cmp_[["secret", "non-member", "prior (synthetic)"]].copy()
    out["apparent PI"] = precision_improvement(out["non-member"].to_numpy(float),
                                               out["prior (synthetic)"].to_numpy(float))
    return out.sort_values("apparent PI", ascending=False).reset_index(drop=True)


def outlier_attack(n: int = 10_000, outlier_z: float = 2.5, seed: int = 0) -> tuple[AttackResult, AttackResult]:
    """[FW24] §2's example on synthetic people: an attack that predicts only for outliers.

    Salary :math:`x \\sim N(0, 1)`; the secret is "high income" (true when
    :math:`x + e > 0`, :math:`e \\sim N(0, 0.5^2)`). The attack predicts
    only for people with :math:`|x| > z` (outliers), the sign of :math:`x`;
    the comparison predicts for everyone.

    >>> out, every = outlier_attack(seed=1)
    >>> score(out).precision > 0.99 and score(out).coverage < 0.03, round(score(every).coverage, 1)
    (True, 1.0)
    """
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    truth = (x + rng.normal(scale=0.5, size=n)) > 0
    guess = x > 0
    out = AttackResult("outliers only", np.arange(n), truth, np.abs(x) > outlier_z, guess)
    every = AttackResult("everyone", np.arange(n), truth, np.ones(n, dtype=bool), guess)
    return out, every


# ---------------------------------------------------------------------------
# claim measurements
# ---------------------------------------------------------------------------


def measure_s1() -> dict[str, Measurement]:
    """§1: the base-rate example (chapter 7's :func:`~anonlab.measures.base_rates.worked_example`)
    and the 80 % majority guess (a constant "male" guess for 100 computer scientists, 80 of them men)."""
    out: dict[str, Measurement] = {}
    for key in ("balanced", "skewed"):
        p = claim(f"fw.s1.base_rate.{key}.precision").params
        ex = base_rates.worked_example(p["population"], p["fpr"], p["fnr"], p["member_share"]).iloc[0]
        out[f"fw.s1.base_rate.{key}.tp"] = Measurement(float(ex["tp"]), note="TP = (1 − FNR) · members")
        out[f"fw.s1.base_rate.{key}.fp"] = Measurement(float(ex["fp"]), note="FP = FPR · non-members")
        out[f"fw.s1.base_rate.{key}.precision"] = Measurement(
            float(ex["precision"]), note=f"{ex['tp']:g} / ({ex['tp']:g} + {ex['fp']:g})")
    people = np.array(["male"] * 80 + ["female"] * 20)
    r = majority_baseline(people)
    out["fw.s1.majority_sex_example"] = Measurement(
        score(r).precision, n=people.size, note="constant majority guess on 80 men, 20 women: precision = majority share")
    return out


def measure_s2(seed: int = 0) -> dict[str, Measurement]:
    """§2: the outlier-only attack has high precision and a low prediction rate."""
    out, every = outlier_attack(seed=seed)
    so, se = score(out), score(every)
    holds = bool(so.precision >= HIGH_PRECISION and so.coverage <= 0.1 and so.precision > se.precision)
    return {"fw.s2.outlier_attack_low_coverage": Measurement(
        holds, note=f"outliers only: precision {so.precision:.3f}, PR {so.coverage:.3f}; "
                    f"everyone: precision {se.precision:.3f}, PR {se.coverage:.1f}")}


def measure_s4_3() -> dict[str, Measurement]:
    """§4.3's two PI examples (Eq 6)."""
    out = {}
    for i in (1, 2):
        p = claim(f"fw.s4_3.pi_example_{i}").params
        out[f"fw.s4_3.pi_example_{i}"] = Measurement(
            float(precision_improvement(p["p_atk"], p["p_base"])),
            note=f"({p['p_atk']} − {p['p_base']}) / (1 − {p['p_base']})")
    return out


def measure_adult(pi_table: pd.DataFrame, cvr: pd.DataFrame, *, close: float = CLOSE) -> dict[str, Measurement]:
    """The claims the book tests on Adult: PI vs the error bound (§4.3), relaxed vs complete (§4.2).

    PI's dependence on the bound is measured as the spread of PI (max −
    min over the bounds) of the continuous secret whose bootstrap interval
    of the spread lies highest (the strongest evidence of a dependence),
    with that interval (``pi_table``'s ``spread_low``/``spread_high``, from
    :func:`~anonlab.measures.nonmember.pi_vs_tolerance`); the ledger
    accepts a spread up to ``close``. The relaxed baseline is "close" to the
    complete one when their precisions differ by at most ``close`` for every
    secret tested.
    """
    per = pi_table.groupby("secret")[["spread", "spread_low", "spread_high"]].first().dropna(subset=["spread"])
    diffs = cvr.set_index("secret")["difference"].abs()
    if len(per):
        top = per.sort_values(["spread_low", "spread"], ascending=False).iloc[0]
        pi_m = Measurement(float(top["spread"]), ci=(float(top["spread_low"]), float(top["spread_high"])),
                           note=f"Adult, all-attributes Lasso vs PII-only Lasso: PI spread over the bounds "
                                f"{top['spread']:.3f} for {top.name} (95 % bootstrap interval "
                                f"{top['spread_low']:.3f} to {top['spread_high']:.3f}); largest spread "
                                f"{per['spread'].max():.3f} ({per['spread'].idxmax()})")
    else:
        pi_m = Measurement(None, note="no continuous secret")
    return {
        "fw.s4_3.pi_independent_of_error": pi_m,
        "fw.s4_2.relaxed_close_to_complete": Measurement(
            bool((diffs <= close).all()), n=int(cvr["targets"].iloc[0]),
            note="Adult: |P_complete − P_relaxed| = " + ", ".join(f"{s} {d:.3f}" for s, d in diffs.items())
                 + f" (≤ {close} counts as close)"),
    }


BANKCHURNERS_IDS = [
    "fw.s4_4.bankchurners.rows", "fw.fig3.n_categorical", "fw.fig3.n_continuous", "fw.fig3.n_pii",
    "fw.fig3.distinct_values", "fw.s4_4.split.non_members", "fw.s4_4.split.members", "fw.fig4.prediction_rate",
    "fw.fig4.some_baselines_high", "fw.fig4.all_vs_pii", "fw.fig4.no_categorical_perfect",
    "fw.fig5.threshold_tradeoff", "fw.fig5.perfect_precision_count", "fw.fig6.replication_effect",
    "fw.fig8.usually_close", "fw.fig8.total_revolving_bal.nonmember", "fw.fig8.total_revolving_bal.prior",
]


def fig4_findings(f4: pd.DataFrame) -> dict[str, Any]:
    """What Fig 4 shows, in numbers: the highest baseline, all vs PII, categorical secrets at precision 1."""
    wide = f4.pivot(index="secret", columns="known", values="precision")
    both = wide.dropna()
    cat = f4[(f4["kind"] == nm.CATEGORICAL) & (f4["known"] == "all other attributes")]
    return {"max_precision": float(f4["precision"].max()),
            "max_secret": str(f4.loc[f4["precision"].idxmax(), "secret"]),
            "mean_all": float(both["all other attributes"].mean()), "mean_pii": float(both["PII only"].mean()),
            "pii_higher": [str(s) for s in both.index[both["PII only"] > both["all other attributes"] + 1e-12]],
            "categorical_perfect": int((cat["precision"] >= 1 - 1e-12).sum()),
            "mean_categorical": float(cat["precision"].mean()),
            "mean_continuous": float(f4.loc[(f4["kind"] == nm.CONTINUOUS)
                                            & (f4["known"] == "all other attributes"), "precision"].mean()),
            "prediction_rate": float(f4["prediction_rate"].min())}


def threshold_tradeoff(curves: pd.DataFrame, min_predictions: int) -> dict[str, Any]:
    """Does raising p_thresh raise precision (for most categorical secrets) while PR falls?

    Per secret: PR never rises with the threshold, and the precision at the
    highest threshold leaving ``min_predictions`` predictions exceeds the
    precision at PR 1.
    """
    ok = {}
    for secret, c in curves.groupby("secret", sort=False):
        c = c.sort_values("threshold")
        pr_falls = bool(np.all(np.diff(c["prediction_rate"].to_numpy()) <= 1e-12))
        enough = c[c["predictions"] >= min_predictions]
        ok[secret] = pr_falls and len(enough) > 0 and float(enough["precision"].iloc[-1]) > float(c["precision"].iloc[0])
    return {"holds": sum(ok.values()) > len(ok) / 2, "per_secret": ok}


#: Why a BankChurners claim that counts the file itself cannot be answered by a stand-in (the claims outside
#: :data:`STAND_IN_IDS`; words only, the numbers are the ledger's and the run's).
NO_STAND_IN = {
    "fw.s4_4.bankchurners.rows": "the row count of BankChurners' own file, which no stand-in can have",
    "fw.fig3.n_categorical": "a count of BankChurners' text columns (Fig 3), a property of that file alone",
    "fw.fig3.n_continuous": "a count of BankChurners' numeric columns (Fig 3), a property of that file alone",
    "fw.fig3.n_pii": "whether the paper's PII columns are in the file: they are BankChurners' own columns",
    "fw.fig3.distinct_values": "Fig 3's distinct-value count of each of BankChurners' columns, against the file",
    "fw.s4_4.split.non_members": "the paper's split of BankChurners; the stand-ins are drawn to this size by the "
                                 "chapter's n_non_members, so they cannot test it",
    "fw.s4_4.split.members": "the paper's split of BankChurners; the stand-ins are drawn to this size by the "
                             "chapter's n_members, so they cannot test it",
    "fw.fig8.total_revolving_bal.nonmember": "the non-member baseline of BankChurners' Total_Revolving_Bal, a "
                                             "column no stand-in has",
    "fw.fig8.total_revolving_bal.prior": "the prior-framework baseline of BankChurners' Total_Revolving_Bal, a "
                                         "column no stand-in has",
}


def _said(x: Any) -> str:
    """A stand-in's value in words: ``holds`` / ``does not hold`` for a statement, else the number."""
    if isinstance(x, (bool, np.bool_)):
        return "holds" if x else "does not hold"
    return f"{x:.3g}" if isinstance(x, float) else str(x)


def unavailable_notes(stand_in: pd.DataFrame | None = None) -> dict[str, str]:
    """The note of each BankChurners claim when the file is not given: what it would measure and why it is not.

    ``stand_in`` is :func:`stand_in_checks`'s table: for the claims it covers
    the note says what the same test gives on the stand-in and what the rules
    would say of that value (which says nothing of BankChurners itself);
    the others say why no stand-in can answer them (:data:`NO_STAND_IN`).
    """
    need = "needs Kaggle's BankChurners.csv (bankchurners_path), which no package ships"
    rows = {} if stand_in is None else stand_in.set_index("claim").to_dict("index")
    label = next((c[3:] for c in ([] if stand_in is None else stand_in.columns) if c.startswith("on ")), "")
    notes = {}
    for cid in BANKCHURNERS_IDS:
        if cid in NO_STAND_IN:
            notes[cid] = f"{need}: {NO_STAND_IN[cid]}"
        elif cid in rows:
            r = rows[cid]
            how = f" ({r['how']})" if r.get("how") else ""
            notes[cid] = (f"{need}; on {label} the same test gives {_said(r[f'on {label}'])}{how}, which the rules "
                          f"would read as {r['the rules on this value']}, but it says nothing of BankChurners itself")
        else:
            notes[cid] = f"{need}; its test needs BankChurners' own figures"
    return notes


def measure_bankchurners(raw: pd.DataFrame | None, *, f4: pd.DataFrame | None = None,
                         f5_summary: pd.DataFrame | None = None, f5_curves: pd.DataFrame | None = None,
                         rep_effects: pd.DataFrame | None = None, f8: pd.DataFrame | None = None,
                         split: nm.MemberSplit | None = None, pii: Sequence[str] = BANKCHURNERS_PII,
                         min_predictions: int = 10, stand_in: pd.DataFrame | None = None,
                         f5_boot: np.ndarray | None = None,
                         rep: pd.DataFrame | None = None, seed: int = 0) -> dict[str, Measurement]:
    """The BankChurners claims: measured from the user's file, or not measured (``None``) without it.

    ``raw`` is the loaded table (without ``CLIENTNUM``); without it every
    claim is ``Measurement(None)`` with its own note (:func:`unavailable_notes`,
    with ``stand_in``, :func:`stand_in_checks`'s table of what the same tests
    give on the stand-in data). The counts and precisions that
    rest on the random split carry an interval: the perfect-precision count
    from ``f5_boot`` (:func:`fig5`'s bootstrap counts), the replication
    count from ``rep`` (:func:`replication_count_interval`), the
    precisions of Fig 8 their Wilson intervals.
    """
    if raw is None:
        return {cid: Measurement(None, note=note) for cid, note in unavailable_notes(stand_in).items()}
    kinds = _kinds_as_fig3(raw)
    distinct = claim("fw.fig3.distinct_values").params["distinct"]
    got = raw.nunique()
    off = {c: int(got.get(c, -1)) for c, v in distinct.items() if int(got.get(c, -1)) != v}
    out = {
        "fw.s4_4.bankchurners.rows": Measurement(len(raw)),
        "fw.fig3.n_categorical": Measurement(sum(k == nm.CATEGORICAL for k in kinds.values()),
                                             note="text columns"),
        "fw.fig3.n_continuous": Measurement(sum(k == nm.CONTINUOUS for k in kinds.values()),
                                            note="numeric columns"),
        "fw.fig3.n_pii": Measurement(sum(c in raw.columns for c in pii), note=", ".join(pii)),
        "fw.fig3.distinct_values": Measurement(not off, note=f"differ: {off}" if off else "all 20 match"),
    }
    if split is not None:
        out["fw.s4_4.split.members"] = Measurement(int(split.members.size))
        out["fw.s4_4.split.non_members"] = Measurement(int(split.non_members.size))
    if f4 is not None:
        f = fig4_findings(f4)
        out["fw.fig4.prediction_rate"] = Measurement(f["prediction_rate"])
        out["fw.fig4.some_baselines_high"] = Measurement(
            f["max_precision"] >= HIGH_PRECISION,
            note=f"highest {f['max_precision']:.3f} ({f['max_secret']}); 'quite high' read as ≥ {HIGH_PRECISION}")
        out["fw.fig4.all_vs_pii"] = Measurement(
            f["mean_all"] > f["mean_pii"],
            note=f"mean over secrets {f['mean_all']:.3f} (all) vs {f['mean_pii']:.3f} (PII); "
                 f"PII higher for: {', '.join(f['pii_higher']) or 'none'}")
        out["fw.fig4.no_categorical_perfect"] = Measurement(f["categorical_perfect"] == 0)
    if f5_summary is not None and f5_curves is not None:
        col = f"perfect (≥{min_predictions} predictions)"
        t = threshold_tradeoff(f5_curves, min_predictions)
        out["fw.fig5.threshold_tradeoff"] = Measurement(
            t["holds"], note=f"holds for {sum(t['per_secret'].values())} of {len(t['per_secret'])} secrets")
        out["fw.fig5.perfect_precision_count"] = Measurement(
            int(f5_summary[col].sum()), ci=None if f5_boot is None else percentile_interval(f5_boot),
            note=f"with ≥ {min_predictions} predictions; with ≥ 1: {int(f5_summary['perfect (≥1 prediction)'].sum())}: "
                 + ", ".join(f5_summary.loc[f5_summary[col], "secret"]))
    if rep_effects is not None:
        sig = rep_effects[rep_effects["significant"]]
        out["fw.fig6.replication_effect"] = Measurement(
            len(sig), ci=None if rep is None else replication_count_interval(rep, seed=seed), note="significant: " + (", ".join(f"{r.secret} ({r.kind}, {r.change:+.3f})"
                                                        for r in sig.itertuples()) or "none"))
    if f8 is not None:
        g = prior_gaps(f8)
        out["fw.fig8.usually_close"] = Measurement(
            g["share_close"] >= 0.5, note=f"{g['share_close']:.0%} of {g['n']} secrets within {CLOSE}; largest drop "
                                          f"{g['largest_drop']:+.3f} ({g['largest_drop_secret']}); CART, not CTGAN")
        if "Total_Revolving_Bal" in set(f8["secret"]):
            row = f8.set_index("secret").loc["Total_Revolving_Bal"]
            out["fw.fig8.total_revolving_bal.nonmember"] = Measurement(
                float(row["non-member"]), ci=(float(row["non-member low"]), float(row["non-member high"])))
            out["fw.fig8.total_revolving_bal.prior"] = Measurement(
                float(row["prior (synthetic)"]), ci=(float(row["prior low"]), float(row["prior high"])),
                note="synthesizer: sequential CART, not CTGAN")
    return {cid: out.get(cid, Measurement(None, note="not computed in this run")) for cid in BANKCHURNERS_IDS}


#: The BankChurners claims whose test needs only the figures, not BankChurners' own columns.
STAND_IN_IDS = ["fw.fig4.prediction_rate", "fw.fig4.some_baselines_high", "fw.fig4.all_vs_pii",
                "fw.fig4.no_categorical_perfect", "fw.fig5.threshold_tradeoff", "fw.fig5.perfect_precision_count",
                "fw.fig6.replication_effect", "fw.fig8.usually_close"]


def stand_in_checks(label: str, *, f4: pd.DataFrame, f5_summary: pd.DataFrame, f5_curves: pd.DataFrame,
                    rep_effects: pd.DataFrame, f8: pd.DataFrame, min_predictions: int = 10) -> pd.DataFrame:
    """The BankChurners claims' tests applied to a stand-in data set's figures (shown, never recorded).

    The same measurements as :func:`measure_bankchurners`, on the figures
    made from ``label`` (Adult by default): what the paper's statement gives
    on other data, which says nothing about BankChurners itself (the
    ledger's verdict stays "data unavailable"). Returns ``claim, paper,
    on <label>, the rules on this value, how`` for :data:`STAND_IN_IDS`,
    where the rules' column is what :func:`anonlab.claims.rules.verdict`
    would say of the value had it been measured on BankChurners.
    """
    out = measure_bankchurners(pd.DataFrame({"_": [0]}), f4=f4, f5_summary=f5_summary, f5_curves=f5_curves,
                               rep_effects=rep_effects, f8=f8, min_predictions=min_predictions)
    return pd.DataFrame([{"claim": cid, "paper": claim(cid).reported, f"on {label}": out[cid].value,
                          "the rules on this value": rules.verdict(claim(cid), out[cid].value), "how": out[cid].note}
                         for cid in STAND_IN_IDS])


# ---------------------------------------------------------------------------
# sentences of the prose that state a result: computed from it, never typed
# ---------------------------------------------------------------------------


def twin_gaps(rep: pd.DataFrame) -> pd.DataFrame:
    """At the largest replication: precision on targets with a twin among the members vs without, per secret.

    ``gap`` = dependent − independent, ``z`` its two-proportion z statistic
    (pooled); a gap means the model recognises twins only if it is both
    larger than :data:`CLOSE` and beyond chance over all secrets
    (Bonferroni: |z| above the two-sided 5 % point for that many tests).

    >>> rep = pd.DataFrame({"fraction": [1.0, 1.0], "secret": ["a", "b"], "precision_dependent": [0.9, 0.5],
    ...                     "precision_independent": [0.5, 0.49], "n_dependent": [500, 500], "targets": [1000, 1000]})
    >>> twin_gaps(rep)["recognised"].tolist()
    [True, False]
    """
    top = rep[rep["fraction"] == rep["fraction"].max()]
    n1 = top["n_dependent"].to_numpy(float)
    n0 = top["targets"].to_numpy(float) - n1
    p1, p0 = top["precision_dependent"].to_numpy(float), top["precision_independent"].to_numpy(float)
    z = two_proportion_z(p1, n1, p0, n0)
    crit = z_critical(1 - 0.05 / max(len(top), 1))  # Bonferroni over the secrets
    gap = p1 - p0
    return pd.DataFrame({"secret": top["secret"].to_numpy(), "gap": gap, "z": z,
                         "recognised": (np.abs(gap) > CLOSE) & (np.abs(z) > crit)})


def twin_phrase(gaps: pd.DataFrame) -> str:
    """What :func:`twin_gaps` says, as the end of a sentence.

    >>> twin_phrase(pd.DataFrame({"secret": ["a"], "recognised": [False]}))[:40]
    'and no gap is both above 0.05 and beyond'
    """
    hit = gaps.loc[gaps["recognised"], "secret"].tolist()
    if not hit:
        return ("and no gap is both above 0.05 and beyond chance, so what changes the baseline is mostly the "
                "larger (duplicated) training set, not a model that recognises a target's twin: the "
                "regularised models do not memorise records")
    return (f"and the gap is above 0.05 and beyond chance for {', '.join(hit)}: there the model recognises "
            "targets' twins among the members, and the baseline is partly a memorising one")


# -- sentences that compare, chosen from the numbers and recorded (issue 34) -----


def all_vs_pii_sentence(mean_all: float, mean_pii: float) -> Sentence:
    """Whether every other attribute helps the mean baseline over PII only (``helps`` / ``does not help``), recorded.

    >>> all_vs_pii_sentence(0.5, 0.6).text
    'does not help'
    """
    return compare("a4_all_vs_pii", mean_all, mean_pii,
                   {"above": "helps", "below": "does not help", "equal": "makes no difference"})


def pi_moves_sentence(spread: float, close: float = CLOSE) -> Sentence:
    """Whether PI moved with the error bound (§4.3), recorded: its largest spread over the bounds against ``close``.

    >>> pi_moves_sentence(0.01).text
    'PI hardly moves with the bound'
    """
    return compare("pi_moves", spread, close, {"above": "PI moves with the bound",
                                               "at or below": "PI hardly moves with the bound"})


def name_list(key: str, names: Sequence[str]) -> Sentence:
    """A list of secrets in the prose, ``"none"`` when it is empty (recorded, so a test can check it).

    >>> name_list("x", []).text, name_list("x", ["age", "sex"]).text
    ('none', 'age, sex')
    """
    return listing(key, list(names), some="{items}", none="none", fmt=str)


def twin_sentence(gaps: pd.DataFrame) -> Sentence:
    """:func:`twin_phrase`, recorded: the secrets whose twin gap is above 0.05 and beyond chance (may be none).

    >>> twin_sentence(pd.DataFrame({"secret": ["a"], "recognised": [False]})).relation
    'none'
    """
    hit = gaps.loc[gaps["recognised"], "secret"].tolist()
    return listing("twin6", hit, fmt=str,
                   some=("and the gap is above 0.05 and beyond chance for {items}: there the model recognises "
                         "targets' twins among the members, and the baseline is partly a memorising one"),
                   none=twin_phrase(gaps))


def naive_sentence(pi_lr: float, pi_nb: float) -> Sentence:
    """:func:`naive_phrase`, recorded: the comparison that decides it (PI over the naive-Bayes baseline against
    0 when the attack improves on the logistic regression, else PI over the logistic regression against 0).

    >>> naive_sentence(0.2, -0.05).relation, naive_sentence(-0.1, 0.2).relation
    ('at or below', 'at or below')
    """
    if pi_lr > 0:
        return compare("naive_verdict", pi_nb, 0, {"above": naive_phrase(pi_lr, 1.0),
                                                   "at or below": naive_phrase(pi_lr, 0.0)})
    return compare("naive_verdict", pi_lr, 0, {"at or below": naive_phrase(0.0, pi_nb)})


def naive_phrase(pi_lr: float, pi_nb: float) -> str:
    """What the naive attack's PI over the two non-member baselines says (Beyond the paper).

    >>> naive_phrase(0.2, -0.05)
    'improves on the logistic-regression baseline but not on the naive-Bayes analysis of the members: its apparent improvement comes from the strength of the analysis, not from the release'
    >>> naive_phrase(0.3, 0.1)
    'improves on both baselines: the release tells the attacker more than the members alone do'
    """
    if pi_nb > 0 and pi_lr > 0:
        return "improves on both baselines: the release tells the attacker more than the members alone do"
    if pi_lr > 0:
        return ("improves on the logistic-regression baseline but not on the naive-Bayes analysis of the members: "
                "its apparent improvement comes from the strength of the analysis, not from the release")
    if pi_nb > 0:
        return "improves on the naive-Bayes analysis of the members but not on the logistic regression"
    return "improves on neither baseline"

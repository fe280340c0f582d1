"""Chapter 4: the census reconstruction attack against the block-majority baseline (F&W §3).

The experiment (:func:`census_experiment`,
through :func:`run_experiment` and the run's result cache) draws a synthetic
block population, publishes its tables exactly, after swapping and with DP
noise at several ε, reconstructs every block with an integer program, links
the reconstruction to commercial-style and to perfect records, and runs the
block-majority baselines beside it. The functions below turn its results
into tables and into the ledger's measurements (:func:`measure_claims`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonlab.attacks.reconstruction import (Reconstruction, block_majority_attack, by_homogeneity, decomposition,
                                            exact_match_rate, linkage_records, person_flags, person_homogeneity,
                                            reconstruct, reconstruction_attack)
from anonlab.data.census_blocks import BlockPopulation, calibrate_alpha, generate_blocks, majority_share
from anonlab.mechanisms.census import TABLE_SETS, publish
from anonlab.attacks.traces import home_work_share
from anonlab.claims import Measurement, claim
from anonbook.memory import MiB, MemoryEstimate, granted_cores
from anonlab.measures import wilson_interval
from anonlab.measures.protocol import AttackResult, score
from anonlab.validation import Param, ParameterError, ParameterSpec, check_scheduler_address
from anonbook.chapters import Chapter, Exercise
from anonbook.chapters.sentences import Sentence, compare, listing

NAME = "04_census_reconstruction"

#: Glue keys of the paper's values quoted in the chapter's prose, and their ledger ids.
PAPER_VALUES = {
    "paper_pub_p": "fw.s3_1.abowd2021.public.precision", "paper_pub_r": "fw.s3_1.abowd2021.public.recall",
    "paper_per_p": "fw.s3_1.abowd2021.perfect.precision", "paper_per_r": "fw.s3_1.abowd2021.perfect.recall",
    "paper_maj_p": "fw.s3_1.block_majority.precision", "paper_maj_r": "fw.s3_1.block_majority.recall",
    "paper_single_p": "fw.s3_1.single_race_blocks.precision", "paper_single_r": "fw.s3_1.single_race_blocks.recall",
    "paper_new_p": "fw.s3_1.new_attack.precision", "paper_new_r_pub": "fw.s3_1.new_attack.recall_public",
    "paper_new_r_per": "fw.s3_1.new_attack.recall_perfect", "paper_warf_marg": "fw.s3_3.warfarin.vs_marginals",
    "paper_warf_non": "fw.s3_3.warfarin.vs_nontraining",
}


#: The ε of the ledger's alternatives for ``fw.s3_1.majority_same_under_dp`` (labels ``ε=<e:g>``).
DP_CLAIM_EPSILONS = (0.5, 1.0, 4.0, 16.0)

#: The two readings of F&W's R (the ledger's alternatives) and the :func:`attack_row` key of each.
R_READINGS = {"correct / people": "recall", "predictions / people": "coverage"}


def _epsilon_in_grid(values: Mapping[str, Any]) -> None:
    if values["epsilon"] not in values["epsilons"]:
        raise ParameterError(f"parameter 'epsilon' must be one of epsilons {values['epsilons']}, "
                             f"got {values['epsilon']!r}")


def _shares_fit(values: Mapping[str, Any]) -> None:
    if values["home_hours"] + values["work_hours"] > 24:
        raise ParameterError("parameters 'home_hours' + 'work_hours' must be at most 24, got "
                             f"{values['home_hours'] + values['work_hours']}")
    if values["mean_block_size"] > values["max_block_size"]:
        raise ParameterError(f"parameter 'mean_block_size' ({values['mean_block_size']}) must not exceed "
                             f"max_block_size ({values['max_block_size']})")


def peak_memory(values: Mapping[str, Any]) -> MemoryEstimate:
    """Peak memory: the kernel and two reconstruction workers, plus what grows with the people simulated.

    Fitted to runs measured by the runner (``peak_memory_mb`` in params.json):
    580 MB with two workers, about 5 KB per census person (blocks x mean
    size), 1.2 KB per trace person, 0.1 KB per warfarin patient, 150 MB per
    local worker beyond two.
    """
    people = values["n_blocks"] * values["mean_block_size"]
    local = 0 if values["scheduler"] else max(0, values["n_workers"] - 2)
    total = (580 * MiB + 5_000 * people + 1_200 * values["trace_people"] + 100 * values["warfarin_patients"]
             + 150 * MiB * local)
    drivers = {k: values[k] for k in ("n_blocks", "mean_block_size", "trace_people", "warfarin_patients")}
    if local:
        drivers["n_workers"] = values["n_workers"]
    return MemoryEstimate(total, drivers)


#: Seconds the up-front check waits for the scheduler to answer.
SCHEDULER_CHECK_TIMEOUT = 3.0


def _scheduler_is_an_address(values: Mapping[str, Any]) -> None:
    """``scheduler`` is an address and a scheduler answers there, checked before any cell runs (the sweep's
    :func:`anonbook.sweep.connect_scheduler`, with a short timeout)."""
    if values["scheduler"] is not None:
        check_scheduler_address("scheduler", values["scheduler"])
        from anonbook.runner import RunError
        from anonbook.sweep import connect_scheduler

        try:
            client = connect_scheduler(values["scheduler"], timeout=SCHEDULER_CHECK_TIMEOUT)
        except RunError as exc:
            raise ParameterError(f"parameter 'scheduler': {exc}") from None
        client.close()


CHAPTER = Chapter(
    name=NAME,
    title="The census reconstruction attack and the block-majority baseline",
    parameters=ParameterSpec([
        Param("n_blocks", "int", 500, "number of synthetic census blocks (the scale run: 2000 or more)", low=1,
              high=100_000),
        Param("mean_block_size", "float", 50.0, "mean people per block (2010: about 50 per populated block)",
              low=1, high=500),
        Param("block_size_shape", "float", 0.6, "negative-binomial shape of block sizes (small: many tiny blocks)",
              low=0.05, high=100),
        Param("max_block_size", "int", 1000, "largest block, people", low=1, high=5000),
        Param("majority_share", "float", 0.75, "share of people in their block's majority group, calibrates "
              "homogeneity", low=0.5, high=0.99),
        Param("homogeneity", "float", None, "Dirichlet concentration of block mixes (small: homogeneous); "
              "None: calibrated to majority_share", low=1e-3, high=100, nullable=True),
        Param("table_set", "choice", "sf1", "tables published per block", choices=tuple(TABLE_SETS)),
        Param("swap_rate", "float", 0.05,
              "share of people whose race/ethnicity is swapped between blocks (2010 mechanism)", low=0, high=1),
        Param("epsilons", "float_list", [0.5, 1.0, 4.0, 16.0], "per-block privacy budgets of the DP "
              "sweep", low=0.01, high=1000, low_inclusive=True, max_len=12),
        Param("epsilon", "float", 4.0, "per-block ε of the DP headline run (one of epsilons)", low=0.01,
              high=1000),
        Param("linkage_coverage", "float", 0.7, "share of people in the commercial (public) records", low=0,
              high=1),
        Param("linkage_error", "float", 0.2, "share of commercial records with a wrong block, sex or age",
              low=0, high=1),
        Param("n_workers", "int", 0, "local worker processes for the reconstruction (0: the cores the build gives "
              "this run, else this machine's, at most 4)", low=0, high=256),
        Param("scheduler", "str", None, "Dask scheduler address (tcp://host:8786); None: local processes",
              nullable=True),
        Param("trace_people", "int", 2000, "people in the §3.2 trace simulation", low=10, high=1_000_000),
        Param("home_hours", "float", 10.0, "mean hours a day at home (§3.2)", low=0, high=24),
        Param("work_hours", "float", 8.0, "mean hours a workday at work (§3.2)", low=0, high=24),
        Param("warfarin_patients", "int", 4000, "patients in the §3.3 worked example", low=20, high=1_000_000),
        Param("seed", "int", 0, "seed of every random draw", low=0),
    ], checks=[_epsilon_in_grid, _shares_fit, _scheduler_is_an_address]),
    quick={"n_blocks": 200, "epsilons": [1.0, 4.0], "n_workers": 0, "trace_people": 300,
           "warfarin_patients": 1000},
    data=(),
    memory=peak_memory,
    goals=(
        "Run a reconstruction attack (an integer program per block) and a linkage, and score the inference "
        "by precision and recall.",
        "Compare an attack with the baseline that needs no reconstruction (the block-majority guess) on the "
        "same people, and find whom the attack really learns something about.",
        "Tell what a synthetic stand-in can and cannot say about claims made on data the book cannot have.",
    ),
    assumes="precision and recall of a classifier, and what a linear (integer) program is; no census background.",
    exercises=(
        Exercise(
            "homogeneous_nation",
            {"homogeneity": 100.0},
            {"maj_p": "block-majority guess: precision (swapped tables)",
             "maj_share_correct": "attack's correct inferences that are block-majority people",
             "per_p": "attack with perfect linkage: precision"},
        ),
        Exercise(
            "basic_tables",
            {"table_set": "sf1_basic"},
            {"unique_sol_share": "people in blocks whose reconstruction is unique",
             "minority_p": "attack precision on block-minority people (perfect linkage)",
             "per_p": "attack with perfect linkage: precision"},
        ),
        Exercise(
            "worse_linkage",
            {"linkage_coverage": 0.5, "linkage_error": 0.5},
            {"pub_p": "attack with public linkage: precision", "pub_r": "attack with public linkage: recall"},
        ),
        Exercise(
            "heavy_swapping",
            {"swap_rate": 0.5},
            {"maj_p": "block-majority guess: precision (swapped tables)",
             "minority_p": "attack precision on block-minority people (perfect linkage)"},
        ),
        Exercise(
            "shorter_days",
            {"home_hours": 8.0, "work_hours": 6.0},
            {"tr_share": "share of simulated hours at home or at work", "tr_arith": "(home + work hours) / 24"},
        ),
    ),
)

#: Parameters that do not change the experiment's results (not in its cache key).
_NOT_IN_KEY = ("n_workers", "scheduler", "trace_people", "home_hours", "work_hours", "warfarin_patients", "use_cache")


def experiment_key(params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters that change the experiment's results (its cache key: all but :data:`_NOT_IN_KEY`)."""
    return {k: v for k, v in params.items() if k not in _NOT_IN_KEY}


# ---------------------------------------------------------------------------
# The chapter's experiment: publish, reconstruct, link, with the baselines beside
# ---------------------------------------------------------------------------

@dataclass
class CensusExperiment:
    """Everything :func:`census_experiment` computed for one set of parameters.

    ``attacks[(mechanism, linkage)]``, ``baselines[(mechanism, kind)]`` are AttackResults (mechanism ``"exact"``,
    ``"swapping"``, ``"dp ε=4"``); ``flags`` per mechanism (:func:`~anonlab.attacks.reconstruction.person_flags`); ``solver`` one row per mechanism.
    """

    alpha: float
    population: pd.Series
    attacks: dict[tuple[str, str], AttackResult] = field(default_factory=dict)
    baselines: dict[tuple[str, str], AttackResult] = field(default_factory=dict)
    flags: dict[str, pd.DataFrame] = field(default_factory=dict)
    solver: pd.DataFrame = field(default_factory=pd.DataFrame)
    epsilons: tuple[float, ...] = ()
    table_sets: pd.DataFrame = field(default_factory=pd.DataFrame)
    block_sizes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


def _mechanisms(params: Mapping[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    out = [("exact", "exact", {}), ("swapping", "swapping", {"swap_rate": params["swap_rate"]})]
    out += [(f"dp ε={e:g}", "dp", {"epsilon": e}) for e in params["epsilons"]]
    return out


def _population(params: Mapping[str, Any]) -> tuple[BlockPopulation, float]:
    size_kw = {"mean_block_size": params["mean_block_size"], "size_shape": params["block_size_shape"],
               "max_block_size": params["max_block_size"]}
    alpha = params["homogeneity"]
    if alpha is None:
        alpha = calibrate_alpha(params["majority_share"], n_blocks=2000, seed=params["seed"] + 1, **size_kw)
    return generate_blocks(params["n_blocks"], alpha=alpha, seed=params["seed"], **size_kw), float(alpha)


def _describe(pop: BlockPopulation, alpha: float) -> pd.Series:
    g = pop.group_counts()
    single = (g > 0).sum(axis=1) == 1
    s = pop.block_sizes
    return pd.Series({"blocks": pop.n_blocks, "people": int(s.sum()), "alpha (homogeneity)": alpha,
                      "mean block size": float(s.mean()), "median block size": float(np.median(s)),
                      "blocks with at most 5 people": float(np.mean(s <= 5)),
                      "largest block": int(s.max()), "people in their block's majority group": majority_share(g),
                      "people in single-group blocks": float(s[single].sum() / s.sum())})


def census_experiment(params: Mapping[str, Any], extra_majority_epsilons: Sequence[float] = (), n_workers: int = 1,
                      parallel_map: Callable[..., Iterable[Any]] | None = None) -> CensusExperiment:
    """[FW24] §3.1 on synthetic blocks: publish, reconstruct, link, with the block-majority baselines beside.

    Exact, swapped and DP tables (each of ``params["epsilons"]``; the majority guess also at
    ``extra_majority_epsilons``), commercial-style and perfect linkage, and the exact tables of every table set
    (:data:`~anonlab.mechanisms.census.TABLE_SETS`); ``n_workers`` and ``parallel_map`` run the solves
    (:func:`~anonlab.attacks.reconstruction.reconstruct`).
    """
    pop, alpha = _population(params)
    exp = CensusExperiment(alpha, _describe(pop, alpha), epsilons=tuple(params["epsilons"]),
                           block_sizes=pop.block_sizes)
    true_counts = pop.type_counts()
    links = {"public": linkage_records(pop, params["linkage_coverage"], params["linkage_error"],
                                       seed=params["seed"] + 2),
             "perfect": linkage_records(pop, 1.0, 0.0, seed=params["seed"] + 2)}
    rows = []
    for i, (label, mech, kw) in enumerate(_mechanisms(params)):
        pub = publish(pop, mech, table_set=params["table_set"], seed=params["seed"] + 10 + i, **kw)
        check = mech != "dp"  # uniqueness under DP costs a second, slower solve per block: off
        rec = reconstruct(pub, check_unique=check, n_workers=n_workers, parallel_map=parallel_map)
        if label == "exact":
            exact_rec = rec
        exp.flags[label] = person_flags(pop, rec if check else None)
        for link, records in links.items():
            exp.attacks[(label, link)] = reconstruction_attack(rec, records, pop,
                                                               name=f"reconstruction, {link} linkage, {label}")
        exp.baselines[(label, "majority")] = block_majority_attack(pub, pop, name=f"block majority, {label}")
        exp.baselines[(label, "single")] = block_majority_attack(
            pub, pop, single_group_only=True, name=f"block majority on single-group blocks, {label}")
        rows.append({"publication": label, "blocks": pop.n_blocks,
                     "unique solution (share of blocks)": float(np.nanmean(rec.unique)) if check else math.nan,
                     "records matching an original exactly": exact_match_rate(rec, true_counts),
                     "solver CPU seconds per block (median)": float(np.median(rec.seconds)),
                     "solver CPU seconds per block (max)": float(rec.seconds.max()),
                     "blocks per CPU second": rec.throughput(),
                     "wall seconds": rec.wall_seconds, "run by": rec.workers})
    exp.solver = pd.DataFrame(rows).set_index("publication")
    for j, e in enumerate(e for e in extra_majority_epsilons if e not in params["epsilons"]):
        # the majority guess only (no reconstruction: the guess reads P5 only)
        pub = publish(pop, "dp", table_set=params["table_set"], epsilon=e, seed=params["seed"] + 100 + j)
        exp.baselines[(f"dp ε={e:g}", "majority")] = block_majority_attack(
            pub, pop, name=f"block majority, dp ε={e:g}")
    exp.table_sets = _table_set_comparison(pop, params, n_workers, parallel_map, {params["table_set"]: exact_rec})
    return exp


def _table_set_comparison(pop: BlockPopulation, params: Mapping[str, Any], n_workers: int,
                          parallel_map: Callable[..., Iterable[Any]] | None,
                          done: Mapping[str, Reconstruction]) -> pd.DataFrame:
    """Exact tables of each table set: unique blocks, exact matches, perfect-linkage precision.

    ``done`` holds reconstructions already computed (the chapter's own table set).
    """
    true_counts = pop.type_counts()
    perfect = linkage_records(pop, 1.0, 0.0, seed=params["seed"] + 2)
    rows = []
    for ts in TABLE_SETS:
        pub = publish(pop, "exact", table_set=ts)
        rec = done.get(ts) or reconstruct(pub, check_unique=True, n_workers=n_workers, parallel_map=parallel_map)
        res = reconstruction_attack(rec, perfect, pop)
        flags = person_flags(pop, rec)
        d = decomposition(res, flags)
        rows.append({"table set": ts, "tables": ", ".join(pub.spec.names), "cells per block": pub.spec.n_cells,
                     "unique solution (share of blocks)": float(np.nanmean(rec.unique)),
                     "records matching an original exactly": exact_match_rate(rec, true_counts),
                     "P, perfect linkage": d.loc["everyone", "precision"],
                     "P, block-minority people": d.loc["block-minority people", "precision"],
                     "P, unique solution and unique sex × age": d.loc["unique solution and unique sex × age bin",
                                                                     "precision"],
                     "blocks per CPU second": rec.throughput()})
    return pd.DataFrame(rows).set_index("table set")


def run_experiment(params: Mapping[str, Any], cached: Callable[..., Any] | None = None) -> CensusExperiment:
    """The reconstruction experiment for these parameters (:func:`census_experiment`).

    ``cached`` is the run's :meth:`~anonbook.chapters.kit.ChapterRun.cached`
    (the result cache, keyed by the parameters that change the results);
    without it the experiment is computed.
    """
    values = CHAPTER.parameters.validate(dict(params))
    key = experiment_key(values)

    def compute() -> CensusExperiment:
        if values["scheduler"]:
            from anonbook.sweep import dask_executor

            with dask_executor(values["scheduler"]) as (executor, threads):
                return census_experiment(values, DP_CLAIM_EPSILONS, threads, executor.map)
        workers = values["n_workers"] or granted_cores()  # 0: the cores the build gives this run
        return census_experiment(values, DP_CLAIM_EPSILONS, workers)

    return compute() if cached is None else cached("experiment", compute, **key)


def attack_row(result: AttackResult, baseline: AttackResult | None = None) -> dict[str, float]:
    """Precision (Wilson interval), coverage and recall of one result; recall = correct / all people.

    F&W's R is read two ways (see the chapter): ``recall`` (correct
    predictions over all people, the reading that fits the Bureau's numbers)
    and ``coverage`` (predictions over all people, the only reading under
    which the majority baseline's P = 0.75 and R = 0.98 can both hold).

    >>> r = AttackResult.from_predictions("t", ["a", "a", "b", "b"], ["a", "b", None, None])
    >>> attack_row(r)["recall"], attack_row(r)["coverage"], attack_row(r)["precision"]
    (0.25, 0.5, 0.5)
    """
    s = score(result, baseline)
    return {"precision": s.precision, "precision_low": s.precision_ci[0], "precision_high": s.precision_ci[1],
            "coverage": s.coverage, "recall": s.n_correct / s.n_targets if s.n_targets else math.nan,
            "predictions": s.n_predictions, "correct": s.n_correct, "people": s.n_targets,
            "baseline_precision": s.baseline_precision, "pi": s.precision_improvement}


def headline_table(exp: CensusExperiment, mechanism: str = "swapping") -> pd.DataFrame:
    """The attack (public and perfect linkage) and the baselines, beside the paper's values."""
    rows = {
        "reconstruction, public linkage": (exp.attacks[(mechanism, "public")],
                                           "fw.s3_1.abowd2021.public"),
        "reconstruction, perfect linkage": (exp.attacks[(mechanism, "perfect")],
                                            "fw.s3_1.abowd2021.perfect"),
        "block majority": (exp.baselines[(mechanism, "majority")], "fw.s3_1.block_majority"),
        "block majority, single-group blocks": (exp.baselines[(mechanism, "single")],
                                                "fw.s3_1.single_race_blocks"),
    }
    out = []
    for label, (res, cid) in rows.items():
        r = attack_row(res, exp.baselines[(mechanism, "majority")] if "reconstruction" in label else None)
        out.append({"inference": label, "paper P": claim(f"{cid}.precision").reported,
                    "paper R": claim(f"{cid}.recall").reported,
                    "P": r["precision"], "P interval": f"[{r['precision_low']:.3f}, {r['precision_high']:.3f}]",
                    "R = correct / people": r["recall"], "coverage = predictions / people": r["coverage"],
                    "majority's P on the same people": r["baseline_precision"], "PI": r["pi"]})
    return pd.DataFrame(out).set_index("inference")


def epsilon_table(exp: CensusExperiment) -> pd.DataFrame:
    """Attack and baseline precision / recall per publication (exact, swapping, each ε)."""
    rows = []
    for label in ["exact", "swapping"] + [f"dp ε={e:g}" for e in exp.epsilons]:
        eps = float(label.split("=")[1]) if label.startswith("dp") else math.nan
        for name, res in [("attack, public linkage", exp.attacks[(label, "public")]),
                          ("attack, perfect linkage", exp.attacks[(label, "perfect")]),
                          ("block majority", exp.baselines[(label, "majority")]),
                          ("single-group blocks", exp.baselines[(label, "single")])]:
            r = attack_row(res)
            rows.append({"publication": label, "epsilon": eps, "inference": name, "precision": r["precision"],
                         "recall": r["recall"], "coverage": r["coverage"]})
    return pd.DataFrame(rows)


# -- sentences that compare, chosen from the numbers (issue 34) -----------------


def precise_sentence(per_p: float, paper_per_p: float) -> Sentence:
    """Whether the synthetic attack (perfect linkage) is more precise than the Bureau's, and why it can be.

    >>> precise_sentence(0.7, 0.75).relation
    'at or below'
    """
    why = ("the sex × age by race tables (P12A-I) pin down the race of everyone who is alone in their sex × age "
           "bin, and our commercial records are matched on age bins, which forgives small age errors")
    return compare("precise_sentence", per_p, paper_per_p, {
        "above": f"Two reasons the synthetic attack can be more precise: {why}",
        "at or below": (f"The synthetic attack is not more precise here, although two things favour it: {why}"),
    })


def conjecture_sentence(decomp: pd.DataFrame) -> Sentence:
    """Francis's conjecture, ``holds`` / ``does not hold``: more than half of the correct inferences are
    block-majority people, with its numbers recorded.

    >>> conjecture_sentence(pd.DataFrame({"share of correct": [0.4]}, index=["block-majority people"])).text
    'does not hold'
    """
    return compare("conjecture", float(decomp.loc["block-majority people", "share of correct"]), 0.5,
                   {"above": "holds", "at or below": "does not hold"})


def minority_sentences(decomp: pd.DataFrame, per_p: float) -> list[Sentence]:
    """What the attack gets right on block-minority people (:func:`~anonlab.attacks.reconstruction.decomposition`).

    ``minority_gain``: its precision there against zero (the baseline's, by construction) and against its
    overall precision ``per_p``; ``minority_strong_form``: whether any correct inference is about a
    block-minority person (if none, F&W's strong form, "the entire success", is what the blocks show).

    >>> d = pd.DataFrame({"precision": [0.0], "correct": [0]}, index=["block-minority people"])
    >>> [s.relation for s in minority_sentences(d, 0.8)]
    ['equal', 'equal']
    """
    row = decomp.loc["block-minority people"]
    p, correct = float(row["precision"]), int(row["correct"])
    if math.isnan(p) or p == 0:
        gain = compare("minority_gain", correct, 0, {"equal": (
            "0, none of its guesses right: no gain over the baseline" if not math.isnan(p) else
            "undefined, since it predicts for none of them: no gain over the baseline")})
    else:
        gain = compare("minority_gain", p, per_p, {
            "below": "{left:.3f}: a real gain, but below its overall precision ({right:.3f})",
            "at or above": "{left:.3f}: a real gain, and no lower than its overall precision ({right:.3f})",
        })
    strong = compare("minority_strong_form", correct, 0, {
        "above": ("Either way the strong form F&W report (\"the entire success\") is not what these blocks show: "
                  "{left:,.0f} correct inferences are about block-minority people, which no majority guess can make"),
        "equal": ("Here the strong form F&W report (\"the entire success\") is what these blocks show: no correct "
                  "inference is about a block-minority person"),
    })
    return [gain, strong]


def new_attack_sentence(new_r: float, paper_new_r: float) -> Sentence:
    """What the newer-attack subpopulation's recall, against the Bureau's, says about unique reconstructions.

    >>> new_attack_sentence(0.2, 0.01).relation
    'above'
    """
    return compare("new_attack_sentence", new_r, paper_new_r, {
        "above": ("A recall this much higher says that these synthetic blocks are more often uniquely "
                  "reconstructable than real ones"),
        "at or below": ("A recall no higher than the Bureau's says that these synthetic blocks are no more often "
                        "uniquely reconstructable than real ones, although they are simpler"),
    })


def dp_sentences(exp: CensusExperiment, epsilon: float, eps_min: float, margin: float = 0.02) -> list[Sentence]:
    """What the DP tables at ``epsilon`` (and the smallest ε, ``eps_min``) do to the guess and the attack, in words.

    ``dp_attack``: the attack's precision (perfect linkage) against the swapped tables'; ``dp_holds``: the
    guess's largest change of precision or recall against ``margin`` (:func:`same_guess`: holds when at or
    below); ``dp_low``: the guess's precision at ``eps_min`` against the swapped tables'; ``dp_single``: the
    single-group variant's recall against the swapped tables'.
    """
    dp = f"dp ε={epsilon:g}"
    sw_guess, dp_guess = attack_row(exp.baselines[("swapping", "majority")]), attack_row(exp.baselines[(dp, "majority")])
    low_guess = attack_row(exp.baselines[(f"dp ε={eps_min:g}", "majority")])
    sw_attack, dp_attack = attack_row(exp.attacks[("swapping", "perfect")]), attack_row(exp.attacks[(dp, "perfect")])
    dp_minority = float(decomposition(exp.attacks[(dp, "perfect")], exp.flags[dp], uniqueness_checked=False)
                        .loc["block-minority people", "precision"])
    change = max(abs(sw_guess["precision"] - dp_guess["precision"]), abs(sw_guess["recall"] - dp_guess["recall"]))
    return dp_sentences_from({
        "dp_per_p": dp_attack["precision"], "per_p": sw_attack["precision"], "dp_minority_p": dp_minority,
        "guess_change": change, "dp_low_maj_p": low_guess["precision"], "maj_p": sw_guess["precision"],
        "dp_single_r": attack_row(exp.baselines[(dp, "single")])["recall"],
        "single_r": attack_row(exp.baselines[("swapping", "single")])["recall"]}, epsilon, eps_min, margin)


def dp_sentences_from(v: Mapping[str, float], epsilon: float, eps_min: float, margin: float = 0.02) -> list[Sentence]:
    """:func:`dp_sentences` from its numbers: ``dp_per_p``, ``per_p``, ``dp_minority_p``, ``guess_change``,
    ``dp_low_maj_p``, ``maj_p``, ``dp_single_r``, ``single_r``.

    >>> v = {"dp_per_p": 0.7, "per_p": 0.8, "dp_minority_p": 0.3, "guess_change": 0.01, "dp_low_maj_p": 0.6,
    ...      "maj_p": 0.75, "dp_single_r": 0.0, "single_r": 0.03}
    >>> [s.relation for s in dp_sentences_from(v, 4.0, 1.0)]
    ['below', 'at or below', 'below', 'below']
    """
    dp_minority, change = v["dp_minority_p"], v["guess_change"]
    dp_attack, sw_attack = {"precision": v["dp_per_p"]}, {"precision": v["per_p"]}
    low_guess, sw_guess = {"precision": v["dp_low_maj_p"]}, {"precision": v["maj_p"]}
    single_dp, single_sw = v["dp_single_r"], v["single_r"]
    return [
        compare("dp_attack", dp_attack["precision"], sw_attack["precision"], {
            "below": (f"while the attack with perfect linkage falls to {{left:.3f}} and to {dp_minority:.3f} on "
                      "block-minority people"),
            "at or above": (f"and the attack with perfect linkage does not fall: {{left:.3f}} (swapped tables: "
                            f"{{right:.3f}}), {dp_minority:.3f} on block-minority people"),
        }),
        compare("dp_holds", change, margin, {
            "at or below": "holds at this ε: noise that blurs individuals leaves a block's majority readable",
            "above": ("does not hold at this ε: the guess's precision or recall moves by {left:.3f}, more than "
                      "{right:g}, so noise of this size blurs even a block's majority"),
        }),
        compare("dp_low", low_guess["precision"], sw_guess["precision"], {
            "below": (f"At ε = {eps_min:g} the guess's precision is {{left:.3f}}, since noise of that size can "
                      "change which group looks largest in a small block"),
            "at or above": (f"At ε = {eps_min:g} the guess's precision is {{left:.3f}}, no lower than on the swapped "
                            "tables: even noise of that size rarely changes which group looks largest"),
        }),
        compare("dp_single", single_dp, single_sw, {
            "below": (f"The single-group variant shrinks under noise (recall {{left:.3f}} at ε = {epsilon:g}, "
                      "{right:.3f} on the swapped tables): a noisy table rarely shows exactly one group"),
            "at or above": (f"The single-group variant does not shrink under noise here (recall {{left:.3f}} at "
                            f"ε = {epsilon:g}, {{right:.3f}} on the swapped tables)"),
        }),
    ]


def trace_sentences(tr_share: float, tr_guess: float, low_end: float) -> list[Sentence]:
    """The simulated home-and-work share against the low end of Xu et al.'s range, and the fixed guess against it.

    >>> [s.relation for s in trace_sentences(0.70, 0.72, 0.73)]
    ['below', 'at or above']
    """
    return [
        compare("trace_low_end", tr_share, low_end, {
            "at or above": ("so a reconstruction that recovers nothing but the two locations the attacker is "
                            f"assumed to know already matches the low end of Xu et al.'s {low_end * 100:.0f}-91 %"),
            "below": ("so a reconstruction that recovers nothing but the two locations the attacker is assumed to "
                      f"know falls short of the low end of Xu et al.'s {low_end * 100:.0f}-91 % with these schedules"),
        }),
        compare("trace_guess", tr_guess, tr_share, {
            "below": ("The naive fixed-schedule guess reaches {left:.1%}, lower because real schedules shift by an "
                      "hour or so and days off differ"),
            "at or above": ("The naive fixed-schedule guess reaches {left:.1%}, as much as the share itself: with "
                            "these schedules, knowing the two locations is all it takes"),
        }),
    ]


def alternatives_sentences(measured: Mapping[str, Measurement]) -> list[Sentence]:
    """The ε at which "the majority guess works as well under DP" holds, and the readings of R under which
    "the majority guess is at least as good as the reconstruction" holds: lists that may be empty.

    >>> m = {"fw.s3_1.majority_same_under_dp": Measurement(False, alternatives={"ε=0.5": False, "ε=4": True}),
    ...      "fw.s3_1.majority_beats_reconstruction": Measurement(False, alternatives={"recall": False})}
    >>> [s.text for s in alternatives_sentences(m)]
    ["holds, of the ledger's per-block ε (0.5, 4), at: ε=4", 'it holds on these blocks under neither reading']
    """
    dp = measured["fw.s3_1.majority_same_under_dp"].alternatives
    beats = measured["fw.s3_1.majority_beats_reconstruction"].alternatives
    all_eps = ", ".join(k.split("=", 1)[-1] for k in dp)
    return [
        listing("majority_same_under_dp_alts", [k for k, v in dp.items() if v], fmt=str,
                some=f"holds, of the ledger's per-block ε ({all_eps}), at: {{items}}",
                none=f"holds at none of the ledger's per-block ε ({all_eps})"),
        listing("majority_beats_reconstruction_alts", [k for k, v in beats.items() if v], fmt=str,
                some="the readings under which it holds on these blocks: {items}",
                none="it holds on these blocks under neither reading"),
    ]


def election_reconstruction(votes_a: int, votes_b: int) -> float:
    """F&W's election example: the tally (votes_a A's, votes_b B's) "reconstructs" every ballot.

    The reconstruction writes down ``votes_a`` A's and ``votes_b`` B's; its
    exact-match rate against the true ballots (one block, two types) is 1.

    >>> election_reconstruction(500, 600)
    1.0
    """
    ballots = np.array([[votes_a, votes_b]])
    rec = Reconstruction(ballots.copy(), np.ones(1), np.zeros(1), np.zeros(1), "exact", 0.0, "")
    return exact_match_rate(rec, ballots)


def majority_beats(attack_public: AttackResult, attack_perfect: AttackResult, majority: AttackResult,
                   r_key: str = "recall") -> bool:
    """Is the majority guess at least as good as the attack against both linkages, R read as ``r_key``?

    At least as good: the majority's precision is not significantly lower
    (its Wilson upper bound reaches the attack's precision) and its R
    (``"recall"``: correct / people, or ``"coverage"``: predictions / people)
    is at least the attack's.

    >>> maj = AttackResult.from_predictions("m", ["a", "a", "b", "b"], ["a", "a", "a", "a"])
    >>> att = AttackResult.from_predictions("t", ["a", "a", "b", "b"], ["a", "b", None, None])
    >>> majority_beats(att, att, maj), majority_beats(att, att, maj, "coverage")
    (True, True)
    """
    m = attack_row(majority)
    return all(m["precision_high"] >= a["precision"] and m[r_key] >= a[r_key]
               for a in (attack_row(attack_public), attack_row(attack_perfect)))


def majority_beats_reconstruction(attack_public: AttackResult, attack_perfect: AttackResult,
                                  majority: AttackResult) -> Measurement:
    """F&W §3.1: the block-majority guess is at least as good as the reconstruction attack.

    :func:`majority_beats` under each reading of R (:data:`R_READINGS`);
    the value is the default reading's (correct / people).
    """
    m = attack_row(majority)
    parts = []
    for label, res in [("public", attack_public), ("perfect", attack_perfect)]:
        a = attack_row(res)
        parts.append(f"{label}: attack P {a['precision']:.3f} R {a['recall']:.3f} coverage {a['coverage']:.3f}")
    note = (f"majority P {m['precision']:.3f} (upper {m['precision_high']:.3f}) R {m['recall']:.3f} coverage "
            f"{m['coverage']:.3f} vs " + "; ".join(parts) + " (synthetic blocks)")
    alts = {label: majority_beats(attack_public, attack_perfect, majority, key) for label, key in R_READINGS.items()}
    return Measurement(alts["correct / people"], n=m["people"], note=note, alternatives=alts)


def same_guess(swapped: AttackResult, dp: AttackResult, margin: float = 0.02) -> bool:
    """Does the guess work as well on DP tables as on swapped ones: precision and recall within ``margin``?

    >>> a = AttackResult.from_predictions("a", ["x", "x", "y", "y"], ["x", "x", "x", "x"])
    >>> b = AttackResult.from_predictions("b", ["x", "x", "y", "y"], ["x", "y", "x", "x"])
    >>> same_guess(a, a), same_guess(a, b)
    (True, False)
    """
    sw, d = attack_row(swapped), attack_row(dp)
    return abs(sw["precision"] - d["precision"]) <= margin and abs(sw["recall"] - d["recall"]) <= margin


def dp_claim_table(exp: CensusExperiment, margin: float = 0.02) -> pd.DataFrame:
    """The majority guess on the swapped tables and on the DP tables at each ε computed, and :func:`same_guess`."""
    sw = exp.baselines[("swapping", "majority")]
    eps = sorted({float(k[0].split("=")[1]) for k in exp.baselines if k[0].startswith("dp") and k[1] == "majority"})
    rows = [{"tables": "swapping", **{k: attack_row(sw)[k] for k in ("precision", "recall")}, "as well": True}]
    for e in eps:
        res = exp.baselines[(f"dp ε={e:g}", "majority")]
        r = attack_row(res)
        rows.append({"tables": f"dp ε={e:g}", "precision": r["precision"], "recall": r["recall"],
                     "as well": same_guess(sw, res, margin)})
    return pd.DataFrame(rows).set_index("tables")


def majority_same_under_dp(exp: CensusExperiment, epsilon: float, margin: float = 0.02) -> Measurement:
    """F&W §3.1: the majority guess works as well on DP tables (at ε) as on swapped ones.

    Holds when both precision and recall (correct / people) differ by at most
    ``margin`` between the swapped publication and the DP one at ``epsilon``
    (:func:`same_guess`); recorded at every ε of the ledger's alternatives
    (:data:`DP_CLAIM_EPSILONS`).
    """
    sw_res = exp.baselines[("swapping", "majority")]
    sw = attack_row(sw_res)
    dp = attack_row(exp.baselines[(f"dp ε={epsilon:g}", "majority")])
    alts = {f"ε={e:g}": same_guess(sw_res, exp.baselines[(f"dp ε={e:g}", "majority")], margin)
            for e in DP_CLAIM_EPSILONS}
    all_eps = ", ".join(f"ε={e:g}: P {attack_row(exp.baselines[(f'dp ε={e:g}', 'majority')])['precision']:.3f}"
                        for e in DP_CLAIM_EPSILONS)
    return Measurement(same_guess(sw_res, exp.baselines[(f"dp ε={epsilon:g}", "majority")], margin),
                       n=sw["people"], alternatives=alts,
                       note=f"swapping P {sw['precision']:.3f} R {sw['recall']:.3f}; DP ε={epsilon:g} P "
                            f"{dp['precision']:.3f} R {dp['recall']:.3f}; criterion |Δ| <= {margin}; {all_eps}")


def share(k: float, n: int) -> Measurement:
    """The share k / n with its 95 % Wilson interval (people or records treated as independent draws).

    >>> m = share(3, 4)
    >>> m.value, [round(x, 3) for x in m.ci]
    (0.75, [0.301, 0.954])
    """
    lo, hi = wilson_interval(round(k), n)
    return Measurement(k / n if n else math.nan, ci=(float(lo), float(hi)), n=n)


def _on_blocks(m: Measurement, what: str, alternatives: Mapping[str, Measurement] | None = None) -> Measurement:
    """A Monte Carlo measurement on the synthetic blocks standing in for the 2010 data (the ledger's
    ``stand_in``), with its interval: a share of people (Wilson; blocks cluster people, so it is a narrow one)."""
    return Measurement(float(m.value), ci=m.ci, n=m.n, note=f"on this chapter's synthetic blocks: {what}",
                       alternatives=alternatives)


def _precision(row: Mapping[str, float]) -> Measurement:
    """One result's precision with its Wilson interval (:func:`attack_row`)."""
    return Measurement(row["precision"], ci=(row["precision_low"], row["precision_high"]), n=int(row["predictions"]))


def _readings(correct: float, predictions: float, people: int) -> dict[str, Measurement]:
    """R under each reading of :data:`R_READINGS` (correct / people, predictions / people), with intervals."""
    return {"correct / people": share(correct, people), "predictions / people": share(predictions, people)}


def _r_claim(row: Mapping[str, float], what: str) -> Measurement:
    """A result's R (default reading: correct / people) under both readings, on the synthetic blocks."""
    alts = _readings(row["correct"], row["predictions"], int(row["people"]))
    return _on_blocks(alts["correct / people"], what, alts)


def measure_claims(exp: CensusExperiment, params: Mapping[str, Any], traces: Mapping[str, float],
                   warfarin: Mapping[str, float]) -> dict[str, Measurement]:
    """Every ledger claim of the chapter, as measurements.

    Claims about the real 2010 Census (the Bureau's and Francis's figures)
    and the warfarin data are measured on the stand-ins (synthetic blocks,
    the synthetic worked example); the ledger's ``stand_in`` makes their
    verdict "illustrated, not tested" whatever the value. Every share is
    recorded with its Monte Carlo interval (Wilson over people; the warfarin
    gains and the trace share with the intervals their functions compute).
    R is recorded under both readings (:data:`R_READINGS`), the DP claim at
    every ε of the ledger. Xu et al.'s figures stay unmeasured (no stand-in
    for their data).
    """
    sw = "swapping"
    pub, per = attack_row(exp.attacks[(sw, "public")]), attack_row(exp.attacks[(sw, "perfect")])
    maj, single = attack_row(exp.baselines[(sw, "majority")]), attack_row(exp.baselines[(sw, "single")])
    flags = exp.flags[sw]
    sub = (flags["unique_solution"] & flags["unique_sex_age"]).to_numpy()
    new_label = "unique solution and unique sex × age bin"
    new_p = decomposition(exp.attacks[(sw, "perfect")], flags).loc[new_label]
    new_pub = decomposition(exp.attacks[(sw, "public")], flags).loc[new_label]
    n_people = max(int(per["people"]), 1)
    new_readings = {k: _readings(d["correct"], d["predictions"], n_people) for k, d in (("public", new_pub),
                                                                                       ("perfect", new_p))}
    votes = claim("fw.s3_1.election_example").params
    hw = claim("fw.s3_2.home_work_share").params
    low_accuracy = claim("fw.s3_2.xu.accuracy_range").reported[0]
    warf = {key: {label: Measurement(warfarin[f"{key}_{k}"], ci=(warfarin[f"{key}_{k}_low"],
                                                                 warfarin[f"{key}_{k}_high"]))
                  for label, k in (("relative", "rel"), ("percentage points", "abs"))}
            for key in ("vs_marginal", "vs_nonmembers")}
    people = int(exp.population["people"])  # tables that fix the total: one reconstructed record per person
    return {
        "fw.s3_1.abowd2019.exact_match": _on_blocks(
            share(exp.solver.loc[sw, "records matching an original exactly"] * people, people),
            "the share of reconstructed records matching an original exactly (swapped tables)"),
        "fw.s3_1.election_example": Measurement(election_reconstruction(votes["votes_A"], votes["votes_B"]),
                                                note="exact-match rate of the tally's reconstruction"),
        "fw.s3_1.abowd2021.public.precision": _on_blocks(_precision(pub), "public-linkage precision"),
        "fw.s3_1.abowd2021.public.recall": _r_claim(pub, "public-linkage R"),
        "fw.s3_1.abowd2021.perfect.precision": _on_blocks(_precision(per), "perfect-linkage precision"),
        "fw.s3_1.abowd2021.perfect.recall": _r_claim(per, "perfect-linkage R"),
        "fw.s3_1.block_majority.precision": _on_blocks(
            _precision(maj), "block-majority (homogeneity calibrated to a majority share of "
            f"{params['majority_share']:g}, so a calibration check) precision"),
        "fw.s3_1.block_majority.recall": _r_claim(maj, "block-majority R"),
        "fw.s3_1.single_race_blocks.precision": _on_blocks(_precision(single), "single-group-block precision"),
        "fw.s3_1.single_race_blocks.recall": _r_claim(single, "single-group-block R"),
        "fw.s3_1.majority_beats_reconstruction": majority_beats_reconstruction(
            exp.attacks[(sw, "public")], exp.attacks[(sw, "perfect")], exp.baselines[(sw, "majority")]),
        "fw.s3_1.majority_same_under_dp": majority_same_under_dp(exp, params["epsilon"]),
        "fw.s3_1.new_attack.precision": Measurement(
            float(new_p["precision"]), ci=(float(new_p["precision_low"]), float(new_p["precision_high"])),
            n=int(new_p["predictions"]), note="on this chapter's synthetic blocks: perfect-linkage precision on "
            f"unique-solution blocks x unique sex-age people ({int(sub.sum())} people)"),
        "fw.s3_1.new_attack.recall_public": _on_blocks(new_readings["public"]["correct / people"],
                                                       "that subpopulation's public-linkage R",
                                                       new_readings["public"]),
        "fw.s3_1.new_attack.recall_perfect": _on_blocks(new_readings["perfect"]["correct / people"],
                                                        "that subpopulation's perfect-linkage R",
                                                        new_readings["perfect"]),
        "fw.s3_2.xu.accuracy_range": Measurement(None, note="Xu et al.'s mobility data unavailable"),
        "fw.s3_2.xu.top2_uniqueness": Measurement(None, note="Xu et al.'s mobility data unavailable"),
        "fw.s3_2.home_work_share": Measurement(home_work_share(hw["home_hours"], hw["work_hours"]),
                                               note="(home + work hours) / 24"),
        "fw.s3_2.home_work_explains_accuracy": Measurement(
            traces["home_work_hours"], ci=(traces["home_work_hours_low"], traces["home_work_hours_high"]),
            note=f"simulated traces drawn from F&W's own assumption ({params['home_hours']:g} h home, "
                 f"{params['work_hours']:g} h work): {traces['home_work_hours']:.3f} of hours at home or "
                 f"work (the accuracy of a trace right on home/work hours only) vs Xu et al.'s {low_accuracy:g}; "
                 f"a fixed 9-to-5 guess scores {traces['guess_accuracy']:.3f}"),
        "fw.s3_3.warfarin.vs_marginals": Measurement(
            warf["vs_marginal"]["relative"].value, ci=warf["vs_marginal"]["relative"].ci,
            alternatives=warf["vs_marginal"],
            note=f"synthetic worked example: members {warfarin['members']:.3f} vs marginal "
                 f"{warfarin['marginal']:.3f} (bootstrap intervals)"),
        "fw.s3_3.warfarin.vs_nontraining": Measurement(
            warf["vs_nonmembers"]["relative"].value, ci=warf["vs_nonmembers"]["relative"].ci,
            alternatives=warf["vs_nonmembers"],
            note=f"synthetic worked example: members {warfarin['members']:.3f} vs non-members "
                 f"{warfarin['non_members']:.3f} (bootstrap intervals)"),
    }


def recorded_attacks(exp: CensusExperiment) -> dict[str, tuple[AttackResult, AttackResult | None]]:
    """The chapter's four attacks on the swapped (2010) tables, compact, for ``Recorder.record_attack``.

    One result per attack (reconstruction with public and with perfect
    linkage, each against the majority guess; the majority guess; its
    single-group variant; targets are 32-bit), so the recorded file stays small.
    """
    maj = exp.baselines[("swapping", "majority")]
    return {"reconstruction, public linkage": (exp.attacks[("swapping", "public")], maj),
            "reconstruction, perfect linkage": (exp.attacks[("swapping", "perfect")], maj),
            "block majority": (maj, None),
            "block majority, single-group blocks": (exp.baselines[("swapping", "single")], None)}


# --- the explorable figure: who each inference gets right, by block homogeneity, over ε --------------------------------

def homogeneity_frame(exp: CensusExperiment, publication: str) -> dict[str, tuple[list[float], list[float]]]:
    """One frame of the explorable figure: :func:`by_homogeneity` of the attack and of the guess on one publication.

    The reconstruction attack with perfect linkage (``exp.attacks[(publication, "perfect")]``) and the
    block-majority guess (``exp.baselines[(publication, "majority")]``), each as precision and recall
    against block homogeneity (:func:`person_homogeneity` of the experiment's population).
    """
    h = person_homogeneity(exp.block_sizes, exp.attacks[(publication, "perfect")].truth)
    out = {}
    for name, res in (("attack, perfect linkage", exp.attacks[(publication, "perfect")]),
                      ("block majority", exp.baselines[(publication, "majority")])):
        t = by_homogeneity(res, h)
        for col, short in (("precision", "P"), ("recall", "R")):
            out[f"{name}: {short}"] = (t["homogeneity"].tolist(), t[col].tolist())
    return out


def epsilon_explorable(run: Any, exp: CensusExperiment) -> Any:
    """The chapter's explorable figure: :func:`homogeneity_frame` on the DP tables at each ε of the sweep.

    The slider runs over the experiment's ``epsilons`` (the run's ``epsilon`` gives the static frame); the band
    is what F&W's block-majority precision claim accepts; the paper's population-wide P and R (attack with
    perfect linkage, block majority) are drawn at this population's mean homogeneity.
    """
    from anonbook import explore

    x = float(exp.population["people in their block's majority group"])
    p_maj, p_att = (run.paper(f"fw.s3_1.{c}.precision") for c in ("block_majority", "abowd2021.perfect"))
    r_att = run.paper("fw.s3_1.abowd2021.perfect.recall")
    paper = [explore.Series("paper, all blocks: P (both)", [x, x], [p_att, p_maj]),
             explore.Series("paper, all blocks: attack's R", [x], [r_att])]
    return run.explorable(
        "Whom each inference gets right, on the DP tables", "epsilon", list(exp.epsilons),
        lambda eps: homogeneity_frame(exp, f"dp ε={eps:g}"),
        x_label="block homogeneity (share of the block in its largest group)", y_label="precision, recall",
        claim_id="fw.s3_1.block_majority.precision", key=experiment_key(run.p), paper=paper,
        alt="Precision and recall of the reconstruction attack with perfect linkage and of the block-majority "
            "guess against block homogeneity, one frame per per-block ε of the DP tables; a slider moves ε.")

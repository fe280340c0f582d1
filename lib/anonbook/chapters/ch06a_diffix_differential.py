"""Chapter 6a: the differential attack on Diffix (Gadotti et al. 2019, §2, §3.1, App. A, Figs. 2-3).

The chapter's declaration (:data:`CHAPTER`) and the functions that decide
its claims, one per section of the notebook, each returning
``{claim id: Measurement}``:

* :func:`measure_datasets`, :func:`measure_mechanism` (§2: sticky noise, the
  variance of an answer, bucket suppression);
* :func:`measure_moments`, :func:`measure_fig2` (Eq. 6, App. A, Fig. 2);
* :func:`measure_fig3` (the full differential attack on real data, with the
  readings of CENSUS's secret; the cost of the book's search bound shown);
* :func:`measure_correlated_samples` (§3.1's correlated samples) and
  :func:`measure_dinur_nissim` (the result §6 cites);
* :func:`unmeasured_claims` (claims this chapter cannot measure, and why).

The experiments run through :class:`anonbook.diffix_harness.Experiments`
(the result cache of the chapter's run); chapter 6b
(:mod:`anonbook.chapters.ch06b_diffix_cloning`) holds the cloning attack.

[G19] A. Gadotti, F. Houssiau, L. Rocher, B. Livshits, Y.-A. de Montjoye,
*When the signal is in the noise: exploiting Diffix's sticky noise*, USENIX
Security 2019.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from anonlab import claims
from anonlab.attacks import diffix as atk
from anonbook import diffix_harness as harness
from anonlab.claims import Measurement
from anonlab.data.diffix_datasets import CENSUS_SECRETS
from anonlab.measures import wilson_interval
from anonbook.memory import worker_pools
from anonlab.validation import Param, ParameterError, ParameterSpec
from anonbook.chapters import Chapter, Exercise, interval_text, rate_interval_text
from anonbook.chapters.sentences import Sentence, compare, listing
from anonlab.streams import stream

#: "Close to no bucket suppression" (§4) read as: at most this share of the attack's queries suppressed.
CLOSE_TO_NO_SUPPRESSION = 0.05
#: Complete_k with more records than this is refused (B**k; 12**6 = 2,985,984).
MAX_COMPLETE_RECORDS = 3_000_000

#: Paper values the prose quotes: glue key -> claim id.
PAPER = {
    "paper_acc5_s4": "gadotti.s4.differential_acc_k5", "paper_acc5_abs": "gadotti.abstract.differential_acc_k5",
    "paper_acc5_s1": "gadotti.s1.differential_acc_k5", "paper_acc2": "gadotti.s4.differential_acc_k2",
    "paper_fig3_adult": "gadotti.fig3.adult_differential_acc",
    "paper_fig3_census": "gadotti.fig3.census_differential_acc",
    "paper_fig3_credit": "gadotti.fig3.credit_differential_acc",
}

#: The verdicts the prose quotes: glue key -> claim id.
VERDICTS = {"v_" + cid.removeprefix("gadotti.").replace(".", "_"): cid for cid in (
    "gadotti.s2.sticky_noise", "gadotti.s2.output_variance", "gadotti.s2.bucket_suppression",
    "gadotti.s3.diff.var_if_secret_1", "gadotti.s3.diff.var_if_secret_0", "gadotti.app_a.symmetric_error",
    "gadotti.s1.differential_acc_k5", "gadotti.fig2.acc_increases_with_k", "gadotti.s4.rounding_no_effect",
    "gadotti.s4.differential_acc_k5", "gadotti.abstract.differential_acc_k5", "gadotti.s4.differential_acc_k2",
    "gadotti.s4.empirical_below_theory", "gadotti.s4.complete_k_no_suppression",
    "gadotti.s3.diff.queries_and_samples", "gadotti.fig3.adult_differential_acc",
    "gadotti.fig3.census_differential_acc", "gadotti.fig3.credit_differential_acc", "gadotti.fig3.plateau", "gadotti.s3.diff.correlation_negligible",
    "gadotti.s6.dinur_nissim_sqrt_n")}

FIG3_CLAIMS = {"adult": "gadotti.fig3.adult_differential_acc", "credit": "gadotti.fig3.credit_differential_acc",
               "census": "gadotti.fig3.census_differential_acc"}



def _complete_k_size(values: Mapping[str, Any]) -> None:
    """Refuse a Complete_k with more than :data:`MAX_COMPLETE_RECORDS` records."""
    B, ks = values["complete_B"], values["complete_k_values"]
    if ks and B ** max(ks) > MAX_COMPLETE_RECORDS:
        raise ParameterError(f"parameter 'complete_k_values': Complete_k has B**k = {B ** max(ks):,} records for "
                             f"k = {max(ks)}, B = {B}; keep it at most {MAX_COMPLETE_RECORDS:,}")


#: The parameters both halves of chapter 6 take (the proxy's switches, the seed, the victims, the workers).
COMMON = [
    Param("salt", "int", 20190814, "Diffix's secret salt; answers depend on it, conclusions should not",
          low=0, high=2**64 - 1),
    Param("rounding", "bool", True,
          "round answers to the nearest non-negative integer, as in the paper's experiments (§4)"),
    Param("bucket_suppression", "bool", True,
          "answer 0 for query sets of at most 1 user or below the noisy threshold T ~ N(4, 1/2) (§2)"),
    Param("seed", "int", 0, "seed of every random choice (victims, known attributes A*, dummy values, random "
          "guesses)", low=0),
    Param("n_users", "int", 1000, "victims per main experiment (the paper: 1000), users", low=10, high=10_000),
    Param("n_jobs", "int", 0, "worker processes for the long attacks (1: this process; 0: the cores the build "
          "gives this run, else this machine's, at most 4); results do not depend on it", low=0, high=16),
]


CHAPTER = Chapter(
    # the kernel with the proxies, plus the Fig. 3 and CENSUS pools with n_jobs > 1 (a data-set copy each);
    # fitted to the runner's default (n_jobs = 2) and quick (n_jobs = 1) measurements
    memory=worker_pools(1200, 1600),
    name="06a_diffix_differential",
    title="Noise-exploitation attacks on Diffix: the differential attack",
    parameters=ParameterSpec([
        *COMMON,
        Param("complete_B", "int", 12, "values per attribute of Complete_k (the paper: 12)", low=2, high=100),
        Param("complete_k_values", "int_list", [2, 3, 4, 5, 6], "k of Complete_k (B**k records; the paper stops "
              "at 6)", low=1, high=6, max_len=6),
        Param("n_simulations", "int", 1000, "experiments per secret value in the rounding simulation of App. A "
              "(the paper: 1000)", low=100, high=200_000),
        Param("n_monte_carlo", "int", 100000, "Monte Carlo draws per hypothesis checking the exact acc(k)",
              low=1000, high=2_000_000),
        Param("complete_salts", "int", 10, "salts (independent Diffix noise) per k for the empirical Complete_k "
              "curve", low=1, high=100),
        Param("n_salts", "int", 50, "independent salts pooled for the sample moments of Eq. 6", low=2, high=500),
        Param("fig3_k_star_adult", "int_list", [2, 4, 6, 8, 10], "known attributes k* on ADULT (the paper's point "
              "is 10)", low=1, high=10, max_len=10),
        Param("fig3_k_star_census", "int_list", [10, 25, 40], "k* on CENSUS, an empty list skips CENSUS (the "
              "paper's point is 40)", low=1, high=41, min_len=0, max_len=41),
        Param("fig3_users_census", "int", 200, "victims per k* on CENSUS (the paper: 1000), users",
              low=10, high=10_000),
        Param("fig3_k_star_credit", "int_list", [5, 10, 15], "k* on CREDIT, an empty list skips CREDIT (the "
              "paper's point is 15, all its attributes); the search tries every subset, as the paper's",
              low=1, high=15, min_len=0, max_len=15),
        Param("fig3_users_credit", "int", 690, "victims per k* on CREDIT: all its 690 records (the paper: 1000 "
              "random users, so all of them), or a seeded sample of fewer, users", low=10, high=690),
        Param("max_attacked", "int", None, "unique subsets the full differential attack tries per ADULT victim "
              "(None: no bound, the paper)", low=1, high=100_000, nullable=True),
        Param("max_attacked_large", "int", 10, "the same bound on CENSUS, where an unbounded search is "
              "infeasible", low=1, high=1000),
        Param("census_bound_sweep", "int_list", [40], "larger bounds than max_attacked_large tried on CENSUS at "
              "the largest k* of fig3_k_star_census", low=1, high=1000, min_len=0, max_len=5),
        Param("census_secret_users", "int", 40, "victims per bound of that sweep and per alternative reading of "
              "CENSUS's secret, users", low=10, high=10_000),
    ], checks=[_complete_k_size]),
    quick={"n_users": 20, "complete_k_values": [2, 3], "n_simulations": 100, "n_monte_carlo": 1000,
           "complete_salts": 2, "n_salts": 4, "fig3_k_star_adult": [4, 10], "fig3_k_star_census": [5],
           "fig3_users_census": 10, "fig3_k_star_credit": [15], "fig3_users_credit": 10, "max_attacked": 5, "max_attacked_large": 2, "census_bound_sweep": [4],
           "census_secret_users": 10, "use_cache": False, "n_jobs": 1},
    data=("adult", "census_income", "credit_approval"),
    goals=(
        "See how noise that depends on the query set leaks whether one person is in it, and turn that into "
        "the differential attack on Diffix.",
        "Tell a mechanism's promise (sticky noise, bucket suppression) from what an attacker can still "
        "compute with a few dozen well-chosen queries.",
        "Score an attack by precision and coverage against a baseline, and report each reading of a paper "
        "that leaves a choice open.",
    ),
    assumes="counting queries in SQL, the normal distribution and a likelihood-ratio test, and basic NumPy and "
            "pandas.",
    exercises=(
        Exercise(
            "no_rounding",
            {"rounding": False},
            {"emp_acc_kmax": "differential attack on Complete_k, largest k run",
             "adult_diff_precision": "full differential attack on ADULT: accuracy of its own guesses"},
        ),
        Exercise(
            "another_salt",
            {"salt": 1},
            {"var3": "variance of 3-condition answers (Eq. 1: 6)",
             "emp_acc_kmax": "differential attack on Complete_k, largest k run",
             "adult_diff_precision": "full differential attack on ADULT: accuracy of its own guesses"},
        ),
        Exercise(
            "no_suppression",
            {"bucket_suppression": False},
            {"adult_diff_attacked": "share of ADULT victims attacked (largest k*)",
             "adult_diff_precision": "accuracy of the attack's own guesses"},
        ),
    ),
)


# ---------------------------------------------------------------------------
# Setup: the data and the mechanism
# ---------------------------------------------------------------------------


def measure_datasets(adult: Any, census: Any | None, credit: Any | None = None) -> dict[str, Measurement]:
    """The sizes of §4's data sets (``None``: not loaded by this run); CDR is not available here."""
    out = {"gadotti.s4.datasets.adult_records": Measurement(
        adult.n_records, note=f"{adult.n_attributes} attributes including the secret, as in the paper")}
    if census is not None:
        out["gadotti.s4.datasets.census_records"] = Measurement(
            census.n_records, note=f"{census.n_attributes} attributes including the secret")
    if credit is not None:
        out["gadotti.s4.datasets.credit_records"] = Measurement(
            credit.n_records, note=f"UCI Credit Approval, {credit.n_attributes} attributes including the secret "
                                   "(accepted credit, A16 = +)")
    else:
        out["gadotti.s4.datasets.credit_records"] = Measurement(None, note="not run: fig3_k_star_credit is empty")
    out["gadotti.s4.datasets.cdr_records"] = Measurement(None, note="data set not available here")
    return out


def suppression_table(supp: pd.DataFrame) -> pd.DataFrame:
    """The suppression curve with the Wilson interval of each observed share (column ``ci``)."""
    out = supp.copy()
    out["ci"] = [wilson_interval(round(s * n), n) for s, n in zip(out["suppressed"], out["n_sets"])]
    return out


def measure_mechanism(repeat: Sequence[float], rewrite: float, noise3: np.ndarray,
                      supp: pd.DataFrame) -> dict[str, Measurement]:
    """§2's mechanism: sticky noise, the variance of a 3-condition answer (6), bucket suppression.

    Parameters
    ----------
    repeat
        Answers to the same query spelled several ways (must be identical).
    rewrite
        The answer to a logically equivalent rewrite (must differ: new noise).
    noise3
        Answer minus true count of distinct 3-condition queries, rounding and
        suppression off (variance 2h = 6 by Eq. 1); its chi-square interval.
    supp
        :func:`suppression_table`: suppression must be certain at size 1 and
        P(T > size), T ~ N(4, 1/2), inside every Wilson interval.
    """
    sticky = len(set(repeat)) == 1 and rewrite != repeat[0]
    dof = len(noise3) - 1
    var = float(noise3.var(ddof=1))
    lo, hi = noise3.var(ddof=1) * dof / stats.chi2.ppf([0.975, 0.025], dof)
    supp_ok = bool(all(lo_ - 1e-9 <= e <= hi_ + 1e-9 for (lo_, hi_), e in zip(supp["ci"], supp["expected"]))
                   and supp.loc[supp["size"] == 1, "suppressed"].item() == 1.0)
    return {
        "gadotti.s2.sticky_noise": Measurement(
            sticky, note="identical answers for repeats and respellings; an equivalent rewrite gets new noise"),
        "gadotti.s2.output_variance": Measurement(
            var, ci=(float(lo), float(hi)), n=len(noise3),
            note=f"{len(noise3):,} distinct 3-condition queries, rounding and suppression off"),
        "gadotti.s2.bucket_suppression": Measurement(
            supp_ok, note="observed suppression by query-set size inside the Wilson interval of P(T > size), "
                          "T ~ N(4, 1/2)"),
    }


# ---------------------------------------------------------------------------
# The differential attack: Eq. 6, App. A, Fig. 2
# ---------------------------------------------------------------------------


def measure_moments(moments: pd.DataFrame, k: int, n_salts: int) -> dict[str, Measurement]:
    """Eq. 6's variances (2 if the secret is 1, 2k + 2 if it is 0), ± two standard errors.

    The ledger's variance for secret 0 is for k = 5; it is measured only then.
    """
    m = moments.set_index("secret")
    m1, m0 = m.loc[1], m.loc[0]
    out = {"gadotti.s3.diff.var_if_secret_1": Measurement(
        m1["var"], ci=(m1["var"] - 2 * m1["var_se"], m1["var"] + 2 * m1["var_se"]), n=int(m1["n"]),
        note=f"Complete_{k}, {n_salts} salts, every pair (no > 0 filter)")}
    if k == 5:
        out["gadotti.s3.diff.var_if_secret_0"] = Measurement(
            m0["var"], ci=(m0["var"] - 2 * m0["var_se"], m0["var"] + 2 * m0["var_se"]), n=int(m0["n"]),
            note=f"Complete_5, mean {m0['mean']:.3f} (Eq. 6: 1)")
    return out


def symmetric_errors(seed: int, n: int = 40_000,
                     k_values: Sequence[int] = range(1, 7)) -> dict[int, tuple[float, float]]:
    """``(p_err0, p_err1)`` per k by Monte Carlo (:func:`~anonlab.attacks.diffix.error_probabilities`).

    Each k draws from its own stream ``stream(seed, "diffix.error_probabilities", k)``.
    """
    return {k: atk.error_probabilities(k, n, seed=stream(seed, "diffix.error_probabilities", k)) for k in k_values}


def fig2_table(curves: pd.DataFrame, empirical: Mapping[int, tuple[pd.DataFrame, dict[str, Any]]]) -> pd.DataFrame:
    """Fig. 2: the theoretical curves beside the empirical accuracy on Complete_k, one row per k."""
    emp = pd.DataFrame([{"k": k, "empirical": s["accuracy"], "ci_low": s["accuracy_ci"][0],
                         "ci_high": s["accuracy_ci"][1], "users": s["n_users"], "records": s["n_records"],
                         "suppressed": s["suppressed"], "pairs_used": s["pairs_used"]}
                        for k, (r, s) in sorted(empirical.items())],
                       columns=["k", "empirical", "ci_low", "ci_high", "users", "records", "suppressed",
                                "pairs_used"])
    return curves.merge(emp, on="k", how="left")


def measure_fig2(curves: pd.DataFrame, empirical: Mapping[int, tuple[pd.DataFrame, dict[str, Any]]],
                 p_err: Mapping[int, tuple[float, float]], *, n_simulations: int, complete_salts: int,
                 rounding: bool, bucket_suppression: bool) -> dict[str, Measurement]:
    """The claims of App. A and Fig. 2.

    * acc(k) rises with k (exact values, k = 1..6);
    * rounding makes no difference: the largest |rounding − exact| is at most
      0.02 or three simulation standard errors, ``3 sqrt(0.25 / (2 n))``;
    * §1's acc(5) is the exact value; §4's and the abstract's are the
      empirical accuracy on Complete_5 (mean ± 2 SE over salts);
    * the two error probabilities are equal within four standard errors;
    * §4's "above 66% for k = 2" takes the lower of exact and empirical acc(2)
      (its interval: that of the empirical value, capped at the exact one);
    * the empirical curve lies below the rounding simulation at every k;
    * "close to no bucket suppression": at most 5% of the attack's queries;
    * the attack costs 4k queries and gives at most 2k samples per victim.
    """
    th = curves.set_index("k")["theory"]
    rd = curves.set_index("k")
    out: dict[str, Measurement] = {}
    acc_rises = bool(np.all(np.diff(curves.sort_values("k")["theory"]) > 0))
    out["gadotti.fig2.acc_increases_with_k"] = Measurement(acc_rises, note="exact acc(k), k = 1..6")
    rounding_gap = float(np.max(np.abs(curves["rounding"] - curves["theory"])))
    sim_se = float(np.sqrt(0.25 / (2 * n_simulations)))
    out["gadotti.s4.rounding_no_effect"] = Measurement(
        bool(rounding_gap <= max(0.02, 3 * sim_se)),
        note=f"largest |rounding - exact| over k = 1..6: {rounding_gap:.3f} (criterion: at most 0.02 "
             f"or three simulation standard errors, {3 * sim_se:.3f})")
    out["gadotti.s1.differential_acc_k5"] = Measurement(
        float(th.loc[5]), note="exact acc(5) without rounding (the Fact of App. A); Monte Carlo "
                               f"{rd.loc[5, 'monte_carlo']:.4f}")
    n = 40000
    sym = all(abs(a - b) < 4 * math.sqrt((a * (1 - a) + b * (1 - b)) / n) for a, b in p_err.values())
    out["gadotti.app_a.symmetric_error"] = Measurement(
        bool(sym), note="Monte Carlo p_err0 vs p_err1, k = 1..6, 40,000 draws each: "
                        + ", ".join(f"{a:.3f}/{b:.3f}" for a, b in p_err.values()))
    if 5 in empirical:
        s5 = empirical[5][1]
        for cid in ("gadotti.s4.differential_acc_k5", "gadotti.abstract.differential_acc_k5"):
            out[cid] = Measurement(
                s5["accuracy"], ci=s5["accuracy_ci"], n=s5["n_users"],
                note=f"Complete_5, {s5['n_users']} users x {complete_salts} salts (range "
                     f"{min(s5['accuracy_by_salt']):.3f}-{max(s5['accuracy_by_salt']):.3f}), "
                     f"rounding {rounding}, suppression {bucket_suppression}")
    if 2 in empirical:
        s2 = empirical[2][1]
        lo2, hi2 = s2["accuracy_ci"]
        out["gadotti.s4.differential_acc_k2"] = Measurement(
            min(s2["accuracy"], float(th.loc[2])), ci=(min(lo2, float(th.loc[2])), min(hi2, float(th.loc[2]))),
            n=s2["n_users"],
            note=f"the lower of exact acc(2) = {th.loc[2]:.3f} and the empirical {s2['accuracy']:.3f} "
                 f"({s2['n_users']} users of Complete_2 x {complete_salts} salts)")
    if empirical:
        below = {k: s["accuracy"] < rd.loc[k, "rounding"] for k, (r, s) in empirical.items()}
        out["gadotti.s4.empirical_below_theory"] = Measurement(
            bool(all(below.values())),
            note="empirical below the rounding curve at k = " + ", ".join(f"{k}: {v}" for k, v in below.items()))
        supp_max = max(s["suppressed"] for r, s in empirical.values())
        out["gadotti.s4.complete_k_no_suppression"] = Measurement(
            bool(supp_max <= CLOSE_TO_NO_SUPPRESSION),
            note="share of the attack's queries suppressed (owner's audit): "
                 + ", ".join(f"k={k}: {s['suppressed']:.1%}" for k, (r, s) in sorted(empirical.items()))
                 + f"; criterion 'close to no' = at most {CLOSE_TO_NO_SUPPRESSION:.0%}")
        k_q = max(empirical)
        r_q = empirical[k_q][0]
        out["gadotti.s3.diff.queries_and_samples"] = Measurement(
            bool((r_q["n_queries"] == 4 * k_q).all() and (r_q["n_samples"] <= 2 * k_q).all()),
            note=f"Complete_{k_q}: every victim cost exactly {4 * k_q} queries and gave at most {2 * k_q} samples")
    return out


def fig2_numbers(curves: pd.DataFrame, empirical: Mapping[int, tuple[pd.DataFrame, dict[str, Any]]]) -> dict[str, Any]:
    """Numbers of Fig. 2 quoted in the prose."""
    th = curves.set_index("k")["theory"]
    out: dict[str, Any] = {
        "acc5_exact": float(th.loc[5]), "acc2_exact": float(th.loc[2]),
        "acc5_round": float(curves.set_index("k").loc[5, "rounding"]),
        "rounding_gap": float(np.max(np.abs(curves["rounding"] - curves["theory"]))),
        "emp5_text": (f"{empirical[5][1]['accuracy']:.1%}" if 5 in empirical
                      else "not measured (k = 5 is not in complete_k_values)"),
    }
    if empirical:
        out["supp_max"] = max(s["suppressed"] for r, s in empirical.values())
        out["pairs_min"] = min(s["pairs_used"] for r, s in empirical.values())
        out["emp_acc_kmax"] = empirical[max(empirical)][1]["accuracy"]
        out["emp_acc_kmax_ci"] = interval_text(empirical[max(empirical)][1]["accuracy_ci"])
        out["emp_kmax"] = max(empirical)
    return out


def suppression_sentence(supp_max: float, B: int) -> Sentence:
    """How much of the attack on Complete_k Diffix suppresses, against "close to no bucket suppression" (§4).

    ``supp_max``: the largest share of the attack's queries suppressed over the k run (:func:`fig2_numbers`);
    ``B``: values per attribute, so a query set holds about B/2 users against a threshold near 4.

    >>> suppression_sentence(0.24, 12).relation, suppression_sentence(0.0, 12).relation
    ('above', 'at or below')
    """
    return compare("suppression_sentence", supp_max, CLOSE_TO_NO_SUPPRESSION, {
        "above": ("up to {left:.0%} of the attack's queries on Complete_k are bucket suppressed, more than the "
                  "{right:.0%} the book reads \"close to no bucket suppression\" as: its query sets hold about "
                  f"B/2 = {B / 2:g} users, against a threshold near 4"),
        "at or below": ("at most {left:.0%} of the attack's queries on Complete_k are bucket suppressed, within "
                        "the {right:.0%} the book reads \"close to no bucket suppression\" as (its query sets "
                        f"hold about B/2 = {B / 2:g} users, against a threshold near 4)"),
    })


def filter_sentences(filtered: pd.DataFrame) -> list[Sentence]:
    """What the attack's > 0 filter does to the ``s = 0`` samples (:func:`~anonbook.diffix_harness.filtered_sample_moments`):
    the kept samples' mean (``filter_mean``) and variance (``filter_var``) against Eq. 6's.

    >>> t = pd.DataFrame({"secret": [0], "pairs": ["kept (> 0)"], "mean": [0.9], "var": [8.2],
    ...                   "Eq. 6 mean": [1.0], "Eq. 6 var": [8.0]})
    >>> [s.relation for s in filter_sentences(t)]
    ['below', 'at or above']
    """
    kept = filtered[(filtered["secret"] == 0) & (filtered["pairs"] == "kept (> 0)")].iloc[0]
    return [
        compare("filter_mean", float(kept["mean"]), float(kept["Eq. 6 mean"]), {
            "below": "a smaller mean than Eq. 6 says ({left:.3f} against {right:g})",
            "at or above": "a mean no smaller than Eq. 6 says ({left:.3f} against {right:g})"}),
        compare("filter_var", float(kept["var"]), float(kept["Eq. 6 var"]), {
            "below": "a smaller variance ({left:.2f} against {right:g})",
            "at or above": "a variance no smaller ({left:.2f} against {right:g})"}),
    ]


def fig2_gap_sentences(fig2: pd.DataFrame) -> list[Sentence]:
    """Where the empirical curve of Fig. 2 sits, in words, from the Fig. 2 table (:func:`fig2_table`).

    ``large_k_gap``: the empirical accuracy at the largest k run against the rounding simulation there;
    ``shared_static_gap``: at the smallest k run, the simulation that shares the static noise as Diffix does
    against the independent one; ``empirical_small_k``: the empirical point there against the independent one.

    >>> t = pd.DataFrame({"k": [2, 3], "rounding": [0.80, 0.90], "rounding_shared_static": [0.82, 0.89],
    ...                   "empirical": [0.81, 0.85]})
    >>> [s.relation for s in fig2_gap_sentences(t)]
    ['below', 'above', 'above']
    """
    emp = fig2.dropna(subset=["empirical"]).sort_values("k")
    hi, lo = emp.iloc[-1], emp.iloc[0]
    return [
        compare("large_k_gap", float(hi["empirical"]), float(hi["rounding"]), {
            "below": (f"At k = {int(hi['k'])} the empirical curve of Fig. 2 sits below the rounding simulation "
                      "({left:.1%} against {right:.1%})."),
            "at or above": (f"At k = {int(hi['k'])} the empirical curve of Fig. 2 is not below the rounding "
                            "simulation ({left:.1%} against {right:.1%}): at these parameters the truncation "
                            "does not show in the accuracy.")}),
        compare("shared_static_gap", float(lo["rounding_shared_static"]), float(lo["rounding"]), {
            "above": (f"the simulation that shares it (column `rounding_shared_static` of the Fig. 2 table) is "
                      f"above the independent one at k = {int(lo['k'])} " "({left:.1%} against {right:.1%})"),
            "at or below": (f"yet the simulation that shares it (column `rounding_shared_static` of the Fig. 2 "
                            f"table) is not above the independent one at k = {int(lo['k'])} "
                            "({left:.1%} against {right:.1%}) at these parameters")}),
        compare("empirical_small_k", float(lo["empirical"]), float(lo["rounding"]), {
            "above": "the empirical point there is above the independent simulation ({left:.1%})",
            "at or below": "the empirical point there is not above the independent simulation ({left:.1%})"}),
    ]


def plot_fig2(ax: Any, fig2: pd.DataFrame, B: int, paper: Callable[[str], Any]) -> None:
    """Fig. 2: exact and rounded theory, the empirical points through the proxy, the paper's values (``paper``).

    The legend sits under the axes (two columns), off the data; the paper's points are on the curves at k = 5.
    """
    from anonbook import plotting

    ax.plot(fig2["k"], fig2["theory"], "-", label="theoretical, exact (no rounding)")
    ax.plot(fig2["k"], fig2["rounding"], "--", label="theoretical, rounding (simulation)")
    e = fig2.dropna(subset=["empirical"])
    ax.errorbar(e["k"], e["empirical"], yerr=[e["empirical"] - e["ci_low"], e["ci_high"] - e["empirical"]],
                fmt="o-", capsize=3, label=f"Complete_k through the proxy (B = {B})")
    s4, ab, s1 = (paper(f"gadotti.{c}.differential_acc_k5") for c in ("s4", "abstract", "s1"))
    plotting.paper_points(ax, [5], [s4], label=f"paper, §4 ({s4:.1%})")
    plotting.paper_points(ax, [5, 5], [ab, s1], marker="s", label=f"paper, abstract ({ab:.1%}) and §1 ({s1:.1%})")
    k2 = paper("gadotti.s4.differential_acc_k2")
    plotting.paper_hline(ax, k2, label=f"paper: above {k2:.0%} at k = 2")
    ax.set(xlabel="k (known attributes)", ylabel="accuracy", title="Fig. 2 of Gadotti et al.: accuracy of the differential attack",
           ylim=(0.5, 1.0))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)


#: The standard deviations σ of Diffix's noise layers the explorable figure of acc(k) moves through (Diffix: 1).
NOISE_SDS: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


def noise_frame(noise_sd: float, *, n_simulations: int, B: int, seed: int) -> dict[str, tuple[list[int], list[float]]]:
    """acc(k), k = 1..6, when every noise layer of Diffix has standard deviation σ = ``noise_sd``.

    Two series, as in Fig. 2: the exact accuracy of the likelihood ratio test
    ([G19] App. A with Eq. 6 scaled by σ², :func:`anonlab.attacks.diffix.theoretical_accuracy`)
    and the paper's simulation with rounded answers
    (:func:`anonlab.attacks.diffix.simulated_accuracy_rounding`, ``n_simulations``
    experiments per secret value, the seeds of :func:`anonlab.attacks.diffix.accuracy_curves`,
    so the frame at σ = 1 is Fig. 2's two theoretical curves). The attacker knows σ.
    """
    from anonlab.attacks.diffix import theory

    ks = list(range(1, 7))
    exact = [theory.theoretical_accuracy(k, noise_sd) for k in ks]
    rounded = [theory.simulated_accuracy_rounding(k, n_simulations, B=B, seed=stream(seed, "diffix.theory_rounding", i),
                                                  noise_sd=noise_sd) for i, k in enumerate(ks)]
    return {"exact (no rounding)": (ks, exact), "rounded answers (simulation)": (ks, rounded)}


def noise_explorable(run: Any, *, n_simulations: int, B: int, seed: int) -> Any:
    """The explorable figure of acc(k) over the noise's σ (:data:`NOISE_SDS`), one :func:`noise_frame` each.

    The band is what §1's acc(5) claim accepts; the paper's points are §1's
    theoretical and §4's empirical acc(5). The static fallback shows σ = 1, Diffix's.
    """
    import dataclasses

    from anonbook import explore

    s1, s4 = (run.paper(f"gadotti.{c}.differential_acc_k5") for c in ("s1", "s4"))
    e = run.explorable(
        "acc(k) of the differential attack", "noise_sd", NOISE_SDS,
        lambda sd: noise_frame(sd, n_simulations=n_simulations, B=B, seed=seed),
        x_label="k (known attributes)", y_label="accuracy", claim_id="gadotti.s1.differential_acc_k5",
        key={"n_sim": n_simulations, "B": B, "seed": seed},
        paper=[explore.Series("paper, acc(5): §1 (theory), §4 (Complete_5)", [5, 5], [s1, s4])],
        alt="Accuracy of the differential attack against the number of known attributes k from 1 to 6, exact "
            "and with rounded answers, for one standard deviation of Diffix's noise layers at a time; a slider "
            "moves the standard deviation from 0.25 to 8.")
    e = dataclasses.replace(e, default=NOISE_SDS.index(1.0))
    _draw_fallback(e)
    return e


def _draw_fallback(e: Any) -> None:
    """Draw the explorable figure's static PNG now and give matplotlib its backend back.

    :mod:`anonbook.explore` draws the fallback under ``matplotlib.use("Agg")``, which would leave the
    notebook's inline backend off and the chapter's later figures undisplayed.
    """
    import matplotlib

    backend = matplotlib.get_backend()
    e.png()
    matplotlib.use(backend)


# ---------------------------------------------------------------------------
# Fig. 3: the full differential attack on real data
# ---------------------------------------------------------------------------


def fig3_row(ds_name: str, k: int, res: pd.DataFrame, n_queries: int) -> dict[str, Any]:
    """One row of the Fig. 3 table from a differential experiment."""
    s = harness.summarize_differential(res)
    return {"data set": ds_name, "k*": k, "users": s["n_users"], "unique": s["unique"],
            "correctly inferred": s["accuracy"], "accuracy (unique)": s["accuracy_unique"],
            "ci (unique)": s["accuracy_unique_ci"], "attacked": s["attacked"],
            "precision of the attack's guesses": s["precision_attacked"], "median queries": s["median_queries"],
            "queries": n_queries}


def fig3_table(results: Mapping[tuple[str, int], tuple[pd.DataFrame, int]]) -> pd.DataFrame:
    """Fig. 3: :func:`fig3_row` of each ``{(data set, k*): (results, queries)}``."""
    return pd.DataFrame([fig3_row(name, k, res, nq) for (name, k), (res, nq) in results.items()])


def census_readings(runs: harness.Experiments, census: Any,
                    fig3_results: Mapping[tuple[str, int], tuple[pd.DataFrame, int]],
                    k: int, n: int, bound: int, sweep: Sequence[int]) -> pd.DataFrame:
    """The CENSUS Fig. 3 point at ``k`` under each reading: larger bounds of the search, other secrets.

    First row: the chapter's own run (``fig3_results[("census", k)]``, bound
    ``bound``). Then, on ``n`` users: the chapter's bound and each larger
    bound of ``sweep`` (the same users, so the attacked shares compare), and
    the two other readings of the secret (:data:`CENSUS_SECRETS`) at ``bound``.
    """
    res, nq = fig3_results[("census", k)]
    rows = [{**fig3_row("census", k, res, nq), "secret": CENSUS_SECRETS[0], "bound": bound}]
    bounds = [bound, *sorted(b for b in set(sweep) if b != bound)]
    got = runs.together({"bounds": functools.partial(runs.fig3_bounds, census, k, n, bounds),
                         **{sec: functools.partial(runs.fig3, census, k, n, bound, secret=sec)
                            for sec in CENSUS_SECRETS[1:]}})
    for b, (res, nq) in got["bounds"].items():
        rows.append({**fig3_row("census", k, res, nq), "secret": CENSUS_SECRETS[0], "bound": b})
    for sec in CENSUS_SECRETS[1:]:
        res, nq = got[sec]
        rows.append({**fig3_row("census", k, res, nq), "secret": sec, "bound": bound})
    cols = ["secret", "bound", "users", "unique", "attacked", "accuracy (unique)", "ci (unique)",
            "precision of the attack's guesses", "median queries", "queries"]
    return pd.DataFrame(rows)[cols]


def census_readings_text(readings: pd.DataFrame | None) -> str:
    """The CENSUS readings in two sentences: what a larger bound and another secret change."""
    if readings is None:
        return "CENSUS was not run with these parameters."
    first = readings.iloc[0]
    prec = "precision of the attack's guesses"
    same = readings.iloc[1:][readings.iloc[1:]["secret"] == CENSUS_SECRETS[0]].sort_values("bound")
    text = (f"The chapter's run attacks {first['attacked']:.0%} of its {first['users']} victims "
            f"({first['unique']:.0%} are unique); its own guesses are right for {first[prec]:.1%} of those it "
            f"attacks, and the accuracy over all unique victims, random guesses included, is "
            f"{first['accuracy (unique)']:.1%}. ")
    if len(same) > 1:
        lo, hi = same.iloc[0], same.iloc[-1]
        text += (f"On {lo['users']} victims, raising the bound from {lo['bound']} to {hi['bound']} unique subsets "
                 f"takes the attacked share from {lo['attacked']:.0%} to {hi['attacked']:.0%} at "
                 f"{hi['queries'] / max(lo['queries'], 1):.1f} times the queries. ")
    others = readings[readings["secret"] != CENSUS_SECRETS[0]]
    text += "With the secret read otherwise: " + "; ".join(
        f"{r['secret']}, accuracy {r['accuracy (unique)']:.1%} ({r['attacked']:.0%} attacked)"
        for _, r in others.iterrows()) + "."
    return text


def census_reading_k(k_values: Sequence[int]) -> int:
    """The CENSUS k* at which the readings run: the claim's k* (40) when it is run, else the largest.

    >>> census_reading_k([10, 25, 40, 41]), census_reading_k([5])
    (40, 5)
    """
    k_paper = claims.claim(FIG3_CLAIMS["census"]).params["k_star"]
    return k_paper if k_paper in k_values else max(k_values)


def census_alternatives(readings: pd.DataFrame | None) -> dict[str, Measurement] | None:
    """The CENSUS Fig. 3 claim under each reading of the secret the ledger lists (``None``: not run).

    The accuracy over the unique victims (random guesses for those not
    attacked, as the paper's Fig. 3 counts them) with its Wilson interval,
    for each :data:`CENSUS_SECRETS` at the chapter's bound: the chapter's run
    (first row) for its own secret, the readings' runs for the others. (Fig.
    3 says "If the attack outputs NonAttackable, the secret attribute is
    predicted at random"; the accuracy of the attacked victims alone is not
    a reading of it, and the bound on the search is the book's, not the
    paper's: both are shown, neither is scored.)

    >>> r = pd.DataFrame({"secret": list(CENSUS_SECRETS), "bound": [10, 10, 10],
    ...                   "accuracy (unique)": [0.55, 0.6, 0.7], "ci (unique)": [(0.5, 0.6), (0.5, 0.7), (0.6, 0.8)]})
    >>> a = census_alternatives(r)
    >>> a[CENSUS_SECRETS[0]].value, a[CENSUS_SECRETS[2]].value, a[CENSUS_SECRETS[2]].ci
    (0.55, 0.7, (0.6, 0.8))
    """
    if readings is None:
        return None
    first = readings.iloc[0]
    at_bound = readings[readings["bound"] == first["bound"]].drop_duplicates("secret").set_index("secret")
    return {label: Measurement(float(at_bound.loc[label, "accuracy (unique)"]),
                               ci=tuple(float(v) for v in at_bound.loc[label, "ci (unique)"]))
            for label in CENSUS_SECRETS}


def measure_fig3(fig3: pd.DataFrame, census_alts: Mapping[str, Measurement] | None = None) -> dict[str, Measurement]:
    """Fig. 3: accuracy among users unique on A* at the paper's k*; the CENSUS plateau.

    The paper's "correctly inferred / unique" read as the accuracy over the
    victims unique on their A* (random guesses for those the attack cannot
    reach included). On CENSUS ``census_alts`` (:func:`census_alternatives`)
    gives the value under every reading the ledger lists. Plateau: on CENSUS
    (at least three k*), the last k* step gains at most 0.02 in the share
    correctly inferred.
    """
    out: dict[str, Measurement] = {}
    for name, cid in FIG3_CLAIMS.items():
        k_paper = claims.claim(cid).params["k_star"]
        row = fig3[(fig3["data set"] == name) & (fig3["k*"] == k_paper)]
        if len(row):
            r = row.iloc[0]
            own = r["precision of the attack's guesses"]
            alts = dict(census_alts) if name == "census" and census_alts else None
            sample = ((" (all of CREDIT's records" if r["users"] >= 690 else " (a seeded sample of CREDIT's 690 records")
                      + "; the search tries every subset of A*)") if name == "credit" else ""
            out[cid] = Measurement(r["accuracy (unique)"], ci=r["ci (unique)"], n=int(r["users"] * r["unique"]),
                                   note=f"{name.upper()}, k* = {k_paper}, {r['users']} users{sample} "
                                        f"({r['unique']:.0%} unique, {r['attacked']:.0%} attacked); precision of "
                                        f"the attack's own guesses {own:.3f}", alternatives=alts)
        else:
            out[cid] = Measurement(None, note=f"not run: k* = {k_paper} not in this run's parameters")
    out["gadotti.fig3.cdr_differential_acc"] = Measurement(None, note="data set not available here")
    c3 = fig3[fig3["data set"] == "census"].sort_values("k*")
    if len(c3) >= 3:
        gain = c3["correctly inferred"].diff().iloc[-1]
        out["gadotti.fig3.plateau"] = Measurement(
            bool(gain <= 0.02), note=f"CENSUS correctly inferred, last k* step: {gain:+.3f} (plateau: gain at most "
                                     "0.02); " + ", ".join(f"k*={k}: {v:.3f}" for k, v in
                                                          zip(c3["k*"], c3["correctly inferred"])))
    else:
        out["gadotti.fig3.plateau"] = Measurement(None, note="needs at least three k* on CENSUS")
    return out


def fig3_numbers(fig3: pd.DataFrame, paper: Callable[[str], Any]) -> dict[str, Any]:
    """Numbers and sentences of Fig. 3 quoted in the prose.

    The full attack on ADULT at the largest k* run (share attacked, precision
    of its guesses); each data set's accuracy at the paper's k* beside the
    paper's (``paper``: the run's :meth:`~anonbook.chapters.kit.ChapterRun.paper`);
    the CENSUS reach.
    """
    a = fig3[fig3["data set"] == "adult"].sort_values("k*")
    out: dict[str, Any] = {"adult_diff_attacked": float("nan"), "adult_diff_precision": float("nan"),
                           "adult_diff_k": 0}
    if len(a):
        r = a.iloc[-1]
        out = {"adult_diff_attacked": float(r["attacked"]),
               "adult_diff_precision": float(r["precision of the attack's guesses"]), "adult_diff_k": int(r["k*"])}
        n_att = round(float(r["attacked"]) * int(r["users"]))
        out |= {"adult_diff_attacked_ci": rate_interval_text(float(r["attacked"]), int(r["users"])),
                "adult_diff_precision_ci": rate_interval_text(float(r["precision of the attack's guesses"]), n_att)}
    parts = []
    for name, cid in FIG3_CLAIMS.items():
        k_paper = claims.claim(cid).params["k_star"]
        row = fig3[(fig3["data set"] == name) & (fig3["k*"] == k_paper)]
        if len(row):
            parts.append(f"{row['accuracy (unique)'].iloc[0]:.1%} accurate on {name.upper()} at k* = {k_paper} "
                         f"(the paper: {paper(cid):.1%})")
    out["fig3_text"] = "; ".join(parts) if parts else "not run with these parameters"
    return out


def census_reach_sentence(fig3: pd.DataFrame) -> Sentence:
    """The full differential attack's reach on CENSUS at the largest k* run: the share attacked against the share
    unique on their A* (only a unique victim can be attacked); an empty listing when CENSUS was not run.

    >>> t = pd.DataFrame({"data set": ["census"], "k*": [40], "attacked": [0.3], "unique": [0.9], "users": [200]})
    >>> census_reach_sentence(t).relation, census_reach_sentence(t[:0]).relation
    ('below', 'none')
    """
    rows = fig3[fig3["data set"] == "census"].sort_values("k*")
    if not len(rows):
        return listing("census_reach_sentence", [], some="", none="CENSUS was not run with these parameters")
    r = rows.iloc[-1]
    head = f"at k* = {int(r['k*'])} the differential attack reaches "
    return compare("census_reach_sentence", float(r["attacked"]), float(r["unique"]), {
        "below": head + f"{{left:.1%}} of {int(r['users'])} CENSUS victims, fewer than the {{right:.1%}} who are "
                        "unique on their known attributes",
        "at or above": head + "every victim who is unique on their known attributes ({left:.1%} of its "
                              f"{int(r['users'])} CENSUS victims)",
    })


def plot_fig3(axes: Sequence[Any], fig3: pd.DataFrame, paper: Callable[[str], Any]) -> None:
    """Fig. 3, one panel per data set, with the paper's accuracy at its k* (``paper``) on the accuracy curve.

    One legend for all panels, under them (the caller's figure), off the data.
    """
    from anonbook import plotting

    for i, (ax, (name, d)) in enumerate(zip(axes, fig3.groupby("data set", sort=False))):
        ax.plot(d["k*"], d["unique"], "o-", label="unique on A*")
        ax.plot(d["k*"], d["correctly inferred"], "s-", label="correctly inferred (all users)")
        ax.plot(d["k*"], d["accuracy (unique)"], "^-", label="accuracy among unique users")
        cid = FIG3_CLAIMS[name]
        plotting.paper_points(ax, [claims.claim(cid).params["k_star"]], [paper(cid)], label="paper (accuracy)")
        ax.set(xlabel="k* (known attributes)", ylabel="fraction of users" if i % 2 == 0 else "",
               title=f"Fig. 3 of Gadotti et al.: {name.upper()}", ylim=(0, 1.02))
    handles, labels = axes[0].get_legend_handles_labels()
    axes[0].figure.legend(handles, labels, loc="outside lower center", ncol=2)


def fig3_figure(fig3: pd.DataFrame, paper: Callable[[str], Any]) -> Any:
    """The figure of :func:`plot_fig3`: one panel per data set, two side by side, 7.4 inches wide (spare axes off)."""
    import matplotlib.pyplot as plt

    n = max(1, fig3["data set"].nunique())
    cols, rows = min(n, 2), -(-n // 2)
    fig, axes = plt.subplots(rows, cols, figsize=(7.4, 3.3 * rows + 0.4), squeeze=False, sharey=True,
                             layout="constrained")
    flat = list(axes.ravel())
    for ax in flat[n:]:
        ax.set_axis_off()
    plot_fig3(flat[:n], fig3, paper)
    return fig


# ---------------------------------------------------------------------------
# Verdict and beyond the paper
# ---------------------------------------------------------------------------


def unmeasured_claims() -> dict[str, Measurement]:
    """Claims of the paper this chapter does not measure, with the reason."""
    out = {cid: Measurement(None, note="a result of another paper on location data, not available here")
           for cid in ("gadotti.s6.pyrgelis_correct", "gadotti.s6.pyrgelis_queries")}
    return out


def measure_correlated_samples(shared: pd.DataFrame, k_star: int) -> dict[str, Measurement]:
    """§3.1: samples of one test correlated through a shared query set, in the ADULT attack's deciding tests.

    ``shared`` is :func:`~anonlab.attacks.diffix.full_attack_shared_sets`
    (one row per attacked victim). "Negligible" is read as: no kept sample
    of a test shares a query set with another kept sample of the same test
    (then the correlation cannot touch the test at all).
    """
    n_s, n_c = int(shared["samples"].sum()), int(shared["correlated"].sum())
    largest = int(shared["largest_shared"].max()) if len(shared) else 0
    hidden = ", so bucket suppression hides them all" if largest <= 1 else ""
    return {"gadotti.s3.diff.correlation_negligible": Measurement(
        bool(n_c == 0), n=n_s,
        note=f"ADULT, k* = {k_star}, {len(shared)} attacked victims: {n_c} of the {n_s} samples their deciding tests "
             f"kept share a query set with another kept sample; {int(shared['shared'].sum())} of their queries share "
             f"a set with a query of another pair, none of more than {largest} user(s){hidden}")}


def correlated_samples_text(shared: pd.DataFrame) -> str:
    """The shared query sets of the ADULT attack's deciding tests in two sentences."""
    n_s, n_c = int(shared["samples"].sum()), int(shared["correlated"].sum())
    largest = int(shared["largest_shared"].max()) if len(shared) else 0
    why = (": the victim is unique on the attacked attributes, so two such sets can only hold her alone or nobody, "
           "and bucket suppression answers both with 0, which the test drops." if largest <= 1 else ".")
    return (f"Of the {n_s} samples the deciding tests of {len(shared)} attacked victims keep, {n_c} share a query set "
            f"with another sample of the same test. {int(shared['shared'].sum())} of their queries do select the "
            f"same users as a query of another pair, but never more than {largest}{why}")


#: Dinur & Nissim's reconstruction, illustrated: records, noise bounds as powers of n (n^(1/4) is o(√n)), draws.
DINUR_NISSIM = {"n": 128, "exponents": (0.25, 0.5), "draws": 2}


def dinur_nissim_table(seed: int) -> pd.DataFrame:
    """§6's cited result: the share of n secret bits recovered from 4n noisy subset sums, by noise bound.

    :func:`~anonlab.attacks.diffix.dinur_nissim_recovery` with the settings of
    :data:`DINUR_NISSIM`, each draw from stream ``[seed, 66, e, d]``.
    """
    n = DINUR_NISSIM["n"]
    rows = []
    for e, expo in enumerate(DINUR_NISSIM["exponents"]):
        got = [atk.dinur_nissim_recovery(n, n ** expo, seed=stream(seed, "diffix.dinur_nissim", e, d))
               for d in range(DINUR_NISSIM["draws"])]
        rows.append({"noise bound": f"n^{expo:g} = {n ** expo:.1f}", "records": n, "queries": 4 * n,
                     "recovered": float(np.mean(got)), "lowest": float(min(got))})
    return pd.DataFrame(rows)


def measure_dinur_nissim(table: pd.DataFrame) -> dict[str, Measurement]:
    """§6: with noise o(√n) almost every record is recovered; with noise √n markedly fewer.

    Holds when the smallest noise bound recovers at least 90% in every draw
    and the largest recovers less on average (the ledger marks the claim an
    illustration of a theorem).
    """
    small, large = table.iloc[0], table.iloc[-1]
    return {"gadotti.s6.dinur_nissim_sqrt_n": Measurement(
        bool(small["lowest"] >= 0.9 and large["recovered"] < small["recovered"]),
        note="records recovered by linear programming from 4n noisy subset sums: "
             + ", ".join(f"noise {r['noise bound']}: {r['recovered']:.1%}" for _, r in table.iterrows()))}


def yardstick_runs(adult: Any, census: Any | None,
                   fig3_results: Mapping[tuple[str, int], tuple[pd.DataFrame, int]]) -> list[tuple[Any, str, Any]]:
    """The full differential attacks the yardstick scores: ADULT at k* = 10, CENSUS at its largest k* run."""
    out = [(adult, f"differential, full (k* = {k})", harness.differential_result(fig3_results["adult", k][0]))
           for k in [10] if ("adult", k) in fig3_results]
    ks = [k for name, k in fig3_results if name == "census"]
    if census is not None and ks:
        out.append((census, f"differential, full (k* = {max(ks)})",
                    harness.differential_result(fig3_results["census", max(ks)][0])))
    return out


def yardstick_sentence(yard: pd.DataFrame) -> Sentence:
    """The differential attack on ADULT (k* = 10) on the yardstick: its precision against the majority guess on
    the same targets (PI against 0); an empty listing when that attack was not run.

    >>> y = pd.DataFrame({"precision": [0.6], "baseline_precision": [0.55], "PI": [0.11]},
    ...                  index=pd.MultiIndex.from_tuples([("adult", "differential, full (k* = 10)")]))
    >>> yardstick_sentence(y).relation, yardstick_sentence(y[:0]).relation
    ('above', 'none')
    """
    key = ("adult", "differential, full (k* = 10)")
    if key not in yard.index:
        return listing("yardstick_sentence", [], some="",
                       none="The differential attack on ADULT at k* = 10 was not run with these parameters.")
    y = yard.loc[key]
    if not math.isfinite(float(y["PI"])):
        return listing("yardstick_sentence", [], some="",
                       none="The full differential attack on ADULT (k* = 10) has no PI at these parameters "
                            "(it guessed for no one, or the majority guess is never wrong on its targets).")
    head = (f"The full differential attack's own guesses on ADULT (k* = 10) are right {y['precision']:.1%} of the "
            f"time, against {y['baseline_precision']:.1%} for the majority guess on the same targets: PI ")
    return compare("yardstick_sentence", float(y["PI"]), 0.0, {
        "above": head + "{left:+.2f}, better than the majority guess.",
        "below": head + "{left:+.2f}, worse than knowing only the base rate.",
        "equal": head + "{left:+.2f}, no better than the majority guess.",
    })

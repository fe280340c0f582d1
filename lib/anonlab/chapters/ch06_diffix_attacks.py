"""Chapter 6: noise-exploitation attacks on Diffix (Gadotti et al. 2019).

The chapter's declared parameters (:data:`CHAPTER`), the runs it makes
(:class:`Runs`: every expensive result through :func:`anonlab.cache.cached`),
the tables and figures it shows, and the functions that decide its claims,
one per section of the notebook, each returning ``{claim id: Measurement}``:

* :func:`measure_datasets`, :func:`measure_mechanism` (§2: sticky noise, the
  variance of an answer, bucket suppression);
* :func:`measure_moments`, :func:`measure_fig2` (Eq. 6, App. A, Fig. 2);
* :func:`measure_fig3` (the full differential attack on real data);
* :func:`measure_exact_cloning`, :func:`measure_table1`,
  :func:`measure_fig4`, :func:`measure_value_unique_classes`,
  :func:`measure_shuffled`, :func:`measure_greedy`, :func:`measure_double`
  (the cloning attacks, Table 1, Fig. 4, Table 2, §5);
* :func:`unmeasured_claims` (claims this chapter cannot measure, and why).

[G19] A. Gadotti, F. Houssiau, L. Rocher, B. Livshits, Y.-A. de Montjoye,
*When the signal is in the noise: exploiting Diffix's sticky noise*, USENIX
Security 2019.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np
import pandas as pd
from scipy import stats

from .. import cache, claims, measures
from ..attacks import diffix as atk
from ..claims import Measurement
from ..measures import AttackResult, wilson_interval
from ..validation import Param, ParameterError, ParameterSpec
from . import Chapter, Exercise

__all__ = [
    "CHAPTER", "Runs", "glue_all", "paper_glue", "MAX_COMPLETE_RECORDS", "PAPER_GLUE",
    "yardstick_baselines",
    "dataset_table", "suppression_table", "measure_datasets", "measure_mechanism",
    "measure_moments", "symmetric_errors", "fig2_table", "measure_fig2", "fig2_glue", "plot_fig2",
    "fig3_row", "measure_fig3", "plot_fig3",
    "measure_exact_cloning", "table1_row", "measure_table1", "table1_glue", "error_breakdown",
    "fig4_table", "measure_fig4", "plot_fig4", "measure_value_unique_classes",
    "shuffled_comparison", "measure_shuffled", "table2", "measure_greedy", "greedy_glue",
    "tradeoff_table", "measure_double", "sigma_sweep_row", "plot_sigma_sweep", "sweep_text",
    "unmeasured_claims", "verdict_glue", "census_secret_variant", "census_readings", "census_alternatives", "census_readings_text", "census_reading_k", "fig3_glue", "alternatives_table",
    "measure_value_unique_range", "query_count_table", "verdict_phrase", "verdict_key", "FIG3_READINGS", "CENSUS_SECRETS",
    "ADULT_ATTRIBUTE_CHOICES", "EXPLORATION_CHOICES", "FACTOR_READINGS", "yardstick_row", "yardstick_glue", "census_bias_text",
    "plot_yardstick", "attribute_choices",
]

T = TypeVar("T")
K = TypeVar("K")

#: Complete_k with more records than this is refused (B**k; 12**6 = 2,985,984).
MAX_COMPLETE_RECORDS = 3_000_000

#: Paper values the prose quotes: glue name -> claim id.
PAPER_GLUE = {
    "paper_acc5_s4": "gadotti.s4.differential_acc_k5", "paper_acc5_abs": "gadotti.abstract.differential_acc_k5",
    "paper_acc5_s1": "gadotti.s1.differential_acc_k5", "paper_acc2": "gadotti.s4.differential_acc_k2",
    "paper_fig3_adult": "gadotti.fig3.adult_differential_acc",
    "paper_fig3_census": "gadotti.fig3.census_differential_acc",
    "paper_attackable": "gadotti.s5.double_test.adult_attackable_single",
    "paper_acc_pa": "gadotti.s3.cloning.acc_delta10", "paper_greedy_max": "gadotti.app_b.greedy_max_queries",
    "paper_greedy_targeted": "gadotti.app_b.greedy_targeted", "paper_greedy_acc": "gadotti.app_b.greedy_accuracy",
    "paper_median_q": "gadotti.abstract.median_queries", "paper_vu_mean": "gadotti.s4.adult_value_unique_class_mean",
    "paper_vu_max": "gadotti.s4.adult_value_unique_class_max", "paper_acc_double": "gadotti.s5.double_test.adult_acc_double",
    "paper_att_double": "gadotti.s5.double_test.adult_attackable_double",
}

FIG3_CLAIMS = {"adult": "gadotti.fig3.adult_differential_acc", "census": "gadotti.fig3.census_differential_acc"}

#: Fig. 3's "correctly inferred / unique" read two ways (the ledger's choice for CENSUS): label -> column of
#: :func:`fig3_row`.
FIG3_READINGS = {"all unique users, random guesses for the unattacked": "accuracy (unique)",
                 "attacked users only": "precision of the attack's guesses"}

#: CENSUS's secret read three ways (the ledger's choice); the first is the chapter's.
CENSUS_SECRETS = ("income class 50000+ = 1", "income class below 50000 = 1",
                  "any income recorded = 1 (wage, capital gains or dividends > 0)")

#: Plausible choices of ADULT's 10 non-secret columns (the ledger's choice for the value-unique statistics);
#: the first is the chapter's (:data:`anonlab.data.diffix_datasets.ADULT_ATTRIBUTES`).
_ADULT_BASE_Q = ["age", "workclass", "education", "marital_status", "occupation", "race", "sex", "native_country"]
ADULT_ATTRIBUTE_CHOICES = {
    "ours: + relationship, hours_per_week": _ADULT_BASE_Q + ["relationship", "hours_per_week"],
    "+ capital_gain, capital_loss": _ADULT_BASE_Q + ["capital_gain", "capital_loss"],
    "+ relationship, capital_gain": _ADULT_BASE_Q + ["relationship", "capital_gain"],
    "+ hours_per_week, education_num": _ADULT_BASE_Q + ["hours_per_week", "education_num"],
    "+ relationship, fnlwgt": _ADULT_BASE_Q + ["relationship", "fnlwgt"],
}

#: How far the full cloning attack's subset exploration goes (the ledger's choice for the query counts).
EXPLORATION_CHOICES = ("as far as max_subsets (default: all subsets)", "at most max_subsets_large subsets")

#: What §3.2's "reduces the median number of queries by a factor of 100" compares (the ledger's choice).
FACTOR_READINGS = ("the median, as written", "the maximum, as App. B says")


def _complete_k_size(values: Mapping[str, Any]) -> None:
    """Refuse a Complete_k with more than :data:`MAX_COMPLETE_RECORDS` records."""
    B, ks = values["complete_B"], values["complete_k_values"]
    if ks and B ** max(ks) > MAX_COMPLETE_RECORDS:
        raise ParameterError(f"parameter 'complete_k_values': Complete_k has B**k = {B ** max(ks):,} records for "
                             f"k = {max(ks)}, B = {B}; keep it at most {MAX_COMPLETE_RECORDS:,}")


CHAPTER = Chapter(
    name="06_diffix_attacks",
    title="Noise-exploitation attacks on Diffix",
    parameters=ParameterSpec([
        Param("salt", "int", 20190814, "Diffix's secret salt; answers depend on it, conclusions should not",
              low=0, high=2**64 - 1),
        Param("rounding", "bool", True, "round answers to the nearest non-negative integer (§4)"),
        Param("bucket_suppression", "bool", True,
              "answer 0 for query sets of at most 1 user or below the noisy threshold T ~ N(4, 1/2) (§2)"),
        Param("seed", "int", 0, "seed of every random choice (victims, A*, dummy values, random guesses)", low=0),
        Param("n_users", "int", 1000, "victims per main experiment (the paper: 1000), users", low=10, high=10_000),
        Param("n_jobs", "int", 2, "worker processes for the long attacks; results do not depend on it",
              low=1, high=16),
        Param("use_cache", "bool", True, "reuse results computed before with identical parameters (anonlab.cache)"),
        Param("complete_B", "int", 12, "values per attribute of Complete_k (the paper: 12)", low=2, high=100),
        Param("complete_k_values", "int_list", [2, 3, 4, 5, 6], "k of Complete_k (B**k records)",
              low=1, high=6, max_len=6),
        Param("n_simulations", "int", 1000, "experiments per secret value in the rounding simulation of App. A",
              low=100, high=200_000),
        Param("n_monte_carlo", "int", 100000, "Monte Carlo draws per hypothesis checking the exact acc(k)",
              low=1000, high=2_000_000),
        Param("complete_salts", "int", 10, "salts per k for the empirical Complete_k curve", low=1, high=100),
        Param("n_salts", "int", 50, "salts pooled for the sample moments of Eq. 6", low=2, high=500),
        Param("fig3_k_star_adult", "int_list", [2, 4, 6, 8, 10], "known attributes k* on ADULT (Fig. 3)",
              low=1, high=10, max_len=10),
        Param("fig3_k_star_census", "int_list", [10, 25, 40], "k* on CENSUS (Fig. 3); empty skips CENSUS",
              low=1, high=41, min_len=0, max_len=41),
        Param("fig3_users_census", "int", 200, "victims per k* on CENSUS (the paper: 1000), users",
              low=10, high=10_000),
        Param("max_attacked", "int", None, "unique subsets the full differential attack tries per ADULT victim "
              "(None: no bound, the paper)", low=1, high=100_000, nullable=True),
        Param("max_attacked_large", "int", 10, "the same bound on CENSUS", low=1, high=1000),
        Param("census_bound_sweep", "int_list", [40], "larger bounds than max_attacked_large tried on CENSUS at "
              "the largest k* of fig3_k_star_census", low=1, high=1000, min_len=0, max_len=5),
        Param("census_secret_users", "int", 40, "victims per bound of that sweep and per alternative reading of "
              "CENSUS's secret, users", low=10, high=10_000),
        Param("n_dummy", "int", 10, "|Δ|, dummy conditions per query family (the paper: 10)", low=2, high=100),
        Param("sigma_star", "float", 0.7, "σ*, cut-off on the sample variance of the q_j (the paper: 0.7)",
              low=0, low_inclusive=False, high=100),
        Param("target_value", "choice", 0, "v, the secret value in the cloning queries", choices=(0, 1)),
        Param("max_subsets", "int", None, "subsets (A', u) tried per ADULT victim (None: all, at most 1022)",
              low=1, high=1022, nullable=True),
        Param("fig4_k_star_adult", "int_list", [4, 7], "further k* on ADULT for Fig. 4", low=2, high=10,
              min_len=0, max_len=9),
        Param("fig4_users", "int", 200, "victims per k* of the Fig. 4 sweeps, users", low=10, high=10_000),
        Param("census_k_star", "int_list", [5, 10, 20, 41], "k* on CENSUS for Table 1 / Fig. 4 / Table 2",
              low=2, high=41, min_len=0, max_len=40),
        Param("german_k_star", "int_list", [4, 6, 8], "k* on German credit, the stand-in for CREDIT",
              low=2, high=20, min_len=0, max_len=19),
        Param("max_subsets_large", "int", 100, "subsets tried per victim on CENSUS and German credit",
              low=1, high=10_000),
        Param("shuffled_users", "int", 200, "victims of the ADULT run with a permuted secret, users",
              low=10, high=10_000),
        Param("double_test_users", "int", 200, "victims of the double-test run on ADULT (§5), users",
              low=10, high=10_000),
        Param("tradeoff_sigma_stars", "float_list", [0.3, 0.5, 1.0, 1.5],
              "further σ* for the single/double-test trade-off on ADULT", low=0, low_inclusive=False, high=100,
              min_len=0, max_len=10),
    ], checks=[_complete_k_size]),
    quick={"n_users": 20, "complete_k_values": [2, 3], "n_simulations": 100, "n_monte_carlo": 1000,
           "complete_salts": 2, "n_salts": 4, "fig3_k_star_adult": [4, 10], "fig3_k_star_census": [5],
           "fig3_users_census": 10, "max_attacked": 5, "max_attacked_large": 2,
           "census_bound_sweep": [4], "census_secret_users": 10, "max_subsets": 20,
           "fig4_k_star_adult": [7], "fig4_users": 10, "census_k_star": [3, 5], "max_subsets_large": 5,
           "german_k_star": [4], "shuffled_users": 10, "double_test_users": 10, "tradeoff_sigma_stars": [1.0],
           "use_cache": False, "n_jobs": 1},
    data=("adult", "census_income", "german_credit"),
    goals=(
        "See how noise that depends on the query set leaks whether one person is in it, and turn that into "
        "the differential and cloning attacks on Diffix.",
        "Tell a mechanism's promise (sticky noise, bucket suppression) from what an attacker can still "
        "compute with a few hundred well-chosen queries.",
        "Score an attack by precision and coverage against a baseline, and report each reading of a paper "
        "that leaves a choice open.",
    ),
    assumes="counting queries in SQL, the normal distribution and a likelihood-ratio test, and basic NumPy and "
            "pandas.",
    exercises=(
        Exercise(
            "no_rounding",
            "Diffix rounds every answer, and §4 says rounding has close to no effect on the differential "
            "attack. *Predict first:* without rounding, will the differential attack on Complete_k become more "
            "accurate, and will the cloning attack deem more ADULT users attackable or be more accurate on "
            "them? Then run with `rounding = False`.",
            {"rounding": False},
            {"adult_acc_pa": "cloning accuracy on predicted-attackable ADULT users",
             "adult_attackable": "share of ADULT users predicted attackable",
             "emp_acc_kmax": "differential attack on Complete_k, largest k run"},
        ),
        Exercise(
            "another_salt",
            "The salt is Diffix's secret: it seeds every noise value. *Predict first:* with another salt, which "
            "of these numbers move, and by more than their intervals in the tables? Then run with `salt = 1`.",
            {"salt": 1},
            {"var3": "variance of 3-condition answers (Eq. 1: 6)",
             "emp_acc_kmax": "differential attack on Complete_k, largest k run",
             "adult_diff_precision": "differential attack on ADULT: accuracy of its own guesses",
             "adult_attackable": "cloning attack: share of ADULT users predicted attackable",
             "adult_acc_pa": "cloning attack: accuracy on them"},
        ),
        Exercise(
            "no_suppression",
            "*Predict first:* if Diffix did not suppress small counts, would the full differential attack on "
            "ADULT reach more victims at the largest k*, and would its guesses be more accurate? What happens to "
            "the cloning attack, whose ValueUnique test reads suppression as 'this record is rare'? Then run "
            "with `bucket_suppression = False`.",
            {"bucket_suppression": False},
            {"adult_diff_attacked": "differential attack: share of ADULT victims attacked (largest k*)",
             "adult_diff_precision": "differential attack: accuracy of its own guesses",
             "adult_attackable": "cloning attack: share predicted attackable",
             "adult_acc_pa": "cloning attack: accuracy on them"},
        ),
        Exercise(
            "target_minority",
            "The cloning queries ask about one secret value v. *Predict first:* with v = 1, the minority class "
            "on ADULT (salary above 50K), will more or fewer users be predicted attackable, and will the "
            "attack need more queries? Then run with `target_value = 1`.",
            {"target_value": 1},
            {"adult_attackable": "share of ADULT users predicted attackable",
             "adult_acc_pa": "accuracy on them", "adult_median_q": "median queries per user"},
        ),
        Exercise(
            "fewer_dummies",
            "The variance test compares |Δ| differences with σ*. *Predict first:* with only four dummy "
            "conditions and a lower cut-off, will the test miss more victims inside the s = v set, and will "
            "the attack cost fewer queries? Then run with `n_dummy = 4` and `sigma_star = 0.3`.",
            {"n_dummy": 4, "sigma_star": 0.3},
            {"miss_expected": "the test's predicted miss rate (chi-square)",
             "miss_measured": "measured miss rate", "adult_acc_pa": "cloning accuracy on ADULT",
             "adult_median_q": "median queries per user"},
        ),
    ),
)


def glue_all(values: Mapping[str, Any]) -> None:
    """Glue values for the prose (myst-nb), numpy scalars as plain Python numbers."""
    from ..glue import glue

    for name, value in values.items():
        glue(name, value.item() if isinstance(value, np.generic) else value, display=False)


def paper_glue() -> dict[str, Any]:
    """The paper's values quoted in the prose, from the ledger (:data:`PAPER_GLUE`)."""
    return {name: claims.reported(cid) for name, cid in PAPER_GLUE.items()}


# ---------------------------------------------------------------------------
# The runs (every expensive one through the result cache)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Runs:
    """The chapter's experiments at one set of parameters, cached by :func:`anonlab.cache.cached`.

    Every key holds the proxy's settings and the seed besides the
    experiment's own parameters; ``use_cache=False`` always computes.
    """

    salt: int
    rounding: bool
    bucket_suppression: bool
    seed: int
    n_jobs: int = 1
    use_cache: bool = True
    n_dummy: int = 10
    sigma_star: float = 0.7
    target_value: int = 0
    _proxies: dict[int, tuple[Any, Any]] = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def from_parameters(cls, values: Mapping[str, Any]) -> "Runs":
        """The runs of a notebook's parameters (its ``globals()``)."""
        return cls(**{k: values[k] for k, f in cls.__dataclass_fields__.items() if f.init})

    @property
    def proxy_settings(self) -> dict[str, Any]:
        """Salt, rounding and suppression: the keyword arguments of every proxy."""
        return dict(salt=self.salt, rounding=self.rounding, bucket_suppression=self.bucket_suppression)

    def cached(self, name: str, compute: Callable[[], T], **key: Any) -> T:
        """``compute()`` once per parameter set, or always when ``use_cache`` is False."""
        full = self._key(**key)
        return cache.cached(name, full, compute) if self.use_cache else compute()

    def is_cached(self, name: str, **key: Any) -> bool:
        """Would :meth:`cached` load ``name`` with this key from the result cache?"""
        return self.use_cache and cache.is_cached(name, self._key(**key))

    def _key(self, **key: Any) -> dict[str, Any]:
        return {"salt": self.salt, "rounding": self.rounding, "bucket_suppression": self.bucket_suppression,
                "seed": self.seed, **key}

    def proxy(self, ds: Any, keep: bool = True) -> Any:
        """The proxy over a data set with this run's settings, its query counters at zero.

        One proxy per data set object serves all of the chapter's experiments
        on it: building one costs up to a second (CENSUS), and its cached row
        sets speed up the next experiment run in this process. Answers do
        not depend on what the proxy has cached. ``keep=False`` (a one-off
        variant of a data set): a new proxy, not kept.
        """
        from ..mechanisms.diffix import DiffixProxy

        if not keep:
            return DiffixProxy(ds.data, table=ds.name, keep_log=False, **self.proxy_settings)
        hit = self._proxies.get(id(ds))
        if hit is None or hit[0] is not ds:
            hit = self._proxies[id(ds)] = (ds, DiffixProxy(ds.data, table=ds.name, keep_log=False,
                                                           **self.proxy_settings))
        hit[1].reset_log()
        return hit[1]

    def noise(self, raw: Any, n: int) -> np.ndarray:
        """Noise of ``n`` distinct 3-condition answers (:func:`~anonlab.mechanisms.diffix.noise_sample`)."""
        from ..mechanisms.diffix import noise_sample

        return self.cached("diffix_noise3", lambda: noise_sample(raw, 3, n, seed=self.seed), n=n)

    def suppression(self) -> pd.DataFrame:
        """Observed suppression by query-set size (400 sets per size)."""
        from ..mechanisms.diffix import suppression_curve

        return self.cached("diffix_suppression",
                           lambda: suppression_curve([1, 2, 3, 4, 5, 6, 8], 400, salt=self.salt))

    def moments(self, k: int, B: int, n_salts: int) -> pd.DataFrame:
        """Eq. 6 measured on Complete_k (:func:`~anonlab.attacks.diffix.differential_sample_moments`)."""
        return self.cached("diffix_moments", lambda: atk.differential_sample_moments(
            k, B=B, n_salts=n_salts, n_users=100, salt=self.salt, seed=self.seed), k=k, B=B, n_salts=n_salts)

    def curves(self, k_values: Sequence[int], n_monte_carlo: int, n_simulations: int, B: int) -> pd.DataFrame:
        """Fig. 2's theoretical curves for k = 1..6 and ``k_values``."""
        ks = sorted(set(range(1, 7)) | set(k_values))
        return self.cached("diffix_acc_curves", lambda: atk.accuracy_curves(
            ks, n_monte_carlo=n_monte_carlo, n_simulations=n_simulations, B=B, seed=self.seed),
            n_mc=n_monte_carlo, n_sim=n_simulations, B=B)

    def complete(self, k: int, B: int, n_users: int, n_salts: int) -> tuple[pd.DataFrame, dict[str, Any]]:
        """The differential attack on Complete_k under ``n_salts`` salts (Fig. 2, empirical)."""
        def run() -> tuple[pd.DataFrame, dict[str, Any]]:
            res, summary = atk.run_complete_k(k, B=B, n_users=n_users, seed=self.seed, n_salts=n_salts,
                                              **self.proxy_settings)
            print(f"Complete_{k}: {summary['n_users']} users attacked under {n_salts} salt(s)")
            return res, summary

        return self.cached("diffix_complete_k", run, k=k, B=B, n=n_users, salts=n_salts)

    def fig3(self, ds: Any, k: int, n: int, budget: int | None,
             secret: str = CENSUS_SECRETS[0]) -> tuple[pd.DataFrame, int]:
        """The full differential attack on ``n`` users knowing ``k`` attributes; (results, queries).

        ``secret`` (CENSUS only) is one of :data:`CENSUS_SECRETS` (:func:`census_secret_variant`).
        """
        def run() -> tuple[pd.DataFrame, int]:
            data = ds if secret == CENSUS_SECRETS[0] else census_secret_variant(ds, secret)
            proxy = self.proxy(data, keep=data is ds)
            try:
                res = atk.run_differential_experiment(data, proxy, n_users=n, k_star=k, seed=self.seed,
                                                      max_attacked=budget, n_jobs=self.n_jobs,
                                                      progress=atk.progress_printer(f"{ds.name} k*={k}", 250))
            finally:
                if data is not ds:  # a one-off variant: free its workers for the pools the next runs reuse
                    atk.shutdown_pools(ds=data)
            return res, proxy.n_queries()

        return self.cached("diffix_fig3", run, data=ds.name, k=k, n=n, max_attacked=budget, secret=secret)

    def fig3_bounds(self, ds: Any, k: int, n: int,
                    bounds: Sequence[int | None]) -> dict[int | None, tuple[pd.DataFrame, int]]:
        """:meth:`fig3` under each bound of ``bounds`` (the data set's own secret): ``{bound: (results, queries)}``.

        The bounds not in the result cache come from one exploration per
        victim (:func:`~anonlab.attacks.diffix.run_differential_bound_sweep`:
        the same tables as one run per bound). Each is cached under
        :meth:`fig3`'s key, with the queries a run of its own sends (the sum
        over victims), so the two methods share results.
        """
        keys = {b: dict(data=ds.name, k=k, n=n, max_attacked=b, secret=CENSUS_SECRETS[0]) for b in bounds}
        return self._each_cached("diffix_fig3", keys, lambda todo: atk.run_differential_bound_sweep(
            ds, self.proxy(ds), todo, n_users=n, k_star=k, seed=self.seed, n_jobs=self.n_jobs,
            progress=atk.progress_printer(f"{ds.name} k*={k} bounds", 250)))

    def _each_cached(self, name: str, keys: Mapping[K, Mapping[str, Any]],
                     sweep: Callable[[list[K]], Mapping[K, pd.DataFrame]]) -> dict[K, tuple[pd.DataFrame, int]]:
        """``{setting: (results, queries)}``, the settings not in the result cache from one ``sweep(todo)``.

        Each setting is cached under ``name`` with its own key, as the
        experiment run alone would be, with the queries that run sends (the
        sum over victims).
        """
        todo = [s for s in keys if not self.is_cached(name, **keys[s])]
        fresh = sweep(todo) if todo else {}
        return {s: self.cached(name, lambda s=s: (fresh[s], int(fresh[s]["n_queries"].sum())), **keys[s])
                for s in keys}

    def cloning(self, ds: Any, k: int, n: int, cap: int | None, variant: str = "full", double: bool = False,
                shuffled: bool = False, sigma: float | None = None) -> tuple[pd.DataFrame, int]:
        """One cloning experiment; ``sigma`` overrides σ*. Returns (results, queries)."""
        from ..data import diffix_datasets as dd

        s_star = self.sigma_star if sigma is None else sigma

        def run() -> tuple[pd.DataFrame, int]:
            data = dd.shuffle_secret(ds, seed=self.seed) if shuffled else ds
            proxy = self.proxy(data, keep=data is ds)  # a shuffled copy keeps the name
            label = f"{ds.name} {variant}{' double' if double else ''} k*={k}"
            try:
                res = atk.run_cloning_experiment(data, proxy, n_users=n, k_star=k, variant=variant,
                                                 double_test=double, v=self.target_value, n_dummy=self.n_dummy,
                                                 max_subsets=cap, sigma_star=s_star, seed=self.seed,
                                                 n_jobs=self.n_jobs, progress=atk.progress_printer(label, 250))
            finally:
                if data is not ds:  # a one-off variant: free its workers for the pools the next runs reuse
                    atk.shutdown_pools(ds=data)
            return res, proxy.n_queries()

        return self.cached("diffix_cloning", run, **self._cloning_key(ds, k, n, cap, variant, double, shuffled, s_star))

    def _cloning_key(self, ds: Any, k: int, n: int, cap: int | None, variant: str, double: bool, shuffled: bool,
                     sigma: float) -> dict[str, Any]:
        """The cache key of one cloning experiment (besides the proxy's settings and the seed)."""
        return dict(data=ds.name, k=k, n=n, cap=cap, variant=variant, double=double, shuffled=shuffled,
                    n_dummy=self.n_dummy, sigma_star=sigma, v=self.target_value)

    def sigma_sweep(self, ds: Any, k: int, n: int, cap: int | None, sigmas: Sequence[float],
                    double: bool = False) -> dict[float, pd.DataFrame]:
        """The full cloning attack at each σ* of ``sigmas``: ``{σ*: results}``, as :meth:`cloning` gives them.

        The σ* not in the result cache come from one exploration
        (:func:`~anonlab.attacks.diffix.run_cloning_sigma_sweep`: the same
        tables as one run per σ*, for the queries of one run). Each is cached
        under :meth:`cloning`'s key, with the queries a run of its own sends
        (the sum over victims), so the two methods share results.
        """
        keys = {s: self._cloning_key(ds, k, n, cap, "full", double, False, s) for s in sigmas}
        label = f"{ds.name} σ* sweep{' double' if double else ''} k*={k}"
        runs = self._each_cached("diffix_cloning", keys, lambda todo: atk.run_cloning_sigma_sweep(
            ds, self.proxy(ds), todo, double_test=double, n_users=n, k_star=k, v=self.target_value,
            n_dummy=self.n_dummy, max_subsets=cap, seed=self.seed, n_jobs=self.n_jobs,
            progress=atk.progress_printer(label, 250)))
        return {s: res for s, (res, _) in runs.items()}


# ---------------------------------------------------------------------------
# Setup: the data and the mechanism
# ---------------------------------------------------------------------------


def dataset_table(datasets: Sequence[Any]) -> pd.DataFrame:
    """Records, attributes and the secret's positive value of each data set (``None`` entries skipped)."""
    rows = [{"data set": ds.name, "records": ds.n_records, "attributes (with secret)": ds.n_attributes,
             "secret = 1": ds.positive, "share of secret = 1": ds.data[ds.secret].mean()}
            for ds in datasets if ds is not None]
    return pd.DataFrame(rows).set_index("data set")


def measure_datasets(adult: Any, census: Any | None) -> dict[str, Measurement]:
    """The sizes of §4's data sets; CREDIT and CDR are not available here."""
    out = {"gadotti.s4.datasets.adult_records": Measurement(
        adult.n_records, note=f"{adult.n_attributes} attributes including the secret, as in the paper")}
    if census is not None:
        out["gadotti.s4.datasets.census_records"] = Measurement(
            census.n_records, note=f"{census.n_attributes} attributes including the secret")
    for cid in ("gadotti.s4.datasets.credit_records", "gadotti.s4.datasets.cdr_records"):
        out[cid] = Measurement(None, note="data set not available here")
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

    Each k draws from its own stream ``default_rng([seed, 99, k])``.
    """
    return {k: atk.error_probabilities(k, n, seed=np.random.default_rng([seed, 99, k])) for k in k_values}


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
    * §4's "above 66% for k = 2" takes the lower of exact and empirical acc(2);
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
        out["gadotti.s4.differential_acc_k2"] = Measurement(
            min(s2["accuracy"], float(th.loc[2])), n=s2["n_users"],
            note=f"the lower of exact acc(2) = {th.loc[2]:.3f} and the empirical {s2['accuracy']:.3f} "
                 f"({s2['n_users']} users of Complete_2 x {complete_salts} salts)")
    if empirical:
        below = {k: s["accuracy"] < rd.loc[k, "rounding"] for k, (r, s) in empirical.items()}
        out["gadotti.s4.empirical_below_theory"] = Measurement(
            bool(all(below.values())),
            note="empirical below the rounding curve at k = " + ", ".join(f"{k}: {v}" for k, v in below.items()))
        supp_max = max(s["suppressed"] for r, s in empirical.values())
        out["gadotti.s4.complete_k_no_suppression"] = Measurement(
            bool(supp_max <= 0.05),
            note="share of the attack's queries suppressed (owner's audit): "
                 + ", ".join(f"k={k}: {s['suppressed']:.1%}" for k, (r, s) in sorted(empirical.items()))
                 + "; criterion 'close to no' = at most 5%")
        k_q = max(empirical)
        r_q = empirical[k_q][0]
        out["gadotti.s3.diff.queries_and_samples"] = Measurement(
            bool((r_q["n_queries"] == 4 * k_q).all() and (r_q["n_samples"] <= 2 * k_q).all()),
            note=f"Complete_{k_q}: every victim cost exactly {4 * k_q} queries and gave at most {2 * k_q} samples")
    return out


def fig2_glue(curves: pd.DataFrame, empirical: Mapping[int, tuple[pd.DataFrame, dict[str, Any]]]) -> dict[str, Any]:
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
        out["emp_kmax"] = max(empirical)
    return out


def plot_fig2(ax: Any, fig2: pd.DataFrame, B: int) -> None:
    """Fig. 2: exact and rounded theory, the empirical points through the proxy, the paper's values."""
    from .. import plotting

    R = claims.reported
    ax.plot(fig2["k"], fig2["theory"], "-", label="theoretical, exact (no rounding)")
    ax.plot(fig2["k"], fig2["rounding"], "--", label="theoretical, rounding (simulation)")
    e = fig2.dropna(subset=["empirical"])
    ax.errorbar(e["k"], e["empirical"], yerr=[e["empirical"] - e["ci_low"], e["ci_high"] - e["empirical"]],
                fmt="o-", capsize=3, label=f"Complete_k through the proxy (B = {B})")
    plotting.paper_points(ax, [5], [R("gadotti.s4.differential_acc_k5")], label="paper, §4 (92.6%)")
    plotting.paper_points(ax, [5, 5], [R("gadotti.abstract.differential_acc_k5"), R("gadotti.s1.differential_acc_k5")],
                          marker="s", label="paper, abstract (89.4%) and §1 (96.8%)")
    plotting.paper_hline(ax, R("gadotti.s4.differential_acc_k2"), label="paper: above 66% at k = 2")
    ax.set(xlabel="k (known attributes)", ylabel="accuracy", title="Fig. 2: accuracy of the differential attack",
           ylim=(0.5, 1.0))
    ax.legend(fontsize=8)


# ---------------------------------------------------------------------------
# Fig. 3: the full differential attack on real data
# ---------------------------------------------------------------------------


def fig3_row(ds_name: str, k: int, res: pd.DataFrame, n_queries: int) -> dict[str, Any]:
    """One row of the Fig. 3 table from a differential experiment."""
    s = atk.summarize_differential(res)
    return {"data set": ds_name, "k*": k, "users": s["n_users"], "unique": s["unique"],
            "correctly inferred": s["accuracy"], "accuracy (unique)": s["accuracy_unique"],
            "ci (unique)": s["accuracy_unique_ci"], "attacked": s["attacked"],
            "precision of the attack's guesses": s["precision_attacked"], "median queries": s["median_queries"],
            "queries": n_queries}


def census_secret_variant(census: Any, reading: str) -> Any:
    """CENSUS with its secret read as ``reading`` (one of :data:`CENSUS_SECRETS`).

    The file records total personal income only as the class ``- 50000`` /
    ``50000+``; [G19] §4 says "total personal income (digitized, null income
    as negative condition)". The readings: the class 50000+ as 1 (the
    chapter's); the other class as 1; or 1 for anyone with a recorded income
    (``wage_per_hour``, ``capital_gains`` or ``dividends_from_stocks`` > 0),
    0 for a null one. The attributes stay the 41 columns of the file.
    """
    from dataclasses import replace as dc_replace

    if reading not in CENSUS_SECRETS:
        raise ValueError(f"reading must be one of {CENSUS_SECRETS}, got {reading!r}")
    data = census.data.copy()
    if reading == CENSUS_SECRETS[1]:
        data[census.secret] = (1 - census.data[census.secret]).astype("int8")
    elif reading == CENSUS_SECRETS[2]:
        data[census.secret] = ((data["wage_per_hour"] > 0) | (data["capital_gains"] > 0)
                               | (data["dividends_from_stocks"] > 0)).astype("int8")
    return dc_replace(census, data=data, positive=reading)


def census_readings(runs: "Runs", census: Any, fig3_results: Mapping[tuple[str, int], tuple[pd.DataFrame, int]],
                    k: int, n: int, bound: int, sweep: Sequence[int]) -> pd.DataFrame:
    """The CENSUS Fig. 3 point at ``k`` under each reading: larger bounds of the search, other secrets.

    First row: the chapter's own run (``fig3_results[("census", k)]``, bound
    ``bound``). Then, on ``n`` users: the chapter's bound and each larger
    bound of ``sweep`` (the same users, so the attacked shares compare), and
    the two other readings of the secret (:data:`CENSUS_SECRETS`) at ``bound``.
    """
    res, nq = fig3_results[("census", k)]
    rows = [{**fig3_row("census", k, res, nq), "secret": CENSUS_SECRETS[0], "bound": bound}]
    by_bound = runs.fig3_bounds(census, k, n, [bound, *sorted(b for b in set(sweep) if b != bound)])
    for b, (res, nq) in by_bound.items():
        rows.append({**fig3_row("census", k, res, nq), "secret": CENSUS_SECRETS[0], "bound": b})
    for sec in CENSUS_SECRETS[1:]:
        res, nq = runs.fig3(census, k, n, bound, secret=sec)
        rows.append({**fig3_row("census", k, res, nq), "secret": sec, "bound": bound})
    cols = ["secret", "bound", "users", "unique", "attacked", "accuracy (unique)", "ci (unique)",
            "precision of the attack's guesses", "median queries", "queries"]
    return pd.DataFrame(rows)[cols]


def census_readings_text(readings: pd.DataFrame) -> str:
    """The CENSUS readings in two sentences: what a larger bound and another secret change."""
    first = readings.iloc[0]
    prec = FIG3_READINGS["attacked users only"]
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


def census_alternatives(readings: pd.DataFrame) -> dict[str, float]:
    """The CENSUS Fig. 3 claim's value under each alternative of the ledger's two choices.

    Reading of the accuracy (on the chapter's run, the first row): over the
    unique users with random guesses for those not attacked, or over the
    attacked users only. Reading of the secret: the accuracy over the unique
    users for each :data:`CENSUS_SECRETS` (rows at the chapter's bound).

    >>> r = pd.DataFrame({"secret": list(CENSUS_SECRETS), "bound": [10, 10, 10],
    ...                   "accuracy (unique)": [0.55, 0.6, 0.7],
    ...                   "precision of the attack's guesses": [0.83, 0.9, 0.8]})
    >>> census_alternatives(r)["attacked users only"], census_alternatives(r)[CENSUS_SECRETS[2]]
    (0.83, 0.7)
    """
    first = readings.iloc[0]
    out = {label: float(first[col]) for label, col in FIG3_READINGS.items()}
    at_bound = readings[readings["bound"] == first["bound"]].drop_duplicates("secret").set_index("secret")
    out.update({label: float(at_bound.loc[label, "accuracy (unique)"]) for label in CENSUS_SECRETS})
    return out


def measure_fig3(fig3: pd.DataFrame, census_alts: Mapping[str, float] | None = None) -> dict[str, Measurement]:
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
            out[cid] = Measurement(r["accuracy (unique)"], ci=r["ci (unique)"], n=int(r["users"] * r["unique"]),
                                   note=f"{name.upper()}, k* = {k_paper}, {r['users']} users ({r['unique']:.0%} "
                                        f"unique, {r['attacked']:.0%} attacked); precision of the attack's own "
                                        f"guesses {own:.3f}", alternatives=alts)
        else:
            out[cid] = Measurement(None, note=f"not run: k* = {k_paper} not in this run's parameters")
    for cid in ("gadotti.fig3.credit_differential_acc", "gadotti.fig3.cdr_differential_acc"):
        out[cid] = Measurement(None, note="data set not available here")
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


def fig3_glue(fig3: pd.DataFrame) -> dict[str, Any]:
    """The full differential attack on ADULT at the largest k* run: share attacked, precision of its guesses."""
    a = fig3[fig3["data set"] == "adult"].sort_values("k*")
    if not len(a):
        return {"adult_diff_attacked": float("nan"), "adult_diff_precision": float("nan"), "adult_diff_k": 0}
    r = a.iloc[-1]
    return {"adult_diff_attacked": float(r["attacked"]),
            "adult_diff_precision": float(r["precision of the attack's guesses"]), "adult_diff_k": int(r["k*"])}


def alternatives_table(results: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Every recorded reading of the claims that list choices: claim, reading, measured, verdict.

    ``results`` is :attr:`anonlab.claims.Recorder.results`.
    """
    rows = [{"claim": cid, "reading": alt, "measured": a["measured"], "verdict": a["verdict"]}
            for cid, r in results.items() for alt, a in (r.get("alternatives") or {}).items()]
    return pd.DataFrame(rows, columns=["claim", "reading", "measured", "verdict"]).set_index(["claim", "reading"])


def plot_fig3(axes: Sequence[Any], fig3: pd.DataFrame) -> None:
    """Fig. 3, one panel per data set, with the paper's accuracy at its k*."""
    from .. import plotting

    for ax, (name, d) in zip(axes, fig3.groupby("data set", sort=False)):
        ax.plot(d["k*"], d["unique"], "o-", label="unique on A*")
        ax.plot(d["k*"], d["correctly inferred"], "s-", label="correctly inferred (all users)")
        ax.plot(d["k*"], d["accuracy (unique)"], "^-", label="accuracy among unique users")
        cid = FIG3_CLAIMS[name]
        plotting.paper_points(ax, [claims.claim(cid).params["k_star"]], [claims.reported(cid)],
                              label="paper (accuracy)")
        ax.set(xlabel="k* (known attributes)", ylabel="fraction of users", title=f"Fig. 3: {name.upper()}",
               ylim=(0, 1))
        ax.legend(fontsize=8)


# ---------------------------------------------------------------------------
# The cloning attacks: §3.2, Table 1, Fig. 4, Table 2, §5
# ---------------------------------------------------------------------------


def measure_exact_cloning(exact: pd.DataFrame, B: int) -> dict[str, Measurement]:
    """§3.2: without rounding (σ* = 1e-9 on Complete_3) the cloning attack is exact."""
    sx = atk.summarize_cloning(exact)
    return {"gadotti.s3.cloning.exact_without_rounding": Measurement(
        sx["accuracy_pa"], ci=sx["accuracy_pa_ci"], n=int(exact["attackable"].sum()),
        note=f"Complete_3 (B = {B}), {sx['n_users']} users, rounding off, σ* = 1e-9; "
             f"{sx['attackable']:.1%} predicted attackable")}


def table1_row(name: str, k: int, res: pd.DataFrame) -> dict[str, Any]:
    """One row of Table 1 from a cloning experiment."""
    s = atk.summarize_cloning(res)
    return {"data set": name, "k*": k, "users": s["n_users"], "value-unique": s["value_unique"],
            "predicted attackable": s["attackable"], "attackable among value-unique": s["attackable_of_vu"],
            "accuracy_pa": s["accuracy_pa"], "accuracy_pa ci": s["accuracy_pa_ci"], "accuracy_all": s["accuracy_all"],
            "median queries": s["median_queries"], "max queries": s["max_queries"]}


def _farthest(values: Mapping[str, float], lo: float, hi: float) -> str:
    """The key whose value lies farthest outside ``[lo, hi]`` (the first one if all are inside)."""
    return max(values, key=lambda n: max(lo - values[n], values[n] - hi, 0.0))


def measure_table1(cloning_results: Mapping[str, tuple[pd.DataFrame, int]], *, census_k: int | None,
                   n_dummy: int, sigma_star: float, max_subsets_large: int) -> dict[str, Measurement]:
    """Table 1's claims on the ADULT row (exhaustive exploration by default).

    One run gives one accuracy_pa: it is recorded once, under the claim that
    names ADULT's value (§5's 93.3%, ``gadotti.s5.double_test.adult_acc_single``);
    §3.2's "above 93.3% with |Δ| = 10", the abstract's range over data sets
    and §1's all-records range (accuracy_all = attackable share x accuracy_pa
    of the same run) are recorded as not run, with a note pointing to it.
    The CENSUS row (bounded exploration) is shown in the notes, not scored;
    German credit (the CREDIT stand-in) is shown, not scored.
    """
    adult_full = cloning_results["adult"][0]
    sa = atk.summarize_cloning(adult_full)
    n_pa = int(adult_full["attackable"].sum())
    real = {n: atk.summarize_cloning(r) for n, (r, q) in cloning_results.items() if not n.startswith("german")}
    one = "gadotti.s5.double_test.adult_acc_single"
    c_s = real.get("census")
    census_txt = (f"; CENSUS (k* = {census_k}, at most {max_subsets_large} subsets per victim, not scored): "
                  f"accuracy_pa {c_s['accuracy_pa']:.3f}, accuracy_all {c_s['accuracy_all']:.3f}" if c_s else "")
    out = {
        one: Measurement(
            sa["accuracy_pa"], ci=sa["accuracy_pa_ci"], n=n_pa,
            note=f"Table 1's ADULT run (k* = 10, |Δ| = {n_dummy}, σ* = {sigma_star}); the one measurement of "
                 "ADULT's cloning accuracy, which gadotti.s3.cloning.acc_delta10, "
                 "gadotti.abstract.cloning_acc_range and gadotti.s1.cloning_accuracy_all_range refer to"),
        "gadotti.s5.double_test.adult_attackable_single": Measurement(
            sa["attackable"], ci=sa["attackable_ci"], n=sa["n_users"],
            note="predicted attackable among all attacked users"),
        "gadotti.abstract.cloning_share": Measurement(
            None, note=f"not scored twice: ADULT's predicted-attackable share ({sa['attackable']:.3f}) is recorded "
                       "once, under gadotti.s5.double_test.adult_attackable_single" + census_txt),
        "gadotti.s3.cloning.acc_delta10": Measurement(
            None, note=f"not scored twice: ADULT's accuracy_pa ({sa['accuracy_pa']:.3f}) is recorded once, under {one}"),
        "gadotti.abstract.cloning_acc_range": Measurement(
            None, note=f"not scored twice: ADULT's accuracy_pa ({sa['accuracy_pa']:.3f}) is recorded under {one}; "
                       "only ADULT runs the paper's exhaustive exploration" + census_txt),
        "gadotti.s1.cloning_accuracy_all_range": Measurement(
            None, note=f"not scored twice: ADULT's accuracy_all ({sa['accuracy_all']:.3f}) is the attackable share "
                       f"({sa['attackable']:.3f}, gadotti.s5.double_test.adult_attackable_single) times accuracy_pa "
                       f"({sa['accuracy_pa']:.3f}, {one}) of the same run" + census_txt),
    }
    for cid in ("gadotti.s4.credit_k15_accuracy_all", "gadotti.fig4.credit_k6_attackable",
                "gadotti.fig4.credit_k6_correct", "gadotti.s5.double_test.cdr_attackable_single",
                "gadotti.s5.double_test.cdr_attackable_double"):
        out[cid] = Measurement(
            None, note="CREDIT / CDR not available; German credit is shown as a stand-in, not scored")
    return out


def measure_value_unique_range(cloning_results: Mapping[str, tuple[pd.DataFrame, int]],
                               choices: pd.DataFrame) -> dict[str, Measurement]:
    """§1's "between 93% and 100% of all users are value-unique", on ADULT and CENSUS.

    The measured value is the data set farthest outside the range (value-unique
    share on A* of the Table 1 runs). Under each ADULT attribute set of
    :data:`ADULT_ATTRIBUTE_CHOICES` ADULT's share is the population share on
    all 10 columns (``choices``, :func:`attribute_choices`; Table 1's ADULT run
    knows all 10), CENSUS's the run's.
    """
    real = {n: atk.summarize_cloning(r) for n, (r, q) in cloning_results.items() if not n.startswith("german")}
    lo, hi = claims.reported("gadotti.s1.value_unique_range")
    vus = {n: s["value_unique"] for n, s in real.items()}
    far = _farthest(vus, lo, hi)
    alts = {}
    for label, share in choices["value-unique"].items():
        v = {**vus, "adult": float(share)}
        alts[label] = v[_farthest(v, lo, hi)]
    return {"gadotti.s1.value_unique_range": Measurement(
        vus[far], ci=real[far]["value_unique_ci"], alternatives=alts,
        note="value-unique share on A* farthest from the range: " + ", ".join(f"{n} {a:.3f}" for n, a in vus.items())
             + "; ADULT over all records under each attribute set: "
             + ", ".join(f"{a} {v:.3f}" for a, v in choices["value-unique"].items()))}


def table1_glue(adult_full: pd.DataFrame) -> dict[str, Any]:
    """Numbers of Table 1's ADULT row quoted in the prose."""
    sa = atk.summarize_cloning(adult_full)
    return {"adult_acc_pa": sa["accuracy_pa"], "adult_attackable": sa["attackable"], "adult_vu": sa["value_unique"],
            "adult_median_q": sa["median_queries"], "adult_max_q": sa["max_queries"]}


def error_breakdown(res: pd.DataFrame, target_value: int, n_dummy: int,
                    sigma_star: float) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Where the cloning attack errs: predicted-attackable users by value-uniqueness and side of the s = v set.

    Returns the table and the numbers the prose quotes: the measured miss
    rate of victims inside the s = v set against
    :func:`~anonlab.attacks.diffix.cloning_miss_probability`, and the share
    and rate of errors on victims outside it.
    """
    pa = res[res["attackable"]].assign(inside=lambda d: d["truth"] == target_value)
    errs = pa.groupby([pa["value_unique"].map({True: "value-unique on A*", False: "not value-unique"}),
                       pa["inside"].map({True: f"in the s = {target_value} set", False: "outside it"})])[
        "correct"].agg(["size", "mean"]).rename(columns={"size": "predicted attackable", "mean": "accuracy"})
    errs["errors"] = (errs["predicted attackable"] * (1 - errs["accuracy"])).round().astype(int)
    n_err = max(1, int(errs["errors"].sum()))
    inside, outside = pa[pa["inside"]], pa[~pa["inside"]]
    numbers = {
        "err_outside_share": float((~outside["correct"]).sum() / n_err),
        "err_outside_rate": float((~outside["correct"]).mean()) if len(outside) else float("nan"),
        "miss_measured": float((~inside["correct"]).mean()) if len(inside) else float("nan"),
        "miss_expected": atk.cloning_miss_probability(n_dummy, sigma_star),
        "pa_nvu_n": int((~pa["value_unique"]).sum()),
    }
    return errs, numbers


def fig4_table(runs: Sequence[tuple[str, int, pd.DataFrame]]) -> pd.DataFrame:
    """Fig. 4: :func:`~anonlab.attacks.diffix.summarize_cloning` per (data set, k*), sorted."""
    rows = [{"data set": name, "k*": k, **atk.summarize_cloning(res)} for name, k, res in runs]
    return pd.DataFrame(rows).sort_values(["data set", "k*"])


def measure_fig4(fig4: pd.DataFrame) -> dict[str, Measurement]:
    """Fig. 4: the validation heuristics work on ADULT.

    Criterion: at every k*, |value-unique − predicted attackable| ≤ 0.05 and
    accuracy_pa ≥ 0.8 (ADULT, exhaustive exploration); the gaps with the
    bounded exploration on other data sets are reported in the note.
    """
    scored = fig4[fig4["data set"] == "adult"]
    gap_s = (scored["value_unique"] - scored["attackable"]).abs()
    gap_all = (fig4["value_unique"] - fig4["attackable"]).abs().groupby(fig4["data set"]).max()
    return {"gadotti.fig4.validation_effective": Measurement(
        bool(gap_s.max() <= 0.05 and (scored["accuracy_pa"] >= 0.8).all()),
        note=f"ADULT (exhaustive exploration): largest |value-unique - attackable| {gap_s.max():.3f} (criterion "
             f"0.05), lowest accuracy_pa {scored['accuracy_pa'].min():.3f} (criterion 0.8); with the bounded "
             "exploration: " + ", ".join(f"{n} {v:.3f}" for n, v in gap_all.items() if n != "adult"))}


def plot_fig4(axes: Sequence[Any], fig4: pd.DataFrame) -> None:
    """Fig. 4, one panel per data set; on ADULT the paper's attackable share and its product with accuracy_pa."""
    from .. import plotting

    R = claims.reported
    for ax, name in zip(axes, dict.fromkeys(fig4["data set"])):
        d = fig4[fig4["data set"] == name]
        ax.plot(d["k*"], d["value_unique"], "o-", label="value-unique")
        ax.plot(d["k*"], d["attackable"], "s-", label="predicted attackable")
        ax.plot(d["k*"], d["accuracy_all"], "^-", label="correctly inferred")
        if name == "adult":
            att = R("gadotti.s5.double_test.adult_attackable_single")
            plotting.paper_points(ax, [10, 10], [att, att * R("gadotti.s3.cloning.acc_delta10")],
                                  label="paper (attackable; attackable x accuracy_pa)")
        ax.set(xlabel="k*", ylabel="fraction of users", ylim=(0, 1.02),
               title=f"Fig. 4: {name.upper() if name != 'german' else 'German credit (CREDIT stand-in)'}")
        ax.legend(fontsize=8)


def measure_value_unique_classes(classes: pd.Series, choices: pd.DataFrame) -> dict[str, Measurement]:
    """§4: mean and largest size of ADULT's value-unique classes (the paper: 1.44 and 4).

    ``classes`` on the chapter's attributes; ``choices`` (:func:`attribute_choices`)
    gives both statistics under every attribute set the ledger lists, since
    the paper does not say which 10 columns it keeps.
    """
    note = "all 10 attributes; the paper does not say which; under the other sets: "
    return {
        "gadotti.s4.adult_value_unique_class_mean": Measurement(
            float(classes.mean()), n=len(classes),
            note=note + ", ".join(f"{a} {v:.3f}" for a, v in choices["class mean"].items()),
            alternatives={a: float(v) for a, v in choices["class mean"].items()}),
        "gadotti.s4.adult_value_unique_class_max": Measurement(
            int(classes.max()), n=len(classes),
            note=note + ", ".join(f"{a} {int(v)}" for a, v in choices["class max"].items()),
            alternatives={a: int(v) for a, v in choices["class max"].items()}),
    }


def shuffled_comparison(original: pd.DataFrame, shuffled: pd.DataFrame) -> pd.DataFrame:
    """The cloning attack on ADULT with the original and with a permuted secret, side by side."""
    return pd.DataFrame({"original": atk.summarize_cloning(original),
                         "secret shuffled": atk.summarize_cloning(shuffled)}).loc[
        ["n_users", "value_unique", "attackable", "accuracy_pa", "accuracy_all", "median_queries"]]


def measure_shuffled(original: pd.DataFrame, shuffled: pd.DataFrame) -> dict[str, Measurement]:
    """§4: no correlation needed. Criterion: accuracy_pa within 0.03 and attackable within 0.05."""
    ss, so = atk.summarize_cloning(shuffled), atk.summarize_cloning(original)
    same = bool(abs(ss["accuracy_pa"] - so["accuracy_pa"]) <= 0.03 and abs(ss["attackable"] - so["attackable"]) <= 0.05)
    return {"gadotti.s4.random_secret_same": Measurement(
        same, note=f"shuffled vs original: accuracy_pa {ss['accuracy_pa']:.3f} vs {so['accuracy_pa']:.3f}, attackable "
                   f"{ss['attackable']:.3f} vs {so['attackable']:.3f} (criterion: within 0.03 and 0.05)")}


def table2(full: pd.DataFrame, greedy: pd.DataFrame, census_full: pd.DataFrame | None = None,
           census_greedy: pd.DataFrame | None = None, census_k: int | None = None,
           max_subsets_large: int | None = None) -> pd.DataFrame:
    """Table 2: full against greedy cloning on ADULT with the paper's values; on CENSUS too when given."""
    R = claims.reported
    sa, sg = atk.summarize_cloning(full), atk.summarize_cloning(greedy)
    out = pd.DataFrame({
        "targeted": [sa["attackable"], sg["attackable"]],
        "accuracy": [sa["accuracy_pa"], sg["accuracy_pa"]],
        "median queries": [sa["median_queries"], sg["median_queries"]],
        "max queries": [sa["max_queries"], sg["max_queries"]],
        "paper targeted": [R("gadotti.s5.double_test.adult_attackable_single"), R("gadotti.app_b.greedy_targeted")],
        "paper accuracy": [R("gadotti.s3.cloning.acc_delta10"), R("gadotti.app_b.greedy_accuracy")],
        "paper median queries": [R("gadotti.abstract.median_queries"), R("gadotti.app_b.greedy_max_queries")],
    }, index=["FullCloningAttack", "GreedyFullCloningAttack"])
    if census_greedy is not None and census_full is not None:
        sfc, sgc = atk.summarize_cloning(census_full), atk.summarize_cloning(census_greedy)
        out.loc[f"FullCloningAttack, CENSUS k* = {census_k} (≤ {max_subsets_large} subsets)"] = [
            sfc["attackable"], sfc["accuracy_pa"], sfc["median_queries"], sfc["max_queries"], np.nan, np.nan, np.nan]
        out.loc[f"GreedyFullCloningAttack, CENSUS k* = {census_k}"] = [
            sgc["attackable"], sgc["accuracy_pa"], sgc["median_queries"], sgc["max_queries"], np.nan, np.nan, np.nan]
    return out


def measure_greedy(full: pd.DataFrame, greedy: pd.DataFrame, bounded: pd.DataFrame, *, n_known: int, n_dummy: int,
                   max_subsets: int | None, max_subsets_large: int, probe_queries: int,
                   probe_value_unique: bool) -> dict[str, Measurement]:
    """App. B, §3 and the abstract's query counts: the greedy attack against the full one on ADULT.

    Ratios are full / greedy (median and maximum queries); "almost the same
    accuracy" means within 0.03. ``probe_queries`` are the queries of one
    round of the tests and the attack, counted by a fresh proxy. How far the
    full attack's subset exploration goes is not stated (the ledger's
    :data:`EXPLORATION_CHOICES`): ``full`` explores up to ``max_subsets``,
    ``bounded`` (fewer users) up to ``max_subsets_large``; every query count
    is given under both. §3.2's "factor of 100" is also read as the ratio of
    the maxima (:data:`FACTOR_READINGS`).
    """
    sa, sg, sb = atk.summarize_cloning(full), atk.summarize_cloning(greedy), atk.summarize_cloning(bounded)
    e_all, e_b = EXPLORATION_CHOICES
    med_ratio = sa["median_queries"] / sg["median_queries"]
    max_ratio = sa["max_queries"] / sg["max_queries"]
    med_ratio_b = sb["median_queries"] / sg["median_queries"]
    max_ratio_b = sb["max_queries"] / sg["max_queries"]
    bnote = (f"; at most {max_subsets_large} subsets ({sb['n_users']} users): median {sb['median_queries']:g}, "
             f"max {sb['max_queries']}")
    return {
        "gadotti.app_b.greedy_targeted": Measurement(sg["attackable"], ci=sg["attackable_ci"], n=sg["n_users"]),
        "gadotti.app_b.greedy_accuracy": Measurement(sg["accuracy_pa"], ci=sg["accuracy_pa_ci"],
                                                     n=int(greedy["attackable"].sum())),
        "gadotti.app_b.greedy_max_queries": Measurement(
            sg["max_queries"], note=f"bound |A*| + 2|Δ| + 2 = {atk.greedy_query_bound(n_known, n_dummy)}; "
                                    f"median {sg['median_queries']:g}"),
        "gadotti.abstract.median_queries": Measurement(
            sa["median_queries"], n=sa["n_users"], alternatives={e_all: sa["median_queries"], e_b: sb["median_queries"]},
            note=f"ADULT full cloning attack, max_subsets = {max_subsets}: max {sa['max_queries']}, mean "
                 f"{sa['mean_queries']:.0f}" + bnote),
        "gadotti.app_b.full_median_ratio": Measurement(
            med_ratio, alternatives={e_all: med_ratio, e_b: med_ratio_b},
            note=f"median {sa['median_queries']:g} / {sg['median_queries']:g}" + bnote),
        "gadotti.s3.median_reduction_factor": Measurement(
            med_ratio, alternatives={FACTOR_READINGS[0]: med_ratio, FACTOR_READINGS[1]: max_ratio,
                                     e_all: med_ratio, e_b: med_ratio_b},
            note=f"median ratio {med_ratio:.1f} (as App. B's 'about 10 times'), maximum ratio {max_ratio:.1f}; "
                 f"with at most {max_subsets_large} subsets: median ratio {med_ratio_b:.1f}"),
        "gadotti.app_b.full_max_ratio": Measurement(
            max_ratio, alternatives={e_all: max_ratio, e_b: max_ratio_b},
            note=f"max {sa['max_queries']} / {sg['max_queries']}; max_subsets = {max_subsets}" + bnote),
        "gadotti.app_b.accuracy_almost_same": Measurement(
            bool(abs(sa["accuracy_pa"] - sg["accuracy_pa"]) <= 0.03),
            note=f"full {sa['accuracy_pa']:.3f} vs greedy {sg['accuracy_pa']:.3f} (criterion: within 0.03)"),
        "gadotti.s3.cloning.queries_per_subset": Measurement(
            probe_queries, note=f"ValueUnique {'passed' if probe_value_unique else 'failed'}; 1 + 2|Δ| queries when "
                                "it passes, counted by the proxy"),
    }


def query_count_table(full: pd.DataFrame, bounded: pd.DataFrame, greedy: pd.DataFrame, max_subsets: int | None,
                      max_subsets_large: int) -> pd.DataFrame:
    """Queries per ADULT user of the full cloning attack under each exploration, and of the greedy one."""
    rows = {}
    for label, res in ((f"full, max_subsets = {max_subsets}", full), (f"full, at most {max_subsets_large} subsets",
                                                                     bounded), ("greedy", greedy)):
        s = atk.summarize_cloning(res)
        rows[label] = {"users": s["n_users"], "predicted attackable": s["attackable"], "accuracy_pa": s["accuracy_pa"],
                       "median queries": s["median_queries"], "max queries": s["max_queries"]}
    out = pd.DataFrame(rows).T
    g = out.loc["greedy"]
    out["median / greedy"] = out["median queries"] / g["median queries"]
    out["max / greedy"] = out["max queries"] / g["max queries"]
    return out


def greedy_glue(full: pd.DataFrame, greedy: pd.DataFrame, census_full: pd.DataFrame | None = None,
                census_greedy: pd.DataFrame | None = None, census_k: int | None = None) -> dict[str, Any]:
    """Numbers and the CENSUS sentence of Table 2 quoted in the prose."""
    sa, sg = atk.summarize_cloning(full), atk.summarize_cloning(greedy)
    out: dict[str, Any] = {"greedy_targeted": sg["attackable"], "greedy_acc": sg["accuracy_pa"],
                           "med_ratio": sa["median_queries"] / sg["median_queries"],
                           "max_ratio": sa["max_queries"] / sg["max_queries"]}
    if census_greedy is not None and census_full is not None:
        sgc, sfc = atk.summarize_cloning(census_greedy), atk.summarize_cloning(census_full)
        out["census_greedy_text"] = (
            f"with k* = {census_k} it targets {sgc['attackable']:.1%} of {sgc['n_users']} CENSUS users "
            f"and is {sgc['accuracy_pa']:.1%} accurate with at most {sgc['max_queries']} queries each, where the "
            f"bounded full exploration reaches {sfc['attackable']:.1%}")
    else:
        out["census_greedy_text"] = "it was not run on CENSUS here (census_k_star is empty)"
    return out


def tradeoff_table(single: pd.DataFrame, double: pd.DataFrame) -> pd.DataFrame:
    """§5: the single test (Table 1's run) against the double test, with the paper's values."""
    R = claims.reported
    s1, s2 = atk.summarize_cloning(single), atk.summarize_cloning(double)
    return pd.DataFrame({
        "predicted attackable": [s1["attackable"], s2["attackable"]],
        "accuracy_pa": [s1["accuracy_pa"], s2["accuracy_pa"]],
        "accuracy_all": [s1["accuracy_all"], s2["accuracy_all"]],
        "median queries": [s1["median_queries"], s2["median_queries"]],
        "paper attackable": [R("gadotti.s5.double_test.adult_attackable_single"),
                             R("gadotti.s5.double_test.adult_attackable_double")],
        "paper accuracy_pa": [R("gadotti.s5.double_test.adult_acc_single"),
                              R("gadotti.s5.double_test.adult_acc_double")],
    }, index=[f"single test ({s1['n_users']} users)", f"double test ({s2['n_users']} users)"])


def measure_double(double: pd.DataFrame) -> dict[str, Measurement]:
    """§5: the double test's accuracy and attackable share on ADULT (k* = 10)."""
    sd = atk.summarize_cloning(double)
    return {
        "gadotti.s5.double_test.adult_acc_double": Measurement(
            sd["accuracy_pa"], ci=sd["accuracy_pa_ci"], n=int(double["attackable"].sum()),
            note=f"{sd['n_users']} ADULT users, k* = 10"),
        "gadotti.s5.double_test.adult_attackable_double": Measurement(
            sd["attackable"], ci=sd["attackable_ci"], n=sd["n_users"]),
    }


def sigma_sweep_table(runs: Runs, ds: Any, n: int, cap: int | None, sigmas: Sequence[float]) -> pd.DataFrame:
    """§5's trade-off: the single and the double test at every σ* of ``sigmas``, one row per (σ*, test).

    The victims know every attribute of ``ds``; each test explores once for
    all σ* (:meth:`Runs.sigma_sweep`). Rows as :func:`sigma_sweep_row`.
    """
    k = len(ds.attributes)
    by_test = {dbl: runs.sigma_sweep(ds, k, n, cap, sigmas, double=dbl) for dbl in (False, True)}
    return pd.DataFrame([sigma_sweep_row(ds, by_test[dbl][s], s, dbl) for s in sigmas for dbl in (False, True)])


def sigma_sweep_row(ds: Any, res: pd.DataFrame, sigma: float, double: bool) -> dict[str, Any]:
    """Coverage, precision and PI (against the majority guess) of one cloning run at one σ*."""
    y = yardstick_row(ds, "", atk.cloning_result(res))
    return {"test": "double" if double else "single", "σ*": sigma, "coverage": y["coverage"],
            "precision": y["precision"], "PI": y["PI"]}


def plot_sigma_sweep(ax: Any, sweep: pd.DataFrame, n_users: int) -> None:
    """Precision against coverage of the single and double tests across σ*, with the paper's two points."""
    from .. import plotting

    R = claims.reported
    for test, d in sweep.groupby("test"):
        ax.plot(d["coverage"], d["precision"], "o-", label=f"{test} test")
        for _, r in d.iterrows():
            ax.annotate(f"σ*={r['σ*']:g}", (r["coverage"], r["precision"]), fontsize=7, xytext=(4, 3),
                        textcoords="offset points")
    plotting.paper_points(ax, [R("gadotti.s5.double_test.adult_attackable_single"),
                               R("gadotti.s5.double_test.adult_attackable_double")],
                          [R("gadotti.s5.double_test.adult_acc_single"), R("gadotti.s5.double_test.adult_acc_double")],
                          label="paper, σ* = 0.7 (single, double)")
    ax.set(xlabel="coverage (predicted attackable)", ylabel="precision (accuracy_pa)",
           title=f"ADULT, {n_users} users: precision against coverage")
    ax.legend(fontsize=8)


def sweep_text(sweep: pd.DataFrame) -> str:
    """The σ* sweep in one sentence (coverage and precision ranges of each test)."""
    sgl, dbl = sweep[sweep["test"] == "single"], sweep[sweep["test"] == "double"]
    best = sgl.loc[sgl["precision"].idxmax()]
    return (f"The single test covers {sgl['coverage'].iloc[0]:.1%} of these users whatever σ*, with precision "
            f"from {sgl['precision'].min():.1%} to {sgl['precision'].max():.1%} (best at σ* = {best['σ*']:g}); the "
            f"double test covers {dbl['coverage'].min():.1%} to {dbl['coverage'].max():.1%} with precision from "
            f"{dbl['precision'].min():.1%} to {dbl['precision'].max():.1%}.")


# ---------------------------------------------------------------------------
# Verdict
# ---------------------------------------------------------------------------


def unmeasured_claims() -> dict[str, Measurement]:
    """Claims of the paper this chapter does not measure, with the reason."""
    out = {cid: Measurement(None, note="a result of another paper on location data, not available here")
           for cid in ("gadotti.s6.pyrgelis_correct", "gadotti.s6.pyrgelis_queries")}
    out["gadotti.s6.dinur_nissim_sqrt_n"] = Measurement(
        None, note="a cited result (Dinur-Nissim); not reproduced in this chapter")
    out["gadotti.s3.diff.correlation_negligible"] = Measurement(
        None, note="not measured: on Complete_k no two pairs share a query set; see Beyond the paper for the "
                   "correlation Diffix's shared static noise does create")
    return out


def verdict_key(claim_id: str) -> str:
    """The glue key of a claim's verdict: ``gadotti.s2.sticky_noise`` -> ``v_s2_sticky_noise``.

    >>> verdict_key("gadotti.s5.double_test.adult_acc_single")
    'v_s5_double_test_adult_acc_single'
    """
    return "v_" + claim_id.removeprefix("gadotti.").replace(".", "_")


def verdict_phrase(verdict: pd.DataFrame, claim_id: str) -> str:
    """A claim's recorded verdict as the prose quotes it, e.g. ``reproduced`` or ``not run``.

    ``verdict`` is the table :meth:`~anonlab.claims.Recorder.record_all` returns.

    >>> verdict_phrase(pd.DataFrame({"verdict": ["inconclusive"]}, index=["a"]), "a")
    'inconclusive'
    """
    return str(verdict.loc[claim_id, "verdict"])


def verdict_glue(verdict: pd.DataFrame, fig3: pd.DataFrame) -> dict[str, Any]:
    """Counts of verdicts and the Fig. 3 / CENSUS sentences of the verdict's prose.

    ``verdict`` is the table :meth:`~anonlab.claims.Recorder.record_all` returns (indexed by claim id).
    """
    counts = verdict["verdict"].value_counts()
    out: dict[str, Any] = {f"n_{v.replace(' ', '_')}": int(counts.get(v, 0)) for v in claims.VERDICTS}
    out["n_claims"] = len(verdict)
    out.update({verdict_key(c.id): verdict_phrase(verdict, c.id) if c.id in verdict.index else "not run"
                for c in claims.load_ledger() if c.chapter == CHAPTER.name})
    parts = []
    for name, cid in FIG3_CLAIMS.items():
        k_paper = claims.claim(cid).params["k_star"]
        row = fig3[(fig3["data set"] == name) & (fig3["k*"] == k_paper)]
        if len(row):
            parts.append(f"{row['accuracy (unique)'].iloc[0]:.1%} accurate on {name.upper()} at k* = {k_paper} "
                         f"(the paper: {claims.reported(cid):.1%}; {verdict.loc[cid, 'verdict']})")
    out["fig3_text"] = "; ".join(parts) if parts else "not run with these parameters"
    c_rows = fig3[fig3["data set"] == "census"].sort_values("k*")
    out["census_diff_text"] = (f"at k* = {c_rows['k*'].iloc[-1]} the differential attack reaches only "
                               f"{c_rows['attacked'].iloc[-1]:.0%} of {c_rows['users'].iloc[-1]} CENSUS victims "
                               f"although {c_rows['unique'].iloc[-1]:.0%} are unique"
                               if len(c_rows) else "CENSUS was not run with these parameters")
    return out


# ---------------------------------------------------------------------------
# Beyond the paper: the one yardstick
# ---------------------------------------------------------------------------


def yardstick_baselines(ds: Any, result: AttackResult) -> tuple[AttackResult, AttackResult]:
    """The two baselines of a binary secret on a result's targets.

    The majority guess (:func:`anonlab.measures.majority_baseline` over the
    data set's secret column), and, for the rare value ``m = 1 - majority``,
    the guesser who says ``m`` for everybody (whose precision is the
    prevalence of ``m``).
    """
    base = measures.majority_baseline(result.truth, reference=ds.data[ds.secret].to_numpy(),
                                      targets=result.targets)
    rare = 1 - int(ds.majority)
    n = result.n_targets
    always_rare = AttackResult("rare value for everyone", result.targets, result.truth, np.ones(n, dtype=bool),
                               np.full(n, rare), positive=rare)
    return base, always_rare


def yardstick_row(ds: Any, attack: str, result: AttackResult) -> dict[str, Any]:
    """One attack scored by :func:`anonlab.measures.score` in two readings of [FW24] §4, at its own coverage.

    * all guesses, against the majority guess on the same targets: ``precision``,
      ``baseline_precision``, ``PI`` (Eq. 6);
    * the rare value ``m = 1 - majority``, on the targets it predicts for:
      ``precision_rare = P(truth = m | guess = m)``, the baseline is the
      prevalence of ``m`` among them (``baseline_rare``), ``PI_rare``, and
      ``recall_rare``, the share of covered targets with ``m`` it finds.

    ``nan`` where a ratio has no denominator.

    >>> class DS:  # a data set whose majority secret is 0
    ...     data = pd.DataFrame({"s": [0, 0, 0, 1]}); secret = "s"; majority = 0; name = "toy"
    >>> r = AttackResult("toy", [0, 1, 2, 3, 4], [0, 1, 1, 0, 1], [True, True, True, True, False], [0, 1, 0, 0, 1])
    >>> y = yardstick_row(DS, "toy", r)
    >>> y["coverage"], y["precision"], y["baseline_precision"], y["PI"]
    (0.8, 0.75, 0.5, 0.5)
    >>> y["rare_guesses"], y["precision_rare"], y["baseline_rare"], y["recall_rare"]
    (1, 1.0, 0.5, 0.5)
    """
    base, always_rare = yardstick_baselines(ds, result)
    s = measures.score(result, base)
    row = {"data set": ds.name, "attack": attack, "targets": s.n_targets, "coverage": s.coverage,
           "precision": s.precision, "baseline_precision": s.baseline_precision, "PI": s.precision_improvement}
    nan = float("nan")
    if not result.predicted.any():
        return {**row, "rare_guesses": 0, "precision_rare": nan, "baseline_rare": nan, "PI_rare": nan,
                "recall_rare": nan}
    covered = result.subset(result.predicted)
    rare = replace(covered, positive=always_rare.positive)
    r = measures.score(rare, always_rare.subset(result.predicted))
    return {**row, "rare_guesses": r.n_predictions, "precision_rare": r.precision,
            "baseline_rare": r.baseline_precision, "PI_rare": r.precision_improvement,
            "recall_rare": r.recall if r.recall is not None else nan}


def yardstick_glue(yard: pd.DataFrame, diff_key: tuple[str, str] | None,
                   census_greedy_key: tuple[str, str] | None) -> dict[str, Any]:
    """Numbers and sentences of the yardstick's prose (ADULT's full cloning attack, the differential
    attack at k* = 10, the greedy attack on CENSUS)."""
    y_full = yard.loc[("adult", "cloning, full (Table 1)")]
    out: dict[str, Any] = {"pi_full": y_full["PI"], "base_full": y_full["baseline_precision"],
                           "pi_rare_full": y_full["PI_rare"], "recall_rare_full": y_full["recall_rare"]}
    if diff_key is not None and diff_key in yard.index:
        y = yard.loc[diff_key]
        out["diff_yard_text"] = (
            f"The full differential attack's own guesses on ADULT (k* = 10) are right {y['precision']:.1%} "
            f"of the time, against {y['baseline_precision']:.1%} for the majority guess on the same targets: PI "
            f"{y['PI']:+.2f}" + (", worse than knowing only the base rate." if y["PI"] < 0 else "."))
    else:
        out["diff_yard_text"] = "The differential attack on ADULT at k* = 10 was not run with these parameters."
    if census_greedy_key is not None and census_greedy_key in yard.index:
        y = yard.loc[census_greedy_key]
        out["census_yard_text"] = (
            f"On CENSUS the majority guess is right {y['baseline_precision']:.1%} of the time on the "
            f"greedy attack's targets, so its accuracy of {y['precision']:.1%} is a PI of {y['PI']:+.2f}; but its "
            f"{int(y['rare_guesses'])} guesses of the rare value are right {y['precision_rare']:.1%} of the time "
            f"against a base rate of {y['baseline_rare']:.1%} (PI {y['PI_rare']:.2f}), and they find "
            f"{y['recall_rare']:.0%} of the high earners among its targets.")
    else:
        out["census_yard_text"] = "CENSUS was not run with these parameters."
    return out


def census_bias_text(yard: pd.DataFrame, census: Any | None) -> str:
    """Does whom the non-greedy attacks choose to attack on CENSUS depend on the secret?

    For each such attack with coverage: of the ``n`` users it covers, ``k``
    have the majority secret; a one-sided binomial test against the data
    set's share of the majority value (strong evidence when every p < 0.01).
    """
    biased = [(a, r) for (d, a), r in yard.iterrows() if d == "census" and "greedy" not in a and r["coverage"] > 0]
    if census is None or not biased:
        return "(CENSUS was not run with these parameters.)"
    prev0 = float((census.data[census.secret] == census.majority).mean())
    parts, p_vals, all_major = [], [], []
    for a, r in biased:
        n_cov = int(round(r["coverage"] * r["targets"]))
        k_maj = int(round(r["baseline_precision"] * n_cov))
        p_vals.append(stats.binomtest(k_maj, n_cov, prev0, alternative="greater").pvalue)
        all_major.append(k_maj == n_cov)
        phrase = a.replace("cloning, full", "the full cloning attack").replace(
            "differential, full", "the full differential attack")
        parts.append(f"{k_maj} of the {n_cov} users {phrase} covers (binomial test against the base rate: "
                     f"p = {p_vals[-1]:.2g})")
    text = f"On CENSUS {prev0:.1%} of the users have the majority secret; so do " + " and ".join(parts) + ". "
    text += ("That is strong evidence that whom these attacks choose to attack depends on the secret. "
             if max(p_vals) < 0.01 else
             "At this number of users that is only weak evidence that whom these attacks choose to attack "
             "depends on the secret (more users, through fig3_users_census and fig4_users, would settle it). ")
    if any(all_major):
        text += ("Where every covered user has the majority secret, guessing that value is never wrong there, "
                 "so an accuracy below 100% on those users is worse than knowing the base rate.")
    return text


def plot_yardstick(ax: Any, yard: pd.DataFrame) -> None:
    """Each attack's precision at its coverage (dot) against the majority guess on the same targets (bar)."""
    for (dsn, attack), r in yard.iterrows():
        line = ax.plot(r["coverage"], r["precision"], "o", ms=7, label=f"{dsn.upper()}: {attack}")[0]
        ax.plot([r["coverage"]] * 2, [r["baseline_precision"], r["precision"]], "-", color=line.get_color(), lw=1)
        ax.plot(r["coverage"], r["baseline_precision"], "_", color=line.get_color(), ms=16, mew=2)
    ax.set(xlabel="coverage (share of the targets the attack guesses for)", ylabel="precision of the guesses",
           xlim=(0, 1.02), ylim=(0.4, 1.02),
           title="Each attack (dot) against the majority guess on the same targets (bar)")
    ax.legend(fontsize=7, loc="lower left", ncol=2)


def attribute_choices(full_adult: pd.DataFrame, secret: str = "income") -> pd.DataFrame:
    """Uniqueness and value-unique classes on ADULT for each of :data:`ADULT_ATTRIBUTE_CHOICES`.

    ``full_adult``: the Adult training file without rows with a missing value,
    every column, the secret as 0/1. Shares over all records, on all 10 columns.
    """
    from ..data import diffix_datasets as dd

    rows = []
    for label, attrs in ADULT_ATTRIBUTE_CHOICES.items():
        u = dd.uniqueness(full_adult, attrs, secret)
        cls = dd.value_unique_classes(full_adult, attrs, secret)
        rows.append({"attributes": label, "unique": u["unique"].mean(), "value-unique": u["value_unique"].mean(),
                     "class mean": cls.mean(), "class max": cls.max()})
    return pd.DataFrame(rows).set_index("attributes")

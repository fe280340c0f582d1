"""Chapter 3, "The Netflix attack: weighted scoring and eccentricity".

The declaration of the notebook ``03_netflix_eccentricity`` (its parameters
and quick preset), the experiments it runs (Scoreboard-RH on MovieLens 100K,
the user's Netflix Prize copy or synthetic Netflix-shaped data) and the tested
functions that measure its claims (``measure_*``, each returning ``{claim id:
Measurement}``). The figures are in :mod:`anonbook.figures.netflix`, the attack
in :mod:`anonlab.attacks.netflix`; every attack run is scored through the one
protocol (:func:`anonlab.attacks.netflix.attack_result`).

Where the sources leave a choice open the chapter measures every reading and
the ledger's ``choices`` make the verdict computed: the per-movie similarity of
the curves (:data:`SIM_PAPER`, N-S's Netflix scales, or :data:`SIM_MATCHED`, a
0/1 test within the aux's own errors), the worked example's φ
(:func:`example_readings`) and the Sim of Bob's cartoon (:func:`bob_readings`);
:func:`with_readings` folds the readings into one measurement per claim.

[NS08] A. Narayanan and V. Shmatikov, "Robust de-anonymization of large sparse
datasets", IEEE S&P 2008.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonlab import claims
from anonlab.attacks import netflix as nf
from anonbook.figures.netflix import date_error_frame
from anonlab.claims import Measurement
from anonlab.measures import wilson_interval
from anonlab.intervals import mean_difference_interval
from anonlab.data.netflix_synthetic import NETFLIX_SHAPE, RatingMatrix, generate_netflix_like
from anonlab.validation import Param, ParameterError, ParameterSpec
from anonbook.memory import MiB, MemoryEstimate
from anonbook.chapters import Chapter, Exercise
from anonbook.chapters import interval_text as chapters_interval_text
from anonbook.chapters.sentences import Sentence, compare

NAME = "03_netflix_eccentricity"
HEADLINE_8 = "ns.abstract.eight_ratings_two_wrong_14_days"
HEADLINE_2 = "ns.abstract.two_ratings_3_days"
#: The two readings of the per-movie similarity (the ledger's ``choices`` of the curves' claims).
SIM_PAPER = "N-S's Netflix Sim (1.5 stars, 30 days)"
SIM_MATCHED = "Sim matched to the aux errors (1 within them, else 0)"
SIM_READINGS = (SIM_PAPER, SIM_MATCHED)
#: The two readings of the worked example's threshold (the slide gives no φ).
NS_PHI = 1.5
EX_PHI_NS = "φ = 1.5 (N-S's experiments)"
EX_PHI_BELOW = "any φ below the example's eccentricity"
#: The readings of the slide's w(i) = 1/log|supp(i)|, whose base is not printed: label -> base.
WEIGHT_BASES = {"natural log (N-S)": math.e, "log base 2": 2.0, "log base 10": 10.0}
#: The readings of Sim in Bob's cartoon (the slides define none).
BOB_SIMS = {
    "Sim = 1 − |Δ|/5 (the worked example's)": nf.Similarity("linear", 5.0, None),
    "Sim = exp(−|Δ|/1.5) (N-S's Netflix Sim)": nf.Similarity("exponential", 1.5, None),
    "Sim = 1 within ±1 star, else 0 (N-S's 0/1 test)": nf.Similarity("threshold", 1.0, None),
}
DATASETS = ("movielens100k", "netflix-prize", "synthetic")
#: Largest aux size any experiment may use: every MovieLens 100K user rated at
#: least 20 movies and several hundred rated 100 or more.
M_MAX = 100
#: Movies and records of each data set, known before loading (the Netflix Prize: the full set).
N_MOVIES = {"movielens100k": 1_682, "netflix-prize": NETFLIX_SHAPE["n_movies"],
            "synthetic": NETFLIX_SHAPE["n_movies"]}
N_RECORDS = {"movielens100k": 943, "netflix-prize": NETFLIX_SHAPE["n_users"]}


# --------------------------------------------------------------------------- declaration


def scaled_top_k(rare_top: int, n_movies: int) -> int:
    """The "rare movies" cut scaled to the data: ``max(1, round(rare_top * n_movies / 17,770))``.

    [NS08] call a movie rare when it is not among the 500 most rated of the
    Netflix Prize's 17,770. The cut must leave at least one rare movie.

    >>> scaled_top_k(500, 1682)
    47
    >>> scaled_top_k(17_769, 1682)
    Traceback (most recent call last):
    ...
    anonlab.validation.ParameterError: parameter 'rare_top' = 17769 scales to 1682 of the data's 1682 movies; it must leave at least one rare movie (rare_top <= 17764 here)
    """
    k = max(1, round(rare_top * n_movies / NETFLIX_SHAPE["n_movies"]))
    if k >= n_movies:
        limit = max(r for r in range(1, NETFLIX_SHAPE["n_movies"])
                    if max(1, round(r * n_movies / NETFLIX_SHAPE["n_movies"])) < n_movies)
        raise ParameterError(f"parameter 'rare_top' = {rare_top} scales to {k} of the data's {n_movies} "
                             f"movies; it must leave at least one rare movie (rare_top <= {limit} here)")
    return k


def theorem_m(n_records: int, epsilon: float, delta: float) -> int:
    """The theorem's sufficient aux size as a whole number of movies, ``ceil(m_bound)``.

    >>> theorem_m(943, 0.05, 0.5)
    15
    """
    return math.ceil(nf.m_bound(n_records, epsilon, delta))


def _check_netflix_path(v: Mapping[str, Any]) -> None:
    """``netflix_path`` is given exactly when ``dataset`` is ``"netflix-prize"``, and looks like the data
    (:func:`anonlab.data.loaders.check_netflix_source`: a readable, non-empty rating file, or a folder of them)."""
    if v["dataset"] == "netflix-prize" and v["netflix_path"] is None:
        raise ParameterError("parameter 'netflix_path' must name your copy of the Netflix Prize data "
                             "(a combined_data file) when dataset = 'netflix-prize'")
    if v["dataset"] != "netflix-prize" and v["netflix_path"] is not None:
        raise ParameterError(f"parameter 'netflix_path' is only read with dataset = 'netflix-prize', "
                             f"got dataset = {v['dataset']!r}: leave netflix_path = None")
    if v["netflix_path"] is not None:
        from anonlab.data import DataFileNotFoundError, DataFormatError
        from anonlab.data.loaders import check_netflix_source

        try:
            check_netflix_source(v["netflix_path"])  # before any cell: a FIFO, a folder, /etc/shadow
        except (DataFileNotFoundError, DataFormatError) as exc:
            raise ParameterError(f"parameter 'netflix_path': {str(exc)[:300]}") from None


def _check_aux_sizes(v: Mapping[str, Any]) -> None:
    """The error sweep draws ``pc_m`` movies from targets chosen for ``max(m_grid)``."""
    if v["pc_m"] > max(v["m_grid"]):
        raise ParameterError(f"parameter 'pc_m' = {v['pc_m']} must be <= max(m_grid) = {max(v['m_grid'])}: "
                             "its targets are drawn among users with max(m_grid) movies")


def _check_theorem_m(v: Mapping[str, Any]) -> None:
    """The theorem's experiment uses an aux of the bound's size: it must stay <= ``M_MAX``."""
    n = v["synthetic_users"] if v["dataset"] == "synthetic" else N_RECORDS[v["dataset"]]
    m = theorem_m(n, v["theorem_epsilon"], v["theorem_delta"])
    if m > M_MAX:
        raise ParameterError(f"parameters 'theorem_epsilon' = {v['theorem_epsilon']} and 'theorem_delta' = "
                             f"{v['theorem_delta']} need an aux of m = {m} movies for N = {n:,}; "
                             f"the experiment allows m <= {M_MAX} (raise delta or epsilon)")


def _check_rare_top(v: Mapping[str, Any]) -> None:
    """The scaled "rare movies" cut must leave a rare movie in the data of the main curves."""
    scaled_top_k(v["rare_top"], N_MOVIES[v["dataset"]])


PARAMETERS = ParameterSpec([
    Param("dataset", "choice", "movielens100k", "data of the main curves: MovieLens 100K (real, fetched), "
          "your Netflix Prize copy (see netflix_path) or synthetic", choices=DATASETS),
    Param("netflix_path", "path", None,
          "your Netflix Prize copy: the training_set folder or a combined_data file (only with dataset "
          "'netflix-prize'); None: not available", nullable=True),
    Param("m_grid", "int_list", [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20],
          "aux sizes m (movies the adversary knows)", low=1, high=M_MAX, max_len=40),
    Param("n_targets", "int", 500, "targets attacked per curve, drawn without replacement", low=10, high=5_000),
    Param("phi", "float", 1.5, "eccentricity threshold φ ([NS08]: 1.5)", low=0, high=100),
    Param("phi_grid", "float_list", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0],
          "thresholds swept for precision and coverage", low=0, high=100, max_len=40),
    Param("rating_scale", "float", 1.5, "ρ0 of the Netflix similarity exp(-|Δrating|/ρ0), stars ([NS08]: 1.5)",
          low=0, high=10, low_inclusive=False),
    Param("date_scale", "float", 30.0, "d0 of the Netflix similarity exp(-|Δdays|/d0), days ([NS08]: 30)",
          low=0, high=3_000, low_inclusive=False),
    Param("weight_convention", "choice", "natural",
          "attribute weight: 'natural' 1/ln|supp(i)| ([NS08]) or 'slides' 1/log2(|supp(i)|+1)",
          choices=nf.WEIGHT_CONVENTIONS),
    Param("date_errors", "int_list", [3, 14],
          "date errors of the aux for the exact-ratings curves, days ([NS08]: 3 and 14)",
          low=0, high=2_000, max_len=6),
    Param("rating_error", "int", 1, "rating error of the aux for the approximate-ratings curves, stars ([NS08]: 1)",
          low=0, high=4),
    Param("wrong_fraction", "float", 0.25, "share of completely wrong aux entries ([NS08]: 2 of 8)",
          low=0, high=0.9),
    Param("rare_top", "int", 500, "'rare movies': outside the rare_top most-rated of 17,770 movies "
          "([NS08]: 500), scaled to the data's movie count", low=1, high=NETFLIX_SHAPE["n_movies"] - 1),
    Param("few_m", "int", 2, "aux size of the second headline (2 ratings, dates within 3 days)",
          low=1, high=M_MAX),
    Param("pc_m", "int", 8, "aux size of the error sweep, histograms, precision/coverage and amplification "
          "([NS08]: 8)", low=2, high=M_MAX),
    Param("theorem_epsilon", "float", 0.05, "ε of [NS08] Theorem 1", low=0, high=1,
          low_inclusive=False, high_inclusive=False),
    Param("theorem_delta", "float", 0.5, "δ of [NS08] Theorem 1", low=0, high=1,
          low_inclusive=False, high_inclusive=False),
    Param("synthetic_users", "int", 100_000, "users of the synthetic Netflix-shaped data (Netflix: 480,189)",
          low=1_000, high=NETFLIX_SHAPE["n_users"]),
    Param("synthetic_m_grid", "int_list", [1, 2, 3, 4, 6, 8], "aux sizes on the synthetic data",
          low=1, high=M_MAX, max_len=40),
    Param("synthetic_targets", "int", 200, "targets per curve on the synthetic data", low=10, high=5_000),
    Param("seed", "int", 0, "seed of every random draw (targets, aux, synthetic data)", low=0),
], checks=[_check_netflix_path, _check_aux_sizes, _check_theorem_m, _check_rare_top])

def peak_memory(values: Mapping[str, Any]) -> MemoryEstimate:
    """Peak memory: the kernel, 0.9 MB per target (its similarity rows over every record) and 4.5 KB per
    synthetic user, fitted to the runner's measurements (1.1 GB at the defaults, 0.37 GB with --quick)."""
    total = 250 * MiB + 0.9 * MiB * values["n_targets"] + 4_600 * values["synthetic_users"]
    return MemoryEstimate(total, {k: values[k] for k in ("n_targets", "synthetic_users")})

CHAPTER = Chapter(
    name=NAME,
    title="The Netflix attack: weighted scoring and eccentricity",
    parameters=PARAMETERS,
    quick={"m_grid": [1, 2, 4, 8], "n_targets": 40, "synthetic_users": 5000, "synthetic_targets": 20,
           "synthetic_m_grid": [2, 8]},
    data=("movielens100k-ratings",),
    memory=peak_memory,
    goals=(
        "Score every record of a sparse release against an adversary's partial knowledge "
        "(Scoreboard-RH: weights for rare movies, a per-movie similarity, the eccentricity test).",
        "Read a re-identification curve and the precision/coverage trade-off the threshold φ sets, "
        "including for targets who are not in the release.",
        "See how a choice the paper tuned to its data (the similarity's scales) moves the verdicts on other data.",
    ),
    assumes=("the mean and standard deviation of a list of numbers, and a table of users by items with "
             "most cells empty; no privacy background."),
    exercises=(
        Exercise(
            "slides_weights",
            {"weight_convention": "slides"},
            {"rate_ref": "re-identified at m = 8 (exact ratings, dates ±14 d)",
             "top1_ref": "best-scoring record is the target's (no threshold)",
             "ecc_min_m": "mean eccentricity of the targets at m = 1",
             "ecc_at": "mean eccentricity of the targets at m = 8"},
            explain="The mean eccentricity at m = 1 {ecc_min_m:change}: with one known movie every record's "
                    "score is that movie's weight times a similarity, so the weight scales the best score, the "
                    "second best and their spread alike, and the eccentricity, their ratio, cannot move. At m = 8 "
                    "it {ecc_at:change}, and the share re-identified {rate_ref:change}.",
        ),
        Exercise(
            "date_scale3",
            {"date_scale": 3.0},
            {"rate_few": "re-identified at m = 8, dates ±3 d",
             "rate_ref": "re-identified at m = 8, dates ±14 d",
             "fm_at": "removed targets falsely matched at m = 8"},
            explain="At ±3 days the share re-identified {rate_few:change}; {rate_few:overlap}. At ±14 days it "
                    "{rate_ref:change}; {rate_ref:overlap}.",
        ),
        Exercise(
            "phi3",
            {"phi": 3.0},
            {"rate_ref": "re-identified at m = 8 (exact ratings, dates ±14 d)",
             "fm_at": "removed targets falsely matched at m = 8",
             "mixed_prec": "precision, half the targets absent",
             "mixed_cov": "coverage, half the targets absent"},
        ),
        Exercise(
            "rare_top2000",
            {"rare_top": 2000},
            {"top_k": "most-rated movies excluded (scaled to MovieLens)",
             "rare_gain": "mean gain of rare over uniformly chosen movies, across m"},
        ),
        Exercise(
            "scale_n",
            {"synthetic_users": 20_000},
            {"syn_users": "synthetic users", "h8": "re-identified: 8 ratings, 2 wrong, dates ±14 d",
             "h2": "re-identified: 2 ratings, dates ±3 d", "syn_fm": "removed targets falsely matched at m = 8"},
            base={"synthetic_targets": 100},  # 20 targets make a false-match rate of 1 in 20 (wide intervals)
            explain="With four times the subscribers the 8-rating setting {h8:change} ({h8:overlap}) and the "
                    "2-rating one {h2:change} ({h2:overlap}); removed targets are falsely matched at a rate that "
                    "{syn_fm:change} ({syn_fm:overlap}).",
        ),
    ),
)


#: The paper's values the prose quotes: glue key -> claim id (``run.glue_paper``).
PAPER = {**{f"paper_w{i}": f"slides.netflix.weight_v{i}" for i in (1, 2, 3)},
         **{f"paper_s{i}": f"slides.netflix.score_r{i}" for i in (1, 2, 3)},
         "paper_headline_8": HEADLINE_8, "paper_headline_2": HEADLINE_2,
         "detect_min": "ns.empirical.detect_not_in_sample"}
#: The verdicts the prose quotes, in the rules' words: glue key -> claim id (``run.glue_verdicts``).
VERDICT_GLUE = {f"v_{cid.rsplit('.', 1)[-1]}": cid for cid in (
    "slides.netflix.example_output_r1", "slides.netflix.bob_isolation", "ns.empirical.detect_not_in_sample",
    HEADLINE_8, HEADLINE_2, "slides.netflix.weight_v1", "slides.netflix.score_r1")}


# --------------------------------------------------------------------------- data and experiments


def load_data(dataset: str, netflix_path: str | None, synthetic_users: int, seed: int) -> nf.Release:
    """MovieLens 100K (fetched), the user's Netflix Prize copy, or synthetic Netflix-shaped data."""
    from anonlab.data import load_movielens100k, load_netflix_prize

    if dataset == "movielens100k":
        data = RatingMatrix.from_frame(load_movielens100k().ratings)
        return nf.Release(data, "MovieLens 100K", {"dataset": dataset})
    if dataset == "netflix-prize":
        p = Path(str(netflix_path)).expanduser().resolve()
        data = RatingMatrix.from_frame(load_netflix_prize(p))
        st = p.stat()
        return nf.Release(data, "Netflix Prize",
                          {"dataset": dataset, "path": str(p), "size": st.st_size, "mtime": st.st_mtime})
    data = generate_netflix_like(synthetic_users, seed=seed)
    return nf.Release(data, f"synthetic Netflix-shaped data ({synthetic_users:,} users)",
                      {"dataset": "synthetic", "users": synthetic_users, "seed": seed})


def synthetic_source(synthetic_users: int, seed: int, source: nf.Release | None = None) -> nf.Release:
    """The data of the scale section: synthetic Netflix-shaped data (``source`` if it is already
    that data), or the Netflix Prize itself when ``source`` is the user's copy of it."""
    key = {"dataset": "synthetic", "users": synthetic_users, "seed": seed}
    if source is not None and (dict(source.key) == key or source.key.get("dataset") == "netflix-prize"):
        return source
    return load_data("synthetic", None, synthetic_users, seed)


@dataclass(frozen=True)
class CachedExperiment(nf.Experiment):
    """:class:`anonlab.attacks.netflix.Experiment` whose trials go through a chapter run's result cache.

    ``cached`` is :meth:`~anonbook.chapters.kit.ChapterRun.cached`, keyed by the
    data's identity, the targets and every setting; each run prints one progress
    line (label, size, seconds) to standard error, which the publish step moves
    to the kernel log.
    """

    cached: Callable[..., Any] | None = field(default=None, repr=False, compare=False)
    verbose: bool = True

    def run(self, targets: np.ndarray, grid: Sequence[int], label: str, *,
            similarity: nf.Similarity | None = None, **kw: Any) -> pd.DataFrame:
        """:meth:`nf.Experiment.run <anonlab.attacks.netflix.Experiment.run>` through the cache."""
        sim = similarity or self.similarity
        t0 = time.perf_counter()
        compute = lambda: super(CachedExperiment, self).run(targets, grid, label, similarity=sim, **kw)  # noqa: E731
        out = compute() if self.cached is None else self.cached(
            "trials", compute, data=dict(self.data.key), targets=[int(t) for t in targets],
            grid=sorted({int(m) for m in grid}), similarity=[sim.kind, sim.rating_scale, sim.date_scale],
            weights=self.weights, seed=self.seed, **kw)
        if self.verbose:
            print(f"{label}: {len(targets)} targets x {len(set(grid))} aux sizes, {time.perf_counter() - t0:.1f} s",
                  file=sys.stderr)
        return out


def similarity_for(exp: nf.Experiment, reading: str, rating_error: int, date_error: int | None) -> nf.Similarity:
    """The Sim of one curve under ``reading`` (:data:`SIM_PAPER`: the experiment's; :data:`SIM_MATCHED`)."""
    if reading not in SIM_READINGS:
        raise ValueError(f"reading must be one of {SIM_READINGS}, got {reading!r}")
    return exp.similarity if reading == SIM_PAPER else nf.matched_similarity(rating_error, date_error)


def reidentification_curves(exp: nf.Experiment, m_grid: Sequence[int], n_targets: int, date_errors: Sequence[int],
                            rating_error: int, top_k: int, *, reading: str = SIM_PAPER,
                            wrong_fraction: float | None = None) -> nf.Curves:
    """The [NS08] curves: exact ratings with each date error, no dates, approximate ratings,
    approximate ratings on rare movies (outside the ``top_k`` most rated), and the targets removed
    from the release.

    ``reading`` picks the per-movie Sim (:func:`similarity_for`): N-S's
    (the experiment's) or, for each curve, the one matched to its aux errors;
    the targets and their aux are the same under both. With ``wrong_fraction``
    (the scale section's headlines) the curve with that share of wrong entries
    replaces the approximate ratings on uniformly chosen movies.
    """
    grid, d_ref = sorted(m_grid), max(date_errors)
    t_uni = exp.pick_targets(max(grid), n_targets)
    t_rare = exp.pick_targets(max(grid), n_targets, selection="rare", top_movies=top_k)
    tag = "" if reading == SIM_PAPER else " (matched Sim)"

    def run(targets: np.ndarray, label: str, *, date_error: int | None, **kw: Any) -> pd.DataFrame:
        sim = similarity_for(exp, reading, kw.get("rating_error", 0), date_error)
        return exp.run(targets, grid, f"{exp.data.name}: {label}{tag}", similarity=sim, date_error=date_error, **kw)

    tr = {f"exact ratings, dates ±{d} d": run(t_uni, f"exact, ±{d} d", date_error=d) for d in sorted(date_errors)}
    if wrong_fraction is not None:
        tr[f"exact ratings, dates ±{d_ref} d, {wrong_fraction:.0%} wrong"] = run(
            t_uni, "wrong entries", date_error=d_ref, wrong_fraction=wrong_fraction)
    tr["exact ratings, no dates"] = run(t_uni, "no dates", date_error=None)
    if wrong_fraction is None:
        tr[f"ratings ±{rating_error}, dates ±{d_ref} d"] = run(
            t_uni, "approximate ratings", rating_error=rating_error, date_error=d_ref)
    tr[f"ratings ±{rating_error}, dates ±{d_ref} d, rare movies"] = run(
        t_rare, "rare movies", rating_error=rating_error, date_error=d_ref, selection="rare", top_movies=top_k)
    absent = run(t_uni, "targets removed from the data", date_error=d_ref, member=False)
    return nf.Curves(tr, absent, exp.phi, t_uni, t_rare)


def wrong_entry_sweep(exp: nf.Experiment, targets: np.ndarray, m: int, date_error: int | None,
                      reading: str = SIM_PAPER) -> pd.DataFrame:
    """Re-identification with 0, 1, ..., m // 2 of the m aux entries completely wrong ([NS08] §5)
    (exact ratings, dates within ``date_error``; ``reading``: see :func:`reidentification_curves`)."""
    rows = []
    sim = similarity_for(exp, reading, 0, date_error)
    tag = "" if reading == SIM_PAPER else " (matched Sim)"
    for k in range(0, m // 2 + 1):
        tr = exp.run(targets, [m], f"{k} of {m} wrong{tag}", similarity=sim, date_error=date_error,
                     wrong_fraction=k / m)
        r = nf.reidentification_rate(tr, exp.phi).iloc[0]
        rows.append({"wrong entries": k, "correct entries": m - k, "re-identified": r["rate"],
                     "ci_low": r["ci_low"], "ci_high": r["ci_high"], "best record is the target": r["top1"]})
    return pd.DataFrame(rows).set_index("wrong entries")


def wrong_values(wrong: pd.DataFrame, m: int, wrong_fraction: float) -> dict[str, Any]:
    """The paper's number of wrong entries for an aux of size ``m`` and the rate measured with it."""
    k = nf.wrong_count(m, wrong_fraction)
    return {"wrong_k": k, "wrong_m": m,
            "wrong_rate": float(wrong.loc[k, "re-identified"]) if k in wrong.index else math.nan}


def pc_values(pc: pd.DataFrame, phi: float) -> dict[str, float]:
    """Precision (with its 95 % interval) and coverage at φ when half the targets are absent, and the members'
    lowest precision."""
    row = pc.set_index("phi").loc[phi]
    return {"mixed_prec": float(row["precision_mixed"]), "mixed_cov": float(row["coverage_mixed"]),
            "mixed_prec_ci": f"[{row['precision_mixed_ci_low']:.3f}, {row['precision_mixed_ci_high']:.3f}]",
            "member_prec_min": float(pc["precision"].min())}


def _m_text(m: int | None) -> str:
    """An aux size for the prose: ``"m = 3"``, or ``"no m of the grid"`` when the level is never reached."""
    return "no m of the grid" if m is None else f"m = {m}"


# -- sentences that compare, chosen from the numbers (issue 34) -----------------


def half_sentence(curves: nf.Curves, rating_error: int, date_errors: Sequence[int]) -> Sentence:
    """From which m half the targets are re-identified with dates and without them, and what the dates are worth.

    The two first m's (:func:`anonlab.attacks.netflix.first_m`; never reached counts as beyond the grid) are
    compared: dates help (reached earlier), make no difference, or cost (reached later).

    >>> rates = {"exact ratings, dates ±14 d": pd.DataFrame({"rate": [0.2, 0.6]}, index=[1, 2]),
    ...          "exact ratings, no dates": pd.DataFrame({"rate": [0.1, 0.3]}, index=[1, 2])}
    >>> from types import SimpleNamespace
    >>> half_sentence(SimpleNamespace(rates=rates), 1, [3, 14]).text
    'Half the targets are re-identified from m = 2 with dates and from no m of the grid without them (30.0% without dates at the largest m): the difference is what knowing the dates is worth'
    """
    k = _curve_names(rating_error, date_errors)
    nodate = curves.rates[k["nodate"]]
    with_dates, without = nf.first_m(curves.rates[k["ref"]]), nf.first_m(nodate)
    top = float(nodate["rate"].iloc[-1])
    beyond = float(nodate.index.max()) + 1  # "never" sorts after every m of the grid
    left = beyond if with_dates is None else float(with_dates)
    right = beyond if without is None else float(without)
    at_top = f"{top:.1%} without dates at the largest m"
    if with_dates is None and without is None:
        return compare("m50_sentence", left, right, {"equal": (
            f"Fewer than half the targets are re-identified at every m of the grid, with dates or without "
            f"them ({at_top})")})
    return compare("m50_sentence", left, right, {
        "below": (f"Half the targets are re-identified from {_m_text(with_dates)} with dates and from "
                  f"{_m_text(without)} without them ({at_top}): the difference is what knowing the dates is worth"),
        "equal": (f"Half the targets are re-identified from {_m_text(with_dates)}, with dates and without them "
                  f"alike ({at_top}): at the half-way mark knowing the dates is worth nothing here"),
        "above": (f"Half the targets are re-identified from {_m_text(without)} without dates but only from "
                  f"{_m_text(with_dates)} with them ({at_top}): dates known this loosely cost more than they add"),
    })


def wrong_sentence(values: Mapping[str, Any]) -> Sentence:
    """How many targets an aux with the paper's share of wrong entries still re-identifies (:func:`wrong_values`).

    >>> wrong_sentence({"wrong_k": 2, "wrong_m": 8, "wrong_rate": 0.0}).text
    'With 2 of the 8 entries wrong, no target is re-identified'
    """
    k, m, rate = values["wrong_k"], values["wrong_m"], values["wrong_rate"]
    if math.isnan(rate):
        return compare("wrong_sentence", k, m // 2, {"above": (
            "With {left:.0f} of the " f"{m} entries wrong the sweep has no point (it stops at " "{right:.0f} wrong)")})
    return compare("wrong_sentence", rate, 0, {
        "above": f"With {k} of the {m} entries wrong, " "{left:.1%} of the targets are still re-identified",
        "equal": f"With {k} of the {m} entries wrong, no target is re-identified",
    })


def theorem_sentence(m50_dates: int | None, m_bound: int) -> Sentence:
    """Whether the empirical curve reaches one half below the theorem's sufficient m, in words.

    >>> theorem_sentence(None, 15).relation
    'at or above'
    """
    left = math.inf if m50_dates is None else float(m50_dates)
    return compare("theorem_sentence", left, m_bound, {
        "below": ("The empirical curves above re-identify half the targets from m = {left:.0f}, below the bound's "
                  "{right:.0f}, which is a sufficient condition, not a prediction"),
        "at or above": ("The empirical curves above do not re-identify half the targets below the bound's "
                        "m = {right:.0f} here; the bound is a sufficient condition, not a prediction, and says "
                        "nothing about smaller m"),
    })


def false_match_sentence(fm_at: float, n_records: str, data_name: str, phi: float, at: int) -> Sentence:
    """How often absent targets are "matched" on the main data, in words (none, at a high φ)."""
    where = f'at φ = {phi:.1f} and m = {at}'
    return compare("fm_sentence", fm_at, 0, {
        "above": (f"among {data_name}'s {n_records} records another user's score stands out often enough that "
                  "{left:.1%} of absent targets are \"matched\" " + where),
        "equal": (f"among {data_name}'s {n_records} records no absent target is \"matched\" {where}: another "
                  "user's score never stands out enough"),
    })


def low_phi_sentence(pc: pd.DataFrame, phi: float) -> Sentence:
    """What lowering φ to the lowest tried does to the mixed precision (:func:`~anonlab.attacks.netflix.precision_coverage`).

    >>> pc = pd.DataFrame({"phi": [0.0, 1.5], "precision_mixed": [0.5, 0.9], "coverage_mixed": [1.0, 0.4],
    ...                    "false_match_rate": [1.0, 0.1]})
    >>> low_phi_sentence(pc, 1.5).relation
    'below'
    """
    by = pc.set_index("phi")
    lo = float(by.index.min())
    low, run_row = by.loc[lo], by.loc[phi]
    return compare("low_phi_sentence", float(low["precision_mixed"]), float(run_row["precision_mixed"]), {
        "below": (f"lowering φ trades precision for coverage: at φ = {lo:g} the mixed precision falls to "
                  "{left:.1%} (at φ = " f"{phi:g}: " "{right:.1%}), "
                  f"and {float(low['false_match_rate']):.1%} of absent targets are \"matched\""),
        "at or above": (f"at φ = {lo:g}, the lowest tried, the mixed precision is " "{left:.1%}, no lower than at "
                        f"φ = {phi:g} (" "{right:.1%}): here lowering φ costs no precision"),
    })


def theorem_bounds(data_name: str, n_records: int, epsilon: float, delta: float) -> pd.DataFrame:
    """[NS08] Theorem 1's sufficient aux size for this data's N and for the Netflix Prize's."""
    return pd.DataFrame([{"data": name, "N": n, "epsilon": epsilon, "delta": delta,
                          "m bound": nf.m_bound(n, epsilon, delta)}
                         for name, n in [(data_name, n_records), ("Netflix Prize", NETFLIX_SHAPE["n_users"])]])


def theorem_trials(exp: nf.Experiment, epsilon: float, delta: float, n_targets: int) -> pd.DataFrame:
    """Exact aux of the theorem's size m* = ⌈bound⌉ (Sim = 1 on every entry), and Sim(r, r').

    Adds ``record_similarity``: :func:`anonlab.attacks.netflix.record_similarity`
    of the target's record and the best-scoring record (0/1 per-movie Sim,
    same stars and same day).
    """
    data = exp.data.data
    m_star = theorem_m(data.n_users, epsilon, delta)
    exact = nf.Similarity("threshold", 0.0, 0.0 if data.has_dates else None)
    targets = exp.pick_targets(m_star, n_targets)
    thm = exp.run(targets, [m_star], "theorem", similarity=exact,
                  date_error=0 if data.has_dates else None)
    rsim = [nf.record_similarity(data, t, b, exact) for t, b in zip(thm["target"], thm["best"])]
    return thm.assign(record_similarity=np.asarray(rsim, dtype=np.float64))


def headline_rates(syn: nf.Curves, pc_m: int, few_m: int, date_errors: Sequence[int],
                   wrong_fraction: float) -> tuple[pd.Series, pd.Series]:
    """The rate rows of the two headline settings: ``pc_m`` with wrong entries, ``few_m`` at the small date error."""
    k8 = f"exact ratings, dates ±{max(date_errors)} d, {wrong_fraction:.0%} wrong"
    return syn.rates[k8].loc[pc_m], syn.rates[f"exact ratings, dates ±{min(date_errors)} d"].loc[few_m]


def headline_table(h8: pd.Series, h2: pd.Series, pc_m: int, few_m: int, date_errors: Sequence[int],
                   wrong_fraction: float, paper: Callable[[str], Any]) -> pd.DataFrame:
    """The paper's two headlines (``paper``: claim id -> reported value, e.g. ``run.paper``) beside the measured."""
    settings = {HEADLINE_8: (h8, f"{pc_m} ratings, {nf.wrong_count(pc_m, wrong_fraction)} wrong, "
                                 f"dates ±{max(date_errors)} d"),
                HEADLINE_2: (h2, f"{few_m} ratings, dates ±{min(date_errors)} d")}
    return pd.DataFrame([{"setting": setting, "paper (Netflix Prize)": paper(cid), "measured (synthetic)": r["rate"],
                          "95 % interval": f"[{r['ci_low']:.2f}, {r['ci_high']:.2f}]",
                          "best record is the target": r["top1"]} for cid, (r, setting) in settings.items()])


def attack_results(curves: nf.Curves, m: int, data_name: str, phi: float,
                   date_errors: Sequence[int]) -> dict[str, nf.AttackResult]:
    """Every curve's attack at aux size ``m`` as an AttackResult (for ``run.record_attack``).

    Adds the removed targets alone and, with them, the same targets in the
    release (exact ratings, dates within the larger error, the setting the
    removed targets were attacked with): the [NS08] "target not in the
    sample" experiment in the protocol's terms.
    """
    ref = f"exact ratings, dates ±{max(date_errors)} d"
    runs = {f"{data_name}: {k}, m = {m}": nf.at_m(tr, m) for k, tr in curves.trials.items()}
    runs[f"{data_name}: targets removed ({ref}), m = {m}"] = nf.at_m(curves.absent, m)
    runs[f"{data_name}: half the targets removed ({ref}), m = {m}"] = pd.concat(
        [nf.at_m(curves.trials[ref], m), nf.at_m(curves.absent, m)], ignore_index=True)
    return {name: nf.attack_result(tr, phi, name=name) for name, tr in runs.items()}


# --------------------------------------------------------------------------- the slides' worked example


@dataclass(frozen=True)
class WorkedExample:
    """The slides' three-record example (or Bob's cartoon) scored as the slides do.

    Weights ``1/log2(|supp(i)| + 1)``, ``Sim = 1 - |Δ|/5`` (the rating range),
    scores averaged over the aux movies.
    """

    table: pd.DataFrame
    data: RatingMatrix
    aux: nf.AuxRecord
    match: nf.Match

    @property
    def weights(self) -> np.ndarray:
        return nf.attribute_weights(self.data.support, "slides")

    @property
    def scores(self) -> np.ndarray:
        return self.match.scores

    def conventions(self, paper: Callable[[str], Any]) -> pd.DataFrame:
        """The slide's weights (``paper``: claim id -> reported value) beside three readings of ``1/log |supp(i)|``."""
        return pd.DataFrame({
            "slide": [paper(f"slides.netflix.weight_v{i}") for i in (1, 2, 3)],
            "1/log2(|supp|+1)": self.weights,
            "1/ln|supp|": nf.attribute_weights(self.data.support, "natural"),
            "1/log2|supp|": 1 / np.log2(self.data.support),
        }, index=self.data.movie_ids).rename_axis("weight of")

    def score_table(self, paper: Callable[[str], Any]) -> pd.DataFrame:
        """The slide's scores beside the measured ones."""
        return pd.DataFrame({
            "slide": [paper(f"slides.netflix.score_r{i}") for i in (1, 2, 3)],
            "measured: mean of w(i)(1 - |Δ|/5)": self.scores,
        }, index=self.data.user_ids).rename_axis("Score(aux, r)")

    def prose_values(self, phi: float, paper: Callable[[str], Any]) -> dict[str, Any]:
        """The numbers the prose quotes about the example (strings: Markdown)."""
        m = self.match
        gap = float(np.max(np.abs(self.scores - self.score_table(paper)["slide"].to_numpy(dtype=float))))
        return {"ex_weights": " / ".join(f"{w:.3f}" for w in self.weights), "ex_score_gap": gap,
                "ex_w_ln": " / ".join(f"{w:.3f}" for w in nf.attribute_weights(self.data.support, "natural")),
                "ex_w_log2": " / ".join(f"{w:.3g}" for w in 1 / np.log2(self.data.support)),
                "ex_scores": " / ".join(f"{s:.3f}" for s in self.scores),
                "ex_gap": m.best_score - m.second_score, "ex_sd": float(np.std(self.scores)),
                "ex_ecc": m.eccentricity, "ex_half_gap": (m.best_score - m.second_score) / 2,
                "phi": phi, "ex_best": str(self.data.user_ids[m.best]),
                "ex_answer": "outputs " + str(self.data.user_ids[m.best]) if m.matched else "answers “no match”"}


LINEAR5 = nf.Similarity("linear", rating_scale=5.0, date_scale=None)


def _slides_match(table: pd.DataFrame, aux: Mapping[str, float], phi: float) -> WorkedExample:
    data = RatingMatrix.from_dense(table.astype(float))
    a = nf.aux_from_mapping(data, aux)
    match = nf.scoreboard_rh(data, a, phi=phi, similarity=LINEAR5, weights="slides", normalize=True)
    return WorkedExample(table, data, a, match)


def worked_example(phi: float) -> WorkedExample:
    """The slides' "Weighted Scoring" example, from the ledger's ``params``."""
    p = claims.claim("slides.netflix.score_r1").params
    table = pd.DataFrame.from_dict(p["db"], orient="index", columns=list(p["aux"]) + ["v3"])
    return _slides_match(table, p["aux"], phi)


def bob_example(phi: float) -> WorkedExample:
    """The slides' cartoon of Bob's IMDb ratings against the anonymised records."""
    p = claims.claim("slides.netflix.bob_isolation").params
    table = pd.DataFrame.from_dict(p["anonymized"], orient="index", columns=["Gladiator", "Titanic", "Heidi"])
    return _slides_match(table, p["aux_bob"], phi)


# --------------------------------------------------------------------------- claim measurements


def example_readings(ex: WorkedExample) -> dict[str, nf.Match]:
    """The worked example under each reading of its threshold (the slide gives no φ).

    :data:`EX_PHI_NS`: N-S's φ = 1.5; :data:`EX_PHI_BELOW`: a φ below the
    example's eccentricity e (run at e / 2; every φ in [0, e) outputs the
    same record, since the test is ``e > φ``).
    """
    run = lambda phi: nf.scoreboard_rh(ex.data, ex.aux, phi=phi, similarity=LINEAR5,  # noqa: E731
                                       weights="slides", normalize=True)
    return {EX_PHI_NS: run(NS_PHI), EX_PHI_BELOW: run(ex.match.eccentricity / 2)}


def bob_readings(bob: WorkedExample) -> dict[str, np.ndarray]:
    """Scores of Bob's aux against the three anonymised records under each Sim of :data:`BOB_SIMS`."""
    return {label: nf.scores(bob.data, bob.aux, similarity=sim, weights="slides", normalize=True)
            for label, sim in BOB_SIMS.items()}


def isolates_first(score: np.ndarray) -> bool:
    """Whether record 0 scores strictly above every other record (the only way it can be output).

    >>> isolates_first(np.array([0.5, 0.4])), isolates_first(np.array([0.5, 0.5]))
    (True, False)
    """
    return bool(score[0] > np.max(score[1:]))


def measure_worked_example(ex: WorkedExample, bob: WorkedExample) -> dict[str, Measurement]:
    """The slides' weights, scores, output statement and Bob's cartoon.

    * ``weight_v*``: the slide's own formula w(i) = 1/log|supp(i)| under each
      base of :data:`WEIGHT_BASES` (the default: N-S's natural log); the
      convention that gives the printed numbers, 1/log2(|supp(i)| + 1), is
      the book's fit and only named in the note;
    * ``score_r*``: the values under that fitted convention (an illustration:
      the ledger says why);
    * ``example_output_r1``: r1 is output, i.e. it scores best *and* passes the
      eccentricity test (gap over the population sd of the scores), under each
      reading of φ (:func:`example_readings`);
    * ``bob_isolation``: Bob's aux scores r1 strictly best, under each reading
      of Sim (:func:`bob_readings`; the first is the default).
    """
    support = np.asarray(ex.data.support, dtype=float)
    by_base = {label: np.log(base) / np.log(support) for label, base in WEIGHT_BASES.items()}
    default = next(iter(WEIGHT_BASES))
    out = {f"slides.netflix.weight_{n}": Measurement(
        float(by_base[default][i]), alternatives={label: float(w[i]) for label, w in by_base.items()},
        note=f"the slide's 1/log|supp(i)| with |supp| = {support[i]:g}; the printed value is 1/log2(|supp| + 1) "
             f"= {ex.weights[i]:.3f}, the book's fit") for i, n in enumerate(["v1", "v2", "v3"])}
    note = "weights 1/log2(|supp|+1), Sim = 1 - |Δ|/5, averaged over the m = 2 aux movies"
    out.update({f"slides.netflix.score_r{i + 1}": Measurement(float(s), note=note) for i, s in enumerate(ex.scores)})
    ex_runs = example_readings(ex)
    outs = {label: m.record == 0 for label, m in ex_runs.items()}
    e = ex.match.eccentricity
    out["slides.netflix.example_output_r1"] = Measurement(
        outs[EX_PHI_NS], alternatives=outs,
        note=f"best record {ex.data.user_ids[ex.match.best]} (score {ex.match.best_score:.3f}); eccentricity "
             f"{e:.2f} = gap / population sd: "
             + "; ".join(f"{label}: {'r1 output' if o else 'no match'}" for label, o in outs.items()))
    b_scores = bob_readings(bob)
    isol = {label: isolates_first(sc) for label, sc in b_scores.items()}
    default = next(iter(BOB_SIMS))
    out["slides.netflix.bob_isolation"] = Measurement(
        isol[default], alternatives=isol,
        note="scores of r1 / r2 / r3: " + "; ".join(
            f"{label}: {' / '.join(f'{x:.3f}' for x in sc)}" for label, sc in b_scores.items())
        + " (every anonymised cell is the original minus 1, so r2 is at least as close to Bob's aux as r1)")
    return out


def reference_m(curves: nf.Curves, pc_m: int) -> int:
    """The aux size the chapter reads the curves at: ``pc_m`` if on the grid, else the largest m."""
    idx = next(iter(curves.rates.values())).index
    return pc_m if pc_m in idx else int(idx.max())


def _curve_names(rating_error: int, date_errors: Sequence[int]) -> dict[str, str]:
    d_ref = max(date_errors)
    return {"ref": f"exact ratings, dates ±{d_ref} d", "nodate": "exact ratings, no dates",
            "uni": f"ratings ±{rating_error}, dates ±{d_ref} d",
            "rare": f"ratings ±{rating_error}, dates ±{d_ref} d, rare movies"}


def row_interval_text(row: pd.Series, low: str = "ci_low", high: str = "ci_high") -> str:
    """A 95 % interval of a rate as text, ``"[0.91, 0.95]"`` (the Wilson interval the scorer computed)."""
    return chapters_interval_text((row[low], row[high]))


def curve_values(curves: nf.Curves, at: int, rating_error: int, date_errors: Sequence[int]) -> dict[str, Any]:
    """Numbers the prose quotes about the main curves."""
    k = _curve_names(rating_error, date_errors)
    r_ref, nodate = curves.rates[k["ref"]].loc[at], curves.rates[k["nodate"]]
    m50_nodates = nf.first_m(nodate)
    d_few = min(date_errors)
    ref_trials = curves.trials[k["ref"]]
    m_min = int(ref_trials["m"].min())
    return {"at_m": at, "rate_ref": float(r_ref["rate"]), "m_min": m_min,
            "ecc_min_m": float(nf.at_m(ref_trials, m_min)["eccentricity"].mean()),
            "ecc_at": float(nf.at_m(ref_trials, at)["eccentricity"].mean()),
            "rate_few": float(curves.rates[f"exact ratings, dates ±{d_few} d"].loc[at, "rate"]),
            "rate_ref_ci": f"[{r_ref['ci_low']:.2f}, {r_ref['ci_high']:.2f}]", "top1_ref": float(r_ref["top1"]),
            "m50_dates": _m_text(nf.first_m(curves.rates[k["ref"]])),
            "m50_nodates": _m_text(m50_nodates),
            "nodate_max": float(nodate["rate"].iloc[-1]),
            "rare_gain": float((curves.rates[k["rare"]]["rate"] - curves.rates[k["uni"]]["rate"]).mean()),
            "fm_at": float(curves.absent_rate.loc[at, "match_rate"]), "n_uni": len(curves.targets),
            "fm_at_ci": row_interval_text(curves.absent_rate.loc[at], "match_ci_low", "match_ci_high"),
            "rate_few_ci": row_interval_text(curves.rates[f"exact ratings, dates ±{d_few} d"].loc[at]),
            "n_rare": len(curves.rare_targets)}


def measure_curves(curves: nf.Curves, at: int, rating_error: int, date_errors: Sequence[int],
                   data_name: str) -> dict[str, Measurement]:
    """The empirical claims read off the main curves (criteria in each note).

    * exact ratings, dates within the larger error: more than half re-identified at m = ``at``;
    * no dates: more than half at the largest m, and half reached at a larger m than with dates;
    * rare movies: re-identify more than uniformly chosen ones (mean gain over the m grid > 0);
    * rare dimensions (slides): more than half at m = ``at`` from perturbed aux on rare movies.

    Each note gives the Monte Carlo interval of the rate it is decided on
    (95 % Wilson; for the mean gain, :func:`mean_gain_interval`).
    """
    d_ref, phi = max(date_errors), curves.phi
    k = _curve_names(rating_error, date_errors)
    r_ref, nodate = curves.rates[k["ref"]].loc[at], curves.rates[k["nodate"]]
    uni, rare = curves.rates[k["uni"]], curves.rates[k["rare"]]
    m50_dates, m50_nodates = nf.first_m(curves.rates[k["ref"]]), nf.first_m(nodate)
    m_max, gain = int(nodate.index.max()), (rare["rate"] - uni["rate"]).mean()
    g_lo, g_hi = mean_gain_interval(rare, uni)
    ci = lambda r: f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]"  # noqa: E731
    return {
        "ns.empirical.exact_ratings_approx_dates": Measurement(
            bool(r_ref["rate"] > 0.5), n=int(r_ref["n"]),
            note=f"{data_name}: {r_ref['rate']:.3f} {ci(r_ref)} re-identified at m = {at}, exact ratings, dates "
                 f"±{d_ref} d, phi = {phi:g} (criterion: more than half at m <= 8)"),
        "ns.empirical.no_dates": Measurement(
            bool(nodate["rate"].iloc[-1] > 0.5 and m50_nodates is not None and m50_dates is not None
                 and m50_nodates > m50_dates),
            note=f"{data_name}: half re-identified from m = {m50_dates} with dates ±{d_ref} d, from m = "
                 f"{m50_nodates} without dates; {nodate['rate'].iloc[-1]:.3f} {ci(nodate.iloc[-1])} at m = {m_max}"),
        "ns.empirical.rare_movies": Measurement(
            bool(gain > 0), note=f"{data_name}: mean gain of rare over uniformly chosen movies across m = "
                                 f"{gain:+.3f} [{g_lo:+.3f}, {g_hi:+.3f}] (ratings ±{rating_error}, dates "
                                 f"±{d_ref} d)"),
        "slides.netflix.rare_dimensions": Measurement(
            bool(rare.loc[at, "rate"] > 0.5), n=int(rare.loc[at, "n"]),
            note=f"{data_name}: {rare.loc[at, 'rate']:.3f} {ci(rare.loc[at])} re-identified at m = {at} from "
                 f"perturbed aux (±{rating_error} star, ±{d_ref} d) on rare movies"),
    }


def mean_gain_interval(a: pd.DataFrame, b: pd.DataFrame) -> tuple[float, float]:
    """The 95 % interval of mean_m(rate_a − rate_b) over the m grid of two rate tables (Wilson half-widths,
    the same targets at every m): :func:`anonlab.intervals.mean_difference_interval`.

    >>> t = pd.DataFrame({"rate": [0.5, 0.7], "ci_low": [0.4, 0.6], "ci_high": [0.6, 0.8]})
    >>> [round(x, 3) for x in mean_gain_interval(t, t.assign(rate=[0.4, 0.6]))]
    [-0.041, 0.241]
    """
    half = lambda t: (t["ci_high"] - t["ci_low"]) / 2  # noqa: E731
    return mean_difference_interval(a["rate"] - b["rate"], half(a), half(b))


def measure_aux_errors(wrong: pd.DataFrame, m: int, wrong_fraction: float,
                       data_name: str) -> dict[str, Measurement]:
    """Wrong aux entries: the rate decreases from none to the most wrong entries, and stays
    above one half with the paper's share wrong (``wrong_count(m, wrong_fraction)``, 2 of 8)."""
    k = nf.wrong_count(m, wrong_fraction)
    rate = wrong["re-identified"]
    ok = bool(rate.iloc[0] > rate.iloc[-1] and k in wrong.index and wrong.loc[k, "re-identified"] > 0.5)
    at_k = (f"{wrong.loc[k, 're-identified']:.3f} [{wrong.loc[k, 'ci_low']:.3f}, {wrong.loc[k, 'ci_high']:.3f}] "
            f"with {k} wrong; " if k in wrong.index else "")
    return {"ns.empirical.aux_errors": Measurement(
        ok, note=f"{data_name}, m = {m}: {rate.iloc[0]:.3f} with no wrong entry, {at_k}{rate.iloc[-1]:.3f} with "
                 f"{wrong.index[-1]} wrong; criterion: decreasing, and above one half with {k} wrong")}


def measure_detection(curves: nf.Curves, pc: pd.DataFrame, at: int, date_errors: Sequence[int],
                      data_name: str) -> dict[str, Measurement]:
    """Absent targets: can the eccentricity test tell them from present ones?

    * ``detect_not_in_sample``: with half the targets removed, the precision
      at φ (the share of named records that are the target's) with its 95 %
      Wilson interval (under every reading of Sim, see :func:`with_readings`);
      the ledger accepts at least 0.9 (at most one answer in ten wrong), and a
      miss whose interval reaches 0.9 is inconclusive;
    * ``eccentricity.rule``: the 95 % interval of members re-identified lies
      above that of removed targets matched (the intervals do not overlap).
    """
    phi = curves.phi
    ref = f"exact ratings, dates ±{max(date_errors)} d"
    r_ref = curves.rates[ref].loc[at]
    row = pc.set_index("phi").loc[phi]
    mixed_prec = float(row["precision_mixed"])
    member_lo, absent_hi = r_ref["ci_low"], curves.absent_rate.loc[at, "match_ci_high"]
    n = len(nf.at_m(curves.trials[ref], at)) + len(nf.at_m(curves.absent, at))
    return {
        "ns.empirical.detect_not_in_sample": Measurement(
            mixed_prec, ci=(float(row["precision_mixed_ci_low"]), float(row["precision_mixed_ci_high"])),
            n=int(row["answers_mixed"]),
            note=f"{data_name}, m = {at}, phi = {phi:g}: precision {mixed_prec:.3f} of "
                 f"{int(row['answers_mixed'])} answers when half of the {n} targets are absent "
                 f"(coverage {row['coverage_mixed']:.3f})"),
        "ns.eccentricity.rule": Measurement(
            bool(member_lo > absent_hi), n=n,
            note=f"{data_name}, m = {at}, phi = {phi:g}: members re-identified {r_ref['rate']:.3f} (low end "
                 f"{member_lo:.3f}) vs absent targets matched {curves.absent_rate.loc[at, 'match_rate']:.3f} "
                 f"(high end {absent_hi:.3f}); criterion: the 95 % intervals do not overlap"),
    }


def with_readings(by_reading: Mapping[str, Mapping[str, Measurement]],
                  default: str = SIM_PAPER) -> dict[str, Measurement]:
    """One measurement per claim carrying its value under every reading (the ledger's ``choices``).

    ``by_reading`` maps each reading's label to the measurements made under
    it (same claim ids). The result keeps the default reading's value,
    interval, size and note, adds each other reading's note, and records
    every reading's value as ``alternatives`` (with its interval, if it has
    one: a Monte Carlo measurement keeps it under every reading).

    >>> m = with_readings({"a": {"c": Measurement(True, note="x")}, "b": {"c": Measurement(False, note="y")}}, "a")
    >>> m["c"].value, dict(m["c"].alternatives), m["c"].note
    (True, {'a': True, 'b': False}, 'x | b: y')
    >>> m = with_readings({"a": {"c": Measurement(0.9, ci=(0.8, 1.0))}, "b": {"c": Measurement(0.7, ci=(0.6, 0.8))}},
    ...                   "a")
    >>> m["c"].alternatives["b"].ci
    (0.6, 0.8)
    """
    if default not in by_reading:
        raise ValueError(f"the default reading {default!r} is not among {list(by_reading)}")
    base = by_reading[default]
    out = {}
    for cid, m in base.items():
        others = " | ".join(f"{r}: {ms[cid].note}" for r, ms in by_reading.items() if r != default)
        out[cid] = Measurement(m.value, ci=m.ci, n=m.n, note=f"{m.note} | {others}" if others else m.note,
                               alternatives={r: ms[cid].value if ms[cid].ci is None
                                             else Measurement(ms[cid].value, ci=ms[cid].ci)
                                             for r, ms in by_reading.items()})
    return out


def theorem_share(thm: pd.DataFrame, epsilon: float, delta: float) -> float:
    """Share of targets whose best record has ``Sim(r, r') >= 1 - ε - δ`` ([NS08] Theorem 1).

    >>> theorem_share(pd.DataFrame({"record_similarity": [1.0, 0.5, 0.3]}), 0.05, 0.5)
    0.6666666666666666
    """
    return float(np.mean(thm["record_similarity"].to_numpy() >= 1 - epsilon - delta))


def measure_theorem(thm: pd.DataFrame, epsilon: float, delta: float, data_name: str) -> dict[str, Measurement]:
    """Theorem 1 holds on the data if the share of :func:`theorem_share` is at least ``1 - ε``."""
    share, m_star = theorem_share(thm, epsilon, delta), int(thm["m"].iloc[0])
    lo, hi = wilson_interval(round(share * len(thm)), len(thm))
    return {"ns.theorem.m_bound": Measurement(
        bool(share >= 1 - epsilon), n=len(thm),
        note=f"{data_name}: with m = {m_star} exact aux entries (Sim = 1) the best record has "
             f"Sim(r, r') >= {1 - epsilon - delta:.2f} for {share:.3f} [{lo:.3f}, {hi:.3f}] of {len(thm)} targets "
             f"(needs >= {1 - epsilon:.2f}); eps = {epsilon}, delta = {delta}")}


def measure_headlines(h8: pd.Series, h2: pd.Series, n_users: int, phi: float,
                      data_name: str = "synthetic Netflix-shaped data") -> dict[str, Measurement]:
    """The two headline rates measured on the scale section's data, with Wilson intervals."""
    note = f"{data_name.split(' (')[0]}, {n_users:,} users, phi = {phi:g}"
    real = data_name.startswith("Netflix Prize")  # the paper's own data lifts the stand-in
    return {cid: Measurement(float(r["rate"]), ci=(float(r["ci_low"]), float(r["ci_high"])), n=int(r["n"]),
                             note=note, real_data=real)
            for cid, r in ((HEADLINE_8, h8), (HEADLINE_2, h2))}


#: The aux's date errors (days) the explorable figure moves through, besides the run's own ([NS08]: 3 and 14).
EXPLORE_DATE_ERRORS = (0, 3, 7, 14, 30, 90)


def date_error_explorable(run: Any, exp: nf.Experiment, targets: np.ndarray, grid: Sequence[int],
                          date_errors: Sequence[int], wrong_fraction: float) -> Any:
    """The explorable figure of :func:`date_error_frame` over the date error (:data:`EXPLORE_DATE_ERRORS` and
    ``date_errors``), with [NS08]'s two headlines and the band the two-ratings claim accepts."""
    from anonbook import explore

    values, heads = sorted({*EXPLORE_DATE_ERRORS, *date_errors}), (HEADLINE_2, HEADLINE_8)
    return run.explorable(
        "Re-identification, synthetic data", "date_error", values,
        lambda d: date_error_frame(exp, targets, grid, d, wrong_fraction),
        x_label="m (movies the adversary knows)", y_label="share re-identified", claim_id=HEADLINE_2,
        key={"data": dict(exp.data.key), "targets": [int(t) for t in targets], "grid": list(grid), "phi": exp.phi,
             "sim": [exp.similarity.rating_scale, exp.similarity.date_scale], "weights": exp.weights,
             "seed": exp.seed, "wrong": wrong_fraction}, current=min(date_errors),
        paper=[explore.Series("paper's headlines (Netflix Prize)", [claims.claim(c).params["m"] for c in heads],
                              [run.paper(c) for c in heads])],
        alt=f"Line chart of the share of targets re-identified against the number m of movies the adversary "
            f"knows, with exact ratings and with {wrong_fraction:.0%} of them wrong, and the paper's two headline "
            f"points; a slider moves the error of the known dates from {values[0]} to {values[-1]} days.")

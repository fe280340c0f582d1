"""Chapter 3, "The Netflix attack: weighted scoring and eccentricity".

The declaration of the notebook ``03_netflix_eccentricity`` (its parameters
and quick preset), the experiments it runs (Scoreboard-RH on MovieLens 100K,
the user's Netflix Prize copy or synthetic Netflix-shaped data), the figures
that need more than a few lines, and the tested functions that decide its
claims (``measure_*``, each returning ``{claim id: Measurement}``).

Where the sources leave a choice open the chapter measures every reading and
the ledger's ``choices`` make the verdict computed: the per-movie similarity of
the curves (:data:`SIM_PAPER`, N-S's Netflix scales, or :data:`SIM_MATCHED`, a
0/1 test within the aux's own errors, :func:`matched_similarity`), the worked
example's φ (:func:`example_readings`) and the Sim of Bob's cartoon
(:func:`bob_readings`); :func:`with_readings` folds the readings into one
measurement per claim and :func:`verdict_glue` turns the recorded verdicts into
the phrases the prose quotes.

The attack itself lives in :mod:`anonlab.attacks.netflix`; every attack run is
scored through the one protocol (:func:`anonlab.attacks.netflix.attack_result`
and :func:`anonlab.measures.score`).

[NS08] A. Narayanan and V. Shmatikov, "Robust de-anonymization of large sparse
datasets", IEEE S&P 2008.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import claims
from ..attacks import netflix as nf
from ..cache import cached
from ..claims import Measurement
from ..data.netflix_synthetic import NETFLIX_SHAPE, RatingMatrix, generate_netflix_like, shape_statistics
from ..measures import score
from ..validation import Param, ParameterError, ParameterSpec, check_random_state
from . import Chapter, Exercise

__all__ = [
    "CHAPTER", "HEADLINE_8", "HEADLINE_2", "M_MAX", "Experiment", "Curves", "WorkedExample",
    "paper_values", "load_data", "synthetic_source", "theorem_m", "wrong_glue", "pc_glue",
    "scaled_top_k", "worked_example", "bob_example", "main_curves",
    "synthetic_curves", "wrong_entry_sweep", "precision_coverage", "theorem_bounds", "theorem_trials",
    "shape_comparison", "headline_rates", "attack_results", "measure_worked_example", "measure_curves",
    "measure_aux_errors", "measure_detection", "measure_theorem", "measure_headlines",
]

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
    """``netflix_path`` is given exactly when ``dataset`` is ``"netflix-prize"``."""
    if v["dataset"] == "netflix-prize" and v["netflix_path"] is None:
        raise ParameterError("parameter 'netflix_path' must name your copy of the Netflix Prize data "
                             "(a combined_data file) when dataset = 'netflix-prize'")
    if v["dataset"] != "netflix-prize" and v["netflix_path"] is not None:
        raise ParameterError(f"parameter 'netflix_path' is only read with dataset = 'netflix-prize', "
                             f"got dataset = {v['dataset']!r}: leave netflix_path = None")


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
    Param("dataset", "choice", "movielens100k",
          "data of the main curves: MovieLens 100K (real, fetched), your Netflix Prize copy, or synthetic",
          choices=DATASETS),
    Param("netflix_path", "path", None,
          "your Netflix Prize copy: the training_set folder or a combined_data file (only with dataset 'netflix-prize')", nullable=True),
    Param("m_grid", "int_list", [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20],
          "aux sizes m: movies the adversary knows", low=1, high=M_MAX, max_len=40),
    Param("n_targets", "int", 500, "targets attacked per curve (without replacement)", low=10, high=5_000),
    Param("phi", "float", 1.5, "eccentricity threshold φ ([NS08]: 1.5)", low=0, high=100),
    Param("phi_grid", "float_list", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0],
          "thresholds swept for precision and coverage", low=0, high=100, max_len=40),
    Param("rating_scale", "float", 1.5, "ρ0 of Sim = exp(-|Δrating|/ρ0), stars ([NS08]: 1.5)",
          low=0, high=10, low_inclusive=False),
    Param("date_scale", "float", 30.0, "d0 of Sim = exp(-|Δdays|/d0), days ([NS08]: 30)",
          low=0, high=3_000, low_inclusive=False),
    Param("weight_convention", "choice", "natural",
          "attribute weight: 'natural' 1/ln|supp(i)| ([NS08]) or 'slides' 1/log2(|supp(i)|+1)",
          choices=nf.WEIGHT_CONVENTIONS),
    Param("date_errors", "int_list", [3, 14],
          "date errors of the aux for the exact-ratings curves, days ([NS08]: 3 and 14)",
          low=0, high=2_000, max_len=6),
    Param("rating_error", "int", 1, "rating error of the aux for the approximate curves, stars ([NS08]: 1)",
          low=0, high=4),
    Param("wrong_fraction", "float", 0.25, "share of completely wrong aux entries ([NS08]: 2 of 8)",
          low=0, high=0.9),
    Param("rare_top", "int", 500, "'rare movies' lie outside the rare_top most rated of 17,770 (scaled)",
          low=1, high=NETFLIX_SHAPE["n_movies"] - 1),
    Param("few_m", "int", 2, "aux size of the second headline (2 ratings, dates within 3 days)",
          low=1, high=M_MAX),
    Param("pc_m", "int", 8, "aux size of the error sweep, histograms, precision/coverage, amplification",
          low=2, high=M_MAX),
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

CHAPTER = Chapter(
    name=NAME,
    title="The Netflix attack: weighted scoring and eccentricity",
    parameters=PARAMETERS,
    quick={"m_grid": [1, 2, 4, 8], "n_targets": 40, "synthetic_users": 5000, "synthetic_targets": 20,
           "synthetic_m_grid": [2, 8]},
    data=("movielens100k-ratings",),
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
            "**Predict** first: with the slides' weights 1/log2(|supp(i)| + 1) instead of N-S's "
            "1/ln |supp(i)| (`weight_convention = \"slides\"`), will the share of MovieLens targets "
            "re-identified from 8 known movies go up, go down or stay put, and the targets' mean "
            "eccentricity at m = 1 and at m = 8? (Why can the weights never change the eccentricity of "
            "a one-movie aux?) Then run it.",
            {"weight_convention": "slides"},
            {"rate_ref": "re-identified at m = 8 (exact ratings, dates ±14 d)",
             "top1_ref": "best-scoring record is the target's (no threshold)",
             "ecc_min_m": "mean eccentricity of the targets at m = 1",
             "ecc_at": "mean eccentricity of the targets at m = 8"},
        ),
        Exercise(
            "date_scale3",
            "N-S's similarity forgives a date error over about 30 days (`date_scale = 30`). **Predict**: "
            "if it expects dates within about three days (`date_scale = 3.0`), will the curve with dates "
            "known to ±3 days rise or fall, and the curve with dates known to ±14 days? Then run it.",
            {"date_scale": 3.0},
            {"rate_few": "re-identified at m = 8, dates ±3 d",
             "rate_ref": "re-identified at m = 8, dates ±14 d",
             "fm_at": "removed targets falsely matched at m = 8"},
        ),
        Exercise(
            "phi3",
            "**Predict**: with a stricter threshold (`phi = 3.0` instead of 1.5), where do the share "
            "of targets re-identified and the share of removed targets falsely matched go? Will the "
            "precision when half the targets are absent reach 0.9? Then run it, and say which φ you "
            "would choose for what use.",
            {"phi": 3.0},
            {"rate_ref": "re-identified at m = 8 (exact ratings, dates ±14 d)",
             "fm_at": "removed targets falsely matched at m = 8",
             "mixed_prec": "precision, half the targets absent",
             "mixed_cov": "coverage, half the targets absent"},
        ),
        Exercise(
            "rare_top2000",
            "**Predict**: if \"rare\" means outside the 2,000 most-rated of 17,770 movies "
            "(`rare_top = 2000`, scaled to MovieLens) instead of 500, does knowing only rare movies "
            "still help when the ratings are approximate (±1 star)? Then run it.",
            {"rare_top": 2000},
            {"top_k": "most-rated movies excluded (scaled to MovieLens)",
             "rare_gain": "mean gain of rare over uniformly chosen movies, across m"},
        ),
        Exercise(
            "scale_n",
            "The theorem's sufficient aux size grows with log N. **Predict**: with four times as many "
            "synthetic subscribers (`synthetic_users = 20000` instead of the quick preset's 5,000), "
            "will the headline settings re-identify more or fewer targets, and will removed targets be "
            "falsely matched more often? Then run it.",
            {"synthetic_users": 20_000},
            {"syn_users": "synthetic users", "h8": "re-identified: 8 ratings, 2 wrong, dates ±14 d",
             "h2": "re-identified: 2 ratings, dates ±3 d", "syn_fm": "removed targets falsely matched at m = 8"},
        ),
    ),
)


# --------------------------------------------------------------------------- the paper's values


def paper_values() -> dict[str, str]:
    """The paper's numbers the prose quotes, from the ledger, as text for ``glue``."""
    fmt = lambda ids: " / ".join(f"{claims.reported(i):g}" for i in ids)  # noqa: E731
    return {
        "paper_weights": fmt([f"slides.netflix.weight_v{i}" for i in (1, 2, 3)]),
        "paper_scores": fmt([f"slides.netflix.score_r{i}" for i in (1, 2, 3)]),
        "paper_headline_8": f"{claims.reported(HEADLINE_8):.0%}",
        "paper_headline_2": f"{claims.reported(HEADLINE_2):.0%}",
        "detect_min": f"{claims.reported('ns.empirical.detect_not_in_sample'):g}",
    }


# --------------------------------------------------------------------------- data and experiments


@dataclass(frozen=True)
class ChapterData:
    """The released records the chapter attacks, with a name and a cache identity."""

    data: RatingMatrix
    name: str
    manifest: list[str]
    key: Mapping[str, Any]


def load_data(dataset: str, netflix_path: str | None, synthetic_users: int, seed: int) -> ChapterData:
    """MovieLens 100K (fetched), the user's Netflix Prize copy, or synthetic Netflix-shaped data."""
    from ..data import load_movielens100k, load_netflix_prize

    if dataset == "movielens100k":
        data = RatingMatrix.from_frame(load_movielens100k().ratings)
        return ChapterData(data, "MovieLens 100K", ["movielens100k-ratings"], {"dataset": dataset})
    if dataset == "netflix-prize":
        p = Path(str(netflix_path)).expanduser().resolve()
        data = RatingMatrix.from_frame(load_netflix_prize(p))
        st = p.stat()
        return ChapterData(data, "Netflix Prize", [],
                           {"dataset": dataset, "path": str(p), "size": st.st_size, "mtime": st.st_mtime})
    data = generate_netflix_like(synthetic_users, seed=seed)
    return ChapterData(data, f"synthetic Netflix-shaped data ({synthetic_users:,} users)", [],
                       {"dataset": "synthetic", "users": synthetic_users, "seed": seed})


def synthetic_source(synthetic_users: int, seed: int, source: ChapterData | None = None) -> ChapterData:
    """The data of the scale section: synthetic Netflix-shaped data (``source`` if it is already
    that data), or the Netflix Prize itself when ``source`` is the user's copy of it."""
    key = {"dataset": "synthetic", "users": synthetic_users, "seed": seed}
    if source is not None and (dict(source.key) == key or source.key.get("dataset") == "netflix-prize"):
        return source
    return load_data("synthetic", None, synthetic_users, seed)


@dataclass(frozen=True)
class Experiment:
    """Scoreboard-RH on one data set with fixed similarity, weights, threshold and seed.

    :meth:`run` is :func:`anonlab.attacks.netflix.reidentification_trials`
    through the result cache (keyed by the data's identity, the targets and
    every setting).
    """

    data: ChapterData
    similarity: nf.Similarity
    weights: str
    phi: float
    seed: int
    verbose: bool = True

    def pick_targets(self, m_max: int, n: int, **kw: Any) -> np.ndarray:
        """``n`` targets drawn uniformly (seeded) among users eligible for an aux of size ``m_max``."""
        pool = nf.eligible_targets(self.data.data, m_max, **kw)
        if pool.size == 0:
            raise ParameterError(f"no user of {self.data.name} has the {m_max} movies an aux of size "
                                 f"{m_max} needs ({kw or 'any movies'}); lower the aux sizes")
        rng = check_random_state(self.seed)
        return np.sort(rng.choice(pool, size=min(n, len(pool)), replace=False))

    def run(self, targets: np.ndarray, grid: Sequence[int], label: str, *,
            similarity: nf.Similarity | None = None, **kw: Any) -> pd.DataFrame:
        """Trials of ``targets`` at the aux sizes ``grid`` (see ``reidentification_trials``)."""
        sim = similarity or self.similarity
        params = {"data": dict(self.data.key), "targets": [int(t) for t in targets],
                  "grid": sorted({int(m) for m in grid}), "similarity": [sim.kind, sim.rating_scale, sim.date_scale],
                  "weights": self.weights, "seed": self.seed, **kw}
        t0 = time.perf_counter()
        out = cached("netflix_trials", params, lambda: nf.reidentification_trials(
            self.data.data, targets, grid, similarity=sim, weights=self.weights, seed=self.seed, **kw))
        if self.verbose:
            print(f"{label}: {len(targets)} targets x {len(set(grid))} aux sizes, {time.perf_counter() - t0:.1f} s")
        return out


@dataclass
class Curves:
    """Re-identification curves: trials per setting, the removed-target run, their rates."""

    trials: dict[str, pd.DataFrame]
    absent: pd.DataFrame
    phi: float
    targets: np.ndarray
    rare_targets: np.ndarray
    rates: dict[str, pd.DataFrame] = field(init=False)
    absent_rate: pd.DataFrame = field(init=False)

    def __post_init__(self) -> None:
        self.rates = {k: nf.reidentification_rate(v, self.phi) for k, v in self.trials.items()}
        self.absent_rate = nf.reidentification_rate(self.absent, self.phi)

    def summary(self) -> pd.DataFrame:
        """Share re-identified per m and setting, and the false-match rate of removed targets."""
        out = pd.DataFrame({k: v["rate"] for k, v in self.rates.items()})
        out["target removed: false matches"] = self.absent_rate["match_rate"]
        return out


def matched_similarity(rating_error: int, date_error: int | None) -> nf.Similarity:
    """The per-movie Sim matched to the aux's noise: 1 within its errors, else 0.

    [NS08] §4 define Sim as a 0/1 test within a tolerance; here the tolerance
    is what :func:`anonlab.attacks.netflix.make_aux` applies to the aux (a
    rating off by at most ``rating_error`` stars, a date by at most
    ``date_error`` days; ``None``: dates unknown), so a true entry always has
    Sim = 1 and nothing the aux's noise could not explain counts.

    >>> matched_similarity(1, 14)
    Similarity(kind='threshold', rating_scale=1.0, date_scale=14.0)
    >>> matched_similarity(0, None).date_scale is None
    True
    """
    return nf.Similarity("threshold", float(rating_error), None if date_error is None else float(date_error))


def similarity_for(exp: Experiment, reading: str, rating_error: int, date_error: int | None) -> nf.Similarity:
    """The Sim of one curve under ``reading`` (:data:`SIM_PAPER`: the experiment's; :data:`SIM_MATCHED`)."""
    if reading not in SIM_READINGS:
        raise ValueError(f"reading must be one of {SIM_READINGS}, got {reading!r}")
    return exp.similarity if reading == SIM_PAPER else matched_similarity(rating_error, date_error)


def main_curves(exp: Experiment, m_grid: Sequence[int], n_targets: int, date_errors: Sequence[int],
                rating_error: int, top_k: int, reading: str = SIM_PAPER) -> Curves:
    """The [NS08] curves: exact ratings with each date error, no dates, approximate ratings,
    approximate ratings on rare movies, and the targets removed from the release.

    ``reading`` picks the per-movie Sim (:func:`similarity_for`): N-S's
    (the experiment's) or, for each curve, the one matched to its aux errors.
    The targets and their aux are the same under both readings.
    """
    grid, d_ref = sorted(m_grid), max(date_errors)
    t_uni = exp.pick_targets(max(grid), n_targets)
    t_rare = exp.pick_targets(max(grid), n_targets, selection="rare", top_movies=top_k)
    tag = "" if reading == SIM_PAPER else " (matched Sim)"

    def run(targets: np.ndarray, label: str, *, date_error: int | None, **kw: Any) -> pd.DataFrame:
        sim = similarity_for(exp, reading, kw.get("rating_error", 0), date_error)
        return exp.run(targets, grid, label + tag, similarity=sim, date_error=date_error, **kw)

    tr: dict[str, pd.DataFrame] = {}
    for d in sorted(date_errors):
        tr[f"exact ratings, dates ±{d} d"] = run(t_uni, f"exact, ±{d} d", date_error=d)
    tr["exact ratings, no dates"] = run(t_uni, "no dates", date_error=None)
    tr[f"ratings ±{rating_error}, dates ±{d_ref} d"] = run(
        t_uni, "approximate ratings", rating_error=rating_error, date_error=d_ref)
    tr[f"ratings ±{rating_error}, dates ±{d_ref} d, rare movies"] = run(
        t_rare, "rare movies", rating_error=rating_error, date_error=d_ref, selection="rare", top_movies=top_k)
    absent = run(t_uni, "targets removed from the data", date_error=d_ref, member=False)
    return Curves(tr, absent, exp.phi, t_uni, t_rare)


def synthetic_curves(exp: Experiment, grid: Sequence[int], n_targets: int, date_errors: Sequence[int],
                     rating_error: int, wrong_fraction: float, rare_top: int) -> Curves:
    """The headline settings on synthetic Netflix-shaped data (17,770 movies, so ``rare_top`` as is)."""
    grid, d_ref = sorted(grid), max(date_errors)
    ts = exp.pick_targets(max(grid), n_targets)
    ts_rare = exp.pick_targets(max(grid), n_targets, selection="rare", top_movies=rare_top)
    tr: dict[str, pd.DataFrame] = {}
    for d in sorted(date_errors):
        tr[f"exact ratings, dates ±{d} d"] = exp.run(ts, grid, f"synthetic, exact, ±{d} d", date_error=d)
    tr[f"exact ratings, dates ±{d_ref} d, {wrong_fraction:.0%} wrong"] = exp.run(
        ts, grid, "synthetic, wrong entries", date_error=d_ref, wrong_fraction=wrong_fraction)
    tr["exact ratings, no dates"] = exp.run(ts, grid, "synthetic, no dates", date_error=None)
    tr[f"ratings ±{rating_error}, dates ±{d_ref} d, rare movies"] = exp.run(
        ts_rare, grid, "synthetic, rare", rating_error=rating_error, date_error=d_ref, selection="rare",
        top_movies=rare_top)
    absent = exp.run(ts, grid, "synthetic, targets removed", date_error=d_ref, member=False)
    return Curves(tr, absent, exp.phi, ts, ts_rare)


def wrong_entry_sweep(exp: Experiment, targets: np.ndarray, m: int, date_error: int | None,
                      reading: str = SIM_PAPER) -> pd.DataFrame:
    """Re-identification with 0, 1, ..., m // 2 of the m aux entries completely wrong ([NS08] §5)
    (exact ratings, dates within ``date_error``; ``reading``: see :func:`main_curves`)."""
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


def wrong_glue(wrong: pd.DataFrame, m: int, wrong_fraction: float) -> dict[str, Any]:
    """The paper's number of wrong entries for an aux of size ``m`` and the rate measured with it."""
    k = nf.wrong_count(m, wrong_fraction)
    return {"wrong_k": k, "wrong_rate": float(wrong.loc[k, "re-identified"]) if k in wrong.index else math.nan}


def precision_coverage(members: pd.DataFrame, non_members: pd.DataFrame,
                       phis: Sequence[float]) -> pd.DataFrame:
    """Precision and coverage as φ is swept, scored with :func:`anonlab.measures.score`.

    Francis & Wagner (2024) §2, §4.3: coverage is the share of targets given
    a record, precision the share of those records that are the target's.
    ``members`` are trials of targets in the release, ``non_members`` of the
    same targets removed from it (their truth is "no record", so any answer
    for them is wrong); "mixed" attacks both populations at once.

    Returns
    -------
    pandas.DataFrame
        One row per φ (sorted, distinct): ``coverage, precision,
        precision_ci_low, precision_ci_high, recall`` (members: re-identified /
        members), ``false_match_rate`` (removed targets given a record),
        ``coverage_mixed, precision_mixed`` with its interval
        (``precision_mixed_ci_low, precision_mixed_ci_high``) and
        ``answers_mixed`` (records named).
    """
    rows = []
    both = pd.concat([members, non_members], ignore_index=True)
    for phi in sorted(set(phis)):
        s = score(nf.attack_result(members, phi))
        s_non = score(nf.attack_result(non_members, phi))
        s_mix = score(nf.attack_result(both, phi))
        rows.append({"phi": float(phi), "coverage": s.coverage, "precision": s.precision,
                     "precision_ci_low": s.precision_ci[0], "precision_ci_high": s.precision_ci[1],
                     "recall": s.prediction_rate, "false_match_rate": s_non.coverage,
                     "coverage_mixed": s_mix.coverage, "precision_mixed": s_mix.precision,
                     "precision_mixed_ci_low": s_mix.precision_ci[0],
                     "precision_mixed_ci_high": s_mix.precision_ci[1], "answers_mixed": s_mix.n_predictions})
    return pd.DataFrame(rows)


def pc_glue(pc: pd.DataFrame, phi: float) -> dict[str, float]:
    """Precision and coverage at φ when half the targets are absent, and the members' lowest precision."""
    row = pc.set_index("phi").loc[phi]
    return {"mixed_prec": float(row["precision_mixed"]), "mixed_cov": float(row["coverage_mixed"]),
            "member_prec_min": float(pc["precision"].min())}


def at_m(trials: pd.DataFrame, m: int) -> pd.DataFrame:
    """The trials of one aux size."""
    return trials[trials["m"] == m]


def theorem_bounds(data_name: str, n_records: int, epsilon: float, delta: float) -> pd.DataFrame:
    """[NS08] Theorem 1's sufficient aux size for this data's N and for the Netflix Prize's."""
    return pd.DataFrame([{"data": name, "N": n, "epsilon": epsilon, "delta": delta,
                          "m bound": nf.m_bound(n, epsilon, delta)}
                         for name, n in [(data_name, n_records), ("Netflix Prize", NETFLIX_SHAPE["n_users"])]])


def theorem_trials(exp: Experiment, epsilon: float, delta: float, n_targets: int) -> pd.DataFrame:
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


def shape_comparison(synth: RatingMatrix) -> pd.DataFrame:
    """The synthetic data's shape beside the Netflix Prize's published figures."""
    published = pd.Series({k: NETFLIX_SHAPE[k] for k in ("n_users", "n_movies", "n_ratings", "first_date",
                                                         "last_date")})
    published["ratings_per_user_mean"] = NETFLIX_SHAPE["n_ratings"] / NETFLIX_SHAPE["n_users"]
    published["raters_per_movie_mean"] = NETFLIX_SHAPE["n_ratings"] / NETFLIX_SHAPE["n_movies"]
    syn_shape = shape_statistics(synth)
    return pd.DataFrame({"synthetic": syn_shape,
                         "Netflix Prize (published)": published.reindex(syn_shape.index)})


def headline_keys(d_ref: int, d_few: int, wrong_fraction: float) -> tuple[str, str]:
    """Names of the synthetic curves of the two headlines (8 ratings, 2 wrong; 2 ratings, ±3 d)."""
    return f"exact ratings, dates ±{d_ref} d, {wrong_fraction:.0%} wrong", f"exact ratings, dates ±{d_few} d"


def headline_rates(syn: Curves, pc_m: int, few_m: int, date_errors: Sequence[int],
                   wrong_fraction: float) -> tuple[pd.Series, pd.Series]:
    """The rate rows of the two headline settings: ``pc_m`` with wrong entries, ``few_m`` at the small date error."""
    k8, k2 = headline_keys(max(date_errors), min(date_errors), wrong_fraction)
    return syn.rates[k8].loc[pc_m], syn.rates[k2].loc[few_m]


def headline_table(h8: pd.Series, h2: pd.Series, pc_m: int, few_m: int, date_errors: Sequence[int],
                   wrong_fraction: float) -> pd.DataFrame:
    """Paper beside measured for the two headlines."""
    d_ref, d_few = max(date_errors), min(date_errors)
    rows = []
    for cid, r, setting in [
        (HEADLINE_8, h8, f"{pc_m} ratings, {nf.wrong_count(pc_m, wrong_fraction)} wrong, dates ±{d_ref} d"),
        (HEADLINE_2, h2, f"{few_m} ratings, dates ±{d_few} d"),
    ]:
        rows.append({"setting": setting, "paper (Netflix Prize)": claims.reported(cid),
                     "measured (synthetic)": r["rate"], "95 % interval": f"[{r['ci_low']:.2f}, {r['ci_high']:.2f}]",
                     "best record is the target": r["top1"]})
    return pd.DataFrame(rows)


def attack_results(curves: Curves, m: int, data_name: str, phi: float,
                   date_errors: Sequence[int]) -> dict[str, nf.AttackResult]:
    """Every curve's attack at aux size ``m`` as an AttackResult (for ``Recorder.record_attack``).

    Adds the removed targets alone and, with them, the same targets in the
    release (exact ratings, dates within the larger error, the setting the
    removed targets were attacked with): the [NS08] "target not in the
    sample" experiment in the protocol's terms.
    """
    ref = f"exact ratings, dates ±{max(date_errors)} d"
    runs = {f"{data_name}: {k}, m = {m}": at_m(tr, m) for k, tr in curves.trials.items()}
    runs[f"{data_name}: targets removed ({ref}), m = {m}"] = at_m(curves.absent, m)
    runs[f"{data_name}: half the targets removed ({ref}), m = {m}"] = pd.concat(
        [at_m(curves.trials[ref], m), at_m(curves.absent, m)], ignore_index=True)
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

    def conventions(self) -> pd.DataFrame:
        """The slide's weights beside three readings of ``1/log |supp(i)|``."""
        return pd.DataFrame({
            "slide": [claims.reported(f"slides.netflix.weight_v{i}") for i in (1, 2, 3)],
            "1/log2(|supp|+1)": self.weights,
            "1/ln|supp|": nf.attribute_weights(self.data.support, "natural"),
            "1/log2|supp|": 1 / np.log2(self.data.support),
        }, index=self.data.movie_ids).rename_axis("weight of")

    def score_table(self) -> pd.DataFrame:
        return pd.DataFrame({
            "slide": [claims.reported(f"slides.netflix.score_r{i}") for i in (1, 2, 3)],
            "measured: mean of w(i)(1 - |Δ|/5)": self.scores,
        }, index=self.data.user_ids).rename_axis("Score(aux, r)")

    def glue_values(self, phi: float) -> dict[str, Any]:
        m = self.match
        paper = np.array([claims.reported(f"slides.netflix.score_r{i}") for i in (1, 2, 3)])
        return {"ex_weights": " / ".join(f"{w:.3f}" for w in self.weights),
                "ex_score_gap": float(np.max(np.abs(self.scores - paper))),
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

    * ``weight_v*``, ``score_r*``: the values under the slides' convention;
    * ``example_output_r1``: r1 is output, i.e. it scores best *and* passes the
      eccentricity test (gap over the population sd of the scores), under each
      reading of φ (:func:`example_readings`);
    * ``bob_isolation``: Bob's aux scores r1 strictly best, under each reading
      of Sim (:func:`bob_readings`; the first is the default).
    """
    out = {f"slides.netflix.weight_{n}": Measurement(float(w), note="convention 1/log2(|supp(i)|+1)")
           for n, w in zip(["v1", "v2", "v3"], ex.weights)}
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


def verdict_glue(verdicts: pd.DataFrame) -> dict[str, str]:
    """Phrases for the prose, computed from the recorded verdicts (the ``record_all`` table).

    ``v_<last part of the claim id>``: each claim's verdict; ``verdict_summary``:
    the claims grouped by verdict, e.g. "reproduced: 3 claims; not reproduced:
    bob_isolation".

    >>> t = pd.DataFrame({"verdict": ["reproduced", "not reproduced"]}, index=["a.x", "b.y"])
    >>> verdict_glue(t)["verdict_summary"]
    'reproduced: x; not reproduced: y'
    """
    short = {cid: cid.rsplit(".", 1)[-1] for cid in verdicts.index}
    out = {f"v_{short[cid]}": str(v) for cid, v in verdicts["verdict"].items()}
    parts = []
    for v in claims.VERDICTS:
        ids = [short[cid] for cid in verdicts.index[verdicts["verdict"] == v]]
        if ids:
            parts.append(f"{v}: {', '.join(ids)}")
    out["verdict_summary"] = "; ".join(parts)
    return out


def first_m(rate: pd.DataFrame, level: float = 0.5) -> int | None:
    """Smallest m whose re-identification rate reaches ``level`` (None: never).

    >>> first_m(pd.DataFrame({"rate": [0.2, 0.6, 0.9]}, index=[1, 2, 4]))
    2
    """
    hit = rate.index[rate["rate"] >= level]
    return int(hit[0]) if len(hit) else None


def reference_m(curves: Curves, pc_m: int) -> int:
    """The aux size the chapter reads the curves at: ``pc_m`` if on the grid, else the largest m."""
    idx = next(iter(curves.rates.values())).index
    return pc_m if pc_m in idx else int(idx.max())


def _curve_names(rating_error: int, date_errors: Sequence[int]) -> dict[str, str]:
    d_ref = max(date_errors)
    return {"ref": f"exact ratings, dates ±{d_ref} d", "nodate": "exact ratings, no dates",
            "uni": f"ratings ±{rating_error}, dates ±{d_ref} d",
            "rare": f"ratings ±{rating_error}, dates ±{d_ref} d, rare movies"}


def curve_glue(curves: Curves, at: int, rating_error: int, date_errors: Sequence[int]) -> dict[str, Any]:
    """Numbers the prose quotes about the main curves."""
    k = _curve_names(rating_error, date_errors)
    r_ref, nodate = curves.rates[k["ref"]].loc[at], curves.rates[k["nodate"]]
    m50_nodates = first_m(nodate)
    d_few = min(date_errors)
    ref_trials = curves.trials[k["ref"]]
    m_min = int(ref_trials["m"].min())
    return {"at_m": at, "rate_ref": float(r_ref["rate"]), "m_min": m_min,
            "ecc_min_m": float(at_m(ref_trials, m_min)["eccentricity"].mean()),
            "ecc_at": float(at_m(ref_trials, at)["eccentricity"].mean()),
            "rate_few": float(curves.rates[f"exact ratings, dates ±{d_few} d"].loc[at, "rate"]),
            "rate_ref_ci": f"[{r_ref['ci_low']:.2f}, {r_ref['ci_high']:.2f}]", "top1_ref": float(r_ref["top1"]),
            "m50_dates": str(first_m(curves.rates[k["ref"]])),
            "m50_nodates": "never" if m50_nodates is None else str(m50_nodates),
            "nodate_max": float(nodate["rate"].iloc[-1]),
            "rare_gain": float((curves.rates[k["rare"]]["rate"] - curves.rates[k["uni"]]["rate"]).mean()),
            "fm_at": float(curves.absent_rate.loc[at, "match_rate"]), "n_uni": len(curves.targets),
            "n_rare": len(curves.rare_targets)}


def measure_curves(curves: Curves, at: int, rating_error: int, date_errors: Sequence[int],
                   data_name: str) -> dict[str, Measurement]:
    """The empirical claims read off the main curves (criteria in each note).

    * exact ratings, dates within the larger error: more than half re-identified at m = ``at``;
    * no dates: more than half at the largest m, and half reached at a larger m than with dates;
    * rare movies: re-identify more than uniformly chosen ones (mean gain over the m grid > 0);
    * rare dimensions (slides): more than half at m = ``at`` from perturbed aux on rare movies.
    """
    d_ref, phi = max(date_errors), curves.phi
    k = _curve_names(rating_error, date_errors)
    r_ref, nodate = curves.rates[k["ref"]].loc[at], curves.rates[k["nodate"]]
    uni, rare = curves.rates[k["uni"]], curves.rates[k["rare"]]
    m50_dates, m50_nodates = first_m(curves.rates[k["ref"]]), first_m(nodate)
    m_max, gain = int(nodate.index.max()), (rare["rate"] - uni["rate"]).mean()
    return {
        "ns.empirical.exact_ratings_approx_dates": Measurement(
            bool(r_ref["rate"] > 0.5), n=int(r_ref["n"]),
            note=f"{data_name}: {r_ref['rate']:.3f} re-identified at m = {at}, exact ratings, dates ±{d_ref} d, "
                 f"phi = {phi:g} (criterion: more than half at m <= 8)"),
        "ns.empirical.no_dates": Measurement(
            bool(nodate["rate"].iloc[-1] > 0.5 and m50_nodates is not None and m50_dates is not None
                 and m50_nodates > m50_dates),
            note=f"{data_name}: half re-identified from m = {m50_dates} with dates ±{d_ref} d, from m = "
                 f"{m50_nodates} without dates; {nodate['rate'].iloc[-1]:.3f} at m = {m_max}"),
        "ns.empirical.rare_movies": Measurement(
            bool(gain > 0), note=f"{data_name}: mean gain of rare over uniformly chosen movies across m = "
                                 f"{gain:+.3f} (ratings ±{rating_error}, dates ±{d_ref} d)"),
        "slides.netflix.rare_dimensions": Measurement(
            bool(rare.loc[at, "rate"] > 0.5), n=int(rare.loc[at, "n"]),
            note=f"{data_name}: {rare.loc[at, 'rate']:.3f} re-identified at m = {at} from perturbed aux "
                 f"(±{rating_error} star, ±{d_ref} d) on rare movies"),
    }


def measure_aux_errors(wrong: pd.DataFrame, m: int, wrong_fraction: float,
                       data_name: str) -> dict[str, Measurement]:
    """Wrong aux entries: the rate decreases from none to the most wrong entries, and stays
    above one half with the paper's share wrong (``wrong_count(m, wrong_fraction)``, 2 of 8)."""
    k = nf.wrong_count(m, wrong_fraction)
    rate = wrong["re-identified"]
    ok = bool(rate.iloc[0] > rate.iloc[-1] and k in wrong.index and wrong.loc[k, "re-identified"] > 0.5)
    return {"ns.empirical.aux_errors": Measurement(
        ok, note=f"{data_name}, m = {m}: {rate.iloc[0]:.3f} with no wrong entry, {rate.iloc[-1]:.3f} with "
                 f"{wrong.index[-1]} wrong; criterion: decreasing, and above one half with {k} wrong")}


def measure_detection(curves: Curves, pc: pd.DataFrame, at: int, date_errors: Sequence[int],
                      data_name: str) -> dict[str, Measurement]:
    """Absent targets: can the eccentricity test tell them from present ones?

    * ``detect_not_in_sample``: with half the targets removed, the precision
      at φ (the share of named records that are the target's) with its 95 %
      Wilson interval; the ledger accepts at least 0.9 (at most one answer in
      ten wrong), and a miss whose interval reaches 0.9 is inconclusive;
    * ``eccentricity.rule``: the 95 % interval of members re-identified lies
      above that of removed targets matched (the intervals do not overlap).
    """
    phi = curves.phi
    ref = f"exact ratings, dates ±{max(date_errors)} d"
    r_ref = curves.rates[ref].loc[at]
    row = pc.set_index("phi").loc[phi]
    mixed_prec = float(row["precision_mixed"])
    member_lo, absent_hi = r_ref["ci_low"], curves.absent_rate.loc[at, "match_ci_high"]
    n = len(at_m(curves.trials[ref], at)) + len(at_m(curves.absent, at))
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
    every reading's value as ``alternatives``.

    >>> m = with_readings({"a": {"c": Measurement(True, note="x")}, "b": {"c": Measurement(False, note="y")}}, "a")
    >>> m["c"].value, dict(m["c"].alternatives), m["c"].note
    (True, {'a': True, 'b': False}, 'x | b: y')
    """
    if default not in by_reading:
        raise ValueError(f"the default reading {default!r} is not among {list(by_reading)}")
    base = by_reading[default]
    out = {}
    for cid, m in base.items():
        others = " | ".join(f"{r}: {ms[cid].note}" for r, ms in by_reading.items() if r != default)
        out[cid] = Measurement(m.value, ci=m.ci, n=m.n, note=f"{m.note} | {others}" if others else m.note,
                               alternatives={r: ms[cid].value for r, ms in by_reading.items()})
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
    return {"ns.theorem.m_bound": Measurement(
        bool(share >= 1 - epsilon), n=len(thm),
        note=f"{data_name}: with m = {m_star} exact aux entries (Sim = 1) the best record has "
             f"Sim(r, r') >= {1 - epsilon - delta:.2f} for {share:.3f} of {len(thm)} targets "
             f"(needs >= {1 - epsilon:.2f}); eps = {epsilon}, delta = {delta}")}


def measure_headlines(h8: pd.Series, h2: pd.Series, n_users: int, phi: float,
                      data_name: str = "synthetic Netflix-shaped data") -> dict[str, Measurement]:
    """The two headline rates measured on the scale section's data, with Wilson intervals."""
    note = f"{data_name.split(' (')[0]}, {n_users:,} users, phi = {phi:g}"
    real = data_name.startswith("Netflix Prize")  # the paper's own data lifts the stand-in
    return {cid: Measurement(float(r["rate"]), ci=(float(r["ci_low"]), float(r["ci_high"])), n=int(r["n"]),
                             note=note, real_data=real)
            for cid, r in ((HEADLINE_8, h8), (HEADLINE_2, h2))}


# --------------------------------------------------------------------------- figures


def _draw_headlines(ax: Any, pc_m: int, few_m: int) -> None:
    from .. import plotting

    plotting.paper_points(ax, [pc_m], [claims.reported(HEADLINE_8)], label=f"paper, Netflix: {pc_m} ratings, 2 wrong, ±14 d")
    plotting.paper_points(ax, [few_m], [claims.reported(HEADLINE_2)], marker="s",
                          label=f"paper, Netflix: {few_m} ratings, ±3 d")


def plot_curves(curves: Curves, m_grid: Sequence[int], m_star: int, rating_error: int,
                date_errors: Sequence[int], data_name: str, pc_m: int, few_m: int) -> Any:
    """Three panels: exact ratings (dates known or not), approximate ratings, removed targets."""
    import matplotlib.pyplot as plt

    from .. import plotting

    d_ref, rates = max(date_errors), curves.rates
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4), sharey=True)
    groups = [[k for k in rates if k.startswith("exact")], [k for k in rates if k.startswith("ratings ±")]]
    for ax, keys in zip(axes[:2], groups):
        for k in keys:
            r = rates[k]
            plotting.measured_band(ax, r.index, r["ci_low"], r["rate"], r["ci_high"], label=k)
    r, a = rates[f"exact ratings, dates ±{d_ref} d"], curves.absent_rate
    plotting.measured_band(axes[2], r.index, r["ci_low"], r["rate"], r["ci_high"], label="target in the data: re-identified")
    plotting.measured_band(axes[2], a.index, a["match_ci_low"], a["match_rate"], a["match_ci_high"],
                           label="target removed: a (false) match is output")
    _draw_headlines(axes[0], pc_m, few_m)
    titles = ["exact ratings, approximate or no dates", f"approximate ratings (±{rating_error}), dates ±{d_ref} d",
              f"target not in the data (exact ratings, ±{d_ref} d)"]
    for ax, title in zip(axes, titles):
        ax.axvline(m_star, color="grey", linestyle=":", label=f"theorem bound m ≥ {m_star}")
        ax.set(xlabel="m, movies known to the adversary", title=title, xscale="log", ylim=(-0.02, 1.02))
        ax.set_xticks(sorted(m_grid), [str(m) for m in sorted(m_grid)])
        ax.legend(fontsize=8, loc="upper left")
    axes[0].set_ylabel(f"share of targets (φ = {curves.phi:g})")
    fig.suptitle(f"{data_name}: Scoreboard-RH re-identification rate", y=1.02)
    return fig


def plot_synthetic(syn: Curves, d_ref: int, n_users: int, pc_m: int, few_m: int,
                   data_name: str = "synthetic Netflix-shaped data") -> Any:
    """The synthetic curves, the removed targets' false matches and the paper's headlines."""
    import matplotlib.pyplot as plt

    from .. import plotting

    fig, ax = plt.subplots(figsize=(8, 4.6))
    for k, r in syn.rates.items():
        plotting.measured_band(ax, r.index, r["ci_low"], r["rate"], r["ci_high"], label=k)
    a = syn.absent_rate
    ax.plot(a.index, a["match_rate"], color="black", marker="x", linestyle=":",
            label=f"target removed: false matches (±{d_ref} d)")
    _draw_headlines(ax, pc_m, few_m)
    ax.set(xlabel="m, movies known to the adversary", ylabel=f"share of targets re-identified (φ = {syn.phi:g})",
           title=f"{data_name.split(' (')[0]}, {n_users:,} users", ylim=(-0.02, 1.02))
    ax.legend(fontsize=7, loc="upper left")
    return fig


def plot_wrong_entries(wrong: pd.DataFrame, m: int, d_ref: int, wrong_fraction: float, data_name: str) -> Any:
    """Re-identification against the number of wrong aux entries, with the paper's headline."""
    import matplotlib.pyplot as plt

    from .. import plotting

    fig, ax = plt.subplots()
    plotting.measured_band(ax, wrong.index, wrong["ci_low"], wrong["re-identified"], wrong["ci_high"],
                           label=f"{data_name}, m = {m}, exact ratings, ±{d_ref} d")
    ax.plot(wrong.index, wrong["best record is the target"], linestyle="--", marker="x",
            label="best record is the target (no threshold)")
    plotting.paper_points(ax, [nf.wrong_count(m, wrong_fraction)], [claims.reported(HEADLINE_8)],
                          label="paper, Netflix: 8 ratings, 2 wrong, ±14 d")
    ax.set(xlabel=f"wrong entries among the {m} known movies", ylabel="share of targets", ylim=(-0.02, 1.02))
    ax.set_xticks(wrong.index)
    ax.legend(fontsize=8)
    return fig


def plot_eccentricity(curves: Curves, at: int, d_ref: int, data_name: str) -> Any:
    """Histograms of the eccentricity of targets in the data and of removed targets."""
    import matplotlib.pyplot as plt

    mem = at_m(curves.trials[f"exact ratings, dates ±{d_ref} d"], at)["eccentricity"]
    absent = at_m(curves.absent, at)["eccentricity"]
    fig, ax = plt.subplots()
    bins = np.linspace(0, max(mem.max(), absent.max()) * 1.02, 40)
    ax.hist(mem, bins=bins, alpha=0.6, label="target in the data")
    ax.hist(absent, bins=bins, alpha=0.6, label="target removed from the data")
    ax.axvline(curves.phi, color="black", linestyle=":", label=f"φ = {curves.phi:g}")
    ax.set(xlabel="eccentricity (max − max₂) / σ", ylabel="targets",
           title=f"{data_name}, m = {at}, exact ratings, dates ±{d_ref} d")
    ax.legend()
    return fig


def plot_precision_coverage(pc: pd.DataFrame, n_records: int, title: str) -> Any:
    """Precision against coverage for each φ, members only and half the targets removed."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot(pc["coverage"], pc["precision"], marker="o", label="targets in the data")
    ax.plot(pc["coverage_mixed"], pc["precision_mixed"], marker="s", label="half of the targets absent")
    for _, row in pc.iterrows():
        ax.annotate(f"φ={row['phi']:g}", (row["coverage_mixed"], row["precision_mixed"]), fontsize=7,
                    xytext=(3, -10), textcoords="offset points")
    ax.axhline(1 / n_records, color="grey", linestyle=":", label="random record (1/N)")
    ax.set(xlabel="coverage (share of targets with an answer)", ylabel="precision", title=title,
           xlim=(-0.02, 1.02), ylim=(-0.02, 1.02))
    ax.legend(fontsize=8, loc="lower left")
    return fig


def plot_amplification(amp: pd.DataFrame, m_grid: Sequence[int], data_name: str) -> Any:
    """Share of the targets' other ratings predicted to the star, with and without the match."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot(amp.index, amp["attack_exact"], marker="o", label="after the match")
    ax.plot(amp.index, amp["baseline_exact"], marker="s", label="baseline without the match")
    ax.plot(amp.index, amp["history_recall"], linestyle="--", label="share of held-out movies revealed")
    ax.set(xscale="log", xlabel="m, movies known to the adversary", ylabel="share of the target's other ratings",
           title=f"{data_name}: predicting the target's other ratings to the star", ylim=(-0.02, 1.02))
    ax.set_xticks(sorted(m_grid), [str(m) for m in sorted(m_grid)])
    ax.legend(fontsize=8)
    return fig


def plot_readings(by_reading: Mapping[str, Curves], m_grid: Sequence[int], data_name: str) -> Any:
    """The main curves under each reading of Sim, one panel per reading, same targets and aux."""
    import matplotlib.pyplot as plt

    from .. import plotting

    fig, axes = plt.subplots(1, len(by_reading), figsize=(6.5 * len(by_reading), 4.4), sharey=True, squeeze=False)
    for ax, (reading, cv) in zip(axes[0], by_reading.items()):
        for k, r in cv.rates.items():
            plotting.measured_band(ax, r.index, r["ci_low"], r["rate"], r["ci_high"], label=k)
        a = cv.absent_rate
        ax.plot(a.index, a["match_rate"], color="black", marker="x", linestyle=":", label="target removed: false matches")
        ax.set(xlabel="m, movies known to the adversary", title=reading, xscale="log", ylim=(-0.02, 1.02))
        ax.set_xticks(sorted(m_grid), [str(m) for m in sorted(m_grid)])
        ax.legend(fontsize=7, loc="upper left")
    axes[0][0].set_ylabel(f"share of targets re-identified (φ = {next(iter(by_reading.values())).phi:g})")
    fig.suptitle(f"{data_name}: the same attacks under two readings of Sim", y=1.02)
    return fig

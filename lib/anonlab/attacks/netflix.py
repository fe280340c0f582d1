"""The Narayanan-Shmatikov de-anonymization attack on sparse rating data (Scoreboard-RH).

A. Narayanan and V. Shmatikov, "Robust de-anonymization of large sparse datasets", IEEE S&P 2008 ([NS08]), as on the
CMU 18-734 slides ("Weighted Scoring Algorithm", "Main Result"). The adversary knows a few of the target's ratings,
perhaps dated, perhaps wrong (``aux``), scores every released record, Score(aux, r) = Σ_{i ∈ supp(aux)} w(i)
Sim(aux_i, r_i) with w(i) = 1 / log |supp(i)| (§4.2), and names the best record only if its eccentricity (max - max₂)
/ σ exceeds φ ([NS08]: 1.5; the slides' "/ 2" is a conversion glitch). For Netflix (§5), Sim = exp(-|Δrating| / 1.5) +
exp(-|Δdays| / 30). Theorem 1 bounds the aux size (:func:`m_bound`). A match reveals the record's other ratings
(:func:`amplification`). Scores are computed for all N records at once from the column-ordered matrix (work
proportional to the aux movies' ratings). Trials are scored with the book's protocol (:func:`attack_result`,
:func:`anonlab.measures.score`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anonlab.data.netflix_synthetic import RatingMatrix
from anonlab.measures import AttackResult, score
from anonlab.validation import (ParameterError, check_choice, check_int, check_number, check_number_list,
                                check_random_state)
from anonlab.streams import stream

__all__ = [
    "WEIGHT_CONVENTIONS",
    "SIMILARITY_KINDS",
    "SELECTIONS",
    "Similarity",
    "AuxRecord",
    "Match",
    "attribute_weights",
    "attribute_similarity",
    "scores",
    "eccentricity",
    "top_two",
    "scoreboard_rh",
    "wrong_count",
    "make_aux",
    "aux_from_mapping",
    "eligible_targets",
    "reidentification_trials",
    "reidentification_rate",
    "at_m",
    "first_m",
    "precision_coverage",
    "Release",
    "Experiment",
    "Curves",
    "matched_similarity",
    "attack_result",
    "amplification",
    "amplification_summary",
    "record_similarity",
    "m_bound",
]

WEIGHT_CONVENTIONS = ("natural", "slides")
SIMILARITY_KINDS = ("exponential", "threshold", "linear")
SELECTIONS = ("uniform", "rare", "popular")


def _plain(value: Any) -> Any:
    """A numpy integer as a Python int (the validation functions take Python numbers)."""
    return int(value) if isinstance(value, np.integer) else value


# --------------------------------------------------------------------------- weights and similarity


def attribute_weights(support: Sequence[int] | np.ndarray, convention: str = "natural") -> np.ndarray:
    r"""Weight of each attribute from its support, w(i) = 1 / log |supp(i)| ([NS08] §4.2; slides).

    ``convention="natural"``: 1/ln|supp| as printed, with supp 1 weighted as supp 2; ``"slides"``: 1/log2(|supp| + 1),
    which reproduces the slides' 0.63, 0.5, 0.63. A movie nobody rated weighs 0.

    >>> attribute_weights([2, 3, 2], "slides").round(3)
    array([0.631, 0.5  , 0.631])
    >>> attribute_weights([1, 2, np.e ** 2]).round(3)
    array([1.443, 1.443, 0.5  ])
    """
    check_choice("convention", convention, WEIGHT_CONVENTIONS)
    s = np.asarray(support, dtype=np.float64)
    if np.any(s < 0) or not np.all(np.isfinite(s)):
        raise ValueError("support must hold non-negative counts")
    out = np.zeros_like(s)
    pos = s > 0
    if convention == "natural":
        out[pos] = 1.0 / np.log(np.maximum(s[pos], 2.0))
    else:
        out[pos] = 1.0 / np.log2(s[pos] + 1.0)
    return out


@dataclass(frozen=True)
class Similarity:
    """Per-attribute similarity Sim(aux_i, r_i) of a rating (and its date).

    ``"exponential"`` ([NS08] §5): exp(-|Δrating|/rating_scale) + exp(-|Δdays|/date_scale), in (0, 2], [NS08] 1.5
    stars and 30 days; ``"threshold"`` ([NS08] §4): 1 within both tolerances, else 0; ``"linear"`` (the slides):
    max(0, 1 - |Δrating|/rating_scale) times the same for days. ``date_scale=None`` ignores dates.
    """

    kind: str = "exponential"
    rating_scale: float = 1.5
    date_scale: float | None = 30.0

    def __post_init__(self) -> None:
        check_choice("kind", self.kind, SIMILARITY_KINDS)
        # a tolerance (threshold) may be 0; a scale (exponential, linear) must be > 0
        tolerance = self.kind == "threshold"
        check_number("rating_scale", self.rating_scale, low=0, low_inclusive=tolerance)
        if self.date_scale is not None:
            check_number("date_scale", self.date_scale, low=0, low_inclusive=tolerance)


def attribute_similarity(
    aux_rating: np.ndarray,
    rating: np.ndarray,
    aux_day: np.ndarray | None = None,
    day: np.ndarray | None = None,
    similarity: Similarity = Similarity(),
) -> np.ndarray:
    """Sim(aux_i, r_i) element-wise; dates count only when both are given and ``date_scale`` is set.

    >>> attribute_similarity(np.array([4.5]), np.array([5.0]), similarity=Similarity("linear", 5.0, None))
    array([0.9])
    >>> attribute_similarity(np.array([3]), np.array([3]), np.array([10]), np.array([10]))
    array([2.])
    """
    # differences in float64 straight from the stored dtypes (uint8 stars, int16 days), in place
    dr = np.asarray(np.subtract(aux_rating, rating, dtype=np.float64))
    np.abs(dr, out=dr)
    use_dates = aux_day is not None and day is not None and similarity.date_scale is not None
    dd = None
    if use_dates:
        dd = np.asarray(np.subtract(aux_day, day, dtype=np.float64))
        np.abs(dd, out=dd)
    if similarity.kind == "exponential":
        out = np.exp(np.divide(dr, -similarity.rating_scale, out=dr), out=dr)  # exp(-|Δ| / ρ0)
        if dd is not None:
            out += np.exp(np.divide(dd, -similarity.date_scale, out=dd), out=dd)
        return out
    if similarity.kind == "threshold":
        ok = dr <= similarity.rating_scale + 1e-9
        if dd is not None:
            ok &= dd <= similarity.date_scale + 1e-9
        return ok.astype(np.float64)
    out = np.clip(1.0 - dr / similarity.rating_scale, 0.0, None)
    if dd is not None:
        out *= np.clip(1.0 - dd / similarity.date_scale, 0.0, None)
    return out


# --------------------------------------------------------------------------- auxiliary information


@dataclass(frozen=True)
class AuxRecord:
    """What the adversary knows about one target: distinct ``movies`` (columns), ``ratings``, ``days``.

    ``days`` is ``None`` without dates; ``wrong`` marks entries the target never rated; ``enter`` is the smallest
    nested aux size containing each entry (:meth:`at`); ``target`` the true row, for evaluation only.
    """

    movies: np.ndarray
    ratings: np.ndarray
    days: np.ndarray | None
    wrong: np.ndarray
    enter: np.ndarray
    target: int | None = None

    def __post_init__(self) -> None:
        n = len(self.movies)
        for name in ("ratings", "wrong", "enter"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"aux {name} has length {len(getattr(self, name))}, movies {n}")
        if self.days is not None and len(self.days) != n:
            raise ValueError("aux days and movies differ in length")
        if len(np.unique(self.movies)) != n:
            raise ValueError("an aux record lists a movie twice")

    @property
    def m(self) -> int:
        """|supp(aux)|: the number of known movies."""
        return int(len(self.movies))

    def at(self, m: int) -> AuxRecord:
        """The aux of size ``m`` in a nested sequence (entries with ``enter <= m``)."""
        keep = self.enter <= m
        return AuxRecord(self.movies[keep], self.ratings[keep],
                         None if self.days is None else self.days[keep], self.wrong[keep],
                         np.full(int(keep.sum()), m), self.target)

    def frame(self, data: RatingMatrix | None = None) -> pd.DataFrame:
        """The aux as a table (movie ids from ``data`` if given)."""
        movie = self.movies if data is None else data.movie_ids[self.movies]
        df = pd.DataFrame({"movie": movie, "rating": self.ratings, "wrong": self.wrong,
                           "enter": self.enter})
        if self.days is not None:
            df["day"] = self.days
        return df


def aux_from_mapping(data: RatingMatrix, known: Mapping[Any, float],
                     days: Mapping[Any, float] | None = None) -> AuxRecord:
    """An aux record from ``{movie id: rating}`` (the slides' ``{v1: 4.5, v2: 2.3}``); unknown ids: ``ValueError``."""
    ids = list(data.movie_ids)
    cols = []
    for mid in known:
        if mid not in ids:
            raise ValueError(f"movie {mid!r} is not in the data; its movies are {ids[:10]}")
        cols.append(ids.index(mid))
    movies = np.asarray(cols, dtype=np.int64)
    ratings = np.asarray(list(known.values()), dtype=np.float64)
    d = None if days is None else np.asarray([days[k] for k in known], dtype=np.float64)
    n = len(movies)
    return AuxRecord(movies, ratings, d, np.zeros(n, dtype=bool), np.full(n, n))


def wrong_count(m: int, wrong_fraction: float) -> int:
    """Wrong entries in an aux of size ``m``: floor(wrong_fraction · m + 1/2), so growing auxes nest.

    ``wrong_count(8, 0.25) == 2`` ([NS08]: "8 movie ratings, of which 2 may be completely wrong").
    """
    check_number("wrong_fraction", wrong_fraction, low=0.0, high=1.0, high_inclusive=False)
    return int(math.floor(wrong_fraction * m + 0.5 + 1e-12))


def _selection_mask(data: RatingMatrix, selection: str, top_movies: int) -> np.ndarray:
    """Movies the adversary's aux may contain: all, not among / among the most rated."""
    check_choice("selection", selection, SELECTIONS)
    if selection == "uniform":
        return np.ones(data.n_movies, dtype=bool)
    check_int("top_movies", _plain(top_movies), low=1, high=data.n_movies - 1)
    key = ("top", top_movies)
    if key not in data._cache:
        data._cache[key] = np.argsort(-data.support, kind="stable")[:top_movies]
    top = data._cache[key]
    mask = np.zeros(data.n_movies, dtype=bool)
    mask[top] = True
    return ~mask if selection == "rare" else mask


def _check_m_grid(m_grid: Sequence[int] | int, name: str = "m") -> np.ndarray:
    """Aux sizes as a sorted array of distinct integers >= 1 (:func:`anonlab.validation.check_number_list`)."""
    values = np.atleast_1d(np.asarray(m_grid)).tolist()
    return np.unique(np.asarray(check_number_list(name, values, low=1, integer=True), dtype=np.int64))


def eligible_targets(data: RatingMatrix, m_max: int, *, wrong_fraction: float = 0.0,
                     selection: str = "uniform", top_movies: int = 500) -> np.ndarray:
    """Rows holding ``m - wrong_count(m)`` movies of the selected kind at the largest ``m``."""
    need = m_max - wrong_count(m_max, wrong_fraction)
    if selection == "uniform":
        return np.flatnonzero(data.activity >= need)
    mask = _selection_mask(data, selection, top_movies)
    ptr = data.by_user.indptr
    if data.n_ratings == 0:
        return np.empty(0, dtype=np.int64)
    per_user = np.add.reduceat(mask[data.by_user.indices], np.minimum(ptr[:-1], data.n_ratings - 1),
                               dtype=np.int64)
    per_user[ptr[:-1] == ptr[1:]] = 0  # reduceat returns an element, not 0, for empty rows
    return np.flatnonzero(per_user >= need)


def make_aux(
    data: RatingMatrix,
    target: int,
    m: Sequence[int] | int,
    *,
    rating_error: int = 0,
    date_error: int | None = 14,
    wrong_fraction: float = 0.0,
    selection: str = "uniform",
    top_movies: int = 500,
    seed: int | np.random.Generator = 0,
) -> AuxRecord:
    """Draw the adversary's auxiliary information about ``target`` ([NS08] §5 set-up).

    Correct entries: the target's movies in random order, rating moved by a uniform integer in ±``rating_error`` stars
    (0 or 1 in [NS08]), date by ±``date_error`` days (3, 14; ``None``: unknown). Wrong entries (:func:`wrong_count`):
    unrated movies drawn by popularity, uniform rating and date. ``selection``: any movie, only outside (``"rare"``)
    or inside (``"popular"``) the ``top_movies`` most rated. A grid ``m`` gives a nested aux (``aux.at(m_k)``).
    ``ValueError`` if the record has too few movies of the kind.
    """
    grid = _check_m_grid(m)
    rng = check_random_state(seed)
    check_int("rating_error", _plain(rating_error), low=0)
    if date_error is not None:
        check_int("date_error", _plain(date_error), low=0)
    if date_error is not None and not data.has_dates:
        raise ValueError("the data have no dates: use date_error=None")
    m_max = int(grid.max())
    mask = _selection_mask(data, selection, top_movies)
    movies, ratings, days = data.record(target)
    ok = mask[movies]
    n_correct = np.array([mm - wrong_count(int(mm), wrong_fraction) for mm in range(1, m_max + 1)])
    n_wrong = np.arange(1, m_max + 1) - n_correct
    need_c, need_w = int(n_correct[-1]), int(n_wrong[-1])
    if ok.sum() < need_c:
        raise ValueError(f"target {target} has {int(ok.sum())} movies of kind {selection!r}, "
                         f"needs {need_c} for an aux of size {m_max}")
    pick = rng.permutation(np.flatnonzero(ok))[:need_c]
    c_movies = movies[pick].astype(np.int64)
    c_ratings = ratings[pick].astype(np.float64)
    r_lo, r_hi = data.rating_range
    if rating_error:
        c_ratings = np.clip(c_ratings + rng.integers(-rating_error, rating_error + 1, need_c), r_lo, r_hi)
    c_days = None
    d_lo = d_hi = 0
    if date_error is not None:
        d_lo, d_hi = data.day_range
        c_days = days[pick].astype(np.float64)
        if date_error:
            c_days = c_days + rng.integers(-date_error, date_error + 1, need_c)
    # wrong entries: popular-weighted movies of the same kind that the target did not rate
    cand = mask.copy()
    cand[movies] = False
    w_p = data.support * cand
    if need_w and np.count_nonzero(w_p) < need_w:
        raise ValueError(f"not enough movies the target did not rate for {need_w} wrong entries")
    w_movies = (rng.choice(data.n_movies, size=need_w, replace=False, p=w_p / w_p.sum())
                if need_w else np.empty(0, dtype=np.int64))
    w_ratings = rng.integers(int(r_lo), int(r_hi) + 1, need_w).astype(np.float64)
    w_days = rng.integers(d_lo, d_hi + 1, need_w).astype(np.float64) if date_error is not None else None
    # enter[j]: smallest m whose aux holds entry j (nested because both counts are non-decreasing)
    c_enter = np.searchsorted(n_correct, np.arange(1, need_c + 1)) + 1
    w_enter = np.searchsorted(n_wrong, np.arange(1, need_w + 1)) + 1
    aux = AuxRecord(
        movies=np.concatenate([c_movies, w_movies.astype(np.int64)]),
        ratings=np.concatenate([c_ratings, w_ratings]),
        days=None if c_days is None else np.concatenate([c_days, w_days]),
        wrong=np.concatenate([np.zeros(need_c, bool), np.ones(need_w, bool)]),
        enter=np.concatenate([c_enter, w_enter]).astype(np.int64),
        target=int(target),
    )
    return aux if grid.size > 1 else aux.at(m_max)


# --------------------------------------------------------------------------- scoring


def _gather_columns(data: RatingMatrix, movies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions (in column order) of all ratings of ``movies`` and their aux entry index."""
    indptr = data.by_movie.indptr
    starts = indptr[movies]
    lens = indptr[movies + 1] - starts
    total = int(lens.sum())
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
    pos = offsets + np.arange(total, dtype=np.int64)
    entry = np.repeat(np.arange(len(movies)), lens)
    return pos, entry


def _similarities(data: RatingMatrix, aux: AuxRecord, similarity: Similarity, weights: str,
                  exclude: np.ndarray | None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per rating of an aux movie (grouped by aux entry): its row, entry index and Sim; and each entry's w(i)."""
    pos, entry = _gather_columns(data, aux.movies)
    rows = data.by_movie.indices[pos]
    day = aux_day = None
    if aux.days is not None and similarity.date_scale is not None:
        if data.dates_by_movie is None:
            raise ValueError("the aux has dates but the data have none")
        day, aux_day = data.dates_by_movie[pos], aux.days[entry]
    sim = attribute_similarity(aux.ratings[entry], data.by_movie.data[pos], aux_day, day, similarity)
    support = data.support[aux.movies]
    if exclude is not None and exclude.size:
        gone = np.isin(rows, exclude)
        support = support - np.bincount(entry[gone], minlength=aux.m)
        sim[gone] = 0.0
    return rows, entry, sim, attribute_weights(support, weights)


def scores(
    data: RatingMatrix,
    aux: AuxRecord,
    *,
    similarity: Similarity = Similarity(),
    weights: str = "natural",
    normalize: bool = False,
    exclude: int | Sequence[int] | np.ndarray | None = None,
) -> np.ndarray:
    r"""Score(aux, r) = Σ_{i ∈ supp(aux)} w(i) Sim(aux_i, r_i) for every record at once ([NS08] §4.2, §5).

    Column by column then one ``bincount``, no N x m matrix. Defaults: [NS08]'s exponential Sim, natural weights
    (:func:`attribute_weights`). ``normalize`` divides by m (the slides' means). ``exclude``: rows treated as absent
    (score ``nan``, left out of the supports). The slides' example (weights 0.63 / 0.5 / 0.63):

    >>> t = pd.DataFrame({"v1": [5, 3, None], "v2": [2, 1, 2], "v3": [None, 4, 4]})
    >>> ex = RatingMatrix.from_dense(t)
    >>> aux = aux_from_mapping(ex, {"v1": 4.5, "v2": 2.3})
    >>> scores(ex, aux, similarity=Similarity("linear", 5.0, None), weights="slides",
    ...        normalize=True).round(3)
    array([0.519, 0.406, 0.235])
    """
    excl = None if exclude is None else np.unique(np.asarray(exclude, dtype=np.int64))
    if aux.m:
        support = data.support[aux.movies]
        if excl is not None and excl.size:
            support = support - _rated_by(data, aux.movies, excl)
        w = attribute_weights(support, weights)
        indptr, indices = data.by_movie.indptr, data.by_movie.indices
        rows = np.empty(int((indptr[aux.movies + 1] - indptr[aux.movies]).sum()), dtype=indices.dtype)
        contrib = np.empty(rows.size)
        pos = 0
        for j, lo, hi, sim in _column_similarities(data, aux, similarity):
            rows[pos:pos + hi - lo] = indices[lo:hi]
            np.multiply(sim, w[j], out=contrib[pos:pos + hi - lo])
            pos += hi - lo
        # one pass adds each record's contributions in aux order, starting from 0
        out = np.bincount(rows, weights=contrib, minlength=data.n_users)
        if normalize:
            out /= aux.m
    else:
        out = np.zeros(data.n_users)
    if excl is not None:
        out[excl] = np.nan
    return out


def _rated_by(data: RatingMatrix, movies: np.ndarray, users: np.ndarray) -> np.ndarray:
    """How many of ``users`` (distinct) rated each of ``movies``."""
    indptr, indices = data.by_user.indptr, data.by_user.indices
    count = np.zeros(len(movies), dtype=np.int64)
    for u in users:
        count += np.isin(movies, indices[indptr[u]:indptr[u + 1]])
    return count


def _column_similarities(data: RatingMatrix, aux: AuxRecord, similarity: Similarity):
    """Per aux entry: its column's slice ``lo:hi`` of the column-ordered data and Sim of every record that rated it."""
    use_dates = aux.days is not None and similarity.date_scale is not None
    if use_dates and data.dates_by_movie is None:
        raise ValueError("the aux has dates but the data have none")
    indptr, vals, dates = data.by_movie.indptr, data.by_movie.data, data.dates_by_movie
    for j, i in enumerate(aux.movies):
        lo, hi = int(indptr[i]), int(indptr[i + 1])
        sim = attribute_similarity(aux.ratings[j:j + 1], vals[lo:hi],
                                   aux.days[j:j + 1] if use_dates else None,
                                   dates[lo:hi] if use_dates else None, similarity)
        yield j, lo, hi, sim


def top_two(score: np.ndarray) -> tuple[int, float, float]:
    """Index of the best record, the best and the second-best score (NaN ignored)."""
    nan = np.isnan(score)
    if score.size - int(nan.sum()) < 2:
        raise ValueError("need at least two scored records")
    s = np.where(nan, -np.inf, score) if nan.any() else score.copy()
    best = int(np.argmax(s))
    b = float(s[best])
    s[best] = -np.inf
    return best, b, float(s.max())


def _top2_std(score: np.ndarray, skip: int | None) -> tuple[int, float, float, float]:
    """Best row, best and second score and population sd without row ``skip``, in place (``score`` restored)."""
    n = score.size
    saved = None
    if skip is not None:
        saved = score[skip]
        score[skip] = -np.inf
    best = int(np.argmax(score))
    b = float(score[best])
    score[best] = -np.inf
    s2 = float(score.max())
    score[best] = b
    if skip is not None:
        score[skip] = 0.0
        n -= 1
    total = float(score.sum())
    sq = float(np.square(score).sum())
    if skip is not None:
        score[skip] = saved
    var = max(0.0, sq / n - (total / n) ** 2)
    return best, b, s2, math.sqrt(var)


def eccentricity(score: np.ndarray) -> float:
    r"""Eccentricity e = (max S - max₂ S) / σ(S), population sd ([NS08] §4.2); ``nan`` ignored, 0 if all equal.

    >>> round(eccentricity(np.array([0.519, 0.406, 0.235])), 3)
    0.968
    >>> round(eccentricity(np.array([1.0, 0.0, 0.0, 0.0])), 4)
    2.3094
    """
    _, best, second = top_two(score)
    sd = float(np.nanstd(score))
    return 0.0 if sd == 0 else (best - second) / sd


@dataclass(frozen=True)
class Match:
    """Outcome of :func:`scoreboard_rh`: ``record`` (``None``: no match), the ``best`` row and its scores."""

    record: int | None
    best: int
    best_score: float
    second_score: float
    eccentricity: float
    phi: float
    scores: np.ndarray

    @property
    def matched(self) -> bool:
        """Whether the eccentricity test passed."""
        return self.record is not None


def scoreboard_rh(
    data: RatingMatrix,
    aux: AuxRecord,
    *,
    phi: float = 1.5,
    similarity: Similarity = Similarity(),
    weights: str = "natural",
    normalize: bool = False,
    exclude: int | Sequence[int] | np.ndarray | None = None,
) -> Match:
    """Algorithm Scoreboard-RH ([NS08] §4.2): the best record if its eccentricity > ``phi``, else no match."""
    check_number("phi", phi, low=0)
    s = scores(data, aux, similarity=similarity, weights=weights, normalize=normalize,
               exclude=exclude)
    best, b, s2 = top_two(s)
    e = eccentricity(s)
    return Match(best if e > phi else None, best, b, s2, e, float(phi), s)


# --------------------------------------------------------------------------- experiments


def _target_seeds(seed: int | np.random.Generator, targets: np.ndarray) -> list[np.random.Generator]:
    """One generator per target, ``stream(seed, "netflix.target_aux", target)`` (a generator seed draws the int first).

    So a target's aux depends neither on the other targets nor on member vs non-member runs.
    """
    rng = check_random_state(seed)
    base = int(seed) if not isinstance(seed, np.random.Generator) else int(rng.integers(2**63))
    return [stream(base, "netflix.target_aux", int(t)) for t in targets]


def reidentification_trials(
    data: RatingMatrix,
    targets: Sequence[int] | np.ndarray,
    m_grid: Sequence[int],
    *,
    rating_error: int = 0,
    date_error: int | None = 14,
    wrong_fraction: float = 0.0,
    selection: str = "uniform",
    top_movies: int = 500,
    similarity: Similarity = Similarity(),
    weights: str = "natural",
    member: bool = True,
    seed: int | np.random.Generator = 0,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Run the attack on each target for every aux size in ``m_grid`` (nested auxes, scores accumulated).

    ``member=False`` removes the target from the release, so every output is a false match ([NS08] "target not in the
    sample"). One row per (target, m): ``target, m, n_wrong, member, best, best_score, second_score, eccentricity,
    correct, aux_movies``.
    """
    grid = _check_m_grid(m_grid)
    targets = np.asarray(targets, dtype=np.int64)
    if targets.size == 0:
        raise ValueError("no targets")
    rngs = _target_seeds(seed, targets)
    rows_out: list[dict[str, Any]] = []
    for k, t in enumerate(targets):
        aux = make_aux(data, int(t), grid if grid.size > 1 else int(grid[0]),
                       rating_error=rating_error, date_error=date_error,
                       wrong_fraction=wrong_fraction, selection=selection, top_movies=top_movies,
                       seed=rngs[k])
        excl = None if member else np.array([t])
        rows, entry, sim, w = _similarities(data, aux, similarity, weights, excl)
        contrib = w[entry] * sim
        enter = aux.enter[entry]
        score_ = np.zeros(data.n_users)
        done = 0
        for mm in grid:
            new = (enter > done) & (enter <= mm)
            score_ += np.bincount(rows[new], weights=contrib[new], minlength=data.n_users)
            done = int(mm)
            best, b, s2, sd = _top2_std(score_, None if member else int(t))
            in_aux = aux.enter <= mm
            rows_out.append({
                "target": int(t), "m": int(mm), "n_wrong": int(aux.wrong[in_aux].sum()),
                "member": member, "best": best, "best_score": b, "second_score": s2,
                "eccentricity": 0.0 if sd == 0 else (b - s2) / sd,
                "correct": bool(member and best == t),
                "aux_movies": tuple(int(x) for x in aux.movies[in_aux]),
            })
        if progress is not None:
            progress(k + 1, len(targets))
    return pd.DataFrame(rows_out)


def attack_result(trials: pd.DataFrame, phi: float = 1.5, *, name: str | None = None) -> AttackResult:
    """The trials of one aux size as an :class:`~anonlab.measures.AttackResult` (the book's protocol).

    Targets ``"row t"`` (truth: row t) or ``"row t, removed"`` (truth: no record); prediction the best record if
    eccentricity > ``phi`` ([NS08] §4.2), else an abstention; confidence the eccentricity. The prediction rate is
    [NS08]'s re-identification rate.

    >>> tr = pd.DataFrame({"target": [3, 5, 3], "m": 8, "member": [True, True, False],
    ...                    "best": [3, 1, 4], "eccentricity": [2.0, 1.8, 1.6]})
    >>> s = score(attack_result(tr, phi=1.5))
    >>> s.coverage, round(s.precision, 4), s.n_correct
    (1.0, 0.3333, 1)
    """
    phi = check_number("phi", phi, low=0)
    ms = pd.unique(trials["m"])
    if len(ms) != 1:
        raise ValueError(f"attack_result scores one aux size m at a time; got m = {sorted(ms.tolist())}")
    m = int(ms[0])
    member = trials["member"].to_numpy(dtype=bool)
    target = trials["target"].to_numpy(dtype=np.int64)
    labels = np.array([f"row {t}" if mem else f"row {t}, removed" for t, mem in zip(target, member)],
                      dtype=object)
    truth = np.empty(len(trials), dtype=object)
    truth[:] = [int(t) if mem else None for t, mem in zip(target, member)]
    prediction = np.empty(len(trials), dtype=object)
    prediction[:] = [int(b) for b in trials["best"]]
    ecc = trials["eccentricity"].to_numpy(dtype=np.float64)
    kind = ("targets in the release" if member.all() else "targets removed" if not member.any()
            else "targets in the release and removed")
    return AttackResult(
        name or f"Scoreboard-RH, m = {m}, φ = {phi:g} ({kind})", labels, truth, ecc > phi,
        prediction, confidence=ecc, resources={"aux_ratings": m})


def reidentification_rate(trials: pd.DataFrame, phi: float = 1.5,
                          confidence: float = 0.95) -> pd.DataFrame:
    """Share of targets re-identified per ``m`` (the prediction rate, [FW24] Eq 4), with Wilson intervals.

    Indexed by ``m``: ``n, reidentified, rate, ci_low, ci_high, top1`` (best record is the target, no threshold),
    ``matches, match_rate, match_ci_low, match_ci_high`` (the false-positive rate for removed targets).
    """
    check_number("phi", phi, low=0)
    rows = []
    for m, g in trials.groupby("m"):
        s = score(attack_result(g, phi), confidence=confidence)
        rows.append({"m": m, "n": s.n_targets, "reidentified": s.n_correct,
                     "top1": float(g["correct"].mean()), "matches": s.n_predictions,
                     "rate": s.prediction_rate, "ci_low": s.prediction_rate_ci[0],
                     "ci_high": s.prediction_rate_ci[1], "match_rate": s.coverage,
                     "match_ci_low": s.coverage_ci[0], "match_ci_high": s.coverage_ci[1]})
    return pd.DataFrame(rows).set_index("m")


def at_m(trials: pd.DataFrame, m: int) -> pd.DataFrame:
    """The trials of one aux size."""
    return trials[trials["m"] == m]


def first_m(rate: pd.DataFrame, level: float = 0.5) -> int | None:
    """Smallest m whose re-identification rate (:func:`reidentification_rate`) reaches ``level`` (None: never).

    >>> first_m(pd.DataFrame({"rate": [0.2, 0.6, 0.9]}, index=[1, 2, 4]))
    2
    """
    hit = rate.index[rate["rate"] >= level]
    return int(hit[0]) if len(hit) else None


def precision_coverage(members: pd.DataFrame, non_members: pd.DataFrame,
                       phis: Sequence[float]) -> pd.DataFrame:
    """Precision and coverage as φ is swept ([FW24] §2, §4.3), members, removed targets and both mixed.

    One row per distinct φ: ``coverage, precision`` with its interval, ``recall``, ``false_match_rate``,
    ``coverage_mixed, precision_mixed`` with its interval, ``answers_mixed``.
    """
    rows = []
    both = pd.concat([members, non_members], ignore_index=True)
    for phi in sorted(set(phis)):
        s = score(attack_result(members, phi))
        s_non = score(attack_result(non_members, phi))
        s_mix = score(attack_result(both, phi))
        rows.append({"phi": float(phi), "coverage": s.coverage, "precision": s.precision,
                     "precision_ci_low": s.precision_ci[0], "precision_ci_high": s.precision_ci[1],
                     "recall": s.prediction_rate, "false_match_rate": s_non.coverage,
                     "coverage_mixed": s_mix.coverage, "precision_mixed": s_mix.precision,
                     "precision_mixed_ci_low": s_mix.precision_ci[0],
                     "precision_mixed_ci_high": s_mix.precision_ci[1], "answers_mixed": s_mix.n_predictions})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Release:
    """The released records an experiment attacks, with a name and a cache identity (``key``)."""

    data: RatingMatrix
    name: str
    key: Mapping[str, Any]


@dataclass(frozen=True)
class Experiment:
    """Scoreboard-RH on one data set with fixed similarity, weights, threshold and seed.

    :meth:`run` is :func:`reidentification_trials`; chapter 3 caches it (``CachedExperiment``).
    """

    data: Release
    similarity: Similarity
    weights: str
    phi: float
    seed: int

    def pick_targets(self, m_max: int, n: int, **kw: Any) -> np.ndarray:
        """``n`` targets drawn uniformly (seeded) among users eligible for an aux of size ``m_max``."""
        pool = eligible_targets(self.data.data, m_max, **kw)
        if pool.size == 0:
            raise ParameterError(f"no user of {self.data.name} has the {m_max} movies an aux of size "
                                 f"{m_max} needs ({kw or 'any movies'}); lower the aux sizes")
        rng = check_random_state(self.seed)
        return np.sort(rng.choice(pool, size=min(n, len(pool)), replace=False))

    def run(self, targets: np.ndarray, grid: Sequence[int], label: str, *,
            similarity: Similarity | None = None, **kw: Any) -> pd.DataFrame:
        """Trials of ``targets`` at the aux sizes ``grid`` (see ``reidentification_trials``); ``label`` names them."""
        return reidentification_trials(self.data.data, targets, grid, similarity=similarity or self.similarity,
                                       weights=self.weights, seed=self.seed, **kw)


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
        self.rates = {k: reidentification_rate(v, self.phi) for k, v in self.trials.items()}
        self.absent_rate = reidentification_rate(self.absent, self.phi)

    def summary(self) -> pd.DataFrame:
        """Share re-identified per m and setting, and the false-match rate of removed targets."""
        out = pd.DataFrame({k: v["rate"] for k, v in self.rates.items()})
        out["target removed: false matches"] = self.absent_rate["match_rate"]
        return out


def matched_similarity(rating_error: int, date_error: int | None) -> Similarity:
    """The 0/1 Sim ([NS08] §4) with the aux's own tolerances: ``rating_error`` stars, ``date_error`` days.

    A true entry always has Sim = 1 (``None``: dates unknown).

    >>> matched_similarity(1, 14)
    Similarity(kind='threshold', rating_scale=1.0, date_scale=14.0)
    >>> matched_similarity(0, None).date_scale is None
    True
    """
    return Similarity("threshold", float(rating_error), None if date_error is None else float(date_error))


# --------------------------------------------------------------------------- information amplification


def amplification(data: RatingMatrix, target: int, aux_movies: Sequence[int],
                  matched: int | None) -> pd.DataFrame:
    """Predict the target's ratings of the movies not in ``aux`` from the matched record ([NS08] §3, §5).

    Falls back to the baseline (the movie's mean over other records plus the aux's user bias) without a match or
    rating. One row per held-out movie: ``movie, true, predicted, baseline, from_match``.
    """
    movies, ratings, _ = data.record(target)
    aux_set = np.asarray(list(aux_movies), dtype=np.int64)
    held = ~np.isin(movies, aux_set)
    hm, hr = movies[held], ratings[held].astype(np.float64)
    if "col_sum" not in data._cache:
        data._cache["col_sum"] = np.asarray(data.by_movie.sum(axis=0, dtype=np.float64)).ravel()
    col_sum = data._cache["col_sum"]
    sup = data.support.astype(np.float64)
    # movie means without the target's own rating (the baseline must not use it)
    t_movies, t_ratings = movies, ratings.astype(np.float64)
    sums = col_sum.copy()
    cnt = sup.copy()
    sums[t_movies] -= t_ratings
    cnt[t_movies] -= 1
    glob = float(col_sum.sum() / max(1.0, sup.sum()))
    means = np.where(cnt > 0, sums / np.maximum(cnt, 1), glob)
    in_rec = np.isin(aux_set, t_movies)
    aux_true = ratings[np.searchsorted(t_movies, aux_set[in_rec])] if in_rec.any() else np.empty(0)
    bias = float(np.mean(aux_true - means[aux_set[in_rec]])) if in_rec.any() else 0.0
    lo, hi = data.rating_range
    baseline = np.clip(means[hm] + bias, lo, hi)
    predicted = baseline.copy()
    from_match = np.zeros(hm.size, dtype=bool)
    if matched is not None:
        m_movies, m_ratings, _ = data.record(matched)
        if m_movies.size:
            idx = np.minimum(np.searchsorted(m_movies, hm), m_movies.size - 1)
            from_match = m_movies[idx] == hm
            predicted[from_match] = m_ratings[idx[from_match]]
    return pd.DataFrame({"movie": hm, "true": hr, "predicted": predicted, "baseline": baseline,
                         "from_match": from_match})


def amplification_summary(data: RatingMatrix, trials: pd.DataFrame, phi: float = 1.5) -> pd.DataFrame:
    """Accuracy of predicting targets' unseen ratings, with and without the match (output if e > ``phi``).

    Indexed by ``m``: ``targets, held_out, attack_exact, baseline_exact`` (baseline rounded to stars), ``attack_rmse,
    baseline_rmse, history_recall`` (held-out movies revealed as rated).
    """
    out = []
    for m, g in trials.groupby("m"):
        tr, pr, br, fm = [], [], [], []
        for row in g.itertuples(index=False):
            matched = int(row.best) if row.eccentricity > phi else None
            a = amplification(data, int(row.target), row.aux_movies, matched)
            tr.append(a["true"].to_numpy())
            pr.append(a["predicted"].to_numpy())
            br.append(a["baseline"].to_numpy())
            fm.append(a["from_match"].to_numpy())
        t, p, b, f = (np.concatenate(x) for x in (tr, pr, br, fm))
        out.append({"m": m, "targets": len(g), "held_out": t.size,
                    "attack_exact": float(np.mean(np.rint(p) == t)),
                    "baseline_exact": float(np.mean(np.rint(b) == t)),
                    "attack_rmse": float(np.sqrt(np.mean((p - t) ** 2))),
                    "baseline_rmse": float(np.sqrt(np.mean((b - t) ** 2))),
                    "history_recall": float(np.mean(f))})
    return pd.DataFrame(out).set_index("m")


def record_similarity(data: RatingMatrix, r: int, r2: int,
                      similarity: Similarity = Similarity("threshold", 0.0, 0.0)) -> float:
    r"""Similarity of two records ([NS08] §3): Σ_{supp r ∩ supp r'} Sim(r_i, r'_i) / |supp r ∪ supp r'|.

    0/1 per-attribute Sim (default: same stars and day); Sim(r, r) = 1.
    """
    if similarity.kind != "threshold":
        raise ValueError("record similarity needs a 0/1 ('threshold') attribute similarity")
    m1, x1, d1 = data.record(r)
    m2, x2, d2 = data.record(r2)
    common, i1, i2 = np.intersect1d(m1, m2, assume_unique=True, return_indices=True)
    union = m1.size + m2.size - common.size
    if union == 0:
        return 1.0
    sim = attribute_similarity(x1[i1], x2[i2], None if d1 is None else d1[i1],
                               None if d2 is None else d2[i2], similarity)
    return float(sim.sum() / union)


# --------------------------------------------------------------------------- the theorem


def m_bound(n_records: int, epsilon: float, delta: float) -> float:
    r"""Aux size that suffices ([NS08] Theorem 1; slides): m >= (log N - log ε) / -log(1 - δ).

    With m random attributes, each Sim >= 1 - ε, the database is (1 - ε - δ, 1 - ε)-de-anonymised; ``n_records`` >= 1,
    ε and δ in (0, 1); round up for whole attributes.

    >>> round(m_bound(943, 0.05, 0.5), 3)
    14.203
    """
    check_int("n_records", _plain(n_records), low=1)
    for name, v in (("epsilon", epsilon), ("delta", delta)):
        check_number(name, v, low=0, high=1, low_inclusive=False, high_inclusive=False)
    return (math.log(n_records) - math.log(epsilon)) / -math.log1p(-delta)

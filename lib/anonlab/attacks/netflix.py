"""The Narayanan-Shmatikov de-anonymization attack on sparse rating data (Scoreboard-RH).

An adversary knows a few of a target's movie ratings, perhaps with their
approximate dates, perhaps with mistakes (the *auxiliary information*, ``aux``,
e.g. from the target's public IMDb reviews). They score every record of an
anonymised release (the Netflix Prize) against ``aux``, weighting rare movies
more, and output the best-scoring record only if it stands out from the rest
(*eccentricity*); otherwise they answer "no match". A match then reveals every
other rating in the record (*information amplification*).

Formulas (A. Narayanan and V. Shmatikov, "Robust de-anonymization of large
sparse datasets", IEEE S&P 2008, cited as [NS08]; as taught on the CMU 18-734
lecture slides, "Weighted Scoring Algorithm" and "Main Result"):

* weight of attribute (movie) ``i``: ``w(i) = 1 / log |supp(i)|``, where
  ``|supp(i)|`` is the number of records that rated ``i`` ([NS08] §4.2);
* score of record ``r``: ``Score(aux, r) = sum_{i in supp(aux)} w(i) Sim(aux_i, r_i)``;
* for the Netflix data [NS08] §5 uses
  ``Sim = exp(-|rho_i - rho'_i| / rho_0) + exp(-|d_i - d'_i| / d_0)`` with
  ratings ``rho``, dates ``d`` in days, ``rho_0 = 1.5`` and ``d_0 = 30``;
* eccentricity ``e = (max - max_2) / sigma`` over the scores of all records
  (``sigma`` their standard deviation); output the best record if ``e > phi``,
  else "no match" (the slides print ``/ 2`` for ``/ sigma``, a conversion
  glitch; [NS08] use ``phi = 1.5``);
* the theorem: with ``m >= (log N - log eps) / -log(1 - delta)`` randomly
  chosen attributes of the target, each with ``Sim >= 1 - eps``, the database
  can be ``(1 - eps - delta, 1 - eps)``-de-anonymised ([NS08] Theorem 1).

The score of one ``aux`` against all N records is computed at once: for each
of the ``m`` aux movies, the slice of its ratings in the column-ordered sparse
matrix gives the similarities of every record that rated it, added (times the
movie's weight) to those records' scores. There is no Python loop over
records; the work is proportional to the number of ratings of the aux movies.

The experiments (:func:`reidentification_trials`) are scored with the book's
one protocol: :func:`attack_result` turns the trials of one aux size into an
:class:`~anonlab.measures.AttackResult` (prediction: the matched record, or an
abstention; truth: the target's record, or "no record" for a target removed
from the release; confidence: the eccentricity) and
:func:`anonlab.measures.score` gives precision, coverage and the
re-identification rate with their intervals.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

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
    r"""Weight of each attribute from its support, ``w(i) = 1 / log |supp(i)|``.

    [NS08] §4.2; lecture slides "Weighted Scoring". Rare movies weigh more.

    Parameters
    ----------
    support : array_like of int
        ``|supp(i)|``, the number of records with a non-null value of ``i``.
    convention : {"natural", "slides"}
        ``"natural"``: :math:`1/\ln|supp(i)|` as printed in [NS08] and on the
        slides. It is infinite at ``|supp| = 1``; a movie only one record rated
        is given the weight of a movie two records rated, :math:`1/\ln 2`.
        ``"slides"``: :math:`1/\log_2(|supp(i)| + 1)`, the convention that
        reproduces the numbers of the slides' worked example (0.63, 0.5, 0.63
        for supports 2, 3, 2).
        Either way a movie nobody rated weighs 0 (it cannot match anyone).

    Returns
    -------
    numpy.ndarray of float

    Examples
    --------
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
    """Per-attribute similarity ``Sim(aux_i, r_i)`` of a rating (and its date).

    Attributes
    ----------
    kind : {"exponential", "threshold", "linear"}
        ``"exponential"`` ([NS08] §5, the Netflix scoring):
        ``exp(-|Δrating| / rating_scale) + exp(-|Δdays| / date_scale)``, in
        (0, 2]; ``"threshold"`` ([NS08] §4, Sim as a 0/1 test):
        ``1`` if ``|Δrating| <= rating_scale`` and ``|Δdays| <= date_scale``,
        else 0; ``"linear"`` (the slides' worked example):
        ``max(0, 1 - |Δrating| / rating_scale)``, times
        ``max(0, 1 - |Δdays| / date_scale)`` when dates are used.
    rating_scale : float
        ``rho_0`` (exponential; [NS08]: 1.5 stars), the rating tolerance
        (threshold), or the rating range (linear; the slides: 5).
    date_scale : float or None
        ``d_0`` in days (exponential; [NS08]: 30), the date tolerance in days
        (threshold) or range (linear). ``None``: ignore dates even if known.
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
    """``Sim(aux_i, r_i)`` element-wise for ratings (and dates) present in both.

    Dates count only when ``aux_day`` and ``day`` are given and
    ``similarity.date_scale`` is not ``None``.

    Examples
    --------
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
    """What the adversary knows about one target.

    Attributes
    ----------
    movies : numpy.ndarray of int
        Column indices of the known movies (``supp(aux)``), distinct.
    ratings : numpy.ndarray of float
        The ratings the adversary believes the target gave.
    days : numpy.ndarray of float or None
        The believed dates (days since the data's origin); ``None`` if the
        adversary knows no dates.
    wrong : numpy.ndarray of bool
        Entries that are completely wrong (a movie the target never rated).
    enter : numpy.ndarray of int
        For nested aux sequences: the smallest aux size ``m`` that includes
        the entry (see :meth:`at`). Equal to ``len(movies)`` for a plain aux.
    target : int or None
        Row of the target in the data, if known (for evaluation only).
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
        """``|supp(aux)|``: the number of known movies."""
        return int(len(self.movies))

    def at(self, m: int) -> AuxRecord:
        """The aux of size ``m`` in a nested sequence (entries with ``enter <= m``)."""
        keep = self.enter <= m
        return AuxRecord(self.movies[keep], self.ratings[keep],
                         None if self.days is None else self.days[keep], self.wrong[keep],
                         np.full(int(keep.sum()), m), self.target)

    def without_dates(self) -> AuxRecord:
        """The same aux with the dates forgotten."""
        return replace(self, days=None)

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
    """An aux record from ``{movie id: rating}`` (e.g. the slides' ``{v1: 4.5, v2: 2.3}``).

    Raises
    ------
    ValueError
        If a movie id is not a column of ``data``.
    """
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
    """Number of wrong entries in an aux of size ``m``: ``floor(wrong_fraction * m + 1/2)``.

    Non-decreasing in ``m`` and so is ``m - wrong_count``, which makes aux
    records of growing ``m`` nested. ``wrong_count(8, 0.25) == 2`` ([NS08]:
    "8 movie ratings, of which 2 may be completely wrong").
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
    """Rows whose records hold enough movies of the selected kind for an aux of size ``m_max``.

    A target needs ``m - wrong_count(m)`` correct entries at the largest ``m``.
    """
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

    * correct entries: distinct movies of the target's record (of the
      selected kind), in random order, with the true rating moved by a
      uniform integer in ``[-rating_error, rating_error]`` (kept in the data's
      rating range) and the true date moved by a uniform integer number of
      days in ``[-date_error, date_error]``;
    * wrong entries (``wrong_count(m, wrong_fraction)`` of them): movies the
      target did not rate, of the same kind, drawn in proportion to their
      popularity, with a uniform rating and a uniform date over the data's
      range: "completely wrong" knowledge.

    Parameters
    ----------
    m : int or sequence of int
        Aux size, or a grid of sizes: then the result is a *nested* sequence
        and ``aux.at(m_k)`` gives the aux of size ``m_k`` (each larger aux
        contains the smaller ones).
    rating_error : int
        Maximum rating error in stars (0 = exact ratings; [NS08]: 0 or 1).
    date_error : int or None
        Maximum date error in days ([NS08]: 3, 14); ``None``: dates unknown.
    wrong_fraction : float in [0, 1)
        Share of wrong entries ([NS08]: 2 of 8 = 0.25).
    selection : {"uniform", "rare", "popular"}
        Which of the target's movies the adversary knows: any, only those
        outside the ``top_movies`` most-rated movies ([NS08]: "not in the top
        100 / 500"), or only those among them.
    seed : int or numpy.random.Generator
        Source of randomness, through
        :func:`anonlab.validation.check_random_state` (an int seeds a new
        generator; a generator is used as it is).

    Raises
    ------
    ValueError
        If the target's record has too few movies of the selected kind.
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
    """For every rating of an aux movie (grouped by aux entry, in aux order): its row,
    its aux entry index and ``Sim(aux_i, r_i)``; and the weight ``w(i)`` of each aux entry."""
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
    r"""``Score(aux, r)`` for every record ``r`` at once ([NS08] §4.2, §5; slides).

    .. math:: \text{Score}(aux, r) = \sum_{i \in supp(aux)} w(i)\, \text{Sim}(aux_i, r_i)

    A movie the record did not rate contributes 0. Computed column by column:
    for each aux movie, ``Sim`` of every record that rated it (one slice of the
    column-ordered data) times ``w(i)``; one ``numpy.bincount`` then adds each
    record's contributions in aux order. No loop over records, no ``N x m``
    matrix.

    Parameters
    ----------
    data : RatingMatrix
        The released records.
    aux : AuxRecord
        The adversary's knowledge.
    similarity : Similarity
        Per-attribute similarity (default: [NS08]'s Netflix exponential, 1.5
        stars, 30 days).
    weights : {"natural", "slides"}
        Weight convention, see :func:`attribute_weights`.
    normalize : bool
        Divide by ``m`` (the slides' scores are means over the aux movies).
        Does not change rankings or eccentricity.
    exclude : int or array of int, optional
        Records treated as absent from the release (the target of a
        non-member experiment): their score is ``nan`` and they do not count
        in the supports behind the weights.

    Returns
    -------
    numpy.ndarray of float, shape (N,)

    Examples
    --------
    The slides' worked example (weights 0.63 / 0.5 / 0.63):

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
    """For each aux entry ``j``: its column's slice ``lo:hi`` of the column-ordered data and
    ``Sim(aux_j, r_j)`` of every record that rated the movie (in column order)."""
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
    """Best row, best and second score, and population sd, leaving out row ``skip``.

    Works in place on ``score`` and restores it: two passes of ``max`` and one
    of sum/sum of squares, no copy of the N scores.
    """
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
    r"""Eccentricity of a score vector ([NS08] §4.2).

    .. math:: e = \frac{\max_r S(r) - \max_{2,r} S(r)}{\sigma(S)}

    where :math:`\max_2` is the second-highest score and :math:`\sigma` the
    (population) standard deviation of all scores; ``nan`` scores (excluded
    records) are ignored. ``0`` if all scores are equal.

    Examples
    --------
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
    """Outcome of :func:`scoreboard_rh` for one aux.

    Attributes
    ----------
    record : int or None
        The row output as the target's record, or ``None`` ("no match").
    best : int
        The best-scoring row (output only if eccentric enough).
    best_score, second_score : float
        The two highest scores.
    eccentricity : float
        ``(best_score - second_score) / sigma``.
    phi : float
        The threshold used.
    scores : numpy.ndarray
        All scores.
    """

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
    """Algorithm Scoreboard-RH ([NS08] §4.2): score all records, output the eccentric best.

    Returns the best-scoring record if ``eccentricity > phi``, else "no
    match" (``Match.record is None``). See :func:`scores` for the parameters.
    """
    check_number("phi", phi, low=0)
    s = scores(data, aux, similarity=similarity, weights=weights, normalize=normalize,
               exclude=exclude)
    best, b, s2 = top_two(s)
    e = eccentricity(s)
    return Match(best if e > phi else None, best, b, s2, e, float(phi), s)


# --------------------------------------------------------------------------- experiments


def _target_seeds(seed: int | np.random.Generator, targets: np.ndarray) -> list[np.random.Generator]:
    """One generator per target, seeded by ``(seed, target)``.

    An integer ``seed`` gives ``stream(seed, "netflix.target_aux", target)`` (:mod:`anonlab.streams`), so a
    target's aux does not depend on which other targets are attacked (and
    member and non-member runs of a target see the same aux). A generator
    ``seed`` first draws one integer that takes the place of ``seed``.
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
    """Run the attack on each target for every aux size in ``m_grid``.

    For each target a nested aux sequence is drawn with :func:`make_aux`
    (random generator seeded by ``(seed, target)``, so member and non-member
    runs of a target see the same aux). The scores for growing ``m`` are
    accumulated: each aux movie's column is gathered once.

    Parameters
    ----------
    member : bool
        ``True``: the target's record is in the release. ``False``: it is
        removed (scores and supports computed without it), so every output is a
        false match: the [NS08] "target not in the sample" experiment.
    seed : int or numpy.random.Generator
        See :func:`_target_seeds` (through :func:`anonlab.validation.check_random_state`).
    Other parameters
        As in :func:`make_aux` and :func:`scores`.

    Returns
    -------
    pandas.DataFrame
        One row per (target, m): ``target, m, n_wrong, member, best,
        best_score, second_score, eccentricity, correct`` (best == target) and
        ``aux_movies`` (tuple of column indices of the aux). Score it with
        :func:`attack_result` and :func:`anonlab.measures.score`.
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
    """The attack's outcome at one aux size, in the book's scoring protocol.

    For every trial (one target at one ``m``; members and removed targets may
    be mixed, as in the [NS08] "target not in the sample" experiment):

    * target: ``"row t"`` for a target in the release, ``"row t, removed"``
      for the same person removed from it;
    * truth: the target's record (row ``t``), or ``None`` ("no record") for a
      removed target, so that any prediction for them is wrong;
    * prediction: the best-scoring record if the eccentricity test passes
      (``eccentricity > phi``, [NS08] §4.2), otherwise an abstention ("no
      match");
    * confidence: the eccentricity; resources: ``{"aux_ratings": m}``.

    :func:`anonlab.measures.score` then gives precision (re-identified /
    answered), coverage (answered / targets) and the prediction rate
    (re-identified / targets, the "re-identification rate" of [NS08]), each
    with its Wilson interval.

    Examples
    --------
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
    """Share of targets re-identified, per ``m``, with Wilson intervals.

    Each ``m`` is scored with :func:`attack_result` and
    :func:`anonlab.measures.score`. A target is *re-identified* when the
    eccentricity test passes (``eccentricity > phi``) and the output record is
    the target's: the share is the protocol's prediction rate ([FW24] Eq 4).
    For non-member trials it is 0 by construction, and ``match_rate`` (the
    coverage: any output at all) is the false-positive rate.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``m``: ``n, reidentified, rate, ci_low, ci_high`` (rate
        interval), ``top1`` (best record is the target, no threshold),
        ``matches``, ``match_rate`` (an output was made) and its interval
        ``match_ci_low, match_ci_high``.
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

    :meth:`run` is :func:`reidentification_trials` with these settings (the
    book's chapter 3 runs it through its result cache:
    :class:`anonbook.chapters.ch03_netflix_eccentricity.CachedExperiment`).
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
    """The per-movie Sim matched to the aux's noise: 1 within its errors, else 0.

    [NS08] §4 define Sim as a 0/1 test within a tolerance; here the tolerance
    is what :func:`make_aux` applies to the aux (a
    rating off by at most ``rating_error`` stars, a date by at most
    ``date_error`` days; ``None``: dates unknown), so a true entry always has
    Sim = 1 and nothing the aux's noise could not explain counts.

    >>> matched_similarity(1, 14)
    Similarity(kind='threshold', rating_scale=1.0, date_scale=14.0)
    >>> matched_similarity(0, None).date_scale is None
    True
    """
    return Similarity("threshold", float(rating_error), None if date_error is None else float(date_error))


# --------------------------------------------------------------------------- information amplification


def amplification(data: RatingMatrix, target: int, aux_movies: Sequence[int],
                  matched: int | None) -> pd.DataFrame:
    """Predict the target's ratings of the movies not in ``aux`` ([NS08] §3, §5).

    The *attack* predicts each of the target's other movies with the matched
    record's rating of it; when there is no match, or the matched record did
    not rate the movie, it falls back to the baseline. The *baseline*, which
    does not use the match, predicts the movie's mean rating over all other
    records, shifted by how far the adversary's known ratings sit above the
    means of their movies (a user-bias estimate from aux alone).

    Returns
    -------
    pandas.DataFrame
        One row per held-out movie: ``movie, true, predicted, baseline, from_match``.
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
    """Accuracy of predicting targets' unseen ratings, with and without the match.

    For each trial (one target at one ``m``) the attack outputs a record if
    ``eccentricity > phi`` and :func:`amplification` predicts the other
    ratings. Exact-star accuracy rounds the baseline to whole stars.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``m``: ``targets, held_out`` (ratings predicted),
        ``attack_exact, baseline_exact`` (share of ratings predicted to the
        star), ``attack_rmse, baseline_rmse``, and ``history_recall`` (share
        of the targets' held-out movies that the output record reveals as
        rated).
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
    r"""Similarity of two records ([NS08] §3): share of their movies on which they agree.

    .. math:: Sim(r, r') = \frac{\sum_{i \in supp(r) \cap supp(r')} Sim(r_i, r'_i)}
                                 {|supp(r) \cup supp(r')|}

    with a 0/1 per-attribute ``Sim`` (default: same stars and same day).
    ``Sim(r, r) = 1``.
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
    r"""Aux size that suffices for de-anonymisation ([NS08] Theorem 1; slides "Main Result").

    .. math:: m \ge \frac{\log N - \log \varepsilon}{-\log(1 - \delta)}

    The base of the logarithm cancels. With this many randomly chosen
    attributes of the target, each with ``Sim >= 1 - epsilon``, the database
    can be ``(1 - epsilon - delta, 1 - epsilon)``-de-anonymised.

    Parameters
    ----------
    n_records : int
        N, the number of records (>= 1).
    epsilon, delta : float
        In (0, 1).

    Returns
    -------
    float
        The bound (round up for a whole number of attributes).

    Examples
    --------
    >>> round(m_bound(943, 0.05, 0.5), 3)
    14.203
    """
    check_int("n_records", _plain(n_records), low=1)
    for name, v in (("epsilon", epsilon), ("delta", delta)):
        check_number(name, v, low=0, high=1, low_inclusive=False, high_inclusive=False)
    return (math.log(n_records) - math.log(epsilon)) / -math.log1p(-delta)

"""Sparse rating matrices, and a synthetic generator with the Netflix Prize's shape.

The Netflix Prize training set [NS08] attacked (100,480,507 dated 1-5 star ratings by 480,189 users of 17,770 movies,
1999-2005; Bennett & Lanning 2007) is no longer distributed, so the book runs on MovieLens 100K and on
:func:`generate_netflix_like` (users with the files use :func:`anonlab.data.load_netflix_prize` and
:meth:`RatingMatrix.from_frame`). :class:`RatingMatrix` holds users x movies in row (CSR) and column (CSC) order with
dates as days (uint8 ratings, int16 days, int32 indices: about 1.4 GB at full size). The generator reproduces the
size, log-normal tails (209 ratings per user on average, median 96; movie median/mean about 561 / 5,654, no movie
above 48.5 % of users), stars of mean about 3.6 and dates with growing sign-ups and bursts. The medians and cap are
commonly quoted statistics, used as calibration knobs; taste is not modelled, so records are less alike than real
ones.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from anonlab.validation import check_int, check_number, check_random_state

__all__ = [
    "NETFLIX_SHAPE",
    "RatingMatrix",
    "generate_netflix_like",
    "shape_statistics",
    "shape_comparison",
]

#: The published shape of the Netflix Prize training set (Bennett & Lanning 2007).
NETFLIX_SHAPE: dict[str, Any] = {
    "n_users": 480_189,
    "n_movies": 17_770,
    "n_ratings": 100_480_507,
    "first_date": "1999-11-11",
    "last_date": "2005-12-31",
}

_ORIGIN = np.datetime64(NETFLIX_SHAPE["first_date"], "D")
_N_DAYS = int((np.datetime64(NETFLIX_SHAPE["last_date"], "D") - _ORIGIN).astype(int)) + 1


# --------------------------------------------------------------------------- the container


def _rating_array(ratings: np.ndarray) -> np.ndarray:
    """Whole stars 0..255 as ``uint8`` (1 byte a rating), anything else as ``float32``."""
    if ratings.dtype == np.uint8:
        return ratings
    r = ratings.astype(np.float64, copy=False)
    if r.size == 0 or (np.all(r == np.rint(r)) and r.min() >= 0 and r.max() <= 255):
        return ratings.astype(np.uint8)
    return ratings.astype(np.float32)


def _day_dtype(max_day: int) -> type:
    return np.int16 if max_day <= np.iinfo(np.int16).max else np.int32


@dataclass(frozen=True, eq=False)
class RatingMatrix:
    """A users x movies rating matrix with dates, stored row-wise (``by_user``) and column-wise (``by_movie``).

    A stored entry means "rated" whatever its value; ratings uint8 (float32 for non-whole stars).
    ``dates_by_user``/``dates_by_movie`` are days since ``date_origin`` aligned with each order's ``data`` (``None``
    without dates); ``user_ids``, ``movie_ids`` the original identifiers.
    """

    by_user: sp.csr_matrix
    by_movie: sp.csc_matrix
    dates_by_user: np.ndarray | None
    dates_by_movie: np.ndarray | None
    user_ids: np.ndarray
    movie_ids: np.ndarray
    date_origin: np.datetime64 | None
    _support: np.ndarray = field(init=False, repr=False, compare=False)
    _cache: dict = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_support", np.diff(self.by_movie.indptr).astype(np.int64))

    @property
    def rating_range(self) -> tuple[float, float]:
        """Lowest and highest stored rating (computed once)."""
        if "rating_range" not in self._cache:
            d = self.by_user.data
            self._cache["rating_range"] = (float(d.min()), float(d.max())) if d.size else (0.0, 0.0)
        return self._cache["rating_range"]

    @property
    def day_range(self) -> tuple[int, int] | None:
        """First and last day of the dates (computed once), ``None`` without dates."""
        if self.dates_by_user is None:
            return None
        if "day_range" not in self._cache:
            d = self.dates_by_user
            self._cache["day_range"] = (int(d.min()), int(d.max())) if d.size else (0, 0)
        return self._cache["day_range"]

    # -- sizes -------------------------------------------------------------
    @property
    def n_users(self) -> int:
        """Number of records (rows), N."""
        return int(self.by_user.shape[0])

    @property
    def n_movies(self) -> int:
        """Number of attributes (columns)."""
        return int(self.by_user.shape[1])

    @property
    def n_ratings(self) -> int:
        """Number of stored ratings."""
        return int(self.by_user.nnz)

    @property
    def has_dates(self) -> bool:
        """Whether each rating carries a date."""
        return self.dates_by_user is not None

    @property
    def support(self) -> np.ndarray:
        """|supp(i)|: number of records that rated movie ``i`` (length ``n_movies``)."""
        return self._support

    @property
    def activity(self) -> np.ndarray:
        """Number of ratings in each record (length ``n_users``)."""
        return np.diff(self.by_user.indptr).astype(np.int64)

    def nbytes(self) -> int:
        """Memory held by the arrays of both orders, in bytes."""
        total = 0
        for m in (self.by_user, self.by_movie):
            total += m.data.nbytes + m.indices.nbytes + m.indptr.nbytes
        for d in (self.dates_by_user, self.dates_by_movie):
            total += 0 if d is None else d.nbytes
        return total

    def record(self, user: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Row ``user`` as ``(movies, ratings, dates)`` (column indices, stars, days)."""
        if not 0 <= user < self.n_users:
            raise IndexError(f"user must be in [0, {self.n_users}), got {user}")
        lo, hi = self.by_user.indptr[user], self.by_user.indptr[user + 1]
        dates = None if self.dates_by_user is None else self.dates_by_user[lo:hi]
        return self.by_user.indices[lo:hi], self.by_user.data[lo:hi], dates

    # -- construction ------------------------------------------------------
    @classmethod
    def from_arrays(
        cls,
        users: np.ndarray,
        movies: np.ndarray,
        ratings: np.ndarray,
        days: np.ndarray | None,
        *,
        n_users: int,
        n_movies: int,
        user_ids: np.ndarray | None = None,
        movie_ids: np.ndarray | None = None,
        date_origin: np.datetime64 | None = None,
        sorted_by_user: bool = False,
    ) -> RatingMatrix:
        """Build from parallel arrays of 0-based user and movie indices, ratings and ``days`` (or ``None``).

        Whole ratings 0..255 are stored as uint8, others as float32 (a rating of 0 is allowed). ``sorted_by_user``
        skips the sort. ``ValueError`` on length mismatch, indices out of range, non-finite ratings or a pair rated
        twice.
        """
        users = np.asarray(users)
        movies = np.asarray(movies)
        ratings = np.asarray(ratings)
        n = users.shape[0]
        if movies.shape[0] != n or ratings.shape[0] != n or (days is not None and len(days) != n):
            raise ValueError("users, movies, ratings and days must have the same length")
        if n_users < 1 or n_movies < 1:
            raise ValueError(f"the matrix needs at least one user and one movie, got {n_users} x {n_movies}")
        if n:
            if users.min() < 0 or users.max() >= n_users:
                raise ValueError(f"user indices must be in [0, {n_users})")
            if movies.min() < 0 or movies.max() >= n_movies:
                raise ValueError(f"movie indices must be in [0, {n_movies})")
            if not np.all(np.isfinite(ratings.astype(np.float64, copy=False))):
                raise ValueError("ratings must be finite numbers")
        if not sorted_by_user:
            order = np.lexsort((movies, users))
            users, movies, ratings = users[order], movies[order], ratings[order]
            if days is not None:
                days = np.asarray(days)[order]
            if n > 1:
                dup = (users[1:] == users[:-1]) & (movies[1:] == movies[:-1])
                if dup.any():
                    k = int(np.argmax(dup))
                    raise ValueError(
                        f"user index {int(users[k])} rated movie index {int(movies[k])} twice; "
                        "a rating matrix holds one rating per (user, movie)"
                    )
        indptr = np.zeros(n_users + 1, dtype=np.int64)
        np.cumsum(np.bincount(users, minlength=n_users), out=indptr[1:])
        indices = movies.astype(np.int32, copy=False)
        data = _rating_array(ratings)
        if days is not None:
            days = np.asarray(days)
            day_dtype = _day_dtype(int(days.max()) if n else 0)
            if n and days.min() < np.iinfo(day_dtype).min:
                raise ValueError("dates before the origin do not fit the day encoding")
            days = days.astype(day_dtype, copy=False)
        return cls._from_csr(indptr, indices, data, days, n_users, n_movies, user_ids, movie_ids,
                             date_origin)

    @classmethod
    def _from_csr(cls, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
                  days: np.ndarray | None, n_users: int, n_movies: int,
                  user_ids: np.ndarray | None, movie_ids: np.ndarray | None,
                  date_origin: np.datetime64 | None) -> RatingMatrix:
        by_user = sp.csr_matrix((data, indices, indptr), shape=(n_users, n_movies), copy=False)
        nnz = int(indptr[-1])
        # Column order with the dates kept aligned: transpose a matrix whose data
        # are the (1-based) positions of the entries in row order.
        pos_dtype = np.int32 if nnz < np.iinfo(np.int32).max else np.int64
        pos = sp.csr_matrix((np.arange(1, nnz + 1, dtype=pos_dtype), indices, indptr),
                            shape=(n_users, n_movies), copy=False).tocsc()
        perm = pos.data
        perm -= 1
        by_movie = sp.csc_matrix((data[perm], pos.indices, pos.indptr), shape=(n_users, n_movies),
                                 copy=False)
        dates_by_movie = None if days is None else days[perm]
        del pos, perm
        return cls(
            by_user=by_user,
            by_movie=by_movie,
            dates_by_user=days,
            dates_by_movie=dates_by_movie,
            user_ids=np.arange(n_users) if user_ids is None else np.asarray(user_ids),
            movie_ids=np.arange(n_movies) if movie_ids is None else np.asarray(movie_ids),
            date_origin=date_origin if days is not None else None,
        )

    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        *,
        user: str = "user_id",
        movie: str = "movie_id",
        rating: str = "rating",
        date: str | None = "auto",
    ) -> RatingMatrix:
        """Build from a long table of ratings (MovieLens, Netflix Prize frames); ids are sorted unique values.

        ``date``: a datetime64 or Unix-seconds column; ``"auto"`` uses ``date`` or ``timestamp`` if present; ``None``
        ignores dates.

        >>> df = pd.DataFrame({"user_id": [7, 7, 9], "movie_id": [1, 2, 2], "rating": [5, 3, 4]})
        >>> RatingMatrix.from_frame(df, date=None).by_user.toarray()
        array([[5, 3],
               [0, 4]], dtype=uint8)
        """
        for col in (user, movie, rating):
            if col not in df.columns:
                raise ValueError(f"column {col!r} not in the frame; it has {list(df.columns)}")
        if date == "auto":
            date = next((c for c in ("date", "timestamp") if c in df.columns), None)
        elif date is not None and date not in df.columns:
            raise ValueError(f"date column {date!r} not in the frame; it has {list(df.columns)}")
        user_ids, u = np.unique(df[user].to_numpy(), return_inverse=True)
        movie_ids, m = np.unique(df[movie].to_numpy(), return_inverse=True)
        r = df[rating].to_numpy()
        if not np.issubdtype(r.dtype, np.number):
            raise ValueError(f"ratings in {rating!r} must be numbers, got dtype {r.dtype}")
        days = None
        origin = None
        if date is not None:
            col = df[date]
            if np.issubdtype(col.dtype, np.datetime64):
                d = col.to_numpy().astype("datetime64[D]")
            elif np.issubdtype(col.dtype, np.integer):
                d = col.to_numpy().astype("datetime64[s]").astype("datetime64[D]")
            else:
                raise ValueError(f"date column {date!r} must hold datetime64 values or Unix seconds")
            origin = d.min() if len(d) else _ORIGIN
            days = (d - origin).astype(np.int64)
        return cls.from_arrays(u, m, r, days, n_users=len(user_ids),
                               n_movies=len(movie_ids), user_ids=user_ids, movie_ids=movie_ids,
                               date_origin=origin)

    @classmethod
    def from_dense(cls, table: pd.DataFrame) -> RatingMatrix:
        """Build from a small dense table (rows records, columns movies, NaN not rated; no dates), as on the slides.

        >>> t = pd.DataFrame({"v1": [5, 3, None], "v2": [2, 1, 2]}, index=["r1", "r2", "r3"])
        >>> RatingMatrix.from_dense(t).support
        array([2, 3])
        """
        values = table.to_numpy(dtype=np.float64)
        users, movies = np.nonzero(~np.isnan(values))
        return cls.from_arrays(users, movies, values[users, movies], None, n_users=values.shape[0],
                               n_movies=values.shape[1], user_ids=np.asarray(table.index),
                               movie_ids=np.asarray(table.columns), sorted_by_user=True)

    def without_users(self, users: np.ndarray) -> RatingMatrix:
        """A copy with the given rows removed (e.g. to make targets non-members)."""
        keep = np.ones(self.n_users, dtype=bool)
        keep[np.asarray(users, dtype=np.int64)] = False
        sub = self.by_user[keep]
        d = None
        if self.dates_by_user is not None:
            # rows are contiguous in CSR: select the dates of the kept rows
            mask = np.repeat(keep, np.diff(self.by_user.indptr))
            d = self.dates_by_user[mask]
        return self._from_csr(sub.indptr.astype(np.int64), sub.indices, sub.data, d, int(keep.sum()),
                              self.n_movies, self.user_ids[keep], self.movie_ids, self.date_origin)


# --------------------------------------------------------------------------- the generator


def _lognormal_params(mean: float, median: float) -> tuple[float, float]:
    """(mu, sigma) of a log-normal with the given mean and median."""
    if not mean > median > 0:
        raise ValueError(f"need mean > median > 0, got mean={mean}, median={median}")
    return math.log(median), math.sqrt(2.0 * math.log(mean / median))


def _movie_popularity(seed: int | np.random.Generator, n_movies: int, sigma: float,
                      cap_share: float, n_users: int, n_ratings: float) -> np.ndarray:
    """Popularity weights pi (sum 1), log-normal, capped at ``cap_share * n_users`` raters."""
    rng = check_random_state(seed)
    w = rng.lognormal(0.0, sigma, size=n_movies)
    pi = w / w.sum()
    cap = cap_share * n_users / n_ratings
    for _ in range(50):  # cap and redistribute the excess over the uncapped movies
        over = pi > cap
        if not over.any():
            break
        excess = (pi[over] - cap).sum()
        pi[over] = cap
        free = ~over & (pi < cap)
        pi[free] += excess * pi[free] / pi[free].sum()
    return pi


def _bernoulli_rows(seed: int | np.random.Generator, pi: np.ndarray, k: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Distinct movies for heavy users by Poisson sampling, P(j) = min(1, c_u π_j), Σ_j = k_u; (row, movie)."""
    rng = check_random_state(seed)
    order = np.argsort(-pi)
    ps = pi[order]
    suffix = np.concatenate([np.cumsum(ps[::-1])[::-1], [0.0]])  # suffix[t] = sum_{j>=t} ps[j]
    # With t movies saturated (c ps_j >= 1 for j < t) the expected count is
    # t + c * suffix[t]; movie t saturates at c = 1/ps_t, where it equals F_t.
    big_f = np.arange(len(ps)) + suffix[:-1] / ps
    tt = np.searchsorted(big_f, k, side="right")  # F_{t-1} <= k < F_t
    tt = np.minimum(tt, len(ps) - 1)
    c = (k - tt) / suffix[tt]
    rows, movies = [], []
    for r0 in range(0, len(k), 256):  # blocks of users x all movies
        cb = c[r0:r0 + 256, None]
        p = np.minimum(1.0, cb * ps[None, :])
        hit = rng.random(p.shape) < p
        rr, jj = np.nonzero(hit)
        rows.append(rr + r0)
        movies.append(order[jj])
    return np.concatenate(rows), np.concatenate(movies)


def _distinct_draws(seed: int | np.random.Generator, cdf: np.ndarray, k: np.ndarray, n_movies: int,
                    rounds: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """Distinct movies for light users: draw ~pi with replacement, drop repeats, top up."""
    rng = check_random_state(seed)
    need = k.astype(np.int64).copy()
    keys = np.empty(0, dtype=np.int64)
    for _ in range(rounds):
        total = int(need.sum())
        if total == 0:
            break
        rows = np.repeat(np.arange(len(k), dtype=np.int64), need)
        mv = np.searchsorted(cdf, rng.random(total), side="right")
        np.minimum(mv, n_movies - 1, out=mv)
        new = np.unique(rows * n_movies + mv)
        if keys.size:  # merge two sorted runs (timsort is linear on them), drop repeats
            both = np.sort(np.concatenate([keys, new]), kind="stable")
            keep = np.ones(both.size, dtype=bool)
            keep[1:] = both[1:] != both[:-1]
            keys = both[keep]
        else:
            keys = new
        have = np.bincount(keys // n_movies, minlength=len(k))
        need = np.maximum(k - have, 0)
    return keys // n_movies, keys % n_movies


def generate_netflix_like(
    n_users: int = NETFLIX_SHAPE["n_users"],
    n_movies: int = NETFLIX_SHAPE["n_movies"],
    *,
    mean_ratings_per_user: float = NETFLIX_SHAPE["n_ratings"] / NETFLIX_SHAPE["n_users"],
    median_ratings_per_user: float = 96.0,
    movie_popularity_sigma: float = 2.5,
    max_movie_share: float = 0.485,
    seed: int | np.random.Generator = 0,
    block_users: int = 20_000,
    heavy_threshold: int = 1_000,
    progress: Callable[[str], None] | None = None,
) -> RatingMatrix:
    """Synthetic ratings with the Netflix Prize's shape (default 480,189 x 17,770, about 100 M ratings).

    User u rates k_u ~ LogNormal (``mean_``/``median_ratings_per_user``, in [1, n_movies // 2]) distinct movies drawn
    ∝ π_j ~ LogNormal(0, ``movie_popularity_sigma``), capped at ``max_movie_share`` of the users (Poisson sampling
    above ``heavy_threshold``); stars clip(round(q_j + b_u + e), 1, 5), q_j ~ N(3.65, 0.45), b_u ~ N(0, 0.45), e ~
    N(0, 0.95); sign-up s_u with density ∝ exp(t / 700 d) over 1999-11-11 .. 2005-12-31, day s_u + floor(L_u V²), L_u
    ~ Exp(300 d), V ~ U(0, 1). Same seed, same data; ``block_users`` bounds the memory; ``progress`` gets a line per
    block. ``date_origin`` is 1999-11-11.

    >>> small = generate_netflix_like(2_000, 500, seed=1)
    >>> small.n_users, small.n_movies
    (2000, 500)
    """
    for name, v, lo in (("n_users", n_users, 2), ("n_movies", n_movies, 2),
                        ("block_users", block_users, 1), ("heavy_threshold", heavy_threshold, 1)):
        check_int(name, int(v) if isinstance(v, np.integer) else v, low=lo)
    check_number("max_movie_share", max_movie_share, low=0, high=1, low_inclusive=False)
    check_number("movie_popularity_sigma", movie_popularity_sigma, low=0, low_inclusive=False)
    mu, sigma = _lognormal_params(mean_ratings_per_user, median_ratings_per_user)
    rng = check_random_state(seed)
    t0 = time.perf_counter()

    k = np.rint(rng.lognormal(mu, sigma, size=n_users)).astype(np.int64)
    np.clip(k, 1, max(1, n_movies // 2), out=k)
    pi = _movie_popularity(rng, n_movies, movie_popularity_sigma, max_movie_share, n_users,
                           float(k.sum()))
    cdf = np.cumsum(pi)
    cdf /= cdf[-1]
    quality = rng.normal(3.65, 0.45, size=n_movies).astype(np.float32)
    bias = rng.normal(0.0, 0.45, size=n_users).astype(np.float32)
    tau, mean_span = 700.0, 300.0
    u01 = rng.random(n_users)
    start = np.floor(tau * np.log1p(u01 * np.expm1((_N_DAYS - 1) / tau))).astype(np.int64)
    span = np.minimum(rng.exponential(mean_span, size=n_users), _N_DAYS - 1 - start)

    counts = np.zeros(n_users, dtype=np.int64)
    idx_parts: list[np.ndarray] = []
    star_parts: list[np.ndarray] = []
    day_parts: list[np.ndarray] = []
    for b0 in range(0, n_users, block_users):
        b1 = min(n_users, b0 + block_users)
        kb = k[b0:b1]
        heavy = kb > heavy_threshold
        r_l, m_l = _distinct_draws(rng, cdf, np.where(heavy, 0, kb), n_movies)
        if heavy.any():
            hidx = np.flatnonzero(heavy)
            r_h, m_h = _bernoulli_rows(rng, pi, kb[hidx].astype(float))
            keys = np.sort(np.concatenate([r_l * n_movies + m_l, hidx[r_h] * n_movies + m_h]))
            rows, mv = keys // n_movies, keys % n_movies
            del keys
        else:
            rows, mv = r_l, m_l
        counts[b0:b1] = np.bincount(rows, minlength=b1 - b0)
        gu = rows + b0
        noise = rng.normal(0.0, 0.95, size=len(rows)).astype(np.float32)
        stars = np.clip(np.rint(quality[mv] + bias[gu] + noise), 1, 5).astype(np.uint8)
        v = rng.random(len(rows))
        days = (start[gu] + np.floor(span[gu] * v * v)).astype(np.int16)
        idx_parts.append(mv.astype(np.int16 if n_movies <= 32_767 else np.int32))
        star_parts.append(stars)
        day_parts.append(days)
        if progress is not None:
            progress(f"users {b1:,}/{n_users:,}: {int(counts[:b1].sum()):,} ratings "
                     f"({time.perf_counter() - t0:.0f} s)")
    indptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    indices = np.concatenate(idx_parts).astype(np.int32)
    del idx_parts
    data = np.concatenate(star_parts)
    del star_parts
    days_all = np.concatenate(day_parts)
    del day_parts
    return RatingMatrix._from_csr(indptr, indices, data, days_all, n_users, n_movies, None, None,
                                  _ORIGIN)


# --------------------------------------------------------------------------- summaries


def shape_statistics(data: RatingMatrix) -> pd.Series:
    """The shape of a rating matrix, comparable with Netflix's published figures (a Series).

    Counts and density, ratings per user and raters per movie (mean, median, max), the top 1 % of movies' share, mean
    stars, first and last date and span, memory in MB.
    """
    act = data.activity
    sup = data.support
    top = np.sort(sup)[::-1][: max(1, data.n_movies // 100)]
    stats: dict[str, Any] = {
        "n_users": data.n_users,
        "n_movies": data.n_movies,
        "n_ratings": data.n_ratings,
        "density": data.n_ratings / (data.n_users * data.n_movies),
        "ratings_per_user_mean": float(act.mean()),
        "ratings_per_user_median": float(np.median(act)),
        "ratings_per_user_max": int(act.max()),
        "raters_per_movie_mean": float(sup.mean()),
        "raters_per_movie_median": float(np.median(sup)),
        "raters_per_movie_max": int(sup.max()),
        "top1pct_movies_share": float(top.sum() / max(1, sup.sum())),
        "mean_stars": float(data.by_user.data.mean(dtype=np.float64)) if data.n_ratings else math.nan,
    }
    if data.has_dates and data.n_ratings:
        d = data.dates_by_user
        first = data.date_origin + np.timedelta64(int(d.min()), "D")
        last = data.date_origin + np.timedelta64(int(d.max()), "D")
        stats.update(first_date=str(first), last_date=str(last),
                     date_span_years=float((last - first).astype(int) / 365.25))
    stats["memory_mb"] = data.nbytes() / 2**20
    return pd.Series(stats)


def shape_comparison(synth: RatingMatrix) -> pd.DataFrame:
    """A rating matrix's :func:`shape_statistics` beside the Netflix Prize's published figures."""
    published = pd.Series({k: NETFLIX_SHAPE[k] for k in ("n_users", "n_movies", "n_ratings", "first_date",
                                                         "last_date")})
    published["ratings_per_user_mean"] = NETFLIX_SHAPE["n_ratings"] / NETFLIX_SHAPE["n_users"]
    published["raters_per_movie_mean"] = NETFLIX_SHAPE["n_ratings"] / NETFLIX_SHAPE["n_movies"]
    syn_shape = shape_statistics(synth)
    return pd.DataFrame({"synthetic": syn_shape,
                         "Netflix Prize (published)": published.reindex(syn_shape.index)})

"""Benchmark of the Netflix chapter: Scoreboard-RH scoring at Netflix scale.

Run as ``.venv/bin/python tests/benchmarks/bench_netflix.py`` (not collected by
pytest; nothing here asserts a time). It prints, measured in one run:

1. the time to generate the full-size synthetic Netflix data (480,189 users x
   17,770 movies, about 100 M ratings), the memory its arrays hold and the
   peak resident memory of the process;
2. for a few auxiliary records (8 known movies, 2 of them wrong, dates within
   14 days), the time to score one aux against every record with
   :func:`anonlab.attacks.netflix.scores` (and the full Scoreboard-RH step with
   the eccentricity test), against a straightforward reference that loops over
   the records (for each record: binary-search the aux movies in its row, add
   ``w(i) Sim`` over the hits), cross-checked for equal scores. The ratio is
   printed.

Options: ``--users`` (default the full 480,189), ``--auxes`` (default 3),
``--ref-records`` (records the reference loops over; default all; with fewer,
its time is extrapolated linearly to all records and printed as such).
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from anonlab.attacks import netflix as nf
from anonlab.data.netflix_synthetic import NETFLIX_SHAPE, RatingMatrix, generate_netflix_like
from anonlab.validation import check_random_state


def peak_rss_gb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def reference_scores(data: RatingMatrix, aux: nf.AuxRecord, n_records: int) -> np.ndarray:
    """Score(aux, r) with a plain loop over records, Netflix exponential Sim.

    For each record (a row of the CSR matrix): binary-search the aux movies in
    its sorted movie list, then add ``w(i) Sim(aux_i, r_i)`` over the hits.
    """
    sim = nf.Similarity()
    order = np.argsort(aux.movies)
    a_movies = aux.movies[order]
    a_ratings = aux.ratings[order]
    a_days = None if aux.days is None else aux.days[order]
    w = nf.attribute_weights(data.support[a_movies])
    indptr, indices, ratings = data.by_user.indptr, data.by_user.indices, data.by_user.data
    dates = data.dates_by_user
    out = np.zeros(n_records)
    for u in range(n_records):
        lo, hi = indptr[u], indptr[u + 1]
        row = indices[lo:hi]
        idx = np.minimum(np.searchsorted(row, a_movies), hi - lo - 1)
        hit = row[idx] == a_movies
        if not hit.any():
            continue
        p = lo + idx[hit]
        s = np.exp(-np.abs(a_ratings[hit] - ratings[p]) / sim.rating_scale)
        if a_days is not None:
            s += np.exp(-np.abs(a_days[hit] - dates[p]) / sim.date_scale)
        out[u] = float(np.dot(w[hit], s))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=NETFLIX_SHAPE["n_users"])
    ap.add_argument("--auxes", type=int, default=3)
    ap.add_argument("--ref-records", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    print(f"== 1. synthetic Netflix data: {args.users:,} users x {NETFLIX_SHAPE['n_movies']:,} movies")
    t0 = time.perf_counter()
    data = generate_netflix_like(args.users, seed=args.seed)
    t_gen = time.perf_counter() - t0
    print(f"generated {data.n_ratings:,} ratings in {t_gen:.1f} s")
    print(f"arrays held (CSR + CSC + dates): {data.nbytes() / 2**30:.2f} GB; "
          f"peak resident memory of the process: {peak_rss_gb():.2f} GB")

    n_ref = data.n_users if args.ref_records is None else min(args.ref_records, data.n_users)
    print(f"\n== 2. score one aux (m = 8, 2 wrong, dates +-14 d) against all {data.n_users:,} records")
    rng = check_random_state(args.seed)
    targets = rng.choice(nf.eligible_targets(data, 8), args.auxes, replace=False)
    ratios = []
    for t in targets:
        aux = nf.make_aux(data, int(t), 8, date_error=14, wrong_fraction=0.25, seed=int(t))
        n_aux_ratings = int(data.support[aux.movies].sum())
        reps = 5
        t0 = time.perf_counter()
        for _ in range(reps):
            s = nf.scores(data, aux)
        t_vec = (time.perf_counter() - t0) / reps
        t0 = time.perf_counter()
        for _ in range(reps):
            match = nf.scoreboard_rh(data, aux, phi=1.5)
        t_rh = (time.perf_counter() - t0) / reps
        t0 = time.perf_counter()
        ref = reference_scores(data, aux, n_ref)
        t_ref = time.perf_counter() - t0
        assert np.allclose(ref, s[:n_ref], rtol=1e-9, atol=1e-12), "reference and vectorised differ"
        t_ref_all = t_ref * data.n_users / n_ref
        ratio = t_ref_all / t_vec
        ratios.append(ratio)
        extra = "" if n_ref == data.n_users else f" (measured on {n_ref:,} records, extrapolated)"
        print(f"target {int(t):>7}: {n_aux_ratings:>9,} ratings of the aux movies | vectorised "
              f"{t_vec * 1e3:7.1f} ms, with eccentricity test {t_rh * 1e3:7.1f} ms | "
              f"loop over records {t_ref_all:7.2f} s{extra} | ratio {ratio:6.0f}x | "
              f"scores equal: yes | matched {'target' if match.record == t else match.record}")
    print(f"\nspeed-up of the vectorised scoring over the loop: min {min(ratios):.0f}x, "
          f"median {float(np.median(ratios)):.0f}x")
    print(f"peak resident memory at the end: {peak_rss_gb():.2f} GB")


if __name__ == "__main__":
    main()

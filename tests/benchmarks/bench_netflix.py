"""Benchmark of the Netflix chapter: Scoreboard-RH scoring at Netflix scale.

Run as ``.venv/bin/python tests/benchmarks/bench_netflix.py`` (not collected by
pytest; nothing here asserts a time). It prints, measured in one run, and
writes to ``_build/benchmarks/netflix.json``:

1. the time to generate the full-size synthetic Netflix data (480,189 users x
   17,770 movies, about 100 M ratings), the memory its arrays hold and the
   peak resident memory of the process;
2. for a few auxiliary records (8 known movies, 2 of them wrong, dates within
   14 days), the time to score one aux against every record with
   :func:`anonlab.attacks.netflix.scores` (and the full Scoreboard-RH step with
   the eccentricity test), against the reference a competent NumPy user
   writes: :func:`numpy_scores`, a loop over the aux movies' columns of the
   column-ordered matrix (12 lines). The scores must be identical (bit for
   bit); the ratio is reference time / library time, so a ratio below 1 means
   the library is slower than the plain NumPy version.

Options: ``--users`` (default the full 480,189), ``--auxes`` (default 3),
``--reps`` (timing repetitions per aux, interleaved, best taken; default 9), ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import time
from pathlib import Path

import numpy as np

from anonlab.attacks import netflix as nf
from anonlab.data.netflix_synthetic import NETFLIX_SHAPE, RatingMatrix, generate_netflix_like
from anonlab.validation import check_random_state


def peak_rss_gb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def numpy_scores(data: RatingMatrix, aux: nf.AuxRecord, rho0: float = 1.5, d0: float = 30.0) -> np.ndarray:
    """Score(aux, r) for every record, as a NumPy user writes it: one column of the data per aux movie.

    ``w(i) = 1 / ln |supp(i)|`` (natural convention), Netflix Sim
    ``exp(-|Δrating| / rho0) + exp(-|Δdays| / d0)``, 0 for a movie a record did not rate.
    """
    w = nf.attribute_weights(data.support[aux.movies])
    indptr, rows, stars, days = (data.by_movie.indptr, data.by_movie.indices, data.by_movie.data,
                                 data.dates_by_movie)
    out = np.zeros(data.n_users)
    for j, i in enumerate(aux.movies):
        lo, hi = indptr[i], indptr[i + 1]
        sim = np.exp(-np.abs(aux.ratings[j] - stars[lo:hi]) / rho0)
        if aux.days is not None:
            sim += np.exp(-np.abs(aux.days[j] - days[lo:hi]) / d0)
        out[rows[lo:hi]] += w[j] * sim
    return out


def best_times(fns: dict, reps: int) -> dict:
    """Fastest of ``reps`` calls of each function, in seconds, the calls interleaved
    (so that load from other processes falls on all of them alike)."""
    times: dict = {k: [] for k in fns}
    for _ in range(reps):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t0)
    return {k: min(v) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=NETFLIX_SHAPE["n_users"])
    ap.add_argument("--auxes", type=int, default=3)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(Path(os.environ.get("ANONLAB_ROOT", ".")) / "_build" / "benchmarks"
                                          / "netflix.json"))
    args = ap.parse_args()
    load_start = os.getloadavg()

    print(f"== 1. synthetic Netflix data: {args.users:,} users x {NETFLIX_SHAPE['n_movies']:,} movies")
    t0 = time.perf_counter()
    data = generate_netflix_like(args.users, seed=args.seed)
    t_gen = time.perf_counter() - t0
    print(f"generated {data.n_ratings:,} ratings in {t_gen:.1f} s")
    print(f"arrays held (CSR + CSC + dates): {data.nbytes() / 2**30:.2f} GB; "
          f"peak resident memory of the process: {peak_rss_gb():.2f} GB")

    print(f"\n== 2. score one aux (m = 8, 2 wrong, dates +-14 d) against all {data.n_users:,} records")
    rng = check_random_state(args.seed)
    targets = rng.choice(nf.eligible_targets(data, 8), args.auxes, replace=False)
    rows = []
    for t in targets:
        aux = nf.make_aux(data, int(t), 8, date_error=14, wrong_fraction=0.25, seed=int(t))
        lib = nf.scores(data, aux)
        ref = numpy_scores(data, aux)
        identical = bool(np.array_equal(lib, ref))
        assert identical or np.allclose(lib, ref, rtol=1e-12, atol=0), "library and NumPy reference differ"
        best = best_times({"lib": lambda: nf.scores(data, aux), "ref": lambda: numpy_scores(data, aux),
                           "rh": lambda: nf.scoreboard_rh(data, aux, phi=1.5)}, args.reps)
        t_lib, t_ref, t_rh = best["lib"], best["ref"], best["rh"]
        match = nf.scoreboard_rh(data, aux, phi=1.5)
        n_aux_ratings = int(data.support[aux.movies].sum())
        rows.append({"target": int(t), "aux_ratings": n_aux_ratings, "library_ms": t_lib * 1e3,
                     "reference_ms": t_ref * 1e3, "scoreboard_rh_ms": t_rh * 1e3,
                     "ratio": t_ref / t_lib, "identical": identical})
        print(f"target {int(t):>7}: {n_aux_ratings:>9,} ratings of the aux movies | library "
              f"{t_lib * 1e3:7.1f} ms, with eccentricity test {t_rh * 1e3:7.1f} ms | NumPy reference "
              f"{t_ref * 1e3:7.1f} ms | ratio {t_ref / t_lib:5.2f} | identical: {identical} | matched "
              f"{'target' if match.record == t else match.record}")
    ratios = [r["ratio"] for r in rows]
    print(f"\nreference time / library time: min {min(ratios):.2f}, median {float(np.median(ratios)):.2f} "
          "(below 1: the library is slower than the plain NumPy version)")
    print(f"peak resident memory at the end: {peak_rss_gb():.2f} GB; load average {os.getloadavg()[0]:.1f}")
    report = {
        "benchmark": "netflix",
        "figure": "scores(data, aux): Score(aux, r) of one aux (m = 8, 2 wrong, dates +-14 d) against every record",
        "reference": "numpy_scores: a loop over the aux movies' columns of the column-ordered matrix (plain NumPy)",
        "users": data.n_users, "ratings": data.n_ratings, "generate_seconds": t_gen,
        "arrays_gb": data.nbytes() / 2**30, "peak_rss_gb": peak_rss_gb(),
        "per_aux": rows, "ratio_min": min(ratios), "ratio_median": float(np.median(ratios)),
        "load_average_start": list(load_start), "load_average_end": list(os.getloadavg()),
        "cpu_count": os.cpu_count(), "python": platform.python_version(), "numpy": np.__version__,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    print(f"figures written to {out}")


if __name__ == "__main__":
    main()

"""Benchmark of the census reconstruction (chapter 4): blocks per second and the US projection.

Run as ``.venv/bin/python tests/benchmarks/bench_census.py [--blocks 10000] [--workers 2]``
(not collected by pytest; nothing here asserts a time). It prints, measured in one run:

1. the vectorised tabulation (one sparse product for all blocks) against
   what a SciPy user writes (type counts by ``np.bincount``, then the
   product with the transposed sparse incidence matrix, never densified),
   cross-checked for identical tables;
2. the reconstruction (one HiGHS integer program per block plus the
   uniqueness solve) of ``--blocks`` blocks of the chapter's default
   population on ``--workers`` local processes, exact and swapped tables,
   with wall time, CPU time per block and blocks per CPU second **by block
   size**;
3. DP tables (L1 objective, no uniqueness solve) on a sample of blocks;
4. the projection to the about 6.2 million populated 2010 blocks on N
   workers from the measured blocks per CPU second;
5. solving each distinct table once (the library) against one ``milp`` call
   per block (the straightforward loop), in-process, on a population of
   small blocks, cross-checked for identical reconstructions.

The figures go to ``_build/benchmarks/census.json`` (figure, reference,
ratio = reference seconds / library seconds, load average).

Wall times depend on what else runs on the machine; CPU seconds per block
are the stable figure (the projection uses them).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import pandas as pd

from anonlab import paths
from anonlab.attacks import reconstruction as rc
from anonlab.attacks.reconstruction import US_POPULATED_BLOCKS
from anonlab.data.census_blocks import N_TYPES, calibrate_alpha, generate_blocks
from anonlab.mechanisms.census import publish, table_spec, tabulate

SIZE_BINS = [0, 5, 20, 50, 100, 200, 5000]


def tabulate_reference(counts: np.ndarray, spec) -> np.ndarray:
    """What a SciPy user writes: the type counts times the transposed sparse incidence matrix, kept sparse.

    (Densifying the matrix first, the former reference, is what nobody who
    has a sparse matrix in hand would write.)
    """
    return np.asarray(counts @ spec.matrix.T).astype(np.int64)


def figure(name: str, library: float, reference: float, what: str, **extra) -> dict:
    """One benchmark figure: seconds of the library and of the reference, and their ratio."""
    return {"figure": name, "library_s": library, "reference": what, "reference_s": reference,
            "ratio": reference / library, "load_average": list(os.getloadavg()), **extra}


def by_size(sizes: np.ndarray, seconds: np.ndarray) -> pd.DataFrame:
    cut = pd.cut(sizes, SIZE_BINS, right=True)
    df = pd.DataFrame({"size": cut, "seconds": seconds})
    g = df.groupby("size", observed=True)["seconds"]
    return pd.DataFrame({"blocks": g.size(), "CPU ms per block": 1000 * g.mean(),
                         "blocks per CPU second": 1 / g.mean()})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dp-blocks", type=int, default=500)
    ap.add_argument("--small-blocks", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"cores seen: {os.cpu_count()}, workers: {args.workers}")

    alpha = calibrate_alpha(0.75, n_blocks=2000, seed=args.seed + 1)
    t0 = time.perf_counter()
    pop = generate_blocks(args.blocks, alpha=alpha, seed=args.seed)
    print(f"generated {args.blocks:,} blocks, {len(pop.people):,} people in {time.perf_counter() - t0:.1f} s "
          f"(alpha {alpha:.3f})")

    spec = table_spec("sf1")
    people = pop.people
    counts = np.bincount(people["block"].to_numpy() * N_TYPES + people["type"].to_numpy(),
                         minlength=args.blocks * N_TYPES).reshape(args.blocks, N_TYPES)
    t_ref = t_fast = float("inf")
    for _ in range(5):  # best of five, alternating, so a burst of load hits both
        t0 = time.perf_counter()
        ref = tabulate_reference(counts, spec)
        t_ref = min(t_ref, time.perf_counter() - t0)
        t0 = time.perf_counter()
        fast = tabulate(counts, spec)
        t_fast = min(t_fast, time.perf_counter() - t0)
    assert (ref == fast).all(), "tabulation differs from the reference"
    figures = [figure("tabulate all blocks", t_fast, t_ref, "counts @ sparse matrix.T (SciPy, not densified)",
                      blocks=args.blocks)]
    print(f"\n1. tabulation of {args.blocks:,} blocks: SciPy sparse product {t_ref:.4f} s, library {t_fast:.4f} s "
          f"(ratio {t_ref / t_fast:.2f}), identical")

    rows = []
    for mech, kw in [("exact", {}), ("swapping", {"swap_rate": 0.05})]:
        pub = publish(pop, mech, seed=args.seed + 1, **kw)
        rec = rc.reconstruct(pub, check_unique=True, n_workers=args.workers)
        print(f"\n2. {mech}: {args.blocks:,} blocks in {rec.wall_seconds:.1f} s wall on {rec.workers} "
              f"({args.blocks / rec.wall_seconds:.0f} blocks/s wall); CPU {rec.seconds.sum():.1f} s "
              f"({rec.throughput():.0f} blocks per CPU second); unique {np.nanmean(rec.unique):.3f}")
        print(by_size(pop.block_sizes, rec.seconds).round(2).to_string())
        rows.append((mech, rec.throughput()))

    sub = generate_blocks(args.dp_blocks, alpha=alpha, seed=args.seed)
    pub = publish(sub, "dp", epsilon=4.0, seed=args.seed + 2)
    rec = rc.reconstruct(pub, check_unique=False, n_workers=args.workers)
    print(f"\n3. DP ε=4 (L1 objective, no uniqueness solve): {args.dp_blocks:,} blocks in {rec.wall_seconds:.1f} s "
          f"wall; {rec.throughput():.0f} blocks per CPU second")
    print(by_size(sub.block_sizes, rec.seconds).round(2).to_string())
    rows.append(("dp ε=4", rec.throughput()))

    print(f"\n4. projection to {US_POPULATED_BLOCKS:,} blocks (hours; this population's block-size mix):")
    proj = pd.DataFrame({f"{n} workers": {m: US_POPULATED_BLOCKS / (r * n) / 3600 for m, r in rows}
                         for n in (2, 16, 128, 1024)})
    print(proj.round(2).to_string())

    small = generate_blocks(args.small_blocks, mean_block_size=3, size_shape=0.5, alpha=alpha, seed=args.seed)
    pub = publish(small, "exact")
    t0 = time.process_time()
    one_by_one = rc._solve_chunk(pub.tables, pub.spec.matrix, True, pub.spec.slices["P1"].start, True, 10.0)
    t_loop = time.process_time() - t0
    t0 = time.process_time()
    rec = rc.reconstruct(pub, check_unique=True, n_workers=1)
    t_lib = time.process_time() - t0
    assert (rec.counts == one_by_one[0]).all(), "solve-once differs from the per-block loop"
    distinct = rc._distinct_rows(pub.tables)[0].shape[0]
    figures.append(figure("reconstruct small blocks (CPU s)", t_lib, t_loop, "one milp call per block",
                          blocks=args.small_blocks, distinct_tables=distinct))
    print(f"\n5. {args.small_blocks:,} small blocks ({distinct:,} distinct tables): one milp per block "
          f"{t_loop:.1f} CPU s, each distinct table once {t_lib:.1f} CPU s (ratio {t_loop / t_lib:.2f}), identical")
    out = paths.project_root() / "_build" / "benchmarks" / "census.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"benchmark": "census", "cores": os.cpu_count(), "load_average": list(os.getloadavg()),
                               "figures": figures, "blocks_per_cpu_second": dict(rows)}, indent=1))
    print(f"written {out}")


if __name__ == "__main__":
    main()

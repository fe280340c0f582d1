"""Benchmark of the census reconstruction (chapter 4): blocks per second and the US projection.

Run as ``.venv/bin/python tests/benchmarks/bench_census.py [--blocks 10000] [--workers 2]``
(not collected by pytest; nothing here asserts a time). It prints, measured in one run:

1. the vectorised tabulation (one sparse product for all blocks) against a
   per-block loop over people (the plain reference), cross-checked for
   identical tables;
2. the reconstruction (one HiGHS integer program per block plus the
   uniqueness solve) of ``--blocks`` blocks of the chapter's default
   population on ``--workers`` local processes, exact and swapped tables,
   with wall time, CPU time per block and blocks per CPU second **by block
   size**;
3. DP tables (L1 objective, no uniqueness solve) on a sample of blocks;
4. the projection to the about 6.2 million populated 2010 blocks on N
   workers from the measured blocks per CPU second.

Wall times depend on what else runs on the machine; CPU seconds per block
are the stable figure (the projection uses them).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

from anonlab.attacks import reconstruction as rc
from anonlab.chapters.ch04_census_reconstruction import US_POPULATED_BLOCKS
from anonlab.data.census_blocks import N_TYPES, calibrate_alpha, generate_blocks
from anonlab.mechanisms.census import publish, table_spec, tabulate

SIZE_BINS = [0, 5, 20, 50, 100, 200, 5000]


def tabulate_reference(people: pd.DataFrame, n_blocks: int, spec) -> np.ndarray:
    """Per block, per person, add one to each of the person's cells (plain loops)."""
    cols = [spec.matrix[:, t].nonzero()[0] for t in range(N_TYPES)]
    out = np.zeros((n_blocks, spec.n_cells), dtype=np.int64)
    for b, t in zip(people["block"].tolist(), people["type"].tolist()):
        out[b, cols[t]] += 1
    return out


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
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"cores seen: {os.cpu_count()}, workers: {args.workers}")

    alpha = calibrate_alpha(0.75, n_blocks=2000, seed=args.seed + 1)
    t0 = time.perf_counter()
    pop = generate_blocks(args.blocks, alpha=alpha, seed=args.seed)
    print(f"generated {args.blocks:,} blocks, {len(pop.people):,} people in {time.perf_counter() - t0:.1f} s "
          f"(alpha {alpha:.3f})")

    spec = table_spec("sf1")
    sample = pop.people[pop.people["block"] < 1000]
    t0 = time.perf_counter()
    ref = tabulate_reference(sample, 1000, spec)
    t_ref = time.perf_counter() - t0
    t0 = time.perf_counter()
    counts = np.bincount(sample["block"].to_numpy() * N_TYPES + sample["type"].to_numpy(),
                         minlength=1000 * N_TYPES).reshape(1000, N_TYPES)
    fast = tabulate(counts, spec)
    t_fast = time.perf_counter() - t0
    assert (ref == fast).all(), "tabulation differs from the reference"
    print(f"\n1. tabulation of 1,000 blocks: loop {t_ref:.3f} s, sparse product {t_fast:.4f} s "
          f"({t_ref / t_fast:.0f}x), identical")

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


if __name__ == "__main__":
    main()

"""Scale benchmark of :func:`anonlab.audit.audit`: 50,000 members, a 50,000-row release, 15 columns.

Run as ``.venv/bin/python tests/benchmarks/bench_audit_scale.py`` (not collected by pytest; nothing here asserts
a time). Issue 39 asks for such an audit in at most 2 minutes on 2 cores. It prints, measured in one run, and
writes to ``_build/benchmarks/audit_scale.json``:

* the inputs: a population of ``3 × --rows`` people drawn from the named stream ``bench.audit_scale`` — 5
  numeric columns (ages, incomes, hours; some depend on the categories) and 10 text columns of 2 to 40 values,
  the secret ``grade`` (5 values) depending on three of them — split into members and as many non-members;
  the release is the members with each cell, independently with probability ``--resample``, replaced by the
  same column's value of another member (a crude synthesizer that keeps some rows close to their member);
* **time**: the wall seconds of the whole audit and of each of its steps (the times between its progress
  lines), ``--targets`` targets, one secret, the attacker knowing every other column;
* **memory**: :func:`anonlab.audit.estimate_memory` of the inputs beside the peak resident memory of this
  process while the audit ran (:class:`anonbook.memory.PeakSampler`), less what it held before;
* with ``--profile``, the 25 functions of the audit with the most cumulative time (cProfile).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import pandas as pd

from anonlab import paths
from anonlab.audit import audit, estimate_memory
from anonlab.streams import stream
from anonbook.memory import PeakSampler

#: Values per text column (10 columns).
CARDINALITIES = (2, 3, 5, 7, 9, 12, 16, 20, 30, 40)


def population(n: int, seed: int) -> pd.DataFrame:
    """``n`` people with 15 columns: 5 numeric, 10 text (``c0``..``c9``; ``c4`` is the secret ``grade``)."""
    rng = stream(seed, "bench.audit_scale")
    cats = {f"c{j}": rng.integers(0, k, n) for j, k in enumerate(CARDINALITIES)}
    age = rng.integers(18, 90, n)
    df = pd.DataFrame({
        "age": age,
        "income": np.round(rng.lognormal(10 + 0.1 * cats["c1"], 0.5, n), 2),
        "hours": np.clip(rng.normal(40 + 2 * cats["c2"], 8, n).round(), 1, 99),
        "children": rng.poisson(1 + (age > 30), n),
        "score": np.round(rng.normal(0, 1, n) + 0.05 * cats["c7"], 3),
    })
    for j, k in enumerate(CARDINALITIES):
        if j != 4:
            df[f"c{j}"] = np.char.add(f"v{j}_", cats[f"c{j}"].astype(str))
    grade = (cats["c0"] + cats["c1"] + (age // 20) + rng.integers(0, 2, n)) % 5  # depends on c0, c1 and age
    df["grade"] = np.char.add("g", grade.astype(str))
    return df


def resampled(members: pd.DataFrame, share: float, seed: int) -> pd.DataFrame:
    """The members with each cell replaced, with probability ``share``, by the same column of a random member."""
    rng = stream(seed, "bench.audit_scale.release")
    out = members.reset_index(drop=True).copy()
    for c in out.columns:
        swap = rng.random(len(out)) < share
        out.loc[swap, c] = out[c].to_numpy()[rng.integers(0, len(out), int(swap.sum()))]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=50_000, help="members, release rows and non-members (50,000)")
    ap.add_argument("--targets", type=int, default=1000, help="targets of the audit (default 1000)")
    ap.add_argument("--resample", type=float, default=0.3, help="share of the release's cells resampled (0.3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", action="store_true", help="print where the time goes (cProfile)")
    args = ap.parse_args()

    people = population(3 * args.rows, args.seed)
    members, non_members = people.iloc[:args.rows], people.iloc[args.rows:2 * args.rows].reset_index(drop=True)
    release = resampled(members, args.resample, args.seed)
    estimate = estimate_memory(members, release, non_members, args.targets)

    steps: list[tuple[float, str]] = []
    t0 = time.perf_counter()

    def progress(line: str) -> None:
        steps.append((time.perf_counter() - t0, line))

    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    with PeakSampler() as sampler:
        import psutil

        before = psutil.Process().memory_info().rss
        t0 = time.perf_counter()
        if profiler:
            profiler.enable()
        res = audit(members, release, non_members, ["grade"], n_targets=args.targets, seed=args.seed,
                    progress=progress)
        if profiler:
            profiler.disable()
        wall = time.perf_counter() - t0
    steps.insert(0, (0.0, "before the first step (checks, column kinds, targets)"))
    marks = [*steps, (wall, "end")]
    figures = {
        "inputs": {"members": len(members), "release": len(release), "non_members": len(non_members),
                   "columns": members.shape[1], "targets": res.inputs["n_targets"], "secret": "grade",
                   "resample": args.resample},
        "audit_seconds": wall,
        "step_seconds": {line: round(marks[i + 1][0] - t, 2) for i, (t, line) in enumerate(steps)},
        "estimated_memory_mb": estimate / 2**20,
        "measured_peak_above_start_mb": (sampler.peak - before) / 2**20,
        "measured_peak_mb": sampler.peak / 2**20,
        "attacks": res.table[["attack", "precision", "coverage", "baseline_precision", "pi"]].round(3)
        .to_dict(orient="records"),
        "not_applicable": res.not_applicable.to_dict(orient="records"),
        "load_average": os.getloadavg(),
        "cores": len(os.sched_getaffinity(0)),
    }
    for k, v in figures.items():
        if k in ("attacks", "step_seconds"):
            print(k)
            for x in (v.items() if isinstance(v, dict) else v):
                print("   ", x)
        else:
            print(f"{k:32s} {round(v, 2) if isinstance(v, float) else v}")
    if profiler:
        import pstats

        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    dest = paths.project_root() / "_build" / "benchmarks" / "audit_scale.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(figures, indent=1, default=str))
    print(f"written: {dest}")


if __name__ == "__main__":
    main()

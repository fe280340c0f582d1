"""Benchmark of chapter 6's sweeps from one exploration (not collected by pytest).

Run: ``.venv/bin/python tests/benchmarks/bench_diffix_sweeps.py [--users N]``

Each figure times the library's sweep (one exploration per victim for every
setting) against its reference: one experiment per setting, what the
chapter ran before. Both run in this process on ADULT, each on a fresh
proxy, and the tables are checked equal before the ratio (reference time /
library time) is reported:

1. the single test of the cloning attack at five cut-offs σ*
   (``run_cloning_sigma_sweep``: one run, re-thresholded);
2. the double test at the same five σ* (one exploration until every σ* has
   stopped);
3. the full differential attack under four bounds on the subsets it
   attacks (``run_differential_bound_sweep``).

Figures go to ``_build/benchmarks/diffix_sweeps.json`` with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from typing import Any

from anonlab import paths
from anonlab.attacks import diffix as atk
from anonbook import diffix_harness as harness
from anonlab.data import diffix_datasets as dd
from anonlab.mechanisms.diffix import DiffixProxy

SIGMAS = [0.3, 0.5, 0.7, 1.0, 1.5]
BOUNDS = [1, 3, 10, None]


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def figure(name: str, sweep: Callable[[], dict], alone: Callable[[Any], Any], settings: list, what: str) -> dict:
    """Time ``sweep()`` against ``alone(s)`` for every setting; the tables must be equal."""
    got, library = timed(sweep)
    reference = 0.0
    for s in settings:
        want, t = timed(lambda: alone(s))
        reference += t
        if not want.equals(got[s]):
            raise AssertionError(f"{name}: the sweep's table for {s!r} differs from the run of its own")
    fig = {"figure": name, "library_s": round(library, 3), "reference": what, "reference_s": round(reference, 3),
           "ratio": round(reference / library, 2), "load_average": list(os.getloadavg())}
    print(f"{name}: {library:.2f} s, reference ({what}) {reference:.2f} s, ratio {fig['ratio']}")
    return fig


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=100)
    args = ap.parse_args()
    adult = dd.adult()

    def proxy() -> DiffixProxy:
        return DiffixProxy(adult.data, table=adult.name, keep_log=False, salt=20190814)

    cloning = dict(n_users=args.users, k_star=len(adult.attributes), seed=0)
    differential = dict(n_users=args.users, k_star=8, seed=0)
    figures = [
        figure("cloning single test, 5 σ*", lambda: harness.run_cloning_sigma_sweep(adult, proxy(), SIGMAS, **cloning),
               lambda s: harness.run_cloning_experiment(adult, proxy(), sigma_star=s, **cloning), SIGMAS,
               "one run per σ*"),
        figure("cloning double test, 5 σ*",
               lambda: harness.run_cloning_sigma_sweep(adult, proxy(), SIGMAS, double_test=True, **cloning),
               lambda s: harness.run_cloning_experiment(adult, proxy(), double_test=True, sigma_star=s, **cloning),
               SIGMAS, "one run per σ*"),
        figure("differential, 4 bounds", lambda: harness.run_differential_bound_sweep(adult, proxy(), BOUNDS,
                                                                                 **differential),
               lambda b: harness.run_differential_experiment(adult, proxy(), max_attacked=b, **differential), BOUNDS,
               "one run per bound"),
    ]
    out = paths.project_root() / "_build" / "benchmarks" / "diffix_sweeps.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"benchmark": "diffix_sweeps", "cores": os.cpu_count(), "users": args.users,
                               "load_average": list(os.getloadavg()), "figures": figures}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

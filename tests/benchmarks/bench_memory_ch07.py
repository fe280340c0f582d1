"""Chapter 7's memory estimate against measured peaks, at several parameter sizes.

Run as ``.venv/bin/python tests/benchmarks/bench_memory_ch07.py [--sizes quick,mid,...]`` (not collected by
pytest; it runs the chapter, minutes per size). Each size is run with the runner into a temporary folder
(``use_cache = False``); the runner's :class:`~anonbook.memory.PeakSampler` measures the peak resident memory
of the chapter's kernel and its workers, and ``params.json`` keeps it beside the declared estimate
(:func:`anonbook.chapters.ch07_membership_base_rates.peak_memory`). The script prints both and their ratio and
writes ``_build/benchmarks/memory_ch07.json``; the estimate should be within a factor of two of the peak.

With ``--probe`` it also runs the chapter's expensive steps alone in a child process and reports the high-water
mark (``ru_maxrss``) after each phase (imports, reading the table, fitting, attacking): how the coefficients of
the estimate were measured.

Measured on the 2-core development machine, shared with other sessions (issue 37):

========  ============================================================================  ========  =========
size      parameters                                                                    peak MB   estimate
========  ============================================================================  ========  =========
quick     the quick preset (adult, 1,000 members, 5 models, 1 target)                   300       294
mid       census_income, 2,000 members, member_fraction 0.01, 33 models, 4 targets      957       1,058
wide      adult, 4,000 members, member_fraction 0.1, 25 models, 8 targets               409       380
========  ============================================================================  ========  =========

The coefficients were fitted to the probes of quick and mid and two more probes (adult with 20,000 members,
3 models: the forest's size; census_income with 2,000 members, 10 models, 9 targets: the score rows); "wide"
was not used to fit them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from anonlab import paths

NAME = "07_membership_base_rates"
SIZES: dict[str, dict] = {
    "quick": {"preset": "quick"},
    "default": {},
    "mid": {"dataset": "census_income", "n_members": 2000, "member_fraction": 0.01, "n_shadow_models": 32,
            "n_target_models": 4},
    "wide": {"n_members": 4000, "member_fraction": 0.1, "n_shadow_models": 24, "n_target_models": 8},
}

PROBE = r'''
import json, resource, sys
import numpy as np
def mb(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
from anonlab.attacks import membership
import anonbook.chapters.ch07_membership_base_rates, matplotlib.pyplot
out = {"imports": mb()}
p = json.loads(sys.argv[1])
pool = membership.pool_size(p["dataset"], p["n_members"], p["member_fraction"])
data = membership.load_membership_data(p["dataset"], n_records=pool, seed=0)
out["read"] = mb()
spec = membership.ModelSpec(p["model"], max_depth=p["max_depth"],
                            categorical=tuple(np.flatnonzero(data.categorical)), n_jobs=-1)
models = membership.train_shadow_models(data.X, data.y, spec, n_models=p["n_shadow_models"] + 1,
                                        member_fraction=p["member_fraction"], seed=0)
out["fit"] = mb()
membership.attack_rocs(membership.run_attacks(models, n_targets=p["n_target_models"], seed=0))
out["attack"] = mb()
print(json.dumps(out))
'''


def measure(size: str) -> dict:
    """Run the chapter at one size; its measured peak and estimate (MB) from the run's ``params.json``."""
    from anonbook.runner import quick_parameters, run_notebook

    params = dict(SIZES[size])
    if params.pop("preset", None) == "quick":
        params = quick_parameters(NAME)
    params["use_cache"] = False
    with tempfile.TemporaryDirectory() as out:
        run_notebook(NAME, params, out_dir=out, force=True)
        meta = json.loads((Path(out) / f"{NAME}.params.json").read_text())
    return {"size": size, "parameters": params, "peak_mb": meta["peak_memory_mb"],
            "estimate_mb": meta["estimated_memory_mb"],
            "ratio": round(meta["estimated_memory_mb"] / meta["peak_memory_mb"], 2)}


def probe(size: str) -> dict:
    """The chapter's expensive steps alone in a child process: its high-water mark after each phase, MB."""
    from anonbook.chapters import get
    from anonbook.runner import quick_parameters

    params = dict(SIZES[size])
    if params.pop("preset", None) == "quick":
        params = quick_parameters(NAME)
    full = get(NAME).parameters.validate(params)
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(full, default=str)], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="quick,mid", help=f"comma-separated, of {', '.join(SIZES)}")
    ap.add_argument("--probe", action="store_true", help="also the phases of the expensive steps alone")
    args = ap.parse_args()
    rows = []
    for size in args.sizes.split(","):
        row = measure(size)
        if args.probe:
            row["probe_mb"] = probe(size)
        rows.append(row)
        print(json.dumps(row), flush=True)
    out = paths.project_root() / "_build" / "benchmarks" / "memory_ch07.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

"""Benchmark of a chapter run's start: a kernel, ``import anonlab`` and the chapter module (not collected by pytest).

Run: ``.venv/bin/python tests/benchmarks/bench_startup.py [--repeat 3] [--chapters 01_syntactic_anonymity ...]``

Every run of a chapter pays this before its first computation; the build's
exercise runs pay it once per chapter (they share a kernel). For each
chapter, the best of ``--repeat`` tries of:

* **library**: start a Jupyter kernel, wait until it answers, then in it
  ``import anonlab`` and ``from anonbook.chapters import kit, ch<chapter>``
  (what a chapter notebook's first cells import), in seconds from the start
  request to the import's reply; the budget is 2 s on an idle core;
* **reference**: the same kernel start, then the imports any data notebook
  makes (``numpy``, ``pandas``, ``matplotlib.pyplot``): the floor a chapter
  cannot go below. The ratio is reference / library (1 means the chapter
  adds nothing to a plain notebook's start).

It also lists heavy modules found in the kernel after the imports (the
Sphinx build, Dask, papermill, SciPy's statistics and optimisation): none
should be on a chapter's path. Figures go to ``_build/benchmarks/startup.json``
with the load average and the user + system seconds of the kernels.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "_build" / "benchmarks"
sys.path.insert(0, str(ROOT / "lib"))

from anonbook.runner import toc_notebooks  # noqa: E402

#: Modules that must not be imported by a chapter's start: the book build's, the cluster's, SciPy's heavy parts.
HEAVY = ("sphinx", "jupyter_book", "myst_nb", "dask", "distributed", "papermill", "nbclient", "scipy.stats",
         "scipy.optimize")

REFERENCE = "import numpy, pandas, matplotlib.pyplot"


def timed_start(code: str) -> tuple[float, list[str]]:
    """Seconds from a kernel's start request to the reply of ``code`` run in it; the heavy modules it then holds."""
    from jupyter_client.manager import start_new_kernel

    t = time.perf_counter()
    import subprocess

    km, kc = start_new_kernel(kernel_name="python3", cwd=str(ROOT / "notebooks"), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        reply = kc.execute_interactive(code, silent=False, timeout=120, output_hook=lambda msg: None)
        seconds = time.perf_counter() - t
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"{code!r} failed in the kernel: {reply['content']}")
        found: list[str] = []

        def hook(msg: dict) -> None:
            if msg["msg_type"] == "stream":
                found.extend(json.loads(msg["content"]["text"]))

        kc.execute_interactive(f"import json, sys; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))",
                               timeout=60, output_hook=hook)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return seconds, found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--chapters", nargs="*", default=None)
    args = ap.parse_args()
    names = args.chapters or toc_notebooks()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures = []
    for name in names:
        lib_code = f"import anonlab\nfrom anonbook.chapters import kit, ch{name}"
        library, heavy, reference = float("inf"), [], float("inf")
        for _ in range(args.repeat):  # alternate, so a burst of load hits both
            s, heavy = timed_start(lib_code)
            library = min(library, s)
            reference = min(reference, timed_start(REFERENCE)[0])
        fig = {"figure": f"start {name}", "library_s": round(library, 3), "reference": REFERENCE,
               "reference_s": round(reference, 3), "ratio": round(reference / library, 2),
               "under_budget": library < 2.0, "heavy_modules": heavy, "load_average": list(os.getloadavg())}
        figures.append(fig)
        print(f"{name}: kernel + imports {library:.2f} s (budget 2 s), a plain notebook {reference:.2f} s, "
              f"ratio {fig['ratio']}, heavy modules: {', '.join(heavy) or 'none'}, load {os.getloadavg()[0]:.1f}")
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    OUT.mkdir(parents=True, exist_ok=True)
    out = {"benchmark": "startup", "figures": figures, "load_average": list(os.getloadavg()),
           "kernels_user_sys_s": round(cpu1.ru_utime - cpu0.ru_utime + cpu1.ru_stime - cpu0.ru_stime, 1)}
    (OUT / "startup.json").write_text(json.dumps(out, indent=1))
    print(f"written {OUT / 'startup.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

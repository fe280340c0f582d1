"""Collect every benchmark's figures into one JSON and one table; time the whole book.

``make benchmark`` runs each ``bench_*.py`` (each writes
``_build/benchmarks/<name>.json`` with figures measured in one run: the
library's time, the reference a competent user would write, their ratio,
and the machine's load), then this script, which

* with ``--book``, rebuilds the whole book from scratch (``python -m anonlab
  book --force`` with an empty result cache) and records its wall time and
  peak memory (the largest resident set of any process of the build);
* writes ``_build/benchmarks/summary.json`` and ``summary.md`` (one row per
  figure: benchmark, figure, library seconds, reference, ratio, load).

A ratio above 1 means the library is faster than the reference; below 1 is a
finding to fix, not to hide.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "_build" / "benchmarks"


def book_build() -> dict:
    """Time ``python -m anonlab book --force`` with the result cache off; peak memory of the build."""
    env = {**os.environ, "ANONLAB_NO_CACHE": "1"}  # every computation runs; the data cache stays
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "anonlab", "book", "--force"], cwd=ROOT, env=env)
    wall = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"command": "python -m anonlab book --force (ANONLAB_NO_CACHE=1)", "exit": proc.returncode,
            "wall_s": round(wall, 1), "peak_rss_mb": round(peak_kb / 1024, 1),
            "load_average": list(os.getloadavg()), "cores": os.cpu_count()}


def collect() -> list[dict]:
    rows = []
    for f in sorted(OUT.glob("*.json")):
        if f.name == "summary.json":
            continue
        data = json.loads(f.read_text())
        for fig in data.get("figures", []):
            rows.append({"benchmark": data.get("benchmark", f.stem), "figure": fig.get("figure"),
                         "library_s": fig.get("library_s"), "reference": fig.get("reference"),
                         "reference_s": fig.get("reference_s"), "ratio": fig.get("ratio"),
                         "load": (fig.get("load_average") or data.get("load_average") or [None])[0]})
    return rows


def table(rows: list[dict], book: dict | None) -> str:
    def f(x, spec=".3g"):
        return "" if x is None else format(x, spec) if isinstance(x, (int, float)) else str(x)

    lines = ["| benchmark | figure | library (s) | reference | reference (s) | ratio | load |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['benchmark']} | {r['figure']} | {f(r['library_s'])} | {r['reference']} | "
                     f"{f(r['reference_s'])} | {f(r['ratio'])} | {f(r['load'], '.1f')} |")
    if book:
        lines += ["", f"Whole book ({book['command']}): {book['wall_s']} s wall, peak memory "
                      f"{book['peak_rss_mb']} MB, load {book['load_average'][0]:.1f} on {book['cores']} cores, "
                      f"exit {book['exit']}."]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--book", action="store_true", help="also time a full book build from scratch")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    book = book_build() if args.book else None
    rows = collect()
    (OUT / "summary.json").write_text(json.dumps({"figures": rows, "book": book}, indent=1))
    text = table(rows, book)
    (OUT / "summary.md").write_text(text)
    print(text)
    print(f"written {OUT / 'summary.json'} and {OUT / 'summary.md'}")
    return 0 if not book or book["exit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

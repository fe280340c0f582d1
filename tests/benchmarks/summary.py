"""Collect every benchmark's figures into one JSON and one table; time the whole book, serial against parallel.

``make benchmark`` runs each ``bench_*.py`` (each writes
``_build/benchmarks/<name>.json`` with figures measured in one run: the
library's time, the reference a competent user would write, their ratio,
and the machine's load), then this script, which

* with ``--book``, builds the book's runs twice from a cold result cache
  (an empty ``ANONLAB_RESULTS_DIR``; the data sets stay fetched), in one run
  of this script so the two share the machine's state:

  1. **serial**, as the book was built before the parallel build: every
     chapter's default run one after another, then every exercise run in a
     kernel of its own (``python -m anonlab book --force --jobs 1
     --fresh-kernels --no-html``);
  2. **parallel**: the same runs scheduled over the cores, each chapter's
     exercise runs in one kernel (``python -m anonlab book --force
     --no-html``);

  then the HTML with the browser check (``python -m anonlab book
  --no-run``) and a rebuild with nothing changed (``python -m anonlab
  book``). For each build: wall time, user + system CPU seconds, peak
  memory (the resident memory of the whole process tree), the load average
  before and after; for each part (default runs, exercise runs, per
  chapter) the seconds the runs recorded; and every figure as the ratio
  serial / parallel. Where the time goes: each chapter's slowest cells in
  its default run (papermill's per-cell durations);
* writes ``_build/benchmarks/summary.json`` and ``summary.md``.

A ratio above 1 means the library (or the parallel build) is faster than
the reference (or the serial build); below 1 is a finding to fix, not to
hide. On a loaded machine compare CPU seconds as well as wall times.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "_build" / "benchmarks"
sys.path.insert(0, str(ROOT / "lib"))

from anonbook.schedule import WALL_CLOCK_CLAIMS as WALL_CLOCK  # noqa: E402


def timed_command(args: list[str], env: dict[str, str]) -> dict:
    """Run ``python -m anonlab ARGS``: wall, user + system seconds of it and its descendants, peak memory, load."""
    from anonbook.memory import MiB, PeakSampler

    load_before = os.getloadavg()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    pids: list[int] = []
    with PeakSampler(pids, interval=0.5) as sampler:
        proc = subprocess.Popen([sys.executable, "-m", "anonlab", *args], cwd=ROOT, env=env)
        pids.append(proc.pid)
        code = proc.wait()
    wall = time.perf_counter() - start
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"command": "python -m anonlab " + " ".join(args), "exit": code, "wall_s": round(wall, 1),
            "user_sys_s": round(cpu1.ru_utime - cpu0.ru_utime + cpu1.ru_stime - cpu0.ru_stime, 1),
            "peak_memory_mb": round(sampler.peak / MiB), "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()], "cores": os.cpu_count()}


def recorded_runs(names: list[str]) -> dict:
    """Seconds and CPU seconds each run of the last build recorded: default runs and exercise runs, per chapter."""
    from anonlab import paths
    from anonbook import course

    def meta(path: Path) -> dict:
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return {}

    out = {}
    for name in names:
        d = meta(paths.book_dir() / f"{name}.params.json")
        ex = [meta(course.exercise_dir(name) / key / f"{name}.params.json") for key, _ in course.exercise_runs(name)]
        quick = ex[0] if ex else {}
        out[name] = {"default_s": d.get("seconds"), "default_cpu_s": d.get("cpu_seconds"),
                     "default_peak_mb": d.get("peak_memory_mb"), "quick_s": quick.get("seconds"),
                     "exercise_runs": len(ex), "exercises_s": round(sum(m.get("seconds", 0) for m in ex), 1),
                     "exercises_cpu_s": round(sum(m.get("cpu_seconds", 0) or 0 for m in ex), 1)}
    return out


def slowest_cells(name: str, top: int = 3) -> list[dict]:
    """The slowest cells of a chapter's executed default notebook: seconds and the cell's first line."""
    from anonlab import paths

    try:
        nb = json.loads((paths.book_dir() / f"{name}.ipynb").read_text())
    except (OSError, ValueError):
        return []
    cells = []
    for i, c in enumerate(nb["cells"]):
        d = (c.get("metadata", {}).get("papermill") or {}).get("duration")
        if c["cell_type"] == "code" and d is not None:
            first = next((ln for ln in "".join(c["source"]).splitlines() if ln.strip() and not ln.startswith("#")), "")
            cells.append({"cell": i, "seconds": round(d, 1), "source": first[:90]})
    return sorted(cells, key=lambda c: -c["seconds"])[:top]


def book_builds(only: list[str] | None, serial: bool) -> dict:
    """The serial and the parallel build from a cold result cache, the HTML, a rebuild with nothing changed."""
    from anonbook import runner

    names = [n for n in runner.toc_notebooks() if not only or n in only]
    sel = ["--only", *names] if only else []
    out: dict = {"chapters": names}
    from anonlab import paths
    from anonbook.schedule import build_outputs, compare_builds

    kept = OUT / "serial-build"  # the serial build's outputs, kept to compare (and to look at)
    shutil.rmtree(kept, ignore_errors=True)
    for mode, args in (("serial", ["--jobs", "1", "--fresh-kernels"]), ("parallel", [])):
        if mode == "serial" and not serial:
            continue
        with tempfile.TemporaryDirectory(prefix="anonlab-cold-results-") as cold:
            env = {**os.environ, "ANONLAB_RESULTS_DIR": cold}
            print(f"== {mode} build from a cold result cache", flush=True)
            out[mode] = timed_command(["book", "--force", "--no-html", *args, *sel], env)
        out[mode]["runs"] = recorded_runs(names)
        if out[mode]["exit"] != 0:
            return out
        if mode == "serial":  # keep its outputs, to compare the parallel build's with
            for rel in build_outputs(paths.book_dir()):
                (kept / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(paths.book_dir() / rel, kept / rel)
    if serial:
        diffs = compare_builds(kept, paths.book_dir())
        out["differences_serial_parallel"] = diffs
        print(f"== the parallel build's outputs against the serial build's: {len(diffs)} differences "
              f"(timing metadata and {', '.join(WALL_CLOCK)} aside)", flush=True)
    out["where_the_time_goes"] = {n: slowest_cells(n) for n in names}
    if not only:
        print("== HTML and browser check", flush=True)
        out["html"] = timed_command(["book", "--no-run"], dict(os.environ))
        print("== a rebuild with nothing changed", flush=True)
        out["rebuild"] = timed_command(["book"], dict(os.environ))
    return out


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a and b else None


def book_table(book: dict) -> str:
    """The build parts, serial against parallel, with load averages and CPU seconds beside the wall times."""
    s, p = book.get("serial"), book.get("parallel")
    lines = ["", "## The book's runs from a cold result cache (serial = before, parallel = after)", ""]

    def build_line(label: str, b: dict | None) -> str:
        if not b:
            return f"| {label} | not run | | | |"
        return (f"| {label} | {b['wall_s']} s | {b['user_sys_s']} s | {b['peak_memory_mb']} MB | "
                f"{b['load_before'][0]:.1f} / {b['load_after'][0]:.1f} |")

    lines += ["| build | wall | user + sys | peak memory | load before / after |", "|---|---|---|---|---|",
              build_line("serial (a kernel per run, one run at a time)", s),
              build_line("parallel (shared exercise kernels, scheduled)", p)]
    for key, label in (("html", "HTML + browser check"), ("rebuild", "a rebuild with nothing changed")):
        if key in book:
            lines.append(build_line(label, book[key]))
    if s and p:
        diffs = book.get("differences_serial_parallel", [])
        lines += ["", f"Whole runs, serial / parallel: wall {_ratio(s['wall_s'], p['wall_s'])}, "
                      f"CPU {_ratio(s['user_sys_s'], p['user_sys_s'])}. Outputs of the parallel build against "
                      f"the serial build's (timing metadata and {', '.join(WALL_CLOCK)} aside): "
                      + (f"{len(diffs)} differences: " + "; ".join(diffs[:20]) if diffs else "identical") + ".", ""]
    lines += ["| chapter | default run serial (s) | parallel (s) | CPU serial / parallel (s) | quick run (s) | "
              "exercise runs | exercises serial (s) | parallel (s) | ratio |", "|---|---|---|---|---|---|---|---|---|"]
    tot = {"ds": 0.0, "dp": 0.0, "es": 0.0, "ep": 0.0}
    for name in book["chapters"]:
        rs = (s or {}).get("runs", {}).get(name, {})
        rp = (p or {}).get("runs", {}).get(name, {})
        tot["ds"] += rs.get("default_s") or 0
        tot["dp"] += rp.get("default_s") or 0
        tot["es"] += rs.get("exercises_s") or 0
        tot["ep"] += rp.get("exercises_s") or 0
        lines.append(f"| {name} | {rs.get('default_s', '')} | {rp.get('default_s', '')} | "
                     f"{rs.get('default_cpu_s', '')} / {rp.get('default_cpu_s', '')} | {rp.get('quick_s', '')} | "
                     f"{rp.get('exercise_runs', '')} | {rs.get('exercises_s', '')} | {rp.get('exercises_s', '')} | "
                     f"{_ratio(rs.get('exercises_s'), rp.get('exercises_s')) or ''} |")
    lines.append(f"| **all** | {tot['ds']:.1f} | {tot['dp']:.1f} | | | | {tot['es']:.1f} | {tot['ep']:.1f} | "
                 f"{_ratio(tot['es'], tot['ep']) or ''} |")
    lines += ["", "Where the time goes (the slowest cells of each default run):", ""]
    for name, cells in book.get("where_the_time_goes", {}).items():
        lines.append(f"- {name}: " + "; ".join(f"{c['seconds']} s `{c['source']}`" for c in cells))
    return "\n".join(lines) + "\n"


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
    text = "\n".join(lines) + "\n"
    return text + (book_table(book) if book else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--book", action="store_true", help="also time the book's runs, serial and parallel, from cold")
    ap.add_argument("--only", nargs="*", default=None, help="with --book: only these chapters (no HTML)")
    ap.add_argument("--no-serial", action="store_true", help="with --book: skip the serial build")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    book = book_builds(args.only, not args.no_serial) if args.book else None
    rows = collect()
    (OUT / "summary.json").write_text(json.dumps({"figures": rows, "book": book}, indent=1))
    text = table(rows, book)
    (OUT / "summary.md").write_text(text)
    print(text)
    print(f"written {OUT / 'summary.json'} and {OUT / 'summary.md'}")
    failed = book and any(book.get(k, {}).get("exit", 0) for k in ("serial", "parallel", "html", "rebuild"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

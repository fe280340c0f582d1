"""Run a chapter over a grid of parameters, in parallel, and collect what it recorded.

::

    python -m anonlab sweep 02_dp_vs_definetti --grid draws=2,5 --grid seed=0,1 --quick
    python -m anonlab sweep 07_membership_base_rates --grid n_members=1000,2000 --scheduler tcp://host:8786

Every grid point is one ordinary run of the chapter through
:func:`anonbook.runner.run_notebook` (so its parameters are checked against
the chapter's declaration before any work starts, and the result cache
applies), written to ``_build/sweeps/<chapter>/<point>/``. Points run in
local worker processes, or, given a Dask scheduler address, as tasks on that
Dask cluster (``dask.distributed``): a researcher who outgrows one machine
uses an existing engine instead of a home-made one. Each Dask worker needs
this project checkout at the same path (or ``ANONLAB_ROOT`` set) and the
locked environment.

The recorded claim measurements of all points are collected into one table
(``sweep.csv``) and one figure (``sweep.png``): each numeric claim against
the first grid parameter, one line per combination of the others.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from anonlab import paths
from anonlab.validation import excerpt
from anonbook.runner import RunError, check_cli_text, parse_cli_value, resolve_notebook, validate_parameters

__all__ = ["MAX_POINTS", "parse_grid", "grid_points", "run_sweep", "SweepResult", "sweep_figure", "connect_scheduler",
           "dask_executor"]

#: The most grid points one sweep runs (each is a whole chapter run); a larger grid is refused at once.
MAX_POINTS = 1000


def _split_top_level(text: str) -> list[str]:
    """Split on commas that are not inside brackets or quotes: ``[1,2],3`` -> ``["[1,2]", "3"]``."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def parse_grid(specs: Sequence[str]) -> dict[str, list[Any]]:
    """Parse ``NAME=V1,V2`` strings (values read like ``-p``: YAML 1.2).

    >>> parse_grid(["epsilon=0.1,1e-3", "l_grid=[2,3],[4]"])
    {'epsilon': [0.1, 0.001], 'l_grid': [[2, 3], [4]]}
    """
    grid: dict[str, list[Any]] = {}
    for spec in specs:
        check_cli_text("--grid", spec)
        name, sep, values = spec.partition("=")
        name = name.strip()
        if not sep or not name or not values.strip():
            raise RunError(f"--grid takes NAME=V1,V2,...; got {excerpt(spec)}")
        if name in grid:
            raise RunError(f"--grid names {excerpt(name)} twice")
        grid[name] = [parse_cli_value(v, name) for v in _split_top_level(values)]
    if not grid:
        raise RunError("a sweep needs at least one --grid NAME=V1,V2")
    return grid


def grid_points(grid: Mapping[str, Sequence[Any]], fixed: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every combination of the grid's values (first name varies slowest), on top of ``fixed``."""
    names = list(grid)
    return [{**(fixed or {}), **dict(zip(names, combo))} for combo in itertools.product(*grid.values())]


def _point_id(params: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(params, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _run_point(notebook: str, params: dict[str, Any], out_dir: str, root: str, force: bool) -> dict[str, Any]:
    """Run one grid point (in a worker process or a Dask task) and return its recorded results."""
    import os

    os.environ["ANONLAB_ROOT"] = root
    from anonbook.runner import run_notebook

    res = run_notebook(notebook, params, out_dir=out_dir, force=force, progress=False)
    results = json.loads(res.results.read_text())["results"] if res.results else {}
    return {"parameters": params, "seconds": res.seconds, "cached": res.cached, "results": results}


@dataclass(frozen=True)
class SweepResult:
    """What a sweep produced: one row per (grid point, claim), and where it is written."""

    chapter: str
    grid: dict[str, list[Any]]
    table: pd.DataFrame
    folder: Path


def run_sweep(
    notebook: str,
    grid: Mapping[str, Sequence[Any]],
    *,
    fixed: Mapping[str, Any] | None = None,
    workers: int = 2,
    scheduler: str | Any | None = None,
    out_dir: str | Path | None = None,
    force: bool = False,
    progress: bool = True,
) -> SweepResult:
    """Run ``notebook`` at every point of ``grid`` and collect the recorded claims.

    Parameters
    ----------
    notebook
        A chapter name (``02_dp_vs_definetti``).
    grid
        ``{name: [values]}``; every combination is run.
    fixed
        Parameters shared by all points (e.g. the chapter's quick preset).
    workers
        Local worker processes (ignored with a scheduler).
    scheduler
        A Dask scheduler address (``tcp://host:8786``) or a
        ``distributed.Client``; the points then run as tasks on that cluster.
    out_dir
        Default ``_build/sweeps/<chapter>``.
    """
    src = resolve_notebook(notebook)
    name = src.stem
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise RunError(f"workers must be an integer >= 1, got {workers!r}")
    size = 1
    for values in grid.values():
        size *= len(values)
    if size > MAX_POINTS:
        raise RunError(f"the grid has {size:,} points ({' x '.join(str(len(v)) for v in grid.values())}); "
                       f"a sweep runs at most {MAX_POINTS:,} (each point is a whole chapter run): "
                       "split it into several sweeps")
    points = grid_points(grid, fixed)
    if progress:
        print(f"[anonlab] sweep {name}: checking {len(points)} point(s)", file=sys.stderr)
    with dask_executor(scheduler) as (executor, _):  # a scheduler is reached (or refused) before any point runs
        for p in points:  # refuse a bad point before any work starts
            validate_parameters(src, p)
        folder = Path(out_dir) if out_dir else paths.project_root() / "_build" / "sweeps" / name
        folder.mkdir(parents=True, exist_ok=True)
        remove_stale_run_folders(folder, name)  # left by a sweep that was killed (SIGKILL, power cut)
        root = str(paths.project_root())
        args = [(name, p, str(folder / _point_id(p)), root, force) for p in points]
        if progress:
            where = f"Dask scheduler {scheduler}" if scheduler else f"{workers} local worker process(es)"
            print(f"[anonlab] sweep {name}: {len(points)} point(s) on {where}", file=sys.stderr)
        try:
            outputs = _run_all(args, workers, executor, progress)
        except BaseException:  # a failed point or Ctrl-C: no point's half-run folder stays behind
            remove_stale_run_folders(folder, name)
            raise
    from anonlab.claims import with_verdicts

    rows = []
    for out in outputs:
        for cid, r in out["results"].items():
            rows.append({**{k: _cell(v) for k, v in out["parameters"].items()}, "claim": cid,
                         "measured": r.get("measured"), "verdict": with_verdicts(cid, r)["verdict"],
                         "seconds": out["seconds"]})
    table = pd.DataFrame(rows)
    table.to_csv(folder / "sweep.csv", index=False)
    if not table.empty:
        sweep_figure(table, list(grid)).savefig(folder / "sweep.png", dpi=110, bbox_inches="tight")
    if progress:
        print(f"[anonlab] sweep {name}: table {folder / 'sweep.csv'}, figure {folder / 'sweep.png'}",
              file=sys.stderr)
    return SweepResult(name, {k: list(v) for k, v in grid.items()}, table, folder)


def _cell(v: Any) -> Any:
    """Grid values as table cells (lists become their text)."""
    return json.dumps(v) if isinstance(v, (list, dict)) else v


#: Seconds a scheduler address has to answer before a sweep gives up on it (tests set it short).
SCHEDULER_TIMEOUT = 10.0


def connect_scheduler(scheduler: Any, timeout: float | None = None) -> Any:
    """A ``distributed.Client`` for a scheduler address (or the client given), or one clear error.

    Raises
    ------
    RunError
        ``cannot reach the Dask scheduler at tcp://...`` when the address is
        malformed or nothing answers there within ``timeout`` seconds
        (:data:`SCHEDULER_TIMEOUT` when not given).
    """
    from distributed import Client

    if isinstance(scheduler, Client):
        return scheduler
    from anonlab.validation import ParameterError, check_scheduler_address

    try:
        address = check_scheduler_address("scheduler", scheduler)
    except ParameterError as exc:
        raise RunError(str(exc)) from None
    try:
        return Client(address, timeout=SCHEDULER_TIMEOUT if timeout is None else timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        raise RunError(f"cannot reach the Dask scheduler at {address} ({type(exc).__name__}: "
                       f"{str(exc).splitlines()[0] if str(exc) else 'no answer'}); is it running?") from None


@contextmanager
def dask_executor(scheduler: Any) -> Iterator[tuple[Executor | None, int]]:
    """The Dask cluster at ``scheduler`` (an address or a ``distributed.Client``) as a
    ``concurrent.futures`` executor, and its thread count: the one adapter the book hands the science
    (``executor.map`` is :func:`anonlab.attacks.reconstruction.reconstruct`'s ``parallel_map`` and
    :func:`anonlab.audit.audit`'s ``mapper``) and runs a sweep's points on. The science never connects
    to Dask itself; a client made here is closed on the way out. ``None`` (no scheduler) gives
    ``(None, 0)``: the caller runs locally."""
    if scheduler is None:
        yield None, 0
        return
    client = connect_scheduler(scheduler)
    try:
        yield client.get_executor(pure=False), max(1, sum(client.nthreads().values()))
    finally:
        if client is not scheduler:
            client.close()


def _run_all(args: list[tuple], workers: int, executor: Executor | None, progress: bool) -> list[dict[str, Any]]:
    if executor is not None:
        return [f.result() for f in [executor.submit(_run_point, *a) for a in args]]
    if workers == 1:
        out = []
        for i, a in enumerate(args, 1):
            out.append(_run_point(*a))
            if progress:
                print(f"[anonlab]   point {i}/{len(args)} done", file=sys.stderr)
        return out
    pool = ProcessPoolExecutor(max_workers=workers)
    try:
        futures = [pool.submit(_run_point, *a) for a in args]
        out = []
        for i, f in enumerate(futures, 1):
            out.append(f.result())
            if progress:
                print(f"[anonlab]   point {i}/{len(args)} done", file=sys.stderr)
        pool.shutdown()
        return out
    except BaseException:  # a failed point or Ctrl-C: stop now, not after every queued point has run
        _stop_pool(pool)
        raise


def _stop_pool(pool: ProcessPoolExecutor, grace: float = 5.0) -> None:
    """Cancel the queued points and stop the workers (each run cleans up on SIGTERM's interrupt or is
    cleaned up after by :func:`remove_stale_run_folders`)."""
    processes = list(getattr(pool, "_processes", {}).values())  # the executor has no public handle on them
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(grace)
        if p.is_alive():
            p.kill()
            p.join(grace)


def remove_stale_run_folders(folder: Path, name: str) -> None:
    """Remove the ``.run-<name>-*`` folders of every point under a sweep's folder whose process is gone."""
    from anonbook.runner import _remove_stale_run_folders

    for point in [folder, *(d for d in folder.iterdir() if d.is_dir() and not d.name.startswith("."))]:
        _remove_stale_run_folders(point, name)


def sweep_figure(table: pd.DataFrame, grid_names: Sequence[str], max_claims: int = 12):
    """Each numeric claim against the first grid parameter; one line per setting of the others."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    numeric = table[pd.to_numeric(table["measured"], errors="coerce").notna()
                    & ~table["measured"].map(lambda v: isinstance(v, bool))]
    claims = list(dict.fromkeys(numeric["claim"]))[:max_claims] or ["(no numeric claim)"]
    cols = min(3, len(claims))
    rows = -(-len(claims) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False)
    x, others = grid_names[0], list(grid_names[1:])
    for ax, cid in zip(axes.flat, claims):
        sub = numeric[numeric["claim"] == cid]
        groups = sub.groupby(others, dropna=False) if others else [((), sub)]
        for key, g in groups:
            label = ", ".join(f"{n}={v}" for n, v in zip(others, key if isinstance(key, tuple) else (key,)))
            ax.plot(g[x].astype(str), pd.to_numeric(g["measured"]), marker="o", label=label or None)
        ax.set_title(cid, fontsize=8)
        ax.set_xlabel(x)
        if others:
            ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(claims):]:
        ax.axis("off")
    fig.tight_layout()
    return fig

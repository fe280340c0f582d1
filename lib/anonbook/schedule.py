"""The book's runs side by side: chapters and exercise runs scheduled over the machine's cores and memory.

A book build is a set of independent runs: each chapter's default run, and
each chapter's exercise runs (its quick preset and every exercise variant,
which share one kernel: :func:`anonbook.course.run_exercises`). This module
plans them as :class:`Job` s and runs them concurrently (:func:`run_jobs`),
one process per running job, under three limits:

* **order**: a chapter that reads other chapters' recorded results declares
  them (``Chapter.after``); its runs start only after those chapters' default
  runs have finished;
* **cores**: the cores the running jobs use add up to at most the machine's
  (``os.cpu_count()``). A job whose chapter fixes its worker pool with a
  parameter (``n_jobs``, ``n_workers``) needs that many cores; any other job
  is *flexible*: it gets the cores that are free when it starts (at least
  one), and its pools are sized to them through ``ANONLAB_JOBS``,
  ``ANONLAB_N_JOBS`` and ``LOKY_MAX_CPU_COUNT`` (results do not depend on the
  number of workers);
* **memory**: the declared peak-memory estimates of the running jobs
  (``Chapter.memory``, :mod:`anonbook.memory`) add up to at most the memory
  available when the build starts (or ``ANONLAB_MEMORY_LIMIT``); each run's
  own memory check is made against its share.

Among the jobs that may start, the longest (by the last recorded run time)
goes first. A job that alone exceeds a limit still runs, alone. Progress is
one line per started or finished run, stamped with the time since the build
began. With ``concurrency=1`` the jobs run one after another in this process,
each with the whole machine (a serial build).

:func:`comparable_notebook` and :func:`recorded_values` are what "the same
outputs" means when two builds are compared (timing metadata and wall-clock
claims aside).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anonbook.memory import granted_cores

__all__ = ["Job", "Grant", "plan_book", "run_jobs", "run_book_jobs", "fixed_pool_cores", "granted_cores", "POOL_ENV",
           "comparable_notebook", "recorded_values", "compare_builds", "WALL_CLOCK_CLAIMS"]

#: Environment variables that size a run's worker pools (the de Finetti sweeps, the model fits, joblib).
POOL_ENV = ("ANONLAB_JOBS", "ANONLAB_N_JOBS", "LOKY_MAX_CPU_COUNT")

#: Parameters by which a chapter fixes the size of its worker pool.
POOL_PARAMETERS = ("n_jobs", "n_workers")

#: Claims that measure wall-clock time: they differ between any two runs, serial or not.
WALL_CLOCK_CLAIMS = ("cormode.timing.internet", "cormode.timing.adult")

#: The cells that show those wall-clock readings, by chapter (a piece of each cell's source): their outputs
#: differ between any two runs. The verdict table is among them; its other values are compared through the
#: recorded results (:func:`recorded_values`).
WALL_CLOCK_CELLS = {
    "02_dp_vs_definetti": ("chapter.time_attack(", "chapter.measure_timing(", "run.verdict_table()"),
    # the solver's CPU and wall seconds, blocks per CPU second and the projection in hours
    "04_census_reconstruction": ("display(exp.solver", "display(exp.table_sets", "display(projection("),
}

#: A duration a cell prints (``"40 targets x 4 aux sizes, 0.1 s"``): it differs between any two runs.
_PRINTED_SECONDS = re.compile(r"\b\d+(?:\.\d+)? s\b")


@dataclass(frozen=True)
class Job:
    """One unit of a build: a chapter's default run, or its exercise runs (one kernel).

    Attributes
    ----------
    key
        ``"02_dp_vs_definetti"`` (the default run) or ``"02_dp_vs_definetti:exercises"``.
    chapter, kind
        The chapter's notebook name; ``"chapter"`` or ``"exercises"``.
    parameters
        The run's parameters (``{}`` for the default run, the preset for a quick one).
    cores
        Cores it needs: its fixed pool's size, or 1 for a flexible job.
    flexible
        Its pools follow :data:`POOL_ENV`: it may take more cores when they are free.
    memory
        Estimated peak memory, bytes.
    after
        Keys of the jobs that must finish first.
    expected
        Seconds it took last time (0 when never run): the longest start first.
    """

    key: str
    chapter: str
    kind: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    cores: int = 1
    flexible: bool = True
    memory: float = 0.0
    after: tuple[str, ...] = ()
    expected: float = 0.0


@dataclass(frozen=True)
class Grant:
    """What the scheduler gave a job when it started: cores, a memory share, and the build's start time."""

    cores: int
    memory: float
    started: float
    concurrent: bool


def fixed_pool_cores(values: Mapping[str, Any]) -> int | None:
    """The worker-pool size a run's parameters fix (``n_jobs``, ``n_workers``), or ``None`` if they fix none.

    0 fixes none: the run takes the cores the build gives it (:func:`granted_cores`).

    >>> fixed_pool_cores({"n_jobs": 2, "seed": 0}), fixed_pool_cores({"n_workers": 1}), fixed_pool_cores({"n_jobs": 0})
    (2, 1, None)
    """
    sizes = [v for k, v in values.items() if k in POOL_PARAMETERS and isinstance(v, int) and v > 0]
    return max(sizes) if sizes else None


def _recorded_seconds(folder: Path, chapter: str) -> float:
    try:
        return float(json.loads((folder / f"{chapter}.params.json").read_text())["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0


def _job(chapter: str, kind: str, runs: Sequence[Mapping[str, Any]], after: tuple[str, ...],
         expected: float) -> Job:
    """A job for ``runs`` (parameter sets run one after another in one process) of a chapter."""
    from anonbook.chapters import get

    ch = get(chapter)
    full = [ch.parameters.validate(dict(p)) for p in runs]
    fixed = [c for c in (fixed_pool_cores(v) for v in full) if c is not None]
    memory = max(ch.peak_memory(v).bytes for v in full)
    key = chapter if kind == "chapter" else f"{chapter}:{kind}"
    return Job(key, chapter, kind, dict(runs[0]) if kind == "chapter" else {}, max(fixed) if fixed else 1,
               not fixed, memory, after, expected)


def plan_book(names: Sequence[str], *, quick: bool = False, exercises: bool = True) -> list[Job]:
    """The jobs of a build of these chapters: each chapter's run and (``exercises``) its exercise runs.

    ``quick`` runs the chapters on their quick preset instead of the defaults
    (for tests). A chapter's jobs come after the default runs of the chapters
    it declares in ``after`` (those in ``names``).
    """
    from anonlab import paths
    from anonbook import course
    from anonbook.chapters import get, has_chapter

    jobs = []
    for name in names:
        if not has_chapter(name):
            continue
        ch = get(name)
        after = tuple(a for a in getattr(ch, "after", ()) if a in names)
        params = dict(ch.quick) if quick else {}
        jobs.append(_job(name, "chapter", [params], after, _recorded_seconds(paths.book_dir(), name)))
        if exercises:
            runs = course.exercise_runs(name)
            seconds = sum(_recorded_seconds(course.exercise_dir(name) / k, name) for k, _ in runs)
            jobs.append(_job(name, "exercises", [p for _, p in runs], after, seconds))
    return jobs


def _stamp(started: float) -> str:
    s = int(time.perf_counter() - started)
    return f"{s // 60:2d}:{s % 60:02d}"


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _order(jobs: Iterable[Job], serial: bool = False) -> list[Job]:
    """The order jobs start in when they may: longest expected first, default runs before exercise runs on a tie.

    ``serial``: the order of a build that runs one job at a time, as the book
    always did: every default run in the given (table of contents) order,
    then every chapter's exercise runs.
    """
    indexed = list(enumerate(jobs))
    if serial:
        return [j for _, j in sorted(indexed, key=lambda t: (t[1].kind != "chapter", t[0]))]
    return [j for _, j in sorted(indexed, key=lambda t: (-t[1].expected, t[1].kind != "chapter", t[0]))]


def run_jobs(jobs: Sequence[Job], execute: Callable[[Job, Grant], Any], *, cores: int, memory: float,
             concurrency: int, executor: Executor | None = None,
             log: Callable[[str], None] = _say) -> dict[str, Any]:
    """Run the jobs under the limits (see the module); return ``{job key: what execute returned}``.

    ``execute(job, grant)`` runs one job (in ``executor``, or in this process
    when ``concurrency`` is 1). At most ``concurrency`` jobs run at once. The
    first failure stops new jobs from starting; the running ones finish, then
    a :class:`anonbook.runner.RunError` names every failure.
    """
    from anonbook.memory import _human
    from anonbook.runner import RunError

    keys = {j.key for j in jobs}
    unknown = {a for j in jobs for a in j.after} - keys
    if unknown:
        raise ValueError(f"jobs wait for jobs that are not in the build: {sorted(unknown)}")
    started = time.perf_counter()
    pending = _order(jobs, serial=concurrency == 1)
    running: dict[Future, tuple[Job, Grant]] = {}
    results: dict[str, Any] = {}
    failures: list[str] = []
    used_cores, used_memory = 0, 0.0
    n = len(pending)

    def fits(job: Job) -> bool:
        if any(a not in results for a in job.after) or len(running) >= concurrency:
            return False
        return not running or (job.cores <= cores - used_cores and used_memory + job.memory <= memory)

    while pending or running:
        while not failures:
            ready = [j for j in pending if fits(j)]
            if not ready:
                break
            job = ready[0]
            # a flexible job takes every free core only when nothing else could start beside it
            give = max(1, cores - used_cores) if job.flexible and (len(ready) == 1 or concurrency == 1) else job.cores
            grant = Grant(give, memory - used_memory, started, concurrency > 1)
            pending.remove(job)
            log(f"[anonlab] {_stamp(started)} start {job.key} ({grant.cores} core{'s' * (grant.cores > 1)}, "
                f"~{_human(job.memory)}; {len(results) + len(running) + 1}/{n})")
            if executor is None or concurrency == 1:
                fut: Future = Future()
                try:
                    fut.set_result(execute(job, grant))
                except Exception as exc:  # noqa: BLE001 - handed to the loop below, as a pool would
                    fut.set_exception(exc)
            else:
                fut = executor.submit(execute, job, grant)
            running[fut] = (job, grant)
            used_cores += grant.cores
            used_memory += job.memory
        if not running:
            break
        done, _ = wait(list(running), return_when=FIRST_COMPLETED)
        for fut in done:
            job, grant = running.pop(fut)
            used_cores -= grant.cores
            used_memory -= job.memory
            exc = fut.exception()
            if exc is not None:
                failures.append(f"{job.key}: {exc}")
                log(f"[anonlab] {_stamp(started)} FAILED {job.key}")
            else:
                results[job.key] = out = fut.result()
                took = f" in {out:.1f} s" if isinstance(out, float) else ""
                log(f"[anonlab] {_stamp(started)} done  {job.key}{took} ({len(results)}/{n})")
    if failures:
        skipped = [j.key for j in pending]
        raise RunError("the build stopped:\n" + "\n".join(failures)
                       + (f"\nnot run: {', '.join(skipped)}" if skipped else ""))
    return results


def execute_job(job: Job, grant: Grant, *, force: bool = False, shared_kernels: bool = True) -> float:
    """Run one job (in a worker process of the build, or in this one); return its seconds.

    A concurrent build sizes a flexible job's pools to the cores it was
    given (:data:`POOL_ENV`) and checks each run's memory against the job's
    share (``ANONLAB_MEMORY_LIMIT``).
    """
    from anonbook import course
    from anonbook.memory import MEMORY_LIMIT_ENV
    from anonbook.runner import CONCURRENT_BUILD_ENV, run_notebook

    saved = {k: os.environ.get(k) for k in (*POOL_ENV, MEMORY_LIMIT_ENV, CONCURRENT_BUILD_ENV)}
    if grant.concurrent:
        os.environ[CONCURRENT_BUILD_ENV] = "1"
        if job.flexible:
            os.environ.update({k: str(grant.cores) for k in POOL_ENV})
        os.environ[MEMORY_LIMIT_ENV] = str(int(grant.memory))
    start = time.perf_counter()
    try:
        if job.kind == "chapter":
            res = run_notebook(job.chapter, dict(job.parameters), force=force, progress=False)
            if res.cached:
                _say(f"[anonlab] {_stamp(grant.started)}   {job.chapter}: up to date, not rerun")
        else:
            course.run_exercises(job.chapter, force=force, shared=shared_kernels,
                                 log=lambda line: _say(line.replace("[anonlab] ",
                                                                    f"[anonlab] {_stamp(grant.started)}   ", 1)))
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return time.perf_counter() - start


def job_is_current(job: Job) -> bool:
    """Is the job's run (or every exercise run of it) up to date, so that executing it only says so?"""
    from anonbook import course
    from anonbook.runner import is_current

    try:
        return course.exercises_current(job.chapter) if job.kind == "exercises" else \
            is_current(job.chapter, dict(job.parameters))
    except Exception:  # noqa: BLE001 - not known to be current: the job runs, and reports its own error
        return False


def run_book_jobs(jobs: Sequence[Job], *, concurrency: int | None = None, force: bool = False,
                  shared_kernels: bool = True, cores: int | None = None,
                  memory: float | None = None) -> dict[str, float]:
    """Run a build's jobs: ``concurrency`` at once (default: one per core), in worker processes.

    ``concurrency=1`` is the serial build (one job after another, in this
    process). Returns ``{job key: seconds}``.
    """
    import functools
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    from anonbook.memory import available_memory

    cores = cores or os.cpu_count() or 1
    concurrency = max(1, concurrency or cores)
    memory = available_memory() if memory is None else memory
    execute = functools.partial(execute_job, force=force, shared_kernels=shared_kernels)
    if concurrency == 1 or (not force and all(job_is_current(j) for j in jobs)):
        # nothing to run (or a serial build): in this process, without starting workers that each import the
        # book again (a rebuild with nothing changed takes seconds, not a pool's start)
        return run_jobs(jobs, execute, cores=cores, memory=memory, concurrency=1)
    with ProcessPoolExecutor(concurrency, mp_context=mp.get_context("spawn")) as pool:
        return run_jobs(jobs, execute, cores=cores, memory=memory, concurrency=concurrency, executor=pool)


# -- comparing two builds ----------------------------------------------------------------------------------

#: Notebook metadata that records when and where a run happened, not what it computed.
_RUN_METADATA = ("papermill", "execution")


def comparable_notebook(path: Path) -> str:
    """An executed notebook as text without what differs between two runs of the same computation.

    Dropped: papermill's and Jupyter's timing metadata (per cell and per
    notebook, with the temporary output path), the random id papermill
    gives the cell of injected parameters, the random ids pandas' Styler
    gives its tables and an object's address in its repr, the outputs of
    the cells that show wall-clock readings (:data:`WALL_CLOCK_CELLS`), and
    in printed text the durations (``0.1 s``), how the kernel split it into
    chunks and the order of its lines (tasks running side by side print
    their progress in any order). Kept: every cell's source and outputs
    (values, tables, figures' bytes, printed lines), the execution counts
    and the parameters.
    """
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    clock = WALL_CLOCK_CELLS.get(Path(path).name.split(".")[0], ())
    params = nb.get("metadata", {}).get("papermill", {}).get("parameters")
    for key in _RUN_METADATA:
        nb.get("metadata", {}).pop(key, None)
    nb["metadata"]["parameters"] = params
    for cell in nb.get("cells", []):
        for key in _RUN_METADATA:
            cell.get("metadata", {}).pop(key, None)
        if "injected-parameters" in cell.get("metadata", {}).get("tags", []):
            cell.pop("id", None)  # papermill draws a new one for every run
        if any(piece in "".join(cell.get("source", "")) for piece in clock):
            cell["outputs"] = "(wall-clock readings: not compared)"
        elif cell.get("outputs"):
            cell["outputs"] = _merged_streams(cell["outputs"])
    # pandas' Styler names each table with a random id (T_3f9a1): the same table reads the same without it
    text = re.sub(r"T_[0-9a-f]{5}(?![0-9a-z])", "T_id", json.dumps(nb, sort_keys=True, indent=1))
    return re.sub(r" at 0x[0-9a-f]+>", " at 0x>", text)  # an object's address in its repr


def _merged_streams(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive printed outputs as one sorted list of lines, durations masked.

    How a kernel splits printed text into chunks, and in which order the
    progress lines of tasks running side by side arrive, depend on timing.
    """
    merged: list[dict[str, Any]] = []
    for out in outputs:
        if out.get("output_type") == "stream":
            lines = _PRINTED_SECONDS.sub("(t) s", "".join(out.get("text", ""))).splitlines()
            if merged and merged[-1].get("output_type") == "stream" and merged[-1]["name"] == out.get("name"):
                merged[-1]["lines"] = sorted(merged[-1]["lines"] + lines)
                continue
            out = {"output_type": "stream", "name": out.get("name"), "lines": sorted(lines)}
        merged.append(out)
    return merged


def recorded_values(path: Path, except_claims: Sequence[str] = WALL_CLOCK_CLAIMS) -> dict[str, Any]:
    """A chapter's recorded results (``<chapter>.results.json``) less the wall-clock claims."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    results = {k: v for k, v in data.get("results", {}).items() if k not in except_claims}
    return {**data, "results": results}


def build_outputs(book: Path) -> list[Path]:
    """The files two builds are compared on, relative to ``book``: executed notebooks and recorded results."""
    book = Path(book)
    return sorted(p.relative_to(book) for p in book.rglob("*")
                  if p.is_file() and (p.suffix == ".ipynb" or p.name.endswith(".results.json"))
                  and not any(part.startswith((".run-", "_generated", "_build")) for part in p.relative_to(book).parts))


def compare_builds(a: Path, b: Path) -> list[str]:
    """Where two builds' outputs differ (:func:`comparable_notebook`, :func:`recorded_values`); ``[]`` if nowhere.

    Each difference is named by file; for results, by claim.
    """
    a, b = Path(a), Path(b)
    files_a, files_b = build_outputs(a), build_outputs(b)
    out = [f"only in {a}: {f}" for f in sorted(set(files_a) - set(files_b))]
    out += [f"only in {b}: {f}" for f in sorted(set(files_b) - set(files_a))]
    for rel in sorted(set(files_a) & set(files_b)):
        if rel.suffix == ".ipynb":
            if comparable_notebook(a / rel) != comparable_notebook(b / rel):
                out.append(f"{rel}: the notebooks differ")
            continue
        ra, rb = recorded_values(a / rel)["results"], recorded_values(b / rel)["results"]
        out += [f"{rel}: {cid}" for cid in sorted(set(ra) | set(rb)) if ra.get(cid) != rb.get(cid)]
    return out

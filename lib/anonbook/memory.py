"""Peak memory: what a chapter run is estimated to need before it starts, and what it used.

Per-parameter bounds do not bound a run: ``n_blocks`` and ``mean_block_size``
may each be within range while their product does not fit the machine. So
each chapter declares an estimate of its peak memory from its parameters
(:class:`~anonbook.chapters.Chapter`'s ``memory``), the runner compares it with
the memory the machine has before anything runs (:func:`check_fits`), and
refuses a run that cannot fit with the estimate and the parameters that
drive it. While a run executes, :class:`PeakSampler` measures the resident
memory of the chapter's kernel and every process it started (its worker
pools); the runner records it beside the estimate in
``<chapter>.params.json``, and a test holds each estimate to within a factor
of two of what the runs measured.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MiB", "GiB", "MemoryEstimate", "worker_pools", "granted_cores", "available_memory", "check_fits",
           "PeakSampler",
           "MEMORY_LIMIT_ENV"]

MiB = 2**20
GiB = 2**30

#: Overrides the memory a run may use (bytes, or with a unit: ``512M``, ``2G``): to plan for a smaller machine.
MEMORY_LIMIT_ENV = "ANONLAB_MEMORY_LIMIT"


@dataclass(frozen=True)
class MemoryEstimate:
    """A run's estimated peak resident memory, in bytes, and the parameters that drive it.

    ``drivers`` maps each parameter that the estimate grows with to its value
    in this run, so a refusal can say what to lower.
    """

    bytes: float
    drivers: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return _human(self.bytes)


def granted_cores(at_most: int = 4) -> int:
    """Worker processes for a pool whose size a run leaves to the build (``n_jobs = 0``, ``n_workers = 0``).

    ``$ANONLAB_JOBS`` when set (a parallel build sets it to the cores it gave
    the run, :func:`anonbook.schedule.execute_job`), else the CPUs this process may use, at
    most ``at_most``. A chapter that fixes no pool size this way is a
    flexible job: alone it gets every free core, beside another chapter one.

    >>> 1 <= granted_cores(at_most=2) <= 2 or "ANONLAB_JOBS" in os.environ
    True
    """
    env = os.environ.get("ANONLAB_JOBS", "").strip()
    if env:
        return max(1, int(env))
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, at_most))


def worker_pools(base_mb: float, per_job_mb: float) -> Callable[[Mapping[str, Any]], MemoryEstimate]:
    """An estimate for a chapter whose ``n_jobs`` > 1 starts worker pools that each hold a copy of the data.

    Peak = ``base_mb`` (the kernel, in process when ``n_jobs`` = 1) + ``per_job_mb`` per job when
    ``n_jobs`` > 1, driven by ``n_jobs`` (0: the cores the build gives the run,
    :func:`granted_cores`).

    >>> est = worker_pools(1200, 1600)
    >>> str(est({"n_jobs": 1})), str(est({"n_jobs": 2})), dict(est({"n_jobs": 2}).drivers)
    ('1.2 GB', '4.3 GB', {'n_jobs': 2})
    """
    def estimate(values: Mapping[str, Any]) -> MemoryEstimate:
        n = values["n_jobs"]
        if n == 0:  # the cores the build gives the run
            n = granted_cores()
        jobs = n if n > 1 else 0
        return MemoryEstimate((base_mb + per_job_mb * jobs) * MiB, {"n_jobs": values["n_jobs"]} if jobs else {})

    return estimate


def _human(n: float) -> str:
    return f"{n / GiB:.1f} GB" if n >= GiB else f"{n / MiB:.0f} MB"


def _parse_size(text: str) -> float:
    """``"2G"`` -> 2 GiB, ``"512M"`` -> 512 MiB, ``"1000000"`` -> bytes; only a finite size of at least one byte.

    >>> _parse_size("2G") == 2 * GiB, _parse_size("512mb") == 512 * MiB
    (True, True)
    >>> _parse_size("-1G")
    Traceback (most recent call last):
    ...
    ValueError: not a positive finite size: '-1G'
    """
    import math

    t = text.strip().upper().removesuffix("B")
    units = {"K": 2**10, "M": MiB, "G": GiB, "T": 2**40}
    size = float(t[:-1]) * units[t[-1]] if t and t[-1] in units else float(t)
    if not (math.isfinite(size) and size >= 1):
        raise ValueError(f"not a positive finite size: {text!r}")
    return size


def available_memory() -> float:
    """Bytes a run may use: ``$ANONLAB_MEMORY_LIMIT``, else the memory the machine has available now."""
    env = os.environ.get(MEMORY_LIMIT_ENV)
    if env:
        try:
            return _parse_size(env)
        except ValueError:
            shown = env if len(env) <= 40 else env[:37] + "..."
            raise ValueError(f"{MEMORY_LIMIT_ENV} must be a positive size like 2G or 512M, got {shown!r}") from None
    import psutil

    return float(psutil.virtual_memory().available)


def check_fits(chapter: str, estimate: MemoryEstimate, available: float | None = None) -> None:
    """Refuse a run whose estimated peak exceeds the available memory, naming what drives it.

    Raises
    ------
    MemoryError
        ``04_census_reconstruction would need about 38.2 GB at its peak (n_blocks = 100000,
        mean_block_size = 500.0); this machine has 21.3 GB available: lower them``.
    """
    avail = available_memory() if available is None else available
    if estimate.bytes <= avail:
        return
    drivers = ", ".join(f"{k} = {v!r}" for k, v in estimate.drivers.items()) or "its defaults"
    raise MemoryError(f"{chapter} would need about {estimate} at its peak ({drivers}); this machine has "
                      f"{_human(avail)} available: lower {'them' if len(estimate.drivers) > 1 else 'it'} "
                      f"(or set {MEMORY_LIMIT_ENV} if you know better)")


def _tree_rss(root: Any, cpu: dict[int, float] | None = None) -> int:
    """Resident memory of a process and all its descendants, bytes (processes that vanish are skipped).

    With ``cpu``, each process's CPU time so far (user + system seconds) is stored there under its pid.
    """
    import psutil

    total = 0
    for p in [root, *root.children(recursive=True)]:
        try:
            total += p.memory_info().rss
            if cpu is not None:
                t = p.cpu_times()
                cpu[p.pid] = max(cpu.get(p.pid, 0.0), t.user + t.system)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return total


class PeakSampler:
    """The peak resident memory of some processes and their descendants while a ``with`` block runs.

    ``pids`` is a list the caller may fill while the block runs (the runner
    adds the chapter's kernel once it has started); ``None`` measures this
    process and its descendants. A thread samples every ``interval`` seconds
    (so a spike shorter than that can be missed; the estimate's factor-of-two
    tolerance covers it)::

        with PeakSampler() as s:
            run_the_chapter()
        s.peak   # bytes
        s.cpu    # user + system seconds the processes used while the block ran

    The CPU time counts each process's time at its last sample (a worker's
    last quarter-second before it exits can be missed), less what the
    processes had used before the block began.
    """

    def __init__(self, pids: list[int] | None = None, interval: float = 0.25) -> None:
        self.pids = pids
        self.interval = interval
        self.peak = 0
        self._cpu: dict[int, float] = {}
        self._cpu_before: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _sample(self) -> None:
        import psutil

        roots: dict[int, Any] = {}
        while True:
            pids = [os.getpid()] if self.pids is None else list(self.pids)
            total = 0
            for pid in pids:
                try:
                    roots.setdefault(pid, psutil.Process(pid))
                    total += _tree_rss(roots[pid], self._cpu)
                except psutil.NoSuchProcess:
                    pass
            self.peak = max(self.peak, total)
            if self._stop.wait(self.interval):
                break

    @property
    def cpu(self) -> float:
        """User + system seconds the measured processes used while the block ran (see the class)."""
        return sum(v - self._cpu_before.get(k, 0.0) for k, v in self._cpu.items())

    def __enter__(self) -> PeakSampler:
        import psutil

        for pid in [os.getpid()] if self.pids is None else list(self.pids):  # running before: count what they use from now
            try:
                _tree_rss(psutil.Process(pid), self._cpu_before)
            except psutil.NoSuchProcess:
                pass
        self._thread = threading.Thread(target=self._sample, name="anonlab-peak-memory", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

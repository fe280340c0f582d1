"""Experiments over many users: the attacks of [G19] run on a data set through a proxy, one row per user.

:func:`run_differential_experiment`, :func:`run_complete_k` and
:func:`run_cloning_experiment` attack many users of a
:class:`~anonlab.data.diffix_datasets.DiffixDataset` (in this process or in
worker processes, with the same results; each attack sends all its victims'
pending queries in one batch per round, and the worker pools are kept
across experiments until :func:`shutdown_pools` or exit);
:func:`run_differential_bound_sweep` and :func:`run_cloning_sigma_sweep`
give several bounds or cut-offs σ* from one exploration;
:func:`differential_sample_moments` and :func:`filtered_sample_moments`
measure Eq. 6 on the proxy; :func:`summarize_differential` and
:func:`summarize_cloning` turn the runs into the paper's quantities with
Wilson intervals; :func:`differential_result` and :func:`cloning_result`
turn them into :class:`~anonlab.measures.AttackResult` objects for the
book's one scoring protocol, which :func:`anonlab.measures.binary_yardstick`
scores against the majority guess and the rare value. :class:`Experiments` runs the
chapters' experiments through a chapter run's result cache, several at once
when asked (:meth:`Experiments.together`).
"""

from __future__ import annotations

import atexit
import functools
import inspect
import math
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from anonbook.memory import granted_cores
from anonlab.measures import AttackResult, wilson_interval
from anonlab.intervals import percentile_interval, two_se_interval
from anonlab.mechanisms.diffix import DiffixProxy
from anonlab.validation import check_random_state

from anonlab.attacks.diffix._common import _cloning_settings, _positive_int, _py
from anonlab.attacks.diffix.cloning import double_test_sigma_sweep, full_cloning_attack, greedy_full_cloning_attack
from anonlab.attacks.diffix.differential import (UniquenessOracle, differential_attack,
                                                full_differential_attack_bounds)
from anonlab.attacks.diffix.theory import differential_distributions
from anonlab.streams import legacy_seed, stream

__all__ = [
    "progress_printer",
    "shutdown_pools",
    "run_differential_experiment",
    "run_differential_bound_sweep",
    "run_complete_k",
    "run_cloning_experiment",
    "rethreshold_cloning",
    "run_cloning_sigma_sweep",
    "differential_sample_moments",
    "filtered_sample_moments",
    "summarize_differential",
    "summarize_cloning",
    "query_count_interval",
    "differential_result",
    "cloning_result",
    "coverage_bias_text",
    "Experiments",
]

# ---------------------------------------------------------------------------
# Experiments over many users
# ---------------------------------------------------------------------------


def _user_rngs(seed: int, positions: int | Sequence[int]) -> list[np.random.Generator]:
    """The generators of the victims at ``positions`` (``n``: the first n), as ``SeedSequence(seed).spawn(n)`` gives them.

    The i-th child of a fresh ``SeedSequence(seed)`` is ``SeedSequence(seed, spawn_key=(i,))``, so a
    worker builds only the generators of its own victims.
    """
    return [np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(i),)))
            for i in (range(positions) if isinstance(positions, int) else positions)]


def _sample_users(n_records: int, n_users: int, seed: int) -> np.ndarray:
    """``n_users`` distinct random rows, or every row when the data set is smaller."""
    n_users = min(_positive_int("n_users", n_users), n_records)
    return np.sort(np.random.default_rng(seed).choice(n_records, size=n_users, replace=False))


def _known_attributes(attributes: list[str], k_star: int, g: np.random.Generator) -> list[str]:
    """A random A* of size k* (kept in the data set's column order)."""
    picked = set(g.choice(len(attributes), size=k_star, replace=False).tolist())
    return [a for i, a in enumerate(attributes) if i in picked]


ProgressFn = Callable[[int, int], None]
K = TypeVar("K")
T = TypeVar("T")


def progress_printer(label: str, every: int = 100) -> ProgressFn:
    """A progress callback that prints ``label: done/total`` to stderr (build noise) every ``every`` users."""
    def report(done: int, total: int) -> None:
        if done == total or done % every == 0:
            print(f"{label}: {done}/{total} users", file=sys.stderr, flush=True)
    return report


# -- per-user work, shared by the serial loop and the worker processes --------------------


def _differential_users(ds: Any, proxy: DiffixProxy, oracle: UniquenessOracle, rows: Sequence[int],
                        rngs: Sequence[np.random.Generator], k: int, params: Mapping[str, Any],
                        on_done: Callable[[int], None] | None = None) -> list[tuple]:
    """The full differential attack on several users at once, under each bound of ``params["bounds"]``.

    One row per user, holding ``(unique, guess, queries, subset size, samples)`` per bound, from one exploration
    (:func:`~anonlab.attacks.diffix.full_differential_attack_bounds`, the users' queries in shared batches); each
    user's ``A*`` and search draw from her own generator.
    """
    attrs, bounds = list(ds.attributes), list(params["bounds"])
    records, a_stars, oracles = [], [], []
    for row, g in zip(rows, rngs):
        a_star = _known_attributes(attrs, k, g)
        records.append({a: _py(ds.data[a].iat[row]) for a in a_star})
        a_stars.append(a_star)
        oracles.append(oracle.for_record(records[-1], a_star))
    search = {"max_checked": None, "per_size_limit": math.comb(k, k // 2)} if params.get("exhaustive") else {}
    outs = full_differential_attack_bounds(proxy, records, a_stars, ds.secret, oracle, bounds, seeds=rngs,
                                           uniques=oracles, analyst="differential", on_done=on_done, **search)
    return [tuple((u(a), o.guess, o.n_queries, len(o.subset), o.n_samples) for o in map(out.__getitem__, bounds))
            for u, a, out in zip(oracles, a_stars, outs)]


def _cloning_users(ds: Any, proxy: DiffixProxy, rows: Sequence[int], rngs: Sequence[np.random.Generator],
                   k: int, params: Mapping[str, Any], domains: Mapping[str, Sequence[Any]],
                   oracle: UniquenessOracle, secret: np.ndarray,
                   on_done: Callable[[int], None] | None = None) -> list[tuple]:
    """The cloning attack on several users at once: their queries go to the proxy in shared batches.

    Each user's ``A*`` and attack draw from her own generator, and every
    answer is a function of its query alone, so the rows are those of one
    user at a time (:func:`~anonlab.attacks.diffix.cloning.drive_many`).
    """
    attrs = list(ds.attributes)
    truths, records, a_stars, uniques = [], [], [], []
    # the queries certain to be answered 0 are counted, not sent (full variant, single test, suppression on)
    skip = (params["variant"] == "full" and not params.get("sigma_stars") and proxy.bucket_suppression
            and not params["double_test"])
    for row, g in zip(rows, rngs):
        a_star = _known_attributes(attrs, k, g)
        # ground truth (not the attacker's view): who shares the victim's x^(A*), and their secrets
        record = {a: _py(ds.data[a].iat[row]) for a in a_star}
        peers = secret[oracle.matching(record, a_star)]
        truths.append((bool(np.all(peers == secret[row])), bool(peers.size == 1)))
        records.append(record)
        a_stars.append(a_star)
        # (a small table: the victim's bitmask oracle, else the oracle's lookups, which hold no arrays per victim)
        uniques.append(None if not skip else oracle.for_record(record, a_star) if len(ds.data) < POOL_MIN_RECORDS
                       else functools.partial(oracle, record))
    common = dict(seeds=list(rngs), n_dummy=params["n_dummy"], analyst="cloning", on_done=on_done)
    if params.get("sigma_stars"):  # the double test at several σ*, one exploration
        outs = double_test_sigma_sweep(proxy, records, a_stars, ds.secret, domains, params["sigma_stars"],
                                       max_subsets=params["max_subsets"], **common)
    elif params["variant"] == "full":
        outs = full_cloning_attack(proxy, records, a_stars, ds.secret, domains, v=params["v"],
                                   sigma_star=params["sigma_star"], double_test=params["double_test"],
                                   max_subsets=params["max_subsets"], uniques=uniques, **common)
    else:
        outs = greedy_full_cloning_attack(proxy, records, a_stars, ds.secret, domains, v=params["v"],
                                          sigma_star=params["sigma_star"], **common)

    def row(vu: bool, un: bool, out: Any) -> tuple:
        return (vu, un, out.attackable, -1 if out.guess is None else out.guess, out.n_queries, out.n_subsets,
                len(out.a_prime), out.s2)

    if params.get("sigma_stars"):  # one row per σ* and user
        return [tuple(row(vu, un, out[float(s)]) for s in params["sigma_stars"]) for (vu, un), out in zip(truths, outs)]
    return [row(vu, un, out) for (vu, un), out in zip(truths, outs)]


_WORKER: dict[str, Any] = {}

#: Data sets with fewer records are attacked in this process whatever ``n_jobs`` (German credit: starting workers
#: costs more than the attacks on a thousand records).
POOL_MIN_RECORDS = 10_000
#: A one-off variant of a data set (a shuffled or re-read secret) with at most this many victims is attacked in this
#: process by :class:`Experiments`: its workers would be started for that one run.
VARIANT_MAX_SERIAL_USERS = 200
#: Users of the full differential attack searched in lockstep in this process (each search holds arrays the
#: size of the data set while it runs).
SERIAL_GROUP = 50


#: A worker rebuilds its proxy (dropping the cached row sets) when its resident memory passes this many bytes.
WORKER_MEMORY_CAP = 2 * 1024 ** 3
#: Pools kept alive at once (one per data set object, proxy settings and worker count); the oldest is shut down.
MAX_POOLS = 4
_POOLS: "OrderedDict[tuple, tuple[Any, Any]]" = OrderedDict()
#: Attacks run in this process one at a time (:meth:`Experiments.together` waits for pooled ones in threads).
_LOCAL = threading.RLock()


def _rss_bytes() -> int:
    """Resident memory of this process (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _worker_pool(ds: Any, settings: Mapping[str, Any], n_jobs: int) -> Any:
    """A process pool whose workers hold ``ds`` and a proxy with ``settings``, kept across experiments.

    Starting workers (spawn, import, copying the data, building the proxy)
    costs seconds; a chapter runs dozens of experiments on the same few data
    sets, so a pool is kept per (data set object, settings, ``n_jobs``) —
    with its workers' warm caches — up to :data:`MAX_POOLS` pools, and all
    are shut down at exit (:func:`shutdown_pools`). The answers do not
    depend on the caches, so results are those of fresh workers.
    """
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    key = (id(ds), int(n_jobs), tuple(sorted((k, repr(v)) for k, v in settings.items())))
    with _LOCAL:  # one pool per key, also when experiments run together
        hit = _POOLS.get(key)
        if hit is not None and hit[1] is ds:
            _POOLS.move_to_end(key)
            return hit[0]
        while len(_POOLS) >= MAX_POOLS:
            _, (old, _) = _POOLS.popitem(last=False)
            old.shutdown(wait=True)
        ex = ProcessPoolExecutor(n_jobs, mp_context=mp.get_context("spawn"), initializer=_init_worker,
                                 initargs=(ds, dict(settings)))
        _POOLS[key] = (ex, ds)  # holding ds keeps its id from being reused
        return ex


def _task_pool(n_jobs: int) -> Any:
    """A process pool for whole experiments that need no data set of their own (Complete_k), kept like the others."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    key = ("tasks", int(n_jobs))
    with _LOCAL:
        if key not in _POOLS:
            _POOLS[key] = (ProcessPoolExecutor(n_jobs, mp_context=mp.get_context("spawn")), None)
        return _POOLS[key][0]


def shutdown_pools(kill: bool = False, ds: Any | None = None) -> None:
    """Shut down the worker pools kept by the experiments (also run at interpreter exit).

    ``kill=True`` (after an interruption or an error) terminates the workers
    instead of letting their current chunk finish. ``ds``: only the pools
    serving that data set object (a one-off variant, such as a data set with
    its secret shuffled, whose pool would otherwise push out a pool that the
    next experiments reuse).
    """
    for key in [k for k, (_, held) in _POOLS.items() if ds is None or held is ds]:
        ex, _ = _POOLS.pop(key)
        if kill:
            for proc in list((getattr(ex, "_processes", None) or {}).values()):
                proc.terminate()
        ex.shutdown(wait=True, cancel_futures=True)


atexit.register(shutdown_pools)


def _init_worker(ds: Any, settings: Mapping[str, Any]) -> None:
    """Worker process: its own proxy with the same salt and switches (same answers).

    It ignores SIGINT: an interrupt (Ctrl-C, a Jupyter kernel's interrupt or
    shutdown) is for the parent, which then shuts the pool down.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER["ds"] = ds
    _WORKER["settings"] = dict(settings)
    _WORKER["proxy"] = DiffixProxy(ds.data, **settings)
    _WORKER["oracle"] = UniquenessOracle(ds.data[list(ds.attributes)])
    _WORKER["domains"] = ds.domains()
    _WORKER["secret"] = ds.data[ds.secret].to_numpy()


def _worker_chunk(kind: str, positions: Sequence[int], users: Sequence[int], seed: int, k: int,
                  params: Mapping[str, Any]) -> tuple[list[tuple], int, list[tuple[str, float]]]:
    ds, proxy = _WORKER["ds"], _WORKER["proxy"]
    analyst = "differential" if kind == "differential" else "cloning"
    proxy.reset_log()  # counters and log of this chunk only
    rows, rngs = [int(users[pos]) for pos in positions], _user_rngs(seed, positions)
    if kind == "differential":
        out = _differential_users(ds, proxy, _WORKER["oracle"], rows, rngs, k, params)
    else:
        out = _cloning_users(ds, proxy, rows, rngs, k, params, _WORKER["domains"], _WORKER["oracle"],
                             _WORKER["secret"])
    log = list(proxy.log()[["sql", "answer"]].itertuples(index=False, name=None)) if proxy.keep_log else []
    n_q = proxy.n_queries(analyst)
    if _rss_bytes() > WORKER_MEMORY_CAP:  # the cached row sets only save time: start afresh
        _WORKER["proxy"] = None
        _WORKER["proxy"] = DiffixProxy(ds.data, **_WORKER["settings"])
    return out, n_q, log


def _local_users(kind: str, ds: Any, proxy: DiffixProxy, users: np.ndarray, seed: int, k: int,
                 params: Mapping[str, Any], progress: ProgressFn | None) -> list[tuple]:
    """:func:`_run_users` in this process."""
    n = len(users)
    rngs = _user_rngs(seed, n)
    oracle = UniquenessOracle(ds.data[list(ds.attributes)])
    done = [0]

    def finished(_: int) -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], n)

    if kind != "differential":
        return _cloning_users(ds, proxy, [int(r) for r in users], rngs, k, params, ds.domains(), oracle,
                              ds.data[ds.secret].to_numpy(), on_done=finished)
    out: list[tuple] = []
    for lo in range(0, n, SERIAL_GROUP):  # a group's searches in lockstep (each holds its oracle's arrays)
        out += _differential_users(ds, proxy, oracle, [int(r) for r in users[lo:lo + SERIAL_GROUP]],
                                   rngs[lo:lo + SERIAL_GROUP], k, params, on_done=finished)
    return out


def _run_users(kind: str, ds: Any, proxy: DiffixProxy, users: np.ndarray, seed: int, k: int,
               params: Mapping[str, Any], n_jobs: int, progress: ProgressFn | None) -> list[tuple]:
    """Run the per-user attack over ``users``, in this process or in ``n_jobs`` worker processes."""
    n = len(users)
    if n_jobs <= 1 or n < 2 * n_jobs or len(ds.data) < POOL_MIN_RECORDS:
        with _LOCAL:
            return _local_users(kind, ds, proxy, users, seed, k, params, progress)
    from concurrent.futures import as_completed

    # the cloning attack batches a chunk's victims together: fewer, larger chunks
    n_chunks = max(n_jobs, min(40, n // 10)) if kind == "differential" else max(n_jobs, min(4 * n_jobs, n // 25))
    chunks = [c.tolist() for c in np.array_split(np.arange(n), n_chunks)]
    results: dict[int, list[tuple]] = {}
    done = 0
    analyst = "differential" if kind == "differential" else "cloning"
    ex = _worker_pool(ds, proxy.settings(), n_jobs)
    futures = {ex.submit(_worker_chunk, kind, c, users.tolist(), seed, k, dict(params)): i
               for i, c in enumerate(chunks)}
    try:
        for fut in as_completed(futures):
            rows, n_q, log = fut.result()
            results[futures[fut]] = rows
            proxy.record_activity(analyst, n_q, log)
            done += len(rows)
            if progress is not None:
                progress(done, n)
    except BaseException:
        for f in futures:
            f.cancel()
        shutdown_pools(kill=True)
        raise
    return [r for i in range(len(chunks)) for r in results[i]]


def run_differential_experiment(ds: Any, proxy: DiffixProxy, *, n_users: int = 1000,
                                k_star: int | None = None, full: bool = True, seed: int = 0,
                                max_attacked: int | None = None, n_jobs: int = 1,
                                progress: ProgressFn | None = None, exhaustive: bool = False) -> pd.DataFrame:
    """Attack ``n_users`` random users of a data set with the differential attack.

    (All users when the data set has fewer, e.g. Complete_2 with 144.)
    ``full=False``: DifferentialAttack with all attributes, no oracle, no
    subset exploration (Complete_k, [G19] Fig. 2). ``full=True``:
    FullDifferentialAttack knowing a random ``A*`` of size ``k_star`` per user
    (Fig. 3). A user without a guess gets a uniformly random one (the paper's
    rule), recorded separately.

    Parameters
    ----------
    ds : DiffixDataset
    proxy : DiffixProxy
        Serving ``ds.data``; queries are counted under the analyst
        ``"differential"``.
    n_jobs : int
        Worker processes for the full attack (each builds its own copy of the
        proxy, with the same salt, so the answers are the same); their
        queries are added to ``proxy``'s counter (and log).
    exhaustive : bool
        The full attack's search tries every subset of ``A*`` (each size in
        random order, largest first), as the paper's does; otherwise at most
        5000 subsets, a size with more than 2000 sampled (the library's
        defaults, exhaustive up to k* = 12).

    Returns
    -------
    pandas.DataFrame
        One row per user: ``user`` (row index), ``truth``, ``unique`` (on her
        ``A*``), ``attacked`` (the attack made a guess), ``guess`` (the attack's
        or the random one), ``correct``, ``n_queries``, ``subset_size``,
        ``n_samples``.
    """
    if full:  # the bound sweep at the one bound
        (res,) = run_differential_bound_sweep(ds, proxy, [max_attacked], n_users=n_users, k_star=k_star, seed=seed,
                                              n_jobs=n_jobs, progress=progress, exhaustive=exhaustive).values()
        return res
    data = ds.data
    attrs = list(ds.attributes)
    users = _sample_users(len(data), n_users, seed)
    truth = data[ds.secret].to_numpy()[users].astype(int)
    outs = differential_attack(proxy, data.iloc[users], attrs, ds.secret, analyst="differential")
    rows = [(True, o.guess, o.n_queries, len(attrs), o.q.size + o.r.size) for o in outs]
    return _differential_frame(rows, users, truth, stream(seed, "diffix.random_guess"))


def _differential_frame(rows: Sequence[tuple], users: np.ndarray, truth: np.ndarray,
                        guess_rng: np.random.Generator) -> pd.DataFrame:
    """One row per user of a differential experiment (see :func:`run_differential_experiment`).

    Users without a guess of the attack's own get one from ``guess_rng``
    (one draw per user, attacked or not).
    """
    uniq = np.array([r[0] for r in rows], dtype=bool)
    guesses = [r[1] for r in rows]
    attacked = np.array([gs is not None for gs in guesses])
    random_guess = guess_rng.integers(0, 2, size=len(users))
    final = np.where(attacked, [gs if gs is not None else -1 for gs in guesses], random_guess)
    return pd.DataFrame({
        "user": users, "truth": truth, "unique": uniq, "attacked": attacked,
        "guess": final.astype(int), "correct": final == truth, "n_queries": [r[2] for r in rows],
        "subset_size": [r[3] for r in rows], "n_samples": [r[4] for r in rows],
    })


def run_differential_bound_sweep(ds: Any, proxy: DiffixProxy, bounds: Sequence[int | None], *, n_users: int = 1000,
                                 k_star: int | None = None, seed: int = 0, n_jobs: int = 1,
                                 progress: ProgressFn | None = None,
                                 exhaustive: bool = False) -> dict[int | None, pd.DataFrame]:
    """The full differential attack under several bounds ``max_attacked``: ``{bound: results}``.

    The tables of one :func:`run_differential_experiment` per bound (same
    users, seed and ``A*``), from one exploration per victim
    (:func:`~anonlab.attacks.diffix.full_differential_attack_bounds`);
    ``proxy`` counts the queries of that one exploration (those certain to
    be answered 0 counted, not sent). ``exhaustive``: as in
    :func:`run_differential_experiment`.
    """
    bounds = list(dict.fromkeys(None if b is None else _positive_int("max_attacked", b) for b in bounds))
    if not bounds:
        raise ValueError("bounds must hold at least one bound")
    data = ds.data
    attrs = list(ds.attributes)
    users = _sample_users(len(data), n_users, seed)
    truth = data[ds.secret].to_numpy()[users].astype(int)
    k = len(attrs) if k_star is None else _positive_int("k_star", k_star)
    if k > len(attrs):
        raise ValueError(f"k_star must be <= {len(attrs)} (attributes of {ds.name}), got {k}")
    params = {"max_attacked": None, "bounds": tuple(bounds), "exhaustive": bool(exhaustive)}
    rows = _run_users("differential", ds, proxy, users, legacy_seed(seed, "diffix.user_runs"), k, params, _positive_int("n_jobs", n_jobs), progress)
    return {b: _differential_frame([r[i] for r in rows], users, truth, stream(seed, "diffix.random_guess"))
            for i, b in enumerate(bounds)}


def run_complete_k(k: int, *, B: int = 12, n_users: int = 1000, salt: int | str = 0, rounding: bool = True,
                   bucket_suppression: bool = True, seed: int = 0,
                   n_salts: int = 1) -> tuple[pd.DataFrame, dict[str, Any]]:
    """[G19] Fig. 2, empirical: DifferentialAttack on Complete_k through a Diffix proxy.

    Builds Complete_k (:func:`anonlab.data.diffix_datasets.complete_k`), a
    proxy with the given salt and switches, and attacks ``n_users`` random
    users knowing all k attributes, with no oracle and no subset exploration.
    A victim without samples gets a random guess.

    All victims share the static noise of the few conditions ``a_j <> v``
    and ``s = v``, so one salt gives strongly correlated outcomes. With
    ``n_salts > 1`` the same victims are attacked under further salts
    (``salt:1``, ``salt:2``, ... via :meth:`DiffixProxy.with_salt`) and the
    interval comes from the spread between salts.

    Returns
    -------
    results : pandas.DataFrame
        As :func:`run_differential_experiment`, plus a ``salt`` column.
    summary : dict
        :func:`summarize_differential` of all runs pooled, plus
        ``accuracy_by_salt``, ``accuracy_ci`` (mean +- 2 standard errors over
        salts when ``n_salts > 1``, clipped to [0, 1]: an accuracy), ``suppressed`` (fraction of the attack's
        queries that were bucket suppressed, from the owner's audit),
        ``pairs_used`` (fraction of the 2k pairs per victim that entered the
        test) and ``queries_per_user``.
    """
    from anonlab.data.diffix_datasets import complete_k

    n_salts = _positive_int("n_salts", n_salts)
    ds = complete_k(k, B=B, seed=stream(seed, "diffix.complete_k", k))
    base = DiffixProxy(ds.data, table="complete", salt=salt, rounding=rounding,
                       bucket_suppression=bucket_suppression)
    runs, supp = [], []
    for i in range(n_salts):
        proxy = base if i == 0 else base.with_salt(f"{salt}:{i}")
        res = run_differential_experiment(ds, proxy, n_users=n_users, full=False, seed=seed)
        runs.append(res.assign(salt=i))
        supp.append(proxy.suppressed_share("differential"))
    res = pd.concat(runs, ignore_index=True)
    summary = summarize_differential(res)
    by_salt = [float(r["correct"].mean()) for r in runs]
    if n_salts > 1:
        summary["accuracy_ci"] = two_se_interval(by_salt)
    summary.update({"k": k, "n_records": ds.n_records, "n_salts": n_salts, "accuracy_by_salt": by_salt,
                    "n_users": len(runs[0]), "suppressed": float(np.mean(supp)),
                    "pairs_used": float(res["n_samples"].mean() / (2 * k)),
                    "queries_per_user": float(res["n_queries"].mean())})
    return res, summary


def run_cloning_experiment(ds: Any, proxy: DiffixProxy, *, n_users: int = 1000, k_star: int | None = None,
                           variant: str = "full", double_test: bool = False, v: int = 0,
                           n_dummy: int = 10, sigma_star: float = 0.7, max_subsets: int | None = None,
                           seed: int = 0, n_jobs: int = 1,
                           progress: ProgressFn | None = None) -> pd.DataFrame:
    """Attack ``n_users`` random users with the full (or greedy) cloning attack.

    Each user's ``A*`` is a random set of ``k_star`` attributes (all of them
    by default). Ground truth: value-uniqueness of the user on ``A*`` in the
    data (:func:`anonlab.data.diffix_datasets.uniqueness`).

    Parameters
    ----------
    variant : {"full", "greedy"}
        :func:`full_cloning_attack` or :func:`greedy_full_cloning_attack`.
    double_test : bool
        The §5 variant (full only).
    n_jobs : int
        Worker processes (see :func:`run_differential_experiment`); the
        results do not depend on it.

    With the single test and bucket suppression on, the queries certain to be
    answered 0 (their query set holds at most the victim) are counted at the
    proxy but not sent; the results are those of sending them.

    Returns
    -------
    pandas.DataFrame
        One row per user: ``user``, ``truth``, ``value_unique``, ``unique``,
        ``attackable``, ``guess`` (-1 if none), ``correct``, ``n_queries``,
        ``n_subsets``, ``a_prime_size``, ``s2``.
    """
    return _cloning_experiment(ds, proxy, n_users=n_users, k_star=k_star, variant=variant, double_test=double_test,
                               v=v, n_dummy=n_dummy, sigma_star=sigma_star, max_subsets=max_subsets, seed=seed,
                               n_jobs=n_jobs, progress=progress)


def _cloning_experiment(ds: Any, proxy: DiffixProxy, *, n_users: int, k_star: int | None, variant: str,
                        double_test: bool, v: int, n_dummy: int, sigma_star: float, max_subsets: int | None,
                        seed: int, n_jobs: int, progress: ProgressFn | None,
                        sigma_stars: Sequence[float] = ()) -> Any:
    """:func:`run_cloning_experiment`; with ``sigma_stars`` (double test only) ``{σ*: results}`` from one run."""
    if variant not in ("full", "greedy"):
        raise ValueError(f"variant must be 'full' or 'greedy', got {variant!r}")
    if double_test and variant != "full":
        raise ValueError("the double test is a variant of the full cloning attack")
    if v not in (0, 1):
        raise ValueError(f"v must be 0 or 1, got {v!r}")
    n_dummy, sigma_star = _cloning_settings(n_dummy, sigma_star)
    if max_subsets is not None:
        _positive_int("max_subsets", max_subsets)
    data = ds.data
    attrs = list(ds.attributes)
    k = len(attrs) if k_star is None else _positive_int("k_star", k_star)
    if not 2 <= k <= len(attrs):
        raise ValueError(f"k_star must be in [2, {len(attrs)}] for {ds.name}, got {k}")
    users = _sample_users(len(data), n_users, seed)
    truth = data[ds.secret].to_numpy()[users].astype(int)
    params = {"variant": variant, "double_test": double_test, "v": v, "n_dummy": n_dummy,
              "sigma_star": sigma_star, "max_subsets": max_subsets,
              "sigma_stars": tuple(_cloning_settings(n_dummy, x)[1] for x in sigma_stars)}
    rows = _run_users("cloning", ds, proxy, users, legacy_seed(seed, "diffix.user_runs"), k, params, _positive_int("n_jobs", n_jobs),
                      progress)
    if params.get("sigma_stars"):  # run_cloning_sigma_sweep's double test: one table per σ*
        return {s: _cloning_frame([r[i] for r in rows], users, truth) for i, s in enumerate(params["sigma_stars"])}
    return _cloning_frame(rows, users, truth)


def _cloning_frame(rows: Sequence[tuple], users: np.ndarray, truth: np.ndarray) -> pd.DataFrame:
    """One row per user of a cloning experiment (see :func:`run_cloning_experiment`)."""
    df = pd.DataFrame(list(rows), columns=["value_unique", "unique", "attackable", "guess", "n_queries",
                                           "n_subsets", "a_prime_size", "s2"])
    df.insert(0, "truth", truth)
    df.insert(0, "user", users)
    df["correct"] = df["attackable"] & (df["guess"] == df["truth"])
    return df


def rethreshold_cloning(res: pd.DataFrame, sigma_star: float, v: int = 0) -> pd.DataFrame:
    """A single-test cloning experiment's results under another cut-off σ*.

    In the single test σ* only thresholds the final sample variance ``S^2``
    of the attacked subset (:func:`~anonlab.attacks.diffix.cloning_inference`):
    which subsets are explored, the queries and ``S^2`` do not depend on it.
    So ``rethreshold_cloning(run_cloning_experiment(..., sigma_star=a), b)``
    equals ``run_cloning_experiment(..., sigma_star=b)``. Not valid for the
    double test, whose exploration depends on σ*.

    >>> res = pd.DataFrame({"user": [0, 1, 2], "truth": [1, 0, 0], "value_unique": True, "unique": True,
    ...                     "attackable": [True, True, False], "guess": [1, 1, -1], "n_queries": 21,
    ...                     "n_subsets": 1, "a_prime_size": 2, "s2": [0.5, 0.9, float("nan")],
    ...                     "correct": [True, False, False]})
    >>> rethreshold_cloning(res, 1.0)[["guess", "correct"]].values.tolist()
    [[1, True], [1, False], [-1, False]]
    >>> rethreshold_cloning(res, 0.3)["guess"].tolist()
    [0, 0, -1]
    """
    _, sigma_star = _cloning_settings(2, sigma_star)
    if v not in (0, 1):
        raise ValueError(f"v must be 0 or 1, got {v!r}")
    out = res.copy()
    att = out["attackable"].to_numpy(dtype=bool)
    guess = np.where(out["s2"].to_numpy() <= sigma_star, 1 - int(v), int(v))
    out["guess"] = np.where(att, guess, -1).astype(res["guess"].dtype)
    out["correct"] = out["attackable"] & (out["guess"] == out["truth"])
    return out


def run_cloning_sigma_sweep(ds: Any, proxy: DiffixProxy, sigma_stars: Sequence[float], *,
                            double_test: bool = False, **kwargs: Any) -> dict[float, pd.DataFrame]:
    """One full cloning experiment at several cut-offs σ*: ``{σ*: results}``, the tables of one run per σ*.

    Keyword arguments as :func:`run_cloning_experiment` (without
    ``sigma_star``). The single test runs once and re-thresholds its
    variances (:func:`rethreshold_cloning`). The double test explores each
    victim's subsets once, until every σ* has stopped
    (:func:`~anonlab.attacks.diffix.cloning.double_test_sigma_sweep`). Either
    way ``proxy`` counts the queries of the one exploration.
    """
    if "sigma_star" in kwargs or kwargs.get("variant", "full") != "full":
        raise ValueError("the σ* sweep is of the full cloning attack; give sigma_stars, not sigma_star")
    sigmas = list(dict.fromkeys(_cloning_settings(2, s)[1] for s in sigma_stars))
    if not sigmas:
        raise ValueError("sigma_stars must hold at least one cut-off")
    if double_test:
        defaults = {name: p.default for name, p in inspect.signature(run_cloning_experiment).parameters.items()
                    if p.kind is inspect.Parameter.KEYWORD_ONLY}
        settings = {**defaults, **kwargs, "double_test": True, "sigma_star": sigmas[0]}
        return _cloning_experiment(ds, proxy, sigma_stars=sigmas, **settings)
    res = run_cloning_experiment(ds, proxy, sigma_star=sigmas[0], **kwargs)
    v = kwargs.get("v", 0)
    return {s: (res if i == 0 else rethreshold_cloning(res, s, v)) for i, s in enumerate(sigmas)}


# ---------------------------------------------------------------------------
# Eq. 6 measured on the proxy
# ---------------------------------------------------------------------------


def differential_sample_moments(k: int, *, B: int = 12, n_salts: int = 40, n_users: int = 100,
                                salt: int = 0, seed: int = 0) -> pd.DataFrame:
    """Mean and variance of the differential samples ``q_j`` by secret (Eq. 6), without rounding or suppression.

    All k pairs of every victim count: the attack itself keeps only pairs
    with both outputs > 0, which truncates the noise and biases the samples.

    Victims sharing a value share the static noise of ``a_j <> x_j``, so the
    samples are drawn under ``n_salts`` salts (independent noise, same data)
    from Complete_k, ``n_users`` victims each.

    Returns
    -------
    pandas.DataFrame
        Rows ``x(s) = 1`` and ``x(s) = 0``: ``n``, ``mean``, ``var``,
        ``var_se`` and the values Eq. 6 predicts.
    """
    from anonlab.data.diffix_datasets import complete_k

    ds = complete_k(k, B=B, seed=stream(seed, "diffix.complete_k", k))
    base = DiffixProxy(ds.data, table="complete", salt=salt, rounding=False, bucket_suppression=False,
                       keep_log=False)
    rng = stream(seed, "diffix.sample_moments_users")
    q = {0: [], 1: []}
    for i in range(n_salts):
        proxy = base.with_salt(f"{salt}:{i}")
        users = ds.data.iloc[np.sort(rng.choice(len(ds.data), size=min(n_users, len(ds.data)), replace=False))]
        for o, sv in zip(differential_attack(proxy, users, ds.attributes, ds.secret), users[ds.secret]):
            q[int(sv)].append(o.all_pairs[0])  # every s = 0 pair: the attack's > 0 filter would bias them
    rows = []
    for sv, mean, var in ((1, 0.0, 2.0), (0, 1.0, 2.0 * k + 2.0)):
        x = np.concatenate(q[sv])
        rows.append({"secret": sv, "n": x.size, "mean": float(x.mean()), "var": float(x.var(ddof=1)),
                     "var_se": float(x.var(ddof=1) * math.sqrt(2 / (x.size - 1))),
                     "eq6_mean": mean, "eq6_var": var})
    return pd.DataFrame(rows)


def filtered_sample_moments(*, B: int = 12, n_salts: int = 40, n_users: int = 60, salt: int = 0,
                            seed: int = 0, k: int = 3) -> pd.DataFrame:
    """The ``s = 0`` samples of the differential attack on Complete_k: every pair against those it keeps.

    The attack keeps a pair only when both answers are positive (a zero may
    be bucket suppression, [G19] §3.1). Without rounding or suppression,
    Eq. 6 says ``q_j ~ N(1, 2k + 2)`` when the secret is 0 and ``N(0, 2)``
    when it is 1; the filter truncates the noise. ``n_users`` victims of
    Complete_k under each of ``n_salts`` salts (``salt:filter:i``).

    Returns
    -------
    pandas.DataFrame
        One row per secret and set of pairs (``all``, ``kept (> 0)``): ``n``,
        ``mean``, ``var`` and Eq. 6's mean and variance.
    """
    from anonlab.data.diffix_datasets import complete_k

    ds = complete_k(k, B=B, seed=stream(seed, "diffix.complete_k", k))
    base = DiffixProxy(ds.data, table="complete", salt=salt, rounding=False, bucket_suppression=False,
                       keep_log=False)
    g = stream(seed, "diffix.filtered_moments_users")
    kept: dict[int, list[np.ndarray]] = {0: [], 1: []}
    every: dict[int, list[np.ndarray]] = {0: [], 1: []}
    for i in range(n_salts):
        pr = base.with_salt(f"{salt}:filter:{i}")
        users = ds.data.iloc[np.sort(g.choice(len(ds.data), n_users, replace=False))]
        for o, sv in zip(differential_attack(pr, users, ds.attributes, ds.secret), users[ds.secret]):
            every[int(sv)].append(o.all_pairs[0])
            kept[int(sv)].append(o.q)
    eq6 = differential_distributions(k)
    return pd.DataFrame([{"secret": sv, "pairs": which, "n": np.concatenate(d[sv]).size,
                          "mean": np.concatenate(d[sv]).mean(), "var": np.concatenate(d[sv]).var(ddof=1),
                          "Eq. 6 mean": [eq6.mu1, eq6.mu0][sv], "Eq. 6 var": [eq6.var1, eq6.var0][sv]}
                         for sv in (1, 0) for which, d in (("all", every), ("kept (> 0)", kept))])


def _rate(out: dict[str, Any], name: str, succ: int, tot: int) -> None:
    """``out[name]`` = succ / tot (NaN when tot = 0) and ``out[name + "_ci"]`` its Wilson interval."""
    out[name] = succ / tot if tot else float("nan")
    lo, hi = wilson_interval(succ, tot)
    out[name + "_ci"] = (float(lo), float(hi))


def summarize_differential(res: pd.DataFrame) -> dict[str, Any]:
    """The Fig. 2 / Fig. 3 quantities of one differential experiment, with Wilson intervals.

    ``accuracy``: correct guesses (random ones included) over all users;
    ``accuracy_unique``: the same over users unique on their ``A*`` (the
    paper's "correctly inferred / unique"); ``unique``: fraction of unique
    users; ``attacked``: fraction with a guess of the attack's own;
    ``precision_attacked``: accuracy of those guesses.
    """


    n = len(res)
    out: dict[str, Any] = {"n_users": n}
    rate = functools.partial(_rate, out)

    rate("accuracy", int(res["correct"].sum()), n)
    u = res[res["unique"]]
    rate("accuracy_unique", int(u["correct"].sum()), len(u))
    rate("unique", int(res["unique"].sum()), n)
    rate("attacked", int(res["attacked"].sum()), n)
    a = res[res["attacked"]]
    rate("precision_attacked", int(a["correct"].sum()), len(a))
    out["correct_fraction"] = float(res["correct"].mean())
    out["median_queries"] = float(res["n_queries"].median())
    out["max_queries"] = int(res["n_queries"].max())
    return out


def summarize_cloning(res: pd.DataFrame) -> dict[str, Any]:
    """The Table 1 / Fig. 4 / Table 2 quantities of one cloning experiment, with Wilson intervals.

    ``value_unique``: fraction of users value-unique on their ``A*``;
    ``attackable``: fraction predicted attackable (all users);
    ``attackable_of_vu``: the same among value-unique users (Table 1's fourth
    column); ``accuracy_pa``: correct among predicted attackable;
    ``accuracy_all``: correct among all users (NonAttackable counts as not
    inferred); query statistics per user.
    """


    n = len(res)
    out: dict[str, Any] = {"n_users": n}
    rate = functools.partial(_rate, out)

    rate("value_unique", int(res["value_unique"].sum()), n)
    rate("unique", int(res["unique"].sum()), n)
    rate("attackable", int(res["attackable"].sum()), n)
    vu = res[res["value_unique"]]
    rate("attackable_of_vu", int(vu["attackable"].sum()), len(vu))
    pa = res[res["attackable"]]
    rate("accuracy_pa", int(pa["correct"].sum()), len(pa))
    rate("accuracy_all", int(res["correct"].sum()), n)
    out["median_queries"] = float(res["n_queries"].median())
    out["max_queries"] = int(res["n_queries"].max())
    out["mean_queries"] = float(res["n_queries"].mean())
    return out




QUERY_STATISTICS = {"median": lambda a: np.median(a, axis=-1), "max": lambda a: np.max(a, axis=-1)}


def query_count_interval(queries: Sequence[float], statistic: str = "median", *,
                         per: Sequence[float] | None = None, seed: np.random.Generator | int | None = 0,
                         n_boot: int = 2000, confidence: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of a statistic of the per-user query counts, or of a ratio of two.

    ``statistic`` is ``"median"`` or ``"max"`` of ``queries`` (one count per
    victim); with ``per`` (another attack's counts, e.g. the greedy attack's)
    the interval is that of ``stat(queries) / stat(per)``, each sample
    resampled with replacement on its own, ``n_boot`` times. For the maximum
    the bootstrap gives the spread of the largest of n draws: its lower end
    is a few order statistics below the sample's maximum.

    >>> query_count_interval([5, 5, 5], "max")
    (5.0, 5.0)
    >>> lo, hi = query_count_interval(list(range(1, 101)), seed=0)
    >>> 40 <= lo < 50.5 < hi <= 61
    True
    """
    if statistic not in QUERY_STATISTICS:
        raise ValueError(f"statistic must be one of {sorted(QUERY_STATISTICS)}, got {statistic!r}")
    stat = QUERY_STATISTICS[statistic]
    g = check_random_state(seed)

    def draws(x: Sequence[float]) -> np.ndarray:
        a = np.asarray(x, dtype=float)
        if a.size == 0:
            raise ValueError("query counts must not be empty")
        return stat(a[g.integers(0, a.size, size=(n_boot, a.size))])

    return percentile_interval(draws(queries) if per is None else draws(queries) / draws(per), confidence)


def differential_result(res: pd.DataFrame, name: str = "differential") -> AttackResult:
    """A differential experiment as an :class:`~anonlab.measures.AttackResult`.

    Targets are the attacked users (row indices); the attack predicts for the
    users it made a guess of its own for (``attacked``; the random guesses of
    the others are abstentions). Resources: the queries sent.

    >>> res = pd.DataFrame({"user": [3, 5], "truth": [0, 1], "attacked": [True, False],
    ...                     "guess": [0, 0], "n_queries": [8, 4]})
    >>> r = differential_result(res)
    >>> r.predicted.tolist(), r.is_correct().tolist(), r.resources["queries"]
    ([True, False], [True, False], 12)
    """
    return AttackResult(name, res["user"].to_numpy(), res["truth"].to_numpy().astype(int),
                        res["attacked"].to_numpy(dtype=bool), res["guess"].to_numpy().astype(int),
                        resources={"queries": int(res["n_queries"].sum())})


def cloning_result(res: pd.DataFrame, name: str = "cloning") -> AttackResult:
    """A cloning experiment as an :class:`~anonlab.measures.AttackResult`.

    The attack predicts for the users it deems attackable; NonAttackable
    users (``guess = -1``) are abstentions. Resources: the queries sent.

    >>> res = pd.DataFrame({"user": [1, 2, 4], "truth": [0, 1, 1], "attackable": [True, True, False],
    ...                     "guess": [0, 0, -1], "n_queries": [21, 21, 400]})
    >>> r = cloning_result(res)
    >>> r.is_correct().tolist(), r.resources["queries"]
    ([True, False, False], 442)
    """
    return AttackResult(name, res["user"].to_numpy(), res["truth"].to_numpy().astype(int),
                        res["attackable"].to_numpy(dtype=bool), res["guess"].to_numpy().astype(int),
                        resources={"queries": int(res["n_queries"].sum())})


# ---------------------------------------------------------------------------
# Whom the attacks cover (the yardstick itself is anonlab.measures.binary_yardstick)
# ---------------------------------------------------------------------------


#: A p-value below this for every attack's binomial test is strong evidence (:func:`coverage_bias_sentence`).
STRONG_EVIDENCE_P = 0.01


def coverage_bias_text(yard: pd.DataFrame, ds: Any | None, more: str = "more users") -> str:
    """:func:`coverage_bias_sentence`'s text."""
    return coverage_bias_sentence(yard, ds, more).text


def coverage_bias_sentence(yard: pd.DataFrame, ds: Any | None, more: str = "more users",
                           key: str = "census_bias_sentence") -> Any:
    """Does whom the attacks on ``ds`` (all but greedy ones) choose to attack depend on the secret?

    For each such attack with coverage: of the ``n`` users it covers, ``k``
    have the majority secret; a one-sided binomial test against the data
    set's share of the majority value (strong evidence when every p is below
    :data:`STRONG_EVIDENCE_P`). ``more`` names what would settle weak
    evidence. A recorded sentence (:mod:`anonbook.chapters.sentences`): the
    largest p against :data:`STRONG_EVIDENCE_P`, or an empty listing when
    ``ds`` was not run.
    """
    from scipy import stats

    from anonbook.chapters.sentences import compare, listing

    biased = [(a, r) for (d, a), r in yard.iterrows()
              if ds is not None and d == ds.name and "greedy" not in a and r["coverage"] > 0]
    if not biased:
        return listing(key, [], some="{items}", none="(CENSUS was not run with these parameters.)")
    prev0 = float((ds.data[ds.secret] == ds.majority).mean())
    parts, p_vals, all_major = [], [], []
    for a, r in biased:
        n_cov = int(round(r["coverage"] * r["targets"]))
        k_maj = int(round(r["baseline_precision"] * n_cov))
        p_vals.append(stats.binomtest(k_maj, n_cov, prev0, alternative="greater").pvalue)
        all_major.append(k_maj == n_cov)
        who = a.replace("cloning, full", "the full cloning attack").replace("differential, full",
                                                                            "the full differential attack")
        parts.append(f"{k_maj} of the {n_cov} users {who} covers (binomial test against the base rate: "
                     f"p = {p_vals[-1]:.2g})")
    text = f"On {ds.name.upper()} {prev0:.1%} of the users have the majority secret; so do " + " and ".join(parts) + ". "
    tail = (" Where every covered user has the majority secret, guessing that value is never wrong there, "
            "so an accuracy below 100% on those users is worse than knowing the base rate." if any(all_major) else "")
    return compare(key, max(p_vals), STRONG_EVIDENCE_P, {
        "below": text + "That is strong evidence that whom these attacks choose to attack depends on the secret."
                 + tail,
        "at or above": text + "At this number of users that is only weak evidence that whom these attacks choose "
                       f"to attack depends on the secret ({more} would settle it)." + tail,
    })


# ---------------------------------------------------------------------------
# The book's experiments, each computed once through a chapter run's result cache
# ---------------------------------------------------------------------------


class Experiments:
    """The book's Diffix experiments at one setting of the proxy, each through a result cache.

    ``run`` is a chapter run (:class:`anonbook.chapters.kit.ChapterRun`, or
    anything with its ``cached(step, compute, **key)`` and
    ``cached_each(step, keys, compute_missing)``); every key holds the
    proxy's settings and the seed besides the experiment's own inputs.

    One proxy per data set object serves all experiments of the process:
    building one costs up to a second (CENSUS), and its cached row sets
    speed up the next experiment on it. Answers do not depend on what a
    proxy has cached. The worker pools are kept the same way
    (:func:`shutdown_pools`).
    """

    def __init__(self, run: Any, *, salt: int, rounding: bool = True, bucket_suppression: bool = True, seed: int = 0,
                 n_jobs: int = 1, n_dummy: int = 10, sigma_star: float = 0.7, target_value: int = 0) -> None:
        self.run = run
        self.salt, self.rounding, self.bucket_suppression, self.seed = salt, rounding, bucket_suppression, seed
        # n_jobs = 0: the cores the build gives this run (a flexible job, anonbook.memory.granted_cores)
        if not n_jobs:
            n_jobs = granted_cores()
        self.n_jobs, self.n_dummy, self.sigma_star, self.target_value = n_jobs, n_dummy, sigma_star, target_value
        self._proxies: dict[int, tuple[Any, DiffixProxy]] = {}
        self._lock = threading.Lock()

    @classmethod
    def of(cls, run: Any) -> "Experiments":
        """The experiments of a chapter run, set from the parameters it declares."""
        names = [n for n in inspect.signature(cls.__init__).parameters if n not in ("self", "run")]
        return cls(run, **{n: run.p[n] for n in names if n in run.p})

    @property
    def proxy_settings(self) -> dict[str, Any]:
        """Salt, rounding and suppression: the keyword arguments of every proxy."""
        return dict(salt=self.salt, rounding=self.rounding, bucket_suppression=self.bucket_suppression)

    def _key(self, **key: Any) -> dict[str, Any]:
        return {**self.proxy_settings, "seed": self.seed, **key}

    def _jobs(self, kept: bool, n: int) -> int:
        """Worker processes for a run on ``n`` victims: none for a small one-off variant of a data set."""
        return self.n_jobs if kept or n > VARIANT_MAX_SERIAL_USERS else 1

    def proxy(self, ds: Any, keep: bool = True) -> DiffixProxy:
        """The proxy over a data set with these settings, with query counters of its own.

        One proxy is kept per data set; each experiment counts its queries on
        a copy (:meth:`~anonlab.mechanisms.diffix.DiffixProxy.with_own_counters`).
        ``keep=False`` (a one-off variant of a data set): a new proxy, not kept.
        """
        if not keep:
            return DiffixProxy(ds.data, table=ds.name, keep_log=False, **self.proxy_settings)
        with self._lock:
            hit = self._proxies.get(id(ds))
            if hit is None or hit[0] is not ds:
                hit = self._proxies[id(ds)] = (ds, DiffixProxy(ds.data, table=ds.name, keep_log=False,
                                                               **self.proxy_settings))
        return hit[1].with_own_counters()

    def together(self, calls: Mapping[K, Callable[[], T]]) -> dict[K, T]:
        """Run several experiments at once: ``{key: calls[key]()}``, each result as the call alone gives it.

        The experiments on worker pools wait for their workers in threads of
        this process while those that run in this process run one at a time,
        so both cores stay busy through the small runs and the ends of the
        pooled ones. Every answer is a function of its query alone and every
        victim draws from her own generator, so the order does not matter.
        """
        if self.n_jobs <= 1 or len(calls) < 2:
            return {key: call() for key, call in calls.items()}
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(len(calls)) as ex:
            futures = {key: ex.submit(call) for key, call in calls.items()}
            return {key: f.result() for key, f in futures.items()}

    def fig3_many(self, specs: Iterable[tuple]) -> dict[tuple[str, int], tuple[pd.DataFrame, int]]:
        """:meth:`fig3` of each ``(data set, k*, users, bound[, {option: value}])`` together.

        Returns ``{(data set name, k*): result}``.
        """
        return self.together({(spec[0].name, spec[1]): functools.partial(self.fig3, *spec[:4],
                                                                          **(spec[4] if len(spec) > 4 else {}))
                              for spec in specs})

    def cloning_many(self, specs: Mapping[K, tuple]) -> dict[K, tuple[pd.DataFrame, int]]:
        """:meth:`cloning` of each ``{key: (data set, k*, users, cap[, {option: value}])}`` together."""
        return self.together({key: functools.partial(self.cloning, *spec[:4], **(spec[4] if len(spec) > 4 else {}))
                              for key, spec in specs.items()})

    def noise(self, raw: DiffixProxy, n: int) -> np.ndarray:
        """Noise of ``n`` distinct 3-condition answers (:func:`~anonlab.mechanisms.diffix.noise_sample`)."""
        from anonlab.mechanisms.diffix import noise_sample

        return self.run.cached("noise3", lambda: noise_sample(raw, 3, n, seed=self.seed), **self._key(n=n))

    def suppression(self) -> pd.DataFrame:
        """Observed suppression by query-set size (400 sets per size)."""
        from anonlab.mechanisms.diffix import suppression_curve

        return self.run.cached("suppression", lambda: suppression_curve([1, 2, 3, 4, 5, 6, 8], 400, salt=self.salt),
                               **self._key())

    def moments(self, k: int, B: int, n_salts: int) -> pd.DataFrame:
        """Eq. 6 measured on Complete_k (:func:`differential_sample_moments`)."""
        return self.run.cached("moments", lambda: differential_sample_moments(
            k, B=B, n_salts=n_salts, n_users=100, salt=self.salt, seed=self.seed), **self._key(k=k, B=B, n_salts=n_salts))

    def curves(self, k_values: Sequence[int], n_monte_carlo: int, n_simulations: int, B: int) -> pd.DataFrame:
        """Fig. 2's theoretical curves for k = 1..6 and ``k_values`` (:func:`~anonlab.attacks.diffix.accuracy_curves`)."""
        from anonlab.attacks.diffix.theory import accuracy_curves

        ks = sorted(set(range(1, 7)) | set(k_values))
        return self.run.cached("acc_curves", lambda: accuracy_curves(
            ks, n_monte_carlo=n_monte_carlo, n_simulations=n_simulations, B=B, seed=self.seed),
            **self._key(n_mc=n_monte_carlo, n_sim=n_simulations, B=B))

    def complete(self, ks: Sequence[int], B: int, n_users: int,
                 n_salts: int) -> dict[int, tuple[pd.DataFrame, dict[str, Any]]]:
        """The differential attack on Complete_k for each k of ``ks`` under ``n_salts`` salts (:func:`run_complete_k`).

        With workers, the k run in worker processes side by side, the largest first.
        """
        def compute(k: int) -> tuple[pd.DataFrame, dict[str, Any]]:
            kw = dict(B=B, n_users=n_users, seed=self.seed, n_salts=n_salts, **self.proxy_settings)
            res, summary = (_task_pool(self.n_jobs).submit(run_complete_k, k, **kw).result() if self.n_jobs > 1
                            else run_complete_k(k, **kw))
            print(f"Complete_{k}: {summary['n_users']} users attacked under {n_salts} salt(s)", file=sys.stderr)
            return res, summary

        got = self.together({k: functools.partial(self.run.cached, "complete_k", functools.partial(compute, k),
                                                  **self._key(k=k, B=B, n=n_users, salts=n_salts))
                             for k in sorted(ks, reverse=True)})  # the largest (slowest) first
        return {k: got[k] for k in ks}

    def shared_sets(self, ds: Any, n: int) -> pd.DataFrame:
        """Shared query sets in the tests FullDifferentialAttack decides with (:func:`full_attack_shared_sets`).

        ``n`` random victims of ``ds`` (stream ``seed``), each knowing every
        attribute of it, through a logging copy of the kept proxy.
        """
        from anonlab.attacks.diffix.differential import full_attack_shared_sets

        def compute() -> pd.DataFrame:
            proxy = self.proxy(ds)
            proxy.keep_log = True  # a copy with counters and a log of its own
            users = _sample_users(len(ds.data), n, self.seed)
            oracle = UniquenessOracle(ds.data[list(ds.attributes)])
            return full_attack_shared_sets(proxy, ds.data.iloc[users], list(ds.attributes), ds.secret, oracle,
                                           seed=self.seed)

        return self.run.cached("shared_sets", compute, **self._key(ds=ds.name, n=n))

    def fig3(self, ds: Any, k: int, n: int, budget: int | None, secret: str | None = None,
             exhaustive: bool = False) -> tuple[pd.DataFrame, int]:
        """The full differential attack on ``n`` users knowing ``k`` attributes; (results, queries).

        ``secret`` (CENSUS only): one of the readings of
        :data:`~anonlab.data.diffix_datasets.CENSUS_SECRETS`; ``None`` is the data set's own.
        ``exhaustive``: the search tries every subset of A* (:func:`run_differential_experiment`).
        """
        from anonlab.data.diffix_datasets import CENSUS_SECRETS, census_secret_variant

        secret = CENSUS_SECRETS[0] if secret is None else secret

        def compute() -> tuple[pd.DataFrame, int]:
            data = ds if secret == CENSUS_SECRETS[0] else census_secret_variant(ds, secret)
            proxy = self.proxy(data, keep=data is ds)
            try:
                res = run_differential_experiment(data, proxy, n_users=n, k_star=k, seed=self.seed,
                                                  max_attacked=budget, n_jobs=self._jobs(data is ds, n),
                                                  progress=progress_printer(f"{ds.name} k*={k}", 250),
                                                  exhaustive=exhaustive)
            finally:
                if data is not ds:  # a one-off variant: free its workers for the pools the next runs reuse
                    shutdown_pools(ds=data)
            return res, proxy.n_queries()

        search = {"exhaustive": True} if exhaustive else {}  # the keys of the runs before it was a choice stay
        return self.run.cached("fig3", compute, **self._key(data=ds.name, k=k, n=n, max_attacked=budget, secret=secret,
                                                            **search))

    def fig3_bounds(self, ds: Any, k: int, n: int,
                    bounds: Sequence[int | None]) -> dict[int | None, tuple[pd.DataFrame, int]]:
        """:meth:`fig3` under each bound of ``bounds`` (the data set's own secret): ``{bound: (results, queries)}``.

        The bounds not in the result cache come from one exploration per
        victim (:func:`run_differential_bound_sweep`: the same tables as one
        run per bound), each cached under :meth:`fig3`'s key with the queries
        a run of its own sends (the sum over victims).
        """
        from anonlab.data.diffix_datasets import CENSUS_SECRETS

        keys = {b: self._key(data=ds.name, k=k, n=n, max_attacked=b, secret=CENSUS_SECRETS[0]) for b in bounds}
        return self.run.cached_each("fig3", keys, lambda todo: _with_queries(run_differential_bound_sweep(
            ds, self.proxy(ds), todo, n_users=n, k_star=k, seed=self.seed, n_jobs=self.n_jobs,
            progress=progress_printer(f"{ds.name} k*={k} bounds", 250))))

    def cloning(self, ds: Any, k: int, n: int, cap: int | None, variant: str = "full", double: bool = False,
                shuffled: bool = False, sigma: float | None = None) -> tuple[pd.DataFrame, int]:
        """One cloning experiment (:func:`run_cloning_experiment`); ``sigma`` overrides σ*. (results, queries)."""
        from anonlab.data.diffix_datasets import shuffle_secret

        s_star = self.sigma_star if sigma is None else sigma

        def compute() -> tuple[pd.DataFrame, int]:
            data = shuffle_secret(ds, seed=self.seed) if shuffled else ds
            proxy = self.proxy(data, keep=data is ds)  # a shuffled copy keeps the name
            label = f"{ds.name} {variant}{' double' if double else ''} k*={k}"
            try:
                res = run_cloning_experiment(data, proxy, n_users=n, k_star=k, variant=variant, double_test=double,
                                             v=self.target_value, n_dummy=self.n_dummy, max_subsets=cap,
                                             sigma_star=s_star, seed=self.seed, n_jobs=self._jobs(data is ds, n),
                                             progress=progress_printer(label, 250))
            finally:
                if data is not ds:  # a one-off variant: free its workers for the pools the next runs reuse
                    shutdown_pools(ds=data)
            return res, proxy.n_queries()

        return self.run.cached("cloning", compute, **self._cloning_key(ds, k, n, cap, variant, double, shuffled, s_star))

    def _cloning_key(self, ds: Any, k: int, n: int, cap: int | None, variant: str, double: bool, shuffled: bool,
                     sigma: float) -> dict[str, Any]:
        return self._key(data=ds.name, k=k, n=n, cap=cap, variant=variant, double=double, shuffled=shuffled,
                         n_dummy=self.n_dummy, sigma_star=sigma, v=self.target_value)

    def sigma_sweep(self, ds: Any, k: int, n: int, cap: int | None, sigmas: Sequence[float],
                    double: bool = False) -> dict[float, pd.DataFrame]:
        """The full cloning attack at each σ* of ``sigmas``: ``{σ*: results}``, as :meth:`cloning` gives them.

        The σ* not in the result cache come from one exploration
        (:func:`run_cloning_sigma_sweep`: the same tables as one run per σ*),
        each cached under :meth:`cloning`'s key with the queries a run of its
        own sends (the sum over victims).
        """
        keys = {s: self._cloning_key(ds, k, n, cap, "full", double, False, s) for s in sigmas}
        label = f"{ds.name} σ* sweep{' double' if double else ''} k*={k}"
        runs = self.run.cached_each("cloning", keys, lambda todo: _with_queries(run_cloning_sigma_sweep(
            ds, self.proxy(ds), todo, double_test=double, n_users=n, k_star=k, v=self.target_value,
            n_dummy=self.n_dummy, max_subsets=cap, seed=self.seed, n_jobs=self.n_jobs,
            progress=progress_printer(label, 250))))
        return {s: res for s, (res, _) in runs.items()}


def _with_queries(results: Mapping[Any, pd.DataFrame]) -> dict[Any, tuple[pd.DataFrame, int]]:
    """Each setting's results with the queries a run of its own sends (the sum over its victims)."""
    return {s: (res, int(res["n_queries"].sum())) for s, res in results.items()}

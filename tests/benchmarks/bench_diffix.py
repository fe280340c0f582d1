"""Benchmark of the Diffix proxy and the cloning attack (not collected by pytest).

Run: ``.venv/bin/python tests/benchmarks/bench_diffix.py [--users N] [--jobs J]``

The reference is what a competent user writes without the library's
caching: one DuckDB statement per query (the proxy's ``mode="sql"``,
``count(*)`` and ``bit_xor`` of the user hashes over the rows that satisfy
the conditions). Every figure is queries per second, or seconds of a task,
with the ratio ``reference time / library time`` (above 1: the library is
faster). Measured on ADULT (30,162 records):

1. the proxy in the default ``mode="bitmaps"`` (DuckDB evaluates each
   condition once; row sets as bitmaps), first pass and with a new salt;
   then its fast paths (binding a statement's rows in one pass, set keys
   per statement, the last candidate words ANDed as Python integers)
   against the plain algorithms they replaced, kept as ``bind_reference``,
   ``_core`` and ``intersect_reference`` (``tests/reference_twins.py``), on the cloning and the
   differential attacks' statements, row sets already cached (answers
   byte-identical);
2. the full cloning attack over ``--users`` victims, one batch per round of
   all victims' pending queries (the harness) against the reference proxy
   answering the same attack one victim at a time (only on a subset: it is
   slow), and against the library's own one-victim-at-a-time driver;
3. the dummy draw on CENSUS's largest domain (``instance_weight``, about
   100,000 values): the library's draw against what a NumPy user writes,
   ``rng.choice(domain[domain != value], n, replace=False)`` (the same
   distribution, other draws);
4. the cloning attack over ``--users`` victims with ``--jobs`` worker
   processes, twice: the second run reuses the kept worker pool.

A plain-Python Diffix (a loop over the records per query, written here from
the paper's §2 independently of the library) checks the answers of both
modes on a few queries; it is not a fair baseline and is not timed.
Figures go to ``_build/benchmarks/diffix.json`` with the load average.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from anonlab import paths

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout, for tests.reference_twins
from tests import reference_twins as twins  # noqa: E402
from anonlab.attacks import diffix as atk
from anonbook import diffix_harness as harness
from anonlab.attacks.diffix._common import _template
from anonlab.attacks.diffix.cloning import _full_cloning_steps, drive, drive_many
from anonlab.data import diffix_datasets as dd
from anonlab.mechanisms.diffix import DiffixProxy

MASK = (1 << 64) - 1


def dummy_values_reference(value, domain: np.ndarray, n: int, rng: np.random.Generator) -> list:
    """What a NumPy user writes for |Delta| other values of the domain: mask the value out, choose without replacement.

    (The former reference was the project's own former draw, a permutation
    of the whole domain; nobody else would write that.)
    """
    return rng.choice(domain[domain != value], size=n, replace=False).tolist()


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def ref_normal(seed: int) -> float:
    """SplitMix64's first two outputs of ``seed``, Box-Muller."""
    o1 = _mix((seed + 0x9E3779B97F4A7C15) & MASK)
    o2 = _mix((seed + 2 * 0x9E3779B97F4A7C15) & MASK)
    u1 = 1.0 - (o1 >> 11) * 2.0**-53
    u2 = (o2 >> 11) * 2.0**-53
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def ref_hash(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


class ReferenceDiffix:
    """Gadotti et al. 2019 §2, the plain way: a Python loop over the records for every query."""

    OPS = {"=": lambda a, b: a == b, "<>": lambda a, b: a != b, "<": lambda a, b: a < b,
           "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}

    def __init__(self, records: list[dict], salt: int) -> None:
        self.records = records
        self.salt = salt
        self.uid_hash = [_mix((i + 0x9E3779B97F4A7C15) & MASK) for i in range(len(records))]

    def answer(self, conditions: list[tuple[str, str, object]]) -> float:
        count, xor = 0, 0
        for i, r in enumerate(self.records):
            if all(self.OPS[op](r[c], v) for c, op, v in conditions):
                count += 1
                xor ^= self.uid_hash[i]
        noisy = float(count)
        seen = set()
        for c, op, v in conditions:
            text = f"{c} {op} " + (f"'{v}'" if isinstance(v, str) else str(v))
            if text in seen:
                continue
            seen.add(text)
            seed = ref_hash(text) ^ self.salt
            noisy += ref_normal(seed) + ref_normal(seed ^ xor)  # static + dynamic
        return noisy  # no suppression, no rounding: compared exactly


def workload(ds, n_victims: int, rng: np.random.Generator) -> list[tuple[str, list[tuple]]]:
    """The queries of one round of the cloning attack (Eqs. 12-13) for random victims."""
    out = []
    domains = ds.domains()
    for row in rng.choice(len(ds.data), n_victims, replace=False):
        rec = ds.data.iloc[int(row)].to_dict()
        a_prime = list(rng.choice(ds.attributes, size=6, replace=False))
        u = next(a for a in ds.attributes if a not in a_prime)
        d = max(a_prime, key=lambda a: len(domains[a]))
        dummies = atk.dummy_values(rec[d], domains[d], 10, rng)
        cq = atk.cloning_queries(ds.name, rec, a_prime, u, d, dummies, ds.secret, 0)
        out += [(cq.template_q, cq.rows_q), (cq.template_qbar, cq.rows_qbar)]
    return out


def differential_workload(ds, n_victims: int, rng: np.random.Generator) -> list[tuple[str, list[tuple]]]:
    """The statements of the differential attack (Eqs. 7-8) on all attributes, for random victims."""
    recs = ds.data.iloc[rng.choice(len(ds.data), n_victims, replace=False)]
    out = []
    for _, rec in recs.iterrows():
        rec = {a: (v.item() if isinstance(v, np.generic) else v) for a, v in rec.items()}
        for j, a in enumerate(ds.attributes):
            others = [b for b in ds.attributes if b != a]
            base = tuple(rec[b] for b in others)
            out.append((_template(ds.name, [(b, "=") for b in others] + [(ds.secret, "=")]),
                        [base + (0,), base + (1,)]))
            out.append((_template(ds.name, [(b, "=") for b in others] + [(a, "<>"), (ds.secret, "=")]),
                        [base + (rec[a], 0), base + (rec[a], 1)]))
    return out


def answers_by_reference_paths(proxy: DiffixProxy, statements) -> np.ndarray:
    """The proxy's answers through the plain algorithms its fast paths replaced.

    :func:`twins.bind_reference` (per-row binding), :meth:`DiffixProxy._core`
    per query and :func:`twins.intersect_reference` (one NumPy AND per condition).
    """
    ids: list[tuple[int, ...]] = []
    for template, rows in statements:
        twins.bind_reference(proxy, template, rows, ids)
    proxy._intersect = functools.partial(twins.intersect_reference, proxy)
    try:
        return proxy._answer(ids, "reference")
    finally:
        del proxy._intersect


def time_fast_paths(ds, statements, what: str) -> dict:
    """Fast paths (:meth:`DiffixProxy.execute_batch`) against their references, row sets already cached."""
    n_q = sum(len(rows) for _, rows in statements)
    lib = DiffixProxy(ds.data, table=ds.name, salt=5, keep_log=False)
    ref = DiffixProxy(ds.data, table=ds.name, salt=5, keep_log=False)
    lib.execute_batch(statements)  # DuckDB evaluates every condition once, for both
    ref.execute_batch(statements)
    times = {"lib": [], "ref": []}
    for _ in range(3):
        for name, px in (("lib", lib), ("ref", ref)):
            px._set_memo.clear()
            px._templates.clear()
            t = time.perf_counter()
            out = np.concatenate(lib.execute_batch(statements)) if name == "lib" else \
                answers_by_reference_paths(ref, statements)
            times[name].append(time.perf_counter() - t)
            if name == "lib":
                lib_out = out
            else:
                assert out.tobytes() == lib_out.tobytes(), "fast paths and references disagree"
    return figure(f"proxy fast paths, {what}", min(times["lib"]), min(times["ref"]),
                  "bind_reference + _core + intersect_reference", queries=n_q)


def conditions_of(template: str, row: tuple) -> list[tuple[str, str, object]]:
    where = template.split(" WHERE ", 1)[1]
    conds = []
    for part, v in zip(where.split(" AND "), row):
        col, op, _ = part.split(" ")
        conds.append((col.strip('"'), op, v))
    return conds


def figure(name: str, library: float, reference: float, what: str, unit: str = "s", **extra) -> dict:
    """One figure: the library's and the reference's time, and ``reference / library``."""
    fig = {"figure": name, "library_s": library, "reference": what, "reference_s": reference,
           "ratio": reference / library, "load_average": list(os.getloadavg()), **extra}
    print(f"  {name}: library {library:.4g} s, reference {reference:.4g} s ({what}): "
          f"{fig['ratio']:.1f} x")
    return fig


def cloning_attacks(ds, users, seed: int = 0) -> list:
    """The coroutines of FullCloningAttack (k* = all attributes) for ``users``, as the harness builds them."""
    domains = ds.domains()
    out = []
    for i, row in enumerate(users):
        rec = {a: ds.data[a].iat[int(row)] for a in ds.attributes}
        rec = {a: (v.item() if isinstance(v, np.generic) else v) for a, v in rec.items()}
        out.append(_full_cloning_steps(ds.name, rec, ds.attributes, ds.secret, domains, v=0, n_dummy=10,
                                       sigma_star=0.7, double_test=False, max_subsets=None,
                                       g=np.random.default_rng([seed, i])))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=200, help="victims of the cloning attack timings")
    ap.add_argument("--ref-users", type=int, default=20, help="victims for the (slow) reference cloning run")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes for the pooled cloning run")
    ap.add_argument("--victims", type=int, default=100, help="victims in the proxy workload (20 queries each)")
    args = ap.parse_args()
    figures = []

    ds = dd.adult()
    rng = np.random.default_rng(0)
    work = workload(ds, args.victims, rng)
    n_q = sum(len(rows) for _, rows in work)
    salt = 12345
    raw = dict(salt=salt, rounding=False, bucket_suppression=False, keep_log=False)

    # correctness: a plain loop over the records, the reference and the library agree
    ref = ReferenceDiffix(ds.data.to_dict("records"), salt)
    check = work[:2]
    loop_answers = [ref.answer(conditions_of(tp, r)) for tp, rows in check for r in rows]
    sql = DiffixProxy(ds.data, table="adult", mode="sql", **raw)
    t = time.perf_counter()
    sql_answers = np.concatenate([sql.execute(tp, rows) for tp, rows in work])
    t_sql = time.perf_counter() - t
    cached = DiffixProxy(ds.data, table="adult", **raw)
    t = time.perf_counter()
    first = np.concatenate([cached.execute(tp, rows) for tp, rows in work])
    t_first = time.perf_counter() - t
    other = cached.with_salt(999)  # same queries, new noise: row sets already known
    t = time.perf_counter()
    np.concatenate([other.execute(tp, rows) for tp, rows in work])
    t_warm = time.perf_counter() - t
    assert np.allclose(loop_answers, sql_answers[: len(loop_answers)], rtol=0, atol=1e-9), "loop and sql disagree"
    assert np.array_equal(sql_answers, first), "sql and cached modes disagree"
    print(f"ADULT, {n_q:,} cloning-attack queries (6 known attributes + 9 dummy conditions each); answers of "
          f"the sql and cached modes equal, and equal to a plain loop over the records on {len(loop_answers)}")
    print(f"  reference, one DuckDB statement per query: {n_q / t_sql:,.0f} queries/s")
    figures.append(figure("proxy bitmaps, first pass", t_first, t_sql, "proxy mode='sql'", queries=n_q))
    figures.append(figure("proxy bitmaps, new salt", t_warm, t_sql, "proxy mode='sql'", queries=n_q))

    # the proxy's fast paths against the plain algorithms they replaced (answers byte-identical)
    figures.append(time_fast_paths(ds, work, f"ADULT cloning statements ({n_q:,} queries)"))
    figures.append(time_fast_paths(ds, differential_workload(ds, args.victims, rng),
                                   "ADULT differential statements"))

    # the cloning attack: batched across victims vs one victim at a time
    users = np.random.default_rng(1).choice(len(ds.data), args.users, replace=False)
    lib = DiffixProxy(ds.data, table="adult", salt=salt, keep_log=False)
    t = time.perf_counter()
    batched = drive_many(lib, cloning_attacks(ds, users), analyst="cloning")
    t_batched = time.perf_counter() - t
    n_att = lib.n_queries()
    one = DiffixProxy(ds.data, table="adult", salt=salt, keep_log=False)
    t = time.perf_counter()
    alone = [drive(one, a, analyst="cloning") for a in cloning_attacks(ds, users)]
    t_alone = time.perf_counter() - t
    assert [(o.guess, o.n_queries) for o in alone] == [(o.guess, o.n_queries) for o in batched]
    figures.append(figure(f"FullCloningAttack, {args.users} victims, batched", t_batched, t_alone,
                          "the library one victim at a time", queries=n_att))
    sub = users[: args.ref_users]
    ref_px = DiffixProxy(ds.data, table="adult", salt=salt, keep_log=False, mode="sql")
    t = time.perf_counter()
    ref_out = [drive(ref_px, a, analyst="cloning") for a in cloning_attacks(ds, sub)]
    t_ref = (time.perf_counter() - t) * len(users) / len(sub)
    assert [(o.guess, o.n_queries) for o in ref_out] == [(o.guess, o.n_queries) for o in batched[: len(sub)]]
    figures.append(figure(f"FullCloningAttack, {args.users} victims, batched", t_batched, t_ref,
                          f"mode='sql', one victim at a time (timed on {len(sub)}, scaled)", queries=n_att))

    # the dummy draw on a large domain
    census = dd.census()
    dom = census.domains()["instance_weight"]
    values = census.data["instance_weight"].to_numpy()[:200]
    t = time.perf_counter()
    new = [atk.dummy_values(v.item(), dom, 10, np.random.default_rng(i)) for i, v in enumerate(values)]
    t_new = time.perf_counter() - t
    t = time.perf_counter()
    old = [dummy_values_reference(v.item(), dom, 10, np.random.default_rng(i)) for i, v in enumerate(values)]
    t_old = time.perf_counter() - t
    # other draws from the same distribution: distinct values of the domain, never the victim's
    assert all(len(set(a)) == len(a) == len(b) and v.item() not in a for a, b, v in zip(new, old, values))
    figures.append(figure(f"dummy draw, 200 x CENSUS instance_weight ({dom.size:,} values)", t_new, t_old,
                          "rng.choice(domain[domain != value], 10, replace=False)"))

    # worker pools kept across experiments
    times = []
    for _ in range(2):
        proxy = DiffixProxy(ds.data, table="adult", salt=salt, keep_log=False)
        t = time.perf_counter()
        res = harness.run_cloning_experiment(ds, proxy, n_users=args.users, seed=0, n_jobs=args.jobs)
        times.append(time.perf_counter() - t)
    harness.shutdown_pools()
    figures.append(figure(f"run_cloning_experiment, {args.users} victims, {args.jobs} workers, pool kept",
                          times[1], times[0], "the same run starting its workers"))
    s = harness.summarize_cloning(res)
    print(f"  attackable {s['attackable']:.3f}, accuracy_pa {s['accuracy_pa']:.3f}, "
          f"{proxy.n_queries() / times[1]:,.0f} queries/s with the kept pool")

    out = paths.project_root() / "_build" / "benchmarks" / "diffix.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"benchmark": "diffix", "cores": os.cpu_count(),
                               "load_average": list(os.getloadavg()), "figures": figures}, indent=1))
    print(f"written {out}")


if __name__ == "__main__":
    main()

"""Benchmark of the Diffix proxy and the cloning attack (not collected by pytest).

Run: ``.venv/bin/python tests/benchmarks/bench_diffix.py [--users N] [--jobs J]``

Measured in one run, on ADULT (30,162 records):

1. a plain reference: Diffix in pure Python over a list of records (loop over
   the rows for each query, SplitMix64 and Box-Muller in Python), written
   here from the paper's §2 independently of the library;
2. the library's proxy in ``mode="sql"`` (one DuckDB statement per query);
3. the library's proxy in the default ``mode="cached"`` (DuckDB evaluates
   each condition once; row sets as bitmaps), first and second pass.

All three must give the same answers (checked before timing is reported).
Then the full cloning attack over ``--users`` ADULT victims with ``--jobs``
worker processes, as the notebook runs it.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import time

import numpy as np

from anonlab.attacks import diffix as atk
from anonlab.data import diffix_datasets as dd
from anonlab.mechanisms.diffix import DiffixProxy

MASK = (1 << 64) - 1


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
        dummies = atk.dummy_values(rec[d], list(domains[d]), 10, rng)
        cq = atk.cloning_queries(ds.name, rec, a_prime, u, d, dummies, ds.secret, 0)
        out += [(cq.template_q, cq.rows_q), (cq.template_qbar, cq.rows_qbar)]
    return out


def conditions_of(template: str, row: tuple) -> list[tuple[str, str, object]]:
    where = template.split(" WHERE ", 1)[1]
    conds = []
    for part, v in zip(where.split(" AND "), row):
        col, op, _ = part.split(" ")
        conds.append((col.strip('"'), op, v))
    return conds


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=1000, help="victims of the cloning attack timing")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes for the cloning attack")
    ap.add_argument("--victims", type=int, default=100, help="victims in the proxy workload (20 queries each)")
    args = ap.parse_args()

    ds = dd.adult()
    rng = np.random.default_rng(0)
    work = workload(ds, args.victims, rng)
    n_q = sum(len(rows) for _, rows in work)
    salt = 12345

    ref = ReferenceDiffix(ds.data.to_dict("records"), salt)
    sub = work[: max(2, len(work) // 20)]  # the reference is slow: time it on 5% of the workload
    n_sub = sum(len(rows) for _, rows in sub)
    t = time.perf_counter()
    ref_answers = [ref.answer(conditions_of(tp, r)) for tp, rows in sub for r in rows]
    t_ref = (time.perf_counter() - t) / n_sub

    raw = dict(salt=salt, rounding=False, bucket_suppression=False, keep_log=False)
    sql = DiffixProxy(ds.data, table="adult", mode="sql", **raw)
    t = time.perf_counter()
    sql_answers = np.concatenate([sql.execute(tp, rows) for tp, rows in sub])
    t_sql = (time.perf_counter() - t) / n_sub

    cached = DiffixProxy(ds.data, table="adult", **raw)
    t = time.perf_counter()
    first = np.concatenate([cached.execute(tp, rows) for tp, rows in work])
    t_first = (time.perf_counter() - t) / n_q
    other = cached.with_salt(999)  # same queries, new noise: row sets already known
    t = time.perf_counter()
    np.concatenate([other.execute(tp, rows) for tp, rows in work])
    t_warm = (time.perf_counter() - t) / n_q

    assert np.allclose(ref_answers, sql_answers, rtol=0, atol=1e-9), "reference and sql mode disagree"
    assert np.allclose(sql_answers, first[: n_sub], rtol=0, atol=1e-9), "sql and cached modes disagree"
    print(f"ADULT, {n_q:,} cloning-attack queries (6 known attributes + 9 dummy conditions each); "
          f"answers of the three implementations equal (checked on {n_sub} queries)")
    print(f"  plain Python reference : {1 / t_ref:10,.0f} queries/s")
    print(f"  proxy, mode='sql'      : {1 / t_sql:10,.0f} queries/s   ({t_ref / t_sql:6.1f} x reference)")
    print(f"  proxy, cached, 1st pass: {1 / t_first:10,.0f} queries/s   ({t_ref / t_first:6.1f} x reference)")
    print(f"  proxy, cached, new salt: {1 / t_warm:10,.0f} queries/s   ({t_ref / t_warm:6.1f} x reference)")

    proxy = DiffixProxy(ds.data, table="adult", salt=salt, keep_log=False)
    t = time.perf_counter()
    res = atk.run_cloning_experiment(ds, proxy, n_users=args.users, seed=0, n_jobs=args.jobs)
    dt = time.perf_counter() - t
    s = atk.summarize_cloning(res)
    print(f"FullCloningAttack, {s['n_users']} ADULT victims, {args.jobs} process(es): {dt:.1f} s, "
          f"{proxy.n_queries():,} queries ({proxy.n_queries() / dt:,.0f}/s); attackable {s['attackable']:.3f}, "
          f"accuracy_pa {s['accuracy_pa']:.3f}")


if __name__ == "__main__":
    main()

"""Benchmark of the Cormode (2011) chapter: the naive attack and the deFinetti attack.

Run as ``.venv/bin/python tests/benchmarks/bench_cormode.py`` (not collected
by pytest; nothing here asserts a time). It prints, measured in one run:

1. the naive attack over the full ε grid x 9 noise draws on Adult (occupation
   and marital status, train + test), seconds per ε, against a plain-Python
   reference (dict counts, per-tuple classification) on the same noisy
   counts, cross-checked for identical predictions;
2. one 1000-iteration deFinetti run per l = 2..7 on Adult occupation, against
   a straightforward per-group Python loop that draws the same random numbers,
   cross-checked for the identical chain (same trace, same final assignment).
   The reference runs ``--ref-iterations`` iterations (default 20) per l; its
   per-iteration time gives the ratio, and its 1000-iteration time is
   extrapolated (and printed as such).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pandas as pd

from anonlab.attacks.definetti import definetti_attack, initial_permutation
from anonlab.attacks.naive_bayes import bucketize, naive_attack, naive_bayes_from_counts, predict
from anonlab.data import load_adult
from anonlab.mechanisms.anatomy import anatomy_groups
from anonlab.mechanisms.dp import EncodedTable, encode_table, release_counts

ATTRIBUTES = ["workclass", "education", "occupation", "sex", "hours", "income"]
EPSILONS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]


# ----------------------------------------------------------------------------- data


def adult_tables(sa: str) -> tuple[EncodedTable, EncodedTable]:
    tr, te = load_adult("train"), load_adult("test")
    for d in (tr, te):
        d["hours"] = bucketize(d["hours_per_week"], [25, 40, 60])
    qis = [a for a in ATTRIBUTES if a != sa]
    tr, te = tr[tr[sa].notna()], te[te[sa].notna()]
    doms = {c: sorted(set(pd.concat([tr[c], te[c]]).fillna("?").astype(str))) for c in [*qis, sa]}
    return encode_table(tr, qis, sa, domains=doms), encode_table(te, qis, sa, domains=doms)


# ----------------------------------------------------------------------------- naive attack reference


def naive_reference_predict(counts: np.ndarray, offsets: np.ndarray, qi_codes: np.ndarray) -> list[int]:
    """Cormode §2.2 in plain Python: clamp, +1, Pr[s] from summed counts, argmax per tuple."""
    n_cells, S = counts.shape
    m = len(offsets) - 1
    c = [[1.0 + max(0.0, float(counts[r][s])) for s in range(S)] for r in range(n_cells)]
    block = [[sum(c[r][s] for r in range(offsets[i], offsets[i + 1])) for s in range(S)] for i in range(m)]
    tot = [sum(block[i][s] for i in range(m)) for s in range(S)]
    z = sum(tot)
    log_prior = [math.log(t / z) for t in tot]
    log_cond = [[math.log(c[r][s]) for s in range(S)] for r in range(n_cells)]
    log_den = [[math.log(block[i][s]) for s in range(S)] for i in range(m)]
    out = []
    for row in qi_codes.tolist():
        best, best_s = -math.inf, 0
        for s in range(S):
            v = log_prior[s]
            for i in range(m):
                v += log_cond[offsets[i] + row[i]][s] - log_den[i][s]
            if v > best:
                best, best_s = v, s
        out.append(best_s)
    return out


def bench_naive() -> None:
    print("== naive attack (Cormode 2011 §2.3): full eps grid x 9 draws, train + test ==")
    for sa in ("occupation", "marital_status"):
        train, test = adult_tables(sa)
        t0 = time.perf_counter()
        naive_attack(train, EPSILONS, targets={"train": train, "test": test}, draws=9, seed=1)
        vec = time.perf_counter() - t0
        per_eps = vec / len(EPSILONS)
        # reference: one draw at eps = 0.1, train only, same noisy counts
        rel = release_counts(train, 0.1, draws=1, seed=3)
        t0 = time.perf_counter()
        ref_pred = naive_reference_predict(rel.counts[0], train.offsets, train.qi_codes)
        ref = time.perf_counter() - t0
        t0 = time.perf_counter()
        vec_pred = predict(naive_bayes_from_counts(rel), train.qi_codes)[0]
        one = time.perf_counter() - t0
        same = bool(np.array_equal(np.asarray(ref_pred), vec_pred))
        # per (eps, draw, split) the vectorised sweep costs per_eps / (9 * 2)
        per_unit = per_eps / 18
        print(f"  SA={sa:15s} n={train.n}: {vec:.2f} s for {len(EPSILONS)} eps x 9 draws x 2 splits "
              f"= {per_eps:.3f} s per eps")
        print(f"    plain-Python reference, one draw on train: {ref:.2f} s; vectorised one draw "
              f"(per tuple): {one:.4f} s -> ratio {ref / one:.0f}x; within the sweep "
              f"{per_unit:.4f} s per draw and split -> ratio {ref / per_unit:.0f}x; "
              f"identical predictions: {same}")


# ----------------------------------------------------------------------------- deFinetti reference


def definetti_reference(table: EncodedTable, group: np.ndarray, iterations: int, seed: int,
                        laplace: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The same Markov chain as :func:`definetti_attack`, written as a loop over groups.

    Draws the same random numbers in the same order, so the chain must be
    identical. Returns (trace, final assignment in row order).
    """
    rng = np.random.default_rng(seed)
    n, S, m = table.n, table.n_sa, table.m
    perm = np.argsort(group, kind="stable")
    st = np.zeros((int(group.max()) + 1, S), dtype=np.int64)
    for g, s in zip(group.tolist(), table.sa_codes.tolist()):
        st[g, s] += 1
    sizes = st.sum(axis=1)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    cells = table.cell_codes[perm].tolist()  # per position: its m cells
    assign = initial_permutation(starts, st, rng).tolist()
    C = np.zeros((table.n_cells, S), dtype=np.int64)
    for p in range(n):
        for c in cells[p]:
            C[c, assign[p]] += 1
    n_s = st.sum(axis=0).astype(float)
    log_den = np.log(n_s[None, :] + laplace * table.cardinalities[:, None].astype(float))
    log_den_rows = np.repeat(log_den, np.diff(table.offsets), axis=0)
    groups = [(int(a), int(b)) for a, b in zip(starts, sizes) if b >= 2]
    G = len(groups)
    trace = np.empty(iterations)
    for it in range(iterations):
        lc = (np.log(C + laplace) - log_den_rows).tolist()
        u = rng.random((3, G), dtype=np.float32).tolist()
        old = C.copy()
        changes = []
        for g, (start, size) in enumerate(groups):
            i = int(u[0][g] * size)
            j = int(u[1][g] * (size - 1))
            if j >= i:
                j += 1
            a, b = start + i, start + j
            sa, sb = assign[a], assign[b]
            if sa == sb:
                continue

            def f(p: int, s: int) -> float:
                v = 0.0
                for c in cells[p]:
                    v += lc[c][s]
                return v

            delta = f(a, sb) + f(b, sa) - f(a, sa) - f(b, sb)
            if u[2][g] < math.exp(min(delta, 0.0)):
                assign[a], assign[b] = sb, sa
                changes.append((a, b, sa, sb))
        for a, b, sa, sb in changes:  # the model is refreshed after the sweep
            for c in cells[a]:
                C[c, sa] -= 1
                C[c, sb] += 1
            for c in cells[b]:
                C[c, sb] -= 1
                C[c, sa] += 1
        trace[it] = np.abs(C - old).sum() / (n * m)
    out = np.empty(n, dtype=np.int64)
    out[perm] = assign
    return trace, out


def bench_definetti(ref_iterations: int) -> None:
    print("== deFinetti attack (Cormode 2011 §3.2): Adult occupation, 1000 iterations per l ==")
    tr = load_adult("train", drop_missing="occupation")
    tr["hours"] = bucketize(tr["hours_per_week"], [25, 40, 60])
    table = encode_table(tr, ["workclass", "education", "sex", "hours", "income"], "occupation")
    total_vec, total_ref_extrap = 0.0, 0.0
    rows = []
    for l in range(2, 8):  # noqa: E741
        group = anatomy_groups(table.sa_codes, l, seed=l)
        t0 = time.perf_counter()
        res = definetti_attack(table, group, iterations=1000, history=100, seed=10 + l)
        full = time.perf_counter() - t0
        short = definetti_attack(table, group, iterations=ref_iterations, history=1, seed=20 + l)
        t0 = time.perf_counter()
        ref_trace, ref_assign = definetti_reference(table, group, ref_iterations, seed=20 + l)
        ref = time.perf_counter() - t0
        same = bool(np.array_equal(ref_assign, short.assignment)
                    and np.allclose(ref_trace, short.trace, rtol=0, atol=1e-12))
        vec_per_it = res.seconds / 1000
        ref_per_it = ref / ref_iterations
        total_vec += full
        total_ref_extrap += ref_per_it * 1000
        acc = res.accuracy(table.sa_codes)
        rows.append((l, int(group.max()) + 1, full, ref_per_it * 1000, ref_per_it / vec_per_it, same,
                     acc["permutation"]))
    print(f"  {'l':>2} {'groups':>7} {'vectorised 1000 it (s)':>23} {'loop 1000 it (s, extrap.)':>26}"
          f" {'ratio':>6} {'identical chain':>16} {'perm. acc':>9}")
    for l, g, full, ref1000, ratio, same, acc in rows:  # noqa: E741
        print(f"  {l:>2} {g:>7} {full:>23.2f} {ref1000:>26.1f} {ratio:>6.0f} {str(same):>16} {acc:>9.3f}")
    print(f"  all l = 2..7: vectorised {total_vec:.1f} s; per-group loop {total_ref_extrap:.0f} s "
          f"(extrapolated from {ref_iterations} iterations per l) -> ratio {total_ref_extrap / total_vec:.0f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ref-iterations", type=int, default=20,
                    help="iterations of the per-group loop reference per l (default 20)")
    args = ap.parse_args()
    bench_naive()
    bench_definetti(args.ref_iterations)


if __name__ == "__main__":
    main()

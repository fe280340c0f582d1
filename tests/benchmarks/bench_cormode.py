"""Benchmark of the Cormode (2011) chapter: the naive attack and the deFinetti attack.

Run as ``.venv/bin/python tests/benchmarks/bench_cormode.py`` (not collected
by pytest; nothing here asserts a time). It prints, and writes to
``_build/benchmarks/cormode.json`` (figure, reference, ratio, machine load):

1. the naive attack on Adult (occupation and marital status), like with like:
   (a) one noise draw at ε = 0.1 on the training tuples, the library's
   classifier (evaluated once per distinct QI combination) against the
   NumPy version a competent user writes (clamp, +1, log-probability matrix,
   one row per tuple), on the same noisy counts, both giving accuracy,
   high-confidence share and accuracy, cross-checked for the same accuracy;
   (b) the whole Fig. 1 grid (10 ε x 9 draws, train and test):
   :func:`naive_attack` against that NumPy version in a loop over ε, draws
   and files on the same releases (same seeds), cross-checked for identical
   accuracies;
2. the deFinetti attack on Adult occupation: one 1000-iteration run per
   l = 2..7 (tight groups), run by :func:`definetti_sweeps` in its pool of
   worker processes against the same runs one after another (the plain way
   to run them), cross-checked for identical results; one 1000-iteration run
   at l = 2 and 7 with the library's chain and predictors against the first
   vectorised ones (kept as ``markov_chain_reference`` and
   ``predictions_reference`` in ``tests/reference_twins.py``), in the same process, cross-checked
   for identical predictions, confidences, traces and assignments; and a
   per-group Python loop of the chain, run for ``--ref-iterations``
   iterations only to check that the vectorised chain is the same chain (not
   a speed reference).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from anonlab import paths

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout, for tests.reference_twins
from tests import reference_twins as twins  # noqa: E402
from anonlab.attacks import definetti as definetti_module
from anonlab.attacks.definetti import (
    definetti_attack,
    definetti_sweeps,
    initial_permutation,

)
from anonlab.attacks.naive_bayes import _seeds, bucketize, evaluate_model, naive_attack, naive_bayes_from_counts
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


def naive_reference_scores(counts: np.ndarray, offsets: np.ndarray, cell_codes: np.ndarray) -> np.ndarray:
    """Cormode §2.2 as a competent NumPy user writes it: clamp, +1, Pr[s] from summed counts, per-tuple scores.

    ``counts`` is one noisy release (n_cells, S); ``cell_codes`` the (n, m)
    cells of each tuple. Returns the (n, S) log scores.
    """
    c = np.maximum(counts, 0) + 1.0  # clamp negative counts, Laplace's +1
    blocks = np.add.reduceat(c, offsets[:-1], axis=0)  # (m, S): each attribute's counts summed over its values
    log_prior = np.log(blocks.sum(axis=0) / blocks.sum())
    log_cond = np.log(c) - np.repeat(np.log(blocks), np.diff(offsets), axis=0)
    return log_prior + log_cond[cell_codes].sum(axis=1)  # (n, m, S) -> (n, S)


def naive_reference(counts: np.ndarray, offsets: np.ndarray, table: EncodedTable,
                    threshold: float = 0.8) -> tuple[float, float, float]:
    """Accuracy, share with belief > threshold and their accuracy: Fig. 1 and Fig. 3's numbers for one draw."""
    scores = naive_reference_scores(counts, offsets, table.cell_codes)
    pred = scores.argmax(axis=1)
    post = np.exp(scores - scores.max(axis=1, keepdims=True))
    belief = post.max(axis=1) / post.sum(axis=1)
    right = pred == table.sa_codes
    conf = belief > threshold
    return float(right.mean()), float(conf.mean()), float(right[conf].mean()) if conf.any() else float("nan")


def _timed(f, repeat: int = 3) -> tuple[float, object]:
    """Best of ``repeat`` wall-clock times of ``f()`` and its result."""
    best, out = math.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def bench_naive(figures: list[dict]) -> None:
    print("== naive attack (Cormode 2011 §2.3): library vs a vectorised NumPy naive Bayes ==")
    for sa in ("occupation", "marital_status"):
        train, test = adult_tables(sa)
        # (a) one draw at eps = 0.1, the training tuples, the same noisy counts, the same three numbers
        rel = release_counts(train, 0.1, draws=1, seed=3)
        ref, ref_out = _timed(lambda: naive_reference(rel.counts[0], train.offsets, train))
        lib, lib_out = _timed(lambda: evaluate_model(naive_bayes_from_counts(rel), train).iloc[0])
        same = bool(np.isclose(ref_out[0], lib_out["accuracy"], rtol=0, atol=1e-12))
        figures.append({"figure": f"naive attack, one draw, eps 0.1, {sa} (n = {train.n})", "library_s": lib,
                        "reference": "vectorised NumPy naive Bayes, one row per tuple", "reference_s": ref,
                        "ratio": ref / lib, "identical": same})
        print(f"  SA={sa:15s} n={train.n}: one draw: library {lib:.4f} s, NumPy reference {ref:.4f} s "
              f"-> ratio {ref / lib:.1f}x; same accuracy: {same}")

        # (b) Fig. 1's grid: 10 eps x 9 draws x (train, test), the releases naive_attack draws (same seeds)
        def reference_grid() -> list[float]:
            accs = []
            for eps, rng in zip(EPSILONS, _seeds(1, len(EPSILONS))):
                r = release_counts(train, eps, draws=9, seed=rng)
                for t in (train, test):
                    accs += [naive_reference(r.counts[d], train.offsets, t)[0] for d in range(9)]
            return accs

        def library_grid() -> list[float]:
            res = naive_attack(train, EPSILONS, targets={"train": train, "test": test}, draws=9, seed=1)
            return res["accuracy"].tolist()

        ref, ref_acc = _timed(reference_grid, repeat=1)
        lib, lib_acc = _timed(library_grid, repeat=1)
        same = bool(np.allclose(ref_acc, lib_acc, rtol=0, atol=1e-12))
        figures.append({"figure": f"naive attack, 10 eps x 9 draws x 2 files, {sa}", "library_s": lib,
                        "reference": "the same releases through the vectorised NumPy naive Bayes", "reference_s": ref,
                        "ratio": ref / lib, "identical": same})
        print(f"    whole grid: naive_attack {lib:.2f} s, NumPy reference {ref:.2f} s -> ratio {ref / lib:.1f}x; "
              f"same accuracies: {same}")


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


def _same_run(a, b) -> bool:
    """Do two runs (:class:`DeFinettiResult`) hold exactly the same numbers?"""
    return (all(np.array_equal(a.predictions[k], b.predictions[k]) and np.array_equal(a.confidence[k], b.confidence[k])
                for k in a.predictions)
            and all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("trace", "acceptance", "assignment")))


def bench_chain(table: EncodedTable, figures: list[dict]) -> None:
    """One 1000-iteration run at l = 2 and 7: the library's chain and predictors against the first ones."""
    fast = definetti_module._markov_chain, definetti_module._predictions
    first = twins.markov_chain_reference, twins.predictions_reference
    for l in (2, 7):  # noqa: E741
        group = anatomy_groups(table.sa_codes, l, seed=l)
        times, runs = {}, {}
        for name, (chain, predictions) in (("reference", first), ("library", fast)):
            definetti_module._markov_chain, definetti_module._predictions = chain, predictions
            try:
                times[name], runs[name] = _timed(lambda: definetti_attack(table, group, seed=30 + l))
            finally:
                definetti_module._markov_chain, definetti_module._predictions = fast
        same = _same_run(runs["reference"], runs["library"])
        ratio = times["reference"] / times["library"]
        figures.append({"figure": f"deFinetti run, l = {l}, 1000 iterations", "library_s": times["library"],
                        "reference": "the first vectorised chain and predictors (tests/reference_twins.py)",
                        "reference_s": times["reference"], "ratio": ratio, "identical": same})
        print(f"  one run at l = {l}: library {times['library']:.3f} s, first vectorised chain "
              f"{times['reference']:.3f} s -> ratio {ratio:.2f}x; identical results: {same}")


def bench_definetti(ref_iterations: int, figures: list[dict]) -> None:
    print("== deFinetti attack (Cormode 2011 §3.2): Adult occupation, 1000 iterations, l = 2..7, tight groups ==")
    tr = load_adult("train", drop_missing="occupation")
    tr["hours"] = bucketize(tr["hours_per_week"], [25, 40, 60])
    table = encode_table(tr, ["workclass", "education", "sex", "hours", "income"], "occupation")
    spec = dict(table=table, l_grid=list(range(2, 8)), multipliers=[1], repetitions=1, iterations=1000,
                history=100, seed=7)
    t0 = time.perf_counter()
    one_by_one = definetti_sweeps([spec], n_jobs=1)[0]
    serial = time.perf_counter() - t0
    t0 = time.perf_counter()
    pooled = definetti_sweeps([spec])[0]
    par = time.perf_counter() - t0
    cols = ["l", "method", "accuracy", "confident_share"]
    same = bool(one_by_one.results[cols].equals(pooled.results[cols]))
    from anonbook.memory import granted_cores

    jobs = granted_cores(at_most=4)
    figures.append({"figure": "deFinetti sweep, l = 2..7, 1000 iterations, 1 repetition", "library_s": par,
                    "reference": "the same runs one after another", "reference_s": serial, "ratio": serial / par,
                    "identical": same, "workers": jobs})
    print(f"  pooled ({jobs} workers) {par:.1f} s, one after another {serial:.1f} s -> ratio {serial / par:.2f}x; "
          f"identical results: {same}")
    bench_chain(table, figures)
    checks = []
    for l in (2, 7):  # noqa: E741
        group = anatomy_groups(table.sa_codes, l, seed=l)
        short = definetti_attack(table, group, iterations=ref_iterations, history=1, seed=20 + l)
        ref_trace, ref_assign = definetti_reference(table, group, ref_iterations, seed=20 + l)
        checks.append(bool(np.array_equal(ref_assign, short.assignment)
                           and np.allclose(ref_trace, short.trace, rtol=0, atol=1e-12)))
    print(f"  per-group loop of the chain, {ref_iterations} iterations at l = 2 and 7: identical chain {all(checks)}")
    figures.append({"figure": "deFinetti chain equals the per-group loop", "identical": all(checks),
                    "iterations": ref_iterations})


def write_figures(figures: list[dict]) -> Path:
    """Write the figures with the machine load to ``_build/benchmarks/cormode.json``."""
    out = paths.project_root() / "_build" / "benchmarks" / "cormode.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"benchmark": "cormode", "loadavg": list(os.getloadavg()), "cpus": os.cpu_count(),
                               "figures": figures}, indent=1))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ref-iterations", type=int, default=5,
                    help="iterations of the per-group loop that checks the chain (default 5)")
    args = ap.parse_args()
    figures: list[dict] = []
    bench_naive(figures)
    bench_definetti(args.ref_iterations, figures)
    print(f"figures written to {write_figures(figures)}")


if __name__ == "__main__":
    main()

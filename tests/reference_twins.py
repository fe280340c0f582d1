"""Reference twins: the plain algorithms the library's fast paths replaced, kept beside the checks that hold the
fast paths to them bit for bit (``test_anatomy_definetti.py``, ``benchmarks/bench_cormode.py``,
``benchmarks/bench_diffix.py``). The book never runs them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

import anonlab.attacks.definetti as D
from anonlab.mechanisms.diffix import _LANES, _LOOKUP_TYPES, Condition, DiffixProxy, _check_row_lengths, _condition


def markov_chain_reference(
    setup: D._ChainSetup, assign: np.ndarray, N: np.ndarray, rng: np.random.Generator, *,
    iterations: int, history: int, moves_per_iteration: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The chain as first written: the reference that ``definetti._markov_chain`` must equal exactly.

    Same arguments and results as ``_markov_chain`` (for its unit tests and the benchmark; slower: 2-D fancy
    indexing and two full-length ``bincount``\\ s per move).
    """
    M, Mt, log_den_rows, laplace = setup.M, setup.Mt, setup.log_den_rows, setup.laplace
    g_start, g_size, m = setup.g_start, setup.g_size, setup.m
    n = len(assign)
    U, S = N.shape
    G = len(g_start)
    base = setup.ucode * S  # flat row offset of each position's combination in (U, S) arrays
    # float32 uniforms times float64 sizes: the products are exact, so floor(u * size) < size
    sizes_ij = np.stack([g_size, g_size - 1]).astype(np.float64)  # (2, G): draws of i and of j
    trace = np.empty(iterations)
    acceptance = np.empty(iterations)
    votes = np.zeros(n * S, dtype=np.int32)  # (n, S) flattened: history of assignments
    vote_base = np.arange(n) * S
    N_hist = np.zeros_like(N)
    h0 = iterations - history
    C = D._spmm(Mt, N)
    for it in range(iterations):
        # model of the current assignment: sum_i log Pr[x_i | s] for every combination (U, S)
        LF = D._spmm(M, np.log(C + laplace) - log_den_rows).ravel()
        accepted = 0
        for _ in range(moves_per_iteration):
            # one swap proposal in every group, all groups at once: positions a (row 0) and b (row 1)
            u = rng.random((3, G), dtype=np.float32)
            ij = (u[:2] * sizes_ij).astype(np.int64)
            ij[1] += ij[1] >= ij[0]
            ab = ij + g_start
            s_ab = assign[ab]  # (s_a, s_b)
            b_ab = base[ab]
            same = b_ab + s_ab  # cells (a, s_a), (b, s_b) of the flat (U, S) tables
            cross = b_ab + s_ab[::-1]  # cells (a, s_b), (b, s_a)
            lf_c, lf_s = LF[cross], LF[same]
            delta = lf_c[0] + lf_c[1] - lf_s[0] - lf_s[1]
            acc = np.flatnonzero((s_ab[0] != s_ab[1]) & (u[2] < np.exp(np.minimum(delta, 0.0))))
            assign[ab[:, acc]] = s_ab[::-1, acc]  # swap
            accepted += len(acc)
            # the counts are whole numbers (exact in float64), so the update's order does not matter
            N += (np.bincount(cross[:, acc].ravel(), minlength=U * S)
                  - np.bincount(same[:, acc].ravel(), minlength=U * S)).reshape(U, S)
        C_new = D._spmm(Mt, N)
        trace[it] = np.abs(C_new - C).sum() / (n * m)
        acceptance[it] = accepted / (G * moves_per_iteration) if G else 0.0
        C = C_new
        if it >= h0:
            votes[vote_base + assign] += 1
            N_hist += N
    return trace, acceptance, votes, N_hist


def predictions_reference(
    scores: np.ndarray, ucode: np.ndarray, present: np.ndarray, votes: np.ndarray, history: int,
    inverse: np.ndarray,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The predictors as first written (posteriors per tuple): the reference ``definetti._predictions`` must equal."""
    scores_t = scores[ucode]  # per tuple, group-sorted order
    post = np.exp(scores_t - scores_t.max(axis=1, keepdims=True))
    post /= post.sum(axis=1, keepdims=True)
    post_g = np.where(present, post, 0.0)
    post_g /= post_g.sum(axis=1, keepdims=True)

    def back(x: np.ndarray) -> np.ndarray:
        return x[inverse]

    pred = {
        "permutation": back(votes.argmax(axis=1)),
        "group": back(post_g.argmax(axis=1)),
        "open": back(post.argmax(axis=1)),
    }
    conf = {
        "permutation": back(votes.max(axis=1) / history),
        "group": back(post_g.max(axis=1)),
        "open": back(post.max(axis=1)),
    }
    return pred, conf


def bind_reference(proxy: DiffixProxy, template: str, rows: Iterable[Sequence[Any]],
                   out: list[tuple[int, ...]]) -> None:
    """The plain algorithm of ``DiffixProxy._bind`` (ids only, no keys): its reference."""
    plan = proxy._template(template)
    slots, n = plan.slots, plan.n_placeholders
    id_of, columns = proxy._id_of, proxy.columns
    fixed = [(i, proxy._register(Condition(s.column, s.op, s.value)))
             for i, s in enumerate(slots) if s.position < 0]
    holes = [(i, s.column, s.op, s.position) for i, s in enumerate(slots) if s.position >= 0]
    rows = rows if isinstance(rows, list) else list(rows)
    _check_row_lengths(rows, n)
    if not rows:
        return
    if len(rows) < 8:  # few rows (the differential attack's statements): row by row
        bind_rows_reference(proxy, slots, fixed, holes, rows, out)
        return
    # column by column: one dictionary per (column, op) maps each bound value to its condition id
    cols: list[Any] = [None] * len(slots)
    for i, cid in fixed:
        cols[i] = itertools.repeat(cid, len(rows))
    for i, col, op, pos in holes:
        vals = [row[pos] for row in rows]
        known = id_of.get((col, op))
        got = list(map(known.get, vals)) if known is not None else [None] * len(vals)
        lookup = _LOOKUP_TYPES[columns[col]]
        if known is None or None in got or not set(map(type, vals)) <= lookup:
            for j, value in enumerate(vals):
                if got[j] is not None and type(value) in lookup:
                    continue
                cid = None if type(value) not in lookup or known is None else known.get(value)
                if cid is None:
                    cid = proxy._register(_condition(col, op, value, columns[col]))
                    if type(value) in lookup:
                        if known is None:
                            known = id_of[(col, op)] = {}
                        known[value] = cid
                got[j] = cid
        cols[i] = got
    if len(slots) == 0:
        out.extend(() for _ in rows)
        return
    fromkeys = dict.fromkeys
    out.extend(tuple(fromkeys(ids)) for ids in zip(*cols))


def bind_rows_reference(proxy: DiffixProxy, slots: tuple, fixed: list[tuple[int, int]],
                        holes: list[tuple[int, str, str, int]], rows: list[Sequence[Any]],
                        out: list[tuple[int, ...]]) -> None:
    """:func:`bind_reference` one row at a time (for fewer than 8 rows)."""
    id_of, columns = proxy._id_of, proxy.columns
    base = [0] * len(slots)
    for i, cid in fixed:
        base[i] = cid
    # (an empty dictionary left by a refused statement is dropped by _forget_conditions_from)
    maps = [(i, col, op, pos, id_of.setdefault((col, op), {})) for i, col, op, pos in holes]
    for row in rows:
        ids = base.copy()
        for i, col, op, pos, known in maps:
            value = row[pos]
            plain = type(value) in _LOOKUP_TYPES[columns[col]]
            cid = known.get(value) if plain else None
            if cid is None:
                cid = proxy._register(_condition(col, op, value, columns[col]))
                if plain:
                    known[value] = cid
            ids[i] = cid
        out.append(tuple(dict.fromkeys(ids)))


def intersect_reference(proxy: DiffixProxy, ids: tuple[int, ...]) -> tuple[int, int]:
    """The plain algorithm of ``DiffixProxy._intersect`` (one NumPy AND per condition): its reference."""
    if not ids:
        return proxy.n_rows, proxy._xor_all
    masks, nzw = proxy._masks, proxy._nonzero_words
    # AND the bitmaps sparsest first, keeping only the words that still hold a row
    sizes = proxy._nnz
    order = sorted(ids, key=sizes.__getitem__)
    idx = nzw[order[0]]
    if idx.size * 2 > proxy._n_words:  # dense: plain AND over all words
        w = masks[order[0]].copy()
        for i in order[1:]:
            np.bitwise_and(w, masks[i], out=w)
        idx = np.flatnonzero(w)
        w = w[idx]
    else:
        w = masks[order[0]][idx]
        for i in order[1:]:
            np.bitwise_and(w, masks[i][idx], out=w)
            if idx.size > 16:
                keep = np.flatnonzero(w)
                if keep.size < idx.size:
                    idx, w = idx[keep], w[keep]
        keep = np.flatnonzero(w)
        idx, w = idx[keep], w[keep]
    if idx.size == 0:
        return 0, 0
    bits = np.unpackbits(w.view(np.uint8), bitorder="little").view(bool)
    rows = (idx[:, None] * 64 + _LANES).ravel()[bits]
    return int(rows.size), int(np.bitwise_xor.reduce(proxy._uid_hash[rows]))

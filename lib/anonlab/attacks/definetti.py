"""Kifer's deFinetti attack on Anatomy, as Cormode (2011, §3) runs it.

D. Kifer, *Attacks on privacy and deFinetti's theorem*, SIGMOD 2009; G. Cormode, *Personal privacy vs population
privacy*, KDD 2011, §3.1-3.2. The attacker sees an Anatomy release (:mod:`anonlab.mechanisms.anatomy`: QIs with group
ids, each group's multiset of SA values) and learns a Naive-Bayes (NB) model from it by a Markov chain over the
within-group assignments (derivation: chapter 2, "Fig. 4 of Cormode: the deFinetti attack"):

1. a random permutation in every group;
2. NB model of the current assignment's counts, Laplace-corrected: :math:`\\Pr[t_i = v \\mid s] = (c_i(v, s) + 1) / (n_s
   + |T_i|)` (as :func:`anonlab.attacks.naive_bayes.naive_bayes_from_counts`);
3. in every group at once, swap the SA values of two random tuples with probability :math:`\\min(1, e^{\\Delta})`,
   :math:`\\Delta = \\log f(a, s_b) + \\log f(b, s_a) - \\log f(a, s_a) - \\log f(b, s_b)`, :math:`\\log f(x, s) =
   \\sum_i \\log \\Pr[x_i \\mid s]` (``moves_per_iteration`` rounds per iteration);
4. repeat from 2 (Cormode: 1000 iterations).

Over the last ``history`` iterations, three predictions (§3.1): **permutation** (the value most often assigned),
**group** (NB posterior restricted to the group's values), **open** (NB posterior over all values), the model from the
counts averaged over the window. Convergence trace: :math:`L_1` distance between successive joint distributions (the
stacked (QI, SA) tables over :math:`n\\,m`).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from anonlab.attacks.naive_bayes import (
    NaiveBayesModel,
    baseline_on,
    distinct_combinations,
    naive_attack,
    naive_bayes_from_counts,
    strictly_above,
)
from anonlab.intervals import t_interval
from anonlab.mechanisms.anatomy import TIES, Anatomy, anatomy_groups, merge_groups
from anonlab.mechanisms.dp import EncodedTable
from anonlab.measures.protocol import AttackResult, score
from anonlab.measures.rates import coverage, precision
from anonlab.streams import legacy_seed
from anonlab.validation import check_choice, check_int, check_number, check_random_state

__all__ = [
    "METHODS",
    "QILayout",
    "qi_layout",
    "DeFinettiResult",
    "DeFinettiSweep",
    "group_sa_counts",
    "initial_permutation",
    "definetti_attack",
    "definetti_sweep",
    "definetti_sweeps",
    "start_sweeps",
    "sweep_key",
    "PendingSweeps",
    "replay_sweep_run",
    "kept_run",
    "definetti_attack_records",
    "summarize_sweep",
    "Fig4",
    "fig4_of",
    "noiseless_accuracy",
    "Sweeps",
    "fig4_sweep_specs",
    "collect_sweeps",
    "moves_check",
    "plateau",
    "convergence",
]

METHODS: tuple[str, ...] = ("permutation", "group", "open")

try:  # scipy's own kernel of ``csr_matrix @ dense``, without its per-call checks (the chain calls it twice an iteration)
    from scipy.sparse._sparsetools import csr_matvecs as _csr_matvecs
except ImportError:  # pragma: no cover - a scipy that moved it: fall back to the operator
    _csr_matvecs = None


def _spmm(A: sparse.csr_matrix, X: np.ndarray) -> np.ndarray:
    """``A @ X`` for a float64 CSR matrix and a dense float64 matrix: the same kernel scipy's ``@`` runs.

    >>> A = sparse.csr_matrix(np.array([[1.0, 0.0], [2.0, 3.0]]))
    >>> _spmm(A, np.array([[1.0, 2.0], [3.0, 4.0]])).tolist()
    [[1.0, 2.0], [11.0, 16.0]]
    """
    if _csr_matvecs is None or A.dtype != np.float64 or X.dtype != np.float64:
        return A @ X
    X = np.ascontiguousarray(X)
    out = np.zeros((A.shape[0], X.shape[1]))
    _csr_matvecs(A.shape[0], A.shape[1], X.shape[1], A.indptr, A.indices, A.data, X.ravel(), out.ravel())
    return out


def _dense_products(M: sparse.csr_matrix, Mt: sparse.csr_matrix, Y: np.ndarray,
                    m: int) -> tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
    """The chain's two products ``X -> M @ X`` and ``X -> Mt @ X``, the faster way with the same numbers.

    ``M`` (combinations x cells, m ones a row) is small and dense enough on the paper's tables (31 cells for m =
    5) that one BLAS product on the dense matrix beats the sparse kernel (:func:`_spmm`) about twice. The
    numbers are the same: every entry is 0 or 1, so each term is exact, ``Mt @ N`` sums whole numbers (exact in
    any order), and ``M @ Y`` is kept dense only if it equals :func:`_spmm` bit for bit on ``Y`` (a kernel that
    sums in another order would differ). The sparse kernel is used for a table with many cells (more than 8
    per QI) and for a product that fails the check.
    """
    def sparse_of(A: sparse.csr_matrix) -> Callable[[np.ndarray], np.ndarray]:
        return lambda X: _spmm(A, X)

    if M.shape[1] > 8 * m:
        return sparse_of(M), sparse_of(Mt)
    Md, Mtd = M.toarray(), Mt.toarray()
    lf = Md.__matmul__ if np.array_equal(Md @ Y, _spmm(M, Y)) else sparse_of(M)
    return lf, Mtd.__matmul__


@lru_cache(maxsize=1)
def _blas_threads() -> Any:
    """threadpoolctl's controller of this process's thread pools (scikit-learn's dependency), made once."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def group_sa_counts(group: np.ndarray, sa_codes: np.ndarray, n_sa: int) -> np.ndarray:
    """The SA table as a matrix: tuples of each SA value in each group, shape (G, n_sa)."""
    group = np.asarray(group, dtype=np.int64)
    n_groups = int(group.max()) + 1
    return np.bincount(group * n_sa + np.asarray(sa_codes, dtype=np.int64),
                       minlength=n_groups * n_sa).reshape(n_groups, n_sa)


def _st_matrix(release: Anatomy, table: EncodedTable) -> np.ndarray:
    st = release.st
    codes = pd.Categorical(st[release.sensitive].astype(str), categories=list(table.sa_domain)).codes
    if (codes < 0).any():
        raise ValueError("the SA table holds values outside the table's SA domain")
    out = np.zeros((release.n_groups, table.n_sa), dtype=np.int64)
    np.add.at(out, (st["group"].to_numpy(), codes), st["count"].to_numpy())
    return out


def initial_permutation(
    starts: np.ndarray, st_counts: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """A random permutation per group: the group's SA multiset in random order.

    Parameters: ``starts`` (numpy.ndarray): First position of each group in group-sorted order (length G).
    ``st_counts`` (numpy.ndarray, shape (G, n_sa)): The SA table (:func:`group_sa_counts`).

    Returns: numpy.ndarray, shape (n,): SA code of each position, in group-sorted order.
    """
    g_idx, s_idx = np.nonzero(st_counts)
    reps = st_counts[g_idx, s_idx]
    sa_list = np.repeat(s_idx, reps)
    grp = np.repeat(g_idx, reps)
    return sa_list[_order_within_groups(grp, rng.random(len(sa_list)))]


def _order_within_groups(grp: np.ndarray, key: np.ndarray) -> np.ndarray:
    """``np.lexsort((key, grp))`` for integer groups ``grp`` and keys in [0, 1), about 3x faster.

    One ``argsort`` of ``grp + key`` (a float, so rounding may merge keys or touch the next group); the result is kept
    only if it orders the pairs (group, key) strictly, which makes it the one order lexsort gives, and lexsort runs
    otherwise (equal keys in a group, or rounding).

    >>> grp, key = np.array([0, 0, 1, 1, 1]), np.array([0.5, 0.25, 0.9, 0.0, 0.9])
    >>> _order_within_groups(grp, key).tolist(), np.lexsort((key, grp)).tolist()
    ([1, 0, 3, 2, 4], [1, 0, 3, 2, 4])
    """
    order = np.argsort(grp + key)
    g, k = grp[order], key[order]
    in_group = g[1:] == g[:-1]
    if np.all(g[1:] >= g[:-1]) and np.all(k[1:][in_group] > k[:-1][in_group]):
        return order
    return np.lexsort((key, grp))


@dataclass(frozen=True, eq=False)
class QILayout:
    """The distinct QI combinations of a table and their cells (what every run on the table shares).

    Attributes: ``combos`` (numpy.ndarray, shape (U, m)): The distinct QI combinations, in lexicographic order.
    ``row_combo`` (numpy.ndarray, shape (n,)): Index into ``combos`` of each tuple (row order). ``M``
    (scipy.sparse.csr_matrix, shape (U, n_cells)): Combination -> its m cells of the stacked count table (m ones per
    row). ``Mt`` (scipy.sparse.csr_matrix): ``M.T`` in CSR form.
    """

    combos: np.ndarray
    row_combo: np.ndarray
    M: sparse.csr_matrix
    Mt: sparse.csr_matrix


def qi_layout(table: EncodedTable) -> QILayout:
    """Distinct QI combinations of ``table`` (as ``np.unique(..., axis=0)`` orders them) and their cells.

    The combinations come from :func:`~anonlab.attacks.naive_bayes.distinct_combinations`.

    Examples
    --------
    >>> from anonlab.mechanisms.dp import encode_table
    >>> t = encode_table(pd.DataFrame({"a": ["x", "y", "x"], "b": ["u", "u", "v"], "s": [0, 1, 0]}), ["a", "b"], "s")
    >>> lay = qi_layout(t)
    >>> lay.combos.tolist(), lay.row_combo.tolist()
    ([[0, 0], [0, 1], [1, 0]], [0, 2, 1])
    """
    combos, row_combo = distinct_combinations(table)
    U, m = combos.shape
    M = sparse.csr_matrix(
        (np.ones(U * m), (np.repeat(np.arange(U), m), (combos + table.offsets[:-1]).ravel())),
        shape=(U, table.n_cells),
    )
    return QILayout(combos=combos, row_combo=row_combo, M=M, Mt=M.T.tocsr())


@dataclass(frozen=True, eq=False)
class DeFinettiResult:
    """Outcome of one run of :func:`definetti_attack`.

    ``predictions`` / ``confidence``: per method of :data:`METHODS`, the predicted SA code per tuple (row order) and
    the belief in it (NB posterior for ``group`` and ``open``, share of history iterations for ``permutation``);
    ``trace``: :math:`L_1` distance between successive joint distributions, per iteration; ``acceptance``: share of
    groups whose swap was accepted (equal values count as rejected); ``model``: NB from the counts averaged over the
    history window; ``assignment``: the final permutation; ``iterations``, ``history``; ``seconds``: wall-clock time
    of the iterations.
    """

    predictions: dict[str, np.ndarray]
    confidence: dict[str, np.ndarray]
    trace: np.ndarray
    acceptance: np.ndarray
    model: NaiveBayesModel
    assignment: np.ndarray
    iterations: int
    history: int
    seconds: float

    def accuracy(self, sa_codes: np.ndarray) -> dict[str, float]:
        """Fraction of tuples whose SA value each method predicts correctly."""
        return {m: score(self.attack_result(m, sa_codes)).precision for m in self.predictions}

    def attack_result(self, method: str, sa_codes: np.ndarray, *, attack: str | None = None) -> AttackResult:
        """One method's predictions as an :class:`~anonlab.measures.AttackResult`.

        Targets are the row numbers, truth ``sa_codes``; every tuple gets a prediction, with the method's belief as
        its confidence (the high-confidence subset is ``result.at_threshold(strictly_above(0.8))``).
        """
        check_choice("method", method, list(self.predictions))
        y = np.asarray(sa_codes)
        if y.shape != self.predictions[method].shape:
            raise ValueError(f"sa_codes has {y.size} entries, the attack predicted {self.predictions[method].size}")
        return AttackResult(attack or f"deFinetti, {method} method", np.arange(y.size), y,
                            np.ones(y.size, dtype=bool), self.predictions[method],
                            confidence=self.confidence[method],
                            resources={"iterations": self.iterations, "seconds": self.seconds})

    def scores(self, sa_codes: np.ndarray, threshold: float = 0.8) -> pd.DataFrame:
        """Accuracy, and share and accuracy of the predictions with belief > ``threshold``, per method.

        The ratios :func:`anonlab.measures.score` reports (without its intervals, which a sweep does not keep):
        accuracy is the precision of a prediction for every tuple; the confident columns are the coverage and
        precision of ``at_threshold(strictly_above(threshold))`` (NaN accuracy when no belief exceeds the threshold).
        """
        check_number("threshold", threshold, low=0, high=1, high_inclusive=False)
        rows = []
        for m in self.predictions:
            result = self.attack_result(m, sa_codes)
            confident = result.at_threshold(strictly_above(threshold))
            right, n_conf, conf_right = (int(result.is_correct().sum()), int(confident.predicted.sum()),
                                         int(confident.is_correct().sum()))
            rows.append({
                "method": m,
                "accuracy": float(precision(right, int(result.predicted.sum()) - right)),
                "n_confident": n_conf,
                "confident_share": float(coverage(n_conf, result.n_targets)),
                "confident_accuracy": float(precision(conf_right, n_conf - conf_right)),
            })
        return pd.DataFrame(rows)


def _check_positive_int(name: str, v: int) -> int:
    """An integer >= 1 (:func:`anonlab.validation.check_int`; numpy integers accepted)."""
    return check_int(name, int(v) if isinstance(v, np.integer) else v, low=1)


@dataclass(frozen=True, eq=False)
class _ChainSetup:
    """What the Markov chain of :func:`definetti_attack` reads and never changes.

    ``M``, ``Mt``: :class:`QILayout`'s combination -> cells matrix and its transpose; ``log_den_rows`` (n_cells, S):
    log of the NB denominators :math:`n_s + |T_i|`; ``laplace``; ``g_start``, ``g_size``: first position and size of
    each group of at least two tuples; ``ucode``: QI combination of each position; ``m``: number of QIs.
    """

    M: sparse.csr_matrix
    Mt: sparse.csr_matrix
    log_den_rows: np.ndarray
    laplace: float
    g_start: np.ndarray
    g_size: np.ndarray
    ucode: np.ndarray
    m: int


def _markov_chain(
    setup: _ChainSetup, assign: np.ndarray, N: np.ndarray, rng: np.random.Generator, *,
    iterations: int, history: int, moves_per_iteration: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Run the deFinetti Markov chain (steps 2-4 of the module docstring) from ``assign``, bit for bit as
    the chain as first written (``tests/reference_twins.py``).

    ``assign`` (SA code per group-sorted position) and ``N`` ((U, S) counts) are updated in place; ``rng`` draws
    ``rng.random((3, G), dtype=float32)`` per move. Returns ``trace, acceptance`` (per iteration), ``votes`` ((n * S,)
    int32: history iterations with each assignment) and ``N_hist`` (``N`` summed over the history window). Faster than
    the reference because each position carries its cell ``combination * K + SA value`` (K >= S a power of two;
    padding changes no number), pairs are gathered with 1-D ``take``, only accepted swaps are counted (``np.add.at``),
    votes are counted when a value leaves a position, and the products are dense where that gives the same numbers
    (:func:`_dense_products`).
    """
    M, Mt, laplace = setup.M, setup.Mt, setup.laplace
    g_start, m = setup.g_start, setup.m
    n = len(assign)
    G = len(g_start)
    U, S = N.shape
    K = 1 << (S - 1).bit_length()  # the padded width: a power of two >= S
    low = K - 1  # the SA value of a cell code is its low bits
    ucode = setup.ucode
    code = ucode * K + assign  # each position's cell in the flat (U, K) tables
    N_pad = np.zeros((U, K))
    N_pad[:, :S] = N
    N_flat = N_pad.reshape(-1)  # a view: updating it updates N_pad
    log_den_pad = np.zeros((setup.log_den_rows.shape[0], K))
    log_den_pad[:, :S] = setup.log_den_rows
    # float32 uniforms times float64 sizes: the products are exact, so floor(u * size) < size
    sizes_ij = np.stack([setup.g_size, setup.g_size - 1]).astype(np.float64)  # (2, G): draws of i and of j
    trace = np.empty(iterations)
    acceptance = np.empty(iterations)
    votes = np.zeros(n * K, dtype=np.int32)  # (n, K) flattened: history of assignments
    vote_shift = (np.arange(n) - ucode) * K  # code + vote_shift = position * K + SA value
    # each position's value is held at the ends of iterations since[p], since[p] + 1, ...: the votes are
    # counted when a value leaves its position (and at the end), not by a pass over all n every iteration
    h0 = iterations - history
    since = np.full(n, h0, dtype=np.int64)
    N_hist = np.zeros_like(N_pad)
    uij = np.empty((2, G))
    # the positions in int32 while they are computed (numpy casts floats to int32 several times faster
    # than to int64, with the same truncation), in int64 to index (numpy's fast gathers take int64)
    small = np.int32 if n < 2**31 else np.int64
    ij = np.empty((2, G), dtype=small)
    g_start_ij = g_start.astype(small)
    ab = np.empty((2, G), dtype=np.int64)
    cross = np.empty((2, G), dtype=np.int64)
    later, ok, differ = (np.empty(G, dtype=bool) for _ in range(3))
    delta = np.empty(G)
    C = _spmm(Mt, N_pad)
    M_at, Mt_at = _dense_products(M, Mt, np.log(C + laplace) - log_den_pad, m)
    for it in range(iterations):
        # model of the current assignment: sum_i log Pr[x_i | s] for every combination (U, K)
        LF = M_at(np.log(C + laplace) - log_den_pad).ravel()
        accepted = 0
        for _ in range(moves_per_iteration):
            # one swap proposal in every group, all groups at once: positions a (row 0) and b (row 1)
            u = rng.random((3, G), dtype=np.float32)
            np.multiply(u[:2], sizes_ij, out=uij)
            np.copyto(ij, uij, casting="unsafe")  # truncation toward zero, as the reference's astype
            np.greater_equal(ij[1], ij[0], out=later)
            ij[1] += later
            ij += g_start_ij
            np.copyto(ab, ij)
            same = code[ab]  # cells (a, s_a), (b, s_b)
            s_ab = same & low  # (s_a, s_b)
            np.bitwise_xor(same, s_ab, out=cross)
            cross |= s_ab[::-1]  # cells (a, s_b), (b, s_a)
            lf_c, lf_s = LF[cross], LF[same]
            np.add(lf_c[0], lf_c[1], out=delta)  # (lf_c[0] + lf_c[1] - lf_s[0]) - lf_s[1], in that order
            np.subtract(delta, lf_s[0], out=delta)
            np.subtract(delta, lf_s[1], out=delta)
            np.minimum(delta, 0.0, out=delta)
            np.exp(delta, out=delta)
            np.less(u[2], delta, out=ok)
            np.not_equal(s_ab[0], s_ab[1], out=differ)
            ok &= differ
            acc = np.flatnonzero(ok)
            moved, left, pos = cross.take(acc, axis=1), same.take(acc, axis=1), ab.take(acc, axis=1)
            if it >= h0:  # the values leaving their positions were held at the ends of since[p] .. it - 1
                p = pos.ravel()  # distinct positions (a != b, and groups are disjoint)
                votes[p * K + (left.ravel() & low)] += it - since[p]
                since[p] = it
            code[pos[0]] = moved[0]  # swap
            code[pos[1]] = moved[1]
            accepted += len(acc)
            # the counts are whole numbers (exact in float64), so the update's order does not matter
            np.add.at(N_flat, moved, 1.0)
            np.subtract.at(N_flat, left, 1.0)
        C_new = Mt_at(N_pad)
        trace[it] = np.abs(C_new - C).sum() / (n * m)
        acceptance[it] = accepted / (G * moves_per_iteration) if G else 0.0
        C = C_new
        if it >= h0:
            N_hist += N_pad
    votes[code + vote_shift] += iterations - since  # the final values, held since since[p]
    np.bitwise_and(code, low, out=assign)
    N[...] = N_pad[:, :S]
    return trace, acceptance, votes.reshape(n, K)[:, :S].reshape(-1), np.ascontiguousarray(N_hist[:, :S])


def _predictions(
    scores: np.ndarray, ucode: np.ndarray, present: np.ndarray, votes: np.ndarray, history: int,
    inverse: np.ndarray,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Predictions and beliefs of the three :data:`METHODS`, in row order (as the reference twin in ``tests/``).

    ``scores`` (U, S) NB log-scores per QI combination; ``ucode`` each position's combination; ``present`` (n, S) the
    SA values of its group; ``votes`` (n, S) history iterations with each assignment; ``inverse`` each row's sorted
    position. Bit for bit the reference's numbers; the open posterior is computed once per combination and gathered.
    """
    post_u = np.exp(scores - scores.max(axis=1, keepdims=True))
    post_u /= post_u.sum(axis=1, keepdims=True)
    post_g = np.where(present, post_u[ucode], 0.0)
    post_g /= post_g.sum(axis=1, keepdims=True)
    row_combo = ucode[inverse]

    def back(x: np.ndarray) -> np.ndarray:
        return x[inverse]

    pred = {
        "permutation": back(votes.argmax(axis=1)),
        "group": back(post_g.argmax(axis=1)),
        "open": post_u.argmax(axis=1)[row_combo],
    }
    conf = {
        "permutation": back(votes.max(axis=1) / history),
        "group": back(post_g.max(axis=1)),
        "open": post_u.max(axis=1)[row_combo],
    }
    return pred, conf


def definetti_attack(
    table: EncodedTable,
    release: Anatomy | np.ndarray,
    *,
    iterations: int = 1000,
    history: int = 100,
    moves_per_iteration: int = 1,
    laplace: float = 1.0,
    seed: int | np.random.Generator | None = None,
    layout: QILayout | None = None,
) -> DeFinettiResult:
    """Run the deFinetti attack on an Anatomy release (steps: the module docstring).

    Parameters: ``table`` (EncodedTable): QI codes of the published tuples (row order) and the SA domain; ``sa_codes``
    are not read when ``release`` is an :class:`~anonlab.mechanisms.anatomy.Anatomy` (score with
    :meth:`DeFinettiResult.accuracy`). ``release`` (Anatomy or numpy.ndarray): The release, or each tuple's group id
    (the ST then computed from ``table.sa_codes``). ``iterations``, ``history``, ``moves_per_iteration`` (int, default
    1000, 100, 1): Markov-chain sweeps (Cormode §3.2: 1000); final iterations the predictors use (at most
    ``iterations``); swap proposals per group between two model refreshes (unstated in the paper; ``l`` is about one
    per tuple). ``laplace`` (float, default 1): Additive correction of the counts. ``seed`` (int or
    numpy.random.Generator, optional). ``layout`` (QILayout, optional): :func:`qi_layout` of ``table``, computed once
    by a sweep.
    """
    iterations = _check_positive_int("iterations", iterations)
    history = check_int("history", int(history) if isinstance(history, np.integer) else history, low=1,
                        high=iterations)  # the window is the final iterations
    moves_per_iteration = _check_positive_int("moves_per_iteration", moves_per_iteration)
    check_number("laplace", laplace, low=0, low_inclusive=False)
    rng = check_random_state(seed)
    n, S = table.n, table.n_sa
    group = np.asarray(release.group if isinstance(release, Anatomy) else release, dtype=np.int64)
    if group.shape != (n,):
        raise ValueError(f"the release groups {group.shape[0]} tuples, the table has {n}")
    if isinstance(release, Anatomy):
        st = _st_matrix(release, table)
    else:
        st = group_sa_counts(group, table.sa_codes, S)
    if not np.array_equal(np.bincount(group, minlength=st.shape[0]), st.sum(axis=1)):
        raise ValueError("group sizes in the QI table and the SA table disagree")

    # --- layout: tuples sorted by group; distinct QI combinations -------------
    perm = np.argsort(group, kind="stable")
    sizes = st.sum(axis=1)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    lay = layout if layout is not None else qi_layout(table)
    ucode = lay.row_combo[perm]
    U, m = lay.combos.shape
    offsets = table.offsets
    M, Mt = lay.M, lay.Mt
    n_s = st.sum(axis=0).astype(float)  # SA marginal (public: the ST)
    log_den = np.log(n_s[None, :] + laplace * table.cardinalities[:, None].astype(float))  # (m, S)
    log_den_rows = np.repeat(log_den, np.diff(offsets), axis=0)  # (n_cells, S)

    assign = initial_permutation(starts, st, rng)
    N = np.bincount(ucode * S + assign, minlength=U * S).reshape(U, S).astype(float)

    movable = sizes >= 2
    t0 = time.perf_counter()
    with _blas_threads().limit(limits=1, user_api="blas"):  # small products: threads only cost time
        trace, acceptance, votes, N_hist = _markov_chain(
            _ChainSetup(M=M, Mt=Mt, log_den_rows=log_den_rows, laplace=laplace, g_start=starts[movable],
                        g_size=sizes[movable], ucode=ucode, m=m),
            assign, N, rng, iterations=iterations, history=history, moves_per_iteration=moves_per_iteration)
    seconds = time.perf_counter() - t0

    # --- predictors ------------------------------------------------------------
    C_avg = Mt @ (N_hist / history)
    model = naive_bayes_from_counts(C_avg, offsets, laplace=laplace)
    scores = M @ model.log_cond[0] + model.log_prior[0][None, :]  # (U, S)
    present = st[np.repeat(np.arange(len(sizes)), sizes)] > 0  # (n, S)
    inverse = np.empty(n, dtype=np.int64)
    inverse[perm] = np.arange(n)  # row r sits at sorted position inverse[r]
    pred, conf = _predictions(scores, ucode, present, votes.reshape(n, S), history, inverse)
    return DeFinettiResult(
        predictions=pred, confidence=conf, trace=trace, acceptance=acceptance, model=model,
        assignment=assign[inverse], iterations=iterations, history=history, seconds=seconds,
    )


@dataclass(frozen=True, eq=False)
class DeFinettiSweep:
    """Results of :func:`definetti_sweep`.

    Attributes: ``results`` (pandas.DataFrame): One row per (l, multiplier, repetition, method): ``l, multiplier,
    group_size`` (nominal, l x multiplier), ``repetition, method, accuracy, n_confident, confident_share,
    confident_accuracy, final_l1`` (mean L1 over the history window), ``seconds``. ``traces`` (pandas.DataFrame):
    Convergence traces: ``l, multiplier, repetition, iteration, l1, acceptance``. ``kept`` (dict): ``(l, multiplier,
    repetition) -> DeFinettiResult`` of the runs asked for with ``keep``.
    """

    results: pd.DataFrame
    traces: pd.DataFrame = field(repr=False)
    kept: dict[tuple[int, int, int], DeFinettiResult] = field(default_factory=dict, repr=False)


def _sweep_cell(table: EncodedTable, l: int, multipliers: Sequence[int], rng: np.random.Generator,  # noqa: E741
                attack_kw: Mapping[str, Any], ties: str = "random",
                layout: QILayout | None = None) -> Iterator[tuple[int, DeFinettiResult]]:
    """One repetition at one l: a fresh Anatomy, then the attack on each group size in turn (one generator)."""
    tight = anatomy_groups(table.sa_codes, l, seed=rng, ties=ties)
    for mult in multipliers:
        group = tight if mult == 1 else merge_groups(tight, mult)
        yield mult, definetti_attack(table, group, seed=rng, layout=layout, **attack_kw)


def replay_sweep_run(
    table: EncodedTable,
    l_grid: Sequence[int],
    multipliers: Sequence[int],
    *,
    l: int,  # noqa: E741
    multiplier: int,
    repetition: int = 0,
    repetitions: int = 5,
    iterations: int = 1000,
    history: int = 100,
    moves_per_iteration: int = 1,
    ties: str = "random",
    seed: int | None = None,
) -> DeFinettiResult:
    """Rerun one run of :func:`definetti_sweep` exactly, keeping its per-tuple predictions.

    The sweep keeps scores only (a stored sweep would otherwise hold every run's predictions; ask for the few runs you
    need with its ``keep``); this replays the run at (``repetition``, ``l``, ``multiplier``) with the same arguments
    and seed, so its :meth:`DeFinettiResult.scores` are that run's row of the sweep. The group sizes before
    ``multiplier`` in ``multipliers`` run first, as in the sweep (they share one generator).
    """
    ls = [int(x) for x in l_grid]
    mults = [int(x) for x in multipliers]
    repetitions = _check_positive_int("repetitions", repetitions)
    if l not in ls or multiplier not in mults:
        raise ValueError(f"l = {l} and multiplier = {multiplier} must be in l_grid {ls} and multipliers {mults}")
    check_int("repetition", repetition, low=0, high=repetitions - 1)
    if seed is None:
        raise ValueError("replay_sweep_run needs the sweep's seed (an int); seed=None cannot be replayed")
    seqs = np.random.SeedSequence(seed).spawn(repetitions * len(ls))  # as definetti_sweep spawns them
    rng = np.random.default_rng(seqs[repetition * len(ls) + ls.index(l)])
    attack_kw = dict(iterations=iterations, history=history, moves_per_iteration=moves_per_iteration)
    for mult, res in _sweep_cell(table, l, mults[: mults.index(multiplier) + 1], rng, attack_kw, ties):
        if mult == multiplier:
            return res
    raise AssertionError("unreachable")  # pragma: no cover


def _cell_job(table: EncodedTable, layout: QILayout, l: int, mults: Sequence[int],  # noqa: E741
              seq: np.random.SeedSequence, attack_kw: Mapping[str, Any], ties: str, threshold: float,
              keep: Sequence[int]) -> list[tuple[int, pd.DataFrame, np.ndarray, np.ndarray, DeFinettiResult | None]]:
    """One (repetition, l) cell of a sweep: per group size its scores, trace, acceptance and (if kept) the run."""
    rng = np.random.default_rng(seq)
    out = []
    for mult, res in _sweep_cell(table, l, mults, rng, attack_kw, ties, layout):
        sc = res.scores(table.sa_codes, threshold)
        sc["final_l1"] = float(res.trace[-attack_kw["history"]:].mean())
        sc["seconds"] = res.seconds
        out.append((mult, sc, res.trace, res.acceptance, res if mult in keep else None))
    return out


def definetti_sweep(
    table: EncodedTable,
    l_grid: Sequence[int],
    *,
    multipliers: Sequence[int] = (1, 2),
    repetitions: int = 5,
    iterations: int = 1000,
    history: int = 100,
    moves_per_iteration: int = 1,
    threshold: float = 0.8,
    ties: str = "random",
    seed: int | None = None,
    keep: Sequence[tuple[int, int, int]] = (),
    progress: Callable[[str], None] | None = None,
    n_jobs: int | None = None,
) -> DeFinettiSweep:
    """Cormode's Fig. 4 experiment: the deFinetti attack for every l in ``l_grid`` and group size.

    Per repetition and l, Anatomy groups the tuples afresh (:func:`~anonlab.mechanisms.anatomy.anatomy_groups`,
    tie-break ``ties``); each of ``multipliers`` merges adjacent groups (1: size l, 2: 2l, 3: 3l) and the attack runs
    from its own start. Each (repetition, l) has its own generator spawned from ``seed``, so ``n_jobs`` worker
    processes give the same numbers. ``iterations``, ``history``, ``moves_per_iteration``: as
    :func:`definetti_attack`; ``threshold``: belief of a high-confidence prediction; ``keep``: (l, multiplier,
    repetition) runs whose whole :class:`DeFinettiResult` is kept; ``progress`` is called after each run. Returns a
    :class:`DeFinettiSweep`.
    """
    return definetti_sweeps([dict(
        table=table, l_grid=l_grid, multipliers=multipliers, repetitions=repetitions, iterations=iterations,
        history=history, moves_per_iteration=moves_per_iteration, threshold=threshold, ties=ties, seed=seed,
        keep=keep)], progress=progress, n_jobs=n_jobs)[0]


_SWEEP_DEFAULTS: dict[str, Any] = dict(multipliers=(1, 2), repetitions=5, iterations=1000, history=100,
                                       moves_per_iteration=1, threshold=0.8, ties="random", seed=None, keep=())


def sweep_key(spec: Mapping[str, Any]) -> dict[str, Any]:
    """Every input a sweep's result depends on: a digest of its table (:func:`table_digest`) and its arguments.

    ``spec`` holds :func:`definetti_sweep`'s arguments (defaults filled in); a result cache keys the sweep on this.
    """
    sp = {**_SWEEP_DEFAULTS, **dict(spec)}
    key = dict(table=table_digest(sp["table"]), l_grid=[int(x) for x in sp["l_grid"]],
               multipliers=[int(x) for x in sp["multipliers"]], repetitions=sp["repetitions"],
               iterations=sp["iterations"], history=sp["history"], moves_per_iteration=sp["moves_per_iteration"],
               threshold=sp["threshold"], seed=sp["seed"])
    if sp["ties"] != "random":
        key["ties"] = sp["ties"]
    keep = sorted({(int(a), int(b), int(c)) for a, b, c in sp["keep"]})
    if keep:
        key["keep"] = [list(k) for k in keep]
    return key


def definetti_sweeps(
    specs: Sequence[Mapping[str, Any]],
    *,
    progress: Callable[[str], None] | None = None,
    n_jobs: int | None = None,
) -> list[DeFinettiSweep]:
    """Several :func:`definetti_sweep`\\ s at once, their runs sharing one pool of worker processes.

    Each spec holds :func:`definetti_sweep`'s arguments (``table`` and ``l_grid`` required, the rest defaulting as
    there). The results are those of the sweeps run one by one.
    """
    return start_sweeps(specs, progress=progress, n_jobs=n_jobs).result()


def start_sweeps(
    specs: Sequence[Mapping[str, Any]],
    *,
    progress: Callable[[str], None] | None = None,
    n_jobs: int | None = None,
) -> PendingSweeps:
    """Start :func:`definetti_sweeps` in worker processes and return at once; ``.result()`` collects.

    The caller can do other work while the chains run (the chapter runs the naive attack meanwhile). With one worker
    (``n_jobs = 1``, or no ``fork``) the runs happen in ``.result()``.
    """
    full = [{**_SWEEP_DEFAULTS, **dict(spec)} for spec in specs]
    for spec in full:
        spec["ties"] = check_choice("ties", spec["ties"], TIES)
        spec["repetitions"] = _check_positive_int("repetitions", spec["repetitions"])
        for mult in spec["multipliers"]:
            _check_positive_int("multiplier", mult)
    return PendingSweeps(full, progress, 1 if n_jobs is None else int(n_jobs))


class PendingSweeps:
    """Sweeps whose runs are under way in a pool of worker processes (see :func:`start_sweeps`)."""

    def __init__(self, full: list[dict[str, Any]], progress: Callable[[str], None] | None, n_jobs: int) -> None:
        import multiprocessing as mp

        self._full, self._progress = full, progress
        self._jobs, self._index = _sweep_jobs(full)
        self._executor, self._futures = None, None
        if n_jobs > 1 and len(self._jobs) > 1 and "fork" in mp.get_all_start_methods():
            from concurrent.futures import ProcessPoolExecutor

            self._executor = ProcessPoolExecutor(max_workers=min(n_jobs, len(self._jobs)),
                                                 mp_context=mp.get_context("fork"))
            # the dearest runs first, so that the workers finish together
            order = sorted(range(len(self._jobs)), key=lambda k: -_job_cost(self._jobs[k]))
            futures = {k: self._executor.submit(_cell_job, *self._jobs[k]) for k in order}
            self._futures = [futures[k] for k in range(len(self._jobs))]

    def result(self) -> list[DeFinettiSweep]:
        """Wait for the runs and return the sweeps, in the order of the specs."""
        try:
            if self._futures is not None:
                outputs = [f.result() for f in self._futures]
            else:
                outputs = [_cell_job(*job) for job in self._jobs]
        finally:
            if self._executor is not None:
                self._executor.shutdown()
        return _assemble(self._full, self._index, outputs, self._progress)


def _job_cost(job: tuple) -> float:
    """A rough cost of one cell: iterations x proposals x (groups over all multipliers + a fixed part)."""
    table, _, l, mults, _, attack_kw = job[:6]  # noqa: E741
    groups = sum(table.n / (l * mu) for mu in mults)
    return attack_kw["iterations"] * attack_kw["moves_per_iteration"] * (groups + 3000 * len(mults))


def _sweep_jobs(full: Sequence[Mapping[str, Any]]) -> tuple[list[tuple], list[tuple[int, int, int]]]:
    """The (repetition, l) cells of the sweeps as :func:`_cell_job` arguments, and (sweep, repetition, l) of each."""
    jobs, index = [], []
    layouts: dict[int, QILayout] = {}
    for si, sp in enumerate(full):
        table, ls, mults = sp["table"], [int(x) for x in sp["l_grid"]], [int(x) for x in sp["multipliers"]]
        keep = sorted({(int(a), int(b), int(c)) for a, b, c in sp["keep"]})
        seqs = np.random.SeedSequence(sp["seed"]).spawn(sp["repetitions"] * len(ls))
        attack_kw = dict(iterations=sp["iterations"], history=sp["history"],
                         moves_per_iteration=sp["moves_per_iteration"])
        layout = layouts.setdefault(id(table), qi_layout(table))
        for r in range(sp["repetitions"]):
            for li, l in enumerate(ls):  # noqa: E741
                jobs.append((table, layout, l, mults, seqs[r * len(ls) + li], attack_kw, sp["ties"],
                             sp["threshold"], [k[1] for k in keep if k[0] == l and k[2] == r]))
                index.append((si, r, l))
    return jobs, index


def _assemble(full: Sequence[Mapping[str, Any]], index: Sequence[tuple[int, int, int]], outputs: Sequence[list],
              progress: Callable[[str], None] | None) -> list[DeFinettiSweep]:
    """Each sweep's results and traces from its cells' outputs (in the order a serial sweep gives them)."""
    parts: list[tuple[list, list, dict]] = [([], [], {}) for _ in full]
    for (si, r, l), out in zip(index, outputs):  # noqa: E741
        rows, traces, kept = parts[si]
        iterations = full[si]["iterations"]
        for mult, sc, trace, acceptance, res in out:
            sc.insert(0, "repetition", r)
            sc.insert(0, "group_size", l * mult)
            sc.insert(0, "multiplier", mult)
            sc.insert(0, "l", l)
            rows.append(sc)
            traces.append(pd.DataFrame({
                "l": l, "multiplier": mult, "repetition": r,
                "iteration": np.arange(1, iterations + 1),
                "l1": trace, "acceptance": acceptance,
            }))
            if res is not None:
                kept[(l, mult, r)] = res
            if progress is not None:
                acc = ", ".join(f"{m} {a:.3f}" for m, a in zip(sc["method"], sc["accuracy"]))
                progress(f"sweep {si}: l={l} size {l * mult}x rep {r}: {acc} ({sc['seconds'].iloc[0]:.1f} s)")
    return [DeFinettiSweep(results=pd.concat(rows, ignore_index=True), traces=pd.concat(traces, ignore_index=True),
                           kept=kept) for rows, traces, kept in parts]


def kept_run(l_grid: Sequence[int], multipliers: Sequence[int]) -> tuple[int, int, int]:
    """The run of the sweep the yardstick keeps: (largest l, smallest multiplier, repetition 0).

    >>> kept_run([2, 7, 3], [2, 1])
    (7, 1, 0)
    """
    return int(max(l_grid)), int(min(multipliers)), 0


def definetti_attack_records(table: EncodedTable, sweep: DeFinettiSweep, l_grid: Sequence[int],
                             multipliers: Sequence[int], non_members: EncodedTable | None = None,
                             ) -> dict[str, tuple[AttackResult, AttackResult]]:
    """The deFinetti attack's three methods as :class:`~anonlab.measures.AttackResult`\\ s, with their baseline.

    Repetition 0 of the sweep at the largest l with the smallest group multiplier, which the sweep keeps
    (``keep=``:func:`kept_run` ``(...)``); :func:`replay_sweep_run` reruns it exactly. The baseline is
    :func:`~anonlab.attacks.naive_bayes.baseline_on`: naive Bayes fitted on ``non_members`` (people not in the
    release, same quasi-identifiers and secret) over the attributes the attacker knows, else the majority guess.
    """
    key = kept_run(l_grid, multipliers)
    if key not in sweep.kept:
        raise ValueError(f"the sweep did not keep run (l, multiplier, repetition) = {key}: pass keep=[{key}]")
    run: DeFinettiResult = sweep.kept[key]
    l, mult, _ = key  # noqa: E741
    base = baseline_on(table, non_members)
    out = {}
    for m in METHODS:
        name = f"deFinetti on Anatomy ({m} method, l = {l}, size {mult}l), {table.sa_name}"
        out[name] = (run.attack_result(m, table.sa_codes, attack=name), base)
    return out


def table_digest(table: EncodedTable) -> str:
    """SHA-256 (first 20 hex digits) of an encoded table's codes, names and domains."""
    h = hashlib.sha256()
    for arr in (table.qi_codes, table.sa_codes):
        h.update(np.ascontiguousarray(arr, dtype=np.int64).tobytes())
    h.update(json.dumps([table.qi_names, table.sa_name, [list(map(str, d)) for d in table.qi_domains],
                         list(map(str, table.sa_domain)), np.__version__], sort_keys=True).encode())
    return h.hexdigest()[:20]


def summarize_sweep(results: pd.DataFrame) -> pd.DataFrame:
    """Min, mean and max over repetitions per (multiplier, l, method), as Cormode plots them (Fig. 4).

    Columns: ``multiplier, l, group_size, method`` and ``accuracy_min / _mean / _max``, ``accuracy_sd`` (sample
    standard deviation over the repetitions, NaN for one) and ``repetitions``, ``confident_share_mean``,
    ``confident_accuracy_mean``, ``final_l1_mean``.
    """
    g = results.groupby(["multiplier", "l", "group_size", "method"], sort=True)
    out = g.agg(
        accuracy_min=("accuracy", "min"),
        accuracy_mean=("accuracy", "mean"),
        accuracy_max=("accuracy", "max"),
        accuracy_sd=("accuracy", "std"),
        repetitions=("accuracy", "size"),
        confident_share_mean=("confident_share", "mean"),
        confident_accuracy_mean=("confident_accuracy", "mean"),
        final_l1_mean=("final_l1", "mean"),
    )
    return out.reset_index()


@dataclass(frozen=True)
class Fig4:
    """Cormode's Fig. 4: a sweep's summary (:func:`summarize_sweep`) with lookups, made by :func:`fig4_of`.

    ``noiseless`` is the accuracy of the Naive-Bayes classifier built from the exact counts of the deFinetti target
    (:func:`noiseless_accuracy`); ``runs`` the sweep's rows, one per (multiplier, l, repetition, method), from which
    :meth:`values` reads each repetition's accuracy (with the share and accuracy of its high-confidence predictions,
    ``confident_share`` and ``confident_accuracy``, when the sweep has them).
    """

    summary: pd.DataFrame
    noiseless: float
    l_grid: list[int]
    multipliers: list[int]
    runs: pd.DataFrame | None = None

    def values(self, mult: int, l: int, method: str) -> list[float]:  # noqa: E741
        """The accuracy of each repetition (in repetition order), ``[]`` when not run or without :attr:`runs`."""
        R = self.runs
        if R is None:
            return []
        hit = R[(R["multiplier"] == mult) & (R["l"] == l) & (R["method"] == method)].sort_values("repetition")
        return [float(v) for v in hit["accuracy"]]

    def acc(self, mult: int, l: int, method: str) -> float | None:  # noqa: E741
        """Mean accuracy over repetitions, or ``None`` when not run."""
        S = self.summary
        hit = S[(S["multiplier"] == mult) & (S["l"] == l) & (S["method"] == method)]
        return float(hit["accuracy_mean"].iloc[0]) if len(hit) else None

    def best(self, mult: int, l: int) -> float | None:  # noqa: E741
        """The best of the three methods' mean accuracies."""
        vals = [self.acc(mult, l, m) for m in METHODS]
        return None if None in vals else max(vals)

    def best_method(self, mult: int, l: int) -> str | None:  # noqa: E741
        """The method whose mean accuracy is :meth:`best` (the first of :data:`METHODS` on a tie)."""
        vals = [self.acc(mult, l, m) for m in METHODS]
        return None if None in vals else METHODS[int(np.argmax(vals))]

    def interval(self, mult: int, l: int, method: str,  # noqa: E741
                 confidence: float = 0.95) -> tuple[float, float] | None:
        """Student-t interval of the mean accuracy over the repetitions: mean ± t s / sqrt(r), within [0, 1].

        ``t`` is the (1 + confidence) / 2 quantile of Student's t with r - 1 degrees of freedom, ``s`` the
        repetitions' sample standard deviation (an accuracy, so the ends are clipped to [0, 1]); (NaN, NaN) with one
        repetition, ``None`` when not run.
        """
        S = self.summary
        hit = S[(S["multiplier"] == mult) & (S["l"] == l) & (S["method"] == method)]
        if not len(hit) or not np.isfinite(hit["accuracy_mean"].iloc[0]):
            return None
        row = hit.iloc[0]
        lo, hi = t_interval(float(row["accuracy_mean"]), float(row["accuracy_sd"]), int(row["repetitions"]),
                            confidence)
        return (lo, hi) if math.isnan(lo) else (max(lo, 0.0), min(hi, 1.0))

    @property
    def tight(self) -> bool:
        return 1 in self.multipliers


def noiseless_accuracy(table: EncodedTable) -> float:
    """Accuracy on ``table`` of the Naive-Bayes classifier built from its exact counts (ε = ∞)."""
    return float(naive_attack(table, [math.inf])["accuracy"].iloc[0])


def fig4_of(sweep: DeFinettiSweep, table: EncodedTable, l_grid: Sequence[int], multipliers: Sequence[int]) -> Fig4:
    """:class:`Fig4` of a sweep on ``table`` (its noiseless classifier from ``table``'s exact counts).

    Configurations (multiplier, l, method) the sweep did not run get NaN rows, so that a lookup gives NaN rather than
    failing.
    """
    S = summarize_sweep(sweep.results)
    full = pd.MultiIndex.from_product([list(multipliers), list(l_grid), sorted(METHODS)],
                                      names=["multiplier", "l", "method"])
    if len(S) < len(full):
        cols = list(S.columns)
        S = S.set_index(["multiplier", "l", "method"]).reindex(full).reset_index()
        S["group_size"] = S["multiplier"] * S["l"]
        S = S[cols]
    cols = ["multiplier", "l", "repetition", "method", "accuracy"]
    cols += [c for c in ("confident_share", "confident_accuracy") if c in sweep.results]
    runs = sweep.results[cols].reset_index(drop=True)
    return Fig4(S, noiseless_accuracy(table), list(l_grid), list(multipliers), runs)


# ---------------------------------------------------------------------------
# Cormode's Fig. 4 experiment with its reruns
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Sweeps:
    """Fig. 4's sweeps (:func:`fig4_sweep_specs`): the main one, each alternative reading's, the ``check_moves`` rerun.

    ``alternatives`` maps an alternative's label to its table and sweep (the whole grid of l and group sizes, as the
    main sweep).
    """

    main: DeFinettiSweep
    alternatives: dict[str, tuple[EncodedTable, DeFinettiSweep]]
    more: DeFinettiSweep | None


def fig4_sweep_specs(table: EncodedTable, l_grid: Sequence[int], multipliers: Sequence[int],
                     alternatives: Mapping[str, tuple[EncodedTable, str]], *, seed: int, check_moves: int,
                     repetitions: int, reading_repetitions: int | None = None,
                     **protocol: Any) -> dict[Any, dict[str, Any]]:
    """The :func:`definetti_sweeps` specs of Fig. 4's experiment, by key.

    ``"main"``: the sweep of ``table`` over ``l_grid`` and ``multipliers`` from ``seed``, ``repetitions`` times,
    keeping the run :func:`kept_run` (for the yardstick). ``("reading", label)``: the same grid for each alternative
    reading ``{label: (table, ties)}``, from the same ``seed`` (so a reading that changes only the table replays the
    main sweep's Anatomy groupings and random starts), ``reading_repetitions`` times (default ``repetitions``), with
    the same ``protocol`` (iterations, history, moves_per_iteration, threshold). ``"more"``: the largest l with tight
    groups and ``check_moves`` proposals per group per iteration, from ``legacy_seed(seed, "definetti.more_moves")``
    (none when ``check_moves`` is 0 or there are no tight groups).
    """
    specs: dict[Any, dict[str, Any]] = {"main": dict(table=table, l_grid=l_grid, multipliers=multipliers, seed=seed,
                                                     repetitions=repetitions,
                                                     keep=[kept_run(l_grid, multipliers)], **protocol)}
    for label, (tab, ties) in alternatives.items():
        specs["reading", label] = dict(table=tab, l_grid=l_grid, multipliers=multipliers, ties=ties, seed=seed,
                                       repetitions=reading_repetitions or repetitions, **protocol)
    if check_moves and 1 in multipliers:
        specs["more"] = dict(table=table, l_grid=[max(l_grid)], multipliers=[1],
                             seed=legacy_seed(seed, "definetti.more_moves"),
                             repetitions=repetitions, **{**protocol, "moves_per_iteration": check_moves})
    return specs


def collect_sweeps(sweeps: Mapping[Any, DeFinettiSweep],
                   alternatives: Mapping[str, tuple[EncodedTable, str]]) -> Sweeps:
    """:class:`Sweeps` from the sweeps of :func:`fig4_sweep_specs` (by the same keys)."""
    return Sweeps(main=sweeps["main"], more=sweeps.get("more"),
                  alternatives={label: (tab, sweeps["reading", label]) for label, (tab, _) in alternatives.items()})


def plateau(trace: Sequence[float], rel: float = 0.1) -> bool:
    """Cormode's "almost converge" (§3.2): the mean of an L1 trace's last tenth is within ``rel`` of the tenth before.

    A sampler never stops moving, so the L1 distance between successive joints settles on a plateau, not zero.
    """
    t = np.asarray(trace, dtype=float)
    k = max(1, len(t) // 10)
    last, before = t[-k:].mean(), t[-2 * k:-k].mean() if len(t) >= 2 * k else np.nan
    return bool(abs(last / before - 1) <= rel) if before > 0 else bool(last == 0)


def convergence(sweep: DeFinettiSweep, rel: float = 0.1) -> tuple[pd.Series, pd.Series]:
    """Per run: on a :func:`plateau` (``rel``)? Per (multiplier, l, method): max − min accuracy over repetitions."""
    conv = sweep.traces.groupby(["l", "multiplier", "repetition"])["l1"].apply(lambda s: plateau(s.to_numpy(), rel))
    spread = sweep.results.groupby(["multiplier", "l", "method"])["accuracy"].agg(lambda a: a.max() - a.min())
    return conv, spread


def moves_check(sweep: DeFinettiSweep, more: DeFinettiSweep | None, *, l_top: int, moves: int,
                more_moves: int) -> tuple[pd.DataFrame | None, dict[str, float]]:
    """Repetition spread at the largest l (tight groups) with ``moves`` and ``more_moves`` proposals per group.

    ``more`` is the sweep rerun with ``more_moves`` (``None`` when skipped). Returns the per-repetition accuracies and
    the numbers the text quotes.
    """
    nan = float("nan")
    if more is None:
        return None, {"moves_spread_more": nan, "moves_spread_base": nan, "moves_best_more": nan,
                      "check_moves": more_moves}
    R = sweep.results
    both = pd.concat({f"{moves} per group": R[(R["multiplier"] == 1) & (R["l"] == l_top)],
                      f"{more_moves} per group": more.results}, names=["proposals per iteration"])
    per_rep = both.pivot_table(index=["proposals per iteration", "repetition"], columns="method", values="accuracy")
    spreads = both.groupby(level=0).apply(
        lambda d: d.groupby("method")["accuracy"].agg(lambda a: a.max() - a.min()).max())
    best_more = more.results.groupby(["repetition", "method"])["accuracy"].first().unstack().max(axis=1).mean()
    return per_rep, {"moves_spread_more": float(spreads[f"{more_moves} per group"]),
                     "moves_spread_base": float(spreads[f"{moves} per group"]),
                     "moves_best_more": float(best_more), "check_moves": more_moves}

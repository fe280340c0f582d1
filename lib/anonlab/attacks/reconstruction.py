"""The census reconstruction attack: an integer program per block, then linkage.

Francis & Wagner ([FW24] §3.1) on the Census Bureau's attack on the 2010 block tables, here on the synthetic blocks of
:mod:`anonlab.data.census_blocks`. :func:`reconstruct_block` solves for the counts x_t >= 0 of the 644 person types
(sex × age bin × race × Hispanic) with HiGHS (:func:`scipy.optimize.milp`): A x = b for consistent tables, min Σ|A x -
b| with the published total for noisy ones; a second solve with a no-good cut decides whether the solution is unique
(derivation: chapter 4, §What is published, and the attack). :func:`reconstruct` runs all blocks in process, on local
workers or on any executor's ``map`` (a Dask cluster). :func:`reconstruction_attack` links commercial records (block,
sex, age) to the reconstructed records and predicts their majority race × Hispanic group;
:func:`block_majority_attack` is Francis's baseline.

>>> from anonlab.data.census_blocks import generate_blocks
>>> from anonlab.mechanisms.census import publish
>>> pop = generate_blocks(3, mean_block_size=6, seed=0)
>>> pub = publish(pop, "exact")
>>> rec = reconstruct(pub)
>>> bool((rec.counts.sum(axis=1) == pop.block_sizes).all())
True
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from ..data.census_blocks import N_AGE_BINS, N_GROUPS, N_TYPES, BlockPopulation, age_bin  # noqa: F401 (doctests)
from ..measures.protocol import BLOCK_MAJORITY, AttackResult
from ..intervals import wilson_interval
from ..mechanisms.census import Publication, publish
from ..validation import check_int, check_number, check_random_state

__all__ = [
    "BlockSolution",
    "Reconstruction",
    "reconstruct_block",
    "reconstruct",
    "exact_match_rate",
    "linkage_records",
    "reconstruction_attack",
    "block_majority_attack",
    "person_flags",
    "CensusExperiment",
    "census_experiment",
    "decomposition",
    "projection",
    "US_POPULATED_BLOCKS",
    "person_homogeneity",
    "by_homogeneity",
]


@dataclass(frozen=True)
class BlockSolution:
    """One block's reconstruction: type counts, uniqueness, L1 deviation, solver status."""

    counts: np.ndarray
    unique: bool | None
    deviation: float
    status: str


def _solve(c: np.ndarray, integrality: np.ndarray, lb: np.ndarray, ub: np.ndarray,
           constraints: Sequence[LinearConstraint], time_limit: float):
    return milp(c, integrality=integrality, bounds=Bounds(lb, ub), constraints=list(constraints),
                options={"time_limit": time_limit, "disp": False})


def reconstruct_block(tables: np.ndarray, matrix: sp.csr_matrix, *, exact: bool = True,
                      total_cell: int = 0, check_unique: bool = True,
                      time_limit: float = 10.0) -> BlockSolution:
    """Reconstruct one block's person-type counts from its published cells ``tables`` and ``matrix`` A.

    ``exact``: solve A x = b over the types whose every cell is positive; otherwise (DP) minimise Σ|A x - b| with Σ x
    = b[``total_cell``] (P1). ``check_unique`` adds the no-good solve; ``time_limit`` is seconds per solve. Two White
    people aged 85+, a Hispanic man (type 309) and a non-Hispanic woman (630) are told apart only with P12H (sex × age
    for Hispanics):

    >>> from anonlab.mechanisms.census import table_spec, tabulate
    >>> x = np.zeros((1, N_TYPES), dtype=int); x[0, [309, 630]] = 1
    >>> full, basic = table_spec("sf1"), table_spec("sf1_basic")
    >>> s = reconstruct_block(tabulate(x, full)[0], full.matrix)
    >>> s.unique, bool((s.counts == x[0]).all())
    (True, True)
    >>> reconstruct_block(tabulate(x, basic)[0], basic.matrix).unique
    False
    """
    b = np.asarray(tables, dtype=float)
    n = max(int(round(b[total_cell])), 0)
    a = matrix.tocsr()
    if n == 0:
        return BlockSolution(np.zeros(a.shape[1], dtype=np.int64), True, 0.0, "empty")
    if exact:
        zero_cells = (b <= 0).astype(float)
        cand = np.flatnonzero(np.asarray(a.T @ zero_cells).ravel() == 0)
        sub = a[:, cand]
        rows = np.flatnonzero(np.diff(sub.indptr) > 0)
        if np.any(b[np.setdiff1d(np.arange(a.shape[0]), rows)] != 0) or cand.size == 0:
            return reconstruct_block(tables, matrix, exact=False, total_cell=total_cell,
                                     check_unique=check_unique, time_limit=time_limit)
        sub = sub[rows]
        k = cand.size
        eq = [LinearConstraint(sub, b[rows], b[rows])]
        res = _solve(np.zeros(k), np.ones(k), np.zeros(k), np.full(k, n), eq, time_limit)
        if res.status != 0 or res.x is None:
            return reconstruct_block(tables, matrix, exact=False, total_cell=total_cell,
                                     check_unique=check_unique, time_limit=time_limit)
        x1 = np.rint(res.x).astype(np.int64)
        unique = _is_unique(x1, n, eq, np.zeros(k), np.zeros(0), time_limit) if check_unique else None
        counts = np.zeros(a.shape[1], dtype=np.int64)
        counts[cand] = x1
        return BlockSolution(counts, unique, 0.0, "exact")
    m, k = a.shape
    # variables: x (k, integer), e+ (m), e- (m); A x - e+ + e- = b ; sum x = n
    big = sp.hstack([a, -sp.identity(m), sp.identity(m)]).tocsr()
    total = sp.csr_matrix(np.concatenate([np.ones(k), np.zeros(2 * m)])[None, :])
    cons = [LinearConstraint(big, b, b), LinearConstraint(total, n, n)]
    c = np.concatenate([np.zeros(k), np.ones(2 * m)])
    integ = np.concatenate([np.ones(k), np.zeros(2 * m)])
    lb = np.zeros(k + 2 * m)
    ub = np.concatenate([np.full(k, n), np.full(2 * m, np.inf)])
    res = _solve(c, integ, lb, ub, cons, time_limit)
    if res.x is None:
        return BlockSolution(np.zeros(k, dtype=np.int64), None, math.nan, f"failed: {res.message}")
    x1 = np.rint(res.x[:k]).astype(np.int64)
    dev = float(res.fun)
    unique = None
    if check_unique:
        # same optimal deviation (integer data: the optimum is an integer), another x
        best = sp.csr_matrix(c[None, :])
        unique = _is_unique(x1, n, cons + [LinearConstraint(best, -np.inf, round(dev) + 0.5)], c,
                            np.zeros(2 * m), time_limit, integ_extra=np.zeros(2 * m), ub_extra=ub[k:])
    return BlockSolution(x1, unique, dev, "l1")


def _is_unique(x1: np.ndarray, n: int, constraints: list[LinearConstraint], c: np.ndarray,
               lb_extra: np.ndarray, time_limit: float, integ_extra: np.ndarray | None = None,
               ub_extra: np.ndarray | None = None) -> bool:
    """Is ``x1`` the only solution? Infeasibility of x_t + (n - x1_t + 1) z_t <= n, Σ z_t >= 1 (z binary)."""
    k = x1.size
    extra = lb_extra.size
    support = np.flatnonzero(x1 > 0)
    s = support.size
    width = k + extra + s
    widen = [LinearConstraint(sp.hstack([con.A, sp.csr_matrix((con.A.shape[0], s))]).tocsr(), con.lb, con.ub)
             for con in constraints]
    # x_t + (n - x1_t + 1) z_t <= n for t in the support; sum z >= 1
    rows = np.arange(s)
    cut = sp.csr_matrix((np.concatenate([np.ones(s), n - x1[support] + 1.0]),
                         (np.concatenate([rows, rows]), np.concatenate([support, k + extra + rows]))),
                        shape=(s, width))
    pick = sp.csr_matrix(np.concatenate([np.zeros(k + extra), np.ones(s)])[None, :])
    widen += [LinearConstraint(cut, -np.inf, n), LinearConstraint(pick, 1, np.inf)]
    integ = np.concatenate([np.ones(k), integ_extra if integ_extra is not None else np.zeros(0), np.ones(s)])
    lb = np.zeros(width)
    ub = np.concatenate([np.full(k, n), ub_extra if ub_extra is not None else np.zeros(0), np.ones(s)])
    res = _solve(np.zeros(width), integ, lb, ub, widen, time_limit)
    return res.status != 0  # infeasible (status 2): no other solution


def _solve_chunk(tables: np.ndarray, matrix: sp.csr_matrix, exact: bool, total_cell: int,
                 check_unique: bool, time_limit: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    counts = np.zeros((tables.shape[0], matrix.shape[1]), dtype=np.int64)
    unique = np.full(tables.shape[0], np.nan)
    deviation = np.zeros(tables.shape[0])
    seconds = np.zeros(tables.shape[0])
    for i, row in enumerate(tables):
        t0 = time.process_time()
        sol = reconstruct_block(row, matrix, exact=exact, total_cell=total_cell, check_unique=check_unique,
                                time_limit=time_limit)
        seconds[i] = time.process_time() - t0
        counts[i] = sol.counts
        unique[i] = np.nan if sol.unique is None else float(sol.unique)
        deviation[i] = sol.deviation
    return counts, unique, deviation, seconds


@dataclass(frozen=True)
class Reconstruction:
    """All blocks' reconstructions: ``counts`` (blocks × 644), ``unique`` (1, 0, NaN unchecked), ``deviation`` (L1).

    ``seconds`` is CPU time per block (blocks with identical tables share one solve's time); ``wall_seconds`` the
    whole run; ``workers`` what ran it.
    """

    counts: np.ndarray
    unique: np.ndarray
    deviation: np.ndarray
    seconds: np.ndarray
    mechanism: str
    wall_seconds: float
    workers: str

    def throughput(self) -> float:
        """Blocks per CPU second (one worker)."""
        total = float(self.seconds.sum())
        return self.seconds.size / total if total > 0 else math.inf

    def records(self) -> pd.DataFrame:
        """The reconstructed person records: block, sex, age_bin, group (one row per person)."""
        blk, typ = np.nonzero(self.counts)
        reps = self.counts[blk, typ]
        blk, typ = np.repeat(blk, reps), np.repeat(typ, reps)
        return pd.DataFrame({"block": blk, "sex": typ // (N_GROUPS * N_AGE_BINS),
                             "age_bin": (typ // N_GROUPS) % N_AGE_BINS, "group": typ % N_GROUPS})


def reconstruct(publication: Publication, *, check_unique: bool = True, n_workers: int = 1,
                parallel_map: Callable[..., Iterable[Any]] | None = None, chunk_size: int | None = None,
                time_limit: float = 10.0) -> Reconstruction:
    """Reconstruct every block of a publication, blocks in parallel (a :class:`Reconstruction`).

    ``parallel_map(fn, *iterables)`` runs the chunks of blocks (a ``concurrent.futures`` executor's ``map``, a Dask
    client's ``get_executor().map``); ``n_workers`` is then its worker count. Without it, ``n_workers`` local
    processes (1: in this process). ``chunk_size`` blocks per task (default about four tasks per worker);
    ``time_limit`` seconds per solve.
    """
    check_int("n_workers", n_workers, low=1)
    check_number("time_limit", time_limit, low=0, low_inclusive=False)
    tables, inverse = _distinct_rows(publication.tables)
    n = tables.shape[0]
    matrix = publication.spec.matrix
    total_cell = publication.spec.slices["P1"].start
    args = (matrix, publication.exact, total_cell, check_unique, time_limit)
    t0 = time.perf_counter()
    if parallel_map is None and (n_workers == 1 or n == 1):
        parts = [_solve_chunk(tables, *args)]
        workers = "in-process"
    else:
        chunks = _chunks(n, chunk_size or max(1, math.ceil(n / (4 * n_workers))))
        chunk_args = ([tables[s] for s in chunks], *[[a] * len(chunks) for a in args])
        if parallel_map is not None:
            parts = list(parallel_map(_solve_chunk, *chunk_args))
            workers = f"{getattr(parallel_map, '__qualname__', 'map')} ({n_workers} workers)"
        else:
            with ProcessPoolExecutor(max_workers=min(n_workers, os.cpu_count() or 1, len(chunks))) as ex:
                parts = list(ex.map(_solve_chunk, *chunk_args))
            workers = f"{n_workers} local processes"
    wall = time.perf_counter() - t0
    counts, unique, dev, secs = (np.concatenate([p[i] for p in parts])[inverse] for i in range(4))
    return Reconstruction(counts, unique, dev, secs, publication.mechanism, wall, workers)


def _distinct_rows(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``tables`` (first-occurrence order) and each row's index: identical tables are solved once.

    >>> d, inv = _distinct_rows(np.array([[1, 0], [2, 1], [1, 0]]))
    >>> d.tolist(), inv.tolist()
    ([[1, 0], [2, 1]], [0, 1, 0])
    """
    _, first, inverse = np.unique(tables, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)  # keep the blocks' order (chunks stay mixed in size as before)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return tables[first[order]], rank[np.ravel(inverse)]


def _chunks(n: int, size: int) -> list[slice]:
    return [slice(i, min(i + size, n)) for i in range(0, n, size)]


def exact_match_rate(reconstruction: Reconstruction, true_counts: np.ndarray) -> float:
    """Share of reconstructed records matching an original exactly: Σ min(x̂, x) / Σ x̂ (Abowd 2019, [FW24] §3.1).

    >>> r = Reconstruction(np.array([[2, 1]]), np.ones(1), np.zeros(1), np.zeros(1), "exact", 0.0, "")
    >>> exact_match_rate(r, np.array([[1, 2]]))
    0.6666666666666666
    """
    x = reconstruction.counts
    total = x.sum()
    return float(np.minimum(x, true_counts).sum() / total) if total else math.nan


def linkage_records(pop: BlockPopulation, coverage: float = 1.0, error: float = 0.0,
                    seed: int | np.random.Generator | None = 0) -> pd.DataFrame:
    """The attacker's identified records: person, block, sex, age, each present with probability ``coverage``.

    With probability ``error`` one field is wrong: another block, the other sex, or the age moved 1 to 5 years (at
    least 0).

    >>> from anonlab.data.census_blocks import generate_blocks
    >>> pop = generate_blocks(10, seed=0)
    >>> link = linkage_records(pop)
    >>> len(link) == len(pop.people), bool((link["age_bin"] == pop.people["age_bin"]).all())
    (True, True)
    """
    check_number("coverage", coverage, low=0, high=1)
    check_number("error", error, low=0, high=1)
    rng = check_random_state(seed)
    people = pop.people
    n = len(people)
    keep = np.flatnonzero(rng.random(n) < coverage)
    block = people["block"].to_numpy()[keep].copy()
    sex = people["sex"].to_numpy()[keep].copy()
    age = people["age"].to_numpy()[keep].copy()
    wrong = rng.random(keep.size) < error
    field = rng.integers(0, 3, size=keep.size)
    wb, ws, wa = wrong & (field == 0), wrong & (field == 1), wrong & (field == 2)
    if pop.n_blocks > 1:
        shift = rng.integers(1, pop.n_blocks, size=int(wb.sum()))
        block[wb] = (block[wb] + shift) % pop.n_blocks
    sex[ws] = 1 - sex[ws]
    step = rng.integers(1, 6, size=int(wa.sum())) * rng.choice([-1, 1], size=int(wa.sum()))
    age[wa] = np.maximum(age[wa] + step, 0)
    return pd.DataFrame({"person": keep, "block": block, "sex": sex, "age": age, "age_bin": age_bin(age),
                         "wrong": wrong})


def _codes(groups: np.ndarray) -> np.ndarray:
    """Groups as compact integer codes (indices into :data:`GROUPS`; -1 where nothing is predicted)."""
    return np.asarray(groups).astype(np.int16)


def reconstruction_attack(reconstruction: Reconstruction, linkage: pd.DataFrame, pop: BlockPopulation,
                          name: str = "reconstruction + linkage") -> AttackResult:
    """Infer race × Hispanic origin of linked people from the reconstructed records.

    A person whose record (block, sex, age bin) matches reconstructed records gets their majority group (ties: first
    in :data:`GROUPS`), confidence its share; others get no prediction. Groups are codes into :data:`GROUPS`, -1 where
    nothing is predicted.
    """
    n_people = len(pop.people)
    cube = reconstruction.counts.reshape(-1, 2, N_AGE_BINS, N_GROUPS)
    person = linkage["person"].to_numpy()
    match = cube[linkage["block"].to_numpy(), linkage["sex"].to_numpy(), linkage["age_bin"].to_numpy()]
    size = match.sum(axis=1)
    made = size > 0
    guess = match.argmax(axis=1)
    predicted = np.zeros(n_people, dtype=bool)
    prediction = np.full(n_people, -1, dtype=np.int16)
    confidence = np.zeros(n_people)
    predicted[person[made]] = True
    prediction[person[made]] = _codes(guess[made])
    confidence[person[made]] = match[made, guess[made]] / size[made]
    truth = _codes(pop.people["group"].to_numpy())
    return AttackResult(name, np.arange(n_people, dtype=np.int32), truth, predicted, prediction, confidence=confidence,
                        resources={"aux_records": int(len(linkage)),
                                   "seconds": float(reconstruction.wall_seconds)})


def block_majority_attack(publication: Publication, pop: BlockPopulation, *, single_group_only: bool = False,
                          name: str | None = None) -> AttackResult:
    """Francis's baseline: everyone gets their block's published (P5) majority race × Hispanic group.

    Tied blocks get no prediction (one reading of [FW24]'s R = 0.98 < 1); ``single_group_only`` predicts only in
    one-group blocks ([FW24]: P = 1.0 at R = 0.11).

    >>> from anonlab.data.census_blocks import generate_blocks
    >>> from anonlab.mechanisms.census import publish
    >>> pop = generate_blocks(30, seed=0)
    >>> r = block_majority_attack(publish(pop, "exact"), pop)
    >>> from anonlab.measures import score
    >>> from anonlab.data.census_blocks import majority_share
    >>> round(score(r).precision, 6) <= round(majority_share(pop.group_counts()), 6)
    True
    """
    g = publication.group_table()
    top = g.max(axis=1)
    n_top = (g == top[:, None]).sum(axis=1)
    ok = (top > 0) & (n_top == 1)
    if single_group_only:
        ok &= (g > 0).sum(axis=1) == 1
    block = pop.people["block"].to_numpy()
    predicted = ok[block]
    prediction = np.full(block.size, -1, dtype=np.int16)
    prediction[predicted] = _codes(g.argmax(axis=1)[block[predicted]])
    truth = _codes(pop.people["group"].to_numpy())
    label = name or ("block majority, single-group blocks" if single_group_only else "block majority")
    return AttackResult(label, np.arange(block.size, dtype=np.int32), truth, predicted, prediction,
                        resources={"aux_records": int(block.size)}, baseline_kind=BLOCK_MAJORITY)


def person_flags(pop: BlockPopulation, reconstruction: Reconstruction | None = None) -> pd.DataFrame:
    """Per person: in the block's true majority group, unique on sex × age bin, unique solution (False unchecked).

    >>> from anonlab.data.census_blocks import generate_blocks
    >>> person_flags(generate_blocks(3, seed=0)).columns.tolist()
    ['majority', 'unique_sex_age', 'unique_solution']
    """
    p = pop.people
    block = p["block"].to_numpy()
    gc = pop.group_counts()
    majority = gc[block, p["group"].to_numpy()] == gc.max(axis=1)[block]
    sexage = p["sex"].to_numpy() * N_AGE_BINS + p["age_bin"].to_numpy()
    cell = np.bincount(block * (2 * N_AGE_BINS) + sexage, minlength=pop.n_blocks * 2 * N_AGE_BINS)
    unique_sa = cell[block * (2 * N_AGE_BINS) + sexage] == 1
    if reconstruction is None:
        uniq = np.zeros(block.size, dtype=bool)
    else:
        uniq = (np.nan_to_num(reconstruction.unique, nan=0.0) == 1.0)[block]
    return pd.DataFrame({"majority": majority, "unique_sex_age": unique_sa, "unique_solution": uniq})


# ---------------------------------------------------------------------------
# Who the correct inferences are about
# ---------------------------------------------------------------------------

_SUBSETS = {
    "everyone": lambda f: np.ones(len(f), dtype=bool),
    "block-majority people": lambda f: f["majority"].to_numpy(),
    "block-minority people": lambda f: ~f["majority"].to_numpy(),
    "unique on sex × age bin": lambda f: f["unique_sex_age"].to_numpy(),
    "blocks with a unique solution": lambda f: f["unique_solution"].to_numpy(),
    "unique solution and unique sex × age bin": lambda f: (f["unique_solution"] & f["unique_sex_age"]).to_numpy(),
}


def decomposition(result: AttackResult, flags: pd.DataFrame, uniqueness_checked: bool = True) -> pd.DataFrame:
    """Who the correct inferences are: precision and share of correct inferences per subpopulation.

    Rows: everyone, block-majority/minority people, unique on sex × age bin, unique reconstruction, and both (the
    Bureau's newer attack, [FW24] §3.1); ``recall`` is over all people.

    >>> r = AttackResult.from_predictions("t", ["a", "b", "a"], ["a", "b", "b"])
    >>> f = pd.DataFrame({"majority": [True, False, True], "unique_sex_age": [True, True, False],
    ...                   "unique_solution": [True, True, True]})
    >>> decomposition(r, f).loc["block-minority people", ["precision", "share of correct"]].tolist()
    [1.0, 0.5]
    """
    correct = result.is_correct()
    total_correct = int(correct.sum())
    n = result.n_targets
    rows = []
    for label, pick in _SUBSETS.items():
        if "solution" in label and not uniqueness_checked:
            continue
        m = pick(flags)
        made = int(result.predicted[m].sum())
        ok = int(correct[m].sum())
        lo, hi = wilson_interval(ok, made)
        rows.append({"subpopulation": label, "people": int(m.sum()), "predictions": made, "correct": ok,
                     "precision": ok / made if made else math.nan, "precision_low": float(lo),
                     "precision_high": float(hi), "recall": ok / n if n else math.nan,
                     "share of correct": ok / total_correct if total_correct else math.nan})
    return pd.DataFrame(rows).set_index("subpopulation")


#: Populated 2010 census blocks, about 6.2 million (the scale of the Bureau's reconstruction).
US_POPULATED_BLOCKS = 6_200_000


def projection(solver: pd.DataFrame, workers: tuple[int, ...] = (2, 16, 128, 1024),
               blocks: int = US_POPULATED_BLOCKS) -> pd.DataFrame:
    """Hours to reconstruct ``blocks`` blocks on N workers: blocks / (rate × N), no overheads.

    >>> s = pd.DataFrame({"blocks per CPU second": [100.0]}, index=["exact"])
    >>> float(projection(s, workers=(2,), blocks=720_000).iloc[0, 0])
    1.0
    """
    rate = solver["blocks per CPU second"]
    return pd.DataFrame({f"{n} workers": blocks / (rate * n) / 3600 for n in workers}).rename_axis(
        f"hours for {blocks:,} blocks")


# ---------------------------------------------------------------------------
# Who each inference gets right, by block homogeneity (chapter 4's explorable figure)
# ---------------------------------------------------------------------------

#: Edges of the block-homogeneity bins (share of a block's people in its largest group); people in single-group
#: blocks (homogeneity exactly 1) make a bin of their own.
HOMOGENEITY_EDGES = (0.0, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

#: A bin with fewer people than this is left out of a frame (its precision would be mostly noise).
MIN_BIN_PEOPLE = 30


def person_homogeneity(block_sizes: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Each person's block homogeneity h_i = max_g n_{b(i),g} / n_{b(i)} (true counts).

    People in block order (``block_sizes``), ``groups`` their true group codes.

    >>> person_homogeneity(np.array([3, 1]), np.array([0, 0, 1, 5])).round(3).tolist()
    [0.667, 0.667, 0.667, 1.0]
    """
    block = np.repeat(np.arange(len(block_sizes)), block_sizes)
    groups = np.asarray(groups, dtype=np.int64)
    if block.size != groups.size:
        raise ValueError(f"block sizes add up to {block.size} people, but {groups.size} group codes were given")
    n_groups = int(groups.max()) + 1
    counts = np.bincount(block * n_groups + groups, minlength=len(block_sizes) * n_groups)
    top = counts.reshape(len(block_sizes), n_groups).max(axis=1)
    return top[block] / np.asarray(block_sizes)[block]


def by_homogeneity(result: AttackResult, homogeneity: np.ndarray,
                   edges: tuple[float, ...] = HOMOGENEITY_EDGES,
                   min_people: int = MIN_BIN_PEOPLE) -> pd.DataFrame:
    """Precision and recall (correct / people, chapter 4's reading of R) per block-homogeneity bin.

    People in single-group blocks apart; bins with fewer than ``min_people`` are dropped.

    >>> r = AttackResult.from_predictions("t", ["a", "b", "a", "a"], ["a", "a", None, "a"])
    >>> by_homogeneity(r, np.array([0.5, 0.5, 1.0, 1.0]), min_people=1)[["precision", "recall"]].values.tolist()
    [[0.5, 0.5], [1.0, 0.5]]
    """
    h = np.asarray(homogeneity, dtype=float)
    which = np.searchsorted(np.asarray(edges), h, side="right") - 1  # h = 1 falls past the last edge: its own bin
    correct, made = result.is_correct(), np.asarray(result.predicted, dtype=bool)
    rows = []
    for b in np.unique(which):
        m = which == b
        if m.sum() < min_people:
            continue
        n_made, n_ok = int(made[m].sum()), int(correct[m].sum())
        rows.append({"homogeneity": float(h[m].mean()), "people": int(m.sum()),
                     "precision": n_ok / n_made if n_made else math.nan, "recall": n_ok / int(m.sum())})
    return pd.DataFrame(rows, columns=["homogeneity", "people", "precision", "recall"])

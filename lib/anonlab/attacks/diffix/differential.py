"""The differential attack of [G19] §3.1: one victim, many victims, and the full attack with subset exploration.

For a victim unique on her known attributes ``A = {a_1..a_k}``, the pair

``Q_j = count(AND_{i != j} a_i = x_i AND s = 0)`` and ``Q'_j = count(AND_{i != j} a_i = x_i AND a_j <> x_j AND s =
0)``

differs only by the victim, if her secret is 0. Sticky noise cancels in the difference except for the negated
condition, so (Eq. 6) ``q_j = Q_j - Q'_j ~ N(0, 2)`` if ``x^(s) = 1``, ``N(1, 2k + 2)`` if ``x^(s) = 0``, and the ``s
= 1`` pairs give ``r_j`` with the roles swapped. The likelihood-ratio test of :mod:`.theory` decides.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from anonlab.mechanisms.diffix import DiffixProxy
from anonlab.validation import check_random_state
from anonlab.streams import stream

from ._common import CertainZeros, Steps, _py, _template, drive, drive_many
from .theory import differential_distributions, llr_rows

__all__ = [
    "DifferentialOutcome",
    "differential_attack",
    "shared_query_sets",
    "full_attack_shared_sets",
    "UniquenessOracle",
    "subsets_by_decreasing_size",
    "FullDifferentialOutcome",
    "full_differential_attack",
    "full_differential_attack_bounds",
]

# ---------------------------------------------------------------------------
# The differential attack (§3.1)
# ---------------------------------------------------------------------------


@dataclass
class DifferentialOutcome:
    """Result of :func:`differential_attack` for one victim.

    Attributes: ``guess`` (int or None): Inferred secret (0/1); ``None`` when no pair survived (NoSamples). ``q``,
    ``r`` (numpy.ndarray): The valid samples from the ``s = 0`` and ``s = 1`` pairs. ``log_lr`` (float): ``log
    Lambda(q, r)`` (nan without samples). ``n_queries`` (int): Queries sent (4k). ``all_pairs`` (numpy.ndarray, shape
    (2, k)): Every difference ``Q_j - Q'_j`` (row 0) and ``R_j - R'_j`` (row 1), valid or not (the owner's check of
    Eq. 6; the attack uses only the valid ones).
    """

    guess: int | None
    q: np.ndarray
    r: np.ndarray
    log_lr: float
    n_queries: int
    all_pairs: np.ndarray = field(default_factory=lambda: np.zeros((2, 0)))


def differential_attack(proxy: DiffixProxy, records: pd.DataFrame, attributes: Sequence[str],
                        secret: str, *, analyst: str = "attacker") -> list[DifferentialOutcome]:
    """Procedure DifferentialAttack ([G19] §3.1) against each victim (row) of ``records``, known on ``attributes``.

    For each ``j``: ``Q_j, Q'_j`` with ``s = 0`` and ``R_j, R'_j`` with ``s = 1`` (Eqs. 7-8); a pair counts only if
    both outputs are > 0 (a zero may be bucket suppression); the likelihood ratio test of
    :func:`likelihood_ratio_test` decides. Issues ``4k`` queries per victim, all victims' queries batched per query
    shape (each answer is the one it gets alone).

    Parameters: ``records`` (pandas.DataFrame): The victims' known values; must contain ``attributes``. ``attributes``
    (sequence of str): ``A = {a_1, ..., a_k}``, k >= 1. ``secret`` (str): The secret attribute's column name in the
    proxy. ``analyst`` (str): Name under which the proxy counts the queries.
    """
    attrs = _attributes(attributes, records.columns)
    vals = {a: [_py(v) for v in records[a].to_numpy()] for a in attrs}
    return drive(proxy, _differential_steps(proxy.table, vals, len(records), attrs, secret), analyst)


def _attributes(attributes: Sequence[str], known: Any) -> list[str]:
    """The attack's attributes, checked: at least one, each among the victims' known columns."""
    attrs = list(attributes)
    if not attrs:
        raise ValueError("attributes must name at least one attribute")
    missing = [a for a in attrs if a not in known]
    if missing:
        raise ValueError(f"records lack the attribute column(s) {missing}")
    return attrs


def _one_differential_steps(table: str, record: Mapping[str, Any], attributes: Sequence[str],
                            secret: str, unsent: int = 0) -> Steps:
    """:func:`differential_attack` on one victim as a coroutine (her values read as a one-row frame gives them).

    ``unsent``: queries not sent before this test (:class:`CertainZeros`), counted with its batch.
    """
    attrs = _attributes(attributes, record)
    outs = yield from _differential_steps(table, {a: [_py(record[a])] for a in attrs}, 1, attrs, secret, unsent)
    return outs[0]


@lru_cache(maxsize=1 << 14)
def _differential_templates(table: str, attrs: tuple[str, ...], secret: str) -> tuple[tuple[str, str], ...]:
    """The statements of Eqs. 7-8 for each j: ``(Q_j, Q'_j)`` without the values (memoised: subsets recur)."""
    out = []
    for j in range(len(attrs)):
        others = [(a, "=") for i, a in enumerate(attrs) if i != j]
        out.append((_template(table, others + [(secret, "=")]),
                    _template(table, others + [(attrs[j], "<>"), (secret, "=")])))
    return tuple(out)


def _differential_steps(table: str, vals: Mapping[str, list[Any]], n: int, attrs: list[str],
                        secret: str, unsent: int = 0) -> Steps:
    """The queries of :func:`differential_attack` in one batch, then the test (a coroutine).

    ``unsent``: queries of the caller not sent, counted with this batch (:class:`CertainZeros`).
    """
    k = len(attrs)
    victims = list(zip(*(vals[a] for a in attrs)))  # each victim's values of a_1..a_k
    batch = []
    for j, (t_q, t_qbar) in enumerate(_differential_templates(table, tuple(attrs), secret)):
        base = [x[:j] + x[j + 1:] for x in victims]  # without a_j
        batch += [(t_q, [b + (sv,) for sv in (0, 1) for b in base]),
                  (t_qbar, [b + (x[j], sv) for sv in (0, 1) for b, x in zip(base, victims)])]
    answers = yield (batch + [CertainZeros(unsent)] if unsent else batch)
    diffs = np.zeros((2, n, k))
    ok = np.zeros((2, n, k), dtype=bool)
    for j in range(k):
        big = answers[2 * j].reshape(2, n)
        small = answers[2 * j + 1].reshape(2, n)
        diffs[:, :, j] = big - small
        ok[:, :, j] = (big > 0) & (small > 0)
    out = []
    p = differential_distributions(k)
    llr = llr_rows(diffs[0], diffs[1], p, ok[0], ok[1])
    for i in range(n):
        q, r = diffs[0, i][ok[0, i]], diffs[1, i][ok[1, i]]
        if q.size == 0 and r.size == 0:
            out.append(DifferentialOutcome(None, q, r, float("nan"), 4 * k, diffs[:, i]))
        else:
            out.append(DifferentialOutcome(int(llr[i] >= 0), q, r, float(llr[i]), 4 * k, diffs[:, i]))
    return out


class UniquenessOracle:
    """The oracle ``Unique(z^(R))`` of [G19] H4: is a restricted record unique in the data?

    Built from the data without the secret (the "inference dataset" Diffix claims to protect against). Consulting it
    is not a query to Diffix.

    Parameters: ``data`` (pandas.DataFrame): The attributes the attacker may know (one row per user).
    """

    def __init__(self, data: pd.DataFrame) -> None:
        self._codes: dict[str, np.ndarray] = {}
        self._lookup: dict[str, dict[Any, int]] = {}
        self._counts: dict[str, np.ndarray] = {}
        for c in data.columns:
            codes, uniques = pd.factorize(data[c], use_na_sentinel=True)
            self._codes[c] = codes.astype(np.int32)
            self._lookup[c] = {_py(v): i for i, v in enumerate(uniques)}
            self._counts[c] = np.bincount(codes[codes >= 0], minlength=len(uniques))
        self._n = len(data)

    def matches(self, a: str, value: Any) -> np.ndarray:
        """Boolean mask of the records whose attribute ``a`` equals ``value``."""
        code = self._lookup[a].get(_py(value), -2)  # -2: a value no record has
        return self._codes[a] == code

    def matching(self, record: Mapping[str, Any], attributes: Sequence[str]) -> np.ndarray:
        """Positions (ascending) of the records that match ``record`` on every one of ``attributes``.

        The rarest of the record's values first, then the candidates only.

        >>> o = UniquenessOracle(pd.DataFrame({"a": [1, 1, 2, 1], "b": ["x", "y", "x", "x"]}))
        >>> o.matching({"a": 1, "b": "x"}, ["a", "b"]).tolist(), o.matching({"a": 3}, ["a"]).tolist()
        ([0, 3], [])
        """
        codes = {a: self._lookup[a].get(_py(record[a]), -2) for a in attributes}  # -2: a value no record has
        if any(c < 0 for c in codes.values()):
            return np.zeros(0, dtype=np.int64)
        order = sorted(codes, key=lambda a: self._counts[a][codes[a]])
        rows = np.flatnonzero(self._codes[order[0]] == codes[order[0]])
        for a in order[1:]:
            rows = rows[self._codes[a][rows] == codes[a]]
        return rows

    def __call__(self, record: Mapping[str, Any], attributes: Sequence[str]) -> bool:
        """True iff exactly one record matches ``record`` on ``attributes``."""
        return self.matching(record, attributes).size == 1

    def for_record(self, record: Mapping[str, Any], a_star: Sequence[str]) -> Callable[[Sequence[str]], bool]:
        """A fast oracle for many subsets of one victim's ``A*`` (at most 64 attributes).

        Every record gets a bitmask of the attributes of ``A*`` on which it agrees with the victim; ``x^(S)`` is
        unique iff exactly one record (the victim) agrees on all of ``S``. Records are sorted by how many attributes
        they agree on, so a subset of size m only looks at records agreeing on at least m.

        The function also carries ``no_pair_survives(S)``: for a unique ``x^(S)``, True when for every ``a_j`` of
        ``S`` at most one other record agrees with the victim on ``S`` without ``a_j``. Then every ``Q'_j`` of Eqs.
        7-8 selects at most one user, whatever the secret, and bucket suppression answers it 0 outright (§2), so
        DifferentialAttack on ``S`` cannot keep a single pair.
        """
        a_star = list(a_star)
        if len(a_star) > 64:
            raise ValueError(f"at most 64 known attributes, got {len(a_star)}")
        octets = np.zeros((8, self._n), dtype=np.uint8)  # bit j of a record's word: it agrees on a_j
        eq, shifted = np.empty(self._n, dtype=bool), np.empty(self._n, dtype=np.uint8)
        for j, a in enumerate(a_star):
            np.equal(self._codes[a], self._lookup[a].get(_py(record[a]), -2), out=eq)
            np.left_shift(eq.view(np.uint8), j % 8, out=shifted)
            np.bitwise_or(octets[j // 8], shifted, out=octets[j // 8])
        agree = np.ascontiguousarray(octets.T).view("<u8").ravel().astype(np.uint64, copy=False)
        counts = np.bitwise_count(agree)  # uint8: the stable sort below is a radix sort
        agree = agree[np.argsort(~counts, kind="stable")]
        # first[m] = number of records agreeing on at least m attributes
        first = np.concatenate([np.cumsum(np.bincount(counts, minlength=len(a_star) + 1)[::-1])[::-1], [0]])
        bit = {a: np.uint64(1) << np.uint64(j) for j, a in enumerate(a_star)}

        def mask_of(subset: Sequence[str]) -> np.uint64:
            mask = np.uint64(0)
            for a in subset:
                mask |= bit[a]
            return mask

        def unique(subset: Sequence[str]) -> bool:
            mask = mask_of(subset)
            cand = agree[: first[len(subset)]]
            return int(np.count_nonzero((cand & mask) == mask)) == 1

        def no_pair_survives(subset: Sequence[str]) -> bool:
            # records agreeing on all of S but a_j: those missing only a_j's bit (and the victim)
            mask = mask_of(subset)
            miss = (agree[: first[len(subset) - 1]] & mask) ^ mask
            single = miss[(miss != 0) & ((miss & (miss - np.uint64(1))) == 0)]
            return bool(single.size == np.unique(single).size)

        def check_block(combos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            """``unique`` and ``no_pair_survives`` of many subsets of one size m (rows of indices into A*)."""
            n_sub, m = combos.shape
            masks = np.bitwise_or.reduce(np.left_shift(np.uint64(1), combos.astype(np.uint64)), axis=1)
            uniq = np.empty(n_sub, dtype=bool)
            none_survive = np.empty(n_sub, dtype=bool)
            cand, near = agree[: first[m]], agree[: first[m - 1]]
            step = max(1, (1 << 22) // max(1, near.size))  # about 4 million words at a time
            for lo in range(0, n_sub, step):
                mk = masks[lo:lo + step, None]
                uniq[lo:lo + step] = np.count_nonzero((cand[None, :] & mk) == mk, axis=1) == 1
                miss = (near[None, :] & mk) ^ mk
                single = (miss != 0) & ((miss & (miss - np.uint64(1))) == 0)
                rows, cols = np.nonzero(single)
                j = np.bitwise_count(miss[rows, cols] - np.uint64(1)).astype(np.int64)  # the missing bit's index
                per_bit = np.bincount(rows * 64 + j, minlength=mk.shape[0] * 64).reshape(-1, 64)
                none_survive[lo:lo + step] = per_bit.max(axis=1, initial=0) <= 1
            return uniq, none_survive

        unique.no_pair_survives = no_pair_survives  # type: ignore[attr-defined]
        unique.check_block = check_block  # type: ignore[attr-defined]
        return unique


def subsets_by_decreasing_size(items: Sequence[str], seed: np.random.Generator | int | None, *,
                               min_size: int = 1,
                               max_size: int | None = None,
                               per_size_limit: int = 2000) -> Iterator[tuple[str, ...]]:
    """Random subsets of ``items``, largest first, each size in random order.

    The order of the subset exploration of FullDifferentialAttack and FullCloningAttack ([G19] §3). Sizes with at most
    ``per_size_limit`` subsets are enumerated completely (shuffled); larger ones are sampled without repetition up to
    ``per_size_limit`` subsets.
    """
    items = list(items)
    for block in _subset_blocks(len(items), check_random_state(seed), min_size=min_size, max_size=max_size,
                                per_size_limit=per_size_limit):
        for combo in block:
            yield tuple(items[t] for t in combo)


def _subset_blocks(n: int, rng: np.random.Generator, *, min_size: int = 1, max_size: int | None = None,
                   per_size_limit: int = 2000) -> Iterator[np.ndarray | Iterator[tuple[int, ...]]]:
    """:func:`subsets_by_decreasing_size` one size at a time, as indices into the items.

    An enumerated size is one array (a row per subset, in the shuffled order); a sampled size an iterator of index
    tuples, drawn as they are asked for. The random draws are those of :func:`subsets_by_decreasing_size`.
    """
    top = n if max_size is None else min(max_size, n)
    for m in range(top, min_size - 1, -1):
        total = math.comb(n, m)
        if total <= per_size_limit:
            combos = np.array(list(itertools.combinations(range(n), m)), dtype=np.int64).reshape(total, m)
            yield combos[rng.permutation(total)]
        else:
            yield _sampled_subsets(n, m, rng, per_size_limit)


def _sampled_subsets(n: int, m: int, rng: np.random.Generator, limit: int) -> Iterator[tuple[int, ...]]:
    """``limit`` distinct random m-subsets of ``range(n)`` (sorted index tuples), drawn one by one."""
    seen: set[tuple[int, ...]] = set()
    while len(seen) < limit:
        pick = tuple(sorted(rng.choice(n, size=m, replace=False).tolist()))
        if pick in seen:
            continue
        seen.add(pick)
        yield pick


@dataclass
class FullDifferentialOutcome:
    """Result of :func:`full_differential_attack` for one victim.

    Attributes: ``guess`` (int or None): The inferred secret, ``None`` for NonAttackable. ``subset`` (tuple of str):
    The attributes ``A`` the final test used (empty if NonAttackable). ``n_subsets_checked`` (int): Subsets put to the
    uniqueness oracle. ``n_subsets_attacked`` (int): Unique subsets attacked (each costs 4|A| queries). ``n_samples``
    (int): Samples in the final test.
    """

    guess: int | None
    subset: tuple[str, ...]
    n_subsets_checked: int
    n_subsets_attacked: int
    n_queries: int
    n_samples: int

    @property
    def attackable(self) -> bool:
        return self.guess is not None


def full_differential_attack(proxy: DiffixProxy, record: Mapping[str, Any], a_star: Sequence[str],
                             secret: str, oracle: UniquenessOracle, *,
                             seed: np.random.Generator | int | None = 0, max_attacked: int | None = None,
                             max_checked: int | None = 5000, per_size_limit: int = 2000,
                             analyst: str = "attacker") -> FullDifferentialOutcome:
    """Procedure FullDifferentialAttack ([G19] §3.1): subset exploration, oracle, test.

    Draws random subsets ``A`` of ``A*`` by decreasing size until the oracle says ``x^(A)`` is unique, runs
    :func:`differential_attack` on it, and stops at the first subset that yields samples. The paper does not bound the
    exploration (the default, ``max_attacked=None``); ``max_attacked`` bounds the unique subsets attacked and
    ``max_checked`` the subsets put to the oracle (``None``: no bound), after which the victim is NonAttackable; a
    size with more than ``per_size_limit`` subsets is sampled (:func:`subsets_by_decreasing_size`).
    ``max_checked=None`` and ``per_size_limit`` at least ``comb(k*, k*//2)`` search every subset, as the paper does.
    One search, that of :func:`full_differential_attack_bounds` with the one bound.
    """
    bound = None if max_attacked is None else int(max_attacked)
    return full_differential_attack_bounds(proxy, [record], [a_star], secret, oracle, [bound], seeds=[seed],
                                           max_checked=max_checked, per_size_limit=per_size_limit,
                                           analyst=analyst)[0][bound]


def full_differential_attack_bounds(proxy: DiffixProxy, records: Sequence[Mapping[str, Any]],
                                    a_stars: Sequence[Sequence[str]], secret: str, oracle: UniquenessOracle,
                                    bounds: Sequence[int | None], *,
                                    seeds: Sequence[np.random.Generator | int | None],
                                    uniques: Sequence[Callable[[Sequence[str]], bool]] | None = None,
                                    max_checked: int | None = 5000, per_size_limit: int = 2000,
                                    analyst: str = "attacker", on_done: Callable[[int], None] | None = None,
                                    ) -> list[dict[int | None, FullDifferentialOutcome]]:
    """:func:`full_differential_attack` on each victim under several bounds ``max_attacked``, from one exploration.

    Victim ``i`` is ``records[i]``, known on ``a_stars[i]``, her draws from ``seeds[i]`` (her oracle ``uniques[i]``,
    default ``oracle.for_record(records[i], a_stars[i])``). The bound only says when the search gives up: the subsets
    drawn, the oracle's answers and the queries before that do not depend on it. So the search runs once with the
    largest bound (``None``: unbounded), and a smaller bound ``b`` gets the success if it came within ``b`` attacked
    subsets, else NonAttackable with the counters after the ``b``-th attacked subset, exactly what a run with
    ``max_attacked=b`` returns. The victims' queries go to the proxy in shared batches (:func:`drive_many`,
    ``on_done(i)`` as victim ``i`` ends); each outcome is hers alone.
    """
    if uniques is None:
        uniques = [oracle.for_record(r, a) for r, a in zip(records, a_stars, strict=True)]
    attacks = [_full_differential_steps(proxy.table, r, a, secret, u, bounds, check_random_state(g), max_checked,
                                        per_size_limit=per_size_limit, skip_certain_zeros=proxy.bucket_suppression)
               for r, a, g, u in zip(records, a_stars, seeds, uniques, strict=True)]
    return drive_many(proxy, attacks, analyst=analyst, on_done=on_done)


def _full_differential_steps(table: str, record: Mapping[str, Any], a_star: Sequence[str], secret: str,
                             unique: Callable[[Sequence[str]], bool], bounds: Sequence[int | None],
                             g: np.random.Generator, max_checked: int | None = 5000, *,
                             per_size_limit: int = 2000, skip_certain_zeros: bool = False) -> Steps:
    """:func:`full_differential_attack_bounds` as a coroutine (one batch per attacked subset).

    ``unique`` is the victim's oracle (:meth:`UniquenessOracle.for_record`). ``skip_certain_zeros`` (only for a proxy
    that suppresses buckets): a unique subset on which no pair can survive (``unique.no_pair_survives``: every
    ``Q'_j`` selects at most one user, which bucket suppression answers 0 outright) is not sent; it counts as attacked
    without samples and its ``4|A|`` queries count in ``n_queries`` and at the proxy
    (:class:`~anonlab.attacks.diffix._common.CertainZeros`), exactly what sending them gives. On small tables of many
    attributes (CREDIT) almost every unique subset of the first sizes is such a subset.
    """
    bounds = list(dict.fromkeys(None if b is None else int(b) for b in bounds))
    if not bounds:
        raise ValueError("bounds must hold at least one bound")
    if not unique(a_star):  # no subset of a non-unique restricted record is unique
        return {b: FullDifferentialOutcome(None, (), 1, 0, 0, 0) for b in bounds}
    largest = None if None in bounds else max(bounds)
    checked = attacked = queries = unsent = 0
    after: list[tuple[int, int]] = []  # (checked, queries) after each attacked subset without samples
    success: FullDifferentialOutcome | None = None
    items = list(a_star)
    check_block = getattr(unique, "check_block", None)
    stop = False
    for block in _subset_blocks(len(items), g, per_size_limit=per_size_limit):
        if isinstance(block, np.ndarray) and check_block is not None:  # the oracle on arrays, a chunk at a time
            candidates = _checked_chunks(block, check_block, skip_certain_zeros)
        else:  # a sampled size: subset by subset, as they are drawn
            candidates = ((c, None, None) for c in block)
        for combo, is_unique, no_pair in candidates:
            if (max_checked is not None and checked >= max_checked) or (largest is not None and attacked >= largest):
                stop = True
                break
            checked += 1
            if is_unique is False:
                continue
            subset = tuple(items[t] for t in combo)
            if is_unique is None and not unique(subset):
                continue
            attacked += 1
            if no_pair is None:
                no_pair = skip_certain_zeros and unique.no_pair_survives(subset)  # type: ignore[attr-defined]
            if no_pair:
                queries += 4 * len(subset)  # the answers are 0: no sample, as if sent
                unsent += 4 * len(subset)
                after.append((checked, queries))
                continue
            res = yield from _one_differential_steps(table, record, subset, secret, unsent)
            unsent = 0
            queries += res.n_queries
            if res.guess is not None:
                success = FullDifferentialOutcome(res.guess, subset, checked, attacked, queries,
                                                  int(res.q.size + res.r.size))
                stop = True
                break
            after.append((checked, queries))
        if stop:
            break
    if unsent:  # the queries not sent since the last batch, counted at the proxy
        yield [CertainZeros(unsent)]
    out = {}
    for b in bounds:
        if success is not None and (b is None or success.n_subsets_attacked <= b):
            out[b] = success
        elif b is not None and b <= len(after):  # gave up after the b-th attacked subset
            out[b] = FullDifferentialOutcome(None, (), after[b - 1][0], b, after[b - 1][1], 0)
        else:  # the search ended (subsets or max_checked exhausted) before reaching the bound
            out[b] = FullDifferentialOutcome(None, (), checked, attacked, queries, 0)
    return out


def _checked_chunks(block: np.ndarray, check_block: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
                    skip_certain_zeros: bool, chunk: int = 64) -> Iterator[tuple[list[int], bool, bool]]:
    """``(subset, unique, no pair survives)`` for the rows of an enumerated size, checked ``chunk`` rows at a time.

    A search usually stops early in a size: the chunks after it are never checked.
    """
    for lo in range(0, len(block), chunk):
        rows = block[lo:lo + chunk]
        uniq, none_survive = check_block(rows)
        if not skip_certain_zeros:
            none_survive[:] = False
        yield from zip(rows.tolist(), uniq.tolist(), none_survive.tolist())


def shared_query_sets(sets: pd.DataFrame, k: int) -> dict[str, int]:
    """Do two samples of one DifferentialAttack share a query set? ([G19] §3.1's caveat on correlated samples.)

    ``sets`` is the owner's view (:meth:`~anonlab.mechanisms.diffix.DiffixProxy.query_sets`) of the ``4k`` queries of
    one test on ``k`` attributes, in the order the attack sends them: for each ``j``, ``Q_j`` then ``Q'_j``, each for
    ``s = 0`` then ``s = 1``. In each family (``s = 0`` pairs, ``s = 1`` pairs) a query of pair ``j`` whose set equals
    that of a query of another pair gets the same dynamic noise for the conditions they share, so the two samples are
    correlated. Returns ``samples`` (pairs the test keeps, both answers > 0), ``correlated`` (kept samples with a
    query whose set is that of another kept sample's query), ``shared`` (queries whose set is that of a query of
    another pair, kept or not) and ``largest_shared`` (the largest true count among those, 0 if none).

    k = 2, a made-up log where both ``s = 0`` pairs select the same 3 users (set 5) and every ``s = 1`` query selects
    nobody (set 0, suppressed):

    >>> sets = pd.DataFrame({"set_id": [5, 0, 5, 0, 5, 0, 5, 0], "true_count": [3, 0, 3, 0, 3, 0, 3, 0],
    ...                      "answer": [3.0, 0.0, 2.0, 0.0, 4.0, 0.0, 3.0, 0.0]})
    >>> shared_query_sets(sets, 2)
    {'samples': 2, 'correlated': 2, 'shared': 8, 'largest_shared': 3}
    """
    if len(sets) != 4 * k:
        raise ValueError(f"a test on {k} attributes sends {4 * k} queries, got {len(sets)}")
    shape = (k, 2, 2)  # j, (Q, Q'), s
    ids = sets["set_id"].to_numpy().reshape(shape)
    counts = sets["true_count"].to_numpy().reshape(shape)
    answers = sets["answer"].to_numpy().reshape(shape)
    out = {"samples": 0, "correlated": 0, "shared": 0, "largest_shared": 0}
    for sv in (0, 1):
        pair_ids = ids[:, :, sv]
        kept = (answers[:, 0, sv] > 0) & (answers[:, 1, sv] > 0)
        for j in range(k):
            hit = np.isin(pair_ids[j], np.delete(pair_ids, j, axis=0))
            out["shared"] += int(hit.sum())
            if hit.any():
                out["largest_shared"] = max(out["largest_shared"], int(counts[j, :, sv][hit].max()))
            if kept[j]:
                out["samples"] += 1
                others = np.delete(np.arange(k), j)
                out["correlated"] += int(np.isin(pair_ids[j], pair_ids[others[kept[others]]]).any())
    return out


def full_attack_shared_sets(proxy: DiffixProxy, records: pd.DataFrame, attributes: Sequence[str], secret: str,
                            oracle: UniquenessOracle, *, seed: int = 0) -> pd.DataFrame:
    """:func:`shared_query_sets` of the test FullDifferentialAttack ends on, for each victim of ``records``.

    Each victim knows ``attributes`` (her ``A*``) and is attacked as in :func:`full_differential_attack` (search
    stream ``[seed, i]``) through ``proxy`` (``keep_log=True``) under her own analyst name; the last ``4|A|`` queries
    she caused are the test that decided. One row per attacked victim (``subset_size`` and the counts of
    :func:`shared_query_sets`).
    """
    if not proxy.keep_log:
        raise ValueError("full_attack_shared_sets reads the proxy's log: give it a proxy with keep_log=True")
    rows = []
    for i, (idx, rec) in enumerate(records.iterrows()):
        analyst = f"shared sets {i}"
        o = full_differential_attack(proxy, rec.to_dict(), attributes, secret, oracle,
                                     seed=stream(seed, "diffix.victim_subsets", i), analyst=analyst)
        if o.guess is None:
            continue
        k = len(o.subset)
        rows.append((idx, analyst, k))
    log = proxy.query_sets()
    by_analyst = dict(tuple(log.groupby("analyst", sort=False)))
    return pd.DataFrame([{"user": idx, "subset_size": k, **shared_query_sets(by_analyst[a].tail(4 * k), k)}
                         for idx, a, k in rows],
                        columns=["user", "subset_size", "samples", "correlated", "shared", "largest_shared"])

"""The cloning attack of [G19] §3.2, its validation tests, the double test (§5) and the greedy variant (App. B).

Dummy conditions ``Delta_j`` (here ``d <> b_j`` for an attribute ``d`` in ``A'`` with ``b_j != x^(d)``) change the
noise but not the query set. With

``Q_j = count(A' = x^(A') AND_{l != j} Delta_l AND s = v)`` and ``Q'_j = count(A' = x^(A') AND_{l != j} Delta_l AND u
<> x^(u) AND s = v)``

(Eqs. 12-13) the differences ``q_j`` are all equal when the two query sets coincide, i.e. when the victim
(value-unique on ``(A', u)``) has ``x^(s) != v``, and scatter otherwise; the sample variance against a cut-off
``sigma*`` decides.
"""

from __future__ import annotations


from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonlab.mechanisms.diffix import DiffixProxy
from anonlab.validation import check_random_state

from ._common import CertainZeros, Steps, _positive_int, _py, _template, drive, drive_many
from .differential import subsets_by_decreasing_size

__all__ = [
    "drive",
    "drive_many",
    "dummy_values",
    "CloningQueries",
    "cloning_queries",
    "no_bucket_suppression",
    "value_unique",
    "cloning_inference",
    "cloning_guess",
    "CloningOutcome",
    "cloning_attack",
    "FullCloningOutcome",
    "full_cloning_attack",
    "double_test_sigma_sweep",
    "greedy_query_bound",
    "greedy_full_cloning_attack",
]

# ---------------------------------------------------------------------------
# The cloning attack (§3.2)
# ---------------------------------------------------------------------------


def dummy_values(value: Any, domain: Sequence[Any], n_dummy: int,
                 seed: np.random.Generator | int | None) -> list[Any]:
    """``|Delta|`` plausible values ``b_j != value`` for the dummy conditions ``d <> b_j`` ([G19] §4).

    Uniform without replacement from the domain without ``value`` (``Generator.choice(m, size, replace=False)`` over
    the other values' positions, O(``|Delta|``)); values outside the domain (above the maximum, or tagged strings)
    fill in when it has too few, the "pragmatic" dummies of §5. Same distribution as the book's draw until 2026-11,
    the first values of a permutation of the whole domain (1 ms per draw on CENSUS's ``instance_weight``).

    >>> dummy_values(3, np.arange(6), 3, 0) == dummy_values(3, list(range(6)), 3, 0)
    True
    >>> sorted(dummy_values("a", ["a", "b"], 3, 0))
    ['b', '~none0', '~none1']
    """
    n = _positive_int("n_dummy", n_dummy)
    g = check_random_state(seed)
    equal = _equal_positions(value, domain)
    if equal is None:  # mixed types: Python's element-wise comparison
        others = [v for v in domain if v != value]
        picked = [others[i] for i in _pick(len(others), n, g)]
        return _pad_dummies([_py(v) for v in picked], domain, n)
    m = len(domain) - equal.size
    idx = _pick(m, n, g)
    if equal.size == 1:  # a domain of distinct values: skip the value's position
        pos = idx + (idx >= equal[0])
    elif equal.size == 0:
        pos = idx
    else:
        pos = np.flatnonzero(np.asarray(domain != value, dtype=bool))[idx]
    return _pad_dummies([_py(v) for v in np.asarray(domain)[pos]], domain, n)


def _pick(m: int, n: int, g: np.random.Generator) -> np.ndarray:
    """``min(n, m)`` distinct positions of ``range(m)``, drawn uniformly at random (in random order)."""
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    return g.choice(m, size=min(n, m), replace=False)


def _equal_positions(value: Any, domain: Sequence[Any]) -> np.ndarray | None:
    """Positions of ``domain`` holding ``value``, for a 1-D NumPy domain of the value's kind; else ``None``.

    ``None`` asks for Python's comparison: lists, and types that do not match (a string against numbers, booleans).
    """
    if not isinstance(domain, np.ndarray) or domain.ndim != 1:
        if isinstance(domain, np.ndarray):
            return None
        return _equal_positions(value, np.asarray(domain)) if _homogeneous(value, domain) else None
    if domain.dtype.kind in "iub" and isinstance(value, (int, np.integer)) and not isinstance(value, bool) \
            or domain.dtype.kind == "f" and isinstance(value, (int, float, np.integer, np.floating)) \
            and not isinstance(value, bool):
        return np.flatnonzero(domain == value)
    if domain.dtype.kind in "OU" and isinstance(value, str):
        return np.flatnonzero(np.asarray(domain == value, dtype=bool))  # object arrays: Python's == per element
    return None


def _homogeneous(value: Any, domain: Sequence[Any]) -> bool:
    """Do the value and a list domain hold only numbers (no booleans), or only strings?"""
    items = [value, *domain]
    if all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
           for v in items):
        return True
    return all(isinstance(v, str) for v in items)


def _pad_dummies(picked: list[Any], domain: Sequence[Any], n: int) -> list[Any]:
    """Add values outside the domain when it has fewer than ``n`` other values."""
    extra = n - len(picked)
    if extra > 0:
        if all(isinstance(v, (int, float, np.integer, np.floating)) for v in domain):
            top = max(domain) if len(domain) else 0
            picked += [_py(top) + 1 + i for i in range(extra)]
        else:
            picked += [f"~none{i}" for i in range(extra)]
    return [_py(v) for v in picked]


@dataclass(frozen=True)
class CloningQueries:
    """The 2|Delta| queries of CloningAttack / NoBucketSuppression for one ``(A', u, v)``.

    ``template_q`` / ``template_qbar`` are prepared statements for Eqs. 12 and 13; ``rows_q`` / ``rows_qbar`` hold one
    row of values per ``j``.
    """

    template_q: str
    template_qbar: str
    rows_q: list[tuple[Any, ...]]
    rows_qbar: list[tuple[Any, ...]]


def cloning_queries(table: str, record: Mapping[str, Any], a_prime: Sequence[str], u: str,
                    dummy_attribute: str, dummies: Sequence[Any], secret: str, v: int) -> CloningQueries:
    """Build Eqs. 12-13 for every j:

    ``Q_j = count(A' = x^(A') AND_{l != j} d <> b_l AND s = v)``, ``Q'_j = count(A' = x^(A') AND_{l != j} d <> b_l AND
    u <> x^(u) AND s = v)``.
    """
    a_prime = list(a_prime)
    if dummy_attribute not in a_prime:
        raise ValueError(f"the dummy attribute {dummy_attribute!r} must be one of A' = {a_prime}")
    m = len(dummies)
    if m < 2:
        raise ValueError(f"need at least 2 dummy conditions, got {m}")
    conds = [(a, "=") for a in a_prime] + [(dummy_attribute, "<>")] * (m - 1)
    t_q = _template(table, conds + [(secret, "=")])
    t_qbar = _template(table, conds + [(u, "<>"), (secret, "=")])
    base = tuple(_py(record[a]) for a in a_prime)
    rows_q, rows_qbar = [], []
    for j in range(m):
        dj = tuple(dummies[l] for l in range(m) if l != j)
        rows_q.append(base + dj + (int(v),))
        rows_qbar.append(base + dj + (_py(record[u]), int(v)))
    return CloningQueries(t_q, t_qbar, rows_q, rows_qbar)


def no_bucket_suppression(q_answers: Any, qbar_answers: Any) -> bool:
    """Procedure NoBucketSuppression's test ([G19] §3.2): some ``Q_j > 0`` and some ``Q'_j > 0``.

    All ``Q_j`` share one query set, hence one sticky threshold, so one positive answer proves none of them was
    suppressed (and likewise for the ``Q'_j``).
    """
    return bool(np.any(np.asarray(q_answers) > 0) and np.any(np.asarray(qbar_answers) > 0))


def value_unique(answer: float) -> bool:
    """Procedure ValueUnique ([G19] §3.2): ``count(A' = x^(A') AND u = x^(u)) == 0``.

    A zero answer means the query set was suppressed, so few users share ``x^(A', u)``, taken as evidence of
    value-uniqueness.
    """
    return bool(answer == 0)


def cloning_inference(q_answers: Any, qbar_answers: Any, sigma_star: float, v: int) -> tuple[int, float]:
    """CloningAttack's decision ([G19] §3.2, lines 5-8).

    ``q_j = Q_j - Q'_j``; ``S^2 = 1/(|Delta| - 1) sum_j (q_j - mean)^2``. If ``S^2 <= sigma*`` the two query sets
    coincide, so the victim is not in the ``s = v`` set: the secret is ``1 - v``; otherwise it is ``v``.
    """
    q = np.asarray(q_answers, dtype=float) - np.asarray(qbar_answers, dtype=float)
    s2 = float(np.var(q, ddof=1))
    return cloning_guess(s2, sigma_star, v), s2


def cloning_guess(s2: float, sigma_star: float, v: int) -> int:
    """CloningAttack's guess from the sample variance: ``1 - v`` if ``S^2 <= sigma*``, else ``v`` ([G19] §3.2).

    >>> cloning_guess(0.2, 0.7, 0), cloning_guess(3.0, 0.7, 0), cloning_guess(0.2, 0.7, 1)
    (1, 0, 0)
    """
    return 1 - int(v) if s2 <= sigma_star else int(v)


@dataclass
class CloningOutcome:
    """One run of CloningAttack with its validation tests for a given ``(A', u, v)``."""

    value_unique: bool
    no_suppression: bool
    guess: int | None
    s2: float
    n_queries: int


def cloning_attack(proxy: DiffixProxy, record: Mapping[str, Any], a_prime: Sequence[str], u: str,
                   secret: str, *, v: int = 0, dummies: Sequence[Any] | None = None,
                   dummy_attribute: str | None = None, domains: Mapping[str, Sequence[Any]] | None = None,
                   n_dummy: int = 10, sigma_star: float = 0.7, check_value_unique: bool = True,
                   seed: np.random.Generator | int | None = 0,
                   analyst: str = "attacker") -> CloningOutcome:
    """ValueUnique, NoBucketSuppression and CloningAttack for one ``(A', u)`` ([G19] §3.2).

    Sends ``1 + 2|Delta|`` queries (``2|Delta|`` without the ValueUnique query, or if it fails: then only 1). The
    inference reuses the NoBucketSuppression answers, as in the paper.

    Parameters: ``proxy``, ``record``, ``a_prime``, ``u``, ``secret``: As in the paper: known attributes ``A'`` and
    ``u`` (not in ``A'``). ``v`` ({0, 1}): Secret value in the queries. ``dummies``, ``dummy_attribute``: The values
    ``b_j`` of the dummy conditions ``dummy_attribute <> b_j``; by default the attribute of ``A'`` with the largest
    domain and values from :func:`dummy_values` (``domains`` is then required). ``n_dummy`` (int): ``|Delta|`` when
    ``dummies`` is not given. ``sigma_star`` (float): Variance cut-off (the paper: 0.7).
    """
    g = check_random_state(seed)
    return drive(proxy, _cloning_steps(proxy.table, record, a_prime, u, secret, v=v, dummies=dummies,
                                       dummy_attribute=dummy_attribute, domains=domains, n_dummy=n_dummy,
                                       sigma_star=sigma_star, check_value_unique=check_value_unique, g=g),
                 analyst=analyst)


def _cloning_steps(table: str, record: Mapping[str, Any], a_prime: Sequence[str], u: str, secret: str, *,
                   v: int, dummies: Sequence[Any] | None, dummy_attribute: str | None,
                   domains: Mapping[str, Sequence[Any]] | None, n_dummy: int, sigma_star: float,
                   check_value_unique: bool, g: np.random.Generator,
                   unique: Callable[[Sequence[str]], bool] | None = None, unsent: list[int] | None = None) -> Steps:
    """:func:`cloning_attack` as a coroutine: yields its statements, receives their answers (see :func:`drive`).

    ``unique`` (is the victim's restricted record unique: a :class:`~anonlab.attacks.diffix.UniquenessOracle` bound to
    her record; only for a proxy that suppresses buckets) and ``unsent`` (a one-item counter shared with the caller):
    a query whose set is certain to hold at most one user, answered 0 outright by bucket suppression, is not sent but
    counted (the ValueUnique query when ``x^(A', u)`` is unique; all ``2|Delta|`` queries when ``x^(A')`` is, since
    every ``Q_j`` and ``Q'_j`` selects within it). The random draws and the outcome are those of sending them; the
    counter goes with the next batch sent (:class:`~anonlab.attacks.diffix._common.CertainZeros`).
    """
    a_prime = list(a_prime)
    if not a_prime:
        raise ValueError("A' must hold at least one attribute")
    if u in a_prime:
        raise ValueError(f"u = {u!r} must not be in A' = {a_prime}")
    if v not in (0, 1):
        raise ValueError(f"v must be 0 or 1, got {v!r}")
    queries = 0
    skip = unique is not None and unsent is not None
    if check_value_unique:
        if skip and unique(a_prime + [u]):
            unsent[0] += 1  # type: ignore[index]
            answer = 0.0
        else:
            vu_t = _template(table, [(a, "=") for a in a_prime] + [(u, "=")])
            (ans,) = yield _with_unsent([(vu_t, [tuple(_py(record[a]) for a in a_prime + [u])])], unsent)
            answer = ans[0]
        queries += 1
        if not value_unique(answer):
            return CloningOutcome(False, False, None, float("nan"), queries)
    d_attr, d_vals = _dummies(record, a_prime, dummies, dummy_attribute, domains, n_dummy, g)
    if skip and unique(a_prime):  # every Q_j and Q'_j selects at most the victim: all answered 0
        unsent[0] += 2 * len(d_vals)  # type: ignore[index]
        return CloningOutcome(True, False, None, float("nan"), queries + 2 * len(d_vals))
    cq = cloning_queries(table, record, a_prime, u, d_attr, d_vals, secret, v)
    big, small = yield _with_unsent([(cq.template_q, cq.rows_q), (cq.template_qbar, cq.rows_qbar)], unsent)
    queries += 2 * len(d_vals)
    if not no_bucket_suppression(big, small):
        return CloningOutcome(True, False, None, float("nan"), queries)
    guess, s2 = cloning_inference(big, small, sigma_star, v)
    return CloningOutcome(True, True, guess, s2, queries)


def _with_unsent(batch: list[Any], unsent: list[int] | None) -> list[Any]:
    """The batch with the queries counted but not sent since the last one (then the counter is reset)."""
    if not unsent or not unsent[0]:
        return batch
    n, unsent[0] = unsent[0], 0
    return batch + [CertainZeros(n)]


def _dummies(record: Mapping[str, Any], a_prime: list[str], dummies: Sequence[Any] | None,
             dummy_attribute: str | None, domains: Mapping[str, Sequence[Any]] | None, n_dummy: int,
             g: np.random.Generator) -> tuple[str, list[Any]]:
    if dummies is not None:
        if dummy_attribute is None:
            raise ValueError("give dummy_attribute together with dummies")
        return dummy_attribute, [_py(b) for b in dummies]
    if domains is None:
        raise ValueError("give either dummies (with dummy_attribute) or domains")
    d_attr = dummy_attribute or max(a_prime, key=lambda a: (len(domains[a]), -a_prime.index(a)))
    dom = domains[d_attr]
    return d_attr, dummy_values(_py(record[d_attr]), dom if isinstance(dom, np.ndarray) else list(dom),
                                n_dummy, g)


@dataclass
class FullCloningOutcome:
    """Result of :func:`full_cloning_attack` / :func:`greedy_full_cloning_attack` for one victim.

    Attributes: ``guess`` (int or None): The inferred secret; ``None`` for NonAttackable. ``a_prime`` (tuple of str):
    The ``A'`` used (empty if NonAttackable). ``u`` (str or None). ``s2`` (float): Sample variance of the final test
    (``nan`` if none). ``n_subsets`` (int): Subsets ``(A', u)`` tried. ``n_queries`` (int): Queries sent for this
    victim.
    """

    guess: int | None
    a_prime: tuple[str, ...]
    u: str | None
    s2: float
    n_subsets: int
    n_queries: int

    @property
    def attackable(self) -> bool:
        """Predicted attackable: a subset passed the tests."""
        return self.guess is not None


def full_cloning_attack(proxy: DiffixProxy, records: Sequence[Mapping[str, Any]], a_stars: Sequence[Sequence[str]],
                        secret: str, domains: Mapping[str, Sequence[Any]], *,
                        seeds: Sequence[np.random.Generator | int | None], v: int = 0, n_dummy: int = 10,
                        sigma_star: float = 0.7, double_test: bool = False, max_subsets: int | None = None,
                        analyst: str = "attacker", uniques: Sequence[Callable[[Sequence[str]], bool] | None] | None = None,
                        per_size_limit: int = 2000, on_done: Callable[[int], None] | None = None
                        ) -> list[FullCloningOutcome]:
    """Procedure FullCloningAttack ([G19] §3.2), optionally with the double test of §5, against each victim.

    Victim ``i`` is ``records[i]``, known on ``a_stars[i]``, her draws from ``seeds[i]``. Random subsets ``A'`` of
    ``A*`` (sizes ``|A*| - 1`` down to 1) each with a random ``u`` from ``A* \\ A'``; for each, ValueUnique then
    NoBucketSuppression; the first subset passing both is attacked and the guess returned. With ``double_test``
    NoBucketSuppression must pass for both ``v = 0`` and ``v = 1``, both inferences are made, and the guess is kept
    only if they agree (otherwise the exploration continues). ``max_subsets`` bounds the subsets tried (default: all
    of them; a size with more than ``per_size_limit`` subsets is sampled). With ``uniques[i]``
    (``UniquenessOracle.for_record(record, a_star)`` or ``partial(oracle, record)``; single test, a proxy that
    suppresses buckets) the queries certain to be answered 0 are counted at the proxy but not sent; the outcome is the
    same. The victims' queries go to the proxy in shared batches (:func:`drive_many`, ``on_done(i)`` as victim ``i``
    ends); each outcome is hers alone.
    """
    if uniques is None or double_test or not proxy.bucket_suppression:
        uniques = [None] * len(records)
    attacks = [_full_cloning_steps(proxy.table, r, a, secret, domains, v=v, n_dummy=n_dummy, sigma_star=sigma_star,
                                   double_test=double_test, max_subsets=max_subsets, g=check_random_state(g),
                                   per_size_limit=per_size_limit, unique=u)
               for r, a, g, u in zip(records, a_stars, seeds, uniques, strict=True)]
    return drive_many(proxy, attacks, analyst=analyst, on_done=on_done)


def _full_cloning_steps(table: str, record: Mapping[str, Any], a_star: Sequence[str], secret: str,
                        domains: Mapping[str, Sequence[Any]], *, v: int, n_dummy: int, sigma_star: float,
                        double_test: bool, max_subsets: int | None, g: np.random.Generator,
                        per_size_limit: int = 2000,
                        unique: Callable[[Sequence[str]], bool] | None = None) -> Steps:
    """:func:`full_cloning_attack` as a coroutine (see :func:`drive`).

    The double test is :func:`_double_test_sweep_steps` at the one cut-off. ``per_size_limit``: as in
    :func:`~anonlab.attacks.diffix.subsets_by_decreasing_size`. ``unique`` (single test only; a proxy that suppresses
    buckets): the queries certain to be answered 0 are counted, not sent (:func:`_cloning_steps`), with the same
    outcome.
    """
    if double_test:
        outcomes = yield from _double_test_sweep_steps(table, record, a_star, secret, domains, n_dummy=n_dummy,
                                                       sigma_stars=[sigma_star], max_subsets=max_subsets, g=g)
        return outcomes[float(sigma_star)]
    a_star = list(a_star)
    if len(a_star) < 2:
        raise ValueError(f"A* needs at least 2 attributes (A' and u), got {a_star}")
    queries = tried = 0
    unsent = [0] if unique is not None else None
    common = dict(dummies=None, dummy_attribute=None, domains=domains, n_dummy=n_dummy, sigma_star=sigma_star,
                  g=g, unique=unique, unsent=unsent)
    result = None
    for subset in subsets_by_decreasing_size(a_star, g, max_size=len(a_star) - 1, per_size_limit=per_size_limit):
        if max_subsets is not None and tried >= max_subsets:
            break
        tried += 1
        rest = [a for a in a_star if a not in subset]
        u = rest[int(g.integers(len(rest)))]
        out = yield from _cloning_steps(table, record, subset, u, secret, v=v, check_value_unique=True, **common)
        queries += out.n_queries
        if out.guess is not None:
            result = FullCloningOutcome(out.guess, tuple(subset), u, out.s2, tried, queries)
            break
    if result is None:
        result = FullCloningOutcome(None, (), None, float("nan"), tried, queries)
    if unsent and unsent[0]:  # counted at the proxy with a last, empty batch
        yield [CertainZeros(unsent[0])]
    return result


def double_test_sigma_sweep(proxy: DiffixProxy, records: Sequence[Mapping[str, Any]],
                            a_stars: Sequence[Sequence[str]], secret: str, domains: Mapping[str, Sequence[Any]],
                            sigma_stars: Sequence[float], *, seeds: Sequence[np.random.Generator | int | None],
                            n_dummy: int = 10, max_subsets: int | None = None, analyst: str = "attacker",
                            on_done: Callable[[int], None] | None = None) -> list[dict[float, FullCloningOutcome]]:
    """FullCloningAttack with the double test (§5) at several cut-offs σ*, from one exploration, for each victim.

    ``{σ*: outcome}`` per victim, each equal to :func:`full_cloning_attack` with ``double_test=True`` and that
    ``sigma_star`` (same seed): see :func:`_double_test_sweep_steps`. Victims as in :func:`full_cloning_attack`.
    """
    attacks = [_double_test_sweep_steps(proxy.table, r, a, secret, domains, n_dummy=n_dummy, sigma_stars=sigma_stars,
                                        max_subsets=max_subsets, g=check_random_state(g))
               for r, a, g in zip(records, a_stars, seeds, strict=True)]
    return drive_many(proxy, attacks, analyst=analyst, on_done=on_done)


def _double_test_sweep_steps(table: str, record: Mapping[str, Any], a_star: Sequence[str], secret: str,
                             domains: Mapping[str, Sequence[Any]], *, n_dummy: int, sigma_stars: Sequence[float],
                             max_subsets: int | None, g: np.random.Generator) -> Steps:
    """:func:`double_test_sigma_sweep` as a coroutine (see :func:`drive`).

    In the double test σ* decides only whether the inferences for ``v = 0`` and ``v = 1`` agree, i.e. at which subset
    a run stops: the subsets explored, the random draws (subsets, ``u``, dummy values), the queries and the variances
    ``S^2`` up to that point do not depend on it (whether the second test runs depends on ValueUnique and
    NoBucketSuppression alone). So the exploration of :func:`_full_cloning_steps` goes on until every σ* has stopped,
    and each σ* gets the outcome (subsets tried, queries) of its own stopping point.
    """
    a_star = list(a_star)
    if len(a_star) < 2:
        raise ValueError(f"A* needs at least 2 attributes (A' and u), got {a_star}")
    open_ = list(dict.fromkeys(float(s) for s in sigma_stars))
    if not open_:
        raise ValueError("sigma_stars must hold at least one cut-off")
    done: dict[float, FullCloningOutcome] = {}
    queries = tried = 0
    common = dict(dummies=None, dummy_attribute=None, domains=domains, n_dummy=n_dummy, sigma_star=open_[0], g=g)
    for subset in subsets_by_decreasing_size(a_star, g, max_size=len(a_star) - 1):
        if max_subsets is not None and tried >= max_subsets:
            break
        tried += 1
        rest = [a for a in a_star if a not in subset]
        u = rest[int(g.integers(len(rest)))]
        first = yield from _cloning_steps(table, record, subset, u, secret, v=0, check_value_unique=True, **common)
        queries += first.n_queries
        if first.guess is None:
            continue
        second = yield from _cloning_steps(table, record, subset, u, secret, v=1, check_value_unique=False,
                                           **common)
        queries += second.n_queries
        if second.guess is None:
            continue
        for s in open_:
            guess = cloning_guess(first.s2, s, 0)
            if guess == cloning_guess(second.s2, s, 1):
                done[s] = FullCloningOutcome(guess, tuple(subset), u, first.s2, tried, queries)
        open_ = [s for s in open_ if s not in done]
        if not open_:
            break
    for s in open_:
        done[s] = FullCloningOutcome(None, (), None, float("nan"), tried, queries)
    return done


def _greedy_select_steps(table: str, record: Mapping[str, Any], a_star: Sequence[str]) -> Steps:
    """Procedure GreedySelectSubset ([G19] App. B) as a coroutine: its ``|A*| + 1`` queries in one batch.

    Estimates the total number of users ``N`` (``count(*)``) and, for each ``a`` in ``A*``, the fraction ``f_a =
    count(a = x^(a)) / N`` of users sharing the victim's value. ``u`` is the attribute with the lowest fraction;
    ``A'`` takes the remaining attributes by decreasing fraction until ``prod_{a in A' + u} f_a < 1/N`` (so ``x^(A',
    u)`` is probably unique while ``x^(A')`` selects many users), or all of them. Returns ``(A', u, queries)``.
    """
    a_star = list(a_star)
    if len(a_star) < 2:
        raise ValueError(f"A* needs at least 2 attributes, got {a_star}")
    answers = yield [(f"SELECT count(*) FROM {table}", [()])] + \
        [(_template(table, [(a, "=")]), [(_py(record[a]),)]) for a in a_star]
    n_est = max(float(answers[0][0]), 1.0)
    fractions = {a: max(float(ans[0]), 0.0) / n_est for a, ans in zip(a_star, answers[1:])}
    order = sorted(a_star, key=lambda a: (fractions[a], a_star.index(a)))
    u = order[0]
    a_prime: list[str] = []
    prod = fractions[u]
    for a in sorted(order[1:], key=lambda a: (-fractions[a], a_star.index(a))):
        a_prime.append(a)
        prod *= fractions[a]
        if prod < 1.0 / n_est:
            break
    return a_prime, u, len(a_star) + 1


def greedy_query_bound(n_known: int, n_dummy: int) -> int:
    """Queries of GreedyFullCloningAttack at most: ``|A*| + 2|Delta| + 2`` ([G19] App. B).

    >>> greedy_query_bound(10, 10)
    32
    """
    return int(n_known) + 2 * int(n_dummy) + 2


def greedy_full_cloning_attack(proxy: DiffixProxy, records: Sequence[Mapping[str, Any]],
                               a_stars: Sequence[Sequence[str]], secret: str, domains: Mapping[str, Sequence[Any]],
                               *, seeds: Sequence[np.random.Generator | int | None], v: int = 0, n_dummy: int = 10,
                               sigma_star: float = 0.7, analyst: str = "attacker",
                               on_done: Callable[[int], None] | None = None) -> list[FullCloningOutcome]:
    """GreedyFullCloningAttack ([G19] App. B) against each victim: one subset from GreedySelectSubset.

    Then ValueUnique, NoBucketSuppression and CloningAttack on it; at most ``|A*| + 2|Delta| + 2`` queries per victim.
    Victims as in :func:`full_cloning_attack`.
    """
    attacks = [_greedy_full_cloning_steps(proxy.table, r, a, secret, domains, v=v, n_dummy=n_dummy,
                                          sigma_star=sigma_star, g=check_random_state(g))
               for r, a, g in zip(records, a_stars, seeds, strict=True)]
    return drive_many(proxy, attacks, analyst=analyst, on_done=on_done)


def _greedy_full_cloning_steps(table: str, record: Mapping[str, Any], a_star: Sequence[str], secret: str,
                               domains: Mapping[str, Sequence[Any]], *, v: int, n_dummy: int,
                               sigma_star: float, g: np.random.Generator) -> Steps:
    """:func:`greedy_full_cloning_attack` as a coroutine (see :func:`drive`)."""
    a_prime, u, q0 = yield from _greedy_select_steps(table, record, a_star)
    out = yield from _cloning_steps(table, record, a_prime, u, secret, v=v, dummies=None, dummy_attribute=None,
                                    domains=domains, n_dummy=n_dummy, sigma_star=sigma_star,
                                    check_value_unique=True, g=g)
    if out.guess is None:
        return FullCloningOutcome(None, (), None, float("nan"), 1, q0 + out.n_queries)
    return FullCloningOutcome(out.guess, tuple(a_prime), u, out.s2, 1, q0 + out.n_queries)

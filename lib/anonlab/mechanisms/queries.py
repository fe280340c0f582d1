r"""Small exact queries over independent records: counts, linear queries, means, a thresholded count.

Desfontaines (2020), §3.1.3, Proposition 26: with independent records and a known fixed set, counts, linear queries
:math:`\sum_i w_i D_i` and the arithmetic, geometric, harmonic and quadratic means are *Θ-reducible* (Definition 59);
Example 7's thresholded count is not (Remark 2). Checked by brute force: record 0 is the target, records ``1..k``
known, the other ``m = n - 1 - k`` enumerated (``len(domain) ** m`` configurations), so every probability is exact.

>>> values, logp = output_distribution("count", n=4, known_values=[1], target_value=1,
...                                    domain=[0, 1], probs=[0.5, 0.5])
>>> values.tolist(), np.round(np.exp(logp), 3).tolist()  # 1 + 1 + Bin(2, 1/2)
([2.0, 3.0, 4.0], [0.25, 0.5, 0.25])
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from ..measures.privacy_loss import (
    PrivacyLossDistribution,
    log_delta,
    privacy_loss_distribution,
    same_privacy_loss,
)
from ..validation import ParameterError, check_int, check_number

__all__ = ["QUERIES", "BOTTOM_VALUE", "query_function", "output_distribution", "query_pld",
           "reducibility_table"]

BOTTOM_VALUE = -1.0
"""The value standing for ⊥ in the thresholded count's outputs."""
MAX_CONFIGURATIONS = 2_000_000
QUERIES = ("count", "linear", "arithmetic_mean", "geometric_mean", "harmonic_mean", "quadratic_mean",
           "thresholded_count")


def query_function(name: str, weights: np.ndarray | None = None, threshold: float = 0,
                   positive: float = 1) -> Callable[[np.ndarray], np.ndarray]:
    """The query as a function of an (configurations × records) array, one output per row.

    ``count`` and ``thresholded_count`` count records equal to ``positive`` (⊥ is :data:`BOTTOM_VALUE` when the count
    is not above ``threshold``); ``linear`` is ``x @ weights``; the means need positive values.
    """
    if name == "count":
        return lambda x: (x == positive).sum(axis=1).astype(float)
    if name == "thresholded_count":
        def thr(x: np.ndarray) -> np.ndarray:
            c = (x == positive).sum(axis=1).astype(float)
            return np.where(c > threshold, c, BOTTOM_VALUE)
        return thr
    if name == "linear":
        if weights is None:
            raise ParameterError("the linear query needs weights")
        w = np.asarray(weights, dtype=float)
        return lambda x: x @ w
    if name == "arithmetic_mean":
        return lambda x: x.mean(axis=1)
    if name == "geometric_mean":
        return lambda x: np.exp(np.log(x).mean(axis=1))
    if name == "harmonic_mean":
        return lambda x: x.shape[1] / (1.0 / x).sum(axis=1)
    if name == "quadratic_mean":
        return lambda x: np.sqrt((x ** 2).mean(axis=1))
    raise ParameterError(f"query must be one of {', '.join(QUERIES)}; got {name!r}")


def output_distribution(query: str | Callable[[np.ndarray], np.ndarray], n: int,
                        known_values: Sequence[float], target_value: float,
                        domain: Sequence[float], probs: Sequence[float],
                        decimals: int = 9) -> tuple[np.ndarray, np.ndarray]:
    """Exact output distribution of a query given the target's and the known records' values.

    The unknown records are iid from ``domain`` with ``probs``; every configuration is enumerated and outputs equal to
    ``decimals`` decimals are merged.

    Returns: ``values``, ``log_prob`` (numpy.ndarray): The distinct outputs (sorted) and their log-probabilities.
    """
    n = check_int("n", n, low=1)
    known = np.asarray(list(known_values), dtype=float)
    m = n - 1 - len(known)
    if m < 0:
        raise ParameterError(f"{len(known)} known records and a target do not fit in n = {n} records")
    dom = np.asarray(list(domain), dtype=float)
    pr = np.asarray(list(probs), dtype=float)
    if dom.shape != pr.shape or not np.isclose(pr.sum(), 1.0) or (pr <= 0).any():
        raise ParameterError("probs must be positive, one per domain value, and sum to 1")
    if len(dom) ** m > MAX_CONFIGURATIONS:
        raise ParameterError(f"{len(dom)}^{m} configurations of the unknown records is too many to enumerate")
    f = query_function(query) if isinstance(query, str) else query
    idx = np.array(list(itertools.product(range(len(dom)), repeat=m)), dtype=int).reshape(-1, m)
    x = np.column_stack([np.full(len(idx), float(target_value)), np.tile(known, (len(idx), 1)), dom[idx]])
    out = np.round(f(x), decimals)
    logp = np.log(pr)[idx].sum(axis=1)
    values, inv = np.unique(out, return_inverse=True)
    order = np.argsort(inv, kind="stable")
    merged = np.logaddexp.reduceat(logp[order], np.searchsorted(inv[order], np.arange(len(values))))
    return values, merged


def query_pld(query: str | Callable[[np.ndarray], np.ndarray], n: int, known_values: Sequence[float],
              target_value: float, other_value: float, domain: Sequence[float],
              probs: Sequence[float]) -> PrivacyLossDistribution:
    """The PLRV of the query's output, target value ``target_value`` against ``other_value`` (Definition 56)."""
    va, la = output_distribution(query, n, known_values, target_value, domain, probs)
    vb, lb = output_distribution(query, n, known_values, other_value, domain, probs)
    allv = np.union1d(va, vb)
    pa = np.full(len(allv), -np.inf)
    pb = np.full(len(allv), -np.inf)
    pa[np.searchsorted(allv, va)] = la
    pb[np.searchsorted(allv, vb)] = lb
    return privacy_loss_distribution(pa, pb)


def reducibility_table(queries: Sequence[tuple[str, str | Callable[[np.ndarray], np.ndarray], Sequence[float],
                                               Sequence[float]]],
                       n: int, known: int, target_values: tuple[float, float],
                       epsilons: Sequence[float]) -> pd.DataFrame:
    """Is each query's privacy loss the same whatever the known records hold? (Proposition 26.)

    Parameters: ``queries``: ``(label, query, domain, probs)`` tuples; ``query`` a name of :data:`QUERIES` or a
    function of the records. ``n``, ``known``: Records in the database and records the attacker knows.
    ``target_values``: The target's value t and the alternative t'. ``epsilons``: ε values at which δ is reported.

    Returns: pandas.DataFrame: One row per query and configuration of the known records: the configuration, δ(ε) and
    whether the PLRV equals that of the first configuration (``same_plrv``), plus ``reducible`` per query (all same).
    """
    check_int("known", known, low=0, high=n - 1)
    eps = [check_number(f"epsilons[{i}]", e, low=0) for i, e in enumerate(epsilons)]
    t, t2 = target_values
    rows = []
    for label, q, domain, probs in queries:
        ref = None
        for config in itertools.product(list(domain), repeat=known):
            pld = query_pld(q, n, config, t, t2, domain, probs)
            same = True if ref is None else same_privacy_loss(ref, pld)
            ref = pld if ref is None else ref
            row = {"query": label, "known_values": tuple(float(v) for v in config), "same_plrv": same}
            row.update({f"delta(eps={e:g})": float(np.exp(v)) for e, v in zip(eps, log_delta(pld, eps))})
            rows.append(row)
    df = pd.DataFrame(rows)
    df["reducible"] = df.groupby("query")["same_plrv"].transform("all")
    return df

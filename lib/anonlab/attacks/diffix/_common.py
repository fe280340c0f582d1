"""Small helpers shared by the Diffix attacks: SQL templates, argument checks, and attacks as coroutines."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Generator, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from anonlab.mechanisms.diffix import DiffixProxy
from anonlab.validation import check_int, check_number

# ---------------------------------------------------------------------------
# SQL helpers
# ---------------------------------------------------------------------------


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@lru_cache(maxsize=4096)
def _placeholder_condition(column: str, op: str) -> str:
    """``"column" op ?``: one condition of a prepared statement (memoised: the attacks reuse a few)."""
    return f"{_ident(column)} {op} ?"


def _template(table: str, conditions: Sequence[tuple[str, str]]) -> str:
    """``SELECT count(*) FROM table WHERE c1 op ? AND ...`` for (column, op) pairs.

    Memoised on the pairs: an attack sends the same statement shapes many times, and the proxy finds a text it has
    seen (the same string object) in its cache of statements at once.
    """
    return _template_of(table, tuple(map(tuple, conditions)))


@lru_cache(maxsize=1 << 14)
def _template_of(table: str, conditions: tuple[tuple[str, str], ...]) -> str:
    where = " AND ".join(itertools.starmap(_placeholder_condition, conditions))
    return f"SELECT count(*) FROM {table}" + (f" WHERE {where}" if where else "")


def _py(v: Any) -> Any:
    """numpy scalars to Python values for binding."""
    return v.item() if isinstance(v, np.generic) else v



def _positive_int(name: str, value: Any) -> int:
    """An integer >= 1 (numpy integers accepted), checked by :func:`anonlab.validation.check_int`."""
    if isinstance(value, np.integer):
        value = int(value)
    return check_int(name, value, low=1)


def _cloning_settings(n_dummy: Any, sigma_star: Any) -> tuple[int, float]:
    """Check ``|Delta|`` (an integer >= 2: a variance needs two samples) and ``sigma*`` (a number >= 0)."""
    if isinstance(n_dummy, np.integer):
        n_dummy = int(n_dummy)
    n = check_int("n_dummy", n_dummy, low=2)
    return n, check_number("sigma_star", sigma_star, low=0)


# ---------------------------------------------------------------------------
# Attacks as coroutines: many victims' queries in one batch
# ---------------------------------------------------------------------------

#: An attack written as a generator: it yields a list of prepared statements
#: ``[(template, rows), ...]``, receives the list of their answer arrays (as
#: :meth:`DiffixProxy.execute_batch` returns them) and finally returns its outcome.
#: A step may end with one :class:`CertainZeros`: queries it does not send.
Steps = Generator[list[Any], list[np.ndarray], Any]


class CertainZeros:
    """``n`` queries an attack does not send because bucket suppression is certain to answer them 0.

    Put last in a step's list; the driver counts them at the proxy
    (:meth:`~anonlab.mechanisms.diffix.DiffixProxy.count_certain_zeros`) and returns answers for the other statements
    only.
    """

    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        self.n = int(n)


def _split(request: list[Any]) -> tuple[list[Any], int]:
    """A step's statements and the number of queries it does not send."""
    if request and isinstance(request[-1], CertainZeros):
        return request[:-1], request[-1].n
    return request, 0


def _execute(proxy: DiffixProxy, request: list[Any], analyst: str) -> list[np.ndarray]:
    statements, unsent = _split(request)
    if unsent:
        proxy.count_certain_zeros(unsent, analyst=analyst)
    return proxy.execute_batch(statements, analyst=analyst) if statements else []


def drive(proxy: DiffixProxy, steps: Steps, analyst: str = "attacker") -> Any:
    """Run one attack coroutine against a proxy, one batch per step; return its outcome."""
    try:
        request = next(steps)
        while True:
            request = steps.send(_execute(proxy, request, analyst))
    except StopIteration as stop:
        return stop.value


def drive_many(proxy: DiffixProxy, attacks: Sequence[Steps], analyst: str = "attacker",
               on_done: Callable[[int], None] | None = None) -> list[Any]:
    """Run many attack coroutines in lockstep: each round answers every pending step in one batch.

    Each query gets the answer it would get alone (Diffix's noise is a function of the query, not of the batch), and
    each attack draws from its own generator, so the outcomes are those of :func:`drive` one by one; only the per-call
    overhead of the proxy is paid once per round instead of once per victim and step. ``on_done(i)`` is called when
    attack ``i`` ends.
    """
    results: list[Any] = [None] * len(attacks)
    pending: dict[int, list] = {}

    def advance(i: int, answers: list[np.ndarray] | None) -> None:
        try:
            pending[i] = next(attacks[i]) if answers is None else attacks[i].send(answers)
        except StopIteration as stop:
            pending.pop(i, None)
            results[i] = stop.value
            if on_done is not None:
                on_done(i)

    for i in range(len(attacks)):
        advance(i, None)
    while pending:
        order = list(pending)
        split = [_split(pending[i]) for i in order]
        unsent = sum(n for _, n in split)
        if unsent:
            proxy.count_certain_zeros(unsent, analyst=analyst)
        statements = [st for sts, _ in split for st in sts]
        answers = proxy.execute_batch(statements, analyst=analyst) if statements else []
        pos = 0
        for i, (sts, _) in zip(order, split):
            k = len(sts)
            advance(i, answers[pos:pos + k])
            pos += k
    return results

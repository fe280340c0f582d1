"""The proxy's fast paths give exactly what their plain reference algorithms give."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from anonlab.mechanisms.diffix import Condition, DiffixProxy


def _table(seed: int, n: int) -> pd.DataFrame:
    """Columns from very sparse (``rare``: mostly distinct) to dense (``bit``), with NULLs in ``city``."""
    g = np.random.default_rng(seed)
    city = g.choice(["a", "b", "c", None], size=n).astype(object)
    return pd.DataFrame({"rare": g.integers(0, max(2, n // 2), size=n), "mid": g.integers(0, 12, size=n),
                         "bit": g.integers(0, 2, size=n), "city": city,
                         "score": np.round(g.normal(size=n), 1)})


def _random_conditions(proxy: DiffixProxy, data: pd.DataFrame, g: np.random.Generator, k: int) -> tuple[int, ...]:
    """``k`` condition ids: mostly values of one random record (so the set is often non-empty)."""
    row = data.iloc[int(g.integers(len(data)))]
    ids = []
    for _ in range(k):
        col = str(g.choice(data.columns))
        op = str(g.choice(["=", "=", "=", "<>", "<", ">="]))
        value = row[col] if g.random() < 0.8 else data[col].iloc[int(g.integers(len(data)))]
        if pd.isna(value):
            value = "a" if col == "city" else 0
        if col == "city" and op not in ("=", "<>"):
            op = "="
        value = value.item() if isinstance(value, np.generic) else value
        ids.append(proxy._register(Condition(col, op, value)))
    return tuple(dict.fromkeys(ids))


@pytest.mark.parametrize("seed, n", [(0, 7), (1, 64), (2, 65), (3, 1000), (4, 5000), (5, 20_000)])
def test_intersect_equals_its_reference(seed: int, n: int) -> None:
    data = _table(seed, n)
    proxy = DiffixProxy(data, table="t", salt=seed)
    g = np.random.default_rng(seed + 100)
    keys = [_random_conditions(proxy, data, g, int(g.integers(1, 12))) for _ in range(300)]
    keys += [(), (proxy._register(Condition("rare", "=", -5)),)]  # no condition; a value no record has
    proxy._ensure_masks({c for key in keys for c in key})
    for key in keys:
        assert proxy._intersect(key) == proxy._intersect_reference(key)


def test_intersect_few_words_paths() -> None:
    """Many rows in few words (the numpy summary) and one row (the Python XOR), dense and sparse starts."""
    n = 3000
    data = pd.DataFrame({"blk": np.arange(n) // 64, "lane": np.arange(n) % 64, "one": np.ones(n, dtype=int)})
    proxy = DiffixProxy(data, table="t", salt=1)
    c = lambda col, op, v: proxy._register(Condition(col, op, v))  # noqa: E731
    keys = [(c("blk", "=", 3), c("one", "=", 1)),                      # 64 rows of one word
            (c("blk", "=", 3), c("lane", "=", 5), c("one", "=", 1)),   # one row
            (c("blk", "<", 10), c("lane", ">=", 60), c("one", "=", 1)),  # 40 rows in 10 words
            (c("blk", "<", 2), c("lane", "=", 70)),                     # nothing
            (c("one", "=", 1), c("lane", "<>", 3)),                     # dense
            (c("blk", "<", 5), *[c("lane", "<>", v) for v in range(50)])]
    proxy._ensure_masks({i for key in keys for i in key})
    for key in keys:
        for perm in itertools.islice(itertools.permutations(key), 6):
            assert proxy._intersect(perm) == proxy._intersect_reference(perm)

"""The proxy's fast paths give exactly what their plain reference algorithms give."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from anonlab.mechanisms.diffix import Condition, DiffixProxy
from tests import reference_twins as twins


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
        assert proxy._intersect(key) == twins.intersect_reference(proxy, key)


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
            assert proxy._intersect(perm) == twins.intersect_reference(proxy, perm)


# --- binding prepared statements -----------------------------------------------------------

def _statements(g: np.random.Generator, data: pd.DataFrame, n_statements: int) -> list[tuple[str, list[tuple]]]:
    """Statements like the attacks' (= and <> on one column, repeated slots, 1..12 rows), some with literals."""
    cols = list(data.columns)
    out = []
    for _ in range(n_statements):
        k = int(g.integers(1, 8))
        pairs = [(str(g.choice(cols)), str(g.choice(["=", "=", "<>", "<>", ">="]))) for _ in range(k)]
        pairs = [(c, "=" if c == "city" else op) if c == "city" and op == ">=" else (c, op) for c, op in pairs]
        literal = g.random() < 0.2
        where = " AND ".join(f'"{c}" {op} ?' for c, op in pairs)
        if literal:
            where += " AND mid <> 99"
        rows = []
        for _ in range(int(g.integers(1, 13))):
            rec = data.iloc[int(g.integers(len(data)))]
            row = []
            for c, _ in pairs:
                v = rec[c] if g.random() < 0.7 else data[c].iloc[int(g.integers(len(data)))]
                if pd.isna(v):
                    v = "a"
                v = v.item() if isinstance(v, np.generic) else v
                if isinstance(v, int) and g.random() < 0.1:
                    v = float(v)  # 3.0 binds to the condition of 3
                row.append(v)
            rows.append(tuple(row))
        out.append((f"SELECT count(*) FROM t WHERE {where}", rows))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_bind_equals_its_reference_and_keys_equal_core(seed: int) -> None:
    data = _table(seed, 500)
    g = np.random.default_rng(seed)
    fast, slow = DiffixProxy(data, table="t", salt=1), DiffixProxy(data, table="t", salt=1)
    for _ in range(3):  # new values first, then values seen before
        statements = _statements(g, data, 60) if _ == 0 else statements + _statements(g, data, 20)
        for template, rows in statements:
            ids, keys, ref = [], [], []
            fast._bind(template, rows, ids, keys)
            twins.bind_reference(slow, template, rows, ref)
            assert ids == ref
            assert keys == [fast._core(i) for i in ids]
        assert fast._ids == slow._ids  # the same condition ids, registered in the same order
        assert {k: dict(v) for k, v in fast._id_of.items()} == {k: dict(v) for k, v in slow._id_of.items()}


def test_bind_contradictory_equalities_and_bools() -> None:
    data = _table(0, 200)
    proxy = DiffixProxy(data, table="t", salt=1)
    template = 'SELECT count(*) FROM t WHERE "mid" = ? AND "mid" <> ? AND "mid" = ? AND "mid" <> ?'
    rows = [(1, 2, 3, 1), (1, 2, 1, 3), (4, 4, 4, 5), (1, 1, 1, 1)]
    ids, keys = [], []
    proxy._bind(template, rows, ids, keys)
    assert keys == [proxy._core(i) for i in ids]
    with pytest.raises(Exception, match="compare with a number"):
        proxy.execute('SELECT count(*) FROM t WHERE "bit" = ?', [(1,), (True,)])
    assert proxy.execute('SELECT count(*) FROM t WHERE "bit" = ?', [(1,)]).shape == (1,)


def test_execute_batch_answers_as_the_reference_bind() -> None:
    """The whole pipeline: answers with the keys from _bind equal answers with keys from _core."""
    data = _table(5, 800)
    g = np.random.default_rng(5)
    statements = _statements(g, data, 80)
    proxy = DiffixProxy(data, table="t", salt=9)
    answers = np.concatenate(proxy.execute_batch(statements))
    ref = DiffixProxy(data, table="t", salt=9)
    ids = []
    for template, rows in statements:
        twins.bind_reference(ref, template, rows, ids)
    assert answers.tobytes() == ref._answer(ids, "analyst").tobytes()


# --- reading the attacks' SQL ---------------------------------------------------------------

FAST_COLUMNS = {"age": "int", "zip": "int", "city": "str", 'we"ird': "str", "a AND b": "int", "Mixed": "int"}


@pytest.mark.parametrize("sql", [
    'SELECT count(*) FROM t WHERE "age" = ?',
    'SELECT count(*) FROM t WHERE "age" = ? AND "zip" <> ? AND "city" != ? AND "age" >= ? AND "zip" < ?',
    'SELECT count(*) FROM t WHERE "we""ird" = ? AND "a AND b" <= ? AND "Mixed" > ?',
    'select COUNT(*) from T where "age" = ? AND "zip" = ?',
    'SELECT count(*) FROM t WHERE "age" = ? AND "zip" = ?;',
    'SELECT count(*) FROM t WHERE "age"=? AND "zip" = ?',
    'SELECT count(*) FROM t WHERE  "age" = ?',
    'SELECT count(*) FROM t WHERE "AGE" = ? AND "mixed" = ?',
    'SELECT count(*) FROM t WHERE "age" = ? and "zip" = ?',
    'SELECT count(*) FROM t WHERE "age" = ? AND "zip" = 3',
    'SELECT count(*) FROM t WHERE "age" = ? OR "zip" = ?',
    'SELECT count(*) FROM u WHERE "age" = ?',
    'SELECT count(*) FROM t WHERE "nope" = ?',
    'SELECT count(*) FROM t WHERE "a" = ? AND "b" = ?',
    'SELECT count(*) FROM t',
])
def test_fast_pairs_reads_what_fast_template_reads(sql: str) -> None:
    from anonlab.mechanisms.diffix import _fast_pairs, _fast_template

    pairs = _fast_pairs(sql, "t", FAST_COLUMNS)
    slots = _fast_template(sql, "t", FAST_COLUMNS)
    if pairs is not None:
        assert slots is not None and pairs == tuple((s.column, s.op) for s in slots)
        assert [s.position for s in slots] == list(range(len(pairs)))


def test_fast_pairs_reads_the_attacks_templates() -> None:
    from anonlab.attacks.diffix._common import _template
    from anonlab.mechanisms.diffix import _fast_pairs

    conds = [(c, op) for c in FAST_COLUMNS if " AND " not in c for op in ("=", "<>", "<", ">=")]
    assert _fast_pairs(_template("t", conds), "t", FAST_COLUMNS) == tuple(conds)
    # an AND inside a quoted name: left to the regular expressions
    assert _fast_pairs(_template("t", [("a AND b", "=")]), "t", FAST_COLUMNS) is None


def test_template_text_is_the_plain_formula() -> None:
    from anonlab.attacks.diffix._common import _template

    def plain(table: str, conditions: list[tuple[str, str]]) -> str:
        where = " AND ".join('"' + c.replace('"', '""') + f'" {op} ?' for c, op in conditions)
        return f"SELECT count(*) FROM {table}" + (f" WHERE {where}" if where else "")

    for conds in ([], [("age", "=")], [("age", "="), ('we"ird', "<>"), ("age", "<>")] * 3,
                  [["zip", ">="], ["city", "="]]):
        assert _template("adult", conds) == plain("adult", conds)
        assert _template("adult", conds) is _template("adult", list(conds))  # memoised


@pytest.mark.parametrize("dummies", [[1, 2, 3, 4, 5], [1, 2, 3, 4, 7], [1, 1, 2, 3, 4], [7, 8, 9, 10, 11]])
def test_bind_cloning_statements(dummies: list[int]) -> None:
    """The cloning attack's Q_j (one dummy left out per row): shared keys, kept dummies, repeated dummies."""
    data = _table(3, 300)
    template = ('SELECT count(*) FROM t WHERE "bit" = ? AND "mid" = ? AND ' + " AND ".join(['"mid" <> ?'] * 4)
                + ' AND "city" = ?')
    for base in ([1, 7], [0, 5]):
        rows = [tuple(base + [d for i, d in enumerate(dummies) if i != j] + ["a"]) for j in range(len(dummies))]
        rows += [tuple(base + dummies[:4] + ["b"])]  # one row unlike the others
        for subset in (rows[:-1], rows):
            fast, slow = DiffixProxy(data, table="t", salt=1), DiffixProxy(data, table="t", salt=1)
            for _ in range(2):  # values new, then known
                ids, keys, ref = [], [], []
                fast._bind(template, subset, ids, keys)
                twins.bind_reference(slow, template, subset, ref)
                assert ids == ref and keys == [fast._core(i) for i in ids]


@pytest.mark.parametrize("sql", [
    'SELECT count(*) FROM t WHERE "age" = ? AND "zip" <> ?',
    'select\tCOUNT ( * )\nfrom T\x0bwhere\x0c"AGE"=?\r\nand "Mixed" >= ?;',
    'SELECT count(*) FROM t WHERE "age"\x85= ?',             # U+0085: DuckDB reads it as part of a name
    'SELECT count(*) FROM t WHERE\u2028"age" = ?',           # U+2028: likewise
    '\u017fELECT count(*) FROM t WHERE "age" = ?',           # a long s is no S for DuckDB
    'SELECT count(*) FROM t WHERE "AGE" = ? AND "\u212aip" = ?',  # nor is the Kelvin sign a K
    'SELECT count(*)\xa0FROM t WHERE "age" = ?',
])
def test_fast_readings_read_what_duckdb_reads(sql: str) -> None:
    """When a fast reading answers, DuckDB's parser reads the statement the same way (else it passes it on)."""
    from anonlab.mechanisms.diffix import DiffixQueryError, _fast_pairs, _fast_template, _parse_template

    pairs, slots = _fast_pairs(sql, "t", FAST_COLUMNS), _fast_template(sql, "t", FAST_COLUMNS)
    try:
        parsed = _parse_template(sql, "t", FAST_COLUMNS, allow_placeholders=True)[1]
    except DiffixQueryError:
        parsed = None
    if slots is not None:
        assert parsed == slots
    if pairs is not None:
        assert parsed is not None and tuple((s.column, s.op) for s in parsed) == pairs
    if any(ch in sql for ch in "\x85\u2028\u017f\u212a"):
        assert slots is None and pairs is None and parsed is None

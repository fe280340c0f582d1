"""The Diffix proxy under hostile SQL: refusals leave no state, nothing unknown is answered.

A property-based test generates SQL across the families a hostile but fair
analyst tries (clauses the proxy does not implement, odd literals, deep
nesting, long conjunctions, lone surrogates, huge integers, unary plus) and
checks that only the proxy's own error or a noisy count comes back, that a
refusal changes no state, and that no answer is an exact row-level value.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonlab.mechanisms.diffix import DiffixProxy, DiffixQueryError

DF = pd.DataFrame({"age": [30, 30, 31, 30, 41, 52, 30, 31] * 5,
                   "sex": ["F", "M", "F", "F", "M", "F", "M", "F"] * 5,
                   "income": [0, 1, 0, 0, 1, 1, 0, 1] * 5})


@pytest.fixture
def proxy() -> DiffixProxy:
    return DiffixProxy(DF, table="adult", salt=3)


def _state(p: DiffixProxy) -> tuple:
    return (len(p._conds), dict(p._ids), len(p._id_of), sorted(p._masks), p._seed_arr.size,
            dict(p._counts), len(p._log))


@pytest.mark.parametrize("sql", [
    "SELECT count(*) FROM adult TABLESAMPLE 1 ROWS",
    "SELECT count(*) FROM adult PIVOT (count(*) FOR sex IN ('F'))",
    "SELECT count(*) FROM ONLY adult",
    "SELECT count(*) FROM adult AT (VERSION => 1)",
    "SELECT count(*) FROM adult FOR SYSTEM_TIME AS OF 1",
    "SELECT count(*) FROM adult WHERE sex = +'F'",
    "SELECT count(*) FROM adult WHERE age = +30",
    "SELECT count(*) FROM adult WHERE age = 12345678901234567890123456789012345678901234",
    "SELECT count(*) FROM adult WHERE " + " AND ".join(["age = 30"] * 1000),
    "SELECT count(*) FROM adult WHERE " + "(" * 1000 + "age = 30" + ")" * 1000,
    "SELECT count(*) FROM adult WHERE sex = '\udcff'",
    "SELECT count(*) FROM adult WHERE sex = '" + "x" * 5000 + "'",
    # read otherwise by DuckDB (second pass): a NEL and a line separator are no spaces, BY is reserved
    "SELECT count(*) FROM adult WHERE sex\x85= 'M'",
    "SELECT count(*) FROM adult WHERE \u2028age = 30",
    "SELECT count(*) BY FROM adult",
    # numbers DuckDB compares otherwise than a 64-bit float would
    "SELECT count(*) FROM adult WHERE income = 1e308",
    "SELECT count(*) FROM adult WHERE age < 30.0000000000000001",
    "SELECT count(*) FROM adult WHERE age = 29.99999999999999999",
])
def test_each_reported_hole_is_refused_without_a_trace(proxy: DiffixProxy, sql: str) -> None:
    good = proxy.query("SELECT count(*) FROM adult WHERE age = 30")
    before = _state(proxy)
    with pytest.raises(DiffixQueryError):
        proxy.query(sql)
    assert _state(proxy) == before
    # the proxy still works, for everyone, with the same sticky answers
    assert proxy.query("SELECT count(*) FROM adult WHERE age = 30") == good
    assert proxy.query("SELECT count(*) FROM adult WHERE sex = 'M'", analyst="other") >= 0


def _statement(spelling: str, n: int) -> str:
    """A prepared statement with ``n`` conditions, spelled for each of the proxy's readings."""
    one = {"attacks": '"age" = ?',       # _fast_pairs: the attacks' own spelling
           "spaced": '"age"  =  ?',      # _fast_template: the regular expressions
           "parsed": "age = ?"}[spelling]  # _parse_template: sqlglot
    return "SELECT count(*) FROM adult WHERE " + " AND ".join([one] * n)


@pytest.mark.parametrize("spelling", ["attacks", "spaced", "parsed"])
def test_the_condition_limit_holds_on_every_path(proxy: DiffixProxy, spelling: str) -> None:
    """MAX_CONDITIONS (256) holds for prepared statements too, whichever reading serves them."""
    from anonlab.mechanisms.diffix import MAX_CONDITIONS

    assert proxy.execute(_statement(spelling, MAX_CONDITIONS), [(30,) * MAX_CONDITIONS]).shape == (1,)
    before = _state(proxy)
    for n in (MAX_CONDITIONS + 1, 1000):
        with pytest.raises(DiffixQueryError, match=f"at most {MAX_CONDITIONS}"):
            proxy.execute(_statement(spelling, n), [(30,) * n])
        with pytest.raises(DiffixQueryError, match=f"at most {MAX_CONDITIONS}"):
            proxy.execute_batch([(_statement(spelling, n), [(30,) * n])])
    assert _state(proxy) == before


def test_a_query_without_conditions_is_noisy_like_diffix(proxy: DiffixProxy) -> None:
    exact = len(DF)
    answers = {DiffixProxy(DF, table="adult", salt=s).query("SELECT count(*) FROM adult", ) for s in range(30)}
    assert len(answers) > 3 and exact in range(min(answers) - 1, max(answers) + 2)
    assert proxy.query("SELECT count(*) FROM adult") == proxy.query("select COUNT(*) from adult")  # sticky
    assert proxy.explain("SELECT count(*) FROM adult").layers.shape[0] == 1
    literal = DiffixProxy(DF, table="adult", salt=3, generic_layer=False)
    assert literal.query("SELECT count(*) FROM adult") == exact  # the paper's Eq. 1 with h = 0


def test_engine_errors_become_the_proxys_refusal(proxy: DiffixProxy, monkeypatch) -> None:
    def broken(*a, **k):
        raise RuntimeError("engine exploded")
    monkeypatch.setattr(proxy, "_ensure_masks", broken)
    before = _state(proxy)
    with pytest.raises(DiffixQueryError, match="could not be answered.*engine exploded"):
        proxy.query("SELECT count(*) FROM adult WHERE age = 41")
    assert _state(proxy) == before


# --- generated SQL ------------------------------------------------------------------------

COLUMNS = st.sampled_from(["age", "sex", "income", "AGE", '"sex"', "nope", "adult.age", "x.age"])
OPS = st.sampled_from(["=", "<>", "!=", "<", "<=", ">", ">=", "LIKE", "IN", "IS", "+", "||"])
LITERALS = st.one_of(
    st.integers(min_value=-(10**50), max_value=10**50).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=8).map(lambda t: "'" + t.replace("'", "''") + "'"),
    st.sampled_from(["NULL", "TRUE", "?", "+1", "-'a'", "(1)", "age", "'\udcff'", "1e999", "0x10"]),
)
CONDITION = st.builds(lambda c, o, v: f"{c} {o} {v}", COLUMNS, OPS, LITERALS)
WHERE = st.lists(CONDITION, min_size=0, max_size=6).map(
    lambda cs: (" WHERE " + " AND ".join(cs)) if cs else "")
HEAD = st.sampled_from(["SELECT count(*) FROM adult", "SELECT COUNT(*) FROM adult", "SELECT * FROM adult",
                        "SELECT count(age) FROM adult", "SELECT count(*) FROM other",
                        "SELECT count(*) FROM adult t", "SELECT count(*) FROM ONLY adult",
                        "SELECT count(*) FROM adult TABLESAMPLE 10%", "SELECT sum(age) FROM adult"])
TAIL = st.sampled_from(["", ";", " GROUP BY sex", " LIMIT 1", " ORDER BY age", "; DROP TABLE adult",
                        " UNION SELECT count(*) FROM adult", " OR 1=1"])
SQL = st.builds(lambda h, w, t: h + w + t, HEAD, WHERE, TAIL)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sql=SQL)
def test_generated_sql_gets_a_refusal_or_a_noisy_count(proxy: DiffixProxy, sql: str) -> None:
    before = _state(proxy)
    try:
        answer = proxy.query(sql)
    except DiffixQueryError:
        after = _state(proxy)
        assert after == before, f"a refused query changed the proxy's state: {sql!r}"
        return
    assert isinstance(answer, (int, float)) and answer >= 0 and np.isfinite(answer)
    # never a row-level value: the answer is a count, and only for a plain count(*) query
    assert sql.lower().startswith("select count(*) from adult")
    assert proxy.n_queries() >= 1


# --- numbers as DuckDB reads them ---------------------------------------------------------

def _number_texts(seed: int, n: int) -> list[str]:
    """Numeric literal texts: integers, decimals of 1 to 45 digits (leading zeros too), exponents."""
    g = np.random.default_rng(seed)
    out = ["0", "30", "30.0", "30.", ".5", "0.00001", "1e5", "1E+05", "30.e2", "9223372036854775807",
           "9223372036854775808", "-9223372036854775809", "-30.5", "-.5", "00030.50",
           "9" * 38 + ".", "." + "9" * 38, "9" * 39 + ".5", "0." + "0" * 37 + "1", "0." + "0" * 38 + "1"]
    for _ in range(n):
        digits = "".join(g.choice(list("0123456789"), size=int(g.integers(1, 46))))
        point = int(g.integers(0, len(digits) + 1))
        text = digits[:point] + "." + digits[point:] if g.random() < 0.8 else digits
        if g.random() < 0.2:
            text += f"e{int(g.integers(-30, 30))}"
        out.append(("-" if g.random() < 0.3 else "") + text)
    return out


def test_numbers_get_the_type_duckdb_gives_them() -> None:
    """_number's int / Decimal / float is DuckDB's INTEGER-like / DECIMAL / DOUBLE, with its value and scale."""
    from decimal import Decimal

    from anonlab.mechanisms.diffix import _number

    texts = _number_texts(0, 400)
    con = duckdb.connect()
    row = con.execute("SELECT " + ", ".join(f"typeof({t}), ({t})::VARCHAR" for t in texts)).fetchone()
    for text, duck_type, duck_value in zip(texts, row[::2], row[1::2]):
        ours = _number(text)
        if duck_type.startswith("DECIMAL"):
            scale = int(duck_type.split(",")[1].rstrip(")"))
            assert isinstance(ours, Decimal) and ours == Decimal(duck_value), text
            assert max(0, -ours.as_tuple().exponent) == scale, text
        elif duck_type == "DOUBLE":
            assert isinstance(ours, float) and ours == float(duck_value), text
        else:  # INTEGER, BIGINT, HUGEINT, UHUGEINT, BIGNUM
            assert isinstance(ours, int) and ours == int(duck_value), (text, duck_type)


def test_decimals_become_the_double_duckdb_casts_them_to() -> None:
    """A DECIMAL literal compared with a DOUBLE column is cast to DOUBLE: the same float as Python's."""
    from anonlab.mechanisms.diffix import _number

    texts = [t for t in _number_texts(1, 2000) if "e" not in t and len(t.replace("-", "")) <= 39]
    texts = [t for t in texts if type(_number(t)).__name__ == "Decimal"]
    row = duckdb.connect().execute("SELECT " + ", ".join(f"({t})::DOUBLE" for t in texts)).fetchone()
    assert [float(_number(t)) for t in texts] == list(row)

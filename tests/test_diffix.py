"""Tests of the Diffix proxy (anonlab.mechanisms.diffix), the noise-exploitation attacks
(anonlab.attacks.diffix) and the Diffix data sets (anonlab.data.diffix_datasets).

The mechanism is that of Gadotti et al. (2019), §2: static + dynamic noise per
condition, sticky to the condition text and the query set, a noisy
suppression threshold, rounding. Hand-worked values: the SplitMix64 reference
output, the Fact of Appendix A for k = 1, a log-likelihood ratio by hand, and
small tables whose counts are known.
"""

from __future__ import annotations

import copy
import functools
import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from anonlab import measures
from anonlab.attacks import diffix as atk
from anonbook import diffix_harness as harness
from anonlab.data import diffix_datasets as dd
from anonlab.mechanisms import diffix as mech
from anonlab.mechanisms.diffix import DiffixProxy, DiffixQueryError

HYP = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                      HealthCheck.function_scoped_fixture])


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    """A small table with integer, float and text columns."""
    rng = np.random.default_rng(5)
    n = 3000
    return pd.DataFrame({
        "age": rng.integers(18, 80, n),
        "zip": rng.integers(1, 40, n),
        "score": np.round(rng.uniform(0, 10, n), 1),
        "sex": rng.choice(["F", "M"], n),
        "city": rng.choice(["Paris", "Lyon", "O'Hare", "Nice", "Lille"], n),
        "hiv": rng.integers(0, 2, n),
    })


@pytest.fixture(scope="module")
def raw_proxy(table: pd.DataFrame) -> DiffixProxy:
    """No rounding, no suppression: the bare Eq. 1."""
    return DiffixProxy(table, table="t", salt=99, rounding=False, bucket_suppression=False)


@pytest.fixture(scope="module")
def proxy(table: pd.DataFrame) -> DiffixProxy:
    return DiffixProxy(table, table="t", salt=99)


def pandas_count(df: pd.DataFrame, conds: list[tuple[str, str, object]]) -> int:
    ops = {"=": np.equal, "<>": np.not_equal, "<": np.less, "<=": np.less_equal,
           ">": np.greater, ">=": np.greater_equal}
    m = np.ones(len(df), dtype=bool)
    for col, op, v in conds:
        m &= ops[op](df[col].to_numpy(), v)
    return int(m.sum())


# ---------------------------------------------------------------------------- PRNG and hashes


def _splitmix_reference(seed: int, n: int) -> list[int]:
    """Plain-Python SplitMix64 (Steele et al. 2014)."""
    mask = (1 << 64) - 1
    out, state = [], seed
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out.append(z ^ (z >> 31))
    return out


def test_splitmix64_matches_reference_values() -> None:
    assert int(mech.splitmix64(0)[0]) == 0xE220A8397B1DCDAF  # published first output of seed 0
    for seed in (0, 1, 12345, (1 << 64) - 1):
        assert [int(v) for v in mech.splitmix64(np.uint64(seed), 3)] == _splitmix_reference(seed, 3)


def test_prng_normal_is_deterministic_and_standard_normal() -> None:
    seeds = np.arange(200_000, dtype=np.uint64) * np.uint64(7919)
    z = mech.prng_normal(seeds)
    assert np.array_equal(z, mech.prng_normal(seeds))
    assert abs(z.mean()) < 0.01 and abs(z.var() - 1) < 0.015
    assert stats.kstest(z[:20_000], "norm").pvalue > 1e-3


def test_salt_and_uid_hashes() -> None:
    assert mech.salt_to_uint64(5) == 5
    assert mech.salt_to_uint64("s") == mech.salt_to_uint64("s") != mech.salt_to_uint64("t")
    with pytest.raises(ValueError, match="salt"):
        mech.salt_to_uint64(-1)
    h = mech.uid_hashes(np.arange(1000))
    assert len(set(h.tolist())) == 1000
    assert mech.uid_hashes(np.array(["a", "b"])).dtype == np.uint64


# ---------------------------------------------------------------------------- the proxy


def test_answer_is_count_plus_the_noise_layers(raw_proxy: DiffixProxy, table: pd.DataFrame) -> None:
    sql = "SELECT count(*) FROM t WHERE age = 40 AND sex = 'F'"
    b = raw_proxy.explain(sql)
    assert b.true_count == pandas_count(table, [("age", "=", 40), ("sex", "=", "F")])
    assert b.answer == pytest.approx(b.true_count + b.layers["static"].sum() + b.layers["dynamic"].sum())
    assert raw_proxy.query(sql) == pytest.approx(b.answer)
    # static noise depends only on the condition: the same in another query
    other = raw_proxy.explain("SELECT count(*) FROM t WHERE sex = 'F' AND zip = 3")
    assert other.layers.set_index("condition").loc["sex = 'F'", "static"] == \
        pytest.approx(b.layers.set_index("condition").loc["sex = 'F'", "static"])
    assert other.layers.set_index("condition").loc["sex = 'F'", "dynamic"] != \
        pytest.approx(b.layers.set_index("condition").loc["sex = 'F'", "dynamic"])


def test_noise_is_sticky_across_spellings_and_repeats(proxy: DiffixProxy) -> None:
    a = proxy.query("SELECT count(*) FROM t WHERE age >= 30 AND city <> 'Nice' AND hiv = 1")
    same = [
        "SELECT count(*) FROM t WHERE age >= 30 AND city <> 'Nice' AND hiv = 1",
        "select COUNT(*) from T where HIV=1 and 30 <= Age and city != 'Nice'",
        "SELECT count(*) FROM t WHERE (age >= 30 AND (city <> 'Nice')) AND hiv = 1.0",
        "SELECT count(*) FROM t WHERE age >= 30 AND age >= 30 AND city <> 'Nice' AND hiv = 1",
    ]
    assert all(proxy.query(s) == a for s in same)


def test_logically_equivalent_rewrites_get_new_noise(raw_proxy: DiffixProxy) -> None:
    pairs = [
        ("SELECT count(*) FROM t WHERE age = 37", "SELECT count(*) FROM t WHERE age >= 37 AND age <= 37"),
        ("SELECT count(*) FROM t WHERE age = 37", "SELECT count(*) FROM t WHERE age = 37 AND age <> 200"),
        ("SELECT count(*) FROM t WHERE sex = 'F'", "SELECT count(*) FROM t WHERE sex <> 'M'"),
    ]
    for a, b in pairs:
        assert raw_proxy.true_count(a) == raw_proxy.true_count(b)
        assert raw_proxy.query(a) != raw_proxy.query(b)


def test_prepared_statements_answer_like_the_sql_text(proxy: DiffixProxy, table: pd.DataFrame) -> None:
    rows = [(int(a), s) for a, s in table[["age", "sex"]].head(30).itertuples(index=False)]
    got = proxy.execute("SELECT count(*) FROM t WHERE age = ? AND sex = ?", rows)
    want = [proxy.query(f"SELECT count(*) FROM t WHERE age = {a} AND sex = '{s}'") for a, s in rows]
    assert got.tolist() == want
    got2 = proxy.execute('SELECT count(*) FROM t WHERE "age" = ? AND "sex" = ?', rows)  # fast path
    assert got2.tolist() == want
    with pytest.raises(DiffixQueryError, match="2 placeholder"):
        proxy.execute("SELECT count(*) FROM t WHERE age = ? AND sex = ?", [(30,)])
    with pytest.raises(DiffixQueryError, match="numeric"):
        proxy.execute("SELECT count(*) FROM t WHERE age = ?", [("30",)])
    with pytest.raises(DiffixQueryError):
        proxy.execute("SELECT count(*) FROM t WHERE age = ?", [(True,)])


@pytest.mark.parametrize("h", [1, 2, 3])
def test_noise_variance_is_2h(raw_proxy: DiffixProxy, table: pd.DataFrame, h: int) -> None:
    """Var(answer - Q(D)) = 2h for h conditions (§2), over 4000 distinct queries."""
    rng = np.random.default_rng(h)
    template = "SELECT count(*) FROM t WHERE " + " AND ".join(
        ["age <> ?", "zip <> ?", "score <> ?"][:h])
    rows = [tuple([int(v) for v in rng.integers(100, 10**9, 2)] + [float(rng.integers(100, 10**9))])[:h]
            for _ in range(4000)]
    noise = raw_proxy.execute(template, rows) - len(table)  # each query selects every row
    sd_of_var = 2 * h * math.sqrt(2 / len(rows))
    assert abs(noise.var() - 2 * h) < 4 * sd_of_var
    assert abs(noise.mean()) < 4 * math.sqrt(2 * h / len(rows))


def test_bucket_suppression_follows_the_rule() -> None:
    # 400 groups of each size; every group is one query set
    sizes = [1, 2, 3, 4, 5, 12]
    rows = [(size * 1000 + g, size) for size in sizes for g in range(400) for _ in range(size)]
    df = pd.DataFrame(rows, columns=["grp", "size"])
    p = DiffixProxy(df, table="g", salt=3, rounding=False)
    out = {}
    for size in sizes:
        answers = p.execute("SELECT count(*) FROM g WHERE grp = ?", [(size * 1000 + g,) for g in range(400)])
        out[size] = np.mean(answers == 0)  # without rounding, 0 means suppressed
    for g in (2000, 3001, 4002, 5003):  # the owner's view: suppressed iff count <= 1 or count < T
        b = p.explain(f"SELECT count(*) FROM g WHERE grp = {g}")
        assert b.suppressed == (b.true_count <= 1 or b.true_count < b.threshold)
        assert (b.answer == 0) if b.suppressed else (b.answer == pytest.approx(b.noisy))
    assert out[1] == 1.0  # at most one user: always suppressed
    assert out[12] == 0.0  # far above T ~ N(4, 1/2)
    sd = math.sqrt(0.5)
    for size in (2, 3, 4, 5):  # P(count < T) = P(T > count)
        expected = 1 - stats.norm.cdf(size, 4, sd)
        assert abs(out[size] - expected) < 4 * math.sqrt(expected * (1 - expected) / 400) + 1e-9


def test_threshold_is_sticky_to_the_query_set(table: pd.DataFrame) -> None:
    p = DiffixProxy(table, table="t", salt=4)
    a = p.explain("SELECT count(*) FROM t WHERE age = 44 AND zip = 7")
    b = p.explain("SELECT count(*) FROM t WHERE age = 44 AND zip = 7 AND city <> 'Rome'")
    assert a.true_count == b.true_count
    assert a.threshold == b.threshold and a.suppressed == b.suppressed


def test_rounding_and_switches(table: pd.DataFrame) -> None:
    p = DiffixProxy(table, table="t", salt=1)
    answers = p.query_many([f"SELECT count(*) FROM t WHERE zip = {z} AND hiv = 1" for z in range(1, 40)])
    assert np.all(answers >= 0) and np.all(answers == np.rint(answers))
    raw = DiffixProxy(table, table="t", salt=1, rounding=False, bucket_suppression=False)
    small = raw.query_many([f"SELECT count(*) FROM t WHERE age = {a} AND zip = {z}"
                            for a in range(18, 40) for z in range(1, 10)])
    assert np.any(small < 0) and np.any(small != np.rint(small))


def test_same_salt_same_answers_other_salt_other_answers(table: pd.DataFrame) -> None:
    sqls = [f"SELECT count(*) FROM t WHERE age = {a}" for a in range(20, 60)]
    a = DiffixProxy(table, table="t", salt=11, rounding=False).query_many(sqls)
    b = DiffixProxy(table, table="t", salt=11, rounding=False).query_many(sqls)
    c = DiffixProxy(table, table="t", salt=12, rounding=False).query_many(sqls)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_counter_and_log_per_analyst(table: pd.DataFrame) -> None:
    p = DiffixProxy(table, table="t", salt=2)
    p.query("SELECT count(*) FROM t WHERE age = 30", analyst="alice")
    p.query_many(["SELECT count(*) FROM t WHERE age = 31"] * 2, analyst="bob")
    p.execute("SELECT count(*) FROM t WHERE sex = ?", [("F",), ("M",)], analyst="bob")
    assert (p.n_queries("alice"), p.n_queries("bob"), p.n_queries()) == (1, 4, 5)
    log = p.log("bob")
    assert log["sql"].tolist()[-1] == "SELECT count(*) FROM t WHERE sex = 'M'"
    assert len(p.log()) == 5
    p.true_count("SELECT count(*) FROM t")  # the owner's view is not a query
    assert p.n_queries() == 5
    p.reset_log()
    assert p.n_queries() == 0 and p.log().empty


def test_bitmap_and_sql_engines_agree(table: pd.DataFrame) -> None:
    sqls = ["SELECT count(*) FROM t",
            "SELECT count(*) FROM t WHERE city = 'O''Hare' AND age < 50",
            "SELECT count(*) FROM t WHERE score >= 5.5 AND sex <> 'M' AND zip > 10",
            "SELECT count(*) FROM t WHERE age = 1000"]
    a = DiffixProxy(table, table="t", salt=8).query_many(sqls)
    b = DiffixProxy(table, table="t", salt=8, mode="sql").query_many(sqls)
    assert np.array_equal(a, b)


def test_nulls_never_match(table: pd.DataFrame) -> None:
    df = pd.DataFrame({"x": [1.0, np.nan, 2.0, np.nan, 1.0], "y": ["a", None, "b", "a", "a"]})
    for mode in ("bitmaps", "sql"):
        p = DiffixProxy(df, table="n", mode=mode, rounding=False, bucket_suppression=False)
        assert p.true_count("SELECT count(*) FROM n WHERE x <> 1") == 1
        assert p.true_count("SELECT count(*) FROM n WHERE y <> 'a'") == 1
        assert p.true_count("SELECT count(*) FROM n WHERE x = 1 AND y = 'a'") == 2


# ---------------------------------------------------------------------------- the grammar

COLUMNS = {"age": "int", "zip": "int", "score": "float", "sex": "str", "city": "str", "hiv": "int"}
OPS = ["=", "<>", "!=", "<", "<=", ">", ">="]


@st.composite
def valid_condition(draw) -> tuple[str, tuple[str, str, object]]:
    col = draw(st.sampled_from(sorted(COLUMNS)))
    op = draw(st.sampled_from(OPS))
    kind = COLUMNS[col]
    if kind == "str":
        v = draw(st.sampled_from(["F", "M", "Paris", "O'Hare", "Zz", ""]))
        lit = "'" + v.replace("'", "''") + "'"
    elif kind == "int":
        v = draw(st.integers(-5, 90))
        lit = str(v)
    else:
        v = draw(st.integers(-10, 110)) / 10
        lit = repr(v)
    name = draw(st.sampled_from([col, col.upper(), f'"{col}"']))
    canon_op = "<>" if op == "!=" else op
    if draw(st.booleans()):  # literal on the left
        flipped = {"=": "=", "<>": "<>", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
        return f"{lit} {flipped} {name}", (col, canon_op, v)
    return f"{name} {op} {lit}", (col, canon_op, v)


@HYP
@given(conds=st.lists(valid_condition(), min_size=0, max_size=5), lower=st.booleans())
def test_generated_valid_sql_is_answered_with_the_true_count(raw_proxy: DiffixProxy, table: pd.DataFrame,
                                                            conds, lower: bool) -> None:
    head = "select count(*) from t" if lower else "SELECT COUNT(*) FROM t"
    sql = head + ((" WHERE " + " AND ".join(c for c, _ in conds)) if conds else "")
    assert raw_proxy.true_count(sql) == pandas_count(table, [c for _, c in conds])
    assert math.isfinite(raw_proxy.query(sql))


FORBIDDEN = [
    "SELECT * FROM t",
    "SELECT age FROM t WHERE age = 3",
    "SELECT count(age) FROM t",
    "SELECT count(DISTINCT age) FROM t",
    "SELECT sum(age) FROM t",
    "SELECT count(*), sum(age) FROM t",
    "SELECT avg(age) FROM t WHERE sex = 'F'",
    "SELECT count(*) FROM t WHERE age = 3 OR age = 4",
    "SELECT count(*) FROM t WHERE NOT age = 3",
    "SELECT count(*) FROM t WHERE age IN (3, 4)",
    "SELECT count(*) FROM t WHERE age BETWEEN 3 AND 4",
    "SELECT count(*) FROM t WHERE city LIKE 'P%'",
    "SELECT count(*) FROM t WHERE city IS NULL",
    "SELECT count(*) FROM t WHERE age + 1 = 3",
    "SELECT count(*) FROM t WHERE abs(age) = 3",
    "SELECT count(*) FROM t WHERE age = zip",
    "SELECT count(*) FROM t WHERE age = (SELECT max(age) FROM t)",
    "SELECT count(*) FROM (SELECT * FROM t)",
    "SELECT count(*) FROM t GROUP BY sex",
    "SELECT count(*) FROM t WHERE age = 3 LIMIT 1",
    "SELECT count(*) FROM t ORDER BY 1",
    "SELECT count(*) FROM t, t AS u",
    "SELECT count(*) FROM t JOIN t AS u ON t.age = u.age",
    "SELECT count(*) FROM other",
    "SELECT count(*) FROM t WHERE salary = 3",
    "SELECT count(*) FROM t WHERE age = 'old'",
    "SELECT count(*) FROM t WHERE sex = 1",
    "SELECT count(*) FROM t WHERE age = TRUE",
    "SELECT count(*) FROM t WHERE age = NULL",
    "SELECT count(*) FROM t WHERE __uid_hash = 3",
    "SELECT count(*) FROM t WHERE age = 3; DROP TABLE t",
    "DROP TABLE t",
    "INSERT INTO t VALUES (1)",
    "SELECT count(*) FROM t UNION SELECT count(*) FROM t",
    "WITH x AS (SELECT * FROM t) SELECT count(*) FROM x",
    "SELECT count(*) FROM t WHERE age = ?",
    "SELECT count(*) FROM t WHERE",
    "",
    "count(*)",
]


@pytest.mark.parametrize("sql", FORBIDDEN)
def test_forbidden_sql_is_refused(proxy: DiffixProxy, sql: str) -> None:
    before = proxy.n_queries()
    with pytest.raises(DiffixQueryError):
        proxy.query(sql)
    assert proxy.n_queries() == before


@st.composite
def forbidden_sql(draw) -> str:
    good, _ = draw(valid_condition())
    bad = draw(st.sampled_from([
        f"({good} OR age = 3)", f"NOT ({good})", "age IN (1, 2)", "lower(city) = 'paris'",
        "age * 2 = 4", "city = sex", "unknown_col = 1", "age = (SELECT 1)", "age BETWEEN 1 AND 3",
        "score = 'x'", "sex = 3.5", "age IS NOT NULL", "city LIKE '%a%'",
    ]))
    where = " AND ".join(draw(st.permutations([good, bad])))
    head = draw(st.sampled_from(["SELECT count(*) FROM t", "SELECT count(*) FROM t"]))
    tail = draw(st.sampled_from(["", " GROUP BY sex", " LIMIT 3", " ORDER BY 1"]))
    return f"{head} WHERE {where}{tail}"


@HYP
@given(sql=forbidden_sql())
def test_generated_forbidden_sql_is_refused_with_a_clear_error(proxy: DiffixProxy, sql: str) -> None:
    with pytest.raises(DiffixQueryError) as err:
        proxy.query(sql)
    assert len(str(err.value)) > 20


@HYP
@given(cols=st.lists(st.tuples(st.sampled_from(sorted(COLUMNS)), st.sampled_from(OPS)), min_size=1,
                     max_size=8),
       spaces=st.sampled_from([" ", "  ", "\n"]), semicolon=st.booleans())
def test_fast_template_path_agrees_with_sqlglot(cols, spaces: str, semicolon: bool) -> None:
    where = f"{spaces}AND{spaces}".join(f'"{c}"{spaces}{o}{spaces}?' for c, o in cols)
    sql = f"SELECT count(*) FROM t WHERE {where}" + (";" if semicolon else "")
    fast = mech._fast_template(sql, "t", COLUMNS)
    _, slow, n = mech._parse_template(sql, "t", COLUMNS, allow_placeholders=True)
    assert fast == slow and n == len(cols)


def test_fast_template_path_declines_what_it_cannot_read() -> None:
    for sql in ['SELECT count(*) FROM t WHERE "age" = ? OR "zip" = ?',
                'SELECT count(*) FROM t WHERE age = ?',  # unquoted identifier
                'SELECT count(*) FROM t WHERE "age" = 3',
                'SELECT count(*) FROM t WHERE "age" = ?; DROP TABLE t',
                'SELECT count(*) FROM u WHERE "age" = ?',
                'SELECT count(*) FROM t WHERE "nope" = ?']:
        assert mech._fast_template(sql, "t", COLUMNS) is None


def test_constructor_checks_its_arguments(table: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="table"):
        DiffixProxy(table, table="bad name")
    with pytest.raises(ValueError, match="rounding"):
        DiffixProxy(table, rounding="yes")
    with pytest.raises(ValueError, match="mode"):
        DiffixProxy(table, mode="fast")
    with pytest.raises(ValueError, match="uid_column"):
        DiffixProxy(table, uid_column="id")
    with pytest.raises(ValueError, match="unique"):
        DiffixProxy(table.assign(id=1), uid_column="id")
    with pytest.raises(ValueError, match="non-empty"):
        DiffixProxy(table.iloc[:0])


# ---------------------------------------------------------------------------- the likelihood-ratio test


def test_chi2_combination_for_k1_by_hand() -> None:
    # f = N(0, 2), g = N(1, 4): m = (1*2 - 0*4) / (2 - 4) = -1;
    # lambda0 = 1 * (0 + 1)^2 / 2 = 1/2, lambda1 = (1 + 1)^2 / 4 = 1; alpha0 = -2/8, alpha1 = -2/4
    a0, a1, l0, l1 = atk.chi2_combination(atk.differential_distributions(1))
    assert (a0, a1) == (-0.25, -0.5)
    assert l0 == pytest.approx(0.5) and l1 == pytest.approx(1.0)


def test_log_likelihood_ratio_by_hand() -> None:
    # log f(0) - log g(0) with f = N(0, 2), g = N(1, 4): 1/2 log(4/2) + 1/(2*4)
    assert atk.log_likelihood_ratio([0.0], [], 1) == pytest.approx(0.5 * math.log(2) + 0.125)
    assert atk.likelihood_ratio_test([0.0], [], 1) == 1
    assert atk.likelihood_ratio_test([], [0.0], 1) == 0


def test_imhof_matches_scipy_for_a_single_noncentral_chi2() -> None:
    for df_, nc, x in [(1, 0.0, 3.84), (3, 2.0, 5.0), (6, 9.5, 17.0), (2, 0.3, 0.7)]:
        want = stats.ncx2.sf(x, df_, nc) if nc > 0 else stats.chi2.sf(x, df_)
        assert atk.imhof_sf(x, [1.0], [df_], [nc]) == pytest.approx(want, abs=1e-8)
    assert atk.imhof_sf(4.0, [2.0], [3], [1.5]) == pytest.approx(stats.ncx2.sf(2.0, 3, 1.5), abs=1e-8)


def test_imhof_matches_monte_carlo_for_a_difference_of_noncentral_chi2() -> None:
    rng = np.random.default_rng(0)
    w, h, d = [2.0, -5.0], [3, 3], [0.4, 2.5]
    z = w[0] * rng.noncentral_chisquare(h[0], d[0], 400_000) + w[1] * rng.noncentral_chisquare(h[1], d[1], 400_000)
    p = np.mean(z > -1.0)
    assert atk.imhof_sf(-1.0, w, h, d) == pytest.approx(p, abs=4 * math.sqrt(p * (1 - p) / 400_000))


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
def test_theoretical_accuracy_matches_monte_carlo(k: int) -> None:
    n = 60_000
    mc = atk.monte_carlo_accuracy(k, n, seed=k)
    th = atk.theoretical_accuracy(k)
    assert abs(mc - th) < 4 * math.sqrt(th * (1 - th) / (2 * n))


def test_accuracy_rises_with_k_and_errors_are_symmetric() -> None:
    acc = [atk.theoretical_accuracy(k) for k in range(1, 7)]
    assert all(b > a for a, b in zip(acc, acc[1:]))
    # p_err0 = p_err1 (App. A): Monte Carlo under each hypothesis separately
    p = atk.differential_distributions(3)
    rng = np.random.default_rng(1)
    n = 100_000
    f = rng.normal(0, math.sqrt(2), (2, n, 3))
    g = rng.normal(1, math.sqrt(8), (2, n, 3))
    err0 = np.mean(atk.llr_rows(f[0], g[0], p) < 0)   # H0: q ~ f, r ~ g
    err1 = np.mean(atk.llr_rows(g[1], f[1], p) >= 0)  # H1: q ~ g, r ~ f
    assert abs(err0 - err1) < 4 * math.sqrt(2 * err0 * (1 - err0) / n)
    assert abs(err0 - atk.lr_test_error(p)) < 4 * math.sqrt(err0 * (1 - err0) / n)


def test_rounding_simulation_without_rounding_is_the_closed_form() -> None:
    for k in (2, 5):
        sim = atk.simulated_accuracy_rounding(k, 30_000, seed=k, rounding=False)
        th = atk.theoretical_accuracy(k)
        assert abs(sim - th) < 4 * math.sqrt(th * (1 - th) / 60_000)


def test_differential_samples_follow_eq6() -> None:
    """Without rounding and suppression, q_j ~ N(0, 2) if x(s) = 1 and N(1, 2k + 2) if x(s) = 0.

    Victims sharing a value share the static noise of ``a_j <> x_j``, so the
    samples are spread over 40 salts (independent static noise).
    """
    ds = dd.complete_k(3, B=12, seed=2)
    q1, q0 = [], []
    for salt in range(40):
        p = DiffixProxy(ds.data, table="c", salt=salt, rounding=False, bucket_suppression=False)
        users = ds.data.sample(30, random_state=salt)
        outs = atk.differential_attack(p, users, ds.attributes, "s")
        assert p.n_queries() == 4 * 3 * len(users)
        for o, s in zip(outs, users["s"]):
            (q1 if s == 1 else q0).append(o.all_pairs[0])
            assert set(np.round(o.q, 9)) <= set(np.round(o.all_pairs[0], 9))
    q1, q0 = np.concatenate(q1), np.concatenate(q0)
    assert abs(q1.var() - 2) < 0.3 and abs(q1.mean()) < 0.2
    assert abs(q0.var() - 8) < 1.0 and abs(q0.mean() - 1) < 0.35


# ---------------------------------------------------------------------------- the attacks


def test_subset_exploration_order() -> None:
    items = list("abcde")
    subs = list(atk.subsets_by_decreasing_size(items, np.random.default_rng(0)))
    assert len(subs) == 2**5 - 1 and len(set(subs)) == len(subs)
    sizes = [len(s) for s in subs]
    assert sizes == sorted(sizes, reverse=True)
    capped = list(atk.subsets_by_decreasing_size(list("abcdefghijkl"), np.random.default_rng(0),
                                                 per_size_limit=5))
    assert max(capped.count(s) for s in capped) == 1 and len(capped) <= 5 * 12


def test_dummy_values() -> None:
    rng = np.random.default_rng(0)
    vals = atk.dummy_values(3, list(range(20)), 10, rng)
    assert len(set(vals)) == 10 and 3 not in vals
    small = atk.dummy_values("F", ["F", "M"], 4, rng)
    assert small[0] == "M" and len(set(small)) == 4 and "F" not in small
    nums = atk.dummy_values(1, [1, 2], 3, rng)
    assert nums[0] == 2 and all(v > 2 for v in nums[1:])


def test_cloning_attack_is_exact_without_rounding_on_complete_k() -> None:
    """§3.2: with exact answers the q_j are identical iff the victim is outside the s = v set."""
    ds = dd.complete_k(3, B=12, seed=9)
    p = DiffixProxy(ds.data, table="c", salt=21, rounding=False, bucket_suppression=False)
    domains = ds.domains()
    rng = np.random.default_rng(3)
    users = rng.choice(len(ds.data), 150, replace=False)
    attacked = correct = 0
    for row in users:
        rec = ds.data.iloc[row].to_dict()
        for v in (0, 1):
            before = p.n_queries("attacker")
            out = atk.cloning_attack(p, rec, ["a1", "a2"], "a3", "s", v=v, domains=domains, n_dummy=10,
                                     sigma_star=1e-9, check_value_unique=False, seed=rng)
            assert p.n_queries("attacker") - before == 20
            if out.guess is None:  # an answer <= 0: NoBucketSuppression cannot rule suppression out
                continue
            attacked += 1
            correct += out.guess == rec["s"]
            if rec["s"] != v:
                assert out.s2 < 1e-18
            else:
                assert out.s2 > 1e-9  # the q_j differ: the query sets differ
    assert correct == attacked > 0.8 * 2 * len(users)


def test_cloning_miss_probability_matches_the_proxy() -> None:
    """Victims inside the s = v set: the share with S^2 <= sigma* is the chi-square prediction."""
    ds = dd.complete_k(3, B=12, seed=4)
    p = DiffixProxy(ds.data, table="c", salt=77, rounding=False, bucket_suppression=False)
    domains = ds.domains()
    rng = np.random.default_rng(5)
    sigma_star = 1.5  # a large cut-off, so that misses are frequent enough to count
    s2 = []
    for row in rng.choice(len(ds.data), 400, replace=False):
        rec = ds.data.iloc[row].to_dict()
        out = atk.cloning_attack(p, rec, ["a1", "a2"], "a3", "s", v=int(rec["s"]), domains=domains, n_dummy=10,
                                 sigma_star=sigma_star, check_value_unique=False, seed=rng)
        s2.append(out.s2)
    miss = float(np.mean(np.asarray(s2) <= sigma_star))
    expected = atk.cloning_miss_probability(10, sigma_star)
    assert 0.2 < expected < 0.5
    assert abs(miss - expected) < 4 * np.sqrt(expected * (1 - expected) / len(s2)), (miss, expected)


def test_cloning_miss_probability_arguments() -> None:
    assert atk.cloning_miss_probability(10, 0.0) == 0.0
    assert atk.cloning_miss_probability(10, 0.7) < atk.cloning_miss_probability(4, 0.7)
    with pytest.raises(ValueError, match="n_dummy"):
        atk.cloning_miss_probability(1, 0.7)
    with pytest.raises(ValueError, match="sigma_star"):
        atk.cloning_miss_probability(10, -1)
    with pytest.raises(ValueError, match="sigma_star"):
        atk.cloning_miss_probability(10, True)


def test_cloning_attack_with_rounding_and_suppression_is_mostly_right() -> None:
    ds = dd.complete_k(3, B=12, seed=9)
    p = DiffixProxy(ds.data, table="c", salt=21)
    res = harness.run_cloning_experiment(ds, p, n_users=80, seed=2)
    s = harness.summarize_cloning(res)
    assert s["value_unique"] == 1.0
    assert s["accuracy_pa"] > 0.85 and s["attackable"] > 0.5
    assert res["n_queries"].sum() == p.n_queries("cloning")


def test_validation_tests() -> None:
    assert atk.no_bucket_suppression([0, 3, 0], [1, 0])
    assert not atk.no_bucket_suppression([0, 0], [1, 2])
    assert atk.value_unique(0) and not atk.value_unique(3)
    assert atk.cloning_inference([5, 5, 5], [2, 2, 2], 0.7, v=0) == (1, 0.0)
    assert atk.cloning_inference([5, 9, 1], [2, 2, 2], 0.7, v=0)[0] == 0


def test_queries_per_subset_and_greedy_bound(adult_ds) -> None:
    p = DiffixProxy(adult_ds.data, table="adult", salt=1, keep_log=False)
    rec = adult_ds.data.iloc[17].to_dict()
    out = atk.cloning_attack(p, rec, adult_ds.attributes[:3], adult_ds.attributes[5], "income",
                             domains=adult_ds.domains(), n_dummy=10, check_value_unique=True)
    assert out.n_queries in (1, 21)  # ValueUnique, then 2|Delta| if it passes
    res = harness.run_cloning_experiment(adult_ds, p, n_users=40, variant="greedy", seed=3)
    assert res["n_queries"].max() <= atk.greedy_query_bound(10, 10) == 32
    assert res["n_queries"].sum() == p.n_queries("cloning")


def test_parallel_runs_give_the_same_results(german_ds, monkeypatch) -> None:
    from anonbook import diffix_harness as harness

    monkeypatch.setattr(harness, "POOL_MIN_RECORDS", 0)  # German credit alone would stay in this process
    p1 = DiffixProxy(german_ds.data, table="german", salt=4)
    p2 = DiffixProxy(german_ds.data, table="german", salt=4)
    a = harness.run_cloning_experiment(german_ds, p1, n_users=24, k_star=8, seed=5)
    b = harness.run_cloning_experiment(german_ds, p2, n_users=24, k_star=8, seed=5, n_jobs=2)
    pd.testing.assert_frame_equal(a, b)
    assert p1.n_queries() == p2.n_queries() and len(p1.log()) == len(p2.log())


def test_full_differential_attack_uses_the_oracle(german_ds) -> None:
    p = DiffixProxy(german_ds.data, table="german", salt=4)
    res = harness.run_differential_experiment(german_ds, p, n_users=40, k_star=6, seed=1)
    assert (res.loc[~res["unique"], "attacked"] == False).all()  # noqa: E712
    assert res["n_queries"].sum() == p.n_queries("differential")
    s = harness.summarize_differential(res)
    assert 0 <= s["accuracy"] <= 1 and s["unique"] == res["unique"].mean()


def test_experiment_parameters_are_checked(german_ds) -> None:
    p = DiffixProxy(german_ds.data, table="german")
    with pytest.raises(ValueError, match="k_star"):
        harness.run_cloning_experiment(german_ds, p, n_users=2, k_star=99)
    with pytest.raises(ValueError, match="variant"):
        harness.run_cloning_experiment(german_ds, p, n_users=2, variant="fast")
    with pytest.raises(ValueError, match="n_dummy"):
        harness.run_cloning_experiment(german_ds, p, n_users=2, n_dummy=1)
    with pytest.raises(ValueError, match="v must"):
        harness.run_cloning_experiment(german_ds, p, n_users=2, v=2)
    with pytest.raises(ValueError, match="k must"):
        atk.theoretical_accuracy(0)


def test_cloning_result_scored_by_the_protocol() -> None:
    # 5 targets, 4 predicted attackable; right on 3 of 4; the majority (0) right on 2 of the 4
    res = pd.DataFrame({"user": [10, 11, 12, 13, 14], "truth": [0, 1, 1, 0, 1],
                        "attackable": [True, True, True, True, False], "guess": [0, 1, 0, 0, -1],
                        "n_queries": [21, 21, 42, 21, 900]})
    r = harness.cloning_result(res, "toy")
    base = measures.majority_baseline(res["truth"], reference=[0, 0, 0, 1], targets=res["user"])
    s = measures.score(r, base)
    assert s.n_targets == 5 and s.coverage == pytest.approx(0.8)
    assert s.precision == pytest.approx(0.75) and s.baseline_precision == pytest.approx(0.5)
    assert s.precision_improvement == pytest.approx(0.5)  # (0.75 - 0.5) / (1 - 0.5), [FW24] Eq. 6
    assert r.resources == {"queries": 1005}


def test_differential_result_abstains_on_random_guesses() -> None:
    # user 2 got a random guess (not attacked): not a prediction, even when it happens to be right
    res = pd.DataFrame({"user": [0, 1, 2], "truth": [1, 0, 1], "attacked": [True, True, False],
                        "guess": [1, 1, 1], "n_queries": [8, 8, 0]})
    r = harness.differential_result(res)
    s = measures.score(r)
    assert r.predicted.tolist() == [True, True, False]
    assert s.precision == 0.5 and s.coverage == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="distinct"):
        harness.differential_result(pd.concat([res, res]))


# ---------------------------------------------------------------------------- data sets


@pytest.fixture(scope="module")
def adult_ds():
    return dd.adult()


@pytest.fixture(scope="module")
def german_ds():
    return dd.german_credit()


def test_complete_k() -> None:
    ds = dd.complete_k(3, B=4, seed=0)
    assert ds.n_records == 64 and ds.attributes == ["a1", "a2", "a3"]
    assert not ds.data.duplicated(ds.attributes).any()
    # any k - 1 attributes select exactly B users
    assert (ds.data.groupby(["a1", "a3"]).size() == 4).all()
    assert set(ds.data["s"].unique()) <= {0, 1}
    with pytest.raises(ValueError, match="k must"):
        dd.complete_k(0)
    with pytest.raises(ValueError, match="too many"):
        dd.complete_k(7, B=20)


def test_uniqueness_by_hand() -> None:
    df = pd.DataFrame({"a": [1, 1, 2, 3, 3, 4, 4, 4], "s": [0, 0, 1, 0, 1, 1, 1, 1]})
    u = dd.uniqueness(df, ["a"], "s")
    assert u["unique"].tolist() == [False, False, True, False, False, False, False, False]
    assert u["value_unique"].tolist() == [True, True, True, False, False, True, True, True]
    assert sorted(dd.value_unique_classes(df, ["a"], "s").tolist()) == [1, 2, 3]


def test_adult_as_the_paper_uses_it(adult_ds) -> None:
    assert adult_ds.n_records == 30162 and adult_ds.n_attributes == 11
    assert set(adult_ds.data["income"].unique()) == {0, 1}
    # salary <= 50K is the majority: the value of the base-rate guesser
    assert adult_ds.majority == 0 and (adult_ds.data["income"] == 0).mean() > 0.5
    shuffled = dd.shuffle_secret(adult_ds, seed=1)
    assert shuffled.data["income"].sum() == adult_ds.data["income"].sum()
    assert not shuffled.data["income"].equals(adult_ds.data["income"])


def test_dataset_names() -> None:
    with pytest.raises(ValueError, match="not available"):
        dd.load_diffix_dataset("cdr")
    with pytest.raises(ValueError, match="one of"):
        dd.load_diffix_dataset("adlt")
    assert re.search("not the paper's CREDIT|another credit data set", dd.german_credit().note)


def test_credit_as_the_paper_uses_it() -> None:
    """§4's CREDIT: 690 records, 16 attributes with the secret, accepted credit (A16 = +) the secret."""
    ds = dd.load_diffix_dataset("credit")
    assert (ds.n_records, ds.n_attributes) == (690, 16) and ds.data.shape == (690, 16)
    assert ds.attributes == [f"A{i}" for i in range(1, 16)] and ds.secret == "A16"
    assert ds.data["A16"].value_counts().to_dict() == {0: 383, 1: 307}  # UCI's crx.names: 307 +, 383 -
    assert int((ds.data[ds.attributes] == "?").sum().sum()) == 67  # the missing cells are a value, not NaN
    assert not ds.data.isna().any().any()
    # every victim is unique on all 15 attributes, so Table 1's k* = 15 row attacks everyone
    assert dd.uniqueness(ds.data, ds.attributes, ds.secret)["unique"].all()


def test_with_salt_equals_a_fresh_proxy_and_shares_no_noise(table: pd.DataFrame) -> None:
    p = DiffixProxy(table, table="t", salt=1, rounding=False)
    p.query("SELECT count(*) FROM t WHERE age = 30 AND sex = 'F'")  # warm the shared registry
    q = p.with_salt(2)
    fresh = DiffixProxy(table, table="t", salt=2, rounding=False)
    rows = [(a, z) for a in range(20, 40) for z in range(1, 5)]
    tmpl = "SELECT count(*) FROM t WHERE age = ? AND zip <> ?"
    assert np.array_equal(q.execute(tmpl, rows), fresh.execute(tmpl, rows))
    assert not np.array_equal(q.execute(tmpl, rows), p.execute(tmpl, rows))
    # new conditions registered through one copy do not disturb the other
    more = [(a, "M") for a in range(50, 60)]
    t2 = "SELECT count(*) FROM t WHERE age = ? AND sex <> ?"
    assert np.array_equal(q.execute(t2, more), fresh.execute(t2, more))
    assert np.array_equal(p.execute(t2, more),
                          DiffixProxy(table, table="t", salt=1, rounding=False).execute(t2, more))
    assert q.n_queries() == 2 * len(rows) + len(more)


def test_audit_is_the_owners_view_of_the_log(table: pd.DataFrame) -> None:
    p = DiffixProxy(table, table="t", salt=6, rounding=False)
    p.execute("SELECT count(*) FROM t WHERE age = ? AND zip = ?", [(a, z) for a in range(20, 30) for z in (1, 2, 3)])
    a = p.audit()
    assert len(a) == 30 and p.n_queries() == 30
    assert (a.loc[a["suppressed"], "answer"] == 0).all() and (a.loc[~a["suppressed"], "answer"] != 0).all()
    assert a["true_count"].tolist() == [pandas_count(table, [("age", "=", x), ("zip", "=", z)])
                                        for x in range(20, 30) for z in (1, 2, 3)]


def test_dummy_values_same_draw_for_arrays_and_lists() -> None:
    """A NumPy domain and the same values as a list give the same draw, for every kind of domain."""
    domains = [np.arange(1000, dtype=np.int64), np.linspace(0.5, 9.5, 19), np.array(["a", "b", "c", "d"], dtype=object),
               np.array(["x", "y", "z"]), np.array([3, 7]), np.array([2, 2, 5, 9, 5])]
    for dom in domains:
        for value in (dom[0], dom[len(dom) // 2], dom[-1], "absent" if dom.dtype.kind in "OU" else 10**6):
            for n in (2, 3, 10):
                for seed in (0, 1, 7):
                    got = atk.dummy_values(value, dom, n, seed)
                    want = atk.dummy_values(value, list(dom), n, np.random.default_rng(seed))
                    assert got == want and [type(v) for v in got] == [type(v) for v in want]
                    inside = [v for v in got if v in set(dom.tolist())]
                    assert value not in inside
                    if len(set(dom.tolist())) == len(dom):  # a domain of distinct values (what domains() gives)
                        assert len(set(inside)) == len(inside)
                        assert len(inside) == min(n, sum(v != value for v in dom.tolist()))
    assert atk.dummy_values(5, np.arange(10), 3, 0) != atk.dummy_values(4, np.arange(10), 3, 0)


def test_dummy_values_are_uniform_over_the_other_values() -> None:
    """Every other value is drawn about equally often (chi-square test at 0.1%), the victim's never."""
    from scipy import stats

    rng = np.random.default_rng(0)
    counts = np.zeros(20)
    for _ in range(4000):
        counts[atk.dummy_values(7, np.arange(20), 3, rng)] += 1
    assert counts[7] == 0
    assert stats.chisquare(np.delete(counts, 7)).pvalue > 1e-3


def test_sigma_sweep_equals_separate_runs(adult_ds) -> None:
    """Re-thresholding one single-test run gives, for every σ*, exactly the run made with that σ*."""
    sigmas = [0.3, 0.7, 1.5]
    kw = dict(n_users=30, k_star=4, seed=3, max_subsets=20)
    px = DiffixProxy(adult_ds.data, table="adult", salt=5, keep_log=False)
    sweep = harness.run_cloning_sigma_sweep(adult_ds, px, sigmas, **kw)
    for s in sigmas:
        p1 = DiffixProxy(adult_ds.data, table="adult", salt=5, keep_log=False)
        alone = harness.run_cloning_experiment(adult_ds, p1, sigma_star=s, **kw)
        pd.testing.assert_frame_equal(sweep[s], alone, check_exact=True)
        assert px.n_queries() == p1.n_queries()
    assert not sweep[0.3]["guess"].equals(sweep[1.5]["guess"]) or sweep[0.3]["attackable"].sum() == 0
    with pytest.raises(ValueError):
        harness.run_cloning_sigma_sweep(adult_ds, px, sigmas, sigma_star=0.7, **kw)
    with pytest.raises(ValueError):
        harness.run_cloning_sigma_sweep(adult_ds, px, sigmas, variant="greedy", **kw)
    with pytest.raises(ValueError):
        harness.run_cloning_sigma_sweep(adult_ds, px, [], **kw)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_double_test_sigma_sweep_equals_separate_runs(adult_ds, n_jobs) -> None:
    """One exploration of the double test gives, for every σ*, exactly the run made with that σ*.

    The cut-offs are chosen so that they stop at different subsets (the
    test fails if every σ* stops at the first one), with and without a cap.
    """
    sigmas = [0.05, 0.7, 4.0]
    for cap in (None, 3):
        kw = dict(n_users=24, k_star=6, seed=11, max_subsets=cap, n_jobs=n_jobs)
        sweep = harness.run_cloning_sigma_sweep(adult_ds, DiffixProxy(adult_ds.data, table="adult", salt=5,
                                                                  keep_log=False), sigmas, double_test=True, **kw)
        for s in sigmas:
            alone = harness.run_cloning_experiment(adult_ds, DiffixProxy(adult_ds.data, table="adult", salt=5,
                                                                     keep_log=False),
                                               double_test=True, sigma_star=s, **kw)
            pd.testing.assert_frame_equal(sweep[s], alone, check_exact=True)
        if cap is None:
            assert len({tuple(sweep[s]["n_subsets"]) for s in sigmas}) > 1


def test_double_test_sweep_of_one_victim() -> None:
    """double_test_sigma_sweep equals full_cloning_attack(double_test=True) at each σ*, one victim."""
    rng = np.random.default_rng(2)
    data = pd.DataFrame({"a": rng.integers(0, 4, 300), "b": rng.integers(0, 5, 300), "c": rng.integers(0, 3, 300),
                         "s": rng.integers(0, 2, 300)})
    px = DiffixProxy(data, table="t", salt=1, keep_log=False)
    doms = {c: np.unique(data[c].to_numpy()) for c in "abc"}
    for i in range(10):
        rec = {c: int(data[c].iat[i]) for c in "abc"}
        (sweep,) = atk.double_test_sigma_sweep(px, [rec], [list("abc")], "s", doms, [0.2, 1.0], seeds=[i])
        for s in (0.2, 1.0):
            (alone,) = atk.full_cloning_attack(px, [rec], [list("abc")], "s", doms, double_test=True, sigma_star=s,
                                               seeds=[i])
            assert (sweep[s].guess, sweep[s].a_prime, sweep[s].u, sweep[s].n_subsets, sweep[s].n_queries) == \
                (alone.guess, alone.a_prime, alone.u, alone.n_subsets, alone.n_queries)
            assert sweep[s].s2 == alone.s2 or (np.isnan(sweep[s].s2) and np.isnan(alone.s2))


def test_batched_cloning_equals_one_victim_at_a_time(adult_ds) -> None:
    """full_cloning_attack on many victims (their queries batched) gives each the outcome she gets alone."""
    px = DiffixProxy(adult_ds.data, table="adult", salt=9, keep_log=False)
    doms = adult_ds.domains()
    recs = [adult_ds.data.iloc[i][adult_ds.attributes[:5]].to_dict() for i in range(12)]
    alone = [atk.full_cloning_attack(px, [r], [adult_ds.attributes[:5]], "income", doms, seeds=[i], max_subsets=8,
                                     double_test=i % 2 == 1)[0] for i, r in enumerate(recs)]
    n_alone = px.n_queries()
    px.reset_log()
    together = [None] * len(recs)
    for double in (False, True):  # each batch: the single-test victims, then the double-test ones
        who = [i for i in range(len(recs)) if (i % 2 == 1) == double]
        outs = atk.full_cloning_attack(px, [recs[i] for i in who], [adult_ds.attributes[:5]] * len(who), "income",
                                       doms, seeds=who, max_subsets=8, double_test=double)
        for i, o in zip(who, outs):
            together[i] = o
    assert [(o.guess, o.a_prime, o.u, o.n_queries, o.n_subsets) for o in together] == \
        [(o.guess, o.a_prime, o.u, o.n_queries, o.n_subsets) for o in alone]
    assert np.allclose([o.s2 for o in together], [o.s2 for o in alone], equal_nan=True, rtol=0, atol=0)
    assert px.n_queries() == n_alone


def test_worker_pool_is_kept_across_experiments(german_ds, monkeypatch) -> None:
    """A second experiment on the same data set and settings reuses the workers (warm), with the same results."""
    from anonbook import diffix_harness as harness

    monkeypatch.setattr(harness, "POOL_MIN_RECORDS", 0)
    harness.shutdown_pools()
    p0 = DiffixProxy(german_ds.data, table="german", salt=4)
    serial = harness.run_differential_experiment(german_ds, p0, n_users=20, k_star=4, seed=2)
    runs = []
    for _ in range(2):
        p = DiffixProxy(german_ds.data, table="german", salt=4)
        runs.append(harness.run_differential_experiment(german_ds, p, n_users=20, k_star=4, seed=2, n_jobs=2))
        assert p.n_queries() == p0.n_queries()
    assert len(harness._POOLS) == 1
    for r in runs:
        pd.testing.assert_frame_equal(r, serial)
    other = copy.copy(german_ds)  # another data set object: its own pool, released alone
    harness.run_differential_experiment(other, DiffixProxy(other.data, table="german", salt=4), n_users=20, k_star=4,
                                    seed=2, n_jobs=2)
    assert len(harness._POOLS) == 2
    harness.shutdown_pools(ds=other)
    assert [held for _, held in harness._POOLS.values()] == [german_ds]
    harness.shutdown_pools()
    assert not harness._POOLS


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_differential_bound_sweep_equals_separate_runs(adult_ds, n_jobs) -> None:
    """One exploration per victim gives, for every bound, exactly the run made with that bound.

    The bounds must stop some victims at different points (else the test
    could not tell the bounds apart).
    """
    bounds = [1, 2, 5, None]
    kw = dict(n_users=40, k_star=6, seed=4, n_jobs=n_jobs)
    px = DiffixProxy(adult_ds.data, table="adult", salt=5, keep_log=False)
    sweep = harness.run_differential_bound_sweep(adult_ds, px, bounds, **kw)
    for b in bounds:
        p1 = DiffixProxy(adult_ds.data, table="adult", salt=5, keep_log=False)
        alone = harness.run_differential_experiment(adult_ds, p1, max_attacked=b, **kw)
        pd.testing.assert_frame_equal(sweep[b], alone, check_exact=True)
        assert p1.n_queries() == int(alone["n_queries"].sum())
    assert len({tuple(sweep[b]["n_queries"]) for b in bounds}) > 1
    with pytest.raises(ValueError):
        harness.run_differential_bound_sweep(adult_ds, px, [], **kw)


def _plain_full_differential(px: DiffixProxy, data: pd.DataFrame, rec: dict, a_star: list[str], secret: str, *,
                             seed: int, max_checked: int | None, per_size_limit: int) -> tuple:
    """FullDifferentialAttack written plainly: every unique subset (pandas) is attacked through the proxy.

    The reference twin of the library's search (no blocks, no skipped queries): returns
    ``(guess, subset, checked, attacked, queries, samples)``.
    """
    checked = attacked = queries = 0
    if (data[a_star] == pd.Series(rec)[a_star]).all(axis=1).sum() != 1:
        return (None, (), 1, 0, 0, 0)
    for subset in atk.subsets_by_decreasing_size(a_star, np.random.default_rng(seed), per_size_limit=per_size_limit):
        if max_checked is not None and checked >= max_checked:
            break
        checked += 1
        if (data[list(subset)] == pd.Series(rec)[list(subset)]).all(axis=1).sum() != 1:
            continue
        attacked += 1
        (res,) = atk.differential_attack(px, pd.DataFrame([rec]), list(subset), secret)
        queries += res.n_queries
        if res.guess is not None:
            return (res.guess, tuple(subset), checked, attacked, queries, res.q.size + res.r.size)
    return (None, (), checked, attacked, queries, 0)


@pytest.mark.parametrize("name", ["small", "credit"])
def test_full_differential_search_equals_the_plain_search(name: str) -> None:
    """The search by blocks, with the subsets whose every pair is certain to be suppressed not sent, gives the
    outcome (guess, subset, counters, queries) of attacking every unique subset through the proxy.

    A small table of many near-unique rows, where most unique subsets are such subsets (sizes sampled and
    enumerated), and CREDIT's real records knowing 10 random attributes (every subset tried). Some victims
    must have skipped subsets, or the test could not tell the paths apart.
    """
    if name == "small":
        rng = np.random.default_rng(7)
        data = pd.DataFrame({c: rng.integers(0, 3, 60) for c in "abcdefg"} | {"s": rng.integers(0, 2, 60)})
        attrs, secret, victims, limit, max_checked = list("abcdefg"), "s", range(12), 20, None
    else:
        ds = dd.credit()
        data, secret, limit, max_checked = ds.data, ds.secret, 2000, 5000
        rng = np.random.default_rng(3)
        attrs = sorted(rng.choice(ds.attributes, size=10, replace=False).tolist(), key=ds.attributes.index)
        victims = rng.choice(len(data), size=4, replace=False).tolist()
    oracle = atk.UniquenessOracle(data[attrs])
    skipped = 0
    for i in victims:
        rec = {c: data[c].iat[i] for c in attrs}
        rec = {c: v.item() if isinstance(v, np.generic) else v for c, v in rec.items()}
        px = DiffixProxy(data, table="t", salt=11, keep_log=True)
        got = atk.full_differential_attack(px, rec, attrs, secret, oracle, seed=i, max_checked=max_checked,
                                           per_size_limit=limit)
        ref = DiffixProxy(data, table="t", salt=11, keep_log=False)
        want = _plain_full_differential(ref, data, rec, attrs, secret, seed=i, max_checked=max_checked,
                                        per_size_limit=limit)
        assert (got.guess, got.subset, got.n_subsets_checked, got.n_subsets_attacked, got.n_queries,
                got.n_samples) == want
        # the proxy counts every query, the unsent ones as suppressed; its log holds those sent
        assert px.n_queries() == ref.n_queries() == got.n_queries
        skipped += got.n_queries - len(px.log())
        if got.n_queries:
            n_unsent = got.n_queries - len(px.log())
            assert px.suppressed_share("attacker") == pytest.approx(
                (px.audit("attacker")["suppressed"].sum() + n_unsent) / got.n_queries)
    assert skipped > 0


def test_full_cloning_attack_counts_certain_zeros_without_changing_the_outcome() -> None:
    """With the oracle, the cloning queries whose set is certain to hold at most the victim are counted, not sent:
    outcome and query count equal the attack that sends every query (CREDIT's real records, 9 known attributes).
    """
    ds = dd.credit()
    rng = np.random.default_rng(4)
    attrs = sorted(rng.choice(ds.attributes, size=9, replace=False).tolist(), key=ds.attributes.index)
    oracle = atk.UniquenessOracle(ds.data[attrs])
    domains = ds.domains()
    unsent = 0
    for i in rng.choice(len(ds.data), size=5, replace=False).tolist():
        rec = {c: ds.data[c].iat[i] for c in attrs}
        fast = DiffixProxy(ds.data, table="t", salt=3, keep_log=True)
        plain = DiffixProxy(ds.data, table="t", salt=3, keep_log=True)
        (got,) = atk.full_cloning_attack(fast, [rec], [attrs], ds.secret, domains, seeds=[i],
                                         uniques=[functools.partial(oracle, rec)])
        (want,) = atk.full_cloning_attack(plain, [rec], [attrs], ds.secret, domains, seeds=[i])
        assert (got.guess, got.a_prime, got.u, got.n_subsets, got.n_queries) == \
            (want.guess, want.a_prime, want.u, want.n_subsets, want.n_queries)
        assert fast.n_queries() == plain.n_queries() == len(plain.log()) == want.n_queries
        unsent += fast.n_queries() - len(fast.log())
    assert unsent > 0  # else the test could not tell the paths apart
    with pytest.raises(ValueError, match="without bucket suppression"):
        DiffixProxy(ds.data, table="t", bucket_suppression=False).count_certain_zeros(1)


def test_no_pair_survives_by_hand() -> None:
    """The victim (row 0) is unique on {a, b}; dropping a leaves rows 0-2 (two others), dropping b rows 0, 3."""
    data = pd.DataFrame({"a": [1, 2, 3, 1, 9], "b": [5, 5, 5, 6, 7]})
    unique = atk.UniquenessOracle(data).for_record({"a": 1, "b": 5}, ["a", "b"])
    assert unique(["a", "b"]) and not unique.no_pair_survives(["a", "b"])  # Q'_a may select rows 1, 2
    data.loc[2, "b"] = 8  # now b = 5 leaves one other row: every Q' selects at most one user
    unique = atk.UniquenessOracle(data).for_record({"a": 1, "b": 5}, ["a", "b"])
    assert unique(["a", "b"]) and unique.no_pair_survives(["a", "b"])
    uniq, none = unique.check_block(np.array([[0, 1], [0, 1]]))
    assert uniq.tolist() == [True, True] and none.tolist() == [True, True]


def test_full_differential_bounds_of_one_victim() -> None:
    """full_differential_attack_bounds equals full_differential_attack at each bound, max_checked included."""
    rng = np.random.default_rng(5)
    data = pd.DataFrame({c: rng.integers(0, 3, 200) for c in "abcde"} | {"s": rng.integers(0, 2, 200)})
    px = DiffixProxy(data, table="t", salt=2, keep_log=False)
    oracle = atk.UniquenessOracle(data[list("abcde")])
    bounds = [1, 3, None]
    for i in range(20):
        rec = {c: int(data[c].iat[i]) for c in "abcde"}
        for max_checked in (3, 5000):
            got, = atk.full_differential_attack_bounds(px, [rec], [list("abcde")], "s", oracle, bounds, seeds=[i],
                                                       max_checked=max_checked)
            for b in bounds:
                want = atk.full_differential_attack(px, rec, list("abcde"), "s", oracle, seed=i, max_attacked=b,
                                                    max_checked=max_checked)
                assert got[b] == want


def test_full_differential_bounds_of_many_victims_are_each_victims_own() -> None:
    """Victims attacked together (queries in shared batches) get what each gets attacked alone."""
    rng = np.random.default_rng(6)
    data = pd.DataFrame({c: rng.integers(0, 3, 200) for c in "abcde"} | {"s": rng.integers(0, 2, 200)})
    oracle = atk.UniquenessOracle(data[list("abcde")])
    records = [{c: int(data[c].iat[i]) for c in "abcde"} for i in range(12)]
    a_stars = [list("abcde")[: 3 + i % 3] for i in range(12)]
    bounds = [2, None]
    together = atk.full_differential_attack_bounds(DiffixProxy(data, table="t", salt=3, keep_log=False), records,
                                                   a_stars, "s", oracle, bounds, seeds=range(12))
    for i, (rec, a_star) in enumerate(zip(records, a_stars)):
        px = DiffixProxy(data, table="t", salt=3, keep_log=False)
        for b in bounds:
            alone = atk.full_differential_attack(px, rec, a_star, "s", oracle, seed=i, max_attacked=b)
            assert together[i][b] == alone, (i, b)
    assert any(o[None].attackable for o in together) and not all(o[None].attackable for o in together)


def test_experiments_together_give_the_runs_one_by_one(german_ds, monkeypatch) -> None:
    """Experiments run together (pooled ones waiting in threads) give each run's results and query count."""
    from anonbook import diffix_harness as harness

    class Run:  # a chapter run without a result cache
        p: dict = {}

        def cached(self, step, compute, **key):
            return compute()

    monkeypatch.setattr(harness, "POOL_MIN_RECORDS", 0)
    alone = harness.Experiments(Run(), salt=4, n_jobs=1)
    together = harness.Experiments(Run(), salt=4, n_jobs=2)
    small = copy.copy(german_ds)  # a second data set object: its own pool
    specs = {"a": (german_ds, 8, 24, 30), "b": (small, 6, 24, 30, {"variant": "greedy"}), "c": (german_ds, 4, 1, None)}
    one_by_one = {key: alone.cloning(*spec[:4], **(spec[4] if len(spec) > 4 else {})) for key, spec in specs.items()}
    got = together.cloning_many(specs)
    for key, (res, queries) in one_by_one.items():
        pd.testing.assert_frame_equal(got[key][0], res)
        assert got[key][1] == queries > 0
    harness.shutdown_pools()


# ---------------------------------------------------------------------------- issue 22: shared sets, intervals


def test_query_sets_name_the_users_a_query_selects(table: pd.DataFrame) -> None:
    p = DiffixProxy(table, table="t", salt=3)
    p.query("SELECT count(*) FROM t WHERE age = 30", analyst="a")
    p.query("SELECT count(*) FROM t WHERE age >= 30 AND age <= 30", analyst="a")  # the same users, other noise
    p.query("SELECT count(*) FROM t WHERE age = 31", analyst="b")
    p.query("SELECT count(*) FROM t WHERE age = 200", analyst="b")  # nobody
    qs = p.query_sets()
    assert qs["analyst"].tolist() == ["a", "a", "b", "b"]
    assert qs["true_count"].tolist() == p.audit()["true_count"].tolist()
    ids = qs["set_id"].tolist()
    assert ids[0] == ids[1] != ids[2] and ids[3] == 0
    assert qs["answer"].tolist() == p.audit()["answer"].tolist()
    assert len(p.query_sets("b")) == 2 and p.n_queries() == 4  # the owner's view is not a query
    assert DiffixProxy(table, table="t", salt=3).query_sets().empty


def test_shared_query_sets_never_reach_the_test_of_a_unique_victim(adult_ds) -> None:
    oracle = atk.UniquenessOracle(adult_ds.data[adult_ds.attributes])
    proxy = DiffixProxy(adult_ds.data, table="adult", salt=11, keep_log=True)
    victims = adult_ds.data.iloc[np.random.default_rng(4).choice(len(adult_ds.data), 25, replace=False)]
    tab = atk.full_attack_shared_sets(proxy, victims, adult_ds.attributes, adult_ds.secret, oracle, seed=2)
    assert len(tab) > 10 and tab["samples"].sum() > 0
    assert tab["correlated"].sum() == 0 and tab["largest_shared"].max() <= 1  # the victim alone, or nobody
    assert tab["shared"].sum() > 0  # they exist, suppressed
    # the same attack as FullDifferentialAttack alone: the samples its deciding test keeps
    for _, row in tab.head(3).iterrows():
        o = atk.full_differential_attack(DiffixProxy(adult_ds.data, table="adult", salt=11),
                                         adult_ds.data.loc[row["user"]].to_dict(), adult_ds.attributes,
                                         adult_ds.secret, oracle,
                                         seed=np.random.default_rng([2, list(victims.index).index(row["user"])]))
        assert (o.n_samples, len(o.subset)) == (row["samples"], row["subset_size"])
    with pytest.raises(ValueError, match="keep_log"):
        atk.full_attack_shared_sets(DiffixProxy(adult_ds.data, table="adult", keep_log=False), victims,
                                    adult_ds.attributes, adult_ds.secret, oracle)
    with pytest.raises(ValueError, match="sends 8 queries"):
        atk.shared_query_sets(pd.DataFrame({"set_id": [1], "true_count": [1], "answer": [1.0]}), 2)


def test_dinur_nissim_recovery_needs_small_noise() -> None:
    small = atk.dinur_nissim_recovery(96, 96 ** 0.25, seed=1)
    large = atk.dinur_nissim_recovery(96, 96.0, seed=1)  # noise as large as the data: nothing to learn
    assert small >= 0.9 and large < 0.8
    assert atk.dinur_nissim_recovery(96, 96 ** 0.25, seed=1) == small  # seeded
    with pytest.raises(ValueError, match="noise_bound"):
        atk.dinur_nissim_recovery(10, -1.0)


def test_query_count_interval() -> None:
    q = np.arange(1, 1001)
    lo, hi = harness.query_count_interval(q, "median", seed=0)
    assert 460 < lo < 500.5 < hi < 540  # about ±1.96·(√n / 2) order statistics
    lo, hi = harness.query_count_interval(q, "max", seed=0)
    assert hi == 1000 and 990 <= lo < 1000
    assert harness.query_count_interval([300, 300], "median", per=[30, 30], seed=0) == (10.0, 10.0)
    assert harness.query_count_interval(q, seed=5) == harness.query_count_interval(q, seed=5)
    with pytest.raises(ValueError, match="statistic"):
        harness.query_count_interval(q, "mean")
    with pytest.raises(ValueError, match="empty"):
        harness.query_count_interval([], "max")

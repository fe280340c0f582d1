"""Tests of anonlab.mechanisms.anatomy (Xiao & Tao 2006) and anonlab.attacks.definetti (Kifer 2009).

Anatomy must keep its promises on any input (property tests); the deFinetti
sampler must find the right permutation where the data make it knowable.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.attacks.definetti import (
    METHODS,
    definetti_attack,
    definetti_sweep,
    definetti_sweeps,
    group_sa_counts,
    initial_permutation,
    qi_layout,
    sweep_key,
    table_digest,
)
from anonlab.mechanisms.anatomy import (
    anatomize,
    anatomy_groups,
    check_anatomy,
    max_l_diversity,
    merge_groups,
    uniform_belief,
)
from anonlab.mechanisms.dp import encode_table
from tests import reference_twins as twins

# ---------------------------------------------------------------- Anatomy


def test_max_l_diversity_hand_checked():
    assert max_l_diversity(["a", "a", "b", "c", "d"]) == 2  # 5 // 2
    assert max_l_diversity(list("abcdefg")) == 7
    # Adult-like: the top value just below 1/7 of the tuples
    vals = ["top"] * 13 + [f"v{i % 8}" for i in range(87)]
    assert max_l_diversity(vals) == 7


def test_anatomy_refuses_l_above_the_feasible_maximum():
    with pytest.raises(ValueError, match="largest feasible l-diversity of this data, 2"):
        anatomy_groups(np.array([0, 0, 1, 2, 3]), 3)
    with pytest.raises(ValueError, match="'l' must be >= 1"):
        anatomy_groups(np.array([0, 1]), 0)


@st.composite
def sa_and_l(draw):
    k = draw(st.integers(3, 9))
    n = draw(st.integers(2 * k, 120))
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    sa = rng.integers(0, k, n)
    l_max = n // np.bincount(sa).max()
    if l_max < 2:
        sa = np.arange(n) % k  # balanced: l_max >= 2 since k >= 3 and n >= 2k
        l_max = n // np.bincount(sa).max()
    assert l_max >= 2
    l = draw(st.integers(2, l_max))  # noqa: E741
    return sa, l, seed


@settings(max_examples=80, deadline=None)
@given(sa_and_l())
def test_anatomy_groups_are_tight_and_l_diverse(case):
    sa, l, seed = case  # noqa: E741
    group = anatomy_groups(sa, l, seed=seed)
    assert group.shape == sa.shape and (group >= 0).all()
    rep = check_anatomy(group, sa, l)
    assert rep["max_repeats"] == 1, rep  # no SA value twice in a group
    # size l, plus the (at most l - 1) residual tuples; on tiny data two of them
    # can be forced into the same group (Xiao & Tao place them only by value)
    assert rep["min_size"] >= l and rep["max_size"] <= 2 * l - 1
    assert rep["l_diverse"]
    assert group.max() + 1 == len(sa) // l  # n // l groups, the residue spread over them
    assert uniform_belief(group, sa).max() <= 1 / l + 1e-12


def test_on_realistic_sizes_groups_have_l_or_l_plus_1_tuples():
    rng = np.random.default_rng(8)
    sa = rng.choice(14, 5000, p=np.r_[0.13, np.full(13, 0.87 / 13)])
    for l in range(2, max_l_diversity(sa) + 1):  # noqa: E741
        rep = check_anatomy(anatomy_groups(sa, l, seed=l), sa, l)
        assert rep["tight"], (l, rep)


@settings(max_examples=40, deadline=None)
@given(sa_and_l(), st.integers(2, 3))
def test_merged_groups_stay_l_diverse(case, mult):
    sa, l, seed = case  # noqa: E741
    group = anatomy_groups(sa, l, seed=seed)
    merged = merge_groups(group, mult)
    rep = check_anatomy(merged, sa, l)
    assert rep["l_diverse"], rep
    if group.max() + 1 >= mult:
        assert rep["min_size"] >= mult * l
        assert rep["max_repeats"] <= 2 * mult - 1


def test_merge_groups_adjacent_pairs_and_the_remainder():
    g = np.array([0, 0, 1, 1, 2, 2, 3, 3, 4, 4])
    assert merge_groups(g, 2).tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 1, 1]
    assert merge_groups(g, 1).tolist() == g.tolist()
    with pytest.raises(ValueError, match="multiplier"):
        merge_groups(g, 0)


def test_anatomize_publishes_qit_and_st_that_agree():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({
        "age": rng.integers(20, 70, 60),
        "zip": rng.integers(0, 5, 60),
        "disease": rng.choice(["flu", "hiv", "cold", "cancer", "ulcer"], 60),
    })
    a = anatomize(df, "disease", 3, seed=2)
    assert list(a.qit.columns) == ["age", "zip", "group"]
    assert (a.qit["group"].to_numpy() == a.group).all()
    # the ST holds each group's SA multiset, nothing else
    truth = df.assign(group=a.group).groupby(["group", "disease"]).size().rename("count").reset_index()
    pd.testing.assert_frame_equal(a.st.reset_index(drop=True), truth)
    assert (a.st["count"] == 1).all()
    m = a.merged(2)
    assert m.multiplier == 2
    assert m.st.groupby("group")["count"].sum().tolist() == np.bincount(m.group).tolist()
    truth2 = df.assign(group=m.group).groupby(["group", "disease"]).size().rename("count").reset_index()
    pd.testing.assert_frame_equal(m.st.reset_index(drop=True), truth2)
    with pytest.raises(ValueError, match="unknown sensitive attribute"):
        anatomize(df, "salary", 2)


def test_anatomy_is_seeded():
    sa = np.random.default_rng(0).integers(0, 6, 200)
    np.testing.assert_array_equal(anatomy_groups(sa, 4, seed=3), anatomy_groups(sa, 4, seed=3))
    assert not np.array_equal(anatomy_groups(sa, 4, seed=3), anatomy_groups(sa, 4, seed=4))


def test_uniform_belief_hand_checked():
    group = np.array([0, 0, 1, 1, 1, 1])
    sa = np.array([5, 6, 5, 5, 6, 7])
    np.testing.assert_allclose(uniform_belief(group, sa), [0.5, 0.5, 0.5, 0.5, 0.5, 0.5])


# ---------------------------------------------------------------- deFinetti


def test_initial_permutation_keeps_each_group_multiset():
    st_counts = np.array([[1, 1, 0], [0, 2, 1]])
    starts = np.array([0, 2])
    perm = initial_permutation(starts, st_counts, np.random.default_rng(0))
    assert sorted(perm[:2].tolist()) == [0, 1]
    assert sorted(perm[2:].tolist()) == [1, 1, 2]


def _knowable(n_groups: int = 300, l: int = 3, seed: int = 0):  # noqa: E741
    """Data where one QI equals the SA: the right permutation is knowable."""
    rng = np.random.default_rng(seed)
    k = 6
    sa = np.concatenate([rng.choice(k, l, replace=False) for _ in range(n_groups)])
    group = np.repeat(np.arange(n_groups), l)
    df = pd.DataFrame({"copy": sa, "junk": rng.integers(0, 4, len(sa)), "s": sa})
    shuffle = rng.permutation(len(sa))  # rows not in group order
    df, group = df.iloc[shuffle].reset_index(drop=True), group[shuffle]
    return encode_table(df, ["copy", "junk"], "s"), group


def test_definetti_converges_to_the_right_permutation_when_it_is_knowable():
    table, group = _knowable()
    res = definetti_attack(table, group, iterations=200, history=20, seed=1)
    acc = res.accuracy(table.sa_codes)
    assert acc["permutation"] == 1.0
    assert acc["group"] == 1.0
    assert acc["open"] == 1.0
    np.testing.assert_array_equal(res.assignment, table.sa_codes)
    assert res.trace[-20:].max() == 0.0  # the joint distribution stopped moving
    assert res.trace[0] > 0


def test_definetti_on_uninformative_qis_stays_near_one_over_l():
    rng = np.random.default_rng(3)
    n_groups, l = 400, 4  # noqa: E741
    sa = np.concatenate([rng.choice(8, l, replace=False) for _ in range(n_groups)])
    df = pd.DataFrame({"q": rng.integers(0, 3, len(sa)), "s": sa})
    table = encode_table(df, ["q"], "s")
    res = definetti_attack(table, np.repeat(np.arange(n_groups), l), iterations=100, history=1, seed=0)
    assert abs(res.accuracy(table.sa_codes)["permutation"] - 1 / l) < 0.05


def test_definetti_reads_the_sa_table_not_the_true_values():
    table, group = _knowable(n_groups=50)
    df = pd.DataFrame({"copy": table.qi_codes[:, 0], "junk": table.qi_codes[:, 1],
                       "s": table.sa_domain[table.sa_codes]})
    release = anatomize(df, "s", 3, quasi_identifiers=["copy", "junk"], seed=0)
    a = definetti_attack(table, release, iterations=30, history=5, seed=2)
    # the same release with the tuples' true values scrambled: the attack sees the same thing
    scrambled = table.subset(np.arange(table.n))
    object.__setattr__(scrambled, "sa_codes", np.random.default_rng(0).permutation(table.sa_codes))
    b = definetti_attack(scrambled, release, iterations=30, history=5, seed=2)
    for m in METHODS:
        np.testing.assert_array_equal(a.predictions[m], b.predictions[m])


def test_definetti_is_seeded_and_checks_its_arguments():
    table, group = _knowable(n_groups=40)
    a = definetti_attack(table, group, iterations=20, history=5, seed=5)
    b = definetti_attack(table, group, iterations=20, history=5, seed=5)
    np.testing.assert_array_equal(a.trace, b.trace)
    assert a.trace.shape == (20,) and ((a.acceptance >= 0) & (a.acceptance <= 1)).all()
    with pytest.raises(ValueError, match="history"):
        definetti_attack(table, group, iterations=5, history=10)
    with pytest.raises(ValueError, match="iterations"):
        definetti_attack(table, group, iterations=0)
    with pytest.raises(ValueError, match="groups"):
        definetti_attack(table, group[:-1])


def test_group_predictor_only_picks_values_present_in_the_group():
    rng = np.random.default_rng(4)
    n_groups, l = 100, 3  # noqa: E741
    sa = np.concatenate([rng.choice(7, l, replace=False) for _ in range(n_groups)])
    df = pd.DataFrame({"q": rng.integers(0, 5, len(sa)), "s": sa})
    table = encode_table(df, ["q"], "s")
    group = np.repeat(np.arange(n_groups), l)
    res = definetti_attack(table, group, iterations=10, history=2, seed=0)
    st_counts = group_sa_counts(group, table.sa_codes, table.n_sa)
    assert (st_counts[group, res.predictions["group"]] > 0).all()
    assert (st_counts[group, res.predictions["permutation"]] > 0).all()
    assert ((res.confidence["group"] >= 1 / l - 1e-9) & (res.confidence["group"] <= 1)).all()


def test_definetti_sweep_shapes():
    table, _ = _knowable(n_groups=60)
    sweep = definetti_sweep(table, [2, 3], multipliers=[1, 2], repetitions=2, iterations=15,
                            history=5, seed=0)
    r = sweep.results
    assert len(r) == 2 * 2 * 2 * len(METHODS)
    assert set(r["group_size"]) == {2, 4, 3, 6}
    assert len(sweep.traces) == 2 * 2 * 2 * 15
    with pytest.raises(ValueError, match="largest feasible"):
        definetti_sweep(table, [9], repetitions=1, iterations=2, history=1)


def test_more_moves_per_iteration_still_finds_the_knowable_permutation():
    table, group = _knowable(n_groups=100)
    res = definetti_attack(table, group, iterations=60, history=10, moves_per_iteration=3, seed=1)
    assert res.accuracy(table.sa_codes)["permutation"] == 1.0
    with pytest.raises(ValueError, match="moves_per_iteration"):
        definetti_attack(table, group, iterations=5, history=1, moves_per_iteration=0)


def test_vectorised_chain_equals_the_per_group_loop_of_the_benchmark():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parent / "benchmarks" / "bench_cormode.py"
    spec = importlib.util.spec_from_file_location("bench_cormode", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rng = np.random.default_rng(6)
    n_groups, l = 80, 3  # noqa: E741
    sa = np.concatenate([rng.choice(6, l, replace=False) for _ in range(n_groups)])
    df = pd.DataFrame({"a": (sa + (rng.random(len(sa)) < 0.3)) % 6, "b": rng.integers(0, 3, len(sa)), "s": sa})
    table = encode_table(df, ["a", "b"], "s")
    group = merge_groups(np.repeat(np.arange(n_groups), l), 2)
    trace, assign = bench.definetti_reference(table, group, 25, seed=3)
    res = definetti_attack(table, group, iterations=25, history=1, seed=3)
    np.testing.assert_array_equal(assign, res.assignment)
    np.testing.assert_allclose(trace, res.trace, rtol=0, atol=1e-12)


def test_sweep_key_names_every_input_of_a_sweep():
    """The key a result cache stores a sweep under: the table's digest and every argument, defaults filled in."""
    table, _ = _knowable(n_groups=30)
    other, _ = _knowable(n_groups=31)
    spec = dict(table=table, l_grid=[2], multipliers=[1], repetitions=1, iterations=5, history=2, seed=0)
    key = sweep_key(spec)
    assert key == sweep_key({**spec, "ties": "random", "threshold": 0.8, "moves_per_iteration": 1})
    assert key["table"] == table_digest(table) and key["l_grid"] == [2] and "ties" not in key and "keep" not in key
    for change in ({"seed": 1}, {"table": other}, {"iterations": 6}, {"threshold": 0.5}, {"ties": "stable"},
                   {"keep": [(2, 1, 0)]}):
        assert sweep_key({**spec, **change}) != key, change


def test_definetti_result_is_scored_through_the_protocol():
    """attack_result + measures.score give the accuracy and the 'belief > threshold' subset by hand."""
    rng = np.random.default_rng(9)
    n = 240
    df = pd.DataFrame({"a": rng.integers(0, 3, n), "b": rng.integers(0, 4, n)})
    df["s"] = (df["a"] * 2 + rng.integers(0, 3, n)) % 6
    table = encode_table(df, ["a", "b"], "s")
    group = anatomy_groups(table.sa_codes, 3, seed=1)
    res = definetti_attack(table, group, iterations=30, history=10, seed=2)
    y = table.sa_codes
    for threshold in (0.5, 0.8):  # permutation beliefs are k / 10: 0.8 itself is not "above 0.8"
        sc = res.scores(y, threshold).set_index("method")
        for m in METHODS:
            r = res.attack_result(m, y)
            assert r.n_targets == n and r.predicted.all() and r.resources["iterations"] == 30
            ok = res.predictions[m] == y
            conf = res.confidence[m] > threshold
            assert sc.loc[m, "accuracy"] == ok.mean() == res.accuracy(y)[m]
            assert sc.loc[m, "n_confident"] == conf.sum()
            assert sc.loc[m, "confident_share"] == conf.mean()
            if conf.any():
                assert sc.loc[m, "confident_accuracy"] == ok[conf].mean()
            else:
                assert np.isnan(sc.loc[m, "confident_accuracy"])
    with pytest.raises(ValueError, match="method"):
        res.attack_result("vote", y)
    with pytest.raises(ValueError, match="entries"):
        res.attack_result("group", y[:-1])


def test_stable_ties_keep_anatomy_promises_and_prefer_the_smallest_code():
    # four values, eight tuples each: every round is a four-way tie
    sa = np.repeat(np.arange(4), 8)
    g = anatomy_groups(sa, 2, seed=0, ties="stable")
    rep = check_anatomy(g, sa, 2)
    assert rep["tight"] and rep["l_diverse"]
    # equal counts, so the first group takes the two smallest codes
    assert sorted(sa[g == 0].tolist()) == [0, 1]
    # the grouping of values does not depend on the seed (only which tuple of a bucket goes where)
    pairs = lambda grp: sorted(tuple(sorted(sa[grp == i])) for i in range(grp.max() + 1))  # noqa: E731
    assert pairs(g) == pairs(anatomy_groups(sa, 2, seed=5, ties="stable"))
    with pytest.raises(ValueError, match="ties"):
        anatomy_groups(sa, 2, ties="alphabetical")


def test_qi_layout_equals_the_row_wise_unique():
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"a": rng.integers(0, 5, 300), "b": rng.integers(0, 3, 300), "c": rng.integers(0, 7, 300),
                       "s": rng.integers(0, 4, 300)})
    t = encode_table(df, ["a", "b", "c"], "s")
    lay = qi_layout(t)
    combos, inv = np.unique(t.qi_codes, axis=0, return_inverse=True)
    np.testing.assert_array_equal(lay.combos, combos)
    np.testing.assert_array_equal(lay.row_combo, inv.reshape(-1))
    assert (lay.M.sum(axis=1) == 3).all()


def test_sweeps_in_parallel_equal_the_sweeps_one_by_one():
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"a": rng.integers(0, 4, 240), "b": rng.integers(0, 3, 240), "s": rng.integers(0, 6, 240)})
    t = encode_table(df, ["a", "b"], "s")
    kw = dict(repetitions=2, iterations=8, history=3, seed=1)
    specs = [dict(table=t, l_grid=[2, 3], multipliers=[1, 2], **kw),
             dict(table=t, l_grid=[3], multipliers=[1], ties="stable", keep=[(3, 1, 1)], **kw)]
    par = definetti_sweeps(specs, n_jobs=2)
    for spec, got in zip(specs, par):
        one = definetti_sweep(n_jobs=1, **spec)
        cols = [c for c in one.results.columns if c != "seconds"]
        pd.testing.assert_frame_equal(one.results[cols], got.results[cols])
        pd.testing.assert_frame_equal(one.traces, got.traces)
    assert list(par[1].kept) == [(3, 1, 1)] and par[0].kept == {}


def _chain_table(seed: int, n_groups: int, l: int, n_sa: int, n_qi_values: int) -> tuple:  # noqa: E741
    """A small table whose QIs are noisy copies of the SA, grouped l-diverse (l distinct SA values a group)."""
    rng = np.random.default_rng(seed)
    sa = np.concatenate([rng.choice(n_sa, l, replace=False) for _ in range(n_groups)])
    df = pd.DataFrame({"a": (sa + (rng.random(len(sa)) < 0.3)) % n_sa,
                       "b": rng.integers(0, n_qi_values, len(sa)),
                       "c": (sa // 2 + rng.integers(0, 2, len(sa))) % n_qi_values,
                       "s": sa})
    order = rng.permutation(len(sa))  # the groups are not contiguous in row order
    return encode_table(df.iloc[order].reset_index(drop=True), ["a", "b", "c"], "s"), \
        np.repeat(np.arange(n_groups), l)[order]


@pytest.mark.parametrize("seed, n_groups, l, mult, moves, history, iterations, n_sa", [
    (0, 60, 2, 1, 1, 1, 30, 6),
    (1, 45, 3, 2, 1, 10, 40, 6),
    (2, 30, 4, 3, 2, 5, 25, 8),  # S a power of two: no padding column
    (3, 70, 2, 2, 3, 25, 25, 17),  # S just above a power of two: 15 padding columns
    (4, 1, 5, 1, 1, 3, 12, 5),  # a single group
])
def test_fast_chain_and_predictors_equal_the_reference_ones_exactly(monkeypatch, seed, n_groups, l,  # noqa: E741
                                                       mult, moves, history, iterations, n_sa):
    import anonlab.attacks.definetti as D

    table, group = _chain_table(seed, n_groups, l, n_sa=n_sa, n_qi_values=4)
    if mult > 1:
        group = merge_groups(group, mult)
    kw = dict(iterations=iterations, history=history, moves_per_iteration=moves, seed=100 + seed)
    fast = definetti_attack(table, group, **kw)
    monkeypatch.setattr(D, "_markov_chain", twins.markov_chain_reference)
    monkeypatch.setattr(D, "_predictions", twins.predictions_reference)
    ref = definetti_attack(table, group, **kw)
    for m in METHODS:
        assert np.array_equal(fast.predictions[m], ref.predictions[m])
        assert np.array_equal(fast.confidence[m], ref.confidence[m])
    for name in ("trace", "acceptance", "assignment"):
        a, b = getattr(fast, name), getattr(ref, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert np.array_equal(fast.model.log_cond[0], ref.model.log_cond[0])
    assert np.array_equal(fast.model.log_prior[0], ref.model.log_prior[0])


@pytest.mark.parametrize("groups", [
    "singletons",  # no group can move: G = 0
    "duplicates",  # groups holding one SA value several times: many proposals swap equal values
])
def test_fast_chain_equals_the_reference_chain_on_edge_cases(groups):
    import anonlab.attacks.definetti as D

    rng = np.random.default_rng(9)
    n = 90
    df = pd.DataFrame({"a": rng.integers(0, 4, n), "b": rng.integers(0, 3, n), "s": rng.integers(0, 3, n)})
    table = encode_table(df, ["a", "b"], "s")
    group = np.arange(n) if groups == "singletons" else rng.integers(0, 12, n)
    st_counts = group_sa_counts(group, table.sa_codes, table.n_sa)
    perm = np.argsort(group, kind="stable")
    sizes = st_counts.sum(axis=1)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    lay = qi_layout(table)
    ucode = lay.row_combo[perm]
    U, S = len(lay.combos), table.n_sa
    log_den_rows = rng.normal(size=(table.n_cells, S))
    setup = D._ChainSetup(M=lay.M, Mt=lay.Mt, log_den_rows=log_den_rows, laplace=0.5, g_start=starts[sizes >= 2],
                          g_size=sizes[sizes >= 2], ucode=ucode, m=table.m)
    outs = []
    for chain in (D._markov_chain, twins.markov_chain_reference):
        start_rng = np.random.default_rng(4)
        assign = initial_permutation(starts, st_counts, start_rng)
        N = np.bincount(ucode * S + assign, minlength=U * S).reshape(U, S).astype(float)
        res = chain(setup, assign, N, start_rng, iterations=20, history=7,
                    moves_per_iteration=2)
        outs.append((*res, assign, N))
    for a, b in zip(*outs):
        assert a.dtype == b.dtype and np.array_equal(a, b)


@pytest.mark.parametrize("case", ["random", "equal keys", "keys near 1 and 0", "one group", "empty"])
def test_order_within_groups_is_lexsort(case):
    from anonlab.attacks.definetti import _order_within_groups

    rng = np.random.default_rng(11)
    grp = np.sort(rng.integers(0, 400, 3000))
    key = rng.random(grp.size)
    if case == "equal keys":  # exact ties within groups: lexsort breaks them by position
        key = rng.integers(0, 3, grp.size) / 4
    elif case == "keys near 1 and 0":  # g + key rounds to g + 1, next to keys 0.0 of group g + 1
        key[::2] = 1 - 2.0**-53
        key[1::2] = 0.0
    elif case == "one group":
        grp = np.zeros(grp.size, dtype=np.int64)
    elif case == "empty":
        grp, key = grp[:0], key[:0]
    assert np.array_equal(_order_within_groups(grp, key), np.lexsort((key, grp)))


def test_dense_products_give_the_sparse_kernels_numbers():
    """The chain's dense products equal the sparse kernel bit for bit, or the chain keeps the sparse one."""
    import anonlab.attacks.definetti as D

    table, _ = _chain_table(5, 40, 3, n_sa=6, n_qi_values=4)
    lay = qi_layout(table)
    rng = np.random.default_rng(2)
    Y = np.log(rng.integers(0, 30, (table.n_cells, 8)) + 1.0) - np.log(40.0)
    N = rng.integers(0, 9, (len(lay.combos), 8)).astype(float)
    m_at, mt_at = D._dense_products(lay.M, lay.Mt, Y, table.m)
    assert np.array_equal(m_at(Y), D._spmm(lay.M, Y)) and np.array_equal(mt_at(N), D._spmm(lay.Mt, N))
    # dense (12 cells for 3 QIs) exactly when this machine's BLAS sums M @ Y in the sparse kernel's order
    same_sums = np.array_equal(lay.M.toarray() @ Y, D._spmm(lay.M, Y))
    assert isinstance(getattr(m_at, "__self__", None), np.ndarray) == same_sums
    assert isinstance(getattr(mt_at, "__self__", None), np.ndarray)  # Mt @ N sums whole numbers: always dense
    # a table with many cells a QI keeps the sparse kernel
    wide, _ = D._dense_products(lay.M, lay.Mt, Y, m=1)
    assert not isinstance(getattr(wide, "__self__", None), np.ndarray)
    assert np.array_equal(wide(Y), D._spmm(lay.M, Y))


def test_sweep_scores_are_the_protocols():
    """A sweep's accuracy and confident share are anonlab.measures.score's precision and coverage."""
    from anonlab.measures import score

    table, group = _chain_table(6, 30, 3, n_sa=6, n_qi_values=4)
    res = definetti_attack(table, group, iterations=10, history=5, seed=1)
    sc = res.scores(table.sa_codes, 0.5).set_index("method")
    for m in METHODS:
        full = score(res.attack_result(m, table.sa_codes))
        conf = score(res.attack_result(m, table.sa_codes).at_threshold(np.nextafter(0.5, 1)))
        assert sc.loc[m, "accuracy"] == full.precision and sc.loc[m, "n_confident"] == conf.n_predictions
        assert sc.loc[m, "confident_share"] == conf.coverage
        assert sc.loc[m, "confident_accuracy"] == conf.precision or (
            np.isnan(sc.loc[m, "confident_accuracy"]) and np.isnan(conf.precision))

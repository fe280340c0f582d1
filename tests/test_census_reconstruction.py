"""Chapter 4: synthetic blocks, census tables, the reconstruction MILP, linkage and baselines."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anonlab.attacks import reconstruction as rc
from anonlab.attacks.model_inversion import warfarin_example
from anonlab.attacks.traces import home_work_hours, home_work_share, simulate_traces
from anonbook.chapters import ch04_census_reconstruction as chapter
from anonlab.data.census_blocks import (
    GROUPS,
    N_AGE_BINS,
    N_GROUPS,
    N_TYPES,
    BlockPopulation,
    age_bin,
    calibrate_alpha,
    generate_blocks,
    majority_share,
    person_type,
)
from anonlab.measures import score
from anonlab.mechanisms.census import dp_tables, publish, swap_records, table_spec, tabulate
from anonlab.validation import ParameterError


def _block(people: list[tuple[int, int, int]], block: int = 0, n_blocks: int = 1) -> np.ndarray:
    """Type counts of one block from (sex, age in years, group) triples."""
    x = np.zeros((n_blocks, N_TYPES), dtype=np.int64)
    for sex, age, group in people:
        x[block, person_type(sex, age_bin(np.array([age]))[0], group)] += 1
    return x


def _population(people: list[tuple[int, int, int, int]], n_blocks: int) -> BlockPopulation:
    """A hand-made population from (block, sex, age, group) rows."""
    df = pd.DataFrame(people, columns=["block", "sex", "age", "group"])
    df["age_bin"] = age_bin(df["age"].to_numpy())
    df["race"], df["hispanic"] = df["group"] // 2, df["group"] % 2
    df["type"] = person_type(df["sex"], df["age_bin"], df["group"])
    df = df[["block", "sex", "age", "age_bin", "race", "hispanic", "group", "type"]]
    sizes = np.bincount(df["block"], minlength=n_blocks)
    return BlockPopulation(df, sizes, np.full((n_blocks, N_GROUPS), 1 / N_GROUPS), 1.0)


# --- tables -----------------------------------------------------------------------------------

def test_tabulations_sum_to_the_block_population() -> None:
    pop = generate_blocks(40, seed=3)
    spec = table_spec("sf1")
    t = tabulate(pop.type_counts(), spec)
    for name in ("P1", "P12", "P5", "P11", "P12A-G"):
        assert (t[:, spec.slices[name]].sum(axis=1) == pop.block_sizes).all(), name
    hisp = pop.group_counts()[:, 1::2].sum(axis=1)
    assert (t[:, spec.slices["P12H"]].sum(axis=1) == hisp).all()
    assert (t[:, spec.slices["P12I"]].sum(axis=1) == pop.group_counts()[:, 0]).all()


def test_tabulation_of_a_hand_block() -> None:
    x = _block([(0, 30, 0), (1, 30, 3), (1, 10, 3)])  # man 30 White, woman 30 and girl 10 Black Hispanic
    spec = table_spec("sf1_basic")
    t = tabulate(x, spec)[0]
    p11 = t[spec.slices["P11"]]
    assert p11[N_GROUPS + 0] == 1 and p11[N_GROUPS + 3] == 1 and p11[3] == 1  # adults: White, Black Hisp; child
    assert t[spec.slices["P5"]].tolist() == [1, 0, 0, 2] + [0] * 10


def test_swapping_keeps_sizes_and_sex_age_and_moves_race() -> None:
    pop = generate_blocks(200, alpha=0.05, seed=1)
    sw = swap_records(pop, 0.3, seed=2)
    spec = table_spec("sf1")
    a, b = tabulate(pop.type_counts(), spec), tabulate(sw.type_counts(), spec)
    for name in ("P1", "P12"):
        assert (a[:, spec.slices[name]] == b[:, spec.slices[name]]).all()
    assert (a[:, spec.slices["P5"]] != b[:, spec.slices["P5"]]).any()
    assert (pop.group_counts().sum(axis=0) == sw.group_counts().sum(axis=0)).all()  # a permutation
    assert swap_records(pop, 0.0, seed=2).people.equals(pop.people)


def test_dp_tables_are_non_negative_integers_and_noisy() -> None:
    exact = np.zeros((500, 43), dtype=np.int64)
    noisy = dp_tables(exact, table_spec("pl94"), 1.0, seed=0)
    assert noisy.dtype == np.int64 and (noisy >= 0).all() and noisy.sum() > 0
    with pytest.raises(ValueError, match="epsilon"):
        dp_tables(exact, table_spec("pl94"), 0.0)


# --- the reconstruction -------------------------------------------------------------------------

def test_a_block_with_exactly_one_reconstruction_is_found_and_unique() -> None:
    x = _block([(0, 40, 0), (1, 40, 3), (1, 3, 6)])
    spec = table_spec("sf1")
    sol = rc.reconstruct_block(tabulate(x, spec)[0], spec.matrix)
    assert sol.unique is True
    assert (sol.counts == x[0]).all()


def test_a_block_with_two_reconstructions_is_not_unique() -> None:
    # two adults 85+, a Hispanic White man and a non-Hispanic White woman: without P12H the
    # tables also fit a non-Hispanic man and a Hispanic woman
    x = _block([(0, 90, 1), (1, 90, 0)])
    spec = table_spec("sf1_basic")
    sol = rc.reconstruct_block(tabulate(x, spec)[0], spec.matrix)
    assert sol.unique is False
    assert (tabulate(sol.counts[None, :], spec) == tabulate(x, spec)).all()
    full = table_spec("sf1")
    assert rc.reconstruct_block(tabulate(x, full)[0], full.matrix).unique is True


def test_noisy_tables_minimise_the_l1_deviation_with_the_published_total() -> None:
    x = _block([(0, 40, 0), (1, 40, 0), (1, 3, 6)])
    spec = table_spec("sf1_basic")
    t = tabulate(x, spec)[0].copy()
    t[spec.slices["P5"].start + 2] += 1  # one spurious person in a race cell
    sol = rc.reconstruct_block(t, spec.matrix, exact=False)
    assert sol.status == "l1" and sol.counts.sum() == 3
    assert sol.deviation == pytest.approx(1.0)
    assert (sol.counts == x[0]).all()


def test_reconstruct_all_blocks_matches_exact_tables() -> None:
    pop = generate_blocks(12, mean_block_size=8, seed=4)
    rec = rc.reconstruct(publish(pop, "exact"))
    assert (tabulate(rec.counts, table_spec("sf1")) == tabulate(pop.type_counts(), table_spec("sf1"))).all()
    assert rc.exact_match_rate(rec, pop.type_counts()) == 1.0  # the sf1 tables pin these blocks down
    assert rec.unique.tolist() == [1.0] * 12


def test_local_processes_give_the_same_reconstruction() -> None:
    pop = generate_blocks(8, mean_block_size=6, seed=5)
    pub = publish(pop, "swapping", swap_rate=0.3, seed=1)
    a = rc.reconstruct(pub)
    b = rc.reconstruct(pub, n_workers=2, chunk_size=3)
    assert (a.counts == b.counts).all() and np.array_equal(a.unique, b.unique)
    assert b.workers == "2 local processes"


def test_reconstruct_runs_its_chunks_on_the_map_it_is_given() -> None:
    pop = generate_blocks(7, mean_block_size=6, seed=5)
    pub = publish(pop, "swapping", swap_rate=0.3, seed=1)
    calls = []

    def recording_map(fn, *iterables):
        calls.append(len(iterables[0]))
        return map(fn, *iterables)

    got = rc.reconstruct(pub, n_workers=3, parallel_map=recording_map, chunk_size=2)
    distinct = len(np.unique(pub.tables, axis=0))
    assert calls == [math.ceil(distinct / 2)]  # one call, one task per chunk of two distinct tables
    assert (got.counts == rc.reconstruct(pub).counts).all()
    assert got.workers == "test_reconstruct_runs_its_chunks_on_the_map_it_is_given.<locals>.recording_map (3 workers)"


def test_dask_local_cluster_gives_the_same_reconstruction() -> None:
    distributed = pytest.importorskip("distributed")
    from anonbook.sweep import dask_executor

    pop = generate_blocks(5, mean_block_size=5, seed=6)
    pub = publish(pop, "exact")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        with dask_executor(client) as (executor, threads):
            got = rc.reconstruct(pub, n_workers=threads, parallel_map=executor.map, chunk_size=2)
    assert (got.counts == rc.reconstruct(pub).counts).all()
    assert got.workers == "ClientExecutor.map (1 workers)"


# --- linkage, attack, baselines -------------------------------------------------------------------

def test_linkage_coverage_and_errors() -> None:
    pop = generate_blocks(100, seed=7)
    link = rc.linkage_records(pop, coverage=0.5, error=0.3, seed=1)
    n = len(pop.people)
    assert abs(len(link) / n - 0.5) < 0.03
    assert abs(link["wrong"].mean() - 0.3) < 0.03
    truth = pop.people.loc[link["person"]]
    changed = np.zeros(len(link), dtype=bool)
    for col in ("block", "sex", "age"):
        changed |= truth[col].to_numpy() != link[col].to_numpy()
    assert not changed[~link["wrong"].to_numpy()].any()
    assert changed[link["wrong"].to_numpy()].mean() > 0.95  # age clipped at 0 may leave a few unchanged


def test_attack_on_a_hand_example() -> None:
    # block 0: a White man 30 and a Black woman 30; block 1: two White women 50
    pop = _population([(0, 0, 30, 0), (0, 1, 30, 2), (1, 1, 50, 0), (1, 1, 50, 0)], 2)
    rec = rc.reconstruct(publish(pop, "exact"))
    link = rc.linkage_records(pop)
    res = rc.reconstruction_attack(rec, link, pop)
    assert res.predicted.all() and res.is_correct().all()
    # a record with the wrong block (person 0 linked to block 1, where no man of 30 lives): no prediction
    bad = link.copy()
    bad.loc[0, "block"] = 1
    res = rc.reconstruction_attack(rec, bad, pop)
    assert res.predicted.tolist() == [False, True, True, True]


def test_block_majority_precision_and_recall_on_a_hand_example() -> None:
    # block 0: 3 White, 1 Black -> 3 of 4 right; block 1: 1 Asian, 1 Black -> tie, no prediction;
    # block 2: 2 Hispanic Other -> single group, 2 of 2 right
    rows = [(0, 0, 30, 0)] * 3 + [(0, 0, 30, 2)] + [(1, 0, 30, 6), (1, 1, 30, 2)] + [(2, 1, 20, 11)] * 2
    pop = _population(rows, 3)
    pub = publish(pop, "exact", table_set="pl94")
    s = score(rc.block_majority_attack(pub, pop))
    assert s.n_predictions == 6 and s.n_correct == 5
    assert s.precision == pytest.approx(5 / 6) and s.coverage == pytest.approx(6 / 8)
    row = chapter.attack_row(rc.block_majority_attack(pub, pop))
    assert row["recall"] == pytest.approx(5 / 8)
    single = score(rc.block_majority_attack(pub, pop, single_group_only=True))
    assert (single.n_predictions, single.n_correct) == (2, 2)
    pred = rc.block_majority_attack(pub, pop).prediction
    assert (GROUPS[pred[0]], GROUPS[pred[6]]) == (GROUPS[0], GROUPS[11]) and pred[4] == -1


def test_person_flags_and_decomposition() -> None:
    rows = [(0, 0, 30, 0), (0, 0, 30, 0), (0, 1, 60, 2)]
    pop = _population(rows, 1)
    flags = rc.person_flags(pop)
    assert flags["majority"].tolist() == [True, True, False]
    assert flags["unique_sex_age"].tolist() == [False, False, True]
    res = rc.reconstruction_attack(rc.reconstruct(publish(pop, "exact")), rc.linkage_records(pop), pop)
    d = rc.decomposition(res, rc.person_flags(pop, rc.reconstruct(publish(pop, "exact"))))
    assert d.loc["block-majority people", "share of correct"] == pytest.approx(2 / 3)
    assert d.loc["block-minority people", "precision"] == 1.0


# --- population ---------------------------------------------------------------------------------

def test_generator_is_deterministic_and_homogeneity_orders_the_majority_share() -> None:
    a, b = generate_blocks(50, seed=9), generate_blocks(50, seed=9)
    assert a.people.equals(b.people)
    shares = [majority_share(generate_blocks(400, alpha=al, seed=0).group_counts()) for al in (0.01, 1.0, 100.0)]
    assert shares[0] > shares[1] > shares[2]
    alpha = calibrate_alpha(0.8, n_blocks=300, iterations=14)
    got = majority_share(generate_blocks(300, alpha=alpha, seed=0).group_counts())
    assert abs(got - 0.8) < 0.01


def test_person_type_layout() -> None:
    t = person_type(np.array([1]), np.array([3]), np.array([5]))[0]
    assert t == (1 * N_AGE_BINS + 3) * N_GROUPS + 5


# --- §3.2, §3.3 and the chapter ----------------------------------------------------------------------

def test_home_work_share_and_traces() -> None:
    assert home_work_share(10, 8) == 0.75
    tr = simulate_traces(300, hours_sd=0.0, days_off=0.0, seed=0)
    assert home_work_hours(tr).mean() == pytest.approx(0.75)
    with pytest.raises(ValueError, match="work_hours"):
        home_work_share(20, 8)


def test_warfarin_members_and_non_members() -> None:
    r = warfarin_example(4000, seed=1)
    assert r["members"] > r["marginal"] and abs(r["members"] - r["non_members"]) < 0.05
    assert r["vs_marginal_abs"] == pytest.approx(r["members"] - r["marginal"])
    # every gain carries its bootstrap interval (a Monte Carlo measurement), around the estimate
    for k in ("vs_marginal_abs", "vs_marginal_rel", "vs_nonmembers_abs", "vs_nonmembers_rel"):
        assert r[f"{k}_low"] < r[k] < r[f"{k}_high"]
    assert r["vs_marginal_rel_high"] - r["vs_marginal_rel_low"] < 0.2
    assert warfarin_example(4000, seed=1) == r  # deterministic in the seed


def test_election_example() -> None:
    assert chapter.election_reconstruction(500, 600) == 1.0


def test_bad_parameters_name_the_parameter() -> None:
    spec = chapter.CHAPTER.parameters
    with pytest.raises(ParameterError, match="'epsilon'"):
        spec.validate({"epsilon": 3.0})
    with pytest.raises(ParameterError, match="'n_blocks'"):
        spec.validate({"n_blocks": 0})
    with pytest.raises(ParameterError, match="'linkage_error'"):
        spec.validate({"linkage_error": 1.5})
    with pytest.raises(ParameterError, match="'table_set'"):
        spec.validate({"table_set": "sf2"})
    with pytest.raises(ParameterError, match="home_hours"):
        spec.validate({"home_hours": 20.0})


def test_majority_claims_decisions() -> None:
    truth = ["a"] * 8 + ["b"] * 2
    majority = rc.AttackResult.from_predictions("maj", truth, ["a"] * 10)
    weak = rc.AttackResult.from_predictions("atk", truth, ["a", "b", "b", "a"] + [None] * 6)  # P 0.5, R 0.2
    strong = rc.AttackResult.from_predictions("atk", truth, truth)
    assert chapter.majority_beats_reconstruction(weak, weak, majority).value is True
    assert chapter.majority_beats_reconstruction(weak, strong, majority).value is False


def test_majority_claims_under_each_reading() -> None:
    # the majority guess predicts for everyone (coverage 1) with precision 0.8, recall 0.8;
    # the attack predicts for 9 of 10 people, all correctly (precision 1, recall 0.9, coverage 0.9)
    truth = ["a"] * 8 + ["b"] * 2
    majority = rc.AttackResult.from_predictions("maj", truth, ["a"] * 10)
    attack = rc.AttackResult.from_predictions("atk", truth, truth[:9] + [None])
    m = chapter.majority_beats_reconstruction(attack, attack, majority)
    # R = correct / people: 0.8 < 0.9, the guess loses; R = predictions / people: 1.0 >= 0.9, but its
    # precision 0.8 (Wilson upper bound about 0.94) is below the attack's 1.0: it loses too
    assert m.alternatives == {"correct / people": False, "predictions / people": False}
    assert chapter.majority_beats(attack, attack, majority, "coverage") is False
    assert set(m.alternatives) == set(chapter.R_READINGS)


def test_ledger_alternatives_match_the_chapter() -> None:
    from anonlab import claims

    eps = claims.claim("fw.s3_1.majority_same_under_dp").alternatives()
    assert sorted(eps) == sorted(f"ε={e:g}" for e in chapter.DP_CLAIM_EPSILONS)
    for cid in ("fw.s3_1.block_majority.recall", "fw.s3_1.majority_beats_reconstruction"):
        assert sorted(claims.claim(cid).alternatives()) == sorted(chapter.R_READINGS)
    # a stand-in measurement that matches the paper exactly is still only an illustration
    c = claims.claim("fw.s3_1.block_majority.precision")
    assert claims.decide(c, {"measured": c.reported, "is_nan": False}) == claims.ILLUSTRATED


def test_identical_blocks_are_solved_once_with_the_same_answer() -> None:
    # blocks 0 and 2 hold the same two people; block 1 someone else
    pop = _population([(0, 0, 30, 0), (0, 1, 40, 3), (1, 1, 70, 5), (2, 0, 30, 0), (2, 1, 40, 3)], 3)
    pub = publish(pop, "exact")
    distinct, inverse = rc._distinct_rows(pub.tables)
    assert distinct.shape[0] < pub.tables.shape[0]  # tiny blocks repeat their tables
    assert (distinct[inverse] == pub.tables).all()
    rec = rc.reconstruct(pub)
    one_by_one = rc._solve_chunk(pub.tables, pub.spec.matrix, True, pub.spec.slices["P1"].start, True, 10.0)
    assert (rec.counts == one_by_one[0]).all()
    assert np.array_equal(rec.unique, one_by_one[1], equal_nan=True)


def test_the_experiment_is_cached_through_the_run_by_the_parameters_that_change_it(monkeypatch) -> None:
    from types import SimpleNamespace

    from anonbook import sweep

    # a scheduler that answers (the up-front check connects to it): the point here is the cache key
    monkeypatch.setattr(sweep, "connect_scheduler", lambda address, timeout=None: SimpleNamespace(close=lambda: None))
    calls = []

    def cached(step, compute, **key):
        calls.append((step, key))
        return "from the cache"

    params = {**chapter.CHAPTER.quick_parameters(), "n_workers": 3, "scheduler": "tcp://h:1"}
    assert chapter.run_experiment(params, cached) == "from the cache"
    (step, key), = calls
    assert step == "experiment" and key["n_blocks"] == 200 and key["epsilons"] == [1.0, 4.0]
    assert not {"n_workers", "scheduler", "use_cache", "trace_people", "warfarin_patients"} & set(key)
    with pytest.raises(ParameterError, match="'epsilon'"):
        chapter.run_experiment({"epsilon": 3.0}, cached)


def test_trace_summary() -> None:
    from anonlab.attacks.traces import trace_summary

    t = trace_summary(200, 10.0, 8.0, seed=0)
    assert t["arithmetic"] == 0.75 and 0.6 < t["home_work_hours"] < 0.9
    assert t["guess_accuracy"] < t["home_work_hours"]
    assert t["home_work_hours_low"] < t["home_work_hours"] < t["home_work_hours_high"] < t["home_work_hours"] + 0.02


def test_home_work_claim_is_an_illustration_and_stand_ins_are_not_inconclusive() -> None:
    """The traces are drawn from F&W's own assumption: the claim is illustrated, whatever the share; no claim of the
    chapter is 'inconclusive' because of its stand-in data."""
    from anonlab import claims

    c = claims.claim("fw.s3_2.home_work_explains_accuracy")
    assert c.illustration and c.monte_carlo and c.compare == "at_least"
    for value in (0.75, 0.5):
        assert claims.decide(c, {"measured": value, "ci": [value - 0.01, value + 0.01]}) == claims.ILLUSTRATED
    for c in claims.chapter_claims("04_census_reconstruction"):
        if c.stand_in:
            assert claims.decide(c, {"measured": 0.5, "ci": [0.0, 1.0]}) == claims.ILLUSTRATED, c.id


def test_shares_carry_their_wilson_interval() -> None:
    m = chapter.share(30, 40)
    assert m.value == 0.75 and m.n == 40 and m.ci[0] < 0.75 < m.ci[1]


# --- the explorable figure: precision and recall by block homogeneity ------------------------------------------------

def test_person_homogeneity_is_each_persons_block_majority_share():
    pop = generate_blocks(60, seed=3)
    h = rc.person_homogeneity(pop.block_sizes, pop.people["group"].to_numpy())
    g, b = pop.group_counts(), pop.people["block"].to_numpy()
    assert np.allclose(h, g.max(axis=1)[b] / pop.block_sizes[b])
    assert np.isclose(h.mean(), majority_share(g))
    with pytest.raises(ValueError, match="block sizes add up"):
        rc.person_homogeneity(pop.block_sizes[:-1], pop.people["group"].to_numpy())


def test_by_homogeneity_bins_people_and_keeps_single_group_blocks_apart():
    from anonlab.measures.protocol import AttackResult

    truth = ["a", "a", "b", "b", "a", "a", "a"]
    guess = ["a", "b", "b", None, "a", "a", None]
    h = np.array([0.45, 0.45, 0.45, 0.45, 1.0, 1.0, 0.95])
    t = rc.by_homogeneity(AttackResult.from_predictions("t", truth, guess), h, min_people=2)
    assert t["people"].tolist() == [4, 2]  # the lone 0.95 person is dropped; h = 1 is a bin of its own
    assert t["precision"].tolist() == pytest.approx([2 / 3, 1.0])
    assert t["recall"].tolist() == pytest.approx([0.5, 1.0])
    assert t["homogeneity"].tolist() == pytest.approx([0.45, 1.0])


def test_homogeneity_frame_puts_the_exact_majority_guess_on_the_diagonal():
    """On exact tables the majority guess is right for a share h of a block's people (ties aside): its precision in
    each bin is about the bin's mean homogeneity, and a guess that knows everyone's group is right everywhere."""
    from anonlab.measures.protocol import AttackResult

    pop = generate_blocks(300, seed=4, alpha=0.5)
    maj = rc.block_majority_attack(publish(pop, "exact"), pop)
    truth = pop.people["group"].to_numpy()
    oracle = AttackResult("oracle", np.arange(truth.size), truth, np.ones(truth.size, bool), truth)
    exp = chapter.CensusExperiment(0.5, pd.Series(dtype=float), attacks={("dp ε=1", "perfect"): oracle},
                                   baselines={("dp ε=1", "majority"): maj}, block_sizes=pop.block_sizes)
    f = chapter.homogeneity_frame(exp, "dp ε=1")
    x, p = f["block majority: P"]
    assert len(x) >= 4 and np.allclose(p, x, atol=0.03)
    assert np.allclose(f["attack, perfect linkage: P"][1], 1.0)
    assert np.allclose(f["attack, perfect linkage: R"][1], 1.0)

"""Chapter 9's yardstick: reading the recorded attacks, placing them, describing them, the build order.

The yardstick recomputes nothing: these tests write small recorded results
(an ``attacks.pkl`` and a ``params.json``, as the runner publishes them) and
check what is read back; the whole chapter runs in the notebook tests.
"""

from __future__ import annotations

import json
import math
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonlab import claims
from anonbook import verdicts
from anonbook import chapters, runner
from anonbook.chapters import ch09_one_yardstick as ch9
from anonbook.verdicts import yardstick as ys
from anonlab.measures import MAJORITY_PRIOR, NONMEMBER_MODEL, AttackResult, majority_baseline
from anonlab.validation import ParameterSpec

ROOT = Path(__file__).resolve().parents[1]

#: The attacks chapters 1-8 record at their default settings (names as recorded).
RECORDED = {
    "01_syntactic_anonymity": ["homogeneity", "homogeneity + background knowledge"],
    "02_dp_vs_definetti": [
        "naive Bayes on ε-DP counts (ε = 1), occupation", "naive Bayes on ε-DP counts (ε = 1), occupation, belief > 0.8",
        "naive Bayes on ε-DP counts (ε = 1), marital_status",
        "deFinetti on Anatomy (permutation method, l = 7, size 1l), occupation",
        "deFinetti on Anatomy (open method, l = 7, size 1l), occupation"],
    "03_netflix_eccentricity": [
        "MovieLens 100K: exact ratings, dates ±3 d, m = 8", "MovieLens 100K: exact ratings, no dates, m = 8",
        "MovieLens 100K: ratings ±1, dates ±14 d, m = 8", "MovieLens 100K: ratings ±1, dates ±14 d, rare movies, m = 8",
        "MovieLens 100K: targets removed (exact ratings, dates ±14 d), m = 8",
        "MovieLens 100K: half the targets removed (exact ratings, dates ±14 d), m = 8",
        "synthetic: exact ratings, dates ±14 d, 25% wrong, m = 8",
        "MovieLens 100K (matched Sim): exact ratings, dates ±14 d, m = 8"],
    "04_census_reconstruction": ["reconstruction, public linkage", "reconstruction, perfect linkage",
                                 "block majority", "block majority, single-group blocks"],
    "05_nonmember_framework": ["naive attack (ε = 1)", "naive attack (ε = 1, belief > 0.8)"],
    "06a_diffix_differential": ["adult: differential, full (k* = 10)", "census: differential, full (k* = 40)"],
    "06b_diffix_cloning": ["adult: cloning, full (Table 1)", "adult: cloning, greedy", "adult: cloning, double test",
                           "adult: cloning, secret shuffled", "census: cloning, full (k* = 41)",
                           "census: cloning, greedy (k* = 41)"],
    "07_membership_base_rates": ["loss (Yeom), FPR ≤ 0.001", "confidence, FPR ≤ 0.001",
                                 "shadow models (Shokri), FPR ≤ 0.001", "LiRA online, FPR ≤ 0.001"],
    "08_passive_active": ["passive attacker, p = 0.0001", "active attacker, p = 0.05"],
}


@pytest.mark.parametrize("chapter", sorted(RECORDED))
def test_every_recorded_attack_has_exactly_one_description(chapter: str) -> None:
    for name in RECORDED[chapter]:
        s = ch9.source_of(chapter, name)
        assert s.chapter == chapter and s.paper in ch9.PAPERS


def test_a_new_attack_without_a_description_is_refused() -> None:
    with pytest.raises(KeyError, match="each recorded attack needs exactly one"):
        ch9.source_of("02_dp_vs_definetti", "a brand-new attack")


def test_every_claim_the_yardstick_names_is_in_the_ledger_and_in_its_chapter() -> None:
    for s in ch9.SOURCES:
        if s.claim:
            assert claims.claim(s.claim).chapter == s.chapter, s
    for o in ch9.OFF_SCALE:
        assert claims.claim(o.claim).chapter == o.chapter, o
        assert o.why


def test_chapter_9_reads_every_chapter_and_runs_after_them() -> None:
    decl = chapters.get(ch9.NAME)
    assert decl.after == ch9.READS
    names = runner.toc_notebooks()
    assert ch9.NAME in names
    order = chapters.run_order(list(reversed(names)))  # even listed first, it runs after what it reads
    assert all(order.index(ch9.NAME) > order.index(c) for c in ch9.READS)


def test_run_order_keeps_order_and_refuses_a_circle(monkeypatch: pytest.MonkeyPatch) -> None:
    assert chapters.run_order(["02_dp_vs_definetti", "01_syntactic_anonymity"]) == \
        ["02_dp_vs_definetti", "01_syntactic_anonymity"]
    fake = {"a": ("b",), "b": ("a",)}
    monkeypatch.setattr(chapters, "has_chapter", lambda n: n in fake)
    monkeypatch.setattr(chapters, "get", lambda n: type("C", (), {"after": fake[n]})())
    with pytest.raises(ValueError, match="circle"):
        chapters.run_order(["a", "b"])


def test_a_chapter_cannot_run_after_itself() -> None:
    with pytest.raises(ValueError, match="after itself"):
        chapters.Chapter("00_x", "X", ParameterSpec([]), after=("00_x",))


# -- recorded results written as the runner publishes them ---------------------------------------------


def _result(name: str, truth: list, pred: list, conf: list | None = None, **kw) -> AttackResult:
    return AttackResult.from_predictions(name, truth, pred, confidence=conf, **kw)


def _publish(book: Path, chapter: str, attacks: dict, parameters: dict | None = None) -> None:
    book.mkdir(parents=True, exist_ok=True)
    with open(book / f"{chapter}.attacks.pkl", "wb") as fh:
        pickle.dump(attacks, fh)
    meta = {"notebook": chapter, "parameters": parameters or {}, "all_parameters": parameters or {},
            "cache_key": "ab" * 32, "finished": "2026-01-02T03:04:05+0000", "seconds": 1.5}
    (book / f"{chapter}.params.json").write_text(json.dumps(meta))


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    book = tmp_path / "book"
    truth = ["a"] * 60 + ["b"] * 40
    # a non-member baseline that happens to guess the majority value (its kind says what it is)
    base = _result("non-member model", truth, ["a"] * 100, baseline_kind=NONMEMBER_MODEL)
    _publish(book, "02_dp_vs_definetti", {
        # far beyond, but only against the majority prior: counted apart
        "prior": {"result": _result("prior", truth, truth), "baseline": majority_baseline(truth)},
        # right on every target: far beyond the majority guess (0.6)
        "beyond": {"result": _result("beyond", truth, truth), "baseline": base},
        # the majority guess itself: PI 0
        "same": {"result": _result("same", truth, ["a"] * 100), "baseline": base},
        # always wrong
        "worse": {"result": _result("worse", truth, ["b"] * 60 + ["a"] * 40), "baseline": base},
        # abstains everywhere
        "silent": {"result": _result("silent", truth, [None] * 100), "baseline": base},
        # no baseline, with resources
        "alone": {"result": _result("alone", truth, truth, resources={"queries": 32, "seconds": 0.5}),
                  "baseline": None},
    })
    _publish(book, "01_syntactic_anonymity", {
        "perfect baseline": {"result": _result("p", ["x", "y"], ["x", None]),
                             "baseline": _result("b", ["x", "y"], ["x", "y"])}},
        parameters=dict(chapters.get("01_syntactic_anonymity").quick))
    return book


def test_the_yardstick_places_each_recorded_attack(recorded: Path) -> None:
    t = ys.yardstick_table(["01_syntactic_anonymity", "02_dp_vs_definetti", "03_netflix_eccentricity"], recorded)
    pos = dict(zip(t["name"], t["position"]))
    assert pos == {"perfect baseline": ys.OFF, "beyond": ys.BEYOND, "same": ys.SAME, "worse": ys.WORSE,
                   "silent": ys.OFF, "alone": ys.OFF, "prior": ys.PRIOR_ONLY}
    kinds = dict(zip(t["name"], t["baseline_kind"]))
    assert kinds["beyond"] == NONMEMBER_MODEL and kinds["prior"] == MAJORITY_PRIOR and kinds["alone"] == ""
    prior = t.set_index("name").loc["prior"]
    assert prior["pi_low"] > 0 and prior["pi_side"] == "above"  # PI above the prior, still not "beyond"
    why = dict(zip(t["name"], t["why_off"]))
    assert "no prediction" in why["silent"] and "no baseline" in why["alone"]
    assert "right on every target" in why["perfect baseline"] and why["beyond"] == ""
    row = t.set_index("name").loc["beyond"]
    assert row["precision"] == 1.0 and row["baseline_precision"] == pytest.approx(0.6)
    assert row["pi"] == pytest.approx(1.0) and row["pi_low"] > 0
    alone = t.set_index("name").loc["alone"]
    assert alone["queries"] == 32 and alone["seconds"] == 0.5 and math.isnan(alone["aux"])
    assert alone["spent"] == "32 queries; 0.5 seconds"
    # which run: the preset, the cache key and when; chapter 3 has not run and has no rows
    assert set(t["chapter"]) == {"01_syntactic_anonymity", "02_dp_vs_definetti"}
    assert t.set_index("name").loc["perfect baseline", "preset"] == "quick"
    assert row["run"] == "default run, key abababababab, 2026-01-02T03:04"
    assert ys.yardstick_counts(t) == {ys.BEYOND: 1, ys.SAME: 1, ys.WORSE: 1, ys.PRIOR_ONLY: 1, ys.OFF: 3}


def test_the_front_page_row_counts_the_positions(recorded: Path, tmp_path: Path) -> None:
    html = ys.write_yardstick_summary(tmp_path / "gen", ["01_syntactic_anonymity", "02_dp_vs_definetti",
                                                           ch9.NAME], recorded)
    assert (tmp_path / "gen" / "yardstick_summary.md").read_text() == html
    assert f'href="{ch9.NAME}.html"' in html
    assert "<td>1</td><td>1</td><td>1</td><td>1</td><td>3</td><td>7</td>" in html
    assert "1 of 7 recorded attacks learn beyond their non-member baseline; 1 is scored against a weaker prior" in html
    assert "counted apart" in html and "<em>majority prior</em>" in html  # the rule, stated under the counts


def test_a_custom_run_is_named_by_its_parameters(tmp_path: Path) -> None:
    _publish(tmp_path, "05_nonmember_framework", {}, parameters={"seed": 3})
    run = verdicts.recorded_run("05_nonmember_framework", tmp_path)
    assert run.preset == "custom (seed=3)" and run.cache_key == "ab" * 32
    assert verdicts.recorded_run("08_passive_active", tmp_path) is None


def test_a_claim_nobody_recorded_is_not_run(tmp_path: Path) -> None:
    v = verdicts.recorded_verdicts(["fw.s5.shokri.precision_40"], tmp_path)
    assert v == {"fw.s5.shokri.precision_40": "not run"}
    with pytest.raises(claims.ClaimError, match="not in the ledger"):
        verdicts.recorded_verdicts(["no.such.claim"], tmp_path)


def test_the_chapter_describes_reads_and_sums_up(recorded: Path) -> None:
    t = ys.yardstick_table(["02_dp_vs_definetti"], recorded)
    t["name"] = ["naive Bayes on ε-DP counts (ε = 1), occupation"] * len(t)  # every row one described attack
    y = ch9.yardstick(t, {"cormode.abstract.similar_accuracy": "reproduced"}, ["02_dp_vs_definetti"])
    assert (y["claim"].dropna() != "").all()
    assert set(y.loc[y["recorded"], "verdict"]) == {"reproduced"}
    off = y[~y["recorded"]]
    assert list(off["name"]) == [o.result for o in ch9.OFF_SCALE if o.chapter == "02_dp_vs_definetti"]
    f = ch9.findings(y)
    assert (f["n_attacks"], f["n_beyond"], f["n_same"], f["n_worse"], f["n_prior"], f["n_off"]) == (6, 1, 1, 1, 1, 2)
    assert f["n_prior_above"] == 1 and "against a majority prior" in f["prior"] and f["headline"].startswith("1 of 6")
    assert f["top_pi"] == pytest.approx(1.0) and f["n_off_results"] == len(off)
    table = ys.readable_table(y[y["recorded"]])
    assert list(table.columns) == ["precision", "coverage", "baseline", "PI", "baseline kind", "where it stands",
                                   "claim's verdict"]
    assert (table["PI"] != "").sum() == 4  # PI shown where it is defined, blank elsewhere
    rec = y[y["recorded"]]
    placed, off_html = ys.placed_html(rec, {}), ys.off_scale_html(rec)
    assert placed.count("<tr><td>") == 4 and off_html.count("<tr><td>") == 2  # each attack in exactly one table
    assert "prior only: above" in placed and "majority prior" in placed
    assert "table-layout:fixed" in placed and "Chapter 02" in placed
    assert set(table["where it stands"]) <= (set(ys.SHORT_POSITIONS.values()) | set(ys.SHORT_REASONS.values())
                                             | {"prior only: above"})
    results = ch9.results_off_scale(y)
    assert all(o.why in results.replace("&#x27;", "'") for o in ch9.OFF_SCALE if o.chapter == "02_dp_vs_definetti")


def test_the_cache_key_of_chapter_9_follows_the_chapters_it_reads(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "book").mkdir()
    nb = tmp_path / "notebooks" / f"{ch9.NAME}.ipynb"
    nb.write_text((ROOT / "notebooks" / f"{ch9.NAME}.ipynb").read_text())
    (tmp_path / "data" / "claims.yaml").write_text((ROOT / "data" / "claims.yaml").read_text())
    monkeypatch.setenv("ANONLAB_ROOT", str(tmp_path))
    params = chapters.get(ch9.NAME).parameters.validate({})
    before = runner.cache_key(nb, params)
    (tmp_path / "book" / "02_dp_vs_definetti.results.json").write_text("{}")
    after = runner.cache_key(nb, params)
    assert after != before  # a new run of chapter 2 makes chapter 9 stale
    (tmp_path / "book" / "unrelated.results.json").write_text("{}")
    assert runner.cache_key(nb, params) == after


def test_the_peer_inputs_keep_targets_and_control_apart() -> None:
    """Chapter 5's split: targets are members (in the releases), control records are non-members (in none)."""
    members = pd.DataFrame({c: ["x"] * 4 for c in (*ch9.PEER_AUX, ch9.PEER_SECRET)}, index=[0, 1, 2, 3])
    non = members.set_axis([10, 11, 12, 13])
    rng = np.random.default_rng(0)
    t = members.loc[np.sort(rng.choice(members.index.to_numpy(), 2, replace=False))]
    from anonbook.peers import PeerInputs

    PeerInputs(targets=t, control=non, releases={"members published": members}, aux=ch9.PEER_AUX,
               secret=ch9.PEER_SECRET)
    with pytest.raises(ValueError, match="lacks the column"):
        PeerInputs(targets=t, control=non, releases={"r": members.drop(columns=ch9.PEER_SECRET)},
                   aux=ch9.PEER_AUX, secret=ch9.PEER_SECRET)


# -- the kind of each baseline is set by the science where the baseline is built ------------------------------------


def test_each_baseline_says_what_kind_it_is_and_the_score_carries_it() -> None:
    from anonlab.measures import MEMBER_SHARE, everyone_is_member_result, score

    truth = ["a", "a", "b"]
    assert majority_baseline(truth).baseline_kind == MAJORITY_PRIOR
    assert everyone_is_member_result([True, False]).baseline_kind == MEMBER_SHARE
    attack = _result("atk", truth, truth)
    assert attack.baseline_kind is None
    assert score(attack, majority_baseline(truth)).as_dict()["baseline_kind"] == MAJORITY_PRIOR
    with pytest.raises(ValueError, match="baseline_kind"):
        _result("b", truth, truth, baseline_kind="a good guess")


def test_the_naive_bayes_attack_gets_the_same_classifier_fitted_on_non_members() -> None:
    from anonlab.attacks.naive_bayes import baseline_on, nonmember_naive_bayes
    from anonlab.mechanisms.dp import encode_table
    from anonlab.measures import score

    # among the non-members q = x goes with s = u and q = y with s = v; "z" is a category no target has
    others = pd.DataFrame({"q": ["x"] * 30 + ["y"] * 30 + ["z"] * 5, "s": ["u"] * 30 + ["v"] * 30 + ["u"] * 5})
    targets = encode_table(pd.DataFrame({"q": ["y", "x", "y", "y"], "s": ["v", "u", "v", "u"]}), ["q"], "s")
    base = nonmember_naive_bayes(targets, encode_table(others, ["q"], "s"))
    assert base.baseline_kind == NONMEMBER_MODEL
    assert list(targets.sa_domain[base.prediction.astype(int)]) == ["v", "u", "v", "v"]
    assert score(base).precision == pytest.approx(0.75) and base.resources["non_members"] == 60
    # without non-members the strongest baseline left is the majority guess, marked as a weaker prior
    assert baseline_on(targets, None).baseline_kind == MAJORITY_PRIOR


def test_the_rulebook_states_the_one_baseline_rule() -> None:
    from anonlab.claims.rules import RULEBOOK, rulebook_markdown

    heads = [h for h, _ in RULEBOOK]
    assert "One baseline rule on the yardstick." in heads
    text = rulebook_markdown()
    for kind in (NONMEMBER_MODEL, MAJORITY_PRIOR):
        assert f"*{kind}*" in text
    assert ys.BASELINE_RULE in text

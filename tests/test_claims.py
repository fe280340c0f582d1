"""The claims ledger: schema, verdict rules, the recorder and the verdict page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import pandas as pd
import yaml

from anonlab import claims, paths
from anonbook import verdicts
from anonlab.claims import Claim, Recorder, verdict

ROOT = Path(__file__).resolve().parents[1]


def _claim(**kw) -> Claim:
    base = dict(id="slides.t", paper="cmu18734slides2019", source="001_72ade336009ef92b.txt",
                where="x", statement="a test claim", reported=0.5, unit="fraction",
                compare="approx", chapter="01_syntactic_anonymity", data="none", tolerance=0.1)
    base.update(kw)
    return Claim(**base)


# --- the real ledger -------------------------------------------------------------------------

def test_the_ledger_follows_its_schema() -> None:
    schema = json.loads((ROOT / "data" / "claims.schema.json").read_text())
    rows = yaml.safe_load((ROOT / "data" / "claims.yaml").read_text())
    jsonschema.validate(rows, schema)
    assert len(rows) >= 50, "the ledger should hold every quantitative claim of the five documents"


def test_ledger_ids_are_unique_and_load() -> None:
    ids = [c.id for c in claims.load_ledger(ROOT / "data" / "claims.yaml")]
    assert len(ids) == len(set(ids))


def test_every_paper_has_claims() -> None:
    papers = {c.paper for c in claims.load_ledger(ROOT / "data" / "claims.yaml")}
    assert {"cormode2011", "cmu18734slides2019", "francis2024towards",
            "gadotti2019signal", "desfontaines2020lowering"} <= papers


def test_ledger_papers_are_in_the_bibliography() -> None:
    bib = (ROOT / "book" / "references.bib").read_text()
    keys = set(re.findall(r"@\w+\{([^,]+),", bib))
    papers = {c.paper for c in claims.load_ledger(ROOT / "data" / "claims.yaml")}
    assert papers <= keys


def test_every_claim_id_a_notebook_records_exists() -> None:
    known = {c.id for c in claims.load_ledger(ROOT / "data" / "claims.yaml")}
    pattern = re.compile(r"""record\(\s*["']([a-z0-9_.]+)["']""")
    used: dict[str, str] = {}
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        for cell in json.loads(nb.read_text())["cells"]:
            for cid in pattern.findall("".join(cell["source"])):
                used[cid] = nb.name
    missing = {cid: nb for cid, nb in used.items() if cid not in known}
    assert not missing, f"notebooks record ids that are not in the ledger: {missing}"


# --- verdict rules ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    "kw, measured, expected",
    [
        (dict(), 0.55, "reproduced"),
        (dict(), 0.65, "not reproduced"),
        (dict(), float("nan"), "not reproduced"),
        (dict(), None, "not run"),
        (dict(data="unavailable"), None, "data unavailable"),
        (dict(compare="at_least", reported=0.66, tolerance=0.0), 0.70, "reproduced"),
        (dict(compare="at_least", reported=0.66, tolerance=0.0), 0.60, "not reproduced"),
        (dict(compare="at_most", reported=0.30, tolerance=0.01), 0.305, "reproduced"),
        (dict(compare="at_most", reported=0.30, tolerance=0.01), 0.32, "not reproduced"),
        (dict(compare="range", reported=[0.933, 0.971], tolerance=0.0), 0.95, "reproduced"),
        (dict(compare="range", reported=[0.933, 0.971], tolerance=0.0), 0.90, "not reproduced"),
        (dict(compare="exact", reported=4, tolerance=None), 4, "reproduced"),
        (dict(compare="exact", reported=4, tolerance=None), 3, "not reproduced"),
        (dict(compare="holds", reported=True, tolerance=None), True, "reproduced"),
        (dict(compare="holds", reported=True, tolerance=None), False, "not reproduced"),
    ],
)
def test_verdict_rules(kw: dict, measured: object, expected: str) -> None:
    assert verdict(_claim(**kw), measured) == expected


def test_numpy_values_are_accepted() -> None:
    np = pytest.importorskip("numpy")
    assert verdict(_claim(), np.float64(0.52)) == "reproduced"
    assert verdict(_claim(compare="holds", reported=True, tolerance=None), np.bool_(True)) == "reproduced"


# --- recorder and verdict page (on the miniature project) ------------------------------------

def test_recorder_writes_results_and_rejects_unknown_ids(mini_project: Path) -> None:
    rec = Recorder("00_mini_chapter")
    assert rec.path == mini_project / "book" / "00_mini_chapter.results.json"
    assert rec.record("slides.mini.approx", 0.45, ci=(0.4, 0.5), n=100) == "reproduced"
    payload = json.loads(rec.path.read_text())
    assert payload["results"]["slides.mini.approx"]["ci"] == [0.4, 0.5]
    with pytest.raises(claims.ClaimError, match="did you mean slides.mini.approx"):
        rec.record("slides.mini.aprox", 0.5)
    assert list(rec.table()["verdict"]) == ["reproduced"]


def test_recorder_respects_the_runner_output_dir(mini_project: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANONLAB_OUTPUT_DIR", str(tmp_path / "run"))
    rec = Recorder("00_mini_chapter")
    assert rec.path.parent == tmp_path / "run"


def test_verdict_page_counts_match_the_ledger(mini_project: Path, tmp_path: Path) -> None:
    rec = Recorder("00_mini_chapter")
    rec.record("slides.mini.approx", float("nan"))
    table = verdicts.write_verdict_pages(tmp_path / "gen")
    counts = verdicts.verdict_counts(table)
    assert counts.loc["all chapters", "claims"] == len(claims.load_ledger())
    assert counts.loc["all chapters", "not reproduced"] == 1
    assert counts.loc["all chapters", "data unavailable"] == 1
    summary = (tmp_path / "gen" / "verdict_summary.md").read_text()
    assert "<td>all chapters</td><td>0</td><td>1</td><td>0</td><td>0</td><td>0</td><td>0</td><td>1</td><td>2</td>" in summary
    assert "slides.mini.unavailable" in (tmp_path / "gen" / "verdict_table.md").read_text()


def test_results_with_ids_outside_the_ledger_are_refused(mini_project: Path) -> None:
    (mini_project / "book" / "x.results.json").write_text(
        json.dumps({"notebook": "x", "results": {"slides.gone": {"measured": 1}}}))
    with pytest.raises(claims.ClaimError, match="slides.gone"):
        verdicts.verdict_table()


def test_paths_follow_anonlab_root(mini_project: Path) -> None:
    assert paths.ledger_path() == mini_project / "data" / "claims.yaml"


# --- the verdict categories ------------------------------------------------------------------

def test_stand_in_data_is_illustrated_not_tested_whatever_the_value() -> None:
    c = _claim(stand_in="measured on a synthetic stand-in; the real table would decide it")
    assert claims.decide(c, {"measured": 0.5}) == claims.ILLUSTRATED
    assert claims.decide(c, {"measured": 0.9}) == claims.ILLUSTRATED
    assert claims.decide(c, None) == "not run"
    assert "agrees with the paper" in claims.phrase(c, {"measured": 0.5})
    assert "does not agree" in claims.phrase(c, {"measured": 0.9})


def test_a_test_that_cannot_fail_is_an_illustration() -> None:
    c = _claim(compare="holds", reported=True, tolerance=None, illustration="holds by construction of the traces")
    assert claims.decide(c, {"measured": True}) == claims.ILLUSTRATED
    assert claims.decide(c, {"measured": False}) == claims.ILLUSTRATED
    assert "a test that cannot decide it" in claims.phrase(c, {"measured": True})
    assert claims.decide(_claim(compare="holds", reported=True, tolerance=None), {"measured": True}) == "reproduced"


def test_alternatives_that_disagree_make_the_claim_depend_on_the_choice() -> None:
    c = _claim(choices=[{"name": "known attributes", "alternatives": ["with", "without"]}])
    agree = {"measured": 0.5, "alternatives": {"with": {"measured": 0.5}, "without": {"measured": 0.55}}}
    split = {"measured": 0.5, "alternatives": {"with": {"measured": 0.5}, "without": {"measured": 0.9}}}
    assert claims.decide(c, agree) == "reproduced"
    assert claims.decide(c, split) == "depends on an unstated choice"
    both_fail = {"measured": 0.9, "alternatives": {"with": {"measured": 0.9}, "without": {"measured": 0.1}}}
    assert claims.decide(c, both_fail) == "not reproduced"


def test_a_miss_whose_interval_reaches_the_tolerance_is_inconclusive() -> None:
    c = _claim()  # 0.5 ± 0.1 accepts [0.4, 0.6]
    assert claims.decide(c, {"measured": 0.65, "ci": [0.55, 0.75]}) == "inconclusive"
    assert claims.decide(c, {"measured": 0.65, "ci": [0.61, 0.70]}) == "not reproduced"
    assert claims.decide(c, {"measured": 0.65}) == "not reproduced"
    assert claims.decide(c, {"measured": 0.55, "ci": [0.3, 0.8]}) == "reproduced"
    assert claims.decide(c, {"measured": None, "is_nan": True}) == "not reproduced"


def test_the_recorder_needs_every_listed_alternative(mini_project: Path, monkeypatch) -> None:
    fake = lambda cid: _claim(id=cid, choices=[{"name": "tie-breaking", "alternatives": ["random", "stable"]}])  # noqa: E731
    for module in (claims.recorder, claims.rows):
        monkeypatch.setattr(module, "claim", fake)
    rec = Recorder(fake("slides.t").chapter)
    with pytest.raises(claims.ClaimError, match="each alternative"):
        rec.record("slides.t", 0.5, alternatives={"random": 0.5})
    v = rec.record_all({"slides.t": claims.Measurement(0.5, alternatives={"random": 0.5, "stable": 0.8})})
    assert v.loc["slides.t", "verdict"] == "depends on an unstated choice"
    saved = json.loads(rec.path.read_text())["results"]["slides.t"]
    assert saved["alternatives"]["stable"] == {"measured": 0.8, "ci": None}  # measurements only, no verdict
    assert rec.results["slides.t"]["alternatives"]["stable"]["verdict"] == "not reproduced"  # computed


def test_the_recorder_touches_no_file_until_it_records_and_refuses_other_chapters(mini_project: Path) -> None:
    stale = mini_project / "book" / "00_mini_chapter.attacks.pkl"
    stale.write_bytes(b"old")
    rec = Recorder("00_mini_chapter")
    assert not rec.path.exists() and stale.read_bytes() == b"old"
    with pytest.raises(claims.ClaimError, match="belongs to chapter"):
        Recorder("01_syntactic_anonymity").record("slides.mini.approx", 0.5)
    assert rec.record("slides.mini.approx", 0.5) == "reproduced"
    assert "verdict" not in json.loads(rec.path.read_text())["results"]["slides.mini.approx"]


def test_real_data_lifts_a_stand_in_and_readings_keep_their_intervals() -> None:
    c = _claim(stand_in="measured on synthetic data; the real data would decide it")
    assert claims.decide(c, {"measured": 0.5}) == claims.ILLUSTRATED
    assert claims.decide(c, {"measured": 0.5, "real_data": True}) == "reproduced"
    c = _claim(choices=[{"name": "reading", "alternatives": ["a", "b"]}])
    # reading b misses, but its interval reaches the tolerance: undecided, not a failure
    rec = {"measured": 0.5, "alternatives": {"a": {"measured": 0.5}, "b": {"measured": 0.65, "ci": [0.55, 0.7]}}}
    assert claims.decide(c, rec) == "inconclusive"
    rec["alternatives"]["b"]["ci"] = [0.62, 0.7]
    assert claims.decide(c, rec) == "depends on an unstated choice"


# --- the rulebook, walked over the ledger -----------------------------------------------------

CHAPTERS = sorted({c.chapter for c in claims.load_ledger()})
QUOTED = re.compile(r"""(“[^”]{6,}”|"[^"]{6,}"|(?:^|[\s(])'[^']*\s[^']*'(?=[\s,.;:)]|$))""")


def _chapter_claims(chapter: str) -> list[Claim]:
    return [c for c in claims.load_ledger() if c.chapter == chapter]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_rulebook_every_tolerance_has_a_reason(chapter: str) -> None:
    """A tolerance is a judgement about how the paper states its number: the ledger says why, in one line."""
    missing = [c.id for c in _chapter_claims(chapter) if c.tolerance is not None and not c.tolerance_why]
    assert not missing, f"claims with a tolerance but no tolerance_why: {missing}"
    long = [c.id for c in _chapter_claims(chapter) if c.tolerance_why and "\n" in c.tolerance_why.strip()]
    assert not long, f"tolerance_why is one line: {long}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_rulebook_every_open_choice_quotes_the_paper(chapter: str) -> None:
    """'Depends on an unstated choice' only for a choice the paper leaves open: its passage is quoted."""
    bad = [(c.id, ch.get("name")) for c in _chapter_claims(chapter) for ch in (c.choices or [])
           if not QUOTED.search(ch.get("why") or "")]
    assert not bad, f"choices whose `why` quotes no passage of the paper (in quotes): {bad}"


def test_the_quote_finder_tells_a_quotation_from_an_apostrophe() -> None:
    assert QUOTED.search("the paper says 'in many cases' without a number")
    assert QUOTED.search("F&W write “the recall is only 1 in 800”.")
    assert not QUOTED.search("N-S's Sim is tuned to the Netflix Prize's ratings")


def test_the_recorder_refuses_a_monte_carlo_measurement_without_its_interval(mini_project: Path,
                                                                              monkeypatch) -> None:
    fake = lambda cid: _claim(id=cid, chapter="00_mini_chapter", monte_carlo=True,  # noqa: E731
                              choices=[{"name": "tie-breaking", "alternatives": ["random", "stable"]}])
    for module in (claims.recorder, claims.rows):
        monkeypatch.setattr(module, "claim", fake)
    rec = Recorder("00_mini_chapter")
    with pytest.raises(claims.ClaimError, match="the default reading"):
        rec.record("slides.t", 0.5, alternatives={"random": claims.Measurement(0.5, ci=(0.4, 0.6)),
                                                   "stable": claims.Measurement(0.5, ci=(0.4, 0.6))})
    with pytest.raises(claims.ClaimError, match="reading 'stable'"):
        rec.record("slides.t", 0.5, ci=(0.4, 0.6), alternatives={"random": claims.Measurement(0.5, ci=(0.4, 0.6)),
                                                                   "stable": 0.7})
    ok = rec.record("slides.t", 0.5, ci=(0.4, 0.6), alternatives={
        "random": claims.Measurement(0.5, ci=(0.4, 0.6)), "stable": claims.Measurement(0.5, ci=(0.45, 0.55))})
    assert ok == "reproduced"


PINS = ROOT / "tests" / "verdicts" / "default"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_rulebook_the_published_run_measures_every_claim_it_can(chapter: str) -> None:
    """A measured claim is never 'not run': the default run leaves only claims without data unmeasured."""
    pin = PINS / f"{chapter}.json"
    assert pin.exists(), f"no pinned default-run verdicts for {chapter} (python -m anonlab pins --write)"
    pinned = json.loads(pin.read_text())
    assert set(pinned) == {c.id for c in _chapter_claims(chapter)}, "the pin lists every claim of the chapter"
    bad = [cid for cid, v in pinned.items() if v == "not run"]
    assert not bad, f"claims the published run of {chapter} leaves 'not run': {bad}"
    assert set(pinned.values()) <= set(claims.VERDICTS)


def test_default_pins_catch_a_flip(mini_project: Path) -> None:
    from anonbook.verdicts import pins

    rec = Recorder("00_mini_chapter")
    rec.record("slides.mini.approx", 0.5)
    (mini_project / "book" / "00_mini_chapter.params.json").write_text(json.dumps({"parameters": {}}))
    assert pins.check_default_pins(["00_mini_chapter"])[0].startswith("00_mini_chapter: no pinned")
    assert pins.write_default_pins(["00_mini_chapter"]) == ["00_mini_chapter"]
    assert pins.check_default_pins(["00_mini_chapter"]) == []
    rec.record("slides.mini.approx", 5.0)  # now far outside the tolerance
    (problem,) = pins.check_default_pins(["00_mini_chapter"])
    assert "slides.mini.approx: reproduced -> not reproduced" in problem
    (mini_project / "book" / "00_mini_chapter.params.json").write_text(json.dumps({"parameters": {"seed": 3}}))
    assert pins.check_default_pins(["00_mini_chapter"]) == []  # a reader's rerun is not the published run


def test_the_verdicts_page_states_the_rules(tmp_path: Path) -> None:
    verdicts.write_verdict_pages(tmp_path / "gen", tmp_path)  # nothing recorded: the pages still state the rules
    text = (tmp_path / "gen" / "rulebook.md").read_text()
    assert text.count("\n") == len(claims.RULEBOOK)
    assert "quoted" in text and "interval" in text
    assert "_generated/rulebook.md" in (ROOT / "book" / "verdicts.md").read_text()


# --- the front page's findings and the one verdict table ------------------------------------

def test_the_front_page_findings_come_from_the_ledger_and_the_results(tmp_path: Path) -> None:
    from anonbook.verdicts import findings

    docs = findings.load_documents()
    assert len(docs) == 5 and all(d["headlines"] for d in docs)
    table = verdicts.verdict_table(tmp_path)  # nothing recorded: every claim is not run (or has no data)
    md = findings.findings_markdown(table, {"02_dp_vs_definetti": "Chapter two"})
    for d in docs:
        assert d["document"] in md
        for cid in d["headlines"]:
            assert claims.claim(cid).statement.replace("'", "&#x27;").split(".")[0][:40] in md.replace("&quot;", '"')
    assert "[Chapter two](02_dp_vs_definetti.ipynb)" in md
    assert "were not run" in md or "was not run" in md
    bad = tmp_path / "findings.yaml"
    bad.write_text("- document: x\n  papers: [cormode2011]\n  chapters: []\n  headlines: [cormode.no_such_claim]\n")
    with pytest.raises(claims.ClaimError, match="cormode.no_such_claim"):
        findings.load_documents(bad)


def test_the_claims_figure_links_each_point_to_its_row() -> None:
    from anonbook.verdicts import findings

    results = {"cormode.fig1.occupation.majority_baseline": {"measured": 0.127, "ci": [0.12, 0.13]},
               "cormode.s2_3.adult.n_tuples": {"measured": 30718}}
    table = pd.DataFrame({"id": list(results), "verdict": ["reproduced", "reproduced"]})
    svg = findings.claims_figure_svg(results, table)
    assert svg.startswith("<svg")
    assert 'verdicts.html#claim-cormode.fig1.occupation.majority_baseline' in svg
    assert "2 numeric claims" in svg


def test_numbers_are_printed_to_the_precision_their_interval_supports() -> None:
    from anonlab.claims.rows import format_number

    assert format_number(0.95238, (0.94, 0.96)) == "0.952"
    assert format_number(0.95238, (0.5, 1.0)) == "0.95"
    assert format_number(3.229e-05) == "0.000032"  # no exponent next to decimals
    assert format_number(float("nan")) == "undefined"
    assert format_number(True) == "holds"
    assert format_number(30718) == "30718"


# --- issue 35: Monte Carlo holds claims on intervals, tolerances shown, one definition per verdict ----------

def _mc_holds(**kw) -> Claim:
    return _claim(compare="holds", reported=True, tolerance=None, monte_carlo=True, **kw)


def test_a_monte_carlo_holds_claim_is_decided_on_the_interval_over_its_repetitions(mini_project: Path,
                                                                                    monkeypatch) -> None:
    """Means on the holding side are not enough: an interval that straddles the bar is inconclusive."""
    fake = lambda cid: _mc_holds(id=cid, chapter="00_mini_chapter")  # noqa: E731
    for module in (claims.recorder, claims.rows):
        monkeypatch.setattr(module, "claim", fake)
    rec = Recorder("00_mini_chapter")
    below = claims.Condition("l = 5, size 10", [0.400, 0.402, 0.398, 0.401, 0.399], high=0.414)
    straddle = claims.Condition("l = 5, size 10", [0.395, 0.430, 0.380, 0.420, 0.405], high=0.414)  # mean 0.406
    above = claims.Condition("l = 5, size 10", [0.430, 0.432, 0.428, 0.431, 0.429], high=0.414)
    assert rec.record("slides.t", True, conditions=[below]) == "reproduced"
    assert rec.record("slides.t", True, conditions=[straddle]) == "inconclusive"  # the mean is below the bar
    assert rec.record("slides.t", False, conditions=[above]) == "not reproduced"
    assert rec.record("slides.t", True, conditions=[below, straddle]) == "inconclusive"
    assert rec.record("slides.t", False, conditions=[below, straddle, above]) == "not reproduced"  # one fails
    two_sided = claims.Condition("l = 4", [0.30, 0.25, 0.29, 0.24, 0.26], low=0.25 - 0.03, high=0.25 + 0.03)
    assert rec.record("slides.t", True, conditions=[two_sided]) == "inconclusive"  # mean 0.268 inside, interval past 0.28
    one = claims.Condition("l = 5", [0.40], high=0.414)  # one repetition: no interval, no decision
    assert rec.record("slides.t", True, conditions=[one]) == "inconclusive"
    entry = json.loads(rec.path.read_text())["results"]["slides.t"]
    assert entry["conditions"][0]["values"] == [0.40] and entry["conditions"][0]["accepted"] == [None, 0.414]
    rec.record("slides.t", True, conditions=[straddle])
    kept = json.loads(rec.path.read_text())["results"]["slides.t"]["conditions"][0]
    assert kept["values"] == pytest.approx([0.395, 0.430, 0.380, 0.420, 0.405])  # every repetition's value
    assert kept["ci"][0] < 0.414 < kept["ci"][1]
    row = rec.table().iloc[0]
    assert "straddles" in row["ci"] and "below 0.414" in row["ci"] and "l = 5, size 10" in row["readings"]


def test_conditions_are_only_for_monte_carlo_holds_claims(mini_project: Path, monkeypatch) -> None:
    fake = lambda cid: _claim(id=cid, chapter="00_mini_chapter", monte_carlo=True)  # noqa: E731
    monkeypatch.setattr(claims.recorder, "claim", fake)
    with pytest.raises(claims.ClaimError, match="conditions are for Monte Carlo holds claims"):
        Recorder("00_mini_chapter").record("slides.t", 0.5, ci=(0.4, 0.6),
                                           conditions=[claims.Condition("x", [0.5, 0.6])])


def test_every_reading_of_a_monte_carlo_holds_claim_is_decided_on_its_own_intervals() -> None:
    c = _mc_holds(choices=[{"name": "ties", "alternatives": ["random", "stable"]}])
    ok = claims.Condition("a", [0.40, 0.401, 0.399], high=0.414).entry()
    wide = claims.Condition("a", [0.38, 0.44, 0.40], high=0.414).entry()
    record = {"measured": True, "conditions": [ok], "alternatives": {
        "random": {"measured": True, "conditions": [ok]}, "stable": {"measured": True, "conditions": [wide]}}}
    assert claims.decide(c, record) == "inconclusive"
    assert claims.rules.reading_verdicts(c, record) == {"random": "reproduced", "stable": "inconclusive"}


@pytest.mark.parametrize("compare, reported, tol, shown", [
    ("range", [0.93, 1], 0.017, "[0.93, 1] ± 0.017"),
    ("at_least", 0.66, 0.02, "≥ 0.66 ± 0.02"),
    ("at_most", 0.3, 0.0, "≤ 0.3"),
    ("approx", 0.13, 0.02, "0.13 ± 0.02"),
])
def test_a_reported_value_is_shown_with_its_tolerance(compare: str, reported, tol: float, shown: str) -> None:
    c = _claim(compare=compare, reported=reported, tolerance=tol)
    row = claims.rows.claim_row(c, {"measured": 0.9, "ci": [0.88, 0.917]})
    assert row["reported"] == shown
    html = verdicts.table.claim_table_html(pd.DataFrame([row]))
    assert f"<td>{shown}</td>" in html


def test_a_range_just_outside_reads_with_its_tolerance_in_the_verdict_table() -> None:
    """Chapter 6b's case: [0.880, 0.917] beside [0.93, 1] is inconclusive because of the ± 0.017."""
    c = _claim(compare="range", reported=[0.93, 1.0], tolerance=0.017)
    row = claims.rows.claim_row(c, {"measured": 0.899, "ci": [0.880, 0.917]})
    assert row["verdict"] == "inconclusive" and row["reported"] == "[0.93, 1] ± 0.017"


def test_every_page_defines_the_verdicts_in_the_rulebook_s_words(tmp_path: Path) -> None:
    from anonbook.verdicts import findings

    verdicts.write_verdict_pages(tmp_path / "gen", tmp_path)
    generated = (tmp_path / "gen" / "verdict_definitions.md").read_text()
    assert generated == claims.rules.definitions_markdown()
    assert set(claims.rules.DEFINITIONS) == set(claims.VERDICTS)
    for v in claims.VERDICTS:
        assert f"- **{v}**: {claims.rules.DEFINITIONS[v]}" in generated
    for page in ("intro.md", "verdicts.md"):  # the front page and the verdicts page both show the generated list
        text = (ROOT / "book" / page).read_text()
        assert "```{include} _generated/verdict_definitions.md" in text, page
        assert "*inconclusive* when" not in text and "**inconclusive**:" not in text, page
    for v, reason in claims.rules.REASONS.items():  # the front page's reasons for an undecided claim
        assert findings.BECAUSE[v] == reason
        if v in (claims.ILLUSTRATED, "inconclusive"):
            assert reason in findings.UNDECIDED[v][0]
    one = findings.undecided_sentence(pd.DataFrame({"verdict": ["reproduced", "inconclusive"]}))
    assert claims.rules.REASONS["inconclusive"] in one


def test_a_chapter_with_no_claims_needs_no_pin(mini_project: Path) -> None:
    """Chapters 9 and 10 record no verdict of their own: the pin check (which `make book` runs) passes them."""
    from anonbook.verdicts import pins

    book_dir = mini_project / "book"
    (book_dir / "00_no_claims.params.json").write_text(json.dumps({"parameters": {}}))
    (book_dir / f"00_no_claims{pins.RESULTS_SUFFIX}").write_text(json.dumps({"notebook": "00_no_claims",
                                                                             "results": {}}))
    assert pins.is_default_run("00_no_claims")
    assert pins.check_default_pins(["00_no_claims"]) == []

"""A run knows what it is (issue 34): its identity, where it lands, the banners, pins and sentences built from it."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from anonbook import runs
from anonbook.chapters import ch08_passive_active as ch08
from anonbook.chapters import get, sentences
from anonbook.verdicts import pins

CH8 = "08_passive_active"


def test_a_run_is_default_only_when_every_parameter_is() -> None:
    assert runs.identify(CH8, {}).is_default
    assert runs.identify(CH8, {"known_votes": 100, "use_cache": False}).is_default  # defaults given explicitly
    custom = runs.identify(CH8, {"known_votes": 50})
    assert (custom.kind, dict(custom.changed), custom.name) == ("custom", {"known_votes": 50}, "known_votes-50")
    assert custom.label == "custom run: known_votes = 50 (default 100)"
    quick = runs.identify(CH8, get(CH8).quick)
    assert (quick.kind, quick.preset, quick.name) == ("preset", "quick", "quick")
    both = runs.identify(CH8, {**get(CH8).quick, "known_votes": 50})
    assert (both.kind, both.base, both.name) == ("custom", "quick", "quick-known_votes-50")
    assert runs.identify(CH8, {"known_votes": 50}, preset="exercise fewer_known").name == "exercise-fewer_known"
    assert runs.RunIdentity.from_dict(both.as_dict()) == both


def test_the_banner_names_each_changed_parameter_and_says_default_only_for_the_default() -> None:
    assert runs.banner_markdown(runs.identify(CH8, {})) == ""
    text = runs.banner_markdown(runs.identify(CH8, {"known_votes": 50}), published=False)
    assert "`known_votes = 50` (default `100`)" in text and "not the run published" in text


def test_the_banner_tells_a_long_list_by_what_it_leaves_out_of_the_default() -> None:
    """Chapter 5's quick preset keeps a subset of CENSUS's attributes: named by count and by what it drops,
    not as two lists of forty names (a wall on a phone)."""
    ch5 = "05_nonmember_framework"
    ident = runs.identify(ch5, get(ch5).quick)
    kept, default = ident.changed["census_attributes"], ident.defaults["census_attributes"]
    text = runs.banner_markdown(ident)
    assert f"`census_attributes`: {len(kept)} values instead of the default's {len(default)}" in text
    assert json.dumps(default) not in text and json.dumps(kept) not in text
    dropped = [a for a in default if a not in kept]
    assert f"leaving out `{dropped[0]}`" in text and f"and {len(dropped) - 3} more" in text


def _write_run(folder: Path, chapter: str, params: dict, verdicts: dict[str, object] | None = None,
               inputs: dict | None = None, key: str = "k") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    meta = {"parameters": params, "cache_key": key, "run": runs.identify(chapter, params).as_dict()}
    if inputs is not None:
        meta["inputs"] = inputs
    (folder / f"{chapter}.params.json").write_text(json.dumps(meta))
    (folder / f"{chapter}.results.json").write_text(json.dumps({"notebook": chapter, "results": verdicts or {}}))


def test_pins_name_every_chapter_they_did_not_check(tmp_path: Path) -> None:
    _write_run(tmp_path, CH8, {"known_votes": 50})
    _write_run(tmp_path, "02_dp_vs_definetti", {})
    skipped = pins.unchecked_chapters([CH8, "02_dp_vs_definetti", "03_netflix_eccentricity"], tmp_path)
    assert set(skipped) == {CH8, "03_netflix_eccentricity"}
    assert "known_votes = 50" in skipped[CH8] and "no recorded run" in skipped["03_netflix_eccentricity"]
    assert not pins.is_default_run(CH8, tmp_path) and pins.is_default_run("02_dp_vs_definetti", tmp_path)


def test_front_page_banner_names_the_custom_run_and_a_stale_reader(tmp_path: Path) -> None:
    reader = "09_one_yardstick"
    after = get(reader).after
    for ch in after:
        _write_run(tmp_path, ch, {} if ch != CH8 else {"known_votes": 50}, key=f"key-{ch}")
    _write_run(tmp_path, reader, {}, inputs={ch: f"key-{ch}" for ch in after})
    chapters = {ch: ch for ch in [*after, reader]}
    assert runs.stale_dependents(chapters, tmp_path) == {}
    text = runs.runs_banner_markdown(chapters, tmp_path)
    assert "known_votes = 50" in text and "stale" not in text
    _write_run(tmp_path, CH8, {"known_votes": 50}, key="a newer run")  # published after chapter 9 ran
    assert runs.stale_dependents(chapters, tmp_path) == {reader: [CH8]}
    assert "stale" in runs.runs_banner_markdown(chapters, tmp_path)
    all_default = tmp_path / "d"
    _write_run(all_default, CH8, {})
    assert runs.runs_banner_markdown({CH8: "t"}, all_default) == ""


def test_the_default_run_is_found_where_publishing_kept_it(tmp_path: Path) -> None:
    _write_run(tmp_path, CH8, {"known_votes": 50})
    assert runs.default_run_dir(CH8, tmp_path) is None
    _write_run(tmp_path / "runs" / CH8 / "default", CH8, {})
    assert runs.default_run_dir(CH8, tmp_path) == tmp_path / "runs" / CH8 / "default"


def test_a_sentence_check_fails_on_what_the_old_templates_asserted() -> None:
    # The numbers: chapter 8 with known_votes = 50 measured 6.39e-167 against the bar 1e-06.
    old = {"key": "active_bar", "text": "at least 6.39e-167, far above the privacy bar δ = 1e-06",
           "relation": "above", "left": 6.39e-167, "right": 1e-06}
    assert sentences.check(old) is not None
    assert sentences.check({"key": "p_defeats", "text": "p = none", "relation": "some", "items": []}) is not None
    thr = pd.DataFrame({"p": [1e-05, 1e-04, 0.01], "delta_active": [6.39e-167, 0.5, 0.5]})
    bar = ch08.active_bar_sentence(thr, {"p = 1e-05": 1e-05, "p = 0.0001": 1e-04}, 1.0, 1e-06)
    assert bar.relation == "at or below" and "above the privacy bar δ = 1e-06 that" in bar.text
    assert "far above" not in bar.text and sentences.check(bar.as_dict()) is None
    flags = {c: [False, False, True] for c in [*ch08.P_SETS.values(), "much_larger"]}
    listed = {s.key: s for s in ch08.p_set_sentences(thr.assign(**flags))}
    assert listed["p_defeats"].text == "p = 0.01"
    none = {s.key: s for s in ch08.p_set_sentences(thr.assign(**{c: [False] * 3 for c in flags}))}
    assert none["p_defeats"].text == "no p of the swept grid" and "none" not in none["p_learns"].text
    assert sentences.check_all(s.as_dict() for s in [*listed.values(), *none.values()]) == []


def test_a_comparison_with_no_fitting_phrase_is_an_error_not_a_default_sentence() -> None:
    with pytest.raises(ValueError, match="no phrase fits"):
        sentences.compare("x", 1.0, 2.0, {"above": "{left} above {right}"})
    with pytest.raises(ValueError, match="no phrase fits"):
        sentences.compare("x", float("nan"), 2.0, {"above": "a", "at or below": "b"})


def test_publishing_a_run_reruns_a_reader_only_once_all_it_reads_is_published(mini_project: Path, monkeypatch,
                                                                             ) -> None:
    """On a fresh clone, publishing one chapter does not fail on the reader (chapter 9) that also reads chapters
    not run yet: it says so and skips it; once every chapter it reads is published, the reader reruns."""
    from anonbook import rerun, runner
    from tests.conftest import MINI_CHAPTER, add_chapter_module

    reader = "00_mini_reader"
    add_chapter_module(mini_project / "chapters", reader, MINI_CHAPTER.replace(
        'name="00_mini_chapter",', f'name="{reader}", after=("00_mini_chapter", "00_mini_unrun"),'), monkeypatch)
    ran: list[str] = []

    def fake_run(notebook, parameters, **kw):
        name = Path(notebook).stem
        ran.append(name)
        (mini_project / "book" / f"{name}.results.json").write_text(json.dumps({"results": {}}))
        return runner.RunResult(name, mini_project / "book" / f"{name}.ipynb", None, dict(parameters), 1.0, False)

    monkeypatch.setattr(runner, "run_notebook", fake_run)
    monkeypatch.setattr(runner, "toc_notebooks", lambda: ["00_mini_chapter", reader])
    said: list[str] = []
    rerun.run_chapter("00_mini_chapter", {}, log=said.append)
    assert ran == ["00_mini_chapter"]
    assert any(f"{reader} is not rerun" in line and "00_mini_unrun" in line for line in said), said
    assert rerun.unpublished_inputs(reader) == ["00_mini_unrun"]
    (mini_project / "book" / "00_mini_unrun.results.json").write_text("{}")
    rerun.run_chapter("00_mini_chapter", {}, log=said.append, force=True)
    assert ran == ["00_mini_chapter", "00_mini_chapter", reader]

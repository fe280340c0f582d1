"""The chapter decks (anonbook.slides): read from the executed run, the verdicts as recorded, offline reveal.js."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from anonlab import paths
from anonbook import chapters, slides, syllabus
from anonbook.book import BROWSER_FLAGS, find_browser
from anonbook.chapters import Chapter, Exercise
from anonbook.runner import toc_notebooks
from anonlab.validation import Param, ParameterSpec


def _md(src: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": src}


def _fig(caption: str, png: str) -> dict:
    return {"cell_type": "code", "metadata": {"mystnb": {"figure": {"caption": caption}}}, "source": "",
            "outputs": [{"output_type": "display_data", "metadata": {}, "data": {"image/png": png}}]}


def _glue(name: str, value: str) -> dict:
    prefix = "application/papermill.record/"
    return {"cell_type": "code", "metadata": {}, "source": "", "outputs": [{
        "output_type": "display_data", "data": {prefix + "text/plain": value},
        "metadata": {"scrapbook": {"name": name, "mime_prefix": prefix}}}]}


def _executed(book: Path) -> None:
    """A mini chapter's executed run: sections, a glued value, a setup figure, then the reproduction's figure."""
    nb = {"cells": [_md("# A mini chapter"),
                    _md("## The claim\n\nA {term}`table <k-anonymity>` has x = {glue:text}`x_paper:.1%` "
                        "{cite}`nobody2020`.\n\nSecond paragraph."),
                    _glue("x_paper", "0.5"),
                    _md("## Setup"), _fig("A setup figure.", "c2V0dXA="),
                    _md("## Reproduction"), _fig("The reproduction. More words.", "cmVwcm8=")],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (book / "00_mini_chapter.ipynb").write_text(json.dumps(nb))
    (book / "00_mini_chapter.params.json").write_text(json.dumps({"parameters": {}, "seconds": 1.0}))
    (book / "00_mini_chapter.results.json").write_text(json.dumps({"notebook": "00_mini_chapter", "results": {
        "slides.mini.approx": {"measured": 0.52, "ci": None, "n": None, "note": "", "is_nan": False}}}))


@pytest.fixture
def mini_deck(mini_project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ch = Chapter("00_mini_chapter", "A mini chapter", ParameterSpec([Param("x", "float", 0.5, "a value",
                                                                           low=0, high=1)]),
                 exercises=(Exercise("bigger", {"x": 0.9}, {"v": "v"}, question="Predict first: what if x = 0.9?"),))
    monkeypatch.setattr(chapters, "get", lambda name: ch)
    monkeypatch.setattr(chapters, "has_chapter", lambda name: name == ch.name)
    _executed(mini_project / "book")
    return mini_project


def test_roles_become_plain_text_with_the_glued_values() -> None:
    glued = {"acc": {"text/plain": "0.8766"}, "k": {"text/plain": "'4'"}}
    text = "{term}`classes <equivalence class>` k = {glue:text}`k`, acc {glue:text}`acc:.1%` {cite}`a,b` {term}`PI`"
    assert slides.resolve_roles(text, glued, {"a": "Alpha 2011"}) == "classes k = 4, acc 87.7% (Alpha 2011; b) PI"
    assert slides.resolve_roles("as Alpha {cite}`a` says", {}, {"a": "Alpha 2011"}) == "as Alpha (2011) says"


def test_a_long_claim_is_cut_at_a_sentence() -> None:
    text = "First sentence here. " + "Second one is long. " * 40
    assert slides.shorten(text, 50) == "First sentence here. Second one is long."
    assert slides.shorten("k-anonymity holds. l-diversity does not.", 100) == "k-anonymity holds. l-diversity does not."


def _png(height: int) -> str:
    """A PNG header of the given height (enough for :func:`slides.png_height`)."""
    import base64
    import struct

    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + struct.pack(">II", 800, height)).decode()


def test_the_key_figure_is_one_that_fits_a_slide() -> None:
    tall = int(slides.MAX_FIGURE_HEIGHT / slides.MIN_FIGURE_SCALE) + 1
    assert slides.png_height(_png(tall)) == tall
    nb = {"cells": [_md("## Setup"), _fig("Setup.", _png(300)), _md("## Reproduction"),
                    _fig("Too tall.", _png(tall)), _fig("Fits.", _png(tall - 1))]}
    assert slides.key_figure(nb) == (_png(tall - 1), "Fits.")
    nb["cells"][-1] = _fig("Taller.", _png(2 * tall))
    nb["cells"][1] = _fig("Setup, tall too.", _png(tall + 5))
    assert slides.key_figure(nb) == (_png(tall), "Too tall.")  # none fits: the least tall


def test_the_deck_is_read_from_the_run(mini_deck: Path) -> None:
    nb = slides.deck_notebook("00_mini_chapter")
    text = "\n".join(c["source"] for c in nb["cells"])
    assert "A table has x = 50.0% (nobody2020)." in text and "Second paragraph" not in text
    assert "cmVwcm8=" in text and "c2V0dXA=" not in text  # the Reproduction's figure, not the setup's
    assert '<p class="caption">The reproduction.</p>' in text
    assert "Predict first: what if x = 0.9?" in text
    assert "A test claim compared approximately." in text and ">0.52<" in text
    cells = re.findall(r'<span class="verdict"[^>]*>([^<]+)</span></td></tr>', text)
    assert cells == ["reproduced", "data unavailable"]  # decided by the rules from the recorded results
    assert re.search(r'in this run: 1 <span class="verdict"[^>]*>reproduced</span>\.', text)
    assert len(nb["cells"]) == 5 and all(c["metadata"]["slideshow"]["slide_type"] == "slide" for c in nb["cells"])
    assert {c["id"]: slides.slide_problems(c["source"]) for c in nb["cells"]} == {c["id"]: [] for c in nb["cells"]}


def test_a_chapter_with_recorded_attacks_gets_a_yardstick_slide(mini_deck: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import pandas as pd

    from anonbook.verdicts import yardstick

    (mini_deck / "book" / "00_mini_chapter.attacks.pkl").write_bytes(b"")
    table = pd.DataFrame([{"name": "the attack", "pi": 0.31, "pi_low": 0.22, "pi_high": 0.4,
                           "baseline_kind": "non-member model", "position": yardstick.BEYOND},
                          {"name": "the weak one", "pi": float("nan"), "pi_low": float("nan"),
                           "pi_high": float("nan"), "baseline_kind": "", "position": yardstick.OFF}])
    monkeypatch.setattr(yardstick, "yardstick_table", lambda chapters, book: table)
    nb = slides.deck_notebook("00_mini_chapter")
    (ys,) = [c["source"] for c in nb["cells"] if c["source"].startswith("## On the yardstick")]
    assert "0.31 [0.22, 0.40]" in ys and yardstick.BEYOND in ys and "non-member model" in ys
    assert "All 2 attacks of this run" in ys and f"1 {yardstick.OFF}" in ys
    assert len(nb["cells"]) == 6 and slides.slide_problems(ys) == []


def test_a_verdict_slide_shows_decided_claims_first(mini_deck: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slides, "headline_claims", lambda c: ["slides.mini.unavailable", "slides.mini.approx"])
    rows = slides.deck_verdicts("00_mini_chapter")
    assert [r["verdict"] for r in rows] == ["reproduced", "data unavailable"]


def test_a_claim_slide_continues_over_a_display_equation_and_takes_a_lists_first_item() -> None:
    nb = {"cells": [_md("## The claim\n\nRecall is $TPR$ (Eq 9) and\n\n$$\nP = \\frac{TP}{TP + FP}.\n$$\n\n"
                        "Next paragraph.")]}
    text = slides.claim_paragraph(nb)
    assert text.endswith("$$") and "TP + FP" in text and "Next paragraph" not in text
    assert slides.slide_problems(slides.shorten(text)) == []
    listed = {"cells": [_md("## The claim\n\n* **§1.** First point.\n* **§2.** Second point.")]}
    assert slides.claim_paragraph(listed) == "**§1.** First point."
    directive = {"cells": [_md("## The claim\n\nIt is\n\n```{math}\n:label: eq1\nx = 1.\n```")]}
    assert slides.claim_paragraph(directive) == "It is\n\n$$x = 1.$$"


@pytest.mark.parametrize("bad, what", [("recall is $TPR$ (Eq 9) and", "mid-sentence"),
                                       ("Rates. * §2. Precision is incomplete.", "list marker"),
                                       ("The first sentence …", "ellipsis"),
                                       ("A {term}`table <k-anonymity>` is here.", "role"),
                                       ("(eq-label)=\nThe text.", "label"), ("::: note\nText.", "directive")])
def test_slide_problems_finds_each_fault(bad: str, what: str) -> None:
    assert any(what in p for p in slides.slide_problems(bad)), slides.slide_problems(bad)


@pytest.mark.parametrize("chapter", toc_notebooks())
def test_every_chapters_claim_slide_is_whole_sentences_without_markup(chapter: str) -> None:
    """From the chapter's source notebook (roles resolved, glued values empty): what its deck's claim slide shows."""
    nb = json.loads((paths.notebooks_dir() / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    text = slides.shorten(slides.resolve_roles(slides.claim_paragraph(nb), {}, {}))
    assert text and slides.slide_problems("## The claim\n\n" + text) == []


def test_a_deck_is_written_with_reveal_js_shipped_beside_it(mini_deck: Path, tmp_path: Path) -> None:
    decks = slides.build_slides(tmp_path, ["00_mini_chapter", "not_a_chapter"])
    assert decks == [tmp_path / "slides" / "00_mini_chapter.html"]
    page = decks[0].read_text(encoding="utf-8")
    assert '<script src="reveal.js/dist/reveal.js"></script>' in page
    for part in slides.REVEAL_FILES:
        assert (tmp_path / "slides" / "reveal.js" / part).exists(), part
    external = re.findall(r'(?:src|href)="((?:https?:)?//[^"]+)"', page)
    assert external == [], "a deck must open with no network"
    assert "width: 1280, height: 720" in page


def _open_offline(page: Path, browser: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.run([browser, *BROWSER_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,720",
                               "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
                               "--virtual-time-budget=5000", "--dump-dom", page.resolve().as_uri()],
                              capture_output=True, text=True, timeout=120)
    return proc.stdout


def _recorded_decks(tmp: Path) -> list[str]:
    """The chapters whose default run is in ``book/`` (the build's runs), their decks written under ``tmp``."""
    names = [c for c in toc_notebooks() if syllabus.deck_available(c) and slides._default_run(c, paths.book_dir())]
    if not names:
        pytest.skip("no executed default run in book/ (python -m anonlab book makes them)")
    slides.build_slides(tmp, names)
    return names


def test_each_deck_shows_its_claims_verdicts_as_recorded(tmp_path: Path) -> None:
    from anonbook.verdicts.pins import pin_path, recorded_verdicts

    for c in _recorded_decks(tmp_path):
        page = (tmp_path / "slides" / f"{c}.html").read_text(encoding="utf-8")
        recorded = recorded_verdicts(c)
        pinned = json.loads(pin_path(c).read_text()) if pin_path(c).exists() else recorded
        rows = slides.deck_verdicts(c)
        assert len(rows) == min(len(slides.headline_claims(c)), slides.MAX_CLAIMS)
        for r in rows:
            assert r["verdict"] == recorded[r["id"]] == pinned[r["id"]], (c, r["id"])
        shown = re.findall(r'<span class="verdict"[^>]*>([^<]+)</span></td></tr>', page)
        assert shown == [r["verdict"] for r in rows], c
        decided = [v not in slides.UNDECIDED for v in shown]
        assert decided == sorted(decided, reverse=True), f"{c}: decided claims first"
        for cell in slides.deck_notebook(c)["cells"]:
            assert slides.slide_problems(cell["source"]) == [], (c, cell["id"])
        if not recorded and chapters.get(c).after:  # the synthesis chapter: where the attacks it reads stand
            from anonbook.verdicts.yardstick import POSITIONS, yardstick_counts, yardstick_table

            counts = yardstick_counts(yardstick_table([x for x in chapters.get(c).after
                                                       if (paths.book_dir() / f"{x}.attacks.pkl").exists()]))
            assert "records no claim of its own" in page  # the same counts as the front page's yardstick row
            assert [int(n) for n in re.findall(r"</td><td>(\d+)</td></tr>", page)] == [counts[p] for p in POSITIONS]
        elif not recorded:  # the audit chapter: its own attacks on the yardstick, as the yardstick slide lists them
            assert "records no claim of its own: it audits a release" in page
            assert "PI [95 % interval]" in page


@pytest.mark.skipif(find_browser() is None, reason="no Chromium")
def test_decks_open_offline_and_every_slide_fits(tmp_path: Path) -> None:
    names = _recorded_decks(tmp_path)
    for c in names[:2] + names[-1:]:
        dom = _open_offline(tmp_path / "slides" / f"{c}.html", find_browser() or "")
        count = re.search(r'data-reveal-slides="(\d+)"', dom)
        assert count and int(count.group(1)) > 1, f"{c}: reveal.js did not initialise offline"
        assert 'data-reveal-overflow="0"' in dom, f"{c}: a slide is taller than 720 px"

"""Every chapter notebook runs through the runner with small parameters, and the book builds.

``ANONLAB_TEST_CHAPTERS=04_census_reconstruction,05_nonmember_framework`` runs
only those chapters, and the chapters whose recorded results they read (while
developing one; the book test then fails).
``ANONLAB_UPDATE_VERDICTS=1`` rewrites the pinned verdicts under
``tests/verdicts/`` from this run (commit them with the change that flips them).

The notebooks execute once per test session, in a temporary copy of the book
(sources, ledger, configuration), exactly as `python -m anonlab book` runs them;
the tests then check what they recorded and build the HTML from them with
Sphinx warnings as errors.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from anonlab import claims
from anonbook import verdicts
from anonbook import book, chapters, runner

ROOT = Path(__file__).resolve().parents[1]
VERDICTS_DIR = Path(__file__).resolve().parent / "verdicts"

NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
# Every chapter's small parameters are its declared `quick` preset (python -m anonlab run NAME --quick).
SMALL: dict[str, dict[str, object]] = {n: dict(chapters.get(n).quick) for n in NOTEBOOKS}
MAX_CELL_LINES = 15


def _selected_chapters() -> list[str]:
    """The chapters named in ANONLAB_TEST_CHAPTERS (empty: all)."""
    return [n for n in os.environ.get("ANONLAB_TEST_CHAPTERS", "").split(",") if n]


def _with_what_they_read(names: list[str]) -> list[str]:
    """The selected chapters and the chapters whose recorded results they read (their ``after``)."""
    out = list(names)
    for n in names:
        out += [d for d in chapters.get(n).after if d not in out]
    return out


def _skip_unless_selected(name: str) -> None:
    only = _selected_chapters()
    if only and name not in only:
        pytest.skip("not among ANONLAB_TEST_CHAPTERS")


def _code_cells(name: str) -> list[dict]:
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def _h2_headings(name: str) -> list[str]:
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())
    return [line[3:].strip() for c in nb["cells"] if c["cell_type"] == "markdown"
            for line in "".join(c["source"]).splitlines() if line.startswith("## ")]


def test_every_notebook_is_a_declared_chapter() -> None:
    assert all(chapters.has_chapter(n) for n in NOTEBOOKS)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_chapter_follows_the_spine(name: str) -> None:
    """Every chapter's H2 headings are the spine, in order (subsections are H3)."""
    heads = _h2_headings(name)
    assert len(heads) == len(chapters.SPINE), heads
    for got, want in zip(heads, chapters.SPINE):
        assert got.startswith(want), f"{name}: heading {got!r} where the spine has {want!r}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_declared_parameters_match_the_parameters_cell(name: str) -> None:
    """The notebook's parameters cell and the chapter's declaration agree, name for name."""
    cell = runner.notebook_parameters(ROOT / "notebooks" / f"{name}.ipynb")
    assert cell == chapters.get(name).parameters.defaults()


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_cells_are_short(name: str) -> None:
    """Notebooks narrate, the library decides: no code cell over 15 lines but the parameters cell."""
    long = []
    for c in _code_cells(name):
        if "parameters" in c.get("metadata", {}).get("tags", []):
            continue
        lines = [x for x in "".join(c["source"]).splitlines() if x.strip()]
        if len(lines) > MAX_CELL_LINES:
            long.append(lines[0])
    assert not long, f"{name}: {len(long)} code cell(s) over {MAX_CELL_LINES} lines, starting {long}"


def test_every_notebook_is_in_the_table_of_contents() -> None:
    toc = (ROOT / "_toc.yml").read_text()
    assert all(f"file: {n}" in toc for n in NOTEBOOKS)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_sources_are_clean(name: str) -> None:
    """Sources in notebooks/ keep no outputs, start with one H1 and validate their parameters."""
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())
    cells = nb["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code), \
        "strip outputs: jupyter nbconvert --clear-output --inplace"
    assert cells[0]["cell_type"] == "markdown" and "".join(cells[0]["source"]).startswith("# ")
    h1 = [c for c in cells if c["cell_type"] == "markdown"
          for line in "".join(c["source"]).splitlines() if line.startswith("# ")]
    assert len(h1) == 1, "exactly one H1 per chapter"
    tagged = [i for i, c in enumerate(code) if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert tagged == [0], "the first code cell is the one tagged 'parameters'"
    second = "".join(code[1]["source"])
    assert "kit.start(chapter.CHAPTER, globals())" in second, \
        "the second code cell validates the parameters in one call"
    assert "remove-input" in code[1].get("metadata", {}).get("tags", []), "hide the validation cell"
    assert nb["metadata"]["kernelspec"]["name"] == "python3"


@pytest.mark.notebook
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_records_sane_results(executed_book: Path, name: str) -> None:
    _skip_unless_selected(name)
    out = executed_book / "book"
    assert (out / f"{name}.ipynb").exists()
    meta = json.loads((out / f"{name}.params.json").read_text())
    assert meta["parameters"] == SMALL[name]
    results_file = out / f"{name}.results.json"
    raw = json.loads(results_file.read_text())["results"] if results_file.exists() else {}
    if claims.chapter_claims(name):
        assert raw, f"{name} recorded no claim"
    else:  # a chapter with no claim in the ledger (chapter 9 reads the others' records)
        assert not raw, f"{name} has no claim in the ledger but recorded some"
    assert not any("verdict" in r for r in raw.values()), "the results file holds measurements, not verdicts"
    results = {cid: r for cid, r in claims.collect_results(out).items() if r["notebook"] == name}
    known = {c.id for c in claims.load_ledger(executed_book / "data" / "claims.yaml")}
    for cid, r in results.items():
        assert cid in known
        assert r["verdict"] in claims.VERDICTS
        m = r["measured"]
        assert m is None or isinstance(m, (bool, int, float, str)), (cid, m)
    # the rulebook: a measured claim is never "not run", a Monte Carlo measurement carries its interval
    ledger = {c.id: c for c in claims.load_ledger(executed_book / "data" / "claims.yaml")}
    measured = {cid for cid, r in results.items() if r["measured"] is not None}
    for cid, r in results.items():
        if r["measured"] is None and not r.get("is_nan"):
            named = sorted(other for other in measured if other in (r.get("note") or ""))
            assert not named, f"{cid} is recorded unmeasured, but its note points to the measurement of {named}"
        if ledger[cid].monte_carlo:
            for label, reading in [("default", r), *((r.get("alternatives") or {}).items())]:
                value = reading.get("measured")
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    assert reading.get("ci"), f"{cid}: Monte Carlo measurement without an interval ({label})"
    pinned = VERDICTS_DIR / f"{name}.json"
    got = {cid: r["verdict"] for cid, r in sorted(results.items())}
    if os.environ.get("ANONLAB_UPDATE_VERDICTS"):
        pinned.parent.mkdir(exist_ok=True)
        pinned.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    assert pinned.exists(), f"no pinned verdicts for {name}: run with ANONLAB_UPDATE_VERDICTS=1"
    want = json.loads(pinned.read_text())
    flipped = {cid: (want.get(cid), v) for cid, v in got.items() if want.get(cid) != v}
    flipped.update({cid: (v, None) for cid, v in want.items() if cid not in got})
    assert not flipped, (
        f"{name}: verdicts differ from tests/verdicts/{name}.json (pinned, now): {flipped}. "
        "If the change is meant, rerun with ANONLAB_UPDATE_VERDICTS=1 and commit the file with it.")
    # the executed notebook has no error outputs
    nb = json.loads((out / f"{name}.ipynb").read_text())
    errors = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors


VERDICT_WORDS = {
    "not reproduced": "not reproduced", "does not reproduce": "not reproduced",
    "depends on an unstated choice": "depends on an unstated choice", "inconclusive": "inconclusive",
    "illustrated, not tested": "illustrated, not tested",
    "data unavailable": "data unavailable", "not run": "not run", "reproduces": "reproduced",
    "reproduced": "reproduced",
}


def prose_verdict_contradictions(markdown: str, recorded: dict[str, str]) -> list[str]:
    """Sentences that name a claim (its ledger id) and a verdict its record does not hold.

    Verdict sentences are to be generated from the record (glue); a typed one
    that names a claim must at least agree with it.
    """
    import re

    bad = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n\n", markdown):
        ids = [cid for cid in recorded if cid in sentence]
        if not ids:
            continue
        low = sentence.lower()
        said = []
        for phrase, verdict in VERDICT_WORDS.items():
            if phrase in low:
                said.append(verdict)
                low = low.replace(phrase, " ")
        for cid in ids:
            for verdict in said:
                if verdict != recorded[cid] and len(ids) == 1:
                    bad.append(f"{cid}: prose says {verdict!r}, the record says {recorded[cid]!r}: "
                               f"{sentence.strip()[:160]}")
    return bad


def test_prose_contradiction_check_can_fail() -> None:
    rec = {"x.claim_a": "reproduced", "x.claim_b": "not reproduced"}
    assert prose_verdict_contradictions("Claim `x.claim_a` is not reproduced.", rec)
    assert not prose_verdict_contradictions("Claim `x.claim_a` is reproduced. Next.", rec)
    assert not prose_verdict_contradictions("Claim `x.claim_b` does not reproduce here.", rec)


@pytest.mark.notebook
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_memory_estimate_is_within_a_factor_of_two_of_the_measured_peak(executed_book: Path, name: str) -> None:
    """The runner measured the run's peak memory (runner, kernel, workers); the declared estimate is close."""
    _skip_unless_selected(name)
    meta = json.loads((executed_book / "book" / f"{name}.params.json").read_text())
    measured, estimated = meta["peak_memory_mb"], meta["estimated_memory_mb"]
    assert estimated / 2 <= measured <= 2 * estimated, (name, measured, estimated)


@pytest.mark.notebook
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_prose_never_contradicts_the_record(executed_book: Path, name: str) -> None:
    _skip_unless_selected(name)
    out = executed_book / "book"
    results_file = out / f"{name}.results.json"
    results = json.loads(results_file.read_text())["results"] if results_file.exists() else {}
    table = verdicts.verdict_table(out).set_index("id")["verdict"]
    recorded = {cid: table[cid] for cid in results}
    nb = json.loads((out / f"{name}.ipynb").read_text())
    text = "\n\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert prose_verdict_contradictions(text, recorded) == []


@pytest.mark.notebook
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_exercise_answer_is_a_value_the_chapter_glues(executed_book: Path, name: str) -> None:
    """A computed solution shows glued values: each one an exercise names must exist in a run."""
    from anonbook.course import glued_outputs

    _skip_unless_selected(name)
    glued = glued_outputs(executed_book / "book" / f"{name}.ipynb")
    for e in chapters.get(name).exercises:
        missing = [k for k in e.answer if k not in glued]
        assert not missing, f"{name}/{e.key}: the notebook glues no {missing}"
        if e.figure:
            assert "image/png" in glued.get(e.figure, {}), f"{name}/{e.key}: no glued figure {e.figure!r}"


#: A MyST role (``{cite}`x```), a fenced directive (```` ```{include} ````) or a colon fence (``:::``).
UNRESOLVED_MYST = r"\{[\w:-]+\}`|```\{|^:::"


def _unresolved_myst_in_downloads(html: Path) -> dict[str, list[str]]:
    """Chapter -> the MyST roles and directives its download copy (``_sources/<chapter>.ipynb``) still shows
    once nbconvert renders it to Markdown, as a reader's Jupyter or GitHub would (the prose and the outputs:
    code may hold braces and backticks); a chapter with no copy is reported as missing."""
    import re
    import warnings

    import nbformat
    from nbconvert import MarkdownExporter

    out: dict[str, list[str]] = {}
    for name in NOTEBOOKS:
        path = html / "_sources" / f"{name}.ipynb"
        if not path.exists():
            out[name] = ["no download copy"]
            continue
        with warnings.catch_warnings():  # papermill's record outputs have no Markdown form: nbconvert says so
            warnings.simplefilter("ignore", UserWarning)
            text, _ = MarkdownExporter(exclude_input=True).from_notebook_node(nbformat.read(path, as_version=4))
        found = re.findall(UNRESOLVED_MYST, text, flags=re.MULTILINE)
        if found:
            out[name] = sorted(set(found))
    return out


def test_the_download_check_finds_a_role_left_in(tmp_path: Path) -> None:
    import nbformat

    (tmp_path / "_sources").mkdir()
    for i, name in enumerate(NOTEBOOKS):
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_markdown_cell("As {cite}`cormode2011` shows." if i == 0 else "Plain words.")]
        nbformat.write(nb, tmp_path / "_sources" / f"{name}.ipynb")
    assert _unresolved_myst_in_downloads(tmp_path) == {NOTEBOOKS[0]: ["{cite}`"]}


@pytest.mark.book
def test_the_book_builds_without_warnings_and_links_resolve(
    executed_book: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if _selected_chapters():  # the whole book needs every chapter executed
        pytest.skip("ANONLAB_TEST_CHAPTERS runs some chapters only: the whole-book build is skipped")
    monkeypatch.setenv("ANONLAB_ROOT", str(executed_book))
    book.generate_pages()
    html = book.build_html(executed_book)
    from anonbook.slides import build_slides  # as the build does: the decks, before the link check

    build_slides(html, book.toc_notebooks())
    from anonbook.publish import write_download_copies  # as the build does: the download button's notebook

    write_download_copies(html, book.toc_notebooks())
    assert (html / "index.html").exists()
    assert (html / "verdicts.html").exists()
    assert (html / "glossary.html").exists() and (html / "course.html").exists()
    for name in NOTEBOOKS:
        assert (html / f"{name}.html").exists()
    assert book.check_internal_links(html) == []
    # no button or link points nowhere: no placeholder repository, no launch buttons
    pages = "".join(p.read_text(errors="replace") for p in html.glob("*.html"))
    assert "mybinder.org" not in pages and "github.com/anonlab" not in pages
    assert "anonlab.css" in pages  # the book's stylesheet (verdict colours, figure width)
    # the page's download button: the notebook, rendered by nbconvert as any Jupyter would, shows no MyST
    # role or directive (citations, terms and included boxes resolved: issue 38)
    assert _unresolved_myst_in_downloads(html) == {}
    browser = book.find_browser()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("CI must check the book in a real browser: install Debian's chromium")
        pytest.skip("no Chromium on this machine: browser check skipped")
    shots = executed_book / "_build" / "screenshots"
    pages = book.checked_pages(NOTEBOOKS)
    assert {"intro", "verdicts", "course", "glossary"} <= set(pages)
    problems = book.browser_check(html, pages, browser, shots)
    assert problems == []
    # what a reader sees, measured laid out at a desktop and a phone width (tests.pagecheck): no table
    # wider than the page, no figure text under 9 pt, no code wall before the first figure, every figure
    # captioned, every explorable figure drawing its recorded frames
    from tests import pagecheck

    for width in (1400, 414):
        assert pagecheck.layout_problems(pagecheck.layout_report(html, pages, browser, width)) == []
    assert sorted(p.stem for p in shots.glob("*.png")) == sorted(pages)
    # the student edition: the same runs, the exercises without solutions, checked in the browser too
    student = book.build_edition("student")
    assert student == executed_book / "_build" / "student" / "html"
    chapter_pages = [n for n in NOTEBOOKS if chapters.get(n).exercises]
    for name in chapter_pages:
        shown, hidden = (html / f"{name}.html").read_text(), (student / f"{name}.html").read_text()
        # sphinx-exercise: each exercise's solution dropdown in the instructor edition, none in the student's
        solutions = len(chapters.get(name).exercises)
        assert shown.count('class="solution dropdown admonition"') == solutions, name
        assert 'class="solution' not in hidden and "Grading note" not in hidden, name
        assert hidden.count('class="exercise admonition"') == solutions, name
        assert f'id="exercise-{name.replace("_", "-")}' in hidden.lower().replace("_", "-")
    assert book.browser_check(student, list(NOTEBOOKS), browser, shots / "student") == []
    # no page, download, deck or student notebook of the student edition gives a graded answer away
    from anonbook.assignments import leaks
    from anonbook.assignments.otter_build import built_assignments

    assert leaks.edition_problems(student, built_assignments()) == []
    for width in (1400, 414):
        assert pagecheck.layout_problems(pagecheck.layout_report(student, list(NOTEBOOKS), browser, width)) == []
    book.generate_pages()  # the instructor edition's pages again
    verdicts = (html / "verdicts.html").read_text()
    n = len(claims.load_ledger(executed_book / "data" / "claims.yaml"))
    assert f"<td><p>{n}</p></td>" in verdicts or f">{n}<" in verdicts
    # every claim has a row with a coloured verdict; details open on demand
    assert verdicts.count('<tr id="claim-') == n  # one anchored row per claim (the front page links to it)
    assert verdicts.count('<td><a class="verdict verdict-') >= n  # a badge linking to the rules, in every row
    assert verdicts.count("<details>") >= n  # the details of each claim open on demand

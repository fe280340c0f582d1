"""The front page's first screen (issue 38): one row per document with its finding, generated from verdicts."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from anonlab import claims
from anonbook import verdicts
from anonbook.verdicts import findings


def _verdicts(**counts: int) -> pd.DataFrame:
    words = {"ok": "reproduced", "bad": "not reproduced", "choice": "depends on an unstated choice",
             "unsure": "inconclusive", "nodata": "data unavailable"}
    return pd.DataFrame({"verdict": [words[k] for k, n in counts.items() for _ in range(n)]})


def test_the_bottom_line_follows_the_verdicts() -> None:
    assert findings.bottom_line(_verdicts(ok=4)) == "Every decided claim reproduces: 4 of 4 claims reproduced, 0 not."
    assert findings.bottom_line(_verdicts(ok=1, bad=3)).startswith("Mostly fails: 1 of 4")
    assert findings.bottom_line(_verdicts(ok=2, bad=2)).startswith("Mixed:")
    assert findings.bottom_line(_verdicts(bad=2)).startswith("Every decided claim fails")
    line = findings.bottom_line(_verdicts(ok=30, bad=5, choice=9, unsure=4, nodata=5))
    assert line == ("Mostly reproduces: 30 of 53 claims reproduced, 5 not, 18 undecided most often because of "
                    "a choice the paper leaves open.")
    assert findings.bottom_line(_verdicts(nodata=2)).endswith("2 undecided all because of data the book cannot fetch.")
    assert findings.bottom_line(_verdicts()) == "No claim of this document is in the ledger yet."


def test_the_glance_table_has_a_row_per_document_linking_to_its_section(tmp_path: Path) -> None:
    table = verdicts.verdict_table(tmp_path)  # nothing recorded
    docs = findings.load_documents()
    out = findings.glance_html(table, docs)
    rows = re.findall(r"<tr><td><a href=\"#([^\"]+)\">", out)
    assert rows == [findings.section_anchor(i) for i in range(1, len(docs) + 1)] and len(rows) == 5
    md = findings.findings_markdown(table, {}, docs)
    assert all(f"({findings.section_anchor(i)})=\n### {i}." in md for i in range(1, 6))
    assert all(d["question"].replace("'", "&#x27;") in out for d in docs)
    assert out.count('class="glance-bar"') == 5


def test_the_counts_bar_is_as_long_as_the_counts() -> None:
    bar = findings.counts_bar_html(_verdicts(ok=3, bad=1))
    assert re.findall(r"width:([0-9.]+)%", bar) == ["75.00", "25.00"]
    assert "3 reproduced · 1 not · 0 undecided" in bar


def test_the_claims_figure_scales_to_the_column() -> None:
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="518.4pt" height="432pt" viewBox="0 0 518.4 432"><g width="3"/></svg>'
    out = findings.fluid_svg(svg)
    assert 'width="518.4pt"' not in out and 'height="432pt"' not in out and 'viewBox="0 0 518.4 432"' in out
    assert '<g width="3"/>' in out  # only the root's size goes


def test_the_yardstick_row_names_the_chapter_by_its_title(tmp_path: Path) -> None:
    out = verdicts.write_yardstick_summary(tmp_path, ["09_one_yardstick"], tmp_path, title="One yardstick")
    assert ">One yardstick</a>" in out and "09_<wbr>one" not in out


def test_the_yardstick_row_counts_the_chapters_chapter_9_reads() -> None:
    from anonbook.book import yardstick_chapters
    from anonbook.chapters import get

    names = ["01_syntactic_anonymity", "05_nonmember_framework", "09_one_yardstick", "10_audit_your_release"]
    got = yardstick_chapters(names)
    assert got == [n for n in names if n in get("09_one_yardstick").after or n == "09_one_yardstick"]
    assert "10_audit_your_release" not in got and "05_nonmember_framework" in got
    assert yardstick_chapters(["01_syntactic_anonymity", "10_audit_your_release"]) == ["01_syntactic_anonymity",
                                                                                     "10_audit_your_release"]

"""The page check (tests.pagecheck) in a real browser, on small pages made to break each of its rules,
and on a page made of the book's own table formatter, badges and CSS, which must pass at 1400 and 414 px."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from anonbook import booktables
from tests import pagecheck
from anonbook import book

ROOT = Path(__file__).resolve().parents[1]

PAGE = """<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="anonlab.css"><style>body {{ margin: 0 }} article {{ max-width: 760px; margin: 0 12px; }}
</style></head><body><article><h1>x</h1>{body}</article></body></html>"""

#: One page per rule, each breaking only that rule, and the words its problem must contain.
BROKEN = {
    "wide_table": ('<table><tr><td style="min-width:1600px">a</td></tr></table>', "px too wide"),
    "row_numbers": (pd.DataFrame({"x": [1, 2, 3]}).iloc[[0, 2, 1]].to_html(), "index of row numbers"),
    "nan": ('<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td></tr><tr><td>NaN</td></tr></tbody></table>',
            "missing values as 'NaN'"),
    "raw_tuple": ('<table><tr><td>(0.8012345678901234, 0.9312345678901234)</td></tr></table>', "raw numbers"),
    "long_decimal": ('<table><tr><td>0.08099883</td></tr></table>', "raw numbers"),
    "cut": ('<table><tr><td>age, sex, race, marital…</td></tr></table>', "cuts 1 cells short"),
    "wide_figure": ('<div style="overflow-x:auto"><svg style="max-width:none;width:900px" height="20" viewBox="0 0 900 20"></svg></div>',
                    "wider than the column"),
    "badge": ('<table style="width:100%;table-layout:fixed"><tr><td style="width:90%">claim</td><td>'
              '<span class="verdict" style="word-break:break-all !important;white-space:normal">inconclusive'
              '</span></td></tr></table>', "badges break inside a word"),
    "dump": ('<div class="cell_output"><pre>Anonymeter    a.csv\nName: peer inputs, dtype: object</pre></div>',
             "pandas dump"),
    "sideways": ('<div style="width:1200px">a line wider than a phone</div>', "scrolls sideways"),
}


def _good_body() -> str:
    wide = pd.DataFrame({f"column_name_{i}": [0.123456789 * i, float("nan")] for i in range(9)})
    wide["accuracy_pa"] = [0.8812, 0.5]
    wide["expected"] = ["0.00714286", "0.0809988"]  # six significant digits (the assignments key)
    wide["accuracy_pa ci"] = [(0.8012345678901234, 0.9312345678), (0.4, 0.6)]
    wide["secrets"] = [[f"attribute_{k}" for k in range(41)], ["a"]]
    long = pd.DataFrame({"sha256": ["9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"],
                         "path": ["adult-1.0/adult.data"]})
    badges = "".join(f'<tr><td>a statement that is long enough to wrap</td><td>0.5</td><td>0.6</td><td>'
                     f'<span class="verdict verdict-x">{v}</span></td></tr>'
                     for v in ("inconclusive", "data unavailable", "depends on an unstated choice"))
    return (booktables.book_table_html(wide) + booktables.book_table_html(long)
            + booktables.book_table_html(pd.Series({"Anonymeter": "x.csv"}, name="peer inputs"))
            + '<table class="verdict-table"><thead><tr><th>claim</th><th>paper</th><th>measured</th>'
            + "<th>verdict</th></tr></thead><tbody>" + badges + "</tbody></table>"
            + '<figure class="claims-figure"><svg viewBox="0 0 518 432"><rect width="518" height="432"/></svg></figure>')


@pytest.fixture(scope="module")
def browser() -> str:
    found = book.find_browser()
    if found is None:
        pytest.skip("no Chromium on this machine: the page check cannot run")
    return found


def _site(tmp: Path, pages: dict[str, str]) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "book" / "_static" / "anonlab.css", tmp / "anonlab.css")
    for name, body in pages.items():
        (tmp / f"{name}.html").write_text(PAGE.format(body=body), encoding="utf-8")
    return tmp


def test_each_rule_fails_on_a_page_made_to_break_it(tmp_path: Path, browser: str) -> None:
    site = _site(tmp_path / "broken", {name: body for name, (body, _) in BROKEN.items()})
    report = pagecheck.layout_report(site, list(BROKEN), browser, 414)
    for name, (_, words) in BROKEN.items():
        found = pagecheck.layout_problems({name: report[name]}, captions=False)
        assert any(words in p for p in found), (name, found)


def test_the_books_own_tables_badges_and_figures_pass_at_both_widths(tmp_path: Path, browser: str) -> None:
    site = _site(tmp_path / "good", {"good": _good_body()})
    for width in (1400, 414):
        report = pagecheck.layout_report(site, ["good"], browser, width)
        assert report["good"], "the page could not be measured"
        assert pagecheck.layout_problems(report, captions=False) == [], width

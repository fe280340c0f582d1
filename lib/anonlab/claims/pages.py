"""The verdict pages: every ledger claim beside what the book measured, as tables for the book.

:func:`write_verdict_pages` writes ``verdict_summary.md`` (counts per
chapter, included by the front page) and ``verdict_table.md`` (every claim,
included by the verdicts page) from the ledger and the recorded results; the
verdicts are computed by :func:`anonlab.claims.rules.decide`.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from .ledger import ClaimError, load_ledger
from .recorder import collect_results
from .rows import COLUMNS, claim_row
from .rules import SHORT_VERDICT, VERDICTS, rulebook_markdown, verdict_slug

__all__ = ["verdict_table", "verdict_counts", "verdict_html_table",
           "verdict_summary_html", "write_verdict_pages"]

def verdict_table(results_dir: str | Path | None = None) -> pd.DataFrame:
    """Every ledger claim with reported value, measured value and verdict.

    The verdict is recomputed from the ledger at build time, so a tolerance
    edited in the ledger takes effect without rerunning the notebooks.
    """
    results = collect_results(results_dir)
    known = {c.id for c in load_ledger()}
    stray = sorted(set(results) - known)
    if stray:
        raise ClaimError(f"results record ids that are not in the ledger: {stray}")
    rows = [claim_row(c, results.get(c.id)) for c in load_ledger()]
    return pd.DataFrame(rows, columns=COLUMNS)


def verdict_counts(table: pd.DataFrame) -> pd.DataFrame:
    """Counts of each verdict per chapter, with a total row."""
    counts = (
        table.groupby(["chapter", "verdict"]).size().unstack(fill_value=0)
        .reindex(columns=list(VERDICTS), fill_value=0)
    )
    counts.loc["all chapters"] = counts.sum()
    counts["claims"] = counts.sum(axis=1)
    return counts



def _html(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _verdict_badge(verdict: str) -> str:
    css = "verdict-" + verdict_slug(verdict)
    return f'<a class="verdict {css}" href="#rulebook" title="how this verdict is decided">{_html(verdict)}</a>'


def verdict_html_table(group: pd.DataFrame) -> str:
    """A compact HTML table of claims: id, reported, measured, coloured verdict, details on demand.

    Four narrow columns fit the page without horizontal scrolling; the
    statement, where the paper makes it and the interval open from the id.
    """
    rows = []
    for _, r in group.iterrows():
        details = f"{_html(r['statement'])}<br><em>{_html(r['where'])}</em>"
        if r["ci"]:
            details += f"<br>interval: {_html(r['ci'])}"
        if r.get("readings"):
            details += f"<br>{_html(r['readings'])}"
        rows.append(
            "<tr>"
            f'<td class="claim-id"><details><summary><code>{_html(r["id"])}</code></summary>'
            f'<div class="claim-details">{details}</div></details></td>'
            f"<td>{_html(r['reported'])}</td><td>{_html(r['measured'])}</td>"
            f"<td>{_verdict_badge(r['verdict'])}</td></tr>"
        )
    return ('<table class="verdict-table"><thead><tr><th>claim (open for details)</th><th>reported</th>'
            '<th>measured</th><th>verdict</th></tr></thead><tbody>\n' + "\n".join(rows)
            + "\n</tbody></table>\n")



def verdict_summary_html(table: pd.DataFrame, chapters: Mapping[str, str] | None = None) -> str:
    """Counts of each verdict per chapter as a narrow HTML table (coloured headers, no sideways scroll)."""
    counts = verdict_counts(table)
    chapters = dict(chapters or {})
    head = "".join(f'<th><span class="verdict verdict-{verdict_slug(v)}">{_html(SHORT_VERDICT[v])}</span></th>'
                   for v in VERDICTS)
    rows = []
    for chapter, row in counts.iterrows():
        label = _html(chapter).replace("_", "_<wbr>")  # break long names at their underscores
        if chapter in chapters:
            label = f'<a href="{_html(chapter)}.html" title="{_html(chapters[chapter])}">{label}</a>'
        cells = "".join(f"<td>{int(row[v])}</td>" for v in VERDICTS)
        rows.append(f"<tr><td>{label}</td>{cells}<td>{int(row['claims'])}</td></tr>")
    return ('<table class="verdict-summary"><thead><tr><th>chapter</th>' + head + "<th>claims</th></tr></thead>"
            "<tbody>\n" + "\n".join(rows) + "\n</tbody></table>\n")


def write_verdict_pages(
    out_dir: str | Path,
    results_dir: str | Path | None = None,
    chapters: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Write ``verdict_summary.md``, ``rulebook.md`` and ``verdict_table.md`` into ``out_dir``.

    They are included by the book's introduction and verdict page.
    ``chapters`` maps the chapters that are part of the book to their titles;
    their sections link to the chapter page. Returns the full verdict table.
    """
    chapters = dict(chapters or {})
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = verdict_table(results_dir)
    (out / "verdict_summary.md").write_text(verdict_summary_html(table, chapters), encoding="utf-8")
    (out / "rulebook.md").write_text(rulebook_markdown(), encoding="utf-8")
    parts = []
    for chapter, group in table.groupby("chapter", sort=True):
        counted = group["verdict"].value_counts().reindex(VERDICTS, fill_value=0)
        tally = ", ".join(f"{int(n)} {v}" for v, n in counted.items() if n > 0)
        if chapter in chapters:
            parts.append(f"## {chapter}: {chapters[chapter]}\n\n")
            parts.append(f"Measured in the chapter [{chapters[chapter]}]({chapter}.ipynb): {tally}.\n\n")
        else:
            parts.append(f"## {chapter}\n\nThis chapter is not written yet: {tally}.\n\n")
        parts.append(verdict_html_table(group))
        parts.append("\n")
    (out / "verdict_table.md").write_text("".join(parts), encoding="utf-8")
    return table

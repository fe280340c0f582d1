"""The verdict pages: every ledger claim beside what the book measured, as tables for the book.

:func:`write_verdict_pages` writes ``verdict_summary.md`` (counts per
chapter, included by the front page) and ``verdict_table.md`` (every claim,
included by the verdicts page) from the ledger and the recorded results; the
verdicts are computed by :func:`anonlab.claims.rules.decide`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from anonlab.claims.ledger import ClaimError, load_ledger
from anonlab.claims.recorder import collect_results
from anonlab.claims.rows import COLUMNS, claim_row
from anonlab.claims.rules import SHORT_VERDICT, VERDICTS, definitions_markdown, rulebook_markdown, verdict_slug
from anonbook.verdicts.table import claim_table_html, escape

__all__ = ["verdict_table", "verdict_counts", "verdict_html_table", "claim_table_html",
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



def verdict_html_table(group: pd.DataFrame) -> str:
    """The verdicts page's table of one chapter's claims (:func:`claim_table_html`, rows anchored)."""
    return claim_table_html(group, anchors=True)


def verdict_summary_html(table: pd.DataFrame, chapters: Mapping[str, str] | None = None) -> str:
    """Counts of each verdict per chapter as a narrow HTML table (coloured headers, no sideways scroll)."""
    counts = verdict_counts(table)
    chapters = dict(chapters or {})
    head = "".join(f'<th><span class="verdict verdict-{verdict_slug(v)}">{escape(SHORT_VERDICT[v])}</span></th>'
                   for v in VERDICTS)
    rows = []
    for chapter, row in counts.iterrows():
        label = escape(chapter).replace("_", "_<wbr>")  # break long names at their underscores
        if chapter in chapters:
            label = f'<a href="{escape(chapter)}.html" title="{escape(chapter)}">{escape(chapters[chapter])}</a>'
        cells = "".join(f"<td>{int(row[v])}</td>" for v in VERDICTS)
        rows.append(f"<tr><td>{label}</td>{cells}<td>{int(row['claims'])}</td></tr>")
    return ('<table class="verdict-summary"><thead><tr><th>chapter</th>' + head + "<th>claims</th></tr></thead>"
            "<tbody>\n" + "\n".join(rows) + "\n</tbody></table>\n")


def findings_page(table: pd.DataFrame, chapters: Mapping[str, str], results_dir: str | Path | None = None) -> str:
    """The front page's findings (:mod:`anonbook.verdicts.findings`) and the figure of every numeric claim."""
    from anonbook.verdicts.findings import claims_figure_svg, findings_markdown, fluid_svg

    from anonbook.runs import not_default

    off = not_default(chapters, results_dir)
    svg = fluid_svg(claims_figure_svg(collect_results(results_dir), table, not_default=sorted(off)))
    return (findings_markdown(table, chapters)
            + "### Every numeric claim at a glance\n\n"
            "Each point is one claim: the paper's value against the book's measurement. Points on the grey "
            "diagonal agree exactly; the pale bar is the range of values the claim's tolerance accepts and "
            "the thin line the measurement's interval. Click a point for its row in the "
            "[verdict table](verdicts.md).\n\n"
            '```{raw} html\n<figure class="claims-figure">' + svg
            + "<figcaption>Every numeric claim of the ledger, the paper's value against the measured one, "
            "coloured by verdict (generated from the ledger and the recorded results).</figcaption>"
            "</figure>\n```\n")


def write_glance(out_dir: str | Path, table: pd.DataFrame) -> Path:
    """Write ``glance.md``: the front page's first screen, one row per document (:func:`findings.glance_html`)."""
    from anonbook.verdicts.findings import glance_html

    path = Path(out_dir) / "glance.md"
    path.write_text("```{raw} html\n" + glance_html(table) + "```\n", encoding="utf-8")
    return path


def write_runs_banner(out_dir: str | Path, chapters: Mapping[str, str],
                      results_dir: str | Path | None = None) -> Path:
    """``runs_banner.md`` (top of the front page and the verdicts page): each chapter not at its default run.

    Empty when every chapter's published run is the default (:func:`anonbook.runs.runs_banner_markdown`).
    """
    from anonbook.runs import runs_banner_markdown

    path = Path(out_dir) / "runs_banner.md"
    path.write_text(runs_banner_markdown(chapters, results_dir) or "\n", encoding="utf-8")
    return path


def write_verdict_pages(
    out_dir: str | Path,
    results_dir: str | Path | None = None,
    chapters: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Write ``verdict_summary.md``, ``verdict_definitions.md``, ``rulebook.md``, ``findings.md``, ``glance.md``,
    ``failing.md`` and ``verdict_table.md``.

    They are included by the book's introduction and verdict page (both define the verdicts with
    ``verdict_definitions.md``, the rulebook's :data:`~anonlab.claims.rules.DEFINITIONS`).
    ``chapters`` maps the chapters that are part of the book to their titles;
    their sections link to the chapter page. Returns the full verdict table.
    """
    chapters = dict(chapters or {})
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = verdict_table(results_dir)
    write_runs_banner(out, chapters, results_dir)
    (out / "verdict_summary.md").write_text(verdict_summary_html(table, chapters), encoding="utf-8")
    (out / "rulebook.md").write_text(rulebook_markdown(), encoding="utf-8")
    (out / "verdict_definitions.md").write_text(definitions_markdown(), encoding="utf-8")
    (out / "findings.md").write_text(findings_page(table, chapters, results_dir), encoding="utf-8")
    write_glance(out, table)
    failing = table[table["verdict"] == "not reproduced"]
    (out / "failing.md").write_text(
        ("```{raw} html\n" + claim_table_html(failing, chapter_links={ch: f"{ch}.html" for ch in chapters})
         + "```\n") if len(failing) else "No claim failed in this build.\n", encoding="utf-8")
    parts = []
    for chapter, group in table.groupby("chapter", sort=True):
        counted = group["verdict"].value_counts().reindex(VERDICTS, fill_value=0)
        tally = ", ".join(f"{int(n)} {v}" for v, n in counted.items() if n > 0)
        if chapter in chapters:
            parts.append(f"(verdicts-{chapter})=\n## {chapters[chapter]}\n\n")  # the title only; the label keeps the slug
            parts.append(f"Measured in the chapter [{chapters[chapter]}]({chapter}.ipynb): {tally}.\n\n")
        else:
            parts.append(f"## {chapter}\n\nThis chapter is not written yet: {tally}.\n\n")
        parts.append(verdict_html_table(group))
        parts.append("\n")
    (out / "verdict_table.md").write_text("".join(parts), encoding="utf-8")
    return table

"""The book's one verdict table: a claim in words, the paper's value, the measurement and the verdict (HTML)."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

import pandas as pd

from anonlab.claims.rules import verdict_slug

__all__ = ["claim_table_html", "escape"]


def escape(text: Any) -> str:
    """HTML-escape any value (quotes too)."""
    return html.escape(str(text), quote=True)


def _verdict_badge(verdict: str, href: str = "#rulebook") -> str:
    css = "verdict-" + verdict_slug(verdict)
    return f'<a class="verdict {css}" href="{escape(href)}" title="how this verdict is decided">{escape(verdict)}</a>'


def claim_table_html(group: pd.DataFrame, *, rulebook: str = "#rulebook", anchors: bool = False,
                     chapter_links: Mapping[str, str] | None = None) -> str:
    """The book's one verdict table: the claim in words, the paper's value, the measurement, the verdict.

    Used by every chapter (:meth:`anonbook.chapters.kit.ChapterRun.verdict_table`), the verdicts page and
    the front page, so a claim reads the same everywhere. Four columns fit a 740 px column without
    sideways scrolling: the statement comes first and whole; where the paper makes it, the claim's id,
    the readings, the stand-in and the run's note open on demand; the measured value is printed to the precision its
    interval supports, with the interval under it; the verdict badge links to the rules (``rulebook``).
    ``anchors`` gives each row the id ``claim-<id>`` (the verdicts page, which the front page links to);
    ``chapter_links`` maps a chapter to its page, to link each claim to the chapter that measures it.
    """
    rows = []
    for _, r in group.iterrows():
        details = f"<em>{escape(r['where'])}</em> · <code>{escape(r['id'])}</code>"
        if chapter_links and r.get("chapter") in chapter_links:
            details += f' · <a href="{escape(chapter_links[r["chapter"]])}">the chapter</a>'
        if r.get("readings"):
            details += f"<br>{escape(r['readings'])}"
        if r.get("note"):
            details += f"<br>{escape(r['note'])}"
        ci = f'<br><span class="claim-ci">{escape(r["ci"])}</span>' if r.get("ci") else ""
        row_id = f' id="claim-{escape(r["id"])}"' if anchors else ""
        rows.append(
            f"<tr{row_id}>"
            f'<td class="claim-statement">{escape(r["statement"])}'
            f'<details><summary>details</summary><div class="claim-details">{details}</div></details></td>'
            f"<td>{escape(r['reported'])}</td><td>{escape(r['measured']) or '—'}{ci}</td>"
            f"<td>{_verdict_badge(r['verdict'], rulebook)}</td></tr>")
    return ('<table class="verdict-table"><thead><tr><th>claim</th><th>paper</th><th>measured</th>'
            '<th>verdict</th></tr></thead><tbody>\n' + "\n".join(rows) + "\n</tbody></table>\n")



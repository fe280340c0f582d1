"""The book's verdict pages, pins and yardstick of recorded runs (the science's ledger and rules are :mod:`anonlab.claims`).

:mod:`~anonbook.verdicts.pages`
    the verdict tables and pages of the book;
:mod:`~anonbook.verdicts.findings`
    the front page's findings;
:mod:`~anonbook.verdicts.pins`
    the pinned verdicts of the quick and the published (default) runs;
:mod:`~anonbook.verdicts.yardstick`
    every recorded attack on one yardstick, with its run and its claim's
    verdict (the synthesis chapter and the front page's row).
"""

from __future__ import annotations

from .pages import verdict_counts, verdict_html_table, verdict_summary_html, verdict_table, write_verdict_pages
from .yardstick import RecordedRun, off_scale_counts, readable_table, recorded_run, recorded_verdicts, \
    write_yardstick_summary, yardstick_counts, yardstick_table

__all__ = ["verdict_counts", "verdict_html_table", "verdict_summary_html", "verdict_table", "write_verdict_pages",
           "RecordedRun", "off_scale_counts", "readable_table", "recorded_run", "recorded_verdicts",
           "write_yardstick_summary", "yardstick_counts", "yardstick_table"]

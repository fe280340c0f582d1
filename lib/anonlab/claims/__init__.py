"""Claims: the ledger of what the papers report, the verdict rules, the record of what the book measured.

Six modules, one job each:

:mod:`~anonlab.claims.ledger`
    ``data/claims.yaml`` read and validated (:func:`claim`, :func:`reported`);
:mod:`~anonlab.claims.rules`
    the verdict rules (:func:`decide`, :func:`verdict`) and their wording
    (:func:`phrase`), the one source of a verdict;
:mod:`~anonlab.claims.recorder`
    a chapter's measurements (:class:`Measurement`, :class:`Recorder`) and
    attack results, and reading them back (:func:`collect_results`,
    :func:`attack_table`);
:mod:`~anonlab.claims.pages`
    the verdict tables and pages of the book;
:mod:`~anonlab.claims.pins`
    the pinned verdicts of the quick and the published (default) runs;
:mod:`~anonlab.claims.yardstick`
    every recorded attack on one yardstick, with its run and its claim's
    verdict (the synthesis chapter and the front page's row).

This package re-exports their public names, so ``from anonlab import
claims; claims.reported(...)`` reads as before.
"""

from __future__ import annotations

from .ledger import COMPARISONS, DATA_STATES, Claim, ClaimError, chapter_claims, claim, describe_reported, \
    ledger, load_ledger, reported
from .pages import verdict_counts, verdict_html_table, verdict_summary_html, verdict_table, write_verdict_pages
from .recorder import ATTACKS_SUFFIX, RESULTS_SUFFIX, Measurement, Recorder, attack_table, collect_results, \
    load_attacks, with_verdicts
from .rules import ILLUSTRATED, RULEBOOK, SHORT_VERDICT, VERDICTS, decide, phrase, reading_verdict, verdict
from .yardstick import RecordedRun, off_scale_counts, readable_table, recorded_run, recorded_verdicts, \
    write_yardstick_summary, yardstick_counts, yardstick_table

__all__ = [
    "COMPARISONS", "DATA_STATES", "Claim", "ClaimError", "chapter_claims", "claim", "describe_reported", "ledger",
    "load_ledger", "reported", "verdict_counts", "verdict_html_table", "verdict_summary_html", "verdict_table",
    "write_verdict_pages", "ATTACKS_SUFFIX", "RESULTS_SUFFIX", "Measurement", "Recorder", "attack_table",
    "collect_results", "load_attacks", "with_verdicts", "SHORT_VERDICT", "VERDICTS", "decide", "phrase",
    "reading_verdict", "verdict", "ILLUSTRATED", "RULEBOOK", "RecordedRun", "recorded_run", "recorded_verdicts", "write_yardstick_summary",
    "yardstick_counts", "yardstick_table", "readable_table", "off_scale_counts",
]

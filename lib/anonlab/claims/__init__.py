"""Claims: the ledger of what the papers report, the verdict rules, the record of what the book measured.

Three modules, one job each (the pages, pins and the yardstick of the book's recorded runs are the book machine's:
:mod:`anonbook.verdicts`):

:mod:`~anonlab.claims.ledger`
    ``data/claims.yaml`` read and validated (:func:`claim`, :func:`reported`);
:mod:`~anonlab.claims.rules`
    the verdict rules (:func:`decide`, :func:`verdict`) and their wording (:func:`phrase`), the one source of a
    verdict;
:mod:`~anonlab.claims.recorder`
    measurements (:class:`Measurement`, :class:`Recorder`) and attack results, and reading them back
    (:func:`collect_results`).
"""

from __future__ import annotations

from .ledger import COMPARISONS, DATA_STATES, Claim, ClaimError, chapter_claims, claim, describe_reported, \
    ledger, load_ledger, reported
from .recorder import ATTACKS_SUFFIX, RESULTS_SUFFIX, Condition, Measurement, Recorder, collect_results, \
    load_attacks, with_verdicts
from .rules import ILLUSTRATED, RULEBOOK, SHORT_VERDICT, VERDICTS, decide, phrase, reading_verdict, verdict

__all__ = [
    "COMPARISONS", "DATA_STATES", "Claim", "ClaimError", "chapter_claims", "claim", "describe_reported", "ledger",
    "load_ledger", "reported", "ATTACKS_SUFFIX", "RESULTS_SUFFIX", "Condition", "Measurement", "Recorder", "collect_results", "load_attacks", "with_verdicts", "SHORT_VERDICT", "VERDICTS", "decide", "phrase",
    "reading_verdict", "verdict", "ILLUSTRATED", "RULEBOOK", ]

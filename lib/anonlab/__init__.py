"""anonlab: the science behind *Attacks on Anonymized Data*, a library you can use without the book.

Four rooms:

- :mod:`anonlab.data`: data sources, loaders and generators;
- :mod:`anonlab.mechanisms`: what a data owner publishes (generalised tables, noisy counts, Anatomy groups, Diffix
  answers, census tables);
- :mod:`anonlab.attacks`: what an attacker does with it;
- :mod:`anonlab.measures`: how any attack is scored (precision, coverage, baselines, precision improvement).

Beside them: :mod:`anonlab.claims` (the ledger of the papers' claims, the verdict rules and the record of
measurements) and :mod:`anonlab.validation` (checks of arguments). Importing the science loads none of papermill,
nbformat, Sphinx, Jupyter Book, plotly or otter; the book that runs it, its chapters and its command line (``python -m
anonlab``) are the separate package :mod:`anonbook`, which imports this one and is never imported by it.
"""

from __future__ import annotations

__version__ = "0.1.0"

"""anonlab: the helper library behind *Attacks on Anonymized Data*, a rerunnable book.

Four rooms (see the book's introduction):

- :mod:`anonlab.data`: data sources, loaders and generators;
- :mod:`anonlab.mechanisms`: what a data owner publishes (generalised tables,
  noisy counts, Anatomy groups, Diffix answers, census tables);
- :mod:`anonlab.attacks`: what an attacker does with it;
- :mod:`anonlab.measures`: how any attack is scored (precision, coverage,
  baselines, precision improvement).

Around them: :mod:`anonlab.chapters` (each chapter's declared parameters
and the functions that turn its results into claim measurements),
:mod:`anonlab.claims` (the ledger of paper claims and the recorded
measurements), :mod:`anonlab.validation` (the one validation module),
:mod:`anonlab.runner` (papermill execution), :mod:`anonlab.sweep`
(parameter grids), :mod:`anonlab.course` (exercises and the course plan)
and :mod:`anonlab.plotting`.
"""

from __future__ import annotations

__version__ = "0.1.0"

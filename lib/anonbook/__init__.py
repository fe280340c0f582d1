"""anonbook: the book machine behind *Attacks on Anonymized Data*.

It builds, checks and shows the book on top of the science library
(:mod:`anonlab`: data, mechanisms, attacks, measures, the claims ledger and
its rules), which it imports and which never imports it:

- running a chapter: :mod:`~anonbook.runner` (papermill), :mod:`~anonbook.cache`
  (the one result cache), :mod:`~anonbook.memory` (estimates, the cores a run is
  given), :mod:`~anonbook.schedule` and :mod:`~anonbook.sweep`;
- the chapters: :mod:`~anonbook.chapters` (each chapter's declared parameters,
  the kit its notebook calls), :mod:`~anonbook.figures`, :mod:`~anonbook.explore`,
  :mod:`~anonbook.diffix_harness` (the Diffix experiments over many users);
- the book: :mod:`~anonbook.book`, :mod:`~anonbook.publish`,
  :mod:`~anonbook.verdicts` (verdict pages, pins, the recorded yardstick),
  :mod:`~anonbook.peers` (Anonymeter and the ALC package, in their own environment);
- the course: :mod:`~anonbook.slides`, :mod:`~anonbook.course`,
  :mod:`~anonbook.syllabus`, :mod:`~anonbook.solutions`, :mod:`~anonbook.assignments`;
- the command line, ``python -m anonlab``: :mod:`~anonbook.cli`.
"""

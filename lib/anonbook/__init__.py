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

import sys as _sys

# jsonschema (imported by nbformat, papermill and Jupyter Book) loads the optional ``rfc3987_syntax``, which
# compiles a dozen Earley grammars at import: 1.2-2.6 s in every process of the build, for an IRI format check
# that no notebook schema uses. Marking it absent makes jsonschema skip that one check (it imports the module
# under ``suppress(ImportError)``); a process that imported it already keeps it.
_sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

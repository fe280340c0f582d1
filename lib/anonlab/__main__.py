"""``python -m anonlab``: the book's command line, which lives in the book machine (:mod:`anonbook.cli`).

``import anonlab`` never runs this module; it is the one door from the science's name to the book machine, so the
command stays ``python -m anonlab``.
"""

from anonbook.cli import main

raise SystemExit(main())

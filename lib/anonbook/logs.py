"""Where the science's messages go: the book machine shows the ``anonlab`` logger on standard error."""

from __future__ import annotations

import sys

__all__ = ["show_library_messages"]


def show_library_messages() -> None:
    """Show what the science reports through :mod:`logging` (data fetches, warnings) on standard error.

    The science never prints; the book machine decides where its messages go."""
    import logging

    log = logging.getLogger("anonlab")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)

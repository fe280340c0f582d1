"""The science's one progress callback: a long call reports ``progress(message)``; only the book machine prints.

A function that runs for long takes ``progress: Progress | None = None`` and calls :func:`report`; ``None`` (the
default) reports nothing. The book passes a printer (:meth:`anonbook.chapters.kit.ChapterRun.progress`), a researcher
can pass ``print`` or a logger's ``info``.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Progress", "report"]

#: A progress callback: one line of text per step.
Progress = Callable[[str], None]


def report(progress: Progress | None, message: str) -> None:
    """Send ``message`` to ``progress`` when one is given.

    >>> lines = []
    >>> report(lines.append, "step 1/2"); report(None, "dropped")
    >>> lines
    ['step 1/2']
    """
    if progress is not None:
        progress(message)

"""Exceptions raised by :mod:`anonlab.data`."""

from __future__ import annotations


class DataUnavailableError(RuntimeError):
    """A data set cannot be had: not cached and not fetchable, or it failed its checksum.

    The message says which data set, where it comes from, and how to provide it by hand.
    """


class DataFileNotFoundError(DataUnavailableError, FileNotFoundError):
    """A user-supplied data file (one no package ships) is not where it was said to be.

    Also a :class:`FileNotFoundError`, so ``except FileNotFoundError`` catches it.
    """


class DataFormatError(ValueError):
    """A data file was found but does not have the expected format (e.g. missing columns)."""

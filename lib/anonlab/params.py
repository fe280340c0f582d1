"""Deprecated alias of :mod:`anonlab.validation` (kept for old notebooks; use ``anonlab.validation``)."""

from .validation import *  # noqa: F401,F403
from .validation import ParameterError  # noqa: F401

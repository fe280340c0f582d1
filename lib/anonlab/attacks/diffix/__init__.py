"""Noise-exploitation attacks on Diffix: Gadotti, Houssiau, Rocher, Livshits, de Montjoye, *When the signal is in the
noise: exploiting Diffix's sticky noise*, USENIX Security 2019 ([G19]).

Every attack queries only a :class:`anonlab.mechanisms.diffix.DiffixProxy` (which counts and logs the queries), as a
coroutine (:mod:`._common`'s ``drive``, ``drive_many``) so many victims' queries go in one batch. Re-exported here:
:mod:`.theory` (the likelihood-ratio test, its accuracy ``acc(k)``, App. A, and the cloning test's miss probability),
:mod:`.differential` (§3.1) and :mod:`.cloning` (§3.2, §5's double test, App. B's greedy variant). Experiments over
many users belong to the book machine (:mod:`anonbook.diffix_harness`).
"""

from __future__ import annotations

from . import cloning, differential, theory
from .cloning import *  # noqa: F401,F403
from .differential import *  # noqa: F401,F403
from .theory import *  # noqa: F401,F403

__all__ = [*theory.__all__, *differential.__all__, *cloning.__all__]

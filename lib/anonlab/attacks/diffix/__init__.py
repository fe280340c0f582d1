"""Noise-exploitation attacks on Diffix (Gadotti et al. 2019).

A. Gadotti, F. Houssiau, L. Rocher, B. Livshits, Y.-A. de Montjoye, *When the signal is in the noise: exploiting
Diffix's sticky noise*, USENIX Security 2019 (cited below as [G19]). Every attack talks to the data only through a
:class:`anonlab.mechanisms.diffix.DiffixProxy`, so its queries are counted and logged by the proxy.

The package has three modules, re-exported here (``from anonlab.attacks import diffix as atk``;
``atk.cloning_attack``):

:mod:`.theory`
    The likelihood-ratio test of the differential attack and its accuracy ``acc(k)`` (App. A: exact by Imhof's method,
    Monte Carlo, with rounded outputs) and the cloning test's miss probability: formulas and simulations, no proxy.
:mod:`.differential`
    The differential attack (§3.1): DifferentialAttack for one or many victims, the uniqueness oracle and
    FullDifferentialAttack with its subset exploration.
:mod:`.cloning`
    The cloning attack (§3.2): the queries of Eqs. 12-13, the validation tests ValueUnique and NoBucketSuppression,
    FullCloningAttack (with the double test of §5) and the greedy variant of App. B.

The experiments over many users, their worker pools and the chapters' result cache are the book machine's
(:mod:`anonbook.diffix_harness`).

Attacks are written as coroutines (:mod:`._common`: ``drive``, ``drive_many``) so that many victims' queries go to the
proxy in one batch.
"""

from __future__ import annotations

from . import cloning, differential, theory
from .cloning import *  # noqa: F401,F403
from .differential import *  # noqa: F401,F403
from .theory import *  # noqa: F401,F403

__all__ = [*theory.__all__, *differential.__all__, *cloning.__all__]

"""Named random streams: every independent random stream of the book is ``stream(seed, name, *index)``.

A stream is ``numpy.random.default_rng(SeedSequence([seed, *key, *index]))``: the run's ``seed``, the stream's key
from :data:`STREAMS` and, where one stream is drawn per item (per target, per k, per repetition), the item's index.
Streams with different names never share draws, and a draw does not depend on which other streams a run uses.

The keys in :data:`STREAMS` are the ones the published runs were drawn with (so their numbers stay the same); a name
not listed takes a key derived from the name itself (:func:`name_key`), so a new stream needs no number.

A few streams are not ``SeedSequence`` keys but integer seeds handed on to a function that takes ``seed``:
:func:`legacy_seed` gives them by name, from :data:`LEGACY_OFFSETS`, the offsets the published runs were drawn with.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["STREAMS", "LEGACY_OFFSETS", "stream", "stream_seed", "name_key", "legacy_seed"]

#: Name -> the stream's key (the published runs' keys).
STREAMS: dict[str, tuple[int, ...]] = {
    "netflix.target_aux": (),             # one per target: (seed, target)
    "diffix.victim_subsets": (),          # one per victim of full_attack_shared_sets: (seed, i)
    "diffix.complete_k": (),              # the Complete_k data set of one k: (seed, k)
    "diffix.random_guess": (7,),          # guesses for users without one (differential experiments)
    "diffix.sample_moments_users": (11,),
    "diffix.filtered_moments_users": (5,),
    "diffix.theory_monte_carlo": (1,),    # per k: (seed, 1, i)
    "diffix.theory_rounding": (2,),       # per k: (seed, 2, i)
    "diffix.theory_filtered": (3,),       # per k: (seed, 3, i)
    "diffix.error_probabilities": (99,),  # per k
    "diffix.query_count_bootstrap": (62,),
    "diffix.dinur_nissim": (66,),         # per (exponent, draw)
}

#: Name -> the integer offset from the run's seed (the offsets the published runs were drawn with).
LEGACY_OFFSETS: dict[str, int] = {
    "naive_bayes.target": 0,         # one per target, in order: seed + i
    "definetti.more_moves": 1,       # Fig. 4's check with more moves per iteration
    "membership.shokri_target": 0,   # Shokri's attack models of target model t: seed + t
    "diffix.user_runs": 1,           # the harness's per-user attack runs (differential and cloning)
    "cormode.definetti_target_naive": 99,  # chapter 2's naive attack on the deFinetti target
}


def legacy_seed(seed: int, name: str, index: int = 0) -> int:
    """The integer seed of stream ``name`` (item ``index``) of run ``seed``: ``seed + LEGACY_OFFSETS[name] + index``.

    >>> legacy_seed(7, "naive_bayes.target", 2), legacy_seed(7, "definetti.more_moves")
    (9, 8)
    """
    return int(seed) + LEGACY_OFFSETS[name] + int(index)


def name_key(name: str) -> tuple[int]:
    """The key of a stream not in :data:`STREAMS`: the first 8 bytes of the SHA-256 of its name.

    >>> name_key("example") == name_key("example") != name_key("other")
    True
    """
    return (int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little"),)


def stream_seed(seed: int, name: str, *index: int) -> np.random.SeedSequence:
    """The :class:`numpy.random.SeedSequence` of stream ``name`` (item ``index``) of run ``seed``."""
    key = STREAMS[name] if name in STREAMS else name_key(name)
    return np.random.SeedSequence([int(seed), *key, *(int(i) for i in index)])


def stream(seed: int, name: str, *index: int) -> np.random.Generator:
    """A generator for stream ``name`` (item ``index``) of run ``seed``.

    >>> bool(stream(0, "diffix.random_guess").integers(10**9) == np.random.default_rng([0, 7]).integers(10**9))
    True
    """
    return np.random.default_rng(stream_seed(seed, name, *index))

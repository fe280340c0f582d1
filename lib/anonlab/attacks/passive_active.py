"""The attacker of Example 7 on the book's yardstick: guessing a voter's vote from the (thresholded) tally.

Desfontaines (2020), §3.1.3: a privacy loss of ±∞ rules one vote out, so the attack predicts exactly then and abstains
otherwise; :func:`anonlab.measures.score` gives coverage (how often it is certain) and precision (always 1), against
the base-rate majority guess.

>>> from anonlab.mechanisms.thresholding import thresholded_tally
>>> r = certain_vote_attack(thresholded_tally(100), 1000, 1e-4, 100, 2000, seed=0, known_yes=100)
>>> from anonlab.measures import score
>>> s = score(r)
>>> s.precision, round(s.coverage, 2)  # (1 - p)^899 = 0.914 in expectation
(1.0, 0.92)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..measures.protocol import AttackResult, majority_baseline
from ..mechanisms.thresholding import CountingMechanism, thresholded_tally, privacy_loss_of_outputs, sample_outputs
from ..validation import check_int, check_number, check_random_state

__all__ = ["certain_vote_attack", "certain_vote_attacks", "VOTES"]

VOTES = ("No", "Yes")


def certain_vote_attack(mech: CountingMechanism, n_voters: int, p: float, known: int, n_targets: int,
                        seed: int | np.random.Generator | None = None, known_yes: int | None = None,
                        name: str | None = None) -> AttackResult:
    """Simulate ``n_targets`` independent referendums and guess each target's vote when the output settles it.

    Every referendum draws the target's vote (Yes with probability ``p``), the attacker's known votes (drawn from the
    data for a passive attacker, ``known_yes=None``; fixed Yes count for an active one) and the others' votes, runs
    ``mech`` and computes the exact privacy loss :math:`L = \\ln P(O \\mid \\text{Yes}) / P(O \\mid \\text{No})`. The
    attack predicts Yes when :math:`L = +\\infty`, No when :math:`L = -\\infty`, and abstains otherwise.
    ``confidence`` is the absolute posterior log-odds :math:`|L + \\ln(p / (1 - p))|`.
    """
    n = check_int("n_voters", n_voters, low=1)
    k = check_int("known", known, low=0, high=n - 1)
    size = check_int("n_targets", n_targets, low=1, high=50_000_000)
    check_number("p", p, low=0, high=1, low_inclusive=False, high_inclusive=False)
    rng = check_random_state(seed)
    yes = rng.random(size) < p
    b = np.empty(size, dtype=np.int64)
    out = np.empty(size, dtype=np.int64)
    for t in (0, 1):
        idx = np.flatnonzero(yes == bool(t))
        if len(idx):
            b[idx], out[idx] = sample_outputs(mech, n, p, k, t, len(idx), rng, known_yes)
    loss = privacy_loss_of_outputs(mech, n - 1 - k, p, b, out, target=1)
    certain = np.isinf(loss)
    truth = np.where(yes, VOTES[1], VOTES[0]).astype(object)
    prediction = np.where(loss > 0, VOTES[1], VOTES[0]).astype(object)
    who = "passive" if known_yes is None else f"active ({known_yes} of {k} known votes Yes)"
    return AttackResult.from_predictions(
        name or f"certain vote, {mech.label}, {who}, p={p:g}", truth, prediction,
        predicted=certain, confidence=np.abs(loss + np.log(p / (1 - p))),
        resources={"aux_records": k, "controlled_records": 0 if known_yes is None else k})


def certain_vote_attacks(n_voters: int, threshold: int, known_votes: int, p_values: Sequence[float],
                         n_targets: int, seed: int) -> dict[str, tuple[AttackResult, AttackResult]]:
    """:func:`certain_vote_attack` on the thresholded tally, passive and active (every known vote Yes), at
    each p, with the majority-guess baseline on the same targets: ``{name: (result, baseline)}``."""
    rng = np.random.default_rng(seed)
    out = {}
    for p in p_values:
        for who, b in (("passive", None), ("active", known_votes)):
            r = certain_vote_attack(thresholded_tally(threshold), n_voters, float(p), known_votes, n_targets, rng,
                                    known_yes=b, name=f"{who} attacker, p = {float(p):g}")
            out[r.attack] = (r, majority_baseline(r.truth, targets=r.targets))
    return out

"""Chapter 8: passive vs active attackers and the thresholding example (Desfontaines 2020, §3.1.3).

Declared parameters, the quick preset, the chapter's computations (sweeps
over the Yes probability, the numerical checks of Theorems 1-2 and
Propositions 25-26) and the functions that turn them into claim
measurements. The mechanisms and the privacy-loss arithmetic live in
:mod:`anonlab.mechanisms.thresholding`, :mod:`anonlab.mechanisms.queries`
and :mod:`anonlab.measures.privacy_loss`; the certain-vote attack in
:mod:`anonlab.attacks.passive_active`; the figures in
:mod:`anonbook.figures.passive_active`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonlab.claims import Measurement, claim
from anonlab.measures.privacy_loss import PartialKnowledgeDelta, mix, monte_carlo_delta, partial_knowledge_delta, \
    post_process, privacy_loss_distribution, same_privacy_loss
from anonlab.mechanisms import queries
from anonlab.mechanisms.thresholding import BOTTOM, CountingMechanism, conditional_distributions, dp_delta, exact_tally, \
    tally_loss_samples, tally_partial_knowledge_delta, thresholded_tally
from anonlab.validation import Param, ParameterError, ParameterSpec
from anonbook.chapters import Chapter, Exercise
from anonbook.chapters.sentences import Sentence, compare, listing

LN10 = float(np.log(10))
MAX_VOTERS = 5000


def _cross_checks(v: Mapping[str, Any]) -> None:
    if v["threshold"] > v["n_voters"]:
        raise ParameterError(f"parameter 'threshold' must be <= n_voters ({v['n_voters']}), got {v['threshold']}")
    if v["known_votes"] > v["n_voters"] - 1:
        raise ParameterError(f"parameter 'known_votes' must be <= n_voters - 1 ({v['n_voters'] - 1}), "
                             f"got {v['known_votes']}")
    if v["referendum_known"] > v["referendum_voters"] - 1:
        raise ParameterError(f"parameter 'referendum_known' must be <= referendum_voters - 1 "
                             f"({v['referendum_voters'] - 1}), got {v['referendum_known']}")
    if v["referendum_known_yes"] > v["referendum_known"]:
        raise ParameterError(f"parameter 'referendum_known_yes' must be <= referendum_known "
                             f"({v['referendum_known']}), got {v['referendum_known_yes']}")


CHAPTER = Chapter(
    name="08_passive_active",
    title="Passive and active attackers: what a threshold protects",
    parameters=ParameterSpec([
        Param("n_voters", "int", 1000, "Example 7: voters in the referendum", low=2, high=MAX_VOTERS),
        Param("threshold", "int", 100, "the tally is released only if it is above this (else ⊥), votes",
              low=0, high=MAX_VOTERS),
        Param("known_votes", "int", 100, "votes the attacker knows (passive) or controls (active)",
              low=0, high=MAX_VOTERS - 1),
        Param("p_example", "float", 0.0001, "Yes probability of the example's verdicts (lost in the thesis text)",
              low=0, high=1, low_inclusive=False, high_inclusive=False),
        Param("p_grid", "float_list", [1e-05, 0.0001, 0.001, 0.003, 0.01, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2, 0.5],
              "Yes probabilities swept", low=0, high=1, low_inclusive=False, high_inclusive=False, max_len=40),
        Param("epsilons", "float_list", [0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0],
              "ε grid of the δ(ε) curves", low=0, high=50, max_len=100),
        Param("epsilon_verdict", "float", 1.0, "ε at which 'private' and 'much larger' are judged",
              low=0, high=50),
        Param("delta_private", "float", 1e-06, "δ at or below which a release counts as private",
              low=0, high=1, low_inclusive=False, high_inclusive=False),
        Param("reveal_probability", "float", 0.5,
              "the book's stronger test (decides no verdict): the output settles the target's vote this often",
              low=0, high=1, low_inclusive=False),
        Param("noise_epsilon", "float", 1.0, "ε of the geometric noise of the noisy variants (None: skip them)",
              low=0, high=20, low_inclusive=False, nullable=True),
        Param("referendum_voters", "int", 2000, "Θ-reducibility example: voters", low=2, high=MAX_VOTERS),
        Param("referendum_known", "int", 1000, "Θ-reducibility example: votes the attacker knows",
              low=0, high=MAX_VOTERS - 1),
        Param("referendum_known_yes", "int", 500, "Θ-reducibility example: Yes among the known votes",
              low=0, high=MAX_VOTERS - 1),
        Param("referendum_p", "float", 0.5, "Θ-reducibility example: Yes probability (lost in the thesis text)",
              low=0, high=1, low_inclusive=False, high_inclusive=False),
        Param("mc_samples", "int", 200000, "Monte Carlo draws per cross-check", low=1000, high=5_000_000),
        Param("seed", "int", 0, "seed of the Monte Carlo draws", low=0),
    ], checks=[_cross_checks]),
    quick={"p_grid": [0.0001, 0.01, 0.1, 0.5], "epsilons": [0.0, 0.5, 1.0, 2.0, 4.0],
           "referendum_voters": 600, "referendum_known": 300, "referendum_known_yes": 150,
           "mc_samples": 20000},
    goals=(
        "Compute δ(ε) exactly for a passive attacker (PPKDP: averaged over what they see) and an active one "
        "(APKDP: the worst case over what they control).",
        "See how a threshold that protects against passive attackers becomes a plain count against an "
        "attacker who adds records.",
        "Check theorems numerically, in log space, and read how a verdict moves with a number the paper lost.",
    ),
    assumes=("differential privacy's ε and δ and the binomial distribution; the privacy loss random variable "
             "is introduced here."),
    exercises=(
        Exercise(
            "fewer_known",
            {"known_votes": 50},
            {"ex_worst_known_yes": "the active attacker's best number of Yes votes",
             "ex_settled_active": "Pr[the output settles the vote], active attacker",
             "ex_delta_active": "active δ at ε_verdict",
             "ex7_defeats_at_p": "'the active attacker defeats the threshold' at p_example"},
        ),
        Exercise(
            "larger_p",
            {"p_example": 0.01},
            {"ex7_defeats_at_p": "'the active attacker defeats the threshold'",
             "ex7_private_at_p": "'private against a passive attacker'",
             "ex7_gap_at_p": "'the active δ is much larger'",
             "ex_delta_active": "active δ at ε_verdict",
             "ex_settled_active": "Pr[the output settles the vote], active attacker"},
        ),
        Exercise(
            "more_noise",
            {"noise_epsilon": 0.1},
            {"nc_first_zero": "noisy count: first ε with δ = 0 for both",
             "nt_first_zero": "noisy threshold: first ε with δ = 0 for both",
             "nc_delta_active": "noisy count: active δ at the smallest ε",
             "nt_delta_active": "noisy threshold: active δ at the smallest ε"},
        ),
        Exercise(
            "no_threshold",
            {"threshold": 0},
            {"ex_gap_orders": "orders of magnitude between active and passive δ",
             "ex_log10_delta_passive": "log10 of the passive δ",
             "ex_delta_active": "active δ at ε_verdict"},
        ),
        Exercise(
            "referendum_p",
            {"referendum_known_yes": 0, "referendum_p": 0.05},
            {"ref_same_plrv": "known Yes counts probed with the same loss distribution",
             "ref_log10_delta_eps0": "log10 δ at the smallest ε (passive = active)"},
        ),
    ),
)


def log10(x: np.ndarray | float) -> np.ndarray | float:
    """Natural log to log10 (δ is kept as natural logs; ``-inf`` stays ``-inf``)."""
    return np.asarray(x) / LN10 if np.ndim(x) else float(x) / LN10


def epsilon_grid(epsilons: Sequence[float], epsilon_verdict: float) -> np.ndarray:
    """The ε grid of every computation: ``epsilons`` and ``epsilon_verdict``, sorted, without repeats."""
    return np.unique(np.append(np.asarray(epsilons, float), epsilon_verdict))


def _at(pkd: PartialKnowledgeDelta, epsilon: float) -> int:
    hit = np.flatnonzero(np.isclose(pkd.epsilons, epsilon))
    if not len(hit):
        raise KeyError(f"epsilon {epsilon} is not on the grid")
    return int(hit[0])


def mechanisms(threshold: int, noise_epsilon: float | None) -> dict[str, CountingMechanism]:
    """The chapter's mechanisms: exact and thresholded tally, and with noise the two noisy variants."""
    out = {"exact tally": exact_tally(), "thresholded tally": thresholded_tally(threshold)}
    if noise_epsilon is not None:
        out["noisy count, thresholded"] = thresholded_tally(threshold, noise_epsilon, "count")
        out["noisy threshold (Diffix-like)"] = thresholded_tally(threshold, noise_epsilon, "threshold")
    return out


def example7_sweep(n_voters: int, threshold: int, known_votes: int, p_values: Sequence[float],
                   epsilons: Sequence[float], noise_epsilon: float | None = None
                   ) -> dict[tuple[str, float], PartialKnowledgeDelta]:
    """Passive and active δ(ε) of every mechanism of :func:`mechanisms` at every p, exactly."""
    out = {}
    for name, mech in mechanisms(threshold, noise_epsilon).items():
        for p in p_values:
            out[name, float(p)] = tally_partial_knowledge_delta(mech, n_voters, float(p), known_votes, epsilons)
    return out


MIN_GAP_ORDERS = 3.0
"""'Much larger' (Theorem 1's discussion): the active δ exceeds the passive one by this many orders of magnitude."""


def sweep_table(sweep: Mapping[tuple[str, float], PartialKnowledgeDelta], epsilon_verdict: float,
                delta_private: float, reveal_probability: float,
                min_gap_orders: float = MIN_GAP_ORDERS) -> pd.DataFrame:
    """One row per (mechanism, p): passive and active δ at ε_verdict, Pr[output settles the vote], verdicts.

    ``passive_private``: δ_P(ε_verdict) ≤ ``delta_private``; ``active_private``:
    the same bar for δ_A; ``active_learns`` (the book's stronger test, not the
    thesis's): the worst-case partial knowledge makes the output settle the
    target's vote (privacy loss +∞) with probability at least
    ``reveal_probability``; ``threshold_protects``: private for the passive
    attacker while the exact tally at the same p is not; ``much_larger``: δ_A
    exceeds δ_P by at least ``min_gap_orders`` orders of magnitude.
    """
    rows = []
    for (name, p), r in sweep.items():
        i = _at(r, epsilon_verdict)
        rows.append({
            "mechanism": name, "p": p,
            "log10_delta_passive": float(log10(r.log_passive[i])),
            "log10_delta_active": float(log10(r.log_active[i])),
            "delta_active": float(np.exp(r.log_active[i])),
            "settled_active": float(np.exp(r.log_active_infinite)),
            "log10_settled_passive": float(log10(r.log_passive_infinite)),
            "worst_known_yes": r.worst_background(i),
        })
    df = pd.DataFrame(rows)
    df["passive_private"] = df["log10_delta_passive"] <= np.log10(delta_private)
    df["active_private"] = df["log10_delta_active"] <= np.log10(delta_private)
    df["active_learns"] = df["settled_active"] >= reveal_probability
    df["gap_orders"] = df["log10_delta_active"] - df["log10_delta_passive"]
    df["much_larger"] = df["gap_orders"] >= min_gap_orders
    exact = df[df.mechanism == "exact tally"].set_index("p")["passive_private"]
    df["threshold_protects"] = df["passive_private"] & ~df["p"].map(exact).fillna(True).astype(bool)
    return df


def _p_range(table: pd.DataFrame, column: str) -> str:
    ps = table.loc[table[column], "p"].sort_values()
    return "none of the p swept" if ps.empty else f"p in {{{', '.join(f'{v:g}' for v in ps)}}}"


#: The prose's sets of swept Yes probabilities: glue key -> the column of :func:`example7_table` that selects them.
P_SETS = {"p_learns": "active_learns", "p_protects": "threshold_protects", "p_defeats": "defeats",
          "p_pointless": "same_as_count", "p_passive_private": "passive_private", "p_gap": "much_larger"}


def p_set_sentences(thr: pd.DataFrame) -> list[Sentence]:
    """The prose's sets of Yes probabilities (:data:`P_SETS`, and ``p_contrast``: private *and* much larger),
    each ``p = 1e-05, 0.0001`` or, when no swept p qualifies, ``no p of the swept grid`` (never ``p = none``).

    ``thr`` is :func:`example7_table` with ``p`` as a column.
    """
    masks = {key: thr[column].astype(bool) for key, column in P_SETS.items()}
    masks["p_contrast"] = thr["much_larger"].astype(bool) & thr["passive_private"].astype(bool)
    return [listing(key, sorted(float(v) for v in thr.loc[mask, "p"]), some="p = {items}",
                    none="no p of the swept grid") for key, mask in masks.items()]


def active_bar_sentence(thr: pd.DataFrame, readings: Mapping[str, float], epsilon_verdict: float,
                        delta_private: float) -> Sentence:
    """Whether the active δ at ε_verdict is above the privacy bar at every reading of "very small" p, in words.

    The smallest active δ over the ledger's readings against ``delta_private``: "at least ..., above the
    privacy bar" only when it is above (with fewer known votes than the threshold it can be far below).
    """
    lowest = float(thr.set_index("p").loc[[float(p) for p in readings.values()], "delta_active"].min())
    return compare("active_bar", lowest, delta_private, {
        "above": (f'at every reading of "very small" the active δ at ε = {epsilon_verdict:g} is at least '
                  "{left:.3g}, above the privacy bar δ = {right:g} that the passive attacker is held to"),
        "at or below": (f'the active δ at ε = {epsilon_verdict:g} is not above the privacy bar δ = {{right:g}} '
                        'that the passive attacker is held to at every reading of "very small": at one of them '
                        "it is {left:.3g}, at or below the bar"),
    })


EX7_CLAIMS = ("desfontaines.ex7.active_defeats_threshold", "desfontaines.ex7.passive_private",
              "desfontaines.ex7.active_gap")
"""The three claims of Example 7, whose verdicts depend on the Yes probability p the text lost."""


def p_readings(claim_id: str = EX7_CLAIMS[0]) -> dict[str, float]:
    """The readings of the lost Yes probability the ledger lists (its ``choices``): ``{label: p}``.

    Labels are ``"p = <value>"``; the ledger is the one place they are written.

    >>> p_readings()
    {'p = 1e-05': 1e-05, 'p = 0.0001': 0.0001, 'p = 0.001': 0.001, 'p = 0.01': 0.01}
    """
    out = {}
    for label in claim(claim_id).alternatives():
        key, _, value = label.partition("=")
        if key.strip() != "p" or not value.strip():
            raise ValueError(f"claim {claim_id}: a reading of p must read 'p = <value>', got {label!r}")
        out[label] = float(value)
    return out


def paper_settings() -> dict[str, Any]:
    """The thesis's settings from the ledger (Example 7 and the referendum), under the prose's glue keys."""
    ex7, ref = claim(EX7_CLAIMS[0]).params, claim("desfontaines.referendum2000.passive_equals_active").params
    return {"paper_voters": ex7["voters"], "paper_threshold": ex7["release_if_count_above"],
            "paper_known": ex7["known_votes"], "paper_ref_voters": ref["voters"],
            "paper_ref_known": ref["known_votes"], "paper_ref_known_yes": ref["known_yes"]}


def example7_table(sweep: Mapping[tuple[str, float], PartialKnowledgeDelta], epsilon_verdict: float,
                   delta_private: float, reveal_probability: float,
                   min_gap_orders: float = MIN_GAP_ORDERS) -> pd.DataFrame:
    """The thresholded tally's rows of :func:`sweep_table`, indexed by p, with Example 7's three statements.

    ``defeats`` (``active_defeats_threshold``, the thesis's claim: the fake
    votes make "the thresholding pointless" and leave "a simple counting query
    which does not provide privacy"): the thresholded tally's active δ(ε)
    equals the plain count's on the whole grid (``same_as_count``) and is above
    the chapter's privacy bar at ε_verdict (δ_A > ``delta_private``);
    ``settles``: the book's own stronger test, shown beside it and deciding
    nothing: ``defeats`` and the output settles the target's vote with
    probability ≥ ``reveal_probability``; ``passive_private``:
    δ_P(ε_verdict) ≤ ``delta_private``; ``much_larger`` (``active_gap``):
    δ_A(ε_verdict) exceeds δ_P(ε_verdict) by at least ``min_gap_orders``
    orders of magnitude.
    """
    table = sweep_table(sweep, epsilon_verdict, delta_private, reveal_probability, min_gap_orders)
    thr = table[table.mechanism == "thresholded tally"].set_index("p")
    same = pd.Series([bool(np.allclose(np.exp(sweep["thresholded tally", p].log_active),
                                       np.exp(sweep["exact tally", p].log_active), atol=1e-12, rtol=1e-9))
                      for p in thr.index], index=thr.index)
    defeats = same & ~thr.active_private
    return thr.assign(same_as_count=same, defeats=defeats, settles=defeats & thr.active_learns)


def example7_at(thr: pd.DataFrame, p: float) -> dict[str, bool]:
    """Example 7's three statements at one Yes probability ``p`` of :func:`example7_table`: ``{claim id: holds}``."""
    if float(p) not in thr.index:
        raise KeyError(f"p = {p:g} is not in the sweep: add it to the p values computed")
    row = thr.loc[float(p)]
    return dict(zip(EX7_CLAIMS, (bool(row.defeats), bool(row.passive_private), bool(row.much_larger))))


def measure_example7(sweep: Mapping[tuple[str, float], PartialKnowledgeDelta], p_example: float,
                     known_votes: int, threshold: int, epsilon_verdict: float, delta_private: float,
                     reveal_probability: float, min_gap_orders: float = MIN_GAP_ORDERS,
                     readings: Mapping[str, float] | None = None) -> dict[str, Measurement]:
    """The three claims of Example 7 (:func:`example7_table`) at ``p_example``, with the p range where each holds.

    ``readings`` (``{label: p}``, e.g. :func:`p_readings`) are the values of
    the lost Yes probability the ledger lists as alternatives: each claim is
    then also measured under each, and its verdict is computed over them.
    """
    thr = example7_table(sweep, epsilon_verdict, delta_private, reveal_probability, min_gap_orders)
    row, at = thr.loc[float(p_example)], example7_at(thr, p_example)
    by_reading = {label: example7_at(thr, p) for label, p in (readings or {}).items()}
    alts = {c: ({label: v[c] for label, v in by_reading.items()} or None) for c in EX7_CLAIMS}
    thr = thr.reset_index()
    return {
        EX7_CLAIMS[0]: Measurement(
            at[EX7_CLAIMS[0]], alternatives=alts[EX7_CLAIMS[0]],
            note=(f"p={p_example:g}: worst case {int(row.worst_known_yes)} of {known_votes} known votes Yes; "
                  f"thresholded δ_A(ε) {'equals' if row.same_as_count else 'differs from'} the plain count's on "
                  f"the ε grid; δ_A(ε={epsilon_verdict:g}) = {row.delta_active:.3g} (privacy bar "
                  f"{delta_private:g}). Holds for {_p_range(thr, 'defeats')}"
                  + ("" if known_votes >= threshold else
                     f"; the attacker controls fewer votes ({known_votes}) than the threshold ({threshold})")
                  + f". The book's stronger test, not the thesis's (the output settles the vote with probability "
                    f"≥ {reveal_probability:g}): {row.settled_active:.3f} here, passed for "
                    f"{_p_range(thr, 'settles')}")),
        EX7_CLAIMS[1]: Measurement(
            at[EX7_CLAIMS[1]], alternatives=alts[EX7_CLAIMS[1]],
            note=(f"p={p_example:g}: δ_P(ε={epsilon_verdict:g}) = 10^{row.log10_delta_passive:.1f} "
                  f"(bar {delta_private:g}). Holds for {_p_range(thr, 'passive_private')}; the exact tally is not "
                  f"private (so the threshold is what protects) for {_p_range(thr, 'threshold_protects')}")),
        EX7_CLAIMS[2]: Measurement(
            at[EX7_CLAIMS[2]], alternatives=alts[EX7_CLAIMS[2]],
            note=(f"p={p_example:g}: δ_A/δ_P at ε={epsilon_verdict:g} is 10^{row.gap_orders:.1f} "
                  f"(bar: {min_gap_orders:g} orders of magnitude). Holds for {_p_range(thr, 'much_larger')}")),
    }


def readings_detail(table: pd.DataFrame, readings: Mapping[str, float]) -> pd.DataFrame:
    """What each reading of p measures (thresholded tally, from :func:`sweep_table`): one row per reading.

    Columns: ``p``, the active δ at ε_verdict (the thesis's claim: above the
    privacy bar), log10 of the passive δ at ε_verdict, the active/passive gap
    in orders of magnitude, and the probability that the output settles the
    target's vote for the active attacker (the book's stronger test).
    """
    thr = table[table.mechanism == "thresholded tally"].set_index("p")
    rows = {label: {"p": float(p), **{c: float(thr.loc[float(p), c]) for c in
                                      ("delta_active", "log10_delta_passive", "gap_orders", "settled_active")}}
            for label, p in readings.items()}
    return pd.DataFrame.from_dict(rows, orient="index")


def first_zero_epsilon(r: PartialKnowledgeDelta) -> str:
    """The smallest ε of the grid from which both attackers' δ is exactly 0, as text (``"never on the grid"``).

    >>> inf = float("inf")
    >>> by_b = np.array([[[-0.7, -inf, -inf]], [[-1.6, -2.3, -inf]]])  # (direction, background, ε)
    >>> r = PartialKnowledgeDelta(np.array([0.0, 1.0, 2.0]), np.array([0]), np.array([0.0]), by_b,
    ...                           np.full((2, 1), -inf))
    >>> first_zero_epsilon(r)
    '2'
    """
    zero = np.isneginf(r.log_passive) & np.isneginf(r.log_active)
    tail = np.flip(np.logical_and.accumulate(np.flip(zero)))  # zero here and at every larger ε
    return f"{float(r.epsilons[np.argmax(tail)]):g}" if tail.any() else "never on the grid"


def monte_carlo_checks(n_voters: int, threshold: int, known_votes: int, p_values: Sequence[float],
                       epsilons: Sequence[float], n_samples: int, seed: int,
                       noise_epsilon: float | None = None,
                       sweep: Mapping[tuple[str, float], PartialKnowledgeDelta] | None = None) -> pd.DataFrame:
    """Monte Carlo estimates of δ(ε) (direction Yes vs No) beside the exact values, with 95 % intervals.

    For every mechanism and p: the passive attacker (known votes drawn from
    the data) and the active one (the worst-case known Yes count at the
    first ε), each from ``n_samples`` simulated runs. ``sweep``: the exact
    results of :func:`example7_sweep` for the same setting, reused instead of
    recomputed where they cover (mechanism, p) on the same ε grid.
    """
    rng = np.random.default_rng(seed)
    eps = np.asarray(epsilons, float)
    rows = []
    for name, mech in mechanisms(threshold, noise_epsilon).items():
        for p in p_values:
            exact = (sweep or {}).get((name, float(p)))
            if exact is None or not np.array_equal(exact.epsilons, eps):
                exact = tally_partial_knowledge_delta(mech, n_voters, float(p), known_votes, epsilons)
            worst = int(exact.backgrounds[np.argmax(exact.log_delta_by_background[0, :, 0])])
            for who, b, ex in (("passive", None, exact.log_passive_by_direction[0]),
                               ("active", worst, exact.log_delta_by_background[0, worst])):
                loss = tally_loss_samples(mech, n_voters, float(p), known_votes, 1, n_samples, rng, known_yes=b)
                mc = monte_carlo_delta(loss, epsilons)
                t = mc.table(np.exp(ex)).assign(mechanism=name, p=float(p), attacker=who)
                rows.append(t)
    return pd.concat(rows, ignore_index=True)


def theorem1_table(sweep: Mapping[tuple[str, float], PartialKnowledgeDelta]) -> pd.DataFrame:
    """Theorem 1 on every (mechanism, p, ε, direction): δ_P ≤ δ_A, and δ_P = 0 ⇔ δ_A = 0.

    Also counts the cases where a linear-space computation of δ_P (float64)
    would underflow to 0 while δ_A > 0, which would wrongly contradict the
    equivalence at δ = 0.
    """
    rows = []
    for (name, p), r in sweep.items():
        lp, la = r.log_passive_by_direction, r.log_active_by_direction
        finite = np.isfinite(lp)
        with np.errstate(invalid="ignore"):
            excess = np.where(finite, lp - la, -np.inf)
        rows.append({
            "mechanism": name, "p": p, "cases": int(lp.size),
            "implication_holds": bool((excess <= 1e-9).all()),
            "max_log10_excess": float(log10(excess.max())) if np.isfinite(excess.max()) else -np.inf,
            "zero_both": int((np.isneginf(lp) & np.isneginf(la)).sum()),
            "zero_passive_only": int((np.isneginf(lp) & ~np.isneginf(la)).sum()),
            "zero_active_only": int((~np.isneginf(lp) & np.isneginf(la)).sum()),
            "float64_underflow": int(((np.exp(lp) == 0) & np.isfinite(lp) & np.isfinite(la)).sum()),
            "min_log10_delta_passive": float(log10(lp[finite].min())) if finite.any() else np.nan,
        })
    df = pd.DataFrame(rows)
    df["equivalent_at_zero"] = (df.zero_passive_only == 0) & (df.zero_active_only == 0)
    return df


def full_knowledge_table(n_voters: int, threshold: int, p: float, epsilons: Sequence[float],
                         noise_epsilon: float | None = None) -> pd.DataFrame:
    """APKDP with every other vote known (k = n − 1) against plain DP computed on neighbouring datasets.

    With k = n − 1 nothing is random but the noise, so p only weighs the
    passive average; ``n_voters`` sets how many neighbouring pairs are compared.
    """
    rows = []
    eps = np.asarray(epsilons, float)
    for name, mech in mechanisms(threshold, noise_epsilon).items():
        r = tally_partial_knowledge_delta(mech, n_voters, p, n_voters - 1, eps)
        dp = dp_delta(mech, n_voters, eps)
        for e, a, pp, d in zip(eps, np.exp(r.log_active), np.exp(r.log_passive), dp):
            rows.append({"mechanism": name, "epsilon": float(e), "delta_apkdp": float(a),
                         "delta_ppkdp": float(pp), "delta_dp": float(d)})
    df = pd.DataFrame(rows)
    df["equal"] = np.isclose(df.delta_apkdp, df.delta_dp, atol=1e-12, rtol=1e-9)
    return df


def _coarsen(width: int):
    def f(labels: np.ndarray) -> np.ndarray:
        return np.where(labels == BOTTOM, BOTTOM, (labels // width) * width)
    return f


def axioms_table(sweep: Mapping[tuple[str, float], PartialKnowledgeDelta], n_voters: int, threshold: int,
                 known_votes: int, p_values: Sequence[float], weight: float = 0.5,
                 width: int = 10) -> pd.DataFrame:
    """Proposition 25 numerically, for passive and active attackers.

    Post-processing: the thresholded tally rounded down to a multiple of
    ``width`` has δ no larger than the tally's. Convexity: running the
    thresholded tally with probability ``weight`` and the exact tally
    otherwise has δ ≤ weight·δ₁ + (1 − weight)·δ₂ (joint convexity of the
    hockey-stick divergence; this implies the axiom).
    """
    from scipy import stats  # here, not at import: scipy.stats costs ~0.7 s of a kernel's start

    rows = []
    m = n_voters - 1 - known_votes
    thr, ex = thresholded_tally(threshold), exact_tally()
    bs = np.arange(known_votes + 1)
    f = _coarsen(width)
    for p in p_values:
        p = float(p)
        lbg = stats.binom.logpmf(bs, known_votes, p)

        thr_by_b = {int(b): conditional_distributions(thr, m, p, int(b)) for b in bs}  # shared by both axioms

        def coarse(b: int) -> tuple[np.ndarray, np.ndarray]:
            d = thr_by_b[b]
            return tuple(post_process(d.labels, lp, f)[1] for lp in d.log_prob)

        def mixed(b: int) -> tuple[np.ndarray, np.ndarray]:
            d1, d2 = thr_by_b[b], conditional_distributions(ex, m, p, b)
            return tuple(mix(d1.labels, d1.log_prob[t], d2.labels, d2.log_prob[t], weight)[1] for t in (0, 1))

        base, other = sweep["thresholded tally", p], sweep["exact tally", p]
        epsilons = base.epsilons
        pp = partial_knowledge_delta(coarse, bs, lbg, epsilons)
        mx = partial_knowledge_delta(mixed, bs, lbg, epsilons)
        for who in ("passive", "active"):
            lb, lo, lpp, lmx = (getattr(r, f"log_{who}") for r in (base, other, pp, mx))
            bound = np.logaddexp(np.log(weight) + lb, np.log(1 - weight) + lo)
            rows.append({"p": p, "attacker": who, "axiom": "post-processing",
                         "holds": bool((lpp <= lb + 1e-9).all())})
            rows.append({"p": p, "attacker": who, "axiom": "convexity",
                         "holds": bool((lmx <= bound + 1e-9).all())})
    return pd.DataFrame(rows)


def referendum(n_voters: int, known: int, known_yes: int, p: float, epsilons: Sequence[float]
               ) -> tuple[PartialKnowledgeDelta, pd.DataFrame]:
    """The exact tally of the 2,000-voter referendum: δ_b(ε) for every known Yes count b.

    Returns the passive/active result and a table comparing the PLRV at
    ``known_yes`` with the PLRV at every other b (Θ-reducibility).
    """
    r = tally_partial_knowledge_delta(exact_tally(), n_voters, p, known, epsilons)
    m = n_voters - 1 - known

    def pld(b: int):
        d = conditional_distributions(exact_tally(), m, p, b)
        return privacy_loss_distribution(d.log_prob[1], d.log_prob[0])

    ref = pld(known_yes)
    probe = sorted({0, known // 4, known_yes, known // 2, known})
    rows = [{"known_yes": b, "same_plrv_as_reference": same_privacy_loss(ref, pld(b)),
             "log10_delta_first_eps": float(log10(r.log_delta_by_background[:, b, 0].max()))} for b in probe]
    return r, pd.DataFrame(rows)


def reducibility(epsilons: Sequence[float], seed: int = 0) -> pd.DataFrame:
    """Proposition 26 by brute force: counting, linear queries and the four means; the thresholded count.

    Binary records (p = 0.3) for count, linear query (weights drawn from
    ``seed``) and thresholded count (released if > 3): 10 records, 3 known.
    Records in {1, 2, 4} with probabilities (0.5, 0.3, 0.2) for the means: 9
    records, 2 known, target 4 against 1.
    """
    w = np.random.default_rng(seed).uniform(0.5, 2.0, 10)
    binary = [("count", "count", [0, 1], [0.7, 0.3]),
              ("linear query", queries.query_function("linear", w), [0, 1], [0.7, 0.3]),
              ("thresholded count (> 3)", queries.query_function("thresholded_count", threshold=3),
               [0, 1], [0.7, 0.3])]
    means = [(k.replace("_", " "), k, [1, 2, 4], [0.5, 0.3, 0.2])
             for k in ("arithmetic_mean", "geometric_mean", "harmonic_mean", "quadratic_mean")]
    a = queries.reducibility_table(binary, 10, 3, (1, 0), epsilons)
    b = queries.reducibility_table(means, 9, 2, (4, 1), epsilons)
    return pd.concat([a, b], ignore_index=True)


def remark2_table(sweep: Mapping[tuple[str, float], PartialKnowledgeDelta], n_voters: int, threshold: int,
                  known_votes: int) -> pd.DataFrame:
    """Remark 2: k known votes of n against no knowledge of n − k votes, exact vs thresholded tally."""
    rows = []
    for name, mech in (("exact tally", exact_tally()), ("thresholded tally", thresholded_tally(threshold))):
        for p in sorted(p for (nm, p) in sweep if nm == name):
            with_k = sweep[name, p]
            without = tally_partial_knowledge_delta(mech, n_voters - known_votes, p, 0, with_k.epsilons)
            for who in ("passive", "active"):
                a, b = getattr(with_k, f"log_{who}"), getattr(without, f"log_{who}")
                same = bool(np.allclose(np.exp(a), np.exp(b), atol=1e-12, rtol=1e-9)
                            and np.array_equal(np.isneginf(a), np.isneginf(b))
                            and np.allclose(np.where(np.isfinite(a), a, 0), np.where(np.isfinite(b), b, 0),
                                            atol=1e-6))
                rows.append({"mechanism": name, "p": p, "attacker": who, "same_as_smaller_database": same})
    return pd.DataFrame(rows)


def measure_theorem1(theorem1: pd.DataFrame, full_knowledge: pd.DataFrame) -> dict[str, Measurement]:
    """Theorem 1 (both parts) and 'APKDP = DP with full knowledge', from the tables above."""
    n_cases = int(theorem1.cases.sum())
    zero = int(theorem1.zero_both.sum())
    under = int(theorem1.float64_underflow.sum())
    return {
        "desfontaines.thm1.apkdp_implies_ppkdp": Measurement(
            bool(theorem1.implication_holds.all()), n=n_cases,
            note=f"δ_P ≤ δ_A in {int(theorem1.implication_holds.sum())} of {len(theorem1)} (mechanism, p) sweeps, "
                 f"{n_cases} (ε, direction) cases"),
        "desfontaines.thm1.equivalent_delta0": Measurement(
            bool(theorem1.equivalent_at_zero.all()), n=n_cases,
            note=f"δ_P = 0 exactly when δ_A = 0 in every case ({zero} cases with both 0); computed in log "
                 f"space: in float64, {under} passive δ values would underflow to 0 while δ_A > 0"),
        "desfontaines.apkdp_equals_dp_full_knowledge": Measurement(
            bool(full_knowledge.equal.all()), n=len(full_knowledge),
            note=f"k = n − 1: APKDP's δ equals DP's δ (computed independently on neighbouring datasets) in "
                 f"{int(full_knowledge.equal.sum())} of {len(full_knowledge)} (mechanism, ε) cases"),
    }


def measure_axioms(axioms: pd.DataFrame) -> dict[str, Measurement]:
    """Proposition 25 from :func:`axioms_table`."""
    ok = bool(axioms.holds.all())
    return {"desfontaines.prop25.axioms": Measurement(
        ok, n=len(axioms),
        note=f"post-processing (round the tally down to tens) and convexity (thresholded/exact mixture) hold "
             f"in {int(axioms.holds.sum())} of {len(axioms)} (p, attacker, axiom) checks on the ε grid")}


def measure_reducibility(referendum_result: PartialKnowledgeDelta, referendum_table: pd.DataFrame,
                         sweep: Mapping[tuple[str, float], PartialKnowledgeDelta], reducible: pd.DataFrame,
                         remark2: pd.DataFrame) -> dict[str, Measurement]:
    """Theorem 2, Proposition 26, Remark 2 and the 2,000-voter referendum.

    * referendum: δ_P(ε) = δ_A(ε) on the whole grid and the PLRV is the same
      for every known Yes count probed;
    * Theorem 2: δ_P = δ_A for every Θ-reducible mechanism computed (the
      exact tally at every p of the sweep, the referendum, and the brute-force
      queries that are reducible);
    * Proposition 26: count, linear query and the four means are reducible;
    * Remark 2: k known of n equals no knowledge of n − k for the exact tally
      and not for the thresholded one; and the thresholded count is not reducible.
    """
    def equal(r: PartialKnowledgeDelta) -> bool:
        a, b = r.log_passive, r.log_active
        return bool(np.array_equal(np.isneginf(a), np.isneginf(b))
                    and np.allclose(np.where(np.isfinite(a), a, 0), np.where(np.isfinite(b), b, 0), atol=1e-9))

    ref_ok = equal(referendum_result) and bool(referendum_table.same_plrv_as_reference.all())
    exact = {p: equal(r) for (name, p), r in sweep.items() if name == "exact tally"}
    per_query = reducible.groupby("query", sort=False)["reducible"].first()
    expected = [q for q in per_query.index if not q.startswith("thresholded")]
    prop26 = bool(per_query[expected].all())
    by_query_delta = reducible[reducible.reducible].filter(like="delta(").groupby(reducible["query"]).nunique()
    brute_equal = bool((by_query_delta <= 1).all().all())
    thm2 = ref_ok and all(exact.values()) and brute_equal
    thr_not = not bool(per_query[[q for q in per_query.index if q.startswith("thresholded")]].any())
    r2 = remark2.groupby("mechanism")["same_as_smaller_database"].all()
    remark = thr_not and bool(r2.get("exact tally", False)) and not bool(
        remark2[remark2.mechanism == "thresholded tally"].same_as_smaller_database.all())
    return {
        "desfontaines.referendum2000.passive_equals_active": Measurement(
            ref_ok, note=f"exact tally: δ_P(ε) = δ_A(ε) on the grid; PLRV identical for known Yes counts "
                         f"{referendum_table.known_yes.tolist()}"),
        "desfontaines.thm2.reducible_equivalence": Measurement(
            thm2, note=f"δ_P = δ_A for the exact tally at {sum(exact.values())} of {len(exact)} p values, the "
                       f"referendum, and every reducible brute-force query"),
        "desfontaines.prop26.reducible_mechanisms": Measurement(
            prop26, note="PLRV independent of the known records' values: "
                         + ", ".join(f"{q} {'yes' if v else 'NO'}" for q, v in per_query.items())),
        "desfontaines.remark2.threshold_not_reducible": Measurement(
            remark, note=(f"thresholded count reducible: {'yes' if not thr_not else 'no'}; k of n known = no "
                          f"knowledge of n − k: exact tally {'always' if r2.get('exact tally', False) else 'not always'}, "
                          f"thresholded tally in {int(remark2[remark2.mechanism == 'thresholded tally'].same_as_smaller_database.sum())}"
                          f" of {int((remark2.mechanism == 'thresholded tally').sum())} (p, attacker) cases")),
    }


# --- the explorable figure: Example 7's δ(ε) over the lost Yes probability p -----------------------------------------


def delta_frame(sweep: Mapping[tuple[str, float], PartialKnowledgeDelta], p: float
                ) -> dict[str, tuple[list[float], list[float]]]:
    """One frame of the explorable figure: log10 δ(ε) of Example 7 at Yes probability ``p``, from the sweep.

    The exact tally's δ(ε), the same for both attackers (Theorem 2), and the thresholded tally's passive δ_P(ε)
    (PPKDP, Definition 58) and active δ_A(ε) (APKDP, Definition 57), drawn in that order (the active line over
    the exact tally's where they are equal); each over the sweep's ε grid, as log10 (δ = 0 is ``-inf``, a gap).

    >>> sw = example7_sweep(20, 3, 5, [0.1], [0.0, 1.0])
    >>> f = delta_frame(sw, 0.1)
    >>> list(f), f["active attacker (APKDP)"][0]
    (['exact tally (both attackers)', 'passive attacker (PPKDP)', 'active attacker (APKDP)'], [0.0, 1.0])
    """
    thr, exact = sweep["thresholded tally", float(p)], sweep["exact tally", float(p)]
    eps = [float(e) for e in thr.epsilons]
    return {"exact tally (both attackers)": (eps, [float(v) for v in log10(exact.log_active)]),
            "passive attacker (PPKDP)": (eps, [float(v) for v in log10(thr.log_passive)]),
            "active attacker (APKDP)": (eps, [float(v) for v in log10(thr.log_active)])}


def private_band(sweep: Mapping[tuple[str, float], PartialKnowledgeDelta], p_values: Sequence[float],
                 delta_private: float) -> tuple[float, float, str]:
    """The band of log10 δ the chapter calls private, δ ≤ ``delta_private``, from the frames' lowest value up.

    Example 7's claims are judged at this bar (:func:`example7_table`): the passive δ must stay in the band,
    the active δ above it shows the count "does not provide privacy". The ledger's claims are true/false
    statements, so the band is the chapter's bar, not a tolerance of a reported number.

    >>> sw = example7_sweep(20, 3, 5, [0.1], [0.0, 1.0])
    >>> lo, hi, _ = private_band(sw, [0.1], 0.1)
    >>> hi, lo < hi
    (-1.0, True)
    """
    ys = [y for p in p_values for _, yy in delta_frame(sweep, p).values() for y in yy if np.isfinite(y)]
    hi = float(np.log10(delta_private))
    return (min(ys + [hi]), hi, f"private: δ ≤ {delta_private:g} (the chapter's bar)")


def p_explorable(run: Any, sweep: Mapping[tuple[str, float], PartialKnowledgeDelta], p_values: Sequence[float],
                 p_example: float, delta_private: float, key: Mapping[str, Any]) -> Any:
    """The chapter's explorable figure: :func:`delta_frame` at each Yes probability of ``p_values``.

    The slider starts at ``p_example``; the band is :func:`private_band`. ``key`` is every input of the sweep
    (the frames' cache key). The thesis gives no δ values, so no paper points are drawn.
    """
    values = [float(p) for p in p_values]
    return run.explorable(
        "Example 7: δ(ε) of the thresholded tally", "p", values, lambda p: delta_frame(sweep, p),
        x_label="ε", y_label="log10 δ(ε)", key=key, current=float(p_example),
        band=private_band(sweep, values, delta_private),
        alt="log10 δ against ε for the passive and the active attacker of the thresholded tally and for the "
            "exact tally, one frame per Yes probability p; a slider moves p.")

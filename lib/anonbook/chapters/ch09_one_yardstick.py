"""Chapter 9: one yardstick for every attack of the book, reconciled with Anonymeter and the ALC package.

The chapter runs no attack: the kit reads what chapters 1-8 recorded and scores every attack with the one
protocol of :mod:`anonlab.measures` (:meth:`~anonbook.chapters.kit.ChapterRun.yardstick`: precision and
coverage with Wilson intervals, the baseline's precision on the same targets, PI = (P_atk − P_base) /
(1 − P_base), [FW24] Eq 6). This module says what each recorded attack is (:data:`SOURCES`), lists the
results that cannot be put on the scale with the reason (:data:`OFF_SCALE`), turns the table into the
findings, and writes the peer tools' inputs from chapter 5's recorded run (:func:`peer_inputs`; the tools
themselves and their comparison with PI are in :mod:`anonbook.peers`).

[FW24] P. Francis and D. Wagner, arXiv:2403.06595 (2024).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anonbook import peers
from anonbook.memory import MiB, MemoryEstimate
from anonlab.validation import Param, ParameterSpec
from anonbook.chapters import BASE_MEMORY, Chapter, Exercise

NAME = "09_one_yardstick"
#: The chapters whose recorded results this one reads, in the book's order.
READS = ("01_syntactic_anonymity", "02_dp_vs_definetti", "03_netflix_eccentricity", "04_census_reconstruction",
         "05_nonmember_framework", "06a_diffix_differential", "06b_diffix_cloning", "07_membership_base_rates",
         "08_passive_active")

#: Each source document: its name in the book and its marker in the figure.
PAPERS = {
    "cmu18734slides2019": ("the CMU 18-734 slides", "s"), "cormode2011": ("Cormode 2011", "o"),
    "narayanan2008robust": ("Narayanan & Shmatikov 2008", "^"), "francis2024towards": ("Francis & Wagner 2024", "D"),
    "gadotti2019signal": ("Gadotti et al. 2019", "P"), "desfontaines2020lowering": ("Desfontaines 2020", "X"),
}

#: The book's inference attack on Adult (chapters 2 and 5): Cormode's known attributes and secret.
PEER_AUX = ("workclass", "education", "sex", "hours_per_week", "income")
PEER_SECRET = "occupation"
#: What the peers' attacker knows about each target, and why the book asks both (``None``: every column but
#: the secret). Every other column is the sanity anchor: on the members published as they are, the nearest
#: row is then the target itself. Cormode's five coarse columns are what the book's own attack knows; few
#: members are unique on them, so the nearest row is mostly someone else's.
PEER_AUX_SETS: dict[str, tuple[str, ...] | None] = {
    "every other column": None,
    "Cormode's five columns": PEER_AUX,
}
#: The aux set under which the book's recorded naive attack and the ALC's recall grid are scored.
PEER_MAIN = "Cormode's five columns"
#: The chapter whose recorded run (split, synthesizer, naive attack) the peers' inputs come from.
PEER_SOURCE = "05_nonmember_framework"
#: The recorded attack of that chapter the peers score (every target, no threshold).
PEER_ATTACK = "naive attack"


@dataclass(frozen=True)
class Source:
    """What a recorded attack is: matched by chapter and a pattern searched in its recorded name."""

    chapter: str
    match: str
    paper: str
    data: str
    knows: str
    claim: str | None = None
    note: str = ""


_ADULT_DP = "Adult, released as ε-differentially-private counts"
_CORMODE_QI = "workclass, education, sex, hours and income of each target"
_ML = "MovieLens 100K, standing in for the Netflix Prize"
_NS_KNOWS = "8 of the target's ratings, with dates as the attack's name says"
_NS_NOTE = ("re-identification: a person who is not in the data cannot be re-identified, so a non-member "
            "baseline's precision is 0; the chapter's 'targets removed' rows measure the attack on such people")
_CENSUS = "simulated census blocks with swapping, standing in for the 2010 tables"
_DIFFIX_NOTE = "the majority guess of the secret is the baseline Gadotti et al. compare with"
_UNIQUE = "k* attributes that make the target unique"
_PROXY = "Adult behind a Diffix proxy"
_MODEL = "a model trained on half of 80,000 synthetic records (members 1:1)"
_TALLY = "a thresholded referendum tally (released above 100 Yes votes)"
_BLOCKS = "each person's block and the block's published counts"

SOURCES: tuple[Source, ...] = (
    Source("01_syntactic_anonymity", r"^homogeneity$", "cmu18734slides2019",
           "the slides' 4-anonymous inpatient table (12 patients)", "a neighbour's ZIP code, age and nationality",
           "slides.kanon.homogeneity_attack"),
    Source("01_syntactic_anonymity", r"^homogeneity \+ background", "cmu18734slides2019",
           "the slides' 4-anonymous inpatient table (12 patients)",
           "ZIP code, age and nationality, and one background fact", "slides.kanon.homogeneity_attack"),
    Source("02_dp_vs_definetti", r"^naive Bayes .*belief", "cormode2011", _ADULT_DP, _CORMODE_QI,
           "cormode.fig3.confident_more_accurate"),
    Source("02_dp_vs_definetti", r"^naive Bayes (?!.*belief)", "cormode2011", _ADULT_DP, _CORMODE_QI,
           "cormode.abstract.similar_accuracy"),
    Source("02_dp_vs_definetti", r"^deFinetti", "cormode2011", "Adult, released by Anatomy (l = 7)",
           "every target's quasi-identifiers and the group it is in", "cormode.fig4a.above_1_over_l"),
    Source("03_netflix_eccentricity", r"half the targets removed", "narayanan2008robust", _ML, _NS_KNOWS,
           "ns.empirical.detect_not_in_sample", _NS_NOTE),
    Source("03_netflix_eccentricity", r"(?<!half the )targets removed", "narayanan2008robust", _ML, _NS_KNOWS,
           "ns.empirical.detect_not_in_sample", _NS_NOTE),
    Source("03_netflix_eccentricity", r"rare movies", "narayanan2008robust", _ML, _NS_KNOWS,
           "ns.empirical.rare_movies", _NS_NOTE),
    Source("03_netflix_eccentricity", r"(ratings ±1, dates ±14 d, m|25% wrong)", "narayanan2008robust", _ML,
           _NS_KNOWS, "ns.empirical.aux_errors", _NS_NOTE),
    Source("03_netflix_eccentricity", r"exact ratings, no dates, m", "narayanan2008robust", _ML, _NS_KNOWS,
           "ns.empirical.no_dates", _NS_NOTE),
    Source("03_netflix_eccentricity", r"exact ratings, dates ±(3|14) d, m", "narayanan2008robust", _ML, _NS_KNOWS,
           "ns.empirical.exact_ratings_approx_dates", _NS_NOTE),
    Source("04_census_reconstruction", r"public linkage", "francis2024towards", _CENSUS,
           "the block tables and public linkage records (name, address, age, sex)",
           "fw.s3_1.abowd2021.public.precision"),
    Source("04_census_reconstruction", r"perfect linkage", "francis2024towards", _CENSUS,
           "the block tables and every person's linkage record", "fw.s3_1.abowd2021.perfect.precision"),
    Source("04_census_reconstruction", r"^block majority$", "francis2024towards", _CENSUS, _BLOCKS,
           "fw.s3_1.block_majority.precision", "this is the baseline the reconstruction attack is compared with"),
    Source("04_census_reconstruction", r"single-group", "francis2024towards", _CENSUS, _BLOCKS,
           "fw.s3_1.single_race_blocks.precision", "a baseline restricted to blocks where it cannot fail"),
    Source("05_nonmember_framework", r"^naive attack", "cormode2011",
           "an Adult sample released as ε-DP counts; targets the 3,039 non-members", _CORMODE_QI, None,
           "beyond the paper: Cormode's attack against Francis & Wagner's non-member baseline"),
    Source("06a_diffix_differential", r"^adult: differential", "gadotti2019signal", _PROXY, _UNIQUE,
           "gadotti.fig3.adult_differential_acc", _DIFFIX_NOTE),
    Source("06a_diffix_differential", r"^census: differential", "gadotti2019signal",
           "KDD Census-Income behind a Diffix proxy", _UNIQUE, "gadotti.fig3.census_differential_acc",
           _DIFFIX_NOTE),
    Source("06b_diffix_cloning", r"^adult: cloning, full", "gadotti2019signal", _PROXY, _UNIQUE,
           "gadotti.s5.double_test.adult_acc_single", _DIFFIX_NOTE),
    Source("06b_diffix_cloning", r"^adult: cloning, greedy", "gadotti2019signal", _PROXY, _UNIQUE,
           "gadotti.app_b.greedy_accuracy", _DIFFIX_NOTE),
    Source("06b_diffix_cloning", r"^adult: cloning, double", "gadotti2019signal", _PROXY, _UNIQUE,
           "gadotti.s5.double_test.adult_acc_double", _DIFFIX_NOTE),
    Source("06b_diffix_cloning", r"^adult: cloning, secret shuffled", "gadotti2019signal",
           "Adult with the secret resampled, behind a Diffix proxy", _UNIQUE, "gadotti.s4.random_secret_same",
           _DIFFIX_NOTE),
    Source("06b_diffix_cloning", r"^census: cloning", "gadotti2019signal",
           "KDD Census-Income behind a Diffix proxy", _UNIQUE, "gadotti.abstract.cloning_acc_range", _DIFFIX_NOTE),
    Source("07_membership_base_rates", r"^(loss|confidence)", "francis2024towards", _MODEL,
           "the model's output on each record", "fw.s5.no_better_than_all_member"),
    Source("07_membership_base_rates", r"^shadow", "francis2024towards", _MODEL,
           "the model's output on each record and 16 shadow models", "fw.s5.shokri.precision_40"),
    Source("07_membership_base_rates", r"^LiRA", "francis2024towards", _MODEL,
           "the model's output on each record and 16 reference models", "fw.s5.carlini.precision_80_targets"),
    Source("08_passive_active", r"^passive", "desfontaines2020lowering", _TALLY, "100 of the other votes",
           "desfontaines.ex7.passive_private"),
    Source("08_passive_active", r"^active", "desfontaines2020lowering", _TALLY,
           "100 votes it casts itself (fake Yes votes)", "desfontaines.ex7.active_defeats_threshold"),
)


@dataclass(frozen=True)
class OffScale:
    """A result of the book that is not an attack's guesses about targets, and why it has no row on the scale."""

    chapter: str
    result: str
    paper: str
    claim: str
    why: str


OFF_SCALE: tuple[OffScale, ...] = (
    OffScale("02_dp_vs_definetti", "the uniform-association bound inside Anatomy groups", "cormode2011",
             "cormode.s3_1.anatomy.uniform_bound",
             "a bound on a belief (1/l), not predictions about targets"),
    OffScale("03_netflix_eccentricity", "the (θ, ω)-deanonymization theorem's aux size", "narayanan2008robust",
             "ns.theorem.m_bound", "a sufficient number of known ratings, not a measured attack"),
    OffScale("04_census_reconstruction", "home and work explain 73 % of a location trace", "francis2024towards",
             "fw.s3_2.home_work_explains_accuracy", "arithmetic on hours of the day; no attack on people is run"),
    OffScale("04_census_reconstruction", "model inversion on warfarin patients (22 % vs 3 %)", "francis2024towards",
             "fw.s3_3.warfarin.vs_nontraining", "accuracy gains quoted from the literature, on data not available "
             "here; the chapter measures a synthetic stand-in"),
    OffScale("06a_diffix_differential", "the theoretical accuracy acc(k) of the likelihood-ratio test",
             "gadotti2019signal", "gadotti.fig2.acc_increases_with_k",
             "an accuracy computed from the noise distributions: no targets, no baseline"),
    OffScale("07_membership_base_rates", "ROC points of Shokri's and Carlini's attacks (Fig 10)", "francis2024towards",
             "fw.fig10.carlini.tpr_at_fpr_1e_3",
             "a ROC point (TPR at an FPR) has no base rate: its precision depends on the member:non-member skew, "
             "which chapter 7 sets at 1:1, 1:30 and 1:240"),
    OffScale("08_passive_active", "the (ε, δ) bounds of the thresholded referendum", "desfontaines2020lowering",
             "desfontaines.ex7.active_gap",
             "a δ bounds every attacker's privacy loss at once: a guarantee, not one attack's guesses on targets"),
)


def peak_memory(values: Mapping[str, Any]) -> MemoryEstimate:
    """Peak memory: the kernel, chapter 5's Adult sample and the peers' process (NumPy 1, numba), about 0.7 GB."""
    return MemoryEstimate(BASE_MEMORY + (450 * MiB if values.get("peers", True) else 0))


CHAPTER = Chapter(
    name=NAME,
    title="One yardstick for every attack, reconciled with Anonymeter and the ALC",
    parameters=ParameterSpec([
        Param("chapters", "str_list", list(READS), "chapters whose recorded attacks are read (they run first)",
              choices=READS, min_len=1),
        Param("confidence", "float", 0.95, "level of every interval (Wilson for precision and coverage)",
              low=0.5, high=0.999),
        Param("peers", "bool", True, "run Anonymeter and the ALC package in their environment (.venv-peers)"),
        Param("peer_targets", "int", 1000, "targets and control records per release that the peers attack",
              low=50, high=3000),
        Param("seed", "int", 0, "seed of the peers' target sample and of Anonymeter's draws", low=0,
              high=2**32 - 1),
    ]),
    quick={"peer_targets": 500},
    data=("adult-train",),
    memory=peak_memory,
    after=READS,
    environment=peers.environment_state,
    goals=(
        "Put attacks on DP counts, l-diverse releases, Diffix, census tables and ML models on one scale: "
        "precision with coverage, against a baseline on the same targets.",
        "Tell an attack that learns something about people from one that only matches what a non-member "
        "baseline already predicts, and say how much it learns.",
        "Relate PI and coverage to Anonymeter's risk and the ALC, the scores practitioners run.",
    ),
    assumes="the chapters before it, or at least chapter 5's non-member baseline and PI.",
    exercises=(
        Exercise(
            "stricter_intervals",
            {"confidence": 0.99},
            {"n_beyond": "attacks whose PI interval lies above 0",
             "n_same": "attacks whose PI interval contains 0"},
        ),
        Exercise(
            "fewer_peer_targets",
            {"peer_targets": 100},
            {"risk_members": "Anonymeter's risk, members published as they are",
             "risk_width_members": "width of its interval",
             "alc_members": "ALC of the same guesses against the book's baseline model"},
        ),
        Exercise(
            "cormode_alone",
            {"chapters": ["01_syntactic_anonymity", "02_dp_vs_definetti"], "peers": False},
            {"n_beyond": "attacks whose PI interval lies above 0",
             "n_same": "attacks whose PI interval contains 0"},
        ),
    ),
)


def source_of(chapter: str, name: str) -> Source:
    """The :data:`SOURCES` entry of a recorded attack (exactly one must match its chapter and name).

    >>> source_of("07_membership_base_rates", "LiRA online, FPR ≤ 0.001").claim
    'fw.s5.carlini.precision_80_targets'
    """
    hits = [s for s in SOURCES if s.chapter == chapter and re.search(s.match, name)]
    if len(hits) != 1:
        raise KeyError(f"{len(hits)} descriptions in SOURCES match the attack {name!r} of {chapter} "
                       "(each recorded attack needs exactly one)")
    return hits[0]


def claim_ids(chapters: Sequence[str]) -> list[str]:
    """Every ledger claim the yardstick's rows belong to (for the kit's ``recorded_verdicts``)."""
    ids = [s.claim for s in SOURCES if s.chapter in chapters and s.claim]
    ids += [o.claim for o in OFF_SCALE if o.chapter in chapters]
    return list(dict.fromkeys(ids))


def yardstick(table: pd.DataFrame, verdicts: Mapping[str, str], chapters: Sequence[str]) -> pd.DataFrame:
    """The kit's yardstick table with what each row is, its claim's verdict, and the results off the scale.

    ``table`` is :meth:`~anonbook.chapters.kit.ChapterRun.yardstick`;
    ``verdicts`` maps claim ids to verdicts (the kit's
    ``recorded_verdicts``). Adds ``paper``, ``data``, ``knows``, ``claim``,
    ``verdict`` and ``note`` to every recorded attack, then one row per
    :data:`OFF_SCALE` result of these chapters (no score; ``why_off`` says why).
    """
    rows = []
    for r in table.to_dict("records"):
        s = source_of(r["chapter"], r["name"])
        rows.append({**r, "paper": s.paper, "data": s.data, "knows": s.knows, "claim": s.claim,
                     "verdict": verdicts.get(s.claim, "") if s.claim else "", "note": s.note, "recorded": True})
    from anonbook.verdicts.yardstick import OFF

    for o in OFF_SCALE:
        if o.chapter in chapters:
            rows.append({"chapter": o.chapter, "name": o.result, "attack": o.result, "paper": o.paper, "data": "",
                         "knows": "", "claim": o.claim, "verdict": verdicts.get(o.claim, ""), "note": "",
                         "why_off": o.why, "position": OFF, "recorded": False})
    return pd.DataFrame(rows)


#: What the details table shows for a value repeated from the row above.
DITTO = '<span style="color:#888" title="as in the row above">same</span>'


def details(table: pd.DataFrame) -> Any:
    """What each recorded attack is and what it spent, grouped by chapter under the run it comes from.

    Columns: the attack (its claim's id under it), the data, what the
    attacker knows, the resources it spent; each chapter's heading names
    the paper and the run (:attr:`~anonbook.verdicts.yardstick.RecordedRun.label`).
    A value repeated from the row above reads 'same'. Returns
    an HTML table that fits the text column.
    """
    import html

    from anonbook.verdicts.yardstick import grouped_html

    rec = table[table["recorded"]]
    groups = []
    for ch, g in rec.groupby("chapter", sort=False):
        who = ", ".join(dict.fromkeys(PAPERS[k][0] for k in g["paper"]))
        runs = ", ".join(dict.fromkeys(str(x) for x in g["run"] if x))
        head = (f'<a href="{html.escape(ch)}.html">Chapter {html.escape(ch.split("_")[0])}</a> · {html.escape(who)}'
                f'<br><span style="font-weight:normal;font-size:0.9em">{html.escape(runs)}</span>')
        rows, before = [], {}
        for r in g.to_dict("records"):
            cells = [html.escape(str(r["name"])) + (f'<br><code style="font-size:0.8em">{html.escape(r["claim"])}'
                                                    "</code>" if isinstance(r["claim"], str) and r["claim"] else "")]
            for k in ("data", "knows", "spent"):  # a value repeated from the row above reads 'same'
                cells.append(DITTO if before.get(k) == r[k] else html.escape(str(r[k])))
            before = r
            rows.append(cells)
        groups.append((head, rows))
    return grouped_html("yardstick-table yardstick-details",
                        [("attack", 30), ("data", 25), ("attacker knows", 25), ("spent", 20)], groups)


#: Below this many predictions a listed attack shows PI's interval and the count it comes from.
FEW_PREDICTIONS = 100


def _item(r: Mapping[str, Any], kind: bool = False) -> str:
    """One attack in a findings list: its name, chapter and PI; the interval and its count when it rests on
    few predictions (:data:`FEW_PREDICTIONS`); with ``kind``, the baseline's kind.

    >>> _item({"name": "h", "chapter": "01_x", "pi": 1.0, "pi_low": -1.2, "pi_high": 1.0, "predictions": 12,
    ...        "baseline_kind": "majority prior"}, kind=True)
    'h (ch. 01, PI 1.00 [-1.20, 1.00] from only 12 predictions, against a majority prior)'
    """
    text = f"{r['name']} (ch. {str(r['chapter']).split('_')[0]}, PI {r['pi']:.2f}"
    n = int(r.get("predictions", 0) or 0)
    if n < FEW_PREDICTIONS:
        text += f" [{r['pi_low']:.2f}, {r['pi_high']:.2f}] from only {n} prediction{'s' if n != 1 else ''}"
    if kind:
        text += f", against a {r.get('baseline_kind') or 'baseline of no recorded kind'}"
    return text + ")"


def findings(table: pd.DataFrame) -> dict[str, Any]:
    """The chapter's answer in numbers: how many attacks stand where, and the largest improvement.

    Keys: ``n_attacks`` (recorded), ``n_chapters``, ``n_beyond``, ``n_same``,
    ``n_worse`` (against the non-member baseline on their own targets),
    ``n_prior`` (scored against a weaker prior only, counted apart) with
    ``n_prior_above`` (of those, PI's interval above 0), ``n_off`` (recorded
    attacks that cannot be placed), ``n_off_results`` (results that are not
    attacks), ``beyond`` (Markdown list of the attacks beyond their baseline
    with PI), ``prior`` (the same for those against a prior, with the
    prior's kind), ``top`` / ``top_pi`` (the largest PI), ``median_pi`` (over
    those beyond), ``same`` (Markdown list), ``headline`` (the sentence of
    :func:`~anonbook.verdicts.yardstick.headline`), ``baseline_rule``.
    """
    from anonbook.verdicts.yardstick import BASELINE_RULE, BEYOND, OFF, PRIOR_ONLY, SAME, WORSE, headline, \
        yardstick_counts

    rec = table[table["recorded"]]
    beyond = rec[rec["position"] == BEYOND].sort_values("pi", ascending=False)
    prior = rec[rec["position"] == PRIOR_ONLY].sort_values("pi", ascending=False)

    def items(df: pd.DataFrame, kind: bool = False) -> str:
        return "; ".join(_item(r, kind) for r in df.to_dict("records")) or "none"

    top = beyond.iloc[0] if len(beyond) else None
    return {
        "n_attacks": int(len(rec)), "n_chapters": int(rec["chapter"].nunique()),
        "n_beyond": int(len(beyond)), "n_same": int((rec["position"] == SAME).sum()),
        "n_worse": int((rec["position"] == WORSE).sum()), "n_off": int((rec["position"] == OFF).sum()),
        "n_prior": int(len(prior)), "n_prior_above": int((prior["pi_side"] == "above").sum()) if len(prior) else 0,
        "prior": items(prior, kind=True),
        "headline": headline(yardstick_counts(rec), int(len(rec))), "baseline_rule": BASELINE_RULE,
        "n_off_results": int((~table["recorded"]).sum()),
        "beyond": items(beyond), "same": items(rec[rec["position"] == SAME]),
        "worse": items(rec[rec["position"] == WORSE]),
        "top": "none" if top is None else str(top["name"]), "top_pi": math.nan if top is None else float(top["pi"]),
        "median_pi": float(beyond["pi"].median()) if len(beyond) else math.nan,
        "max_coverage_beyond": float(beyond["coverage"].max()) if len(beyond) else math.nan,
        "min_coverage_beyond": float(beyond["coverage"].min()) if len(beyond) else math.nan,
    }


def findings_sentences(table: pd.DataFrame) -> list[Any]:
    """The verdict's comparing sentences, chosen from the yardstick (:mod:`anonbook.chapters.sentences`).

    ``beyond_list``, ``same_list``, ``worse_list`` and ``prior_list``: the attacks at each position (lists
    that may be empty); ``beyond_spread``: the median PI and the coverage range of those beyond their
    baseline (largest coverage against smallest); ``baseline_decides``: as many, more or fewer rows level
    with their baseline as beyond it.

    >>> from anonbook.verdicts.yardstick import BEYOND
    >>> t = pd.DataFrame({"recorded": [True, True], "position": [BEYOND, BEYOND], "pi": [0.5, 0.2],
    ...                   "pi_low": [0.1, 0.1], "pi_high": [0.9, 0.3], "predictions": [500, 500], "name": ["a", "b"],
    ...                   "chapter": ["01_x", "02_y"], "coverage": [0.01, 0.9], "pi_side": ["", ""]})
    >>> [s.relation for s in findings_sentences(t)]
    ['some', 'above', 'none', 'none', 'none', 'below']
    """
    from anonbook.chapters.sentences import compare, listing
    from anonbook.verdicts.yardstick import BEYOND, PRIOR_ONLY, SAME, WORSE

    rec = table[table["recorded"].astype(bool)]
    at = {pos: rec[rec["position"] == pos].sort_values("pi", ascending=False) for pos in (BEYOND, SAME, WORSE,
                                                                                       PRIOR_ONLY)}

    def items(key: str, pos: str, kind: bool = False) -> Any:
        return listing(key, [_item(r, kind) for r in at[pos].to_dict("records")], some="{items}", none="none",
                       fmt=str, sep="; ")

    beyond = at[BEYOND]
    if len(beyond):
        median = float(beyond["pi"].median())
        head = f"The median PI among them is {median:.2f} of what was left to learn beyond their baselines. "
        spread = compare("beyond_spread", float(beyond["coverage"].max()), float(beyond["coverage"].min()), {
            "above": head + "Their coverage ranges from {right:.4f} to {left:.2f}: an attack that predicts for few "
                            "of its targets and one that predicts for many both count here, and the coverage column "
                            "tells them apart.",
            "equal": head + "They all have coverage {left:.4f}.",
        })
    else:
        spread = listing("beyond_spread", [], some="{items}",
                         none="No attack stands beyond its baseline here, so there is no median PI or coverage "
                              "range to give.")
    n_same, n_beyond = len(at[SAME]), len(beyond)
    decides = compare("baseline_decides", n_same, n_beyond, {
        "above": "on this scale more rows are level with their baseline ({left:.0f}) than stand beyond it "
                 "({right:.0f})",
        "equal": "on this scale as many rows are level with their baseline as stand beyond it ({left:.0f} each)",
        "below": "on this scale fewer rows are level with their baseline ({left:.0f}) than stand beyond it "
                 "({right:.0f}), but every one of them would count as a success by accuracy alone",
    })
    return [items("beyond_list", BEYOND), spread, items("same_list", SAME), items("worse_list", WORSE),
            items("prior_list", PRIOR_ONLY, kind=True), decides]


def peer_inputs(p5: Mapping[str, Any], attacks5: Mapping[str, Mapping[str, Any]], *, n: int, seed: int,
                confidence: float, aux: Sequence[str] | None = PEER_AUX) -> tuple[Any, dict[str, Any]]:
    """The peers' inputs from chapter 5's recorded run: the same Adult sample, split and synthesizer.

    Chapter 5's own functions rebuild its data from its recorded parameters
    ``p5`` (deterministic: the same sample, members and non-members, and
    synthetic copy of the members). The releases are the members published
    as they are and the chapter-5 synthetic copy; the targets are ``n``
    members, the control records ``n`` non-members (in no release). The
    book's baseline for the targets is the non-member baseline of chapter 5
    (its model settings), fitted on the non-members and the same
    known attributes ``aux`` (default :data:`PEER_AUX`; ``None``: every
    column but the secret). With Cormode's five, the recorded naive attack
    of chapter 5 and its baseline on the same targets are scored by the
    peers too, and the ALC's recall grid. Returns the
    :class:`~anonbook.peers.PeerInputs` and a description (sizes, settings,
    what the attacker knows, the share of targets unique on it in each release).
    """
    from anonlab.mechanisms.synthesis import SYNTHESIZERS
    from anonlab.measures import nonmember as nm
    from anonbook.peers import PeerInputs
    from anonbook.chapters import ch05_nonmember_framework as ch5

    d = ch5.prepare(p5, "adult")
    table, split = d["table"], d["split"]
    members, non_members = table.loc[split.members], table.loc[split.non_members]
    synthetic = SYNTHESIZERS[p5["synthesizer"]](members, min_leaf=p5["synth_min_leaf"], kinds=d["kinds"],
                                                seed=p5["seed"])
    known = [c for c in table.columns if c != PEER_SECRET] if aux is None else list(aux)
    cormode = tuple(known) == PEER_AUX
    rng = np.random.default_rng(seed)
    n_t, n_c = min(n, len(members)), min(n, len(non_members))
    targets = members.loc[np.sort(rng.choice(members.index.to_numpy(), n_t, replace=False))]
    control = non_members.loc[np.sort(rng.choice(non_members.index.to_numpy(), n_c, replace=False))]
    baseline = nm.nonmember_baseline(table, PEER_SECRET, members=non_members.index, targets=targets.index,
                                     known=known, kinds=d["kinds"], settings=ch5.settings_from(p5),
                                     name="non-member baseline (fitted on the non-members)")
    naive = next(v for k, v in attacks5.items() if k.startswith(PEER_ATTACK) and "belief" not in k)
    releases = {"members published": members, "synthetic copy": synthetic}
    inputs = PeerInputs(targets=targets, control=control, releases=releases,
                        aux=tuple(known), secret=PEER_SECRET, seed=seed, confidence=confidence,
                        baseline_on_targets=baseline,
                        scored={"naive attack": (naive["result"], naive["baseline"])} if cormode else {},
                        alc_grid={"p_attack": 0.9, "p_base": 0.5, "r_base": 1.0,
                                  "recalls": list(np.round(np.logspace(-4, 0, 33), 6))} if cormode else None)
    about = {"knows": ", ".join(known), "known_columns": len(known), "rows": len(table), "members": len(members),
             "non_members": len(non_members), "targets": n_t, "control": n_c,
             **{f"unique in {name}": unique_share(targets, rel, known) for name, rel in releases.items()},
             "synthesizer": p5["synthesizer"], "min_leaf": p5["synth_min_leaf"],
             "seed5": p5["seed"], "epsilon": p5["naive_epsilon"]}
    return inputs, about


def unique_share(targets: pd.DataFrame, release: pd.DataFrame, known: Sequence[str]) -> float:
    """The share of ``targets`` whose values of ``known`` occur exactly once in ``release`` (0 when absent).

    Where a target is unique, a nearest-row attack on the members published as they are finds the target
    itself; elsewhere it may find someone else with the same known values.

    >>> t = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}); r = pd.DataFrame({"a": [1, 2, 2], "b": ["x", "y", "y"]})
    >>> unique_share(t, r, ["a", "b"])
    0.5
    """
    cols = list(known)
    counts = release[cols].astype(str).value_counts()
    keys = [tuple(v) for v in targets[cols].astype(str).to_numpy()]
    return float(np.mean([counts.get(k, 0) == 1 for k in keys])) if keys else math.nan


def results_off_scale(table: pd.DataFrame) -> Any:
    """The results of the book that are not an attack's guesses (:data:`OFF_SCALE`): what, why, the verdict.

    An HTML table that fits the text column, grouped by chapter, with the
    whole reason (no truncation) and the claim's verdict as the book's badge.
    """
    import html

    from anonbook.verdicts.yardstick import grouped_html, verdict_badge

    rest = table[~table["recorded"]]
    groups = []
    for ch, g in rest.groupby("chapter", sort=False):
        who = ", ".join(dict.fromkeys(PAPERS[k][0] for k in g["paper"]))
        head = f'<a href="{html.escape(ch)}.html">Chapter {html.escape(ch.split("_")[0])}</a> · {html.escape(who)}'
        groups.append((head, [[html.escape(str(r["name"])), html.escape(str(r["why_off"])), verdict_badge(r["verdict"])]
                              for r in g.to_dict("records")]))
    return grouped_html("yardstick-table yardstick-results", [("result", 38), ("why it has no row", 46),
                                                              ("claim's verdict", 16)], groups)


# -- the peers under both aux sets: tables, numbers, sentences chosen from the numbers ------------------------------

#: The glue suffix of each aux set's numbers ("" for :data:`PEER_MAIN`, whose keys the prose has always used).
PEER_SUFFIX = {"every other column": "_all", "Cormode's five columns": ""}


def peer_tables(inputs: Mapping[str, Any], peers: Mapping[str, Mapping[str, Any]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Anonymeter's risk and the ALC beside PI (:mod:`anonbook.peers`) under each aux set.

    ``inputs`` and ``peers`` map each :data:`PEER_AUX_SETS` name to its
    :class:`~anonbook.peers.PeerInputs` and the peers' numbers; the tables
    get a first index level, ``attacker knows``.
    """
    from anonbook import peers as pt

    anon = pd.concat({k: pt.anonymeter_vs_pi(inputs[k], peers[k]) for k in peers}, names=["attacker knows"])
    alc = pd.concat({k: pt.alc_vs_pi(inputs[k], peers[k]) for k in peers}, names=["attacker knows"])
    return anon, alc


def _release_numbers(anon: pd.DataFrame, knows: str) -> dict[str, float]:
    """Risk (with its interval), precision and PI of both releases under one aux set, keys suffixed."""
    x = PEER_SUFFIX[knows]
    a = anon.xs(knows, level="attacker knows")
    m = a.xs("members published", level="input").iloc[0]
    s = a.xs("synthetic copy", level="input").iloc[0]
    return {f"risk_members{x}": float(m["Anonymeter risk"]), f"risk_members_low{x}": float(m["risk low"]),
            f"risk_members_high{x}": float(m["risk high"]), f"risk_synth{x}": float(s["Anonymeter risk"]),
            f"risk_synth_low{x}": float(s["risk low"]), f"risk_synth_high{x}": float(s["risk high"]),
            f"p_members{x}": float(m["precision"]), f"p_members_ctl{x}": float(m["control precision"]),
            f"p_members_base{x}": float(m["baseline precision (same targets)"]),
            f"pi_members_base{x}": float(m["PI vs baseline (same targets)"]),
            f"p_synth{x}": float(s["precision"]), f"pi_synth_base{x}": float(s["PI vs baseline (same targets)"])}


def peer_numbers(anon: pd.DataFrame, alc: pd.DataFrame, peers: Mapping[str, Mapping[str, Any]],
                 about: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The numbers chapter 9's prose quotes: :func:`anonbook.peers.summary_numbers` of :data:`PEER_MAIN`, and
    both releases under every aux set (:data:`PEER_SUFFIX`), with the share of targets unique on what is known."""
    from anonbook import peers as pt

    out = pt.summary_numbers(anon.xs(PEER_MAIN, level="attacker knows"), alc.xs(PEER_MAIN, level="attacker knows"),
                             peers[PEER_MAIN])
    for knows in peers:
        out.update(_release_numbers(anon, knows))
        x = PEER_SUFFIX[knows]
        out[f"unique_members{x}"] = float(about[knows]["unique in members published"])
        out[f"known_columns{x}"] = int(about[knows]["known_columns"])
    out["peer_seconds"] = float(sum(r["seconds"] for p in peers.values() for r in p["anonymeter"].values()))
    return out


def peer_numbers_missing(reason: str) -> dict[str, Any]:
    """The keys of :func:`peer_numbers` when the peers did not run: NaN numbers, ``reason`` as text."""
    from anonbook import peers as pt

    out = pt.summary_numbers_missing(reason)
    for x in PEER_SUFFIX.values():
        for k in ("risk_members", "risk_members_low", "risk_members_high", "risk_synth", "risk_synth_low",
                  "risk_synth_high", "p_members", "p_members_ctl", "p_members_base", "pi_members_base", "p_synth",
                  "pi_synth_base", "unique_members", "known_columns"):
            out[f"{k}{x}"] = math.nan
    return out


def synthesis_sentence(numbers: Mapping[str, float], knows: str) -> Any:
    """Does the synthetic copy remove the risk of publishing the members, for an attacker who knows ``knows``?

    Chosen from the numbers (:mod:`anonbook.chapters.sentences`): when the
    members' risk is above 0, whether the synthetic copy's risk interval
    lies wholly below the members' (and which share of the risk is gone);
    otherwise that there was no risk to remove.
    """
    from anonbook.chapters.sentences import compare

    x = PEER_SUFFIX[knows]
    rm, rs = numbers[f"risk_members{x}"], numbers[f"risk_synth{x}"]
    who = f"Knowing {knows} of a target"
    key = f"synthesis{x or '_five'}"
    if not rm > 0:
        return compare(key, rm, 0.0, {"at or below": who + ", the members published as they are already score "
                                      "risk {left:.2f}: there is no risk for synthesis to remove."})
    gone = 1 - rs / rm
    return compare(key, numbers[f"risk_synth_high{x}"], numbers[f"risk_members_low{x}"], {
        "below": f"{who}, the synthetic copy's risk ({rs:.2f}) lies below the published members' ({rm:.2f}), "
                 "its interval's top {left:.2f} under the members' bottom {right:.2f}: synthesis removes "
                 f"{gone:.0%} of the measured risk.",
        "at or above": f"{who}, the synthetic copy's risk ({rs:.2f}) cannot be told from the published members' "
                       f"({rm:.2f}): its interval reaches {{left:.2f}}, above the members' bottom {{right:.2f}}.",
    })


def differ_sentences(numbers: Mapping[str, float]) -> list[Any]:
    """"Where they differ": the control set's and the baseline model's numbers, the same or not as shown.

    The numbers are compared at the two digits the page shows, so the page
    never says two things differ while it prints the same value for both
    (:data:`PEER_MAIN`'s numbers: baseline vs control rate, PI vs risk on
    the members and on the synthetic copy).
    """
    from anonbook.chapters.sentences import compare

    def r2(k: str) -> float:
        return round(float(numbers[k]), 2)

    rates = compare("differ_rates", r2("p_members_base"), r2("p_members_ctl"), {
        "equal": "With Cormode's five columns known, the baseline model is right for {left:.2f} of the targets "
                 "and the control attack for {right:.2f} of the control records: the same rate, reached on "
                 "different people by different means.",
        "different": "With Cormode's five columns known, the baseline model is right for {left:.2f} of the "
                     "targets and the control attack for {right:.2f} of the control records."})
    members = compare("differ_members", r2("pi_members_base"), r2("risk_members"), {
        "equal": "On the members published as they are, PI against the baseline ({left:.2f}) and the risk "
                 "({right:.2f}) give the same number on this run, though they compare different things.",
        "different": "On the members published as they are, PI against the baseline is {left:.2f} and the risk "
                     "{right:.2f}."})
    synth = compare("differ_synth", r2("pi_synth_base"), r2("risk_synth"), {
        "equal": "On the synthetic copy the two coincide as well (PI {left:.2f}, risk {right:.2f}).",
        "different": "On the synthetic copy PI against the baseline is {left:.2f} and the risk {right:.2f}."})
    return [rates, members, synth]


#: "Mostly someone else's": the nearest row is the target's own for fewer than this share of the targets.
MOST = 0.5
#: The recall at which the prose says the ALC's weight keeps little of an attack's score (0.1 %).
LOW_RECALL = 0.001
#: The chapter whose membership attacks the ALC's recall weighting is set against.
MEMBERSHIP_CHAPTER = "07_membership_base_rates"


def known_sentences(numbers: Mapping[str, float]) -> list[Any]:
    """``unique_five``: with Cormode's five columns known, are most targets unique in the members (so that the
    nearest row is mostly their own)? ``alc_coincide``: the ALC of the members against the control attack and
    Anonymeter's risk, at the three digits shown; ``naive_clipping``: the naive attack's PI against 0."""
    from anonbook.chapters.sentences import compare

    u = float(numbers["unique_members"])
    unique = compare("unique_five", u, MOST, {
        "below": "Knowing Cormode's five coarse columns, only {left:.1%} of the targets are unique, so the nearest "
                 "row is mostly someone else's and its occupation is a guess from people alike",
        "at or above": "Knowing Cormode's five coarse columns, {left:.1%} of the targets are unique, so the nearest "
                       "row is mostly the target's own",
    })
    coincide = compare("alc_coincide", round(float(numbers["alc_members_ctl"]), 3),
                       round(float(numbers["risk_members"]), 3), {
        "equal": "ALC and Anonymeter's risk coincide ({left:.3f} here)",
        "different": "ALC and Anonymeter's risk should coincide, but here they differ (ALC {left:.3f}, risk "
                     "{right:.3f})",
    })
    rn = float(numbers["risk_naive"])
    clipping = compare("naive_clipping", float(numbers["pi_naive"]), 0.0, {
        "below": f"the book's naive attack is below its baseline on these targets (PI {{left:.3f}}); Anonymeter "
                 f"reports risk {rn:.2f}, and a negative improvement becomes 0",
        "at or above": f"the book's naive attack has PI {{left:.3f}} against its baseline on these targets; "
                       f"Anonymeter reports risk {rn:.2f}, and would report a negative improvement as 0",
    })
    return [unique, coincide, clipping]


def peer_sentences(numbers: Mapping[str, float]) -> list[Any]:
    """Every sentence of the peers' section chosen from the numbers (:func:`synthesis_sentence` per aux set,
    :func:`differ_sentences`, :func:`known_sentences`)."""
    return [synthesis_sentence(numbers, k) for k in PEER_AUX_SETS] + differ_sentences(numbers) \
        + known_sentences(numbers)


#: The keys of :func:`peer_sentences`.
PEER_SENTENCES = tuple(f"synthesis{PEER_SUFFIX[k] or '_five'}" for k in PEER_AUX_SETS) + (
    "differ_rates", "differ_members", "differ_synth", "unique_five", "alc_coincide", "naive_clipping")


def peer_sentences_missing(reason: str) -> list[Any]:
    """The sentences of :func:`peer_sentences` when the peers did not run: each an empty listing reading ``reason``."""
    from anonbook.chapters.sentences import listing

    return [listing(k, [], some="{items}", none=f"({reason})") for k in PEER_SENTENCES]


def membership_sentence(table: pd.DataFrame) -> Any:
    """``membership_coverage``: the largest coverage of chapter 7's placed attacks against :data:`LOW_RECALL`
    (where the ALC's weight keeps little); an empty listing when chapter 7 is not read or has no placed attack."""
    from anonbook.chapters.sentences import compare, listing

    rec = table[table["recorded"].astype(bool) & (table["chapter"] == MEMBERSHIP_CHAPTER)]
    cov = pd.to_numeric(rec["coverage"], errors="coerce").dropna() if len(rec) else pd.Series(dtype=float)
    tail = ("PI does not see their coverage (the table reports it beside PI), while the ALC's weight takes more of "
            "an attack's score the lower its recall (the figure).")
    if not len(cov):
        return listing("membership_coverage", [], some="{items}",
                       none="No membership attack of chapter 7 is on the scale here; at low recall " + tail[0].lower()
                            + tail[1:])
    return compare("membership_coverage", float(cov.max()), LOW_RECALL, {
        "below": "The membership attacks of chapter 7, which cover at most {left:.2g} of their targets, under the "
                 "{right:.1%} at which the ALC keeps little, are where the two scales part most: " + tail,
        "at or above": "The membership attacks of chapter 7 cover up to {left:.2g} of their targets: " + tail,
    })


def peer_runs(run: Any, p5: Mapping[str, Any], attacks5: Mapping[str, Mapping[str, Any]], key5: str, *, n: int,
              seed: int, confidence: float, peers: bool) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], str]:
    """The peers' inputs under every aux set (:func:`peer_inputs`) and, with ``peers``, their run, each cached.

    ``run`` is the chapter's :class:`~anonbook.chapters.kit.ChapterRun`; ``key5`` the cache key of chapter 5's
    recorded run. Returns ``(inputs, about, peers, why)``: per :data:`PEER_AUX_SETS` name the
    :class:`~anonbook.peers.PeerInputs`, their description and the peers' numbers (empty when the peers did not
    run, ``why`` says why).
    """
    from anonbook import peers as pt

    inputs, about = {}, {}
    for knows, aux in PEER_AUX_SETS.items():
        inputs[knows], about[knows] = run.cached("peer_inputs", lambda: peer_inputs(
            p5, attacks5, n=n, seed=seed, confidence=confidence, aux=aux),
            p5=p5, n=n, seed=seed, confidence=confidence, aux=aux, attacks=key5)
    if not peers:
        return inputs, about, {}, "the peers were not run (peers = False)"
    out = {}
    try:
        for knows in PEER_AUX_SETS:
            out[knows] = run.cached("peers", lambda: pt.run_peers(inputs[knows]), inputs=about[knows], p5=p5,
                                    seed=seed, confidence=confidence, env=pt.environment_digest())
    except pt.PeersMissing as exc:  # a failing run fails the chapter; a missing environment is said on the page
        return inputs, about, {}, str(exc)
    return inputs, about, out, ""

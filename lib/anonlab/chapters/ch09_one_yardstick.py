"""Chapter 9: one yardstick for every attack of the book, reconciled with Anonymeter and the ALC package.

The chapter runs no attack. It reads what chapters 1-8 recorded
(``book/<chapter>.attacks.pkl``, ``.results.json``, ``.params.json``)
through the kit (:meth:`~anonlab.chapters.kit.ChapterRun.yardstick`), which
scores every attack with the one protocol of :mod:`anonlab.measures`
(precision and coverage with Wilson intervals, the baseline's precision on
the same targets, PI = (P_atk − P_base)/(1 − P_base), [FW24] Eq 6). This
module says what each recorded attack is (:data:`SOURCES`: the paper, the
data, what the attacker knows, the ledger claim it belongs to), lists the
results that cannot be put on the scale with the reason
(:data:`OFF_SCALE`), and turns the table into the chapter's findings.

The second half runs the two tools practitioners use for the same question
on inputs the book writes (:mod:`anonlab.peers`): Anonymeter's inference
evaluator (risk = (attack − control)/(1 − control)) and Francis's ALC
package (a precision-recall score against a baseline), and sets their
numbers beside PI and coverage (:func:`anonymeter_vs_pi`,
:func:`alc_vs_pi`).

[FW24] P. Francis and D. Wagner, arXiv:2403.06595 (2024).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..measures import AttackResult, precision_improvement, score
from ..memory import MiB, MemoryEstimate
from ..validation import Param, ParameterSpec
from . import BASE_MEMORY, Chapter, Exercise

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
    Source("04_census_reconstruction", r"^block majority$", "francis2024towards", _CENSUS,
           "each person's block and the block's published counts", "fw.s3_1.block_majority.precision",
           "this is the baseline the reconstruction attack is compared with"),
    Source("04_census_reconstruction", r"single-group", "francis2024towards", _CENSUS,
           "each person's block and the block's published counts", "fw.s3_1.single_race_blocks.precision",
           "a baseline restricted to blocks where it cannot fail"),
    Source("05_nonmember_framework", r"^naive attack", "cormode2011",
           "an Adult sample released as ε-DP counts; targets the 3,039 non-members", _CORMODE_QI, None,
           "beyond the paper: Cormode's attack against Francis & Wagner's non-member baseline"),
    Source("06a_diffix_differential", r"^adult: differential", "gadotti2019signal", "Adult behind a Diffix proxy",
           "k* attributes that make the target unique", "gadotti.fig3.adult_differential_acc", _DIFFIX_NOTE),
    Source("06a_diffix_differential", r"^census: differential", "gadotti2019signal",
           "KDD Census-Income behind a Diffix proxy", "k* attributes that make the target unique",
           "gadotti.fig3.census_differential_acc", _DIFFIX_NOTE),
    Source("06b_diffix_cloning", r"^adult: cloning, full", "gadotti2019signal", "Adult behind a Diffix proxy",
           "k* attributes that make the target unique", "gadotti.s5.double_test.adult_acc_single", _DIFFIX_NOTE),
    Source("06b_diffix_cloning", r"^adult: cloning, greedy", "gadotti2019signal", "Adult behind a Diffix proxy",
           "k* attributes that make the target unique", "gadotti.app_b.greedy_accuracy", _DIFFIX_NOTE),
    Source("06b_diffix_cloning", r"^adult: cloning, double", "gadotti2019signal", "Adult behind a Diffix proxy",
           "k* attributes that make the target unique", "gadotti.s5.double_test.adult_acc_double", _DIFFIX_NOTE),
    Source("06b_diffix_cloning", r"^adult: cloning, secret shuffled", "gadotti2019signal",
           "Adult with the secret resampled, behind a Diffix proxy", "k* attributes that make the target unique",
           "gadotti.s4.random_secret_same", _DIFFIX_NOTE),
    Source("06b_diffix_cloning", r"^census: cloning", "gadotti2019signal", "KDD Census-Income behind a Diffix proxy",
           "k* attributes that make the target unique", "gadotti.abstract.cloning_acc_range", _DIFFIX_NOTE),
    Source("07_membership_base_rates", r"^(loss|confidence)", "francis2024towards",
           "a model trained on half of 80,000 synthetic records (members 1:1)", "the model's output on each record",
           "fw.s5.no_better_than_all_member"),
    Source("07_membership_base_rates", r"^shadow", "francis2024towards",
           "a model trained on half of 80,000 synthetic records (members 1:1)",
           "the model's output on each record and 16 shadow models", "fw.s5.shokri.precision_40"),
    Source("07_membership_base_rates", r"^LiRA", "francis2024towards",
           "a model trained on half of 80,000 synthetic records (members 1:1)",
           "the model's output on each record and 16 reference models", "fw.s5.carlini.precision_80_targets"),
    Source("08_passive_active", r"^passive", "desfontaines2020lowering",
           "a thresholded referendum tally (released above 100 Yes votes)", "100 of the other votes",
           "desfontaines.ex7.passive_private"),
    Source("08_passive_active", r"^active", "desfontaines2020lowering",
           "a thresholded referendum tally (released above 100 Yes votes)",
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
            "*Predict first:* at a 99 % level instead of 95 %, which attacks stop counting as learning beyond "
            "their baseline (their PI interval reaches 0)? Then run with `confidence = 0.99`.",
            {"confidence": 0.99},
            {"n_beyond": "attacks whose PI interval lies above 0",
             "n_same": "attacks whose PI interval contains 0"},
        ),
        Exercise(
            "fewer_peer_targets",
            "*Predict first:* with 100 targets and 100 control records instead of the quick run's 500, how wide "
            "does Anonymeter's risk interval on the published members get, and what does the ALC report? Then run with "
            "`peer_targets = 100`.",
            {"peer_targets": 100},
            {"risk_members": "Anonymeter's risk, members published as they are",
             "risk_width_members": "width of its interval",
             "alc_members": "ALC of the same guesses against the book's baseline model"},
        ),
    ),
)


# ---------------------------------------------------------------------------
# the yardstick: what each recorded attack is, and the findings
# ---------------------------------------------------------------------------


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

    ``table`` is :meth:`~anonlab.chapters.kit.ChapterRun.yardstick`;
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
    from ..claims.yardstick import OFF

    for o in OFF_SCALE:
        if o.chapter in chapters:
            rows.append({"chapter": o.chapter, "name": o.result, "attack": o.result, "paper": o.paper, "data": "",
                         "knows": "", "claim": o.claim, "verdict": verdicts.get(o.claim, ""), "note": "",
                         "why_off": o.why, "position": OFF, "recorded": False})
    return pd.DataFrame(rows)


def _interval(v: float, lo: float, hi: float, fmt: str = ".2f") -> str:
    """``0.34 [0.33, 0.35]``; empty when undefined."""
    if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in (v, lo, hi)):
        return ""
    return f"{v:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]"


def readable(table: pd.DataFrame) -> pd.DataFrame:
    """The yardstick as a reader sees it: one row per attack, numbers rounded to what their intervals support."""
    def num(x: Any, fmt: str) -> str:
        return f"{x:{fmt}}" if isinstance(x, (int, float)) and math.isfinite(x) else ""

    out = pd.DataFrame({
        "chapter": table["chapter"].str.split("_").str[0],
        "attack": table["name"],
        "precision": [_interval(r.get("precision", math.nan), r.get("precision_low", math.nan),
                                r.get("precision_high", math.nan)) for r in table.to_dict("records")],
        "coverage": [num(x, ".3g") for x in table.get("coverage", pd.Series(math.nan, index=table.index))],
        "baseline": [num(x, ".2f") for x in table.get("baseline_precision", pd.Series(math.nan, index=table.index))],
        "PI": [_interval(r.get("pi", math.nan), r.get("pi_low", math.nan), r.get("pi_high", math.nan))
               for r in table.to_dict("records")],
        "where it stands": [p if not w else f"{p}: {w}" for p, w in zip(table["position"], table["why_off"])],
        "claim's verdict": table["verdict"],
    })
    return out.set_index(["chapter", "attack"])


def details(table: pd.DataFrame) -> pd.DataFrame:
    """What each recorded attack is and what it spent: data, knowledge, resources, the run, the claim."""
    rec = table[table["recorded"]]
    return pd.DataFrame({"chapter": rec["chapter"].str.split("_").str[0], "attack": rec["name"],
                         "paper": rec["paper"].map(lambda k: PAPERS[k][0]), "data": rec["data"],
                         "attacker knows": rec["knows"], "spent": rec["spent"], "run": rec["run"],
                         "claim": rec["claim"].fillna("")}).set_index(["chapter", "attack"])


def findings(table: pd.DataFrame) -> dict[str, Any]:
    """The chapter's answer in numbers: how many attacks stand where, and the largest improvement.

    Keys: ``n_attacks`` (recorded), ``n_chapters``, ``n_beyond``, ``n_same``,
    ``n_worse``, ``n_off`` (recorded attacks that cannot be placed),
    ``n_off_results`` (results that are not attacks), ``beyond`` (Markdown
    list of the attacks beyond their baseline with PI), ``top`` / ``top_pi``
    (the largest PI), ``median_pi`` (over those beyond), ``same`` (Markdown list).
    """
    from ..claims.yardstick import BEYOND, OFF, SAME, WORSE

    rec = table[table["recorded"]]
    beyond = rec[rec["position"] == BEYOND].sort_values("pi", ascending=False)

    def items(df: pd.DataFrame) -> str:
        return "; ".join(f"{r['name']} (ch. {r['chapter'].split('_')[0]}, PI {r['pi']:.2f})"
                         for r in df.to_dict("records")) or "none"

    top = beyond.iloc[0] if len(beyond) else None
    return {
        "n_attacks": int(len(rec)), "n_chapters": int(rec["chapter"].nunique()),
        "n_beyond": int(len(beyond)), "n_same": int((rec["position"] == SAME).sum()),
        "n_worse": int((rec["position"] == WORSE).sum()), "n_off": int((rec["position"] == OFF).sum()),
        "n_off_results": int((~table["recorded"]).sum()),
        "beyond": items(beyond), "same": items(rec[rec["position"] == SAME]),
        "worse": items(rec[rec["position"] == WORSE]),
        "top": "none" if top is None else str(top["name"]), "top_pi": math.nan if top is None else float(top["pi"]),
        "median_pi": float(beyond["pi"].median()) if len(beyond) else math.nan,
        "max_coverage_beyond": float(beyond["coverage"].max()) if len(beyond) else math.nan,
        "min_coverage_beyond": float(beyond["coverage"].min()) if len(beyond) else math.nan,
    }


def off_reasons(table: pd.DataFrame) -> pd.DataFrame:
    """The recorded attacks that cannot be placed, grouped by reason (how many, which chapters)."""
    from ..claims.yardstick import OFF

    off = table[(table["position"] == OFF) & table["recorded"]]
    g = off.groupby("why_off").agg(attacks=("name", "size"),
                                   chapters=("chapter", lambda c: ", ".join(sorted({x.split("_")[0] for x in c}))))
    return g.sort_values("attacks", ascending=False)


# ---------------------------------------------------------------------------
# the peers: inputs from chapter 5's recorded run, and their numbers beside PI
# ---------------------------------------------------------------------------


def recorded_parameters(chapter: str, book_dir: Any) -> dict[str, Any]:
    """The full parameters of a chapter's published run (its ``params.json``), to rebuild its inputs exactly."""
    from pathlib import Path

    f = Path(book_dir) / f"{chapter}.params.json"
    if not f.exists():
        raise FileNotFoundError(f"{chapter} has not run: no {f.name} (run it first: python -m anonlab run {chapter})")
    return dict(json.loads(f.read_text(encoding="utf-8"))["all_parameters"])


def peer_inputs(p5: Mapping[str, Any], attacks5: Mapping[str, Mapping[str, Any]], *, n: int, seed: int,
                confidence: float) -> tuple[Any, dict[str, Any]]:
    """The peers' inputs from chapter 5's recorded run: the same Adult sample, split and synthesizer.

    Chapter 5's own functions rebuild its data from its recorded parameters
    ``p5`` (deterministic: the same sample, members and non-members, and
    synthetic copy of the members). The releases are the members published
    as they are and the chapter-5 synthetic copy; the targets are ``n``
    members, the control records ``n`` non-members (in no release). The
    book's baseline for the targets is the non-member baseline of chapter 5
    (its model settings), fitted on the non-members and the same
    :data:`PEER_AUX`. The recorded naive attack of chapter 5 and its
    baseline on the same targets are scored by the peers too. Returns the
    :class:`~anonlab.peers.PeerInputs` and a description (sizes, settings).
    """
    from ..mechanisms.synthesis import SYNTHESIZERS
    from ..measures import nonmember as nm
    from ..peers import PeerInputs
    from . import ch05_nonmember_framework as ch5

    d = ch5.prepare(p5, "adult")
    table, split = d["table"], d["split"]
    members, non_members = table.loc[split.members], table.loc[split.non_members]
    synthetic = SYNTHESIZERS[p5["synthesizer"]](members, min_leaf=p5["synth_min_leaf"], kinds=d["kinds"],
                                                seed=p5["seed"])
    rng = np.random.default_rng(seed)
    n_t, n_c = min(n, len(members)), min(n, len(non_members))
    targets = members.loc[np.sort(rng.choice(members.index.to_numpy(), n_t, replace=False))]
    control = non_members.loc[np.sort(rng.choice(non_members.index.to_numpy(), n_c, replace=False))]
    baseline = nm.nonmember_baseline(table, PEER_SECRET, members=non_members.index, targets=targets.index,
                                     known=list(PEER_AUX), kinds=d["kinds"], settings=ch5.settings_from(p5),
                                     name="non-member baseline (fitted on the non-members)")
    naive = next(v for k, v in attacks5.items() if k.startswith(PEER_ATTACK) and "belief" not in k)
    inputs = PeerInputs(targets=targets, control=control,
                        releases={"members published": members, "synthetic copy": synthetic},
                        aux=PEER_AUX, secret=PEER_SECRET, seed=seed, confidence=confidence,
                        baseline_on_targets=baseline,
                        scored={"naive attack": (naive["result"], naive["baseline"])},
                        alc_grid={"p_attack": 0.9, "p_base": 0.5, "r_base": 1.0,
                                  "recalls": list(np.round(np.logspace(-4, 0, 33), 6))})
    about = {"rows": len(table), "members": len(members), "non_members": len(non_members), "targets": n_t,
             "control": n_c, "synthesizer": p5["synthesizer"], "min_leaf": p5["synth_min_leaf"],
             "seed5": p5["seed"], "epsilon": p5["naive_epsilon"]}
    return inputs, about


def _result(name: str, rows: pd.DataFrame, secret: str, correct: Mapping[str, bool],
            guesses: Mapping[str, Any]) -> AttackResult:
    """An attack result from a peer's per-target guesses (their correctness by the peer's own rule)."""
    ids = [i for i in correct]
    labels = rows.index.to_numpy()
    by_str = {str(x): x for x in labels}
    targets = np.array([by_str[i] for i in ids])
    return AttackResult(name, targets, rows.loc[targets, secret].to_numpy(), np.ones(len(ids), dtype=bool),
                        np.array([guesses[i] for i in ids], dtype=object),
                        correct=np.array([bool(correct[i]) for i in ids]))


def anonymeter_vs_pi(inputs: Any, peers: Mapping[str, Any]) -> pd.DataFrame:
    """Anonymeter's risk beside the book's PI, on the same guesses (one row per release, then the naive attack).

    For each release, Anonymeter's own attack guessed the secret of every
    target and every control record; the book scores those guesses: the
    attack's precision on the targets, the same attack's precision on the
    control records, PI with the control in the baseline's role (raw
    proportions), PI of Anonymeter's own (Wilson-centre) rates, and PI
    against the book's non-member baseline on the same targets. The naive
    attack row is Anonymeter's ``EvaluationResults`` on the counts of the
    book's recorded attack, its baseline (same targets) in the control's role.
    """
    rows = []
    for release, res in peers["anonymeter"].items():
        atk = _result(f"Anonymeter's attack on {release}", inputs.targets, inputs.secret,
                      res["correct"]["targets"], res["guesses"]["targets"])
        ctl = _result("the same attack on the control records", inputs.control, inputs.secret,
                      res["correct"]["control"], res["guesses"]["control"])
        s_atk, s_ctl = score(atk), score(ctl)
        vs_base = score(atk, inputs.baseline_on_targets)
        a, c = res["attack_rate"]["value"], res["control_rate"]["value"]
        rows.append({"input": release, "attack": "Anonymeter's nearest-row attack", "targets": atk.n_targets,
                     "precision": s_atk.precision, "control precision": s_ctl.precision,
                     "PI, control as baseline": float(precision_improvement(s_atk.precision, s_ctl.precision)),
                     "Anonymeter attack rate": a, "Anonymeter control rate": c,
                     "PI of Anonymeter's rates": float(precision_improvement(a, c)),
                     "Anonymeter risk": res["risk"], "risk low": res["risk_ci"][0], "risk high": res["risk_ci"][1],
                     "baseline precision (same targets)": vs_base.baseline_precision,
                     "PI vs baseline (same targets)": vs_base.precision_improvement,
                     "PI low": vs_base.precision_improvement_ci[0], "PI high": vs_base.precision_improvement_ci[1]})
    for name, (attack, base) in inputs.scored.items():
        res = peers["anonymeter_counts"][name]
        s = score(attack, base)
        a, c = res["attack_rate"]["value"], res["control_rate"]["value"]
        rows.append({"input": "ε-DP counts (chapter 5)", "attack": f"the book's {name}", "targets": attack.n_targets,
                     "precision": s.precision, "control precision": s.baseline_precision,
                     "PI, control as baseline": s.precision_improvement,
                     "Anonymeter attack rate": a, "Anonymeter control rate": c,
                     "PI of Anonymeter's rates": float(precision_improvement(a, c)),
                     "Anonymeter risk": res["risk"], "risk low": res["risk_ci"][0], "risk high": res["risk_ci"][1],
                     "baseline precision (same targets)": s.baseline_precision,
                     "PI vs baseline (same targets)": s.precision_improvement,
                     "PI low": s.precision_improvement_ci[0], "PI high": s.precision_improvement_ci[1]})
    return pd.DataFrame(rows).set_index(["input", "attack"])


def alc_vs_pi(inputs: Any, peers: Mapping[str, Any]) -> pd.DataFrame:
    """The ALC package's score beside PI and coverage, on the same predictions.

    One row per comparison the peers scored: each release's attack against
    the book's baseline model and against the control attack, and the
    book's naive attack against its baseline. The ALC picks, for attack and
    baseline separately, the confidence threshold with the best
    precision-recall coefficient PRC (precision at the Wilson midpoint,
    weighted by recall); PI compares the two on the same targets at the
    attack's own coverage. ``PI at the ALC's recall`` is the book's PI of
    the attack restricted to the predictions the ALC kept (its most
    confident ones), against the baseline on those same targets.
    """
    rows = []
    for key, res in peers["alc"].items():
        a, b = res["attack"], res["base"]
        row = {"comparison": key, "ALC": res["alc"], "attack precision (midpoint)": a["prec"],
               "attack recall": a["recall"], "attack PRC": a["prc"], "base precision (midpoint)": b["prec"],
               "base recall": b["recall"], "base PRC": b["prc"],
               "PI of the midpoints": float(precision_improvement(a["prec"], b["prec"]))
               if a["recall"] > 0 and b["recall"] > 0 else math.nan}
        name = key.split(" | ")[0]
        if name in inputs.scored:
            attack, base = inputs.scored[name]
            s = score(attack, base)
            row.update({"PI (book, every target)": s.precision_improvement, "coverage (book)": s.coverage})
            kept = _top_share(attack, a["recall"])
            sk = score(kept, base)
            row.update({"PI at the ALC's recall": sk.precision_improvement, "coverage there": sk.coverage})
        else:
            res_a = peers["anonymeter"][name]
            atk = _result(name, inputs.targets, inputs.secret, res_a["correct"]["targets"],
                          res_a["guesses"]["targets"])
            other = inputs.baseline_on_targets if key.endswith("baseline model") else None
            if other is not None:
                s = score(atk, other)
                row.update({"PI (book, every target)": s.precision_improvement, "coverage (book)": s.coverage})
            else:
                ctl = _result(name, inputs.control, inputs.secret, res_a["correct"]["control"],
                              res_a["guesses"]["control"])
                row.update({"PI (book, every target)": float(precision_improvement(score(atk).precision,
                                                                                   score(ctl).precision)),
                            "coverage (book)": 1.0})
        rows.append(row)
    return pd.DataFrame(rows).set_index("comparison")


def _top_share(result: AttackResult, share: float) -> AttackResult:
    """The result keeping only its most confident predictions, ``share`` of the targets (ties kept together)."""
    if result.confidence is None or share >= 1 or share <= 0:
        return result
    k = max(1, int(round(share * result.n_targets)))
    threshold = np.sort(result.confidence[result.predicted])[::-1][min(k, int(result.predicted.sum())) - 1]
    return result.at_threshold(float(threshold))


def relations(anon: pd.DataFrame, alc: pd.DataFrame) -> dict[str, float]:
    """How far the tools are from the book's formulas on this run (the largest absolute differences).

    ``risk_vs_pi_of_rates``: Anonymeter's risk against PI of its own rates
    where that PI is in [0, 1] (the risk clips it there); ``alc_vs_pi_full``:
    the ALC against PI of the two precisions where both recalls are 1 (the
    ALC rounds to 4 decimals); ``wilson_shift``: PI of Anonymeter's rates
    against PI of the raw proportions.
    """
    inside = anon[(anon["PI of Anonymeter's rates"] >= 0) & (anon["PI of Anonymeter's rates"] <= 1)]
    full = alc[(alc["attack recall"] == 1) & (alc["base recall"] == 1)]
    return {
        "risk_vs_pi_of_rates": float((inside["Anonymeter risk"] - inside["PI of Anonymeter's rates"]).abs().max())
        if len(inside) else math.nan,
        "alc_vs_pi_full": float((full["ALC"] - full["PI of the midpoints"]).abs().max()) if len(full) else math.nan,
        "wilson_shift": float((anon["PI of Anonymeter's rates"] - anon["PI, control as baseline"]).abs().max()),
    }


def peer_glue(anon: pd.DataFrame, alc: pd.DataFrame, peers: Mapping[str, Any]) -> dict[str, Any]:
    """The peers' numbers the prose quotes (glue keys)."""
    m = anon.xs("members published", level="input").iloc[0]
    s = anon.xs("synthetic copy", level="input").iloc[0]
    naive = anon.xs("ε-DP counts (chapter 5)", level="input").iloc[0]
    nrow = alc.loc["naive attack"]
    grid = pd.DataFrame(peers["alc_grid"])
    at = {r: float(grid.loc[(grid["recall"] - r).abs().idxmin(), "alc"]) for r in (0.01, 0.001)}
    out = {
        "risk_members": float(m["Anonymeter risk"]), "risk_width_members": float(m["risk high"] - m["risk low"]),
        "risk_synth": float(s["Anonymeter risk"]), "risk_naive": float(naive["Anonymeter risk"]),
        "pi_members_ctl": float(m["PI, control as baseline"]), "pi_members_base": float(m["PI vs baseline (same targets)"]),
        "pi_synth_ctl": float(s["PI, control as baseline"]), "pi_synth_base": float(s["PI vs baseline (same targets)"]),
        "p_members": float(m["precision"]), "p_members_ctl": float(m["control precision"]),
        "p_members_base": float(m["baseline precision (same targets)"]),
        "pi_naive": float(naive["PI vs baseline (same targets)"]),
        "alc_members": float(alc.loc["members published | baseline model", "ALC"]),
        "alc_members_ctl": float(alc.loc["members published | control attack", "ALC"]),
        "alc_synth": float(alc.loc["synthetic copy | baseline model", "ALC"]),
        "alc_naive": float(nrow["ALC"]), "alc_naive_recall": float(nrow["attack recall"]),
        "alc_naive_base_recall": float(nrow["base recall"]), "pi_naive_at_alc": float(nrow["PI at the ALC's recall"]),
        "alc_at_1pct": at[0.01], "alc_at_01pct": at[0.001],
        "anonymeter_version": peers["versions"]["anonymeter"],
        "alc_version": peers["versions"]["anonymity-loss-coefficient"],
        "peer_seconds": float(sum(r["seconds"] for r in peers["anonymeter"].values())),
    }
    return out


def peer_glue_missing(reason: str) -> dict[str, Any]:
    """The same glue keys as :func:`peer_glue` when the peers did not run: NaN numbers, ``reason`` as text."""
    text = {"anonymeter_version", "alc_version"}
    keys = ("risk_members", "risk_width_members", "risk_synth", "risk_naive", "pi_members_ctl", "pi_members_base",
            "pi_synth_ctl", "pi_synth_base", "p_members", "p_members_ctl", "p_members_base", "pi_naive",
            "alc_members", "alc_members_ctl", "alc_synth", "alc_naive", "alc_naive_recall", "alc_naive_base_recall",
            "pi_naive_at_alc", "alc_at_1pct", "alc_at_01pct", "anonymeter_version", "alc_version", "peer_seconds")
    return {k: (reason if k in text else math.nan) for k in keys}


def relations_missing() -> dict[str, float]:
    """The keys of :func:`relations`, NaN (the peers did not run)."""
    return {"risk_vs_pi_of_rates": math.nan, "alc_vs_pi_full": math.nan, "wilson_shift": math.nan}


def not_on_scale(table: pd.DataFrame) -> pd.DataFrame:
    """What cannot be placed: the recorded attacks by reason, then each result that is not an attack."""
    grouped = off_reasons(table).reset_index()
    rows = [{"what": f"{r['attacks']} recorded attack(s)", "chapters": r["chapters"], "why": r["why_off"],
             "claim's verdict": ""} for r in grouped.to_dict("records")]
    rows += [{"what": r["name"], "chapters": r["chapter"].split("_")[0], "why": r["why_off"],
              "claim's verdict": r["verdict"]} for r in table[~table["recorded"]].to_dict("records")]
    return pd.DataFrame(rows).set_index("what")

"""The figures and tables of chapter 2: Cormode (2011), the naive attack on ε-DP counts and the deFinetti attack.

Each figure function draws one figure of the chapter and returns it;
``paper`` is the run's look-up of a reported value
(:meth:`anonlab.chapters.kit.ChapterRun.paper`), drawn as the book draws the
paper's values (:mod:`anonlab.plotting`). The table functions return the
tables the chapter shows beside them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import plotting
from ..attacks.definetti import METHODS, DeFinettiSweep, Fig4
from ..attacks.naive_bayes import NaiveRun
from ..chapters.ch02_dp_vs_definetti import DEFAULT_READING, FIG1_IDS, PAPER_SHARE, USUAL_EPS, \
    headline_numbers, timing_claim_id
from ..claims import Measurement
from ..measures import AttackResult, majority_baseline, score, yardstick
from ..mechanisms.dp import EncodedTable

Tables = Mapping[str, tuple[EncodedTable, EncodedTable | None]]
Paper = Callable[[str], float]

METHOD_COLORS = {"permutation": "tab:red", "group": "tab:blue", "open": "tab:green"}
GROUP_NAMES = {1: "tight groups (size l)", 2: "larger groups (size 2l)", 3: "groups of size 3l"}


def _group_name(mult: int) -> str:
    return GROUP_NAMES.get(mult, f"size {mult}l")


def _majority_accuracy(table: EncodedTable) -> float:
    return score(majority_baseline(table.sa_codes)).precision


def fig1(naive: Mapping[str, NaiveRun], tables: Tables, paper: Paper):
    """Fig. 1: accuracy against ε (band: min-max over draws), noiseless classifier, majority baselines."""
    fig, axes = plt.subplots(1, len(tables), figsize=(6.2 * len(tables), 4.2), squeeze=False)
    for ax, (sa, (tr, te)) in zip(axes[0], tables.items()):
        for split in (["train", "test"] if te is not None else ["train"]):
            c = naive[sa].curve(split)
            plotting.measured_band(ax, c["epsilon"], c["accuracy_min"], c["accuracy_mean"], c["accuracy_max"],
                                   label=f"naive attack, {split}")
        ax.axhline(naive[sa].noiseless(), color="tab:green", linestyle=":", label="noiseless classifier")
        ax.axhline(_majority_accuracy(tr), color="grey", label="majority baseline (measured)")
        if sa in FIG1_IDS:
            plotting.paper_hline(ax, paper(FIG1_IDS[sa] + ".majority_baseline"), label="majority baseline (paper)")
        ax.set(xscale="log", xlabel="ε", ylabel="accuracy", title=f"target: {sa} (m = {tr.m})")
        ax.legend(fontsize=8)
    plt.tight_layout()
    return fig


def fig3(naive: Mapping[str, NaiveRun], tables: Tables, threshold: float, paper: Paper, *, adult: bool):
    """Fig. 3: share of tuples with belief above the threshold (top) and their accuracy (bottom)."""
    fig, axes = plt.subplots(2, len(tables), figsize=(6.2 * len(tables), 7), squeeze=False)
    for j, (sa, (_, te)) in enumerate(tables.items()):
        for split in (["train", "test"] if te is not None else ["train"]):
            c = naive[sa].curve(split)
            plotting.measured_band(axes[0, j], c["epsilon"], c["confident_share_min"], c["confident_share_mean"],
                                   c["confident_share_max"], label=split)
            plotting.measured_band(axes[1, j], c["epsilon"], c["confident_accuracy_min"],
                                   c["confident_accuracy_mean"], c["confident_accuracy_max"],
                                   label=f"belief > {threshold:g}, {split}")
        c = naive[sa].curve()
        axes[1, j].plot(c["epsilon"], c["accuracy_mean"], color="grey", label="all tuples, train")
        if sa in PAPER_SHARE:
            plotting.paper_hline(axes[0, j], paper(PAPER_SHARE[sa]), label="paper (ε not stated)")
        if adult:
            plotting.paper_hline(axes[1, j], paper("cormode.fig3.confident_accuracy_085"),
                                 label="paper: up to 85% 'in some cases'")
        axes[0, j].set(xscale="log", xlabel="ε", ylabel=f"share with belief > {threshold:g}", title=f"target: {sa}")
        axes[1, j].set(xscale="log", xlabel="ε", ylabel="accuracy")
        axes[0, j].legend(fontsize=8)
        axes[1, j].legend(fontsize=8, loc="lower right")
    plt.tight_layout()
    return fig


def timing(seconds: float, paper: Paper, *, adult: bool):
    """The whole attack's time here against the paper's."""
    fig, ax = plt.subplots(figsize=(5, 2.2))
    ax.barh(["this book"], [seconds], color="tab:blue")
    ax.barh(["paper (2011)"], [paper(timing_claim_id(adult))], color="white", edgecolor="black", linestyle="--")
    ax.set_xlabel("seconds for the whole naive attack")
    plt.tight_layout()
    return fig


def fig4(f: Fig4, paper: Paper, *, adult: bool):
    """Fig. 4: accuracy of the three methods against l, one panel per group size."""
    S, L = f.summary, f.l_grid
    fig, axes = plt.subplots(1, len(f.multipliers), figsize=(5.2 * len(f.multipliers), 4.2), squeeze=False,
                             sharey=True)
    for ax, mult in zip(axes[0], f.multipliers):
        for m in METHODS:
            s = S[(S["multiplier"] == mult) & (S["method"] == m)].sort_values("l")
            plotting.measured_band(ax, s["l"], s["accuracy_min"], s["accuracy_mean"], s["accuracy_max"],
                                   label=m, color=METHOD_COLORS[m])
        ax.axhline(f.noiseless, color="black", linestyle=":", label="noiseless classifier")
        ax.plot(L, [1 / l for l in L], color="grey", linestyle="-.", label="1/l")
        if adult and mult == 1 and 7 in L:
            plotting.paper_points(ax, [7], [paper("cormode.fig4a.l7_below_30pct")],
                                  label="paper: below 30% at l = 7")
        if adult and mult == 2 and 5 in L:
            ax.axvline(5, **plotting.PAPER_STYLE, label="paper: below noiseless from l = 5")
        ax.set(xlabel="l", ylabel="accuracy", title=_group_name(mult), xticks=L)
        ax.legend(fontsize=8)
    plt.tight_layout()
    return fig


def convergence(sweep: DeFinettiSweep, l_grid: Sequence[int], multipliers: Sequence[int]):
    """Median L1 distance between successive joint distributions over repetitions, per l."""
    tr = sweep.traces
    fig, axes = plt.subplots(1, len(multipliers), figsize=(5.2 * len(multipliers), 3.6), squeeze=False,
                             sharey=True)
    for ax, mult in zip(axes[0], multipliers):
        for l in l_grid:  # noqa: E741
            t = tr[(tr["multiplier"] == mult) & (tr["l"] == l)].groupby("iteration")["l1"].median()
            ax.plot(t.index, t.values, label=f"l = {l}")
        ax.set(xscale="log", yscale="log", xlabel="iteration", ylabel="L1 between successive joints",
               title=_group_name(mult))
        ax.legend(fontsize=7)
    plt.tight_layout()
    return fig


def headline(naive_summary: pd.DataFrame, f: Fig4, table: EncodedTable):
    """The naive attack across ε (left) and the deFinetti attack across l (right), on one scale."""
    nd, target = naive_summary, table.sa_name
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    plotting.measured_band(a1, nd["epsilon"], nd["accuracy_min"], nd["accuracy_mean"], nd["accuracy_max"],
                           label="naive attack on ε-DP counts")
    a1.axvspan(*USUAL_EPS, color="grey", alpha=0.1, label="ε usual in practice (0.1-1)")
    a1.set(xscale="log", xlabel="ε", ylabel="accuracy", title=f"differential privacy, target {target}")
    for mult in f.multipliers:
        a2.plot(f.l_grid, [f.best(mult, l) for l in f.l_grid], marker="o",
                label=f"deFinetti, best method, {_group_name(mult)}")
    a2.set(xlabel="l", title=f"Anatomy + deFinetti, target {target}", xticks=f.l_grid)
    for ax in (a1, a2):
        ax.axhline(f.noiseless, color="black", linestyle=":", label="noiseless classifier")
        ax.axhline(_majority_accuracy(table), color="grey", label="majority baseline")
        ax.legend(fontsize=8)
    plt.tight_layout()
    return fig


def nonmember(table: pd.DataFrame, threshold: float):
    """PI over the non-member baseline against ε, all tuples and the high-confidence subset."""
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    for sa, g in table.groupby("target"):
        ax.plot(g["epsilon"], g["PI"], marker="o", label=f"{sa}, all tuples")
        ax.plot(g["epsilon"], g["PI, belief > threshold"], marker="x", linestyle="--",
                label=f"{sa}, belief > {threshold:g}")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set(xscale="log", xlabel="ε", ylabel="PI over the non-member baseline")
    ax.legend(fontsize=8)
    plt.tight_layout()
    return fig


def tradeoff(ts: pd.DataFrame, target: str):
    """§2.5: accuracy against the number of attributes m, one line per ε."""
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for eps in ts.columns:
        ax.plot(ts.index.get_level_values("m"), ts[eps], marker="o",
                label="noiseless" if math.isinf(eps) else f"ε = {eps:g}")
    ax.set_xticks(ts.index.get_level_values("m"))
    ax.set_xticklabels([f"{m}: +{a}" for m, a in ts.index], fontsize=7, rotation=35, ha="right")
    ax.set(xlabel="m (attribute added)", ylabel="accuracy", title=f"target {target}: accuracy vs number of attributes")
    ax.legend(fontsize=8)
    plt.tight_layout()
    return fig


# ---------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------


def setup_table(tables: Tables) -> pd.DataFrame:
    """One row per target: QIs, m, SA domain size, tuples, majority baseline on train and test."""
    return pd.DataFrame([{
        "target": sa, "quasi-identifiers": ", ".join(tr.qi_names), "m": tr.m, "SA values": tr.n_sa,
        "train tuples": tr.n, "test tuples": te.n if te is not None else 0,
        "majority baseline (train)": _majority_accuracy(tr),
        "majority baseline (test)": score(majority_baseline(te.sa_codes, reference=tr.sa_codes)).precision
        if te is not None else np.nan,
    } for sa, (tr, te) in tables.items()])


def _by_epsilon(naive: Mapping[str, NaiveRun], cols: list[str]) -> pd.DataFrame:
    return pd.concat({sa: r.curve().set_index("epsilon")[cols] for sa, r in naive.items()}, axis=1)


def fig1_table(naive: Mapping[str, NaiveRun]) -> pd.DataFrame:
    """Min / mean / max accuracy over draws per ε (train), one column group per target."""
    return _by_epsilon(naive, ["accuracy_min", "accuracy_mean", "accuracy_max"])


def confident_table(naive: Mapping[str, NaiveRun]) -> pd.DataFrame:
    """Fig. 3's numbers per ε (train): tuples and share with belief above the threshold, their accuracy."""
    return _by_epsilon(naive, ["n_confident_mean", "confident_share_mean", "confident_accuracy_mean", "accuracy_mean"])


def confidence_by_l(f: Fig4) -> pd.DataFrame:
    """§3.2's high-confidence view of the group method: share and accuracy above the threshold, per l and size."""
    S = f.summary
    return S[S["method"] == "group"].pivot_table(
        index="l", columns="multiplier", values=["confident_share_mean", "confident_accuracy_mean", "accuracy_mean"])


def attack_yardstick(records: Mapping[str, tuple[AttackResult, AttackResult]]) -> pd.DataFrame:
    """The recorded attacks scored by :func:`anonlab.measures.yardstick` against their majority baselines."""
    table = yardstick({k: r for k, (r, _) in records.items()}, {k: b for k, (_, b) in records.items()})
    return table[["targets", "predictions", "precision", "precision_low", "precision_high", "coverage",
                  "baseline_precision", "pi"]]


def choice_table(main: Fig4, naive_summary: pd.DataFrame, figs: Mapping[str, Fig4],
                 alt_measured: Mapping[str, Mapping[str, Measurement]]) -> pd.DataFrame:
    """The numbers behind the claims of Fig. 4, one column per reading (the default first).

    Rows: the best method at l = 7 with tight groups and its interval over the repetitions, the naive
    attack's lowest mean accuracy for ε in [0.1, 1], the smallest margin of permutation and group over 1/l
    (tight), the largest |permutation − 1/l| at size 3l, the largest margin of the best method over 1/l at
    l ≥ 6 with ≥ 10 tuples per group, permutation − group at the smallest and group − permutation at the
    largest l (tight), the smallest group − permutation at size 2l, the best method at l = 5, size 10, minus
    the noiseless classifier, and the noiseless classifier. NaN where the grid lacks it.
    """
    def numbers(f: Fig4, naive_lo: float) -> dict[str, float]:
        L, M = f.l_grid, f.multipliers
        nan = float("nan")

        def a(mu: int, l: int, m: str) -> float:  # noqa: E741
            v = f.acc(mu, l, m) if mu in M and l in L else None
            return nan if v is None else v

        def b(mu: int, l: int) -> float:  # noqa: E741
            v = f.best(mu, l) if mu in M and l in L else None
            return nan if v is None else v

        ci = f.interval(1, 7, f.best_method(1, 7)) if 1 in M and 7 in L else None
        big = [b(mu, l) - 1 / l for l in L for mu in M if l >= 6 and l * mu >= 10]
        return {
            "best method, l = 7, tight (paper: < 0.30)": b(1, 7),
            "  its 95% interval over the repetitions: low": nan if ci is None else ci[0],
            "  high": nan if ci is None else ci[1],
            "naive attack, lowest mean for ε in [0.1, 1]": naive_lo,
            "smallest of permutation, group − 1/l over l, tight (> 0)": min(
                min(a(1, l, "permutation"), a(1, l, "group")) - 1 / l for l in L) if 1 in M else nan,
            "largest |permutation − 1/l|, size 3l (about 1/l: ≤ 0.03)": max(
                (abs(a(3, l, "permutation") - 1 / l) for l in L), default=nan) if 3 in M else nan,
            "largest best − 1/l, l ≥ 6 and ≥ 10 tuples (≤ 0.03)": max(big) if big else nan,
            f"permutation − group, l = {min(L)}, tight (> 0)": a(1, min(L), "permutation") - a(1, min(L), "group"),
            f"group − permutation, l = {max(L)}, tight (> 0)": a(1, max(L), "group") - a(1, max(L), "permutation"),
            "smallest group − permutation over l, size 2l (≥ 0)": min(
                a(2, l, "group") - a(2, l, "permutation") for l in L) if 2 in M else nan,
            "best − noiseless, l = 5, size 10 (< 0)": b(2, 5) - f.noiseless,
            "noiseless classifier": f.noiseless,
        }
    cols = {f"{DEFAULT_READING} (default)": numbers(main, headline_numbers(naive_summary)["naive_usual_lo"])}
    for label, f in figs.items():
        cols[label] = numbers(f, alt_measured[label]["naive_usual_lo"].value)
    return pd.DataFrame(cols)

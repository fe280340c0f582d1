"""Figures of membership inference at realistic base rates ([FW24] §1 and §5, and the live attacks).

[FW24]: P. Francis and D. Wagner, "Towards more accurate and useful data
anonymity vulnerability measures", arXiv:2403.06595 (2024). The paper's
numbers come from the claims ledger; the book's convention (measured lines,
the paper as open markers) is :mod:`anonbook.plotting`'s. Every figure is
designed for the book's text column: :data:`WIDTH` inches wide at most
(under the 857 px at which the book's 10 pt text still renders at 9 pt), at
most two panels side by side, legends outside the data.
:func:`skew_frame` gives the series of the chapter's explorable figure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from anonlab import claims
from anonbook import plotting
from anonlab.attacks.membership import LABELS, PAPERS
from anonlab.measures import base_rates

Curves = Mapping[str, tuple[np.ndarray, np.ndarray]]

#: Width of a full-column figure, inches (7.4 in at 110 dpi: 814 px, inside the book's 857 px).
WIDTH = 7.4


def thin_roc(fpr: np.ndarray, tpr: np.ndarray, per_decade: int = 200) -> np.ndarray:
    """Indices of the ROC points worth drawing: the first and last of each run in one log-log cell.

    An ROC curve from tens of thousands of continuous scores has as many
    points, far more than a figure has pixels, and drawing them costs
    seconds. Cutting both axes into ``per_decade`` cells per decade and
    keeping the first and last point of each run of points in the same cell
    changes the drawn curve by less than a cell (1/200 decade: under 1.2 %
    in FPR and TPR, so under 2.4 % in the ratio that sets precision). Only
    figures use it; every number is computed from all points.

    >>> f = np.r_[0.0, np.linspace(0.1, 0.1001, 50), 1.0]
    >>> thin_roc(f, f).tolist()
    [0, 1, 50, 51]
    """
    f, t = np.asarray(fpr, dtype=float), np.asarray(tpr, dtype=float)
    if f.size <= 2:
        return np.arange(f.size)
    with np.errstate(divide="ignore"):
        cells = np.stack([np.floor(np.log10(f) * per_decade), np.floor(np.log10(t) * per_decade)])
    new = np.r_[True, np.any(cells[:, 1:] != cells[:, :-1], axis=0)]
    starts = np.flatnonzero(new)
    return np.unique(np.r_[starts, starts[1:] - 1, f.size - 1])


def plot_worked_example(population: float, fpr: float, fnr: float) -> Any:
    """Precision of one attack against the share of members tested, with §1's two points."""
    curve = base_rates.worked_example(population, fpr, fnr, np.geomspace(1e-4, 0.5, 200))
    fig, ax = plt.subplots(figsize=(WIDTH, 4.2))
    ax.plot(curve["member_share"], curve["precision"], label=f"attack (FPR {fpr:g}, FNR {fnr:g})")
    ax.plot(curve["member_share"], curve["baseline_precision"], ":", color="grey",
            label="everyone is a member (= random guessing)")
    paper = [claims.claim(f"fw.s1.base_rate.{k}.precision") for k in ("balanced", "skewed")]
    plotting.paper_points(ax, [c.params["member_share"] for c in paper], [c.reported for c in paper],
                          label="paper (§1)")
    ax.set(xscale="log", xlabel="share of members among those tested", ylabel="precision",
           title="The same attack, different base rates")
    ax.legend(loc="upper left")  # the empty corner: both curves are low at small shares
    fig.tight_layout()
    return fig


def plot_fig9_roc(cv: Curves) -> Any:
    """Fig. 10's points as ROC curves on log-log axes (the paper's Fig. 9, middle)."""
    fig, ax = plt.subplots(figsize=(WIDTH, 4.2))
    for a, (f, t) in cv.items():
        gf, gt = base_rates.roc_grid(f, t)
        ax.plot(gf, gt, label=f"{PAPERS[a]}, read log-log between the points")
        plotting.paper_points(ax, f, t, label="paper's Fig. 10 points" if a == "carlini" else "_")
    ax.plot([1e-5, 1], [1e-5, 1], ":", color="grey", label="chance")
    ax.set(xscale="log", yscale="log", xlabel="FPR", ylabel="TPR", title="ROC, log-log (the paper's Fig. 9, middle)")
    ax.legend(loc="lower right")  # below the chance line, where no curve goes
    fig.tight_layout()
    return fig


def plot_fig9_precision(cv: Curves, skews: np.ndarray) -> Any:
    """Precision against recall at each skew (Eq 11), one panel per attack of Fig. 10 (the paper's Fig. 9, right)."""
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 4.4), sharey=True)
    for ax, a in zip(axes, ("shokri", "carlini")):
        f, t = cv[a]
        gf, gt = base_rates.roc_grid(f, t)
        dense = base_rates.precision_recall_at_skews(gf, gt, skews)
        points = base_rates.precision_recall_at_skews(f, t, skews)
        for (lab, d), (_, p) in zip(dense.groupby("skew", sort=True), points.groupby("skew", sort=True)):
            (line,) = ax.plot(d["recall"], d["precision"], label=d["skew_label"].iloc[0])
            ax.axhline(d["baseline_precision"].iloc[0], color=line.get_color(), linestyle=":", linewidth=1)
            plotting.paper_points(ax, p["recall"], p["precision"],
                                  label="paper's Fig. 10 points, Eq 11" if lab == skews.max() else "_")
        ax.set(xscale="log", xlabel="recall (TPR)", ylim=(0, 1.02), title=PAPERS[a])
    axes[0].set_ylabel("precision")
    handles, labels = axes[0].get_legend_handles_labels()
    handles.append(plt.Line2D([], [], color="grey", linestyle=":", linewidth=1))
    labels.append("everyone is a member")
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), title="member:non-member skew",
               bbox_to_anchor=(0.5, 0.0), columnspacing=1.2, handlelength=1.6)
    fig.tight_layout(rect=(0, 0.6 / fig.get_figheight(), 1, 1))
    return fig


def plot_statements(cv: Curves, k_shokri: float, k_carlini: float) -> Any:
    """Precision against the share of everyone observed correctly flagged, with the §5 statements as markers.

    Shokri et al.'s curve at skew ``k_shokri``, Carlini et al.'s at ``k_carlini``; the statements about
    "targets" only (the 80 % one is about a recall, another axis).
    """
    c = claims.claim("fw.s5.shokri.precision_40")
    c95 = claims.claim("fw.s5.carlini.precision_95_targets")
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 4.6), sharey=True)
    for ax, a, k, marks in [
        (axes[0], "shokri", k_shokri, [(c.params["targets_fraction"], c.reported)]),
        (axes[1], "carlini", k_carlini, [(c95.reported, c95.params["precision"])]),
    ]:
        gf, gt = base_rates.roc_grid(*cv[a])
        d = base_rates.precision_recall_at_skews(gf, gt, k)
        ax.plot(d["targets_fraction"], d["precision"], label=f"paper's Fig. 10 at {base_rates.skew_label(k)}")
        plotting.paper_points(ax, [m[0] for m in marks], [m[1] for m in marks], label="paper (§5 text)")
        ax.set(xscale="log", ylim=(0, 1.02), xlim=(1e-6, 1e-1), title=PAPERS[a])
        ax.set_xticks([1e-6, 1e-4, 1e-2])
        ax.set_xlabel("correctly flagged share, TP/(M+N)")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)  # under its panel, off the curve
    axes[0].set_ylabel("precision")
    fig.tight_layout()
    return fig


def plot_live_rocs(rocs: Mapping[str, base_rates.RocCurve]) -> Any:
    """The live attacks' ROC curves on linear and log-log axes (drawn through :func:`thin_roc`)."""
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 4.6))
    for a, r in rocs.items():
        keep = thin_roc(r.fpr, r.tpr)
        for ax in axes:
            ax.plot(r.fpr[keep], r.tpr[keep], label=f"{LABELS[a]} (AUC {r.auc:.3f})", drawstyle="steps-post")
    lo = 0.5 / next(iter(rocs.values())).n_non_members
    for ax, scale in zip(axes, ("linear", "log")):
        ax.plot([lo, 1], [lo, 1], ":", color="grey", label="chance")
        ax.set(xscale=scale, yscale=scale, xlabel="FPR", ylabel="TPR")
    axes[0].set_title("linear axes")
    axes[1].set(title="log-log axes (Carlini et al.)", xlim=(lo, 1), ylim=(lo, 1))
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.25 * math.ceil(len(labels) / 2) / fig.get_figheight(), 1, 1))
    return fig


def plot_pr_at_skews(rocs: Mapping[str, base_rates.RocCurve], skews: np.ndarray) -> Any:
    """Every threshold of every attack at each skew (Eq 11), with its conservative interval shaded.

    Two panels a row, one per skew; the legend takes an empty panel when there is one, else sits above.
    Drawn through :func:`thin_roc` (the thresholds a figure can show).
    """
    nrow = int(math.ceil(len(skews) / 2))
    fig, axes = plt.subplots(nrow, 2, figsize=(WIDTH, 2.5 * nrow + 0.6), sharey=True, squeeze=False)
    for ax, k in zip(axes.ravel(), skews):
        for a, r in rocs.items():
            keep = thin_roc(r.fpr, r.tpr)[1:]  # without the first point, which flags no one
            d = base_rates.precision_recall_at_skews(r.fpr[keep], r.tpr[keep], k)
            lo_, hi_ = base_rates.precision_interval_at_skew(r.tp[keep], r.n_members, r.fp[keep], r.n_non_members, k)
            (line,) = ax.plot(d["recall"], d["precision"], label=LABELS[a], linewidth=1)
            ax.fill_between(d["recall"], lo_, hi_, color=line.get_color(), alpha=0.15, linewidth=0)
        ax.axhline(float(base_rates.everyone_is_member(k)["precision"].iloc[0]), color="grey", linestyle=":",
                   label="everyone is a member")
        ax.set(xscale="log", ylim=(0, 1.02))
        ax.set_title(f"skew {base_rates.skew_label(k)}", loc="left")
    for ax in axes[:, 0]:
        ax.set_ylabel("precision")
    for j in range(2):
        used = [i for i in range(nrow) if i * 2 + j < len(skews)]
        axes[used[-1], j].set_xlabel("recall")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    if len(skews) % 2:
        spare = axes[-1, 1]
        spare.axis("off")
        spare.legend(handles, labels, loc="center")
        fig.tight_layout()
    else:
        fig.legend(handles, labels, loc="upper center", ncol=3, bbox_to_anchor=(0.5, 1.0))
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.75 / fig.get_figheight()))
    return fig


def plot_sweep(sweep: pd.DataFrame) -> Any:
    """Loss-attack AUC against the generalisation gap, one point per depth (nothing for an empty sweep)."""
    if sweep.empty:
        return None
    fig, ax = plt.subplots(figsize=(WIDTH * 0.8, 3.8))
    ax.plot(sweep["gap"], sweep["AUC"], "o-")
    for _, row in sweep.iterrows():
        ax.annotate(f"depth {row['max_depth']}", (row["gap"], row["AUC"]), textcoords="offset points",
                    xytext=(6, -12))
    ax.margins(x=0.15, y=0.15)
    ax.set(xlabel="generalisation gap (train - test accuracy)", ylabel="loss attack AUC",
           title="More capacity, more memorisation")
    fig.tight_layout()
    return fig


def skew_frame(cv: Curves, skew: str | float, per_decade: int = 10) -> dict[str, tuple[list[float], list[float]]]:
    """One frame of the explorable figure: each Fig. 10 attack's precision against TP/(M+N) at ``skew`` (Eq 11).

    The curve is read log-log between Fig. 10's points (:func:`~anonlab.measures.base_rates.roc_grid`,
    ``per_decade`` grid points per decade, the table's own points included), as in :func:`plot_statements`;
    the x value is the share of everyone observed who is correctly flagged, the ledger's default reading of
    §5's "targets".

    >>> f = skew_frame({"shokri": (np.array([1e-4, 1.0]), np.array([2e-3, 1.0]))}, "1:30", per_decade=1)
    >>> [round(v, 3) for v in f["Shokri et al."][1]][:1]
    [0.4]
    """
    k = float(base_rates.as_skews([skew])[0])
    out = {}
    for a, (f, t) in cv.items():
        gf, gt = base_rates.roc_grid(f, t, points_per_decade=per_decade)
        d = base_rates.precision_recall_at_skews(gf, gt, k)
        out[PAPERS.get(a, a)] = (d["targets_fraction"].astype(float).tolist(), d["precision"].astype(float).tolist())
    return out


def statement_points() -> list[Any]:
    """§5's two statements about "targets" as the explorable figure's paper points (ledger values)."""
    from anonbook.explore import Series

    c40 = claims.claim("fw.s5.shokri.precision_40")
    c95 = claims.claim("fw.s5.carlini.precision_95_targets")
    return [Series(f"paper: {PAPERS['shokri']}, {c40.reported:.0%} for 1 in {1 / c40.params['targets_fraction']:,.0f}",
                   [c40.params["targets_fraction"]], [c40.reported]),
            Series(f"paper: {PAPERS['carlini']}, {c95.params['precision']:.0%} for 1 in {1 / c95.reported:,.0f}",
                   [c95.reported], [c95.params["precision"]])]

"""Figures of membership inference at realistic base rates ([FW24] §1 and §5, and the live attacks).

[FW24]: P. Francis and D. Wagner, "Towards more accurate and useful data
anonymity vulnerability measures", arXiv:2403.06595 (2024). The paper's
numbers come from the claims ledger; the book's convention (measured lines,
the paper as open markers) is :mod:`anonlab.plotting`'s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import claims, plotting
from ..attacks.membership import LABELS, PAPERS
from ..measures import base_rates

Curves = Mapping[str, tuple[np.ndarray, np.ndarray]]


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
    fig, ax = plt.subplots()
    ax.plot(curve["member_share"], curve["precision"], label=f"attack (FPR {fpr:g}, FNR {fnr:g})")
    ax.plot(curve["member_share"], curve["baseline_precision"], ":", color="grey",
            label="everyone is a member (= random guessing)")
    paper = [claims.claim(f"fw.s1.base_rate.{k}.precision") for k in ("balanced", "skewed")]
    plotting.paper_points(ax, [c.params["member_share"] for c in paper], [c.reported for c in paper],
                          label="paper (§1)")
    ax.set(xscale="log", xlabel="share of members among those tested", ylabel="precision",
           title="The same attack, different base rates")
    ax.legend()
    return fig


def plot_fig9(cv: Curves, skews: np.ndarray) -> Any:
    """Fig. 10's curves on log-log axes, and precision against recall at each skew (Eq 11)."""
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    ax = axes[0]
    for a, (f, t) in cv.items():
        gf, gt = base_rates.roc_grid(f, t)
        ax.plot(gf, gt, label=PAPERS[a])
        plotting.paper_points(ax, f, t, label="paper (Fig. 10)" if a == "carlini" else "_")
    ax.plot([1e-5, 1], [1e-5, 1], ":", color="grey", label="chance")
    ax.set(xscale="log", yscale="log", xlabel="FPR", ylabel="TPR", title="ROC, log-log (Fig. 9 middle)")
    ax.legend()
    for ax, a in zip(axes[1:], ("shokri", "carlini")):
        f, t = cv[a]
        gf, gt = base_rates.roc_grid(f, t)
        dense = base_rates.precision_recall_at_skews(gf, gt, skews)
        points = base_rates.precision_recall_at_skews(f, t, skews)
        for (lab, d), (_, p) in zip(dense.groupby("skew", sort=True), points.groupby("skew", sort=True)):
            (line,) = ax.plot(d["recall"], d["precision"], label=d["skew_label"].iloc[0])
            ax.axhline(d["baseline_precision"].iloc[0], color=line.get_color(), linestyle=":", linewidth=1)
            plotting.paper_points(ax, p["recall"], p["precision"],
                                  label="paper points, Eq 11" if lab == skews.max() else "_")
        ax.set(xscale="log", xlabel="recall (TPR)", ylabel="precision", ylim=(0, 1.02), title=PAPERS[a])
        ax.legend(title="member:non-member", fontsize=8)
    fig.tight_layout()
    return fig


def plot_statements(cv: Curves, k_shokri: float, k_carlini: float) -> Any:
    """Precision against the share of everyone observed correctly flagged, with the §5 statements as markers.

    Shokri et al.'s curve at skew ``k_shokri``, Carlini et al.'s at ``k_carlini``; the statements about
    "targets" only (the 80 % one is about a recall, another axis).
    """
    c = claims.claim("fw.s5.shokri.precision_40")
    c95 = claims.claim("fw.s5.carlini.precision_95_targets")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, a, k, marks in [
        (axes[0], "shokri", k_shokri, [(c.params["targets_fraction"], c.reported)]),
        (axes[1], "carlini", k_carlini, [(c95.reported, c95.params["precision"])]),
    ]:
        gf, gt = base_rates.roc_grid(*cv[a])
        d = base_rates.precision_recall_at_skews(gf, gt, k)
        ax.plot(d["targets_fraction"], d["precision"], label=f"Fig. 10, log-log, {base_rates.skew_label(k)}")
        plotting.paper_points(ax, [m[0] for m in marks], [m[1] for m in marks], label="paper (§5 text)")
        ax.set(xscale="log", xlabel="share of everyone observed correctly flagged, TP/(M+N)", ylabel="precision",
               ylim=(0, 1.02), xlim=(1e-6, 1e-1), title=PAPERS[a])
        ax.legend()
    fig.tight_layout()
    return fig


def plot_live_rocs(rocs: Mapping[str, base_rates.RocCurve]) -> Any:
    """The live attacks' ROC curves on linear and log-log axes (drawn through :func:`thin_roc`)."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4))
    for a, r in rocs.items():
        keep = thin_roc(r.fpr, r.tpr)
        for ax in axes:
            ax.plot(r.fpr[keep], r.tpr[keep], label=f"{LABELS[a]} (AUC {r.auc:.3f})", drawstyle="steps-post")
    lo = 0.5 / next(iter(rocs.values())).n_non_members
    for ax, scale in zip(axes, ("linear", "log")):
        ax.plot([lo, 1], [lo, 1], ":", color="grey", label="chance")
        ax.set(xscale=scale, yscale=scale, xlabel="FPR", ylabel="TPR")
    axes[0].set_title("ROC, linear axes")
    axes[1].set(title="ROC, log-log axes (Carlini et al.)", xlim=(lo, 1), ylim=(lo, 1))
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_pr_at_skews(rocs: Mapping[str, base_rates.RocCurve], skews: np.ndarray) -> Any:
    """Every threshold of every attack at each skew (Eq 11), with its conservative interval shaded.

    Drawn through :func:`thin_roc` (the thresholds a figure can show).
    """
    ncol = min(4, len(skews))
    nrow = int(math.ceil(len(skews) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.4 * ncol, 3.2 * nrow), sharey=True, squeeze=False)
    for ax, k in zip(axes.ravel(), skews):
        for a, r in rocs.items():
            keep = thin_roc(r.fpr, r.tpr)[1:]  # without the first point, which flags no one
            d = base_rates.precision_recall_at_skews(r.fpr[keep], r.tpr[keep], k)
            lo_, hi_ = base_rates.precision_interval_at_skew(r.tp[keep], r.n_members, r.fp[keep], r.n_non_members, k)
            (line,) = ax.plot(d["recall"], d["precision"], label=LABELS[a], linewidth=1)
            ax.fill_between(d["recall"], lo_, hi_, color=line.get_color(), alpha=0.15, linewidth=0)
        ax.axhline(float(base_rates.everyone_is_member(k)["precision"].iloc[0]), color="grey", linestyle=":")
        ax.set(xscale="log", ylim=(0, 1.02), title=base_rates.skew_label(k), xlabel="recall")
    for ax in axes.ravel()[len(skews):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("precision")
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_sweep(sweep: pd.DataFrame) -> Any:
    """Loss-attack AUC against the generalisation gap, one point per depth (nothing for an empty sweep)."""
    if sweep.empty:
        return None
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    ax.plot(sweep["gap"], sweep["AUC"], "o-")
    for _, row in sweep.iterrows():
        ax.annotate(f"depth {row['max_depth']}", (row["gap"], row["AUC"]), fontsize=8,
                    textcoords="offset points", xytext=(4, -10))
    ax.set(xlabel="generalisation gap (train - test accuracy)", ylabel="loss attack AUC",
           title="More capacity, more memorisation")
    return fig

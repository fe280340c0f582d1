"""Figures of δ(ε) for a passive and an active attacker (chapter 8; matplotlib is imported when drawing).

Every figure is at most :data:`WIDTH` inches wide, so at the book's 110 dpi it fits the 772 px text
column and its 10 pt text is shown at 10 pt; at most two panels sit side by side, and legends sit
below the panels, away from the curves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonlab.measures.privacy_loss import PartialKnowledgeDelta

STYLE = {"passive": dict(color="#1565c0", label="passive attacker (PPKDP)"),
         "active": dict(color="#c62828", linestyle="--", label="active attacker (APKDP)")}

#: Width of a figure of this module, inches (the layout rule: natural width at most 857 px at 110 dpi).
WIDTH = 7.4


def delta_curves(ax: Any, r: PartialKnowledgeDelta, markers: tuple[str, str] = (".", ".")) -> None:
    """log10 δ(ε) of the passive and the active attacker on ``ax`` (δ = 0 is not drawn: log10 0 = −∞)."""
    for who, marker in zip(("passive", "active"), markers):
        ax.plot(r.epsilons, getattr(r, f"log_{who}") / np.log(10), marker=marker, **STYLE[who])


def _legend_below(fig: Any, handles: Sequence[Any], ncol: int = 2) -> None:
    """One legend for the figure, centred below its panels (call after ``tight_layout``)."""
    fig.legend(handles=list(handles), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol)


def _privacy_bar(ax: Any, delta_private: float) -> None:
    ax.axhline(np.log10(delta_private), color="grey", linewidth=0.8, label=f"δ = {delta_private:g} (the privacy bar)")


def delta_panels(sweep: Mapping[tuple[str, float], PartialKnowledgeDelta], p_values: Sequence[float],
                 mechanism: str = "thresholded tally", reference: str | None = "exact tally",
                 delta_private: float | None = None, ncols: int = 2, title: str | None = None):
    """Small multiples, one panel per p (at most ``ncols`` ≤ 2 side by side): :func:`delta_curves` of ``mechanism``.

    ``reference`` (dotted black) is a mechanism for which both attackers
    coincide, e.g. the exact tally; ``delta_private`` draws the privacy bar
    (grey). One legend below the panels; ``title`` (default: the mechanism)
    above them.
    """
    import matplotlib.pyplot as plt

    if not 1 <= ncols <= 2:
        raise ValueError(f"ncols must be 1 or 2 (panels side by side), got {ncols}")
    ps = list(p_values)
    ncols = min(ncols, len(ps))
    nrows = int(np.ceil(len(ps) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(WIDTH if ncols == 2 else 5.5, 2.3 * nrows + 0.6),
                             sharex=True, squeeze=False)
    for ax, p in zip(axes.ravel(), ps):
        delta_curves(ax, sweep[mechanism, float(p)])
        if reference is not None:
            ref = sweep[reference, float(p)]
            ax.plot(ref.epsilons, ref.log_active / np.log(10), ":", color="black", label=f"{reference} (both)")
        if delta_private is not None:
            _privacy_bar(ax, delta_private)
        ax.set_title(f"p = {p:g}", fontsize=11)
    for ax in axes.ravel()[len(ps):]:
        ax.set_visible(False)
    for ax in axes.ravel()[len(ps) - ncols:len(ps)]:
        ax.set_xlabel("ε")
        ax.xaxis.set_tick_params(labelbottom=True)
    for ax in axes[:, 0]:
        ax.set_ylabel("log10 δ(ε)")
    fig.suptitle(title or mechanism)
    fig.tight_layout()
    _legend_below(fig, axes[0, 0].get_legend_handles_labels()[0])
    return fig


def p_summary(table: pd.DataFrame, epsilon_verdict: float, delta_private: float, reveal_probability: float,
              p_example: float):
    """Two panels against p: log10 δ at ε_verdict (passive, active, exact tally); Pr[the vote is settled].

    ``table``: :func:`anonbook.chapters.ch08_passive_active.sweep_table`. Each panel's legend sits below it.
    """
    import matplotlib.pyplot as plt

    thr = table[table.mechanism == "thresholded tally"].sort_values("p")
    ex = table[table.mechanism == "exact tally"].sort_values("p")
    fig, (a, b) = plt.subplots(1, 2, figsize=(WIDTH, 3.6))
    a.plot(thr.p, thr.log10_delta_passive, marker="o", **STYLE["passive"])
    a.plot(thr.p, thr.log10_delta_active, marker="s", **STYLE["active"])
    a.plot(ex.p, ex.log10_delta_active, ":", color="black", marker=".", label="exact tally (both)")
    a.axhline(np.log10(delta_private), color="grey", linewidth=0.8, label=f"δ = {delta_private:g}")
    a.set(xscale="log", xlabel="p (probability of a Yes vote)", ylabel=f"log10 δ(ε = {epsilon_verdict:g})",
          title="thresholded tally:\nδ at one ε")
    b.plot(thr.p, thr.settled_active, marker="s", color=STYLE["active"]["color"],
           label="active: the output settles\nthe target's vote")
    b.plot(thr.p, 10.0 ** thr.log10_settled_passive, marker="o", color=STYLE["passive"]["color"],
           label="passive: same")
    b.axhline(reveal_probability, color="grey", linewidth=0.8,
              label=f"the book's stronger test ({reveal_probability:g})")
    for ax in (a, b):
        ax.axvline(p_example, color="#888", linestyle="-.", linewidth=0.8, label=f"p of the example ({p_example:g})")
    b.set(xscale="log", xlabel="p (probability of a Yes vote)", ylabel="probability", ylim=(-0.02, 1.02),
          title="Pr[privacy loss = ∞]\n(the vote is certain)")
    fig.tight_layout()
    for ax in (a, b):
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22))
    return fig


def plot_example(sweep: Mapping[tuple[str, float], PartialKnowledgeDelta], p: float,
                 delta_private: float | None = None, mechanism: str = "thresholded tally",
                 reference: str = "exact tally") -> Any:
    """Example 7 at one Yes probability: :func:`delta_curves` of ``mechanism`` with ``reference`` (dotted)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(WIDTH, 3.4))
    delta_curves(ax, sweep[mechanism, float(p)])
    ref = sweep[reference, float(p)]
    ax.plot(ref.epsilons, ref.log_active / np.log(10), ":", color="black", label=f"{reference} (both)")
    if delta_private is not None:
        _privacy_bar(ax, delta_private)
    ax.set(xlabel="ε", ylabel="log10 δ(ε)", title=f"{mechanism}, p = {p:g}")
    fig.tight_layout()
    _legend_below(fig, ax.get_legend_handles_labels()[0])
    return fig


def plot_referendum(r: PartialKnowledgeDelta, title: str = "exact tally: passive = active") -> Any:
    """δ(ε) of the referendum's exact tally for both attackers (the curves coincide: Θ-reducibility)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    delta_curves(ax, r, markers=("o", "s"))
    ax.set(xlabel="ε", ylabel="log10 δ(ε)", title=title)
    ax.legend(loc="upper right")
    fig.tight_layout()
    return fig


def noise_panels(sweep: Mapping[tuple[str, float], PartialKnowledgeDelta], mechanisms: Sequence[str], p: float,
                 noise_epsilon: float, epsilons: Sequence[float]) -> Any:
    """One panel per noisy mechanism (two side by side, then further rows) at Yes probability ``p``.

    A vertical line marks the noise's ε; a curve that stops has reached δ = 0. One legend below.
    """
    import matplotlib.pyplot as plt

    names = list(mechanisms)
    ncols = min(2, len(names))
    nrows = int(np.ceil(len(names) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(WIDTH, 3.4 * nrows), sharey=True, squeeze=False)
    eps = np.asarray(epsilons, dtype=float)
    for ax, name in zip(axes.ravel(), names):
        delta_curves(ax, sweep[name, float(p)])
        ax.axvline(noise_epsilon, color="grey", linewidth=0.8, label=f"ε of the noise ({noise_epsilon:g})")
        ax.set(title=f"{name},\np = {p:g}", xlabel="ε", xlim=(eps.min() - 0.2, eps.max() + 0.2))
    for ax in axes.ravel()[len(names):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("log10 δ(ε)")
    fig.tight_layout()
    _legend_below(fig, axes[0, 0].get_legend_handles_labels()[0])
    return fig

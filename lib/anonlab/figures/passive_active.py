"""Figures of δ(ε) for a passive and an active attacker (chapter 8; matplotlib is imported when drawing)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..measures.privacy_loss import PartialKnowledgeDelta

STYLE = {"passive": dict(color="#1565c0", label="passive attacker (PPKDP)"),
         "active": dict(color="#c62828", linestyle="--", label="active attacker (APKDP)")}


def delta_curves(ax: Any, r: PartialKnowledgeDelta, markers: tuple[str, str] = (".", ".")) -> None:
    """log10 δ(ε) of the passive and the active attacker on ``ax`` (δ = 0 is not drawn: log10 0 = −∞)."""
    for who, marker in zip(("passive", "active"), markers):
        ax.plot(r.epsilons, getattr(r, f"log_{who}") / np.log(10), marker=marker, **STYLE[who])


def delta_panels(sweep: Mapping[tuple[str, float], PartialKnowledgeDelta], p_values: Sequence[float],
                 mechanism: str = "thresholded tally", reference: str | None = "exact tally",
                 delta_private: float | None = None, ncols: int = 4):
    """Small multiples, one panel per p: :func:`delta_curves` of ``mechanism``.

    ``reference`` (dotted black) is a mechanism for which both attackers
    coincide, e.g. the exact tally.
    """
    import matplotlib.pyplot as plt

    ps = list(p_values)
    ncols = min(ncols, len(ps))
    nrows = int(np.ceil(len(ps) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.3 * ncols, 2.8 * nrows), squeeze=False)
    for ax, p in zip(axes.ravel(), ps):
        delta_curves(ax, sweep[mechanism, float(p)])
        if reference is not None:
            ref = sweep[reference, float(p)]
            ax.plot(ref.epsilons, ref.log_active / np.log(10), ":", color="black", label=f"{reference} (both)")
        if delta_private is not None:
            ax.axhline(np.log10(delta_private), color="grey", linewidth=0.8)
        ax.set_title(f"p = {p:g}", fontsize=9)
    for ax in axes.ravel()[len(ps):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("ε")
    for ax in axes[:, 0]:
        ax.set_ylabel("log10 δ(ε)")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(mechanism)
    fig.tight_layout()
    return fig


def p_summary(table: pd.DataFrame, epsilon_verdict: float, delta_private: float, reveal_probability: float,
              p_example: float):
    """Two panels against p: log10 δ at ε_verdict (passive, active, exact tally); Pr[the vote is settled].

    ``table``: :func:`anonlab.chapters.ch08_passive_active.sweep_table`.
    """
    import matplotlib.pyplot as plt

    thr = table[table.mechanism == "thresholded tally"].sort_values("p")
    ex = table[table.mechanism == "exact tally"].sort_values("p")
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8))
    a.plot(thr.p, thr.log10_delta_passive, marker="o", **STYLE["passive"])
    a.plot(thr.p, thr.log10_delta_active, marker="s", **STYLE["active"])
    a.plot(ex.p, ex.log10_delta_active, ":", color="black", marker=".", label="exact tally (both)")
    a.axhline(np.log10(delta_private), color="grey", linewidth=0.8, label=f"δ = {delta_private:g}")
    a.set(xscale="log", xlabel="p (probability of a Yes vote)", ylabel=f"log10 δ(ε = {epsilon_verdict:g})",
          title="thresholded tally: δ at one ε")
    b.plot(thr.p, thr.settled_active, marker="s", color=STYLE["active"]["color"],
           label="active: output settles the target's vote")
    b.plot(thr.p, 10.0 ** thr.log10_settled_passive, marker="o", color=STYLE["passive"]["color"],
           label="passive: same")
    b.axhline(reveal_probability, color="grey", linewidth=0.8,
              label=f"the book's stronger test ({reveal_probability:g})")
    for ax in (a, b):
        ax.axvline(p_example, color="#888", linestyle="-.", linewidth=0.8)
    b.set(xscale="log", xlabel="p (probability of a Yes vote)", ylabel="probability", ylim=(-0.02, 1.02),
          title="Pr[privacy loss = ∞] (the vote is certain)")
    a.legend(fontsize=7)
    b.legend(fontsize=7)
    fig.tight_layout()
    return fig

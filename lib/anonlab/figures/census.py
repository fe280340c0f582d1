"""Figures of chapter 4: the reconstruction attack and the block-majority guess against ε (matplotlib)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd


def epsilon_lines(table: pd.DataFrame, epsilons: Sequence[float], axes: Any) -> None:
    """Precision and recall against ε (DP) on two axes, the swapped publication as dotted lines.

    ``table``: :func:`anonlab.chapters.ch04_census_reconstruction.epsilon_table`.
    """
    from matplotlib.ticker import NullLocator

    dp = table[table["publication"].str.startswith("dp")]
    for ax, what in zip(axes, ["precision", "recall"]):
        for name, g in dp.groupby("inference", sort=False):
            line, = ax.plot(g["epsilon"], g[what], marker="o", label=name)
            swap = table[(table["publication"] == "swapping") & (table["inference"] == name)][what].iloc[0]
            ax.axhline(swap, color=line.get_color(), linestyle=":", linewidth=1)
        ax.set(xscale="log", xlabel="ε per block (DP)", ylabel=what + (" = correct / people" if what == "recall"
                                                                      else ""), ylim=(-0.02, 1.02))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticks(list(epsilons), [f"{e:g}" for e in epsilons])
    axes[0].legend(fontsize=8, title="dotted: swapping", title_fontsize=8)

"""Figures of chapter 4: the block sizes, and the reconstruction attack and the block-majority guess against ε.

matplotlib is imported when drawing. Every figure is at most :data:`WIDTH` inches wide, so at the
book's 110 dpi it fits the 772 px text column and its 10 pt text is shown at 10 pt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

#: Width of a figure of this module, inches (the layout rule: natural width at most 857 px at 110 dpi).
WIDTH = 7.4


def plot_block_sizes(block_sizes: Sequence[int], max_shown: int = 400, bin_width: int = 10) -> Any:
    """Histogram of the people per block, in bins of ``bin_width`` people up to ``max_shown``."""
    import matplotlib.pyplot as plt

    sizes = np.asarray(block_sizes)
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.hist(sizes, bins=np.arange(0, min(sizes.max(), max_shown) + bin_width, bin_width), color="grey")
    ax.set(xlabel="people in the block", ylabel="blocks", title="Block sizes of the synthetic population")
    fig.tight_layout()
    return fig


def epsilon_lines(table: pd.DataFrame, epsilons: Sequence[float], axes: Any) -> list[Any]:
    """Precision and recall against ε (DP) on two axes, the swapped publication as dotted lines.

    ``table``: :func:`anonbook.chapters.ch04_census_reconstruction.epsilon_table`. Returns the legend's
    handles: one line per inference and one that says what the dotted lines are.
    """
    from matplotlib.lines import Line2D
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
    swapped = Line2D([], [], color="grey", linestyle=":", linewidth=1, label="swapped tables (2010), same colour")
    return [*axes[0].get_legend_handles_labels()[0], swapped]


def plot_epsilon(table: pd.DataFrame, epsilons: Sequence[float]) -> Any:
    """:func:`epsilon_lines` on a figure of two panels, precision and recall, with one legend below them."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 3.4))
    handles = epsilon_lines(table, epsilons, axes)
    fig.tight_layout()
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2)
    return fig

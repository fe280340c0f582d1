"""Figures of the Diffix chapters (6a and 6b)."""

from __future__ import annotations

from typing import Any

import pandas as pd


def plot_yardstick(ax: Any, yard: pd.DataFrame) -> None:
    """Each attack's precision at its coverage (dot) against the majority guess on the same targets (bar).

    ``yard`` is :func:`anonlab.measures.binary_yardstick`. The legend sits under the axes, off the data.
    """
    for (dsn, attack), r in yard.iterrows():
        line = ax.plot(r["coverage"], r["precision"], "o", ms=7, label=f"{dsn.upper()}: {attack}")[0]
        ax.plot([r["coverage"]] * 2, [r["baseline_precision"], r["precision"]], "-", color=line.get_color(), lw=1)
        ax.plot(r["coverage"], r["baseline_precision"], "_", color=line.get_color(), ms=16, mew=2)
    ax.set(xlabel="coverage (share of the targets the attack guesses for)", ylabel="precision of the guesses",
           xlim=(0, 1.02), ylim=(0.4, 1.02),
           title="Each attack (dot) against the majority guess\non the same targets (bar)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)


def yardstick_figure(yard: pd.DataFrame) -> Any:
    """The figure of :func:`plot_yardstick`, 7 inches wide (the book's column)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    plot_yardstick(ax, yard)
    return fig

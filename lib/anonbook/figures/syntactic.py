"""Figures of syntactic anonymity (chapter 1): the t-closeness bars and the generalisation ladder's sweep."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from anonbook import plotting
from anonlab.attacks.homogeneity import suppression_outcome


#: Width of a figure of this module, inches: at the book's 110 dpi it fits the 772 px text column, so
#: its 10 pt text is shown at 10 pt (the layout rule: natural width at most 857 px).
WIDTH = 7.4


def plot_t_closeness(t_table: pd.DataFrame, reported_salary: float, reported_disease: float,
                     disease_columns: Mapping[str, str]) -> Any:
    """Bar charts of each class's EMD with the slides' t as a dashed line.

    Left: Salary (column ``salary (ordered)``). Right: Disease under each
    reading of the unstated hierarchy (``disease_columns``: reading -> column
    of ``t_table``), side by side per class. One legend for both panels, below
    them, so that no bar is hidden.
    """
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 3.3), sharey=True)
    labels = (t_table["zip_code"] + "\n" + t_table["age"]).tolist()
    x = np.arange(len(labels))
    axes[0].bar(x, t_table["salary (ordered)"], color="tab:purple", label="salary, per class")
    axes[0].set_title("salary (ordered distance)")
    width = 0.8 / len(disease_columns)
    colors = ["tab:blue", "tab:orange", "tab:gray"]
    for j, ((label, col), color) in enumerate(zip(disease_columns.items(), colors)):
        axes[1].bar(x + (j - 1) * width, t_table[col], width=width, color=color, label=f"disease: {label}")
    axes[1].set_title("disease, by reading of the hierarchy")
    for ax, reported in [(axes[0], reported_salary), (axes[1], reported_disease)]:
        plotting.paper_hline(ax, reported, label="the slides' t" if ax is axes[0] else "_nolegend_")
        ax.set_xticks(x, labels)
        ax.set_xlabel("equivalence class (ZIP, age)")
    axes[0].set_ylabel("EMD to the whole table")
    top = t_table[["salary (ordered)", *disease_columns.values()]].max().max()
    axes[0].set_ylim(0, 1.1 * max(top, reported_disease))
    fig.tight_layout()
    handles = [h for ax in axes for h in ax.get_legend_handles_labels()[0]]
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2)
    return fig


def plot_sweep(sweep: pd.DataFrame, k_target: int) -> Any:
    """k and l along the ladder (log scale) and the suppression cost of reaching ``k_target``.

    The left panel's legend sits below the figure: the curves fill the panel.
    """
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(WIDTH, 3.3))
    ax1.plot(sweep.index, sweep["k"], marker="o", label="k (no suppression)")
    ax1.plot(sweep.index, sweep["k_after"], marker="o", label=f"k after suppression to {k_target}")
    ax1.plot(sweep.index, sweep["l_distinct_after"], marker="s", label="distinct l after suppression")
    ax1.plot(sweep.index, sweep["l_entropy_after"], marker="^", label="entropy l after suppression")
    ax1.set_yscale("log")
    ax1.set_xlabel("generalisation level")
    ax1.set_ylabel("value (log scale)")
    ax1.set_title("k and l")
    ax2.plot(sweep.index, 100 * sweep["suppressed"], marker="o", color="tab:red")
    ax2.set_xlabel("generalisation level")
    ax2.set_ylabel("records suppressed (%)")
    ax2.set_title(f"cost of reaching k = {k_target}")
    fig.tight_layout()
    fig.legend(handles=ax1.get_legend_handles_labels()[0], loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2)
    return fig


#: The lines of chapter 1's explorable figure (:func:`homogeneity_frame`): key -> legend label.
FRAME_LINES = {"disclosed": "disclosed with certainty (homogeneity attack)",
               "best_guess": "right: the class's most common value", "majority": "right: majority guess (baseline)",
               "suppressed": "records suppressed to reach k"}


def homogeneity_frame(levels: Sequence[pd.DataFrame], quasi_identifiers: Sequence[str], sensitive_attribute: str,
                      k: int) -> dict[str, tuple[list[int], list[float]]]:
    """Per ladder level (x: 0, 1, ...; ``levels`` are the generalised tables), the shares of
    :func:`~anonlab.attacks.homogeneity.suppression_outcome` once each is made k-anonymous by suppression."""
    out = [suppression_outcome(t, quasi_identifiers, sensitive_attribute, k) for t in levels]
    return {line: (list(range(len(out))), [o[key] for o in out]) for key, line in FRAME_LINES.items()}


def last_disclosing_k(e: Any) -> int | None:
    """The largest k of an explorable of :func:`anonbook.chapters.ch01_syntactic_anonymity.homogeneity_explorable` at which some level still discloses."""
    hit = [v for v, f in zip(e.values, e.frames) if any(y > 0 for y in f[0].y)]
    return max(hit) if hit else None

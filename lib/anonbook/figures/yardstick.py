"""Figures of chapter 9: every attack on one precision-coverage plane, and the ALC's recall weighting."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

#: Colours of where an attack stands against its baseline (keys: anonbook.verdicts.yardstick.POSITIONS).
POSITION_COLORS = {"learns beyond the baseline": "#1b7837", "no better than the baseline": "#b8860b",
                   "worse than the baseline": "#b2182b", "scored against a weaker prior only": "#8073ac",
                   "off the scale": "#777777"}


def plot_yardstick(table: pd.DataFrame, papers: Mapping[str, tuple[str, str]]):
    """Precision against coverage of every recorded attack that predicted, its baseline joined below or above it.

    One marker shape per paper (``papers``: key -> (label, marker)), the
    colour says where the attack stands; the baseline's precision on the
    same targets is a small grey dot at the same coverage, joined to the
    attack by a line. Coverage is on a log scale (from a few per ten thousand
    to every target). The legend sits under the axes, in three columns, so
    the figure fits the text column (about 6.8 inches) with every text at 10 pt.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    rec = table[table["recorded"] & (table["predictions"] > 0)]
    fig, ax = plt.subplots(figsize=(6.7, 4.4))
    for r in rec.to_dict("records"):
        x, y, b = r["coverage"], r["precision"], r.get("baseline_precision", math.nan)
        if isinstance(b, float) and math.isfinite(b):
            ax.plot([x, x], [b, y], color="#999999", lw=0.8, zorder=1)
            ax.scatter([x], [b], s=10, color="#999999", zorder=2)
        ax.scatter([x], [y], marker=papers[r["paper"]][1], s=46, color=POSITION_COLORS[r["position"]],
                   edgecolor="black", linewidth=0.4, zorder=3)
    ax.set_xscale("log")
    ax.set_xlim(5e-4, 1.6)
    ax.set_ylim(-0.03, 1.05)
    ax.set_xlabel("coverage (share of targets with a prediction, log scale)")
    ax.set_ylabel("precision")
    shapes = [Line2D([], [], marker=papers[k][1], ls="", color="white", markeredgecolor="black", label=papers[k][0])
              for k in dict.fromkeys(rec["paper"])]
    colors = [Line2D([], [], marker="o", ls="", color=c, label=p) for p, c in POSITION_COLORS.items()
              if p in set(rec["position"])]
    colors.append(Line2D([], [], marker=".", color="#999999", label="baseline, same targets"))
    fig.tight_layout()
    fig.legend(handles=shapes + colors, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, frameon=False,
               columnspacing=1.2, handlelength=1.6)
    return fig


def plot_alc_weight(grid: Sequence[Mapping[str, float]], p_attack: float, p_base: float):
    """The ALC package's score against the attack's recall (coverage), precisions fixed; PI is flat.

    ``grid`` is the peers' ``alc_grid`` (recall, prc_attack, alc at each
    recall, baseline at recall 1). PI of the same two precisions does not
    depend on coverage; the ALC weights precision by recall and falls to
    the baseline's level, then below it, as coverage shrinks.
    """
    import matplotlib.pyplot as plt

    g = pd.DataFrame(list(grid))
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.plot(g["recall"], g["alc"], marker="o", ms=3, label="ALC (the package)")
    pi = (p_attack - p_base) / (1 - p_base)
    ax.axhline(pi, color="C1", ls="--", label=f"PI = {pi:.2f} (any coverage)")
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xscale("log")
    ax.set_xlabel("attack's recall (coverage), log scale")
    ax.set_ylabel("score")
    ax.set_title(f"attack precision {p_attack:g}, baseline precision {p_base:g} at coverage 1")
    ax.set_ylim(min(-0.2, float(np.nanmin(g["alc"])) - 0.05), 1.0)
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig

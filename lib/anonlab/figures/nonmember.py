"""Figures of the non-member framework ([FW24] Figs 4, 5, 6, 8 and the PI-vs-bound test), chapter 5."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..measures.nonmember import CATEGORICAL


def plot_fig4(tables: Mapping[str, pd.DataFrame]):
    """Fig 4: baseline precision per secret, all other attributes vs PII only, one panel per data set."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(tables), figsize=(5.2 * len(tables), 5.5), squeeze=False)
    for ax, (name, f4) in zip(axes[0], tables.items()):
        wide = f4.pivot(index="secret", columns="known", values="precision").reindex(f4["secret"].unique())
        y = np.arange(len(wide))
        for k, (col, color) in enumerate([("all other attributes", "C0"), ("PII only", "C1")]):
            if col in wide:
                ax.barh(y + (k - 0.5) * 0.4, wide[col], height=0.4, color=color, label=col)
        ax.set_yticks(y, [f"{s} ({'cat' if f4.set_index('secret').loc[s, 'kind'].iloc[0] == CATEGORICAL else 'cont'})"
                          for s in wide.index], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("baseline precision (prediction rate 1)")
        ax.set_title(name)
    axes[0][0].legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def plot_fig5(curves: pd.DataFrame, title: str = ""):
    """Fig 5: precision against prediction rate, one line per categorical secret (every threshold: no markers)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for secret, c in curves.groupby("secret", sort=False):
        c = c[c["predictions"] > 0]
        ax.plot(c["prediction_rate"], c["precision"], lw=1.2, label=secret)
    ax.set_xscale("log")
    ax.set_xlabel("prediction rate PR_base (log scale)")
    ax.set_ylabel("precision P_base")
    ax.set_title(title)
    ax.legend(fontsize=8, ncol=2)
    return fig


def plot_fig6(rep: pd.DataFrame, title: str = ""):
    """Fig 6: baseline precision per secret for each replicated share."""
    import matplotlib.pyplot as plt

    wide = rep.pivot(index="secret", columns="fraction", values="precision").reindex(rep["secret"].unique())
    fig, ax = plt.subplots(figsize=(9, 4))
    w = 0.8 / wide.shape[1]
    for k, frac in enumerate(wide.columns):
        ax.bar(np.arange(len(wide)) + k * w, wide[frac], width=w, label="none" if frac == 0 else f"{frac:.0%}")
    ax.set_xticks(np.arange(len(wide)) + 0.4 - w / 2, wide.index, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("baseline precision")
    ax.set_title(title)
    ax.legend(title="replicated", fontsize=8)
    fig.tight_layout()
    return fig


def plot_fig8(cmp_: pd.DataFrame, title: str = ""):
    """Fig 8: non-member vs prior-framework baseline per secret."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4))
    x = np.arange(len(cmp_))
    ax.bar(x - 0.2, cmp_["non-member"], width=0.4, label="non-member framework")
    ax.bar(x + 0.2, cmp_["prior (synthetic)"], width=0.4, label="prior framework (synthetic members)")
    ax.set_xticks(x, cmp_["secret"], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("baseline precision")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_pi_vs_tolerance(pit: pd.DataFrame, basis: str = "range"):
    """PI of the all-attributes Lasso over the PII-only Lasso against the error bound, one line per secret (§4.3)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for secret, g in pit.groupby("secret", sort=False):
        ax.plot(g["tolerance"], g["pi"], marker="o", label=secret)
    ax.set(xscale="log", xlabel=f"error bound (fraction of the {basis})", ylabel="PI, all attributes over PII only")
    ax.axhline(0, color="grey", lw=0.8)
    ax.legend(fontsize=8)
    return fig

"""Figures of the non-member framework ([FW24] Figs 4, 5, 6, 8 and the PI-vs-bound test), chapter 5.

Every figure is designed for the book's text column: :data:`WIDTH` inches wide (under the 857 px at which
the book's 10 pt text still renders at 9 pt), its text at the book's 10 pt, its legend outside the data.
:func:`fig5_series` gives the series of the chapter's explorable figure (Fig 5 at one model setting).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from anonlab.measures.nonmember import CATEGORICAL

#: Width of every figure of the chapter, inches (7.4 in at 110 dpi: 814 px, inside the book's 857 px).
WIDTH = 7.4
#: Height of one secret's pair of bars in Fig 4, inches.
BAR_ROW = 0.25


def _legend_above(ax: Any, ncol: int, **kw: Any) -> None:
    """The axes' legend in one row just above the axes (outside the data, below the title)."""
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=ncol, borderaxespad=0.2, **kw)


def _secret_ticks(ax: Any, names: pd.Index) -> None:
    """Secret names under grouped vertical bars, slanted so that 20 of them fit the column."""
    ax.set_xticks(np.arange(len(names)), names, rotation=50, ha="right", rotation_mode="anchor")


def plot_fig4(tables: Mapping[str, pd.DataFrame]) -> Any:
    """Fig 4: baseline precision per secret, all other attributes vs PII only, one panel per data set, stacked."""
    import matplotlib.pyplot as plt

    wides = {name: f4.pivot(index="secret", columns="known", values="precision").reindex(f4["secret"].unique())
             for name, f4 in tables.items()}
    rows = [len(w) for w in wides.values()]
    height = BAR_ROW * sum(rows) + 0.75 * len(rows) + 0.9
    fig, axes = plt.subplots(len(tables), 1, figsize=(WIDTH, height), sharex=True, squeeze=False,
                             gridspec_kw={"height_ratios": rows})
    for ax, (name, f4) in zip(axes[:, 0], tables.items()):
        wide = wides[name]
        kinds = f4.drop_duplicates("secret").set_index("secret")["kind"]
        y = np.arange(len(wide))
        for k, (col, color) in enumerate([("all other attributes", "C0"), ("PII only", "C1")]):
            if col in wide:
                ax.barh(y + (k - 0.5) * 0.4, wide[col], height=0.4, color=color, label=f"{col} known")
        ax.set_yticks(y, [f"{s} ({'cat' if kinds[s] == CATEGORICAL else 'cont'})" for s in wide.index])
        ax.set_ylim(len(wide) - 0.5, -0.5)
        ax.set_xlim(0, 1)
        ax.set_title(name, loc="left")
        ax.xaxis.set_tick_params(labelbottom=True)
    axes[-1, 0].set_xlabel("baseline precision (prediction rate 1)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper right", ncol=2, bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / height))
    return fig


def plot_fig5(curves: pd.DataFrame, title: str = "") -> Any:
    """Fig 5: precision against prediction rate, one line per categorical secret (every threshold: no markers)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(WIDTH, 4.9))
    for secret, c in curves.groupby("secret", sort=False):
        c = c[c["predictions"] > 0]
        ax.plot(c["prediction_rate"], c["precision"], lw=1.4, label=secret)
    ax.set_xscale("log")
    ax.set_xlabel("prediction rate PR_base (log scale)")
    ax.set_ylabel("precision P_base")
    ax.set_ylim(-0.02, 1.03)
    ax.set_title(title)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=4)
    fig.tight_layout()
    return fig


def plot_fig6(rep: pd.DataFrame, title: str = "") -> Any:
    """Fig 6: baseline precision per secret for each replicated share."""
    import matplotlib.pyplot as plt

    wide = rep.pivot(index="secret", columns="fraction", values="precision").reindex(rep["secret"].unique())
    n = wide.shape[1]
    ncol = min(n, 6)  # the replicated shares in at most two rows above the bars
    fig, ax = plt.subplots(figsize=(WIDTH, 4.4 + 0.25 * (n > ncol)))
    w = 0.8 / n
    for k, frac in enumerate(wide.columns):
        ax.bar(np.arange(len(wide)) + (k - (n - 1) / 2) * w, wide[frac], width=w,
               label="none" if frac == 0 else f"{frac:.0%}")
    _secret_ticks(ax, wide.index)
    ax.set_xlim(-0.6, len(wide) - 0.4)
    ax.set_ylabel("baseline precision")
    ax.set_title(title, pad=48 + 18 * (n > ncol))
    _legend_above(ax, ncol=ncol, title="share of the members replicated", alignment="left")
    fig.tight_layout()
    return fig


def plot_fig8(cmp_: pd.DataFrame, title: str = "") -> Any:
    """Fig 8: non-member vs prior-framework baseline per secret."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(WIDTH, 4.4))
    x = np.arange(len(cmp_))
    ax.bar(x - 0.2, cmp_["non-member"], width=0.4, label="non-member framework")
    ax.bar(x + 0.2, cmp_["prior (synthetic)"], width=0.4, label="prior framework (synthetic members)")
    _secret_ticks(ax, pd.Index(cmp_["secret"]))
    ax.set_xlim(-0.6, len(cmp_) - 0.4)
    ax.set_ylabel("baseline precision")
    ax.set_title(title, pad=30)
    _legend_above(ax, ncol=2)
    fig.tight_layout()
    return fig


def plot_pi_vs_tolerance(pit: pd.DataFrame, basis: str = "range") -> Any:
    """PI of the all-attributes Lasso over the PII-only Lasso against the error bound, one line per secret (§4.3)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(WIDTH, 4.2))
    for secret, g in pit.groupby("secret", sort=False):
        ax.plot(g["tolerance"], g["pi"], marker="o", label=secret)
    ax.set(xscale="log", xlabel=f"error bound (fraction of the {basis})", ylabel="PI, all attributes over PII only")
    ax.axhline(0, color="grey", lw=0.8)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), title="secret")
    fig.tight_layout()
    return fig


def thin_walk(curve: pd.DataFrame, per_decade: int = 8) -> pd.DataFrame:
    """The rows of a confidence walk worth drawing: the first and last of each run in one log cell of PR.

    A walk (:func:`~anonlab.measures.nonmember.confidence_walk`) has a row per distinct confidence,
    thousands per secret; cutting the prediction rate into ``per_decade`` cells per decade and keeping
    the first and last row of each run of rows in one cell keeps real thresholds only (nothing is
    interpolated), both ends of the curve, and a few dozen rows for a page.

    >>> c = pd.DataFrame({"prediction_rate": [1.0, 0.99, 0.985, 0.98, 0.5, 0.01], "precision": [0.5] * 6})
    >>> thin_walk(c)["prediction_rate"].tolist()  # 0.985 lies inside the run 0.99 ... 0.98 of one cell
    [1.0, 0.99, 0.98, 0.5, 0.01]
    """
    pr = curve["prediction_rate"].to_numpy(float)
    with np.errstate(divide="ignore"):
        cells = np.floor(np.log10(pr) * per_decade)
    new = np.r_[True, cells[1:] != cells[:-1]]
    starts = np.flatnonzero(new)
    keep = np.unique(np.r_[starts, starts[1:] - 1, pr.size - 1]) if pr.size else np.zeros(0, int)
    return curve.iloc[keep]


def fig5_series(curves: pd.DataFrame, per_decade: int = 8) -> dict[str, tuple[list[float], list[float]]]:
    """Fig 5's curves as an explorable frame: ``{secret: (prediction rates, precisions)}``, thinned (:func:`thin_walk`)."""
    out = {}
    for secret, c in curves.groupby("secret", sort=False):
        t = thin_walk(c[c["predictions"] > 0], per_decade)
        out[str(secret)] = (t["prediction_rate"].astype(float).tolist(), t["precision"].astype(float).tolist())
    return out

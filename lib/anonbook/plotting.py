"""Plotting helpers shared by the chapters.

The convention of the book: measured values are solid lines or filled
markers; what the paper reported is drawn on the same axes as open black
markers or a dashed line labelled "paper". Nothing in the library depends
on this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.axes import Axes

from anonbook.booktables import table_number  # how a plain table shows a float (defined with the book's tables)

__all__ = ["book_style", "table_style", "table_number", "paper_hline", "paper_points", "measured_band"]

PAPER_STYLE: dict[str, Any] = dict(color="black", linestyle="--", linewidth=1.2)
def book_style() -> None:
    """Apply the book's matplotlib defaults (readable sizes, light grid, no top/right spines)."""
    plt.rcParams.update({
        "figure.figsize": (7.0, 4.2),
        "figure.dpi": 110,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "legend.frameon": False,
        "font.size": 10,
    })


def table_style() -> None:
    """The book's pandas display: floats by :func:`table_number`, not pandas' six decimals; in a notebook
    every DataFrame and Series shows as the book's table (:func:`anonbook.booktables.book_table_html`)."""
    import pandas as pd

    from anonbook import booktables

    pd.set_option("display.float_format", table_number)
    booktables.register()


def paper_hline(ax: Axes, value: float, label: str = "paper", **kw: Any) -> None:
    """A dashed horizontal line at a value the paper reported."""
    ax.axhline(value, **{**PAPER_STYLE, **kw}, label=label)


def paper_points(ax: Axes, x: Sequence[float], y: Sequence[float], label: str = "paper",
                 **kw: Any) -> None:
    """Open black markers at the (x, y) values the paper reported."""
    style = dict(marker="o", markerfacecolor="none", markeredgecolor="black", linestyle="none",
                 markersize=8)
    ax.plot(x, y, **{**style, **kw}, label=label)


def measured_band(ax: Axes, x: Sequence[float], low: Sequence[float], mid: Sequence[float],
                  high: Sequence[float], label: str, **kw: Any) -> None:
    """A measured curve (mean) with a shaded band (min–max or an interval)."""
    (line,) = ax.plot(x, mid, marker=".", label=label, **kw)
    ax.fill_between(x, low, high, color=line.get_color(), alpha=0.2, linewidth=0)

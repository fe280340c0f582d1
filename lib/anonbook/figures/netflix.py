"""Figures of the Netflix attack (chapter 3): re-identification curves, errors, eccentricity, precision.

``curves`` arguments are the chapter's re-identification curves (``rates``:
setting -> rate table per m, ``absent_rate``, ``trials``, ``absent``, ``phi``);
``headlines`` are the paper's two headline rates (8 ratings, 2 wrong, ±14 d;
2 ratings, ±3 d), from the ledger.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from anonbook import plotting
from anonlab.attacks import netflix as nf

M_LABEL = "m, movies known to the adversary"

#: Width of a one- or two-panel figure, inches: at the book's 110 dpi it fits the 772 px text column,
#: so the figure's 10 pt text is shown at 10 pt (the layout rule: natural width at most 857 px).
WIDTH = 7.4

#: Smallest gap between two labelled ticks of the m axis, in decades (log10 units) per inch of axis.
TICK_GAP_DECADES_PER_INCH = 0.35


def _bands(ax: Any, rates: Mapping[str, pd.DataFrame], colors: Mapping[str, str] | None = None) -> None:
    for k, r in rates.items():
        kw = {} if colors is None else {"color": colors[k]}
        plotting.measured_band(ax, r.index, r["ci_low"], r["rate"], r["ci_high"], label=k, **kw)


def _setting_colors(keys: Sequence[str]) -> dict[str, str]:
    """One colour per setting, in the order of the chapter's curves (the same in every figure)."""
    return {k: f"C{i}" for i, k in enumerate(keys)}


def _false_matches(ax: Any, absent_rate: pd.DataFrame, label: str, band: bool = False) -> None:
    """Removed targets' false-match rate: black crosses on a dotted line (with its Wilson band if ``band``)."""
    a = absent_rate
    ax.plot(a.index, a["match_rate"], color="black", marker="x", linestyle=":", label=label)
    if band:
        ax.fill_between(a.index, a["match_ci_low"], a["match_ci_high"], color="black", alpha=0.12, linewidth=0)


def tick_labels(m_grid: Sequence[int], width_inches: float) -> list[str]:
    """Labels of the m axis (log scale): every m of the grid is a tick, labelled when it is at least
    ``TICK_GAP_DECADES_PER_INCH / width_inches`` decades from the last labelled one; the largest m is
    always labelled (its left neighbour gives way). Unlabelled ticks get ``""``.

    >>> tick_labels([1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20], 3.0)
    ['1', '2', '3', '4', '', '6', '8', '', '12', '', '20']
    """
    grid = sorted(m_grid)
    gap = TICK_GAP_DECADES_PER_INCH / width_inches
    keep = [0]
    for i in range(1, len(grid)):
        if np.log10(grid[i]) - np.log10(grid[keep[-1]]) >= gap - 1e-12:
            keep.append(i)
    last = len(grid) - 1
    if keep[-1] != last:
        if len(keep) > 1 and np.log10(grid[last]) - np.log10(grid[keep[-1]]) < gap:
            keep.pop()
        keep.append(last)
    return [str(m) if i in keep else "" for i, m in enumerate(grid)]


def _m_axis(ax: Any, m_grid: Sequence[int]) -> None:
    """Ticks at every m of the grid on a log axis, labels thinned so that none overlaps at 10 pt."""
    from matplotlib.ticker import NullLocator

    width = ax.get_position().width * ax.figure.get_figwidth()
    ax.set_xticks(sorted(m_grid), tick_labels(m_grid, width))
    ax.xaxis.set_minor_locator(NullLocator())


def _legend_below(fig: Any, handles: Sequence[Any], ncol: int = 2) -> None:
    """One legend for the whole figure, centred below the axes (call after ``tight_layout``)."""
    fig.legend(handles=list(handles), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol)


def _draw_headlines(ax: Any, headlines: Sequence[float], pc_m: int, few_m: int) -> None:
    plotting.paper_points(ax, [pc_m], [headlines[0]], label=f"paper, Netflix: {pc_m} ratings, 2 wrong, ±14 d")
    plotting.paper_points(ax, [few_m], [headlines[1]], marker="s", label=f"paper, Netflix: {few_m} ratings, ±3 d")


def plot_curves(curves: Any, m_grid: Sequence[int], m_star: int, rating_error: int, date_errors: Sequence[int],
                data_name: str, pc_m: int, few_m: int, headlines: Sequence[float]) -> Any:
    """Three panels in a 2 × 2 grid: exact ratings (dates known or not), approximate ratings, removed targets.

    Each setting keeps one colour in every panel (the removed targets are black crosses), so the fourth
    cell of the grid holds the one legend of the figure.
    """
    d_ref, rates = max(date_errors), curves.rates
    colors = _setting_colors(list(rates))
    fig, axes = plt.subplots(2, 2, figsize=(WIDTH, 6.6), sharey=True)
    (a_exact, a_approx), (a_absent, a_legend) = axes
    _bands(a_exact, {k: r for k, r in rates.items() if k.startswith("exact")}, colors)
    _bands(a_approx, {k: r for k, r in rates.items() if k.startswith("ratings ±")}, colors)
    ref = f"exact ratings, dates ±{d_ref} d"
    _bands(a_absent, {ref: rates[ref]}, colors)
    _false_matches(a_absent, curves.absent_rate, "target removed: a (false) match is output", band=True)
    _draw_headlines(a_exact, headlines, pc_m, few_m)
    titles = ["exact ratings,\napproximate or no dates", f"approximate ratings (±{rating_error}),\ndates ±{d_ref} d",
              f"target in the data or removed\n(exact ratings, ±{d_ref} d)"]
    for ax, title in zip((a_exact, a_approx, a_absent), titles):
        ax.axvline(m_star, color="grey", linestyle=":", label=f"theorem bound m ≥ {m_star}")
        ax.set(xlabel=M_LABEL, title=title, xscale="log", ylim=(-0.02, 1.02))
    for ax in (a_exact, a_absent):
        ax.set_ylabel(f"share of targets (φ = {curves.phi:g})")
    fig.suptitle(f"{data_name}: Scoreboard-RH re-identification rate")
    fig.tight_layout()
    for ax in (a_exact, a_approx, a_absent):
        _m_axis(ax, m_grid)
    handles: dict[str, Any] = {}
    for ax in (a_exact, a_approx, a_absent):
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    last = [k for k in handles if k.startswith(("paper", "theorem"))]  # the settings first, then the references
    handles = {k: handles[k] for k in [*[k for k in handles if k not in last], *last]}
    a_legend.axis("off")
    a_legend.legend(list(handles.values()), list(handles.keys()), loc="center", borderaxespad=0)
    return fig


def plot_synthetic(syn: Any, d_ref: int, n_users: int, pc_m: int, few_m: int, data_name: str,
                   headlines: Sequence[float]) -> Any:
    """The synthetic curves, the removed targets' false matches and the paper's headlines (legend below)."""
    fig, ax = plt.subplots(figsize=(WIDTH, 4.0))
    _bands(ax, syn.rates)
    _false_matches(ax, syn.absent_rate, f"target removed: false matches (±{d_ref} d)")
    _draw_headlines(ax, headlines, pc_m, few_m)
    ax.set(xlabel=M_LABEL, ylabel=f"share re-identified (φ = {syn.phi:g})",
           title=f"{data_name.split(' (')[0]}, {n_users:,} users", ylim=(-0.02, 1.02))
    fig.tight_layout()
    _legend_below(fig, ax.get_legend_handles_labels()[0])
    return fig


def plot_wrong_entries(wrong: pd.DataFrame, m: int, d_ref: int, wrong_fraction: float, data_name: str,
                       headline_8: float) -> Any:
    """Re-identification against the number of wrong aux entries, with the paper's headline (legend below)."""
    fig, ax = plt.subplots(figsize=(WIDTH, 3.6))
    plotting.measured_band(ax, wrong.index, wrong["ci_low"], wrong["re-identified"], wrong["ci_high"],
                           label=f"{data_name}, m = {m}, exact ratings, ±{d_ref} d")
    ax.plot(wrong.index, wrong["best record is the target"], linestyle="--", marker="x",
            label="best record is the target (no threshold)")
    plotting.paper_points(ax, [nf.wrong_count(m, wrong_fraction)], [headline_8],
                          label="paper, Netflix: 8 ratings, 2 wrong, ±14 d")
    ax.set(xlabel=f"wrong entries among the {m} known movies", ylabel="share of targets", ylim=(-0.02, 1.02))
    ax.set_xticks(wrong.index)
    fig.tight_layout()
    _legend_below(fig, ax.get_legend_handles_labels()[0], ncol=1)
    return fig


def plot_eccentricity(curves: Any, at: int, d_ref: int, data_name: str) -> Any:
    """Histograms of the eccentricity of targets in the data and of removed targets."""
    mem = nf.at_m(curves.trials[f"exact ratings, dates ±{d_ref} d"], at)["eccentricity"]
    absent = nf.at_m(curves.absent, at)["eccentricity"]
    fig, ax = plt.subplots(figsize=(WIDTH, 3.8))
    bins = np.linspace(0, max(mem.max(), absent.max()) * 1.02, 40)
    ax.hist(mem, bins=bins, alpha=0.6, label="target in the data")
    ax.hist(absent, bins=bins, alpha=0.6, label="target removed from the data")
    ax.axvline(curves.phi, color="black", linestyle=":", label=f"φ = {curves.phi:g}")
    ax.set(xlabel="eccentricity (max − max₂) / σ", ylabel="targets",
           title=f"{data_name}, m = {at}, exact ratings, dates ±{d_ref} d")
    ax.legend(loc="upper right")
    fig.tight_layout()
    return fig


def plot_precision_coverage(pc: pd.DataFrame, n_records: int, title: str) -> Any:
    """Precision against coverage for each φ, members only and half the targets removed.

    Each φ (once, however often ``pc`` lists it) is written below and left of its point on the mixed
    curve, which falls from left to right, so the labels sit in the empty region under the curve.
    """
    fig, ax = plt.subplots(figsize=(WIDTH, 4.2))
    ax.plot(pc["coverage"], pc["precision"], marker="o", label="targets in the data")
    ax.plot(pc["coverage_mixed"], pc["precision_mixed"], marker="s", label="half of the targets absent")
    for _, row in pc.drop_duplicates("phi").iterrows():
        ax.annotate(f"φ={row['phi']:g}", (row["coverage_mixed"], row["precision_mixed"]), xytext=(-5, -5),
                    textcoords="offset points", ha="right", va="top")
    ax.axhline(1 / n_records, color="grey", linestyle=":", label="random record (1/N)")
    ax.set(xlabel="coverage (share of targets with an answer)", ylabel="precision", title=title,
           xlim=(-0.02, 1.02), ylim=(-0.02, 1.04))
    ax.legend(loc="center left", bbox_to_anchor=(0.0, 0.3))
    fig.tight_layout()
    return fig


def plot_amplification(amp: pd.DataFrame, m_grid: Sequence[int], data_name: str) -> Any:
    """Share of the targets' other ratings predicted to the star, with and without the match."""
    fig, ax = plt.subplots(figsize=(WIDTH, 4.0))
    ax.plot(amp.index, amp["attack_exact"], marker="o", label="after the match")
    ax.plot(amp.index, amp["baseline_exact"], marker="s", label="baseline without the match")
    ax.plot(amp.index, amp["history_recall"], linestyle="--", label="share of held-out movies revealed")
    ax.set(xscale="log", xlabel=M_LABEL, ylabel="share of the other ratings",
           title=f"{data_name}: predicting the target's other ratings to the star", ylim=(-0.02, 1.02))
    fig.tight_layout()
    _m_axis(ax, m_grid)
    ax.legend(loc="lower right")
    return fig


def plot_readings(by_reading: Mapping[str, Any], m_grid: Sequence[int], data_name: str) -> Any:
    """The main curves under each reading of Sim, one panel per reading (at most two side by side), same
    targets and aux; one legend below the panels."""
    n = len(by_reading)
    ncols = min(n, 2)
    nrows = int(np.ceil(n / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(WIDTH, 3.8 * nrows), sharey=True, squeeze=False)
    for ax, (reading, cv) in zip(axes.ravel(), by_reading.items()):
        _bands(ax, cv.rates)
        _false_matches(ax, cv.absent_rate, "target removed: false matches")
        ax.set(xlabel=M_LABEL, title=reading.replace(" (", "\n(", 1), xscale="log", ylim=(-0.02, 1.02))
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel(f"share re-identified (φ = {next(iter(by_reading.values())).phi:g})")
    fig.suptitle(f"{data_name}: the same attacks under two readings of Sim")
    fig.tight_layout()
    for ax in axes.ravel()[:n]:
        _m_axis(ax, m_grid)
    _legend_below(fig, axes[0][0].get_legend_handles_labels()[0])
    return fig


def date_error_frame(exp: nf.Experiment, targets: np.ndarray, grid: Sequence[int], date_error: int,
                     wrong_fraction: float) -> dict[str, tuple[list[int], list[float]]]:
    """Share re-identified per aux size m (:func:`anonlab.attacks.netflix.reidentification_rate` at ``exp.phi``)
    when the aux's dates are off by up to ``date_error`` days: exact ratings, and with ``wrong_fraction`` of
    the entries completely wrong (the settings of [NS08]'s two headlines, :func:`anonbook.chapters.ch03_netflix_eccentricity.reidentification_curves`)."""
    runs = {"exact ratings": {}, f"exact ratings, {wrong_fraction:.0%} wrong": {"wrong_fraction": wrong_fraction}}
    rates = {label: nf.reidentification_rate(exp.run(targets, grid, f"{label}, ±{date_error} d",
                                                     date_error=date_error, **kw), exp.phi)
             for label, kw in runs.items()}
    return {label: (r.index.tolist(), r["rate"].tolist()) for label, r in rates.items()}

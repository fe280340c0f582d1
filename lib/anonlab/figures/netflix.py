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

from .. import plotting
from ..attacks import netflix as nf

M_LABEL = "m, movies known to the adversary"


def _bands(ax: Any, rates: Mapping[str, pd.DataFrame]) -> None:
    for k, r in rates.items():
        plotting.measured_band(ax, r.index, r["ci_low"], r["rate"], r["ci_high"], label=k)


def _m_axis(ax: Any, m_grid: Sequence[int]) -> None:
    ax.set_xticks(sorted(m_grid), [str(m) for m in sorted(m_grid)])


def _draw_headlines(ax: Any, headlines: Sequence[float], pc_m: int, few_m: int) -> None:
    plotting.paper_points(ax, [pc_m], [headlines[0]], label=f"paper, Netflix: {pc_m} ratings, 2 wrong, ±14 d")
    plotting.paper_points(ax, [few_m], [headlines[1]], marker="s", label=f"paper, Netflix: {few_m} ratings, ±3 d")


def plot_curves(curves: Any, m_grid: Sequence[int], m_star: int, rating_error: int, date_errors: Sequence[int],
                data_name: str, pc_m: int, few_m: int, headlines: Sequence[float]) -> Any:
    """Three panels: exact ratings (dates known or not), approximate ratings, removed targets."""
    d_ref, rates = max(date_errors), curves.rates
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4), sharey=True)
    _bands(axes[0], {k: r for k, r in rates.items() if k.startswith("exact")})
    _bands(axes[1], {k: r for k, r in rates.items() if k.startswith("ratings ±")})
    r, a = rates[f"exact ratings, dates ±{d_ref} d"], curves.absent_rate
    plotting.measured_band(axes[2], r.index, r["ci_low"], r["rate"], r["ci_high"], label="target in the data: re-identified")
    plotting.measured_band(axes[2], a.index, a["match_ci_low"], a["match_rate"], a["match_ci_high"],
                           label="target removed: a (false) match is output")
    _draw_headlines(axes[0], headlines, pc_m, few_m)
    titles = ["exact ratings, approximate or no dates", f"approximate ratings (±{rating_error}), dates ±{d_ref} d",
              f"target not in the data (exact ratings, ±{d_ref} d)"]
    for ax, title in zip(axes, titles):
        ax.axvline(m_star, color="grey", linestyle=":", label=f"theorem bound m ≥ {m_star}")
        ax.set(xlabel=M_LABEL, title=title, xscale="log", ylim=(-0.02, 1.02))
        _m_axis(ax, m_grid)
        ax.legend(fontsize=8, loc="upper left")
    axes[0].set_ylabel(f"share of targets (φ = {curves.phi:g})")
    fig.suptitle(f"{data_name}: Scoreboard-RH re-identification rate", y=1.02)
    return fig


def plot_synthetic(syn: Any, d_ref: int, n_users: int, pc_m: int, few_m: int, data_name: str,
                   headlines: Sequence[float]) -> Any:
    """The synthetic curves, the removed targets' false matches and the paper's headlines."""
    fig, ax = plt.subplots(figsize=(8, 4.6))
    _bands(ax, syn.rates)
    a = syn.absent_rate
    ax.plot(a.index, a["match_rate"], color="black", marker="x", linestyle=":",
            label=f"target removed: false matches (±{d_ref} d)")
    _draw_headlines(ax, headlines, pc_m, few_m)
    ax.set(xlabel=M_LABEL, ylabel=f"share of targets re-identified (φ = {syn.phi:g})",
           title=f"{data_name.split(' (')[0]}, {n_users:,} users", ylim=(-0.02, 1.02))
    ax.legend(fontsize=7, loc="upper left")
    return fig


def plot_wrong_entries(wrong: pd.DataFrame, m: int, d_ref: int, wrong_fraction: float, data_name: str,
                       headline_8: float) -> Any:
    """Re-identification against the number of wrong aux entries, with the paper's headline."""
    fig, ax = plt.subplots()
    plotting.measured_band(ax, wrong.index, wrong["ci_low"], wrong["re-identified"], wrong["ci_high"],
                           label=f"{data_name}, m = {m}, exact ratings, ±{d_ref} d")
    ax.plot(wrong.index, wrong["best record is the target"], linestyle="--", marker="x",
            label="best record is the target (no threshold)")
    plotting.paper_points(ax, [nf.wrong_count(m, wrong_fraction)], [headline_8],
                          label="paper, Netflix: 8 ratings, 2 wrong, ±14 d")
    ax.set(xlabel=f"wrong entries among the {m} known movies", ylabel="share of targets", ylim=(-0.02, 1.02))
    ax.set_xticks(wrong.index)
    ax.legend(fontsize=8)
    return fig


def plot_eccentricity(curves: Any, at: int, d_ref: int, data_name: str) -> Any:
    """Histograms of the eccentricity of targets in the data and of removed targets."""
    mem = nf.at_m(curves.trials[f"exact ratings, dates ±{d_ref} d"], at)["eccentricity"]
    absent = nf.at_m(curves.absent, at)["eccentricity"]
    fig, ax = plt.subplots()
    bins = np.linspace(0, max(mem.max(), absent.max()) * 1.02, 40)
    ax.hist(mem, bins=bins, alpha=0.6, label="target in the data")
    ax.hist(absent, bins=bins, alpha=0.6, label="target removed from the data")
    ax.axvline(curves.phi, color="black", linestyle=":", label=f"φ = {curves.phi:g}")
    ax.set(xlabel="eccentricity (max − max₂) / σ", ylabel="targets",
           title=f"{data_name}, m = {at}, exact ratings, dates ±{d_ref} d")
    ax.legend()
    return fig


def plot_precision_coverage(pc: pd.DataFrame, n_records: int, title: str) -> Any:
    """Precision against coverage for each φ, members only and half the targets removed."""
    fig, ax = plt.subplots()
    ax.plot(pc["coverage"], pc["precision"], marker="o", label="targets in the data")
    ax.plot(pc["coverage_mixed"], pc["precision_mixed"], marker="s", label="half of the targets absent")
    for _, row in pc.iterrows():
        ax.annotate(f"φ={row['phi']:g}", (row["coverage_mixed"], row["precision_mixed"]), fontsize=7,
                    xytext=(3, -10), textcoords="offset points")
    ax.axhline(1 / n_records, color="grey", linestyle=":", label="random record (1/N)")
    ax.set(xlabel="coverage (share of targets with an answer)", ylabel="precision", title=title,
           xlim=(-0.02, 1.02), ylim=(-0.02, 1.02))
    ax.legend(fontsize=8, loc="lower left")
    return fig


def plot_amplification(amp: pd.DataFrame, m_grid: Sequence[int], data_name: str) -> Any:
    """Share of the targets' other ratings predicted to the star, with and without the match."""
    fig, ax = plt.subplots()
    ax.plot(amp.index, amp["attack_exact"], marker="o", label="after the match")
    ax.plot(amp.index, amp["baseline_exact"], marker="s", label="baseline without the match")
    ax.plot(amp.index, amp["history_recall"], linestyle="--", label="share of held-out movies revealed")
    ax.set(xscale="log", xlabel=M_LABEL, ylabel="share of the target's other ratings",
           title=f"{data_name}: predicting the target's other ratings to the star", ylim=(-0.02, 1.02))
    _m_axis(ax, m_grid)
    ax.legend(fontsize=8)
    return fig


def plot_readings(by_reading: Mapping[str, Any], m_grid: Sequence[int], data_name: str) -> Any:
    """The main curves under each reading of Sim, one panel per reading, same targets and aux."""
    fig, axes = plt.subplots(1, len(by_reading), figsize=(6.5 * len(by_reading), 4.4), sharey=True, squeeze=False)
    for ax, (reading, cv) in zip(axes[0], by_reading.items()):
        _bands(ax, cv.rates)
        a = cv.absent_rate
        ax.plot(a.index, a["match_rate"], color="black", marker="x", linestyle=":", label="target removed: false matches")
        ax.set(xlabel=M_LABEL, title=reading, xscale="log", ylim=(-0.02, 1.02))
        _m_axis(ax, m_grid)
        ax.legend(fontsize=7, loc="upper left")
    axes[0][0].set_ylabel(f"share of targets re-identified (φ = {next(iter(by_reading.values())).phi:g})")
    fig.suptitle(f"{data_name}: the same attacks under two readings of Sim", y=1.02)
    return fig

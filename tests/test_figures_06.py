"""The figures of chapter 6's two halves fit the book's column (issue 26) and its explorable figure (issue 27).

Each figure function is drawn on small inputs of the real kind and measured with the checker of
``tests/test_figures_01_03_04_08.py`` (natural width at most 857 px at 110 dpi, no text under 10 pt, at most
two panels side by side, no legend over data). The explorable figure's frames are the library's
theory at each standard deviation of the noise, the frame at σ = 1 the chapter's own Fig. 2 curves.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from anonlab import claims
from anonbook import plotting
from anonlab.attacks.diffix import theory  # noqa: E402
from anonbook.chapters import ch06a_diffix_differential as diff  # noqa: E402
from anonbook.chapters import ch06b_diffix_cloning as clo  # noqa: E402
from anonbook.figures import diffix as figures  # noqa: E402

from .test_chapter06 import _fig3, cloning_res  # noqa: E402
from .test_figures_01_03_04_08 import layout_problems  # noqa: E402

paper = claims.reported


@pytest.fixture(autouse=True)
def _book_style():
    plotting.book_style()
    yield
    plt.close("all")


def test_fig2_fits_the_column() -> None:
    k = np.arange(1, 7)
    acc = 0.6 + 0.06 * k
    fig2 = pd.DataFrame({"k": k, "theory": acc, "rounding": acc - 0.01, "empirical": acc - 0.03,
                         "ci_low": acc - 0.05, "ci_high": acc - 0.01})
    fig, ax = plt.subplots()
    diff.plot_fig2(ax, fig2, 12, paper)
    assert layout_problems(fig) == []


def test_fig3_fits_the_column() -> None:
    assert layout_problems(diff.fig3_figure(_fig3(), paper)) == []


def test_fig4_stacks_three_data_sets_in_two_columns() -> None:
    res = cloning_res([0, 1, 0, 1], [0, 1, 1, -1], [True, True, True, False])
    fig4 = clo.fig4_table([(name, k, res) for name in ("adult", "census", "german") for k in (4, 7, 10)])
    fig = clo.fig4_figure(fig4, paper)
    assert layout_problems(fig) == []
    assert sum(ax.get_visible() and ax.axison for ax in fig.axes) == 3
    one = clo.fig4_figure(fig4[fig4["data set"] == "adult"], paper)
    assert layout_problems(one) == []


def test_sigma_sweep_and_yardstick_fit_the_column() -> None:
    sweep = pd.DataFrame({"test": ["single", "single", "double", "double"], "σ*": [0.5, 1.0, 0.5, 1.0],
                          "coverage": [0.9, 0.92, 0.7, 0.75], "precision": [0.95, 0.9, 0.99, 0.97]})
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    clo.plot_sigma_sweep(ax, sweep, 200, paper)
    assert layout_problems(fig) == []
    idx = pd.MultiIndex.from_tuples([("adult", "cloning, full (Table 1)"), ("adult", "cloning, greedy"),
                                     ("census", "cloning, greedy (k* = 41)")])
    yard = pd.DataFrame({"coverage": [0.9, 0.6, 0.3], "precision": [0.95, 0.9, 0.8],
                         "baseline_precision": [0.75, 0.7, 0.9]}, index=idx)
    assert layout_problems(figures.yardstick_figure(yard)) == []


def test_noise_sd_one_is_diffix() -> None:
    """σ = 1 changes nothing: the same distributions, the same exact accuracy, the same simulated draws."""
    assert theory.differential_distributions(4, 1.0) == theory.differential_distributions(4)
    assert theory.theoretical_accuracy(3, 1.0) == theory.theoretical_accuracy(3)
    for share in (False, True):
        a = theory.simulated_accuracy_rounding(3, 200, seed=7, share_static=share)
        assert theory.simulated_accuracy_rounding(3, 200, seed=7, share_static=share, noise_sd=1.0) == a
    with pytest.raises(ValueError, match="noise_sd"):
        theory.differential_distributions(2, 0.0)
    with pytest.raises(ValueError, match="noise_sd"):
        theory.differential_distributions(2, math.inf)


def test_more_noise_lowers_the_exact_accuracy_towards_its_scale_free_limit() -> None:
    """Eq. 6 scaled by σ²: the means' gap of 1 fades, the variance ratio (2k + 2) / 2 stays."""
    acc = [theory.theoretical_accuracy(3, s) for s in (0.25, 1.0, 4.0, 64.0)]
    assert acc[0] > 0.97 and all(a > b for a, b in zip(acc, acc[1:]))
    p = theory.differential_distributions(3, 4.0)
    assert (p.var0, p.var1) == (32.0, 128.0)
    assert acc[-1] > 0.8  # the variance ratio alone still separates the hypotheses at k = 3


def test_noise_frame_at_diffix_noise_is_fig2s_theory() -> None:
    curves = theory.accuracy_curves(range(1, 7), n_monte_carlo=1000, n_simulations=100, B=12, seed=3)
    frame = diff.noise_frame(1.0, n_simulations=100, B=12, seed=3)
    assert frame["exact (no rounding)"] == (list(range(1, 7)), curves["theory"].tolist())
    assert frame["rounded answers (simulation)"][1] == curves["rounding"].tolist()
    other = diff.noise_frame(8.0, n_simulations=100, B=12, seed=3)
    assert other["exact (no rounding)"][1] != frame["exact (no rounding)"][1]
    assert 1.0 in diff.NOISE_SDS and len(set(diff.NOISE_SDS)) == len(diff.NOISE_SDS) >= 2

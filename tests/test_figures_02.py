"""Chapter 2's figures are designed for the book's text column and its page reads as a book (issues 26 and 27).

The figure functions of :mod:`anonbook.figures.cormode` are drawn on small inputs of the real kind and measured by
the column checker of ``tests/test_figures_01_03_04_08.py`` (natural width ≤ 857 px at 110 dpi, no text under
10 pt, at most two panels side by side, no legend over data). The explorable figure's frames are Fig. 1's own
experiment at each number of known attributes.
"""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from anonbook import plotting
from anonlab.attacks import naive_bayes  # noqa: E402
from anonlab.attacks.definetti import definetti_sweep, fig4_of  # noqa: E402
from anonbook import chapters  # noqa: E402
from anonbook.chapters import ch02_dp_vs_definetti as ch  # noqa: E402
from anonbook.chapters import kit  # noqa: E402
from anonbook.figures import cormode as figures  # noqa: E402
from anonlab.mechanisms.dp import encode_train_test  # noqa: E402

from .test_chapter02 import GRID, SMOOTH, _fig4, _naive_run  # noqa: E402
from .test_figures_01_03_04_08 import _cells, layout_problems  # noqa: E402
from .test_figures_01_03_04_08 import test_each_figure_cell_shows_one_captioned_figure_and_nothing_else as one_fig
from .test_figures_01_03_04_08 import test_the_chapter_box_comes_after_the_opening_and_before_the_claim as box_order

NAME = "02_dp_vs_definetti"


@pytest.fixture(autouse=True)
def _book_style():
    plotting.book_style()
    yield
    plt.close("all")


def _adult_like(n: int = 500, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({c: rng.integers(0, k, n).astype(str) for c, k in
                       [("workclass", 3), ("education", 4), ("sex", 2), ("hours", 3), ("income", 2),
                        ("relationship", 3), ("marital_status", 3)]})
    df["occupation"] = ((df["education"].astype(int) + rng.integers(0, 3, n)) % 7).astype(str)
    return df


def test_chapter02_figures_fit_the_column():
    paper = (lambda cid: 0.3)  # any paper value: only the layout is measured
    df = _adult_like()
    tables = {sa: encode_train_test(df.iloc[:400], df.iloc[400:], [q for q in ch.PAPER_SETTING["adult"]["qis"]
                                                                 if q != sa], sa)
              for sa in ["occupation", "marital_status"]}
    naive = {sa: _naive_run(SMOOTH) for sa in tables}
    f4 = _fig4(lambda l, mu: 1 / l + 0.2, lambda l, mu: 1 / l + 0.1, lambda l, mu: 0.3)
    table = tables["occupation"][0]
    sweep = definetti_sweep(table, [2, 3], multipliers=[1, 2, 3], repetitions=2, iterations=6, history=2,
                            moves_per_iteration=1, threshold=0.8, seed=1)
    nd = ch.headline_naive(table, GRID, draws=2, noise="geometric", seed=1)
    trade = naive_bayes.tradeoff_table(df, "occupation", ["education", "workclass", "sex", "hours", "income",
                                                          "relationship"], [0.1, 1.0], draws=2, seed=1)
    nonmember = naive_bayes.nonmember_table(naive, tables)
    drawn = {
        "fig1": figures.fig1(naive, tables, paper),
        "fig1, one target": figures.fig1({"occupation": naive["occupation"]}, {"occupation": tables["occupation"]},
                                         paper),
        "fig3": figures.fig3(naive, tables, 0.8, paper, adult=True),
        "timing": figures.timing(0.4, paper, adult=True),
        "fig4": figures.fig4(f4, paper, adult=True),
        "fig4, two sizes": figures.fig4(fig4_of(sweep, table, [2, 3], [1, 2]), paper, adult=True),
        "convergence": figures.convergence(sweep, [2, 3], [1, 2, 3]),
        "headline": figures.headline(nd, f4, table),
        "nonmember": figures.nonmember(nonmember, 0.8),
        "tradeoff": figures.tradeoff(trade, "occupation"),
    }
    assert {k: layout_problems(f) for k, f in drawn.items()} == {k: [] for k in drawn}
    # three group sizes: two panels a row, the legend in the fourth cell, every predictor named once
    fig = drawn["fig4"]
    assert sum(ax.get_visible() and ax.axison for ax in fig.axes) == 3
    labels = [t.get_text() for t in fig.axes[3].get_legend().get_texts()]
    assert labels[:3] == ["permutation", "group", "open"] and len(labels) == len(set(labels))
    assert any(lab.startswith("paper: below 30%") for lab in labels)


def test_the_explorable_frames_are_fig1s_experiment_at_each_m():
    df = _adult_like()
    train, test = df.iloc[:400], df.iloc[400:]
    pool = ch.PAPER_SETTING["adult"]["qis"]
    attrs = figures.known_attributes(pool, ["education", "relationship", "workclass", "marital_status"], "occupation")
    assert attrs == ["workclass", "education", "sex", "hours", "income", "relationship", "marital_status"]
    run = kit.ChapterRun(ch.CHAPTER, {**ch.CHAPTER.parameters.defaults(), "use_cache": False, "draws": 2})
    tables = {"occupation": encode_train_test(train, test, attrs[:5], "occupation")}
    naive = naive_bayes.naive_attack_runs(tables, GRID, draws=2, noise="geometric", threshold=0.8,
                                          dirichlet=False, seed=7)
    e = figures.explore_known_attributes(run, train, test, "occupation", attrs, 5, GRID, draws=2, noise="geometric",
                                         threshold=0.8, dirichlet=False, seed=7,
                                         claim_id="cormode.fig1.occupation.eps001_nontrivial", key={})
    assert e.values == list(range(1, 8)) and e.default == 4 and e.log_x
    own = e.frames[e.default][0]
    assert own.x == GRID and own.y == naive["occupation"].curve("train")["accuracy_mean"].iloc[:len(GRID)].tolist()
    assert e.band is not None and e.band[0] == pytest.approx(0.13)
    assert [s.name for s in e.paper] == ["paper: above this at ε = 0.01"]
    assert e.frames[0][0].y != e.frames[-1][0].y  # the slider's ends differ
    assert all(math.isfinite(y) for f in e.frames for s in f for y in s.y)
    assert e.png().startswith(b"\x89PNG")


def test_each_figure_cell_of_chapter02_shows_one_captioned_figure():
    one_fig(NAME)
    explorable = [c for c in _cells(NAME) if "explore_fig1" in "".join(c["source"])]
    assert len(explorable) == 1
    meta = explorable[0]["metadata"]["mystnb"]
    assert "slider" in meta["figure"]["caption"] and len(meta["image"]["alt"].split()) >= 12


def test_chapter02_box_comes_after_the_opening_and_before_the_claim():
    box_order(NAME)


def test_an_exercise_asks_to_move_the_slider():
    assert any("move the slider" in ex.question for ex in chapters.get(ch.CHAPTER.name).exercises)


def test_the_explorable_fallback_leaves_the_notebooks_backend_alone():
    """Drawing the static fallback must not switch the kernel's backend: every later figure would vanish."""
    from anonbook import explore

    pytest.importorskip("matplotlib_inline")
    before = matplotlib.get_backend()
    matplotlib.use("module://matplotlib_inline.backend_inline")
    try:
        e = explore.build_explorable("t", "m", [1, 2], lambda v: {"a": ([1, 2], [v, v + 1])}, x_label="x",
                                     y_label="y")
        assert e.png().startswith(b"\x89PNG")
        assert matplotlib.get_backend() == "module://matplotlib_inline.backend_inline"
    finally:
        matplotlib.use(before)

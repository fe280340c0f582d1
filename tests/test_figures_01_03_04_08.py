"""The figures of chapters 1, 3, 4 and 8 are designed for the book's text column (issue 26).

Each figure function is drawn on small inputs of the real kind and measured as the page will show it
(saved at the book's 110 dpi with ``bbox_inches="tight"``, as the notebooks' inline backend does):

- its natural width is at most :data:`MAX_WIDTH_PX` (the 772 px column shows it at ≥ 90 % of its size, so
  its 10 pt text reads at ≥ 9 pt);
- no text in it is set below :data:`MIN_FONT_PT` (ticks, legends, titles, annotations);
- at most two panels sit side by side;
- no legend covers data: no point of a line (sampled along its segments) and no bar lies inside a legend.
"""

from __future__ import annotations

import io
import re

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from anonbook import plotting

DPI = 110
MAX_WIDTH_PX = 857
MIN_FONT_PT = 10


def _legends(fig) -> list:
    out = list(fig.legends)
    out += [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    return out


def _line_points(line: Line2D, samples: int = 12) -> np.ndarray:
    """Display coordinates of a line's vertices and of points along its segments (finite points only)."""
    xy = np.column_stack([np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)])
    xy = line.get_transform().transform(xy)
    xy = xy[np.isfinite(xy).all(axis=1)]
    if len(xy) < 2:
        return xy
    t = np.linspace(0, 1, samples)[:, None, None]
    return (xy[:-1][None] * (1 - t) + xy[1:][None] * t).reshape(-1, 2)


def layout_problems(fig) -> list[str]:
    """What breaks the column's rules in ``fig`` (see the module docstring); empty when nothing does."""
    from PIL import Image

    problems = []
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
    width = Image.open(io.BytesIO(buf.getvalue())).size[0]
    if width > MAX_WIDTH_PX:
        problems.append(f"natural width {width} px > {MAX_WIDTH_PX} px")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip() or (t.axes is not None and not t.axes.get_visible()):
            continue
        if t.get_fontsize() < MIN_FONT_PT:
            problems.append(f"text {t.get_text()!r} at {t.get_fontsize():g} pt")
    shown = [ax for ax in fig.axes if ax.get_visible()]
    rows: dict[float, int] = {}
    for ax in shown:
        y = round(ax.get_position().y0, 2)
        rows[y] = rows.get(y, 0) + 1
    if rows and max(rows.values()) > 2:
        problems.append(f"{max(rows.values())} panels side by side")
    for legend in _legends(fig):
        box = legend.get_window_extent(renderer)
        for ax in shown:
            for line in ax.lines:
                pts = _line_points(line)
                inside = ((pts[:, 0] > box.x0) & (pts[:, 0] < box.x1) & (pts[:, 1] > box.y0) & (pts[:, 1] < box.y1))
                if inside.any():
                    problems.append(f"legend covers the line {line.get_label()!r}")
            for patch in ax.patches:
                if isinstance(patch, Rectangle) and patch.get_height() and patch.get_window_extent(renderer).overlaps(box):
                    problems.append(f"legend covers a bar of {patch.get_label()!r}")
                    break
    return problems


@pytest.fixture(autouse=True)
def _book_style():
    plotting.book_style()
    yield
    plt.close("all")


def test_the_checker_sees_what_breaks_the_rules():
    """A figure of the old design (15 in wide, three panels, 8 pt legend over the data) breaks every rule."""
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for ax in axes:
        ax.plot([0, 1, 2], [0.1, 0.5, 0.9], label="curve")
        ax.legend(fontsize=8, loc="center")
    problems = layout_problems(fig)
    assert any("natural width" in p for p in problems)
    assert any("at 8 pt" in p for p in problems)
    assert any("3 panels side by side" in p for p in problems)
    assert any("legend covers the line 'curve'" in p for p in problems)
    ok, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot([0, 1, 2], [0.1, 0.5, 0.9], label="curve")
    ok.tight_layout()
    ok.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0))
    assert layout_problems(ok) == []


# --- chapter 1 ---------------------------------------------------------------------------------


def test_chapter01_figures_fit_the_column():
    from anonbook.chapters import ch01_syntactic_anonymity as ch
    from anonbook.figures import syntactic as figures
    from anonlab.mechanisms import syntactic as syn

    slides = ch.slide_tables()
    fig = figures.plot_t_closeness(ch.t_closeness_table(slides.sdt, slides.hierarchy), 0.167, 0.278,
                                   ch.DISEASE_T_COLUMNS)
    assert layout_problems(fig) == []
    rng = np.random.default_rng(0)
    adult = pd.DataFrame({"age": rng.integers(17, 90, 400), "sex": rng.choice(["F", "M"], 400),
                          "race": rng.choice(["White", "Black", "Other"], 400),
                          "native_country": rng.choice(["United-States", "Cuba", "India"], 400),
                          "occupation": rng.choice(list("abcdef"), 400)})
    sweep = syn.generalisation_sweep(adult, ["age", "sex", "race", "native_country"], "occupation",
                                     ch.adult_ladder(adult, 10), k=4)
    assert layout_problems(figures.plot_sweep(sweep, 4)) == []


# --- chapter 3 ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def netflix_small():
    from anonlab.attacks import netflix as nf
    from anonbook.chapters import ch03_netflix_eccentricity as ch
    from anonlab.data.netflix_synthetic import generate_netflix_like

    release = nf.Release(generate_netflix_like(1_500, 300, seed=2), "small data (test)", {"dataset": "test-small"})
    exp = nf.Experiment(release, nf.Similarity(), "natural", 1.5, 3)
    grid = [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20]
    curves = ch.reidentification_curves(exp, grid, 25, [3, 14], 1, 30)
    matched = ch.reidentification_curves(exp, grid, 25, [3, 14], 1, 30, reading=ch.SIM_MATCHED)
    syn = ch.reidentification_curves(exp, [1, 2, 4, 8], 25, [3, 14], 1, 30, wrong_fraction=0.25)
    wrong = ch.wrong_entry_sweep(exp, curves.targets, 8, 14)
    return release, grid, curves, matched, syn, wrong


def test_chapter03_figures_fit_the_column(netflix_small):
    from anonlab.attacks import netflix as nf
    from anonbook.chapters import ch03_netflix_eccentricity as ch
    from anonbook.figures import netflix as figures

    release, grid, curves, matched, syn, wrong = netflix_small
    name, headlines = "MovieLens 100K", [0.99, 0.68]
    ref = "exact ratings, dates ±14 d"
    pc = nf.precision_coverage(nf.at_m(curves.trials[ref], 8), nf.at_m(curves.absent, 8),
                               [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 1.5])
    amp = nf.amplification_summary(release.data, curves.trials[ref], 1.5)
    drawn = {
        "curves": figures.plot_curves(curves, grid, 15, 1, [3, 14], name, 8, 2, headlines),
        "readings": figures.plot_readings({ch.SIM_PAPER: curves, ch.SIM_MATCHED: matched}, grid, name),
        "wrong": figures.plot_wrong_entries(wrong, 8, 14, 0.25, name, headlines[0]),
        "eccentricity": figures.plot_eccentricity(curves, 8, 14, name),
        "synthetic": figures.plot_synthetic(syn, 14, 100_000, 8, 2, "synthetic Netflix-shaped data (test)",
                                            headlines),
        "precision_coverage": figures.plot_precision_coverage(pc, release.data.n_users, f"{name}, m = 8"),
        "amplification": figures.plot_amplification(amp, grid, name),
    }
    assert {k: layout_problems(f) for k, f in drawn.items()} == {k: [] for k in drawn}
    # the curves' legend holds each label once, the settings before the paper's markers and the bound
    labels = [t.get_text() for t in drawn["curves"].axes[3].get_legend().get_texts()]
    assert len(labels) == len(set(labels)) and labels[-1].startswith("theorem bound")
    assert labels.index("paper, Netflix: 8 ratings, 2 wrong, ±14 d") > labels.index(ref)


def test_m_axis_labels_are_thinned_but_keep_both_ends():
    from anonbook.figures import netflix as figures

    labels = figures.tick_labels([1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20], 3.0)
    assert labels[0] == "1" and labels[-1] == "20" and "" in labels
    assert figures.tick_labels([1, 2, 4, 8], 6.0) == ["1", "2", "4", "8"]


# --- chapter 4 ---------------------------------------------------------------------------------


def test_chapter04_figures_fit_the_column():
    from anonbook.figures import census as figures

    eps = [0.5, 1.0, 4.0, 16.0]
    names = ["attack, public linkage", "attack, perfect linkage", "block majority", "single-group blocks"]
    rows = [{"publication": pub, "epsilon": e, "inference": n, "precision": 0.5 + 0.1 * i, "recall": 0.1 * i,
             "coverage": 0.2 * i}
            for pub, e in [("exact", np.nan), ("swapping", np.nan)] + [(f"dp ε={e:g}", e) for e in eps]
            for i, n in enumerate(names)]
    fig = figures.plot_epsilon(pd.DataFrame(rows), eps)
    assert layout_problems(fig) == []
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[:4] == names and "swapped" in labels[-1]
    sizes = 1 + np.random.default_rng(0).negative_binomial(0.6, 0.6 / 50, 300)
    assert layout_problems(figures.plot_block_sizes(sizes)) == []


# --- chapter 8 ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def thresholding_small():
    from anonbook.chapters import ch08_passive_active as ch

    eps = ch.epsilon_grid([0.0, 0.5, 1.0, 2.0, 4.0], 1.0)
    ps = [1e-4, 1e-3, 0.01, 0.1, 0.3, 0.5]
    return eps, ps, ch.example7_sweep(200, 20, 20, ps, eps, 1.0)


def test_chapter08_figures_fit_the_column(thresholding_small):
    from anonbook.chapters import ch08_passive_active as ch
    from anonbook.figures import passive_active as figures

    eps, ps, sweep = thresholding_small
    table = ch.sweep_table(sweep, 1.0, 1e-6, 0.5)
    noisy = [m for m in ch.mechanisms(20, 1.0) if m.startswith("noisy")]
    drawn = {
        "example": figures.plot_example(sweep, 1e-4, 1e-6),
        "panels, odd count": figures.delta_panels(sweep, ps[:3], delta_private=1e-6),
        "panels": figures.delta_panels(sweep, ps, delta_private=1e-6),
        "summary": figures.p_summary(table, 1.0, 1e-6, 0.5, 1e-4),
        "referendum": figures.plot_referendum(sweep["exact tally", 0.5]),
        "noise": figures.noise_panels(sweep, noisy, 1e-4, 1.0, eps),
    }
    assert {k: layout_problems(f) for k, f in drawn.items()} == {k: [] for k in drawn}
    odd = drawn["panels, odd count"]
    assert sum(ax.get_visible() for ax in odd.axes) == 3 and odd.axes[2].get_xlabel() == "ε"
    with pytest.raises(ValueError, match="ncols"):
        figures.delta_panels(sweep, ps, ncols=4)


# --- the notebooks: one figure per cell, captioned, after the chapter box --------------------------

NOTEBOOKS = ["01_syntactic_anonymity", "03_netflix_eccentricity", "04_census_reconstruction", "08_passive_active"]


def _cells(name: str) -> list[dict]:
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "notebooks" / f"{name}.ipynb"
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_each_figure_cell_shows_one_captioned_figure_and_nothing_else(name):
    """A cell that draws carries a caption and an alt text, and shows no table and glues nothing (MyST-NB would
    wrap every output of the cell in the captioned figure)."""
    drawn = 0
    for cell in _cells(name):
        src = "".join(cell["source"])
        if cell["cell_type"] != "code" or not ("plt.show()" in src or src.rstrip().endswith(";")):
            continue
        drawn += 1
        fig = cell["metadata"].get("mystnb", {})
        caption, alt = fig.get("figure", {}).get("caption", ""), fig.get("image", {}).get("alt", "")
        assert len(caption.split()) >= 12 and len(alt.split()) >= 12, src[:80]
        assert "{glue" not in caption and not re.search(r"\d\.\d|\de-?\d", caption), caption  # no computed number
        assert "glue" not in src and "display(" not in src, src[:80]
        assert src.count("plt.show()") + src.rstrip().endswith(";") == 1, src[:80]
    assert drawn >= 2


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_chapter_box_comes_after_the_opening_and_before_the_claim(name):
    md = ["".join(c["source"]) for c in _cells(name) if c["cell_type"] == "markdown"]
    assert md[0].startswith("# ") and "## " not in md[0] and len(md[0].split()) > 30
    assert md[1].strip() == f"```{{include}} _generated/chapters/{name}.header.md\n```"
    assert md[2].startswith("## The claim")


@pytest.mark.parametrize("x, shown", [(0.123456, "0.1235"), (12345.6, "12,346"), (3e-05, "3e-05"), (0.0004545, "4.545e-04"), (-0.00081, "-8.1e-04"), (2.0, "2"),
                                      (float("nan"), "NaN"), (-1500.0, "-1,500"), (2.5e6, "2.5e+06")])
def test_plain_tables_show_four_significant_digits(x, shown) -> None:
    from anonbook import plotting

    assert plotting.table_number(x) == shown


def test_the_kit_sets_the_table_style_for_every_chapter() -> None:
    import pandas as pd

    from anonbook import plotting

    with pd.option_context("display.float_format", None):
        plotting.table_style()
        assert "0.1235" in pd.DataFrame({"a": [0.123456]}).to_html()
        assert "0.123456" not in pd.DataFrame({"a": [0.123456]}).to_html()

"""Explorable figures: one frame per parameter value, drawn by Plotly.js served from the book, in a real browser."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import pagecheck
from anonbook import explore
from anonbook.book import find_browser


def _figure() -> explore.Explorable:
    frames = {0.1: {"accuracy": ([1, 2, 3], [0.20, 0.25, 0.30])}, 1.0: {"accuracy": ([1, 2, 3], [0.5, 0.6, 0.7])}}
    return explore.build_explorable("Naive attack", "epsilon", [0.1, 1.0], frames.__getitem__, x_label="l",
                                    y_label="accuracy", current=1.0, band=(0.25, 0.35, "the claim holds"),
                                    paper=[explore.Series("paper", [2], [0.3])])


def test_an_explorable_holds_one_recorded_frame_per_value_and_a_static_fallback() -> None:
    e = _figure()
    assert e.default == 1 and e.data()["frames"][0][0]["y"] == [0.20, 0.25, 0.30]
    assert e.png().startswith(b"\x89PNG")
    page = e._repr_html_()
    assert "data:image/png;base64," in page and explore.PLOTLY_PATH in page
    with pytest.raises(ValueError, match="one frame per value"):
        explore.Explorable("t", "p", [1, 2], [[]], "x", "y")


def test_the_slider_draws_the_recorded_frames_in_a_browser(tmp_path: Path) -> None:
    browser = find_browser()
    if browser is None:
        pytest.skip("no Chromium on this machine")
    html = tmp_path / "html"
    explore.vendor_plotly(html / "_static")  # the book serves it from _static/plotly/
    (html / "page.html").write_text(f"<html><body><article>{_figure()._repr_html_()}</article></body></html>")
    report = pagecheck.layout_report(html, ["page"], browser, 900)
    (e,) = report["page"]["explorables"]
    assert e["drawn"] and [end["drawn"] for end in e["ends"]] == [[[0.2, 0.25, 0.3]], [[0.5, 0.6, 0.7]]]
    assert pagecheck.layout_problems(report, captions=False) == []
    # a figure whose frames are the same at both ends explores nothing
    flat = dict(e, ends=[dict(end, recorded=[[1]], drawn=[[1]]) for end in e["ends"]])
    assert "the same values at both ends" in pagecheck.layout_problems({"p": {"width": 900, "explorables": [flat]}})[0]


def test_the_static_fallback_leaves_pyplots_backend_alone() -> None:
    """Drawing the fallback PNG must not switch the notebook's backend (later figures would not show)."""
    import matplotlib
    import matplotlib.pyplot as plt

    before = matplotlib.get_backend()
    plt.switch_backend("svg")
    try:
        assert _figure().png().startswith(b"\x89PNG")
        assert matplotlib.get_backend() == "svg"
    finally:
        plt.switch_backend(before)

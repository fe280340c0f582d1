"""Explorable figures: a reader with only a browser moves a parameter and watches a claim hold or break.

An :class:`Explorable` holds one *frame* per value of one parameter, each frame the series a real run of
the chapter's library code produced at that value (computed at build time and cached by its key, see
:meth:`anonbook.chapters.kit.ChapterRun.explorable`); nothing is interpolated between frames. In the book
it renders as a Plotly chart with a slider over the parameter, the paper's value and the band of values
the claim's tolerance accepts drawn on it. Plotly.js is served once by the book
(``_static/plotly/plotly.min.js``, copied from the ``plotly`` package by :func:`vendor_plotly`), so the
page works opened from disk, offline, with no kernel. Where the script cannot run (a notebook opened in
JupyterLab, print), the static PNG of the run's own frame stands in.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Series", "Explorable", "build_explorable", "claim_band", "vendor_plotly", "PLOTLY_PATH"]

#: Where the book serves Plotly.js from, relative to a page (``book/_vendor`` is copied into the HTML).
PLOTLY_PATH = "_static/plotly/plotly.min.js"


@dataclass(frozen=True)
class Series:
    """One line of a frame: its name and its points."""

    name: str
    x: Sequence[float]
    y: Sequence[float]

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "x": [_num(v) for v in self.x], "y": [_num(v) for v in self.y]}


def _num(v: Any) -> Any:
    """A JSON-safe number (NaN and infinities become ``None``, NumPy scalars Python numbers)."""
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


@dataclass
class Explorable:
    """A figure with a slider over ``parameter``: ``frames[i]`` is what the run at ``values[i]`` measured.

    ``paper`` are the paper's points (``Series``), drawn on every frame; ``band`` is the interval of
    y-values the claim accepts, ``(low, high, label)``, shaded; ``default`` is the index of the value the
    chapter's own run used (the static fallback shows that frame).
    """

    title: str
    parameter: str
    values: Sequence[Any]
    frames: Sequence[Sequence[Series]]
    x_label: str
    y_label: str
    paper: Sequence[Series] = ()
    band: tuple[float, float, str] | None = None
    log_x: bool = False
    default: int = 0
    note: str = ""
    alt: str = ""
    _png: bytes | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if len(self.values) != len(self.frames) or not self.frames:
            raise ValueError(f"an explorable figure needs one frame per value of {self.parameter!r}: "
                             f"{len(self.values)} values, {len(self.frames)} frames")
        if not 0 <= self.default < len(self.values):
            raise ValueError(f"default index {self.default} outside the {len(self.values)} values")

    def data(self) -> dict[str, Any]:
        """Everything the page's script needs, as JSON-ready values (the browser test reads it back)."""
        return {
            "title": self.title, "parameter": self.parameter, "values": [_num(v) for v in self.values],
            "frames": [[s.as_dict() for s in f] for f in self.frames], "paper": [s.as_dict() for s in self.paper],
            "band": list(self.band) if self.band else None, "x_label": self.x_label, "y_label": self.y_label,
            "log_x": self.log_x, "default": self.default,
        }

    def png(self) -> bytes:
        """The static figure of the default frame (the fallback where no script runs, and for print)."""
        if self._png is None:
            self._png = _draw_png(self)
        return self._png

    def _repr_html_(self) -> str:
        return explorable_html(self)


def _draw_png(e: Explorable) -> bytes:
    # A Figure of its own, not pyplot: switching the backend (matplotlib.use) in a notebook's kernel would
    # stop every later figure of the chapter from showing.
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.0, 4.8), dpi=110)
    ax = fig.subplots()
    if e.band:
        ax.axhspan(e.band[0], e.band[1], color="#1b5e20", alpha=0.12, label=e.band[2])
    for s in e.frames[e.default]:
        ax.plot(s.x, s.y, marker="o", ms=3, label=s.name)
    for s in e.paper:
        ax.plot(s.x, s.y, ls="none", marker="*", ms=12, color="black", label=s.name)
    if e.log_x:
        ax.set_xscale("log")
    ax.set_xlabel(e.x_label)
    ax.set_ylabel(e.y_label)
    ax.set_title(f"{e.title} ({e.parameter} = {e.values[e.default]})", fontsize=10)
    # The legend sits under the axes, never over the band or a line (at most two entries per row).
    n = len(ax.get_legend_handles_labels()[1])
    ax.legend(fontsize=10, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=min(2, max(n, 1)),
              frameon=False)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


_SCRIPT = """(function () {
  var root = document.currentScript.parentElement;
  var d = JSON.parse(root.querySelector('script.anonlab-explorable-data').textContent);
  function traces(i) {
    var t = d.frames[i].map(function (s) { return {x: s.x, y: s.y, name: s.name, mode: 'lines+markers'}; });
    d.paper.forEach(function (s) {
      t.push({x: s.x, y: s.y, name: s.name, mode: 'markers', marker: {symbol: 'star', size: 13, color: 'black'}});
    });
    if (d.band) {
      t.push({x: [null], y: [null], name: d.band[2], mode: 'markers', hoverinfo: 'skip',
              marker: {symbol: 'square', size: 14, color: 'rgba(27, 94, 32, 0.25)'}});
    }
    return t;
  }
  function wrap(text, width) {
    // Plotly does not wrap titles: break at words so the title fits the plot's width (about 8 px a letter).
    var most = Math.max(20, Math.floor(width / 8)), lines = [''];
    text.split(' ').forEach(function (w) {
      var last = lines[lines.length - 1];
      if (last && (last + ' ' + w).length > most) { lines.push(w); } else { lines[lines.length - 1] = last ? last + ' ' + w : w; }
    });
    return lines.join('<br>');
  }
  function layout(i, width) {
    var title = wrap(d.title + ' (' + d.parameter + ' = ' + d.values[i] + ')', width);
    var rows = title.split('<br>').length;
    var l = {title: {text: title, font: {size: 14}, x: 0.5, xanchor: 'center', y: 1, yref: 'container', yanchor: 'top', pad: {t: 22}},
             xaxis: {title: {text: d.x_label}, type: d.log_x ? 'log' : 'linear', automargin: true,
                     exponentformat: 'power'},
             yaxis: {title: {text: d.y_label}, automargin: true, exponentformat: 'power'},
             margin: {t: 34 + 20 * rows, r: 10, b: 10, l: 60},
             legend: {orientation: 'h', yref: 'container', y: 0, yanchor: 'bottom', x: 0, xanchor: 'left'},
             font: {size: 13},
             shapes: [], annotations: []};
    if (d.band) {
      // The band is named in the legend (a label on the plot would sit over the lines in some frames).
      l.shapes.push({type: 'rect', xref: 'paper', x0: 0, x1: 1, y0: d.band[0], y1: d.band[1],
                     fillcolor: '#1b5e20', opacity: 0.12, line: {width: 0}});
    }
    return l;
  }
  function start() {
    var plot = root.querySelector('.anonlab-explorable-plot');
    var slider = root.querySelector('input[type=range]');
    var shown = root.querySelector('output');
    root.querySelector('.anonlab-explorable-fallback').style.display = 'none';
    plot.style.display = 'block';
    root.querySelector('.anonlab-explorable-controls').style.display = 'flex';
    function draw() {
      // The width is the column's, measured now (a phone's column is narrower than Plotly's 700 px default).
      var i = +slider.value, width = root.clientWidth || 700, l = layout(i, width);
      l.width = width;
      shown.textContent = d.values[i];
      Plotly.react(plot, traces(i), l, {displayModeBar: false});
    }
    slider.addEventListener('input', draw);
    if (window.ResizeObserver) {
      var last = root.clientWidth;
      new ResizeObserver(function () { if (root.clientWidth !== last) { last = root.clientWidth; draw(); } }).observe(root);
    }
    draw();
  }
  if (window.Plotly) { start(); return; }
  window.anonlabPlotly = window.anonlabPlotly || new Promise(function (ok, fail) {
    var s = document.createElement('script');
    s.src = '__PLOTLY__'; s.onload = ok; s.onerror = fail; document.head.appendChild(s);
  });
  window.anonlabPlotly.then(start);
})();"""


def explorable_html(e: Explorable) -> str:
    """The figure as HTML: the static PNG, the plot and slider that replace it once Plotly.js has loaded."""
    png = base64.b64encode(e.png()).decode()
    alt = html.escape(e.alt or f"{e.title}: {e.y_label} against {e.x_label}, for each {e.parameter}", quote=True)
    n = len(e.values) - 1
    data = json.dumps(e.data(), separators=(",", ":")).replace("</", "<\\/")
    note = f'<div class="anonlab-explorable-note">{html.escape(e.note)}</div>' if e.note else ""
    return (
        f'<div class="anonlab-explorable" data-parameter="{html.escape(e.parameter, quote=True)}">'
        f'<img class="anonlab-explorable-fallback" alt="{alt}" src="data:image/png;base64,{png}">'
        f'<div class="anonlab-explorable-plot" style="display:none;width:100%;height:460px"></div>'
        f'<div class="anonlab-explorable-controls" style="display:none;gap:0.8em;align-items:center">'
        f'<label>{html.escape(e.parameter)} = <output>{html.escape(str(e.values[e.default]))}</output></label>'
        f'<input type="range" min="0" max="{n}" step="1" value="{e.default}" style="flex:1" '
        f'aria-label="{html.escape(e.parameter, quote=True)}"></div>{note}'
        f'<script type="application/json" class="anonlab-explorable-data">{data}</script>'
        f"<script>{_SCRIPT.replace('__PLOTLY__', PLOTLY_PATH)}</script></div>"
    )


def build_explorable(title: str, parameter: str, values: Sequence[Any],
                     frame: Callable[[Any], Mapping[str, tuple[Sequence[float], Sequence[float]]]], *,
                     x_label: str, y_label: str, current: Any = None, **kw: Any) -> Explorable:
    """An :class:`Explorable` whose frame at each value is ``frame(value)``: ``{series name: (x, y)}``.

    ``frame`` runs the chapter's library code at that value (the kit caches it by the value);
    ``current`` is the value the chapter's own run used (its frame is the static fallback).
    """
    frames = [[Series(name, list(xy[0]), list(xy[1])) for name, xy in frame(v).items()] for v in values]
    default = list(values).index(current) if current in list(values) else 0
    return Explorable(title, parameter, list(values), frames, x_label, y_label, default=default, **kw)


def claim_band(c: Any, frames: Iterable[Mapping[str, tuple[Any, Any]]]) -> tuple[float, float, str] | None:
    """The y-values a claim's tolerance accepts, clipped to the frames' range where it is one-sided."""
    from anonlab.claims.rules import accepted_interval

    acc = accepted_interval(c)
    if acc is None:
        return None
    ys = [float(y) for f in frames for _, (_, yy) in f.items() for y in yy
          if y is not None and math.isfinite(float(y))]
    lo = acc[0] if math.isfinite(acc[0]) else min(ys + [acc[1]])
    hi = acc[1] if math.isfinite(acc[1]) else max(ys + [acc[0]])
    return (lo, hi, f"the paper's claim holds here ({c.describe_reported()})")


def vendor_plotly(static_dir: Path | None = None) -> Path:
    """Copy Plotly.js (the ``plotly`` package's bundled ``plotly.min.js``) into ``book/_vendor/_static/plotly``."""
    import shutil

    from anonlab import paths

    try:
        import plotly
    except ImportError as exc:  # pragma: no cover - it is in the lock
        raise RuntimeError("Plotly.js missing: install the lock (make env)") from exc
    src = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    dest = (static_dir or paths.book_dir() / "_vendor" / "_static") / "plotly" / "plotly.min.js"
    if not dest.exists() or dest.stat().st_size != src.stat().st_size:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
    return dest

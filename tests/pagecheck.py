"""What a reader sees on each page, measured in a real browser: tables that scroll sideways, figures whose
text is rendered too small, code walls before the first figure.

:func:`layout_report` copies the built HTML, adds a small script to each page that measures the laid-out
page after it has loaded (images included) and writes the measurements into the page, renders the page
in headless Chromium at a given window width and reads them back from the DOM. :func:`layout_problems`
turns a report into one line per problem, against these rules (issue "The book reads like a book"):

- a verdict table (``table.verdict-table``), the counts (``table.verdict-summary``) and the parameters
  table never need sideways scrolling: their width stays within the page's article;
- figure text is at least :data:`MIN_TEXT_PT` as rendered: the book's figures set their text at
  :data:`FIGURE_TEXT_PT` or more at :data:`FIGURE_DPI` dots per inch, so a figure shown at less than
  ``MIN_TEXT_PT / FIGURE_TEXT_PT`` of its natural width shrinks its text below the limit (on a narrow
  screen a wide figure keeps its natural size and scrolls instead, see ``book/_static/anonlab.css``);
- no visible code cell above the first figure is longer than :data:`MAX_CODE_LINES` lines;
- every explorable figure draws with Plotly, and at both ends of its slider draws exactly the frames the
  runs recorded, which differ;
- every figure is numbered with a caption (a ``figcaption``) and has an alt text in words (not the
  file's hash), when ``captions`` is asked for.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["MIN_TEXT_PT", "FIGURE_TEXT_PT", "FIGURE_DPI", "MAX_CODE_LINES", "layout_report", "layout_problems"]

MIN_TEXT_PT = 9.0
FIGURE_TEXT_PT = 10.0  # anonbook.plotting.book_style: font.size
FIGURE_DPI = 110  # anonbook.plotting.book_style: figure.dpi (the inline backend saves at it)
MAX_CODE_LINES = 5

_SCRIPT = r"""
function anonlabExplorables() {
  // Move each explorable figure's slider to both ends; read what Plotly drew against the frames it holds.
  var out = [];
  document.querySelectorAll('.anonlab-explorable').forEach(function (root) {
    var d = JSON.parse(root.querySelector('script.anonlab-explorable-data').textContent);
    var plot = root.querySelector('.anonlab-explorable-plot');
    var slider = root.querySelector('input[type=range]');
    var r = {parameter: d.parameter, drawn: !!(plot && plot.data), ends: []};
    [0, d.values.length - 1].forEach(function (i) {
      slider.value = i; slider.dispatchEvent(new Event('input'));
      var drawn = plot && plot.data ? plot.data.slice(0, d.frames[i].length).map(function (t) {
        return Array.prototype.slice.call(t.y); }) : null;
      r.ends.push({value: d.values[i], drawn: drawn,
                   recorded: d.frames[i].map(function (s) { return s.y; })});
    });
    out.push(r);
  });
  return out;
}
function anonlabMeasure() {
  var art = document.querySelector('article') || document.body;
  var right = art.getBoundingClientRect().right;
  var r = {width: window.innerWidth, tables: [], figures: [], code: [], explorables: anonlabExplorables()};
  document.querySelectorAll('table.verdict-table, table.verdict-summary, table.parameters-table')
    .forEach(function (t) {
      var box = t.getBoundingClientRect();
      r.tables.push({cls: t.className, overflow: Math.max(t.scrollWidth - t.clientWidth, box.right - right)});
    });
  var imgs = Array.prototype.slice.call(art.querySelectorAll('img'))
    .filter(function (i) { return i.naturalWidth > 200 && i.offsetParent !== null; });
  imgs.forEach(function (i) {
    var fig = i.closest('figure');
    var cap = fig ? fig.querySelector('figcaption') : null;
    r.figures.push({src: i.getAttribute('src'), natural: i.naturalWidth, shown: i.getBoundingClientRect().width,
                    caption: cap ? cap.innerText.trim() : '', alt: i.getAttribute('alt') || ''});
  });
  var first = imgs.length ? imgs[0] : null;
  art.querySelectorAll('div.cell_input').forEach(function (c) {
    if (c.offsetParent === null) return;
    if (first && !(c.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING)) return;
    r.code.push(c.innerText.trim().split('\n').length);
  });
  if (window.parent !== window) { window.parent.postMessage(JSON.stringify(r), '*'); return; }
  var pre = document.createElement('pre');
  pre.id = 'anonlab-layout';
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
}
window.addEventListener('load', function () {
  var ready = window.anonlabPlotly || Promise.resolve();
  ready.then(function () { setTimeout(anonlabMeasure, 300); }, function () { setTimeout(anonlabMeasure, 0); });
});
"""

# A narrow phone cannot be had from a headless window (Chromium's smallest is 500 px wide): the page is
# laid out in an iframe of the asked width, and its measurements come back by postMessage.
_FRAME = """<!DOCTYPE html><html><body style="margin:0">
<iframe src="{page}" style="width:{width}px;height:1200px;border:0"></iframe>
<script>window.addEventListener('message', function (e) {{
  var pre = document.createElement('pre'); pre.id = 'anonlab-layout'; pre.textContent = e.data;
  document.body.appendChild(pre); }});</script></body></html>
"""


def layout_report(html_dir: Path, pages: list[str], browser: str, width: int) -> dict[str, dict[str, Any]]:
    """Page name -> the measurements of that page laid out in a ``width``-pixel-wide window."""
    from anonbook.book import BROWSER_FLAGS

    out: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="anonlab-layout-") as tmp:
        copy = Path(tmp) / "html"
        shutil.copytree(html_dir, copy)
        (copy / "_anonlab_layout.js").write_text(_SCRIPT, encoding="utf-8")
        for name in pages:
            page = copy / f"{name}.html"
            if not page.exists():
                continue
            text = page.read_text(encoding="utf-8")
            page.write_text(text.replace("</body>", '<script src="_anonlab_layout.js"></script></body>', 1),
                            encoding="utf-8")
            frame = copy / f"_anonlab_frame_{name}.html"
            frame.write_text(_FRAME.format(page=page.name, width=width), encoding="utf-8")
            profile = Path(tmp) / f"profile-{name}"
            proc = subprocess.run(
                [browser, *BROWSER_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=8000",
                 "--allow-file-access-from-files", f"--window-size={max(width + 40, 600)},1300", "--dump-dom",
                 frame.resolve().as_uri()],
                capture_output=True, text=True, timeout=180)
            m = re.search(r'<pre id="anonlab-layout"[^>]*>(.*?)</pre>', proc.stdout, re.S)
            out[name] = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&")) if m else {}
    return out


def _explorable_problems(page: str, e: dict[str, Any]) -> list[str]:
    """An explorable figure must draw, change between the slider's ends, and draw exactly the recorded frames."""
    where = f"{page}: the explorable figure over {e.get('parameter')}"
    if not e.get("drawn"):
        return [f"{where} did not draw (Plotly.js did not load?)"]
    ends = e.get("ends", [])
    problems = []
    for end in ends:
        if end["drawn"] != end["recorded"]:
            problems.append(f"{where} at {end['value']} draws other values than the recorded run")
    if len(ends) == 2 and ends[0]["recorded"] == ends[1]["recorded"]:
        problems.append(f"{where} shows the same values at both ends of the slider")
    return problems


def layout_problems(report: dict[str, dict[str, Any]], *, captions: bool = True) -> list[str]:
    """One line per rule a page breaks (see the module docstring); empty when every page reads well."""
    problems = []
    min_scale = MIN_TEXT_PT / FIGURE_TEXT_PT
    for name, r in report.items():
        if not r:
            problems.append(f"{name}: the page could not be measured")
            continue
        for t in r.get("tables", []):
            if t["overflow"] > 2:
                problems.append(f"{name} at {r['width']} px: a {t['cls']} is {t['overflow']:.0f} px too wide")
        for f in r.get("figures", []):
            scale = f["shown"] / f["natural"] if f["natural"] else 1.0
            if scale < min_scale - 1e-3:
                pt = FIGURE_TEXT_PT * scale
                problems.append(f"{name} at {r['width']} px: figure {f['src']} ({f['natural']} px) is shown at "
                                f"{f['shown']:.0f} px, so its {FIGURE_TEXT_PT:g} pt text reads as {pt:.1f} pt")
            if captions and not f.get("caption"):
                problems.append(f"{name}: figure {f['src']} has no caption")
            if captions and (not f.get("alt") or re.fullmatch(r"[0-9a-f]{16,}(\.png)?", f["alt"])):
                problems.append(f"{name}: figure {f['src']} has no alt text in words")
        for e in r.get("explorables", []):
            problems += _explorable_problems(name, e)
        long = [n for n in r.get("code", []) if n > MAX_CODE_LINES]
        if long:
            problems.append(f"{name} at {r['width']} px: code cells of {long} lines above the first figure")
    return problems

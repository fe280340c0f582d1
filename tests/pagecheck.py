"""What a reader sees on each page, measured in a real browser: tables that scroll sideways, figures whose
text is rendered too small, code walls before the first figure.

:func:`layout_report` copies the built HTML, adds a small script to each page that measures the laid-out
page after it has loaded (images included) and writes the measurements into the page, renders the page
in headless Chromium at a given window width and reads them back from the DOM. :func:`layout_problems`
turns a report into one line per problem, against these rules (issue "The book reads like a book"):

- every table of the page (:func:`table_problems`) stays within the page's article (no sideways
  scrolling), shows no index of row numbers, no ``NaN``/``None``, no raw tuple or 16-digit number, and
  no cell cut short with "…";
- the page never scrolls sideways, no figure (image, SVG, plot) is wider than the column, no verdict badge
  breaks inside a word, no pandas dump ("Name: x, dtype: object") shows (:func:`page_problems`);
- at a desktop width (:data:`DESKTOP_WIDTH` or more) figure text is at least :data:`MIN_TEXT_PT` as
  rendered: the book's figures set their text at :data:`FIGURE_TEXT_PT` or more at :data:`FIGURE_DPI`
  dots per inch, so a figure shown at less than ``MIN_TEXT_PT / FIGURE_TEXT_PT`` of its natural width
  shrinks its text below the limit (on a phone figures shrink to the column, ``max-width: 100%``);
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
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["MIN_TEXT_PT", "FIGURE_TEXT_PT", "FIGURE_DPI", "MAX_CODE_LINES", "DESKTOP_WIDTH", "layout_report",
           "layout_problems", "table_problems", "page_problems"]

MIN_TEXT_PT = 9.0
FIGURE_TEXT_PT = 10.0  # anonbook.plotting.book_style: font.size
FIGURE_DPI = 110  # anonbook.plotting.book_style: figure.dpi (the inline backend saves at it)
MAX_CODE_LINES = 5
#: The narrowest window at which a figure's text size is checked: narrower, a figure shrinks to the column
#: (``max-width: 100%``) and opens at full size on a click, so only its width is checked.
DESKTOP_WIDTH = 1000

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
function anonlabCells(t) {
  // What a reader finds wrong in a table's cells: NaN-like text, raw tuples and over-long decimals, cut text.
  var out = {nan: [], raw: [], cut: []};
  t.querySelectorAll('td, th').forEach(function (c) {
    if (c.closest('table') !== t) return;
    var x = c.innerText.trim();
    if (/^(NaN|nan|None|<NA>|NaT|null|undefined)$/.test(x)) out.nan.push(x);
    // a decimal with 7 or more places is raw unless it has at most six significant digits (0.00714286)
    var long = (x.match(/\d*\.\d{7,}/g) || []).filter(function (d) {
      return d.replace('.', '').replace(/^0+/, '').length > 6; });
    if (/^\(.*,.*\)$/.test(x) && /\d/.test(x) || long.length) out.raw.push(x.slice(0, 60));
    if (/(\u2026|\.\.\.)$/.test(x) && !c.querySelector('summary')) out.cut.push(x.slice(-40));
  });
  return out;
}
function anonlabFirstColumn(t) {
  // The header and body texts of a table's first column (an index of row numbers reads 0, 1, 2...).
  var head = t.querySelector('thead tr');
  var h = head && head.cells.length ? head.cells[0].innerText.trim() : null;
  var body = [];
  t.querySelectorAll('tbody tr').forEach(function (row) {
    if (row.closest('table') === t && row.cells.length) body.push(row.cells[0].innerText.trim());
  });
  return {head: h, body: body};
}
function anonlabMeasure() {
  var art = document.querySelector('article') || document.body;
  var right = art.getBoundingClientRect().right;
  var r = {width: window.innerWidth, tables: [], figures: [], code: [], explorables: anonlabExplorables()};
  var left = art.getBoundingClientRect().left;
  art.querySelectorAll('table').forEach(function (t) {
    if (t.offsetParent === null) return;
    var box = t.getBoundingClientRect();
    r.tables.push({cls: t.className || 'table', overflow: Math.max(t.scrollWidth - t.clientWidth, box.right - right),
                   cells: anonlabCells(t), first: anonlabFirstColumn(t)});
  });
  r.pageOverflow = document.documentElement.scrollWidth - window.innerWidth;
  r.wide = [];
  art.querySelectorAll('img, svg, canvas, iframe, .js-plotly-plot').forEach(function (el) {
    if (el.offsetParent === null && el.tagName.toLowerCase() !== 'svg') return;
    if (el.closest('svg') && el.closest('svg') !== el) return;
    var b = el.getBoundingClientRect();
    if (b.width === 0) return;
    var over = Math.max(b.right - right, left - b.left);
    if (over > 2) r.wide.push({tag: el.tagName.toLowerCase(), src: el.getAttribute('src') || '', over: over});
  });
  r.badges = [];
  art.querySelectorAll('.verdict').forEach(function (b) {
    if (b.offsetParent === null) return;
    var text = b.firstChild && b.firstChild.nodeType === 3 ? b.firstChild : null;
    if (!text) return;
    var re = /\S+/g, m;
    while ((m = re.exec(text.data)) !== null) {
      var range = document.createRange();
      range.setStart(text, m.index); range.setEnd(text, m.index + m[0].length);
      var lines = {};
      Array.prototype.forEach.call(range.getClientRects(), function (q) { lines[Math.round(q.top)] = 1; });
      if (Object.keys(lines).length > 1) r.badges.push(m[0]);
    }
  });
  r.dumps = [];
  art.querySelectorAll('div.cell_output pre, div.output pre').forEach(function (p) {
    if (p.offsetParent === null) return;
    if (/\b(Name: .*, )?dtype: \w+/.test(p.innerText)) r.dumps.push(p.innerText.trim().split('\n').pop());
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
    """Page name -> the measurements of that page laid out in a ``width``-pixel-wide window (``{}``: none came)."""
    from anonbook.book import headless_browser

    out: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="anonlab-layout-") as tmp, headless_browser(browser) as chromium:
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
            out[name] = _measurements(chromium, frame, width)
    return out


def _measurements(browser: Any, frame: Path, width: int) -> dict[str, Any]:
    """Open the frame page in ``browser`` and read what the page in it measured (``{}`` if nothing in 30 s)."""
    tab = browser.new_page(viewport={"width": max(width + 40, 600), "height": 1300})
    try:
        tab.goto(frame.resolve().as_uri(), wait_until="load", timeout=120_000)
        try:
            found = tab.wait_for_selector("#anonlab-layout", state="attached", timeout=30_000)
        except Exception:  # noqa: BLE001 - the page never reported: no measurements
            return {}
        return json.loads(found.text_content() or "{}")
    finally:
        tab.close()


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


def _row_numbers(first: dict[str, Any]) -> bool:
    """A first column that is only row numbers (0…n−1 in any order) under an empty header: a pandas index."""
    body = first.get("body") or []
    if len(body) < 2 or (first.get("head") or "") not in ("", "index"):
        return False
    return all(re.fullmatch(r"\d+", b) for b in body) and sorted(map(int, body)) == list(range(len(body)))


def table_problems(page: str, r: dict[str, Any]) -> list[str]:
    """Every table of a page: not wider than the column, no index of row numbers, no NaN, raw tuple or
    16-digit number, no cell cut short."""
    out = []
    at = f"{page} at {r.get('width')} px"
    for t in r.get("tables", []):
        what = f"a table ({t['cls']})"
        if t["overflow"] > 2:
            out.append(f"{at}: {what} is {t['overflow']:.0f} px too wide")
        if _row_numbers(t.get("first") or {}):
            out.append(f"{at}: {what} shows an index of row numbers")
        cells = t.get("cells") or {}
        if cells.get("nan"):
            out.append(f"{at}: {what} shows {len(cells['nan'])} missing values as {cells['nan'][0]!r}")
        if cells.get("raw"):
            out.append(f"{at}: {what} shows raw numbers ({cells['raw'][0]!r})")
        if cells.get("cut"):
            out.append(f"{at}: {what} cuts {len(cells['cut'])} cells short ({cells['cut'][0]!r})")
    return out


def page_problems(page: str, r: dict[str, Any]) -> list[str]:
    """The page as a whole: it never scrolls sideways, no figure is wider than the column, no badge breaks
    inside a word, no pandas dump ("Name: ..., dtype: ...") is shown."""
    at = f"{page} at {r.get('width')} px"
    out = []
    if r.get("pageOverflow", 0) > 2:
        out.append(f"{at}: the page scrolls sideways by {r['pageOverflow']:.0f} px")
    for w in r.get("wide", []):
        out.append(f"{at}: a figure ({w['tag']} {w['src']}) is {w['over']:.0f} px wider than the column")
    if r.get("badges"):
        out.append(f"{at}: verdict badges break inside a word ({', '.join(sorted(set(r['badges'])))})")
    for d in r.get("dumps", []):
        out.append(f"{at}: shows a pandas dump ({d!r})")
    return out


def layout_problems(report: dict[str, dict[str, Any]], *, captions: bool = True) -> list[str]:
    """One line per rule a page breaks (see the module docstring); empty when every page reads well."""
    problems = []
    min_scale = MIN_TEXT_PT / FIGURE_TEXT_PT
    for name, r in report.items():
        if not r:
            problems.append(f"{name}: the page could not be measured")
            continue
        problems += table_problems(name, r)
        problems += page_problems(name, r)
        for f in r.get("figures", []):
            scale = f["shown"] / f["natural"] if f["natural"] else 1.0
            if r.get("width", 0) >= DESKTOP_WIDTH and scale < min_scale - 1e-3:
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

"""A short slide deck per chapter, made from the chapter's executed default run when the book is built.

Each deck has five slides: the title (with the week that teaches it), **the claim** (the first paragraph
of the chapter's "The claim" section, its glued values filled in from the run), **the key figure** (the
first figure of the "Reproduction" section, with its caption), **the verdict** (the chapter's headline
claims, ``data/findings.yaml``, beside what the run measured, decided by :func:`anonlab.claims.decide`, and
the count of every verdict of the chapter) and **a question to predict** (the first exercise the schedule
assigns, :func:`anonbook.syllabus.first_question`, linked to its computed solution). Nothing is typed: every
value, figure and verdict is read from ``book/<chapter>.ipynb`` and ``book/<chapter>.results.json``.

The engine is reveal.js, exported by nbconvert's :class:`~nbconvert.exporters.SlidesExporter` through a
small template of our own (no jQuery, RequireJS or CDN: reveal.js is loaded with a plain script tag and
MathJax from the book). reveal.js is shipped offline: :func:`vendor_reveal` copies it once from the
``sphinx-revealjs`` package (pinned in the lock) into ``_build/html/slides/reveal.js/``. The decks are
1280 × 720 slides; :func:`build_slides` is the book build's one call.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from anonlab import paths
from anonbook import chapters, syllabus
from anonlab.fileio import copy_parts

__all__ = ["REVEAL_FILES", "SLIDE_WIDTH", "SLIDE_HEIGHT", "reveal_source", "vendor_reveal", "resolve_roles",
           "claim_paragraph", "ends_sentence", "shorten", "slide_problems", "UNDECIDED", "png_height", "key_figure", "headline_claims", "deck_verdicts", "deck_notebook", "write_deck",
           "build_slides"]

#: The parts of the reveal.js distribution a deck needs (relative to the package's ``revealjs`` folder).
REVEAL_FILES = ("LICENSE", "dist/reveal.js", "dist/reveal.css", "dist/reset.css", "dist/theme/white.css",
                "dist/theme/fonts/source-sans-pro")
SLIDE_WIDTH, SLIDE_HEIGHT = 1280, 720
#: Verdicts that decide nothing about a claim: a verdict slide shows them after the decided ones.
UNDECIDED = ("not run", "data unavailable")
#: The most headline claims a verdict slide shows, and the longest claim text (characters), so a slide fits.
MAX_CLAIMS = 4
MAX_CLAIM_CHARS = 560
#: The key figure's largest height on a slide (px; CSS ``max-height``) and the least share of its size it
#: may be shrunk to (its 10 pt text stays at 7 pt or more on a 1280 x 720 slide).
MAX_FIGURE_HEIGHT = 520
MIN_FIGURE_SCALE = 0.72

_TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{% block html_head_js %}{% endblock html_head_js %}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{% block notebook_css %}<style>
html, body, main { width: 100%; height: 100%; margin: 0; overflow: hidden; }
.reveal { font-size: 30px; }
.reveal .slides h1, .reveal .slides h2 { text-transform: none; }
.reveal .slides h1 { font-size: 1.6em; } .reveal .slides h2 { font-size: 1.2em; margin: 0 0 0.3em; }
.reveal section { text-align: left; }
.reveal p, .reveal li { line-height: 1.35; }
.reveal img.key-figure { display: block; margin: 0 auto; max-height: {{ resources.anonlab_figure_height }}px; max-width: 100%; width: auto; }
.reveal p.caption { font-size: 0.5em; color: #444; margin-top: 0.3em; padding-right: 4em; }
.reveal table.deck-verdicts { font-size: 0.5em; width: 100%; border-collapse: collapse; }
.reveal table.deck-verdicts th, .reveal table.deck-verdicts td { padding: 0.25em 0.4em; vertical-align: top;
  border-bottom: 1px solid #ccc; }
.reveal .verdict { font-weight: bold; white-space: nowrap; }
.reveal .small { font-size: 0.6em; color: #444; }
.reveal td .small { font-size: 0.85em; }
a.anchor-link { display: none; }
</style>{% endblock notebook_css %}
{% block html_head_js_mathjax %}<script>window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\(', '\\)']]}};</script>
<script src="{{ resources.anonlab_mathjax }}" async></script>{% endblock html_head_js_mathjax %}
{% block footer_js %}
<script src="{{ resources.reveal.url_prefix }}/dist/reveal.js"></script>
<script>
Reveal.on('ready', function () {
  var n = Reveal.getTotalSlides(), heights = [], start = Reveal.getIndices();
  for (var i = 0; i < n; i++) { Reveal.slide(i); heights.push(Reveal.getCurrentSlide().scrollHeight); }
  Reveal.slide(start.h, start.v);
  document.body.setAttribute('data-reveal-heights', heights.join(' '));
  document.body.setAttribute('data-reveal-overflow', String(heights.filter(function (h) {
    return h > {{ resources.reveal.height }}; }).length));
  document.body.setAttribute('data-reveal-slides', String(n));
});
Reveal.initialize({controls: true, progress: true, hash: true, slideNumber: 'c/t', transition: 'none',
                   width: {{ resources.reveal.width }}, height: {{ resources.reveal.height }}, margin: 0.04});
</script>
{% endblock footer_js %}
"""


def reveal_source() -> Path:
    """The reveal.js distribution inside the installed ``sphinx-revealjs`` package (not imported: located)."""
    import importlib.util

    spec = importlib.util.find_spec("sphinx_revealjs")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("reveal.js missing: install the lock (make env), which pins sphinx-revealjs")
    return Path(list(spec.submodule_search_locations)[0]) / "_static" / "revealjs"


def vendor_reveal(slides_dir: Path) -> Path:
    """Copy :data:`REVEAL_FILES` into ``slides_dir/reveal.js`` once (kept when ``reveal.js`` is the same size)."""
    src, dest = reveal_source(), slides_dir / "reveal.js"
    main = dest / "dist" / "reveal.js"
    if main.exists() and main.stat().st_size == (src / "dist" / "reveal.js").stat().st_size:
        return dest
    return copy_parts(src, dest, REVEAL_FILES)


def _citations(bib: Path) -> dict[str, str]:
    """Bib key -> ``Author Year`` (``A and B Year``; ``A et al. Year`` for three or more authors)."""
    from pybtex.database import parse_file

    out: dict[str, str] = {}
    if not bib.exists():
        return out
    for key, entry in parse_file(str(bib)).entries.items():
        people = entry.persons.get("author", [])
        last = [" ".join(p.last_names) for p in people] or [entry.fields.get("title", key)[:30]]
        who = last[0] if len(last) == 1 else f"{last[0]} and {last[1]}" if len(last) == 2 else f"{last[0]} et al."
        out[key] = f"{who.replace('{', '').replace('}', '')} {entry.fields.get('year', '')}".strip()
    return out


def _glued_text(data: Mapping[str, Any] | None, fmt: str) -> str:
    """A glued value as the book shows it with ``{glue:text}`name:fmt```: the format applied to a number."""
    raw = (data or {}).get("text/plain", "")
    raw = ("".join(raw) if isinstance(raw, list) else str(raw)).strip().strip("'\"")
    if fmt:
        try:
            return format(float(raw), fmt)
        except ValueError:
            pass
    return raw


def resolve_roles(text: str, glued: Mapping[str, Mapping[str, Any]], cites: Mapping[str, str]) -> str:
    """MyST text as plain markdown for a slide: ``{term}`` -> its text, ``{cite}`` -> (Author Year),
    ``{glue:text}`name:fmt``` -> the glued value formatted, any other role -> its text. A citation right
    after its authors' names gives only the year."""
    def role(m: re.Match[str]) -> str:
        name, body = m.group(1), m.group(2)
        if name == "cite" or name.startswith("cite:"):
            before = m.string[:m.start()].rstrip()
            refs = [cites.get(k.strip(), k.strip()) for k in body.split(",")]
            # "Cormode {cite}`cormode2011`" reads "Cormode (2011)", not "Cormode (Cormode 2011)"
            refs = [r.rsplit(" ", 1)[1] if " " in r and before.endswith(r.rsplit(" ", 1)[0]) else r for r in refs]
            return "(" + "; ".join(refs) + ")"
        if name.startswith("glue"):
            key, _, fmt = body.partition(":")
            return _glued_text(glued.get(key.strip()), fmt)
        label = re.match(r"^(.*?)\s*<[^<>]+>$", body, re.S)
        return label.group(1) if label else body

    return re.sub(r"\{([a-z:-]+)\}`([^`]*)`", role, text)


def _cells(nb: Mapping[str, Any]) -> list[tuple[str | None, Mapping[str, Any]]]:
    """Each cell with the H2 section it is in."""
    section: str | None = None
    out = []
    for cell in nb.get("cells", []):
        src = "".join(cell.get("source", ""))
        if cell.get("cell_type") == "markdown":
            heads = [line[3:].strip() for line in src.splitlines() if line.startswith("## ")]
            section = heads[-1] if heads else section
        out.append((section, cell))
    return out


#: How a sentence ends (after any closing quote, bracket or display-math fence).
_SENTENCE_END = re.compile(r"""[.!?]["'’”)\]]*$""")
_LIST_ITEM = re.compile(r"^\s*(?:[*+-]|\d+[.)])\s+")
_MATH_DIRECTIVE = re.compile(r"^```\{math\}[^\n]*\n(.*?)\n```$", re.S)


def _slide_block(block: str) -> str:
    """One MyST block as slide markdown: a ``{math}`` directive as ``$$…$$`` display math (MathJax renders it
    on the slide), a list as its first item without its marker, a ``(label)=`` target line dropped."""
    block = "\n".join(line for line in block.splitlines() if not re.fullmatch(r"\([\w:-]+\)=\s*", line)).strip()
    m = _MATH_DIRECTIVE.match(block)
    if m:
        tex = "\n".join(line for line in m.group(1).splitlines() if not re.match(r"^:[\w-]+:", line))
        return f"$${tex.strip()}$$"
    if _LIST_ITEM.match(block):
        items = re.split(r"\n(?=\s*(?:[*+-]|\d+[.)])\s+)", block)
        return _LIST_ITEM.sub("", items[0], count=1)
    return block


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends a sentence (display math counts by the sentence mark inside its fence)."""
    body = text.rstrip()
    while body.endswith("$$"):
        body = body[:-2].rstrip()
    body = re.sub(r"(?:\\[a-z]+\s*)*$", "", body).rstrip()  # a closing \qquad or \, before the fence
    return bool(_SENTENCE_END.search(body))


def claim_paragraph(nb: Mapping[str, Any]) -> str:
    """The first paragraph of the notebook's "The claim" section (MyST, roles unresolved), continued over
    display equations until its sentence ends (:func:`_slide_block`); the first item of a list."""
    for section, cell in _cells(nb):
        if section == "The claim" and cell.get("cell_type") == "markdown":
            body = re.sub(r"^## .*\n", "", "".join(cell["source"])).strip()
            blocks = [b for b in (_slide_block(b) for b in re.split(r"\n\s*\n", body)) if b]
            if not blocks:
                continue
            out = blocks[0]
            for b in blocks[1:]:
                if ends_sentence(out):
                    break
                out += ("\n\n" if b.startswith("$$") or out.endswith("$$") else " ") + b
            return out
    return ""


def _sentences(text: str) -> list[str]:
    """``text`` cut into sentences (whitespace collapsed; display math kept whole, on its own lines)."""
    parts = re.split(r"(\$\$.*?\$\$)", text, flags=re.S)
    out: list[str] = []
    for part in parts:
        if part.startswith("$$"):
            out.append("\n\n" + part + "\n\n")
            continue
        for sentence in re.split(r"(?<=[.!?])\s+(?=[^\d\s])", " ".join(part.split())):
            if sentence:
                out.append(sentence)
    return out


def shorten(text: str, limit: int = MAX_CLAIM_CHARS) -> str:
    """The whole sentences of ``text`` that fit in ``limit`` characters (at least the first sentence).

    A sentence around a display equation is kept whole with it; nothing is cut inside a sentence and no
    ellipsis is added (the slide links to the chapter).
    """
    pieces = _sentences(text)
    out = ""
    for piece in pieces:
        joined = (out + piece) if piece.startswith("\n") or out.endswith("\n") or not out else f"{out} {piece}"
        if out and len(" ".join(joined.split())) > limit and ends_sentence(out):
            break
        out = joined
    return out.strip()


def png_height(b64: str) -> int | None:
    """The pixel height of a base64 PNG, read from its IHDR header (``None`` if it is not a PNG)."""
    import base64
    import struct

    head = base64.b64decode(b64[:40] + "=" * (-len(b64[:40]) % 4))
    return struct.unpack(">I", head[20:24])[0] if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24 else None


def key_figure(nb: Mapping[str, Any]) -> tuple[str, str] | None:
    """(base64 PNG, caption) of the key figure: the first figure of the "Reproduction" section (else of the
    chapter) that fits a slide at :data:`MIN_FIGURE_SCALE` of its size or more, else the least tall one."""
    found = []
    for section, cell in _cells(nb):
        for o in cell.get("outputs", []):
            png = (o.get("data") or {}).get("image/png")
            if png and not (o.get("metadata") or {}).get("scrapbook"):
                cap = (((cell.get("metadata") or {}).get("mystnb") or {}).get("figure") or {}).get("caption", "")
                found.append((section == "Reproduction", "".join(png).replace("\n", ""), cap))
    found.sort(key=lambda f: not f[0])  # stable: the Reproduction's figures first, in order
    if not found:
        return None
    tall = MAX_FIGURE_HEIGHT / MIN_FIGURE_SCALE
    fits = [f for f in found if (png_height(f[1]) or 0) <= tall]
    pick = fits[0] if fits else min(found, key=lambda f: png_height(f[1]) or 0)
    return pick[1], pick[2]


def headline_claims(chapter: str) -> list[str]:
    """The chapter's headline claim ids (``data/findings.yaml``), else its ledger claims; at most :data:`MAX_CLAIMS`."""
    from anonlab.claims import chapter_claims
    from anonbook.verdicts.findings import load_documents

    own = [c.id for c in chapter_claims(chapter)]
    heads = [cid for d in load_documents() for cid in d.get("headlines", []) if cid in own]
    return (heads or own)[:MAX_CLAIMS]


def deck_verdicts(chapter: str, results_dir: Path | None = None) -> list[dict[str, Any]]:
    """The verdict slide's rows: each headline claim beside the recorded measurement (:func:`claim_row`)."""
    from anonlab.claims import claim, collect_results
    from anonlab.claims.rows import claim_row

    results = collect_results(results_dir)
    rows = [claim_row(claim(cid), results.get(cid)) for cid in headline_claims(chapter)]
    return sorted(rows, key=lambda r: r["verdict"] in UNDECIDED)  # stable: decided claims first


def _verdict_html(rows: Sequence[Mapping[str, Any]], counts: Mapping[str, int]) -> str:
    """The verdict slide's table and the tally of all the chapter's verdicts."""
    from anonbook.verdicts.findings import COLOURS

    def badge(v: str) -> str:
        return f'<span class="verdict" style="color:{COLOURS.get(v, "#333")}">{html.escape(v)}</span>'

    body = "".join(f"<tr><td>{html.escape(r['statement'])} <span class=\"small\">({html.escape(r['where'])})"
                   f"</span></td><td>{html.escape(str(r['reported']))}</td><td>{html.escape(str(r['measured']))}"
                   f"</td><td>{badge(r['verdict'])}</td></tr>" for r in rows)
    tally = ", ".join(f"{n} {badge(v)}" for v, n in counts.items() if n)
    return ('<table class="deck-verdicts"><thead><tr><th>the paper says</th><th>paper</th><th>this run</th>'
            f"<th>verdict</th></tr></thead><tbody>{body}</tbody></table>\n\n"
            f'<p class="small">Every claim of the chapter in this run: {tally}.</p>')


def _placed_html(chapter: str, book: Path) -> str:
    """The synthesis chapter's verdict: how many recorded attacks stand where on the yardstick (no claim of its own)."""
    from anonbook.verdicts.yardstick import POSITIONS, yardstick_counts, yardstick_table

    others = [c for c in chapters.get(chapter).after if (book / f"{c}.attacks.pkl").exists()]
    counts = yardstick_counts(yardstick_table(others, book))
    rows = "".join(f"<tr><td>{html.escape(p)}</td><td>{counts[p]}</td></tr>" for p in POSITIONS)
    return ("This chapter records no claim of its own: it places every attack the other chapters recorded on one "
            'yardstick, precision improvement over the baseline on the same targets.\n\n<table class="deck-verdicts">'
            f"<thead><tr><th>where the attack stands</th><th>attacks</th></tr></thead><tbody>{rows}</tbody></table>"
            '\n\n<p class="small">The chapter says what each position means and which baseline each attack has.</p>')


def _own_attacks_html(chapter: str, book: Path) -> str:
    """The verdict of a chapter with no claim of its own that runs its own attacks (chapter 10's audit): where
    they stand on the yardstick (:func:`yardstick_slide`), or that it recorded none."""
    ys = yardstick_slide(chapter, book)
    if ys is None:
        return "This chapter records no claim of its own, and this run recorded no attack."
    return ("This chapter records no claim of its own: it audits a release with the book's attacks, each against "
            "the baseline on the same targets.\n\n" + ys.removeprefix("## On the yardstick\n\n"))


#: The most attacks a yardstick slide lists (the rest are counted under the table), so the slide fits.
MAX_YARDSTICK_ROWS = 6


def yardstick_slide(chapter: str, book: Path) -> str | None:
    """Where the chapter's recorded attacks stand on the book's yardstick (chapter 9): per attack its PI over the
    baseline on the same targets, with its interval, the baseline's kind and the position; ``None`` when the
    chapter recorded no attack."""
    from anonbook.booktables import interval_text
    from anonbook.verdicts.yardstick import kind_of, yardstick_counts, yardstick_table

    if not (book / f"{chapter}.attacks.pkl").exists():
        return None
    table = yardstick_table([chapter], book)
    if table.empty:
        return None
    rows = []
    for r in table.head(MAX_YARDSTICK_ROWS).to_dict("records"):
        pi = r.get("pi")
        pi_s = (interval_text(pi, r["pi_low"], r["pi_high"]) if all(
            isinstance(x, (int, float)) and x == x for x in (pi, r.get("pi_low"), r.get("pi_high"))) else "—")
        rows.append(f"<tr><td>{html.escape(str(r['name']))}</td><td>{html.escape(pi_s)}</td>"
                    f"<td>{html.escape(kind_of(r) or '—')}</td><td>{html.escape(str(r['position']))}</td></tr>")
    counts = yardstick_counts(table)
    tally = ", ".join(f"{n} {p}" for p, n in counts.items() if n)
    more = len(table) - MAX_YARDSTICK_ROWS
    return ("## On the yardstick\n\n"
            '<table class="deck-verdicts"><thead><tr><th>attack</th><th>PI [95 % interval]</th><th>baseline</th>'
            f"<th>where it stands</th></tr></thead><tbody>{''.join(rows)}</tbody></table>\n\n"
            f'<p class="small">All {len(table)} attacks of this run{f" ({more} not listed)" if more > 0 else ""}: '
            f"{html.escape(tally)}. PI is the precision improvement over the baseline on the same targets; "
            '<a href="../09_one_yardstick.html">chapter 9</a> puts every chapter\'s attacks on this scale.</p>')


def _default_run(chapter: str, book: Path) -> bool:
    """Whether the recorded run of ``chapter`` in ``book`` used the declared defaults (``use_cache`` aside)."""
    try:
        given = json.loads((book / f"{chapter}.params.json").read_text(encoding="utf-8")).get("parameters")
    except (OSError, ValueError):
        return False
    return isinstance(given, dict) and set(given) <= {"use_cache"}


def _run_words(chapter: str, book: Path) -> str:
    """``the default run``, or the run's identity naming each changed parameter (:mod:`anonbook.runs`)."""
    from anonbook.runs import recorded_identity

    ident = recorded_identity(chapter, book)
    if ident is None or "run" not in json.loads((book / f"{chapter}.params.json").read_text(encoding="utf-8")):
        return "the default run" if _default_run(chapter, book) else "a run with other than the default parameters"
    return "the default run" if ident.is_default else "the " + html.escape(ident.label)


#: Raw markup a slide must not show: MyST roles and directives, label targets, a list marker run into the
#: text, and the ellipsis of a cut sentence.
RAW_MARKUP = {"a MyST role": r"\{[a-z][\w:-]*\}`", "a MyST directive or fence": r"```|:::",
              "a label target": r"(?m)^\([\w:-]+\)=", "a list marker in running text": r"(?:^|[.;:]) [*+-] (?=\S)",
              "an ellipsis": "…"}


def slide_problems(source: str, whole_sentences: bool = True) -> list[str]:
    """What is wrong with a slide's markdown ``source``: raw markup (:data:`RAW_MARKUP`) and, when
    ``whole_sentences``, a text that stops mid-sentence (its HTML tags and heading aside)."""
    prose = re.sub(r"\$\$.*?\$\$|\$[^$]*\$", "", source, flags=re.S)  # TeX is MathJax's, not markup
    found = [f"{what}: {m.group(0)!r}" for what, pattern in RAW_MARKUP.items()
             for m in [re.search(pattern, prose)] if m]
    text = re.sub(r"<[^>]+>", "", re.sub(r"(?m)^#+ .*$", "", source)).strip()
    if whole_sentences and text and not ends_sentence(text):
        found.append(f"stops mid-sentence: ...{text[-60:]!r}")
    return found


def _slide(source: str) -> dict[str, Any]:
    """A markdown cell that starts a slide (its id is set by :func:`deck_notebook`)."""
    return {"cell_type": "markdown", "metadata": {"slideshow": {"slide_type": "slide"}}, "source": source}


def deck_notebook(chapter: str, book_dir: Path | None = None) -> dict[str, Any]:
    """The deck as a notebook of up to six markdown slides, read from the chapter's executed run in ``book_dir``."""
    from anonbook.verdicts.pins import recorded_verdicts
    from anonlab.claims.rules import VERDICTS
    from anonbook.course import glued_outputs

    book = book_dir or paths.book_dir()
    nb = json.loads((book / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    glued, cites = glued_outputs(book / f"{chapter}.ipynb"), _citations(book / "references.bib")
    ch = chapters.get(chapter)
    week = syllabus.week_of(chapter)
    run = _run_words(chapter, book)
    slides = [_slide(f"# {ch.title}\n\n" + (f"Week {week} of the course. " if week else "")
                     + f'Made from {run} of this copy of the book; <a href="../{chapter}.html">the chapter</a>.')]
    slides.append(_slide("## The claim\n\n" + shorten(resolve_roles(claim_paragraph(nb), glued, cites))))
    fig = key_figure(nb)
    if fig is not None:
        cap = resolve_roles(fig[1], glued, cites)
        first = shorten(cap, 0).removesuffix(" …")
        slides.append(_slide(f'## The key figure\n\n<img class="key-figure" src="data:image/png;base64,{fig[0]}" '
                             f'alt="{html.escape(cap, quote=True)}">\n\n<p class="caption">{html.escape(first)}</p>'))
    verdicts = recorded_verdicts(chapter, book)
    counts = {v: sum(1 for x in verdicts.values() if x == v) for v in VERDICTS}
    if verdicts:
        verdict = _verdict_html(deck_verdicts(chapter, book), counts)
    elif ch.after:  # the synthesis chapter: where the other chapters' attacks stand
        verdict = _placed_html(chapter, book)
    else:  # a chapter with no claim that runs attacks of its own (the audit): where they stand
        verdict = _own_attacks_html(chapter, book)
    slides.append(_slide("## The verdict\n\n" + verdict))
    ys = yardstick_slide(chapter, book) if verdicts else None
    if ys is not None:
        slides.append(_slide(ys))
    q = syllabus.first_question(chapter)
    if q is not None:
        slides.append(_slide("## Predict first\n\n" + resolve_roles(q[1], glued, cites)
                             + f'\n\n<p class="small">Write your prediction down, then run it: the solution, '
                             f'computed by this build, is under <a href="../{syllabus.exercise_href(chapter, q[0])}">'
                             "the exercise in the chapter</a>.</p>"))
    for i, cell in enumerate(slides, 1):
        cell["id"] = f"slide-{i}"
    return {"cells": slides, "metadata": {"title": ch.title}, "nbformat": 4, "nbformat_minor": 5}


def write_deck(chapter: str, slides_dir: Path, book_dir: Path | None = None) -> Path:
    """Export the chapter's deck with nbconvert's reveal.js exporter to ``slides_dir/<chapter>.html``."""
    import nbformat
    from jinja2 import DictLoader
    from nbconvert.exporters import SlidesExporter

    exporter = SlidesExporter(template_name="reveal", template_file="anonlab_deck.html.j2",
                              extra_loaders=[DictLoader({"anonlab_deck.html.j2": _TEMPLATE})],
                              reveal_url_prefix="reveal.js", reveal_theme="white", reveal_transition="none",
                              reveal_width=str(SLIDE_WIDTH), reveal_height=str(SLIDE_HEIGHT), exclude_input=True)
    nb = nbformat.from_dict(deck_notebook(chapter, book_dir))
    body, _ = exporter.from_notebook_node(nb, resources={"anonlab_mathjax": "../_static/mathjax/tex-chtml.js",
                                                           "anonlab_figure_height": MAX_FIGURE_HEIGHT})
    out = slides_dir / f"{chapter}.html"
    out.write_text(body, encoding="utf-8")
    return out


def build_slides(html_dir: Path, names: Sequence[str]) -> list[Path]:
    """Write a deck for every chapter of ``names`` with an executed run, under ``html_dir/slides/``.

    reveal.js is copied there once (:func:`vendor_reveal`). Returns the decks written.
    """
    slides_dir = html_dir / "slides"
    todo = [c for c in names if chapters.has_chapter(c) and syllabus.deck_available(c)]
    if not todo:
        return []
    slides_dir.mkdir(parents=True, exist_ok=True)
    vendor_reveal(slides_dir)
    return [write_deck(c, slides_dir) for c in todo]

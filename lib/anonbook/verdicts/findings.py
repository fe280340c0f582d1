"""The front page's findings: per source document, its headline claims, what holds and what fails, and why
the undecided ones are undecided; and one figure of every numeric claim, the paper's value against the
measured one.

Only the selection is typed (``data/findings.yaml``: the documents, their chapters and headline claim ids);
every statement, value and verdict comes from the ledger and the recorded results when the book is built.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from anonlab import paths
from anonlab.claims.ledger import ClaimError, load_ledger
from anonlab.claims.rules import ILLUSTRATED, REASONS, VERDICTS
from anonbook.verdicts.table import claim_table_html

__all__ = ["load_documents", "undecided_sentence", "findings_markdown", "claims_figure_svg", "bottom_line",
           "counts_bar_html", "glance_html", "section_anchor", "fluid_svg"]

#: Why a claim is undecided, by verdict, in the words of the front page.
UNDECIDED = {
    "data unavailable": ("needs data the book cannot fetch", "need data the book cannot fetch"),
    ILLUSTRATED: (f"is illustrated, not tested ({REASONS[ILLUSTRATED]})",
                  f"are illustrated, not tested ({REASONS[ILLUSTRATED]})"),
    "depends on an unstated choice": ("depends on a choice the paper leaves open",
                                      "depend on a choice the paper leaves open"),
    "inconclusive": (f"is inconclusive ({REASONS['inconclusive']})",
                     f"are inconclusive ({REASONS['inconclusive']})"),
    "not run": ("was not run", "were not run"),
}

#: The verdicts' colours in the figure (the badges' text colours, see ``book/_static/anonlab.css``).
COLOURS = {"reproduced": "#1b5e20", "not reproduced": "#c62828", "depends on an unstated choice": "#3949ab",
           "inconclusive": "#8e24aa", ILLUSTRATED: "#00838f", "not run": "#777777", "data unavailable": "#b28704"}


def load_documents(path: str | Path | None = None) -> list[dict[str, Any]]:
    """``data/findings.yaml``: the source documents, each with its chapters and headline claim ids (checked)."""
    import yaml

    p = Path(path) if path is not None else paths.project_root() / "data" / "findings.yaml"
    if not p.exists():
        return []
    try:
        docs = yaml.safe_load(p.read_text(encoding="utf-8")) or []
    except yaml.YAMLError as exc:
        raise ClaimError(f"cannot read {p}: {exc}") from None
    known = {c.id for c in load_ledger()}
    unknown = sorted(cid for d in docs for cid in d.get("headlines", []) if cid not in known)
    if unknown:
        raise ClaimError(f"{p} names claims that are not in the ledger: {unknown}")
    return docs


def undecided_sentence(group: pd.DataFrame) -> str:
    """One sentence: how many of these claims hold, fail, and why the rest are undecided.

    >>> undecided_sentence(pd.DataFrame({"verdict": ["reproduced", "reproduced", "data unavailable"]}))
    'Of its 3 claims, 2 are reproduced and 0 are not; 1 is undecided: 1 needs data the book cannot fetch.'
    """
    counts = group["verdict"].value_counts()
    n = int(len(group))
    ok, bad = int(counts.get("reproduced", 0)), int(counts.get("not reproduced", 0))
    head = f"Of its {n} claims, {ok} {'is' if ok == 1 else 'are'} reproduced and {bad} {'is' if bad == 1 else 'are'} not"
    why = [f"{int(counts[v])} {UNDECIDED[v][int(counts[v]) != 1]}" for v in VERDICTS
           if v in UNDECIDED and counts.get(v, 0)]
    rest = n - ok - bad
    if not rest:
        return head + "."
    return head + f"; {rest} {'is' if rest == 1 else 'are'} undecided: " + "; ".join(why) + "."


def findings_markdown(table: pd.DataFrame, chapters: Mapping[str, str],
                      documents: Sequence[Mapping[str, Any]] | None = None) -> str:
    """The front page's findings, document by document (Markdown with the book's verdict tables).

    ``table`` is :func:`anonbook.verdicts.pages.verdict_table` (every claim, its verdict);
    ``chapters`` maps each chapter of the book to its title.
    """
    docs = list(documents if documents is not None else load_documents())
    links = {ch: f"{ch}.html" for ch in chapters}
    parts = []
    for i, d in enumerate(docs, 1):
        papers = set(d.get("papers", []))
        group = table[table["paper"].isin(papers)] if "paper" in table else table.iloc[0:0]
        cites = ",".join(d.get("papers", []))
        tested = [f"[{chapters[ch]}]({ch}.ipynb)" for ch in d.get("chapters", []) if ch in chapters]
        parts.append(f"({section_anchor(i)})=\n### {i}. {d['document']}\n\n")
        parts.append(f"*{d.get('question', '')}* ")
        if tested:
            parts.append(("Tested in " if len(tested) == 1 else "Tested in the chapters ") + ", ".join(tested) + ". ")
        parts.append(f"Source: {{cite}}`{cites}`. ")
        parts.append(undecided_sentence(group) + "\n\n")
        heads = table.set_index("id").loc[[c for c in d.get("headlines", [])]].reset_index()
        parts.append("```{raw} html\n" + claim_table_html(heads, rulebook="verdicts.html#rulebook",
                                                          chapter_links=links) + "```\n\n")
    return "".join(parts)


def _numeric(x: Any) -> float | None:
    if isinstance(x, bool) or x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def claims_figure_svg(results: Mapping[str, Mapping[str, Any]], table: pd.DataFrame,
                      not_default: Sequence[str] = ()) -> str:
    """Every numeric claim: the paper's value (x) against the measured value (y), as an SVG with links.

    Log-symmetric axes (linear below 10⁻³, so zeros show) because the values span from 10⁻⁴ to 10⁵;
    the accepted values (reported ± tolerance, two-sided claims only) are a vertical bar at each point, the measured interval a
    thin line; the colour is the verdict; each point links to its row on the verdicts page.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from anonlab.claims.ledger import claim
    from anonlab.claims.rules import accepted_interval

    verdicts = dict(zip(table["id"], table["verdict"]))
    pts = []
    for cid, r in results.items():
        try:
            c = claim(cid)
        except ClaimError:
            continue
        if c.compare in ("holds",) or isinstance(c.reported, str):
            continue
        m = _numeric(r.get("measured"))
        rep = c.reported
        x = (float(rep[0]) + float(rep[1])) / 2 if isinstance(rep, list) else _numeric(rep)
        if m is None or x is None:
            continue
        acc = accepted_interval(c) or (x, x)
        ci = r.get("ci") if r.get("ci") and None not in r.get("ci") else None
        pts.append((cid, x, m, acc, ci, verdicts.get(cid, "not run")))
    with plt.rc_context({"svg.fonttype": "none", "font.size": 10}):
        return _draw_claims(plt, pts, measured_label(not_default))


def measured_label(not_default: Sequence[str] = ()) -> str:
    """The figure's y axis: "default parameters" only when every chapter's published run is the default.

    >>> measured_label(["08_passive_active"])
    'measured (08 not at its default parameters)'
    """
    if not not_default:
        return "measured with the chapter's default parameters"
    short = ", ".join(ch.split("_", 1)[0] for ch in not_default)
    return f"measured ({short} not at {'its' if len(not_default) == 1 else 'their'} default parameters)"


def _draw_claims(plt: Any, pts: list[tuple[Any, ...]], y_label: str = "measured with the chapter's default parameters") -> str:
    """The figure of :func:`claims_figure_svg` from its points (claim id, paper, measured, accepted, ci, verdict)."""
    fig, ax = plt.subplots(figsize=(7.2, 6.0), dpi=100)
    lim_lo, lim_hi = 0.0, max([1.0] + [max(p[1], p[2]) for p in pts]) * 2
    ax.plot([lim_lo, lim_hi], [lim_lo, lim_hi], color="#bbbbbb", lw=1, zorder=0, label="measured = paper")
    for cid, x, m, acc, ci, v in pts:
        if math.isfinite(acc[0]) and math.isfinite(acc[1]):  # one-sided claims (at least, at most) get no bar
            ax.plot([x, x], [acc[0], acc[1]], color=COLOURS[v], alpha=0.25, lw=5, solid_capstyle="butt", zorder=1)
        if ci:
            ax.plot([x, x], [float(ci[0]), float(ci[1])], color=COLOURS[v], lw=1, zorder=2)
    for v in VERDICTS:
        mine = [p for p in pts if p[5] == v]
        if not mine:
            continue
        sc = ax.scatter([p[1] for p in mine], [p[2] for p in mine], s=28, color=COLOURS[v], edgecolor="white",
                        linewidth=0.5, zorder=3, label=f"{v} ({len(mine)})")
        sc.set_urls([f"verdicts.html#claim-{p[0]}" for p in mine])
    ax.set_xscale("symlog", linthresh=1e-3)
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_xlim(lim_lo, lim_hi)
    ax.set_ylim(lim_lo, lim_hi)
    ax.set_xlabel("the paper's value (ranges at their middle)")
    ax.set_ylabel(y_label)
    ax.set_title(f"{len(pts)} numeric claims: paper against measurement", fontsize=11)
    ax.legend(loc="lower right", fontsize=9, frameon=True)
    ax.grid(True, which="major", color="#eeeeee")
    fig.tight_layout()
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    svg = buf.getvalue()
    return svg[svg.index("<svg"):]


# -- the first screen: every document's finding in one row (issue 38) -------------------------------------

def section_anchor(i: int) -> str:
    """The label of the ``i``-th document's section of the findings (the glance table links to it)."""
    return f"finding-doc-{i}"


def _lead(ok: int, bad: int) -> str:
    """The bottom line of a document, from how many of its claims the evidence decided each way."""
    if ok + bad == 0:
        return "Undecided here"
    if bad == 0:
        return "Every decided claim reproduces"
    if ok == 0:
        return "Every decided claim fails"
    if ok >= 3 * bad:
        return "Mostly reproduces"
    if bad >= 3 * ok:
        return "Mostly fails"
    return "Mixed"


#: Why claims are undecided, by verdict, as "because of ..." in the front page's one-line findings (the rulebook's).
BECAUSE = REASONS


def bottom_line(group: pd.DataFrame) -> str:
    """One sentence: the document's finding, generated from its claims' verdicts.

    >>> bottom_line(pd.DataFrame({"verdict": ["reproduced"] * 6 + ["not reproduced", "inconclusive"]}))
    'Mostly reproduces: 6 of 8 claims reproduced, 1 not, 1 undecided because of evidence that cannot decide: a miss whose interval reaches the accepted values, or an interval that straddles its bar.'
    """
    counts = group["verdict"].value_counts()
    n = int(len(group))
    if n == 0:
        return "No claim of this document is in the ledger yet."
    ok, bad = int(counts.get("reproduced", 0)), int(counts.get("not reproduced", 0))
    out = f"{_lead(ok, bad)}: {ok} of {n} claims reproduced, {bad} not"
    rest = n - ok - bad
    if rest:
        why = [(int(counts[v]), v) for v in VERDICTS if v in BECAUSE and counts.get(v, 0)]
        m, v = max(why, key=lambda t: t[0])  # the commonest reason (the rules' order breaks ties)
        how = "because of" if m == rest and rest == 1 else "all because of" if m == rest else "most often because of"
        out += f", {rest} undecided {how} {BECAUSE[v]}"
    return out + "."


def counts_bar_html(group: pd.DataFrame) -> str:
    """The verdicts of a document's claims as a small stacked bar (the verdicts' colours) with the counts in words."""
    from anonbook.verdicts.table import escape

    counts = group["verdict"].value_counts()
    n = max(int(len(group)), 1)
    spans = "".join(f'<span style="width:{100 * int(counts[v]) / n:.2f}%;background:{COLOURS[v]}" '
                    f'title="{int(counts[v])} {escape(v)}"></span>' for v in VERDICTS if counts.get(v, 0))
    ok, bad = int(counts.get("reproduced", 0)), int(counts.get("not reproduced", 0))
    words = f"{ok} reproduced · {bad} not · {int(len(group)) - ok - bad} undecided"
    return (f'<div class="glance-bar" role="img" aria-label="{escape(words)}">{spans}</div>'
            f'<div class="glance-counts">{escape(words)}</div>')


def glance_html(table: pd.DataFrame, documents: Sequence[Mapping[str, Any]] | None = None) -> str:
    """The front page's first screen: one row per document (paper, its question, its finding in a sentence,
    its counts as a bar), each linking to the document's section below."""
    from anonbook.verdicts.table import escape

    docs = list(documents if documents is not None else load_documents())
    rows = []
    for i, d in enumerate(docs, 1):
        group = table[table["paper"].isin(set(d.get("papers", [])))] if "paper" in table else table.iloc[0:0]
        name = escape(d.get("short") or d["document"])
        rows.append(f'<tr><td><a href="#{section_anchor(i)}">{name}</a></td>'
                    f'<td class="glance-question">{escape(d.get("question", ""))}</td>'
                    f"<td>{escape(bottom_line(group))}</td><td>{counts_bar_html(group)}</td></tr>")
    return ('<table class="glance"><thead><tr><th>paper</th><th>its question</th><th>what the book found</th>'
            "<th>claims</th></tr></thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table>\n")


def fluid_svg(svg: str) -> str:
    """An SVG that scales to its column: the root's fixed ``width``/``height`` (matplotlib writes points) removed,
    its ``viewBox`` kept, so the page never scrolls sideways on a phone."""
    end = svg.index(">", svg.index("<svg"))
    root = re.sub(r'\s(width|height)="[^"]*"', "", svg[:end])
    return root + svg[end:]

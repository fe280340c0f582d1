"""The front page's findings: per source document, its headline claims, what holds and what fails, and why
the undecided ones are undecided; and one figure of every numeric claim, the paper's value against the
measured one.

Only the selection is typed (``data/findings.yaml``: the documents, their chapters and headline claim ids);
every statement, value and verdict comes from the ledger and the recorded results when the book is built.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .. import paths
from .ledger import ClaimError, load_ledger
from .rules import ILLUSTRATED, VERDICTS
from .table import claim_table_html

__all__ = ["load_documents", "undecided_sentence", "findings_markdown", "claims_figure_svg"]

#: Why a claim is undecided, by verdict, in the words of the front page.
UNDECIDED = {
    "data unavailable": ("needs data the book cannot fetch", "need data the book cannot fetch"),
    ILLUSTRATED: ("is illustrated on stand-in data or by a test that cannot fail",
                  "are illustrated on stand-in data or by a test that cannot fail"),
    "depends on an unstated choice": ("depends on a choice the paper leaves open",
                                      "depend on a choice the paper leaves open"),
    "inconclusive": ("is inconclusive (the interval straddles the tolerance)",
                     "are inconclusive (the interval straddles the tolerance)"),
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

    ``table`` is :func:`anonlab.claims.pages.verdict_table` (every claim, its verdict);
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
        parts.append(f"### {i}. {d['document']}\n\n")
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

    from .ledger import claim
    from .rules import accepted_interval

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

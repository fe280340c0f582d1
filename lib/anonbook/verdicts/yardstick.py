"""Every attack the chapters recorded, on one yardstick, with the run it comes from and its claim's verdict.

A chapter keeps each attack it runs (:meth:`Recorder.record_attack`,
``book/<chapter>.attacks.pkl``) with the baseline it ran on the same
targets. :func:`yardstick_table` reads them all back and scores each with
the one protocol (:func:`anonlab.measures.score`): precision and coverage
with Wilson intervals, the baseline's precision on the targets the attack
predicted for, and precision improvement PI = (P_atk − P_base)/(1 − P_base)
([FW24] Eq 6), whose interval takes the ends of the attack's precision
interval against the baseline's point value. Nothing is recomputed: a row
is the recorded result, scored, beside the run that made it
(:func:`recorded_run`: preset, parameters, cache key, when).

:func:`position` places a row against its baseline (PI's interval above 0,
around 0, below 0) when that baseline is the non-member baseline on the
row's own targets (its ``baseline_kind``, set by the science where the
baseline is built: :data:`anonlab.measures.NONMEMBER_KINDS`), counts it
apart when its baseline is only a weaker prior (:data:`PRIOR_ONLY`: the
majority guess, a block's majority), or says why it cannot be placed
(the rule: :data:`BASELINE_RULE`, also in the rulebook); :func:`recorded_verdicts`
asks the verdict rules about the claims the attacks belong to, from the
chapters' recorded measurements; :func:`write_yardstick_summary` writes the
front page's row.

[FW24] P. Francis and D. Wagner, arXiv:2403.06595 (2024).
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from anonlab import paths
from anonlab.claims.ledger import ClaimError, claim
from anonlab.claims.recorder import load_attacks
from anonlab.claims.rules import decide

__all__ = ["RecordedRun", "recorded_run", "yardstick_table", "position", "pi_side", "off_scale_reason", "recorded_verdicts",
           "yardstick_counts", "write_yardstick_summary", "readable_table", "off_scale_counts", "placed_html", "off_scale_html", "grouped_html", "verdict_badge", "HtmlTable",
           "SHORT_POSITIONS", "SHORT_REASONS", "POSITIONS", "BEYOND", "SAME", "WORSE", "PRIOR_ONLY", "OFF",
           "BASELINE_RULE", "kind_of", "headline"]

BEYOND = "learns beyond the baseline"
SAME = "no better than the baseline"
WORSE = "worse than the baseline"
PRIOR_ONLY = "scored against a weaker prior only"
OFF = "off the scale"
#: Where a row stands against its baseline, in the order the book lists them.
POSITIONS = (BEYOND, SAME, WORSE, PRIOR_ONLY, OFF)

#: A position in one word, for the table (the full wording is the cell's tooltip).
SHORT_POSITIONS = {BEYOND: "beyond", SAME: "level", WORSE: "worse", PRIOR_ONLY: "prior only", OFF: "off scale"}
#: Which side of 0 PI's interval lies, whatever the baseline (:func:`pi_side`).
SIDES = ("above", "level", "below")


def _rule() -> str:
    """The yardstick's one baseline rule, in words built from the science's kinds of baseline."""
    from anonlab.claims.rules import BASELINE_RULE

    return BASELINE_RULE


#: The one baseline rule of the yardstick (the rulebook's wording; chapter 9 and the front page state it).
BASELINE_RULE = _rule()
#: Why a row cannot be placed, in a few words (keys: what :func:`off_scale_reason` returns).
SHORT_REASONS = {
    "it made no prediction (it abstained on every target)": "no prediction",
    "no baseline was recorded on its targets": "no baseline",
    "its baseline made no prediction on its targets": "baseline silent",
    "its baseline is right on every target it predicted for: nothing is left to improve on, PI is undefined":
        "baseline always right",
    "PI is undefined": "PI undefined",
}

#: What each recorded resource is, in words (the ``spent`` column).
RESOURCE_WORDS = {
    "queries": "queries", "counts_released": "released counts read", "aux_records": "auxiliary records",
    "aux_ratings": "known ratings per target", "background_facts": "background facts",
    "controlled_records": "records the attacker controls", "reference_models": "reference models trained",
    "iterations": "iterations", "seconds": "seconds", "target_fpr": "false-positive rate allowed",
}
#: Resources that count auxiliary knowledge (the ``aux`` column), first found wins.
AUX_KEYS = ("aux_records", "aux_ratings", "background_facts", "controlled_records")


@dataclass(frozen=True)
class RecordedRun:
    """The run a chapter's recorded results come from (its ``book/<chapter>.params.json``)."""

    chapter: str
    preset: str
    parameters: Mapping[str, Any]
    cache_key: str | None
    finished: str | None
    seconds: float | None

    @property
    def label(self) -> str:
        """``default run, key 562458a689b7, 2026-11-26T00:39``: which run, in a few words."""
        key = (self.cache_key or "?")[:12]
        when = (self.finished or "?")[:16]
        return f"{self.preset} run, key {key}, {when}"


def _preset(chapter: str, parameters: Mapping[str, Any]) -> str:
    """``default``, ``quick`` or ``custom (name=value, ...)``: how a run's parameters were chosen."""
    from anonbook.chapters import get, has_chapter

    if not parameters:
        return "default"
    if has_chapter(chapter) and dict(parameters) == dict(get(chapter).quick):
        return "quick"
    return "custom (" + ", ".join(f"{k}={v!r}" for k, v in parameters.items()) + ")"


def recorded_run(chapter: str, results_dir: str | Path | None = None) -> RecordedRun | None:
    """The run behind a chapter's published results, or ``None`` when it has not run."""
    d = Path(results_dir) if results_dir is not None else paths.book_dir()
    f = d / f"{chapter}.params.json"
    if not f.exists():
        return None
    meta = json.loads(f.read_text(encoding="utf-8"))
    params = meta.get("parameters", {}) or {}
    preset = _preset(chapter, params)
    if isinstance(meta.get("run"), Mapping):  # the run's identity (anonbook.runs): defaults passed explicitly count
        ident = meta["run"]
        preset = {"default": "default", "preset": str(ident.get("preset"))}.get(
            str(ident.get("kind")), "custom (" + ", ".join(f"{k}={v!r}" for k, v in (ident.get("changed") or {}).items()) + ")")
    return RecordedRun(chapter, preset, meta.get("all_parameters", params),
                       meta.get("cache_key"), meta.get("finished"), meta.get("seconds"))


def off_scale_reason(row: Mapping[str, Any]) -> str:
    """Why a scored attack cannot be placed against a baseline ("" when it can).

    >>> off_scale_reason({"predictions": 0, "baseline": "b", "baseline_precision": 0.5, "pi": float("nan")})
    'it made no prediction (it abstained on every target)'
    >>> off_scale_reason({"predictions": 5, "baseline": "b", "baseline_precision": 1.0, "pi": float("nan")})
    'its baseline is right on every target it predicted for: nothing is left to improve on, PI is undefined'
    >>> off_scale_reason({"predictions": 5, "baseline": "b", "baseline_precision": 0.6, "pi": 0.2})
    ''
    """
    if not row.get("predictions"):
        return "it made no prediction (it abstained on every target)"
    if row.get("baseline") is None or (isinstance(row.get("baseline"), float) and math.isnan(row["baseline"])):
        return "no baseline was recorded on its targets"
    bp = row.get("baseline_precision")
    if bp is None or not math.isfinite(float(bp)):
        return "its baseline made no prediction on its targets"
    if float(bp) >= 1.0:
        return "its baseline is right on every target it predicted for: nothing is left to improve on, PI is undefined"
    if not math.isfinite(float(row.get("pi", math.nan))):
        return "PI is undefined"
    return ""


def kind_of(row: Mapping[str, Any]) -> str:
    """The kind of a row's baseline (:data:`anonlab.measures.BASELINE_KINDS`), "" when none is recorded."""
    k = row.get("baseline_kind")
    return k if isinstance(k, str) else ""


def pi_side(row: Mapping[str, Any]) -> str:
    """Which side of 0 PI's interval lies (``above``, ``level``, ``below``), whatever the baseline; "" off the scale.

    >>> pi_side({"predictions": 9, "baseline": "b", "baseline_precision": 0.5, "pi": 0.3, "pi_low": 0.1, "pi_high": 0.5})
    'above'
    """
    if off_scale_reason(row):
        return ""
    if float(row["pi_low"]) > 0:
        return "above"
    if float(row["pi_high"]) < 0:
        return "below"
    return "level"


def position(row: Mapping[str, Any]) -> str:
    """Where a scored attack stands, by the one baseline rule (:data:`BASELINE_RULE`).

    Against the non-member baseline on its own targets (a ``baseline_kind``
    in :data:`anonlab.measures.NONMEMBER_KINDS`): PI's interval above 0,
    containing 0 or below 0. Against a weaker prior only: :data:`PRIOR_ONLY`,
    whatever PI says (:func:`pi_side` keeps the side). Or off the scale.

    >>> row = {"predictions": 9, "baseline": "b", "baseline_kind": "non-member model", "baseline_precision": 0.5,
    ...        "pi": 0.3, "pi_low": 0.1, "pi_high": 0.5}
    >>> position(row)
    'learns beyond the baseline'
    >>> position(dict(row, pi=0.0, pi_low=-0.1, pi_high=0.1))
    'no better than the baseline'
    >>> position(dict(row, baseline_kind="majority prior"))
    'scored against a weaker prior only'
    """
    from anonlab.measures import is_nonmember_baseline

    side = pi_side(row)
    if not side:
        return OFF
    if not is_nonmember_baseline(kind_of(row)):
        return PRIOR_ONLY
    return {"above": BEYOND, "level": SAME, "below": WORSE}[side]


def _spent(resources: Mapping[str, Any]) -> str:
    """The recorded resources in words: ``434 queries; ε of the release 1``."""
    parts = []
    for k, v in resources.items():
        if k == "epsilon":
            parts.append(f"a release at ε = {v:g}")
            continue
        if k == "threshold":
            parts.append(f"score threshold {v:.3g}")
            continue
        words = RESOURCE_WORDS.get(k, k.replace("_", " "))
        if isinstance(v, float) and v.is_integer() and k != "epsilon":
            v = int(v)
        shown = f"{v:,}" if isinstance(v, int) else (f"{v:.3g}" if isinstance(v, float) else str(v))
        parts.append(f"{shown} {words}")
    return "; ".join(parts)


def yardstick_table(chapters: Sequence[str], results_dir: str | Path | None = None,
                    confidence: float = 0.95) -> pd.DataFrame:
    """One row per attack the chapters recorded: its score against its baseline, what it spent, its run.

    Columns: ``chapter``, ``name`` (the key it was recorded under), the
    fields of :meth:`~anonlab.measures.Score.as_dict` (``attack``,
    ``targets``, ``predictions``, ``precision`` with ``precision_low`` /
    ``precision_high``, ``coverage``, ``baseline``, ``baseline_precision``,
    ``pi`` with ``pi_low`` / ``pi_high`` ...), ``queries``, ``aux`` and
    ``seconds`` (what it spent, NaN when not recorded), ``spent`` (every
    recorded resource in words), ``run`` (:attr:`RecordedRun.label`),
    ``preset``, ``cache_key``, ``baseline_kind`` (what the baseline is, as
    the science built it; "" without one), ``pi_side``, ``position`` and
    ``why_off`` (why it cannot be placed, "" when it can). Chapters that
    have not run have no rows.
    """
    from anonlab.measures import score

    rows = []
    for ch in chapters:
        run = recorded_run(ch, results_dir)
        for name, item in load_attacks(ch, results_dir).items():
            s = score(item["result"], item.get("baseline"), confidence=confidence)
            row = {k: v for k, v in s.as_dict().items() if not k.startswith("resource_")}
            res = dict(s.resources)
            row.update(chapter=ch, name=name, queries=float(res.get("queries", math.nan)),
                       aux=float(next((res[k] for k in AUX_KEYS if k in res), math.nan)),
                       seconds=float(res.get("seconds", math.nan)), spent=_spent(res),
                       run="" if run is None else run.label, preset="" if run is None else run.preset,
                       cache_key=None if run is None else run.cache_key)
            row["why_off"] = off_scale_reason(row)
            row["baseline_kind"] = kind_of(row)
            row["pi_side"] = pi_side(row)
            row["position"] = position(row)
            rows.append(row)
    first = ["chapter", "name"]
    df = pd.DataFrame(rows)
    return df[first + [c for c in df.columns if c not in first]] if rows else df


def recorded_verdicts(claim_ids: Iterable[str], results_dir: str | Path | None = None) -> dict[str, str]:
    """The verdict of each claim, by the rules, from the measurements its chapter recorded (``not run`` if none)."""
    from anonlab.claims.recorder import collect_results

    results = collect_results(results_dir)
    out = {}
    for cid in claim_ids:
        try:
            c = claim(cid)
        except ClaimError:
            raise ClaimError(f"the yardstick names claim {cid!r}, which is not in the ledger") from None
        out[cid] = decide(c, results.get(cid))
    return out


def yardstick_counts(table: pd.DataFrame) -> dict[str, int]:
    """How many rows stand in each :data:`POSITIONS` (zero included)."""
    counts = table["position"].value_counts() if len(table) else pd.Series(dtype=int)
    return {p: int(counts.get(p, 0)) for p in POSITIONS}


def write_yardstick_summary(out_dir: str | Path, chapters: Sequence[str],
                            results_dir: str | Path | None = None, page: str = "09_one_yardstick",
                            title: str | None = None) -> str:
    """Write ``yardstick_summary.md`` (the front page's row for the yardstick chapter); return its HTML.

    The counts are those of :func:`yardstick_table` over the chapters that
    have recorded attacks, read when the pages are generated; ``title`` names the chapter in the row.
    Under the table, the rule the counts follow (:data:`BASELINE_RULE`) and the headline in one sentence.
    """
    table = yardstick_table([c for c in chapters if c != page], results_dir)
    counts = yardstick_counts(table)
    head = "".join(f"<th>{html.escape(p)}</th>" for p in POSITIONS)
    label = html.escape(title) if title else html.escape(page).replace("_", "_<wbr>")  # the chapter's title
    if page in chapters:
        label = f'<a href="{html.escape(page)}.html">{label}</a>'
    cells = "".join(f"<td>{counts[p]}</td>" for p in POSITIONS)
    text = ('<table class="verdict-summary yardstick-summary"><thead><tr><th>chapter</th>' + head
            + "<th>attacks</th></tr></thead><tbody>\n"
            + f"<tr><td>{label}</td>{cells}<td>{len(table)}</td></tr>\n</tbody></table>\n"
            + f'<p class="yardstick-rule">{html.escape(headline(counts, len(table)))} {_rule_html()}</p>\n')
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "yardstick_summary.md").write_text(text, encoding="utf-8")
    return text


def headline(counts: Mapping[str, int], n: int) -> str:
    """The yardstick's answer in a sentence: how many learn beyond their baseline, how many are counted apart.

    >>> headline({BEYOND: 3, SAME: 4, WORSE: 0, PRIOR_ONLY: 5, OFF: 2}, 14)
    '3 of 14 recorded attacks learn beyond their non-member baseline; 5 are scored against a weaker prior only and counted apart.'
    """
    return (f"{counts[BEYOND]} of {n} recorded attacks learn beyond their non-member baseline; "
            f"{counts[PRIOR_ONLY]} {'is' if counts[PRIOR_ONLY] == 1 else 'are'} scored against a weaker prior only "
            "and counted apart.")


def _rule_html() -> str:
    """The baseline rule as HTML (its Markdown emphasis as ``<em>``)."""
    import re

    return re.sub(r"\*([^*]+)\*", r"<em>\1</em>", html.escape(BASELINE_RULE))


def _interval(v: float, lo: float, hi: float, fmt: str = ".2f") -> str:
    """``0.34 [0.33, 0.35]``; empty when undefined."""
    if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in (v, lo, hi)):
        return ""
    return f"{v:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]"


def readable_table(table: pd.DataFrame) -> pd.DataFrame:
    """The yardstick as a reader sees it: one row per attack, numbers rounded to what their intervals support.

    ``table`` is :func:`yardstick_table` (with a ``verdict`` column when the
    caller added the claims' verdicts).
    """
    def num(x: Any, fmt: str) -> str:
        return f"{x:{fmt}}" if isinstance(x, (int, float)) and math.isfinite(x) else ""

    out = pd.DataFrame({
        "chapter": table["chapter"].str.split("_").str[0],
        "attack": table["name"],
        "precision": [_interval(r.get("precision", math.nan), r.get("precision_low", math.nan),
                                r.get("precision_high", math.nan)) for r in table.to_dict("records")],
        "coverage": [num(x, ".3g") for x in table.get("coverage", pd.Series(math.nan, index=table.index))],
        "baseline": [num(x, ".2f") for x in table.get("baseline_precision", pd.Series(math.nan, index=table.index))],
        "PI": [_interval(r.get("pi", math.nan), r.get("pi_low", math.nan), r.get("pi_high", math.nan))
               for r in table.to_dict("records")],
        "baseline kind": table["baseline_kind"] if "baseline_kind" in table else "",
        "where it stands": [SHORT_REASONS.get(w, w) if w else _short_position(p, s)
                            for p, w, s in zip(table["position"], table["why_off"],
                                               table.get("pi_side", pd.Series("", index=table.index)))],
        "claim's verdict": table["verdict"] if "verdict" in table else "",
    })
    return out.set_index(["chapter", "attack"])


def _short_position(position: str, side: Any) -> str:
    """A position in a word or two; a row against a weaker prior only says which side of it PI lies."""
    if position == PRIOR_ONLY and isinstance(side, str) and side:
        return f"{SHORT_POSITIONS[position]}: {side}"
    return SHORT_POSITIONS[position]


def _position_title(position: str, side: Any, kind: str) -> str:
    """The tooltip of a row's position: the full wording, and for a prior-only row what PI says against it."""
    if position == PRIOR_ONLY:
        return (f"{position} ({kind or 'no kind recorded'}): counted apart; PI's interval is {side} 0 "
                "against it")
    return position


def off_scale_counts(table: pd.DataFrame) -> pd.DataFrame:
    """The recorded attacks that cannot be placed, grouped by reason (how many, which chapters)."""
    recorded = table["recorded"] if "recorded" in table else True  # rows that are attacks, not other results
    off = table[(table["position"] == OFF) & recorded]
    g = off.groupby("why_off").agg(attacks=("name", "size"),
                                   chapters=("chapter", lambda c: ", ".join(sorted({x.split("_")[0] for x in c}))))
    return g.sort_values("attacks", ascending=False)


class HtmlTable(str):
    """An HTML fragment that a notebook displays as HTML (its text is the markup)."""

    def _repr_html_(self) -> str:
        return str(self)


def _measured_html(v: Any, lo: Any, hi: Any) -> str:
    """A value to the precision its interval supports, the interval under it in small type ("—" if undefined)."""
    from anonlab.claims.rows import format_number

    if not (isinstance(v, (int, float)) and math.isfinite(v)):
        return "—"
    if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in (lo, hi)):
        return html.escape(format_number(float(v)))
    ci = (float(lo), float(hi))
    low, high = (format_number(x, ci) for x in ci)
    return (f"{html.escape(format_number(float(v), ci))}"
            f'<br><span style="font-size:0.85em;color:#555">[{html.escape(low)}, {html.escape(high)}]</span>')


def _coverage_html(v: Any, lo: Any, hi: Any) -> str:
    """Coverage to three significant digits (its interval, often far narrower, on hover)."""
    from anonlab.claims.rows import format_number

    if not (isinstance(v, (int, float)) and math.isfinite(v)):
        return "—"
    shown = html.escape(format_number(float(v)))
    if all(isinstance(x, (int, float)) and math.isfinite(x) for x in (lo, hi)):
        return f'<span title="interval [{lo:.3g}, {hi:.3g}]">{shown}</span>'
    return shown


def verdict_badge(verdict: Any) -> str:
    """The claim's verdict as the book's badge, linked to the rules; blank when the row has no claim."""
    from anonlab.claims.rules import verdict_slug

    if not isinstance(verdict, str) or not verdict:
        return ""
    return (f'<a class="verdict verdict-{verdict_slug(verdict)}" href="verdicts.html#rulebook" '
            f'style="white-space:normal;overflow-wrap:anywhere;max-width:100%" title="how this verdict is decided">{html.escape(verdict)}</a>')


def _table_html(cls: str, columns: Sequence[tuple[str, int]], body: Sequence[str]) -> str:
    """A fixed-layout table that fills the text column (``columns``: heading, width in %) and never widens it."""
    cols = "".join(f'<col style="width:{w}%">' for _, w in columns)
    head = "".join(f'<th style="text-align:left">{html.escape(h)}</th>' for h, _ in columns)
    return (f'<table class="{cls}" style="width:100%;table-layout:fixed;font-size:0.85em;overflow-wrap:anywhere">'
            f"<colgroup>{cols}</colgroup><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(body)
            + "\n</tbody></table>\n")


def _group_row(span: int, text: str) -> str:
    return (f'<tr><th colspan="{span}" style="text-align:left;background:#f4f4f4;padding-top:0.5em">'
            f"{text}</th></tr>")


def _on_demand(summary: str, text: Any) -> str:
    """``text`` folded behind ``summary`` (nothing when there is no text)."""
    if not isinstance(text, str) or not text:
        return ""
    return (f'<details><summary style="font-size:0.85em;color:#555;cursor:pointer">{html.escape(summary)}'
            f'</summary><div style="font-size:0.9em">{html.escape(text)}</div></details>')


def grouped_html(cls: str, columns: Sequence[tuple[str, int]],
                 groups: Sequence[tuple[str, Sequence[Sequence[str]]]]) -> HtmlTable:
    """A fixed-layout table of HTML cells under group headings: ``groups`` is (heading HTML, rows of cells)."""
    body = []
    for heading, rows in groups:
        body.append(_group_row(len(columns), heading))
        body += ["<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>" for cells in rows]
    return HtmlTable(_table_html(cls, columns, body))


def placed_html(table: pd.DataFrame, papers: Mapping[str, str] | None = None) -> HtmlTable:
    """The attacks that can be placed against their baseline, grouped by chapter, as a table that fits the page.

    ``table`` is the chapter's yardstick (:func:`yardstick_table` with
    ``paper``, ``verdict`` and ``note`` added); ``papers`` maps a paper key to
    its name. Each number is printed to the precision its interval supports
    (:func:`anonlab.claims.rows.format_number`), the interval under it
    (coverage to three significant digits, its interval on hover); the
    baseline's kind is under its precision; "stands" is the position in a
    word (a row against a weaker prior only says which side of it PI lies),
    the full wording on hover; a row's
    note opens on demand. Rows that cannot be placed are left to
    :func:`off_scale_html`.
    """
    cols = [("attack", 29), ("precision", 12), ("coverage", 10), ("baseline", 13), ("PI", 12), ("stands", 10),
            ("claim's verdict", 14)]
    body = []
    placed = table[table["position"] != OFF]
    for ch, g in placed.groupby("chapter", sort=False):
        who = ", ".join(dict.fromkeys((papers or {}).get(k, k) for k in g.get("paper", pd.Series(dtype=str))))
        link = f'<a href="{html.escape(ch)}.html">Chapter {html.escape(ch.split("_")[0])}</a>'
        body.append(_group_row(len(cols), link + (f" · {html.escape(who)}" if who else "")))
        for r in g.to_dict("records"):
            base = r.get("baseline_precision", math.nan)
            kind = kind_of(r)
            base_s = _measured_html(base, math.nan, math.nan) + (
                f'<br><span style="font-size:0.85em;color:#555">{html.escape(kind)}</span>' if kind else "")
            pos = r["position"]
            title = _position_title(pos, r.get("pi_side", ""), kind)
            body.append(
                f"<tr><td>{html.escape(str(r['name']))}{_on_demand('note', r.get('note'))}</td>"
                f"<td>{_measured_html(r['precision'], r['precision_low'], r['precision_high'])}</td>"
                f"<td>{_coverage_html(r['coverage'], r.get('coverage_low'), r.get('coverage_high'))}</td>"
                f"<td>{base_s}</td><td>{_measured_html(r['pi'], r['pi_low'], r['pi_high'])}</td>"
                f'<td title="{html.escape(title)}">{html.escape(_short_position(pos, r.get("pi_side", "")))}</td>'
                f"<td>{verdict_badge(r.get('verdict'))}</td></tr>")
    return HtmlTable(_table_html("yardstick-table", cols, body))


def off_scale_html(table: pd.DataFrame) -> HtmlTable:
    """The recorded attacks that cannot be placed, grouped by the reason, each group's notes on demand.

    ``table`` as for :func:`placed_html`; only its recorded attacks whose
    position is :data:`OFF` are listed, with precision and coverage (to the
    precision their intervals support) and the claim's verdict.
    """
    cols = [("ch.", 6), ("attack", 54), ("precision", 14), ("coverage", 11), ("claim's verdict", 15)]
    recorded = table["recorded"] if "recorded" in table else True
    off = table[(table["position"] == OFF) & recorded]
    body = []
    order = off["why_off"].value_counts().index
    for why in order:
        g = off[off["why_off"] == why]
        notes = " ".join(dict.fromkeys(n for n in g.get("note", pd.Series(dtype=str)) if isinstance(n, str) and n))
        head = f"{html.escape(why[0].upper() + why[1:])} ({len(g)})"
        body.append(_group_row(len(cols), head + _on_demand("why", notes)))
        for r in g.to_dict("records"):
            body.append(
                f"<td>{html.escape(str(r['chapter']).split('_')[0])}</td><td>{html.escape(str(r['name']))}</td>"
                f"<td>{_measured_html(r['precision'], r['precision_low'], r['precision_high'])}</td>"
                f"<td>{_coverage_html(r['coverage'], r.get('coverage_low'), r.get('coverage_high'))}</td>"
                f"<td>{verdict_badge(r.get('verdict'))}</td>")
            body[-1] = f"<tr>{body[-1]}</tr>"
    return HtmlTable(_table_html("yardstick-table yardstick-off", cols, body))

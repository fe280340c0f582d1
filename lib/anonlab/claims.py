"""The claims ledger and the record of what the book measured.

``data/claims.yaml`` lists every quantitative claim of the five source
documents: where it is made, the reported value, and the tolerance within
which the book calls it reproduced. A chapter's library module turns its
results into :class:`Measurement` objects (tested functions, not notebook
arithmetic) and the notebook records them all with one call::

    rec = Recorder("02_dp_vs_definetti")
    rec.record_all({"cormode.fig1.occupation.majority_baseline": Measurement(0.127, ci=(0.123, 0.131))})

which writes ``<notebook>.results.json`` beside the executed notebook.
:meth:`Recorder.record_attack` keeps an attack's full
:class:`~anonlab.measures.AttackResult` (and its baseline) in
``<notebook>.attacks.pkl``, so that :func:`attack_table` can score any
chapter's attacks on the common yardstick later. The
verdict page of the book is generated from the ledger and those files.

Verdicts
--------
``reproduced``
    the measured value satisfies the claim's comparison within tolerance;
``not reproduced``
    it does not (or the measurement is undefined, NaN), under every reading
    of the paper the ledger lists;
``depends on an unstated choice``
    the paper leaves a choice open (the ledger's ``choices``: an attribute
    set, a tie-break, a scale, a reading of a sentence) and the claim holds
    under one reasonable alternative and fails under another; the record
    keeps the measurement and verdict under each alternative;
``inconclusive``
    the evidence cannot decide: the claim is about data the book can only
    stand in for (the ledger's ``stand_in`` says with what, and what would
    decide it), or the measurement misses the tolerance while its interval
    reaches into it (the tolerance already allows for noise; such a run
    cannot be called a failure);
``not run``
    no notebook has recorded the claim (yet, or with these parameters);
``data unavailable``
    not run because the data it needs cannot be had here.

The verdict is recomputed from the ledger and the recorded measurements when
the book is built (:func:`decide`), so a ledger edit takes effect without a
rerun.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from . import paths
from .fileio import atomic_write

__all__ = [
    "VERDICTS",
    "Claim",
    "ClaimError",
    "Measurement",
    "decide",
    "attack_table",
    "load_attacks",
    "Recorder",
    "load_ledger",
    "ledger",
    "claim",
    "reported",
    "verdict",
    "collect_results",
    "verdict_table",
    "verdict_counts",
    "write_verdict_pages",
]

VERDICTS = ("reproduced", "not reproduced", "depends on an unstated choice", "inconclusive", "not run",
            "data unavailable")
COMPARISONS = ("approx", "at_least", "at_most", "range", "exact", "holds")
DATA_STATES = ("available", "unavailable", "synthetic", "none")
RESULTS_SUFFIX = ".results.json"
ATTACKS_SUFFIX = ".attacks.pkl"


@dataclass(frozen=True)
class Measurement:
    """The measured value of one claim, as a chapter's library function computes it.

    ``value`` is in the claim's unit (rates as fractions); ``None`` means
    not measured (not run, or data unavailable). ``ci`` is an optional
    (low, high) interval, ``n`` the sample size, ``note`` one line of context.
    ``alternatives`` maps each alternative reading the ledger lists for this
    claim (its ``choices``) to the value measured under it (a number, or a
    ``Measurement`` to give that reading its own interval); ``value`` is the
    measurement under the chapter's default reading. ``real_data`` says the
    value was measured on the paper's own data (e.g. the user's copy of the
    Netflix Prize), which lifts the ledger's ``stand_in``.
    """

    value: Any
    ci: Sequence[float] | None = None
    n: int | None = None
    note: str = ""
    alternatives: Mapping[str, Any] | None = None
    real_data: bool = False


class ClaimError(KeyError):
    """An unknown claim id, or a ledger entry that does not follow the schema."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class Claim:
    """One row of the ledger (see ``data/claims.schema.json``)."""

    id: str
    paper: str
    source: str
    where: str
    statement: str
    reported: Any
    unit: str
    compare: str
    chapter: str
    data: str
    tolerance: float | None = None
    quote: str | None = None
    params: Mapping[str, Any] | None = None
    note: str | None = None
    choices: Sequence[Mapping[str, Any]] | None = None
    stand_in: str | None = None

    def alternatives(self) -> list[str]:
        """The labels of every alternative reading the ledger lists (over all open choices)."""
        return [str(a) for ch in (self.choices or []) for a in ch.get("alternatives", [])]

    def describe_reported(self) -> str:
        """The reported value as a short human string, e.g. ``0.13 ± 0.02``."""
        return describe_reported(self.compare, self.reported, self.tolerance)


def describe_reported(compare: str, value: Any, tolerance: float | None) -> str:
    """Format a reported value with its comparison, e.g. ``≥ 0.66`` or ``[0.93, 0.97]``."""
    tol = f" ± {tolerance:g}" if tolerance else ""
    if compare == "holds":
        return "holds" if value else "does not hold"
    if compare == "range":
        return f"[{value[0]:g}, {value[1]:g}]"
    if compare == "at_least":
        return f"≥ {value:g}"
    if compare == "at_most":
        return f"≤ {value:g}"
    if compare == "exact":
        return f"{value:g}" if isinstance(value, (int, float)) else str(value)
    return f"{value:g}{tol}"


def schema_path() -> Path:
    """The JSON schema of the ledger, ``data/claims.schema.json``."""
    return paths.project_root() / "data" / "claims.schema.json"


@lru_cache(maxsize=4)
def _load(path: str, mtime: float) -> tuple[Claim, ...]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C parser is ~10x faster
    with open(path, encoding="utf-8") as fh:
        rows = yaml.load(fh, Loader=loader) or []
    claims = []
    seen: set[str] = set()
    for row in rows:
        try:
            c = Claim(**row)
        except TypeError as exc:
            raise ClaimError(f"ledger entry {row.get('id', row)!r} has unexpected keys: {exc}") from None
        if c.id in seen:
            raise ClaimError(f"ledger id {c.id!r} appears twice in {path}")
        seen.add(c.id)
        claims.append(c)
    return tuple(claims)


def load_ledger(path: str | Path | None = None) -> tuple[Claim, ...]:
    """Read the ledger (cached until the file changes)."""
    p = Path(path) if path is not None else paths.ledger_path()
    if not p.exists():
        raise FileNotFoundError(f"claims ledger not found at {p}")
    return _load(str(p), p.stat().st_mtime)


def ledger(path: str | Path | None = None) -> pd.DataFrame:
    """The ledger as a DataFrame, one row per claim."""
    rows = [c.__dict__ for c in load_ledger(path)]
    return pd.DataFrame(rows)


def claim(claim_id: str) -> Claim:
    """Look a claim up by id; unknown ids raise :class:`ClaimError` with near matches."""
    for c in load_ledger():
        if c.id == claim_id:
            return c
    import difflib

    ids = [c.id for c in load_ledger()]
    near = difflib.get_close_matches(claim_id, ids, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise ClaimError(f"unknown claim id {claim_id!r} (not in {paths.ledger_path()}){hint}")


def reported(claim_id: str) -> Any:
    """The value the paper reports for ``claim_id`` (from the ledger)."""
    return claim(claim_id).reported


def _as_number(x: Any) -> float:
    return float(x)


def verdict(c: Claim, measured: Any) -> str:
    """Compare a measurement with a claim.

    ``approx``: ``|m − r| ≤ tol``; ``at_least``: ``m ≥ r − tol``;
    ``at_most``: ``m ≤ r + tol``; ``range``: ``lo − tol ≤ m ≤ hi + tol``;
    ``exact``: equal (numbers within ``tol``, default 1e-9);
    ``holds``: ``bool(m) == bool(r)``. A missing measurement is ``not run``
    (or ``data unavailable`` when the ledger says so); NaN is ``not reproduced``.
    """
    if measured is None:
        return "data unavailable" if c.data == "unavailable" else "not run"
    if c.compare == "holds":
        return "reproduced" if bool(measured) == bool(c.reported) else "not reproduced"
    if c.compare == "exact" and not isinstance(c.reported, (int, float)):
        return "reproduced" if measured == c.reported else "not reproduced"
    m = _as_number(measured)
    if math.isnan(m):
        return "not reproduced"
    tol = float(c.tolerance or 0.0)
    if c.compare == "approx":
        ok = abs(m - _as_number(c.reported)) <= tol + 1e-12
    elif c.compare == "at_least":
        ok = m >= _as_number(c.reported) - tol
    elif c.compare == "at_most":
        ok = m <= _as_number(c.reported) + tol
    elif c.compare == "range":
        lo, hi = (_as_number(v) for v in c.reported)
        ok = lo - tol <= m <= hi + tol
    elif c.compare == "exact":
        ok = abs(m - _as_number(c.reported)) <= max(tol, 1e-9)
    else:  # pragma: no cover - the schema forbids it
        raise ClaimError(f"claim {c.id!r} has unknown comparison {c.compare!r}")
    return "reproduced" if ok else "not reproduced"


def _accepted_interval(c: Claim) -> tuple[float, float] | None:
    """The values a numeric claim accepts, as an interval (``None`` for non-numeric comparisons)."""
    tol = float(c.tolerance or 0.0)
    try:
        if c.compare == "approx":
            r = float(c.reported)
            return (r - tol, r + tol)
        if c.compare == "at_least":
            return (float(c.reported) - tol, math.inf)
        if c.compare == "at_most":
            return (-math.inf, float(c.reported) + tol)
        if c.compare == "range":
            lo, hi = (float(v) for v in c.reported)
            return (lo - tol, hi + tol)
    except (TypeError, ValueError):
        return None
    return None


def decide(c: Claim, record: Mapping[str, Any] | None) -> str:
    """The verdict of a claim from its recorded measurement (see the module docstring).

    In order: nothing recorded -> ``not run`` / ``data unavailable``; NaN ->
    ``not reproduced``; a stand-in measurement (not lifted by ``real_data``)
    -> ``inconclusive``; each reading (the default and every alternative) is
    judged by :func:`verdict` with the interval rule (a miss whose interval
    reaches the accepted values is ``inconclusive``); readings that reproduce
    and readings that fail -> ``depends on an unstated choice``; decided
    readings beside undecidable ones -> ``inconclusive``; otherwise the
    shared verdict.
    """
    measured = None if record is None else record.get("measured")
    if record is not None and record.get("is_nan"):
        return "not reproduced"
    if measured is None:
        return verdict(c, None)
    if c.stand_in and not record.get("real_data"):
        return "inconclusive"
    base = _reading_verdict(c, record)
    alts = record.get("alternatives") or {}
    readings = {base, *(_reading_verdict(c, a) for a in alts.values())}
    if len(readings) > 1:
        decided = readings - {"inconclusive"}
        return "depends on an unstated choice" if len(decided) > 1 else "inconclusive"
    return base


def _reading_verdict(c: Claim, reading: Mapping[str, Any]) -> str:
    """The verdict of one measurement (the default reading or an alternative), with the interval rule.

    A miss whose interval reaches into the accepted values is inconclusive.
    """
    if reading.get("is_nan"):
        return "not reproduced"
    base = verdict(c, reading.get("measured"))
    ci = reading.get("ci")
    accepted = _accepted_interval(c)
    if base == "not reproduced" and ci and accepted and all(v is not None for v in ci):
        lo, hi = float(ci[0]), float(ci[1])
        if lo <= accepted[1] + 1e-12 and hi >= accepted[0] - 1e-12:
            return "inconclusive"
    return base


def _jsonable(x: Any) -> Any:
    """Convert numpy scalars/arrays and tuples into plain JSON values (NaN -> None)."""
    if x is None or isinstance(x, (str, bool)):
        return x
    if hasattr(x, "item") and getattr(x, "ndim", 0) == 0:
        x = x.item()
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        return None if math.isnan(x) else x
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (Sequence, set)) or hasattr(x, "tolist"):
        seq = x.tolist() if hasattr(x, "tolist") else list(x)
        return [_jsonable(v) for v in seq]
    return str(x)


def _atomic_write_json(path: Path, payload: Any) -> None:
    atomic_write(path, lambda fh: json.dump(payload, fh, indent=1, sort_keys=True))


class Recorder:
    """Records a notebook's measurements of ledger claims.

    Parameters
    ----------
    notebook
        The notebook's name without extension, e.g. ``"01_syntactic_anonymity"``.
    out_dir
        Folder of the results file; default :func:`anonlab.paths.output_dir`
        (``book/``, or the runner's temporary folder during a run).

    Creating a recorder starts a fresh results file: one run of a notebook,
    one set of results.
    """

    def __init__(self, notebook: str, out_dir: str | Path | None = None) -> None:
        if not notebook or "/" in notebook or notebook.endswith(".ipynb"):
            raise ValueError(f"notebook must be a bare name like '01_syntactic_anonymity', got {notebook!r}")
        self.notebook = notebook
        self.path = Path(out_dir or paths.output_dir()) / f"{notebook}{RESULTS_SUFFIX}"
        self.results: dict[str, dict[str, Any]] = {}
        self.attacks: dict[str, dict[str, Any]] = {}
        self.path.with_name(f"{notebook}{ATTACKS_SUFFIX}").unlink(missing_ok=True)
        self._save()

    def record(
        self,
        claim_id: str,
        measured: Any,
        *,
        ci: Sequence[float] | None = None,
        n: int | None = None,
        note: str = "",
        alternatives: Mapping[str, Any] | None = None,
        real_data: bool = False,
    ) -> str:
        """Record the measured value of ``claim_id`` and return its verdict.

        ``measured`` is in the claim's unit (rates as fractions in [0, 1]);
        ``ci`` an optional (low, high) interval; ``n`` the sample size;
        ``alternatives`` the value under each alternative reading the ledger
        lists (every listed alternative, no other).
        """
        c = claim(claim_id)
        if c.chapter != self.notebook:
            note = (note + " " if note else "") + f"(claim belongs to chapter {c.chapter})"
        listed = c.alternatives()
        if alternatives is not None or listed:
            given = sorted(map(str, alternatives or {}))
            if measured is not None and given != sorted(listed):
                raise ClaimError(f"claim {claim_id!r}: record a value for each alternative the ledger lists "
                                 f"({sorted(listed)}), got {given}")
        is_nan = measured is not None and _jsonable(measured) is None  # NaN
        entry = {
            "measured": _jsonable(measured),
            "is_nan": is_nan,
            "ci": _jsonable(ci) if ci is not None else None,
            "n": _jsonable(n),
            "note": note,
        }
        if alternatives:
            entry["alternatives"] = {}
            for k, v in alternatives.items():
                alt = {"measured": _jsonable(v.value), "ci": _jsonable(v.ci) if v.ci is not None else None} \
                    if isinstance(v, Measurement) else {"measured": _jsonable(v), "ci": None}
                alt["verdict"] = _reading_verdict(c, alt)
                entry["alternatives"][str(k)] = alt
        if real_data:
            entry["real_data"] = True
        entry["verdict"] = decide(c, entry)
        self.results[claim_id] = entry
        self._save()
        return entry["verdict"]

    def record_all(self, measurements: Mapping[str, "Measurement | Any"]) -> pd.DataFrame:
        """Record every claim of ``measurements`` (``Measurement`` or a bare value); return the verdicts."""
        for cid, m in measurements.items():
            if not isinstance(m, Measurement):
                m = Measurement(m)
            self.record(cid, m.value, ci=m.ci, n=m.n, note=m.note, alternatives=m.alternatives,
                        real_data=m.real_data)
        return self.table().set_index("id").loc[list(measurements), ["reported", "measured", "ci", "verdict"]]

    def record_attack(self, name: str, result: Any, baseline: Any = None) -> None:
        """Keep an attack's :class:`~anonlab.measures.AttackResult` (and its baseline) for the yardstick."""
        import pickle

        if not name:
            raise ValueError("record_attack needs a name")
        self.attacks[name] = {"result": result, "baseline": baseline}
        path = self.path.with_name(f"{self.notebook}{ATTACKS_SUFFIX}")
        atomic_write(path, lambda fh: pickle.dump(self.attacks, fh, protocol=pickle.HIGHEST_PROTOCOL),
                     binary=True)

    def _save(self) -> None:
        _atomic_write_json(
            self.path,
            {"notebook": self.notebook, "results": self.results},
        )

    def table(self) -> pd.DataFrame:
        """This notebook's claims: id, where, statement, reported, measured, verdict."""
        rows = []
        for cid, r in self.results.items():
            c = claim(cid)
            rows.append(_row(c, r))
        return pd.DataFrame(rows, columns=_COLUMNS)


_COLUMNS = ["id", "chapter", "where", "statement", "reported", "measured", "ci", "verdict", "readings"]


def _fmt_measured(r: Mapping[str, Any] | None) -> str:
    if not r:
        return ""
    m = r.get("measured")
    if m is None:
        return "nan" if r.get("is_nan") else ""
    if isinstance(m, bool):
        return "holds" if m else "does not hold"
    if isinstance(m, float):
        return f"{m:.4g}"
    return str(m)


def _fmt_ci(r: Mapping[str, Any] | None) -> str:
    ci = (r or {}).get("ci")
    if not ci or any(v is None for v in ci):
        return ""
    return f"[{ci[0]:.3g}, {ci[1]:.3g}]"


def _readings(c: Claim, r: Mapping[str, Any] | None) -> str:
    """The verdict under each alternative reading, and why a stand-in cannot decide."""
    parts = []
    for label, a in ((r or {}).get("alternatives") or {}).items():
        parts.append(f"{label}: {_fmt_measured(a)} ({_reading_verdict(c, a)})")
    if c.stand_in and not (r or {}).get("real_data"):
        parts.append(f"stand-in: {c.stand_in}")
    return "; ".join(parts)


def _row(c: Claim, r: Mapping[str, Any] | None) -> dict[str, Any]:
    v = decide(c, r)
    return {
        "id": c.id,
        "chapter": c.chapter,
        "where": c.where,
        "statement": c.statement,
        "reported": c.describe_reported(),
        "measured": _fmt_measured(r),
        "ci": _fmt_ci(r),
        "verdict": v,
        "readings": _readings(c, r),
    }


def load_attacks(chapter: str, results_dir: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The attack results a chapter recorded: ``{name: {"result": ..., "baseline": ...}}``."""
    import pickle

    d = Path(results_dir) if results_dir is not None else paths.book_dir()
    path = d / f"{chapter}{ATTACKS_SUFFIX}"
    if not path.exists():
        return {}
    with open(path, "rb") as fh:
        return pickle.load(fh)


def attack_table(chapters: Sequence[str] | str, results_dir: str | Path | None = None,
                 confidence: float = 0.95) -> pd.DataFrame:
    """Every recorded attack of these chapters on one yardstick.

    Precision, coverage, recall, baseline precision on the same targets and
    PI, each with its interval (:func:`anonlab.measures.score`)::

        attack_table(["02_dp_vs_definetti", "06_diffix_attacks"])
    """
    from .measures import score

    names = [chapters] if isinstance(chapters, str) else list(chapters)
    rows = []
    for ch in names:
        for name, item in load_attacks(ch, results_dir).items():
            row = score(item["result"], item.get("baseline"), confidence=confidence).as_dict()
            row.update(chapter=ch, name=name)
            rows.append(row)
    if not rows:
        return pd.DataFrame()
    return pd.DataFrame(rows).set_index(["chapter", "name"])


def collect_results(results_dir: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """All recorded results under ``results_dir`` (default ``book/``), by claim id."""
    d = Path(results_dir) if results_dir is not None else paths.book_dir()
    out: dict[str, dict[str, Any]] = {}
    for f in sorted(d.glob(f"*{RESULTS_SUFFIX}")):
        payload = json.loads(f.read_text(encoding="utf-8"))
        for cid, r in payload.get("results", {}).items():
            out[cid] = dict(r, notebook=payload.get("notebook"))
    return out


def verdict_table(results_dir: str | Path | None = None) -> pd.DataFrame:
    """Every ledger claim with reported value, measured value and verdict.

    The verdict is recomputed from the ledger at build time, so a tolerance
    edited in the ledger takes effect without rerunning the notebooks.
    """
    results = collect_results(results_dir)
    known = {c.id for c in load_ledger()}
    stray = sorted(set(results) - known)
    if stray:
        raise ClaimError(f"results record ids that are not in the ledger: {stray}")
    rows = [_row(c, results.get(c.id)) for c in load_ledger()]
    return pd.DataFrame(rows, columns=_COLUMNS)


def verdict_counts(table: pd.DataFrame) -> pd.DataFrame:
    """Counts of each verdict per chapter, with a total row."""
    counts = (
        table.groupby(["chapter", "verdict"]).size().unstack(fill_value=0)
        .reindex(columns=list(VERDICTS), fill_value=0)
    )
    counts.loc["all chapters"] = counts.sum()
    counts["claims"] = counts.sum(axis=1)
    return counts


def _md_escape(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _markdown_table(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in df.iterrows():
        lines.append("| " + " | ".join(_md_escape(row[c]) for c in cols) + " |")
    return "\n".join(lines) + "\n"


def _html(text: Any) -> str:
    import html

    return html.escape(str(text), quote=True)


def _verdict_badge(verdict: str) -> str:
    css = "verdict-" + verdict.replace(" ", "-")
    return f'<span class="verdict {css}">{_html(verdict)}</span>'


def verdict_html_table(group: pd.DataFrame) -> str:
    """A compact HTML table of claims: id, reported, measured, coloured verdict, details on demand.

    Four narrow columns fit the page without horizontal scrolling; the
    statement, where the paper makes it and the interval open from the id.
    """
    rows = []
    for _, r in group.iterrows():
        details = f"{_html(r['statement'])}<br><em>{_html(r['where'])}</em>"
        if r["ci"]:
            details += f"<br>interval: {_html(r['ci'])}"
        if r.get("readings"):
            details += f"<br>{_html(r['readings'])}"
        rows.append(
            "<tr>"
            f'<td class="claim-id"><details><summary><code>{_html(r["id"])}</code></summary>'
            f'<div class="claim-details">{details}</div></details></td>'
            f"<td>{_html(r['reported'])}</td><td>{_html(r['measured'])}</td>"
            f"<td>{_verdict_badge(r['verdict'])}</td></tr>"
        )
    return ('<table class="verdict-table"><thead><tr><th>claim (open for details)</th><th>reported</th>'
            '<th>measured</th><th>verdict</th></tr></thead><tbody>\n' + "\n".join(rows)
            + "\n</tbody></table>\n")


SHORT_VERDICT = {"reproduced": "reproduced", "not reproduced": "not reproduced",
                 "depends on an unstated choice": "depends on a choice", "inconclusive": "inconclusive",
                 "not run": "not run", "data unavailable": "no data"}


def verdict_summary_html(table: pd.DataFrame, chapters: Mapping[str, str] | None = None) -> str:
    """Counts of each verdict per chapter as a narrow HTML table (coloured headers, no sideways scroll)."""
    counts = verdict_counts(table)
    chapters = dict(chapters or {})
    head = "".join(f'<th><span class="verdict verdict-{v.replace(" ", "-")}">{_html(SHORT_VERDICT[v])}</span></th>'
                   for v in VERDICTS)
    rows = []
    for chapter, row in counts.iterrows():
        label = _html(chapter).replace("_", "_<wbr>")  # break long names at their underscores
        if chapter in chapters:
            label = f'<a href="{_html(chapter)}.html" title="{_html(chapters[chapter])}">{label}</a>'
        cells = "".join(f"<td>{int(row[v])}</td>" for v in VERDICTS)
        rows.append(f"<tr><td>{label}</td>{cells}<td>{int(row['claims'])}</td></tr>")
    return ('<table class="verdict-summary"><thead><tr><th>chapter</th>' + head + "<th>claims</th></tr></thead>"
            "<tbody>\n" + "\n".join(rows) + "\n</tbody></table>\n")


def write_verdict_pages(
    out_dir: str | Path,
    results_dir: str | Path | None = None,
    chapters: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Write ``verdict_summary.md`` and ``verdict_table.md`` into ``out_dir``.

    They are included by the book's introduction and verdict page.
    ``chapters`` maps the chapters that are part of the book to their titles;
    their sections link to the chapter page. Returns the full verdict table.
    """
    chapters = dict(chapters or {})
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = verdict_table(results_dir)
    (out / "verdict_summary.md").write_text(verdict_summary_html(table, chapters), encoding="utf-8")
    parts = []
    for chapter, group in table.groupby("chapter", sort=True):
        counted = group["verdict"].value_counts().reindex(VERDICTS, fill_value=0)
        tally = ", ".join(f"{int(n)} {v}" for v, n in counted.items() if n > 0)
        if chapter in chapters:
            parts.append(f"## {chapter}: {chapters[chapter]}\n\n")
            parts.append(f"Measured in the chapter [{chapters[chapter]}]({chapter}.ipynb): {tally}.\n\n")
        else:
            parts.append(f"## {chapter}\n\nThis chapter is not written yet: {tally}.\n\n")
        parts.append(verdict_html_table(group))
        parts.append("\n")
    (out / "verdict_table.md").write_text("".join(parts), encoding="utf-8")
    return table

"""The record of what a chapter measured: ``<chapter>.results.json`` and ``<chapter>.attacks.pkl``.

A chapter's library module turns its results into :class:`Measurement` objects and the chapter records them all with
one call (through the chapter kit, :func:`anonbook.chapters.kit.start`)::

    rec = Recorder("02_dp_vs_definetti")
    rec.record_all({"cormode.fig1.occupation.majority_baseline": Measurement(0.127, ci=(0.123, 0.131))})

which writes ``<chapter>.results.json`` beside the executed notebook. The file holds measurements only; verdicts are
computed from them by :func:`anonlab.claims.rules.decide` wherever they are shown (one source of truth).
:meth:`Recorder.record_attack` keeps an attack's full :class:`~anonlab.measures.AttackResult` (and its baseline) in
``<chapter>.attacks.pkl``, so that the book's yardstick (:func:`anonbook.verdicts.yardstick_table`) can score any
chapter's attacks on the common yardstick later.
"""

from __future__ import annotations

import json
import math
import os
import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .. import paths
from ..fileio import atomic_write
from .ledger import ClaimError, claim
from .rows import claim_rows
from .rules import decide, reading_verdict

__all__ = ["RESULTS_SUFFIX", "ATTACKS_SUFFIX", "Condition", "Measurement", "Recorder", "with_verdicts", "collect_results",
           "read_results",
           "load_attacks"]

RESULTS_SUFFIX = ".results.json"
#: The run's identity (JSON: default, preset or custom and what changed), set by the runner for its kernel.
RUN_IDENTITY_ENV = "ANONLAB_RUN_IDENTITY"
ATTACKS_SUFFIX = ".attacks.pkl"


@dataclass(frozen=True)
class Condition:
    """One comparison of a Monte Carlo *holds* claim: a mean over repetitions against the values it must take.

    ``values`` are the quantity's values, one per repetition (e.g. the deFinetti attack's accuracy in each of
    Cormode's five runs); the claim's statement needs their mean within ``[low, high]`` (an end may be infinite:
    ``high=0.41`` reads "below 0.41"). The recorder keeps the values with their Student-t interval
    (:func:`anonlab.intervals.mean_interval`), and :func:`anonlab.claims.rules.condition_holds` decides on that
    interval.

    >>> Condition("l = 5, size 10", [0.40, 0.41, 0.39], high=0.414).low
    -inf
    """

    label: str
    values: Sequence[float]
    low: float = -math.inf
    high: float = math.inf

    def entry(self) -> dict[str, Any]:
        """The recorded form: label, per-repetition values, their mean and t interval, the accepted values."""
        from ..intervals import mean_interval

        vals = [float(v) for v in self.values]
        if not vals or any(math.isnan(v) for v in vals):
            raise ClaimError(f"condition {self.label!r} needs one finite value per repetition, got {vals}")
        lo, hi = mean_interval(vals)
        return {"label": self.label, "values": vals, "mean": sum(vals) / len(vals), "ci": _jsonable([lo, hi]),
                "accepted": [None if math.isinf(self.low) else float(self.low),
                             None if math.isinf(self.high) else float(self.high)]}


@dataclass(frozen=True)
class Measurement:
    """The measured value of one claim, as a chapter's library function computes it.

    ``value`` is in the claim's unit (rates as fractions); ``None`` means not measured (not run, or data unavailable).
    ``ci`` is an optional (low, high) interval, ``n`` the sample size, ``note`` one line of context. ``alternatives``
    maps each alternative reading the ledger lists for this claim (its ``choices``) to the value measured under it (a
    number, or a ``Measurement`` to give that reading its own interval); ``value`` is the measurement under the
    chapter's default reading. ``real_data`` says the value was measured on the paper's own data (e.g. the user's copy
    of the Netflix Prize), which lifts the ledger's ``stand_in``.

    A Monte Carlo measurement keeps the values it summarises: ``values``, one per repetition, for a number (its ``ci``
    is their interval); for a *holds* claim, ``conditions`` (:class:`Condition`), each comparison its statement makes,
    with the values of each repetition; the rules decide such a claim on the conditions' intervals, ``value`` (the
    statement on the means) is shown beside them.
    """

    value: Any
    ci: Sequence[float] | None = None
    n: int | None = None
    note: str = ""
    alternatives: Mapping[str, Any] | None = None
    real_data: bool = False
    values: Sequence[float] | None = None
    conditions: Sequence[Condition] | None = None



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


def _is_number(x: Any) -> bool:
    """A numeric measurement (not a bool, not None, not NaN-as-None)."""
    x = x.item() if hasattr(x, "item") and getattr(x, "ndim", 0) == 0 else x
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _check_intervals(claim_id: str, measured: Any, ci: Sequence[float] | None,
                     alternatives: Mapping[str, Any] | None) -> None:
    """The rulebook: a Monte Carlo measurement carries its interval, under every reading.

    Raises :class:`ClaimError` naming the readings recorded without one.
    """
    missing = []
    if _is_number(measured) and ci is None:
        missing.append("the default reading")
    for label, a in (alternatives or {}).items():
        value, a_ci = (a.value, a.ci) if isinstance(a, Measurement) else (a, None)
        if _is_number(value) and a_ci is None:
            missing.append(f"reading {label!r}")
    if missing:
        raise ClaimError(f"claim {claim_id!r} is a Monte Carlo measurement (ledger: monte_carlo): record its "
                         f"interval (ci=...) for {', '.join(missing)}; give an alternative as a Measurement "
                         "with its ci")


def _reading_entry(claim_id: str, value: Any, ci: Sequence[float] | None, values: Sequence[float] | None,
                   conditions: Sequence[Condition] | None) -> dict[str, Any]:
    """The recorded form of one reading: measured value, interval, per-repetition values and conditions."""
    entry: dict[str, Any] = {"measured": _jsonable(value), "ci": _jsonable(ci) if ci is not None else None}
    if values is not None:
        entry["values"] = _jsonable(list(values))
    if conditions is not None:
        c = claim(claim_id)
        if c.compare != "holds" or not c.monte_carlo:
            raise ClaimError(f"claim {claim_id!r}: conditions are for Monte Carlo holds claims (ledger: compare "
                             f"{c.compare!r}, monte_carlo {c.monte_carlo})")
        if not conditions:
            raise ClaimError(f"claim {claim_id!r}: a holds claim recorded with conditions needs at least one")
        entry["conditions"] = [k.entry() for k in conditions]
    return entry


def _atomic_write_json(path: Path, payload: Any) -> None:
    atomic_write(path, lambda fh: json.dump(payload, fh, indent=1, sort_keys=True))


def with_verdicts(claim_id: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    """A recorded entry with its verdict (and each alternative's) computed by the rules, never stored."""
    c = claim(claim_id)
    out = dict(entry)
    if entry.get("alternatives"):
        out["alternatives"] = {k: dict(a, verdict=reading_verdict(c, a)) for k, a in entry["alternatives"].items()}
    out["verdict"] = decide(c, entry)
    return out


class Recorder:
    """Records a chapter's measurements of its ledger claims.

    Parameters: ``notebook``: The chapter's name, e.g. ``"01_syntactic_anonymity"``; only claims the ledger assigns to
    this chapter can be recorded. ``out_dir``: Folder of the results file; default :func:`anonlab.paths.output_dir`
    (``book/``, or the runner's temporary folder during a run).

    Creating a recorder touches no file: the first :meth:`record` writes the results file afresh (one run of a
    chapter, one set of results), the first :meth:`record_attack` the attacks file.
    """

    def __init__(self, notebook: str, out_dir: str | Path | None = None) -> None:
        if not notebook or "/" in notebook or notebook.endswith(".ipynb"):
            raise ValueError(f"notebook must be a bare name like '01_syntactic_anonymity', got {notebook!r}")
        self.notebook = notebook
        self.path = Path(out_dir or paths.output_dir()) / f"{notebook}{RESULTS_SUFFIX}"
        self._entries: dict[str, dict[str, Any]] = {}
        self.sentences: dict[str, dict[str, Any]] = {}
        self.attacks: dict[str, dict[str, Any]] = {}

    @property
    def results(self) -> dict[str, dict[str, Any]]:
        """Claim id -> the recorded entry, with its verdict computed by the rules."""
        return {cid: with_verdicts(cid, e) for cid, e in self._entries.items()}

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
        values: Sequence[float] | None = None,
        conditions: Sequence[Condition] | None = None,
    ) -> str:
        """Record the measured value of ``claim_id`` and return its verdict.

        ``measured`` is in the claim's unit (rates as fractions in [0, 1]); ``ci`` an optional (low, high) interval;
        ``n`` the sample size; ``alternatives`` the value under each alternative reading the ledger lists (every
        listed alternative, no other); ``values`` the per-repetition values a Monte Carlo number summarises;
        ``conditions`` the comparisons of a Monte Carlo holds claim (see :class:`Measurement`).
        """
        c = claim(claim_id)
        if c.chapter != self.notebook:
            raise ClaimError(f"claim {claim_id!r} belongs to chapter {c.chapter}, not {self.notebook}: "
                             "record it there")
        listed = c.alternatives()
        if alternatives is not None or listed:
            given = sorted(map(str, alternatives or {}))
            if measured is not None and given != sorted(listed):
                raise ClaimError(f"claim {claim_id!r}: record a value for each alternative the ledger lists "
                                 f"({sorted(listed)}), got {given}")
        if c.monte_carlo:
            _check_intervals(c.id, measured, ci, alternatives)
        is_nan = measured is not None and _jsonable(measured) is None  # NaN
        entry: dict[str, Any] = {**_reading_entry(claim_id, measured, ci, values, conditions),
                                 "is_nan": is_nan, "n": _jsonable(n), "note": note}
        if alternatives:
            entry["alternatives"] = {
                str(k): (_reading_entry(claim_id, v.value, v.ci, v.values, v.conditions)
                         if isinstance(v, Measurement) else {"measured": _jsonable(v), "ci": None})
                for k, v in alternatives.items()}
        if real_data:
            entry["real_data"] = True
        self._entries[claim_id] = entry
        self._write()
        return decide(c, entry)

    def record_sentence(self, record: Mapping[str, Any]) -> None:
        """Keep a generated comparing sentence with its numbers and the relation it asserts (its ``key``).

        See :mod:`anonbook.chapters.sentences`: a test recomputes the relation from the recorded numbers.
        """
        if not record.get("key"):
            raise ValueError("a recorded sentence needs a key")
        self.sentences[str(record["key"])] = {k: _jsonable(v) for k, v in record.items()}
        self._write()

    def _write(self) -> None:
        """Write ``results.json``: the claims, the sentences and the run's identity (set by the runner)."""
        payload: dict[str, Any] = {"notebook": self.notebook, "results": self._entries}
        if self.sentences:
            payload["sentences"] = self.sentences
        identity = os.environ.get(RUN_IDENTITY_ENV)
        if identity:
            try:
                payload["run"] = json.loads(identity)
            except ValueError:
                pass
        _atomic_write_json(self.path, payload)

    def record_all(self, measurements: Mapping[str, "Measurement | Any"]) -> pd.DataFrame:
        """Record every claim of ``measurements`` (``Measurement`` or a bare value); return the verdicts."""
        for cid, m in measurements.items():
            if not isinstance(m, Measurement):
                m = Measurement(m)
            self.record(cid, m.value, ci=m.ci, n=m.n, note=m.note, alternatives=m.alternatives,
                        real_data=m.real_data, values=m.values, conditions=m.conditions)
        return self.table().set_index("id").loc[list(measurements), ["reported", "measured", "ci", "verdict"]]

    def record_attack(self, name: str, result: Any, baseline: Any = None) -> None:
        """Keep an attack's :class:`~anonlab.measures.AttackResult` (and its baseline) for the yardstick."""
        if not name:
            raise ValueError("record_attack needs a name")
        self.attacks[name] = {"result": result, "baseline": baseline}
        path = self.path.with_name(f"{self.notebook}{ATTACKS_SUFFIX}")
        atomic_write(path, lambda fh: pickle.dump(self.attacks, fh, protocol=pickle.HIGHEST_PROTOCOL),
                     binary=True)

    def table(self) -> pd.DataFrame:
        """This chapter's recorded claims: id, where, statement, reported, measured, verdict, readings."""
        return claim_rows(self._entries)


def load_attacks(chapter: str, results_dir: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The attack results a chapter recorded: ``{name: {"result": ..., "baseline": ...}}``."""
    d = Path(results_dir) if results_dir is not None else paths.book_dir()
    path = d / f"{chapter}{ATTACKS_SUFFIX}"
    if not path.exists():
        return {}
    with open(path, "rb") as fh:
        return pickle.load(fh)


def read_results(path: str | Path) -> dict[str, Any]:
    """A chapter's ``results.json`` as :meth:`Recorder._write` writes it, or a :class:`ClaimError` naming the file.

    Valid JSON is not enough: the file must be an object with the chapter's ``notebook`` name (a string) and its
    ``results`` (an object of claim id -> entry, each an object). ``null``, ``[1, 2]`` or ``{}`` is a broken record,
    never "no claims measured".

    Raises
    ------
    ClaimError
        One line: ``cannot read the recorded results book/x.results.json (a JSON list, not an object); rerun the
        chapter (python -m anonlab run x)``.
    """
    path = Path(path)
    chapter = path.name[:-len(RESULTS_SUFFIX)] if path.name.endswith(RESULTS_SUFFIX) else path.stem

    def broken(why: str) -> ClaimError:
        return ClaimError(f"cannot read the recorded results {path} ({why}); rerun the chapter "
                          f"(python -m anonlab run {chapter})")

    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except IsADirectoryError:
        raise broken("a folder, not a file") from None
    except (OSError, ValueError) as exc:
        raise broken(f"{type(exc).__name__}: {str(exc)[:120]}") from None
    if not isinstance(payload, dict):
        raise broken(f"a JSON {type(payload).__name__}, not an object")
    if not isinstance(payload.get("notebook"), str) or not isinstance(payload.get("results"), dict):
        raise broken("no 'notebook' name or no 'results' object")
    bad = [cid for cid, r in payload["results"].items() if not isinstance(r, dict)]
    if bad:
        raise broken(f"the entry of {bad[0]!r} is not an object")
    return payload


def collect_results(results_dir: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """All recorded results under ``results_dir`` (default ``book/``), by claim id, with their verdicts.

    A broken file (:func:`read_results`) raises a :class:`ClaimError` naming it.
    """
    d = Path(results_dir) if results_dir is not None else paths.book_dir()
    out: dict[str, dict[str, Any]] = {}
    for f in sorted(d.glob(f"*{RESULTS_SUFFIX}")):
        payload = read_results(f)
        for cid, r in payload["results"].items():
            out[cid] = dict(r, notebook=payload.get("notebook"))
            try:
                out[cid] = with_verdicts(cid, out[cid])
            except ClaimError:
                pass  # an id the ledger no longer has: verdict_table names it
    return out



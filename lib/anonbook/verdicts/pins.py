"""Pinned verdicts: what each chapter's published (default) and quick runs decided, kept in ``tests/verdicts/``.

A verdict is computed by the rules from a recorded measurement; a pin is
the verdict a run gave when it was last looked at and accepted. A change
of code, data or ledger that flips a verdict must say so by updating the
pin in the same commit:

- ``tests/verdicts/<chapter>.json``: the quick preset's verdicts (checked
  by the notebook tests);
- ``tests/verdicts/default/<chapter>.json``: the default run's, i.e. the
  published book's (checked by :func:`check_default_pins` at every book
  build, which fails on a flip the pin does not record).

``python -m anonlab pins`` shows the flips of the recorded default runs;
``python -m anonlab pins --write`` (or ``ANONLAB_UPDATE_VERDICTS=1``
during a build) accepts them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from anonlab import paths
from anonlab.claims.recorder import RESULTS_SUFFIX, collect_results

__all__ = ["pin_path", "recorded_verdicts", "is_default_run", "pin_flips", "check_default_pins", "unchecked_chapters",
           "write_default_pins"]


def pin_path(chapter: str, preset: str = "default") -> Path:
    """``tests/verdicts/default/<chapter>.json`` (published run) or ``tests/verdicts/<chapter>.json`` (quick)."""
    base = paths.project_root() / "tests" / "verdicts"
    return base / "default" / f"{chapter}.json" if preset == "default" else base / f"{chapter}.json"


def recorded_verdicts(chapter: str, results_dir: str | Path | None = None) -> dict[str, str]:
    """Claim id -> verdict (by the rules) of what ``chapter`` recorded under ``results_dir`` (default ``book/``)."""
    return {cid: r["verdict"] for cid, r in sorted(collect_results(results_dir).items())
            if r.get("notebook") == chapter and "verdict" in r}


def is_default_run(chapter: str, results_dir: str | Path | None = None) -> bool:
    """Whether the recorded run of ``chapter`` used the declared defaults (no parameter overridden)."""
    d = Path(results_dir) if results_dir is not None else paths.book_dir()
    meta = d / f"{chapter}.params.json"
    if not meta.exists() or not (d / f"{chapter}{RESULTS_SUFFIX}").exists():
        return False
    try:
        recorded = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if isinstance(recorded.get("run"), dict):  # the run's identity (anonbook.runs): defaults passed explicitly count
        return recorded["run"].get("kind") == "default"
    given = recorded.get("parameters")
    return given == {} or (isinstance(given, dict) and set(given) <= {"use_cache"})


def pin_flips(chapter: str, results_dir: str | Path | None = None,
              preset: str = "default") -> dict[str, tuple[str | None, str | None]]:
    """Claim id -> (pinned, now) for every verdict that differs from the pin (a claim gone: now ``None``)."""
    path = pin_path(chapter, preset)
    want = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    got = recorded_verdicts(chapter, results_dir)
    flips: dict[str, tuple[str | None, str | None]] = {
        cid: (want.get(cid), v) for cid, v in got.items() if want.get(cid) != v}
    flips.update({cid: (v, None) for cid, v in want.items() if cid not in got})
    return flips


def check_default_pins(chapters: Iterable[str], results_dir: str | Path | None = None) -> list[str]:
    """One line per chapter whose default-run verdicts differ from ``tests/verdicts/default/`` (empty: all pinned).

    Chapters last run with other parameters are skipped (a reader's rerun
    is not the published run).
    """
    problems = []
    for ch in chapters:
        if not is_default_run(ch, results_dir):
            continue
        if not pin_path(ch).exists():
            if not recorded_verdicts(ch, results_dir):
                continue  # a chapter with no claims of its own (chapters 9 and 10): nothing to pin
            problems.append(f"{ch}: no pinned default verdicts ({pin_path(ch)}); accept these with "
                            "`python -m anonlab pins --write`")
            continue
        flips = pin_flips(ch, results_dir)
        if flips:
            listed = "; ".join(f"{cid}: {a} -> {b}" for cid, (a, b) in sorted(flips.items()))
            problems.append(f"{ch}: the default run's verdicts differ from {pin_path(ch).relative_to(paths.project_root())}"
                            f" (pinned -> now): {listed}. If the change is meant, accept it with "
                            "`python -m anonlab pins --write` and commit the pin with the change.")
    return problems


def unchecked_chapters(chapters: Iterable[str], results_dir: str | Path | None = None) -> dict[str, str]:
    """Chapter -> why :func:`check_default_pins` does not check it (not run, or its recorded run is not the default)."""
    d = Path(results_dir) if results_dir is not None else paths.book_dir()
    out = {}
    for ch in chapters:
        if is_default_run(ch, results_dir):
            continue
        if not (d / f"{ch}.params.json").exists() or not (d / f"{ch}{RESULTS_SUFFIX}").exists():
            out[ch] = f"no recorded run in {d}"
            continue
        try:
            given = json.loads((d / f"{ch}.params.json").read_text(encoding="utf-8")).get("parameters") or {}
        except (OSError, ValueError):
            out[ch] = f"its {ch}.params.json cannot be read"
            continue
        shown = ", ".join(f"{k} = {v!r}" for k, v in given.items() if k != "use_cache")
        out[ch] = f"its recorded run is not the default ({shown}); pins are of default runs only"
    return out


def write_default_pins(chapters: Iterable[str], results_dir: str | Path | None = None) -> list[str]:
    """Pin the recorded default-run verdicts of ``chapters``; returns the chapters written."""
    written = []
    for ch in chapters:
        if not is_default_run(ch, results_dir):
            continue
        path = pin_path(ch)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(recorded_verdicts(ch, results_dir), indent=1, sort_keys=True) + "\n",
                        encoding="utf-8")
        written.append(ch)
    return written

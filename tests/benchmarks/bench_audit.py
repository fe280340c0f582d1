"""Benchmark of chapter 10's nearest-row attack against Anonymeter's, on the same inputs and the same targets.

Run as ``.venv/bin/python tests/benchmarks/bench_audit.py`` (not collected by pytest; nothing here asserts a
time or an agreement). It needs the peers' environment (``.venv-peers``, ``make peers``), where Anonymeter
1.1.0 runs as released (:mod:`anonbook.peers`). It prints, measured in one run, and writes to
``_build/benchmarks/audit.json``:

* the inputs: chapter 10's default Adult split (members and non-members) and its CART release
  (:func:`anonbook.auditing.default_inputs`), ``--targets`` members as the targets and as many non-members as
  Anonymeter's control set; the attacker knows every column but the secret (``--secret``);
* **time**: the book's :func:`anonlab.attacks.release.nearest_row_attack` on the targets and on the control
  records (what Anonymeter's evaluator attacks), best of ``--repeat``, against Anonymeter's
  ``InferenceEvaluator`` (``evaluate(n_jobs=2)``, timed inside the peers' process, so neither the subprocess
  nor the Parquet files count). Anonymeter compiles its distance with numba on first use, so the release is
  given to it ``--anonymeter-repeat`` times and its best run is compared (each run is reported). The ratio
  is Anonymeter's seconds / the book's (above 1: the book is faster);
* **guesses**: the share of targets (and of control records) for which both attacks guess the same value, and
  each attack's precision on the targets; the same share on the *untied* targets alone (the ties mask,
  :func:`tied`: a target is tied when more than one release row lies at its smallest distance, where the book
  takes the first such row and Anonymeter may take another), and how many are tied. Anonymeter samples its
  targets from ``ori``; given exactly the targets with ``n_attacks`` equal to their number, it attacks each of
  them once. Where the guesses differ, a
  plain Gower distance (:func:`gower_rows`) says whether a release row holding Anonymeter's guess lies at
  the book's smallest distance (a tie broken another way: the book takes the first such row) or not.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time

import numpy as np
import pandas as pd

from anonlab import paths
from anonlab.attacks.release import nearest_row_attack
from anonlab.measures.nonmember import attribute_kinds
from anonbook import peers
from anonbook.auditing import default_inputs

RELEASE = "CART synthetic"


def timed(fn, *args, repeat: int = 1, **kw):
    best, out = math.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(*args, **kw)
        best = min(best, time.perf_counter() - t0)
    return out, best


def gower_rows(release: pd.DataFrame, rows: pd.DataFrame, columns: list[str], kinds: dict[str, str]) -> np.ndarray:
    """Plain Gower distances (rows × release rows, numeric ranges over both tables), the reference twin of
    :func:`anonlab.attacks.release.gower_nearest` for the few rows where the two attacks disagree."""
    d = np.zeros((len(rows), len(release)))
    for c in columns:
        a, b = rows[c].to_numpy(), release[c].to_numpy()
        if kinds.get(c) == "continuous":
            a, b = a.astype(float), b.astype(float)
            span = (max(a.max(), b.max()) - min(a.min(), b.min())) or 1.0
            d += np.abs(a[:, None] - b[None, :]) / span
        else:
            d += a.astype(str)[:, None] != b.astype(str)[None, :]
    return d / len(columns)


def tied(release: pd.DataFrame, rows: pd.DataFrame, columns: list[str], kinds: dict[str, str],
         chunk: int = 250) -> np.ndarray:
    """The ties mask: rows whose smallest plain Gower distance (:func:`gower_rows`) to the release is shared
    by more than one release row (where the book takes the first and Anonymeter may take another)."""
    out = np.empty(len(rows), dtype=bool)
    for lo in range(0, len(rows), chunk):
        d = gower_rows(release, rows.iloc[lo:lo + chunk], columns, kinds)
        at_best = np.isclose(d, d.min(axis=1, keepdims=True), rtol=0, atol=1e-9)
        out[lo:lo + chunk] = at_best.sum(axis=1) > 1
    return out


def ties(release, rows, book, theirs, secret, columns, kinds) -> dict[str, int]:
    """Of the rows where the guesses differ: how many have a release row holding Anonymeter's guess at the
    book's smallest distance (a tie broken another way), and how many do not."""
    ours = dict(zip(map(str, rows.index), book.prediction))
    differ = [k for k, v in theirs.items() if str(ours[k]) != str(v)]
    if not differ:
        return {"differ": 0, "tie": 0, "not_a_tie": 0}
    by = {str(i): i for i in rows.index}
    sub = rows.loc[[by[k] for k in differ]]
    d = gower_rows(release, sub, columns, kinds)
    best = d.min(axis=1, keepdims=True)
    at_best = np.isclose(d, best, rtol=0, atol=1e-9)
    sec = release[secret].astype(str).to_numpy()
    tie = sum(bool((at_best[i] & (sec == str(theirs[k]))).any()) for i, k in enumerate(differ))
    return {"differ": len(differ), "tie": int(tie), "not_a_tie": len(differ) - int(tie)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", type=int, default=1000, help="targets and control records (default 1000)")
    ap.add_argument("--secret", default="occupation", help="the secret column (default occupation)")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs of the book's attack")
    ap.add_argument("--anonymeter-repeat", type=int, default=3,
                    help="Anonymeter runs on the same release (the first compiles its distance with numba)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    members, non_members, releases = default_inputs(seed=args.seed)
    release = releases[RELEASE]
    rng = np.random.default_rng(args.seed)
    targets = members.iloc[np.sort(rng.choice(len(members), args.targets, replace=False))]
    control = non_members.iloc[np.sort(rng.choice(len(non_members), args.targets, replace=False))]
    known = [c for c in members.columns if c != args.secret]
    kinds = attribute_kinds(pd.concat([members, non_members], ignore_index=True))  # as anonlab.audit does

    def book_attack():
        return (nearest_row_attack(release, targets, args.secret, known, kinds=kinds),
                nearest_row_attack(release, control, args.secret, known, kinds=kinds))

    (book_t, book_c), book_s = timed(book_attack, repeat=args.repeat)

    inputs = peers.PeerInputs(targets=targets, control=control, aux=tuple(known), secret=args.secret,
                              seed=args.seed, releases={f"run {i + 1}": release
                                                        for i in range(args.anonymeter_repeat)})
    with tempfile.TemporaryDirectory(prefix="anonlab-bench-audit-") as tmp:
        t0 = time.perf_counter()
        out = peers.run_peers(inputs, tmp)
        wall = time.perf_counter() - t0
    runs = [out["anonymeter"][f"run {i + 1}"] for i in range(args.anonymeter_repeat)]
    anon = min(runs, key=lambda r: r["seconds"])
    assert all(r["guesses"] == runs[0]["guesses"] for r in runs), "Anonymeter's runs guessed differently"

    def same(book, name: str, rows, mask: np.ndarray | None = None) -> float:
        """Share of the attacked rows (those of ``mask`` only, if given) where both attacks guess alike."""
        theirs = anon["guesses"][name]
        ours = dict(zip(map(str, rows.index), book.prediction))
        keep = set(map(str, rows.index)) if mask is None else set(map(str, rows.index[mask]))
        agree = [str(ours[k]) == str(v) for k, v in theirs.items() if k in keep]
        return float(np.mean(agree)) if agree else math.nan

    tied_t, tied_c = tied(release, targets, known, kinds), tied(release, control, known, kinds)

    n_attacked = len(anon["guesses"]["targets"])
    figures = {
        "inputs": {"members": len(members), "non_members": len(non_members), "release": RELEASE,
                   "release_rows": len(release), "targets": len(targets), "control": len(control),
                   "known_columns": len(known), "secret": args.secret},
        "anonymeter_attacked_every_target_once": n_attacked == len(targets)
        and set(anon["guesses"]["targets"]) == set(map(str, targets.index)),
        "book_seconds": book_s,
        "anonymeter_seconds": anon["seconds"],
        "anonymeter_seconds_each_run": [r["seconds"] for r in runs],
        "anonymeter_subprocess_wall_seconds": wall,
        "ratio_anonymeter_over_book": anon["seconds"] / book_s,
        "same_guess_targets": same(book_t, "targets", targets),
        "same_guess_control": same(book_c, "control", control),
        "tied_targets": int(tied_t.sum()),
        "tied_control": int(tied_c.sum()),
        "same_guess_untied_targets": same(book_t, "targets", targets, ~tied_t),
        "same_guess_untied_control": same(book_c, "control", control, ~tied_c),
        "same_guess_tied_targets": same(book_t, "targets", targets, tied_t),
        "differing_guesses_targets": ties(release, targets, book_t, anon["guesses"]["targets"], args.secret,
                                          known, kinds),
        "differing_guesses_control": ties(release, control, book_c, anon["guesses"]["control"], args.secret,
                                          known, kinds),
        "book_precision_targets": float(book_t.is_correct().mean()),
        "anonymeter_precision_targets": anon["n_success"] / max(n_attacked, 1),
        "anonymeter_version": out["versions"]["anonymeter"],
        "load_average": os.getloadavg(),
        "cores": os.cpu_count(),
    }
    for k, v in figures.items():
        print(f"{k:40s} {v if not isinstance(v, float) else round(v, 4)}")
    dest = paths.project_root() / "_build" / "benchmarks" / "audit.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(figures, indent=1, default=str))
    print(f"written: {dest}")


if __name__ == "__main__":
    main()

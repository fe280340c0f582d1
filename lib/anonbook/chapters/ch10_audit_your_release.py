"""Chapter 10: audit your own release with every attack of the book, against the non-member baseline.

The chapter runs :func:`anonlab.audit.audit` on the reader's files (``members``, ``release``, ``non_members``)
or, with none given, on the book's Adult split and its three default releases
(:func:`anonbook.auditing.default_inputs`). It has no paper claim of its own: it applies the yardstick of
chapters 5 and 9 to a release the reader names, and says in words what an attacker learns beyond what the
non-members already tell (:func:`summary_sentences`, chosen from the numbers by
:mod:`anonbook.chapters.sentences`). ``python -m anonlab audit --html DIR`` runs this chapter
(:mod:`anonbook.cli`), and reads the same audit back from the run's result cache for its JSON report
(:func:`cached_audits`).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonlab.audit import BASELINE, NEAREST, SINGLING, AuditResult, audit
from anonlab.intervals import wilson_interval
from anonlab.validation import Param, ParameterError, ParameterSpec
from anonbook import peers
from anonbook.auditing import DEFAULTS, default_inputs, default_memory
from anonbook.chapters import BASE_MEMORY, Chapter, Exercise
from anonbook.memory import MiB, MemoryEstimate

NAME = "10_audit_your_release"
#: The inputs that are files, in the order of :func:`anonlab.audit.audit`'s arguments.
FILES = ("members", "release", "non_members")
#: One marker per release in the figure (the fourth and later ones reuse them).
MARKERS = "osD^vP"


def _all_files_or_none(values: Mapping[str, Any]) -> None:
    given = [values[k] for k in FILES]
    if any(given) and not all(given):
        raise ParameterError("parameters 'members', 'release' and 'non_members' go together: give all three "
                             "CSV files, or none for the book's Adult releases")


def _file_rows(path: Any) -> int:
    """Rows of a CSV file (its lines but the header), 0 when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return max(sum(1 for _ in fh) - 1, 0)
    except OSError:
        return 0


def peak_memory(values: Mapping[str, Any]) -> MemoryEstimate:
    """Peak memory: the kernel, the three tables and per release a distance block of 32 MB and the models.

    The default (Adult, 7,088 members and as many non-members, three releases) holds about 14,000 rows of 15
    columns several times over. A reader's files are read and estimated by :func:`anonlab.audit.estimate_memory`
    (:func:`anonbook.auditing.audit_memory`: their rows, columns and text values); files the audit cannot read
    are counted by their rows (about 2 KB per row of every table), and the audit then refuses them. With
    ``peers``, the peers' process (:data:`PEERS_MEMORY`).
    """
    peer_bytes = PEERS_MEMORY if values.get("peers", False) else 0
    est = _audit_memory(values)
    return MemoryEstimate(est.bytes + peer_bytes, est.drivers)


#: The peers' process (NumPy 1, numba, Anonymeter and the ALC package) beside the kernel: chapter 9's figure.
PEERS_MEMORY = 450 * MiB


def _audit_memory(values: Mapping[str, Any]) -> MemoryEstimate:
    if not values.get("release"):
        return default_memory()
    from anonlab.audit import AuditInputError, check_inputs
    from anonbook.auditing import audit_memory

    try:
        tables = check_inputs(*(values[k] for k in FILES), list(values["secrets"]), list(values["known"]) or None)
    except AuditInputError:
        rows = sum(_file_rows(values[k]) for k in FILES)
        return MemoryEstimate(BASE_MEMORY + 100 * MiB + rows * 2048)
    return audit_memory(*tables, values["n_targets"], [Path(str(values[k])).name for k in FILES])


CHAPTER = Chapter(
    name=NAME,
    title="Audit your own release: every attack of the book against the non-member baseline",
    parameters=ParameterSpec([
        Param("members", "path", None, "CSV of the records the release was made from (None: the book's Adult "
              "members)", nullable=True),
        Param("release", "path", None, "CSV of the published table with the same columns (None: the three "
              "default Adult releases)", nullable=True),
        Param("non_members", "path", None, "CSV of people of the same population the release never saw (None: "
              "Adult's)", nullable=True),
        Param("secrets", "str_list", list(DEFAULTS["secrets"]), "columns the attacker wants to learn"),
        Param("known", "str_list", [], "columns the attacker knows (empty list: every column but the secret)",
              min_len=0),
        Param("n_targets", "int", DEFAULTS["n_targets"], "members attacked, and non-members for membership "
              "(rows, 20 to 100,000)", low=20, high=100_000),
        Param("seed", "int", DEFAULTS["seed"], "run seed of the split, the synthesizers and the targets", low=0,
              high=2**32 - 1),
        Param("peers", "bool", True, "run Anonymeter and the ALC package on the first release in their "
              "environment (.venv-peers)"),
    ], checks=[_all_files_or_none]),
    quick={"n_targets": 200, "secrets": ["income"]},
    data=("adult-train",),
    memory=peak_memory,
    environment=peers.environment_state,
    goals=("Audit a table release with every attack of the book that applies to it, each against the "
           "non-member baseline on the same targets.",
           "Read precision with its interval beside coverage and PI, and say in words what an attacker learns "
           "beyond what the non-members already tell."),
    assumes="chapter 5 (the non-member baseline and PI) and chapter 9 (one yardstick for every attack).",
    exercises=(
        Exercise("quasi_identifiers_only",
                 {"known": ["age", "sex", "race", "native_country"]},
                 {"first_nearest_pi": "PI of the nearest-row attack on the first release (first secret)",
                  "first_nearest_precision": "its precision",
                  "first_baseline_precision": "the non-member model's precision on the same targets"},
                 explain="The PI {first_nearest_pi:change}: with fewer known columns the nearest release row is "
                         "matched on less, and the non-member model knows less too (its precision "
                         "{first_baseline_precision:change})."),
        Exercise("more_targets",
                 {"n_targets": 1000},
                 {"first_nearest_pi": "PI of the nearest-row attack on the first release (first secret)",
                  "first_nearest_pi_width": "width of its 95 % interval"},
                 explain="The PI {first_nearest_pi:change}; the interval's width {first_nearest_pi_width:change}: "
                         "a Wilson interval narrows about as one over the square root of the targets."),
        Exercise("another_seed",
                 {"seed": 1},
                 {"first_nearest_pi": "PI of the nearest-row attack on the first release (first secret)",
                  "first_nearest_pi_width": "width of its 95 % interval",
                  "n_beyond": "attacks whose PI interval lies above 0"},
                 explain="The PI {first_nearest_pi:change}, against an interval {first_nearest_pi_width@base} "
                         "wide on the quick run; the attacks with a PI interval above 0 go from {n_beyond@base} "
                         "to {n_beyond}. A single run's PI is one draw of the split, the synthesizer and the "
                         "targets: its interval covers the targets' sampling, not the release's."),
    ),
)


def _file_digest(path: Any) -> str:
    """SHA-256 of a file's bytes (the audit's cache key: a changed file is a new audit)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cache_inputs(p: Mapping[str, Any]) -> dict[str, Any]:
    """Everything the audit depends on: the parameters and, for the reader's files, their contents' digests."""
    key = {k: p[k] for k in ("secrets", "known", "n_targets", "seed")}
    for k in FILES:
        key[k] = None if not p[k] else [Path(str(p[k])).name, _file_digest(p[k])]
    return key


def audit_releases(p: Mapping[str, Any], progress: Any = None) -> dict[str, AuditResult]:
    """The run's audits: of the reader's release (named by its file), or of the three default Adult releases."""
    known = list(p["known"]) or None
    common = dict(n_targets=p["n_targets"], seed=p["seed"], progress=progress)
    if p["release"]:
        return {Path(str(p["release"])).name: audit(p["members"], p["release"], p["non_members"],
                                                    list(p["secrets"]), known, **common)}
    members, non_members, releases = default_inputs(seed=p["seed"])
    return {name: audit(members, rel, non_members, list(p["secrets"]), known, **common)
            for name, rel in releases.items()}


def cached_audits(run: Any) -> dict[str, AuditResult]:
    """:func:`audit_releases` of the run's parameters through the run's result cache (the notebook and
    ``python -m anonlab audit --html`` share it, so the report and the page come from one computation)."""
    return run.cached("audit", lambda: audit_releases(run.p, run.progress), **cache_inputs(run.p))


def record_attacks(run: Any, results: Mapping[str, AuditResult]) -> None:
    """Keep every attack and its baseline for the yardstick (``<chapter>.attacks.pkl``), named by release."""
    for name, res in results.items():
        for (attack, secret), (result, base) in res.results.items():
            if attack != BASELINE:
                run.record_attack(f"{name}: {attack} ({secret})", result, base)


def inputs_table(results: Mapping[str, AuditResult]) -> pd.DataFrame:
    """Per release: rows of the members, the release and the non-members, targets, and the generalized columns."""
    rows = [{"release": name, "members": r.inputs["members"], "release rows": r.inputs["release"],
             "non-members": r.inputs["non_members"], "targets": r.inputs["n_targets"],
             "generalized columns": ", ".join(r.inputs["generalized"]) or "none"} for name, r in results.items()]
    return pd.DataFrame(rows).set_index("release")


def _where(row: Mapping[str, Any]) -> str:
    from anonbook.verdicts.yardstick import SHORT_POSITIONS, position

    return SHORT_POSITIONS[position(row)]


def release_table(res: AuditResult) -> pd.DataFrame:
    """One release's yardstick: per attack and secret, precision [interval], coverage, the baseline's precision
    on the same targets, PI [interval] and where the attack stands (beyond, level with or worse than its
    baseline). The book's table formatter joins each value with its interval."""
    t = res.table
    t = t[t["attack"] != BASELINE]
    out = t[["attack", "secret", "precision", "precision_low", "precision_high", "coverage", "baseline_precision",
             "pi", "pi_low", "pi_high"]].copy()
    out[["coverage", "baseline_precision"]] = out[["coverage", "baseline_precision"]].astype(float).round(3)
    out["stands"] = [_where(r) for r in t.to_dict("records")]
    return out.rename(columns={"baseline_precision": "baseline precision"}).reset_index(drop=True)


def show_release_tables(results: Mapping[str, AuditResult]) -> None:
    """Display :func:`release_table` of each release under its name."""
    from IPython.display import Markdown, display

    for name, res in results.items():
        display(Markdown(f"**{name}**: {res.inputs['n_targets']} targets; the attacker knows "
                         f"{_known_words(res)}"))
        display(release_table(res))


def _known_words(res: AuditResult) -> str:
    known = res.inputs["known"]
    return "every column but the secret" if known is None else ", ".join(map(str, known))


def not_applicable_table(results: Mapping[str, AuditResult]) -> pd.DataFrame:
    """The attacks that did not run on each release, with the reason."""
    frames = [res.not_applicable.assign(release=name) for name, res in results.items()]
    t = pd.concat(frames, ignore_index=True)[["release", "attack", "secret", "reason"]]
    t.attrs["missing"] = "every attack applied"
    return t


def figure_table(results: Mapping[str, AuditResult]) -> tuple[pd.DataFrame, dict[str, tuple[str, str]]]:
    """The rows of chapter 9's figure (:func:`anonbook.figures.yardstick.plot_yardstick`): every attack that
    predicted, its release in the role of the paper (one marker each), placed against its baseline."""
    from anonbook.verdicts.yardstick import position

    frames, papers = [], {}
    for i, (name, res) in enumerate(results.items()):
        t = res.table[res.table["attack"] != BASELINE].copy()
        t["paper"], t["recorded"] = name, True
        t["position"] = [position(r) for r in t.to_dict("records")]
        frames.append(t)
        papers[name] = (name, MARKERS[i % len(MARKERS)])
    return pd.concat(frames, ignore_index=True), papers


def plot_precision_coverage(results: Mapping[str, AuditResult]):
    """Chapter 9's precision-against-coverage figure of every attack on every release."""
    from anonbook.figures.yardstick import plot_yardstick

    table, papers = figure_table(results)
    return plot_yardstick(table, papers)


def membership_table(results: Mapping[str, AuditResult]) -> pd.DataFrame:
    """Closest-record membership per release and skew: TPR, FPR, precision [interval], base rate, PI."""
    t = pd.concat([r.membership.assign(release=name) for name, r in results.items()], ignore_index=True)
    return t[["release", "skew_label", "tpr", "fpr", "precision", "precision_low", "precision_high", "base_rate",
              "pi"]].rename(columns={"skew_label": "skew", "base_rate": "base rate"})


# -- the numbers and the plain-words summary -------------------------------------------------------------------

def _inference(res: AuditResult) -> pd.DataFrame:
    t = res.table
    return t[(t["attack"] != BASELINE) & (t["secret"] != "membership") & np.isfinite(t["pi"].astype(float))]


def summary_values(results: Mapping[str, AuditResult]) -> dict[str, Any]:
    """Values the prose and the exercises quote: the releases, the targets, and the nearest-row attack on the
    first release and first secret (precision, the baseline's, PI and its interval's width)."""
    first = next(iter(results.values()))
    secret = first.inputs["secrets"][0]
    out: dict[str, Any] = {"n_releases": len(results), "n_targets": first.inputs["n_targets"],
                           "releases": ", ".join(results), "first_release": next(iter(results)),
                           "first_secret": secret}
    try:
        row = first.row(NEAREST, secret)
        out.update(first_nearest_pi=float(row["pi"]), first_nearest_precision=float(row["precision"]),
                   first_baseline_precision=float(row["baseline_precision"]),
                   first_nearest_pi_width=float(row["pi_high"] - row["pi_low"]))
    except KeyError:  # the first release generalizes the secret: no nearest-row attack
        out.update(first_nearest_pi=float("nan"), first_nearest_precision=float("nan"),
                   first_baseline_precision=float("nan"), first_nearest_pi_width=float("nan"))
    out["n_beyond"] = int(sum((_inference(r)["pi_low"] > 0).sum() for r in results.values()))
    out["n_inference"] = int(sum(len(_inference(r)) for r in results.values()))
    return out


def _known_phrase(known: str) -> str:
    cols = [c for c in str(known).split(", ") if c]
    shown = ", ".join(cols[:4]) + (f" and {len(cols) - 4} more" if len(cols) > 4 else "")
    return f"{len(cols)} of a member's columns ({shown})"


def excess_share(row: Mapping[str, Any]) -> float:
    """Share of the targets an attack is right about beyond the non-member model on the same targets:
    coverage × (precision − baseline precision), from a row of the audit's table.

    >>> excess_share({"coverage": 0.5, "precision": 0.9, "baseline_precision": 0.6})
    0.15000000000000002
    """
    return float(row["coverage"]) * (float(row["precision"]) - float(row["baseline_precision"]))


def summary_sentence(key: str, name: str, res: AuditResult) -> Any:
    """What an attacker learns of the secrets, chosen from the numbers: among the attacks on a secret whose PI
    interval lies above 0, the one right about the most members beyond the non-member model ("an attacker who
    knows X learns Y about Z % of the members beyond what the non-members already tell", Z by :func:`excess_share`);
    with none above 0, the attack with the largest PI, whose interval reaches 0 (nothing learned beyond them).
    """
    from anonbook.chapters.sentences import compare, listing

    t = _inference(res)
    t = t[t["attack"] != SINGLING]
    if t.empty:
        return listing(key, [], some="{items}", none=f"**{name}**: no attack on a secret could be scored on this "
                       "release (see the attacks that do not apply).")
    above = t[t["pi_low"].astype(float) > 0]
    if len(above):
        best = above.loc[max(above.index, key=lambda i: excess_share(above.loc[i]))]
    else:
        best = t.loc[t["pi"].astype(float).idxmax()]
    head = f"**{name}**: "
    return compare(key, float(best["pi_low"]), 0.0, {
        "above": head + f"an attacker who knows {_known_phrase(best['known'])} learns the {best['secret']} of "
                 f"{excess_share(best):.0%} of the members beyond what the non-members already tell: by "
                 f"*{best['attack']}* it guesses for {float(best['coverage']):.0%} of them with precision "
                 f"{float(best['precision']):.2f}, where a model of the non-members is right for "
                 f"{float(best['baseline_precision']):.2f} (PI {float(best['pi']):.2f}, its interval's bottom "
                 "{left:.2f} above 0).",
        "at or below": head + "an attacker learns none of the secrets beyond what the non-members already tell: "
                       f"the attack with the largest PI, *{best['attack']}* of the {best['secret']}, has PI "
                       f"{float(best['pi']):.2f}, and its interval reaches " "{left:.2f}, at or below 0.",
    })


def singling_out_sentence(key: str, res: AuditResult) -> Any | None:
    """Singling out in words: do predicates read off the release isolate members more often than the same
    predicates isolate non-members? ``None`` when singling out did not apply."""
    from anonbook.chapters.sentences import compare

    t = res.table[res.table["attack"] == SINGLING]
    if t.empty or not np.isfinite(float(t["pi"].iloc[0])):
        return None
    r = t.iloc[0]
    return compare(key, float(r["pi_low"]), 0.0, {
        "above": f"Predicates read off the release single out one member for {float(r['precision']):.0%} of "
                 f"them, where the same predicates single out one non-member for "
                 f"{float(r['baseline_precision']):.0%} (PI {float(r['pi']):.2f}, its interval's bottom "
                 "{left:.2f} above 0).",
        "at or below": f"Predicates read off the release single out members no more often than non-members "
                       f"({float(r['precision']):.0%} against {float(r['baseline_precision']):.0%}; PI's "
                       "interval reaches {left:.2f}).",
    })


def membership_sentence(key: str, name: str, res: AuditResult) -> Any:
    """Membership at the largest skew in words: is the closest-record attack's precision interval above the base
    rate (calling everyone a member)?"""
    from anonbook.chapters.sentences import compare

    far = res.membership.iloc[-1]
    if not np.isfinite(float(far["precision_low"])):
        return compare(key, 0.0, float(far["base_rate"]), {
            "at or below": f"At {far['skew_label']} no one is called a member of the {name}."})
    return compare(key, float(far["precision_low"]), float(far["base_rate"]), {
        "above": f"At {far['skew_label']}, membership by the closest release record is right for "
                 f"{float(far['precision']):.3f} of those it calls members, its interval's bottom " "{left:.3f} "
                 "above the base rate {right:.3f}: the release tells its members from non-members.",
        "at or below": f"At {far['skew_label']}, membership by the closest release record is right for "
                       f"{float(far['precision']):.3f} of those it calls members; its interval reaches "
                       "{left:.3f}, not above the base rate {right:.3f} of calling everyone a member.",
    })


def summary_sentences(results: Mapping[str, AuditResult]) -> dict[str, list[Any]]:
    """Per release: :func:`summary_sentence`, :func:`singling_out_sentence` (where it applied) and
    :func:`membership_sentence`, keyed ``summary_<i>``, ``singling_<i>``, ``membership_<i>`` (i: the release's
    place, from 1)."""
    out = {}
    for i, (name, res) in enumerate(results.items(), 1):
        said = [summary_sentence(f"summary_{i}", name, res), singling_out_sentence(f"singling_{i}", res),
                membership_sentence(f"membership_{i}", name, res)]
        out[name] = [x for x in said if x is not None]
    return out


def all_sentences(sentences: Mapping[str, list[Any]]) -> list[Any]:
    """Every sentence of :func:`summary_sentences`, in order (for the kit's ``glue_sentences``)."""
    return [x for said in sentences.values() for x in said]


def summary_markdown(sentences: Mapping[str, list[Any]]) -> str:
    """The sentences as one Markdown list, an item per release."""
    return "\n".join("* " + " ".join(x.text for x in said) for said in sentences.values())


# -- the peers (Anonymeter and the ALC package) on the first release, beside the book's numbers -----------------

def _relabel(df: pd.DataFrame, prefix: str) -> pd.DataFrame:
    return df.set_axis([f"{prefix}{i}" for i in df.index], axis=0)


def _relabel_result(res: Any, prefix: str) -> Any:
    from dataclasses import replace

    return replace(res, targets=np.array([f"{prefix}{t}" for t in res.targets], dtype=object))


def peer_inputs(p: Mapping[str, Any], results: Mapping[str, AuditResult]) -> tuple[Any, str]:
    """The peers' inputs for the first release and first secret: the audit's own targets (members), as many
    non-members as Anonymeter's control records (drawn from the stream ``audit.peers``), the columns the
    book's nearest-row attack knew, the audit's non-member model as the baseline on the targets, and the book's
    nearest-row attack scored by the peers too. Row labels get a prefix (``m``, ``n``) so that members and
    non-members read from files with the same row numbers stay apart. ``(None, why)`` when there is no
    nearest-row attack to compare (the release generalizes the secret or every known column)."""
    from anonlab.audit import check_inputs
    from anonlab.streams import stream
    from anonbook.peers import PeerInputs

    name, res = next(iter(results.items()))
    secret = res.inputs["secrets"][0]
    if (NEAREST, secret) not in res.results:
        return None, f"the nearest-row attack did not run on {name} (see the attacks that do not apply)"
    nearest, base = res.results[(NEAREST, secret)]
    if p["release"]:
        members, release, non_members = check_inputs(*(p[k] for k in FILES), list(p["secrets"]),
                                                     list(p["known"]) or None)
    else:
        members, non_members, releases = default_inputs(seed=p["seed"])
        release = releases[name]
    known = [c for c in (list(p["known"]) or list(members.columns)) if c != secret
             and c not in res.inputs["generalized"]]
    targets = _relabel(members.loc[nearest.targets], "m")
    rng = stream(p["seed"], "audit.peers")
    control = non_members.iloc[np.sort(rng.choice(len(non_members), min(len(targets), len(non_members)),
                                                  replace=False))]
    book_attack, book_base = _relabel_result(nearest, "m"), _relabel_result(base, "m")
    return PeerInputs(targets=targets, control=_relabel(control, "n"), releases={name: release[members.columns]},
                      aux=tuple(known), secret=secret, seed=int(p["seed"]), baseline_on_targets=book_base,
                      scored={"nearest release row": (book_attack, book_base)}), ""


def peer_runs(run: Any, results: Mapping[str, AuditResult]) -> tuple[Any, dict[str, Any], str]:
    """The peers on the first release (:func:`peer_inputs`), run in their environment and cached:
    ``(inputs, numbers, why)``; ``numbers`` is empty and ``why`` says why when they did not run (``peers =
    False``, no nearest-row attack, the peers' environment missing, or their run failing)."""
    from anonbook import peers as pt

    if not run.p["peers"]:
        return None, {}, "the peers were not run (peers = False)"
    inputs, why = run.cached("peer_inputs", lambda: peer_inputs(run.p, results), **cache_inputs(run.p))
    if inputs is None:
        return None, {}, why
    try:
        out = run.cached("peers", lambda: pt.run_peers(inputs), **cache_inputs(run.p), env=pt.environment_digest())
    except pt.PeersMissing as exc:
        return inputs, {}, str(exc)
    except pt.PeerError as exc:
        return inputs, {}, "the peers' run failed: " + str(exc).splitlines()[-1][:300]
    return inputs, out, ""


def peer_table(inputs: Any, numbers: Mapping[str, Any]) -> pd.DataFrame:
    """Anonymeter's risk and the ALC beside the book's precision and PI, on the first release's targets.

    Rows: Anonymeter's own nearest-row attack (its guesses) and the book's nearest-row attack (the audit's
    guesses, its counts given to Anonymeter's risk with the non-member model in the control's role). Columns:
    precision on the targets, Anonymeter's risk with its interval, the ALC against the non-member model on the
    same targets and the recall at which the ALC package read the attack, and the book's PI against that model (:func:`anonbook.peers.anonymeter_vs_pi`,
    :func:`anonbook.peers.alc_vs_pi`)."""
    from anonbook import peers as pt

    anon = pt.anonymeter_vs_pi(inputs, numbers).reset_index()
    alc = pt.alc_vs_pi(inputs, numbers)
    name = next(iter(inputs.releases))
    rows = []
    for _, r in anon.iterrows():
        own = r["attack"] == "Anonymeter's nearest-row attack"
        key = f"{name} | baseline model" if own else "nearest release row"
        rows.append({"attack": "Anonymeter's nearest-row attack (its guesses)" if own
                     else "the book's nearest-row attack (the audit's guesses)",
                     "targets": int(r["targets"]), "precision": float(r["precision"]),
                     "Anonymeter risk": float(r["Anonymeter risk"]), "risk low": float(r["risk low"]),
                     "risk high": float(r["risk high"]),
                     "ALC vs non-member model": float(alc.loc[key, "ALC"]) if key in alc.index else math.nan,
                     "ALC's attack recall": float(alc.loc[key, "attack recall"]) if key in alc.index else math.nan,
                     "baseline precision": float(r["baseline precision (same targets)"]),
                     "PI": float(r["PI vs baseline (same targets)"]), "PI low": float(r["PI low"]),
                     "PI high": float(r["PI high"])})
    return pd.DataFrame(rows).set_index("attack").round(3)


#: The widest 95 % Wilson interval of precision at which the ALC package reads a top-n of an attack's
#: predictions (``ScoreInterval.compute_best_prc``'s default ``max_prec_interval``; tests/test_peers.py checks it).
ALC_MAX_PRECISION_INTERVAL = 0.1


def alc_fewest_predictions(precision: float, width: float = ALC_MAX_PRECISION_INTERVAL,
                           confidence: float = 0.95, most: int = 1_000_000) -> int:
    """The fewest predictions n whose Wilson interval at this precision is narrower than ``width``.

    Below it the ALC package finds no top-n to read and reports recall 0.
    >>> alc_fewest_predictions(0.5)
    381
    """
    n = np.arange(1, most + 1)
    low, high = wilson_interval(np.round(precision * n), n, confidence)
    narrow = np.flatnonzero(np.asarray(high) - np.asarray(low) < width)
    return int(n[narrow[0]]) if len(narrow) else most


def alc_recall_zero_text(table: pd.DataFrame) -> str:
    """Why the ALC package read an attack at recall 0, from that attack's precision and number of targets."""
    zero = table[table["ALC's attack recall"] <= 0]
    if zero.empty:
        return ""
    needed = max(alc_fewest_predictions(float(p)) for p in zero["precision"])
    return (f" The ALC package reads an attack only on a top-n of its guesses whose 95 % Wilson interval of "
            f"precision is narrower than {ALC_MAX_PRECISION_INTERVAL:g}; at these attacks' precision that needs "
            f"at least {needed} guesses, this run has {int(zero['targets'].max())} targets, and the package found "
            "no top-n narrow enough: it reports recall 0 for the attack. Its ALC then compares the non-member model's best point with "
            "no point of the attack: it says nothing about the attack. A run with `n_targets` of "
            f"{needed} or more gives the package enough guesses at this precision.")


def peer_sentence(table: pd.DataFrame | None, why: str, name: str) -> str:
    """The peers' numbers in words, or plainly why they are not on the page."""
    if table is None or table.empty:
        return (f"Anonymeter and the ALC package were not run on this page: {why}. The book's numbers above "
                "do not depend on them.")
    own = table.iloc[0]
    book = table.iloc[-1]
    kept = alc_recall_zero_text(table)
    return (f"On the same {int(own['targets'])} targets of the {name}, Anonymeter's own nearest-row attack is right "
            f"for {own['precision']:.2f} of them and reports a risk of {own['Anonymeter risk']:.2f} "
            f"[{own['risk low']:.2f}, {own['risk high']:.2f}] against its control records; against the non-member "
            f"model on the same targets its PI is {own['PI']:.2f} and its ALC {own['ALC vs non-member model']:.2f}. "
            f"The book's nearest-row attack is right for {book['precision']:.2f} (PI {book['PI']:.2f}, ALC "
            f"{book['ALC vs non-member model']:.2f})." + kept)

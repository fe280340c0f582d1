"""The book machine's side of :func:`anonlab.audit.audit`: the default inputs, the run and its report.

The defaults are the book's Adult split (chapter 5's table and :func:`~anonlab.measures.nonmember.split_members`,
with as many non-members as members so that every attack has its baseline) and three releases of the members:
chapter 5's CART synthesizer, a Gaussian copula (:mod:`anonlab.mechanisms.copula`) and a k-anonymous
generalized extract (chapter 1's ladder, then suppression of classes smaller than k).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from anonlab.audit import AuditResult, audit, check_inputs, estimate_memory

#: The defaults: Adult's income and occupation as the secrets, 7,088 members (chapter 5's) and as many
#: non-members, chapter 1's ladder level 3 and k = 4 for the extract, 1,000 targets.
DEFAULTS: dict[str, Any] = {"secrets": ["income", "occupation"], "n_members": 7088, "n_non_members": 7088,
                            "level": 3, "k": 4, "age_width": 10, "n_targets": 1000, "seed": 0}
#: The quasi-identifiers of chapter 1's extract.
EXTRACT_QIS = ("age", "sex", "race", "native_country")


def default_inputs(n_members: int = DEFAULTS["n_members"], n_non_members: int = DEFAULTS["n_non_members"],
                   level: int = DEFAULTS["level"], k: int = DEFAULTS["k"], age_width: int = DEFAULTS["age_width"],
                   seed: int = DEFAULTS["seed"]) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, pd.DataFrame]]:
    """Members, non-members and the three default releases (CART, copula, k-anonymous extract) of Adult."""
    from anonlab.measures.nonmember import split_members
    from anonlab.mechanisms.copula import copula_synthesize
    from anonlab.mechanisms.synthesis import cart_synthesize
    from anonlab.mechanisms.syntactic import generalize, suppress_small_classes
    from anonlab.streams import stream
    from anonbook.chapters.ch01_syntactic_anonymity import adult_ladder
    from anonbook.chapters.ch05_nonmember_framework import load_table

    table, _ = load_table("adult", n_rows=n_members + n_non_members, seed=seed)
    split = split_members(table, n_members, n_non_members, seed=seed)
    members, non_members = table.loc[split.members], table.loc[split.non_members]
    extract = suppress_small_classes(generalize(members, **adult_ladder(members, age_width)[level]),
                                     list(EXTRACT_QIS), k).table
    releases = {"CART synthetic": cart_synthesize(members, seed=stream(seed, "audit.cart")),
                "Gaussian copula synthetic": copula_synthesize(members, seed=stream(seed, "audit.copula")),
                f"{k}-anonymous extract (level {level})": extract}
    return members, non_members, releases


def report_dict(results: Mapping[str, AuditResult]) -> dict[str, Any]:
    """One JSON-able report of several releases' audits."""
    return {"releases": {name: res.as_dict() for name, res in results.items()}}


def write_report(results: Mapping[str, AuditResult], path: str | Path) -> Path:
    """Write the releases' audits as JSON to ``path`` (folders made); return the path."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report_dict(results), indent=1, default=str))
    return out


def default_memory() -> Any:
    """The default audit's estimated peak (chapter 10's run): a kernel with the library, the three releases' distance
    blocks and models (40 MB each), and about 2 KB for each row of the members (four times: the members and the
    three releases) and of the non-members."""
    from anonbook.chapters import BASE_MEMORY
    from anonbook.memory import MiB, MemoryEstimate

    rows = DEFAULTS["n_members"] * 4 + DEFAULTS["n_non_members"]
    return MemoryEstimate(BASE_MEMORY + 60 * MiB + 3 * 40 * MiB + rows * 2048)


def audit_memory(members: pd.DataFrame, release: pd.DataFrame, non_members: pd.DataFrame, n_targets: int,
                 names: Sequence[str] = ("members", "release", "non_members")) -> Any:
    """The audit's estimated peak (:func:`anonlab.audit.estimate_memory` and a kernel with the library), as an
    :class:`anonbook.memory.MemoryEstimate` whose drivers are each input's rows (named by ``names``, the files)
    and the targets."""
    from anonbook.chapters import BASE_MEMORY
    from anonbook.memory import MemoryEstimate

    drivers: dict[str, Any] = {f"rows of {name}": len(df) for name, df in zip(names, (members, release, non_members))}
    drivers["columns"], drivers["n_targets"] = members.shape[1], int(n_targets)
    return MemoryEstimate(BASE_MEMORY + estimate_memory(members, release, non_members, n_targets), drivers)


def run_audit(members: str | None, release: str | None, non_members: str | None, secrets: Sequence[str],
              known: Sequence[str] | None, *, n_targets: int = DEFAULTS["n_targets"], seed: int = DEFAULTS["seed"],
              progress: Any = None, mapper: Any = None) -> dict[str, AuditResult]:
    """Audit the given CSV files, or, with none of them, the three default releases of Adult; ``mapper``: the
    attacks' target loop on an executor (:func:`anonbook.sweep.dask_executor`'s ``map`` for a Dask cluster)."""
    given = [members, release, non_members]
    if any(given) and not all(given):
        raise ValueError("give --members, --release and --non-members together (or none, for the defaults)")
    if all(given):
        if not secrets:
            raise ValueError("name the secret column(s) with --secret")
        from anonbook.memory import check_fits

        names = [Path(str(f)).name for f in given]
        m, r, n = check_inputs(members, release, non_members, list(secrets), known)  # bad input fails first
        check_fits(f"the audit of {names[1]}", audit_memory(m, r, n, n_targets, names))  # then one too large
        return {names[1]: audit(m, r, n, list(secrets), known, n_targets=n_targets, seed=seed, progress=progress,
                                mapper=mapper)}
    from anonbook.memory import check_fits

    check_fits("the audit of the default releases", default_memory())
    mem, non, releases = default_inputs(seed=seed)
    secrets = list(secrets) or DEFAULTS["secrets"]
    return {name: audit(mem, rel, non, secrets, known, n_targets=n_targets, seed=seed, progress=progress,
                        mapper=mapper) for name, rel in releases.items()}

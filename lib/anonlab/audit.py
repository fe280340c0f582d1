"""Audit a table release: every attack of the book that applies to it, against the non-member baseline ([FW24] §4).

:func:`audit` takes the *members* (what the release was made from), the *release* (a synthetic copy or a generalized /
suppressed extract, same columns) and *non-members*; it runs each applicable attack of :mod:`anonlab.attacks.release`
on members drawn as targets and scores it (:func:`anonlab.measures.score`: precision with Wilson interval, coverage,
baseline precision, PI, Eq 6). Bad input fails first in :func:`check_inputs` (:class:`AuditInputError`, naming file
and column). [FW24] P. Francis and D. Wagner, arXiv:2403.06595 (2024).

>>> rng = np.random.default_rng(0)
>>> people = pd.DataFrame({"job": rng.choice(["a", "b", "c"], 400), "age": rng.integers(20, 70, 400)})
>>> people["income"] = np.where(people["job"] == "a", "high", "low")
>>> res = audit(people[:200], people[:200], people[200:], ["income"], n_targets=100)
>>> float(res.row("nearest release row", "income")["precision"])
1.0
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonlab.intervals import wilson_interval
from anonlab.measures.nonmember import CONTINUOUS, ModelSettings, attribute_kinds
from anonlab.measures.protocol import MEMBER_SHARE, AttackResult, score
from anonlab.measures.rates import precision_improvement
from anonlab.progress import Progress, report
from anonlab.streams import stream

__all__ = ["AuditInputError", "AuditResult", "audit", "check_inputs", "read_table", "rows_for_half_width",
           "generalized_columns", "estimate_memory", "ROLES"]

#: The three inputs, in the order of :func:`audit`'s arguments.
ROLES = ("members", "release", "non_members")
#: The widest interval half-width the audit accepts for a rate measured on the non-members.
MAX_HALF_WIDTH = 0.1
#: A value of a generalized extract that stands for "suppressed" in a numeric column.
SUPPRESSED = "*"

Table = pd.DataFrame | str | os.PathLike


class AuditInputError(ValueError):
    """An input the audit cannot use; ``file`` and ``column`` say where (``None`` when not one column)."""

    def __init__(self, message: str, file: str | None = None, column: str | None = None) -> None:
        super().__init__(message)
        self.file, self.column = file, column


def read_table(path: str | os.PathLike, name: str | None = None) -> pd.DataFrame:
    """Read a CSV file (header row, comma-separated) as a table of at least one row and two columns.

    ``AuditInputError`` naming the file when it is missing or is not such a table.
    """
    name = name or Path(path).name
    try:
        df = pd.read_csv(path)
    except FileNotFoundError:
        raise AuditInputError(f"{name}: no such file ({path})", name) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as e:
        raise AuditInputError(f"{name} is not a table (a CSV file with a header row): "
                              f"{str(e).splitlines()[0][:200]}", name) from None
    if df.shape[1] < 2 or len(df) == 0:
        raise AuditInputError(f"{name} is not a table: it has {len(df)} row(s) and {df.shape[1]} column(s); "
                              "an audit needs rows and at least a secret and a known column", name)
    return df


def rows_for_half_width(half_width: float = MAX_HALF_WIDTH, confidence: float = 0.95) -> int:
    """The fewest rows for which a Wilson interval (:func:`anonlab.intervals.wilson_interval`) is at most
    ± ``half_width`` wide at every proportion (the widest is at p = 0.5).

    >>> rows_for_half_width(0.1)
    93
    """
    n = np.arange(1, 1_000_001, dtype=float)
    low, high = wilson_interval(n / 2, n, confidence)
    return int(n[np.argmax((np.asarray(high) - np.asarray(low)) / 2 <= half_width)])


def _numeric_share(col: pd.Series) -> tuple[float, pd.Series]:
    """Share of the non-missing values that read as numbers, and the numbers (NaN where they do not)."""
    values = col.dropna()
    num = pd.to_numeric(values, errors="coerce")
    return (float(num.notna().mean()) if len(values) else 0.0), num


def _is_numeric(col: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)


def _check_types(frames: Mapping[str, pd.DataFrame], names: Mapping[str, str]) -> None:
    """Every column numeric or text alike in members and non-members; no column half numbers, half text."""
    for role, df in frames.items():
        for c in df.columns:
            if _is_numeric(df[c]):
                continue
            share, num = _numeric_share(df[c])
            if share == 0:
                continue
            bad = num.isna() & ~(df[c].dropna().astype(str).str.strip() == SUPPRESSED if role == "release" else False)
            if share >= 0.5 and bad.any():
                row = bad.index[np.argmax(bad.to_numpy())]
                raise AuditInputError(
                    f"column {c!r} of {names[role]}: value {df[c][row]!r} (row {row}) is not a number, while "
                    f"{share:.0%} of the column are; fix or remove it", names[role], c)
    for c in frames["members"].columns:
        a, b = _is_numeric(frames["members"][c]), _is_numeric(frames["non_members"][c])
        if a != b:
            raise AuditInputError(
                f"column {c!r} is {'numeric' if a else 'text'} in {names['members']} but "
                f"{'numeric' if b else 'text'} in {names['non_members']}: the two must be records of the same "
                "kind", names["non_members"], c)


def generalized_columns(members: pd.DataFrame, release: pd.DataFrame) -> list[str]:
    """Columns whose release values are not values of the members' kind: text in a numeric column, or a text
    value no member has (a range "[20, 30)", a parent "non-US", "*"): the marks of a generalized extract."""
    out = []
    for c in members.columns:
        if _is_numeric(members[c]):
            if not _is_numeric(release[c]):
                out.append(c)
        elif not release[c].dropna().astype(str).isin(set(members[c].dropna().astype(str))).all():
            out.append(c)
    return out


def check_inputs(members: Table, release: Table, non_members: Table, secrets: Sequence[str],
                 known: Sequence[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Read and check the three inputs; return them as tables, or raise :class:`AuditInputError`.

    Checked, in this order: each is a table (:func:`read_table` for a path); the three have the same columns; every
    secret and known column exists; no secret is known; no secret is empty or constant among the members; there are
    enough non-members for an interval of ± :data:`MAX_HALF_WIDTH` (:func:`rows_for_half_width`); no column mixes
    numbers and text, and members and non-members agree on which columns are numeric.
    """
    inputs = dict(zip(ROLES, (members, release, non_members)))
    names = {r: (Path(v).name if not isinstance(v, pd.DataFrame) else r) for r, v in inputs.items()}
    frames: dict[str, pd.DataFrame] = {}
    for role, value in inputs.items():
        if isinstance(value, pd.DataFrame):
            if value.shape[1] < 2 or len(value) == 0:
                raise AuditInputError(f"{role} is not a table: it has {len(value)} row(s) and {value.shape[1]} "
                                      "column(s)", role)
            frames[role] = value
        elif isinstance(value, (str, os.PathLike)):
            frames[role] = read_table(value, names[role])
        else:
            raise AuditInputError(f"{role} must be a table (a pandas DataFrame or a CSV path), got "
                                  f"{type(value).__name__}", role)
    cols = list(frames["members"].columns)
    for role in ("release", "non_members"):
        lacks = [c for c in cols if c not in frames[role].columns]
        extra = [c for c in frames[role].columns if c not in cols]
        if lacks or extra:
            what = [f"lacks {', '.join(map(repr, lacks))}"] if lacks else []
            what += [f"has {', '.join(map(repr, extra))}, which {names['members']} lacks"] if extra else []
            raise AuditInputError(f"the columns differ: {names[role]} {' and '.join(what)}", names[role],
                                  (lacks or extra)[0])
    secrets = [secrets] if isinstance(secrets, str) else list(secrets)
    if not secrets:
        raise AuditInputError("name at least one secret column (what the attacker wants to learn)")
    for s in secrets:
        if s not in cols:
            raise AuditInputError(f"secret {s!r} is not a column of {names['members']}; its columns: "
                                  f"{', '.join(map(str, cols))}", names["members"], s)
    for k in known or []:
        if k not in cols:
            raise AuditInputError(f"known column {k!r} is not a column of {names['members']}; its columns: "
                                  f"{', '.join(map(str, cols))}", names["members"], k)
        if k in secrets:
            raise AuditInputError(f"secret {k!r} is among the known columns: an attacker who knows it has "
                                  "nothing to learn; remove it from known", names["members"], k)
    for s in secrets:
        values = frames["members"][s].dropna()
        if values.empty:
            raise AuditInputError(f"secret {s!r} of {names['members']} is empty (every value is missing)",
                                  names["members"], s)
        if values.nunique() == 1:
            raise AuditInputError(f"secret {s!r} of {names['members']} is constant ({values.iloc[0]!r} in every "
                                  "row): there is nothing to infer", names["members"], s)
    need = rows_for_half_width(MAX_HALF_WIDTH)
    if len(frames["non_members"]) < need:
        raise AuditInputError(
            f"{names['non_members']} has {len(frames['non_members'])} rows; an interval narrower than "
            f"±{MAX_HALF_WIDTH} (Wilson, 95 %) needs at least {need}", names["non_members"])
    _check_types(frames, names)
    return frames["members"], frames["release"], frames["non_members"]


def estimate_memory(members: pd.DataFrame, release: pd.DataFrame, non_members: pd.DataFrame,
                    n_targets: int = 1000) -> int:
    r"""Bytes :func:`audit` is estimated to hold at its peak on these (checked) tables, beyond the interpreter.

    .. math:: 4S + 8w\,(n_r + 2\max(n_r, n_n) + 2t) + 32\max(b, n_r)

    :math:`S`: the tables' deep ``memory_usage`` (4 copies); :math:`w`: one-hot width (a column per text value of the
    members and release, one per numeric column); :math:`n_r, n_n`: release and non-member rows; :math:`t`:
    ``n_targets``; 8-byte indicator and design matrices; four float64 distance blocks of :math:`b` = 4,000,000 entries
    (:func:`anonlab.attacks.release.gower_nearest`).

    >>> t = pd.DataFrame({"job": ["a", "b"] * 500, "age": range(1000)})
    >>> 100 * 2**20 < estimate_memory(t, t, t) < 200 * 2**20
    True
    """
    from anonlab.attacks.release import _BLOCK

    frames = (members, release, non_members)
    size = sum(int(df.memory_usage(deep=True).sum()) for df in frames)
    width = 0
    for c in members.columns:
        if _is_numeric(members[c]) and _is_numeric(release[c]):
            width += 1
        else:
            width += int(pd.concat([members[c], release[c]], ignore_index=True).astype(str).nunique())
    n_m, n_r, n_n = len(members), len(release), len(non_members)
    t = min(int(n_targets), n_m)
    return int(4 * size + 8 * width * (n_r + 2 * max(n_r, n_n) + 2 * t) + 32 * max(_BLOCK, n_r))


@dataclass(frozen=True)
class AuditResult:
    """What :func:`audit` found.

    Attributes: ``table``: One row per attack and secret: ``attack``, ``secret``, ``known``, ``targets``,
    ``predictions``, ``precision`` (with ``precision_low``/``precision_high``), ``coverage``, ``baseline``,
    ``baseline_kind``, ``baseline_precision``, ``pi`` (with ``pi_low``/``pi_high``). ``not_applicable``: ``attack``,
    ``secret``, ``reason``: the attacks that do not apply to these inputs. ``membership``: Closest-record membership
    at each skew (:func:`~anonlab.attacks.release.closest_record_membership`). ``results``: ``(attack, secret) ->
    (result, baseline)``, per target. ``inputs``: Rows of each input, secrets, known columns, generalized columns,
    targets, seed.
    """

    table: pd.DataFrame
    not_applicable: pd.DataFrame
    membership: pd.DataFrame
    results: Mapping[tuple[str, str], tuple[AttackResult, AttackResult]] = field(repr=False)
    inputs: Mapping[str, Any]

    def row(self, attack: str, secret: str) -> pd.Series:
        """The table's row of one attack and secret (``KeyError`` if it did not run)."""
        hit = self.table[(self.table["attack"] == attack) & (self.table["secret"] == secret)]
        if hit.empty:
            raise KeyError(f"no row for attack {attack!r} and secret {secret!r}")
        return hit.iloc[0]

    def as_dict(self) -> dict[str, Any]:
        """Plain data for a JSON report (NaN as None)."""
        clean = lambda df: df.astype(object).where(df.notna(), None).to_dict(orient="records")  # noqa: E731
        return {"inputs": dict(self.inputs), "attacks": clean(self.table),
                "not_applicable": clean(self.not_applicable), "membership": clean(self.membership)}


NEAREST, MODEL, BASELINE = "nearest release row", "model trained on the release", "non-member model"
HOMOGENEITY, SINGLING, MEMBERSHIP = "homogeneity", "singling out", "closest release record (membership)"


def _aligned(members: pd.DataFrame, release: pd.DataFrame, generalized: Sequence[str]) -> bool:
    """Does every release row carry a member's row label and that member's values in its ungeneralized columns?"""
    if not release.index.is_unique or not release.index.isin(members.index).all():
        return False
    exact = [c for c in members.columns if c not in generalized]
    mine = members.loc[release.index, exact].astype(str).to_numpy()
    return bool((mine == release[exact].astype(str).to_numpy()).all())


def audit(members: Table, release: Table, non_members: Table, secrets: Sequence[str],
          known: Sequence[str] | None = None, n_targets: int = 1000, seed: int = 0,
          progress: Progress | None = None, *, settings: ModelSettings = ModelSettings(),
          skews: Sequence[float | str] = ("1:1", "1:30", "1:240"), mapper: Any = None) -> AuditResult:
    """Run every attack that applies to ``release`` on ``n_targets`` members, each against the non-member baseline.

    Parameters: ``members``, ``release``, ``non_members``: Tables (DataFrames or CSV paths, :func:`check_inputs`) with
    the same columns. ``secrets``: Columns the attacker wants to learn; one row per attack and secret. ``known``: What
    the attacker knows about each target (default: every column but the secret). ``n_targets``: Members attacked
    (drawn at random; all if fewer), and non-members for the membership attack. ``seed``: Run seed of the named
    streams ``audit.targets``, ``audit.singling_out``, ``audit.membership``. ``progress``: Called with one line per
    step (:mod:`anonlab.progress`). ``settings``: The baseline's models and tolerance ([FW24] §4.4), shared by every
    model and continuous guess. ``skews``: Member:non-member skews at which membership precision is read ([FW24] §5;
    chapter 7's by default). ``mapper``: An executor's map (``mapper(fn, chunks)``, results in order) for the attacks'
    target loop: the distances of the nearest-row and closest-record attacks run chunk by chunk there
    (:func:`anonlab.attacks.release.gower_nearest`); ``None``: in this process. The numbers are the same.
    """
    from anonlab.attacks import release as atk

    m, r, n = check_inputs(members, release, non_members, secrets, known)
    secrets = [secrets] if isinstance(secrets, str) else list(secrets)
    cols = list(m.columns)
    r, n = r[cols], n[cols]
    kinds = attribute_kinds(pd.concat([m, n], ignore_index=True))
    generalized = generalized_columns(m, r)
    exact = [c for c in cols if c not in generalized]
    rng = stream(seed, "audit.targets")
    tgt = m.iloc[np.sort(rng.choice(len(m), size=min(int(n_targets), len(m)), replace=False))]
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    results: dict[tuple[str, str], tuple[AttackResult, AttackResult]] = {}

    def add(name: str, secret: str, known_cols: Sequence[str], res: AttackResult, base: AttackResult) -> None:
        s = score(res, base)
        row = s.as_dict()
        row.update(attack=name, secret=secret, known=", ".join(map(str, known_cols)))
        rows.append(row)
        results[(name, secret)] = (res, base)

    aligned = bool(generalized) and _aligned(m, r, generalized)
    for i, secret in enumerate(secrets):
        report(progress, f"audit: secret {i + 1}/{len(secrets)} ({secret}), {len(tgt)} targets")
        k_all = [c for c in (known if known is not None else cols) if c != secret]
        usable = [c for c in k_all if c not in generalized]
        span = None
        if kinds[secret] == CONTINUOUS:
            t = pd.to_numeric(tgt[secret], errors="coerce")
            span = float(t.max() - t.min())
        common = dict(kinds=kinds, settings=settings, value_range=span)
        base = atk.nonmember_model(n, tgt, secret, k_all, **common)
        add(BASELINE, secret, k_all, base, base)
        if secret in generalized:
            for name in (NEAREST, MODEL):
                skipped.append({"attack": name, "secret": secret,
                                "reason": f"the release generalizes the secret {secret!r}: its values are not "
                                          "the members' values"})
        elif not usable:
            for name in (NEAREST, MODEL):
                skipped.append({"attack": name, "secret": secret,
                                "reason": "every known column is generalized in the release"})
        else:
            add(NEAREST, secret, usable, atk.nearest_row_attack(r, tgt, secret, usable, mapper=mapper, **common), base)
            add(MODEL, secret, usable, atk.release_model_attack(r, tgt, secret, usable, **common), base)
        gen_known = [c for c in k_all if c in generalized]
        if not gen_known:
            skipped.append({"attack": HOMOGENEITY, "secret": secret,
                            "reason": "no known column is generalized: the release is not a generalized extract"})
        elif secret in generalized or not aligned:
            skipped.append({"attack": HOMOGENEITY, "secret": secret,
                            "reason": "the release's rows are not the members' rows recoded (a generalized "
                                      "extract keeps each member's row label and ungeneralized values)"})
        else:
            add(HOMOGENEITY, secret, k_all, atk.homogeneity_release_attack(r, tgt, secret, k_all), base)

    report(progress, "audit: singling out")
    if len(n) < len(m):
        skipped.append({"attack": SINGLING, "secret": "(any)",
                        "reason": f"the baseline needs as many non-members as members ({len(m)}); there are "
                                  f"{len(n)}"})
    else:
        so_rng = stream(seed, "audit.singling_out")
        so, keys = atk.singling_out_attack(r, m, exact, kinds=kinds, n_predicates=int(n_targets), rng=so_rng)
        if so.n_targets == 0:
            skipped.append({"attack": SINGLING, "secret": "(any)",
                            "reason": "no release row is unique on its ungeneralized columns"})
        else:
            so_base = atk.singling_out_baseline(so, keys, n, exact, kinds=kinds, n_members=len(m), rng=so_rng)
            add(SINGLING, "(any)", exact, so, so_base)

    report(progress, "audit: membership by the closest release record")
    mrng = stream(seed, "audit.membership")
    nm_t = n.iloc[np.sort(mrng.choice(len(n), size=min(int(n_targets), len(n)), replace=False))]
    membership = atk.closest_record_membership(r, tgt, nm_t, exact, kinds=kinds, skews=skews, mapper=mapper)
    for _, mr in membership.iterrows():
        rows.append({"attack": f"{MEMBERSHIP}, {mr['skew_label']}", "secret": "membership",
                     "known": ", ".join(map(str, exact)), "targets": int(mr["members"] + mr["non_members"]),
                     "predictions": int(mr["tp"] + mr["fp"]),
                     "precision": mr["precision"], "precision_low": mr["precision_low"],
                     "precision_high": mr["precision_high"],
                     "coverage": (mr["tp"] + mr["fp"]) / (mr["members"] + mr["non_members"]),
                     "baseline": "everyone is a member", "baseline_kind": MEMBER_SHARE,
                     "baseline_precision": mr["base_rate"], "pi": mr["pi"],
                     "pi_low": precision_improvement(mr["precision_low"], mr["base_rate"]),
                     "pi_high": precision_improvement(mr["precision_high"], mr["base_rate"])})
    order = ["attack", "secret", "known", "targets", "predictions", "precision", "precision_low", "precision_high",
             "coverage", "baseline", "baseline_kind", "baseline_precision", "pi", "pi_low", "pi_high"]
    table = pd.DataFrame(rows).reindex(columns=order)
    inputs = {"members": len(m), "release": len(r), "non_members": len(n), "secrets": secrets,
              "known": None if known is None else list(known), "generalized": generalized,
              "n_targets": int(len(tgt)), "seed": int(seed)}
    return AuditResult(table, pd.DataFrame(skipped, columns=["attack", "secret", "reason"]), membership,
                       results, inputs)

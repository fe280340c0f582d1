"""The homogeneity attack on a k-anonymous table, and its background-knowledge variant.

Machanavajjhala et al., "l-diversity", ACM TKDD 1(1), 2007 ("homogeneity attack"; CMU 18-734 slides, "What is the
issue with k-anonymity?"): knowing a target's quasi-identifiers, the attacker finds its equivalence class; if one
sensitive value remains after ruling out what background knowledge excludes (their Umeko: no heart disease), it is
disclosed, however large the class. Scored with the book's protocol (:meth:`HomogeneityResult.as_attack_result`,
:func:`anonlab.measures.score`) against e.g. :func:`anonlab.measures.majority_baseline`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anonlab.measures.protocol import AttackResult
from anonlab.measures.syntactic import check_release

__all__ = ["HomogeneityResult", "homogeneity_attack"]


@dataclass(frozen=True)
class HomogeneityResult:
    """Outcome of :func:`homogeneity_attack`: one row per target in ``targets``, and summary counts.

    Columns: ``class_size`` (0 if no class matches), ``n_candidates`` (values left after background knowledge),
    ``disclosed`` (one left), ``inferred``, ``top_value``/``top_share`` (best guess and its posterior, uniform over
    records), ``correct`` (when the targets carry the truth). ``truth`` is ``None`` without it; ``background_facts``
    counts (target, value) pairs.
    """

    targets: pd.DataFrame
    n_targets: int
    n_disclosed: int
    disclosed_fraction: float
    truth: pd.Series | None = None
    background_facts: int = 0

    def as_attack_result(self, name: str = "homogeneity") -> AttackResult:
        """The attack in the book's scoring protocol: a prediction exactly where the value is disclosed.

        ``ValueError`` if the targets did not carry the true sensitive value.

        >>> from anonlab.data.tables import inpatient_4_anonymous, INPATIENT_QUASI_IDENTIFIERS
        >>> from anonlab import measures
        >>> r = homogeneity_attack(inpatient_4_anonymous(), INPATIENT_QUASI_IDENTIFIERS,
        ...                        "condition").as_attack_result()
        >>> s = measures.score(r)
        >>> s.n_predictions, s.precision, round(s.coverage, 3)
        (4, 1.0, 0.333)
        """
        if self.truth is None:
            raise ValueError(
                "the targets carry no true sensitive value, so the attack cannot be scored; "
                "pass targets with the sensitive column (the default, every published record, has it)"
            )
        disclosed = self.targets["disclosed"].to_numpy(dtype=bool)
        return AttackResult(
            name,
            targets=self.targets.index.to_numpy(),
            truth=self.truth.to_numpy(dtype=object),
            predicted=disclosed,
            prediction=self.targets["inferred"].to_numpy(dtype=object),
            resources={"background_facts": self.background_facts},
        )


def _long_exclusions(
    excluded: Mapping[Any, Iterable[Any]] | pd.Series, target_index: pd.Index
) -> pd.DataFrame:
    ser = pd.Series(excluded, dtype=object) if not isinstance(excluded, pd.Series) else excluded
    unknown = [t for t in ser.index if t not in target_index]
    if unknown:
        raise ValueError(
            f"background knowledge names target(s) {unknown[:10]} that are not in the "
            f"targets' index (e.g. {list(target_index[:5])})"
        )
    ser = ser.map(lambda v: [v] if isinstance(v, str) or not isinstance(v, Iterable) else list(v))
    long = ser.explode().dropna()
    return pd.DataFrame({"target": long.index.to_numpy(), "value": long.to_numpy()})


def homogeneity_attack(
    published: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    sensitive_attribute: str,
    targets: pd.DataFrame | None = None,
    *,
    excluded: Mapping[Any, Iterable[Any]] | pd.Series | None = None,
) -> HomogeneityResult:
    """Disclose each target's value when C(x) = {s(t) : t[QI] = x[QI]} minus B(x) holds one value.

    B(x) is ``excluded[x]``, background knowledge (``{3: ["Heart Disease"]}``, a string is one value); with B empty
    this is distinct l-diversity 1. ``targets`` are in the published form (default: every published record); with the
    sensitive column each inference is checked.

    >>> from anonlab.data.tables import inpatient_4_anonymous, INPATIENT_QUASI_IDENTIFIERS
    >>> r = homogeneity_attack(inpatient_4_anonymous(), INPATIENT_QUASI_IDENTIFIERS,
    ...                        "condition")
    >>> r.n_disclosed, round(r.disclosed_fraction, 3)
    (4, 0.333)
    >>> r = homogeneity_attack(inpatient_4_anonymous(), INPATIENT_QUASI_IDENTIFIERS,
    ...                        "condition", excluded={3: "Heart Disease"})   # Umeko
    >>> r.targets.loc[3, "inferred"]
    'Viral Infection'
    """
    qis, sa = check_release(published, quasi_identifiers, sensitive_attribute)
    if targets is None:
        targets = published
    if not isinstance(targets, pd.DataFrame):
        raise TypeError(f"targets must be a pandas DataFrame, got {type(targets).__name__}")
    missing = [c for c in qis if c not in targets.columns]
    if missing:
        raise ValueError(
            f"targets lack quasi-identifier column(s) {missing}; they have {list(targets.columns)}"
        )
    if not targets.index.is_unique:
        raise ValueError("targets must have a unique index (it identifies each target)")

    # (QI values, sensitive value) -> count in the published table
    pub = published[qis + [sa]].astype(object)
    value_counts = pub.groupby(qis + [sa], dropna=False, sort=False).size().rename("n").reset_index()
    tq = targets[qis].astype(object).copy()
    tq["target"] = np.arange(len(targets))
    # one row per (target, candidate value)
    cand = tq.merge(value_counts, on=qis, how="inner")[["target", sa, "n"]]
    cand = cand.rename(columns={sa: "value"})
    class_size = cand.groupby("target")["n"].sum()
    n_facts = 0
    if excluded is not None:
        excl = _long_exclusions(excluded, targets.index)
        n_facts = len(excl)
        excl["target"] = targets.index.get_indexer(excl["target"])
        excl["drop"] = True
        cand = cand.merge(excl, on=["target", "value"], how="left")
        cand = cand[cand["drop"].isna()].drop(columns="drop")
    n_cand = cand.groupby("target").size()
    remaining = cand.groupby("target")["n"].sum()
    top = cand.sort_values(["target", "n"], ascending=[True, False], kind="stable").drop_duplicates(
        "target"
    ).set_index("target")

    pos = pd.RangeIndex(len(targets))
    out = targets[qis].copy()
    out["class_size"] = class_size.reindex(pos, fill_value=0).to_numpy()
    out["n_candidates"] = n_cand.reindex(pos, fill_value=0).to_numpy()
    out["disclosed"] = out["n_candidates"].to_numpy() == 1
    top_value = top["value"].reindex(pos).to_numpy(dtype=object)
    out["top_value"] = top_value
    out["top_share"] = (top["n"].reindex(pos) / remaining.reindex(pos)).to_numpy(dtype=float)
    out["inferred"] = np.where(out["disclosed"].to_numpy(), top_value, None)
    truth: pd.Series | None = None
    if sa in targets.columns:
        truth = targets[sa].astype(object)
        correct = pd.Series(out["inferred"].to_numpy() == truth.to_numpy(), index=out.index,
                            dtype=object)
        out["correct"] = correct.where(out["disclosed"], None)
    n_disclosed = int(out["disclosed"].sum())
    return HomogeneityResult(
        targets=out,
        n_targets=len(out),
        n_disclosed=n_disclosed,
        disclosed_fraction=n_disclosed / len(out) if len(out) else float("nan"),
        truth=truth,
        background_facts=n_facts,
    )


def suppression_outcome(table: pd.DataFrame, quasi_identifiers: Sequence[str], sensitive_attribute: str,
                        k: int) -> dict[str, float]:
    """What an attacker learns about ``table``'s records once released k-anonymous by suppression.

    Shares of all records: ``disclosed`` (homogeneity attack, always right), ``best_guess`` (the class's most common
    value; a suppressed target gets the release's), ``majority`` (the release's most common value,
    :func:`anonlab.measures.majority_baseline`), ``suppressed``. An empty release tells nothing (all 0 but
    ``suppressed``).

    >>> df = pd.DataFrame({"zip": list("112223"), "d": list("aaabbb")})
    >>> {key: round(v, 3) for key, v in suppression_outcome(df, ["zip"], "d", 2).items()}
    {'disclosed': 0.333, 'best_guess': 0.667, 'majority': 0.5, 'suppressed': 0.167}
    """
    from ..measures.protocol import majority_baseline
    from ..mechanisms.syntactic import suppress_small_classes

    supp = suppress_small_classes(table, quasi_identifiers, k)
    if not len(supp.table):
        return {"disclosed": 0.0, "best_guess": 0.0, "majority": 0.0, "suppressed": 1.0}
    truth = table[sensitive_attribute].to_numpy(dtype=object)
    top = majority_baseline(supp.table[sensitive_attribute].to_numpy(dtype=object)).prediction[0]
    res = homogeneity_attack(supp.table, quasi_identifiers, sensitive_attribute, targets=table).targets
    guess = np.where(res["class_size"].to_numpy() > 0, res["top_value"].to_numpy(dtype=object), top)
    return {"disclosed": float(res["disclosed"].mean()), "best_guess": float(np.mean(guess == truth)),
            "majority": float(np.mean(truth == top)), "suppressed": float(supp.fraction_suppressed)}

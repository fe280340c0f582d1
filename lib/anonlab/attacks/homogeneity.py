"""The homogeneity attack on a k-anonymous table, and its background-knowledge variant.

An attacker knows a target's quasi-identifier values (say Bob's ZIP code and
age) and that the target is in the published table. They find the target's
equivalence class. If every record of that class has the same sensitive
value, the value is disclosed, however large the class: k-anonymity hides
*which* record is the target's, not *what* the records say (Machanavajjhala
et al. 2007, "homogeneity attack"; lecture slides, "What is the issue with
k-anonymity?": "lack of diversity in sensitive attributes, background
knowledge").

With **background knowledge** the attacker can also rule out sensitive
values for a target (Machanavajjhala et al.'s Umeko: Japanese patients
rarely have heart disease, so in a class of heart disease and viral
infection she has a viral infection). The value is disclosed when exactly one
candidate value remains.

The attack is scored like every other attack of the book:
:meth:`HomogeneityResult.as_attack_result` turns it into an
:class:`~anonlab.measures.AttackResult` (one target per record, a prediction
where the value is disclosed), which :func:`anonlab.measures.score` compares
with a baseline such as :func:`anonlab.measures.majority_baseline` on the
same targets.

References
----------
.. [1] A. Machanavajjhala, D. Kifer, J. Gehrke, M. Venkitasubramaniam,
   "l-diversity: privacy beyond k-anonymity", ACM TKDD 1(1), 2007.
.. [2] S. Bhagavatula (after P. Mardziel and A. Datta), "Database privacy:
   k-anonymity and de-anonymization attacks", CMU 18-734 lecture slides,
   Fall 2019.
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
    """Outcome of :func:`homogeneity_attack`.

    Attributes
    ----------
    targets : pandas.DataFrame
        One row per target (index of the ``targets`` argument), with its
        quasi-identifier values and

        - ``class_size``: records in the target's equivalence class (0 if no
          class matches the target's QI values);
        - ``n_candidates``: distinct sensitive values left in that class after
          removing the ones background knowledge rules out;
        - ``disclosed``: ``n_candidates == 1``;
        - ``inferred``: the disclosed value (missing if not disclosed);
        - ``top_value``, ``top_share``: the most frequent remaining value and
          its share of the class's remaining records (the attacker's best
          guess and its posterior probability, uniform prior over records);
        - ``correct`` (only if the targets carry the true sensitive value):
          ``inferred == true value`` for disclosed targets, else missing.
    n_targets : int
        Number of targets.
    n_disclosed : int
        Targets whose sensitive value is disclosed.
    disclosed_fraction : float
        ``n_disclosed / n_targets``.
    truth : pandas.Series or None
        Each target's true sensitive value (same index as ``targets``), when
        the targets carry the sensitive column; else ``None``.
    background_facts : int
        Number of (target, ruled-out value) pairs of background knowledge.
    """

    targets: pd.DataFrame
    n_targets: int
    n_disclosed: int
    disclosed_fraction: float
    truth: pd.Series | None = None
    background_facts: int = 0

    def as_attack_result(self, name: str = "homogeneity") -> AttackResult:
        """The attack in the book's one scoring protocol.

        One target per row of :attr:`targets` (its index), a prediction
        (``predicted``) exactly where the value is disclosed (one candidate
        left), the prediction being the disclosed value and the truth the
        target's true sensitive value. Resources: ``background_facts``.

        Raises
        ------
        ValueError
            If the targets did not carry the true sensitive value.

        Examples
        --------
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
    """Find each target's equivalence class and read off its sensitive value
    when the class leaves only one candidate.

    For target ``x`` with quasi-identifier values ``x[QI]`` and background
    knowledge ``B(x)`` (sensitive values the attacker knows ``x`` does not
    have), the candidate set is

    ``C(x) = { s(t) : t in published, t[QI] = x[QI] } \\ B(x)``,

    and ``x``'s sensitive value is disclosed iff ``|C(x)| = 1`` (with
    ``B = {}`` this is a homogeneous class, distinct l-diversity ``l = 1``).
    The attack's success is the fraction of targets disclosed.

    Parameters
    ----------
    published : pandas.DataFrame
        The released (generalised) table.
    quasi_identifiers : sequence of str
        Columns the attacker knows for each target, in the published
        (generalised) form.
    sensitive_attribute : str
        The column the attacker wants to learn (no missing values).
    targets : pandas.DataFrame, optional
        One row per target with (at least) the quasi-identifier columns, in
        the published form. If it also has the sensitive column, each
        inference is checked (``correct``). Default: every published record
        is a target (so ``disclosed_fraction`` is the fraction of records
        whose value is disclosed).
    excluded : mapping or pandas.Series, optional
        Background knowledge: ``{target index: values ruled out}``, e.g.
        ``{3: ["Heart Disease"]}``. A single string is one value.

    Returns
    -------
    HomogeneityResult
        Per target; :meth:`HomogeneityResult.as_attack_result` scores it.

    Examples
    --------
    >>> from anonlab.data.tables import inpatient_4_anonymous, INPATIENT_QUASI_IDENTIFIERS
    >>> r = homogeneity_attack(inpatient_4_anonymous(), INPATIENT_QUASI_IDENTIFIERS,
    ...                        "condition")
    >>> r.n_disclosed, round(r.disclosed_fraction, 3)
    (4, 0.333)

    With background knowledge that record 3 (Umeko) has no heart disease:

    >>> r = homogeneity_attack(inpatient_4_anonymous(), INPATIENT_QUASI_IDENTIFIERS,
    ...                        "condition", excluded={3: "Heart Disease"})
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
    """What an attacker learns about the records of ``table`` once it is released k-anonymous by suppression.

    The release is ``table`` without the records whose equivalence class has fewer than ``k``
    (:func:`anonlab.mechanisms.syntactic.suppress_small_classes`); every record of ``table`` is a
    target, found through its quasi-identifiers (a suppressed one is not found). Shares of
    N = ``len(table)``:

    - ``disclosed``: targets the homogeneity attack discloses (their class holds one sensitive
      value), ``n_disclosed / N``; always right;
    - ``best_guess``: targets whose value is the most common of their class (the attacker's best
      guess, posterior ``top_share``), a target not found getting the release's most common value;
    - ``majority``: targets whose value is the release's most common one (the majority guess,
      :func:`anonlab.measures.majority_baseline`: no linking at all);
    - ``suppressed``: records removed to reach ``k``.

    An empty release tells nothing: every share but ``suppressed`` is 0.

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

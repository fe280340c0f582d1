"""anonlab.measures: how any attack is scored.

Every attack returns an :class:`AttackResult`; :func:`score` turns it into precision, coverage, recall and, beside a
baseline on the same targets, precision improvement, all with intervals (:mod:`anonlab.measures.protocol`). Measures
of a release itself (k-anonymity, l-diversity, t-closeness, Earth Mover's Distance) are in
:mod:`anonlab.measures.syntactic`. The allowed baseline of [FW24] §4, fitted on members and predicting non-members, is
:func:`nonmember_baseline` (:mod:`anonlab.measures.nonmember`).

Precision, coverage (prediction rate), recall, precision improvement over a baseline, ROC points converted to
precision at a realistic membership base rate, and Wilson intervals. The formulas follow P. Francis and D. Wagner,
"Towards more accurate and useful data anonymity vulnerability measures", arXiv:2403.06595 (2024); see
:mod:`anonlab.measures.rates` and, for ROC curves read at realistic member:non-member skews (§5),
:mod:`anonlab.measures.base_rates`.
"""

from __future__ import annotations

from .base_rates import (
    RocCurve,
    everyone_is_member,
    everyone_is_member_result,
    interpolate_roc,
    low_fpr_table,
    max_recall_at_precision,
    precision_at_recall,
    precision_recall_at_skews,
    roc_from_scores,
    roc_grid,
    threshold_at_fpr,
    tpr_at_fpr,
    worked_example,
)
from . import syntactic
from .protocol import (BASELINE_KINDS, BLOCK_MAJORITY, MAJORITY_PRIOR, MEMBER_SHARE, NONMEMBER_KINDS, NONMEMBER_MODEL,
                       UNIFORM_PRIOR, AttackResult, Score, SecretTable, binary_baselines, binary_yardstick,
                       binary_yardstick_row, is_nonmember_baseline, majority_baseline, score, yardstick)
from .nonmember import MemberSplit, ModelSettings, nonmember_baseline, split_members
from .rates import (
    AttackScore,
    attack_score,
    accuracy,
    baseline_precision,
    baseline_precision_at_skew,
    coverage,
    false_positive_rate,
    parse_skew,
    precision,
    precision_at_skew,
    precision_improvement,
    precision_improvement_at_skew,
    prediction_rate,
    recall,
    roc_to_precision_recall,
    true_positive_rate,
    wilson_interval,
)

__all__ = [
    "syntactic",
    "BASELINE_KINDS", "BLOCK_MAJORITY", "MAJORITY_PRIOR", "MEMBER_SHARE", "NONMEMBER_KINDS", "NONMEMBER_MODEL",
    "UNIFORM_PRIOR", "is_nonmember_baseline",
    "AttackResult",
    "Score",
    "majority_baseline",
    "MemberSplit",
    "ModelSettings",
    "nonmember_baseline",
    "split_members",
    "score",
    "yardstick",
    "SecretTable",
    "binary_baselines",
    "binary_yardstick",
    "binary_yardstick_row",
    "attack_score",
    "RocCurve",
    "everyone_is_member",
    "everyone_is_member_result",
    "interpolate_roc",
    "low_fpr_table",
    "max_recall_at_precision",
    "precision_at_recall",
    "precision_recall_at_skews",
    "roc_from_scores",
    "roc_grid",
    "threshold_at_fpr",
    "tpr_at_fpr",
    "worked_example",

    "AttackScore",
    "accuracy",
    "baseline_precision",
    "baseline_precision_at_skew",
    "coverage",
    "false_positive_rate",
    "parse_skew",
    "precision",
    "precision_at_skew",
    "precision_improvement",
    "precision_improvement_at_skew",
    "prediction_rate",
    "recall",
    "roc_to_precision_recall",
    "true_positive_rate",
    "wilson_interval",
]

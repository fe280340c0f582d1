"""anonlab.measures: how any attack is scored.

Precision, coverage (prediction rate), recall, precision improvement over a
baseline, ROC points converted to precision at a realistic membership base
rate, and Wilson intervals. The formulas follow P. Francis and D. Wagner,
"Towards more accurate and useful data anonymity vulnerability measures",
arXiv:2403.06595 (2024); see :mod:`anonlab.measures.rates`.
"""

from __future__ import annotations

from .rates import (
    AttackScore,
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
    score_predictions,
    true_positive_rate,
    wilson_interval,
)

__all__ = [
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
    "score_predictions",
    "true_positive_rate",
    "wilson_interval",
]

"""Precision, coverage, baselines and base rates for scoring attacks.

Formulas from P. Francis and D. Wagner, "Towards more accurate and useful data anonymity vulnerability measures",
arXiv:2403.06595 (2024), cited as [FW24] §/Eq; :func:`wilson_interval` is E. B. Wilson (1927). Counts are numbers or
arrays that broadcast (scalar in, ``float`` out), finite and non-negative but not necessarily integers. A rate with a
zero denominator is ``nan``, never 0. Bad input raises ``ValueError`` naming the argument. *Skew* is non-members per
member: the paper's ``1:30`` is ``skew = 30`` ([FW24] §5). The base-rate example of [FW24] §1:

>>> round(precision_at_skew(1.0, 0.05, members=1000, non_members=1000), 3)
0.952
>>> round(precision_at_skew(1.0, 0.05, members=20, non_members=1980), 3)
0.168
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from anonlab.intervals import wilson_interval  # the one Wilson interval (re-exported: measures.wilson_interval)
from anonlab.intervals import _counts, _out  # the count check and 0-d-to-float rule the Wilson interval uses

__all__ = [
    "AttackScore",
    "accuracy",
    "precision",
    "recall",
    "prediction_rate",
    "coverage",
    "true_positive_rate",
    "false_positive_rate",
    "precision_improvement",
    "precision_at_skew",
    "roc_to_precision_recall",
    "baseline_precision",
    "baseline_precision_at_skew",
    "precision_improvement_at_skew",
    "parse_skew",
    "wilson_interval",
]

ArrayLike: TypeAlias = npt.ArrayLike
"""A number or anything :func:`numpy.asarray` turns into numbers."""

FloatOrArray: TypeAlias = float | np.ndarray
"""``float`` for scalar inputs, ``numpy.ndarray`` for array inputs."""


# ---------------------------------------------------------------------------
# Input checking and safe division
# ---------------------------------------------------------------------------


def _first_bad(arr: np.ndarray, bad: np.ndarray) -> Any:
    """The first offending element, for the error message."""
    value = arr[bad].flat[0]
    return value.item() if hasattr(value, "item") else value


def _as_float_array(name: str, value: ArrayLike) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    return arr


def _unit(name: str, value: ArrayLike, *, allow_nan: bool = False) -> np.ndarray:
    """Check that ``value`` lies in [0, 1] (``nan`` passes if ``allow_nan``)."""
    arr = _as_float_array(name, value)
    with np.errstate(invalid="ignore"):
        bad = ~((arr >= 0) & (arr <= 1))
    if allow_nan:
        bad &= ~np.isnan(arr)
    if np.any(bad):
        raise ValueError(f"{name} must be in [0, 1], got {_first_bad(arr, bad)}")
    return arr


def _not_more_than(name: str, arr: np.ndarray, other_name: str, other: np.ndarray) -> None:
    a, o = np.broadcast_arrays(arr, other)
    bad = a > o
    if np.any(bad):
        raise ValueError(
            f"{name} must not exceed {other_name}, got {name}={_first_bad(a, bad)} "
            f"and {other_name}={_first_bad(o, bad)}"
        )


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` with ``nan`` wherever ``den == 0``."""
    num, den = np.broadcast_arrays(np.asarray(num, dtype=float), np.asarray(den, dtype=float))
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


# ---------------------------------------------------------------------------
# Confusion-count measures, [FW24] §2 Eqs 1-5 and §4.3
# ---------------------------------------------------------------------------


def accuracy(tp: ArrayLike, tn: ArrayLike, fp: ArrayLike, fn: ArrayLike) -> FloatOrArray:
    r"""Accuracy (TP + TN) / (TP + TN + FP + FN) ([FW24] §2, Eq 1); ``nan`` if all are 0.

    >>> accuracy(tp=3, tn=5, fp=1, fn=1)
    0.8
    """
    tp, tn, fp, fn = (_counts(n, v) for n, v in (("tp", tp), ("tn", tn), ("fp", fp), ("fn", fn)))
    return _out(_ratio(tp + tn, tp + tn + fp + fn))


def precision(tp: ArrayLike, fp: ArrayLike) -> FloatOrArray:
    r"""Precision TP / (TP + FP) ([FW24] §2, Eq 2; Eq 10 for membership); ``nan`` with no predictions.

    Every prediction of an inference attack is positive: ``tp`` correct, ``fp`` wrong, abstentions neither.

    >>> round(precision(1000, 50), 3)
    0.952
    >>> precision(0, 0)
    nan
    """
    tp, fp = _counts("tp", tp), _counts("fp", fp)
    return _out(_ratio(tp, tp + fp))


def recall(tp: ArrayLike, fn: ArrayLike) -> FloatOrArray:
    r"""Recall TP / (TP + FN) ([FW24] §2, Eq 3); ``nan`` where there are no positives.

    >>> recall(20, 0)
    1.0
    """
    tp, fn = _counts("tp", tp), _counts("fn", fn)
    return _out(_ratio(tp, tp + fn))


def prediction_rate(tp: ArrayLike, fp: ArrayLike, n_no_prediction: ArrayLike) -> FloatOrArray:
    r"""Prediction rate TP / (TP + FP + np) ([FW24] §2, Eqs 4-5); ``nan`` with no targets.

    ``n_no_prediction`` is the paper's ``np``. Correct predictions per target, unlike :func:`coverage` (all
    predictions per target, §4.3); the paper calls both "prediction rate".

    >>> prediction_rate(tp=6, fp=2, n_no_prediction=12)
    0.3
    """
    tp, fp = _counts("tp", tp), _counts("fp", fp)
    n_np = _counts("n_no_prediction", n_no_prediction)
    return _out(_ratio(tp, tp + fp + n_np))


def coverage(n_predictions: ArrayLike, n_targets: ArrayLike) -> FloatOrArray:
    r"""Coverage |P| / |T|, predictions per attacked target ([FW24] §4.3, step 3); ``nan`` with no targets.

    The coverage at which an attack is matched with its baseline for Eq 6. ``ValueError`` if ``n_predictions >
    n_targets``.

    >>> coverage(8, 20)
    0.4
    """
    n_p, n_t = _counts("n_predictions", n_predictions), _counts("n_targets", n_targets)
    _not_more_than("n_predictions", n_p, "n_targets", n_t)
    return _out(_ratio(n_p, n_t))


def true_positive_rate(tp: ArrayLike, members: ArrayLike) -> FloatOrArray:
    r"""True positive rate TP / M ([FW24] §5, Eq 7); ``nan`` where ``members == 0``.

    >>> true_positive_rate(20, 20)
    1.0
    """
    tp, m = _counts("tp", tp), _counts("members", members)
    _not_more_than("tp", tp, "members", m)
    return _out(_ratio(tp, m))


def false_positive_rate(fp: ArrayLike, non_members: ArrayLike) -> FloatOrArray:
    r"""False positive rate FP / N ([FW24] §5, Eq 8); ``nan`` where ``non_members == 0``.

    >>> false_positive_rate(99, 1980)
    0.05
    """
    fp, n = _counts("fp", fp), _counts("non_members", non_members)
    _not_more_than("fp", fp, "non_members", n)
    return _out(_ratio(fp, n))


# ---------------------------------------------------------------------------
# Precision improvement over a baseline, [FW24] §4.3 Eq 6
# ---------------------------------------------------------------------------


def precision_improvement(p_attack: ArrayLike, p_base: ArrayLike) -> FloatOrArray:
    r"""Precision improvement PI = (P_atk - P_base) / (1 - P_base) ([FW24] §4.3, Eq 6).

    1 for a perfect attack, 0 for one no better than the baseline, negative below it; the paper requires equal
    coverage (not checked). Precisions in [0, 1], ``nan`` propagates; ``nan`` where ``p_base == 1``. The two pairs of
    [FW24] §4.3 both give 0.5:

    >>> round(precision_improvement(0.75, 0.5), 12)
    0.5
    >>> round(precision_improvement(0.97, 0.94), 12)
    0.5
    """
    p_atk = _unit("p_attack", p_attack, allow_nan=True)
    p_b = _unit("p_base", p_base, allow_nan=True)
    return _out(_ratio(p_atk - p_b, 1.0 - p_b))


# ---------------------------------------------------------------------------
# ROC points at an observational skew, [FW24] §5 Eqs 7-11
# ---------------------------------------------------------------------------


def precision_at_skew(
    tpr: ArrayLike, fpr: ArrayLike, members: ArrayLike, non_members: ArrayLike
) -> FloatOrArray:
    r"""Precision TPR·M / (TPR·M + FPR·N) of an ROC point among M members, N non-members.

    [FW24] §5, Eqs 7-8 and 10-11; only M:N matters; ``nan`` where the attacker predicts no one. [FW24] §1: FPR 0.05,
    FNR 0, 2000 people of whom 1 % are members:

    >>> round(precision_at_skew(1.0, 0.05, members=20, non_members=1980), 2)
    0.17
    """
    tpr_a, fpr_a = _unit("tpr", tpr), _unit("fpr", fpr)
    m, n = _counts("members", members), _counts("non_members", non_members)
    tp = tpr_a * m
    return _out(_ratio(tp, tp + fpr_a * n))


def _skew(skew: ArrayLike) -> np.ndarray:
    return _counts("skew", skew)


def roc_to_precision_recall(
    tpr: ArrayLike, fpr: ArrayLike, skew: ArrayLike
) -> tuple[FloatOrArray, FloatOrArray]:
    r"""ROC points to (precision, recall) at a skew: TPR / (TPR + FPR·skew), TPR.

    [FW24] §5, Eqs 9 and 11 with M = 1, N = skew. Inputs broadcast (``tpr[:, None]`` and a row of skews give one curve
    per column); precision ``nan`` where ``TPR + FPR·skew == 0``.

    >>> p, r = roc_to_precision_recall(0.5, 0.01, 30)
    >>> round(p, 4), r
    (0.625, 0.5)
    """
    tpr_a, fpr_a, k = _unit("tpr", tpr), _unit("fpr", fpr), _skew(skew)
    prec = _ratio(tpr_a, tpr_a + fpr_a * k)
    rec = np.broadcast_to(tpr_a, prec.shape).copy()
    return _out(prec), _out(rec)


def baseline_precision(members: ArrayLike, non_members: ArrayLike) -> FloatOrArray:
    r"""Everyone-is-a-member precision M / (M + N) ([FW24] §5, Eq 11 with TPR = FPR = 1).

    The membership base rate, reached by random guessing at every recall; ``nan`` if M + N = 0.

    >>> baseline_precision(20, 1980)
    0.01
    """
    m, n = _counts("members", members), _counts("non_members", non_members)
    return _out(_ratio(m, m + n))


def baseline_precision_at_skew(skew: ArrayLike) -> FloatOrArray:
    r"""Everyone-is-a-member precision at a skew: 1 / (1 + skew) ([FW24] §5, Eq 11).

    >>> baseline_precision_at_skew(1)
    0.5
    """
    k = _skew(skew)
    return _out(1.0 / (1.0 + k))


def precision_improvement_at_skew(tpr: ArrayLike, fpr: ArrayLike, skew: ArrayLike) -> FloatOrArray:
    r"""PI of an ROC point over the base rate 1 / (1 + skew) ([FW24] §4.3 Eq 6 on §5 Eq 11).

    0 on the diagonal, negative below it; ``nan`` where ``tpr == fpr == 0`` or ``skew == 0``.

    >>> round(precision_improvement_at_skew(0.5, 0.01, 30), 4)
    0.6125
    """
    prec, _ = roc_to_precision_recall(tpr, fpr, skew)
    return precision_improvement(prec, baseline_precision_at_skew(skew))


_SKEW_RE = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*:\s*(\d+(?:\.\d*)?)\s*$")


def parse_skew(text: str) -> float:
    """The paper's ``"M:N"`` (members:non-members, [FW24] §5) as the skew N / M; M must be > 0.

    >>> parse_skew("1:30")
    30.0
    >>> parse_skew("2:5")
    2.5
    """
    match = _SKEW_RE.match(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"skew must look like 'members:non_members' (e.g. '1:30'), got {text!r}")
    m, n = float(match.group(1)), float(match.group(2))
    if m == 0:
        raise ValueError(f"skew must have a positive number of members, got {text!r}")
    return n / m


# ---------------------------------------------------------------------------
# Scoring an attack's predictions
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AttackScore:
    """Precision, coverage, prediction rate and recall of one attack, with Wilson intervals.

    Of ``n_targets`` (the paper's T) the attacker predicts ``n_predictions`` (P; positive ones only when a
    ``positive`` value was given), ``n_correct`` (TP) of them right. ``precision`` (Eq 2), ``coverage`` (§4.3) and
    ``prediction_rate`` (Eq 4) are ``nan`` when undefined; ``n_positives``, ``recall`` (Eq 3) and ``recall_ci`` are
    ``None`` without a ``positive``.
    """

    n_targets: int
    n_predictions: int
    n_correct: int
    precision: float
    coverage: float
    prediction_rate: float
    n_positives: int | None
    recall: float | None
    confidence: float
    precision_ci: tuple[float, float]
    coverage_ci: tuple[float, float]
    prediction_rate_ci: tuple[float, float]
    recall_ci: tuple[float, float] | None

    @property
    def n_wrong(self) -> int:
        """Incorrect predictions, ``FP``."""
        return self.n_predictions - self.n_correct


def _interval(successes: int, n: int, confidence: float) -> tuple[float, float]:
    low, high = wilson_interval(successes, n, confidence)
    return float(low), float(high)


def attack_score(
    n_targets: int, n_predictions: int, n_correct: int, n_positives: int | None = None,
    confidence: float = 0.95,
) -> AttackScore:
    """Build an :class:`AttackScore` from counts ([FW24] Eqs 2-4, Wilson intervals).

    >>> s = attack_score(10, 4, 3)
    >>> s.precision, s.coverage, s.prediction_rate
    (0.75, 0.4, 0.3)
    """
    n_fp = n_predictions - n_correct
    rec: float | None = None
    rec_ci: tuple[float, float] | None = None
    if n_positives is not None:
        rec = float(recall(n_correct, n_positives - n_correct))
        rec_ci = _interval(n_correct, n_positives, confidence)
    return AttackScore(
        n_targets=n_targets,
        n_predictions=n_predictions,
        n_correct=n_correct,
        precision=float(precision(n_correct, n_fp)),
        coverage=float(coverage(n_predictions, n_targets)),
        prediction_rate=float(prediction_rate(n_correct, n_fp, n_targets - n_predictions)),
        n_positives=n_positives,
        recall=rec,
        confidence=float(confidence),
        precision_ci=_interval(n_correct, n_predictions, confidence),
        coverage_ci=_interval(n_predictions, n_targets, confidence),
        prediction_rate_ci=_interval(n_correct, n_targets, confidence),
        recall_ci=rec_ci,
    )

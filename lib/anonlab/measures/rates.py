"""Precision, coverage, baselines and base rates for scoring attacks.

Every formula here is taken from P. Francis and D. Wagner, "Towards more
accurate and useful data anonymity vulnerability measures", arXiv:2403.06595
(2024), cited below as *[FW24]* with section and equation number. The one
exception is :func:`wilson_interval` (E. B. Wilson, 1927), which the book uses
to put an uncertainty on every measured rate.

Conventions
-----------
* Counts may be Python numbers or numpy arrays; arrays broadcast against each
  other. A scalar input gives a ``float``, an array input a ``numpy.ndarray``.
  Counts need not be integers (``TPR * M`` in Eq 11 usually is not), but they
  must be finite and non-negative.
* A rate whose denominator is zero is ``nan``, never ``0``: an attacker that
  makes no prediction has no precision, not a precision of zero.
* Bad inputs raise :class:`ValueError` naming the argument, for example
  ``fpr must be in [0, 1], got 1.5``.
* *Skew* is the number of non-members per member, so the paper's
  member:non-member observational skew ``1:30`` is ``skew = 30``
  ([FW24] §5).

Examples
--------
The base-rate example of [FW24] §1 (FPR 0.05, FNR 0, 2000 people):

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


def _counts(name: str, value: ArrayLike) -> np.ndarray:
    """Check that ``value`` holds finite, non-negative counts."""
    arr = _as_float_array(name, value)
    bad = ~np.isfinite(arr) | (arr < 0)
    if np.any(bad):
        raise ValueError(f"{name} must be a finite non-negative count, got {_first_bad(arr, bad)}")
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


def _out(arr: np.ndarray) -> FloatOrArray:
    """0-d results become a Python ``float``."""
    arr = np.asarray(arr, dtype=float)
    return float(arr) if arr.ndim == 0 else arr


# ---------------------------------------------------------------------------
# Confusion-count measures, [FW24] §2 Eqs 1-5 and §4.3
# ---------------------------------------------------------------------------


def accuracy(tp: ArrayLike, tn: ArrayLike, fp: ArrayLike, fn: ArrayLike) -> FloatOrArray:
    r"""Accuracy: true predictions over all predictions ([FW24] §2, Eq 1).

    .. math:: A = \frac{TP + TN}{TP + TN + FP + FN}

    Accuracy counts negative predictions as well as positive ones, which is
    why the paper prefers :func:`precision` for privacy.

    Parameters
    ----------
    tp, tn, fp, fn : int, float or array_like
        True positives, true negatives, false positives, false negatives.

    Returns
    -------
    float or numpy.ndarray
        ``nan`` where no prediction was made (all four counts zero).

    Examples
    --------
    >>> accuracy(tp=3, tn=5, fp=1, fn=1)
    0.8
    """
    tp, tn, fp, fn = (_counts(n, v) for n, v in (("tp", tp), ("tn", tn), ("fp", fp), ("fn", fn)))
    return _out(_ratio(tp + tn, tp + tn + fp + fn))


def precision(tp: ArrayLike, fp: ArrayLike) -> FloatOrArray:
    r"""Precision: true positive predictions over all positive predictions.

    .. math:: P = \frac{\text{true } PP}{\text{all } PP} = \frac{TP}{TP + FP}

    [FW24] §2, Eq 2 (and Eq 10 for membership). For an inference attack every
    prediction the attacker makes ("the secret is *x*") is a positive
    prediction, so ``tp`` is the number of correct predictions and ``fp`` the
    number of wrong ones; abstentions count in neither.

    Parameters
    ----------
    tp, fp : int, float or array_like
        Correct and incorrect positive predictions.

    Returns
    -------
    float or numpy.ndarray
        ``nan`` where ``tp + fp == 0`` (no predictions).

    Examples
    --------
    >>> round(precision(1000, 50), 3)
    0.952
    >>> precision(0, 0)
    nan
    """
    tp, fp = _counts("tp", tp), _counts("fp", fp)
    return _out(_ratio(tp, tp + fp))


def recall(tp: ArrayLike, fn: ArrayLike) -> FloatOrArray:
    r"""Recall: true positives over all positives ([FW24] §2, Eq 3).

    .. math:: R = \frac{TP}{TP + FN} = \frac{TP}{\text{all positives}}

    Parameters
    ----------
    tp, fn : int, float or array_like
        True positives and false negatives.

    Returns
    -------
    float or numpy.ndarray
        ``nan`` where ``tp + fn == 0`` (there are no positives).

    Examples
    --------
    >>> recall(20, 0)
    1.0
    """
    tp, fn = _counts("tp", tp), _counts("fn", fn)
    return _out(_ratio(tp, tp + fn))


def prediction_rate(tp: ArrayLike, fp: ArrayLike, n_no_prediction: ArrayLike) -> FloatOrArray:
    r"""Prediction rate as defined in [FW24] §2, Eqs 4-5.

    .. math::

        PR = \frac{TP}{TP + FP + np} = \frac{TP}{\text{all possible predictions}}

    where :math:`np` is the number of targets for which the attacker chose to
    make no prediction. Note the numerator is the number of *correct*
    predictions, so this is a recall-like measure (correct predictions per
    target). It differs from :func:`coverage`, which the paper defines in
    §4.3 as predictions (correct or not) per target; the paper calls both
    "prediction rate".

    Parameters
    ----------
    tp, fp : int, float or array_like
        Correct and incorrect predictions.
    n_no_prediction : int, float or array_like
        Targets for which no prediction was made (the paper's ``np``).

    Returns
    -------
    float or numpy.ndarray
        ``nan`` where there are no targets.

    Examples
    --------
    >>> prediction_rate(tp=6, fp=2, n_no_prediction=12)
    0.3
    """
    tp, fp = _counts("tp", tp), _counts("fp", fp)
    n_np = _counts("n_no_prediction", n_no_prediction)
    return _out(_ratio(tp, tp + fp + n_np))


def coverage(n_predictions: ArrayLike, n_targets: ArrayLike) -> FloatOrArray:
    r"""Coverage as the prediction rate of [FW24] §4.3 (procedure step 3).

    .. math:: C = PR = \frac{|\mathbb{P}|}{|\mathbb{T}|}

    where :math:`\mathbb{T}` is the set of attacked targets and
    :math:`\mathbb{P}` the subset for which a prediction was made. This is the
    coverage used to match an attack with its baseline before computing
    :func:`precision_improvement` (Eq 6).

    Parameters
    ----------
    n_predictions : int, float or array_like
        Number of targets with a prediction, :math:`|\mathbb{P}|`.
    n_targets : int, float or array_like
        Number of targets attacked, :math:`|\mathbb{T}|`.

    Returns
    -------
    float or numpy.ndarray
        ``nan`` where ``n_targets == 0``.

    Raises
    ------
    ValueError
        If ``n_predictions > n_targets``.

    Examples
    --------
    >>> coverage(8, 20)
    0.4
    """
    n_p, n_t = _counts("n_predictions", n_predictions), _counts("n_targets", n_targets)
    _not_more_than("n_predictions", n_p, "n_targets", n_t)
    return _out(_ratio(n_p, n_t))


def true_positive_rate(tp: ArrayLike, members: ArrayLike) -> FloatOrArray:
    r"""True positive rate ([FW24] §5, Eq 7): :math:`TPR = TP / M`.

    Parameters
    ----------
    tp : int, float or array_like
        Members correctly predicted to be members.
    members : int, float or array_like
        Number of members :math:`M` among the observations.

    Returns
    -------
    float or numpy.ndarray
        ``nan`` where ``members == 0``.

    Examples
    --------
    >>> true_positive_rate(20, 20)
    1.0
    """
    tp, m = _counts("tp", tp), _counts("members", members)
    _not_more_than("tp", tp, "members", m)
    return _out(_ratio(tp, m))


def false_positive_rate(fp: ArrayLike, non_members: ArrayLike) -> FloatOrArray:
    r"""False positive rate ([FW24] §5, Eq 8): :math:`FPR = FP / N`.

    Parameters
    ----------
    fp : int, float or array_like
        Non-members wrongly predicted to be members.
    non_members : int, float or array_like
        Number of non-members :math:`N` among the observations.

    Returns
    -------
    float or numpy.ndarray
        ``nan`` where ``non_members == 0``.

    Examples
    --------
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
    r"""Precision improvement of an attack over its baseline ([FW24] §4.3, Eq 6).

    .. math:: PI = \frac{P_{atk} - P_{base}}{1 - P_{base}}

    The ratio of the actual improvement to the best possible improvement:
    ``PI = 1`` for a perfect attack, ``0`` for an attack no better than the
    baseline, negative for one that is worse. The paper defines PI only for an
    attack and baseline measured at the same coverage (``C_atk == C_base``);
    this function does not check that.

    Parameters
    ----------
    p_attack, p_base : float or array_like
        Attack and baseline precision, each in [0, 1]; they broadcast.
        ``nan`` (a precision with no predictions) is allowed and propagates.

    Returns
    -------
    float or numpy.ndarray
        ``nan`` where ``p_base == 1`` (no improvement is possible, so the
        ratio is undefined, even if ``p_attack == 1`` too) and where either
        input is ``nan``.

    Examples
    --------
    The two pairs in [FW24] §4.3 both give 0.5:

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
    r"""Precision of a membership attack's ROC point at a given population mix.

    [FW24] §5, Eqs 10-11, with :math:`TP = TPR \cdot M` (Eq 7) and
    :math:`FP = FPR \cdot N` (Eq 8):

    .. math::

        P = \frac{TP}{TP + FP}
          = \frac{TPR \cdot M}{TPR \cdot M + FPR \cdot N}

    where :math:`M` and :math:`N` are the numbers of members and non-members
    observed; only their ratio matters.

    Parameters
    ----------
    tpr, fpr : float or array_like
        True and false positive rate of the ROC point, each in [0, 1].
    members, non_members : int, float or array_like
        :math:`M` and :math:`N`, non-negative. All four inputs broadcast.

    Returns
    -------
    float or numpy.ndarray
        ``nan`` where ``TPR*M + FPR*N == 0`` (the attacker predicts no one).

    Examples
    --------
    [FW24] §1: FPR 0.05, FNR 0, 2000 people of whom 1% are members.

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
    r"""Convert ROC points to (precision, recall) at an observational skew.

    [FW24] §5, Eqs 9 and 11 with :math:`M = 1` and :math:`N = \text{skew}`:

    .. math::

        \text{recall} = TPR, \qquad
        \text{precision} = \frac{TPR}{TPR + FPR \cdot \text{skew}}

    Parameters
    ----------
    tpr, fpr : float or array_like
        ROC points, each in [0, 1].
    skew : float or array_like
        Non-members per member, >= 0; the paper's ``1:30`` is ``30``.
        Broadcasts, so ``tpr[:, None]``, ``fpr[:, None]`` and a row of
        skews give one precision-recall curve per column.

    Returns
    -------
    precision, recall : float or numpy.ndarray
        Precision is ``nan`` where ``TPR + FPR*skew == 0``. Recall has the
        broadcast shape of all three inputs.

    Examples
    --------
    >>> p, r = roc_to_precision_recall(0.5, 0.01, 30)
    >>> round(p, 4), r
    (0.625, 0.5)
    """
    tpr_a, fpr_a, k = _unit("tpr", tpr), _unit("fpr", fpr), _skew(skew)
    prec = _ratio(tpr_a, tpr_a + fpr_a * k)
    rec = np.broadcast_to(tpr_a, prec.shape).copy()
    return _out(prec), _out(rec)


def baseline_precision(members: ArrayLike, non_members: ArrayLike) -> FloatOrArray:
    r"""Precision of predicting that everyone is a member ([FW24] §5).

    .. math:: P_{base} = \frac{M}{M + N}

    This is Eq 11 with :math:`TPR = FPR = 1`, i.e. the membership base
    rate. Any point on the ROC diagonal (:math:`TPR = FPR`, a random guess)
    has this same precision at every recall, so it is a baseline that can be
    matched to an attack at any coverage.

    Parameters
    ----------
    members, non_members : int, float or array_like
        :math:`M` and :math:`N`.

    Returns
    -------
    float or numpy.ndarray
        ``nan`` where ``M + N == 0``.

    Examples
    --------
    >>> baseline_precision(20, 1980)
    0.01
    """
    m, n = _counts("members", members), _counts("non_members", non_members)
    return _out(_ratio(m, m + n))


def baseline_precision_at_skew(skew: ArrayLike) -> FloatOrArray:
    r"""Everyone-is-a-member precision at a skew: :math:`1 / (1 + \text{skew})`.

    :func:`baseline_precision` with :math:`M = 1`, :math:`N = \text{skew}`
    ([FW24] §5, Eq 11 with :math:`TPR = FPR = 1`).

    Parameters
    ----------
    skew : float or array_like
        Non-members per member, >= 0.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> baseline_precision_at_skew(1)
    0.5
    """
    k = _skew(skew)
    return _out(1.0 / (1.0 + k))


def precision_improvement_at_skew(tpr: ArrayLike, fpr: ArrayLike, skew: ArrayLike) -> FloatOrArray:
    r"""Precision improvement of an ROC point over the base rate at a skew.

    Eq 6 of [FW24] §4.3 applied to the precision of Eq 11 (§5), with the
    everyone-is-a-member precision :math:`1/(1+\text{skew})` as the baseline:

    .. math::

        PI = \frac{P(TPR, FPR, \text{skew}) - P_{base}}{1 - P_{base}},
        \qquad P_{base} = \frac{1}{1 + \text{skew}}

    Because random guessing reaches :math:`P_{base}` at every recall, the
    equal-coverage condition of Eq 6 can always be met. ``PI`` is 0 on the
    ROC diagonal (``tpr == fpr``) and negative below it.

    Parameters
    ----------
    tpr, fpr : float or array_like
        ROC points, each in [0, 1].
    skew : float or array_like
        Non-members per member, >= 0.

    Returns
    -------
    float or numpy.ndarray
        ``nan`` where the attacker predicts no one (``tpr == fpr == 0``) and
        where ``skew == 0`` (everyone is a member, so the baseline is 1).

    Examples
    --------
    >>> round(precision_improvement_at_skew(0.5, 0.01, 30), 4)
    0.6125
    """
    prec, _ = roc_to_precision_recall(tpr, fpr, skew)
    return precision_improvement(prec, baseline_precision_at_skew(skew))


_SKEW_RE = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*:\s*(\d+(?:\.\d*)?)\s*$")


def parse_skew(text: str) -> float:
    """Turn the paper's ``"members:non-members"`` notation into a skew.

    [FW24] §5 writes observational skews as member:non-member, e.g. ``1:30``.

    Parameters
    ----------
    text : str
        ``"M:N"`` with non-negative numbers and ``M > 0``.

    Returns
    -------
    float
        ``N / M``, non-members per member.

    Examples
    --------
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
    """Precision, coverage and recall of one attack, with Wilson intervals.

    Built by :func:`attack_score`. The attacker attacks ``n_targets``
    targets (the paper's :math:`\\mathbb{T}`), makes a prediction for
    ``n_predictions`` of them (:math:`\\mathbb{P}`) and abstains on the rest.

    Attributes
    ----------
    n_targets : int
        :math:`|\\mathbb{T}|`.
    n_predictions : int
        :math:`|\\mathbb{P}|`, predictions made (positive predictions only
        when a ``positive`` value was given).
    n_correct : int
        Correct predictions, ``TP``.
    precision : float
        ``n_correct / n_predictions`` ([FW24] Eq 2); ``nan`` if no predictions.
    coverage : float
        ``n_predictions / n_targets`` ([FW24] §4.3); ``nan`` if no targets.
    prediction_rate : float
        ``n_correct / n_targets`` = ``TP / (TP + FP + np)`` ([FW24] Eq 4).
    n_positives : int or None
        Targets whose true value is the ``positive`` value; ``None`` when
        no ``positive`` value was given.
    recall : float or None
        ``n_correct / n_positives`` ([FW24] Eq 3); ``None`` when no
        ``positive`` value was given, ``nan`` if there are no positives.
    confidence : float
        Level of the intervals.
    precision_ci, coverage_ci, prediction_rate_ci : tuple of float
        Wilson intervals of the three rates (``(nan, nan)`` if undefined).
    recall_ci : tuple of float or None
        Wilson interval of the recall, ``None`` if recall is ``None``.
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

    @property
    def n_abstained(self) -> int:
        """Targets with no prediction, the paper's ``np`` (Eq 4)."""
        return self.n_targets - self.n_predictions


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

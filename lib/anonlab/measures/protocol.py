"""One scoring protocol for every attack that guesses something about people ([FW24] §4.3).

An attack returns an :class:`AttackResult` (targets, predictions, truth, resources); :func:`score` turns it into a
:class:`Score`: precision over the predictions (Eq 2), coverage (§4.3), prediction rate (Eq 4), recall (Eq 3), each
with a Wilson interval, and against a baseline's result on the same targets its precision there and PI = (P_attack −
P_base) / (1 − P_base) (Eq 6). :func:`yardstick` scores several results into one table; :func:`binary_yardstick`
scores attacks on a 0/1 secret against the majority guess and, a second reading, the rare value for everyone. [FW24]
P. Francis and D. Wagner, arXiv:2403.06595 (2024).

>>> attack = AttackResult.from_predictions(
...     "toy", truth=["a", "b", "a", "b"], prediction=["a", None, "b", "b"])
>>> base = AttackResult.from_predictions(
...     "majority", truth=["a", "b", "a", "b"], prediction=["a", "a", "a", "a"])
>>> s = score(attack, baseline=base)
>>> round(s.precision, 4), s.coverage, round(s.baseline_precision, 4), s.precision_improvement
(0.6667, 0.75, 0.6667, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import pandas as pd

from anonlab.intervals import wilson_interval
from .rates import AttackScore, attack_score, precision_improvement

__all__ = ["AttackResult", "Score", "score", "yardstick", "majority_baseline", "NONMEMBER_MODEL", "MEMBER_SHARE",
           "MAJORITY_PRIOR", "UNIFORM_PRIOR", "BLOCK_MAJORITY", "BASELINE_KINDS", "NONMEMBER_KINDS",
           "is_nonmember_baseline"]

#: Kinds of baseline (:attr:`AttackResult.baseline_kind`), set by the function that builds the baseline.
NONMEMBER_MODEL = "non-member model"
MEMBER_SHARE = "member share"
MAJORITY_PRIOR = "majority prior"
UNIFORM_PRIOR = "uniform prior"
BLOCK_MAJORITY = "block majority"
#: What each kind of baseline is, in one sentence.
BASELINE_KINDS = {
    NONMEMBER_MODEL: "a model fitted on people who are not the targets, predicting the targets' secret from the "
                     "attributes the attacker knows about them ([FW24] §4)",
    MEMBER_SHARE: "membership inference: every target called a member, right for the share of members; when "
                  "members are drawn at random, no analysis of other people can tell a target's membership "
                  "better, so the share is the non-member baseline itself ([FW24] §5)",
    MAJORITY_PRIOR: "the secret's most common value, the same guess for every target: it ignores what the "
                    "attacker knows about each target",
    UNIFORM_PRIOR: "a guess drawn uniformly among the secret's values: it ignores what the attacker knows",
    BLOCK_MAJORITY: "the most common value of the target's census block in the published tables (the targets "
                    "counted in): a prior per block, not a model of what is known about each person",
}
#: The kinds that are the non-member baseline of [FW24]; the others are weaker priors.
NONMEMBER_KINDS = frozenset({NONMEMBER_MODEL, MEMBER_SHARE})


def is_nonmember_baseline(kind: str | None) -> bool:
    """Is a baseline of this kind the non-member baseline ([FW24] §4-5), not only a weaker prior?

    >>> is_nonmember_baseline(NONMEMBER_MODEL), is_nonmember_baseline(MAJORITY_PRIOR), is_nonmember_baseline(None)
    (True, False, False)
    """
    return kind in NONMEMBER_KINDS


def _array(name: str, value: Any, n: int | None = None, dtype: Any = None) -> np.ndarray:
    arr = np.asarray(value, dtype=dtype)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if n is not None and arr.size != n:
        raise ValueError(f"{name} has {arr.size} entries, expected {n} (one per target)")
    return arr


def _all_distinct(values: np.ndarray) -> bool:
    """Are the values all different? The answer of ``len(set(values.tolist())) == values.size``.

    Row indices (non-negative integers not far above their count, what attacks use as targets) are counted with
    ``np.bincount``, other integers sorted and compared with their neighbours, both in C (the set of Python ints costs
    ~1 ms per 30,000 targets, and every scored attack pays it); other kinds go through Python's set (NaN, strings,
    objects keep Python's equality).

    >>> _all_distinct(np.array([3, 1, 2])), _all_distinct(np.array([3, 1, 3])), _all_distinct(np.array([], int))
    (True, False, True)
    >>> _all_distinct(np.array(["a", "b", "a"], dtype=object)), _all_distinct(np.array([-5, 10**12, -5]))
    (False, False)
    >>> _all_distinct(np.array([True, False])), _all_distinct(np.array([True, True]))
    (True, False)
    """
    if values.size < 2:
        return True
    if values.dtype.kind in "iub":
        lo, hi = int(values.min()), int(values.max())
        if lo >= 0 and hi <= 4 * values.size + 1024:
            return int(np.bincount(values.ravel().astype(np.int64, copy=False)).max()) <= 1
        s = np.sort(values, axis=None)
        return bool(np.all(s[1:] != s[:-1]))
    return len(set(values.tolist())) == values.size


@dataclass(frozen=True, eq=False)
class AttackResult:
    """What an attack did, target by target.

    Attributes: ``attack``: A short name ("naive Bayes, ε = 0.1", "cloning, |Δ| = 10"). ``targets``: One identifier
    per attacked target (row labels, user ids). ``truth``: Each target's true secret (or membership). ``predicted``:
    ``True`` where the attack made a prediction; elsewhere it abstained. ``prediction``: The prediction (any value
    where ``predicted`` is ``False``). ``confidence``: Optional score per target (higher = surer), from which
    thresholds trade precision for coverage (:meth:`at_threshold`). ``positive``: The value that counts as a positive
    prediction for binary secrets (e.g. ``True`` for membership); ``None`` for plain inference. ``tolerance``: Numeric
    secrets: a prediction within ``tolerance`` of the truth is correct ([FW24] §4.3, "within 5 %" is a relative
    tolerance and is encoded by the attack as a boolean ``correct`` instead). ``resources``: What the attack used:
    ``{"queries": 32, "aux_records": 8}``. ``correct``: Optional per-target correctness, when it is not ``prediction
    == truth`` (relative tolerances, sets of candidates). ``baseline_kind``: When the result is a baseline: what kind
    (:data:`BASELINE_KINDS`), set by the function that builds it; ``None`` for an attack.
    """

    attack: str
    targets: np.ndarray
    truth: np.ndarray
    predicted: np.ndarray
    prediction: np.ndarray
    confidence: np.ndarray | None = None
    positive: Any = None
    tolerance: float | None = None
    resources: Mapping[str, float] = field(default_factory=dict)
    correct: np.ndarray | None = None
    baseline_kind: str | None = None

    def __post_init__(self) -> None:
        t = _array("targets", self.targets)
        n = t.size
        object.__setattr__(self, "targets", t)
        object.__setattr__(self, "truth", _array("truth", self.truth, n))
        pred = _array("predicted", self.predicted, n)
        if pred.dtype != bool:
            raise ValueError(f"predicted must be boolean, got dtype {pred.dtype}")
        object.__setattr__(self, "predicted", pred)
        object.__setattr__(self, "prediction", _array("prediction", self.prediction, n))
        if self.confidence is not None:
            object.__setattr__(self, "confidence", _array("confidence", self.confidence, n, float))
        if self.correct is not None:
            c = _array("correct", self.correct, n)
            if c.dtype != bool:
                raise ValueError(f"correct must be boolean, got dtype {c.dtype}")
            object.__setattr__(self, "correct", c)
        if not _all_distinct(t):
            raise ValueError(f"attack {self.attack!r}: targets must be distinct")
        object.__setattr__(self, "resources", dict(self.resources))
        if self.baseline_kind is not None and self.baseline_kind not in BASELINE_KINDS:
            raise ValueError(f"baseline_kind {self.baseline_kind!r} is not one of {sorted(BASELINE_KINDS)}")

    @classmethod
    def from_predictions(
        cls,
        attack: str,
        truth: npt.ArrayLike,
        prediction: npt.ArrayLike,
        *,
        targets: npt.ArrayLike | None = None,
        predicted: npt.ArrayLike | None = None,
        **kwargs: Any,
    ) -> "AttackResult":
        """Build a result; without ``predicted``, a missing prediction (None/NaN) means abstention."""
        pred = np.asarray(prediction, dtype=object) if not isinstance(prediction, np.ndarray) else prediction
        if predicted is None:
            predicted = ~np.asarray(pd.isna(pred), dtype=bool)
        truth_arr = np.asarray(truth)
        if targets is None:
            targets = np.arange(truth_arr.size)
        return cls(attack, np.asarray(targets), truth_arr, np.asarray(predicted, dtype=bool), pred, **kwargs)

    @property
    def n_targets(self) -> int:
        return int(self.targets.size)

    def is_correct(self) -> np.ndarray:
        """Per target: a prediction was made and it is right."""
        if self.correct is not None:
            return self.predicted & self.correct
        made = np.flatnonzero(self.predicted)
        out = np.zeros(self.n_targets, dtype=bool)
        if made.size:
            p, t = self.prediction[made], self.truth[made]
            if self.tolerance is not None:
                ok = np.abs(p.astype(float) - t.astype(float)) <= self.tolerance
            else:
                ok = np.asarray(p == t, dtype=bool)
                if ok.shape != p.shape:
                    ok = np.asarray(p.astype(object) == t.astype(object), dtype=bool)
            if self.positive is not None:
                ok = ok & np.asarray(p == self.positive, dtype=bool)
            out[made] = ok
        return out

    def subset(self, mask: npt.ArrayLike, name: str | None = None) -> "AttackResult":
        """The same attack restricted to the targets where ``mask`` is true."""
        m = _array("mask", mask, self.n_targets, bool)
        pick = lambda a: None if a is None else a[m]  # noqa: E731
        return replace(self, attack=name or self.attack, targets=self.targets[m], truth=self.truth[m],
                       predicted=self.predicted[m], prediction=self.prediction[m],
                       confidence=pick(self.confidence), correct=pick(self.correct))

    def on_targets(self, targets: npt.ArrayLike) -> "AttackResult":
        """The result for these targets (in this result's order); all must have been attacked."""
        want = np.asarray(targets)
        index = pd.Index(self.targets)
        missing = ~index.isin(want)
        have = pd.Index(want).isin(index)
        if not have.all():
            raise ValueError(f"{int((~have).sum())} target(s) were not attacked by {self.attack!r}")
        return self.subset(~missing)

    def at_threshold(self, threshold: float) -> "AttackResult":
        """Predict only where ``confidence >= threshold`` (precision against coverage)."""
        if self.confidence is None:
            raise ValueError(f"attack {self.attack!r} reports no confidence to threshold")
        keep = self.predicted & (self.confidence >= threshold)
        return replace(self, attack=f"{self.attack} (confidence ≥ {threshold:g})", predicted=keep)

    def to_frame(self) -> pd.DataFrame:
        """One row per target: truth, predicted, prediction, correct (and confidence)."""
        df = pd.DataFrame({"truth": self.truth, "predicted": self.predicted,
                           "prediction": self.prediction, "correct": self.is_correct()},
                          index=pd.Index(self.targets, name="target"))
        if self.confidence is not None:
            df["confidence"] = self.confidence
        return df


@dataclass(frozen=True)
class Score:
    """An attack's score, with intervals, and its baseline on the same targets.

    The fields of :class:`~anonlab.measures.rates.AttackScore` (``precision``, ``coverage``, ``prediction_rate``,
    ``recall`` and their Wilson intervals), plus, when a baseline was given: ``baseline_precision`` over the targets
    the attack predicted for (with its interval) and ``precision_improvement`` ([FW24] Eq 6), whose interval takes the
    ends of the attack's precision interval against the baseline's point value; ``baseline_kind`` is the baseline's
    :attr:`AttackResult.baseline_kind`.
    """

    attack: str
    rates: AttackScore
    resources: Mapping[str, float]
    baseline: str | None = None
    baseline_kind: str | None = None
    baseline_precision: float = math.nan
    baseline_precision_ci: tuple[float, float] = (math.nan, math.nan)
    precision_improvement: float = math.nan
    precision_improvement_ci: tuple[float, float] = (math.nan, math.nan)

    def __getattr__(self, name: str) -> Any:  # precision, coverage, ... come from the rates
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.rates, name)

    def as_dict(self) -> dict[str, Any]:
        """A flat row for a table."""
        r = self.rates
        row: dict[str, Any] = {
            "attack": self.attack, "targets": r.n_targets, "predictions": r.n_predictions,
            "correct": r.n_correct, "precision": r.precision, "precision_low": r.precision_ci[0],
            "precision_high": r.precision_ci[1], "coverage": r.coverage,
            "coverage_low": r.coverage_ci[0], "coverage_high": r.coverage_ci[1],
            "recall": r.recall if r.recall is not None else math.nan,
            "baseline": self.baseline, "baseline_kind": self.baseline_kind,
            "baseline_precision": self.baseline_precision,
            "pi": self.precision_improvement, "pi_low": self.precision_improvement_ci[0],
            "pi_high": self.precision_improvement_ci[1],
        }
        row.update({f"resource_{k}": v for k, v in self.resources.items()})
        return row


def score(result: AttackResult, baseline: AttackResult | None = None, *,
          confidence: float = 0.95) -> Score:
    """Score an attack, and compare it with a baseline on the targets it predicted for.

    Parameters: ``result``: The attack's result. ``baseline``: A baseline's result (majority guess, the non-member
    baseline of [FW24] §4) that covers at least every target the attack predicted for. Its precision is measured on
    exactly those targets (§4.3 steps 1-4), so PI compares like with like. ``confidence``: Level of the Wilson
    intervals.
    """
    correct = result.is_correct()
    n_made = int(result.predicted.sum())
    if result.positive is not None:  # binary cast of [FW24] §2: only positive predictions count
        made_pos = result.predicted & np.asarray(result.prediction == result.positive, dtype=bool)
        n_made = int(made_pos.sum())
        n_pos: int | None = int(np.sum(np.asarray(result.truth == result.positive, dtype=bool)))
    else:
        n_pos = None
    rates = attack_score(result.n_targets, n_made, int(correct.sum()), n_pos, confidence)
    out = Score(result.attack, rates, dict(result.resources))
    if baseline is None:
        return out
    hit = result.targets[result.predicted]
    base = baseline.on_targets(hit)
    b_correct = int(base.is_correct().sum())
    b_made = int(base.predicted.sum())
    p_base = b_correct / b_made if b_made else math.nan
    b_ci = tuple(float(v) for v in wilson_interval(b_correct, b_made, confidence))
    pi = float(precision_improvement(rates.precision, p_base)) if _finite(rates.precision, p_base) else math.nan
    pi_ci = ((float(precision_improvement(rates.precision_ci[0], p_base)),
              float(precision_improvement(rates.precision_ci[1], p_base)))
             if _finite(rates.precision, p_base) else (math.nan, math.nan))
    return replace(out, baseline=baseline.attack, baseline_kind=getattr(baseline, "baseline_kind", None),
                   baseline_precision=p_base, baseline_precision_ci=b_ci,
                   precision_improvement=pi, precision_improvement_ci=pi_ci)


def _finite(*xs: float) -> bool:
    return all(isinstance(x, (int, float)) and math.isfinite(x) for x in xs)


def yardstick(results: Mapping[str, AttackResult] | Sequence[AttackResult],
              baselines: Mapping[str, AttackResult] | AttackResult | None = None,
              *, confidence: float = 0.95) -> pd.DataFrame:
    """Score several results into one table (one row per attack).

    ``baselines`` is one baseline for all, or a mapping from the results' keys to their baselines (attacks on
    different data need different ones).
    """
    items = list(results.items()) if isinstance(results, Mapping) else [(r.attack, r) for r in results]
    rows = []
    for key, res in items:
        base = baselines.get(key) if isinstance(baselines, Mapping) else baselines
        rows.append(score(res, base, confidence=confidence).as_dict())
    return pd.DataFrame(rows).set_index("attack")


class SecretTable(Protocol):
    """A data set with a binary (0/1) secret: its ``name``, its ``data`` and the ``secret`` column's name."""

    name: str
    data: pd.DataFrame
    secret: str


def binary_baselines(ds: SecretTable, result: AttackResult) -> tuple[AttackResult, AttackResult]:
    """The two baselines of a binary secret on a result's targets.

    The majority guess (:func:`majority_baseline` over the data set's secret column), and, for the rare value
    ``m = 1 - majority``, the guesser who says ``m`` for everybody (whose precision is the prevalence of ``m``).
    """
    reference = ds.data[ds.secret].to_numpy()
    base = majority_baseline(result.truth, reference=reference, targets=result.targets)
    rare = 1 - int(_majority_value(reference))
    n = result.n_targets
    always_rare = AttackResult("rare value for everyone", result.targets, result.truth, np.ones(n, dtype=bool),
                               np.full(n, rare), positive=rare)
    return base, always_rare


def binary_yardstick_row(ds: SecretTable, attack: str, result: AttackResult) -> dict[str, Any]:
    """One attack on a binary secret scored by :func:`score` in two readings of [FW24] §4, at its own coverage.

    * all guesses, against the majority guess on the same targets: ``precision``, ``baseline_precision``, ``PI``
      (Eq. 6);
    * the rare value ``m = 1 - majority``, on the targets it predicts for: ``precision_rare = P(truth = m | guess =
      m)``, the baseline is the prevalence of ``m`` among them (``baseline_rare``), ``PI_rare``, and ``recall_rare``,
      the share of covered targets with ``m`` it finds.

    ``nan`` where a ratio has no denominator.

    >>> class DS:  # a data set whose majority secret is 0
    ...     data = pd.DataFrame({"s": [0, 0, 0, 1]}); secret = "s"; name = "toy"
    >>> r = AttackResult("toy", [0, 1, 2, 3, 4], [0, 1, 1, 0, 1], [True, True, True, True, False], [0, 1, 0, 0, 1])
    >>> y = binary_yardstick_row(DS, "toy", r)
    >>> y["coverage"], y["precision"], y["baseline_precision"], y["PI"]
    (0.8, 0.75, 0.5, 0.5)
    >>> y["rare_guesses"], y["precision_rare"], y["baseline_rare"], y["recall_rare"]
    (1, 1.0, 0.5, 0.5)
    """
    base, always_rare = binary_baselines(ds, result)
    s = score(result, base)
    row = {"data set": ds.name, "attack": attack, "targets": s.n_targets, "coverage": s.coverage,
           "precision": s.precision, "baseline_precision": s.baseline_precision, "PI": s.precision_improvement}
    nan = float("nan")
    if not result.predicted.any():
        return {**row, "rare_guesses": 0, "precision_rare": nan, "baseline_rare": nan, "PI_rare": nan,
                "recall_rare": nan}
    covered = result.subset(result.predicted)
    r = score(replace(covered, positive=always_rare.positive), always_rare.subset(result.predicted))
    return {**row, "rare_guesses": r.n_predictions, "precision_rare": r.precision,
            "baseline_rare": r.baseline_precision, "PI_rare": r.precision_improvement,
            "recall_rare": r.recall if r.recall is not None else nan}


def binary_yardstick(runs: Sequence[tuple[SecretTable, str, AttackResult]]) -> pd.DataFrame:
    """:func:`binary_yardstick_row` of each ``(data set, attack name, result)``, indexed by (data set, attack)."""
    return pd.DataFrame([binary_yardstick_row(ds, name, r) for ds, name, r in runs]).set_index(["data set", "attack"])


def _majority_value(reference: np.ndarray) -> Any:
    """The most common value of ``reference``, the first in sorted order on a tie (:func:`majority_baseline`)."""
    if reference.size == 0:
        raise ValueError("majority_baseline needs at least one reference value")
    counts = pd.Series(reference).value_counts(sort=False)
    return sorted(counts[counts == counts.max()].index.tolist())[0]


def majority_baseline(truth: npt.ArrayLike, *, reference: npt.ArrayLike | None = None,
                      targets: npt.ArrayLike | None = None, name: str = "majority guess") -> AttackResult:
    """Guess, for every target, the most common value of ``reference`` (default: of ``truth``).

    The weakest sensible baseline: what an attacker predicts knowing only the distribution of the secret. Ties are
    broken by the first value in sorted order, so the guess is deterministic.

    >>> r = majority_baseline(["x", "y", "y"])
    >>> r.prediction.tolist(), score(r).precision
    (['y', 'y', 'y'], 0.6666666666666666)
    """
    t = np.asarray(truth)
    guess = _majority_value(t if reference is None else np.asarray(reference))
    pred = np.empty(t.size, dtype=object)
    pred[:] = [guess] * t.size
    return AttackResult.from_predictions(name, t, pred, targets=targets,
                                         predicted=np.ones(t.size, dtype=bool), baseline_kind=MAJORITY_PRIOR)

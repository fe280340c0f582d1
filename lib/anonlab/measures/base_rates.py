"""ROC curves read at realistic membership base rates ([FW24] §5, Eqs 7-11).

P. Francis and D. Wagner, arXiv:2403.06595 (2024), cited as [FW24], convert an ROC curve measured on a balanced set to
precision and recall at the *observational skew* of a real attack: recall = TPR, precision = TPR·M / (TPR·M + FPR·N).
The pointwise conversion lives in :mod:`anonlab.measures.rates`; this module builds curves from scores, reads them
between points (log-log by default, as for a curve read off [FW24] Fig. 10), converts whole curves and reads single
operating points. Conventions as in ``rates``: skew is non-members per member (``1:30`` is 30), undefined rates are
``nan``, bad input raises ``ValueError`` naming the argument. [FW24] §1: FPR 0.05, TPR 1 on 2000 people.

>>> ex = worked_example(population=2000, fpr=0.05, fnr=0.0, member_share=[0.5, 0.01])
>>> ex[["members", "tp", "fp"]].to_numpy().tolist()
[[1000.0, 1000.0, 50.0], [20.0, 20.0, 99.0]]
>>> ex["precision"].round(3).tolist()
[0.952, 0.168]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from anonlab.validation import check_choice, check_number, check_random_state

from anonlab.measures.protocol import MEMBER_SHARE, AttackResult
from anonlab.measures.rates import (
    baseline_precision_at_skew,
    parse_skew,
    precision,
    precision_improvement,
    precision_improvement_at_skew,
    roc_to_precision_recall,
    wilson_interval,
)

__all__ = [
    "Scale",
    "plot_line_reach",
    "precision_at_fpr",
    "ranking_kept",
    "RocCurve",
    "OperatingPoint",
    "check_roc",
    "roc_from_scores",
    "interpolate_roc",
    "roc_grid",
    "as_skews",
    "skew_label",
    "targets_fraction",
    "recall_for_targets_fraction",
    "precision_recall_at_skews",
    "everyone_is_member",
    "everyone_is_member_result",
    "threshold_at_fpr",
    "max_recall_at_precision",
    "max_recall_at_precisions",
    "max_recall_table",
    "empirical_max_recall_table",
    "subsample_to_skew",
    "counted_precision",
    "full_recall_vs_baseline",
    "precision_at_recall",
    "tpr_at_fpr",
    "low_fpr_table",
    "precision_interval_at_skew",
    "worked_example",
]

Scale = Literal["log", "linear", "step"]
"""How an ROC curve is read between its points.

``"log"``
    straight lines on log-log axes (``log TPR`` linear in ``log FPR``); a
    segment that touches 0 is read linearly.
``"linear"``
    straight lines on linear axes (achievable by randomising between the
    two thresholds).
``"step"``
    only what a threshold actually achieves: the best TPR among points with
    FPR at most the given value.
"""

_SCALES = ("log", "linear", "step")


# ---------------------------------------------------------------------------
# ROC curves
# ---------------------------------------------------------------------------


def _vector(name: str, value: npt.ArrayLike) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a sequence of numbers, got {value!r}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


def check_roc(fpr: npt.ArrayLike, tpr: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Check that ``(fpr, tpr)`` is an ROC curve (in [0, 1], FPR sorted, TPR never decreasing).

    Returns both as float arrays; ``ValueError`` such as ``tpr must not decrease as fpr increases, got tpr 0.4 after
    0.5``.

    >>> check_roc([0, 0.1, 1], [0, 0.4, 1])[1].tolist()
    [0.0, 0.4, 1.0]
    """
    f, t = _vector("fpr", fpr), _vector("tpr", tpr)
    if f.shape != t.shape:
        raise ValueError(f"fpr and tpr must have the same length, got {f.size} and {t.size}")
    if f.size == 0:
        raise ValueError("an ROC curve needs at least one point, got none")
    for name, arr in (("fpr", f), ("tpr", t)):
        bad = ~((arr >= 0) & (arr <= 1))
        if np.any(bad):
            raise ValueError(f"{name} must be in [0, 1], got {arr[bad][0]:g}")
    df = np.diff(f)
    if np.any(df < 0):
        i = int(np.flatnonzero(df < 0)[0])
        raise ValueError(f"fpr must be sorted in increasing order, got {f[i + 1]:g} after {f[i]:g}")
    dt = np.diff(t)
    if np.any(dt < 0):
        i = int(np.flatnonzero(dt < 0)[0])
        raise ValueError(
            f"tpr must not decrease as fpr increases, got tpr {t[i + 1]:g} after {t[i]:g}"
        )
    return f, t


@dataclass(frozen=True)
class RocCurve:
    """The empirical ROC curve of membership scores, built by :func:`roc_from_scores`.

    Point ``i`` flags every example scoring at least ``threshold[i]`` (decreasing; the first, ``+inf``, flags no one):
    ``tp``, ``fp`` counts, ``tpr`` = TP/M, ``fpr`` = FP/N ([FW24] Eqs 7-8), FPR increasing; ``n_members``,
    ``n_non_members`` are M and N.
    """

    fpr: np.ndarray
    tpr: np.ndarray
    threshold: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    n_members: int
    n_non_members: int

    @property
    def auc(self) -> float:
        """Area under the curve (trapezoids on linear axes); 0.5 is chance."""
        return float(np.sum(np.diff(self.fpr) * (self.tpr[1:] + self.tpr[:-1]) / 2.0))

    @property
    def min_fpr(self) -> float:
        """The smallest non-zero FPR the evaluation set can show, 1/N."""
        return 1.0 / self.n_non_members

    def to_frame(self) -> pd.DataFrame:
        """The curve as a DataFrame (threshold, tp, fp, tpr, fpr)."""
        return pd.DataFrame({"threshold": self.threshold, "tp": self.tp, "fp": self.fp,
                             "tpr": self.tpr, "fpr": self.fpr})


def roc_from_scores(scores: npt.ArrayLike, is_member: npt.ArrayLike) -> RocCurve:
    """Empirical ROC curve of membership scores (higher = more likely member), [FW24] §5 Eqs 7-8.

    One point per distinct score (ties are flagged together), from (0, 0) to (1, 1); scores may be ``±inf`` but not
    ``nan``; ``is_member`` needs a member and a non-member.

    >>> roc = roc_from_scores([0.9, 0.8, 0.8, 0.1], [True, True, False, False])
    >>> roc.tpr.tolist(), roc.fpr.tolist()
    ([0.0, 0.5, 1.0, 1.0], [0.0, 0.0, 0.5, 1.0])
    >>> roc.auc
    0.875
    """
    s = _vector("scores", scores)
    m = np.asarray(is_member)
    if m.ndim != 1 or m.shape != s.shape:
        raise ValueError(
            f"is_member must be one-dimensional with the length of scores ({s.size}), got shape {m.shape}"
        )
    if m.dtype != bool:
        if not np.all(np.isin(m, (0, 1))):
            raise ValueError("is_member must be boolean (or 0/1)")
        m = m.astype(bool)
    if np.any(np.isnan(s)):
        raise ValueError(f"scores must not be nan, got {int(np.isnan(s).sum())} nan value(s)")
    n_mem = int(m.sum())
    n_non = int(m.size - n_mem)
    if n_mem == 0 or n_non == 0:
        raise ValueError(
            f"an ROC curve needs members and non-members, got {n_mem} members and {n_non} non-members"
        )
    order = np.argsort(-s, kind="stable")
    s_sorted = s[order]
    tp_cum = np.cumsum(m[order])
    fp_cum = np.arange(1, s.size + 1) - tp_cum
    # the last position of every block of tied scores
    last = np.flatnonzero(np.r_[s_sorted[1:] != s_sorted[:-1], True])
    tp = np.r_[0, tp_cum[last]].astype(np.int64)
    fp = np.r_[0, fp_cum[last]].astype(np.int64)
    thr = np.r_[np.inf, s_sorted[last]]
    return RocCurve(fpr=fp / n_non, tpr=tp / n_mem, threshold=thr, tp=tp, fp=fp,
                    n_members=n_mem, n_non_members=n_non)


def _envelope(fpr: np.ndarray, tpr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One point per distinct FPR, with the best TPR at that FPR."""
    uf, inverse = np.unique(fpr, return_inverse=True)
    ut = np.zeros(uf.size)
    np.maximum.at(ut, inverse, tpr)
    return uf, np.maximum.accumulate(ut)


def _check_scale(scale: str) -> None:
    check_choice("scale", scale, _SCALES)


def _plain(value: object) -> object:
    """A numpy scalar as the Python number the public checks of :mod:`anonlab.validation` take."""
    return value.item() if isinstance(value, np.number) else value


def _segment_is_log(f0: np.ndarray, t0: np.ndarray, f1: np.ndarray, t1: np.ndarray) -> np.ndarray:
    return (f0 > 0) & (t0 > 0) & (f1 > 0) & (t1 > 0)


def interpolate_roc(
    fpr: npt.ArrayLike,
    tpr: npt.ArrayLike,
    fpr_new: npt.ArrayLike,
    *,
    scale: Scale = "log",
    extrapolate: bool = False,
) -> np.ndarray:
    r"""Read an ROC curve at new FPR values ``fpr_new``, returning TPR in their shape.

    ``scale="log"``: straight lines on log-log axes, as a curve read off a log-log plot (Carlini et al. 2022; [FW24]
    Fig. 9), a segment touching 0 linearly; ``"linear"``; ``"step"``: the best TPR with FPR <= ``fpr_new`` (Carlini's
    "TPR at FPR"). Points with equal FPR keep the best TPR. Outside the curve ``nan``, unless ``extrapolate`` extends
    the end segments (clipped to [0, 1]; never for step). Halfway between 1e-4 and 1e-2 on a log axis is 1e-3:

    >>> interpolate_roc([1e-4, 1e-2], [0.01, 0.1], 1e-3).round(4).tolist()
    0.0316
    >>> interpolate_roc([1e-4, 1e-2], [0.01, 0.1], 1e-3, scale="linear").round(4).tolist()
    0.0182
    """
    _check_scale(scale)
    f, t = _envelope(*check_roc(fpr, tpr))
    x = np.asarray(fpr_new, dtype=float)
    if np.any(~((x >= 0) & (x <= 1))):
        raise ValueError(f"fpr_new must be in [0, 1], got {x[~((x >= 0) & (x <= 1))].flat[0]:g}")
    xf = np.atleast_1d(x).ravel()
    out = np.full(xf.shape, np.nan)
    if scale == "step":
        i = np.searchsorted(f, xf, side="right") - 1
        ok = i >= 0
        out[ok] = t[i[ok]]
        return out.reshape(x.shape)
    if f.size == 1:
        out[xf == f[0]] = t[0]
        return out.reshape(x.shape)
    # segment index: f[i] <= x <= f[i+1]; clamp to the end segments for extrapolation
    i = np.clip(np.searchsorted(f, xf, side="right") - 1, 0, f.size - 2)
    f0, f1, t0, t1 = f[i], f[i + 1], t[i], t[i + 1]
    inside = (xf >= f[0]) & (xf <= f[-1])
    use_log = _segment_is_log(f0, t0, f1, t1) & (xf > 0) if scale == "log" else np.zeros(xf.shape, bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        slope_lin = (t1 - t0) / (f1 - f0)
        lin = t0 + slope_lin * (xf - f0)
        b = np.log(t1 / t0) / np.log(f1 / f0)
        logv = np.exp(np.log(t0) + b * (np.log(xf) - np.log(f0)))
    val = np.where(use_log, logv, lin)
    keep = inside | extrapolate
    out[keep] = np.clip(val[keep], 0.0, 1.0)
    return out.reshape(x.shape)


def roc_grid(
    fpr: npt.ArrayLike,
    tpr: npt.ArrayLike,
    *,
    points_per_decade: int = 100,
    fpr_min: float | None = None,
    scale: Scale = "log",
) -> tuple[np.ndarray, np.ndarray]:
    """A dense ROC grid, log-spaced in FPR, read with :func:`interpolate_roc`; (fpr, tpr) sorted.

    From ``fpr_min`` (default the smallest positive FPR of the curve; no extrapolation below its first point) to its
    largest FPR, ``points_per_decade`` (>= 1) per factor of ten, always including the curve's own points.

    >>> f, t = roc_grid([1e-3, 1e-2, 1e-1, 1.0], [0.1, 0.3, 0.6, 1.0], points_per_decade=1)
    >>> f.tolist()
    [0.001, 0.01, 0.1, 1.0]
    """
    f, t = check_roc(fpr, tpr)
    if isinstance(points_per_decade, bool) or not isinstance(points_per_decade, (int, np.integer)) \
            or points_per_decade < 1:
        raise ValueError(f"points_per_decade must be an integer >= 1, got {points_per_decade!r}")
    positive = f[f > 0]
    if fpr_min is None:
        fpr_min = float(positive.min()) if positive.size else 1.0
    if not (isinstance(fpr_min, (int, float)) and 0 < fpr_min <= 1):
        raise ValueError(f"fpr_min must be in (0, 1], got {fpr_min!r}")
    lo, hi = max(fpr_min, float(positive.min()) if positive.size else 1.0), float(f.max())
    grid = np.array([], dtype=float)
    if hi > 0 and lo <= hi:
        n = max(int(math.ceil(math.log10(hi / lo) * points_per_decade)) + 1, 2)
        grid = np.geomspace(lo, hi, n)
    all_f = np.unique(np.r_[grid, f[(f >= lo) | (f == 0)]])
    all_t = interpolate_roc(f, t, all_f, scale=scale)
    return all_f, all_t


# ---------------------------------------------------------------------------
# Skews
# ---------------------------------------------------------------------------


def as_skews(skews: float | str | Sequence[float | str] | np.ndarray) -> np.ndarray:
    """Skews given as numbers (non-members per member) or ``"1:30"`` strings ([FW24] §5) as a 1-D float array.

    >>> as_skews(["1:1", "1:30", 240]).tolist()
    [1.0, 30.0, 240.0]
    """
    items = [skews] if isinstance(skews, (str, int, float, np.number)) else list(skews)
    if not items:
        raise ValueError("skews must list at least one skew, got none")
    out = []
    for v in items:
        if isinstance(v, str):
            out.append(parse_skew(v))
        elif isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)):
            raise ValueError(f"skew must be a number or a 'members:non_members' string, got {v!r}")
        elif not (math.isfinite(v) and v >= 0):
            raise ValueError(f"skew must be a finite number >= 0, got {v!r}")
        else:
            out.append(float(v))
    return np.asarray(out, dtype=float)


def skew_label(skew: float) -> str:
    """The paper's member:non-member notation for a skew: ``30`` -> ``'1:30'``.

    >>> skew_label(30), skew_label(2.5)
    ('1:30', '1:2.5')
    """
    k = float(as_skews(skew)[0])
    return f"1:{k:g}"


def _skew_array(skew: npt.ArrayLike) -> np.ndarray:
    k = np.asarray(skew, dtype=float)
    if np.any(~(np.isfinite(k) & (k >= 0))):
        raise ValueError(f"skew must be a finite number >= 0, got {skew!r}")
    return k


def targets_fraction(recall: npt.ArrayLike, skew: npt.ArrayLike) -> float | np.ndarray:
    r"""Fraction of all observed individuals correctly flagged: TP / (M + N) = recall / (1 + skew).

    Our reading of "precision for 1 in *n* targets" in [FW24] §5.

    >>> targets_fraction(0.31, 30)
    0.01
    """
    r = np.asarray(recall, dtype=float)
    k = _skew_array(skew)
    out = r / (1.0 + k)
    return float(out) if np.ndim(out) == 0 else out


def recall_for_targets_fraction(fraction: npt.ArrayLike, skew: npt.ArrayLike) -> float | np.ndarray:
    r"""Inverse of :func:`targets_fraction`: recall = fraction · (1 + skew).

    ``ValueError`` if the fraction exceeds the member share 1 / (1 + skew).

    >>> round(recall_for_targets_fraction(1e-4, 30), 6)
    0.0031
    """
    fr = np.asarray(fraction, dtype=float)
    k = _skew_array(skew)
    if np.any(~((fr >= 0) & (fr <= 1))):
        raise ValueError(f"fraction must be in [0, 1], got {fr}")
    r = fr * (1.0 + k)
    if np.any(r > 1 + 1e-12):
        raise ValueError(
            f"fraction {fr} is more than the member share 1/(1+skew) at skew {k}; recall would exceed 1"
        )
    return float(r) if np.ndim(r) == 0 else r


# ---------------------------------------------------------------------------
# Curves at skews
# ---------------------------------------------------------------------------


def precision_recall_at_skews(
    fpr: npt.ArrayLike, tpr: npt.ArrayLike, skews: float | str | Sequence[float | str]
) -> pd.DataFrame:
    r"""Precision and recall of every ROC point at every skew ([FW24] §5, Eqs 6, 9, 11).

    At skew k: recall = TPR, P = TPR / (TPR + k·FPR), P_base = 1 / (1 + k) (everyone is a member), PI = (P - P_base) /
    (1 - P_base). One row per (skew, point): ``skew``, ``skew_label``, ``fpr``, ``tpr``, ``recall``, ``precision``,
    ``targets_fraction``, ``baseline_precision``, ``pi``.

    >>> pr = precision_recall_at_skews([1e-4], [0.002], ["1:30"])
    >>> round(float(pr.loc[0, "precision"]), 3), round(float(pr.loc[0, "pi"]), 3)
    (0.4, 0.38)
    """
    f, t = check_roc(fpr, tpr)
    k = as_skews(skews)
    prec, rec = roc_to_precision_recall(t[None, :], f[None, :], k[:, None])
    base = np.broadcast_to(np.asarray(baseline_precision_at_skew(k))[:, None], prec.shape)
    pi = precision_improvement_at_skew(t[None, :], f[None, :], k[:, None])
    kk = np.broadcast_to(k[:, None], prec.shape)
    labels = np.repeat(np.array([skew_label(v) for v in k], dtype=object), f.size)
    return pd.DataFrame({
        "skew": kk.ravel(),
        "skew_label": labels,
        "fpr": np.broadcast_to(f, prec.shape).ravel(),
        "tpr": np.broadcast_to(t, prec.shape).ravel(),
        "recall": np.asarray(rec).ravel(),
        "precision": np.asarray(prec).ravel(),
        "targets_fraction": (np.asarray(rec) / (1.0 + kk)).ravel(),
        "baseline_precision": base.ravel(),
        "pi": np.asarray(pi).ravel(),
    })


def everyone_is_member(skews: float | str | Sequence[float | str]) -> pd.DataFrame:
    r"""The "everyone is a member" attack at each skew ([FW24] §5): recall 1, precision 1 / (1 + k), PI 0.

    >>> everyone_is_member(["1:1", "1:30"])["precision"].round(4).tolist()
    [0.5, 0.0323]
    """
    k = as_skews(skews)
    p = np.asarray(baseline_precision_at_skew(k), dtype=float)
    return pd.DataFrame({
        "skew": k,
        "skew_label": [skew_label(v) for v in k],
        "recall": np.ones_like(k),
        "precision": p,
        "targets_fraction": p,
        "pi": np.where(p < 1, 0.0, np.nan),
    })


def everyone_is_member_result(
    is_member: npt.ArrayLike,
    *,
    targets: npt.ArrayLike | None = None,
    name: str = "everyone is a member",
) -> AttackResult:
    """The "everyone is a member" baseline on given targets, as an :class:`AttackResult` ([FW24] §5).

    Precision M / (M + N), recall 1, coverage 1: the baseline of PI (Eq 6). Pass the attack's ``targets`` so that
    :func:`anonlab.measures.score` compares on the same targets.

    >>> from anonlab.measures import score
    >>> base = everyone_is_member_result([True, False, False, False])
    >>> s = score(base)
    >>> s.precision, s.coverage, s.recall
    (0.25, 1.0, 1.0)
    """
    m = np.asarray(is_member)
    if m.ndim != 1 or (m.dtype != bool and not np.all(np.isin(m, (0, 1)))):
        raise ValueError("is_member must be a one-dimensional boolean (or 0/1) array")
    m = m.astype(bool)
    return AttackResult.from_predictions(name, m, np.ones(m.size, dtype=bool), targets=targets,
                                         predicted=np.ones(m.size, dtype=bool), positive=True,
                                         baseline_kind=MEMBER_SHARE)


@dataclass(frozen=True)
class OperatingPoint:
    """One ROC point (``fpr``, ``tpr``) read at ``skew``: its ``precision`` ([FW24] Eq 11), ``targets_fraction``."""

    skew: float
    fpr: float
    tpr: float
    precision: float
    targets_fraction: float

    @property
    def recall(self) -> float:
        """Recall, equal to TPR ([FW24] Eq 9)."""
        return self.tpr

    @property
    def one_in(self) -> float:
        """The attack finds one member per this many observed individuals, ``1/targets_fraction``."""
        return 1.0 / self.targets_fraction if self.targets_fraction > 0 else math.inf

    @property
    def one_in_members(self) -> float:
        """The attack finds one member per this many members, ``1/recall``."""
        return 1.0 / self.tpr if self.tpr > 0 else math.inf


def _point(skew: float, f: float, t: float) -> OperatingPoint:
    if math.isnan(t) or math.isnan(f):
        return OperatingPoint(skew, math.nan, math.nan, math.nan, math.nan)
    p, _ = roc_to_precision_recall(t, f, skew)
    return OperatingPoint(skew=skew, fpr=f, tpr=t, precision=float(p),
                          targets_fraction=t / (1.0 + skew))


def _check_unit_open_low(name: str, value: float) -> float:
    return check_number(name, _plain(value), low=0, high=1, low_inclusive=False)


def _scalar_skew(skew: float | str) -> float:
    k = as_skews(skew)
    if k.size != 1:
        raise ValueError(f"skew must be a single skew, got {skew!r}")
    return float(k[0])


def max_recall_at_precision(
    fpr: npt.ArrayLike,
    tpr: npt.ArrayLike,
    skew: float | str,
    min_precision: float,
    *,
    scale: Scale = "log",
) -> OperatingPoint:
    r"""The highest recall at which the curve, read with ``scale``, keeps ``min_precision`` at ``skew``.

    Solves TPR·(1 - p) >= p·k·FPR ([FW24] Eq 11) exactly on each segment (linear in position, or in log FPR on
    log-log). How "95 % precision for only 1 in 8000 targets" ([FW24] §5) is checked. All fields ``nan`` if the bar is
    never reached.

    >>> pt = max_recall_at_precision([0, 1e-4, 1], [0, 0.002, 1], "1:30", 0.4)
    >>> round(pt.tpr, 6), round(pt.precision, 3)
    (0.002, 0.4)
    """
    _check_scale(scale)
    f, t = _envelope(*check_roc(fpr, tpr))
    k = _scalar_skew(skew)
    p = _check_unit_open_low("min_precision", min_precision)
    best_f, best_t = _max_recall(f, t, np.array([k]), np.array([p]), scale)
    return _point(k, float(best_f[0]), float(best_t[0]))


def max_recall_at_precisions(
    fpr: npt.ArrayLike,
    tpr: npt.ArrayLike,
    skews: npt.ArrayLike,
    min_precisions: npt.ArrayLike,
    *,
    scale: Scale = "log",
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`max_recall_at_precision` for many broadcast (skew, precision bar) pairs at once: (fpr, recall).

    >>> f, r = max_recall_at_precisions([0, 1e-4, 1], [0, 0.002, 1], [30, 30], [0.4, 0.9])
    >>> np.round(r, 6).tolist()
    [0.002, nan]
    """
    _check_scale(scale)
    f, t = _envelope(*check_roc(fpr, tpr))
    k, p = np.broadcast_arrays(np.asarray(skews, dtype=float), np.asarray(min_precisions, dtype=float))
    if np.any(~(k >= 0)) or np.any(~((p > 0) & (p <= 1))):
        raise ValueError("skews must be >= 0 and min_precisions in (0, 1]")
    best_f, best_t = _max_recall(f, t, k.ravel(), p.ravel(), scale)
    return best_f.reshape(k.shape), best_t.reshape(k.shape)


def _max_recall(f: np.ndarray, t: np.ndarray, k: np.ndarray, p: np.ndarray, scale: str
                ) -> tuple[np.ndarray, np.ndarray]:
    r"""Closed-form max recall per case ``(k[i], p[i])`` over points and segments: (FPR, TPR), ``nan`` if none."""
    k, p = k[:, None], p[:, None]

    def margin(ff: np.ndarray, tt: np.ndarray) -> np.ndarray:
        # precision >= p  <=>  tt*(1-p) - p*k*ff >= 0, and someone is flagged
        return np.where(tt > 0, tt * (1.0 - p) - p * k * ff, -np.inf)

    point_ok = margin(f, t) >= -1e-15
    cand_f = [np.broadcast_to(f, point_ok.shape)]
    cand_t = [np.where(point_ok, t, np.nan)]
    if scale != "step" and f.size > 1:
        f0, f1, t0, t1 = f[:-1], f[1:], t[:-1], t[1:]
        logs = (p < 1) & (k > 0)
        use_log = _segment_is_log(f0, t0, f1, t1) & (scale == "log") & logs
        with np.errstate(divide="ignore", invalid="ignore"):
            # h(s) linear in s on [0, 1]; s is the position along the segment
            # (in log FPR for log segments)
            h0_lin, h1_lin = margin(f0, t0), margin(f1, t1)
            c = np.where(logs, np.log(p * k / (1.0 - p)), 0.0)
            h0_log = np.log(t0) - np.log(f0) - c
            h1_log = np.log(t1) - np.log(f1) - c
            h0 = np.where(use_log, h0_log, h0_lin)
            h1 = np.where(use_log, h1_log, h1_lin)
            s_cross = h0 / (h0 - h1)
        s = np.where(h1 >= 0, 1.0, np.where(h0 >= 0, s_cross, np.nan))
        s = np.where((t0 == t1) & (h0 >= 0), 0.0, s)  # flat: same recall, better precision at the start
        with np.errstate(divide="ignore", invalid="ignore"):
            fs_lin = f0 + s * (f1 - f0)
            ts_lin = t0 + s * (t1 - t0)
            fs_log = np.exp(np.log(f0) + s * (np.log(f1) - np.log(f0)))
            ts_log = np.exp(np.log(t0) + s * (np.log(t1) - np.log(t0)))
        fs = np.where(use_log, fs_log, fs_lin)
        ts = np.where(use_log, ts_log, ts_lin)
        cand_f.append(fs)
        cand_t.append(np.where(np.isfinite(s) & (ts > 0), ts, np.nan))
    cf, ct = np.concatenate(cand_f, axis=1), np.concatenate(cand_t, axis=1)
    found = ~np.isnan(ct)
    top = np.max(np.where(found, ct, -np.inf), axis=1, keepdims=True)
    best = found & (ct >= top - 1e-15)
    i = np.argmin(np.where(best, cf, np.inf), axis=1)
    rows = np.arange(k.shape[0])
    any_found = found.any(axis=1)
    return (np.where(any_found, cf[rows, i], np.nan),
            np.where(any_found, np.minimum(ct[rows, i], 1.0), np.nan))


def max_recall_table(
    fpr: npt.ArrayLike,
    tpr: npt.ArrayLike,
    skews: float | str | Sequence[float | str],
    min_precisions: float | Sequence[float],
    *,
    scales: Sequence[str] = ("log",),
) -> pd.DataFrame:
    """:func:`max_recall_at_precision` for every (skew, precision bar, reading), one row each.

    Columns ``skew``, ``skew_label``, ``min_precision``, ``scale``, ``fpr``, ``recall``, ``precision``,
    ``targets_fraction``, ``one_in_targets``, ``one_in_members``.

    >>> t = max_recall_table([1e-5, 1e-4, 1], [0.1, 0.2, 1], ["1:240"], [0.95])
    >>> round(float(t.loc[0, "recall"]), 3)
    0.14
    """
    ps = [min_precisions] if isinstance(min_precisions, (int, float)) else list(min_precisions)
    for p in ps:
        _check_unit_open_low("min_precision", p)
    for sc in scales:
        _check_scale(sc)
    ks = as_skews(skews)
    f, t = _envelope(*check_roc(fpr, tpr))
    grid_k, grid_p = (a.ravel() for a in np.meshgrid(ks, np.asarray(ps, dtype=float), indexing="ij"))
    solved = {sc: _max_recall(f, t, grid_k, grid_p, sc) for sc in scales}  # every (skew, bar) in one pass
    rows = []
    for i, (k, p) in enumerate(zip(grid_k, [q for _ in ks for q in ps])):
        for sc in scales:
            pt = _point(float(k), float(solved[sc][0][i]), float(solved[sc][1][i]))
            rows.append({"skew": k, "skew_label": skew_label(k), "min_precision": p, "scale": sc,
                         "fpr": pt.fpr, "recall": pt.tpr, "precision": pt.precision,
                         "targets_fraction": pt.targets_fraction,
                         "one_in_targets": pt.one_in if pt.tpr == pt.tpr else math.nan,
                         "one_in_members": pt.one_in_members if pt.tpr == pt.tpr else math.nan})
    return pd.DataFrame(rows)


def empirical_max_recall_table(
    roc: RocCurve,
    skews: float | str | Sequence[float | str],
    min_precisions: float | Sequence[float],
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Largest recall at a precision bar on a measured curve, with a conservative variant.

    A threshold with no false positive has precision 1 at every skew, which only says FPR << 1/N; the conservative
    variant asks the lower end of :func:`precision_interval_at_skew` to clear the bar (``nan`` recall, ``inf`` one-in
    where no threshold does).

    >>> roc = roc_from_scores([3, 2, 1, 0], [True, True, False, False])
    >>> t = empirical_max_recall_table(roc, 30, 0.9)
    >>> float(t.loc[0, "recall"]), float(t.loc[0, "recall_conservative"])
    (1.0, nan)
    """
    ps = [min_precisions] if isinstance(min_precisions, (int, float)) else list(min_precisions)
    for p in ps:
        _check_unit_open_low("min_precision", p)
    tp, fp, t = roc.tp[1:], roc.fp[1:], roc.tpr[1:]
    rows = []
    for k in as_skews(skews):
        prec, _ = roc_to_precision_recall(t, roc.fpr[1:], k)
        low, _ = precision_interval_at_skew(tp, roc.n_members, fp, roc.n_non_members, k, confidence)
        for p in ps:
            r = float(t[prec >= p].max()) if np.any(prec >= p) else math.nan
            rc = float(t[low >= p].max()) if np.any(low >= p) else math.nan
            rows.append({"skew": k, "skew_label": skew_label(k), "min_precision": p,
                         "recall": r, "one_in_targets": (1 + k) / r if r > 0 else math.inf,
                         "recall_conservative": rc,
                         "one_in_targets_conservative": (1 + k) / rc if rc > 0 else math.inf})
    return pd.DataFrame(rows)


def subsample_to_skew(
    is_member: npt.ArrayLike, skew: float | str, seed: int | np.random.Generator
) -> np.ndarray:
    """Indices of a random subsample (drawn from ``seed``) with ``skew`` non-members per member.

    Keeps as many records as possible: all non-members and round(N / skew) members, or all members and round(M·skew)
    non-members. The direct check of [FW24] Eq 11.

    >>> idx = subsample_to_skew([True] * 10 + [False] * 30, "1:3", np.random.default_rng(0))
    >>> len(idx)
    40
    >>> idx = subsample_to_skew([True] * 10 + [False] * 30, "1:30", np.random.default_rng(0))
    >>> len(idx), int(np.sum(np.asarray([True] * 10 + [False] * 30)[idx]))
    (31, 1)
    """
    m = np.asarray(is_member, dtype=bool)
    rng = check_random_state(seed)
    k = _scalar_skew(skew)
    if k <= 0:
        raise ValueError(f"skew must be > 0 to subsample, got {skew!r}")
    mem, non = np.flatnonzero(m), np.flatnonzero(~m)
    n_mem = int(round(non.size / k))
    if n_mem <= mem.size:
        if n_mem < 1:
            raise ValueError(f"too few non-members ({non.size}) for one member at skew {skew!r}")
        pick_m, pick_n = rng.choice(mem, n_mem, replace=False), non
    else:
        n_non = int(round(mem.size * k))
        pick_m, pick_n = mem, rng.choice(non, n_non, replace=False)
    return np.sort(np.r_[pick_m, pick_n])


def full_recall_vs_baseline(
    fpr: npt.ArrayLike,
    tpr: npt.ArrayLike,
    skews: float | str | Sequence[float | str],
    *,
    scale: Scale = "log",
) -> pd.DataFrame:
    """Precision at recall 1 against predicting that everyone is a member ([FW24] §5, last statement).

    Columns ``skew``, ``skew_label``, ``fpr`` (where TPR first reaches 1), ``precision``, ``baseline_precision``,
    ``pi`` (Eq 6), ``beats_baseline``.

    >>> t = full_recall_vs_baseline([0.1, 0.25, 1], [0.75, 1, 1], ["1:30"])
    >>> round(float(t.loc[0, "precision"]), 4), bool(t.loc[0, "beats_baseline"])
    (0.1176, True)
    """
    rows = []
    for k in as_skews(skews):
        pt = precision_at_recall(fpr, tpr, k, 1.0, scale=scale)
        base = float(baseline_precision_at_skew(k))
        rows.append({"skew": k, "skew_label": skew_label(k), "fpr": pt.fpr, "precision": pt.precision,
                     "baseline_precision": base,
                     "pi": float(precision_improvement(pt.precision, base)) if base < 1 else math.nan,
                     "beats_baseline": bool(pt.precision > base + 1e-12)})
    return pd.DataFrame(rows)


def counted_precision(
    scores: npt.ArrayLike,
    is_member: npt.ArrayLike,
    threshold: float,
    skew: float | str,
    seed: int | np.random.Generator,
    confidence: float = 0.95,
) -> dict[str, float]:
    """Precision TP / (TP + FP) counted on a :func:`subsample_to_skew` draw, flagging scores >= ``threshold``.

    The direct check of [FW24] Eq 11; a dict of ``members``, ``non_members``, ``tp``, ``fp``, ``precision`` (``nan``
    if no one is flagged), ``ci_low``, ``ci_high`` (Wilson).

    >>> c = counted_precision([3, 2, 1, 0], [True, False, True, False], 2, "1:1", np.random.default_rng(0))
    >>> c["tp"], c["fp"], c["precision"]
    (1, 1, 0.5)
    """
    s = _vector("scores", scores)
    m = np.asarray(is_member, dtype=bool)
    if m.shape != s.shape:
        raise ValueError(f"is_member must have the length of scores ({s.size}), got {m.size}")
    idx = subsample_to_skew(m, skew, seed)
    flag = s[idx] >= threshold
    tp, fp = int(np.sum(flag & m[idx])), int(np.sum(flag & ~m[idx]))
    lo, hi = wilson_interval(tp, tp + fp, confidence)
    return {"members": int(m[idx].sum()), "non_members": int((~m[idx]).sum()), "tp": tp, "fp": fp,
            "precision": float(precision(tp, fp)), "ci_low": float(lo), "ci_high": float(hi)}


def precision_at_recall(
    fpr: npt.ArrayLike,
    tpr: npt.ArrayLike,
    skew: float | str,
    recall: float,
    *,
    scale: Scale = "log",
    extrapolate: bool = False,
) -> OperatingPoint:
    """The curve's best precision at ``recall`` at a skew: Eq 11 at the smallest FPR reaching it.

    Below the curve's first non-zero point the fields are ``nan`` unless ``extrapolate`` extends the first segment (to
    show what a reading *would* give, not a measurement).

    >>> pt = precision_at_recall([1e-4, 1e-3], [0.002, 0.015], "1:30", 0.0031)
    >>> round(pt.precision, 3)
    0.385
    """
    _check_scale(scale)
    f, t = _envelope(*check_roc(fpr, tpr))
    k = _scalar_skew(skew)
    r = _check_unit_open_low("recall", recall)
    if r > t[-1] + 1e-15:
        return _point(k, math.nan, math.nan)
    i = int(np.searchsorted(t, r - 1e-15, side="left"))  # first point with t >= r
    if scale == "step" or (i < f.size and abs(t[i] - r) <= 1e-15):
        return _point(k, float(f[i]), float(t[i]))
    if i == 0:
        if not extrapolate or f.size < 2:
            return _point(k, math.nan, math.nan)
        i = 1  # extend the first segment
    f0, f1, t0, t1 = f[i - 1], f[i], t[i - 1], t[i]
    if scale == "log" and min(f0, f1, t0, t1) > 0 and t1 > t0:
        b = math.log(t1 / t0) / math.log(f1 / f0)
        x = math.exp(math.log(f0) + (math.log(r) - math.log(t0)) / b)
    else:
        x = f0 + (r - t0) * (f1 - f0) / (t1 - t0)
    return _point(k, float(min(max(x, 0.0), 1.0)), r)


def tpr_at_fpr(fpr: npt.ArrayLike, tpr: npt.ArrayLike, target_fpr: npt.ArrayLike) -> np.ndarray:
    """TPR at a fixed low FPR (Carlini et al. 2022): the best TPR with FPR <= ``target_fpr`` (a step reading).

    >>> tpr_at_fpr([0, 0.001, 0.01, 1], [0, 0.2, 0.5, 1], [1e-3, 5e-3]).tolist()
    [0.2, 0.2]
    """
    return interpolate_roc(fpr, tpr, target_fpr, scale="step")


def threshold_at_fpr(roc: RocCurve, target_fpr: float) -> float:
    """The score threshold of the best point with FPR <= ``target_fpr`` (fewest false positives among ties).

    ``+inf`` (flag no one) when only the first point qualifies.

    >>> roc = roc_from_scores([0.9, 0.8, 0.7, 0.1], [True, False, True, False])
    >>> threshold_at_fpr(roc, 0.4), threshold_at_fpr(roc, 0.5)
    (0.9, 0.7)
    """
    t = float(target_fpr)
    if isinstance(target_fpr, bool) or not 0 < t <= 1:
        raise ValueError(f"target_fpr must be in (0, 1], got {target_fpr!r}")
    j = int(np.searchsorted(roc.fpr, t, side="right")) - 1
    i = int(np.searchsorted(roc.tpr, roc.tpr[j], side="left"))
    return float(roc.threshold[i])


def precision_interval_at_skew(
    tp: npt.ArrayLike,
    n_members: npt.ArrayLike,
    fp: npt.ArrayLike,
    n_non_members: npt.ArrayLike,
    skew: npt.ArrayLike,
    confidence: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    r"""A conservative interval [t₋ / (t₋ + k·f₊), t₊ / (t₊ + k·f₋)] for a measured precision at skew k.

    t± and f± are the Wilson intervals of TPR (``tp`` of ``n_members``) and FPR (``fp`` of ``n_non_members``); [FW24]
    Eq 11 rises in TPR and falls in FPR. Wide at low FPR.

    >>> lo, hi = precision_interval_at_skew(50, 1000, 0, 1000, 30)
    >>> float(hi), round(float(lo), 3)
    (1.0, 0.249)
    """
    tl, th = wilson_interval(tp, n_members, confidence)
    fl, fh = wilson_interval(fp, n_non_members, confidence)
    k = _skew_array(skew)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.asarray(tl) / (np.asarray(tl) + k * np.asarray(fh))
        high = np.asarray(th) / (np.asarray(th) + k * np.asarray(fl))
    return low, high


def low_fpr_table(
    roc: RocCurve,
    target_fprs: npt.ArrayLike = (1e-3, 1e-4),
    confidence: float = 0.95,
    skews: float | str | Sequence[float | str] | None = None,
) -> pd.DataFrame:
    """TPR at fixed low FPRs of an empirical curve, with Wilson intervals.

    Per target FPR the best threshold with at most floor(target·N) false positives; a target below 1/N is ``resolvable
    = False``. Columns ``target_fpr``, ``tpr``, ``tpr_low``, ``tpr_high``, ``tp``, ``fp``, ``fpr``, ``resolvable``;
    with ``skews`` one row per (target, skew) plus ``skew``, ``skew_label``, ``precision`` (Eq 11), ``precision_low``,
    ``precision_high``.
    """
    targets = np.atleast_1d(np.asarray(target_fprs, dtype=float))
    if np.any(~((targets > 0) & (targets <= 1))):
        raise ValueError(f"target_fprs must be in (0, 1], got {targets.tolist()}")
    f, t = roc.fpr, roc.tpr
    j = np.searchsorted(f, targets, side="right") - 1
    # among points with f <= target the last one has the highest TPR (tpr is non-decreasing);
    # the first point reaching that TPR has the fewest false positives
    i = np.searchsorted(t, t[j], side="left")
    tp, fp = roc.tp[i], roc.fp[i]
    low, high = wilson_interval(tp, roc.n_members, confidence)
    out = pd.DataFrame({
        "target_fpr": targets,
        "tpr": t[i],
        "tpr_low": np.atleast_1d(low),
        "tpr_high": np.atleast_1d(high),
        "tp": tp,
        "fp": fp,
        "fpr": f[i],
        "resolvable": targets * roc.n_non_members >= 1,
    })
    if skews is None:
        return out
    k = as_skews(skews)
    rows = out.loc[out.index.repeat(k.size)].reset_index(drop=True)
    kk = np.tile(k, len(out))
    prec, _ = roc_to_precision_recall(rows["tpr"].to_numpy(), rows["fpr"].to_numpy(), kk)
    plo, phi = precision_interval_at_skew(rows["tp"].to_numpy(), roc.n_members, rows["fp"].to_numpy(),
                                          roc.n_non_members, kk, confidence)
    return rows.assign(skew=kk, skew_label=[skew_label(v) for v in kk], precision=prec,
                       precision_low=plo, precision_high=phi)


# ---------------------------------------------------------------------------
# The worked example of [FW24] §1
# ---------------------------------------------------------------------------


def plot_line_reach(fpr: np.ndarray, tpr: np.ndarray, skew: float, min_precision: float) -> float:
    r"""The largest x at which the paper's own Fig. 9 (right) line still has precision ``min_precision``.

    The authors' code (``base_rate_code/prroc.py``) plots each Fig. 10 point's Eq 11 precision against its FPR on a
    log axis labelled "Recall", joined linearly; NaN if never reached.

    >>> round(plot_line_reach(np.array([1e-4, 1e-3]), np.array([0.2, 0.35]), 30.0, 0.95), 6)
    0.000354
    """
    f, t = np.asarray(fpr, float), np.asarray(tpr, float)
    keep = f > 0
    x, y = f[keep], t[keep] / (t[keep] + skew * f[keep])
    order = np.argsort(x)
    x, y = x[order], y[order]
    best = float(x[y >= min_precision].max()) if (y >= min_precision).any() else math.nan
    lx = np.log10(x)
    for i in range(x.size - 1):
        if (y[i] >= min_precision) != (y[i + 1] >= min_precision):
            s = (y[i] - min_precision) / (y[i] - y[i + 1])
            best = float(np.nanmax([best, 10 ** (lx[i] + s * (lx[i + 1] - lx[i]))]))
    return best


def precision_at_fpr(fpr: np.ndarray, tpr: np.ndarray, skew: float, at_fpr: float) -> float:
    """Precision (Eq 11) of a curve read on log-log axes at one FPR.

    >>> precision_at_fpr(np.array([1e-5, 1e-4, 1.0]), np.array([3e-4, 0.002, 1.0]), 30.0, 1e-4)
    0.4
    """
    t = float(interpolate_roc(fpr, tpr, [at_fpr])[0])
    return round(t / (t + skew * at_fpr), 12)


def ranking_kept(cv: Mapping[str, tuple[np.ndarray, np.ndarray]], skew: float, n_recalls: int = 25) -> bool:
    """At ``skew``, do the attacks rank at every common recall as their ROC curves do (§5)?

    >>> cv = {"a": (np.array([1e-4, 1.0]), np.array([0.1, 1.0])), "b": (np.array([1e-3, 1.0]), np.array([0.1, 1.0]))}
    >>> ranking_kept(cv, 10.0)
    True
    """
    names = list(cv)
    low = max(float(cv[a][1][cv[a][1] > 0].min()) for a in names)
    grid = np.geomspace(low, 1.0, n_recalls)
    ok = True
    for r in grid:
        pts = [precision_at_recall(*cv[a], skew, float(r)) for a in names]
        for i in range(len(pts)):
            for j in range(i + 1, len(pts)):
                by_prec = np.sign(round(pts[i].precision - pts[j].precision, 12))
                by_fpr = np.sign(round(pts[j].fpr - pts[i].fpr, 15))
                ok &= bool(by_prec == by_fpr)
    return ok


def worked_example(
    population: float, fpr: float, fnr: float, member_share: npt.ArrayLike
) -> pd.DataFrame:
    r"""The base-rate example of [FW24] §1 for any population mix: TP = (1 - FNR)·M, FP = FPR·N.

    Columns ``member_share``, ``skew``, ``members``, ``non_members``, ``tp``, ``fp``, ``precision`` (Eq 2),
    ``baseline_precision``, ``pi`` (Eq 6).

    >>> worked_example(2000, 0.05, 0.0, 0.5)["precision"].round(3).tolist()
    [0.952]
    """
    check_number("population", _plain(population), low=0, low_inclusive=False)
    for name, v in (("fpr", fpr), ("fnr", fnr)):
        check_number(name, _plain(v), low=0, high=1)
    share = np.atleast_1d(np.asarray(member_share, dtype=float))
    if np.any(~((share >= 0) & (share <= 1))):
        raise ValueError(f"member_share must be in [0, 1], got {share[~((share >= 0) & (share <= 1))][0]:g}")
    m = share * population
    n = population - m
    tp = (1.0 - fnr) * m
    fp = fpr * n
    prec = np.atleast_1d(precision(tp, fp))
    base = share
    with np.errstate(divide="ignore", invalid="ignore"):
        skew = np.where(m > 0, n / np.where(m > 0, m, 1), np.inf)
    return pd.DataFrame({
        "member_share": share,
        "skew": skew,
        "members": m,
        "non_members": n,
        "tp": tp,
        "fp": fp,
        "precision": prec,
        "baseline_precision": base,
        "pi": np.atleast_1d(precision_improvement(prec, base)),
    })

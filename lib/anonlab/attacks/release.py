"""Attacks on a published table (a synthetic copy or a generalized extract), each an :class:`AttackResult`.

Every function returns what the attack did target by target; :func:`anonlab.measures.score` scores it against a
baseline on the same targets ([FW24] §4.3). The targets are members (people whose rows the release was made from); the
baseline is a model fitted on non-members (:func:`nonmember_model`, [FW24] §4).

* :func:`nearest_row_attack`: Anonymeter's inference attack (Giomi et al., PoPETs 2023(2), §3.3): the release row
  nearest to the target on the known columns (Gower-like distance) gives the guess;
* :func:`release_model_attack`: a model trained on the release ([FW24] §4.7's "prior framework", chapter 5);
* :func:`singling_out_attack`: predicates read off release rows that isolate exactly one member (Anonymeter §3.1),
  with :func:`singling_out_baseline`, the same predicates on as many non-members;
* :func:`homogeneity_release_attack`: the homogeneity attack on a generalized extract (chapter 1);
* :func:`closest_record_membership`: membership by the distance to the closest release record, at member:non-member
  skews ([FW24] §5, chapter 7).

[FW24] P. Francis and D. Wagner, arXiv:2403.06595 (2024).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from anonlab.attacks.homogeneity import homogeneity_attack
from anonlab.measures.base_rates import as_skews, precision_interval_at_skew, roc_from_scores, skew_label
from anonlab.measures.nonmember import (CONTINUOUS, ModelSettings, correct_within, fit_predict)
from anonlab.measures.protocol import NONMEMBER_MODEL, AttackResult
from anonlab.measures.rates import baseline_precision_at_skew, precision_improvement, roc_to_precision_recall

__all__ = ["gower_nearest", "nearest_row_attack", "release_model_attack", "nonmember_model", "singling_out_attack",
           "singling_out_baseline", "homogeneity_release_attack", "closest_record_membership", "row_keys"]

#: Entries of the distance matrix computed at once (targets × release rows), about 32 MB of float64.
_BLOCK = 4_000_000


def _encode(release: pd.DataFrame, targets: pd.DataFrame, columns: Sequence[str], kinds: Mapping[str, str]
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Numeric columns as floats with their range over both tables; the others as shared integer codes."""
    nums = [c for c in columns if kinds.get(c) == CONTINUOUS]
    cats = [c for c in columns if c not in nums]
    rn = np.empty((len(release), len(nums)))
    tn = np.empty((len(targets), len(nums)))
    spans = np.ones(len(nums))
    for j, c in enumerate(nums):
        rn[:, j] = pd.to_numeric(release[c], errors="raise").to_numpy(dtype=float)
        tn[:, j] = pd.to_numeric(targets[c], errors="raise").to_numpy(dtype=float)
        both = np.concatenate([rn[:, j], tn[:, j]])
        spans[j] = (float(np.nanmax(both) - np.nanmin(both)) if np.isfinite(both).any() else 0.0) or 1.0
    rc = np.empty((len(release), len(cats)), dtype=np.int64)
    tc = np.empty((len(targets), len(cats)), dtype=np.int64)
    for j, c in enumerate(cats):
        codes, _ = pd.factorize(pd.concat([release[c], targets[c]], ignore_index=True).astype(str))
        rc[:, j], tc[:, j] = codes[:len(release)], codes[len(release):]
    return rn, tn, rc, tc, spans


#: Targets per task when :func:`gower_nearest` is given an executor's ``map``.
CHUNK = 256

Mapper = Callable[[Callable[[Any], Any], Iterable[Any]], Iterable[Any]]


def gower_nearest(release: pd.DataFrame, targets: pd.DataFrame, columns: Sequence[str],
                  kinds: Mapping[str, str], *, mapper: Mapper | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""Position of each target's nearest release row and the distance to it, on ``columns``.

    :math:`d(x, y) = \frac{1}{p}\sum_j d_j`, with :math:`d_j = |x_j - y_j| / \text{range}_j` for a continuous column
    (range over both tables) and :math:`d_j = [x_j \ne y_j]` for the others (Gower, Biometrics 27(4), 1971;
    Anonymeter's distance). A missing numeric value is 1 away from any number, 0 from another missing one. Ties go to
    the first release row. Distances in [0, 1].

    ``mapper`` is an executor's map (``mapper(fn, chunks)`` returning the results in order, as the builtin ``map``
    does, or a Dask client's ``map`` then ``gather``): the targets are then cut into chunks of :data:`CHUNK` rows,
    each compared with the whole release as one task. The answer is the same with or without it.

    >>> r = pd.DataFrame({"a": [0.0, 10.0], "b": ["x", "y"]})
    >>> gower_nearest(r, pd.DataFrame({"a": [9.0], "b": ["y"]}), ["a", "b"], {"a": "continuous"})
    (array([1]), array([0.05]))
    """
    if not len(release):
        raise ValueError("the release has no rows to compare with")
    rn, tn, rc, tc, spans = _encode(release, targets, columns, kinds)
    # categorical columns: the mismatches are (columns) − (matches), the matches one product of indicator
    # matrices (a code per column and value); exact, as the counts are small integers
    side = _ReleaseSide(rn, rc, _indicators(rc), spans,
                        tuple(bool(np.isnan(rn[:, j]).any() or np.isnan(tn[:, j]).any()) for j in range(rn.shape[1])),
                        max(len(columns), 1))
    if mapper is None:
        return side.nearest((tn, tc))
    chunks = [(tn[lo:lo + CHUNK], tc[lo:lo + CHUNK]) for lo in range(0, len(targets), CHUNK)]
    parts = list(mapper(side.nearest, chunks))
    if not parts:
        return np.empty(0, dtype=np.int64), np.empty(0)
    return np.concatenate([i for i, _ in parts]), np.concatenate([d for _, d in parts])


@dataclass(frozen=True)
class _ReleaseSide:
    """The release's encoding for :func:`gower_nearest`, and the nearest rows of some encoded targets."""

    rn: np.ndarray
    rc: np.ndarray
    r_hot: np.ndarray
    spans: np.ndarray
    has_nan: tuple[bool, ...]
    p: int

    def nearest(self, encoded: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        tn, tc = encoded
        rn, rc = self.rn, self.rc
        index = np.empty(len(tn), dtype=np.int64)
        dist = np.empty(len(tn))
        step = max(1, _BLOCK // len(rn))
        for lo in range(0, len(tn), step):
            hi = min(lo + step, len(tn))
            if rc.shape[1]:
                d = rc.shape[1] - _indicators(tc[lo:hi], like=rc) @ self.r_hot.T
            else:
                d = np.zeros((hi - lo, len(rn)))
            buf = np.empty_like(d)
            for j in range(rn.shape[1]):
                np.subtract(tn[lo:hi, j, None], rn[None, :, j], out=buf)
                np.abs(buf, out=buf)
                buf /= self.spans[j]  # equal gaps, equal distances
                if self.has_nan[j]:
                    nan_t, nan_r = np.isnan(tn[lo:hi, j, None]), np.isnan(rn[None, :, j])
                    buf = np.where(nan_t | nan_r, np.where(nan_t & nan_r, 0.0, 1.0), buf)
                d += buf
            index[lo:hi] = d.argmin(axis=1)
            dist[lo:hi] = d[np.arange(hi - lo), index[lo:hi]] / self.p
        return index, dist


def _indicators(codes: np.ndarray, like: np.ndarray | None = None) -> np.ndarray:
    """One indicator column per (column, value) of integer ``codes`` (rows × columns), as floats: the product
    of two such matrices counts the columns on which two rows agree. ``like`` gives the codes whose values
    set the width (the release's), so that both matrices share their columns; a value beyond them matches
    nothing."""
    ref = codes if like is None else like
    width = np.concatenate([[0], np.cumsum(ref.max(axis=0, initial=-1) + 1)]) if ref.size else np.zeros(1, int)
    out = np.zeros((len(codes), int(width[-1])))
    for j in range(codes.shape[1]):
        ok = codes[:, j] < width[j + 1] - width[j]
        out[np.nonzero(ok)[0], width[j] + codes[ok, j]] = 1.0
    return out


def _judge(secret: str, kinds: Mapping[str, str], settings: ModelSettings, value_range: float | None,
           prediction: np.ndarray, truth: np.ndarray) -> np.ndarray | None:
    """Correctness of continuous guesses by the tolerance rule of the baseline ([FW24] §4.4); None if categorical."""
    if kinds.get(secret) != CONTINUOUS:
        return None
    return correct_within(prediction.astype(float), truth.astype(float), settings.tolerance,
                          settings.tolerance_basis, value_range)


def nearest_row_attack(release: pd.DataFrame, targets: pd.DataFrame, secret: str, known: Sequence[str], *,
                       kinds: Mapping[str, str], settings: ModelSettings = ModelSettings(),
                       value_range: float | None = None, name: str = "nearest release row",
                       mapper: Mapper | None = None) -> AttackResult:
    """Guess each target's ``secret`` as that of the release row nearest on ``known`` (:func:`gower_nearest`).

    Anonymeter's inference attack (Giomi et al. 2023, §3.3): a guess for every target (coverage 1); ``confidence`` is
    1 − distance. A continuous secret is right within the baseline's tolerance. Ties: where several release rows lie
    at the smallest distance, the guess is the secret of the first of them in the release's order (``argmin``);
    Anonymeter may break such a tie otherwise, so the two attacks can guess differently on a tied target. ``mapper``:
    the target loop on an executor (:func:`gower_nearest`).

    >>> r = pd.DataFrame({"a": ["x", "y"], "s": ["p", "q"]})
    >>> nearest_row_attack(r, r, "s", ["a"], kinds={}).prediction.tolist()
    ['p', 'q']
    """
    index, dist = gower_nearest(release, targets, list(known), kinds, mapper=mapper)
    guess = release[secret].to_numpy()[index]
    truth = targets[secret].to_numpy()
    if kinds.get(secret) != CONTINUOUS:
        guess, truth = guess.astype(str).astype(object), truth.astype(str).astype(object)
    return AttackResult(name, targets.index.to_numpy(), truth, np.ones(len(targets), dtype=bool),
                        np.asarray(guess, dtype=object), confidence=1.0 - dist,
                        correct=_judge(secret, kinds, settings, value_range, guess, truth),
                        resources={"release_rows": float(len(release)), "known_attributes": float(len(known))})


def release_model_attack(release: pd.DataFrame, targets: pd.DataFrame, secret: str, known: Sequence[str], *,
                         kinds: Mapping[str, str], settings: ModelSettings = ModelSettings(),
                         value_range: float | None = None) -> AttackResult:
    """The non-member framework's analysis fitted on the release, predicting the targets ([FW24] §4.7, Fig 8)."""
    return fit_predict(release, targets, secret, known=list(known), kinds=kinds, settings=settings,
                       value_range=value_range, name=f"model trained on the release: {secret}")


def nonmember_model(non_members: pd.DataFrame, targets: pd.DataFrame, secret: str, known: Sequence[str], *,
                    kinds: Mapping[str, str], settings: ModelSettings = ModelSettings(),
                    value_range: float | None = None) -> AttackResult:
    """The baseline: the same analysis fitted on people the release never saw, predicting the targets ([FW24] §4)."""
    res = fit_predict(non_members, targets, secret, known=list(known), kinds=kinds, settings=settings,
                      value_range=value_range, name=f"non-member model: {secret}")
    return replace(res, baseline_kind=NONMEMBER_MODEL)


def row_keys(table: pd.DataFrame, columns: Sequence[str], kinds: Mapping[str, str]) -> np.ndarray:
    """One 64-bit hash per row of its values on ``columns`` (continuous as floats, the others as text)."""
    view = pd.DataFrame({c: (pd.to_numeric(table[c], errors="raise").astype(float) if kinds.get(c) == CONTINUOUS
                             else table[c].astype(str)) for c in columns})
    return pd.util.hash_pandas_object(view, index=False).to_numpy()


def _matches(predicates: np.ndarray, table: pd.DataFrame, columns: Sequence[str], kinds: Mapping[str, str]
             ) -> np.ndarray:
    counts = pd.Series(row_keys(table, columns, kinds)).value_counts()
    return counts.reindex(predicates, fill_value=0).to_numpy()


def singling_out_attack(release: pd.DataFrame, members: pd.DataFrame, columns: Sequence[str], *,
                        kinds: Mapping[str, str], n_predicates: int,
                        rng: np.random.Generator) -> tuple[AttackResult, np.ndarray]:
    """Predicates "every column of ``columns`` equals this release row's value" that single out one member.

    Anonymeter's singling out (Giomi et al. 2023, §3.1; Cohen and Nissim, PNAS 117(15), 2020): the predicates are read
    off release rows unique in the release on ``columns`` (at most ``n_predicates``, drawn with ``rng``); a predicate
    is right when exactly one member satisfies it. Targets are the release rows' positions. Returns the result and the
    predicates' row keys (:func:`row_keys`), for the baseline.
    """
    keys = row_keys(release, columns, kinds)
    unique = np.flatnonzero(pd.Series(keys).map(pd.Series(keys).value_counts()).to_numpy() == 1)
    pick = np.sort(rng.choice(unique, size=min(n_predicates, unique.size), replace=False))
    hits = _matches(keys[pick], members, columns, kinds)
    res = AttackResult("singling out (release rows as predicates)", pick, np.ones(pick.size, dtype=bool),
                       np.ones(pick.size, dtype=bool), np.ones(pick.size, dtype=bool), correct=hits == 1,
                       resources={"members": float(len(members)), "columns": float(len(columns))})
    return res, keys[pick]


def singling_out_baseline(attack: AttackResult, predicates: np.ndarray, non_members: pd.DataFrame,
                          columns: Sequence[str], *, kinds: Mapping[str, str], n_members: int,
                          rng: np.random.Generator) -> AttackResult:
    """The same predicates on ``n_members`` non-members drawn with ``rng``: how often they isolate someone the
    release never saw, in a population of the members' size (Anonymeter's control set, as a baseline).

    ``ValueError`` when there are fewer non-members than members.
    """
    if len(non_members) < n_members:
        raise ValueError(f"the singling-out baseline needs at least as many non-members as members "
                         f"({n_members}), got {len(non_members)}")
    sample = non_members.iloc[np.sort(rng.choice(len(non_members), size=n_members, replace=False))]
    hits = _matches(predicates, sample, columns, kinds)
    return replace(attack, attack="the same predicates on as many non-members", correct=hits == 1,
                   baseline_kind=NONMEMBER_MODEL, resources={"non_members": float(n_members)})


def homogeneity_release_attack(release: pd.DataFrame, targets: pd.DataFrame, secret: str,
                               known: Sequence[str]) -> AttackResult:
    """The homogeneity attack (chapter 1) on a generalized extract, for members whose row labels it keeps.

    The attacker recodes a target's known values as the extract was recoded (its published row,
    ``release.loc[target]``) and discloses the secret when the matching class holds one value (Machanavajjhala et al.,
    TKDD 1(1), 2007). Targets the extract suppressed get no prediction.
    """
    present = targets.index.isin(release.index)
    view = release.loc[targets.index[present], list(known)].copy()
    view[secret] = targets.loc[present, secret].to_numpy()
    hom = homogeneity_attack(release, list(known), secret, targets=view).as_attack_result()
    predicted = np.zeros(len(targets), dtype=bool)
    prediction = np.full(len(targets), None, dtype=object)
    predicted[present], prediction[present] = hom.predicted, hom.prediction
    truth = targets[secret].to_numpy(dtype=object)
    return AttackResult("homogeneity (generalized extract)", targets.index.to_numpy(), truth, predicted,
                        prediction, resources={"release_rows": float(len(release))})


def closest_record_membership(release: pd.DataFrame, members: pd.DataFrame, non_members: pd.DataFrame,
                              columns: Sequence[str], *, kinds: Mapping[str, str],
                              skews: Sequence[float | str] = ("1:1", "1:30", "1:240"), fpr: float = 0.01,
                              confidence: float = 0.95, mapper: Mapper | None = None) -> pd.DataFrame:
    r"""Membership inference by the distance to the closest release record (DCR), read at member:non-member skews.

    A target is called a member when its DCR (:func:`gower_nearest` on ``columns``) is below the ``fpr`` quantile of
    the non-member targets' DCRs, or, where that quantile is 0 (more than a share ``fpr`` of the non-members have an
    exact copy in the release), when the release holds an exact copy of it (DCR 0). From the measured TPR and FPR, the
    precision at skew k is :math:`\mathrm{TPR}/(\mathrm{TPR} + k\,\mathrm{FPR})` ([FW24] §5, Eq 11), beside the base
    rate :math:`1/(1+k)` (everyone called a member) and PI over it (Eq 6). Columns: ``skew``, ``skew_label``, ``tpr``,
    ``fpr``, ``threshold``, ``precision``, ``precision_low``, ``precision_high``, ``base_rate``, ``pi``, ``auc``,
    ``tp``, ``fp``, ``members``, ``non_members``. ``mapper``: the target loop on an executor (:func:`gower_nearest`).
    """
    _, d_mem = gower_nearest(release, members, columns, kinds, mapper=mapper)
    _, d_non = gower_nearest(release, non_members, columns, kinds, mapper=mapper)
    tau = float(np.quantile(d_non, fpr, method="lower"))
    called = (lambda d: d < tau) if tau > 0 else (lambda d: d <= 0)  # noqa: E731
    tp, fp = int(called(d_mem).sum()), int(called(d_non).sum())
    tpr, fpr_m = tp / d_mem.size, fp / d_non.size
    roc = roc_from_scores(-np.concatenate([d_mem, d_non]), np.r_[np.ones(d_mem.size, bool), np.zeros(d_non.size, bool)])
    k = as_skews(list(skews))
    prec, _ = roc_to_precision_recall(tpr, fpr_m, k)
    low, high = precision_interval_at_skew(tp, d_mem.size, fp, d_non.size, k, confidence)
    base = np.asarray(baseline_precision_at_skew(k), dtype=float)
    return pd.DataFrame({"skew": k, "skew_label": [skew_label(v) for v in k], "tpr": tpr, "fpr": fpr_m,
                         "threshold": tau, "precision": prec, "precision_low": low, "precision_high": high,
                         "base_rate": base, "pi": precision_improvement(np.asarray(prec, dtype=float), base),
                         "auc": roc.auc, "tp": tp, "fp": fp, "members": d_mem.size,
                         "non_members": d_non.size})

"""The non-member framework: an allowed inference baseline for any attack ([FW24] §4).

What an analysis of a data set predicts about people not in it (and independent of its members) is an allowed
inference (§4.1), so an attack on a release must beat it on the same people with the same knowledge (chapter 5 walks
through the recipe). :func:`split_members` draws the non-members (§4.2 relaxed; :func:`leave_one_out_baseline` the
complete approach); :func:`nonmember_baseline` fits the §4.4 models on the members (L1 logistic regression C = 0.01 or
Lasso α = 0.1, against the most common value, keeping the better; continuous secrets correct within 5 %,
:func:`correct_within`) and returns an :class:`~anonlab.measures.AttackResult` for ``score(attack, baseline)`` (PI, Eq
6); :func:`precision_vs_prediction_rate` / :func:`confidence_walk` withhold low-confidence predictions (§4.5, Fig 5);
:func:`replicate_records` / :func:`replication_test` duplicate records (§4.6, Fig 6); :func:`framework_table` on a
synthetic copy gives the prior framework (§4.7, Fig 8).

[FW24] P. Francis and D. Wagner, "Towards more accurate and useful data anonymity vulnerability measures",
arXiv:2403.06595 (2024); the authors' code: github.com/yoid2000/non-member-framework-paper-code (``diffTools.py``).

Examples
--------
A secret that is a function of a known attribute is predicted perfectly (with C = 0.01 the L1 penalty needs a few
hundred members before any feature enters the model):

>>> import pandas as pd
>>> df = pd.DataFrame({"job": ["prof", "clerk"] * 500, "degree": ["phd", "hs"] * 500})
>>> split = split_members(df, n_members=700, n_non_members=300, seed=0)
>>> base = nonmember_baseline(df, "degree", members=split.members, targets=split.non_members)
>>> from anonlab.measures import score
>>> score(base).precision
1.0
"""

from __future__ import annotations

import hashlib
import math
import time
import warnings
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..validation import ParameterError, check_choice, check_int, check_number, check_random_state
from .protocol import NONMEMBER_MODEL, AttackResult, score
from ..intervals import percentile_interval

__all__ = [
    "CATEGORICAL",
    "CONTINUOUS",
    "MemberSplit",
    "ModelSettings",
    "attribute_kinds",
    "split_members",
    "correct_within",
    "fit_predict",
    "nonmember_baseline",
    "framework_table",
    "precision_vs_prediction_rate",
    "confidence_walk",
    "perfect_bootstrap",
    "perfect_precision",
    "replicate_records",
    "replication_test",
    "leave_one_out_baseline",
    "pi_across_tolerances",
    "complete_vs_relaxed",
    "pi_vs_tolerance",
    "pi_spread_bootstrap",
    "prefit",
    "FitStore",
    "default_n_jobs",
]

CATEGORICAL = "categorical"
CONTINUOUS = "continuous"
ANALYSES = ("best", "model", "most_common")
TOLERANCE_BASES = ("range", "relative")


# ---------------------------------------------------------------------------
# attributes, split, settings
# ---------------------------------------------------------------------------


def attribute_kinds(data: pd.DataFrame, *, max_levels: int = 10,
                    overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """Categorical or continuous, per column, by the rule of the authors' code.

    A non-numeric column is categorical; a numeric column is continuous when it has at least ``max_levels`` distinct
    values, else categorical (``getColType`` in ``diffTools.py``). ``overrides`` fixes some columns (BankChurners'
    types are listed in the paper's Fig 3).

    >>> attribute_kinds(pd.DataFrame({"a": range(20), "b": [0, 1] * 10, "c": ["x"] * 20}))
    {'a': 'continuous', 'b': 'categorical', 'c': 'categorical'}
    """
    check_int("max_levels", max_levels, low=2)
    kinds = {}
    for col in data.columns:
        s = data[col]
        numeric = pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)
        kinds[col] = CONTINUOUS if numeric and s.nunique() >= max_levels else CATEGORICAL
    for col, kind in (overrides or {}).items():
        if col in kinds:
            kinds[col] = check_choice(f"kind of {col}", kind, (CATEGORICAL, CONTINUOUS))
    return kinds


@dataclass(frozen=True)
class MemberSplit:
    """Row labels of the members (the baseline data set) and of the non-members (the targets)."""

    members: np.ndarray
    non_members: np.ndarray

    @property
    def sizes(self) -> tuple[int, int]:
        return int(self.members.size), int(self.non_members.size)


def split_members(data: pd.DataFrame, n_members: int | None = None, n_non_members: int = 3039,
                  seed: int | np.random.Generator | None = 0) -> MemberSplit:
    """Draw ``n_non_members`` rows at random as non-members, ``n_members`` others as members.

    [FW24] §4.4 removes 3,039 random non-members from BankChurners' 10,127 rows and keeps the other 7,088 as members.
    ``n_members=None`` keeps every row that is not a non-member.

    >>> s = split_members(pd.DataFrame({"a": range(10)}), 6, 4, seed=1)
    >>> s.sizes, len(set(s.members) & set(s.non_members))
    ((6, 4), 0)
    """
    n = len(data)
    check_int("n_non_members", n_non_members, low=1, high=max(n - 1, 1))
    if n_members is None:
        n_members = n - n_non_members
    check_int("n_members", n_members, low=1)
    if n_members + n_non_members > n:
        raise ParameterError(f"parameter 'n_members' + 'n_non_members' = {n_members + n_non_members} "
                             f"exceeds the {n} rows of the data")
    order = check_random_state(seed).permutation(n)
    labels = data.index.to_numpy()
    return MemberSplit(members=labels[order[n_non_members:n_non_members + n_members]],
                       non_members=labels[order[:n_non_members]])


@dataclass(frozen=True)
class ModelSettings:
    """The models of [FW24] §4.4 and the rule for a correct continuous prediction.

    ``C``: inverse L1 strength of the logistic regression (paper 0.01); ``alpha``: L1 strength of the Lasso (0.1);
    ``max_iter``: saga iterations (authors' run 5000); ``tolerance``: a continuous prediction is correct within this
    fraction (0.05) of |true value| (``tolerance_basis="relative"``, the paper's text) or of the targets' range
    (``"range"``, the authors' ``printEvaluation``).
    """

    C: float = 0.01
    alpha: float = 0.1
    max_iter: int = 100
    tolerance: float = 0.05
    tolerance_basis: str = "range"

    def __post_init__(self) -> None:
        check_number("C", self.C, low=0, low_inclusive=False)
        check_number("alpha", self.alpha, low=0, low_inclusive=False)
        check_int("max_iter", self.max_iter, low=1, high=100_000)
        check_number("tolerance", self.tolerance, low=0)
        check_choice("tolerance_basis", self.tolerance_basis, TOLERANCE_BASES)


def correct_within(prediction: npt.ArrayLike, truth: npt.ArrayLike, tolerance: float = 0.05,
                   basis: str = "relative", value_range: float | None = None) -> np.ndarray:
    """Is each continuous prediction within the tolerance of the truth?

    ``basis="relative"``: :math:`|\\hat y - y| \\le \\tau |y|` ([FW24] §4.4, "within 5% of the true value");
    ``basis="range"``: :math:`|\\hat y - y| \\le \\tau (\\max y - \\min y)` over the targets (the authors' code), or
    over ``value_range`` when given.

    >>> correct_within([105, 94, 0.0], [100, 100, 0.0], 0.05).tolist()
    [True, False, True]
    >>> correct_within([105, 94], [100, 0], 0.05, basis="range").tolist()
    [True, False]
    """
    p = np.asarray(prediction, dtype=float)
    t = np.asarray(truth, dtype=float)
    check_number("tolerance", tolerance, low=0)
    check_choice("basis", basis, TOLERANCE_BASES)
    if basis == "relative":
        bound = tolerance * np.abs(t)
    else:
        span = float(np.nanmax(t) - np.nanmin(t)) if value_range is None and t.size else float(value_range or 0.0)
        bound = np.full(t.shape, tolerance * span)
    return np.abs(p - t) <= bound + 1e-12


# ---------------------------------------------------------------------------
# the analysis: fit on one table, predict another
# ---------------------------------------------------------------------------


def _prepare(df: pd.DataFrame, kinds: Mapping[str, str]) -> pd.DataFrame:
    out = df.copy()
    for col in out.columns:
        if kinds[col] == CATEGORICAL:
            out[col] = out[col].astype(object).where(out[col].notna(), "missing").astype(str)
        else:
            out[col] = pd.to_numeric(out[col], errors="raise").astype(float)
    return out


def _pipeline(known: Sequence[str], kinds: Mapping[str, str], secret_kind: str, settings: ModelSettings,
              random_state: int = 0):
    """The analysis of [FW24] §4.4 as a scikit-learn pipeline: scaled continuous and one-hot categorical known
    attributes, then an L1 logistic regression (saga) for a categorical secret or a Lasso for a continuous one.

    The fits below build the same design matrix faster (:mod:`anonlab.measures.design`) and fit :func:`_model` on it;
    this pipeline is the reference they are tested against.
    """
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    nums = [c for c in known if kinds[c] == CONTINUOUS]
    cats = [c for c in known if kinds[c] == CATEGORICAL]
    pre = ColumnTransformer([("num", StandardScaler(), nums),
                             ("cat", OneHotEncoder(handle_unknown="ignore"), cats)])
    return Pipeline([("features", pre), ("model", _model(secret_kind, settings, random_state))])


def _model(secret_kind: str, settings: ModelSettings, random_state: int = 0):
    """The pipeline's last step: ``LogisticRegression(l1_ratio=1, C, saga)`` or ``Lasso(alpha)`` ([FW24] §4.4)."""
    from sklearn.linear_model import Lasso, LogisticRegression

    if secret_kind == CATEGORICAL:
        return LogisticRegression(l1_ratio=1.0, C=settings.C, solver="saga", max_iter=settings.max_iter,
                                  random_state=random_state)
    return Lasso(alpha=settings.alpha, max_iter=max(settings.max_iter, 1000), random_state=random_state)


def _fit_on(model: Any, x_train: Any, y: np.ndarray, x_targets: Any, kind: str
            ) -> tuple[np.ndarray, np.ndarray | None]:
    """Fit ``model`` on a design matrix; predict the targets' matrix: (prediction, p_max or None)."""
    with warnings.catch_warnings():
        from sklearn.exceptions import ConvergenceWarning
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x_train, y)
    if kind == CATEGORICAL:
        proba = model.predict_proba(x_targets)
        return model.classes_[proba.argmax(axis=1)].astype(object), proba.max(axis=1)
    return model.predict(x_targets).astype(float), None


# ---------------------------------------------------------------------------
# the model fits: memoised by their inputs, run on several cores when independent
# ---------------------------------------------------------------------------

class FitStore:
    """The predictions of fitted models, by a digest of each fit's inputs (:func:`_fit_key`), held by the caller.

    A caller that asks for one fit several times (chapter 5 asks for some four times) makes one store and passes it as
    ``fits=``; without one, fits are shared only within one call. At most ``max_fits`` predictions are kept, the
    oldest dropped first. :meth:`reading` scopes a memo of column hashes and category codes to a block in which the
    frames are only read.
    """

    def __init__(self, max_fits: int = 512) -> None:
        self.max_fits = check_int("max_fits", max_fits, low=1)
        self._fits: OrderedDict[str, tuple[np.ndarray, np.ndarray | None]] = OrderedDict()
        self.columns: dict[tuple, tuple[Any, Any]] | None = None

    def __contains__(self, key: str) -> bool:
        return key in self._fits

    def __len__(self) -> int:
        return len(self._fits)

    def get(self, key: str) -> tuple[np.ndarray, np.ndarray | None]:
        """A copy of the stored (prediction, p_max or None) of ``key``."""
        pred, conf = self._fits[key]
        self._fits.move_to_end(key)
        return pred.copy(), None if conf is None else conf.copy()

    def put(self, key: str, value: tuple[np.ndarray, np.ndarray | None]) -> None:
        self._fits[key] = value
        self._fits.move_to_end(key)
        while len(self._fits) > self.max_fits:
            self._fits.popitem(last=False)

    @contextmanager
    def reading(self) -> Iterator["FitStore"]:
        """A block in which the frames passed to the fits are only read: each column is hashed and coded once
        (the memo holds each frame, so that no other frame takes its ``id`` meanwhile; it ends with the block)."""
        outer = self.columns
        self.columns = {} if outer is None else outer
        try:
            yield self
        finally:
            self.columns = outer


def default_n_jobs() -> int:
    """Worker processes for independent fits: joblib's CPU count, at most 2.

    joblib's count honours ``LOKY_MAX_CPU_COUNT``, the ecosystem's own setting (the book's scheduler sets it to the
    cores it grants a run); pass ``n_jobs`` to choose.
    """
    from joblib import cpu_count

    return max(1, min(2, cpu_count()))


def _column_hash(df: pd.DataFrame, col: str, memo: dict | None) -> bytes:
    """The row hashes of one column (``pandas.util.hash_pandas_object``), kept in ``memo`` when given."""
    key = ("hash", id(df), col)
    if memo is not None and key in memo:
        return memo[key][1]
    value = pd.util.hash_pandas_object(df[col], index=False).to_numpy().tobytes()
    if memo is not None:
        memo[key] = (df, value)
    return value


def _fit_key(train: pd.DataFrame, targets: pd.DataFrame, secret: str, known: Sequence[str],
             kinds: Mapping[str, str], settings: ModelSettings, memo: dict | None = None) -> str:
    """A digest of everything a model fit depends on: the rows (in order), the known set, kinds, model settings.

    The tolerance rule is not part of it (it judges predictions, it does not make them), so the same fit serves both
    rules. Raw values are hashed, column by column (:func:`_column_hash`); :func:`_prepare` is a function of them and
    of the kinds.
    """
    h = hashlib.sha256()
    for df, cols in ((train, list(known) + [secret]), (targets, list(known))):
        h.update(repr((len(df), [(c, str(df[c].dtype)) for c in cols])).encode())
        for c in cols:
            h.update(_column_hash(df, c, memo))
    h.update(repr(([kinds[c] for c in known], kinds[secret], settings.C, settings.alpha,
                   settings.max_iter)).encode())
    return h.hexdigest()


def _fit_model(train: pd.DataFrame, targets: pd.DataFrame, secret: str, known: Sequence[str],
               kinds: Mapping[str, str], settings: ModelSettings, memo: dict | None = None
               ) -> tuple[np.ndarray, np.ndarray | None]:
    """Fit the analysis of :func:`_pipeline` on ``train``; predict ``targets``: (prediction, p_max).

    The design matrices are :func:`~anonlab.measures.design.design_pair`'s (the pipeline's, entry for entry), so the
    model is the pipeline's.
    """
    from .design import design_pair

    known = list(known)
    x_train, x_targets = design_pair(train, targets, known, kinds, _prepare, memo=memo)
    y = _prepare(train[[secret]], kinds)[secret].to_numpy()
    return _fit_on(_model(kinds[secret], settings), x_train, y, x_targets, kinds[secret])


def _model_predictions(train: pd.DataFrame, targets: pd.DataFrame, secret: str, known: Sequence[str],
                       kinds: Mapping[str, str], settings: ModelSettings, fits: FitStore
                       ) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`_fit_model`, fitted once per distinct input in ``fits``."""
    key = _fit_key(train, targets, secret, known, kinds, settings, fits.columns)
    if key not in fits:
        fits.put(key, _fit_model(train, targets, secret, known, kinds, settings, fits.columns))
    return fits.get(key)


def _fit_many(tasks: Sequence[tuple], n_jobs: int) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """:func:`_fit_model` of each ``(train, targets, secret, known, kinds, settings)``, on ``n_jobs`` processes.

    Each fit is deterministic (saga with a fixed ``random_state``, cyclic coordinate descent), so the results are
    those of the sequential loop.
    """
    if n_jobs <= 1 or len(tasks) < 2:
        return [_fit_model(*t) for t in tasks]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=min(n_jobs, len(tasks)), backend="loky")(delayed(_fit_model)(*t) for t in tasks)


def prefit(tasks: Sequence[tuple], fits: FitStore, n_jobs: int | None = None) -> int:
    """Fit the models that tasks ``(train, targets, secret, known, kinds, settings)`` need, in parallel.

    Fills ``fits``, so a loop of ``fit_predict(..., fits=fits)`` calls that follows does no fitting. Tasks whose fit
    is already stored, repeated tasks, and tasks without a model (no known attribute, a single class) are skipped.
    Returns the number of fits made.
    """
    todo: dict[str, tuple] = {}
    for train, targets, secret, known, kinds, settings in tasks:
        known = _check_known(train, secret, known)
        if not known or (kinds[secret] == CATEGORICAL and train[secret].nunique(dropna=False) < 2):
            continue
        key = _fit_key(train, targets, secret, known, kinds, settings, fits.columns)
        if key not in fits and key not in todo:
            todo[key] = (train, targets, secret, known, kinds, settings)
    # the costliest fits first (a multinomial fit costs about rows x classes), so that no worker is left
    # alone with a long fit at the end; the results are stored by key, so the order changes nothing else
    order = sorted(todo, key=lambda k: _fit_cost(todo[k]), reverse=True)
    for key, value in zip(order, _fit_many([todo[k] for k in order], default_n_jobs() if n_jobs is None else n_jobs)):
        fits.put(key, value)
    return len(todo)


def _fit_cost(task: tuple) -> float:
    """A fit's relative cost for scheduling: rows x classes for a logistic regression, rows / 10 for a Lasso."""
    train, _, secret, known, kinds, _ = task
    if kinds[secret] == CATEGORICAL:
        return float(len(train)) * max(int(train[secret].nunique()), 2) * (1 + len(known) / 10)
    return float(len(train)) / 10


def _check_known(data: pd.DataFrame, secret: str, known: Sequence[str] | None) -> list[str]:
    if secret not in data.columns:
        raise ParameterError(f"secret {secret!r} is not a column; available: {', '.join(map(str, data.columns))}")
    if known is None:
        return [c for c in data.columns if c != secret]
    known = [c for c in known if c != secret]
    missing = [c for c in known if c not in data.columns]
    if missing:
        raise ParameterError(f"known attribute(s) {missing} are not columns of the data")
    return known


def fit_predict(train: pd.DataFrame, targets: pd.DataFrame, secret: str, *,
                known: Sequence[str] | None = None, kinds: Mapping[str, str] | None = None,
                settings: ModelSettings = ModelSettings(), analysis: str = "best",
                value_range: float | None = None, name: str | None = None,
                fits: FitStore | None = None) -> AttackResult:
    """Fit the analysis on ``train`` (the members, or a synthetic copy for §4.7) and predict ``secret`` for every row of
    ``targets`` ([FW24] §4.2, Fig 2).

    ``known``: the attacker's attributes (default every other column); ``kinds``: categorical/continuous per column
    (default :func:`attribute_kinds`); ``analysis``: "model", "most_common" or "best" (the better on these targets,
    §4.4); ``value_range``: for ``tolerance_basis="range"`` (default the targets' range); ``fits``: a
    :class:`FitStore` keeping fitted predictions between calls. Returns an :class:`~anonlab.measures.AttackResult`
    predicting every target; a categorical model's ``confidence`` is :math:`p_{max}` (§4.5); a continuous secret's
    ``correct`` holds the tolerance rule; ``resources``: members, known attributes, seconds.
    """
    check_choice("analysis", analysis, ANALYSES)
    known = _check_known(train, secret, known)
    kinds = dict(kinds) if kinds is not None else attribute_kinds(train)
    if len(train) == 0 or len(targets) == 0:
        raise ValueError("fit_predict needs at least one training row and one target")
    t0 = time.perf_counter()
    tr, te = _prepare(train[[secret]], kinds), _prepare(targets[[secret]], kinds)
    kind = kinds[secret]
    truth = te[secret].to_numpy()
    y = tr[secret].to_numpy()
    # the most common value among the members (ties: first in sorted order)
    counts = pd.Series(y).value_counts()
    mode = sorted(counts[counts == counts.max()].index.tolist())[0]
    common = np.full(truth.size, mode, dtype=object if kind == CATEGORICAL else float)
    if kind == CONTINUOUS:
        span = value_range if value_range is not None else (float(np.max(truth) - np.min(truth)) if truth.size else 0.0)
        judge = lambda p: correct_within(p, truth, settings.tolerance, settings.tolerance_basis, span)  # noqa: E731
    else:
        judge = lambda p: np.asarray(p == truth, dtype=bool)  # noqa: E731
    model_pred, conf = None, None
    single_class = kind == CATEGORICAL and counts.size < 2
    if analysis != "most_common" and known and not single_class:
        model_pred, conf = _model_predictions(train, targets, secret, known, kinds, settings,
                                              FitStore(1) if fits is None else fits)
    if model_pred is None or analysis == "most_common":
        chosen, pred, conf, label = "most common value", common, None, "most common value"
    elif analysis == "model" or judge(model_pred).mean() >= judge(common).mean():
        chosen, pred = "model", model_pred
        label = "logistic regression" if kind == CATEGORICAL else "Lasso"
    else:
        chosen, pred, conf, label = "most common value", common, None, "most common value"
    if chosen == "most common value" and kind == CATEGORICAL:
        conf = np.full(truth.size, float(counts.max() / counts.sum()))
    correct = judge(pred) if kind == CONTINUOUS else None
    title = f"{name or f'non-member baseline: {secret}'} ({label})"
    return AttackResult(
        title, targets.index.to_numpy(), truth, np.ones(truth.size, dtype=bool), np.asarray(pred, dtype=object),
        confidence=conf, correct=correct,
        resources={"members": float(len(train)), "known_attributes": float(len(known)),
                   "seconds": time.perf_counter() - t0},
    )


def nonmember_baseline(data: pd.DataFrame, secret: str, *, members: npt.ArrayLike,
                       targets: npt.ArrayLike | None = None, known: Sequence[str] | None = None,
                       kinds: Mapping[str, str] | None = None, settings: ModelSettings = ModelSettings(),
                       analysis: str = "best", name: str | None = None,
                       fits: FitStore | None = None) -> AttackResult:
    """The non-member baseline for ``secret``: fit on the members, predict the targets ([FW24] §4.2-4.4).

    ``targets`` (row labels; default every row that is not a member) must not be members: a baseline that has seen its
    targets is not an allowed inference (§4.1). To compare with an attack, pass the attack's targets and score with
    ``score(attack, baseline)``: the baseline's precision is then measured on the targets the attack predicted for
    (§4.3 steps 1-4) and PI = (P_atk − P_base)/(1 − P_base) (Eq 6).

    See :func:`fit_predict` for the analysis and the result.
    """
    members = np.asarray(members)
    idx = data.index
    if not pd.Index(members).isin(idx).all():
        raise ValueError("some members are not rows of the data")
    if targets is None:
        targets = idx[~idx.isin(members)].to_numpy()
    targets = np.asarray(targets)
    overlap = pd.Index(targets).isin(members)
    if overlap.any():
        raise ValueError(f"{int(overlap.sum())} target(s) are members: the non-member baseline must not "
                         "be fitted on its own targets ([FW24] §4.1)")
    kinds = dict(kinds) if kinds is not None else attribute_kinds(data)
    return replace(fit_predict(data.loc[members], data.loc[targets], secret, known=known, kinds=kinds,
                               settings=settings, analysis=analysis, name=name, fits=fits),
                   baseline_kind=NONMEMBER_MODEL)


def framework_table(train: pd.DataFrame, targets: pd.DataFrame, secrets: Sequence[str],
                    known_sets: Mapping[str, Sequence[str] | None], *, kinds: Mapping[str, str],
                    settings: ModelSettings = ModelSettings(), analysis: str = "best",
                    framework: str = "non-member", n_jobs: int | None = None, fits: FitStore | None = None
                    ) -> tuple[pd.DataFrame, dict[tuple[str, str], AttackResult]]:
    """Baseline precision per secret and known-attribute set (Fig 4; on synthetic ``train``, Fig 8).

    Returns a table (``framework, secret, kind, known, n_known, analysis, precision, precision_low, precision_high,
    prediction_rate, targets``) and the :class:`AttackResult` of each (secret, known set). A known set that leaves no
    attribute besides the secret is skipped. The model fits are independent: they run on ``n_jobs`` processes (default
    :func:`default_n_jobs`), with the results of the sequential loop; ``fits`` keeps them for later calls
    (:class:`FitStore`).
    """
    with (FitStore() if fits is None else fits).reading() as store:
        return _framework_table(train, targets, secrets, known_sets, kinds, settings, analysis, framework, n_jobs,
                                store)


def _framework_table(train: pd.DataFrame, targets: pd.DataFrame, secrets: Sequence[str],
                     known_sets: Mapping[str, Sequence[str] | None], kinds: Mapping[str, str],
                     settings: ModelSettings, analysis: str, framework: str, n_jobs: int | None,
                     fits: FitStore) -> tuple[pd.DataFrame, dict[tuple[str, str], AttackResult]]:
    """:func:`framework_table`'s fits and rows (within :meth:`FitStore.reading`)."""
    if analysis != "most_common":
        prefit([(train, targets, secret, known, kinds, settings) for secret in secrets
                for known in known_sets.values()], fits, n_jobs)
    rows, results = [], {}
    for secret in secrets:
        for label, known in known_sets.items():
            k = _check_known(train, secret, known)
            if not k:
                continue
            res = fit_predict(train, targets, secret, known=k, kinds=kinds, settings=settings, analysis=analysis,
                              name=f"{framework} baseline: {secret} | {label}", fits=fits)
            s = score(res)
            results[(secret, label)] = res
            rows.append({"framework": framework, "secret": secret, "kind": kinds[secret], "known": label,
                         "n_known": len(k), "analysis": _analysis_of(res),
                         "precision": s.precision, "precision_low": s.precision_ci[0],
                         "precision_high": s.precision_ci[1], "prediction_rate": s.coverage,
                         "targets": res.n_targets})
    return pd.DataFrame(rows), results


def _analysis_of(result: AttackResult) -> str:
    """The analysis a baseline kept, from its name: "logistic regression", "Lasso" or "most common value"."""
    return result.attack.rsplit("(", 1)[-1].rstrip(")")


# ---------------------------------------------------------------------------
# precision against prediction rate (§4.5, Fig 5)
# ---------------------------------------------------------------------------


def precision_vs_prediction_rate(result: AttackResult, thresholds: Sequence[float] | None = None) -> pd.DataFrame:
    """Precision and prediction rate when no prediction is made below ``p_thresh`` ([FW24] §4.5, Fig 5).

    For each threshold, predict only where :math:`p_{max} \\ge p_{thresh}` (:meth:`AttackResult.at_threshold`);
    prediction rate is the share of targets with a prediction (Eq 5), precision is Eq 2 over those predictions (NaN
    when there are none). Without ``thresholds`` the whole curve: every distinct :math:`p_{max}` is a threshold
    (:func:`confidence_walk`), so no point of it is missed.

    >>> r = AttackResult.from_predictions("t", truth=["a", "b", "a", "b"], prediction=["a", "a", "a", "b"],
    ...                                   confidence=[0.9, 0.6, 0.8, 0.95])
    >>> precision_vs_prediction_rate(r, [0.0, 0.7])[["prediction_rate", "precision"]].to_numpy().tolist()
    [[1.0, 0.75], [0.75, 1.0]]
    >>> precision_vs_prediction_rate(r)["predictions"].tolist()
    [4, 3, 2, 1]
    """
    if result.confidence is None:
        raise ValueError(f"{result.attack!r} has no confidence (continuous secrets have no p_max)")
    if thresholds is None:
        return confidence_walk(result)
    rows = []
    for t in thresholds:
        check_number("threshold", t, low=0, high=1)
        s = score(result.at_threshold(float(t)))
        rows.append({"threshold": float(t), "predictions": s.n_predictions, "correct": s.n_correct,
                     "prediction_rate": s.coverage, "precision": s.precision,
                     "precision_low": s.precision_ci[0], "precision_high": s.precision_ci[1]})
    return pd.DataFrame(rows)


def _walk_order(confidence: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Targets by decreasing confidence: the order, the sorted values, and where each tie group starts."""
    order = np.argsort(-confidence, kind="stable")
    c = confidence[order]
    new_group = np.r_[True, c[1:] != c[:-1]] if c.size else np.zeros(0, dtype=bool)
    starts = np.maximum.accumulate(np.where(new_group, np.arange(c.size), 0)) if c.size else np.zeros(0, int)
    return order, c, starts


def confidence_walk(result: AttackResult, confidence: float = 0.95) -> pd.DataFrame:
    """Precision and prediction rate at every distinct confidence value, highest last ([FW24] §4.5, Fig 5).

    Sorting the predicted targets by :math:`p_{max}` once, the threshold at the k-th distinct value predicts for every
    target at least that confident: predictions and correct ones are cumulative counts, so the whole curve costs one
    sort (the same rows as :func:`precision_vs_prediction_rate` at those thresholds). Wilson intervals on precision.

    >>> r = AttackResult.from_predictions("t", truth=["a", "b", "a", "b"], prediction=["a", "a", "a", "b"],
    ...                                   confidence=[0.9, 0.6, 0.9, 0.95])
    >>> confidence_walk(r)[["threshold", "predictions", "correct"]].to_numpy().tolist()
    [[0.6, 4.0, 3.0], [0.9, 3.0, 3.0], [0.95, 1.0, 1.0]]
    """
    from anonlab.intervals import wilson_interval

    made = np.asarray(result.predicted, dtype=bool)
    conf = np.asarray(result.confidence, dtype=float)[made]
    ok = np.asarray(result.is_correct(), dtype=bool)[made]
    order, c, _ = _walk_order(conf)
    cum_ok = np.cumsum(ok[order])
    last = np.flatnonzero(np.r_[c[1:] != c[:-1], True]) if c.size else np.zeros(0, int)
    predictions, correct = last + 1, cum_ok[last] if c.size else np.zeros(0, int)
    low, high = wilson_interval(correct, predictions, confidence)
    out = pd.DataFrame({"threshold": c[last], "predictions": predictions, "correct": correct,
                        "prediction_rate": predictions / max(result.n_targets, 1),
                        "precision": correct / predictions, "precision_low": low, "precision_high": high})
    return out.iloc[::-1].reset_index(drop=True)


def perfect_bootstrap(result: AttackResult, min_predictions: int, n_boot: int = 200,
                      seed: int | np.random.Generator | None = 0) -> np.ndarray:
    """Does the curve reach precision 1.0 on at least ``min_predictions`` predictions, in each bootstrap sample?

    Targets are resampled with replacement (``n_boot`` times). Along the walk (:func:`confidence_walk`) precision is
    1.0 exactly up to the tie group of the most confident wrong prediction, so a sample is perfect when the weight of
    the targets more confident than that group reaches ``min_predictions``. Returns one boolean per sample; its mean
    is the share of samples in which the secret reaches perfect precision.

    >>> r = AttackResult.from_predictions("t", truth=["a"] * 20, prediction=["a"] * 20, confidence=np.linspace(0, 1, 20))
    >>> bool(perfect_bootstrap(r, 10, n_boot=50).all())
    True
    """
    check_int("min_predictions", min_predictions, low=1)
    rng = check_random_state(seed)
    made = np.asarray(result.predicted, dtype=bool)
    conf = np.asarray(result.confidence, dtype=float)[made]
    ok = np.asarray(result.is_correct(), dtype=bool)[made]
    n = int(np.asarray(result.predicted).size)
    order, _, starts = _walk_order(conf)
    wrong = ~ok[order]
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot)[:, np.flatnonzero(made)][:, order]
    cum = np.cumsum(weights, axis=1)
    hit = (weights > 0) & wrong[None, :]
    first = hit.argmax(axis=1)
    start = starts[first] if conf.size else np.zeros(n_boot, int)
    prefix = np.where(start > 0, cum[np.arange(n_boot), np.maximum(start - 1, 0)], 0)
    prefix = np.where(hit.any(axis=1), prefix, cum[:, -1] if conf.size else 0)
    return prefix >= min_predictions


def perfect_precision(curve: pd.DataFrame, min_predictions: int = 1) -> dict[str, Any]:
    """Does some threshold give precision 1.0 on at least ``min_predictions`` predictions, and at what rate?

    Returns ``{"perfect": bool, "prediction_rate": the largest such rate (NaN if none), "predictions": how many,
    "threshold": the lowest such threshold}``.

    >>> c = pd.DataFrame({"threshold": [0.5, 0.9], "predictions": [10, 3], "prediction_rate": [1.0, 0.3],
    ...                   "precision": [0.8, 1.0]})
    >>> perfect_precision(c)["prediction_rate"], perfect_precision(c, 5)["perfect"]
    (0.3, False)
    """
    check_int("min_predictions", min_predictions, low=1)
    ok = curve[(curve["precision"] >= 1.0 - 1e-12) & (curve["predictions"] >= min_predictions)]
    if ok.empty:
        return {"perfect": False, "prediction_rate": math.nan, "predictions": 0, "threshold": math.nan}
    best = ok.sort_values(["prediction_rate", "threshold"], ascending=[False, True]).iloc[0]
    return {"perfect": True, "prediction_rate": float(best["prediction_rate"]),
            "predictions": int(best["predictions"]), "threshold": float(best["threshold"])}


# ---------------------------------------------------------------------------
# dependent members and non-members (§4.6, Fig 6)
# ---------------------------------------------------------------------------


def replicate_records(data: pd.DataFrame, fraction: float, seed: int | np.random.Generator | None = 0
                      ) -> pd.DataFrame:
    """Append a copy of ``round(fraction · n)`` random rows (no repeats) ([FW24] §4.6).

    The result has a fresh 0..n'-1 index and a column ``_source`` giving each row's original label, so a copy and its
    original can be found again. The authors replicate 10 %, 50 % and 100 % of the rows (``replicate_rows``).

    >>> r = replicate_records(pd.DataFrame({"a": [1, 2, 3, 4]}), 0.5, seed=0)
    >>> len(r), int(r["_source"].duplicated().sum())
    (6, 2)
    """
    check_number("fraction", fraction, low=0, high=1)
    rng = check_random_state(seed)
    k = int(round(fraction * len(data)))
    pick = rng.choice(len(data), size=k, replace=False)
    base = data.assign(_source=data.index.to_numpy())
    return pd.concat([base, base.iloc[np.sort(pick)]], ignore_index=True)


def replication_test(members: pd.DataFrame, secrets: Sequence[str], fractions: Sequence[float], *,
                     n_targets: int, kinds: Mapping[str, str], settings: ModelSettings = ModelSettings(),
                     known: Sequence[str] | None = None, analysis: str = "best",
                     seed: int | np.random.Generator | None = 0, n_jobs: int | None = None,
                     fits: FitStore | None = None) -> pd.DataFrame:
    """Baseline precision when a share of records is duplicated ([FW24] §4.6, Fig 6).

    As in the authors' code: for each fraction, replicate that share of the members (:func:`replicate_records`), draw
    ``n_targets`` rows of the enlarged table as non-members, fit on the rest and predict them. A target whose copy
    stayed among the members is *dependent* on a member; the table reports precision overall and separately on
    dependent and independent targets. Fraction 0 is the unreplicated reference.

    Returns: pandas.DataFrame: ``fraction, secret, kind, precision, precision_dependent, precision_independent,
    n_dependent, targets``.
    """
    rng = check_random_state(seed)
    cols = list(members.columns)
    runs = []
    for frac in [0.0, *[f for f in fractions if f != 0.0]]:  # the draws, in the order of the sequential loop
        table = replicate_records(members, frac, seed=rng)
        split = split_members(table, None, n_targets, seed=rng)
        train, tgt = table.loc[split.members], table.loc[split.non_members]
        runs.append((frac, train[cols], tgt[cols], tgt["_source"].isin(train["_source"]).to_numpy()))
    with (FitStore() if fits is None else fits).reading() as store:
        if analysis != "most_common":  # every fit is independent: run them on n_jobs processes
            prefit([(train, tgt, secret, known, kinds, settings) for _, train, tgt, _ in runs
                    for secret in secrets], store, n_jobs)
        return pd.DataFrame(_replication_rows(runs, secrets, known, kinds, settings, analysis, store))


def _replication_rows(runs: Sequence[tuple], secrets: Sequence[str], known: Sequence[str] | None,
                      kinds: Mapping[str, str], settings: ModelSettings, analysis: str,
                      fits: FitStore) -> list[dict[str, Any]]:
    """:func:`replication_test`'s rows: per fraction and secret, precision overall, on dependent and independent targets."""
    rows = []
    for frac, train, tgt, dependent in runs:
        for secret in secrets:
            res = fit_predict(train, tgt, secret, known=known, kinds=kinds, settings=settings,
                              analysis=analysis, fits=fits)
            ok = res.is_correct()
            rows.append({"fraction": float(frac), "secret": secret, "kind": kinds[secret],
                         "precision": float(ok.mean()),
                         "precision_dependent": float(ok[dependent].mean()) if dependent.any() else math.nan,
                         "precision_independent": float(ok[~dependent].mean()) if (~dependent).any() else math.nan,
                         "n_dependent": int(dependent.sum()), "targets": int(ok.size)})
    return rows


# ---------------------------------------------------------------------------
# complete vs relaxed (§4.2) and the error bound (§4.3)
# ---------------------------------------------------------------------------


def leave_one_out_baseline(data: pd.DataFrame, secret: str, targets: npt.ArrayLike, *,
                           known: Sequence[str] | None = None, kinds: Mapping[str, str],
                           settings: ModelSettings = ModelSettings(), analysis: str = "model",
                           value_range: float | None = None, n_jobs: int | None = None) -> AttackResult:
    """The *complete* non-member baseline of [FW24] §4.2: one fit per target, on every other row.

    Compare with :func:`nonmember_baseline` on the same targets (the *relaxed* approach, one fit without all targets),
    which the paper says "should generally produce a baseline close enough". One model fit per target: keep
    ``targets`` small. The fits are independent: they run in ``n_jobs`` processes (default :func:`default_n_jobs`),
    each on a share of the targets, with the results of the sequential loop.
    """
    targets = np.asarray(targets)
    n_jobs = default_n_jobs() if n_jobs is None else check_int("n_jobs", n_jobs, low=1)
    args = dict(known=known, kinds=kinds, settings=settings, analysis=analysis, value_range=value_range)
    chunks = [c for c in np.array_split(targets, min(n_jobs, max(targets.size, 1))) if c.size]
    if len(chunks) > 1:
        from joblib import Parallel, delayed

        parts = [p for ps in Parallel(n_jobs=len(chunks), backend="loky")(
            delayed(_leave_one_out_chunk)(data, secret, c, args) for c in chunks) for p in ps]
    else:
        parts = _leave_one_out_chunk(data, secret, targets, args)
    correct = np.concatenate([p.is_correct() for p in parts])
    conf = None if parts[0].confidence is None else np.concatenate([p.confidence for p in parts])
    return AttackResult(f"complete (leave-one-out) baseline: {secret}", targets,
                        np.concatenate([p.truth for p in parts]), np.ones(targets.size, dtype=bool),
                        np.concatenate([p.prediction for p in parts]).astype(object), confidence=conf,
                        correct=correct if kinds[secret] == CONTINUOUS else None,
                        resources={"fits": float(targets.size)}, baseline_kind=NONMEMBER_MODEL)


def _leave_one_out_chunk(data: pd.DataFrame, secret: str, targets: np.ndarray,
                         args: Mapping[str, Any]) -> list[AttackResult]:
    """One :func:`fit_predict` per target, fitted on every other row (a worker's share of the targets).

    With the regression (``analysis="model"``) the table is prepared and coded once (:func:`_leave_one_out_models`;
    :func:`_prepare` works value by value, so a row dropped after preparing is the row dropped before) and each model
    is fitted straight from it, without :func:`fit_predict`'s per-call preparation and memoisation, which a fit used
    once does not need: the same models and predictions, at a fraction of the cost.
    """
    kinds = args["kinds"]
    known = _check_known(data, secret, args.get("known"))
    counts = data[secret].value_counts(dropna=False)
    may_lose_a_class = kinds[secret] == CATEGORICAL and (counts.size < 2 or (counts.size == 2 and counts.min() == 1))
    if args.get("analysis") != "model" or not known or may_lose_a_class or not data.index.is_unique:
        return [fit_predict(data.drop(index=[t]), data.loc[[t]], secret, **args) for t in targets]
    return _leave_one_out_models(data, secret, targets, known, args)


def _leave_one_out_models(data: pd.DataFrame, secret: str, targets: np.ndarray, known: list[str],
                          args: Mapping[str, Any]) -> list[AttackResult]:
    """The regression of :func:`_leave_one_out_chunk`, one fit per target on every other row of ``data``.

    The continuous columns are prepared and the categorical ones coded
    (:func:`~anonlab.measures.design.category_codes`) once for the whole table; each fit drops its target's row from
    them and builds the design matrix from what is left (:func:`~anonlab.measures.design.fit_design`, the pipeline's
    matrix entry for entry), so a category only the target has is unknown to its model, as in a fit on the table
    without it.
    """
    from .design import category_codes, fit_design

    kinds, settings = args["kinds"], args["settings"]
    kind = kinds[secret]
    nums = [c for c in known if kinds[c] == CONTINUOUS]
    cats = [c for c in known if kinds[c] == CATEGORICAL]
    numeric = _prepare(data[nums], kinds) if nums else None
    y_all = _prepare(data[[secret]], kinds)[secret]
    coded = [category_codes(data[c]) for c in cats]
    position = data.index.get_indexer(targets)
    out = []
    for t, i in zip(targets, position):
        keep = np.ones(len(data), dtype=bool)
        keep[i] = False
        design, x_train = fit_design(None if numeric is None else numeric.drop(index=[t]),
                                     [c.codes[keep] for c in coded], [len(c.labels) for c in coded])
        x_target = design.matrix(None if numeric is None else numeric.loc[[t]], [c.codes[[i]] for c in coded])
        pred, conf = _fit_on(_model(kind, settings), x_train, y_all.drop(index=[t]).to_numpy(), x_target, kind)
        truth = y_all.loc[[t]].to_numpy()
        if kind == CATEGORICAL:
            correct, label = None, "logistic regression"
        else:
            correct = correct_within(pred, truth, settings.tolerance, settings.tolerance_basis, args.get("value_range"))
            label = "Lasso"
        out.append(AttackResult(f"non-member baseline: {secret} ({label})", data.index[[i]].to_numpy(), truth,
                                np.ones(1, dtype=bool), np.asarray(pred, dtype=object), confidence=conf,
                                correct=correct))
    return out


def pi_across_tolerances(attack: AttackResult, baseline: AttackResult, tolerances: Sequence[float], *,
                         basis: str = "range", value_range: float | None = None) -> pd.DataFrame:
    """PI of a continuous-secret attack over its baseline, for several error bounds ([FW24] §4.3).

    Both are judged with the same bound :math:`\\tau` (:func:`correct_within`) on the targets the attack predicted
    for; §4.3 says the resulting PI "is independent from the error chosen".

    >>> a = AttackResult.from_predictions("a", truth=[100.0, 100.0], prediction=[101.0, 108.0])
    >>> b = AttackResult.from_predictions("b", truth=[100.0, 100.0], prediction=[104.0, 120.0])
    >>> pi_across_tolerances(a, b, [0.02, 0.1], basis="relative")["pi"].tolist()
    [0.5, 1.0]
    """
    made = attack.targets[attack.predicted]
    base = baseline.on_targets(made)
    a = attack.subset(attack.predicted)
    rows = []
    for tol in tolerances:
        ca = correct_within(a.prediction.astype(float), a.truth.astype(float), tol, basis, value_range)
        cb = correct_within(base.prediction.astype(float), base.truth.astype(float), tol, basis, value_range)
        s = score(replace(a, correct=ca), replace(base, correct=cb))
        rows.append({"tolerance": float(tol), "p_attack": s.precision, "p_base": s.baseline_precision,
                     "pi": s.precision_improvement})
    return pd.DataFrame(rows)


def pi_spread_bootstrap(attack: AttackResult, baseline: AttackResult, tolerances: Sequence[float], *,
                        basis: str = "range", value_range: float | None = None, n_boot: int = 200,
                        seed: int | np.random.Generator | None = 0, confidence: float = 0.95) -> dict[str, float]:
    """How far PI moves over the error bounds (max - min, :func:`pi_across_tolerances`), with a bootstrap interval.

    The targets the attack predicted for are resampled with replacement (``n_boot`` times); in each sample attack and
    baseline are judged with every bound and PI (Eq 6) recomputed; the interval is the percentile interval of the
    spread (a bound at which the baseline is always right has no PI and is left out of that sample's spread).

    >>> a = AttackResult.from_predictions("a", truth=[100.0] * 40, prediction=[101.0] * 20 + [108.0] * 20)
    >>> b = AttackResult.from_predictions("b", truth=[100.0] * 40, prediction=[104.0] * 20 + [120.0] * 20)
    >>> out = pi_spread_bootstrap(a, b, [0.02, 0.1], basis="relative", n_boot=50)
    >>> out["spread"], out["low"] <= out["spread"] <= out["high"]
    (0.5, True)
    """
    from .rates import precision_improvement

    made = attack.targets[attack.predicted]
    base = baseline.on_targets(made)
    a = attack.subset(attack.predicted)
    ca = np.column_stack([correct_within(a.prediction.astype(float), a.truth.astype(float), t, basis, value_range)
                          for t in tolerances]).astype(float)
    cb = np.column_stack([correct_within(base.prediction.astype(float), base.truth.astype(float), t, basis,
                                         value_range) for t in tolerances]).astype(float)
    n = ca.shape[0]

    def spread(pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            pi = np.asarray(precision_improvement(pa, pb), dtype=float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a sample where no bound has a PI
            return np.nanmax(pi, axis=-1) - np.nanmin(pi, axis=-1)

    point = float(spread(ca.mean(axis=0), cb.mean(axis=0)))
    rng = check_random_state(seed)
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot).astype(float)
    boot = spread(counts @ ca / n, counts @ cb / n)  # integer sums, so a share of 1 stays exactly 1
    lo, hi = percentile_interval(boot, confidence)
    return {"spread": point, "low": lo, "high": hi}


def complete_vs_relaxed(data: pd.DataFrame, split: MemberSplit, secrets: Sequence[str], n_targets: int, *,
                        kinds: Mapping[str, str], settings: ModelSettings = ModelSettings(),
                        fits: FitStore | None = None) -> pd.DataFrame:
    """Relaxed (one fit on the members) vs complete (one fit per target on all other rows) baselines (§4.2).

    On the first ``n_targets`` non-members, with the regression (no most-common-value switch, so the two differ only
    by what they were fitted on). Precision of each and their difference.
    """
    targets = split.non_members[:n_targets]
    rows = []
    for secret in secrets:
        span = None
        if kinds[secret] == CONTINUOUS:
            t = data.loc[split.non_members, secret].astype(float)
            span = float(t.max() - t.min())
        relaxed = fit_predict(data.loc[split.members], data.loc[targets], secret, kinds=kinds,
                              settings=settings, analysis="model", value_range=span, fits=fits)
        complete = leave_one_out_baseline(data, secret, targets, kinds=kinds, settings=settings, value_range=span)
        pr, pc = score(relaxed).precision, score(complete).precision
        agree = float(np.mean(np.asarray(relaxed.prediction == complete.prediction, dtype=bool))) \
            if kinds[secret] == CATEGORICAL else float(np.mean(relaxed.is_correct() == complete.is_correct()))
        rows.append({"secret": secret, "kind": kinds[secret], "targets": int(targets.size),
                     "relaxed (members only)": pr, "complete (leave one out)": pc, "difference": pc - pr,
                     "same verdict per target": agree})
    return pd.DataFrame(rows)


def pi_vs_tolerance(data: pd.DataFrame, split: MemberSplit, pii: Sequence[str], tolerances: Sequence[float], *,
                    kinds: Mapping[str, str], settings: ModelSettings = ModelSettings(),
                    seed: int | None = 0, fits: FitStore | None = None) -> pd.DataFrame:
    """PI of the all-attributes Lasso over the PII-only Lasso, per continuous secret and error bound (§4.3).

    The "attack" knows every other attribute, the baseline only the PII; both are judged with the same bound
    (:func:`pi_across_tolerances`). [FW24] §4.3 says PI is then independent of the bound. Each secret's rows also
    carry the spread of PI over the bounds and its bootstrap interval (:func:`pi_spread_bootstrap`, seeded with
    ``seed``).
    """
    frames = []
    for secret in [c for c in data.columns if kinds[c] == CONTINUOUS]:
        known_pii = [c for c in pii if c != secret]
        if not known_pii:
            continue
        common = dict(members=split.members, targets=split.non_members, kinds=kinds, settings=settings,
                      analysis="model", fits=fits)
        atk = nonmember_baseline(data, secret, **common)
        base = nonmember_baseline(data, secret, known=known_pii, **common)
        sp = pi_spread_bootstrap(atk, base, tolerances, basis=settings.tolerance_basis, seed=seed)
        frames.append(pi_across_tolerances(atk, base, tolerances, basis=settings.tolerance_basis)
                      .assign(secret=secret, spread=sp["spread"], spread_low=sp["low"], spread_high=sp["high"]))
    return pd.concat(frames, ignore_index=True)

"""Membership inference against scikit-learn models trained on a real table.

A black-box attacker (``predict_proba``) scores each record, higher meaning "more likely a member", so that any ROC
point can be read off with :mod:`anonlab.measures.base_rates` and converted to precision at a realistic skew ([FW24]
§5). Attacks: ``loss`` (Yeom et al., IEEE CSF 2018: score log p_y(x), minus the loss), ``confidence`` (max_c p_c(x)),
``shokri`` (Shokri et al., IEEE S&P 2017: per-class attack models trained on shadow models' outputs),
``lira_offline``/``lira_online`` (Carlini et al., IEEE S&P 2022: Gaussian fits of the logit confidence over reference
models). Protocol (Carlini et al. §V): models train on random subsets of one pool (:func:`train_shadow_models`); each
target takes its turn and all other models are the attacker's shadow/reference models, IN for some records and OUT for
others (:func:`run_attacks`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from anonlab.measures.base_rates import RocCurve, roc_from_scores
from anonlab.measures.protocol import AttackResult
from anonlab.progress import Progress, report
from anonlab.streams import legacy_seed
from anonlab.validation import check_choice, check_int, check_number, check_random_state

__all__ = [
    "ATTACKS",
    "LABELS",
    "PAPERS",
    "DATASETS",
    "MODELS",
    "MembershipData",
    "ModelSpec",
    "ShadowModels",
    "DATASET_ROWS",
    "load_membership_data",
    "pool_size",
    "encode_features",
    "sample_training_sets",
    "train_shadow_models",
    "true_class_probability",
    "logit_confidence",
    "loss_attack",
    "confidence_attack",
    "shokri_attack",
    "lira_offline",
    "lira_online",
    "run_attacks",
    "attack_rocs",
    "membership_result",
    "attack_results",
    "USES_REFERENCE_MODELS",
]

DATASETS = ("adult", "census_income")
"""Real tables the membership experiments can use (loaded via :mod:`anonlab.data`)."""

DATASET_ROWS = {"adult": 45_222, "census_income": 299_285}
"""Rows :func:`load_membership_data` returns with ``n_records=None``."""

MODELS = ("random_forest", "gradient_boosting", "logistic_regression")
"""Target / shadow model families (scikit-learn)."""

ATTACKS = ("loss", "confidence", "shokri", "lira_offline", "lira_online")
"""Attack names, in the order they are usually shown."""

LABELS = {"loss": "loss (Yeom)", "confidence": "confidence", "shokri": "shadow models (Shokri)",
          "lira_offline": "LiRA offline", "lira_online": "LiRA online"}
"""Display names of the attacks (tables, figures)."""

PAPERS = {"shokri": "Shokri et al.", "carlini": "Carlini et al. (LiRA)"}
"""Display names of the two attacks whose ROC curves [FW24] Fig. 10 gives (arXiv:2403.06595)."""

Variance = Literal["global", "per_example"]


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MembershipData:
    """A table encoded for classification: ``X`` (n, d) float32, ``y`` class indices into ``classes``.

    Categorical columns are integer codes (``categorical`` marks them); ``notes`` says how the table was loaded and
    cleaned.
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    categorical: np.ndarray
    classes: list[str]
    dataset: str
    notes: str = ""

    @property
    def n_records(self) -> int:
        """Number of rows."""
        return int(self.X.shape[0])

    @property
    def n_duplicate_rows(self) -> int:
        """Rows whose feature vector also occurs in an earlier row (indistinguishable from it for any attack)."""
        return int(self.X.shape[0] - np.unique(self.X, axis=0).shape[0])


def encode_features(
    df: pd.DataFrame, label: str, *, drop: Sequence[str] = ()
) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray, list[str]]:
    """Encode a table (no missing values): (X, y, feature_names, categorical, classes), codes in sorted order.

    >>> df = pd.DataFrame({"a": [1, 2], "b": ["x", "y"], "c": ["no", "yes"]})
    >>> X, y, names, cat, classes = encode_features(df, "c")
    >>> X.tolist(), y.tolist(), names, cat.tolist(), classes
    ([[1.0, 0.0], [2.0, 1.0]], [0, 1], ['a', 'b'], [False, True], ['no', 'yes'])
    """
    missing = [c for c in [label, *drop] if c not in df.columns]
    if missing:
        raise ValueError(f"unknown column(s) {missing}; the table has {list(df.columns)}")
    if df.isna().any().any():
        bad = [c for c in df.columns if df[c].isna().any()]
        raise ValueError(f"the table has missing values in {bad}; drop or impute them first")
    feats = df.drop(columns=[label, *drop])
    names = list(feats.columns)
    cat = np.array([not pd.api.types.is_numeric_dtype(feats[c]) for c in names], dtype=bool)
    cols = [
        pd.Categorical(feats[c]).codes.astype(np.float32) if is_cat
        else feats[c].to_numpy(dtype=np.float32)
        for c, is_cat in zip(names, cat, strict=True)
    ]
    X = np.column_stack(cols) if cols else np.empty((len(df), 0), np.float32)
    lab = pd.Categorical(df[label])
    return X, lab.codes.astype(np.int64), names, cat, [str(v) for v in lab.categories]


def load_membership_data(
    dataset: str = "adult", *, n_records: int | None = None, seed: int | np.random.Generator = 0
) -> MembershipData:
    """Load a real table for the membership experiments, optionally a uniform sample of ``n_records`` rows.

    ``"adult"``: UCI Adult train and test, rows with a missing value dropped (45,222), label ``income``, without
    ``fnlwgt`` (a survey weight that would act as a record id); ``"census_income"``: KDD Census-Income (299,285),
    without ``instance_weight``.
    """
    from anonlab.data import load_adult, load_census_income

    check_choice("dataset", dataset, DATASETS)
    if dataset == "adult":
        df = pd.concat([load_adult("train", drop_missing="any"), load_adult("test", drop_missing="any")],
                       ignore_index=True)
        label, drop = "income", ["fnlwgt"]
        notes = ("UCI Adult, adult.data + adult.test, rows with a missing value dropped; "
                 "label income; fnlwgt dropped")
    else:
        df = pd.concat([load_census_income("train"), load_census_income("test")], ignore_index=True)
        label, drop = "income", ["instance_weight"]
        notes = "KDD Census-Income, train + test files; label income; instance_weight dropped"
    n_all = len(df)
    if n_records is not None:
        check_int("n_records", n_records, low=2, high=n_all)
        rows = np.sort(check_random_state(seed).choice(n_all, size=int(n_records), replace=False))
        df = df.iloc[rows].reset_index(drop=True)
        notes += f"; a random sample of {n_records:,} of the {n_all:,} rows"
    X, y, names, cat, classes = encode_features(df, label, drop=drop)
    return MembershipData(X=X, y=y, feature_names=names, categorical=cat, classes=classes,
                          dataset=dataset, notes=notes)


def pool_size(dataset: str, n_members: int, member_fraction: float) -> int:
    """Records in the pool when every model trains on ``n_members``: round(n_members / member_fraction).

    ``ValueError`` when the table (:data:`DATASET_ROWS`) is too small, saying which knob to turn.

    >>> pool_size("adult", 10_000, 0.5)
    20000
    """
    check_choice("dataset", dataset, DATASETS)
    check_int("n_members", n_members, low=1)
    check_number("member_fraction", member_fraction, low=0, high=1, low_inclusive=False,
                 high_inclusive=False)
    n = int(round(n_members / member_fraction))
    if n > DATASET_ROWS[dataset]:
        raise ValueError(
            f"n_members / member_fraction = {n_members} / {member_fraction} = {n:,} records, but "
            f"{dataset} has only {DATASET_ROWS[dataset]:,}; lower n_members or raise member_fraction"
        )
    if n - n_members < 1:
        raise ValueError(f"member_fraction {member_fraction} leaves no non-members in a pool of {n}")
    return n


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelSpec:
    """A kind of scikit-learn classifier; ``spec(seed)`` returns a fresh unfitted one.

    ``random_forest`` (``n_estimators`` trees, grown until pure unless ``max_depth``: memorises),
    ``gradient_boosting`` (HistGradientBoosting, 200 rounds, no early stopping) or ``logistic_regression`` (one-hot
    ``categorical``, standardised numbers; ``max_depth`` must be ``None``). ``n_jobs`` parallelises the forest without
    changing results.
    """

    model: str = "random_forest"
    max_depth: int | None = None
    n_estimators: int = 100
    categorical: tuple[int, ...] = ()
    n_jobs: int = 1

    def __post_init__(self) -> None:
        check_choice("model", self.model, MODELS)
        if self.max_depth is not None:
            check_int("max_depth", self.max_depth, low=1)
            if self.model == "logistic_regression":
                raise ValueError(
                    "max_depth applies to the tree models only; use None with logistic_regression"
                )
        check_int("n_estimators", self.n_estimators, low=1)

    def __call__(self, seed: int) -> Any:
        """A fresh, unfitted estimator seeded with ``seed``."""
        if self.model == "random_forest":
            from sklearn.ensemble import RandomForestClassifier

            return RandomForestClassifier(n_estimators=self.n_estimators, max_depth=self.max_depth,
                                          n_jobs=self.n_jobs, random_state=seed)
        if self.model == "gradient_boosting":
            from sklearn.ensemble import HistGradientBoostingClassifier

            return HistGradientBoostingClassifier(
                max_iter=self.n_estimators * 2, max_depth=self.max_depth, early_stopping=False,
                categorical_features=list(self.categorical) or None, random_state=seed,
            )
        from sklearn.compose import ColumnTransformer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import OneHotEncoder, StandardScaler

        cat = list(self.categorical)
        pre = ColumnTransformer(
            [("cat", OneHotEncoder(handle_unknown="ignore"), cat)] if cat else [],
            remainder=StandardScaler(),
        )
        return make_pipeline(pre, LogisticRegression(max_iter=1000, random_state=seed))

    def key(self) -> str:
        """A stable description of the model kind (``n_jobs``, which does not change results, left out)."""
        d = asdict(self)
        d.pop("n_jobs")
        return json.dumps(d, sort_keys=True, default=str)


# ---------------------------------------------------------------------------
# Shadow / reference models
# ---------------------------------------------------------------------------


def sample_training_sets(
    n_records: int, n_models: int, member_fraction: float, seed: int | np.random.Generator
) -> np.ndarray:
    """Independent training sets, one row per model (n_models, n_records): round(fraction · n) records each.

    >>> m = sample_training_sets(10, 3, 0.5, np.random.default_rng(0))
    >>> m.shape, m.sum(axis=1).tolist()
    ((3, 10), [5, 5, 5])
    """
    check_number("member_fraction", member_fraction, low=0, high=1, low_inclusive=False,
                 high_inclusive=False)
    rng = check_random_state(seed)
    n_members = int(round(member_fraction * n_records))
    if not 1 <= n_members < n_records:
        raise ValueError(
            f"member_fraction {member_fraction} of {n_records} records leaves no members or no "
            "non-members"
        )
    ranks = rng.random((n_models, n_records)).argsort(axis=1).argsort(axis=1)
    return ranks < n_members


@dataclass(frozen=True)
class ShadowModels:
    """Outputs of models trained on random subsets of a pool: ``proba`` (models, records, classes) float32.

    ``in_mask[j, i]``: model j trained on record i; ``y`` the true classes; ``spec`` the :meth:`ModelSpec.key`.
    """

    proba: np.ndarray
    in_mask: np.ndarray
    y: np.ndarray
    member_fraction: float
    spec: str = ""

    @property
    def n_models(self) -> int:
        """Number of models."""
        return int(self.in_mask.shape[0])

    @property
    def n_records(self) -> int:
        """Size of the pool."""
        return int(self.in_mask.shape[1])

    def accuracy(self) -> pd.DataFrame:
        """Train and test accuracy of every model and their gap (what the loss attack exploits, Yeom et al.)."""
        correct = self.proba.argmax(axis=2) == self.y[None, :]
        tr = (correct & self.in_mask).sum(axis=1) / self.in_mask.sum(axis=1)
        te = (correct & ~self.in_mask).sum(axis=1) / (~self.in_mask).sum(axis=1)
        return pd.DataFrame({"model": np.arange(self.n_models), "train_accuracy": tr,
                             "test_accuracy": te, "gap": tr - te})


def train_shadow_models(
    X: np.ndarray,
    y: np.ndarray,
    spec: ModelSpec | Callable[[int], Any],
    *,
    n_models: int,
    member_fraction: float = 0.5,
    seed: int | np.random.Generator = 0,
    progress: Progress | None = None,
) -> ShadowModels:
    """Train ``n_models`` (>= 2) models, each on its own random subset of the pool, querying all records.

    Training sets from :func:`sample_training_sets`; ``spec(seed)`` an unfitted classifier; the same seed gives the
    same outputs; ``progress`` gets a line per model. Returns plain arrays.
    """
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be (n, d) and y (n,), got shapes {X.shape} and {y.shape}")
    check_int("n_models", n_models, low=2)
    n_classes = int(y.max()) + 1
    from threadpoolctl import threadpool_limits

    rng = check_random_state(seed)
    in_mask = sample_training_sets(X.shape[0], n_models, member_fraction, rng)
    model_seeds = rng.integers(0, 2**31 - 1, size=n_models)
    proba = np.zeros((n_models, X.shape[0], n_classes), dtype=np.float32)
    # OpenMP/BLAS threads (boosting, logistic regression) stay at 1: these small fits only lose
    # time to threads on a busy machine. The forest's own n_jobs parallelism is not affected.
    with threadpool_limits(limits=1):
        for j in range(n_models):
            est = spec(int(model_seeds[j]))
            est.fit(X[in_mask[j]], y[in_mask[j]])
            p = est.predict_proba(X)
            proba[j][:, np.asarray(est.classes_, dtype=int)] = p  # a class absent from training gets 0
            report(progress, f"trained model {j + 1}/{n_models}")
    return ShadowModels(proba=proba, in_mask=in_mask, y=y, member_fraction=float(member_fraction),
                        spec=spec.key() if isinstance(spec, ModelSpec) else repr(spec))


# ---------------------------------------------------------------------------
# Statistics of a model's output
# ---------------------------------------------------------------------------


def _check_proba(proba: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(proba, dtype=float)
    yy = np.asarray(y)
    if p.ndim < 2 or p.shape[-2] != yy.shape[0] or yy.ndim != 1:
        raise ValueError(f"proba must be (..., n, n_classes) and y (n,), got {p.shape} and {yy.shape}")
    if yy.size and (yy.min() < 0 or yy.max() >= p.shape[-1]):
        raise ValueError(f"y must hold class indices in [0, {p.shape[-1] - 1}]")
    return p, yy.astype(np.int64)


def true_class_probability(proba: npt.ArrayLike, y: npt.ArrayLike) -> np.ndarray:
    """The probability p_y(x) the model gives each record's true class, shape (..., n).

    >>> true_class_probability([[0.9, 0.1], [0.3, 0.7]], [0, 0]).tolist()
    [0.9, 0.3]
    """
    p, yy = _check_proba(np.asarray(proba), np.asarray(y))
    return np.take_along_axis(p, np.broadcast_to(yy[:, None], p.shape[:-1] + (1,)), axis=-1)[..., 0]


def logit_confidence(proba: npt.ArrayLike, y: npt.ArrayLike, eps: float = 1e-4) -> np.ndarray:
    r"""Logit-scaled confidence φ = log(p_y / (1 - p_y)) (Carlini et al. 2022, §IV-C), p_y clipped to [eps, 1-eps].

    >>> logit_confidence([[0.5, 0.5], [0.0, 1.0]], [0, 1]).round(2).tolist()
    [0.0, 9.21]
    """
    check_number("eps", eps, low=0, high=0.5, low_inclusive=False, high_inclusive=False)
    p = np.clip(true_class_probability(proba, y), eps, 1.0 - eps)
    return np.log(p) - np.log1p(-p)


def loss_attack(proba: npt.ArrayLike, y: npt.ArrayLike, eps: float = 1e-12) -> np.ndarray:
    r"""Yeom et al.'s loss-threshold attack: score log p_y(x) = -loss(x, y), every threshold kept.

    >>> loss_attack([[0.9, 0.1], [0.3, 0.7]], [0, 0]).round(3).tolist()
    [-0.105, -1.204]
    """
    return np.log(np.clip(true_class_probability(proba, y), eps, 1.0))


def confidence_attack(proba: npt.ArrayLike) -> np.ndarray:
    """Confidence-threshold attack without the label: score max_c p_c(x).

    >>> confidence_attack([[0.9, 0.1], [0.3, 0.7]]).tolist()
    [0.9, 0.7]
    """
    p = np.asarray(proba, dtype=float)
    if p.ndim < 2:
        raise ValueError(f"proba must be (..., n, n_classes), got shape {p.shape}")
    return p.max(axis=-1)


# ---------------------------------------------------------------------------
# Shokri et al.
# ---------------------------------------------------------------------------


def _check_shadow(shadow: np.ndarray, shadow_in: np.ndarray, n: int, what: str) -> np.ndarray:
    m = np.asarray(shadow_in)
    if m.dtype != bool or m.ndim != 2 or m.shape[1] != n or np.asarray(shadow).shape[:2] != m.shape:
        raise ValueError(
            f"shadow_in must be a boolean (n_models, n) mask matching {what} "
            f"(shape {np.asarray(shadow).shape[:2]}), got dtype {m.dtype} shape {m.shape}"
        )
    if m.shape[0] < 1:
        raise ValueError("need at least one shadow model")
    return m


def shokri_attack(
    shadow_proba: np.ndarray,
    shadow_in: np.ndarray,
    y: npt.ArrayLike,
    target_proba: np.ndarray,
    *,
    seed: int | np.random.Generator = 0,
    max_train_rows: int = 50_000,
) -> np.ndarray:
    """Shokri et al.'s shadow-model attack: one attack classifier per class; the score is its P(IN).

    Each class's model learns IN/OUT from shadow models' prediction vectors and is applied to the target's. A
    gradient-boosted ensemble (Shokri et al. used a small neural network), trained on at most ``max_train_rows``
    random (shadow, record) pairs.
    """
    sp, yy = _check_proba(shadow_proba, y)
    tp, _ = _check_proba(target_proba, yy)
    m = _check_shadow(sp, shadow_in, yy.size, "shadow_proba")
    if tp.ndim != 2:
        raise ValueError(f"target_proba must be (n, n_classes), got shape {tp.shape}")
    from threadpoolctl import threadpool_limits

    rng = check_random_state(seed)
    scores = np.full(yy.size, 0.5)
    with threadpool_limits(limits=1):  # small fits: OpenMP threads only cost time on a busy machine
        _fit_attack_models(sp, m, yy, tp, rng, max_train_rows, scores)
    return scores


def _fit_attack_models(sp: np.ndarray, m: np.ndarray, yy: np.ndarray, tp: np.ndarray,
                       seed: int | np.random.Generator, max_train_rows: int, scores: np.ndarray) -> None:
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = check_random_state(seed)
    for c in np.unique(yy):
        rec = np.flatnonzero(yy == c)
        feats = sp[:, rec, :].reshape(-1, sp.shape[-1])
        labels = m[:, rec].reshape(-1)
        if feats.shape[0] > max_train_rows:
            pick = rng.choice(feats.shape[0], size=max_train_rows, replace=False)
            feats, labels = feats[pick], labels[pick]
        if labels.all() or not labels.any():
            continue  # nothing to learn: every shadow pair IN (or OUT)
        clf = HistGradientBoostingClassifier(max_iter=100, random_state=int(rng.integers(2**31 - 1)))
        clf.fit(feats, labels)
        scores[rec] = clf.predict_proba(tp[rec])[:, list(clf.classes_).index(True)]


# ---------------------------------------------------------------------------
# LiRA, Carlini et al.
# ---------------------------------------------------------------------------


def _gaussian_fit(
    phi: np.ndarray, mask: np.ndarray, variance: Variance, min_std: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-example mean and std of ``phi`` over the models where ``mask`` holds."""
    n = mask.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.where(mask, phi, 0.0).sum(axis=0) / n
        resid2 = phi - mu[None, :]  # squared in place, zero outside the mask: one array, not three
        np.multiply(resid2, resid2, out=resid2)
        np.copyto(resid2, 0.0, where=~mask)
        dof = int(n.sum()) - int((n > 0).sum())  # one mean estimated per record
        pooled = math.sqrt(resid2.sum() / dof) if dof > 0 else math.nan
        if variance == "global":
            sd = np.full(mu.shape, pooled)
        else:
            sd = np.where(n >= 2, np.sqrt(resid2.sum(axis=0) / np.maximum(n, 1)), pooled)
    return mu, np.where(np.isnan(sd), np.nan, np.maximum(sd, min_std)), n


def _check_lira(shadow_phi: np.ndarray, shadow_in: np.ndarray, target_phi: np.ndarray,
                variance: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    sp = np.asarray(shadow_phi, dtype=float)
    tp = np.asarray(target_phi, dtype=float)
    if sp.ndim != 2 or tp.ndim != 1 or sp.shape[1] != tp.size:
        raise ValueError(f"shadow_phi must be (n_models, n) and target_phi (n,), got {sp.shape}, {tp.shape}")
    m = _check_shadow(sp, shadow_in, tp.size, "shadow_phi")
    check_choice("variance", variance, ("global", "per_example"))
    if not (np.all(np.isfinite(sp)) and np.all(np.isfinite(tp))):
        raise ValueError("confidences must be finite (clip probabilities before the logit)")
    return sp, m, tp


def lira_offline(
    shadow_phi: np.ndarray,
    shadow_in: np.ndarray,
    target_phi: np.ndarray,
    *,
    variance: Variance = "global",
    min_std: float = 1e-3,
) -> np.ndarray:
    r"""Offline LiRA (Carlini et al. 2022, §IV-D): z = (φ_target - μ_out) / σ_out per record.

    μ_out (and σ_out with ``variance="per_example"``, else pooled) from the reference models that did not train on the
    record; z keeps resolution where Carlini's Pr[Z < φ] rounds to 1. σ >= ``min_std``; a record with no OUT model
    scores 0.
    """
    sp, m, tp = _check_lira(shadow_phi, shadow_in, target_phi, variance)
    return _offline(tp, _gaussian_fit(sp, ~m, variance, min_std), min_std)


def lira_online(
    shadow_phi: np.ndarray,
    shadow_in: np.ndarray,
    target_phi: np.ndarray,
    *,
    variance: Variance = "global",
    min_std: float = 1e-3,
) -> np.ndarray:
    r"""Online LiRA (Carlini et al. 2022, Algorithm 1): log N(φ; μ_in, σ_in²) - log N(φ; μ_out, σ_out²).

    A record lacking IN (OUT) models gets μ_out plus (μ_in minus) the mean IN-OUT shift. Arguments as
    :func:`lira_offline`.
    """
    sp, m, tp = _check_lira(shadow_phi, shadow_in, target_phi, variance)
    return _online(tp, _gaussian_fit(sp, m, variance, min_std), _gaussian_fit(sp, ~m, variance, min_std), min_std)


def _offline(tp: np.ndarray, fit_out: tuple[np.ndarray, np.ndarray, np.ndarray], min_std: float) -> np.ndarray:
    """Offline LiRA's z from the OUT fit (:func:`lira_offline`)."""
    mu, sd, n = fit_out
    sd = np.where(np.isnan(sd), min_std, sd)
    z = (tp - mu) / sd
    return np.where(n > 0, z, 0.0)


def _online(tp: np.ndarray, fit_in: tuple[np.ndarray, np.ndarray, np.ndarray],
            fit_out: tuple[np.ndarray, np.ndarray, np.ndarray], min_std: float) -> np.ndarray:
    """Online LiRA's log-likelihood ratio from the IN and OUT fits (:func:`lira_online`)."""
    from scipy.stats import norm

    (mu_in, sd_in, n_in), (mu_out, sd_out, n_out) = fit_in, fit_out
    # a group without any spread estimate borrows the other group's
    sd_in = np.where(np.isnan(sd_in), sd_out, sd_in)
    sd_out = np.where(np.isnan(sd_out), sd_in, sd_out)
    sd_in = np.where(np.isnan(sd_in), min_std, sd_in)
    sd_out = np.where(np.isnan(sd_out), min_std, sd_out)
    both = (n_in > 0) & (n_out > 0)
    shift = float(np.mean(mu_in[both] - mu_out[both])) if both.any() else 0.0
    mu_in = np.where(n_in > 0, mu_in, mu_out + shift)
    mu_out = np.where(n_out > 0, mu_out, mu_in - shift)
    return norm.logpdf(tp, mu_in, sd_in) - norm.logpdf(tp, mu_out, sd_out)


def lira_scores(
    shadow_phi: np.ndarray,
    shadow_in: np.ndarray,
    target_phi: np.ndarray,
    *,
    variance: Variance = "global",
    min_std: float = 1e-3,
) -> tuple[np.ndarray, np.ndarray]:
    """Offline and online LiRA together, fitting the OUT Gaussians once: identical to the two calls.

    >>> phi = np.array([[0.0, 1.0], [2.0, 1.5], [1.0, 3.0]])
    >>> inm = np.array([[False, True], [True, False], [False, True]])
    >>> off, on = lira_scores(phi, inm, np.array([2.0, 0.5]))
    >>> bool(np.array_equal(off, lira_offline(phi, inm, np.array([2.0, 0.5])))), bool(np.array_equal(
    ...     on, lira_online(phi, inm, np.array([2.0, 0.5]))))
    (True, True)
    """
    sp, m, tp = _check_lira(shadow_phi, shadow_in, target_phi, variance)
    fit_out = _gaussian_fit(sp, ~m, variance, min_std)
    return _offline(tp, fit_out, min_std), _online(tp, _gaussian_fit(sp, m, variance, min_std), fit_out, min_std)


# ---------------------------------------------------------------------------
# Running the attacks
# ---------------------------------------------------------------------------


def run_attacks(
    models: ShadowModels,
    *,
    n_targets: int = 1,
    attacks: Sequence[str] = ATTACKS,
    seed: int | np.random.Generator = 0,
    variance: Variance = "global",
    eps: float = 1e-4,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Attack models ``0 .. n_targets-1`` in turn, every other model serving as reference.

    Members are the records the target trained on; rows of all targets are pooled, as Carlini et al. do. An integer
    ``seed`` gives target t the Shokri seed ``legacy_seed(seed, "membership.shokri_target", t)``. One row per (target
    model, record): ``target_model``, ``record``, ``is_member`` and a score per attack.
    """
    unknown = [a for a in attacks if a not in ATTACKS]
    if unknown or not attacks:
        raise ValueError(f"attacks must be a non-empty subset of {', '.join(ATTACKS)}; got {list(attacks)}")
    check_int("n_targets", n_targets, low=1, high=models.n_models)
    if not isinstance(seed, np.random.Generator):
        check_random_state(seed)  # refuse a bad seed before any work
    phi = logit_confidence(models.proba, models.y, eps=eps) if \
        {"lira_offline", "lira_online"} & set(attacks) else None
    frames = []
    for t in range(n_targets):
        refs = np.r_[0:t, t + 1:models.n_models]
        target_p = models.proba[t]
        cols: dict[str, Any] = {
            "target_model": np.full(models.n_records, t),
            "record": np.arange(models.n_records),
            "is_member": models.in_mask[t],
        }
        both: dict[str, np.ndarray] = {}
        if {"lira_offline", "lira_online"} <= set(attacks):  # one OUT fit for both
            both["lira_offline"], both["lira_online"] = lira_scores(phi[refs], models.in_mask[refs], phi[t],
                                                                    variance=variance)
        for a in attacks:
            if a in both:
                cols[a] = both[a]
            elif a == "loss":
                cols[a] = loss_attack(target_p, models.y)
            elif a == "confidence":
                cols[a] = confidence_attack(target_p)
            elif a == "shokri":
                shokri_seed = seed if isinstance(seed, np.random.Generator) else \
                    legacy_seed(seed, "membership.shokri_target", t)
                cols[a] = shokri_attack(models.proba[refs], models.in_mask[refs], models.y, target_p, seed=shokri_seed)
            elif a == "lira_offline":
                cols[a] = lira_offline(phi[refs], models.in_mask[refs], phi[t], variance=variance)
            else:
                cols[a] = lira_online(phi[refs], models.in_mask[refs], phi[t], variance=variance)
        frames.append(pd.DataFrame(cols))
        report(progress, f"attacked target model {t + 1}/{n_targets}")
    return pd.concat(frames, ignore_index=True)


def attack_rocs(scores: pd.DataFrame, attacks: Sequence[str] | None = None) -> dict[str, RocCurve]:
    """The ROC curve of each attack column of :func:`run_attacks`' result.

    >>> df = pd.DataFrame({"is_member": [True, False], "loss": [0.0, -1.0]})
    >>> attack_rocs(df)["loss"].auc
    1.0
    """
    if "is_member" not in scores.columns:
        raise ValueError("scores needs an 'is_member' column (from run_attacks)")
    names = [a for a in ATTACKS if a in scores.columns] if attacks is None else list(attacks)
    missing = [a for a in names if a not in scores.columns]
    if missing:
        raise ValueError(f"no score column(s) {missing}; columns are {list(scores.columns)}")
    truth = scores["is_member"].to_numpy(dtype=bool)
    return {a: roc_from_scores(scores[a].to_numpy(dtype=float), truth) for a in names}


# ---------------------------------------------------------------------------
# Results in the one scoring protocol
# ---------------------------------------------------------------------------

#: Attacks that calibrate against shadow / reference models (the others use the target alone).
USES_REFERENCE_MODELS = ("shokri", "lira_offline", "lira_online")


def membership_result(
    attack: str,
    is_member: npt.ArrayLike,
    scores: npt.ArrayLike,
    threshold: float,
    *,
    targets: npt.ArrayLike | None = None,
    resources: dict[str, float] | None = None,
) -> AttackResult:
    r"""A membership attack's scores at one threshold, as an :class:`~anonlab.measures.AttackResult`.

    Every target is guessed (member where score >= ``threshold``) with ``positive=True``, so precision is TP/(TP+FP)
    ([FW24] Eq 10), recall TP/M (Eq 9); the scores are kept as ``confidence`` for ``result.at_threshold(t)``.

    >>> from anonlab.measures import score
    >>> r = membership_result("toy", [True, True, False, False], [0.9, 0.4, 0.6, 0.1], 0.5)
    >>> s = score(r)
    >>> s.precision, s.recall, s.coverage
    (0.5, 0.5, 0.5)
    """
    m = np.asarray(is_member)
    if m.dtype != bool:
        if m.ndim != 1 or not np.all(np.isin(m, (0, 1))):
            raise ValueError("is_member must be a one-dimensional boolean (or 0/1) array")
        m = m.astype(bool)
    s = np.asarray(scores, dtype=float)
    if s.shape != m.shape:
        raise ValueError(f"scores must have one entry per target ({m.size}), got shape {s.shape}")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or math.isnan(threshold):
        raise ValueError(f"threshold must be a number (inf flags no one), got {threshold!r}")
    return AttackResult.from_predictions(attack, m, s >= threshold, targets=targets,
                                         predicted=np.ones(m.size, dtype=bool), positive=True,
                                         confidence=s, resources=resources or {})


def attack_results(
    scores: pd.DataFrame,
    target_fpr: float,
    *,
    attacks: Sequence[str] | None = None,
    labels: dict[str, str] | None = None,
    reference_models: int | None = None,
) -> dict[str, AttackResult]:
    """Each attack of :func:`run_attacks` at its threshold for FPR <= ``target_fpr``: {column: AttackResult}.

    The threshold is :func:`~anonlab.measures.base_rates.threshold_at_fpr` of the pooled curve (Carlini et al.'s TPR
    at low FPR); targets are ``target_model * n_records + record``; ``reference_models`` is kept as a resource of the
    attacks that use them.

    >>> df = pd.DataFrame({"target_model": [0, 0, 0, 0], "record": [0, 1, 2, 3],
    ...                    "is_member": [True, False, True, False], "loss": [0.0, -1.0, -0.5, -2.0]})
    >>> r = attack_results(df, 0.5)["loss"]
    >>> r.prediction.tolist(), r.resources
    ([True, False, True, False], {'queries': 4, 'target_fpr': 0.5, 'threshold': -0.5})
    """
    from anonlab.measures.base_rates import threshold_at_fpr

    names = [a for a in ATTACKS if a in scores.columns] if attacks is None else list(attacks)
    rocs = attack_rocs(scores, names)
    n_rec = int(scores["record"].max()) + 1
    targets = scores["target_model"].to_numpy(dtype=np.int64) * n_rec + scores["record"].to_numpy(dtype=np.int64)
    truth = scores["is_member"].to_numpy(dtype=bool)
    out = {}
    for a in names:
        thr = threshold_at_fpr(rocs[a], target_fpr)
        res: dict[str, float] = {"queries": int(truth.size), "target_fpr": float(target_fpr), "threshold": thr}
        if reference_models is not None and a in USES_REFERENCE_MODELS:
            res["reference_models"] = int(reference_models)
        out[a] = membership_result((labels or {}).get(a, a), truth, scores[a].to_numpy(dtype=float), thr,
                                   targets=targets, resources=res)
    return out

"""Membership inference against scikit-learn models trained on a real table.

The attacker holds a trained model (black-box: ``predict_proba``) and a
record, and guesses whether the record was in the model's training set.
Every attack here returns one *score per example* (higher means "more
likely a member"), so that any threshold, and with it any point of the ROC
curve, can be read off afterwards with :mod:`anonlab.measures.base_rates`,
and converted to precision at a realistic member:non-member skew as P.
Francis and D. Wagner ask (arXiv:2403.06595, 2024, §5).

The attacks
-----------
``loss``
    Yeom et al. (2018): members have lower loss. Score
    :math:`\\log p_y(x)`, i.e. minus the cross-entropy loss on the true label
    :math:`y`.
``confidence``
    the label-free variant: the model's top probability
    :math:`\\max_c p_c(x)`.
``shokri``
    Shokri et al. (2017): shadow models trained like the target on data of
    the same distribution; an *attack model* per class learns, from the
    shadow models' prediction vectors on records they did and did not train
    on, to tell "in" from "out"; it is then applied to the target model's
    prediction vectors.
``lira_offline`` / ``lira_online``
    Carlini et al. (2022), the likelihood-ratio attack. The logit-scaled
    confidence :math:`\\phi = \\log(p_y / (1 - p_y))` of a record is roughly
    Gaussian over models that did (IN) or did not (OUT) train on it. From
    reference models, estimate :math:`\\mathcal N(\\mu_{out}, \\sigma_{out}^2)`
    (offline) and also :math:`\\mathcal N(\\mu_{in}, \\sigma_{in}^2)`
    (online); score the target's :math:`\\phi` by the one-sided test
    :math:`(\\phi - \\mu_{out}) / \\sigma_{out}` (offline) or by the
    log-likelihood ratio
    :math:`\\log \\mathcal N(\\phi; \\mu_{in}, \\sigma_{in}^2) -
    \\log \\mathcal N(\\phi; \\mu_{out}, \\sigma_{out}^2)` (online).

Protocol (Carlini et al. 2022, §V)
----------------------------------
:func:`train_shadow_models` trains ``n_models`` models of the same kind,
each on its own random subset of a pool of records (a fraction
``member_fraction`` of the pool, the same size for every model), and keeps
every model's ``predict_proba`` on every pool record. :func:`run_attacks`
lets some of those models take turns as the *target*: the target's
training subset are the members, the rest of the pool the non-members, and
all *other* models are the attacker's shadow / reference models. So every
reference model is IN for some records and OUT for others, as in the
original experiments; the offline LiRA uses only the OUT ones.

References
----------
.. [1] S. Yeom, I. Giacomelli, M. Fredrikson, S. Jha, "Privacy risk in
   machine learning: analyzing the connection to overfitting", IEEE CSF 2018.
.. [2] R. Shokri, M. Stronati, C. Song, V. Shmatikov, "Membership inference
   attacks against machine learning models", IEEE S&P 2017.
.. [3] N. Carlini, S. Chien, M. Nasr, S. Song, A. Terzis, F. Tramèr,
   "Membership inference attacks from first principles", IEEE S&P 2022.
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
    """A table encoded for classification.

    Attributes
    ----------
    X : numpy.ndarray, shape (n, d), float32
        Features: numeric columns as they are, categorical columns as integer
        codes (:attr:`categorical` marks them).
    y : numpy.ndarray, shape (n,), int64
        Class index into :attr:`classes`.
    feature_names : list of str
    categorical : numpy.ndarray of bool, shape (d,)
    classes : list of str
        The label values, in class-index order.
    dataset : str
        Name of the source table.
    notes : str
        What was loaded and how it was cleaned, for the reader.
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
        """Rows whose feature vector also occurs in an earlier row.

        A non-member that duplicates a member is indistinguishable from it
        for any attack on the model's outputs.
        """
        return int(self.X.shape[0] - np.unique(self.X, axis=0).shape[0])


def encode_features(
    df: pd.DataFrame, label: str, *, drop: Sequence[str] = ()
) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray, list[str]]:
    """Encode a table for the models: categorical columns as integer codes.

    Parameters
    ----------
    df : pandas.DataFrame
        The table, without missing values.
    label : str
        The class column.
    drop : sequence of str
        Columns not used as features.

    Returns
    -------
    X, y, feature_names, categorical, classes
        See :class:`MembershipData`. Codes follow the sorted category values,
        so the same table always gives the same matrix.

    Examples
    --------
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
    """Load a real table for the membership experiments.

    ``"adult"``
        UCI Adult, train and test files together, rows with a missing value
        dropped (45,222 rows); label ``income`` (``>50K``); the census
        sampling weight ``fnlwgt`` is dropped: it describes the survey, not
        the person, and being nearly unique it would act as a record id.
    ``"census_income"``
        KDD Census-Income, train and test files together (299,285 rows);
        label ``income``; ``instance_weight`` dropped for the same reason.

    Parameters
    ----------
    dataset : {"adult", "census_income"}
    n_records : int, optional
        Use a uniform random sample of this many rows (default: all).
    seed : int or numpy.random.Generator
        Seed of that sample (:func:`anonlab.validation.check_random_state`).

    Returns
    -------
    MembershipData
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
    """Records in the pool when every model trains on ``n_members`` of them.

    ``round(n_members / member_fraction)``, checked against the size of the
    table (:data:`DATASET_ROWS`).

    Raises
    ------
    ValueError
        When the table is too small, saying which knob to turn.

    Examples
    --------
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

    Parameters
    ----------
    model : {"random_forest", "gradient_boosting", "logistic_regression"}
        ``random_forest``: 100 trees (``n_estimators``), grown until pure
        unless ``max_depth`` is set, so training records are memorised;
        ``gradient_boosting``: ``HistGradientBoostingClassifier`` with 200
        rounds and no early stopping; ``logistic_regression``: one-hot
        categorical and standardised numeric features, a low-capacity
        model.
    max_depth : int or None
        Tree depth, the capacity knob of the tree models (``None``:
        unlimited). Must be ``None`` for logistic regression.
    n_estimators : int
        Trees of the forest / boosting rounds.
    categorical : tuple of int
        Indices of categorical feature columns (integer codes), one-hot
        encoded for logistic regression.
    n_jobs : int
        Parallel jobs for the random forest (does not change the result).
        Boosting and logistic regression are fitted single-threaded.
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
    """Independent random training sets of equal size, one per model.

    Each row of the result marks ``round(member_fraction * n_records)``
    records, chosen uniformly without replacement, independently per model.

    Parameters
    ----------
    n_records, n_models : int
        Size of the pool and number of models.
    member_fraction : float
        Share of the pool in each training set, in (0, 1).
    seed : int or numpy.random.Generator
        Source of the draws (:func:`anonlab.validation.check_random_state`).

    Returns
    -------
    numpy.ndarray of bool, shape (n_models, n_records)

    Examples
    --------
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
    """Outputs of models trained on random subsets of a pool of records.

    Attributes
    ----------
    proba : numpy.ndarray, shape (n_models, n_records, n_classes), float32
        ``predict_proba`` of every model on every record.
    in_mask : numpy.ndarray of bool, shape (n_models, n_records)
        ``in_mask[j, i]``: model ``j`` was trained on record ``i``.
    y : numpy.ndarray, shape (n_records,)
        True class of each record.
    member_fraction : float
        Share of the pool each model trained on.
    spec : str
        Description of the model kind (:meth:`ModelSpec.key`).
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
        """Train and test accuracy of every model, and the gap between them.

        The generalisation gap is what the loss attack exploits (Yeom et al.).
        """
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
    """Train ``n_models`` models, each on its own random subset of the pool.

    Model ``j`` is trained on the records marked in row ``j`` of
    :func:`sample_training_sets` and queried (``predict_proba``) on every
    record of the pool. Any of them can serve as the target and the others
    as the attacker's shadow / reference models (Carlini et al. 2022, §V).

    Parameters
    ----------
    X, y : numpy.ndarray
        The pool: features (n, d) and class indices (n,).
    spec : ModelSpec or callable
        ``spec(seed)`` returns an unfitted classifier with ``predict_proba``.
    n_models : int
        At least 2.
    member_fraction : float
        Share of the pool in each training set, in (0, 1).
    seed : int or numpy.random.Generator
        Seeds the training sets and the models; the same arguments give the
        same outputs (:func:`anonlab.validation.check_random_state`).
    progress : callable, optional
        Called with one line per trained model (:mod:`anonlab.progress`).

    Returns
    -------
    ShadowModels
        Plain arrays, so the result pickles small (a caller may keep it).
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
    """The probability :math:`p_y(x)` the model gives each record's true class.

    Parameters
    ----------
    proba : array_like, shape (..., n, n_classes)
    y : array_like of int, shape (n,)

    Returns
    -------
    numpy.ndarray, shape (..., n)

    Examples
    --------
    >>> true_class_probability([[0.9, 0.1], [0.3, 0.7]], [0, 0]).tolist()
    [0.9, 0.3]
    """
    p, yy = _check_proba(np.asarray(proba), np.asarray(y))
    return np.take_along_axis(p, np.broadcast_to(yy[:, None], p.shape[:-1] + (1,)), axis=-1)[..., 0]


def logit_confidence(proba: npt.ArrayLike, y: npt.ArrayLike, eps: float = 1e-4) -> np.ndarray:
    r"""Logit-scaled confidence :math:`\phi = \log\frac{p_y}{1 - p_y}` (Carlini et al. 2022, §IV-C).

    The scaling makes the confidence approximately Gaussian across models,
    which LiRA assumes. :math:`p_y` is clipped to ``[eps, 1 - eps]`` because
    tree models output exact 0s and 1s.

    Examples
    --------
    >>> logit_confidence([[0.5, 0.5], [0.0, 1.0]], [0, 1]).round(2).tolist()
    [0.0, 9.21]
    """
    check_number("eps", eps, low=0, high=0.5, low_inclusive=False, high_inclusive=False)
    p = np.clip(true_class_probability(proba, y), eps, 1.0 - eps)
    return np.log(p) - np.log1p(-p)


def loss_attack(proba: npt.ArrayLike, y: npt.ArrayLike, eps: float = 1e-12) -> np.ndarray:
    r"""Yeom et al.'s loss-threshold attack: score :math:`\log p_y(x) = -\ell(x, y)`.

    A record is flagged as a member when its cross-entropy loss is below a
    threshold; Yeom et al. use the mean training loss, here every threshold
    is kept (the ROC curve).

    Examples
    --------
    >>> loss_attack([[0.9, 0.1], [0.3, 0.7]], [0, 0]).round(3).tolist()
    [-0.105, -1.204]
    """
    return np.log(np.clip(true_class_probability(proba, y), eps, 1.0))


def confidence_attack(proba: npt.ArrayLike) -> np.ndarray:
    """Confidence-threshold attack without the label: score :math:`\\max_c p_c(x)`.

    Examples
    --------
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
    """Shokri et al.'s shadow-model attack: one attack classifier per class.

    For each class ``c``, an attack model is trained on the shadow models'
    prediction vectors for records of class ``c``, labelled IN or OUT by
    whether that shadow model trained on the record; it is then applied to
    the target model's prediction vectors for records of class ``c``. The
    score is the attack model's probability of IN. The attack model is a
    gradient-boosted tree ensemble (Shokri et al. used a small neural
    network; any classifier fits the method).

    Parameters
    ----------
    shadow_proba : numpy.ndarray, shape (n_shadow, n, n_classes)
    shadow_in : numpy.ndarray of bool, shape (n_shadow, n)
    y : array_like of int, shape (n,)
    target_proba : numpy.ndarray, shape (n, n_classes)
    seed : int or numpy.random.Generator
        Seeds the subsample of training rows and the attack models
        (:func:`anonlab.validation.check_random_state`).
    max_train_rows : int
        At most this many (shadow model, record) pairs train each attack
        model, drawn at random, to bound the time.

    Returns
    -------
    numpy.ndarray, shape (n,)
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
    r"""Offline LiRA (Carlini et al. 2022, §IV-D): test against the OUT distribution only.

    For each record, fit :math:`\mathcal N(\mu_{out}, \sigma_{out}^2)` to the
    logit-scaled confidences of the reference models that did *not* train
    on it, and score the target's confidence by the one-sided statistic

    .. math:: z = (\phi_{target} - \mu_{out}) / \sigma_{out}

    (Carlini et al. report :math:`\Pr[Z < \phi]`, a monotone function of
    :math:`z`; :math:`z` keeps its resolution far in the tail, where that
    probability rounds to 1).

    Parameters
    ----------
    shadow_phi : numpy.ndarray, shape (n_models, n)
        :func:`logit_confidence` of every reference model on every record.
    shadow_in : numpy.ndarray of bool, shape (n_models, n)
        Which reference model trained on which record; only OUT entries are used.
    target_phi : numpy.ndarray, shape (n,)
        The target model's logit-scaled confidences.
    variance : {"global", "per_example"}
        One pooled :math:`\sigma_{out}` for all records (Carlini et al.'s
        choice with few reference models) or one per record (needs >= 2 OUT
        models per record; falls back to the pooled value).
    min_std : float
        Floor on :math:`\sigma` (identical confidences would give 0).

    Returns
    -------
    numpy.ndarray, shape (n,)
        ``nan``-free scores; a record with no OUT model scores 0.
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
    r"""Online LiRA (Carlini et al. 2022, §IV, Algorithm 1): a likelihood-ratio test.

    .. math::

        \Lambda = \log \mathcal N(\phi; \mu_{in}, \sigma_{in}^2)
                - \log \mathcal N(\phi; \mu_{out}, \sigma_{out}^2)

    with the means (and, for ``variance="per_example"``, the standard
    deviations) estimated per record from the reference models that did
    (IN) and did not (OUT) train on it. A record with no IN (OUT) model
    gets :math:`\mu_{in} = \mu_{out} + \bar\delta` (:math:`\mu_{out} =
    \mu_{in} - \bar\delta`), :math:`\bar\delta` the mean IN-OUT shift over
    records that have both.

    Parameters and returns as :func:`lira_offline`.
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
    """Offline and online LiRA together, fitting the OUT Gaussians once for both.

    Returns ``(lira_offline(...), lira_online(...))``, identical to calling
    the two functions, at the cost of three Gaussian fits instead of two
    plus one.

    Examples
    --------
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

    For target ``t``: the members are the records ``t`` trained on, the
    non-members the rest of the pool; the shadow (Shokri) and reference
    (LiRA) models are all models except ``t``. The threshold attacks use
    the target alone.

    Parameters
    ----------
    models : ShadowModels
        From :func:`train_shadow_models`.
    n_targets : int
        How many models take the target's role, in [1, n_models]; the rows
        of all targets are pooled, as in Carlini et al.'s evaluation.
    attacks : sequence of str
        A subset of :data:`ATTACKS`.
    seed : int or numpy.random.Generator
        Seeds the Shokri attack models: target ``t`` uses ``seed + t`` for an
        integer seed; a generator is shared by the targets in turn.
    variance : {"global", "per_example"}
        LiRA's variance estimate.
    eps : float
        Probability clipping of :func:`logit_confidence`.
    progress : callable, optional
        Called with one line per attacked target model (:mod:`anonlab.progress`).

    Returns
    -------
    pandas.DataFrame
        One row per (target model, record): ``target_model``, ``record``,
        ``is_member``, and one score column per attack (higher = member).
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
                cols[a] = shokri_attack(models.proba[refs], models.in_mask[refs], models.y, target_p,
                                        seed=seed if isinstance(seed, np.random.Generator) else seed + t)
            elif a == "lira_offline":
                cols[a] = lira_offline(phi[refs], models.in_mask[refs], phi[t], variance=variance)
            else:
                cols[a] = lira_online(phi[refs], models.in_mask[refs], phi[t], variance=variance)
        frames.append(pd.DataFrame(cols))
        report(progress, f"attacked target model {t + 1}/{n_targets}")
    return pd.concat(frames, ignore_index=True)


def attack_rocs(scores: pd.DataFrame, attacks: Sequence[str] | None = None) -> dict[str, RocCurve]:
    """The ROC curve of each attack column of :func:`run_attacks`' result.

    Examples
    --------
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

    Every target gets a guess (``predicted`` is true everywhere): *member*
    where its score is at least ``threshold``, *non-member* elsewhere, with
    ``positive=True``, so :func:`anonlab.measures.score` counts only the
    *member* guesses: precision :math:`TP/(TP+FP)` ([FW24] Eq 10), recall
    :math:`TP/M` (= TPR, Eq 9), coverage the share of targets flagged. The
    scores are kept as ``confidence``: ``result.at_threshold(t)`` for
    :math:`t \ge` ``threshold`` flags only the more confident guesses, trading
    coverage for precision.

    Parameters
    ----------
    attack : str
        Name in tables.
    is_member : array_like of bool
        The truth, one entry per target.
    scores : array_like of float
        The attack's scores (higher = member).
    threshold : float
        Flag as member when ``score >= threshold`` (``inf``: flag no one).
    targets : array_like, optional
        Target identifiers (default ``0 .. n-1``).
    resources : dict, optional
        What the attack used (e.g. ``{"reference_models": 16}``).

    Examples
    --------
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
    """Each attack of :func:`run_attacks` at its threshold for a low FPR, as protocol results.

    The threshold of attack ``a`` is the one of its pooled ROC curve with
    FPR at most ``target_fpr`` (:func:`anonlab.measures.base_rates.threshold_at_fpr`,
    the operating point of Carlini et al.'s "TPR at low FPR"); the result is
    :func:`membership_result` at that threshold, one target per (target
    model, record) row, identified as ``target_model * n_records + record``.

    Parameters
    ----------
    scores : pandas.DataFrame
        From :func:`run_attacks`.
    target_fpr : float
        FPR budget in (0, 1].
    attacks : sequence of str, optional
        Score columns to use (default: every attack column present).
    labels : dict, optional
        Display names of the attacks (the results' ``attack`` field).
    reference_models : int, optional
        Shadow / reference models each target was attacked with, kept as a
        resource of the attacks that use them.

    Returns
    -------
    dict
        Attack column -> :class:`~anonlab.measures.AttackResult`.

    Examples
    --------
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

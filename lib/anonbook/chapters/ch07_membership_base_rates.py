"""Chapter 7, membership inference and base rates: parameters and claim measurements.

The chapter checks the quantitative statements of P. Francis and D. Wagner,
"Towards more accurate and useful data anonymity vulnerability measures",
arXiv:2403.06595 (2024), §5 (cited *[FW24]*), against the paper's own
Fig. 10 and Eqs 7-11, and runs real membership attacks
(:mod:`anonlab.attacks.membership`) reported the way §5 recommends; its
figures are in :mod:`anonbook.figures.membership`. The six
``fw.s1.base_rate.*`` claims belong to chapter 5; this chapter only shows
the §1 computation.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anonlab import claims
from anonlab.attacks import membership
from anonlab.attacks.membership import LABELS
from anonlab.claims import Measurement
from anonlab.claims.rules import accepted_interval
from anonlab.measures import base_rates
from anonlab.measures.rates import parse_skew
from anonlab.validation import ParameterError, ParameterSpec, Param, check_random_state
from anonbook.memory import MiB, MemoryEstimate
from anonbook.chapters import Chapter, Exercise
from anonbook.chapters.kit import ChapterRun
from anonbook.chapters.sentences import Sentence, compare, listing

NAME = "07_membership_base_rates"

# ---------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------

MAX_SKEW_ITEMS = 12
MAX_DEPTH = 64


def check_skews(name: str, value: Any, *, max_skew: float | None = None) -> np.ndarray:
    """Check a list of member:non-member skews; return them as non-members per member.

    Each item is a number (non-members per member, ``30``) or the paper's
    ``"M:N"`` string (``"1:30"``, parsed by
    :func:`anonlab.measures.rates.parse_skew`); each must be finite and
    > 0 (a skew of 0 has no non-members), and at most ``max_skew`` when given.

    >>> check_skews("skews", ["1:30", 240]).tolist()
    [30.0, 240.0]
    >>> check_skews("skews", ["1:0"])
    Traceback (most recent call last):
    ...
    anonlab.validation.ParameterError: parameter 'skews': skew '1:0' must be > 0 (non-members per member); a skew needs non-members
    """
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not value:
        raise ParameterError(
            f"parameter {name!r} must be a non-empty list like ['1:30', 240], got {value!r}")
    if len(value) > MAX_SKEW_ITEMS:
        raise ParameterError(f"parameter {name!r} takes at most {MAX_SKEW_ITEMS} skews, got {len(value)}")
    out = []
    for v in value:
        if isinstance(v, str):
            try:
                k = parse_skew(v)
            except ValueError as exc:
                raise ParameterError(f"parameter {name!r}: {exc}") from None
        elif isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float)):
            raise ParameterError(
                f"parameter {name!r}: a skew is a number or a 'members:non_members' string, got {v!r}")
        else:
            k = float(v)
        if not math.isfinite(k) or k <= 0:
            raise ParameterError(
                f"parameter {name!r}: skew {v!r} must be > 0 (non-members per member); a skew needs non-members")
        if max_skew is not None and k > max_skew:
            raise ParameterError(
                f"parameter {name!r}: skew {v!r} needs more than the {max_skew:,.0f} non-member observations "
                "of this run for one member; lower it or raise n_target_models / n_members")
        out.append(k)
    return np.asarray(out, dtype=float)


def check_depths(name: str, value: Any) -> list[int | None]:
    """Check a list of tree depths (integers in [1, 64] or ``None``); it may be empty.

    >>> check_depths("sweep_max_depths", [4, None])
    [4, None]
    """
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ParameterError(f"parameter {name!r} must be a list of depths (integers or None), got {value!r}")
    if len(value) > 8:
        raise ParameterError(f"parameter {name!r} takes at most 8 depths, got {len(value)}")
    for i, d in enumerate(value):
        if d is not None and (isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= MAX_DEPTH):
            raise ParameterError(f"parameter '{name}[{i}]' must be None or an integer in [1, {MAX_DEPTH}], got {d!r}")
    return list(value)


def non_member_observations(values: Mapping[str, Any]) -> int:
    """Non-members the live attacks observe: ``n_target_models x (pool - n_members)``."""
    pool = membership.pool_size(values["dataset"], values["n_members"], values["member_fraction"])
    return int(values["n_target_models"]) * (pool - int(values["n_members"]))


def _check_combinations(values: Mapping[str, Any]) -> None:
    if values["max_depth"] is not None and values["model"] == "logistic_regression":
        raise ParameterError("parameter 'max_depth' must be None for model 'logistic_regression' (it has no depth)")
    if values["n_target_models"] > values["n_shadow_models"] + 1:
        raise ParameterError(
            f"parameter 'n_target_models' must be <= n_shadow_models + 1 = {values['n_shadow_models'] + 1}, "
            f"got {values['n_target_models']}")
    try:
        n_non = non_member_observations(values)
    except ValueError as exc:
        raise ParameterError(f"parameter 'n_members': {exc}") from None
    check_skews("skews", values["skews"], max_skew=n_non)
    check_skews("recommended_skews", values["recommended_skews"])
    check_depths("sweep_max_depths", values["sweep_max_depths"])


#: The chapter's kernel with its imports and figures, and the sklearn/joblib machinery of a fit, bytes
#: (measured: ``tests/benchmarks/bench_memory_ch07.py``, like every coefficient below).
KERNEL_BYTES = 210 * MiB
FIT_OVERHEAD_BYTES = 55 * MiB
#: Reading a table: (fixed, per record of the pool) bytes while it is read whole and sampled (transient) and
#: once the pool is encoded (resident). Census-Income is read whole (299,285 rows) before the sample is drawn.
LOAD_BYTES = {"adult": ((31 * MiB, 0), (25 * MiB, 0)),
              "census_income": ((360 * MiB, 950), (200 * MiB, 500))}
#: Per (model, record) of the pool: the float32 probabilities, the training masks, the float64 copies and
#: logit confidences the attacks take of them (Shokri's feature arrays, LiRA's masked fits).
BYTES_PER_MODEL_RECORD = 70
#: Per (target model, record): the pooled score table, its concatenation and the ROC curves' sorts.
BYTES_PER_SCORE_ROW = 75
#: Nodes of a random forest's tree grown until pure, per training record, and bytes per node (sklearn).
TREE_NODES_PER_MEMBER = 0.56
BYTES_PER_TREE_NODE = 80


def forest_bytes(model: str, n_members: int, max_depth: int | None) -> float:
    """The fitted model held while it predicts on the pool: a random forest grows with its training set
    (at most ``2 ** (max_depth + 1)`` nodes a tree); boosting and logistic regression stay small."""
    if model != "random_forest":
        return 0.0
    n_trees = membership.ModelSpec.__dataclass_fields__["n_estimators"].default
    nodes = TREE_NODES_PER_MEMBER * n_members
    if max_depth is not None:
        nodes = min(nodes, 2.0 ** (max_depth + 1))
    return n_trees * nodes * BYTES_PER_TREE_NODE


def peak_memory(values: Mapping[str, Any]) -> MemoryEstimate:
    """Peak memory of a run, from the parameters that drive it.

    The kernel plus the largest of three phases: reading the table, fitting
    one model at a time (:func:`forest_bytes`), and attacking, which holds
    every model's output on every record of the pool
    (``n_shadow_models + 1`` x pool) and the pooled scores of the
    ``n_target_models`` targets (``n_target_models`` x pool). The
    coefficients are measured (``tests/benchmarks/bench_memory_ch07.py``);
    the runner records the estimate beside the measured peak.

    >>> small = peak_memory({"dataset": "adult", "n_members": 1000, "member_fraction": 0.5, "model": "random_forest",
    ...                      "max_depth": None, "n_shadow_models": 4, "n_target_models": 1})
    >>> huge = peak_memory({"dataset": "census_income", "n_members": 149000, "member_fraction": 0.498,
    ...                     "model": "random_forest", "max_depth": None, "n_shadow_models": 256,
    ...                     "n_target_models": 257})
    >>> str(small), str(huge), sorted(huge.drivers)
    ('294 MB', '11.0 GB', ['dataset', 'member_fraction', 'n_members', 'n_shadow_models', 'n_target_models'])
    """
    pool = membership.pool_size(values["dataset"], values["n_members"], values["member_fraction"])
    (load_fixed, load_per), (kept_fixed, kept_per) = LOAD_BYTES[values["dataset"]]
    resident = kept_fixed + kept_per * pool + FIT_OVERHEAD_BYTES
    phases = {
        "load": load_fixed + load_per * pool,
        "fit": resident + forest_bytes(values["model"], values["n_members"], values["max_depth"]),
        "attack": resident + (BYTES_PER_MODEL_RECORD * (values["n_shadow_models"] + 1)
                              + BYTES_PER_SCORE_ROW * values["n_target_models"]) * pool,
    }
    drivers = {k: values[k] for k in ("dataset", "n_members", "member_fraction", "n_shadow_models",
                                      "n_target_models")}
    return MemoryEstimate(KERNEL_BYTES + max(phases.values()), drivers)

CHAPTER = Chapter(
    name=NAME,
    title="Membership inference and base rates",
    parameters=ParameterSpec([
        Param("dataset", "choice", "adult", 'table for the live attacks: "adult" or "census_income"',
              choices=membership.DATASETS),
        Param("model", "choice", "random_forest",
              'target and shadow models: "random_forest", "gradient_boosting", "logistic_regression"',
              choices=membership.MODELS),
        Param("max_depth", "int", None, "tree depth (capacity knob): None for unlimited (memorises) or an integer of "
              "at least 1; None for logistic_regression", low=1, high=MAX_DEPTH, nullable=True),
        Param("n_members", "int", 10000,
              "training-set size of the target and of every shadow model, in records, at least 100",
              low=100, high=membership.DATASET_ROWS["census_income"] - 1),
        Param("member_fraction", "float", 0.5,
              "share of the record pool each model trains on (members / pool), in (0, 1)",
              low=0, high=1, low_inclusive=False, high_inclusive=False),
        Param("n_shadow_models", "int", 16,
              "shadow / reference models per target (Shokri, LiRA), integer in [2, 256]", low=2, high=256),
        Param("n_target_models", "int", 4,
              "models attacked in turn, results pooled; integer in [1, n_shadow_models + 1]", low=1, high=257),
        Param("skews", "any", ["1:1", "1:30", "1:240"],
              'member:non-member skews of Fig. 9 (right): "M:N" strings or numbers (non-members per member), > 0'),
        Param("recommended_skews", "any", ["1:2", "1:5", "1:10", "1:50"],
              "the skews the paper recommends reporting, same format"),
        Param("low_fprs", "float_list", [0.001, 0.0001], "FPRs at which TPR is reported (Carlini et al.), each in "
              "(0, 1]; the first sets the recorded operating point", low=0, high=1, low_inclusive=False, max_len=10),
        Param("precision_bars", "float_list", [0.5, 0.8, 0.95],
              "precisions for the high-precision / low-recall tables, each in (0, 1]", low=0, high=1,
              low_inclusive=False, max_len=10),
        Param("sweep_max_depths", "any", [4, 8, 16, None],
              "capacity sweep (loss attack only): tree depths (integers in [1, 64] or None); an empty list skips it"),
        Param("example_population", "float", 2000, "§1 worked example: people tested, positive", low=0, high=1e12,
              low_inclusive=False),
        Param("example_fpr", "float", 0.05, "§1 worked example: false positive rate of the attack, in [0, 1]",
              low=0, high=1),
        Param("example_fnr", "float", 0.0, "§1 worked example: false negative rate of the attack, in [0, 1]",
              low=0, high=1),
        Param("example_member_shares", "float_list", [0.5, 0.01],
              "§1 worked example: shares of members among those tested, each in [0, 1]", low=0, high=1, max_len=100),
        Param("seed", "int", 0, "seeds the data sample, the training sets, the models and the attack models; "
              "integer of at least 0", low=0, high=2**32 - 1),
    ], checks=[_check_combinations]),
    quick={"n_members": 1000, "n_shadow_models": 4, "n_target_models": 1, "sweep_max_depths": [4, None],
           "use_cache": False},
    data=("adult-train", "adult-test", "census-income-train", "census-income-test"),  # dataset picks one pair
    memory=peak_memory,
    goals=(
        "Turn an attack's ROC point into precision at any member:non-member skew (Eq 11), and see why "
        "balanced evaluations overstate the risk.",
        "Check a paper's numbers against its own table, reading every ambiguous word each way it can be read.",
        "Run real membership inference attacks (loss, shadow models, LiRA) and report them at a low FPR and "
        "realistic skews, with intervals.",
    ),
    assumes="what a classifier's training set, accuracy and ROC curve (TPR against FPR) are, and basic "
            "NumPy and pandas.",
    exercises=(
        Exercise(
            "texas_25m",
            {"recommended_skews": ["1:2", "1:5", "1:10", "1:50", "1:2500"]},
            {"rec_max_skew_md": "largest recommended skew",
             "rec_carlini_lowest_fpr_precision": "Carlini et al.'s precision at Fig. 10's lowest FPR, that skew",
             "rec_shokri_lowest_fpr_precision": "Shokri et al.'s precision at Fig. 10's lowest FPR, that skew"},
        ),
        Exercise(
            "larger_training_set",
            {"n_members": 3000},
            {"gap": "generalisation gap (train - test accuracy)", "test_acc": "test accuracy",
             "auc_loss": "AUC, loss attack", "auc_lira_online": "AUC, LiRA online"},
        ),
        Exercise(
            "logistic_regression",
            {"model": "logistic_regression"},
            {"gap": "generalisation gap", "test_acc": "test accuracy", "auc_loss": "AUC, loss attack",
             "auc_shokri": "AUC, shadow models (Shokri)", "auc_lira_online": "AUC, LiRA online"},
        ),
        Exercise(
            "member_fraction",
            {"member_fraction": 0.25},
            {"n_pool": "records in the pool", "member_share": "baseline precision (share of members observed)",
             "auc_lira_online": "AUC, LiRA online", "auc_lira_offline": "AUC, LiRA offline"},
        ),
        Exercise(
            "half_precision",
            {"example_member_shares": [0.1, 0.05, 0.04]},
            {"example_precisions": "precision at each share", "example_share_half": "share at which precision is 50 %"},
        ),
    ),
)

#: The ledger's reported values the prose quotes, ``{glue key: claim id}`` (``run.glue_paper``).
PAPER = {"paper_s1_balanced": "fw.s1.base_rate.balanced.precision",
         "paper_s1_skewed": "fw.s1.base_rate.skewed.precision", "paper_shokri_precision": "fw.s5.shokri.precision_40",
         "paper_skew_hospitals": "fw.s5.skew_hospitals", "paper_skew_texas": "fw.s5.skew_texas"}

#: The verdicts the prose states, ``{glue key: claim id}`` (``run.glue_verdicts``, in the rules' words).
VERDICT_GLUE = {"eq11_verdict": "fw.s5.eq11.precision_from_roc", "train_fraction_verdict": "fw.s5.shokri.train_fraction",
                "skew_hospitals_verdict": "fw.s5.skew_hospitals", "skew_texas_verdict": "fw.s5.skew_texas",
                "balanced_verdict": "fw.s5.balanced_impossible", "effect_verdict": "fw.s5.skew_lowers_precision",
                "shokri_verdict": "fw.s5.shokri.precision_40", "c95_verdict": "fw.s5.carlini.precision_95_targets",
                "c80_verdict": "fw.s5.carlini.precision_80_targets",
                "full_recall_verdict": "fw.s5.no_better_than_all_member", "inputs_verdict": "fw.s5.texas.n_records",
                "recommended_verdict": "fw.s5.recommended_skew.1_2"}


def plain(values: Mapping[str, Any]) -> dict[str, Any]:
    """Numpy scalars as plain Python numbers (a glued numpy scalar reads ``np.float64(...)`` and breaks ``-W`` builds).

    >>> plain({"x": np.float64(0.5), "s": "1:30"})
    {'x': 0.5, 's': '1:30'}
    """
    return {k: v.item() if isinstance(v, np.generic) else v for k, v in values.items()}


@dataclass
class Findings:
    """What a section computes: claim measurements, values the prose quotes (plain numbers), tables to show."""

    measurements: dict[str, Measurement] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)
    table: pd.DataFrame | None = None
    more: dict[str, pd.DataFrame] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.values = plain(self.values)


# ---------------------------------------------------------------------------
# The paper's inputs: Fig. 10
# ---------------------------------------------------------------------------


def fig10_points(ledger: Sequence[claims.Claim] | None = None) -> pd.DataFrame:
    """Fig. 10 of [FW24] from the ledger: one row per (attack, FPR) point, ``attack, fpr, tpr, id``."""
    rows = [{"attack": c.id.split(".")[2], "fpr": c.params["fpr"], "tpr": c.reported, "id": c.id}
            for c in (ledger if ledger is not None else claims.load_ledger()) if c.id.startswith("fw.fig10.")]
    return pd.DataFrame(rows).sort_values(["attack", "fpr"])


def curves(points: pd.DataFrame) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{attack: (fpr, tpr)}`` from :func:`fig10_points` (or a reassigned copy)."""
    return {a: (g["fpr"].to_numpy(), g["tpr"].to_numpy()) for a, g in points.groupby("attack")}


def measure_inputs(ledger: Sequence[claims.Claim] | None = None) -> dict[str, Measurement]:
    """Fig. 10's points and the Texas data's size: inputs here, recorded as not measured (data unavailable)."""
    note = "Texas hospital data of Shokri et al. not available; used as an input"
    return {c.id: Measurement(None, note=note)
            for c in (ledger if ledger is not None else claims.load_ledger())
            if c.id.startswith("fw.fig10.") or c.id == "fw.s5.texas.n_records"}


def fig9_skews() -> np.ndarray:
    """The skews of Fig. 9 (right), from the ledger."""
    return base_rates.as_skews(claims.claim("fw.s5.skew_lowers_precision").params["skews"])


# ---------------------------------------------------------------------------
# §1: the worked example (chapter 5 records it; shown here)
# ---------------------------------------------------------------------------


def s1_example() -> Findings:
    """The §1 example recomputed from the ledger's settings (Eq 2) beside the paper's values; no claim recorded."""
    rows = []
    for key in ("balanced", "skewed"):
        p = claims.claim(f"fw.s1.base_rate.{key}.precision").params
        ex = base_rates.worked_example(p["population"], p["fpr"], p["fnr"], p["member_share"]).iloc[0]
        for what in ("tp", "fp", "precision"):
            rows.append({"members": f"{p['member_share']:.0%}", "quantity": what,
                         "paper": claims.claim(f"fw.s1.base_rate.{key}.{what}").reported, "recomputed": ex[what]})
    table = pd.DataFrame(rows)
    p_bal, p_skw = (claims.claim(f"fw.s1.base_rate.{k}.precision").params for k in ("balanced", "skewed"))
    values = {"s1_fpr": p_bal["fpr"], "s1_population": p_bal["population"],
              "s1_share_balanced": p_bal["member_share"], "s1_share_skewed": p_skw["member_share"],
              "s1_skewed_exact": table.loc[table.quantity.eq("precision"), "recomputed"].iloc[1]}
    return Findings(values=values, table=table)


def example_values(population: float, fpr: float, fnr: float, member_shares: Sequence[float]) -> dict[str, Any]:
    r"""The §1 example at this run's settings: the precisions (as text) and the share where precision is 1/2.

    Precision :math:`(1 - FNR)s / ((1 - FNR)s + FPR(1 - s))` equals 1/2 at
    :math:`s = FPR / (1 - FNR + FPR)` (Eq 2 solved for the member share).

    >>> v = example_values(2000, 0.05, 0.0, [0.5, 0.01])
    >>> v["example_precisions"], round(v["example_share_half"], 4)
    ('0.952, 0.168', 0.0476)
    """
    ex = base_rates.worked_example(population, fpr, fnr, member_shares)
    denominator = 1.0 - fnr + fpr
    return {"example_precisions": ", ".join(f"{p:.3f}" for p in ex["precision"]),
            "example_share_half": float(fpr / denominator) if denominator > 0 else math.nan}


# ---------------------------------------------------------------------------
# Fig. 9 (right) and the recommended skews
# ---------------------------------------------------------------------------


def recommended_table(cv: Mapping[str, tuple[np.ndarray, np.ndarray]], skews: np.ndarray) -> pd.DataFrame:
    """Fig. 10 at the recommended skews: precision and PI (Eq 6) per point, one column per skew."""
    tab = pd.concat({membership.PAPERS.get(a, a): base_rates.precision_recall_at_skews(*cv[a], skews) for a in cv},
                    names=["attack", None]).reset_index(level=0)
    show = tab.pivot_table(index=["attack", "fpr", "recall"], columns="skew_label", values=["precision", "pi"],
                           sort=False)
    show.columns = [f"{v} {k}" for v, k in show.columns]
    return show[[f"{v} {base_rates.skew_label(k)}" for v in ("precision", "pi") for k in skews]]


def recommended_values(cv: Mapping[str, tuple[np.ndarray, np.ndarray]], skews: np.ndarray) -> dict[str, Any]:
    """Each Fig. 10 attack's precision at its lowest FPR point at the largest recommended skew (Eq 11).

    >>> cv = {"carlini": (np.array([1e-5, 1.0]), np.array([0.1, 1.0])),
    ...       "shokri": (np.array([1e-5, 1.0]), np.array([1e-5, 1.0]))}
    >>> v = recommended_values(cv, np.array([2.0, 2500.0]))
    >>> round(v["rec_carlini_lowest_fpr_precision"], 3), round(v["rec_shokri_lowest_fpr_precision"], 4)
    (0.8, 0.0004)
    """
    k = float(np.max(skews))
    values: dict[str, Any] = {"rec_max_skew_md": base_rates.skew_label(k), "rec_max_skew": k}
    for a, (f, t) in cv.items():
        i = int(np.argmin(np.where(np.asarray(f) > 0, f, np.inf)))
        values[f"rec_{a}_lowest_fpr"] = float(f[i])
        values[f"rec_{a}_lowest_fpr_precision"] = float(
            base_rates.precision_recall_at_skews([f[i]], [t[i]], k)["precision"].iloc[0])
    return values


#: The ledger's claims on the skews §5 recommends reporting ([FW24] §5, last paragraph), one per skew.
RECOMMENDED_IDS = ("fw.s5.recommended_skew.1_2", "fw.s5.recommended_skew.1_5", "fw.s5.recommended_skew.1_10",
                   "fw.s5.recommended_skew.1_50")


def measure_recommended(cv: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> dict[str, Measurement]:
    """§5's recommended skews (1:2, 1:5, 1:10, 1:50), each on Fig. 10: the attacks' ranking, and what a stakeholder reads.

    Each claim's measurement is :func:`~anonlab.measures.base_rates.ranking_kept` at its skew (the
    ledger marks it an illustration: it cannot fail); its note gives each attack's precision at Fig. 10's
    lowest FPR and at recall 0.1 at that skew.
    """
    out = {}
    for cid in RECOMMENDED_IDS:
        k = float(base_rates.as_skews(claims.claim(cid).params["skew"])[0])
        parts = []
        for a, (f, t) in cv.items():
            i = int(np.argmin(np.where(f > 0, f, np.inf)))
            p_low = base_rates.precision_recall_at_skews(f[i:i + 1], t[i:i + 1], k)["precision"].iloc[0]
            p_01 = base_rates.precision_at_recall(f, t, k, 0.1).precision
            parts.append(f"{membership.PAPERS.get(a, a)}: {p_low:.3f} at FPR {f[i]:g}, {p_01:.3f} at recall 0.1")
        out[cid] = Measurement(base_rates.ranking_kept(cv, k),
                               note=f"{base_rates.skew_label(k)}, log-log, Eq 11; " + "; ".join(parts))
    return out


# ---------------------------------------------------------------------------
# §5: the skews
# ---------------------------------------------------------------------------


#: The two readings of a skew the paper leaves open (the ledger's choice "what the skew counts").
SKEW_READINGS = ("non-members per member (N/M)", "people per member")


def measure_skews() -> Findings:
    r"""The scenarios' skews from the ledger's inputs ([FW24] §5), as non-members per member.

    Hospitals: share of members :math:`s = \text{visit rate} \times \text{training share}`,
    skew :math:`(1 - s)/s`; Texas: :math:`(\\text{population} - M)/M`;
    the smallest possible skew, an attacker who observes only the data set:
    :math:`(67K - 10K)/10K`.
    """
    hp = claims.claim("fw.s5.skew_hospitals").params
    share_h = hp["hospital_visit_rate_4y"] * hp["train_fraction"]
    skew_h = (1 - share_h) / share_h
    tp_ = claims.claim("fw.s5.shokri.train_fraction").params
    train_frac = tp_["train_records"] / tp_["dataset_records"]
    skew_h_exact = (1 - hp["hospital_visit_rate_4y"] * train_frac) / (hp["hospital_visit_rate_4y"] * train_frac)
    tx = claims.claim("fw.s5.skew_texas").params
    skew_t = (tx["population"] - tx["members"]) / tx["members"]
    min_skew = (tp_["dataset_records"] - tp_["train_records"]) / tp_["train_records"]
    m = {
        "fw.s5.shokri.train_fraction": Measurement(
            train_frac, note=f"{tp_['train_records']:,} / {tp_['dataset_records']:,} = 1/{1 / train_frac:.1f}"),
        "fw.s5.skew_hospitals": Measurement(
            skew_h, alternatives={SKEW_READINGS[0]: skew_h, SKEW_READINGS[1]: 1 / share_h}, note=f"non-members per member from the ledger's inputs ({hp['hospital_visit_rate_4y']} x "
                         f"{hp['train_fraction']}); the paper's 30 is people per member, {1 / share_h:.2f}; "
                         f"with 10K/67K instead of 1/6 it is 1:{skew_h_exact:.1f}"),
        "fw.s5.skew_texas": Measurement(
            skew_t, alternatives={SKEW_READINGS[0]: skew_t, SKEW_READINGS[1]: tx["population"] / tx["members"]},
            note="non-members per member (2.4M - 10K) / 10K; people per member 2.4M / 10K"),
        "fw.s5.balanced_impossible": Measurement(
            bool(min_skew > 1), note=f"even an attacker who only observes the 67K records faces 1:{min_skew:.1f}"),
    }
    values = {"train_fraction": train_frac, "skew_h": skew_h, "skew_h_exact": skew_h_exact,
              "skew_t": skew_t, "min_skew": min_skew, "visit_rate": hp["hospital_visit_rate_4y"],
              "paper_train_share": hp["train_fraction"], "one_in_members_h": 1 / share_h,
              "texas_members": tx["members"], "texas_population": tx["population"],
              "texas_people_per_member": tx["population"] / tx["members"],
              "train_one_in": 1 / train_frac, "train_records": tp_["train_records"],
              "skew_one_share": 1 / skew_h,
              "dataset_records": tp_["dataset_records"]}
    table = pd.DataFrame({
        "quantity": ["training share 10K/67K", "hospital skew (1/5 x 1/6)", "hospital skew (1/5 x 10K/67K)",
                     "Texas skew", "smallest possible skew"],
        "value": [train_frac, skew_h, skew_h_exact, skew_t, min_skew]})
    return Findings(m, values, table)


def measure_skew_effect(cv: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> Findings:
    """§5's "skew has a marked effect": does precision fall from skew to skew at every Fig. 10 point (Eq 11)?

    With the median factor between the first and the last skew.
    """
    skews = fig9_skews()
    falls, ratios = True, []
    for f, t in cv.values():
        pr = base_rates.precision_recall_at_skews(f, t, skews)
        p = pr["precision"].to_numpy().reshape(len(skews), -1)[:, f > 0]
        falls &= bool(np.all(np.diff(p, axis=0) < 0))
        with np.errstate(invalid="ignore", divide="ignore"):
            ratios.append(p[0] / p[-1])
    ratio = float(np.median(np.concatenate(ratios)))
    first, last = base_rates.skew_label(skews[0]), base_rates.skew_label(skews[-1])
    m = {"fw.s5.skew_lowers_precision": Measurement(
        falls, note=f"precision falls at every Fig. 10 point; median factor {ratio:.1f} from {first} to {last}")}
    values = {"skew_ratio": ratio, "skews_fall": falls,
              "fig9_skews_md": ", ".join(base_rates.skew_label(k) for k in skews)}
    return Findings(m, values)


# ---------------------------------------------------------------------------
# §5: Shokri et al.'s precision; Carlini et al.'s reach
# ---------------------------------------------------------------------------


#: The meanings of "targets" in §5's statements, as the ledger's alternatives label them (:func:`targets_readings`).
EVERYONE, MEMBERS, PLOT_X = "everyone observed", "members (recall)", "plot's x axis (FPR)"


def targets_readings(fpr: np.ndarray, tpr: np.ndarray, skew: float, min_precision: float) -> dict[str, float]:
    r"""How far a Fig. 10 curve reaches at a precision bar, under each meaning of "targets" ([FW24] §5).

    The largest point of the curve (log-log interpolation,
    :func:`~anonlab.measures.base_rates.max_recall_at_precision`) whose
    precision at ``skew`` (Eq 11) is at least ``min_precision``, expressed as
    a share of everyone observed, :math:`TP/(M+N) = \text{recall}/(1+k)`, and
    of the members, the recall (Eq 9); and the reach on the paper's own plot,
    whose x axis the authors' code fills with the FPR
    (:func:`~anonlab.measures.base_rates.plot_line_reach`).

    >>> r = targets_readings(np.array([1e-4, 1.0]), np.array([0.002, 1.0]), 30.0, 0.4)
    >>> round(r["members (recall)"], 4), round(r["plot's x axis (FPR)"], 6), round(r["everyone observed"] * 31, 4)
    (0.002, 0.0001, 0.002)
    """
    pt = base_rates.max_recall_at_precision(fpr, tpr, skew, min_precision)
    return {EVERYONE: pt.targets_fraction, MEMBERS: pt.recall,
            PLOT_X: base_rates.plot_line_reach(fpr, tpr, skew, min_precision)}


def measure_shokri(cv: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> Findings:
    """Shokri et al.'s "40 % precision for 1/10000 targets" at 1:30, under every meaning of "targets".

    The ledger's three readings, log-log interpolation of Fig. 10, Eq 11:
    "targets" as everyone observed (:math:`TP/(M+N) = 10^{-4}`, recall
    :math:`10^{-4}(1 + k)`, the default), as the members (recall
    :math:`10^{-4}`, below Fig. 10's lowest point: the first segment is
    extended, and on any concave curve precision there is at least the
    first point's), and as the FPR (the x axis of the authors' plot).
    """
    c = claims.claim("fw.s5.shokri.precision_40")
    k40, frac40 = float(base_rates.as_skews(c.params["skew"])[0]), c.params["targets_fraction"]
    f, t = cv["shokri"]
    as_targets = base_rates.precision_at_recall(f, t, k40, base_rates.recall_for_targets_fraction(frac40, k40))
    as_recall = base_rates.precision_at_recall(f, t, k40, frac40, extrapolate=True)
    first = base_rates.precision_recall_at_skews(f[:1], t[:1], k40)["precision"].iloc[0]
    as_fpr = base_rates.precision_at_fpr(f, t, k40, frac40)
    at_40 = base_rates.max_recall_at_precision(f, t, k40, c.reported)
    best = base_rates.precision_recall_at_skews(f, t, k40)["precision"].max()
    readings = {"everyone observed, TP/(M+N)": as_targets.precision, "members, recall (Eq 9)": as_recall.precision,
                "the plot's x axis (FPR, authors' code)": as_fpr}
    table = pd.DataFrame([
        {"reading": "1/10000 of everyone observed", "recall": as_targets.recall,
         "1 in n observed": as_targets.one_in, "precision": as_targets.precision},
        {"reading": "1/10000 of the members (extrapolated below Fig. 10)", "recall": as_recall.recall,
         "1 in n observed": as_recall.one_in, "precision": as_recall.precision},
        {"reading": "FPR 1/10000 (the x axis of the authors' plot)", "recall": float(t[np.isclose(f, frac40)][0])
         if np.isclose(f, frac40).any() else math.nan, "1 in n observed": math.nan, "precision": as_fpr},
        {"reading": f"largest recall with precision >= {c.reported:.0%}", "recall": at_40.recall,
         "1 in n observed": at_40.one_in, "precision": at_40.precision},
    ])
    m = {c.id: Measurement(as_targets.precision, alternatives=readings,
                           note=f"1:30, log-log interpolation of Fig. 10; as a recall the first point gives {first:.2f}, "
                                f"the extended first segment {as_recall.precision:.2f}; FPR 1e-4 gives {as_fpr:.2f}")}
    values = {"shokri_targets_precision": as_targets.precision, "shokri_recall_precision": as_recall.precision,
              "shokri_first_precision": first, "shokri_fpr_precision": as_fpr,
              "shokri_40_recall": at_40.recall, "shokri_40_fpr": at_40.fpr, "shokri_40_one_in": at_40.one_in,
              "shokri_best": best, "paper_shokri_one_in": 1 / frac40,
              "paper_shokri_skew": base_rates.skew_label(k40), "k40": k40, "frac40": frac40}
    return Findings(m, values, table)


def readings_within(table: pd.DataFrame, claim_id: str) -> tuple[int, int]:
    """How many readings of :func:`measure_carlini`'s table the claim accepts, of how many.

    A reading is a (skew, interpolation scale, meaning of "targets") at the
    claim's precision bar: the share of everyone observed, ``1/one_in_targets``,
    the recall, or the FPR. The values a claim accepts are the verdict rules'
    (:func:`anonlab.claims.rules.accepted_interval`: the reported value within tolerance).

    >>> t = pd.DataFrame({"min_precision": [0.95, 0.95], "one_in_targets": [8000.0, 100.0],
    ...                   "recall": [0.5, 0.2], "fpr": [0.1, 0.2]})
    >>> readings_within(t, "fw.s5.carlini.precision_95_targets")
    (1, 6)
    """
    c = claims.claim(claim_id)
    low, high = accepted_interval(c)
    rows = table[np.isclose(table["min_precision"], c.params["precision"])]
    values = np.r_[1.0 / rows["one_in_targets"].to_numpy(dtype=float), rows["recall"].to_numpy(dtype=float),
                   rows["fpr"].to_numpy(dtype=float)]
    return int(np.sum((values >= low - 1e-12) & (values <= high + 1e-12))), int(values.size)


def within_readings_md(table: pd.DataFrame, claim_id: str) -> str:
    """The readings of :func:`measure_carlini`'s table the claim accepts, in words ("none" if none).

    >>> t = pd.DataFrame({"skew_label": ["1:30"], "scale": ["step"], "min_precision": [0.95],
    ...                   "one_in_targets": [155.0], "recall": [0.2], "fpr": [1e-4]})
    >>> within_readings_md(t, "fw.s5.carlini.precision_95_targets")
    '1:30, step, FPR: 1 in 10,000'
    """
    c = claims.claim(claim_id)
    low, high = accepted_interval(c)
    out = []
    for r in table[np.isclose(table["min_precision"], c.params["precision"])].itertuples():
        for name, v in (("TP/(M+N)", 1.0 / r.one_in_targets), ("recall", r.recall), ("FPR", r.fpr)):
            if low - 1e-12 <= v <= high + 1e-12:
                out.append(f"{r.skew_label}, {r.scale}, {name}: 1 in {1 / v:,.0f}")
    return "; ".join(out) or "none"


def carlini_skews() -> dict[str, float]:
    """The skews the ledger lists for Carlini et al.'s statements (the unstated choice), ``{label: skew}``."""
    labels = claims.claim("fw.s5.carlini.precision_80_targets").alternatives()
    return {lab.split(", ")[-1]: float(base_rates.as_skews(lab.split(", ")[-1])[0]) for lab in labels}


def measure_carlini(cv: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> Findings:
    """Carlini et al.'s "95 % precision for only 1 in 8000 targets" and "at 80 % precision ... the recall is only 1 in 800".

    The skew is unstated: both are measured at the Hospitals (1:30) and
    Texas (1:240) skews, log-log interpolation of Fig. 10, Eq 11. "Targets"
    is undefined, so the 95 % statement is measured under each meaning
    (:func:`targets_readings`); "recall" is defined (Eq 9), so the 80 %
    statement is measured as a recall. The default reading is the skew
    most favourable to "only", 1:240. The table gives every Fig. 9 skew,
    three ways of reading the curve between Fig. 10's points and every meaning.
    """
    c95, c80 = claims.claim("fw.s5.carlini.precision_95_targets"), claims.claim("fw.s5.carlini.precision_80_targets")
    f, t = cv["carlini"]
    ks = carlini_skews()
    r95 = {lab: targets_readings(f, t, k, c95.params["precision"]) for lab, k in ks.items()}
    r80 = {lab: targets_readings(f, t, k, c80.params["precision"]) for lab, k in ks.items()}
    k_star = max(ks.values())
    star = base_rates.skew_label(k_star)
    alt95 = {f"{meaning}, {lab}": r[meaning] for lab, r in r95.items() for meaning in (EVERYONE, MEMBERS, PLOT_X)}
    alt80 = {f"recall, {lab}": r[MEMBERS] for lab, r in r80.items()}
    m = {
        c95.id: Measurement(r95[star][EVERYONE], alternatives=alt95,
                            note=f"at precision >= 0.95, log-log: 1 in {1 / r95[star][EVERYONE]:,.0f} of everyone observed "
                                 f"at {star}; " + "; ".join(f"{k}: {v:.3g}" for k, v in alt95.items())),
        c80.id: Measurement(r80[star][MEMBERS], alternatives=alt80,
                            note=f"recall (Eq 9) at precision >= 0.8, log-log: " + ", ".join(
                                f"{v:.2f} at {lab.split(', ')[-1]}" for lab, v in alt80.items())
                                 + f"; on the paper's plot (x = FPR) 1 in {1 / r80[star][PLOT_X]:,.0f} at {star}, "
                                   f"as TP/(M+N) 1 in {1 / r80[star][EVERYONE]:,.0f}"),
    }
    skews = fig9_skews()
    tab = base_rates.max_recall_table(f, t, skews, [c95.params["precision"], c80.params["precision"]],
                                      scales=("log", "linear", "step"))
    pick = tab[(tab["skew"] == k_star) & (tab["scale"] == "log")].set_index("min_precision")
    m95, m80 = pick.loc[c95.params["precision"]], pick.loc[c80.params["precision"]]
    q95 = tab[(tab["skew"] == k_star) & (tab["scale"] == "step") & (tab["min_precision"] == 0.95)]
    q30 = tab[(tab["skew"] == 30) & (tab["scale"] == "log") & (tab["min_precision"] == 0.95)]
    r30 = r80.get(base_rates.skew_label(30.0), {}).get(MEMBERS, math.nan)
    values = {"c95_one_in": m95["one_in_targets"], "c80_one_in": m80["one_in_targets"],
              "c95_recall": m95["recall"], "c80_recall": m80["recall"], "c80_recall_30": r30,
              "c95_plot_one_in": 1 / r95[star][PLOT_X], "c80_plot_one_in": 1 / r80[star][PLOT_X],
              "c95_plot_one_in_30": 1 / r95.get("1:30", {}).get(PLOT_X, math.nan),
              "c80_plot_one_in_30": 1 / r80.get("1:30", {}).get(PLOT_X, math.nan),
              "c95_paper_one_in": 1 / c95.reported, "c80_paper_one_in": 1 / c80.reported,
              "c95_factor": (1 / c95.reported) / m95["one_in_targets"], "c80_one_in_members": m80["one_in_members"],
              "c80_factor": m80["recall"] / c80.reported,
              "paper_c95_prec": c95.params["precision"], "paper_c80_prec": c80.params["precision"],
              "c95_step_one_in": q95["one_in_targets"].iloc[0],
              "c95_1_30_one_in": q30["one_in_targets"].iloc[0] if 30 in skews else math.nan,
              "k_star_md": star, "k_star": k_star}
    values["c95_readings_within"], values["c95_readings"] = readings_within(tab, c95.id)
    values["c95_within_md"] = within_readings_md(tab, c95.id)
    tab = tab.assign(one_in_fpr=1.0 / tab["fpr"])
    cols = ["skew_label", "min_precision", "scale", "fpr", "recall", "precision", "one_in_targets", "one_in_members",
            "one_in_fpr"]
    return Findings(m, values, tab[cols])


# ---------------------------------------------------------------------------
# §5: against predicting that everyone is a member
# ---------------------------------------------------------------------------


def precision_at_full_recall(cv: Mapping[str, tuple[np.ndarray, np.ndarray]], skews: np.ndarray) -> pd.DataFrame:
    """:func:`~anonlab.measures.base_rates.full_recall_vs_baseline` for each curve, one table."""
    return pd.concat({a: base_rates.full_recall_vs_baseline(f, t, skews) for a, (f, t) in cv.items()},
                     names=["attack", None]).reset_index(level=0)


def single_value_rows_to(points: pd.DataFrame, attack: str) -> pd.DataFrame:
    """Fig. 10 with the rows that carry a single value in the table reassigned to ``attack``.

    >>> p = pd.DataFrame({"attack": ["a", "b", "b"], "fpr": [0.1, 0.1, 0.5], "tpr": [0.2, 0.3, 0.9]})
    >>> single_value_rows_to(p, "a")["attack"].tolist()
    ['a', 'a', 'b']
    """
    n_columns = points.groupby("fpr")["attack"].nunique()
    ambiguous = points.fpr.isin(n_columns[n_columns == 1].index)
    return points.assign(attack=np.where(ambiguous, attack, points.attack)).sort_values(["attack", "fpr"])


def measure_full_recall(points: pd.DataFrame, k_hospitals: float) -> Findings:
    """"Neither attack beats everyone-is-a-member at recall 1.0", on Fig. 10 and with its single-value rows moved.

    The ledger assigns the rows at FPR 0.25 and 0.5 as the authors' plotting
    code does (Carlini et al. and Shokri et al.); the table adds both rows
    given to either attack.
    """
    skews = fig9_skews()
    cv = curves(points)
    as_ledger = precision_at_full_recall(cv, skews)
    holds = not as_ledger["beats_baseline"].any()
    beats = sorted(set(as_ledger.loc[as_ledger["beats_baseline"], "attack"]))
    m = {"fw.s5.no_better_than_all_member": Measurement(
        holds, note="at recall 1 " + (", ".join(beats) or "no attack") + " beats the everyone-is-a-member baseline "
                    "at every skew (Fig. 10 as the authors' code assigns its single-value rows); with both rows "
                    "given to one attack, that attack beats it")}
    gap = as_ledger[(as_ledger.attack == "carlini") & (as_ledger["skew"] == k_hospitals)].iloc[0]
    gap_s = as_ledger[(as_ledger.attack == "shokri") & (as_ledger["skew"] == k_hospitals)].iloc[0]
    f_c, t_c = cv["carlini"]
    f_s, t_s = cv["shokri"]
    before_one = float(t_c[t_c < 1].max())
    values = {"tpr_before_one": before_one, "fpr_full_recall": float(f_c[t_c >= 1].min()),
              "fpr_full_recall_shokri": float(f_s[t_s >= 1].min()),
              "decade_share": float(np.log10(1 / before_one)), "full_recall_prec_30": gap["precision"],
              "full_recall_prec_30_shokri": gap_s["precision"], "full_recall_base_30": gap["baseline_precision"]}
    table = pd.concat({"Fig. 10 (rows at FPR 0.25, 0.5: Carlini, Shokri)": as_ledger,
                       "both rows Carlini": precision_at_full_recall(curves(single_value_rows_to(points, "carlini")),
                                                                     skews),
                       "both rows Shokri": precision_at_full_recall(curves(single_value_rows_to(points, "shokri")),
                                                                    skews)})
    return Findings(m, values, table)


def measure_eq11() -> dict[str, Measurement]:
    """Eq 11 against counting TP/(TP+FP) on the §1 example's settings (the ledger's consistency check)."""
    p1 = claims.claim("fw.s1.base_rate.balanced.precision").params
    m1 = p1["population"] * p1["member_share"]
    counted = base_rates.worked_example(p1["population"], p1["fpr"], p1["fnr"], p1["member_share"])["precision"].iloc[0]
    eq11 = base_rates.precision_recall_at_skews([p1["fpr"]], [1 - p1["fnr"]],
                                                (p1["population"] - m1) / m1)["precision"].iloc[0]
    return {"fw.s5.eq11.precision_from_roc": Measurement(
        bool(np.isclose(counted, eq11)),
        note=f"Eq 11 gives {eq11:.4f}, counting TP/(TP+FP) gives {counted:.4f}; checked on the live attacks below")}


# ---------------------------------------------------------------------------
# Live attacks
# ---------------------------------------------------------------------------


def load_data(p: Mapping[str, Any]) -> tuple[membership.MembershipData, dict[str, Any]]:
    """The pool of records of the live attacks and the values the prose quotes."""
    n_pool = membership.pool_size(p["dataset"], p["n_members"], p["member_fraction"])
    data = membership.load_membership_data(p["dataset"], n_records=n_pool, seed=p["seed"])
    values = {"n_pool": data.n_records, "dataset_name": f"`{p['dataset']}`",
              "n_members": p["n_members"], "n_models_trained": p["n_shadow_models"] + 1,
              "adult_rows": membership.DATASET_ROWS["adult"], "n_duplicates": data.n_duplicate_rows}
    return data, plain(values)


def shadow_models(run: ChapterRun, data: membership.MembershipData, depth: int | None, n_models: int,
                  progress: bool = False) -> membership.ShadowModels:
    """Train ``n_models`` models at tree depth ``depth``, or reuse them from the result cache (``run.cached``)."""
    p = run.p
    spec = membership.ModelSpec(p["model"], max_depth=depth, categorical=tuple(np.flatnonzero(data.categorical)),
                                n_jobs=-1)
    return run.cached(
        "shadow_models", lambda: membership.train_shadow_models(
            data.X, data.y, spec, n_models=n_models, member_fraction=p["member_fraction"], seed=p["seed"],
            progress=run.progress if progress else None),
        dataset=p["dataset"], n_records=data.n_records, model=p["model"], max_depth=depth, n_models=n_models,
        member_fraction=p["member_fraction"], seed=p["seed"])


def accuracy_summary(models: membership.ShadowModels) -> Findings:
    """Train / test accuracy and the generalisation gap of the models (what the loss attack exploits)."""
    acc = models.accuracy()
    values = {"train_acc": acc.train_accuracy.mean(), "test_acc": acc.test_accuracy.mean(), "gap": acc.gap.mean()}
    table = acc.describe().loc[["mean", "std", "min", "max"], ["train_accuracy", "test_accuracy", "gap"]]
    return Findings(values=values, table=table)


# -- sentences that compare, chosen from the numbers (issue 34) -----------------


def gap_sentence(train_acc: float, test_acc: float) -> Sentence:
    """The models' generalisation gap (:func:`accuracy_summary`) in words: a gap to exploit, or none.

    >>> gap_sentence(0.80, 0.81).relation
    'at or below'
    """
    return compare("gap_sentence", train_acc, test_acc, {
        "above": ("a generalisation gap of " f"{train_acc - test_acc:.1%}" ", which is what membership attacks "
                  "exploit"),
        "at or below": ("no generalisation gap (" f"{train_acc - test_acc:.1%}" "), so membership attacks that "
                        "exploit one have little to work with"),
    })


def _depth_label(d: Any) -> str:
    return "unlimited depth" if d in (None, "None", "unlimited") else f"depth {d}"


def depth_sentences(sweep: pd.DataFrame) -> list[Sentence]:
    """What the depth sweep (:func:`depth_sweep`) shows, in words: whether the loss attack's AUC rises from the
    shallowest to the deepest trees (``depth_trend``), and whether the deepest trees are the least able to act at
    FPR 1e-2 (``depth_low_fpr``). With fewer than two depths there is no trend to state.

    >>> sweep = pd.DataFrame({"max_depth": [4, "None"], "AUC": [0.52, 0.60], "TPR at FPR 1e-2": [0.01, 0.02]})
    >>> [s.relation for s in depth_sentences(sweep)]
    ['above', 'at or above']
    """
    if len(sweep) < 2:
        return [compare("depth_trend", len(sweep), 2, {"below": (
            "This run sweeps fewer than two tree depths ({left:.0f}; a forest with `sweep_max_depths` of two or more "
            "depths is needed), so it shows no trend with depth")})]
    depth = sweep["max_depth"].map(lambda d: math.inf if d in (None, "None", "unlimited") else float(d))
    order = sweep.assign(_d=depth.to_numpy()).sort_values("_d", kind="stable")
    lo, hi = order.iloc[0], order.iloc[-1]
    trend = compare("depth_trend", float(hi["AUC"]), float(lo["AUC"]), {
        "above": ("Shallow trees generalise and leak little; deeper trees memorise their training records and the "
                  f"loss attack's AUC rises with the gap ({{right:.3f}} at {_depth_label(lo['max_depth'])}, "
                  f"{{left:.3f}} at {_depth_label(hi['max_depth'])}), as Yeom et al. predict"),
        "at or below": ("Here the loss attack's AUC does not rise with depth ("
                        f"{{right:.3f}} at {_depth_label(lo['max_depth'])}, {{left:.3f}} at "
                        f"{_depth_label(hi['max_depth'])}), whatever the gap does"),
    })
    others = order.iloc[:-1]
    best = others.loc[others["TPR at FPR 1e-2"].idxmax()] if others["TPR at FPR 1e-2"].notna().any() else others.iloc[0]
    low = compare("depth_low_fpr", float(hi["TPR at FPR 1e-2"]), float(best["TPR at FPR 1e-2"]), {
        "below": ("Yet the deepest forests leave the loss attack *less* able to act at a low FPR (TPR at FPR 1e-2: "
                  f"{{left:.3f}}, against {{right:.3f}} at {_depth_label(best['max_depth'])}): they give "
                  "probability 1 to many members and non-members alike, so its most confident scores are ties. AUC, "
                  "a balanced-observation average, and the low-FPR corner tell different stories"),
        "at or above": ("At a low FPR the deepest forests leave the loss attack no less able to act (TPR at FPR "
                        f"1e-2: {{left:.3f}}, against at most {{right:.3f}} at a shallower depth): here AUC and the "
                        "low-FPR corner tell the same story"),
    })
    return [trend, low]


def live_results(scores: pd.DataFrame, p: Mapping[str, Any]) -> tuple[dict[str, Any], Any]:
    """Each live attack as an :class:`~anonlab.measures.AttackResult` at FPR <= ``low_fprs[0]``, and the baseline.

    The baseline is "everyone is a member" on the same targets ([FW24] §5),
    so PI (Eq 6) is the attack's gain over the base rate.
    """
    labels = {a: f"{LABELS[a]}, FPR ≤ {p['low_fprs'][0]:g}" for a in LABELS}
    results = membership.attack_results(scores, p["low_fprs"][0], labels=labels,
                                        reference_models=p["n_shadow_models"])
    any_result = next(iter(results.values()))
    baseline = base_rates.everyone_is_member_result(any_result.truth, targets=any_result.targets)
    return results, baseline


def auc_values(rocs: Mapping[str, base_rates.RocCurve]) -> dict[str, float]:
    """``{"auc_<attack>": AUC}`` of each live attack (glued for the exercises)."""
    return {f"auc_{a}": float(r.auc) for a, r in rocs.items()}


def observation_counts(scores: pd.DataFrame) -> dict[str, int]:
    """Member and non-member observations pooled over the target models."""
    n = scores.groupby("is_member").size()
    return {"n_obs_members": int(n[True]), "n_obs_non": int(n[False])}


def lowest_operating_fpr(roc: base_rates.RocCurve) -> float:
    """The smallest FPR at which an attack flags at least one member (``inf`` if it never does).

    >>> r = base_rates.roc_from_scores(np.array([1.0, 1.0, 1.0, 0.2]), np.array([True, False, False, False]))
    >>> round(lowest_operating_fpr(r), 3)
    0.667
    """
    hit = np.asarray(roc.tp) > 0
    return float(np.min(np.asarray(roc.fpr)[hit])) if hit.any() else math.inf


def low_fpr_sentences(scores: pd.DataFrame, rocs: Mapping[str, base_rates.RocCurve], fpr: float) -> list[Sentence]:
    """Whether the attacks that read the target model alone (loss, confidence) can operate at FPR <= ``fpr``
    (``loss_low_fpr``, ``confidence_low_fpr``): the smallest FPR at which each flags a member, and how many
    observations tie at its highest score."""
    out = []
    for a in ("loss", "confidence"):
        if a not in rocs:
            continue
        ties = int((scores[a] == scores[a].max()).sum())
        out.append(compare(f"{a}_low_fpr", lowest_operating_fpr(rocs[a]), fpr, {
            "above": (f"the {LABELS[a]} attack cannot operate there at all: {ties:,} observations tie at its "
                      "highest score, so flagging any member already means an FPR of {left:.2g}, above {right:g}"),
            "at or below": (f"the {LABELS[a]} attack can: it flags a member at an FPR of {{left:.2g}}, at most "
                            f"{{right:g}} ({ties:,} observations tie at its highest score)"),
        }))
    return out


def realistic_precision_sentence(rocs: Mapping[str, base_rates.RocCurve], fpr: float,
                                 skews: Sequence[float]) -> Sentence:
    """The paper's central point on the live attacks: the precision of the attack with the highest TPR at
    FPR <= ``fpr``, at the largest of ``skews`` against a balanced (1:1) evaluation at the same threshold
    (Eq 11); an empty listing when no attack flags a member there.

    >>> r = {"loss": base_rates.roc_from_scores(np.array([3.0, 2.0, 1.0, 0.0]), np.array([True, False, True, False]))}
    >>> realistic_precision_sentence(r, 0.5, [1.0, 30.0]).relation
    'below'
    """
    points = {a: int(np.searchsorted(r.fpr, fpr, side="right") - 1) for a, r in rocs.items()}
    best = max(rocs, key=lambda a: float(rocs[a].tpr[points[a]]))
    r, i = rocs[best], points[best]
    if float(r.tpr[i]) == 0:
        return listing("realistic_precision", [], some="",
                       none=f"no live attack flags a member at FPR <= {fpr:g}, so none has a precision there")
    k = float(max(skews))
    pr = base_rates.precision_recall_at_skews([r.fpr[i]], [r.tpr[i]], [1.0, k])["precision"].to_numpy()
    head = f"at the threshold where {LABELS[best]} has FPR {float(r.fpr[i]):.2g}, its precision at {base_rates.skew_label(k)} is "
    return compare("realistic_precision", float(pr[1]), float(pr[0]), {
        "below": head + "{left:.3f}, lower than the {right:.3f} a balanced (1:1) evaluation shows",
        "at or above": head + "{left:.3f}, no lower than the {right:.3f} of a balanced (1:1) evaluation",
    })


def low_fpr_tables(rocs: Mapping[str, base_rates.RocCurve], low_fprs: Sequence[float],
                   skews: np.ndarray) -> Findings:
    """TPR at each low FPR (``table``) and, at each skew, that point's precision with its interval (``more["precision"]``)."""
    low = pd.concat({LABELS[a]: base_rates.low_fpr_table(r, low_fprs, skews=skews) for a, r in rocs.items()},
                    names=["attack", None]).reset_index(level=0)
    tpr_tab = low.drop_duplicates(["attack", "target_fpr"])[["attack", "target_fpr", "tpr", "tpr_low", "tpr_high",
                                                             "tp", "fp", "resolvable"]]
    best = tpr_tab[tpr_tab.target_fpr == min(low_fprs)].sort_values("tpr").iloc[-1]
    prec = low.pivot_table(index=["attack", "target_fpr"], columns="skew_label",
                           values=["precision", "precision_low", "precision_high"], sort=False)
    prec_tab = pd.DataFrame({lab: [f"{p:.3f} [{lo:.3f}, {hi:.3f}]" for p, lo, hi in zip(
        prec["precision", lab], prec["precision_low", lab], prec["precision_high", lab])]
        for lab in [base_rates.skew_label(k) for k in skews]}, index=prec.index)
    values = {"best_attack": best["attack"], "best_tpr_low_fpr": best["tpr"], "lowest_fpr": min(low_fprs)}
    return Findings(values=values, table=tpr_tab, more={"precision": prec_tab})


def one_in(v: float) -> str:
    """``"1 in 1,234"`` or ``"never"``.

    >>> one_in(1234.4), one_in(float("inf"))
    ('1 in 1,234', 'never')
    """
    return "never" if not np.isfinite(v) else f"1 in {v:,.0f}"


def high_precision_table(rocs: Mapping[str, base_rates.RocCurve], skews: np.ndarray,
                         bars: Sequence[float]) -> Findings:
    """The largest share of everyone observed flagged at each precision bar, point estimate and conservative."""
    hpt = pd.concat({LABELS[a]: base_rates.empirical_max_recall_table(r, skews, bars) for a, r in rocs.items()},
                    names=["attack", None]).reset_index(level=0)
    show = pd.DataFrame({
        (kind, base_rates.skew_label(k)): hpt[hpt["skew"] == k].set_index(["attack", "min_precision"])[col].map(one_in)
        for kind, col in [("point estimate", "one_in_targets"), ("conservative", "one_in_targets_conservative")]
        for k in skews
    })
    high = hpt["min_precision"] >= 0.8
    values = {"hp_never": int(np.isinf(hpt.loc[high, "one_in_targets_conservative"]).sum()),
              "hp_cells": int(high.sum())}
    return Findings(values=values, table=show)


def full_recall_live(rocs: Mapping[str, base_rates.RocCurve], skews: np.ndarray) -> Findings:
    """The live attacks' precision at recall 1 against everyone-is-a-member (the last statement of §5)."""
    full = pd.concat({LABELS[a]: base_rates.full_recall_vs_baseline(r.fpr, r.tpr, skews, scale="step")
                      for a, r in rocs.items()}, names=["attack", None]).reset_index(level=0)
    return Findings(values={"live_max_pi_full_recall": full["pi"].max()}, table=full)


def counted_check(scores: pd.DataFrame, rocs: Mapping[str, base_rates.RocCurve], skews: np.ndarray,
                  seed: int | np.random.Generator, attack: str = "lira_online",
                  fprs: Sequence[float] = (1e-2, 1e-1)) -> Findings:
    """Eq 11 against direct counting: flag above a threshold on populations drawn at each skew.

    One generator (:func:`~anonlab.validation.check_random_state` of
    ``seed``) draws every population in turn.
    """
    rng = check_random_state(seed)
    r = rocs[attack]
    rows = []
    for target in fprs:
        i = int(np.searchsorted(r.fpr, target, side="right") - 1)
        for k in skews:
            c = base_rates.counted_precision(scores[attack], scores["is_member"], r.threshold[i], k, rng)
            pred = base_rates.precision_recall_at_skews([r.fpr[i]], [r.tpr[i]], k)["precision"].iloc[0]
            rows.append({"threshold at FPR": r.fpr[i], "skew": base_rates.skew_label(k), **c, "Eq 11": pred,
                         "inside": bool(c["ci_low"] <= pred <= c["ci_high"])})
    check = pd.DataFrame(rows)
    return Findings(values={"n_inside": int(check["inside"].sum()), "n_checks": len(check)}, table=check)


def depth_sweep(run: ChapterRun, data: membership.MembershipData) -> pd.DataFrame:
    """The loss attack against tree depth: one pair of models per depth of ``sweep_max_depths`` (progress on stderr)."""
    p = run.p
    if p["model"] == "logistic_regression" or not p["sweep_max_depths"]:
        print("no depth sweep (logistic regression has no depth, or sweep_max_depths is empty)", file=sys.stderr)
        return pd.DataFrame()
    rows = []
    for d in p["sweep_max_depths"]:
        sm = shadow_models(run, data, d, 2)
        rr = membership.attack_rocs(membership.run_attacks(sm, n_targets=2, attacks=["loss"]))["loss"]
        ac = sm.accuracy().mean()
        at = base_rates.low_fpr_table(rr, [1e-2, 1e-1])
        rows.append({"max_depth": "unlimited" if d is None else d, "train accuracy": ac.train_accuracy,
                     "test accuracy": ac.test_accuracy, "gap": ac.gap, "AUC": rr.auc,
                     "TPR at FPR 1e-2": at.tpr.iloc[0], "TPR at FPR 1e-1": at.tpr.iloc[1]})
        print(f"max_depth={d}: done", file=sys.stderr, flush=True)  # progress: the run's log, not the page
    return pd.DataFrame(rows)

"""Cormode's "naive attack": a Naive-Bayes classifier learnt from noisy counts.

G. Cormode, *Personal privacy vs population privacy: learning to attack anonymization*, KDD 2011, §2.2-2.3. From the
ε-DP counts of every (QI value, SA value) pair (:func:`anonlab.mechanisms.dp.release_counts`) the attacker builds the
classifier

.. math:: \\hat s(t) = \\arg\\max_{s \\in SA} \\Pr[s] \\prod_{i=1}^m \\Pr[t_i \\mid s]

with negative counts clamped to 0 and the Laplacian +1 correction (:func:`naive_bayes_from_counts`; footnote 2's
Dirichlet variant :func:`dirichlet_naive_bayes`). The normalised product is a posterior per tuple (footnote 1); those
above a threshold (0.8 in Fig. 3) form the *high-confidence* subset. Vectorised over noise draws and distinct QI
combinations (about a thousand among Adult's 30,718 tuples).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from anonlab.measures.protocol import NONMEMBER_MODEL, AttackResult, majority_baseline
from anonlab.measures.rates import precision_improvement
from anonlab.intervals import mean_interval, percentile_interval, wilson_interval
from anonlab.streams import legacy_seed
from anonlab.validation import check_int, check_number, check_random_state
from anonlab.mechanisms.dp import (
    EncodedTable,
    NoisyCounts,
    encode_table,
    query_sensitivity,
    release_counts,
)

__all__ = [
    "NaiveBayesModel",
    "bucketize",
    "distinct_combinations",
    "naive_bayes_from_counts",
    "dirichlet_naive_bayes",
    "log_scores",
    "posterior",
    "predict",
    "high_confidence",
    "strictly_above",
    "naive_bayes_result",
    "evaluate_model",
    "naive_attack",
    "naive_attack_models",
    "summarize_attack",
    "NaiveRun",
    "train_test_gap",
    "median_of_means",
    "naive_attack_runs",
    "report_epsilon",
    "naive_attack_records",
    "recode_like",
    "nonmember_naive_bayes",
    "baseline_on",
    "nonmember_table",
    "accuracy_vs_attributes",
    "tradeoff_table",
    "timed_naive_attack",
    "naive_attack_vs_nonmember_baseline",
]


# ---------------------------------------------------------------------------
# data preparation
# ---------------------------------------------------------------------------


def bucketize(values: pd.Series, upper_edges: Sequence[float]) -> pd.Series:
    """Put integer values into the paper's closed buckets, e.g. hours worked per week.

    With ``upper_edges = [25, 40, 60]`` the buckets are Cormode's (§2.3) ``"0-25"``, ``"26-40"``, ``"41-60"`` and
    ``"61+"``: value :math:`x` goes to the first bucket with :math:`x \\le` its upper edge. Missing values stay
    missing.

    Examples
    --------
    >>> bucketize(pd.Series([1, 25, 26, 60, 99]), [25, 40, 60]).tolist()
    ['0-25', '0-25', '26-40', '41-60', '61+']
    """
    edges = [float(e) for e in upper_edges]
    if not edges or any(b <= a for a, b in zip(edges, edges[1:])):
        raise ValueError(f"upper_edges must be a non-empty increasing list, got {list(upper_edges)}")
    if edges[0] < 0:
        raise ValueError(f"upper_edges must be >= 0, got {list(upper_edges)}")

    def fmt(x: float) -> str:
        return str(int(x)) if float(x).is_integer() else f"{x:g}"

    lows = [0.0] + [e + 1 for e in edges]
    labels = [f"{fmt(lo)}-{fmt(hi)}" for lo, hi in zip(lows, edges)] + [f"{fmt(lows[-1])}+"]
    x = pd.to_numeric(values, errors="raise").to_numpy(dtype=float)
    idx = np.searchsorted(np.asarray(edges), x, side="left")
    out = np.asarray(labels, dtype=object)[np.clip(idx, 0, len(labels) - 1)]
    out[np.isnan(x)] = None
    return pd.Series(out, index=values.index, name=values.name)


# ---------------------------------------------------------------------------
# the classifier
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class NaiveBayesModel:
    """Naive-Bayes parameters, one set per noise draw.

    Attributes: ``log_prior`` (numpy.ndarray, shape (draws, n_sa)): :math:`\\log \\Pr[s]`. ``log_cond``
    (numpy.ndarray, shape (draws, n_cells, n_sa)): :math:`\\log \\Pr[t_i = v \\mid s]`, the QI blocks stacked as in
    :func:`anonlab.mechanisms.dp.pair_counts`. ``offsets`` (numpy.ndarray): Block boundaries (length m + 1).
    """

    log_prior: np.ndarray
    log_cond: np.ndarray
    offsets: np.ndarray

    @property
    def draws(self) -> int:
        """Number of parameter sets (noise draws)."""
        return int(self.log_prior.shape[0])


def _as_draws(counts: np.ndarray | NoisyCounts, offsets: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(counts, NoisyCounts):
        offsets = counts.offsets if offsets is None else offsets
        counts = counts.counts
    if offsets is None:
        raise ValueError("offsets are needed when counts is a plain array")
    c = np.asarray(counts, dtype=float)
    if c.ndim == 2:
        c = c[None]
    if c.ndim != 3:
        raise ValueError(f"counts must have shape (n_cells, n_sa) or (draws, n_cells, n_sa), got {c.shape}")
    offsets = np.asarray(offsets, dtype=np.int64)
    if offsets[0] != 0 or offsets[-1] != c.shape[1] or np.any(np.diff(offsets) < 1):
        raise ValueError(f"offsets {offsets.tolist()} do not partition the {c.shape[1]} count rows")
    return c, offsets


def _block_sums(c: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum the rows of each QI block: (draws, n_cells, S) -> (draws, m, S)."""
    return np.add.reduceat(c, offsets[:-1], axis=1)


def naive_bayes_from_counts(
    counts: np.ndarray | NoisyCounts,
    offsets: np.ndarray | None = None,
    *,
    laplace: float = 1.0,
) -> NaiveBayesModel:
    """Naive-Bayes parameters from (noisy) pair counts, as in Cormode (2011) §2.2.

    With :math:`c'_i(t, s) = \\lambda + \\max(0, c_i(t, s))` (clamping, then the Laplacian correction :math:`\\lambda
    = 1`):

    .. math::

        \\Pr[t_i \\mid s] = \\frac{c'_i(t_i, s)}{\\sum_{t \\in T_i} c'_i(t, s)},\\qquad
        \\Pr[s] = \\frac{\\sum_i \\sum_t c'_i(t, s)}{\\sum_{s'} \\sum_i \\sum_t c'_i(t, s')}.

    Parameters: ``counts`` (NoisyCounts or numpy.ndarray): Shape (n_cells, n_sa) or (draws, n_cells, n_sa).
    ``offsets`` (numpy.ndarray, optional): Block boundaries; taken from ``counts`` when it is a :class:`NoisyCounts`.
    ``laplace`` (float, default 1): The additive correction :math:`\\lambda` (> 0).
    """
    check_number("laplace", laplace, low=0, low_inclusive=False)
    c, offsets = _as_draws(counts, offsets)
    cp = np.maximum(c, 0.0) + float(laplace)
    sums = _block_sums(cp, offsets)  # (D, m, S)
    widths = np.diff(offsets)
    log_cond = np.log(cp) - np.repeat(np.log(sums), widths, axis=1)
    prior = sums.sum(axis=1)  # (D, S)
    log_prior = np.log(prior) - np.log(prior.sum(axis=1, keepdims=True))
    return NaiveBayesModel(log_prior=log_prior, log_cond=log_cond, offsets=offsets)


def dirichlet_naive_bayes(
    counts: np.ndarray | NoisyCounts,
    offsets: np.ndarray | None = None,
    *,
    laplace: float = 1.0,
    seed: int | np.random.Generator | None = None,
) -> NaiveBayesModel:
    """Naive-Bayes parameters *drawn* from Dirichlet distributions (Cormode 2011, footnote 2).

    Instead of the point estimate of :func:`naive_bayes_from_counts`, each conditional distribution is drawn from the
    posterior given the clamped, corrected counts :math:`c'`:

    .. math::

        \\Pr[\\cdot \\mid s]_i \\sim \\mathrm{Dir}\\big(c'_i(t, s)\\big)_{t \\in T_i},\\qquad
        \\Pr[\\cdot] \\sim \\mathrm{Dir}\\Big(\\tfrac{1}{m}\\sum_i \\sum_t c'_i(t, s)\\Big)_{s}.

    The prior's concentration is the *average* over the :math:`m` tables (each tuple appears in every table, so the
    plain sum would count it :math:`m` times). Drawn through normalised Gamma variates, vectorised.
    """
    c, offsets = _as_draws(counts, offsets)
    rng = check_random_state(seed)
    cp = np.maximum(c, 0.0) + float(laplace)
    g = rng.standard_gamma(cp)
    g = np.maximum(g, np.finfo(float).tiny)
    sums = _block_sums(g, offsets)
    log_cond = np.log(g) - np.repeat(np.log(sums), np.diff(offsets), axis=1)
    m = len(offsets) - 1
    conc = _block_sums(cp, offsets).sum(axis=1) / m
    p = np.maximum(rng.standard_gamma(conc), np.finfo(float).tiny)
    log_prior = np.log(p) - np.log(p.sum(axis=1, keepdims=True))
    return NaiveBayesModel(log_prior=log_prior, log_cond=log_cond, offsets=offsets)


def log_scores(model: NaiveBayesModel, qi_codes: np.ndarray) -> np.ndarray:
    """Unnormalised log posterior :math:`\\log \\Pr[s] + \\sum_i \\log \\Pr[t_i \\mid s]`.

    Parameters: ``qi_codes`` (numpy.ndarray of int, shape (n, m)).

    Returns: numpy.ndarray, shape (draws, n, n_sa).
    """
    codes = np.asarray(qi_codes, dtype=np.int64)
    m = len(model.offsets) - 1
    if codes.ndim != 2 or codes.shape[1] != m:
        raise ValueError(f"qi_codes must have shape (n, {m}), got {codes.shape}")
    widths = np.diff(model.offsets)
    if codes.size and (codes.min() < 0 or np.any(codes.max(axis=0) >= widths)):
        raise ValueError("qi_codes holds a code outside its attribute's domain")
    out = np.repeat(model.log_prior[:, None, :], codes.shape[0], axis=1)
    for i in range(m):  # loop over the m attributes, vectorised over tuples and draws
        out += model.log_cond[:, model.offsets[i] + codes[:, i], :]
    return out


def _softmax(scores: np.ndarray) -> np.ndarray:
    z = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def posterior(model: NaiveBayesModel, qi_codes: np.ndarray) -> np.ndarray:
    """Posterior :math:`\\Pr[s \\mid t]` per tuple (footnote 1), shape (draws, n, n_sa)."""
    return _softmax(log_scores(model, qi_codes))


def predict(model: NaiveBayesModel, qi_codes: np.ndarray) -> np.ndarray:
    """The NB prediction :math:`\\hat s(t)` (SA codes), shape (draws, n)."""
    return log_scores(model, qi_codes).argmax(axis=-1)


def high_confidence(post: np.ndarray, threshold: float = 0.8) -> np.ndarray:
    """Mask of the tuples whose largest posterior exceeds ``threshold`` (Fig. 3 uses 0.8)."""
    check_number("threshold", threshold, low=0, high=1, high_inclusive=False)
    return np.asarray(post).max(axis=-1) > threshold


def strictly_above(threshold: float) -> float:
    """The smallest float above ``threshold``.

    Cormode's high-confidence tuples have a belief *above* 0.8 (Fig. 3), while
    :meth:`~anonlab.measures.AttackResult.at_threshold` keeps ``confidence >= threshold``;
    ``result.at_threshold(strictly_above(0.8))`` keeps exactly the beliefs ``> 0.8``.

    >>> strictly_above(0.8) > 0.8, strictly_above(0.8) - 0.8 < 1e-15
    (True, True)
    """
    return float(np.nextafter(float(threshold), np.inf))


def naive_bayes_result(
    model: NaiveBayesModel,
    table: EncodedTable,
    *,
    draw: int = 0,
    attack: str = "naive Bayes",
    resources: Mapping[str, float] | None = None,
) -> AttackResult:
    """One noise draw's predictions for every tuple of ``table``, as an :class:`~anonlab.measures.AttackResult`.

    The target is the row number, the truth and the prediction are SA codes (``table.sa_domain[code]`` is the value),
    the attack predicts for every tuple, and the confidence is the largest posterior :math:`\\max_s \\Pr[s \\mid t]`
    (footnote 1), so that ``result.at_threshold(strictly_above(0.8))`` is Fig. 3's high-confidence subset. Scored with
    :func:`anonlab.measures.score`, the precision is the accuracy :func:`evaluate_model` reports for the same draw.

    Parameters: ``table`` (EncodedTable): Targets, coded like the training table. ``draw`` (int, default 0): Which of
    the model's parameter sets (noise draws) to use. ``attack`` (str): The result's name. ``resources`` (mapping,
    optional): E.g. ``{"epsilon": 1.0, "queries": n_cells * n_sa}``.
    """
    draw = check_int("draw", int(draw) if isinstance(draw, np.integer) else draw, low=0, high=model.draws - 1)
    combos, inv = np.unique(table.qi_codes, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    scores = log_scores(model, combos)[draw]  # (U, S), as evaluate_model computes them
    pred = scores.argmax(axis=-1)[inv]
    conf = _softmax(scores).max(axis=-1)[inv]
    return AttackResult(attack, np.arange(table.n), np.asarray(table.sa_codes), np.ones(table.n, dtype=bool),
                        pred, confidence=conf, resources=dict(resources or {}))


# ---------------------------------------------------------------------------
# scoring a model on a table (vectorised over distinct QI combinations)
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Compressed:
    combos: np.ndarray  # (U, m) distinct QI code vectors
    counts: np.ndarray  # (U, S) tuples per (combo, true SA value)


def distinct_combinations(table: EncodedTable) -> tuple[np.ndarray, np.ndarray]:
    """The distinct QI combinations of ``table`` and the index of each tuple's, as ``np.unique(axis=0)`` gives them.

    Each row is coded as one mixed-radix integer :math:`\\sum_i x_i \\prod_{j>i} |T_j|`, whose order is the rows'
    lexicographic order, so a 1-d ``np.unique`` gives the same combinations and indices as the row-wise one, several
    times faster.

    Returns: ``combos`` (numpy.ndarray, shape (U, m)). ``inverse`` (numpy.ndarray, shape (n,)).

    Examples
    --------
    >>> from anonlab.mechanisms.dp import encode_table
    >>> t = encode_table(pd.DataFrame({"a": ["x", "y", "x"], "b": ["u", "u", "v"], "s": [0, 1, 0]}), ["a", "b"], "s")
    >>> combos, inv = distinct_combinations(t)
    >>> combos.tolist(), inv.tolist()
    ([[0, 0], [0, 1], [1, 0]], [0, 2, 1])
    """
    codes = np.asarray(table.qi_codes, dtype=np.int64)
    card = np.asarray(table.cardinalities, dtype=np.int64)
    radix = np.concatenate([np.cumprod(card[::-1])[::-1][1:], [1]]).astype(np.int64)
    ukeys, inv = np.unique(codes @ radix, return_inverse=True)
    return (ukeys[:, None] // radix[None, :]) % card[None, :], inv.reshape(-1)


def _compress(table: EncodedTable) -> _Compressed:
    combos, inv = distinct_combinations(table)
    counts = np.bincount(inv * table.n_sa + table.sa_codes,
                         minlength=len(combos) * table.n_sa).reshape(len(combos), table.n_sa)
    return _Compressed(combos=combos, counts=counts)


def evaluate_model(
    model: NaiveBayesModel, table: EncodedTable, *, threshold: float = 0.8,
    _compressed: _Compressed | None = None,
) -> pd.DataFrame:
    """Accuracy of a model on a table, overall and on the high-confidence subset.

    Parameters: ``table`` (EncodedTable): Targets, coded like the training table (same domains). ``threshold`` (float,
    default 0.8): Belief above which a prediction counts as high-confidence (Fig. 3).

    Returns: pandas.DataFrame: One row per draw: ``draw, n, accuracy, n_confident, confident_share,
    confident_accuracy`` (NaN when no tuple is confident).
    """
    comp = _compressed or _compress(table)
    scores = log_scores(model, comp.combos)  # (D, U, S)
    pred = scores.argmax(axis=-1)  # (D, U)
    post_max = _softmax(scores).max(axis=-1)
    correct = np.take_along_axis(np.broadcast_to(comp.counts, scores.shape), pred[..., None], -1)[..., 0]
    sizes = comp.counts.sum(axis=1)[None, :]
    conf = post_max > threshold
    n = table.n
    n_conf = (sizes * conf).sum(axis=1)
    conf_correct = (correct * conf).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        conf_acc = np.where(n_conf > 0, conf_correct / np.maximum(n_conf, 1), np.nan)
    return pd.DataFrame({
        "draw": np.arange(model.draws),
        "n": n,
        "accuracy": correct.sum(axis=1) / n if n else np.nan,
        "n_correct": correct.sum(axis=1),
        "n_confident": n_conf,
        "confident_share": n_conf / n if n else np.nan,
        "confident_accuracy": conf_acc,
    })


def _seeds(seed: int | np.random.Generator | None, k: int) -> list[np.random.Generator]:
    """``k`` independent generators spawned from ``seed`` (an int ``s`` spawns ``SeedSequence(s)``)."""
    return list(check_random_state(seed).spawn(k))


def naive_attack(
    train: EncodedTable,
    epsilons: Sequence[float],
    *,
    targets: Mapping[str, EncodedTable] | None = None,
    draws: int = 9,
    noise: str = "geometric",
    threshold: float = 0.8,
    dirichlet: bool = False,
    seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Run the naive attack over an ε grid, several noise draws each (Cormode 2011, Figs 1-3).

    For every ε: release the pair counts of ``train`` with ``draws`` independent noise draws (sensitivity :math:`m`),
    build the NB classifier of :func:`naive_bayes_from_counts` (or draw it, ``dirichlet=True``) and score its
    predictions on each target table.

    Parameters: ``train`` (EncodedTable): The data the owner releases counts of. ``epsilons`` (sequence of float):
    Each > 0; ``math.inf`` gives the noiseless classifier (one draw). ``targets`` (mapping of str to EncodedTable,
    optional): Tables to attack, by name; default ``{"train": train}``. Use e.g. ``{"train": train, "test": test}``
    for Fig. 1's train/test curves. ``draws`` (int, default 9): Noise draws per ε (the paper's nine iterations).
    ``noise`` ({"geometric", "laplace"}). ``dirichlet`` (bool, default False): Footnote 2's variant. ``seed`` (int or
    numpy.random.Generator, optional): Same seed, same numbers; each ε gets its own independent stream.

    Returns: pandas.DataFrame: One row per (ε, draw, target): ``epsilon, draw, split, n, accuracy, n_correct,
    n_confident, confident_share, confident_accuracy``.
    """
    targets = dict(targets or {"train": train})
    for name, t in targets.items():
        if t.qi_names != train.qi_names or not np.array_equal(t.cardinalities, train.cardinalities):
            raise ValueError(f"target {name!r} is not coded like the training table (same QIs and domains)")
    models = naive_attack_models(train, epsilons, draws=draws, noise=noise, dirichlet=dirichlet, seed=seed)
    comps = {name: _compress(t) for name, t in targets.items()}
    frames = []
    for eps, model in models:
        for name, t in targets.items():
            res = evaluate_model(model, t, threshold=threshold, _compressed=comps[name])
            res.insert(0, "split", name)
            res.insert(0, "epsilon", eps)
            frames.append(res)
    return pd.concat(frames, ignore_index=True)


def naive_attack_models(
    train: EncodedTable,
    epsilons: Sequence[float],
    *,
    draws: int = 9,
    noise: str = "geometric",
    dirichlet: bool = False,
    seed: int | np.random.Generator | None = None,
) -> list[tuple[float, NaiveBayesModel]]:
    """The classifiers :func:`naive_attack` scores: one model (``draws`` parameter sets) per ε.

    Same arguments and seeds as :func:`naive_attack`, so the models are exactly those behind its numbers (turn one
    draw into an :class:`~anonlab.measures.AttackResult` with :func:`naive_bayes_result`). ``math.inf`` gives the
    noiseless classifier, with a single draw unless ``dirichlet``.

    Returns: list of (epsilon, NaiveBayesModel), in the order of ``epsilons``.
    """
    eps_list = [float(e) for e in epsilons]
    if not eps_list:
        raise ValueError("epsilons must hold at least one value")
    for e in eps_list:  # math.inf: the noiseless classifier
        if e != math.inf:
            check_number("epsilon", e, low=0, low_inclusive=False)
    out = []
    for eps, rng in zip(eps_list, _seeds(seed, len(eps_list))):
        d = 1 if math.isinf(eps) and not dirichlet else draws
        rel = release_counts(train, eps, noise=noise, draws=d, seed=rng)
        model = (dirichlet_naive_bayes(rel, seed=rng) if dirichlet
                 else naive_bayes_from_counts(rel))
        out.append((eps, model))
    return out


def summarize_attack(results: pd.DataFrame) -> pd.DataFrame:
    """Min, mean and max over draws of each measure, per (ε, split).

    The paper plots min / mean / max over its nine draws (Fig. 1).
    """
    cols = ["accuracy", "confident_share", "n_confident", "confident_accuracy"]
    g = results.groupby(["split", "epsilon"], sort=True)[cols]
    out = g.agg(["min", "mean", "max"])
    out.columns = [f"{a}_{b}" for a, b in out.columns]
    return out.reset_index()


@dataclass(frozen=True)
class NaiveRun:
    """The naive attack on one target: per-draw results, their summary (:func:`summarize_attack`), seconds."""

    results: pd.DataFrame
    summary: pd.DataFrame
    seconds: float

    def curve(self, split: str = "train") -> pd.DataFrame:
        """The summary rows of one split over the finite ε grid, by increasing ε."""
        s = self.summary
        return s[(s["split"] == split) & np.isfinite(s["epsilon"])].sort_values("epsilon")

    def noiseless(self, split: str = "train", col: str = "accuracy") -> float:
        """Mean ``col`` of the classifier built from exact counts (ε = ∞)."""
        s = self.summary
        return float(s[(s["split"] == split) & np.isinf(s["epsilon"])][f"{col}_mean"].iloc[0])

    def at_eps(self, eps: float, split: str = "train", col: str = "accuracy_mean") -> float | None:
        """``col`` at ε = ``eps``, or ``None`` when ``eps`` is not in the grid."""
        c = self.curve(split)
        hit = c[np.isclose(c["epsilon"], eps)]
        return float(hit[col].iloc[0]) if len(hit) else None

    def draws(self, eps: float, col: str = "accuracy", split: str = "train") -> np.ndarray:
        """The per-draw values of ``col`` at ε = ``eps`` (NaN dropped; empty when ``eps`` is not in the grid)."""
        R = self.results
        v = R.loc[(R["split"] == split) & np.isclose(R["epsilon"], eps), col].to_numpy(dtype=float)
        return v[np.isfinite(v)]


def train_test_gap(runs: Mapping[str, NaiveRun], targets: Sequence[str]) -> tuple[float, tuple[float, float], str]:
    """Train − test accuracy where it is largest: (mean over draws, its :func:`mean_interval`, where).

    Each draw's noisy classifier scores both files, so the difference is taken per draw (paired) and averaged; the
    (target, finite ε) with the largest absolute mean difference is reported.
    """
    best: tuple[float, tuple[float, float], str] = (0.0, (0.0, 0.0), "")
    for sa in targets:
        R = runs[sa].results
        wide = R[np.isfinite(R["epsilon"])].pivot_table(index=["epsilon", "draw"], columns="split", values="accuracy")
        for eps, d in (wide["train"] - wide["test"]).groupby(level="epsilon"):
            if not best[2] or abs(d.mean()) > abs(best[0]):
                best = (float(d.mean()), mean_interval(d.to_numpy()), f"{sa}, eps = {eps:g}")
    return best


def median_of_means(run: NaiveRun, col: str, *, seed: int, resamples: int = 2000) -> tuple[float, tuple[float, float]]:
    """The median over the finite ε grid of the mean over draws of ``col`` (train), and its 95% interval.

    The interval is a percentile bootstrap: the draws of each ε are resampled with replacement (independently per ε,
    ``resamples`` times, generator ``seed``) and the statistic recomputed.
    """
    R = run.results
    R = R[(R["split"] == "train") & np.isfinite(R["epsilon"])]
    X = R.pivot_table(index="epsilon", columns="draw", values=col).to_numpy(dtype=float)  # (ε, draws)
    idx = np.random.default_rng(seed).integers(0, X.shape[1], size=(resamples, *X.shape))
    boot = np.median(np.take_along_axis(np.broadcast_to(X, idx.shape), idx, axis=2).mean(axis=2), axis=1)
    return float(np.median(X.mean(axis=1))), percentile_interval(boot)


def naive_attack_runs(tables: Mapping[str, tuple[EncodedTable, EncodedTable | None]], epsilons: Sequence[float],
                      *, draws: int, noise: str, threshold: float, dirichlet: bool, seed: int) -> dict[str, NaiveRun]:
    """Cormode's Fig. 1 experiment for every target: the ε grid plus the noiseless classifier, train and test.

    ``tables`` maps each target to its (train, test or ``None``) tables; target ``i`` (in order) uses seed
    ``legacy_seed(seed, "naive_bayes.target", i)``.
    """
    out = {}
    for i, (sa, (tr, te)) in enumerate(tables.items()):
        targets = {"train": tr} if te is None else {"train": tr, "test": te}
        t0 = time.perf_counter()
        res = naive_attack(tr, list(epsilons) + [math.inf], targets=targets, draws=draws, noise=noise,
                           threshold=threshold, dirichlet=dirichlet,
                           seed=legacy_seed(seed, "naive_bayes.target", i))
        out[sa] = NaiveRun(res, summarize_attack(res), time.perf_counter() - t0)
    return out


def report_epsilon(epsilons: Sequence[float]) -> float:
    """The grid's ε nearest to 1 on a log scale: the naive attack kept for the book's yardstick.

    >>> report_epsilon([0.01, 0.1, 2.0]), report_epsilon([0.01, 0.5, 5.0])
    (2.0, 0.5)
    """
    return float(min(epsilons, key=lambda e: (abs(math.log(e)), e)))


def recode_like(table: EncodedTable, like: EncodedTable) -> EncodedTable:
    """``table``'s tuples coded in ``like``'s domains (by label), those with a value ``like`` lacks dropped.

    Both tables must have the same quasi-identifiers (names, in order) and sensitive attribute. A value of ``table``
    outside ``like``'s domain of its column (a category no target has) cannot be counted in ``like``'s coding; its
    tuple is left out.

    >>> import pandas as pd
    >>> from anonlab.mechanisms.dp import encode_table
    >>> a = encode_table(pd.DataFrame({"q": ["x", "y"], "s": ["u", "v"]}), ["q"], "s")
    >>> b = encode_table(pd.DataFrame({"q": ["y", "z", "x"], "s": ["v", "v", "u"]}), ["q"], "s")
    >>> r = recode_like(b, a)
    >>> r.n, list(a.qi_domains[0][r.qi_codes[:, 0]]), list(a.sa_domain[r.sa_codes])
    (2, ['y', 'x'], ['v', 'u'])
    """
    if tuple(table.qi_names) != tuple(like.qi_names) or table.sa_name != like.sa_name:
        raise ValueError(f"recode_like: the tables differ in their attributes ({list(table.qi_names)} -> "
                         f"{table.sa_name} against {list(like.qi_names)} -> {like.sa_name})")

    def codes(values: np.ndarray, domain: np.ndarray, target: np.ndarray) -> np.ndarray:
        where = {str(v): i for i, v in enumerate(target)}
        lookup = np.array([where.get(str(v), -1) for v in domain], dtype=np.int64)
        return lookup[np.asarray(values, dtype=np.int64)]

    qi = np.column_stack([codes(table.qi_codes[:, i], table.qi_domains[i], like.qi_domains[i])
                          for i in range(len(like.qi_names))]) if like.qi_names else table.qi_codes
    sa = codes(table.sa_codes, table.sa_domain, like.sa_domain)
    keep = (sa >= 0) & (qi >= 0).all(axis=1)
    return EncodedTable(like.qi_names, like.sa_name, like.qi_domains, like.sa_domain, qi[keep], sa[keep])


def nonmember_naive_bayes(targets: EncodedTable, non_members: EncodedTable, *,
                          name: str | None = None) -> AttackResult:
    """The non-member baseline of a naive-Bayes attack: the same classifier fitted on other people ([FW24] §4).

    Naive Bayes from the exact counts of ``non_members`` (recoded into the targets' domains, :func:`recode_like`)
    predicts every tuple of ``targets``, as :func:`naive_bayes_result` does; scored against the attack, PI is what the
    release of the targets' own data adds.
    """
    others = recode_like(non_members, targets)
    if others.n == 0:
        raise ValueError("nonmember_naive_bayes: no non-member tuple can be coded like the targets")
    model = naive_bayes_from_counts(release_counts(others, math.inf))
    label = name or f"non-member baseline: {targets.sa_name} (naive Bayes on {others.n:,} non-members)"
    res = naive_bayes_result(model, targets, attack=label, resources={"non_members": float(others.n)})
    return replace(res, baseline_kind=NONMEMBER_MODEL)


def baseline_on(targets: EncodedTable, non_members: EncodedTable | None) -> AttackResult:
    """The strongest baseline a table allows: :func:`nonmember_naive_bayes` when there are non-members, else
    the majority guess (:func:`~anonlab.measures.majority_baseline`, a weaker prior, marked as such)."""
    if non_members is None:
        return majority_baseline(targets.sa_codes)
    return nonmember_naive_bayes(targets, non_members)


def naive_attack_records(tables: Mapping[str, tuple[EncodedTable, EncodedTable | None]], epsilons: Sequence[float],
                         *, draws: int, noise: str, threshold: float, dirichlet: bool,
                         seed: int) -> dict[str, tuple[AttackResult, AttackResult]]:
    """The naive attack as :class:`~anonlab.measures.AttackResult`\\ s with their baselines on the same tuples.

    Per target: the first noise draw at :func:`report_epsilon`, on the training tuples, all of them and those with
    belief above ``threshold`` (``at_threshold(strictly_above(threshold))``). The models are those of Fig. 1
    (:func:`naive_attack_runs`' seeds), so the accuracy is draw 0 of that experiment. The baseline is
    :func:`baseline_on`: naive Bayes fitted on the withheld test tuples (non-members) where the table has them, else
    the majority guess.
    """
    eps = report_epsilon(epsilons)
    eps_list = list(epsilons) + [math.inf]
    out = {}
    for i, (sa, (tr, te)) in enumerate(tables.items()):
        models = naive_attack_models(tr, eps_list, draws=draws, noise=noise, dirichlet=dirichlet,
                                     seed=legacy_seed(seed, "naive_bayes.target", i))
        name = f"naive Bayes on ε-DP counts (ε = {eps:g}), {sa}"
        res = naive_bayes_result(dict(models)[eps], tr, draw=0, attack=name,
                                 resources={"epsilon": eps, "queries": tr.n_cells * tr.n_sa})
        base = baseline_on(tr, te)
        out[name] = (res, base)
        high_name = f"{name}, belief > {threshold:g}"
        out[high_name] = (replace(res.at_threshold(strictly_above(threshold)), attack=high_name), base)
    return out


def nonmember_table(naive: Mapping[str, NaiveRun],
                    tables: Mapping[str, tuple[EncodedTable, EncodedTable | None]]) -> pd.DataFrame:
    """Members (train) against non-members (test) per ε: accuracy, Wilson interval, PI ([FW24] Eq 6)."""
    rows = []
    for sa, (tr, te) in tables.items():
        if te is None:
            continue
        a, b = naive[sa].curve("train"), naive[sa].curve("test")
        for (_, ra), (_, rb) in zip(a.iterrows(), b.iterrows()):
            lo, hi = wilson_interval(int(round(ra["accuracy_mean"] * tr.n)), tr.n)
            ca, cb = ra["confident_accuracy_mean"], rb["confident_accuracy_mean"]
            rows.append({"target": sa, "epsilon": ra["epsilon"], "members (train)": ra["accuracy_mean"],
                         "95% CI": f"[{lo:.3f}, {hi:.3f}]", "non-members (test)": rb["accuracy_mean"],
                         "PI": precision_improvement(ra["accuracy_mean"], rb["accuracy_mean"]),
                         "PI, belief > threshold": precision_improvement(ca, cb)
                         if np.isfinite(ca) and np.isfinite(cb) else np.nan})
    return pd.DataFrame(rows)


def accuracy_vs_attributes(
    df: pd.DataFrame,
    sensitive: str,
    attribute_order: Sequence[str],
    epsilons: Sequence[float],
    *,
    draws: int = 9,
    noise: str = "geometric",
    domains: Mapping[str, Sequence[str]] | None = None,
    seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Naive-attack accuracy as quasi-identifiers are added one by one (Cormode 2011, §2.5).

    With the first :math:`m` attributes of ``attribute_order`` as QIs the sensitivity is :math:`s_q = m`, so each
    added attribute brings more evidence *and* more noise per count (:math:`\\alpha = e^{-\\epsilon/m}`).

    Returns: pandas.DataFrame: One row per (m, ε, draw): ``m, added, sensitivity, epsilon, draw, accuracy``.
    """
    order = list(attribute_order)
    full = encode_table(df, order, sensitive, domains=domains)
    frames = []
    rngs = _seeds(seed, len(order))
    for m in range(1, len(order) + 1):
        t = full.with_qis(order[:m])
        res = naive_attack(t, epsilons, draws=draws, noise=noise, seed=rngs[m - 1])
        res.insert(0, "sensitivity", query_sensitivity(m))
        res.insert(0, "added", order[m - 1])
        res.insert(0, "m", m)
        frames.append(res[["m", "added", "sensitivity", "epsilon", "draw", "accuracy"]])
    return pd.concat(frames, ignore_index=True)


def tradeoff_table(df: pd.DataFrame, sensitive: str, attributes: Sequence[str], epsilons: Sequence[float], *,
                   draws: int = 9, noise: str = "geometric", seed: int | None = None) -> pd.DataFrame:
    """§2.5's trade-off: mean accuracy with the first m ``attributes`` as QIs, per m (rows) and ε (columns).

    :func:`accuracy_vs_attributes` on the tuples with a known ``sensitive`` value (the target left out of the
    attributes), noiseless classifier added.
    """
    order = [a for a in attributes if a != sensitive]
    trade = accuracy_vs_attributes(df[df[sensitive].notna()], sensitive, order, list(epsilons) + [math.inf],
                                   draws=draws, noise=noise, seed=seed)
    return trade.groupby(["m", "added", "epsilon"])["accuracy"].mean().unstack("epsilon")


def timed_naive_attack(
    load: Callable[[], pd.DataFrame],
    prepare: Callable[[pd.DataFrame], pd.DataFrame],
    quasi_identifiers: Sequence[str],
    sensitive: str,
    epsilon: float,
    *,
    noise: str = "geometric",
    seed: int | None = None,
) -> tuple[float, float]:
    """Wall-clock seconds of the whole naive attack, as timed in Cormode (2011) §2.3.

    Times: loading the data (``load()``), preparing it (``prepare``, e.g. bucketing hours), computing the counts,
    adding the noise, building the classifier and classifying every tuple.
    """
    t0 = time.perf_counter()
    df = prepare(load())
    df = df[df[sensitive].notna()]
    table = encode_table(df, quasi_identifiers, sensitive)
    model = naive_bayes_from_counts(release_counts(table, epsilon, noise=noise, seed=seed))
    pred = predict(model, table.qi_codes)[0]
    acc = float(np.mean(pred == table.sa_codes))
    return time.perf_counter() - t0, acc


def naive_attack_vs_nonmember_baseline(
    table: pd.DataFrame,
    split: Any,
    kinds: Mapping[str, str],
    settings: Any,
    *,
    epsilon: float,
    threshold: float,
    quasi_identifiers: Sequence[str] = ("workclass", "education", "sex", "hours", "income"),
    sensitive: str = "occupation",
    hours_buckets: Sequence[float] = (25, 40, 60),
    seed: int = 0,
) -> tuple[dict[str, AttackResult], dict[str, AttackResult]]:
    """The naive attack on Adult, with the non-member baselines of the same targets ([FW24] §4.3).

    The owner releases ε-DP pair counts of the whole ``table`` (the targets, ``split``'s non-members, are *in* it);
    the attack predicts their occupation from workclass, education, sex, hours (bucketed as in chapter 2) and income.
    The baselines, fitted on the members only: :func:`~anonlab.measures.nonmember.nonmember_baseline` (``kinds``,
    ``settings``) and naive Bayes on the members' exact counts. Returns the attack's results (all targets; beliefs
    above ``threshold``) and the two baselines.
    """
    from anonlab.measures import nonmember as nm

    t = table.assign(hours=bucketize(table["hours_per_week"], hours_buckets))
    enc = encode_table(t, list(quasi_identifiers), sensitive)
    model = naive_bayes_from_counts(release_counts(enc, epsilon, seed=seed))
    pos = pd.Index(t.index).get_indexer(split.non_members)
    post = posterior(model, enc.qi_codes[pos])[0]
    guess = enc.sa_domain[post.argmax(axis=1)].astype(object)
    truth = t.loc[split.non_members, sensitive].to_numpy()
    conf = post.max(axis=1)
    everyone = AttackResult(f"naive attack (ε = {epsilon:g})", split.non_members, truth,
                            np.ones(truth.size, dtype=bool), guess, confidence=conf,
                            resources={"counts_released": float(enc.qi_codes.shape[1])})
    confident = AttackResult(f"naive attack (ε = {epsilon:g}, belief > {threshold:g})", split.non_members, truth,
                             conf > threshold, guess, confidence=conf,
                             resources={"counts_released": float(enc.qi_codes.shape[1])})
    base = nm.nonmember_baseline(t, sensitive, members=split.members, targets=split.non_members,
                                 known=list(quasi_identifiers), kinds={**kinds, "hours": nm.CATEGORICAL},
                                 settings=settings)
    # the same naive-Bayes analysis, fitted on the members' exact counts: also a non-member analysis
    mpos = pd.Index(t.index).get_indexer(split.members)
    members_enc = replace(enc, qi_codes=enc.qi_codes[mpos], sa_codes=enc.sa_codes[mpos])
    nb_post = posterior(naive_bayes_from_counts(release_counts(members_enc, math.inf)), enc.qi_codes[pos])[0]
    nb_base = AttackResult(f"non-member baseline: {sensitive} (naive Bayes on the members)", split.non_members,
                           truth, np.ones(truth.size, dtype=bool), enc.sa_domain[nb_post.argmax(axis=1)].astype(object),
                           confidence=nb_post.max(axis=1), baseline_kind=NONMEMBER_MODEL)
    return {"all targets": everyone, "confident": confident}, {"logistic regression": base, "naive Bayes": nb_base}

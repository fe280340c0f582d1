"""The figures and tables of chapter 2: Cormode (2011), the naive attack on ε-DP counts and the deFinetti attack.

Each figure function draws one figure of the chapter and returns it;
``paper`` is the run's look-up of a reported value
(:meth:`anonbook.chapters.kit.ChapterRun.paper`), drawn as the book draws the
paper's values (:mod:`anonbook.plotting`). The table functions return the
tables the chapter shows beside them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from anonbook import plotting
from anonlab.attacks.definetti import METHODS, DeFinettiSweep, Fig4
from anonlab.attacks.naive_bayes import NaiveRun, naive_attack, summarize_attack
from anonbook.chapters.ch02_dp_vs_definetti import DEFAULT_READING, FIG1_IDS, PAPER_SHARE, USUAL_EPS, \
    headline_numbers, timing_claim_id
from anonlab.claims import Measurement
from anonbook.explore import Series
from anonlab.measures import AttackResult, majority_baseline, score, yardstick
from anonlab.mechanisms.dp import EncodedTable, encode_train_test

Tables = Mapping[str, tuple[EncodedTable, EncodedTable | None]]
Paper = Callable[[str], float]

#: Width of every figure (inches): 803 px at the book's 110 dpi, within the 857 px the text column allows.
WIDTH = 7.3

METHOD_COLORS = {"permutation": "tab:red", "group": "tab:blue", "open": "tab:green"}
GROUP_NAMES = {1: "tight groups (size l)", 2: "larger groups (size 2l)", 3: "groups of size 3l"}


def _group_name(mult: int) -> str:
    return GROUP_NAMES.get(mult, f"size {mult}l")


def _majority_accuracy(table: EncodedTable) -> float:
    return score(majority_baseline(table.sa_codes)).precision


def _grid(n: int, row_height: float, *, sharey: bool = False, spare: bool = False):
    """``n`` panels in rows of at most two, the book's column width; ``spare`` keeps an odd grid's empty cell.

    Returns the figure, the ``n`` panels in reading order, and the empty cell (or ``None``).
    """
    cols = 1 if n == 1 else 2
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(WIDTH, row_height * rows), squeeze=False, sharey=sharey)
    flat = list(axes.ravel())
    empty = flat[n] if len(flat) > n else None
    if empty is not None:
        empty.set_axis_off()
    return fig, flat[:n], (empty if spare else None)


def _handles(axes: Sequence[Axes]) -> tuple[list, list[str]]:
    """The legend entries of all ``axes``, each label once, in the order they were drawn."""
    seen: dict[str, object] = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, h)
    return list(seen.values()), list(seen)


def _legend(fig, axes: Sequence[Axes], empty: Axes | None = None, ncol: int = 2) -> None:
    """One legend for the figure: in the grid's empty cell when there is one, else below the panels."""
    handles, labels = _handles(axes)
    fig.tight_layout()
    if empty is not None:
        empty.legend(handles, labels, loc="center")
    else:
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol)


def fig1(naive: Mapping[str, NaiveRun], tables: Tables, paper: Paper):
    """Fig. 1: accuracy against ε (band: min-max over draws), noiseless classifier, majority baselines.

    One panel per target, two per row, one legend below them.
    """
    fig, axes, _ = _grid(len(tables), 3.1)
    for ax, (sa, (tr, te)) in zip(axes, tables.items()):
        for split in (["train", "test"] if te is not None else ["train"]):
            c = naive[sa].curve(split)
            plotting.measured_band(ax, c["epsilon"], c["accuracy_min"], c["accuracy_mean"], c["accuracy_max"],
                                   label=f"naive attack, {split}")
        ax.axhline(naive[sa].noiseless(), color="tab:green", linestyle=":", label="noiseless classifier")
        ax.axhline(_majority_accuracy(tr), color="grey", label="majority baseline (measured)")
        if sa in FIG1_IDS:
            plotting.paper_hline(ax, paper(FIG1_IDS[sa] + ".majority_baseline"), label="majority baseline (paper)")
        ax.set(xscale="log", xlabel="ε", ylabel="accuracy", title=f"{sa} (m = {tr.m})")
    _legend(fig, axes)
    return fig


def fig3(naive: Mapping[str, NaiveRun], tables: Tables, threshold: float, paper: Paper, *, adult: bool):
    """Fig. 3: per target (one row each), the share of tuples with belief above the threshold (left) and
    their accuracy (right); one legend below."""
    fig, axes = plt.subplots(len(tables), 2, figsize=(WIDTH, 2.9 * len(tables)), squeeze=False)
    for j, (sa, (_, te)) in enumerate(tables.items()):
        share, acc = axes[j]
        for split in (["train", "test"] if te is not None else ["train"]):
            c = naive[sa].curve(split)
            plotting.measured_band(share, c["epsilon"], c["confident_share_min"], c["confident_share_mean"],
                                   c["confident_share_max"], label=f"belief > {threshold:g}, {split}")
            plotting.measured_band(acc, c["epsilon"], c["confident_accuracy_min"], c["confident_accuracy_mean"],
                                   c["confident_accuracy_max"], label=f"belief > {threshold:g}, {split}")
        c = naive[sa].curve()
        acc.plot(c["epsilon"], c["accuracy_mean"], color="grey", label="all tuples, train")
        if sa in PAPER_SHARE:
            plotting.paper_hline(share, paper(PAPER_SHARE[sa]), label="paper's share (ε not stated)")
        if adult:
            plotting.paper_hline(acc, paper("cormode.fig3.confident_accuracy_085"), linestyle="-.",
                                 label="paper: accuracy up to 85% 'in some cases'")
        share.set(xscale="log", xlabel="ε", ylabel="share, belief high", title=f"{sa}: share")
        acc.set(xscale="log", xlabel="ε", ylabel="accuracy", title=f"{sa}: accuracy")
    _legend(fig, list(axes.ravel()))
    return fig


def timing(seconds: float, paper: Paper, *, adult: bool):
    """The whole attack's time here against the paper's."""
    fig, ax = plt.subplots(figsize=(5, 2.2))
    ax.barh(["this book"], [seconds], color="tab:blue")
    ax.barh(["paper (2011)"], [paper(timing_claim_id(adult))], color="white", edgecolor="black", linestyle="--")
    ax.set_xlabel("seconds for the whole naive attack")
    plt.tight_layout()
    return fig


def fig4(f: Fig4, paper: Paper, *, adult: bool):
    """Fig. 4: accuracy of the three methods against l, one panel per group size (two per row; the legend in
    the grid's empty cell, or below)."""
    S, L = f.summary, f.l_grid
    fig, axes, empty = _grid(len(f.multipliers), 3.0, sharey=True, spare=True)
    for ax, mult in zip(axes, f.multipliers):
        for m in METHODS:
            s = S[(S["multiplier"] == mult) & (S["method"] == m)].sort_values("l")
            plotting.measured_band(ax, s["l"], s["accuracy_min"], s["accuracy_mean"], s["accuracy_max"],
                                   label=m, color=METHOD_COLORS[m])
        ax.axhline(f.noiseless, color="black", linestyle=":", label="noiseless classifier")
        ax.plot(L, [1 / l for l in L], color="grey", linestyle="-.", label="1/l")
        if adult and mult == 1 and 7 in L:
            plotting.paper_points(ax, [7], [paper("cormode.fig4a.l7_below_30pct")],
                                  label="paper: below 30% at l = 7 (tight)")
        if adult and mult == 2 and 5 in L:
            ax.axvline(5, **plotting.PAPER_STYLE, label="paper: below noiseless from l = 5 (2l)")
        ax.set(xlabel="l", ylabel="accuracy", title=_group_name(mult), xticks=L)
        ax.yaxis.set_tick_params(labelleft=True)
    _legend(fig, axes, empty)
    return fig


def convergence(sweep: DeFinettiSweep, l_grid: Sequence[int], multipliers: Sequence[int]):
    """Median L1 distance between successive joint distributions over repetitions, per l (two panels per row)."""
    tr = sweep.traces
    fig, axes, empty = _grid(len(multipliers), 2.9, sharey=True, spare=True)
    for ax, mult in zip(axes, multipliers):
        for l in l_grid:  # noqa: E741
            t = tr[(tr["multiplier"] == mult) & (tr["l"] == l)].groupby("iteration")["l1"].median()
            ax.plot(t.index, t.values, label=f"l = {l}")
        ax.set(xscale="log", yscale="log", xlabel="iteration", ylabel="L1, successive joints",
               title=_group_name(mult))
        ax.yaxis.set_tick_params(labelleft=True)
    _legend(fig, axes, empty, ncol=min(len(l_grid), 4))
    return fig


def headline(naive_summary: pd.DataFrame, f: Fig4, table: EncodedTable):
    """The naive attack across ε (left) and the deFinetti attack across l (right), on one scale."""
    nd, target = naive_summary, table.sa_name
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(WIDTH, 3.3), sharey=True)
    plotting.measured_band(a1, nd["epsilon"], nd["accuracy_min"], nd["accuracy_mean"], nd["accuracy_max"],
                           label="naive attack on ε-DP counts")
    a1.axvspan(*USUAL_EPS, color="grey", alpha=0.1, label="ε usual in practice (0.1-1)")
    a1.set(xscale="log", xlabel="ε", ylabel=f"accuracy ({target})", title="differential privacy")
    for mult in f.multipliers:
        a2.plot(f.l_grid, [f.best(mult, l) for l in f.l_grid], marker="o",
                label=f"deFinetti, best method, {_group_name(mult)}")
    a2.set(xlabel="l", title="Anatomy + deFinetti", xticks=f.l_grid)
    for ax in (a1, a2):
        ax.axhline(f.noiseless, color="black", linestyle=":", label="noiseless classifier")
        ax.axhline(_majority_accuracy(table), color="grey", label="majority baseline")
    _legend(fig, [a1, a2])
    return fig


def nonmember(table: pd.DataFrame, threshold: float):
    """PI over the non-member baseline against ε, all tuples and the high-confidence subset; legend below."""
    fig, ax = plt.subplots(figsize=(WIDTH, 3.3))
    for sa, g in table.groupby("target"):
        ax.plot(g["epsilon"], g["PI"], marker="o", label=f"{sa}, all tuples")
        ax.plot(g["epsilon"], g["PI, belief > threshold"], marker="x", linestyle="--",
                label=f"{sa}, belief > {threshold:g}")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set(xscale="log", xlabel="ε", ylabel="PI over non-members")
    _legend(fig, [ax])
    return fig


def tradeoff(ts: pd.DataFrame, target: str):
    """§2.5: accuracy against the number of attributes m, one line per ε; legend below."""
    fig, ax = plt.subplots(figsize=(WIDTH, 3.6))
    for eps in ts.columns:
        ax.plot(ts.index.get_level_values("m"), ts[eps], marker="o",
                label="noiseless" if math.isinf(eps) else f"ε = {eps:g}")
    ax.set_xticks(ts.index.get_level_values("m"))
    ax.set_xticklabels([f"{m}: {a}" for m, a in ts.index], rotation=35, ha="right")
    ax.set(xlabel="m (attribute added)", ylabel="accuracy", title=f"target {target}")
    _legend(fig, [ax], ncol=min(len(ts.columns), 3))
    return fig


# ---------------------------------------------------------------------------
# the explorable figure: Fig. 1 with a slider over the attributes the attacker knows
# ---------------------------------------------------------------------------


def known_attributes(qi_pool: Sequence[str], more: Sequence[str], sensitive: str) -> list[str]:
    """The attributes the slider adds one by one: Fig. 1's QIs (``qi_pool`` without the target) in their order,
    then those of §2.5's ``more`` not yet in, so the first m = Fig. 1's m give Fig. 1's own table."""
    first = [a for a in qi_pool if a != sensitive]
    return first + [a for a in more if a != sensitive and a not in first]


def accuracy_frame(train: pd.DataFrame, test: pd.DataFrame | None, sensitive: str, attributes: Sequence[str],
                   epsilons: Sequence[float], *, draws: int, noise: str, threshold: float, dirichlet: bool,
                   seed: int) -> dict[str, tuple[list[float], list[float]]]:
    """One frame: Fig. 1's experiment (:func:`naive_attack` on the training file, coded like Fig. 1's tables by
    :func:`encode_train_test`, same seed) with ``attributes`` as the quasi-identifiers, so m = len(attributes).

    Series: the mean accuracy over the draws per ε, the noiseless classifier and the majority baseline (flat).
    """
    tr, _ = encode_train_test(train, test, list(attributes), sensitive)
    res = naive_attack(tr, list(epsilons) + [math.inf], draws=draws, noise=noise, threshold=threshold,
                       dirichlet=dirichlet, seed=seed)
    c = summarize_attack(res).sort_values("epsilon")
    noisy = c[np.isfinite(c["epsilon"])]
    ends = [float(noisy["epsilon"].min()), float(noisy["epsilon"].max())]
    exact = float(c.loc[~np.isfinite(c["epsilon"]), "accuracy_mean"].iloc[0])
    base = _majority_accuracy(tr)
    return {"naive attack (mean of the draws)": (noisy["epsilon"].tolist(), noisy["accuracy_mean"].tolist()),
            "noiseless classifier": (ends, [exact, exact]), "majority baseline": (ends, [base, base])}


def explore_known_attributes(run, train: pd.DataFrame, test: pd.DataFrame | None, sensitive: str,
                             attributes: Sequence[str], m_own: int, epsilons: Sequence[float], *, draws: int,
                             noise: str, threshold: float, dirichlet: bool, seed: int, claim_id: str | None,
                             key: Mapping[str, object]):
    """Fig. 1 (``sensitive``, training file) explorable over m, the number of ``attributes`` the attacker knows.

    Each frame is :func:`accuracy_frame` with the first m attributes, cached by the kit
    (:meth:`~anonbook.chapters.kit.ChapterRun.explorable`); the static fallback is the run's own m (``m_own``).
    With ``claim_id`` (Fig. 1's ε = 0.01 claim) the accepted band and the paper's point at ε = 0.01 are drawn.
    """
    values = list(range(1, len(attributes) + 1))
    paper = [Series("paper: above this at ε = 0.01", [0.01], [run.paper(claim_id)])] if claim_id else []
    e = run.explorable(
        f"naive attack on ε-DP counts, target {sensitive}", "known attributes m", values,
        lambda m: accuracy_frame(train, test, sensitive, attributes[:m], epsilons, draws=draws, noise=noise,
                                 threshold=threshold, dirichlet=dirichlet, seed=seed),
        x_label="ε", y_label="accuracy", claim_id=claim_id, paper=paper, log_x=True,
        key={**key, "sensitive": sensitive, "attributes": list(attributes), "epsilons": list(epsilons),
             "draws": draws, "noise": noise, "threshold": threshold, "dirichlet": dirichlet, "seed": seed},
        alt=f"Accuracy of the naive attack on {sensitive} against ε on a log scale, one frame per number of "
            f"known attributes from 1 to {len(attributes)}, with the noiseless classifier and the majority "
            "baseline as flat lines.")
    return dataclasses.replace(e, default=values.index(m_own) if m_own in values else 0)


def explore_fig1(run, data, s, tables: Tables):
    """The chapter's explorable figure: :func:`explore_known_attributes` on the first naive-attack target of the
    run ``s`` (:class:`~anonbook.chapters.ch02_dp_vs_definetti.Settings`), its other inputs the run's parameters.

    The paper's point and the claim's band are drawn when the target has Fig. 1's ε = 0.01 claim (Adult).
    """
    p, sa = run.p, s.sensitive[0]
    attrs = known_attributes(s.qi_pool, s.tradeoff_attributes, sa)
    claim = f"{FIG1_IDS[sa]}.eps001_nontrivial" if s.adult and sa in ("occupation", "marital_status") else None
    return explore_known_attributes(
        run, data.train, data.test, sa, attrs, tables[sa][0].m, s.epsilons, draws=p["draws"], noise=p["noise"],
        threshold=p["threshold"], dirichlet=p["dirichlet"], seed=p["seed"], claim_id=claim,
        key={"dataset": s.dataset, "internet_path": p["internet_path"], "hours_buckets": list(p["hours_buckets"]),
             "age_buckets": list(p["age_buckets"])})


# ---------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------


def setup_table(tables: Tables) -> pd.DataFrame:
    """One row per target: QIs, m, SA domain size, tuples, majority baseline on train and test."""
    return pd.DataFrame([{
        "target": sa, "quasi-identifiers": ", ".join(tr.qi_names), "m": tr.m, "SA values": tr.n_sa,
        "train tuples": tr.n, "test tuples": te.n if te is not None else 0,
        "majority baseline (train)": _majority_accuracy(tr),
        "majority baseline (test)": score(majority_baseline(te.sa_codes, reference=tr.sa_codes)).precision
        if te is not None else np.nan,
    } for sa, (tr, te) in tables.items()])


def _by_epsilon(naive: Mapping[str, NaiveRun], cols: list[str]) -> pd.DataFrame:
    return pd.concat({sa: r.curve().set_index("epsilon")[cols] for sa, r in naive.items()}, axis=1)


def fig1_table(naive: Mapping[str, NaiveRun]) -> pd.DataFrame:
    """Min / mean / max accuracy over draws per ε (train), one column group per target."""
    return _by_epsilon(naive, ["accuracy_min", "accuracy_mean", "accuracy_max"])


def confident_table(naive: Mapping[str, NaiveRun]) -> pd.DataFrame:
    """Fig. 3's numbers per ε (train): tuples and share with belief above the threshold, their accuracy."""
    return _by_epsilon(naive, ["n_confident_mean", "confident_share_mean", "confident_accuracy_mean", "accuracy_mean"])


def confidence_by_l(f: Fig4) -> pd.DataFrame:
    """§3.2's high-confidence view of the group method: share and accuracy above the threshold, per l and size."""
    S = f.summary
    return S[S["method"] == "group"].pivot_table(
        index="l", columns="multiplier", values=["confident_share_mean", "confident_accuracy_mean", "accuracy_mean"])


def attack_yardstick(records: Mapping[str, tuple[AttackResult, AttackResult]]) -> pd.DataFrame:
    """The recorded attacks scored by :func:`anonlab.measures.yardstick` against their baselines (with each
    baseline's kind: the non-member naive Bayes, or the majority guess without a test file)."""
    table = yardstick({k: r for k, (r, _) in records.items()}, {k: b for k, (_, b) in records.items()})
    return table[["targets", "predictions", "precision", "precision_low", "precision_high", "coverage",
                  "baseline_kind", "baseline_precision", "pi"]]


def choice_table(main: Fig4, naive_summary: pd.DataFrame, figs: Mapping[str, Fig4],
                 alt_measured: Mapping[str, Mapping[str, Measurement]]) -> pd.DataFrame:
    """The numbers behind the claims of Fig. 4, one column per reading (the default first).

    Rows: the best method at l = 7 with tight groups and its interval over the repetitions, the naive
    attack's lowest mean accuracy for ε in [0.1, 1], the smallest margin of permutation and group over 1/l
    (tight), the largest |permutation − 1/l| at size 3l, the largest margin of the best method over 1/l at
    l ≥ 6 with ≥ 10 tuples per group, permutation − group at the smallest and group − permutation at the
    largest l (tight), the smallest group − permutation at size 2l, the best method at l = 5, size 10, minus
    the noiseless classifier, and the noiseless classifier. NaN where the grid lacks it.
    """
    def numbers(f: Fig4, naive_lo: float) -> dict[str, float]:
        L, M = f.l_grid, f.multipliers
        nan = float("nan")

        def a(mu: int, l: int, m: str) -> float:  # noqa: E741
            v = f.acc(mu, l, m) if mu in M and l in L else None
            return nan if v is None else v

        def b(mu: int, l: int) -> float:  # noqa: E741
            v = f.best(mu, l) if mu in M and l in L else None
            return nan if v is None else v

        ci = f.interval(1, 7, f.best_method(1, 7)) if 1 in M and 7 in L else None
        big = [b(mu, l) - 1 / l for l in L for mu in M if l >= 6 and l * mu >= 10]
        return {
            "best method, l = 7, tight (paper: < 0.30)": b(1, 7),
            "  its 95% interval over the repetitions: low": nan if ci is None else ci[0],
            "  high": nan if ci is None else ci[1],
            "naive attack, lowest mean for ε in [0.1, 1]": naive_lo,
            "smallest of permutation, group − 1/l over l, tight (> 0)": min(
                min(a(1, l, "permutation"), a(1, l, "group")) - 1 / l for l in L) if 1 in M else nan,
            "largest |permutation − 1/l|, size 3l (about 1/l: ≤ 0.03)": max(
                (abs(a(3, l, "permutation") - 1 / l) for l in L), default=nan) if 3 in M else nan,
            "largest best − 1/l, l ≥ 6 and ≥ 10 tuples (≤ 0.03)": max(big) if big else nan,
            f"permutation − group, l = {min(L)}, tight (> 0)": a(1, min(L), "permutation") - a(1, min(L), "group"),
            f"group − permutation, l = {max(L)}, tight (> 0)": a(1, max(L), "group") - a(1, max(L), "permutation"),
            "smallest group − permutation over l, size 2l (≥ 0)": min(
                a(2, l, "group") - a(2, l, "permutation") for l in L) if 2 in M else nan,
            "best − noiseless, l = 5, size 10 (< 0)": b(2, 5) - f.noiseless,
            "noiseless classifier": f.noiseless,
        }
    cols = {f"{DEFAULT_READING} (default)": numbers(main, headline_numbers(naive_summary)["naive_usual_lo"])}
    for label, f in figs.items():
        cols[label] = numbers(f, alt_measured[label]["naive_usual_lo"].value)
    return pd.DataFrame(cols)

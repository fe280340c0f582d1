"""Benchmark of the membership chapter: ROC curves, LiRA, max recall, and the default run.

Run as ``.venv/bin/python tests/benchmarks/bench_membership.py`` (not collected
by pytest; nothing here asserts a time). Every figure is measured against
what a competent user would write, not against a Python loop, and the
library's ratio is ``reference time / library time`` (below 1: the library
is slower, a finding). It prints, measured in one run, and writes to
``_build/benchmarks/membership.json`` (figure, reference, ratio, load average):

1. :func:`roc_from_scores` against ``sklearn.metrics.roc_curve``
   (``drop_intermediate=False``: every distinct threshold) on 40,000 scores
   with ties and on the chapter's size (4 targets x 20,000 records),
   cross-checked for identical TPR/FPR;
2. LiRA offline and online together (:func:`lira_scores`, identical to
   :func:`lira_offline` and :func:`lira_online`; 16 reference models, 40,000 records) against a vectorised NumPy/SciPy
   version over all records (masked means, pooled variance, ``norm.logpdf``),
   cross-checked to 1e-9;
3. :func:`max_recall_at_precisions` (the exact per-segment solution, every
   (skew, bar) case in one vectorised call; identical to
   :func:`max_recall_at_precision` case by case, whose time is reported too)
   against what a SciPy user writes on Fig. 10 of Francis & Wagner: a
   ``scipy.optimize.brentq`` root per log-log segment where the precision
   crosses the bar, cross-checked to 1e-9;
4. unless ``--skip-chapter``: the default chapter's expensive part, timed
   stage by stage without the cache (load Adult, train 17 random forests on
   10,000 records each, run the five attacks on 4 targets), and the number
   of cores seen.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import numpy as np
from scipy.stats import norm
from sklearn.metrics import roc_curve

from anonlab import paths
from anonlab.attacks import membership as mm
from anonlab.measures import base_rates as br


def timed(fn, *args, repeat: int = 1, **kw):
    best, out = math.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(*args, **kw)
        best = min(best, time.perf_counter() - t0)
    return out, best


# ----------------------------------------------------------------------------- references


def roc_reference(scores: np.ndarray, member: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """FPR and TPR at every distinct threshold: scikit-learn's ``roc_curve``."""
    fpr, tpr, _ = roc_curve(member, scores, drop_intermediate=False)
    return fpr, tpr


def lira_reference(phi: np.ndarray, inm: np.ndarray, target: np.ndarray, min_std: float = 1e-3):
    """Offline z and online log-likelihood ratio for all records at once (pooled variances)."""
    out = ~inm
    n_in, n_out = inm.sum(0), out.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu_in = np.where(inm, phi, 0).sum(0) / n_in
        mu_out = np.where(out, phi, 0).sum(0) / n_out
    sd_in = max(np.sqrt(np.nansum(np.where(inm, phi - mu_in, 0) ** 2) / (n_in.sum() - (n_in > 0).sum())), min_std)
    sd_out = max(np.sqrt(np.nansum(np.where(out, phi - mu_out, 0) ** 2) / (n_out.sum() - (n_out > 0).sum())), min_std)
    both = (n_in > 0) & (n_out > 0)
    shift = np.mean(mu_in[both] - mu_out[both])
    off = np.where(n_out > 0, (target - mu_out) / sd_out, 0.0)
    mi = np.where(n_in > 0, mu_in, mu_out + shift)
    mo = np.where(n_out > 0, mu_out, mi - shift)
    return off, norm.logpdf(target, mi, sd_in) - norm.logpdf(target, mo, sd_out)


def brentq_max_recall(f, t, k, p):
    """What a SciPy user writes: along each log-log segment of the curve, where the precision crosses the bar,
    a root by ``scipy.optimize.brentq``; the highest recall that keeps the bar (curve points > 0, as Fig. 10's)."""
    from scipy.optimize import brentq

    best = math.nan
    for f0, f1, t0, t1 in zip(f[:-1], f[1:], t[:-1], t[1:]):
        def point(s, f0=f0, f1=f1, t0=t0, t1=t1):
            return math.exp(math.log(f0) + s * math.log(f1 / f0)), math.exp(math.log(t0) + s * math.log(t1 / t0))

        def margin(s):
            ff, tt = point(s)
            return tt / (tt + k * ff) - p

        if margin(1.0) >= 0:
            best = max(best, t1) if best == best else t1
        elif margin(0.0) >= 0:
            tt = point(brentq(margin, 0.0, 1.0, xtol=1e-15, rtol=1e-15))[1]
            best = max(best, tt) if best == best else tt
    return best


# ----------------------------------------------------------------------------- main


def figure(name: str, library: float, reference: float, what: str, **extra) -> dict:
    """One benchmark figure: seconds of the library and of the reference, and their ratio."""
    return {"figure": name, "library_s": library, "reference": what, "reference_s": reference,
            "ratio": reference / library, "load_average": list(os.getloadavg()), **extra}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-chapter", action="store_true", help="skip the default-chapter timing (item 4)")
    ap.add_argument("--roc-n", type=int, default=40_000, help="scores for the ROC benchmark")
    ap.add_argument("--repeat", type=int, default=5, help="best of this many runs per timing")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    figures = []

    # 1. ROC from scores, against scikit-learn
    for n, label in ((args.roc_n, "ties"), (80_000, "chapter size (4 x 20,000)")):
        member = rng.random(n) < 0.5
        scores = np.round(rng.normal(size=n) + 0.5 * member, 2) if label == "ties" else \
            rng.normal(size=n) + 0.5 * member
        roc, t_lib = timed(br.roc_from_scores, scores, member, repeat=args.repeat)
        (fpr, tpr), t_ref = timed(roc_reference, scores, member, repeat=args.repeat)
        assert np.array_equal(roc.fpr, fpr) and np.array_equal(roc.tpr, tpr), "ROC differs from scikit-learn"
        figures.append(figure(f"roc_from_scores, {n:,} scores, {label}", t_lib, t_ref,
                              "sklearn.metrics.roc_curve(drop_intermediate=False)", thresholds=len(fpr) - 1))
        print(f"1. ROC from {n:,} scores ({label}, {len(fpr) - 1:,} thresholds): sklearn roc_curve "
              f"{t_ref * 1e3:.2f} ms, library {t_lib * 1e3:.2f} ms -> ratio {t_ref / t_lib:.2f}; identical curves")

    # 2. LiRA, against a vectorised NumPy/SciPy version
    n_models, n = 16, 40_000
    mu = rng.normal(2, 1, n)
    inm = rng.random((n_models, n)) < 0.5
    inm[:, :5] = False  # records without IN models use the mean shift
    phi = mu[None, :] + 1.5 * inm + rng.normal(0, 0.7, (n_models, n))
    target = mu + 1.5 * (rng.random(n) < 0.5) + rng.normal(0, 0.7, n)
    (off_v, on_v), t_lib = timed(mm.lira_scores, phi, inm, target, repeat=args.repeat)
    (off_r, on_r), t_ref = timed(lira_reference, phi, inm, target, repeat=args.repeat)
    assert np.allclose(off_v, off_r, atol=1e-9) and np.allclose(on_v, on_r, atol=1e-9), "LiRA differs"
    assert np.array_equal(off_v, mm.lira_offline(phi, inm, target)) and \
        np.array_equal(on_v, mm.lira_online(phi, inm, target)), "lira_scores differs from the two functions"
    figures.append(figure(f"lira_scores (offline + online), {n:,} records x {n_models} models", t_lib, t_ref,
                          "vectorised NumPy/SciPy over all records (both scores in one pass)"))
    print(f"2. LiRA on {n:,} records x {n_models} reference models: vectorised reference {t_ref * 1e3:.1f} ms, "
          f"library lira_scores {t_lib * 1e3:.1f} ms -> ratio {t_ref / t_lib:.2f}; equal to 1e-9")

    # 3. exact max recall (all cases in one vectorised call) vs a brentq root per segment and case
    f = np.array([1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.25, 0.5, 1.0])
    t = np.array([0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.0, 1.0])
    cases = [(k, p) for k in (1, 30, 240) for p in (0.5, 0.8, 0.95)]
    ks, ps = np.array([k for k, _ in cases], float), np.array([p for _, p in cases])
    (_, exact), t_exact = timed(br.max_recall_at_precisions, f, t, ks, ps, repeat=args.repeat)
    one = [br.max_recall_at_precision(f, t, k, p).tpr for k, p in cases]
    _, t_one = timed(lambda: [br.max_recall_at_precision(f, t, k, p).tpr for k, p in cases], repeat=args.repeat)
    ref, t_ref = timed(lambda: [brentq_max_recall(f, t, k, p) for k, p in cases], repeat=args.repeat)
    assert np.array_equal(exact, one), "the vectorised max recall differs from the one-case function"
    worst = max(abs(a - b) / a for a, b in zip(exact, ref, strict=True))
    assert worst < 1e-9, f"max recall differs from the root-finding reference by {worst:.1e}"
    figures.append(figure(f"max_recall_at_precisions, {len(cases)} cases in one call", t_exact, t_ref,
                          "a scipy.optimize.brentq root per log-log segment and case", worst_relative=worst,
                          one_case_per_call_s=t_one))
    print(f"3. max recall at precision, {len(cases)} (skew, bar) cases on Fig. 10: brentq per segment "
          f"{t_ref * 1e3:.2f} ms, exact in one call {t_exact * 1e3:.2f} ms -> ratio {t_ref / t_exact:,.2f} "
          f"(one call per case: {t_one * 1e3:.2f} ms); largest relative difference {worst:.1e}")

    stages = {}
    if not args.skip_chapter:
        # 4. the default chapter's expensive part, without the cache
        print(f"4. default chapter, no cache, {os.cpu_count()} cores visible, load average "
              f"{os.getloadavg()[0]:.1f}:")
        data, stages["load"] = timed(mm.load_membership_data, "adult",
                                     n_records=mm.pool_size("adult", 10_000, 0.5), seed=0)
        print(f"   load Adult pool ({data.n_records:,} rows): {stages['load']:.1f} s")
        spec = mm.ModelSpec("random_forest", categorical=tuple(np.flatnonzero(data.categorical)), n_jobs=-1)
        models, stages["train"] = timed(mm.train_shadow_models, data.X, data.y, spec, n_models=17,
                                        member_fraction=0.5, seed=0)
        print(f"   train 17 random forests on 10,000 records each: {stages['train']:.1f} s "
              f"({stages['train'] / 17:.2f} s per model)")
        scores_df, stages["attacks"] = timed(mm.run_attacks, models, n_targets=4, seed=0)
        print(f"   five attacks on 4 targets ({len(scores_df):,} scored observations): {stages['attacks']:.1f} s")
        _, stages["rocs"] = timed(mm.attack_rocs, scores_df)
        print(f"   ROC curves: {stages['rocs']:.2f} s; total {sum(stages.values()):.1f} s")
    out = paths.project_root() / "_build" / "benchmarks" / "membership.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"benchmark": "membership", "cores": os.cpu_count(),
                               "load_average": list(os.getloadavg()), "figures": figures,
                               "default_chapter_stages_s": stages}, indent=1))
    print(f"written {out}")


if __name__ == "__main__":
    main()

"""Benchmark of the membership chapter: base-rate conversion, LiRA, and the default run.

Run as ``.venv/bin/python tests/benchmarks/bench_membership.py`` (not collected
by pytest; nothing here asserts a time). It prints, measured in one run:

1. :func:`roc_from_scores` on 40,000 scores with ties against a plain-Python
   reference (for every distinct threshold, count the members and
   non-members at or above it), cross-checked for identical TP/FP counts;
2. LiRA offline and online (:func:`lira_offline`, :func:`lira_online`, per-record
   Gaussians over 16 reference models, 40,000 records) against a per-record
   Python loop, cross-checked to 1e-9;
3. :func:`max_recall_at_precision` (exact per-segment solution) against a
   brute-force search on a dense log grid of Fig. 10 of Francis & Wagner,
   cross-checked to the grid's resolution;
4. unless ``--skip-chapter``: the default chapter's expensive part, timed
   stage by stage without the cache (load Adult, train 17 random forests on
   10,000 records each, run the five attacks on 4 targets), and the number
   of cores seen.
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np
from scipy.stats import norm

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


def roc_reference(scores: np.ndarray, member: np.ndarray) -> tuple[list[int], list[int]]:
    """TP and FP at every distinct threshold, counted one threshold at a time."""
    s, m = scores.tolist(), member.tolist()
    tps, fps = [0], [0]
    for thr in sorted(set(s), reverse=True):
        tp = fp = 0
        for v, is_m in zip(s, m, strict=True):
            if v >= thr:
                if is_m:
                    tp += 1
                else:
                    fp += 1
        tps.append(tp)
        fps.append(fp)
    return tps, fps


def lira_reference(phi: np.ndarray, inm: np.ndarray, target: np.ndarray, min_std: float = 1e-3):
    """Offline z and online log-likelihood ratio, record by record (global variances)."""
    n_models, n = phi.shape
    mu_in, mu_out, r_in, r_out, n_in_all, n_out_all = [], [], 0.0, 0.0, 0, 0
    groups_in = groups_out = 0
    for i in range(n):
        vin = [phi[j, i] for j in range(n_models) if inm[j, i]]
        vout = [phi[j, i] for j in range(n_models) if not inm[j, i]]
        mi = sum(vin) / len(vin) if vin else math.nan
        mo = sum(vout) / len(vout) if vout else math.nan
        mu_in.append(mi)
        mu_out.append(mo)
        r_in += sum((v - mi) ** 2 for v in vin)
        r_out += sum((v - mo) ** 2 for v in vout)
        n_in_all += len(vin)
        n_out_all += len(vout)
        groups_in += bool(vin)
        groups_out += bool(vout)
    sd_in = max(math.sqrt(r_in / (n_in_all - groups_in)), min_std)
    sd_out = max(math.sqrt(r_out / (n_out_all - groups_out)), min_std)
    both = [(a, b) for a, b in zip(mu_in, mu_out, strict=True) if not (math.isnan(a) or math.isnan(b))]
    shift = sum(a - b for a, b in both) / len(both)
    off, on = [], []
    for i in range(n):
        mo = mu_out[i] if not math.isnan(mu_out[i]) else mu_in[i] - shift
        mi = mu_in[i] if not math.isnan(mu_in[i]) else mo + shift
        off.append((target[i] - mu_out[i]) / sd_out if not math.isnan(mu_out[i]) else 0.0)
        on.append(norm.logpdf(target[i], mi, sd_in) - norm.logpdf(target[i], mo, sd_out))
    return np.array(off), np.array(on)


def grid_max_recall(f, t, k, p, points_per_decade):
    gf, gt = br.roc_grid(f, t, points_per_decade=points_per_decade)
    prec = gt / (gt + k * gf)
    ok = prec >= p
    return gt[ok].max() if ok.any() else math.nan


# ----------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-chapter", action="store_true", help="skip the default-chapter timing (item 4)")
    ap.add_argument("--roc-n", type=int, default=40_000, help="scores for the ROC benchmark")
    ap.add_argument("--ref-n", type=int, default=4_000, help="scores the plain-Python ROC reference counts")
    args = ap.parse_args()
    rng = np.random.default_rng(0)

    # 1. ROC from scores
    member = rng.random(args.roc_n) < 0.5
    scores = np.round(rng.normal(size=args.roc_n) + 0.5 * member, 2)  # ties, like forest probabilities
    roc, t_vec = timed(br.roc_from_scores, scores, member, repeat=3)
    sub = slice(0, args.ref_n)
    roc_sub = br.roc_from_scores(scores[sub], member[sub])
    (tps, fps), t_ref = timed(roc_reference, scores[sub], member[sub])
    assert roc_sub.tp.tolist() == tps and roc_sub.fp.tolist() == fps, "ROC counts differ"
    _, t_vec_sub = timed(br.roc_from_scores, scores[sub], member[sub], repeat=3)
    print(f"1. ROC from {args.ref_n:,} scores ({len(tps) - 1} thresholds): reference {t_ref:.3f} s, "
          f"vectorised {t_vec_sub * 1e3:.2f} ms -> {t_ref / t_vec_sub:,.0f}x; identical counts. "
          f"Vectorised on {args.roc_n:,} scores: {t_vec * 1e3:.1f} ms")

    # 2. LiRA
    n_models, n = 16, 40_000
    mu = rng.normal(2, 1, n)
    inm = rng.random((n_models, n)) < 0.5
    inm[:, :5] = False  # records without IN models use the mean shift
    phi = mu[None, :] + 1.5 * inm + rng.normal(0, 0.7, (n_models, n))
    target = mu + 1.5 * (rng.random(n) < 0.5) + rng.normal(0, 0.7, n)
    (off_v, t_off) = timed(mm.lira_offline, phi, inm, target, repeat=3)
    (on_v, t_on) = timed(mm.lira_online, phi, inm, target, repeat=3)
    (off_r, on_r), t_ref = timed(lira_reference, phi, inm, target)
    assert np.allclose(off_v, off_r, atol=1e-9) and np.allclose(on_v, on_r, atol=1e-9), "LiRA differs"
    print(f"2. LiRA on {n:,} records x {n_models} reference models: reference {t_ref:.2f} s, "
          f"vectorised offline {t_off * 1e3:.1f} ms + online {t_on * 1e3:.1f} ms -> "
          f"{t_ref / (t_off + t_on):,.0f}x; equal to 1e-9")

    # 3. exact max recall vs dense grid
    f = np.array([1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.25, 0.5, 1.0])
    t = np.array([0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.0, 1.0])
    cases = [(k, p) for k in (1, 30, 240) for p in (0.5, 0.8, 0.95)]
    exact, t_exact = timed(lambda: [br.max_recall_at_precision(f, t, k, p).tpr for k, p in cases], repeat=3)
    grid, t_grid = timed(lambda: [grid_max_recall(f, t, k, p, 10_000) for k, p in cases])
    worst = max(abs(a - b) / a for a, b in zip(exact, grid, strict=True))
    print(f"3. max recall at precision, {len(cases)} (skew, bar) cases on Fig. 10: grid of 10,000 points "
          f"per decade {t_grid * 1e3:.1f} ms, exact {t_exact * 1e3:.1f} ms -> {t_grid / t_exact:,.1f}x; "
          f"largest relative difference {worst:.1e} (grid resolution)")

    if args.skip_chapter:
        return
    # 4. the default chapter's expensive part, without the cache
    print(f"4. default chapter, no cache, {os.cpu_count()} cores visible, load average "
          f"{os.getloadavg()[0]:.1f}:")
    total = 0.0
    data, dt = timed(mm.load_membership_data, "adult", n_records=mm.pool_size("adult", 10_000, 0.5), seed=0)
    total += dt
    print(f"   load Adult pool ({data.n_records:,} rows): {dt:.1f} s")
    spec = mm.ModelSpec("random_forest", categorical=tuple(np.flatnonzero(data.categorical)), n_jobs=-1)
    models, dt = timed(mm.train_shadow_models, data.X, data.y, spec, n_models=17, member_fraction=0.5, seed=0)
    total += dt
    print(f"   train 17 random forests on 10,000 records each: {dt:.1f} s ({dt / 17:.2f} s per model)")
    scores_df, dt = timed(mm.run_attacks, models, n_targets=4, seed=0)
    total += dt
    print(f"   five attacks on 4 targets ({len(scores_df):,} scored observations): {dt:.1f} s")
    rocs, dt = timed(mm.attack_rocs, scores_df)
    total += dt
    print(f"   ROC curves: {dt:.2f} s; total {total:.1f} s "
          f"(the notebook adds plotting and the capacity sweep, about a minute)")


if __name__ == "__main__":
    main()

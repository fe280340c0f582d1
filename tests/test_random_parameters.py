"""Prose that is true at every valid parameter (issue 34): each chapter run at random valid parameters.

For every chapter that records its comparing sentences (:mod:`anonbook.chapters.sentences`: the text, the
numbers and the relation it asserts), a seeded draw of parameters from the declared ranges, starting from
the quick preset so it stays short, is run, and every recorded sentence is checked: the relation it
asserts is recomputed from its recorded numbers, and its text is the one on the executed page.
:data:`REQUIRED` names the sentences a chapter must record (the two the issue found false: chapter 8's
"far above the privacy bar" and "holds for p = none"), so a chapter that goes back to a typed template fails.

``ANONLAB_RANDOM_DRAWS`` (default 2) sets chapter 8's draws; the other chapters run one draw each, chapters
2, 3, 4, 6b and 9 (most of a minute or more each) only with ``ANONLAB_RANDOM_ALL=1``, which also gives every chapter
``ANONLAB_RANDOM_DRAWS`` draws. Chapter 8 at two draws: about a minute on 2 cores; chapters 1, 5 and 7 at
one draw: about 20-45 s each; chapter 6b at one draw: about a minute and a half. A chapter that reads others
(chapter 9: its declared ``after``) is skipped while one of them has no published run (``book/``).
"""

from __future__ import annotations

import json
import math
import os
import random
from pathlib import Path
from typing import Any

import pytest

from anonbook import chapters, runner
from anonbook.chapters import sentences
from anonbook.verdicts import recorded_run
from anonlab.validation import Param, ParameterError

#: Chapter -> the sentence keys its run must record (the comparisons the prose makes from its numbers).
REQUIRED = {
    "01_syntactic_anonymity": {"sd3_salary_story", "sd3_salary_single", "adult_unique_sentence", "sweep_first_k",
                               "sweep_l_after", "explore_best_sentence"},
    "02_dp_vs_definetti": {"nonmember_sentence", "trade_peak", "trade_exact", "yard_sentence"},
    "03_netflix_eccentricity": {"m50_sentence", "wrong_sentence", "theorem_sentence", "fm_sentence",
                                "low_phi_sentence"},
    "04_census_reconstruction": {"precise_sentence", "conjecture", "minority_gain", "minority_strong_form",
                                 "new_attack_sentence", "dp_attack", "dp_holds", "dp_low", "dp_single",
                                 "trace_low_end", "trace_guess", "majority_same_under_dp_alts",
                                 "majority_beats_reconstruction_alts"},
    "05_nonmember_framework": {"a4_all_vs_pii", "a4_pii_higher", "perfect5_list", "tradeoff_fails", "sig6_list",
                               "twin6", "pi_moves", "naive_verdict"},
    "06a_diffix_differential": {"suppression_sentence", "census_reach_sentence", "yardstick_sentence",
                                "filter_mean", "filter_var", "large_k_gap", "shared_static_gap",
                                "empirical_small_k"},
    "06b_diffix_cloning": {"outside_error_sentence", "miss_sentence", "attr_set_sentence", "census_greedy_sentence",
                           "max_subsets_sentence", "sweep_sentence", "sweep_paper_point", "census_yard_sentence",
                           "census_bias_sentence"},
    "07_membership_base_rates": {"gap_sentence", "depth_trend", "loss_low_fpr", "confidence_low_fpr",
                                 "realistic_precision"},
    "08_passive_active": {"active_bar", "p_defeats", "p_learns", "p_protects", "p_pointless",
                          "p_contrast", "p_gap", "p_passive_private"},
    "09_one_yardstick": {"beyond_list", "beyond_spread", "same_list", "worse_list", "prior_list", "baseline_decides",
                         "membership_coverage", "synthesis_all", "synthesis_five", "differ_rates", "differ_members",
                         "differ_synth", "unique_five", "alc_coincide", "naive_clipping"},
    "10_audit_your_release": {"summary_1", "summary_2", "summary_3", "singling_1", "membership_1",
                              "membership_2", "membership_3"},
}
DRAWS = int(os.environ.get("ANONLAB_RANDOM_DRAWS", "2"))
#: Chapters whose quick run takes most of a minute (2: about 80 s; 6b: about a minute and a half; 9: two minutes with the peers,
#: half a minute once their results are cached): one draw each, and only with
#: ``ANONLAB_RANDOM_ALL=1`` (the CI budget for this file is 3 minutes; chapter 8 at two draws and chapters 1, 5
#: and 7 at one fit it).
SLOW = {"02_dp_vs_definetti", "03_netflix_eccentricity", "04_census_reconstruction", "06b_diffix_cloning", "09_one_yardstick"}
ALL = os.environ.get("ANONLAB_RANDOM_ALL", "") == "1"
SEED = 34


def _cases() -> list[Any]:
    """(chapter, draw) pairs: chapter 8 at ``DRAWS`` draws, the others at one; :data:`SLOW` ones skipped unless ALL."""
    out = []
    for name in sorted(REQUIRED):
        for draw in range(DRAWS if name == "08_passive_active" or ALL else 1):
            marks = [pytest.mark.skip(reason=f"{name}'s quick run takes most of a minute: set ANONLAB_RANDOM_ALL=1")] \
                if name in SLOW and not ALL else []
            out.append(pytest.param(name, draw, id=f"{name}-{draw}", marks=marks))
    return out


def draw_value(q: Param, start: Any, rng: random.Random) -> Any:
    """A random value of one declared parameter near ``start`` (its quick or default value), in its range.

    Numbers move by up to a factor 3 (log scale) within ``[low, high]``; integers of 10 or more only
    shrink (a run never costs more than the quick one); booleans flip at random; lists, strings, paths,
    choices and ``None`` stay, since they pick data sets and grids, not comparisons.
    """
    if q.name == "seed":
        return rng.randrange(0, 10_000)
    if q.kind == "bool":
        return rng.random() < 0.5
    if q.kind not in ("int", "float") or start is None or isinstance(start, bool):
        return start
    lo = -math.inf if q.low is None else float(q.low)
    hi = math.inf if q.high is None else float(q.high)
    if q.kind == "int" and start >= 10:
        return int(rng.randint(max(int(lo), start // 2), start))
    if q.kind == "int":
        return int(rng.randint(int(max(lo, 0)), int(min(hi, max(2 * start, 2)))))
    if start <= 0:
        return start
    value = start * 3 ** rng.uniform(-1, 1)
    eps = 1e-12 * max(1.0, abs(value))
    return min(max(value, lo + (0 if q.low_inclusive else eps)), hi - (0 if q.high_inclusive else eps))


def draw_parameters(name: str, rng: random.Random, tries: int = 50) -> dict[str, Any]:
    """Random valid parameters of chapter ``name``: the quick preset with each parameter drawn by
    :func:`draw_value`, redrawn until the declaration's checks (ranges, cross-checks, memory) accept it.

    After ten refused draws each parameter moves only with probability one half (the others keep their quick
    value), so a cross-check that ties one parameter to another (chapter 4's ``epsilon`` must be one of its
    ``epsilons``) still lets the rest move."""
    ch = chapters.get(name)
    start = {q.name: ch.quick.get(q.name, q.default) for q in ch.parameters.params}
    src = runner.resolve_notebook(name)
    for attempt in range(tries):
        params = {q.name: draw_value(q, start[q.name], rng) if attempt < 10 or rng.random() < 0.5 else start[q.name]
                  for q in ch.parameters.params if q.name != "use_cache"}
        try:
            runner.validate_parameters(src, params)
        except (runner.RunError, ParameterError):
            continue
        return params
    raise AssertionError(f"{name}: no valid draw in {tries} tries")


def _page_text(notebook: Path) -> str:
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                     for c in nb["cells"] if c["cell_type"] == "markdown")


def test_draws_are_valid_and_seeded() -> None:
    a = draw_parameters("08_passive_active", random.Random(SEED))
    assert a == draw_parameters("08_passive_active", random.Random(SEED))
    chapters.get("08_passive_active").parameters.validate(a)


@pytest.mark.parametrize(("name", "draw"), _cases())
def test_every_generated_sentence_holds_at_random_parameters(name: str, draw: int, tmp_path: Path) -> None:
    unpublished = [c for c in chapters.get(name).after if recorded_run(c) is None]
    if unpublished:
        pytest.skip(f"{name} reads chapters with no published run: {unpublished}")
    params = draw_parameters(name, random.Random(f"{SEED}-{name}-{draw}"))
    res = runner.run_notebook(name, params, out_dir=tmp_path, progress=False)
    recorded = json.loads(res.results.read_text(encoding="utf-8")).get("sentences", {})
    missing = REQUIRED[name] - set(recorded)
    assert not missing, f"{name} at {params}: these comparisons are not recorded with their numbers: {missing}"
    assert sentences.check_all(recorded.values()) == [], f"{name} at {params}"
    page = _page_text(res.notebook)
    not_shown = [k for k, s in recorded.items() if s["text"] not in page.replace("\\", "")]
    assert not not_shown, f"{name} at {params}: recorded sentences not on the page: {not_shown}"

"""The peer tools, as released, against the book's PI and coverage: each relation pinned on a small fixed input.

The peers run in their own environment (``.venv-peers``, which ``make test``
creates from ``requirements-peers.lock``) through :func:`anonbook.peers.run_peers`,
exactly as chapter 9 runs them. The relations (see chapter 9):

1. Anonymeter's risk is PI with the control attack in the baseline's role,
   on Wilson-centred rates (k + z²/2)/(n + z²), clipped to [0, 1];
2. the ALC of two predictions at full recall is PI of their Wilson-midpoint
   precisions (the same centre), rounded to 4 decimals;
3. below full recall the ALC is PI of the precision-recall coefficients
   PRC = P·(1 − (log10 R / log10 1e-4)^3), and the package picks each side's
   own threshold (best PRC among thresholds whose Wilson interval is narrower
   than 0.1), so attack and baseline are compared on different targets.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from anonbook import peers
from anonlab.measures import AttackResult, precision_improvement, score

needs_peers = pytest.mark.skipif(
    peers.peers_python() is None,
    reason="the peers' environment .venv-peers is missing (make test creates it: make peers)")

Z = float(norm.ppf(0.975))


def wilson_centre(k: int, n: int) -> float:
    """(k + z²/2)/(n + z²): Anonymeter's success rate and the ALC package's precision midpoint."""
    return (k + Z * Z / 2) / (n + Z * Z)


def _table(n: int, secret: list[str], aux: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"a": aux, "s": secret}, index=np.arange(n))


@pytest.fixture(scope="module")
def fixed_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[peers.PeerInputs, dict]:
    """A small fixed input: 500 targets, 500 control records, a release that copies the targets' relation."""
    rng = np.random.default_rng(7)
    n = 500
    aux_t = rng.choice(list("abcd"), n)
    # in the release the secret follows aux exactly; the targets follow it 60 % of the time,
    # the control records 40 % (so the attack is right more often on the targets)
    rel = pd.DataFrame({"a": list("abcd"), "s": list("wxyz")})
    mapping = dict(zip(rel["a"], rel["s"]))
    sec_t = [mapping[a] if rng.random() < 0.6 else "v" for a in aux_t]
    aux_c = rng.choice(list("abcd"), n)
    sec_c = [mapping[a] if rng.random() < 0.4 else "v" for a in aux_c]
    targets = _table(n, sec_t, list(aux_t))
    control = _table(n, sec_c, list(aux_c)).set_axis(np.arange(n, 2 * n))
    # the book's attack to score: 800 targets, confident predictions right more often
    m = 800
    truth = np.array(["x"] * m, dtype=object)
    conf = np.linspace(0.05, 1.0, m)
    right = rng.random(m) < 0.3 + 0.6 * conf
    attack = AttackResult("toy attack", np.arange(m), truth, np.ones(m, bool),
                          np.where(right, "x", "y").astype(object), confidence=conf)
    base_right = rng.random(m) < 0.45
    base = AttackResult("toy baseline", np.arange(m), truth, np.ones(m, bool),
                        np.where(base_right, "x", "y").astype(object), confidence=np.full(m, 0.5))
    inputs = peers.PeerInputs(targets=targets, control=control, releases={"release": rel}, aux=("a",), secret="s",
                              scored={"toy": (attack, base)},
                              alc_grid={"p_attack": 0.9, "p_base": 0.5, "r_base": 1.0,
                                        "recalls": [1e-4, 1e-3, 1e-2, 0.1, 1.0]})
    return inputs, peers.run_peers(inputs, tmp_path_factory.mktemp("peers"), timeout=300)


@needs_peers
def test_the_peers_run_as_released(fixed_run: tuple[peers.PeerInputs, dict]) -> None:
    _, out = fixed_run
    assert out["versions"]["anonymeter"] == "1.1.0"
    assert out["versions"]["anonymity-loss-coefficient"] == "1.0.32"
    assert out["versions"]["numpy"].startswith("1.26")


@needs_peers
def test_anonymeter_risk_is_pi_of_its_wilson_rates_with_the_control_as_baseline(fixed_run) -> None:
    inputs, out = fixed_run
    res = out["anonymeter"]["release"]
    n_t, n_c = len(inputs.targets), len(inputs.control)
    assert res["n_attacks"] == [n_t, len(inputs.releases["release"]), n_c]
    # every target and control record was attacked; the counts are the book's precision numerators
    correct_t = sum(res["correct"]["targets"].values())
    correct_c = sum(res["correct"]["control"].values())
    assert (res["n_success"], res["n_control"]) == (correct_t, correct_c)
    a, c = wilson_centre(correct_t, n_t), wilson_centre(correct_c, n_c)
    assert res["attack_rate"]["value"] == pytest.approx(a, abs=1e-12)
    assert res["control_rate"]["value"] == pytest.approx(c, abs=1e-12)
    assert res["risk"] == pytest.approx(min(max(float(precision_improvement(a, c)), 0.0), 1.0), abs=1e-12)
    # the raw-proportion PI of the book differs from it only by the Wilson centring
    raw = float(precision_improvement(correct_t / n_t, correct_c / n_c))
    assert raw > 0 and abs(raw - res["risk"]) < 0.01


@needs_peers
def test_anonymeter_clips_a_negative_improvement_to_zero(fixed_run) -> None:
    _, out = fixed_run
    # the release teaches the control records less than the targets; swap the roles through the counts
    res = out["anonymeter_counts"]["toy"]
    a, c = res["attack_rate"]["value"], res["control_rate"]["value"]
    pi = float(precision_improvement(a, c))
    assert res["risk"] == pytest.approx(min(max(pi, 0.0), 1.0), abs=1e-12)
    assert res["risk_ci"][0] >= 0.0


@needs_peers
def test_the_alc_at_full_recall_is_pi_of_the_wilson_midpoints(fixed_run) -> None:
    inputs, out = fixed_run
    res = out["alc"]["release | control attack"]
    n_t, n_c = len(inputs.targets), len(inputs.control)
    k_t = sum(out["anonymeter"]["release"]["correct"]["targets"].values())
    k_c = sum(out["anonymeter"]["release"]["correct"]["control"].values())
    assert res["attack"]["recall"] == 1.0 and res["base"]["recall"] == 1.0
    assert res["attack"]["prec"] == pytest.approx(wilson_centre(k_t, n_t), abs=6e-5)
    pi_mid = float(precision_improvement(wilson_centre(k_t, n_t), wilson_centre(k_c, n_c)))
    assert res["alc"] == pytest.approx(pi_mid, abs=2e-4)
    # ... which is Anonymeter's risk, where that is not clipped
    assert res["alc"] == pytest.approx(out["anonymeter"]["release"]["risk"], abs=2e-4)


@needs_peers
def test_the_alc_weights_precision_by_recall_and_pi_does_not(fixed_run) -> None:
    _, out = fixed_run
    grid = {row["recall"]: row for row in out["alc_grid"]}
    pi = float(precision_improvement(0.9, 0.5))
    assert grid[1.0]["alc"] == pytest.approx(pi, abs=1e-4)  # full recall: the ALC is PI
    for r, row in grid.items():
        weight = 1 - (math.log10(r) / math.log10(1e-4)) ** 3
        assert row["prc_attack"] == pytest.approx(round(0.9 * weight, 4), abs=1e-4)
        assert row["alc"] == pytest.approx(round(float(precision_improvement(round(0.9 * weight, 4), 0.5)), 4),
                                           abs=2e-4)
    assert grid[1e-2]["alc"] < grid[1.0]["alc"] and grid[1e-3]["alc"] < grid[1e-2]["alc"]


@needs_peers
def test_the_alc_picks_each_sides_threshold_while_pi_uses_the_attacks_targets(fixed_run) -> None:
    inputs, out = fixed_run
    attack, base = inputs.scored["toy"]
    res = out["alc"]["toy"]
    # the attack keeps its most confident predictions; the baseline (one confidence) keeps all
    assert res["attack"]["recall"] < 1.0 and res["base"]["recall"] == 1.0
    n_kept = int(res["attack"]["n"])
    kept = attack.at_threshold(float(np.sort(attack.confidence)[::-1][n_kept - 1]))
    s = score(kept, base)
    assert s.n_predictions == n_kept
    lo, hi = s.precision_ci
    assert res["attack"]["prec"] == pytest.approx((lo + hi) / 2, abs=2e-4)  # the package's midpoint, same interval
    assert hi - lo < 0.1  # the package's interval rule
    weight = 1 - (math.log10(res["attack"]["recall"]) / math.log10(1e-4)) ** 3
    assert res["attack"]["prc"] == pytest.approx(res["attack"]["prec"] * weight, abs=2e-4)
    assert res["alc"] == pytest.approx(float(precision_improvement(res["attack"]["prc"], res["base"]["prc"])),
                                       abs=2e-4)


def test_a_missing_environment_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv(peers.PEERS_PYTHON_ENV, str(tmp_path / "no-such-python"))
    inputs = peers.PeerInputs(targets=_table(2, ["x", "y"], ["a", "b"]),
                              control=_table(2, ["x", "y"], ["a", "b"]).set_axis([5, 6]),
                              releases={}, aux=("a",), secret="s")
    with pytest.raises(peers.PeersMissing, match="make peers"):
        peers.run_peers(inputs, tmp_path)


def test_targets_and_control_must_differ() -> None:
    t = _table(2, ["x", "y"], ["a", "b"])
    with pytest.raises(ValueError, match="control set must be outside"):
        peers.PeerInputs(targets=t, control=t, releases={}, aux=("a",), secret="s")


def test_a_peer_tool_that_times_out_has_its_whole_process_group_killed(tmp_path) -> None:
    """The tool starts a child that would outlive it; after the timeout neither is running (issue 37)."""
    import os
    import sys
    import time

    child_pid = tmp_path / "child.pid"
    script = (f"import subprocess, sys, time\n"
              f"c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
              f"open({str(child_pid)!r}, 'w').write(str(c.pid))\n"
              f"time.sleep(60)\n")
    start = time.perf_counter()
    with pytest.raises(peers.PeerError, match="did not finish within 2 s"):
        peers.run_in_own_group([sys.executable, "-c", script], timeout=2, env=os.environ)
    assert time.perf_counter() - start < 20
    pid = int(child_pid.read_text())
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, 9)
        raise AssertionError("the peer tool's child is still running after the timeout")


@needs_peers
def test_the_alc_packages_interval_rule_is_the_one_chapter_10_explains_a_zero_recall_by() -> None:
    """Chapter 10 says why the ALC package reads an attack at recall 0: at its precision no top-n of the guesses
    has a Wilson interval narrower than the package's default width. Both the width and the fewest guesses are
    the package's own, read in its environment."""
    import json
    import subprocess

    from anonbook.chapters import ch10_audit_your_release as ch10

    precisions = [0.5, 0.7, 0.835, 0.95]
    needed = [ch10.alc_fewest_predictions(p) for p in precisions]
    script = (
        "import inspect, json, sys\n"
        "from anonymity_loss_coefficient.alc.score_interval import ScoreInterval\n"
        "si = ScoreInterval(si_type='wilson_score_interval', si_confidence=0.95)\n"
        "width = inspect.signature(si.compute_best_prc).parameters['max_prec_interval'].default\n"
        "pairs = json.loads(sys.argv[1])\n"
        "def w(n, p):\n"
        "    low, high = si.compute_precision_interval(n=n, precision=round(p * n) / n)\n"
        "    return high - low\n"
        "print(json.dumps({'width': width, 'narrow': [w(n, p) < width for p, n in pairs],\n"
        "                  'before': [w(n - 1, p) < width for p, n in pairs]}))\n")
    out = subprocess.run([str(peers.peers_python()), "-c", script, json.dumps(list(zip(precisions, needed)))],
                         capture_output=True, text=True, check=True, timeout=120,
                         env={**os.environ, "MPLBACKEND": "Agg"})
    got = json.loads(out.stdout)
    assert got["width"] == ch10.ALC_MAX_PRECISION_INTERVAL
    assert all(got["narrow"]), "at the fewest guesses the package's interval is narrow enough"
    assert not any(got["before"]), "one guess fewer and it is not"


def test_chapter_10_explains_a_zero_alc_recall_by_its_numbers() -> None:
    from anonbook.chapters import ch10_audit_your_release as ch10

    table = pd.DataFrame({"targets": [200, 200], "precision": [0.83, 0.835], "ALC's attack recall": [0.0, 0.0]})
    text = ch10.alc_recall_zero_text(table)
    need = ch10.alc_fewest_predictions(0.83)
    assert need > 200 and f"at least {need} guesses" in text and "200 targets" in text
    assert ch10.alc_recall_zero_text(table.assign(**{"ALC's attack recall": [0.4, 1.0]})) == ""

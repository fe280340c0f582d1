"""The two peer tools practitioners run, on inputs the book writes: Anonymeter and the ALC package.

Anonymeter 1.1.0 (an inference evaluator with a control set) requires NumPy
< 1.27, and the book runs on NumPy 2; the ALC package 1.0.32 (Francis's
anonymity loss coefficient, the successor of PI) needs pandas < 3. So both
live in their own environment, ``.venv-peers``, installed from
``requirements-peers.lock`` by ``make book`` and ``make test`` (``make
peers``). This module

1. writes the inputs into a folder (:func:`write_inputs`): the targets (the
   records the release was made from that are attacked), the control
   records (not in the release), each release, the auxiliary columns, the
   secret, and the book's own predictions to be scored by the peers
   (``spec.json`` plus Parquet files);
2. runs :mod:`anonbook.peers_script` with the peers' Python as a subprocess
   (:func:`run_peers`), which calls the packages as released;
3. reads their numbers back (a plain dict, see the script's docstring).

Nothing here re-implements either tool. :func:`anonymeter_vs_pi` and
:func:`alc_vs_pi` set the peers' numbers beside the book's precision,
coverage and PI on the same guesses (chapter 9).

``ANONLAB_PEERS_PYTHON`` names another interpreter with the same packages.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonlab import paths
from anonlab.measures import AttackResult, precision_improvement, score

__all__ = ["PEERS_PYTHON_ENV", "LOCK_NAME", "SCRIPT", "environment_state", "run_in_own_group", "PeerError", "PeersMissing", "PeerInputs", "peers_python", "lock_path",
           "write_inputs", "run_peers", "predictions_of", "environment_digest",
           "anonymeter_vs_pi", "alc_vs_pi", "relations", "relations_missing", "summary_numbers",
           "summary_numbers_missing"]

PEERS_PYTHON_ENV = "ANONLAB_PEERS_PYTHON"
LOCK_NAME = "requirements-peers.lock"
VENV_NAME = ".venv-peers"
#: The script the peers' Python runs (shipped with the package, imports nothing from it).
SCRIPT = Path(__file__).with_name("peers_script.py")


class PeerError(RuntimeError):
    """A peer run failed."""


class PeersMissing(PeerError):
    """The peers' environment is not there (``make peers`` creates it)."""


def _checkouts() -> list[Path]:
    """The project root, then the checkout this package is imported from (tests run in a copy of the book)."""
    out = [paths.project_root(), Path(__file__).resolve().parents[2]]
    return list(dict.fromkeys(out))


def lock_path() -> Path:
    """``requirements-peers.lock``: the exact versions of the peers' environment."""
    for root in _checkouts():
        if (root / LOCK_NAME).exists():
            return root / LOCK_NAME
    return paths.project_root() / LOCK_NAME


def peers_python() -> Path | None:
    """The peers' interpreter: ``$ANONLAB_PEERS_PYTHON``, else ``.venv-peers/bin/python`` of the checkout; or None."""
    env = os.environ.get(PEERS_PYTHON_ENV)
    if env:
        return Path(env) if Path(env).exists() else None
    for root in _checkouts():
        exe = root / VENV_NAME / "bin" / "python"
        if exe.exists():
            return exe
    return None


@dataclass(frozen=True)
class PeerInputs:
    """What the peers are run on (all row labels distinct; frames share columns).

    Attributes
    ----------
    targets
        Records the releases were made from, each attacked once (Anonymeter's ``ori``).
    control
        Records of the same population that are in no release (Anonymeter's ``control``).
    releases
        ``{name: table}``: what the attacker sees (Anonymeter's ``syn``; the ALC's ``anon``).
    aux
        The columns the attacker knows about a target.
    secret
        The column the attacker infers.
    seed
        Seed of Anonymeter's sampling (NumPy's global generator, set in the script).
    confidence
        Level of every interval.
    baseline_on_targets
        The book's non-member baseline on ``targets`` (an :class:`AttackResult`
        with confidence), scored by the ALC package against each release's attack.
    scored
        ``{name: (attack, baseline)}``: attacks the book recorded, with their
        baseline on the same targets, for the peers' scores (ALC; Anonymeter's
        risk on the counts, the baseline in the control's role).
    alc_grid
        Optional ``{"p_attack", "p_base", "r_base", "recalls"}``: the ALC at each recall.
    """

    targets: pd.DataFrame
    control: pd.DataFrame
    releases: Mapping[str, pd.DataFrame]
    aux: tuple[str, ...]
    secret: str
    seed: int = 0
    confidence: float = 0.95
    baseline_on_targets: AttackResult | None = None
    scored: Mapping[str, tuple[AttackResult, AttackResult]] = field(default_factory=dict)
    alc_grid: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        cols = list(self.aux) + [self.secret]
        for name, df in [("targets", self.targets), ("control", self.control), *self.releases.items()]:
            missing = [c for c in cols if c not in df.columns]
            if missing:
                raise ValueError(f"peer input {name!r} lacks the column(s) {missing}")
        if pd.Index(self.targets.index).isin(self.control.index).any():
            raise ValueError("a target is also a control record: the control set must be outside the release")


def predictions_of(result: AttackResult) -> dict[str, list]:
    """An attack's predictions for the ALC package: per predicted target, correct or not, and its confidence.

    Targets the attack abstained from are left out (coverage is the share
    kept); without a confidence every prediction counts 1.

    >>> r = AttackResult.from_predictions("x", ["a", "b", "c"], ["a", None, "b"], confidence=[0.9, 0.1, 0.6])
    >>> predictions_of(r)
    {'correct': [True, False], 'confidence': [0.9, 0.6]}
    """
    made = result.predicted
    conf = np.ones(result.n_targets) if result.confidence is None else result.confidence
    return {"correct": [bool(v) for v in result.is_correct()[made]], "confidence": [float(v) for v in conf[made]]}


def _spec(inputs: PeerInputs, files: Mapping[str, str]) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "aux": list(inputs.aux), "secret": inputs.secret, "seed": int(inputs.seed),
        "confidence": float(inputs.confidence), "n_attacks": int(max(len(inputs.targets), len(inputs.control))),
        "n_jobs": 2, "targets": files["targets"], "control": files["control"],
        "releases": {name: files[f"release:{name}"] for name in inputs.releases},
        "alc": {}, "counts": {},
    }
    base = inputs.baseline_on_targets
    if base is not None:
        ids = [str(t) for t in base.targets]
        conf = np.ones(base.n_targets) if base.confidence is None else base.confidence
        spec["baseline_on_targets"] = {"correct": dict(zip(ids, map(bool, base.is_correct()))),
                                       "confidence": dict(zip(ids, map(float, conf)))}
    for name, (attack, baseline) in inputs.scored.items():
        spec["alc"][name] = {"attack": predictions_of(attack), "base": predictions_of(baseline.on_targets(
            attack.targets))}
        b = baseline.on_targets(attack.targets)
        spec["counts"][name] = {"n": attack.n_targets, "n_success": int(attack.is_correct().sum()),
                                "n_control": int(b.is_correct().sum())}
    if inputs.alc_grid:
        spec["alc_grid"] = {k: (list(map(float, v)) if k == "recalls" else float(v))
                            for k, v in inputs.alc_grid.items()}
    return spec


def write_inputs(inputs: PeerInputs, folder: str | Path) -> Path:
    """Write ``spec.json`` and the tables (Parquet) into ``folder``; return the spec's path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    cols = list(inputs.aux) + [inputs.secret]
    files = {"targets": "targets.parquet", "control": "control.parquet"}
    inputs.targets[cols].to_parquet(folder / files["targets"])
    inputs.control[cols].to_parquet(folder / files["control"])
    for i, (name, df) in enumerate(inputs.releases.items()):
        files[f"release:{name}"] = f"release_{i}.parquet"
        df[cols].reset_index(drop=True).to_parquet(folder / files[f"release:{name}"])
    spec = folder / "spec.json"
    spec.write_text(json.dumps(_spec(inputs, files), indent=1, sort_keys=True), encoding="utf-8")
    return spec


def environment_state(values: Mapping[str, Any] | None = None) -> str:
    """What a run that uses the peers depends on: whether their environment is there (and finished
    installing), and the digest of its lock and script (:func:`environment_digest`); ``""`` for a run
    with ``peers = False``. Chapter 9's :attr:`~anonbook.chapters.Chapter.environment`: a run made while
    ``.venv-peers`` was missing is stale once it appears, and the other way round.

    >>> environment_state({"peers": False})
    ''
    """
    if values is not None and not values.get("peers", True):
        return ""
    exe = peers_python()
    if exe is None:
        return "peers: missing"
    stamp = exe.parents[1] / ".anonlab-peers-installed"
    installed = "installed" if stamp.exists() or os.environ.get(PEERS_PYTHON_ENV) else "not finished installing"
    return f"peers: {installed}, lock and script {environment_digest()}"


def environment_digest() -> str:
    """SHA-256 of the peers' lock and script: part of the key of a cached peer run."""
    h = hashlib.sha256()
    for f in (lock_path(), SCRIPT):
        if f.exists():
            h.update(f.read_bytes())
    return h.hexdigest()


def run_in_own_group(cmd: list[str], *, timeout: float, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` in a process group of its own; on a timeout (or Ctrl-C) kill the whole group, so no child
    of the peer tools (numba's, joblib's workers) is left running.

    Raises
    ------
    PeerError
        ``the peer tools did not finish within N s`` after the group is killed.
    """
    import signal

    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(env),
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except BaseException as exc:  # the timeout, or an interrupt: nothing of the group may outlive the call
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        if isinstance(exc, subprocess.TimeoutExpired):
            raise PeerError(f"the peer tools did not finish within {timeout:g} s (their processes were "
                            "stopped)") from None
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)


def run_peers(inputs: PeerInputs, folder: str | Path | None = None, *, timeout: float = 600) -> dict[str, Any]:
    """Write the inputs, run both peer tools in their environment, return their numbers.

    Raises :class:`PeersMissing` when the environment is missing (``make
    peers`` creates it), :class:`PeerError` when the run fails (with the end
    of its error output).
    """
    exe = peers_python()
    if exe is None:
        raise PeersMissing(f"the peers' environment is missing: run `make peers` (creates {VENV_NAME} from "
                        f"{LOCK_NAME}) or set {PEERS_PYTHON_ENV}")
    folder = Path(folder) if folder is not None else Path(tempfile.mkdtemp(prefix="anonlab-peers-"))
    write_inputs(inputs, folder)
    out = folder / "results.json"
    env = {**os.environ, "OMP_NUM_THREADS": "2", "NUMBA_NUM_THREADS": "2", "PYTHONHASHSEED": "0",
           "MPLBACKEND": "Agg"}  # the ALC package imports matplotlib; a notebook kernel's backend is not there
    env.pop("PYTHONPATH", None)  # the peers' environment must not see the book's packages
    proc = run_in_own_group([str(exe), str(SCRIPT), str(folder), str(out)], timeout=timeout, env=env)
    if proc.returncode != 0 or not out.exists():
        raise PeerError(f"the peer tools failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------
# the peers' numbers beside the book's, on the same guesses
# ---------------------------------------------------------------------------


def _result(name: str, rows: pd.DataFrame, secret: str, correct: Mapping[str, bool],
            guesses: Mapping[str, Any]) -> AttackResult:
    """An attack result from a peer's per-target guesses (their correctness by the peer's own rule)."""
    ids = [i for i in correct]
    labels = rows.index.to_numpy()
    by_str = {str(x): x for x in labels}
    targets = np.array([by_str[i] for i in ids])
    return AttackResult(name, targets, rows.loc[targets, secret].to_numpy(), np.ones(len(ids), dtype=bool),
                        np.array([guesses[i] for i in ids], dtype=object),
                        correct=np.array([bool(correct[i]) for i in ids]))


def anonymeter_vs_pi(inputs: Any, peers: Mapping[str, Any]) -> pd.DataFrame:
    """Anonymeter's risk beside the book's PI, on the same guesses (one row per release, then the naive attack).

    For each release, Anonymeter's own attack guessed the secret of every
    target and every control record; the book scores those guesses: the
    attack's precision on the targets, the same attack's precision on the
    control records, PI with the control in the baseline's role (raw
    proportions), PI of Anonymeter's own (Wilson-centre) rates, and PI
    against the book's non-member baseline on the same targets. The naive
    attack row is Anonymeter's ``EvaluationResults`` on the counts of the
    book's recorded attack, its baseline (same targets) in the control's role.
    """
    rows = []
    for release, res in peers["anonymeter"].items():
        atk = _result(f"Anonymeter's attack on {release}", inputs.targets, inputs.secret,
                      res["correct"]["targets"], res["guesses"]["targets"])
        ctl = _result("the same attack on the control records", inputs.control, inputs.secret,
                      res["correct"]["control"], res["guesses"]["control"])
        s_atk, s_ctl = score(atk), score(ctl)
        vs_base = score(atk, inputs.baseline_on_targets)
        rows.append(_anonymeter_row(release, "Anonymeter's nearest-row attack", atk.n_targets, s_atk.precision,
                                    s_ctl.precision,
                                    float(precision_improvement(s_atk.precision, s_ctl.precision)), res, vs_base))
    for name, (attack, base) in inputs.scored.items():
        s = score(attack, base)
        rows.append(_anonymeter_row("ε-DP counts (chapter 5)", f"the book's {name}", attack.n_targets, s.precision,
                                    s.baseline_precision, s.precision_improvement,
                                    peers["anonymeter_counts"][name], s))
    return pd.DataFrame(rows).set_index(["input", "attack"])


def _anonymeter_row(release: str, attack: str, targets: int, precision: float, control_precision: float,
                    pi_control: float, res: Mapping[str, Any], vs_base: Any) -> dict[str, Any]:
    """One row of the Anonymeter comparison: the book's scores beside Anonymeter's rates and risk.

    ``res`` is Anonymeter's result for the row; ``vs_base`` the book's score of the attack against the
    baseline on the same targets (precision improvement with its interval).
    """
    a, c = res["attack_rate"]["value"], res["control_rate"]["value"]
    return {"input": release, "attack": attack, "targets": targets,
            "precision": precision, "control precision": control_precision, "PI, control as baseline": pi_control,
            "Anonymeter attack rate": a, "Anonymeter control rate": c,
            "PI of Anonymeter's rates": float(precision_improvement(a, c)),
            "Anonymeter risk": res["risk"], "risk low": res["risk_ci"][0], "risk high": res["risk_ci"][1],
            "baseline precision (same targets)": vs_base.baseline_precision,
            "PI vs baseline (same targets)": vs_base.precision_improvement,
            "PI low": vs_base.precision_improvement_ci[0], "PI high": vs_base.precision_improvement_ci[1]}


def alc_vs_pi(inputs: Any, peers: Mapping[str, Any]) -> pd.DataFrame:
    """The ALC package's score beside PI and coverage, on the same predictions.

    One row per comparison the peers scored: each release's attack against
    the book's baseline model and against the control attack, and the
    book's naive attack against its baseline. The ALC picks, for attack and
    baseline separately, the confidence threshold with the best
    precision-recall coefficient PRC (precision at the Wilson midpoint,
    weighted by recall); PI compares the two on the same targets at the
    attack's own coverage. ``PI at the ALC's recall`` is the book's PI of
    the attack restricted to the predictions the ALC kept (its most
    confident ones), against the baseline on those same targets.
    """
    rows = []
    for key, res in peers["alc"].items():
        a, b = res["attack"], res["base"]
        row = {"comparison": key, "ALC": res["alc"], "attack precision (midpoint)": a["prec"],
               "attack recall": a["recall"], "attack PRC": a["prc"], "base precision (midpoint)": b["prec"],
               "base recall": b["recall"], "base PRC": b["prc"],
               "PI of the midpoints": float(precision_improvement(a["prec"], b["prec"]))
               if a["recall"] > 0 and b["recall"] > 0 else math.nan}
        name = key.split(" | ")[0]
        if name in inputs.scored:
            attack, base = inputs.scored[name]
            s = score(attack, base)
            row.update({"PI (book, every target)": s.precision_improvement, "coverage (book)": s.coverage})
            kept = _top_share(attack, a["recall"])
            sk = score(kept, base)
            row.update({"PI at the ALC's recall": sk.precision_improvement, "coverage there": sk.coverage})
        else:
            res_a = peers["anonymeter"][name]
            atk = _result(name, inputs.targets, inputs.secret, res_a["correct"]["targets"],
                          res_a["guesses"]["targets"])
            other = inputs.baseline_on_targets if key.endswith("baseline model") else None
            if other is not None:
                s = score(atk, other)
                row.update({"PI (book, every target)": s.precision_improvement, "coverage (book)": s.coverage})
            else:
                ctl = _result(name, inputs.control, inputs.secret, res_a["correct"]["control"],
                              res_a["guesses"]["control"])
                row.update({"PI (book, every target)": float(precision_improvement(score(atk).precision,
                                                                                   score(ctl).precision)),
                            "coverage (book)": 1.0})
        rows.append(row)
    return pd.DataFrame(rows).set_index("comparison")


def _top_share(result: AttackResult, share: float) -> AttackResult:
    """The result keeping only its most confident predictions, ``share`` of the targets (ties kept together)."""
    if result.confidence is None or share >= 1 or share <= 0:
        return result
    k = max(1, int(round(share * result.n_targets)))
    threshold = np.sort(result.confidence[result.predicted])[::-1][min(k, int(result.predicted.sum())) - 1]
    return result.at_threshold(float(threshold))


def relations(anon: pd.DataFrame, alc: pd.DataFrame) -> dict[str, float]:
    """How far the tools are from the book's formulas on this run (the largest absolute differences).

    ``risk_vs_pi_of_rates``: Anonymeter's risk against PI of its own rates
    where that PI is in [0, 1] (the risk clips it there); ``alc_vs_pi_full``:
    the ALC against PI of the two precisions where both recalls are 1 (the
    ALC rounds to 4 decimals); ``wilson_shift``: PI of Anonymeter's rates
    against PI of the raw proportions.
    """
    inside = anon[(anon["PI of Anonymeter's rates"] >= 0) & (anon["PI of Anonymeter's rates"] <= 1)]
    full = alc[(alc["attack recall"] == 1) & (alc["base recall"] == 1)]
    return {
        "risk_vs_pi_of_rates": float((inside["Anonymeter risk"] - inside["PI of Anonymeter's rates"]).abs().max())
        if len(inside) else math.nan,
        "alc_vs_pi_full": float((full["ALC"] - full["PI of the midpoints"]).abs().max()) if len(full) else math.nan,
        "wilson_shift": float((anon["PI of Anonymeter's rates"] - anon["PI, control as baseline"]).abs().max()),
    }


def summary_numbers(anon: pd.DataFrame, alc: pd.DataFrame, peers: Mapping[str, Any]) -> dict[str, Any]:
    """The peers' numbers chapter 9's prose quotes."""
    m = anon.xs("members published", level="input").iloc[0]
    s = anon.xs("synthetic copy", level="input").iloc[0]
    naive = anon.xs("ε-DP counts (chapter 5)", level="input").iloc[0]
    nrow = alc.loc["naive attack"]
    grid = pd.DataFrame(peers["alc_grid"])
    at = {r: float(grid.loc[(grid["recall"] - r).abs().idxmin(), "alc"]) for r in (0.01, 0.001)}
    out = {
        "risk_members": float(m["Anonymeter risk"]), "risk_width_members": float(m["risk high"] - m["risk low"]),
        "risk_synth": float(s["Anonymeter risk"]), "risk_naive": float(naive["Anonymeter risk"]),
        "pi_members_ctl": float(m["PI, control as baseline"]), "pi_members_base": float(m["PI vs baseline (same targets)"]),
        "pi_synth_ctl": float(s["PI, control as baseline"]), "pi_synth_base": float(s["PI vs baseline (same targets)"]),
        "p_members": float(m["precision"]), "p_members_ctl": float(m["control precision"]),
        "p_members_base": float(m["baseline precision (same targets)"]),
        "pi_naive": float(naive["PI vs baseline (same targets)"]),
        "alc_members": float(alc.loc["members published | baseline model", "ALC"]),
        "alc_members_ctl": float(alc.loc["members published | control attack", "ALC"]),
        "alc_synth": float(alc.loc["synthetic copy | baseline model", "ALC"]),
        "alc_naive": float(nrow["ALC"]), "alc_naive_recall": float(nrow["attack recall"]),
        "alc_naive_base_recall": float(nrow["base recall"]), "pi_naive_at_alc": float(nrow["PI at the ALC's recall"]),
        "alc_at_1pct": at[0.01], "alc_at_01pct": at[0.001],
        "anonymeter_version": peers["versions"]["anonymeter"],
        "alc_version": peers["versions"]["anonymity-loss-coefficient"],
        "peer_seconds": float(sum(r["seconds"] for r in peers["anonymeter"].values())),
    }
    return out


def summary_numbers_missing(reason: str) -> dict[str, Any]:
    """The same keys as :func:`summary_numbers` when the peers did not run: NaN numbers, ``reason`` as text."""
    text = {"anonymeter_version", "alc_version"}
    keys = ("risk_members", "risk_width_members", "risk_synth", "risk_naive", "pi_members_ctl", "pi_members_base",
            "pi_synth_ctl", "pi_synth_base", "p_members", "p_members_ctl", "p_members_base", "pi_naive",
            "alc_members", "alc_members_ctl", "alc_synth", "alc_naive", "alc_naive_recall", "alc_naive_base_recall",
            "pi_naive_at_alc", "alc_at_1pct", "alc_at_01pct", "anonymeter_version", "alc_version", "peer_seconds")
    return {k: (reason if k in text else math.nan) for k in keys}


def relations_missing() -> dict[str, float]:
    """The keys of :func:`relations`, NaN (the peers did not run)."""
    return {"risk_vs_pi_of_rates": math.nan, "alc_vs_pi_full": math.nan, "wilson_shift": math.nan}

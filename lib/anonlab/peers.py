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
2. runs :mod:`anonlab.peers_script` with the peers' Python as a subprocess
   (:func:`run_peers`), which calls the packages as released;
3. reads their numbers back (a plain dict, see the script's docstring).

Nothing here re-implements either tool. The comparison with the book's
precision, coverage and PI is in :mod:`anonlab.chapters.ch09_one_yardstick`.

``ANONLAB_PEERS_PYTHON`` names another interpreter with the same packages.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import paths
from .measures import AttackResult

__all__ = ["PEERS_PYTHON_ENV", "LOCK_NAME", "SCRIPT", "PeerError", "PeersMissing", "PeerInputs", "peers_python", "lock_path",
           "write_inputs", "run_peers", "predictions_of", "inputs_digest", "environment_digest"]

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


def environment_digest() -> str:
    """SHA-256 of the peers' lock and script: part of the key of a cached peer run."""
    h = hashlib.sha256()
    for f in (lock_path(), SCRIPT):
        if f.exists():
            h.update(f.read_bytes())
    return h.hexdigest()


def inputs_digest(folder: str | Path) -> str:
    """SHA-256 of the written inputs, the peers' lock and the script: the key of a peer run."""
    h = hashlib.sha256()
    for f in sorted(Path(folder).iterdir()):
        if f.name.endswith((".parquet", ".json")) and f.name != "results.json":
            h.update(f.name.encode())
            h.update(f.read_bytes())
    for f in (lock_path(), SCRIPT):
        if f.exists():
            h.update(f.read_bytes())
    return h.hexdigest()


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
    try:
        proc = subprocess.run([str(exe), str(SCRIPT), str(folder), str(out)], capture_output=True, text=True,
                              timeout=timeout, env=env, check=False)
    except subprocess.TimeoutExpired:
        raise PeerError(f"the peer tools did not finish within {timeout:g} s") from None
    if proc.returncode != 0 or not out.exists():
        raise PeerError(f"the peer tools failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(out.read_text(encoding="utf-8"))

"""The peer tools' side of the comparison: runs *inside* the peers' environment, never imported by the book.

Anonymeter 1.1.0 needs NumPy < 1.27 and the book runs on NumPy 2, so the two
peer tools live in their own environment (``.venv-peers``, from
``requirements-peers.lock``). :mod:`anonbook.peers` writes the inputs into a
folder and runs this file there as a subprocess::

    .venv-peers/bin/python lib/anonbook/peers_script.py INPUT_DIR OUTPUT.json

It imports nothing from ``anonlab`` (which is not installed there) and
re-implements nothing: every number it writes comes from the packages' own
classes, called as their documentation shows.

Anonymeter (``anonymeter.evaluators.InferenceEvaluator``)
    its own attack (the nearest release row on the auxiliary columns, by
    its mixed-type distance) on the targets (``ori``) and on the control
    records (``control``, not in the release), its Wilson success rates and
    its risk = (attack − control) / (1 − control) with the propagated error;
    and its ``EvaluationResults`` on the counts of an attack the book ran.
The ALC package (``anonymity_loss_coefficient``)
    ``ScoreInterval.compute_best_prc`` (the precision, recall and PRC at the
    confidence threshold that maximises the PRC, precision at the Wilson
    interval's midpoint) for an attack's and a baseline's predictions, and
    ``AnonymityLossCoefficient.alc`` of the two; and ``alc`` on a grid of
    coverages (the recall weighting).

Inputs (``spec.json`` and Parquet files beside it) and the output are
described in :mod:`anonbook.peers`. The imports are inside :func:`main`, so
that the book's test suite can collect this file without the peer tools.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any


def _versions() -> dict[str, str]:
    """Versions of the packages that made the numbers."""
    from importlib.metadata import version

    return {p: version(p) for p in ("anonymeter", "anonymity-loss-coefficient", "numpy", "pandas",
                                    "scikit-learn", "scipy")}


def _rate(r: Any) -> dict[str, float]:
    return {"value": float(r.value), "error": float(r.error)}


def run_anonymeter(spec: dict[str, Any], folder: Path, release: str) -> dict[str, Any]:
    """Anonymeter's inference evaluator on one release: ori = targets, syn = release, control = control records."""
    import numpy as np
    import pandas as pd
    from anonymeter.evaluators import InferenceEvaluator
    from anonymeter.evaluators.inference_evaluator import evaluate_inference_guesses

    ori = pd.read_parquet(folder / spec["targets"])
    control = pd.read_parquet(folder / spec["control"])
    syn = pd.read_parquet(folder / spec["releases"][release])
    np.random.seed(int(spec["seed"]))  # the evaluator samples with NumPy's global generator
    start = time.perf_counter()
    ev = InferenceEvaluator(ori=ori, syn=syn, control=control, aux_cols=list(spec["aux"]),
                            secret=spec["secret"], regression=False, n_attacks=int(spec["n_attacks"]))
    ev.evaluate(n_jobs=int(spec.get("n_jobs", 2)))
    res = ev.results(confidence_level=float(spec["confidence"]))
    risk = ev.risk(confidence_level=float(spec["confidence"]))
    guesses, correct = {}, {}
    for name, g, rows in (("targets", ev._guesses_success, ori), ("control", ev._guesses_control, control)):
        guesses[name] = {str(k): (None if pd.isna(v) else str(v)) for k, v in g.items()}
        ok = evaluate_inference_guesses(guesses=g, secrets=rows.loc[g.index, spec["secret"]], regression=False)
        correct[name] = {str(k): bool(v) for k, v in zip(g.index, ok)}
    return {
        "n_attacks": [int(res.n_attacks_ori), int(res.n_attacks_baseline), int(res.n_attacks_control)],
        "n_success": int(res.n_success), "n_baseline": int(res.n_baseline), "n_control": int(res.n_control),
        "attack_rate": _rate(res.attack_rate), "baseline_rate": _rate(res.baseline_rate),
        "control_rate": _rate(res.control_rate),
        "risk": float(risk.value), "risk_ci": [float(risk.ci[0]), float(risk.ci[1])],
        "guesses": guesses, "correct": correct, "seconds": time.perf_counter() - start,
    }


def anonymeter_counts(n: int, n_success: int, n_control: int, confidence: float) -> dict[str, Any]:
    """Anonymeter's ``EvaluationResults`` on counts: ``n`` attacks, ``n_success`` right, the control ``n_control``."""
    import warnings

    from anonymeter.stats.confidence import EvaluationResults

    with warnings.catch_warnings():  # it warns when the attack does not beat its baseline: the value says so
        warnings.simplefilter("ignore")
        res = EvaluationResults(n_attacks=(n, n, n), n_success=n_success, n_baseline=0, n_control=n_control,
                                confidence_level=confidence)
        risk = res.risk()
    return {"attack_rate": _rate(res.attack_rate), "control_rate": _rate(res.control_rate),
            "risk": float(risk.value), "risk_ci": [float(risk.ci[0]), float(risk.ci[1])]}


def alc_of(attack: dict[str, list], base: dict[str, list], confidence: float) -> dict[str, Any]:
    """The ALC package's score of an attack against a baseline: each one's best PRC, and the ALC of the two.

    ``attack`` and ``base`` hold per target ``correct`` (bool) and
    ``confidence`` (higher = surer; a prediction the attack abstained from
    has none and is left out, as the package's abstention does not count).
    """
    import pandas as pd
    from anonymity_loss_coefficient import AnonymityLossCoefficient
    from anonymity_loss_coefficient.alc.score_interval import ScoreInterval

    si = ScoreInterval(si_type="wilson_score_interval", si_confidence=confidence)
    out: dict[str, Any] = {}
    for name, preds, conf in (("attack", attack, "attack_confidence"), ("base", base, "base_confidence")):
        df = pd.DataFrame({"prediction": [bool(c) for c in preds["correct"]], conf: preds["confidence"]})
        best = si.compute_best_prc(df=df, conf=conf)  # its default: a precision interval narrower than 0.1
        out[name] = {k: float(v) for k, v in best.items()}
    a, b = out["attack"], out["base"]
    out["alc"] = AnonymityLossCoefficient().alc(p_base=b["prec"], r_base=b["recall"], p_attack=a["prec"],
                                                r_attack=a["recall"])
    return out


def alc_grid(grid: dict[str, Any]) -> list[dict[str, float]]:
    """``AnonymityLossCoefficient.alc`` at each attack recall of a grid (fixed precisions, baseline recall)."""
    from anonymity_loss_coefficient import AnonymityLossCoefficient

    alc = AnonymityLossCoefficient()
    return [{"recall": float(r), "prc_attack": alc.prc(grid["p_attack"], r),
             "alc": alc.alc(p_base=grid["p_base"], r_base=grid["r_base"], p_attack=grid["p_attack"], r_attack=r)}
            for r in grid["recalls"]]


def main(argv: list[str]) -> int:
    """``peers_script.py INPUT_DIR OUTPUT.json``: run every evaluation ``spec.json`` asks for."""
    if len(argv) != 2:
        print("usage: peers_script.py INPUT_DIR OUTPUT.json", file=sys.stderr)
        return 2
    folder, output = Path(argv[0]), Path(argv[1])
    spec = json.loads((folder / "spec.json").read_text(encoding="utf-8"))
    conf = float(spec["confidence"])
    out: dict[str, Any] = {"versions": _versions(), "anonymeter": {}, "alc": {}, "anonymeter_counts": {},
                           "alc_grid": []}
    for release in spec.get("releases", {}):
        res = out["anonymeter"][release] = run_anonymeter(spec, folder, release)
        # the ALC of the same guesses: against the book's baseline model on the same targets, and against
        # the same attack on the control records (Anonymeter's comparison); the nearest-row attack has no
        # confidence, so every guess counts the same
        attack = {"correct": list(res["correct"]["targets"].values()),
                  "confidence": [1.0] * len(res["correct"]["targets"])}
        control = {"correct": list(res["correct"]["control"].values()),
                   "confidence": [1.0] * len(res["correct"]["control"])}
        base = spec.get("baseline_on_targets")
        if base:
            ids = list(res["correct"]["targets"])
            model = {"correct": [base["correct"][i] for i in ids], "confidence": [base["confidence"][i] for i in ids]}
            out["alc"][f"{release} | baseline model"] = alc_of(attack, model, conf)
        out["alc"][f"{release} | control attack"] = alc_of(attack, control, conf)
    for name, job in spec.get("alc", {}).items():
        out["alc"][name] = alc_of(job["attack"], job["base"], conf)
    for name, c in spec.get("counts", {}).items():
        out["anonymeter_counts"][name] = anonymeter_counts(int(c["n"]), int(c["n_success"]), int(c["n_control"]),
                                                           conf)
    if spec.get("alc_grid"):
        out["alc_grid"] = alc_grid(spec["alc_grid"])
    output.write_text(json.dumps(out, indent=1, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""One source of truth for dependencies: pyproject -> requirements.lock -> environment.yml."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _lock_pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        if m:
            pins[m.group(1).lower().replace("_", "-")] = m.group(2)
    return pins


def _name(req: str) -> str:
    return re.split(r"[<>=!~\[; ]", req, maxsplit=1)[0].lower().replace("_", "-")


def test_every_declared_dependency_is_pinned_in_the_lock() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        reqs += extra
    pins = _lock_pins()
    missing = [r for r in reqs if _name(r) not in pins]
    assert not missing, f"run `make lock`: not in requirements.lock: {missing}"


def test_exact_pins_in_pyproject_agree_with_the_lock() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = _lock_pins()
    for extra in [project["dependencies"], *project["optional-dependencies"].values()]:
        for r in extra:
            if "==" in r:
                name, version = r.split("==")
                assert pins[_name(name)] == version.strip(), r


def test_jupyter_book_is_version_1() -> None:
    assert _lock_pins()["jupyter-book"].startswith("1.")


def test_environment_yml_installs_the_same_lock() -> None:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    deps = env["dependencies"]
    pip = next(d["pip"] for d in deps if isinstance(d, dict) and "pip" in d)
    assert "-r requirements.lock" in pip
    assert "-e ." in pip
    # no package may be pinned on the conda side (it would drift from the lock)
    conda_pkgs = [d for d in deps if isinstance(d, str)]
    assert all(_name(d) in {"python", "pip"} for d in conda_pkgs), conda_pkgs
    python = next(d for d in conda_pkgs if d.startswith("python"))
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == ">=" + python.split("=")[1]


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in readme and "make book" in readme
    assert re.search(r"^make test\b", ci, flags=re.M)

"""Provenance of a chapter run: versions, data checksums, parameters.

Every chapter ends with ``anonbook.provenance.show()``, which renders this as
tables so that a reader can tell exactly what produced the numbers above.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Iterable, Mapping
from importlib import metadata
from typing import Any

import pandas as pd

from anonbook.booktables import parameter_text

__all__ = ["package_versions", "data_checksums", "run_parameters", "show"]

PACKAGES = (
    "anonlab", "numpy", "pandas", "scipy", "scikit-learn", "matplotlib",
    "papermill", "myst-nb", "jupyter-book", "pyarrow",
)


def package_versions(packages: Iterable[str] = PACKAGES) -> pd.DataFrame:
    """Python and the installed versions of the packages the book relies on."""
    rows = [{"package": "python", "version": platform.python_version()}]
    for name in packages:
        try:
            v = metadata.version(name)
        except metadata.PackageNotFoundError:
            v = "not installed"
        rows.append({"package": name, "version": v})
    return pd.DataFrame(rows)


def data_checksums(names: Iterable[str] | None = None) -> pd.DataFrame:
    """The manifest entries (package pin, member sha256) of the data sets used, with the file's name in the
    cache (``package-version/member``; the cache folder itself is this machine's and is not shown)."""
    from anonlab.data import data_status, load_manifest

    status = data_status()
    sha = {name: e.sha256 for name, e in load_manifest().datasets.items()}
    # the file as the manifest names it, not where this machine's cache keeps it (no local path on a page)
    status = status.assign(sha256=status["name"].map(sha),
                           path=status["path"].map(lambda p: "/".join(str(p).replace("\\", "/").split("/")[-2:])))
    if names is not None:
        wanted = set(names)
        status = status[status["name"].isin(wanted)]
    return status.reset_index(drop=True)


def run_parameters(parameters: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The parameters of this run: given, or those the runner passed (``ANONLAB_RUN_PARAMETERS``)."""
    if parameters is None:
        raw = os.environ.get("ANONLAB_RUN_PARAMETERS")
        parameters = json.loads(raw) if raw else {}
    return pd.DataFrame(
        [{"parameter": k, "value": v if isinstance(v, (list, tuple)) and len(v) > 3 else parameter_text(v)}
         for k, v in parameters.items()],  # a long list stays a list, so the book's table folds it
        columns=["parameter", "value"],
    )


def show(parameters: Mapping[str, Any] | None = None, data: Iterable[str] | None = None) -> None:
    """Display versions, data checksums (of ``data``, a list of manifest names) and parameters."""
    from IPython.display import Markdown, display

    display(Markdown(f"**Python** {sys.version.split()[0]} on {platform.platform(terse=True)}"))
    display(Markdown("**Packages**: the installed version of each package the book relies on"))
    display(package_versions())
    if data is not None:
        display(Markdown("**Data sets** this run read, with the sha256 of each file the manifest pins"))
        display(data_checksums(data))
    params = run_parameters(parameters)
    if len(params):
        display(Markdown("**Parameters** of this run"))
        display(params)

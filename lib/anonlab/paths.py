"""Where the project's files live.

The library is installed editable from ``lib/``, so the project root is two
levels above the package. ``ANONLAB_ROOT`` overrides it (for an installed
copy of the library used with a checkout elsewhere).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["project_root", "ledger_path", "book_dir", "output_dir", "notebooks_dir"]


def project_root() -> Path:
    """The project checkout: ``$ANONLAB_ROOT`` or the folder above ``lib/``."""
    env = os.environ.get("ANONLAB_ROOT")
    if env:
        return Path(env).resolve()
    return Path(__file__).resolve().parents[2]


def ledger_path() -> Path:
    """The claims ledger, ``data/claims.yaml``."""
    return project_root() / "data" / "claims.yaml"


def book_dir() -> Path:
    """The book's source folder, where executed notebooks are published."""
    return project_root() / "book"


def notebooks_dir() -> Path:
    """The folder of the parameterised source notebooks."""
    return project_root() / "notebooks"


def output_dir() -> Path:
    """Where a running notebook writes its results.

    The runner sets ``ANONLAB_OUTPUT_DIR`` to a temporary folder while it
    executes a notebook (and moves everything into ``book/`` on success);
    interactively it is ``book/``.
    """
    env = os.environ.get("ANONLAB_OUTPUT_DIR")
    return Path(env) if env else book_dir()

"""Where the project's files and the data cache live (the library's one paths module).

Environment variables change the defaults:

``ANONLAB_ROOT``
    The project root (the folder holding ``data/manifest.yaml``). Default: the checkout the package is imported from
    (the library is installed editable from ``lib/``, so the root is two levels above the package), or the folder the
    package's source sits in beside ``data/manifest.yaml`` (an assignment's autograder zip: ``anonlab/`` and ``data/``
    side by side).
``ANONLAB_DATA_DIR``
    The data cache. Default: ``platformdirs.user_cache_dir("anonlab")`` (``~/.cache/anonlab`` on Linux).
``ANONLAB_OUTPUT_DIR``
    Set by the runner while a notebook executes (see :func:`output_dir`).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["project_root", "other_checkout", "ledger_path", "book_dir", "output_dir", "notebooks_dir", "manifest_path",
           "cache_dir", "ROOT_ENV", "DATA_DIR_ENV"]

ROOT_ENV = "ANONLAB_ROOT"
DATA_DIR_ENV = "ANONLAB_DATA_DIR"


def project_root() -> Path:
    """The project checkout: ``$ANONLAB_ROOT``, else the folder above ``lib/``.

    When the folder above ``lib/`` holds no ``data/manifest.yaml`` but the folder holding the package does (the
    library's source copied beside its manifest, as in an autograder zip), that folder.
    """
    env = os.environ.get("ANONLAB_ROOT")
    if env:
        return Path(env).resolve()
    package = Path(__file__).resolve().parent
    checkout, beside = package.parents[1], package.parent
    if not (checkout / "data" / "manifest.yaml").is_file() and (beside / "data" / "manifest.yaml").is_file():
        return beside
    return checkout


def other_checkout(cwd: Path | None = None) -> Path | None:
    """The project checkout the working directory is in, when it is not :func:`project_root` (else ``None``).

    A checkout is a folder with ``data/manifest.yaml`` and ``lib/anonlab``; runs read and write :func:`project_root`
    only, so a second clone needs ``ANONLAB_ROOT`` (and its own ``lib`` first on the path).
    """
    here = (cwd or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "data" / "manifest.yaml").is_file() and (folder / "lib" / "anonlab").is_dir():
            return None if folder == project_root() else folder
    return None


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

    The runner sets ``ANONLAB_OUTPUT_DIR`` to a temporary folder while it executes a notebook (and moves everything
    into ``book/`` on success); interactively it is ``book/``.
    """
    env = os.environ.get("ANONLAB_OUTPUT_DIR")
    return Path(env) if env else book_dir()


def manifest_path() -> Path:
    """The data manifest, ``data/manifest.yaml``."""
    return project_root() / "data" / "manifest.yaml"


def cache_dir() -> Path:
    """The data cache folder (``$ANONLAB_DATA_DIR`` or the user cache); not created here."""
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env).expanduser().resolve()
    import platformdirs

    return Path(platformdirs.user_cache_dir("anonlab"))

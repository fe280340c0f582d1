"""Where the project and the data cache are on this machine.

Two environment variables change the defaults:

``ANONLAB_ROOT``
    The project root (the folder holding ``data/manifest.yaml``). Default: the
    checkout the package is imported from, ``Path(anonlab.__file__).parents[2]``
    (``lib/anonlab/__init__.py`` -> project root).
``ANONLAB_DATA_DIR``
    The data cache. Default: ``platformdirs.user_cache_dir("anonlab")``
    (``~/.cache/anonlab`` on Linux).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from anonlab.paths import project_root

ROOT_ENV = "ANONLAB_ROOT"  # read by anonlab.paths.project_root
DATA_DIR_ENV = "ANONLAB_DATA_DIR"


def manifest_path() -> Path:
    """Return the path of ``data/manifest.yaml`` under :func:`project_root`."""
    return project_root() / "data" / "manifest.yaml"


def cache_dir() -> Path:
    """Return the data cache folder (``$ANONLAB_DATA_DIR`` or the user cache).

    The folder is not created here; :func:`anonlab.data.fetch` creates it when
    it first stores a file.
    """
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env).expanduser().resolve()
    return Path(platformdirs.user_cache_dir("anonlab"))

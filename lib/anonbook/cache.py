"""A result cache for expensive computations, keyed by everything that can change them.

Jupyter's own caches key only on the code of a cell, so edits to the library
or the data do not invalidate them and stale numbers get published. Here the
key of a cached result is the name of the computation, its parameters, a
fingerprint of the whole ``anonlab`` source, and the data manifest (which
holds every data checksum)::

    result = cached("definetti_adult", {"l": 5, "iterations": 1000, "seed": 0},
                    lambda: run_definetti(...))

Results are pickled under ``<data cache>/results/<name>/<key>.pkl`` and
written atomically. ``ANONLAB_NO_CACHE=1`` disables the cache (every call
computes); :func:`clear` empties it.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from anonlab import paths
from anonlab.fileio import atomic_write

__all__ = ["cached", "is_cached", "cache_key", "library_fingerprint", "results_dir", "clear"]

T = TypeVar("T")


#: Puts the result cache elsewhere than ``<data cache>/results``: an empty one times a cold build (the benchmark).
RESULTS_DIR_ENV = "ANONLAB_RESULTS_DIR"


def results_dir() -> Path:
    """``$ANONLAB_RESULTS_DIR``, else ``<data cache>/results`` (the data cache is ``$ANONLAB_DATA_DIR`` or the user cache)."""
    env = os.environ.get(RESULTS_DIR_ENV)
    return Path(env) if env else paths.cache_dir() / "results"


@lru_cache(maxsize=1)
def library_fingerprint() -> str:
    """SHA-256 over the source of every module of the science (``anonlab``) and the book machine (``anonbook``)."""
    lib = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for pkg in (lib / "anonlab", lib / "anonbook"):
        for f in sorted(pkg.rglob("*.py")):
            h.update(str(f.relative_to(lib)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def _manifest_bytes() -> bytes:
    p = paths.manifest_path()
    return p.read_bytes() if p.exists() else b""


def cache_key(name: str, params: Mapping[str, Any]) -> str:
    """Hash of the computation's name, parameters, library source and data manifest."""
    h = hashlib.sha256()
    h.update(name.encode())
    h.update(json.dumps(params, sort_keys=True, default=repr).encode())
    h.update(library_fingerprint().encode())
    h.update(_manifest_bytes())
    return h.hexdigest()[:32]


def cached(name: str, params: Mapping[str, Any], compute: Callable[[], T]) -> T:
    """Return the cached result of ``compute()`` for these parameters, computing it once.

    ``params`` must include every input that changes the result (data set,
    sizes, seeds, ...). A failed computation stores nothing.
    """
    if not name or "/" in name:
        raise ValueError(f"cache name must be a simple name, got {name!r}")
    if os.environ.get("ANONLAB_NO_CACHE"):
        return compute()
    path = results_dir() / name / f"{cache_key(name, params)}.pkl"
    if path.exists():
        try:
            with open(path, "rb") as fh:
                return pickle.load(fh)
        except (OSError, pickle.UnpicklingError, EOFError):
            path.unlink(missing_ok=True)  # a damaged entry is recomputed
    result = compute()
    try:
        atomic_write(path, lambda fh: pickle.dump(result, fh, protocol=pickle.HIGHEST_PROTOCOL), binary=True)
    except OSError as exc:  # a read-only cache: the result is still right, it is just not kept
        _warn_unwritable(path.parent, exc)
    return result


def is_cached(name: str, params: Mapping[str, Any]) -> bool:
    """Would :func:`cached` with this name and these parameters load a stored result (not compute)?"""
    if os.environ.get("ANONLAB_NO_CACHE"):
        return False
    return (results_dir() / name / f"{cache_key(name, params)}.pkl").exists()


_WARNED: set[str] = set()


def _warn_unwritable(folder: Path, exc: OSError) -> None:
    import warnings

    if str(folder) not in _WARNED:
        _WARNED.add(str(folder))
        warnings.warn(f"the result cache {folder} is not writable ({exc.strerror}); results are "
                      "computed but not kept (set ANONLAB_DATA_DIR to a writable folder)", stacklevel=3)


def clear(name: str | None = None) -> None:
    """Remove cached results (of one computation, or all)."""
    target = results_dir() / name if name else results_dir()
    shutil.rmtree(target, ignore_errors=True)

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

__all__ = ["cached", "is_cached", "cache_key", "library_fingerprint", "per_file_version", "file_bytes", "results_dir",
           "clear"]

T = TypeVar("T")


#: Puts the result cache elsewhere than ``<data cache>/results``: an empty one times a cold build (the benchmark).
RESULTS_DIR_ENV = "ANONLAB_RESULTS_DIR"


def results_dir() -> Path:
    """``$ANONLAB_RESULTS_DIR``, else ``<data cache>/results`` (the data cache is ``$ANONLAB_DATA_DIR`` or the user cache)."""
    env = os.environ.get(RESULTS_DIR_ENV)
    return Path(env) if env else paths.cache_dir() / "results"


@lru_cache(maxsize=1)
def per_file_version(read: Callable[[Path], T]) -> Callable[[Path], T]:
    """``read(path)``, computed once per version of the file (its path, modification time and size).

    The book machine's one memo of files: the library's source for the fingerprint and the run keys, a
    chapter page's markdown for the chapter's declaration.
    """
    memo: dict[tuple[str, int, int], T] = {}

    def once(path: Path) -> T:
        st = Path(path).stat()
        tag = (str(path), st.st_mtime_ns, st.st_size)
        if tag not in memo:
            memo[tag] = read(Path(path))
        return memo[tag]

    return once


#: The bytes of a file, read once per version of it.
file_bytes = per_file_version(Path.read_bytes)


def library_fingerprint(lib: Path | None = None) -> str:
    """SHA-256 over the source of every module of the science (``anonlab``) and the book machine (``anonbook``).

    ``lib`` is the folder holding both packages (default: the one they are imported from).
    """
    lib = Path(__file__).resolve().parents[1] if lib is None else Path(lib)
    h = hashlib.sha256()
    for pkg in (lib / "anonlab", lib / "anonbook"):
        for f in sorted(pkg.rglob("*.py")):
            h.update(str(f.relative_to(lib)).encode())
            h.update(file_bytes(f))
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


#: Marks a stored entry as this cache's: ``{ENVELOPE: 1, "key": ..., "type": ..., "result": ...}``.
ENVELOPE = "anonbook.cache"


def _type_name(obj: Any) -> str:
    """``module.QualifiedName`` of an object's type: what an entry must unpickle to."""
    t = type(obj)
    return f"{t.__module__}.{t.__qualname__}"


def _load_entry(path: Path, key: str, expect: type | tuple[type, ...] | None) -> tuple[bool, Any]:
    """``(True, result)`` for a sound entry; ``(False, None)`` after discarding a bad one with a one-line warning.

    Sound: it unpickles (no ``ModuleNotFoundError``, truncation, ...), it is
    this cache's envelope for this key, the result has the type it was
    stored with, and (with ``expect``) an instance of ``expect``.
    """
    try:
        with open(path, "rb") as fh:
            entry = pickle.load(fh)  # noqa: S301 - our own cache folder
    except FileNotFoundError:
        return False, None
    except Exception as exc:  # unpickling can raise anything: ModuleNotFoundError, AttributeError, EOFError, ...
        why = f"it does not unpickle: {type(exc).__name__}: {str(exc)[:100]}"
    else:
        if not (isinstance(entry, dict) and entry.get(ENVELOPE) == 1 and entry.get("key") == key
                and "result" in entry):
            why = f"it is not an entry of this cache for this key (it holds a {_type_name(entry)})"
        elif _type_name(entry["result"]) != entry.get("type"):
            why = f"it holds a {_type_name(entry['result'])}, stored as a {entry.get('type')}"
        elif expect is not None and not isinstance(entry["result"], expect):
            why = f"it holds a {_type_name(entry['result'])}, not the {expect!r} expected"
        else:
            return True, entry["result"]
    _warn(f"the result cache entry {path} is discarded and recomputed: {why}")
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass  # a read-only cache: computed again every time, which _warn_unwritable says when writing
    return False, None


def cached(name: str, params: Mapping[str, Any], compute: Callable[[], T],
           expect: type | tuple[type, ...] | None = None) -> T:
    """Return the cached result of ``compute()`` for these parameters, computing it once.

    ``params`` must include every input that changes the result (data set,
    sizes, seeds, ...). A failed computation stores nothing. An entry that
    does not unpickle, or unpickles to another type than it was stored with
    (or than ``expect``), is never trusted: it is discarded with a one-line
    warning naming it, and recomputed (:func:`_load_entry`).
    """
    if not name or "/" in name:
        raise ValueError(f"cache name must be a simple name, got {name!r}")
    if os.environ.get("ANONLAB_NO_CACHE"):
        return compute()
    key = cache_key(name, params)
    path = results_dir() / name / f"{key}.pkl"
    if path.exists():
        ok, result = _load_entry(path, key, expect)
        if ok:
            return result
    result = compute()
    entry = {ENVELOPE: 1, "key": key, "type": _type_name(result), "result": result}
    try:
        atomic_write(path, lambda fh: pickle.dump(entry, fh, protocol=pickle.HIGHEST_PROTOCOL), binary=True)
    except OSError as exc:  # a read-only cache: the result is still right, it is just not kept
        _warn_unwritable(path.parent, exc)
    return result


def is_cached(name: str, params: Mapping[str, Any]) -> bool:
    """Would :func:`cached` with this name and these parameters load a stored result (not compute)?"""
    if os.environ.get("ANONLAB_NO_CACHE"):
        return False
    return (results_dir() / name / f"{cache_key(name, params)}.pkl").exists()


_WARNED: set[str] = set()


def _in_a_run() -> str | None:
    """The output folder of the chapter run this process executes (set by the runner), else ``None``."""
    return os.environ.get("ANONLAB_OUTPUT_DIR") or None


def _warn(message: str) -> None:
    """One line: in a chapter's run on standard error, which the runner keeps in the run's log
    (``_build/logs/<chapter>.kernel.log``); called directly, a Python warning."""
    import sys
    import warnings

    if _in_a_run():
        print(f"[anonlab] warning: {message}", file=sys.stderr, flush=True)
    else:
        warnings.warn(message, stacklevel=4)


def _warn_unwritable(folder: Path, exc: OSError) -> None:
    """Say once per folder and run (each run of a shared kernel, in its own log) that results are not kept."""
    seen = f"{folder}|{_in_a_run()}"
    if seen not in _WARNED:
        _WARNED.add(seen)
        _warn(f"the result cache {folder} is not writable or full ({exc.strerror or exc}); results are "
              "computed but not kept (set ANONLAB_DATA_DIR to a writable folder with space)")


def clear(name: str | None = None) -> None:
    """Remove cached results (of one computation, or all)."""
    target = results_dir() / name if name else results_dir()
    shutil.rmtree(target, ignore_errors=True)

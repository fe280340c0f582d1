"""Atomic file writes with the permissions of an ordinary file.

``tempfile.mkstemp`` creates files readable by their owner only (mode 0600); a book built on a shared course machine
must be readable by the group like any other build output. Everything the library writes (results, cached results,
fetched data) goes through :func:`atomic_write`: the content lands in a temporary file beside the target, gets the
mode the user's umask gives new files, and replaces the target in one step, so a reader never sees a half-written file
and a failure leaves the old one in place.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_write", "default_file_mode", "copy_parts"]


def default_file_mode() -> int:
    """The mode a plain ``open(path, "w")`` would give a new file (``0o666 & ~umask``)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path: str | Path, write: Callable[[IO[Any]], None], *, binary: bool = False) -> Path:
    """Write ``path`` atomically: ``write(fh)`` fills a temporary file that then replaces ``path``.

    >>> import json, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> p = atomic_write(d / "x.json", lambda fh: json.dump({"a": 1}, fh))
    >>> p.read_text(), oct(p.stat().st_mode & 0o777) == oct(default_file_mode())
    ('{"a": 1}', True)
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as fh:
            write(fh)
        os.chmod(tmp, default_file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def copy_parts(src: Path, dest: Path, parts: Iterable[str]) -> Path:
    """Copy each of ``parts`` (files or folders, relative paths) from ``src`` to the same place under ``dest``.

    How the build vendors a package's assets (MathJax, reveal.js) into the book; returns ``dest``.
    """
    import shutil

    for part in parts:
        s, d = Path(src) / part, Path(dest) / part
        d.parent.mkdir(parents=True, exist_ok=True)
        if s.is_dir():
            shutil.copytree(s, d, dirs_exist_ok=True)
        else:
            shutil.copy2(s, d)
    return Path(dest)

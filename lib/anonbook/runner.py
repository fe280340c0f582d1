"""Execute the chapter notebooks with papermill and publish them into ``book/``.

papermill on its own only *warns* about unknown parameter names and writes
the output notebook even when a cell fails. This runner is stricter:

* parameters are checked against the chapter's declaration
  (:mod:`anonbook.chapters`) before anything runs: unknown names, values of
  the wrong type and values out of range are refused;
* the notebook executes into a temporary folder (its results file too, via
  ``ANONLAB_OUTPUT_DIR``) and is moved into ``book/`` only on success, so a
  failed run never replaces a good executed notebook; the failed notebook is
  kept under ``_build/failed/`` for inspection;
* the parameters used, the run time and a cache key are written to
  ``book/<name>.params.json``; :func:`run_notebook` skips a run whose key
  (notebook source, library source, ledger, lock file, parameters) has not
  changed, unless ``force=True``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anonlab import paths
from anonlab.fileio import atomic_write, default_file_mode
from anonbook.cache import file_bytes, library_fingerprint

__all__ = [
    "RunError",
    "RunInterrupted",
    "kernel_log",
    "RunResult",
    "SharedKernel",
    "notebook_parameters",
    "validate_parameters",
    "resolve_notebook",
    "run_notebook",
    "toc_notebooks",
    "describe_parameters",
    "quick_parameters",
    "parse_cli_value",
    "check_cli_text",
    "chapter_lock",
]

KERNEL_NAME = "python3"

#: Set by a build that runs other runs beside this one (:mod:`anonbook.schedule`): recorded with the run's time.
CONCURRENT_BUILD_ENV = "ANONLAB_CONCURRENT_BUILD"


class RunError(RuntimeError):
    """A notebook could not be run: bad parameters, or a cell failed."""


class RunInterrupted(RunError):
    """The user interrupted a run (Ctrl-C); nothing was published."""


@dataclass(frozen=True)
class RunResult:
    """What a run produced."""

    name: str
    notebook: Path
    results: Path | None
    parameters: dict[str, Any]
    seconds: float
    cached: bool


def resolve_notebook(notebook: str | Path) -> Path:
    """Find a source notebook by path or by bare name (``01_syntactic_anonymity``)."""
    p = Path(notebook)
    candidates = [p, p.with_suffix(".ipynb"), paths.notebooks_dir() / p.name,
                  paths.notebooks_dir() / p.with_suffix(".ipynb").name]
    for c in candidates:
        try:
            if c.is_file() and c.suffix == ".ipynb":
                return c.resolve()
        except (OSError, ValueError):  # a name too long or with a NUL byte is no notebook
            continue
    available = sorted(q.stem for q in paths.notebooks_dir().glob("*.ipynb"))
    shown = str(notebook) if len(str(notebook)) <= 80 else str(notebook)[:77] + "..."
    raise RunError(f"no notebook {shown!r}; available: {', '.join(available)}")


def notebook_parameters(path: Path) -> dict[str, Any]:
    """The parameters declared in the notebook's ``parameters`` cell, with defaults.

    Raises :class:`RunError` if the notebook has no cell tagged ``parameters``.
    """
    import nbformat

    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if not cells:
        raise RunError(f"{path.name} has no cell tagged 'parameters'")
    out: dict[str, Any] = {}
    tree = ast.parse(cells[0].source)
    for node in tree.body:
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        for t in targets:
            if isinstance(t, ast.Name) and value is not None:
                try:
                    out[t.id] = ast.literal_eval(value)
                except ValueError:
                    out[t.id] = None  # not a literal: any value accepted
    return out


def validate_parameters(path: Path, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Check a run's parameters against the chapter's declaration before anything executes.

    Names, types, ranges, choices and the cross-checks (:mod:`anonbook.chapters`),
    so a bad value is refused in a second with one message naming the
    parameter; then the run's estimated peak memory against the memory the
    machine has (:func:`anonbook.memory.check_fits`). Returns the parameters
    (unchanged) when they are acceptable.
    """
    from anonbook.chapters import get, has_chapter
    from anonlab.validation import ParameterError

    from anonbook.memory import check_fits

    if not has_chapter(path.stem):
        raise RunError(f"{path.name}: no chapter declaration anonbook.chapters.ch{path.stem} "
                       "(every notebook is a declared chapter: see the guide to adding a chapter)")
    chapter = get(path.stem)
    try:
        full = chapter.parameters.validate(parameters)
    except ParameterError as exc:
        raise RunError(f"{path.name}: {exc}") from None
    try:
        check_fits(path.stem, chapter.peak_memory(full))
    except MemoryError as exc:
        raise RunError(str(exc)) from None
    return dict(parameters)


def describe_parameters(notebook: str | Path) -> str:
    """The parameters of a chapter with defaults, allowed values and meanings."""
    from anonbook.chapters import get

    chapter = get(resolve_notebook(notebook).stem)
    text = chapter.parameters.describe()
    if chapter.quick:
        text += "\n\n--quick sets: " + ", ".join(f"{k}={v!r}" for k, v in chapter.quick.items())
    return text


def quick_parameters(notebook: str | Path) -> dict[str, Any]:
    """The chapter's quick preset (classroom and test settings)."""
    from anonbook.chapters import get

    return dict(get(resolve_notebook(notebook).stem).quick)


def _yaml12_loader() -> type:
    """A safe YAML loader that reads numbers as YAML 1.2 does (and as a user means them).

    PyYAML implements YAML 1.1: ``1e-3`` (no dot) stays a string and ``1:30``
    is a base-60 integer (90). Here ``1e-3`` is 0.001 and ``1:30`` is the
    string ``"1:30"``.
    """
    import re

    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.yaml_implicit_resolvers = {
        k: [(tag, rx) for tag, rx in v if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
        for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    Loader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^[-+]?(?:0|[1-9][0-9_]*)$"),
                                 list("-+0123456789"))
    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(r"^(?:[-+]?(?:[0-9][0-9_]*)?\.?[0-9]+(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*\.[0-9_]*"
                   r"(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
        list("-+0123456789."))
    return Loader


#: The longest ``-p``/``-r``/``--grid`` value read (characters): a parameter is a name, a number or a short list.
MAX_VALUE_CHARS = 10_000
#: The deepest nesting of lists and mappings in a ``-p`` value (a list of lists is 2).
MAX_VALUE_DEPTH = 4


def _bounded_yaml_loader(name: str) -> type:
    """:func:`_yaml12_loader` that refuses aliases (``*a``: the "billion laughs" expansion) and nesting deeper
    than :data:`MAX_VALUE_DEPTH`, before building any of it; the error names the parameter ``name``."""
    from yaml.events import AliasEvent

    base = _yaml12_loader()

    class Bounded(base):  # type: ignore[misc, valid-type]
        _depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(AliasEvent) and self.peek_event().anchor in self.anchors:
                raise RunError(f"parameter {name!r}: YAML aliases (*name) are not allowed in a value")
            self._depth += 1
            try:
                if self._depth > MAX_VALUE_DEPTH + 1:
                    raise RunError(f"parameter {name!r}: the value nests lists or mappings more than "
                                   f"{MAX_VALUE_DEPTH} deep")
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    return Bounded


def check_cli_text(name: str, text: str) -> str:
    """Refuse a command-line value longer than :data:`MAX_VALUE_CHARS`, naming the parameter and quoting
    only its start."""
    from anonlab.validation import excerpt

    if len(text) > MAX_VALUE_CHARS:
        raise RunError(f"parameter {name!r}: the value is {len(text):,} characters long (at most "
                       f"{MAX_VALUE_CHARS:,}): {excerpt(text, 40)}")
    return text


def parse_cli_value(text: str, name: str = "value") -> Any:
    """Parse a ``-p NAME VALUE`` value as YAML 1.2: numbers, lists, true/false, ``None``.

    The value is read within a size and depth limit (:data:`MAX_VALUE_CHARS`, :data:`MAX_VALUE_DEPTH`, no
    YAML aliases): a value beyond them raises :class:`RunError` naming the parameter ``name``.

    >>> parse_cli_value("[1e-3, 1.0]"), parse_cli_value("['1:30', 1:240]")
    ([0.001, 1.0], ['1:30', '1:240'])
    >>> parse_cli_value("[30, 240]"), parse_cli_value("adult"), parse_cli_value("5")
    ([30, 240], 'adult', 5)
    """
    import yaml

    check_cli_text(name, text)
    if text in ("None", "null", "~"):
        return None
    try:
        return yaml.load(text, Loader=_bounded_yaml_loader(name))  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError:
        return text
    except RecursionError:
        raise RunError(f"parameter {name!r}: the value nests too deep to read") from None


#: File bytes read for a cache key, by (path, modification time, size): a build computes the keys of some
#: seventy runs over the same library files, and reads each once.
def _hash_files(h: "hashlib._Hash", files: list[Path]) -> None:
    for f in sorted(files):
        h.update(str(f.relative_to(paths.project_root())).encode())
        h.update(file_bytes(f))


def cache_key(path: Path, parameters: Mapping[str, Any]) -> str:
    """Key of a run: the notebook, the source of both packages (the science and the book machine, whose
    chapter modules and kit write the page), the ledger, the locks, the parameters, the
    published results of the chapters it reads (:attr:`~anonbook.chapters.Chapter.after`) and the outside
    environment it uses (:attr:`~anonbook.chapters.Chapter.environment`: chapter 9's peers)."""
    root = paths.project_root()
    h = hashlib.sha256()
    h.update(library_fingerprint(root / "lib" if (root / "lib").is_dir() else None).encode())
    files = [path, paths.ledger_path()]
    files += [f for f in [root / "requirements.lock", root / "requirements-peers.lock",
                          root / "data" / "manifest.yaml"] if f.exists()]
    files += _recorded_inputs(path.stem)
    _hash_files(h, [f for f in files if f.exists()])
    h.update(json.dumps(parameters, sort_keys=True, default=str).encode())
    from anonbook.chapters import get, has_chapter

    if has_chapter(path.stem):
        environment = get(path.stem).environment_state(parameters)
        if environment:  # a chapter without one keeps the key it had
            h.update(b"\0environment\0" + environment.encode())
    return h.hexdigest()


def _recorded_inputs(name: str) -> list[Path]:
    """The published results of the chapters this one reads (its declared ``after``): inputs of its run."""
    from anonbook.chapters import get, has_chapter

    if not has_chapter(name):
        return []
    return [paths.book_dir() / f"{dep}{suffix}" for dep in get(name).after
            for suffix in (".results.json", ".attacks.pkl", ".params.json")]


def _params_file(out_dir: Path, name: str) -> Path:
    return out_dir / f"{name}.params.json"


def _is_fresh(out_dir: Path, name: str, key: str) -> bool:
    """Is the published run up to date: same key, and every file it published still there?"""
    pf = _params_file(out_dir, name)
    if not (pf.exists() and (out_dir / f"{name}.ipynb").exists()):
        return False
    try:
        meta = json.loads(pf.read_text())
    except (OSError, ValueError):
        return False
    published = meta.get("published", [f"{name}.ipynb", f"{name}.results.json"])
    return meta.get("cache_key") == key and all(_readable(out_dir / f) for f in published)


def _readable(path: Path) -> bool:
    """Does a published file exist as a file and, for JSON and notebooks, parse? (A truncated one is stale.)

    A ``results.json`` must also have the recorder's shape (:func:`anonlab.claims.recorder.read_results`):
    ``null``, ``[1, 2]`` or ``{}`` is broken, so the run is stale and reruns.
    """
    if not path.is_file():
        return False
    if path.name.endswith(".results.json"):
        from anonlab.claims.ledger import ClaimError
        from anonlab.claims.recorder import read_results

        try:
            read_results(path)
        except ClaimError:
            return False
        return True
    if path.suffix in (".json", ".ipynb"):
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
    return True


def _failure_message(name: str, exc: Exception, parameters: Mapping[str, Any],
                     kept: Path | None) -> str:
    """Explain a failed run: the failing cell, the error, and the parameter at fault if known."""
    import re

    cell_index = getattr(exc, "cell_index", None)
    ename = getattr(exc, "ename", type(exc).__name__)
    evalue = getattr(exc, "evalue", str(exc))
    source = (getattr(exc, "source", "") or "").strip().splitlines()
    where = f"cell {cell_index}" if cell_index is not None else "a cell"
    if source:
        where += f" ({source[0][:60]}{' ...' if len(source) > 1 or len(source[0]) > 60 else ''})"
    msg = f"{name}: {where} failed with {ename}: {evalue}"
    named = re.findall(r"parameter '(\w+)", str(evalue))
    if ename == "ParameterError" and named:
        msg += f"\n  parameter at fault: {', '.join(dict.fromkeys(named))}"
    elif parameters:
        from anonlab.validation import excerpt

        shown = ", ".join(f"{k}={excerpt(v)}" for k, v in parameters.items())
        msg += f"\n  parameters of this run: {shown}"
    if kept is not None:
        msg += f"\n  the failed notebook is kept at {kept}; the published one is unchanged"
        msg += f"\n  the kernel's own messages: {kernel_log(name)}"
    return msg


def kernel_log(name: str) -> Path:
    """``_build/logs/<name>.kernel.log``: what the chapter's kernel process itself printed (warnings, crashes)."""
    return paths.project_root() / "_build" / "logs" / f"{name}.kernel.log"


def _quiet_kernel_manager(log: Any, kernels: list[int] | None = None) -> type:
    """A kernel manager whose kernel writes its own messages to ``log``, not to the terminal.

    The kernel's start-up warnings and, when a run is interrupted, the
    tracebacks of its closing sockets are noise on the console; they are kept
    in :func:`kernel_log` instead. Cell outputs are unaffected (they travel
    over the kernel's messages). The kernel's process id is appended to
    ``kernels`` (its memory is measured).
    """
    from jupyter_client import AsyncKernelManager

    class QuietKernelManager(AsyncKernelManager):
        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
            kw.setdefault("stdout", log)
            kw.setdefault("stderr", log)
            await super()._async_launch_kernel(kernel_cmd, **kw)
            if kernels is not None and getattr(self.provisioner, "pid", None):
                kernels.append(int(self.provisioner.pid))

    return QuietKernelManager


#: The tag of the cell a :class:`SharedKernel` runs before each notebook (removed from the published copy).
PRELUDE_TAG = "anonlab-prelude"


class SharedKernel:
    """One kernel that executes several runs of a chapter one after another (its exercise variants).

    A fresh kernel per run pays the kernel's start and the imports of the
    library (pandas, scikit-learn, matplotlib, the chapter module) every time;
    here they are paid once, and what the library keeps in memory between
    calls (loaded data sets, fitted models, parsed queries) serves the next
    run. Each run starts with a prelude cell that empties the notebook's
    namespace (``%reset -f``), closes the previous run's figures and sets the
    run's ``ANONLAB_OUTPUT_DIR`` and ``ANONLAB_RUN_PARAMETERS``; the prelude
    is removed from the published notebook and its execution counts are
    renumbered from 1, so the published copy reads as a fresh kernel's
    (``tests/test_schedule.py`` checks the values against fresh kernels).
    A kernel that died is replaced before the next run. Use it as a context
    manager::

        with SharedKernel("01_syntactic_anonymity") as kernel:
            run_notebook("01_syntactic_anonymity", {...}, kernel=kernel)
    """

    def __init__(self, name: str, *, kernel_name: str = KERNEL_NAME) -> None:
        self.name = name
        self.kernel_name = kernel_name
        self.pids: list[int] = []
        self.km: Any = None
        self.runs = 0
        self._log: Any = None

    def __enter__(self) -> SharedKernel:
        path = kernel_log(self.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(path, "wb")  # noqa: SIM115 - closed in __exit__, after the kernel has stopped
        return self

    def manager(self) -> Any:
        """The kernel manager for the next run: the running kernel, or a new one if it is gone or never started."""
        from jupyter_core.utils import run_sync

        if self.km is not None and self.km.has_kernel and not run_sync(self.km.is_alive)():
            self._shutdown()
        if self.km is None:
            self.pids.clear()
            self.km = _quiet_kernel_manager(self._log, self.pids)(kernel_name=self.kernel_name)
        return self.km

    def _shutdown(self) -> None:
        from jupyter_core.utils import run_sync

        km, self.km = self.km, None
        if km is not None and km.has_kernel:
            try:
                run_sync(km.shutdown_kernel)(now=True)
            except Exception:  # noqa: BLE001 - a kernel that is already gone
                pass

    def __exit__(self, *exc: Any) -> None:
        self._shutdown()
        if self._log is not None:
            self._log.close()


def _prelude_source(env: Mapping[str, str]) -> str:
    """The code a shared kernel runs before a notebook: an empty namespace, no open figures, the run's variables."""
    return "\n".join([
        "get_ipython().run_line_magic('reset', '-f')",
        "import os as _os, sys as _sys",
        "if 'matplotlib.pyplot' in _sys.modules:",
        "    _sys.modules['matplotlib.pyplot'].close('all')",
        f"_os.environ.update({dict(env)!r})",
        "del _os, _sys",
    ])


def _with_prelude(src: Path, env: Mapping[str, str]) -> Any:
    """The source notebook with the prelude cell in front (tagged :data:`PRELUDE_TAG`)."""
    import nbformat

    nb = nbformat.read(src, as_version=4)
    cell = nbformat.v4.new_code_cell(_prelude_source(env))
    cell.metadata["tags"] = [PRELUDE_TAG]
    nb.cells.insert(0, cell)
    return nb


def _without_prelude(path: Path, src: Path) -> None:
    """Remove the prelude from an executed notebook and renumber its executions from 1, as a fresh kernel's."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if PRELUDE_TAG not in c.get("metadata", {}).get("tags", [])]
    count = 0
    for cell in nb.cells:
        if cell.cell_type != "code" or cell.get("execution_count") is None:
            continue
        count += 1
        cell.execution_count = count
        for out in cell.get("outputs", []):
            if out.get("output_type") == "execute_result":
                out["execution_count"] = count
    nb.metadata.get("papermill", {})["input_path"] = str(src)
    nbformat.write(nb, path)


def _remove_stale_run_folders(dest_dir: Path, name: str) -> None:
    """Remove ``.run-<name>-*`` folders left by runs whose process is gone (killed, power cut)."""
    for folder in dest_dir.glob(f".run-{name}-*"):
        try:
            pid = int((folder / "pid").read_text())
            os.kill(pid, 0)  # raises if no such process
            if pid != os.getpid():
                continue  # a run of this chapter is in progress in another process
        except (OSError, ValueError):
            pass
        shutil.rmtree(folder, ignore_errors=True)


def _execute_and_publish(src: Path, name: str, params: Mapping[str, Any], full_params: Mapping[str, Any],
                         key: str, tmp: Path, dest_dir: Path, *, kernel_name: str, progress: bool,
                         timeout: int | None, kernel: SharedKernel | None = None,
                         identity: Any = None) -> float:
    """Execute ``src`` into ``tmp`` and publish its products into ``dest_dir``; return the seconds.

    With ``kernel``, the notebook runs in that shared kernel after a prelude
    cell (:class:`SharedKernel`); otherwise in a kernel of its own.
    """
    import papermill as pm

    out_nb = tmp / f"{name}.ipynb"
    run_env = {"ANONLAB_OUTPUT_DIR": str(tmp), "ANONLAB_RUN_PARAMETERS": json.dumps(full_params, default=str)}
    if identity is not None:
        from anonlab.claims.recorder import RUN_IDENTITY_ENV

        run_env[RUN_IDENTITY_ENV] = json.dumps(identity.as_dict(), default=str)
    env_before = {k: os.environ.get(k) for k in run_env}
    os.environ.update(run_env)
    if progress:
        from anonlab.validation import excerpt

        shown = " ".join(f"{k}={excerpt(v)}" for k, v in params.items()) or "defaults"
        print(f"[anonlab] running {name} ({shown})", file=sys.stderr)
    from anonbook.chapters import get
    from anonbook.memory import MiB, PeakSampler

    start = time.perf_counter()
    log: Any = None
    log_path = kernel_log(name)  # a shared kernel's own log holds its output; stderr of the page goes here
    if kernel is None:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(log_path, "wb")  # noqa: SIM115 - closed in finally, after the kernel has stopped
        kernels: list[int] = []
        source: Any = str(src)
        engine: dict[str, Any] = {"kernel_manager_class": _quiet_kernel_manager(log, kernels)}
    else:
        engine = {"km": kernel.manager()}
        kernels = kernel.pids
        source = _with_prelude(src, run_env)
    sampler = PeakSampler(kernels)
    try:
        with sampler:
            pm.execute_notebook(
                source, str(out_nb), parameters=dict(params), kernel_name=kernel_name,
                progress_bar=progress, cwd=str(src.parent), execution_timeout=timeout,
                log_output=False, **engine,
            )
        if kernel is not None:
            kernel.runs += 1
            _without_prelude(out_nb, src)
    except Exception as exc:  # papermill raises PapermillExecutionError for a failing cell
        kept = None
        if kernel is not None and isinstance(getattr(exc, "cell_index", None), int):
            exc.cell_index -= 1  # type: ignore[attr-defined]  # the prelude is not the reader's cell
        if out_nb.exists():
            failed_dir = paths.project_root() / "_build" / "failed"
            failed_dir.mkdir(parents=True, exist_ok=True)
            kept = failed_dir / f"{name}.ipynb"
            if kernel is not None:
                _without_prelude(out_nb, src)
            shutil.move(str(out_nb), kept)
        raise RunError(_failure_message(name, exc, params, kept)) from None
    finally:
        if log is not None:
            log.close()
        for k, v in env_before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    seconds = time.perf_counter() - start
    from anonbook.publish import tidy_executed_notebook

    tidy_executed_notebook(out_nb, name, full_params, log=log_path)
    _add_run_banners(out_nb, name, identity, published=dest_dir.resolve() == paths.book_dir().resolve())
    published = [f"{name}.ipynb"]
    for suffix in (".results.json", ".attacks.pkl"):
        if (tmp / f"{name}{suffix}").exists():
            published.append(f"{name}{suffix}")
    meta = {
        "notebook": name,
        "parameters": dict(params),
        "all_parameters": dict(full_params),
        "cache_key": key,
        "seconds": round(seconds, 2),
        "peak_memory_mb": round(sampler.peak / MiB),
        "cpu_seconds": round(sampler.cpu, 1),
        "shared_kernel": kernel is not None,
        "concurrent_build": bool(os.environ.get(CONCURRENT_BUILD_ENV)),
        "estimated_memory_mb": round(get(name).peak_memory(full_params).bytes / MiB),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "published": published,
    }
    meta.update(_identity_meta(name, identity))
    atomic_write(tmp / f"{name}.params.json", lambda fh: json.dump(meta, fh, indent=1, default=str))
    _publish_files(tmp, dest_dir, name)
    return seconds


def _publish_files(tmp: Path, dest_dir: Path, name: str) -> None:
    """Move a finished run's files from ``tmp`` into ``dest_dir``: results first, then the notebook, then
    the params (which mark it fresh). The caller holds the chapter's lock (:func:`chapter_lock`)."""
    for suffix in (".results.json", ".attacks.pkl"):
        produced, target = tmp / f"{name}{suffix}", dest_dir / f"{name}{suffix}"
        if produced.exists():
            os.replace(produced, target)
        else:
            target.unlink(missing_ok=True)
    out_nb = tmp / f"{name}.ipynb"
    os.chmod(out_nb, default_file_mode())
    os.replace(out_nb, dest_dir / f"{name}.ipynb")
    os.replace(tmp / f"{name}.params.json", _params_file(dest_dir, name))


@contextmanager
def chapter_lock(dest_dir: Path, name: str, *, progress: bool = True) -> Iterator[None]:
    """Hold ``<dest_dir>/.<name>.lock`` while one run of a chapter checks, executes and publishes.

    A second run of the same chapter into the same folder (another terminal, a sweep point with the same
    parameters) waits here, saying so in one line, and then finds the first one's files (up to date when it
    asked for the same run): the published notebook, results and params are always one run's set.
    An advisory ``flock``: released by the system when the process ends, even when it is killed.
    """
    import fcntl

    lock_path = dest_dir / f".{name}.lock"
    with open(lock_path, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            if progress:
                print(f"[anonlab] {name}: another run of this chapter ({holder}) is publishing into {dest_dir}; "
                      "waiting for it to finish", file=sys.stderr)
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _identity(name: str, params: Mapping[str, Any], preset: str | None) -> Any:
    """The run's :class:`~anonbook.runs.RunIdentity` (``None`` for a notebook without a declared chapter)."""
    from anonbook.chapters import has_chapter
    from anonbook.runs import identify

    return identify(name, params, preset) if has_chapter(name) else None


def _identity_meta(name: str, identity: Any) -> dict[str, Any]:
    """What ``params.json`` keeps of a run's identity: ``run``, and the cache keys of the runs it read (``inputs``)."""
    from anonbook.runs import input_keys

    out: dict[str, Any] = {}
    if identity is not None:
        out["run"] = identity.as_dict()
    inputs = input_keys(name)
    if inputs:
        out["inputs"] = inputs
    return out


def _add_run_banners(notebook: Path, name: str, identity: Any, *, published: bool) -> None:
    """Put the run's banner (not the default run) and its inputs' banner (chapter 9) at the top of its page."""
    from anonbook.publish import insert_banner
    from anonbook.runs import banner_markdown, dependents_banner

    text = (banner_markdown(identity, published=published) if identity is not None else "") + dependents_banner(name)
    if text:
        insert_banner(notebook, text)


#: What a run publishes into its folder (:func:`_publish_files`).
PUBLISHED_SUFFIXES = (".ipynb", ".results.json", ".attacks.pkl", ".params.json")


def _prepare_destination(dest_dir: Path, name: str) -> None:
    """Create the output folder and check, before anything runs, that the run can publish into it.

    Raises
    ------
    RunError
        One line: the folder is a file (``--out`` given a file), cannot be created, is not writable, or one
        of the files the run publishes is a folder there.
    """
    if dest_dir.exists() and not dest_dir.is_dir():
        raise RunError(f"the output folder {dest_dir} is a file, not a folder (--out names the folder to write)")
    try:
        dest_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"cannot create the output folder {dest_dir}: {exc.strerror or exc}") from None
    try:
        with tempfile.TemporaryFile(dir=dest_dir, prefix=f".{name}-write-check-"):
            pass
    except OSError as exc:
        raise RunError(f"the output folder {dest_dir} is not writable ({exc.strerror or exc}); "
                       "choose another with --out") from None
    for suffix in PUBLISHED_SUFFIXES:
        target = dest_dir / f"{name}{suffix}"
        if target.is_dir() and not target.is_symlink():
            raise RunError(f"{target} is a folder, where this run publishes a file: remove it, then run again")


def run_notebook(
    notebook: str | Path,
    parameters: Mapping[str, Any] | None = None,
    *,
    out_dir: str | Path | None = None,
    force: bool = False,
    progress: bool = True,
    kernel_name: str = KERNEL_NAME,
    timeout: int | None = None,
    kernel: SharedKernel | None = None,
    preset: str | None = None,
) -> RunResult:
    """Execute one notebook with papermill and publish it atomically.

    Parameters
    ----------
    notebook
        Path or bare name of a notebook in ``notebooks/``.
    parameters
        Values for names of the notebook's ``parameters`` cell.
    out_dir
        Where the executed notebook, its results and its parameters go
        (default ``book/``).
    force
        Run even if an executed notebook with the same cache key exists.
    kernel
        A :class:`SharedKernel` to run in (the exercise variants of a
        chapter share one); default: a kernel of the run's own.
    preset
        The name of the preset these parameters are (an exercise's), kept
        in the run's identity (:func:`anonbook.runs.identify`).
    """
    src = resolve_notebook(notebook)
    params = validate_parameters(src, dict(parameters or {}))
    name = src.stem
    dest_dir = Path(out_dir) if out_dir is not None else paths.book_dir()
    _prepare_destination(dest_dir, name)
    from anonbook.chapters import get

    full_params = get(name).parameters.validate(params)
    from anonbook.runs import unpublished_inputs

    unread = unpublished_inputs(name)
    if unread:  # chapter 9 reads the others' published runs: without them its cells fail far from the cause
        raise RunError(f"{name} reads the published runs of {', '.join(unread)}, which have none: run those "
                       "first (`python -m anonlab run <chapter> --publish` each, or `python -m anonlab book` "
                       "for the whole book); nothing was run")
    key = cache_key(src, full_params)  # a default passed explicitly is the same run
    dest_nb = dest_dir / f"{name}.ipynb"
    dest_results = dest_dir / f"{name}.results.json"
    with chapter_lock(dest_dir, name, progress=progress):  # one run of a chapter at a time per folder
        _remove_stale_run_folders(dest_dir, name)  # also when the published copy is up to date
        if not force and _is_fresh(dest_dir, name, key):
            if progress:
                print(f"[anonlab] {name}: up to date (cache key {key[:12]}), not rerun", file=sys.stderr)
            return RunResult(name, dest_nb, dest_results if dest_results.exists() else None,
                             params, 0.0, True)

        tmp = Path(tempfile.mkdtemp(prefix=f".run-{name}-", dir=dest_dir))
        try:
            (tmp / "pid").write_text(str(os.getpid()))
            seconds = _execute_and_publish(src, name, params, full_params, key, tmp, dest_dir,
                                           kernel_name=kernel_name, progress=progress, timeout=timeout,
                                           kernel=kernel, identity=_identity(name, params, preset))
        except KeyboardInterrupt:
            raise RunInterrupted(f"{name}: interrupted; nothing was published (the previous copy, if any, "
                                 "is unchanged)") from None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if progress:
        print(f"[anonlab] {name}: done in {seconds:.1f} s -> {dest_nb}", file=sys.stderr)
    return RunResult(name, dest_nb, dest_results if dest_results.exists() else None,
                     params, seconds, False)


def is_current(notebook: str | Path, parameters: Mapping[str, Any] | None = None,
               out_dir: str | Path | None = None) -> bool:
    """Would :func:`run_notebook` with these arguments find its run up to date (and start no kernel)?"""
    src = resolve_notebook(notebook)
    params = validate_parameters(src, dict(parameters or {}))
    from anonbook.chapters import get

    key = cache_key(src, get(src.stem).parameters.validate(params))
    return _is_fresh(Path(out_dir) if out_dir is not None else paths.book_dir(), src.stem, key)


def toc_notebooks(toc: str | Path | None = None) -> list[str]:
    """Names of the chapters in ``_toc.yml`` order that have a source notebook."""
    import yaml

    toc_path = Path(toc) if toc else paths.project_root() / "_toc.yml"
    data = yaml.safe_load(toc_path.read_text())
    files: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "file" in node:
                files.append(Path(node["file"]).stem)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(data)
    have = {p.stem for p in paths.notebooks_dir().glob("*.ipynb")}
    return [f for f in files if f in have]

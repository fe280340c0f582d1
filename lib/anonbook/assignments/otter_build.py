"""Each assignment as an otter-grader "master" notebook, ``otter assign`` on it, and grading (no Docker).

:func:`master_notebook` writes otter's assign format (``# ASSIGNMENT CONFIG``, ``# BEGIN QUESTION``,
``# BEGIN SOLUTION``, ``# BEGIN TESTS`` with the hidden test of :func:`~.model.hidden_test`);
:func:`assign` runs ``otter assign`` on it (in this process, cached by the master's content and otter's
version) and keeps the student notebook (no solution, no hidden test), the instructor notebook (with the
solution) and the autograder zip. :func:`grade` grades a notebook with ``otter.api.grade_submission`` (otter's
non-containerised grading: a fresh kernel per submission, no Docker). :func:`build` does every assignment and
writes the book's pages (:mod:`.pages`). otter is imported only inside these functions.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import nbformat

from anonlab import paths
from anonbook.assignments.catalog import ASSIGNMENTS
from anonbook.assignments.model import (HIDDEN_POINTS, PUBLIC_POINTS, Assignment, Built, Graded, hidden_expectations, hidden_test,
                    public_test)

__all__ = ["assign", "build", "built_assignments", "fill_in", "grade", "grade_in_process", "grading_requirements", "master_notebook",
           "otter_version"]

#: otter's assign configuration: no Docker image, no PDF, the check cell and the grader's init cell.
ASSIGN_CONFIG = {"name": None, "requirements": None, "environment": None, "export_cell": False, "init_cell": True,
                 "check_all_cell": False, "run_tests": False, "generate": True, "files": [],
                 "solutions_pdf": False, "template_pdf": False}
#: What otter writes in place of the solution in the student's notebook.
PLACEHOLDER = "..."
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def otter_version() -> str:
    """The installed otter-grader's version (raises ImportError when it is missing: ``pip install .[course]``)."""
    try:
        import otter
    except ImportError as exc:
        raise ImportError("the assignments need otter-grader (the course extra): "
                          "pip install -r requirements.lock, or make env") from exc

    return str(otter.__version__)


def _header(a: Assignment, graded: Graded) -> str:
    """The notebook's first cell: title, chapter, task, how it is graded (never a claim id, never a value)."""
    how = ("must equal the library's value on each" if graded.tolerance is None
           else "must agree with the library's value on each (to a relative 10⁻⁶: the same computation)")
    return (f"# {a.title}\n\nChapter `{a.chapter}`.\n\n{a.task}\n\n"
            f"The grader calls your `{a.function}` on {len(graded.cases)} variants of the example that no page "
            f"of the book shows; its answer {how}, all of them for the point. `grader.check` only checks that "
            "the function runs on the example below and returns a number (0 points).")


def master_notebook(a: Assignment, expected: Graded, requirements: Path | None = None,
                    files: tuple[str, ...] = ()) -> nbformat.NotebookNode:
    """The otter assign master notebook of ``a`` with its hidden test on ``expected``.

    ``requirements`` (a requirements file beside the master) and ``files`` (paths relative to it) go into the
    autograder zip only.
    """
    v4 = nbformat.v4
    config = {**ASSIGN_CONFIG, "name": a.slug, "autograder_files": list(files)}
    if requirements is not None:
        config.update(requirements=requirements.name, overwrite_requirements=False,
                      autograder_files=[*files, requirements.name])
    config["python_version"] = f"{sys.version_info.major}.{sys.version_info.minor}"
    cells = [
        v4.new_raw_cell("# ASSIGNMENT CONFIG\n" + "\n".join(f"{k}: {json.dumps(v)}" for k, v in config.items())),
        v4.new_markdown_cell(_header(a, expected)),
        v4.new_raw_cell(f"# BEGIN QUESTION\nname: {a.key}\npoints: [{PUBLIC_POINTS}, {HIDDEN_POINTS}]"),
        v4.new_markdown_cell(f"Write `{a.function}`."),
        v4.new_code_cell(a.starter),
        v4.new_raw_cell("# BEGIN SOLUTION"),
        v4.new_code_cell(f"# BEGIN SOLUTION\n{a.solution}\n# END SOLUTION\n{a.function}({a.public_args})"),
        v4.new_raw_cell("# END SOLUTION"),
        v4.new_raw_cell("# BEGIN TESTS"),
        v4.new_code_cell(public_test(a)),
        v4.new_code_cell(hidden_test(a, expected)),
        v4.new_raw_cell("# END TESTS"),
        v4.new_raw_cell("# END QUESTION"),
    ]
    nb = v4.new_notebook(cells=cells)
    nb.metadata.update({"kernelspec": KERNELSPEC, "language_info": {"name": "python"}})
    return nb


def _key(master: nbformat.NotebookNode, version: str, extra: str = "") -> str:
    """Cache key of one assign step: the master's cells, otter's version and ``extra`` (the zip's environment)."""
    text = json.dumps([c["source"] for c in master.cells]) + version + extra
    return hashlib.sha256(text.encode()).hexdigest()


#: The library's source, copied into every autograder zip (``anonlab/``) so that the hidden tests import it.
LIBRARY_DIR = "anonlab"
REQUIREMENTS = "requirements.txt"
#: The data manifest (``data/manifest.yaml``), copied into every zip: the library checks a fetched data file
#: against it; otter copies it beside the library, where :func:`anonlab.paths.project_root` finds it.
MANIFEST = "data/manifest.yaml"


def library_source() -> Path:
    """The folder of the science package ``anonlab`` this build runs (copied into the zips; the book machine is not)."""
    import anonlab

    return Path(anonlab.__file__).resolve().parent


def _source_digest(folder: Path) -> str:
    """SHA-256 over the ``.py`` files of ``folder`` (names and contents)."""
    h = hashlib.sha256()
    for f in sorted(folder.rglob("*.py")):
        h.update(str(f.relative_to(folder)).encode() + f.read_bytes())
    return h.hexdigest()


_MODULES_SCRIPT = """
import json, sys
from anonbook.assignments.catalog import ASSIGNMENTS
from anonbook.assignments.model import hidden_expectations
for a in ASSIGNMENTS:
    hidden_expectations(a)
    exec(a.starter, {})
print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))
"""


def _lock_pins(lock: Path) -> dict[str, str]:
    """``name -> 'name==version'`` for every pinned line of a pip-compile lock (names normalised)."""
    import re

    pins = {}
    for line in lock.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)", line)
        if m:
            pins[re.sub(r"[-_.]+", "-", m.group(1)).lower()] = f"{m.group(1)}=={m.group(2)}"
    return pins


def _closure(names: dict[str, set[str]]) -> set[str]:
    """The distributions ``names`` (each with its extras) and all they require, by the installed metadata.

    Markers are evaluated for this Python with each requirer's extras; the result's names are normalised.
    """
    import re
    from importlib import metadata

    from packaging.requirements import Requirement

    def norm(n: str) -> str:
        return re.sub(r"[-_.]+", "-", n).lower()

    todo = [(norm(n), set(e)) for n, e in names.items()]
    seen: dict[str, set[str]] = {}
    while todo:
        name, extras = todo.pop()
        if name in seen and extras <= seen[name]:
            continue
        seen[name] = seen.get(name, set()) | extras
        try:
            reqs = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for text in reqs:
            r = Requirement(text)
            if r.marker is None or any(r.marker.evaluate({"extra": e}) for e in (seen[name] or {""})):
                todo.append((norm(r.name), set(r.extras)))
    return set(seen)


def grading_requirements(out_dir: Path, lock: Path | None = None) -> Path:
    """``out_dir/requirements.txt``: the lock's pins of otter-grader and every package the tests import.

    The modules are those a fresh interpreter has imported after every hidden run and every starter
    (:func:`~.model.hidden_expectations`), mapped to their distributions with their requirements' closure;
    each is pinned as in ``requirements.lock`` (``anonlab`` itself travels as source in the zip). Cached by
    the lock and the library's source.
    """
    import subprocess
    import sys
    from importlib import metadata

    lock = lock or paths.project_root() / "requirements.lock"
    out_dir.mkdir(parents=True, exist_ok=True)
    target, stamp = out_dir / REQUIREMENTS, out_dir / (REQUIREMENTS + ".sha256")
    key = hashlib.sha256(lock.read_bytes() + _source_digest(library_source()).encode()).hexdigest()
    if target.exists() and stamp.exists() and stamp.read_text() == key:
        return target
    env = {**__import__("os").environ, "PYTHONPATH": str(library_source().parent)}
    done = subprocess.run([sys.executable, "-c", _MODULES_SCRIPT], capture_output=True, text=True, env=env,
                          check=False)
    if done.returncode:
        raise RuntimeError(f"listing the hidden tests' modules failed: {done.stderr[-2000:]}")
    modules = json.loads(done.stdout.splitlines()[-1])
    owners = metadata.packages_distributions()
    dists = {d: set() for m in modules for d in owners.get(m, []) if d.lower() != "anonlab"}
    dists["otter-grader"] = {"grading"}  # what grades: otter run and its kernel
    pins = _lock_pins(lock)
    needed = sorted((pins[n] for n in _closure(dists) if n in pins), key=str.lower)
    target.write_text("# the lock's pins of what the hidden tests import (anonbook.assignments.otter_build)\n"
                      + "\n".join(needed) + "\n", encoding="utf-8")
    stamp.write_text(key)
    return target


def assign(a: Assignment, expected: Graded, out_dir: Path, requirements: Path | None = None) -> Built:
    """``otter assign`` on ``a``'s master notebook into ``out_dir/<slug>/`` (skipped when its inputs did not change).

    Keeps ``student/<slug>.ipynb``, ``instructor/<slug>.ipynb`` (solution and tests) and
    ``autograder/<slug>-autograder.zip`` (every test, the hidden one included, with ``requirements``, default
    :func:`grading_requirements`, and the library's source ``anonlab/``: what grading needs on any machine).
    """
    start = time.process_time()
    requirements = requirements or grading_requirements(out_dir)
    master = master_notebook(a, expected, requirements, (LIBRARY_DIR, MANIFEST))
    version = otter_version()
    folder = out_dir / a.slug
    built = Built(a, expected, folder / "student" / f"{a.slug}.ipynb", folder / "instructor" / f"{a.slug}.ipynb",
                  folder / "autograder" / f"{a.slug}-autograder.zip", 0.0, True)
    manifest = paths.manifest_path()
    key = _key(master, version, requirements.read_text() + _source_digest(library_source()) + manifest.read_text())
    stamp = folder / "inputs.sha256"
    if stamp.exists() and stamp.read_text() == key and all(p.exists() for p in (built.student, built.instructor,
                                                                                   built.autograder)):
        return built
    from otter.assign import main as otter_assign

    if folder.exists():
        shutil.rmtree(folder)
    (folder / "master").mkdir(parents=True)
    master_path = folder / "master" / f"{a.slug}.ipynb"
    nbformat.write(master, master_path)
    shutil.copy(requirements, folder / "master" / REQUIREMENTS)
    (folder / "master" / MANIFEST).parent.mkdir(parents=True)
    shutil.copy(manifest, folder / "master" / MANIFEST)
    shutil.copytree(library_source(), folder / "master" / LIBRARY_DIR,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    otter_assign(str(master_path), str(folder / "dist"), no_run_tests=True, no_pdfs=True)
    dist = folder / "dist"
    for sub in ("student", "instructor", "autograder"):
        (folder / sub).mkdir()
    shutil.copy(dist / "student" / f"{a.slug}.ipynb", built.student)
    shutil.copy(dist / "autograder" / f"{a.slug}.ipynb", built.instructor)
    shutil.copy(next((dist / "autograder").glob("*-autograder_*.zip")), built.autograder)
    shutil.rmtree(dist)
    shutil.rmtree(folder / "master" / LIBRARY_DIR)
    stamp.write_text(key)
    return Built(a, expected, built.student, built.instructor, built.autograder,
                 time.process_time() - start, False)


def fill_in(student: Path, code: str, dest: Path) -> Path:
    """A submission: the student notebook with the placeholder of its answer cell replaced by ``code``."""
    nb = nbformat.read(student, as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code" and PLACEHOLDER in c.source.splitlines()]
    if len(cells) != 1:
        raise ValueError(f"{student}: expected one answer cell with {PLACEHOLDER!r}, found {len(cells)}")
    lines = cells[0].source.splitlines()
    cells[0].source = "\n".join(code if line == PLACEHOLDER else line for line in lines)
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dest)
    return dest


#: The kernel's own configuration in a grading environment: warnings of the kernel's log (the notice that a
#: local kernel talks over TCP without encryption, printed once per submission) are not shown.
KERNEL_CONFIG = 'c.IPKernelApp.log_level = "ERROR"\n'


def quiet_kernel_dir(folder: Path) -> Path:
    """An ``IPYTHONDIR`` whose kernels log errors only (:data:`KERNEL_CONFIG`); created if missing."""
    profile = folder / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "ipython_kernel_config.py").write_text(KERNEL_CONFIG, encoding="utf-8")
    return folder


#: Variables of the caller's environment that a grading kernel keeps among the project's own (``ANONLAB_*``):
#: only where this machine caches the data. The checkout's root, output folder, chapters path and run identity,
#: and ``PYTHONPATH`` (the checkout's library) never reach the kernel: it grades with the zip's library.
KEPT_PROJECT_VARIABLES = ("ANONLAB_DATA_DIR",)


def grading_environment(caller: dict[str, str], ipython_dir: Path) -> dict[str, str]:
    """The environment of a grading kernel: ``caller``'s, without the checkout's settings, with a quiet kernel.

    Drops ``PYTHONPATH`` and every ``ANONLAB_*`` variable except :data:`KEPT_PROJECT_VARIABLES`, so the hidden
    tests import the library copied into the zip and find the zip's data manifest beside it
    (:func:`anonlab.paths.project_root`), whatever the caller's root, path or working directory;
    ``IPYTHONDIR`` is ``ipython_dir`` (:func:`quiet_kernel_dir`).
    """
    env = {k: v for k, v in caller.items()
           if k != "PYTHONPATH" and (not k.startswith("ANONLAB_") or k in KEPT_PROJECT_VARIABLES)}
    env["IPYTHONDIR"] = str(ipython_dir)
    return env


def grade(submission: Path, autograder: Path) -> tuple[float, float]:
    """(score, possible) of a submission notebook, graded by otter without Docker (a fresh, quiet kernel).

    The kernel runs in :func:`grading_environment` (this process's environment is restored afterwards, the
    ``PATH`` otter prepends to included); the result does not depend on the caller's project settings.
    """
    import os
    import tempfile

    from otter.api import grade_submission

    submission, autograder = Path(submission).resolve(), Path(autograder).resolve()
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            os.environ.clear()
            os.environ.update(grading_environment(saved, quiet_kernel_dir(Path(tmp))))
            r = grade_submission(str(submission), str(autograder), quiet=True)
        finally:
            os.environ.clear()
            os.environ.update(saved)
    return float(r.total), float(r.possible)


def grading_commands(autograder: str, env: str = "grading") -> dict[str, str]:
    """The shell commands an instructor runs with nothing but the zip ``autograder`` (a file name or path).

    ``setup``: a virtual environment ``env`` with otter-grader and the zip's pinned requirements (the library
    and its data manifest are inside the zip) and a quiet kernel configuration; ``single``: grade ``submission.ipynb`` into
    ``results/``; ``batch``: grade every notebook of ``submissions/`` into ``results/<name>/``. Each prints
    the score; ``results.json`` holds the per-test detail.
    """
    zip_ = shlex.quote(autograder)
    ipy = f"IPYTHONDIR=$PWD/{env}/ipython"  # absolute: the kernel starts in otter's own folder
    config = f"{env}/ipython/profile_default/ipython_kernel_config.py"
    setup = (f"python3 -m venv {env} && unzip -o -q {zip_} files/{REQUIREMENTS} -d {env}/autograder && "
             f"{env}/bin/pip install -q -r {env}/autograder/files/{REQUIREMENTS} && "
             f"mkdir -p {env}/ipython/profile_default && echo {shlex.quote(KERNEL_CONFIG.strip())} > {config}")
    single = f"mkdir -p results && {ipy} {env}/bin/otter run -a {zip_} -o results submission.ipynb"
    batch = ('for f in submissions/*.ipynb; do n=$(basename "$f" .ipynb); mkdir -p "results/$n"; '
             f'{ipy} {env}/bin/otter run --no-logo -a {zip_} -o "results/$n" "$f"; done')
    return {"setup": setup, "single": single, "batch": batch}


def grade_in_process(submission: Path, autograder: Path) -> tuple[float, float]:
    """(score, possible) by otter's own test runner in this process: faster than :func:`grade`, no kernel.

    Runs the submission's code cells (not otter's ``grader`` cells) in one namespace (a cell that raises is
    skipped, as otter's grading goes on past errors), then every test file
    of the autograder zip (hidden tests included) with ``otter.test_files.OKTestFile``.
    """
    import tempfile
    import zipfile

    from otter.test_files.ok_test import OKTestFile

    env: dict[str, Any] = {"__name__": "__main__"}
    for cell in nbformat.read(submission, as_version=4).cells:
        if cell.cell_type == "code" and "grader" not in cell.source:
            try:
                exec(compile(cell.source, str(submission), "exec"), env)  # noqa: S102 - grading a notebook
            except Exception:  # noqa: BLE001 - a failing cell fails its tests, as in otter's kernel grading
                continue
    score = possible = 0.0
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(autograder) as z:
        names = [n for n in z.namelist() if n.startswith("tests/") and n.endswith(".py")]
        z.extractall(tmp, names)
        for name in names:
            test = OKTestFile.from_file(str(Path(tmp) / name))
            test.run(env)
            score, possible = score + float(test.score), possible + float(test.possible)
    return score, possible


def built_assignments(out_dir: Path | None = None) -> list[Built]:
    """Every assignment through :func:`assign` into ``out_dir`` (default ``_build/assignments``; cached)."""
    out_dir = out_dir or paths.project_root() / "_build" / "assignments"
    requirements = grading_requirements(out_dir)
    return [assign(a, hidden_expectations(a), out_dir, requirements) for a in ASSIGNMENTS]


def build(out_dir: Path | None = None, book_dir: Path | None = None,
          results_dir: Path | None = None) -> dict[str, Any]:
    """Assign every assignment and copy the student notebooks into the book (the pages: :func:`anonbook.assignments.build`).

    ``out_dir``: default ``_build/assignments``; ``book_dir``: the book, which gets the pages
    (``_generated/``) and the student notebooks (``_static/assignments/``); ``results_dir``: where the
    chapters' results files are (the expected values' source; default the book). Returns a summary: how many were built or cached, otter's version, CPU seconds.
    """
    book_dir = book_dir or paths.book_dir()
    start = time.process_time()
    built = built_assignments(out_dir)
    out_dir = out_dir or paths.project_root() / "_build" / "assignments"
    static = book_dir / "_static" / "assignments"
    if static.exists():
        shutil.rmtree(static)
    static.mkdir(parents=True)
    for b in built:
        shutil.copy(b.student, static / b.student.name)
    return {"built": built, "assignments": len(built), "assigned": sum(not b.cached for b in built),
            "cached": sum(b.cached for b in built), "otter": otter_version(),
            "cpu_seconds": round(time.process_time() - start, 2), "out_dir": str(out_dir)}

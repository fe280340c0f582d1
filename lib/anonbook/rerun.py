"""``python -m anonlab run``: a run that is not the default lands beside the published one, and its page alone.

:func:`run_chapter` decides where a run goes from its identity (:mod:`anonbook.runs`): the default run, or
any run with ``publish``, into ``book/``; any other into ``book/runs/<chapter>/<run>/``. Publishing keeps
the default run's files in ``book/runs/<chapter>/default/`` and reruns the chapters that read the chapter
(chapter 9), so that none shows an older run as current. :func:`render_page` renders one executed
notebook as an HTML page with the book's configuration, without building the book.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from anonlab import paths
from anonbook.runs import RUNS_DIR, dependents_of, identify, recorded_identity, run_folder

__all__ = ["run_chapter", "render_page"]


def _adopt(src: Path, dest: Path, name: str, key: str) -> bool:
    """Copy a finished run in ``src`` with cache key ``key`` into ``dest`` (publish it); whether it was there."""
    meta_path = src / f"{name}.params.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    files = meta.get("published", [f"{name}.ipynb"])
    if meta.get("cache_key") != key or not all((src / f).exists() for f in files):
        return False
    dest.mkdir(parents=True, exist_ok=True)
    for suffix in (".results.json", ".attacks.pkl"):
        if f"{name}{suffix}" not in files:
            (dest / f"{name}{suffix}").unlink(missing_ok=True)
    for f in files:  # results first, the notebook, then the params (which mark it fresh)
        tmp = dest / f".{f}.adopt"
        shutil.copyfile(src / f, tmp)
        tmp.replace(dest / f)
    tmp = dest / f".{name}.params.json.adopt"
    shutil.copyfile(meta_path, tmp)
    tmp.replace(dest / f"{name}.params.json")
    return True


def run_chapter(notebook: str, parameters: Mapping[str, Any], *, preset: str | None = None,
                publish: bool = False, out: str | Path | None = None, html: bool = False,
                force: bool = False, log: Any = None) -> Path:
    """The command line's ``run``: a run that is not the default lands beside the published one.

    The default run (or any run with ``publish``) goes to ``book/``; any other to
    :func:`run_folder` (``out`` overrides both). Publishing a run that is already in its run folder
    with the same cache key copies it instead of running it again; the chapters that read it
    (chapter 9) are then rerun, so that they never show an older run as current. With ``html`` the
    run's page is rendered on its own (:func:`render_page`). Returns the executed notebook.
    """
    from anonbook.runner import cache_key, resolve_notebook, run_notebook, toc_notebooks, validate_parameters

    say = log or (lambda line: print(line, file=sys.stderr, flush=True))
    src = resolve_notebook(notebook)
    name = src.stem
    params = validate_parameters(src, dict(parameters))
    ident = identify(name, params, preset)
    if out is not None:
        dest = Path(out)
    elif ident.is_default or publish:
        dest = paths.book_dir()
    else:
        dest = run_folder(name, ident)
    from anonbook.chapters import get

    key = cache_key(src, get(name).parameters.validate(params))
    if dest == paths.book_dir() and not ident.is_default:
        _keep_default(name)
    if publish and out is None and not force and not ident.is_default and _adopt(run_folder(name, ident), dest, name, key):
        say(f"[anonlab] {name}: published the {ident.label} from {run_folder(name, ident)} (not rerun)")
        result_nb = dest / f"{name}.ipynb"
    else:
        result_nb = run_notebook(src, params, out_dir=dest, force=force, preset=ident.preset).notebook
    if not ident.is_default and dest != paths.book_dir():
        say(f"[anonlab] {name}: {ident.label}; it is in {dest}; the published book is unchanged "
            "(--publish makes it the published run)")
    if dest == paths.book_dir():
        for dep in dependents_of(name, toc_notebooks()):
            missing = unpublished_inputs(dep)
            if missing:
                say(f"[anonlab] {dep} reads {name}, but also {', '.join(missing)}, which have no published run: "
                    f"{dep} is not rerun (`python -m anonlab book` runs every chapter)")
                continue
            say(f"[anonlab] {dep} reads {name}: rerunning it on the published runs")
            run_notebook(dep, dict(_published_parameters(dep)), force=False)
        if not ident.is_default:
            say(f"[anonlab] {name}: the {ident.label} is now the published run; "
                "`python -m anonlab book --no-run` rebuilds the front page and the verdicts page around it")
    if html:
        page = render_page(result_nb)
        say(f"[anonlab] {name}: the page is at {page}")
    return result_nb


def unpublished_inputs(chapter: str) -> list[str]:
    """The chapters ``chapter`` reads (its ``after``) that have no published run in ``book/`` yet."""
    from anonbook.chapters import get

    return [c for c in get(chapter).after if not (paths.book_dir() / f"{c}.results.json").exists()]


def _keep_default(chapter: str) -> None:
    """Before a run that is not the default is published over the default one, keep the default run's files
    in ``book/runs/<chapter>/default/`` (the pins and the graded assignments read it there)."""
    book = paths.book_dir()
    ident = recorded_identity(chapter, book)
    if ident is None or not ident.is_default:
        return
    keep = book / RUNS_DIR / chapter / "default"
    keep.mkdir(parents=True, exist_ok=True)
    for suffix in (".ipynb", ".results.json", ".attacks.pkl", ".params.json"):
        if (book / f"{chapter}{suffix}").exists():
            shutil.copyfile(book / f"{chapter}{suffix}", keep / f"{chapter}{suffix}")


def _published_parameters(chapter: str) -> Mapping[str, Any]:
    """The given parameters of a chapter's published run (``{}`` when it has not run)."""
    try:
        meta = json.loads((paths.book_dir() / f"{chapter}.params.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return meta.get("parameters") or {}


def render_page(notebook: Path, out: Path | None = None) -> Path:
    """Render one executed chapter notebook as an HTML page on its own (Jupyter Book's single-page build).

    The page goes to ``<notebook's folder>/_build/html/<chapter>.html`` unless ``out`` names the folder; the
    book's configuration (its stylesheet, MathJax, MyST extensions) is used, the rest of the book is not
    built. Returns the HTML file.
    """
    notebook = Path(notebook).resolve()
    folder = notebook.parent
    work = folder / "_page"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    shutil.copyfile(notebook, work / notebook.name)
    static = paths.book_dir() / "_static"
    if static.exists():
        shutil.copytree(static, work / "_static", dirs_exist_ok=True)
    vendor = paths.book_dir() / "_vendor"
    if vendor.exists():
        shutil.copytree(vendor, work / "_vendor", dirs_exist_ok=True)
    bib = paths.book_dir() / "references.bib"
    if bib.exists():
        shutil.copyfile(bib, work / "references.bib")
    config = _single_page_config(work)
    started = time.perf_counter()
    _copy_includes(work / notebook.name, work)
    cmd = [str(Path(sys.executable).with_name("jupyter-book")), "build", str(work / notebook.name),
           "--config", str(config), "--path-output", str(work)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    built = work / "_build"
    pages = sorted(built.rglob("index.html")) if built.exists() else []  # a single-page build's page is index.html
    page = pages[0] if pages else None
    if proc.returncode != 0 or page is None:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise RuntimeError(f"rendering {notebook.name} failed:\n{tail}")
    target = Path(out) if out is not None else folder / "_build" / "html"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(page.parent, target)
    index, named = target / "index.html", target / f"{notebook.stem}.html"
    if named.exists() and 'http-equiv="Refresh"' in index.read_text(encoding="utf-8", errors="replace"):
        index.unlink()  # Jupyter Book wrote the page under its own name and index.html only redirects to it
    else:
        index.replace(named)
    shutil.rmtree(work, ignore_errors=True)
    print(f"[anonlab] rendered {notebook.stem} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return target / f"{notebook.stem}.html"


def _copy_includes(notebook: Path, work: Path) -> None:
    """Copy the generated pages the notebook includes (its chapter header) beside it; an empty one if missing."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    for cell in nb.get("cells", []):
        text = "".join(cell.get("source", [])) if isinstance(cell.get("source"), list) else cell.get("source", "")
        for rel in re.findall(r"```\{include\}\s+(\S+)", text):
            target = work / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            found = paths.book_dir() / rel
            if found.is_file():
                shutil.copyfile(found, target)
            else:
                target.write_text(f"(The chapter header `{rel}` is written by a book build.)\n", encoding="utf-8")


def _single_page_config(work: Path) -> Path:
    """The book's ``_config.yml`` for one page: no execution, the same Sphinx and MyST settings."""
    import yaml

    cfg = yaml.safe_load((paths.project_root() / "_config.yml").read_text(encoding="utf-8")) or {}
    cfg.setdefault("execute", {})["execute_notebooks"] = "off"
    cfg.pop("only_build_toc_files", None)
    path = work / "_config.yml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path

"""Build the whole book: run every chapter, generate the verdict pages, build HTML.

Two editions come from one source and one set of executed runs: the
instructor edition (``_build/html``: exercise solutions and grading notes)
and the student edition (``_build/student/html``: the questions only; see
:func:`build_and_check`). Only the generated solution includes, one setting
(sphinx-exercise's ``hide_solutions``, on for the student) and one more Sphinx
build differ.

The build is Jupyter Book 1 (Sphinx) with notebook execution off: papermill
has already executed the notebooks (see :mod:`anonbook.runner`). Sphinx runs
with warnings as errors (``-W -n --keep-going``) and the internal links of
the result are checked offline by :func:`check_internal_links`.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from anonlab import paths
from anonbook import verdicts
from anonbook.assignments import build as build_assignments
from anonlab.fileio import copy_parts
from anonbook.runner import RunError, toc_notebooks

__all__ = ["generate_pages", "build_html", "edition_config", "build_edition", "blank_instructor_pages", "edition_dir", "check_internal_links", "find_browser",
           "browser_check", "build_book", "checked_pages"]

#: Hand-written pages every build renders in the browser check (besides the chapters).
FIXED_PAGES = ("intro", "verdicts", "course", "assignments", "midterm", "project", "glossary", "adding_a_chapter")


def checked_pages(chapters: list[str]) -> list[str]:
    """The pages the browser check renders: the fixed pages that exist, then the chapters."""
    return [p for p in FIXED_PAGES if (paths.book_dir() / f"{p}.md").exists()] + list(chapters)


def generated_dir() -> Path:
    """``book/_generated``: pages made at build time (git-ignored)."""
    return paths.book_dir() / "_generated"


def chapter_title(name: str) -> str:
    """The H1 title of a chapter notebook (its first markdown line)."""
    import json

    nb = json.loads((paths.notebooks_dir() / f"{name}.ipynb").read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return name


def yardstick_chapters(names: list[str], page: str = "09_one_yardstick") -> list[str]:
    """The chapters whose attacks the front page's yardstick row counts: those the yardstick chapter reads (its
    declared ``after``) and the chapter itself, so the row and chapter 9 count the same attacks (chapter 10's
    audit of a release is not one of them); all of ``names`` when the book has no such chapter."""
    from anonbook.chapters import get, has_chapter

    if page not in names or not has_chapter(page):
        return list(names)
    read = set(get(page).after)
    return [n for n in names if n in read or n == page]


def generate_pages(results_dir: Path | None = None, edition: str = "instructor") -> None:
    """Write the pages made at build time under ``book/_generated``.

    The verdict summary and table (included by ``intro.md`` and
    ``verdicts.md``), the yardstick's row on the front page, each chapter's header and computed exercise solutions,
    and the course plan (:mod:`anonbook.course`); the graded assignments with otter (:mod:`anonbook.assignments`:
    their page and student notebooks, from the recorded runs). ``edition="student"`` writes
    the exercises without solutions and empties every generated
    ``*.instructor.md`` (:func:`blank_instructor_pages`): the assignments' solutions and hidden tests too.
    """
    from anonbook.course import EDITIONS, write_course_pages

    if edition not in EDITIONS:
        raise ValueError(f"edition must be one of {EDITIONS}, got {edition!r}")
    names = toc_notebooks()
    chapters = {name: chapter_title(name) for name in names}
    verdicts.write_verdict_pages(generated_dir(), results_dir, chapters)
    verdicts.write_yardstick_summary(generated_dir(), yardstick_chapters(names), results_dir,
                                     title=chapters.get("09_one_yardstick"))
    write_course_pages(names, edition)
    from anonbook.assessments import write_assessment_pages  # the midterm and the project brief (issue 36)

    write_assessment_pages()
    print(f"[anonlab] assignments: {build_assignments(results_dir=results_dir)}", file=sys.stderr)
    if edition == "student":
        blank_instructor_pages()


def blank_instructor_pages(folder: Path | None = None) -> list[Path]:
    """Empty every generated ``*.instructor.md`` (solutions, hidden tests, grading notes); return them.

    The student edition includes the same pages, which then include nothing.
    """
    found = sorted((folder or generated_dir()).rglob("*.instructor.md"))
    for f in found:
        f.write_text("", encoding="utf-8")
    return found


def edition_dir(edition: str) -> Path:
    """Where an edition's HTML goes: ``_build/html`` (instructor), ``_build/student/html`` (student)."""
    build = paths.project_root() / "_build"
    return build / "html" if edition == "instructor" else build / edition / "html"


MATHJAX_PARTS = ("tex-chtml.js", "output/chtml/fonts/woff-v2", "input/tex/extensions", "ui", "a11y")


def vendor_mathjax(static_dir: Path | None = None) -> Path:
    """Copy MathJax 3 into ``book/_vendor/_static/mathjax`` so formulas render without the web.

    The files come from the ``django-static-mathjax`` package (static files only), pinned in the lock.
    ``_config.yml`` sets ``mathjax_path`` to ``mathjax/tex-chtml.js``, relative to the built ``_static``
    folder; ``_vendor`` is an extra path (copied into the HTML as it is), not a static path, because Jupyter
    Book adds every script of a static path to every page.
    """

    try:
        import mathjax  # the django-static-mathjax distribution
    except ImportError as exc:  # pragma: no cover - it is in the lock
        raise RuntimeError("MathJax files missing: install the lock (make env)") from exc
    src = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    dest = (static_dir or paths.book_dir() / "_vendor" / "_static") / "mathjax"
    if (dest / "tex-chtml.js").exists():
        return dest
    return copy_parts(src, dest, MATHJAX_PARTS)


def edition_config(edition: str, folder: Path) -> Path:
    """The Jupyter Book configuration of an edition: the root ``_config.yml``, and for the student edition
    a copy in ``folder`` with sphinx-exercise's ``hide_solutions`` on (every ``{solution}`` directive left out).
    """
    import yaml

    root = paths.project_root() / "_config.yml"
    if edition == "instructor":
        return root
    config = yaml.safe_load(root.read_text(encoding="utf-8"))
    config.setdefault("sphinx", {}).setdefault("config", {})["hide_solutions"] = True
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "_config.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def build_html(out: Path | None = None, *, strict: bool = True, config: Path | None = None) -> Path:
    """Run ``jupyter-book build`` on ``book/`` with ``config`` (default: the root ``_config.yml``) and ``_toc.yml``.

    Returns the HTML folder (``_build/html``). Raises ``RuntimeError`` if the
    build fails or (with ``strict``) emits any warning.
    """
    root = paths.project_root()
    out = out or root
    vendor_mathjax()
    from anonbook.explore import vendor_plotly

    vendor_plotly()
    cmd = [
        str(Path(sys.executable).with_name("jupyter-book")), "build", str(paths.book_dir()),
        "--config", str(config or root / "_config.yml"), "--toc", str(root / "_toc.yml"),
        "--path-output", str(out), "--all",
    ]
    if strict:
        cmd += ["--warningiserror", "--nitpick", "--keep-going"]
    print(f"[anonlab] building HTML: jupyter-book {' '.join(cmd[1:])}", file=sys.stderr)
    proc = subprocess.run(cmd, cwd=root, text=True, capture_output=True)
    sys.stderr.write(proc.stdout[-4000:])
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-8000:])
        raise RuntimeError(f"jupyter-book build failed (exit {proc.returncode}); see the log above")
    html = Path(out) / "_build" / "html"
    return html


class _LinkParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"] or "")
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"] or "")
        for attr in ("href", "src"):
            v = a.get(attr)
            if v and tag in ("a", "img", "link", "script"):
                self.links.append(v)


def check_internal_links(html_dir: Path) -> list[str]:
    """Every internal link and anchor of the built HTML resolves; returns the broken ones.

    External links (with a scheme or ``//``) are not checked: the build is offline.
    """
    pages: dict[Path, _LinkParser] = {}
    for f in html_dir.rglob("*.html"):
        if f.relative_to(html_dir).parts[0] in ("_static", "_sources"):
            continue  # theme templates, not pages
        p = _LinkParser()
        p.feed(f.read_text(encoding="utf-8", errors="replace"))
        pages[f.resolve()] = p
    broken = []
    for page, parser in pages.items():
        for link in parser.links:
            u = urlparse(link)
            if u.scheme or link.startswith("//") or link.startswith("mailto:"):
                continue
            target = page if not u.path else (page.parent / unquote(u.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(html_dir.resolve())}: {link}")
                continue
            if u.fragment and target.suffix == ".html":
                ids = pages.get(target, _LinkParser()).ids
                if u.fragment not in ids and not re.match(r"^(top|)$", u.fragment):
                    broken.append(f"{page.relative_to(html_dir.resolve())}: {link} (no anchor)")
    return sorted(set(broken))


BROWSER_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)


def find_browser() -> str | None:
    """A headless-capable Chromium/Chrome on PATH, or ``None``."""
    import shutil

    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


@contextmanager
def headless_browser(browser: str, *extra_flags: str) -> Iterator[Any]:
    """One headless Chromium (the one at ``browser``), driven by Playwright, for every page of a check.

    Starting the browser once, not once per page, is most of a check's time saved. The flags are
    :data:`BROWSER_FLAGS` and ``extra_flags``; file URLs may read files beside them (a page's frame).
    """
    from playwright.sync_api import sync_playwright

    flags = [f for f in BROWSER_FLAGS if f != "--headless"] + ["--allow-file-access-from-files", *extra_flags]
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=browser, args=flags, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


def render_page(page: Path, browser: Any, *, screenshot: Path | None = None) -> str:
    """Load ``page`` in ``browser`` (a :func:`headless_browser`), scripts run, and return the rendered DOM.

    The page is read once it has loaded and, if it has formulas, once MathJax has typeset them (at most 10 s);
    with ``screenshot``, a PNG of the first 1280 x 1600 pixels is kept there.
    """
    tab = browser.new_page(viewport={"width": 1280, "height": 1600})
    try:
        tab.goto(page.resolve().as_uri(), wait_until="load", timeout=120_000)
        if 'class="math' in page.read_text(encoding="utf-8"):
            try:
                tab.wait_for_selector("mjx-container", state="attached", timeout=10_000)
            except Exception:  # noqa: BLE001 - not typeset: the check reports it from the DOM
                pass
        if screenshot is not None:
            tab.screenshot(path=str(screenshot))
        return tab.content()
    finally:
        tab.close()


def browser_check(html_dir: Path, pages: list[str], browser: str,
                  screenshots: Path | None = None) -> list[str]:
    """Render each page in a real browser and report what a reader would see go wrong.

    With ``screenshots`` (a folder, e.g. ``_build/screenshots``), a PNG of
    each page as a reader first sees it is kept there, to look at.

    Checks: the page renders with its title and the book's navigation, its
    formulas are typeset (MathJax loads from the book itself), no notebook
    error output or Python traceback is shown, and every image on the page
    has a source that exists.
    """
    problems = []
    with headless_browser(browser) as chromium:
        for name in pages:
            problems += _page_problems(html_dir, name, chromium, screenshots)
    return problems


def _page_problems(html_dir: Path, name: str, browser: Any, screenshots: Path | None) -> list[str]:
    """What :func:`browser_check` finds wrong with one page, rendered in ``browser``."""
    problems = []
    page = html_dir / f"{name}.html"
    if not page.exists():
        return [f"{name}: page missing"]
    shot = None
    if screenshots is not None:
        screenshots.mkdir(parents=True, exist_ok=True)
        shot = screenshots / f"{name}.png"
    dom = render_page(page, browser, screenshot=shot)
    if shot is not None and not shot.exists():
        problems.append(f"{name}: the browser made no screenshot")
    parser = _LinkParser()
    parser.feed(dom)
    if "<h1" not in dom:
        problems.append(f"{name}: no title (h1) rendered")
    if "bd-sidebar" not in dom:
        problems.append(f"{name}: the book navigation did not render")
    if 'class="math' in page.read_text(encoding="utf-8") and "mjx-container" not in dom:
        problems.append(f"{name}: formulas were not typeset (MathJax did not load)")
    for marker in ("Traceback (most recent call last)", 'class="output error"', "ansi-red-fg"):
        if marker in dom:
            problems.append(f"{name}: shows an error output ({marker})")
    for link in parser.links:
        if link.startswith("data:"):
            continue
        u = urlparse(link)
        if not u.scheme and link.endswith((".png", ".svg", ".jpg")):
            if not (page.parent / unquote(u.path)).exists():
                problems.append(f"{name}: image {link} missing")
    return problems


def book_inputs_key() -> str:
    """Hash of everything the HTML is made from: configuration, pages, executed notebooks, results, library.

    A rebuild whose key matches the one stamped into the last good build has
    nothing to do (the Sphinx build, the link check and the browser check
    are skipped).
    """
    import hashlib

    from anonbook.cache import library_fingerprint

    root = paths.project_root()
    h = hashlib.sha256(library_fingerprint().encode())
    files = [root / "_config.yml", root / "_toc.yml"]
    files += [f for f in paths.book_dir().rglob("*") if f.is_file()
              and not written_by_the_build(f.relative_to(paths.book_dir()))]
    for f in sorted(files):
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


STAMP_NAME = ".anonlab-build-key"

#: Folders under ``book/`` that the HTML build itself writes, from inputs the key already holds: the generated
#: pages, the vendored MathJax, Sphinx's output, and the assignments' student notebooks (``build_assignments``).
BUILD_WRITTEN = ("_generated", "_vendor", "_build", "_static/assignments", "runs")


def written_by_the_build(rel: Path) -> bool:
    """Is ``rel`` (a path under ``book/``) something a build writes, not an input of the book's key?

    :data:`BUILD_WRITTEN`, a run's temporary folder (``.run-*``) and any hidden file (a chapter's run lock).
    Were they in the key, the first rebuild after a fresh build would find a changed key (the build wrote
    them after computing it) and rebuild both editions for nothing.

    >>> written_by_the_build(Path("_static/assignments/01_x.ipynb")), written_by_the_build(Path("intro.md"))
    (True, False)
    """
    posix = rel.as_posix()
    return (any(part.startswith(".") for part in rel.parts)
            or any(posix == d or posix.startswith(d + "/") for d in BUILD_WRITTEN))


def check_published_verdicts(names: list[str]) -> None:
    """Fail the build when a chapter's default-run verdicts differ from ``tests/verdicts/default/``.

    ``ANONLAB_UPDATE_VERDICTS=1`` accepts them instead (writes the pins), as
    ``python -m anonlab pins --write`` does (see :mod:`anonbook.verdicts.pins`).
    """
    import os

    from anonbook.verdicts import pins

    if os.environ.get("ANONLAB_UPDATE_VERDICTS"):
        for ch in pins.write_default_pins(names):
            print(f"[anonlab] pinned the default verdicts of {ch}", file=sys.stderr)
        return
    problems = pins.check_default_pins(names)
    skipped = pins.unchecked_chapters(names)
    if skipped:
        print(f"[anonlab] verdict pins left alone for {len(skipped)} chapter(s) not at their default run: "
              + "; ".join(f"{ch} ({why})" for ch, why in skipped.items()), file=sys.stderr)
    if problems:
        raise RunError("verdicts changed without their pins:\n  " + "\n  ".join(problems))


def build_book(*, force: bool = False, only: list[str] | None = None, jobs: int | None = None,
               shared_kernels: bool = True, html: bool = True,
               editions: tuple[str, ...] = ("student", "instructor")) -> Path:
    """Run every chapter in ``_toc.yml`` with its default parameters and every exercise run, then build.

    The runs are scheduled side by side over the machine's cores and memory
    (:mod:`anonbook.schedule`): ``jobs`` at once (default: one per core;
    ``jobs=1`` runs them one after another), each chapter's exercise runs in
    one shared kernel unless ``shared_kernels`` is off. A failing run stops
    the build once the runs under way have finished (a failed run never
    replaces a published notebook). When neither a chapter nor any page
    changed since the last good build, the HTML is left as it is (``force``
    rebuilds it); ``html=False`` stops after the runs. ``editions``: which
    editions to build (:func:`build_and_check`).
    """
    from anonbook.schedule import plan_book, run_book_jobs

    names = toc_notebooks()
    if only:
        unknown = sorted(set(only) - set(names))
        if unknown:
            raise RunError(f"unknown chapter(s) {unknown}; chapters: {', '.join(names)}")
        names = [n for n in names if n in only]
    plan = plan_book(names)
    print(f"[anonlab] {len(plan)} jobs for {len(names)} chapters: {jobs or 'one per core'} at a time"
          f"{', exercise runs in one kernel per chapter' if shared_kernels else ''}", file=sys.stderr)
    run_book_jobs(plan, concurrency=jobs, force=force, shared_kernels=shared_kernels)
    check_published_verdicts(toc_notebooks())  # the published runs' verdicts against tests/verdicts/default
    out = paths.project_root() / "_build" / "html"
    if not html:
        return out
    key = book_inputs_key()
    stamp = out / STAMP_NAME
    if (not force and set(editions) == {"student", "instructor"} and stamp.exists() and stamp.read_text() == key and (out / "index.html").exists()
            and (edition_dir("student") / "index.html").exists()):
        print(f"[anonlab] nothing changed since the last build: the book is at {out / 'index.html'}",
              file=sys.stderr)
        return out
    return build_and_check(key, editions)


def build_edition(edition: str) -> Path:
    """Generate the pages of one edition and build its HTML into :func:`edition_dir`; check its links.

    The student edition is built by Sphinx into ``_build/student/_build/html``
    and moved to ``_build/student/html``.
    """
    import shutil
    import time

    from anonbook.chapters import has_chapter

    started = time.perf_counter()
    generate_pages(edition=edition)
    if edition == "instructor":
        from anonbook.course import preset_problems

        unnamed = [p for name in toc_notebooks() if has_chapter(name) for p in preset_problems(name)]
        if unnamed:
            raise RuntimeError("solutions cite the chapter's values with others, without naming their preset:\n  "
                               + "\n  ".join(unnamed))
        html = build_html()
    else:
        work = paths.project_root() / "_build" / edition
        built = build_html(work, config=edition_config(edition, work))
        html = edition_dir(edition)
        if html.exists():
            shutil.rmtree(html)
        built.rename(html)
    from anonbook.publish import write_download_copies  # the download button's notebook, MyST resolved (issue 38)

    write_download_copies(html, toc_notebooks())
    from anonbook.slides import build_slides  # a reveal.js deck per chapter under <edition>/slides (issue 28)

    build_slides(html, toc_notebooks())
    broken = check_internal_links(html)
    if broken:
        raise RuntimeError(f"broken internal links in the {edition} edition:\n  " + "\n  ".join(broken))
    print(f"[anonlab] the {edition} edition: pages and HTML in {time.perf_counter() - started:.0f} s",
          file=sys.stderr)
    return html


def build_and_check(key: str | None = None, editions: tuple[str, ...] = ("student", "instructor")) -> Path:
    """Build each edition (both by default), check its links and its pages in a browser.

    The instructor edition (solutions, grading notes) goes to ``_build/html``,
    the student edition (questions only) to ``_build/student/html``; both
    reuse the same executed runs. The instructor edition is built last, so
    ``book/_generated`` is left as it describes. On success the inputs' key is
    stamped into the instructor HTML folder (when both editions were built).
    """
    names = toc_notebooks()
    stamp_key = key or book_inputs_key()
    built = {edition: build_edition(edition) for edition in editions}
    browser = find_browser()
    if browser is None:
        print("[anonlab] no Chromium found: skipping the browser check of the pages", file=sys.stderr)
    else:
        for edition, html in built.items():
            shots = paths.project_root() / "_build" / ("screenshots" if edition == "instructor"
                                                       else f"screenshots-{edition}")
            pages = checked_pages(names) if edition == "instructor" else list(names)
            problems = browser_check(html, pages, browser, shots)
            if problems:
                raise RuntimeError(f"the browser check of the {edition} edition found problems:\n  "
                                   + "\n  ".join(problems))
            print(f"[anonlab] screenshots of the {edition} edition's pages: {shots}", file=sys.stderr)
        if set(built) == {"student", "instructor"}:
            (built["instructor"] / STAMP_NAME).write_text(stamp_key)
    for edition, html in built.items():
        print(f"[anonlab] the {edition} edition is at {html / 'index.html'}", file=sys.stderr)
    return built.get("instructor") or next(iter(built.values()))

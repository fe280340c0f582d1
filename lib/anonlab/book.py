"""Build the whole book: run every chapter, generate the verdict pages, build HTML.

The build is Jupyter Book 1 (Sphinx) with notebook execution off: papermill
has already executed the notebooks (see :mod:`anonlab.runner`). Sphinx runs
with warnings as errors (``-W -n --keep-going``) and the internal links of
the result are checked offline by :func:`check_internal_links`.
"""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

from . import claims, paths
from .runner import RunError, run_notebook, toc_notebooks

__all__ = ["generate_pages", "build_html", "check_internal_links", "build_book"]


def generated_dir() -> Path:
    """``book/_generated``: pages made at build time (git-ignored)."""
    return paths.book_dir() / "_generated"


def generate_pages(results_dir: Path | None = None) -> None:
    """Write the verdict summary and table included by ``intro.md`` and ``verdicts.md``."""
    claims.write_verdict_pages(generated_dir(), results_dir)


def build_html(out: Path | None = None, *, strict: bool = True) -> Path:
    """Run ``jupyter-book build`` on ``book/`` with the root ``_config.yml`` and ``_toc.yml``.

    Returns the HTML folder (``_build/html``). Raises ``RuntimeError`` if the
    build fails or (with ``strict``) emits any warning.
    """
    root = paths.project_root()
    out = out or root
    cmd = [
        str(Path(sys.executable).with_name("jupyter-book")), "build", str(paths.book_dir()),
        "--config", str(root / "_config.yml"), "--toc", str(root / "_toc.yml"),
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


def build_book(*, force: bool = False, only: list[str] | None = None) -> Path:
    """Run every chapter in ``_toc.yml`` order with its default parameters, then build.

    Stops at the first failing chapter (its published notebook is left as it was).
    """
    names = toc_notebooks()
    if only:
        unknown = sorted(set(only) - set(names))
        if unknown:
            raise RunError(f"unknown chapter(s) {unknown}; chapters: {', '.join(names)}")
        names = [n for n in names if n in only]
    for i, name in enumerate(names, 1):
        print(f"[anonlab] chapter {i}/{len(names)}: {name}", file=sys.stderr)
        run_notebook(name, force=force)
    generate_pages()
    html = build_html()
    broken = check_internal_links(html)
    if broken:
        raise RuntimeError("broken internal links in the built book:\n  " + "\n  ".join(broken))
    print(f"[anonlab] the book is at {html / 'index.html'}", file=sys.stderr)
    return html

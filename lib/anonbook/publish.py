"""Make an executed chapter notebook read like a page of a book (the runner applies it before publishing).

A chapter's notebook is written for people who rerun it: every step is a code cell. Its page is written
for people who read it: the narration, the figures and tables, and the code one click away. Before the
runner publishes an executed notebook, :func:`tidy_for_reading`:

- shows the **parameters** as a table (name, value used, meaning, from the chapter's declaration) with
  the parameters cell's code folded behind it; papermill's injected-parameters cell is removed (the table
  shows the values the run used);
- **folds the code** of every cell that shows something (``hide-input``: the output stays, the code opens
  on a click) and **removes the code** of cells that show nothing (glue, recording, imports: their stored
  values stay for the prose) and of cells whose code would tell the reader nothing the output does not
  (:func:`code_tells_nothing`: a bare name, or the kit's verdict table, claims table or provenance), so
  that a "Show code" button is there only where the code shows how a result was computed;
- keeps **progress and log lines off the page**: a cell's standard-error stream (progress, data fetches,
  warnings) is moved to the chapter's kernel log (``_build/logs/<chapter>.kernel.log``);
- **numbers the figures per chapter** (:func:`number_figures`: "Figure 5.3: ..." in each caption; Sphinx's
  book-wide numbering is off, ``numfig: false`` in ``_config.yml``), so the book's own numbers never read
  like a paper's (the chapters name a paper's figure with the paper: "Fig. 4 of Francis and Wagner");
- removes **local paths** from the notebook's metadata (papermill records absolute input and output paths);
- writes the **values into the prose**: each ``{glue:text}`key``` / ``{glue:md}`key``` of a markdown cell is
  replaced by the value the run glued under ``key`` (formatted as MyST-NB would), so the notebook a reader
  downloads shows the numbers, not placeholders; glued figures and tables (``{glue:}``, ``{glue:figure}``)
  stay as they are.

A cell an author tagged already (``remove-*``, ``hide-*``) keeps its tags.

After the HTML is built, :func:`write_download_copies` replaces the notebook the page's download button
gives (``_sources/<chapter>.ipynb``) by one that reads in any Jupyter: citations as "(Cormode, 2011)" with
the reference list at the end, terms as plain words, included boxes inlined, no MyST role or directive left.
"""

from __future__ import annotations

import ast
import html
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["tidy_for_reading", "code_tells_nothing", "chapter_number", "number_figures", "resolve_myst",
           "download_copy", "write_download_copies", "citation_text", "reference_line", "load_bibliography",
           "parameters_html", "tidy_executed_notebook", "glued_values", "fill_glued_prose", "insert_banner"]

AUTHOR_TAGS = {"remove-cell", "remove-input", "remove-output", "hide-cell", "hide-input", "hide-output"}


def parameters_html(chapter: str, values: Mapping[str, Any]) -> str:
    """The run's parameters as an HTML table: name, the value used, the declared meaning."""
    from anonbook.chapters import get, has_chapter

    from anonbook.booktables import FOLD_ITEMS, value_text

    rows = []
    params = get(chapter).parameters.params if has_chapter(chapter) else []
    for q in params:
        v = values.get(q.name, q.default)
        # a long list (chapter 5's 41 attribute names) folds behind its first items, as in every book table
        if v is None:  # what None means for this parameter is in its meaning column
            shown = "<em>not set</em> (<code>None</code>)"
        elif isinstance(v, (list, tuple)) and len(v) > FOLD_ITEMS:
            shown = value_text([repr(i) for i in v])
        else:
            shown = f"<code>{html.escape(repr(v))}</code>"
        rows.append(f'<tr><td><code>{html.escape(q.name)}</code></td>'
                    f'<td>{shown}</td><td>{html.escape(q.help)}</td></tr>')
    return ('<table class="parameters-table"><thead><tr><th>parameter</th><th>value in this run</th>'
            '<th>meaning</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")


def _shows_something(cell: Mapping[str, Any]) -> bool:
    """Whether a cell has an output a reader sees (glued values are stored, not shown; stderr is moved out)."""
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream" and o.get("name") == "stderr":
            continue
        if "scrapbook" in (o.get("metadata") or {}):
            continue
        return True
    return False


#: The kit's methods whose output says what it is (``run.verdict_table()``...): their code adds nothing.
SELF_DESCRIBING = {"verdict_table", "claims_table", "provenance"}


def code_tells_nothing(source: str) -> bool:
    """Whether a cell's code is one expression that only shows a value: a bare name (``sweep``, optionally
    in ``display(...)``) or one of the kit's self-describing tables (:data:`SELF_DESCRIBING`, called on
    ``run``). Such a cell gets no "Show code" button: it would open on a line that explains nothing."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False
    if len(body) != 1 or not isinstance(body[0], ast.Expr):
        return False
    node = body[0].value
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "display" and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Name):
        return True
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and getattr(node.func.value, "id", None) == "run" and node.func.attr in SELF_DESCRIBING)


def chapter_number(chapter: str) -> str:
    """The chapter's number as the book prints it: ``05_nonmember_framework`` -> ``5``, ``06b_...`` -> ``6b``."""
    head = chapter.split("_", 1)[0]
    m = re.fullmatch(r"0*(\d+)([a-z]?)", head)
    if not m:
        raise ValueError(f"chapter {chapter!r} does not start with its number (as 05_nonmember_framework does)")
    return m.group(1) + m.group(2)


FIGURE_NUMBER = re.compile(r"^Figure (\d+[a-z]?\.)?\d+: ")


def number_figures(nb: Any, chapter: str) -> int:
    """Prefix each captioned figure's caption (``mystnb.figure.caption``) with its number in the chapter,
    in page order ("Figure 6b.2: ..."; "Figure 2: ..." in a notebook whose name has no number); a caption
    numbered already is renumbered. Returns how many."""
    try:
        label, k = chapter_number(chapter) + ".", 0
    except ValueError:
        label, k = "", 0
    for cell in nb.cells:
        fig = ((cell.get("metadata") or {}).get("mystnb") or {}).get("figure") if cell.cell_type == "code" else None
        if not fig or not fig.get("caption"):
            continue
        k += 1
        fig["caption"] = f"Figure {label}{k}: " + FIGURE_NUMBER.sub("", str(fig["caption"]))
    return k


GLUE_ROLE = re.compile(r"\{glue:(text|md)\}`([^`]+)`")
MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|])")


def glued_values(nb: Any) -> dict[str, dict[str, Any]]:
    """Key -> the MIME bundle a code cell glued under it (``application/papermill.record/`` prefix removed)."""
    store: dict[str, dict[str, Any]] = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            meta = (out.get("metadata") or {}).get("scrapbook")
            if not meta:
                continue
            prefix = meta.get("mime_prefix", "")
            store[meta["name"]] = {k[len(prefix):] if k.startswith(prefix) else k: v
                                   for k, v in (out.get("data") or {}).items()}
    return store


def fill_glued_prose(text: str, store: Mapping[str, Mapping[str, Any]]) -> str:
    """Replace the text and Markdown glue roles of ``text`` by their values (unknown keys are left as roles).

    ``{glue:text}`key:fmt``` becomes the text/plain value formatted by MyST-NB's own rule (literal-eval,
    then ``format(value, fmt)``), with Markdown's special characters escaped so it reads as plain text;
    ``{glue:md}`key``` becomes the text/markdown value.
    """
    from myst_nb.core.variables import format_plain_text

    def value(m: re.Match[str]) -> str:
        kind, spec = m.group(1), m.group(2)
        if kind == "md":
            key = spec.split(":", 1)[0]
            data = store.get(key)
            if data is None:
                return m.group(0)
            return str(data.get("text/markdown", data.get("text/plain", "")))
        key, fmt = spec.rsplit(":", 1) if ":" in spec else (spec, "s")
        data = store.get(key)
        if data is None or "text/plain" not in data:
            return m.group(0)
        try:
            shown = format_plain_text(str(data["text/plain"]), fmt)
        except (ValueError, TypeError):
            return m.group(0)
        return MARKDOWN_SPECIAL.sub(r"\\\1", shown)

    return GLUE_ROLE.sub(value, text)


def tidy_for_reading(nb: Any, chapter: str, values: Mapping[str, Any]) -> list[str]:
    """Tag and trim the executed notebook ``nb`` (nbformat v4) in place; return the stderr lines moved out.

    See the module docstring for what changes. Outputs other than standard-error streams are never
    altered, so every number and figure on the page is the one the run computed.
    """
    import nbformat

    moved: list[str] = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        tags = list(cell.metadata.get("tags", []))
        kept = []
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                moved.append(str(out.get("text", "")))
            else:
                kept.append(out)
        cell.outputs = kept
        if "injected-parameters" in tags:
            tags.append("remove-cell")
        elif "parameters" in tags:
            cell.outputs = [nbformat.v4.new_output(
                "display_data", data={"text/html": parameters_html(chapter, values),
                                      "text/plain": "the run's parameters (table)"})]
            tags.append("hide-input")
        elif not AUTHOR_TAGS & set(tags):
            shown = _shows_something(cell) and not code_tells_nothing(cell.source)
            tags.append("hide-input" if shown else "remove-input")
        cell.metadata["tags"] = list(dict.fromkeys(tags))
    number_figures(nb, chapter)
    store = glued_values(nb)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and "{glue:" in cell.source:
            cell.source = fill_glued_prose(cell.source, store)
    pm = nb.metadata.get("papermill")
    if isinstance(pm, dict):
        for key in ("input_path", "output_path"):
            if pm.get(key):
                pm[key] = Path(str(pm[key])).name
    return moved


def tidy_executed_notebook(path: Path, chapter: str, values: Mapping[str, Any], log: Path | None = None) -> None:
    """:func:`tidy_for_reading` on the notebook file at ``path`` (rewritten in place); stderr lines go to ``log``."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    moved = tidy_for_reading(nb, chapter, values)
    nbformat.write(nb, path)
    if log is not None and moved:
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "a", encoding="utf-8") as fh:
            fh.write("".join(moved))


# -- the download copy: the page's notebook with MyST resolved, so it reads in any Jupyter (issue 38) -------

INCLUDE = re.compile(r"^```\{include\}\s+(\S+)[^\n]*\n(?:[^\n]*\n)*?```[ \t]*$", re.M)
BACKTICK_DIRECTIVE = re.compile(r"^(`{3,})\{([\w:-]+)\}[ \t]*([^\n]*)\n(.*?)^\1[ \t]*$", re.M | re.S)
COLON_DIRECTIVE = re.compile(r"^(:{3,})\{([\w:-]+)\}[ \t]*([^\n]*)\n(.*?)^\1[ \t]*$", re.M | re.S)
OPTION_LINE = re.compile(r"^:[\w-]+:[^\n]*\n", re.M)
TARGET_LINE = re.compile(r"^\([\w.:-]+\)=[ \t]*\n", re.M)
ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")


def _plain_bib(text: str) -> str:
    """A BibTeX field without its braces and TeX escapes."""
    return re.sub(r"[{}]", "", text).replace("\\&", "&").replace("--", "–").strip()


def load_bibliography(path: Path | None = None) -> dict[str, Any]:
    """The book's ``references.bib`` as pybtex entries by key."""
    import pybtex.database

    from anonlab import paths

    p = path or paths.book_dir() / "references.bib"
    return dict(pybtex.database.parse_file(str(p), "bibtex").entries)


def _authors(entry: Any) -> str:
    """"Cormode", "Francis and Wagner", "Gadotti et al." (last names of the entry's authors)."""
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [_plain_bib(" ".join(p.last_names)) or _plain_bib(str(p)) for p in people]
    if not names:
        return _plain_bib(entry.fields.get("title", "anonymous"))
    if len(names) == 1:
        return names[0]
    return f"{names[0]} and {names[1]}" if len(names) == 2 else f"{names[0]} et al."


def citation_text(keys: list[str], bib: Mapping[str, Any], textual: bool = False) -> str:
    """``(Cormode, 2011; Kifer, 2009)``, or with ``textual`` ``Cormode (2011)``: a citation in words."""
    parts = []
    for k in keys:
        e = bib.get(k)
        parts.append((k, "") if e is None else (_authors(e), e.fields.get("year", "n.d.")))
    if textual:
        return "; ".join(f"{a} ({y})" if y else a for a, y in parts)
    return "(" + "; ".join(f"{a}, {y}" if y else a for a, y in parts) + ")"


def reference_line(key: str, bib: Mapping[str, Any]) -> str:
    """One entry of the reference list: authors (year). Title. Where."""
    e = bib.get(key)
    if e is None:
        return key
    people = e.persons.get("author") or e.persons.get("editor") or []
    who = ", ".join(_plain_bib(str(p)) for p in people) or _authors(e)
    f = e.fields
    where = next((_plain_bib(f[x]) for x in ("journal", "booktitle", "howpublished", "publisher", "institution")
                  if x in f), "")
    if "eprint" in f:
        where = (where + ", " if where else "") + f"arXiv:{f['eprint']}"
    tail = f" {where}." if where else ""
    link = f" https://doi.org/{f['doi']}" if "doi" in f else (f" {f['url']}" if "url" in f else "")
    return f"{who} ({f.get('year', 'n.d.')}). {_plain_bib(f.get('title', ''))}.{tail}{link}"


def _directive_text(name: str, title: str, body: str) -> str:
    """A MyST directive as plain Markdown: a box (an exercise too) as a quoted block, a dropdown or a solution
    as an HTML details element (an empty solution, the student edition's, dropped), raw HTML as itself, a
    figure from the glue store dropped (the figure is in the output above)."""
    body = OPTION_LINE.sub("", body).strip("\n")
    if name == "raw":
        return body
    if name.startswith("glue"):
        return ""
    if name == "dropdown":
        return f"<details><summary>{html.escape(title)}</summary>\n\n{body}\n\n</details>"
    if name == "solution":  # sphinx-exercise: its argument is the exercise's label; the student's copy has none
        return f"<details><summary>Solution</summary>\n\n{body}\n\n</details>" if body.strip() else ""
    head = f"**{title}**" if title else f"**{name.capitalize()}**"
    return "\n".join("> " + line if line else ">" for line in [head, ""] + body.splitlines())


def resolve_myst(text: str, book_dir: Path, bib: Mapping[str, Any], cited: list[str], depth: int = 0) -> str:
    """``text`` with MyST resolved: included files inlined, directives as Markdown, roles as words
    (citations as "(Cormode, 2011)", their keys added to ``cited``; terms as the word; others their text)."""
    def include(m: re.Match[str]) -> str:
        f = book_dir / m.group(1).lstrip("/")
        if depth > 4 or not f.exists():
            return ""
        return resolve_myst(f.read_text(encoding="utf-8"), f.parent, bib, cited, depth + 1)

    text = INCLUDE.sub(include, text)
    for pattern in (COLON_DIRECTIVE, BACKTICK_DIRECTIVE):
        while pattern.search(text):
            text = pattern.sub(lambda m: _directive_text(m.group(2), m.group(3).strip(), m.group(4)), text)
    text = TARGET_LINE.sub("", text)

    def role(m: re.Match[str]) -> str:
        name, content = m.group(1), m.group(2)
        if name.startswith("cite"):
            keys = [k.strip() for k in content.split(",") if k.strip()]
            cited.extend(k for k in keys if k not in cited)
            return citation_text(keys, bib, textual=name in ("cite:t", "citet"))
        if name == "math":
            return f"${content}$"
        shown = re.match(r"^(.*?)\s*<[^<>]+>$", content, re.S)
        return shown.group(1) if shown else content

    return ROLE.sub(role, text)


def download_copy(nb: Any, book_dir: Path, bib: Mapping[str, Any]) -> Any:
    """A copy of the executed notebook that reads in any Jupyter: every markdown cell by :func:`resolve_myst`,
    the references it cites listed at the end, and no record of when the build ran each cell (papermill's and
    Jupyter's timings: a reader does not need them, and a duration could read as one of the numbers
    the student edition keeps hidden)."""
    import copy

    import nbformat

    out = copy.deepcopy(nb)
    cited: list[str] = []
    for cell in out.cells:
        for key in ("papermill", "execution"):
            cell.metadata.pop(key, None)
        if cell.cell_type == "markdown":
            cell.source = resolve_myst(cell.source, book_dir, bib, cited)
    if cited:
        order = sorted(cited, key=lambda k: reference_line(k, bib).lower())
        out.cells.append(nbformat.v4.new_markdown_cell(
            "## References\n\n" + "\n".join(f"- {reference_line(k, bib)}" for k in order)))
    return out


def write_download_copies(html_dir: Path, chapters: list[str], book_dir: Path | None = None) -> list[Path]:
    """Write each chapter's download copy (:func:`download_copy`) where the page's download button points,
    ``<html>/_sources/<chapter>.ipynb``; return the files written."""
    import nbformat

    from anonlab import paths

    book = book_dir or paths.book_dir()
    bib = load_bibliography(book / "references.bib")
    written = []
    for ch in chapters:
        src, dest = book / f"{ch}.ipynb", html_dir / "_sources" / f"{ch}.ipynb"
        if not src.exists() or not dest.parent.exists():
            continue
        nbformat.write(download_copy(nbformat.read(src, as_version=4), book, bib), dest)
        written.append(dest)
    return written
#: The tag of the banner cell :func:`insert_banner` adds (the run's identity, see :mod:`anonbook.runs`).
BANNER_TAG = "anonlab-run-banner"


def insert_banner(path: Path, markdown: str) -> None:
    """Put a markdown banner right under the page's title (the first line of its first markdown cell).

    A banner added before is replaced, so a page carries one.
    """
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if BANNER_TAG not in c.get("metadata", {}).get("tags", [])]
    cell = nbformat.v4.new_markdown_cell(markdown)
    cell["id"] = BANNER_TAG  # a fixed id: the same run publishes the same notebook (nbformat draws random ones)
    cell.metadata["tags"] = [BANNER_TAG]
    first = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown"), -1)
    if first >= 0 and nb.cells[first].source.startswith("# "):  # right under the title line
        title, _, rest = nb.cells[first].source.partition("\n")
        if rest.strip():
            nb.cells[first].source = title
            body = nbformat.v4.new_markdown_cell(rest.lstrip("\n"))
            body["id"] = f"{nb.cells[first].get('id') or 'title'}-body"[:64]
            nb.cells.insert(first + 1, body)
    nb.cells.insert(first + 1, cell)
    nbformat.write(nb, path)

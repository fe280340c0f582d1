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
- removes **local paths** from the notebook's metadata (papermill records absolute input and output paths);
- writes the **values into the prose**: each ``{glue:text}`key``` / ``{glue:md}`key``` of a markdown cell is
  replaced by the value the run glued under ``key`` (formatted as MyST-NB would), so the notebook a reader
  downloads shows the numbers, not placeholders; glued figures and tables (``{glue:}``, ``{glue:figure}``)
  stay as they are.

A cell an author tagged already (``remove-*``, ``hide-*``) keeps its tags.
"""

from __future__ import annotations

import ast
import html
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["tidy_for_reading", "code_tells_nothing", "parameters_html", "tidy_executed_notebook", "glued_values", "fill_glued_prose",
           "insert_banner"]

AUTHOR_TAGS = {"remove-cell", "remove-input", "remove-output", "hide-cell", "hide-input", "hide-output"}


def parameters_html(chapter: str, values: Mapping[str, Any]) -> str:
    """The run's parameters as an HTML table: name, the value used, the declared meaning."""
    from .chapters import get, has_chapter

    rows = []
    params = get(chapter).parameters.params if has_chapter(chapter) else []
    for q in params:
        value = repr(values.get(q.name, q.default))
        rows.append(f'<tr><td><code>{html.escape(q.name)}</code></td>'
                    f'<td><code>{html.escape(value)}</code></td><td>{html.escape(q.help)}</td></tr>')
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
SELF_DESCRIBING = {"verdict_table", "claims_table", "provenance", "parameters_table"}


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


#: The tag of the banner cell :func:`insert_banner` adds (the run's identity, see :mod:`anonlab.runs`).
BANNER_TAG = "anonlab-run-banner"


def insert_banner(path: Path, markdown: str) -> None:
    """Put a markdown banner right under the page's title (the first line of its first markdown cell).

    A banner added before is replaced, so a page carries one.
    """
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if BANNER_TAG not in c.get("metadata", {}).get("tags", [])]
    cell = nbformat.v4.new_markdown_cell(markdown)
    cell.metadata["tags"] = [BANNER_TAG]
    first = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown"), -1)
    if first >= 0 and nb.cells[first].source.startswith("# "):  # right under the title line
        title, _, rest = nb.cells[first].source.partition("\n")
        if rest.strip():
            nb.cells[first].source = title
            nb.cells.insert(first + 1, nbformat.v4.new_markdown_cell(rest.lstrip("\n")))
    nb.cells.insert(first + 1, cell)
    nbformat.write(nb, path)

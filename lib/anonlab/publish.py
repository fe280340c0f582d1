"""Make an executed chapter notebook read like a page of a book (the runner applies it before publishing).

A chapter's notebook is written for people who rerun it: every step is a code cell. Its page is written
for people who read it: the narration, the figures and tables, and the code one click away. Before the
runner publishes an executed notebook, :func:`tidy_for_reading`:

- shows the **parameters** as a table (name, value used, meaning, from the chapter's declaration) with
  the parameters cell's code folded behind it; papermill's injected-parameters cell is removed (the table
  shows the values the run used);
- **folds the code** of every cell that shows something (``hide-input``: the output stays, the code opens
  on a click) and **removes the code** of cells that show nothing (glue, recording, imports: their stored
  values stay for the prose);
- keeps **progress and log lines off the page**: a cell's standard-error stream (progress, data fetches,
  warnings) is moved to the chapter's kernel log (``_build/logs/<chapter>.kernel.log``);
- removes **local paths** from the notebook's metadata (papermill records absolute input and output paths).

A cell an author tagged already (``remove-*``, ``hide-*``) keeps its tags.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["tidy_for_reading", "parameters_html", "tidy_executed_notebook"]

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
            tags.append("hide-input" if _shows_something(cell) else "remove-input")
        cell.metadata["tags"] = list(dict.fromkeys(tags))
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
        with open(log, "a", encoding="utf-8") as fh:
            fh.write("".join(moved))

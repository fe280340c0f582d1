"""The published page reads like a book: parameters as a table, code folded, progress off the page."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from anonbook import publish

ROOT = Path(__file__).resolve().parents[1]


def _cell(src: str, tags: list[str] | None = None, outputs: list | None = None):
    c = nbformat.v4.new_code_cell(src)
    c.metadata["tags"] = tags or []
    c.outputs = outputs or []
    return c


def test_tidy_for_reading_folds_code_moves_progress_and_shows_parameters(tmp_path: Path) -> None:
    stderr = nbformat.v4.new_output("stream", name="stderr", text="fetched adult.data\n")
    stdout = nbformat.v4.new_output("stream", name="stdout", text="SELECT count(*) ...\n")
    glued = nbformat.v4.new_output("display_data", data={"application/papermill.record/text/plain": "0.5"},
                                   metadata={"scrapbook": {"name": "x", "mime_prefix": "application/papermill.record/"}})
    figure = nbformat.v4.new_output("display_data", data={"text/plain": "<Figure>"})
    nb = nbformat.v4.new_notebook()
    nb.metadata["papermill"] = {"input_path": "/home/me/project/notebooks/ch.ipynb", "output_path": "/tmp/x/ch.ipynb"}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# A chapter"),
        _cell("k_target = 4", ["parameters"]),
        _cell("k_target = 5", ["injected-parameters"]),
        _cell("run.glue('x', 0.5)", outputs=[glued, stderr]),
        _cell("plot()", outputs=[figure, stderr]),
        _cell("print(sql)", outputs=[stdout]),
        _cell("secret()", ["remove-input"], outputs=[figure]),
    ]
    path = tmp_path / "01_syntactic_anonymity.ipynb"
    nbformat.write(nb, path)
    log = tmp_path / "kernel.log"
    publish.tidy_executed_notebook(path, "01_syntactic_anonymity", {"k_target": 5}, log=log)
    out = nbformat.read(path, as_version=4)
    tags = [c.metadata.get("tags") for c in out.cells[1:]]
    assert tags == [["parameters", "hide-input"], ["injected-parameters", "remove-cell"], ["remove-input"],
                    ["hide-input"], ["hide-input"], ["remove-input"]]
    table = out.cells[1].outputs[0]["data"]["text/html"]
    assert "<code>k_target</code>" in table and "<code>5</code>" in table  # the value the run used
    assert all(o.get("name") != "stderr" for c in out.cells[1:] for o in c.outputs)
    assert out.cells[5].outputs[0]["text"].startswith("SELECT")  # printed content stays
    assert log.read_text().count("fetched adult.data") == 2
    assert out.metadata["papermill"]["input_path"] == "ch.ipynb"
    assert "/home/me" not in path.read_text() and "/tmp/x" not in path.read_text()


def test_the_downloaded_notebook_shows_the_values_not_placeholders() -> None:
    store = {"acc": {"text/plain": "0.91234"}, "name": {"text/plain": "'k_target *'"},
             "verdict": {"text/plain": "reproduced", "text/markdown": "**reproduced**"}}
    text = ("Accuracy {glue:text}`acc:.2f` ({glue:text}`acc:.1%`) for {glue:text}`name`; "
            "verdict {glue:md}`verdict`; {glue:text}`missing`; {glue:}`figure`.")
    filled = publish.fill_glued_prose(text, store)
    assert filled == ("Accuracy 0.91 (91.2%) for k\\_target \\*; verdict **reproduced**; "
                      "{glue:text}`missing`; {glue:}`figure`.")


def test_layout_problems_name_what_a_reader_would_see_go_wrong() -> None:
    from tests import pagecheck

    ok = {"width": 1400, "tables": [{"cls": "verdict-table", "overflow": 0}],
          "figures": [{"src": "a.png", "natural": 770, "shown": 770, "caption": "Fig. 1: x", "alt": "accuracy"}],
          "code": [3]}
    assert pagecheck.layout_problems({"p": ok}) == []
    bad = {"width": 1400, "tables": [{"cls": "verdict-table", "overflow": 40}],  # figure text: desktop widths
           "figures": [{"src": "wide.png", "natural": 1700, "shown": 772}], "code": [12]}
    problems = pagecheck.layout_problems({"p": bad, "q": {}})
    assert any("40 px too wide" in p for p in problems)
    assert any("wide.png" in p and "4.5 pt" in p for p in problems)
    assert any("[12] lines" in p for p in problems)
    assert "q: the page could not be measured" in problems
    assert "p: figure wide.png has no caption" in problems
    assert pagecheck.layout_problems({"p": bad}, captions=False) == [p for p in problems if "caption" not in p
                                                                       and "alt text" not in p and "q:" not in p]


@pytest.mark.parametrize("source, nothing", [
    ("sweep", True), ("display(sweep)", True), ("run.verdict_table()", True), ("display(run.verdict_table())", True),
    ("run.provenance(DATA.names)", True), ("run.claims_table()", True),
    ("sweep.round(3)", False), ("figures.plot_sweep(sweep, k);", False), ("x = 1\nx", False),
    ("other.verdict_table()", False), ("run.explorable('t', 'p', [1], f)", False), ("not python (", False),
])
def test_code_that_tells_nothing_gets_no_show_code_button(source, nothing) -> None:
    assert publish.code_tells_nothing(source) is nothing


def test_a_bare_name_shows_its_output_without_its_code(tmp_path) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    table = nbformat.v4.new_output("display_data", data={"text/plain": "a table"})
    nb.cells = [_cell("sweep", outputs=[table]), _cell("sweep.round(3)", outputs=[table])]
    path = tmp_path / "01_syntactic_anonymity.ipynb"
    nbformat.write(nb, path)
    publish.tidy_executed_notebook(path, "01_syntactic_anonymity", {}, log=tmp_path / "kernel.log")
    out = nbformat.read(path, as_version=4)
    assert [c.metadata["tags"] for c in out.cells] == [["remove-input"], ["hide-input"]]
    assert out.cells[0].outputs == [table]  # the output stays



def test_figures_are_numbered_per_chapter_and_renumbering_is_idempotent() -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [_cell("plot()"), _cell("x = 1"), _cell("plot2()")]
    for i in (0, 2):
        nb.cells[i].metadata["mystnb"] = {"figure": {"caption": "Accuracy against k."}}
    assert publish.number_figures(nb, "06b_diffix_cloning") == 2
    caps = [c.metadata.get("mystnb", {}).get("figure", {}).get("caption") for c in nb.cells]
    assert caps == ["Figure 6b.1: Accuracy against k.", None, "Figure 6b.2: Accuracy against k."]
    publish.number_figures(nb, "05_nonmember_framework")
    assert nb.cells[0].metadata["mystnb"]["figure"]["caption"] == "Figure 5.1: Accuracy against k."
    assert publish.chapter_number("10_x") == "10" and publish.number_figures(nb, "notes") == 2
    assert nb.cells[2].metadata["mystnb"]["figure"]["caption"] == "Figure 2: Accuracy against k."


def test_the_downloaded_notebook_resolves_citations_terms_and_included_boxes(tmp_path: Path) -> None:
    import re

    book = tmp_path / "book"
    (book / "_generated").mkdir(parents=True)
    (book / "_generated" / "header.md").write_text(
        ":::{admonition} In this chapter\n:class: tip\n\n**You will learn** {term}`k-anonymity`\n:::\n")
    (book / "_generated" / "ex.md").write_text(
        "(exercise-x)=\n**Exercise 1.** Why?\n\n::::{dropdown} Solution\nBecause {cite:t}`francis2024towards`.\n::::\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title\n\n```{include} _generated/header.md\n```"),
                nbformat.v4.new_markdown_cell("As {cite}`cormode2011,kifer2009attacks` show, a "
                                              "{term}`quasi-identifier <qi>` and {math}`\\epsilon` matter."),
                nbformat.v4.new_markdown_cell("```{include} _generated/ex.md\n```\n\n```{raw} html\n<b>x</b>\n```")]
    nb.cells[1].metadata["papermill"] = {"duration": 0.020098, "status": "completed"}
    nb.cells[1].metadata["execution"] = {"iopub.status.busy": "2026-12-03T13:40:45"}
    bib = publish.load_bibliography(ROOT / "book" / "references.bib")
    out = publish.download_copy(nb, book, bib)
    assert not any(k in c.metadata for c in out.cells for k in ("papermill", "execution"))  # no cell timings
    text = "\n".join(c.source for c in out.cells)
    assert "(Cormode, 2011; Kifer, 2009)" in text
    assert "a quasi-identifier and $\\epsilon$ matter" in text
    assert "> **In this chapter**" in text and "**You will learn** k-anonymity" in text
    assert "<summary>Solution</summary>" in text and "Because Francis and Wagner (2024)." in text
    assert "<b>x</b>" in text and "(exercise-x)=" not in text
    assert not re.search(r"\{[\w:-]+\}`|```\{|:::", text), text  # no role or directive left
    refs = out.cells[-1].source
    assert refs.startswith("## References") and refs.count("\n- ") == 3 and "Cormode" in refs
    assert nb.cells[1].source.startswith("As {cite}")  # the page's own notebook keeps its MyST

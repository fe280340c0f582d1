"""Every chapter of the book is ready to teach: goals, exercises with solutions, glossary links."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anonbook import chapters

# --- every chapter of the book is ready to teach ------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))


def _markdown(name: str) -> str:
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def _glued_keys(name: str) -> set[str]:
    import re

    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    keys = set(re.findall(r"""glue\(\s*["']([^"']+)["']""", code))
    # keys glued in a loop over a mapping defined in the chapter module
    module = (ROOT / "lib" / "anonlab" / "chapters" / f"ch{name}.py").read_text()
    keys |= set(re.findall(r"""["']([A-Za-z0-9_]+)["']\s*:""", module))
    return keys


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_chapter_is_ready_to_teach(name: str) -> None:
    """Goals (at most three), what it assumes, at least three exercises, the header and solutions shown.

    Each declared exercise is an ``{exercise}`` directive of the page (its question, a prediction first)
    followed by the ``{solution}`` directive that includes its computed solution; the page has no other.
    """
    from anonbook import course

    ch = chapters.get(name)
    assert 1 <= len(ch.goals) <= 3, f"{name}: declare one to three learning goals"
    assert ch.assumes, f"{name}: say what the chapter assumes"
    assert len(ch.exercises) >= 3, f"{name}: at least three exercises with computed solutions"
    text = _markdown(name)
    assert f"_generated/chapters/{name}.header.md" in text, "include the header (goals, run times)"
    labels = [chapters.exercise_label(name, e.key) for e in ch.exercises]
    assert list(chapters.page_exercises(text)) == labels, "one {exercise} directive per declared exercise, in order"
    for e, label in zip(ch.exercises, labels):
        assert "predict" in e.question.lower(), f"{name}/{e.key}: ask for a prediction first"
        solution = f":::{{solution}} {label}\n:class: dropdown\n\n{course.page_include(name, e.key)}\n:::"
        assert solution in text, f"{name}/{e.key}: its solution directive includes the computed solution"


def _glossary_terms() -> list[str]:
    lines = (ROOT / "book" / "glossary.md").read_text().splitlines()
    start = lines.index("```{glossary}") + 1
    return [ln.strip() for ln in lines[start:] if ln and not ln.startswith((" ", "```"))]


def test_every_glossary_term_is_linked_from_a_chapter() -> None:
    import re

    linked = set()
    for name in NOTEBOOKS:
        for m in re.finditer(r"\{term\}`([^`]+)`", _markdown(name)):
            target = m.group(1)
            target = re.sub(r"^.*<(.+)>$", r"\1", target)
            linked.add(target.strip().lower())
    terms = _glossary_terms()
    assert len(terms) >= 25
    missing = [t for t in terms if t.lower() not in linked]
    # a term listed with its synonym (two lines, one definition) is linked if either is
    groups = (ROOT / "book" / "glossary.md").read_text().split("\n\n")
    for group in groups:
        names = [ln.strip() for ln in group.splitlines() if ln and not ln.startswith((" ", "```", "#"))]
        if any(n.lower() in linked for n in names):
            missing = [t for t in missing if t not in names]
    assert not missing, f"glossary terms no chapter links: {missing}"

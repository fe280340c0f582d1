"""The house style: every chapter does the jobs it shares with the others through the chapter kit.

The kit (:mod:`anonlab.chapters.kit`) declares, glues, caches, records and
words verdicts once. These tests fail when a chapter module or a notebook
does one of those jobs its own way, when a notebook's parameters cell is not
the one generated from the declaration, when a chapter module outgrows its
budget, or when the library's imports go round in a circle.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from anonlab import claims
from anonlab.chapters import get, kit

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib" / "anonlab"
NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
MODULES = sorted((LIB / "chapters").glob("ch[0-9]*.py"))

#: Line budgets of the chapter modules (a chapter module is declarations plus the
#: measurement functions its claims need, not a driver).
MAX_MODULE_LINES = 900
MAX_LINES_PER_CHAPTER = 690  # on average, besides the exercises' text: a page or two of declarations and measurements

#: Names of the claims package a chapter module or notebook must not use: deciding,
#: wording and recording verdicts are the rules' and the kit's jobs.
VERDICT_JOBS = {"verdict", "decide", "reading_verdict", "reading_verdicts", "phrase", "Recorder", "with_verdicts",
                "collect_results"}


def _code_cells(name: str) -> list[tuple[int, list[str], str]]:
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    return [(i, c.get("metadata", {}).get("tags", []), "".join(c["source"]))
            for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"]


def _string_literals(tree: ast.AST) -> list[str]:
    """String constants outside docstrings."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings]


def _own_job_problems(tree: ast.AST, where: str) -> list[str]:
    """Ways a chapter module or notebook cell does a kit job itself."""
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if "glue" in node.name or "verdict" in node.name:
                problems.append(f"{where}: defines {node.name}() (glue and verdict wording are the kit's)")
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if mod.endswith("glue") or mod.startswith("myst_nb") or mod.endswith("cache"):
                problems.append(f"{where}: imports {mod} (glue and cache through the kit)")
            if mod.endswith("claims") or ".claims." in mod or mod == "claims":
                bad = sorted(a.name for a in node.names if a.name in VERDICT_JOBS)
                if bad:
                    problems.append(f"{where}: imports {bad} from claims (verdicts are the rules' and the kit's)")
            if any(a.name in ("cache", "glue") for a in node.names) and mod in ("anonlab", ".."):
                problems.append(f"{where}: imports anonlab.cache / anonlab.glue (through the kit)")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in ("anonlab.cache", "anonlab.glue") or a.name.startswith("myst_nb"):
                    problems.append(f"{where}: imports {a.name} (through the kit)")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "claims" and node.attr in VERDICT_JOBS | {"reported"}:
                problems.append(f"{where}: uses claims.{node.attr} (use the run: run.paper, run.verdict, run.phrase)")
            if node.value.id == "cache" and node.attr in ("cached", "is_cached", "cache_key"):
                problems.append(f"{where}: uses cache.{node.attr} (use run.cached)")
    verdict_words = set(claims.VERDICTS)
    used = sorted({s for s in _string_literals(tree) if s in verdict_words})
    if used:
        problems.append(f"{where}: compares or writes verdict names {used} itself (ask the run or the rules)")
    return problems


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.stem)
def test_chapter_modules_do_no_kit_job_themselves(module: Path) -> None:
    assert _own_job_problems(ast.parse(module.read_text(encoding="utf-8")), module.name) == []


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebooks_do_no_kit_job_themselves(name: str) -> None:
    problems = []
    sources = _code_cells(name)
    assert any("kit.start(" in src for _, _, src in sources), f"{name}: no cell calls kit.start"
    for i, tags, src in sources:
        if "parameters" in tags:
            continue
        where = f"{name} cell {i}"
        tree = ast.parse(src)
        problems += _own_job_problems(tree, where)
        problems += [f"{where}: defines {n.name}() (functions belong in the chapter module)"
                     for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                     and not isinstance(n, ast.Lambda)]
        problems += [f"{where}: uses the private name chapter.{n.attr}" for n in ast.walk(tree)
                     if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "chapter"
                     and n.attr.startswith("_")]
        if re.search(r"(?<![\w.])glue\(", src):
            problems.append(f"{where}: calls glue() directly (use run.glue)")
        if re.search(r"\.iloc\[\s*:\s*,", src):
            problems.append(f"{where}: reads a table by column position")
    assert problems == []


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_parameters_cell_is_generated_from_the_declaration(name: str) -> None:
    """Names, defaults and the one-line meaning, word for word (``python -m anonlab parameters --write``)."""
    cells = [src for _, tags, src in _code_cells(name) if "parameters" in tags]
    assert len(cells) == 1
    assert cells[0] == kit.parameters_cell(get(name)), \
        f"{name}: run `python -m anonlab parameters --write {name}`"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_each_parameter_meaning_is_one_line_papermill_can_read(name: str) -> None:
    """papermill reads a parameters-cell line with a second ``=`` as unparseable (and then warns that
    every value passed for it is an unknown parameter): a meaning says "0 means all", not "0 = all"."""
    bad = [p.name for p in get(name).parameters.params if "=" in p.help or "\n" in p.help or "=" in repr(p.default)]
    assert bad == []


def test_chapter_modules_fit_their_budget() -> None:
    sizes = {m.stem: len(m.read_text(encoding="utf-8").splitlines()) for m in MODULES}
    over = {m: n for m, n in sizes.items() if n > MAX_MODULE_LINES}
    assert not over, f"chapter modules over {MAX_MODULE_LINES} lines: {over}"
    code = {m.stem: sizes[m.stem] - _exercise_lines(m) for m in MODULES}
    budget = MAX_LINES_PER_CHAPTER * len(code)
    assert sum(code.values()) <= budget, (f"the {len(code)} chapter modules hold {sum(code.values())} lines besides "
                                          f"their exercises' text (budget {budget})")


def _exercise_lines(module: Path) -> int:
    """Lines of a chapter module inside ``Exercise(...)`` declarations: teaching text (questions, explanations,
    grading notes) the per-chapter budget does not count (the 900-line cap of a module does)."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    return sum(n.end_lineno - n.lineno + 1 for n in ast.walk(tree)
               if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "Exercise")


def _import_graph() -> dict[str, set[str]]:
    """Module -> the anonlab modules it imports (anywhere in the file, function-level imports too)."""
    mods: dict[str, tuple[Path, list[str]]] = {}
    for f in LIB.rglob("*.py"):
        parts = list(f.relative_to(LIB.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
            pkg = parts
        else:
            pkg = parts[:-1]
        mods[".".join(parts)] = (f, pkg)

    def resolve(name: str) -> str:
        while name and name not in mods:
            name = name.rsplit(".", 1)[0] if "." in name else ""
        return name

    graph: dict[str, set[str]] = {}
    for m, (f, pkg) in mods.items():
        deps = set()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = ".".join(pkg[: len(pkg) - node.level + 1] + ([node.module] if node.module else [])) \
                    if node.level else (node.module or "")
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            deps |= {resolve(t) for t in targets if t.startswith("anonlab")}
        graph[m] = deps - {m, ""}
    return graph


def test_the_library_imports_go_round_in_no_circle() -> None:
    graph = _import_graph()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                cycles.append(path[path.index(d):] + [d] if d in path else [m, d])
            elif d not in state:
                visit(d, path + [d])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert cycles == []

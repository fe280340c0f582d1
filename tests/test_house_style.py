"""The house style: every chapter does the jobs it shares with the others through the chapter kit.

The kit (:mod:`anonbook.chapters.kit`) declares, glues, caches, records and
words verdicts once. These tests fail when a chapter module or a notebook
does one of those jobs its own way, when a notebook's parameters cell is not
the one generated from the declaration, when an import crosses the wall
between the science (``anonlab``) and the book machine (``anonbook``), or
when the imports go round in a circle.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from anonlab import claims
from anonbook.chapters import get, kit

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib"
NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
MODULES = sorted((LIB / "anonbook" / "chapters").glob("ch[0-9]*.py"))

#: Packages the science must not load: the book machine and the tools that build and show the book.
BOOK_ONLY = ("anonbook", "papermill", "nbformat", "nbclient", "sphinx", "jupyter_book", "myst_nb", "plotly", "otter",
             "IPython", "ipykernel")

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
            if any(a.name in ("cache", "glue") for a in node.names) and mod in ("anonlab", "anonbook", ".."):
                problems.append(f"{where}: imports anonbook.cache / anonbook.glue (through the kit)")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in ("anonbook.cache", "anonbook.glue") or a.name.startswith("myst_nb"):
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


def _import_graph() -> dict[str, set[str]]:
    """Module -> the anonlab and anonbook modules it imports (anywhere in the file, function-level imports too)."""
    mods: dict[str, tuple[Path, list[str]]] = {}
    for f in [*(LIB / "anonlab").rglob("*.py"), *(LIB / "anonbook").rglob("*.py")]:
        parts = list(f.relative_to(LIB).with_suffix("").parts)
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
            deps |= {resolve(t) for t in targets if t.split(".")[0] in ("anonlab", "anonbook")}
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


def test_the_science_never_imports_the_book_machine() -> None:
    """The wall: no module of ``anonlab`` imports ``anonbook`` (function-level imports included).

    ``anonlab.__main__`` is the one door (``python -m anonlab`` runs the book's
    command line); ``import anonlab`` never loads it."""
    arrows = sorted(f"{m} -> {d}" for m, deps in _import_graph().items()
                    if m.split(".")[0] == "anonlab" and m != "anonlab.__main__"
                    for d in deps if d.split(".")[0] == "anonbook")
    assert arrows == []


def test_the_import_graph_test_sees_an_arrow_through_the_wall(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The wall test can fail: a science module with a function-level import of the book machine is an arrow."""
    lib = tmp_path / "lib"
    for pkg, body in (("anonlab", "def f():\n    from anonbook import runner\n"), ("anonbook", "")):
        (lib / pkg).mkdir(parents=True)
        (lib / pkg / "__init__.py").write_text("")
        (lib / pkg / "mod.py").write_text(body)
    (lib / "anonbook" / "runner.py").write_text("")
    monkeypatch.setitem(globals(), "LIB", lib)
    graph = _import_graph()
    assert graph["anonlab.mod"] == {"anonbook.runner"}


def test_importing_the_science_loads_no_part_of_the_book() -> None:
    """Every module of the science imports without papermill, Sphinx, plotly, otter or the book machine."""
    import subprocess
    import sys

    code = ("import importlib, pkgutil, sys, anonlab\n"
            "for m in pkgutil.walk_packages(anonlab.__path__, 'anonlab.'):\n"
            "    if not m.name.endswith('__main__'): importlib.import_module(m.name)\n"
            f"print(sorted({{n.split('.')[0] for n in sys.modules}} & set({BOOK_ONLY!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout

"""Does student material give a graded answer away? The check the tests and the whole-book test share.

A *leak* is a number written in a student text that agrees with one of the hidden tests' expected values at
the precision that test checks (:attr:`~.model.Graded.tolerance`; exactly for counts), or the id of a graded
claim named in the text. Only values a student could look up count: at least three significant digits (a
``k = 4`` or a ``0.5`` is everywhere and gives nothing away). :func:`student_texts` collects the texts of a
built student edition (its HTML, Markdown, notebooks, and the members of its zips);
:func:`leaks` and :func:`named_claims` check them.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from anonbook.assignments.model import Built, Graded

__all__ = ["ASSIGNMENT_MATERIAL", "Leak", "edition_problems", "is_assignment_material", "graded_numbers", "leaks", "named_claims", "problems", "significant", "student_texts", "TEXT_SUFFIXES"]

#: The files of a built edition whose text a student reads (zips are opened, their members read the same way).
TEXT_SUFFIXES = (".html", ".ipynb", ".md", ".txt", ".py", ".json")
#: Folders of a built edition that hold no book text (the vendored MathJax and reveal.js).
SKIPPED_FOLDERS = ("_static/mathjax", "slides/reveal.js", "_sphinx_design_static")
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class Leak:
    """``token`` written in ``where`` agrees with the graded value ``value`` of assignment ``anchor``."""

    where: str
    anchor: str
    token: str
    value: float


def significant(value: float) -> bool:
    """A value a student could look up: at least three significant digits (not a small count, not 0.5)."""
    digits = f"{abs(value):.12g}".split("e")[0].replace(".", "").lstrip("0").rstrip("0")
    return len(digits) >= 3


def graded_numbers(graded: Graded) -> list[float]:
    """Every number a hidden test expects (arrays flattened; booleans are not numbers a page shows)."""
    out = []
    for v in graded.values:
        for x in (v if isinstance(v, list) else [v]):
            if not isinstance(x, bool):
                out.append(float(x))
    return out


def edition_problems(folder: Path, built: Iterable[Built]) -> list[str]:
    """:func:`problems` over every student-readable file of a built edition (:func:`student_texts`)."""
    return problems(student_texts(folder), built)


def _numbers(text: str) -> list[tuple[str, float]]:
    """(token, value) of every number written in ``text`` (thousands separators allowed)."""
    found = []
    for token in set(_NUMBER.findall(text)):
        try:
            found.append((token, float(token.replace(",", ""))))
        except ValueError:
            continue
    return found


def leaks(text: str, built: Iterable[Built], where: str = "") -> list[Leak]:
    """Every number of ``text`` within a hidden test's tolerance of one of its significant expected values."""
    numbers = _numbers(text)
    found = []
    for b in built:
        g = b.expected
        for want in filter(significant, graded_numbers(g)):
            tol = 0.0 if g.tolerance is None else g.tolerance * max(1.0, abs(want))
            found += [Leak(where, b.assignment.anchor, t, want) for t, x in numbers if abs(x - want) <= tol]
    return found


def named_claims(text: str, built: Iterable[Built]) -> list[str]:
    """The graded claims' ids that ``text`` names, sorted."""
    return sorted({b.assignment.claim_id for b in built if b.assignment.claim_id in text})


def student_texts(folder: Path) -> dict[str, str]:
    """Path -> text of every student-readable file under ``folder`` (a built edition), zips' members included.

    Files under :data:`SKIPPED_FOLDERS` (vendored scripts) are left out.
    """
    texts: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if not path.is_file() or any(f"/{s}/" in f"/{rel}" for s in SKIPPED_FOLDERS):
            continue
        if path.suffix in TEXT_SUFFIXES:
            texts[rel] = path.read_text(encoding="utf-8", errors="replace")
        elif path.suffix == ".zip":
            with zipfile.ZipFile(path) as z:
                for name in z.namelist():
                    if name.endswith(TEXT_SUFFIXES):
                        texts[f"{rel}!{name}"] = z.read(name).decode("utf-8", errors="replace")
    return texts


#: The texts of an edition that are an assignment's own material (no claim id may be named there; the
#: verdicts page names every claim of the ledger, which gives no graded answer away).
ASSIGNMENT_MATERIAL = ("_static/assignments/", "assignments.html", "assignments.md")


def is_assignment_material(where: str) -> bool:
    """Whether the text at ``where`` (a path in an edition) is an assignment's page, notebook or zip member."""
    return any(m in where for m in ASSIGNMENT_MATERIAL)


def problems(texts: Mapping[str, str], built: Iterable[Built], claims_everywhere: bool = False) -> list[str]:
    """One line per text that holds a graded value, or, being assignment material (or ``claims_everywhere``),
    names a graded claim (empty: nothing leaks)."""
    built = list(built)
    out = []
    for where, text in texts.items():
        named = named_claims(text, built) if claims_everywhere or is_assignment_material(where) else []
        if named:
            out.append(f"{where} names graded claims {named}")
        found = leaks(text, built, where)
        if found:
            out.append(f"{where} holds graded values " + ", ".join(f"{x.token} ({x.anchor})" for x in found[:5]))
    return out

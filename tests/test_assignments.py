"""The graded assignments (issue 28): otter grades every reference solution full and every wrong one not.

The expected values come from the book's recorded runs: ``book/<chapter>.results.json`` when every chapter
the assignments read has one (the published default runs), otherwise the quick runs of
the session's ``executed_book`` (``tests/conftest.py``) (the session runs them once for the notebook tests anyway;
the claims the assignments use do not depend on the preset). The assign step is cached by its inputs under
``_build/assignments``. Grading: every assignment in this process with otter's own test runner (fast), and,
marked ``slow``, end to end with ``otter.api.grade_submission`` (a kernel per submission, no Docker) for the
first assignment of each chapter: 18 kernels, about a minute of CPU.
"""

from __future__ import annotations

import json
import re
import shutil
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("otter", reason="otter-grader is in the course extra (requirements.lock installs it)")

from anonlab import claims
from anonbook import runner
from anonbook.assignments import ASSIGNMENTS, by_chapter, expected_value, hidden_test  # noqa: E402
from anonbook.assignments.model import Assignment, Built, results_path  # noqa: E402
from anonbook.assignments.otter_build import assign, fill_in, grade, grade_in_process  # noqa: E402
from anonbook.assignments.pages import instructor_page, student_page  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
IDS = [a.anchor for a in ASSIGNMENTS]


@pytest.fixture(scope="module")
def results_book(request: pytest.FixtureRequest) -> Path:
    """A book folder holding every results file the assignments read (the published runs, else quick runs)."""
    needed = {a.results_chapter for a in ASSIGNMENTS}
    if all(results_path(c, ROOT / "book").exists() for c in needed):
        return ROOT / "book"
    return request.getfixturevalue("executed_book") / "book"


@pytest.fixture(scope="module")
def built(results_book: Path) -> dict[str, Built]:
    """Every assignment through ``otter assign`` (cached by its inputs), by anchor."""
    out = ROOT / "_build" / "assignments"
    return {a.anchor: assign(a, expected_value(a, results_book), out) for a in ASSIGNMENTS}


def _submission(b: Built, which: str, tmp: Path) -> Path:
    """The student notebook filled in with the reference (``solution``) or the ``wrong`` code."""
    return fill_in(b.student, getattr(b.assignment, which), tmp / which / b.student.name)


def test_every_chapter_has_at_least_two_assignments() -> None:
    groups = by_chapter()
    assert set(groups) == set(runner.toc_notebooks())
    assert all(len(v) >= 2 for v in groups.values()), {k: len(v) for k, v in groups.items()}
    assert len(set(IDS)) == len(IDS), "anchors must be unique"


@pytest.mark.parametrize("a", ASSIGNMENTS, ids=IDS)
def test_each_assignment_reproduces_a_ledger_claim_its_chapter_measures(a: Assignment) -> None:
    c = claims.claim(a.claim_id)
    assert c.chapter == a.results_chapter
    assert re.fullmatch(r"[a-z0-9-]+", a.key), "the key is part of the page's anchor"
    assert a.solution.strip() != a.wrong.strip() and a.wrong_does
    assert "answer" in a.solution and "answer" in a.wrong


@pytest.mark.parametrize("a", ASSIGNMENTS, ids=IDS)
def test_the_hidden_test_expects_the_value_in_the_results_file(a: Assignment, results_book: Path,
                                                                tmp_path: Path) -> None:
    e = expected_value(a, results_book)
    recorded = json.loads(results_path(a.results_chapter, results_book).read_text())["results"][a.claim_id]
    assert e.value == recorded["measured"]
    assert e.tolerance == (claims.claim(a.claim_id).tolerance if claims.claim(a.claim_id).compare
                           not in ("exact", "holds") else a.tolerance)
    # the same file with another value: the hidden test changes with it
    for path in results_book.glob("*.results.json"):
        shutil.copy(path, tmp_path / path.name)
    copy = results_path(a.results_chapter, tmp_path)
    data = json.loads(copy.read_text())
    changed = (not recorded["measured"]) if isinstance(recorded["measured"], bool) else recorded["measured"] + 1
    data["results"][a.claim_id]["measured"] = changed
    copy.write_text(json.dumps(data))
    assert expected_value(a, tmp_path).value == changed
    assert hidden_test(a, expected_value(a, tmp_path)) != hidden_test(a, e)


def test_a_changed_results_value_fails_the_reference_solution(built: dict[str, Built], results_book: Path,
                                                              tmp_path: Path) -> None:
    a = next(a for a in ASSIGNMENTS if a.key == "t-closeness-salary")
    for path in results_book.glob("*.results.json"):
        shutil.copy(path, tmp_path / path.name)
    data = json.loads(results_path(a.chapter, tmp_path).read_text())
    data["results"][a.claim_id]["measured"] += 0.01  # 20 tolerances off
    results_path(a.chapter, tmp_path).write_text(json.dumps(data))
    moved = assign(a, expected_value(a, tmp_path), tmp_path / "assignments")
    sub = _submission(moved, "solution", tmp_path)
    score, possible = grade_in_process(sub, moved.autograder)
    assert score < possible


@pytest.mark.parametrize("anchor", IDS)
def test_otter_grades_the_reference_full_and_the_wrong_solution_not(built: dict[str, Built], anchor: str,
                                                                     tmp_path: Path) -> None:
    b = built[anchor]
    ref = grade_in_process(_submission(b, "solution", tmp_path), b.autograder)
    wrong = grade_in_process(_submission(b, "wrong", tmp_path), b.autograder)
    assert ref[0] == ref[1] > 0, f"reference solution scored {ref}"
    assert wrong[0] < wrong[1], f"the wrong solution ({b.assignment.wrong_does}) scored {wrong}"


def _grade_both(args: tuple[str, str, str, str]) -> tuple[float, float, float, float]:
    """Worker: grade a reference and a wrong submission with otter's kernel grading."""
    ref, wrong, autograder, _ = args
    return (*grade(Path(ref), Path(autograder)), *grade(Path(wrong), Path(autograder)))


@pytest.mark.slow
def test_otter_grade_submission_end_to_end(built: dict[str, Built], tmp_path: Path) -> None:
    """The first assignment of each chapter through ``otter.api.grade_submission`` (a fresh kernel per
    submission, no Docker), two at a time; every assignment is graded in process above with the same tests."""
    first = {b.assignment.chapter: b for b in reversed(list(built.values()))}
    jobs = [(str(_submission(b, "solution", tmp_path)), str(_submission(b, "wrong", tmp_path)), str(b.autograder),
             b.assignment.anchor) for b in first.values()]
    with ProcessPoolExecutor(max_workers=2) as pool:
        scores = dict(zip((j[3] for j in jobs), pool.map(_grade_both, jobs)))
    bad = {k: s for k, s in scores.items() if not (s[0] == s[1] > 0 and s[2] < s[3])}
    assert not bad, f"(reference score, possible, wrong score, possible) not as expected: {bad}"


def _code_lines(code: str) -> list[str]:
    """The solution's lines worth searching for (not blank, not shared with the starter)."""
    return [line.strip() for line in code.splitlines() if len(line.strip()) > 8]


@pytest.mark.parametrize("anchor", IDS)
def test_the_student_notebook_has_no_solution_and_no_hidden_test(built: dict[str, Built], anchor: str) -> None:
    b = built[anchor]
    text = b.student.read_text()
    nb = nbformat.read(b.student, as_version=4)
    source = "\n".join(c.source for c in nb.cells)
    hidden = hidden_test(b.assignment, b.expected)
    assert "HIDDEN" not in text and hidden.splitlines()[-1].split(",")[0] not in text
    for line in _code_lines(b.assignment.solution):
        if line not in b.assignment.starter:
            assert line not in source, f"solution line in the student notebook: {line}"
    tests = json.dumps(nb.metadata["otter"]["tests"])
    assert '"hidden": true' not in tests
    # the instructor notebook and the autograder do have them
    assert _code_lines(b.assignment.solution)[0] in b.instructor.read_text()


def test_the_student_page_has_anchors_links_and_downloads_but_no_solution(built: dict[str, Built]) -> None:
    items = list(built.values())
    page, notes = student_page(items), instructor_page(items)
    for b in items:
        a = b.assignment
        assert f'<div id="{a.anchor}"></div>' in page
        assert f'href="verdicts.html#claim-{a.claim_id}"' in page
        assert f"/_static/assignments/{b.student.name}>`" in page
        for line in _code_lines(a.solution) + _code_lines(a.wrong):
            if line not in a.starter:
                assert line not in page, f"solution text on the student page: {line}"
        assert a.solution in notes and repr(b.expected.value) in notes
    assert "HIDDEN" not in page

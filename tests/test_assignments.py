"""The graded assignments (issues 28, 36): honest grading on variants no page shows.

Every assignment asks for a function; the hidden test calls it on variants whose expected values the build
computed with the library (``hidden_expectations``). For every assignment: the reference scores full, the
book's wrong solution, a typed constant and a submission that only passes the public check score 0, and the
public check is worth nothing. The student notebook and page name no claim id and hold no graded value.
The assign step is cached by its inputs under ``_build/assignments``. Marked ``slow``: one chapter's zip
graded end to end, with the page's own commands, in a fresh virtual environment that cannot see the checkout.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("otter", reason="otter-grader is in the course extra (requirements.lock installs it)")

from anonlab import claims
import zipfile

from anonbook import assessments, chapters, runner, slides, syllabus
from anonbook.assignments import leaks  # noqa: E402
from anonbook.assignments import ASSIGNMENTS, by_chapter, hidden_test  # noqa: E402
from anonbook.assignments.model import (HIDDEN_POINTS, Assignment, Built, constant_submission,  # noqa: E402
                                       hidden_expectations, results_path, expected_value)
from anonbook.assignments.otter_build import (assign, fill_in, grade, grade_in_process,  # noqa: E402
                                             grading_commands, grading_environment, grading_requirements,
                                             quiet_kernel_dir)
from anonbook.assignments import pages  # noqa: E402
from anonbook.assignments.pages import instructor_page, student_page  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
IDS = [a.anchor for a in ASSIGNMENTS]
OUT = ROOT / "_build" / "assignments"


@pytest.fixture(scope="module")
def built() -> dict[str, Built]:
    """Every assignment through ``otter assign`` (cached by its inputs), by anchor."""
    requirements = grading_requirements(OUT)
    return {a.anchor: assign(a, hidden_expectations(a), OUT, requirements) for a in ASSIGNMENTS}


def _submit(b: Built, code: str, name: str, tmp: Path) -> Path:
    """The student notebook with ``code`` in its answer cell."""
    return fill_in(b.student, code, tmp / name / b.student.name)


def _public_only(a: Assignment) -> str:
    """A submission that passes the public check and nothing else: the right kind of value, always 0."""
    return f"def {a.function}(*args, **kwargs):\n    return 0.0"


def test_every_chapter_has_at_least_two_assignments() -> None:
    groups = by_chapter()
    assert set(groups) == set(runner.toc_notebooks())
    assert all(len(v) >= 2 for v in groups.values()), {k: len(v) for k, v in groups.items()}
    assert len(set(IDS)) == len(IDS), "anchors must be unique"


@pytest.mark.parametrize("a", ASSIGNMENTS, ids=IDS)
def test_each_assignment_is_a_function_on_hidden_variants(a: Assignment) -> None:
    c = claims.claim(a.claim_id)
    assert c.chapter == a.results_chapter
    assert re.fullmatch(r"[a-z0-9-]+", a.key), "the key is part of the page's anchor"
    assert a.solution.strip() != a.wrong.strip() and a.wrong_does
    for code in (a.solution, a.wrong):
        assert code.startswith(f"def {a.function}("), "each solution defines the function the grader calls"
    g = hidden_expectations(a)
    assert len({json.dumps(v) for v in g.values}) >= 2, "a constant must not pass"
    assert a.public_args.strip() not in {c.strip().rstrip(",") for c in a.cases}, "the example is not graded"
    assert g.seconds < 10, f"the hidden runs must stay cheap ({g.seconds} s)"


def test_a_reference_with_too_few_distinct_values_is_refused() -> None:
    a = ASSIGNMENTS[0]
    with pytest.raises(ValueError, match="typed constant"):
        hidden_expectations(replace(a, cases=a.cases[:1]))
    with pytest.raises(ValueError, match="typed constant"):
        hidden_expectations(replace(a, reference=lambda *args: 3))


@pytest.mark.parametrize("anchor", IDS)
def test_reference_full_wrong_constant_and_public_only_zero(built: dict[str, Built], anchor: str,
                                                            tmp_path: Path) -> None:
    b = built[anchor]
    a = b.assignment
    scores = {name: grade_in_process(_submit(b, code, name, tmp_path), b.autograder)
              for name, code in [("reference", a.solution), ("wrong", a.wrong),
                                 ("constant", constant_submission(a, b.expected)),
                                 ("public-only", _public_only(a))]}
    assert scores["reference"] == (HIDDEN_POINTS, HIDDEN_POINTS), scores
    for name in ("wrong", "constant", "public-only"):
        assert scores[name] == (0.0, HIDDEN_POINTS), f"{name} ({a.wrong_does}) scored {scores[name]}"


def test_the_public_check_runs_and_is_worth_nothing(built: dict[str, Built], tmp_path: Path) -> None:
    from otter.test_files.ok_test import OKTestFile
    import zipfile

    for b in built.values():
        with zipfile.ZipFile(b.autograder) as z:
            z.extractall(tmp_path / b.assignment.slug, [n for n in z.namelist() if n.startswith("tests/")])
        test = OKTestFile.from_file(str(next((tmp_path / b.assignment.slug / "tests").glob("*.py"))))
        public = [tc for tc in test.test_cases if not tc.hidden]
        hidden = [tc for tc in test.test_cases if tc.hidden]
        assert [tc.points for tc in public] == [0] and sum(tc.points for tc in hidden) == HIDDEN_POINTS


def test_a_changed_library_value_fails_the_reference(built: dict[str, Built], tmp_path: Path) -> None:
    a = next(a for a in ASSIGNMENTS if a.key == "t-closeness-salary")
    moved = replace(a, reference=lambda *args: a.reference(*args) * 1.01)
    b = assign(moved, hidden_expectations(moved), tmp_path / "assignments", grading_requirements(OUT))
    score, possible = grade_in_process(_submit(b, a.solution, "reference", tmp_path), b.autograder)
    assert score == 0 < possible


@pytest.mark.parametrize("a", ASSIGNMENTS, ids=IDS)
def test_typing_the_books_published_value_scores_zero(built: dict[str, Built], a: Assignment,
                                                      tmp_path: Path) -> None:
    """The value the book publishes for the claim (verdicts page) is not a graded answer."""
    if not results_path(a.results_chapter).exists():
        pytest.skip(f"{a.results_chapter} has not been run in this checkout")
    try:
        book = expected_value(a).value
    except ValueError:
        pytest.skip(f"{a.claim_id} not measured")
    b = built[a.anchor]
    code = f"def {a.function}(*args, **kwargs):\n    return {book!r}"
    assert grade_in_process(_submit(b, code, "book", tmp_path), b.autograder)[0] == 0


def _code_lines(code: str) -> list[str]:
    """The solution's lines worth searching for (not blank, not the ``def`` line)."""
    return [line.strip() for line in code.splitlines()[1:] if len(line.strip()) > 8]


def _student_texts(built: dict[str, Built]) -> dict[str, str]:
    """Every student-facing text of the assignments: each student notebook, the student page and, where this
    checkout has a chapter's executed run, its deck's source."""
    texts = {str(b.student): b.student.read_text(encoding="utf-8") for b in built.values()}
    texts["student page"] = student_page(list(built.values()))
    texts["midterm"] = assessments.midterm_page(assessments.midterm_questions())
    texts["project brief"] = assessments.project_brief()
    for chapter in runner.toc_notebooks():
        if chapters.has_chapter(chapter) and syllabus.deck_available(chapter):
            texts[f"deck {chapter}"] = json.dumps(slides.deck_notebook(chapter))
    return texts


def test_no_student_material_names_a_graded_claim_or_holds_a_graded_value(built: dict[str, Built]) -> None:
    assert leaks.problems(_student_texts(built), built.values(), claims_everywhere=True) == []


def test_the_leak_check_can_fail(built: dict[str, Built], tmp_path: Path) -> None:
    b = next(b for b in built.values() if b.expected.kind == "float")
    value = next(v for v in b.expected.values if leaks.significant(v))
    assert leaks.leaks(f"the answer is {value:.8f}.", built.values())
    assert not leaks.leaks("k = 4, 0.5 of them, 12 records", built.values())
    counted = next(b for b in built.values() if b.expected.kind == "int"
                   and any(v >= 1000 for v in b.expected.values))
    big = next(v for v in counted.expected.values if v >= 1000)
    assert leaks.leaks(f"{big:,} tuples", built.values()), "a count written with a thousands separator"
    edition = tmp_path / "html"
    (edition / "_static" / "mathjax").mkdir(parents=True)
    (edition / "_static" / "mathjax" / "tex.js").write_text(f"var x = {value!r};")  # vendored: not read
    (edition / "verdicts.html").write_text(f"<td>{b.assignment.claim_id}</td>")  # the ledger's page may name it
    assert leaks.edition_problems(edition, built.values()) == []
    with zipfile.ZipFile(edition / "downloads.zip", "w") as z:
        z.writestr("chapter.ipynb", f'{{"text": "{value!r}"}}')
    (edition / "_static" / "assignments").mkdir()
    (edition / "_static" / "assignments" / "x.ipynb").write_text(b.assignment.claim_id)
    found = leaks.edition_problems(edition, built.values())
    assert [line.split(" ")[0] for line in found] == ["_static/assignments/x.ipynb", "downloads.zip!chapter.ipynb"]


def test_the_built_student_edition_holds_no_graded_value(built: dict[str, Built]) -> None:
    """The student edition's HTML, downloads and decks (when built in this checkout) against every graded value."""
    html = ROOT / "_build" / "student" / "html"
    if not (html / "index.html").exists():
        pytest.skip("the student edition is not built in this checkout (make book)")
    assert leaks.edition_problems(html, built.values()) == []


@pytest.mark.parametrize("anchor", IDS)
def test_the_student_notebook_has_no_solution_and_no_hidden_test(built: dict[str, Built], anchor: str) -> None:
    b = built[anchor]
    text = b.student.read_text()
    nb = nbformat.read(b.student, as_version=4)
    source = "\n".join(c.source for c in nb.cells)
    assert "HIDDEN" not in text and "_expected" not in text
    for line in _code_lines(b.assignment.solution):
        if line not in b.assignment.starter:
            assert line not in source, f"solution line in the student notebook: {line}"
    assert '"hidden": true' not in json.dumps(nb.metadata["otter"]["tests"])
    assert _code_lines(b.assignment.solution)[0] in b.instructor.read_text()
    assert hidden_test(b.assignment, b.expected).splitlines()[0] == "# HIDDEN"


def test_the_student_page_has_anchors_and_downloads_the_instructor_page_the_rest(built: dict[str, Built]) -> None:
    items = list(built.values())
    page, notes = student_page(items), instructor_page(items)
    for b in items:
        a = b.assignment
        assert f'<div id="{a.anchor}"></div>' in page
        assert f"/_static/assignments/{b.student.name}>`" in page
        assert "verdicts.html#claim-" not in page
        for line in _code_lines(a.solution) + _code_lines(a.wrong):
            if line not in a.starter:
                assert line not in page, f"solution text on the student page: {line}"
        assert a.solution in notes and a.claim_id in notes and pages._expected_text(b.expected.values[0]) in notes
    commands = grading_commands(items[0].autograder.name)
    for cmd in commands.values():
        assert cmd in notes
    assert "HIDDEN" not in page


def _grade_pair(args: tuple[str, str, str]) -> tuple[float, float, float, float]:
    """Worker: grade a reference and a wrong submission with otter's kernel grading."""
    ref, wrong, autograder = args
    return (*grade(Path(ref), Path(autograder)), *grade(Path(wrong), Path(autograder)))


@pytest.mark.slow
def test_otter_grade_submission_end_to_end_one_per_chapter(built: dict[str, Built], tmp_path: Path) -> None:
    """The first assignment of each chapter through ``otter.api.grade_submission`` (a kernel per submission)."""
    from concurrent.futures import ProcessPoolExecutor

    first = {b.assignment.chapter: b for b in reversed(list(built.values()))}
    jobs = [(str(_submit(b, b.assignment.solution, "ref", tmp_path)),
             str(_submit(b, b.assignment.wrong, "wrong", tmp_path)), str(b.autograder)) for b in first.values()]
    with ProcessPoolExecutor(max_workers=2) as pool:
        scores = dict(zip(first, pool.map(_grade_pair, jobs)))
    bad = {k: s for k, s in scores.items() if not (s[0] == s[1] == HIDDEN_POINTS and s[2] == 0)}
    assert not bad, f"(reference score, possible, wrong score, possible) not as expected: {bad}"


@pytest.mark.slow
@pytest.mark.network
def test_the_zip_grades_in_a_fresh_environment_with_the_pages_commands(built: dict[str, Built],
                                                                       tmp_path: Path) -> None:
    """Chapter 1's k-anonymity zip, alone in a folder, graded by the page's setup, single and batch commands
    in a new virtual environment (packages from the registry) that cannot import the checkout."""
    b = built["01_syntactic_anonymity-k-anonymity"]
    work = tmp_path / "grading-site"
    (work / "submissions").mkdir(parents=True)
    shutil.copy(b.autograder, work / b.autograder.name)
    a = b.assignment
    shutil.copy(_submit(b, a.solution, "ref", tmp_path), work / "submission.ipynb")
    for name, code in [("ref", a.solution), ("wrong", a.wrong), ("constant", constant_submission(a, b.expected))]:
        shutil.copy(_submit(b, code, name, tmp_path), work / "submissions" / f"{name}.ipynb")
    cmd = grading_commands(b.autograder.name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "ANONLAB", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    python = shutil.which("python3", path=env["PATH"]) or sys.executable
    env["PATH"] = str(Path(python).parent) + os.pathsep + env["PATH"]
    out = {}
    for step in ("setup", "single", "batch"):
        done = subprocess.run(["bash", "-c", cmd[step]], cwd=work, env=env, capture_output=True, text=True,
                              timeout=1800, check=False)
        assert done.returncode == 0, f"{step} failed: {done.stderr[-3000:]}"
        out[step] = done.stdout + done.stderr
    probe = subprocess.run([str(work / "grading" / "bin" / "python"), "-c", "import anonlab"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, check=False)
    assert probe.returncode != 0, "the grading environment must not see the checkout's library"

    def total(folder: Path) -> float:
        tests = json.loads((folder / "results.json").read_text())["tests"]
        return sum(t.get("score", 0) or 0 for t in tests)

    assert total(work / "results") == HIDDEN_POINTS
    assert [total(work / "results" / n) for n in ("ref", "wrong", "constant")] == [HIDDEN_POINTS, 0, 0]
    assert "without encryption" not in out["single"] + out["batch"]


def _hostile_caller(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A caller whose project settings point nowhere useful: an empty root, a bogus path, another folder."""
    (tmp_path / "empty-root").mkdir()
    monkeypatch.setenv("ANONLAB_ROOT", str(tmp_path / "empty-root"))
    monkeypatch.setenv("ANONLAB_OUTPUT_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "no-such-lib"))
    monkeypatch.chdir(tmp_path)


@pytest.mark.slow
def test_kernel_grading_does_not_depend_on_the_callers_environment(built: dict[str, Built], tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Chapter 2's reference (it loads Adult through the zip's library and manifest) graded by a caller whose
    root, path and folder are not the project's: full marks, and the caller's environment is left as it was.
    (It scored 0 when the kernel took the library from the caller's ``PYTHONPATH`` or the root from its
    ``ANONLAB_ROOT``.)"""
    b = built["02_dp_vs_definetti-majority-baseline"]
    ref = _submit(b, b.assignment.solution, "ref", tmp_path)
    _hostile_caller(monkeypatch, tmp_path)
    before = dict(os.environ)
    assert grade(ref, b.autograder) == (HIDDEN_POINTS, HIDDEN_POINTS)
    assert dict(os.environ) == before, "grading changed the caller's environment (otter prepends to PATH)"


def test_the_grading_environment_drops_the_checkouts_settings(tmp_path: Path) -> None:
    caller = {"PATH": "/bin", "PYTHONPATH": "/x/lib", "ANONLAB_ROOT": "/x", "ANONLAB_OUTPUT_DIR": "/y",
              "ANONLAB_DATA_DIR": "/cache", "HOME": "/home/h"}
    env = grading_environment(caller, tmp_path)
    assert env == {"PATH": "/bin", "ANONLAB_DATA_DIR": "/cache", "HOME": "/home/h", "IPYTHONDIR": str(tmp_path)}


@pytest.mark.slow
def test_the_pages_single_command_grades_quietly_with_this_otter(built: dict[str, Built], tmp_path: Path) -> None:
    """The page's ``single`` command (its kernel configuration as ``setup`` writes it, this environment's otter
    in place of the new one): full marks from the zip alone, and no unencrypted-kernel notice."""
    b = built["02_dp_vs_definetti-majority-baseline"]
    work = tmp_path / "site"
    (work / "grading" / "bin").mkdir(parents=True)
    (work / "grading" / "bin" / "otter").symlink_to(Path(sys.executable).parent / "otter")
    quiet_kernel_dir(work / "grading" / "ipython")
    shutil.copy(b.autograder, work / b.autograder.name)
    shutil.copy(_submit(b, b.assignment.solution, "ref", tmp_path), work / "submission.ipynb")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONPATH", "ANONLAB_ROOT", "ANONLAB_OUTPUT"))}
    done = subprocess.run(["bash", "-c", grading_commands(b.autograder.name)["single"]], cwd=work, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    tests = json.loads((work / "results" / "results.json").read_text())["tests"]
    assert sum(t.get("score", 0) or 0 for t in tests) == HIDDEN_POINTS
    assert "without encryption" not in done.stdout + done.stderr

"""The parallel build: the scheduler's limits, shared exercise kernels, and a parallel build equal to a serial one."""

from __future__ import annotations

import json
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from anonbook import course, schedule
from anonbook.runner import RunError, SharedKernel, run_notebook
from anonbook.schedule import Grant, Job, granted_cores

ROOT = Path(__file__).resolve().parents[1]
GB = 2**30


class Recorder:
    """A fake ``execute`` that sleeps and records what ran at once (cores, memory, jobs)."""

    def __init__(self, seconds: dict[str, float] | None = None, fail: str | None = None) -> None:
        self.lock = threading.Lock()
        self.running: dict[str, tuple[Job, Grant]] = {}
        self.peaks = {"cores": 0, "memory": 0.0, "jobs": 0}
        self.order: list[str] = []
        self.grants: dict[str, Grant] = {}
        self.seconds = seconds or {}
        self.fail = fail

    def __call__(self, job: Job, grant: Grant) -> float:
        with self.lock:
            for a in job.after:
                assert a in self.order and a not in self.running, f"{job.key} started before {a} finished"
            self.running[job.key] = (job, grant)
            self.grants[job.key] = grant
            self.peaks["cores"] = max(self.peaks["cores"], sum(g.cores for _, g in self.running.values()))
            self.peaks["memory"] = max(self.peaks["memory"], sum(j.memory for j, _ in self.running.values()))
            self.peaks["jobs"] = max(self.peaks["jobs"], len(self.running))
        time.sleep(self.seconds.get(job.key, 0.05))
        with self.lock:
            del self.running[job.key]
            self.order.append(job.key)
        if job.key == self.fail:
            raise RunError(f"{job.key} failed on purpose")
        return 1.0


def _run(jobs: list[Job], rec: Recorder, *, cores: int = 2, memory: float = 8 * GB, concurrency: int = 2) -> dict:
    with ThreadPoolExecutor(concurrency) as pool:
        return schedule.run_jobs(jobs, rec, cores=cores, memory=memory, concurrency=concurrency, executor=pool,
                                 log=lambda line: None)


def test_independent_jobs_run_side_by_side_within_the_cores() -> None:
    jobs = [Job(f"c{i}", f"c{i}", "chapter", memory=GB) for i in range(6)]
    rec = Recorder()
    out = _run(jobs, rec)
    assert set(out) == {j.key for j in jobs}
    assert rec.peaks["jobs"] == 2 and rec.peaks["cores"] <= 2


def test_a_job_that_fixes_its_pool_runs_alone_on_two_cores() -> None:
    jobs = [Job("pool", "pool", "chapter", cores=2, flexible=False), Job("a", "a", "chapter"),
            Job("b", "b", "chapter")]
    rec = Recorder({"pool": 0.2})
    _run(jobs, rec)
    assert rec.peaks["cores"] <= 2
    assert rec.grants["pool"].cores == 2


def test_a_flexible_job_alone_gets_every_core_and_beside_another_one() -> None:
    rec = Recorder()
    _run([Job("only", "only", "chapter")], rec)
    assert rec.grants["only"].cores == 2
    rec = Recorder()
    _run([Job("a", "a", "chapter"), Job("b", "b", "chapter")], rec)
    assert rec.grants["a"].cores == 1 and rec.grants["b"].cores == 1


def test_the_sum_of_memory_estimates_fits() -> None:
    jobs = [Job("big", "big", "chapter", memory=5 * GB), Job("big2", "big2", "chapter", memory=5 * GB),
            Job("small", "small", "chapter", memory=1 * GB)]
    rec = Recorder({"big": 0.2, "big2": 0.2})
    _run(jobs, rec, memory=8 * GB)
    assert rec.peaks["memory"] <= 8 * GB
    # a job larger than the whole budget still runs, alone
    rec = Recorder()
    _run([Job("huge", "huge", "chapter", memory=20 * GB), Job("x", "x", "chapter", memory=GB)], rec, memory=8 * GB)
    assert rec.peaks["jobs"] == 1 and set(rec.order) == {"huge", "x"}


def test_a_chapter_runs_after_the_chapters_it_reads() -> None:
    jobs = [Job("09", "09", "chapter", after=("01", "02")), Job("09:exercises", "09", "exercises", after=("01", "02")),
            Job("01", "01", "chapter"), Job("02", "02", "chapter")]
    rec = Recorder({"01": 0.1, "02": 0.2})
    _run(jobs, rec)
    assert rec.order.index("09") > rec.order.index("02") and rec.order.index("09:exercises") > rec.order.index("02")


def test_a_job_waiting_for_a_job_outside_the_build_is_refused() -> None:
    with pytest.raises(ValueError, match="not in the build"):
        _run([Job("09", "09", "chapter", after=("nope",))], Recorder())


def test_the_longest_job_starts_first_and_a_serial_build_keeps_the_book_order() -> None:
    jobs = [Job("short", "short", "chapter", expected=5), Job("long", "long", "chapter", expected=60),
            Job("mid", "mid", "chapter", expected=20)]
    started: list[str] = []
    rec = Recorder()

    def execute(job: Job, grant: Grant) -> float:
        started.append(job.key)
        return rec(job, grant)

    with ThreadPoolExecutor(1) as pool:  # one at a time, in a pool: the order is the scheduler's
        schedule.run_jobs(jobs, execute, cores=2, memory=8 * GB, concurrency=2, executor=pool,
                          log=lambda line: None)
    assert started[0] == "long"
    started.clear()
    schedule.run_jobs(jobs + [Job("short:exercises", "short", "exercises", expected=90)], execute, cores=2,
                      memory=8 * GB, concurrency=1, log=lambda line: None)
    assert started == ["short", "long", "mid", "short:exercises"]  # serial: the book's order, exercises last


def test_a_failure_stops_new_jobs_and_names_the_failure() -> None:
    jobs = [Job("a", "a", "chapter", expected=3), Job("b", "b", "chapter", expected=2),
            Job("c", "c", "chapter", expected=1), Job("d", "d", "chapter", after=("a",))]
    rec = Recorder(fail="a")
    with pytest.raises(RunError, match="a failed on purpose") as err:
        _run(jobs, rec, concurrency=1)
    assert rec.order == ["a"] and "not run" in str(err.value)


def test_progress_is_one_line_per_start_and_end() -> None:
    lines: list[str] = []
    schedule.run_jobs([Job("a", "a", "chapter"), Job("b", "b", "exercises")], Recorder(), cores=2,
                      memory=8 * GB, concurrency=1, log=lines.append)
    assert [line.split()[2] for line in lines] == ["start", "done", "start", "done"]
    assert all(line.startswith("[anonlab]") and "\n" not in line for line in lines)


def test_the_book_plan_declares_pools_memory_and_order() -> None:
    jobs = {j.key: j for j in schedule.plan_book(["01_syntactic_anonymity", "06a_diffix_differential"])}
    assert set(jobs) == {"01_syntactic_anonymity", "01_syntactic_anonymity:exercises",
                         "06a_diffix_differential", "06a_diffix_differential:exercises"}
    # n_jobs = 0 by default: the run takes the cores the build gives it (a flexible job)
    assert jobs["06a_diffix_differential"].cores == 1 and jobs["06a_diffix_differential"].flexible
    ex = jobs["06a_diffix_differential:exercises"]
    assert ex.cores == 1 and not ex.flexible  # the quick preset fixes n_jobs = 1
    if granted_cores() > 1:  # the declared estimate at the defaults: a worker pool with a data-set copy per core
        assert jobs["06a_diffix_differential"].memory > 4 * GB
    assert jobs["01_syntactic_anonymity"].flexible
    fixed = schedule._job("06a_diffix_differential", "chapter", [{"n_jobs": 2}], (), 0.0)
    assert fixed.cores == 2 and not fixed.flexible


def test_a_pool_left_to_the_build_takes_the_cores_it_was_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANONLAB_JOBS", "1")
    assert granted_cores() == 1
    monkeypatch.delenv("ANONLAB_JOBS")
    assert 1 <= granted_cores(at_most=2) <= 2
    from anonbook.diffix_harness import Experiments

    monkeypatch.setenv("ANONLAB_JOBS", "3")
    assert Experiments(None, salt=0, n_jobs=0).n_jobs == 3 and Experiments(None, salt=0, n_jobs=1).n_jobs == 1


# -- real kernels ---------------------------------------------------------------------------------------


def test_a_shared_kernel_publishes_what_fresh_kernels_publish(mini_project: Path) -> None:
    """Runs in one kernel: the same outputs and counts as a kernel each; no name leaks from one run to the next."""
    nb = mini_project / "notebooks" / "00_mini_chapter.ipynb"
    data = json.loads(nb.read_text())
    data["cells"].append({"cell_type": "code", "id": "leak-check", "metadata": {}, "execution_count": None, "outputs": [],
                          "source": "print(x, 'leak' in dir())\nleak = 1\nx"})
    nb.write_text(json.dumps(data))
    for x in (0.25, 0.75):
        run_notebook("00_mini_chapter", {"x": x}, out_dir=mini_project / "fresh" / str(x), progress=False)
    with SharedKernel("00_mini_chapter") as kernel:
        for x in (0.25, 0.75):
            run_notebook("00_mini_chapter", {"x": x}, out_dir=mini_project / "shared" / str(x), progress=False,
                         kernel=kernel)
        assert kernel.runs == 2 and len(kernel.pids) == 1
    for x in (0.25, 0.75):
        fresh = mini_project / "fresh" / str(x) / "00_mini_chapter.ipynb"
        shared = mini_project / "shared" / str(x) / "00_mini_chapter.ipynb"
        assert schedule.comparable_notebook(shared) == schedule.comparable_notebook(fresh)
        assert f"{x} False" in shared.read_text()
        assert (schedule.recorded_values(shared.with_suffix(".results.json"))
                == schedule.recorded_values(fresh.with_suffix(".results.json")))


def test_a_failing_run_in_a_shared_kernel_names_the_reader_s_cell(mini_project: Path) -> None:
    """The cell index is the one a fresh kernel reports (the prelude is not counted); the kernel serves on."""
    with SharedKernel("00_mini_chapter") as kernel:
        with pytest.raises(RunError, match=r"cell 5 \(if fail"):
            run_notebook("00_mini_chapter", {"fail": True}, out_dir=mini_project / "x", progress=False,
                         kernel=kernel)
        res = run_notebook("00_mini_chapter", {}, out_dir=mini_project / "y", progress=False, kernel=kernel)
    assert not res.cached and res.results is not None


def _project_copy(root: Path, names: list[str]) -> Path:
    """A copy of the project's sources (ledger, manifest, table of contents) with these chapters' notebooks."""
    (root / "notebooks").mkdir(parents=True)
    (root / "book").mkdir()
    shutil.copytree(ROOT / "data", root / "data")
    shutil.copy(ROOT / "_toc.yml", root / "_toc.yml")
    for n in names:
        shutil.copy(ROOT / "notebooks" / f"{n}.ipynb", root / "notebooks")
    return root


def _add_second_mini_chapter(root: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A second declared chapter in the mini project, recording a claim of its own."""
    from tests.conftest import MINI_CHAPTER, add_chapter_module

    name = "00_mini_other"
    with (root / "data" / "claims.yaml").open("a") as ledger:
        ledger.write(MINI_LEDGER_OTHER)
    nb = json.loads((root / "notebooks" / "00_mini_chapter.ipynb").read_text())
    for cell in nb["cells"]:
        text = "".join(cell["source"])
        cell["source"] = text.replace("Recorder('00_mini_chapter')", f"Recorder('{name}')").replace(
            "'slides.mini.approx', x", "'slides.mini.other', 1 - x")
    (root / "notebooks" / f"{name}.ipynb").write_text(json.dumps(nb))
    add_chapter_module(root / "chapters", name, MINI_CHAPTER.replace("00_mini_chapter", name), monkeypatch)
    return name


MINI_LEDGER_OTHER = """
- id: slides.mini.other
  paper: cmu18734slides2019
  source: 001_72ade336009ef92b.txt
  where: "test"
  statement: "The second mini chapter's claim."
  reported: 0.5
  unit: fraction
  compare: approx
  tolerance: 0.1
  chapter: 00_mini_other
  data: none
"""


def test_a_parallel_build_records_what_a_serial_build_records(mini_project: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Two chapters' jobs, one after the other in this process, then two at once in worker processes: every
    published notebook (less timing metadata) and recorded value is the same."""
    other = _add_second_mini_chapter(mini_project, monkeypatch)
    jobs = [Job("00_mini_chapter", "00_mini_chapter", "chapter", parameters={"x": 0.25}, memory=GB),
            Job(other, other, "chapter", parameters={"x": 0.75}, memory=GB)]
    books = {}
    for mode, concurrency in (("serial", 1), ("parallel", 2)):
        seconds = schedule.run_book_jobs(jobs, concurrency=concurrency, force=True, cores=2, memory=8 * GB)
        assert set(seconds) == {"00_mini_chapter", other}
        books[mode] = shutil.move(mini_project / "book", mini_project / mode)
        (mini_project / "book").mkdir()
    serial, parallel = Path(books["serial"]), Path(books["parallel"])
    assert len(schedule.build_outputs(serial)) == 4  # two notebooks, two results
    assert schedule.compare_builds(serial, parallel) == []
    recorded = schedule.recorded_values(parallel / f"{other}.results.json")
    assert recorded == schedule.recorded_values(serial / f"{other}.results.json") and recorded


@pytest.mark.notebook
def test_a_real_chapter_s_solution_runs_in_one_kernel_record_what_fresh_kernels_record(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chapter 1's quick run and one exercise variant, in a kernel each and then in one shared kernel: what the
    chapter's code keeps in memory from one run does not change the next run's notebook or records."""
    name = "01_syntactic_anonymity"
    runs = course.exercise_runs(name)
    monkeypatch.setattr(course, "exercise_runs", lambda chapter: [runs[0], runs[-1]])
    monkeypatch.setenv("ANONLAB_NO_CACHE", "1")  # both compute everything
    monkeypatch.delenv("ANONLAB_OUTPUT_DIR", raising=False)
    books = {}
    for mode, shared in (("fresh", False), ("shared", True)):
        root = _project_copy(tmp_path / mode, [name])
        monkeypatch.setenv("ANONLAB_ROOT", str(root))
        out = course.run_exercises(name, shared=shared, progress=False)
        assert list(out) == [runs[0][0], runs[-1][0]]
        books[mode] = root / "book"
    assert len(schedule.build_outputs(books["fresh"])) == 4
    assert schedule.compare_builds(books["fresh"], books["shared"]) == []
    meta = json.loads((books["shared"] / "_exercises" / name / "quick" / f"{name}.params.json").read_text())
    assert meta["shared_kernel"] is True


def test_compare_builds_names_what_differs(tmp_path: Path) -> None:
    for side, value in (("a", 1), ("b", 2)):
        book = tmp_path / side
        book.mkdir()
        results = {"claim.same": {"measured": 0}, "claim.moved": {"measured": value},
                   "cormode.timing.adult": {"measured": value}}
        (book / "x.results.json").write_text(json.dumps({"notebook": "x", "results": results}))
    (tmp_path / "b" / "y.results.json").write_text(json.dumps({"results": {}}))
    assert schedule.compare_builds(tmp_path / "a", tmp_path / "b") == [
        f"only in {tmp_path / 'b'}: y.results.json", "x.results.json: claim.moved"]


def course_exercises(name: str) -> list:
    from anonbook import chapters

    return list(chapters.get(name).exercises)


def test_exercise_runs_are_the_quick_preset_then_each_variant() -> None:
    runs = course.exercise_runs("01_syntactic_anonymity")
    exercises = course_exercises("01_syntactic_anonymity")
    keys = [k for k, _ in runs]
    assert keys[0] == "quick" and keys[-len(exercises):] == [e.key for e in exercises]
    assert all(k.startswith("base_") for k in keys[1:-len(exercises)])  # the medium presets, once each


def test_a_flexible_job_s_pools_are_sized_to_its_cores_and_the_memory_check_to_its_share(monkeypatch) -> None:
    import os

    from anonbook import runner
    from anonbook.memory import MEMORY_LIMIT_ENV

    seen: dict[str, str | None] = {}

    def fake_run(chapter, parameters, **kw):
        seen.update({k: os.environ.get(k) for k in (*schedule.POOL_ENV, MEMORY_LIMIT_ENV, runner.CONCURRENT_BUILD_ENV)})
        return runner.RunResult(chapter, Path("x"), None, dict(parameters), 1.0, False)

    monkeypatch.setattr(runner, "run_notebook", fake_run)
    for k in (*schedule.POOL_ENV, MEMORY_LIMIT_ENV, runner.CONCURRENT_BUILD_ENV):
        monkeypatch.delenv(k, raising=False)
    job = Job("c", "c", "chapter", memory=GB)
    schedule.execute_job(job, Grant(1, 3 * GB, time.perf_counter(), True))
    assert seen == {"ANONLAB_JOBS": "1", "ANONLAB_N_JOBS": "1", "LOKY_MAX_CPU_COUNT": "1",
                    MEMORY_LIMIT_ENV: str(3 * GB), runner.CONCURRENT_BUILD_ENV: "1"}
    assert all(k not in os.environ for k in seen)  # restored
    schedule.execute_job(Job("c", "c", "chapter", cores=2, flexible=False), Grant(2, GB, time.perf_counter(), True))
    assert seen["ANONLAB_JOBS"] is None  # a pool fixed by a parameter is left alone
    schedule.execute_job(job, Grant(2, GB, time.perf_counter(), False))
    assert set(seen.values()) == {None}  # a serial build changes nothing


def test_comparable_notebooks_leave_out_what_differs_between_any_two_runs(tmp_path: Path) -> None:
    def notebook(name: str, html_id: str, chunks: list[str], address: str) -> Path:
        outputs = [{"output_type": "stream", "name": "stdout", "text": c} for c in chunks]
        outputs.append({"output_type": "execute_result", "execution_count": 1, "metadata": {},
                        "data": {"text/html": f'<table id="T_{html_id}"><td id="T_{html_id}_row0">0.5</td></table>',
                                 "text/plain": f"<Styler at 0x{address}>"}})
        nb = {"cells": [{"cell_type": "code", "source": "run()", "metadata": {"papermill": {"duration": 1.0}},
                         "execution_count": 1, "outputs": outputs}],
              "metadata": {"papermill": {"parameters": {"k": 1}, "start_time": name}}, "nbformat": 4,
              "nbformat_minor": 5}
        path = tmp_path / f"{name}.ipynb"
        path.write_text(json.dumps(nb))
        return path

    a = notebook("a", "3f9a1", ["8 of 8: 40 targets, 0.1 s\n", "done\n"], "7f5ce547fd10")
    b = notebook("b", "d3c1e", ["8 of 8: 40 targets, 0.0 s\ndone\n"], "7fa3a3b60350")
    assert schedule.comparable_notebook(a) == schedule.comparable_notebook(b)
    c = notebook("c", "d3c1e", ["8 of 8: 41 targets, 0.0 s\ndone\n"], "7fa3a3b60350")  # a value that moved
    assert schedule.comparable_notebook(a) != schedule.comparable_notebook(c)


def test_a_build_with_nothing_to_run_starts_no_worker_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every job up to date: the jobs run in this process (each only says so), no pool of workers is spawned."""
    import concurrent.futures

    ran: list[str] = []
    monkeypatch.setattr(schedule, "job_is_current", lambda job: True)
    monkeypatch.setattr(schedule, "execute_job", lambda job, grant, **kw: ran.append(job.key) or 0.0)

    def no_pool(*a, **kw):
        raise AssertionError("a worker pool was started for a build with nothing to run")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_pool)
    jobs = [Job(f"c{i}", f"c{i}", "chapter", memory=GB) for i in range(3)]
    assert set(schedule.run_book_jobs(jobs, concurrency=2, cores=2, memory=8 * GB)) == {"c0", "c1", "c2"}
    assert sorted(ran) == ["c0", "c1", "c2"]
    monkeypatch.setattr(schedule, "job_is_current", lambda job: job.key != "c1")  # one stale job: the pool
    with pytest.raises(AssertionError, match="worker pool"):
        schedule.run_book_jobs(jobs, concurrency=2, cores=2, memory=8 * GB)

"""Reliability: failed and interrupted runs leave nothing behind, the caches vouch only for what exists,
user values are read as meant, the data layer notices a changed byte, unwritable caches fail clearly."""

from __future__ import annotations

import importlib
import os
import warnings
from pathlib import Path

import pytest

from anonbook import cache, runner
from anonlab.fileio import default_file_mode
from anonbook.runner import RunError, parse_cli_value, run_notebook

from .conftest import read_json
from .test_data import ADULT_TRAIN, fake  # noqa: F401 - the fixture

NB = "00_mini_chapter"
FETCH = importlib.import_module("anonlab.data.fetch")


def _run_folders(root: Path) -> list[Path]:
    return sorted((root / "book").glob(".run-*"))


def test_a_failed_run_leaves_no_run_folder(mini_project: Path) -> None:
    with pytest.raises(RunError):
        run_notebook(NB, {"fail": True}, progress=False)
    assert _run_folders(mini_project) == []


def test_an_interrupted_run_leaves_nothing_and_says_so(mini_project: Path, monkeypatch) -> None:
    def interrupt(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(runner, "_execute_and_publish", interrupt)
    with pytest.raises(RunError, match="interrupted; nothing was published"):
        run_notebook(NB, progress=False)
    assert _run_folders(mini_project) == []


def test_stale_run_folders_are_removed_at_start(mini_project: Path) -> None:
    stale = mini_project / "book" / f".run-{NB}-dead"
    stale.mkdir(parents=True)
    (stale / "pid").write_text("999999999")
    (stale / f"{NB}.results.json").write_text("{}")
    run_notebook(NB, progress=False)
    assert _run_folders(mini_project) == []


def test_stale_run_folders_are_removed_even_when_the_chapter_is_up_to_date(mini_project: Path) -> None:
    run_notebook(NB, progress=False)
    stale = mini_project / "book" / f".run-{NB}-dead"
    stale.mkdir()
    (stale / "pid").write_text("999999999")
    (stale / f"{NB}.results.json").write_text('{"results": {')
    assert run_notebook(NB, progress=False).cached
    assert _run_folders(mini_project) == []


def test_a_truncated_published_file_makes_the_chapter_stale(mini_project: Path) -> None:
    run_notebook(NB, progress=False)
    results = mini_project / "book" / f"{NB}.results.json"
    results.write_text(results.read_text()[:20])
    from anonlab import claims

    with pytest.raises(claims.ClaimError, match=f"cannot read the recorded results .*{NB}.results.json"):
        claims.collect_results(mini_project / "book")
    import subprocess
    import sys

    cli = subprocess.run([sys.executable, "-m", "anonlab", "claims"], capture_output=True, text=True)
    assert cli.returncode == 2 and "Traceback" not in cli.stderr
    assert cli.stderr.startswith("error: cannot read the recorded results") and f"{NB}.results.json" in cli.stderr
    res = run_notebook(NB, progress=False)
    assert not res.cached and read_json(results)["results"]


@pytest.mark.parametrize("moment", ["during start-up", "in the cell", "twice in the cell"])
def test_ctrl_c_exits_130_with_one_line_and_no_traceback(mini_project: Path, moment: str) -> None:
    """A Ctrl-C in a terminal: SIGINT to the runner's process group (the kernel has its own session),
    while the command starts, while the kernel runs the cell, or twice (the second lands while the
    kernel is being shut down: nbclient's DeadKernelError must not reach the terminal)."""
    import signal
    import subprocess
    import sys
    import time

    from .conftest import make_notebook

    make_notebook(mini_project / "notebooks" / f"{NB}.ipynb", "x = 0.5\nfail = False\nlabel = 'a'\n",
                  ["import time\ntime.sleep(60)\n"])
    proc = subprocess.Popen([sys.executable, "-m", "anonlab", "run", NB], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    if moment == "during start-up":
        time.sleep(0.3)  # the command is still importing
    else:
        deadline = time.monotonic() + 60
        while not list((mini_project / "book").glob(f".run-{NB}-*/pid")) and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(3)  # the kernel is in the sleeping cell
    os.killpg(proc.pid, signal.SIGINT)
    if moment == "twice in the cell":
        time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    lines = [ln for ln in err.decode().splitlines() if ln.strip() and not ln.startswith("Executing")]
    assert proc.returncode == 130
    assert "Traceback" not in err.decode() and "Error" not in err.decode(), err.decode()
    if moment == "during start-up":  # on a slow machine the run may already have begun: either line, alone
        assert lines and (lines[-1].startswith("interrupted")
                          or lines[-1].startswith(f"{NB}: interrupted; nothing was published")), lines
        assert not [ln for ln in lines[:-1] if "interrupted" in ln], lines
        return
    assert lines[-1].startswith(f"{NB}: interrupted; nothing was published"), lines
    assert not (mini_project / "book" / f"{NB}.ipynb").exists() and _run_folders(mini_project) == []


def test_a_deleted_results_file_is_recreated(mini_project: Path) -> None:
    run_notebook(NB, progress=False)
    results = mini_project / "book" / f"{NB}.results.json"
    results.unlink()
    res = run_notebook(NB, progress=False)
    assert not res.cached and results.exists()


def test_a_default_passed_explicitly_is_the_same_run(mini_project: Path) -> None:
    run_notebook(NB, progress=False)
    assert run_notebook(NB, {"x": 0.5}, progress=False).cached


def test_published_files_are_readable_like_any_build_output(mini_project: Path) -> None:
    run_notebook(NB, progress=False)
    for f in ("ipynb", "results.json", "params.json"):
        mode = (mini_project / "book" / f"{NB}.{f}").stat().st_mode & 0o777
        assert mode == default_file_mode(), (f, oct(mode))
    assert read_json(mini_project / "book" / f"{NB}.params.json")["published"]


def test_a_very_long_chapter_name_is_refused_cleanly(mini_project: Path) -> None:
    with pytest.raises(RunError, match=r"no notebook '0{77}\.\.\.'"):
        runner.resolve_notebook("0" * 5000)


@pytest.mark.parametrize("text, value", [
    ("[1e-3, 1.0]", [0.001, 1.0]), ("1e-3", 0.001), ("[1:30]", ["1:30"]), ("1:240", "1:240"),
    ("[30, 240]", [30, 240]), ("-2", -2), (".5", 0.5),
])
def test_numbers_are_read_as_a_user_means_them(text: str, value: object) -> None:
    assert parse_cli_value(text) == value


def test_a_changed_byte_with_its_time_restored_is_noticed(fake) -> None:  # noqa: F811
    from anonlab import data

    path = data.fetch("adult-train")
    st = path.stat()
    raw = bytearray(path.read_bytes())
    raw[10] = ord("9") if raw[10] != ord("9") else ord("8")
    path.write_bytes(bytes(raw))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime
    ok, _ = FETCH._check_cached(FETCH.load_manifest().entry("adult-train"), path)
    assert ok is False
    assert data.fetch("adult-train").read_bytes() == ADULT_TRAIN  # fetched again


def test_an_unwritable_data_cache_fails_with_one_message(fake, tmp_path, monkeypatch) -> None:  # noqa: F811
    from anonlab import data

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ANONLAB_DATA_DIR", str(blocker / "cache"))
    with pytest.raises(data.DataUnavailableError, match="not writable.*ANONLAB_DATA_DIR"):
        data.fetch("adult-train")


def test_an_unwritable_result_cache_computes_and_warns(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("ANONLAB_NO_CACHE", raising=False)
    monkeypatch.setenv("ANONLAB_DATA_DIR", str(tmp_path))

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(cache, "atomic_write", refuse)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert cache.cached("unwritable", {"a": 1}, lambda: 42) == 42
    assert any("not writable" in str(w.message) for w in caught)


def test_the_book_key_moves_with_any_page_or_result(mini_project: Path) -> None:
    from anonbook import book

    (mini_project / "book" / "intro.md").write_text("# Intro\n")
    (mini_project / "_config.yml").write_text("title: x\n")
    k1 = book.book_inputs_key()
    assert book.book_inputs_key() == k1
    (mini_project / "book" / "_generated").mkdir()
    (mini_project / "book" / "_generated" / "verdict_summary.md").write_text("made at build time")
    assert book.book_inputs_key() == k1  # generated pages are outputs, not inputs
    run_notebook(NB, progress=False)
    k2 = book.book_inputs_key()
    assert k2 != k1
    (mini_project / "book" / "intro.md").write_text("# Intro, edited\n")
    assert book.book_inputs_key() != k2


def test_read_only_caches_with_real_permissions(tmp_path: Path) -> None:
    """A data cache without the file and a result cache, both read-only, as an unprivileged user.

    Root ignores file permissions, so when the suite runs as root (as CI does) the check runs in a child
    process without the capabilities that override them (``setpriv`` drops CAP_DAC_OVERRIDE,
    CAP_DAC_READ_SEARCH and CAP_FOWNER from its bounding set): the permission bits then hold for it as
    for any user. It is skipped, saying so, only as root on a machine without ``setpriv``.
    """
    import shutil
    import subprocess
    import sys
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="anonlab-read-only-"))
    try:
        os.chmod(root, 0o755)
        ro = root / "cache"
        ro.mkdir()
        os.chmod(ro, 0o555)
        code = ("import warnings\nfrom anonbook import cache\nfrom anonlab import data\n"
                "try:\n    data.fetch('adult-train'); print('FETCHED')\n"
                "except data.DataUnavailableError as e:\n    print('REFUSED', e)\n"
                "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
                "    v = cache.cached('ro', {'a': 1}, lambda: 42)\n"
                "print('CACHED', v, any('not writable' in str(x.message) for x in w))\n")
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(root), "ANONLAB_DATA_DIR": str(ro),
               "ANONLAB_ROOT": str(Path(__file__).resolve().parents[1])}
        prefix: list[str] = []
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                pytest.skip("the suite runs as root and this machine has no setpriv to drop root's permission "
                            "override, so read-only folders cannot be tested with real permissions")
            prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner"]
        proc = subprocess.run([*prefix, sys.executable, "-c", code], env=env, capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.splitlines()
        assert lines[0].startswith("REFUSED") and "is not writable" in lines[0], lines
        assert lines[1] == "CACHED 42 True", lines
        assert list(ro.iterdir()) == []
    finally:
        os.chmod(root / "cache", 0o755)
        shutil.rmtree(root, ignore_errors=True)


def test_the_first_rebuild_after_a_fresh_build_is_a_no_op(mini_project: Path, monkeypatch) -> None:
    """A fresh build writes files under book/ while it builds (the assignments' student notebooks, the
    generated pages, a run's lock); the key it stamps must still match the next build's, which then does
    nothing. The editions' Sphinx builds are replaced by what they write into book/ and _build/."""
    from anonbook import book, schedule

    built: list[str] = []

    def fake_edition(edition: str) -> Path:
        built.append(edition)
        static = mini_project / "book" / "_static" / "assignments"
        static.mkdir(parents=True, exist_ok=True)
        (static / f"{NB}_a.ipynb").write_text("{}")  # as build_assignments writes them
        (mini_project / "book" / "_generated").mkdir(exist_ok=True)
        (mini_project / "book" / "_generated" / "course_plan.md").write_text(edition)
        html = book.edition_dir(edition)
        html.mkdir(parents=True, exist_ok=True)
        (html / "index.html").write_text("<html></html>")
        return html

    monkeypatch.setattr(schedule, "plan_book", lambda names: [])
    monkeypatch.setattr(schedule, "run_book_jobs", lambda *a, **k: None)
    monkeypatch.setattr(book, "check_published_verdicts", lambda names: None)
    monkeypatch.setattr(book, "build_edition", fake_edition)
    monkeypatch.setattr(book, "find_browser", lambda: "chromium")
    monkeypatch.setattr(book, "browser_check", lambda *a, **k: [])
    (mini_project / "book" / "intro.md").write_text("# Intro\n")
    (mini_project / "_config.yml").write_text("title: x\n")
    run_notebook(NB, progress=False)  # a published run (and its lock file) in book/
    book.build_book()
    assert sorted(built) == ["instructor", "student"]
    built.clear()
    book.build_book()
    assert built == [], "the first rebuild after a fresh build rebuilt the editions"
    (mini_project / "book" / "intro.md").write_text("# Intro, edited\n")
    book.build_book()
    assert sorted(built) == ["instructor", "student"], "an edited page must rebuild"


SLOW_PUBLISH = """
import os, sys, time
real = os.replace
def slow(src, dst, *a, **k):  # the injected delay: between a run's results and its notebook
    real(src, dst, *a, **k)
    if str(dst).endswith(".results.json") and os.environ.get("SLOW_PUBLISH"):
        params = os.path.join(os.path.dirname(str(dst)), "00_mini_chapter.params.json")
        until = time.monotonic() + float(os.environ["SLOW_PUBLISH"])  # or until another run published
        while time.monotonic() < until and not (os.path.exists(params) and '"x": 0.2' in open(params).read()):
            time.sleep(0.2)
os.replace = slow
from anonbook.runner import run_notebook
run_notebook("00_mini_chapter", {"x": float(sys.argv[1])}, force=True, progress=True)
"""


def test_two_runs_of_a_chapter_at_once_publish_one_runs_files(mini_project: Path) -> None:
    """Run x=0.1 with its publish slowed down between the results and the notebook, and x=0.2 started
    while it runs: the published notebook, results and params must be one run's, and that run's key."""
    import json
    import subprocess
    import sys
    import time

    import anonlab

    env = {**os.environ, "PYTHONPATH": str(Path(anonlab.__file__).parents[1])}
    first = subprocess.Popen([sys.executable, "-c", SLOW_PUBLISH, "0.1"], env={**env, "SLOW_PUBLISH": "15"},
                             stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not _run_folders(mini_project) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.5)
    second = subprocess.Popen([sys.executable, "-c", SLOW_PUBLISH, "0.2"], env=env, stderr=subprocess.PIPE,
                              text=True)
    _, err1 = first.communicate(timeout=180)
    _, err2 = second.communicate(timeout=180)
    assert first.returncode == 0 and second.returncode == 0, err1[-2000:] + err2[-2000:]
    book = mini_project / "book"
    params = read_json(book / f"{NB}.params.json")
    recorded = read_json(book / f"{NB}.results.json")["results"]["slides.mini.approx"]["measured"]
    nb = json.loads((book / f"{NB}.ipynb").read_text())
    injected = "".join(next(c["source"] for c in nb["cells"]
                            if "injected-parameters" in c["metadata"].get("tags", [])))
    x = params["parameters"]["x"]
    assert recorded == x and f"x = {x}" in injected, (x, recorded, injected)
    assert "waiting for it to finish" in err2, err2[-1000:]

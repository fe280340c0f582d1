"""The bad-input matrix: every chapter, every class of bad value, refused before any work.

Rows are generated from each chapter's declaration (``anonbook.chapters``), so a
new chapter or parameter adds its rows by being declared: an unknown name, a
wrong type, a value out of range or too large to fit (every size parameter
has a bound), an unknown choice (data set, attribute), an empty list, a
missing user file. Each must be refused by the runner with one message
naming the parameter, before a kernel starts, with nothing written.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from anonbook import chapters
from anonbook.runner import RunError, run_notebook
from anonlab.validation import Param

ROOT = Path(__file__).resolve().parents[1]
DECLARED = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb") if chapters.has_chapter(p.stem))


def _bad_values(p: Param) -> list[tuple[str, Any]]:
    """(class of bad value, value) pairs for one declared parameter."""
    rows: list[tuple[str, Any]] = []
    wrong = {"int": "many", "float": "high", "bool": 1, "str": 3, "choice": object.__name__,
             "int_list": "x", "float_list": "x", "str_list": 5, "path": 7}
    if p.kind in wrong and not (p.kind == "choice" and wrong["choice"] in (p.choices or ())):
        rows.append(("wrong type", wrong[p.kind]))
    scalar = p.kind in ("int", "float")
    listed = p.kind in ("int_list", "float_list")
    if p.high is not None and (scalar or listed):
        big = p.high * 10 + 1 if p.kind.startswith("int") else p.high * 10 + 1.5
        big = int(big) if p.kind.startswith("int") else float(big)
        rows.append(("too large", [big] if listed else big))
    if p.low is not None and (scalar or listed):
        small = p.low - 1
        small = int(small) if p.kind.startswith("int") else float(small)
        rows.append(("out of range", [small] if listed else small))
    if p.kind in ("choice", "str") and p.choices:
        rows.append(("unknown choice", "no-such-choice"))
    if p.kind == "str_list" and p.choices:
        rows.append(("unknown choice", ["no-such-choice"]))
    if p.kind.endswith("_list") and p.min_len >= 1:
        rows.append(("empty list", []))
    if p.kind == "path":
        rows.append(("missing user file", "/no/such/file.csv"))
    return rows


CASES = [pytest.param(name, p.name, cls, value, id=f"{name}-{p.name}-{cls}")
         for name in DECLARED for p in chapters.get(name).parameters.params for cls, value in _bad_values(p)]


def test_every_size_parameter_is_bounded() -> None:
    """A parameter that sets a size (rows, users, iterations, ...) has an upper bound."""
    words = ("rows", "users", "n_", "iterations", "draws", "repetitions", "targets", "members", "blocks",
             "size", "population", "simulations", "samples", "queries", "workers")
    unbounded = [f"{n}.{p.name}" for n in DECLARED for p in chapters.get(n).parameters.params
                 if p.kind in ("int", "int_list") and any(w in p.name for w in words) and p.high is None]
    assert not unbounded, f"size parameters without an upper bound: {unbounded}"


@pytest.mark.parametrize("name", DECLARED)
def test_an_unknown_name_is_refused(name: str, tmp_path: Path) -> None:
    with pytest.raises(RunError, match="unknown parameter.*no_such_parameter"):
        run_notebook(name, {"no_such_parameter": 1}, out_dir=tmp_path, progress=False)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name, param, cls, value", CASES)
def test_a_bad_value_is_refused_early_naming_the_parameter(
    name: str, param: str, cls: str, value: Any, tmp_path: Path
) -> None:
    start = time.perf_counter()
    with pytest.raises(RunError) as info:
        run_notebook(name, {param: value}, out_dir=tmp_path, progress=False)
    assert f"'{param}" in str(info.value), f"{cls}: the message does not name {param!r}: {info.value}"
    assert time.perf_counter() - start < 10, "refused only after work started"
    assert list(tmp_path.iterdir()) == [], "something was written for a refused run"


# --- combinations no single bound refuses ---------------------------------------------------------------


def test_a_run_too_large_for_the_machine_is_refused_naming_what_drives_it() -> None:
    """Every size within its bound, the product not: the estimate of peak memory refuses it in seconds."""
    start = time.perf_counter()
    with pytest.raises(RunError, match=r"04_census_reconstruction would need about [\d.]+ GB at its peak "
                                       r"\(n_blocks = 100000, mean_block_size = 500,.*\); this machine has"):
        run_notebook("04_census_reconstruction", {"n_blocks": 100_000, "mean_block_size": 500, "max_block_size": 5000,
                                                  "trace_people": 1_000_000, "warfarin_patients": 1_000_000},
                     progress=False)
    assert time.perf_counter() - start < 10


def test_the_memory_limit_can_be_set_for_a_smaller_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANONLAB_MEMORY_LIMIT", "200M")
    with pytest.raises(RunError, match="01_syntactic_anonymity would need about .* this machine has 200 MB"):
        run_notebook("01_syntactic_anonymity", {}, progress=False)


def test_a_scheduler_that_is_not_an_address_is_refused_before_the_run() -> None:
    with pytest.raises(RunError, match="parameter 'scheduler' must be a Dask scheduler address"):
        run_notebook("04_census_reconstruction", {"scheduler": "bogus"}, progress=False)


@pytest.mark.parametrize("name, parameters, message", [
    ("05_nonmember_framework", {"bankchurners_path": "FOLDER"}, "'bankchurners_path': .* is not a file"),
    ("05_nonmember_framework", {"bankchurners_path": "BADCSV"}, "'bankchurners_path': .* lacks the column"),
    ("05_nonmember_framework", {"datasets": ["census"], "census_attributes": ["foo", "bar", "baz"],
                                "census_pii": ["foo"]}, "parameter 'census_attributes': unknown value"),
    ("02_dp_vs_definetti", {"dataset": "adult", "internet_path": "BADCSV"},
     "parameter 'internet_path' is read only with dataset 'internet'"),
])
def test_user_files_and_attributes_are_checked_before_the_run(tmp_path: Path, name: str, parameters: dict,
                                                               message: str) -> None:
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("a,b\n1,2\n")
    files = {"FOLDER": str(tmp_path), "BADCSV": str(bad_csv)}
    parameters = {k: files.get(v, v) if isinstance(v, str) else v for k, v in parameters.items()}
    start = time.perf_counter()
    with pytest.raises(RunError, match=message):
        run_notebook(name, parameters, progress=False)
    assert time.perf_counter() - start < 10


# --- values that would exhaust memory or time (issue 37) -----------------------------------------------


def _alias_bomb(levels: int = 9) -> str:
    """The "billion laughs" YAML value: 381 bytes that expand to 10 x 9**levels strings."""
    lines = ["&a0 [lol,lol,lol,lol,lol,lol,lol,lol,lol,lol]"]
    lines += [f"&a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels + 1)]
    return "[" + ", ".join(lines) + "]"


def _cli_under_memory_ceiling(args: list[str], ceiling: int = 3 * 2**30, timeout: float = 60) -> Any:
    """``python -m anonlab ARGS`` in a process whose address space is capped (``resource.setrlimit``)."""
    import os
    import resource
    import subprocess
    import sys

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))

    import anonlab

    env = {**os.environ, "PYTHONPATH": str(Path(anonlab.__file__).parents[1]), "ANONLAB_ROOT": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "anonlab", *args], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=cap, env=env, cwd=ROOT)


@pytest.mark.parametrize("param", ["table", "quasi_identifiers"])
def test_a_yaml_alias_bomb_is_refused_in_a_second_naming_the_parameter(param: str) -> None:
    start = time.perf_counter()
    done = _cli_under_memory_ceiling(["run", "01_syntactic_anonymity", "-p", param, _alias_bomb()])
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"parameter '{param}'" in done.stderr and "alias" in done.stderr
    assert len(done.stderr) < 500 and "Traceback" not in done.stderr
    assert time.perf_counter() - start < 30


def test_a_yaml_alias_bomb_in_a_sweep_grid_is_refused_naming_the_parameter() -> None:
    from anonbook.sweep import parse_grid

    with pytest.raises(RunError, match="parameter 'table': YAML aliases"):
        parse_grid([f"table={_alias_bomb()}"])


@pytest.mark.parametrize("text", ["[" * 2000 + "]" * 2000, "[[[[[[1]]]]]]", "{a: {b: {c: {d: {e: 1}}}}}"])
def test_deeply_nested_values_are_refused_naming_the_parameter(text: str) -> None:
    from anonbook.runner import parse_cli_value

    with pytest.raises(RunError, match="parameter 'quasi_identifiers': the value nests"):
        parse_cli_value(text, "quasi_identifiers")


def test_values_within_the_limits_still_read_as_yaml() -> None:
    from anonbook.runner import parse_cli_value

    assert parse_cli_value("[[2, 3], [4]]", "l_grid") == [[2, 3], [4]]
    assert parse_cli_value("*not_an_alias", "label") == "*not_an_alias"
    assert parse_cli_value("'*quoted'", "label") == "*quoted"


def test_a_value_longer_than_the_limit_is_refused_quoting_only_its_start() -> None:
    from anonbook.cli import main

    for flag in ("-p", "-r"):
        with pytest.raises(RunError, match=r"parameter 'table': the value is 100,001 characters long") as info:
            from anonbook.cli import _parse_params

            _parse_params([["table", "x" * 100_001]] if flag == "-p" else None,
                          [["table", "x" * 100_001]] if flag == "-r" else None)
        assert len(str(info.value)) < 200
    assert main(["run", "01_syntactic_anonymity", "-p", "table", "y" * 100_001]) == 2


@pytest.mark.parametrize("param, value", [
    ("table", "x" * 100_000),
    ("quasi_identifiers", ["age", "x" * 100_000]),
    ("quasi_identifiers", ["y" * 1000] * 1000),
    ("k_target", [[1] * 10_000]),
])
def test_error_messages_quote_a_short_excerpt_of_a_huge_value(param: str, value: Any, tmp_path: Path) -> None:
    with pytest.raises(RunError) as info:
        run_notebook("01_syntactic_anonymity", {param: value}, out_dir=tmp_path, progress=False)
    assert f"'{param}'" in str(info.value)
    assert len(str(info.value)) < 600, f"the message quotes {len(str(info.value)):,} characters"


@pytest.mark.parametrize("limit", ["-1G", "inf", "-inf", "nan", "0", "1e400", "0M", "1e-300", "0.5", "junk", " ", "5X"])
def test_the_memory_limit_must_be_a_positive_finite_size(limit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from anonbook.memory import available_memory

    monkeypatch.setenv("ANONLAB_MEMORY_LIMIT", limit)
    with pytest.raises(ValueError, match="ANONLAB_MEMORY_LIMIT must be a positive size like 2G"):
        available_memory()


def test_a_bad_memory_limit_is_one_line_naming_the_variable(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from anonbook.cli import main

    monkeypatch.setenv("ANONLAB_MEMORY_LIMIT", "-1G")
    assert main(["run", "01_syntactic_anonymity", "--quick"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "ANONLAB_MEMORY_LIMIT" in err and "'-1G'" in err, err


# --- broken records are stale, not up to date (issue 37) -------------------------------------------------

MINI = "00_mini_chapter"


@pytest.mark.parametrize("payload", ["null", "[1, 2]", "{}", '"text"', '{"notebook": "00_mini_chapter"}',
                                     '{"notebook": "00_mini_chapter", "results": {"slides.mini.approx": 3}}'])
def test_a_results_file_that_is_json_but_not_a_record_is_stale(payload: str, mini_project: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from anonbook.cli import main

    run_notebook(MINI, progress=False)
    results = mini_project / "book" / f"{MINI}.results.json"
    results.write_text(payload)
    capsys.readouterr()
    assert main(["claims"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: cannot read the recorded results") and f"{MINI}.results.json" in err, err
    assert "\n" not in err and "Traceback" not in err
    res = run_notebook(MINI, progress=False)
    assert not res.cached, "a broken results.json counted as up to date"
    assert json.loads(results.read_text())["results"]


def test_a_results_file_that_is_a_folder_is_stale_and_named(mini_project: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from anonbook.cli import main

    run_notebook(MINI, progress=False)
    results = mini_project / "book" / f"{MINI}.results.json"
    results.unlink()
    results.mkdir()
    capsys.readouterr()
    assert main(["claims"]) == 2
    err = capsys.readouterr().err.strip()
    assert "a folder" in err and f"{MINI}.results.json" in err and "\n" not in err, err


# --- chapter 7's memory grows with its parameters (issue 37) -------------------------------------------

HUGE_07 = {"dataset": "census_income", "n_members": 149000, "member_fraction": 0.498, "n_shadow_models": 256,
           "n_target_models": 257}


def test_chapter_7s_largest_run_is_refused_under_a_1g_limit_before_it_starts(monkeypatch: pytest.MonkeyPatch,
                                                                              tmp_path: Path) -> None:
    monkeypatch.setenv("ANONLAB_MEMORY_LIMIT", "1G")
    start = time.perf_counter()
    with pytest.raises(RunError, match=r"07_membership_base_rates would need about [\d.]+ GB at its peak "
                                       r"\(dataset = 'census_income', n_members = 149000, .*n_target_models = 257\)"):
        run_notebook("07_membership_base_rates", HUGE_07, out_dir=tmp_path, progress=False)
    assert time.perf_counter() - start < 10
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("knob, larger", [("n_members", 8000), ("member_fraction", 0.1), ("n_shadow_models", 64),
                                          ("n_target_models", 16), ("dataset", "census_income")])
def test_chapter_7s_memory_estimate_grows_with_what_drives_it(knob: str, larger: Any) -> None:
    """Each of the parameters that size the run's arrays raises the estimate (the quick run is measured at
    about 0.3 GB; tests/benchmarks/bench_memory_ch07.py measures larger runs)."""
    spec = chapters.get("07_membership_base_rates")
    base = {"n_members": 4000, "member_fraction": 0.2, "n_shadow_models": 16, "n_target_models": 4}
    small = spec.peak_memory(spec.parameters.validate(base)).bytes
    big = spec.peak_memory(spec.parameters.validate({**base, knob: larger})).bytes
    assert big > small, f"{knob} = {larger!r} does not raise the estimate ({small:.3g} -> {big:.3g} bytes)"


# --- chapter 9's run depends on the peers' environment (issue 37) ----------------------------------------


def test_chapter_9s_run_is_stale_once_the_peers_environment_appears(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from anonbook import peers
    from anonbook.runner import cache_key, resolve_notebook

    src = resolve_notebook("09_one_yardstick")
    spec = chapters.get("09_one_yardstick")
    values, without = spec.parameters.validate({}), spec.parameters.validate({"peers": False})
    exe = tmp_path / "venv" / "bin" / "python"
    monkeypatch.setenv(peers.PEERS_PYTHON_ENV, str(exe))
    missing, missing_without = cache_key(src, values), cache_key(src, without)
    assert peers.environment_state(values) == "peers: missing"
    exe.parent.mkdir(parents=True)
    exe.write_text("")
    assert cache_key(src, values) != missing, \
        "a run made without the peers' environment is still up to date once it appears"
    assert cache_key(src, without) == missing_without, "a run without the peers does not depend on them"
    exe.unlink()
    assert cache_key(src, values) == missing


# --- user files and services checked before any cell (issue 37) --------------------------------------------


def _netflix_cases(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """name -> (netflix_path, what the message says)."""
    import os

    empty = tmp_path / "empty.txt"
    empty.write_text("")
    folder = tmp_path / "empty-folder"
    folder.mkdir()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sparse = tmp_path / "combined_data_1.txt"
    with open(sparse, "wb") as fh:
        fh.truncate(2 << 30)
    shadowish = tmp_path / "shadow"
    shadowish.write_text("root:$6$salt$hash:19000:0:99999:7:::\n")
    return {"empty": (str(empty), "is empty"), "folder": (str(folder), "holds no Netflix Prize rating files"),
            "fifo": (str(fifo), "not a regular file"), "sparse": (str(sparse), "sparse file"),
            "not ratings": (str(shadowish), "MovieID"), "etc shadow": ("/etc/shadow", "")}


@pytest.mark.parametrize("case", ["empty", "folder", "fifo", "sparse", "not ratings", "etc shadow"])
def test_chapter_3s_netflix_path_is_checked_before_any_cell(case: str, tmp_path: Path) -> None:
    path, says = _netflix_cases(tmp_path)[case]
    if case == "etc shadow" and not Path(path).exists():
        pytest.skip("no /etc/shadow on this machine")
    out = tmp_path / "out"
    start = time.perf_counter()
    with pytest.raises(RunError, match=r"parameter 'netflix_path'") as info:
        run_notebook("03_netflix_eccentricity", {"dataset": "netflix-prize", "netflix_path": path},
                     out_dir=out, progress=False)
    assert says in str(info.value)
    assert time.perf_counter() - start < 10, "refused only after work started"
    assert not out.exists() or list(out.iterdir()) == []


def test_chapter_4s_scheduler_is_reached_before_any_cell(tmp_path: Path) -> None:
    start = time.perf_counter()
    with pytest.raises(RunError, match=r"parameter 'scheduler': cannot reach the Dask scheduler at tcp://127.0.0.1:1"):
        run_notebook("04_census_reconstruction", {"scheduler": "tcp://127.0.0.1:1"}, out_dir=tmp_path,
                     progress=False)
    assert time.perf_counter() - start < 15
    assert list(tmp_path.iterdir()) == []


# --- folders and files a run cannot use: one line, before the run (issue 37) ------------------------------


def _cli_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    from anonbook.cli import main

    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    err = [ln for ln in err if not ln.startswith("[anonlab]")]
    assert len(err) == 1 and err[0].startswith("error: ") and "Traceback" not in err[0], err
    return err[0]


def test_out_naming_a_file_is_one_line(mini_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "a-file"
    afile.write_text("x")
    line = _cli_error(["run", MINI, "--out", str(afile)], capsys)
    assert "is a file, not a folder" in line and str(afile) in line
    line = _cli_error(["run", MINI, "--out", str(afile / "below")], capsys)
    assert "cannot create the output folder" in line


def test_a_published_file_that_is_a_folder_is_refused_before_the_run(mini_project: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    target = mini_project / "book" / f"{MINI}.results.json"
    target.mkdir()
    start = time.perf_counter()
    line = _cli_error(["run", MINI], capsys)
    assert "is a folder, where this run publishes a file" in line and str(target) in line
    assert time.perf_counter() - start < 5, "refused only after the run"


def test_a_read_only_output_folder_is_one_line(mini_project: Path, tmp_path: Path) -> None:
    """With real permissions: as root, in a child without the capabilities that override them (setpriv)."""
    import os
    import shutil
    import subprocess
    import sys

    ro = tmp_path / "ro"
    ro.mkdir()
    os.chmod(ro, 0o555)
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("root without setpriv: a read-only folder cannot be tested with real permissions")
        prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner"]
    import anonlab

    env = {**os.environ, "PYTHONPATH": str(Path(anonlab.__file__).parents[1])}
    try:
        done = subprocess.run([*prefix, sys.executable, "-m", "anonlab", "run", MINI, "--out", str(ro)],
                              capture_output=True, text=True, timeout=120, env=env)
    finally:
        os.chmod(ro, 0o755)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert f"the output folder {ro} is not writable" in done.stderr


def test_a_cached_data_member_replaced_by_a_folder_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    fetch_module = importlib.import_module("anonlab.data.fetch")
    monkeypatch.setenv("ANONLAB_DATA_DIR", str(tmp_path / "cache"))
    first = next(iter(fetch_module.load_manifest().datasets))  # fetched first: nothing is downloaded
    member = fetch_module.cached_path(first)
    member.mkdir(parents=True)
    line = _cli_error(["data"], capsys)
    assert "holds a folder" in line and str(member) in line and first in line
    from anonbook.cli import main

    assert main(["data", "--status"]) == 0
    assert first in capsys.readouterr().out


# --- small command-line checks (issue 37) ------------------------------------------------------------------


@pytest.mark.parametrize("jobs", ["0", "-5", "two"])
def test_book_jobs_must_be_a_positive_number(jobs: str, capsys: pytest.CaptureFixture[str]) -> None:
    from anonbook.cli import main

    with pytest.raises(SystemExit) as info:
        main(["book", "--jobs", jobs, "--no-html"])
    assert info.value.code == 2
    assert "--jobs" in capsys.readouterr().err


def test_pins_of_an_unknown_chapter_fail_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    line = _cli_error(["pins", "nope"], capsys)
    assert "unknown chapter(s): 'nope'" in line

"""Sweeps: a grid of runs, in local processes and on a Dask LocalCluster, collected into one table."""

from __future__ import annotations

from pathlib import Path

import pytest

from anonbook.runner import RunError
from anonbook.sweep import grid_points, parse_grid, run_sweep

NB = "00_mini_chapter"


def test_grid_parsing_and_points() -> None:
    grid = parse_grid(["x=0.1,0.2", "label=[1,2],b"])
    assert grid == {"x": [0.1, 0.2], "label": [[1, 2], "b"]}
    assert grid_points({"a": [1, 2], "b": [3]}, {"c": 0}) == [{"c": 0, "a": 1, "b": 3}, {"c": 0, "a": 2, "b": 3}]
    for bad in (["x"], ["x="], ["x=1", "x=2"], []):
        with pytest.raises(RunError):
            parse_grid(bad)


def test_a_bad_point_is_refused_before_any_run(mini_project: Path) -> None:
    with pytest.raises(RunError, match="parameter 'x' must be a number"):
        run_sweep(NB, {"x": [0.1, "high"]}, workers=1, progress=False)
    assert not (mini_project / "_build" / "sweeps" / NB / "sweep.csv").exists()


def test_sweep_in_local_processes(mini_project: Path) -> None:
    res = run_sweep(NB, {"x": [0.45, 0.9]}, workers=2, progress=False)
    t = res.table.set_index("x")
    assert t.loc[0.45, "verdict"] == "reproduced" and t.loc[0.9, "verdict"] == "not reproduced"
    assert (res.folder / "sweep.csv").exists() and (res.folder / "sweep.png").exists()


def test_sweep_on_a_dask_local_cluster(mini_project: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        res = run_sweep(NB, {"x": [0.5, 0.7]}, scheduler=client, progress=False)
    assert sorted(res.table["x"]) == [0.5, 0.7]
    assert set(res.table["claim"]) == {"slides.mini.approx"}


def test_a_grid_too_large_is_refused_at_once_with_its_size(mini_project: Path) -> None:
    import time

    from anonbook.sweep import MAX_POINTS

    start = time.perf_counter()
    with pytest.raises(RunError, match=r"the grid has 1,000,000 points \(1000 x 1000\); a sweep runs at most"):
        run_sweep(NB, {"x": [i / 1000 for i in range(1000)], "label": [str(i) for i in range(1000)]},
                  workers=1, progress=False)
    assert time.perf_counter() - start < 2 and MAX_POINTS < 10**6


@pytest.mark.parametrize("address, message", [
    ("bogus", "must be a Dask scheduler address like tcp://host:8786, got 'bogus'"),
    ("tcp://127.0.0.1:1", "cannot reach the Dask scheduler at tcp://127.0.0.1:1"),
])
def test_an_unreachable_scheduler_is_one_clear_error_before_any_run(mini_project: Path, address, message,
                                                                    monkeypatch) -> None:
    import anonbook.sweep

    monkeypatch.setattr(anonbook.sweep, "SCHEDULER_TIMEOUT", 1.0)  # nothing listens there: no need to wait 10 s
    with pytest.raises(RunError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        run_sweep(NB, {"x": [0.1, 0.2]}, scheduler=address, progress=False)
    assert "\n" not in str(err.value)
    assert not (mini_project / "_build" / "sweeps" / NB / "sweep.csv").exists()


def _run_folders(folder: Path) -> list[Path]:
    return sorted(folder.rglob(".run-*"))


def test_a_killed_sweeps_run_folders_are_removed_at_the_next_start(mini_project: Path) -> None:
    """A SIGKILLed sweep leaves its points' .run-* folders (their pid is gone); the next sweep removes them,
    also those of points it does not run again (issue 37)."""
    folder = mini_project / "_build" / "sweeps" / NB
    stale = folder / "another-point" / f".run-{NB}-killed"
    stale.mkdir(parents=True)
    (stale / "pid").write_text("999999999")
    run_sweep(NB, {"x": [0.45]}, workers=1, progress=False)
    assert _run_folders(folder) == []


def test_a_failed_sweep_stops_its_workers_and_leaves_no_run_folder(mini_project: Path) -> None:
    import time

    folder = mini_project / "_build" / "sweeps" / NB
    start = time.perf_counter()
    with pytest.raises(RunError, match="asked to fail"):
        run_sweep(NB, {"fail": [True, False], "x": [0.1, 0.2, 0.3]}, workers=2, progress=False)
    assert time.perf_counter() - start < 60
    assert _run_folders(folder) == []
    published = sorted(folder.glob(f"*/{NB}.ipynb"))
    assert len(published) < 3, f"the queued points ran on after the failure: {published}"

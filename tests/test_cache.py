"""The result cache: computed once per key, invalidated by parameters, atomic."""

from __future__ import annotations

from pathlib import Path

import pytest

from anonbook import cache


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANONLAB_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ANONLAB_RESULTS_DIR", raising=False)  # the results follow the data cache
    monkeypatch.delenv("ANONLAB_NO_CACHE", raising=False)


def test_a_result_is_computed_once_per_parameters() -> None:
    calls = []

    def compute() -> int:
        calls.append(1)
        return len(calls)

    assert cache.cached("demo", {"a": 1}, compute) == 1
    assert cache.cached("demo", {"a": 1}, compute) == 1
    assert cache.cached("demo", {"a": 2}, compute) == 2
    assert len(calls) == 2


def test_the_key_depends_on_name_parameters_and_library() -> None:
    k = cache.cache_key("demo", {"a": 1})
    assert k != cache.cache_key("demo", {"a": 2})
    assert k != cache.cache_key("other", {"a": 1})
    assert k == cache.cache_key("demo", {"a": 1})
    assert len(cache.library_fingerprint()) == 64


def test_a_failure_stores_nothing() -> None:
    def boom() -> int:
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        cache.cached("demo", {"a": 3}, boom)
    assert not list(cache.results_dir().rglob("*.pkl"))
    assert not list(cache.results_dir().rglob("*.tmp"))


def test_a_damaged_entry_is_recomputed() -> None:
    cache.cached("demo", {"a": 4}, lambda: 1)
    (entry,) = cache.results_dir().rglob("*.pkl")
    entry.write_bytes(b"garbage")
    with pytest.warns(UserWarning, match="does not unpickle"):
        assert cache.cached("demo", {"a": 4}, lambda: 2) == 2


def test_the_cache_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANONLAB_NO_CACHE", "1")
    assert cache.cached("demo", {"a": 5}, lambda: 1) == 1
    assert cache.cached("demo", {"a": 5}, lambda: 2) == 2


def test_bad_names_are_refused() -> None:
    with pytest.raises(ValueError, match="simple name"):
        cache.cached("a/b", {}, lambda: 1)


# --- an entry is trusted only when it is what was stored (issue 37) ----------------------------------------

import pickle  # noqa: E402


def _replace_entry(content: bytes) -> Path:
    cache.cached("demo", {"a": 6}, lambda: {"rows": 3})
    (entry,) = cache.results_dir().rglob("*.pkl")
    entry.write_bytes(content)
    return entry


@pytest.mark.parametrize("content, why", [
    (b"cno_such_module_for_the_cache\nThing\n(tR.", "ModuleNotFoundError"),  # a class that no longer exists
    (pickle.dumps([1, 2]), "not an entry of this cache"),
    (pickle.dumps({cache.ENVELOPE: 1, "key": "another key", "type": "builtins.dict", "result": {"rows": 9}}),
     "not an entry of this cache"),
])
def test_an_entry_that_does_not_unpickle_to_what_was_stored_is_discarded_naming_it(content: bytes, why: str) -> None:
    entry = _replace_entry(content)
    with pytest.warns(UserWarning) as caught:
        assert cache.cached("demo", {"a": 6}, lambda: {"rows": 4}) == {"rows": 4}
    (message,) = [str(w.message) for w in caught]
    assert str(entry) in message and why in message and "\n" not in message, message
    assert cache.cached("demo", {"a": 6}, lambda: {"rows": 5}) == {"rows": 4}, "the recomputed result is kept"


def test_an_entry_of_another_type_than_stored_or_expected_is_discarded() -> None:
    cache.cached("demo", {"a": 7}, lambda: {"rows": 3})
    (entry,) = cache.results_dir().rglob("*.pkl")
    stored = pickle.loads(entry.read_bytes())
    entry.write_bytes(pickle.dumps({**stored, "result": [3]}))
    with pytest.warns(UserWarning, match="holds a builtins.list, stored as a builtins.dict"):
        assert cache.cached("demo", {"a": 7}, lambda: {"rows": 4}) == {"rows": 4}
    with pytest.warns(UserWarning, match="not the"):
        assert cache.cached("demo", {"a": 7}, lambda: [4], expect=list) == [4]


def test_a_full_result_cache_is_said_in_each_runs_log(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """In a chapter's kernel (the runner sets ANONLAB_OUTPUT_DIR), the warning is a line on stderr, which the
    runner moves to the run's log; a shared kernel's next run says it again in its own log."""
    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache, "atomic_write", full)
    for run in ("one", "two"):
        monkeypatch.setenv("ANONLAB_OUTPUT_DIR", str(tmp_path / run))
        assert cache.cached("full", {"run": run}, lambda: 1) == 1
        assert cache.cached("full", {"run": run, "again": 1}, lambda: 2) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "No space left on device" in err[0] and "not kept" in err[0], err

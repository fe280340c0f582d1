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
    assert cache.cached("demo", {"a": 4}, lambda: 2) == 2


def test_the_cache_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANONLAB_NO_CACHE", "1")
    assert cache.cached("demo", {"a": 5}, lambda: 1) == 1
    assert cache.cached("demo", {"a": 5}, lambda: 2) == 2


def test_bad_names_are_refused() -> None:
    with pytest.raises(ValueError, match="simple name"):
        cache.cached("a/b", {}, lambda: 1)

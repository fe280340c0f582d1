"""anonlab.audit: bad input fails early naming file and column; the report's numbers are the protocol's."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonlab import audit as au
from anonlab.attacks import release as atk
from anonlab.intervals import wilson_interval, z_critical
from anonlab.measures import precision_improvement, roc_to_precision_recall
from anonlab.measures.rates import baseline_precision_at_skew
from anonlab.mechanisms.synthesis import marginal_synthesize

JOBS = ["a", "b", "c", "d"]
FLIPPED = (0, 4, 8, 12, 16)


def hand_members() -> pd.DataFrame:
    """20 members: job a-d in turn, ages 20..39 (so every row is unique on job and age), s = yes where i % 5 < 2."""
    i = np.arange(20)
    return pd.DataFrame({"job": [JOBS[k % 4] for k in i], "age": 20 + i,
                         "s": np.where(i % 5 < 2, "yes", "no")})


def hand_release() -> pd.DataFrame:
    """The members with s flipped in rows 0, 4, 8, 12, 16."""
    r = hand_members()
    r.loc[list(FLIPPED), "s"] = np.where(r.loc[list(FLIPPED), "s"] == "yes", "no", "yes")
    return r


def hand_non_members() -> pd.DataFrame:
    """100 people the release never saw: ages 60..159 (no member's), s always "no"."""
    j = np.arange(100)
    return pd.DataFrame({"job": [JOBS[k % 4] for k in j], "age": 60 + j, "s": "no"})


def write(tmp: Path, **tables: pd.DataFrame) -> dict[str, Path]:
    out = {}
    for role, df in tables.items():
        out[role] = tmp / f"{role}.csv"
        df.to_csv(out[role], index=False)
    return out


@pytest.fixture
def no_attack(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attack that runs fails the test: bad input must be refused before."""
    def boom(*a, **k):
        raise AssertionError("an attack ran before the input was checked")
    for name in ("nearest_row_attack", "release_model_attack", "nonmember_model", "singling_out_attack",
                 "homogeneity_release_attack", "closest_record_membership", "gower_nearest"):
        monkeypatch.setattr(atk, name, boom)


def _audit_files(tmp: Path, secrets=("s",), known=None, **change: pd.DataFrame) -> None:
    tables = {"members": hand_members(), "release": hand_release(), "non_members": hand_non_members(), **change}
    p = write(tmp, **tables)
    au.audit(p["members"], p["release"], p["non_members"], list(secrets), known)


# ---------------------------------------------------------------------------
# bad input: one clear error, before any attack, naming the file and the column
# ---------------------------------------------------------------------------

def test_a_file_that_is_not_a_table(tmp_path: Path, no_attack: None) -> None:
    p = write(tmp_path, members=hand_members(), non_members=hand_non_members())
    (tmp_path / "release.csv").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    with pytest.raises(au.AuditInputError, match=r"release\.csv is not a table") as e:
        au.audit(p["members"], tmp_path / "release.csv", p["non_members"], ["s"])
    assert e.value.file == "release.csv"
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(au.AuditInputError, match=r"empty\.csv is not a table"):
        au.audit(p["members"], tmp_path / "empty.csv", p["non_members"], ["s"])
    with pytest.raises(au.AuditInputError, match=r"nowhere\.csv: no such file"):
        au.audit(tmp_path / "nowhere.csv", p["members"], p["non_members"], ["s"])


def test_columns_that_differ(tmp_path: Path, no_attack: None) -> None:
    with pytest.raises(au.AuditInputError, match=r"release\.csv lacks 'age'") as e:
        _audit_files(tmp_path, release=hand_release().drop(columns="age"))
    assert (e.value.file, e.value.column) == ("release.csv", "age")
    with pytest.raises(au.AuditInputError, match=r"non_members\.csv has 'zip', which members\.csv lacks"):
        _audit_files(tmp_path, non_members=hand_non_members().assign(zip="15213"))


@pytest.mark.parametrize("secrets, known, pattern, column", [
    (["salary"], None, r"secret 'salary' is not a column of members\.csv", "salary"),
    (["s"], ["job", "height"], r"known column 'height' is not a column of members\.csv", "height"),
    (["s"], ["job", "s"], r"secret 's' is among the known columns", "s"),
])
def test_missing_or_known_secret(tmp_path: Path, no_attack: None, secrets, known, pattern, column) -> None:
    with pytest.raises(au.AuditInputError, match=pattern) as e:
        _audit_files(tmp_path, secrets=secrets, known=known)
    assert e.value.column == column


def test_empty_or_constant_secret(tmp_path: Path, no_attack: None) -> None:
    with pytest.raises(au.AuditInputError, match=r"secret 's' of members\.csv is empty") as e:
        _audit_files(tmp_path, members=hand_members().assign(s=np.nan))
    assert (e.value.file, e.value.column) == ("members.csv", "s")
    with pytest.raises(au.AuditInputError, match=r"secret 's' of members\.csv is constant \('no'"):
        _audit_files(tmp_path, members=hand_members().assign(s="no"))


def test_too_few_non_members_says_how_many(tmp_path: Path, no_attack: None) -> None:
    # the Wilson interval is widest at p = 1/2: half-width z / (1 + z²/n) · sqrt(1/(4n) + z²/(4n²)) ≤ 0.1
    z = z_critical(0.95)
    half = lambda n: z / (1 + z * z / n) * math.sqrt(0.25 / n + z * z / (4 * n * n))  # noqa: E731
    need = next(n for n in range(1, 10_000) if half(n) <= 0.1)
    assert half(need - 1) > 0.1 >= half(need)
    with pytest.raises(au.AuditInputError, match=rf"non_members\.csv has {need - 1} rows; .* at least {need}"):
        _audit_files(tmp_path, non_members=hand_non_members().iloc[:need - 1])
    au.check_inputs(hand_members(), hand_release(), hand_non_members().iloc[:need], ["s"])  # enough


def test_unparseable_types(tmp_path: Path, no_attack: None) -> None:
    bad = hand_non_members().astype({"age": object})
    bad.loc[17, "age"] = "sixty"
    with pytest.raises(au.AuditInputError, match=r"column 'age' of non_members\.csv: value 'sixty' \(row 17\)") as e:
        _audit_files(tmp_path, non_members=bad)
    assert (e.value.file, e.value.column) == ("non_members.csv", "age")
    with pytest.raises(au.AuditInputError, match=r"column 'age' is numeric in members\.csv but text in "
                                                 r"non_members\.csv"):
        _audit_files(tmp_path, non_members=hand_non_members().assign(age="old"))


def test_a_generalized_release_is_not_a_type_error(tmp_path: Path) -> None:
    rel = hand_release().astype({"age": object})
    rel["age"] = np.where(hand_members()["age"] < 30, "[20, 30)", "[30, 40)")
    m, r, n = au.check_inputs(hand_members(), rel, hand_non_members(), ["s"])
    assert au.generalized_columns(m, r) == ["age"]


# ---------------------------------------------------------------------------
# the hand-worked 20-row example
# ---------------------------------------------------------------------------

def _reference_dcr(release: pd.DataFrame, targets: pd.DataFrame) -> np.ndarray:
    """Distance to the closest release record, by a plain loop: (|Δage| / range + [job ≠] + [s ≠]) / 3."""
    ages = list(release["age"]) + list(targets["age"])
    span = max(ages) - min(ages)
    out = []
    for _, t in targets.iterrows():
        out.append(min((abs(t.age - r.age) / span + (t.job != r.job) + (t.s != r.s)) / 3
                       for _, r in release.iterrows()))
    return np.array(out)


def test_the_report_is_the_protocol_on_a_hand_worked_example() -> None:
    m, r, n = hand_members(), hand_release(), hand_non_members()
    res = au.audit(m, r, n, ["s"], n_targets=100, seed=0)  # 100 ≥ 20 members: every member is a target
    # Nearest release row on (job, age): each member's own row (distance 0, every row unique), whose s was
    # flipped in rows 0, 4, 8, 12, 16: 15 of 20 right.
    near = res.row("nearest release row", "s")
    assert (near["targets"], near["predictions"], near["precision"], near["coverage"]) == (20, 20, 0.75, 1.0)
    low, high = wilson_interval(15, 20)
    assert (near["precision_low"], near["precision_high"]) == pytest.approx((low, high))
    # The non-members' s is always "no": the non-member model guesses "no", right for the 12 members whose s
    # is "no" (i % 5 in 2, 3, 4): 12 / 20 = 0.6; PI = (0.75 - 0.6) / (1 - 0.6) = 0.375 (Eq 6).
    assert near["baseline_precision"] == pytest.approx(0.6)
    assert near["pi"] == pytest.approx(0.375)
    assert (near["pi_low"], near["pi_high"]) == pytest.approx(
        (precision_improvement(low, 0.6), precision_improvement(high, 0.6)))
    base = res.row("non-member model", "s")
    assert (base["precision"], base["pi"]) == (pytest.approx(0.6), 0.0)
    # Singling out: the 20 release rows (all unique) as predicates on (job, age, s); the 15 not flipped match
    # exactly their member, the 5 flipped none: 15 / 20. No non-member shares a member's age: baseline 0.
    so = res.row("singling out", "(any)")
    assert (so["targets"], so["precision"], so["baseline_precision"], so["pi"]) == (20, 0.75, 0.0, 0.75)
    # Membership: a target is called a member when its distance to the closest release record is below the
    # smallest of the 100 non-members' (their 1 % quantile, "lower"; 4 of them tie at (24 / 139) / 3: ages 60-63
    # against 36-39 of the same job, over the age range 20..159); precision at skew k = TPR / (TPR + k FPR).
    d_mem, d_non = _reference_dcr(r, m), _reference_dcr(r, n)
    tau = d_non.min()
    assert tau == pytest.approx(24 / 139 / 3) and np.sum(np.isclose(d_non, tau)) == 4
    tpr, fpr = np.mean(d_mem < tau - 1e-12), np.mean(d_non < tau - 1e-12)
    # the 15 members whose row is in the release as it is (distance 0); the 5 flipped are (4 / 19) / 3 away
    # from the same job's next row, above tau; no non-member is below its own minimum
    assert (tpr, fpr) == (0.75, 0.0)
    for k, label in ((1, "1:1"), (30, "1:30"), (240, "1:240")):
        row = res.row(f"closest release record (membership), {label}", "membership")
        prec, _ = roc_to_precision_recall(tpr, fpr, k)
        assert row["precision"] == pytest.approx(prec)
        assert row["baseline_precision"] == pytest.approx(baseline_precision_at_skew(k))
        assert row["pi"] == pytest.approx(precision_improvement(prec, baseline_precision_at_skew(k)))
    # Nothing here is a generalized extract: homogeneity is listed with its reason, not run.
    assert "not a generalized extract" in res.not_applicable.set_index("attack").loc["homogeneity", "reason"]


def test_csv_inputs_give_the_same_report(tmp_path: Path) -> None:
    p = write(tmp_path, members=hand_members(), release=hand_release(), non_members=hand_non_members())
    a = au.audit(p["members"], p["release"], p["non_members"], ["s"], n_targets=100)
    b = au.audit(hand_members(), hand_release(), hand_non_members(), ["s"], n_targets=100)
    pd.testing.assert_frame_equal(a.table, b.table)


def test_a_verbatim_copy_scores_precision_one_cleanly() -> None:
    m = hand_members()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = au.audit(m, m, hand_non_members(), ["s"], n_targets=100)
    near = res.row("nearest release row", "s")
    assert near["precision"] == 1.0 and near["pi"] == pytest.approx(1.0)  # (1 - 0.6) / (1 - 0.6)
    assert res.row("singling out", "(any)")["precision"] == 1.0
    assert res.row("closest release record (membership), 1:1", "membership")["precision"] == 1.0


# ---------------------------------------------------------------------------
# an independent-marginals release teaches nothing beyond the non-members
# ---------------------------------------------------------------------------

def population(n: int, seed: int) -> pd.DataFrame:
    """People whose secret follows their job (80 %); age, town and weight are noise (weight makes rows unique)."""
    rng = np.random.default_rng(seed)
    job = rng.choice(JOBS, n)
    s = np.where(rng.random(n) < 0.8, np.where(np.isin(job, ["a", "b"]), "yes", "no"), rng.choice(["yes", "no"], n))
    return pd.DataFrame({"job": job, "age": rng.integers(18, 90, n), "town": rng.choice(list("pqrstu"), n),
                         "weight": rng.normal(70, 12, n).round(3), "s": s})


def test_an_independent_marginals_release_learns_nothing_beyond_the_baseline() -> None:
    m, n = population(3000, 1), population(3000, 2)
    res = au.audit(m, marginal_synthesize(m, seed=3), n, ["s", "job"], n_targets=600, seed=0)
    rows = res.table[res.table["attack"] != "non-member model"]
    assert len(rows) >= 4
    # no attack's PI is above 0 beyond its interval, and none is more than 0.1 above 0 at all
    assert (rows["pi"] < 0.1).all(), rows[["attack", "secret", "pi"]]
    inference = rows[rows["secret"].isin(["s", "job"]) & (rows["attack"] != "singling out")]
    assert (inference["pi_low"] <= 0).all(), inference[["attack", "secret", "pi_low"]]
    member = rows[rows["secret"] == "membership"]
    # membership: a handful of calls at FPR ≤ 1 %; their precision's interval holds the base rate (PI 0)
    assert ((member["precision_low"] <= member["baseline_precision"])
            & (member["baseline_precision"] <= member["precision_high"])).all(), member
    # the same population published as it is: the nearest row learns far beyond the baseline
    copy = au.audit(m, m, n, ["s"], n_targets=600, seed=0).row("nearest release row", "s")
    assert copy["pi_low"] > 0.5


def test_the_command_line_writes_the_report_and_says_where(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    import json

    from anonbook.cli import main

    p = write(tmp_path, members=hand_members(), release=hand_release(), non_members=hand_non_members())
    out = tmp_path / "report" / "audit.json"
    args = ["audit", "--members", str(p["members"]), "--release", str(p["release"]), "--non-members",
            str(p["non_members"]), "--secret", "s", "--known", "job,age", "--targets", "100", "--json", str(out)]
    assert main(args) == 0
    assert f"report: {out}" in capsys.readouterr().out
    rows = {(r["attack"], r["secret"]): r for r in json.loads(out.read_text())["releases"]["release.csv"]["attacks"]}
    assert rows[("nearest release row", "s")]["precision"] == 0.75  # 15 of 20, as worked out above
    assert main(args[:-4] + ["--secret", "salary", "--json", str(out)]) == 2
    assert "secret 'salary' is not a column of members.csv" in capsys.readouterr().err


@pytest.mark.notebook
@pytest.mark.slow
def test_the_command_line_with_html_runs_the_chapter_and_writes_its_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture) -> None:
    """``audit --html DIR`` runs chapter 10 through the runner on the files, in a throw-away copy of the project,
    and writes the page (with the verdict in words) and the report (the protocol's numbers) into DIR."""
    import json
    import shutil

    from anonbook.cli import main

    root = Path(__file__).resolve().parents[1]
    project = tmp_path / "project"
    for rel in ("notebooks/10_audit_your_release.ipynb", "data/claims.yaml", "data/manifest.yaml", "_config.yml",
                "_toc.yml", "book/references.bib"):
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(root / rel, project / rel)
    shutil.copytree(root / "book" / "_static", project / "book" / "_static")
    monkeypatch.setenv("ANONLAB_ROOT", str(project))
    monkeypatch.setenv("ANONLAB_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.delenv("ANONLAB_OUTPUT_DIR", raising=False)
    p = write(tmp_path, members=hand_members(), release=hand_release(), non_members=hand_non_members())
    out = tmp_path / "page"
    args = ["audit", "--members", str(p["members"]), "--release", str(p["release"]), "--non-members",
            str(p["non_members"]), "--secret", "s", "--known", "job,age", "--targets", "20", "--html", str(out)]
    assert main(args) == 0
    said = capsys.readouterr().out
    page = out / "10_audit_your_release.html"
    assert f"page: {page}" in said and f"report: {out / 'report.json'}" in said
    text = page.read_text(encoding="utf-8")
    assert "release.csv" in text and "beyond what the non-members already tell" in text
    rows = {(r["attack"], r["secret"]): r for r in json.loads((out / "report.json").read_text())["releases"]
            ["release.csv"]["attacks"]}
    assert rows[("nearest release row", "s")]["precision"] == 0.75  # 15 of 20, as worked out above
    # a bad input fails before any kernel starts, with the audit's message
    assert main(args[:-2] + ["--secret", "salary", "--html", str(out)]) == 2
    assert "secret 'salary' is not a column of members.csv" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# memory: estimated from the inputs and checked before any attack runs
# ---------------------------------------------------------------------------

def test_the_memory_estimate_grows_with_rows_and_text_values() -> None:
    m, n = hand_members(), hand_non_members()
    small = au.estimate_memory(m, hand_release(), n)
    big = pd.concat([hand_release()] * 50, ignore_index=True)
    assert au.estimate_memory(m, big, n) > small
    ids = hand_release().assign(job=[f"person {i}" for i in range(20)])  # a text column of distinct values
    assert au.estimate_memory(m, ids, n) > small


def test_an_audit_too_large_for_the_machine_fails_early(tmp_path: Path, no_attack: None,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture) -> None:
    """With 1 MB available the command line refuses the audit before any attack, naming the estimate, what
    drives it and what the machine has."""
    from anonbook.auditing import audit_memory
    from anonbook.cli import main
    from anonbook.memory import MEMORY_LIMIT_ENV

    p = write(tmp_path, members=hand_members(), release=hand_release(), non_members=hand_non_members())
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "1M")
    args = ["audit", "--members", str(p["members"]), "--release", str(p["release"]), "--non-members",
            str(p["non_members"]), "--secret", "s", "--targets", "100", "--json", str(tmp_path / "r.json")]
    assert main(args) == 2
    err = capsys.readouterr().err
    est = audit_memory(hand_members(), hand_release(), hand_non_members(), 100)
    assert f"the audit of release.csv would need about {est} at its peak" in err, err
    assert "rows of release.csv = 20" in err and "this machine has 1 MB available" in err, err
    assert not (tmp_path / "r.json").exists()


# ---------------------------------------------------------------------------
# chapter 10's peers: the same targets for Anonymeter and the ALC, or plainly why not
# ---------------------------------------------------------------------------

class _Run:
    """The part of a chapter run that :func:`peer_runs` uses: its parameters and a cache that computes."""

    def __init__(self, p: dict) -> None:
        self.p = p

    def cached(self, step, compute, **key):
        return compute()


def _file_params(tmp: Path, **extra) -> dict:
    from anonbook.chapters import ch10_audit_your_release as ch10

    p = write(tmp, members=hand_members(), release=hand_release(), non_members=hand_non_members())
    return ch10.CHAPTER.parameters.validate({**{k: str(v) for k, v in p.items()}, "secrets": ["s"],
                                            "known": ["job", "age"], "n_targets": 20, **extra})


def test_the_peers_attack_the_audits_own_targets_with_non_members_as_control(tmp_path: Path) -> None:
    """Members and non-members read from files share row numbers (0, 1, ...): the peers' inputs keep them
    apart, and their targets, baseline and the book's attack are the audit's."""
    from anonbook.chapters import ch10_audit_your_release as ch10

    p = _file_params(tmp_path)
    results = ch10.audit_releases(p)
    inputs, why = ch10.peer_inputs(p, results)
    assert why == ""
    nearest, base = results["release.csv"].results[(au.NEAREST, "s")]
    assert len(inputs.targets) == len(inputs.control) == 20
    assert list(inputs.targets["s"]) == list(hand_members().loc[nearest.targets, "s"])
    assert not inputs.targets.index.isin(inputs.control.index).any()
    assert list(inputs.baseline_on_targets.targets) == list(inputs.targets.index)
    assert (inputs.scored["nearest release row"][0].prediction == nearest.prediction).all()
    assert inputs.aux == ("job", "age") and inputs.secret == "s"


def test_a_missing_peers_environment_is_said_on_the_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from anonbook import peers
    from anonbook.chapters import ch10_audit_your_release as ch10

    p = _file_params(tmp_path)
    results = ch10.audit_releases(p)
    monkeypatch.delenv(peers.PEERS_PYTHON_ENV, raising=False)
    monkeypatch.setattr(peers, "peers_python", lambda: None)
    inputs, numbers, why = ch10.peer_runs(_Run(p), results)
    assert numbers == {} and "the peers' environment is missing" in why
    said = ch10.peer_sentence(None, why, "release.csv")
    assert said.startswith("Anonymeter and the ALC package were not run on this page: the peers' environment")
    off = ch10.peer_runs(_Run({**p, "peers": False}), results)
    assert off[1] == {} and "peers = False" in off[2]


# ---------------------------------------------------------------------------
# the attacks' target loop on an executor: the same numbers, and on a Dask cluster
# ---------------------------------------------------------------------------

def _population(n: int, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"job": rng.choice(JOBS, n), "age": rng.integers(20, 70, n),
                       "city": rng.choice(list("pqrst"), n)})
    df["s"] = np.where((df["job"] == "a") | (df["age"] > 60), "yes", "no")
    return df


def test_the_target_loop_on_an_executor_gives_the_same_numbers() -> None:
    people = _population(1400)
    m, n = people[:700], people[700:].reset_index(drop=True)
    r = m.sample(frac=1.0, random_state=2).reset_index(drop=True)  # the members shuffled: many ties
    calls: list[int] = []

    def mapper(fn, chunks):
        chunks = list(chunks)
        calls.append(len(chunks))
        return [fn(c) for c in chunks]

    here = au.audit(m, r, n, ["s"], n_targets=600, seed=0)
    there = au.audit(m, r, n, ["s"], n_targets=600, seed=0, mapper=mapper)
    assert calls and max(calls) == math.ceil(600 / atk.CHUNK)  # the targets went through the executor in chunks
    pd.testing.assert_frame_equal(here.table, there.table)
    pd.testing.assert_frame_equal(here.membership, there.membership)


@pytest.mark.slow
def test_the_command_line_runs_the_target_loop_on_a_local_dask_cluster(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture) -> None:
    import json

    from distributed import Client, LocalCluster

    from anonbook.cli import main

    people = _population(1400)
    p = write(tmp_path, members=people[:700], release=people[:700].sample(frac=1.0, random_state=2),
              non_members=people[700:])
    base = ["audit", "--members", str(p["members"]), "--release", str(p["release"]), "--non-members",
            str(p["non_members"]), "--secret", "s", "--targets", "600"]
    assert main(base + ["--json", str(tmp_path / "here.json")]) == 0
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        assert main(base + ["--json", str(tmp_path / "there.json"), "--scheduler", cluster.scheduler_address]) == 0
        ran = client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.task_prefixes))
    assert "nearest" in ran, ran  # the distances ran as tasks on the cluster
    here, there = (json.loads((tmp_path / f).read_text())["releases"]["release.csv"]
                   for f in ("here.json", "there.json"))
    assert here["attacks"] == there["attacks"] and here["membership"] == there["membership"]
    assert main(base + ["--scheduler", cluster.scheduler_address, "--html", str(tmp_path / "page")]) == 2
    assert "give one of them" in capsys.readouterr().err

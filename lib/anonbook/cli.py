"""Command line: ``python -m anonlab {run,book,sweep,audit,data,claims,pins,parameters}``.

Examples
--------
Rerun one chapter with new parameters (a run that is not the default lands in
``book/runs/<chapter>/<run>/``, beside the published one; ``--html`` renders its
page, ``--publish`` makes it the published run)::

    python -m anonlab run 01_syntactic_anonymity -p table adult -p k_target 5 --html

Build the whole book (every chapter, then the instructor edition's HTML under
``_build/html`` and the student edition's under ``_build/student/html``)::

    python -m anonlab book

Audit your own release with every attack of the book, against the non-member baseline (``--html DIR`` runs
chapter 10 on the files and writes its page there; without it, the tables are printed and a JSON report
written)::

    python -m anonlab audit --members M.csv --release R.csv --non-members N.csv --secret S --html DIR
    python -m anonlab audit --members M.csv --release R.csv --non-members N.csv --secret S --scheduler tcp://host:8786
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def _parse_params(pairs: list[list[str]] | None, raw: list[list[str]] | None) -> dict[str, Any]:
    from anonbook.runner import check_cli_text, parse_cli_value

    out: dict[str, Any] = {}
    for name, value in pairs or []:
        out[name] = parse_cli_value(value, name)
    for name, value in raw or []:
        out[name] = check_cli_text(name, value)
    return out


def _positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (``--jobs 0`` and ``--jobs -5`` are refused)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _known_chapters(names: list[str], known: list[str]) -> list[str]:
    """``names`` if each is a chapter of the book, else one error naming the unknown ones."""
    from anonbook.runner import RunError

    unknown = [n for n in names if n not in known]
    if unknown:
        raise RunError(f"unknown chapter(s): {', '.join(repr(n[:80]) for n in unknown[:5])}; the book's chapters "
                       f"are {', '.join(known)}")
    return names


def _warn_other_checkout() -> None:
    """Say so when the working directory is another checkout than the one this run reads and writes."""
    from anonlab import paths

    other = paths.other_checkout()
    if other is not None:
        print(f"[anonlab] note: you are in the checkout {other}, but this run reads and writes "
              f"{paths.project_root()} (where the library is imported from); to run the other one, "
              f"set ANONLAB_ROOT={other} and PYTHONPATH={other / 'lib'}", file=sys.stderr)


def _audit_page(args: argparse.Namespace, known: list[str] | None) -> tuple[Path, Path]:
    """``audit --html DIR``: chapter 10 run by the chapter runner on the given inputs (papermill, as ``run``
    does), its page rendered on its own and copied into DIR, and the JSON report of the same audit (read back
    from the run's result cache, not computed twice). Returns (page, report)."""
    import shutil

    from anonbook.auditing import DEFAULTS, write_report
    from anonbook.chapters import ch10_audit_your_release as ch10, kit
    from anonbook.rerun import render_page, run_chapter

    given = [args.members, args.release, args.non_members]
    if any(given) and not all(given):
        raise ValueError("give --members, --release and --non-members together (or none, for the defaults)")
    if all(given) and not args.secret:
        raise ValueError("name the secret column(s) with --secret")
    params: dict[str, Any] = {"n_targets": args.targets, "seed": args.seed}
    for name, value in zip(ch10.FILES, given):
        if value:
            params[name] = str(Path(value).resolve())
    if args.secret and list(args.secret) != list(DEFAULTS["secrets"]):
        params["secrets"] = list(args.secret)
    if known:
        params["known"] = list(known)
    params = {k: v for k, v in params.items() if v != ch10.CHAPTER.parameters.defaults().get(k)}
    from anonlab.audit import check_inputs

    if all(given):  # bad input fails here, with the audit's one message, before a kernel starts
        check_inputs(*(params[k] for k in ch10.FILES), list(args.secret), known)
    notebook = run_chapter(ch10.NAME, params)
    out = Path(args.html)
    rendered = render_page(notebook)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(rendered.parent, out, dirs_exist_ok=True)
    run = kit.ChapterRun(ch10.CHAPTER, ch10.CHAPTER.parameters.validate(params))
    report = write_report(ch10.cached_audits(run), args.json or out / "report.json")
    return out / rendered.name, report


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m anonlab", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="execute one notebook with papermill: the default run into book/, any other "
                                      "beside it in book/runs/<chapter>/<run>/")
    run.add_argument("notebook", help="name (01_syntactic_anonymity) or path of a notebook in notebooks/")
    run.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"),
                     help="a parameter; VALUE is read as YAML: 5, 0.1, true, [0.1, 1.0], adult")
    run.add_argument("-r", "--raw", nargs=2, action="append", metavar=("NAME", "VALUE"),
                     help="a parameter passed as a raw string")
    run.add_argument("--out", default=None,
                     help="output folder (default: book/ for the default run or with --publish, else "
                          "book/runs/<chapter>/<run>/)")
    run.add_argument("--publish", action="store_true",
                     help="make this run the published one (book/), even if it is not the default; the chapters "
                          "that read it (chapter 9) are rerun")
    run.add_argument("--html", action="store_true", help="render this run's chapter page on its own and print where")
    run.add_argument("--force", action="store_true", help="run even if the published copy is up to date")
    run.add_argument("--list-parameters", action="store_true",
                     help="show the chapter's parameters (default, allowed values, meaning) and exit")
    run.add_argument("--quick", action="store_true",
                     help="the chapter's fast preset (classroom and test settings); -p values override it")

    book = sub.add_parser("book", help="run every chapter in _toc.yml order, then build the HTML book")
    book.add_argument("--force", action="store_true", help="rerun notebooks even if up to date")
    book.add_argument("--only", nargs="*", help="run only these chapters (the rest are built as they are)")
    book.add_argument("--no-run", action="store_true", help="only regenerate the verdict pages and build")
    book.add_argument("--jobs", "-j", type=_positive_int, default=None,
                      help="runs at a time (default: one per core; 1 runs them one after another)")
    book.add_argument("--fresh-kernels", action="store_true",
                      help="start a kernel for every exercise run instead of one per chapter")
    book.add_argument("--no-html", action="store_true", help="stop after the runs (no HTML, no browser check)")
    book.add_argument("--edition", choices=("both", "instructor", "student"), default="both",
                      help="which edition to build: the instructor's (solutions, grading notes: _build/html), "
                           "the student's (questions only: _build/student/html) or both (default)")

    sweep = sub.add_parser("sweep", help="run a chapter over a parameter grid in parallel; one table + figure")
    sweep.add_argument("notebook", help="chapter name, e.g. 02_dp_vs_definetti")
    sweep.add_argument("--grid", action="append", metavar="NAME=V1,V2", required=True,
                       help="a parameter and its values (read like -p); every combination runs")
    sweep.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"),
                       help="a parameter fixed for all points")
    sweep.add_argument("--quick", action="store_true", help="start from the chapter's quick preset")
    sweep.add_argument("--workers", type=_positive_int, default=2, help="local worker processes (default 2)")
    sweep.add_argument("--scheduler", default=None, help="a Dask scheduler address: run the points there")
    sweep.add_argument("--force", action="store_true", help="rerun points that are up to date")

    data = sub.add_parser("data", help="fetch every data set into the cache and show its status")
    data.add_argument("--status", action="store_true", help="only show what is cached")

    sub.add_parser("claims", help="print the verdict counts of the recorded results")
    pins = sub.add_parser("pins", help="compare the recorded default runs' verdicts with tests/verdicts/default/"
                                        " (or --write them)")
    pins.add_argument("chapters", nargs="*", help="chapter names (default: every chapter in the book)")
    pins.add_argument("--write", action="store_true", help="accept the recorded default-run verdicts as the pins")

    aud = sub.add_parser("audit", help="audit a table release: every attack of the book that applies, against the "
                                       "non-member baseline (no files: the three default releases of Adult)")
    aud.add_argument("--members", help="CSV of the records the release was made from")
    aud.add_argument("--release", help="CSV of the published table (synthetic rows or a generalized extract)")
    aud.add_argument("--non-members", dest="non_members", help="CSV of people of the same population the release "
                                                               "never saw")
    aud.add_argument("--secret", action="append", default=[], help="a column the attacker wants (repeatable)")
    aud.add_argument("--known", default=None, help="comma-separated columns the attacker knows (default: all others)")
    aud.add_argument("--targets", type=_positive_int, default=1000, help="members attacked (default 1000)")
    aud.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    aud.add_argument("--json", default=None, help="where to write the report (default: book/runs/audit/report.json, "
                                                 "with --html DIR/report.json)")
    aud.add_argument("--scheduler", default=None, help="a Dask scheduler address: run the attacks' target loop "
                                                      "there (the report only, not with --html)")
    aud.add_argument("--html", default=None, metavar="DIR",
                     help="run chapter 10 (10_audit_your_release) on these inputs through papermill, as `run` does, "
                          "and write its page into DIR")

    params = sub.add_parser("parameters", help="check (or --write) each notebook's parameters cell against "
                                               "its chapter's declaration")
    params.add_argument("notebooks", nargs="*", help="chapter names (default: every notebook)")
    params.add_argument("--write", action="store_true", help="rewrite the cells that differ")
    return parser


def _interrupted(message: str) -> int:
    """A Ctrl-C: the one line, then silence whatever moment the signal landed.

    A SIGINT that lands while the kernel shuts down makes nbclient log a
    ``DeadKernelError`` and asyncio report tasks that never finished; after
    the line is printed, a second Ctrl-C is ignored, logging is off and the
    process's stderr goes to the null device, so none of that reaches the
    terminal and the exit code stays 130.
    """
    import logging
    import os
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    print(message or "interrupted: nothing half-written was published", file=sys.stderr)
    sys.stderr.flush()
    logging.disable(logging.CRITICAL)
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
    except OSError:
        pass
    return 130


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt as exc:  # landed outside a command's own handler (start-up, imports, shutdown)
        return _interrupted(str(exc))


def _main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from anonbook.logs import show_library_messages

    show_library_messages()
    from anonbook.runner import RunError, RunInterrupted

    try:
        if args.command == "run":
            from anonbook.runner import describe_parameters, quick_parameters

            if args.list_parameters:
                print(describe_parameters(args.notebook))
                return 0
            params = _parse_params(args.parameter, args.raw)
            if args.quick:
                params = {**quick_parameters(args.notebook), **params}
            from anonbook.rerun import run_chapter

            _warn_other_checkout()
            run_chapter(args.notebook, params, publish=args.publish, out=args.out, html=args.html,
                        force=args.force)
        elif args.command == "book":
            from anonbook.book import build_and_check, build_book

            editions = ("student", "instructor") if args.edition == "both" else (args.edition,)
            if args.no_run:
                build_and_check(editions=editions)
            else:
                build_book(force=args.force, only=args.only, jobs=args.jobs,
                           shared_kernels=not args.fresh_kernels, html=not args.no_html, editions=editions)
        elif args.command == "sweep":
            from anonbook.runner import quick_parameters
            from anonbook.sweep import parse_grid, run_sweep

            fixed = {**(quick_parameters(args.notebook) if args.quick else {}),
                     **_parse_params(args.parameter, None)}
            result = run_sweep(args.notebook, parse_grid(args.grid), fixed=fixed, workers=args.workers,
                               scheduler=args.scheduler, force=args.force)
            print(result.table.to_string(index=False, max_rows=60))
        elif args.command == "audit":
            from anonlab import paths
            from anonbook.auditing import run_audit, write_report

            known = [c.strip() for c in args.known.split(",") if c.strip()] if args.known else None
            if args.scheduler and args.html:
                raise ValueError("--scheduler runs the audit's report on a Dask cluster; the page (--html) runs "
                                 "chapter 10 on this machine: give one of them")
            if args.html:
                page, report = _audit_page(args, known)
                print(f"page: {page}")
                print(f"report: {report}")
                return 0
            from anonbook.sweep import dask_executor

            with dask_executor(args.scheduler or None) as (executor, _):
                results = run_audit(args.members, args.release, args.non_members, args.secret, known,
                                    n_targets=args.targets, seed=args.seed,
                                    progress=lambda line: print(f"[audit] {line}", file=sys.stderr),
                                    mapper=executor.map if executor is not None else None)
            for name, res in results.items():
                print(f"{name}:")
                print(res.table[["attack", "secret", "precision", "coverage", "baseline_precision", "pi"]]
                      .round(3).to_string(index=False))
                for _, row in res.not_applicable.iterrows():
                    print(f"  not applicable: {row['attack']} ({row['secret']}): {row['reason']}")
            path = write_report(results, args.json or paths.book_dir() / "runs" / "audit" / "report.json")
            print(f"report: {path}")
        elif args.command == "data":
            from anonlab.data import data_status, fetch_all

            if not args.status:
                fetch_all()
            print(data_status().to_string(index=False))
        elif args.command == "parameters":
            from anonlab import paths
            from anonbook.chapters.kit import sync_parameters_cell

            names = args.notebooks or sorted(p.stem for p in paths.notebooks_dir().glob("*.ipynb"))
            stale = [n for n in names if not sync_parameters_cell(paths.notebooks_dir() / f"{n}.ipynb", args.write)]
            for n in stale:
                print(f"{n}: parameters cell {'rewritten' if args.write else 'differs from the declaration'}")
            return 1 if stale and not args.write else 0
        elif args.command == "pins":
            from anonbook.verdicts import pins as verdict_pins
            from anonbook.runner import toc_notebooks

            names = _known_chapters(args.chapters, toc_notebooks()) if args.chapters else toc_notebooks()
            if args.write:
                for ch in verdict_pins.write_default_pins(names):
                    print(f"{ch}: pinned {verdict_pins.pin_path(ch)}")
                return 0
            problems = verdict_pins.check_default_pins(names)
            skipped = verdict_pins.unchecked_chapters(names)
            checked = len(names) - len(skipped)
            print("\n".join(problems) or f"the {checked} default run(s) checked agree with their pinned verdicts")
            for ch, why in skipped.items():
                print(f"not checked: {ch}: {why}")
            return 1 if problems else 0
        elif args.command == "claims":
            from anonbook.verdicts import verdict_counts, verdict_table

            print(verdict_counts(verdict_table()).to_string())
    except (RunInterrupted, KeyboardInterrupt) as exc:
        return _interrupted(str(exc))
    except (RunError, RuntimeError, ValueError, FileNotFoundError, KeyError,  # ClaimError is a KeyError
            MemoryError) as exc:  # anonbook.memory.check_fits: a run too large for the machine, refused first
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a folder or file the command cannot use: one line, not a traceback
        where = f": {exc.filename}" if exc.filename else ""
        print(f"error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

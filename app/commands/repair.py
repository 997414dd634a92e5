"""`playcoder repair TARGET[@BUG]`: the PlayCoder repair loop from the command line.

The target is materialised (a bug variant gets its patch applied in a
temporary copy) and copied once more into a work folder named after the
program, *without* the ``bugs/`` folder, so the refiner never sees a bug's
description or patch.  The label (``app@bug``) is only recorded on the
session row; no refiner or prompt is given it.
The loop runs on that copy; ``--out DIR`` keeps the repaired copy.

``--events -`` streams what happens as JSON lines on stdout — the plays'
events and the repair's own (:mod:`app.engine.repair.events`) — and reads
pause / resume / step / stop on stdin, as ``playcoder test --events -``
does; the workbench's Repair › New repair… runs it so.  ``--report
FILE.html`` writes the session's self-contained HTML report at the end
(``playcoder export SESSION_RUN -o FILE.html`` writes it for any session).

A passing re-test is a fix only once confirmed on three seeds: against
``--reference DIR`` under differential play where given, else by the
testers and the offline tester (:mod:`app.engine.repair.confirm`).  The last
line says ``fixed``, ``not fixed``, ``crash suppressed`` (a patch hid a crash
on one seed only) or ``not confirmed``; ``--json`` has it as ``outcome``.

Exit status: 0 when the program passes at the end (fixed), 1 when it still
fails or the testers could not confirm a pass (uncertain), 2 when the repair
could not run (bad target, no model settings...).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from app import cli
from app.engine.testers.registry import DEFAULT, REPAIR_TESTERS
from app.engine.play.display import DISPLAY_MODES, ISOLATED
from app.engine.errors import UserError
from app.paths import default_db

REFINERS = ("offline", "llm")
WORK_IGNORE = shutil.ignore_patterns("bugs", "__pycache__", "*.pyc", ".pytest_cache")


def register(sub: Any) -> None:
    p = sub.add_parser("repair", help="repair a failing program: play, diagnose, patch, re-test (up to T times)")
    p.add_argument("target", help="folder with playcoder.toml or a bundled app name, optionally @BUG_ID")
    p.add_argument("--refiner", choices=REFINERS, default="offline")
    p.add_argument("--provider", default=None, help="llm refiner: openai, anthropic or compatible")
    p.add_argument("--model", default=None, help="llm refiner: model name")
    p.add_argument("--base-url", default=None, help="llm refiner: OpenAI-compatible server address")
    p.add_argument("--max-iterations", type=cli.bounded_int(1, 1000), default=6, help="T: at most this many refine cycles (default 6)")
    p.add_argument("--tester", choices=REPAIR_TESTERS, default=DEFAULT,
                   help=f"the PlayTester used for every play (default {DEFAULT})")
    p.add_argument("--max-steps", type=cli.bounded_int(1, cli.UNBOUNDED_STEPS), default=40, help="steps per play run")
    p.add_argument("--seed", type=cli.SEED, default=0)
    p.add_argument("--display", choices=DISPLAY_MODES, default=ISOLATED)
    p.add_argument("--reference", type=Path, default=None, metavar="DIR",
                   help="a program that behaves as the repaired one should: a fix must play as it does under "
                        "differential play on 3 seeds (without it: the testers plus the offline tester on 3 seeds)")
    p.add_argument("--json", action="store_true", help="print one JSON summary as the last stdout line")
    p.add_argument("--out", type=Path, default=None, help="keep the repaired copy in this (new or empty) folder")
    p.add_argument("--events", choices=["-"], default=None,
                   help="'-': stream JSON-lines events on stdout, read pause/resume/step/stop on stdin")
    p.add_argument("--report", type=Path, default=None, metavar="FILE.html",
                   help="write the session's self-contained HTML report to this file at the end")
    p.add_argument("--db", type=Path, default=None, help="database file (default: $PLAYCODER_DB or the user data dir)")
    p.set_defaults(handler=cmd_repair)


def materialise(target: str, work_parent: Path) -> tuple[Path, str]:
    """Copy TARGET (with its bug applied) to ``work_parent/<name>`` without bugs/; returns (folder, label)."""
    from app.engine.play.targetspec import resolve_target

    resolved = resolve_target(target)
    try:
        spec = resolved.spec
        work = work_parent / spec.name
        shutil.copytree(spec.folder, work, ignore=WORK_IGNORE)
        return work, spec.label
    finally:
        resolved.cleanup()


def build_loop(args: argparse.Namespace, store: Any, work: Path, label: str, *, bus: Any = None,
               control: Any = None) -> Any:
    from app.engine.repair.loop import RepairConfig, RepairLoop
    from app.engine.run.settings import RunSettings
    from app.engine.repair.offline_refiner import OfflineRefiner
    from app.engine.repair.sandbox import Executor, Workspace
    from app.engine.repair.tools import UnitTestRunner, Validator
    from app.engine.play.targetspec import load_spec

    spec = load_spec(work)
    executor = Executor()
    validator = Validator(executor, entry_scripts=[c for c in spec.command if c.endswith(".py")] or ["main.py"])
    tests = UnitTestRunner(executor)
    refiner: Any
    if args.refiner == "llm":
        from app.engine.repair.chat import make_chat_model
        from app.engine.repair.llm_refiner import LLMRefiner

        model = make_chat_model({"provider": args.provider, "model": args.model, "base_url": args.base_url})
        refiner = LLMRefiner(model, max_iterations=args.max_iterations)  # never the label: it names the bug
    else:
        refiner = OfflineRefiner(executor, validator, tests)
    config = RepairConfig(target=label, max_iterations=args.max_iterations,
                          settings=RunSettings(tester=args.tester, max_steps=args.max_steps, seed=args.seed,
                                               display=args.display),
                          reference=str(args.reference.resolve()) if args.reference else None)

    def progress(cycle: Any) -> None:
        if not args.json and not getattr(args, "events", None):
            print(f"iteration {cycle.iteration}: {cycle.outcome} — {cycle.description}"
                  + (f" (re-test run {cycle.retest_run}: {cycle.verdict})" if cycle.retest_run else "")
                  + (f"; {cycle.error}" if cycle.error and cycle.outcome != "fixed" else ""), flush=True)

    return RepairLoop(store, Workspace(work), refiner, validator, tests, config, on_cycle=progress, bus=bus,
                      control=control)


def event_stream(args: argparse.Namespace) -> tuple[Any, Any]:
    """With ``--events -``: a bus printing every event as one JSON line, and a control reading stdin."""
    if not args.events:
        return None, None
    from app.engine.play.control import RunControl
    from app.engine.play.events import EventBus

    bus, control = EventBus(), RunControl()
    cli.stream_events(bus, control)
    return bus, control


def cmd_repair(args: argparse.Namespace) -> int:
    from app.engine.trace.store import TrajectoryStore

    if args.max_iterations < 1:
        raise UserError("--max-iterations must be at least 1.")
    if args.max_steps < 1:
        raise UserError("--max-steps must be at least 1.")
    if args.out is not None and args.out.exists() and any(args.out.iterdir()):
        raise UserError(f"{args.out} is not empty; give --out a new or empty folder.")
    if args.reference is not None and not (args.reference / "playcoder.toml").is_file():
        raise UserError(f"--reference {args.reference} has no playcoder.toml; give the folder of the program the "
                        "repaired one should behave as.")
    if args.report is not None and args.report.suffix.lower() not in (".html", ".htm"):
        raise UserError(f"--report {args.report} must end in .html; choose a file name ending in .html.")
    db = args.db or default_db()
    with tempfile.TemporaryDirectory(prefix="playcoder-repair-") as tmp:
        work, label = materialise(args.target, Path(tmp))
        store = TrajectoryStore(db)
        try:
            bus, control = event_stream(args)
            loop = build_loop(args, store, work, label, bus=bus, control=control)
            if not args.json and not args.events:
                print(f"repairing {label} with the {args.refiner} refiner (at most {args.max_iterations} iterations)…",
                      flush=True)
            result = loop.run()
            if args.report is not None:
                from app.engine.repair.report import write_repair_report

                write_repair_report(store, result.session_run, args.report)
        finally:
            store.close()
        if args.out is not None:
            args.out.mkdir(parents=True, exist_ok=True)
            shutil.copytree(work, args.out, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache"))
    summary = result.summary(str(db))
    if args.out is not None:
        summary["out"] = str(args.out)
    if args.report is not None:
        summary["report"] = str(args.report)
    if args.json:
        print(json.dumps(summary))
    elif not args.events:
        reason = result.reason.removeprefix(f"{result.outcome}: ")
        print(f"{result.outcome}: {reason} "
              f"({len(result.cycles)} iteration(s), {result.seconds:.1f} s; session run {result.session_run})")
        if args.out is not None:
            print(f"repaired copy: {args.out}")
        if args.report is not None:
            print(f"report: {args.report}")
    if result.final_verdict == "error" and not result.cycles and not result.fixed:
        print(f"playcoder: {result.reason}", file=sys.stderr)
        return 2
    return 0 if result.fixed else 1


cli._EXTRA_COMMANDS.append(register)

"""`playcoder bench …`: tester accuracy on the labelled bug suite, Exec/Pass/Play@k of candidates, the split."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from app import cli
from app.engine.testers.registry import DEFAULT, NAMES
from app.engine.errors import UserError
from app.paths import default_db

DEFAULT_JOBS = max(1, min(2, os.cpu_count() or 1))
"""Each job is a target + Xvfb + engine; two per core pair keeps timing-sensitive games honest."""
DEFAULT_MAX_STEPS = 40


def _progress(total: int, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="run", file=sys.stderr, dynamic_ncols=True)


def _write_outputs(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
    if args.md:
        args.md.parent.mkdir(parents=True, exist_ok=True)
        args.md.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    sys.stdout.flush()


def _check_common(args: argparse.Namespace) -> None:
    from app.engine.testers.registry import spec

    spec(args.tester)  # an unknown tester ends here, in one sentence
    if args.max_steps < 1:
        raise UserError("--max-steps must be at least 1.")
    if args.jobs < 1:
        raise UserError("--jobs must be at least 1.")


def cmd_detect(args: argparse.Namespace) -> int:
    from app.engine.bench import detect
    from app.engine.bench.executors import make_executor, summary_line
    from app.engine.bench.provenance import measured_on

    _check_common(args)
    apps = detect.select_apps(args.apps)
    types = detect.select_types(args.types)
    if args.no_script:
        from app.engine.testers.registry import check_options

        check_options(args.tester, {"script": False})
    jobs = detect.plan(apps, args.runs, args.seed, args.vary_seeds, types, long=args.long, duration=args.duration)
    db = args.db or default_db()
    measured = measured_on()  # the code as it was when the runs started
    t0 = time.monotonic()
    with make_executor(args.executor, jobs=args.jobs, ray_address=args.ray_address) as executor, \
            _progress(len(jobs), f"bench detect ({args.tester})") as bar:
        def done(row: Any) -> None:
            bar.set_postfix_str(f"{row.target}: {row.verdict}", refresh=False)
            bar.update(1)

        rows = detect.run(jobs, tester=args.tester, max_steps=args.max_steps, db=db, parallel=args.jobs,
                               on_done=done, executor=executor, no_script=args.no_script)
        played = executor.describe()
    summary = detect.summarize(rows, tester=args.tester, max_steps=args.max_steps,
                                    wall_seconds=time.monotonic() - t0, parallel=args.jobs, measured=measured)
    summary["db"] = str(db)
    summary["executor"] = played
    summary["command"] = _command_line()
    summary["long_runs"] = args.long
    summary["duration_s"] = args.duration
    summary["no_script"] = args.no_script
    summary["skipped_long"] = [] if args.long else detect.skipped_long(apps, types)
    print(summary_line(played, len(rows), summary["wall_seconds"]), file=sys.stderr)
    _write_outputs(args, detect.report_json(rows, summary), detect.markdown(summary))
    return 0


def _command_line() -> str:
    """The command as typed (minus --db, --json, --md: where results go, not what was measured)."""
    words, skip = [], False
    for word in sys.argv[1:]:
        if skip:
            skip = False
            continue
        if word in ("--db", "--json", "--md"):
            skip = True
            continue
        if word.split("=", 1)[0] in ("--db", "--json", "--md"):
            continue
        words.append(shlex.quote(word))
    return "playcoder " + " ".join(words)


def _seconds(text: str) -> float:
    """A --duration value: a positive number of seconds (argparse turns the ValueError into one sentence)."""
    value = float(text)
    if not 0 < value <= 86_400:
        raise ValueError(text)
    return value


def _ks(text: str) -> list[int]:
    try:
        ks = sorted({int(v) for v in text.split(",") if v.strip()})
    except ValueError as exc:
        raise UserError(f"--k must be comma-separated whole numbers such as 1,3, not {text!r}.") from exc
    if not ks or ks[0] < 1:
        raise UserError("--k needs at least one value of 1 or more, such as --k 1,3.")
    return ks


def cmd_play(args: argparse.Namespace) -> int:
    from app.engine.bench import play_at_k
    from app.engine.bench.executors import make_executor, summary_line

    _check_common(args)
    ks = _ks(args.k)
    candidates = play_at_k.discover(args.candidates)
    db = args.db or default_db()
    t0 = time.monotonic()
    total = len(candidates) * (1 + args.repeats)
    with tempfile.TemporaryDirectory(prefix="playcoder-candidates-") as tmp, \
            make_executor(args.executor, jobs=args.jobs, ray_address=args.ray_address) as executor, \
            _progress(total, f"bench play ({args.tester})") as bar:
        def done(label: str) -> None:
            bar.set_postfix_str(label, refresh=False)
            bar.update(1)

        results = play_at_k.play(candidates, tester=args.tester, max_steps=args.max_steps, repeats=args.repeats,
                                 seed=args.seed, db=db, parallel=args.jobs, workdir=Path(tmp), on_done=done,
                                 executor=executor)
        played = executor.describe()
    summary = play_at_k.summarize(results, ks, args.repeats, tester=args.tester)
    summary["wall_seconds"] = round(time.monotonic() - t0, 1)
    summary["db"] = str(db)
    summary["executor"] = played
    print(summary_line(played, len(candidates) * args.repeats, summary["wall_seconds"]), file=sys.stderr)
    _write_outputs(args, summary, play_at_k.markdown(summary))
    return 0


def cmd_make_candidates(args: argparse.Namespace) -> int:
    from app.engine.bench import detect
    from app.engine.bench import play_at_k

    made = play_at_k.make_candidates(args.out, detect.select_apps(args.apps))
    for app, names in made.items():
        print(f"{args.out / app}: {len(names)} candidates ({', '.join(names)})")
    return 0


def cmd_split(args: argparse.Namespace) -> int:
    from app.engine.bench import detect, split

    halves = split.bundled_split(detect.select_apps(args.apps))
    text = ("The bundled bug variants by half (tuning: sha256 of \"app@bug\" even; held-out: odd).\n\n"
            + split.markdown(halves))
    if args.md:
        args.md.parent.mkdir(parents=True, exist_ok=True)
        args.md.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


def register(subparsers: Any) -> None:
    b = subparsers.add_parser("bench", help="benchmarks: tester accuracy on labelled bugs, Exec/Pass/Play@k")
    bsub = b.add_subparsers(dest="bench_command", required=True)

    def common(p: argparse.ArgumentParser, max_steps: int) -> None:
        p.add_argument("--tester", default=DEFAULT, help=f"{' | '.join(NAMES)} (default {DEFAULT})")
        p.add_argument("--max-steps", type=cli.bounded_int(1, cli.UNBOUNDED_STEPS), default=max_steps)
        p.add_argument("--jobs", type=cli.bounded_int(1, 256), default=DEFAULT_JOBS, help=f"parallel runs (default {DEFAULT_JOBS})")
        p.add_argument("--seed", type=cli.SEED, default=0, help="PLAYCODER_SEED of the targets (default 0)")
        p.add_argument("--executor", choices=("local", "ray"), default="local",
                       help="local: --jobs child processes here (default); ray: tasks on a Ray cluster, each run "
                            "back as a trace bundle imported as it arrives (pip install \".[ray]\")")
        p.add_argument("--ray-address", default=None, metavar="ADDR",
                       help="with --executor ray: the cluster to join (host:port of `ray start --head`); "
                            "default: start a local Ray instance with --jobs CPUs")
        p.add_argument("--json", type=Path, default=None, metavar="FILE", help="write the full results as JSON")
        p.add_argument("--md", type=Path, default=None, metavar="FILE", help="also write the Markdown tables here")
        cli._add_db(p)

    d = bsub.add_parser("detect", help="play every reference and bug variant; recall, FP rate, alpha, tau-b")
    d.add_argument("--apps", default=None, help="comma-separated app names (default: all)")
    d.add_argument("--runs", type=cli.bounded_int(1, 10_000), default=1, help="repeats of every target (default 1)")
    d.add_argument("--vary-seeds", action="store_true", help="repeat r uses seed SEED+r instead of SEED")
    d.add_argument("--types", default=None, metavar="TYPES",
                   help="comma-separated bug types to play, e.g. crash,freeze,no-response,blank (default: all; "
                        "the references are always played; 'reference' alone plays only them)")
    d.add_argument("--long", action="store_true",
                   help="also play the long-run bug variants (long = true in bugs.toml), each for its declared "
                        "duration_s instead of --max-steps, and their apps' references for the longest of those "
                        "(default: skip them, so the bench stays fast)")
    d.add_argument("--duration", type=_seconds, default=None, metavar="S",
                   help="play every run for S seconds instead of --max-steps steps (a fixed wall-clock budget; "
                        "a long-run bug keeps its own, longer duration)")
    d.add_argument("--no-script", action="store_true",
                   help="differential tester: play no [[script]] steps first, explore only (explore-only recall)")
    common(d, DEFAULT_MAX_STEPS)
    d.set_defaults(handler=cmd_detect)

    p = bsub.add_parser("play", help="Exec@k, Pass@k, Play@k of candidate implementations")
    p.add_argument("--candidates", type=Path, required=True, metavar="DIR",
                   help="one folder per problem (a benchmark app), one sub-folder per candidate")
    p.add_argument("--k", default="1,3", help="comma-separated k values (default 1,3)")
    p.add_argument("--repeats", type=cli.bounded_int(1, 10_000), default=1, help="repeated play runs for the t intervals (default 1)")
    common(p, DEFAULT_MAX_STEPS)
    p.set_defaults(handler=cmd_play)

    sp = bsub.add_parser("split", help="list the bug variants of the tuning and the held-out half")
    sp.add_argument("--apps", default=None, help="comma-separated app names (default: all)")
    sp.add_argument("--md", type=Path, default=None, metavar="FILE", help="also write the table here")
    sp.set_defaults(handler=cmd_split)

    m = bsub.add_parser("make-candidates", help="write each app's reference and bug variants as a candidates folder")
    m.add_argument("out", type=Path, help="folder to create (PROBLEM/CANDIDATE/…)")
    m.add_argument("--apps", default=None, help="comma-separated app names (default: all)")
    m.set_defaults(handler=cmd_make_candidates)


cli._EXTRA_COMMANDS.append(register)

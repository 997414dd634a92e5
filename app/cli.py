"""The `playcoder` command line.  Every failure a user can cause is one clear line."""

from __future__ import annotations

import argparse
import errno
import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Callable

from app.engine.testers.registry import DEFAULT, NAMES
from app.engine.play.display import DISPLAY_MODES, ISOLATED
from app.engine.errors import UserError
from app.engine.step_numbers import step_place
from app.engine.run import settings
from app.paths import default_db

DEMO_TARGET = "tiles2048"
DEMO_BUG = "crash-on-restart"


def _add_db(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", type=Path, default=None, help="database file (default: $PLAYCODER_DB or the user data dir)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="playcoder", description="Test GUI programs by playing them.")
    sub = parser.add_subparsers(dest="command")

    t = sub.add_parser("test", help="play a target and record the trajectory")
    t.add_argument("target", help="folder with playcoder.toml, a bundled app name, optionally @BUG_ID")
    t.add_argument("--tester", default=None, help=f"{' | '.join(NAMES)} (default {DEFAULT})")
    t.add_argument("--display", choices=DISPLAY_MODES, default=None, help=f"default {ISOLATED}")
    t.add_argument("--max-steps", type=int, default=None, help="at most this many steps (default 30)")
    t.add_argument("--seed", type=SEED, default=None, help="default 0")
    t.add_argument("--reference", default=None, metavar="REF_DIR",
                   help="differential tester, and script's similar_to_reference: the program to compare with "
                        "(default for APP@BUG: APP itself)")
    t.add_argument("--freeze-while-thinking", dest="freeze", action=argparse.BooleanOptionalAction, default=None,
                   help="stop the target (SIGSTOP) while the tester decides (default: on for --tester llm on games)")
    t.add_argument("--slice-ms", type=int, default=None, metavar="MS",
                   help="with the clock stopped: how long the target runs after each action (default by kind)")
    t.add_argument("--duration", type=float, default=None, metavar="SECONDS",
                   help="play until this much time has passed (steps are then unbounded unless --max-steps)")
    t.add_argument("--film-fps", type=int, default=None, metavar="FPS",
                   help="film the window between actions at up to this rate (default 30; 0: no film)")
    t.add_argument("--in-place", action="store_true",
                   help="skip the engine's scratch copy of the target folder (the sandbox still gives the program a private copy to write into)")
    t.add_argument("--provider", choices=["openai", "anthropic", "compatible"], default=None,
                   help="llm tester: model provider (default: $PLAYCODER_PROVIDER or the one whose key is set)")
    t.add_argument("--model", default=None, help="llm tester: model name (default: $PLAYCODER_MODEL)")
    t.add_argument("--base-url", default=None, help="llm tester: server URL, e.g. a local OpenAI-compatible /v1")
    t.add_argument("--no-script", action="store_true",
                   help="differential tester: play no [[script]] steps first, explore only (explore-only recall)")
    t.add_argument("--explorer", choices=["new", "old"], default=None,
                   help="offline and differential testers: 'old' plays the image-and-X-tree explorer alone, without the keys read from the code, returns to states or the survival search (to compare with)")
    t.add_argument("--survival", choices=["on", "off"], default=None,
                   help="offline and differential testers: in a pygame game, play plans ahead on forked copies and "
                        "keep the one that lives longest and runs new code (default: on for differential, off for "
                        "offline, which then plays the game on its frame gate)")
    t.add_argument("--json", action="store_true", help="print one JSON summary as the last stdout line")
    t.add_argument("--events", choices=["-"], default=None,
                   help="'-': stream JSON-lines events on stdout, read pause/resume/step/stop on stdin")
    _add_db(t)

    r = sub.add_parser("runs", help="list the runs in the database")
    r.add_argument("--json", action="store_true")
    _add_db(r)

    g = sub.add_parser("gui", help="open the workbench")
    g.add_argument("--open", type=ROW_ID, default=None, metavar="RUN_ID")
    _add_db(g)

    d = sub.add_parser("demo", help="headless demo: play a bundled target and write a report")
    d.add_argument("--out", type=Path, default=Path("playcoder-demo"))
    d.add_argument("--target", default=DEMO_TARGET)
    _add_db(d)

    for register in _EXTRA_COMMANDS:
        register(sub)
    return parser


_EXTRA_COMMANDS: list[Callable[[Any], None]] = []
"""Later modules (export/import, validate, bench, repair) register subcommands here."""


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
EXIT_INTERRUPTED = 130
"""Exit codes: 0 completed, 2 error (one line on stderr), 130 interrupted by a signal (one line too)."""
_received: list[int] = []


def _install_signal_handlers() -> None:
    """SIGINT, SIGTERM and SIGHUP all end a command like Ctrl-C: cleanly, with one line and exit 130.

    The first signal raises KeyboardInterrupt; a second one while the command cleans
    up (stopping children, closing the run) is ignored so the cleanup finishes; a
    third gives up on cleaning (the engine's children die with it anyway)."""
    _received.clear()
    if threading.current_thread() is not threading.main_thread():
        return

    def interrupt(signum: int, frame: object) -> None:
        _received.append(signum)
        if len(_received) == 1:
            raise KeyboardInterrupt()
        if len(_received) >= 3:
            os.write(2, b"playcoder: interrupted again; quitting without cleaning up\n")
            os._exit(EXIT_INTERRUPTED)

    def redeliver_if_swallowed(unraisable: Any) -> None:
        # A KeyboardInterrupt raised where Python cannot propagate it (an at-fork callback such as
        # logging's lock release, a __del__, a weakref callback) is printed and dropped, and the command
        # would go on.  Deliver the same signal again: it is raised at the next ordinary line instead.
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and len(_received) == 1:
            # (a timer signal, not a call: anything called here would raise inside the same callback)
            signum = _received.pop()
            signal.signal(signal.SIGALRM, lambda _s, frame: interrupt(signum, frame))
            signal.setitimer(signal.ITIMER_REAL, 0.05)
            return
        sys.__unraisablehook__(unraisable)

    sys.unraisablehook = redeliver_if_swallowed
    for sig in STOP_SIGNALS:
        signal.signal(sig, interrupt)


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``, or a clear error naming the range."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number from {low} to {high}, not {text[:40]!r}") \
                from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be a whole number from {low} to {high}, not {text[:40]}")
        return value

    parse.__name__ = "whole number"
    return parse


SEED = bounded_int(0, 2**32 - 1)
"""A seed: targets hand it to numpy and random, which take 32 bits."""
ROW_ID = bounded_int(1, 2**63 - 1)
"""A run id (an SQLite INTEGER)."""


UNBOUNDED_STEPS = settings.UNBOUNDED_STEPS
"""The most steps a run may take (also the bound of a --duration run)."""


def stream_events(bus: Any, control: Any) -> None:
    """``--events -``: every event of ``bus`` as one JSON line on stdout; pause/step/stop read from stdin."""
    from app.engine.play.events import event_to_json

    lock = threading.Lock()

    def emit(event: object) -> None:
        with lock:
            sys.stdout.write(event_to_json(event) + "\n")
            sys.stdout.flush()

    bus.subscribe(emit)
    control.listen(sys.stdin)


def cmd_test(args: argparse.Namespace) -> int:
    from app.engine.play.control import RunControl
    from app.engine.play.events import EventBus
    from app.engine.run.session import RunInterrupted, Session
    from app.engine.trace.store import TrajectoryStore

    config = run_config(args)  # every setting checked here, before anything starts
    db = args.db or default_db()
    store = TrajectoryStore(db)
    bus = EventBus()
    control = RunControl()
    if args.events:
        stream_events(bus, control)
    else:
        bus.subscribe(_say_why_held)
    interrupted: RunInterrupted | None = None
    try:
        result = Session(config, store, bus=bus, control=control).run()
    except RunInterrupted as stop:  # closed as stopped: report it like any run, then end as interrupted
        result, interrupted = stop.result, stop
    store.close()
    summary = result.summary(str(db))
    if args.json:
        print(json.dumps(summary))
    elif not args.events:
        window = f" in a {result.window[0]}×{result.window[1]} window" if result.window else ""
        episodes = f", {result.episodes} episodes" if result.episodes > 1 else ""
        if result.run_id is None:  # stopped while the program was still starting: nothing was recorded
            print(f"no run recorded — {result.reason}")
        else:
            print(f"run {result.run_id}: {result.verdict} after {result.steps} steps{window}{episodes} — "
                  f"{result.reason}")
        for f in result.findings:
            print(f"  [{f.kind}] {step_place(f.step)}: {f.message}")
    if interrupted is not None:
        raise interrupted
    if result.status == "error":
        print(f"playcoder: {result.error}", file=sys.stderr)
        return 2
    return 0


def run_config(args: argparse.Namespace) -> Any:
    """``playcoder test``'s options as a run's command-line layer (:mod:`app.engine.run.settings`), checked."""
    from app.engine.run.session import RunConfig

    return RunConfig(args.target, in_place=args.in_place, tester=args.tester, display=args.display,
                     max_steps=args.max_steps, seed=args.seed, duration_s=args.duration, slice_ms=args.slice_ms,
                     film_fps=args.film_fps, freeze_while_thinking=args.freeze,
                     tester_options=tester_options(args) or None)


def tester_options(args: argparse.Namespace) -> dict[str, Any]:
    """The tester options ``args`` set (the registry refuses one the tester does not take, with the settings)."""
    given = {"provider": args.provider, "model": args.model, "base_url": args.base_url,
             "reference": args.reference, "script": False if args.no_script else None, "explorer": args.explorer,
             "survival": None if args.survival is None else args.survival == "on"}
    return {name: value for name, value in given.items() if value is not None}


def _say_why_held(event: object) -> None:
    """Headless: a run the engine paused itself (a desktop target covered or hidden) says why on stderr."""
    reason = getattr(event, "reason", "")
    if reason and getattr(event, "state", "") == "paused":
        print(f"playcoder: paused — {reason}", file=sys.stderr, flush=True)


def cmd_runs(args: argparse.Namespace) -> int:
    from app.engine.trace.store import TrajectoryStore

    store = TrajectoryStore(args.db or default_db())
    rows = store.runs()
    if args.json:
        print(json.dumps(rows))
        return 0
    for r in rows:
        print(f"{r['id']:>5}  {_printable(r['target']):<28} {_printable(r['tester']):<8} {_printable(r['status']):<9} "
              f"{_printable(r['effective_verdict'] or '-'):<6} {r['step_count']:>4} steps")
    return 0


_UNPRINTABLE = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
"""Unicode categories a terminal would act on (newlines, escapes, U+202E turning the line around) or not show."""


def _printable(value: object) -> str:
    """A value from the database as one terminal line: control and format characters escaped (``\\n``,
    ``\\u202e``), as a target's name may hold anything."""
    import unicodedata

    text = str(value)
    if text.isprintable():
        return text
    return "".join(ch.encode("unicode_escape").decode("ascii") if unicodedata.category(ch) in _UNPRINTABLE else ch
                   for ch in text)


def cmd_demo(args: argparse.Namespace) -> int:
    """Play a bundled target headlessly and write the trajectory and a report."""
    from app.engine.run.session import RunConfig, Session
    from app.engine.trace.store import TrajectoryStore

    args.out.mkdir(parents=True, exist_ok=True)
    db = args.db or args.out / "playcoder.db"
    store = TrajectoryStore(db)
    targets = [args.target] + ([f"{args.target}@{DEMO_BUG}"] if args.target == DEMO_TARGET else [])
    failed = False
    for target in targets:
        print(f"playing {target} headlessly on a private Xvfb …", flush=True)
        result = Session(RunConfig(target=target, max_steps=20), store).run()
        window = f" in a {result.window[0]}×{result.window[1]} window" if result.window else ""
        episodes = f", {result.episodes} episodes" if result.episodes > 1 else ""
        if result.run_id is None:  # stopped while the program was still starting: nothing was recorded
            print(f"no run recorded — {result.reason}")
        else:
            print(f"run {result.run_id}: {result.verdict} after {result.steps} steps{window}{episodes} — "
                  f"{result.reason}")
        failed = failed or result.status == "error"
        if result.run_id is not None:
            report = _write_report(store, result.run_id, args.out)
            if report:
                print(f"report: {report}")
    print(f"trajectory: {db}")
    store.close()
    return 2 if failed else 0


def _write_report(store: Any, run_id: int, out: Path) -> Path | None:
    try:
        from app.engine.trace.report import write_html_report
    except ImportError:
        (out / "summary.json").write_text(json.dumps(store.run(run_id), indent=2, default=str))
        return out / "summary.json"
    return write_html_report(store, run_id, out / f"run-{run_id}.html")


def cmd_gui(args: argparse.Namespace) -> int:
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY") \
            and os.environ.get("QT_QPA_PLATFORM") not in ("offscreen", "xcb"):
        raise UserError("no display is available for the workbench; run `playcoder demo` for a headless run instead.")
    try:
        from app.views.shell.main_window import run_gui
    except ImportError as exc:
        raise UserError(f"the workbench could not load Qt ({exc}); install PySide6-Essentials and the Qt xcb libraries.") from exc
    return int(run_gui(db=args.db or default_db(), open_run=args.open))


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "test": cmd_test, "runs": cmd_runs, "demo": cmd_demo, "gui": cmd_gui,
}


def main(argv: list[str] | None = None) -> int:
    _install_signal_handlers()
    try:
        _load_extensions()
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            has_display = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
            args = parser.parse_args(["gui"] if has_display else ["demo"])
        handler = COMMANDS.get(args.command) or getattr(args, "handler", None)
        if handler is None:
            parser.print_help()
            return 2
        code = int(handler(args))
    except UserError as exc:
        print(f"playcoder: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("playcoder: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `playcoder runs | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        print(f"playcoder: the disk is full{f' ({exc.filename})' if exc.filename else ''}; free some space and run "
              "again.", file=sys.stderr)
        return 2
    if _received:  # a run that was stopped by the signal ended normally, but the user interrupted it
        print("playcoder: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return code


def _load_extensions() -> None:
    """Import optional command modules; each appends to _EXTRA_COMMANDS."""
    import importlib

    for name in ("app.commands",):
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise

"""The self-contained bundle's one executable: the `playcoder` command line, and the Python of the programs it plays.

A PyInstaller bundle carries an interpreter but no ``python`` command, and the engine starts Python children with
``sys.executable`` (``target.py`` turns a target's ``["python", "main.py"]`` into it; the workbench starts live runs
as ``sys.executable -m app test …``; the repair loop runs ``-c`` checks).  In the bundle ``sys.executable`` is this
program, so it answers the interpreter's own command lines:

    playcoder SCRIPT.py [ARGS]     run a script as __main__ (a played target)
    playcoder -m MODULE [ARGS]     run a module (``-m app`` is the command line itself)
    playcoder -c CODE [ARGS]       run a piece of code

Interpreter switches before them (``-u``, ``-B``, ``-E``, ``-X opt``, ``-W arg`` …) are accepted and ignored.
Anything else is the ordinary command line (``playcoder demo``, ``playcoder gui``, ``playcoder -h``).

A frozen interpreter reads none of Python's environment variables and imports no ``site``, so the run modes do by
hand what a played program is promised: PYTHONPATH comes first on ``sys.path`` and its ``sitecustomize`` runs (the
engine's seeding of ``random`` and numpy), PYTHONUNBUFFERED and PYTHONFAULTHANDLER are honoured.  PYTHONHASHSEED is
not: string hashing is seeded once when the interpreter starts, before any of this runs.
"""

from __future__ import annotations

import os
import runpy
import signal
import sys
import traceback
from types import TracebackType

SWITCHES = set("bBdEiIOqsSuvR")
"""Interpreter switches without a value (they may be grouped, ``-uB``): accepted and ignored."""
SWITCHES_WITH_VALUE = ("-X", "-W")
SCRIPT_SUFFIXES = (".py", ".pyw")


def interpreter_request(argv: list[str]) -> tuple[str, str, list[str]] | None:
    """("script"|"module"|"code", what, its argv[1:]) when ``argv`` is a Python command line, else None.

    ``argv`` excludes the program name.  A first word that is neither a switch nor an existing ``*.py`` file means
    the command line (so ``playcoder test``, ``playcoder -h`` and ``playcoder`` alone keep their meaning)."""
    i = 0
    while i < len(argv):
        word = argv[i]
        if word in ("-c", "-m"):
            if i + 1 >= len(argv):
                return None
            return ("code" if word == "-c" else "module"), argv[i + 1], argv[i + 2:]
        if word in SWITCHES_WITH_VALUE:
            i += 2
            continue
        if word.startswith(SWITCHES_WITH_VALUE) or (len(word) > 1 and word[0] == "-" and set(word[1:]) <= SWITCHES):
            i += 1
            continue
        if word.endswith(SCRIPT_SUFFIXES) and os.path.isfile(word):
            return "script", word, argv[i + 1:]
        return None
    return None


def _program_environment() -> None:
    """What ``python`` would have taken from the environment before running the program."""
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[1:1] = [p for p in extra if p not in sys.path]
    if os.environ.get("PYTHONUNBUFFERED"):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.reconfigure(line_buffering=True, write_through=True)  # type: ignore[union-attr]
            except (AttributeError, ValueError):
                pass
    if os.environ.get("PYTHONFAULTHANDLER"):
        import faulthandler

        faulthandler.enable()
    if extra:  # the engine's seeding lives in a sitecustomize on the program's PYTHONPATH
        import importlib.util

        if importlib.util.find_spec("sitecustomize") is not None:
            __import__("sitecustomize")


def _print_from(exc: BaseException) -> None:
    """The traceback as ``python`` prints it: from the program's own code on, without this launcher's frames."""
    own = (globals(), vars(runpy))
    tb: TracebackType | None = exc.__traceback__
    while tb is not None and any(tb.tb_frame.f_globals is g for g in own):
        tb = tb.tb_next  # none left (a syntax error): the error alone, as python prints it
    traceback.print_exception(type(exc), exc, tb)


def run_python(kind: str, what: str, args: list[str]) -> int:
    """Run a script, module or code string as ``python`` would; returns the exit code."""
    if kind == "script":
        sys.argv = [what, *args]
        sys.path.insert(0, os.path.dirname(os.path.abspath(what)))
    elif kind == "module":
        sys.argv = [what, *args]
        sys.path.insert(0, os.getcwd())
    else:
        sys.argv = ["-c", *args]
        sys.path.insert(0, "")
    _program_environment()
    try:
        if kind == "script":
            runpy.run_path(what, run_name="__main__")
        elif kind == "module":
            runpy.run_module(what, run_name="__main__", alter_sys=True)
        else:
            exec(compile(what, "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    except SystemExit:
        raise
    except KeyboardInterrupt as exc:
        _print_from(exc)
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # die of the signal, as python does
        os.kill(os.getpid(), signal.SIGINT)
        return 130
    except BaseException as exc:
        _print_from(exc)
        return 1
    return 0


def main() -> None:
    request = interpreter_request(sys.argv[1:])
    if request is not None and request[:2] == ("module", "app"):
        sys.argv = [sys.argv[0], *request[2]]  # `-m app ...`: this program's own command line
        request = None
    if request is not None:
        code = run_python(*request)
        sys.stdout.flush()
        raise SystemExit(code)
    import app.__main__  # noqa: F401  (signal set-up, then app.cli's main; it ends the process)


if __name__ == "__main__":
    main()

"""`python -m app`: the command line (:mod:`app.cli`).

A signal that arrives while the command line is still being imported finds
nothing to clean up: it ends the process at once with the usual line and code,
not a KeyboardInterrupt traceback; :func:`app.cli.main` then installs the real handlers.
"""

import os
import signal


def _interrupted_while_starting(signum: int, frame: object) -> None:
    os.write(2, b"playcoder: interrupted\n")
    os._exit(130)


for _sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(_sig, _interrupted_while_starting)

from app.cli import EXIT_INTERRUPTED, main  # noqa: E402  (after the handlers, on purpose)

_code = main()
if _code == EXIT_INTERRUPTED:
    # CPython ends a process by killing itself with SIGINT (exit -2, not 130) whenever a KeyboardInterrupt once
    # left code it ran through PyRun_* (an extension module's import does), even though main() caught it.
    # End with the agreed code instead: run the exit functions, flush, and leave without the interpreter's teardown.
    import atexit
    import sys

    atexit._run_exitfuncs()
    for _stream in (sys.stdout, sys.stderr):
        try:
            _stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(EXIT_INTERRUPTED)
raise SystemExit(_code)

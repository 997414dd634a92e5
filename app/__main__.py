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

from app.cli import main  # noqa: E402  (after the handlers, on purpose)

raise SystemExit(main())

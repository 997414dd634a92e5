"""`playcoder rubric check FOLDER [--seeds 3] [--json]`: is the rubric right, and could it catch anything?

Plays every ``[[script]]`` case on the program as it is (``--seeds`` seeds) and on controls (a blank window,
a frozen window, the program with its inputs withheld, each case on a fresh start) and prints one line per
finding (:mod:`app.engine.rubric.check`).  Exit 0 when clean, 1 when there are findings, 2 on bad input.
The plays go into a temporary database unless ``--db`` names one (then they can be opened in the workbench).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app import cli
from app.engine.errors import UserError


def register(sub: Any) -> None:
    p = sub.add_parser("rubric", help="check a target's [[script]] rubric")
    rsub = p.add_subparsers(dest="rubric_command")
    c = rsub.add_parser("check", help="play every [[script]] case on the program and on controls; report "
                                      "expectations that fail, or that hold on a blank or frozen window or "
                                      "without input")
    c.add_argument("folder", type=Path, help="the target folder (with playcoder.toml)")
    c.add_argument("--seeds", type=int, default=3, help="play the program with seeds 0..N-1 (default 3)")
    c.add_argument("--reference", default=None, metavar="REF_DIR",
                   help="the program similar_to_reference compares with")
    c.add_argument("--json", action="store_true", help="print one JSON line last")
    c.add_argument("--db", type=Path, default=None, help="keep the plays in this database (default: a temporary one)")
    c.set_defaults(handler=cmd_check)
    p.set_defaults(handler=lambda args: _no_sub())


def _no_sub() -> int:
    raise UserError("say what to do with the rubric: playcoder rubric check FOLDER.")


def cmd_check(args: argparse.Namespace) -> int:
    from app.engine.rubric.check import check_rubric
    from app.engine.rubric.record import RECORDED_FILE

    folder = args.folder.expanduser()
    if folder.is_file() and folder.name == RECORDED_FILE:
        raise UserError(f"{args.folder} holds recorded cases, but rubric check plays a target folder's "
                        f"playcoder.toml: copy the cases you want into {folder.parent / 'playcoder.toml'} (or "
                        f"replace it with {folder.name} in a copy of the folder) and run "
                        f"playcoder rubric check {folder.parent}.")
    if not folder.is_dir():
        raise UserError(f"{args.folder} is not a folder; give a target folder with playcoder.toml.")
    if (folder / RECORDED_FILE).is_file():
        print(f"playcoder: {folder / RECORDED_FILE} is not checked (only playcoder.toml is): copy the recorded "
              "cases into playcoder.toml to check them.", file=sys.stderr, flush=True)
    if not 1 <= args.seeds <= 20:
        raise UserError("--seeds must be between 1 and 20.")
    report = check_rubric(args.folder, seeds=args.seeds, db=args.db, reference=args.reference,
                          say=lambda text: print(f"playcoder: {text}", file=sys.stderr, flush=True))
    for finding in report.findings:
        print(finding.line())
    if args.json:
        print(json.dumps(report.to_dict()))
    elif not report.findings:
        print(f"{report.target}: {report.expectations} expectation(s) checked on seed(s) "
              f"{', '.join(map(str, report.seeds))}: no finding")
    return 1 if report.findings else 0


cli._EXTRA_COMMANDS.append(register)

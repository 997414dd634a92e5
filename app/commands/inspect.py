"""`playcoder inspect FOLDER [--command "..."] [--json] [--write]`: what to put in a program's playcoder.toml.

Starts the program on a private display (:mod:`app.engine.run.inspection`) and prints its window's real
size, its controls (kind, text, box), the keys its code reads, files that look like saved state, and a
starter ``playcoder.toml``.  ``--json``: the last stdout line is ``{"window": [w, h], "widgets": [...],
"keys": [...], "saved_state": [...], "toml": "..."}``.  ``--write`` writes the toml into the folder only
when it has none (an existing one is never overwritten, and nothing else in the folder is touched).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from app import cli
from app.engine.play.targetspec import SPEC_FILE


def register(sub: Any) -> None:
    p = sub.add_parser("inspect", help="start a program and print its window size, controls, keys and a starter "
                                       "playcoder.toml")
    p.add_argument("folder", type=Path, help="the program's folder")
    p.add_argument("--command", dest="program_command", default=None,
                   help='how it starts, e.g. "python main.py" (default: playcoder.toml\'s command, else a guess '
                        "from the folder's files)")
    p.add_argument("--json", action="store_true", help="print one JSON line last")
    p.add_argument("--write", action="store_true", help=f"write {SPEC_FILE} into the folder when it has none")
    p.set_defaults(handler=cmd_inspect)


def cmd_inspect(args: argparse.Namespace) -> int:
    from app.engine.run.inspection import inspect

    found = inspect(args.folder, args.program_command)
    folder = args.folder.expanduser().resolve()
    wrote = ""
    if args.write:
        path = folder / SPEC_FILE
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)  # never over an existing file
        except FileExistsError:
            wrote = f"{path} exists already; left as it is"
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(found.toml)
            wrote = f"wrote {path}"
    if args.json:
        if wrote:
            print(wrote)
        print(json.dumps(found.as_json()))
        return 0
    print(f"window: {found.window[0]}×{found.window[1]}")
    print(f"controls ({found.widget_source}): {len(found.widgets)}")
    for w in found.widgets:
        print(f"  {w['kind']:<8} {str(w['box']):<24} {w['text']}")
    print(f"keys its code reads: {', '.join(found.keys) or 'none found'}")
    if found.quit_keys:
        print(f"keys that end it (left out of keys): {', '.join(found.quit_keys)}")
    if found.saved_state:
        print(f"saved state: {', '.join(found.saved_state)} (every run starts from it; the engine plays a copy)")
    if found.exited is not None:
        print(f"it quit by itself with code {found.exited} while watched")
    for note in found.notes:
        print(f"note: {note}")
    print(f"\n# {SPEC_FILE}\n{found.toml}")
    if wrote:
        print(wrote)
    return 0


cli._EXTRA_COMMANDS.append(register)

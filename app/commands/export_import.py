"""`playcoder export` (trace bundle or HTML report — of a run, or of a whole repair session) and `playcoder import`
(trace bundle)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from app import cli
from app.engine.errors import UserError
from app.paths import default_db

BUNDLE_SUFFIXES = (".zip",)
REPORT_SUFFIXES = (".html", ".htm")


def register(sub: Any) -> None:
    e = sub.add_parser("export", help="write a run as a trace bundle (.zip) or a self-contained report (.html)")
    e.add_argument("run_id", type=cli.ROW_ID, metavar="RUN_ID")
    e.add_argument("-o", "--output", type=Path, required=True, metavar="FILE",
                   help="FILE.zip for a trace bundle another database can import, FILE.html for a report "
                        "(of a repair session: every cycle with its patch and frames)")
    e.add_argument("--db", type=Path, default=None, help="database file (default: $PLAYCODER_DB or the user data dir)")
    e.set_defaults(handler=cmd_export)

    i = sub.add_parser("import", help="import a trace bundle as a new run; prints the new run id")
    i.add_argument("bundle", type=Path, metavar="FILE.zip")
    i.add_argument("--db", type=Path, default=None, help="database file (default: $PLAYCODER_DB or the user data dir)")
    i.set_defaults(handler=cmd_import)


def cmd_export(args: argparse.Namespace) -> int:
    from app.engine.trace.store import TrajectoryStore

    out: Path = args.output
    suffix = out.suffix.lower()
    if suffix not in BUNDLE_SUFFIXES + REPORT_SUFFIXES:
        raise UserError(f"-o {out} must end in .zip (a trace bundle) or .html (a report); choose one of those.")
    store = TrajectoryStore(args.db or default_db(), readonly=True)
    try:
        if suffix in BUNDLE_SUFFIXES:
            from app.engine.trace.bundle import export_bundle

            written = export_bundle(store, args.run_id, out)
        elif store.run(args.run_id).get("kind") == "repair":  # a repair session: every cycle, its patch, frames
            from app.engine.repair.report import write_repair_report

            written = write_repair_report(store, args.run_id, out)
        else:
            from app.engine.trace.report import write_html_report

            written = write_html_report(store, args.run_id, out)
    finally:
        store.close()
    print(f"wrote {written}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from app.engine.trace.bundle import import_bundle
    from app.engine.trace.store import TrajectoryStore

    store = TrajectoryStore(args.db or default_db())
    try:
        run_id = import_bundle(store, args.bundle)
    finally:
        store.close()
    print(run_id)
    return 0


cli._EXTRA_COMMANDS.append(register)

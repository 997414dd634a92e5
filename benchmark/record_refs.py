"""Record the reference pictures of the scripted rubric from the reference apps.

    python -m benchmark.record_refs [--apps calculator,tiles2048] [--seed 0]

Plays each reference app's ``[[script]]`` with the script tester in record
mode on a private Xvfb: the frame every ``similar`` expectation would be
checked on is saved as its ``reference`` PNG inside the app folder (commit the
PNGs).  Run it again after changing an app's look or its script.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.session import RunConfig, Session  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.engine.play.targetspec import list_apps, load_spec  # noqa: E402
from app.engine.testers.script import ScriptTester  # noqa: E402

MAX_STEPS = 400


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--apps", default="", help="comma-separated app names (default: every app with a similar check)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    wanted = {a for a in args.apps.split(",") if a}
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        store = TrajectoryStore(Path(tmp) / "record.db")
        for folder in list_apps():
            spec = load_spec(folder)
            uses_refs = any(e.kind == "similar" for case in spec.script for e in case.expect)
            if (wanted and folder.name not in wanted) or not uses_refs:
                continue
            tester = ScriptTester(record_refs=True)
            result = Session(RunConfig(target=str(folder), tester="script", max_steps=MAX_STEPS, seed=args.seed),
                             store, tester=tester).run()
            print(f"{folder.name}: {result.verdict} — {result.reason}")
            for path in sorted(set(tester.recorded)):
                print(f"  wrote {Path(path).relative_to(folder.parent.parent.parent)}")
            if result.verdict != "pass":
                status = 1
        store.close()
    return status


if __name__ == "__main__":
    raise SystemExit(main())

"""Record the *committed* reference pictures of the bundled apps' scripted rubric.

    python -m benchmark.record_refs [--apps calculator,tiles2048] [--seed 0]

A thin wrapper over ``playcoder refs record`` (app/commands/refs.py): it plays
each bundled reference app's ``[[script]]`` in record mode on a private Xvfb,
but writes the frame of every ``similar`` expectation into the app folder
itself as its ``reference`` PNG, with ``refs/recorded-on.json`` naming the
fonts they were drawn with (commit both).  Run it again after changing an
app's look or its script.  Users record machine-local references with
``playcoder refs record TARGET`` instead, which never writes a target folder.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.commands.refs import MAX_STEPS, record_references  # noqa: E402
from app.engine.judge.refs import reference_names  # noqa: E402
from app.engine.play.targetspec import APPS_DIR, list_apps, load_spec  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--apps", default="", help="comma-separated app names (default: every app with a similar check)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    wanted = {a for a in args.apps.split(",") if a}
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        for folder in list_apps():
            if folder.parent != APPS_DIR or (wanted and folder.name not in wanted):
                continue
            if not reference_names(load_spec(folder).script):
                continue
            rec = record_references(str(folder), seed=args.seed, db=Path(tmp) / "record.db", max_steps=MAX_STEPS,
                                    into_folder=True)
            print(f"{folder.name}: {rec.verdict} — {rec.reason}")
            if rec.problem:
                print(f"  nothing written: {rec.problem}")
                status = 1
                continue
            for path in sorted(rec.pictures.values()):
                print(f"  wrote {path.relative_to(ROOT)}")
            print(f"  fonts {rec.fonts.get('fonts')} (refs/recorded-on.json)")
    return status


if __name__ == "__main__":
    raise SystemExit(main())

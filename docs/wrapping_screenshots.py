"""Screenshots of wrapping a program in the workbench (recording a rubric case, New target…), made offscreen from real runs.

    python docs/wrapping_screenshots.py [--out docs/screenshots]

Plays tests/targets/rubric_tk (a scratch copy) with the real engine on a private Xvfb: a person's two
space presses are the take-over steps (queued on the run's control, as the workbench's take-over sends
them).  Then opens the recorder on that run, marks a region that changes and a colour on the frame after
the second press, and a text, replays the case on a fresh program and writes ``record-case.png``.  Exits
non-zero when the replay does not pass.  Then inspects tests/targets/form_tk (a copy without its
playcoder.toml) as File › New target… does and writes ``new-target.png``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication  # noqa: E402

from app.engine.play.control import RunControl  # noqa: E402
from app.engine.run.session import RunConfig, Session  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.run.case_recorder_view import CaseRecorderView  # noqa: E402
from app.views.shell.main_window import apply_style  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    apply_style(app)
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "rubric_tk"
        shutil.copytree(ROOT / "tests" / "targets" / "rubric_tk", target)
        db = Path(tmp) / "record.db"
        control = RunControl()
        for _ in range(2):
            control.take_over({"action": "press", "key": "space"})
        store = TrajectoryStore(db)
        result = Session(RunConfig(target=str(target), max_steps=2, film_fps=0), store, control=control).run()
        store.close()
        rec = CaseRecorderView(db, int(result.run_id or 0))
        rec.resize(1400, 640)
        rec.show()
        rec.steps.setCurrentRow(1)
        rec.criterion.setCurrentText("counts")
        rec.name.setText("two presses, two steps of bar")
        rec.draft.mark("region_changed", 1, region=[0, 0, 240, 40])
        rec.draft.mark("pixel", 1, at=[30, 20])
        rec.draft.mark("text", 1, region=[8, 50, 100, 74], text="count 2")
        rec._refresh()
        rec._on_replay_finished(rec.draft.replay())
        QApplication.processEvents()
        path = args.out / "record-case.png"
        rec.grab().save(str(path))
        print(f"wrote {path}: replay {rec.last_replay.verdict if rec.last_replay else '?'}")
        ok = rec.last_replay is not None and rec.last_replay.verdict == "pass"
        rec.close()

        from app.engine.run.inspection import inspect
        from app.views.live.new_target_view import NewTargetView

        form = Path(tmp) / "form"
        shutil.copytree(ROOT / "tests" / "targets" / "form_tk", form)
        (form / "playcoder.toml").unlink()
        view = NewTargetView(form)
        view.resize(1200, 640)
        view.show()
        view._on_inspection_finished(inspect(form))
        QApplication.processEvents()
        path = args.out / "new-target.png"
        view.grab().save(str(path))
        print(f"wrote {path}: {len(view.canvas.boxes)} controls boxed")
        ok = ok and len(view.canvas.boxes) > 0
        view.close()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

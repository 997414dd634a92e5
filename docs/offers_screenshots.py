"""Screenshots of the workbench's run offers and declared testers, made on an X server from synthetic databases.

    xvfb-run -a -s "-screen 0 1600x1000x24" python docs/offers_screenshots.py [--out docs/screenshots]

With a DISPLAY the workbench runs on Qt's xcb platform (a real X server: the
pictures in docs/ were made so, on Xvfb); without one, offscreen.

Writes ``takeover-mode.png`` (a paused live run in take-over mode: the orange
frame, the banner, TAKE-OVER in the status bar), ``repair-plays.png`` (a
repair session and its plays in the run list, filtered to repair plays, one
play open with its link to the repair) and ``labelling-task.png`` (blinded
labelling with the target's goal and criteria above the run).  No engine
process runs: the databases are written through the store, as the tests do,
and the live run is a paused one that was never started.  Checks on the way
what each picture must show and exits non-zero when a check fails.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ.setdefault("QT_QPA_PLATFORM", "xcb" if os.environ.get("DISPLAY") else "offscreen")

from PIL import Image, ImageDraw  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.views.model.database import Database  # noqa: E402
from app.engine.study import validation  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.shell.main_window import MainWindow, apply_style  # noqa: E402

SIZE = (1400, 860)
CALCULATOR = ROOT / "benchmark" / "apps" / "calculator"


def _picture(i: int, text: str) -> Image.Image:
    image = Image.new("RGB", (480, 360), (236, 239, 244))
    draw = ImageDraw.Draw(image)
    draw.rectangle([20, 20, 460, 80], fill=(40, 44, 52))
    draw.text((30, 40), text, fill=(255, 255, 255))
    for k in range(12):
        x, y = 20 + (k % 4) * 112, 100 + (k // 4) * 84
        draw.rectangle([x, y, x + 100, y + 72], fill=(90 + 10 * ((k + i) % 5), 120, 200))
    return image


def _play(store: TrajectoryStore, path: str, verdict: str, steps: int = 6) -> int:
    run = store.create_run(target="calculator", target_path=path, tester="offline", window_width=480,
                           window_height=360)
    t0 = store.run(run)["started_at"]
    shas = [store.put_image(_picture(i, f"{7 + i} - 3 = {4 + i if verdict == 'pass' else -4 - i}"))
            for i in range(steps + 1)]
    for i in range(steps):
        store.add_step(run, i, {"action": {"action": "click", "x": 70 + 30 * i, "y": 140}, "outcome": "ok",
                                "frame_before": shas[i], "frame_after": shas[i + 1], "changed_bbox": [20, 20, 460, 80],
                                "started_at": t0 + i, "ended_at": t0 + i + 0.5})
    store.finish_run(run, status="completed", verdict=verdict, reason="synthetic")
    return run


def _database(folder: Path) -> tuple[Path, int, list[int]]:
    db = folder / "shots.db"
    store = TrajectoryStore(db)
    for i in range(4):
        _play(store, str(CALCULATOR), "pass" if i % 2 else "fail")
    copy = str(folder / "repair-copy" / "calculator")
    session = store.create_run(kind="repair", target="calculator@wrong-subtraction", target_path=copy,
                               tester="offline", config={"refiner": "offline", "max_iterations": 3})
    plays = [_play(store, copy, "fail"), _play(store, copy, "pass")]
    with store.transaction():
        store.db.table("patches").insert({"run_id": session, "iteration": 1, "retest_run": plays[1], "diff": "",
                                          "files": '{"outcome": "fixed"}', "validation": "{}", "at": 0.0})
    store.finish_run(session, status="completed", verdict="pass", reason="fixed in iteration 1")
    validation.sample_set(store, "offers", successes=2, failures=2, seed=3)
    store.close()
    return db, session, plays


def _save(widget, path: Path) -> None:
    QApplication.processEvents()
    if not widget.grab().save(str(path)):
        raise SystemExit(f"could not write {path}")
    print(f"wrote {path}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("PlayCoderScreenshots")
    apply_style(app)
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        QSettings.setDefaultFormat(QSettings.Format.IniFormat)
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
        QSettings().setValue("verdicts/author", "ann")
        db, session, plays = _database(Path(tmp))
        win = MainWindow()
        win.modal_messages = False
        win.resize(*SIZE)
        win.show()
        win.open_database(db)

        # A repair's plays in the run list.
        browser = win.browser
        browser.kind_filter.setCurrentIndex(browser.kind_filter.findData("repair-play"))
        win.open_run(plays[1])
        browser.kind_filter.setCurrentIndex(browser.kind_filter.findData("repair-play"))
        if f"play of repair #{session}" not in win.run_view.header.meta.text():
            failures.append("the play's header does not name its repair")
        _save(win, args.out / "repair-plays.png")
        browser.kind_filter.setCurrentIndex(0)

        # Take-over mode on a paused live run (never started: only the view's state matters here).
        from app.views.live.live_run import PAUSED, LiveRun
        from app.views.live.run_request import RunRequest
        from app.views.run.run_header_view import LIVE_PAGE

        win.open_run(plays[0])
        live = LiveRun(RunRequest(str(CALCULATOR)), db, win)
        win.live_controls.follow(live)
        live._set_state(PAUSED)
        win.run_view.live.show_frame(QImage.fromData(_png(_picture(3, "9 - 3 = -6"))))
        win.run_view.show_page(LIVE_PAGE)
        win.commands.take_over.trigger()
        if not (win.run_view.live.takeover and win.run_view.live.banner.isVisible()):
            failures.append("take-over mode is not on")
        _save(win, args.out / "takeover-mode.png")
        win.commands.take_over.trigger()
        live.shutdown()

        # Blinded labelling with the task above the run.
        from app.views.labelling.annotation_view import AnnotationView
        from app.views.widgets.tool_window import ToolWindow

        store = TrajectoryStore(db)
        view = AnnotationView(Database(store), "ann", set_name="offers")
        window = ToolWindow(view, size=(1200, 800))
        window.show()
        if "Goal" not in view.instructions.text.text():
            failures.append("the labelling window shows no task")
        _save(window, args.out / "labelling-task.png")
        window.close()
        store.close()
        win.close()
    for failure in failures:
        print(f"check failed: {failure}", file=sys.stderr)
    return 1 if failures else 0


def _png(image: Image.Image) -> bytes:
    import io

    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


if __name__ == "__main__":
    raise SystemExit(main())

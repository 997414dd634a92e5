"""The issue-17 walkthrough: the workbench under Xvfb with a window manager, driven by keys, photographed.

    python docs/walkthrough.py [--out docs/screenshots] [--work DIR] [--only repair,labelling,fit,fit150,differential]

Each scenario runs in a child process of its own, on a private Xvfb with
openbox, with the workbench on ``QT_QPA_PLATFORM=xcb``; key presses are
QTest key events sent to the focused widget, as a keyboard would, and the
whole screen is saved after each stage (PNG, each under 300 KB):

- ``repair`` (1280×800): Repair › New repair… (Ctrl+Shift+R) on
  tiles2048@crash-on-restart with the offline refiner, watched live to its
  end — the first play, a re-test with its patch, the fixed cycle opened at
  the step where the crash showed, and the presentation mode (F11, PgUp).
- ``labelling`` (1280×800): twenty real runs (ten bundled apps, ten bug
  variants), Validation › New validation set… (Ctrl+Shift+N) of 10 + 10,
  Annotate (Ctrl+L) and all 20 items labelled with ← / →, 1 / 2, Enter — an
  application-wide filter checks that no mouse event reached the workbench.
- ``fit`` (1280×800) and ``fit150`` (1920×1080 at ``QT_SCALE_FACTOR=1.5``):
  the main window with a run open and the repair window, each checked to lie
  fully inside the screen's available area.
- ``differential`` (1440×900: at 1280×800 the three panes cut their
  subtitles): a differential run of calculator@wrong-subtraction (seed 0)
  played, opened by keys (Space in the run list, → to the step where it
  diverged, Ctrl+B to give the panes the run list's width) and photographed:
  candidate | reference | difference with the differing pixels in red, and the
  timeline with the step badged ``diverged``
  (``python docs/walkthrough.py --only differential`` makes just this one).

``--work`` keeps the databases between runs (the twenty runs take a few
minutes to play); the scenarios exit non-zero when a check fails.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

SCENARIOS = {"repair": ((1280, 800), "1"), "labelling": ((1280, 800), "1"), "fit": ((1280, 800), "1"),
             "fit150": ((1920, 1080), "1.5"), "differential": ((1440, 900), "1")}
"""Scenario → (screen size, QT_SCALE_FACTOR)."""
MAX_PNG_BYTES = 300_000
BUG = "tiles2048@crash-on-restart"
PASSING = ("calculator", "converter", "flappy", "memory", "notes", "snake", "stopwatch", "tictactoe", "tiles2048",
           "todo", "calculator", "tiles2048")
FAILING = ("calculator@buttons-dead", "converter@swap-typo", "flappy@crash-on-fifth-flap", "memory@crash-on-mismatch",
           "stopwatch@controls-dead", "tiles2048@keys-ignored", "tiles2048@crash-on-restart", "tiles2048@blank-window",
           "todo@delete-crash", "memory@clicks-ignored", "tictactoe@freeze-on-occupied", "snake@freeze-on-game-over")
STEPS = 12
DIFFERENTIAL = ("calculator@wrong-subtraction", "--tester", "differential", "--seed", "0", "--max-steps", "8")
"""A differential run that diverges at step 5: the calculator shows -6 for 9 - 3."""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    ap.add_argument("--work", type=Path, default=None, help="keep databases here (default: a temporary folder)")
    ap.add_argument("--only", default=",".join(SCENARIOS))
    ap.add_argument("--scenario", default=None, help=argparse.SUPPRESS)  # the child's own
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    work = args.work or Path(tempfile.mkdtemp(prefix="playcoder-walkthrough-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.scenario:
        return Scenario(args.scenario, args.out, work).run()
    failed = []
    for name in [n.strip() for n in args.only.split(",") if n.strip()]:
        print(f"== {name}", flush=True)
        if _on_private_screen(name, args.out, work) != 0:
            failed.append(name)
    print("failed: " + ", ".join(failed) if failed else "all scenarios passed")
    return 1 if failed else 0


def _on_private_screen(name: str, out: Path, work: Path) -> int:
    from app.engine.play.display import start_xvfb
    from desktop_support import wait_for_window_manager

    size, scale = SCENARIOS[name]
    display = start_xvfb(size)
    wm = None
    try:
        wm = subprocess.Popen(["openbox", "--sm-disable"], env=dict(os.environ, DISPLAY=display.name),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        wait_for_window_manager(display.name)
        env = dict(os.environ, DISPLAY=display.name, QT_QPA_PLATFORM="xcb", QT_SCALE_FACTOR=scale,
                   SDL_AUDIODRIVER="dummy")
        return subprocess.run([sys.executable, __file__, "--scenario", name, "--out", str(out), "--work", str(work)],
                              env=env, cwd=ROOT, timeout=1800).returncode
    finally:
        if wm is not None:
            wm.terminate()
            wm.wait(5)
        display.close()


class Scenario:
    def __init__(self, name: str, out: Path, work: Path) -> None:
        from PySide6.QtCore import QSettings
        from PySide6.QtWidgets import QApplication

        self.name, self.out, self.work = name, out, work
        from app.views.shell.main_window import apply_style

        self.app = QApplication.instance() or QApplication([])
        self.app.setOrganizationName("PlayCoderWalkthrough")
        apply_style(self.app)  # as `playcoder gui` starts
        QSettings.setDefaultFormat(QSettings.Format.IniFormat)
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(work / f"settings-{name}"))
        settings = QSettings()
        settings.clear()
        settings.setValue("verdicts/author", "walkthrough")  # the one identity: labels and overrides carry it
        settings.sync()
        self.problems: list[str] = []

    def run(self) -> int:
        getattr(self, f"scenario_{self.name}")()
        for problem in self.problems:
            print(f"FAILED: {problem}", flush=True)
        return 1 if self.problems else 0

    # -- helpers -------------------------------------------------------------------------------
    def wait(self, cond: Callable[[], Any], timeout: float = 60.0, what: str = "") -> bool:
        deadline = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > deadline:
                self.problems.append(f"timed out waiting for {what}")
                return False
            self.app.processEvents()
            time.sleep(0.02)
        return True

    def settle(self, seconds: float = 0.6) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.app.processEvents()
            time.sleep(0.02)

    def check(self, ok: Any, what: str) -> None:
        print(("ok   " if ok else "FAIL ") + what, flush=True)
        if not ok:
            self.problems.append(what)

    def key(self, key: Any, modifiers: Any = None, widget: Any = None) -> None:
        """One key press to whatever has the focus (as a keyboard would), or to ``widget``."""
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        target = widget or self.app.focusWidget() or self.app.activeWindow()
        QTest.keyClick(target, key, modifiers or Qt.KeyboardModifier.NoModifier)
        self.app.processEvents()

    def shot(self, name: str) -> None:
        import mss
        from PIL import Image

        self.settle(0.4)
        grabber = mss.MSS if hasattr(mss, "MSS") else mss.mss
        with grabber(display=os.environ["DISPLAY"]) as grab:
            raw = grab.grab(grab.monitors[0])
        image = Image.frombytes("RGB", raw.size, raw.bgra, "raw", "BGRX")
        data = _png(image)
        if len(data) > MAX_PNG_BYTES:  # a busy screen: 256 colours keep UI text crisp
            data = _png(image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE))
        if len(data) > MAX_PNG_BYTES:
            small = image.resize((image.width * 3 // 4, image.height * 3 // 4), Image.Resampling.LANCZOS)
            data = _png(small.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE))
        (self.out / name).write_bytes(data)
        print(f"shot {name}: {len(data) // 1024} KB", flush=True)

    def fits(self, window: Any, what: str) -> None:
        screen = window.screen().availableGeometry()
        frame = window.frameGeometry()
        self.check(screen.contains(frame), f"{what} {frame.width()}×{frame.height()} at ({frame.x()}, {frame.y()}) "
                                           f"lies inside the screen's {screen.width()}×{screen.height()}")

    def main_window(self, db: Path) -> Any:
        from app.views.shell.main_window import DEFAULT_SIZE, MainWindow
        from app.views.widgets.screen_fit import fit_to_screen

        win = MainWindow()
        win.modal_messages = False
        fit_to_screen(win, DEFAULT_SIZE)  # as `playcoder gui` opens it
        win.show()
        self.wait(win.isVisible, what="the main window")
        self.check(win.open_database(db), f"opened {db.name}")
        win.activateWindow()
        self.settle()
        return win

    def with_dialog(self, fill: Callable[[Any], None]) -> None:
        """Run ``fill(dialog)`` once the next modal dialog is up (its exec() blocks the caller)."""
        from PySide6.QtCore import QTimer

        def attempt() -> None:
            dialog = self.app.activeModalWidget()
            if dialog is None:
                QTimer.singleShot(50, attempt)
                return
            fill(dialog)
            QTimer.singleShot(3000, lambda: still_open(dialog))

        def still_open(dialog: Any) -> None:
            if dialog.isVisible():  # refused (its sentence is in the window's messages): never hang on it
                self.problems.append(f"{dialog.windowTitle()} stayed open")
                dialog.reject()

        QTimer.singleShot(50, attempt)

    # -- scenarios ---------------------------------------------------------------------------------
    def scenario_repair(self) -> None:
        from PySide6.QtCore import Qt

        db = self.work / "repair.db"
        _remove_db(db)
        win = self.main_window(db)

        def fill(dialog: Any) -> None:
            dialog.app_combo.setCurrentIndex(dialog.app_combo.findText("tiles2048"))
            dialog.bug_combo.setCurrentIndex(dialog.bug_combo.findData(BUG.split("@")[1]))
            dialog.iterations_spin.setValue(3)
            dialog.refiner_combo.setCurrentText("offline")
            self.settle(0.8)
            self.shot("repair-new.png")
            self.key(Qt.Key.Key_Return, widget=dialog)

        self.with_dialog(fill)
        self.key(Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier, win)
        self.check(win.repair.window is not None and win.repair.repairing, "New repair… started the child process")
        view = win.repair.window.view
        win.repair.window.activateWindow()
        self.wait(lambda: view.frames.live_side == "before" and view.frames.before_live.frames_shown > 20,
                  what="the first play, live")
        self.shot("repair-live-first-play.png")
        self.wait(lambda: view.frames.live_side == "after" and view.frames.after_live.frames_shown > 20
                  and view.details.currentIndex() == 1, 240, what="a re-test, live, with its patch")
        self.check(view.cycle_count() < (view._run.progress.iteration if view._run and view._run.progress else 99),
                   "the patch shows before its cycle is recorded")
        self.shot("repair-live-retest.png")
        self.wait(lambda: not win.repair.repairing, 400, what="the end of the repair")
        self.settle(1.0)
        rec = view.current_cycle()
        self.check(rec is not None and rec.outcome == "fixed", "the repair fixed the program; its last cycle is shown")
        self.check(rec is not None and view.step_slider.value() == view.failure_step(rec) > 0,
                   "the cycle opened at the step where the crash showed")
        view.details.setCurrentIndex(1)
        self.shot("repair-done.png")
        view.activateWindow()
        self.settle()
        self.key(Qt.Key.Key_F11, widget=view)
        show = view.presentation
        self.wait(lambda: show is not None and show.isVisible(), what="the presentation")
        self.settle(1.0)
        self.shot("repair-present.png")
        self.key(Qt.Key.Key_PageUp, widget=show)
        self.key(Qt.Key.Key_Right, widget=show)
        self.check(view.current_cycle() is not None and view.current_cycle().iteration == rec.iteration - 1,
                   "PgUp in the presentation went to the previous cycle")
        self.key(Qt.Key.Key_Escape, widget=show)
        self.check(view.presentation is None, "Esc left the presentation")
        win.close()

    def scenario_labelling(self) -> None:
        from PySide6.QtCore import QEvent, QObject, Qt

        runs = self.work / "labelling-runs.db"
        self._play_runs(runs)
        db = self.work / "labelling.db"  # a fresh copy: the set is drawn anew each time
        _remove_db(db)
        self._copy_db(runs, db)
        win = self.main_window(db)

        class NoMouse(QObject):
            """Counts every mouse press, release and move that reaches the workbench."""

            count = 0

            def eventFilter(self, _watched: QObject, event: QEvent) -> bool:
                if event.type() in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease,
                                    QEvent.Type.MouseButtonDblClick, QEvent.Type.Wheel):
                    NoMouse.count += 1
                return False

        spy = NoMouse()
        self.app.installEventFilter(spy)

        def fill(dialog: Any) -> None:
            dialog.name_edit.setFocus()
            from PySide6.QtTest import QTest

            QTest.keyClicks(dialog.name_edit, "walkthrough")
            for spin in (dialog.successes_spin, dialog.failures_spin):
                spin.setFocus()
                spin.selectAll()
                QTest.keyClicks(spin, "10")
            self.settle(0.6)
            self.shot("labelling-new-set.png")
            self.key(Qt.Key.Key_Return, widget=dialog)

        self.with_dialog(fill)
        self.key(Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier, win)
        self.settle()
        self.key(Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier, win)
        window = win.validation.annotation
        self.check(window is not None, "Annotate (Ctrl+L) opened the labelling window")
        if window is None:
            return
        view = window.view
        self.wait(window.isActiveWindow, 10, what="the labelling window to have the keyboard")
        self.settle()
        self.check(not win.browser.isVisible(), "the main window hides the runs while labelling")
        total = view.progress_bar.maximum()
        self.check(total == 20, f"the set has 20 items ({total})")
        for n in range(20):
            self.key(Qt.Key.Key_Right)
            self.key(Qt.Key.Key_Right)
            self.key(Qt.Key.Key_Left)
            if n == 6:
                self.shot("labelling-keys.png")
            self.key(Qt.Key.Key_1 if n % 3 else Qt.Key.Key_2)
            self.key(Qt.Key.Key_Return)
        self.settle()
        self.shot("labelling-done.png")
        from app.engine.study import validation

        vset = validation.get_set(win.model.store, "walkthrough")
        labels = validation.labels_of(win.model.store, vset, "walkthrough")
        self.check(len(labels) == 20, f"20 items labelled ({len(labels)})")
        self.check(NoMouse.count == 0, f"no mouse event reached the workbench ({NoMouse.count})")
        self.app.removeEventFilter(spy)
        window.close()
        win.close()

    @staticmethod
    def _copy_db(source: Path, target: Path) -> None:
        from app.engine.trace.store import TrajectoryStore

        store = TrajectoryStore(source)
        try:
            store.conn.execute("VACUUM INTO ?", [str(target)])
        finally:
            store.close()

    def _play_runs(self, db: Path) -> None:
        """Real runs to label: the bundled apps as they are and some bug variants (played once, then kept)."""
        from app.engine.trace.store import TrajectoryStore

        if db.exists():
            store = TrajectoryStore(db, readonly=True)
            verdicts = [r.get("verdict") for r in store.runs() if r.get("kind") != "repair"]
            store.close()
            if verdicts.count("pass") >= 10 and verdicts.count("fail") >= 10:
                return
        for target in PASSING + FAILING:
            proc = subprocess.run([sys.executable, "-m", "app", "test", target, "--max-steps", str(STEPS), "--json",
                                   "--db", str(db)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                                  env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
            said = proc.stdout.strip().splitlines()[-1][:120] if proc.stdout.strip() else proc.stderr[-200:]
            print(f"played {target}: {said}", flush=True)

    def scenario_fit(self) -> None:
        self._fit("")

    def scenario_fit150(self) -> None:
        self._fit("-150")

    def _fit(self, suffix: str) -> None:
        db = self.work / "labelling.db"
        if not db.exists():
            db = self.work / "repair.db"
        win = self.main_window(db)
        self.wait(lambda: win.browser.model.rowCount() > 0, 10, what="runs in the list")
        runs = [r for r in win.model.store.runs() if r.get("kind") != "repair" and r["step_count"] > 0]
        crashed = next((r for r in runs if r.get("verdict") == "fail"), runs[0] if runs else None)
        self.check(crashed is not None and win.open_run(int(crashed["id"])), "a recorded run is open")
        self.settle(1.0)
        self.fits(win, f"the main window (scale {os.environ.get('QT_SCALE_FACTOR', '1')})")
        self.shot(f"workbench-fit{suffix}.png")
        repair_db = self.work / "repair.db"
        if repair_db.exists():
            win.open_database(repair_db)
            win.repair.open(win.database, "Repair sessions")
            self.settle(1.5)
            self.fits(win.repair.window, "the repair window")
            self.shot(f"repair-fit{suffix}.png")
            win.repair.close()
        win.close()

    def scenario_differential(self) -> None:
        from PySide6.QtCore import Qt

        from app.views.run.difference_maker import difference_key

        db = self.work / "differential.db"
        _remove_db(db)
        proc = subprocess.run([sys.executable, "-m", "app", "test", *DIFFERENTIAL, "--json", "--db", str(db)],
                              cwd=ROOT, capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        said = proc.stdout.strip().splitlines()[-1][:160] if proc.stdout.strip() else proc.stderr[-300:]
        print(f"played {DIFFERENTIAL[0]} (differential): {said}", flush=True)
        win = self.main_window(db)
        self.wait(lambda: win.browser.model.rowCount() > 0, 10, what="the run in the list")
        runs = win.model.store.runs()
        diverged = next((f["step"] for f in win.model.store.findings(int(runs[0]["id"])) if f["kind"] == "diverged"),
                        None) if runs else None
        self.check(diverged is not None, f"the run diverged (at step {diverged})")
        if diverged is None:
            win.close()
            return
        rv = win.run_view
        win.browser.table.setFocus()  # the run list: focus puts its cursor on the (only) run, Space selects it
        self.settle(0.2)
        self.key(Qt.Key.Key_Space, widget=win.browser.table)  # (Space pauses only a live run: none here)
        self.wait(lambda: rv.run_id is not None, 10, what="the run to open")
        self.check(rv.reference.isVisible() and rv.difference.isVisible() and not rv.before.isVisible()
                   and rv.after.title() == "Candidate", "a differential run shows candidate | reference | difference")
        for _ in range(rv.model.available):  # → to the step where it diverged
            step = rv.model.step_at(rv.current_row())
            if step is None or step["idx"] >= diverged:
                break
            self.key(Qt.Key.Key_Right)
        step = rv.model.step_at(rv.current_row())
        self.check(step is not None and step["idx"] == diverged, f"→ reached step #{diverged}")
        if step is None or not step.get("frame_reference"):
            self.problems.append("the diverged step has no reference frame")
            win.close()
            return
        key = difference_key(step["frame_after"], step["frame_reference"])
        self.wait(lambda: rv.differences.made(key) is not None, 10, what="the difference")
        made = rv.differences.made(key)
        self.check(made is not None and made.image is not None and made.pixels > 0,
                   f"the difference shows {made.pixels if made else 0} pixels in red")
        self.check("diverged" in rv.model.kinds_of(step), "the timeline badges the step 'diverged'")
        self.key(Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)  # Ctrl+B: the run list away, the panes wider
        self.check(not win.browser.isVisible(), "Ctrl+B hid the run list")
        self.shot("differential-run.png")
        win.close()


def _remove_db(db: Path) -> None:
    """A database file and everything beside it that belongs to it."""
    import shutil

    for suffix in ("", "-wal", "-shm"):
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    shutil.rmtree(db.with_name(db.name + ".films"), ignore_errors=True)


def _png(image: Any) -> bytes:
    buf = io.BytesIO()
    image.save(buf, "PNG", optimize=True)
    return buf.getvalue()


if __name__ == "__main__":
    sys.exit(main())

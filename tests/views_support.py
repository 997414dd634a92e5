"""Shared fixtures and builders for the workbench (app/views) tests.

Imported by every ``test_views_*.py`` module before PySide6 so the widget
tests run offscreen.  Databases come from the real engine (a short run of the
probe target under its own Xvfb) or from the store API (synthetic runs of any
length).  This module holds no tests itself.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

os.environ["QT_QPA_PLATFORM"] = "offscreen"

import pytest  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from app.engine.trace.store import TrajectoryStore  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PROBE = ROOT / "tests" / "targets" / "probe_tk"
needs_xvfb = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is not installed")

SYNTHETIC_SIZE = (640, 480)
SYNTHETIC_ACTIONS = (
    {"action": "click", "x": 120, "y": 80},
    {"action": "double_click", "x": 300, "y": 200},
    {"action": "right_click", "x": 500, "y": 400},
    {"action": "drag", "x": 50, "y": 60, "x2": 400, "y2": 300},
    {"action": "type", "text": "hello world"},
    {"action": "press", "key": "enter"},
    {"action": "hotkey", "keys": ["ctrl", "s"]},
    {"action": "scroll", "x": 320, "y": 240, "direction": "down", "amount": 3},
    {"action": "wait", "seconds": 0.5},
)


def synthetic_frames(count: int, size: tuple[int, int] = SYNTHETIC_SIZE) -> list[Image.Image]:
    frames = []
    for i in range(count):
        image = Image.new("RGB", size, (20 + (i * 37) % 200, 40, 60 + (i * 53) % 180))
        draw = ImageDraw.Draw(image)
        draw.rectangle([40 + i % 300, 40, 200 + i % 300, 160], fill=(240, 200, 40))
        draw.text((20, size[1] - 30), f"frame {i}", fill=(255, 255, 255))
        frames.append(image)
    return frames


def make_synthetic_run(store: TrajectoryStore, steps: int, *, distinct_frames: int = 40, target: str = "synthetic",
                       verdict: str | None = "pass", tester: str = "offline", status: str = "completed") -> int:
    """Write a finished run of ``steps`` steps (cycling action types and frames) in one transaction."""
    t0 = time.time() - steps * 0.2
    run_id = store.create_run(target=target, tester=tester, display="isolated", seed=0, max_steps=steps,
                              window_width=SYNTHETIC_SIZE[0], window_height=SYNTHETIC_SIZE[1], started_at=t0)
    shas = [store.put_image(img) for img in synthetic_frames(distinct_frames)]
    with store.transaction():
        for i in range(steps):
            started = t0 + i * 0.2
            findings = [{"step": i, "kind": "exception", "message": f"boom at {i}"}] if i % 997 == 5 else []
            store.add_step(run_id, i, {
                "actor": "human" if i % 50 == 7 else "tester",
                "action": SYNTHETIC_ACTIONS[i % len(SYNTHETIC_ACTIONS)],
                "outcome": "refused" if i % 101 == 3 else "ok",
                "rationale": f"synthetic step {i}",
                "frame_before": shas[i % distinct_frames], "frame_after": shas[(i + 1) % distinct_frames],
                "changed_bbox": [40, 40, 200, 160] if i % 3 else None,
                "settle_ms": 80.0, "settled": 1, "decide_ms": 2.0, "act_ms": 20.0,
                "tokens_in": 100 if i % 2 else None, "tokens_out": 20 if i % 2 else None,
                "findings": [f["kind"] for f in findings] or None,
                "started_at": started, "ended_at": started + 0.1,
            }, findings)
        store.conn.executemany(
            "INSERT INTO target_logs (run_id, stream, t, text) VALUES (?, ?, ?, ?)",
            [(run_id, "stdout" if i % 7 else "stderr", t0 + i * 0.2 + 0.05, f"log line {i}") for i in range(min(steps, 2000))],
        )
    if status != "running":
        store.finish_run(run_id, status=status, verdict=verdict, reason="synthetic run")
    return run_id


def run_probe(db: Path, steps: int = 6) -> dict:
    """Play the probe target with the real engine (own Xvfb) and return its JSON summary."""
    out = subprocess.run(
        [sys.executable, "-m", "app", "test", str(PROBE), "--json", "--db", str(db), "--max-steps", str(steps)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    import json

    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def probe_db_template(tmp_path_factory) -> Path:
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed")
    db = tmp_path_factory.mktemp("probe") / "probe.db"
    run_probe(db, 6)
    return db


@pytest.fixture
def probe_db(probe_db_template, tmp_path) -> Path:
    """A private copy of a database holding one real 6-step run of the probe target."""
    db = tmp_path / "probe.db"
    src = TrajectoryStore(probe_db_template)
    src.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    src.close()
    shutil.copy(probe_db_template, db)
    return db


@pytest.fixture
def isolated_settings(qapp, tmp_path):
    """QSettings in a temporary INI file, with a known author for verdict overrides."""
    from PySide6.QtCore import QSettings

    qapp.setOrganizationName("PlayCoderTests")
    qapp.setApplicationName("WorkbenchTests")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    settings = QSettings()
    settings.clear()
    settings.setValue("verdicts/author", "alice")
    settings.sync()
    yield settings
    settings.clear()


@pytest.fixture
def window(qtbot, isolated_settings):
    """The workbench's main window, 1400x900, shown, with its messages not modal (a test answers no dialog)."""
    from app.views.shell.main_window import MainWindow

    win = MainWindow()
    win.modal_messages = False
    win.resize(1400, 900)
    qtbot.addWidget(win)
    win.show()
    yield win
    win.close()


def paused_live_run(win, db: Path, tester: str = "offline"):
    """A live run of the probe on ``win``, shown paused with a blue frame, without starting its engine (the
    take-over and offers tests act on the paused view); the caller shuts it down."""
    from PySide6.QtGui import QColor, QImage

    from app.views.live.live_run import PAUSED, LiveRun
    from app.views.live.run_request import RunRequest
    from app.views.run.run_header_view import LIVE_PAGE

    assert win.open_database(db)
    live = LiveRun(RunRequest(str(PROBE), tester=tester), db, win)
    win.live_controls.follow(live)
    live._set_state(PAUSED)
    image = QImage(320, 200, QImage.Format.Format_RGB32)
    image.fill(QColor("#336699"))
    win.run_view.live.show_frame(image)
    win.run_view.show_page(LIVE_PAGE)
    return live


def png_bytes(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()

"""The run view scrubs the run's film: time axis, off-thread decoding, frame stepping."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np
import pytest
from views_support import ROOT, make_synthetic_run, needs_xvfb

from PySide6.QtCore import QPoint, Qt  # noqa: E402

from app.views.model.database import Database  # noqa: E402
from app.engine.trace.film_reader import FilmReader  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.run.film_player import FilmPlayer  # noqa: E402
from app.views.run.run_view import RunView  # noqa: E402

SEEK_BUDGET_S = 0.05


@pytest.fixture(scope="module")
def filmed_db(tmp_path_factory):
    """A real run of the flash target (a still board that flashes white for one frame now and then)."""
    db = tmp_path_factory.mktemp("film") / "r.db"
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(ROOT / "tests" / "targets" / "flash_pg"),
                           "--json", "--db", str(db), "--max-steps", "6"], cwd=ROOT, capture_output=True, text=True,
                          timeout=180)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["film_frames"] > 0, proc.stderr[-2000:]
    return db, summary["run_id"]


@pytest.fixture
def run_view(qtbot):
    view = RunView()
    view.resize(1100, 800)
    qtbot.addWidget(view)
    view.show()
    yield view
    view.player.close()


def pixels(image) -> np.ndarray:
    image = image.convertToFormat(image.Format.Format_RGB888)
    data = np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes())
    return data.reshape(image.height(), image.bytesPerLine())[:, :image.width() * 3].reshape(
        image.height(), image.width(), 3)


@needs_xvfb
def test_scrubbing_shows_the_film_between_steps(run_view, filmed_db, qtbot):
    db, run_id = filmed_db
    store = TrajectoryStore(db)
    run_view.set_database(Database(store))
    run_view.open_run(run_id)
    scrub = run_view.scrub
    assert scrub.has_film and len(scrub.steps) == 6
    first, second = scrub.steps[0], scrub.steps[1]
    assert scrub.playhead == pytest.approx(first[2])  # the selected step's end
    moment = (first[2] + second[1]) / 2  # between two steps: only the film has a picture for it
    x = round(scrub.x_of(moment))
    with qtbot.waitSignal(run_view.player.sig_frame_decoded, timeout=3000) as blocker:
        qtbot.mouseClick(scrub, Qt.MouseButton.LeftButton, pos=QPoint(x, 20))
    requested, t, index, image = blocker.args
    assert abs(requested - moment) < 2 * (scrub.t1 - scrub.t0) / scrub.width()
    film = FilmReader.open(store, run_id)
    assert film is not None and index == film.index_at(requested) and t == pytest.approx(film.times[index])
    expected = np.frombuffer(film.frame(index).rgb, np.uint8).reshape(image.height(), image.width(), 3)
    qtbot.waitUntil(lambda: run_view.after.image() is not None and "film t+" in run_view.after._subtitle)
    assert np.array_equal(pixels(run_view.after.image()), expected)
    assert f"frame {index}" in run_view.after._subtitle
    # → steps one film frame; the view follows the newest request only.
    scrub.setFocus()
    with qtbot.waitSignal(run_view.player.sig_frame_decoded, timeout=3000) as blocker:
        qtbot.keyClick(scrub, Qt.Key.Key_Right)
    assert blocker.args[2] == index + 1
    # Choosing a step again shows the step's own frames.
    run_view.go_to_row(2)
    assert "film" not in run_view.after._subtitle
    film.close()
    store.close()


@needs_xvfb
def test_seeks_stay_within_budget_and_off_the_gui_thread(filmed_db, qtbot):
    db, run_id = filmed_db
    store = TrajectoryStore(db)
    film = FilmReader.open(store, run_id)
    assert film is not None
    player = FilmPlayer()
    player.set_reader(film)
    times = []
    rng = np.random.default_rng(3)
    for t in rng.uniform(film.start, film.end, 25):
        t0 = time.perf_counter()
        with qtbot.waitSignal(player.sig_frame_decoded, timeout=3000):
            player.request(float(t))
        times.append(time.perf_counter() - t0)
    assert float(np.median(times)) <= SEEK_BUDGET_S, times
    # A burst of requests: only the newest needs an answer; the GUI thread never waited for a decode.
    t0 = time.perf_counter()
    for t in np.linspace(film.start, film.end, 200):
        player.request(float(t))
    assert time.perf_counter() - t0 < 0.1
    assert player.wait_idle(5)
    assert player.decoded < 25 + 200
    player.close()
    assert player._thread is None or not player._thread.is_alive()
    store.close()


def test_a_run_without_a_film_shows_its_axis_without_one(run_view, tmp_path, qtbot):
    store = TrajectoryStore(tmp_path / "s.db")
    run_id = make_synthetic_run(store, 30)
    run_view.set_database(Database(store))
    run_view.open_run(run_id)
    assert not run_view.scrub.has_film and len(run_view.scrub.steps) == 30
    assert run_view.player.reader is None
    qtbot.mouseClick(run_view.scrub, Qt.MouseButton.LeftButton, pos=QPoint(200, 20))  # nothing to decode
    qtbot.wait(50)
    assert "film" not in run_view.after._subtitle
    store.close()

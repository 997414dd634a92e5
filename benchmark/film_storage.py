"""The run's film: frame rate, storage, workbench open and seek times.

    python benchmark/film_storage.py [--real-seconds 30] [--minutes 10] [--seeks 200]

1. A real run: the bundled flappy (400×600, drawing at 30 fps) played by the offline
   tester for ``--real-seconds`` under its own Xvfb.  Prints captured_frames/duration_s
   (target ≥ 30), the film's own frames a second, its bytes a minute, and that rate
   extrapolated to 10 minutes and scaled to an 800×600 window (by pixel count).
2. A synthetic run, said to be synthetic: ``--minutes`` of a moving 800×600 game scene
   (scrolling sky, clouds, pipes and ground; a bird; a score) at 30 fps, written through
   the same recorder, timestamps 1/30 s apart.  Prints its size (target ≤ 200 MB for
   10 minutes).
3. The workbench on that run: :class:`RunView` opening it (target ≤ 1 s), raw seeks to random
   moments (``FilmReader.frame_at``) and scrubs through the view's player, request to picture
   on the GUI thread (target ≤ 50 ms per seek).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from app.engine.run.session import RunConfig, Session  # noqa: E402
from app.engine.trace.film import FILM_FPS, FilmRecorder  # noqa: E402
from app.engine.trace.film_reader import FilmReader  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402

W, H = 800, 600
MB = 1e6


class Picture:
    __slots__ = ("width", "height", "bgrx", "t")

    def __init__(self, width: int, height: int, bgrx: bytes, t: float) -> None:
        self.width, self.height, self.bgrx, self.t = width, height, bgrx, t


def pct(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))]


# -- 1. a real target ---------------------------------------------------------------------------
def real_run(seconds: float, folder: Path) -> None:
    store = TrajectoryStore(folder / "real.db")
    result = Session(RunConfig(target="flappy", duration_s=seconds, max_steps=100_000), store).run()
    assert result.run_id is not None
    rows = store.films(result.run_id)
    size = sum(int(r["bytes"] or 0) for r in rows)
    film = FilmReader.open(store, result.run_id)
    assert film is not None, "the real run has no film"
    span = film.end - film.start
    changes = len(film.change_times())
    per_min = size / span * 60
    width, height = int(rows[0]["width"]), int(rows[0]["height"])
    scaled = per_min * 10 * (W * H) / (width * height)
    print(f"real run: flappy {width}x{height}, offline tester, {result.steps} steps, status {result.status}")
    print(f"  captured_frames/duration_s = {result.captured_frames}/{result.duration_s:.1f} s = "
          f"{result.captured_frames / result.duration_s:.1f} /s  [target >= 30: "
          f"{'OK' if result.captured_frames / result.duration_s >= 30 else 'MISS'}]")
    print(f"  film: {changes} distinct frames over {span:.1f} s = {changes / span:.1f} fps "
          f"(the game draws at 30), {size / MB:.2f} MB = {per_min / MB:.2f} MB/min")
    print(f"  extrapolated: 10 min of this window {per_min * 10 / MB:.1f} MB; scaled to {W}x{H} by pixels "
          f"{scaled / MB:.1f} MB  [target <= 200 MB: {'OK' if scaled <= 200 * MB else 'MISS'}]")
    film.close()
    store.close()


# -- 2. a synthetic 10-minute run ---------------------------------------------------------------------------
def scene_maker() -> tuple[np.ndarray, list[np.ndarray]]:
    """A sky-and-ground strip twice as wide as the window (it scrolls) and a few bird sprites."""
    strip = Image.new("RGB", (2 * W, H), (112, 197, 206))
    d = ImageDraw.Draw(strip)
    rng = np.random.default_rng(0)
    for k in range(14):
        x, y, w = int(rng.integers(0, 2 * W)), int(rng.integers(40, 220)), int(rng.integers(60, 140))
        d.ellipse((x, y, x + w, y + w // 3), fill=(236, 248, 250))
    for k in range(6):
        x = 120 + k * 2 * W // 6
        gap = int(rng.integers(150, 330))
        for top, bottom in ((0, gap), (gap + 150, 520)):
            d.rectangle((x, top, x + 64, bottom), fill=(94, 176, 56), outline=(46, 104, 30), width=3)
    d.rectangle((0, 520, 2 * W, H), fill=(222, 206, 146))
    d.rectangle((0, 520, 2 * W, 532), fill=(120, 200, 70))
    for x in range(0, 2 * W, 40):
        d.polygon([(x, 532), (x + 20, 532), (x + 6, 560), (x - 14, 560)], fill=(196, 170, 96))
    birds = []
    for wing in range(3):
        b = Image.new("RGB", (40, 30), (112, 197, 206))
        bd = ImageDraw.Draw(b)
        bd.ellipse((4, 4, 36, 28), fill=(250, 214, 50), outline=(120, 80, 20), width=2)
        bd.ellipse((8, 8 + 4 * wing, 22, 18 + 4 * wing), fill=(255, 245, 200))
        birds.append(np.asarray(b))
    return np.asarray(strip), birds


def synthetic_frames(count: int):  # type: ignore[no-untyped-def]
    strip, birds = scene_maker()
    bgrx = np.zeros((H, W, 4), np.uint8)
    for i in range(count):
        x = (i * 3) % W
        rgb = strip[:, x:x + W].copy()
        y = int(280 + 120 * np.sin(i / 15))
        rgb[y:y + 30, 150:190] = birds[(i // 4) % 3]
        score = str(i // 45)
        for n, ch in enumerate(score):  # a blocky score that changes
            v = 255 if (int(ch) + n) % 2 else 200
            rgb[30:60, 380 + 22 * n:398 + 22 * n] = v
        bgrx[:, :, 0], bgrx[:, :, 1], bgrx[:, :, 2] = rgb[:, :, 2], rgb[:, :, 1], rgb[:, :, 0]
        yield bgrx.tobytes()


def synthetic_run(minutes: float, folder: Path) -> tuple[Path, int]:
    db = folder / "synthetic.db"
    store = TrajectoryStore(db)
    frames = int(minutes * 60 * FILM_FPS)
    t0 = time.time() - minutes * 60 - 5
    run_id = store.create_run(target="synthetic-800x600", tester="bench", window_width=W, window_height=H,
                              started_at=t0, status="completed", ended_at=t0 + minutes * 60)
    steps = int(minutes * 60)  # a step a second
    with store.transaction():
        for i in range(steps):
            store.add_step(run_id, i, {"action": {"action": "press", "key": "space"}, "outcome": "ok",
                                       "started_at": t0 + i, "ended_at": t0 + i + 0.4})
    recorder: FilmRecorder[Picture] = FilmRecorder(store.films_dir, run_id, lambda: TrajectoryStore(db))
    began = time.perf_counter()
    for i, pixels in enumerate(synthetic_frames(frames)):
        while recorder.backlog > 8:
            time.sleep(0.002)
        recorder.offer(Picture(W, H, pixels, t0 + i / FILM_FPS))
    stats = recorder.close(timeout=600)
    spent = time.perf_counter() - began
    size = sum(int(r["bytes"] or 0) for r in store.films(run_id))
    print(f"synthetic run (SYNTHESIZED frames: a scrolling 800x600 game scene, not a capture): "
          f"{minutes:g} min at {FILM_FPS} fps = {stats.frames} frames, dropped {stats.dropped}")
    print(f"  storage {size / MB:.1f} MB ({size / max(1, stats.frames) / 1024:.1f} KB/frame)  "
          f"[target <= 200 MB for 10 min: {'OK' if size * 10 / minutes <= 200 * MB else 'MISS'}]; "
          f"encoded at {stats.frames / spent:.0f} frames/s on this machine")
    store.close()
    return db, run_id


# -- 3. the workbench -------------------------------------------------------------------------------------
def workbench(db: Path, run_id: int, seeks: int) -> None:
    from PySide6.QtWidgets import QApplication

    import app.views.none_guard  # noqa: F401
    from app.views.model.database import Database
    from app.views.run.run_view import RunView

    qapp = QApplication.instance() or QApplication([])
    store = TrajectoryStore(db, readonly=True)
    view = RunView()
    view.resize(1200, 800)
    view.show()
    view.set_database(Database(store))
    qapp.processEvents()
    t = time.perf_counter()
    view.open_run(run_id)
    qapp.processEvents()
    opened = time.perf_counter() - t
    print(f"workbench: RunView.open_run of the {len(view.scrub.steps)}-step run with its film: "
          f"{opened * 1000:.0f} ms  [target <= 1 s: {'OK' if opened <= 1 else 'MISS'}]")

    film = FilmReader.open(store, run_id)
    assert film is not None
    rng = np.random.default_rng(7)
    raw = []
    for moment in rng.uniform(film.start, film.end, seeks):
        t = time.perf_counter()
        film.frame_at(float(moment))
        raw.append((time.perf_counter() - t) * 1000)
    film.close()
    print(f"  seek (FilmReader.frame_at, random moments, {seeks} seeks, full {W}x{H} RGB): median "
          f"{statistics.median(raw):.1f} ms, p95 {pct(raw, 0.95):.1f} ms, max {max(raw):.1f} ms  "
          f"[target <= 50 ms: {'OK' if pct(raw, 0.95) <= 50 else 'MISS'}]")

    shown: list[float] = []
    view.player.sig_frame_decoded.connect(lambda *args: shown.append(time.perf_counter()))
    scrub = []
    for moment in rng.uniform(film.start, film.end, min(seeks, 100)):
        before = len(shown)
        t = time.perf_counter()
        view.scrub._scrub_to(float(moment))
        while len(shown) == before and time.perf_counter() - t < 5:
            qapp.processEvents()
            time.sleep(0.0005)
        scrub.append((shown[-1] - t) * 1000)
    print(f"  scrub in the view (press on the time axis -> picture on the GUI thread, {len(scrub)} scrubs): "
          f"median {statistics.median(scrub):.1f} ms, p95 {pct(scrub, 0.95):.1f} ms  "
          f"[target <= 50 ms: {'OK' if statistics.median(scrub) <= 50 else 'MISS'}]")
    view.player.close()
    view.close()
    store.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--real-seconds", type=float, default=30.0, help="length of the real flappy run (0: skip)")
    ap.add_argument("--minutes", type=float, default=10.0, help="length of the synthetic 800x600 run")
    ap.add_argument("--seeks", type=int, default=200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.real_seconds > 0:
            real_run(args.real_seconds, folder)
        db, run_id = synthetic_run(args.minutes, folder)
        workbench(db, run_id, args.seeks)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

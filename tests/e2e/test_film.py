"""The run's film: recorder and reader on real files, kill -9, the flash oracle, and real runs."""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import av
import numpy as np
import pytest

from app.engine.judge.glitch import FlashWatcher
from app.engine.judge.verdict import Evidence, decide
from app.engine.judge.oracles import Finding
from app.engine.play.observer import Frame
from app.engine.play.targetspec import Timing
from app.engine.trace.film import INDEX, KEY, REPEAT, FilmRecorder
from app.engine.trace.film_reader import FilmReader
from app.engine.trace.store import TrajectoryStore

from suite import ROOT, TARGETS, needs_xvfb

W, H = 401, 301  # odd sides: the stream pads them to even and the reader crops back


@dataclass(frozen=True)
class Pic:
    width: int
    height: int
    bgrx: bytes
    t: float


def numbered(n: int, width: int = W, height: int = H, t: float | None = None) -> Pic:
    """A picture that says its number: a grey level in a big block, a bar whose place moves with it."""
    a = np.full((height, width, 4), 40, np.uint8)
    a[20:120, 20:180, :3] = (n * 37) % 256
    y = 130 + (n * 7) % (height - 150)
    a[y:y + 12, :, 1] = 230
    return Pic(width, height, a.tobytes(), time.time() if t is None else t)


def number_of(rgb: np.ndarray) -> int:
    """The grey level in the block, as written by :func:`numbered` (to ±3 after compression)."""
    return int(round(float(rgb[40:100, 40:160].mean())))


def record(store: TrajectoryStore, run_id: int, pictures: list[Pic], gap_s: float, fps: int = 30) -> FilmRecorder:
    recorder: FilmRecorder[Pic] = FilmRecorder(store.films_dir, run_id, lambda: TrajectoryStore(store.path), fps=fps)
    for pic in pictures:
        recorder.offer(Pic(pic.width, pic.height, pic.bgrx, time.time()))
        time.sleep(gap_s)
    return recorder


def test_every_change_is_kept_and_every_seek_is_exact(tmp_path):
    store = TrajectoryStore(tmp_path / "r.db")
    run_id = store.create_run(target="x", tester="t")
    recorder = record(store, run_id, [numbered(i) for i in range(90)], 1 / 30)
    stats = recorder.close()
    assert stats.error == "" and stats.dropped == 0 and stats.segments == 1
    (row,) = store.films(run_id)
    assert (row["width"], row["height"], row["codec"]) == (W, H, "libx264") and row["t1"] is not None
    with FilmReader.open(store, run_id) as film:  # type: ignore[union-attr]
        changes = film.change_times()
        assert len(changes) >= 88, "a picture every 33 ms is kept, none merged"
        assert row["frames"] == len(changes)
        expected = [(n * 37) % 256 for n in range(90)]
        seen = []
        order = list(range(len(film)))
        random.Random(1).shuffle(order)  # any order: each seek lands on its own frame
        for i in order:
            frame = film.frame(i)
            assert (frame.width, frame.height) == (W, H) and frame.t == pytest.approx(film.times[i])
            seen.append((i, number_of(np.frombuffer(frame.rgb, np.uint8).reshape(H, W, 3))))
        values = [v for _, v in sorted(seen)]
        distinct = [v for k, v in enumerate(values) if not film.flags[k] & REPEAT]
        assert all(abs(a - b) <= 4 for a, b in zip(distinct, expected[:len(distinct)])), (distinct[:10], expected[:10])
        # The picture on screen at a moment is the last one shown at or before it.
        mid = film.times[40] + 0.001
        assert film.frame_at(mid).index == 40
        assert film.frame_at(film.start - 5).index == 0
        small = film.frame(10, max_width=200)
        assert small.width == 200 and small.height == round(H * 200 / W)


def test_keyframes_keep_a_seek_short(tmp_path):
    store = TrajectoryStore(tmp_path / "r.db")
    run_id = store.create_run(target="x", tester="t")
    record(store, run_id, [numbered(i) for i in range(60)], 1 / 40).close()
    index = np.fromfile(store.films_dir / f"run-{run_id}-0.idx", dtype=INDEX)
    keys = np.flatnonzero(index["flags"] & KEY)
    assert keys[0] == 0 and np.diff(np.append(keys, len(index))).max() <= 15


def test_a_still_window_is_written_once_and_repeated_once(tmp_path):
    store = TrajectoryStore(tmp_path / "r.db")
    run_id = store.create_run(target="x", tester="t")
    still = numbered(3)
    recorder: FilmRecorder[Pic] = FilmRecorder(store.films_dir, run_id, lambda: TrajectoryStore(store.path))
    for _ in range(40):
        recorder.offer(Pic(W, H, still.bgrx, time.time()))  # the same picture, captured again and again
        time.sleep(0.04)
    recorder.close()
    index = np.fromfile(store.films_dir / f"run-{run_id}-0.idx", dtype=INDEX)
    assert len(index) == 2 and not index["flags"][0] & REPEAT and index["flags"][1] & REPEAT


def test_a_new_window_size_starts_a_new_segment(tmp_path):
    store = TrajectoryStore(tmp_path / "r.db")
    run_id = store.create_run(target="x", tester="t")
    pics = [numbered(i) for i in range(5)] + [numbered(i, 320, 240) for i in range(5, 10)]
    record(store, run_id, pics, 0.04).close()
    rows = store.films(run_id)
    assert [(r["seq"], r["width"], r["height"]) for r in rows] == [(0, W, H), (1, 320, 240)]
    with FilmReader.open(store, run_id) as film:  # type: ignore[union-attr]
        assert (film.frame(0).width, film.frame(len(film) - 1).width) == (W, 320)
        assert np.all(np.diff(film.times) > 0)


def test_the_films_own_connection_leaves_the_runs_disk_reserve_alone(tmp_path):
    store = TrajectoryStore(tmp_path / "r.db")
    run_id = store.create_run(target="x", tester="t")  # a writing store holds a little disk space
    reserve = list(tmp_path.glob(".r.db.reserve-*"))
    assert len(reserve) == 1
    record(store, run_id, [numbered(i) for i in range(3)], 0.04).close()  # its thread opened and closed a store
    assert reserve[0].exists()
    store.close()
    assert not reserve[0].exists()


KILLED = textwrap.dedent("""
    import os, signal, sys, time
    sys.path.insert(0, {root!r})
    sys.path.insert(0, {tests!r})
    sys.path.insert(0, {root!r} + '/tests')  # the suite's support modules
    from test_film import Pic, numbered
    from app.engine.trace.film import FilmRecorder
    from app.engine.trace.store import TrajectoryStore
    store = TrajectoryStore({db!r})
    run = store.create_run(target="x", tester="t")
    rec = FilmRecorder(store.films_dir, run, lambda: TrajectoryStore(store.path))
    end = time.time() + 1.5
    i = 0
    while time.time() < end:
        p = numbered(i)
        rec.offer(Pic(p.width, p.height, p.bgrx, time.time()))
        i += 1
        time.sleep(0.03)
    os.kill(os.getpid(), signal.SIGKILL)
""")


def test_a_killed_recorder_leaves_a_stream_that_opens_to_its_last_indexed_frame(tmp_path):
    db = tmp_path / "r.db"
    script = KILLED.format(root=str(ROOT), tests=str(Path(__file__).parent), db=str(db))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    store = TrajectoryStore(db)
    (row,) = store.films(1)
    assert row["t1"] is None  # never closed: the index says how far it got
    stream = store.films_dir / row["file"]
    with FilmReader.open(store, 1) as film:  # type: ignore[union-attr]
        assert len(film) >= 20
        last = film.frame(len(film) - 1)  # every indexed frame is whole in the file
        shown = sum(1 for flags in film.flags if not flags & REPEAT) - 1  # the number of the last picture kept
        rgb = np.frombuffer(last.rgb, np.uint8).reshape(H, W, 3)
        assert (last.width, last.height) == (W, H) and rgb[40:100, 40:160].std() < 4, "the last indexed frame is torn"
        assert abs(number_of(rgb) - (shown * 37) % 256) <= 4, (number_of(rgb), shown)
        indexed = len(film)
    with av.open(str(stream)) as container:  # any player opens it, up to its last complete cluster
        decoded = sum(1 for _ in container.decode(video=0))
    assert decoded >= indexed


# -- the flash oracle --------------------------------------------------------------------------------
def frame(value: int, t: float) -> Frame:
    a = np.full((120, 160, 4), 30, np.uint8)
    a[10:110, 10:150, :3] = value
    return Frame(160, 120, a.tobytes(), t)


def test_a_picture_between_two_equal_ones_is_a_flash():
    watcher = FlashWatcher(Timing())
    for f in (frame(30, 0.0), frame(250, 1.0), frame(30, 1.033)):
        watcher.see(f, False)
    (flash,) = watcher.take()
    assert flash.t == 1.0 and flash.seconds == pytest.approx(0.033) and flash.share > 0.5
    assert flash.bbox == (10, 10, 150, 110)
    assert watcher.last_change_t == 1.033 and watcher.take() == []


@pytest.mark.parametrize("sequence,overlaid", [
    ([(30, 0.0), (250, 1.0), (30, 1.3)], False),  # on screen 300 ms: an effect, not a glitch
    ([(30, 0.0), (250, 1.0), (120, 1.03)], False),  # a transition that leads elsewhere
    ([(30, 0.0), (250, 1.0), (30, 1.03)], True),  # the engine's own repaint probe
    ([(30, 1.0), (250, 0.969), (30, 1.03)], False),  # an older picture handed over late: out of order
])
def test_what_is_no_flash(sequence, overlaid):
    watcher = FlashWatcher(Timing())
    for n, (value, t) in enumerate(sequence):
        watcher.see(frame(value, t), overlaid and n == 1)
    assert watcher.take() == []


def test_a_glitch_fails_the_run_but_does_not_end_it():
    glitch = Finding("glitch", "a picture flashed", 3)
    assert not glitch.fatal
    verdict = decide(Evidence([glitch], 10, judges_criteria=False))
    assert verdict.verdict == "fail" and verdict.reason.startswith("glitch at step 4")


# -- real runs ------------------------------------------------------------------------------------------
def run_cli(target: Path | str, db: Path, *args: str, timeout: float = 240) -> dict:
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(target), "--json", "--db", str(db), *args],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert proc.stdout.strip(), proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def target_copy(tmp_path: Path, name: str, env: dict[str, str] | None) -> Path:
    """A copy of a test target with its [env] replaced."""
    folder = tmp_path / name
    shutil.copytree(TARGETS / name, folder)
    toml = folder / "playcoder.toml"
    lines = [line for line in toml.read_text().splitlines() if not line.startswith("env")]
    if env:
        lines.append("env = { " + ", ".join(f'{k} = "{v}"' for k, v in env.items()) + " }")
    toml.write_text("\n".join(lines) + "\n")
    return folder


@needs_xvfb
def test_an_animating_window_is_filmed_at_its_frame_rate_and_linked_to_the_steps(tmp_path):
    db = tmp_path / "r.db"
    summary = run_cli(TARGETS / "anim_pg", db, "--max-steps", "8")
    assert summary["verdict"] == "pass", summary
    assert summary["captured_frames"] / summary["duration_s"] >= 30
    assert summary["film_frames"] > 0
    store = TrajectoryStore(db)
    run_id = summary["run_id"]
    assert json.loads(store.run(run_id)["config"])["film_fps"] == 30
    with FilmReader.open(store, run_id) as film:  # type: ignore[union-attr]
        changes = film.change_times()
        span = film.times[-1] - film.times[0]
        assert len(changes) / span >= 25, "the ball moves at 30 frames a second; the film keeps (nearly) all"
        assert np.diff(changes).max() < 0.2, "no gap between actions"
        for step in store.steps(run_id):
            assert film.start <= step["started_at"] <= film.end
            # The film at the end of the step shows (about) what the step recorded as its "after".
            stored = np.asarray(store.frame(step["frame_after"]).image(), dtype=np.int16)  # type: ignore[union-attr]
            shown = np.frombuffer(film.frame_at(step["ended_at"]).rgb, np.uint8).reshape(stored.shape)
            assert np.abs(stored - shown.astype(np.int16)).mean() < 6


@needs_xvfb
def test_a_one_frame_flash_is_a_glitch_with_its_moment_pictures_and_clip(tmp_path):
    db = tmp_path / "r.db"
    summary = run_cli(TARGETS / "flash_pg", db, "--max-steps", "10")
    assert summary["verdict"] == "fail" and summary["status"] == "completed", summary
    assert summary["steps"] == 10, "a glitch does not end the run"
    store = TrajectoryStore(db)
    run_id = summary["run_id"]
    glitches = [f for f in store.findings(run_id) if f["kind"] == "glitch"]
    assert glitches
    ev = glitches[0]["evidence"]
    assert ev["seconds"] <= 0.08 and ev["share"] > 0.9
    white = np.asarray(store.frame(ev["frame_flash"]).image())  # type: ignore[union-attr]
    assert white.min() > 240, "the stored flash is the white frame"
    with FilmReader.open(store, run_id) as film:  # type: ignore[union-attr]
        at = film.frame_at(ev["film"]["t"])
        assert np.frombuffer(at.rgb, np.uint8).min() > 240, "the film shows the flash at the finding's moment"
        before = film.frame(at.index - 1)
        assert np.frombuffer(before.rgb, np.uint8).min() < 100
    from app.engine.trace.report import render_html_report

    page = render_html_report(store, run_id)
    assert page.count("<figure class=clip>") == len(store.findings(run_id))
    assert "data:image/webp;base64," in page and "the flash (" in page


@needs_xvfb
def test_no_glitch_on_a_still_board_or_an_animation(tmp_path):
    for folder in (target_copy(tmp_path, "flash_pg", None), TARGETS / "anim_pg"):
        summary = run_cli(folder, tmp_path / f"{folder.name}.db", "--max-steps", "10")
        assert summary["verdict"] == "pass", summary
        assert not [f for f in summary["findings"] if f["kind"] == "glitch"]


@needs_xvfb
def test_a_freeze_is_timed_to_the_last_change_of_the_window(tmp_path):
    db = tmp_path / "r.db"
    summary = run_cli(f"{TARGETS / 'anim_pg'}@freeze-after-spaces", db, "--max-steps", "20")
    assert [f["kind"] for f in summary["findings"]] == ["freeze"], summary
    store = TrajectoryStore(db)
    run_id = summary["run_id"]
    (freeze,) = store.findings(run_id)
    film_ev = freeze["evidence"]["film"]
    frozen_at = store.step(run_id, freeze["step"])
    assert frozen_at is not None
    # The window last changed when the program hung (before the step that found it), long before the
    # freeze was declared; the clip centres on that moment.
    assert film_ev["t"] == film_ev["last_change_t"] <= frozen_at["started_at"] + 0.5
    assert film_ev["found_t"] - film_ev["last_change_t"] >= Timing().freeze_s
    with FilmReader.open(store, run_id) as film:  # type: ignore[union-attr]
        kept = (film.flags & REPEAT) == 0
        unprobed = film.times[kept & ((film.flags & 4) == 0)]  # the repaint probe's pictures are the engine's
        assert unprobed[-1] == pytest.approx(film_ev["last_change_t"], abs=0.002)
        assert np.diff(unprobed[unprobed <= film_ev["last_change_t"]][-20:]).max() < 0.1, "it animated until then"


@needs_xvfb
def test_a_crash_shows_the_last_picture_the_program_drew(tmp_path):
    db = tmp_path / "r.db"
    summary = run_cli(f"{TARGETS / 'anim_pg'}@crash-on-fourth-space", db, "--max-steps", "30")
    assert [f["kind"] for f in summary["findings"]] == ["crash"], summary
    store = TrajectoryStore(db)
    (crash,) = store.findings(summary["run_id"])
    film_ev = crash["evidence"]["film"]
    assert film_ev["t"] <= film_ev["last_change_t"] <= film_ev["found_t"]  # the window vanished after it drew
    with FilmReader.open(store, summary["run_id"]) as film:  # type: ignore[union-attr]
        drawn = np.frombuffer(film.frame_at(film_ev["t"]).rgb, np.uint8)
        assert int(drawn.max()) - int(drawn.min()) > 100, "the ball on its scene, not the empty screen"
    from app.engine.trace.report import render_html_report

    assert render_html_report(store, summary["run_id"]).count("<figure class=clip>") == 1


@needs_xvfb
@pytest.mark.slow
def test_a_killed_engine_leaves_a_film_that_opens(tmp_path):
    db = tmp_path / "r.db"
    proc = subprocess.Popen([sys.executable, "-m", "app", "test", str(TARGETS / "anim_pg"), "--json", "--db", str(db),
                             "--duration", "60"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        films = db.with_name(db.name + ".films")
        while time.monotonic() < deadline and not (films.exists() and any(films.glob("*.idx"))
                                                    and (sum(f.stat().st_size for f in films.glob("*.idx")) > 1600)):
            time.sleep(0.2)
        proc.kill()  # kill -9: its Xvfb and program die with it (PR_SET_PDEATHSIG)
    finally:
        proc.wait(timeout=30)
    store = TrajectoryStore(db)
    run = store.runs()[0]
    assert run["status"] == "interrupted"
    with FilmReader.open(store, run["id"]) as film:  # type: ignore[union-attr]
        assert len(film) >= 100
        for i in range(len(film)):
            film.frame(i)
        stream = store.films_dir / store.films(run["id"])[0]["file"]
    with av.open(str(stream)) as container:
        assert sum(1 for _ in container.decode(video=0)) >= len(film)


@needs_xvfb
def test_a_display_mode_change_is_no_glitch(tmp_path):
    """Setting the display mode again (a fullscreen toggle) shows SDL's new, empty surface for a frame: the
    program says from inside that it changed its mode, and that black frame is not reported as a glitch."""
    folder = target_copy(tmp_path, "flash_pg", {"MODE_ON_SPACE": "1"})
    summary = run_cli(folder, tmp_path / "r.db", "--max-steps", "12")
    assert summary["verdict"] == "pass", summary
    assert not [f for f in summary["findings"] if f["kind"] == "glitch"]
    # The same black frame drawn by the program itself, with no mode change, is its own flicker.
    folder = target_copy(tmp_path / "fill", "flash_pg", {"MODE_ON_SPACE": "fill"})
    summary = run_cli(folder, tmp_path / "fill.db", "--max-steps", "12")
    assert [f for f in summary["findings"] if f["kind"] == "glitch"], summary

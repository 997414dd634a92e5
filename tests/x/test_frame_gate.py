"""The frame gate (differential play's lockstep): programs played side by side stand at the same frame.

The programs here are written the ordinary way (a pygame loop paced by ``Clock.tick``, one that
moves by elapsed time, one that paces itself with ``time.sleep``, a Tk window); none knows the gate.
"""

from __future__ import annotations

import contextlib
import shutil
import textwrap
import time
from pathlib import Path
from typing import Iterator

import pytest

from app.engine.play import gate as gate_mod
from app.engine.play.actions import Press, Wait
from app.engine.play.display import ISOLATED, open_display
from app.engine.play.player import Player
from app.engine.play.targetspec import load_spec

from suite import TARGETS, needs_xvfb

pytestmark = needs_xvfb


@contextlib.contextmanager
def players(folder: Path, n: int = 2, seed: int = 0) -> Iterator[list[Player]]:
    spec = load_spec(folder)
    displays = [open_display(ISOLATED, spec.size) for _ in range(n)]
    started: list[Player] = []
    try:
        for d in displays:
            started.append(Player(spec, d, seed, time.sleep, gated=True))
            started[-1].start()
        yield started
    finally:
        for p in started:
            p.stop()
        for d in displays:
            d.close()


def program(tmp_path: Path, name: str, source: str, *, kind: str = "game", size: tuple[int, int] = (240, 160),
            env: str = "") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "main.py").write_text(textwrap.dedent(source))
    (folder / "playcoder.toml").write_text(
        f'name = "{name}"\nkind = "{kind}"\ncommand = ["python", "main.py"]\nsize = [{size[0]}, {size[1]}]\n'
        f'keys = ["space"]\n{env}')
    return folder


def test_two_runs_of_a_moving_game_show_the_same_frame_whatever_the_wall_clock() -> None:
    with players(TARGETS / "anim_pg") as (a, b):
        assert a.lockstep and b.lockstep
        assert a.gate is not None and a.gate.fps == 30  # the game's own rate, told by its first frame
        oa, ob = a.settle(1, 0.08), b.settle(1, 0.08)
        seen = {oa.frame.bgrx}
        for i in range(6):
            time.sleep(0.1 * (i % 3))  # one program waits longer than the other between inputs: no matter
            action = Press("space") if i % 2 else Wait(0.1 * (i + 1))
            oa = a.act(action, oa)
            time.sleep(0.25)
            ob = b.act(action, ob)
            assert a.frames == b.frames > 0
            assert oa.frame.bgrx == ob.frame.bgrx, f"step {i}: the two runs show different frames"
            seen.add(oa.frame.bgrx)
        assert len(seen) > 2  # the ball did move
        before = oa.frame
        time.sleep(0.5)  # standing on the gate, the game does not move on the wall clock
        assert a.observer is not None and a.observer.capture().bgrx == before.bgrx


def test_a_game_that_moves_by_elapsed_time_moves_by_game_time(tmp_path: Path) -> None:
    folder = program(tmp_path, "elapsed_pg", """
        import pygame
        pygame.init()
        screen = pygame.display.set_mode((240, 160))
        clock = pygame.time.Clock()
        x = 0.0
        while True:
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    raise SystemExit
            dt = clock.tick(60) / 1000.0          # seconds since the last frame
            x = (x + 90 * dt) % 240
            screen.fill((20, 20, 20))
            pygame.draw.rect(screen, (200, 80, 80), (int(x), 60, 20, 20))
            blink = (pygame.time.get_ticks() // 250) % 2   # a caret-like blink on the game clock
            if blink:
                pygame.draw.rect(screen, (240, 240, 240), (10, 10, 6, 20))
            pygame.display.flip()
        """)
    with players(folder) as (a, b):
        assert a.lockstep and b.lockstep and a.gate is not None and a.gate.fps == 60
        oa, ob = a.settle(1, 0.08), b.settle(1, 0.08)
        for seconds in (0.3, 0.7, 0.45):
            oa = a.act(Wait(seconds), oa)
            time.sleep(seconds)  # the wall clock runs on between the two programs' turns
            ob = b.act(Wait(seconds), ob)
            assert oa.frame.bgrx == ob.frame.bgrx


def test_a_game_driven_by_timer_events_moves_on_game_time(tmp_path: Path) -> None:
    folder = program(tmp_path, "timer_pg", """
        import pygame
        pygame.init()
        screen = pygame.display.set_mode((240, 160))
        clock = pygame.time.Clock()
        STEP = pygame.USEREVENT + 1
        pygame.time.set_timer(STEP, 90)          # the snake moves on a timer, as tutorials teach
        x = 0
        while True:
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    raise SystemExit
                if event.type == STEP:
                    x = (x + 7) % 240
            screen.fill((10, 40, 10))
            pygame.draw.rect(screen, (90, 220, 90), (x, 70, 10, 10))
            pygame.display.flip()
            clock.tick(30)
        """)
    with players(folder) as (a, b):
        assert a.lockstep and b.lockstep
        oa, ob = a.settle(1, 0.08), b.settle(1, 0.08)
        seen = set()
        for seconds in (0.5, 0.3, 0.8):
            oa = a.act(Wait(seconds), oa)
            time.sleep(0.4)
            ob = b.act(Wait(seconds), ob)
            assert oa.frame.bgrx == ob.frame.bgrx
            seen.add(oa.frame.bgrx)
        assert len(seen) == 3  # the timer did move it


def test_programs_off_the_gate_run_on_the_wall_clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    t0 = time.monotonic()
    with players(TARGETS / "calc_tk", n=1) as (tk,):
        assert not tk.lockstep  # never imported pygame: decided at once
    assert time.monotonic() - t0 < 10
    monkeypatch.setattr(gate_mod, "FIRST_FRAME_S", 3.0)
    folder = program(tmp_path, "sleeper_pg", """
        import time
        import pygame
        pygame.init()
        screen = pygame.display.set_mode((240, 160))
        n = 0
        while True:
            pygame.event.pump()
            n += 1
            screen.fill((n * 7 % 256, 40, 90))
            pygame.display.flip()
            time.sleep(1 / 30)       # paces itself without pygame's Clock
        """)
    with players(folder, n=1) as (sleeper,):
        assert not sleeper.lockstep  # imported pygame, never ticked: let go
        assert sleeper.observer is not None
        a = sleeper.observer.capture()
        time.sleep(0.3)
        assert sleeper.observer.capture().bgrx != a.bgrx  # and it runs freely
        # Started again (an episode's end): it is let go at once, not after another wait for a first frame.
        assert sleeper.never_ticked
        sleeper.stop()
        t1 = time.monotonic()
        sleeper.start()
        assert not sleeper.lockstep and time.monotonic() - t1 < 2.5, time.monotonic() - t1
    folder = program(tmp_path, "waiter_pg", """
        import pygame
        pygame.init()
        screen = pygame.display.set_mode((240, 160))
        pygame.time.set_timer(pygame.USEREVENT, 40)
        n = 0
        while True:
            event = pygame.event.wait()          # paced by its timer's events, no Clock
            if event.type == pygame.QUIT:
                raise SystemExit
            n += 1
            screen.fill((n * 7 % 256, 90, 40))
            pygame.display.flip()
        """)
    monkeypatch.setattr(gate_mod, "FIRST_FRAME_S", 1.5)
    with players(folder, n=1) as (waiter,):
        assert not waiter.lockstep  # its timer still runs on pygame's own clock
        assert waiter.observer is not None
        a = waiter.observer.capture()
        time.sleep(0.3)
        assert waiter.observer.capture().bgrx != a.bgrx


def test_a_game_that_hangs_is_let_go_with_a_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "anim_pg"
    shutil.copytree(TARGETS / "anim_pg", folder)
    with open(folder / "playcoder.toml", "a") as f:
        f.write('\n[env]\nANIM_FREEZE_AFTER_SPACES = "1"\n')
    monkeypatch.setattr(gate_mod, "FRAME_GRACE_S", 1.0)
    with players(folder, n=1) as (game,):
        assert game.lockstep
        obs = game.settle(1, 0.08)
        t0 = time.monotonic()
        game.act(Press("space"), obs)  # the game spins in a loop of its own from here
        assert time.monotonic() - t0 < 6
        assert not game.lockstep
        assert game.gate is not None and "did not play" in game.gate.lost


def test_python_clocks_read_the_engines_time_the_same_in_every_program(tmp_path: Path) -> None:
    folder = program(tmp_path, "watch_tk", """
        import time
        import tkinter as tk
        root = tk.Tk()
        root.title("Watch")
        root.geometry("240x160+0+0")
        start = time.monotonic()
        label = tk.Label(root, font=("DejaVu Sans", 24))
        label.pack(expand=True)
        stamp = tk.Label(root, text=time.strftime("%Y-%m-%d", time.gmtime(time.time())))
        stamp.pack()
        def tick():
            label.config(text=f"{time.monotonic() - start:6.2f}")   # a stopwatch, hundredths showing
            root.after(30, tick)
        tick()
        root.mainloop()
        """, kind="app")
    with players(folder) as (a, b):
        assert not a.lockstep  # Tk: no frame gate, but the engine's clock
        oa, ob = a.settle(1, 0.08), b.settle(1, 0.08)
        for seconds in (0.5, 1.25):
            a.advance_clock(seconds)
            time.sleep(0.3)  # the wall clock runs on between the two programs' turns
            b.advance_clock(seconds)
            oa, ob = a.act(Wait(0.2), oa), b.act(Wait(0.2), ob)
            assert oa.frame.bgrx == ob.frame.bgrx
        assert a.target is not None and a.target.alive()


def test_a_program_that_waits_on_the_clock_gets_the_wall_clock(tmp_path: Path) -> None:
    folder = program(tmp_path, "busy_pg", """
        import time
        import pygame
        pygame.init()
        screen = pygame.display.set_mode((240, 160))
        n = 0
        while True:
            pygame.event.pump()
            n += 1
            screen.fill((n * 9 % 256, 60, 60))
            pygame.display.flip()
            until = time.time() + 1 / 30
            while time.time() < until:     # paces itself by waiting on the clock
                pass
        """)
    with players(folder, n=1) as (busy,):
        assert busy.observer is not None and not busy.lockstep
        a = busy.observer.capture()
        time.sleep(0.5)
        assert busy.observer.capture().bgrx != a.bgrx  # it did not hang on a clock that stands still

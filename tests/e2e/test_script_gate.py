"""A real-time pygame game scripted from its first frame: its first key must come within 0.75 s of game time
(the dot hits the wall after 22 frames at 30 fps), yet the engine watches a program for about a second before
its first step.  On the frame gate the game stands still until the script's key arrives."""

from __future__ import annotations

import json

from app import cli

from suite import needs_xvfb

pytestmark = needs_xvfb

RUNNER = '''import pygame
pygame.init()
screen = pygame.display.set_mode((240, 80))
clock = pygame.time.Clock()
x, state = 0, "running"
while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            raise SystemExit
        if event.type == pygame.KEYDOWN and event.key == pygame.K_SPACE and state == "running":
            state = "stopped"
    if state == "running":
        x += 10
        if x >= 220:
            state = "crashed"
    screen.fill({"running": (40, 40, 40), "stopped": (0, 200, 0), "crashed": (200, 0, 0)}[state])
    pygame.draw.rect(screen, (255, 255, 255), (x, 30, 20, 20))
    pygame.display.flip()
    clock.tick(30)
'''
TOML = '''name = "runner"
kind = "game"
command = ["python", "main.py"]
size = [240, 80]
keys = ["space"]
frame_gate = true
[[criteria]]
id = "stops"
text = "space stops the dot before the wall"
[[script]]
criterion = "stops"
steps = [{action = "press", key = "space"}, {action = "wait", seconds = 1.0}]
expect = [{after = 1, kind = "pixel", at = [2, 2], colour = "#00c800", tolerance = 8}]
'''


def test_the_first_key_lands_before_the_wall_on_every_seed(tmp_path, capsys):
    folder = tmp_path / "runner"
    folder.mkdir()
    (folder / "main.py").write_text(RUNNER)
    (folder / "playcoder.toml").write_text(TOML)
    for seed in (0, 1, 2):
        cli.main(["test", str(folder), "--tester", "script", "--seed", str(seed), "--film-fps", "0", "--json",
                  "--db", str(tmp_path / "runs.db")])
        summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert summary["verdict"] == "pass", summary["reason"]

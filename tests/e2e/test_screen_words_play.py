"""A key only the screen names ("Press L for Leaderboard", read from a key map file, so the code names no
key constant) is pressed where it is named, and what it breaks is found."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from suite import ROOT, needs_xvfb

GAME = '''import json, sys, pygame
pygame.init()
KEYS = json.load(open("keys.json"))
screen = pygame.display.set_mode((480, 320))
pygame.display.set_caption("Board")
font = pygame.font.Font(None, 40)
clock = pygame.time.Clock()
while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            sys.exit(0)
        if event.type == pygame.KEYDOWN and event.unicode.lower() == KEYS["board"]:
            scores = {}
            print("top score", scores["top"])  # the leaderboard breaks
    screen.fill((10, 20, 40))
    screen.blit(font.render("STARFIELD", True, (250, 250, 250)), (150, 60))
    screen.blit(font.render("Press L for Leaderboard", True, (250, 250, 250)), (70, 170))
    pygame.display.flip()
    clock.tick(30)
'''
TOML = 'name = "board"\nkind = "game"\ncommand = ["python", "main.py"]\nsize = [480, 320]\nkeys = ["space"]\n'


@needs_xvfb
@pytest.mark.parametrize("seed", [0])
def test_a_key_the_screen_names_is_pressed(tmp_path: Path, seed: int) -> None:
    folder = tmp_path / "board"
    folder.mkdir()
    (folder / "main.py").write_text(GAME)
    (folder / "keys.json").write_text(json.dumps({"board": "l"}))
    (folder / "playcoder.toml").write_text(TOML)
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(folder), "--max-steps", "15", "--seed", str(seed),
                           "--json", "--film-fps", "0", "--db", str(tmp_path / "runs.db")],
                          capture_output=True, text=True, timeout=400, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["verdict"] == "fail" and "KeyError" in summary["reason"], summary

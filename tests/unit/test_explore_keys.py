"""Keys and mouse buttons read from a program's source (the explorer acts on each of them)."""

from __future__ import annotations

from pathlib import Path

from app.engine.testers.explore.keys_from_code import inputs_from_folder, inputs_from_source, qt_sequence, tk_sequence

PYGAME = '''
import pygame
from pygame.locals import K_ESCAPE
for event in pygame.event.get():
    if event.type == pygame.KEYDOWN and event.key == pygame.K_LEFT:
        pass
    elif event.type == pygame.KEYDOWN and event.key in (pygame.K_a, pygame.K_F5, pygame.K_KP4):
        pass
    elif event.type == pygame.KEYDOWN and event.unicode == "r":
        pass
    elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 3:
        pass
keys = pygame.key.get_pressed()
if keys[pygame.K_SPACE] or keys[pygame.K_RETURN]:
    pass
'''


def test_pygame_keys_compared_and_polled():
    found = inputs_from_source(PYGAME)
    assert found.keys == ["escape", "left", "a", "f5", "4", "r", "space", "enter"]
    assert found.buttons == {"left", "right"}
    assert found.held == {"space", "enter"}  # read while held (get_pressed), not compared with an event's key
    assert not found.text


def test_typed_text_read_from_unicode():
    found = inputs_from_source("name = ''\nfor e in events:\n    name += e.unicode\n")
    assert found.text and found.keys == []


def test_tk_bindings():
    assert tk_sequence("<Key-a>") == ("a", set())
    assert tk_sequence("<Control-s>") == ("ctrl+s", set())
    assert tk_sequence("<Left>") == ("left", set())
    assert tk_sequence("<KeyPress-Return>") == ("enter", set())
    assert tk_sequence("x") == ("x", set())
    assert tk_sequence("<Double-Button-1>") == (None, {"left", "double"})
    assert tk_sequence("<Button-3>") == (None, {"right"})
    found = inputs_from_source('root.bind_all("<Control-n>", new)\nlb.bind("<Delete>", rm)\n'
                               'canvas.tag_bind("card", "<Button-1>", flip)\nroot.bind("<Key>", typed)\n')
    assert found.keys == ["ctrl+n", "delete"]
    assert found.buttons == {"left"} and found.text


def test_qt_keys_and_shortcuts():
    assert qt_sequence("Ctrl+Shift+N") == "ctrl+shift+n"
    found = inputs_from_source('if event.key() == Qt.Key.Key_Up: pass\nact.setShortcut("Ctrl+S")\n')
    assert found.keys == ["up", "ctrl+s"]


def test_a_folder_reads_its_own_modules_not_its_tests(tmp_path: Path):
    (tmp_path / "main.py").write_text("import pygame\nif e.key == pygame.K_UP: pass\n")
    (tmp_path / "logic.py").write_text("if e.key == pygame.K_p: pass\ndef (:\n")
    (tmp_path / "test_logic.py").write_text("if e.key == pygame.K_q: pass\n")
    (tmp_path / "bugs").mkdir()
    (tmp_path / "bugs" / "x.py").write_text("if e.key == pygame.K_z: pass\n")
    assert inputs_from_folder(tmp_path).keys == ["up"]  # a module that does not parse reads nothing


def test_keys_that_end_the_program_are_told_apart():
    found = inputs_from_source('''
for event in pygame.event.get():
    if event.type == pygame.KEYDOWN:
        if event.key == pygame.K_ESCAPE:
            pygame.quit(); sys.exit()
        elif event.key == pygame.K_q:
            running = False
        elif event.key == pygame.K_SPACE:
            jump()
root.bind("<Control-q>", lambda e: root.destroy())
root.bind("<Control-w>", root.quit)
root.bind("<Return>", add)
''')
    assert found.quits == {"escape", "q", "ctrl+q", "ctrl+w"}
    assert "space" in found.keys and "enter" in found.keys


def test_keys_that_start_the_game_over_are_told_from_keys_that_only_restart_when_it_is_over():
    found = inputs_from_source("""
for event in events:
    if event.key == pygame.K_SPACE:
        if world.over:
            world.reset()
        else:
            world.flap()
    elif event.key == pygame.K_r:
        world.reset()
root.bind("<n>", new_game)
root.bind("<x>", lambda e: restart())
root.bind("<Left>", lambda e: move(-1))
""")
    assert found.restarts == {"r", "n", "x"}  # not space: it flaps, and restarts only a game that is over

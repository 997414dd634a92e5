"""Real processes on a real Xvfb: launch, window discovery, output capture, shutdown."""

from __future__ import annotations

import shutil
import time

import psutil
import pytest

from app.engine.play.display import start_xvfb
from app.engine.errors import DisplayError, TargetError
from app.engine.play.target import TargetProcess
from app.engine.play.targetspec import load_spec, resolve_target

from suite import APPS, TARGETS, needs_xvfb

pytestmark = needs_xvfb


def test_tk_window_found_through_xres(xvfb):
    target = TargetProcess(load_spec(TARGETS / "probe_tk"), xvfb, seed=3)
    try:
        win = target.wait_for_window()
        assert win.method == "xres"  # Tk sets no _NET_WM_PID
        assert (win.width, win.height) == (400, 300)
        time.sleep(0.2)
        assert ("stdout", "probe started") in [(s, t) for s, _, t in target.lines()]
    finally:
        target.shutdown()
    assert not target.alive()


def test_pygame_window_found_through_net_wm_pid(xvfb):
    target = TargetProcess(load_spec(TARGETS / "anim_pg"), xvfb)
    try:
        win = target.wait_for_window()
        assert win.method == "net_wm_pid"
        assert (win.width, win.height) == (320, 240)
    finally:
        target.shutdown()


def test_seed_and_secrets_in_target_environment(xvfb, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-pass-this")
    folder = tmp_path / "envdump"
    folder.mkdir()
    (folder / "playcoder.toml").write_text('name = "envdump"\ncommand = ["python", "main.py"]\n')
    (folder / "main.py").write_text(
        "import os\nprint(os.environ['PLAYCODER_SEED'], os.environ['PYTHONHASHSEED'], "
        "os.environ.get('OPENAI_API_KEY', 'absent'), flush=True)\n")
    target = TargetProcess(load_spec(folder), xvfb, seed=7)
    with pytest.raises(TargetError, match="exited with code 0 before showing a window"):
        target.wait_for_window(timeout=10)
    target.shutdown()
    assert [t for _, _, t in target.lines()] == ["7 7 absent"]


def test_bad_targets_are_clear_errors(tmp_path):
    with pytest.raises(TargetError, match="not a folder"):
        resolve_target(str(tmp_path / "nope"))
    (tmp_path / "playcoder.toml").write_text("name = 'x'\ncommand = 'python main.py'\nsize = [10]\n")
    with pytest.raises(TargetError, match="size"):
        resolve_target(str(tmp_path))
    (tmp_path / "playcoder.toml").write_text("name = \n")
    with pytest.raises(TargetError, match="not valid TOML"):
        resolve_target(str(tmp_path))
    (tmp_path / "playcoder.toml").write_text("name='x'\ncommand=['python']\ncolour='red'\n")
    with pytest.raises(TargetError, match="unknown key"):
        resolve_target(str(tmp_path))
    with pytest.raises(TargetError, match="no bug variant"):
        resolve_target("tiles2048@no-such-bug")


def test_bug_variant_is_patched_in_a_temp_copy_only():
    source = APPS / "tiles2048"
    before = {p: p.read_bytes() for p in source.rglob("*.py")}
    resolved = resolve_target("tiles2048@keys-ignored")
    try:
        assert resolved.spec.folder != source and resolved.spec.bug == "keys-ignored"
        assert resolved.spec.label == "tiles2048@keys-ignored"
        assert resolved.spec.revision() != load_spec(source).revision()
    finally:
        folder = resolved.spec.folder
        resolved.cleanup()
    assert not folder.exists()
    assert before == {p: p.read_bytes() for p in source.rglob("*.py")}


def test_missing_xvfb_is_one_sentence(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(DisplayError, match="Xvfb is not installed"):
        start_xvfb()


def test_display_close_leaves_no_xvfb():
    display = start_xvfb((640, 480))
    pid = display.process.pid
    assert psutil.pid_exists(pid)
    display.close()
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


@pytest.mark.parametrize("size", [(320, 420), (699, 740), (1280, 800)])
def test_a_private_screen_measures_as_an_xvfb_started_at_its_size(size):
    """The screen is set by RandR on a bigger framebuffer (room to grow); its millimetres, which toolkits size
    their fonts from, must be those of an Xvfb started at exactly that size (one off made Tk's digits taller)."""
    from Xlib import display as xdisplay

    from app.engine.play.display import _start_xvfb

    def measured(disp) -> tuple[int, int, int, int]:
        conn = xdisplay.Display(disp.name)
        try:
            s = conn.screen()
            return s.width_in_pixels, s.height_in_pixels, s.width_in_mms, s.height_in_mms
        finally:
            conn.close()

    with start_xvfb(size) as grown, _start_xvfb(size, 24) as plain:
        assert grown.framebuffer is not None and grown.framebuffer != size  # it can grow
        assert measured(grown) == measured(plain)

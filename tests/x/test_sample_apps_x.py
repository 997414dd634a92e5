# SPDX-License-Identifier: GPL-3.0-or-later
"""The sample target apps in benchmark/apps/ under a private Xvfb: the reference apps start and stay alive, and the
crash variants really crash when their keys are pressed (their static checks: tests/unit/test_sample_apps_unit.py)."""

import os
import select
import shutil
import signal
import subprocess
import sys
import time

import pytest
from test_sample_apps_unit import APPS, APPS_DIR, app_env, apply_patch, copy_app


def stop(proc, timeout=3.0):
    """Terminate a process we started; SIGKILL if it does not react (frozen apps)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)
    return proc.communicate()


@pytest.fixture(scope="module")
def xvfb_display():
    if not shutil.which("Xvfb"):
        pytest.skip("Xvfb is not installed")
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    number = b""
    deadline = time.monotonic() + 10
    try:
        while not number.endswith(b"\n") and time.monotonic() < deadline:
            ready, _, _ = select.select([read_fd], [], [], 0.5)
            if ready:
                chunk = os.read(read_fd, 16)
                if not chunk:
                    break
                number += chunk
    finally:
        os.close(read_fd)
    if not number.strip():
        proc.kill()
        proc.wait()
        pytest.skip("Xvfb did not report a display number")
    try:
        yield ":" + number.decode().strip()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def launch(app_dir, display):
    return subprocess.Popen([sys.executable, "main.py"], cwd=app_dir, env=app_env(display),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_started(proc, app, timeout=60.0):
    """The app's stdout up to its "started" line, read as it comes (a loaded machine may take many seconds to
    import pygame); empty when the app exits or the time runs out first."""
    want, seen = ("%s started seed=0" % app).encode(), b""
    deadline = time.monotonic() + timeout
    while want not in seen and proc.poll() is None and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
    return seen.decode(errors="replace") if want in seen else ""


@pytest.mark.xvfb
@pytest.mark.parametrize("app", APPS)
def test_reference_app_stays_alive_under_xvfb(app, xvfb_display):
    proc = launch(APPS_DIR / app, xvfb_display)
    try:
        started = wait_started(proc, app)
        time.sleep(2.0)
        alive = proc.poll() is None
    finally:
        out, err = stop(proc)
    assert started, "app never said '%s started seed=0' (rc=%s):\n%s%s" % (app, proc.returncode, out, err)
    assert alive, "app exited early (rc=%s):\n%s" % (proc.returncode, err)


CRASH_KEYS = {
    ("tiles2048", "crash-on-restart"): ["Left", "r"],
    ("flappy", "crash-on-fifth-flap"): ["space"] * 5,
}


@pytest.mark.xvfb
@pytest.mark.parametrize("app, bug", sorted(CRASH_KEYS))
def test_crash_variant_crashes(app, bug, xvfb_display, tmp_path):
    if not shutil.which("xdotool"):
        pytest.skip("xdotool is not installed")
    app_copy = copy_app(app, tmp_path)
    result = apply_patch(app_copy, app_copy / "bugs" / (bug + ".patch"), dry_run=False)
    assert result.returncode == 0, result.stderr
    proc = launch(app_copy, xvfb_display)
    try:
        assert wait_started(proc, app) and proc.poll() is None, "the bug variant must start normally"
        env = dict(os.environ, DISPLAY=xvfb_display)
        # its window is shown (it prints "started" before it opens one): keys sent before would be lost
        subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--pid", str(proc.pid)], env=env,
                       check=True, timeout=60, stdout=subprocess.DEVNULL)
        time.sleep(0.5)
        for key in CRASH_KEYS[(app, bug)]:
            subprocess.run(["xdotool", "key", key], env=env, check=True, timeout=10)
            time.sleep(0.3)
        deadline = time.monotonic() + 30  # a loaded machine may take seconds to handle the keys
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        crashed = proc.poll() not in (None, 0)
    finally:
        out, err = stop(proc)
    assert crashed, "expected a crash, rc=%s" % proc.returncode
    assert "Traceback" in err

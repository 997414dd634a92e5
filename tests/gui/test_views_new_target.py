"""File › New target…: a Tk program is started on a private display off the GUI thread; the view
shows its window with the controls boxed, the keys it reads and a starter playcoder.toml, and writes the toml
only into a folder that has none."""

from __future__ import annotations

import shutil

import pytest
from views_support import isolated_settings, needs_xvfb  # noqa: F401

from PySide6.QtCore import Qt  # noqa: E402

from app.engine.play.targetspec import load_spec  # noqa: E402
from app.views.live.new_target_view import NewTargetView, open_new_target  # noqa: E402

from suite import TARGETS  # noqa: E402


@needs_xvfb
@pytest.mark.slow
def test_new_target_shows_the_window_with_its_controls_and_writes_a_toml_that_loads(qtbot, tmp_path,
                                                                                     isolated_settings):
    folder = tmp_path / "form"
    shutil.copytree(TARGETS / "form_tk", folder)
    (folder / "playcoder.toml").unlink()
    view = open_new_target(None, folder)  # type: ignore[arg-type]
    assert isinstance(view, NewTargetView)
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: view.found is not None or "failed" in view.status.text(), timeout=60000)
    found = view.found
    assert found is not None, view.status.text()
    assert tuple(found.window) == tuple(load_spec(TARGETS / "form_tk").size)
    assert view.canvas.image() is not None and view.canvas.image().width() == found.window[0]
    assert len(view.canvas.boxes) == len(found.widgets) >= 2 and view.widgets.count() == len(found.widgets)
    assert "size = [" in view.toml.toPlainText() and view.write.isEnabled()

    view.activateWindow()
    qtbot.waitUntil(view.isActiveWindow)
    qtbot.keyClick(view, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert "Wrote" in view.status.text()
    spec = load_spec(folder)
    assert tuple(spec.size) == tuple(found.window)
    written = (folder / "playcoder.toml").read_text()
    view.write.setEnabled(True)
    view.write.click()  # never over an existing file
    assert "exists already" in view.status.text() and (folder / "playcoder.toml").read_text() == written
    view.close()

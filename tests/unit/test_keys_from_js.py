"""The keys and mouse input a web page's scripts read, found in its source without running it."""

from __future__ import annotations

from app.engine.testers.explore.keys_from_code import inputs_from_target
from app.engine.testers.explore.keys_from_js import key_name


def test_key_names_of_the_dom():
    assert [key_name(k) for k in ("ArrowUp", "KeyW", "Digit3", " ", "Enter", "x", "+", "Meta")] == \
        ["up", "w", "3", "space", "enter", "x", "plus", None]


def test_a_pages_scripts_tell_its_keys_and_buttons(tmp_path):
    (tmp_path / "game.js").write_text(
        "document.addEventListener('keydown', (e) => {\n"
        "  switch (e.key) { case 'ArrowLeft': left(); break; case \"p\": pause(); }\n"
        "  if (e.code === 'Space') jump();\n  if (e.keyCode === 13) start();\n});\n"
        "canvas.addEventListener('mousedown', shoot);\n")
    (tmp_path / "index.html").write_text("<input oninput='x()'><script src=game.js></script>")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "lib.js").write_text("if (e.key === 'q') quit();")
    found = inputs_from_target(tmp_path)
    assert found.keys == ["left", "p", "space", "enter"]
    assert found.buttons == {"left"} and found.text  # an input the page reads: words matter

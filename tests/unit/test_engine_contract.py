"""The engine never imports Qt (STYLE.md rule 1), checked in a clean interpreter with PySide6 blocked."""

import subprocess
import sys

CODE = r"""
import sys, importlib, pkgutil
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "PySide6" or name.startswith("PySide6.") or name.startswith("shiboken6"):
            raise ImportError("Qt is blocked in the engine contract test")
        return None
sys.meta_path.insert(0, Block())
import app.engine
for mod in pkgutil.walk_packages(app.engine.__path__, "app.engine."):
    importlib.import_module(mod.name)
assert not any(m.startswith("PySide6") for m in sys.modules)
print("ok", len([m for m in sys.modules if m.startswith("app.engine")]))
"""


def test_engine_imports_without_qt():
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok")
    assert int(out.stdout.split()[1]) >= 10

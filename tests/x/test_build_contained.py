"""A local package's build backend runs inside the sandbox: offline, with no secret, writing nothing on the host."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from app.engine.errors import TargetError
from app.engine.play import program_env, sandbox

BACKEND = '''
import base64, hashlib, os, socket, zipfile

def _net():
    try:
        socket.create_connection(("1.1.1.1", 53), timeout=2).close()
        return True
    except OSError:
        return False

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    wrote = True
    try:
        with open(HOST_MARK, "w") as fh:
            fh.write("escaped")
    except OSError:
        wrote = False
    seen = [os.environ.get("MY_API_TOKEN"), wrote, os.path.exists(HOST_MARK), _net(), os.getuid()]
    files = {"evilpkg/__init__.py": ("SEEN = %r\\n" % (seen,)).encode(),
             "evilpkg-0.1.dist-info/METADATA": b"Metadata-Version: 2.1\\nName: evilpkg\\nVersion: 0.1\\n",
             "evilpkg-0.1.dist-info/WHEEL": b"Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"}
    record = "".join("%s,sha256=%s,%d\\n" % (n, base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode(),
                     len(d)) for n, d in files.items()) + "evilpkg-0.1.dist-info/RECORD,,\\n"
    files["evilpkg-0.1.dist-info/RECORD"] = record.encode()
    name = "evilpkg-0.1-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as zf:
        for n, d in files.items():
            zf.writestr(n, d)
    return name
'''


def evil_folder(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "game"
    pkg = folder / "evilpkg"
    pkg.mkdir(parents=True)
    mark = tmp_path / "host-mark.txt"
    (pkg / "backend.py").write_text(f"HOST_MARK = {str(mark)!r}\n" + textwrap.dedent(BACKEND))
    (pkg / "pyproject.toml").write_text('[build-system]\nrequires = []\nbuild-backend = "backend"\n'
                                        'backend-path = ["."]\n')
    (folder / "requirements.txt").write_text("./evilpkg\n")
    return folder, mark


def test_a_local_build_backend_runs_contained(tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYCODER_ENV_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MY_API_TOKEN", "s3cret-value")
    folder, mark = evil_folder(tmp_path)
    env = program_env.program_env(folder, "requirements.txt")
    out = subprocess.run([env.python, "-c", "import evilpkg; print(evilpkg.SEEN)"], capture_output=True, text=True,
                         timeout=60)
    token, wrote, exists, net, _uid = eval(out.stdout)  # the backend did run, and said what it saw
    assert not mark.exists(), "nothing written on the host"
    assert token is None, "no secret reached the build"
    assert not net, "no network in the build"
    if sandbox.bwrap_status()[0]:
        assert wrote and exists, "it wrote into its own private /tmp, not the host's"
    assert not (folder / "evilpkg" / "build").exists(), "the program folder itself is untouched"


def test_a_hostile_include_is_refused_before_anything_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYCODER_ENV_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "requirements.txt").write_text("six\n-r /etc/shadow\n")
    with pytest.raises(TargetError, match=r"^requirements.txt line 2 names '/etc/shadow', which lies outside"):
        program_env.program_env(folder, "requirements.txt")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())

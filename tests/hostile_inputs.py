"""Hostile inputs for the fault suite and benchmark/faults.py: bombs, forged bundles, a trickling model server.

Everything here is built in the test, from nothing checked in: a zip bomb is
written as raw deflate blocks (one block compressed once, repeated), so a
2 MB file that inflates to 1.9 GiB takes a second to make.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
import struct
import subprocess
import threading
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GIB = 1024**3
BOMB_BYTES = int(1.9 * GIB)
BOMB_BLOCK = 16 * 1024 * 1024


# -- a minimal zip writer that takes pre-compressed members ---------------------------------
@dataclass
class RawMember:
    name: str
    data: bytes  # stored bytes (raw deflate when method is 8)
    size: int  # uncompressed size the headers declare
    crc: int
    method: int = zipfile.ZIP_DEFLATED


def member(name: str, data: bytes) -> RawMember:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return RawMember(name, c.compress(data) + c.flush(), len(data), zlib.crc32(data))


def write_zip(path: Path, members: list[RawMember]) -> Path:
    out = io.BytesIO()
    central = []
    for m in members:
        offset = out.tell()
        name = m.name.encode()
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, m.method, 0, 0x21, m.crc, len(m.data),
                              m.size, len(name), 0) + name)
        out.write(m.data)
        central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, m.method, 0, 0x21, m.crc,
                                   len(m.data), m.size, len(name), 0, 0, 0, 0, 0, offset) + name)
    start = out.tell()
    for entry in central:
        out.write(entry)
    out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(central), len(central), out.tell() - start, start, 0))
    path.write_bytes(out.getvalue())
    return path


# -- CRC-32 of a long repetition without reading it (GF(2) matrices, as zlib's crc32_combine) --
def _gf2_times(mat: list[int], vec: int) -> int:
    out, i = 0, 0
    while vec:
        if vec & 1:
            out ^= mat[i]
        vec >>= 1
        i += 1
    return out


def _gf2_square(mat: list[int]) -> list[int]:
    return [_gf2_times(mat, mat[n]) for n in range(32)]


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """CRC-32 of A+B from crc(A), crc(B) and len(B)."""
    if len2 <= 0:
        return crc1
    odd = [0xEDB88320] + [1 << n for n in range(31)]  # one zero bit
    even = _gf2_square(odd)  # two zero bits
    odd = _gf2_square(even)  # four zero bits
    while True:
        even = _gf2_square(odd)
        if len2 & 1:
            crc1 = _gf2_times(even, crc1)
        len2 >>= 1
        if not len2:
            break
        odd = _gf2_square(even)
        if len2 & 1:
            crc1 = _gf2_times(odd, crc1)
        len2 >>= 1
        if not len2:
            break
    return crc1 ^ crc2


def repeated_member(name: str, unit: bytes, total: int) -> RawMember:
    """``unit`` repeated to ``total`` bytes, deflated block by block with full flushes (identical blocks)."""
    block = unit * (BOMB_BLOCK // len(unit))
    whole, rest = divmod(total, len(block))
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    tail = c.compress(block[:rest]) + c.flush()
    block_crc = zlib.crc32(block)
    crc = 0
    for _ in range(whole):
        crc = crc32_combine(crc, block_crc, len(block))
    crc = crc32_combine(crc, zlib.crc32(block[:rest]), rest)
    return RawMember(name, packed * whole + tail, total, crc)


def _manifest(members: dict[str, bytes], counts: dict[str, int], extra: dict[str, str]) -> bytes:
    hashes = {n: hashlib.sha256(d).hexdigest() for n, d in members.items()}
    hashes.update(extra)
    return json.dumps({"format": "playcoder-bundle", "version": 1, "schema_version": 1, "run_id": 1,
                       "counts": counts, "members": hashes}).encode()


def newline_bomb(path: Path, total: int = BOMB_BYTES, declared: int | None = None) -> Path:
    """A bundle whose logs.jsonl is ``total`` newlines (1.9 GiB in about 2 MB).

    ``declared``: the size its headers claim (a lying header), default the truth.
    The manifest's checksum for logs.jsonl is not the real one: an importer must
    refuse the bomb long before it could know."""
    small = {"run.json": json.dumps({"id": 1, "target": "bomb", "tester": "offline", "started_at": 0.0}).encode(),
             "steps.jsonl": b"", "findings.json": b"[]", "judgments.json": b"[]", "llm_calls.jsonl": b"",
             "patches.json": b"[]"}
    counts = {"steps": 0, "findings": 0, "judgments": 0, "logs": total, "llm_calls": 0, "patches": 0, "frames": 0}
    bomb = repeated_member("logs.jsonl", b"\n", total)
    if declared is not None:
        bomb.size = declared
    manifest = _manifest(small, counts, {"logs.jsonl": "0" * 64})
    return write_zip(path, [member("manifest.json", manifest)] + [member(n, d) for n, d in small.items()] + [bomb])


def forged_bundle(real: Path, out: Path, picture: bytes) -> tuple[Path, str]:
    """``real`` with its first frame's PNG replaced by ``picture`` under the same address; manifest made consistent.

    Returns the bundle and the address that was forged."""
    with zipfile.ZipFile(real) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    name = sorted(n for n in members if n.startswith("frames/"))[0]
    members[name] = picture
    manifest = json.loads(members["manifest.json"])
    manifest["members"] = {n: hashlib.sha256(d).hexdigest() for n, d in members.items() if n != "manifest.json"}
    members["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(out, "w") as zf:
        for n, d in members.items():
            zf.writestr(n, d)
    return out, name[len("frames/"):-len(".png")]


# -- measuring a child ----------------------------------------------------------------------------
@dataclass
class Measured:
    seconds: float
    max_rss_bytes: int
    returncode: int
    stdout: str
    stderr: str


def run_measured(cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
                 timeout_s: float = 120.0) -> Measured:
    """Run ``cmd``; its wall time and peak RSS (``ru_maxrss`` of exactly this child, from wait4)."""
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out: list[bytes] = []
    err: list[bytes] = []
    readers = [threading.Thread(target=lambda s=s, b=b: b.append(s.read()), daemon=True)
               for s, b in ((proc.stdout, out), (proc.stderr, err))]
    for r in readers:
        r.start()
    deadline = t0 + timeout_s
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.02)
    seconds = time.monotonic() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    for r in readers:
        r.join(5)
    return Measured(seconds, usage.ru_maxrss * 1024, proc.returncode, b"".join(out).decode("utf-8", "replace"),
                    b"".join(err).decode("utf-8", "replace"))


# -- a model server that never finishes answering --------------------------------------------------
class TricklingServer:
    """Accepts HTTP requests and answers one byte every ``interval_s`` seconds, forever (until closed).

    Each read the client makes gets a byte well within any per-read timeout, so
    only a deadline on the whole call ends it."""

    def __init__(self, interval_s: float = 2.0) -> None:
        self.interval_s = interval_s
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.requests = 0
        self._closing = threading.Event()
        self._threads: list[threading.Thread] = []
        self._accept = threading.Thread(target=self._serve, name="trickling-server", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def __enter__(self) -> TricklingServer:
        self._accept.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._closing.set()
        self.sock.close()
        self._accept.join(5)
        for t in self._threads:
            t.join(5)

    def _serve(self) -> None:
        self.sock.settimeout(0.1)  # accept() is not woken by close(): look at the closing flag now and then
        while not self._closing.is_set():
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            t = threading.Thread(target=self._trickle, args=(conn,), daemon=True)
            self._threads.append(t)
            t.start()

    def _trickle(self, conn: socket.socket) -> None:
        answer = b'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"id": "' \
            + b"x" * 100000
        with conn:
            conn.settimeout(5)
            try:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                self.requests += 1
                for byte in answer:
                    if self._closing.wait(self.interval_s):
                        return
                    conn.sendall(bytes([byte]))
            except OSError:
                return

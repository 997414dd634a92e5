"""Reading an untrusted trace bundle with bounded memory and time.

Members are streamed in chunks; what counts is the bytes actually inflated,
not what a zip header claims, and every member is held to its own limit as
well as the bundle's total, so a zip bomb is refused after a few megabytes of
work.  Rows are read a line at a time (each line has a length limit) and JSON
members are small by rule.  A frame is a PNG whose header is checked before its
pixels are decoded, and whose pixels must hash to the content address it is
stored under (:func:`app.engine.trace.store.image_digest`): a picture cannot
be imported under another picture's address.
"""

from __future__ import annotations

import hashlib
import io
import struct
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from PIL import Image

from app.engine.trace.bundle_format import AGAIN, FRAME_MEMBER_RE, BundleError
from app.engine.trace.store import image_digest

READ_CHUNK = 1024 * 1024
"""Bytes inflated at a time."""
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class Limits:
    """What one import may inflate; the defaults live in :mod:`app.engine.trace.bundle`."""

    total_bytes: int
    rows_member_bytes: int
    json_member_bytes: int
    line_bytes: int
    frame_bytes: int
    frame_side: int
    frame_pixels: int


@dataclass(frozen=True)
class FrameInfo:
    width: int
    height: int
    member: str
    member_sha256: str


class MemberReader:
    """Streams members of one open zip, counting every inflated byte against ``limits``."""

    def __init__(self, zf: zipfile.ZipFile, path: Path, limits: Limits) -> None:
        self.zf = zf
        self.path = path
        self.limits = limits
        self.total = 0

    def chunks(self, info: zipfile.ZipInfo, limit: int, digest: str | None) -> Iterator[bytes]:
        """The member's bytes in chunks; raises BundleError past a limit, on a wrong size or a wrong sha256.

        The size and checksum are judged when the member ends, so a consumer must read to the end."""
        name = info.filename
        h = hashlib.sha256()
        n = 0
        try:
            with self.zf.open(info) as fh:
                while True:
                    chunk = fh.read(READ_CHUNK)
                    if not chunk:
                        break
                    n += len(chunk)
                    self.total += len(chunk)
                    if n > limit:
                        raise BundleError(f"{self.path} is refused ({short(name)} inflates to more than "
                                          f"{size(limit)}, more than any trace bundle needs); {AGAIN}.")
                    if self.total > self.limits.total_bytes:
                        raise BundleError(f"{self.path} would unpack to more than {size(self.limits.total_bytes)}, "
                                          f"which no trace bundle needs; {AGAIN}.")
                    if n > info.file_size:
                        raise BundleError(f"{self.path} is damaged ({short(name)} has the wrong size); {AGAIN}.")
                    h.update(chunk)
                    yield chunk
        except BundleError:
            raise
        except zipfile.BadZipFile as exc:
            raise BundleError(f"{self.path} is damaged ({short(name)} fails the zip's own check); {AGAIN}.") from exc
        except (Exception, MemoryError) as exc:  # zipfile and zlib fail in many ways on damaged bytes
            raise BundleError(f"{self.path} is damaged ({short(name)}: {why(exc)}); {AGAIN}.") from exc
        if n != info.file_size:
            raise BundleError(f"{self.path} is damaged ({short(name)} has the wrong size); {AGAIN}.")
        if digest is not None and h.hexdigest() != digest:
            raise BundleError(f"{self.path} is damaged ({short(name)} does not match its checksum); {AGAIN}.")

    def read(self, info: zipfile.ZipInfo, limit: int, digest: str | None = None) -> bytes:
        """A whole (small) member, checked as :meth:`chunks` checks it."""
        return b"".join(self.chunks(info, limit, digest))

    def lines(self, info: zipfile.ZipInfo, digest: str) -> Iterator[bytes]:
        """The member's lines without their newline; a blank line or one longer than the limit is refused."""
        name = info.filename
        max_line = self.limits.line_bytes
        pending = bytearray()
        for chunk in self.chunks(info, self.limits.rows_member_bytes, digest):
            start = 0
            while True:
                end = chunk.find(b"\n", start)
                if end < 0:
                    pending += chunk[start:]
                    if len(pending) > max_line:
                        raise BundleError(f"{self.path} is refused ({short(name)} has a line longer than "
                                          f"{size(max_line)}); {AGAIN}.")
                    break
                if pending:
                    pending += chunk[start:end]
                    line = bytes(pending)
                    pending.clear()
                else:
                    line = chunk[start:end]
                if len(line) > max_line:
                    raise BundleError(f"{self.path} is refused ({short(name)} has a line longer than "
                                      f"{size(max_line)}); {AGAIN}.")
                if not line.strip():
                    raise BundleError(f"{self.path} is damaged ({short(name)} has a blank line, which "
                                      f"`playcoder export` never writes); {AGAIN}.")
                yield line
                start = end + 1
        if pending.strip():
            yield bytes(pending)


def check_frame(data: bytes, address: str, name: str, path: Path, limits: Limits) -> tuple[int, int]:
    """Decode a frame's PNG within the pixel limits and check that its pixels hash to ``address``."""
    if data[:8] != PNG_SIGNATURE or data[12:16] != b"IHDR" or len(data) < 24:
        raise BundleError(f"{path} is damaged ({short(name)} is not a PNG image); {AGAIN}.")
    width, height = struct.unpack(">II", data[16:24])  # the header, read before any pixel is decoded
    if not (1 <= width <= limits.frame_side and 1 <= height <= limits.frame_side) \
            or width * height > limits.frame_pixels:
        raise BundleError(f"{path} is refused ({short(name)} is a {width}×{height} picture, larger than any window "
                          f"PlayCoder captures); {AGAIN}.")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=["PNG"]) as image:
                if image.size != (width, height):
                    raise ValueError("the PNG header changed its mind")
                image.load()
                actual = image_digest(image)
    except BundleError:
        raise
    except (OSError, ValueError, SyntaxError, EOFError, MemoryError, Image.DecompressionBombError,
            Image.DecompressionBombWarning) as exc:
        raise BundleError(f"{path} is damaged ({short(name)} is not a PNG image that decodes); {AGAIN}.") from exc
    if actual != address:
        raise BundleError(f"{path} is refused ({short(name)}: its pixels do not match its content address, so the "
                          f"picture was altered or forged); import only bundles from `playcoder export`.")
    return width, height


def short(member: str) -> str:
    """A member name fit for a one-line message (names in a manifest are untrusted text)."""
    match = FRAME_MEMBER_RE.fullmatch(member)
    if match:
        return f"frame {match.group(1)[:12]}"
    return member[:80] if member.isprintable() else repr(member[:80])


def size(n: int) -> str:
    return f"{n / 1024**3:g} GB" if n >= 1024**3 else f"{n / 1024**2:.3g} MB"


def why(exc: BaseException) -> str:
    text = str(exc).strip().rstrip(".") or type(exc).__name__
    return text.splitlines()[0][:120]

"""A run's film in its trace bundle: ``films.json`` (the segment rows) and ``films/<seq>.mkv`` + ``.idx``.

Export copies each segment whose files exist, its index cut to whole records (a
film still being written travels up to its last complete frame).  Import trusts
nothing: besides the manifest's checksums, every index must be whole records of
increasing timestamps that start on a keyframe, and every stream must open as
one H.264 video of its row's size whose first frame decodes, before anything is
written.  The files are then written under the new run's names, each into a
hidden temporary renamed into place, and removed again if the import fails, so
an import leaves either the whole film or none of it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import av
import numpy as np

from app.engine.trace.bundle_format import AGAIN, BundleError
from app.engine.trace.bundle_reader import MemberReader
from app.engine.trace.film import INDEX, KEY, OVERLAY, REPEAT, segment_name
from app.engine.trace.store import TrajectoryStore

FILMS_MEMBER = "films.json"
FILM_MEMBER_RE = re.compile(r"films/([0-9]{1,4})\.(mkv|idx)")
MAX_FILM_BYTES = 1536 * 1024**2
"""One segment's stream may be this large (a 10-minute run at 30 fps needs well under 200 MB)."""
MAX_FILM_INDEX_BYTES = 64 * 1024**2
MAX_FILM_SIDE = 16384
COPY_CHUNK = 1024 * 1024
FILM_CODECS = ("h264",)


@dataclass(frozen=True)
class FilmMember:
    """A checked segment of a bundle: its row, and the members holding its stream and index."""

    row: dict[str, Any]
    stream: zipfile.ZipInfo
    index: zipfile.ZipInfo


def member_limit(name: str) -> int | None:
    """The size limit of a film member, or None when ``name`` is no film member."""
    match = FILM_MEMBER_RE.fullmatch(name)
    if match is None:
        return None
    return MAX_FILM_BYTES if match.group(2) == "mkv" else MAX_FILM_INDEX_BYTES


# -- export --------------------------------------------------------------------------------
def exportable(store: TrajectoryStore, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The segment rows whose files are there (a film deleted by hand leaves a run without one)."""
    folder = store.films_dir
    return [r for r in rows if (folder / str(r["file"])).is_file()
            and (folder / str(r["file"])).with_suffix(".idx").is_file()]


def write_films(store: TrajectoryStore, rows: list[dict[str, Any]], zf: zipfile.ZipFile,
                hashes: dict[str, str]) -> None:
    """Add each segment's stream and index to ``zf``, recording their sha256 in ``hashes``."""
    folder = store.films_dir
    for row in rows:
        stream = folder / str(row["file"])
        seq = int(row["seq"])
        index = stream.with_suffix(".idx").read_bytes()
        index = index[:len(index) - len(index) % INDEX.itemsize]
        name = f"films/{seq}.idx"
        zf.writestr(name, index, compress_type=zipfile.ZIP_DEFLATED)
        hashes[name] = hashlib.sha256(index).hexdigest()
        name = f"films/{seq}.mkv"
        h = hashlib.sha256()
        with open(stream, "rb") as src, zf.open(zipfile.ZipInfo(name), "w", force_zip64=True) as dst:
            while chunk := src.read(COPY_CHUNK):  # H.264 is compressed already: stored as it is
                h.update(chunk)
                dst.write(chunk)
        hashes[name] = h.hexdigest()


# -- import ------------------------------------------------------------------------------------
def check_films(rows: list[dict[str, Any]], infos: dict[str, zipfile.ZipInfo], reader: MemberReader,
                digests: dict[str, str], path: Path) -> list[FilmMember]:
    """Every check of the bundle's film (see the module docstring); nothing is written."""
    members = {n for n in infos if FILM_MEMBER_RE.fullmatch(n)}
    out: list[FilmMember] = []
    seqs: set[int] = set()
    for row in rows:
        seq = row.get("seq")
        if not isinstance(seq, int) or not 0 <= seq <= 9999 or seq in seqs:
            raise BundleError(f"{path} is damaged (its film segments lack distinct numbers); {AGAIN}.")
        seqs.add(seq)
        width, height = row.get("width"), row.get("height")
        if not (isinstance(width, int) and isinstance(height, int) and 1 <= width <= MAX_FILM_SIDE
                and 1 <= height <= MAX_FILM_SIDE) or not isinstance(row.get("t0"), (int, float)):
            raise BundleError(f"{path} is damaged (film segment {seq} has no valid size or start time); {AGAIN}.")
        stream, index = f"films/{seq}.mkv", f"films/{seq}.idx"
        if stream not in infos or index not in infos:
            raise BundleError(f"{path} is incomplete (film segment {seq} lacks its stream or index); {AGAIN}.")
        members -= {stream, index}
        _check_index(reader.read(infos[index], MAX_FILM_INDEX_BYTES, digests[index]), seq, path)
        for _ in reader.chunks(infos[stream], MAX_FILM_BYTES, digests[stream]):
            pass  # the checksum, judged at the end
        _check_stream(reader.zf, infos[stream], width, height, seq, path)
        out.append(FilmMember(row, infos[stream], infos[index]))
    if members:
        raise BundleError(f"{path} is damaged ({sorted(members)[0]} belongs to no film segment); {AGAIN}.")
    return out


def _check_index(data: bytes, seq: int, path: Path) -> None:
    bad = f"{path} is damaged (film segment {seq} has a broken index); {AGAIN}."
    if not data or len(data) % INDEX.itemsize:
        raise BundleError(bad)
    records = np.frombuffer(data, dtype=INDEX)
    pts, flags = records["pts"], records["flags"]
    if pts[0] < 0 or (np.diff(pts) <= 0).any() or (flags & ~np.uint32(KEY | REPEAT | OVERLAY)).any() \
            or not flags[0] & KEY:
        raise BundleError(bad)


def _check_stream(zf: zipfile.ZipFile, info: zipfile.ZipInfo, width: int, height: int, seq: int,
                  path: Path) -> None:
    """One H.264 video stream of the row's size (sides rounded up to even) whose first frame decodes."""
    even = (width + (width & 1), height + (height & 1))
    try:
        with zf.open(info) as fh, av.open(fh, "r", format="matroska") as container:
            streams = container.streams.video
            if len(container.streams) != 1 or len(streams) != 1:
                raise ValueError("not one video stream")
            stream = streams[0]
            if stream.codec_context.name not in FILM_CODECS or (stream.width, stream.height) != even:
                raise ValueError("another codec or size")
            for frame in container.decode(stream):
                if (frame.width, frame.height) != even:
                    raise ValueError("a frame of another size")
                break
            else:
                raise ValueError("no frame")
    except (av.FFmpegError, ValueError, OSError, zipfile.BadZipFile) as exc:
        raise BundleError(f"{path} is damaged (film segment {seq} is not a stream PlayCoder wrote: {exc}); "
                          f"{AGAIN}.") from exc


class FilmFiles:
    """Writes an import's film files; :meth:`discard` removes them when the import fails."""

    def __init__(self, store: TrajectoryStore) -> None:
        self.folder = store.films_dir
        self.written: list[Path] = []

    def write(self, film: FilmMember, run_id: int, reader: MemberReader, digests: dict[str, str]) -> dict[str, Any]:
        """Write one segment under run ``run_id``'s names; returns its row for the films table."""
        seq = int(film.row["seq"])
        stem = self.folder / segment_name(run_id, seq)
        for info, target in ((film.stream, stem.with_suffix(".mkv")), (film.index, stem.with_suffix(".idx"))):
            limit = MAX_FILM_BYTES if target.suffix == ".mkv" else MAX_FILM_INDEX_BYTES
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
            try:
                with open(tmp, "xb") as fh:
                    for chunk in reader.chunks(info, limit, digests[info.filename]):  # checked again as it goes
                        fh.write(chunk)
                os.replace(tmp, target)
            finally:
                with contextlib.suppress(OSError):
                    tmp.unlink(missing_ok=True)
            self.written.append(target)
        row = {k: v for k, v in film.row.items() if k not in ("id", "run_id")}
        row["file"] = stem.with_suffix(".mkv").name
        return row

    def discard(self) -> None:
        for path in self.written:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
        self.written.clear()

"""Hostile trace bundles: a zip bomb, a forged frame, giant pictures, and random damage (hypothesis).

Import must refuse them in one sentence, quickly, in little memory, and leave
the database as it was; a frame already stored is never replaced.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import struct
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from PIL import Image

from app.engine.errors import UserError
from app.engine.trace.bundle import BundleError, export_bundle, import_bundle
from app.engine.trace.store import TrajectoryStore, image_digest
from hostile_inputs import GIB, forged_bundle, newline_bomb, run_measured

ROOT = Path(__file__).resolve().parents[2]
TABLES = ("runs", "steps", "frames", "findings", "judgments", "target_logs", "llm_calls", "patches")
BOMB_SECONDS = 10.0
BOMB_RSS = 1 * GIB


def picture(color: tuple[int, int, int], size: tuple[int, int] = (64, 48)) -> Image.Image:
    image = Image.new("RGB", size, color)
    image.putpixel((3, 4), (color[2], color[0], color[1]))
    return image


def make_run(store: TrajectoryStore) -> int:
    """A small run made through the store, as an engine run would leave it (no X server needed)."""
    run_id = store.create_run(target="hostile", tester="offline", window_width=64, window_height=48)
    shas = [store.put_image(picture(c)) for c in ((200, 10, 10), (10, 200, 10), (10, 10, 200))]
    for i in range(3):
        store.add_step(run_id, i, {"action": {"action": "click", "x": 5, "y": 6}, "outcome": "ok",
                                   "frame_before": shas[i], "frame_after": shas[(i + 1) % 3],
                                   "changed_bbox": [0, 0, 10, 10], "started_at": 1.0 + i, "ended_at": 1.5 + i},
                       [{"step": i, "kind": "freeze", "message": "nothing changed"}] if i == 2 else [])
    store.add_logs(run_id, [("stdout", 1.0, "hello"), ("stderr", 2.0, "world")])
    with store.transaction():
        store.db["llm_calls"].insert({"run_id": run_id, "step": 0, "provider": "openai", "model": "m",
                                      "request": json.dumps({"image": shas[0]}), "response": "{}", "at": 1.0})
    store.finish_run(run_id, status="completed", verdict="fail", reason="freeze")
    return run_id


def counts(store: TrajectoryStore) -> dict[str, int]:
    return {t: store.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def one_sentence(message: str) -> None:
    assert "\n" not in message and message.endswith("."), message
    assert not re.search(r"[.!?]\s+[A-Z]", message), message


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile-source")
    store = TrajectoryStore(folder / "source.db")
    run_id = make_run(store)
    path = export_bundle(store, run_id, folder / "run.zip")
    store.close()
    return path


@pytest.fixture
def target(tmp_path: Path) -> TrajectoryStore:
    store = TrajectoryStore(tmp_path / "target.db")
    yield store
    store.close()


def members_of(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def write_bundle(path: Path, members: dict[str, bytes]) -> Path:
    """Write ``members`` with a manifest that lists them truly, so only the planted fault remains."""
    manifest = json.loads(members["manifest.json"])
    manifest["members"] = {n: hashlib.sha256(d).hexdigest() for n, d in members.items() if n != "manifest.json"}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in {**members, "manifest.json": json.dumps(manifest).encode()}.items():
            zf.writestr(name, data)
    return path


# -- the zip bomb -----------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["honest", "lying-header", "under-the-member-limit"])
def test_a_zip_bomb_is_refused_in_seconds_and_little_memory(variant: str, tmp_path: Path) -> None:
    bomb = {"honest": lambda p: newline_bomb(p),
            "lying-header": lambda p: newline_bomb(p, declared=1000),
            "under-the-member-limit": lambda p: newline_bomb(p, total=400 * 1024**2)}[variant](tmp_path / "bomb.zip")
    assert bomb.stat().st_size < 2.5 * 1024**2
    db = tmp_path / "target.db"
    measured = run_measured([sys.executable, "-m", "app", "import", str(bomb), "--db", str(db)], cwd=ROOT)
    assert measured.returncode == 2, measured.stderr
    (line,) = measured.stderr.strip().splitlines()
    assert line.startswith("playcoder: ") and str(bomb) in line
    one_sentence(line.removeprefix("playcoder: "))
    assert measured.seconds <= BOMB_SECONDS and measured.max_rss_bytes <= BOMB_RSS, measured
    store = TrajectoryStore(db, readonly=True)
    assert store.runs() == []
    store.close()


# -- a forged frame ---------------------------------------------------------------------------------
def test_a_forged_frame_is_refused_and_never_replaces_the_real_one(exported: Path, target: TrajectoryStore,
                                                                   tmp_path: Path) -> None:
    real_id = import_bundle(target, exported)  # the user's database already holds the real picture
    buf = io.BytesIO()
    picture((255, 255, 0)).save(buf, format="PNG")
    forged, address = forged_bundle(exported, tmp_path / "forged.zip", buf.getvalue())
    real = target.frame(address)
    assert real is not None
    before = counts(target)
    with pytest.raises(BundleError, match="do not match its content address") as err:
        import_bundle(target, forged)
    one_sentence(str(err.value))
    assert counts(target) == before
    assert target.frame(address) == real and image_digest(real.image()) == address
    fresh = TrajectoryStore(tmp_path / "fresh.db")
    with pytest.raises(BundleError, match="content address"):
        import_bundle(fresh, forged)
    assert counts(fresh)["frames"] == 0 and fresh.frame(address) is None
    fresh.close()
    assert target.steps(real_id)


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that claims ``width`` × ``height`` with a tiny, truncated image stream."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) \
        + chunk(b"IEND", b"")


def test_a_giant_picture_is_refused_before_it_is_decoded(exported: Path, target: TrajectoryStore,
                                                        tmp_path: Path) -> None:
    giant, _ = forged_bundle(exported, tmp_path / "giant.zip", _png_header_only(30_000, 30_000))
    with pytest.raises(BundleError, match="30000×30000 picture, larger than any window") as err:
        import_bundle(target, giant)
    one_sentence(str(err.value))
    assert counts(target)["runs"] == 0


def test_a_change_outside_the_window_is_refused(exported: Path, target: TrajectoryStore, tmp_path: Path) -> None:
    members = members_of(exported)
    steps = [json.loads(line) for line in members["steps.jsonl"].splitlines()]
    steps[1]["changed_bbox"] = json.dumps([0, 0, 640, 10])
    members["steps.jsonl"] = "".join(json.dumps(s) + "\n" for s in steps).encode()
    with pytest.raises(BundleError, match="outside its 64×48 window"):
        import_bundle(target, write_bundle(tmp_path / "bbox.zip", members))
    assert counts(target)["runs"] == 0


def test_frames_an_older_playcoder_addressed_travel_under_their_true_address(tmp_path: Path) -> None:
    """Older stores hashed the capture's X byte, which no PNG keeps: export re-addresses such frames."""
    store = TrajectoryStore(tmp_path / "old.db")
    run_id = store.create_run(target="old", tester="offline")
    image = picture((1, 2, 3))
    bgrx = bytearray(image.tobytes("raw", "BGRX"))
    bgrx[3::4] = b"\xab" * (len(bgrx) // 4)  # whatever the X server left in the X byte
    legacy = hashlib.sha256(b"64x48:" + bytes(bgrx)).hexdigest()
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    with store.transaction():
        store.conn.execute("INSERT INTO frames VALUES (?, 64, 48, 'png', ?)", [legacy, buf.getvalue()])
        store.db["llm_calls"].insert({"run_id": run_id, "step": 0, "request": json.dumps({"image": legacy}),
                                      "at": 1.0})
    store.add_step(run_id, 0, {"action": "{}", "outcome": "ok", "frame_after": legacy, "started_at": 1.0,
                               "ended_at": 2.0})
    bundle = export_bundle(store, run_id, tmp_path / "old.zip")
    other = TrajectoryStore(tmp_path / "other.db")
    new_id = import_bundle(other, bundle)
    (step,) = other.steps(new_id)
    assert step["frame_after"] == image_digest(image) != legacy
    assert json.loads(other.llm_calls(new_id)[0]["request"]) == {"image": image_digest(image)}
    store.close()
    other.close()


# -- random damage ------------------------------------------------------------------------------------
MUTABLE = ["run.json", "steps.jsonl", "findings.json", "judgments.json", "logs.jsonl", "llm_calls.jsonl",
           "patches.json", "manifest.json"]
FIELDS = ["id", "idx", "run_id", "action", "outcome", "frame_before", "frame_after", "changed_bbox", "target",
          "tester", "started_at", "ended_at", "source", "author", "verdict", "undoes", "stream", "t", "text", "kind",
          "message", "counts", "members", "format", "version", "schema_version", "steps", "frames", "x"]
scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**66), max_value=2**66) | st.floats()
           | st.text(max_size=30) | st.sampled_from(["\ud800", "a\x00b", "0" * 64, "[0, 0, 9, 9]"]))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from(FIELDS), inner, max_size=3), max_leaves=8)


@st.composite
def damage(draw: Any) -> tuple[str, Any]:
    kind = draw(st.sampled_from(["field", "member-bytes", "zip-bytes", "drop-member", "row"]))
    if kind == "field":
        return kind, (draw(st.sampled_from(MUTABLE)), draw(st.sampled_from(FIELDS)), draw(values))
    if kind == "member-bytes":
        return kind, (draw(st.sampled_from(MUTABLE)), draw(st.binary(max_size=200)))
    if kind == "zip-bytes":
        return kind, draw(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), min_size=1, max_size=8))
    if kind == "drop-member":
        return kind, draw(st.sampled_from(MUTABLE))
    return kind, (draw(st.sampled_from(MUTABLE)), draw(values))


def _set_field(data: bytes, field: str, value: Any, lines: bool) -> bytes:
    def edit(obj: Any) -> Any:
        if isinstance(obj, dict):
            obj[field] = value
        elif isinstance(obj, list) and obj and isinstance(obj[0], dict):
            obj[0][field] = value
        return obj
    if lines:
        rows = [json.loads(line) for line in data.splitlines() if line.strip()] or [{}]
        rows[0] = edit(rows[0])
        return "".join(json.dumps(r) + "\n" for r in rows).encode("utf-8", "surrogatepass")
    return json.dumps(edit(json.loads(data))).encode("utf-8", "surrogatepass")


def damaged(exported: Path, out: Path, how: tuple[str, Any]) -> Path:
    kind, what = how
    members = members_of(exported)
    if kind == "zip-bytes":
        raw = bytearray(exported.read_bytes())
        for at, byte in what:
            raw[int(at * (len(raw) - 1))] = byte
        out.write_bytes(bytes(raw))
        return out
    if kind == "drop-member":
        members.pop(what)
    elif kind == "member-bytes":
        members[what[0]] = what[1]
    elif kind == "field":
        name, field, value = what
        members[name] = _set_field(members[name], field, value, name.endswith(".jsonl"))
    else:
        name, row = what
        extra = json.dumps(row).encode("utf-8", "surrogatepass") + b"\n"
        members[name] = members[name] + extra if name.endswith(".jsonl") else \
            json.dumps([row]).encode("utf-8", "surrogatepass")
    if "manifest.json" not in members:
        with zipfile.ZipFile(out, "w") as zf:
            for n, d in members.items():
                zf.writestr(n, d)
        return out
    try:
        return write_bundle(out, members)
    except (ValueError, TypeError):  # the manifest itself was made unreadable: keep it so
        with zipfile.ZipFile(out, "w") as zf:
            for n, d in members.items():
                zf.writestr(n, d)
        return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(how=damage())
def test_a_damaged_bundle_is_imported_whole_or_refused_in_one_sentence(
        how: tuple[str, Any], exported: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("damaged")
    bad = damaged(exported, folder / "bad.zip", how)
    store = TrajectoryStore(folder / "target.db")
    before = counts(store)
    try:
        run_id = import_bundle(store, bad)
    except UserError as exc:
        one_sentence(str(exc))
        assert counts(store) == before and not store.conn.in_transaction
    else:
        assert store.run(run_id)["id"] == run_id
        for step in store.steps(run_id):
            for key in ("frame_before", "frame_after"):
                frame = step[key] and store.frame(step[key])
                assert not step[key] or (frame and image_digest(frame.image()) == step[key])
    finally:
        store.close()

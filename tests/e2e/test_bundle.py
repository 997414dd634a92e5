"""Trace bundles: a real engine run exported, imported elsewhere, and every kind of bad bundle refused."""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any, Callable

import pytest
from PIL import Image

from app.engine.trace import bundle_import
from app.engine.trace.bundle import BundleError, export_bundle, import_bundle
from app.engine.errors import UserError
from app.engine.trace.store import TrajectoryStore

ROOT = Path(__file__).resolve().parents[2]
TABLES = ("runs", "steps", "frames", "findings", "judgments", "target_logs", "llm_calls", "patches")

pytestmark = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is not installed")


def run_engine(db: Path) -> int:
    out = subprocess.run(
        [sys.executable, "-m", "app", "test", "tests/targets/probe_tk", "--json", "--db", str(db), "--max-steps", "5"],
        check=True, cwd=ROOT, capture_output=True, text=True, timeout=180,
    )
    return int(json.loads(out.stdout.strip().splitlines()[-1])["run_id"])


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A real probe_tk run, then a finding, an LLM call, overrides, an undo and a reference frame (differential
    play's, a picture no other step shows) added through the store."""
    db = tmp_path_factory.mktemp("source") / "source.db"
    run_id = run_engine(db)
    store = TrajectoryStore(db)
    store.set_step_reference(run_id, 2, store.put_image(Image.new("RGB", (400, 300), (12, 200, 90))))
    store.add_finding(run_id, {"step": 1, "kind": "freeze", "message": "nothing changed", "evidence": {"log": ["x"]}})
    config = json.loads(store.run(run_id)["config"])
    config["tester_options"] = {"api_key": "sk-live-123", "auth_token": "t0k", "max_tokens": 64}
    store.update_run(run_id, config=json.dumps(config))
    with store.transaction():
        store.db["llm_calls"].insert({"run_id": run_id, "step": 0, "provider": "openai", "model": "m",
                                      "request": json.dumps({"model": "m", "api_key": "sk-live-123"}),
                                      "response": "{}", "tokens_in": 10, "tokens_out": 2, "at": 1.0})
    store.add_judgment(run_id, source="human", author="ann", verdict="fail", note="the label is wrong")
    store.add_judgment(run_id, source="human", author="bob", verdict="uncertain", note="not sure")
    store.undo_last_override(run_id, "bob")  # bob's override undone: ann's 'fail' is in force
    assert store.effective_verdict(run_id) == "fail"
    store.close()
    return db, run_id


@pytest.fixture(scope="module")
def exported(source: tuple[Path, int], tmp_path_factory: pytest.TempPathFactory) -> Path:
    db, run_id = source
    store = TrajectoryStore(db, readonly=True)
    try:
        return export_bundle(store, run_id, tmp_path_factory.mktemp("bundle") / "run.zip")
    finally:
        store.close()


@pytest.fixture
def target(tmp_path: Path) -> TrajectoryStore:
    """A second database that already has run 1 (with judgments), so ids would clash."""
    store = TrajectoryStore(tmp_path / "target.db")
    rid = store.create_run(target="other", tester="offline")
    store.finish_run(rid, status="completed", verdict="pass", reason="fine")
    store.add_judgment(rid, source="human", author="zed", verdict="fail")
    assert rid == 1
    yield store
    store.close()


def counts(store: TrajectoryStore) -> dict[str, int]:
    return {t: store.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def content(store: TrajectoryStore, run_id: int) -> dict[str, Any]:
    """Everything a run holds, minus its ids; judgment links as positions, frames as bytes."""
    def rows(table: str, order: str = "id") -> list[dict[str, Any]]:
        return [{k: v for k, v in r.items() if k not in ("id", "run_id")}
                for r in store.db.query(f"SELECT * FROM {table} WHERE run_id = ? ORDER BY {order}", [run_id])]

    judgments = list(store.db.query("SELECT * FROM judgments WHERE run_id = ? ORDER BY id", [run_id]))
    position = {j["id"]: i for i, j in enumerate(judgments)}
    steps = rows("steps", "idx")
    shas = sorted({s[k] for s in steps for k in ("frame_before", "frame_after", "frame_reference") if s[k]})
    run = {k: v for k, v in store.run(run_id).items() if k not in ("id", "config")}
    return {
        "run": run, "steps": steps, "findings": rows("findings"), "logs": rows("target_logs"),
        "llm_calls": rows("llm_calls"), "patches": rows("patches"),
        "judgments": [{**{k: v for k, v in j.items() if k not in ("id", "run_id", "undoes")},
                       "undoes": position.get(j["undoes"])} for j in judgments],
        "frames": {sha: bytes(store.frame(sha).data) for sha in shas},  # type: ignore[union-attr]
    }


def assert_one_sentence(message: str) -> None:
    assert "\n" not in message and message.endswith("."), message
    assert not re.search(r"[.!?]\s+[A-Z]", message), message
    assert "Traceback" not in message


# -- round trip ------------------------------------------------------------------
def test_round_trip_into_a_database_with_an_existing_run(source, exported, target):
    db, run_id = source
    original = TrajectoryStore(db, readonly=True)
    before_other = content(target, 1)
    new_id = import_bundle(target, exported)
    assert new_id != 1
    imported, expected = content(target, new_id), content(original, run_id)
    assert [s["idx"] for s in imported["steps"] if s["frame_reference"]] == [2]  # the reference frame travelled
    assert len(imported["frames"]) == len({s["frame_after"] for s in imported["steps"]} |
                                          {s["frame_before"] for s in imported["steps"]}) + 1
    assert json.loads(imported["llm_calls"][0].pop("request")) == {"model": "m"}  # the api_key stayed home
    expected["llm_calls"][0].pop("request")
    assert imported == expected
    assert content(target, 1) == before_other  # the run already there is untouched
    assert target.effective_verdict(new_id) == original.effective_verdict(run_id) == "fail"
    assert [r["id"] for r in target.runs()] == [new_id, 1]
    undo = [j for j in target.judgments(new_id) if j["undoes"] is not None]
    assert len(undo) == 1 and target.judgments(new_id)[2]["id"] == undo[0]["undoes"]
    assert all(s["run_id"] == new_id for s in target.steps(new_id))
    original.close()


def test_importing_twice_gives_two_runs_and_shares_frames(exported, target):
    first = import_bundle(target, exported)
    frames = counts(target)["frames"]
    second = import_bundle(target, exported)
    assert first != second
    assert content(target, first) == content(target, second)
    assert counts(target)["frames"] == frames  # content-addressed: nothing stored twice


def test_manifest_hashes_every_member_and_strips_secrets(exported):
    with zipfile.ZipFile(exported) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        names = set(zf.namelist())
        assert manifest["format"] == "playcoder-bundle" and manifest["version"] == 1
        assert manifest["schema_version"] >= 1 and manifest["app_version"]
        assert set(manifest["members"]) == names - {"manifest.json"}
        for name, digest in manifest["members"].items():
            assert hashlib.sha256(zf.read(name)).hexdigest() == digest
        assert manifest["counts"]["steps"] == 5
        assert manifest["counts"]["frames"] == sum(n.startswith("frames/") for n in names)
        run = json.loads(zf.read("run.json"))
        everything = b"".join(zf.read(n) for n in names if not n.startswith("frames/"))
    options = json.loads(run["config"])["tester_options"]
    assert options == {"max_tokens": 64}
    assert b"sk-live-123" not in everything and b"t0k" not in everything


def test_export_of_a_missing_run_is_one_sentence(source, tmp_path):
    store = TrajectoryStore(source[0], readonly=True)
    with pytest.raises(UserError) as err:
        export_bundle(store, 999, tmp_path / "x.zip")
    assert_one_sentence(str(err.value))
    assert not (tmp_path / "x.zip").exists() and list(tmp_path.iterdir()) == []
    store.close()


# -- refusals ------------------------------------------------------------------------
def read_members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def write_members(path: Path, members: dict[str, bytes], *, rehash: bool = True) -> Path:
    """Write a zip; with ``rehash`` the manifest is made consistent, so only the planted fault remains."""
    if rehash and "manifest.json" in members:
        manifest = json.loads(members["manifest.json"])
        manifest["members"] = {n: hashlib.sha256(d).hexdigest() for n, d in members.items() if n != "manifest.json"}
        members = {**members, "manifest.json": json.dumps(manifest).encode()}
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def edit_manifest(members: dict[str, bytes], **changes: Any) -> dict[str, bytes]:
    manifest = json.loads(members["manifest.json"])
    manifest.update(changes)
    return {**members, "manifest.json": json.dumps(manifest).encode()}


def first_frame(members: dict[str, bytes]) -> str:
    return sorted(n for n in members if n.startswith("frames/"))[0]


def truncated(src: Path, out: Path) -> Path:
    data = src.read_bytes()
    out.write_bytes(data[: len(data) // 2])
    return out


def flipped_frame_byte(src: Path, out: Path) -> Path:
    members = read_members(src)
    png = members[first_frame(members)]
    raw = bytearray(src.read_bytes())
    at = raw.find(png) + len(png) // 2
    raw[at] ^= 0xFF
    out.write_bytes(bytes(raw))
    return out


def replaced_frame(src: Path, out: Path) -> Path:
    members = read_members(src)
    name = first_frame(members)
    other = sorted(n for n in members if n.startswith("frames/"))[1]
    return write_members(out, {**members, name: members[other]}, rehash=False)  # valid zip, stale checksum


def manifest_missing(src: Path, out: Path) -> Path:
    return write_members(out, {n: d for n, d in read_members(src).items() if n != "manifest.json"})


def foreign_zip(src: Path, out: Path) -> Path:
    return write_members(out, {"word/document.xml": b"<doc/>", "[Content_Types].xml": b"<x/>"})


def foreign_manifest(src: Path, out: Path) -> Path:
    return write_members(out, {"manifest.json": json.dumps({"format": "something-else", "version": 1}).encode()})


def not_a_zip(src: Path, out: Path) -> Path:
    out.write_text("just some text, not a bundle\n")
    return out


def wrong_version(src: Path, out: Path) -> Path:
    return write_members(out, edit_manifest(read_members(src), version=2))


def newer_schema(src: Path, out: Path) -> Path:
    return write_members(out, edit_manifest(read_members(src), schema_version=99))


def path_traversal(src: Path, out: Path) -> Path:
    return write_members(out, {**read_members(src), "../../evil.sh": b"rm -rf ~"})


def traversal_in_frames(src: Path, out: Path) -> Path:
    return write_members(out, {**read_members(src), "frames/../../../etc/cron.d/x.png": b"x"})


def absolute_member(src: Path, out: Path) -> Path:
    return write_members(out, {**read_members(src), "/tmp/evil.json": b"{}"})


def missing_referenced_frame(src: Path, out: Path) -> Path:
    members = read_members(src)
    members.pop(first_frame(members))
    manifest = json.loads(members["manifest.json"])
    manifest["counts"]["frames"] -= 1
    return write_members(out, {**members, "manifest.json": json.dumps(manifest).encode()})


def missing_reference_frame(src: Path, out: Path) -> Path:
    """The frame only a step's ``frame_reference`` shows is left out (and the counts made to agree)."""
    members = read_members(src)
    steps = [json.loads(line) for line in members["steps.jsonl"].decode().splitlines()]
    (sha,) = {s["frame_reference"] for s in steps if s.get("frame_reference")}
    assert not any(sha in (s["frame_before"], s["frame_after"]) for s in steps)
    members.pop(f"frames/{sha}.png")
    manifest = json.loads(members["manifest.json"])
    manifest["counts"]["frames"] -= 1
    return write_members(out, {**members, "manifest.json": json.dumps(manifest).encode()})


def member_not_listed(src: Path, out: Path) -> Path:
    members = read_members(src)
    manifest = json.loads(members["manifest.json"])
    del manifest["members"]["findings.json"]
    return write_members(out, {**members, "manifest.json": json.dumps(manifest).encode()}, rehash=False)


def bad_json(src: Path, out: Path) -> Path:
    return write_members(out, {**read_members(src), "steps.jsonl": b'{"idx": 0,\n'})


def missing_required_field(src: Path, out: Path) -> Path:
    members = read_members(src)
    steps = [json.loads(line) for line in members["steps.jsonl"].splitlines()]
    del steps[2]["outcome"]
    return write_members(out, {**members, "steps.jsonl": "".join(json.dumps(s) + "\n" for s in steps).encode()})


def unknown_field(src: Path, out: Path) -> Path:
    members = read_members(src)
    run = json.loads(members["run.json"])
    run["id); DROP TABLE runs; --"] = 1
    return write_members(out, {**members, "run.json": json.dumps(run).encode()})


def dangling_undo(src: Path, out: Path) -> Path:
    members = read_members(src)
    judgments = json.loads(members["judgments.json"])
    judgments[-1]["undoes"] = 12345
    return write_members(out, {**members, "judgments.json": json.dumps(judgments).encode()})


def refused_by_the_database(src: Path, out: Path) -> Path:
    """Passes every bundle check but fails a CHECK constraint after frames, run and steps were inserted."""
    members = read_members(src)
    judgments = json.loads(members["judgments.json"])
    judgments[-1]["source"] = "robot"
    return write_members(out, {**members, "judgments.json": json.dumps(judgments).encode()})


def duplicate_member(src: Path, out: Path) -> Path:
    members = read_members(src)
    write_members(out, members)
    with pytest.warns(UserWarning), zipfile.ZipFile(out, "a") as zf:
        zf.writestr("steps.jsonl", members["steps.jsonl"])
    return out


BAD_BUNDLES: dict[str, tuple[Callable[[Path, Path], Path], str]] = {
    "truncated": (truncated, "truncated"),
    "flipped_frame_byte": (flipped_frame_byte, "damaged"),
    "replaced_frame": (replaced_frame, "checksum"),
    "manifest_missing": (manifest_missing, "manifest.json missing"),
    "foreign_zip": (foreign_zip, "manifest.json missing"),
    "foreign_manifest": (foreign_manifest, "not a PlayCoder trace bundle"),
    "not_a_zip": (not_a_zip, "not a zip file"),
    "wrong_version": (wrong_version, "version 2"),
    "newer_schema": (newer_schema, "newer PlayCoder"),
    "path_traversal": (path_traversal, "unexpected member"),
    "traversal_in_frames": (traversal_in_frames, "unexpected member"),
    "absolute_member": (absolute_member, "unexpected member"),
    "missing_referenced_frame": (missing_referenced_frame, "lacks"),
    "missing_reference_frame": (missing_reference_frame, "lacks"),
    "member_not_listed": (member_not_listed, "not listed in the manifest"),
    "bad_json": (bad_json, "not valid JSON"),
    "missing_required_field": (missing_required_field, "outcome"),
    "unknown_field": (unknown_field, "unknown field"),
    "dangling_undo": (dangling_undo, "undoes a judgment"),
    "refused_by_the_database": (refused_by_the_database, "refuses"),
    "duplicate_member": (duplicate_member, "twice"),
}


@pytest.mark.parametrize("case", sorted(BAD_BUNDLES))
def test_bad_bundles_are_refused_and_nothing_is_written(case, exported, target, tmp_path):
    make, expected = BAD_BUNDLES[case]
    bad = make(exported, tmp_path / f"{case}.zip")
    before = counts(target)
    with pytest.raises(BundleError) as err:
        import_bundle(target, bad)
    message = str(err.value)
    assert expected in message
    assert str(bad) in message
    assert_one_sentence(message)
    assert counts(target) == before
    assert not target.conn.in_transaction


def test_zip_bomb_limits(exported, target, monkeypatch, tmp_path):
    before = counts(target)
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in read_members(exported).items():
            if name != "patches.json":
                zf.writestr(name, data)
        zf.writestr("patches.json", b" " * 5_000_000 + b"[]")  # 5 MB that deflate to a few kB
    assert bomb.stat().st_size < 100_000
    monkeypatch.setattr(bundle_import, "MAX_UNCOMPRESSED_BYTES", 1_000_000)
    errors = []
    with pytest.raises(BundleError, match="would unpack to more than 0.954 MB") as err:
        import_bundle(target, bomb)
    errors.append(str(err.value))
    monkeypatch.setattr(bundle_import, "MAX_UNCOMPRESSED_BYTES", 10_000)
    with pytest.raises(BundleError, match="is larger than") as err:
        import_bundle(target, exported)
    errors.append(str(err.value))
    monkeypatch.undo()
    monkeypatch.setattr(bundle_import, "MAX_MEMBERS", 5)
    with pytest.raises(BundleError, match="members") as err:
        import_bundle(target, exported)
    errors.append(str(err.value))
    for message in errors:
        assert_one_sentence(message)
    assert counts(target) == before


def test_lying_size_is_caught(exported, target, tmp_path):
    """A member that inflates past the size its header declares is refused, not read to the end."""
    members = read_members(exported)
    raw = bytearray(write_members(tmp_path / "lie.zip", {**members, "logs.jsonl": b"x" * 5000 + b"\n"}).read_bytes())
    # Shrink the size declared in the central directory entry (name at offset 46, size at offset 24).
    entry = raw.find(b"logs.jsonl", raw.find(b"PK\x01\x02")) - 46
    assert raw[entry:entry + 4] == b"PK\x01\x02"
    raw[entry + 24:entry + 28] = (10).to_bytes(4, "little")
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as zf:
        assert zf.getinfo("logs.jsonl").file_size == 10
    (tmp_path / "lie.zip").write_bytes(bytes(raw))
    before = counts(target)
    with pytest.raises(BundleError) as err:
        import_bundle(target, tmp_path / "lie.zip")
    assert_one_sentence(str(err.value))
    assert counts(target) == before


def test_a_busy_database_is_one_sentence(exported, target, tmp_path):
    other = sqlite3.connect(target.path, timeout=0)
    other.execute("BEGIN IMMEDIATE")
    target.conn.execute("PRAGMA busy_timeout = 50")
    try:
        with pytest.raises(UserError) as err:
            import_bundle(target, exported)
    finally:
        other.rollback()
        other.close()
    assert_one_sentence(str(err.value))


# -- command line -----------------------------------------------------------------------
def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_cli_round_trip(source, tmp_path):
    db, run_id = source
    out = cli("export", str(run_id), "-o", str(tmp_path / "b.zip"), "--db", str(db))
    assert out.returncode == 0, out.stderr
    second = tmp_path / "second.db"
    TrajectoryStore(second).create_run(target="there", tester="offline")
    out = cli("import", str(tmp_path / "b.zip"), "--db", str(second))
    assert out.returncode == 0, out.stderr
    new_id = int(out.stdout.strip())
    assert new_id == 2
    a, b = TrajectoryStore(db, readonly=True), TrajectoryStore(second, readonly=True)
    assert content(a, run_id)["steps"] == content(b, new_id)["steps"]
    assert content(a, run_id)["frames"] == content(b, new_id)["frames"]
    assert b.effective_verdict(new_id) == "fail"
    a.close()
    b.close()
    out = cli("export", str(run_id), "-o", str(tmp_path / "r.html"), "--db", str(db))
    assert out.returncode == 0 and (tmp_path / "r.html").stat().st_size > 1000


@pytest.mark.parametrize("args", [
    ("export", "1", "-o", "{tmp}/x.pdf", "--db", "{db}"),
    ("export", "42", "-o", "{tmp}/x.zip", "--db", "{db}"),
    ("export", "1", "-o", "{tmp}/x.zip", "--db", "{tmp}/missing.db"),
    ("export", "1", "-o", "{db}/under-a-file.zip", "--db", "{db}"),
    ("export", "1", "-o", "{db}/under-a-file.html", "--db", "{db}"),
    ("import", "{tmp}/nothing.zip", "--db", "{tmp}/new.db"),
    ("import", "{tmp}/text.zip", "--db", "{tmp}/new.db"),
])
def test_cli_bad_input_is_one_line(args, source, tmp_path):
    (tmp_path / "text.zip").write_text("hello")
    out = cli(*(a.format(tmp=tmp_path, db=source[0]) for a in args))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("playcoder: "), out.stderr
    assert_one_sentence(lines[0].removeprefix("playcoder: "))
    assert not (tmp_path / "x.zip").exists() and not (tmp_path / "x.pdf").exists()

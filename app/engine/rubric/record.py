"""Recording a ``[[script]]`` case from a run a person played (Playwright's codegen, for programs).

A person takes over a live run (the workbench's Take over), plays, and marks on the frames what must hold:
a region that changes, a colour, a text, a picture to match.  :class:`CaseDraft` turns that into one
``[[script]]`` case (and a ``[[criteria]]`` entry when the criterion is new), checks that the target's
``playcoder.toml`` with the case added still loads, saves it, and replays it to confirm.

Saving never changes the target folder silently: by default the case goes into a **new file**
(:data:`RECORDED_FILE`, a copy of the target's ``playcoder.toml`` with the case added, beside it), or into any
path the person chooses; appending to the target's own ``playcoder.toml`` needs ``append_confirmed``.  A picture
to match is written beside the saved file (``refs/…``) and every write is named in :attr:`Saved.sentence`.

Qt-free: the workbench's recorder view (``app/views/run/case_recorder_view.py``) only shows a draft and calls
these methods; a replay is long work and runs off the GUI thread.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import tempfile
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from PIL import Image

from app.engine.testers.registry import RUBRIC
from app.engine.errors import UserError
from app.engine.play.observer import Frame
from app.engine.play.targetspec import _COPY_IGNORE, SPEC_FILE, parse_spec
from app.engine.trace.store import TrajectoryStore

RECORDED_FILE = "playcoder.recorded.toml"
"""The default file a recorded case is saved into, beside the target's ``playcoder.toml``."""
MARK_KINDS = ("region_changed", "pixel", "text", "similar")
"""What a person can mark: a region that changes, a colour, a text, a picture to match."""
REPLAY_MAX_STEPS = 400
REPLAY_KIND = "recorder-replay"
"""The run kind of a recorder's replay: not a test of the program, so never drawn or listed as one."""
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


# -- TOML (tomllib reads it; nothing in the standard library writes it) -------------------------
def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON's escapes are TOML's basic-string escapes
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else json.dumps(key)


def toml_document(data: dict[str, Any]) -> str:
    """A whole document: plain keys, then ``[tables]``, then ``[[arrays of tables]]``."""
    plain: list[str] = []
    tables: list[str] = []
    arrays: list[str] = []
    for key, value in data.items():
        if isinstance(value, dict):
            tables.append(f"\n[{toml_key(key)}]\n" + "".join(f"{toml_key(k)} = {toml_value(v)}\n"
                                                             for k, v in value.items()))
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            arrays.extend(toml_table(key, v) for v in value)
        else:
            plain.append(f"{toml_key(key)} = {toml_value(value)}\n")
    return "".join(plain) + "".join(tables) + "".join(arrays)


def toml_table(array: str, table: dict[str, Any]) -> str:
    return f"\n[[{toml_key(array)}]]\n" + "".join(f"{toml_key(k)} = {toml_value(v)}\n" for k, v in table.items())


# -- what was played ---------------------------------------------------------------------------
@dataclass(frozen=True)
class RecordedStep:
    """One step of the run: its index there, the action, who acted, and the frames around it (PNG)."""

    idx: int
    action: dict[str, Any]
    actor: str
    before: bytes | None
    after: bytes

    def label(self) -> str:
        a = self.action
        what = {k: v for k, v in a.items() if k != "action"}
        shown = ", ".join(f"{k}={v}" for k, v in what.items())
        return f"{a.get('action')} {shown}".strip() + (" (you)" if self.actor == "human" else "")

    def after_image(self) -> Image.Image:
        return Image.open(io.BytesIO(self.after)).convert("RGB")


@dataclass(frozen=True)
class RecordedRun:
    run_id: int
    target: Path
    steps: list[RecordedStep]


def load_run(db: Path, run_id: int) -> RecordedRun:
    """The steps of run ``run_id`` in ``db`` with their frames (read through a read-only connection)."""
    store = TrajectoryStore(db, readonly=True)
    try:
        run = store.run(run_id)
        if not run:
            raise UserError(f"there is no run {run_id} in {db}.")
        target = store.target_path(run_id)
        steps: list[RecordedStep] = []
        for row in store.steps(run_id):
            action = row.get("action") or {}
            if action.get("action") == "finish" or not row.get("frame_after"):
                continue
            after = store.frame(row["frame_after"])
            before = store.frame(row["frame_before"]) if row.get("frame_before") else None
            if after is None:
                continue
            steps.append(RecordedStep(int(row["idx"]), action, str(row.get("actor") or "tester"),
                                      before.data if before is not None else None, after.data))
    finally:
        store.close()
    if not target or not (Path(target) / SPEC_FILE).is_file():
        raise UserError(f"run {run_id} played {target or 'an unknown folder'}, which has no {SPEC_FILE} any more; "
                        "a case can only be recorded for a target folder.")
    return RecordedRun(run_id, Path(target), steps)


# -- the draft -----------------------------------------------------------------------------------
@dataclass
class Mark:
    """One expectation a person marked: checked on the frame after the case's step ``after``."""

    after: int
    kind: str
    params: dict[str, Any]
    picture: bytes | None = None
    """``similar``: the PNG the region must match (the frame the person marked)."""

    def expectation(self) -> dict[str, Any]:
        return {"after": self.after, "kind": self.kind, **self.params}

    def describe(self) -> str:
        shown = ", ".join(f"{k} {v}" for k, v in self.params.items() if k != "reference")
        return f"after step {self.after + 1}: {self.kind} {shown}"


@dataclass
class Saved:
    path: Path
    pictures: list[Path]
    sentence: str


@dataclass
class Replayed:
    verdict: str
    lines: list[str]
    run_id: int | None


@dataclass
class CaseDraft:
    """The case being recorded from ``run``: its steps, marks and criterion."""

    run: RecordedRun
    criterion: str = ""
    criterion_text: str = ""
    """Said only for a new criterion (one the target's playcoder.toml does not have)."""
    name: str = ""
    from_start: bool = False
    """Take every step of the run (the tester's too) instead of only the person's."""
    marks: list[Mark] = field(default_factory=list)
    left_out: set[int] = field(default_factory=set)
    """Steps of the run (their index there) the person left out of the case (a click that only took over)."""

    @property
    def folder(self) -> Path:
        return self.run.target

    def original_text(self) -> str:
        return (self.folder / SPEC_FILE).read_text(encoding="utf-8")

    def original(self) -> dict[str, Any]:
        try:
            return tomllib.loads(self.original_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise UserError(f"{self.folder / SPEC_FILE} cannot be read ({exc}); fix it first.") from exc

    def criteria(self) -> list[str]:
        return [str(c.get("id")) for c in self.original().get("criteria", []) if isinstance(c, dict)]

    def steps(self) -> list[RecordedStep]:
        """The case's steps: the person's (or, ``from_start``, every step of the run)."""
        steps = self.run.steps if self.from_start else [s for s in self.run.steps if s.actor == "human"]
        return [s for s in steps if s.idx not in self.left_out]

    def leave_out(self, pos: int) -> None:
        """Leave the case's step ``pos`` out: its marks go, the marks after it move up one step."""
        steps = self.steps()
        if not 0 <= pos < len(steps):
            return
        self.left_out.add(steps[pos].idx)
        self.marks = [replace(m, after=m.after - (m.after > pos)) for m in self.marks if m.after != pos]

    # -- marking ---------------------------------------------------------------------------------
    def mark(self, kind: str, after: int, *, region: list[int] | None = None, at: list[int] | None = None,
             text: str = "") -> Mark:
        """Add what must hold on the frame after the case's step ``after`` (0-based)."""
        steps = self.steps()
        if not 0 <= after < len(steps):
            raise UserError(f"there is no step {after + 1} in the case (it has {len(steps)}).")
        image = steps[after].after_image()
        w, h = image.size
        if region is not None:
            x0, y0, x1, y1 = (int(v) for v in region)
            x0, x1 = sorted((max(0, min(w, x0)), max(0, min(w, x1))))
            y0, y1 = sorted((max(0, min(h, y0)), max(0, min(h, y1))))
            if x1 - x0 < 1 or y1 - y0 < 1:
                raise UserError("the region is empty; drag a box over the part of the frame to check.")
            region = [x0, y0, x1, y1]
        if kind == "region_changed":
            mark = Mark(after, kind, {"region": region or [0, 0, w, h]})
        elif kind == "pixel":
            if at is None:
                raise UserError("a colour is checked at one point; click the frame where it must be.")
            x, y = min(max(0, int(at[0])), w - 1), min(max(0, int(at[1])), h - 1)
            r, g, b = image.convert("RGB").load()[x, y][:3]  # type: ignore[index]
            mark = Mark(after, kind, {"at": [x, y], "colour": f"#{r:02x}{g:02x}{b:02x}"})
        elif kind == "text":
            if region is None or not text.strip():
                raise UserError("a text check needs a region and the text it must contain.")
            mark = Mark(after, kind, {"region": region, "contains": text.strip()})
            self._check_text(image, region, text)
        elif kind == "similar":
            if region is None:
                raise UserError("a picture to match needs a region of the frame.")
            n = sum(1 for m in self.marks if m.kind == "similar") + 1
            name = f"refs/recorded-{self.criterion or 'case'}-{n}.png"
            buf = io.BytesIO()
            image.save(buf, format="PNG")
            mark = Mark(after, kind, {"reference": name, "region": region}, picture=buf.getvalue())
        else:
            raise UserError(f"a mark is one of {', '.join(MARK_KINDS)}, not {kind!r}.")
        self.marks.append(mark)
        return mark

    @staticmethod
    def _check_text(image: Image.Image, region: list[int], text: str) -> None:
        """Refuse a text mark OCR cannot read on the very frame it was drawn on (the check would fail there);
        without OCR it cannot be checked here, and the replay says so."""
        from app.engine.judge.expectations import crop, ocr_engine, read_text, rgb

        ocr = ocr_engine()
        if ocr is None:
            return
        want = " ".join(text.split())
        area = crop(rgb(Frame(image.width, image.height, image.convert("RGB").tobytes("raw", "BGRX"), 0.0)),
                    [int(v) for v in region])
        reads = read_text(area, want, ocr) if area is not None else []
        if any(want.lower() in seen.lower() for _, seen in reads):
            return
        shown = " / ".join(repr(seen) for _, seen in reads) or "nothing"
        raise UserError(f"OCR reads {shown} in this box on the frame it was drawn on, not {want!r}, so the check "
                        "would fail there: draw the box a little larger around the text, or mark the picture "
                        "(Picture match) instead.")

    def read_text(self, after: int, region: list[int]) -> str:
        """What OCR reads in ``region`` of the frame after the case's step ``after`` ('' without OCR): the text a
        Text mark is offered with (the person corrects it)."""
        from app.engine.judge.expectations import ocr_engine, read_line

        steps = self.steps()
        ocr = ocr_engine()
        if ocr is None or not 0 <= after < len(steps):
            return ""
        image = steps[after].after_image()
        frame = Frame(image.width, image.height, image.tobytes("raw", "BGRX"), 0.0)
        return read_line(frame, [int(v) for v in region], ocr).strip()

    def remove(self, index: int) -> None:
        del self.marks[index]

    # -- the case ------------------------------------------------------------------------------
    def case(self) -> dict[str, Any]:
        steps = self.steps()
        if not steps:
            raise UserError("there are no steps of yours in this run: take over (Ctrl+T) and play, or take the "
                            "run's steps from its start.")
        if not self.marks:
            raise UserError("mark at least one thing that must hold (a region that changes, a colour, a text or "
                            "a picture).")
        if not _ID.match(self.criterion):
            raise UserError("give the case a criterion id (letters, digits, '-', '_', '.').")
        case: dict[str, Any] = {"criterion": self.criterion}
        if self.name.strip():
            case["name"] = self.name.strip()
        case["restart"] = True  # the steps were played from a fresh start, or from the run's start
        case["steps"] = [s.action for s in steps]
        case["expect"] = [m.expectation() for m in self.marks]
        return case

    def new_criterion(self) -> dict[str, str] | None:
        if self.criterion in self.criteria():
            return None
        text = self.criterion_text.strip() or f"recorded: {self.name.strip() or self.criterion}"
        return {"id": self.criterion, "text": text}

    def block(self) -> str:
        """The TOML to add: the new criterion, if any, and the ``[[script]]`` case."""
        crit = self.new_criterion()
        return (toml_table("criteria", crit) if crit else "") + toml_table("script", self.case())

    def spec_data(self, only_this_case: bool = False) -> dict[str, Any]:
        """The target's playcoder.toml with the case added (``only_this_case``: as its one case), validated."""
        data = self.original()
        crit = self.new_criterion()
        if crit:
            data["criteria"] = list(data.get("criteria", [])) + [crit]
        data["script"] = ([] if only_this_case else list(data.get("script", []))) + [self.case()]
        parse_spec(tomllib.loads(toml_document(data)), folder=self.folder, source=self.folder, bug=None,
                   where="the recorded case")
        return data

    def default_destination(self) -> Path:
        return self.folder / RECORDED_FILE

    # -- saving --------------------------------------------------------------------------------------
    def save(self, dest: Path | None = None, *, append_confirmed: bool = False) -> Saved:
        """Write the case: into ``dest`` (default :meth:`default_destination`) as a copy of the target's
        playcoder.toml with the case added, or appended to the target's own file when ``dest`` is it and the
        person confirmed.  Returns what was written, in a sentence."""
        dest = (dest or self.default_destination()).expanduser()
        self.spec_data()  # refuses a case that would not load
        own = dest.resolve() == (self.folder / SPEC_FILE).resolve()
        if own and not append_confirmed:
            raise UserError(f"{dest} is the target's own {SPEC_FILE}; confirm to append the case to it, or save "
                            "to a new file.")
        earlier = not own and dest.is_file()  # cases recorded before: this one is added after them, never over
        try:
            text = dest.read_text(encoding="utf-8") if earlier else self.original_text()
            for m in self.marks:
                if m.picture is not None:
                    m.params["reference"] = _free_picture_name(dest.parent, str(m.params["reference"]), m.picture)
            block = self.block()
            if earlier:
                known = {str(c.get("id")) for c in tomllib.loads(text).get("criteria", []) if isinstance(c, dict)}
                block = (toml_table("script", self.case()) if self.criterion in known else block)
            text = text + ("" if text.endswith("\n") else "\n") + block
            parse_spec(tomllib.loads(text), folder=self.folder, source=self.folder, bug=None, where=str(dest))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise UserError(f"{dest} cannot take the case ({exc}); save to a new file.") from exc
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            pictures = []
            for m in self.marks:
                if m.picture is not None:
                    path = dest.parent / str(m.params["reference"])
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(m.picture)
                    pictures.append(path)
            dest.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {dest} ({exc.strerror or exc}); choose another place.") from exc
        what = (f"appended the case to {dest}" if own or earlier else
                f"wrote {dest}: the target's {SPEC_FILE} with the case added (your {SPEC_FILE} is unchanged; "
                f"use this file as it, or copy the case over)")
        if pictures:
            what += f"; the picture{'s' if len(pictures) > 1 else ''} to match: {', '.join(map(str, pictures))}"
        return Saved(dest, pictures, what + ".")

    # -- replaying ------------------------------------------------------------------------------------
    def replay(self, db: Path | None = None, *, seed: int = 0,
               check: Callable[[], None] = lambda: None) -> Replayed:
        """Play the case alone on a scratch copy of the target with the script tester; say what each mark found.

        The run goes into ``db`` (the workbench's database, to be looked at) or a temporary one."""
        from app.engine.run.session import RunConfig, Session
        from app.engine.testers.script import ScriptTester

        data = self.spec_data(only_this_case=True)
        with tempfile.TemporaryDirectory(prefix="playcoder-replay-") as tmp:
            copy = Path(tmp) / self.folder.name
            shutil.copytree(self.folder, copy, ignore=_COPY_IGNORE, symlinks=True)
            (copy / SPEC_FILE).write_text(toml_document(data), encoding="utf-8")
            for m in self.marks:
                if m.picture is not None:
                    path = copy / str(m.params["reference"])
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(m.picture)
            check()
            store = TrajectoryStore(db or Path(tmp) / "replay.db")
            try:
                tester = ScriptTester()
                result = Session(RunConfig(target=str(copy), tester=RUBRIC, max_steps=REPLAY_MAX_STEPS, seed=seed,
                                           film_fps=0, kind=REPLAY_KIND), store, tester=tester).run()
            finally:
                store.close()
        # The notes name the scratch copy (gone when this returns); a command they suggest is for the user's folder.
        lines = [f"{ev.verdict}: {m.describe()} — {ev.note}".replace(str(copy), str(self.folder))
                 for ev, m in zip(tester.results(), self.marks)]
        if result.status != "completed" and not lines:
            lines = [result.error or result.reason]
        return Replayed(result.verdict, lines, result.run_id if db is not None else None)


def _free_picture_name(folder: Path, name: str, picture: bytes) -> str:
    """``name``, or ``name`` with ``-2``, ``-3`` … before its suffix when a different picture already has it:
    a case saved after another never replaces the other's picture."""
    path, n = Path(name), 1
    while (folder / path).is_file() and (folder / path).read_bytes() != picture:
        n += 1
        path = Path(name).with_name(f"{Path(name).stem}-{n}{Path(name).suffix}")
    return str(path)

"""Typed actions and the strict parser that turns model or user text into them.

The parser accepts two forms: a JSON object (``{"action": "click", "x": 10,
"y": 20}``, possibly inside a Markdown code fence or surrounded by prose) and
the paper's call form (``click(120, 80)``, ``type("hi")``,
``hotkey("ctrl", "s")``).  Call arguments are read with ``ast.literal_eval``
on single literal nodes only: nothing is ever evaluated or executed.
Every failure is an :class:`ActionParseError` with a readable message.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Union

from app import pysyntax

MAX_TEXT_CHARS = 4096
"""Longest model reply the parser looks at; longer text is refused, not truncated."""
MAX_TYPE_CHARS = 512
MAX_WAIT_SECONDS = 30.0
MAX_SCROLL_AMOUNT = 50
MAX_TAPS = 20
VERDICTS = ("pass", "fail", "uncertain")
SCROLL_DIRECTIONS = ("up", "down", "left", "right")


class ActionParseError(ValueError):
    """The text is not a valid action; the message says why."""


@dataclass(frozen=True)
class Click:
    x: int
    y: int
    name: ClassVar[str] = "click"


@dataclass(frozen=True)
class DoubleClick:
    x: int
    y: int
    name: ClassVar[str] = "double_click"


@dataclass(frozen=True)
class RightClick:
    x: int
    y: int
    name: ClassVar[str] = "right_click"


@dataclass(frozen=True)
class Drag:
    x: int
    y: int
    x2: int
    y2: int
    name: ClassVar[str] = "drag"


@dataclass(frozen=True)
class Type:
    text: str
    name: ClassVar[str] = "type"


@dataclass(frozen=True)
class Hotkey:
    keys: tuple[str, ...]
    name: ClassVar[str] = "hotkey"


@dataclass(frozen=True)
class Press:
    key: str
    name: ClassVar[str] = "press"


@dataclass(frozen=True)
class Tap:
    """One key pressed ``times`` times in quick succession, as a player taps (a bird kept climbing)."""

    key: str
    times: int = 3
    name: ClassVar[str] = "tap"


@dataclass(frozen=True)
class Scroll:
    x: int
    y: int
    direction: str = "down"
    amount: int = 1
    name: ClassVar[str] = "scroll"


@dataclass(frozen=True)
class Wait:
    seconds: float
    name: ClassVar[str] = "wait"


@dataclass(frozen=True)
class Finish:
    verdict: str
    reason: str = ""
    name: ClassVar[str] = "finish"


Action = Union[Click, DoubleClick, RightClick, Drag, Type, Hotkey, Press, Tap, Scroll, Wait, Finish]

ACTION_TYPES: dict[str, type] = {
    cls.name: cls
    for cls in (Click, DoubleClick, RightClick, Drag, Type, Hotkey, Press, Tap, Scroll, Wait, Finish)
}
_ALIASES = {
    "doubleclick": "double_click",
    "dblclick": "double_click",
    "rightclick": "right_click",
    "key": "press",
    "keypress": "press",
    "type_text": "type",
    "write": "type",
    "sleep": "wait",
    "done": "finish",
}
# Positional parameter order for the call form, per action.
_PARAMS: dict[str, tuple[str, ...]] = {
    "click": ("x", "y"),
    "double_click": ("x", "y"),
    "right_click": ("x", "y"),
    "drag": ("x", "y", "x2", "y2"),
    "type": ("text",),
    "press": ("key",),
    "tap": ("key", "times"),
    "scroll": ("x", "y", "direction", "amount"),
    "wait": ("seconds",),
    "finish": ("verdict", "reason"),
}
_IGNORED_FIELDS = frozenset({"action", "rationale", "thought", "reasoning"})
_KEY_RE = re.compile(r"^[A-Za-z0-9_+\-*/=.,;:'\[\]\\`!@#$%^&()<>?{}|~\" ]{1,24}$")
_CALL_RE = re.compile(r"\b(" + "|".join(sorted(set(ACTION_TYPES) | set(_ALIASES), key=len, reverse=True)) + r")\s*\(", re.I)


def action_to_dict(action: Action) -> dict[str, Any]:
    """The JSON form of an action, as stored in the database and sent as events."""
    data = asdict(action)
    if isinstance(action, Hotkey):
        data["keys"] = list(action.keys)
    return {"action": action.name, **data}


def action_to_call(action: Action) -> str:
    """The paper's call form, for captions and prompts."""
    data = asdict(action)
    if isinstance(action, Hotkey):
        return f"hotkey({', '.join(json.dumps(k) for k in action.keys)})"
    args = ", ".join(json.dumps(v) if isinstance(v, str) else repr(v) for v in data.values())
    return f"{action.name}({args})"


def action_from_dict(data: dict[str, Any]) -> Action:
    """Build an action from a JSON-like dict, validating every field."""
    return ActionParser().from_mapping(data)


class ActionParser:
    """Strict text → :data:`Action` parser; see the module docstring."""

    def parse(self, text: object) -> Action:
        if not isinstance(text, str):
            raise ActionParseError("the action must be text")
        if len(text) > MAX_TEXT_CHARS:
            raise ActionParseError(f"the reply is longer than {MAX_TEXT_CHARS} characters")
        stripped = text.strip()
        if not stripped:
            raise ActionParseError("the reply is empty; expected an action such as click(10, 20)")
        errors: list[str] = []
        obj = find_json_object(stripped)
        if obj is not None:
            try:
                return self.from_mapping(obj)
            except ActionParseError as exc:
                errors.append(str(exc))
        call = self._find_call(stripped)
        if call is not None:
            name, args, kwargs = call
            return self._build(name, args, kwargs)
        if errors:
            raise ActionParseError(errors[0])
        raise ActionParseError(
            "no action found; expected JSON like {\"action\": \"click\", \"x\": 10, \"y\": 20} "
            "or a call like click(10, 20)"
        )

    def from_mapping(self, data: object) -> Action:
        if not isinstance(data, dict):
            raise ActionParseError("the action must be a JSON object")
        name = data.get("action")
        fields = {k: v for k, v in data.items() if k not in _IGNORED_FIELDS}
        if name is None and isinstance(data.get("type"), str):
            name = fields.pop("type")  # {"type": "click", "x": ...} as some models write it
        if not isinstance(name, str):
            raise ActionParseError('the JSON object needs an "action" field naming the action')
        if name.lower() == "finish" and "reason" not in fields and isinstance(data.get("rationale"), str):
            fields["reason"] = data["rationale"]
        return self._build(name, (), fields)

    # -- locating the action in free text --------------------------------
    @staticmethod
    def _find_call(text: str) -> tuple[str, tuple[Any, ...], dict[str, Any]] | None:
        match = _CALL_RE.search(text)
        if match is None:
            return None
        name = match.group(1).lower()
        open_at = match.end() - 1
        close_at = _matching_paren(text, open_at)
        if close_at is None:
            raise ActionParseError(f"the call to {name}( is not closed with ')'")
        source = "f" + text[open_at : close_at + 1]
        try:
            node = pysyntax.parse(source, mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            raise ActionParseError(f"the arguments of {name}(...) are not valid literals") from exc
        if not isinstance(node, ast.Call):
            raise ActionParseError(f"the arguments of {name}(...) are not valid literals")
        try:
            args = tuple(_literal(a) for a in node.args)
            kwargs = {kw.arg: _literal(kw.value) for kw in node.keywords if kw.arg is not None}
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as exc:
            raise ActionParseError(f"the arguments of {name}(...) must be plain numbers or strings") from exc
        if any(kw.arg is None for kw in node.keywords):
            raise ActionParseError("**kwargs are not allowed in an action")
        return name, args, kwargs

    # -- validation -------------------------------------------------------
    def _build(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Action:
        key = _ALIASES.get(name.lower(), name.lower())
        if key not in ACTION_TYPES:
            raise ActionParseError(f"unknown action {name!r}; use one of: {', '.join(ACTION_TYPES)}")
        if key == "hotkey":
            keys = list(args) + list(kwargs.pop("keys", []) if isinstance(kwargs.get("keys"), list) else [])
            if "keys" in kwargs:
                raise ActionParseError("hotkey keys must be a list of key names")
            if kwargs:
                raise ActionParseError(f"hotkey takes only key names, not {sorted(kwargs)}")
            if not keys:
                raise ActionParseError("hotkey needs at least one key")
            return Hotkey(tuple(_key(k) for k in keys))
        params = _PARAMS[key]
        if len(args) > len(params):
            raise ActionParseError(f"{key} takes at most {len(params)} arguments")
        values: dict[str, Any] = dict(zip(params, args))
        for k, v in kwargs.items():
            if k not in params:
                raise ActionParseError(f"{key} has no argument {k!r}; it takes {', '.join(params)}")
            if k in values:
                raise ActionParseError(f"{key} got {k!r} twice")
            values[k] = v
        return _VALIDATORS[key](values)


def find_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object embedded in free text (prose, code fences), or None."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            obj, _ = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            obj = None
        if isinstance(obj, dict):
            return obj
        start = text.find("{", start + 1)
    return None


def _matching_paren(text: str, open_at: int) -> int | None:
    depth = 0
    quote: str | None = None
    escaped = False
    for i in range(open_at, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(e) for e in node.elts]
    raise ValueError("not a plain literal")


def _int(values: dict[str, Any], name: str, action: str) -> int:
    if name not in values:
        raise ActionParseError(f"{action} needs {name}")
    v = values[name]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ActionParseError(f"{action}: {name} must be a number, got {v!r}"[:200])
    if v != v or v in (float("inf"), float("-inf")) or abs(v) > 100_000:
        raise ActionParseError(f"{action}: {name} is out of range")
    return int(round(v))


def _text(values: dict[str, Any], name: str, action: str, *, limit: int, default: str | None = None) -> str:
    v = values.get(name, default)
    if v is None:
        raise ActionParseError(f"{action} needs {name}")
    if not isinstance(v, str):
        raise ActionParseError(f"{action}: {name} must be a string")
    if len(v) > limit:
        raise ActionParseError(f"{action}: {name} is longer than {limit} characters")
    return v


def _key(v: object) -> str:
    if not isinstance(v, str) or not _KEY_RE.match(v):
        raise ActionParseError(f"{str(v)[:40]!r} is not a key name (use names like 'enter', 'space', 'a', 'ctrl')")
    return v.lower() if len(v) > 1 else v


def _xy(action: str) -> Any:
    def build(values: dict[str, Any]) -> Action:
        cls = ACTION_TYPES[action]
        return cls(_int(values, "x", action), _int(values, "y", action))  # type: ignore[no-any-return]

    return build


def _drag(values: dict[str, Any]) -> Action:
    return Drag(*(_int(values, n, "drag") for n in ("x", "y", "x2", "y2")))


def _type(values: dict[str, Any]) -> Action:
    return Type(_text(values, "text", "type", limit=MAX_TYPE_CHARS))


def _press(values: dict[str, Any]) -> Action:
    if "key" not in values:
        raise ActionParseError("press needs key")
    return Press(_key(values["key"]))


def _tap(values: dict[str, Any]) -> Action:
    if "key" not in values:
        raise ActionParseError("tap needs key")
    times = _int({"times": values.get("times", 3)}, "times", "tap")
    if not 1 <= times <= MAX_TAPS:
        raise ActionParseError(f"tap: times must be between 1 and {MAX_TAPS}")
    return Tap(_key(values["key"]), times)


def _scroll(values: dict[str, Any]) -> Action:
    direction = _text(values, "direction", "scroll", limit=8, default="down").lower()
    if direction not in SCROLL_DIRECTIONS:
        raise ActionParseError(f"scroll: direction must be one of {', '.join(SCROLL_DIRECTIONS)}")
    amount = _int({"amount": values.get("amount", 1)}, "amount", "scroll")
    if not 1 <= amount <= MAX_SCROLL_AMOUNT:
        raise ActionParseError(f"scroll: amount must be between 1 and {MAX_SCROLL_AMOUNT}")
    return Scroll(_int(values, "x", "scroll"), _int(values, "y", "scroll"), direction, amount)


def _wait(values: dict[str, Any]) -> Action:
    v = values.get("seconds")
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
        raise ActionParseError("wait needs seconds as a number")
    if not 0 <= v <= MAX_WAIT_SECONDS:
        raise ActionParseError(f"wait: seconds must be between 0 and {MAX_WAIT_SECONDS:g}")
    return Wait(float(v))


def _finish(values: dict[str, Any]) -> Action:
    verdict = _text(values, "verdict", "finish", limit=16).lower()
    aliases = {"success": "pass", "passed": "pass", "failure": "fail", "failed": "fail", "unsure": "uncertain"}
    verdict = aliases.get(verdict, verdict)
    if verdict not in VERDICTS:
        raise ActionParseError(f"finish: verdict must be one of {', '.join(VERDICTS)}")
    return Finish(verdict, _text(values, "reason", "finish", limit=2000, default=""))


_VALIDATORS: dict[str, Any] = {
    "click": _xy("click"),
    "double_click": _xy("double_click"),
    "right_click": _xy("right_click"),
    "drag": _drag,
    "type": _type,
    "press": _press,
    "tap": _tap,
    "scroll": _scroll,
    "wait": _wait,
    "finish": _finish,
}


@dataclass
class ActionHistory:
    """The executed actions of a run, in order, with their outcome."""

    entries: list[tuple[Action, str]] = field(default_factory=list)

    def add(self, action: Action, outcome: str) -> None:
        self.entries.append((action, outcome))

    def last(self, n: int) -> list[tuple[Action, str]]:
        return self.entries[-n:]

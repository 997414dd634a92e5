"""Widget texts seen from inside, compared exactly: what pictures miss (a minus sign, an Entry behind a caret).

Differential play asks each program (candidate, both reference runs) for its
widgets (:meth:`app.engine.play.inside.Inside.widgets`, Tk and Qt) and
compares their text, enabled and visible state.  Widgets are matched by what
the toolkits say of them and their order: a widget's key is its kind, class
and menu path and its rank among the widgets with the same three, the visible
ones ranked top to bottom, left to right, the hidden ones after them in the
order of their texts (Qt lists its widgets in no fixed order).
"""

from __future__ import annotations

from typing import Any

from app.engine.play.inside import Box, InsideWidget

Key = tuple[str, str, tuple[str, ...], int]
State = tuple[str, bool, bool]
"""A widget's text, enabled, visible."""
Shown = dict[Key, tuple[State, Box | None]]


def shown(widgets: list[InsideWidget]) -> Shown:
    """Each widget under its key, with its (text, enabled, visible) and its box."""
    groups: dict[tuple[str, str, tuple[str, ...]], list[InsideWidget]] = {}
    for w in widgets:
        groups.setdefault((w.kind, w.cls, w.menu_path), []).append(w)
    out: Shown = {}
    for (kind, cls, path), group in groups.items():
        placed = sorted((w for w in group if w.box is not None),
                        key=lambda w: (w.box[1], w.box[0]) if w.box is not None else (0, 0))
        hidden = sorted((w for w in group if w.box is None), key=lambda w: (w.text, w.enabled, w.visible))
        for rank, w in enumerate(placed + hidden):
            out[(kind, cls, path, rank)] = ((w.text, w.enabled, w.visible), w.box)
    return out


def differing(a: Shown, b: Shown) -> set[Key]:
    """Keys whose state differs, or that only one side has."""
    return {k for k in a.keys() | b.keys() if (a[k][0] if k in a else None) != (b[k][0] if k in b else None)}


def name(key: Key) -> str:
    kind, cls, path, rank = key
    where = f" in menu {' > '.join(path)}" if path else ""
    return f"{cls or kind} #{rank + 1} ({kind}){where}"


def describe(key: Key, candidate: Shown, reference: Shown) -> tuple[str, dict[str, Any]]:
    """The finding's sentence and evidence for one differing widget."""
    c, r = candidate.get(key), reference.get(key)
    evidence: dict[str, Any] = {"widget": name(key), "candidate": _state(c), "reference": _state(r)}
    if c is None or r is None:
        has, lacks = ("the candidate", "the reference") if r is None else ("the reference", "the candidate")
        text = (c or r)[0][0]  # type: ignore[index]
        return (f"widget {name(key)} {text!r} is shown by {has} only, not by {lacks}, after the same inputs "
                "(seen from inside)", evidence)
    (ct, ce, cv), (rt, re_, rv) = c[0], r[0]
    if ct != rt:
        what = f"shows {ct!r} where the reference shows {rt!r}"
    elif ce != re_:
        what = f"is {'enabled' if ce else 'disabled'} where the reference's is {'enabled' if re_ else 'disabled'}"
    else:
        what = f"is {'visible' if cv else 'hidden'} where the reference's is {'visible' if rv else 'hidden'}"
    return f"widget {name(key)} {what} after the same inputs (seen from inside)", evidence


def _state(entry: tuple[State, Box | None] | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    (text, enabled, visible), box = entry
    return {"text": text, "enabled": enabled, "visible": visible, "box": list(box) if box else None}

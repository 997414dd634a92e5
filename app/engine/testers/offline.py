"""The offline explorer: the embedded default tester, no network, no model.

It explores by state coverage: every distinct screen (perceptual hash) keeps a
count of the actions tried there, and the explorer takes the least-tried
action — the target's hinted keys (and combos such as ctrl+s) first, then clicks
on widgets.  It judges only what the generic oracles see (crash, exception,
freeze, no response, blank render); it cannot judge game logic and says so in
its verdict.

Widgets come from the X window tree when the toolkit has native child windows
(Tk, Motif, Xt: exact rectangles, also for buttons that share the window's grey)
and from the image otherwise (SDL/pygame, Qt).  When a typed character goes
nowhere while text fields are in sight, it clicks into one (an entry first)
before the next keys, so they reach a focused widget; key runs are capped and
the least-tried widgets come in between, so typing that makes every screen new
cannot starve the buttons.  A dialog of the target (another top-level window)
is explored for a few steps, then escaped: Escape, its own controls, then the
window manager's close (WM_DELETE_WINDOW); the action that opened it is backed
off from, and when stuck on few screens the explorer prefers actions that led
to less-visited screens.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from dataclasses import dataclass

import imagehash
import numpy as np
from scipy import ndimage

from app.engine.play.actions import Action, Click, Hotkey, Press, Tap, Type, Wait, action_to_call
from app.engine.play.observer import Frame, Observation
from app.engine.play.targetspec import hinted_action
from app.engine.play.xwidgets import TopLevel, Widget
from app.engine.judge.oracles import Finding
from app.engine.judge.verdict import Evidence, decide
from app.engine.testers.base import Decision, TesterBase, TesterContext, Verdict

GLYPH_BG_SHARE = 0.2
"""A detected blob whose box is at least this much window background is a glyph, not a button
(title letters: 0.3-0.65; filled buttons: under 0.05)."""
BUTTON_MIN_W = 24
BUTTON_MIN_H = 16
"""A detected widget at least this big is taken for a control (a button), smaller for a glyph."""
MAX_WIDGETS = 24
MIN_WIDGET_PX = 6
BACKGROUND_TOLERANCE = 24
DOWNSAMPLE = 2
MAX_KEY_RUN = 3
"""In an app, once every hinted key has been pressed, at most this many key actions in a row while
something can be clicked: typing that makes every screen new must not starve the buttons (New,
Save, menus).  Games keep pressing their keys: that is how they are played."""
RESET_AFTER_UNCHANGED = 3
"""After this many inputs in a row that changed nothing (each having answered before), a known reset
(restart key, Home) is tried first."""
SAMPLE_WORD = "abc"
"""What the explorer types as a person would: into a text field in sight, or onto a screen that
answered nothing lately (a game's name form waits for letters, not for its play keys)."""
TYPE_AFTER_UNCHANGED = 3
"""Inputs in a row that changed nothing before the sample word is offered on a screen without text fields."""
BURST_TAPS = 6
"""Taps of a game's first hinted key in one step (about a second of play; see Tap)."""
DEAD_CLICKS = 5
MAX_PLACES = 256
TWICE_DEAD = 3
"""Second clicks (the same click again, at once) that changed nothing, while none ever did: the program
ignores a repeated click, and no more are spent on it (each costs a step a board game needs for its moves)."""
"""Clicks that never changed anything over this many tries, while keys did, are no longer tried."""
DIALOG_PATIENCE = 3
"""Steps spent exploring a newly opened dialog (its own controls) before escaping it."""
DIALOG_CLICKS = 2
"""After Escape, clicks on a dialog's own controls before asking it to close as a window manager would."""
CLOSE_WAIT_S = 0.2
TRAP_WEIGHT = 3
"""An action that opened a dialog the explorer had to escape counts as tried this many times more."""
STUCK_STEPS = 10
STUCK_SCREENS = 2
"""This many steps over at most this many screens, none of them new: stuck; back off to the actions
that led to less-visited screens."""
FIELD_LUMINANCE = 228
FIELD_SHARE = 0.6
FIELD_MIN = (30, 12)
"""A text field (entry, list, editor) looks like a bright, mostly uniform box at least this large."""
SURFACE_SHARE = 0.25
"""An X widget this large (share of the window) that is no text field is a drawing surface (a
canvas): the image detector looks inside it as well, as inside a menubar (a bar across the top
drawn in one window) and inside dialogs and popups without child windows (a posted menu)."""
LIST_MIN_H = 60
"""A text field at least this tall holds several lines (a list, an editor): each line is clicked on its own."""
BAR_RATIO = 4
JOIN_PX = 6
BORDER_PX = 3
SAME_AGAIN = "the same click again"
TEXT_CLASSES = ("entry", "text", "tentry", "spinbox", "tspinbox", "combobox", "tcombobox", "xmtext",
                "xmtextfield", "edit")
Box = tuple[int, int, int, int]


BORDER_SHARE = 0.5
"""The colour of at least this share of a window's edge is its background, however much of its middle is
covered (a board of turned cards, lighter than the window, covers more than half of it)."""


def _dominant(pixels: np.ndarray) -> tuple[int, float]:
    flat = (pixels // 16).reshape(-1, 3)
    counts = np.bincount(flat[:, 0] * 256 + flat[:, 1] * 16 + flat[:, 2])
    top = int(counts.argmax())
    return top, float(counts[top]) / max(1, len(flat))


def _background(arr: np.ndarray) -> np.ndarray:
    """The window's background colour (quantised to 16 levels a channel, the bin's middle): the one most of
    its edge shows, else the dominant one."""
    edge = np.concatenate([arr[0], arr[-1], arr[:, 0], arr[:, -1]])
    dominant, share = _dominant(edge)
    if share < BORDER_SHARE:
        dominant, _ = _dominant(arr)
    return np.array([dominant // 256, (dominant // 16) % 16, dominant % 16]) * 16 + 8


def frame_background(frame: Frame) -> np.ndarray:
    return _background(frame.array()[::DOWNSAMPLE, ::DOWNSAMPLE, :3].astype(np.int16))


def detect_widgets(frame: Frame, join_px: int = 0) -> list[Box]:
    """Boxes (x0, y0, x1, y1) of regions that stand out from the dominant colour.

    Cheap and toolkit-agnostic: quantise, take the most common colour as the
    background, label connected foreground blobs and keep plausible sizes.
    ``join_px``: blobs this close side by side are one (the letters of a word).
    """
    arr = frame.array()[::DOWNSAMPLE, ::DOWNSAMPLE, :3].astype(np.int16)
    mask = np.abs(arr - _background(arr)).max(axis=2) > BACKGROUND_TOLERANCE
    if join_px > 0:
        mask = ndimage.binary_dilation(mask, structure=np.ones((1, 2 * (join_px // DOWNSAMPLE) + 1), dtype=bool))
    labels, count = ndimage.label(mask)
    boxes = []
    h, w = mask.shape
    for sl in ndimage.find_objects(labels):
        if sl is None:
            continue
        ys, xs = sl
        bw, bh = xs.stop - xs.start, ys.stop - ys.start
        if bw * DOWNSAMPLE < MIN_WIDGET_PX or bh * DOWNSAMPLE < MIN_WIDGET_PX:
            continue
        if bw * bh > 0.6 * w * h:
            continue
        boxes.append((xs.start * DOWNSAMPLE, ys.start * DOWNSAMPLE, xs.stop * DOWNSAMPLE, ys.stop * DOWNSAMPLE))
    # The largest first when there are too many: the letters of a long title or hint line must not push
    # the cards and buttons below them out of sight.
    boxes = sorted(boxes, key=lambda b: -(b[2] - b[0]) * (b[3] - b[1]))[:MAX_WIDGETS]
    boxes.sort(key=lambda b: (b[1], b[0]))
    return boxes


def glyph_like(frame: Frame, box: Box, bg: np.ndarray | None = None) -> bool:
    """Whether a detected blob is drawn straight onto the window's background (a letter of a title,
    a line of text) rather than filled (a button, a card, a tile): much of its box is background.
    ``bg``: the frame's :func:`frame_background`, when the caller tests several boxes of one frame."""
    bg = frame_background(frame) if bg is None else bg
    x0, y0, x1, y1 = box
    inside = frame.array()[y0:y1, x0:x1, :3].astype(np.int16)
    return inside.size > 0 and float((np.abs(inside - bg).max(axis=2) <= BACKGROUND_TOLERANCE).mean()) >= GLYPH_BG_SHARE


def crop(frame: Frame, box: Box) -> Frame:
    """The part of ``frame`` inside ``box`` (clipped to the frame)."""
    x0, y0 = max(0, box[0]), max(0, box[1])
    x1, y1 = min(frame.width, box[2]), min(frame.height, box[3])
    part = np.ascontiguousarray(frame.array()[y0:max(y0, y1), x0:max(x0, x1)])
    return Frame(max(0, x1 - x0), max(0, y1 - y0), part.tobytes(), frame.t)


def parts_of(frame: Frame, widget: Widget, least: int = 2) -> list[Widget]:
    """Controls drawn inside one window (a menubar's menus, a canvas's shapes, a menu's items,
    a list's rows).

    The region is detected on its own, against its own background; fewer than ``least``
    blobs (by default: one only, the widget's own label) are not parts of it and give nothing.
    """
    inset = (widget.x0 + BORDER_PX, widget.y0 + BORDER_PX, widget.x1 - BORDER_PX, widget.y1 - BORDER_PX)
    region = crop(frame, inset)  # without the border, whose relief lines would join everything inside
    if region.width < 2 * MIN_WIDGET_PX or region.height < 2 * MIN_WIDGET_PX:
        return []
    boxes = detect_widgets(region, join_px=JOIN_PX)
    if len(boxes) < least:
        return []
    x, y = max(0, inset[0]), max(0, inset[1])
    return [Widget(x + b[0], y + b[1], x + b[2], y + b[3], top=widget.top, source="image") for b in boxes]


def _colour_keys(arr: np.ndarray) -> np.ndarray:
    q = arr[..., :3].astype(np.int32) // 16
    return np.asarray(q[..., 0] * 256 + q[..., 1] * 16 + q[..., 2])


def _bright(key: int) -> bool:
    b, g, r = (key // 256) * 16 + 8, ((key // 16) % 16) * 16 + 8, (key % 16) * 16 + 8  # frames are BGRX
    return 0.299 * r + 0.587 * g + 0.114 * b >= FIELD_LUMINANCE


def detect_fields(frame: Frame) -> list[Box]:
    """Boxes of bright, nearly uniform rectangles: text entries, lists and editors in an image.

    For windows that draw their widgets themselves: the light colours among the most common
    ones are labelled into connected regions, and solid, field-sized ones are kept.
    """
    keys = _colour_keys(frame.array()[::DOWNSAMPLE, ::DOWNSAMPLE])
    h, w = keys.shape
    counts = np.bincount(keys.ravel())
    min_w, min_h = FIELD_MIN[0] // DOWNSAMPLE, FIELD_MIN[1] // DOWNSAMPLE
    boxes: list[Box] = []
    for key in np.argsort(counts)[::-1][:4]:
        if counts[key] < min_w * min_h:
            break
        if not _bright(int(key)):
            continue
        labels, _ = ndimage.label(keys == key)
        for i, sl in enumerate(ndimage.find_objects(labels), 1):
            if sl is None:
                continue
            ys, xs = sl
            bw, bh = xs.stop - xs.start, ys.stop - ys.start
            if bw < min_w or bh < min_h or bw * bh > 0.7 * w * h:
                continue
            if (labels[sl] == i).sum() < 0.7 * bw * bh:
                continue
            boxes.append((xs.start * DOWNSAMPLE, ys.start * DOWNSAMPLE, xs.stop * DOWNSAMPLE, ys.stop * DOWNSAMPLE))
    boxes.sort(key=lambda b: (b[1], b[0]))
    return boxes[:MAX_WIDGETS]


def looks_like_field(frame: Frame, widget: Widget, by_look: bool = True) -> bool:
    """A text entry, list or editor: named so by its class, or (``by_look``) a bright, mostly uniform
    box of field size.  Games pass ``by_look=False``: their bright boxes are cells and cards."""
    if widget.cls.lower() in TEXT_CLASSES or widget.cls == "field":
        return True
    if not by_look:
        return False
    w, h = widget.width, widget.height
    if w < FIELD_MIN[0] or h < FIELD_MIN[1] or not (w >= 2.5 * h or w * h >= 0.05 * frame.width * frame.height):
        return False
    crop = frame.array()[max(0, widget.y0 + 2):max(0, widget.y1 - 2):2, max(0, widget.x0 + 2):max(0, widget.x1 - 2):2]
    if crop.size == 0:
        return False
    counts = np.bincount(_colour_keys(crop).ravel())
    top = int(counts.argmax())
    return bool(counts[top] >= FIELD_SHARE * crop.shape[0] * crop.shape[1] and _bright(top))


def state_hash(frame: Frame) -> str:
    return str(imagehash.phash(frame.image(), hash_size=8))


def _rect(w: Widget) -> Box:
    return (w.x0, w.y0, w.x1, w.y1)


def _is_key(action: Action) -> bool:
    return isinstance(action, (Press, Hotkey, Tap, Type))


def _is_typing(action: Action) -> bool:
    """A key that types a character (or a word): it needs a text widget with the keyboard focus."""
    if isinstance(action, Type):
        return True
    return isinstance(action, Press) and (action.key == "space" or (len(action.key) == 1 and action.key.isprintable()))


def _overlap(a: Box, b: Box) -> int:
    return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))


@dataclass
class _View:
    """What the explorer sees at one step: widgets, text fields and the target's other windows."""

    widgets: list[Widget]
    fields: list[Widget]
    clicks: dict[Action, Widget]
    others: list[TopLevel]
    glyphs: frozenset[Action] = frozenset()
    """Clicks on image-detected blobs drawn straight onto the background (letters, not buttons)."""
    """The target's other top-level windows (dialogs, popups), bottom to top."""

    @property
    def dialog(self) -> TopLevel | None:
        """The topmost of them: the one a person would deal with first."""
        return self.others[-1] if self.others else None


@dataclass
class _DialogState:
    since: int
    opener: Action | None = None
    escaped: bool = False
    clicks: int = 0
    close_sent: bool = False


class OfflineExplorer(TesterBase):
    name = "offline"

    def __init__(self, click_widgets: bool = True, second_clicks: bool = False) -> None:
        self.click_widgets = click_widgets
        self.second_clicks = second_clicks
        """Click once more, at once, where a click answered (each place once): a toggle, a card turned
        twice, a form sent twice.  Differential play asks for it: a second click is where the reference
        and the candidate part (a card matched with itself), and exploring more costs it no false alarm."""
        self.again: Click | None = None
        self.clicked_twice: set[Click] = set()
        self.twice_places: list[Widget] = []
        """Widgets already clicked twice: an image-detected card or tile is found at a slightly different
        centre after each change of its face, and is still the same place."""
        self.twice_answered = 0
        self.twice_dead = 0
        self._second: Click | None = None
        self.ctx: TesterContext | None = None
        self.tried: dict[str, dict[Action, int]] = defaultdict(lambda: defaultdict(int))
        self.states: set[str] = set()
        """Distinct screens seen (unmasked hashes)."""
        self.keys: list[Action] = []
        self.burst: Tap | None = None
        """A game's first hinted key tapped several times in a row, offered while the screen moves."""
        self.unchanged_run = 0
        self.silent_run = 0
        """Steps in a row whose input changed nothing though it had changed the screen before."""
        """Steps in a row whose input changed nothing."""
        self.global_tries: dict[Action, int] = defaultdict(int)
        self.responses: dict[Action, int] = defaultdict(int)
        self.visits: dict[str, int] = defaultdict(int)
        self.results: dict[tuple[str, Action], str] = {}
        self.typing: set[Box] = set()
        """Text fields where keys changed the screen: the first to click into when keys go nowhere.
        (They stay part of the state: what a calculator's display shows matters for what comes next.)"""
        self.focused: Box | None = None
        """The text field last clicked into (it should have the keyboard focus)."""
        self.need_focus = False
        """A typed character went nowhere while text fields are in sight: click into one before the next."""
        self.focus_failed: dict[Box, int] = defaultdict(int)
        self.pending_key: Action | None = None
        self.key_run = 0
        self.recent: deque[str] = deque(maxlen=STUCK_STEPS)
        self.steps_since_new = 0
        self.dialogs: dict[int, _DialogState] = {}
        self.traps: dict[Action, int] = defaultdict(int)
        """Actions that opened a dialog which had to be escaped: backed off from."""
        self._last: tuple[str, Action] | None = None
        self._view: _View | None = None
        self._escaping = False
        self.first_state: str | None = None
        """The program's first screen: a key that leads back to it from elsewhere is a reset (New game, Restart)."""
        self.answered: set[Action] = set()
        """Keys that changed the screen since the program was last on its first screen: in a game they come
        after the others (a board's square taken once answers no more; the untaken ones finish the game)."""
        self.places: list[Click] = []
        """Clicks played on image-detected widgets: a card or tile whose face changed is detected with another
        centre, and is clicked where it was before (its tries and answers stay its own)."""

    def begin(self, ctx: TesterContext, first: Observation) -> None:
        self.ctx = ctx
        self.keys = [hinted_action(k) for k in ctx.spec.keys]
        lead = next((k for k in self.keys if isinstance(k, Press)), None)
        self.burst = Tap(lead.key, BURST_TAPS) if lead is not None and ctx.spec.kind == "game" else None
        self.first_state = state_hash(first.frame)
        self.states.add(self.first_state)
        if int(np.ptp(first.frame.array()[::8, ::8, :3])) == 0:
            self.first_state = None  # a window not drawn yet: its first screen is not known

    # -- seeing ----------------------------------------------------------------------
    def _look(self, frame: Frame) -> _View:
        assert self.ctx is not None
        xw = self.ctx.widgets() if self.ctx.widgets is not None else []
        tops = self.ctx.windows.toplevels() if self.ctx.windows is not None else []
        main = next((t for t in tops if t.kind == "main"), None)
        others = [t for t in tops if t.kind != "main"]
        area = frame.width * frame.height
        regions: list[Widget] = []  # dialogs and popups without child windows (a posted menu, a Qt dialog)
        mx, my = (main.x, main.y) if main is not None else (0, 0)
        for t in others if main is not None else []:
            if not any(w.top == t.id for w in xw):
                x0, y0 = t.x - mx, t.y - my
                region = Widget(max(0, x0), max(0, y0), min(frame.width, x0 + t.width),
                                min(frame.height, y0 + t.height), top=t.id, source="window")
                if region.width > 0 and region.height > 0:
                    regions.append(region)
        if xw:
            fields = [w for w in xw if looks_like_field(frame, w, by_look=self.ctx.spec.kind == "app")]
            widgets = []
            for w in xw:
                surface = w.area >= SURFACE_SHARE * area
                menubar = w.y0 <= 2 and w.width >= 0.8 * frame.width and w.width >= BAR_RATIO * w.height
                if w in fields:
                    # A list or editor several lines tall: its lines are targets of their own.  A
                    # click on the middle of a list selects nothing, and keys such as Delete or
                    # Ctrl+D act on a selected row only.
                    parts = parts_of(frame, w, least=1) if w.height >= LIST_MIN_H else []
                    widgets.append(w)
                else:
                    parts = parts_of(frame, w) if surface or menubar else []
                    if surface or not parts:  # a canvas's own surface may matter; a menubar's empty middle does not
                        widgets.append(w)
                widgets += parts
        else:
            widgets = [Widget(*b, source="image") for b in detect_widgets(frame)]
            # Text fields seen only in an image are looked for in apps; in a game the bright
            # rectangles are tiles and cards, and its one window has the keyboard anyway.
            if self.ctx.spec.kind == "app":
                widgets += [Widget(*b, cls="field", source="image") for b in detect_fields(frame)]
            fields = [w for w in widgets if w.cls == "field"]
        if regions:  # what lies under a region is covered by it; the region's own parts take its place
            widgets = [w for w in widgets if not any(r.contains(*w.center) for r in regions)]
            fields = [f for f in fields if f in widgets]
            for region in regions:
                widgets += parts_of(frame, region) or [region]
        clicks: dict[Action, Widget] = {}
        for w in widgets:
            clicks.setdefault(self._place(w, area), w)
        detected = {a: w for a, w in clicks.items() if w.source == "image" and w.cls != "field"}
        bg = frame_background(frame) if detected else None  # once a frame, not once a blob
        glyphs = frozenset(a for a, w in detected.items() if glyph_like(frame, _rect(w), bg))
        return _View(widgets, fields, clicks, others, glyphs)

    def _place(self, w: Widget, area: int) -> Click:
        """Where to click a widget: an image-detected one (not a whole surface) where it was clicked before."""
        if w.source == "image" and w.area < SURFACE_SHARE * area:
            inside = [p for p in self.places if w.contains(p.x, p.y)]
            if inside:
                cx, cy = w.center
                return min(inside, key=lambda p: abs(p.x - cx) + abs(p.y - cy))
        return Click(*w.center)

    def _state(self, frame: Frame, view: _View) -> str:
        state = state_hash(frame)
        if view.dialog is not None:  # a dialog placed outside the captured region still changes the state
            state += f"+{view.dialog.kind}:{view.dialog.title}:{view.dialog.width}x{view.dialog.height}"
        return state

    def _stuck(self) -> bool:
        return (len(self.recent) == STUCK_STEPS and len(set(self.recent)) <= STUCK_SCREENS
                and self.steps_since_new >= STUCK_STEPS)

    # -- deciding ----------------------------------------------------------------------
    def decide(self, step: int, obs: Observation) -> Decision:
        assert self.ctx is not None, "begin() first"
        view = self._view = self._look(obs.frame)
        state = self._state(obs.frame, view)
        if self._last is not None:
            self.results[self._last] = state
        self.visits[state] += 1
        self._track_dialogs(step, view)
        escape = self._escape(step, view)
        self._escaping = escape is not None
        again, self.again = self.again, None
        if escape is None and again is not None:
            self.clicked_twice.add(again)
            self._second = again
            escape = Decision(again, SAME_AGAIN + ", at once: what answered once is clicked twice "
                                                  "(a toggle, a card turned twice, a form sent twice)")
        decision = escape or self._choose(state, view, moving=not obs.settled)
        self._last = (state, decision.action)
        self.tried[state][decision.action] += 1
        self.global_tries[decision.action] += 1
        return decision

    def forget_last(self) -> None:
        """Another chose the step just played (a scripted step): its result is not this explorer's."""
        self._last = None

    def _track_dialogs(self, step: int, view: _View) -> None:
        open_ids = {t.id for t in view.others}
        for gone in set(self.dialogs) - open_ids:
            del self.dialogs[gone]
            self.focused = None  # the keyboard focus went back to the main window
        if view.dialog is not None and view.dialog.id not in self.dialogs:
            self.dialogs[view.dialog.id] = _DialogState(step, self._last[1] if self._last is not None else None)
            self.focused = None
            self.pending_key = None

    def _escape(self, step: int, view: _View) -> Decision | None:
        """Leave a dialog or popup that stays open: Escape, its own controls, then a window manager's close."""
        d = view.dialog
        if d is None:
            return None
        ds = self.dialogs[d.id]
        age = step - ds.since
        reach = [w for w in view.widgets if w.top == d.id]
        what = f"{d.kind} {d.title!r}" if d.title else f"{d.kind} window 0x{d.id:x}"
        if age < DIALOG_PATIENCE and reach and not self._stuck():
            return None  # explore it first: _choose keeps to its controls
        if not ds.escaped:
            ds.escaped = True
            self.pending_key = None
            if ds.opener is not None:
                self.traps[ds.opener] += 1
            return Decision(Press("escape"), f"escape modal: the {what} has been open for {age} steps; "
                                             "Escape first (keys go to the dialog)")
        if ds.clicks < DIALOG_CLICKS and reach:
            buttons = [w for w in reach if w not in view.fields] or reach
            target = min(buttons, key=lambda w: (self.global_tries[Click(*w.center)], w.y0, w.x0))
            ds.clicks += 1
            return Decision(Click(*target.center),
                            f"escape modal: Escape left the {what} open; click one of its own controls "
                            f"({ds.clicks}/{DIALOG_CLICKS}: OK, Cancel or Close are usually there)")
        if not ds.close_sent and d.kind == "dialog" and self.ctx is not None and self.ctx.windows is not None:
            ds.close_sent = True
            if self.ctx.windows.close(d.id):
                return Decision(Wait(CLOSE_WAIT_S),
                                f"escape modal: the {what} is still open; the explorer asked it to close the way "
                                "a window manager's close button does (WM_DELETE_WINDOW) and waits for it")
        return None  # back off: _choose prefers actions that led to less-visited screens

    def _choose(self, state: str, view: _View, moving: bool = False) -> Decision:
        assert self.ctx is not None
        clicks: list[Action] = list(view.clicks) if self.click_widgets or not self.keys else []
        fields = view.fields
        keys: list[Action] = list(self.keys)
        if moving and self.burst is not None:
            # A real-time game is played by tapping: one key press a step keeps no bird in the air
            # and never reaches the top of the screen, where a game's own ceiling code runs.
            keys.append(self.burst)
        word = Type(SAMPLE_WORD)
        typed_in = fields and self.ctx.spec.kind == "app" and not self.responses[word] and self.global_tries[word] < 3
        if typed_in or (not moving and self.unchanged_run >= TYPE_AFTER_UNCHANGED and self._words_read(fields)):
            # People type words: a to-do list gets a task to tick, a name form its name.  Hinted keys
            # alone never add content (Enter on an empty entry adds nothing).  Once a word has landed
            # (or went nowhere three times: a calculator's read-only display) it is offered again
            # only where nothing else answers.
            keys.append(word)
        d = view.dialog
        if d is not None and not self.dialogs[d.id].escaped:  # explore the new dialog's own controls first
            in_dialog = [a for a in clicks if view.clicks[a].top == d.id]
            clicks = in_dialog or clicks
            fields = [f for f in fields if f.top == d.id]
            if d.kind == "popup" and in_dialog:
                keys = []  # a posted menu: choose an item
        if clicks and keys and d is None and self._clicks_dead():
            clicks = []  # a game played by keys only: its title's letters are no buttons
        if not clicks and not keys:
            w, h = self.ctx.window_size
            clicks = [Click(w * i // 4, h * j // 4) for i in (1, 2, 3) for j in (1, 2, 3)]
        pool: list[Action] = keys + clicks
        balance = ""
        if clicks and self.key_run >= MAX_KEY_RUN and self._balance_keys():
            # (the sample word takes its turn with the clicks: it fills a form, as a click does)
            pool, balance = [word] * (word in keys) + clicks, f"; a click after {self.key_run} keys in a row"
        stuck = self._stuck()
        if self.pending_key is not None and self.pending_key in pool:
            action, least, kind = self.pending_key, self._count(state, self.pending_key), "hinted key after the focus click"
        else:
            action, least = self._pick(state, pool, stuck)
            kind = self._kind(action, view)
        self.pending_key = None
        if _is_typing(action) and fields and self.need_focus:
            field = min(fields, key=lambda f: (
                self.focus_failed[_rect(f)], _rect(f) not in self.typing,
                not (f.width >= 2.5 * f.height and f.height <= 48), self.global_tries[Click(*f.center)], f.y0, f.x0))
            self.pending_key, self.focused, self.need_focus = action, _rect(field), False
            return Decision(Click(*field.center), f"focus: a typed key went nowhere; click into the text field at "
                                                  f"{_rect(field)} before sending {action_to_call(action)}, so the "
                                                  "keys reach a focused widget")
        if isinstance(action, Click) and action in view.clicks and view.clicks[action] in view.fields:
            self.focused = _rect(view.clicks[action])
        mode = "back off (stuck on few screens): prefer actions that led to less-visited screens; " if stuck else ""
        return Decision(action, f"explore: {mode}{kind}, tried {least}× on screen {state[:6]} "
                                f"({len(self.states)} distinct screens so far){balance}")

    def _words_read(self, fields: list[Widget]) -> bool:
        """Whether a typed word may be read where nothing else answers (a subclass that read the program's
        code knows better)."""
        return True

    def _clicks_dead(self) -> bool:
        """Clicks have never changed anything (over :data:`DEAD_CLICKS` tries) while keys have."""
        clicks = [a for a in self.global_tries if isinstance(a, Click)]
        return (sum(self.global_tries[a] for a in clicks) >= DEAD_CLICKS
                and not any(self.responses[a] for a in clicks)
                and any(self.responses[k] for k in self.keys))

    def _balance_keys(self) -> bool:
        """Cap key runs: in apps, after a first pass over the hinted keys (see MAX_KEY_RUN)."""
        assert self.ctx is not None
        return self.ctx.spec.kind == "app" and all(self.global_tries[k] for k in self.keys)

    def _count(self, state: str, action: Action) -> int:
        """Tries of ``action`` on ``state``; one that opened a dialog the explorer had to escape counts more."""
        return self.tried[state][action] + TRAP_WEIGHT * self.traps[action]

    def _pick(self, state: str, pool: list[Action], stuck: bool) -> tuple[Action, int]:
        """The least-tried action (hinted keys first when untried); ties go to actions that responded before,
        were tried less overall and led to less-visited screens.  When stuck, the screen an action led to
        decides first."""
        assert self.ctx is not None
        counts = {a: self._count(state, a) for a in pool}
        least = min(counts.values())
        view_clicks = self._view.clicks if self._view is not None else {}
        glyphs = self._view.glyphs if self._view is not None else frozenset()

        def seen(a: Action) -> int:
            known = self.results.get((state, a))
            return self.visits[known] if known is not None else 0

        loop = set(self.recent) | {state}

        def leaves(a: Action) -> int:
            """0: known to lead to another screen; 1: not tried here; 2: known to stay on this one.
            When stuck, a screen of the loop itself counts as staying: a Quit button whose program
            restarts on the same title screen leads nowhere new, however often it is clicked."""
            known = self.results.get((state, a))
            if known is None:
                return 1
            return 2 if known == state or (stuck and known in loop) else 0

        # A reset waits while the screen answers; when the last few inputs changed nothing (a game's
        # final board that only its restart key leaves), it is what to try first.
        known_resets = self._resets(state)
        waiting = self.silent_run < RESET_AFTER_UNCHANGED
        resets, reset_now = (known_resets, set()) if waiting else (set(), known_resets)
        app = self.ctx.spec.kind == "app"
        if stuck:
            def rank(a: Action) -> tuple[int, ...]:
                # Out of a loop of few screens: first what is known to lead elsewhere, least visited first.
                return (leaves(a), seen(a), counts[a], self.global_tries[a])
        else:
            # What is known to leave this screen unchanged is not tried again while something else
            # may still do something (a title screen: its play keys, then Enter).
            stay = [a for a in pool if self.results.get((state, a)) == state]
            if stay and len(stay) < len(pool):
                pool = [a for a in pool if a not in stay]
                least = min(counts[a] for a in pool)
            pool = [a for a in pool if counts[a] == least]
            keys_first: list[Action] = [a for a in pool if _is_key(a) and not isinstance(a, Type) and a not in resets]
            if keys_first and least == 0 and (self.key_run < MAX_KEY_RUN or not self._balance_keys()):
                pool = keys_first

            def rank(a: Action) -> tuple[int, ...]:
                # Widgets take turns (an '=' that shares the window's grey is reached soon); keys stay
                # a random walk, so sequences such as "operator, then Enter" come up.
                # A reset (an 'R' that always leads back to the same screen) waits until the new screen's
                # other inputs were tried: else two-step play (turn one card, then another) never happens.
                # A click that never did anything anywhere is probably no widget; keys are few and
                # answer on some screens only (P in the game, not on its menu), so they are never 'dead'.
                dead = int(not _is_key(a) and self.global_tries[a] >= 2 and self.responses[a] == 0)
                reset = int(a in resets)
                # In an app, a key that has not answered anywhere yet is tried first on each new screen:
                # one dead key (an Enter that adds nothing) shows only over many screens.
                unanswered = int(not (app and _is_key(a) and not isinstance(a, Type) and self.responses[a] == 0))
                # Button-sized widgets before glyph-sized blobs: a menu's Play button is found before
                # every letter of its high-score table has been clicked.
                widget = view_clicks.get(a)
                small = int(widget is not None and (widget.width < BUTTON_MIN_W or widget.height < BUTTON_MIN_H
                                                    or a in glyphs))
                used = int(not app and _is_key(a) and a in self.answered)
                return (reset - int(a in reset_now), used, unanswered, dead, small,
                        0 if _is_key(a) else self.global_tries[a], seen(a))
        best = min(rank(a) for a in pool)
        action = self.ctx.rng.choice([a for a in pool if rank(a) == best])
        return action, counts[action]

    def _leads_home(self, action: Action, landed_on: str) -> bool:
        """Whether ``action``, which just led to ``landed_on``, is a reset: it led back to the first screen,
        or to this one screen from two screens."""
        landed = {result for (origin, a), result in self.results.items() if a == action and origin != result}
        origins = sum(1 for (origin, a), result in self.results.items() if a == action and origin != result)
        return landed_on == self.first_state or (origins >= 1 and landed == {landed_on})

    def _resets(self, state: str) -> set[Action]:
        """Actions that led to one and the same other screen from at least two screens (a restart key,
        a Home button): they go somewhere known, wherever they are tried."""
        landed: dict[Action, set[str]] = defaultdict(set)
        origins: Counter[Action] = Counter()
        for (origin, action), result in self.results.items():
            if origin != result:
                landed[action].add(result)
                origins[action] += 1
        resets = {a for a, results in landed.items() if origins[a] >= 2 and len(results) == 1 and state not in results}
        if self.first_state is not None and state != self.first_state:
            # A key that led back to the first screen (a game's restart key, New) resets at its first use:
            # pressed on every new screen it would undo every game before its end.
            resets |= {a for (origin, a), result in self.results.items()
                       if _is_key(a) and result == self.first_state and origin != result}
        return resets

    def _kind(self, action: Action, view: _View) -> str:
        if isinstance(action, Hotkey):
            return "hinted hotkey"
        if isinstance(action, Press):
            return "hinted key"
        if isinstance(action, Tap):
            return f"hinted key tapped {action.times}× (a real-time game is played by tapping)"
        if isinstance(action, Type):
            return "a sample word typed (text fields in sight, or nothing else answered lately)"
        widget = view.clicks.get(action)
        if widget is None:
            return "grid point"
        where = f" in the {view.dialog.kind}" if view.dialog is not None and widget.top == view.dialog.id else ""
        name = {"x": "X-tree widget", "window": "window"}.get(widget.source, "detected widget")
        return f"{'text field' if widget in view.fields else name}{where}"

    def observe(self, step: int, before: Frame, decision: Decision, after: Observation, outcome: str) -> None:
        raw = state_hash(after.frame)
        self.steps_since_new = 0 if raw not in self.states else self.steps_since_new + 1
        self.states.add(raw)
        self.recent.append(raw)
        action = decision.action
        changed = after.changed_bbox is not None and outcome == "ok"
        self.responses[action] += int(changed)
        if changed and _is_key(action):
            if self._leads_home(action, raw):
                self.answered.clear()
            else:
                self.answered.add(action)
        self.unchanged_run = 0 if changed else self.unchanged_run + 1
        # An input that never answered anywhere (a title's letter, a card already matched) is no sign that
        # the program stopped answering: only those that answered before count toward trying a reset.
        self.silent_run = 0 if changed else self.silent_run + int(self.responses[action] > 0)
        if self.second_clicks and type(action) is Click:
            self._second_click(decision, action, changed)
        if type(action) is Click and self._view is not None and action not in self.places \
                and len(self.places) < MAX_PLACES:
            widget = self._view.clicks.get(action)
            if widget is not None and widget.source == "image":
                self.places.append(action)
        if isinstance(action, Wait):
            return
        if not _is_key(action):
            self.key_run = 0
            return
        self.key_run += 1
        view, escaping, self._escaping = self._view, self._escaping, False
        if view is None or escaping:
            return
        if changed and after.changed_bbox is not None:
            self.typing.update(_rect(f) for f in view.fields if _overlap(_rect(f), after.changed_bbox) > 0)
        elif _is_typing(action) and view.fields:
            if self.focused is not None:  # the field clicked into did not take it: try another next time
                self.focus_failed[self.focused] += 1
            self.focused, self.need_focus = None, True


    def _second_click(self, decision: Decision, action: Click, changed: bool) -> None:
        """A click that answered is clicked once more at once, once per place; one that was such a second
        click counts toward giving them up (:data:`TWICE_DEAD`)."""
        second, self._second = self._second, None
        if second == action:
            self.twice_answered += int(changed)
            self.twice_dead += int(not changed)
            return
        if not changed or action in self.clicked_twice or (self.twice_dead >= TWICE_DEAD and not self.twice_answered):
            return
        widget = self._view.clicks.get(action) if self._view is not None else None
        frame_area = self.ctx.window_size[0] * self.ctx.window_size[1] if self.ctx is not None else 0
        if widget is not None and widget.area < SURFACE_SHARE * frame_area:
            # a widget's place, not its exact centre (a grid point over a whole surface is its own place)
            if any(w.contains(*widget.center) or widget.contains(*w.center) for w in self.twice_places):
                return
            self.twice_places.append(widget)
        self.again = action

    def verdict(self, findings: list[Finding], steps: int) -> Verdict:
        """The verdict rule over the oracles' findings; this tester judges no criteria by design."""
        criteria = {}
        if self.ctx is not None:
            criteria = {c.id: ("uncertain", "the offline tester does not judge game logic")
                        for c in self.ctx.spec.criteria}
        return decide(Evidence(findings, steps, judges_criteria=False, criteria=criteria,
                               scope=f"over {len(self.states)} distinct screens"))

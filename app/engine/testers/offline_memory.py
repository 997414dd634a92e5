"""What the offline explorer remembers between steps: screens seen (by perceptual hash), actions
tried on each and where they led, text fields that took keys, open dialogs, and what it saw last.

:class:`ExplorerMemory` holds it; the parts of the explorer that act on it (dialog escape, action
ranking, the explorer itself) are built on it.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass

import imagehash

from app.engine.play.actions import Action, Click, Tap
from app.engine.play.observer import Frame
from app.engine.play.xwidgets import TopLevel, Widget
from app.engine.testers.base import TesterBase, TesterContext
from app.engine.testers.offline_widgets import Box

STUCK_STEPS = 10
STUCK_SCREENS = 2
"""This many steps over at most this many screens, none of them new: stuck; back off to the actions
that led to less-visited screens."""


def state_hash(frame: Frame) -> str:
    return str(imagehash.phash(frame.image(), hash_size=8))


@dataclass
class _View:
    """What the explorer sees at one step: widgets, text fields and the target's other windows."""

    widgets: list[Widget]
    fields: list[Widget]
    clicks: dict[Action, Widget]
    others: list[TopLevel]
    """The target's other top-level windows (dialogs, popups), bottom to top."""
    glyphs: frozenset[Action] = frozenset()
    """Clicks on image-detected blobs drawn straight onto the background (letters, not buttons)."""

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


class ExplorerMemory(TesterBase):
    """The offline explorer's state; see :class:`~app.engine.testers.offline.OfflineExplorer`."""

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

    def _stuck(self) -> bool:
        return (len(self.recent) == STUCK_STEPS and len(set(self.recent)) <= STUCK_SCREENS
                and self.steps_since_new >= STUCK_STEPS)

"""The offline explorer: the embedded default tester, no network, no model.

It explores by state coverage: every distinct screen (perceptual hash) keeps a
count of the actions tried there, and the explorer takes the least-tried
action — the target's hinted keys first, then clicks on detected widgets.  It
judges only what the generic oracles see (crash, exception, freeze, no
response, blank render); it cannot judge game logic and says so in its verdict.
"""

from __future__ import annotations

from collections import defaultdict

import imagehash
import numpy as np
from scipy import ndimage

from app.engine.play.actions import Action, Click, Press
from app.engine.play.observer import Frame, Observation
from app.engine.judge.oracles import Finding
from app.engine.judge.verdict import Evidence, decide
from app.engine.testers.base import Decision, TesterContext, Verdict

MAX_WIDGETS = 24
MIN_WIDGET_PX = 6
BACKGROUND_TOLERANCE = 24
DOWNSAMPLE = 2


def detect_widgets(frame: Frame) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) of regions that stand out from the dominant colour.

    Cheap and toolkit-agnostic: quantise, take the most common colour as the
    background, label connected foreground blobs and keep plausible sizes.
    """
    arr = frame.array()[::DOWNSAMPLE, ::DOWNSAMPLE, :3].astype(np.int16)
    flat = (arr // 16).reshape(-1, 3)
    keys = flat[:, 0] * 256 + flat[:, 1] * 16 + flat[:, 2]
    dominant = np.bincount(keys).argmax()
    bg = np.array([dominant // 256, (dominant // 16) % 16, dominant % 16]) * 16 + 8
    mask = np.abs(arr - bg).max(axis=2) > BACKGROUND_TOLERANCE
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
    boxes.sort(key=lambda b: (b[1], b[0]))
    return boxes[:MAX_WIDGETS]


def state_hash(frame: Frame) -> str:
    return str(imagehash.phash(frame.image(), hash_size=8))


class OfflineExplorer:
    name = "offline"

    def __init__(self, click_widgets: bool = True) -> None:
        self.click_widgets = click_widgets
        self.ctx: TesterContext | None = None
        self.tried: dict[str, dict[Action, int]] = defaultdict(lambda: defaultdict(int))
        self.states: set[str] = set()
        self.keys: list[Action] = []

    def begin(self, ctx: TesterContext, first: Observation) -> None:
        self.ctx = ctx
        self.keys = [Press(k) for k in ctx.spec.keys]
        self.states.add(state_hash(first.frame))

    def _candidates(self, frame: Frame) -> list[Action]:
        actions: list[Action] = list(self.keys)
        if self.click_widgets or not actions:
            for x0, y0, x1, y1 in detect_widgets(frame):
                actions.append(Click((x0 + x1) // 2, (y0 + y1) // 2))
        if not actions:
            w, h = frame.width, frame.height
            actions = [Click(w * i // 4, h * j // 4) for i in (1, 2, 3) for j in (1, 2, 3)]
        return actions

    def decide(self, step: int, obs: Observation) -> Decision:
        assert self.ctx is not None, "begin() first"
        state = state_hash(obs.frame)
        counts = self.tried[state]
        candidates = self._candidates(obs.frame)
        least = min(counts[a] for a in candidates)
        fresh = [a for a in candidates if counts[a] == least]
        keys_first = [a for a in fresh if isinstance(a, Press)]
        pool = keys_first if keys_first and least == 0 else fresh
        action = self.ctx.rng.choice(pool)
        counts[action] += 1
        kind = "hinted key" if isinstance(action, Press) else "detected widget"
        return Decision(action, f"explore: {kind}, tried {least}× on screen {state[:6]} "
                                f"({len(self.states)} distinct screens so far)")

    def observe(self, step: int, before: Frame, decision: Decision, after: Observation, outcome: str) -> None:
        self.states.add(state_hash(after.frame))

    def verdict(self, findings: list[Finding], steps: int) -> Verdict:
        """The verdict rule over the oracles' findings; this tester judges no criteria by design."""
        criteria = {}
        if self.ctx is not None:
            criteria = {c.id: ("uncertain", "the offline tester does not judge game logic")
                        for c in self.ctx.spec.criteria}
        return decide(Evidence(findings, steps, judges_criteria=False, criteria=criteria,
                               scope=f"over {len(self.states)} distinct screens"))

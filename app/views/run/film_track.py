"""FilmTrack: the run view's time axis and film — scrubbing between steps shows the film's picture.

The step under the playhead becomes the current step (list, strip, Before
pane and details move with it); the film's picture at that moment, decoded
off the GUI thread by the :class:`FilmPlayer`, then takes the After pane
until a step is chosen again."""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QImage

from app.views.model.run_reads import RunReads, StepTimes
from app.views.run.film_player import FilmPlayer
from app.views.run.run_header_view import FRAMES_PAGE
from app.views.run.scrub_view import ScrubView
from app.views.run.steps_model import StepsModel
from app.views.widgets.frame_view import FrameView
from app.views.widgets.step_number import step_text


class FilmHost(Protocol):
    """What the film track needs of the run view, without importing it."""

    scrub: ScrubView
    player: FilmPlayer
    model: StepsModel
    after: FrameView

    @property
    def run(self) -> dict[str, Any] | None: ...

    def current_row(self) -> int: ...

    def go_to_row(self, row: int) -> bool: ...

    def show_page(self, page: int) -> None: ...


def _moment(finding: dict[str, Any]) -> float | None:
    """When a finding happened on the film (``evidence["film"]["t"]``), if it says."""
    evidence = finding.get("evidence")
    film = evidence.get("film") if isinstance(evidence, dict) else None
    t = film.get("t") if isinstance(film, dict) else None
    return float(t) if isinstance(t, (int, float)) else None


class FilmTrack(QObject):
    def __init__(self, view: FilmHost, parent: QObject) -> None:
        super().__init__(parent)
        self.view = view
        view.scrub.sig_time_scrubbed.connect(self._on_scrub_time_scrubbed)
        view.player.sig_frame_decoded.connect(self._on_player_frame_decoded)

    def load(self, reads: RunReads, run: dict[str, Any] | None, findings: list[dict[str, Any]]) -> None:
        """(Re)read the run's film index and step times for the time axis."""
        view = self.view
        reader, steps = reads.film(run["id"] if run is not None else None)
        view.player.set_reader(reader)
        run = run or {}
        moments = [t for t in (_moment(f) for f in findings) if t is not None]
        view.scrub.set_run(run.get("started_at"), run.get("ended_at"), steps, moments,
                           reader.times if reader is not None else None)
        row = view.current_row()
        step = view.model.step_at(row) if row >= 0 else None
        if step is not None:
            view.scrub.select_span(step.get("started_at"), step.get("ended_at"))

    def _on_scrub_time_scrubbed(self, t: float) -> None:
        view = self.view
        step = self._step_at(view.scrub.steps, t)
        row = view.model.row_of_idx(step[0]) if step is not None else None
        if row is not None and row != view.current_row():
            view.go_to_row(row)
        view.scrub.set_playhead(t)  # choosing the step put the playhead at its end
        view.player.request(t)

    @staticmethod
    def _step_at(steps: StepTimes, t: float) -> tuple[int, float, float, bool] | None:
        """The step under ``t`` on the time axis: the last one started at or before it (the first before any)."""
        return next((s for s in reversed(steps) if s[1] <= t), steps[0] if steps else None)

    def _on_player_frame_decoded(self, requested: float, t: float, index: int, image: QImage) -> None:
        view = self.view
        if view.run is None:
            return
        step = next((s for s in reversed(view.scrub.steps) if s[1] <= t), None)  # None: before the first step
        where = f"during step {step_text(step[0])}" if step is not None and t <= step[2] else \
            f"after step {step_text(step[0])}" if step is not None else "before the first step"
        view.after.set_frame(image, subtitle=f"film t+{t - float(view.run['started_at']):.3f} s, frame {index} "
                                             f"({where})")
        view.show_page(FRAMES_PAGE)

"""RepairFollower: the repair window's view of the repair running now (one started from the workbench).

Its cycle in progress is an item of its own in the cycle tree ("iteration 2 ·
retesting…") whose diagnosis and patch appear as soon as they are made and
whose play shows live; Pause/Resume and Space pause the repair; while *Follow
the repair* is on, the selection moves with it, and a cycle recorded is chosen
as soon as it is recorded."""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QObject, SignalInstance
from PySide6.QtWidgets import QCheckBox, QPushButton

from app.engine.repair.records import CycleRecord
from app.views.engine_bridge import PAUSED
from app.views.repair.cycle_details_view import PATCH_TAB, TRIGGER_TAB, CycleDetailsView
from app.views.repair.cycle_frames_view import AFTER, BEFORE, CycleFramesView
from app.views.repair.cycle_tree import CYCLE_ROLE, IN_PROGRESS, CycleTree
from app.views.repair.repair_run import CycleInProgress, RepairRun


class RepairShowing(Protocol):
    """What the follower needs of the repair view, without importing it."""

    database: Any
    tree: CycleTree
    frames: CycleFramesView
    details: CycleDetailsView
    follow_check: QCheckBox
    pause_button: QPushButton
    sig_shown_changed: SignalInstance
    cycles: list[CycleRecord]

    def refresh_now(self) -> None: ...

    def set_header(self, title: str, description: str) -> None: ...

    def update_buttons(self) -> None: ...

    def failure_step(self, rec: CycleRecord, trigger: list[dict[str, Any]] | None = None) -> int: ...


class RepairFollower(QObject):
    def __init__(self, view: RepairShowing, parent: QObject) -> None:
        super().__init__(parent)
        self.view = view
        self.run: RepairRun | None = None
        self._shown: tuple[Any, ...] | None = None
        """What of the cycle in progress the details show (they are written again only when it changes)."""
        view.follow_check.toggled.connect(self._on_follow_check_toggled)
        view.pause_button.clicked.connect(self._on_pause_button_clicked)
        view.frames.sig_live_frame_shown.connect(self._on_frames_live_frame_shown)

    @property
    def following(self) -> bool:
        return self.run is not None and self.view.follow_check.isChecked()

    def attach(self, run: RepairRun | None) -> None:
        """Follow ``run`` live; None detaches it."""
        if self.run is not None:
            for signal, slot in self._connections(self.run):
                signal.disconnect(slot)
        self.run = run
        self._shown = None
        if run is not None:
            for signal, slot in self._connections(run):
                signal.connect(slot)
            self.view.follow_check.setChecked(True)
        self._on_run_state_changed(run.state if run is not None else "")
        self._on_run_progress_changed()

    def _connections(self, run: RepairRun) -> list[tuple[Any, Any]]:
        return [(run.sig_progress_changed, self._on_run_progress_changed),
                (run.sig_state_changed, self._on_run_state_changed),
                (run.sig_frame_captured, self.view.frames.show_live_frame),
                (run.sig_cycle_recorded, self._on_run_cycle_recorded)]

    def sync_item(self) -> Any:
        """The tree's item of the cycle in progress, made, updated or removed as the progress says."""
        progress = self.run.progress if self.run is not None else None
        if progress is None:
            return self.view.tree.set_progress(None)
        name = "first play" if progress.first_play else f"iteration {progress.iteration}"
        text = f"{name} · {progress.phase or 'starting'}…"
        return self.view.tree.set_progress(progress.session_run, text, progress.text)

    def show(self, again: bool = False) -> None:
        """Show the cycle in progress: what is known of it so far, its play live (``again``: its details too)."""
        view, run = self.view, self.run
        progress = run.progress if run is not None else None
        if run is None or progress is None:
            return
        if again:
            self._shown = None
        paused = " · <b>PAUSED</b>" if run.state == PAUSED else ""
        name = "First play" if progress.first_play else f"Iteration {progress.iteration}"
        play = ""
        if progress.play_run is not None:
            role = "first play" if progress.first_play else "re-test"
            play = (f"<br>{role}: run {progress.play_run} ({progress.play_tester} tester), "
                    f"{progress.play_steps} step(s){' — ended' if progress.play_ended else ''}")
        view.set_header(f"<b>{name}</b> · in progress — {escape_text(progress.text)}{paused}{play}",
                        progress.description)
        key = (progress.session_run, progress.iteration, progress.before_runs, progress.diagnosis, progress.diff,
               progress.validation)
        if key != self._shown:
            previous, self._shown = self._shown, key
            self._show_texts(progress)
            if self.following and (previous is None or previous[1] != progress.iteration):
                view.details.setCurrentIndex(TRIGGER_TAB)  # a new cycle: what started it
            elif self.following and progress.diff and previous is not None and not previous[4]:
                view.details.setCurrentIndex(PATCH_TAB)  # the patch was just made: show it
        if progress.play_run is not None and (progress.first_play or progress.retesting):
            view.frames.set_live(BEFORE if progress.first_play else AFTER, _live_text(progress, run.state))
        elif view.frames.live_side is not None:
            view.frames.set_live(None)
        view.update_buttons()
        view.sig_shown_changed.emit()

    def _show_texts(self, progress: CycleInProgress) -> None:
        view = self.view
        rec = CycleRecord(progress.iteration, before_run=progress.before_runs[0] if progress.before_runs else None,
                          before_runs=list(progress.before_runs))
        trigger = view.database.repairs.trigger_findings(rec) if progress.before_runs else []
        waiting = "(the first play's findings come when it ends)" if progress.first_play else \
            "(the diagnosis appears when it is made)"
        view.details.show_cycle(trigger, progress.diagnosis or waiting, progress.diff,
                                progress.files[0] if progress.files else ".py",
                                progress.validation or "(the gate's output appears when the patch is checked)")
        if progress.first_play:
            view.frames.show_runs(None, None, 0, waiting="no patch yet: the program is played as it is")
        else:
            view.frames.show_runs(rec.before_run, None, view.failure_step(rec, trigger),
                                  waiting="the re-test starts once the patch passes the gate")

    def _on_run_state_changed(self, state: str) -> None:
        self.view.pause_button.setText("Resume" if state == PAUSED else "Pause")
        self.view.pause_button.setEnabled(state in ("running", "paused", "starting"))
        if self.view.tree.showing_progress():
            self.show()

    def _on_run_progress_changed(self) -> None:
        view = self.view
        if view.database is None:
            return
        progress = self.run.progress if self.run is not None else None
        if progress is not None and view.tree.session_item(progress.session_run) is None:
            view.refresh_now()  # the session row is new: the tree gets it, and the item in progress with it
            return
        item = self.sync_item()
        if item is not None and self.following and not view.tree.showing_progress():
            view.tree.choose(item)
        elif view.tree.showing_progress():
            self.show()
        elif item is None and view.frames.live_side is not None:
            view.frames.set_live(None)

    def _on_run_cycle_recorded(self, patch_id: int) -> None:
        follow, view = self.following, self.view
        view.refresh_now()
        item = next((i for i in view.tree.cycle_items() if i.data(0, CYCLE_ROLE) != IN_PROGRESS
                     and view.cycles[i.data(0, CYCLE_ROLE)].patch_id == patch_id), None)
        if follow and item is not None:
            view.tree.choose(item)

    def _on_follow_check_toggled(self, on: bool) -> None:
        item = self.view.tree.progress_item()
        if on and item is not None:
            self.view.tree.choose(item)

    def _on_pause_button_clicked(self) -> None:
        if self.run is not None:
            self.run.toggle_pause()

    def _on_frames_live_frame_shown(self) -> None:
        if self.run is not None:
            self.run.frame_consumed()


def _live_text(progress: CycleInProgress, state: str) -> str:
    role = "first play" if progress.first_play else f"re-test of iteration {progress.iteration}"
    status = "paused" if state == PAUSED else ("ended" if progress.play_ended else "live")
    return f"{role} · run {progress.play_run} · step {progress.play_steps} · {status}"


def escape_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

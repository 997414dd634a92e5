"""WorkbenchActions: every menu/toolbar command of the main window, with its shortcut and icon.

Kept apart from the window so the menus, the toolbar and the tests name the
same QAction objects, and so the shortcuts are listed in one place.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox, QStyle, QWidget

from app.views.live.live_view import TAKEOVER_SHORTCUT
from app.views.model.run_offers import NOT_PAUSED, live_offers
from app.views.run.replay_controller import DEFAULT_SPEED, SPEEDS
from app.views.shell.control_keys import ControlKeys

SP = QStyle.StandardPixmap


class WorkbenchActions:
    def __init__(self, window: QWidget) -> None:
        style = window.style()

        def make(text: str, shortcut: str | QKeySequence | QKeySequence.StandardKey | None = None,
                 icon: SP | None = None, tip: str = "", checkable: bool = False) -> QAction:
            action = QAction(text, window)
            if shortcut is not None:
                action.setShortcut(QKeySequence(shortcut))
                action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            if icon is not None:
                action.setIcon(style.standardIcon(icon))
            if tip:
                action.setToolTip(tip)
                action.setStatusTip(tip)
            action.setCheckable(checkable)
            window.addAction(action)
            return action

        # File
        self.new_run = make("&New run…", "Ctrl+N", SP.SP_FileDialogNewFolder, "Play a target and record the run")
        self.new_target = make("New &target…", "Ctrl+Shift+T", SP.SP_FileDialogContentsView,
                               "Start a program on a private display: its window with its controls boxed, the keys "
                               "it reads and a starter playcoder.toml")
        self.open_db = make("&Open database…", "Ctrl+O", SP.SP_DialogOpenButton, "Open another PlayCoder database")
        self.new_db = make("New &database…", "Ctrl+Shift+O", SP.SP_FileDialogNewFolder,
                           "Create an empty PlayCoder database and open it")
        self.export_run = make("&Export run…", None, SP.SP_DialogSaveButton, "Write the selected run to a bundle (.zip)")
        self.import_bundle = make("&Import bundle…", None, SP.SP_ArrowDown, "Add the run of a bundle to this database")
        self.export_report = make("Export HTML &report…", None, SP.SP_FileIcon, "Write an HTML report of the run")
        self.quit = make("&Quit", "Ctrl+Q", None, "Close the workbench (a live run is stopped first)")
        # Edit
        self.settings = make("&Settings…", "Ctrl+,", SP.SP_FileDialogDetailedView,
                             "LLM tester provider, model, server and API key (Ctrl+,)")
        # Run (live control and replay)
        self.pause = make("&Pause", "Space", SP.SP_MediaPause, "Pause or resume the live run (Space)")
        self.step = make("S&tep", "N", SP.SP_MediaSkipForward, "Let the live run take exactly one action (N)")
        self.stop = make("&Stop", "Esc", SP.SP_MediaStop, "Stop the live run (Esc)")
        takeover_key = TAKEOVER_SHORTCUT.toString(QKeySequence.SequenceFormat.NativeText)
        self.take_over = make("&Take over", TAKEOVER_SHORTCUT, SP.SP_DialogYesButton,
                              f"Paused run: send your clicks and keys to the target; {takeover_key} again gives "
                              "the keys back to the workbench", checkable=True)
        self._take_over_tip = self.take_over.toolTip()
        self.record_case = make("Record rubric &case…", "Ctrl+Shift+C", None,
                                "Turn the steps you played in take-over into a [[script]] case: mark on the frames "
                                "what must hold, save it, replay it (Ctrl+Shift+C)")
        self.replay = make("&Play replay", "P", SP.SP_MediaPlay, "Replay the timeline with its recorded timing (P)")
        self.undo_override = make("&Undo verdict override", "Ctrl+Z", SP.SP_ArrowBack,
                                  "Append an undo for the newest human override of this run")
        # View
        self.show_browser = make("Run &browser", "Ctrl+B", None, "Show or hide the list of runs", checkable=True)
        self.show_film = make("&Film strip", None, None, "Show or hide the thumbnails", checkable=True)
        self.previous_step = make("&Previous step", "Left", SP.SP_ArrowLeft, "Previous step (←)")
        self.next_step = make("&Next step", "Right", SP.SP_ArrowRight, "Next step (→)")
        self.first_step = make("&First step", "Home", SP.SP_MediaSkipBackward, "First step (Home)")
        self.last_step = make("&Last step", "End", SP.SP_MediaSkipForward, "Last step (End)")
        self.zoom_fit = make("&Zoom to fit", "Ctrl+0", None, "Fit the frames to their panes")
        self.refresh = make("&Refresh", "F5", SP.SP_BrowserReload, "Re-read the runs from the database")
        # Validation
        self.new_validation_set = make("&New validation set…", "Ctrl+Shift+N", None,
                                       "Draw a seeded set of passed and failed runs for blinded labelling")
        self.annotate = make("&Annotate…", "Ctrl+L", None,
                             "Label the runs of a validation set blind, in a window of its own (Ctrl+L)")
        self.agreement = make("Agreement &dashboard…", "Ctrl+Shift+D", None,
                              "How well the tester agrees with the annotators (not blinded)")
        # Repair
        self.repair_sessions = make("&Repair sessions…", "Ctrl+R", None,
                                    "Step through repair sessions cycle by cycle (Ctrl+R)")
        self.new_repair = make("&New repair…", "Ctrl+Shift+R", None,
                               "Repair a failing program: play, diagnose, patch, re-test — and watch it happen")
        self.present_repair = make("&Present repair…", None, None,
                                   "The repair window full screen, large type, keys only (F11 there; Esc leaves)")
        self.export_repair = make("&Export repair report…", None, None,
                                  "Write the selected repair session as one self-contained HTML file (Ctrl+E there)")
        # Help
        self.about = make("&About PlayCoder Workbench", None, SP.SP_MessageBoxInformation)

        self.show_browser.setChecked(True)
        self.show_film.setChecked(True)
        self.speed = QComboBox(window)
        self.speed.setToolTip("Replay speed")
        for speed in SPEEDS:
            self.speed.addItem(f"{speed:g}×", speed)
        self.speed.setCurrentIndex(SPEEDS.index(DEFAULT_SPEED))
        self.control_keys = ControlKeys(window, [self.pause, self.step, self.stop])
        """Space, N and Esc reach the live run from a focused text field too."""

    def revealing(self) -> tuple[QAction, ...]:
        """Commands that show runs, verdicts or findings: disabled while a blinded labelling window is open."""
        return (self.new_run, self.open_db, self.new_db, self.export_run, self.import_bundle, self.export_report, self.replay,
                self.record_case,
                self.undo_override, self.show_browser, self.show_film, self.previous_step, self.next_step,
                self.first_step, self.last_step, self.zoom_fit, self.refresh, self.agreement, self.repair_sessions,
                self.new_repair, self.present_repair, self.export_repair)

    def set_live_controls(self, state: str | None, tester: str | None = None) -> None:
        """Enable pause/step/stop/take-over as a live run of ``tester`` in ``state`` offers them (None: no live
        run); take-over's tip says why it is off when the tester cannot take one."""
        offers = live_offers(tester, state)
        self.pause.setEnabled(offers.pause)
        self.step.setEnabled(offers.step)
        self.stop.setEnabled(offers.stop)
        self.take_over.setEnabled(offers.take_over)
        if not offers.take_over:
            self.take_over.setChecked(False)
        refused = offers.take_over_note not in ("", NOT_PAUSED)  # the tester's own reason
        tip = offers.take_over_note if refused else self._take_over_tip
        self.take_over.setToolTip(tip)
        self.take_over.setStatusTip(tip)
        paused = state == "paused"
        self.pause.setText("&Resume" if paused else "&Pause")
        style_icon = SP.SP_MediaPlay if paused else SP.SP_MediaPause
        parent = self.pause.parent()
        if isinstance(parent, QWidget):
            self.pause.setIcon(parent.style().standardIcon(style_icon))

    def set_replaying(self, playing: bool, style: QStyle) -> None:
        self.replay.setText("&Pause replay" if playing else "&Play replay")
        self.replay.setIcon(style.standardIcon(SP.SP_MediaPause if playing else SP.SP_MediaPlay))

"""ValidationMenu: the Validation menu's commands — draw a set, label it blind, read the agreement.

Blindness is kept at window level: labelling opens :class:`AnnotationView` in
its own window, and while that window is open :attr:`sig_blinding_changed`
tells the main window to hide the run list, the run view (verdicts, findings,
rationales) and every command that would show them, the agreement dashboard
included.  A live run must be stopped first, since its verdict would show.
The annotator's name is the user's one identity (:mod:`app.views.widgets.identity`,
the name verdict overrides record too): set in Edit › Settings…, or asked once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Protocol

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QInputDialog, QMainWindow

from app.engine.study import validation
from app.engine.errors import StoreError
from app.views.model.database import Database
from app.views.model.workbench_model import WorkbenchModel
from app.views.labelling.agreement_view import AgreementView
from app.views.labelling.annotation_view import AnnotationView, ask_annotator_name
from app.views.widgets.identity import identity, set_identity
from app.views.labelling.new_set_dialog import NewSetDialog
from app.views.widgets.tool_window import ToolWindow

ANNOTATION_SIZE = (1200, 800)
DASHBOARD_SIZE = (1000, 700)
NO_SETS = "There are no validation sets in this database yet; draw one with Validation › New validation set…."


class ValidationHost(Protocol):
    """What the menu needs from the main window."""

    db_path: Path | None
    model: WorkbenchModel

    @property
    def database(self) -> Database | None: ...

    def live_active(self) -> bool: ...

    def show_message(self, text: str, *, title: str = ..., error: bool = ...) -> None: ...


class ValidationMenu(QObject):
    sig_blinding_changed = Signal(bool)
    """Emitted with True when the blinded labelling window opened and False when it closed."""
    sig_set_created = Signal(str)
    """Emitted with the name of a validation set drawn from the dialog."""

    def __init__(self, window: QMainWindow, host: ValidationHost) -> None:
        super().__init__(window)
        self.window = window
        self.host = host
        self.annotation: ToolWindow | None = None
        self.dashboard: ToolWindow | None = None
        self._unfollow: dict[str, Callable[[], None]] = {}
        """What ends each open window's subscription to the workbench model, by window."""

    @property
    def blinded(self) -> bool:
        return self.annotation is not None

    # -- commands --------------------------------------------------------------------------
    def new_set(self) -> validation.ValidationSet | None:
        """Ask for a set's name, counts and seed and draw it (None when cancelled)."""
        database = self._database()
        if database is None:
            return None
        dialog = NewSetDialog(database, self.window, report=self.host.show_message)
        if not dialog.exec() or dialog.created is None:
            return None
        vset = dialog.created
        self.host.model.apply(dialog.changes, initiator=self)
        self.window.statusBar().showMessage(
            f"Validation set '{vset.name}': {vset.successes} successes + {vset.failures} failures drawn with seed "
            f"{vset.seed}.", 10000)
        self.sig_set_created.emit(vset.name)
        return vset

    def annotate(self) -> ToolWindow | None:
        """Open the blinded labelling window on a set the user picks (one window at a time)."""
        if self.annotation is not None:
            self._raise(self.annotation)
            return self.annotation
        if self._database() is None or self.host.db_path is None:
            return None
        if self.host.live_active():
            self.host.show_message("Stop the live run (Esc) before labelling: the run view would show its verdict.")
            return None
        vset = self._pick_set("Annotate")
        if vset is None:
            return None
        settings = QSettings()
        annotator = self.annotator_name(settings)
        if annotator is None:
            return None
        database = self._open(self.host.db_path, readonly=False)
        if database is None:
            return None
        view = AnnotationView(database, annotator, set_name=vset.name, settings=settings)
        view.sig_changed.connect(lambda changes: self.host.model.apply(changes, initiator=view))
        self._unfollow["annotation"] = view.follow(self.host.model)
        window = ToolWindow(view, self.window, owned_database=database, size=ANNOTATION_SIZE)
        window.setObjectName("AnnotationWindow")
        window.sig_closed.connect(self._on_annotation_closed)
        self.annotation = window
        self.sig_blinding_changed.emit(True)
        window.show()
        self._raise(window)
        view.setFocus()
        return window

    def open_dashboard(self) -> ToolWindow | None:
        """Open (or bring up) the agreement dashboard on a set the user picks."""
        if self.blinded:
            self.host.show_message("Close the labelling window first: the dashboard shows the tester's verdicts.")
            return None
        if self._database() is None or self.host.db_path is None:
            return None
        vset = self._pick_set("Agreement dashboard")
        if vset is None:
            return None
        if self.dashboard is not None:
            view = self.dashboard.view
            if isinstance(view, AgreementView):
                view.reload_sets(vset.name)
            self._raise(self.dashboard)
            return self.dashboard
        database = self._open(self.host.db_path, readonly=True)
        if database is None:
            return None
        view = AgreementView(database, set_name=vset.name)
        self._unfollow["dashboard"] = view.follow(self.host.model)
        window = ToolWindow(view, self.window, owned_database=database, size=DASHBOARD_SIZE)
        window.setObjectName("AgreementWindow")
        window.sig_closed.connect(self._on_dashboard_closed)
        self.dashboard = window
        window.show()
        self._raise(window)
        return window

    def close_windows(self) -> None:
        for window in (self.annotation, self.dashboard):
            if window is not None:
                window.close()

    # -- helpers ------------------------------------------------------------------------------
    def annotator_name(self, settings: QSettings) -> str | None:
        """The remembered annotator name, asked for (and remembered) the first time."""
        stored = identity(settings)
        if stored:
            return stored
        name = ask_annotator_name(self.window)
        if name is not None:
            set_identity(settings, name)
        return name

    def _pick_set(self, title: str) -> validation.ValidationSet | None:
        database = self._database()
        sets = database.validation.sets() if database is not None else []
        if not sets:
            self.host.show_message(NO_SETS, error=False)
            return None
        if len(sets) == 1:
            return sets[0]
        labels = [f"{s.name} — {s.size} runs, seed {s.seed}" for s in sets]
        choice, ok = QInputDialog.getItem(self.window, title, "Validation set:", labels, len(labels) - 1, False)
        return sets[labels.index(choice)] if ok and choice in labels else None

    def _database(self) -> Database | None:
        if self.host.database is None:
            self.host.show_message("Open a database first (File › Open database…).")
        return self.host.database

    def _open(self, path: Path, *, readonly: bool) -> Database | None:
        try:
            return Database.open(path, readonly=readonly)
        except StoreError as exc:
            self.host.show_message(str(exc))
            return None

    @staticmethod
    def _raise(window: ToolWindow) -> None:
        window.showNormal()
        window.raise_()
        window.activateWindow()

    def _on_annotation_closed(self) -> None:
        self._unfollow.pop("annotation", lambda: None)()
        self.annotation = None
        self.sig_blinding_changed.emit(False)

    def _on_dashboard_closed(self) -> None:
        self._unfollow.pop("dashboard", lambda: None)()
        self.dashboard = None

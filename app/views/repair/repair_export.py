"""Export HTML… in the repair window: one repair session as a self-contained HTML file.

The engine writes it (:func:`app.engine.repair.report.write_repair_report`);
here it runs through the long-work helper — off the GUI thread, on a
database connection of its own, with a progress dialog (cycle by cycle) that
can cancel it (a cancelled export writes no file) — and its outcome ends in
one sentence in the window's status line or a message box.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from app.engine.repair.report import write_repair_report
from app.views.widgets.long_task import LongTask, TaskControl, run_long_task

HTML_FILTER = "HTML (*.html)"


def export_session_report(parent: QWidget, database: Any, session_run: int | None, path: Path | None = None, *,
                          say: Callable[[str], None] | None = None) -> LongTask | None:
    """Ask where (unless ``path`` is given) and write session ``session_run``'s report there in the background.

    ``say`` receives the one sentence of the outcome (default: a message box for a failure, the window's
    status otherwise).  Returns the running task, or None when there was nothing to do."""
    tell = say or _teller(parent)
    if database is None or database.path is None or session_run is None:
        tell("Select a repair session (or one of its cycles) to export first.")
        return None
    if path is None:
        chosen, _ = QFileDialog.getSaveFileName(parent, "Export repair report", f"repair-{session_run}.html",
                                                HTML_FILTER)
        if not chosen:
            return None
        path = Path(chosen)
    db = database.path
    target = path

    def work(control: TaskControl) -> Path:
        return control.open_database(db, readonly=True).repairs.write_report(write_repair_report, session_run, target,
                                                                          control.progress)

    return run_long_task(work, what=f"write the report of repair session {session_run}",
                         label=f"Writing the report of repair session {session_run}…", parent=parent,
                         on_finished=lambda written: tell(f"Wrote the report of repair session {session_run} to "
                                                          f"{written}."),
                         on_failed=tell,
                         on_cancelled=lambda: tell("Cancelled: the repair report was not written."))


def _teller(parent: QWidget) -> Callable[[str], None]:
    def tell(sentence: str) -> None:
        window = parent.window()
        status = getattr(window, "statusBar", None)
        if sentence.startswith(("Wrote", "Cancelled")) and callable(status):
            status().showMessage(sentence, 10000)
        else:
            QMessageBox.information(parent, "Repair report", sentence)

    return tell

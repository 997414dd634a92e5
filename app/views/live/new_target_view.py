"""NewTargetView: File › New target… — what to put in a program's playcoder.toml, seen on its own window.

The workbench's ``playcoder inspect`` (:func:`app.engine.run.inspection.inspect`): the program is started on a
private display off the GUI thread, and the view shows its window with every control it found boxed and
labelled, the controls' list, the keys its code reads, and the starter playcoder.toml (editable).  *Write
playcoder.toml* writes it only when the folder has none — an existing one is never overwritten — and says
what it did.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtGui import QImage, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog, QHBoxLayout, QLabel, QLineEdit, QListWidget, QPlainTextEdit, QPushButton, QSplitter, QVBoxLayout,
    QWidget,
)

from app.engine.run.inspection import Inspection, inspect
from app.engine.play.targetspec import SPEC_FILE
from app.views.widgets.long_task import TaskControl, run_long_task
from app.views.widgets.mark_canvas import MarkCanvas


class NewTargetView(QDialog):
    def __init__(self, folder: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("NewTargetView")
        self.folder = Path(folder)
        self.setWindowTitle(f"New target — {self.folder}")
        self.found: Inspection | None = None
        self.inspecting = False
        self.command = QLineEdit(self)
        self.command.setPlaceholderText('how it starts, e.g. "python main.py" (empty: playcoder.toml\'s, or a guess)')
        self.inspect_button = QPushButton("Inspect (Ctrl+I)", self)
        self.canvas = MarkCanvas("The program's window", self)
        self.widgets = QListWidget(self)
        self.keys = QLabel(self)
        self.keys.setWordWrap(True)
        self.toml = QPlainTextEdit(self)
        self.toml.setObjectName("StarterToml")
        self.write = QPushButton(f"Write {SPEC_FILE} (Ctrl+S)", self)
        self.write.setEnabled(False)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(QLabel("Command:", self))
        top.addWidget(self.command, 1)
        top.addWidget(self.inspect_button)
        right = QWidget(self)
        rv = QVBoxLayout(right)
        rv.addWidget(QLabel("Controls (kind, box, text):", self))
        rv.addWidget(self.widgets, 1)
        rv.addWidget(self.keys)
        rv.addWidget(QLabel(f"Starter {SPEC_FILE} (edit before writing):", self))
        rv.addWidget(self.toml, 2)
        rv.addWidget(self.write)
        splitter = QSplitter(self)
        splitter.addWidget(self.canvas)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)
        self.inspect_button.clicked.connect(self.start_inspection)
        self.write.clicked.connect(self.write_toml)
        QShortcut(QKeySequence("Ctrl+I"), self, self.start_inspection)
        QShortcut(QKeySequence("Ctrl+S"), self, self.write_toml)
        self.resize(1200, 700)

    def start_inspection(self) -> None:
        """Start the program on a private display and look at it (off the GUI thread)."""
        if self.inspecting:
            return
        self.inspecting = True
        self.status.setText(f"Starting the program in {self.folder} on a private display…")
        folder, command = self.folder, self.command.text().strip() or None

        def work(control: TaskControl) -> Inspection:
            control.check()
            return inspect(folder, command)

        run_long_task(work, what="inspect the program", label="Starting the program and looking at it…",
                      parent=self, on_finished=self._on_inspection_finished, on_failed=self._on_inspection_failed,
                      on_cancelled=lambda: self._on_inspection_failed("the inspection was cancelled"))

    def _on_inspection_finished(self, found: Inspection) -> None:
        self.inspecting = False
        self.found = found
        if found.picture is not None:
            self.canvas.set_frame(QImage.fromData(found.picture),
                                  subtitle=f"{found.window[0]}×{found.window[1]} · {len(found.widgets)} controls "
                                           f"({found.widget_source})")
        texts = [str(w["text"] or "").replace("\n", " / ") for w in found.widgets]
        self.canvas.set_marks([(list(w["box"]), (text or str(w["kind"]))[:24]) for w, text in zip(found.widgets, texts)])
        self.widgets.clear()
        for w, text in zip(found.widgets, texts):
            self.widgets.addItem(f"{w['kind']:<8} {w['box']}  {text}")
        self.keys.setText(f"Keys its code reads: {', '.join(found.keys) or 'none found'}"
                          + (f"\nSaved state: {', '.join(found.saved_state)}" if found.saved_state else "")
                          + (f"\nIt quit by itself with code {found.exited} while watched"
                             if found.exited is not None else ""))
        self.toml.setPlainText(found.toml)
        exists = (self.folder / SPEC_FILE).exists()
        self.write.setEnabled(not exists)
        self.status.setText(f"The window is {found.window[0]}×{found.window[1]}."
                            + (f" {self.folder / SPEC_FILE} exists already; it is left as it is." if exists else
                               " Edit the starter and write it, or copy it."))

    def _on_inspection_failed(self, sentence: str) -> None:
        self.inspecting = False
        self.status.setText(f"The inspection failed: {sentence}")

    def write_toml(self) -> None:
        """Write the (edited) starter into the folder, only when it has no playcoder.toml."""
        if self.found is None:
            return
        path = self.folder / SPEC_FILE
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)  # never over an existing file
        except FileExistsError:
            self.status.setText(f"{path} exists already; it is left as it is.")
            self.write.setEnabled(False)
            return
        except OSError as exc:
            self.status.setText(f"Cannot write {path} ({exc.strerror or exc}); copy the text instead.")
            return
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(self.toml.toPlainText())
        self.write.setEnabled(False)
        self.status.setText(f"Wrote {path}. Play it with File › New run….")


def open_new_target(parent: QWidget, folder: Path | None = None) -> NewTargetView | None:
    """Ask for the program's folder (unless given), open the view on it and start the inspection."""
    if folder is None:
        from PySide6.QtWidgets import QFileDialog

        chosen = QFileDialog.getExistingDirectory(parent, "The program's folder")
        if not chosen:
            return None
        folder = Path(chosen)
    view = NewTargetView(folder, parent)
    view.show()
    view.start_inspection()
    return view

"""CodeView: the run view's "Code" tab — which lines of the program's own files the selected step ran.

Left, the run's files (:class:`CodeFilesModel`: hit/total for the run, lines
first reached at this step); right, the chosen file with its source highlighted
by pygments and each line's mark (:mod:`app.engine.trace.code_lines`) in the
gutter and background.  Lines first reached at this step are emphasised and
scrolled to.  The run is read once when opened; a step change re-renders only
while the tab is shown (a hidden tab renders when it is next shown).
"""

from __future__ import annotations

import html
from typing import Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_for_filename
from pygments.lexers.special import TextLexer
from pygments.util import ClassNotFound
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QFontDatabase, QShowEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QSplitter, QTableView, QTextBrowser
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.engine.play.targetspec import load_spec
from app.engine.trace.code_lines import BEFORE, LATER, NEVER, NEW, RunSource, line_marks, run_source
from app.engine.trace.coverage import START_STEP
from app.views.model.run_reads import RunReads
from app.views.run.code_files_model import CodeFilesModel

MARK_STYLE = {
    NEW: ("#8fdc8f", "▶"),
    BEFORE: ("#e2f4e2", "│"),
    LATER: ("#e6eaf6", "·"),
    NEVER: ("#f8dede", "✗"),
}
"""Background and gutter sign per line mark (a line that is not executable has neither)."""
LEGEND = ("<b style='background:#8fdc8f'>&nbsp;▶ first reached at this step&nbsp;</b> "
          "<span style='background:#e2f4e2'>&nbsp;│ reached before&nbsp;</span> "
          "<span style='background:#e6eaf6'>&nbsp;· reached at a later step&nbsp;</span> "
          "<span style='background:#f8dede'>&nbsp;✗ never reached&nbsp;</span>")
NEW_ANCHOR = "first-new-line"
NO_COVERAGE = "This run recorded no line coverage (only Python programs seen from inside record it)."


def highlighted_lines(text: str, file: str) -> list[str]:
    """The file's lines as HTML with inline pygments colours (one entry per source line)."""
    try:
        lexer = get_lexer_for_filename(file, stripnl=False, ensurenl=False)
    except ClassNotFound:
        lexer = TextLexer(stripnl=False, ensurenl=False)
    out = highlight(text, lexer, HtmlFormatter(nowrap=True, noclasses=True))
    return out.split("\n")[: len(text.splitlines()) or 1]


def code_html(lines: list[str] | None, marks: dict[int, str]) -> str:
    """A table of gutter | number | code; ``lines`` None: numbers and marks only (no source)."""
    last = len(lines) if lines is not None else max(marks, default=0)
    rows, anchored = [], False
    for n in range(1, last + 1):
        mark = marks.get(n)
        colour, sign = MARK_STYLE.get(mark or "", ("", ""))
        bg = f' bgcolor="{colour}"' if colour else ""
        anchor = ""
        if mark == NEW and not anchored:
            anchor, anchored = f'<a name="{NEW_ANCHOR}"></a>', True
        code = lines[n - 1] if lines is not None else ""
        if mark == NEW:
            sign, code = f"<b>{sign}</b>", f"<b>{code}</b>"
        rows.append(f'<tr{bg}><td>{anchor}{sign}</td><td align="right" style="color:#777">{n}</td>'
                    f'<td style="white-space:pre">{code}</td></tr>')
    return f'<table cellspacing="0" cellpadding="1">{"".join(rows)}</table>'


class CodeView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("CodeView")
        self.model = CodeFilesModel(self)
        self.files = QTableView(self)
        self.files.setModel(self.model)
        self.files.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.files.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.files.verticalHeader().hide()
        self.files.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.RichText)
        self.source = QTextBrowser(self)
        self.source.setObjectName("CodeSource")
        self.source.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.source.setLineWrapMode(QTextBrowser.LineWrapMode.NoWrap)
        right = QWidget(self)
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.note)
        column.addWidget(self.source, 1)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.files)
        split.addWidget(right)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self._run: dict[str, Any] | None = None
        self._where: RunSource | None = None
        """Where the run's source is read from; found on the first render (hashing the folder takes time)."""
        self._step = START_STEP
        self._dirty = True
        self.files.selectionModel().currentRowChanged.connect(self._on_files_current_changed)
        self.set_run(RunReads(None), None)

    def set_run(self, reads: RunReads, run: dict[str, Any] | None) -> None:
        """Read the run's coverage (``run`` None: nothing); again for the same run, e.g. a live run that has
        recorded more, keeps the file on show."""
        same = run is not None and self._run is not None and run["id"] == self._run["id"]
        shown = self.current_file if same else None
        if not same:
            self._where = None
        self._run = run
        files, steps = reads.coverage(run["id"] if run is not None else None)
        self.model.set_coverage(files, steps)
        self.model.set_step(self._step)
        if files:
            row = next((i for i, f in enumerate(files) if f.file == shown), 0)
            self.files.selectionModel().setCurrentIndex(
                self.model.index(row, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows)
        self._render_later()

    def show_step(self, step: int) -> None:
        """Show what step number ``step`` (0-based ``idx``) ran."""
        self._step = step
        self.model.set_step(step)
        self._render_later()

    @property
    def current_file(self) -> str | None:
        cover = self.model.coverage_at(self.files.selectionModel().currentIndex().row())
        return cover.file if cover is not None else None

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            self._render()

    def _render_later(self) -> None:
        self._dirty = True
        if self.isVisible():
            self._render()

    def _render(self) -> None:
        self._dirty = False
        cover = self.model.coverage_at(self.files.selectionModel().currentIndex().row())
        if cover is None or self._run is None:
            self.note.setText(NO_COVERAGE)
            self.source.clear()
            return
        if self._where is None:
            run = self._run
            self._where = run_source(run.get("target_path"), run.get("target_rev"), run.get("bug"),
                                     revision=lambda folder: load_spec(folder).revision())
        marks = line_marks(self.model.steps, cover.total, cover.file, self._step)
        text = self._where.text(cover.file)
        why = self._where.why
        if self._where.folder is not None and text is None:
            why = f"{cover.file} cannot be read from the target folder; only line numbers are shown."
        lines = highlighted_lines(text, cover.file) if text is not None else None
        new = sum(1 for m in marks.values() if m == NEW)
        head = f"<b>{html.escape(cover.file)}</b>: {len(cover.hit)} of {len(cover.total)} lines reached by the run, " \
               f"<b>{new}</b> first at this step.<br>{LEGEND}"
        self.note.setText(head + (f"<br><i>{html.escape(why)}</i>" if why else ""))
        self.source.setHtml(code_html(lines, marks))
        if new:
            self.source.scrollToAnchor(NEW_ANCHOR)

    def _on_files_current_changed(self, *_: Any) -> None:
        self._render_later()

"""A patch as HTML for a QTextBrowser: unified (pygments' diff lexer) or side by side (Python-highlighted).

Qt's rich text understands a subset of HTML 4 and inline styles only, so
pygments runs with ``noclasses=True`` and the layout is a plain table.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import DiffLexer, PythonLexer, TextLexer

STYLE = "friendly"
REMOVED_BG = "#fde2e1"
ADDED_BG = "#dcf5dc"
HEADER_BG = "#e8eef7"
LINE_NO_COLOR = "#8a8f98"
FONT = "font-family: monospace; font-size: 10pt;"
NUMBER_CELL = f'align="right" nowrap width="40" style="color:{LINE_NO_COLOR}; white-space:nowrap; padding-right:4px"'
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$")


def unified_html(diff: str) -> str:
    if not diff.strip():
        return _empty()
    body = highlight(diff, DiffLexer(), HtmlFormatter(noclasses=True, style=STYLE, nowrap=True))
    return f'<pre style="{FONT}">{body}</pre>'


@dataclass
class Row:
    kind: str  # file | hunk | same | change
    left_no: int | None = None
    left: str | None = None
    right_no: int | None = None
    right: str | None = None


def side_by_side_rows(diff: str) -> list[Row]:
    rows: list[Row] = []
    old_no = new_no = 0
    minus: list[tuple[int, str]] = []
    plus: list[tuple[int, str]] = []

    def flush() -> None:
        for i in range(max(len(minus), len(plus))):
            lo = minus[i] if i < len(minus) else (None, None)
            ro = plus[i] if i < len(plus) else (None, None)
            rows.append(Row("change", lo[0], lo[1], ro[0], ro[1]))
        minus.clear()
        plus.clear()

    for line in diff.splitlines():
        if line.startswith("+++ "):
            continue
        if line.startswith("--- "):
            flush()
            rows.append(Row("file", left=line[4:].removeprefix("a/")))
            continue
        m = _HUNK.match(line)
        if m:
            flush()
            old_no, new_no = int(m.group(1)), int(m.group(2))
            rows.append(Row("hunk", left=line))
        elif line.startswith("-"):
            minus.append((old_no, line[1:]))
            old_no += 1
        elif line.startswith("+"):
            plus.append((new_no, line[1:]))
            new_no += 1
        elif line.startswith("\\"):
            continue
        else:
            flush()
            text = line[1:] if line.startswith(" ") else line
            rows.append(Row("same", old_no, text, new_no, text))
            old_no += 1
            new_no += 1
    flush()
    return rows


def side_by_side_html(diff: str, path_hint: str = ".py") -> str:
    if not diff.strip():
        return _empty()
    lexer = PythonLexer() if path_hint.endswith(".py") else TextLexer()
    fmt = HtmlFormatter(noclasses=True, style=STYLE, nowrap=True)

    def code(text: str | None) -> str:
        if text is None:
            return ""
        return highlight(text, lexer, fmt).rstrip("\n") or "&nbsp;"

    out = [f'<table width="100%" cellspacing="0" cellpadding="1" style="{FONT}">']
    for row in side_by_side_rows(diff):
        if row.kind in ("file", "hunk"):
            out.append(f'<tr><td colspan="4" style="background:{HEADER_BG}"><b>{html.escape(row.left or "")}</b>'
                       "</td></tr>")
            continue
        lbg = REMOVED_BG if row.kind == "change" and row.left is not None else "transparent"
        rbg = ADDED_BG if row.kind == "change" and row.right is not None else "transparent"
        out.append(
            f'<tr><td {NUMBER_CELL}>{row.left_no if row.left is not None else ""}</td>'
            f'<td width="50%" style="background:{lbg}"><pre style="margin:0">{code(row.left)}</pre></td>'
            f'<td {NUMBER_CELL}>{row.right_no if row.right is not None else ""}</td>'
            f'<td width="50%" style="background:{rbg}"><pre style="margin:0">{code(row.right)}</pre></td></tr>')
    out.append("</table>")
    return "".join(out)


def _empty() -> str:
    return "<p><i>No patch in this cycle.</i></p>"

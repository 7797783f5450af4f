"""*Show source lines*: a candidate's lines in its file, with a few lines around them.

The file is read through the project's :class:`~ctxviewer.engine.files.reading.ProjectFS`, the
same containment-checked reader the pipeline uses: a path that leads out of the
project (``..``, an absolute path, a symlink out) is refused with a one-line reason,
never read.  :func:`source_excerpt` is the Qt-free part (tested exactly);
:class:`SourceLinesDialog` shows it.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QTextEdit, QVBoxLayout, QWidget

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.trace.model import Item
from ctxviewer.gui.widgets.fonts import fixed_pitch_font
from ctxviewer.gui.widgets.models import is_dark

#: Lines shown before and after the candidate's own.
AROUND = 3
#: The marker beside the candidate's own lines.
MARK = "\u25b6"
#: At most this many lines are shown (a whole rule file can be long).
MAX_LINES = 2_000


@dataclass(frozen=True)
class SourceExcerpt:
    """Lines of one project file: ``(number, text)`` pairs, and which numbers are the candidate's."""

    path: str
    lines: tuple[tuple[int, str], ...]
    first: int | None  # the candidate's first line (None: the whole file is the candidate)
    last: int | None
    total: int  # lines in the file
    error: str = ""  # why nothing is shown ('' when the file was read)
    clipped: bool = False  # more lines than MAX_LINES: the rest are left out

    def marked(self, number: int) -> bool:
        if self.first is None or self.last is None:
            return False
        return self.first <= number <= self.last

    def as_text(self) -> str:
        """The lines with their numbers, a marker beside the candidate's own."""
        width = len(str(self.lines[-1][0])) if self.lines else 1
        out = [f"{MARK if self.marked(n) else ' '} {n:>{width}}  {text}" for n, text in self.lines]
        if self.clipped:
            out.append(f"  \u2026 {self.total - self.lines[-1][0]:,} more lines not shown")
        return "\n".join(out)


def source_excerpt(
    fs: ProjectFS, rel: str, first: int | None, last: int | None, around: int = AROUND, limit: int = MAX_LINES
) -> SourceExcerpt:
    """Lines *first*..*last* of *rel* (1-based, inclusive) with *around* lines either side.

    Without a line range the file is shown from its start.  A path outside the project,
    a missing or unreadable file gives an excerpt with no lines and the reason in ``error``.
    """
    result = fs.read_text(rel)
    if not result.ok or result.text is None:
        return SourceExcerpt(rel, (), first, last, 0, result.describe())
    lines = result.text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file's final newline ends its last line; it is not a line of its own
    total = len(lines)
    if first is None or last is None:
        start, stop = 1, total
    else:
        if first > total:
            return SourceExcerpt(rel, (), first, last, total, f"{rel} has {total:,} lines now, not {first:,}")
        start, stop = max(1, first - around), min(total, last + around)
    clipped = stop - start + 1 > limit
    stop = min(stop, start + limit - 1)
    shown = tuple((n, lines[n - 1]) for n in range(start, stop + 1))
    return SourceExcerpt(rel, shown, first, last, total, clipped=clipped)


def source_file(fs: ProjectFS, source: str) -> tuple[str, str]:
    """The file a candidate's ``source`` names, and what it points at inside it.

    Most sources are a path; a computed-profile entry's is a path and an entry
    (``.mahabharatha/context-map.yaml knowledge[2]``): the file is shown, the entry named.
    """
    if fs.exists(source) or " " not in source:
        return source, ""
    path, pointer = source.split(" ", 1)
    return path, pointer.strip()


def item_excerpt(fs: ProjectFS, item: Item) -> SourceExcerpt:
    """The excerpt *Show source lines* shows for *item* (its file, read inside the project)."""
    path, _pointer = source_file(fs, item.source)
    return source_excerpt(fs, path, item.line_start, item.line_end)


def excerpt_title(item: Item) -> str:
    name = item.source.rsplit("/", 1)[-1]
    if item.line_start is None:
        return name
    if item.line_end is None or item.line_end == item.line_start:
        return f"{name}, line {item.line_start}"
    return f"{name}, lines {item.line_start}\u2013{item.line_end}"


class SourceLinesDialog(QDialog):
    """A read-only view of an excerpt; the candidate's own lines tinted and scrolled to."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Source lines")
        self.caption = QLabel(self)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(fixed_pitch_font())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.caption)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self.resize(760, 480)
        self.excerpt: SourceExcerpt | None = None

    def show_excerpt(self, item: Item, excerpt: SourceExcerpt) -> None:
        self.excerpt = excerpt
        self.setWindowTitle(f"Source lines \u2014 {excerpt_title(item)}")
        if excerpt.error:
            self.caption.setText(f"{item.source}: cannot show its lines \u2014 {excerpt.error}")
            self.text.setPlainText("")
            return
        where = "the whole file" if excerpt.first is None else f"marked \u25b6, with {AROUND} lines around"
        pointer = item.source[len(excerpt.path) :].strip()
        about = f"; the entry is {pointer}" if pointer else ""
        self.caption.setText(f"{excerpt.path} ({excerpt.total:,} lines): {excerpt_title(item)}, {where}{about}.")
        self.text.setPlainText(excerpt.as_text())
        marked = [n for n, (number, _t) in enumerate(excerpt.lines) if excerpt.marked(number)]
        if not marked:
            self.text.setExtraSelections([])
            return
        doc = self.text.document()
        cursor = QTextCursor(doc.findBlockByNumber(marked[0]))
        cursor.setPosition(doc.findBlockByNumber(marked[-1]).position(), QTextCursor.MoveMode.KeepAnchor)
        tint = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(QColor("#3a3320" if is_dark(self.palette()) else "#fff4c2"))
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
        tint.format = fmt
        tint.cursor = cursor
        self.text.setExtraSelections([tint])
        self.text.setTextCursor(QTextCursor(doc.findBlockByNumber(marked[0])))
        self.text.centerCursor()

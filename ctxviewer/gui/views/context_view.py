"""The plugin's assembled context, exactly, highlighted and navigable; its caption says whether it reaches the worker.

The text is the trace's ``context``; carriage returns and U+2029 are shown as visible
symbols (one character each) so every character keeps its place.  Section spans are
tinted so boundaries show; the side list jumps to a section or an included candidate.
"""

from __future__ import annotations

import bisect

from PySide6.QtCore import QEvent, QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import (
    QGuiApplication,
    QStandardItem,
    QStandardItemModel,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QSplitter,
    QTextEdit,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.trace.model import RULE_FILE, SPEC_PARAGRAPH, Item, Trace
from ctxviewer.gui.widgets.fonts import fixed_pitch_font
from ctxviewer.gui.widgets.highlighter import (
    LexedText,
    MarkdownHighlighter,
    OffsetMap,
    display_text,
    lex_blocks,
    part_tints,
    span_cursor,
)
from ctxviewer.gui.widgets.models import is_dark
from ctxviewer.gui.widgets.plaintext import plain_tip

SpanRole = Qt.ItemDataRole.UserRole + 10

#: Section tints (light, dark) by position, subtle enough to read text on.


def _in_table(item: Item | None) -> str:
    """The menu entry that selects *item* in the tab listing it."""
    if item is None:
        return "Show in table"
    tab = {RULE_FILE: "Rules", SPEC_PARAGRAPH: "Paragraphs"}.get(item.kind, "Computed")
    return f"Show in the {tab} table"


class ContextView(QWidget):
    """Side list of sections/items + the highlighted context text.

    A right click in the text offers, for the candidate under the pointer, *Show in
    table* (``showInTable`` carries its id) and *Show source lines* (``showSource``
    carries the item), and *Copy as Markdown* of the selection or that candidate.
    """

    spanShown = Signal(int, int)
    showInTable = Signal(str)
    showSource = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.outline_model = QStandardItemModel(self)
        self.outline_model.setHorizontalHeaderLabels(["Sections and included candidates"])
        self.outline = QTreeView(self)
        self.outline.setModel(self.outline_model)
        self.outline.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.outline.setUniformRowHeights(True)
        self.outline.clicked.connect(self._on_outline)
        self.outline.activated.connect(self._on_outline)
        self.outline.setToolTip("Click a section or candidate to jump to it in the text")
        self.outline.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.outline.customContextMenuRequested.connect(self._open_outline_menu)

        self.editor = QPlainTextEdit(self)
        self.editor.setReadOnly(True)
        self.editor.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        font = fixed_pitch_font()
        self.editor.setFont(font)
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.editor.setPlaceholderText("The assembled context appears here.")
        self.highlighter = MarkdownHighlighter(self.editor.document(), is_dark(self.palette()))
        self.editor.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.editor.customContextMenuRequested.connect(self._open_menu)
        self.caption = QLabel(self)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.caption.setWordWrap(True)

        right = QWidget(self)
        rlay = QVBoxLayout(right)
        rlay.setContentsMargins(0, 0, 0, 0)
        rlay.addWidget(self.caption)
        rlay.addWidget(self.editor, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.outline)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 4)
        splitter.setSizes([260, 900])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)

        self._trace: Trace | None = None
        self._offsets = OffsetMap(())
        self._section_selections: list[QTextEdit.ExtraSelection] = []
        self._focus: QTextEdit.ExtraSelection | None = None
        self._focus_span: tuple[int, int] | None = None

    def changeEvent(self, event: QEvent) -> None:
        # Follow a light/dark switch while running: new token colours and section tints.
        if event.type() == QEvent.Type.PaletteChange:
            self.highlighter.set_dark(is_dark(self.palette()))
            if self._trace is not None:
                self._section_selections = self._section_tints(self._trace)
                self._apply_selections()
        super().changeEvent(event)

    # -- content -----------------------------------------------------------------------

    def set_trace(self, trace: Trace | None, lexed: LexedText | None = None) -> None:
        self._trace = trace
        self.outline_model.removeRows(0, self.outline_model.rowCount())
        self._focus = None
        self._focus_span = None
        if trace is None:
            self.highlighter.set_lexed(None)
            self.editor.setPlainText("")
            self.caption.setText("")
            self._section_selections = []
            self._apply_selections()
            return
        text = display_text(trace.context)
        if lexed is None or lexed.text != text:
            lexed = lex_blocks(text)
        self._offsets = OffsetMap.of(text)
        self.highlighter.set_lexed(lexed)
        self.editor.setPlainText(text)
        cr = trace.context.count("\r")
        note = f"; {cr:,} carriage returns shown as \u240d" if cr else ""
        self.caption.setText(
            f"The plugin's assembled context: {len(trace.context):,} characters, "
            f"{trace.context.count(chr(10)) + 1 if trace.context else 0:,} lines{note}. {reaches_worker(trace)}"
        )
        self._fill_outline(trace)
        self._section_selections = self._section_tints(trace)
        self._apply_selections()

    def _fill_outline(self, trace: Trace) -> None:
        root = self.outline_model.invisibleRootItem()
        for section in trace.sections:
            label = section.title if section.status == "included" else f"{section.title} ({section.status})"
            node = QStandardItem(label)
            node.setData(section.span, SpanRole)
            node.setToolTip(plain_tip(section.reason))
            if section.span is None:
                node.setEnabled(False)
            items = sorted(
                (i for i in trace.items if i.section == section.name and i.span is not None),
                key=lambda i: i.span[0] if i.span else 0,
            )
            for item in items:
                lines = f":{item.line_start}" if item.line_start is not None and item.kind != "rule_file" else ""
                cut = " \u2702" if item.status == "truncated" else ""
                child = QStandardItem(f"{item.source.rsplit('/', 1)[-1]}{lines}{cut}")
                child.setData(item.span, SpanRole)
                child.setData(item.id, SpanRole + 1)
                child.setToolTip(plain_tip(f"{item.source}\n{item.status}: {item.reason}"))
                node.appendRow(child)
            root.appendRow(node)
        self.outline.expandAll()

    def _section_tints(self, trace: Trace) -> list[QTextEdit.ExtraSelection]:
        sections = [s for s in trace.sections if s.span is not None]
        spans = [s.span for s in sections if s.span is not None]
        tips = [plain_tip(s.title) for s in sections]
        return part_tints(self.editor.document(), self._offsets, spans, is_dark(self.palette()), tips)

    def _cursor(self, start: int, end: int) -> QTextCursor:
        return span_cursor(self.editor.document(), self._offsets, start, end)

    def _apply_selections(self) -> None:
        sels = list(self._section_selections)
        if self._focus is not None:
            sels.append(self._focus)
        self.editor.setExtraSelections(sels)

    # -- navigation --------------------------------------------------------------------

    def show_span(self, start: int, end: int) -> None:
        """Select context characters [start, end), scroll there and mark them."""
        cursor = self._cursor(start, end)
        sel = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(self.palette().highlight())
        fmt.setForeground(self.palette().highlightedText())
        sel.format = fmt
        sel.cursor = cursor
        self._focus = sel
        self._focus_span = (start, end)
        self._apply_selections()
        # Scroll so the span's start is at the top, then put the caret there.
        end_cursor = QTextCursor(cursor)
        end_cursor.setPosition(cursor.selectionEnd())
        self.editor.setTextCursor(end_cursor)
        start_cursor = QTextCursor(cursor)
        start_cursor.setPosition(cursor.selectionStart())
        self.editor.setTextCursor(start_cursor)
        self.editor.ensureCursorVisible()
        self.spanShown.emit(start, end)

    def selected_span(self) -> tuple[int, int] | None:
        """The context offsets last jumped to, if any."""
        return self._focus_span

    def selected_text(self) -> str:
        """The document text of the marked span (as displayed)."""
        return self._focus.cursor.selectedText() if self._focus is not None else ""

    # -- the context menu ---------------------------------------------------------------

    def offset_at_doc(self, position: int) -> int:
        """The context offset of a document position (the inverse of the offset map)."""
        astral = self._offsets.astral
        # Character i of the text sits at document position i + (astral characters before it).
        doc_starts = [a + n for n, a in enumerate(astral)]
        return position - bisect.bisect_left(doc_starts, position)

    def item_at(self, offset: int) -> Item | None:
        """The candidate whose text in the context holds *offset* (the narrowest, if nested)."""
        if self._trace is None:
            return None
        found = [i for i in self._trace.items if i.span is not None and i.span[0] <= offset < i.span[1]]
        return min(found, key=lambda i: i.span[1] - i.span[0] if i.span else 0, default=None)

    def markdown_of(self, item: Item | None) -> str:
        """The selection (else *item*'s text in the context) as a fenced Markdown block, its source above."""
        if self._trace is None:
            return ""
        cursor = self.editor.textCursor()
        if cursor.hasSelection():
            start = self.offset_at_doc(cursor.selectionStart())
            end = self.offset_at_doc(cursor.selectionEnd())
            text = self._trace.context[start:end]
            item = self.item_at(start) if item is None else item
        elif item is not None and item.span is not None:
            text = self._trace.context[item.span[0] : item.span[1]]
        else:
            return ""
        fence = "```"
        while fence in text:
            fence += "`"
        where = f"From the context of {self._trace.task_id}"
        if item is not None:
            lines = "" if item.line_start is None else f", lines {item.line_start}\u2013{item.line_end}"
            where += f" ({item.source}{lines}, {item.status})"
        return f"{where}:\n\n{fence}markdown\n{text.rstrip(chr(10))}\n{fence}\n"

    def context_menu(self, pos: QPoint) -> QMenu:
        """The text's menu at *pos* (viewport coordinates): the editor's own, then ours."""
        menu = self.editor.createStandardContextMenu(pos)
        offset = self.offset_at_doc(self.editor.cursorForPosition(pos).position())
        item = self.item_at(offset)
        menu.addSeparator()
        copy_md = menu.addAction("Copy as Markdown")
        copy_md.setToolTip("The selection (or the candidate under the pointer) in a Markdown code block")
        copy_md.setEnabled(bool(self.editor.textCursor().hasSelection()) or item is not None)
        copy_md.triggered.connect(lambda _c=False: QGuiApplication.clipboard().setText(self.markdown_of(item)))
        self._add_item_actions(menu, item)
        return menu

    def outline_menu(self, pos: QPoint) -> QMenu:
        """The side list's menu at *pos*: a candidate's table row and source lines."""
        index = self.outline.indexAt(pos)
        item_id = index.data(SpanRole + 1) if index.isValid() else None
        item = self._trace.item(item_id) if self._trace is not None and isinstance(item_id, str) else None
        menu = QMenu(self.outline)
        self._add_item_actions(menu, item)
        return menu

    def _add_item_actions(self, menu: QMenu, item: Item | None) -> None:
        """A candidate's entries in both menus: its row in its table, and its source lines."""
        in_table = menu.addAction(_in_table(item))
        in_table.setEnabled(item is not None)
        source = menu.addAction("Show source lines")
        source.setEnabled(item is not None and bool(item.source))
        if item is not None:
            in_table.triggered.connect(lambda _c=False: self.showInTable.emit(item.id))
            source.triggered.connect(lambda _c=False: self.showSource.emit(item))

    def _open_outline_menu(self, pos: QPoint) -> None:
        menu = self.outline_menu(pos)
        menu.exec(self.outline.viewport().mapToGlobal(pos))
        menu.deleteLater()

    def _open_menu(self, pos: QPoint) -> None:
        menu = self.context_menu(pos)
        menu.exec(self.editor.viewport().mapToGlobal(pos))
        menu.deleteLater()

    def _on_outline(self, index: QModelIndex) -> None:
        span = index.data(SpanRole)
        if span:
            self.show_span(int(span[0]), int(span[1]))


def reaches_worker(trace: Trace) -> str:
    """One sentence: whether and how the plugin's assembled context reaches this task's worker."""
    worker = trace.worker
    if worker is None:
        return "Whether it reaches the worker is not recorded in this trace."
    if worker.prompt_uses != "task context":
        return (
            "It does not reach the worker: upstream's worker gets a task's design-time context, this task has none, "
            "so its prompt carries the spec fallback instead (see the Prompt tab)."
        )
    stored = next((b.text for b in worker.blocks if b.name == "task_context"), "")
    stored = stored.split("\n", 1)[1] if "\n" in stored else ""
    if stored == trace.context:
        return "It reaches the worker: the task's design-time context is this text, word for word."
    return (
        f"It does not reach the worker as shown: the worker's prompt carries the task's design-time context instead "
        f"({len(stored):,} characters written at design time; see the Prompt tab)."
    )

"""The Worker prompt view: the whole prompt upstream's worker gives the model for a task.

It shows a :class:`~ctxviewer.engine.worker.prompt.WorkerPrompt` (built off the GUI thread):
the text exactly as composed, read-only and highlighted, a table of its parts with their
sources and counts (a click marks a part in the text), and, for a design-time ``context``, a
page beside what the plugin assembles now.  Everything shown is project text, so it goes into
plain-text widgets and tooltips (:func:`~ctxviewer.gui.widgets.plaintext.plain_tip`).
See docs/gui.md.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.files.writing import atomic_write
from ctxviewer.engine.tokens.counting import CL100K, O200K, TokenCounts
from ctxviewer.engine.worker import prompt as up
from ctxviewer.engine.worker.prompt import PromptPart, WorkerPrompt
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
from ctxviewer.gui.widgets.models import Column, RecordModel, RowRole, fmt_int, is_dark
from ctxviewer.gui.widgets.plaintext import plain_tip, safe_file_name
from ctxviewer.gui.widgets.table_actions import install_table_actions

#: What each part is, as the table names it.
PART_TITLES: dict[str, str] = {
    up.TASK_CONTEXT: "Task context (design time)",
    up.SPEC_HEADER: "Spec: heading",
    up.SPEC_REQUIREMENTS: "Spec: requirements",
    up.SPEC_DESIGN: "Spec: design",
    up.SPEC_SEPARATOR: "Spec: separator",
    up.HEADER: "Task header",
    up.DESCRIPTION: "Description",
    up.FILES: "Files",
    up.VERIFICATION: "Verification",
    up.INSTRUCTIONS_PART: "Instructions",
}
#: Export formats by file suffix: the exact prompt, or the attributed JSON.
EXPORT_SUFFIXES = {".txt": "text", ".json": "json"}
#: Part tints (light, dark) by position, as the Context tab tints its sections.
#: The marked part (light, dark): stronger than the tints, light enough to read a long part on.
_MARK = ("#ffe8a3", "#5a4a14")
#: The text property that names the marked part (to re-mark it in the other theme's colour).
_PART_PROPERTY = QTextFormat.Property.UserProperty + 1
_ESTIMATE_TIP = (
    "Upstream's own estimate, as its token records write it: round(characters / 4) with Python's "
    "banker's rounding (half to even), at least 1"
)


def _exact(counts: TokenCounts, name: str) -> str:
    return fmt_int(counts.get(name))


PART_COLUMNS: tuple[Column, ...] = (
    Column("Part", lambda p: PART_TITLES.get(p.name, p.name), tip="What this stretch of the prompt is"),
    Column("Source", lambda p: p.source, tip="Where upstream takes it from"),
    Column("Chars", lambda p: f"{p.tokens.chars:,}", lambda p: p.tokens.chars, "Characters", numeric=True),
    Column("Estimate", lambda p: f"{p.estimate:,}", lambda p: p.estimate, _ESTIMATE_TIP, numeric=True),
    Column("cl100k", lambda p: _exact(p.tokens, CL100K), tip="Exact count with tiktoken cl100k_base", numeric=True),
    Column("o200k", lambda p: _exact(p.tokens, O200K), tip="Exact count with tiktoken o200k_base", numeric=True),
)


def counts_text(counts: TokenCounts, estimate: int) -> str:
    """``314 characters · upstream estimate 78 · cl100k_base 70 · o200k_base 69`` (exact counts when known)."""
    exact = [f"{name} {value:,}" for name in (CL100K, O200K) if (value := counts.get(name)) is not None]
    return " \u00b7 ".join([f"{counts.chars:,} characters", f"upstream estimate {estimate:,}", *exact])


def part_text(part: PromptPart) -> str:
    """A part in one plain line: what it is, where it comes from, its span and counts, its note."""
    title = PART_TITLES.get(part.name, part.name)
    line = f"{title}: from {part.source}; characters {part.span[0]:,}\u2013{part.span[1]:,}; "
    line += counts_text(part.tokens, part.estimate)
    return line + (f"; {part.note}" if part.note else "")


def prompt_summary(prompt: WorkerPrompt) -> str:
    """One plain line: which context the prompt uses and what it costs, or why there is none."""
    where = f"{prompt.feature} / {prompt.task_id}"
    if prompt.error is not None:
        return f"{where}: upstream raises while composing this prompt ({prompt.error}); the worker's task fails."
    return f"{where}: uses the {prompt.uses}; {counts_text(prompt.tokens, prompt.estimate)}."


def design_lines(prompt: WorkerPrompt) -> list[str]:
    """The design-time context beside the plugin's, as plain lines (none without one)."""
    design = prompt.design
    if design is None:
        return []
    now = counts_text(design.plugin, design.plugin_estimate)
    return [
        f"Stored in the task graph at design time: {counts_text(design.stored, design.stored_estimate)}.",
        f"What profile {design.profile} assembles for this task now: {now}"
        + (" (identical)." if design.identical else " (differs: the worker gets the stored one)."),
        f"The design step's guidance for a task's context: about {design.guidance_tokens:,} tokens "
        f"(~{design.guidance_chars:,} characters).",
    ]


def design_diff(prompt: WorkerPrompt) -> str:
    """A line diff from the stored design-time context to the plugin's context now ('' when equal or none)."""
    design = prompt.design
    stored = prompt.part(up.TASK_CONTEXT)
    if design is None or stored is None or design.identical:
        return ""
    old = stored.text.split("\n", 1)[1] if "\n" in stored.text else ""  # without upstream's heading
    lines = difflib.unified_diff(
        old.splitlines(),
        design.plugin_text.splitlines(),
        "stored context (task graph)",
        f"{design.profile} now",
        lineterm="",
    )
    return "\n".join(lines)


def render_export(prompt: WorkerPrompt, fmt: str) -> str:
    """The text an export writes: ``text`` is exactly the prompt, ``json`` the CLI's ``prompt --format json``."""
    if fmt == "text":
        return prompt.text
    if fmt == "json":
        return json.dumps(prompt.to_json(), ensure_ascii=False, indent=2) + "\n"
    raise ValueError(f"unknown prompt export format {fmt!r}: use one of {', '.join(EXPORT_SUFFIXES.values())}")


def export_prompt(prompt: WorkerPrompt, path: str, fmt: str | None = None) -> str:
    """Write *prompt* to *path* atomically as *fmt* (default: from the suffix); returns the format used.

    Raises ``ValueError`` for an unknown format or suffix and ``WriteError`` when the file
    cannot be written; nothing is written for a prompt upstream cannot compose.
    """
    used = fmt or EXPORT_SUFFIXES.get(Path(path).suffix.lower())
    if used is None:
        raise ValueError(f"{path}: name a .txt (the prompt) or .json (its parts) file")
    if prompt.error is not None and used == "text":
        raise ValueError(f"upstream cannot compose this prompt ({prompt.error}): there is no text to write")
    atomic_write(path, render_export(prompt, used))
    return used


class PromptView(QWidget):
    """The worker's prompt for the current task: parts table, highlighted text, design-time comparison.

    Feed it with :meth:`show_prompt`.  ``partShown`` carries the name of a part marked
    in the text; ``exportFinished`` carries the path written and '' (or the reason it
    was not).
    """

    partShown = Signal(str)
    exportFinished = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._prompt: WorkerPrompt | None = None
        self._offsets = OffsetMap(())
        self._tints: list[QTextEdit.ExtraSelection] = []
        self._focus: QTextEdit.ExtraSelection | None = None
        self.export_dir = str(Path.home())

        self.summary = QLabel("The prompt the worker receives appears here once a task is assembled.", self)
        self.summary.setObjectName("promptSummary")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.notes = QLabel("", self)
        self.notes.setObjectName("promptNotes")
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.notes.setWordWrap(True)
        self.notes.hide()
        self.copy_button = QPushButton("Copy prompt", self)
        self.copy_button.setToolTip(
            "Copy exactly the prompt the worker receives (its project memory is separate: the Window panel)"
        )
        self.copy_button.clicked.connect(self.copy_prompt)
        self.export_button = QPushButton("Export\u2026", self)
        self.export_button.setToolTip("Write the prompt (.txt, exactly the text) or its parts and counts (.json)")
        self.export_button.clicked.connect(self.export_dialog)
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.copy_button)
        top.addWidget(self.export_button)

        self.model = RecordModel(PART_COLUMNS, self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setToolTip("Click a part to mark it in the prompt")
        self.table.clicked.connect(self._on_row)
        self.table.activated.connect(self._on_row)
        install_table_actions(self.table)  # Ctrl+C and the row menu, as every table of the window
        #: The marked part in full: its source (elided in the table), counts and note.
        self.part_label = QLabel("", self)
        self.part_label.setObjectName("promptPart")
        self.part_label.setTextFormat(Qt.TextFormat.PlainText)
        self.part_label.setWordWrap(True)

        fixed = fixed_pitch_font()
        self.editor = QPlainTextEdit(self)
        self.editor.setObjectName("promptText")
        self.editor.setReadOnly(True)
        self.editor.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.editor.setFont(fixed)
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.highlighter = MarkdownHighlighter(self.editor.document(), is_dark(self.palette()))

        self.design_label = QLabel("", self)
        self.design_label.setTextFormat(Qt.TextFormat.PlainText)
        self.design_label.setWordWrap(True)
        self.diff = QPlainTextEdit(self)
        self.diff.setObjectName("designDiff")
        self.diff.setReadOnly(True)
        self.diff.setFont(fixed)
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        design_page = QWidget(self)
        dlay = QVBoxLayout(design_page)
        dlay.setContentsMargins(4, 4, 4, 4)
        dlay.addWidget(self.design_label)
        dlay.addWidget(self.diff, 1)

        self.pages = QTabWidget(self)
        self.pages.setDocumentMode(True)
        self.pages.addTab(self.editor, "Prompt")
        self.design_index = self.pages.addTab(design_page, "Design-time context vs plugin")
        self.pages.setTabToolTip(
            self.design_index,
            "The context the design step stored in the task graph (what the worker gets) beside what the "
            "plugin assembles for the task now",
        )
        self.pages.setTabVisible(self.design_index, False)

        upper = QWidget(self)
        ulay = QVBoxLayout(upper)
        ulay.setContentsMargins(0, 0, 0, 0)
        ulay.addWidget(self.table, 1)
        ulay.addWidget(self.part_label)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(upper)
        splitter.addWidget(self.pages)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([230, 470])  # the table shows six parts or so; the text has the rest
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.notes)
        layout.addWidget(splitter, 1)
        self.show_prompt(None)

    # -- content -------------------------------------------------------------------------

    def prompt(self) -> WorkerPrompt | None:
        return self._prompt

    def show_prompt(self, prompt: WorkerPrompt | None, lexed: LexedText | None = None) -> None:
        """Show *prompt* (None: nothing yet).  *lexed* is its text lexed off the GUI thread, if at hand."""
        self._prompt = prompt
        self._focus = None
        self.part_label.setText("Click a part to mark it in the prompt." if prompt is not None and prompt.parts else "")
        self.model.set_rows(prompt.parts if prompt is not None else ())
        has_text = prompt is not None and prompt.error is None
        self.copy_button.setEnabled(has_text)
        self.export_button.setEnabled(prompt is not None)
        if prompt is None:
            self.summary.setText("The prompt the worker receives appears here once a task is assembled.")
            self.summary.setToolTip("")
        else:
            self.summary.setText(prompt_summary(prompt))
            self.summary.setToolTip(
                plain_tip(
                    "The prompt upstream's worker composes for this task (ProtocolHandler._build_task_prompt): "
                    "the task's design-time context, else the feature's spec, then the task's header, "
                    "description, files, verification and instructions"
                )
            )
        notes = list(prompt.notes) if prompt is not None else []
        self.notes.setText("\n".join(f"Note: {n}" for n in notes))
        self.notes.setVisible(bool(notes))
        text = display_text(prompt.text) if prompt is not None else ""
        if lexed is None or lexed.text != text:
            lexed = lex_blocks(text) if text else None
        self._offsets = OffsetMap.of(text)
        self.highlighter.set_lexed(lexed)
        self.editor.setPlainText(text)
        self.editor.setPlaceholderText(
            "Upstream raises while composing this prompt: the worker's task fails before any model is called."
            if prompt is not None and prompt.error is not None
            else "The prompt the worker receives appears here."
        )
        self._tints = self._part_tints()
        self._apply_selections()
        self._show_design(prompt)
        self.table.resizeColumnsToContents()

    def _show_design(self, prompt: WorkerPrompt | None) -> None:
        lines = design_lines(prompt) if prompt is not None else []
        self.pages.setTabVisible(self.design_index, bool(lines))
        self.design_label.setText("\n".join(lines))
        diff = design_diff(prompt) if prompt is not None else ""
        self.diff.setPlainText(diff)
        self.diff.setPlaceholderText("No difference." if lines else "")
        self.diff.setExtraSelections(self._diff_marks(diff))

    def _diff_marks(self, diff: str) -> list[QTextEdit.ExtraSelection]:
        dark = is_dark(self.palette())
        colours = {"+": "#1e3a24" if dark else "#e6f6e6", "-": "#3d2024" if dark else "#fbe9eb"}
        marks = []
        block = self.diff.document().firstBlock()
        while block.isValid():
            line = block.text()
            colour = colours.get(line[:1]) if not line.startswith(("+++", "---")) else None
            if colour is not None:
                sel = QTextEdit.ExtraSelection()
                fmt = QTextCharFormat()
                fmt.setBackground(QColor(colour))
                fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
                sel.format = fmt
                sel.cursor = QTextCursor(block)
                marks.append(sel)
            block = block.next()
        return marks

    def changeEvent(self, event: QEvent) -> None:
        # Follow a light/dark switch: token colours, part tints, diff marks.
        if event.type() == QEvent.Type.PaletteChange:
            self.highlighter.set_dark(is_dark(self.palette()))
            self._tints = self._part_tints()
            marked = self._focus.format.property(_PART_PROPERTY) if self._focus is not None else None
            part = self._prompt.part(marked) if self._prompt is not None and isinstance(marked, str) else None
            self._focus = self._mark_selection(part) if part is not None else None
            self._apply_selections()
            self.diff.setExtraSelections(self._diff_marks(self.diff.toPlainText()))
        super().changeEvent(event)

    def _part_tints(self) -> list[QTextEdit.ExtraSelection]:
        if self._prompt is None:
            return []
        spans = [part.span for part in self._prompt.parts]
        return part_tints(self.editor.document(), self._offsets, spans, is_dark(self.palette()))

    def _cursor(self, start: int, end: int) -> QTextCursor:
        return span_cursor(self.editor.document(), self._offsets, start, end)

    def _apply_selections(self) -> None:
        self.editor.setExtraSelections([*self._tints, *([self._focus] if self._focus is not None else [])])

    # -- navigation ----------------------------------------------------------------------

    def show_part(self, name: str) -> bool:
        """Mark part *name* in the text, select its row and scroll to it; False when the prompt has none."""
        prompt = self._prompt
        part = prompt.part(name) if prompt is not None else None
        if prompt is None or part is None:
            return False
        row = prompt.parts.index(part)
        self.table.selectionModel().setCurrentIndex(
            self.model.index(row, 0),
            QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
        )
        self._mark(part)
        return True

    def _on_row(self, index: QModelIndex) -> None:
        part = index.data(RowRole)
        if isinstance(part, PromptPart):
            self._mark(part)

    def _mark(self, part: PromptPart) -> None:
        self.pages.setCurrentWidget(self.editor)
        self._focus = self._mark_selection(part)
        self._apply_selections()
        self.part_label.setText(part_text(part))
        cursor = self._focus.cursor
        end = QTextCursor(cursor)
        end.setPosition(cursor.selectionEnd())
        self.editor.setTextCursor(end)  # scroll the end into view, then the start
        start = QTextCursor(cursor)
        start.setPosition(cursor.selectionStart())
        self.editor.setTextCursor(start)
        self.editor.ensureCursorVisible()
        self.partShown.emit(part.name)

    def _mark_selection(self, part: PromptPart) -> QTextEdit.ExtraSelection:
        sel = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(_MARK[1 if is_dark(self.palette()) else 0]))
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
        fmt.setProperty(_PART_PROPERTY, part.name)
        sel.format = fmt
        sel.cursor = self._cursor(*part.span)
        return sel

    def marked_text(self) -> str:
        """The document text of the marked part (as displayed; Qt shows a line break as U+2029)."""
        return self._focus.cursor.selectedText() if self._focus is not None else ""

    # -- copy and export -----------------------------------------------------------------

    def copy_prompt(self) -> None:
        prompt = self._prompt
        if prompt is not None and prompt.error is None:
            QGuiApplication.clipboard().setText(prompt.text)

    def export_dialog(self) -> None:
        prompt = self._prompt
        if prompt is None:
            return
        suffix = ".json" if prompt.error is not None else ".txt"
        name = safe_file_name(f"{prompt.task_id}.prompt", "prompt") + suffix
        filters = "Prompt text (*.txt);;Prompt parts and counts (*.json)"
        chosen = "Prompt parts and counts (*.json)" if suffix == ".json" else "Prompt text (*.txt)"
        default = str(Path(self.export_dir) / name)
        path, picked = QFileDialog.getSaveFileName(self, "Export prompt", default, filters, chosen)
        if not path:
            return
        if Path(path).suffix.lower() not in EXPORT_SUFFIXES:
            path += ".json" if "json" in picked else ".txt"
        self.export_dir = str(Path(path).parent)
        self.export_to(path)

    def export_to(self, path: str, fmt: str | None = None) -> str:
        """Write the shown prompt to *path* (see :func:`export_prompt`); returns '' or why not, and signals it."""
        prompt = self._prompt
        if prompt is None:
            error = "nothing to export yet"
        else:
            try:
                export_prompt(prompt, path, fmt)
                error = ""
            except Exception as exc:  # ValueError, WriteError: said, never raised into Qt
                error = str(exc)
        self.exportFinished.emit(path, error)
        return error

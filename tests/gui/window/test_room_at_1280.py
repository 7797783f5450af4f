"""What can be read at 1280x800 without dragging anything: measured widths, not pictures.

Each table's column priorities: the paragraphs' file name and the first words of their reason,
a setting's whole key, a signal's source; tab titles whole; the candidate tables keep their
rows when the Why pane opens below them; the Project pane shows task ids.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QTableView

from ctxviewer.gui.views.outline import task_label
from ctxviewer.gui.window import MainWindow
from ctxviewer.gui.window.tabs import TABLE_ROWS
from tests.gui.conftest import LEDGER, open_and_wait

#: What a cell adds around its text (margins and the focus frame), in pixels.
PADDING = 8


def column(view: QTableView, header: str) -> int:
    model = view.model()
    for c in range(model.columnCount()):
        if model.headerData(c, Qt.Orientation.Horizontal) == header:
            return c
    raise AssertionError(f"no column {header!r}")


def texts(view: QTableView, c: int) -> list[str]:
    model = view.model()
    return [str(model.index(r, c).data() or "") for r in range(model.rowCount())]


def room(view: QTableView, c: int) -> int:
    """The pixels a column's text gets: its width, clipped by the viewport's right edge."""
    return min(view.columnWidth(c), view.viewport().width() - view.columnViewportPosition(c)) - PADDING


def test_tab_titles_are_never_shortened(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_and_wait(qtbot, window, LEDGER)
    bar = window.tabs.tabBar()
    assert bar.elideMode() == Qt.TextElideMode.ElideNone and bar.usesScrollButtons()
    metrics = bar.fontMetrics()
    for index in range(bar.count()):
        assert bar.tabRect(index).width() >= metrics.horizontalAdvance(bar.tabText(index)), bar.tabText(index)


def test_paragraphs_show_the_file_name_and_the_reason_s_first_words(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    window.tabs.show_tab("paragraphs")
    table = window.tabs.paragraphs
    qtbot.waitUntil(lambda: not table._fit_pending)
    view, metrics = table.view, table.view.fontMetrics()
    files = column(view, "File")
    assert max(map(metrics.horizontalAdvance, texts(view, files))) <= room(view, files)
    reason = column(view, "Reason")
    for text in texts(view, reason):
        first = " ".join(text.split()[:3])  # "rank 23, only", "score 0: no"
        assert metrics.horizontalAdvance(first) <= room(view, reason), text


def test_a_setting_s_key_is_read_whole(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    window.tabs.show_tab("task")
    table = window.tabs.task.settings
    qtbot.waitUntil(lambda: not table._fit_pending)
    view = table.view
    keys = column(view, "Setting")
    widest = max(texts(view, keys), key=view.fontMetrics().horizontalAdvance)
    assert view.fontMetrics().horizontalAdvance(widest) <= room(view, keys), widest


def test_a_signal_s_source_is_read(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    window.tabs.show_tab("computed")
    QApplication.processEvents()
    view = window.tabs.computed.signals.view
    sources = column(view, "From")
    # Every source's first word ("title", "description", "files.create:") is whole.
    firsts = {text.split(";")[0].split()[0] for text in texts(view, sources)}
    assert {"title", "description"} <= firsts
    for first in firsts:
        assert view.fontMetrics().horizontalAdvance(first) <= room(view, sources), first


def test_the_why_pane_leaves_the_table_its_rows(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    window.tabs.show_tab("paragraphs")
    window.docks.search.field.setText("password")
    qtbot.waitUntil(window.docks.search_dock.isVisible)
    QApplication.processEvents()
    view = window.tabs.paragraphs.view
    rows = view.viewport().height() // view.verticalHeader().defaultSectionSize()
    assert rows >= TABLE_ROWS
    assert window.docks.search_dock.height() >= 100  # and the Why pane has room of its own
    # Every tab's minimum, the Why pane's and the bars' fit 800 pixels below a 40-pixel title bar.
    assert window.minimumSizeHint().height() <= 760


def test_the_project_pane_shows_task_ids_and_the_start_of_titles(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    outline = window.docks.outline
    assert window.docks.outline_dock.width() >= 240
    tree = outline.tree
    feature = outline.proxy.index(0, 0)
    first = outline.proxy.index(0, 0, feature)
    label = str(first.data())
    assert label == task_label("AUTH-L1-001", "Upgrade password hashing with rehash support")
    task_id, title = label.split("\n", 1)
    text_room = tree.visualRect(first).width() - tree.iconSize().width() - PADDING
    assert tree.fontMetrics().horizontalAdvance(task_id) <= text_room
    assert tree.fontMetrics().horizontalAdvance(" ".join(title.split()[:2])) <= text_room

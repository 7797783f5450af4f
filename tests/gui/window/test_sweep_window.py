"""The window's Feature Sweep: opened from the Run menu on the shown feature; a click on a cell
shows that task at that cell's budget, through the Budget panel (so it can be undone)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from ctxviewer.gui.window import MainWindow
from tests.conftest import SAMPLES
from tests.gui.conftest import open_and_wait

STOREFRONT = SAMPLES / "storefront-web"


def test_a_cell_opens_its_task_at_its_budget(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_and_wait(qtbot, window, STOREFRONT, "cart-checkout", "CHK-L1-001")
    qtbot.waitUntil(window.is_settled, timeout=30_000)
    run_menu = next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "Run")
    action = next(a for a in run_menu.actions() if a.text().replace("&", "").startswith("Feature Sweep"))
    action.trigger()
    dialog = window.sweeps.dialog
    assert dialog is not None and dialog.isVisible()
    view = dialog.view
    assert view.chosen_feature() == "cart-checkout"
    view.budgets.setText("1000:2000:1000")
    with qtbot.waitSignal(view.sweepShown, timeout=30_000) as blocker:
        view.run_button.click()
    sweep = blocker.args[0]
    row = next(n for n, t in enumerate(sweep.tasks) if t.task == "CHK-L2-003")
    qtbot.waitExposed(view.heatmap)
    undo_before = window.docks.budget.undo_stack.count()
    with qtbot.waitSignal(window.traceShown, timeout=30_000, check_params_cb=lambda t: t.task_id == "CHK-L2-003"):
        qtbot.mouseClick(view.heatmap, Qt.MouseButton.LeftButton, pos=view.heatmap.cell_center(row, 1).toPoint())
    assert window.trace is not None and (window.trace.task_id, window.trace.budget) == ("CHK-L2-003", 2000)
    assert window.docks.budget.undo_stack.count() == undo_before + 1  # one undoable change
    assert window.trace.context_tokens.get(window.trace.tokenizer) == sweep.cell(row, 1).tokens
    window.sweeps.show()  # again: the same window, the feature kept
    assert window.sweeps.dialog is dialog and view.chosen_feature() == "cart-checkout"
    qtbot.waitUntil(window.is_settled, timeout=30_000)

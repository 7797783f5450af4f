"""The lines that describe the shown task: the header, the findings line and the Budget panel's summary.

Every name in them is the project's and is escaped: the markup is ours, the names are text
(docs/security.md).  See docs/gui.md.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from ctxviewer.engine.runs.session import SessionReplay
from ctxviewer.engine.trace.model import RULE_FILE, SPEC_PARAGRAPH, Trace
from ctxviewer.gui.views.findings_view import FindingRow, findings_line
from ctxviewer.gui.widgets.labels import WrappedLabel
from ctxviewer.gui.widgets.versions import upstream_line, upstream_why


def header_html(trace: Trace) -> str:
    """The header's lines: task id and title; feature, profile, context against budget, exact counts;
    for upstream's pipelines, which version it reproduces and why that one."""
    used = trace.context_tokens.get(trace.tokenizer)
    used_text = "n/a" if used is None else f"{used:,}"
    exact = [
        f"{name} {value:,}"
        for name in ("cl100k_base", "o200k_base")
        if (value := trace.context_tokens.get(name)) is not None
    ]
    over = ' <span style="color:#d32f2f"><b>over budget</b></span>' if trace.over_budget else ""
    e = html.escape  # the markup is ours; every name in it is the project's, shown as text
    return (
        f"<span style='font-size:13pt'><b>{e(trace.task_id)}</b> {e(trace.task_title)}</span><br>"
        f"feature <b>{e(trace.feature)}</b> \u00b7 profile {e(trace.profile)} \u00b7 plugin context "
        f"<b>{used_text}</b> of {trace.budget:,} {e(trace.tokenizer)} tokens{over}"
        f" \u00b7 exact: {', '.join(exact) or 'n/a'}"
        + (f"<br>{e(upstream_line(trace, with_profile=False, with_why=False))}" if trace.upstream else "")
        + (f"<br>{e(worker_line(trace))}" if trace.worker is not None else "")
    )


def worker_line(trace: Trace) -> str:
    """What this task's worker session receives, in a sentence (docs/worker-window.md)."""
    assert trace.worker is not None
    summary = trace.worker.summary()
    return summary[0].upper() + summary[1:] + " (the Window panel shows each block)."


def header_tooltip(trace: Trace) -> str:
    why = f"\n\nWhy this version: {upstream_why(trace)}.\n{trace.upstream_reason}" if trace.upstream else ""
    return (
        f"plugin context: size of the plugin's assembled context in {trace.tokenizer} tokens (the tokenizer "
        f"the pipeline decides with) against the task budget of {trace.budget:,}; exact: the same text "
        "counted with tiktoken's cl100k_base and o200k_base encodings. The last line says what the "
        "task's worker session really starts with: Claude Code's project memory and the prompt." + why
    )


class TaskHeader(WrappedLabel):
    """The shown task's header (rich text of our own; before a task, what to do first)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("taskHeader")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setText("Open a project folder (Ctrl+O) or drop one here.")

    def show_trace(self, trace: Trace) -> None:
        self.setText(header_html(trace))
        self.setToolTip(header_tooltip(trace))

    def show_no_task(self, project_name: str) -> None:
        self.setText(
            f"<b>{html.escape(project_name)}</b>: no task to show \u2014 no feature has a readable task graph."
        )


class FindingsLine(WrappedLabel):
    """One line under the header naming the task's findings; hidden when it has none.

    Its link (``linkActivated``) is the click that opens the Findings tab.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("taskFindings")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setToolTip("What ctxviewer found in this task's context; click to list the findings")
        self.hide()

    def set_rows(self, rows: tuple[FindingRow, ...], dark: bool) -> None:
        """Name *rows* (coloured for a *dark* palette or a light one), or hide the line."""
        line = findings_line(rows, dark)
        self.setText(line)
        self.setVisible(bool(line))


def effect_lines(trace: Trace | None, replay: SessionReplay | None) -> list[str]:
    """What the settings do to *trace*'s task and, with its feature's *replay*, to the feature.

    Rich-text sentences for the Budget panel: the context against the budget with what
    went in, the tracker after this task alone, and where the replay says the worker must
    checkpoint (a replay of another feature is left out).  No lines without a trace.
    """
    if trace is None:
        return []
    used = trace.context_tokens.get(trace.tokenizer) or 0
    kept = sum(1 for i in trace.items_of(SPEC_PARAGRAPH) if i.status in ("included", "truncated"))
    rules = sum(1 for i in trace.items_of(RULE_FILE) if i.status in ("included", "truncated"))
    share = f"{100 * used / trace.budget:.0f}%" if trace.budget else "n/a"
    over = " \u2014 <b>over budget</b>" if trace.over_budget else ""
    e = html.escape  # the panel's label is rich text: project names escaped
    lines = [
        f"<b>{e(trace.task_id)}</b>: context <b>{used:,}</b> of {trace.budget:,} {e(trace.tokenizer)} tokens "
        f"({share}){over}; {kept} spec paragraph(s) and {rules} rule file(s) in, "
        f"{len(trace.trim_steps)} trim step(s).",
        f"Tracker after this task alone: {trace.tracker.usage_percent:.1f}% of "
        f"{trace.tracker.max_tokens:,} (checkpoint at {trace.tracker.threshold_percent:g}%; the task and "
        "its reads only, no tool calls or minutes \u2014 the replay adds those).",
    ]
    if replay is not None and replay.feature == trace.feature:
        if replay.first_checkpoint is None:
            last = replay.steps[-1].usage_percent if replay.steps else 0.0
            lines.append(
                f"Replaying <b>{e(replay.feature)}</b>: no checkpoint in {len(replay.steps)} task(s), "
                f"ending at {last:.1f}%."
            )
        else:
            step = replay.steps[replay.first_checkpoint]
            lines.append(
                f"Replaying <b>{e(replay.feature)}</b>: the worker must checkpoint after task "
                f"{step.index + 1} of {len(replay.steps)} ({e(step.task_id)}, {step.usage_percent:.1f}%)."
            )
    return lines

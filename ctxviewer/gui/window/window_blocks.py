"""Where a block of the Window panel leads: a double click (or Enter) on one shows what it is.

Project memory opens the Memory tab (each file and its text), the prompt the Prompt tab (each
part), the conversation the Tracker (the estimate it comes from); a size that is stated or
set rather than counted (Claude Code's system prompt, its tools, memory outside the project,
the response reserve, a base prompt or command file) shows its setting selected in the Task
tab, with its value and where the value came from.  See docs/gui.md.
"""

from __future__ import annotations

from collections.abc import Callable

from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui.window.docks import DockPanels
from ctxviewer.gui.window.tabs import ResultTabs

#: The setting behind each block whose size is stated or set, by the block's name.
BLOCK_SETTINGS = {
    "system_prompt": "system_prompt_tokens",
    "tools": "tool_tokens",
    "user_memory": "user_memory_tokens",
    "reserve": "reserve_percent",
    "command": "window_command",
}


def block_setting(name: str, trace: Trace | None) -> str | None:
    """The setting of the Task tab that block *name* comes from (None: a block of its own view)."""
    if name == "base_prompt":
        named = trace.settings.get("base_prompt") if trace is not None else None
        return "base_prompt" if named is not None and named.value else "base_prompt_tokens"
    return BLOCK_SETTINGS.get(name)


def go_to_block(name: str, tabs: ResultTabs, docks: DockPanels, say: Callable[[str, int], None]) -> None:
    """Show what the Window panel's block *name* is (see the module's text)."""
    if name == "memory":
        tabs.show_tab("memory")
        return
    if name == "prompt":
        tabs.show_tab("prompt")
        return
    if name == "conversation":
        docks.show_panel("tracker")
        return
    key = block_setting(name, tabs.trace)
    if key is None:
        say(f"the block {name} has no view of its own", 4000)
        return
    tabs.show_tab("task")
    if not tabs.task.settings.select(lambda row: row[0] == key):
        say(f"this run has no setting {key}", 4000)

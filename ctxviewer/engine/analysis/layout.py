"""The worker's whole context window as a column of blocks, to scale.

Top to bottom: what the worker's session starts with (Claude Code's system prompt and
tool definitions and memory outside the project, as stated sizes; the project memory it
loads; the task's prompt), a base prompt file and a command file only where settings name
them (upstream's worker loads no command), the ContextTracker's conversation estimate and
the response reserve; against the checkpoint and compaction thresholds.  See
docs/worker-window.md and docs/computed-context.md.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from ctxviewer.engine.files.reading import OutsideRootError, ProjectFS
from ctxviewer.engine.project import splitter
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.signals.spec import LRU
from ctxviewer.engine.tokens.counting import Census, TokenCounts
from ctxviewer.engine.trace.model import (
    ESTIMATE_BLOCK,
    MEMORY_BLOCK,
    PROMPT_BLOCK,
    ReceivedBlock,
    TrackerState,
    WindowBlock,
    WindowLayout,
    WorkerWindow,
)

#: Command stems tried, in order, when ``window.command`` is not set.
WORKER_COMMANDS = ("worker", "kurukshetra", "rush")

_measured = LRU(64)


def _size(counts: TokenCounts) -> int:
    return counts.cl100k_base if counts.cl100k_base is not None else counts.heuristic


def _read(fs: ProjectFS, rel: str, census: Census) -> tuple[str | None, TokenCounts | None, str]:
    """(text, counts, problem) of a project file, measured once per version of it."""
    try:
        stat = fs.lstat(rel)
    except OutsideRootError as exc:
        return None, None, f"{rel}: {exc.why}"
    key = (str(fs.root), rel, census.encodings, None if stat is None else (stat.st_size, stat.st_mtime_ns))
    hit = _measured.get(key)
    if hit is not None:
        return hit  # type: ignore[no-any-return]
    read = fs.read_text(rel)
    if read.text is None:
        out: tuple[str | None, TokenCounts | None, str] = (None, None, read.describe())
    else:
        out = (read.text, census.measure(read.text), "")
    _measured.put(key, out)
    return out


def find_command(fs: ProjectFS, settings: Settings) -> tuple[str | None, str]:
    """The worker's command file and how it was chosen."""
    base = settings.paths.commands
    if settings.window_command:
        rel = f"{base}/{settings.window_command}"
        return rel, f"window.command: {settings.window_command}"
    files = [
        f
        for f in fs.walk_files(base, ".md")
        if ".core.md" not in PurePosixPath(f).name and ".details.md" not in PurePosixPath(f).name
    ]
    for stem in WORKER_COMMANDS:
        for rel in sorted(files):
            if PurePosixPath(rel).stem == stem:
                return rel, f"the first of {', '.join(WORKER_COMMANDS)} in {base} (set window.command to choose)"
    return None, f"no {', '.join(WORKER_COMMANDS)} command in {base}; set window.command"


def _base_block(fs: ProjectFS, settings: Settings, census: Census) -> WindowBlock:
    if settings.base_prompt:
        text, counts, problem = _read(fs, settings.base_prompt, census)
        if counts is not None and text is not None:
            return WindowBlock(
                "base_prompt", "Base prompt", _size(counts), counts.heuristic, counts.cl100k_base, settings.base_prompt
            )
        n = settings.base_prompt_tokens
        return WindowBlock(
            "base_prompt", "Base prompt", n, n, None, "window.base_prompt_tokens", f"{problem}; assumed {n:,} tokens"
        )
    n = settings.base_prompt_tokens
    return WindowBlock(
        "base_prompt",
        "Base prompt",
        n,
        n,
        None,
        "window.base_prompt_tokens",
        "assumed: a worker's identity, guidelines and security prompt take about 300 tokens; "
        "set window.base_prompt to count a file",
    )


def _command_block(fs: ProjectFS, settings: Settings, census: Census) -> WindowBlock:
    rel, how = find_command(fs, settings)
    if rel is None:
        return WindowBlock("command", "Command", 0, 0, None, "", how)
    text, counts, problem = _read(fs, rel, census)
    if text is None or counts is None:
        return WindowBlock("command", "Command", 0, 0, None, rel, f"{problem} ({how})")
    core_rel = str(PurePosixPath(rel).with_name(PurePosixPath(rel).stem + ".core.md"))
    core_text, core_counts, _ = _read(fs, core_rel, census) if fs.lstat(core_rel) is not None else (None, None, "")
    full = _size(counts)
    if core_text is not None and core_counts is not None:
        size = _size(core_counts)
        note = f"loads {core_rel} ({size:,} of {full:,} tokens; saves {full - size:,}); {how}"
        return WindowBlock(
            "command", "Command (core)", size, core_counts.heuristic, core_counts.cl100k_base, core_rel, note, full
        )
    analysis = splitter.analyze_text(rel, text, census)
    if analysis.eligible:
        would = _size(analysis.core_tokens)
        note = (
            f"not split: loads the whole file; a split would load {would:,} tokens and save {full - would:,}"
            f"{'' if settings.command_splitting else ' (command_splitting is off)'}; {how}"
        )
    else:
        note = f"{analysis.lines} lines, under the splitter's {splitter.MIN_LINES_TO_SPLIT}: loaded whole; {how}"
    return WindowBlock("command", "Command (full)", full, counts.heuristic, counts.cl100k_base, rel, note, full)


def _summed(name: str, title: str, blocks: tuple[ReceivedBlock, ...], source: str, note: str) -> WindowBlock:
    """One block standing for several of the worker window's: their sizes, estimates and exact counts added."""
    exact = [b.tokens.cl100k_base for b in blocks]
    return WindowBlock(
        name,
        title,
        sum(b.size for b in blocks),
        sum(b.tokens.heuristic for b in blocks),
        None if None in exact else sum(e for e in exact if e is not None),
        source,
        note,
    )


def _received_blocks(worker: WorkerWindow) -> list[WindowBlock]:
    """The worker window's blocks, one per stated part, one for project memory, one for the prompt."""
    short = {"system_prompt": "System prompt", "tools": "Tool definitions", "user_memory": "User memory"}
    out = [
        WindowBlock(b.name, short.get(b.name, b.title), b.size, b.size, None, b.source, f"stated: {b.title}, {b.note}")
        for b in worker.blocks
        if b.kind == ESTIMATE_BLOCK
    ]
    memory = worker.loaded(MEMORY_BLOCK)
    files = ", ".join(b.name for b in memory[:4]) + (f" and {len(memory) - 4} more" if len(memory) > 4 else "")
    title = f"Project memory ({len(memory)} file{'s' if len(memory) != 1 else ''})"
    note = files or "no memory file loads for this task"
    out.append(_summed("memory", title, memory, "CLAUDE.md, .claude/rules/**, imports", note))
    parts = worker.loaded(PROMPT_BLOCK)
    uses = {"task context": "design-time context", "spec context": "spec fallback"}.get(
        worker.prompt_uses, "no context"
    )
    note = worker.prompt_error or f"{len(parts)} parts, {worker.prompt_chars:,} characters"
    out.append(_summed("prompt", f"Prompt ({uses})", parts, "ProtocolHandler._build_task_prompt", note))
    return out


def window_layout(
    fs: ProjectFS, settings: Settings, worker: WorkerWindow, tracker: TrackerState, census: Census
) -> WindowLayout:
    """The task's place in the worker's whole window."""
    window = settings.max_context_tokens
    reserve = int(window * settings.reserve_percent / 100)
    blocks = _received_blocks(worker)
    if settings.base_prompt:
        blocks.append(_base_block(fs, settings, census))
    if settings.window_command:
        blocks.append(_command_block(fs, settings, census))
    blocks += [
        WindowBlock(
            "conversation",
            "Conversation (tracker)",
            tracker.estimated_tokens,
            tracker.estimated_tokens,
            None,
            "the worker's context tracker's own estimate",
            f"{tracker.tasks_executed} task(s) x 500 + {tracker.files_read} file read(s)",
        ),
        WindowBlock(
            "reserve",
            "Response reserve",
            reserve,
            reserve,
            None,
            "window.reserve_percent",
            f"{settings.reserve_percent:g}% of the window kept free for the response",
        ),
    ]
    zones = dict(settings.all_zones)
    zones.setdefault("compaction", settings.compaction_percent)  # a "compaction" zone wins
    thresholds = sorted(zones.items(), key=lambda z: (z[1], z[0]))
    return WindowLayout(window, settings.reserve_percent, tuple(blocks), tuple(thresholds))

"""The worker's window for one task, and for each candidate whether its text reached it.

The blocks, in the order the session is assembled: the parts ctxviewer cannot see (Claude
Code's system prompt and tool definitions, memory outside the project) as stated sizes,
each project memory file (:mod:`.memory`) and the prompt's parts (:mod:`.prompt`).
See docs/worker-window.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache, partial

from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.tokens.counting import Census, TokenCounts
from ctxviewer.engine.trace.model import (
    ESTIMATE_BLOCK,
    MEMORY_BLOCK,
    NOWHERE,
    PROMPT_BLOCK,
    REACHED_MEMORY,
    REACHED_NO,
    REACHED_PROMPT,
    REACHED_PROMPT_PART,
    Item,
    ReceivedBlock,
    WorkerWindow,
    give_paths,
)
from ctxviewer.engine.worker.memory import WORKTREE, MemoryFile, load_memory, task_paths
from ctxviewer.engine.worker.prompt import compose_prompt

#: A candidate's (project file, text) -> (path, how) its text reached the worker's session.
Reach = Callable[[str, str], tuple[str, str]]

#: Where each upstream version puts its workers' worktrees (``constants.py:WORKTREES_DIR``).
WORKTREES: dict[str, str] = {
    "2026-01-30": ".zerg-worktrees",
    "zerg-ai-0.3.2": ".zerg-worktrees",
    "latest": ".mahabharatha-worktrees",
}
#: A line shorter than this is not evidence that a candidate's text is somewhere.
MIN_LINE = 8
#: What the prompt's parts are called where people read them.
PART_TITLES = {
    "task_context": "design-time context",
    "spec_header": "spec fallback header",
    "spec_requirements": "spec fallback: requirements",
    "spec_design": "spec fallback: design",
    "spec_separator": "spec fallback separator",
    "header": "task title",
    "description": "task description",
    "files": "task files",
    "verification": "verification command",
    "instructions": "fixed instructions",
}


def working_folder(feature: Feature, settings: Settings, version: str) -> tuple[str, str]:
    """The session's working folder relative to the project root, and why."""
    choice = settings.worker_folder
    if choice == "root":
        return "", f"worker.folder: root ({settings.origin('worker_folder')})"
    where = WORKTREES.get(version, WORKTREES["latest"])
    worker = settings.worker_id or "0"
    folder = f"{where}/{feature.name}/worker-{worker}"
    number = "" if settings.worker_id else "; worker 0 shown, the number is assigned when the run starts"
    if choice == "worktree":
        return folder, f"worker.folder: worktree ({settings.origin('worker_folder')}){number}"
    return folder, f"upstream {version} runs each worker in a git worktree under {where}/ (worktree.py){number}"


def _stated(name: str, title: str, value: int, key: str, note: str) -> ReceivedBlock:
    return ReceivedBlock(
        ESTIMATE_BLOCK, name, title, f"worker.{key}", "estimate", True, TokenCounts(0, 0), note, "", value
    )


def _estimates(settings: Settings) -> tuple[ReceivedBlock, ...]:
    user = settings.user_memory_tokens
    return (
        _stated(
            "system_prompt",
            "Claude Code system prompt",
            settings.system_prompt_tokens,
            "system_prompt_tokens",
            "not in the project: a stated size (Claude Code's /context has shown 2.6k-6.2k tokens)",
        ),
        _stated(
            "tools",
            "Claude Code tool definitions",
            settings.tool_tokens,
            "tool_tokens",
            "not in the project: a stated size (Claude Code's /context has shown 11.6k-17.6k tokens; "
            "MCP servers add more)",
        ),
        _stated(
            "user_memory",
            "User and managed memory (outside the project)",
            user,
            "user_memory_tokens",
            "~/.claude/CLAUDE.md, ~/.claude/rules/, /etc/claude-code/CLAUDE.md and auto memory on the machine "
            "that runs the workers: "
            + ("a stated size" if user else "none stated (0); set worker.user_memory_tokens if they exist"),
        ),
    )


def _memory_blocks(files: Iterable[MemoryFile], root: str, census: Census, worktree: bool) -> tuple[ReceivedBlock, ...]:
    files = tuple(files)
    texts = [f.framed(root) if f.loaded else f.content for f in files]
    counts = census.measure_many(texts)
    out = []
    for f, text, count in zip(files, texts, counts, strict=True):
        title = f.read_from + (" (import)" if f.kind == "import" else "")
        if worktree:
            title += " [worktree]" if f.origin == WORKTREE else " [main checkout]"
        out.append(ReceivedBlock(MEMORY_BLOCK, f.path, title, f.read_from, f.load, f.loaded, count, f.why, text))
    return tuple(out)


def worker_window(
    project: Project, feature: Feature, task: Task, settings: Settings, census: Census, version: str
) -> WorkerWindow:
    """What the session of *task*'s worker starts with, for the upstream *version* that runs it."""
    folder, reason = working_folder(feature, settings, version)
    files, notes = load_memory(project.fs, task_paths(task.raw), folder, duplicates=settings.memory_duplicates)
    prompt = compose_prompt(project, feature, task, census)
    parts = tuple(
        ReceivedBlock(
            PROMPT_BLOCK,
            p.name,
            f"Prompt: {PART_TITLES.get(p.name, p.name)}",
            p.source,
            "prompt",
            True,
            p.tokens,
            p.note,
            p.text,
        )
        for p in prompt.parts
    )
    memory = _memory_blocks(files, str(project.root), census, bool(folder))
    blocks = (*_estimates(settings), *memory, *parts)
    return WorkerWindow(folder, reason, prompt.uses, prompt.error, blocks, (*notes, *prompt.notes))


@dataclass(frozen=True)
class _Index:
    """The window's lines, for finding a candidate's text in it."""

    memory_files: dict[str, ReceivedBlock]  # project file -> its loaded memory block
    listed: dict[str, ReceivedBlock]  # project file -> a memory block that did not load
    prompt_lines: dict[str, str]  # stripped line -> the prompt part it is first in
    memory_lines: dict[str, str]  # stripped line -> the memory file it is first in
    parts: dict[str, ReceivedBlock]
    part_words: dict[tuple[str, ...], str] = field(default_factory=dict)  # parts -> in words, as found
    #: Every line found in the prompt or a memory file: an item with none of them is in neither.
    seen: frozenset[str] = frozenset()


def _long_lines(text: str) -> tuple[str, ...]:
    """The stripped lines of *text* long enough to count as evidence."""
    return tuple(stripped for line in text.splitlines() if len(stripped := line.strip()) >= MIN_LINE)


#: :func:`_long_lines` of the window's blocks, the same few in every task.
_lines = lru_cache(maxsize=256)(_long_lines)


@lru_cache(maxsize=1 << 15)
def _evidence(text: str) -> tuple[str, ...]:
    """A candidate's evidence: :func:`_long_lines`, or when it has none the whole text stripped
    (nothing for blank text)."""
    lines = _long_lines(text)
    if lines:
        return lines
    stripped = text.strip()
    return (stripped,) if stripped else ()


def _index(window: WorkerWindow) -> _Index:
    memory_files: dict[str, ReceivedBlock] = {}
    listed: dict[str, ReceivedBlock] = {}
    prompt_lines: dict[str, str] = {}
    memory_lines: dict[str, str] = {}
    parts: dict[str, ReceivedBlock] = {}
    for block in window.blocks:
        if block.kind == MEMORY_BLOCK:
            if block.loaded:
                memory_files.setdefault(block.source, block)
                for line in _lines(block.text):
                    memory_lines.setdefault(line, block.name)
            else:
                listed[block.source] = block  # the nearest copy's reason (the worktree's, in a worktree)
        elif block.kind == PROMPT_BLOCK:
            parts[block.name] = block
            for line in _lines(block.text):
                prompt_lines.setdefault(line, block.name)
    seen = frozenset((*prompt_lines, *memory_lines))
    return _Index(memory_files, listed, prompt_lines, memory_lines, parts, seen=seen)


def _part_words(index: _Index, name: str) -> str:
    block = index.parts.get(name)
    words = f"the prompt's {PART_TITLES.get(name, name)}"
    if block is not None and block.note and "cut" in block.note:
        words += f" ({block.note})"
    return words


def _in_parts(index: _Index, parts: tuple[str, ...]) -> str:
    """The prompt parts *parts* in words (each distinct tuple worded once per index)."""
    words = index.part_words.get(parts)
    if words is None:
        words = index.part_words[parts] = ", ".join(_part_words(index, p) for p in parts)
    return words


def reach_of(item: Item, index: _Index) -> tuple[str, str]:
    """(path, how) by which *item*'s text reached the worker's session."""
    return _reach(index, item.source, item.text)


def _reach(index: _Index, source: str, text: str) -> tuple[str, str]:
    """(path, how) by which a candidate's *text*, from the project file *source*, reached the
    worker's session."""
    memory = index.memory_files.get(source)
    if memory is not None:
        how = f"its file loads whole as project memory: {memory.name} ({memory.load.replace('_', ' ')})"
        return REACHED_MEMORY, how
    lines = _evidence(text)
    if lines and not index.seen.isdisjoint(lines):  # most candidates have no line anywhere there
        prompt_lines = index.prompt_lines
        in_prompt = [prompt_lines[line] for line in lines if line in prompt_lines]
        if len(in_prompt) == len(lines):
            return REACHED_PROMPT, "all its lines are in " + _in_parts(index, tuple(dict.fromkeys(in_prompt)))
        memory_lines = index.memory_lines
        in_memory = [memory_lines[line] for line in lines if line in memory_lines]
        if len(in_memory) == len(lines):
            return REACHED_MEMORY, "all its lines are in the memory file " + ", ".join(dict.fromkeys(in_memory))
        if in_prompt:
            parts = _in_parts(index, tuple(dict.fromkeys(in_prompt)))
            return REACHED_PROMPT_PART, f"{len(in_prompt)} of its {len(lines)} lines are in {parts}"
    listed = index.listed.get(source)
    if listed is not None:
        return REACHED_NO, f"its file {listed.name} is not loaded: {listed.note}"
    return REACHED_NO, NOWHERE if lines else "it has no text of its own"


def reach_in(window: WorkerWindow) -> Reach:
    """For a candidate's (project file, text): (path, how) by which the text reached *window*'s
    session (what :func:`with_reach` gives each item), so that a run can make its items with it."""
    return partial(_reach, _index(window))  # a call into C, then one Python frame an item


def with_reach(items: Iterable[Item], window: WorkerWindow) -> tuple[Item, ...]:
    """*items*, each with the path by which its text reached the worker."""
    out: list[Item] = list(items)
    give_paths(out, reach_in(window))
    return tuple(out)

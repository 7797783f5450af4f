"""The prompt a worker receives for a task, as upstream's ``ProtocolHandler._build_task_prompt`` composes it.

:func:`compose_prompt` composes it part by part, each part attributed and counted; a task
upstream raises on gives :attr:`WorkerPrompt.error` and no text.  The order of the parts and
the spec context's rules: docs/profiles.md#the-workers-whole-prompt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ctxviewer.engine.files.reading import Problem
from ctxviewer.engine.profiles.zerg.profile import upstream_estimate
from ctxviewer.engine.signals.spec import truncate
from ctxviewer.engine.tokens.counting import HEURISTIC, Census, TokenCounts, get_counter

if TYPE_CHECKING:
    from ctxviewer.engine.project.loading import Feature, Project, Task

#: ``spec_loader.py:MAX_SPEC_TOKENS``: the budget of the worker's spec context.
SPEC_TOKENS = 2000
#: The design step's guidance for a task's ``context`` (``design.core.md``): about 4,000 tokens.
DESIGN_GUIDANCE_TOKENS = 4000
DESIGN_GUIDANCE_CHARS = 16_000
REQUIREMENTS_NAMES = ("requirements.md", "REQUIREMENTS.md")
DESIGN_NAMES = ("design.md", "DESIGN.md", "architecture.md", "ARCHITECTURE.md")
CONTEXT_HEADING = "# Task Context (Scoped)"
INSTRUCTIONS = (
    "## Instructions",
    "Implement the task as specified. Make all necessary changes.",
    "Do NOT commit - the orchestrator handles commits.",
)

# Part names, in the order they can appear.
TASK_CONTEXT = "task_context"
SPEC_HEADER = "spec_header"
SPEC_REQUIREMENTS = "spec_requirements"
SPEC_DESIGN = "spec_design"
SPEC_SEPARATOR = "spec_separator"
HEADER = "header"
DESCRIPTION = "description"
FILES = "files"
VERIFICATION = "verification"
INSTRUCTIONS_PART = "instructions"


@dataclass(frozen=True)
class PromptPart:
    """One attributed stretch of the prompt: ``text == prompt[span[0]:span[1]]``."""

    name: str
    source: str
    span: tuple[int, int]
    text: str
    tokens: TokenCounts
    estimate: int  # upstream's max(1, round(len / 4))
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "span": list(self.span),
            "text": self.text,
            "tokens": {**self.tokens.to_json(), "upstream_estimate": self.estimate},
            "note": self.note,
        }


@dataclass(frozen=True)
class DesignComparison:
    """A task's design-time ``context`` beside what the plugin assembles for it now."""

    stored: TokenCounts
    stored_estimate: int
    profile: str
    plugin_text: str
    plugin: TokenCounts
    plugin_estimate: int
    identical: bool
    guidance_tokens: int = DESIGN_GUIDANCE_TOKENS
    guidance_chars: int = DESIGN_GUIDANCE_CHARS

    def to_json(self) -> dict[str, Any]:
        return {
            "stored": {**self.stored.to_json(), "upstream_estimate": self.stored_estimate},
            "profile": self.profile,
            "plugin_context": self.plugin_text,
            "plugin": {**self.plugin.to_json(), "upstream_estimate": self.plugin_estimate},
            "identical": self.identical,
            "guidance_tokens": self.guidance_tokens,
            "guidance_chars": self.guidance_chars,
        }


@dataclass(frozen=True)
class WorkerPrompt:
    """The prompt upstream composes for one task, part by part (or why it cannot)."""

    feature: str
    task_id: str
    text: str
    parts: tuple[PromptPart, ...]
    tokens: TokenCounts
    estimate: int
    error: str | None = None  # upstream raises: the worker's task fails, no prompt
    uses: str = ""  # "task context", "spec context" or "no context"
    design: DesignComparison | None = None
    notes: tuple[str, ...] = ()

    def part(self, name: str) -> PromptPart | None:
        return next((p for p in self.parts if p.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "feature": self.feature,
            "task": self.task_id,
            "prompt": self.text,
            "error": self.error,
            "uses": self.uses,
            "tokens": {**self.tokens.to_json(), "upstream_estimate": self.estimate},
            "parts": [p.to_json() for p in self.parts],
            "design_context": None if self.design is None else self.design.to_json(),
            "notes": list(self.notes),
        }


class PromptFailure(Exception):
    """What upstream raises while composing (``TypeError: ...``), as one line."""


def _type(value: Any) -> str:
    return type(value).__name__


def _joined(value: Any, key: str) -> str:
    """``", ".join(value)`` as upstream evaluates it, failing where it fails."""
    if isinstance(value, str):
        return ", ".join(value)  # a string is joined character by character, as upstream does
    if isinstance(value, Mapping):
        value = list(value)
    if not isinstance(value, (list, tuple)):
        raise PromptFailure(f"TypeError: can only join an iterable (files.{key} is {_type(value)})")
    for n, entry in enumerate(value):
        if not isinstance(entry, str):
            raise PromptFailure(f"TypeError: sequence item {n}: expected str instance, {_type(entry)} found")
    return ", ".join(value)


@dataclass
class _Draft:
    name: str
    source: str
    lines: list[Any]
    note: str = ""


class _Composer:
    def __init__(self, project: Project, feature: Feature, task: Task) -> None:
        self.project, self.feature, self.task = project, feature, task
        self.raw = task.raw
        self.notes: list[str] = []
        self.graph = feature.graph_path or "the task graph"
        self.where = f"{self.graph}: tasks[{task.index}]"

    # -- the spec context ---------------------------------------------------------------------

    def _load(self, names: Sequence[str]) -> tuple[str, str | None]:
        for name in names:
            rel = f"{self.feature.spec_dir}/{name}"
            read = self.project.fs.read_text(rel)
            if read.problem is Problem.MISSING:
                continue
            if read.problem is Problem.NOT_UTF8:
                raise PromptFailure(
                    f"UnicodeDecodeError: {rel}: {read.detail}; the worker cannot start (its spec read raises)"
                )
            if not read.ok or read.text is None:
                self.notes.append(f"{rel}: {read.detail}; read as empty, as upstream reads a file it cannot open")
                continue
            text = read.text.strip()
            if text:
                return text, rel
        return "", None

    def spec_parts(self) -> list[_Draft]:
        requirements, req_rel = self._load(REQUIREMENTS_NAMES)
        design, design_rel = self._load(DESIGN_NAMES)
        if not requirements and not design:
            return []
        heuristic = get_counter(HEURISTIC)
        name = self.feature.name
        drafts = [_Draft(SPEC_HEADER, f"the worker's feature ({name})", [f"# Feature Context: {name}", ""])]
        so_far = "\n".join(drafts[0].lines)
        if requirements:
            cut = truncate(requirements, SPEC_TOKENS // 2, heuristic)
            note = _cut_note(cut.boundary, cut.kept_chars, cut.original_chars, cut.max_chars)
            lines = ["## Requirements Summary", cut.text, ""]
            drafts.append(_Draft(SPEC_REQUIREMENTS, str(req_rel), lines, note))
            so_far += "\n" + "\n".join(lines)
        if design:
            remaining = SPEC_TOKENS - len(so_far + "\n## Design Decisions") // 4
            limit = max(remaining, SPEC_TOKENS // 2)
            cut = truncate(design, limit, heuristic)
            note = f"{limit:,} tokens for the design ({SPEC_TOKENS:,} less what comes before, "
            note += f"at least {SPEC_TOKENS // 2:,})"
            if cut.cut:
                note += "; " + _cut_note(cut.boundary, cut.kept_chars, cut.original_chars, cut.max_chars)
            drafts.append(_Draft(SPEC_DESIGN, str(design_rel), ["## Design Decisions", cut.text, ""], note))
        drafts.append(_Draft(SPEC_SEPARATOR, "fixed text", ["---", ""]))
        return drafts

    # -- the prompt ---------------------------------------------------------------------------

    def drafts(self) -> tuple[list[_Draft], str]:
        raw = self.raw
        drafts: list[_Draft] = []
        spec = self.spec_parts()  # loaded when the worker starts, whatever its tasks carry
        context = raw.get("context")
        if context:
            where = f"{self.where}.context (written at design time)"
            drafts.append(_Draft(TASK_CONTEXT, where, [CONTEXT_HEADING, context]))
            uses = "task context"
        else:
            drafts += spec
            uses = "spec context" if spec else "no context"
            if context is not None:
                self.notes.append(f"the task's context is {context!r}, which counts as none: the spec context is used")
        if "id" not in raw:
            raise PromptFailure("KeyError: 'id' (upstream reads task['id'] even when the task has a title)")
        title = raw["title"] if "title" in raw else raw["id"]
        drafts.append(_Draft(HEADER, f"{self.where}.{'title' if 'title' in raw else 'id'}", [f"# Task: {title}", ""]))
        description = raw.get("description")
        if description:
            drafts.append(_Draft(DESCRIPTION, f"{self.where}.description", ["## Description", description, ""]))
        files = raw.get("files")
        if files:
            if not isinstance(files, Mapping):
                raise PromptFailure(f"AttributeError: '{_type(files)}' object has no attribute 'get' (files)")
            lines = ["## Files"]
            for key, label in (("create", "Create"), ("modify", "Modify"), ("read", "Reference")):
                value = files.get(key)
                if value:
                    lines.append(f"{label}: {_joined(value, key)}")
            lines.append("")
            drafts.append(_Draft(FILES, f"{self.where}.files (create, modify, read)", lines))
        verification = raw.get("verification")
        if verification:
            if not isinstance(verification, Mapping):
                raise PromptFailure(
                    f"AttributeError: '{_type(verification)}' object has no attribute 'get' (verification)"
                )
            command = verification.get("command", "")
            lines = ["## Verification", f"Command: `{command}`", ""]
            drafts.append(_Draft(VERIFICATION, f"{self.where}.verification.command", lines))
        drafts.append(_Draft(INSTRUCTIONS_PART, "fixed text", list(INSTRUCTIONS)))
        n = 0
        for draft in drafts:
            for line in draft.lines:
                if not isinstance(line, str):
                    raise PromptFailure(f"TypeError: sequence item {n}: expected str instance, {_type(line)} found")
                n += 1
        return drafts, uses


def _cut_note(boundary: str, kept: int, original: int, limit: int) -> str:
    if boundary == "none":
        return ""
    where = {"paragraph": "at a paragraph break", "sentence": "after a sentence", "hard": "mid-text"}[boundary]
    return f"cut to {kept:,} of {original:,} characters ({limit:,}-character limit, {where}), with the truncation note"


def compose_prompt(project: Project, feature: Feature, task: Task, census: Census) -> WorkerPrompt:
    """The worker's prompt for *task*, attributed and counted (see the module's docstring)."""
    composer = _Composer(project, feature, task)
    try:
        drafts, uses = composer.drafts()
    except PromptFailure as exc:
        empty = census.measure("")
        return WorkerPrompt(feature.name, task.id, "", (), empty, 0, error=str(exc), notes=tuple(composer.notes))
    texts = ["\n".join(d.lines) for d in drafts]
    counts = census.measure_many(texts)
    parts: list[PromptPart] = []
    pos = 0
    for draft, text, count in zip(drafts, texts, counts, strict=True):
        span = (pos, pos + len(text))
        parts.append(PromptPart(draft.name, draft.source, span, text, count, upstream_estimate(text), draft.note))
        pos += len(text) + 1
    full = "\n".join(texts)
    return WorkerPrompt(
        feature.name,
        task.id,
        full,
        tuple(parts),
        census.measure(full),
        upstream_estimate(full),
        uses=uses,
        notes=tuple(composer.notes),
    )

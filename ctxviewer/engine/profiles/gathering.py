"""What ``drift``, ``shaktiman`` and ``ctxviewer`` read before deciding, read leniently.

:class:`PeerRun` gathers the task's files, the reference filter's rule files
(:class:`RuleCandidate`) and the spec's paragraphs (:class:`SpecPart`), and lays the decided
pieces out as sections (:meth:`PeerRun.layout`).  What is read, and how a value these profiles
cannot use is left out: ``docs/profiles.md`` (what drift, shaktiman and ctxviewer read).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxviewer.engine.files.reading import Problem
from ctxviewer.engine.profiles.base import NEVER_CONSIDERED, ItemDraft, ProfileResult, RunBase
from ctxviewer.engine.profiles.mahabharatha import (
    DESIGN_HEADER,
    DESIGN_NAMES,
    REQUIREMENTS_HEADER,
    REQUIREMENTS_NAMES,
    SECTION_TITLES,
)
from ctxviewer.engine.signals import rules as R
from ctxviewer.engine.signals.keywords import describe_value, extract_keywords
from ctxviewer.engine.signals.spec import Paragraph, SpecIndex, paragraph_limit_problem, spec_index, strip_with_offset
from ctxviewer.engine.trace.model import (
    INCLUDED,
    NOT_CANDIDATE,
    RULE_FILE,
    SECURITY,
    SPEC,
    SPEC_PARAGRAPH,
    TRUNCATED,
    Section,
)

#: What happens to a file with NUL bytes: the same words as the ``mahabharatha`` profile's.
AS_READ = "read as text all the same, as the real system does"
PART_HEADERS = {"requirements": REQUIREMENTS_HEADER, "design": DESIGN_HEADER}
SPEC_FILES = (("requirements", REQUIREMENTS_NAMES), ("design", DESIGN_NAMES))


@dataclass
class RuleCandidate:
    """One of the reference filter's rule files for this task, usable or not."""

    rule: str
    draft: ItemDraft
    #: The summary block (None: not matched, missing, unreadable or no kept lines).
    block: R.RuleBlock | None
    why: str


@dataclass(frozen=True)
class SpecPart:
    """One spec file (requirements or design) split into paragraphs."""

    part: str
    source: str
    index: SpecIndex

    @property
    def header(self) -> str:
        return PART_HEADERS[self.part]


@dataclass
class Placed:
    """A piece of a section's text and the draft it belongs to (None: a header)."""

    text: str
    draft: ItemDraft | None = None
    #: Characters of the piece before the draft's kept text (a metadata line, say).
    lead: int = 0
    #: Further drafts whose whole text lies inside this one's, at these offsets in it.
    inner: list[tuple[ItemDraft, int]] = field(default_factory=list)


@dataclass
class SectionPlan:
    """A section as a profile decided it: its pieces in order, its budget, why."""

    name: str
    budget: int
    pieces: list[Placed] = field(default_factory=list)
    reason: str = ""
    sub_budgets: Mapping[str, int] = field(default_factory=dict)


def heading_level(para: Paragraph) -> int:
    """The markdown heading level of a paragraph's first line (0: not a heading)."""
    line = para.text.lstrip("\n").split("\n", 1)[0]
    level = len(line) - len(line.lstrip("#"))
    return level if 0 < level <= 6 and line[level : level + 1] == " " else 0


def is_heading_only(para: Paragraph) -> bool:
    """Whether the paragraph is a markdown heading line and nothing else."""
    return "\n" not in para.text.strip("\n") and heading_level(para) > 0


def joined(pieces: Sequence[Placed]) -> str:
    return "\n\n".join(p.text for p in pieces)


class PeerRun(RunBase):
    """Gathering and layout shared by the peer profiles."""

    task_files: list[str]
    rules: list[RuleCandidate]
    parts: list[SpecPart]
    _clean: dict[str, Any] | None = None

    def gather(self) -> None:
        """Read the task, the rule files and the spec files; record every candidate."""
        self._check("start", 0.0)
        self.task_files = self._task_files()
        self.keywords = self.extract_keywords()
        self.rules = self._rule_candidates()
        self._check("security rules", 0.3)
        self.parts = self._spec_parts()
        self._check("spec files", 0.5)

    # -- the task ---------------------------------------------------------------------------

    def clean_task(self) -> dict[str, Any]:
        """The task with every value the peer profiles cannot use taken out (and reported once)."""
        if self._clean is not None:
            return self._clean
        raw = self.raw
        clean: dict[str, Any] = {}
        where = self.feature.graph_path
        for key in ("title", "description"):
            value = raw.get(key)
            if value is None or isinstance(value, str):
                clean[key] = value or ""
            else:
                self._error("task", "input", f"task {key} is {describe_value(value)}, not text", "ignored", where)
        files = raw.get("files")
        out: dict[str, list[str]] = {}
        if isinstance(files, Mapping):
            for key, entries in files.items():
                if entries is None:  # `create:` with nothing after it: no files, as in the reference
                    continue
                if not isinstance(entries, list):
                    self._error(
                        "task", "input", f"files.{key} is {describe_value(entries)}, not a list", "ignored", where
                    )
                    continue
                good: list[str] = []
                for entry in entries:
                    if isinstance(entry, str):
                        good.append(entry)
                    elif key == "move" and _is_move(entry):
                        # {"from": old, "to": new}: a real upstream shape; both paths are the task's
                        good.extend(entry[k] for k in ("from", "to") if k in entry)
                    else:
                        self._error(
                            "task",
                            "input",
                            f"files.{key} has an entry that is {describe_value(entry)}",
                            "ignored",
                            where,
                        )
                out[str(key)] = good
        elif files is not None:
            self._error("task", "input", f"task 'files' is {describe_value(files)}, not a mapping", "ignored", where)
        clean["files"] = out
        self._clean = clean
        return clean

    def _task_files(self) -> list[str]:
        files = self.clean_task()["files"]
        return [*files.get("create", []), *files.get("modify", [])]

    def extract_keywords(self) -> Any:
        """The reference keyword extraction over the cleaned task (overridden by ``ctxviewer``)."""
        return extract_keywords(self.clean_task())

    # -- rule files -------------------------------------------------------------------------

    def _rule_candidates(self) -> list[RuleCandidate]:
        out: list[RuleCandidate] = []
        if not self.settings.security_rule_filtering:
            reason, matches = "security_rule_filtering is off in the configuration", None
        elif not self.task_files:
            reason, matches = "the task has no create/modify files, so no security section is built", None
        else:
            reason, matches = "", R.match_rules(self.task_files)
        for rule in R.CANDIDATES:
            draft = self._rule_draft(rule, reason, {"trigger": R.TRIGGER_TEXT[rule]})
            if matches is not None:
                out.append(self._rule_candidate(rule, draft, matches[rule]))
        for rule in self.other_rule_files():
            self._rule_draft(rule, NEVER_CONSIDERED)
        return out

    def _rule_draft(self, rule: str, reason: str, details: Mapping[str, Any] | None = None) -> ItemDraft:
        """A draft of one rule file, not a candidate until a profile decides otherwise, appended."""
        draft = ItemDraft(
            id=f"rule:{rule}",
            kind=RULE_FILE,
            section=SECURITY,
            part="rules",
            source=self._rule_rel(rule),
            line_start=None,
            line_end=None,
            score=None,
            matched=(),
            rank=None,
            status=NOT_CANDIDATE,
            reason=reason,
            text="",
            kept_chars=0,
            details=details,
        )
        self.items.append(draft)
        return draft

    def _rule_candidate(self, rule: str, draft: ItemDraft, match: R.RuleMatch) -> RuleCandidate:
        details = dict(draft.details or {})
        details["matched_by"] = [{"file": f, "by": why} for f, why in match.matched_by]
        draft.details = details
        if not match.matched:
            draft.reason = f"not matched: no task file is {R.TRIGGER_TEXT[rule][2:]}"
            return RuleCandidate(rule, draft, None, draft.reason)
        why = (
            "core rules, always considered"
            if rule == R.CORE
            else "matched by " + ", ".join(f"{f} ({by})" for f, by in match.matched_by[:3])
        )
        read = self.fs.read_text(draft.source)
        if read.problem is Problem.MISSING:
            draft.reason = f"{why}, but the file does not exist"
            return RuleCandidate(rule, draft, None, why)
        if not read.ok or read.text is None:
            self._error(SECURITY, "input", read.detail, "this rule file is left out", draft.source, read.line)
            draft.reason = f"{why}, but it cannot be read: {read.detail}"
            return RuleCandidate(rule, draft, None, why)
        if read.has_nul:
            self._error(SECURITY, "input", "binary content (NUL bytes) in a rule file", AS_READ, draft.source)
        block = R.summarize_file(rule, read.text)
        draft.line_start, draft.line_end = 1, block.total_lines
        details["kept_lines"] = list(block.kept_lines)
        if not block.block:
            draft.reason = f"{why}; no '## Rule:', '### Rule:', '**Level**' or '**When**' lines outside code fences"
            return RuleCandidate(rule, draft, None, why)
        draft.text = block.block
        return RuleCandidate(rule, draft, block, why)

    # -- spec files -------------------------------------------------------------------------

    def _spec_parts(self) -> list[SpecPart]:
        parts: list[SpecPart] = []
        if self.feature.spec_error is not None:
            self._error(SPEC, "pipeline", self.feature.spec_error, "no spec text is read", self.feature.graph_path)
            return parts
        for part, names in SPEC_FILES:
            for name in names:
                rel = f"{self.feature.spec_dir}/{name}"
                read = self.fs.read_text(rel)
                if read.problem is Problem.MISSING:
                    continue
                if not read.ok or read.text is None:
                    self._error(SPEC, "input", read.detail, f"the {part} file is left out", rel, read.line)
                    break
                if read.has_nul:
                    self._error(SPEC, "input", "binary content (NUL bytes) in a spec file", AS_READ, rel)
                stripped, first_line = strip_with_offset(read.text)
                too_many = paragraph_limit_problem(stripped)
                if too_many is not None:
                    self._error(SPEC, "input", too_many, f"the {part} file is left out", rel)
                    break
                if stripped:
                    parts.append(SpecPart(part, rel, spec_index(stripped, first_line)))
                    break
        return parts

    def paragraph_draft(self, part: SpecPart, para: Paragraph, reason: str) -> ItemDraft:
        """A draft of one paragraph, not a candidate until a profile decides otherwise, appended."""
        return self.span_draft(part, para.index, para.index, reason)

    def span_draft(self, part: SpecPart, first: int, last: int, reason: str, item_id: str = "") -> ItemDraft:
        """A draft of paragraphs *first*..*last* of *part* as one candidate (not yet decided), appended."""
        paragraphs = part.index.paragraphs[first : last + 1]
        draft = ItemDraft(
            id=item_id or f"{part.part}:{first + 1}",
            kind=SPEC_PARAGRAPH,
            section=SPEC,
            part=part.part,
            source=part.source,
            line_start=paragraphs[0].line_start,
            line_end=paragraphs[-1].line_end,
            score=None,
            matched=(),
            rank=None,
            status=NOT_CANDIDATE,
            reason=reason,
            text="\n\n".join(p.text for p in paragraphs),
            kept_chars=0,
        )
        self.items.append(draft)
        return draft

    # -- layout -----------------------------------------------------------------------------

    def layout(self, plans: Sequence[SectionPlan], empty_reasons: Mapping[str, str]) -> tuple[str, tuple[Section, ...]]:
        """The context (non-empty sections joined by a blank line) and its sections.

        Every draft placed in a plan gets its offset in its section; its status and
        ``kept_chars`` must already say what it keeps (the piece's text is that part).
        """
        chunks: list[str] = []
        sections: list[Section] = []
        pos = 0
        for plan in plans:
            text = joined(plan.pieces)
            offset = 0
            for piece in plan.pieces:
                if piece.draft is not None:
                    piece.draft.offset = offset + piece.lead
                for draft, at in piece.inner:
                    draft.offset = offset + piece.lead + at
                offset += len(piece.text) + 2
            span = None
            if text:
                if chunks:
                    pos += 2
                span = (pos, pos + len(text))
                chunks.append(text)
                pos += len(text)
            sections.append(
                Section(
                    name=plan.name,
                    title=SECTION_TITLES[plan.name],
                    text=text,
                    budget=plan.budget,
                    tokens=self.census.measure(text),
                    status="included" if text else "empty",
                    reason=plan.reason if text else empty_reasons.get(plan.name, "nothing was kept"),
                    span=span,
                    sub_budgets=dict(plan.sub_budgets),
                )
            )
        return "\n\n".join(chunks), tuple(sections)

    def result(
        self,
        plans: Sequence[SectionPlan],
        *,
        tokenizer: str | None = None,
        buffer: int | None = None,
        notes: Sequence[str] = (),
    ) -> ProfileResult:
        context, sections = self.layout(plans, self.empty_reasons())
        return ProfileResult(
            context=context,
            sections=sections,
            items=self.finish_items(sections),
            trim_steps=tuple(self.steps),
            keywords=self.keywords,
            errors=tuple(self.errors),
            task_files=tuple(self.task_files),
            tokenizer=tokenizer,
            section_budgets={p.name: p.budget for p in plans},
            buffer=buffer,
            notes=tuple(notes),
        )

    def empty_reasons(self) -> dict[str, str]:
        if not self.settings.security_rule_filtering:
            security = "security_rule_filtering is off"
        elif not self.task_files:
            security = "the task has no create/modify files"
        else:
            security = "no matched rule file was kept: each one's reason is in Security rules"
        if not self.parts:
            spec = "no spec text: requirements and design files are missing or empty"
        elif not self.keywords:
            spec = "the task has no keywords"
        else:
            spec = "no paragraph was kept"
        return {SECURITY: security, SPEC: spec}


def keep_whole(draft: ItemDraft, reason: str, rank: int | None = None) -> Placed:
    """Mark *draft* as included whole and return its piece."""
    draft.status, draft.reason, draft.kept_chars, draft.rank = INCLUDED, reason, len(draft.text), rank
    return Placed(draft.text, draft)


def keep_prefix(draft: ItemDraft, kept: int, marker: str, reason: str, rank: int | None = None) -> Placed:
    """Mark *draft* as truncated to its first *kept* characters, followed by *marker*."""
    draft.status, draft.reason, draft.kept_chars, draft.rank = TRUNCATED, reason, kept, rank
    return Placed(draft.text[:kept] + marker, draft)


def _is_move(entry: Any) -> bool:
    """A ``files.move`` entry of upstream's object shape: ``from`` and/or ``to``, each a path."""
    return (
        isinstance(entry, Mapping)
        and bool(entry)
        and set(entry) <= {"from", "to"}
        and all(isinstance(v, str) for v in entry.values())
    )

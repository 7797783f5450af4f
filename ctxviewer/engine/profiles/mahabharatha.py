"""Profile ``mahabharatha``: the reference context pipeline, decision for decision.

The assembled context is the non-empty sections joined by ``"\\n\\n"``:

1. security rules, budget ``int(budget * 0.30)``:
   ``"## Security Rules (task-scoped)\\n\\n" + summary`` -- only when the task has
   create/modify files, filtering is on, and the summary is not empty;
2. spec excerpts, budget ``int(budget * 0.50)``: ``"## Relevant Requirements"`` +
   truncate(top paragraphs, budget // 2), then ``"## Relevant Design"`` +
   truncate(top paragraphs, max(remaining, budget // 4)), where *remaining* is the
   budget minus the estimate of the parts so far joined by ``"\\n"`` (the design
   header included); parts joined by ``"\\n\\n"``.

Failures behave as in the real system: a failing rule filter leaves the security
section out; a failing spec load (a non-text title, a ``files`` entry that is not a
path, a spec file that is not UTF-8) leaves the spec section out; any other failure
(``files`` not a mapping, a rule file that cannot be read) empties the whole context
when ``fallback_to_full`` is true and is an error otherwise.  Every such failure is in
the trace with its cause.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ctxviewer.engine.files.reading import Problem
from ctxviewer.engine.profiles.base import NEVER_CONSIDERED, ItemDraft, ProfileResult, RunBase, draft_of, fmt
from ctxviewer.engine.signals import rules as R
from ctxviewer.engine.signals.keywords import KeywordError, describe_value, extract_keywords
from ctxviewer.engine.signals.spec import (
    CHECK_EVERY,
    LRU,
    Ranking,
    Scored,
    SpecIndex,
    paragraph_limit_problem,
    ranking,
    spec_index,
    strip_with_offset,
    truncate,
)
from ctxviewer.engine.trace.model import (
    CUT_FOR_BUDGET,
    INCLUDED,
    NOT_CANDIDATE,
    OUTRANKED,
    RULE_FILE,
    SECURITY,
    SPEC,
    SPEC_PARAGRAPH,
    TRUNCATED,
    Item,
    Section,
)

SECURITY_HEADER = "## Security Rules (task-scoped)\n\n"
REQUIREMENTS_HEADER = "## Relevant Requirements"
DESIGN_HEADER = "## Relevant Design"
REQUIREMENTS_NAMES = ("requirements.md", "REQUIREMENTS.md")
DESIGN_NAMES = ("design.md", "DESIGN.md", "architecture.md", "ARCHITECTURE.md")
SECTION_TITLES = {SECURITY: "Security rules", SPEC: "Spec excerpts"}

#: Finished paragraph items per (spec content, keywords, top_k, reason): see
#: :meth:`MahabharathaRun._paragraph_items`.
_base_items = LRU(8)
#: Each spec file's paragraphs as unscored items: see :meth:`MahabharathaRun._unscored_items`.
_unscored = LRU(16)


def clear_caches() -> None:
    """Forget the cached paragraph items (benchmarks and tests start cold with this)."""
    _base_items.clear()
    _unscored.clear()


class _SpecFailure(Exception):
    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.line = line


class MahabharathaRun(RunBase):
    """One run of the reference pipeline over one task."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.left_out: dict[str, str] = {}  # section -> why it was left out by a failure
        self.spec_sub_budgets: dict[str, int] = {}

    # -- the run ----------------------------------------------------------------------

    def run(self) -> ProfileResult:
        self._check("start", 0.0)
        budgets = self.settings.section_budgets
        fatal: str | None = None
        files = self.raw.get("files", {})
        task_files: list[Any] = []
        if isinstance(files, Mapping):
            for key in ("create", "modify"):
                entries = files.get(key)
                if isinstance(entries, list):
                    task_files.extend(entries)
        else:
            fatal = f"task 'files' is {describe_value(files)}, not a mapping"
            self._error("task", "pipeline", fatal, self._fatal_consequence(), self.feature.graph_path)

        security_text = ""
        if fatal is None:
            security_text, fatal = self._security(task_files, budgets[SECURITY])
        else:
            self._security_not_run(fatal)
        self._check("security rules", 0.4)
        spec_text = self._spec(budgets[SPEC])
        self._check("spec excerpts", 0.8)

        texts = {SECURITY: security_text, SPEC: spec_text}
        if fatal is not None:
            texts = {SECURITY: "", SPEC: ""}
            for draft in self.items:
                if isinstance(draft, ItemDraft) and draft.status in (INCLUDED, TRUNCATED):
                    draft.reason = (
                        f"would be {draft.status} ({draft.reason}), but the whole context "
                        f"{'fell back to empty' if self.settings.fallback_to_full else 'failed'}: {fatal}"
                    )
                    draft.status = NOT_CANDIDATE
                    draft.kept_chars = 0
                    draft.offset = None
        context, sections = self._sections(texts, budgets, fatal)
        return self._result(context, sections, task_files)

    def _result(
        self, context: str, sections: tuple[Section, ...], task_files: Sequence[Any], **more: Any
    ) -> ProfileResult:
        """The run's result: its items finished against *sections*, its steps, keywords and errors."""
        return ProfileResult(
            context=context,
            sections=sections,
            items=self.finish_items(sections),
            trim_steps=tuple(self.steps),
            keywords=self.keywords,
            errors=tuple(self.errors),
            task_files=tuple(str(f) if isinstance(f, str) else describe_value(f) for f in task_files),
            **more,
        )

    def _fatal_consequence(self) -> str:
        if self.settings.fallback_to_full:
            return "the whole context falls back to empty (fallback_to_full is true)"
        return "the real system raises this error to the caller (fallback_to_full is false)"

    # -- security rules -----------------------------------------------------------------

    def _rule_item(
        self,
        rule: str,
        status: str,
        reason: str,
        text: str = "",
        rank_: int | None = None,
        offset: int | None = None,
        details: Mapping[str, Any] | None = None,
        lines: int | None = None,
    ) -> None:
        self.items.append(
            ItemDraft(
                id=f"rule:{rule}",
                kind=RULE_FILE,
                section=SECURITY,
                part="rules",
                source=self._rule_rel(rule),
                line_start=1 if lines else None,
                line_end=lines,
                score=None,
                matched=(),
                rank=rank_,
                status=status,
                reason=reason,
                text=text,
                kept_chars=len(text) if status == INCLUDED else 0,
                offset=offset,
                details=details or {},
            )
        )

    def _no_rule_candidates(self, reason: str) -> None:
        for rule in R.CANDIDATES:
            self._rule_item(rule, NOT_CANDIDATE, reason, details={"trigger": R.TRIGGER_TEXT[rule]})
        self._list_unconsidered()

    def _list_unconsidered(self) -> None:
        for rule in self.other_rule_files():
            self._rule_item(rule, NOT_CANDIDATE, NEVER_CONSIDERED)

    def _security_not_run(self, fatal: str) -> None:
        self._no_rule_candidates(f"not reached: the run failed first ({fatal})")

    def _security(self, task_files: Sequence[Any], budget: int) -> tuple[str, str | None]:
        if not self.settings.security_rule_filtering:
            self._no_rule_candidates("security_rule_filtering is off in the configuration")
            return "", None
        if not task_files:
            self._no_rule_candidates("the task has no create/modify files, so no security section is built")
            return "", None
        try:
            matches = R.match_rules(task_files)
        except R.RuleFilterError as exc:
            message = f"rule filtering failed: {exc}"
            self.left_out[SECURITY] = message
            self._error(SECURITY, "pipeline", message, "the security section is left out", self.feature.graph_path)
            self._no_rule_candidates(f"the security section is left out: {message}")
            return "", None

        heuristic = self.counter.name == "heuristic"
        limit = budget * 4 if heuristic else budget
        unit = "characters" if heuristic else f"{self.counter.name} tokens"
        used = 0
        parts: list[str] = []
        offset = len(SECURITY_HEADER)
        considered: list[str] = []
        # (rule, block, description) of every usable block in order; description None: it went in.
        blocks: list[tuple[str, str, str | None]] = []
        for rule in R.CANDIDATES:
            match = matches[rule]
            rel = self._rule_rel(rule)
            details: dict[str, Any] = {
                "trigger": R.TRIGGER_TEXT[rule],
                "matched_by": [{"file": f, "by": why} for f, why in match.matched_by],
            }
            if not match.matched:
                self._rule_item(
                    rule, NOT_CANDIDATE, f"not matched: no task file is {R.TRIGGER_TEXT[rule][2:]}", details=details
                )
                continue
            why = (
                "core rules, always considered"
                if rule == R.CORE
                else "matched by "
                + ", ".join(f"{f} ({by})" for f, by in match.matched_by[:3])
                + (f" and {len(match.matched_by) - 3:,} more" if len(match.matched_by) > 3 else "")
            )
            read = self.fs.read_text(rel)
            if read.problem in (Problem.MISSING, Problem.OUTSIDE, Problem.LOOP):
                if read.problem is not Problem.MISSING:
                    self._error(SECURITY, "input", read.detail, "treated as absent: not read", rel)
                self._rule_item(rule, NOT_CANDIDATE, f"{why}, but the file does not exist", details=details)
                continue
            considered.append(rule)
            if not read.ok:
                message = f"reading rule file failed: {read.detail}"
                self._error(SECURITY, "input", message, self._fatal_consequence(), rel, read.line)
                self._rule_item(rule, NOT_CANDIDATE, f"{why}, but {message}", details=details)
                self._skip_steps(blocks)
                return "", message
            if read.has_nul:
                self._error(
                    SECURITY,
                    "input",
                    "binary content (NUL bytes) in a rule file",
                    "read as text all the same, as the real system does",
                    rel,
                )
            assert read.text is not None
            block = R.summarize_file(rule, read.text)
            lines = block.total_lines
            details["kept_lines"] = list(block.kept_lines)
            if not block.block:
                self._rule_item(
                    rule,
                    NOT_CANDIDATE,
                    f"{why}; no '## Rule:', '### Rule:', '**Level**' or '**When**' lines outside code fences",
                    lines=lines,
                    details=details,
                )
                continue
            size = len(block.block) if heuristic else self.counter.count(block.block)
            left = limit - used
            details.update({"needed": size, "left": left, "limit": limit, "unit": unit})
            if used + size <= limit:
                sep = 2 if parts else 0
                parts.append(block.block)
                blocks.append((rule, block.block, None))
                used += size
                self._rule_item(
                    rule,
                    INCLUDED,
                    f"{why}; block of {fmt(size)} {unit} fit the {fmt(left)} left of {fmt(limit)}",
                    text=block.block,
                    rank_=len(parts),
                    offset=offset + sep,
                    details=details,
                    lines=lines,
                )
                offset += sep + len(block.block)
            else:
                blocks.append(
                    (
                        rule,
                        block.block,
                        f"left out {rule}: {fmt(size)} {unit} did not fit the {fmt(left)} left of {fmt(limit)}",
                    )
                )
                self._rule_item(
                    rule,
                    CUT_FOR_BUDGET,
                    f"{why}; block of {fmt(size)} {unit} did not fit the {fmt(left)} left of {fmt(limit)}",
                    text=block.block,
                    details=details,
                    lines=lines,
                )
        self._list_unconsidered()
        self._skip_steps(blocks)
        summary = "\n\n".join(parts)
        if not summary:
            return "", None
        return SECURITY_HEADER + summary, None

    def _skip_steps(self, blocks: Sequence[tuple[str, str, str | None]]) -> None:
        """One step per rule block that did not fit, as cuts from the section with every block.

        The steps chain: the first starts from the section holding every usable block in
        order, each takes its block out, and the last ends at the section as built (empty
        when no block went in).
        """
        state = {rule: block for rule, block, _ in blocks}
        for rule, _, description in blocks:
            if description is None:
                continue
            before = SECURITY_HEADER + "\n\n".join(state.values())
            del state[rule]
            after = SECURITY_HEADER + "\n\n".join(state.values()) if state else ""
            self._step(SECURITY, "skip_block", f"rule:{rule}", description, before, after)

    # -- spec excerpts --------------------------------------------------------------------

    def _load_spec(self, names: Sequence[str]) -> tuple[str, str | None, int]:
        """(stripped text, file used, first line), following the reference's fallbacks."""
        for name in names:
            rel = f"{self.feature.spec_dir}/{name}"
            read = self.fs.read_text(rel)
            if read.problem is Problem.MISSING:
                continue
            if read.problem is Problem.NOT_UTF8:
                self._error(
                    SPEC,
                    "input",
                    read.detail,
                    "the spec section is left out (the real system's read raises)",
                    rel,
                    read.line,
                )
                raise _SpecFailure(f"{rel}: {read.detail}", rel, read.line)
            if not read.ok:
                self._error(SPEC, "input", read.detail, "treated as an empty spec file", rel, read.line)
                continue
            assert read.text is not None
            if read.has_nul:
                self._error(
                    SPEC,
                    "input",
                    "binary content (NUL bytes) in a spec file",
                    "read as text all the same, as the real system does",
                    rel,
                )
            stripped, first_line = strip_with_offset(read.text)
            too_many = paragraph_limit_problem(stripped)
            if too_many is not None:
                self._error(SPEC, "input", too_many, "treated as an empty spec file", rel)
                continue
            if stripped:
                return stripped, rel, first_line
        return "", None, 1

    def _paragraph_items(
        self, part: str, text: str, rel: str | None, first_line: int, ranked: Ranking | None, reason: str | None
    ) -> tuple[Item, ...]:
        """Every paragraph of one spec file as a finished item not in the context, appended to the run.

        The paragraphs a run keeps are few; the rest are left out for reasons that do not
        depend on budgets.  So the full list is built once per (file content, keywords,
        top_k, reason) and shared by later runs; :meth:`_spec` then replaces just the
        top-k entries with drafts.  This is what makes a re-budget of a task whose spec
        has tens of thousands of paragraphs cost a list copy instead of an item apiece.
        """
        if not text or rel is None:
            return ()
        index = spec_index(text, first_line)
        top_k = self.settings.top_k
        key = (
            id(index),
            part,
            rel,
            None if ranked is None else id(ranked),
            top_k,
            reason,
            self.census.encodings,
        )
        cached = _base_items.get(key)
        if cached is not None and cached[0] is index and cached[1] is ranked:
            items: tuple[Item, ...] = cached[2]
        else:
            items = self._build_paragraph_items(part, rel, index, ranked, reason, top_k)
            _base_items.put(key, (index, ranked, items))
        self.items.extend(items)
        return items

    def _build_paragraph_items(
        self, part: str, rel: str, index: SpecIndex, ranked: Ranking | None, reason: str | None, top_k: int
    ) -> tuple[Item, ...]:
        """The items of one run: the index's unscored items (shared by every run, see
        :meth:`_unscored_items`) with those of the paragraphs that score replaced."""
        zero = None if ranked is None else 0
        base = self._unscored_items(part, rel, index, reason, zero)
        if ranked is None or not ranked.hits:
            return base
        out = list(base)
        positions = ranked.positions
        for count, (n, matched) in enumerate(ranked.hits.items()):
            if not count % CHECK_EVERY:
                self._poll("spec excerpts")
            position = positions.get(n)
            b = base[n]
            status = b.status
            if reason is not None:
                why = reason
            elif position is None:  # not reached: every paragraph with a hit is ranked
                why = "score 0: no task keyword occurs in it"
            elif position > top_k:
                why = f"rank {position}, only the top {top_k} are kept (score {len(matched)})"
                status = OUTRANKED
            else:
                why = f"rank {position} of the top {top_k} (placed by the run)"
            out[n] = Item(  # as dataclasses.replace would, at a fifth of its cost
                b.id,
                b.kind,
                b.section,
                b.part,
                b.source,
                b.line_start,
                b.line_end,
                len(matched),
                matched,
                position,
                status,
                why,
                b.text,
                b.kept_chars,
                b.tokens,
            )
        return tuple(out)

    def _unscored_items(
        self, part: str, rel: str, index: SpecIndex, reason: str | None, zero: int | None
    ) -> tuple[Item, ...]:
        """Every paragraph of *index* as an item no keyword matched (not a candidate), counted once.

        These do not depend on the task: a batch or the window's background pass builds
        them once per spec file and each task replaces only the paragraphs that score.
        """
        key = (id(index), part, rel, reason, zero, self.census.encodings)
        cached = _unscored.get(key)
        if cached is not None and cached[0] is index:
            return cached[1]  # type: ignore[no-any-return]
        paragraphs = index.paragraphs
        counts = self.measure_many([p.text for p in paragraphs], "spec excerpts")
        out: list[Item] = []
        append = out.append
        for para, tokens in zip(paragraphs, counts, strict=True):
            n = para.index
            if not n % CHECK_EVERY:
                self._poll("spec excerpts")
            if reason is not None:
                why = reason
            elif para.blank:
                why = "blank paragraph: skipped before scoring"
            else:
                why = "score 0: no task keyword occurs in it"
            append(
                Item(
                    id=f"{part}:{n + 1}",
                    kind=SPEC_PARAGRAPH,
                    section=SPEC,
                    part=part,
                    source=rel,
                    line_start=para.line_start,
                    line_end=para.line_end,
                    score=zero,
                    matched_keywords=(),
                    rank=None,
                    status=NOT_CANDIDATE,
                    reason=why,
                    text=para.text,
                    kept_chars=0,
                    tokens=tokens,
                )
            )
        items = tuple(out)
        _unscored.put(key, (index, items))
        return items

    def _spec(self, max_tokens: int) -> str:
        loaded: dict[str, tuple[str, str | None, int]] = {}
        failure: str | None = None
        for part, names in (("requirements", REQUIREMENTS_NAMES), ("design", DESIGN_NAMES)):
            try:
                loaded[part] = self._load_spec(names)
            except _SpecFailure as exc:
                failure = f"spec loading failed: {exc}"
                break
        if failure is None:
            try:
                self.keywords = extract_keywords(self.raw)
            except KeywordError as exc:
                failure = f"spec loading failed: {exc}"
                self._error(SPEC, "pipeline", failure, "the spec section is left out", self.feature.graph_path)
        else:
            try:
                self.keywords = extract_keywords(self.raw)
            except KeywordError:
                self.keywords = ()
        req_text, req_rel, req_line = loaded.get("requirements", ("", None, 1))
        des_text, des_rel, des_line = loaded.get("design", ("", None, 1))
        if failure is not None:
            self.left_out[SPEC] = failure
            reason = f"the spec section is left out: {failure}"
            self._paragraph_items("requirements", req_text, req_rel, req_line, None, reason)
            self._paragraph_items("design", des_text, des_rel, des_line, None, reason)
            return ""
        if not req_text and not des_text:
            return ""
        words = [k.word for k in self.keywords]
        if not words:
            reason = (
                "the task has no keywords (no title/description word over 3 characters, "
                "no file stem part over 2), so no spec section is built"
            )
            self._paragraph_items("requirements", req_text, req_rel, req_line, None, reason)
            self._paragraph_items("design", des_text, des_rel, des_line, None, reason)
            return ""

        parts: list[str] = []
        sub_budgets: dict[str, int] = {}
        # Each part's text in the section as each step leaves it (header excluded), and the
        # steps to record once every part's starting text is known: see _spec_steps.
        bodies: dict[str, str] = {}
        steps: list[tuple[str, str, str, str]] = []
        for part, text, rel, line in (
            ("requirements", req_text, req_rel, req_line),
            ("design", des_text, des_rel, des_line),
        ):
            if not text:
                continue
            index = spec_index(text, line)
            ranked_all = ranking(index, words, lambda: self._poll("spec excerpts"))
            base = len(self.items)
            self._paragraph_items(part, text, rel, line, ranked_all, None)
            ranked = ranked_all.ranked
            top = ranked[: self.settings.top_k]
            relevant = "\n\n".join(s.paragraph.text for s in top)
            drafts: dict[int, ItemDraft] = {}
            for s in top:
                slot = base + s.paragraph.index
                drafts[s.paragraph.index] = draft = draft_of(self.items[slot])
                self.items[slot] = draft
            if not relevant:
                continue
            name = (rel or part).rsplit("/", 1)[-1]
            bodies[part] = ranked_all.ranked_text
            if len(ranked) > len(top):
                steps.append(
                    (
                        "select_top_k",
                        part,
                        f"{name}: kept the {len(top)} best of its {len(ranked)} scoring paragraphs",
                        relevant,
                    )
                )
            if part == "requirements":
                parts.append(REQUIREMENTS_HEADER)
                t = max_tokens // 2
            else:
                parts.append(DESIGN_HEADER)
                remaining = max_tokens - self.counter.count("\n".join(parts))
                t = max(remaining, max_tokens // 4)
            sub_budgets[part] = t
            cut = truncate(relevant, t, self.counter)
            if cut.cut:
                steps.append(
                    (
                        "truncate",
                        part,
                        f"{name}: cut at a {cut.boundary} boundary to fit {fmt(t)} tokens "
                        f"({fmt(cut.kept_chars)} of {fmt(cut.original_chars)} characters kept)",
                        cut.text,
                    )
                )
            parts.append(cut.text)
            part_offset = sum(len(p) for p in parts[:-1]) + 2 * (len(parts) - 1)
            self._place_paragraphs(drafts, top, cut.kept_chars, cut.boundary, t, part, part_offset)
        self.spec_sub_budgets = sub_budgets
        self._spec_steps(bodies, steps)
        return "\n\n".join(parts)

    def _spec_steps(self, bodies: dict[str, str], steps: Sequence[tuple[str, str, str, str]]) -> None:
        """The spec section's steps, each measured on the whole section so that they chain.

        The section starts with every scoring paragraph of each part under its header; each
        step (the top-k selection, then the truncation, per part) changes its part's text,
        and the last leaves the section as built.
        """
        headers = {"requirements": REQUIREMENTS_HEADER, "design": DESIGN_HEADER}

        def section() -> str:
            return "\n\n".join(f"{headers[p]}\n\n{b}" for p, b in bodies.items())

        for action, part, description, body in steps:
            before = section()
            bodies[part] = body
            self._step(SPEC, action, part, description, before, section())

    def _place_paragraphs(
        self,
        drafts: Mapping[int, ItemDraft],
        top: Sequence[Scored],
        kept: int,
        boundary: str,
        budget: int,
        part: str,
        part_offset: int,
    ) -> None:
        start = 0
        for position, s in enumerate(top, start=1):
            d = drafts[s.paragraph.index]
            length = len(s.paragraph.text)
            keep = max(0, min(length, kept - start))
            what = f"rank {position} of {len(top)} kept (score {s.score})"
            if keep == length:
                d.status, d.reason = INCLUDED, what
            elif keep > 0:
                d.status = TRUNCATED
                d.reason = (
                    f"{what}; cut at a {boundary} boundary: {fmt(keep)} of {fmt(length)} characters kept "
                    f"(the {part} budget is {fmt(budget)} tokens)"
                )
            else:
                d.status = CUT_FOR_BUDGET
                d.reason = (
                    f"{what}, but truncation to the {part} budget of {fmt(budget)} tokens "
                    f"cut the text before it ({boundary} boundary)"
                )
            d.kept_chars = keep
            d.offset = part_offset + start if keep else None
            start += length + 2

    # -- assembly ---------------------------------------------------------------------------

    def _section_outcome(
        self, name: str, text: str, fatal: str | None, built: str, empty: Callable[[str], str]
    ) -> tuple[str, str]:
        """A section's status and reason: the whole context failed, it was *built*, its
        builder failed, or it is empty (``empty(name)`` says why)."""
        if fatal is not None:
            outcome = "fell back to empty" if self.settings.fallback_to_full else "failed"
            return "failed", f"the whole context {outcome}: {fatal}"
        if text:
            return "included", built
        if name in self.left_out:
            return "failed", self.left_out[name]
        return "empty", empty(name)

    def _sections(
        self, texts: Mapping[str, str], budgets: Mapping[str, int], fatal: str | None
    ) -> tuple[str, tuple[Section, ...]]:
        chunks: list[str] = []
        spans: dict[str, tuple[int, int]] = {}
        pos = 0
        for name in (SECURITY, SPEC):
            text = texts[name]
            if not text:
                continue
            if chunks:
                pos += 2
            spans[name] = (pos, pos + len(text))
            chunks.append(text)
            pos += len(text)
        context = "\n\n".join(chunks)
        sections = []
        for name in (SECURITY, SPEC):
            text = texts[name]
            status, reason = self._section_outcome(
                name, text, fatal, "built and within the pipeline's rules", self._empty_reason
            )
            sub = (
                dict(self.spec_sub_budgets)
                if name == SPEC
                else {"summary_limit": budgets[name] * 4 if self.counter.name == "heuristic" else budgets[name]}
            )
            sections.append(
                Section(
                    name=name,
                    title=SECTION_TITLES[name],
                    text=text,
                    budget=budgets[name],
                    tokens=self.census.measure(text),
                    status=status,
                    reason=reason,
                    span=spans.get(name),
                    sub_budgets=sub,
                )
            )
        return context, tuple(sections)

    def _empty_reason(self, name: str) -> str:
        drafts = [d for d in self.items if d.section == name]
        if name == SECURITY:
            if not self.settings.security_rule_filtering:
                return "security_rule_filtering is off"
            if drafts and all("no create/modify files" in d.reason for d in drafts[:4]):
                return "the task has no create/modify files"
            return "no matched rule file exists or has kept lines within the budget"
        if not drafts:
            return "no spec text: requirements and design files are missing or empty"
        if not self.keywords:
            return "the task has no keywords"
        return "no paragraph scored above 0"

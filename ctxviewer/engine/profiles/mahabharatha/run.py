"""The reference run (profile ``mahabharatha``): its stages in order, recording every decision.

:meth:`MahabharathaRun.run` is: the task's files; the security rules (read, fit, record,
chain the cuts: :mod:`.security`); the spec excerpts (load, keywords, then per part score,
budget, truncate, place, and the steps: :mod:`.excerpts`); the fall-back when the whole run
failed; the sections joined (:mod:`.assembly`).  The stages decide; the run records their
decisions as items, steps and errors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ctxviewer.engine.profiles.base import NEVER_CONSIDERED, ItemDraft, ProfileResult, RunBase, draft_of, fmt
from ctxviewer.engine.profiles.mahabharatha.assembly import (
    SECTION_TITLES,
    TaskFiles,
    fall_back,
    join_sections,
    task_files,
)
from ctxviewer.engine.profiles.mahabharatha.excerpts import (
    PART_HEADERS,
    PART_ORDER,
    ParagraphItems,
    ScoredPart,
    SpecFile,
    load_spec,
    part_budget,
    place_drafts,
    spec_chain,
)
from ctxviewer.engine.profiles.mahabharatha.security import (
    SECURITY_HEADER,
    fit_blocks,
    read_rules,
    rule_item,
    rule_items,
    rule_limit,
    skip_chain,
)
from ctxviewer.engine.signals import rules as R
from ctxviewer.engine.signals.keywords import KeywordError, extract_keywords
from ctxviewer.engine.signals.spec import Ranking, ranking, spec_index, truncate
from ctxviewer.engine.trace.model import NOT_CANDIDATE, SECURITY, SPEC, Section


class MahabharathaRun(RunBase):
    """One run of the reference pipeline over one task."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.left_out: dict[str, str] = {}  # section -> why it was left out by a failure
        self.spec_sub_budgets: dict[str, int] = {}
        # What the budget-dependent decisions start from, kept for a refit (see .refit):
        # the usable rule blocks in order with their sizes in the limit's unit, the spec
        # parts with top paragraphs in section order, and why the whole run failed.
        self.rule_sizes: list[tuple[str, int]] = []
        self.scored_parts: list[ScoredPart] = []
        self.fatal: str | None = None

    # -- the run ----------------------------------------------------------------------

    def run(self) -> ProfileResult:
        self._check("start", 0.0)
        budgets = self.settings.section_budgets
        files = self._task_files()
        security_text, fatal = "", files.fatal
        if fatal is None:
            security_text, fatal = self._security(files.entries, budgets[SECURITY])
        else:
            self._security_not_run(fatal)
        self._check("security rules", 0.4)
        spec_text = self._spec(budgets[SPEC])
        self._check("spec excerpts", 0.8)
        texts = {SECURITY: security_text, SPEC: spec_text}
        self.fatal = fatal
        if fatal is not None:
            texts = {SECURITY: "", SPEC: ""}
            fall_back(self.items, fatal, self.settings.fallback_to_full)
        context, sections = self._sections(texts, budgets, fatal)
        return self._result(context, sections, files)

    def _task_files(self) -> TaskFiles:
        """The task's files; a ``files`` that is not a mapping is recorded as the run's failure."""
        files = task_files(self.raw)
        if files.fatal is not None:
            self._error("task", "pipeline", files.fatal, self._fatal_consequence(), self.feature.graph_path)
        return files

    def _result(self, context: str, sections: tuple[Section, ...], files: TaskFiles, **more: Any) -> ProfileResult:
        """The run's result: its items finished against *sections*, its steps, keywords and errors."""
        return ProfileResult(
            context=context,
            sections=sections,
            items=self.finish_items(sections),
            trim_steps=tuple(self.steps),
            keywords=self.keywords,
            errors=tuple(self.errors),
            task_files=files.shown(),
            **more,
        )

    def _fatal_consequence(self) -> str:
        if self.settings.fallback_to_full:
            return "the whole context falls back to empty (fallback_to_full is true)"
        return "the real system raises this error to the caller (fallback_to_full is false)"

    # -- security rules -----------------------------------------------------------------

    def _no_rule_candidates(self, reason: str) -> None:
        for rule in R.CANDIDATES:
            self.items.append(self._rule_item(rule, NOT_CANDIDATE, reason, {"trigger": R.TRIGGER_TEXT[rule]}))
        self._list_unconsidered()

    def _list_unconsidered(self) -> None:
        for rule in self.other_rule_files():
            self.items.append(self._rule_item(rule, NOT_CANDIDATE, NEVER_CONSIDERED))

    def _security_not_run(self, fatal: str) -> None:
        self._no_rule_candidates(f"not reached: the run failed first ({fatal})")

    def _security(self, task_files: Sequence[Any], budget: int) -> tuple[str, str | None]:
        """The security section's text, and why the whole run fails (a rule file that cannot be read)."""
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
        found = read_rules(self.fs, self.settings.paths.rules, matches, self._fatal_consequence())
        self.errors.extend(found.errors)
        reads, failure = found.reads, found.failure
        limit = rule_limit(budget, self.counter.name)
        usable = [r for r in reads if r.block]
        sizes = [(len(r.block), limit.measure(r.block, self.counter)) for r in usable]
        self.rule_sizes = [(r.rule, size) for r, (_, size) in zip(usable, sizes, strict=True)]
        fits = dict(zip((r.rule for r in usable), fit_blocks(sizes, limit.limit, len(SECURITY_HEADER)), strict=True))
        self.items.extend(rule_items(self.settings.paths.rules, reads, fits, limit))
        if failure is None:
            self._list_unconsidered()
        for rule, before, after in skip_chain([(r.rule, r.block, fits[r.rule].fits) for r in usable]):
            fit = fits[rule]
            description = f"left out {rule}: {fmt(fit.size)} {limit.unit} did not fit the {fmt(fit.left)} left of "
            self._step(SECURITY, "skip_block", f"rule:{rule}", description + fmt(limit.limit), before, after)
        kept = [r.block for r in usable if fits[r.rule].fits]
        if failure is not None:
            return "", failure
        return (SECURITY_HEADER + "\n\n".join(kept) if kept else ""), None

    def _rule_item(self, rule: str, status: str, reason: str, details: Mapping[str, Any] | None = None) -> ItemDraft:
        return rule_item(self.settings.paths.rules, rule, status, reason, details=details)

    # -- spec excerpts --------------------------------------------------------------------

    def _load_spec_files(self) -> tuple[tuple[SpecFile, SpecFile], str | None]:
        """The requirements and design files (empty when missing), and why the spec section fails."""
        loaded: dict[str, SpecFile] = {}
        failure: str | None = None
        if self.feature.spec_error is not None:
            failure = f"spec loading failed: {self.feature.spec_error}"
            self._error(SPEC, "pipeline", failure, "the spec section is left out", self.feature.graph_path)
            return (SpecFile("requirements"), SpecFile("design")), failure
        for part, names in PART_ORDER:
            load = load_spec(self.fs, self.feature.spec_dir, part, names)
            self.errors.extend(load.errors)
            if load.failure is not None:
                failure = f"spec loading failed: {load.failure}"
                break
            loaded[part] = load.file
        return (loaded.get("requirements", SpecFile("requirements")), loaded.get("design", SpecFile("design"))), failure

    def _extract_keywords(self, failure: str | None) -> str | None:
        """The task's keywords; a task they cannot be taken from fails the spec section (if nothing did)."""
        try:
            self.keywords = extract_keywords(self.raw)
        except KeywordError as exc:
            if failure is not None:
                self.keywords = ()
                return failure
            failure = f"spec loading failed: {exc}"
            self._error(SPEC, "pipeline", failure, "the spec section is left out", self.feature.graph_path)
        return failure

    def _paragraph_items(self, file: SpecFile, ranked: Ranking | None, reason: str | None) -> None:
        """Every paragraph of one spec file as a finished item not in the context, appended to the run."""
        stage = ParagraphItems(
            self.census,
            self.settings.top_k,
            lambda: self._poll("spec excerpts"),
            lambda texts: self.measure_many(texts, "spec excerpts"),
        )
        self.items.extend(stage.of(file.part, file.text, file.rel, file.line, ranked, reason))

    def _spec(self, max_tokens: int) -> str:
        files, failure = self._load_spec_files()
        failure = self._extract_keywords(failure)
        if failure is not None:
            self.left_out[SPEC] = failure
            for file in files:
                self._paragraph_items(file, None, f"the spec section is left out: {failure}")
            return ""
        if not any(file.text for file in files):
            return ""
        words = [k.word for k in self.keywords]
        if not words:
            reason = (
                "the task has no keywords (no title/description word over 3 characters, "
                "no file stem part over 2), so no spec section is built"
            )
            for file in files:
                self._paragraph_items(file, None, reason)
            return ""
        return self._excerpts(files, words, max_tokens)

    def _score_part(self, file: SpecFile, words: Sequence[str]) -> ScoredPart:
        """Rank one part's paragraphs, record them all, and make drafts of the top k."""
        index = spec_index(file.text, file.line)
        ranked = ranking(index, words, lambda: self._poll("spec excerpts"))
        base = len(self.items)
        self._paragraph_items(file, ranked, None)
        scored = ScoredPart(file, ranked, ranked.top(self.settings.top_k))
        for s in scored.top:
            slot = base + s.paragraph.index
            scored.drafts[s.paragraph.index] = draft = draft_of(self.items[slot])
            self.items[slot] = draft
        return scored

    def _excerpts(self, files: Sequence[SpecFile], words: Sequence[str], max_tokens: int) -> str:
        """The spec section: each part's top paragraphs under its header, truncated to its budget."""
        parts: list[str] = []
        # Each part's text in the section as each step leaves it (header excluded), and the
        # steps to record once every part's starting text is known: see spec_chain.
        bodies: dict[str, str] = {}
        steps: list[tuple[str, str, str, str]] = []
        for file in files:
            if not file.text:
                continue
            scored = self._score_part(file, words)
            relevant, top, part, name = scored.relevant, scored.top, file.part, scored.name
            if not relevant:
                continue
            self.scored_parts.append(scored)
            bodies[part] = scored.ranking.ranked_text
            if len(scored.ranking.order) > len(top):
                chose = f"{name}: kept the {len(top)} best of its {len(scored.ranking.order)} scoring paragraphs"
                steps.append(("select_top_k", part, chose, relevant))
            parts.append(PART_HEADERS[part])
            t = self.spec_sub_budgets[part] = part_budget(part, max_tokens, parts, self.counter.count)
            cut = truncate(relevant, t, self.counter)
            if cut.cut:
                how = (
                    f"{name}: cut at a {cut.boundary} boundary to fit {fmt(t)} tokens "
                    f"({fmt(cut.kept_chars)} of {fmt(cut.original_chars)} characters kept)"
                )
                steps.append(("truncate", part, how, cut.text))
            parts.append(cut.text)
            part_offset = sum(len(p) for p in parts[:-1]) + 2 * (len(parts) - 1)
            place_drafts(scored, cut.kept_chars, cut.boundary, t, part_offset)
        chain = spec_chain(bodies, [(part, body) for _, part, _, body in steps])
        for (action, part, description, _), (before, after) in zip(steps, chain, strict=True):
            self._step(SPEC, action, part, description, before, after)
        return "\n\n".join(parts)

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
        context, spans = join_sections((SECURITY, SPEC), texts)
        sections = []
        for name in (SECURITY, SPEC):
            text = texts[name]
            status, reason = self._section_outcome(
                name, text, fatal, "built and within the pipeline's rules", self._empty_reason
            )
            sub = (
                dict(self.spec_sub_budgets)
                if name == SPEC
                else {"summary_limit": rule_limit(budgets[name], self.counter.name).limit}
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

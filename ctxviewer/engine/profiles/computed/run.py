"""The computed profile's run: its stages in order, each one's output the next one's input.

signals and limits (:mod:`.limits`) -> the candidates' sources (:mod:`.sources`) ->
knowledge, prior work and code references scored and limited (:mod:`.knowledge`,
:mod:`.prior_work`, :mod:`.code_refs`) -> packing into the budget (:mod:`.packing`) ->
the debug record (:mod:`.debug`).  The run itself only reports progress, checks for
cancellation between stages, and puts the stages' items, errors and cuts on record.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxviewer.engine.profiles.base import ItemDraft, ProfileResult, RunBase, fmt
from ctxviewer.engine.profiles.computed.code_refs import CodeRefs, rank_code_refs
from ctxviewer.engine.profiles.computed.debug import debug_record
from ctxviewer.engine.profiles.computed.knowledge import Knowledge, select_knowledge
from ctxviewer.engine.profiles.computed.limits import TaskReading, read_task
from ctxviewer.engine.profiles.computed.model import (
    CODE_REFS,
    PRIOR_WORK,
    QUESTIONS,
    SECTIONS,
    Entries,
    no_entries,
)
from ctxviewer.engine.profiles.computed.packing import fit
from ctxviewer.engine.profiles.computed.prior_work import PriorWork, gather_prior_work
from ctxviewer.engine.profiles.computed.sources import ContextMap, read_context_map
from ctxviewer.engine.trace.model import Item


def merge_entries(knowledge: Knowledge, prior: PriorWork, refs: CodeRefs) -> Entries:
    """The three phases' entries as one list per section, in :data:`~.model.SECTIONS` order."""
    entries = no_entries()
    for name, found in knowledge.entries.items():
        entries[name].extend(found)
    entries[PRIOR_WORK].extend(prior.blocks)
    entries[QUESTIONS].extend(prior.questions)
    entries[CODE_REFS].extend(refs.entries)
    return entries


@dataclass(frozen=True)
class Prepared:
    """What the stages before packing worked out: nothing here depends on the budget."""

    task: TaskReading
    cmap: ContextMap
    knowledge: Knowledge
    prior: PriorWork
    refs: CodeRefs
    #: Every section's entries, kept or not, in :data:`~.model.SECTIONS` order.
    entries: Entries


class ComputedRun(RunBase):
    """One run of seed 004's computed context over one task."""

    def run(self) -> ProfileResult:
        settings = self.settings
        done = self.prepare()
        entries = done.entries
        packed = fit(entries, settings.budget, self.counter, self.census)
        for cut in packed.cuts:
            self._step_counted(cut.entry.section, "drop", cut.entry.draft.id, cut.description, cut.before, cut.after)
        self._check("budget", 0.9)
        items = self.finish_items(packed.sections)
        return ProfileResult(
            context=packed.context,
            sections=packed.sections,
            items=items,
            trim_steps=tuple(self.steps),
            keywords=(),
            errors=tuple(self.errors),
            task_files=(),
            section_budgets={name: settings.budget for name, _ in SECTIONS},
            buffer=0,
            notes=tuple(self._notes(done.cmap, packed.tokens)),
            debug=debug_record(
                done.task,
                done.cmap,
                done.knowledge,
                done.prior,
                done.refs,
                entries,
                context_tokens=packed.tokens,
                budget=settings.budget,
                tokenizer=self.counter.name,
                cuts=len(self.steps),
            ),
            signals=done.task.signals,
        )

    def prepare(self) -> Prepared:
        """The stages before packing: signals and limits, sources, phases 2-4, merged entries.

        Sets :attr:`items` (the trace's items in order: every entry's draft, then the
        candidates with no place in the injection); packing only changes the fates of kept
        entries it cuts.
        """
        settings = self.settings
        task = read_task(self.raw, settings.domains)
        self._check("signals", 0.1)
        cmap = self._read_context_map()
        knowledge = select_knowledge(cmap, task.signals, task.limits)
        self._check("knowledge", 0.3)
        prior = gather_prior_work(
            self.raw, self.feature.tasks, self.fs, settings.paths.handoffs, self.feature.graph_path, task.limits
        )
        self.errors.extend(prior.errors)
        self._check("dependencies", 0.5)
        refs = rank_code_refs(cmap, task.signals, task.limits[CODE_REFS])
        self._check("context map", 0.7)
        entries = merge_entries(knowledge, prior, refs)
        drafts: list[ItemDraft | Item] = [e.draft for section in entries.values() for e in section]
        self.items = [*drafts, *knowledge.others, *prior.others, *refs.others]
        return Prepared(task, cmap, knowledge, prior, refs, entries)

    def _read_context_map(self) -> ContextMap:
        """The project's context map, each problem with it an input error on record."""
        cmap = read_context_map(self.fs, self.settings.paths.context_map)
        for message, line in cmap.problems:
            self._error("context map", "input", message, "left out of the computed context", cmap.path, line)
        return cmap

    def _notes(self, cmap: ContextMap, used: int) -> list[str]:
        notes: list[str] = []
        if not cmap.found and not cmap.problems:
            notes.append(f"no context map at {cmap.path}: no patterns, gotchas, decisions or code references")
        budget = self.settings.budget
        if used > budget:
            notes.append(
                f"the empty injection format alone counts {fmt(used)} tokens, over the budget of {fmt(budget)}"
            )
        return notes

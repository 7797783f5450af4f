"""The computed profile's stages, each alone on tiny hand-built inputs (no project, no run).

The whole run is tested in ``test_run.py``; here each stage's inputs are built by
hand and every expected value is worked out from them in the comments.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ctxviewer.engine.profiles.base import ItemDraft
from ctxviewer.engine.profiles.computed import (
    CODE_REFS,
    DECISIONS,
    PATTERNS,
    PRIOR_WORK,
    QUESTIONS,
    RELATED,
    WARNINGS,
    Component,
    ContextMap,
    Entry,
    Handoff,
    Node,
    debug_record,
    fit,
    gather_prior_work,
    limits_for,
    rank_code_refs,
    read_task,
    render,
    select_knowledge,
)
from ctxviewer.engine.profiles.computed.code_refs import CodeRefs, row_text
from ctxviewer.engine.profiles.computed.knowledge import Knowledge, query
from ctxviewer.engine.profiles.computed.model import Entries, no_entries
from ctxviewer.engine.profiles.computed.prior_work import PriorWork, prior_text, question_entries
from ctxviewer.engine.profiles.computed.run import merge_entries
from ctxviewer.engine.project.loading import Task, load_project
from ctxviewer.engine.tokens.counting import Census
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, NOT_CANDIDATE, OUTRANKED, Signal, Signals
from tests.factories import make_project, write


class CharCounter:
    """A tokenizer of one token per character: every count below is a length."""

    name = "chars"

    def count(self, text: str) -> int:
        return len(text)

    def count_many(self, texts: Iterable[str]) -> list[int]:
        return [len(t) for t in texts]


def signals(keywords: tuple[str, ...] = (), domains: tuple[str, ...] = (), files: tuple[str, ...] = ()) -> Signals:
    return Signals(
        keywords=tuple(Signal("keyword", k, ("title",)) for k in keywords),
        domains=tuple(Signal("domain", d, ("title",)) for d in domains),
        files=tuple(Signal("file", f, ("description",)) for f in files),
    )


def draft(item_id: str, section: str = PATTERNS) -> ItemDraft:
    return ItemDraft(item_id, "knowledge_node", section, "pattern", "map", None, None, 1, (), 1, INCLUDED, "r", "", 0)


def entry(section: str, item_id: str, text: str) -> Entry:
    return Entry(section, draft(item_id, section), text)


# -- stage 1: signals and limits --------------------------------------------------------------


def test_without_a_complexity_only_the_phase_limits_apply_and_prior_work_is_unlimited() -> None:
    assert dict(limits_for(None)) == {
        PATTERNS: (5, "phase 2 keeps 5"),
        WARNINGS: (3, "phase 2 keeps 3"),
        DECISIONS: (3, "phase 2 keeps 3"),
        RELATED: (5, "phase 2 keeps 5"),
        CODE_REFS: (10, "phase 4 keeps 10"),
    }


def test_a_complexity_lowers_a_limit_never_raises_it_and_adds_prior_work_last() -> None:
    # easy: patterns 3 < 5 and warnings 2 < 3 replace; decisions and related have no easy
    # limit; code references 5 < 10 replaces; prior work (no phase limit) is added at the end.
    assert list(limits_for("easy").items()) == [
        (PATTERNS, (3, "complexity easy keeps 3")),
        (WARNINGS, (2, "complexity easy keeps 2")),
        (DECISIONS, (3, "phase 2 keeps 3")),
        (RELATED, (5, "phase 2 keeps 5")),
        (CODE_REFS, (5, "complexity easy keeps 5")),
        (PRIOR_WORK, (2, "complexity easy keeps 2")),
    ]
    # complex: 10 patterns, 5 warnings, 20 code references are all above the phase limits.
    complex_limits = limits_for("complex")
    assert complex_limits[PATTERNS] == (5, "phase 2 keeps 5")
    assert complex_limits[CODE_REFS] == (10, "phase 4 keeps 10")
    assert complex_limits[PRIOR_WORK] == (8, "complexity complex keeps 8")


def test_read_task_names_the_level_from_an_alias() -> None:
    task = read_task({"title": "Cache tokens", "complexity": "Opus"}, None)
    assert (task.level, task.level_note) == ("complex", "complexity 'opus': the complex limits")
    assert task.limits[PRIOR_WORK] == (8, "complexity complex keeps 8")
    assert "cache" in task.signals.values("keyword")


# -- phase 2: knowledge -------------------------------------------------------------------------


def test_a_query_keeps_the_best_scores_ties_in_file_order_and_returns_the_rest() -> None:
    a = Node(1, "pattern", "A", ("x",))
    b = Node(2, "pattern", "B", ("x", "y"))
    c = Node(3, "pattern", "C", ("y",))
    d = Node(4, "pattern", "D", ("z",))
    # scores for x, y: A 1, B 2, C 1, D 0 (left out); sorted: B, A, C; limit 2 keeps B and A.
    kept, over = query([a, b, c, d], ["x", "y"], 2)
    assert kept == [(b, 2, ("x", "y")), (a, 1, ("x",))]
    assert over == [c]


def _knowledge() -> Knowledge:
    nodes = (
        Node(1, "pattern", "Two tags", ("session", "token"), file="src/s.py"),  # keyword score 2
        Node(2, "pattern", "One tag", ("session",)),  # keyword score 1
        Node(3, "gotcha", "Domain only", ("auth",), severity="high"),  # domain score 1
        Node(4, "decision", "Unrelated", ("cache",)),  # matches nothing
        Node(5, "task", "T0", ("token",), id="T0"),  # a related task, keyword score 1
        Node(6, "pattern", "Untagged", ()),  # no query can find it
    )
    limits = {**limits_for(None), PATTERNS: (1, "test keeps 1")}
    return select_knowledge(ContextMap("map.yaml", True, nodes=nodes), signals(("session", "token"), ("auth",)), limits)


def test_knowledge_ranks_each_category_and_cuts_at_its_limit() -> None:
    k = _knowledge()
    assert k.matched == 4  # nodes 1, 2, 5 by keyword, 3 by domain
    assert list(k.entries) == [PATTERNS, WARNINGS]
    first, second = k.entries[PATTERNS]
    assert (first.draft.id, first.draft.rank, first.kept, first.draft.status) == ("knowledge:1", 1, True, INCLUDED)
    assert first.text == "- **Two tags** (see: src/s.py)"
    assert first.draft.reason == "keyword query: tags session, token (score 2); rank 1 of 2"
    assert (second.draft.id, second.kept, second.draft.status) == ("knowledge:2", False, OUTRANKED)
    assert second.draft.reason == "keyword query: score 1; rank 2 of 2: cut, test keeps 1"
    (gotcha,) = k.entries[WARNINGS]
    assert gotcha.text == "- \u26a0\ufe0f **high**: Domain only"
    assert gotcha.draft.reason == "domain query: tags auth (score 1); rank 1 of 1"
    assert gotcha.draft.source == "map.yaml knowledge[3]"


def test_knowledge_outside_the_injection_says_why() -> None:
    # The related task is placed while the categories are walked; then the unplaced nodes in file order.
    related, unrelated, untagged = _knowledge().others
    assert (related.id, related.section, related.status, related.text) == ("knowledge:5", RELATED, NOT_CANDIDATE, "")
    assert related.reason.endswith("; a related task: counted, the injection format has no place for it")
    assert (unrelated.id, unrelated.score, unrelated.rank) == ("knowledge:4", 0, None)
    assert unrelated.reason == "no tag among the task's keywords or domains"
    assert (untagged.id, untagged.reason) == ("knowledge:6", "no tags: no query can find it")


# -- phase 3: prior work ------------------------------------------------------------------------


def test_prior_text_lists_summary_files_and_warnings() -> None:
    dep = Task("T1", "Login form", {}, 0)
    handoff = Handoff(
        "h/T1.yaml", "completed", "Built it.", (("src/a.py", "the form"), ("src/b.py", "")), gotchas=(("high", "X"),)
    )
    assert prior_text(dep, handoff) == (
        "#### Login form\nBuilt it.\n\n**Files Created:**\n- `src/a.py`: the form\n- `src/b.py`\n\n"
        "**Warnings:**\n- \u26a0\ufe0f **high**: X"
    )


def test_each_blocking_question_is_an_entry_with_its_context_and_recommendation() -> None:
    handoff = Handoff("h/T1.yaml", "completed", questions=(("Which?", "ctx", ""), ("Why?", "", "rec")))
    first, second = question_entries("T1", handoff)
    assert (first.section, first.draft.id, first.draft.rank) == (QUESTIONS, "question:T1:1", 1)
    assert first.text == "- **Which?**\n  - Context: ctx"
    assert second.text == "- **Why?**\n  - Recommendation: rec"
    assert second.draft.reason == "blocking question handed over by T1"


def test_prior_work_skips_missing_and_unfinished_dependencies_and_outranks_past_the_limit(tmp_path: Path) -> None:
    tasks = [
        {"id": "A", "title": "A done", "status": "completed", "description": "Did A"},
        {"id": "B", "title": "B open", "status": "in_progress"},
        {"id": "C", "title": "C done", "status": "completed"},
        {"id": "T", "title": "Now", "dependencies": ["A", "Z", "B", "C"]},
    ]
    make_project(tmp_path, tasks)
    write(tmp_path, "handoffs/C.yaml", "status: completed\nsummary: Did C\npatterns_discovered: [p1, p2]\n")
    project = load_project(tmp_path)
    feature = project.features[0]
    task = next(t for t in feature.tasks if t.id == "T")
    limits = {PRIOR_WORK: (1, "test keeps 1")}
    prior = gather_prior_work(task.raw, feature.tasks, project.fs, "handoffs", feature.graph_path, limits)
    # A (graph status) is kept; Z is not in the graph; B is not completed; C is completed but
    # the second completed one, over the limit of 1.
    assert [e.draft.id for e in prior.blocks] == ["dependency:A"]
    assert prior.blocks[0].text == "#### A done\nDid A"
    assert [(d.id, d.status) for d in prior.others] == [
        ("dependency:Z", NOT_CANDIDATE),
        ("dependency:B", NOT_CANDIDATE),
        ("dependency:C", OUTRANKED),
    ]
    assert (
        prior.others[1].reason == "status 'in_progress' in the task graph (no handoff file), not 'completed': skipped"
    )
    assert prior.others[2].reason == "completed, but over the limit: test keeps 1 prior tasks"
    assert prior.others[2].source == "handoffs/C.yaml"
    # Both completed ones are inherited ids; only the kept one's patterns count (A has none).
    assert (prior.inherited_ids, prior.inherited_patterns) == (["A", "C"], 0)
    assert prior.errors == []


def test_dependencies_that_are_not_a_list_are_one_input_error() -> None:
    prior = gather_prior_work({"dependencies": "A"}, [], None, "handoffs", None, {})  # type: ignore[arg-type]
    assert [(e.stage, e.message, e.consequence) for e in prior.errors] == [
        ("dependencies", "dependencies is str, not a list", "no prior work")
    ]
    assert prior.blocks == [] and prior.others == []


# -- phase 4: code references -------------------------------------------------------------------


def test_code_references_rank_above_zero_cut_past_the_limit_and_keep_zero_scores_aside() -> None:
    cmap = ContextMap(
        "map.yaml",
        True,
        components=(
            Component(1, "Other", "src/x.py", ""),  # 0
            Component(2, "Cache", "src/ledger_cache.py", ""),  # ledger in location: 1
            Component(3, "Ledger", "src/ledger.py", ""),  # component 2 + location 1: 3
        ),
    )
    refs = rank_code_refs(cmap, signals(("ledger",)), (1, "test keeps 1"))
    assert (refs.total, refs.kept, refs.top_score) == (3, 1, 3)
    assert [(e.draft.id, e.draft.rank, e.kept) for e in refs.entries] == [
        ("component:3", 1, True),
        ("component:2", 2, False),
    ]
    assert refs.entries[0].draft.reason == "score 3 (component: ledger; location: ledger); rank 1 of 2"
    assert refs.entries[1].draft.reason == "score 1 (location: ledger); rank 2 of 2: cut, test keeps 1"
    assert refs.entries[1].draft.status == OUTRANKED
    assert [(d.id, d.status, d.rank) for d in refs.others] == [("component:1", NOT_CANDIDATE, None)]


def test_a_table_row_escapes_the_pipes_in_its_cells() -> None:
    assert row_text(Component(1, "A|B", "src/a.py", "n|m")) == "| `src/a.py` | A\\|B | n\\|m |"


# -- packing ------------------------------------------------------------------------------------

HEADER = "## Context (Computed)"  # 21 characters
EMPTY = (
    "### Warnings\nNo known gotchas for this task area.\n\n### Relevant Decisions\n\n### Prior Work\n\n"
    "### Code References\nExplore the codebase as needed. No specific references pre-identified.\n\n"
    "### Open Questions (Blocking)"
)


def test_render_lays_out_every_section_and_places_each_kept_entry() -> None:
    entries = no_entries()
    entries[PATTERNS] = [entry(PATTERNS, "p1", "- **A**"), entry(PATTERNS, "p2", "- **B**")]
    entries[PATTERNS][1].kept = False
    context, sections = render(entries, 100, Census(False).measure(""))
    assert context == f"{HEADER}\n\n### Patterns to Follow\n- **A**\n\n{EMPTY}"
    patterns = sections[0]
    # The section starts after the header and a blank line: 21 + 2 = 23; its text is the
    # 22-character heading, a newline and the 7-character entry: 30 characters.
    assert patterns.span == (23, 53) and patterns.reason == "1 kept"
    kept, left_out = (e.draft for e in entries[PATTERNS])
    assert (kept.offset, kept.kept_chars) == (23, 7)  # after "### Patterns to Follow\n"
    assert (left_out.offset, left_out.kept_chars) == (None, 0)
    # Sections follow each other with a blank line between: warnings start at 53 + 2.
    assert sections[1].span is not None and sections[1].span[0] == 55


def test_the_code_reference_table_and_the_questions_lead_come_before_the_first_entry() -> None:
    entries = no_entries()
    entries[CODE_REFS] = [entry(CODE_REFS, "c1", "| `a` | A |  |")]
    entries[QUESTIONS] = [entry(QUESTIONS, "q1", "- **Q?**")]
    render(entries, 100, Census(False).measure(""))
    # "### Code References\n" (20) + a 66-character table head (two 32-character lines and
    # their newlines).  "### Open Questions (Blocking)\n" (30) + the lead (the warning sign and
    # its variation selector, 2, then " The following questions need resolution:", 41) and
    # its newline: 30 + 43 + 1.
    assert entries[CODE_REFS][0].draft.offset == 86
    assert entries[QUESTIONS][0].draft.offset == 74


def test_fit_cuts_least_important_first_until_the_whole_fits() -> None:
    entries = no_entries()
    entries[PATTERNS] = [entry(PATTERNS, "p1", "- **A**"), entry(PATTERNS, "p2", "- **B**")]
    entries[CODE_REFS] = [entry(CODE_REFS, "c1", "| `a` | A |  |")]
    entries[QUESTIONS] = [entry(QUESTIONS, "q1", "- **Q?**")]
    full, _ = render(entries, 0, Census(False).measure(""))
    # Cutting the code reference replaces the 66-character table head and the 14-character
    # row by the 70-character empty text: 10 characters less.  With one token per character,
    # a budget of len(full) - 10 is met by that one cut.
    packed = fit(entries, len(full) - 10, CharCounter(), Census(False))  # type: ignore[arg-type]
    assert [c.entry.draft.id for c in packed.cuts] == ["c1"]
    assert packed.cuts[0].before == (len(full), len(full))
    assert packed.cuts[0].after == (len(full) - 10, len(full) - 10) == (packed.tokens, len(packed.context))
    assert entries[CODE_REFS][0].draft.status == CUT_FOR_BUDGET
    assert entries[CODE_REFS][0].draft.reason == f"r; cut to fit the budget of {len(full) - 10:,}"
    assert packed.sections[4].reason == "0 kept, 1 cut for the budget"
    # A budget nothing meets cuts every entry: code references, then patterns from the
    # bottom, then (prior work and warnings being empty) the questions.
    for e in (e for section in entries.values() for e in section):
        e.kept, e.cut_for_budget = True, False
    packed = fit(entries, 0, CharCounter(), Census(False))  # type: ignore[arg-type]
    assert [c.entry.draft.id for c in packed.cuts] == ["c1", "p2", "p1", "q1"]
    assert packed.context == render(no_entries(), 0, Census(False).measure(""))[0]


# -- the debug record ---------------------------------------------------------------------------


def test_the_debug_record_of_a_tiny_run() -> None:
    task = read_task({"title": "Cache"}, None)
    cmap = ContextMap("map.yaml", False)
    entries = no_entries()
    entries[PATTERNS] = [entry(PATTERNS, "p1", "- a"), entry(PATTERNS, "p2", "- b")]
    entries[PATTERNS][1].kept = False
    prior = PriorWork(inherited_ids=["A", "B"], inherited_patterns=3, inherited_warnings=1)
    refs = CodeRefs(total=7, kept=2, top_score=4)
    text = debug_record(
        task, cmap, Knowledge(matched=5), prior, refs, entries, context_tokens=1234, budget=4000, tokenizer="t", cuts=1
    )
    assert text.splitlines()[7:] == [
        "",
        "### Knowledge Graph Query",
        "- Source: map.yaml (not found)",
        "- Nodes matched: 5",
        "- Patterns found: 2 (kept 1)",
        "- Gotchas found: 0 (kept 0)",
        "- Decisions found: 0 (kept 0)",
        "",
        "### Dependencies Processed",
        "- Task IDs: [A, B]",
        "- Patterns inherited: 3",
        "- Warnings inherited: 1",
        "- Blocking questions: 0",
        "",
        "### Context Map Filtering",
        "- Total entries: 7",
        "- Entries after filter: 2",
        "- Top relevance score: 4",
        "",
        "### Limits",
        "- no complexity field: only the phase limits apply",
        "- patterns: 5 (phase 2 keeps 5)",
        "- warnings: 3 (phase 2 keeps 3)",
        "- decisions: 3 (phase 2 keeps 3)",
        "- related tasks: 5 (phase 2 keeps 5)",
        "- code references: 10 (phase 4 keeps 10)",
        "",
        "### Budget",
        "- Context: 1,234 of 4,000 tokens (t)",
        "- Entries cut to fit: 1",
    ]
    assert text.startswith("## Context Debug\n\n### Signals Extracted\n- Keywords: [cache]\n")
    assert text.endswith("\n")


def test_merge_puts_each_phase_in_its_sections_in_injection_order() -> None:
    knowledge = Knowledge(entries={WARNINGS: [entry(WARNINGS, "w", "")], PATTERNS: [entry(PATTERNS, "p", "")]})
    prior = PriorWork(blocks=[entry(PRIOR_WORK, "d", "")], questions=[entry(QUESTIONS, "q", "")])
    refs = CodeRefs(entries=[entry(CODE_REFS, "c", "")])
    merged: Entries = merge_entries(knowledge, prior, refs)
    assert [(name, [e.draft.id for e in found]) for name, found in merged.items()] == [
        (PATTERNS, ["p"]),
        (WARNINGS, ["w"]),
        (DECISIONS, []),
        (PRIOR_WORK, ["d"]),
        (CODE_REFS, ["c"]),
        (QUESTIONS, ["q"]),
    ]

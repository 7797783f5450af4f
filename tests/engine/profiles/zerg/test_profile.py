"""The zerg-0.3.2 run's own stages, each alone: the budget shares, the mixed-language note's
test, upstream's token record, moving an item into its abbreviated section, and the items the
switch and MCP builders' outcomes become."""

from __future__ import annotations

import pytest

from ctxviewer.engine.profiles.base import ItemDraft
from ctxviewer.engine.profiles.zerg.profile import (
    DEPTH,
    EFFICIENCY,
    ENGINEERING,
    MCP,
    MODE,
    REPO_MAP,
    TDD,
    compacted,
    mcp_items,
    mixed_languages,
    section_shares,
    switch_sections,
    task_suffixes,
    token_breakdown,
)
from ctxviewer.engine.profiles.zerg.switches import MCP_HEADER, Routing, ServerOutcome
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.trace.model import INCLUDED, NOT_CANDIDATE, OUTRANKED, SECURITY, SPEC


def test_section_shares_are_int_of_each_share_and_none_for_efficiency() -> None:
    shares = section_shares(999)  # a tenth is 99.9, a fifth 199.8
    assert shares == {ENGINEERING: 99, SECURITY: 99, SPEC: 199, MCP: 99, DEPTH: 99, MODE: 99, TDD: 99,
                      EFFICIENCY: 0, REPO_MAP: 99}  # fmt: skip
    assert list(shares) == [ENGINEERING, SECURITY, SPEC, MCP, DEPTH, MODE, TDD, EFFICIENCY, REPO_MAP]
    assert 999 - sum(shares.values()) == 107  # the buffer the run reports: 999 - (7 x 99 + 199)


def test_mixed_languages_needs_a_python_and_a_javascript_file() -> None:
    assert mixed_languages(["a.py", "b.ts"])
    assert mixed_languages(["A.PY", "x.JSX"])  # suffixes compared lowercased
    assert not mixed_languages(["a.py", "b.pyi"])  # both Python
    assert not mixed_languages([7, "a.py", "Dockerfile"])  # not a path, no suffix


def test_token_breakdown_rounds_halves_to_even_under_upstream_names() -> None:
    texts = {SPEC: "x" * 10, SECURITY: "", REPO_MAP: "abcdef", MCP: "ab"}
    # 10 / 4 = 2.5 -> 2, 6 / 4 = 1.5 -> 2, 2 / 4 = 0.5 -> 0, at least 1; an empty section is not listed
    assert token_breakdown(texts) == {"spec_excerpt": 2, REPO_MAP: 2, MCP: 1}


def test_compacted_moves_a_draft_into_its_abbreviated_section() -> None:
    # "AB security rules" -> "AB sec rules": offsets 3-10 ("security") go to 3, 11 on move back by 5
    where = [0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 6, 7, 8, 9, 10, 11, 12]
    text = "security rules and more"  # 14 characters kept at offset 3, the rest cut
    draft = ItemDraft("r", "rule_file", SECURITY, "rules", "r.md", None, None, None, (), 1, INCLUDED, "", text, 14, 3,
                      {"a": 1})  # fmt: skip
    compacted(draft, "AB sec rules", where)
    assert (draft.text, draft.offset, draft.kept_chars) == ("sec rules and more", 3, 9)
    assert draft.details == {"a": 1, "before_compact": text}


def test_task_suffixes_are_distinct_in_order_and_a_non_path_raises() -> None:
    assert task_suffixes(["a.py", "b/c.test.ts", "Dockerfile", "d.py"]) == [".py", ".ts"]
    with pytest.raises(TypeError, match=r"^a create/modify entry is int 7, not a path$"):
        task_suffixes(["a.py", 7])


def test_switch_sections_build_one_item_per_switch_in_upstream_order() -> None:
    settings = Settings().with_overrides({"tdd_mode": "1", "analysis_depth": "standard"}, "test")
    built = switch_sections(settings, "ZERG_")
    assert [section for section, _, _ in built] == [DEPTH, MODE, TDD, EFFICIENCY]
    depth, mode, tdd, _ = (draft for _, _, draft in built)
    assert (depth.status, depth.text, depth.offset) == (NOT_CANDIDATE, "", None)
    assert depth.reason == "ZERG_ANALYSIS_DEPTH is 'standard'; the section needs anything but empty or 'standard'"
    assert mode.reason == "ZERG_BEHAVIORAL_MODE is unset; the section needs speed, exploration, refactor or debug"
    assert (tdd.status, tdd.offset, tdd.kept_chars) == (INCLUDED, 0, len(tdd.text))
    assert tdd.text and tdd.reason == "ZERG_TDD_MODE is '1': builds this section"
    assert tdd.source == "setting tdd_mode (environment variable ZERG_TDD_MODE)"


def test_mcp_items_list_the_servers_not_asked_for_first_then_those_routed() -> None:
    routing = Routing(
        MCP_HEADER + "magic",
        [("file .tsx", ("ui-component", "frontend"))],
        [
            ServerOutcome("magic", 2, ("frontend", "ui-component"), True, "kept"),
            ServerOutcome("serena", 0, (), False, "no"),
        ],
    )
    items = mcp_items(routing)
    assert [i.id for i in items] == [
        "mcp:sequential",
        "mcp:context7",
        "mcp:playwright",
        "mcp:morphllm",
        "mcp:magic",
        "mcp:serena",
    ]
    assert {i.status for i in items[:4]} == {NOT_CANDIDATE}
    assert items[0].reason == "no capability asked for (file .tsx asks for ui-component, frontend)"
    magic, serena = items[4:]
    assert (magic.status, magic.offset, magic.kept_chars, magic.score) == (INCLUDED, len(MCP_HEADER), 5, 2)
    assert (serena.status, serena.offset, serena.kept_chars) == (OUTRANKED, None, 0)

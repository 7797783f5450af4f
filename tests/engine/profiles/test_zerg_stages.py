"""The zerg-0.3.2 run's own stages, each alone: the budget shares, the mixed-language note's
test, upstream's token record and moving an item into its abbreviated section."""

from __future__ import annotations

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
    mixed_languages,
    section_shares,
    token_breakdown,
)
from ctxviewer.engine.trace.model import INCLUDED, SECURITY, SPEC


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

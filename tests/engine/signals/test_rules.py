"""Security rule filtering (which rule files a task's files select) and summarizing.

Rules under test (the reference ``filter_rules_for_files`` / ``summarize_rules``):

* ``.py .pyx .pyi`` -> python; ``.js .mjs .cjs .ts .tsx .jsx`` -> javascript, on the
  lowercased suffix; a lowercased file name containing ``dockerfile`` or starting
  with ``docker-compose`` -> docker; the core rules are always considered;
* summary of one rule file: lines inside ``` fences are dropped (a fence line is one
  whose ``.strip()`` starts with ```; it toggles and is dropped); lines starting with
  ``## Rule:``, ``### Rule:``, ``**Level**`` or ``**When**`` are kept; the block is
  ``"### <parent folder>/<file name>\\n"`` + the kept lines joined by ``"\\n"``.
"""

from __future__ import annotations

from typing import Any

import pytest

from ctxviewer.engine.signals import rules as rules_mod
from ctxviewer.engine.signals.rules import (
    CANDIDATES,
    CORE,
    DOCKER,
    JAVASCRIPT,
    PYTHON,
    RuleFilterError,
    clear_caches,
    match_rules,
    summarize_file,
)


def selected(files: list[str]) -> set[str]:
    """Non-core rule files that *files* select."""
    return {rule for rule, m in match_rules(files).items() if m.matched_by}


# -- match_rules ---------------------------------------------------------------------


def test_candidates_are_listed_in_order_and_core_is_always_matched() -> None:
    matches = match_rules([])
    assert list(matches) == list(CANDIDATES) == [CORE, PYTHON, JAVASCRIPT, DOCKER]
    assert matches[CORE].matched
    assert not matches[PYTHON].matched
    assert not matches[JAVASCRIPT].matched
    assert not matches[DOCKER].matched


@pytest.mark.parametrize("name", ["app.py", "fast.pyx", "stubs.pyi", "A.PY", "lib/Mod.PyI"])
def test_python_suffixes(name: str) -> None:
    assert selected([name]) == {PYTHON}


@pytest.mark.parametrize("name", ["a.js", "a.mjs", "a.cjs", "a.ts", "a.tsx", "a.jsx", "types.d.ts", "APP.TSX"])
def test_javascript_suffixes(name: str) -> None:
    assert selected([name]) == {JAVASCRIPT}


@pytest.mark.parametrize(
    "name",
    ["a.pyc", "a.pyw", "a.json", "a.jsonl", "README.md", "Makefile", "python", "js", "a.py.bak"],
)
def test_other_suffixes_select_nothing(name: str) -> None:
    assert selected([name]) == set()


def test_the_matched_suffix_is_recorded_lowercased() -> None:
    m = match_rules(["src/A.PY", "web/b.Tsx"])
    assert m[PYTHON].matched_by == (("src/A.PY", ".py"),)
    assert m[JAVASCRIPT].matched_by == (("web/b.Tsx", ".tsx"),)


@pytest.mark.parametrize(
    "name",
    [
        "Dockerfile",
        "build/Dockerfile.prod",
        "app.dockerfile",
        "DOCKERFILE",
        "docker-compose.yml",
        "deploy/docker-compose.override.yaml",
        "DOCKER-COMPOSE.YML",
        "docker-compose",
    ],
)
def test_docker_file_names(name: str) -> None:
    assert selected([name]) == {DOCKER}


@pytest.mark.parametrize(
    "name",
    [
        "prod-docker-compose.yml",  # does not start with docker-compose
        "docker_compose.yml",  # underscore, not dash
        "deploy/docker-compose/app.yml",  # only the file name counts, not its folder
        "Dockerfiles/readme.txt",  # folder name again
        "docker.yml",
    ],
)
def test_names_that_are_not_docker(name: str) -> None:
    assert selected([name]) == set()


def test_a_python_file_named_like_a_dockerfile_selects_both() -> None:
    m = match_rules(["tools/dockerfile_gen.py"])
    assert m[PYTHON].matched_by == (("tools/dockerfile_gen.py", ".py"),)
    assert m[DOCKER].matched_by == (("tools/dockerfile_gen.py", "name contains 'dockerfile'"),)


def test_every_matching_file_is_recorded_in_task_order() -> None:
    m = match_rules(["b.py", "x.md", "a.pyi", "docker-compose.yml", "Dockerfile"])
    assert [f for f, _ in m[PYTHON].matched_by] == ["b.py", "a.pyi"]
    assert [f for f, _ in m[DOCKER].matched_by] == ["docker-compose.yml", "Dockerfile"]
    assert m[JAVASCRIPT].matched_by == ()


@pytest.mark.parametrize("entry", [None, 5, ["a.py"], {"path": "a.py"}])
def test_a_non_string_entry_raises(entry: Any) -> None:
    with pytest.raises(RuleFilterError):
        match_rules(["ok.py", entry])


# -- summarize_file -------------------------------------------------------------------

RULE_TEXT = "\n".join(
    [
        "# Python Security",  # 1
        "",  # 2
        "## Rule: Avoid eval",  # 3  kept
        "**Level**: strict",  # 4  kept
        "**When**: always",  # 5  kept
        "Some prose about ## Rule: inline.",  # 6  does not start with a prefix
        "```python",  # 7  fence opens (dropped)
        "## Rule: inside a fence",  # 8  dropped
        "**Level**: nope",  # 9  dropped
        "```",  # 10 fence closes (dropped)
        "### Rule: Use secrets",  # 11 kept
        "  ## Rule: indented",  # 12 not kept: the prefix test is on the raw line
        "#### Rule: too deep",  # 13 not kept: "#### " is not "## Rule:" nor "### Rule:"
        "**Level** high",  # 14 kept (no colon needed)
        "**When**",  # 15 kept
        "**level**: lower case",  # 16 not kept
    ]
)


def test_summary_keeps_rule_level_and_when_lines_outside_fences() -> None:
    block = summarize_file(PYTHON, RULE_TEXT)
    assert block.block == (
        "### python/CLAUDE.md\n"
        "## Rule: Avoid eval\n"
        "**Level**: strict\n"
        "**When**: always\n"
        "### Rule: Use secrets\n"
        "**Level** high\n"
        "**When**"
    )
    assert block.kept_lines == (3, 4, 5, 11, 14, 15)
    assert block.total_lines == 16
    assert block.rule == PYTHON


def test_block_header_is_parent_folder_and_file_name() -> None:
    assert summarize_file(CORE, "## Rule: A").block == "### _core/owasp-2025.md\n## Rule: A"
    assert summarize_file(DOCKER, "## Rule: B").block == "### docker/CLAUDE.md\n## Rule: B"


def test_indented_fences_and_longer_fences_toggle() -> None:
    text = "\n".join(
        [
            "   ```yaml",  # strip() starts with ``` -> opens
            "## Rule: hidden 1",
            "````",  # four backticks also start with ``` -> closes
            "## Rule: shown",
            "\t```",  # opens again
            "## Rule: hidden 2",
        ]
    )
    # the last fence never closes: everything after it is dropped
    assert summarize_file(PYTHON, text).block == "### python/CLAUDE.md\n## Rule: shown"
    assert summarize_file(PYTHON, text).kept_lines == (4,)


def test_a_line_with_backticks_later_on_is_not_a_fence() -> None:
    text = "text ```\n## Rule: still outside"
    assert summarize_file(PYTHON, text).kept_lines == (2,)


def test_a_fence_line_is_dropped_even_if_it_looks_like_a_rule() -> None:
    # "```## Rule: x" toggles the fence and is dropped; the next line is inside
    text = "```## Rule: x\n## Rule: y\n```\n## Rule: z"
    assert summarize_file(PYTHON, text).block == "### python/CLAUDE.md\n## Rule: z"


def test_no_kept_lines_gives_an_empty_block() -> None:
    block = summarize_file(JAVASCRIPT, "# Title\n\nprose\n```\n## Rule: fenced\n```\n")
    assert block.block == ""
    assert block.kept_lines == ()
    # "# Title", "", "prose", "```", "## Rule: fenced", "```", "" -> 7 lines
    assert block.total_lines == 7


def test_a_summary_is_cached_by_rule_and_content_and_the_cache_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_caches()
    first = summarize_file(PYTHON, RULE_TEXT)
    assert summarize_file(PYTHON, RULE_TEXT) is first  # the same file again: not summarized again
    # another rule name or other content is summarized afresh
    assert summarize_file(CORE, RULE_TEXT).block.startswith("### _core/owasp-2025.md\n")
    assert summarize_file(PYTHON, RULE_TEXT + "\n## Rule: new").kept_lines == (3, 4, 5, 11, 14, 15, 17)
    monkeypatch.setattr(rules_mod._summaries, "size", 2)
    for n in range(5):
        summarize_file(PYTHON, f"## Rule: {n}")
    assert len(rules_mod._summaries) == 2
    monkeypatch.setattr(rules_mod, "SUMMARY_CACHE_CHARS", 4)
    summarize_file(PYTHON, "## Rule: too long to keep")
    assert "## Rule: too long to keep" not in {text for _, text in rules_mod._summaries.held()}
    clear_caches()
    assert not len(rules_mod._summaries)

"""Candidate search ("why was it dropped?") over a small hand-built project."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ctxviewer.engine.analysis.explain import Match, find_candidates, item_label, keyword_sources
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import Trace
from tests.factories import make_project

PY_RULE = "## Rule: Never eval input\n**Level**: strict\n**When**: parsing\n"
JS_RULE = "## Rule: No innerHTML\n**Level**: strict\n**When**: rendering\n"
# Keywords: "rotate", "signing", "keys", "design" from the title ("per" is too short),
# "keys" and "again" from the description, "vault" and "store" from the stem of
# src/vault_store.py.  A paragraph's score is how many of them it contains.
REQUIREMENTS = "\n\n".join(
    [
        "Rotate signing keys daily.",  # lines 1-1: keys, rotate, signing -> 3, rank 1
        "Vault access is logged.",  # lines 3-3: vault -> 1, rank 2
        "Nothing relevant here.",  # lines 5-5: 0, never ranked
    ]
)
# A long paragraph: 100 characters of "word ", then the 25-character middle (at 100-125),
# then 100 characters of " tail".  Lines 1-2 (one newline inside).  Score 1 (vault).
LONG = "word " * 20 + "Vault  has\n  many   doors" + " tail" * 20
DESIGN = LONG + "\n\n" + "The design holds keys apart."  # second one: lines 4-4, design + keys -> 2

PY_SOURCE = ".claude/rules/security/languages/python/CLAUDE.md"
REQ_SOURCE = ".gsd/specs/feat/requirements.md"
DESIGN_SOURCE = ".gsd/specs/feat/design.md"


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Trace:
    task = {
        "id": "T-1",
        "title": "Rotate signing keys per design",
        "description": "Keys again",
        "files": {"create": [], "modify": ["src/vault_store.py"], "read": []},
    }
    root = make_project(
        tmp_path_factory.mktemp("explain") / "proj",
        [task],
        requirements=REQUIREMENTS,
        design=DESIGN,
        rules={"languages/python/CLAUDE.md": PY_RULE, "languages/javascript/CLAUDE.md": JS_RULE},
    )
    return assemble(load_project(root), "feat", "T-1", exact=False)


def test_the_project_gives_the_keywords_worked_out_above(trace: Trace) -> None:
    assert [k.word for k in trace.keywords] == ["again", "design", "keys", "rotate", "signing", "store", "vault"]


@pytest.mark.parametrize("query", ["", "   ", "\n\t "])
def test_a_blank_query_finds_nothing(trace: Trace, query: str) -> None:
    assert find_candidates(trace, query) == []


def test_a_query_matching_nothing_finds_nothing(trace: Trace) -> None:
    assert find_candidates(trace, "zebra") == []


def test_matching_is_case_insensitive(trace: Trace) -> None:
    lower = find_candidates(trace, "vault")
    assert lower  # "Vault access is logged." is written with a capital V
    assert find_candidates(trace, "VAULT") == lower
    assert find_candidates(trace, "vAuLt") == lower


def test_a_match_in_the_source_path_only(trace: Trace) -> None:
    # "javascript" is only in the JS rule's path: not matched (no .js file), so no text,
    # and its trigger lists suffixes (".js, .mjs, ...") rather than the word.
    (match,) = find_candidates(trace, "javascript")
    assert match.item_id == "rule:languages/javascript/CLAUDE.md"
    assert match.found_in == ("source",)
    assert match.status == "not_candidate"  # never matched: not in the running
    assert match.reason.startswith("not matched")
    assert match.excerpt == ""  # nothing to quote when the text did not match


def test_the_item_id_counts_as_source(trace: Trace) -> None:
    # "requirements:2" is the id of the second paragraph, not part of any path or text.
    (match,) = find_candidates(trace, "requirements:2")
    assert match.item_id == "requirements:2"
    assert match.found_in == ("source",)


def test_a_match_in_the_text_only_is_reported_whole(trace: Trace) -> None:
    # "logged" occurs only in "Vault access is logged." (no keyword, path or rule detail).
    assert find_candidates(trace, "logged") == [
        Match(
            item_id="requirements:2",
            kind="spec_paragraph",
            label=f"{REQ_SOURCE}:3-3",
            status="included",
            reason="rank 2 of 2 kept (score 1)",
            found_in=("text",),
            excerpt="Vault access is logged.",  # short: no ellipsis on either side
        )
    ]


def test_a_matched_keyword_is_reported_before_the_text(trace: Trace) -> None:
    matches = {m.item_id: m for m in find_candidates(trace, "vault")}
    # Both paragraphs containing "vault" have it as a matched keyword and in their text.
    assert matches["requirements:2"].found_in == ("keyword", "text")
    assert matches["design:1"].found_in == ("keyword", "text")


def test_a_match_in_the_rule_trigger(trace: Trace) -> None:
    # The core rule file is missing, but it is always considered; its trigger text says so.
    (match,) = find_candidates(trace, "always considered")
    assert match.item_id == "rule:_core/owasp-2025.md"
    assert match.found_in == ("rule",)
    assert match.label == ".claude/rules/security/_core/owasp-2025.md"
    assert match.status == "not_candidate"  # considered, but its file is missing


def test_a_match_in_the_task_file_that_selected_a_rule(trace: Trace) -> None:
    # "vault_store" is no keyword ("vault" and "store" are) and no paragraph contains it:
    # only the python rule's matched_by entry ({"file": "src/vault_store.py", "by": ".py"}).
    (match,) = find_candidates(trace, "vault_store")
    assert match.item_id == "rule:languages/python/CLAUDE.md"
    assert match.found_in == ("rule",)
    assert match.status == "included"


def test_found_in_lists_source_keyword_text_in_that_order(trace: Trace) -> None:
    # "design": in the design paragraphs' path; the second one also has the keyword
    # "design" and the word in its text.
    matches = find_candidates(trace, "design")
    assert [(m.item_id, m.found_in) for m in matches] == [
        ("design:1", ("source",)),
        ("design:2", ("source", "keyword", "text")),
    ]


def test_found_in_lists_source_text_rule_in_that_order(trace: Trace) -> None:
    # "py": the python rule's path (".../python/..."), its block ("### python/CLAUDE.md")
    # and its trigger ("... ending in .py, .pyx, .pyi").  Nothing else contains "py".
    (match,) = find_candidates(trace, "py")
    assert match.item_id == "rule:languages/python/CLAUDE.md"
    assert match.found_in == ("source", "text", "rule")


def test_results_keep_trace_order(trace: Trace) -> None:
    # Rule files come first in a trace, then requirements, then design paragraphs.
    matches = find_candidates(trace, "vault")
    assert [(m.label, m.found_in) for m in matches] == [
        (PY_SOURCE, ("rule",)),
        (f"{REQ_SOURCE}:3-3", ("keyword", "text")),
        (f"{DESIGN_SOURCE}:1-2", ("keyword", "text")),
    ]
    assert [m.item_id for m in matches] == [i.id for i in trace.items if i.id in {m.item_id for m in matches}]


def test_excerpt_is_cut_on_both_sides_with_whitespace_collapsed(trace: Trace) -> None:
    # "Vault" is at 100 in LONG (225 chars): the excerpt runs from 40 to 100 + 5 + 60 = 165,
    # i.e. 12 "word "s, the middle, and 40 characters = 8 " tail"s; both ends are cut.
    (match,) = [m for m in find_candidates(trace, "vault") if m.item_id == "design:1"]
    assert match.excerpt == "\u2026" + "word " * 12 + "Vault has many doors" + " tail" * 8 + "\u2026"


def test_excerpt_at_the_start_has_only_a_trailing_ellipsis(trace: Trace) -> None:
    # The python block is 82 characters; "py" is at 4, so the excerpt is text[0:66]:
    # the first three lines and the "*" opening the fourth, newlines turned into spaces.
    (match,) = find_candidates(trace, "py")
    assert match.excerpt == "### python/CLAUDE.md ## Rule: Never eval input **Level**: strict *\u2026"


def test_keyword_sources_for_a_title_word(trace: Trace) -> None:
    assert keyword_sources(trace, "rotate") == ["title"]


def test_keyword_sources_for_a_word_in_title_and_description(trace: Trace) -> None:
    assert keyword_sources(trace, "Keys") == ["title", "description"]


def test_keyword_sources_for_a_file_stem_part(trace: Trace) -> None:
    assert keyword_sources(trace, " VAULT ") == ["files.modify: src/vault_store.py"]
    assert keyword_sources(trace, "store") == ["files.modify: src/vault_store.py"]


@pytest.mark.parametrize("query", ["per", "src", "zebra", "", "vault_store"])
def test_keyword_sources_is_empty_for_a_non_keyword(trace: Trace, query: str) -> None:
    assert keyword_sources(trace, query) == []


def test_item_label_of_a_paragraph_is_path_and_lines(trace: Trace) -> None:
    assert item_label(trace.item("requirements:1")) == f"{REQ_SOURCE}:1-1"  # type: ignore[arg-type]
    assert item_label(trace.item("design:1")) == f"{DESIGN_SOURCE}:1-2"  # type: ignore[arg-type]
    assert item_label(trace.item("design:2")) == f"{DESIGN_SOURCE}:4-4"  # type: ignore[arg-type]


def test_item_label_of_a_rule_file_is_its_source_even_with_lines(trace: Trace) -> None:
    python = trace.item("rule:languages/python/CLAUDE.md")
    assert python is not None and python.line_start == 1  # the file's 4 lines are recorded
    assert item_label(python) == PY_SOURCE
    missing = trace.item("rule:_core/owasp-2025.md")
    assert missing is not None and missing.line_start is None
    assert item_label(missing) == ".claude/rules/security/_core/owasp-2025.md"


def test_explain_imports_without_qt() -> None:
    code = (
        "import sys\n"
        "sys.modules['PySide6'] = None\n"
        "import ctxviewer.engine.analysis.explain\n"
        "assert not any(k.startswith('PySide6') and sys.modules[k] for k in sys.modules)\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"

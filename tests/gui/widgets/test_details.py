"""The detail panes' HTML: marked keywords, why a paragraph is where it is, a rule file's arithmetic."""

from __future__ import annotations

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import INCLUDED, NOT_CANDIDATE, OUTRANKED, TRUNCATED, Item, Trace
from ctxviewer.gui.views.sections_tab import budget_arithmetic
from ctxviewer.gui.widgets.details import mark_keywords, paragraph_html, rule_html
from tests.factories import make_project, write

PY_RULE = "## Rule: Never eval <input> & co\n**Level**: strict\n**When**: parsing\n"
JS_RULE = "## Rule: No innerHTML\n**Level**: strict\n**When**: rendering\n"
# Keywords: "rotate", "signing", "keys" (title words over 3 characters) and "vault"
# (stem of src/vault.py).  Score = how many of them a paragraph contains.
REQUIREMENTS = "\n\n".join(
    [
        "Rotate signing keys daily.",  # line 1: 3 -> rank 1
        "Rotate keys weekly.",  # line 3: 2 -> rank 2
        "Signing is audited.",  # line 5: 1 -> rank 3
        "Rotate nothing else.",  # line 7: 1 -> rank 4
        "Keys are stored apart.",  # line 9: 1 -> rank 5
        "Rotate again later.",  # line 11: 1 -> rank 6, the first past the top 5
        "Nothing relevant here.",  # line 13: 0 -> never ranked
    ]
)
DESIGN = "Unrelated design text."  # 0: no design paragraph is ranked at all

PRE = '<pre style="white-space: pre-wrap">'
STRUCK = '<span style="color:#9e9e9e; text-decoration: line-through">'
SCISSORS = '<span style="color:#d32f2f; font-weight:bold">\u2702</span>'


def mark(word: str, colour: str = "#ffe58a") -> str:
    return f'<span style="background:{colour}; color:#000">{word}</span>'


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Trace:
    task = {
        "id": "T-1",
        "title": "Rotate signing keys",
        "description": "",
        "files": {"create": [], "modify": ["src/vault.py"], "read": []},
    }
    root = make_project(
        tmp_path_factory.mktemp("details") / "proj",
        [task],
        requirements=REQUIREMENTS,
        design=DESIGN,
        rules={"languages/python/CLAUDE.md": PY_RULE, "languages/javascript/CLAUDE.md": JS_RULE},
    )
    return assemble(load_project(root), "feat", "T-1", exact=False)


# "Login one is here. Login two is there." is 38 characters; the lost rest is 22.
TRUNCATED_PARA = "Login one is here. Login two is there. Login <three> & more."


@pytest.fixture(scope="module")
def truncated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Trace, Item]:
    task = {"id": "T", "title": "Login", "files": {}}
    root = make_project(tmp_path_factory.mktemp("truncated") / "proj", [task], requirements=TRUNCATED_PARA)
    # Budget 40 -> spec excerpts int(40 * 0.5) = 20 -> requirements 20 // 2 = 10 tokens = 40
    # characters.  No blank line in the first 40; the last ". " is at 37 (> 40 // 2), so the
    # cut keeps 38 characters, up to "there.".
    write(root, "ctxviewer.yaml", "budget:\n  total: 40\n")
    trace = assemble(load_project(root), "feat", "T", exact=False)
    item = trace.item("requirements:1")
    assert item is not None
    return trace, item


def _item(trace: Trace, item_id: str) -> Item:
    item = trace.item(item_id)
    assert item is not None, item_id
    return item


# -- mark_keywords -------------------------------------------------------------------


def test_mark_keywords_escapes_html_around_and_inside_marks() -> None:
    assert mark_keywords("<b>&", ["b"]) == "&lt;" + mark("b") + "&gt;&amp;"


def test_mark_keywords_without_keywords_is_plain_escaped_text() -> None:
    assert mark_keywords('a <b> & "c"', []) == "a &lt;b&gt; &amp; &quot;c&quot;"
    assert mark_keywords("<i>", [""]) == "&lt;i&gt;"  # an empty keyword is no keyword


def test_mark_keywords_marks_every_occurrence_in_any_case_keeping_the_case() -> None:
    assert mark_keywords("Login, LOGIN and login.", ["login"]) == (
        mark("Login") + ", " + mark("LOGIN") + " and " + mark("login") + "."
    )


@pytest.mark.parametrize("keywords", [["pass", "password"], ["password", "pass"]])
def test_mark_keywords_prefers_the_longest_keyword(keywords: list[str]) -> None:
    assert mark_keywords("password pass", keywords) == mark("password") + " " + mark("pass")


def test_mark_keywords_takes_the_colour() -> None:
    assert mark_keywords("ab", ["a"], colour="red") == mark("a", "red") + "b"


def test_mark_keywords_treats_keywords_literally() -> None:
    # Keywords keep punctuation ("module."); "." must not match any character.
    assert mark_keywords("modules module.", ["module."]) == "modules " + mark("module.")


def test_mark_keywords_marks_what_the_engine_matched_with_lower() -> None:
    keyword = "İstanbul".lower()  # how the engine lowercases a title word: 'i̇stanbul'
    text = "Visit İstanbul."
    assert keyword in text.lower()  # the engine counts this paragraph as matching
    assert "<span" in mark_keywords(text, [keyword])


# -- paragraph_html --------------------------------------------------------------------


def test_the_project_ranks_as_worked_out(trace: Trace) -> None:
    paras = [_item(trace, f"requirements:{n}") for n in range(1, 8)]
    assert [p.score for p in paras] == [3, 2, 1, 1, 1, 1, 0]
    assert [p.rank for p in paras] == [1, 2, 3, 4, 5, 6, None]
    assert [p.status for p in paras] == [INCLUDED] * 5 + [OUTRANKED, NOT_CANDIDATE]  # rank 6 > top 5; score 0


def test_an_included_paragraph_in_full(trace: Trace) -> None:
    html = paragraph_html(trace, _item(trace, "requirements:1"))
    assert html == (
        "<b>.gsd/specs/feat/requirements.md</b>, lines 1\u20131<br>"
        "Score <b>3</b> \u00b7 rank <b>1</b> \u00b7 <b>included</b>: rank 1 of 5 kept (score 3)"
        # The task has no design-time context: the spec fallback carries the paragraph to the worker.
        "<br><i>Reached the worker:</i> <b>yes, in the prompt</b>: all its lines are in the prompt&#x27;s "
        "spec fallback: requirements"
        "<br>Matched keywords: keys, rotate, signing"
        "<br><i>Top-k cut:</i> 6 requirements paragraphs scored above 0; the top 5 were kept "
        "(lowest kept score 1); the first left out was rank 6 with score 1. "
        "This paragraph is rank 1, above the cut."
        + PRE
        + mark("Rotate")
        + " "
        + mark("signing")
        + " "
        + mark("keys")
        + " daily.</pre>"
    )


def test_a_rank_6_paragraph_is_below_the_cut(trace: Trace) -> None:
    html = paragraph_html(trace, _item(trace, "requirements:6"))
    assert ", lines 11\u201311<br>" in html
    assert (
        "Score <b>1</b> \u00b7 rank <b>6</b> \u00b7 <b>outranked</b>: rank 6, only the top 5 are kept (score 1)" in html
    )
    assert "the first left out was rank 6 with score 1. This paragraph is rank 6, below the cut." in html
    assert html.endswith(PRE + mark("Rotate") + " again later.</pre>")


def test_a_score_0_paragraph_was_never_ranked(trace: Trace) -> None:
    html = paragraph_html(trace, _item(trace, "requirements:7"))
    assert (
        "Score <b>0</b> \u00b7 rank <b>\u2014</b> \u00b7 <b>not a candidate</b>: "
        "score 0: no task keyword occurs in it" in html
    )
    assert "<br>Matched keywords: none<br>" in html
    assert "This paragraph scored 0, so it was never ranked." in html
    assert "above the cut" not in html and "below the cut" not in html
    assert html.endswith(PRE + "Nothing relevant here.</pre>")  # nothing to mark


def test_a_part_without_ranked_paragraphs_says_so(trace: Trace) -> None:
    html = paragraph_html(trace, _item(trace, "design:1"))
    assert "<i>Top-k cut:</i> No paragraph of this part scored above 0, so none was ranked." in html


def test_a_truncated_paragraph_shows_the_cut(truncated: tuple[Trace, Item]) -> None:
    trace, item = truncated
    assert item.status == TRUNCATED and item.kept_chars == 38 and len(item.text) == 60
    html = paragraph_html(trace, item)
    assert (
        "\u00b7 <b>truncated</b>: rank 1 of 1 kept (score 1); cut at a sentence boundary: "
        "38 of 60 characters kept (the requirements budget is 10 tokens)"
    ) in html
    assert (
        "<br><i>Truncation:</i> 38 of 60 characters kept; the cut is marked \u2702 and the lost text is struck through."
    ) in html
    assert "1 requirements paragraphs scored above 0; the top 5 were kept (lowest kept score 1). " in html
    # The kept part with its keywords marked, the scissors, then the lost part struck and escaped.
    assert html.endswith(
        PRE
        + mark("Login")
        + " one is here. "
        + mark("Login")
        + " two is there."
        + SCISSORS
        + STRUCK
        + " Login &lt;three&gt; &amp; more.</span></pre>"
    )


def test_the_mark_and_cut_colours_are_used(truncated: tuple[Trace, Item]) -> None:
    trace, item = truncated
    html = paragraph_html(trace, item, mark="#00ff00", cut="#123456")
    assert mark("Login", "#00ff00") in html
    assert '<span style="color:#123456; text-decoration: line-through"> Login' in html


# -- rule_html ---------------------------------------------------------------------------


def test_a_matched_rule_file_in_full(trace: Trace) -> None:
    # Budget 4000 -> security int(4000 * 0.3) = 1200 tokens -> 4800 characters; the core
    # file is missing, so all 4800 are left for the python block:
    # "### python/CLAUDE.md\n" 21 + "## Rule: Never eval <input> & co\n" 33
    # + "**Level**: strict\n" 18 + "**When**: parsing" 17 = 89 characters.
    html = rule_html(_item(trace, "rule:languages/python/CLAUDE.md"))
    assert html == (
        "<b>.claude/rules/security/languages/python/CLAUDE.md</b>"
        "<br><b>included</b>: matched by src/vault.py (.py); block of 89 characters fit the 4,800 left of 4,800"
        "<br><i>Reached the worker:</i> <b>yes, as project memory</b>: its file loads whole as project memory: "
        ".zerg-worktrees/feat/worker-0/.claude/rules/security/languages/python/CLAUDE.md (always)"
        "<br>Considered when: a create/modify file ending in .py, .pyx, .pyi"
        "<br>Matched by: src/vault.py (.py)"
        "<br>Needed 89 characters; 4,800 left of 4,800"
        "<br>3 rule lines kept (Rule / Level / When lines)"
        + PRE
        + "### python/CLAUDE.md\n## Rule: Never eval &lt;input&gt; &amp; co\n**Level**: strict\n**When**: parsing"
        + "</pre>"
    )


def test_an_unmatched_rule_file_has_only_its_trigger(trace: Trace) -> None:
    html = rule_html(_item(trace, "rule:languages/javascript/CLAUDE.md"))
    suffixes = ".js, .mjs, .cjs, .ts, .tsx, .jsx"
    assert html == (
        "<b>.claude/rules/security/languages/javascript/CLAUDE.md</b>"
        f"<br><b>not a candidate</b>: not matched: no task file is create/modify file ending in {suffixes}"
        # Not the plugin's candidate, but every worker's session loads the file whole.
        "<br><i>Reached the worker:</i> <b>yes, as project memory</b>: its file loads whole as project memory: "
        ".zerg-worktrees/feat/worker-0/.claude/rules/security/languages/javascript/CLAUDE.md (always)"
        f"<br>Considered when: a create/modify file ending in {suffixes}"
    )


def test_a_missing_core_rule_file_says_so(trace: Trace) -> None:
    html = rule_html(_item(trace, "rule:_core/owasp-2025.md"))
    assert "<b>not a candidate</b>: core rules, always considered, but the file does not exist" in html
    assert "Considered when: always considered (core OWASP rules)" in html
    assert "Matched by" not in html and "Needed" not in html and PRE not in html


def test_ctxviewer_yaml_sets_the_budget(truncated: tuple[Trace, Item]) -> None:
    trace, _ = truncated
    assert trace.budget == 40
    assert trace.settings["budget"].origin == "ctxviewer.yaml"


def test_other_profiles_show_their_details_not_a_top_k_cut(tmp_path_factory: pytest.TempPathFactory) -> None:
    root = tmp_path_factory.mktemp("ctx")
    task = {"id": "T", "title": "Rotate signing keys", "files": {"create": ["src/vault.py"]}}
    make_project(root, [task], requirements=REQUIREMENTS, design=DESIGN)
    trace = assemble(load_project(root), "feat", "T", {"profile": "ctxviewer"}, exact=False)
    item = trace.item("requirements:1")
    assert item is not None
    page = paragraph_html(trace, item)
    assert "Top-k cut" not in page
    # "Rotate signing keys daily.": each keyword occurs once, as a word ("keys" keeps its s:
    # only words over 4 letters lose a plural s).
    assert "matches: keys \u00d71, rotate \u00d71, signing \u00d71" in page


def test_whole_budget_profiles_say_their_sections_have_no_budgets(tmp_path_factory: pytest.TempPathFactory) -> None:
    root = tmp_path_factory.mktemp("drift")
    task = {"id": "T", "title": "Rotate signing keys", "files": {"create": ["src/vault.py"]}}
    make_project(root, [task], requirements=REQUIREMENTS, design=DESIGN)
    drift = assemble(load_project(root), "feat", "T", {"profile": "drift"}, exact=False)
    text = budget_arithmetic(drift)
    assert text.startswith("<b>Budget 4,000</b> heuristic tokens for the whole context; the drift profile")
    shaktiman = assemble(load_project(root), "feat", "T", {"profile": "shaktiman"}, exact=False)
    # 2% of 4,000 is kept free.
    assert "80 of them kept free as a safety margin" in budget_arithmetic(shaktiman)

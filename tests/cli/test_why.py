"""``ctxviewer why``: every candidate that mentions TEXT, with its fate, reason and findings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import CHK, STOREFRONT, run
from tests.factories import make_project


def test_why_finds_a_paragraph_located_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    # requirements.md line 58 is CART-REQ-033, the only paragraph naming it; the task's title
    # ("Idempotency and payment-action support in the HTTP client") shares 'idempotency' and
    # 'client' with it, so it scores 2 and is kept.
    spec = (STOREFRONT / ".gsd/specs/cart-checkout/requirements.md").read_text(encoding="utf-8").splitlines()
    assert spec[57].startswith("CART-REQ-033: The place-order button")
    code, out, err = run(capsys, *CHK, "cart-req-033", "--format", "json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert (data["feature"], data["task"], data["text"], data["budget"]) == (
        "cart-checkout",
        "CHK-L1-001",
        "cart-req-033",
        3000,
    )
    [m] = data["matches"]
    assert m["label"] == ".gsd/specs/cart-checkout/requirements.md:58" and m["lines"] == [58, 58]
    assert (m["kind"], m["section"], m["status"], m["fate"]) == (
        "spec_paragraph",
        "spec_excerpts",
        "included",
        "included",
    )
    assert (m["score"], sorted(m["matched_keywords"])) == (2, ["client", "idempotency"])
    assert m["tokens"] == len(spec[57]) // 4 == m["token_counts"]["heuristic"]
    assert isinstance(m["rank"], int) and m["reason"].startswith(f"rank {m['rank']} of ")
    assert m["found_in"] == ["text"]


def test_why_text_shows_fate_reason_section_and_tokens(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *CHK, "CART-REQ-033")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("'CART-REQ-033' in cart-checkout/CHK-L1-001 (profile mahabharatha, budget 3,000): 1 of ")
    assert lines[2] == "1. .gsd/specs/cart-checkout/requirements.md:58  [included]"
    assert lines[3].startswith("   rank ") and "(score 2)" in lines[3]
    # the paragraph is requirements.md's line 58 alone: 199 characters, 199 // 4 = 49 tokens
    line = (STOREFRONT / ".gsd/specs/cart-checkout/requirements.md").read_text(encoding="utf-8").splitlines()[57]
    assert len(line) == 199
    assert lines[4].startswith("   paragraph in Spec excerpts · score 2 · rank ")
    assert lines[4].endswith(" · 49 heuristic tokens · found in text")
    assert lines[5] == "   keywords: client, idempotency"
    assert lines[6].startswith("   text: CART-REQ-033: The place-order button")


def test_why_finds_a_rule_file_by_its_path(capsys: pytest.CaptureFixture[str]) -> None:
    # CHK-L1-001 modifies src/lib/http.ts: the JavaScript rule file matches it by extension.
    code, out, _ = run(capsys, *CHK, "languages/javascript", "--format", "json")
    assert code == 0
    [m] = json.loads(out)["matches"]
    assert m["kind"] == "rule_file" and m["source"].endswith("languages/javascript/CLAUDE.md")
    assert "src/lib/http.ts" in m["reason"] and m["section"] == "security_rules"


def test_why_with_no_match_is_exit_1_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, *CHK, "zqxjv-not-there")
    assert (code, out) == (1, "")
    assert err.startswith("ctxviewer: no candidate of cart-checkout/CHK-L1-001 contains 'zqxjv-not-there' (")
    assert err.count("\n") == 1
    code, out, _ = run(capsys, *CHK, "zqxjv-not-there", "--format", "json")
    assert code == 1 and json.loads(out)["matches"] == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["   "], "TEXT is empty: give a word, a rule name, a file or an id to look for"),
        (["x", "--budget", "4kk"], "--budget: must be a whole number of tokens (4000, 4,000 or 4k), not '4kk'"),
        (["x", "--profile", "drfit"], "--profile: 'drfit' is not a profile; did you mean drift?"),
    ],
)
def test_why_bad_input_is_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = run(capsys, *CHK, *argv)
    assert (code, out, err) == (2, "", f"ctxviewer: {message}\n")


def test_why_takes_profile_set_and_budget(three_features: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "Beta session store." is requirements.md's second paragraph, line 3: 19 chars, 4 tokens.
    argv = ["why", str(three_features), "--feature", "feat", "--task", "T1", "beta", "--format", "json"]
    code, out, _ = run(capsys, *argv, "--budget", "1.5k", "--set", "top_k=1", "--profile", "mahabharatha")
    assert code == 0
    data = json.loads(out)
    assert (data["budget"], data["profile"]) == (1500, "mahabharatha")
    [m] = data["matches"]
    assert (m["label"], m["tokens"], m["score"]) == (".gsd/specs/feat/requirements.md:3", 4, 1)
    # top_k=1 keeps one paragraph: "Alpha login flow." ('login') and this one ('session') both
    # score 1, and file order ranks the first one first.
    assert m["status"] != "included" and m["rank"] == 2


def test_why_says_where_a_keyword_came_from(three_features: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "why", str(three_features), "--feature", "feat", "--task", "T1", "session")
    assert code == 0
    assert out.splitlines()[1] == "it is a keyword of the task, from title"


def test_why_lists_the_findings_about_what_matched(capsys: pytest.CaptureFixture[str]) -> None:
    # The JavaScript rule file matches src/lib/http.ts and does not fit the plugin's context, but
    # every worker loads it as project memory: a rule-cut-loaded finding, and its path.
    code, out, _ = run(capsys, *CHK, "javascript/CLAUDE.md", "--format", "json")
    assert code == 0
    [m] = json.loads(out)["matches"]
    assert (m["status"], m["fate"], m["reached"]) == ("cut_for_budget", "cut for budget", "memory")
    [finding] = m["findings"]
    assert (finding["code"], finding["severity"], finding["item"]) == ("rule-cut-loaded", "info", m["id"])
    assert "src/lib/http.ts" in finding["message"]
    code, out, _ = run(capsys, *CHK, "javascript/CLAUDE.md")
    assert "  [cut for budget]\n" in out
    assert "\n   reached the worker: yes, as project memory: its file loads whole as project memory: " in out
    assert "\n   finding rule-cut-loaded (info): The plugin cut the security rule file " in out
    assert "\nWhat the worker received: the worker gets project memory: " in out


def test_why_names_a_few_keyword_sources_of_a_task_with_many_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """'file' comes from each of 1,000 created files' names; the text names the first three and
    counts the rest (it printed all 1,000, 100,000 files made one 4 MB line); JSON lists them all."""
    files = [f"src/file_{i}.py" for i in range(1_000)]
    task = {"id": "T1", "title": "Many", "files": {"create": files}}
    project = make_project(tmp_path, [task], requirements="Some file here.\n", rules={})
    code, out, _ = run(capsys, "why", str(project), "--feature", "feat", "--task", "T1", "file")
    assert code == 0
    assert out.splitlines()[1] == (
        "it is a keyword of the task, from files.create: src/file_0.py, files.create: src/file_1.py, "
        "files.create: src/file_2.py and 997 more"
    )
    code, out, _ = run(capsys, "why", str(project), "--feature", "feat", "--task", "T1", "file", "--format", "json")
    assert code == 0 and len(json.loads(out)["keyword_sources"]) == 1_000

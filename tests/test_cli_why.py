"""The CLI that answers: -o's extension picks the format, budgets as people write them, ``list`` and ``why``."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from ctxviewer.cli import main
from tests.factories import make_project, write

SAMPLES = Path(__file__).resolve().parent.parent / "sample_projects"
TASK = {"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"], "read": []}}
CORE = "## Rule: A\n**Level**: strict\n"
#: T1's context, worked out in tests/test_cli.py: the core rule, both requirement paragraphs
#: (each holds 'login' or 'session'), the design paragraph ('login').
CONTEXT_T1 = (
    "## Security Rules (task-scoped)\n\n### _core/owasp-2025.md\n## Rule: A\n**Level**: strict"
    "\n\n## Relevant Requirements\n\nAlpha login flow.\n\nBeta session store."
    "\n\n## Relevant Design\n\nLogin screen design."
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = make_project(
        tmp_path / "proj",
        [TASK, {"id": "T2", "title": "Other work", "files": {}}],
        requirements="Alpha login flow.\n\nBeta session store.",
        design="Login screen design.",
        rules={"_core/owasp-2025.md": CORE},
    )
    # a second feature, and a folder with a spec but no task graph
    write(
        root,
        ".gsd/specs/billing/task-graph.json",
        json.dumps({"feature": "billing", "tasks": [{"id": "B-001", "title": "Invoice totals", "files": {}}]}),
    )
    write(root, ".gsd/specs/billing/requirements.md", "Invoice totals are integers.")
    write(root, ".gsd/specs/notes/requirements.md", "Nothing to do yet.")
    return root


def assemble_json(capsys: pytest.CaptureFixture[str], root: Path, feature: str, task: str, *more: str) -> dict:
    code, out, _ = run(capsys, "assemble", str(root), "--feature", feature, "--task", task, "--format", "json", *more)
    assert code == 0
    data: dict = json.loads(out)
    return data


# -- -o's extension picks the format ---------------------------------------------------------------


def test_assemble_o_html_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(
        tmp_path / "p",
        [{"id": "T<1>&", "title": "Login", "files": {"create": ["src/app.py"]}}],
        requirements="Alpha login flow.",
        rules={"_core/owasp-2025.md": CORE},
    )
    out = tmp_path / "ctx.html"
    code, stdout, err = run(capsys, "assemble", str(root), "--feature", "feat", "--task", "T<1>&", "-o", str(out))
    assert (code, stdout, err) == (0, "", "")
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>\n")
    assert "T&lt;1&gt;&amp;" in html and "T<1>" not in html  # the task id, escaped
    assert "Alpha login flow." in html


def test_assemble_o_json_writes_the_trace_and_o_md_the_context(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["assemble", str(project), "--feature", "feat", "--task", "T1"]
    assert run(capsys, *base, "-o", str(tmp_path / "trace.JSON")) == (0, "", "")
    data = json.loads((tmp_path / "trace.JSON").read_text(encoding="utf-8"))
    assert (data["feature"], data["task_id"], data["context"]) == ("feat", "T1", CONTEXT_T1)
    assert data["context_tokens"]["cl100k_base"] > 0  # a trace file carries the exact counts
    for name in ("ctx.md", "ctx.markdown", "ctx.txt", "ctx"):  # no extension: the default, markdown
        assert run(capsys, *base, "-o", str(tmp_path / name)) == (0, "", "")
        assert (tmp_path / name).read_text(encoding="utf-8") == CONTEXT_T1


def test_format_html_writes_the_report_to_stdout(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", "--format", "html")
    assert code == 0 and out.startswith("<!DOCTYPE html>\n") and out.endswith("</html>\n")


@pytest.mark.parametrize(
    ("argv", "name", "message"),
    [
        (
            ["--format", "json"],
            "out.html",
            "the extension '.html' means html, but --format says json; rename the file or drop --format",
        ),
        (
            ["--format", "html"],
            "out.md",
            "the extension '.md' means markdown, but --format says html; rename the file or drop --format",
        ),
        (
            [],
            "out.yaml",
            "cannot tell the output format from the extension '.yaml': use .md .markdown .txt for markdown; "
            ".json for json; .html .htm for html, or give --format",
        ),
    ],
)
def test_an_extension_that_does_not_say_the_format_is_one_line_and_exit_2(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], name: str, message: str
) -> None:
    out = tmp_path / name
    code, stdout, err = run(
        capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", *argv, "-o", str(out)
    )
    assert (code, stdout) == (2, "")
    assert err == f"ctxviewer: {out}: {message}\n"
    assert not out.exists()


def test_an_unknown_extension_is_fine_when_format_says(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "context.prompt"
    assert (
        run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", "--format", "md", "-o", str(out))[0]
        == 0
    )
    assert out.read_text(encoding="utf-8") == CONTEXT_T1


def test_batch_whatif_compare_follow_the_extension_too(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "batch", str(project), "--no-exact", "-o", str(tmp_path / "rows.csv"))[0] == 0
    rows = (tmp_path / "rows.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("feature,task,title,budget,") and len(rows) == 1 + 3  # T1, T2, B-001
    assert run(capsys, "batch", str(project), "--no-exact", "-o", str(tmp_path / "rows.jsonl"))[0] == 0
    lines = (tmp_path / "rows.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["task_id"] for line in lines] == ["B-001", "T1", "T2"]  # features in name order
    code, _, err = run(capsys, "batch", str(project), "-o", str(tmp_path / "rows.json"))
    assert code == 2 and "'.json'" in err and ".jsonl .ndjson for jsonl; .csv for csv" in err
    whatif = ["whatif", str(project), "--feature", "feat", "--task", "T1", "--set", "budget=1k", "--no-exact"]
    assert run(capsys, *whatif, "-o", str(tmp_path / "d.html"))[0] == 0
    html = (tmp_path / "d.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "What-if against the pinned baseline" in html
    assert run(capsys, *whatif, "-o", str(tmp_path / "d.json"))[0] == 0
    assert "sections" in json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    compare = ["compare", str(project), "--feature", "feat", "--task", "T1", "--profiles", "mahabharatha,drift"]
    code, _, err = run(capsys, *compare, "-o", str(tmp_path / "c.html"))
    assert code == 2 and ".txt for text; .md .markdown for md; .json for json" in err


# -- budgets as people write them ------------------------------------------------------------------


@pytest.mark.parametrize("budget", ["2000", "2,000", "2k", "2K", "2.0k"])
def test_budget_flag_takes_4k_forms(project: Path, capsys: pytest.CaptureFixture[str], budget: str) -> None:
    data = assemble_json(capsys, project, "feat", "T1", "--budget", budget)
    assert data["budget"] == 2000
    assert data["section_budgets"] == {"security_rules": 600, "spec_excerpts": 1000}  # 30 % and 50 %


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--budget", "4kk"], "--budget: must be a whole number of tokens (4000, 4,000 or 4k), not '4kk'"),
        (["--budget=-4k"], "--budget: must be between 1 and 10,000,000, not -4,000"),
        (["--budget", "0"], "--budget: must be between 1 and 10,000,000, not 0"),
        (["--budget", "nan"], "--budget: must be a whole number of tokens (4000, 4,000 or 4k), not 'nan'"),
        (["--set", "budget=1.5"], "command line: budget: must be a whole number, not 1.5"),
    ],
)
def test_bad_budgets_are_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", *argv)
    assert (code, out, err) == (2, "", f"ctxviewer: {message}\n")


def test_set_budget_and_check_max_tokens_take_4k(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert assemble_json(capsys, project, "feat", "T1", "--set", "budget=2,500")["budget"] == 2500
    # T1's context is len(CONTEXT_T1) // 4 heuristic tokens (46): over a limit of 0.04k = 40
    used = len(CONTEXT_T1) // 4
    code, out, _ = run(capsys, "check", str(project), "--feature", "feat", "--max-tokens", "0.04k")
    assert code == 1 and f"OVER  feat/T1: {used:,} heuristic tokens > 40\n" in out
    code, _, err = run(capsys, "check", str(project), "--max-tokens", "4kk")
    assert (
        code == 2
        and err == "ctxviewer: --max-tokens: must be a whole number of tokens (4000, 4,000 or 4k), not '4kk'\n"
    )


# -- list ------------------------------------------------------------------------------------------


def test_list_json_tokens_are_assembles(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "list", str(project), "--format", "json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert (data["project"], data["profile"], data["tokenizer"], data["budget"]) == (
        "proj",
        "mahabharatha",
        "heuristic",
        4000,
    )
    features = {f["name"]: f for f in data["features"]}
    assert list(features) == ["billing", "feat", "notes"]
    assert features["notes"]["problem"] == "no task graph" and features["notes"]["tasks"] == []
    tasks = {t["id"]: t for t in features["feat"]["tasks"]}
    assert list(tasks) == ["T1", "T2"]
    assert (tasks["T1"]["title"], tasks["T1"]["tokens"], tasks["T1"]["budget"]) == (
        "Login session",
        len(CONTEXT_T1) // 4,  # the pipeline's own estimate: characters // 4
        4000,
    )
    for feature, task in (("feat", "T1"), ("feat", "T2"), ("billing", "B-001")):
        trace = assemble_json(capsys, project, feature, task)
        listed = next(t for t in features[feature]["tasks"] if t["id"] == task)
        assert listed["tokens"] == trace["context_tokens"]["heuristic"]
        assert listed["chars"] == len(trace["context"])


def test_list_text_is_aligned_with_features_as_headers(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list", str(project), "--budget", "1k")
    assert code == 0
    lines = out.splitlines()
    # findings (see test_list_counts_findings_by_severity): T2 1 error + 2 warnings, B-001 1 warning
    assert lines[0] == (
        "proj: 3 features, 3 tasks · profile mahabharatha · budget 1,000 heuristic tokens · "
        "findings: 1 error, 3 warnings"
    )
    assert lines[2] == "billing (1 task)" and "feat (2 tasks)" in lines and lines[-1] == "notes (no task graph)"
    table = [line for line in lines if line.startswith("  ")]
    header = table[0]
    assert header.split() == ["TASK", "TOKENS", "BUDGET", "USED", "FINDINGS", "TITLE"]
    end_tokens = header.index("TOKENS") + len("TOKENS")
    title_at = header.index("TITLE")
    rows = {line.split()[0]: line for line in table if not line.startswith("  TASK")}
    assert list(rows) == ["B-001", "T1", "T2"]
    used = len(CONTEXT_T1) // 4
    t1 = rows["T1"]
    assert t1[end_tokens - len(str(used)) : end_tokens] == str(used)  # right-aligned under TOKENS
    assert t1[title_at:] == "Login session"
    assert f"{100 * used / 1000:.0f}%" in t1  # share of the 1,000-token budget
    assert all(row[title_at - 2 : title_at] == "  " for row in rows.values())  # the title column lines up
    findings_at = header.index("FINDINGS")
    assert rows["T2"][findings_at:title_at].rstrip() == "1 error, 2 warnings"
    assert rows["T1"][findings_at:title_at].rstrip() == "-"


def test_list_counts_findings_by_severity(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # T1 gets its rule and all three paragraphs: nothing to say.  T2 ("Other work") has no task
    # file (no rule file) and no keyword in any paragraph: an empty context (error) and both
    # sections empty (warnings).  B-001 has its paragraph but no task file: rules empty.
    code, out, _ = run(capsys, "list", str(project), "--format", "json")
    assert code == 0
    data = json.loads(out)
    tasks = {t["id"]: t for f in data["features"] for t in f["tasks"]}
    assert tasks["T1"]["findings"] == {"error": 0, "warning": 0, "info": 0} and tasks["T1"]["finding_codes"] == []
    assert tasks["T2"]["findings"] == {"error": 1, "warning": 2, "info": 0}
    assert tasks["T2"]["finding_codes"] == ["context-empty", "section-empty"]
    assert tasks["B-001"]["findings"] == {"error": 0, "warning": 1, "info": 0}
    assert data["findings"] == {"error": 1, "warning": 3, "info": 0}


def test_list_feature_narrows_and_unknown_feature_is_exit_2(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list", str(project), "--feature", "billing", "--format", "json")
    assert code == 0 and [f["name"] for f in json.loads(out)["features"]] == ["billing"]
    code, out, err = run(capsys, "list", str(project), "--feature", "nope")
    assert (code, out) == (2, "") and err.count("\n") == 1 and "no feature 'nope'" in err


def test_list_names_a_broken_task_graph_and_exits_2(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project, ".gsd/specs/billing/task-graph.json", '{"tasks": [\n  {"id": "B-001",}\n]}')
    code, out, err = run(capsys, "list", str(project))
    assert code == 2
    assert "feat (2 tasks)" in out and "billing (.gsd/specs/billing/task-graph.json:2: invalid JSON" in out
    assert err.startswith("ctxviewer: .gsd/specs/billing/task-graph.json:2: invalid JSON")


# -- why -------------------------------------------------------------------------------------------

STOREFRONT = SAMPLES / "storefront-web"
CHK = ["why", str(STOREFRONT), "--feature", "cart-checkout", "--task", "CHK-L1-001"]


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


def test_why_takes_profile_set_and_budget(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "Beta session store." is requirements.md's second paragraph, line 3: 19 chars, 4 tokens.
    argv = ["why", str(project), "--feature", "feat", "--task", "T1", "beta", "--format", "json"]
    code, out, _ = run(capsys, *argv, "--budget", "1.5k", "--set", "top_k=1", "--profile", "mahabharatha")
    assert code == 0
    data = json.loads(out)
    assert (data["budget"], data["profile"]) == (1500, "mahabharatha")
    [m] = data["matches"]
    assert (m["label"], m["tokens"], m["score"]) == (".gsd/specs/feat/requirements.md:3", 4, 1)
    # top_k=1 keeps one paragraph: "Alpha login flow." ('login') and this one ('session') both
    # score 1, and file order ranks the first one first.
    assert m["status"] != "included" and m["rank"] == 2


def test_why_says_where_a_keyword_came_from(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "why", str(project), "--feature", "feat", "--task", "T1", "session")
    assert code == 0
    assert out.splitlines()[1] == "it is a keyword of the task, from title"


def test_list_and_why_write_o_files(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "list", str(project), "-o", str(tmp_path / "l.json")) == (0, "", "")
    assert json.loads((tmp_path / "l.json").read_text(encoding="utf-8"))["project"] == "proj"
    argv = ["why", str(project), "--feature", "feat", "--task", "T1", "alpha"]
    assert run(capsys, *argv, "-o", str(tmp_path / "w.txt")) == (0, "", "")
    assert (tmp_path / "w.txt").read_text(encoding="utf-8").startswith("'alpha' in feat/T1 ")


# -- findings in why, check and batch ------------------------------------------------------------------


def test_why_lists_the_findings_about_what_matched(capsys: pytest.CaptureFixture[str]) -> None:
    # The JavaScript rule file matches src/lib/http.ts and does not fit: a rule-cut finding.
    code, out, _ = run(capsys, *CHK, "javascript/CLAUDE.md", "--format", "json")
    assert code == 0
    [m] = json.loads(out)["matches"]
    assert (m["status"], m["fate"]) == ("cut_for_budget", "cut for budget")
    [finding] = m["findings"]
    assert (finding["code"], finding["severity"], finding["item"]) == ("rule-cut", "error", m["id"])
    assert "src/lib/http.ts" in finding["message"]
    code, out, _ = run(capsys, *CHK, "javascript/CLAUDE.md")
    assert "  [cut for budget]\n" in out and "\n   finding rule-cut (error): The security rule file " in out


def test_check_fails_on_the_storefront_rule_cuts(capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 14: at the default budget the JavaScript rule file matches the files of 15 of the
    # 16 storefront tasks and is cut for budget on all 15.
    code, out, _ = run(capsys, "check", str(STOREFRONT))
    assert code == 1
    cuts = [line for line in out.splitlines() if line.startswith("ERROR   rule-cut  ")]
    javascript = {line.split()[2].rstrip(":") for line in cuts if "languages/javascript/CLAUDE.md" in line}
    assert len(javascript) == 15
    assert "\n0 of 16 tasks over 3,000 heuristic tokens\n" in out
    assert out.splitlines()[-1].startswith(f"15 of 16 tasks have findings that fail: rule-cut {len(cuts)}")
    code, out, _ = run(capsys, "check", str(STOREFRONT), "--ignore", "rule-cut")
    assert code == 0 and "ERROR" not in out and "rule-cut" not in out


def test_check_fail_on_and_ignore_choose(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # project: T2's context is empty (error), T2 and B-001 have empty sections (warnings).
    assert run(capsys, "check", str(project))[0] == 1
    assert run(capsys, "check", str(project), "--ignore", "context-empty")[0] == 0
    code, out, _ = run(capsys, "check", str(project), "--ignore", "context-empty", "--fail-on", "section-empty")
    assert code == 1 and out.count("WARNING section-empty  ") == 3
    code, out, _ = run(capsys, "check", str(project), "--fail-on", "warning", "--ignore", "context-empty")
    assert code == 1 and "ERROR" not in out
    code, out, _ = run(capsys, "check", str(project), "--fail-on", "tie-by-order", "--ignore", "error")
    assert code == 0 and out.endswith("no finding fails; not failing: section-empty 3\n")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--fail-on", "rule-cutt"], "--fail-on: 'rule-cutt' is not a finding code; did you mean rule-cut?"),
        (["--ignore", "rule-cut,bogus"], "--ignore: 'bogus' is not a finding code; codes: rule-cut, context-empty, "),
    ],
)
def test_check_unknown_codes_are_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "check", str(project), *argv)
    assert (code, out) == (2, "") and err.startswith(f"ctxviewer: {message}") and err.count("\n") == 1


def test_check_json_lists_every_finding(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", str(project), "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert (data["limit"], data["tokenizer"], data["tasks"], data["over"]) == (4000, "heuristic", 3, [])
    assert data["fail_on"] == ["context-empty", "over-budget", "rule-cut"] and data["failing"] == 1
    found = [(f["task"], f["code"], f["severity"], f["fails"]) for f in data["findings"]]
    assert sorted(found) == [
        ("B-001", "section-empty", "warning", False),
        ("T2", "context-empty", "error", True),
        ("T2", "section-empty", "warning", False),
        ("T2", "section-empty", "warning", False),
    ]
    assert {f["section"] for f in data["findings"] if f["code"] == "section-empty"} == {
        "security_rules",
        "spec_excerpts",
    }


def test_batch_rows_carry_their_findings(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "batch", str(project), "--no-exact")
    assert code == 0
    rows = {row["task_id"]: row for row in map(json.loads, out.splitlines())}
    assert rows["T1"]["findings"] == []
    t2 = rows["T2"]["findings"]
    assert [f["code"] for f in t2] == ["context-empty", "section-empty", "section-empty"]  # errors first
    assert set(t2[0]) == {"code", "severity", "item", "message"} and t2[0]["item"] is None
    code, out, _ = run(capsys, "batch", str(project), "--no-exact", "--format", "csv")
    table = list(csv.DictReader(io.StringIO(out)))
    by_task = {r["task"]: (r["findings"], r["finding_codes"]) for r in table}
    assert by_task == {
        "B-001": ("1", "section-empty"),
        "T1": ("0", ""),
        "T2": ("3", "context-empty section-empty"),
    }


def test_list_and_why_keep_hostile_text_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A title and a paragraph carrying a terminal escape and a line break: shown escaped, on one line.
    root = make_project(
        tmp_path / "p",
        [{"id": "T1", "title": "Login \x1b[31mred\x1b[0m\nsecond line", "files": {}}],
        requirements="Login \x1b]0;owned\x07 flow.",
    )
    code, out, _ = run(capsys, "list", str(root))
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    [row] = [line for line in out.splitlines() if line.startswith("  T1 ")]
    assert row.endswith("Login \\x1b[31mred\\x1b[0m second line")
    code, out, _ = run(capsys, "why", str(root), "--feature", "feat", "--task", "T1", "flow")
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert "   text: Login \\x1b]0;owned\\x07 flow." in out.splitlines()


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


def test_check_takes_a_budget_as_list_and_batch_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """At 100 tokens the security share is 30 tokens = 120 characters: the core block (24 + 69 =
    93 characters) fits, the python block (21 + 49 = 70) does not fit the 27 left, a rule-cut;
    at the default 4,000 both fit.  ``--budget 0.1k`` says 100 as ``list --budget`` would."""
    task = {"id": "T", "title": "Task", "files": {"create": ["a.py"]}}
    rules = {
        "_core/owasp-2025.md": "## Rule: " + "x" * 60 + "\n",
        "languages/python/CLAUDE.md": "## Rule: " + "y" * 40 + "\n",
    }
    root = make_project(tmp_path, [task], requirements="Task notes.", rules=rules)
    code, out, _ = run(capsys, "check", str(root))
    assert code == 0 and "rule-cut" not in out
    code, out, _ = run(capsys, "check", str(root), "--budget", "0.1k")
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith("ERROR   rule-cut  feat/T: The security rule file languages/python/CLAUDE.md ")
    assert "0 of 1 tasks over 100 heuristic tokens" in out

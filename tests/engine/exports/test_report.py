"""Exports of a trace: exact Markdown, round-tripping JSON, a standalone escaped HTML report.

Rules under test (``ctxviewer.engine.exports.report``): the Markdown export is the context byte
for byte; the JSON export is what ``ctxviewer assemble --format json`` prints and reads
back to an equal trace; the HTML report needs no network, escapes everything from the
trace, keeps every character of the context, and lists every candidate with its
reason; ``export`` writes atomically and picks the format from the suffix.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ctxviewer.cli import main
from ctxviewer.engine.analysis.whatif import TraceDiff, diff_markdown, diff_to_json, diff_traces
from ctxviewer.engine.errors import WriteError
from ctxviewer.engine.exports.report import (
    DIFF_FORMATS,
    FORMATS,
    SUFFIXES,
    context_markdown,
    export,
    format_for_path,
    html_report,
    render,
    trace_json_text,
)
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.tokens.counting import TokenCounts
from ctxviewer.engine.trace.model import RULE_FILE, SPEC_PARAGRAPH, Trace, TraceError, trace_from_json
from ctxviewer.engine.upstream.prompt import build_prompt
from tests.conftest import SAMPLES
from tests.factories import make_project

CORE = "## Rule: A\n**Level**: strict\nprose that is not kept\n"
EVIL = 'Login flow & <script>alert(1)</script> for Tom\'s "quoted" café.'
TASK = {
    "id": "T1",
    "title": "Login <b>flow</b>",
    "description": "",
    "files": {"create": ["src/app.py"]},
}


@pytest.fixture(scope="module")
def ledger() -> Trace:
    return assemble(load_project(SAMPLES / "ledger-service"), "auth-sessions", "AUTH-L1-001")


@pytest.fixture(scope="module")
def lowered(ledger: Trace) -> TraceDiff:
    """The ledger run with its budget lowered from 4,000 to 1,500, against the default run."""
    low = assemble(load_project(SAMPLES / "ledger-service"), "auth-sessions", "AUTH-L1-001", {"budget": 1500})
    return diff_traces(ledger, low)


@pytest.fixture
def evil(tmp_path: Path) -> Trace:
    """A project whose one scoring paragraph and task title contain markup and '&'."""
    requirements = f"{EVIL}\r\n\r\nUnrelated paragraph about nothing.\r\n"
    root = make_project(
        tmp_path / "evil<proj>",
        [TASK],
        requirements=requirements,
        design="Screen design for the login flow — ünïcödé ✓.",
        rules={"_core/owasp-2025.md": CORE},
    )
    return assemble(load_project(root), "feat", "T1")


def visible(page: str) -> str:
    """The page's text as a reader sees it: tags removed, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def context_blocks(page: str) -> list[str]:
    """The text of each <pre> in the assembled-context part, in page order."""
    part = page[page.index('<section id="context">') :]
    blocks = re.findall(r'<pre class="hl">\n(.*?)</pre>', part, flags=re.S)
    return [visible(b) for b in blocks]


# -- Markdown and JSON ------------------------------------------------------------------


def test_markdown_is_exactly_the_context(ledger: Trace, evil: Trace) -> None:
    for trace in (ledger, evil):
        assert context_markdown(trace) == trace.context
        assert render(trace, "markdown") == trace.context
    # The CRLF spec reached the context with its unicode intact.
    assert EVIL in evil.context and "ünïcödé ✓" in evil.context


def test_markdown_keeps_carriage_returns_and_unicode(ledger: Trace) -> None:
    text = "## A\r\nline é\r\n\r\n— ✓ \u2028 end"
    trace = dataclasses.replace(ledger, context=text)
    assert context_markdown(trace) == text


def test_json_round_trips_to_an_equal_trace(ledger: Trace, evil: Trace) -> None:
    for trace in (ledger, evil):
        text = trace_json_text(trace)
        assert text.endswith("}\n")
        assert trace_from_json(json.loads(text)) == trace
    # ensure_ascii=False: unicode is written as itself, not as \u escapes.
    assert "ünïcödé ✓" in trace_json_text(evil)


def test_json_is_what_the_cli_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(tmp_path, [TASK], requirements=EVIL, rules={"_core/owasp-2025.md": CORE})
    code = main(["assemble", str(root), "--feature", "feat", "--task", "T1", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0
    project = load_project(root)
    feat = project.feature("feat")
    prompt = build_prompt(project, feat, feat.task("T1"), project.settings, exact=True).to_json()
    assert out == trace_json_text(assemble(project, "feat", "T1"), prompt=prompt)


# -- HTML: self-contained and escaped ---------------------------------------------------


def test_html_has_no_external_references(ledger: Trace, evil: Trace) -> None:
    for trace in (ledger, evil):
        page = html_report(trace)
        assert page.startswith("<!DOCTYPE html>")
        lower = page.lower()
        assert "<link" not in lower and "@import" not in lower and "<script" not in lower
        assert "<img" not in lower and "<iframe" not in lower
        # Every src/href is a quoted same-page anchor or data: URL; CSS url() likewise.
        refs = re.findall(r"""\b(?:src|href)\s*=\s*(["']?)([^"'\s>]*)""", page, flags=re.I)
        refs += re.findall(r"""url\(\s*(["']?)([^"')\s]*)""", page, flags=re.I)
        assert refs and all(q and v.startswith(("#", "data:")) for q, v in refs), refs
    # The hand-made project has no URL anywhere, so none may appear at all.
    assert not re.search(r"https?://", html_report(evil))


def test_html_escapes_everything_from_the_trace(evil: Trace) -> None:
    para = next(i for i in evil.items_of(SPEC_PARAGRAPH) if "alert" in i.text)
    assert para.status == "included" and para.score is not None and para.score > 0
    trace = dataclasses.replace(
        evil,
        warnings=("budget <i>odd</i> & more",),
        errors=(TraceError("spec_excerpts", "input", "bad <byte>", "paragraph <skipped>", "a&b.md"),),
    )
    page = html_report(trace)
    for raw in ("<script>alert(1)</script>", "<b>flow</b>", "<i>odd</i>", "<byte>", "<skipped>"):
        assert raw not in page
    # Every '&' in the page starts an entity: none is left bare.
    assert not re.search(r"&(?!(?:[A-Za-z]+|#\d+|#x[0-9A-Fa-f]+);)", page)
    text = visible(page)
    assert EVIL in text  # the paragraph reads as text, not markup
    assert "T1 — Login <b>flow</b>" in text
    assert "budget <i>odd</i> & more" in text
    assert "a&b.md: bad <byte> (paragraph <skipped>)" in text
    assert "<h1>evil&lt;proj&gt;</h1>" in page  # project name is the folder's basename


def test_html_header_names_the_run(ledger: Trace) -> None:
    text = visible(html_report(ledger))
    for fact in ("ledger-service", "auth-sessions", "AUTH-L1-001", ledger.task_title):
        assert fact in text
    assert "mahabharatha" in text and "heuristic" in text and "4,000 tokens" in text


def test_html_is_deterministic(ledger: Trace) -> None:
    assert html_report(ledger) == html_report(ledger)


# -- HTML: contents ---------------------------------------------------------------------


def test_html_keeps_every_character_of_the_context(ledger: Trace, evil: Trace) -> None:
    for trace in (ledger, evil):
        page = html_report(trace)
        assert "".join(context_blocks(page)) == trace.context
        text = visible(page[page.index('<section id="context">') :])
        first = trace.sections[0].span
        assert first is not None and first[0] == 0
        assert trace.context[: min(200, first[1])] in text  # the opening, as a reader sees it
        # Each section's slice appears, in context order.
        positions = []
        for sec in trace.sections:
            assert sec.span is not None
            positions.append(text.index(trace.context[sec.span[0] : sec.span[1]]))
            assert f'id="sec-{sec.name}"' in page and f'href="#sec-{sec.name}"' in page
        assert positions == sorted(positions)


def test_html_keeps_carriage_returns_and_text_outside_sections(ledger: Trace) -> None:
    # A context with CRLFs, a leading newline, and text before, between and after spans.
    context = "\nlead\r\n## A\r\nalpha é\r\n\r\n## B\nbeta <x>\r\n\ntail"
    a, b = context.index("## A"), context.index("## B")
    sections = (
        dataclasses.replace(ledger.sections[0], span=(a, a + len("## A\r\nalpha é"))),
        dataclasses.replace(ledger.sections[1], span=(b, b + len("## B\nbeta <x>"))),
    )
    trace = dataclasses.replace(ledger, context=context, sections=sections)
    blocks = context_blocks(html_report(trace))
    assert "".join(blocks) == context
    assert blocks[0] == "\nlead\r\n" and blocks[-1] == "\r\n\ntail"


def test_html_lists_every_candidate_with_its_source(ledger: Trace) -> None:
    page = html_report(ledger)
    text = visible(page)
    rules, paragraphs = ledger.items_of(RULE_FILE), ledger.items_of(SPEC_PARAGRAPH)
    assert rules and paragraphs
    for item in (*rules, *paragraphs):
        assert html.escape(item.source) in page
        assert item.reason in text
    # The included paragraph of rank 1 shows its lines as start-en-dash-end.
    best = next(i for i in paragraphs if i.rank == 1)
    assert f"{best.line_start}\u2013{best.line_end}" in text
    # A rule matched by a file names the file and what matched it.
    python = next(i for i in rules if i.source.endswith("python/CLAUDE.md"))
    assert "src/ledger/auth/passwords.py (.py)" in text
    assert python.details["trigger"] in text
    assert f"{python.details['needed']:,} / {python.details['left']:,} characters" in text
    # Status is a CSS class and also written out.
    assert '<span class="st st-included">included</span>' in page
    # The ledger sample keeps the top 5 of its scoring paragraphs: the rest are outranked;
    # paragraphs without a keyword were never candidates.  Ids are classes, labels are words.
    assert '<span class="st st-outranked">outranked</span>' in page
    assert '<span class="st st-not_candidate">not a candidate</span>' in page
    assert "dropped" not in text


def test_html_section_rows_show_budgets_and_differences(ledger: Trace) -> None:
    sec, other = ledger.sections[0], ledger.sections[1]
    trace = dataclasses.replace(
        ledger,
        sections=(
            dataclasses.replace(sec, tokens=TokenCounts(400, 100, 112, 70)),
            dataclasses.replace(other, tokens=TokenCounts(40, 10, None, None)),
        ),
    )
    page = html_report(trace)
    for s, cells in ((sec, ["100", "112", "70", "+12", "\u221230"]), (other, ["10"] + ["n/a"] * 4)):
        row = re.search(rf'<tr><td><a href="#sec-{s.name}">.*?</tr>', page)
        assert row is not None
        budget = trace.section_budgets[s.name]
        numbers = re.findall(r'<td class="num">([^<]*)</td>', row.group(0))
        assert numbers == [f"{budget:,}", *cells]
    # The total row uses the whole context's counts against the whole budget.
    total = re.search(r"<tr><td><strong>Total context</strong>.*?</tr>", page)
    assert total is not None and f'<td class="num">{ledger.budget:,}</td>' in total.group(0)


def test_html_trimming_tracker_keywords_settings(ledger: Trace) -> None:
    page = html_report(ledger)
    text = visible(page)
    assert ledger.trim_steps
    for step in ledger.trim_steps:
        assert step.description in text
        assert f"{step.tokens_before:,} → {step.tokens_after:,}" in text
        assert f"\u2212{step.tokens_before - step.tokens_after:,}" in text
    for f in ledger.tracker.files:
        assert f.path in text
    assert f"{ledger.tracker.threshold_percent:g}%" in text
    for kw in ledger.keywords:
        assert html.escape(kw.word) in page
    for name, setting in ledger.settings.items():
        assert name in text and setting.origin in text
    # Charts: token shares, trimming waterfall, tracker gauge; all inline SVG.
    assert page.count("<svg") == 3


def test_html_says_when_no_trimming_happened(ledger: Trace) -> None:
    page = html_report(dataclasses.replace(ledger, trim_steps=()))
    assert "No trimming was needed." in page
    assert page.count("<svg") == 2


# -- render, format_for_path, export -----------------------------------------------------


def test_render_dispatches_and_rejects_unknown_formats(ledger: Trace) -> None:
    assert FORMATS == ("markdown", "json", "html", "whatif-md")
    assert DIFF_FORMATS == ("whatif-md",)
    assert render(ledger, "json") == trace_json_text(ledger)
    assert render(ledger, "html") == html_report(ledger)
    with pytest.raises(ValueError, match="unknown export format 'pdf'"):
        render(ledger, "pdf")


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("a.md", "markdown"),
        ("a.markdown", "markdown"),
        ("A.MD", "markdown"),
        ("x/y.json", "json"),
        ("r.html", "html"),
        ("r.HTM", "html"),
        ("dir.v2/r.htm", "html"),
        ("a.whatif.md", "whatif-md"),
        ("x/AUTH.WhatIf.MD", "whatif-md"),
        ("whatif.md", "markdown"),
    ],
)
def test_format_for_path(name: str, fmt: str) -> None:
    assert format_for_path(name) == fmt
    assert format_for_path(Path(name)) == fmt


@pytest.mark.parametrize("name", ["a.txt", "a", "a.md.bak", ".md", "report.pdf"])
def test_format_for_path_refuses_other_suffixes(name: str) -> None:
    with pytest.raises(ValueError, match="cannot tell the export format"):
        format_for_path(name)


def test_suffixes_map_back_to_their_formats() -> None:
    for fmt in FORMATS:
        assert format_for_path("x" + SUFFIXES[fmt]) == fmt


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_writes_each_format(ledger: Trace, lowered: TraceDiff, tmp_path: Path, fmt: str) -> None:
    target = tmp_path / f"out{SUFFIXES[fmt]}"
    diff = lowered if fmt in DIFF_FORMATS else None
    assert export(ledger, target, diff=diff) == fmt
    assert target.read_bytes() == render(ledger, fmt, diff).encode("utf-8")
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no temp files left


def test_export_with_explicit_format_ignores_suffix(ledger: Trace, tmp_path: Path) -> None:
    target = tmp_path / "context.txt"
    assert export(ledger, str(target), "markdown") == "markdown"
    assert target.read_text(encoding="utf-8") == ledger.context
    with pytest.raises(ValueError, match="unknown export format"):
        export(ledger, tmp_path / "x.md", "docx")
    assert not (tmp_path / "x.md").exists()


def test_export_refuses_unknown_suffix_without_writing(ledger: Trace, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot tell the export format"):
        export(ledger, tmp_path / "report.pdf")
    assert list(tmp_path.iterdir()) == []


def test_export_into_missing_folder_raises_write_error(ledger: Trace, tmp_path: Path) -> None:
    with pytest.raises(WriteError, match="could not be written"):
        export(ledger, tmp_path / "missing" / "report.html")
    assert list(tmp_path.iterdir()) == []


def test_export_replaces_an_existing_file_fully(ledger: Trace, tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    target.write_text("old content that is much longer than anything\n" * 500, encoding="utf-8")
    short = dataclasses.replace(ledger, context="new")
    assert export(short, target) == "markdown"
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]


def test_report_imports_without_pyside6() -> None:
    code = (
        "import sys\n"
        "sys.modules['PySide6'] = None\n"
        "import ctxviewer.engine.exports.report\n"
        "assert not any(k.startswith('PySide6') and sys.modules[k] for k in sys.modules)\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


# -- what-if against a pinned baseline ---------------------------------------------------


def test_markdown_stays_exactly_the_context_with_a_diff(lowered: TraceDiff, tmp_path: Path) -> None:
    current = lowered.current
    assert render(current, "markdown", lowered) == current.context
    assert render(current, "markdown", lowered) == render(current, "markdown")
    target = tmp_path / "ctx.md"
    assert export(current, target, diff=lowered) == "markdown"
    assert target.read_bytes() == current.context.encode("utf-8")


def test_json_with_a_diff_adds_whatif_and_still_reads_back(lowered: TraceDiff) -> None:
    current = lowered.current
    plain = render(current, "json")
    assert plain == trace_json_text(current) and '"whatif"' not in plain
    data = json.loads(render(current, "json", lowered))
    assert data["whatif"] == diff_to_json(lowered)
    assert data["whatif"]["settings"] == [{"key": "budget", "before": 4000, "after": 1500}]
    assert trace_from_json(data) == current  # the extra key does not disturb the trace
    assert {k: v for k, v in data.items() if k != "whatif"} == json.loads(plain)


def test_html_with_a_diff_has_the_whatif_section(lowered: TraceDiff) -> None:
    current = lowered.current
    page = render(current, "html", lowered)
    assert page == html_report(current, lowered)
    assert "What-if against the pinned baseline" not in render(current, "html")
    assert render(current, "html", None) == html_report(current)
    part = page[page.index('<section id="whatif">') : page.index("</section>", page.index('<section id="whatif">'))]
    assert page.index('<section id="whatif">') < page.index('<section id="tokens">')  # right after the header
    text = visible(part)
    assert "What-if against the pinned baseline" in text
    assert "budget4,0001,500" in text  # the settings table row: Setting|Baseline|Current
    for section in lowered.sections:
        assert f"{section.tokens_before:,}{section.tokens_after:,}" in text
    for change in lowered.items:
        assert change.reason_before in text and change.reason_after in text
    removed = [x for x in lowered.context_diff if x.startswith("-") and not x.startswith("--- ")]
    added = [x for x in lowered.context_diff if x.startswith("+") and not x.startswith("+++ ")]
    assert part.count('<span class="del">') == len(removed)
    assert part.count('<span class="add">') == len(added)
    assert "pre.diff .add" in page  # the diff colours come with the section


def test_html_whatif_escapes_everything(evil: Trace) -> None:
    project = load_project(Path(evil.project))
    low = assemble(project, "feat", "T1", {"budget": 20})
    diff = diff_traces(evil, low)
    assert any(x.startswith("-") and "<script>" in x for x in diff.context_diff)
    page = html_report(low, diff)
    part = page[page.index('<section id="whatif">') :]
    part = part[: part.index("</section>")]
    assert "<script" not in part and "<b>" not in part
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in part
    assert "Login flow &amp; " in part
    assert EVIL in visible(part)


def test_html_whatif_warns_about_different_tasks(ledger: Trace) -> None:
    other = assemble(load_project(SAMPLES / "ledger-service"), "reconciliation", "REC-L1-001")
    page = html_report(other, diff_traces(ledger, other))
    part = page[page.index('<section id="whatif">') :]
    assert visible(part).index("Different tasks") < visible(part).index("Sections")


def test_html_whatif_for_an_unchanged_run(ledger: Trace) -> None:
    page = html_report(ledger, diff_traces(ledger, ledger))
    part = visible(page[page.index('<section id="whatif">') :])
    assert "No change" in part


def test_whatif_md_is_the_diffs_markdown(lowered: TraceDiff, tmp_path: Path) -> None:
    current = lowered.current
    assert render(current, "whatif-md", lowered) == diff_markdown(lowered)
    target = tmp_path / "AUTH-L1-001.whatif.md"
    assert export(current, target, diff=lowered) == "whatif-md"
    assert target.read_text("utf-8") == diff_markdown(lowered)


def test_whatif_md_without_a_diff_is_refused(ledger: Trace, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="whatif-md format reports a what-if diff, and there is none"):
        render(ledger, "whatif-md")
    with pytest.raises(ValueError, match="pin a baseline run"):
        export(ledger, tmp_path / "x.whatif.md")
    assert list(tmp_path.iterdir()) == []


def test_the_report_shows_signals_the_window_and_the_computed_entries(tmp_path: Path) -> None:
    from tests.factories import make_project, write

    make_project(tmp_path, [{"id": "T1", "title": "Ledger <totals>", "complexity": "easy"}])
    write(
        tmp_path,
        ".mahabharatha/context-map.yaml",
        "knowledge:\n  - {type: pattern, summary: 'Sum in <cents>', tags: [ledger]}\n"
        "  - {type: gotcha, summary: Unrelated, tags: [queue]}\n",
    )
    page = html_report(assemble(load_project(tmp_path), "feat", "T1", {"profile": "computed"}, exact=False))
    assert '<h2 id="computed">' in page or 'id="computed"' in page
    assert "Sum in &lt;cents&gt;" in page and "no tag among the task&#x27;s keywords or domains" in page
    assert "## Context Debug" in page and "complexity &#x27;easy&#x27;: the easy limits" in page
    # every profile: the signals (keyword "ledger" from the title) and the whole window
    plain = html_report(assemble(load_project(tmp_path), "feat", "T1", exact=False))
    assert 'id="signals"' in plain and "<td>ledger</td>" in plain
    assert 'id="window"' in plain and "Response reserve" in plain and "checkpoint 70% (140,000)" in plain
    assert 'id="computed"' not in plain


def test_the_html_report_shows_the_smallest_changes_it_is_given(tmp_path: Path) -> None:
    from ctxviewer.engine.runs.pairs import PairSearch, suggestion_entry
    from ctxviewer.engine.runs.pipeline import assemble_task
    from ctxviewer.engine.runs.sensitivity import sensitivity
    from tests.factories import make_small

    # The small project at budget 300, top_k 2 (tests/engine/runs/test_pairs.py works it out):
    # requirements:3 needs budget 544 and top_k 3 together.
    project = make_small(tmp_path / "p")
    feature = project.features[0]
    task = feature.tasks[0]
    settings = project.settings.with_overrides({"profile": "mahabharatha", "budget": 300, "top_k": 2}, "t")
    trace = assemble_task(project, feature, task, settings, exact=False)
    sens = sensitivity(project, feature, task, settings, trace)
    pair = PairSearch(project, feature, task, settings, trace, sens).suggestion("requirements:3")
    entries = {"requirements:3": suggestion_entry(sens, "requirements:3", pair)}
    assert entries["requirements:3"]["changes"] == [
        {"key": "budget", "value": 544, "set": "budget=544"},
        {"key": "top_k", "value": 3, "set": "top_k=3"},
    ]
    page = html_report(trace, suggestions=entries)
    part = page[page.index('<section id="suggest">') :]
    part = part[: part.index("</section>")]
    assert "<h2>What would get it in?</h2>" in part
    assert "<td>requirements:3</td>" in part and "--set budget=544 --set top_k=3" in part
    # 244 / 300 + 1 / 2 = 131.3 %
    assert '<td class="num">131.3 %</td>' in part
    # Without suggestions the report has no such section (as before).
    assert 'id="suggest"' not in html_report(trace)

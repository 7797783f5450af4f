"""The HTML report of a nine-section version: the version and why, the switches, every section's
candidates, compact mode's replacements, and the worker's prompt -- all of it escaped."""

from __future__ import annotations

import re
from pathlib import Path

from ctxviewer.engine.exports.report import html_report, render
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.upstream.prompt import build_prompt
from tests.engine.exports.test_report import visible
from tests.factories import make_project, write

RULES = """\
rules:
  - id: R1
    title: Type hints
    description: every public function
    priority: critical
    applies_to: ["*.py"]
  - id: R2
    title: Strict mode
    priority: recommended
    applies_to: "*.ts"
"""
EVIL_RULES = """\
rules:
  - id: "<script>alert(1)</script>"
    title: "<b>bold</b> & <i>it</i>"
    priority: critical
    applies_to: ["*.py"]
"""
EVIL = "<script>alert(2)</script> & <img src=x>"


def project(root: Path, rules: str = RULES, description: str = "login flow") -> Path:
    tasks = [{"id": "T1", "title": "Login", "description": description, "files": {"create": ["src/app.py"]}}]
    make_project(root, tasks, requirements="Login flow.")
    write(root, ".zerg/rules/quality.yaml", rules)
    write(root, "src/app.py", "def login(user: str) -> bool:\n    return True\n")
    return root


def test_the_version_its_reason_and_the_switches(tmp_path: Path) -> None:
    trace = assemble(load_project(project(tmp_path)), "feat", "T1", {"tdd_mode": "1"})
    text = visible(html_report(trace))
    part = text[text.index("Upstream version\n") :]
    assert "Versionzerg-ai-0.3.2" in part  # a <dt>/<dd> pair, read without its tags
    assert "Whydetected zerg-ai-0.3.2: engineering rule files in .zerg/rules (quality.yaml)" in part
    assert "Setting upstreamauto (from default)" in part
    # one row per variable, named for 0.3.2, with what it did
    assert "ZERG_TDD_MODEtdd_mode'1'" in part
    assert "TDD enforcement: ZERG_TDD_MODE is '1': builds this section" in part
    assert "ZERG_ANALYSIS_DEPTHanalysis_depthunset" in part
    assert "ZERG_WORKER_IDworker_idunsetdefaultnames the token record only" in part


def test_every_section_explained_and_compact_mode(tmp_path: Path) -> None:
    trace = assemble(load_project(project(tmp_path)), "feat", "T1", {"tdd_mode": "1", "compact_mode": "1"})
    page = html_report(trace)
    text = visible(page)
    nine = text[text.index("Sections' candidates\n") : text.index("Compact mode\n")]
    assert "2 engineering rules (1 included)" in nine
    assert "Character limits: none was reached." in nine
    # the rule with its file, globs and priority; the one that never applied, and why
    assert "R1: Type hints" in nine and "Priority: critical; Applies to (globs): ['*.py']" in nine
    # R2 never applied: it has no line, so it is named by its id, with the reason
    assert (
        "engineering ruleR2Rule file: .zerg/rules/quality.yaml; Priority: recommended; Applies to (globs): "
        "['*.ts']not a candidateno: it has no text of its ownrule 'R2': no task file's name matches '*.ts'"
    ) in nine
    assert "def login(user: str) -> bool" in nine  # the symbol, escaped in the page
    assert "def login(user: str) -&gt; bool" in page
    compact = text[text.index("Compact mode\n") :]
    assert "compact_mode is '1': the joined text is abbreviated" in compact
    assert re.search(r"TDD enforcement\s*implementation\s*impl\s*1", compact)
    assert "Do NOT write implementation code" in compact and "Do NOT write impl code" in compact


def test_a_seed_trace_has_no_nine_section_parts(tmp_path: Path) -> None:
    tasks = [{"id": "T1", "title": "Login", "files": {"create": ["src/app.py"]}}]
    make_project(tmp_path, tasks, requirements="Login flow.")
    page = html_report(assemble(load_project(tmp_path), "feat", "T1"))
    assert 'id="nine"' not in page and 'id="compact"' not in page and 'id="prompt"' not in page
    assert 'id="upstream"' in page  # the seed's version is named too, with why


def test_the_workers_prompt_with_its_parts_and_text(tmp_path: Path) -> None:
    loaded = load_project(project(tmp_path))
    trace = assemble(loaded, "feat", "T1")
    feature = loaded.feature("feat")
    prompt = build_prompt(loaded, feature, feature.task("T1"), loaded.settings)
    page = render(trace, "html", prompt=prompt.to_json())
    text = visible(page)
    part = text[text.index("The worker's prompt\n") :]
    assert f"Size{len(prompt.text):,} characters; upstream's estimate {prompt.estimate:,}" in part
    for p in prompt.parts:
        assert p.name in part and p.source in part
    # the text itself, whole, in the part's last <pre>
    pre = re.findall(r'<pre class="hl">\n(.*?)</pre>', page[page.index('<section id="prompt">') :], flags=re.S)
    assert visible(pre[-1]) == prompt.text
    # without a prompt (the CLI's assemble today) there is no such part
    assert 'id="prompt"' not in html_report(trace)


def test_hostile_rules_symbols_and_prompt_are_escaped(tmp_path: Path) -> None:
    root = project(tmp_path, EVIL_RULES, description=EVIL)
    write(root, "src/app.py", "def login_script(x: '<script>') -> '&amp;':\n    return x\n")
    loaded = load_project(root)
    trace = assemble(loaded, "feat", "T1", {"compact_mode": "1", "behavioral_mode": "<b>x</b>"})
    feature = loaded.feature("feat")
    prompt = build_prompt(loaded, feature, feature.task("T1"), loaded.settings)
    page = html_report(trace, prompt=prompt.to_json())
    for raw in ("<script>", "<b>bold</b>", "<i>it</i>", "<img src=x>", "<b>x</b>"):
        assert raw not in page
    assert not re.search(r"&(?!(?:[A-Za-z]+|#\d+|#x[0-9A-Fa-f]+);)", page)
    text = visible(page)
    assert "<script>alert(1)</script>: <b>bold</b> & <i>it</i>" in text
    assert EVIL in text
    assert "'<b>x</b>'" in text  # the switch's value, as set

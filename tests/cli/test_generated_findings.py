"""Generated projects (issue 14, "Done when"): random rule-file matches and budgets.

Every matched rule file that is cut for budget must be a finding in ``batch``: ``rule-cut``,
making ``check`` exit 1, when the worker does not get the file otherwise (some rule files
carry ``paths:`` front matter that no task file matches, so Claude Code does not load them),
``rule-cut-loaded`` when it loads as project memory anyway; nothing that was never a
candidate may be called a drop -- not by its fate, not by a finding, not by ``why``.

Which rule file a task matches is worked out here from the generated file names (the
triggers are the documented ones: ``.py .pyx .pyi``, ``.js .mjs .cjs .ts .tsx .jsx``,
``Dockerfile*`` / ``docker-compose*``, create or modify only; the core file whenever the
task creates or modifies a file), not
taken from the engine.  A matched file whose rule lines alone are longer than the
security share (30 % of the budget, 4 characters a token) cannot fit, so it must be cut.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.cli import main
from ctxviewer.engine.registry import PROFILES
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, DROPS, NOT_CANDIDATE, RULE_FILE
from tests.factories import make_project, write

CORE = "_core/owasp-2025.md"
PYTHON = "languages/python/CLAUDE.md"
JAVASCRIPT = "languages/javascript/CLAUDE.md"
DOCKER = "containers/docker/CLAUDE.md"

#: (path, how the task lists it, the rule file it makes a candidate or None)
FILES = [
    ("src/app.py", "create", PYTHON),
    ("src/types.pyi", "modify", PYTHON),
    ("src/util.py", "read", None),  # read files match nothing
    ("web/api.ts", "modify", JAVASCRIPT),
    ("web/Card.jsx", "create", JAVASCRIPT),
    ("web/old.js", "read", None),
    ("Dockerfile", "create", DOCKER),
    ("deploy/docker-compose.yml", "modify", DOCKER),
    ("src/main.go", "create", None),
    ("README.md", "modify", None),
]
WORDS = ["login", "session", "token", "cache", "queue", "retry", "budget", "schema", "payment", "order"]
SEEDS = range(40)


def _rule_text(rng: random.Random) -> str:
    lines = [f"## Rule: {' '.join(rng.choices(WORDS, k=rng.randint(2, 8)))}" for _ in range(rng.randint(1, 60))]
    return "\n".join(lines) + "\n"


def generate(base: Path, seed: int) -> tuple[Path, int, str, dict[str, set[str]], dict[str, str]]:
    """(root, budget, profile, {task id: rule files it matches}, {rule file: its text})."""
    rng = random.Random(seed)
    rules = {CORE: _rule_text(rng)}
    for name in (PYTHON, JAVASCRIPT, DOCKER):
        if rng.random() < 0.85:
            rules[name] = _rule_text(rng)
    tasks: list[dict[str, Any]] = []
    matches: dict[str, set[str]] = {}
    for n in range(rng.randint(1, 4)):
        chosen = rng.sample(FILES, rng.randint(0, 4))
        files: dict[str, list[str]] = {"create": [], "modify": [], "read": []}
        for path, how, _rule in chosen:
            files[how].append(path)
        task_id = f"G{seed}-{n}"
        tasks.append({"id": task_id, "title": " ".join(rng.sample(WORDS, 3)), "files": files})
        # No create/modify file: the pipeline builds no security section, so not even the core file.
        core = {CORE} if files["create"] or files["modify"] else set()
        matches[task_id] = core | {rule for _p, _h, rule in chosen if rule is not None and rule in rules}
    paragraphs = [" ".join(rng.choices(WORDS, k=rng.randint(3, 12))) + "." for _ in range(rng.randint(1, 8))]
    # Some rule files load only for paths no task file has: the worker never loads them.
    files = {
        name: ('---\npaths: ["nowhere/**"]\n---\n' if rng.random() < 0.4 else "") + text for name, text in rules.items()
    }
    root = make_project(base / f"p{seed}", tasks, requirements="\n\n".join(paragraphs), rules=files)
    for path, _how, _rule in FILES:  # modified files exist, as in a real checkout
        write(root, path, "x\n")
    budget = rng.choice([150, 300, 600, 1_000, 2_000, 4_000])
    profile = "mahabharatha" if seed % 2 == 0 else rng.choice(PROFILES)
    return root, budget, profile, matches, rules


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


@pytest.mark.parametrize("seed", SEEDS)
def test_every_cut_matched_rule_file_is_a_finding_and_no_candidate_is_a_drop(
    seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, budget, profile, matches, rules = generate(tmp_path, seed)
    opts = ["--budget", str(budget), "--profile", profile]
    code, out = run(capsys, "batch", str(root), "--no-exact", *opts)
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert sorted(r["task_id"] for r in rows) == sorted(matches)
    cut_anywhere = loaded_anywhere = False
    for row in rows:
        task_id = row["task_id"]
        items = {i["id"]: i for i in row["items"]}
        fates = {i["id"].removeprefix("rule:"): i["status"] for i in row["items"] if i["kind"] == RULE_FILE}
        findings = row["findings"]
        cuts = {f["item"] for f in findings if f["code"] == "rule-cut"}
        loaded = {f["item"] for f in findings if f["code"] == "rule-cut-loaded"}
        # No finding is about an item that was never in the running.
        assert [f for f in findings if f["item"] and items[f["item"]]["status"] == NOT_CANDIDATE] == []
        # Every cut rule file is one finding: rule-cut when the worker does not load its file,
        # rule-cut-loaded when it does; and each such finding is about a cut rule file.
        cut = {f"rule:{name}" for name, fate in fates.items() if fate == CUT_FOR_BUDGET}
        assert cuts | loaded == cut and not cuts & loaded, task_id
        assert all(items[i]["reached"] == "memory" for i in loaded), task_id
        assert all(items[i]["reached"] == "no" for i in cuts), task_id
        assert all(f["severity"] == "error" for f in findings if f["code"] == "rule-cut")
        cut_anywhere |= bool(cuts)
        loaded_anywhere |= bool(loaded)
        if profile != "mahabharatha":
            continue
        # The default profile: matching and fit as the generator worked them out.
        limit = budget * 30 // 100 * 4
        for name in rules:
            if name not in matches[task_id]:
                assert fates[name] == NOT_CANDIDATE, (task_id, name, items[f"rule:{name}"]["reason"])
            else:
                assert fates[name] != NOT_CANDIDATE, (task_id, name, items[f"rule:{name}"]["reason"])
                if len(rules[name]) > limit:
                    assert fates[name] == CUT_FOR_BUDGET, (task_id, name, limit)
        # A rule file is a drop only where a task file matched it.
        assert {n for n, fate in fates.items() if fate in DROPS} <= matches[task_id], task_id
    # check fails on every rule-cut (it may fail on other errors too, e.g. an empty context),
    # never on a rule file the worker loads anyway.
    code, out = run(capsys, "check", str(root), *opts)
    if cut_anywhere:
        assert code == 1 and "ERROR   rule-cut  " in out, out
    else:
        assert "rule-cut " not in out, out
    assert ("rule-cut-loaded" in out) == loaded_anywhere, out


@pytest.mark.parametrize("seed", SEEDS[:10])
def test_why_calls_a_rule_file_no_task_file_matched_not_a_candidate(
    seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, budget, _profile, matches, _rules = generate(tmp_path, seed)
    for task_id, matched in matches.items():
        argv = ["why", str(root), "--feature", "feat", "--task", task_id, "CLAUDE.md", "--budget", str(budget)]
        code, out = run(capsys, *argv, "--format", "json")
        assert code == 0
        shown = {m["label"].rsplit("security/", 1)[-1]: m for m in json.loads(out)["matches"]}
        # The trace lists every rule file the pipeline knows, on disk or not (missing: never a candidate).
        assert set(shown) == {PYTHON, JAVASCRIPT, DOCKER}
        for name, m in shown.items():
            if name not in matched:
                assert m["status"] == NOT_CANDIDATE and not m["findings"], (task_id, name)
            else:
                assert m["status"] != NOT_CANDIDATE
                # A cut rule file is a finding (rule-cut or rule-cut-loaded), and so is one that
                # reaches the worker by no path (rule-unseen).
                expected = m["status"] == CUT_FOR_BUDGET or m["reached"] == "no"
                assert bool(m["findings"]) == expected, (task_id, name)
        code, text = run(capsys, *argv)
        assert code == 0
        for name in shown:
            fate = "not a candidate" if name not in matched else None
            if fate:
                assert f".claude/rules/security/{name}  [{fate}]\n" in text


def test_the_generator_makes_both_cases(tmp_path: Path) -> None:
    """The seeds hold, under the default profile, matched rule files too long for their share
    (which must be cut) and rule files no task file matches (never candidates): the checks
    above are not vacuous.  Counted from the generator alone."""
    too_long = unmatched = 0
    for seed in SEEDS:
        _root, budget, profile, matches, rules = generate(tmp_path, seed)
        if profile != "mahabharatha":
            continue
        for matched in matches.values():
            too_long += sum(1 for n in matched - {CORE} if len(rules[n]) > budget * 30 // 100 * 4)
            unmatched += len(set(rules) - matched)
    assert too_long >= 5 and unmatched >= 5, (too_long, unmatched)

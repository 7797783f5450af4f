"""The worker's prompt (``ctxviewer.engine.upstream.prompt``): worked examples, and a
differential check against the real ``ProtocolHandler._build_task_prompt`` of zerg-ai 0.3.2
(skipped, saying why, where the oracle virtualenv cannot be made; see test_upstream_oracle)."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.upstream.prompt import build_prompt
from ctxviewer.engine.worker.prompt import DESIGN_GUIDANCE_TOKENS
from tests.engine.profiles.test_upstream_oracle import SAMPLES, oracle, run_oracle  # noqa: F401  (oracle: a fixture)
from tests.engine.profiles.upstream_oracle.generate import WORDS, make_project

INSTRUCTIONS = (
    "## Instructions\nImplement the task as specified. Make all necessary changes.\n"
    "Do NOT commit - the orchestrator handles commits."
)


def _project(root: Path, tasks: list[dict[str, Any]], files: dict[str, str | bytes] | None = None) -> Any:
    spec = root / ".gsd" / "specs" / "feat"
    spec.mkdir(parents=True)
    (spec / "task-graph.json").write_text(json.dumps({"feature": "feat", "tasks": tasks}))
    for name, text in (files or {}).items():
        data = text.encode() if isinstance(text, str) else text
        (spec / name).write_bytes(data)
    project = load_project(root)
    return project, project.feature("feat")


def _prompt(tmp_path: Path, task: dict[str, Any], files: dict[str, str | bytes] | None = None) -> Any:
    project, feature = _project(tmp_path, [task], files)
    return build_prompt(project, feature, feature.tasks[0])


def test_a_task_with_its_own_context(tmp_path: Path) -> None:
    task = {
        "id": "T1",
        "title": "Add login",
        "description": "Do it.",
        "files": {"create": ["a.py", "b.py"], "modify": [], "read": ["c.md"], "move": [{"from": "x", "to": "y"}]},
        "verification": {"command": "pytest -q"},
        "context": "Scoped notes.",
    }
    got = _prompt(tmp_path, task, {"requirements.md": "Never used: the task has its own context."})
    expected = (
        "# Task Context (Scoped)\nScoped notes.\n"
        "# Task: Add login\n\n"
        "## Description\nDo it.\n\n"
        "## Files\nCreate: a.py, b.py\nReference: c.md\n\n"  # empty modify: no line; move: never shown
        "## Verification\nCommand: `pytest -q`\n\n" + INSTRUCTIONS
    )
    assert got.error is None
    assert got.text == expected
    assert got.uses == "task context"
    assert [p.name for p in got.parts] == [
        "task_context", "header", "description", "files", "verification", "instructions"
    ]  # fmt: skip
    for part in got.parts:
        assert got.text[part.span[0] : part.span[1]] == part.text
    assert got.part("task_context").text == "# Task Context (Scoped)\nScoped notes."
    assert got.part("header").source.endswith("tasks[0].title")
    # 37 characters: round(37 / 4) = round(9.25) = 9; the whole prompt's estimate likewise.
    assert got.part("task_context").estimate == 9
    assert got.estimate == round(len(expected) / 4)
    assert got.tokens.cl100k_base is not None and got.tokens.o200k_base is not None
    assert got.design is not None and got.design.guidance_tokens == DESIGN_GUIDANCE_TOKENS == 4000
    assert got.design.stored.chars == len("Scoped notes.")
    assert got.design.profile == "mahabharatha" and not got.design.identical


def test_without_a_context_the_whole_spec_comes_first(tmp_path: Path) -> None:
    requirements = "R one.\n\nR two."
    design = "D one."
    got = _prompt(
        tmp_path,
        {"id": "T1", "context": ""},  # empty counts as none
        {"REQUIREMENTS.md": f"\n{requirements}\n\n", "architecture.md": design},
    )
    expected = (
        "# Feature Context: feat\n\n"
        f"## Requirements Summary\n{requirements}\n\n"
        f"## Design Decisions\n{design}\n\n"
        "---\n\n"
        "# Task: T1\n\n" + INSTRUCTIONS  # no title: the id
    )
    assert got.text == expected
    assert got.uses == "spec context"
    names = [p.name for p in got.parts]
    assert names == ["spec_header", "spec_requirements", "spec_design", "spec_separator", "header", "instructions"]
    assert got.part("spec_requirements").source.endswith("feat/REQUIREMENTS.md")
    assert got.part("spec_design").source.endswith("feat/architecture.md")
    assert got.design is None


def test_long_requirements_are_cut_at_4000_characters(tmp_path: Path) -> None:
    para = "x" * 2999 + "."
    got = _prompt(tmp_path, {"id": "T1", "title": "t"}, {"requirements.md": f"{para}\n\n{para}"})
    # 6,002 characters > 1,000 tokens x 4: cut at 4,000, back to the paragraph break at 3,000 (> 2,000).
    req = got.part("spec_requirements")
    assert req.text == f"## Requirements Summary\n{para}\n\n[... truncated for context limits ...]\n"
    assert "cut to 3,000 of 6,002 characters" in req.note


def test_odd_fields_are_formatted_or_raise_as_upstream(tmp_path: Path) -> None:
    cases: list[tuple[dict[str, Any], str | None]] = [
        ({"id": 7, "title": None, "verification": {"command": 3}}, "# Task: None\n\n## Verification\nCommand: `3`\n\n"),
        ({"id": "T", "files": {"create": "ab"}}, "# Task: T\n\n## Files\nCreate: a, b\n\n"),
        ({"id": "T", "verification": {"x": 1}}, "# Task: T\n\n## Verification\nCommand: ``\n\n"),
        ({"title": "no id"}, "KeyError"),
        ({"id": "T", "files": ["a.py"]}, "AttributeError"),
        ({"id": "T", "verification": "pytest"}, "AttributeError"),
        ({"id": "T", "files": {"modify": ["a.py", 3]}}, "TypeError: sequence item 1"),
        ({"id": "T", "description": 5}, "TypeError: sequence item 3"),  # "# Task: T", "", "## Description", 5
        ({"id": "T", "context": ["a"]}, "TypeError: sequence item 1"),
    ]
    for n, (task, want) in enumerate(cases):
        got = _prompt(tmp_path / str(n), task)
        assert want is not None
        if want.startswith("#"):
            assert got.error is None, task
            assert got.text == want + INSTRUCTIONS, task
        else:
            assert got.error is not None and got.error.startswith(want), (task, got.error)
            assert got.text == "" and got.parts == ()


def test_a_spec_that_is_not_utf8_stops_the_worker(tmp_path: Path) -> None:
    got = _prompt(tmp_path, {"id": "T", "context": "mine"}, {"design.md": b"caf\xe9"})
    assert got.error is not None and got.error.startswith("UnicodeDecodeError")


# -- against the real code ------------------------------------------------------------------------------


def _odd_task(rng: random.Random, n: int, files: list[str]) -> dict[str, Any]:
    def words(k: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(k))

    task: dict[str, Any] = {"id": f"T-{n}"}
    if rng.random() < 0.85:
        task["title"] = rng.choice([words(4), "", None, 12, words(2) + " \u00e9\u4e2d"])
    if rng.random() < 0.8:
        task["description"] = rng.choice([words(12), "", None, words(30) + "\n\n" + words(5), 5, ["x"]])
    if rng.random() < 0.8:
        spec: dict[str, Any] = {}
        for key in ("create", "modify", "read", "delete", "move"):
            r = rng.random()
            if r < 0.5:
                spec[key] = [rng.choice(files) for _ in range(rng.randint(0, 3))]
            elif r < 0.55:
                spec[key] = rng.choice(["one.py", {"a.py": 1}, 3, None, [{"from": "a", "to": "b"}], ["a.py", 4]])
        task["files"] = spec if rng.random() < 0.95 else rng.choice([["a.py"], "a.py", 0, {}])
    if rng.random() < 0.6:
        task["verification"] = rng.choice(
            [{"command": "pytest -q " + words(1)}, {"command": None}, {}, {"timeout": 3}, "pytest", {"command": 1.5}]
        )
    if rng.random() < 0.5:
        task["context"] = rng.choice([words(40), "", None, "## Rules\n\n" + words(20) + "\n", {"a": 1}, 0])
    if rng.random() < 0.02:
        del task["id"]
    return task


def _generated_cases(tmp_path: Path) -> list[tuple[Path, str, str]]:
    cases = []
    for seed in range(4):
        root = tmp_path / f"g{seed}"
        feature, _ = make_project(root, seed, 3)
        rng = random.Random(1000 + seed)
        spec = root / ".gsd" / "specs" / feature
        if seed == 1:  # an empty requirements.md falls back to REQUIREMENTS.md
            for f in spec.glob("*.md"):
                f.unlink()
            (spec / "requirements.md").write_text("  \n")
            (spec / "REQUIREMENTS.md").write_text(("Long requirement text. " * 60 + "\n\n") * 8)
            (spec / "design.md").write_text(("Design words here. " * 50 + "\n\n") * 12)
        if seed == 2:  # no spec at all
            for f in spec.glob("*.md"):
                f.unlink()
        tasks = [_odd_task(rng, n, ["src/a.py", "lib/b.ts", "c.md", "Dockerfile"]) for n in range(120)]
        (spec / "task-graph.json").write_text(json.dumps({"feature": feature, "tasks": tasks}))
        project = load_project(root)
        cases += [(root, feature, t.id) for t in project.feature(feature).tasks]
    return cases


def _compare_prompts(python: str, cases: list[tuple[Path, str, str]]) -> int:
    jobs, mine = [], []
    projects: dict[Path, Any] = {}
    for root, feature_name, task_id in cases:
        project = projects.get(root) or projects.setdefault(root, load_project(root))
        feature = project.feature(feature_name)
        task = feature.task(task_id)
        mine.append(build_prompt(project, feature, task, exact=False, compare_design=False))
        jobs.append({"root": str(root), "feature": feature_name, "task": dict(task.raw)})
    theirs = run_oracle(python, jobs, "prompt")
    failures, raised = [], 0
    for job, got, want in zip(jobs, mine, theirs, strict=True):
        if "error" in want:
            raised += 1
            kind = want["error"].split(":", 1)[0]
            if got.error is None or got.error.split(":", 1)[0] != kind:
                failures.append(f"{job['task']}: upstream raised {want['error']}, ours: {got.error}")
        elif got.error is not None or got.text != want["prompt"]:
            failures.append(f"{job['task']}:\n  upstream {want['prompt']!r}\n  ours     {got.text!r} {got.error}")
    assert not failures, f"{len(failures)} of {len(jobs)} prompts differ; first:\n" + "\n".join(failures[:3])
    return raised


def test_sample_prompts_match_the_real_composer(oracle: str, tmp_path: Path) -> None:  # noqa: F811
    cases = []
    for sample in sorted(p for p in SAMPLES.iterdir() if p.is_dir()):
        root = tmp_path / sample.name
        shutil.copytree(sample, root, symlinks=True)
        for feature in load_project(root).features:
            cases += [(root, feature.name, t.id) for t in feature.tasks]
    assert len(cases) > 50
    _compare_prompts(oracle, cases)


def test_generated_prompts_match_the_real_composer(oracle: str, tmp_path: Path) -> None:  # noqa: F811
    cases = _generated_cases(tmp_path)
    assert len(cases) >= 470
    raised = _compare_prompts(oracle, cases)
    assert 20 <= raised <= len(cases) // 2  # the failures upstream raises on are exercised, not most tasks

"""Engineering rule files parsed once per path and text: the same rules, skips and failures as a
fresh parse, and an edited file parsed again."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.profiles.zerg import engrules

GOOD = """rules:
  - id: r1
    title: Validate input
    priority: critical
    applies_to: ["*.py"]
  - just text
  - id: r2
    title: Keep it short
    priority: someday
"""


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts ``yaml.safe_load`` is asked to parse, from a cold cache."""
    engrules.clear_caches()
    seen: list[str] = []
    real = yaml.safe_load

    def counting(text: Any) -> Any:
        seen.append(text)
        return real(text)

    monkeypatch.setattr(engrules.yaml, "safe_load", counting)
    return seen


def _project(tmp_path: Path, files: dict[str, str]) -> ProjectFS:
    rules = tmp_path / ".zerg" / "rules"
    rules.mkdir(parents=True)
    for name, text in files.items():
        (rules / name).write_text(text)
    return ProjectFS(tmp_path)


def test_a_rule_file_is_parsed_once_for_many_tasks(tmp_path: Path, parses: list[str]) -> None:
    fs = _project(tmp_path, {"a.yaml": GOOD, "b.yml": "rules: [unclosed\n"})
    results = [engrules.build(fs, ".zerg/rules", ["src/app.py"], 1000) for _ in range(3)]
    assert len(parses) == 2  # a.yaml and b.yml, once each
    for result in results:
        assert [(o.rule.id, o.status) for o in result.outcomes] == [("r1", "kept")]
        # *.yaml files before *.yml files, each file's entries in order
        assert result.skipped[:2] == [(".zerg/rules/a.yaml#2", "not a mapping"),
                                      (".zerg/rules/a.yaml#3", "unknown priority 'someday'")]  # fmt: skip
        assert [where for where, _ in result.skipped[2:]] == [".zerg/rules/b.yml"]
        assert result.skipped[2][1].startswith("not YAML: ")
        assert result.text == engrules.HEADER + "- **[CRITICAL]** Validate input"


def test_an_edited_rule_file_is_parsed_again(tmp_path: Path, parses: list[str]) -> None:
    fs = _project(tmp_path, {"a.yaml": GOOD})
    assert engrules.build(fs, ".zerg/rules", ["x.py"], 1000).outcomes[0].rule.title == "Validate input"
    path = tmp_path / ".zerg/rules/a.yaml"
    path.write_text(GOOD.replace("Validate input", "Check every input"))
    os.utime(path, ns=(1, 1))
    assert engrules.build(fs, ".zerg/rules", ["x.py"], 1000).outcomes[0].rule.title == "Check every input"
    assert len(parses) == 2


def test_the_same_text_at_another_path_is_its_own_rules(tmp_path: Path, parses: list[str]) -> None:
    fs = _project(tmp_path, {"a.yaml": GOOD, "b.yaml": GOOD})
    result = engrules.build(fs, ".zerg/rules", ["x.py"], 1000)
    assert len(parses) == 2
    assert [(o.rule.source, o.status) for o in result.outcomes] == [(".zerg/rules/a.yaml", "kept"),
                                                                    (".zerg/rules/b.yaml", "duplicate")]  # fmt: skip


def test_a_failing_rule_file_fails_every_time(tmp_path: Path, parses: list[str]) -> None:
    fs = _project(tmp_path, {"a.yaml": "rules:\n  - id: r1\n    title: t\n    priority: 3\n"})
    for _ in range(2):
        with pytest.raises(engrules.RulesFailure, match=r"a.yaml: rule 1 has a priority that is not text \(3\)"):
            engrules.build(fs, ".zerg/rules", ["x.py"], 1000)
    assert len(parses) == 1

"""Recorded vs reproduced: token records beside what the upstream profile builds, by hand and by the real
zerg-ai 0.3.2 plugin's own token tracker."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runfiles.fleet import read_run
from ctxviewer.engine.runfiles.rundir import discover_run
from ctxviewer.engine.runfiles.tokenrecords import TaskTokens, TokenRecord
from ctxviewer.engine.runs.recorded import (
    CAUSES,
    DIFFERS,
    FILES_CHANGED,
    ONLY_RECORDED,
    ONLY_REPRODUCED,
    SAME,
    SETTINGS,
    VERSION,
    SectionCount,
    compare_records,
    record_profile,
    recorded_values,
    settings_words,
    upstream_count,
    version_words,
    with_causes,
)
from tests.cli.helpers import CORE, TASK
from tests.factories import make_project, write

CACHE = Path(os.environ.get("CTXVIEWER_TEST_CACHE") or Path.home() / ".cache" / "ctxviewer-tests")
VENV = CACHE / "zerg-ai-0.3.2"
DRIVER = Path(__file__).with_name("recorded_driver.py")
SAMPLES = Path(__file__).resolve().parents[3] / "sample_projects"

#: T1's sections under zerg-0.3.2: the security rules, 85 characters, and the spec excerpts, 106.
SECURITY_TEXT = "## Security Rules (task-scoped)\n\n### _core/owasp-2025.md\n## Rule: A\n**Level**: strict"
SPEC_TEXT = (
    "## Relevant Requirements\n\nAlpha login flow.\n\nBeta session store.\n\n## Relevant Design\n\nLogin screen design."
)


def _project(root: Path) -> Path:
    make_project(
        root,
        [TASK, {"id": "T2", "title": "Other", "files": {}}],
        requirements="Alpha login flow.\n\nBeta session store.",
        design="Login screen design.",
        rules={"_core/owasp-2025.md": CORE},
    )
    return root


def _record(*tasks: tuple[str, dict[str, int]], mode: str = "estimated", worker: str = "1") -> TokenRecord:
    entries = tuple(
        TaskTokens(tid, tuple(sections.items()), sum(sections.values()), mode, None, None) for tid, sections in tasks
    )
    return TokenRecord(f".zerg/state/tokens-{worker}.json", worker, entries, None, None)


def test_upstreams_estimate_rounds_halves_to_even() -> None:
    assert len(SECURITY_TEXT) == 85 and len(SPEC_TEXT) == 106
    # 85 / 4 = 21.25 -> 21; 106 / 4 = 26.5 -> 26 (Python's round: half to even); 2 / 4 = 0.5 -> 0 -> at least 1.
    assert [upstream_count(n) for n in (85, 106, 2, 10, 14)] == [21, 26, 1, 2, 4]


def test_section_verdicts() -> None:
    assert [
        SectionCount("a", 3, 3).verdict,
        SectionCount("a", 3, 4).verdict,
        SectionCount("a", 3, None).verdict,
        SectionCount("a", None, 4).verdict,
    ] == [SAME, DIFFERS, ONLY_RECORDED, ONLY_REPRODUCED]


def test_a_hand_written_record_beside_the_reproduction(tmp_path: Path) -> None:
    project = load_project(_project(tmp_path / "p"), {"profile": "zerg-0.3.2"})
    record = _record(
        ("T1", {"security_rules": 21, "spec_excerpt": 26}),  # exactly what upstream writes for T1
        ("T2", {"spec_excerpt": 30, "repo_map": 7}),  # T2: 'Other' matches no paragraph, no files: nothing
        ("GONE", {"spec_excerpt": 5}),
    )
    found = compare_records(project, [record])
    assert found.profile == "zerg-0.3.2"
    t1, t2, gone = found.tasks
    assert t1.matches and (t1.recorded_total, t1.reproduced_total, t1.feature) == (47, 47, "feat")
    assert [(s.section, s.recorded, s.reproduced) for s in t1.sections] == [
        ("security_rules", 21, 21),
        ("spec_excerpt", 26, 26),
    ]
    assert not t2.matches and t2.reproduced_total is not None
    assert {s.section: s.verdict for s in t2.sections}["repo_map"] == ONLY_RECORDED
    assert not gone.reproduced and gone.note == "not in the project's task graphs"
    assert (found.same, found.differ, found.not_reproduced) == (1, 1, 1)


def test_compact_mode_counts_the_text_before_it_is_abbreviated(tmp_path: Path) -> None:
    # Compact mode adds the efficiency hints (241 characters; "documentation" is then cut to "docs",
    # 232): upstream records round(241 / 4) = 60, not round(232 / 4) = 58.
    project = load_project(_project(tmp_path / "p"), {"profile": "zerg-0.3.2", "compact_mode": "1"})
    found = compare_records(project, [_record(("T1", {"security_rules": 21, "spec_excerpt": 26}))])
    (t1,) = found.tasks
    assert [(s.section, s.recorded, s.reproduced, s.verdict) for s in t1.sections] == [
        ("security_rules", 21, 21, SAME),
        ("spec_excerpt", 26, 26, SAME),
        ("efficiency_hints", None, 60, ONLY_REPRODUCED),
    ]


def test_a_task_in_two_features_takes_the_preferred_one(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    write(root, ".gsd/specs/other/task-graph.json", json.dumps({"feature": "other", "tasks": [TASK]}))
    project = load_project(root, {"profile": "zerg-0.3.2"})
    record = _record(("T1", {"security_rules": 21, "spec_excerpt": 26}))
    first = compare_records(project, [record], prefer_features=["other"]).tasks[0]
    assert first.feature == "other" and first.note == "also in feature feat; reproduced in other"


def test_the_seeds_pipeline_reproduces_nothing(tmp_path: Path) -> None:
    project = load_project(_project(tmp_path / "p"))  # no token records in the project: the seed's pipeline
    found = compare_records(project, [_record(("T1", {"spec_excerpt": 26}), mode="exact")])
    assert found.profile is None and found.not_reproduced == 1
    assert found.tasks[0].note == "not reproduced: the pipeline that runs here (2026-01-30) writes no token records"


def test_exact_records_say_so(tmp_path: Path) -> None:
    project = load_project(_project(tmp_path / "p"), {"profile": "zerg-0.3.2"})
    (t1,) = compare_records(project, [_record(("T1", {"security_rules": 20, "spec_excerpt": 26}), mode="exact")]).tasks
    assert "mode exact" in t1.note and [s.verdict for s in t1.sections] == [DIFFERS, SAME]


@pytest.mark.parametrize("compact", [False, True])
def test_records_the_real_plugin_wrote_are_reproduced(tmp_path: Path, compact: bool) -> None:
    python = VENV / "bin" / "python"
    if not (VENV / "ready").exists() or not python.exists():
        pytest.skip(f"no zerg-ai 0.3.2 virtualenv at {VENV} (tests/engine/profiles/test_upstream_oracle.py makes it)")
    env = {"COMPACT_MODE": "1", "ANALYSIS_DEPTH": "think-hard", "TDD_MODE": "1"} if compact else {}
    switches = {"compact_mode": "1", "analysis_depth": "think-hard", "tdd_mode": "1"} if compact else {}
    roots = []
    jobs = []
    for sample in sorted(p for p in SAMPLES.iterdir() if p.is_dir()):
        root = tmp_path / sample.name  # the plugin writes its records into the project, as a worker's does
        shutil.copytree(sample, root, symlinks=True)
        roots.append(root)
        project = load_project(root, {"profile": "zerg-0.3.2", **switches})
        for n, (feature, task) in enumerate(project.tasks()):
            jobs.append(
                {
                    "root": str(root),
                    "feature": feature.name,
                    "task": dict(task.raw),
                    "env": env,
                    "worker": str(n % 3 + 1),
                    "budget": project.settings.budget,
                    "security_rule_filtering": project.settings.security_rule_filtering,
                }
            )
    done = subprocess.run(
        [str(python), str(DRIVER)],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "PYTHONHASHSEED": "1"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert all("chars" in r for r in json.loads(done.stdout))
    compared = sections = 0
    for root in roots:
        snapshot = read_run(discover_run(root))
        assert [p.describe() for p in snapshot.new_problems] == []
        found = compare_records(load_project(root, switches), snapshot.token_records)  # the version detected
        assert found.profile == "zerg-0.3.2", found.reason
        differ = [t for t in found.tasks if not t.matches]
        assert not differ, differ[:2]
        compared += len(found.tasks)
        sections += sum(len(t.sections) for t in found.tasks)
    assert compared == len(jobs) and compared > 50
    assert sections > 2 * compared  # most tasks have several sections to compare


def _timed(task: str, sections: dict[str, int], moment: float, file: str = ".zerg/state/tokens-1.json") -> TokenRecord:
    entry = TaskTokens(task, tuple(sections.items()), sum(sections.values()), "estimated", None, moment)
    return TokenRecord(file, "1", (entry,), None, None)


def test_which_version_writes_records_where() -> None:
    assert [record_profile(f) for f in (".zerg/state/tokens-1.json", ".mahabharatha/state/tokens-2.json")] == [
        "zerg-0.3.2",
        "mahabharatha-latest",
    ]
    assert record_profile("copy/tokens-1.json") is None
    assert version_words(".zerg/state/tokens-1.json", "zerg-0.3.2") == ""
    assert version_words(".mahabharatha/state/tokens-1.json", "zerg-0.3.2").startswith(
        "written by today's nine-section pipeline"
    )


def test_causes_take_the_strongest_first() -> None:
    sections = (SectionCount("a", 3, 3), SectionCount("b", 3, 4), SectionCount("c", None, 2))
    by_version = with_causes(sections, version="other", changed={"b": ["x.md"]}, settings="s")
    assert [(s.cause, s.why) for s in by_version] == [("", ""), (VERSION, "other"), (VERSION, "other")]
    by_files = with_causes(sections, changed={"b": ["x.md"]}, settings="s")
    assert [(s.cause, s.why) for s in by_files] == [
        ("", ""),
        (FILES_CHANGED, "x.md"),
        (SETTINGS, "s"),  # c reads no file that changed
    ]
    assert set(CAUSES) == {VERSION, FILES_CHANGED, SETTINGS}


def test_a_spec_edited_after_the_record_is_the_likely_cause(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    design = root / ".gsd/specs/feat/design.md"
    moment = design.stat().st_mtime + 10  # recorded after every file was written
    record = _timed("T1", {"security_rules": 21, "spec_excerpt": 26}, moment)
    project = load_project(root, {"profile": "zerg-0.3.2"})
    assert compare_records(project, [record]).tasks[0].matches
    # ", revised" adds 9 characters to the spec text: 115 / 4 = 28.75 -> 29.
    design.write_text("Login screen design, revised.")
    os.utime(design, (moment + 60, moment + 60))
    (t1,) = compare_records(load_project(root, {"profile": "zerg-0.3.2"}), [record]).tasks
    assert [(s.section, s.recorded, s.reproduced, s.cause) for s in t1.sections] == [
        ("security_rules", 21, 21, ""),
        ("spec_excerpt", 26, 29, FILES_CHANGED),
    ]
    assert t1.sections[1].why == ".gsd/specs/feat/design.md"
    assert t1.changed == (".gsd/specs/feat/design.md",) and t1.recorded_at == moment
    # A record with no time: nothing is known to have changed since; the settings stand.
    (untimed,) = compare_records(
        load_project(root, {"profile": "zerg-0.3.2"}), [_timed("T1", {"spec_excerpt": 26, "security_rules": 21}, None)]
    ).tasks  # type: ignore[arg-type]
    assert [s.cause for s in untimed.sections] == [SETTINGS, ""] and untimed.changed == ()


def test_settings_tuned_away_from_the_projects_are_named(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    project = load_project(root, {"profile": "zerg-0.3.2"})
    tuned = project.settings.with_overrides({"compact_mode": "1", "worker_id": "1"}, "test")
    record = _timed("T1", {"security_rules": 21, "spec_excerpt": 26}, None)  # type: ignore[arg-type]
    (t1,) = compare_records(project, [record], settings=tuned).tasks
    (hints,) = [s for s in t1.sections if s.cause]
    assert (hints.section, hints.recorded, hints.reproduced, hints.cause) == ("efficiency_hints", None, 60, SETTINGS)
    assert hints.why.endswith("(tuned here: compact_mode)")  # the worker's id is the record's own
    assert settings_words(project, project.settings, "exact").startswith("recorded with Anthropic's count")


def test_the_recorded_values_to_open_a_task_at() -> None:
    assert recorded_values("zerg-0.3.2", "3") == {"profile": "zerg-0.3.2", "worker_id": "3"}
    assert recorded_values(None, None) == {}

"""The ``upstream`` setting: values, detection from the project, what the trace records,
and ``latest`` checked against the real zerg-ai 0.3.2 on renamed copies (PIPELINE.md section 9:
the repository's main is 0.3.2's assembly under ``.mahabharatha/`` and ``MAHABHARATHA_*``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble, assemble_task
from ctxviewer.engine.trace.model import trace_from_json, trace_to_json
from tests.engine.profiles.test_upstream_oracle import COMBOS, SAMPLES, SWITCH_SETTINGS, oracle, run_oracle  # noqa: F401
from tests.engine.profiles.upstream_oracle.generate import make_project
from tests.factories import make_project as small_project
from tests.factories import write

TASK = {"id": "T1", "title": "Session store", "description": "Build the session store", "files": {"create": ["a.py"]}}
RULES = "rules:\n  - id: r1\n    title: Keep it small\n    priority: critical\n    applies_to: ['*.py']\n"


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    root = small_project(tmp_path / "p", [TASK], requirements="The session store keeps sessions.")
    for rel, text in files.items():
        write(root, rel, text)
    return root


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.iterdir() if p.is_dir()))
def test_the_samples_are_detected_as_the_seed(sample: str) -> None:
    # None has engineering rule files, token records or later config keys: the seed's pipeline,
    # which test_samples pins byte for byte.
    trace = assemble(load_project(SAMPLES / sample), *_first(SAMPLES / sample))
    assert (trace.profile, trace.upstream) == ("mahabharatha", "2026-01-30")
    assert trace.upstream_reason.startswith("detected 2026-01-30: no engineering rule files")
    assert trace.settings["upstream"].value == "auto"


def _first(root: Path) -> tuple[str, str]:
    project = load_project(root)
    feature = next(f for f in project.features if f.tasks)
    return feature.name, feature.tasks[0].id


@pytest.mark.parametrize(
    ("files", "version", "profile", "evidence"),
    [
        ({".zerg/rules/eng.yaml": RULES}, "zerg-ai-0.3.2", "zerg-0.3.2",
         "engineering rule files in .zerg/rules (eng.yaml)"),
        ({".mahabharatha/rules/a.yml": RULES}, "latest", "mahabharatha-latest", "in .mahabharatha/rules (a.yml)"),
        ({".zerg/state/tokens-1.json": "{}"}, "zerg-ai-0.3.2", "zerg-0.3.2", "token records in .zerg/state"),
        ({".mahabharatha/config.yaml": "token_metrics: {}\ntdd: {}\n"}, "latest", "mahabharatha-latest",
         "config keys tdd, token_metrics in .mahabharatha/config.yaml"),
        ({".mahabharatha/config.yaml": "workers: {count: 2}\n"}, "2026-01-30", "mahabharatha",
         "(.mahabharatha/ without them)"),
        ({".zerg/rules/x.yaml": RULES, ".mahabharatha/state/token-cache.json": "{}"}, "latest", "mahabharatha-latest",
         "(also in .zerg/: the newer folder name wins)"),
    ],
)  # fmt: skip
def test_detection(tmp_path: Path, files: dict[str, str], version: str, profile: str, evidence: str) -> None:
    root = _project(tmp_path, files)
    trace = assemble(load_project(root), "feat", "T1", exact=False)
    assert (trace.upstream, trace.profile) == (version, profile)
    assert evidence in trace.upstream_reason
    if version != "2026-01-30":  # decided in characters, as upstream does, whatever the tokenizer
        assert assemble(load_project(root), "feat", "T1", {"tokenizer": "cl100k_base"}).tokenizer == "heuristic"


def test_latest_reads_its_own_folder_and_names_its_variables(tmp_path: Path) -> None:
    root = _project(
        tmp_path, {".mahabharatha/rules/a.yaml": RULES, ".zerg/rules/b.yaml": RULES.replace("Keep", "Zerg")}
    )
    trace = assemble(load_project(root), "feat", "T1", {"upstream": "latest", "tdd_mode": "1"}, exact=False)
    assert trace.context.startswith("## Engineering Rules (task-scoped)\n\n- **[CRITICAL]** Keep it small")
    assert "Zerg it small" not in trace.context
    switch = trace.item("switch:tdd_mode")
    assert switch is not None and "MAHABHARATHA_TDD_MODE is '1'" in switch.reason
    zerg = assemble(load_project(root), "feat", "T1", {"upstream": "zerg-ai-0.3.2"}, exact=False)
    assert "- **[CRITICAL]** Zerg it small" in zerg.context and zerg.profile == "zerg-0.3.2"


def test_the_setting_wins_over_detection_and_the_profiles_pin_their_version(tmp_path: Path) -> None:
    root = _project(tmp_path, {".zerg/rules/eng.yaml": RULES})
    seed = assemble(load_project(root), "feat", "T1", {"upstream": "2026-01-30"}, exact=False)
    assert (seed.profile, seed.upstream) == ("mahabharatha", "2026-01-30")
    assert seed.upstream_reason == "setting upstream: 2026-01-30 (override)"
    assert "Engineering Rules" not in seed.context
    pinned = assemble(load_project(root), "feat", "T1", {"profile": "zerg-0.3.2", "upstream": "latest"}, exact=False)
    assert (pinned.profile, pinned.upstream) == ("zerg-0.3.2", "zerg-ai-0.3.2")
    other = assemble(load_project(root), "feat", "T1", {"profile": "drift"}, exact=False)
    assert (other.upstream, other.upstream_reason) == ("", "")


def test_ctxviewer_yaml_takes_a_version_or_a_mapping(tmp_path: Path) -> None:
    root = _project(tmp_path, {"ctxviewer.yaml": "upstream: 2026-01-30\n"})  # YAML reads a date
    assert load_project(root).settings.upstream == "2026-01-30"
    (root / "ctxviewer.yaml").write_text("upstream:\n  version: zerg-ai-0.3.2\n  compact_mode: '1'\n")
    settings = load_project(root).settings
    assert (settings.upstream, settings.compact_mode, settings.origin("upstream")) == (
        "zerg-ai-0.3.2",
        "1",
        "ctxviewer.yaml",
    )
    (root / "ctxviewer.yaml").write_text("upstream: 0.3.2\n")
    with pytest.raises(SettingsError, match=r"upstream: must be one of auto, 2026-01-30, zerg-ai-0\.3\.2, latest"):
        load_project(root)


def test_the_trace_records_the_version_and_round_trips(tmp_path: Path) -> None:
    root = _project(tmp_path, {".zerg/rules/eng.yaml": RULES})
    trace = assemble(load_project(root), "feat", "T1", exact=False)
    data = json.loads(json.dumps(trace_to_json(trace)))
    assert (data["schema_version"], data["upstream"]) == ("2.3", "zerg-ai-0.3.2")
    assert trace_from_json(data) == trace
    data["schema_version"] = "2.0"
    del data["upstream"], data["upstream_reason"]
    old = trace_from_json(data)
    assert (old.upstream, old.upstream_reason) == ("", "")


# -- latest against the real code ---------------------------------------------------------------------


def test_latest_matches_the_real_plugin_on_renamed_projects(oracle: str, tmp_path: Path) -> None:  # noqa: F811
    """0.3.2 runs on each generated project (``.zerg/``, ``ZERG_*``); ``latest`` runs on a copy with
    ``.zerg`` renamed ``.mahabharatha``, the switches standing for ``MAHABHARATHA_*``.  Same text."""
    jobs: list[dict[str, Any]] = []
    mine: list[str] = []
    n = 0
    for seed in range(3):
        root = tmp_path / f"z{seed}"
        feature_name, tasks = make_project(root, 100 + seed, 60)
        renamed = tmp_path / f"m{seed}"
        shutil.copytree(root, renamed)
        if (renamed / ".zerg").exists():
            (renamed / ".zerg").rename(renamed / ".mahabharatha")
        project = load_project(renamed)
        feature = project.feature(feature_name)
        for task in tasks:
            env = COMBOS[(n * 7) % len(COMBOS)]
            n += 1
            overrides = {"upstream": "latest", **{SWITCH_SETTINGS[k]: v for k, v in env.items()}}
            settings = project.settings.with_overrides(overrides, "test")
            trace = assemble_task(project, feature, feature.task(task["id"]), settings, exact=False)
            assert trace.profile == "mahabharatha-latest"
            mine.append(trace.context)
            job = {"root": str(root), "feature": feature_name, "task": task, "env": env, "budget": settings.budget}
            jobs.append({**job, "security_rule_filtering": settings.security_rule_filtering})
    theirs = run_oracle(oracle, jobs)
    differ = [j["task"]["id"] for j, m, t in zip(jobs, mine, theirs, strict=True) if t.get("context") != m]
    assert not differ, f"{len(differ)} of {len(jobs)} differ: {differ[:5]}"
    assert sum("## Engineering Rules" in m for m in mine) >= 20  # the renamed rules folder was read


def test_saving_the_version_keeps_the_switches(tmp_path: Path) -> None:
    from ctxviewer.engine.project.tuning import plan_save

    root = _project(tmp_path, {"ctxviewer.yaml": "upstream:\n  tdd_mode: '1'\n"})
    project = load_project(root)
    plan = plan_save(project, project.settings.with_overrides({"upstream": "latest"}, "tuned"))
    assert "upstream:\n  tdd_mode: '1'\n  version: latest\n" in plan.text


@pytest.mark.parametrize(
    ("graph_feature", "finding"),
    [("feat", None), (None, None), ("old-name", "'old-name'"), (7, "'7'")],
)
def test_a_graph_naming_another_feature_is_a_finding(tmp_path: Path, graph_feature: Any, finding: str | None) -> None:
    from ctxviewer.engine.analysis.findings import findings_of

    root = _project(tmp_path, {})
    graph: dict[str, Any] = {"tasks": [TASK]}
    if graph_feature is not None:
        graph["feature"] = graph_feature
    (root / ".gsd/specs/feat/task-graph.json").write_text(json.dumps(graph))
    trace = assemble(load_project(root), "feat", "T1", exact=False)
    found = [f for f in findings_of(trace) if f.code == "feature-mismatch"]
    if finding is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0].severity == "warning"
        assert found[0].message.startswith(f"The task graph says feature {finding}, but its spec folder is 'feat'")
        assert trace_from_json(json.loads(json.dumps(trace_to_json(trace)))).graph_feature == finding.strip("'")


@pytest.mark.parametrize(
    "profile", ["mahabharatha", "zerg-0.3.2", "mahabharatha-latest", "drift", "shaktiman", "ctxviewer"]
)
def test_move_objects_are_no_bad_input_for_batch(
    tmp_path: Path, profile: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxviewer.cli import main

    task = {
        "id": "T1",
        "title": "Rename",
        "files": {"create": ["a.py"], "move": [{"from": "src/old.py", "to": "src/new.py"}]},
    }
    root = small_project(tmp_path / "p", [task], requirements="The old module becomes the new one.")
    assert main(["batch", str(root), "--no-exact", "--profile", profile]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    line = json.loads(out)
    kinds = [e["kind"] for e in line["errors"]]
    if profile in ("drift", "shaktiman", "ctxviewer"):  # both paths are the task's: stems 'old' and 'new'
        assert kinds == [] and {"old", "new"} <= {k["word"] for k in line["keywords"]}
    else:  # upstream's spec keywords raise on the object: the spec section is left out, as upstream does
        assert (
            kinds == ["pipeline"]
            and "spec loading failed: files.move has an entry that is dict" in line["errors"][0]["message"]
        )


def test_the_html_report_says_which_version_ran_and_why(tmp_path: Path) -> None:
    from ctxviewer.engine.exports.report import html_report

    root = _project(tmp_path, {".zerg/rules/eng.yaml": RULES})
    page = html_report(assemble(load_project(root), "feat", "T1", exact=False))
    assert "Upstream version" in page
    assert "zerg-ai-0.3.2: detected zerg-ai-0.3.2: engineering rule files in .zerg/rules (eng.yaml)" in page
    drift = html_report(assemble(load_project(root), "feat", "T1", {"profile": "drift"}, exact=False))
    assert "Upstream version" not in drift


def test_a_pass_detects_the_version_once_and_a_single_run_each_time(tmp_path: Path) -> None:
    """Every task of a batch asks which version runs: within a pass the project is looked at
    once (its config parsed once), and a run outside one sees the project as it is now."""
    from ctxviewer.engine.files.reading import one_pass
    from ctxviewer.engine.project import upstream

    root = _project(tmp_path, {".mahabharatha/config.yaml": "workers: {count: 2}\n"})
    fs = load_project(root).fs
    ctx = one_pass()
    first = ctx.run(upstream.detect, fs)
    assert first.version == "2026-01-30"
    write(root, ".mahabharatha/config.yaml", "token_metrics: {}\n")  # now a later version's key
    assert ctx.run(upstream.detect, fs) is first  # the pass saw the project as it was
    assert upstream.detect(fs).version == "latest"  # outside a pass: as it is now
    assert one_pass().run(upstream.detect, fs).version == "latest"  # a new pass looks again

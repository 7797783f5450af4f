"""``ctxviewer why --suggest``: the values that bring a candidate in, and the smallest change, as --set takes it.

The issue's promise is checked literally: for every candidate of every task of every sample
project under every profile, applying the suggested change the way ``assemble --set`` does
brings the candidate into the context.
"""

from __future__ import annotations

import json
import re
from contextvars import Context
from pathlib import Path

import pytest

from ctxviewer.cli.common import parse_setting
from ctxviewer.engine.files.reading import one_pass
from ctxviewer.engine.project.loading import Feature, Project, Task, load_project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.registry import PROFILES
from ctxviewer.engine.runs.pairs import PairSearch
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.runs.sensitivity import sensitivity
from ctxviewer.engine.trace.model import KEPT
from tests.cli.helpers import run
from tests.factories import COMPARE_TASKS, make_compare_project, make_small

SAMPLES = Path(__file__).resolve().parents[2] / "sample_projects"


def test_suggest_gives_a_change_that_assemble_set_applies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The compare project's core rule (1,533 characters) needs int(budget * 0.30) >= 384:
    # out at budget 1,000, in from 1,280 (or with a larger security share).
    root = make_compare_project(tmp_path / "p")
    # The budget goes in as --set, so the suggested --set after it wins (--budget would override it).
    args = [str(root), "--feature", "feat", "--task", COMPARE_TASKS[0]["id"], "--set", "budget=1000"]
    code, out, err = run(capsys, "why", *args, "owasp", "--suggest", "--format", "json")
    assert code == 0, err
    [m] = json.loads(out)["matches"]
    assert m["status"] == "cut_for_budget"
    suggest = m["suggest"]
    assert suggest["intervals"]["budget"] == [{"from": 1280, "to": 10_000_000, "status": "included"}]
    change = suggest["change"]
    assert change["key"] in ("budget", "security_share") and suggest["status"] == "included"
    assert suggest["set"] == f"{change['key']}={change['value']}"
    code, out, err = run(capsys, "assemble", *args, "--set", suggest["set"], "--format", "json")
    assert code == 0, err
    item = next(i for i in json.loads(out)["items"] if "owasp" in i["id"])
    assert item["status"] == "included"


def test_suggest_in_text_names_the_intervals_and_the_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_compare_project(tmp_path / "p")
    args = [str(root), "--feature", "feat", "--task", COMPARE_TASKS[0]["id"], "--budget", "1000"]
    code, out, _ = run(capsys, "why", *args, "owasp", "--suggest")
    assert code == 0
    assert "in at: budget 1,280-10,000,000" in out
    assert "smallest change: --set " in out and "(-> included" in out


def test_without_suggest_there_is_no_suggest_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_compare_project(tmp_path / "p")
    code, out, _ = run(
        capsys, "why", str(root), "--feature", "feat", "--task", "T1", "--budget", "1000", "owasp", "--format", "json"
    )
    assert code == 0 and "suggest" not in json.loads(out)["matches"][0]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("sample", ["storefront-web", "ledger-service", "edge-cases"])
def test_every_suggested_change_brings_its_candidate_in(sample: str, profile: str) -> None:
    """Every other task of the sample, the even ones under every other profile and the odd ones
    under the rest, so that each task is checked under about half the profiles; every task
    under every profile (and each two-setting suggestion, and that a candidate with none has
    none) is what ``bench/check_pairs.py`` checks, too long for CI."""
    project = load_project(SAMPLES / sample)
    checked = 0
    fs = one_pass()
    # At a tight budget, where the most is left out (at the samples' own budgets drift leaves
    # nothing out that a setting could bring in).
    settings = project.settings.with_overrides({"profile": profile, "budget": 1200}, "test")
    targets = [(f, t) for f in project.features for t in f.tasks]
    half = targets[list(PROFILES).index(profile) % 2 :: 2]
    assert len(half) >= len(targets) // 2 > 0
    checked += _check_every_suggestion(project, settings, fs, half)
    # Every profile but computed (whose samples fit everything it reads) leaves something to bring in.
    assert checked > 0 or profile == "computed"


def _check_every_suggestion(
    project: Project, settings: Settings, fs: Context, targets: list[tuple[Feature, Task]]
) -> int:
    checked = 0
    for feature, task in targets:
        trace = fs.run(assemble_task, project, feature, task, settings, exact=False)
        sens = sensitivity(project, feature, task, settings, trace)
        # The items each suggested change is for: a task is assembled once per change (the
        # run is deterministic), and every item it is suggested for is checked in that trace.
        by_change: dict[str, list[tuple[str, str]]] = {}
        for item in trace.items:
            change = sens.suggestion(item.id)
            if item.status in KEPT:
                assert change is None
                continue
            if change is None:
                # No single setting brings it in: no axis has a span where it is in, even
                # outside the real system's range.
                assert not any(sens.including(item.id, a.key) for a in sens.axes), item.id
                continue
            by_change.setdefault(change.set_text, []).append((item.id, change.status))
        for set_text, wanted in by_change.items():
            key, value = parse_setting(set_text)  # exactly what --set reads
            applied = settings.with_overrides({key: value}, "override")
            rerun = fs.run(assemble_task, project, feature, task, applied, exact=False)
            for item_id, status in wanted:
                after = rerun.item(item_id)
                assert after is not None and after.status == status and after.status in KEPT, (
                    task.id,
                    item_id,
                    set_text,
                )
                checked += 1
    return checked


def test_two_settings_when_one_is_not_enough_and_assemble_set_applies_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # requirements:3 is ranked 3rd: outranked at top_k 2, and at top_k 3 it needs a budget of
    # 544 (tests/engine/runs/test_pairs.py works it out); no single setting brings it in.
    root = make_small(tmp_path / "p").root
    args = [str(root), "--feature", "feat", "--task", "T1"]
    args += ["--set", "profile=mahabharatha", "--set", "budget=300", "--set", "top_k=2"]
    code, out, err = run(capsys, "why", *args, "requirements:3", "--suggest", "--format", "json")
    assert code == 0, err
    [m] = [m for m in json.loads(out)["matches"] if m["id"] == "requirements:3"]
    suggest = m["suggest"]
    assert (suggest["change"], suggest["set"]) == (None, None)
    assert suggest["changes"] == [
        {"key": "budget", "value": 544, "set": "budget=544"},
        {"key": "top_k", "value": 3, "set": "top_k=3"},
    ]
    assert suggest["status"] == "included" and suggest["size"] == round(244 / 300 + 0.5, 4)
    sets = [a for c in suggest["changes"] for a in ("--set", c["set"])]
    code, out, err = run(capsys, "assemble", *args, *sets, "--format", "json")
    assert code == 0, err
    item = next(i for i in json.loads(out)["items"] if i["id"] == "requirements:3")
    assert item["status"] == "included"
    code, out, _ = run(capsys, "why", *args, "requirements:3", "--suggest")
    assert code == 0
    assert "   no value of any one setting brings it in\n" in out
    assert "   smallest change of two settings: --set budget=544 --set top_k=3 (-> included" in out


def test_no_two_settings_either_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The morphllm MCP hint is given by no switch of zerg-0.3.2, alone or with another, and the
    # budget decides no hint (tests/engine/runs/test_pairs.py checks it by brute force).
    root = make_small(tmp_path / "p").root
    args = [str(root), "--feature", "feat", "--task", "T1", "--set", "profile=zerg-0.3.2", "--set", "budget=700"]
    code, out, err = run(capsys, "why", *args, "mcp:morphllm", "--suggest", "--format", "json")
    assert code == 0, err
    [m] = [m for m in json.loads(out)["matches"] if m["id"] == "mcp:morphllm"]
    assert m["suggest"]["change"] is None and m["suggest"]["changes"] == []
    code, out, _ = run(capsys, "why", *args, "mcp:morphllm", "--suggest")
    assert "   no value of any one setting brings it in, nor of any two together\n" in out


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("sample", ["storefront-web", "ledger-service", "edge-cases"])
def test_every_suggested_pair_brings_its_candidate_in(sample: str, profile: str) -> None:
    # Every candidate of the sample's first task that no single setting brings in, at a tight
    # budget: its pair, applied as --set reads it, brings it in; without a pair, no value of any
    # one setting brings it in (the brute force of test_pairs.py checks the search itself;
    # bench/check_pairs.py runs this over every task).
    project = load_project(SAMPLES / sample)
    settings = project.settings.with_overrides({"profile": profile, "budget": 1200}, "test")
    fs = one_pass()
    pairs = 0
    for feature in project.features[:1]:
        for task in feature.tasks[:1]:
            trace = fs.run(assemble_task, project, feature, task, settings, exact=False)
            sens = sensitivity(project, feature, task, settings, trace)
            search = PairSearch(project, feature, task, settings, trace, sens)
            by_pair: dict[tuple[str, ...], list[tuple[str, str]]] = {}
            for item in trace.items:
                pair = search.suggestion(item.id)
                if pair is None:
                    continue
                assert item.status not in KEPT and sens.suggestion(item.id) is None
                assert not any(sens.including(item.id, a.key) for a in sens.axes)
                by_pair.setdefault(tuple(c.set_text for c in pair.changes), []).append((item.id, pair.status))
            for sets, wanted in by_pair.items():
                applied = settings.with_overrides(dict(parse_setting(text) for text in sets), "override")
                rerun = fs.run(assemble_task, project, feature, task, applied, exact=False)
                for item_id, status in wanted:
                    after = rerun.item(item_id)
                    assert after is not None and after.status == status and status in KEPT, (task.id, item_id, sets)
                    pairs += 1
    # The profiles that keep the top_k paragraphs leave paragraphs out that need top_k and room.
    if profile in ("mahabharatha", "zerg-0.3.2", "mahabharatha-latest"):
        assert pairs > 0


def test_suggest_at_a_budget_too_large_to_work_out_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_compare_project(tmp_path / "p")
    settings = load_project(root).settings
    assert (settings.security_share, settings.spec_share) == (0.3, 0.5)
    args = [str(root), "--feature", "feat", "--task", COMPARE_TASKS[0]["id"], "--set", "budget=2000000"]
    code, out, err = run(capsys, "why", *args, "owasp", "--suggest")
    assert (code, out) == (2, "")
    # Each share may take what the other leaves: security section budgets 0 .. int(2,000,000 * 0.5),
    # spec 0 .. int(2,000,000 * 0.7); the budget axis runs to the refit's ceiling, whatever it is.
    found = re.fullmatch(
        r"ctxviewer: sensitivity of T1 at budget 2,000,000: budget ([\d,]+) \+ security_share 1,000,001 \+ "
        r"spec_share 1,400,001 = ([\d,]+) refit evaluations is over the limit of 1,000,000; choose a smaller budget\n",
        err,
    )
    assert found is not None, err
    budget_axis, total = (int(g.replace(",", "")) for g in found.groups())
    assert total == budget_axis + 1_000_001 + 1_400_001


def test_two_setting_suggestions_follow_the_published_schema(capsys: pytest.CaptureFixture[str]) -> None:
    from jsonschema import Draft202012Validator

    from ctxviewer.engine.exports.schemas import schema
    from tests.conftest import SAMPLES

    args = [str(SAMPLES / "ledger-service"), "--feature", "auth-sessions", "--task", "AUTH-L1-001"]
    code, out, _ = run(capsys, "why", *args, "the", "--suggest", "--budget", "1200", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["schema_version"] == "1.1"
    # At budget 1,200 some paragraph needs two settings together: the JSON carries them as --set takes them.
    pairs = [m["suggest"]["changes"] for m in data["matches"] if m.get("suggest", {}).get("changes")]
    assert pairs and all(len(p) == 2 and all(c["set"] == f"{c['key']}={c['value']}" for c in p) for p in pairs)
    errors = list(Draft202012Validator(schema("why")).iter_errors(data))
    assert not errors, [e.message for e in errors[:3]]

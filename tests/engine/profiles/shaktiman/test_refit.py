"""The shaktiman refit against whole runs: the same fate for every item at every budget.

Whole runs (:class:`WholeRunRefit`, which calls ``assemble_task`` with the budget replaced)
are the oracle: on small generated projects at every integer budget from the bottom of
the range to the ceiling + 100, on every task of the sample projects at a stride and at
breakpoints.  One case is worked by hand (:func:`test_a_paragraph_in_out_and_in_again_worked_by_hand`),
and the replay's final exact check, which real text never triggers, is driven with a
counter that makes joining cost tokens (:func:`test_the_final_check_takes_chunks_out_as_a_whole_run_does`).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import random
import re
from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.profiles.base import ItemDraft
from ctxviewer.engine.profiles.lookup import refit_builder
from ctxviewer.engine.profiles.refit_contract import budget_range, with_values
from ctxviewer.engine.profiles.shaktiman import ShaktimanRun, packing_limit
from ctxviewer.engine.profiles.shaktiman import refit as shaktiman_refit
from ctxviewer.engine.profiles.shaktiman.refit import ShaktimanRefit, build_refit, joined_tokens, refit_of
from ctxviewer.engine.project.loading import Feature, Project, Task, load_project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.pipeline import spec_source
from ctxviewer.engine.runs.sensitivity import WholeRunRefit, refit_for
from ctxviewer.engine.tokens.counting import Census, get_counter
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, NOT_CANDIDATE
from tests.conftest import SAMPLES
from tests.factories import make_project, write

COUNT = get_counter("cl100k_base").count
REQ = ".gsd/specs/feat/requirements.md"
DES = ".gsd/specs/feat/design.md"
build = partial(build_refit, whole=WholeRunRefit, source=spec_source)


def shaktiman(project: Project, **overrides: Any) -> Settings:
    return project.settings.with_overrides({"profile": "shaktiman", **overrides}, "test")


def only_task(project: Project) -> tuple[Feature, Task]:
    (feature, task), *rest = project.tasks()
    assert not rest
    return feature, task


def agree(refit: ShaktimanRefit, whole: WholeRunRefit, budgets: Iterable[int]) -> int:
    """Assert the refit and whole runs give every item the same fate at every budget; how many."""
    n = 0
    for budget in budgets:
        fast, slow = dict(refit.fates(budget)), dict(whole.fates(budget))
        assert fast == slow, (budget, {k: (v, slow.get(k)) for k, v in fast.items() if v != slow.get(k)})
        n += 1
    return n


def statuses(refit: ShaktimanRefit, item_id: str, budgets: Iterable[int]) -> list[tuple[int, str]]:
    """(first budget, status) of every run of budgets at which *item_id* keeps one status."""
    out: list[tuple[int, str]] = []
    for budget in budgets:
        status = refit.fates(budget)[item_id]
        if not out or out[-1][1] != status:
            out.append((budget, status))
    return out


# -- a case worked by hand ------------------------------------------------------------------------

#: P1 holds all three task keywords (score 3) and about 300 tokens of filler; P2, in the design,
#: only "login" (score 1).  Four short paragraphs after P1 score 0: expansion's neighbours.
P1 = "Login session token" + " lorem" * 300
P2 = "Login only."
AFTER = "\n\n".join(f"Nothing {w} here." for w in ("at", "to", "see", "now"))


def hand_project(tmp_path: Path) -> Project:
    task = {"id": "T", "title": "Login session token", "files": {"create": []}}
    return load_project(make_project(tmp_path, [task], requirements=f"{P1}\n\n{AFTER}", design=P2))


def test_a_paragraph_in_out_and_in_again_worked_by_hand(tmp_path: Path) -> None:
    project = hand_project(tmp_path)
    settings = shaktiman(project)
    feature, task = only_task(project)
    refit = build(project, feature, task, settings)
    assert isinstance(refit, ShaktimanRefit) and refit.keys == frozenset({"budget"})
    # Worked by hand.  Each chunk costs its metadata line + "\n" + its text; a separator
    # ("\n\n", 1 token) is added before every chunk but the first.  The limit is the budget
    # less max(1, ceil(2% of it)).  Ranked: P1 (score 3), then P2 (score 1).
    # * limit < c1: P1 is cut, P2 (alone, c2 <= 250) is packed;
    # * c1 <= limit < c1 + 1 + c2: P1 is packed and P2 no longer fits;
    # * limit >= c1 + 1 + c2: both.
    # P2 is not a neighbour of P1 (another file), so expansion never offers it.
    c1 = COUNT(f"<!-- {REQ} L1-1 score 3 -->\n{P1}")
    c2 = COUNT(f"<!-- {DES} L1-1 score 1 -->\n{P2}")
    assert 300 < c1 < 330 and c2 < 30

    def limit(budget: int) -> int:
        return budget - max(1, math.ceil(budget * 0.02))

    first_p1 = min(b for b in range(256, 1000) if limit(b) >= c1)
    first_both = min(b for b in range(256, 1000) if limit(b) >= c1 + 1 + c2)
    ceiling = refit.ceiling()
    budgets = range(256, ceiling + 101)
    assert statuses(refit, "requirements:1", budgets) == [(256, CUT_FOR_BUDGET), (first_p1, INCLUDED)]
    # In, out, in again: the non-monotone case the whole reason for exact sensitivity.
    assert statuses(refit, "design:1", budgets) == [(256, INCLUDED), (first_p1, CUT_FOR_BUDGET), (first_both, INCLUDED)]
    # Whole runs agree at every budget, the zero-score neighbours' fates included.
    agree(refit, WholeRunRefit(project, feature, task, settings), budgets)
    # The neighbours only come in through expansion, 30% of what is left: a neighbour of
    # P1 changes fate at budgets where P1 is in.
    assert statuses(refit, "requirements:2", range(256, first_p1)) == [(256, NOT_CANDIDATE)]
    assert len(statuses(refit, "requirements:2", budgets)) > 1


# -- generated projects at every budget ------------------------------------------------------------

CORE = "## Rule: validate input\n**Level**: strict\n**When**: always\n\n## Rule: escape output\n**Level**: strict\n"
PY = "## Rule: no eval\n**When**: parsing input\n\n### Rule: pin dependencies\n**Level**: advisory\n"
DOCKER = "## Rule: non-root user\n**Level**: strict\n**When**: building images\n"
REQUIREMENTS = """# Sessions

## Login

A login opens a session and issues a token.

The session token rotates on every login.

Nothing else happens here at all.

### Tokens

A token expires after an hour of idle time, and the session with it.

Refresh tokens are stored hashed; a stolen token is revoked with its session.

## Logout

Logging out revokes the session token at once.

Unrelated text about the weather.

Unrelated text about the sea.

More unrelated words, filling a paragraph of their own for expansion.

## Audit

Every login and logout is written to the audit log with the session id and the token's hash.
"""
DESIGN = """# Design

The session store keeps one row per session, keyed by token hash.

## Tokens

Token rotation happens in the login handler; the old token is revoked in the same transaction.

A background job removes expired sessions every minute.

## Other

Nothing about the matter at hand.
"""


def mixed_project(tmp_path: Path) -> Project:
    task = {"id": "T", "title": "Login session token", "files": {"create": ["src/app.py", "Dockerfile"]}}
    rules = {"_core/owasp-2025.md": CORE, "languages/python/CLAUDE.md": PY, "containers/docker/CLAUDE.md": DOCKER}
    return load_project(make_project(tmp_path, [task], REQUIREMENTS, DESIGN, rules))


VARIANTS: list[dict[str, Any]] = [
    {},
    {"tokenizer": "o200k_base", "shaktiman_margin": 0.1},
    {"tokenizer": "heuristic", "shaktiman_margin": 0.0},  # decides with cl100k_base; margin 1 token
    {"shaktiman_margin": 0.5},
]


@pytest.mark.parametrize("overrides", VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_every_budget_agrees_with_whole_runs(tmp_path: Path, overrides: dict[str, Any]) -> None:
    project = mixed_project(tmp_path)
    settings = shaktiman(project, **overrides)
    feature, task = only_task(project)
    refit = build(project, feature, task, settings)
    assert isinstance(refit, ShaktimanRefit)
    whole = WholeRunRefit(project, feature, task, settings)
    ceiling = refit.ceiling()
    assert 300 < ceiling < 2500  # small enough to run every budget, large enough to mean something
    checked = agree(refit, whole, range(256, ceiling + 101))
    assert checked == ceiling - 255 + 100
    fates = [refit.fates(b) for b in range(256, ceiling + 1)]
    statuses_seen = {s for f in fates for s in f.values()}
    assert {INCLUDED, CUT_FOR_BUDGET, "outranked", NOT_CANDIDATE} <= statuses_seen  # every path is taken


def _in_out_in(sequence: list[str]) -> bool:
    runs = [k for k, _ in itertools.groupby(s == INCLUDED for s in sequence)]
    return runs.count(True) >= 2


def test_the_mixed_project_has_a_non_monotone_fate(tmp_path: Path) -> None:
    project = mixed_project(tmp_path)
    feature, task = only_task(project)
    refit = build(project, feature, task, shaktiman(project))
    assert isinstance(refit, ShaktimanRefit)
    fates = [refit.fates(b) for b in range(256, refit.ceiling() + 1)]
    assert [i for i in fates[0] if _in_out_in([f[i] for f in fates])]


def test_spec_feature_graph_reads_the_folder_the_graph_names(tmp_path: Path) -> None:
    # The graph lies in feat/ but names "other": with spec_feature graph, the spec is other's.
    task = {"id": "T", "title": "Login session token", "files": {"create": ["src/app.py"]}}
    make_project(tmp_path, [task], requirements=REQUIREMENTS, design=DESIGN, rules={"_core/owasp-2025.md": CORE})
    write(tmp_path, ".gsd/specs/feat/task-graph.json", json.dumps({"feature": "other", "tasks": [task]}))
    write(tmp_path, ".gsd/specs/other/requirements.md", f"{P1}\n\n{AFTER}")
    project = load_project(tmp_path)
    feature, task_ = only_task(project)
    graph = shaktiman(project, spec_feature="graph")
    folder = shaktiman(project)
    by_graph, by_folder = build(project, feature, task_, graph), build(project, feature, task_, folder)
    assert isinstance(by_graph, ShaktimanRefit) and isinstance(by_folder, ShaktimanRefit)
    budgets = range(256, max(by_graph.ceiling(), by_folder.ceiling()) + 101, 7)
    agree(by_graph, WholeRunRefit(project, feature, task_, graph), budgets)
    agree(by_folder, WholeRunRefit(project, feature, task_, folder), budgets)
    assert by_graph.fates(400) != by_folder.fates(400)


# -- the final exact check, driven --------------------------------------------------------------


class JunctionCounter:
    """Tokens as ``len // 3 + 1`` per chunk, and 6 more for a chunk followed by a blank line.

    Additive over chunks as the real encodings are (see ``joined_tokens``), but joining
    costs more than the separators the packer counts, so the final check has work to do.
    """

    name = "junction"

    def count(self, text: str) -> int:
        if not text:
            return 0
        pieces = re.split(r"(?<=\n\n)(?=<!--)", text)
        return sum(len(p) // 3 + 1 + (6 if p.endswith("\n\n") and p.strip() else 0) for p in pieces)

    def count_many(self, texts: Iterable[str]) -> list[int]:
        return [self.count(t) for t in texts]

    def fits_prefix(self, text: str, max_tokens: int) -> int:
        return min(len(text), max_tokens * 3)


def test_the_final_check_takes_chunks_out_as_a_whole_run_does(tmp_path: Path) -> None:
    project = mixed_project(tmp_path)
    feature, task = only_task(project)
    settings = shaktiman(project, shaktiman_margin=0.0)
    counter = JunctionCounter()

    def run(budget: int) -> ShaktimanRun:
        return ShaktimanRun(project, feature, task, with_values(settings, budget), counter, Census(False, counter.name))

    built = run(settings.budget)
    refit = refit_of(built, built.candidates())
    assert refit is not None
    cuts = 0
    for budget in range(256, refit.ceiling() + 101):
        result = run(budget).run()
        assert dict(refit.fates(budget)) == {i.id: i.status for i in result.items}, budget
        cuts += any(step.action == "verify_cut" for step in result.trim_steps)
    assert cuts > 50  # the check took chunks out at many budgets


# -- the joined count ------------------------------------------------------------------------------

ENDINGS = [
    "word",
    "word.",
    "word  ",
    "tab\t",
    "x/",
    "a.\n",
    "digits 123",
    "quote's",
    "café",
    "日本語",
    "emoji 🙂",
    "--",
]


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_joined_tokens_is_the_count_of_the_joined_text(encoding: str) -> None:
    counter = get_counter(encoding)
    texts = [f"<!-- a.md L{n}-{n} score 1 -->\n{body}" for n, body in enumerate(ENDINGS, 1)]
    rng = random.Random(19)
    orders = [list(p) for p in itertools.permutations(texts, 2)] + [rng.sample(texts, 5) for _ in range(200)]
    for chosen in orders:
        own = counter.count_many(chosen)
        with_blank = counter.count_many([t + "\n\n" for t in chosen])
        assert joined_tokens(own, with_blank) == counter.count("\n\n".join(chosen)), chosen
    assert joined_tokens([], []) == 0


# -- the sample projects -------------------------------------------------------------------------


def sample_tasks() -> list[tuple[Project, Feature, Task]]:
    out = []
    for name in ("ledger-service", "storefront-web", "edge-cases"):
        project = load_project(SAMPLES / name)
        out.extend((project, feature, task) for feature, task in project.tasks())
    return out


def test_every_sample_task_agrees_with_whole_runs_at_a_stride_and_at_breakpoints() -> None:
    tasks = sample_tasks()
    assert len(tasks) > 40
    checked = 0
    for project, feature, task in tasks:
        settings = shaktiman(project)
        refit = refit_for(project, feature, task, settings)
        assert isinstance(refit, ShaktimanRefit), task.id
        whole = WholeRunRefit(project, feature, task, settings)
        ceiling = refit.ceiling()
        # Every budget through the refit (its spans), then whole runs at a stride, on either
        # side of a few of the budgets where a fate changes, and of the ceiling (the top of
        # the range is in test_the_ceiling_is_the_last_change: whole runs there are slow).
        changes = [b for b in range(257, ceiling + 1) if refit.fates(b) is not refit.fates(b - 1)]
        assert changes[-1] == ceiling if changes else ceiling == 256
        sampled = changes[:: max(1, len(changes) // 4)]
        budgets = {*range(256, ceiling + 101, 1999), *sampled, *(b - 1 for b in sampled), ceiling - 1, ceiling}
        checked += agree(refit, whole, sorted(b for b in budgets if b >= 256))
    assert checked > 500


@pytest.mark.parametrize("name,task_id", [("storefront-web", "CHK-L2-003"), ("edge-cases", "ING-L1-002")])
def test_spans_agree_with_a_replay_at_every_budget(name: str, task_id: str) -> None:
    project = load_project(SAMPLES / name)
    feature, task = next((f, t) for f, t in project.tasks() if t.id == task_id)
    refit = refit_for(project, feature, task, shaktiman(project))
    assert isinstance(refit, ShaktimanRefit)
    ceiling = refit.ceiling()
    for budget in range(256, ceiling + 101):
        span = refit.span(budget)
        assert span.lo <= budget <= span.hi
        assert refit.fates(budget) == span.fates
    # Each span is as wide as the decisions allow: a replay at its ends finds the same span.
    for budget in range(256, ceiling, 37):
        span = refit.span(budget)
        assert (refit.span(span.lo).lo, refit.span(span.hi).hi) == (span.lo, span.hi)


def test_the_docker_rule_file_of_the_issue_goes_in_and_out_at_exact_budgets() -> None:
    # Issue 19: on storefront-web CHK-L2-003 the Docker rule file is in, out, in again.
    project = load_project(SAMPLES / "storefront-web")
    feature, task = next((f, t) for f, t in project.tasks() if t.id == "CHK-L2-003")
    settings = shaktiman(project)
    refit = refit_for(project, feature, task, settings)
    docker = "rule:containers/docker/CLAUDE.md"
    runs = statuses(refit, docker, range(256, refit.ceiling() + 1))
    assert [s for _, s in runs].count(INCLUDED) >= 2
    whole = WholeRunRefit(project, feature, task, settings)
    for first, status in runs[1:]:  # at every change, the budget before and the budget itself
        assert whole.fates(first - 1)[docker] != status and whole.fates(first)[docker] == status


# -- the ceiling -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ledger-service", "storefront-web", "edge-cases"])
def test_the_ceiling_is_the_last_change(name: str, tmp_path: Path) -> None:
    project = load_project(SAMPLES / name)
    for feature, task in list(project.tasks())[::5]:
        settings = shaktiman(project)
        refit = refit_for(project, feature, task, settings)
        whole = WholeRunRefit(project, feature, task, settings)
        ceiling = refit.ceiling()
        top = budget_range(settings)[1]
        at = refit.fates(ceiling)
        assert all(refit.fates(b) == at for b in range(ceiling, ceiling + 201))
        assert refit.fates(top) == at == whole.fates(top) == whole.fates(ceiling)
        if ceiling > 256:
            assert whole.fates(ceiling - 1) != at  # the last change is at the ceiling, not below it
        assert ceiling <= whole.ceiling()  # never above what the doubling search finds


def test_a_task_with_nothing_to_pack_has_its_ceiling_at_the_bottom(tmp_path: Path) -> None:
    task = {"id": "T", "title": "Weather", "files": {"create": []}}
    project = load_project(make_project(tmp_path, [task], requirements="Login session token."))
    feature, task_ = only_task(project)
    refit = build(project, feature, task_, shaktiman(project))
    assert isinstance(refit, ShaktimanRefit)
    assert refit.ceiling() == 256
    assert dict(refit.fates(256)) == dict(WholeRunRefit(project, feature, task_, shaktiman(project)).fates(256))


# -- the protocol's edges ----------------------------------------------------------------------


def test_shares_change_nothing_for_this_profile(tmp_path: Path) -> None:
    project = mixed_project(tmp_path)
    feature, task = only_task(project)
    settings = shaktiman(project)
    refit = build(project, feature, task, settings)
    whole = WholeRunRefit(project, feature, task, settings)
    assert refit.keys == whole.keys == frozenset({"budget"})
    shares: Mapping[str, float] = {"security_share": 0.05, "spec_share": 0.9}
    for budget in (256, 500, 900):
        assert refit.fates(budget, shares) == refit.fates(budget) == whole.fates(budget, shares)


@pytest.mark.parametrize("budget", [255, 32_769])
def test_a_budget_outside_the_range_is_refused_as_a_whole_run_refuses_it(tmp_path: Path, budget: int) -> None:
    project = mixed_project(tmp_path)
    feature, task = only_task(project)
    settings = shaktiman(project)
    with pytest.raises(SettingsError) as fast:
        build(project, feature, task, settings).fates(budget)
    with pytest.raises(SettingsError) as slow:
        WholeRunRefit(project, feature, task, settings).fates(budget)
    assert str(fast.value) == str(slow.value) and "not " + f"{budget:,}" in str(fast.value)


def test_the_limit_never_falls_as_the_budget_grows() -> None:
    # The spans rely on it (the margin is at most half the budget).
    for margin in (0.0, 0.02, 0.1, 0.33, 0.5):
        limits = [packing_limit(b, margin)[0] for b in range(256, 32_769)]
        assert all(0 <= b - a <= 1 for a, b in itertools.pairwise(limits)), margin


def test_registered_for_the_profile_that_runs(tmp_path: Path) -> None:
    project = mixed_project(tmp_path)
    feature, task = only_task(project)
    assert isinstance(refit_for(project, feature, task, shaktiman(project)), ShaktimanRefit)
    assert refit_builder("shaktiman") is build_refit


# -- the fallbacks --------------------------------------------------------------------------------


def test_another_profile_gets_whole_runs(tmp_path: Path) -> None:
    project = mixed_project(tmp_path)
    feature, task = only_task(project)
    for profile in ("drift", "ctxviewer", "mahabharatha"):
        settings = project.settings.with_overrides({"profile": profile}, "test")
        assert type(build(project, feature, task, settings)) is WholeRunRefit


def test_a_run_that_cannot_start_gets_whole_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxviewer.engine.errors import EncodingUnavailableError

    def missing(name: str) -> Any:
        raise EncodingUnavailableError(f"no {name} here")

    project = mixed_project(tmp_path)
    feature, task = only_task(project)
    monkeypatch.setattr(shaktiman_refit, "get_counter", missing)
    assert type(build(project, feature, task, shaktiman(project))) is WholeRunRefit


def test_a_long_run_without_whitespace_gets_whole_runs(tmp_path: Path) -> None:
    # Its count in pieces may be an estimate, so the joined count is not the chunks' sum.
    task = {"id": "T", "title": "Login session", "files": {"create": []}}
    requirements = "Login session " + "x" * 40_000 + "\n\nLogin again."
    project = load_project(make_project(tmp_path, [task], requirements=requirements))
    feature, task_ = only_task(project)
    assert type(build(project, feature, task_, shaktiman(project))) is WholeRunRefit
    # 30,000 characters are fine: the counter finds a place to cut within every half window.
    short = "Login session " + "x" * 30_000 + "\n\nLogin again."
    write(tmp_path, ".gsd/specs/feat/requirements.md", short)
    project = load_project(tmp_path)
    assert isinstance(build(project, *only_task(project), shaktiman(project)), ShaktimanRefit)


def test_items_sharing_an_id_get_no_refit(tmp_path: Path) -> None:
    project = mixed_project(tmp_path)
    feature, task = only_task(project)
    settings = shaktiman(project)
    counter = get_counter("cl100k_base")
    run = ShaktimanRun(project, feature, task, settings, counter, Census(False, counter.name))
    candidates = run.candidates()
    assert refit_of(run, candidates) is not None
    first = run.items[0]
    assert isinstance(first, ItemDraft)
    run.items.append(dataclasses.replace(first))
    assert refit_of(run, candidates) is None

"""The ctxviewer profile's fast refit against whole runs, the oracle, budget by budget."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from ctxviewer.engine.profiles.ctxviewer import refit as ctxviewer_refit
from ctxviewer.engine.profiles.ctxviewer.refit import CtxviewerRefit
from ctxviewer.engine.profiles.ctxviewer.run import CtxviewerRun
from ctxviewer.engine.profiles.refit_contract import Refit
from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.engine.project.settings import BUDGET_RANGE
from ctxviewer.engine.runs import pipeline
from ctxviewer.engine.runs.sensitivity import WholeRunRefit, refit_for
from ctxviewer.engine.tokens.counting import CL100K, TiktokenCounter, get_counter
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, NOT_CANDIDATE, OUTRANKED, TRUNCATED
from tests.conftest import SAMPLES
from tests.factories import make_project

CL = get_counter(CL100K)
TOP = BUDGET_RANGE[1]


def _rules(n: int, word: str) -> str:
    return "\n".join(f"## Rule: {word} rule {i} keeps secrets out of logs" for i in range(n)) + "\n"


#: Three rule files of 8, 5 and 2 rule lines, fitted in that order: the small docker block fits
#: alone, then the core block takes its room, then both fit, ... (in, out, in again).  The spec
#: has a heading, a near-duplicate pair, paragraphs of several sizes in two parts and one with
#: no keyword.
REQUIREMENTS = "\n\n".join(
    [
        "# Sessions",
        "The session store keeps each session token for thirty minutes and rotates it on login.",
        "Each session token is rotated on login; the session store keeps it for thirty minutes.",
        "The session store keeps each session token for thirty minutes and rotates it on login!",
        "Docker images run the session service as a non-root user with a read-only filesystem and no shell.",
        "## Store",
        "A store entry holds the token hash, the user id, the expiry and the client address, never the token.",
        "Unrelated paragraph about invoices and billing cycles.",
    ]
)
DESIGN = "\n\n".join(
    [
        "# Design",
        "The session store is a Redis hash per session; docker compose starts Redis beside the app.",
        "Tokens are 32 random bytes, base64url encoded; the store keeps their SHA-256 only. " * 3,
    ]
)
TASK = {
    "id": "T-1",
    "title": "Session store in Docker",
    "description": "Rotate the session token",
    "files": {"create": ["src/store.py", "Dockerfile"]},
}


def _small(root: Path, requirements: str = REQUIREMENTS, design: str | None = DESIGN) -> Project:
    make_project(
        root,
        [TASK],
        requirements=requirements,
        design=design,
        rules={
            "_core/owasp-2025.md": _rules(8, "core"),
            "languages/python/CLAUDE.md": _rules(5, "python"),
            "containers/docker/CLAUDE.md": _rules(2, "docker"),
        },
    )
    return load_project(root)


def _pair(project: Project, budget: int = 300, **values: object) -> tuple[Refit, WholeRunRefit]:
    feature = project.features[0]
    task = feature.tasks[0]
    settings = replace(project.settings, profile="ctxviewer", budget=budget, **values)  # type: ignore[arg-type]
    return refit_for(project, feature, task, settings), WholeRunRefit(project, feature, task, settings)


def _agree(
    refit: Refit, whole: WholeRunRefit, budgets: Iterable[int], shares: Mapping[str, float] | None = None
) -> int:
    n = 0
    for budget in budgets:
        fast, slow = refit.fates(budget, shares), whole.fates(budget, shares)
        if fast != slow:
            diff = {k: (fast.get(k), slow.get(k)) for k in {*fast, *slow} if fast.get(k) != slow.get(k)}
            pytest.fail(f"budget {budget}, shares {shares}: refit != whole run: {diff}")
        n += 1
    return n


def _histories(refit: Refit, budgets: Iterable[int]) -> dict[str, list[str]]:
    """Each item's run of distinct fates as the budget grows."""
    out: dict[str, list[str]] = {}
    for budget in budgets:
        for item, status in refit.fates(budget).items():
            seen = out.setdefault(item, [])
            if not seen or seen[-1] != status:
                seen.append(status)
    return out


# -- (a) agreement at every integer budget ------------------------------------------------------------------


def test_agrees_with_whole_runs_at_every_budget_and_fates_are_not_monotone(tmp_path: Path) -> None:
    refit, whole = _pair(_small(tmp_path))
    assert isinstance(refit, CtxviewerRefit)
    top = refit.ceiling() + 100
    assert _agree(refit, whole, range(BUDGET_RANGE[0], top + 1)) == top
    history = _histories(refit, range(1, top + 1))
    # The docker block: in alone, pushed out by the core block, in again beside it, ...
    assert history["rule:containers/docker/CLAUDE.md"][:4] == [CUT_FOR_BUDGET, INCLUDED, CUT_FOR_BUDGET, INCLUDED]
    # ... and every kind of fate occurs: partial fills, near-duplicates, a heading in and out.
    assert TRUNCATED in history["rule:_core/owasp-2025.md"]
    assert OUTRANKED in history["requirements:4"]
    assert history["requirements:6"][:3] == [NOT_CANDIDATE, INCLUDED, NOT_CANDIDATE]
    assert any(h.count(TRUNCATED) >= 2 for h in history.values())


def test_a_case_worked_by_hand(tmp_path: Path) -> None:
    # One paragraph of 40 tokens ("session" then 39 x " session"), no rule files (the task has
    # no files), shares 0.3 / 0.5.  The security section is empty, so all of its share goes to
    # the spec: spec budget = int(0.5 B) + int(0.3 B).  The requirements header costs 3 + 1
    # (its separator), a paragraph 40 + 1, the cut marker 1.
    # * whole: 40 + 1 + 4 = 45 <= int(0.5 B) + int(0.3 B): B = 57 gives 28 + 17 = 45, B = 56 44;
    # * partial: the room left after the separator, the marker and the header (spec budget - 6)
    #   must be at least 24 tokens: spec budget >= 30: B = 38 gives 19 + 11 = 30, B = 37 29.
    # So: cut for budget below 38, truncated from 38 to 56, included from 57 on.
    paragraph = "session" + " session" * 39
    assert (CL.count(paragraph), CL.count("## Relevant Requirements"), CL.count("\n\n"), CL.count(" [\u2026]")) == (
        40,
        3,
        1,
        1,
    )
    make_project(tmp_path, [{"id": "T-1", "title": "Session", "files": {}}], requirements=paragraph)
    refit, whole = _pair(load_project(tmp_path), budget=100)
    fates = {b: refit.fates(b)["requirements:1"] for b in range(1, 120)}
    assert {b for b, f in fates.items() if f == CUT_FOR_BUDGET} == set(range(1, 38))
    assert {b for b, f in fates.items() if f == TRUNCATED} == set(range(38, 57))
    assert {b for b, f in fates.items() if f == INCLUDED} == set(range(57, 120))
    assert refit.ceiling() == 57
    _agree(refit, whole, (36, 37, 38, 56, 57, 58))


def _sample_tasks() -> list[tuple[str, Project, int]]:
    out = []
    for name in ("ledger-service", "storefront-web", "edge-cases"):
        project = load_project(SAMPLES / name)
        out += [(name, project, n) for n, _ in enumerate(project.features)]
    return out


@pytest.mark.parametrize(("name", "project", "feature"), _sample_tasks())
def test_agrees_with_whole_runs_on_every_sample_task(name: str, project: Project, feature: int) -> None:
    del name
    f = project.features[feature]
    settings = replace(project.settings, profile="ctxviewer")
    for n, task in enumerate(f.tasks):
        refit, whole = refit_for(project, f, task, settings), WholeRunRefit(project, f, task, settings)
        assert isinstance(refit, CtxviewerRefit)
        ceiling = refit.ceiling()
        # About 15 budgets a task (a whole run is the slow part), at a different offset per task.
        step = max(97, ceiling // 15) | 1
        budgets = range(1 + (31 * n) % step, ceiling + 101, step)
        _agree(refit, whole, [*budgets, ceiling - 1, ceiling, ceiling + 1])


# -- (b) the shares -------------------------------------------------------------------------------------------


def test_agrees_at_every_integer_section_budget(tmp_path: Path) -> None:
    budget = 400
    refit, whole = _pair(_small(tmp_path), budget=budget)
    assert refit.keys == {"budget", "security_share", "spec_share"}
    for k in range(budget + 1):
        share = (k + 0.5) / budget  # int(budget * share) == k
        assert int(budget * share) == k
        _agree(refit, whole, [budget], {"security_share": share, "spec_share": min(0.5, 1 - share)})
        _agree(refit, whole, [budget], {"spec_share": share, "security_share": min(0.3, 1 - share)})
    # Both at once, on a coarser grid, and away from the built budget.
    for a in range(0, 101, 10):
        for b in range(0, 101 - a, 10):
            _agree(refit, whole, [173, 650], {"security_share": a / 100, "spec_share": b / 100})


# -- (c) the ceiling -------------------------------------------------------------------------------------------


def test_the_ceiling_is_the_last_change(tmp_path: Path) -> None:
    refit, whole = _pair(_small(tmp_path))
    ceiling = refit.ceiling()
    final = refit.fates(ceiling)
    assert all(refit.fates(b) == final for b in range(ceiling, ceiling + 201))
    assert refit.fates(TOP) == final == whole.fates(TOP)
    assert refit.fates(ceiling - 1) != final  # the last change is at the ceiling itself
    assert ceiling == whole.ceiling()


@pytest.mark.parametrize("name", ["ledger-service", "storefront-web", "edge-cases"])
def test_the_ceiling_on_the_samples(name: str) -> None:
    project = load_project(SAMPLES / name)
    settings = replace(project.settings, profile="ctxviewer")
    for f in project.features:
        for task in f.tasks:
            refit = refit_for(project, f, task, settings)
            ceiling = refit.ceiling()
            final = refit.fates(ceiling)
            assert all(refit.fates(b) == final for b in range(ceiling, ceiling + 201)), task.id
            assert refit.fates(TOP) == final, task.id
            assert refit.fates(ceiling - 1) != final, task.id


def test_the_ceiling_with_an_unusual_split(tmp_path: Path) -> None:
    # No spec share at all: the spec section lives on what the security section leaves.
    refit, whole = _pair(_small(tmp_path), security_share=0.9, spec_share=0.0)
    ceiling = refit.ceiling()
    _agree(refit, whole, range(1, ceiling + 101))
    assert refit.fates(ceiling - 1) != refit.fates(ceiling) == refit.fates(TOP)


# -- the exact check (taking out the last packed) ----------------------------------------------------------------


class Inflating(TiktokenCounter):
    """cl100k_base, but every blank line inside a text costs 5 more: joined sections are longer than
    packing's arithmetic, so the exact check takes paragraphs out again.  Still a sum of per-piece
    counts, as the refit's rule needs."""

    def count(self, text: str) -> int:
        return super().count(text) + (5 * text.count("\n\n") if text != "\n\n" else 0)

    def count_many(self, texts: Iterable[str]) -> list[int]:
        return [self.count(t) for t in texts]


def test_agrees_when_the_exact_check_takes_pieces_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counter = Inflating(CL100K)
    monkeypatch.setattr(pipeline, "get_counter", lambda name: counter)
    monkeypatch.setattr(ctxviewer_refit, "get_counter", lambda name: counter)
    taken: list[int] = []
    verify = CtxviewerRefit._verify

    def counting(self: CtxviewerRefit, *args: object) -> None:
        taken.append(1)
        verify(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(CtxviewerRefit, "_verify", counting)
    refit, whole = _pair(_small(tmp_path))
    assert isinstance(refit, CtxviewerRefit)
    _agree(refit, whole, range(1, refit.ceiling() + 101))
    assert len(taken) > 50  # the exact check really worked at many budgets
    _agree(refit, whole, [300], {"security_share": 0.6, "spec_share": 0.1})


# -- (d) the fallbacks -------------------------------------------------------------------------------------------


def test_agrees_with_blank_lines_that_start_paragraphs(tmp_path: Path) -> None:
    # Split on blank lines, "a\n\n\nb" gives a paragraph starting with a line break, and
    # "a\n\n \n\nb" a blank one; joined after a separator, the separator's pre-token runs on
    # through such leading line breaks (and spaces before one).
    requirements = REQUIREMENTS.replace("\n\n## Store", "\n\n\n## Store") + (
        "\n\n\n\nThe session token expires.\n\n \n  \n  Docker session rotation, indented."
    )
    assert ctxviewer_refit.split_lead("\n \n  Docker") == ("\n \n", "  Docker")
    for tokenizer in (CL100K, "o200k_base"):
        refit, whole = _pair(_small(tmp_path, requirements), tokenizer=tokenizer)
        assert isinstance(refit, CtxviewerRefit)
        assert refit.leads
        _agree(refit, whole, range(1, refit.ceiling() + 101, 2 if tokenizer == CL100K else 5))


def test_a_paragraph_starting_with_other_whitespace_falls_back(tmp_path: Path) -> None:
    # An em space after the blank line: not a space or tab, so the sum rule is not relied on.
    refit, whole = _pair(_small(tmp_path, REQUIREMENTS + "\n\n\u2003The session token expires."))
    assert isinstance(refit, WholeRunRefit)
    _agree(refit, whole, [50, 300])


def test_a_slash_after_a_blank_line_falls_back_under_o200k_only(tmp_path: Path) -> None:
    project = _small(tmp_path, REQUIREMENTS + "\n\n/api/session rotates the session token.")
    assert isinstance(_pair(project)[0], CtxviewerRefit)
    assert isinstance(_pair(project, tokenizer="o200k_base")[0], WholeRunRefit)


def test_a_long_run_without_a_place_to_cut_falls_back(tmp_path: Path) -> None:
    refit, _ = _pair(_small(tmp_path, REQUIREMENTS + "\n\nsession " + "x" * 17_000))
    assert isinstance(refit, WholeRunRefit)


def test_a_run_that_raises_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _small(tmp_path)

    def broken(self: CtxviewerRun) -> None:
        raise RuntimeError("broken run")

    monkeypatch.setattr(CtxviewerRun, "run", broken)
    refit, _ = _pair(project)
    assert isinstance(refit, WholeRunRefit)
    with pytest.raises(RuntimeError, match="broken run"):
        refit.fates(300)


def test_o200k_agrees_too(tmp_path: Path) -> None:
    refit, whole = _pair(_small(tmp_path), tokenizer="o200k_base")
    assert isinstance(refit, CtxviewerRefit)
    _agree(refit, whole, range(1, refit.ceiling() + 101, 3))


@pytest.mark.parametrize(
    "text",
    [
        "The session store keeps each session token. It rotates on login; see RFC 6265 and OWASP ASVS 3.3.1.",
        "Sitzungsschlüssel \u2013 会话令牌会在登录时轮换 🔑🔑 and ünïcödé words, each token split inside a character?",
        "## Rule: one\n**Level**: high\n## Rule: two\n**When**: always\n   indented   spaces\t\ttabs",
    ],
)
def test_prefix_fits_are_the_counters(text: str) -> None:
    # The refit's fits_prefix (encoded once) against the counter's, at every token count.
    for name in (CL100K, "o200k_base"):
        counter = get_counter(name)
        prefixes = ctxviewer_refit._Prefixes(counter, text)
        assert prefixes.ends is not None
        top = counter.count(text) + 2
        assert [prefixes.fits(m) for m in range(-1, top)] == [counter.fits_prefix(text, m) for m in range(-1, top)]

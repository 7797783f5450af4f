"""Properties of the peer profiles over generated input.

* shaktiman and ctxviewer never return a context over the budget, counted exactly;
  ctxviewer never lets a section exceed its own budget;
* every profile survives any task the graph can hold, and every kept item sits at its
  span in the context;
* every spec paragraph is one item, whatever the profile.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.tokens.counting import get_counter
from ctxviewer.engine.trace.model import SPEC_PARAGRAPH, Trace
from tests.engine.test_properties import json_values
from tests.factories import make_project

CORE = (
    "## Rule: Validate input\n**Level**: strict\n**When**: always\n" + "## Rule: Log safely\n**Level**: warning\n" * 6
)
PYRULES = "## Rule: No eval\n**Level**: strict\n" * 10
VOCAB = [
    "login",
    "session",
    "token",
    "ledger",
    "audit",
    "refund",
    "the",
    "a",
    "module",
    "sessions.",
    "Token",
    "µ",
    "🙂",
    "сессия",
    "Сессии",
    "Façade",
]

sentence = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=30).map(lambda ws: " ".join(ws) + ".")
paragraph = st.one_of(
    st.lists(sentence, min_size=1, max_size=6).map(" ".join),
    st.sampled_from(["## Sessions", "### Tokens", "# Title", "```\ncode\n```", "- a\n- b"]),
)
spec_text = st.lists(paragraph, max_size=25).map("\n\n".join)


def _run(profile: str, task: dict[str, Any], req: str, des: str, budget: int, **extra: Any) -> Trace:
    with tempfile.TemporaryDirectory() as tmp:
        root = make_project(
            Path(tmp),
            [task],
            requirements=req,
            design=des,
            rules={"_core/owasp-2025.md": CORE, "languages/python/CLAUDE.md": PYRULES},
        )
        return assemble(load_project(root), "feat", "T", {"profile": profile, "budget": budget, **extra}, exact=False)


TASK = {
    "id": "T",
    "title": "Login session token refund",
    "description": "Audit the ledger module",
    "files": {"create": ["src/session_store.py"]},
}


titles = st.lists(st.sampled_from(VOCAB), max_size=8).map(" ".join)
files = st.lists(st.sampled_from(["src/session_store.py", "web/app.tsx", "Dockerfile", "docs/notes.md"]), max_size=3)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    req=spec_text,
    des=spec_text,
    budget=st.integers(256, 32_768),
    margin=st.sampled_from([0.0, 0.02, 0.1]),
    title=titles,
    create=files,
)
def test_shaktiman_never_exceeds_the_budget(
    req: str, des: str, budget: int, margin: float, title: str, create: list[str]
) -> None:
    task = {"id": "T", "title": title, "files": {"create": create}}
    trace = _run("shaktiman", task, req, des, budget, shaktiman_margin=margin)
    assert trace.tokenizer == "cl100k_base"
    assert get_counter("cl100k_base").count(trace.context) <= budget


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    req=spec_text,
    des=spec_text,
    budget=st.integers(1, 6000),
    security_share=st.sampled_from([0.0, 0.1, 0.3]),
    tokenizer=st.sampled_from(["heuristic", "o200k_base"]),
    title=titles,
    create=files,
    spec_share=st.sampled_from([0.5, 0.7]),
)
def test_ctxviewer_keeps_every_section_and_the_whole_within_budget(
    req: str,
    des: str,
    budget: int,
    security_share: float,
    tokenizer: str,
    title: str,
    create: list[str],
    spec_share: float,
) -> None:
    task = {"id": "T", "title": title, "description": "Audit the ledger module", "files": {"create": create}}
    trace = _run(
        "ctxviewer", task, req, des, budget, security_share=security_share, spec_share=spec_share, tokenizer=tokenizer
    )
    counter = get_counter(trace.tokenizer)
    assert trace.tokenizer == ("cl100k_base" if tokenizer == "heuristic" else tokenizer)
    assert counter.count(trace.context) <= budget
    for section in trace.sections:
        assert counter.count(section.text) <= section.budget, section.name
    spec = trace.section("spec_excerpts")
    assert spec is not None
    unused = spec.sub_budgets["unused by security rules"]  # counted in both budgets, usable in one
    assert sum(trace.section_budgets.values()) + trace.buffer == budget + unused


@pytest.mark.parametrize("profile", ["drift", "shaktiman", "ctxviewer", "zerg-0.3.2"])
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(title=json_values, files=json_values, req=spec_text)
def test_any_task_gives_a_trace_with_items_at_their_spans(profile: str, title: Any, files: Any, req: str) -> None:
    task = {"id": "T", "title": title, "description": "session ledger", "files": files}
    trace = _run(profile, task, req, "", 2000)
    for item in trace.items:
        if item.span is not None:
            start, end = item.span
            assert trace.context[start:end] == item.text[: end - start]
    stripped = req.strip()
    expected = stripped.split("\n\n") if stripped else []
    paragraphs = [i for i in trace.items_of(SPEC_PARAGRAPH) if i.part == "requirements" and "\u00a7" not in i.id]
    assert [i.text for i in paragraphs] == expected

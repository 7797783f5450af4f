"""Properties of the engine over generated input: it never raises on a task it is given,
and its trace accounts for every paragraph of the spec (cold and warm caches alike)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxviewer.engine.profiles import mahabharatha
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.signals import spec as spec_mod
from ctxviewer.engine.trace.model import INCLUDED, SPEC_PARAGRAPH, TRUNCATED
from tests.factories import make_project

CORE = "## Rule: Validate input\n**Level**: strict\n"
WORDS = ["login", "session", "token", "ledger", "audit", "x", "Dockerfile", "app.py", "ui.tsx", ""]

# Any JSON value, as a task graph may hold anywhere.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | st.sampled_from(WORDS),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["create", "modify", "read"]), inner),
    max_leaves=12,
)
text = st.lists(st.sampled_from([*WORDS, " ", "\n", "\n\n", ". ", "\r\n", "\t"]), max_size=40).map("".join)


def _run(task: dict[str, Any], requirements: str, design: str, budget: int) -> Any:
    with tempfile.TemporaryDirectory() as tmp:
        root = make_project(
            Path(tmp), [task], requirements=requirements, design=design, rules={"_core/owasp-2025.md": CORE}
        )
        return assemble(load_project(root), "feat", "T", {"budget": budget}, exact=False)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(title=json_values, description=json_values, files=json_values, req=text, des=text, budget=st.integers(1, 9000))
def test_any_task_gives_a_trace_never_an_exception(
    title: Any, description: Any, files: Any, req: str, des: str, budget: int
) -> None:
    task = {"id": "T", "title": title, "description": description, "files": files}
    json.dumps(task)  # what a task graph can hold
    trace = _run(task, req, des, budget)
    assert isinstance(trace.context, str)
    # Every candidate in the context sits at its span, whatever the input.
    for item in trace.items:
        if item.span is not None:
            start, end = item.span
            assert 0 <= start <= end <= len(trace.context)
            assert trace.context[start:end] == item.text[: end - start]


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(req=text, des=text, budget=st.integers(1, 9000), warm=st.booleans())
def test_every_spec_paragraph_is_accounted_for(req: str, des: str, budget: int, warm: bool) -> None:
    if not warm:
        spec_mod.clear_caches()
        mahabharatha.clear_caches()
    task = {"id": "T", "title": "Login session token ledger", "files": {"create": ["src/app.py"]}}
    trace = _run(task, req, des, budget)
    paragraphs = trace.items_of(SPEC_PARAGRAPH)
    for part, content in (("requirements", req), ("design", des)):
        # The pipeline reads with universal newlines, as the real system's open() does.
        stripped = content.replace("\r\n", "\n").replace("\r", "\n").strip()
        expected = stripped.split("\n\n") if stripped else []
        mine = [i for i in paragraphs if i.part == part]
        # One item per paragraph, in order, with its text: nothing lost, nothing invented.
        assert [i.text for i in mine] == expected
        assert [i.id for i in mine] == [f"{part}:{n}" for n in range(1, len(expected) + 1)]
    for item in paragraphs:
        if item.status in (INCLUDED, TRUNCATED):
            assert item.span is not None and item.kept_chars > 0
        else:
            assert item.span is None and item.kept_chars == 0

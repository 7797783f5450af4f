"""The worker's prompt with its design-time context set beside what the chosen profile assembles now.

The prompt itself is composed by :func:`ctxviewer.engine.worker.prompt.compose_prompt`
(docs/worker-window.md); this adds the comparison, which needs a run of the profile.
"""

from __future__ import annotations

from dataclasses import replace

from ctxviewer.engine.profiles.zerg.profile import upstream_estimate
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.tokens.counting import Census
from ctxviewer.engine.worker.prompt import DesignComparison, WorkerPrompt, compose_prompt


def build_prompt(
    project: Project,
    feature: Feature,
    task: Task,
    settings: Settings | None = None,
    *,
    exact: bool = True,
    compare_design: bool = True,
) -> WorkerPrompt:
    """The worker's prompt for *task*; with *compare_design*, a design-time ``context``
    is set beside what the chosen profile (*settings*, default the project's) assembles."""
    census = Census(exact)
    prompt = compose_prompt(project, feature, task, census)
    context = task.raw.get("context")
    if prompt.error is None and compare_design and context and isinstance(context, str):
        settings = settings or project.settings
        trace = assemble_task(project, feature, task, settings, exact=False)
        now = trace.context
        design = DesignComparison(
            stored=census.measure(context),
            stored_estimate=upstream_estimate(context),
            profile=trace.profile,
            plugin_text=now,
            plugin=census.measure(now),
            plugin_estimate=upstream_estimate(now) if now else 0,
            identical=context == now,
        )
        prompt = replace(prompt, design=design)
    return prompt

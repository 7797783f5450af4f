"""Running a profile over one task and packaging the result as a :class:`Trace`.

This is the engine's front door for the CLI, the tests and the GUI worker::

    project = load_project("sample_projects/ledger-service")
    trace = assemble(project, "auth-sessions", "AUTH-L1-001")

Progress is reported through a plain callback and cancellation through a
``threading.Event`` checked between stages, so the same call serves a script, a test
and a GUI worker thread.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ctxviewer.engine.analysis.layout import window_layout
from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.files.readlog import WINDOW, reading_as
from ctxviewer.engine.profiles.base import Cancelled, Progress, RunBase
from ctxviewer.engine.profiles.lookup import run_class
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import SYSTEM_BUDGET_RANGE, Settings, check_profile_budget
from ctxviewer.engine.project.upstream import Detection, detect
from ctxviewer.engine.registry import PROFILES, find, profile_of
from ctxviewer.engine.runtime.tracker import ContextTracker, budget_for_task, file_read_tokens
from ctxviewer.engine.signals.task import extract_signals
from ctxviewer.engine.tokens.counting import PIECE_CHARS, Census, get_counter, noting_estimates
from ctxviewer.engine.trace.model import SCHEMA_VERSION, Setting, Trace, TrackedFile, TrackerState
from ctxviewer.engine.worker.window import reach_in, with_reach, worker_window

__all__ = ["Cancelled", "assemble", "assemble_task", "task_reads", "tracker_state"]


def task_reads(fs: ProjectFS, task: Task) -> tuple[TrackedFile, ...]:
    """The task's read/modify files as the tracker would count them, in graph order.

    Each distinct path is listed once.  Files that exist inside the project carry their
    size and the tokens a read costs; others are listed with the reason they are not
    counted (``size`` is None).
    """
    tracked: list[TrackedFile] = []
    files = task.raw.get("files")
    seen: set[str] = set()
    if not isinstance(files, Mapping):
        return ()
    for key in ("read", "modify"):
        entries = files.get(key)
        if not isinstance(entries, list):
            continue
        for entry in entries:
            if not isinstance(entry, str):
                tracked.append(TrackedFile(repr(entry)[:80], None, 0, f"files.{key}: not a path, not counted"))
                continue
            if entry in seen:
                continue
            seen.add(entry)
            try:
                fs.resolve(entry)
            except Exception as exc:  # OutsideRootError
                tracked.append(TrackedFile(entry, None, 0, f"files.{key}: {getattr(exc, 'why', exc)}: not read"))
                continue
            size = fs.file_size(entry)
            if size is None:
                tracked.append(TrackedFile(entry, None, 0, f"files.{key}: does not exist yet, not counted"))
                continue
            tracked.append(TrackedFile(entry, size, file_read_tokens(size), f"files.{key}"))
    return tuple(tracked)


def tracker_state(fs: ProjectFS, task: Task, settings: Settings, task_files: tuple[str, ...]) -> TrackerState:
    """The tracker after executing this one task: the task plus its read/modify files.

    Only files that exist inside the project count; others are listed with the reason
    they were not.  No time passes and no tool calls are made in a single-task view.
    """
    tracker = ContextTracker(settings.threshold_percent, settings.max_context_tokens, clock=lambda: 0.0)
    tracker.track_task_execution(task.id)
    tracked = task_reads(fs, task)
    for f in tracked:
        if f.size is not None:
            tracker.track_file_read(f.path, f.size)
    usage = tracker.get_usage()
    return TrackerState(
        estimated_tokens=usage.estimated_tokens,
        max_tokens=usage.max_tokens,
        threshold_percent=usage.threshold_percent,
        usage_percent=usage.usage_percent,
        is_over_threshold=usage.is_over_threshold,
        files_read=usage.files_read,
        tasks_executed=usage.tasks_executed,
        tool_calls=usage.tool_calls,
        elapsed_minutes=usage.elapsed_minutes,
        budget_for_task=budget_for_task(settings.budget, task_files),
        files=tracked,
        zones=dict(settings.all_zones),
    )


def decision_tokenizer(settings: Settings, project: Project | None = None) -> str:
    """The tokenizer a profile decides with: exact profiles never decide with the estimate.

    With *project*, profile ``mahabharatha`` is the upstream version it runs there (see
    :func:`run_profile`); without, the seed's.
    """
    profile = settings.profile if project is None else run_profile(project, settings)[0]
    return profile_tokenizer(profile, settings)


def profile_tokenizer(profile: str, settings: Settings) -> str:
    """The tokenizer *profile* (the one that runs, see :func:`run_profile`) decides with.

    Split from :func:`decision_tokenizer` so :func:`assemble_task`, which has already
    resolved the running profile, does not detect the upstream version a second time.
    """
    found = find(profile)
    return settings.tokenizer if found is None else found.decides_with(settings.tokenizer)


def run_profile(project: Project, settings: Settings) -> tuple[str, Detection | None]:
    """The profile that runs: ``mahabharatha`` becomes the upstream version chosen or detected."""
    from ctxviewer.engine.project.upstream import resolve

    return resolve(project.fs, settings)


def _runner(settings: Settings, profile: str | None = None) -> type[RunBase]:
    """The run class of *profile* (the one that runs; default: *settings*'), its budget checked."""
    name = profile or settings.profile
    if find(name) is None:
        raise SettingsError(f"profile: unknown profile {settings.profile!r}; choose one of {', '.join(PROFILES)}")
    check_profile_budget(settings, settings.origin("budget"))
    return run_class(name)


def estimate_note(texts: int, longest: int) -> str:
    """The trace's warning when exact counts were estimated (cut inside long runs without spaces)."""
    what = "1 text" if texts == 1 else f"{texts:,} texts"
    return (
        f"exact token counts are estimates for {what} (the longest {longest:,} characters): each holds a run of "
        f"over {PIECE_CHARS // 2:,} characters without whitespace, counted in pieces of at most {PIECE_CHARS:,} "
        "characters; each cut inside a run can move a count by a few tokens"
    )


def spec_source(feature: Feature, settings: Settings) -> tuple[Feature, str | None]:
    """The feature as a run reads it, and a warning saying where its spec came from.

    With ``spec_feature: graph`` the spec folder is the one the task graph's own ``feature``
    value names (:attr:`Feature.graph_spec_dir`), as upstream's orchestrator passes that value
    to the plugin; a value that is not text cannot name a folder (upstream's spec loader
    raises: the copy carries :attr:`Feature.spec_error`).  ``folder`` (the default) reads the
    folder the task graph lies in.
    """
    if settings.spec_feature != "graph" or not feature.has_graph:
        return feature, None
    if feature.graph_spec_dir is None:
        why = (
            f"the task graph's feature value {feature.graph_feature} is not text, so it names no spec folder "
            "(upstream's spec loader raises on it)"
        )
        return replace(feature, spec_error=why), f"spec_feature is graph: {why}"
    if feature.graph_spec_dir == feature.spec_dir:
        return feature, None
    value = (
        f"its feature value {feature.graph_feature!r}"
        if feature.graph_feature is not None
        else "no feature value (upstream passes '', the specs folder itself)"
    )
    return replace(feature, spec_dir=feature.graph_spec_dir), (
        f"spec_feature is graph: the spec is read from {feature.graph_spec_dir}, as the task graph names it "
        f"({value}), not from the task graph's own folder {feature.spec_dir}"
    )


def assemble_task(
    project: Project,
    feature: Feature,
    task: Task,
    settings: Settings | None = None,
    *,
    exact: bool = True,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
) -> Trace:
    """Run the configured profile over *task* and return its trace."""
    settings = settings or project.settings
    profile, upstream = run_profile(project, settings)
    runner = _runner(settings, profile)
    tokenizer = profile_tokenizer(profile, settings)
    counter = get_counter(tokenizer)
    census = Census(exact, tokenizer)
    source, source_note = spec_source(feature, settings)
    with noting_estimates() as estimated:
        version = upstream.version if upstream is not None else detect(project.fs).version
        with reading_as(WINDOW):  # what bisect counts as the window's inputs, not the context's
            # The worker's session does not depend on the run: it is known first, so that the
            # run makes each item once, with its path to the worker.
            received = worker_window(project, feature, task, settings, census, version)
        run = runner(project, source, task, settings, counter, census, cancel, progress)
        run.reach = reach_in(received)
        result = run.run()
        if cancel is not None and cancel.is_set():
            raise Cancelled("finish")
        context_tokens = census.measure(result.context)
        tracker = tracker_state(project.fs, task, settings, result.task_files)
        with reading_as(WINDOW):
            window = window_layout(project.fs, settings, received, tracker, census)
    items = result.items if result.items is run.reached_items else with_reach(result.items, received)
    warnings = [*feature.warnings, *([source_note] if source_note else []), *result.notes]
    if estimated:
        warnings.append(estimate_note(len(estimated), max(estimated.values())))
    lo, hi = SYSTEM_BUDGET_RANGE
    if profile_of(profile).upstream and not lo <= settings.budget <= hi:
        warnings.append(
            f"budget {settings.budget:,} is outside {lo:,}-{hi:,}, the range the real system's "
            "config accepts; shown as a what-if"
        )
    if not settings.enabled:
        warnings.append(
            "plugins.context_engineering.enabled is false: the real system builds no task "
            "context; this is what it would build"
        )
    trace = Trace(
        schema_version=SCHEMA_VERSION,
        project=str(project.root),
        feature=feature.name,
        task_id=task.id,
        task_title=task.title,
        profile=profile,
        tokenizer=tokenizer,
        budget=settings.budget,
        section_budgets=dict(result.section_budgets or settings.section_budgets),
        buffer=settings.buffer if result.buffer is None else result.buffer,
        context=result.context,
        context_tokens=context_tokens,
        sections=result.sections,
        items=items,
        trim_steps=result.trim_steps,
        keywords=result.keywords,
        tracker=tracker,
        errors=result.errors,
        settings={k: Setting(v, o) for k, (v, o) in settings.as_table().items()},
        task_files=result.task_files,
        warnings=tuple(warnings),
        signals=result.signals or extract_signals(task.raw, settings.domains),
        window=window,
        debug=result.debug,
        upstream=upstream.version if upstream is not None else "",
        upstream_reason=upstream.reason if upstream is not None else "",
        graph_feature=feature.graph_feature,
        token_record=result.token_record,
        worker=received,
    )
    if progress is not None:
        progress("done", 1.0)
    return trace


def assemble(
    project: Project,
    feature: str,
    task_id: str,
    overrides: Mapping[str, Any] | None = None,
    *,
    exact: bool = True,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
) -> Trace:
    """Assemble the context of *task_id* in *feature*, with optional setting overrides."""
    feat = project.feature(feature)
    task = feat.task(task_id)
    settings = project.settings
    if overrides:
        settings = settings.with_overrides(overrides, "override")
    return assemble_task(project, feat, task, settings, exact=exact, cancel=cancel, progress=progress)

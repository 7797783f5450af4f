"""Recorded vs reproduced: upstream's token records beside what ctxviewer's profile builds.

:func:`compare_records` assembles each recorded task with the profile of the upstream
version that runs in the project and sets each section's recorded count beside the
reproduced one: the same, different, or a section on one side only; a section that is
not the same gets its likely cause (:data:`CAUSES`).  What is compared, and what the files
leave to the project's settings, is in docs/run-files.md#recorded-vs-reproduced.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.profiles.base import Cancelled
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.project.tuning import changed_settings
from ctxviewer.engine.project.upstream import FOLDERS, PROFILE_VERSIONS, VERSION_PROFILES, VERSION_WORDS
from ctxviewer.engine.registry import VERSION_PICKER, find, profile_of
from ctxviewer.engine.runfiles.plausible import iso
from ctxviewer.engine.runfiles.tokenrecords import TokenRecord
from ctxviewer.engine.runs.pipeline import assemble_task, run_profile
from ctxviewer.engine.trace.model import SPEC, Trace

SAME = "same"
DIFFERS = "differs"
ONLY_RECORDED = "only recorded"
ONLY_REPRODUCED = "only reproduced"
#: Upstream's component names where they differ from the trace's section names.
COMPONENT_NAMES = {SPEC: "spec_excerpt"}
#: Characters per token of upstream's estimate (``token_metrics.fallback_chars_per_token``).
CHARS_PER_TOKEN = 4.0
#: The likely causes of a section that is not the same, the strongest first: the record was
#: written by another version than the one that reproduced it; a file the section reads
#: changed after the record was written; else the settings the files do not hold (the
#: budget, the worker's switches, exact counting).
VERSION, FILES_CHANGED, SETTINGS = "version", "files changed since", "settings"
CAUSES = (VERSION, FILES_CHANGED, SETTINGS)
#: The settings a run's files do say (:func:`recorded_values`): not a cause when tuned to them.
RECORDED_KEYS = ("profile", "upstream", "worker_id")


@dataclass(frozen=True, slots=True)
class SectionCount:
    """One section of one task: its tokens as recorded and as reproduced (None: not on that side)."""

    section: str
    recorded: int | None
    reproduced: int | None
    cause: str = ""
    """One of :data:`CAUSES` when the section is not the same ('' when it is)."""
    why: str = ""
    """The cause in words: the versions, the files, or the settings."""

    @property
    def verdict(self) -> str:
        """``same``, ``differs``, ``only recorded`` or ``only reproduced``."""
        if self.reproduced is None:
            return ONLY_RECORDED
        if self.recorded is None:
            return ONLY_REPRODUCED
        return SAME if self.recorded == self.reproduced else DIFFERS


@dataclass(frozen=True, slots=True)
class TaskComparison:
    """One recorded task beside its reproduction."""

    file: str
    worker_id: str
    task_id: str
    mode: str | None
    recorded_total: int | None
    feature: str | None
    """The feature whose task was reproduced (None: not found)."""
    reproduced_total: int | None
    """None when the task was not reproduced (:attr:`note` says why)."""
    sections: tuple[SectionCount, ...]
    """Recorded sections in the file's order, then those only reproduced in assembly order."""
    note: str = ""
    recorded_at: float | None = None
    """When the record was written (the entry's ``timestamp``), None when it has none."""
    changed: tuple[str, ...] = ()
    """The task's input files (project-relative) changed or gone since :attr:`recorded_at`."""

    @property
    def reproduced(self) -> bool:
        return self.reproduced_total is not None

    @property
    def matches(self) -> bool:
        """Reproduced, with every section on both sides and every count the same."""
        return self.reproduced and all(s.verdict == SAME for s in self.sections)


@dataclass(frozen=True, slots=True)
class RecordedComparison:
    """Every recorded task of some token records, beside what the project's profile reproduces."""

    project: str
    profile: str | None
    """The profile that reproduced them (None when none can: the seed writes no token records)."""
    reason: str
    """Which upstream version runs and why (as ``assemble`` says it)."""
    tasks: tuple[TaskComparison, ...]

    @property
    def same(self) -> int:
        return sum(t.matches for t in self.tasks)

    @property
    def differ(self) -> int:
        return sum(t.reproduced and not t.matches for t in self.tasks)

    @property
    def not_reproduced(self) -> int:
        return sum(not t.reproduced for t in self.tasks)


def upstream_count(chars: int) -> int:
    """Upstream's estimate of a text of *chars* characters: ``max(1, round(chars / 4))``, halves to even."""
    return max(1, round(chars / CHARS_PER_TOKEN))


def reproduced_breakdown(trace: Trace) -> dict[str, int] | None:
    """The token record upstream would write for *trace*'s task, section by section.

    None when the whole context failed (every section ``failed``): upstream's plugin then
    falls back before it records anything.
    """
    if trace.sections and all(s.status == "failed" for s in trace.sections):
        return None
    before: dict[str, int] = {}
    for step in trace.trim_steps:  # compact mode: the first abbreviation's "before" is the text recorded
        if step.action == "abbreviate" and step.section not in before:
            before[step.section] = step.chars_before
    out: dict[str, int] = {}
    for section in trace.sections:
        chars = before.get(section.name, len(section.text))
        if chars:
            out[COMPONENT_NAMES.get(section.name, section.name)] = upstream_count(chars)
    return out


def compare_sections(recorded: Sequence[tuple[str, int]], reproduced: dict[str, int]) -> tuple[SectionCount, ...]:
    """Each section of either side: the recorded ones in their order, then the rest."""
    seen = {name for name, _ in recorded}
    out = [SectionCount(name, count, reproduced.get(name)) for name, count in recorded]
    out += [SectionCount(name, None, count) for name, count in reproduced.items() if name not in seen]
    return tuple(out)


def record_profile(file: str) -> str | None:
    """The profile of the upstream version that writes token records where *file* is
    (``.zerg/state/tokens-1.json``: ``zerg-0.3.2``); None for a folder of neither."""
    parts = file.replace("\\", "/").split("/")
    return next((VERSION_PROFILES[version] for folder, version in FOLDERS if folder in parts), None)


def changed_since(fs: ProjectFS, files: Iterable[str], moment: float | None) -> tuple[str, ...]:
    """Those of *files* modified after *moment* or gone (none when *moment* is unknown)."""
    if moment is None:
        return ()
    out = []
    for rel in dict.fromkeys(files):
        stat = fs.lstat(rel)
        if stat is None or stat.st_mtime > moment:
            out.append(rel)
    return tuple(out)


def with_causes(
    sections: Sequence[SectionCount],
    *,
    version: str = "",
    changed: Mapping[str, Sequence[str]] | None = None,
    settings: str = "",
) -> tuple[SectionCount, ...]:
    """*sections*, each that is not the same given its likely cause.

    *version* says how the record's version differs from the one that reproduced it ('' when
    they are the same); *changed* gives, by section, its files changed since the record;
    *settings* says what stood in for the settings the files do not hold.
    """
    changed = changed or {}
    out = []
    for s in sections:
        if s.verdict == SAME:
            out.append(s)
        elif version:
            out.append(replace(s, cause=VERSION, why=version))
        elif changed.get(s.section):
            files = changed[s.section]
            more = f" and {len(files) - 3:,} more" if len(files) > 3 else ""
            out.append(replace(s, cause=FILES_CHANGED, why=f"{', '.join(files[:3])}{more}"))
        else:
            out.append(replace(s, cause=SETTINGS, why=settings))
    return tuple(out)


def settings_words(project: Project, settings: Settings, mode: str | None) -> str:
    """What stood in for the settings the run's files do not hold, for :attr:`SectionCount.why`."""
    if mode == "exact":
        return "recorded with Anthropic's count (mode exact); reproduced with upstream's estimate"
    words = "the budget and the worker's switches are not in the run's files: the settings in force stood for them"
    tuned = [c.key for c in changed_settings(project.settings, settings) if c.key not in RECORDED_KEYS]
    if tuned:
        words += f" (tuned here: {', '.join(tuned)})"
    return words


def version_words(record_file: str, profile: str) -> str:
    """How the version that wrote *record_file* differs from *profile*'s ('' when it does not)."""
    wrote = record_profile(record_file)
    if wrote is None or wrote == profile:
        return ""
    return (
        f"written by {VERSION_WORDS[PROFILE_VERSIONS[wrote]]} (where the record is); reproduced with profile {profile}"
    )


def upstream_settings(settings: Settings) -> Settings:
    """*settings* running the upstream pipeline: an upstream profile stays, any other becomes
    the one that runs the version set or detected (:data:`~ctxviewer.engine.registry.VERSION_PICKER`)."""
    found = find(settings.profile)
    if found is not None and found.upstream:
        return settings
    return settings.with_overrides({"profile": VERSION_PICKER}, "follow --recorded")


def _pick(found: Sequence[tuple[Feature, Task]], prefer: Sequence[str]) -> tuple[tuple[Feature, Task] | None, str]:
    """The (feature, task) to reproduce among those with the id, and a note when there was a choice."""
    if not found:
        return None, "not in the project's task graphs"
    chosen = next((ft for name in prefer for ft in found if ft[0].name == name), found[0])
    others = [f.name for f, _ in found if f.name != chosen[0].name]
    note = f"also in feature {', '.join(others)}; reproduced in {chosen[0].name}" if others else ""
    return chosen, note


def compare_records(
    project: Project,
    records: Iterable[TokenRecord],
    *,
    settings: Settings | None = None,
    prefer_features: Sequence[str] = (),
    cancel: threading.Event | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RecordedComparison:
    """Every task of *records* beside what *project*'s upstream profile builds for it.

    A task id is looked up in every feature's task graph (upstream keys records by task id
    alone); when several features have it, the first of *prefer_features* (the run's state
    files name theirs) that does is taken.  Each task is assembled once, however many
    records hold it.  *progress* gets (tasks done, tasks in all); *cancel* stops between
    tasks (raising :class:`~ctxviewer.engine.profiles.base.Cancelled`).
    """
    chosen = upstream_settings(settings or project.settings)
    profile, detection = run_profile(project, chosen)
    reason = detection.reason if detection is not None else f"profile {profile}"
    entries = [(record, task) for record in records for task in record.tasks]
    if not profile_of(profile).token_records:
        version = detection.version if detection is not None else profile
        why = f"not reproduced: the pipeline that runs here ({version}) writes no token records"
        return RecordedComparison(
            str(project.root),
            None,
            reason,
            tuple(
                TaskComparison(
                    r.file, r.worker_id, t.task_id, t.mode, t.total, None, None, compare_sections(t.sections, {}), why
                )
                for r, t in entries
            ),
        )
    index: dict[str, list[tuple[Feature, Task]]] = {}
    for feature, task in project.tasks():
        index.setdefault(task.id, []).append((feature, task))
    built: dict[tuple[str, str], Reproduced] = {}
    out: list[TaskComparison] = []
    for done, (record, entry) in enumerate(entries):
        if cancel is not None and cancel.is_set():
            raise Cancelled("recorded")
        if progress is not None:
            progress(done, len(entries))
        found, note = _pick(index.get(entry.task_id, []), prefer_features)
        notes = [note] if note else []
        if entry.mode == "exact":
            notes.append("recorded with Anthropic's count (mode exact); reproduced with upstream's estimate")
        reproduced = Reproduced(None, "", {})
        feature_name = None
        if found is not None:
            feature, task = found
            feature_name = feature.name
            key = (feature.name, task.id)
            if key not in built:
                built[key] = _reproduce(project, feature, task, chosen, cancel)
            reproduced = built[key]
            if reproduced.failure:
                notes.append(reproduced.failure)
        breakdown = reproduced.breakdown
        changed = {name: changed_since(project.fs, files, entry.time) for name, files in reproduced.inputs.items()}
        sections = compare_sections(entry.sections, breakdown or {})
        if breakdown is not None:
            sections = with_causes(
                sections,
                version=version_words(record.file, profile),
                changed=changed,
                settings=settings_words(project, chosen, entry.mode),
            )
        out.append(
            TaskComparison(
                file=record.file,
                worker_id=record.worker_id,
                task_id=entry.task_id,
                mode=entry.mode,
                recorded_total=entry.total,
                feature=feature_name,
                reproduced_total=None if breakdown is None else sum(breakdown.values()),
                sections=sections,
                note="; ".join(notes),
                recorded_at=entry.time,
                changed=tuple(dict.fromkeys(f for files in changed.values() for f in files)),
            )
        )
    if progress is not None:
        progress(len(entries), len(entries))
    return RecordedComparison(str(project.root), profile, reason, tuple(out))


@dataclass(frozen=True, slots=True)
class Reproduced:
    """One task's reproduced record (None: none, :attr:`failure` says why) and the files each
    section read (by upstream's component name; ``""``: the task's own files)."""

    breakdown: dict[str, int] | None
    failure: str
    inputs: dict[str, tuple[str, ...]]


def section_inputs(trace: Trace, fs: ProjectFS) -> dict[str, tuple[str, ...]]:
    """The files each section of *trace* read, by upstream's component name: its candidates'
    sources that are files (not a setting or an MCP server); ``""``: the task's own files there are."""
    out: dict[str, list[str]] = {}
    for item in trace.items:
        if item.source and fs.is_file(item.source):
            out.setdefault(COMPONENT_NAMES.get(item.section, item.section), []).append(item.source)
    out[""] = [rel for rel in trace.task_files if fs.is_file(rel)]  # not those the task is to create
    return {name: tuple(dict.fromkeys(files)) for name, files in out.items()}


def _reproduce(
    project: Project, feature: Feature, task: Task, settings: Settings, cancel: threading.Event | None
) -> Reproduced:
    """The task's reproduced record, or None and why there is none."""
    try:
        trace = assemble_task(project, feature, task, settings, exact=False, cancel=cancel)
    except Cancelled:
        raise
    except CtxViewerError as exc:
        return Reproduced(None, f"not reproduced: {exc}", {})
    breakdown = reproduced_breakdown(trace)
    if breakdown is None:
        why = next((s.reason for s in trace.sections), "the whole context failed")
        return Reproduced(None, f"not reproduced: {why} (upstream records nothing then)", {})
    return Reproduced(breakdown, "", section_inputs(trace, project.fs))


def comparison_data(comparison: RecordedComparison) -> dict[str, Any]:
    """*comparison* as JSON-ready data (``follow --once --recorded --format json``'s ``recorded``)."""
    return {
        "project": comparison.project,
        "profile": comparison.profile,
        "reason": comparison.reason,
        "same": comparison.same,
        "differ": comparison.differ,
        "not_reproduced": comparison.not_reproduced,
        "tasks": [task_data(task) for task in comparison.tasks],
    }


def task_data(task: TaskComparison) -> dict[str, Any]:
    """One task's comparison as JSON-ready data: each section's ``cause`` and ``why`` are null
    where it is the same; ``recorded_at`` is the record's time (UTC, ISO 8601) or null, and
    ``changed`` the task's input files changed or gone since."""
    return {
        "file": task.file,
        "worker_id": task.worker_id,
        "task_id": task.task_id,
        "feature": task.feature,
        "mode": task.mode,
        "recorded_total": task.recorded_total,
        "reproduced_total": task.reproduced_total,
        "matches": task.matches,
        "note": task.note,
        "recorded_at": iso(task.recorded_at),
        "changed": list(task.changed),
        "sections": [
            {
                "section": s.section,
                "recorded": s.recorded,
                "reproduced": s.reproduced,
                "verdict": s.verdict,
                "cause": s.cause or None,
                "why": s.why or None,
            }
            for s in task.sections
        ],
    }


def likely_causes(task: TaskComparison) -> list[tuple[tuple[str, ...], str, str]]:
    """The sections of *task* that are not the same, grouped by cause: ``(sections, cause, why)``
    in the order their first section comes."""
    groups: dict[tuple[str, str], list[str]] = {}
    for s in task.sections:
        if s.cause:
            groups.setdefault((s.cause, s.why), []).append(s.section)
    return [(tuple(sections), cause, why) for (cause, why), sections in groups.items()]


def recorded_values(profile: str | None, worker_id: str | None) -> dict[str, Any]:
    """The settings a recorded task ran with, as far as the run's files say: the profile of
    the version that wrote it and the worker's id (for ``set_values``/``--set``)."""
    values: dict[str, Any] = {}
    if profile:
        values["profile"] = profile
    if worker_id:
        values["worker_id"] = worker_id
    return values

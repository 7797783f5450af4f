"""Finding a run's files: every worker log, feature state file, token record and heartbeat under a path.

:func:`discover_run` takes a project folder, its ``.mahabharatha`` or ``.zerg`` folder (or
the ``state`` or ``logs`` folder inside one), any other folder of copied files, or one file,
and lists the files relative to one root that every later read is contained in; :func:`rescan`
finds the ones added since.  Which files, and which are left out: ``docs/run-files.md#which-files``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ctxviewer.engine.errors import ProjectError
from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.runfiles.problems import file_kind, worker_order

#: Upstream's folders, the current name first.
LAYOUTS = (".mahabharatha", ".zerg")
WORKERS_FOLDER = "logs/workers"
STATE_FOLDER = "state"
CONFIG_NAME = "config.yaml"

_WORKER_LOG = re.compile(r"^worker-(?P<id>.+)\.jsonl(?:\.1)?$")
_TOKENS = re.compile(r"^tokens-.+\.json$")
_HEARTBEAT = re.compile(r"^heartbeat-.+\.json$")
#: JSON files of the state folder that are not a feature's state.
_NOT_STATE = re.compile(
    r"^(?:tokens-.*|heartbeat-.*|progress-.*|token-cache|repo-index|escalations|adaptive-detail)\.json$"
)


@dataclass(frozen=True, slots=True)
class RunFiles:
    """A run's files, as paths relative to :attr:`root` (POSIX separators)."""

    root: Path
    worker_logs: tuple[str, ...]
    """The current files ``worker-<id>.jsonl`` (listed even when only the ``.1`` is there yet)."""
    state_files: tuple[str, ...]
    token_records: tuple[str, ...]
    config: str | None
    """``<layout>/config.yaml`` when there is one."""
    layouts: tuple[str, ...] = ()
    """The upstream folders found (``.mahabharatha``, ``.zerg``)."""
    scans: tuple[tuple[str, str], ...] = ()
    """``(folder, kinds)`` searched (``kinds``: ``logs``, ``state`` or ``all``), to look again
    with :func:`rescan`; none for a single file."""
    heartbeats: tuple[str, ...] = ()
    """``state/heartbeat-<id>.json``: a running worker's last sign of life."""

    @property
    def empty(self) -> bool:
        """Nothing found to read."""
        return not (self.worker_logs or self.state_files or self.token_records or self.heartbeats)


def worker_of_log(name: str) -> str | None:
    """The worker id in a log's name (``worker-3.jsonl`` -> ``3``), or None."""
    match = _WORKER_LOG.match(name)
    return match.group("id") if match else None


def _log_key(rel: str) -> tuple[int, int, str]:
    worker = worker_of_log(rel.rsplit("/", 1)[-1]) or ""
    return worker_order(worker, rel)


def _is_state(name: str) -> bool:
    return name.endswith(".json") and not _NOT_STATE.match(name)


def _scan(fs: ProjectFS, folder: str) -> tuple[set[str], set[str], set[str], set[str]]:
    """Worker logs, state files, token records and heartbeats directly in *folder* (relative to the root)."""
    logs: set[str] = set()
    states: set[str] = set()
    tokens: set[str] = set()
    beats: set[str] = set()
    prefix = f"{folder}/" if folder else ""
    for name in fs.list_dir(folder):
        rel = prefix + name
        # Anything there, not only a regular file: a pipe, a device, a folder or a link out of
        # the run under a run file's name is listed, and its reader names it as a problem.
        if not fs.present(rel):
            continue
        if worker_of_log(name) is not None:
            logs.add(rel[:-2] if rel.endswith(".1") else rel)
        elif _TOKENS.match(name):
            tokens.add(rel)
        elif _HEARTBEAT.match(name):
            beats.add(rel)
        elif _is_state(name):
            states.add(rel)
    return logs, states, tokens, beats


def _collect(
    fs: ProjectFS, root: Path, scans: tuple[tuple[str, str], ...], config: str | None, layouts: tuple[str, ...]
) -> RunFiles:
    logs: set[str] = set()
    states: set[str] = set()
    tokens: set[str] = set()
    beats: set[str] = set()
    for folder, kinds in scans:
        found_logs, found_states, found_tokens, found_beats = _scan(fs, folder)
        if kinds in ("logs", "all"):
            logs |= found_logs
        if kinds in ("state", "all"):
            states |= found_states
            tokens |= found_tokens
            beats |= found_beats
    return RunFiles(
        root,
        tuple(sorted(logs, key=_log_key)),
        tuple(sorted(states)),
        tuple(sorted(tokens)),
        config,
        layouts,
        scans,
        tuple(sorted(beats)),
    )


def _layout_files(fs: ProjectFS, layouts: tuple[str, ...], root: Path) -> RunFiles:
    scans: list[tuple[str, str]] = []
    config = None
    for layout in layouts:
        scans += [(f"{layout}/{WORKERS_FOLDER}", "logs"), (f"{layout}/{STATE_FOLDER}", "state")]
        if config is None and fs.is_file(f"{layout}/{CONFIG_NAME}"):
            config = f"{layout}/{CONFIG_NAME}"
    return _collect(fs, root, tuple(scans), config, layouts)


def rescan(run: RunFiles) -> RunFiles:
    """*run* looked for again in the same folders: a worker started since has a log now."""
    if not run.scans:
        return run
    return _collect(ProjectFS(run.root), run.root, run.scans, run.config, run.layouts)


def scan_signature(run: RunFiles) -> tuple[tuple[str, ...], ...]:
    """The names in the folders *run* was found in: when they change, :func:`rescan`.

    Names, not the folders' modification times, which a file system may keep too coarsely
    to tell two changes a few milliseconds apart.
    """
    fs = ProjectFS(run.root)
    return tuple(tuple(fs.list_dir(folder)) for folder, _ in run.scans)


def _enclosing_project(path: Path) -> tuple[Path, str] | None:
    """The project folder and layout when *path* lies inside ``<project>/<layout>/``."""
    for parent in path.parents:
        if parent.name in LAYOUTS:
            return parent.parent, parent.name
    return None


def discover_run(path: str | os.PathLike[str]) -> RunFiles:
    """The run's files under *path*; raises :class:`ProjectError` when there are none."""
    given = Path(path)
    shown = os.fspath(path)
    if not given.exists():
        raise ProjectError("no such file or folder", shown)
    target = Path(os.path.realpath(given))
    if target.is_file():
        return _single_file(target, shown)
    if not target.is_dir():
        try:
            kind = file_kind(os.stat(target).st_mode)
        except OSError as exc:
            raise ProjectError(f"cannot be examined ({exc.strerror or exc})", shown) from None
        raise ProjectError(f"is {kind}, not a run's file or folder; not read", shown)
    if target.name in LAYOUTS:
        run = _layout_files(ProjectFS(target.parent), (target.name,), target.parent)
    elif (inside := _enclosing_project(target / "x")) is not None and target.name in ("state", "logs", "workers"):
        project, layout = inside
        run = _layout_files(ProjectFS(project), (layout,), project)
    elif layouts := tuple(name for name in LAYOUTS if (target / name).is_dir()):
        run = _layout_files(ProjectFS(target), layouts, target)
    else:
        fs = ProjectFS(target)
        config = CONFIG_NAME if fs.is_file(CONFIG_NAME) else None
        scans = tuple((folder, "all") for folder in ("", "workers", WORKERS_FOLDER, STATE_FOLDER))
        run = _collect(fs, target, scans, config, ())
    if run.empty:
        raise ProjectError(
            "no worker logs (logs/workers/worker-<id>.jsonl), state files (state/<feature>.json) "
            "or token records (state/tokens-<worker>.json) found under .mahabharatha/ or .zerg/",
            shown,
        )
    return run


def _single_file(target: Path, shown: str) -> RunFiles:
    name = target.name
    inside = _enclosing_project(target)
    root = inside[0] if inside is not None else target.parent
    layouts = (inside[1],) if inside is not None else ()
    rel = target.relative_to(root).as_posix()
    config = None
    if inside is not None and (root / inside[1] / CONFIG_NAME).is_file():
        config = f"{inside[1]}/{CONFIG_NAME}"
    if worker_of_log(name) is not None or name.endswith(".jsonl"):
        return RunFiles(root, (rel[:-2] if rel.endswith(".jsonl.1") else rel,), (), (), config, layouts)
    if _TOKENS.match(name):
        return RunFiles(root, (), (), (rel,), config, layouts)
    if _HEARTBEAT.match(name):
        return RunFiles(root, (), (), (), config, layouts, heartbeats=(rel,))
    if _is_state(name):
        return RunFiles(root, (), (rel,), (), config, layouts)
    raise ProjectError(
        "not a worker log (.jsonl), a feature state file (<feature>.json) or a token record (tokens-<worker>.json)",
        shown,
    )

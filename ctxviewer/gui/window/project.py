"""Opening a project on the load lane, bringing it up to date on the refresh lane, and watching it on disk.

Also the paths a project watches and the task to show first.  See docs/gui.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from ctxviewer.engine.files.reading import OutsideRootError, ProjectFS
from ctxviewer.engine.project.loading import Project, load_project, refresh_project
from ctxviewer.gui.worker import Lane, build_frozen, reclaim_frozen

#: Quiet time after a change on disk before the project is refreshed (editors write in bursts).
DISK_DELAY_MS = 300
#: At most this many project paths are watched (inotify watches are a shared resource).
MAX_WATCHED = 400


@dataclass(frozen=True)
class Watch:
    """The paths a loaded project watches besides its current feature's folder.

    Worked out with the project (off the GUI thread, where stat'ing them belongs): *head*
    goes before the current feature's files and *tail* after them, so the list watched
    -- and what the MAX_WATCHED cap keeps -- is the same as if it were built at once.
    """

    project: Project
    head: tuple[str, ...]
    tail: tuple[str, ...]


def project_watch(project: Project) -> Watch:
    """The root, specs folder, configs and task graphs (head); the rules folder and rule files (tail).

    Only what exists inside the project (``fs.lstat``) is kept.  Stats every task graph
    and rule file, so it runs on a worker, with the load or the refresh.
    """
    fs, paths = project.fs, project.settings.paths

    def present(rels: list[str]) -> tuple[str, ...]:
        return tuple(str(project.root / rel) for rel in dict.fromkeys(rels) if fs.lstat(rel) is not None)

    head = present([".", paths.specs, "ctxviewer.yaml", *(p for p in project.sources if p.endswith(".yaml"))])
    tail = present([paths.rules, *fs.walk_files(paths.rules, ".md", limit=MAX_WATCHED)])
    return Watch(project, head, tail)


def load_with_watch(folder: str) -> tuple[Project, Watch]:
    """The load lane's job: the project at *folder* (frozen for the collector) and its watch list."""
    project = build_frozen(lambda: load_project(folder))
    return project, project_watch(project)


def refresh_with_watch(project: Project) -> tuple[Project, tuple[str, ...], Watch]:
    """The refresh lane's job: *project* brought up to date with the disk, what changed, its watch list."""
    fresh, changed = refresh_project(project)
    return fresh, changed, project_watch(fresh)


def resolve_target(project: Project, feature: str | None, task: str | None) -> tuple[str, str] | None:
    """The first (feature, task) matching the given parts; with neither, the first task.

    Walks the features in place (no list of every task is built: a project may hold
    tens of thousands).
    """
    for feat in project.features:
        if feature is not None and feat.name != feature:
            continue
        for t in feat.tasks:
            if task is None or t.id == task:
                return feat.name, t.id
    return None


def refresh_target(project: Project, current: tuple[str, str]) -> tuple[str, str] | None:
    """The task to show again after *project* was refreshed: the *current* one, else the first
    of its feature, else the first task (None: no task is left)."""
    return (
        resolve_target(project, *current)
        or resolve_target(project, current[0], None)
        or resolve_target(project, None, None)
    )


def load_warnings(project: Project) -> list[str]:
    """What loading *project* warns about: its own warnings, then each unreadable task graph."""
    return list(project.warnings) + [
        f"{f.name}: {f.graph_error}" for f in project.features if f.graph_error is not None
    ]


def first_target(
    project: Project, wanted: tuple[str | None, str | None], last: tuple[str, str] | None
) -> tuple[tuple[str, str] | None, str]:
    """The task to show when *project* opens, and a notice when the one asked for is not there.

    The *wanted* feature and task (either may be None) when any is given, else the *last*
    task shown in this project; failing those, the first task.  None when no feature has a
    task.
    """
    feature, task = wanted
    target: tuple[str, str] | None = None
    notice = ""
    if feature or task:
        target = resolve_target(project, feature, task)
        if target is None:
            notice = f"no task {task or '(any)'} in feature {feature or '(any)'}; showing the first task"
    elif last is not None:
        target = resolve_target(project, *last)
    return target or resolve_target(project, None, None), notice


def ask_project_folder(parent: QWidget, project: Project | None) -> str:
    """Ask for a project folder to open (starting beside the open one); ``''`` if none."""
    start = str(project.root.parent) if project else str(Path.home())
    return QFileDialog.getExistingDirectory(parent, "Open project folder", start)


def failed_folder_paths(folder: str) -> list[str]:
    """What to watch in a project that failed to load: its root, configs and specs folder.

    Through the project's contained file access, as a loaded project is watched: a path
    that leaves the folder (a symlink out, a loop) is neither stat'ed nor watched, and
    what is watched is the real path inside, so the watcher follows no symlink.
    """
    rels = (".", "ctxviewer.yaml", ".mahabharatha", ".mahabharatha/config.yaml", ".zerg/config.yaml", ".gsd/specs")
    fs = ProjectFS(folder)
    paths: list[str] = []
    for rel in rels:
        try:
            real = fs.resolve(rel)
        except (OutsideRootError, OSError):  # refused, or a link changed while followed
            continue
        if fs.lstat(rel) is not None:
            paths.append(str(real))
    return list(dict.fromkeys(paths))


class ProjectWatcher(QObject):
    """Watches the open project's files and emits :attr:`changed` once they have been quiet a moment.

    ``watcher`` is the file-system watcher itself (tests block its signals to be sure only
    F5 refreshes).  The paths come from :meth:`watch_project` (a loaded project) or
    :meth:`watch_folder` (one that failed to load).
    """

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        #: Files and folders of the open project whose changes re-run the task.
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._on_disk_change)
        self.watcher.directoryChanged.connect(self._on_disk_change)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DISK_DELAY_MS)
        self.timer.timeout.connect(self.changed)
        #: What the open project watches apart from the current feature (see project_watch).
        self.known: Watch | None = None

    def watch_project(self, project: Project | None, feature: str | None) -> None:
        """Watch the configs, the task graphs, *feature*'s files and the rule files.

        All but the feature's folder were stat'ed with the load or refresh that made the
        project (:func:`project_watch`, kept in :attr:`known`), off the GUI thread; only
        that folder's few files are listed and stat'ed here.
        """
        if project is None:
            self.watch_paths([])
            return
        watch = self.known
        if watch is None or watch.project is not project:  # a project handed in directly
            watch = self.known = project_watch(project)
        current: list[str] = []
        if feature is not None:
            fs = project.fs
            spec_dir = project.feature(feature).spec_dir
            rels = [spec_dir, *(f"{spec_dir}/{n}" for n in fs.list_dir(spec_dir))]
            current = [str(project.root / rel) for rel in dict.fromkeys(rels) if fs.lstat(rel) is not None]
        self.watch_paths(list(dict.fromkeys([*watch.head, *current, *watch.tail])))

    def watch_folder(self, folder: str) -> None:
        """Watch a project that failed to load (see :func:`failed_folder_paths`)."""
        self.watch_paths(failed_folder_paths(folder))

    def watch_paths(self, paths: list[str]) -> None:
        """Watch exactly *paths* (at most MAX_WATCHED), instead of what was watched before."""
        old = self.watcher.files() + self.watcher.directories()
        if old:
            self.watcher.removePaths(old)
        if paths:
            self.watcher.addPaths(paths[:MAX_WATCHED])

    def stop(self) -> None:
        self.timer.stop()

    def _on_disk_change(self, _path: str) -> None:
        self.timer.start()


class ProjectOpener(QObject):
    """The open project (:attr:`project`), loaded on *load_lane* and refreshed on *refresh_lane*.

    After :meth:`open`, :attr:`loaded` carries the project loaded (now :attr:`project`) and
    whether it ends a failed open, or :attr:`failed` the folder and why it did not open;
    that folder is then watched, and kept in :attr:`failed_folder` for a retry until a
    project loads.  After :meth:`refresh`, :attr:`refreshed` carries the project brought
    up to date, the one it replaces (the same object when nothing changed) and the paths
    that changed -- unless another folder was opened meanwhile.  :attr:`disk` watches.
    """

    loaded = Signal(object, bool)  # Project, whether it ends a failed open
    failed = Signal(str, str)  # folder, message
    refreshed = Signal(object, object, object)  # Project, the Project before, tuple of changed paths

    def __init__(self, load_lane: Lane, refresh_lane: Lane, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.load_lane = load_lane
        self.refresh_lane = refresh_lane
        self.disk = ProjectWatcher(self)
        self.project: Project | None = None
        #: The folder asked for last, and the last one that failed to open ('' when none).
        self.opening = ""
        self.failed_folder = ""
        load_lane.finished.connect(self._on_loaded)
        load_lane.errored.connect(self._on_error)
        refresh_lane.finished.connect(self._on_refreshed)

    def open(self, folder: str) -> None:
        """Load *folder* off the GUI thread (a newer open replaces an older one)."""
        self.opening = folder
        reclaim_frozen()  # what the load before froze (here: a collection may destroy Qt objects)
        self.load_lane.submit(lambda cancel, progress: load_with_watch(folder))

    def refresh(self) -> None:
        """Bring the open project up to date with the disk, off the GUI thread."""
        project = self.project
        if project is not None:
            self.refresh_lane.submit(lambda cancel, progress: refresh_with_watch(project))

    def _on_loaded(self, result: tuple[Project, Watch]) -> None:
        project, self.disk.known = result
        recovered = bool(self.failed_folder)
        self.failed_folder = ""
        self.project = project
        self.loaded.emit(project, recovered)

    def _on_error(self, message: str) -> None:
        folder = self.opening
        self.failed_folder = folder
        self.failed.emit(folder, message)
        if folder and Path(folder).is_dir():
            self.disk.watch_folder(folder)

    def _on_refreshed(self, result: tuple[Project, tuple[str, ...], Watch]) -> None:
        project, changed, watch = result
        before = self.project
        if before is None or project.root != before.root:
            return
        self.disk.known = watch
        self.project = project
        self.refreshed.emit(project, before, changed)

"""A project as it was at a git revision, read without touching the user's working tree.

``git ls-tree -r -z`` lists the project's files at a commit and one ``git cat-file --batch``
streams their bytes into a private scratch folder (no filter, attribute or hook applies),
which is then loaded like any other project.  Every git command is built by :func:`_command`
and nowhere else, hardened as docs/security.md#the-one-program-it-starts-on-its-own-git-for-revisions
says; :func:`open_repository` refuses a repository whose git folder is not the project's own.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import posixpath
import re
import shutil
import stat
import subprocess
import threading
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from pathlib import Path

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.files.reading import DEFAULT_MAX_FILE_BYTES, OutsideRootError, Problem, ProjectFS
from ctxviewer.engine.files.writing import scratch_folder, write_scratch

#: Seconds any one git command may take (a huge repository's ``ls-tree`` still fits).
GIT_TIMEOUT = 120
#: Commits the GUI offers to choose from.
LOG_LIMIT = 50
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")

#: The subcommands ctxviewer runs; anything else is refused by :func:`_command`.
_SUBCOMMANDS = frozenset({"rev-parse", "config", "log", "ls-tree", "ls-files", "cat-file", "diff"})

#: Configuration set on the command line, which outranks every file git reads: each key that
#: names a program, a hook folder or a pager, or that makes the commands used read elsewhere.
_OVERRIDES: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("core.sshCommand", "false"),
    ("core.askPass", "false"),
    ("core.attributesFile", os.devnull),
    ("core.untrackedCache", "false"),
    ("core.quotepath", "off"),
    ("credential.helper", ""),
    ("protocol.allow", "never"),
    ("log.showSignature", "false"),
    ("gpg.program", "false"),
    ("gpg.openpgp.program", "false"),
    ("gpg.x509.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.ssh.defaultKeyCommand", "false"),
    ("diff.external", "false"),
    ("color.ui", "never"),
    ("i18n.logOutputEncoding", "UTF-8"),
    ("submodule.recurse", "false"),
    ("maintenance.auto", "false"),
    ("gc.auto", "0"),
)

#: What every command of these kinds is given, whatever the caller passed.
_FORCED_FLAGS = {
    "diff": ("--no-index", "--no-ext-diff", "--no-textconv", "--no-color"),
    "log": ("--no-show-signature", "--no-color", "--no-ext-diff", "--no-textconv"),
}

#: Entries of a git folder that must be what they are, not links to another place.
_GIT_DIR_ENTRIES = ("config", "HEAD", "index", "objects", "refs", "packed-refs", "info", "shallow")
_MAX_POINTER_BYTES = 4096


class GitError(CtxViewerError):
    """git cannot give what was asked: not installed, not a repository, an unknown revision."""


class GitUnavailableError(GitError):
    """The ``git`` program is not installed (or not on ``PATH``)."""


class NotARepositoryError(GitError):
    """The project folder is not inside a git working tree git will read."""


class RefusedRepositoryError(NotARepositoryError):
    """The project's repository would make git read or run something outside the project."""


class UnknownRevisionError(GitError):
    """A revision name that is refused or that the repository does not have."""


@dataclass(frozen=True, slots=True)
class Repository:
    """The repository a project folder is in: its top folder, the project's path inside it, and
    its git folder (``top/.git``, checked by :func:`open_repository`)."""

    top: Path
    #: The project folder relative to *top*, ``/``-separated with a trailing ``/`` ('' at the top).
    prefix: str
    git_dir: Path

    @property
    def project(self) -> Path:
        return self.top.joinpath(*self.prefix.split("/")) if self.prefix else self.top


@dataclass(frozen=True, slots=True)
class Commit:
    """One commit as a list shows it."""

    sha: str
    short: str
    subject: str


@dataclass(frozen=True, slots=True)
class Hunk:
    """One changed stretch of a file: lines ``old_start``.. (``old_count`` of them) of the first
    revision became lines ``new_start``.. (``new_count``) of the second.  A count of 0 is a pure
    insertion (or deletion); its start is then the line *after which* it happened."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int

    @property
    def old_lines(self) -> tuple[int, int] | None:
        return (self.old_start, self.old_start + self.old_count - 1) if self.old_count else None

    @property
    def new_lines(self) -> tuple[int, int] | None:
        return (self.new_start, self.new_start + self.new_count - 1) if self.new_count else None


# -- the one way git is run -------------------------------------------------------------------


def _environment(repo: Repository | None, ceiling: Path | None) -> dict[str, str]:
    drop = ("HOME", "XDG_CONFIG_HOME", "PAGER", "EDITOR", "VISUAL", "SSH_ASKPASS", "PREFIX")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k not in drop}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_ATTR_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_ASKPASS="false",
        GIT_OPTIONAL_LOCKS="0",
        GIT_LITERAL_PATHSPECS="1",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_NO_LAZY_FETCH="1",
        GIT_PAGER="cat",
        HOME=os.devnull,
        XDG_CONFIG_HOME=os.devnull,
        LC_ALL="C",
    )
    if repo is not None:
        env.update(GIT_DIR=str(repo.git_dir), GIT_WORK_TREE=str(repo.top))
    if ceiling is not None:
        env["GIT_CEILING_DIRECTORIES"] = str(ceiling)
    return env


def _command(
    repo: Repository | None, args: Iterable[str], cwd: Path | None = None
) -> tuple[list[str], dict[str, str], Path]:
    """The argument list, environment and folder of one git command: the only place one is made.

    With *repo*, the command reads that repository and no other; without, it runs in *cwd* (a
    scratch folder) with discovery stopped there, so no repository's configuration applies.
    """
    tail = list(args)
    sub = tail[0] if tail else ""
    if sub not in _SUBCOMMANDS:
        raise GitError(f"git {sub}: not a command ctxviewer runs")
    if sub == "diff" and repo is not None:
        raise GitError("git diff runs only on scratch files, outside the repository")
    folder = repo.top if repo is not None else cwd
    if folder is None:
        raise GitError(f"git {sub}: no repository and no folder")
    argv = ["git"]
    for key, value in _OVERRIDES:
        argv += ["-c", f"{key}={value}"]
    argv += [sub, *_FORCED_FLAGS.get(sub, ()), *tail[1:]]
    return argv, _environment(repo, folder.parent if repo is None else None), folder


def _run(
    repo: Repository | None, *args: str, cwd: Path | None = None, check: bool = True
) -> subprocess.CompletedProcess[bytes]:
    argv, env, folder = _command(repo, args, cwd)
    try:
        done = subprocess.run(
            argv,
            cwd=folder,
            capture_output=True,
            env=env,
            timeout=GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except FileNotFoundError:
        raise GitUnavailableError("git is not installed (or not on PATH); it is needed to read revisions") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took longer than {GIT_TIMEOUT} seconds; stopped", str(folder)) from None
    except OSError as exc:
        raise GitError(f"git could not be run ({exc.strerror or exc})", str(folder)) from None
    if check and done.returncode != 0:
        raise GitError(f"git {args[0]} failed: {_first_line(done.stderr)}", str(folder))
    return done


def _popen(repo: Repository, *args: str) -> subprocess.Popen[bytes]:
    argv, env, folder = _command(repo, args)
    try:
        return subprocess.Popen(
            argv, cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
    except FileNotFoundError:
        raise GitUnavailableError("git is not installed (or not on PATH); it is needed to read revisions") from None
    except OSError as exc:
        raise GitError(f"git could not be run ({exc.strerror or exc})", str(folder)) from None


def run_git(repo: Repository, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """``git args`` on *repo*, its output as bytes; :class:`GitError` when it fails (with *check*)."""
    return _run(repo, *args, check=check)


def _first_line(data: bytes) -> str:
    lines = [ln.strip() for ln in data.decode("utf-8", "replace").splitlines() if ln.strip()]
    text = lines[0] if lines else "no message"
    return text.removeprefix("fatal: ").removeprefix("error: ")


# -- which repository ---------------------------------------------------------------------------


def _find_top(folder: Path) -> Path | None:
    """The nearest folder at or above *folder* that holds a ``.git`` entry of any kind."""
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return None


def _pointer(path: Path) -> str:
    """What a ``.git`` file points to (its ``gitdir:`` line), for the refusal."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_MAX_POINTER_BYTES).decode("utf-8", "replace")
    except OSError:
        return "another place"
    first = head.splitlines()[0].strip() if head.strip() else ""
    return first.removeprefix("gitdir:").strip() or "another place"


def _refuse(why: str, top: Path) -> RefusedRepositoryError:
    return RefusedRepositoryError(f"revisions not read: {why}", str(top))


def _check_git_dir(top: Path) -> Path:
    dotgit = top / ".git"
    st = os.lstat(dotgit)
    if stat.S_ISLNK(st.st_mode):
        raise _refuse(f".git is a link to {os.readlink(dotgit)}; git would read another repository", top)
    if stat.S_ISREG(st.st_mode):
        raise _refuse(
            f".git is a file pointing to {_pointer(dotgit)} (a linked worktree or a submodule); "
            "git would read a repository outside the project: open the checkout that holds its .git folder",
            top,
        )
    if not stat.S_ISDIR(st.st_mode):
        raise _refuse(".git is neither a folder nor a file", top)
    for name in _GIT_DIR_ENTRIES:
        entry = dotgit / name
        if os.path.islink(entry):
            raise _refuse(f".git/{name} is a link to {os.readlink(entry)}; git would read outside the project", top)
    if os.path.lexists(dotgit / "commondir"):
        raise _refuse(".git/commondir shares another repository's objects and configuration", top)
    alternates = dotgit / "objects" / "info" / "alternates"
    if os.path.lexists(alternates):
        raise _refuse(".git/objects/info/alternates borrows objects from another repository", top)
    return dotgit


def _check_config(top: Path, dotgit: Path) -> None:
    config = dotgit / "config"
    if not os.path.lexists(config):
        return
    if not os.path.isfile(config):
        raise _refuse(".git/config is not a regular file", top)
    # The file alone (--file reads no includes), parsed by git outside any repository.
    with scratch_folder("ctxviewer-git-") as scratch:
        done = _run(None, "config", "--file", str(config), "--list", "-z", "--name-only", cwd=scratch, check=False)
    if done.returncode != 0:
        raise _refuse(f".git/config cannot be read: {_first_line(done.stderr)}", top)
    keys = {k.decode("utf-8", "replace").lower() for k in done.stdout.split(b"\0") if k}
    if "core.worktree" in keys:
        raise _refuse(".git/config sets core.worktree; git would take another folder as the working tree", top)
    includes = sorted(k for k in keys if k.startswith(("include.", "includeif.")))
    if includes:
        raise _refuse(f".git/config includes other files ({includes[0]}); git would read them", top)


def open_repository(project: str | os.PathLike[str]) -> Repository:
    """The repository *project* is in, checked to be the project's own.

    :class:`NotARepositoryError` when it is in none; :class:`RefusedRepositoryError` when its git
    folder is not a folder in the working tree that holds the project (see the module's notes).
    """
    folder = Path(project)
    if not folder.is_dir():
        raise NotARepositoryError("no such folder", str(project))
    if shutil.which("git") is None:
        raise GitUnavailableError("git is not installed (or not on PATH); it is needed to read revisions")
    real = Path(os.path.realpath(folder))
    top = _find_top(real)
    if top is None:
        raise NotARepositoryError(
            "not in a git repository: revisions need one (git init, then commit the project)", str(project)
        )
    dotgit = _check_git_dir(top)
    _check_config(top, dotgit)
    rel = real.relative_to(top).as_posix()
    repo = Repository(top, "" if rel == "." else rel + "/", dotgit)
    done = _run(repo, "rev-parse", "--is-inside-work-tree", check=False)
    if done.returncode != 0:
        raise NotARepositoryError(_first_line(done.stderr), str(project))
    return repo


# -- revisions and commits ------------------------------------------------------------------------


def check_revision_name(name: str) -> str:
    """*name* stripped, or :class:`UnknownRevisionError` for one that could be taken as an option."""
    text = name.strip()
    if not text:
        raise UnknownRevisionError("name a revision: a commit, branch or tag (HEAD~1, main, v1.2)")
    if text.startswith("-"):
        raise UnknownRevisionError(f"{text!r}: a revision cannot start with '-' (it would be read as an option)")
    if _CONTROL.search(text):
        raise UnknownRevisionError(
            f"{text.encode('unicode_escape').decode('ascii')!r}: a revision holds no control characters"
        )
    return text


def resolve(repo: Repository, name: str) -> str:
    """The commit id *name* stands for; :class:`UnknownRevisionError` when there is none."""
    text = check_revision_name(name)
    done = _run(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{text}^{{commit}}", check=False)
    sha = done.stdout.decode("ascii", "replace").strip()
    if done.returncode != 0 or not _OID.fullmatch(sha):
        raise UnknownRevisionError(
            f"{text!r}: no such revision (commit, branch or tag) in this repository", str(repo.top)
        )
    return sha


def recent_commits(repo: Repository, limit: int = LOG_LIMIT) -> tuple[Commit, ...]:
    """The newest *limit* commits that touch the project folder (none in an empty repository)."""
    args = ["log", "-z", f"-n{int(limit)}", "--format=%H%x00%h%x00%s"]
    done = _run(repo, *args, "--", repo.prefix or ".", check=False)
    if done.returncode != 0:  # a repository with no commit yet
        return ()
    fields = done.stdout.decode("utf-8", "replace").split("\0")
    out = []
    for i in range(0, len(fields) - 2, 3):
        sha, short, subject = (f.strip("\n") for f in fields[i : i + 3])
        if sha:
            out.append(Commit(sha, short, subject))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class RangeCommit:
    """One commit of a first-parent walk, with what it changed against its first parent."""

    sha: str
    parents: tuple[str, ...]
    subject: str
    #: (status, project-relative path) of each file of the project it added (``A``), deleted
    #: (``D``), modified (``M``) or changed the type of (``T``); renames are a delete and an add.
    changes: tuple[tuple[str, str], ...]

    @property
    def merge(self) -> bool:
        return len(self.parents) > 1

    @property
    def parent(self) -> str | None:
        """The first parent (None for a root commit)."""
        return self.parents[0] if self.parents else None


def first_parent_range(repo: Repository, a: str, b: str) -> tuple[RangeCommit, ...]:
    """The commits of ``a..b`` along *b*'s first parents, oldest first, each with the project's
    files it changed against its first parent (a merge too); *a* and *b* are commit ids."""
    args = ["log", "--first-parent", "--diff-merges=first-parent", "--no-renames", "--name-status", "-z"]
    done = _run(repo, *args, "--format=%x01%H%x00%P%x00%s", "--end-of-options", f"{a}..{b}")
    fields = done.stdout.split(b"\0")
    out: list[RangeCommit] = []
    n = 0
    while n < len(fields):
        head = fields[n].lstrip(b"\n")
        if not head.startswith(b"\x01"):
            n += 1
            continue
        sha = head[1:].decode("ascii", "replace")
        parents = tuple(fields[n + 1].decode("ascii", "replace").split()) if n + 1 < len(fields) else ()
        subject = fields[n + 2].decode("utf-8", "replace") if n + 2 < len(fields) else ""
        n += 3
        changes: list[tuple[str, str]] = []
        while n + 1 < len(fields):
            status = fields[n].lstrip(b"\n").decode("ascii", "replace")
            if status.startswith("\x01") or not status:
                break
            path = fields[n + 1].decode("utf-8", "surrogateescape")
            n += 2
            if path.startswith(repo.prefix):
                changes.append((status[:1], path.removeprefix(repo.prefix)))
        out.append(RangeCommit(sha, parents, subject, tuple(changes)))
    return tuple(reversed(out))


def project_files(repo: Repository, sha: str) -> frozenset[str]:
    """The project's files (and submodules) at commit *sha*, project-relative."""
    return frozenset(e.path.removeprefix(repo.prefix) for e in _tree(repo, sha))


# -- trees and blobs ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Entry:
    mode: str
    kind: str
    oid: str
    path: str

    @property
    def content_id(self) -> tuple[bool, str]:
        """What decides whether the file changed: is it a link, and its blob id."""
        return self.mode == "120000", self.oid


def _tree(repo: Repository, sha: str) -> list[_Entry]:
    args = ["ls-tree", "-r", "-z", "--full-tree", sha]
    done = _run(repo, *args, *(["--", repo.prefix] if repo.prefix else []))
    out = []
    for record in done.stdout.split(b"\0"):
        if not record:
            continue
        meta, _tab, path = record.partition(b"\t")
        mode, kind, oid = meta.decode("ascii").split(" ")
        out.append(_Entry(mode, kind, oid, path.decode("utf-8", "surrogateescape")))
    return out


def _blobs(repo: Repository, oids: list[str], limit: int) -> Generator[bytes, None, None]:
    """Each blob's bytes in order, at most *limit* + 1 of them (so a too-large file stays too large).

    The object ids are fed to ``git cat-file --batch`` from a thread while this one reads the
    answers, so the two processes do not wait on each other file by file.
    """
    proc = _popen(repo, "cat-file", "--batch", "--buffer")
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None and stdout is not None

    def feed() -> None:
        with contextlib.suppress(OSError, ValueError):  # git gone (stopped early): nothing more to ask
            for oid in oids:
                stdin.write(oid.encode("ascii") + b"\n")
            stdin.close()

    feeder = threading.Thread(target=feed, name="git-cat-file-feed", daemon=True)
    feeder.start()
    try:
        for oid in oids:
            header = stdout.readline().split()
            if len(header) != 3 or header[1] != b"blob":
                raise GitError(f"git cat-file could not read object {oid}", str(repo.top))
            size = int(header[2])
            keep = stdout.read(min(size, limit + 1))
            rest = size - len(keep)
            while rest > 0:
                rest -= len(stdout.read(min(rest, 1 << 20)))
            stdout.read(1)  # the newline after the object
            yield keep
    finally:
        proc.kill()
        proc.wait()
        feeder.join()
        with contextlib.suppress(OSError, ValueError):
            stdin.close()
        stdout.close()


def materialize(
    repo: Repository,
    sha: str,
    folder: Path,
    check: Callable[[int, int], None] | None = None,
    limit: int = DEFAULT_MAX_FILE_BYTES,
) -> tuple[str, ...]:
    """Write the project's files at commit *sha* into the empty scratch *folder*.

    Returns notes for what could not be made as it was (a submodule).  A file over *limit* bytes
    is written only to ``limit + 1`` bytes: the reader refuses it as too large, as it would
    refuse the file itself.  ``check(done, total)`` is called every few hundred files (to report
    progress; it raises to cancel).
    """
    entries = _tree(repo, sha)
    notes: list[str] = []
    files = [e for e in entries if e.kind == "blob"]
    for e in entries:
        if e.kind == "commit":
            notes.append(f"{e.path.removeprefix(repo.prefix)}: a submodule, not read")
    with contextlib.closing(_blobs(repo, [e.oid for e in files], limit)) as blobs:
        for n, (entry, data) in enumerate(zip(files, blobs, strict=True)):
            if check is not None and n % 256 == 0:
                check(n, len(files))
            rel = entry.path.removeprefix(repo.prefix)
            write_scratch(folder, rel, data, executable=entry.mode == "100755", link=entry.mode == "120000")
    return tuple(notes)


# -- changed lines ------------------------------------------------------------------------------


def parse_hunks(patch: bytes) -> tuple[Hunk, ...]:
    """The ``@@`` headers of a ``git diff -U0`` patch of one file."""
    out = []
    for line in patch.split(b"\n"):
        m = _HUNK.match(line)
        if m:
            old_count = 1 if m.group(2) is None else int(m.group(2))
            new_count = 1 if m.group(4) is None else int(m.group(4))
            out.append(Hunk(int(m.group(1)), old_count, int(m.group(3)), new_count))
    return tuple(out)


def diff_bytes(before: bytes, after: bytes) -> tuple[Hunk, ...]:
    """The changed stretches between two texts, by git's own diff of two scratch files.

    Run outside any repository (``--no-index`` in a private folder, discovery stopped there),
    so no attribute, filter, driver or configuration of any repository applies.
    """
    if before == after:
        return ()
    with scratch_folder("ctxviewer-diff-") as folder:
        write_scratch(folder, "a", before)
        write_scratch(folder, "b", after)
        done = _run(None, "diff", "-U0", "--text", "--", "a", "b", cwd=folder, check=False)
    if done.returncode not in (0, 1):
        raise GitError(f"git diff failed: {_first_line(done.stderr)}")
    return parse_hunks(done.stdout)


def _blob_id(header: bytes, chunks: Iterable[bytes], algorithm: str) -> str:
    digest = hashlib.new(algorithm, header)
    for chunk in chunks:
        digest.update(chunk)
    return digest.hexdigest()


class FileDiffs:
    """The changed lines of the project's files between commit *a* and *b* (None: the working
    tree), asked file by file and kept; thread-safe.

    Files compare by content (and whether they are links); the working tree is read by
    :class:`~ctxviewer.engine.files.reading.ProjectFS`, never by git, so a file is compared as
    the bytes ctxviewer loads, with no filter of the repository's applied.
    """

    def __init__(self, repo: Repository, a: str, b: str | None, limit: int = DEFAULT_MAX_FILE_BYTES) -> None:
        self.repo, self.a, self.b, self.limit = repo, a, b, limit
        self._fs = ProjectFS(repo.project)
        self._trees: dict[str, dict[str, _Entry]] = {}
        self._cache: dict[str, tuple[Hunk, ...]] = {}
        self._lock = threading.Lock()
        self._changed: tuple[str, ...] | None = None
        self._unchanged: frozenset[str] = frozenset()

    def _files(self, sha: str) -> dict[str, _Entry]:
        """The project's files at *sha* (not submodules), by project-relative path."""
        found = self._trees.get(sha)
        if found is None:
            found = {e.path.removeprefix(self.repo.prefix): e for e in _tree(self.repo, sha) if e.kind == "blob"}
            self._trees[sha] = found
        return found

    def _tracked(self) -> list[str]:
        """The project's files the index tracks (names only: the index's content is not used)."""
        done = _run(self.repo, "ls-files", "-z", "--cached", "--", self.repo.prefix or ".")
        names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
        return [n.removeprefix(self.repo.prefix) for n in dict.fromkeys(names) if n]

    def _worktree_entry(self, rel: str) -> tuple[Path, bool] | None:
        """(path, is a link) of *rel* in the working tree, or None where there is no such file
        inside the project (missing, a folder, a pipe, a device, a folder on its way leading out)."""
        head, name = posixpath.split(rel)
        try:
            path = self._fs.resolve(head) / name
            mode = os.lstat(path).st_mode
        except (OutsideRootError, OSError):
            return None
        if stat.S_ISLNK(mode):
            return path, True
        return (path, False) if stat.S_ISREG(mode) else None

    def _worktree_id(self, rel: str, algorithm: str) -> tuple[bool, str] | None:
        """(is a link, blob id) of *rel* in the working tree, hashed as git hashes a blob."""
        found = self._worktree_entry(rel)
        if found is None:
            return None
        path, link = found
        try:
            if link:
                target = os.fsencode(os.readlink(path))
                return True, _blob_id(b"blob %d\0" % len(target), [target], algorithm)
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return None
            size = info.st_size
            return False, _blob_id(b"blob %d\0" % size, iter(lambda: os.read(fd, 1 << 20), b""), algorithm)
        except OSError:
            return None
        finally:
            os.close(fd)

    def changed_files(self) -> tuple[str, ...]:
        """The project's files whose content differs, project-relative, in git's order (tracked
        files only for the working tree)."""
        with self._lock:
            if self._changed is None:
                old = self._files(self.a)
                if self.b is not None:
                    new = self._files(self.b)
                    paths = set(old) | set(new)
                    changed = [p for p in paths if _content(old.get(p)) != _content(new.get(p))]
                else:
                    algorithm = "sha256" if any(len(e.oid) == 64 for e in old.values()) else "sha1"
                    paths = set(old) | set(self._tracked())
                    changed = [p for p in paths if _content(old.get(p)) != self._worktree_id(p, algorithm)]
                self._changed = tuple(sorted(changed, key=lambda p: p.encode("utf-8", "surrogateescape")))
                self._unchanged = frozenset(paths.difference(changed))
            return self._changed

    def _side(self, sha: str | None, rel: str) -> bytes | None:
        """The bytes of *rel* at *sha* (None: the working tree), b'' where it is absent, and None
        where it is over the size limit (the reader refuses it, so its lines do not matter)."""
        if sha is None:
            found = self._worktree_entry(rel)
            if found is None:
                return b""
            if found[1]:
                try:
                    return os.fsencode(os.readlink(found[0]))
                except OSError:
                    return b""
            data, failed = self._fs.read_bytes(rel)
            if failed is not None:
                return None if failed.problem is Problem.TOO_LARGE else b""
            return data
        entry = self._files(sha).get(rel)
        if entry is None:
            return b""
        with contextlib.closing(_blobs(self.repo, [entry.oid], self.limit)) as blobs:
            data = next(blobs)
        return None if len(data) > self.limit else data

    def hunks(self, rel: str) -> tuple[Hunk, ...]:
        """The changed stretches of the project file *rel* (none when it did not change)."""
        with self._lock:
            cached = self._cache.get(rel)
            if cached is None:
                self._files(self.a)
                if self.b is not None:
                    self._files(self.b)
        if cached is not None:
            return cached
        self.changed_files()
        if rel in self._unchanged:  # the same bytes on both sides: no file need be read
            return ()
        before, after = self._side(self.a, rel), self._side(self.b, rel)
        found = () if before is None or after is None else diff_bytes(before, after)
        with self._lock:
            self._cache[rel] = found
        return found


def _content(entry: _Entry | None) -> tuple[bool, str] | None:
    return None if entry is None else entry.content_id

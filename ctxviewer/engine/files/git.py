"""A project as it was at a git revision, read without touching the user's working tree.

How: with the ``git`` command line, reading objects only.  ``git ls-tree -r -z`` lists the
project's files at the commit and one ``git cat-file --batch`` process streams their
bytes, which :func:`~ctxviewer.engine.files.writing.write_scratch` puts into a private
temporary folder; the project is then loaded from there like any other folder and the
folder removed afterwards.  Why not the alternatives:

* ``git worktree add --detach`` writes into the repository (``.git/worktrees``, left behind
  if the process dies), checks files out through the repository's filters and runs its
  ``post-checkout`` hook -- code from the repository's configuration, run because a user
  looked at a diff;
* ``git archive`` applies the tree's ``export-ignore`` and ``export-subst`` attributes, so
  the files would not be the committed ones;
* a library (pygit2, dulwich, GitPython) is a new dependency (pygit2 a compiled one) for
  what three plumbing commands do, and GitPython itself runs the command line.

Reading blobs applies no filter, attribute or hook: the files are the bytes committed.
(A Git LFS file is its pointer, as in any clone without LFS installed.)

Safety.  Revision names come from users and scripts: one that starts with ``-`` (an
option to git) or holds a control character is refused, and every other one is turned
into a commit id with ``git rev-parse --verify --end-of-options`` before anything else
sees it.  Paths always follow ``--`` and are literal (``GIT_LITERAL_PATHSPECS``).  The
commands that could run something the repository's configuration names are kept from it:
``diff`` runs with ``--no-ext-diff --no-textconv``, every command with
``core.fsmonitor=false`` and ``GIT_OPTIONAL_LOCKS=0`` (no index refresh written), and no
``GIT_*`` variable of the caller's environment (``GIT_DIR``, ``GIT_WORK_TREE``) reaches
git, so it reads the repository the project is in.

Bad input is one :class:`GitError` each: git not installed, the project not in a
repository (or one git refuses, such as another user's), a revision git does not know.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.files.reading import DEFAULT_MAX_FILE_BYTES
from ctxviewer.engine.files.writing import write_scratch

#: Seconds any one git command may take (a huge repository's ``ls-tree`` still fits).
GIT_TIMEOUT = 120
#: Commits the GUI offers to choose from.
LOG_LIMIT = 50
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class GitError(CtxViewerError):
    """git cannot give what was asked: not installed, not a repository, an unknown revision."""


class GitUnavailableError(GitError):
    """The ``git`` program is not installed (or not on ``PATH``)."""


class NotARepositoryError(GitError):
    """The project folder is not inside a git working tree git will read."""


class UnknownRevisionError(GitError):
    """A revision name that is refused or that the repository does not have."""


@dataclass(frozen=True, slots=True)
class Repository:
    """The repository a project folder is in: its top folder and the project's path inside it."""

    top: Path
    #: The project folder relative to *top*, ``/``-separated with a trailing ``/`` ('' at the top).
    prefix: str


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


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_LITERAL_PATHSPECS="1",
        GIT_OPTIONAL_LOCKS="0",
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        LC_ALL="C",
    )
    return env


def _base(cwd: Path) -> list[str]:
    return ["git", "-C", str(cwd), "-c", "core.fsmonitor=false", "-c", "core.quotepath=off"]


def run_git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """``git args`` in *cwd*, its output as bytes; :class:`GitError` when it fails (with *check*)."""
    try:
        done = subprocess.run(
            [*_base(cwd), *args],
            capture_output=True,
            env=_environment(),
            timeout=GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except FileNotFoundError:
        raise GitUnavailableError("git is not installed (or not on PATH); it is needed to read revisions") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took longer than {GIT_TIMEOUT} seconds; stopped", str(cwd)) from None
    except OSError as exc:
        raise GitError(f"git could not be run ({exc.strerror or exc})", str(cwd)) from None
    if check and done.returncode != 0:
        raise GitError(f"git {args[0]} failed: {_first_line(done.stderr)}", str(cwd))
    return done


def _first_line(data: bytes) -> str:
    lines = [ln.strip() for ln in data.decode("utf-8", "replace").splitlines() if ln.strip()]
    text = lines[0] if lines else "no message"
    return text.removeprefix("fatal: ").removeprefix("error: ")


def open_repository(project: str | os.PathLike[str]) -> Repository:
    """The repository *project* is in; :class:`NotARepositoryError` when it is in none."""
    folder = Path(project)
    if not folder.is_dir():
        raise NotARepositoryError("no such folder", str(project))
    done = run_git(folder, "rev-parse", "--show-toplevel", "--show-prefix", check=False)
    if done.returncode != 0:
        why = _first_line(done.stderr)
        if "not a git repository" in why:
            why = "not in a git repository: revisions need one (git init, then commit the project)"
        raise NotARepositoryError(why, str(project))
    lines = done.stdout.decode("utf-8", "surrogateescape").split("\n")
    if len(lines) < 2 or not lines[0]:
        raise NotARepositoryError("not inside a git working tree (a bare repository?)", str(project))
    return Repository(Path(lines[0]), lines[1])


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
    done = run_git(repo.top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{text}^{{commit}}", check=False)
    sha = done.stdout.decode("ascii", "replace").strip()
    if done.returncode != 0 or not re.fullmatch(r"[0-9a-f]{40,64}", sha):
        raise UnknownRevisionError(
            f"{text!r}: no such revision (commit, branch or tag) in this repository", str(repo.top)
        )
    return sha


def recent_commits(repo: Repository, limit: int = LOG_LIMIT) -> tuple[Commit, ...]:
    """The newest *limit* commits that touch the project folder (none in an empty repository)."""
    args = ["log", "-z", "--no-color", f"-n{int(limit)}", "--format=%H%x00%h%x00%s"]
    done = run_git(repo.top, *args, "--", repo.prefix or ".", check=False)
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
class _Entry:
    mode: str
    kind: str
    oid: str
    path: str


def _tree(repo: Repository, sha: str) -> list[_Entry]:
    args = ["ls-tree", "-r", "-z", "--full-tree", sha]
    done = run_git(repo.top, *args, *(["--", repo.prefix] if repo.prefix else []))
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
    answers: asked one at a time, each file costs a round trip between the two processes
    (on a busy 2-core machine, 10,000 files took 12 s of waiting that way).
    """
    try:
        proc = subprocess.Popen(
            [*_base(repo.top), "cat-file", "--batch", "--buffer"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_environment(),
        )
    except FileNotFoundError:
        raise GitUnavailableError("git is not installed (or not on PATH); it is needed to read revisions") from None
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

        Returns notes for what could not be made as it was (a submodule).  A file over *limit*
        bytes is written only to ``limit + 1`` bytes: the reader refuses it as too large, as it
        would refuse the file itself.  ``check(done, total)`` is called every few hundred files (to
    report progress; it raises to cancel).
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


class FileDiffs:
    """The changed lines of the project's files between commit *a* and *b* (None: the working
    tree), asked file by file and kept; thread-safe."""

    def __init__(self, repo: Repository, a: str, b: str | None) -> None:
        self.repo, self.a, self.b = repo, a, b
        self._cache: dict[str, tuple[Hunk, ...]] = {}
        self._lock = threading.Lock()
        self._changed: tuple[str, ...] | None = None

    def _revs(self) -> list[str]:
        return [self.a] if self.b is None else [self.a, self.b]

    def changed_files(self) -> tuple[str, ...]:
        """The project's files that differ (project-relative; tracked files only for the working tree)."""
        with self._lock:
            if self._changed is None:
                args = ["diff", "--no-ext-diff", "--no-textconv", "--no-renames", "--name-only", "-z"]
                done = run_git(self.repo.top, *args, *self._revs(), "--", self.repo.prefix or ".")
                names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
                self._changed = tuple(n.removeprefix(self.repo.prefix) for n in names if n)
            return self._changed

    def hunks(self, rel: str) -> tuple[Hunk, ...]:
        """The changed stretches of the project file *rel* (none when it did not change)."""
        with self._lock:
            cached = self._cache.get(rel)
        if cached is not None:
            return cached
        args = ["diff", "--no-ext-diff", "--no-textconv", "--no-renames", "--no-color", "-U0", "--text"]
        done = run_git(self.repo.top, *args, *self._revs(), "--", self.repo.prefix + rel)
        found = parse_hunks(done.stdout)
        with self._lock:
            self._cache[rel] = found
        return found

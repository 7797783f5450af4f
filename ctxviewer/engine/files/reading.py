"""Contained, bounded file access for everything the engine reads from a project.

Every read goes through :class:`ProjectFS`: paths are resolved component by component,
following symlinks by hand, and one that leaves the project root or loops is refused before
anything outside is opened; files over ``max_file_bytes`` are not read; text is strict UTF-8
with universal newlines, as the reproduced pipeline's ``Path.read_text()``.  Reads return a
:class:`ReadResult` rather than raise, because the pipeline reacts differently to a missing
file, an OS error and a decoding error.  See docs/security.md#limits-hostile-input.
"""

from __future__ import annotations

import contextvars
import enum
import os
import stat
import threading
from collections import deque
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from ctxviewer.engine.files import readlog

_T = TypeVar("_T")

#: Largest file the engine reads (spec, rule, command, task graph, config files).
DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024
#: Symlinks followed while resolving one path before it is called a loop.
MAX_SYMLINK_HOPS = 40


class Problem(enum.Enum):
    """Why a read gave no text."""

    MISSING = "missing"
    OUTSIDE = "outside"
    LOOP = "loop"
    NOT_A_FILE = "not_a_file"
    TOO_LARGE = "too_large"
    OS_ERROR = "os_error"
    NOT_UTF8 = "not_utf8"


#: Problems that the reproduced pipeline would have seen as an OSError (or as a file
#: that does not exist), as opposed to a decoding error.
OS_LEVEL_PROBLEMS = frozenset({Problem.MISSING, Problem.OUTSIDE, Problem.LOOP, Problem.NOT_A_FILE, Problem.OS_ERROR})


class OutsideRootError(Exception):
    """A path that resolves outside the project root (or loops)."""

    def __init__(self, rel: str, why: str, loop: bool = False) -> None:
        super().__init__(f"{rel}: {why}")
        self.rel = rel
        self.why = why
        self.loop = loop


@dataclass(frozen=True, slots=True)
class ReadResult:
    """The outcome of reading one project file as text."""

    rel: str
    text: str | None
    problem: Problem | None = None
    detail: str = ""
    line: int | None = None
    has_nul: bool = False

    @property
    def ok(self) -> bool:
        return self.text is not None

    def describe(self) -> str:
        """One line for the user: what is wrong with the file."""
        where = self.rel if self.line is None else f"{self.rel}:{self.line}"
        return f"{where}: {self.detail}"


def decode_text(data: bytes) -> str:
    """Decode like ``Path.read_text(encoding="utf-8")``: strict UTF-8, universal newlines."""
    text = data.decode("utf-8")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def utf8_error_line(data: bytes, exc: UnicodeDecodeError) -> tuple[int, str]:
    """The 1-based line of a decoding error and a short description of it."""
    line = data.count(b"\n", 0, exc.start) + 1
    bad = data[exc.start : exc.start + 1]
    return line, f"not UTF-8 (byte 0x{bad.hex()} at line {line})"


#: The file-system answers of one pass over many tasks (a batch), keyed by (ProjectFS id,
#: query, path): within a pass each project path is resolved and stat'ed once.  Unset (the
#: default) every query goes to the disk, so a single run sees the files as they are now.
_PASS: ContextVar[dict[tuple[int, str, str], Any] | None] = ContextVar("ctxviewer_fs_pass", default=None)


def one_pass() -> contextvars.Context:
    """A context in which file-system answers are cached for one pass over many tasks.

    Run each task with ``ctx.run(...)``: the cache lives in that context only, so it never
    leaks into the caller (a generator's consumer, another thread) and ends with the pass.
    A file changed on disk during the pass is seen as it was when first asked about.
    """
    ctx = contextvars.copy_context()
    ctx.run(_PASS.set, {})
    return ctx


class ProjectFS:
    """Reads files of one project, never leaving its root."""

    def __init__(self, root: str | os.PathLike[str], max_file_bytes: int = DEFAULT_MAX_FILE_BYTES):
        self.root = Path(os.path.realpath(os.fspath(root)))
        self._root_text = str(self.root)
        self.max_file_bytes = max_file_bytes
        # Texts read, keyed by path and validated by (inode, size, mtime, ctime) on every
        # read, so a file changed on disk is read again and an unchanged one is not.
        self._texts: dict[str, tuple[tuple[int, int, int, int], ReadResult]] = {}
        self._walks: dict[tuple[str, str], tuple[tuple[tuple[str, int], ...], list[str]]] = {}
        self._lock = threading.Lock()

    # -- resolution -----------------------------------------------------------------

    def resolve(self, rel: str | PurePosixPath) -> Path:
        """The real path of *rel* inside the root; raises :class:`OutsideRootError`.

        Components are walked one by one with ``lstat`` on paths inside the root only;
        a symlink's target is read with ``readlink`` and checked lexically before it is
        followed, so nothing outside the root is ever touched.
        """
        return self.once_per_pass("resolve", str(rel), self._resolve)  # a refusal raises and is not kept

    def once_per_pass(self, kind: str, arg: str, compute: Callable[[str], _T]) -> _T:
        """``compute(arg)``, worked out once within a pass (:func:`one_pass`), every time outside one."""
        cache = _PASS.get()
        if cache is None:
            return compute(arg)
        key = (id(self), kind, arg)
        found: _T | None = cache.get(key)
        if found is None:
            found = cache[key] = compute(arg)
        return found

    def _resolve(self, rel_s: str) -> Path:
        reads = readlog.current()
        if not rel_s:
            return self.root
        if rel_s.startswith("/") or os.path.isabs(rel_s) or _has_drive(rel_s):
            raise OutsideRootError(rel_s, "absolute path outside the project")
        # Each component comes with the target of the symlink it was read from (None for
        # the components of *rel* itself), so a '..' that climbs out names the link.
        pending: deque[tuple[str, str | None]] = deque((p, None) for p in rel_s.replace("\\", "/").split("/"))
        current: list[str] = []
        hops = 0
        missing = False
        while pending:
            part, via = pending.popleft()
            if part in ("", "."):
                continue
            if part == "..":
                if not current:
                    if via is not None:
                        raise OutsideRootError(rel_s, f"symlink to {via} outside the project")
                    raise OutsideRootError(rel_s, "goes above the project root ('..')")
                current.pop()
                # What follows may exist again (and may be a symlink): check it.
                missing = False
                continue
            if missing:
                current.append(part)
                continue
            # Joined as text: a component holds no separator, and a Path per component
            # costs more than the lstat it is for.
            candidate = os.path.join(self._root_text, *current, part)
            if reads is not None:
                reads.touched.add("/".join((*current, part)))
            try:
                st = os.lstat(candidate)
            except (FileNotFoundError, NotADirectoryError):
                missing = True
                current.append(part)
                continue
            except OSError:
                current.append(part)
                missing = True
                continue
            if not stat.S_ISLNK(st.st_mode):
                current.append(part)
                continue
            hops += 1
            if hops > MAX_SYMLINK_HOPS:
                raise OutsideRootError(rel_s, "symlink loop", loop=True)
            target = os.readlink(candidate)
            if os.path.isabs(target):
                real_target = os.path.normpath(target)
                root_s = self._root_text
                if real_target != root_s and not real_target.startswith(root_s + os.sep):
                    raise OutsideRootError(rel_s, f"symlink to {target} outside the project")
                # Walk the target's components again from the root: any of them may
                # itself be a symlink.
                current = []
                inside = os.path.relpath(real_target, root_s)
                if inside != ".":
                    pending.extendleft((p, target) for p in reversed(inside.split(os.sep)))
            else:
                pending.extendleft((p, target) for p in reversed(target.split("/")))
        return self.root.joinpath(*current)

    def relative(self, path: Path) -> str:
        """*path* (inside the root) as a POSIX path relative to the root."""
        try:
            return PurePosixPath(path.relative_to(self.root)).as_posix()
        except ValueError:
            return str(path)

    # -- queries ----------------------------------------------------------------------

    def lstat(self, rel: str) -> os.stat_result | None:
        """``stat`` of *rel* inside the root (after resolution), or None."""
        cache = _PASS.get()
        if cache is not None:
            key = (id(self), "stat", rel)
            if key in cache:
                return cache[key]  # type: ignore[no-any-return]
        try:
            result: os.stat_result | None = os.stat(self.resolve(rel))
        except (OutsideRootError, OSError):
            result = None
        if cache is not None:
            cache[key] = result
        return result

    def is_file(self, rel: str) -> bool:
        st = self.lstat(rel)
        return st is not None and stat.S_ISREG(st.st_mode)

    def is_dir(self, rel: str) -> bool:
        st = self.lstat(rel)
        return st is not None and stat.S_ISDIR(st.st_mode)

    def exists(self, rel: str) -> bool:
        return self.lstat(rel) is not None

    def refusal(self, rel: str) -> ReadResult | None:
        """Why *rel* is not followed -- it leaves the root or loops -- or None when it stays inside.

        The failed :class:`ReadResult` is the one a read of *rel* gives, so the reason reads
        the same wherever it is reported.
        """
        try:
            self.resolve(rel)
        except OutsideRootError as exc:
            return _refused(rel, exc)
        except OSError:
            return None
        return None

    def present(self, rel: str) -> bool:
        """Whether anything is at *rel*, as opposed to nothing at all.

        True for a file, a folder, a named pipe, an entry that cannot be stat'ed, and a
        path that is not followed (a symlink out of the project, a loop): a reader that
        looks for *rel* must report those, not skip them as absent.  A symlink to a missing
        target inside the project is absent, as the real system's ``Path.exists()`` says.
        """
        try:
            path = self.resolve(rel)
        except (OutsideRootError, OSError):
            return True
        try:
            os.lstat(path)  # resolved: inside the root, no symlink left to follow
        except (FileNotFoundError, NotADirectoryError):
            return False
        except OSError:
            return True
        return True

    def file_size(self, rel: str) -> int | None:
        st = self.lstat(rel)
        if st is None or not stat.S_ISREG(st.st_mode):
            return None
        return st.st_size

    def list_dir(self, rel: str) -> list[str]:
        """Sorted entry names of a folder inside the root ([] when it is not one).

        Within a pass (:func:`one_pass`) each folder is listed once, as paths are resolved
        and stat'ed once: a pass sees one consistent project.  Each call gets its own list,
        so a caller that changes it cannot change what later calls see.
        """
        return list(self.once_per_pass("list_dir", rel, self._list_dir))

    def _list_dir(self, rel: str) -> list[str]:
        try:
            path = self.resolve(rel)
            reads = readlog.current()
            if reads is not None:
                reads.listed.add(self.relative(path) if path != self.root else "")
            return sorted(os.listdir(path))
        except (OutsideRootError, OSError):
            return []

    def walk_files(self, rel: str, suffix: str, limit: int = 20_000) -> list[str]:
        """Relative POSIX paths of files ending in *suffix* below *rel*, sorted.

        Symlinked folders are followed only when they stay inside the root, and each
        real folder is visited once, so link cycles cannot make this loop.  The result
        is cached until one of the visited folders changes (its mtime).
        """
        readlog.note_scan(readlog.Scan(rel.strip("/"), (suffix.lower(),)))
        key = (rel, suffix)
        cached = self._walks.get(key)
        if cached is not None and all(self._mtime(f) == m for f, m in cached[0]):
            return list(cached[1])
        visited: list[tuple[str, int]] = []
        out = self._walk(rel, suffix, limit, visited)
        with self._lock:
            self._walks[key] = (tuple(visited), out)
        return list(out)

    def _mtime(self, rel: str) -> int:
        st = self.lstat(rel)
        return -1 if st is None else st.st_mtime_ns

    def _walk(self, rel: str, suffix: str, limit: int, visited: list[tuple[str, int]]) -> list[str]:
        out: list[str] = []
        seen: set[tuple[int, int]] = set()
        stack = [rel.rstrip("/")]
        while stack and len(out) < limit:
            folder = stack.pop()
            try:
                real = self.resolve(folder)
                st = os.stat(real)
            except (OutsideRootError, OSError):
                visited.append((folder, -1))
                continue
            visited.append((folder, st.st_mtime_ns))
            key = (st.st_dev, st.st_ino)
            if key in seen or not stat.S_ISDIR(st.st_mode):
                continue
            seen.add(key)
            for name in self.list_dir(folder):
                child = f"{folder}/{name}" if folder else name
                child_st = self.lstat(child)
                if child_st is None:
                    continue
                if stat.S_ISDIR(child_st.st_mode):
                    stack.append(child)
                elif stat.S_ISREG(child_st.st_mode) and name.endswith(suffix):
                    out.append(child)
        return sorted(out)

    # -- reading ----------------------------------------------------------------------

    def read_bytes(self, rel: str) -> tuple[bytes | None, ReadResult | None]:
        """The bytes of *rel*, or a failed :class:`ReadResult` saying why not."""
        try:
            path = self.resolve(rel)
        except OutsideRootError as exc:
            return None, _refused(rel, exc)
        except OSError as exc:  # a symlink replaced while it was being followed
            return None, ReadResult(rel, None, Problem.OS_ERROR, f"cannot be read ({exc.strerror})")
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            return None, ReadResult(rel, None, Problem.MISSING, "does not exist")
        except IsADirectoryError:
            return None, ReadResult(rel, None, Problem.NOT_A_FILE, "is a folder, not a file")
        except OSError as exc:
            return None, ReadResult(rel, None, Problem.OS_ERROR, f"cannot be read ({exc.strerror})")
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return None, ReadResult(rel, None, Problem.NOT_A_FILE, "is not a regular file")
            if st.st_size > self.max_file_bytes:
                return None, ReadResult(
                    rel,
                    None,
                    Problem.TOO_LARGE,
                    f"not read: {st.st_size:,} bytes is over the {self.max_file_bytes:,}-byte limit",
                )
            chunks: list[bytes] = []
            total = 0
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                total += len(chunk)
                if total > self.max_file_bytes:
                    return None, ReadResult(
                        rel, None, Problem.TOO_LARGE, "not read: grew over the size limit while reading"
                    )
                chunks.append(chunk)
            return b"".join(chunks), None
        except OSError as exc:
            return None, ReadResult(rel, None, Problem.OS_ERROR, f"cannot be read ({exc.strerror})")
        finally:
            os.close(fd)

    def read_text(self, rel: str) -> ReadResult:
        """Read *rel* as the reproduced pipeline would: strict UTF-8, universal newlines.

        Successful reads are cached and reused while the file's inode, size and mtime
        are unchanged; within a pass (:func:`one_pass`) a file that was not there stays so.
        """
        st = self.lstat(rel)
        if st is None:
            # Not there (or refused) when first asked in a pass: why is worked out once for the
            # pass too (a session's memory files are looked for in every task's folders).
            return self.once_per_pass("unread", rel, self._read_text)
        sig = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        cached = self._texts.get(rel)
        if cached is not None and cached[0] == sig:
            return cached[1]
        result = self._read_text(rel)
        if result.ok:
            with self._lock:
                self._texts[rel] = (sig, result)
        return result

    def _read_text(self, rel: str) -> ReadResult:
        data, failed = self.read_bytes(rel)
        if failed is not None:
            return failed
        assert data is not None
        try:
            text = decode_text(data)
        except UnicodeDecodeError as exc:
            line, detail = utf8_error_line(data, exc)
            return ReadResult(rel, None, Problem.NOT_UTF8, detail, line=line)
        return ReadResult(rel, text, has_nul="\x00" in text)


def _refused(rel: str, exc: OutsideRootError) -> ReadResult:
    return ReadResult(rel, None, Problem.LOOP if exc.loop else Problem.OUTSIDE, f"not read: {exc.why}")


def _has_drive(path: str) -> bool:
    return len(path) > 1 and path[1] == ":" and path[0].isalpha()

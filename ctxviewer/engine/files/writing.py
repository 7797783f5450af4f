"""The one way ctxviewer writes files: atomically, never losing the old file.

Every file ctxviewer writes goes through here (``tests/engine/files/test_safe_writes.py`` fails
on any other write in the package): :func:`atomic_write` stages a temporary file beside the
target and renames it over; :func:`atomic_write_all` writes several all or nothing;
:func:`atomic_write_stream` writes output too large to hold, parts of it from other processes;
:func:`scratch_folder` holds what ctxviewer unpacks for itself.  What each kind of target gets
(links, streams, ``.git``, read-only files): docs/security.md#writes-what-each-kind-of-target-gets.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TypeAlias

from ctxviewer.engine.errors import WriteError

#: ``(st_mtime_ns, st_size)`` of a file, as :func:`file_signature` gives it.
Signature = tuple[int, int]


def _read_umask() -> int:
    # os.umask can only be read by setting it; do that once, at import, before the GUI
    # starts worker threads (a thread creating a file meanwhile would get mode 0o666).
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_IMPORT_UMASK = _read_umask()


def _umask() -> int:
    """The process's umask, read without changing it where the platform allows."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return _IMPORT_UMASK


def file_signature(path: str | os.PathLike[str]) -> Signature | None:
    """``(mtime_ns, size)`` of *path* (a symlink's target), or None when it does not exist.

    Raises :class:`WriteError` when it cannot be told (no permission to look, a
    symlink loop): a file that cannot be checked is never treated as unchanged.
    """
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise WriteError(f"cannot tell whether it changed ({exc.strerror or exc})", os.fspath(path)) from None
    return st.st_mtime_ns, st.st_size


@dataclass(frozen=True, slots=True)
class PlannedWrite:
    """One file for :func:`atomic_write_all`: where, what, and the signature it was read with."""

    path: str | os.PathLike[str]
    data: str | bytes
    expect_unchanged: Signature | None = None
    check_unchanged: bool = False
    #: A file of the project: refused when it is a symlink or has other hard links.
    project_file: bool = False


def atomic_write(
    path: str | os.PathLike[str],
    data: str | bytes,
    *,
    expect_unchanged: Signature | None = None,
    check_unchanged: bool = False,
    project_file: bool = False,
) -> None:
    """Write *data* (``str`` as UTF-8) to *path* atomically; raises :class:`WriteError` saying why not.

    With *check_unchanged*, refuses unless the file's :func:`file_signature` is still
    *expect_unchanged* (None: it did not exist), checked before writing and again just before
    the rename.  A *project_file* is never written through a symlink or a hard link.
    """
    atomic_write_all([PlannedWrite(path, data, expect_unchanged, check_unchanged, project_file)])


@dataclass(frozen=True, slots=True)
class ScratchPart:
    """A finished piece of a streamed output, in a scratch folder (written by another process):
    :func:`atomic_write_stream` moves its bytes into the output, :func:`take_scratch_part` hands
    them out, and either removes the file."""

    path: Path


class ScratchWriteError(WriteError):
    """A part could not be written to its scratch folder (the disk is full, say): whoever moves
    the parts into an output reports it as that output's failure."""


#: What a streamed output is made of: text, bytes, or a part another process wrote.
Chunk: TypeAlias = "str | bytes | ScratchPart"
#: A producer of chunks that needs a scratch folder for its parts (it is given one).
Producer: TypeAlias = Callable[[Path], Iterable[Chunk]]


def atomic_write_stream(
    path: str | os.PathLike[str], chunks: Iterable[Chunk] | Producer, *, project_file: bool = False
) -> None:
    """Write *chunks* to *path* as they are produced, made visible atomically at the end.

    For output too large to hold (a batch's JSON lines): each chunk goes to the staged
    file as soon as it comes, and only the rename makes the file appear or replace the old
    one.  An error of the disk raises :class:`WriteError`; an error of the producer (the
    iterable raising) leaves the old file as it was and is raised as it is.

    *chunks* may instead be a producer: it is called with a new private scratch folder beside
    the staged file (the same file system, so its parts are copied without passing through
    this process), and is closed -- its workers stopped -- before that folder is removed.
    """
    step = _prepare(PlannedWrite(path, b"", project_file=project_file))
    _check_unchanged(step)
    folder = step.target.parent if str(step.target.parent) else Path(".")
    try:
        fd, name = tempfile.mkstemp(prefix=f".{step.target.name[:64]}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise _failure(step, exc, [step], []) from None
    step.tmp = name
    scratch: str | None = None
    produced: Iterable[Chunk] = ()
    try:
        with os.fdopen(fd, "wb") as handle:
            if callable(chunks):
                try:
                    scratch = tempfile.mkdtemp(prefix=f".{step.target.name[:64]}.", suffix=".parts", dir=folder)
                except OSError as exc:
                    raise _failure(step, exc, [step], []) from None
                produced = chunks(Path(scratch))
            else:
                produced = chunks
            written = 0  # how much of the staged file is on its way to the disk
            try:
                for chunk in produced:
                    try:
                        if isinstance(chunk, ScratchPart):
                            _append_part(handle, chunk)
                        else:
                            handle.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
                        if handle.tell() - written >= WRITEBACK_BYTES:
                            handle.flush()
                            written = _start_writeback(handle.fileno(), written, handle.tell())
                    except OSError as exc:
                        raise _failure(step, exc, [step], []) from None
            except ScratchWriteError as exc:  # a worker's disk error is this output's
                raise WriteError(
                    exc.message + ("; the old file is intact" if step.existed else ""), step.shown
                ) from None
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(OSError):
            os.chmod(name, _mode_for(step.target, step.existed))
        _check_unchanged(step)
        os.replace(name, step.target)
        step.tmp = None
        _fsync_folder(step.target.parent)
    except OSError as exc:
        raise _failure(step, exc, [step], []) from None
    finally:
        close = getattr(produced, "close", None)
        if close is not None:  # a generator left early: its workers stop before their folder goes
            close()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        if step.tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(step.tmp)


#: A streamed file this much longer than what was last sent to the disk is sent on (see below).
WRITEBACK_BYTES = 32 << 20


def _start_writeback(fd: int, start: int, end: int) -> int:
    """Have the kernel start writing bytes *start* to *end* of *fd* to the disk, without waiting;
    returns *end*.  The fsync before the rename then has little left to wait for: a batch's
    hundreds of megabytes go out while the rest is still being assembled, not after.  (Linux
    starts writeback of dirty pages on ``POSIX_FADV_DONTNEED``; elsewhere it is only advice.)"""
    advise = getattr(os, "posix_fadvise", None)
    if advise is not None:
        with contextlib.suppress(OSError):
            advise(fd, start, end - start, os.POSIX_FADV_DONTNEED)
    return end


#: Errors of ``os.copy_file_range`` that mean "not here": the bytes are copied the plain way.
_NO_KERNEL_COPY = {errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EBADF, errno.EPERM}


def _append_part(handle: BinaryIO, part: ScratchPart) -> None:
    """Copy *part* to the end of *handle*, in the kernel where it can, then remove the part."""
    handle.flush()
    with open(part.path, "rb") as source:
        copy_range = getattr(os, "copy_file_range", None)
        done = False
        while copy_range is not None and not done:
            try:
                done = copy_range(source.fileno(), handle.fileno(), 1 << 30) == 0
            except OSError as exc:
                if exc.errno not in _NO_KERNEL_COPY:
                    raise
                copy_range = None
        if not done:  # the rest, through this process
            source.seek(os.lseek(source.fileno(), 0, os.SEEK_CUR))
            shutil.copyfileobj(source, handle, 1 << 20)
            handle.flush()
    handle.seek(0, os.SEEK_END)  # the buffered writer's idea of where it is
    with contextlib.suppress(OSError):
        os.unlink(part.path)


def take_scratch_part(part: ScratchPart, block: int = 1 << 20) -> Iterator[bytes]:
    """The bytes of *part* in blocks of *block*; the part is removed once they are all given."""
    with open(part.path, "rb") as source:
        while data := source.read(block):
            yield data
    with contextlib.suppress(OSError):
        os.unlink(part.path)


@dataclass(slots=True)
class _Step:
    planned: PlannedWrite
    shown: str  # the path as the caller gave it, for messages
    target: Path  # where the data goes (a symlink resolved)
    payload: bytes
    existed: bool
    tmp: str | None = None  # the staged new content, until it is renamed
    backup: str | None = None  # a copy of the old file, to put back if a later step fails
    keep_backup: bool = False  # the backup could not be put back: it is the old file now
    committed: bool = False  # renamed over the target
    done: Signature | None = None  # the target's signature right after the rename


def atomic_write_all(writes: Sequence[PlannedWrite]) -> None:
    """Write every file of *writes* atomically, in order, all or nothing.

    Raises :class:`WriteError` naming the file that failed (or was refused); the files
    renamed before it are put back as they were.  ``KeyboardInterrupt`` and other
    ``BaseException`` are undone the same way and re-raised as they are.
    """
    steps = [_prepare(w) for w in writes]
    seen: set[str] = set()
    for step in steps:
        key = os.path.normcase(os.path.abspath(step.target))
        if key in seen:
            raise WriteError("is written twice by one save; nothing written", step.shown)
        seen.add(key)
    if not steps:
        return
    current = steps[0]
    try:
        for step in steps:  # refuse before writing anything
            current = step
            _check_unchanged(step)
        for step in steps:  # everything that can run out of space happens before any rename
            current = step
            step.tmp = _stage(step.target, step.payload, _mode_for(step.target, step.existed))
        for step in steps[:-1]:  # the last rename needs no way back
            if step.existed:
                current = step
                step.backup = _stage(step.target, _read_old(step.target), _mode_for(step.target, True), ".bak")
        for step in steps:
            current = step
            _check_unchanged(step)
            assert step.tmp is not None
            os.replace(step.tmp, step.target)
            step.tmp, step.committed = None, True
            step.done = file_signature(step.target)
        for folder in dict.fromkeys(s.target.parent for s in steps):
            _fsync_folder(folder)
    except BaseException as exc:
        kept = _undo(steps)
        if not isinstance(exc, Exception):
            raise
        raise _failure(current, exc, steps, kept) from None
    finally:
        for step in steps:
            for name in (step.tmp, None if step.keep_backup else step.backup):
                if name is not None:
                    with contextlib.suppress(OSError):
                        os.unlink(name)


GIT_FOLDER = ".git"


def _in_git_folder(path: str | os.PathLike[str]) -> bool:
    """Whether *path* (made absolute) has a ``.git`` component (case folded, for case-blind disks)."""
    return any(part.casefold() == GIT_FOLDER for part in Path(os.path.abspath(path)).parts)


@dataclass(frozen=True, slots=True)
class OtherNames:
    """A path that is more than one file's name: a symlink, or a file with other hard links."""

    symlink: bool
    #: ``(to T)`` for a symlink whose target could be read; ``N names (hard links)`` otherwise.
    detail: str

    def words(self) -> str:
        """``is a symlink (to T)`` / ``has N names (hard links)``."""
        return f"is a symlink{self.detail}" if self.symlink else f"has {self.detail}"


def other_names(path: str | os.PathLike[str]) -> OtherNames | None:
    """Whether writing a project file at *path* would change a file elsewhere, and how.

    None when *path* is a plain file or folder, or does not exist.  Raises ``OSError``
    when it cannot be checked.  Callers word what they refuse and why.
    """
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISLNK(st.st_mode):
        try:
            return OtherNames(True, f" (to {os.readlink(path)})")
        except OSError:
            return OtherNames(True, "")
    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        return OtherNames(False, f"{st.st_nlink} names (hard links)")
    return None


def _link_refusal(path: Path) -> str | None:
    """Why a project file at *path* is not written (a symlink, other hard links), or None."""
    try:
        what = other_names(path)
    except OSError as exc:
        return f"could not be checked ({exc.strerror or exc}); not written"
    if what is None:
        return None
    if what.symlink:
        return f"{what.words()}; a project file is never written through a link; not written"
    return f"{what.words()}; a project file with other names is never written; not written"


_STREAMS = {"/dev/stdin": "standard input", "/dev/stdout": "standard output", "/dev/stderr": "standard error"}
_FD_NAMES = {0: "standard input", 1: "standard output", 2: "standard error"}


def _stream_name(path: str) -> str | None:
    """What stream *path* names (``/dev/stdout``, ``/dev/fd/1``, ``/proc/self/fd/1``), or None."""
    absolute = os.path.abspath(path)
    if absolute in _STREAMS:
        return _STREAMS[absolute]
    parts = Path(absolute).parts
    fd = None
    if len(parts) == 4 and parts[:3] == ("/", "dev", "fd"):
        fd = parts[3]
    elif len(parts) == 5 and parts[:2] == ("/", "proc") and parts[3] == "fd":
        fd = parts[4]
    if fd is None or not fd.isdigit():
        return None
    return _FD_NAMES.get(int(fd), f"file descriptor {int(fd)}")


def _prepare(planned: PlannedWrite) -> _Step:
    shown = os.fspath(planned.path)
    given = Path(shown)
    target = given
    stream = _stream_name(shown)
    if stream is not None:
        raise WriteError(
            f"is {stream}, a stream, not a file: ctxviewer writes files atomically (a new file renamed into "
            "place); give -o - or leave out -o to write to standard output",
            shown,
        )
    if _in_git_folder(given):
        raise WriteError("is inside a .git folder; ctxviewer never writes there", shown)
    if planned.project_file:
        refusal = _link_refusal(given)
        if refusal is not None:
            raise WriteError(refusal, shown)
    if given.is_symlink():
        try:
            target = given.resolve(strict=True)
        except (OSError, RuntimeError):
            raise WriteError("is a symlink whose target is missing or loops; not written", shown) from None
        if _in_git_folder(target):
            raise WriteError(f"is a symlink into a .git folder ({target}); ctxviewer never writes there", shown)
    try:
        st = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        st = None
    except OSError as exc:
        raise WriteError(f"could not be written ({exc.strerror or exc})", shown) from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise WriteError("is a folder, not a file; nothing written", shown)
        if not stat.S_ISREG(st.st_mode):
            raise WriteError("is not a regular file (a device, pipe or socket); not written", shown)
        if not os.access(target, os.W_OK):
            raise WriteError("is read-only; not overwritten", shown)
    data = planned.data
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    return _Step(planned, shown, target, payload, existed=st is not None)


def _check_unchanged(step: _Step) -> None:
    planned = step.planned
    if planned.project_file:  # again just before the rename: a link may have been put there meanwhile
        refusal = _link_refusal(step.target)
        if refusal is not None:
            raise WriteError(refusal, step.shown)
    if planned.check_unchanged and file_signature(step.target) != planned.expect_unchanged:
        what = "created" if planned.expect_unchanged is None else "changed"
        raise WriteError(f"{what} on disk since it was read; not overwritten", step.shown)


def _mode_for(target: Path, existed: bool) -> int:
    if existed:
        with contextlib.suppress(OSError):
            return os.stat(target).st_mode & 0o7777
    return 0o666 & ~_umask()


def _stage(target: Path, payload: bytes, mode: int, kind: str = "") -> str:
    """A fsynced temporary file holding *payload* in *target*'s folder; returns its name."""
    folder = target.parent if str(target.parent) else Path(".")
    # A name of up to 255 bytes must leave room for the dots and mkstemp's random part.
    fd, name = tempfile.mkstemp(prefix=f".{target.name[:64]}.", suffix=f"{kind}.tmp", dir=folder)
    try:
        handle = os.fdopen(fd, "wb")
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    try:
        with handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(OSError):
            os.chmod(name, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    return name


def _read_old(target: Path) -> bytes:
    with open(target, "rb") as handle:
        return handle.read()


def _fsync_folder(folder: Path) -> None:
    """Make the renames durable; folders cannot be opened on every platform (Windows)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _undo(steps: list[_Step]) -> list[str]:
    """Put back the targets already renamed, newest first; returns what could not be."""
    kept: list[str] = []
    undone = False
    for step in reversed(steps):
        if not step.committed:
            continue
        try:
            if step.done is None or file_signature(step.target) != step.done:
                kept.append(f"{step.shown} changed again meanwhile and was left as it is")
            elif step.backup is not None:
                os.replace(step.backup, step.target)
                step.backup = None
            else:
                os.unlink(step.target)
            undone = True
        except (OSError, WriteError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            if step.backup is not None:
                step.keep_backup = True
                kept.append(f"{step.shown} could not be put back ({why}); its old content is in {step.backup}")
            else:
                kept.append(f"{step.shown} could not be removed ({why})")
    if undone:
        for folder in dict.fromkeys(s.target.parent for s in steps if s.committed):
            _fsync_folder(folder)
    return kept


def _failure(step: _Step, exc: Exception, steps: list[_Step], kept: list[str]) -> WriteError:
    """The one-line error for a failed (or refused) write of *step*."""
    if isinstance(exc, WriteError):
        message, path = exc.message, exc.path or step.shown
    elif isinstance(exc, OSError):
        message, path = f"could not be written ({exc.strerror or exc})", step.shown
    else:
        message, path = f"could not be written ({type(exc).__name__}: {exc})", step.shown
    if kept:
        message += f"; could not undo everything: {'; '.join(kept)}"
    elif len(steps) > 1:
        message += "; nothing was changed"
    elif step.existed and not isinstance(exc, WriteError):
        message += "; the old file is intact"
    return WriteError(message, path)


# -- scratch folders --------------------------------------------------------------------------


@contextlib.contextmanager
def scratch_folder(prefix: str = "ctxviewer-", name: str = "") -> Iterator[Path]:
    """A new private temporary folder (mode 0700), removed with its contents on leaving the block;
    with *name*, a folder of that name made inside it (a project folder keeps its own name)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as top:
        folder = Path(top).resolve()
        if name:
            if name in (".", "..") or "/" in name or os.sep in name or "\0" in name:
                raise WriteError("not a folder name", name)
            folder = folder / name
            os.mkdir(folder, 0o700)
        yield folder


def _scratch_target(folder: Path, rel: str) -> Path:
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\0" in rel:
        raise WriteError("not a relative path inside the scratch folder", rel)
    if any(p.casefold() == GIT_FOLDER for p in parts):
        raise WriteError("refused: inside a .git folder", rel)
    target = folder.joinpath(*parts)
    parent = target.parent
    # Every folder on the way must be a real folder of the scratch folder, not a link out of it.
    if os.path.realpath(parent) != str(parent):
        raise WriteError("refused: a folder on its path is a link", rel)
    return target


def write_scratch(folder: Path, rel: str, data: bytes, *, executable: bool = False, link: bool = False) -> None:
    """Create *rel* (``a/b.md``) in the scratch *folder* with *data*; with *link*, a symlink whose
    target is *data* instead.  The file must not exist yet; its folders are made as needed."""
    target = _scratch_target(folder, rel)
    cur = folder
    for part in target.relative_to(folder).parts[:-1]:
        cur = cur / part
        if not os.path.isdir(cur) or os.path.islink(cur):
            try:
                os.mkdir(cur, 0o700)
            except OSError as exc:
                raise WriteError(f"could not be written ({exc.strerror or exc})", rel) from None
    _scratch_target(folder, rel)  # the folders just made are real, not links
    try:
        if link:
            os.symlink(os.fsdecode(data), target)
            return
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(target, flags, 0o700 if executable else 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    except OSError as exc:
        raise WriteError(f"could not be written ({exc.strerror or exc})", rel) from None


def write_scratch_part(folder: Path, rel: str, chunks: Iterable[str | bytes]) -> ScratchPart:
    """Create *rel* in the scratch *folder* (new, never through a link) holding *chunks*, written as
    they come: one worker's piece of a streamed output.  A disk error raises
    :class:`ScratchWriteError`; an error of *chunks* is raised as it is."""
    target = _scratch_target(folder, rel)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(target, flags, 0o600)
    except OSError as exc:
        raise ScratchWriteError(f"could not be written ({exc.strerror or exc})", str(target)) from None
    with os.fdopen(fd, "wb", buffering=1 << 20) as handle:
        for chunk in chunks:
            try:
                handle.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
            except OSError as exc:
                raise ScratchWriteError(f"could not be written ({exc.strerror or exc})", str(target)) from None
        try:
            handle.flush()
        except OSError as exc:
            raise ScratchWriteError(f"could not be written ({exc.strerror or exc})", str(target)) from None
    return ScratchPart(target)


def append_whole(path: str | os.PathLike[str], text: str) -> None:
    """Add *text* (UTF-8) to the end of *path* (made if missing) in one append, so what other
    writers append to the same file (GitHub's job summary) is never interleaved with it; a
    symlink, a folder or a file that cannot be opened for appending is refused with
    :class:`WriteError`.  The one write that is not atomic: it only adds after what is there."""
    data = text.encode("utf-8")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o666)
    except OSError as exc:
        raise WriteError(f"cannot append to it ({exc.strerror or exc})", os.fspath(path)) from None
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as exc:
        raise WriteError(f"cannot append to it ({exc.strerror or exc})", os.fspath(path)) from None
    finally:
        os.close(fd)

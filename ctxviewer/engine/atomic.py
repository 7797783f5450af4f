"""The one way ctxviewer writes files: atomically, never losing the old file.

:func:`atomic_write` writes to a temporary file in the same folder, flushes and
fsyncs it, then renames it over the target, so a reader sees either the old file or
the new one, never half of either.  On any failure the temporary file is removed
and the old file is left exactly as it was.  With *expect_unchanged* (the mtime and
size read earlier) it refuses to overwrite a file that changed on disk since.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from ctxviewer.engine.errors import WriteError


def file_signature(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """(mtime_ns, size) of *path*, or None when it does not exist."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_mtime_ns, st.st_size


def atomic_write(
    path: str | os.PathLike[str],
    data: str | bytes,
    *,
    expect_unchanged: tuple[int, int] | None = None,
    check_unchanged: bool = False,
) -> None:
    """Write *data* to *path* atomically; raises :class:`WriteError` saying why not."""
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if check_unchanged and file_signature(target) != expect_unchanged:
        raise WriteError("changed on disk since it was read; not overwritten", str(target))
    folder = target.parent if str(target.parent) else Path(".")
    tmp_name: str | None = None
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(OSError):
            if target.exists():
                os.chmod(tmp_name, os.stat(target).st_mode & 0o7777)
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp_name, 0o666 & ~umask)
        os.replace(tmp_name, target)
        tmp_name = None
        with contextlib.suppress(OSError):
            dir_fd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
    except OSError as exc:
        kept = "; the old file is intact" if target.exists() else ""
        raise WriteError(f"could not be written ({exc.strerror or exc}){kept}", str(target)) from None
    finally:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)

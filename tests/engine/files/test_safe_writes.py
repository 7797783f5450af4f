"""Safe writes: every file ctxviewer writes goes through ``ctxviewer.engine.files.writing``.

Rules under test:

* **one way to write** -- no module of the package but ``ctxviewer/engine/files/writing.py``
  calls a file-writing API (an AST scan of ``ctxviewer/**/*.py``; a handful of
  in-memory or scratch uses are listed below with their reasons);
* **atomic_write** -- a temporary file in the target's folder, fsynced, renamed with
  ``os.replace``, the folder fsynced; the old file's permissions kept (the umask's for a
  new one); on any failure, ``KeyboardInterrupt`` included, the old file is
  byte-identical and no temporary file is left; a symlink the user named is written
  through (its target gets the data, the link stays), a broken or looping link, a folder,
  a pipe and a read-only file are refused (project files -- splits, ``ctxviewer.yaml`` --
  are never written through links and nothing is written into ``.git``: the cases are in
  ``tests/engine/test_hostile_corpus.py``);
* **command splits** are all or nothing: the ``.core.md`` and ``.details.md`` files are
  written first and the command file last; a failure at any step leaves all three as
  they were; a file changed on disk since it was analyzed is not overwritten;
* **every writer** (report exports, ``ctxviewer ... -o``, ``ctxviewer split --apply``,
  ``ctxviewer.yaml``) keeps the old file when the write fails and says so in one line.
"""

from __future__ import annotations

import ast
import errno
import os
import stat
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.cli import main
from ctxviewer.engine.errors import WriteError
from ctxviewer.engine.exports.report import export, render
from ctxviewer.engine.files import writing as atomic
from ctxviewer.engine.files.writing import PlannedWrite, atomic_write, atomic_write_all, file_signature
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.project.splitter import CommandAnalysis, analyze_project, analyze_text, apply_split
from ctxviewer.engine.project.tuning import plan_save, save_ctxviewer_yaml
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.tokens.counting import Census
from tests.conftest import REPO
from tests.factories import make_project, write

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
ENOSPC = "No space left on device"


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# == 1. The static audit: no direct write outside atomic.py ===================================

#: Functions (by their module's name) that create, change or remove files.
WRITE_FUNCTIONS = {
    "os": {
        "replace",
        "rename",
        "renames",
        "link",
        "symlink",
        "truncate",
        "ftruncate",
        "write",
        "pwrite",
        "writev",
        "pwritev",
        "sendfile",
        "copy_file_range",
        "splice",
        "mkfifo",
        "mknod",
        "remove",
        "unlink",
        "rmdir",
        "removedirs",
        "mkdir",
        "makedirs",
        "chmod",
        "lchmod",
        "fchmod",
        "chown",
        "lchown",
        "fchown",
        "utime",
        "posix_fallocate",
        "system",
        "popen",
    },
    "shutil": {
        "copy",
        "copy2",
        "copyfile",
        "copyfileobj",
        "copymode",
        "copystat",
        "copytree",
        "move",
        "rmtree",
        "make_archive",
        "unpack_archive",
        "chown",
    },
    "tempfile": {
        "mkstemp",
        "mkdtemp",
        "mktemp",
        "NamedTemporaryFile",
        "TemporaryFile",
        "SpooledTemporaryFile",
        "TemporaryDirectory",
    },
    "json": {"dump"},
    "pickle": {"dump"},
    "marshal": {"dump"},
    "plistlib": {"dump"},
    "sqlite3": {"connect"},
    "shelve": {"open"},
    "dbm": {"open"},
    "logging": {"FileHandler", "basicConfig"},
    "logging.handlers": {"RotatingFileHandler", "TimedRotatingFileHandler", "WatchedFileHandler"},
}
#: Modules whose mere import means running programs that may write anything.
WRITE_MODULES = {"subprocess", "pty"}
#: Functions that open a file with a mode: (qualified name, index of the mode argument).
OPENERS = {
    "open": 1,
    "io.open": 1,
    "codecs.open": 1,
    "os.fdopen": 1,
    "gzip.open": 1,
    "bz2.open": 1,
    "lzma.open": 1,
    "tarfile.open": 1,
    "zipfile.ZipFile": 1,
}
#: Methods that write whatever their receiver is (pathlib.Path and friends).
WRITE_METHODS = {
    "write_text",
    "write_bytes",
    "touch",
    "symlink_to",
    "hardlink_to",
    "link_to",
    "mkdir",
    "rmdir",
    "unlink",
    "chmod",
    "lchmod",
    "mkpath",
    "removeRecursively",
}
#: Methods that write when given a destination (pandas, numpy, matplotlib).
WRITE_TO_METHODS = {"tofile", "to_csv", "to_json", "to_parquet", "savefig", "savetxt"}
#: Methods that write when given a destination: Path.rename/replace(target) take exactly
#: one argument (str.replace takes two), QImage/QPixmap.save(path) at least one
#: (QPainter.save() none), yaml/json .dump(obj, stream) two.
ONE_ARG_METHODS = {"rename", "replace"}
DUMP_METHODS = {"dump", "safe_dump", "dump_all", "safe_dump_all"}
#: Qt classes that write files.
QT_WRITERS = {
    "QFile",
    "QSaveFile",
    "QTemporaryFile",
    "QTemporaryDir",
    "QImageWriter",
    "QTextDocumentWriter",
    "QPdfWriter",
    "QLockFile",
}
QT_WRITE_MODES = {"WriteOnly", "ReadWrite", "Append", "Truncate", "NewOnly"}
OS_WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC", "O_EXCL", "O_TMPFILE"}
WRITE_MODE_CHARS = set("wax+")
EVERY_WRITE_NAME = (
    set().union(*WRITE_FUNCTIONS.values()) | WRITE_METHODS | ONE_ARG_METHODS | QT_WRITERS | OS_WRITE_FLAGS
) - {"open", "write", "connect", "copy", "move"}


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """``a.b.c`` of a name or attribute chain, its first name resolved through the imports."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, aliases)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _is_write_mode(node: ast.AST | None) -> bool | None:
    """True/False for a constant mode string, None when it is not a constant."""
    if node is None:
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return bool(WRITE_MODE_CHARS & set(node.value))
    return None


def direct_writes(source: str, filename: str = "<snippet>") -> list[tuple[int, str]]:
    """Every place in *source* that writes a file directly: (line, what), what as written."""
    tree = ast.parse(source, filename)
    aliases: dict[str, str] = {}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                aliases[alias.asname or top] = alias.name if alias.asname else top
                if alias.name.split(".")[0] in WRITE_MODULES:
                    found.append((node.lineno, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                if node.module.split(".")[0] in WRITE_MODULES:
                    found.append((node.lineno, f"from {node.module} import {alias.name}"))
    # Opening the null device (to discard output) writes no file.
    null_device = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and node.args and _dotted(node.args[0], aliases) == "os.devnull"
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Call):
            func = node.func
            name = _dotted(func, aliases)
            shown = ast.unparse(func)
            if id(node) in null_device:
                continue
            if name is not None:
                module, _, attr = name.rpartition(".")
                if attr in WRITE_FUNCTIONS.get(module, ()):
                    found.append((line, f"{shown}()"))
                    continue
                if name in OPENERS:
                    index = OPENERS[name]
                    mode = node.args[index] if len(node.args) > index else None
                    mode = next((k.value for k in node.keywords if k.arg == "mode"), mode)
                    if _is_write_mode(mode) is not False:
                        found.append((line, f"{shown}() for writing"))
                    continue
                if name.rsplit(".", 1)[-1] in QT_WRITERS:
                    continue  # reported below as a reference to the class
            if isinstance(func, ast.Attribute):
                method, args = func.attr, node.args
                keywords = {k.arg for k in node.keywords}
                if (
                    method in WRITE_METHODS
                    or (method in WRITE_TO_METHODS and (args or keywords))
                    or (method in ONE_ARG_METHODS and len(args) == 1 and not keywords)
                ):
                    found.append((line, f".{method}()"))
                elif method == "save" and (args or keywords):
                    found.append((line, ".save()"))
                elif method in DUMP_METHODS and (len(args) >= 2 or keywords & {"stream", "fp", "file"}):
                    found.append((line, f".{method}() to a stream"))
                elif method == "open" and name not in OPENERS:
                    first = args[0] if args else None
                    mode = next((k.value for k in node.keywords if k.arg == "mode"), first)
                    if _is_write_mode(mode):
                        found.append((line, ".open() for writing"))
            if (
                isinstance(func, ast.Name)
                and func.id == "getattr"
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in EVERY_WRITE_NAME
            ):
                found.append((line, f"getattr(..., {node.args[1].value!r})"))
        elif isinstance(node, ast.Name | ast.Attribute):
            leaf = node.id if isinstance(node, ast.Name) else node.attr
            dotted = _dotted(node, aliases) or ""
            if leaf in QT_WRITERS:
                found.append((line, leaf))
            elif (leaf in QT_WRITE_MODES and ("OpenModeFlag" in dotted or "QIODevice" in dotted)) or (
                leaf in OS_WRITE_FLAGS and dotted == f"os.{leaf}" and id(node) not in null_device
            ):
                found.append((line, ast.unparse(node)))
    found.sort()
    return found


PACKAGE = REPO / "ctxviewer"
#: The one module allowed to write.
ATOMIC = "ctxviewer/engine/files/writing.py"
#: Direct writes the scan finds on purpose, with how many times each may occur.
ALLOWED: dict[tuple[str, str], tuple[int, str]] = {
    ("ctxviewer/gui/app.py", ".save()"): (
        1,
        "QImage.save into an in-memory QBuffer; atomic_write writes the PNG bytes",
    ),
    ("ctxviewer/gui/app.py", "QIODevice.OpenModeFlag.WriteOnly"): (1, "opens that in-memory QBuffer"),
    ("ctxviewer/gui/app.py", "tempfile.TemporaryDirectory()"): (
        1,
        "screenshot mode's scratch folder for a throwaway QSettings file; nothing of the user's",
    ),
    ("ctxviewer/engine/files/git.py", "import subprocess"): (
        1,
        "runs git's read-only plumbing (rev-parse, ls-tree, cat-file, diff, log) with no hook, filter or "
        "external diff; the files it reads out go through writing.write_scratch (tests/engine/files/test_git.py)",
    ),
    ("ctxviewer/gui/widgets/heatmap.py", ".save()"): (
        1,
        "the sweep heatmap's QImage.save into an in-memory QBuffer; the view writes the bytes with atomic_write",
    ),
    ("ctxviewer/gui/widgets/heatmap.py", "QIODevice.OpenModeFlag.WriteOnly"): (
        2,
        "opens the in-memory QBuffers the heatmap's PNG and SVG are encoded into",
    ),
    ("ctxviewer/engine/profiles/zerg/newer_python.py", "import subprocess"): (
        1,
        "runs a Python >= 3.12 on the project's sources as text (ast.parse only, isolated, in an empty "
        "scratch folder); it reads JSON back and writes no file (tests/engine/profiles/zerg/test_newer_python.py)",
    ),
    ("ctxviewer/engine/profiles/zerg/pysymbols.py", "json.dump()"): (
        2,
        "the child script's answer, written to its stdout for newer_python to read; no file",
    ),
    ("ctxviewer/engine/upstream/verify.py", "import subprocess"): (
        1,
        "runs the user's upstream plugin (verify_driver.py) with its token records off; the project is "
        "not written (tests/cli/test_verify.py checks)",
    ),
}


def package_writes() -> Counter[tuple[str, str]]:
    counts: Counter[tuple[str, str]] = Counter()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel == ATOMIC:
            continue
        for _line, what in direct_writes(path.read_text(encoding="utf-8"), rel):
            counts[(rel, what)] += 1
    return counts


def test_the_package_writes_files_only_through_atomic_write() -> None:
    found = package_writes()
    allowed = Counter({key: count for key, (count, _why) in ALLOWED.items()})
    unexpected = {k: n for k, n in found.items() if n > allowed.get(k, 0)}
    assert not unexpected, (
        "write files with ctxviewer.engine.files.writing.atomic_write (or atomic_write_all), "
        f"not directly: {unexpected}"
    )
    # A stale allowance would let a new direct write slip in unnoticed: drop it instead.
    assert found == allowed


def test_every_writer_of_the_package_uses_the_helper() -> None:
    # The writers the issue names, each calling atomic_write / atomic_write_all.
    writers = {
        "ctxviewer/engine/exports/report.py": "atomic_write",
        "ctxviewer/engine/project/tuning.py": "atomic_write",
        "ctxviewer/engine/project/splitter.py": "atomic_write_all",
        "ctxviewer/cli/common.py": "atomic_write",
        "ctxviewer/gui/app.py": "atomic_write",
    }
    for rel, helper in writers.items():
        tree = ast.parse((REPO / rel).read_text(encoding="utf-8"))
        calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert helper in calls, rel


@pytest.mark.parametrize(
    ("snippet", "what"),
    [
        ("open(p, 'w')", "open() for writing"),
        ("open(p, mode='a', encoding='utf-8')", "open() for writing"),
        ("open(p, 'r+b')", "open() for writing"),
        ("open(p, m)", "open() for writing"),  # a mode that cannot be read is not trusted
        ("import io\nio.open(p, 'xb')", "io.open() for writing"),
        ("import os\nos.fdopen(fd, 'wb')", "os.fdopen() for writing"),
        ("Path(p).open('w')", ".open() for writing"),
        ("Path(p).write_text('x')", ".write_text()"),
        ("p.write_bytes(b'x')", ".write_bytes()"),
        ("p.touch()", ".touch()"),
        ("p.unlink()", ".unlink()"),
        ("Path(a).rename(b)", ".rename()"),
        ("Path(a).replace(b)", ".replace()"),
        ("import os\nos.replace(a, b)", "os.replace()"),
        ("import os as o\no.rename(a, b)", "o.rename()"),
        ("from os import replace as r\nr(a, b)", "r()"),
        ("import os\nos.remove(p)", "os.remove()"),
        ("import os\nfd = os.open(p, os.O_WRONLY | os.O_CREAT)", "os.O_CREAT"),
        ("import os\nflags = getattr(os, 'O_TRUNC', 0)", "getattr(..., 'O_TRUNC')"),
        ("import shutil\nshutil.copyfile(a, b)", "shutil.copyfile()"),
        ("import tempfile\ntempfile.NamedTemporaryFile()", "tempfile.NamedTemporaryFile()"),
        ("import json\njson.dump(data, handle)", "json.dump()"),
        ("import yaml\nyaml.safe_dump(data, handle)", ".safe_dump() to a stream"),
        ("import yaml\nyaml.dump(data, stream=handle)", ".dump() to a stream"),
        ("from PySide6.QtCore import QSaveFile\nf = QSaveFile(p)", "QSaveFile"),
        ("from PySide6.QtCore import QFile\nQFile.remove(p)", "QFile"),
        ("image.save('/tmp/x.png')", ".save()"),
        ("frame.to_csv('out.csv')", ".to_csv()"),
        ("pixmap.save(p, 'PNG')", ".save()"),
        ("buf.open(QIODevice.OpenModeFlag.ReadWrite)", "QIODevice.OpenModeFlag.ReadWrite"),
        ("import subprocess\nsubprocess.run(['cp', a, b])", "import subprocess"),
    ],
)
def test_the_audit_catches_a_direct_write(snippet: str, what: str) -> None:
    # The scan must be able to fail: each snippet is a direct write it has to report.
    assert what in [w for _line, w in direct_writes(snippet)]


def test_the_audit_fails_for_a_module_that_writes_directly(tmp_path: Path) -> None:
    # The whole check, on a package with one well-behaved and one offending module.
    good = "from ctxviewer.engine.files.writing import atomic_write\n\ndef save(p, t):\n    atomic_write(p, t)\n"
    bad = "from pathlib import Path\n\ndef save(p, t):\n    Path(p).write_text(t)\n"
    assert direct_writes(good) == []
    assert direct_writes(bad) == [(4, ".write_text()")]


def test_the_audit_leaves_reading_and_look_alikes_alone() -> None:
    snippet = (
        "import os, yaml, json\n"
        "with open(p) as f: pass\n"
        "with open(p, 'rb') as f: pass\n"
        "with open(p, encoding='utf-8') as f: pass\n"
        "Path(p).open()\n"
        "Path(p).open('r')\n"
        "fd = os.open(p, os.O_RDONLY | getattr(os, 'O_NONBLOCK', 0))\n"
        "os.fdopen(fd, 'rb')\n"
        "s = text.replace('a', 'b')\n"
        "d = dataclasses.replace(x, y=1)\n"
        "t = moment.replace(tzinfo=UTC)\n"
        "painter.save()\n"
        "yaml.safe_dump(data, sort_keys=False)\n"
        "json.dumps(data)\n"
        "sys.stdout.write(text)\n"
        "payload = value.to_json()\n"
        "fd = os.open(os.devnull, os.O_WRONLY)\n"
        "with open(os.devnull, 'w') as sink: pass\n"
        "from PySide6.QtCore import QSettings, QFileSystemWatcher\n"
        "from PySide6.QtWidgets import QFileDialog\n"
    )
    assert direct_writes(snippet) == []


# == 2. atomic_write itself ======================================================================


def _raise_enospc(*args: Any, **kwargs: Any) -> Any:
    raise OSError(errno.ENOSPC, ENOSPC)


def test_the_temporary_file_is_in_the_target_folder_and_renamed_over_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.md"
    target.write_text("old")
    renames: list[tuple[str, str]] = []
    real_replace = os.replace

    def spy(src: str, dst: str) -> None:
        renames.append((os.fspath(src), os.fspath(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    atomic_write(target, "new")
    monkeypatch.undo()
    ((src, dst),) = renames
    assert Path(src).parent == tmp_path and dst == str(target)
    assert Path(src).name.startswith(".f.md.") and src.endswith(".tmp")
    assert target.read_text() == "new" and names(tmp_path) == ["f.md"]


def test_the_file_and_then_its_folder_are_fsynced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def spy(fd: int) -> None:
        st = os.fstat(fd)
        synced.append("folder" if stat.S_ISDIR(st.st_mode) else f"file of {st.st_size} bytes")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    atomic_write(tmp_path / "f.md", "12345")
    monkeypatch.undo()
    assert synced == ["file of 5 bytes", "folder"]


def test_a_failing_folder_fsync_does_not_fail_a_write_that_is_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The folder sync is best effort (not every platform can open a folder); the rename
    # has happened, so reporting a failure would be wrong.
    real_fsync = os.fsync

    def fail_on_folders(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "Invalid argument")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fail_on_folders)
    atomic_write(tmp_path / "f.md", "new")
    monkeypatch.undo()
    assert (tmp_path / "f.md").read_text() == "new"


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the umask from /proc")
def test_a_new_file_gets_the_umask_permissions(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        atomic_write(tmp_path / "f.md", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "f.md").stat().st_mode & 0o777 == 0o640  # 0o666 & ~0o027


def test_a_replaced_file_keeps_an_unusual_mode(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_text("old")
    target.chmod(0o751)
    atomic_write(target, "new")
    assert target.stat().st_mode & 0o777 == 0o751


@pytest.mark.parametrize("failing", ["replace", "fsync", "fdopen"])
def test_keyboard_interrupt_keeps_the_old_file_and_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    target = tmp_path / "f.md"
    target.write_bytes(b"old\r\n")

    def interrupt(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, failing, interrupt)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, "new")
    monkeypatch.undo()
    assert target.read_bytes() == b"old\r\n"
    assert names(tmp_path) == ["f.md"]


def test_a_failure_while_creating_the_temporary_file_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a read-only folder does (root ignores folder permissions, so it is simulated).
    target = tmp_path / "f.md"
    target.write_text("old")

    def denied(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(WriteError) as info:
        atomic_write(target, "new")
    monkeypatch.undo()
    assert str(info.value) == f"{target}: could not be written (Permission denied); the old file is intact"
    assert target.read_text() == "old" and names(tmp_path) == ["f.md"]


@pytest.mark.skipif(IS_ROOT or os.name != "posix", reason="root may write into a read-only folder")
def test_a_read_only_folder_is_a_write_error(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "f.md").write_text("old")
    folder.chmod(0o555)
    try:
        with pytest.raises(WriteError, match="Permission denied"):
            atomic_write(folder / "f.md", "new")
    finally:
        folder.chmod(0o755)
    assert (folder / "f.md").read_text() == "old" and names(folder) == ["f.md"]


def test_a_read_only_file_is_not_overwritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "f.md"
    target.write_text("old")
    target.chmod(0o444)
    if IS_ROOT:  # root may write anything; what os.access says for anyone else:
        monkeypatch.setattr(os, "access", lambda path, mode, **kw: mode != os.W_OK)
    with pytest.raises(WriteError) as info:
        atomic_write(target, "new")
    monkeypatch.undo()
    assert str(info.value) == f"{target}: is read-only; not overwritten"
    assert target.read_text() == "old" and names(tmp_path) == ["f.md"]


def test_a_folder_is_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / "out.md"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    with pytest.raises(WriteError) as info:
        atomic_write(target, "new")
    assert str(info.value) == f"{target}: is a folder, not a file; nothing written"
    assert names(tmp_path) == ["out.md"] and (target / "keep.txt").read_text() == "keep"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_is_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / "pipe"
    os.mkfifo(target)
    with pytest.raises(WriteError, match="not a regular file"):
        atomic_write(target, "new")
    assert stat.S_ISFIFO(os.lstat(target).st_mode) and names(tmp_path) == ["pipe"]


def test_a_symlink_is_written_through_and_kept(tmp_path: Path) -> None:
    # link.md -> real/target.md: the data lands in real/target.md, the link stays a link,
    # and the temporary file was made (and removed) next to the real file.
    real = tmp_path / "real"
    real.mkdir()
    (real / "target.md").write_text("old")
    (real / "target.md").chmod(0o640)
    link = tmp_path / "link.md"
    link.symlink_to(real / "target.md")
    atomic_write(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(real / "target.md")
    assert (real / "target.md").read_text() == "new"
    assert (real / "target.md").stat().st_mode & 0o777 == 0o640
    assert names(tmp_path) == ["link.md", "real"] and names(real) == ["target.md"]


def test_a_symlink_written_through_honours_check_unchanged(tmp_path: Path) -> None:
    (tmp_path / "target.md").write_text("read")
    link = tmp_path / "link.md"
    link.symlink_to("target.md")
    seen = file_signature(link)  # the target's signature (4 bytes)
    (tmp_path / "target.md").write_text("changed meanwhile")
    with pytest.raises(WriteError, match="changed on disk since it was read"):
        atomic_write(link, "mine", expect_unchanged=seen, check_unchanged=True)
    assert (tmp_path / "target.md").read_text() == "changed meanwhile" and link.is_symlink()


@pytest.mark.parametrize("kind", ["dangling", "loop"])
def test_a_broken_symlink_is_refused(tmp_path: Path, kind: str) -> None:
    link = tmp_path / "a.md"
    if kind == "dangling":
        link.symlink_to(tmp_path / "missing" / "x.md")
        expected = ["a.md"]
    else:
        link.symlink_to(tmp_path / "b.md")
        (tmp_path / "b.md").symlink_to(link)
        expected = ["a.md", "b.md"]
    with pytest.raises(WriteError) as info:
        atomic_write(link, "new")
    assert str(info.value) == f"{link}: is a symlink whose target is missing or loops; not written"
    assert names(tmp_path) == expected and link.is_symlink()


def test_a_file_that_cannot_be_checked_is_not_treated_as_unchanged(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(WriteError, match="cannot tell whether it changed"):
        file_signature(loop)


def test_a_long_name_still_leaves_room_for_the_temporary_name(tmp_path: Path) -> None:
    target = tmp_path / ("n" * 240 + ".md")  # 243 bytes: within NAME_MAX (255)
    atomic_write(target, "x")
    assert target.read_text() == "x" and names(tmp_path) == [target.name]


def test_one_call_may_not_write_a_file_twice(tmp_path: Path) -> None:
    target = tmp_path / "f.md"
    with pytest.raises(WriteError, match="written twice"):
        atomic_write_all([PlannedWrite(target, "a"), PlannedWrite(tmp_path / "." / "f.md", "b")])
    assert names(tmp_path) == []


# == 3. Command splits: all or nothing, never over a change ======================================

COMMANDS = ".claude/commands"
#: 300 lines of "y" without a final newline: no headers, so the split is at line 10.
ORIGINAL = "\n".join(["y"] * 300)
CORE = "y\n" * 10
DETAILS = (
    "<!-- SPLIT: details, parent: big.md -->\n"
    "# big \u2014 Detailed Reference\n\n"
    "This file contains extended examples, templates, and edge cases.\n"
    "Core instructions are in `big.core.md`.\n\n" + "\n".join(["y"] * 290) + "\n"
)
REWRITTEN = (
    "\n".join(["y"] * 10) + "\n\n<!-- SPLIT: core=big.core.md details=big.details.md -->\n"
    "<!-- For detailed examples and templates, see big.details.md -->\n\n"
)
OLD_CORE = b"old core, edited by hand\n"
OLD_DETAILS = b"old details\r\n"


def split_project(tmp_path: Path, resplit: bool = False) -> tuple[Path, dict[str, bytes]]:
    """A project with one splittable command file (and, for *resplit*, old split outputs)."""
    root = tmp_path / "proj"
    files = {"big.md": ORIGINAL.encode()}
    if resplit:
        files |= {"big.core.md": OLD_CORE, "big.details.md": OLD_DETAILS}
    for name, data in files.items():
        write(root, f"{COMMANDS}/{name}", data)
    (root / ".gsd" / "specs").mkdir(parents=True)  # a project: split refuses a folder that is not one
    return root, files


def folder_bytes(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / COMMANDS).iterdir())}


def analyzed(root: Path) -> tuple[Any, CommandAnalysis]:
    project = load_project(root)
    (analysis,) = analyze_project(project, exact=False)
    assert (analysis.eligible, analysis.split_line) == (True, 10)
    return project, analysis


def fail_on_call(
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    n: int,
    error: Callable[[], BaseException] = lambda: OSError(errno.ENOSPC, ENOSPC),
    persistent: bool = False,
) -> list[int]:
    """Make ``os.<name>`` raise on its *n*-th call (and every later one if *persistent*)."""
    real = getattr(os, name)
    calls = [0]

    def failing(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == n or (persistent and calls[0] > n):
            raise error()
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, failing)
    return calls


def fail_on_write(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    """Make the *n*-th write to a file opened with ``os.fdopen`` write one byte and fail."""
    real_fdopen = os.fdopen
    calls = [0]

    class Handle:
        def __init__(self, handle: Any) -> None:
            self.handle = handle

        def __enter__(self) -> Handle:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

        def write(self, data: bytes) -> int:
            calls[0] += 1
            if calls[0] == n:
                self.handle.write(data[:1])
                raise OSError(errno.ENOSPC, ENOSPC)
            return int(self.handle.write(data))

        def __getattr__(self, name: str) -> Any:
            return getattr(self.handle, name)

    monkeypatch.setattr(os, "fdopen", lambda fd, mode="r", *a, **k: Handle(real_fdopen(fd, mode, *a, **k)))


def test_a_split_writes_the_outputs_first_and_the_command_file_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = split_project(tmp_path)
    project, analysis = analyzed(root)
    order: list[str] = []
    real_replace = os.replace

    def spy(src: str, dst: str) -> None:
        order.append(Path(dst).name)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    assert apply_split(project, analysis) == [
        f"{COMMANDS}/big.core.md",
        f"{COMMANDS}/big.details.md",
        f"{COMMANDS}/big.md",
    ]
    monkeypatch.undo()
    assert order == ["big.core.md", "big.details.md", "big.md"]
    assert folder_bytes(root) == {
        "big.core.md": CORE.encode(),
        "big.details.md": DETAILS.encode("utf-8"),
        "big.md": REWRITTEN.encode(),
    }


# A fresh split stages three files (3 writes, 3 fsyncs), renames three (3 replaces), then
# syncs the folder (the 4th fsync, best effort).  A re-split over old outputs also copies
# the two old outputs aside first (writes and fsyncs 4 and 5) to put them back on a failure.
SPLIT_STEPS = [
    *((False, failing, n) for failing in ("replace", "fsync", "write") for n in (1, 2, 3)),
    *((True, "replace", n) for n in (1, 2, 3)),
    *((True, failing, n) for failing in ("fsync", "write") for n in (1, 2, 3, 4, 5)),
]


@pytest.mark.parametrize(
    ("resplit", "failing", "n"),
    SPLIT_STEPS,
    ids=[f"{'resplit' if r else 'fresh'}-{f}-{n}" for r, f, n in SPLIT_STEPS],
)
def test_a_failure_at_any_step_of_a_split_leaves_every_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, resplit: bool, failing: str, n: int
) -> None:
    root, before = split_project(tmp_path, resplit)
    project, analysis = analyzed(root)
    if failing == "write":
        fail_on_write(monkeypatch, n)
    else:
        fail_on_call(monkeypatch, failing, n)
    with pytest.raises(WriteError) as info:
        apply_split(project, analysis)
    monkeypatch.undo()
    assert folder_bytes(root) == before  # byte-identical, and no temporary file left
    assert f"({ENOSPC}); nothing was changed" in str(info.value)


@pytest.mark.parametrize("resplit", [False, True], ids=["fresh", "resplit"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_an_interrupted_split_leaves_every_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, resplit: bool, n: int
) -> None:
    root, before = split_project(tmp_path, resplit)
    project, analysis = analyzed(root)
    fail_on_call(monkeypatch, "replace", n, KeyboardInterrupt)
    with pytest.raises(KeyboardInterrupt):
        apply_split(project, analysis)
    monkeypatch.undo()
    assert folder_bytes(root) == before


def test_a_failing_folder_sync_after_the_renames_still_completes_the_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = split_project(tmp_path)
    project, analysis = analyzed(root)
    fail_on_call(monkeypatch, "fsync", 4)  # the folder's, after all three renames
    apply_split(project, analysis)
    monkeypatch.undo()
    assert folder_bytes(root)["big.md"] == REWRITTEN.encode()


def test_when_the_old_output_cannot_be_put_back_its_copy_is_kept_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Renames fail from the 2nd on: big.core.md is already new, big.details.md fails, and
    # putting the old big.core.md back (a rename too) fails as well.  The old content must
    # not be lost: its copy stays, and the message says where.
    root, _ = split_project(tmp_path, resplit=True)
    project, analysis = analyzed(root)
    fail_on_call(monkeypatch, "replace", 2, persistent=True)
    with pytest.raises(WriteError) as info:
        apply_split(project, analysis)
    monkeypatch.undo()
    after = folder_bytes(root)
    (kept,) = [name for name in after if name.startswith(".big.core.md.")]
    assert after == {
        kept: OLD_CORE,
        "big.core.md": CORE.encode(),
        "big.details.md": OLD_DETAILS,
        "big.md": ORIGINAL.encode(),
    }
    message = str(info.value)
    assert message.startswith(f"{COMMANDS}/big.details.md: could not be written ({ENOSPC}); could not undo everything")
    assert f"its old content is in {root.resolve() / COMMANDS / kept}" in message


#: (old outputs present, the file someone touches, how, what the refusal says)
CHANGES = [
    (False, "big.md", "edit", "changed"),
    (False, "big.core.md", "edit", "created"),
    (False, "big.details.md", "edit", "created"),
    (True, "big.md", "edit", "changed"),
    (True, "big.core.md", "edit", "changed"),
    (True, "big.details.md", "edit", "changed"),
    (True, "big.core.md", "delete", "changed"),
    (True, "big.details.md", "delete", "changed"),
]


@pytest.mark.parametrize(
    ("resplit", "name", "change", "what"),
    CHANGES,
    ids=[f"{'resplit' if r else 'fresh'}-{c}-{n}" for r, n, c, _ in CHANGES],
)
def test_a_split_refuses_files_changed_since_they_were_read(
    tmp_path: Path, resplit: bool, name: str, change: str, what: str
) -> None:
    root, _ = split_project(tmp_path, resplit)
    project, analysis = analyzed(root)
    path = root / COMMANDS / name
    if change == "delete":
        path.unlink()
    else:
        with path.open("ab") as handle:  # a different size: the signature changes
            handle.write(b"\nsomeone else's line\n")
    before = folder_bytes(root)
    with pytest.raises(WriteError) as info:
        apply_split(project, analysis)
    refused = f"{what} on disk since it was read; not overwritten; nothing was changed"
    assert str(info.value) == f"{COMMANDS}/{name}: {refused}"
    assert folder_bytes(root) == before


def test_a_change_between_the_renames_undoes_the_split(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The command file is edited after big.core.md and big.details.md were renamed into
    # place, just before its own rename: the split stops, and the outputs go again.
    root, _ = split_project(tmp_path)
    project, analysis = analyzed(root)
    real_replace = os.replace
    calls = [0]
    edited = ORIGINAL + "\nedited meanwhile\n"

    def replace_then_edit(src: str, dst: str) -> None:
        real_replace(src, dst)
        calls[0] += 1
        if calls[0] == 2:
            (root / COMMANDS / "big.md").write_text(edited)

    monkeypatch.setattr(os, "replace", replace_then_edit)
    with pytest.raises(WriteError, match="changed on disk since it was read"):
        apply_split(project, analysis)
    monkeypatch.undo()
    assert folder_bytes(root) == {"big.md": edited.encode()}


def test_a_split_not_read_from_the_project_is_not_applied(tmp_path: Path) -> None:
    root, before = split_project(tmp_path)
    analysis = analyze_text(f"{COMMANDS}/big.md", ORIGINAL, Census(exact=False))
    with pytest.raises(WriteError, match="analyze the project first"):
        apply_split(load_project(root), analysis)
    assert folder_bytes(root) == before


def test_split_apply_on_the_command_line_fails_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root, before = split_project(tmp_path)
    fail_on_call(monkeypatch, "replace", 3)  # the command file's rename
    code = main(["split", str(root), "--apply", "--no-exact"])
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"ctxviewer: {COMMANDS}/big.md: could not be written ({ENOSPC}); nothing was changed\n"
    assert folder_bytes(root) == before


# == 4. Every other writer ======================================================================


@pytest.fixture(scope="module")
def ledger_trace() -> Any:
    return assemble(load_project(REPO / "sample_projects" / "ledger-service"), "auth-sessions", "AUTH-L1-001")


@pytest.mark.parametrize("name", ["ctx.md", "trace.json", "report.html"])
@pytest.mark.parametrize("failing", ["replace", "fsync", "write"])
def test_a_failed_export_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ledger_trace: Any, name: str, failing: str
) -> None:
    target = tmp_path / name
    target.write_bytes(b"the previous export\n")
    if failing == "write":
        fail_on_write(monkeypatch, 1)
    else:
        fail_on_call(monkeypatch, failing, 1)
    with pytest.raises(WriteError) as info:
        export(ledger_trace, target)
    monkeypatch.undo()
    assert str(info.value) == f"{target}: could not be written ({ENOSPC}); the old file is intact"
    assert target.read_bytes() == b"the previous export\n" and names(tmp_path) == [name]
    # and it works once the disk has room again
    fmt = export(ledger_trace, target)
    assert target.read_bytes() == render(ledger_trace, fmt).encode("utf-8")


def test_a_failed_export_to_a_new_file_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ledger_trace: Any
) -> None:
    fail_on_call(monkeypatch, "replace", 1)
    with pytest.raises(WriteError) as info:
        export(ledger_trace, tmp_path / "report.html")
    monkeypatch.undo()
    assert str(info.value) == f"{tmp_path / 'report.html'}: could not be written ({ENOSPC})"
    assert names(tmp_path) == []


CLI_TASK = {"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"], "read": []}}


@pytest.fixture
def cli_project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj", [CLI_TASK], requirements="Alpha login flow.", design="Login screen.")


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_cli_output_that_cannot_be_written_is_one_line_and_exit_2(
    cli_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    out = tmp_path / "out" / ("context.txt" if fmt == "markdown" else "trace.json")  # -o's extension must agree
    out.parent.mkdir()
    out.write_bytes(b"yesterday's output\n")
    fail_on_call(monkeypatch, "replace", 1)
    argv = ["assemble", str(cli_project), "--feature", "feat", "--task", "T1", "--format", fmt, "-o", str(out)]
    code = main(argv)
    monkeypatch.undo()
    stdout, stderr = capsys.readouterr()
    assert code == 2 and stdout == ""
    assert stderr == f"ctxviewer: {out}: could not be written ({ENOSPC}); the old file is intact\n"
    assert out.read_bytes() == b"yesterday's output\n" and names(out.parent) == [out.name]


def test_cli_output_into_a_folder_is_refused_in_one_line(
    cli_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["assemble", str(cli_project), "--feature", "feat", "--task", "T1", "-o", str(tmp_path)])
    stdout, stderr = capsys.readouterr()
    assert code == 2 and stdout == ""
    assert stderr == f"ctxviewer: {tmp_path}: is a folder, not a file; nothing written\n"


YAML_TASK = {"id": "T", "title": "Login session", "files": {"create": ["src/app.py"]}}


def yaml_project(tmp_path: Path, text: str | None = "top_k: 7\n") -> Path:
    root = make_project(tmp_path / "proj", [YAML_TASK], requirements="Login.", design="Session.")
    if text is not None:
        write(root, "ctxviewer.yaml", text)
    return root


@pytest.mark.parametrize("failing", ["replace", "fsync", "write"])
def test_a_failed_settings_save_keeps_the_old_ctxviewer_yaml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    root = yaml_project(tmp_path)
    project = load_project(root)
    if failing == "write":
        fail_on_write(monkeypatch, 1)
    else:
        fail_on_call(monkeypatch, failing, 1)
    with pytest.raises(WriteError) as info:
        save_ctxviewer_yaml(project, project.settings.with_overrides({"budget": 900}, "gui"))
    monkeypatch.undo()
    assert str(info.value) == f"{root / 'ctxviewer.yaml'}: could not be written ({ENOSPC}); the old file is intact"
    assert (root / "ctxviewer.yaml").read_bytes() == b"top_k: 7\n"
    assert ".ctxviewer.yaml" not in " ".join(names(root))


@pytest.mark.parametrize("existed", [True, False], ids=["edited", "created"])
def test_a_settings_save_refuses_a_ctxviewer_yaml_changed_since_the_project_was_loaded(
    tmp_path: Path, existed: bool
) -> None:
    root = yaml_project(tmp_path, "top_k: 7\n" if existed else None)
    project = load_project(root)
    theirs = "top_k: 9\nbudget:\n  total: 7000\n"
    write(root, "ctxviewer.yaml", theirs)
    with pytest.raises(WriteError) as info:
        plan_save(project, project.settings.with_overrides({"budget": 900}, "gui"))
    assert str(info.value) == (
        "ctxviewer.yaml: changed on disk since the project was loaded; not overwritten "
        "(reload the project, then save again)"
    )
    assert (root / "ctxviewer.yaml").read_text(encoding="utf-8") == theirs
    # Reloaded, the same tuning saves over their values, keeping what it does not change.
    again = load_project(root)
    save_ctxviewer_yaml(again, again.settings.with_overrides({"budget": 900}, "gui"))
    assert load_project(root).settings.budget == 900 and load_project(root).settings.top_k == 9


def test_a_planned_settings_save_refuses_a_file_created_since_the_plan(tmp_path: Path) -> None:
    root = yaml_project(tmp_path, None)
    project = load_project(root)
    plan = plan_save(project, project.settings.with_overrides({"budget": 900}, "gui"))
    assert plan.signature is None
    write(root, "ctxviewer.yaml", "top_k: 3\n")
    with pytest.raises(WriteError) as info:
        save_ctxviewer_yaml(project, project.settings, plan)
    assert str(info.value) == f"{root / 'ctxviewer.yaml'}: created on disk since it was read; not overwritten"
    assert (root / "ctxviewer.yaml").read_text(encoding="utf-8") == "top_k: 3\n"


@pytest.fixture(autouse=True)
def _no_leftovers(tmp_path: Path) -> Iterator[None]:
    """Whatever a test did, no temporary file of atomic_write is left anywhere under tmp_path
    (a kept copy of an old file, named in the error, is the one exception)."""
    yield
    left = [
        p for p in tmp_path.rglob(".*") if p.name.endswith(".tmp") and not p.name.endswith(".bak.tmp") and p.is_file()
    ]
    assert not left, left


def test_atomic_is_the_module_the_audit_exempts() -> None:
    assert Path(atomic.__file__).resolve() == (REPO / ATOMIC).resolve()

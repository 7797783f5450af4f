"""ProjectFS: contained path resolution and bounded, decoded reads.

Rules under test (``ctxviewer.engine.files.reading``):

* a path that leaves the root (``..``, an absolute path, a symlink pointing outside)
  is refused before anything outside the root is opened or stat'ed;
* symlink loops end with a problem, not a hang;
* files over ``max_file_bytes`` are not read;
* text is strict UTF-8 with universal newlines, and a decoding failure names its line;
* NUL bytes are reported.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.files.reading import OutsideRootError, Problem, ProjectFS


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    """tmp/outside/secret.txt and tmp/proj/{a.txt, sub/b.txt, links...}; returns proj."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET")
    root = tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("A")
    (root / "sub" / "b.txt").write_text("B")
    # relative symlinks that leave the root
    os.symlink("../outside", root / "rel_out")
    os.symlink("../../outside/secret.txt", root / "sub" / "rel_out_file")
    # an absolute symlink that leaves the root
    os.symlink(str(outside), root / "abs_out")
    # symlinks that stay inside
    os.symlink("sub/b.txt", root / "rel_in")
    os.symlink(str(root / "sub"), root / "abs_in")
    # loops
    os.symlink("loop_b", root / "loop_a")
    os.symlink("loop_a", root / "loop_b")
    os.symlink("self", root / "self")
    return root


# -- resolve ---------------------------------------------------------------------------


def test_resolve_plain_paths(layout: Path) -> None:
    fs = ProjectFS(layout)
    assert fs.resolve("a.txt") == fs.root / "a.txt"
    assert fs.resolve("sub/b.txt") == fs.root / "sub" / "b.txt"
    assert fs.resolve("./sub/./b.txt") == fs.root / "sub" / "b.txt"
    assert fs.resolve("sub/../a.txt") == fs.root / "a.txt"
    assert fs.resolve("") == fs.root
    assert fs.resolve("no/such/file") == fs.root / "no" / "such" / "file"


@pytest.mark.parametrize("rel", ["..", "../outside/secret.txt", "sub/../../outside", "sub/../.."])
def test_dotdot_above_the_root_is_refused(layout: Path, rel: str) -> None:
    with pytest.raises(OutsideRootError):
        ProjectFS(layout).resolve(rel)


@pytest.mark.parametrize("rel", ["/etc/passwd", "//etc/passwd", "C:/Windows", "c:x"])
def test_absolute_paths_are_refused(layout: Path, rel: str) -> None:
    with pytest.raises(OutsideRootError):
        ProjectFS(layout).resolve(rel)


def test_an_absolute_path_to_a_file_inside_the_root_is_refused_too(layout: Path) -> None:
    fs = ProjectFS(layout)
    with pytest.raises(OutsideRootError):
        fs.resolve(str(fs.root / "a.txt"))


@pytest.mark.parametrize("rel", ["rel_out", "rel_out/secret.txt", "sub/rel_out_file", "abs_out/secret.txt"])
def test_symlinks_to_outside_are_refused(layout: Path, rel: str) -> None:
    with pytest.raises(OutsideRootError):
        ProjectFS(layout).resolve(rel)


def test_symlinks_inside_are_followed(layout: Path) -> None:
    fs = ProjectFS(layout)
    assert fs.resolve("rel_in") == fs.root / "sub" / "b.txt"
    assert fs.resolve("abs_in/b.txt") == fs.root / "sub" / "b.txt"
    # ".." after a symlink applies to the link's target (sub), giving the root
    assert fs.resolve("abs_in/../a.txt") == fs.root / "a.txt"


@pytest.mark.parametrize("rel", ["loop_a", "loop_b/x", "self"])
def test_symlink_loops_are_reported_as_loops(layout: Path, rel: str) -> None:
    with pytest.raises(OutsideRootError) as info:
        ProjectFS(layout).resolve(rel)
    assert info.value.loop


def test_forty_symlink_hops_are_followed_forty_one_are_a_loop(tmp_path: Path) -> None:
    (tmp_path / "end.txt").write_text("end")
    # l0 -> l1 -> ... -> l40 -> end.txt: resolving l1 follows 40 links, l0 follows 41
    for i in range(41):
        target = "end.txt" if i == 40 else f"l{i + 1}"
        os.symlink(target, tmp_path / f"l{i}")
    fs = ProjectFS(tmp_path)
    assert fs.resolve("l1") == fs.root / "end.txt"
    with pytest.raises(OutsideRootError) as info:
        fs.resolve("l0")
    assert info.value.loop


# -- escapes that combine '..', missing folders and chains of symlinks --------------------


def test_dotdot_after_a_missing_folder_does_not_skip_the_symlink_check(layout: Path) -> None:
    # "nope" does not exist; "nope/.." is the root; "rel_out" still points outside
    fs = ProjectFS(layout)
    with pytest.raises(OutsideRootError):
        fs.resolve("nope/../rel_out/secret.txt")
    result = fs.read_text("nope/../rel_out/secret.txt")
    assert result.text is None
    assert result.problem is Problem.OUTSIDE


def test_an_absolute_symlink_into_the_root_that_continues_outside_is_refused(layout: Path) -> None:
    # proj/via -> <proj>/rel_out (absolute, lexically inside), and rel_out -> ../outside
    os.symlink(str(layout / "rel_out"), layout / "via")
    fs = ProjectFS(layout)
    with pytest.raises(OutsideRootError):
        fs.resolve("via/secret.txt")
    result = fs.read_text("via/secret.txt")
    assert result.text is None
    assert result.problem is Problem.OUTSIDE
    assert fs.list_dir("via") == []
    assert not fs.is_dir("via")


# -- nothing outside the root is stat'ed or opened ---------------------------------------


class Recorder:
    """Records the path arguments of os.lstat/os.stat/os.open/os.listdir/os.readlink."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, bool]] = []  # (function, path, follows final link)

    def wrap(self, name: str, real: Callable[..., Any], follows: Callable[..., bool]) -> Callable[..., Any]:
        def wrapper(path: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(path, (str, bytes, os.PathLike)):
                self.calls.append((name, os.fsdecode(path), follows(*args, **kwargs)))
            return real(path, *args, **kwargs)

        return wrapper


def _stat_follows(*args: Any, follow_symlinks: bool = True, **kwargs: Any) -> bool:
    return follow_symlinks


def _open_follows(flags: int = 0, *args: Any, **kwargs: Any) -> bool:
    return not flags & getattr(os, "O_NOFOLLOW", 0)


def install(monkeypatch: pytest.MonkeyPatch, rec: Recorder) -> None:
    monkeypatch.setattr(os, "lstat", rec.wrap("lstat", os.lstat, lambda *a, **k: False))
    monkeypatch.setattr(os, "stat", rec.wrap("stat", os.stat, _stat_follows))
    monkeypatch.setattr(os, "open", rec.wrap("open", os.open, _open_follows))
    monkeypatch.setattr(os, "listdir", rec.wrap("listdir", os.listdir, lambda *a, **k: True))
    monkeypatch.setattr(os, "readlink", rec.wrap("readlink", os.readlink, lambda *a, **k: False))


def touched_outside(calls: list[tuple[str, str, bool]], root: Path) -> list[tuple[str, str]]:
    """Calls whose real target (after every symlink the kernel follows) is outside *root*.

    Called after the patches are undone: ``realpath`` itself uses ``os.lstat``.
    """
    root_s = str(root)
    bad = []
    for name, path, follows in calls:
        if follows:
            real = os.path.realpath(path)
        else:  # the last component itself is not followed
            real = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        if real != root_s and not real.startswith(root_s + os.sep):
            bad.append((name, path))
    return bad


SCENARIOS: dict[str, Callable[[ProjectFS], object]] = {
    "dotdot": lambda fs: fs.read_text("../outside/secret.txt"),
    "absolute": lambda fs: fs.read_text(str(fs.root.parent / "outside" / "secret.txt")),
    "rel-link-dir": lambda fs: fs.read_text("rel_out/secret.txt"),
    "rel-link-file": lambda fs: fs.read_text("sub/rel_out_file"),
    "abs-link-dir": lambda fs: fs.read_text("abs_out/secret.txt"),
    "loop": lambda fs: fs.read_text("loop_a"),
    "queries-on-links": lambda fs: (
        fs.exists("rel_out"),
        fs.is_dir("abs_out"),
        fs.is_file("sub/rel_out_file"),
        fs.file_size("rel_out/secret.txt"),
        fs.list_dir("rel_out"),
        fs.list_dir("abs_out"),
    ),
    "walk-root": lambda fs: fs.walk_files("", ".txt"),
    "missing-then-dotdot": lambda fs: fs.read_text("nope/../rel_out/secret.txt"),
    "abs-link-chain": lambda fs: (fs.read_text("via/secret.txt"), fs.list_dir("via")),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_nothing_outside_the_root_is_touched(layout: Path, monkeypatch: pytest.MonkeyPatch, scenario: str) -> None:
    if scenario == "abs-link-chain":
        # proj/via -> <proj>/rel_out (absolute, lexically inside); rel_out -> ../outside
        os.symlink(str(layout / "rel_out"), layout / "via")
    fs = ProjectFS(layout)  # made before recording: realpath() of the root visits its parents
    rec = Recorder()
    install(monkeypatch, rec)
    outcome = SCENARIOS[scenario](fs)
    monkeypatch.undo()  # realpath() in the check uses os.lstat itself
    assert "SECRET" not in repr(outcome)
    assert touched_outside(rec.calls, fs.root) == []


def test_the_recorder_sees_reads_inside_and_outside(layout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # controls for the test above: ProjectFS's own calls are recorded, and a plain
    # open() through a symlink to outside is flagged by the check
    fs = ProjectFS(layout)
    rec = Recorder()
    install(monkeypatch, rec)
    assert fs.read_text("a.txt").text == "A"
    os.close(os.open(fs.root / "rel_out" / "secret.txt", os.O_RDONLY))
    monkeypatch.undo()
    assert ("open", str(fs.root / "a.txt"), False) in rec.calls
    assert touched_outside(rec.calls, fs.root) == [("open", str(fs.root / "rel_out" / "secret.txt"))]


# -- read_text ---------------------------------------------------------------------------


def write(root: Path, rel: str, data: bytes) -> None:
    (root / rel).write_bytes(data)


def test_read_text_of_plain_utf8(tmp_path: Path) -> None:
    write(tmp_path, "f.md", "h\u00e9llo\n".encode())
    result = ProjectFS(tmp_path).read_text("f.md")
    assert (result.ok, result.text, result.problem, result.has_nul) == (
        True,
        "h\u00e9llo\n",
        None,
        False,
    )


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (b"a\r\nb\r\n", "a\nb\n"),  # CRLF -> LF
        (b"a\rb", "a\nb"),  # a lone CR is a line end too
        (b"a\r\r\nb", "a\n\nb"),  # CR, then CRLF: two line ends
        (b"a\n\rb", "a\n\nb"),  # LF, then CR: two line ends
    ],
    ids=["crlf", "cr", "cr-crlf", "lf-cr"],
)
def test_universal_newlines(tmp_path: Path, data: bytes, text: str) -> None:
    write(tmp_path, "f.md", data)
    assert ProjectFS(tmp_path).read_text("f.md").text == text


def test_non_utf8_names_the_line_and_the_byte(tmp_path: Path) -> None:
    write(tmp_path, "f.md", b"ok\nline two\n\xff bad\n")
    result = ProjectFS(tmp_path).read_text("f.md")
    assert result.text is None
    assert result.problem is Problem.NOT_UTF8
    assert result.line == 3
    assert result.detail == "not UTF-8 (byte 0xff at line 3)"
    assert result.describe() == "f.md:3: not UTF-8 (byte 0xff at line 3)"


def test_non_utf8_line_counts_crlf_lines(tmp_path: Path) -> None:
    # "a\r\n" line 1, "b\r\n" line 2, the bad lead byte 0xc3 (followed by "(") on line 3
    write(tmp_path, "f.md", b"a\r\nb\r\n\xc3(")
    result = ProjectFS(tmp_path).read_text("f.md")
    assert (result.problem, result.line) == (Problem.NOT_UTF8, 3)
    assert "0xc3" in result.detail


def test_size_limit(tmp_path: Path) -> None:
    write(tmp_path, "ten.txt", b"0123456789")
    write(tmp_path, "eleven.txt", b"0123456789X")
    fs = ProjectFS(tmp_path, max_file_bytes=10)
    assert fs.read_text("ten.txt").text == "0123456789"
    result = fs.read_text("eleven.txt")
    assert result.text is None
    assert result.problem is Problem.TOO_LARGE
    assert "11 bytes" in result.detail and "10-byte limit" in result.detail


def test_nul_bytes_are_reported_and_the_text_kept(tmp_path: Path) -> None:
    write(tmp_path, "bin.md", b"a\x00b")
    result = ProjectFS(tmp_path).read_text("bin.md")
    assert (result.text, result.has_nul, result.problem) == ("a\x00b", True, None)


def test_missing_folder_and_outside_reads(layout: Path) -> None:
    fs = ProjectFS(layout)
    assert fs.read_text("nope.md").problem is Problem.MISSING
    assert fs.read_text("sub").problem is Problem.NOT_A_FILE
    outside = fs.read_text("../outside/secret.txt")
    assert (outside.text, outside.problem) == (None, Problem.OUTSIDE)
    assert fs.read_text("rel_out/secret.txt").problem is Problem.OUTSIDE
    assert fs.read_text("loop_a").problem is Problem.LOOP
    assert fs.read_text("rel_in").text == "B"


# -- one pass: each path resolved and stat'ed once ------------------------------------------------


def test_within_one_pass_a_path_is_asked_about_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxviewer.engine.files import reading

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b.md").write_text("x", encoding="utf-8")
    fs = ProjectFS(tmp_path)
    calls: list[str] = []
    real_lstat = os.lstat
    monkeypatch.setattr(reading.os, "lstat", lambda p: calls.append(str(p)) or real_lstat(p))

    def three_times() -> bool:
        return all(fs.is_file("a/b.md") for _ in range(3))

    assert three_times()
    assert len(calls) == 3 * 2  # outside a pass: both components, every time
    calls.clear()
    assert reading.one_pass().run(three_times)
    assert len(calls) == 2  # in a pass: both components, once


def test_a_pass_sees_files_as_first_asked_and_leaks_nowhere(tmp_path: Path) -> None:
    from ctxviewer.engine.files import reading

    (tmp_path / "r.md").write_text("rule", encoding="utf-8")
    fs = ProjectFS(tmp_path)
    ctx = reading.one_pass()
    assert ctx.run(fs.exists, "r.md")
    (tmp_path / "r.md").unlink()
    assert ctx.run(fs.exists, "r.md")  # the pass answers as it first did
    assert not fs.exists("r.md")  # outside it the disk is asked again
    assert reading._PASS.get() is None
    assert not reading.one_pass().run(fs.exists, "r.md")  # a new pass asks the disk


def test_a_pass_lists_a_folder_once_and_hands_out_copies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxviewer.engine.files import reading

    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "b.md").write_text("b", encoding="utf-8")
    (tmp_path / "d" / "a.md").write_text("a", encoding="utf-8")
    fs = ProjectFS(tmp_path)
    calls: list[str] = []
    real_listdir = os.listdir
    monkeypatch.setattr(reading.os, "listdir", lambda p: calls.append(str(p)) or real_listdir(p))
    ctx = reading.one_pass()
    first = ctx.run(fs.list_dir, "d")
    assert first == ["a.md", "b.md"]
    first.append("changed by the caller")
    (tmp_path / "d" / "c.md").write_text("c", encoding="utf-8")
    assert ctx.run(fs.list_dir, "d") == ["a.md", "b.md"]  # as first listed, the caller's change not kept
    assert ctx.run(fs.list_dir, "missing") == []
    assert ctx.run(fs.list_dir, "missing") == []
    assert [c.rsplit("/", 1)[-1] for c in calls] == ["d", "missing"]  # each asked once, the failure too
    assert fs.list_dir("d") == ["a.md", "b.md", "c.md"]  # outside the pass the disk is asked again
    assert reading.one_pass().run(fs.list_dir, "d") == ["a.md", "b.md", "c.md"]  # a new pass too


def test_a_bare_checkout_finds_the_shipped_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the installed ``ctxviewer.resources`` package, the checkout's resources/ is used."""
    from ctxviewer.engine.files import resources

    def not_installed(name: str) -> Any:
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(resources.importlib.resources, "files", not_installed)
    assert resources.checkout_resources() == Path(__file__).resolve().parents[3] / "resources"
    assert resources.resource_bytes("tiktoken", "cl100k_base.tiktoken").startswith(b"IQ== 0\n")


def test_a_pass_reads_a_missing_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every task looks for the same absent memory files: within a pass the disk is asked once
    and the same answer given; outside one, and in a new pass, the file is looked for again."""
    from ctxviewer.engine.files import reading

    fs = ProjectFS(tmp_path)
    opened: list[str] = []
    real_open = os.open
    monkeypatch.setattr(reading.os, "open", lambda p, *a: opened.append(str(p)) or real_open(p, *a))
    ctx = reading.one_pass()
    first = ctx.run(fs.read_text, "CLAUDE.md")
    assert (first.text, first.problem) == (None, reading.Problem.MISSING)
    (tmp_path / "CLAUDE.md").write_text("now here", encoding="utf-8")
    assert ctx.run(fs.read_text, "CLAUDE.md") is first  # the pass answers as it first did
    assert len(opened) == 1
    assert fs.read_text("CLAUDE.md").text == "now here"  # outside the pass: the disk again
    assert reading.one_pass().run(fs.read_text, "CLAUDE.md").text == "now here"
    assert ctx.run(fs.read_text, "../outside").problem is reading.Problem.OUTSIDE

"""Reading a revision into a scratch folder: the committed bytes, links and modes, and the refusals."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ctxviewer.engine.errors import WriteError
from ctxviewer.engine.files.git import (
    FileDiffs,
    Hunk,
    materialize,
    open_repository,
    parse_hunks,
    recent_commits,
    resolve,
)
from ctxviewer.engine.files.writing import scratch_folder, write_scratch
from tests.factories import REQUIREMENTS, git, make_git_project, write

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: revision diffs need it")


@needs_git
def test_materialize_writes_the_committed_bytes_links_and_modes(tmp_path: Path) -> None:
    root = make_git_project(tmp_path / "proj")
    write(root, "tool.sh", "#!/bin/sh\n")
    os.chmod(root / "tool.sh", 0o755)
    os.symlink("tool.sh", root / "link")
    write(root, "big.md", "x" * 500)
    # Attributes that would change what git archive or a checkout produce: not applied.
    write(root, ".gitattributes", "big.md export-ignore\n*.md text eol=crlf\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "more")
    repo = open_repository(root)
    with scratch_folder() as folder:
        notes = materialize(repo, resolve(repo, "HEAD"), folder, limit=200)
        assert notes == ()
        assert (folder / REQUIREMENTS).read_bytes() == (root / REQUIREMENTS).read_bytes()  # LF, as committed
        assert os.access(folder / "tool.sh", os.X_OK)
        assert os.readlink(folder / "link") == "tool.sh"
        # Over the limit: written to limit + 1 bytes, so the reader still finds it too large.
        assert (folder / "big.md").read_bytes() == b"x" * 201
        assert not (folder / ".git").exists()
    assert not folder.exists()


@needs_git
def test_recent_commits_and_file_diffs(tmp_path: Path) -> None:
    root = make_git_project(tmp_path / "proj")
    repo = open_repository(root)
    commits = recent_commits(repo)
    assert [c.subject for c in commits] == ["second", "first"]
    assert commits[0].sha == resolve(repo, "main") and commits[0].short == commits[0].sha[:7]
    diffs = FileDiffs(repo, commits[1].sha, commits[0].sha)
    assert diffs.changed_files() == (REQUIREMENTS,)
    assert diffs.hunks(REQUIREMENTS) == (Hunk(11, 1, 11, 1),)
    assert diffs.hunks(".gsd/specs/feat/design.md") == ()


def test_parse_hunks_reads_counts_left_out_as_one() -> None:
    patch = b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -3 +3,2 @@\n-a\n+b\n+c\n@@ -9,2 +10,0 @@ ctx\n-d\n-e\n"
    assert parse_hunks(patch) == (Hunk(3, 1, 3, 2), Hunk(9, 2, 10, 0))


@pytest.mark.parametrize("rel", ["../out", "/abs", "a/../b", ".git/config", "a/.GIT/hooks/x", "", "a//b"])
def test_write_scratch_refuses_paths_that_leave_the_folder_or_enter_git(rel: str) -> None:
    with scratch_folder() as folder, pytest.raises(WriteError):
        write_scratch(folder, rel, b"x")


def test_write_scratch_never_writes_through_a_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    with scratch_folder() as folder:
        write_scratch(folder, "d", str(outside).encode(), link=True)
        with pytest.raises(WriteError, match="link"):
            write_scratch(folder, "d/x", b"x")
        write_scratch(folder, "f", b"one")
        with pytest.raises(WriteError):
            write_scratch(folder, "f", b"two")  # never over an existing file
        assert (folder / "f").read_bytes() == b"one"
    assert list(outside.iterdir()) == []


@needs_git
def test_nothing_the_repository_configures_is_run(tmp_path: Path) -> None:
    # A repository someone sent: its .git/config names programs for fsmonitor, an external
    # diff and a textconv filter, and it has a post-checkout hook.  Each would leave a mark.
    from ctxviewer.engine.runs.revisions import diff_revisions

    root = make_git_project(tmp_path / "proj")
    marks = tmp_path / "marks"
    marks.mkdir()
    for name in ("fsmonitor", "extdiff", "textconv", "hook"):
        write(tmp_path, f"bin/{name}", f'#!/bin/sh\ntouch {marks}/{name}\ncat "$1" 2>/dev/null\n')
        os.chmod(tmp_path / "bin" / name, 0o755)
    git(root, "config", "core.fsmonitor", str(tmp_path / "bin/fsmonitor"))
    git(root, "config", "diff.external", str(tmp_path / "bin/extdiff"))
    git(root, "config", "diff.md.textconv", str(tmp_path / "bin/textconv"))
    write(root, ".git/info/attributes", "*.md diff=md\n")
    write(root, ".git/hooks/post-checkout", f"#!/bin/sh\ntouch {marks}/hook\n")
    os.chmod(root / ".git/hooks/post-checkout", 0o755)
    write(root, REQUIREMENTS, (root / REQUIREMENTS).read_text(encoding="utf-8") + "\nLogin more.\n")

    diff = diff_revisions(root, "HEAD~1", exact=False)  # against the working tree: git diff reads it
    assert diff.changed_files == (REQUIREMENTS,)
    assert diff.tasks[0].changes  # the diff was made, with git's own hunks
    assert sorted(p.name for p in marks.iterdir()) == []

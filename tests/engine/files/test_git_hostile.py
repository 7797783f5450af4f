"""A repository someone else made runs nothing and reads nothing outside the project.

Each test builds one hostile repository, first shows with plain git that the attack is real
(a marker program leaves its file), then runs ctxviewer's revision reading and checks that the
marker is never written and the answer is still right.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ctxviewer.engine.files.git import (
    FileDiffs,
    Hunk,
    NotARepositoryError,
    RefusedRepositoryError,
    diff_bytes,
    open_repository,
    recent_commits,
    resolve,
)
from ctxviewer.engine.runs.revisions import diff_revisions
from tests.factories import REQUIREMENTS, git, make_git_project, write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: revision diffs need it")

PACKAGE = Path(__file__).resolve().parents[3] / "ctxviewer"


def marker_program(tmp_path: Path, name: str, body: str = "cat") -> tuple[Path, Path]:
    """An executable that touches ``marks/<name>`` and then does *body*; (program, mark)."""
    marks = tmp_path / "marks"
    marks.mkdir(exist_ok=True)
    program = tmp_path / "bin" / name
    write(tmp_path, f"bin/{name}", f"#!/bin/sh\ntouch {marks / name}\n{body}\n")
    os.chmod(program, 0o755)
    return program, marks / name


def plain_git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """git as a user's shell runs it (the repository's configuration applies), never raising."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=False)


def edit_requirements(root: Path) -> None:
    write(root, REQUIREMENTS, (root / REQUIREMENTS).read_text(encoding="utf-8") + "\nLogin more.\n")


def make_stale(root: Path) -> None:
    """Every tracked file's time changed, as after an extraction: git must read them all again."""
    for name in git(root, "ls-files", "-z").split("\0"):
        if name:
            os.utime(root / name, (1_000_000_000, 1_000_000_000))


@pytest.mark.parametrize("kind", ["clean", "process"])
@pytest.mark.parametrize("where", [".gitattributes", ".git/info/attributes"])
def test_a_filter_the_repository_defines_never_runs(tmp_path: Path, kind: str, where: str) -> None:
    root = make_git_project(tmp_path / "proj")
    program, mark = marker_program(tmp_path, "filter")
    git(root, "config", f"filter.evil.{kind}", str(program))
    write(root, where, "* filter=evil\n")
    if where == ".gitattributes":
        git(root, "add", ".gitattributes")
        git(root, "commit", "-q", "-m", "attributes")
    edit_requirements(root)
    make_stale(root)
    plain_git(root, "diff", "HEAD~1", "--", ".")
    assert mark.exists(), "the repository is not hostile: plain git did not run its filter"
    mark.unlink()

    first = git(root, "rev-list", "--max-parents=0", "HEAD").strip()
    diff = diff_revisions(root, first, exact=False)
    diff_revisions(root, first, "HEAD", exact=False)
    assert not mark.exists()
    assert REQUIREMENTS in diff.changed_files
    assert diff.tasks[0].changes  # the changed lines were still found


def test_a_signature_program_never_runs_when_commits_are_listed(tmp_path: Path) -> None:
    root = make_git_project(tmp_path / "proj")
    program, mark = marker_program(tmp_path, "gpg", "exit 1")
    git(root, "config", "log.showSignature", "true")
    git(root, "config", "gpg.program", str(program))
    edit_requirements(root)
    git(root, "add", "-A")
    tree = git(root, "write-tree").strip()
    parent = git(root, "rev-parse", "HEAD").strip()
    signed = (
        f"tree {tree}\nparent {parent}\n"
        "author Test <test@example.com> 1700000000 +0000\n"
        "committer Test <test@example.com> 1700000000 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n"
        "\nsigned\n"
    )
    done = subprocess.run(
        ["git", "-C", str(root), "hash-object", "-t", "commit", "-w", "--stdin"],
        input=signed,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull},
    )
    git(root, "update-ref", "refs/heads/main", done.stdout.strip())
    plain_git(root, "log", "-n3", "--format=%H %s")
    assert mark.exists(), "the repository is not hostile: plain git log did not run its gpg.program"
    mark.unlink()

    repo = open_repository(root)
    commits = recent_commits(repo)
    assert [c.subject for c in commits] == ["signed", "second", "first"]
    resolve(repo, "HEAD")
    diff_revisions(root, "HEAD~2", "HEAD", exact=False)
    assert not mark.exists()


def test_programs_named_in_the_configuration_never_run(tmp_path: Path) -> None:
    # Every program-valued key git might read on the commands ctxviewer runs.
    root = make_git_project(tmp_path / "proj")
    program, mark = marker_program(tmp_path, "any")
    for key in (
        "core.fsmonitor",
        "core.pager",
        "core.sshCommand",
        "core.askPass",
        "core.editor",
        "diff.external",
        "diff.md.textconv",
        "diff.md.command",
        "credential.helper",
    ):
        git(root, "config", key, str(program))
    git(root, "config", "core.hooksPath", str(tmp_path / "bin"))
    write(root, ".git/info/attributes", "*.md diff=md\n")
    for hook in ("post-checkout", "post-index-change", "reference-transaction"):
        write(root, f".git/hooks/{hook}", f"#!/bin/sh\ntouch {mark}\n")
        os.chmod(root / ".git" / "hooks" / hook, 0o755)
    edit_requirements(root)
    make_stale(root)
    plain_git(root, "diff", "HEAD~1")
    assert mark.exists(), "the repository is not hostile"
    mark.unlink()

    diff_revisions(root, "HEAD~1", exact=False)
    diff_revisions(root, "HEAD~1", "HEAD", exact=False)
    recent_commits(open_repository(root))
    assert not mark.exists()


def test_the_callers_git_environment_and_home_configuration_are_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_git_project(tmp_path / "proj")
    program, mark = marker_program(tmp_path, "home")
    home = tmp_path / "home"
    write(home, ".gitconfig", f"[core]\n\tfsmonitor = {program}\n[log]\n\tshowSignature = true\n")
    write(home, ".config/git/attributes", "* filter=evil\n")
    other = make_git_project(tmp_path / "other")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor={program}'")
    edit_requirements(root)
    make_stale(root)
    diff = diff_revisions(root, "HEAD~1", exact=False)
    assert diff.changed_files == (REQUIREMENTS,)
    assert not mark.exists()


def test_a_git_file_pointing_elsewhere_is_refused(tmp_path: Path) -> None:
    elsewhere = make_git_project(tmp_path / "elsewhere")
    program, mark = marker_program(tmp_path, "fsmonitor")
    git(elsewhere, "config", "core.fsmonitor", str(program))
    proj = tmp_path / "proj"
    shutil.copytree(elsewhere, proj, ignore=shutil.ignore_patterns(".git"))
    write(proj, ".git", f"gitdir: {elsewhere / '.git'}\n")
    with pytest.raises(RefusedRepositoryError, match=r"\.git is a file pointing to .*elsewhere"):
        open_repository(proj)
    with pytest.raises(RefusedRepositoryError):
        diff_revisions(proj, "HEAD~1", exact=False)
    assert not mark.exists()


def test_a_git_folder_that_is_a_link_is_refused(tmp_path: Path) -> None:
    elsewhere = make_git_project(tmp_path / "elsewhere")
    proj = tmp_path / "proj"
    shutil.copytree(elsewhere, proj, ignore=shutil.ignore_patterns(".git"))
    os.symlink(elsewhere / ".git", proj / ".git")
    with pytest.raises(RefusedRepositoryError, match=r"\.git is a link"):
        open_repository(proj)


@pytest.mark.parametrize(
    ("setup", "words"),
    [
        (lambda root, other: git(root, "config", "core.worktree", str(other)), "core.worktree"),
        (lambda root, other: git(root, "config", "include.path", str(other / ".git" / "config")), "include"),
        (
            lambda root, other: git(root, "config", f"includeIf.gitdir:{root}/.path", str(other / "x")),
            "include",
        ),
        (lambda root, other: write(root, ".git/commondir", str(other / ".git") + "\n"), "commondir"),
        (
            lambda root, other: write(root, ".git/objects/info/alternates", str(other / ".git/objects") + "\n"),
            "alternates",
        ),
    ],
    ids=["core.worktree", "include.path", "includeIf", "commondir", "alternates"],
)
def test_a_repository_that_reads_another_place_is_refused(tmp_path: Path, setup, words: str) -> None:  # type: ignore[no-untyped-def]
    root = make_git_project(tmp_path / "proj")
    other = make_git_project(tmp_path / "other")
    setup(root, other)
    with pytest.raises(RefusedRepositoryError, match=words):
        open_repository(root)


def test_a_configuration_file_that_is_a_link_is_refused(tmp_path: Path) -> None:
    root = make_git_project(tmp_path / "proj")
    other = make_git_project(tmp_path / "other")
    (root / ".git" / "config").unlink()
    os.symlink(other / ".git" / "config", root / ".git" / "config")
    with pytest.raises(RefusedRepositoryError, match=r"\.git/config is a link"):
        open_repository(root)


def test_a_bare_repository_shipped_in_the_project_is_not_used(tmp_path: Path) -> None:
    # The project folder carries the files of a bare repository whose configuration names a
    # program; git's discovery would take it for the repository.  ctxviewer reads the .git
    # folder of the working tree the project is in, and nothing else.
    outer = make_git_project(tmp_path / "outer")
    program, mark = marker_program(tmp_path, "bare")
    inner = outer / "sub"
    subprocess.run(["git", "init", "-q", "--bare", str(inner)], check=True, capture_output=True)
    write(inner, "config", f"[core]\n\tbare = true\n\tfsmonitor = {program}\n[log]\n\tshowSignature = true\n")
    repo = open_repository(inner)
    assert repo.top == outer.resolve() and repo.prefix == "sub/"
    recent_commits(repo)
    assert not mark.exists()


def test_a_project_inside_its_repository_reads_that_repository(tmp_path: Path) -> None:
    root = make_git_project(tmp_path / "repo")
    repo = open_repository(root / ".gsd")
    assert repo.top == root.resolve() and repo.prefix == ".gsd/" and repo.git_dir == root.resolve() / ".git"


def test_no_repository_is_a_plain_refusal(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(NotARepositoryError, match="not in a git repository"):
        open_repository(plain)


def test_the_working_tree_is_compared_as_its_bytes_not_as_a_filter_would_make_them(tmp_path: Path) -> None:
    # An unchanged file whose clean filter would rewrite it: git would call it changed (or not)
    # by the filter's output; ctxviewer compares the bytes it loads, so it is unchanged.
    root = make_git_project(tmp_path / "proj")
    git(root, "config", "filter.upper.clean", "tr a-z A-Z")
    write(root, ".git/info/attributes", "*.md filter=upper\n")
    make_stale(root)
    repo = open_repository(root)
    diffs = FileDiffs(repo, resolve(repo, "HEAD"), None)
    assert diffs.changed_files() == ()
    edit_requirements(root)
    diffs = FileDiffs(repo, resolve(repo, "HEAD"), None)
    assert diffs.changed_files() == (REQUIREMENTS,)
    lines = (root / REQUIREMENTS).read_text(encoding="utf-8").count("\n")
    # Two lines were appended ("" and "Login more."): one hunk after the old last line.
    assert diffs.hunks(REQUIREMENTS) == (Hunk(lines - 2, 0, lines - 1, 2),)


def test_a_working_tree_link_out_of_the_project_is_not_followed(tmp_path: Path) -> None:
    root = make_git_project(tmp_path / "proj")
    secret = tmp_path / "secret.md"
    secret.write_text("secret\n", encoding="utf-8")
    (root / REQUIREMENTS).unlink()
    os.symlink(secret, root / REQUIREMENTS)
    repo = open_repository(root)
    diffs = FileDiffs(repo, resolve(repo, "HEAD"), None)
    assert diffs.changed_files() == (REQUIREMENTS,)  # now a link: changed
    # Its lines are the link's target, as git would store it, never the secret's text.
    assert diffs.hunks(REQUIREMENTS)
    assert all(h.new_count <= 1 for h in diffs.hunks(REQUIREMENTS))


def test_diff_bytes_gives_gits_hunks() -> None:
    assert diff_bytes(b"a\nb\nc\n", b"a\nB\nc\nd\n") == (Hunk(2, 1, 2, 1), Hunk(3, 0, 4, 1))
    assert diff_bytes(b"same\n", b"same\n") == ()
    assert diff_bytes(b"", b"x\n") == (Hunk(0, 0, 1, 1),)


def _git_argument_lists(tree: ast.AST) -> list[int]:
    """Line numbers of list or tuple displays that start with the string 'git'."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.List | ast.Tuple) and node.elts:
            first = node.elts[0]
            if isinstance(first, ast.Constant) and first.value == "git":
                out.append(node.lineno)
    return out


def test_every_git_command_is_made_in_one_place() -> None:
    made: dict[str, list[int]] = {}
    runners: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = path.relative_to(PACKAGE).as_posix()
        if found := _git_argument_lists(tree):
            made[rel] = found
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                for call in ast.walk(node):
                    if (
                        isinstance(call, ast.Call)
                        and isinstance(call.func, ast.Attribute)
                        and isinstance(call.func.value, ast.Name)
                        and call.func.value.id == "subprocess"
                    ):
                        runners.setdefault(rel, []).append(f"{node.name}:{call.func.attr}")
    assert list(made) == ["engine/files/git.py"] and len(made["engine/files/git.py"]) == 1
    # In git.py a process is started only by the two runners, each with what _command made.
    assert sorted(runners["engine/files/git.py"]) == ["_popen:Popen", "_run:run"]
    # The only other processes ctxviewer starts are Pythons, not git: verify's driver, and the
    # newer Python that parses the repository map's sources under an older one.
    assert set(runners) == {
        "engine/files/git.py",
        "engine/upstream/verify.py",
        "engine/profiles/zerg/newer_python.py",
    }

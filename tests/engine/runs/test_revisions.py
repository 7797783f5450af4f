"""Revision diffs: one task at two git revisions, each moved candidate and the edit that moved it.

The repository is built by ``tests/factories.make_git_project``: six requirement paragraphs,
one a line with a blank line between (paragraph N on line 2N-1); for the task "Login session"
P1-P5 hold 'login' (score 1) and P6 nothing.  The second commit rewrites P6 (line 11) to
"Session login six." (score 2).  Ranking is a stable sort by score, top 5 kept:
at the first commit P1-P5 are in and P6 is not a candidate; at the second P6 ranks first,
P1-P4 follow and P5 is sixth: outranked.
"""

from __future__ import annotations

import math
import os
import shutil
import threading
from pathlib import Path

import pytest

from ctxviewer.engine.analysis.whatif import ENTERED, GONE, LEFT, NEW
from ctxviewer.engine.errors import UnknownFeatureError, UnknownTaskError
from ctxviewer.engine.files.git import (
    GitUnavailableError,
    Hunk,
    NotARepositoryError,
    UnknownRevisionError,
    diff_bytes,
)
from ctxviewer.engine.profiles.base import Cancelled
from ctxviewer.engine.runs.revisions import (
    DISPLACED,
    EDIT,
    FATE,
    SETTING,
    TASK,
    WORKING_TREE,
    diff_revisions,
    pair_items,
    touching,
)
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, NOT_CANDIDATE, OUTRANKED
from tests.factories import REQUIREMENTS, REVISION_PARAGRAPHS, git, make_git_project, make_item, write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: revision diffs need it")

HEADER = "## Relevant Requirements\n\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_git_project(tmp_path / "proj")


def _only_task(diff):  # type: ignore[no-untyped-def]
    assert [(t.feature, t.task_id) for t in diff.tasks] == [("feat", "T1")]
    return diff.tasks[0]


def test_two_commits_name_the_paragraph_that_moved_in_the_one_pushed_out_and_the_spec_line(repo: Path) -> None:
    diff = diff_revisions(repo, "HEAD~1", "HEAD", exact=False)
    assert diff.a.name == "HEAD~1" and diff.b.name == "HEAD"
    assert diff.changed_files == (REQUIREMENTS,)
    task = _only_task(diff)
    changes = {c.change.item_id: c for c in task.changes}
    assert set(changes) == {"requirements:6", "requirements:5"}

    p6, p5 = changes["requirements:6"], changes["requirements:5"]
    assert (p6.change.change, p6.change.status_before, p6.change.status_after) == (ENTERED, NOT_CANDIDATE, INCLUDED)
    assert p6.words == "paragraph 6 of requirements.md (line 11)"
    # Its own line was rewritten: git diff -U0 says "@@ -11 +11 @@".
    assert [(c.kind, c.file, c.lines) for c in p6.causes] == [(EDIT, REQUIREMENTS, ((11, 11),))]
    assert p6.causes[0].where == f"{REQUIREMENTS}:11"

    assert (p5.change.change, p5.change.status_before, p5.change.status_after) == (LEFT, INCLUDED, OUTRANKED)
    assert p5.change.reason_after == "rank 6, only the top 5 are kept (score 1)"
    # P5 (line 9) was not edited: it was pushed out by P6, whose line 11 moved it.
    [cause] = p5.causes
    assert (cause.kind, cause.candidate, cause.file, cause.lines) == (
        DISPLACED,
        "paragraph 6 of requirements.md (line 11)",
        REQUIREMENTS,
        ((11, 11),),
    )
    # Entered changes are listed before left ones.
    assert [c.change.change for c in task.changes] == [ENTERED, LEFT]


def test_context_sizes_and_growth_worked_by_hand(repo: Path) -> None:
    task = _only_task(diff_revisions(repo, "HEAD~1", "HEAD", exact=False))
    # A: the header (26 chars) + P1..P5 (15+15+19+16+16 = 81) + 4 breaks of 2 = 115 chars; 115 // 4 = 28.
    # B: the header + P6 (18) + P1..P4 (65) + 4 breaks of 2 = 117 chars; 117 // 4 = 29.
    assert task.diff is not None and task.diff.tokenizer == "heuristic"
    assert task.before is not None and len(task.before.context) == 115
    assert task.after is not None and task.after.context.startswith(HEADER + "Session login six.\n\nLogin form one.")
    assert (task.tokens_before, task.tokens_after) == (28, 29)
    assert task.growth_percent == pytest.approx(100 / 28)


def test_the_working_tree_is_b_by_default_and_nothing_of_the_users_is_touched(repo: Path) -> None:
    # Uncommitted: P6 back to its first words -- against HEAD, P6 leaves and P5 comes back.
    text = (repo / REQUIREMENTS).read_text(encoding="utf-8").replace("Session login six.", "Unrelated words six.")
    write(repo, REQUIREMENTS, text)
    status = git(repo, "status", "--porcelain", "--ignored")
    worktrees = git(repo, "worktree", "list")
    diff = diff_revisions(repo, "HEAD", exact=False)
    assert diff.b.label == WORKING_TREE and diff.b.sha is None
    task = _only_task(diff)
    moved = {c.change.item_id: (c.change.change, c.causes[0].kind) for c in task.changes}
    assert moved == {"requirements:5": (ENTERED, DISPLACED), "requirements:6": (LEFT, EDIT)}
    p6 = next(c for c in task.changes if c.change.item_id == "requirements:6")
    assert p6.causes[0].lines == ((11, 11),)
    # Same files, same status, no extra worktree, no scratch folder left in the project.
    assert git(repo, "status", "--porcelain", "--ignored") == status
    assert git(repo, "worktree", "list") == worktrees
    assert (repo / REQUIREMENTS).read_text(encoding="utf-8") == text


def test_a_deleted_paragraph_is_gone_with_the_lines_of_a_that_were_removed(repo: Path) -> None:
    # The working tree drops the blank line 10 and P6 (line 11): git diff -U0 says "@@ -10,2 +9,0 @@".
    write(repo, REQUIREMENTS, "\n\n".join(REVISION_PARAGRAPHS[:5]) + "\n")
    task = _only_task(diff_revisions(repo, "HEAD", exact=False))
    changes = {c.change.item_id: c for c in task.changes}
    assert {k: c.change.change for k, c in changes.items()} == {"requirements:5": ENTERED, "requirements:6": GONE}
    [cause] = changes["requirements:6"].causes
    assert (cause.kind, cause.lines) == (EDIT, ((10, 11),))
    assert cause.text == f"its own text was removed: {REQUIREMENTS}, lines 10-11 removed"
    assert changes["requirements:5"].causes[0].kind == DISPLACED


def test_an_untracked_file_in_the_working_tree_is_attributed_by_its_own_lines(repo: Path) -> None:
    git(repo, "rm", "-q", "--cached", ".gsd/specs/feat/design.md")
    git(repo, "commit", "-q", "-m", "design untracked")
    write(repo, ".gsd/specs/feat/design.md", "Intro.\n\nLogin screen design.\n")
    task = _only_task(diff_revisions(repo, "HEAD", exact=False))
    [change] = task.changes
    # Not tracked, so git's diff has no hunks for it; the two sides' texts (none at A) are
    # compared instead: lines 1-3 are new, the paragraph on line 3 came in with them.
    assert (change.change.change, change.words) == (NEW, "paragraph 2 of design.md (line 3)")
    assert [(c.kind, c.lines) for c in change.causes] == [(EDIT, ((1, 3),))]
    assert change.causes[0].text.startswith("its own text was added")


def test_a_setting_changed_in_ctxviewer_yaml_is_named_with_its_line(repo: Path) -> None:
    write(repo, "ctxviewer.yaml", "# tuned\ntop_k: 4\n")
    git(repo, "add", "ctxviewer.yaml")
    git(repo, "commit", "-q", "-m", "fewer paragraphs")
    task = _only_task(diff_revisions(repo, "HEAD~1", "HEAD", exact=False))
    # Ranked P6, P1, P2, P3, P4, P5: top 4 keeps P6-P3, so P4 (line 7) leaves.
    [change] = task.changes
    assert (change.change.item_id, change.change.change, change.change.status_after) == (
        "requirements:4",
        LEFT,
        OUTRANKED,
    )
    [cause] = change.causes
    assert cause.kind == SETTING
    assert cause.text == "setting top_k: 5 \u2192 4 (set in ctxviewer.yaml)"
    assert cause.where == "ctxviewer.yaml:1-2"  # the file is new: both its lines


def test_overrides_apply_to_both_sides_and_are_no_setting_change(repo: Path) -> None:
    diff = diff_revisions(repo, "HEAD~1", "HEAD", exact=False, overrides={"top_k": 1})
    task = _only_task(diff)
    # top_k 1: A keeps P1 (the first of five scoring 1), B keeps P6 (score 2): P1 left,
    # P6 entered; P2-P5 stay outranked, no fate change among them.
    assert {c.change.item_id: c.change.change for c in task.changes} == {
        "requirements:6": ENTERED,
        "requirements:1": LEFT,
    }
    assert task.diff is not None and task.diff.settings == ()
    assert all(k.kind != SETTING for c in task.changes for k in c.causes)
    assert all(c.change.change != FATE for c in task.changes)


def test_inserting_a_paragraph_pairs_the_renumbered_ones_by_their_text() -> None:
    same = [make_item(id=f"requirements:{n}", text=f"p{n}", line_start=2 * n - 1, line_end=2 * n - 1) for n in (1, 2)]
    inserted = make_item(id="requirements:1", text="new", line_start=1, line_end=1)
    shifted = [make_item(id=f"requirements:{n + 1}", text=f"p{n}") for n in (1, 2)]
    pairs = pair_items(same, [inserted, *shifted])
    texts = {(b.text if b else None, a.text if a else None) for b, a in pairs}
    assert texts == {("p1", "p1"), ("p2", "p2"), (None, "new")}


def test_hunks_touch_a_paragraph_by_its_lines_at_either_side() -> None:
    para_a = make_item(line_start=5, line_end=7)
    para_b = make_item(line_start=9, line_end=11)
    edits = [
        Hunk(7, 1, 9, 1),  # rewrites A's last line
        Hunk(3, 0, 4, 2),  # inserts two lines after A's line 3: neither paragraph
        Hunk(20, 2, 22, 0),  # removes A's lines 20-21
        Hunk(30, 0, 10, 1),  # inserts B's line 10, inside B's paragraph
    ]
    assert touching(edits, para_a, None) == [edits[0]]
    assert touching(edits, None, para_b) == [edits[0], edits[3]]
    rule = make_item(kind="rule_file", line_start=1, line_end=2)
    assert touching(edits, rule, rule) == edits


def test_changed_lines_are_numbered_as_git_numbers_them() -> None:
    # "a b c" -> "a X c d": line 2 rewritten (-2 +2), line 4 added after line 3 (-3,0 +4).
    assert diff_bytes(b"a\nb\nc\n", b"a\nX\nc\nd\n") == (Hunk(2, 1, 2, 1), Hunk(3, 0, 4, 1))
    assert diff_bytes(b"a\nb\n", b"a\n") == (Hunk(2, 1, 1, 0),)


def test_a_project_in_a_subfolder_of_the_repository(tmp_path: Path) -> None:
    top = tmp_path / "mono"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    write(top, "README", "other things\n")
    git(top, "add", "README")
    git(top, "commit", "-q", "-m", "start")
    make_git_project(top / "apps" / "proj")  # its own repository: make it part of the big one
    shutil.rmtree(top / "apps" / "proj" / ".git")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "project")
    text = (top / "apps/proj" / REQUIREMENTS).read_text(encoding="utf-8")
    write(top / "apps/proj", REQUIREMENTS, text.replace("Login text five.", "Login text five, session."))
    git(top, "commit", "-q", "-a", "-m", "p5")
    task = _only_task(diff_revisions(top / "apps" / "proj", "HEAD~1", "HEAD", exact=False))
    # The project commit holds the second state (P6 scores 2, P5 outranked).  Now P5 scores 2 as
    # well: ranked P5, P6 (score 2, file order), P1, P2, P3 -- P5 enters, P4 is pushed out.
    moved = {c.change.item_id: (c.change.change, c.causes[0].kind, c.causes[0].where) for c in task.changes}
    # Paths are the project's (requirements.md of the project), not the repository's apps/proj/...
    assert moved == {
        "requirements:5": (ENTERED, EDIT, f"{REQUIREMENTS}:9"),
        "requirements:4": (LEFT, DISPLACED, f"{REQUIREMENTS}:9"),
    }


def test_tasks_not_touched_are_unchanged(repo: Path) -> None:
    diff = diff_revisions(repo, "HEAD", "HEAD", exact=False)
    task = _only_task(diff)
    assert task.unchanged and task.changes == () and diff.changed_files == ()
    assert task.growth_percent == 0.0
    assert diff.grown_over(0) == ()


def test_growth_from_an_empty_context_is_infinite(repo: Path) -> None:
    write(repo, REQUIREMENTS, "Nothing here.\n")
    git(repo, "commit", "-q", "-a", "-m", "empty")
    diff = diff_revisions(repo, "HEAD", "HEAD~1", exact=False)
    assert math.isinf(_only_task(diff).growth_percent or 0)
    assert len(diff.grown_over(1000)) == 1


def test_a_task_graph_broken_at_b_is_named_and_its_tasks_count_as_removed(repo: Path) -> None:
    write(repo, ".gsd/specs/feat/task-graph.json", "{not json")
    diff = diff_revisions(repo, "HEAD", exact=False)
    [task] = diff.tasks
    assert task.presence == "removed" and task.after is None and task.growth_percent is None
    assert diff.grown_over(0) == ()  # the gate looks at tasks on both sides only
    [note] = diff.notes
    assert note.startswith("working tree: feature feat left out: .gsd/specs/feat/task-graph.json")


# -- refusals ------------------------------------------------------------------------------------


def test_not_a_repository(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(NotARepositoryError, match="not in a git repository"):
        diff_revisions(tmp_path / "plain", "HEAD")


@pytest.mark.parametrize(
    ("rev", "message"),
    [
        ("nope", "'nope': no such revision"),
        ("--output=/tmp/x", "cannot start with '-'"),
        ("-p", "cannot start with '-'"),
        ("HEAD\nmain", "control characters"),
        ("  ", "name a revision"),
        ("HEAD~5", "no such revision"),
    ],
)
def test_revisions_refused_before_git_sees_them(repo: Path, rev: str, message: str) -> None:
    with pytest.raises(UnknownRevisionError, match=message):
        diff_revisions(repo, rev)


def test_git_missing_is_one_error(repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(GitUnavailableError, match="git is not installed"):
        diff_revisions(repo, "HEAD")


def test_an_unknown_feature_names_the_features(repo: Path) -> None:
    with pytest.raises(UnknownFeatureError, match=r"at working tree; the only feature is feat$"):
        diff_revisions(repo, "HEAD~1", feature="nope")


def test_ids_match_across_both_revisions_ignoring_case(repo: Path) -> None:
    diff = diff_revisions(repo, "HEAD~1", "HEAD", feature="FEAT", task="t1", exact=False)
    assert [(t.feature, t.task_id) for t in diff.tasks] == [("feat", "T1")]
    with pytest.raises(UnknownTaskError, match=r"no task 'T' in feature 'feat' at HEAD~1 .*; did you mean T1\?$"):
        diff_revisions(repo, "HEAD~1", "HEAD", feature="feat", task="T", exact=False)


def test_cancel_stops_the_diff(repo: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        diff_revisions(repo, "HEAD~1", "HEAD", exact=False, cancel=cancel)


def test_the_scratch_folders_are_removed(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    seen: list[str] = []

    def progress(stage: str, _fraction: float) -> None:
        seen.extend(os.listdir(scratch))

    diff_revisions(repo, "HEAD~1", "HEAD", exact=False, progress=progress)
    assert any(name.startswith("ctxviewer-rev-") for name in seen)  # they were there while it ran
    assert os.listdir(scratch) == []


def test_progress_runs_from_reading_the_revisions_to_done(repo: Path) -> None:
    seen: list[tuple[str, float]] = []
    diff_revisions(repo, "HEAD~1", "HEAD", exact=False, progress=lambda s, f: seen.append((s, f)))
    fractions = [f for _s, f in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and seen[-1] == ("done", 1.0)
    stages = [s for s, _f in seen]
    assert any(s.startswith("reading HEAD~1 (") and s.endswith("files") for s in stages)
    assert "feat/T1" in stages


def test_cancel_while_reading_a_revision(repo: Path) -> None:
    cancel = threading.Event()

    def progress(stage: str, _fraction: float) -> None:
        if stage.startswith("reading HEAD~1 (") and stage.endswith("files"):
            cancel.set()

    with pytest.raises(Cancelled):
        diff_revisions(repo, "HEAD~1", "HEAD", exact=False, cancel=cancel, progress=progress)


def test_a_task_whose_title_gains_a_keyword_moves_paragraphs_by_the_task_graph(repo: Path) -> None:
    # "Login session text": 'text' joins the keywords.  P5 ("Login text five.") now scores 2
    # like P6; ranked P5, P6 (file order), P1, P2, P3: P5 enters, P4 ("Login link four.",
    # still score 1, its line untouched) is pushed out by it.
    graph = repo / ".gsd/specs/feat/task-graph.json"
    write(
        repo,
        ".gsd/specs/feat/task-graph.json",
        graph.read_text(encoding="utf-8").replace("Login session", "Login session text"),
    )
    task = _only_task(diff_revisions(repo, "HEAD", exact=False))
    changes = {c.change.item_id: c for c in task.changes}
    assert {k: c.change.change for k, c in changes.items()} == {"requirements:5": ENTERED, "requirements:4": LEFT}
    [cause] = changes["requirements:5"].causes
    assert cause.kind == TASK
    assert cause.text == "the task changed (.gsd/specs/feat/task-graph.json): keywords +text"
    assert cause.where == ".gsd/specs/feat/task-graph.json:1"  # the graph is one line of JSON
    [pushed] = changes["requirements:4"].causes
    assert (pushed.kind, pushed.candidate) == (DISPLACED, "paragraph 5 of requirements.md (line 9)")


def test_a_fate_change_between_two_drops_is_listed(repo: Path) -> None:
    # budget 80: requirements get int(80 * 0.5) // 2 = 20 tokens = 80 characters.
    # A: P1-P5 joined is 89 characters; the last paragraph break before 80 is at 71 (after P4),
    #    past half, so the cut keeps P1-P4 and P5 (rank 5 of 5) is cut for budget.
    # B: P6, P1-P4 joined is 91; the last break before 80 is at 73 (after P3): P4 is cut for
    #    budget, and P5, sixth, is outranked -- out of both contexts, for another reason.
    task = _only_task(diff_revisions(repo, "HEAD~1", "HEAD", exact=False, overrides={"budget": 80}))
    moved = {c.change.item_id: (c.change.change, c.change.status_before, c.change.status_after) for c in task.changes}
    assert moved == {
        "requirements:6": (ENTERED, NOT_CANDIDATE, INCLUDED),
        "requirements:4": (LEFT, INCLUDED, CUT_FOR_BUDGET),
        "requirements:5": (FATE, CUT_FOR_BUDGET, OUTRANKED),
    }
    p5 = next(c for c in task.changes if c.change.item_id == "requirements:5")
    assert [(k.kind, k.candidate) for k in p5.causes] == [(DISPLACED, "paragraph 6 of requirements.md (line 11)")]
    assert [c.change.change for c in task.changes] == [ENTERED, LEFT, FATE]

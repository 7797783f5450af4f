"""Bisect: one task followed through a generated history, commit by commit.

The history is ``tests/factories.make_bisect_repo``: task T1 ("Login session", keywords
login and session) of feature ``feat``; requirements.md holds REVISION_PARAGRAPHS (P1-P5 hold
'login', score 1; P6 none), top 5 kept per spec file.  Worked by hand, commit by commit:

* not touching a file T1's run reads, so never assembled: README.md, src/, docs/ (nothing
  lists the project folder), the other feature's spec and graph (its folder is still there),
  CLAUDE.md (only the worker window reads it), .gsd/notes.md (.gsd stays a folder), a merge
  that brings only docs/side.md, the README moved into docs/;
* read, but the context is the same: P6 reworded without a keyword (still no candidate), a
  design paragraph without one, ``top_k: 5`` written out (the default), a third feature folder
  (the specs folder's listing changed; the task did not), a Python rule file (T1 has no files,
  so no rule is matched), T2's title (the same graph file, another task);
* the context changes: P6 becomes "Session login six." (score 2: it enters, P5 is outranked),
  "Login session design." (the design file's only candidate: it enters), ``top_k: 6`` (P5
  comes back) and ``top_k: 5`` again (P5 leaves), T1's title loses 'session' (P6 falls to score
  1 and the top five of requirements.md are P1-P5 by order), a merge that lengthens P1 (it
  grows), P2 deleted (it is gone).
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from ctxviewer.engine.analysis.whatif import ENTERED, GONE, GREW, LEFT
from ctxviewer.engine.errors import UnknownFeatureError, UnknownTaskError
from ctxviewer.engine.files.git import NotARepositoryError, UnknownRevisionError
from ctxviewer.engine.files.readlog import Reads, Scan
from ctxviewer.engine.profiles.base import Cancelled
from ctxviewer.engine.runs import bisection
from ctxviewer.engine.runs.bisection import (
    ADDED,
    CHANGED,
    PROMPT,
    WINDOW_WHAT,
    bisect_task,
    inputs_touched,
    parse_range,
)
from ctxviewer.engine.runs.revisions import EDIT, SETTING, TASK
from ctxviewer.engine.trace.model import INCLUDED, OUTRANKED
from tests.factories import BISECT_STEPS, REQUIREMENTS, make_bisect_repo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: bisect needs it")

NOT_READ = [
    "readme-add",
    "readme-edit",
    "src-add",
    "other-spec",
    "other-graph",
    "claude-add",
    "claude-edit",
    "gsd-notes",
    "docs-guide",
    "merge-docs",
    "readme-move",
    "src-edit-1",
    "src-edit-2",
    "src-util",
]
SAME = ["p6-unrelated", "design-plain", "yaml-top5", "third-feature", "rule-python", "t2-title"]
CHANGED_CONTEXT = ["p6-login", "design-login", "yaml-top6", "yaml-top5-again", "t1-title", "merge-p1", "p2-delete"]
ORDER = [label for label, _files in BISECT_STEPS]


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("bisect") / "proj"
    return root, make_bisect_repo(root)


@pytest.fixture
def assembled(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The commit ids assembled, in order (None: before the first commit)."""
    seen: list[str | None] = []
    real = bisection._assemble

    def spy(repo, sha, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(sha)
        return real(repo, sha, *args, **kwargs)

    monkeypatch.setattr(bisection, "_assemble", spy)
    return seen


def _labels(shas: dict[str, str], ids: list[str | None]) -> list[str]:
    by_sha = {sha: label for label, sha in shas.items()}
    return [by_sha[s] if s is not None else "(empty)" for s in ids]


def test_the_classification_covers_every_commit_once() -> None:
    assert sorted(NOT_READ + SAME + CHANGED_CONTEXT) == sorted(ORDER)


def test_lists_exactly_the_commits_that_changed_the_context_and_assembles_only_those_that_touch_its_inputs(
    history: tuple[Path, dict[str, str]], assembled: list[str | None]
) -> None:
    root, shas = history
    found = bisect_task(root, f"{shas['base']}..main", feature="feat", task="T1")
    assert [shas[label] for label in ORDER] == [c.sha for c in found.commits]
    assert [c.commit.sha for c in found.changes] == [shas[label] for label in CHANGED_CONTEXT]
    touched = [label for label in ORDER if label in SAME or label in CHANGED_CONTEXT]
    assert _labels(shas, assembled) == ["base", *touched]
    assert found.assembled == len(SAME) + len(CHANGED_CONTEXT) == 13
    assert found.notes == ()


def test_each_change_names_its_inputs_candidates_and_causes(history: tuple[Path, dict[str, str]]) -> None:
    root, shas = history
    found = bisect_task(root, f"{shas['base']}..main", feature="FEAT", task="t1")  # ids in any case
    assert (found.feature, found.task_id) == ("feat", "T1")
    by = {c.commit.sha: c for c in found.changes}

    p6 = by[shas["p6-login"]]
    assert p6.inputs == (REQUIREMENTS,)
    moves = {
        (c.change.item_id, c.change.change, c.change.status_before, c.change.status_after) for c in p6.task.changes
    }
    assert ("requirements:5", LEFT, INCLUDED, OUTRANKED) in moves
    entered = next(c for c in p6.task.changes if c.change.change == ENTERED)
    assert (entered.change.item_id, entered.causes[0].kind, entered.causes[0].lines) == (
        "requirements:6",
        EDIT,
        ((11, 11),),
    )

    top6 = by[shas["yaml-top6"]]
    assert top6.inputs == ("ctxviewer.yaml",)
    [back] = top6.task.changes
    assert (back.change.item_id, back.change.change) == ("requirements:5", ENTERED)
    assert [k.kind for k in back.causes] == [SETTING] and "top_k: 5 \u2192 6" in back.causes[0].text

    title = by[shas["t1-title"]]
    assert title.inputs == (".gsd/specs/feat/task-graph.json",)
    assert any(k.kind == TASK and "\u2212session" in k.text for c in title.task.changes for k in c.causes)

    merge = by[shas["merge-p1"]]
    assert merge.commit.merge and merge.commit.subject == "merge-p1"
    assert [(c.change.item_id, c.change.change) for c in merge.task.changes] == [("requirements:1", GREW)]

    # P2 goes; with the title "Login" every paragraph scores 1, so the five left (P1, P3-P6) are
    # all kept: P6, now the fifth paragraph, enters.
    gone = by[shas["p2-delete"]]
    assert {(c.change.item_id, c.change.change) for c in gone.task.changes} == {
        ("requirements:2", GONE),
        ("requirements:5", ENTERED),
    }


def test_the_window_counts_memory_files_the_context_does_not(
    history: tuple[Path, dict[str, str]], assembled: list[str | None]
) -> None:
    root, shas = history
    window = bisect_task(root, f"{shas['base']}..main", feature="feat", task="T1", what=WINDOW_WHAT)
    listed = {c.commit.sha: c for c in window.changes}
    claude = listed[shas["claude-add"]]
    assert claude.inputs == ("CLAUDE.md",)
    # The worker runs in its worktree: the worktree's copy loads, the main checkout's is listed only.
    assert [(b.change, b.title, b.tokens_after > 0) for b in claude.blocks] == [
        (ADDED, "CLAUDE.md [main checkout]", False),
        (ADDED, "CLAUDE.md [worktree]", True),
    ]
    edited = listed[shas["claude-edit"]]  # the copy that is not loaded changed too, unseen
    assert [(b.change, b.title, b.edit) for b in edited.blocks] == [
        (CHANGED, "CLAUDE.md [worktree]", "CLAUDE.md, lines 2-3")
    ]
    assert shas["yaml-top6"] not in listed  # top_k is not part of what the worker's session loads
    assert shas["claude-add"] in assembled and shas["readme-add"] not in assembled


def test_the_prompt_follows_the_task_graph_and_the_spec_fallback(history: tuple[Path, dict[str, str]]) -> None:
    root, shas = history
    prompt = bisect_task(root, f"{shas['base']}..main", feature="feat", task="T1", what=PROMPT)
    listed = [c.commit.sha for c in prompt.changes]
    # The prompt quotes requirements.md whole (no design-time context), and T1's title.
    assert shas["p6-unrelated"] in listed and shas["t1-title"] in listed
    assert shas["claude-add"] not in listed and shas["yaml-top6"] not in listed and shas["t2-title"] not in listed


def test_a_range_from_the_middle_starts_from_its_first_commit(
    history: tuple[Path, dict[str, str]], assembled: list[str | None]
) -> None:
    root, shas = history
    found = bisect_task(root, f"{shas['yaml-top5']}..{shas['t2-title']}", feature="feat", task="T1")
    assert [c.commit.sha for c in found.changes] == [shas[x] for x in ("yaml-top6", "yaml-top5-again", "t1-title")]
    assert _labels(shas, assembled) == [
        "yaml-top5",
        "yaml-top6",
        "yaml-top5-again",
        "third-feature",
        "rule-python",
        "t1-title",
        "t2-title",
    ]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("main..{base}", "reversed? write {base}..main"),
        ("main..main", "are the same commit"),
        ("nope..main", "'nope': no such revision"),
        ("main", "write the range A..B"),
        ("{base}...main", "two dots"),
    ],
)
def test_bad_ranges_are_refused(history: tuple[Path, dict[str, str]], spec: str, message: str) -> None:
    root, shas = history
    with pytest.raises(UnknownRevisionError) as caught:
        bisect_task(root, spec.format(base=shas["base"]), feature="feat", task="T1")
    assert message.format(base=shas["base"]) in caught.value.message


def test_unknown_ids_and_a_folder_outside_git(history: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    root, shas = history
    with pytest.raises(UnknownFeatureError):
        bisect_task(root, f"{shas['base']}..main", feature="nope", task="T1")
    with pytest.raises(UnknownTaskError):
        bisect_task(root, f"{shas['base']}..main", feature="feat", task="T77")
    with pytest.raises(NotARepositoryError):
        bisect_task(tmp_path, "HEAD~1..HEAD", feature="feat", task="T1")


def test_cancel_stops_the_walk(history: tuple[Path, dict[str, str]]) -> None:
    root, shas = history
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        bisect_task(root, f"{shas['base']}..main", feature="feat", task="T1", cancel=cancel)


def test_parse_range() -> None:
    assert parse_range(" v1.2..main ") == ("v1.2", "main")
    with pytest.raises(UnknownRevisionError):
        parse_range("..main")


# -- which changed files count --------------------------------------------------------------------


def _commit(*changes: tuple[str, str]) -> bisection.RangeCommit:
    return bisection.RangeCommit("c" * 40, ("p" * 40,), "s", changes)


def test_a_file_read_counts_whatever_the_change() -> None:
    reads = Reads(touched={"specs/f/req.md"})
    tree = bisection._Tree(["specs/f/req.md"])
    assert inputs_touched(_commit(("M", "specs/f/req.md"), ("M", "README.md")), reads, tree, tree) == (
        "specs/f/req.md",
    )


def test_a_listed_folder_counts_an_entry_that_appears_or_goes_not_one_that_changes_below() -> None:
    reads = Reads(listed={"specs"})
    before = bisection._Tree(["specs/f/graph.json"])
    added_file = before.after([("A", "specs/f/notes.md")])
    assert inputs_touched(_commit(("A", "specs/f/notes.md")), reads, before, added_file) == ()
    new_folder = before.after([("A", "specs/g/req.md")])
    assert inputs_touched(_commit(("A", "specs/g/req.md")), reads, before, new_folder) == ("specs/g/req.md",)
    emptied = before.after([("D", "specs/f/graph.json")])
    assert inputs_touched(_commit(("D", "specs/f/graph.json")), reads, before, emptied) == ("specs/f/graph.json",)


def test_a_path_looked_at_counts_when_it_becomes_a_folder() -> None:
    reads = Reads(touched={".claude"})  # looked for, not there
    before = bisection._Tree(["README.md"])
    after = before.after([("A", ".claude/CLAUDE.md")])
    assert inputs_touched(_commit(("A", ".claude/CLAUDE.md")), reads, before, after) == (".claude/CLAUDE.md",)


def test_a_scan_counts_the_files_it_would_read() -> None:
    reads = Reads(scans={Scan("", (".py",), frozenset({"node_modules"}), skip_dot=True)})
    tree = bisection._Tree(["src/a.py"])
    changes = _commit(("M", "src/a.py"), ("A", "node_modules/x.py"), ("A", ".venv/y.py"), ("A", "src/b.txt"))
    assert inputs_touched(changes, reads, tree, tree) == ("src/a.py",)

"""Builders for small projects on disk and for trace items, used by engine, CLI and GUI tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.engine.runs.sensitivity import CHOICE, SHARE, TOKENS, Axis, Segment, Sensitivity
from ctxviewer.engine.tokens.counting import TokenCounts
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, TRUNCATED, Item

RULES = ".claude/rules/security"


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    return path


def make_project(
    root: Path,
    tasks: list[dict[str, Any]],
    requirements: str | None = None,
    design: str | None = None,
    rules: dict[str, str] | None = None,
    feature: str = "feat",
    config: str | None = None,
) -> Path:
    """A minimal project: one feature with the given tasks, specs and rule files."""
    spec = f".gsd/specs/{feature}"
    write(root, f"{spec}/task-graph.json", json.dumps({"feature": feature, "tasks": tasks}))
    if requirements is not None:
        write(root, f"{spec}/requirements.md", requirements)
    if design is not None:
        write(root, f"{spec}/design.md", design)
    for rel, text in (rules or {}).items():
        write(root, f"{RULES}/{rel}", text)
    if config is not None:
        write(root, ".mahabharatha/config.yaml", config)
    return root


# -- a project whose budgets are worked by hand (tests/engine/runs/test_compare.py) ------------------

#: One core rule whose block is "### _core/owasp-2025.md\n" (24 chars) + the rule line
#: "## Rule: " + 1,500 x's (1,509 chars; its trailing newline is not kept) = 1,533 chars.
COMPARE_CORE = "## Rule: " + "x" * 1500 + "\n"
#: Two requirement paragraphs of 600 chars: P1 holds 'login' and 'session' (score 2 for a
#: task titled "Login session"), P2 only 'login' (score 1).  The filler holds no keyword.
COMPARE_P1 = "Login session " + "z" * 586
COMPARE_P2 = "Login " + "z" * 594
COMPARE_TASKS = [
    {"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"]}},
    {"id": "T2", "title": "Session", "files": {}},
]


def make_compare_project(root: Path) -> Path:
    """Feature ``feat``: T1 (hand-worked in tests/engine/runs/test_compare.py) and T2 (no files:
    no security section; only P1 mentions 'session')."""
    return make_project(
        root,
        COMPARE_TASKS,
        requirements=f"{COMPARE_P1}\n\n{COMPARE_P2}",
        design="",
        rules={"_core/owasp-2025.md": COMPARE_CORE},
    )


def make_item(**fields: Any) -> Item:
    """A one-character included spec paragraph (id ``p``, line 1 of requirements.md);
    *fields* override any of its fields."""
    base: dict[str, Any] = {
        "id": "p",
        "kind": "spec_paragraph",
        "section": "spec_excerpts",
        "part": "requirements",
        "source": ".gsd/specs/f/requirements.md",
        "line_start": 1,
        "line_end": 1,
        "score": 1,
        "matched_keywords": (),
        "rank": 1,
        "status": "included",
        "reason": "",
        "text": "x",
        "kept_chars": 1,
        "tokens": TokenCounts(chars=1, heuristic=0),
    }
    return Item(**{**base, **fields})


# -- a git repository with two commits of one project (tests/engine/runs/test_revisions.py) -------------

#: Requirement paragraphs at the first commit, one a line, a blank line between: paragraph N
#: is on line 2N - 1.  For the task "Login session" P1-P5 score 1 ('login'), P6 scores 0.
REVISION_PARAGRAPHS = [
    "Login form one.",
    "Login page two.",
    "Login button three.",
    "Login link four.",
    "Login text five.",
    "Unrelated words six.",
]
#: The second commit's P6 (line 11): 'session' and 'login', score 2.
REVISION_P6 = "Session login six."
REVISION_TASKS = [{"id": "T1", "title": "Login session", "files": {}}]
REQUIREMENTS = ".gsd/specs/feat/requirements.md"


def git(root: Path, *args: str) -> str:
    """Run git in *root* as a test user, with no user or system configuration; its output."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="Test",
        GIT_AUTHOR_EMAIL="test@example.com",
        GIT_COMMITTER_NAME="Test",
        GIT_COMMITTER_EMAIL="test@example.com",
    )
    done = subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=True)
    return done.stdout


def make_git_project(root: Path) -> Path:
    """A repository at *root* holding one project (feature ``feat``, task T1) in two commits:
    ``first`` with REVISION_PARAGRAPHS, then ``second`` with P6 replaced by REVISION_P6."""
    make_project(root, REVISION_TASKS, requirements="\n\n".join(REVISION_PARAGRAPHS) + "\n", design="")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    paragraphs = [*REVISION_PARAGRAPHS[:5], REVISION_P6]
    write(root, REQUIREMENTS, "\n\n".join(paragraphs) + "\n")
    git(root, "commit", "-q", "-a", "-m", "second")
    return root


# -- exact sensitivity --------------------------------------------------------------------

IN, PART, CUT = INCLUDED, TRUNCATED, CUT_FOR_BUDGET

#: Three candidates; the fate vectors seen, in (a, b, c) order.
SMALL_VECTORS = (
    (IN, CUT, CUT),  # 0
    (CUT, IN, CUT),  # 1
    (PART, IN, CUT),  # 2: the current settings
    (IN, CUT, IN),  # 3
)
SMALL_BUDGET_AXIS = Axis(
    "budget",
    TOKENS,
    300,
    1,
    10_000_000,
    (Segment(1, 99, 1), Segment(100, 249, 0), Segment(250, 399, 2), Segment(400, 449, 3), Segment(450, 10_000_000, 0)),
    suggest_lo=50,
    suggest_hi=2_000,
    ceiling=450,
)
#: A security share of a 1,000-token budget: section budgets 0..500; "a" is in from 200.
SMALL_SHARE_AXIS = Axis(
    "security_share",
    SHARE,
    0.3,
    0,
    500,
    (Segment(0, 199, 1), Segment(200, 500, 2)),
    of_budget=1_000,
    max_share=0.5,
    suggest_lo=0,
    suggest_hi=500,
)
SMALL_SWITCH_AXIS = Axis(
    "security_rule_filtering",
    CHOICE,
    True,
    0,
    1,
    (Segment(0, 0, 2), Segment(1, 1, 3)),
    choices=(True, False),
    suggest_lo=0,
    suggest_hi=1,
)


def small_sensitivity() -> Sensitivity:
    """Three candidates a, b, c along a budget, a share and a switch (drawn in tests/gui: strips, words)."""
    return Sensitivity(
        task_id="T-1",
        profile="mahabharatha",
        item_ids=("a", "b", "c"),
        vectors=SMALL_VECTORS,
        current=2,
        axes=(SMALL_BUDGET_AXIS, SMALL_SHARE_AXIS, SMALL_SWITCH_AXIS),
        evaluations=0,
        seconds=0.0,
        method="fast",
    )


def _para(words: str, filler: int) -> str:
    return f"{words} " + "z" * filler


def make_small(root: Path) -> Project:
    """Four rule files and six paragraphs that a task about login, sessions and docker matches.

    Sizes are chosen so that rule files fit or not depending on what the others left: the
    python and docker rule files are in, out and in again as the budget grows.
    """
    make_project(
        root,
        [
            {
                "id": "T1",
                "title": "Login session docker",
                "files": {"create": ["src/app.py", "Dockerfile", "web/x.js"]},
            }
        ],
        requirements="\n\n".join(
            [_para("Login session", 180), _para("login", 90), _para("session", 240), _para("docker", 60)]
        ),
        design="\n\n".join([_para("login", 120), _para("session docker", 200)]),
        rules={
            "_core/owasp-2025.md": "## Rule: core\n" + "c" * 300 + "\n",
            "languages/python/CLAUDE.md": "## Rule: py\n" + "p" * 500 + "\n",
            "containers/docker/CLAUDE.md": "## Rule: dock\n" + "d" * 200 + "\n",
            "languages/javascript/CLAUDE.md": "## Rule: js\n" + "j" * 350 + "\n",
        },
    )
    return load_project(root)


# -- a history for bisect ---------------------------------------------------------------------

#: Task T1 ("Login session") of feature ``feat`` at the start of the bisect history, beside T2.
BISECT_TASKS = [
    {"id": "T1", "title": "Login session", "files": {}},
    {"id": "T2", "title": "Billing export", "files": {}},
]
#: The commits of :func:`make_bisect_repo` after ``base``, oldest first: (label, {path: text, or None
#: to delete}).  A label starting ``merge-`` is a merge of a side branch holding those files.
BISECT_STEPS: list[tuple[str, dict[str, str | None]]] = [
    ("readme-add", {"README.md": "# Project\n"}),
    ("readme-edit", {"README.md": "# Project\n\nMore words.\n"}),
    ("src-add", {"src/app.py": "def main():\n    pass\n"}),
    ("p6-unrelated", {REQUIREMENTS: "\n\n".join([*REVISION_PARAGRAPHS[:5], "Unrelated words six, reworded."]) + "\n"}),
    ("p6-login", {REQUIREMENTS: "\n\n".join([*REVISION_PARAGRAPHS[:5], REVISION_P6]) + "\n"}),
    ("other-spec", {".gsd/specs/other/requirements.md": "Other words, and login too.\n"}),
    (
        "other-graph",
        {
            ".gsd/specs/other/task-graph.json": json.dumps(
                {"feature": "other", "tasks": [{"id": "T9", "title": "Other work"}, {"id": "T10", "title": "More"}]}
            )
        },
    ),
    ("design-plain", {".gsd/specs/feat/design.md": "Plain design words.\n"}),
    ("design-login", {".gsd/specs/feat/design.md": "Plain design words.\n\nLogin session design.\n"}),
    ("claude-add", {"CLAUDE.md": "# Notes for the worker\n"}),
    ("claude-edit", {"CLAUDE.md": "# Notes for the worker\n\nUse tabs.\n"}),
    ("yaml-top5", {"ctxviewer.yaml": "top_k: 5\n"}),
    ("yaml-top6", {"ctxviewer.yaml": "top_k: 6\n"}),
    ("yaml-top5-again", {"ctxviewer.yaml": "top_k: 5\n"}),
    ("gsd-notes", {".gsd/notes.md": "Notes beside the specs.\n"}),
    ("third-feature", {".gsd/specs/third/requirements.md": "A feature folder without a graph.\n"}),
    ("rule-python", {f"{RULES}/languages/python/CLAUDE.md": "# Python\n\nNever eval input.\n"}),
    (
        "t1-title",
        {
            ".gsd/specs/feat/task-graph.json": json.dumps(
                {"feature": "feat", "tasks": [{**BISECT_TASKS[0], "title": "Login"}, BISECT_TASKS[1]]}
            )
        },
    ),
    (
        "t2-title",
        {
            ".gsd/specs/feat/task-graph.json": json.dumps(
                {
                    "feature": "feat",
                    "tasks": [{**BISECT_TASKS[0], "title": "Login"}, {**BISECT_TASKS[1], "title": "Bills"}],
                }
            )
        },
    ),
    ("docs-guide", {"docs/guide.md": "A guide.\n"}),
    (
        "merge-p1",
        {
            REQUIREMENTS: "\n\n".join(["Login form one, revised and longer.", *REVISION_PARAGRAPHS[1:5], REVISION_P6])
            + "\n"
        },
    ),
    ("merge-docs", {"docs/side.md": "From a side branch.\n"}),
    (
        "p2-delete",
        {
            REQUIREMENTS: "\n\n".join(["Login form one, revised and longer.", *REVISION_PARAGRAPHS[2:5], REVISION_P6])
            + "\n"
        },
    ),
    ("readme-move", {"README.md": None, "docs/README.md": "# Project\n\nMore words.\n"}),
    ("src-edit-1", {"src/app.py": "def main():\n    return 1\n"}),
    ("src-edit-2", {"src/app.py": "def main():\n    return 2\n"}),
    ("src-util", {"src/util.py": "X = 1\n"}),
]


def make_bisect_repo(root: Path) -> dict[str, str]:
    """A repository at *root*: ``base`` (feature ``feat`` with T1 and T2, REVISION_PARAGRAPHS in
    its requirements, an empty design; feature ``other``), then :data:`BISECT_STEPS` committed one
    by one on ``main``; each ``merge-`` step is a side branch's commit merged with ``--no-ff``.
    Returns each label's commit id (and ``base``'s)."""
    make_project(root, BISECT_TASKS, requirements="\n\n".join(REVISION_PARAGRAPHS) + "\n", design="")
    write(root, ".gsd/specs/other/task-graph.json", json.dumps({"feature": "other", "tasks": [{"id": "T9"}]}))
    write(root, ".gsd/specs/other/requirements.md", "Other words.\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    shas = {"base": git(root, "rev-parse", "HEAD").strip()}
    for label, files in BISECT_STEPS:
        merge = label.startswith("merge-")
        if merge:
            git(root, "checkout", "-q", "-b", f"side-{label}")
        for rel, text in files.items():
            if text is None:
                (root / rel).unlink()
            else:
                write(root, rel, text)
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"side of {label}" if merge else label)
        if merge:
            git(root, "checkout", "-q", "main")
            git(root, "merge", "-q", "--no-ff", "-m", label, f"side-{label}")
        shas[label] = git(root, "rev-parse", "HEAD").strip()
    return shas

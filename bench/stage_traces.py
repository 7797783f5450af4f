"""Snapshot every trace of the staged profiles, to check a refactor changes nothing.

Assembles every task of every sample project (plus a few generated projects that reach
the failure paths, engineering rules, the repository map and compact mode) with the
profiles ``mahabharatha`` (the seed's run, with both its tokenizers), ``zerg-0.3.2``,
``mahabharatha-latest``, ``ctxviewer``, ``drift``, ``shaktiman`` and ``computed`` at four
budgets, and writes each trace's JSON export to ``OUT/<project>/<feature>/<task>/<variant>.json``::

    python bench/stage_traces.py /tmp/traces-before
    # ... change the profiles ...
    python bench/stage_traces.py /tmp/traces-after
    diff -r /tmp/traces-before /tmp/traces-after   # must print nothing

A run that raises is written as the exception's type and message instead.  Generated
projects are written under ``/tmp/stage-traces-projects`` (the same path every time, since
the trace names its project's root); ``--projects DIR`` puts them elsewhere, so two people
comparing at once do not rewrite each other's projects (use the same DIR before and after).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ctxviewer.engine.exports.report import trace_json_text  # noqa: E402
from ctxviewer.engine.files.writing import atomic_write  # noqa: E402
from ctxviewer.engine.project.loading import load_project  # noqa: E402
from ctxviewer.engine.runs.pipeline import assemble_task  # noqa: E402
from tests.engine.profiles.upstream_oracle.generate import COMBOS  # noqa: E402
from tests.engine.profiles.upstream_oracle.generate import make_project as random_project  # noqa: E402
from tests.factories import make_project, write  # noqa: E402

BUDGETS = (1000, 2500, 4000, 8000)
#: (variant name, setting overrides) run at every budget.
VARIANTS: tuple[tuple[str, Mapping[str, Any]], ...] = (
    ("mahabharatha-heuristic", {"profile": "mahabharatha", "upstream": "2026-01-30", "tokenizer": "heuristic"}),
    ("mahabharatha-cl100k", {"profile": "mahabharatha", "upstream": "2026-01-30", "tokenizer": "cl100k_base"}),
    (
        "mahabharatha-topk2-strict",
        {"profile": "mahabharatha", "upstream": "2026-01-30", "top_k": 2, "fallback_to_full": False},
    ),
    ("zerg-0.3.2", {"profile": "zerg-0.3.2"}),
    (
        "zerg-0.3.2-switches",
        {
            "profile": "zerg-0.3.2",
            "compact_mode": "1",
            "analysis_depth": "deep",
            "behavioral_mode": "debug",
            "tdd_mode": "1",
            "worker_id": "3",
        },
    ),
    ("mahabharatha-latest", {"profile": "mahabharatha-latest"}),
    ("ctxviewer", {"profile": "ctxviewer"}),
    ("ctxviewer-o200k-dups", {"profile": "ctxviewer", "tokenizer": "o200k_base", "near_duplicate": 0.2}),
    ("drift", {"profile": "drift"}),
    ("shaktiman", {"profile": "shaktiman"}),
    ("computed", {"profile": "computed"}),
)
GENERATED = Path("/tmp/stage-traces-projects")


def generated_projects(base: Path = GENERATED) -> list[Path]:
    """Small projects for the paths the samples do not take (written fresh each time under *base*)."""
    shutil.rmtree(base, ignore_errors=True)
    out = []
    for seed in (3, 11):
        root = base / f"random-{seed}"
        root.mkdir(parents=True)
        random_project(root, seed, 30)
        out.append(root)
    core = "## Rule: validate input\n**Level**: strict\n**When**: always\n"
    req = (
        "Login sessions expire.\n\nThe session token rotates on login, and the old token is revoked.\n\n"
        "The session token rotates on login, and the old token is revoked at once.\n\nNothing here."
    )
    tasks: list[dict[str, Any]] = [
        {"id": "T1", "title": "Login session token", "files": {"create": ["src/app.py", "web/a.js"]}},
        {"id": "T2", "title": "Login session", "files": ["src/app.py"]},
        {"id": "T3", "title": "Tiny", "files": {"create": ["Dockerfile"]}},
        {"id": "T4", "title": "Login token", "files": {"modify": ["src/app.py", 7]}},
    ]
    cases: dict[str, dict[str, str | bytes]] = {
        "bad-rule": {"languages/python/CLAUDE.md": b"## Rule: \xff\xfe\n"},
        "nul-rule": {"languages/python/CLAUDE.md": "## Rule: a\x00b\n"},
        "bad-spec": {},
    }
    for name, rules in cases.items():
        root = base / name
        make_project(root, tasks, requirements=req, design="The session design.", rules={"_core/owasp-2025.md": core})
        for rel, text in rules.items():
            write(root, f".claude/rules/security/{rel}", text)
        if name == "bad-spec":
            write(root, ".gsd/specs/feat/design.md", b"caf\xe9 session\n")
        out.append(root)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--projects", type=Path, default=GENERATED, help=f"where to generate projects ({GENERATED})")
    args = parser.parse_args(argv)
    roots = sorted(p for p in (REPO / "sample_projects").iterdir() if p.is_dir()) + generated_projects(args.projects)
    written = 0
    for root in roots:
        project = load_project(root)
        for switch_n, (feature, task) in enumerate(project.tasks()):
            for variant, overrides in VARIANTS:
                for budget in BUDGETS:
                    changes = dict(overrides, budget=budget)
                    if variant == "zerg-0.3.2-switches" and root.parent == args.projects:
                        env = COMBOS[(switch_n * 37) % len(COMBOS)]
                        changes.update({k.lower(): v for k, v in env.items()})
                    try:
                        settings = project.settings.with_overrides(changes, "stage-traces")
                        text = trace_json_text(assemble_task(project, feature, task, settings))
                    except Exception as exc:  # the run's outcome, whatever it is
                        text = f"{type(exc).__name__}: {exc}\n"
                    path = args.out / root.name / feature.name / task.id / f"{variant}-{budget}.json"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    atomic_write(path, text)
                    written += 1
    print(f"{written} traces written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

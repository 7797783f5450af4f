"""Compare the profiles task by task on every sample project (or the projects given).

For each task and profile it prints the context's exact size (cl100k_base) against
the budget, the exact overshoot (tokens over the total budget; sections over their
own budgets are counted too), and how many distinct task keywords the context
covers, measured two ways so no profile is judged by its own rule:

* ``ref kw``: the reference pipeline's keywords found as substrings (its own test);
* ``word kw``: the ctxviewer profile's keywords (stopwords out) found as whole words.

A summary per profile follows: mean tokens used / budget, tasks over budget, total
exact overshoot, mean keyword coverage.

    python bench/compare_profiles.py                       # every sample project
    python bench/compare_profiles.py PROJECT --profiles mahabharatha,ctxviewer --budget 2000
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ctxviewer.engine.profiles.ctxviewer.run import extract, match_counts
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.registry import PROFILES
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.signals.keywords import KeywordError, extract_keywords
from ctxviewer.engine.signals.spec import build_index
from ctxviewer.engine.tokens.counting import CL100K, get_counter
from ctxviewer.engine.trace.model import Trace

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Row:
    project: str
    task: str
    profile: str
    budget: int
    tokens: int
    sections_over: int
    ref_covered: int
    ref_total: int
    word_covered: int
    word_total: int

    @property
    def overshoot(self) -> int:
        return max(0, self.tokens - self.budget)


def coverage(trace: Trace, raw: dict[str, object]) -> tuple[int, int, int, int]:
    lower = trace.context.lower()
    try:
        ref = [k.word for k in extract_keywords(raw)]
    except KeywordError:
        ref = []
    words = [k.word for k in extract(raw) if not k.note]
    hits = match_counts(build_index(lower, 1), words) if lower else {}
    found = {w for counter in hits.values() for w in counter}
    return sum(1 for w in ref if w in lower), len(ref), len(found), len(words)


def measure(project_dir: Path, profiles: Sequence[str], budget: int | None) -> list[Row]:
    project = load_project(project_dir)
    counter = get_counter(CL100K)
    rows = []
    for feature in project.features:
        for task in feature.tasks:
            for profile in profiles:
                overrides: dict[str, object] = {"profile": profile}
                if budget is not None:
                    overrides["budget"] = budget
                settings = project.settings.with_overrides(overrides, "compare_profiles")
                trace = assemble_task(project, feature, task, settings, exact=False)
                over = sum(1 for s in trace.sections if s.text and counter.count(s.text) > s.budget)
                ref_c, ref_t, word_c, word_t = coverage(trace, dict(task.raw))
                rows.append(
                    Row(
                        project_dir.name,
                        task.id,
                        profile,
                        trace.budget,
                        counter.count(trace.context),
                        over,
                        ref_c,
                        ref_t,
                        word_c,
                        word_t,
                    )
                )
    return rows


def print_rows(rows: Sequence[Row], profiles: Sequence[str]) -> None:
    head = f"{'project':<16} {'task':<14} {'budget':>6}"
    for p in profiles:
        head += f" | {p[:12]:>12} {'over':>5} {'ref kw':>6} {'word kw':>7}"
    print(head)
    by_task: dict[tuple[str, str], dict[str, Row]] = {}
    for r in rows:
        by_task.setdefault((r.project, r.task), {})[r.profile] = r
    for (project, task), per in by_task.items():
        first = next(iter(per.values()))
        line = f"{project:<16} {task:<14} {first.budget:>6,}"
        for p in profiles:
            r = per[p]
            over = f"+{r.overshoot}" if r.overshoot else ("s" * r.sections_over or "0")
            kw = f"{r.ref_covered:>3}/{r.ref_total:<2} {r.word_covered:>4}/{r.word_total:<2}"
            line += f" | {r.tokens:>12,} {over:>5} {kw}"
        print(line)


def print_summary(rows: Sequence[Row], profiles: Sequence[str]) -> None:
    print()
    print(
        f"{'profile':<13} {'tasks':>5} {'used/budget':>11} {'over budget':>11} {'overshoot':>9} "
        f"{'sections over':>13} {'ref kw':>7} {'word kw':>7}"
    )
    for p in profiles:
        mine = [r for r in rows if r.profile == p]
        used = statistics.mean(r.tokens / r.budget for r in mine)
        ref = statistics.mean(r.ref_covered / r.ref_total for r in mine if r.ref_total) if mine else 0.0
        word = statistics.mean(r.word_covered / r.word_total for r in mine if r.word_total) if mine else 0.0
        print(
            f"{p:<13} {len(mine):>5} {used:>10.0%} {sum(1 for r in mine if r.overshoot):>11} "
            f"{sum(r.overshoot for r in mine):>9,} {sum(r.sections_over for r in mine):>13} {ref:>7.0%} {word:>7.0%}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("projects", nargs="*", type=Path, help="project folders (default: every sample project)")
    parser.add_argument("--profiles", default=",".join(PROFILES), help="comma-separated profiles to compare")
    parser.add_argument("--budget", type=int, help="override every project's budget")
    args = parser.parse_args(argv)
    profiles = [p.strip() for p in args.profiles.split(",") if p.strip()]
    projects = args.projects or sorted(p for p in (ROOT / "sample_projects").iterdir() if p.is_dir())
    print(f"# {platform.node()} ({platform.machine()}), Python {platform.python_version()}; tokens are cl100k_base")
    rows: list[Row] = []
    for project in projects:
        rows += measure(project, profiles, args.budget)
    print_rows(rows, profiles)
    print_summary(rows, profiles)
    return 0


if __name__ == "__main__":
    sys.exit(main())

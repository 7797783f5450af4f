"""Every left-out candidate of every sample task gets a suggestion that works, or is shown to have none.

For each sample project, profile and task at a tight budget: a one-setting suggestion is applied
as ``--set`` reads it and must bring its candidate in; else the two-setting suggestion likewise;
else a brute force over the axes must find nothing: every value of top_k and of each switch run
whole, the budget and shares at each walked in full through the refit built there, every two
such values together run whole, and, for a candidate a budget or share moves at all (in the
refit's ``decided``; no budget and share together move the others), every budget with every
section budget of each share and every two section budgets of the shares together through the
refit (budgets up to where each share's section budget passes what the ceiling gives it).
Prints one line per sample and profile, and exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ctxviewer.cli.common import parse_setting  # noqa: E402
from ctxviewer.engine.files.reading import one_pass  # noqa: E402
from ctxviewer.engine.profiles.refit_contract import SHARE_KEYS  # noqa: E402
from ctxviewer.engine.project.loading import Feature, Project, Task, load_project  # noqa: E402
from ctxviewer.engine.project.settings import Settings  # noqa: E402
from ctxviewer.engine.registry import PROFILES  # noqa: E402
from ctxviewer.engine.runs.pairs import PairSearch  # noqa: E402
from ctxviewer.engine.runs.pipeline import assemble_task  # noqa: E402
from ctxviewer.engine.runs.sensitivity import (  # noqa: E402
    CHOICE,
    COUNT,
    SHARE,
    TOKENS,
    refit_for,
    sensitivity,
    share_for,
    share_top,
)
from ctxviewer.engine.trace.model import KEPT, Trace  # noqa: E402

SAMPLES = ROOT / "sample_projects"


def _values(axis: Any, last: int) -> list[Any]:
    if axis.kind == CHOICE:
        return [v for v in axis.choices if v != axis.current]
    return [k for k in range(1, last + 1) if k != axis.current]


def _none_anywhere(
    project: Project, feature: Feature, task: Task, settings: Settings, trace: Trace, sens: Any, ids: set[str]
) -> set[str]:
    """Of *ids*, those some pair of settings brings in, by brute force over the axes."""
    last = max(1, max((i.rank for i in trace.items if i.rank is not None), default=1))
    discrete = [a for a in sens.axes if a.kind in (COUNT, CHOICE)]
    numeric = [a.key for a in sens.axes if a.kind in (TOKENS, SHARE)]
    found: set[str] = set()
    for axis in discrete:
        for value in _values(axis, last):
            changed = replace(settings, **{axis.key: value})
            run = assemble_task(project, feature, task, changed, exact=False)
            if numeric:
                at_value = sensitivity(project, feature, task, changed, run, keys=numeric)
                for item_id in ids & set(at_value.item_ids):
                    if any(at_value.including(item_id, key) for key in numeric):
                        found.add(item_id)
    for n, first in enumerate(discrete):
        for second in discrete[n + 1 :]:
            for a in _values(first, last):
                for b in _values(second, last):
                    changed = replace(settings, **{first.key: a, second.key: b})
                    run = assemble_task(project, feature, task, changed, exact=False)
                    found |= {i.id for i in run.items if i.id in ids and i.status in KEPT}
    return found


def _numeric_pairs(refit: Any, sens: Any, settings: Settings, ids: set[str]) -> set[str]:
    """Of *ids*, those the budget with a share, or the two shares, bring in: every budget (up to
    where each share's section budget passes what it gives at the budget axis's ceiling) with every
    section budget of a share, and every two section budgets of the shares at the budget."""
    shares = {k: getattr(settings, k) for k in SHARE_KEYS if sens.axis(k) is not None}
    budget_axis = sens.axis("budget")
    if not shares or budget_axis is None:
        return set()
    found: set[str] = set()

    def look(budget: int, values: dict[str, float]) -> None:
        fates = refit.fates(budget, values)
        found.update(i for i in ids if fates.get(i) in KEPT)

    ceiling = budget_axis.ceiling or budget_axis.hi
    for key, share in shares.items():
        other = {k: v for k, v in shares.items() if k != key}
        reach = max([ceiling, *(int(ceiling * v) / v + 1 for v in other.values() if v > 0)])
        cap = min(budget_axis.hi, int(max(reach, int(ceiling * share) / max(1e-9, 1 - sum(other.values())))) + 1)
        for at in range(budget_axis.lo, cap + 1):
            if at == settings.budget:
                continue
            top = share_top(key, at, {**other, key: share})[0]
            for n in range(top + 1):
                if n != int(at * share):
                    look(at, {**other, key: share_for(at, n)})
    if len(shares) == 2:
        (a, s_a), (b, s_b) = shares.items()
        for n in range(settings.budget + 1):
            v = share_for(settings.budget, n)
            for m in range(settings.budget - n + 1):
                w = share_for(settings.budget, m)
                if v != s_a and w != s_b and v + w <= 1.0 + 1e-9:
                    look(settings.budget, {a: v, b: w})
    return found


def check(sample: str, profile: str, budget: int) -> tuple[dict[str, int], list[str]]:
    project = load_project(SAMPLES / sample)
    settings = project.settings.with_overrides({"profile": profile, "budget": budget}, "check")
    fs = one_pass()
    # "moved": of those with none, how many a budget or a share moves (decided), where the profile
    # has both: the budget with a share and the two shares are brute-forced for them.
    counts = {"left out": 0, "one": 0, "two": 0, "none": 0, "moved": 0}
    failures: list[str] = []
    for feature in project.features:
        for task in feature.tasks:
            trace = fs.run(assemble_task, project, feature, task, settings, exact=False)
            sens = sensitivity(project, feature, task, settings, trace)
            search = PairSearch(project, feature, task, settings, trace, sens)
            none: set[str] = set()
            for item in trace.items:
                if item.status in KEPT:
                    continue
                counts["left out"] += 1
                one = sens.suggestion(item.id)
                changes = [one.set_text] if one else []
                pair = None if one else search.suggestion(item.id)
                changes = changes or ([c.set_text for c in pair.changes] if pair else [])
                if not changes:
                    counts["none"] += 1
                    none.add(item.id)
                    continue
                counts["one" if one else "two"] += 1
                applied = settings.with_overrides(dict(parse_setting(c) for c in changes), "override")
                after = fs.run(assemble_task, project, feature, task, applied, exact=False).item(item.id)
                if after is None or after.status not in KEPT:
                    failures.append(f"{sample} {profile} {task.id} {item.id}: {changes} leaves it out")
            if none:
                wrong = _none_anywhere(project, feature, task, settings, trace, sens, none)
                numeric = [a for a in sens.axes if a.kind in (TOKENS, SHARE)]
                if len(numeric) > 1:
                    refit = refit_for(project, feature, task, settings)
                    moved = none if refit.decided is None else none & refit.decided
                    counts["moved"] += len(moved)
                    if moved:
                        wrong |= _numeric_pairs(refit, sens, settings, moved)
                failures += [f"{sample} {profile} {task.id} {i}: a pair brings it in" for i in sorted(wrong)]
    return counts, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=1200, help="a tight budget (default 1,200)")
    parser.add_argument("--samples", nargs="*", default=["storefront-web", "ledger-service", "edge-cases"])
    parser.add_argument("--profiles", nargs="*", default=list(PROFILES))
    args = parser.parse_args()
    failed = 0
    for profile in args.profiles:
        for sample in args.samples:
            started = time.perf_counter()
            counts, failures = check(sample, profile, args.budget)
            took = time.perf_counter() - started
            words = ", ".join(f"{k} {v:,}" for k, v in counts.items())
            print(f"{sample} {profile}: {words}; {len(failures)} failing ({took:.0f} s)", flush=True)
            for line in failures[:20]:
                print(f"  {line}")
            failed += len(failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

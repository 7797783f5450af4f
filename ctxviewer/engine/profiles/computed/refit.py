"""A fast, exact :class:`~ctxviewer.engine.profiles.refit_contract.Refit` for the ``computed`` profile.

Only packing (:mod:`.packing`) depends on the budget, and it cuts the entries
:meth:`ComputedRun.prepare <ctxviewer.engine.profiles.computed.run.ComputedRun.prepare>`
keeps in a fixed order (:func:`~.packing.cut_order`), so the refit renders the injection
once per cut and :class:`~ctxviewer.engine.profiles.drift.refit.CutSequenceRefit` finds the
cuts a budget makes by bisection.  See docs/sensitivity.md#how-the-refits-work.
"""

from __future__ import annotations

from ctxviewer.engine.profiles.computed.packing import cut_order, render
from ctxviewer.engine.profiles.computed.run import ComputedRun
from ctxviewer.engine.profiles.drift.refit import CutSequenceRefit
from ctxviewer.engine.profiles.lookup import profile_of_run
from ctxviewer.engine.profiles.refit_contract import Refit, SpecSource, WholeRun, budget_range
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.project.upstream import resolve
from ctxviewer.engine.tokens.counting import Census, get_counter


def build_refit(
    project: Project, feature: Feature, task: Task, settings: Settings, *, whole: WholeRun, source: SpecSource
) -> Refit:
    """The computed refit of *task* under *settings* (*feature* as ``assemble_task`` receives it).

    *whole* (``WholeRunRefit``) and *source* (``spec_source``) come from the runs package,
    passed in by ``runs.sensitivity.refit_for`` as for drift
    (:func:`~ctxviewer.engine.profiles.drift.refit.build_refit`).  It returns
    ``whole(project, feature, task, settings)``, exact but a whole run per call, exactly when

    * the profile that runs under *settings* is not ``computed``; or
    * the stages before packing raise (the whole run raises the same at every budget; the
      fallback's :meth:`fates` says so).

    Otherwise the run is made once up to packing, with the decision tokenizer (computed
    decides with the configured one).
    """
    if resolve(project.fs, settings)[0] != profile_of_run(ComputedRun).name:
        return whole(project, feature, task, settings)
    counter = get_counter(settings.tokenizer)
    census = Census(False, settings.tokenizer)
    try:
        run = ComputedRun(project, source(feature, settings)[0], task, settings, counter, census)
        entries = run.prepare().entries
    except Exception:  # the whole run fails the same way: let it say how
        return whole(project, feature, task, settings)
    positions = {id(item): n for n, item in enumerate(run.items)}
    empty = census.measure("")
    tokens = [counter.count(render(entries, settings.budget, empty)[0])]
    cuts: list[list[int]] = []
    for entry in cut_order(entries):
        entry.kept = False
        cuts.append([positions[id(entry.draft)]])
        tokens.append(counter.count(render(entries, settings.budget, empty)[0]))
    base = [item.status for item in run.items]
    return CutSequenceRefit([item.id for item in run.items], base, cuts, tokens, budget_range(settings))

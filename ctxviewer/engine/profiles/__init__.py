"""The pipelines: a package per profile, over a small shared base.

:mod:`.base` -- what every profile shares (item drafts, trim steps, the finished result);
:mod:`.gathering` -- the lenient reading of the task, rule and spec files that ``drift``,
``shaktiman`` and ``ctxviewer`` share; :mod:`.refit_contract` -- what every profile's refit
promises.  A package per profile, each with its run and its refit: :mod:`.mahabharatha`,
:mod:`.zerg` (``zerg-0.3.2`` and ``mahabharatha-latest``), :mod:`.drift`, :mod:`.shaktiman`,
:mod:`.ctxviewer`, :mod:`.computed`.  What each does: ``docs/profiles.md``.
"""

"""The pipelines: one module per profile or upstream version, over a small shared base.

:mod:`.base` -- what every profile shares (item drafts, trim steps, the finished result);
:mod:`.mahabharatha` -- the reference pipeline of seed 000; :mod:`.zerg` -- zerg-ai 0.3.2's
nine-section pipeline; :mod:`.peers` -- what the peer profiles gather; :mod:`.drift`,
:mod:`.shaktiman`, :mod:`.ctxprofile`, :mod:`.computed` -- the peer strategies.  A new profile is a
new module here, a name in :data:`ctxviewer.engine.project.settings.PROFILES`, and a line in the
runner's table (:mod:`ctxviewer.engine.runs.pipeline`).
"""

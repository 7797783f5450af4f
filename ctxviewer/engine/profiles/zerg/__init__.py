"""The nine-section context of the MAHABHARATHA/ZERG plugin as released, reproduced byte for byte.

One module per builder family (:mod:`.engrules`, :mod:`.switches`, :mod:`.repomap`,
:mod:`.compact`), the fate names they use (:mod:`.fates`), the profile that runs them in
upstream's order (:mod:`.profile`), and its fast refit for exact sensitivity (:mod:`.refit`:
every fate at any budget from one run's candidate lengths).  The security rules and spec excerpts are the seed's own
algorithms (:mod:`ctxviewer.engine.profiles.mahabharatha`) at other budgets.
"""

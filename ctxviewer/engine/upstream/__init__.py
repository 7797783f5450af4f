"""Upstream versions of the MAHABHARATHA/ZERG context plugin, reproduced byte for byte.

One module per builder family (:mod:`.engrules`, :mod:`.switches`, :mod:`.repomap`,
:mod:`.compact`), the fate names they use (:mod:`.fates`), and the profiles that run
them in upstream's order (:mod:`.zerg`).  The security rules and spec excerpts are the
seed's own algorithms (:mod:`ctxviewer.engine.mahabharatha`) at other budgets.
"""

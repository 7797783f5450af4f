"""Every byte the engine reads from or writes to disk.

Contained, bounded reads (:mod:`.reading`), atomic writes and scratch folders
(:mod:`.writing`), shipped files (:mod:`.resources`) and a project at a git revision
(:mod:`.git`).  A new *reader* for a project format belongs with its concern (``project``,
``runtime``) and reads through :mod:`.reading`.  See docs/architecture.md#package-map.
"""

"""Every byte the engine reads from or writes to disk.

:mod:`.reading` -- contained, bounded reads of project files (no escaping the project, no
following links out of it, size limits); :mod:`.writing` -- the one way ctxviewer writes a file
(atomically, never through a link or into ``.git``), and scratch folders; :mod:`.resources` -- files
shipped with the package; :mod:`.git` -- a project as it was at a git revision, read with git's
plumbing into a scratch folder.  A new file *reader* for a project format belongs with its concern (``project``,
``runtime``) and reads through :mod:`.reading`.
"""

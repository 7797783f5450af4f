"""Every byte the engine reads from or writes to disk.

:mod:`.reading` -- contained, bounded reads of project files (no escaping the project, no
following links out of it, size limits); :mod:`.writing` -- the one way ctxviewer writes a file
(atomically, never through a link or into ``.git``); :mod:`.resources` -- files shipped with the
package.  A new file *reader* for a project format belongs with its concern (``project``,
``runtime``) and reads through :mod:`.reading`.
"""

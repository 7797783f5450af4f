"""ctxviewer: inspect what an LLM context-assembly pipeline gave each task, and why.

The package has two layers:

* :mod:`ctxviewer.engine` -- Qt-free: project loading, the pipeline profiles, token
  counting, the immutable trace, exports.  Used by the CLI, the tests and the GUI.
* ``ctxviewer.gui`` -- the PySide6 inspector window, a thin reader of engine traces.
"""

__version__ = "0.1.0"

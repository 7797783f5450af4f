"""ctxviewer: inspect what an LLM context-assembly pipeline gave each task, and why.

A Qt-free engine (:mod:`ctxviewer.engine`) with two front ends: ``ctxviewer.gui``, the PySide6
inspector window, and ``ctxviewer.cli``, the ``ctxviewer`` command.  The map:
docs/architecture.md.
"""

__version__ = "0.1.0"

"""The Qt-free engine: project loading, pipeline profiles, token counts, the trace.

Nothing under this package imports Qt; the tests check it by importing the engine
with PySide6 blocked.
"""

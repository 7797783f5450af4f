"""Guards against known defects of the Qt binding we pin."""

from __future__ import annotations

import sys
import threading

from PySide6.QtCore import QObject, Signal


class _Emitter(QObject):
    fired = Signal(int, str, float)


def test_emitting_signals_does_not_drop_references_to_true(qapp) -> None:
    # PySide6 6.12.0 released a reference to Py_True on every emit; on Python < 3.12
    # (where True is not immortal) the refcount reached zero after a few hundred emits
    # and the interpreter aborted.  Emitting 2,000 times, from this thread and from a
    # worker thread, must leave True's refcount where it was.
    emitter = _Emitter()
    received: list[int] = []
    emitter.fired.connect(lambda n, _s, _f: received.append(n))
    before = sys.getrefcount(True)
    for n in range(1_000):
        emitter.fired.emit(n, "x", 0.5)
    worker = threading.Thread(target=lambda: [emitter.fired.emit(n, "y", 1.0) for n in range(1_000)])
    worker.start()
    worker.join()
    qapp.processEvents()
    assert len(received) == 2_000
    if sys.version_info < (3, 12):
        assert abs(sys.getrefcount(True) - before) < 50

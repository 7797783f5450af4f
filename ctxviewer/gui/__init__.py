"""The PySide6 inspector window (a thin reader of engine traces)."""

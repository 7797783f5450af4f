"""The first and last stages of the reference run (and of the nine-section runs built on it).

The task's files (:func:`task_files`), the fall-back when the whole run failed
(:func:`fall_back`), and the context as the non-empty sections joined in order
(:func:`join_sections`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxviewer.engine.profiles.base import ItemDraft
from ctxviewer.engine.signals.keywords import describe_value
from ctxviewer.engine.trace.model import INCLUDED, NOT_CANDIDATE, SECURITY, SPEC, TRUNCATED, Item

SECTION_TITLES = {SECURITY: "Security rules", SPEC: "Spec excerpts"}


@dataclass(frozen=True)
class TaskFiles:
    """The task's create/modify entries as the reference reads them (paths or not)."""

    entries: tuple[Any, ...]
    #: Why the whole run fails (``files`` is not a mapping); None: it does not.
    fatal: str | None = None

    def shown(self) -> tuple[str, ...]:
        """The entries as the trace lists them: a path as it is, anything else described."""
        return tuple(str(f) if isinstance(f, str) else describe_value(f) for f in self.entries)


def task_files(raw: Mapping[str, Any]) -> TaskFiles:
    """``files.create`` then ``files.modify`` (each only when a list); a ``files`` that is not a
    mapping fails the whole run."""
    files = raw.get("files", {})
    if not isinstance(files, Mapping):
        return TaskFiles((), f"task 'files' is {describe_value(files)}, not a mapping")
    entries: list[Any] = []
    for key in ("create", "modify"):
        listed = files.get(key)
        if isinstance(listed, list):
            entries.extend(listed)
    return TaskFiles(tuple(entries))


def fall_back(items: Sequence[ItemDraft | Item], fatal: str, fallback_to_full: bool, fate: str = NOT_CANDIDATE) -> None:
    """Every kept draft out again (as *fate*), saying it would have been kept but the whole context failed."""
    for draft in items:
        if isinstance(draft, ItemDraft) and draft.status in (INCLUDED, TRUNCATED):
            draft.reason = (
                f"would be {draft.status} ({draft.reason}), but the whole context "
                f"{'fell back to empty' if fallback_to_full else 'failed'}: {fatal}"
            )
            draft.status, draft.kept_chars, draft.offset = fate, 0, None


def join_sections(order: Sequence[str], texts: Mapping[str, str]) -> tuple[str, dict[str, tuple[int, int]]]:
    """The context (the non-empty texts in *order*, joined by a blank line) and each one's span in it."""
    chunks: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    pos = 0
    for name in order:
        text = texts[name]
        if not text:
            continue
        if chunks:
            pos += 2
        spans[name] = (pos, pos + len(text))
        chunks.append(text)
        pos += len(text)
    return "\n\n".join(chunks), spans

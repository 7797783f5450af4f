"""Task signals (seed 004, phase 1): keywords, domains, files mentioned, type and phase.

Read from the task's ``title``, ``description`` (or ``objective``) and ``acceptance_criteria``.
Every profile's trace carries them; the ``computed`` profile decides with them.  Each
signal's rules: docs/computed-context.md#signals-every-profile.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ctxviewer.engine.project.settings import DEFAULT_DOMAINS as SEED_DOMAINS
from ctxviewer.engine.signals.words import STOPWORDS, normalise, words_of
from ctxviewer.engine.trace.model import Signal, Signals

#: Seed 004's domain mapping table (``computed.domains`` in ``ctxviewer.yaml`` replaces it).
DEFAULT_DOMAINS: Mapping[str, tuple[str, ...]] = dict(SEED_DOMAINS)

_STRIP = "\"'`()[]{}<>,;!?*"
_LINE_SUFFIX = re.compile(r":\d+(?:-\d+)?$")
_NAME_EXT = re.compile(r"^[\w][\w.\-]*\.[A-Za-z][A-Za-z0-9]{0,7}$")
_NOT_FILES = frozenset({"e.g", "i.e", "etc", "vs", "a.m", "p.m"})


def task_texts(task: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(source, text) pairs of the task's objective and acceptance criteria, in order."""
    out: list[tuple[str, str]] = []
    for key in ("title", "objective", "description"):
        value = task.get(key)
        if isinstance(value, str) and value.strip():
            out.append((key, value))
    criteria = task.get("acceptance_criteria")
    if isinstance(criteria, str) and criteria.strip():
        out.append(("acceptance_criteria", criteria))
    elif isinstance(criteria, list):
        for n, entry in enumerate(criteria, 1):
            if isinstance(entry, str) and entry.strip():
                out.append((f"acceptance_criteria[{n}]", entry))
    return out


def path_tokens(text: str) -> list[str]:
    """The path-like tokens of *text*, in order, each once."""
    out: dict[str, None] = {}  # ordered set: a text listing 100,000 paths stays linear
    for raw in text.split():
        token = raw.strip(_STRIP).rstrip(".:")
        token = _LINE_SUFFIX.sub("", token).strip(_STRIP)
        if not token or "://" in token or token.lower() in _NOT_FILES:
            continue
        if "/" in token:
            if not any(c.isalnum() for c in token) or token.startswith("//"):
                continue
        elif not _NAME_EXT.match(token) or len(token.split(".", 1)[0]) < 2:
            continue
        out[token] = None
    return list(out)


def _add(found: dict[str, dict[str, None]], value: str, source: str) -> None:
    found.setdefault(value, {})[source] = None


def extract_signals(
    task: Mapping[str, Any], domains: Mapping[str, Sequence[str]] | Sequence[tuple[str, Sequence[str]]] | None = None
) -> Signals:
    """The task's signals, each with the fields it came from (*domains*: seed 004's table if None)."""
    domains = DEFAULT_DOMAINS if domains is None else dict(domains)
    keywords: dict[str, dict[str, None]] = {}
    stopped: dict[str, dict[str, None]] = {}
    files: dict[str, dict[str, None]] = {}
    for source, text in task_texts(task):
        for word in words_of(text):
            if len(word) < 3 or word.isdigit():
                continue
            word = normalise(word)
            _add(stopped if word in STOPWORDS else keywords, word, source)
        for path in path_tokens(text):
            _add(files, path, source)
    found_domains: dict[str, dict[str, None]] = {}
    for domain, triggers in domains.items():
        for trigger in triggers:
            word = normalise(str(trigger).lower())
            if word in keywords:
                _add(found_domains, str(domain), f"keyword {word!r}")
    meta: list[Signal] = []
    for key, label in (("type", "type"), ("phase", "phase"), ("level", "phase"), ("complexity", "complexity")):
        value = task.get(key)
        if label == "phase" and any(s.kind == "phase" for s in meta):
            continue
        if isinstance(value, bool) or value is None or isinstance(value, (Mapping, list)):
            continue
        text = str(value).strip()
        if text:
            meta.append(Signal(label, f"level {text}" if key == "level" else text, (key,)))
    return Signals(
        keywords=tuple(Signal("keyword", w, tuple(s)) for w, s in keywords.items()),
        domains=tuple(Signal("domain", d, tuple(s)) for d, s in found_domains.items()),
        files=tuple(Signal("file", p, tuple(s)) for p, s in files.items()),
        task=tuple(meta),
        stopwords=tuple(Signal("stopword", w, tuple(s)) for w, s in stopped.items()),
    )

"""Saving tuned settings to the project's ``ctxviewer.yaml``.

Only ``ctxviewer.yaml`` is written, never the system's config, and it is updated, not
replaced.  The new text is parsed back through the project's loader before it is written, and
the write is atomic and refused when the file changed on disk since the project was loaded or
since :func:`plan_save`.  PyYAML keeps no comments but a leading block; :class:`SaveResult` says
what was lost.  See docs/ctxviewer-yaml.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from ctxviewer.engine.errors import ProjectError, SettingsError, WriteError
from ctxviewer.engine.files.writing import Signature, atomic_write, file_signature
from ctxviewer.engine.project.loading import CTXVIEWER_YAML, Project, _signature, parse_yaml
from ctxviewer.engine.project.settings import (
    CTXVIEWER_YAML_KEYS,
    SettingChange,
    Settings,
    apply_flat,
    flatten_ctxviewer_yaml,
    show_setting,
)

#: Settings the GUI tunes and may save (paths are edited by hand, not tuned), each once:
#: ``upstream`` has two spellings in ctxviewer.yaml (``upstream: v``, ``upstream: {version: v}``).
TUNABLE = tuple(dict.fromkeys(v for v in CTXVIEWER_YAML_KEYS.values() if not v.startswith("paths.")))


@dataclass(frozen=True, slots=True)
class SaveResult:
    path: str
    changes: tuple[SettingChange, ...]
    text: str
    #: Comments in the old file that the rewrite could not keep (0 when none).
    comments_lost: int = 0
    written: bool = True
    #: The file's (mtime_ns, size) when planned (None: it did not exist); the write is
    #: refused if it differs then, so what was shown is what gets written.
    signature: Signature | None = None

    def summary(self) -> str:
        if not self.changes:
            return f"{self.path}: already up to date, nothing written"
        lines = [f"Wrote {self.path}:", *(f"  {c.describe()}" for c in self.changes)]
        if self.comments_lost:
            lines.append(f"  ({self.comments_lost} comment line(s) inside the file could not be kept)")
        return "\n".join(lines)


def _yaml_value(key: str, value: Any) -> Any:
    if key == "zones":
        return {name: percent for name, percent in value}
    if isinstance(value, float) and value.is_integer() and key in ("threshold_percent", "replay_minutes"):
        return int(value)
    return value


def changed_settings(before: Settings, after: Settings) -> tuple[SettingChange, ...]:
    """The tunable settings whose values differ between *before* and *after*."""
    return tuple(
        SettingChange(k, getattr(before, k), getattr(after, k))
        for k in TUNABLE
        if getattr(before, k) != getattr(after, k)
    )


def _nested(flat: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    done: set[str] = set()
    for path, key in CTXVIEWER_YAML_KEYS.items():  # the documented order; a key's first spelling
        if key not in flat or key in done:  # (upstream.version, not the bare upstream)
            continue
        done.add(key)
        node = out
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = flat[key]
    return out


def _split_comments(text: str) -> tuple[str, int]:
    """The leading ``#`` block of *text*, and how many comment lines follow it."""
    lines = text.splitlines()
    head: list[str] = []
    for line in lines:
        if line.startswith("#") or (head and not line.strip()):
            head.append(line)
        else:
            break
    while head and not head[-1].strip():
        head.pop()
    rest = lines[len(head) :]
    lost = sum(1 for line in rest if line.lstrip().startswith("#") or " #" in line)
    return ("\n".join(head) + "\n") if head else "", lost


def plan_save(project: Project, tuned: Settings) -> SaveResult:
    """What saving *tuned* would write, without writing.

    Raises :class:`SettingsError` for a file the loader would refuse, and
    :class:`WriteError` when it changed on disk since *project* was loaded.
    """
    fs = project.fs
    path = str(project.root / CTXVIEWER_YAML)
    signature = file_signature(path)
    old_text = ""
    if fs.exists(CTXVIEWER_YAML):
        read = fs.read_text(CTXVIEWER_YAML)
        if not read.ok or read.text is None:
            raise SettingsError(f"cannot update it: {read.describe()}", CTXVIEWER_YAML)
        old_text = read.text
    try:
        existing = flatten_ctxviewer_yaml(parse_yaml(old_text, CTXVIEWER_YAML), CTXVIEWER_YAML) if old_text else {}
    except ProjectError as exc:
        raise SettingsError(f"cannot update it, fix it first: {exc.message}", CTXVIEWER_YAML, exc.line) from None
    if CTXVIEWER_YAML in project.sources and _signature(fs, CTXVIEWER_YAML) != project.sources[CTXVIEWER_YAML]:
        raise WriteError(
            "changed on disk since the project was loaded; not overwritten (reload the project, then save again)",
            CTXVIEWER_YAML,
        )
    changes = changed_settings(project.settings, tuned)
    flat = dict(existing)
    for change in changes:
        flat[change.key] = _yaml_value(change.key, change.after)
    if not changes:
        return SaveResult(path, (), old_text, 0, written=False, signature=signature)
    head, lost = _split_comments(old_text)
    if not head:
        head = "# ctxviewer settings for this project (see docs/ctxviewer-yaml.md); tuned in ctxviewer\n"
    body = yaml.safe_dump(_nested(flat), sort_keys=False, default_flow_style=False, allow_unicode=True)
    text = head + body
    # Parse it back exactly as load_project would, and check the tuned values survive.
    reparsed = flatten_ctxviewer_yaml(parse_yaml(text, CTXVIEWER_YAML), CTXVIEWER_YAML)
    check = apply_flat(Settings(), {k: v for k, v in reparsed.items() if not k.startswith("paths.")}, CTXVIEWER_YAML)
    for change in changes:
        if getattr(check, change.key) != change.after:
            raise SettingsError(f"{change.key} would not read back as {show_setting(change.after)}", CTXVIEWER_YAML)
    return SaveResult(path, changes, text, lost, signature=signature)


def save_ctxviewer_yaml(project: Project, tuned: Settings, plan: SaveResult | None = None) -> SaveResult:
    """Write the tuned settings into the project's ``ctxviewer.yaml`` atomically.

    With *plan* (from :func:`plan_save`, e.g. shown to the user first) exactly that text
    is written, and only if the file is still as it was when planned.  Raises
    :class:`WriteError` when it changed on disk since, or cannot be written (the old
    file is then left as it was).
    """
    result = plan if plan is not None else plan_save(project, tuned)
    if not result.changes:
        return result
    atomic_write(result.path, result.text, expect_unchanged=result.signature, check_unchanged=True, project_file=True)
    return result

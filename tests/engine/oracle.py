"""An independent, deliberately plain re-statement of the reference pipeline.

Written from the rules in the engine issue, not from ctxviewer's engine, so that a
test comparing the two can fail.  It only computes the assembled context (no trace)
with the 4-characters-per-token estimate, reads files with plain pathlib, and knows
nothing of ctxviewer's settings beyond the budget and two config flags.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

MARK = "\n\n[... truncated for context limits ...]"


def _read(path: Path) -> str:
    # Path.read_text: UTF-8, universal newlines.
    return path.read_text(encoding="utf-8")


def _load(spec_dir: Path, names: tuple[str, ...]) -> str:
    for name in names:
        p = spec_dir / name
        if not p.exists():
            continue
        try:
            text = _read(p).strip()
        except OSError:
            text = ""
        if text:
            return text
    return ""


def _keywords(task: dict[str, Any]) -> set[str]:
    out: set[str] = set()
    for field in ("title", "description"):
        value = task.get(field, "")
        if value:
            out.update(w.lower() for w in value.split() if len(w) > 3)
    for value in task.get("files", {}).values():
        if isinstance(value, list):
            for fp in value:
                stem = PurePosixPath(fp).stem
                out.update(p.lower() for p in stem.replace("-", "_").split("_") if len(p) > 2)
    return out


def _relevant(text: str, keywords: set[str], top_k: int = 5) -> str:
    scored = []
    for para in text.split("\n\n"):
        if not para.strip():
            continue
        score = len([k for k in keywords if k in para.lower()])
        if score:
            scored.append((score, para))
    scored.sort(key=lambda pair: -pair[0])
    return "\n\n".join(p for _, p in scored[:top_k])


def _truncate(text: str, tokens: int) -> str:
    limit = tokens * 4
    if len(text) <= limit:
        return text
    cut = text[:limit]
    para = cut.rfind("\n\n")
    if para > limit // 2:
        return cut[:para] + MARK
    sentence = max(cut.rfind(". "), cut.rfind(".\n"))
    if sentence > limit // 2:
        return cut[: sentence + 1] + MARK
    return cut + MARK


def _spec(root: Path, feature: str, task: dict[str, Any], max_tokens: int) -> str:
    spec_dir = root / ".gsd" / "specs" / feature
    req = _load(spec_dir, ("requirements.md", "REQUIREMENTS.md"))
    des = _load(spec_dir, ("design.md", "DESIGN.md", "architecture.md", "ARCHITECTURE.md"))
    if not req and not des:
        return ""
    kws = _keywords(task)
    if not kws:
        return ""
    parts: list[str] = []
    if req:
        rel = _relevant(req, kws)
        if rel:
            parts += ["## Relevant Requirements", _truncate(rel, max_tokens // 2)]
    if des:
        rel = _relevant(des, kws)
        if rel:
            parts.append("## Relevant Design")
            remaining = max_tokens - len("\n".join(parts)) // 4
            parts.append(_truncate(rel, max(remaining, max_tokens // 4)))
    return "\n\n".join(parts)


def _rules(root: Path, files: list[Any]) -> list[Path]:
    base = root / ".claude" / "rules" / "security"
    chosen = []
    if (base / "_core" / "owasp-2025.md").exists():
        chosen.append(base / "_core" / "owasp-2025.md")
    langs = []
    docker = False
    for fp in files:
        p = PurePosixPath(fp)
        if p.suffix.lower() in (".py", ".pyx", ".pyi"):
            langs.append("python")
        elif p.suffix.lower() in (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx"):
            langs.append("javascript")
        if "dockerfile" in p.name.lower() or p.name.lower().startswith("docker-compose"):
            docker = True
    for lang in ("python", "javascript"):
        if lang in langs and (base / "languages" / lang / "CLAUDE.md").exists():
            chosen.append(base / "languages" / lang / "CLAUDE.md")
    if docker and (base / "containers" / "docker" / "CLAUDE.md").exists():
        chosen.append(base / "containers" / "docker" / "CLAUDE.md")
    return chosen


def _summary(paths: list[Path], max_tokens: int) -> str:
    blocks: list[str] = []
    used = 0
    for path in paths:
        fenced = False
        kept = []
        for line in _read(path).split("\n"):
            if line.strip().startswith("```"):
                fenced = not fenced
            elif not fenced and line.startswith(("## Rule:", "### Rule:", "**Level**", "**When**")):
                kept.append(line)
        if kept:
            block = f"### {path.parent.name}/{path.name}\n" + "\n".join(kept)
            if used + len(block) <= max_tokens * 4:
                blocks.append(block)
                used += len(block)
    return "\n\n".join(blocks)


def oracle_context(root: Path, feature: str, task: dict[str, Any], budget: int = 4000) -> str:
    """The assembled context, or "" where the reference falls back to empty."""
    try:
        files_section = task.get("files", {})
        files = []
        for key in ("create", "modify"):
            if isinstance(files_section.get(key), list):
                files += files_section[key]
        sections = []
        if files:
            try:
                chosen = _rules(root, files)
            except TypeError:
                chosen = []
            summary = _summary(chosen, int(budget * 0.30)) if chosen else ""
            if summary:
                sections.append("## Security Rules (task-scoped)\n\n" + summary)
        try:
            spec = _spec(root, feature, task, int(budget * 0.50))
        except Exception:
            spec = ""
        if spec:
            sections.append(spec)
        return "\n\n".join(sections)
    except Exception:
        return ""

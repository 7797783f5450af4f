"""Claude Code's project memory as a worker's session loads it: which files, in what order, why.

A worker runs ``claude --print`` in its working folder (the project root or its git
worktree inside the project).  Memory files load from that folder and each folder above
it inside the project, farthest first; imports (``@path``) follow the file that names
them; ``CLAUDE.md`` files below the working folder load when the task's files there are
read.  What is documented and what is modelled: docs/worker-window.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

import yaml

from ctxviewer.engine.files.reading import OutsideRootError, Problem, ProjectFS
from ctxviewer.engine.worker.globs import glob_match

#: How a memory file came to be loaded (or listed).
ALWAYS, CONDITIONAL, ON_DEMAND, IMPORT = "always", "conditional", "on_demand", "import"
#: Where a file the session sees comes from: the main checkout, or the worker's worktree.
CHECKOUT, WORKTREE = "checkout", "worktree"
#: Claude Code follows ``@path`` imports this many hops deep (its memory documentation).
IMPORT_DEPTH = 5
#: Files a worktree does not hold: they are git-ignored by convention (Claude Code ignores them itself).
UNTRACKED = ("CLAUDE.local.md",)
#: The framing Claude Code puts before each memory file (observed, not documented).
FRAMING = {
    "project": "project instructions, checked into the codebase",
    "local": "user's private project instructions, not checked in",
}

_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\`]|\\ )+)")


@dataclass(frozen=True)
class MemoryFile:
    """One memory file as the worker's session sees it."""

    path: str  # where the session sees it, relative to the project root
    read_from: str  # the project file whose text it is
    kind: str  # "CLAUDE.md", ".claude/CLAUDE.md", "rule", "CLAUDE.local.md", "import", "nested"
    load: str  # ALWAYS, CONDITIONAL, ON_DEMAND or IMPORT
    loaded: bool
    why: str
    content: str  # the text the session gets (a rule file's front matter left out)
    origin: str  # CHECKOUT or WORKTREE
    globs: tuple[str, ...] = ()
    imported_by: str = ""
    problem: str = ""

    def framed(self, root: str) -> str:
        """The text as placed in the session: a framing line, a blank line, the content."""
        scope = "local" if _name(self.read_from) == "CLAUDE.local.md" else "project"
        where = f"{root.rstrip('/')}/{self.path}"
        return f"Contents of {where} ({FRAMING[scope]}):\n\n{self.content}"


def task_paths(raw: Mapping[str, Any]) -> tuple[str, ...]:
    """The files a task works on (create, modify, read; or a plain list), each once, in graph order."""
    files = raw.get("files")
    entries: list[Any] = []
    if isinstance(files, Mapping):
        for key in ("create", "modify", "read"):
            value = files.get(key)
            if isinstance(value, list):
                entries.extend(value)
    elif isinstance(files, list):
        entries = files
    out: dict[str, None] = {}
    for entry in entries:
        if isinstance(entry, str) and entry.strip():
            path = "/".join(p for p in entry.strip().lstrip("/").split("/") if p not in ("", "."))
            if not path.startswith("../"):
                out[path] = None
    return tuple(out)


@lru_cache(maxsize=4096)
def split_front_matter(text: str) -> tuple[tuple[str, ...] | None, str, str]:
    """(``paths`` globs or None, the text after the front matter, a problem) of a rule file."""
    if not text.startswith("---\n"):
        return None, text, ""
    end = text.find("\n---", 4)
    if end == -1 or text[end + 4 : end + 5] not in ("\n", ""):
        return None, text, ""
    body = text[end + 5 :]
    try:
        data = yaml.safe_load(text[4:end])
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, body, f"front matter is not YAML ({first}): treated as loading always"
    if not isinstance(data, Mapping) or data.get("paths") is None:
        return None, body, ""
    paths = data["paths"]
    if isinstance(paths, str):
        globs = tuple(p.strip() for p in paths.split(",") if p.strip())
    elif isinstance(paths, list) and all(isinstance(p, str) for p in paths):
        globs = tuple(p.strip() for p in paths if p.strip())
    else:
        return None, body, "front matter paths: is not a list of globs: treated as loading always"
    return globs, body, ""


@lru_cache(maxsize=4096)
def imports_in(text: str) -> tuple[str, ...]:
    """The ``@path`` references of *text*, outside code blocks and code spans, in order."""
    out: list[str] = []
    fence = ""
    for line in text.splitlines():
        found = _FENCE.match(line)
        if found:
            mark = found.group(1)
            if not fence:
                fence = mark
            elif mark == fence:
                fence = ""
            continue
        if fence:
            continue
        for match in _IMPORT.finditer(_CODE_SPAN.sub(" ", line)):
            out.append(match.group(1).replace("\\ ", " "))
    return tuple(out)


class _Loader:
    """Collects the memory files of one session, each path once."""

    def __init__(self, fs: ProjectFS, task_files: Sequence[str], duplicates: str, worktree: str) -> None:
        self.fs = fs
        self.worktree = worktree
        self.task_files = tuple(task_files)
        self.duplicates = duplicates
        self.files: list[MemoryFile] = []
        self.notes: list[str] = []
        self._seen: set[str] = set()

    def _text(self, rel: str) -> tuple[str | None, str]:
        read = self.fs.read_text(rel)
        if read.text is not None:
            return read.text, ""
        if read.problem in (Problem.MISSING, Problem.NOT_A_FILE):
            return None, ""
        return None, read.describe()

    def add(
        self,
        seen_as: str,
        read_from: str,
        kind: str,
        load: str,
        why: str,
        origin: str,
        *,
        match_base: str = "",
        depth: int = 0,
        imported_by: str = "",
        skip: str = "",
    ) -> None:
        """List one file; *skip* is why it does not load although it would."""
        if seen_as in self._seen:
            return
        text, problem = self._text(read_from)
        if text is None:
            if problem:
                self._seen.add(seen_as)
                self.files.append(
                    MemoryFile(
                        seen_as, read_from, kind, load, False, f"not loaded: {problem}", "", origin, (), "", problem
                    )
                )
            return
        self._seen.add(seen_as)
        globs: tuple[str, ...] = ()
        content = text
        loaded = True
        if kind == "rule":
            found, content, problem = split_front_matter(text)
            if found is not None:
                globs = found
                load = CONDITIONAL
                matched = [f for f in self.task_files if any(glob_match(g, match_base + f) for g in globs)]
                loaded = bool(matched)
                shown = ", ".join(globs)
                why = (
                    f"paths: {shown}; the task's files {', '.join(matched)} match: "
                    "it loads when the worker works on them"
                    if matched
                    else f"paths: {shown}; none of the task's files match"
                    + (f" as {match_base}<file>" if match_base else "")
                    + ", so it loads only if the worker opens a matching file"
                )
        if skip and loaded:
            loaded, why = False, skip
        self.files.append(
            MemoryFile(seen_as, read_from, kind, load, loaded, why, content, origin, globs, imported_by, problem)
        )
        if loaded:
            self._imports(seen_as, read_from, content, origin, depth, match_base)

    def _imports(self, seen_as: str, read_from: str, content: str, origin: str, depth: int, base: str) -> None:
        for ref in imports_in(content):
            if ref.startswith("~"):
                self.notes.append(f"{seen_as} imports {ref}, outside the project: not read (not counted)")
                continue
            if depth + 1 > IMPORT_DEPTH:
                self.notes.append(f"{seen_as} imports {ref} beyond {IMPORT_DEPTH} hops: not followed")
                continue
            target = self._resolve(read_from, ref)
            if target is None:
                continue
            self.add(
                f"{self.worktree}/{target}" if origin == WORKTREE else target,
                target,
                "import",
                IMPORT,
                f"imported by {seen_as} (@{ref})",
                origin,
                match_base=base,
                depth=depth + 1,
                imported_by=seen_as,
            )

    def twin(self, origin: str, rel: str) -> str:
        """Why a main-checkout file does not load in a worktree session that holds it too ('' if it does)."""
        if origin != CHECKOUT or not self.worktree or self.duplicates != "once":
            return ""
        if _name(rel) in UNTRACKED:
            return ""
        return "the worktree's copy loads instead (worker.memory_duplicates: once)"

    def _resolve(self, importer: str, ref: str) -> str | None:
        if ref.startswith("/"):
            try:
                rel = PurePosixPath(ref).relative_to(PurePosixPath(self.fs.root.as_posix()))
            except ValueError:
                self.notes.append(f"{importer} imports {ref}, outside the project: not read (not counted)")
                return None
            candidate = rel.as_posix()
        else:
            parts: list[str] = []
            for piece in (PurePosixPath(importer).parent / ref).parts:
                if piece == "..":
                    if not parts:
                        self.notes.append(f"{importer} imports {ref}, outside the project: not read (not counted)")
                        return None
                    parts.pop()
                elif piece != ".":
                    parts.append(piece)
            candidate = "/".join(parts)
        try:
            return candidate if candidate and self.fs.is_file(candidate) else None
        except OutsideRootError:
            self.notes.append(f"{importer} imports {ref}, outside the project: not read (not counted)")
            return None


def _folder_files(fs: ProjectFS, folder: str) -> list[tuple[str, str]]:
    """(file, kind) of one folder's memory files, in the order Claude Code loads them."""
    prefix = f"{folder}/" if folder else ""
    out = [(f"{prefix}CLAUDE.md", "CLAUDE.md"), (f"{prefix}.claude/CLAUDE.md", ".claude/CLAUDE.md")]
    out += [(rel, "rule") for rel in fs.walk_files(f"{prefix}.claude/rules", ".md")]
    out.append((f"{prefix}CLAUDE.local.md", "CLAUDE.local.md"))
    return out


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _ancestors(path: str) -> list[str]:
    """Every folder from the root down to *path* (``""`` first)."""
    parts = [p for p in path.split("/") if p] if path else []
    return ["/".join(parts[:n]) for n in range(len(parts) + 1)]


def load_memory(
    fs: ProjectFS,
    task_files: Sequence[str],
    worktree: str = "",
    *,
    duplicates: str = "once",
) -> tuple[tuple[MemoryFile, ...], tuple[str, ...]]:
    """The memory files a session loads, in order, and notes on what could not be read.

    *worktree* is the worker's working folder relative to the project root when it is a
    git worktree of the project (``""``: the session runs in the project root).  A
    worktree holds the project's tracked files, so its memory files are the project's
    own, seen again at the worktree's paths; ``CLAUDE.local.md`` is not in it.  With
    *duplicates* ``once`` a main-checkout file the worktree also holds loads only from
    the worktree; with ``twice`` both load (docs/worker-window.md says which Claude
    Code versions do which).
    """
    worktree = worktree.strip("/")
    loader = _Loader(fs, task_files, duplicates, worktree)
    # The folders between the project root and a worktree hold only other worktrees.
    for in_tree in (False, True) if worktree else (False,):
        base = f"{worktree}/" if worktree and not in_tree else ""
        for rel, kind in _folder_files(fs, ""):
            if in_tree and _name(rel) in UNTRACKED:
                continue
            seen_as = f"{worktree}/{rel}" if in_tree else rel
            why = "in the worker's working folder" if (in_tree or not worktree) else "in a folder above the worker's"
            origin = WORKTREE if in_tree else CHECKOUT
            skip = loader.twin(origin, rel)
            loader.add(seen_as, rel, kind, ALWAYS, f"loads at session start: {why}", origin, match_base=base, skip=skip)
    _nested(loader, fs, task_files, worktree)
    return tuple(loader.files), tuple(loader.notes)


def _nested(loader: _Loader, fs: ProjectFS, task_files: Iterable[str], worktree: str) -> None:
    """``CLAUDE.md`` files below the working folder, in the folders of the task's files."""
    below: dict[str, list[str]] = {}  # folder -> the first few task files under it
    for path in task_files:
        for folder in _ancestors(path.rsplit("/", 1)[0] if "/" in path else "")[1:]:
            shown = below.setdefault(folder, [])
            if len(shown) < 3:
                shown.append(path)
    names = ("CLAUDE.md", ".claude/CLAUDE.md") if worktree else ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
    for folder, shown in below.items():
        files = ", ".join(shown) + (" and others" if len(shown) == 3 else "")
        for name in names:
            rel = f"{folder}/{name}"
            loader.add(
                f"{worktree}/{rel}" if worktree else rel,
                rel,
                "nested",
                ON_DEMAND,
                f"below the working folder: loads when the worker reads {files}",
                WORKTREE if worktree else CHECKOUT,
            )

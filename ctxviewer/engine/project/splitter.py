"""Command splitting: which command files would be split, where, and what it saves.

The reference ``CommandSplitter``'s rules, applied all or nothing through
:func:`ctxviewer.engine.files.writing.atomic_write_all`, refused for a file that changed since
:func:`analyze_project` read it, and never through a link or into ``.git`` (a command file that
is a symlink to ``.git/config`` would hand the repository's text to git).  See docs/cli.md#split.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from dataclasses import dataclass
from pathlib import PurePosixPath

from ctxviewer.engine.errors import WriteError
from ctxviewer.engine.files.reading import OutsideRootError
from ctxviewer.engine.files.writing import PlannedWrite, Signature, atomic_write_all, file_signature, other_names
from ctxviewer.engine.project.loading import Project
from ctxviewer.engine.tokens.counting import Census, TokenCounts

MIN_LINES_TO_SPLIT = 300
SPLIT_RATIO = 0.30
EDGE_LINES = 10


@dataclass(frozen=True, slots=True)
class CommandSection:
    """A ``#``/``##`` section of a command file (lines 1-based, inclusive)."""

    header: str
    start_line: int
    end_line: int
    lines: int


@dataclass(frozen=True, slots=True)
class OnDisk:
    """The :func:`~ctxviewer.engine.files.writing.file_signature` of a split's three files when the
    command file was read (None: the file did not exist)."""

    source: Signature | None
    core: Signature | None
    details: Signature | None


@dataclass(frozen=True, slots=True)
class CommandAnalysis:
    """One command file: size, sections, the split the splitter would make, savings."""

    path: str
    lines: int
    tokens: TokenCounts
    eligible: bool
    sections: tuple[CommandSection, ...]
    target_line: int
    suggested_split: int
    split_line: int
    core_path: str
    details_path: str
    core_text: str
    details_text: str
    rewritten_text: str
    core_tokens: TokenCounts
    details_tokens: TokenCounts
    already_split: bool
    problem: str | None = None
    #: The three files as :func:`analyze_project` found them; None for an analysis that
    #: was not read from a project (:func:`analyze_text`), which cannot be applied.
    on_disk: OnDisk | None = None

    @property
    def tokens_saved(self) -> int:
        """Estimated tokens a worker saves by loading the core instead of the full file."""
        return self.tokens.heuristic - self.core_tokens.heuristic if self.eligible else 0


def _sections(lines: list[str]) -> list[CommandSection]:
    out: list[CommandSection] = []
    header: str | None = None
    start = 0
    for i, line in enumerate(lines):
        if line.startswith("## ") or line.startswith("# "):
            if header is not None:
                out.append(CommandSection(header, start + 1, i, i - start))
            header = line.strip("# ").strip()
            start = i
    if header is not None:
        out.append(CommandSection(header, start + 1, len(lines), len(lines) - start))
    return out


def analyze_text(rel: str, text: str, census: Census, already_split: bool = False) -> CommandAnalysis:
    """Analyze one command file's text (as read with universal newlines)."""
    lines = text.split("\n")
    total = len(lines)
    sections = _sections(lines)
    target = int(total * SPLIT_RATIO)
    suggested = 0
    cumulative = 0
    for sec in sections:
        cumulative += sec.lines
        if cumulative >= target:
            suggested = sec.end_line  # reference: 0-based end_line + 1
            break
    split = max(EDGE_LINES, min(suggested, total - EDGE_LINES))
    eligible = total >= MIN_LINES_TO_SPLIT
    p = PurePosixPath(rel)
    stem, suffix = p.stem, p.suffix
    core_name, details_name = f"{stem}.core{suffix}", f"{stem}.details{suffix}"
    core_lines, details_lines = lines[:split], lines[split:]
    core_text = "\n".join(core_lines) + "\n"
    details_text = (
        f"<!-- SPLIT: details, parent: {p.name} -->\n"
        f"# {stem} — Detailed Reference\n\n"
        "This file contains extended examples, templates, and edge cases.\n"
        f"Core instructions are in `{core_name}`.\n\n" + "\n".join(details_lines) + "\n"
    )
    rewritten = (
        "\n".join(core_lines)
        + f"\n\n<!-- SPLIT: core={core_name} details={details_name} -->\n"
        + f"<!-- For detailed examples and templates, see {details_name} -->\n"
        + "\n"
    )
    return CommandAnalysis(
        path=rel,
        lines=total,
        tokens=census.measure(text),
        eligible=eligible,
        sections=tuple(sections),
        target_line=target,
        suggested_split=suggested,
        split_line=split,
        core_path=str(p.with_name(core_name)),
        details_path=str(p.with_name(details_name)),
        core_text=core_text,
        details_text=details_text,
        rewritten_text=rewritten,
        core_tokens=census.measure(core_text),
        details_tokens=census.measure(details_text),
        already_split=already_split,
    )


def command_files(project: Project) -> list[str]:
    """Command files the splitter considers (split outputs excluded), sorted."""
    base = project.settings.paths.commands
    return [
        f
        for f in project.fs.walk_files(base, ".md")
        if ".core.md" not in PurePosixPath(f).name and ".details.md" not in PurePosixPath(f).name
    ]


def skipped_command_files(project: Project) -> list[tuple[str, str]]:
    """``(path, why)`` of the entries under the commands folder that :func:`command_files`
    leaves out because they cannot be followed: a broken or looping symlink, a link out of
    the project (``*.md`` files, and folders, whose contents cannot be listed)."""
    fs = project.fs
    base = project.settings.paths.commands.rstrip("/")
    out: list[tuple[str, str]] = []
    seen: set[tuple[int, int]] = set()
    stack = [base]
    while stack:
        folder = stack.pop()
        st = fs.lstat(folder)
        if st is None or not stat.S_ISDIR(st.st_mode) or (st.st_dev, st.st_ino) in seen:
            continue
        seen.add((st.st_dev, st.st_ino))
        for name in fs.list_dir(folder):
            child = f"{folder}/{name}" if folder else name
            child_st = fs.lstat(child)
            if child_st is not None:
                if stat.S_ISDIR(child_st.st_mode):
                    stack.append(child)
                continue
            refused = fs.refusal(child)
            if refused is not None:
                why = refused.detail
            else:
                try:
                    why = f"a symlink to {os.readlink(project.root / child)}, which does not exist; not read"
                except OSError as exc:
                    why = f"cannot be read ({exc.strerror or exc})"
            split_output = name.endswith((".core.md", ".details.md"))  # checked when it would be written
            if (name.endswith(".md") and not split_output) or (refused is not None and not name.endswith(".md")):
                out.append((child, why))
    return sorted(out)


def write_refusal(project: Project, rel: str) -> str | None:
    """Why splitting must not write *rel* (a symlink, a file with other names, a symlinked
    folder on the way, a ``.git`` folder), or None when it may."""
    parts = PurePosixPath(rel).parts
    if any(part.casefold() == ".git" for part in parts):
        return "is inside a .git folder; ctxviewer never writes there"
    current = project.root
    for n, part in enumerate(parts, start=1):
        current = current / part
        try:
            what = other_names(current)
        except OSError as exc:
            return f"could not be checked ({exc.strerror or exc})"
        if what is None:
            if not os.path.lexists(current):
                return None  # the rest does not exist yet: it will be a new file
            continue
        last = n == len(parts)
        if what.symlink:
            where = what.words() if last else f"is under {'/'.join(parts[:n])}, a symlink{what.detail}"
            return f"{where}; split never writes through a link"
        if last:  # a folder on the way cannot have hard links
            return f"{what.words()}; split never writes a file with other names"
    return None


def _on_disk(project: Project, rel: str, core_rel: str, details_rel: str) -> OnDisk:
    """Signatures of the command file and its split outputs (raises :class:`WriteError`)."""

    def signature(path: str) -> Signature | None:
        try:
            target = project.fs.resolve(path)
        except OutsideRootError:
            return None  # apply_split refuses to write it
        return file_signature(target)

    return OnDisk(signature(rel), signature(core_rel), signature(details_rel))


def analyze_project(project: Project, exact: bool = True) -> list[CommandAnalysis]:
    """Analyze every command file of *project*; unreadable files carry a problem.

    Each analysis records its files' signatures *before* reading them, so a change made
    while (or after) they are read makes :func:`apply_split` refuse rather than
    overwrite it.
    """
    census = Census(exact)
    out: list[CommandAnalysis] = []
    empty = census.measure("")
    for rel, why in skipped_command_files(project):
        out.append(_problem(rel, f"{rel}: {why}", empty, False))
    for rel in command_files(project):
        p = PurePosixPath(rel)
        core_rel = str(p.with_name(f"{p.stem}.core{p.suffix}"))
        details_rel = str(p.with_name(f"{p.stem}.details{p.suffix}"))
        problem: str | None = None
        on_disk: OnDisk | None = None
        for path in (rel, core_rel, details_rel):
            refusal = write_refusal(project, path)
            if problem is None and refusal is not None:
                problem = f"{path}: {refusal}; not split"
        try:
            if problem is None:
                on_disk = _on_disk(project, rel, core_rel, details_rel)
        except WriteError as exc:
            problem = str(exc)
        read = project.fs.read_text(rel)
        already = project.fs.is_file(core_rel)
        if problem is None and read.text is None:
            problem = read.describe()
        if problem is not None:
            out.append(_problem(rel, problem, empty, already))
            continue
        assert read.text is not None
        analysis = analyze_text(rel, read.text, census, already)
        out.append(dataclasses.replace(analysis, on_disk=on_disk))
    return out


def _problem(rel: str, problem: str, empty: TokenCounts, already: bool) -> CommandAnalysis:
    """The analysis of a command file that is not split, saying why."""
    return CommandAnalysis(
        rel, 0, empty, False, (), 0, 0, 0, "", "", "", "", "", empty, empty, already, problem=problem
    )


def apply_split(project: Project, analysis: CommandAnalysis) -> list[str]:
    """Write the three files of one eligible split, all or nothing; returns the paths written.

    The ``.core.md`` and ``.details.md`` files are written first and the command file
    last; a failure at any step leaves all three as they were.  Raises
    :class:`WriteError` when a file changed on disk since :func:`analyze_project` read
    it (nothing is written) or cannot be written.
    """
    if not analysis.eligible or analysis.problem:
        raise WriteError("not eligible for splitting (fewer than 300 lines)", analysis.path)
    on_disk = analysis.on_disk
    if on_disk is None:
        raise WriteError("was not read from the project; analyze the project first", analysis.path)
    planned: list[PlannedWrite] = []
    order = (
        (analysis.core_path, analysis.core_text, on_disk.core),
        (analysis.details_path, analysis.details_text, on_disk.details),
        (analysis.path, analysis.rewritten_text, on_disk.source),
    )
    for rel, text, seen in order:
        try:
            project.fs.resolve(rel)
        except Exception as exc:
            raise WriteError(f"refusing to write outside the project ({exc})", rel) from None
        refusal = write_refusal(project, rel)
        if refusal is not None:
            raise WriteError(f"{refusal}; nothing written", rel)
        # The path as named, no link on the way (checked above): the write refuses a link
        # that appears there meanwhile, up to the rename.
        target = project.root.joinpath(*PurePosixPath(rel).parts)
        planned.append(PlannedWrite(target, text, expect_unchanged=seen, check_unchanged=True, project_file=True))
    try:
        atomic_write_all(planned)
    except WriteError as exc:
        # Name the project-relative path, as the rest of the split's messages do.
        shown = {str(w.path): rel for w, (rel, _, _) in zip(planned, order, strict=True)}
        raise WriteError(exc.message, shown.get(exc.path or "", exc.path)) from None
    return [rel for rel, _, _ in order]

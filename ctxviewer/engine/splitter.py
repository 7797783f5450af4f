"""Command splitting: which command files would be split, where, and what it saves.

Reference rules (``CommandSplitter``):

* files under the commands folder (``**/*.md``), skipping ``*.core.md`` and
  ``*.details.md``; a file is eligible with 300 or more lines
  (``text.split("\\n")``);
* sections start at lines beginning ``# `` or ``## ``; the target is
  ``int(lines * 0.30)``; the split is the end of the first section at which the
  cumulative section lines reach the target (0 when none does), clamped to
  ``[10, lines - 10]``;
* applying writes ``{name}.core.md`` (the first *split* lines), ``{name}.details.md``
  (a header, then the rest) and rewrites ``{name}.md`` as the core plus a
  ``<!-- SPLIT: ... -->`` reference -- here atomically, and only for eligible files.

Estimates are ``len(text) // 4`` as the splitter's own; exact counts sit beside them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from ctxviewer.engine.atomic import atomic_write
from ctxviewer.engine.errors import WriteError
from ctxviewer.engine.project import Project
from ctxviewer.engine.tokens import Census, TokenCounts

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


def analyze_project(project: Project, exact: bool = True) -> list[CommandAnalysis]:
    """Analyze every command file of *project*; unreadable files carry a problem."""
    census = Census(exact)
    out: list[CommandAnalysis] = []
    for rel in command_files(project):
        read = project.fs.read_text(rel)
        core_rel = str(PurePosixPath(rel).with_name(PurePosixPath(rel).stem + ".core.md"))
        already = project.fs.is_file(core_rel)
        if read.text is None:
            empty = census.measure("")
            out.append(
                CommandAnalysis(
                    rel,
                    0,
                    empty,
                    False,
                    (),
                    0,
                    0,
                    0,
                    "",
                    "",
                    "",
                    "",
                    "",
                    empty,
                    empty,
                    already,
                    problem=read.describe(),
                )
            )
            continue
        out.append(analyze_text(rel, read.text, census, already))
    return out


def apply_split(project: Project, analysis: CommandAnalysis) -> list[str]:
    """Write the three files of one eligible split atomically; returns the paths written."""
    if not analysis.eligible or analysis.problem:
        raise WriteError("not eligible for splitting (fewer than 300 lines)", analysis.path)
    written: list[str] = []
    for rel, text in (
        (analysis.core_path, analysis.core_text),
        (analysis.details_path, analysis.details_text),
        (analysis.path, analysis.rewritten_text),
    ):
        try:
            target = project.fs.resolve(rel)
        except Exception as exc:
            raise WriteError(f"refusing to write outside the project ({exc})", rel) from None
        atomic_write(target, text)
        written.append(rel)
    return written

"""The documentation holds together: every relative link and picture resolves, the README stays
a front door, docs/index.md lists every page, docs/cli.md names every command and option
the parser has, and docs/architecture.md's map names every package and module of the engine.

Links are checked in README.md, docs/**/*.md and bench/README.md: the file (or folder) a link
names must exist, and an ``#anchor`` must be a heading of the Markdown file it points into,
slugged as GitHub slugs headings (lowercase, punctuation dropped, spaces to ``-``, a repeated
heading numbered ``-1``, ``-2``, ...).  Text in code blocks and code spans is not a link.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from ctxviewer.cli.app import build_parser
from tests.conftest import REPO

README = REPO / "README.md"
CLI_DOC = REPO / "docs" / "cli.md"
INDEX = REPO / "docs" / "index.md"
ARCHITECTURE = REPO / "docs" / "architecture.md"
ENGINE = REPO / "ctxviewer" / "engine"
README_MAX_LINES = 300

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
MAP_ROW = re.compile(r"^\| `engine/(\w+)(?:/|\.py)` \|(.*)\|\s*$")


def documents() -> list[Path]:
    """The Markdown files whose links are checked."""
    return [README, *sorted((REPO / "docs").rglob("*.md")), REPO / "bench" / "README.md"]


def prose_lines(text: str) -> list[str]:
    """The lines of *text* outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (before numbering repeats)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading reads as its text
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of the Markdown file *path*."""
    seen: dict[str, int] = {}
    found = set()
    for line in prose_lines(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[str]:
    """The targets of every Markdown link and image in *path*, outside code."""
    targets = []
    for line in prose_lines(path.read_text(encoding="utf-8")):
        targets += LINK.findall(CODE_SPAN.sub("", line))
    return targets


def broken_links(path: Path, root: Path = REPO) -> list[str]:
    """Each relative link of *path* that does not resolve, with why."""
    problems = []
    for target in links(path):
        if EXTERNAL.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / unquote(file_part)).resolve() if file_part else path.resolve()
        if not linked.is_relative_to(root.resolve()):
            problems.append(f"{target}: outside the repository")
        elif not linked.exists():
            problems.append(f"{target}: no such file")
        elif anchor and not (linked.is_file() and linked.suffix == ".md"):
            problems.append(f"{target}: an anchor into a file that is not Markdown")
        elif anchor and anchor not in anchors(linked):
            problems.append(f"{target}: no heading #{anchor} in {linked.relative_to(root.resolve())}")
    return problems


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_and_picture_resolves(path: Path) -> None:
    assert broken_links(path) == []


def test_the_link_check_catches_a_missing_file_a_missing_anchor_and_a_missing_picture(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## A heading, with `code`: and more\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n## Same\n\n## Same\n\n"
        "[fine](other.md#a-heading-with-code-and-more) [fine](#same-1) [fine](https://example.com/x.md)\n"
        "[gone](missing.md) [bad anchor](other.md#nope) ![picture](shots/none.png) [here](#nowhere)\n"
        "`[in code](ignored.md)`\n\n```\n[in a block](ignored.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page, root=tmp_path) == [
        "missing.md: no such file",
        "other.md#nope: no heading #nope in other.md",
        "shots/none.png: no such file",
        "#nowhere: no heading #nowhere in page.md",
    ]


def test_the_readme_is_a_front_door() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; its details belong in docs/"


def test_the_index_lists_every_page() -> None:
    listed = {(INDEX.parent / target.partition("#")[0]).resolve() for target in links(INDEX)}
    pages = {p.resolve() for p in (REPO / "docs").glob("*.md") if p != INDEX}
    assert sorted(p.name for p in pages - listed) == []


def commands() -> dict[str, argparse.ArgumentParser]:
    """Each subcommand of ``ctxviewer``'s parser by name."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def long_options(parser: argparse.ArgumentParser) -> list[str]:
    return sorted({o for a in parser._actions for o in a.option_strings if o.startswith("--") and o != "--help"})


def mentions(text: str, option: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def cli_sections() -> dict[str, str]:
    """docs/cli.md's text under each ``## `` heading (code blocks included), by the heading's words."""
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    fenced = False
    for line in CLI_DOC.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.startswith("## "):
            current = sections.setdefault(line[3:].strip().strip("`"), [])
            continue
        current.append(line)
    return {name: "\n".join(body) for name, body in sections.items()}


def test_the_parser_has_commands_to_check() -> None:
    assert {"assemble", "check", "follow", "gui"} <= set(commands())


@pytest.mark.parametrize("name", sorted(commands()))
def test_cli_doc_has_every_command_and_its_long_options(name: str) -> None:
    sections = cli_sections()
    assert name in sections, f"docs/cli.md has no '## {name}' section"
    missing = [o for o in long_options(commands()[name]) if not mentions(sections[name], o)]
    assert missing == [], f"docs/cli.md's '{name}' section does not mention {missing}"


def test_cli_doc_has_the_program_s_own_options() -> None:
    text = CLI_DOC.read_text(encoding="utf-8")
    assert [o for o in long_options(build_parser()) if not mentions(text, o)] == []


def test_the_readme_table_names_every_command() -> None:
    text = README.read_text(encoding="utf-8")
    assert [name for name in commands() if f"`ctxviewer {name}" not in text] == []


def unmapped(doc: str, engine: Path) -> list[str]:
    """What of *engine* the architecture page *doc* does not name: a package without its row in
    the package table or its place in the tree; a module (or a package inside a package) its
    package's row does not name, as `` `name` `` (`` `name/` `` for a package); a module of the
    engine itself without its row."""
    rows = {m.group(1): m.group(2) for line in doc.splitlines() if (m := MAP_ROW.match(line))}
    tree = doc[: doc.index("| package |")]
    missing = []
    for package in sorted(p for p in engine.iterdir() if (p / "__init__.py").is_file()):
        row = rows.get(package.name)
        if row is None or not re.search(rf"(?<![\w/]){package.name}/", tree):
            missing.append(f"engine/{package.name}/")
            continue
        for part in sorted(package.iterdir()):
            if part.suffix == ".py" and part.name != "__init__.py":
                name = part.stem
            elif (part / "__init__.py").is_file():
                name = part.name + "/"
            else:
                continue
            if f"`{name}`" not in row:
                missing.append(f"engine/{package.name}/{name}")
    for module in sorted(engine.glob("*.py")):
        if module.name != "__init__.py" and module.stem not in rows:
            missing.append(f"engine/{module.name}")
    return missing


def test_the_architecture_map_names_every_engine_package_and_module() -> None:
    assert unmapped(ARCHITECTURE.read_text(encoding="utf-8"), ENGINE) == []


def test_the_map_check_catches_a_package_a_module_and_a_nested_package_left_off(tmp_path: Path) -> None:
    engine = tmp_path / "engine"
    for folder in ("runs", "runs/inner", "files", "tail_less"):
        (engine / folder).mkdir(parents=True)
        (engine / folder / "__init__.py").write_text("", encoding="utf-8")
    for module in ("runs/batch.py", "runs/sweep.py", "files/tail.py", "errors.py", "extra.py"):
        (engine / module).write_text("", encoding="utf-8")
    doc = (
        "```\nengine/\n├── runs/\n├── files/\n```\n\n| package | what |\n|---|---|\n"
        "| `engine/runs/` | every task (`batch`) |\n"
        "| `engine/files/` | a file followed (`tail`) |\n"
        "| `engine/errors.py` | errors |\n"
    )
    assert unmapped(doc, engine) == [
        "engine/runs/inner/",
        "engine/runs/sweep",
        "engine/tail_less/",
        "engine/extra.py",
    ]

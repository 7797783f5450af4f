"""The bad-input corpus (issue 6): every hostile project through the engine, the CLI and all four profiles.

Each case is generated under ``tmp_path`` (large files at test time; files "over the size
limit" are sparse, so they cost no disk) and asserts its exact outcome:

* the engine: the exact :class:`ProjectError` / :class:`SettingsError` ``load_project``
  raises, or the feature's exact ``graph_error``, or the exact context and trace errors of
  the ``mahabharatha`` run of task ``T1``;
* the CLI (``ctxviewer assemble``): the documented exit code (2 for bad input), exactly
  one line per problem on stderr, no traceback; where the run completes, stdout is the
  context;
* every profile (``mahabharatha``, ``drift``, ``shaktiman``, ``ctxviewer``): no exception
  but the documented ``ProjectError`` / ``SettingsError``, the same load outcome whichever
  profile is chosen, the peers' own trace errors exactly, and never a context over budget
  for ``shaktiman`` / ``ctxviewer``.

The limits under test are docs/security.md's "Limits (hostile input)": 64 MiB per file, 100 levels of
nesting, 1,000 YAML aliases and 2,000,000 expanded values, 40 symlink hops, nothing
outside the project root.  Cases where ctxviewer falls short are written for the correct
behaviour and marked ``xfail(strict=True, reason="BUG: ...")``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.cli import main
from ctxviewer.engine.errors import ProjectError, SettingsError, WriteError
from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.project.loading import load_project, parse_json, parse_yaml
from ctxviewer.engine.registry import PROFILES
from ctxviewer.engine.runs.pipeline import assemble, assemble_task
from ctxviewer.engine.runs.session import replay_order, replay_session
from ctxviewer.engine.trace.model import Trace
from tests.engine.files.test_fsio import Recorder, install
from tests.factories import make_project, write

REPO = Path(__file__).resolve().parents[2]

# -- the base project every case starts from -------------------------------------------------

GRAPH = ".gsd/specs/feat/task-graph.json"
GRAPH_YAML = ".gsd/specs/feat/task-graph.yaml"
REQ = ".gsd/specs/feat/requirements.md"
DESIGN = ".gsd/specs/feat/design.md"
CORE = ".claude/rules/security/_core/owasp-2025.md"
CTX = "ctxviewer.yaml"
SYS = ".mahabharatha/config.yaml"

TASK: dict[str, Any] = {"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"]}}
REQ_TEXT = "Login session store.\n\nUnrelated text.\n"
CORE_TEXT = "## Rule: A\n"
YAML_GRAPH_TEXT = "tasks:\n  - id: T1\n    title: Login session\n    files:\n      create: [src/app.py]\n"

# Keywords of T1: 'login', 'session' (title words over 3 characters) and 'app' (stem of
# src/app.py).  Only the first requirements paragraph scores (2); the python rule file that
# src/app.py selects does not exist; the core rule's block is its one '## Rule:' line.
SEC = "## Security Rules (task-scoped)\n\n### _core/owasp-2025.md\n## Rule: A"
SPEC = "## Relevant Requirements\n\nLogin session store."
FULL = f"{SEC}\n\n{SPEC}"

SECRET = "SECRET"  # every file outside the project holds it; no output may
#: What a failure the reference pipeline cannot survive does with fallback_to_full on (the default).
FALLBACK = "the whole context falls back to empty (fallback_to_full is true)"
LIMIT = "67,108,864-byte limit"
OVER_LIMIT = 64 * 1024 * 1024 + 1

EXACT_PROFILES = ("shaktiman", "ctxviewer")


def _can_symlink() -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        try:
            os.symlink("target", os.path.join(tmp, "link"))
        except (OSError, NotImplementedError, AttributeError):
            return False
    return True


CAN_SYMLINK = _can_symlink()
needs_symlinks = pytest.mark.skipif(not CAN_SYMLINK, reason="symlinks are not available on this platform")
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def base_project(root: Path) -> Path:
    return make_project(root, [TASK], requirements=REQ_TEXT, rules={"_core/owasp-2025.md": CORE_TEXT})


def make_outside(base: Path) -> Path:
    """A folder next to the project, full of files the engine must never read."""
    out = base / "outside"
    write(out, "secret.md", f"Login session {SECRET} store.\n")
    write(out, "secret.py", f"# {SECRET}\n" + "x" * 4000)
    write(out, "rule.md", f"## Rule: {SECRET}\n")
    write(out, "graph.json", json.dumps({"tasks": [{"id": "T1", "title": f"Login {SECRET}"}]}))
    write(out, "feat/task-graph.json", json.dumps({"tasks": [{"id": "T1", "title": f"Login {SECRET}"}]}))
    write(out, "feat/requirements.md", f"Login {SECRET}.\n")
    write(out, "specs/feat/task-graph.json", json.dumps({"tasks": [{"id": "T1", "title": f"Login {SECRET}"}]}))
    write(out, "rules/_core/owasp-2025.md", f"## Rule: {SECRET}\n")
    write(out, "ctxviewer.yaml", f"budget:\n  total: 1234\n# {SECRET}\n")
    write(out, "config.yaml", f"workers:\n  context_threshold_percent: 12\n# {SECRET}\n")
    return out


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    """Big inputs must not stay in the engine's content caches after their test."""
    yield
    from ctxviewer.engine.signals import spec

    spec.clear_caches()


# -- building a case ---------------------------------------------------------------------------

Build = Callable[[Path, Path], object]


def put(rel: str, data: str | bytes) -> Build:
    return lambda root, outside: write(root, rel, data)


def remove(rel: str) -> Build:
    def build(root: Path, outside: Path) -> None:
        path = root / rel
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()

    return build


def link(rel: str, target: str) -> Build:
    """Replace *rel* by a symlink to *target* ('{outside}' and '{root}' are filled in)."""

    def build(root: Path, outside: Path) -> None:
        path = root / rel
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(fill(target, root, outside), path)

    return build


def sparse(rel: str, size: int) -> Build:
    """*rel* grown to *size* bytes without writing them (a sparse file)."""

    def build(root: Path, outside: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "ab") as f:
            f.truncate(size)

    return build


def fifo(rel: str) -> Build:
    """Replace *rel* by a named pipe: a naive reader would block on it forever."""

    def build(root: Path, outside: Path) -> None:
        (root / rel).unlink(missing_ok=True)
        os.mkfifo(root / rel)

    return build


needs_fifos = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are not available on this platform")


def steps(*builds: Build) -> Build:
    def build(root: Path, outside: Path) -> None:
        for b in builds:
            b(root, outside)

    return build


def fill(text: str, root: Path, outside: Path) -> str:
    return text.replace("{outside}", str(outside)).replace("{root}", str(root))


def inp(text: str) -> tuple[str, str]:
    """A trace error of kind ``input`` (CLI: an error line, exit 2)."""
    return ("input", text)


def pipe(text: str) -> tuple[str, str]:
    """A trace error of kind ``pipeline`` (CLI: a ``note:`` line)."""
    return ("pipeline", text)


@dataclass(frozen=True)
class Case:
    """One hostile input and everything it must lead to."""

    id: str
    build: Build
    #: str() of the ProjectError/SettingsError load_project raises ('' when it loads).
    load_error: str = ""
    #: str() of feature feat's graph_error ('' when the graph is read).
    graph_error: str = ""
    #: The project's warnings, which are also the trace's warnings (CLI notes).
    warnings: tuple[str, ...] = ()
    #: The mahabharatha context of T1 and its trace errors as (kind, one line).
    context: str = FULL
    errors: tuple[tuple[str, str], ...] = ()
    #: The trace errors of drift, shaktiman and ctxviewer (they gather the same way).
    peers: tuple[tuple[str, str], ...] = ()
    budget: int = 4000
    #: Make (rel, how) vanish between listing and reading: how is delete, deny or folder.
    race: tuple[str, str] | None = None
    symlinks: bool = False
    engine_bug: str = ""
    cli_bug: str = ""
    peer_bug: str = ""
    marks: tuple[Any, ...] = field(default_factory=tuple)


# -- the corpus ------------------------------------------------------------------------------

BILLION_LAUGHS = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9) if prev else ', '.join(['lol'] * 9)}]\n"
    for prev, name in zip(["", "a", "b", "c", "d", "e", "f", "g", "h"], "abcdefghi", strict=True)
)  # 9 ** 9 = 387,420,489 values through 72 aliases
ALIAS_FLOOD = "zones: &z {compaction: 75}\nmore: [" + ", ".join(["*z"] * 1001) + "]\n"
BOM = b"\xef\xbb\xbf"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"

BOMB_MESSAGE = "invalid YAML: expands to more than 2,000,000 values through aliases; refusing a possible alias bomb"
SPEC_OUT = "the spec section is left out (the real system's read raises)"
AS_READ = "read as text all the same, as the real system does"
SPEC_LEFT_OUT = "the spec section is left out"
REQ_LEFT_OUT = "the requirements file is left out"
SECURITY_LEFT_OUT = "the security section is left out"

CASES: list[Case] = [
    # -- malformed JSON / YAML, with the error's line ----------------------------------------
    Case(
        "graph-json-trailing-comma",
        put(GRAPH, '{"tasks": [\n  {"id": "T1", "title": "Login session"},\n]}'),
        graph_error=f"{GRAPH}:3: invalid JSON: Expecting value (column 1)",
    ),
    Case(
        "graph-json-raw-newline-in-string",
        put(GRAPH, '{"tasks": [\n  {"id": "T1",\n   "title": "Login session}\n]}'),
        graph_error=f"{GRAPH}:3: invalid JSON: Invalid control character at (column 28)",
    ),
    Case(
        "graph-json-empty-file",
        put(GRAPH, ""),
        graph_error=f"{GRAPH}:1: invalid JSON: Expecting value (column 1)",
    ),
    Case(
        "graph-yaml-tab-indent",
        steps(remove(GRAPH), put(GRAPH_YAML, "tasks:\n  - id: T1\n\t title: Login session\n")),
        graph_error=f"{GRAPH_YAML}:3: invalid YAML: found character '\\t' that cannot start any token",
    ),
    Case(
        "ctxviewer-yaml-unclosed-flow-mapping",
        put(CTX, "budget: {total: 3000\ntop_k: 3\n"),
        load_error=f"{CTX}:2: invalid YAML: expected ',' or '}}', but got ':'",
    ),
    Case(
        "config-yaml-bad-indent",
        put(SYS, "workers:\n  context_threshold_percent: 55\n plugins: x\n"),
        load_error=f"{SYS}:3: invalid YAML: expected <block end>, but found '<block mapping start>'",
    ),
    Case(
        "zerg-config-unclosed-list",
        put(".zerg/config.yaml", "workers: [55\n"),
        load_error=".zerg/config.yaml:2: invalid YAML: expected ',' or ']', but got '<stream end>'",
    ),
    # -- alias bombs and deep nesting ------------------------------------------------------
    Case("ctxviewer-yaml-billion-laughs", put(CTX, BILLION_LAUGHS), load_error=f"{CTX}: {BOMB_MESSAGE}"),
    Case("config-yaml-billion-laughs", put(SYS, BILLION_LAUGHS), load_error=f"{SYS}: {BOMB_MESSAGE}"),
    Case(
        "graph-yaml-billion-laughs",
        steps(remove(GRAPH), put(GRAPH_YAML, BILLION_LAUGHS + YAML_GRAPH_TEXT)),
        graph_error=f"{GRAPH_YAML}: {BOMB_MESSAGE}",
    ),
    Case(
        "ctxviewer-yaml-1001-aliases",
        put(CTX, ALIAS_FLOOD),
        load_error=f"{CTX}: invalid YAML: more than 1000 alias references (line 2); refusing a possible alias bomb",
    ),
    Case(
        "ctxviewer-yaml-nested-101-deep",
        put(CTX, "zones: " + "[" * 100 + "]" * 100 + "\n"),
        load_error=f"{CTX}: invalid YAML: nested deeper than 100 levels (line 1)",
    ),
    Case(
        "graph-yaml-nested-100000-deep",
        steps(remove(GRAPH), put(GRAPH_YAML, "tasks: " + "[" * 100_000 + "]" * 100_000 + "\n")),
        graph_error=f"{GRAPH_YAML}: invalid YAML: nested deeper than 100 levels (line 1)",
    ),
    Case(
        "graph-json-nested-200-deep",
        put(GRAPH, '{"tasks": ' + "[" * 200 + "]" * 200 + "}"),
        graph_error=f"{GRAPH}: nested deeper than 100 levels",
    ),
    Case(
        "graph-json-nested-100000-deep",
        put(GRAPH, '{"tasks": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        graph_error=f"{GRAPH}: invalid JSON: nested too deeply",
    ),
    # -- task graphs of the wrong shape ----------------------------------------------------
    Case(
        "tasks-is-a-mapping",
        put(GRAPH, json.dumps({"tasks": {"T1": TASK}})),
        graph_error=f"{GRAPH}: 'tasks' must be a list, not dict",
    ),
    Case(
        "tasks-is-a-string",
        put(GRAPH, json.dumps({"tasks": "T1"})),
        graph_error=f"{GRAPH}: 'tasks' must be a list, not str",
    ),
    Case(
        "tasks-is-null",
        put(GRAPH, json.dumps({"tasks": None})),
        graph_error=f"{GRAPH}: the task graph has no 'tasks' list",
    ),
    Case(
        "no-tasks-key",
        put(GRAPH, json.dumps({"feature": "feat"})),
        graph_error=f"{GRAPH}: the task graph has no 'tasks' list",
    ),
    Case(
        "graph-is-a-list",
        put(GRAPH, json.dumps([TASK])),
        graph_error=f"{GRAPH}: a task graph must be a mapping with a 'tasks' list",
    ),
    Case(
        "graph-yaml-empty",
        steps(remove(GRAPH), put(GRAPH_YAML, "")),
        graph_error=f"{GRAPH_YAML}: a task graph must be a mapping with a 'tasks' list",
    ),
    Case(
        "task-entries-of-other-types",
        put(GRAPH, json.dumps({"tasks": [7, "T0", None, ["T1"], TASK]})),
        warnings=(
            f"{GRAPH}: tasks[0] is a int, not a task; skipped",
            f"{GRAPH}: tasks[1] is a str, not a task; skipped",
            f"{GRAPH}: tasks[2] is a NoneType, not a task; skipped",
            f"{GRAPH}: tasks[3] is a list, not a task; skipped",
        ),
    ),
    # -- encodings, BOMs, NUL bytes, line endings ------------------------------------------
    Case(
        "spec-utf8-bom",
        put(REQ, BOM + REQ_TEXT.encode()),
        # read as the real system's read_text(encoding="utf-8") does: U+FEFF stays in the text
        context=f"{SEC}\n\n## Relevant Requirements\n\n\ufeffLogin session store.",
    ),
    Case(
        "rule-utf8-bom",
        put(CORE, BOM + b"## Rule: A\n## Rule: B\n"),
        # "\ufeff## Rule: A" does not start with "## Rule:": as in the real system, line 1 is not kept
        context=SEC.replace("## Rule: A", "## Rule: B") + f"\n\n{SPEC}",
    ),
    Case(
        "graph-json-utf8-bom",
        put(GRAPH, BOM + json.dumps({"tasks": [TASK]}).encode()),
        graph_error=f"{GRAPH}:1: invalid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig) (column 1)",
    ),
    Case("graph-yaml-utf8-bom", steps(remove(GRAPH), put(GRAPH_YAML, BOM + YAML_GRAPH_TEXT.encode()))),
    Case("ctxviewer-yaml-utf8-bom", put(CTX, BOM + b"budget:\n  total: 3000\n"), budget=3000),
    Case("spec-crlf", put(REQ, REQ_TEXT.replace("\n", "\r\n"))),
    Case("rule-crlf", put(CORE, "## Rule: A\r\n```\r\n## Rule: in a fence\r\n```\r\nprose\r\n")),
    Case("graph-json-crlf", put(GRAPH, json.dumps({"tasks": [TASK]}, indent=2).replace("\n", "\r\n"))),
    Case("graph-yaml-crlf", steps(remove(GRAPH), put(GRAPH_YAML, YAML_GRAPH_TEXT.replace("\n", "\r\n")))),
    Case("ctxviewer-yaml-crlf", put(CTX, "budget:\r\n  total: 3000\r\n"), budget=3000),
    Case(
        "spec-nul-bytes",
        put(REQ, "Login\x00 session store.\n\nUnrelated text.\n"),
        context=f"{SEC}\n\n## Relevant Requirements\n\nLogin\x00 session store.",
        errors=(inp(f"{REQ}: binary content (NUL bytes) in a spec file ({AS_READ})"),),
        peers=(inp(f"{REQ}: binary content (NUL bytes) in a spec file ({AS_READ})"),),
    ),
    Case(
        "rule-nul-bytes",
        put(CORE, "## Rule: A\x00\n"),
        context=SEC + "\x00" + f"\n\n{SPEC}",
        errors=(inp(f"{CORE}: binary content (NUL bytes) in a rule file ({AS_READ})"),),
        peers=(inp(f"{CORE}: binary content (NUL bytes) in a rule file ({AS_READ})"),),
    ),
    Case(
        "graph-nul-byte",
        put(GRAPH, b'{"tasks": [{"id": "T1"\x00}]}'),
        graph_error=f"{GRAPH}:1: invalid JSON: Expecting ',' delimiter (column 23)",
    ),
    Case(
        "spec-latin1",
        put(REQ, "Login session store.\n\nCaf\u00e9 text.\n".encode("latin-1")),
        context=SEC,
        errors=(inp(f"{REQ}:3: not UTF-8 (byte 0xe9 at line 3) ({SPEC_OUT})"),),
        peers=(inp(f"{REQ}:3: not UTF-8 (byte 0xe9 at line 3) ({REQ_LEFT_OUT})"),),
    ),
    Case(
        "spec-utf16",
        put(REQ, REQ_TEXT.encode("utf-16")),
        context=SEC,
        errors=(inp(f"{REQ}:1: not UTF-8 (byte 0xff at line 1) ({SPEC_OUT})"),),
        peers=(inp(f"{REQ}:1: not UTF-8 (byte 0xff at line 1) ({REQ_LEFT_OUT})"),),
    ),
    Case(
        "design-is-a-png",
        put(DESIGN, PNG),
        # the reference reads requirements, then design; the design's failure leaves out the whole spec
        context=SEC,
        errors=(inp(f"{DESIGN}:1: not UTF-8 (byte 0x89 at line 1) ({SPEC_OUT})"),),
        peers=(inp(f"{DESIGN}:1: not UTF-8 (byte 0x89 at line 1) (the design file is left out)"),),
    ),
    Case(
        "rule-latin1",
        put(CORE, "## Rule: A\n## Rule: caf\u00e9\n".encode("latin-1")),
        context="",
        errors=(inp(f"{CORE}:2: reading rule file failed: not UTF-8 (byte 0xe9 at line 2) ({FALLBACK})"),),
        peers=(inp(f"{CORE}:2: not UTF-8 (byte 0xe9 at line 2) (this rule file is left out)"),),
    ),
    Case(
        "graph-latin1",
        put(GRAPH, '{"tasks": [\n  {"id": "T1",\n   "title": "Caf\u00e9"}]}'.encode("latin-1")),
        graph_error=f"{GRAPH}:3: not UTF-8 (byte 0xe9 at line 3)",
    ),
    Case(
        "ctxviewer-yaml-latin1",
        put(CTX, "top_k: 5\n# caf\u00e9\n".encode("latin-1")),
        load_error=f"{CTX}:2: not UTF-8 (byte 0xe9 at line 2)",
    ),
    Case(
        "config-yaml-latin1",
        put(SYS, "# caf\u00e9\nworkers: {}\n".encode("latin-1")),
        load_error=f"{SYS}:1: not UTF-8 (byte 0xe9 at line 1)",
    ),
    # -- files over the 64 MiB limit (sparse: nothing is written) -----------------------------
    Case(
        "spec-over-64MiB",
        sparse(REQ, OVER_LIMIT),
        context=SEC,
        errors=(inp(f"{REQ}: not read: 67,108,865 bytes is over the {LIMIT} (treated as an empty spec file)"),),
        peers=(inp(f"{REQ}: not read: 67,108,865 bytes is over the {LIMIT} ({REQ_LEFT_OUT})"),),
    ),
    Case(
        "rule-over-64MiB",
        sparse(CORE, OVER_LIMIT),
        context="",
        errors=(inp(f"{CORE}: reading rule file failed: not read: 67,108,865 bytes is over the {LIMIT} ({FALLBACK})"),),
        peers=(inp(f"{CORE}: not read: 67,108,865 bytes is over the {LIMIT} (this rule file is left out)"),),
    ),
    Case(
        "graph-over-64MiB",
        sparse(GRAPH, OVER_LIMIT),
        graph_error=f"{GRAPH}: not read: 67,108,865 bytes is over the {LIMIT}",
    ),
    Case(
        "ctxviewer-yaml-over-64MiB",
        steps(put(CTX, "top_k: 5\n"), sparse(CTX, OVER_LIMIT)),
        load_error=f"{CTX}: not read: 67,108,865 bytes is over the {LIMIT}",
    ),
    # -- not a regular file --------------------------------------------------------------------
    Case(
        "spec-is-a-named-pipe",
        fifo(REQ),
        marks=(needs_fifos,),
        context=SEC,
        errors=(inp(f"{REQ}: is not a regular file (treated as an empty spec file)"),),
        peers=(inp(f"{REQ}: is not a regular file ({REQ_LEFT_OUT})"),),
    ),
    Case(
        "graph-is-a-named-pipe",
        fifo(GRAPH),
        marks=(needs_fifos,),
        graph_error=f"{GRAPH}: is not a regular file",
    ),
    # -- symlinks that loop or leave the project ---------------------------------------------
    Case(
        "spec-symlink-absolute-outside",
        link(REQ, "{outside}/secret.md"),
        symlinks=True,
        context=SEC,
        errors=(
            inp(
                f"{REQ}: not read: symlink to {{outside}}/secret.md outside the project (treated as an empty spec file)"
            ),
        ),
        peers=(inp(f"{REQ}: not read: symlink to {{outside}}/secret.md outside the project ({REQ_LEFT_OUT})"),),
    ),
    Case(
        "spec-symlink-relative-outside",
        link(REQ, "../../../../outside/secret.md"),
        symlinks=True,
        context=SEC,
        errors=(
            inp(
                f"{REQ}: not read: symlink to ../../../../outside/secret.md outside the project "
                "(treated as an empty spec file)"
            ),
        ),
        peers=(inp(f"{REQ}: not read: symlink to ../../../../outside/secret.md outside the project ({REQ_LEFT_OUT})"),),
    ),
    Case(
        "spec-symlink-loop",
        link(REQ, "requirements.md"),
        symlinks=True,
        context=SEC,
        errors=(inp(f"{REQ}: not read: symlink loop (treated as an empty spec file)"),),
        peers=(inp(f"{REQ}: not read: symlink loop ({REQ_LEFT_OUT})"),),
    ),
    Case(
        "rule-symlink-outside",
        link(CORE, "{outside}/rule.md"),
        symlinks=True,
        context=SPEC,
        errors=(
            inp(f"{CORE}: not read: symlink to {{outside}}/rule.md outside the project (treated as absent: not read)"),
        ),
        peers=(
            inp(f"{CORE}: not read: symlink to {{outside}}/rule.md outside the project (this rule file is left out)"),
        ),
    ),
    Case(
        "rule-symlink-loop",
        link(CORE, "owasp-2025.md"),
        symlinks=True,
        context=SPEC,
        errors=(inp(f"{CORE}: not read: symlink loop (treated as absent: not read)"),),
        peers=(inp(f"{CORE}: not read: symlink loop (this rule file is left out)"),),
    ),
    Case(
        "rules-subfolder-links-to-its-parent",
        link(".claude/rules/security/loop", ".."),
        symlinks=True,  # walked once per real folder: no hang, no duplicate candidates
    ),
    Case(
        "graph-symlink-outside",
        link(GRAPH, "{outside}/graph.json"),
        symlinks=True,
        graph_error=f"{GRAPH}: not read: symlink to {{outside}}/graph.json outside the project",
    ),
    Case(
        "graph-symlink-loop",
        link(GRAPH, "task-graph.json"),
        symlinks=True,
        graph_error=f"{GRAPH}: not read: symlink loop",
    ),
    Case(
        "specs-folder-symlink-outside",
        link(".gsd/specs", "{outside}/specs"),
        symlinks=True,
        load_error="paths.specs: .gsd/specs: symlink to {outside}/specs outside the project",
    ),
    Case(
        "rules-folder-symlink-outside",
        link(".claude/rules/security", "{outside}/rules"),
        symlinks=True,
        load_error="paths.rules: .claude/rules/security: symlink to {outside}/rules outside the project",
    ),
    Case(
        "ctxviewer-yaml-symlink-outside",
        link(CTX, "{outside}/ctxviewer.yaml"),
        symlinks=True,
        load_error=f"{CTX}: not read: symlink to {{outside}}/ctxviewer.yaml outside the project",
    ),
    Case(
        "ctxviewer-yaml-symlink-loop",
        link(CTX, "ctxviewer.yaml"),
        symlinks=True,
        load_error=f"{CTX}: not read: symlink loop",
    ),
    Case(
        "config-yaml-symlink-outside",
        link(SYS, "{outside}/config.yaml"),
        symlinks=True,
        load_error=f"{SYS}: not read: symlink to {{outside}}/config.yaml outside the project",
    ),
    # -- '..' and absolute paths in paths.* settings ---------------------------------------
    Case(
        "paths-specs-dotdot",
        put(CTX, "paths:\n  specs: ../outside/specs\n"),
        load_error=f"{CTX}: paths.specs: ../outside/specs: goes above the project root ('..')",
    ),
    Case(
        "paths-specs-absolute",
        lambda root, outside: write(root, CTX, f"paths:\n  specs: {outside}/specs\n"),
        load_error=f"{CTX}: paths.specs: {{outside}}/specs: absolute path outside the project",
    ),
    Case(
        "paths-rules-dotdot",
        put(CTX, "paths:\n  rules: .claude/../../outside/rules\n"),
        load_error=f"{CTX}: paths.rules: .claude/../../outside/rules: goes above the project root ('..')",
    ),
    Case(
        "paths-commands-absolute",
        put(CTX, "paths:\n  commands: /etc\n"),
        load_error=f"{CTX}: paths.commands: /etc: absolute path outside the project",
    ),
    Case(
        "paths-specs-dotdot-that-stays-inside",
        put(CTX, "paths:\n  specs: .gsd/../.gsd/specs\n"),
    ),
    Case(
        "paths-config-dotdot",
        put(CTX, "paths:\n  config: ../outside/config.yaml\n"),
        load_error=f"{CTX}: paths.config: ../outside/config.yaml: goes above the project root ('..')",
    ),
    Case(
        "paths-config-absolute",
        lambda root, outside: write(root, CTX, f"paths:\n  config: {outside}/config.yaml\n"),
        load_error=f"{CTX}: paths.config: {{outside}}/config.yaml: absolute path outside the project",
    ),
    # -- a file deleted, denied or replaced between listing and reading ------------------------
    Case(
        "graph-deleted-after-listing", lambda r, o: None, race=(GRAPH, "delete"), graph_error=f"{GRAPH}: does not exist"
    ),
    Case(
        "graph-unreadable-after-listing",
        lambda r, o: None,
        race=(GRAPH, "deny"),
        graph_error=f"{GRAPH}: cannot be read (Permission denied)",
    ),
    Case(
        "graph-replaced-by-a-folder",
        lambda r, o: None,
        race=(GRAPH, "folder"),
        graph_error=f"{GRAPH}: is not a regular file",
    ),
    Case(
        "ctxviewer-yaml-deleted-after-listing",
        put(CTX, "top_k: 5\n"),
        race=(CTX, "delete"),
        load_error=f"{CTX}: does not exist",
    ),
    Case(
        "config-yaml-unreadable-after-listing",
        put(SYS, "workers: {}\n"),
        race=(SYS, "deny"),
        load_error=f"{SYS}: cannot be read (Permission denied)",
    ),
    Case("spec-deleted-after-listing", lambda r, o: None, race=(REQ, "delete"), context=SEC),
    Case("rule-deleted-after-listing", lambda r, o: None, race=(CORE, "delete"), context=SPEC),
    Case(
        "rule-unreadable-after-listing",
        lambda r, o: None,
        race=(CORE, "deny"),
        context="",
        errors=(inp(f"{CORE}: reading rule file failed: cannot be read (Permission denied) ({FALLBACK})"),),
        peers=(inp(f"{CORE}: cannot be read (Permission denied) (this rule file is left out)"),),
    ),
]


def case_params(cases: list[Case]) -> list[Any]:
    out = []
    for case in cases:
        marks = list(case.marks)
        if case.symlinks:
            marks.append(needs_symlinks)
        out.append(pytest.param(case, id=case.id, marks=marks))
    return out


# -- running a case ----------------------------------------------------------------------------


@dataclass
class Built:
    root: Path
    outside: Path

    def fill(self, text: str) -> str:
        return fill(text, self.root, self.outside)


def build_case(base: Path, case: Case, monkeypatch: pytest.MonkeyPatch, name: str = "proj") -> Built:
    base = base.resolve()
    outside = base / "outside"
    if not outside.exists():
        make_outside(base)
    root = base_project(base / name)
    case.build(root, outside)
    if case.race is not None:
        arm_race(monkeypatch, root, *case.race)
    return Built(root, outside)


def arm_race(monkeypatch: pytest.MonkeyPatch, root: Path, rel: str, how: str) -> None:
    """Make *rel* (of *root*) vanish, unreadable or a folder just before it is read (once).

    The engine has listed it by then (``is_file`` / the folder walk); the read finds it gone.
    """
    target = str(root / rel)
    fired: set[str] = set()
    denied: set[str] = set()
    real_read = ProjectFS.read_bytes
    real_open = os.open

    def read_bytes(self: ProjectFS, r: str) -> Any:
        path = str(self.root / r)
        if path == target and path not in fired:
            fired.add(path)
            if how in ("delete", "folder"):
                os.unlink(path)
            if how == "folder":
                os.mkdir(path)
            if how == "deny":
                denied.add(path)
        return real_read(self, r)

    def guarded_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) in denied:
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(ProjectFS, "read_bytes", read_bytes)
    monkeypatch.setattr(os, "open", guarded_open)


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def expected_cli(case: Case, built: Built) -> tuple[int, str, str]:
    """What ``assemble --feature feat --task T1`` must print, from the documented contract.

    Bad input that stops the run: exit 2, nothing on stdout, its one line on stderr.  A run
    that completes: the context on stdout, each warning as a ``note:`` line, each input
    error as one line (exit 2) and each pipeline failure as a ``note:`` line.
    """
    if case.load_error or case.graph_error:
        return 2, "", f"ctxviewer: {built.fill(case.load_error or case.graph_error)}\n"
    lines = [f"ctxviewer: note: {w}\n" for w in case.warnings]
    code = 0
    for kind, text in case.errors:
        if kind == "input":
            lines.append(f"ctxviewer: {built.fill(text)}\n")
            code = 2
        else:
            lines.append(f"ctxviewer: note: {built.fill(text)}\n")
    return code, case.context, "".join(lines)


def check_trace_invariants(trace: Trace, profile: str) -> None:
    assert SECRET not in trace.context
    if profile in EXACT_PROFILES:
        used = trace.context_tokens.get(trace.tokenizer)
        assert trace.tokenizer == "cl100k_base" and used is not None
        assert used <= trace.budget, f"{profile}: {used} tokens over the budget of {trace.budget}"
        assert not trace.over_budget


def sweep_profiles(root: Path, profiles: tuple[str, ...] = PROFILES) -> dict[str, Any]:
    """Load and assemble every task with each profile; the outcome per profile.

    The only exceptions allowed are the documented ProjectError and SettingsError (the
    load's); a feature whose graph is broken must raise exactly its graph_error.
    """
    outcomes: dict[str, Any] = {}
    for profile in profiles:
        try:
            project = load_project(root, {"profile": profile})
        except (ProjectError, SettingsError) as exc:
            outcomes[profile] = exc
            continue
        traces: dict[tuple[str, str], Trace] = {}
        for feature in project.features:
            if feature.graph_error is not None:
                with pytest.raises(ProjectError) as info:
                    feature.task("T1")
                assert info.value is feature.graph_error
        for feature, task in project.tasks():
            trace = assemble_task(project, feature, task, exact=False)
            check_trace_invariants(trace, profile)
            traces[(feature.name, task.id)] = trace
        outcomes[profile] = (project, traces)
    return outcomes


def trace_errors(trace: Trace) -> list[tuple[str, str]]:
    return [(e.kind, e.one_line()) for e in trace.errors]


# -- the three views of every case ---------------------------------------------------------------


@pytest.mark.parametrize("case", case_params(CASES))
def test_engine(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    if case.engine_bug:
        request.applymarker(pytest.mark.xfail(strict=True, reason=case.engine_bug))
    built = build_case(tmp_path, case, monkeypatch)
    if case.load_error:
        with pytest.raises((ProjectError, SettingsError)) as info:
            load_project(built.root)
        assert str(info.value) == built.fill(case.load_error)
        return
    project = load_project(built.root)
    feature = project.feature("feat")
    assert str(feature.graph_error or "") == built.fill(case.graph_error)
    assert project.warnings == case.warnings
    if case.graph_error:
        assert feature.tasks == ()
        return
    trace = assemble(project, "feat", "T1", exact=False)
    assert trace.context == built.fill(case.context)
    assert trace_errors(trace) == [(k, built.fill(t)) for k, t in case.errors]
    assert trace.warnings == case.warnings
    assert trace.budget == case.budget


@pytest.mark.parametrize("case", case_params(CASES))
def test_cli(
    case: Case,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    if case.cli_bug:
        request.applymarker(pytest.mark.xfail(strict=True, reason=case.cli_bug))
    built = build_case(tmp_path, case, monkeypatch)
    got = cli(capsys, "assemble", str(built.root), "--feature", "feat", "--task", "T1")
    assert "Traceback" not in got[2]
    assert got == expected_cli(case, built)


@pytest.mark.parametrize("case", case_params(CASES))
def test_every_profile(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    if case.peer_bug:
        request.applymarker(pytest.mark.xfail(strict=True, reason=case.peer_bug))
    if case.race is None:
        built = build_case(tmp_path, case, monkeypatch)
        outcomes = sweep_profiles(built.root)
    else:  # a fresh copy per profile: a race fires once, and each load must meet it
        outcomes = {}
        for n, profile in enumerate(PROFILES):
            built = build_case(tmp_path, case, monkeypatch, name=f"proj{n}")
            outcomes.update(sweep_profiles(built.root, (profile,)))
    for profile in PROFILES:
        if case.load_error:
            assert isinstance(outcomes[profile], (ProjectError, SettingsError)), profile
            assert str(outcomes[profile]) == built.fill(case.load_error)
            continue
        project, traces = outcomes[profile]
        assert str(project.feature("feat").graph_error or "") == built.fill(case.graph_error)
        if case.graph_error:
            assert traces == {}
            continue
        trace = traces[("feat", "T1")]
        # computed reads neither spec nor rule files: their faults are not its errors
        # zerg-0.3.2 and mahabharatha-latest read specs and security rules exactly as the reference does
        expected = {"mahabharatha": case.errors, "computed": ()}.get(profile, case.peers)
        if profile in ("zerg-0.3.2", "mahabharatha-latest"):
            expected = case.errors
        assert trace_errors(trace) == [(k, built.fill(t)) for k, t in expected], profile


# -- nesting limits at their boundaries, and YAML errors read in full -------------------------------


@pytest.mark.parametrize("parse", [parse_json, parse_yaml], ids=["json", "yaml"])
def test_a_document_nested_100_levels_deep_is_read(parse: Callable[[str, str], Any]) -> None:
    expected: list[Any] = []
    for _ in range(99):
        expected = [expected]
    assert parse("[" * 100 + "]" * 100, "doc") == expected


def test_a_yaml_document_nested_101_levels_deep_is_refused() -> None:
    with pytest.raises(ProjectError) as info:
        parse_yaml("[" * 101 + "]" * 101, "doc.yaml")
    assert str(info.value) == "doc.yaml: invalid YAML: nested deeper than 100 levels (line 1)"


def test_a_json_document_nested_101_levels_deep_is_refused() -> None:
    with pytest.raises(ProjectError):
        parse_json("[" * 101 + "]" * 101, "doc.json")


def test_a_yaml_document_with_1000_aliases_is_read() -> None:
    data = parse_yaml("z: &z x\nmore: [" + ", ".join(["*z"] * 999) + "]\n", "doc.yaml")
    assert len(data["more"]) == 999


def test_a_yaml_error_reads_as_a_sentence(tmp_path: Path) -> None:
    root = base_project(tmp_path / "proj")
    write(root, CTX, "top_k: 5\n---\ntop_k: 6\n")
    with pytest.raises(ProjectError) as info:
        load_project(root)
    assert (
        str(info.value)
        == f"{CTX}:2: invalid YAML: expected a single document in the stream, but found another document"
    )


# -- tasks without ids, duplicate ids, cycles ----------------------------------------------------


def graph_project(root: Path, tasks: list[Any]) -> Path:
    return make_project(root, tasks, requirements=REQ_TEXT, rules={"_core/owasp-2025.md": CORE_TEXT})


def test_tasks_without_ids_are_numbered_and_noted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = graph_project(tmp_path / "p", [{**TASK, "id": None}, {"title": "Other"}, {"id": "", "title": "Third"}])
    sweep_profiles(root)
    project = load_project(root)
    assert [t.id for t in project.feature("feat").tasks] == ["#1", "#2", "#3"]
    notes = tuple(f"{GRAPH}: tasks[{i}] has no id; shown as #{i + 1}" for i in range(3))
    assert project.warnings == notes
    assert assemble(project, "feat", "#1", exact=False).context == FULL
    assert cli(capsys, "assemble", str(root), "--feature", "feat", "--task", "#1") == (
        0,
        FULL,
        "".join(f"ctxviewer: note: {n}\n" for n in notes),
    )


def test_duplicate_ids_are_told_apart_and_noted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = {"id": "T1", "title": "Other work", "files": {}}  # no keyword of the spec, no files: empty context
    root = graph_project(tmp_path / "p", [TASK, other, other])
    sweep_profiles(root)
    project = load_project(root)
    assert [t.id for t in project.feature("feat").tasks] == ["T1", "T1~2", "T1~3"]
    notes = (
        f"{GRAPH}: duplicate task id 'T1' at tasks[1]; shown as T1~2",
        f"{GRAPH}: duplicate task id 'T1' at tasks[2]; shown as T1~3",
    )
    assert project.warnings == notes
    assert assemble(project, "feat", "T1", exact=False).context == FULL
    assert assemble(project, "feat", "T1~3", exact=False).context == ""
    code, out, err = cli(capsys, "assemble", str(root), "--feature", "feat", "--task", "T1~2")
    assert (code, out, err) == (0, "", "".join(f"ctxviewer: note: {n}\n" for n in notes))


def test_ids_that_are_not_text_are_shown_as_json(tmp_path: Path) -> None:
    root = graph_project(tmp_path / "p", [{**TASK, "id": 7}, {"id": "7"}, {"id": {"a": 1}}, {"id": [1, 2]}])
    sweep_profiles(root)
    project = load_project(root)
    assert [t.id for t in project.feature("feat").tasks] == ["7", "7~2", '{"a": 1}', "[1, 2]"]
    assert project.warnings == (f"{GRAPH}: duplicate task id '7' at tasks[1]; shown as 7~2",)
    assert assemble(project, "feat", "7", exact=False).context == FULL


@pytest.mark.parametrize(
    ("tasks", "ids", "notes", "real"),
    [
        (
            [TASK, {"id": "T1", "title": "B"}, {"id": "T1~2", "title": "C"}],
            ["T1", "T1~3", "T1~2"],
            [f"{GRAPH}: duplicate task id 'T1' at tasks[1]; shown as T1~3"],
            "T1~2",
        ),
        (
            [{"id": "#2", "title": "A"}, {"title": "B"}],
            ["#2", "#2~2"],
            [f"{GRAPH}: tasks[1] has no id; shown as #2~2"],
            "#2",
        ),
    ],
    ids=["duplicate-suffix-is-a-real-id", "missing-id-number-is-a-real-id"],
)
def test_made_up_ids_never_take_a_real_id(
    tmp_path: Path, tasks: list[Any], ids: list[str], notes: list[str], real: str
) -> None:
    project = load_project(graph_project(tmp_path / "p", tasks))
    feature = project.feature("feat")
    assert [t.id for t in feature.tasks] == ids
    assert list(project.warnings) == notes
    assert feature.task(real).raw.get("id") == real  # a real id names its own task


def test_a_dependency_cycle_is_assembled_and_replayed_in_graph_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = [
        {**TASK, "dependencies": ["T2"]},
        {"id": "T2", "title": "Session", "dependencies": ["T1"]},
        {"id": "T3", "title": "Login", "dependencies": ["T3"]},
    ]
    root = graph_project(tmp_path / "p", tasks)
    sweep_profiles(root)
    project = load_project(root)
    order, notes = replay_order(project.feature("feat"))
    assert [t.id for t in order] == ["T1", "T2", "T3"]
    assert notes == (
        "no task has a whole-number level: ordered by dependencies, ties in graph order",
        "T3: depends on itself; ignored",
        "dependency cycle among T1, T2: they run in graph order",
    )
    assert [s.task_id for s in replay_session(project, project.feature("feat")).steps] == ["T1", "T2", "T3"]
    assert cli(capsys, "assemble", str(root), "--feature", "feat", "--task", "T1") == (0, FULL, "")


# -- `files` entries of every wrong type -------------------------------------------------------


def _files_case(
    value: Any, errors: tuple[tuple[str, str], ...], context: str, peers: tuple[tuple[str, str], ...]
) -> tuple[Any, ...]:
    return (value, errors, context, peers)


def _not_a_mapping(value: Any, shown: str) -> Any:
    return _files_case(
        value,
        (
            pipe(f"{GRAPH}: task 'files' is {shown}, not a mapping ({FALLBACK})"),
            pipe(f"{GRAPH}: spec loading failed: task 'files' is {shown}, not a mapping ({SPEC_LEFT_OUT})"),
        ),
        "",
        (inp(f"{GRAPH}: task 'files' is {shown}, not a mapping (ignored)"),),
    )


def _bad_entry(key: str, entry: Any, shown: str) -> Any:
    errors = [
        pipe(f"{GRAPH}: spec loading failed: files.{key} has an entry that is {shown}, not a path ({SPEC_LEFT_OUT})")
    ]
    if key in ("create", "modify"):
        errors.insert(
            0,
            pipe(f"{GRAPH}: rule filtering failed: a create/modify entry is {shown}, not a path ({SECURITY_LEFT_OUT})"),
        )
    # mahabharatha: create/modify entries fail both sections; a read entry only the spec (the
    # security section is built from src/app.py)
    context = "" if key in ("create", "modify") else SEC
    files = {"create": ["src/app.py"], key: [entry]} if key == "read" else {key: [entry]}
    return _files_case(
        files, tuple(errors), context, (inp(f"{GRAPH}: files.{key} has an entry that is {shown} (ignored)"),)
    )


FILES_CASES: dict[str, Any] = {
    "files-str": _not_a_mapping("src/app.py", "str 'src/app.py'"),
    "files-list": _not_a_mapping(["src/app.py"], "list ['src/app.py']"),
    "files-int": _not_a_mapping(7, "int 7"),
    "files-bool": _not_a_mapping(True, "bool True"),
    # files: null -- the reference's task.get("files", {}) is None; the peers read it as no files
    "files-null": _files_case(
        None,
        (
            pipe(f"{GRAPH}: task 'files' is NoneType None, not a mapping ({FALLBACK})"),
            pipe(f"{GRAPH}: spec loading failed: task 'files' is NoneType None, not a mapping ({SPEC_LEFT_OUT})"),
        ),
        "",
        (),
    ),
    "create-int": _bad_entry("create", 7, "int 7"),
    "create-null": _bad_entry("create", None, "NoneType None"),
    "create-float": _bad_entry("create", 1.5, "float 1.5"),
    "create-bool": _bad_entry("create", True, "bool True"),
    "create-dict": _bad_entry("create", {"path": "a.py"}, "dict {'path': 'a.py'}"),
    "create-list": _bad_entry("create", ["a.py"], "list ['a.py']"),
    "modify-int": _bad_entry("modify", 3, "int 3"),
    "read-int": _bad_entry("read", 3, "int 3"),
    "read-dict": _bad_entry("read", {"path": "a.py", "lines": "1-9"}, "dict {'path': 'a.py', 'lines': '1-9'}"),
    # a string where a list belongs: the reference (and the oracle) skip it, so no security section
    "create-is-a-string": pytest.param(
        {"create": "src/app.py"},
        (),
        SPEC,
        (inp(f"{GRAPH}: files.create is str 'src/app.py', not a list (ignored)"),),
        id="create-is-a-string",
    ),
}


@pytest.mark.parametrize(
    ("files", "errors", "context", "peers"),
    [v if hasattr(v, "marks") else pytest.param(*v, id=k) for k, v in FILES_CASES.items()],
)
def test_files_entries_of_every_wrong_type(
    files: Any,
    errors: tuple[tuple[str, str], ...],
    context: str,
    peers: tuple[tuple[str, str], ...],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = graph_project(tmp_path / "p", [{"id": "T1", "title": "Login session", "files": files}])
    outcomes = sweep_profiles(root)
    for profile, (_project, traces) in outcomes.items():
        if profile in ("zerg-0.3.2", "mahabharatha-latest"):
            # more of its builders read these lists, each failing on its own; its text for these
            # shapes is checked against the real package in test_upstream_oracle.py
            assert all(kind == "pipeline" for kind, _ in trace_errors(traces[("feat", "T1")])), profile
            continue
        # computed never reads the task's files lists (its signals come from the text)
        expected = {"mahabharatha": errors, "computed": ()}.get(profile, peers)
        assert trace_errors(traces[("feat", "T1")]) == list(expected), profile
    assert outcomes["mahabharatha"][1][("feat", "T1")].context == context
    # The CLI: the pipeline tolerates all of these, so they are notes and the context is written.
    assert cli(capsys, "assemble", str(root), "--feature", "feat", "--task", "T1") == (
        0,
        context,
        "".join(f"ctxviewer: note: {t}\n" for _, t in errors),
    )
    # With fallback_to_full false the real system raises: exit 1 (not bad input).
    code, _, _ = cli(
        capsys, "assemble", str(root), "--feature", "feat", "--task", "T1", "--set", "fallback_to_full=false"
    )
    raises = any(t.endswith(f"({FALLBACK})") for _, t in errors)
    assert code == (1 if raises else 0)


# -- '..' and absolute paths in `files`: counted by nobody, read by nobody -----------------------


@needs_symlinks
def test_task_files_outside_the_project_are_listed_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = tmp_path.resolve()
    outside = make_outside(base)
    root = base_project(base / "proj")
    os.symlink(outside / "secret.py", root / "link.py")
    files = {
        "create": ["../evil.py"],
        "modify": ["/etc/passwd", "src/../../outside/secret.py"],
        "read": [str(outside / "secret.py"), "link.py", "C:/Windows/win.ini"],
    }
    write(root, GRAPH, json.dumps({"tasks": [{"id": "T1", "title": "Login session", "files": files}]}))
    notes = [  # read entries first, then modify (pipeline.task_reads)
        (str(outside / "secret.py"), "files.read: absolute path outside the project: not read"),
        ("link.py", f"files.read: symlink to {outside}/secret.py outside the project: not read"),
        ("C:/Windows/win.ini", "files.read: absolute path outside the project: not read"),
        ("/etc/passwd", "files.modify: absolute path outside the project: not read"),
        ("src/../../outside/secret.py", "files.modify: goes above the project root ('..'): not read"),
    ]
    for profile, (_project, traces) in sweep_profiles(root).items():
        trace = traces[("feat", "T1")]
        assert [(f.path, f.note) for f in trace.tracker.files] == notes, profile
        assert (trace.tracker.files_read, trace.tracker.estimated_tokens) == (0, 500)  # the task alone
    # ../evil.py selects the (missing) python rules by its suffix only: the context is as usual
    code, out, _ = cli(capsys, "assemble", str(root), "--feature", "feat", "--task", "T1")
    assert (code, out) == (0, FULL)


INPUT_ERROR_CASES = ["spec-latin1", "spec-over-64MiB", "rule-unreadable-after-listing"]


@pytest.mark.parametrize("name", INPUT_ERROR_CASES)
def test_batch_writes_every_row_then_names_the_bad_input(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    case = next(c for c in CASES if c.id == name)
    built = build_case(tmp_path, case, monkeypatch)
    [(_, error)] = case.errors
    code, out, err = cli(capsys, "batch", str(built.root), "--format", "csv", "--no-exact")
    assert (code, err) == (2, f"ctxviewer: feat/T1: {error}\n")
    assert len(out.splitlines()) == 2 and out.startswith("feature,task,title,")


@pytest.mark.parametrize("name", INPUT_ERROR_CASES)
def test_check_names_the_bad_input_it_measured_past(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    case = next(c for c in CASES if c.id == name)
    built = build_case(tmp_path, case, monkeypatch)
    [(_, error)] = case.errors
    code, out, err = cli(capsys, "check", str(built.root))
    assert (code, err) == (2, f"ctxviewer: feat/T1: {error}\n")
    assert "0 of 1 task over 4,000 heuristic tokens\n" in out  # (then what the findings say)


def test_paths_settings_from_the_command_line_are_contained_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = base_project(tmp_path / "p")
    code, out, err = cli(capsys, "check", str(root), "--set", "paths.specs=../elsewhere")
    assert (code, out, err) == (
        2,
        "",
        "ctxviewer: command line: paths.specs: ../elsewhere: goes above the project root ('..')\n",
    )
    code, out, err = cli(capsys, "batch", str(root), "--set", "paths.rules=/etc")
    assert (code, out, err) == (
        2,
        "",
        "ctxviewer: command line: paths.rules: /etc: absolute path outside the project\n",
    )


# -- nothing outside the project is opened, stat'ed or followed, whatever the profile ------------


def _inside(path: str, root: Path) -> bool:
    root_s = str(root)
    return path == root_s or path.startswith(root_s + os.sep)


def _outside_calls(calls: list[tuple[str, str, bool]], root: Path) -> list[tuple[str, str]]:
    """Calls that reach outside *root* (after every symlink the kernel would follow).

    The root's own ancestors are allowed (resolving the root's real path visits them), and so
    are Python's and ctxviewer's own files (imports, argparse's translations, tiktoken ranks):
    no project file can name those.
    """
    bad = []
    ancestors = {str(p) for p in root.parents}
    own = tuple(
        os.path.realpath(p) + os.sep
        for p in (sys.prefix, sys.base_prefix, str(REPO / "ctxviewer"), str(REPO / "resources"))
    )
    for name, path, follows in calls:
        if os.path.realpath(path).startswith(own):
            continue
        real = (
            os.path.realpath(path)
            if follows
            else os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        )
        if not _inside(real, root) and os.path.normpath(path) not in ancestors and path not in ancestors:
            bad.append((name, path))
    return bad


@needs_symlinks
def test_nothing_outside_the_project_is_touched_by_any_profile_or_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    base = tmp_path.resolve()
    outside = make_outside(base)
    root = base_project(base / "proj")
    # Every way out at once: specs, rules, configs, task files, a command file, a whole feature.
    files = {"create": ["src/app.py", "../x.py"], "modify": [str(outside / "secret.py")], "read": ["src/out.py"]}
    write(root, GRAPH, json.dumps({"tasks": [{**TASK, "files": files}]}))
    os.unlink(root / REQ)
    os.symlink(outside / "secret.md", root / REQ)
    os.symlink("../../../../outside/secret.md", root / DESIGN)
    (root / ".claude/rules/security/languages/python").mkdir(parents=True)
    os.symlink("../../../../../../outside/rule.md", root / ".claude/rules/security/languages/python/CLAUDE.md")
    os.symlink(outside / "rule.md", root / ".claude/rules/security/extra.md")
    os.symlink(outside, root / ".claude/rules/security/away")
    (root / "src").mkdir()
    os.symlink(outside / "secret.py", root / "src/out.py")
    os.symlink(outside / "feat", root / ".gsd/specs/away")
    os.symlink(outside / "ctxviewer.yaml", root / CTX)
    (root / ".mahabharatha").mkdir()
    os.symlink(outside / "config.yaml", root / SYS)
    write(root, ".claude/commands/keep.md", "# keep\n")
    os.symlink(outside / "secret.md", root / ".claude/commands/away.md")
    sweep_profiles(root)  # warm up: imports, tiktoken ranks
    rec = Recorder()
    install(monkeypatch, rec)
    outputs = [repr(sweep_profiles(root))]
    for argv in (
        ["assemble", str(root), "--feature", "feat", "--task", "T1", "--format", "json"],
        ["batch", str(root)],
        ["check", str(root)],
        ["split", str(root), "--no-exact"],
    ):
        outputs.append(repr(cli(capsys, *argv)))
    os.stat(outside / "secret.md")  # the control: a call the check must flag
    monkeypatch.undo()  # realpath() in the check uses os.lstat itself
    assert _outside_calls(rec.calls, root) == [("stat", str(outside / "secret.md"))]
    assert not any(SECRET in text for text in outputs)


# -- an empty project folder, a file for a folder -------------------------------------------------


def test_an_empty_project_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    real = os.path.realpath(root)
    note = ".gsd/specs: no specs folder; the project has no features"
    for profile in PROFILES:
        project = load_project(root, {"profile": profile})
        assert (project.features, project.tasks(), project.warnings) == ((), [], (note,))
    # An empty folder is not a project: every command says so in one line (exit 2).
    refused = (
        f"ctxviewer: {real}: not a project: no specs folder .gsd/specs, where a project keeps its features "
        "(paths.specs in ctxviewer.yaml names another)\n"
    )
    assert cli(capsys, "assemble", str(root), "--feature", "feat", "--task", "T1") == (2, "", refused)
    assert cli(capsys, "batch", str(root)) == (2, "", refused)
    assert cli(capsys, "check", str(root)) == (2, "", refused)
    assert cli(capsys, "split", str(root)) == (2, "", refused)


def test_a_file_given_as_the_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a project", encoding="utf-8")
    with pytest.raises(ProjectError) as info:
        load_project(path)
    assert str(info.value) == f"{path}: not a folder"
    assert cli(capsys, "check", str(path)) == (2, "", f"ctxviewer: {path}: not a folder\n")


@needs_symlinks
@pytest.mark.parametrize("target", ["{outside}/feat", "feat"], ids=["outside", "loop"])
def test_a_feature_folder_that_leaves_the_project_is_reported(tmp_path: Path, target: str) -> None:
    base = tmp_path.resolve()
    outside = make_outside(base)
    root = base_project(base / "proj")
    link(".gsd/specs/feat", target)(root, outside)
    why = f"symlink to {outside}/feat outside the project" if target.startswith("{") else "symlink loop"
    project = load_project(root)
    assert project.warnings == (f".gsd/specs/feat: not read: {why}",)


# -- files unreadable for real (needs a user that permissions apply to) -------------------------------


@pytest.mark.skipif(IS_ROOT or not hasattr(os, "geteuid"), reason="permissions do not apply to root")
@pytest.mark.parametrize(
    ("rel", "outcome"),
    [
        (GRAPH, f"graph:{GRAPH}: cannot be read (Permission denied)"),
        (CTX, f"load:{CTX}: cannot be read (Permission denied)"),
        (CORE, f"error:{CORE}: reading rule file failed: cannot be read (Permission denied) ({FALLBACK})"),
    ],
    ids=["graph", "ctxviewer-yaml", "rule"],
)
def test_files_without_read_permission(tmp_path: Path, rel: str, outcome: str) -> None:
    root = base_project(tmp_path / "p")
    write(root, CTX, "top_k: 5\n")
    os.chmod(root / rel, 0)
    try:
        what, _, message = outcome.partition(":")
        if what == "load":
            with pytest.raises(ProjectError) as info:
                load_project(root)
            assert str(info.value) == message
        elif what == "graph":
            assert str(load_project(root).feature("feat").graph_error) == message
        else:
            trace = assemble(load_project(root), "feat", "T1", exact=False)
            assert (trace.context, trace_errors(trace)) == ("", [("input", message)])
    finally:
        os.chmod(root / rel, 0o644)


# -- command files (ctxviewer split) --------------------------------------------------------------


def test_split_reports_each_unreadable_command_file_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = base_project(tmp_path / "p")
    write(root, ".claude/commands/a.md", "# fine\n")
    write(root, ".claude/commands/b.md", "# title\ncaf\u00e9\n".encode("latin-1"))
    write(root, ".claude/commands/d.md", "# gone\n")
    arm_race(monkeypatch, root, ".claude/commands/d.md", "delete")
    code, out, err = cli(capsys, "split", str(root), "--no-exact")
    assert code == 2
    assert out == ("keep  .claude/commands/a.md: 2 lines (< 300), 1 est. tokens\n")
    assert err == (
        "ctxviewer: .claude/commands/b.md:2: not UTF-8 (byte 0xe9 at line 2)\n"
        "ctxviewer: .claude/commands/d.md: does not exist\n"
    )


# -- scale: 10,000 tasks, a 1 MB paragraph, a 50 MB spec ----------------------------------------------


def test_ten_thousand_tasks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    n = 10_000
    tasks = [
        {
            "id": f"T{i:05d}",
            "title": "Login session" if i == n - 1 else f"Task number {i}",
            "level": i // 100,
            "dependencies": [f"T{i - 1:05d}"] if i % 100 else [],
            "files": {"create": [f"src/mod{i}.py"]},
        }
        for i in range(n)
    ]
    root = graph_project(tmp_path / "p", tasks)
    # A second feature whose 10,000 tasks wait for each other in one ring.
    ring_ids = [f"R{i:05d}" for i in range(n)]
    ring = [{"id": rid, "title": "Ring", "dependencies": [ring_ids[(i + 1) % n]]} for i, rid in enumerate(ring_ids)]
    write(root, ".gsd/specs/ring/task-graph.json", json.dumps({"tasks": ring}))
    last = f"T{n - 1:05d}"
    # T09999: keywords login, session, mod9999 -- the same context as T1's
    for profile in PROFILES:
        project = load_project(root, {"profile": profile})
        assert [len(f.tasks) for f in project.features] == [n, n] and project.warnings == ()
        trace = assemble(project, "feat", last, exact=False)
        check_trace_invariants(trace, profile)
        if profile == "mahabharatha":
            assert trace.context == FULL
    project = load_project(root)
    order, notes = replay_order(project.feature("feat"))
    assert [t.id for t in order] == [t["id"] for t in tasks] and notes == ()
    order, notes = replay_order(project.feature("ring"))
    assert [t.id for t in order] == ring_ids
    assert notes == (
        "no task has a whole-number level: ordered by dependencies, ties in graph order",
        f"dependency cycle among {', '.join(ring_ids)}: they run in graph order",
    )
    assert cli(capsys, "assemble", str(root), "--feature", "feat", "--task", last) == (0, FULL, "")


def test_a_one_megabyte_paragraph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sentence = "Login session store keeps tokens. "  # 34 characters
    paragraph = (sentence * 31_000)[: 1024 * 1024]  # one paragraph, no blank line
    root = graph_project(tmp_path / "p", [TASK])
    write(root, REQ, paragraph)
    # requirements get 4000 * 0.5 // 2 = 1,000 tokens = 4,000 characters.  The stripped text has
    # no blank line; its last '. ' before 4,000 is at 34 * 116 + 32 = 3,976 (> 2,000), so the
    # cut keeps 3,977 characters, up to that '.'.
    cut = paragraph[:3977]
    assert cut.endswith("tokens.")
    expected = f"{SEC}\n\n## Relevant Requirements\n\n{cut}\n\n[... truncated for context limits ...]"
    outcomes = sweep_profiles(root)
    trace = outcomes["mahabharatha"][1][("feat", "T1")]
    assert trace.context == expected and trace.errors == ()
    for profile, (_project, traces) in outcomes.items():
        assert traces[("feat", "T1")].errors == (), profile
    assert cli(capsys, "assemble", str(root), "--feature", "feat", "--task", "T1") == (0, expected, "")


#: The child's own peak memory in MB, defined in each child.  Linux's ``VmHWM`` is the peak of
#: this program's memory alone; ``ru_maxrss`` also holds the memory of the process it was
#: started from (Linux keeps it across exec), so a child of a test worker grown past a bound
#: reported the worker's size.  ``ru_maxrss`` where there is no /proc.
PEAK_RSS = textwrap.dedent(
    """
    def peak_rss_mb():
        try:
            with open("/proc/self/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    """
)

#: Runs in a child process, so that a huge run's memory is measured alone and given back.
CHILD = PEAK_RSS + textwrap.dedent(
    """
    import io, json, sys, time
    from contextlib import redirect_stderr, redirect_stdout
    from ctxviewer.cli import main
    from ctxviewer.engine.errors import CtxViewerError
    from ctxviewer.engine.runs.pipeline import assemble
    from ctxviewer.engine.project.loading import load_project

    root, profiles, cli_too = sys.argv[1], sys.argv[2].split(","), sys.argv[3] == "cli"
    out = {}
    for profile in profiles:
        start = time.perf_counter()
        try:
            trace = assemble(load_project(root, {"profile": profile}), "feat", "T1", exact=False)
        except CtxViewerError as exc:  # refused, with the message the user would see
            out[profile] = {"seconds": time.perf_counter() - start, "refused": str(exc)}
            continue
        used = trace.context_tokens.get(trace.tokenizer)
        out[profile] = {
            "seconds": time.perf_counter() - start,
            "context": trace.context,
            "errors": [e.one_line() for e in trace.errors],
            "used": used,
            "budget": trace.budget,
            "tokenizer": trace.tokenizer,
        }
    if cli_too:
        stdout, stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()
        with redirect_stdout(stdout), redirect_stderr(stderr):
            code = main(["assemble", root, "--feature", "feat", "--task", "T1"])
        stdout.flush()
        out["cli"] = [code, stdout.buffer.getvalue().decode("utf-8"), stderr.getvalue()]
    out["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(out))
    """
)


def run_child(root: Path, profiles: tuple[str, ...], timeout: float, cli_too: bool = False) -> dict[str, Any]:
    """The child's results; raises subprocess.TimeoutExpired past *timeout* (a hang guard)."""
    # Never swap CI to death: a runaway child fails at 4 GiB of address space (where the platform allows it).
    limit = (
        "import resource\ntry:\n    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))\n"
        "except (ValueError, OSError):\n    pass\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", limit + CHILD, str(root), ",".join(profiles), "cli" if cli_too else "-"],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    data: dict[str, Any] = json.loads(result.stdout)
    return data


#: Seconds a child may run before the test fails as hung.  Generous on purpose: these tests check
#: that work is bounded (an unbounded run takes minutes or hours), not how fast a shared machine is
#: (guards of 2-3 s failed under load with correct code).
HANG_GUARD = 30

needs_rusage = pytest.mark.skipif(sys.platform == "win32", reason="the child measures memory with resource")


def big_spec(path: Path, megabytes: int, paragraph: str) -> None:
    """A requirements file of *megabytes* MB: a scoring paragraph first and last, *paragraph* between."""
    filler = paragraph.encode("utf-8") * 1000
    with open(path, "wb") as f:
        f.write(b"Login session store.\n\n")
        for _ in range(megabytes * 1024 * 1024 // len(filler)):
            f.write(filler)
        f.write(b"Session expiry.\n")


@needs_rusage
def test_a_fifty_megabyte_spec(tmp_path: Path) -> None:
    root = graph_project(tmp_path / "p", [TASK])
    big_spec(root / REQ, 50, "z" * 1022 + "\n\n")  # ~51,000 paragraphs of 1 KB, none scoring
    data = run_child(root, PROFILES, timeout=120, cli_too=True)
    expected = f"{SEC}\n\n## Relevant Requirements\n\nLogin session store.\n\nSession expiry."
    assert data["mahabharatha"]["context"] == expected
    assert data["cli"] == [0, expected, ""]
    for profile in PROFILES:
        run = data[profile]
        assert run["errors"] == [], profile
        if profile in EXACT_PROFILES:
            assert run["used"] <= run["budget"], profile
    # Bounded memory: the file is read once and split into ~51,000 paragraphs.
    assert data["peak_rss_mb"] < 1536, data["peak_rss_mb"]


@needs_rusage
def test_a_spec_of_millions_of_tiny_paragraphs_is_bounded(tmp_path: Path) -> None:
    root = graph_project(tmp_path / "p", [TASK])
    big_spec(root / REQ, 8, "x\n\n")  # 2.8 million paragraphs
    # Correct: refused with a clear message, or assembled, with a bounded heap.  The timeout is a
    # hang guard (HANG_GUARD), not a speed target: a run that scans the paragraphs quadratically
    # takes hours; the linear one about a second on vm.
    data = run_child(root, ("mahabharatha",), timeout=HANG_GUARD)
    assert data["peak_rss_mb"] < 1024


@needs_rusage
def test_a_task_with_a_flood_of_keywords_is_bounded(tmp_path: Path) -> None:
    words = " ".join(f"w{i:05d}x" for i in range(20_000))
    root = graph_project(tmp_path / "p", [{**TASK, "description": words}])
    para = "Login session store keeps tokens for a while and then expires them.\n\n"
    write(root, REQ, para * (1024 * 1024 // len(para)))
    # A normal task over this spec takes ~0.1 s; every keyword against every paragraph (20,000 x
    # 16,000) takes many minutes, which the hang guard catches.
    run_child(root, ("mahabharatha",), timeout=HANG_GUARD)


@needs_rusage
def test_a_sixteen_megabyte_yaml_graph_is_read_or_refused_in_seconds(tmp_path: Path) -> None:
    root = graph_project(tmp_path / "p", [])
    os.unlink(root / GRAPH)
    other = "".join(
        f"  - id: T{i:06d}\n    title: Task number {i}\n    level: {i // 100}\n"
        f"    files:\n      create: [src/m{i}.py]\n"
        for i in range(1, 160_000)
    )
    write(root, GRAPH_YAML, YAML_GRAPH_TEXT + other)
    # Read within the size limit or refused by it; the timeout only guards against a hang.
    run = run_child(root, ("mahabharatha",), timeout=HANG_GUARD)["mahabharatha"]
    assert run.get("context") == FULL or run["refused"].startswith(f"{GRAPH_YAML}: ")


# -- issue 15: untrusted projects ---------------------------------------------------------------------


@needs_rusage
def test_a_task_listing_a_hundred_thousand_files_is_assembled_in_linear_time(tmp_path: Path) -> None:
    # Every stem shares the word "mod": its sources were de-duplicated by searching a list,
    # 100,000 searches of up to 100,000 entries (past 300 s; 32,000 files took 18 s).  The
    # child's timeout is only the hang guard: the run takes about 1.5 s a profile on vm.
    paths = [f"src/mod_{i:05d}.py" for i in range(100_000)]
    task = {**TASK, "description": " ".join(paths), "files": {"create": paths}}
    root = graph_project(tmp_path / "p", [task])
    data = run_child(root, ("mahabharatha", "ctxviewer"), timeout=90)
    # Keywords login, session, mod and the 100,000 numbers: only "Login session store." scores.
    assert data["mahabharatha"]["context"] == FULL
    assert data["mahabharatha"]["errors"] == data["ctxviewer"]["errors"] == []
    assert data["ctxviewer"]["used"] <= data["ctxviewer"]["budget"]


@needs_rusage
def test_a_sixteen_megabyte_spec_line_without_spaces_is_counted_in_pieces(tmp_path: Path) -> None:
    # One paragraph "Login session " + 16 MiB of letters: a single pre-token that tiktoken
    # merged in time growing faster than its length and held whole (50 MB: 78 s, 2.6 GB).
    # Counted in pieces, both encodings' counts of it are estimates, and the trace says so.
    root = graph_project(tmp_path / "p", [TASK])
    letters = ("abcdefghijklmnopqrstuvwxyz" * 41)[:1024]
    with open(root / REQ, "w", encoding="ascii") as f:
        f.write("Login session ")
        for _ in range(16 * 1024):
            f.write(letters)
        f.write("\n\nUnrelated text.\n")
    code = PEAK_RSS + (
        "import io, json, sys\n"
        "from contextlib import redirect_stdout\n"
        "from ctxviewer.cli import main\n"
        "out = io.StringIO()\n"
        "with redirect_stdout(out):\n"
        "    code = main(['assemble', sys.argv[1], '--feature', 'feat', '--task', 'T1', '--format', 'json'])\n"
        "trace = json.loads(out.getvalue())\n"
        "print(json.dumps([code, trace['warnings'], peak_rss_mb()]))\n"
    )
    limit = "import resource\nresource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))\n"
    result = subprocess.run(
        [sys.executable, "-c", limit + code, str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    exit_code, warnings, peak_mb = json.loads(result.stdout)
    length = len("Login session ") + 16 * 1024 * 1024
    assert exit_code == 0
    assert warnings == [
        f"exact token counts are estimates for 1 text (the longest {length:,} characters): each holds a run of "
        "over 32,768 characters without whitespace, counted in pieces of at most 65,536 characters; each cut "
        "inside a run can move a count by a few tokens"
    ]
    assert peak_mb < 1024, peak_mb  # the whole line held as tokens was over 1.5 GB


# A cloned repository's git config: its fsmonitor command runs on the next `git status`.
GIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n" + "".join(f"# line {i}\n" for i in range(320))
BIG_COMMAND = "# Command\n" + "".join(f"step {i}\n" for i in range(400))


def git_repo(root: Path) -> Path:
    base_project(root)
    write(root, ".git/config", GIT_CONFIG)
    write(root, ".git/hooks/notes.md", BIG_COMMAND)
    return root


def tree(root: Path) -> dict[str, bytes | str]:
    """Every entry under *root*: a file's bytes, a link's target (not followed)."""
    out: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_file():
            out[rel] = path.read_bytes()
    return out


def test_split_apply_never_writes_through_a_command_file_linked_to_git_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = git_repo(tmp_path / "p")
    (root / ".claude/commands").mkdir(parents=True)
    os.symlink("../../.git/config", root / ".claude/commands/setup.md")
    before = tree(root)
    code, out, err = cli(capsys, "split", str(root), "--apply", "--no-exact")
    assert (root / ".git/config").read_bytes() == GIT_CONFIG.encode()
    assert tree(root) == before  # nothing written anywhere, the link kept
    assert (code, out) == (2, "")
    assert err == (
        "ctxviewer: .claude/commands/setup.md: is a symlink (to ../../.git/config); split never writes through "
        "a link; not split\n"
    )


@pytest.mark.parametrize("how", ["core link", "folder link", "hard link"])
def test_split_apply_refuses_every_other_way_into_git(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    root = git_repo(tmp_path / "p")
    commands = root / ".claude/commands"
    commands.mkdir(parents=True)
    if how == "core link":  # a plain command file whose .core.md is a link to a git hook
        write(root, ".claude/commands/build.md", BIG_COMMAND)
        os.symlink("../../.git/hooks/pre-commit", commands / "build.core.md")
        rel, why = ".claude/commands/build.core.md", "is a symlink (to ../../.git/hooks/pre-commit)"
        why += "; split never writes through a link"
    elif how == "folder link":  # a folder of commands that is git's hooks folder
        os.symlink("../../.git/hooks", commands / "hooks")
        rel = ".claude/commands/hooks/notes.md"
        why = "is under .claude/commands/hooks, a symlink (to ../../.git/hooks); split never writes through a link"
    else:  # one file, two names: the command file and a file the repository keeps elsewhere
        os.link(root / ".git/hooks/notes.md", commands / "notes.md")
        rel, why = ".claude/commands/notes.md", "has 2 names (hard links); split never writes a file with other names"
    before = tree(root)
    code, out, err = cli(capsys, "split", str(root), "--apply", "--no-exact")
    assert tree(root) == before
    assert (code, out) == (2, "")
    assert err == f"ctxviewer: {rel}: {why}; not split\n"


def test_split_names_each_command_file_it_cannot_follow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 14: only broken links used to read "no command files under ..." and name none.
    root = base_project(tmp_path / "p")
    commands = root / ".claude/commands"
    commands.mkdir(parents=True)
    os.symlink("gone.md", commands / "broken.md")
    os.symlink("loop.md", commands / "loop.md")
    os.symlink("../../../outside.md", commands / "out.md")
    code, out, err = cli(capsys, "split", str(root), "--no-exact")
    assert (code, out) == (2, "")
    assert err == (
        "ctxviewer: .claude/commands/broken.md: a symlink to gone.md, which does not exist; not read\n"
        "ctxviewer: .claude/commands/loop.md: not read: symlink loop\n"
        "ctxviewer: .claude/commands/out.md: not read: symlink to ../../../outside.md outside the project\n"
    )


def test_ctxviewer_yaml_linked_into_git_is_never_saved_through(tmp_path: Path) -> None:
    from ctxviewer.engine.project.tuning import save_ctxviewer_yaml

    root = git_repo(tmp_path / "p")
    hook = "#!/bin/sh\n"  # a YAML comment, so the project loads; saving would make it YAML, run at checkout
    write(root, ".git/hooks/post-checkout", hook)
    os.symlink(".git/hooks/post-checkout", root / CTX)
    project = load_project(root)
    with pytest.raises(WriteError) as info:
        save_ctxviewer_yaml(project, project.settings.with_overrides({"budget": 3000}, "gui"))
    assert str(info.value) == (
        f"{root / CTX}: is a symlink (to .git/hooks/post-checkout); a project file is never written through a link; "
        "not written"
    )
    assert (root / ".git/hooks/post-checkout").read_text(encoding="utf-8") == hook


def test_an_output_the_user_names_may_be_a_link_but_never_into_git(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = git_repo(tmp_path / "p")
    args = ("assemble", str(root), "--feature", "feat", "--task", "T1", "-o")
    mine = tmp_path / "exports/context.md"
    write(tmp_path, "exports/context.md", "old")
    os.symlink(mine, tmp_path / "latest.md")
    assert cli(capsys, *args, str(tmp_path / "latest.md")) == (0, "", "")
    assert mine.read_text(encoding="utf-8") == FULL and (tmp_path / "latest.md").is_symlink()
    os.symlink(root / ".git/config", tmp_path / "sneaky.md")
    code, out, err = cli(capsys, *args, str(tmp_path / "sneaky.md"))
    assert (code, out) == (2, "")
    assert err == (
        f"ctxviewer: {tmp_path / 'sneaky.md'}: is a symlink into a .git folder ({(root / '.git/config').resolve()}); "
        "ctxviewer never writes there\n"
    )
    code, out, err = cli(capsys, *args, str(root / ".git/context.md"))
    assert (code, err) == (
        2,
        f"ctxviewer: {root / '.git/context.md'}: is inside a .git folder; ctxviewer never writes there\n",
    )
    assert (root / ".git/config").read_bytes() == GIT_CONFIG.encode() and not (root / ".git/context.md").exists()


SURROGATE_LINE = (
    f"ctxviewer: {GRAPH}:1: invalid JSON: \\ud800 (column 41) is half of a UTF-16 surrogate pair, not a character\n"
)


@pytest.mark.parametrize(
    "argv",
    [
        ("assemble", "--feature", "feat", "--task", "T1", "--format", "json"),
        ("assemble", "--feature", "feat", "--task", "T1", "-o", "OUT"),
        ("batch",),
        ("batch", "--format", "csv"),
        ("check",),
        ("compare", "--feature", "feat", "--task", "T1", "--profiles", "mahabharatha,drift"),
        ("whatif", "--feature", "feat", "--task", "T1", "--set", "budget=3000"),
        ("split",),
    ],
    ids=lambda argv: " ".join(argv[:1] + argv[-2:]),
)
def test_a_lone_surrogate_in_the_task_graph_is_bad_input_in_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    root = base_project(tmp_path / "p")
    # {"tasks": [{"id": "T1", "title": "Login \ud800 session"}]}: the escape starts at column 41.
    write(root, GRAPH, '{"tasks": [{"id": "T1", "title": "Login \\ud800 session"}]}\n')
    out_file = tmp_path / "out.md"
    args = [str(out_file) if a == "OUT" else a for a in argv]
    code, out, err = cli(capsys, args[0], str(root), *args[1:])
    if argv == ("split",):  # split reads no task graph: nothing to refuse
        assert (code, err) == (0, "")
        return
    assert (code, out, err) == (2, "", SURROGATE_LINE)
    assert not out_file.exists()


def test_a_surrogate_pair_in_json_is_one_character_and_yaml_surrogates_are_refused(tmp_path: Path) -> None:
    root = base_project(tmp_path / "p")
    write(root, GRAPH, '{"tasks": [{"id": "T1", "title": "Login \\ud83d\\ude00 session"}]}\n')
    assert load_project(root).feature("feat").task("T1").title == "Login \U0001f600 session"
    write(root, CTX, 'budget: 4000\npaths:\n  commands: "cmd\\U0000DC00"\n')
    with pytest.raises(ProjectError) as info:
        load_project(root)
    assert str(info.value) == (
        "ctxviewer.yaml:3: invalid YAML: \\U0000DC00 (column 17) is half of a UTF-16 surrogate pair, not a character"
    )


def test_a_feature_folder_whose_name_is_not_utf8_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = base_project(tmp_path / "p")
    bad = os.fsdecode(b"sp\xe9c")  # Latin-1 "spéc": not UTF-8
    os.mkdir(root / ".gsd/specs" / bad)
    (root / ".gsd/specs" / bad / "task-graph.json").write_text(json.dumps({"tasks": [TASK]}))
    project = load_project(root)
    assert [f.name for f in project.features] == ["feat", "sp\\xe9c"]
    line = "ctxviewer: .gsd/specs/sp\\xe9c: the folder name is not valid UTF-8; rename it to read this feature\n"
    assert cli(capsys, "batch", str(root)) == (2, "", line)
    assert cli(capsys, "check", str(root)) == (2, "", line)
    # The other features are untouched.
    assert cli(capsys, "check", str(root), "--feature", "feat") == (
        0,
        "0 of 1 task over 4,000 heuristic tokens\n",
        "",
    )
    assert cli(capsys, "assemble", str(root), "--feature", "feat", "--task", "T1") == (0, FULL, "")


@needs_rusage
def test_a_project_selecting_the_ctxviewer_profile_with_a_dotted_capital_i_keyword_stays_linear(
    tmp_path: Path,
) -> None:
    # The project's own ctxviewer.yaml picks the ctxviewer profile; one keyword ("İstanbul")
    # lowercases one character longer, which switched matching to one regex over all 20,000
    # keywords (2,000 keywords over 2,000 paragraphs already took 10.5 s on vm).  The child's
    # timeout is only the hang guard.
    def word(i: int) -> str:  # letters only: digits would be split off (camelCase humps) and dropped
        return "kw" + "".join(chr(97 + (i // 26**k) % 26) for k in range(4))

    words = " ".join(word(i) for i in range(20_000))
    root = graph_project(tmp_path / "p", [{**TASK, "description": f"\u0130stanbul {words}"}])
    write(root, CTX, "profile: ctxviewer\n")
    write(root, REQ, "".join(f"Paragraph {i}: {word(i)} and \u0130STANBUL.\n\n" for i in range(2000)))
    run = run_child(root, ("ctxviewer",), timeout=60)["ctxviewer"]
    assert run["errors"] == [] and run["used"] <= run["budget"]
    assert "\u0130STANBUL" in run["context"]

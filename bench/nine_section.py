"""A generated project shaped like a real repository that upstream's nine-section pipeline runs.

Hundreds of Python, JavaScript and TypeScript sources for the repository map, features with
specs and task graphs whose tasks name those sources, engineering rules in YAML under the
state folder (``.zerg/`` or ``.mahabharatha/``, which is what detection reads) and the
security rule files.  ``bench_floor.py --shape nine-section`` and ``bench_window.py --shape
nine-section`` time ``batch`` and the window on it.

With ``--sources-from DIR ...`` the sources are real files copied from those folders (at most
``--sources`` of them, a seeded sample, each folder's layout kept under a top-level folder named
after it) and the tasks name those files and use words of their identifiers; the specs, rules
and task graphs stay generated.

    python bench/nine_section.py /tmp/nine --tasks 700 --sources 470
    python bench/nine_section.py /tmp/real --sources 500 --sources-from /usr/lib/python3.11 /usr/lib/node_modules/npm
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_batch import WORDS, _paragraph, _sentence

from ctxviewer.engine.profiles.zerg.repomap import SKIPPED_FOLDERS, SUFFIXES

#: Top-level source folders and the suffixes their files take.
TREES = (
    ("src/app", (".py",)),
    ("src/services", (".py",)),
    ("src/models", (".py",)),
    ("tests", (".py",)),
    ("web/src/components", (".tsx", ".ts")),
    ("web/src/lib", (".ts", ".js")),
    ("web/server", (".js", ".jsx")),
)
#: Words of code that descriptions rarely use, and words of descriptions that code rarely does: a
#: task's keywords then hit some of the symbols, not nearly all of them.
CODE_WORDS = (
    "handler", "manager", "client", "config", "helper", "parser", "builder", "loader", "store", "model",
    "view", "util", "event", "request", "response", "factory", "adapter", "mapper", "registry", "context",
)  # fmt: skip
PROSE_WORDS = (
    "implement", "ensure", "handle", "support", "update", "should", "when", "that", "with", "from", "into",
    "every", "before", "after", "there", "which", "their", "users", "about", "would", "make", "also",
    "without", "being", "other", "those", "these", "while", "first", "where", "only", "changes",
)  # fmt: skip
PRIORITIES = ("critical", "important", "recommended")
GLOBS = ("*.py", "*.ts", "*.tsx", "*.js", "test_*.py", "*_service.py", "*.jsx", "Dockerfile*", "*")


def _name(rng: random.Random) -> str:
    return f"{rng.choice(WORDS)}_{rng.choice(CODE_WORDS)}"


def _description(rng: random.Random) -> str:
    words = [rng.choice(WORDS) if rng.random() < 0.25 else rng.choice(PROSE_WORDS) for _ in range(rng.randint(12, 40))]
    return " ".join(words).capitalize() + "."


def _python_source(rng: random.Random, modules: list[str]) -> str:
    out = ['"""' + _sentence(rng) + '"""', "", "from __future__ import annotations", "import os"]
    for other in rng.sample(modules, min(len(modules), rng.randint(1, 6))):
        out.append(f"from {other} import {rng.choice(CODE_WORDS)}")
    out.append("")
    out.append(f"{rng.choice(WORDS).upper()}_LIMIT = {rng.randint(1, 999)}")
    for _ in range(rng.randint(3, 10)):
        out += ["", "", f"def {_name(rng)}({rng.choice(CODE_WORDS)}: str, count: int = 0) -> bool:"]
        out += [f'    """{_sentence(rng)}"""', "    return True"]
    for _ in range(rng.randint(0, 4)):
        cls = rng.choice(WORDS).title() + rng.choice(CODE_WORDS).title()
        out += ["", "", f"class {cls}({rng.choice(['object', 'Base', 'Exception'])}):", f'    """{_sentence(rng)}"""']
        for _ in range(rng.randint(2, 8)):
            out += ["", f"    def {_name(rng)}(self, {rng.choice(CODE_WORDS)}: str) -> None:", "        pass"]
    return "\n".join(out) + "\n"


def _js_source(rng: random.Random, ts: bool) -> str:
    out = []
    for _ in range(rng.randint(0, 3)):
        out.append(f"import {{ {rng.choice(CODE_WORDS)}, {rng.choice(CODE_WORDS)} }} from './{rng.choice(WORDS)}'")
    for _ in range(rng.randint(3, 10)):
        ret = ": boolean" if ts else ""
        out.append(f"/** {_sentence(rng)} */\nexport function {_name(rng)}(a, b){ret} {{\n  return true\n}}")
    for _ in range(rng.randint(0, 3)):
        out.append(f"export const {rng.choice(WORDS)}{rng.choice(CODE_WORDS).title()} = (x) => x")
    for _ in range(rng.randint(0, 2)):
        out.append(f"export class {rng.choice(WORDS).title()}{rng.choice(CODE_WORDS).title()} extends Base {{\n}}")
    if ts:
        out.append(f"export interface {rng.choice(WORDS).title()}Props {{\n  id: string\n}}")
        out.append(f"export type {rng.choice(WORDS).title()}Id = string")
    return "\n\n".join(out) + "\n"


def _rules_yaml(rng: random.Random, name: str, count: int) -> str:
    lines = [f"name: {name}", "rules:"]
    for n in range(count):
        globs = rng.sample(GLOBS, rng.randint(1, 3))
        lines += [
            f"  - id: {name}-{n:02d}",
            f"    title: {_sentence(rng)[:70]}",
            f"    description: {_sentence(rng)}",
            f"    priority: {rng.choice(PRIORITIES)}",
            "    applies_to:",
            *(f'      - "{g}"' for g in globs),
        ]
        if rng.random() < 0.05:
            lines.append("    enabled: false")
    return "\n".join(lines) + "\n"


#: A name a source defines (a function, class, method or constant of Python or JavaScript).
_DEFINED = re.compile(
    r"(?:\bdef|\bclass|\bfunction|\bconst|\blet|\bvar)\s+([A-Za-z_$][\w$]{3,})|^([A-Z][A-Z0-9_]{3,})\s*=", re.M
)
_IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{3,}\b")
#: The pieces of a snake_case or camelCase name.
_PIECE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _top_folder(folder: Path, taken: set[str]) -> str:
    """The top-level folder *folder*'s files go under: its name with anything but letters,
    digits, ``-`` and ``_`` replaced (a dot would split the module's dotted key), never one the
    map skips, never one taken already."""
    name = re.sub(r"[^\w-]", "_", folder.name) or "src"
    if name in SKIPPED_FOLDERS or name.startswith((".", "_")):
        name = re.sub(r"[^\w-]", "_", folder.parent.name) + "_" + name.lstrip("._")
    out, n = name, 1
    while out in taken:
        n += 1
        out = f"{name}-{n}"
    taken.add(out)
    return out


def _candidates(folder: Path) -> list[str]:
    """Every source of *folder* the map would read, relative, sorted: not under a folder it
    skips (nor a link to a folder), a suffix it reads, a file (or a link to one)."""
    out = []
    for top, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not (d in SKIPPED_FOLDERS or d.startswith(".")))
        rel = os.path.relpath(top, folder)
        for name in sorted(names):
            at = name.rfind(".")
            if 0 < at < len(name) - 1 and name[at:].lower() in SUFFIXES and os.path.isfile(os.path.join(top, name)):
                out.append(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/"))
    return out


def _words_of(text: str) -> list[str]:
    """Words a task about *text* would use: the names it defines (or, defining none, its
    identifiers), whole or in their snake_case/camelCase pieces, each longer than three."""
    names = sorted({a or b for a, b in _DEFINED.findall(text)}) or sorted(set(_IDENTIFIER.findall(text)))[:200]
    words = set(names)
    for name in names:
        words.update(piece.lower() for piece in _PIECE.findall(name) if len(piece) > 3)
    return sorted(words)


def copy_sources(
    root: Path, folders: Sequence[Path], cap: int, rng: random.Random
) -> tuple[list[str], dict[str, list[str]]]:
    """Copy at most *cap* real sources from *folders* under *root*: a seeded sample, shared
    evenly between the folders (what a small one cannot give goes to the others), each
    folder's files under one top-level folder with their layout kept.  Returns the copied
    files (relative to *root*) and, per file, the words a task about it would use."""
    taken: set[str] = set()
    found = [(folder, _top_folder(folder, taken), _candidates(folder)) for folder in folders]
    chosen: dict[int, list[str]] = {}
    left, waiting = cap, len(found)
    for n in sorted(range(len(found)), key=lambda n: len(found[n][2])):
        share = min(len(found[n][2]), left // waiting)
        chosen[n] = sorted(rng.sample(found[n][2], share))
        left -= share
        waiting -= 1
    if not any(chosen.values()):
        raise ValueError("no source the map reads in " + ", ".join(map(str, folders)))
    files: list[str] = []
    words: dict[str, list[str]] = {}
    for n, (folder, top, _) in enumerate(found):
        for rel in chosen[n]:
            target = root / top / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / rel, target)
            files.append(f"{top}/{rel}")
            words[files[-1]] = _words_of(target.read_bytes().decode("utf-8", errors="replace"))
    return files, words


def _real_description(rng: random.Random, words: Sequence[str]) -> str:
    """:func:`_description` with the real files' words where it takes vocabulary."""
    out = [
        rng.choice(words) if words and rng.random() < 0.25 else rng.choice(PROSE_WORDS)
        for _ in range(rng.randint(12, 40))
    ]
    text = " ".join(out)  # identifiers keep their case
    return text[:1].upper() + text[1:] + "."


def _real_task(
    rng: random.Random, task_id: str, level: int, files: list[str], words: dict[str, list[str]]
) -> dict[str, object]:
    """A task of a real tree: it modifies one to three of its files, reads the rest of up to five and
    sometimes creates one beside them; its description uses words of those files."""
    named = rng.sample(files, min(len(files), rng.randint(1, 5)))
    modify = named[: rng.randint(1, 3)]
    read = named[len(modify) :]
    create = []
    if rng.random() < 0.3:
        folder, _, name = modify[0].rpartition("/")
        suffix = name[name.rfind(".") :]
        create.append(f"{folder}/{rng.choice(WORDS)}_{rng.choice(CODE_WORDS)}{suffix}".lstrip("/"))
    pool = sorted({w for f in named for w in words[f]})
    return {
        "id": task_id,
        "title": _sentence(rng)[:60],
        "description": _real_description(rng, pool),
        "files": {"create": create, "modify": modify, "read": read},
        "dependencies": [],
        "level": level,
    }


def generate(
    root: Path,
    tasks: int = 700,
    features: int = 20,
    sources: int = 470,
    spec_mb: float = 2.0,
    state_dir: str = ".zerg",
    seed: int = 32,
    sources_from: Sequence[Path] = (),
) -> Path:
    """Write the project under *root* (which must not exist yet) and return it: *sources*
    generated sources, or, with *sources_from*, at most that many real ones copied from those
    folders (:func:`copy_sources`)."""
    rng = random.Random(seed)
    state = root / state_dir
    (state / "rules").mkdir(parents=True)
    for n, name in enumerate(("python", "javascript", "testing", "security-hygiene", "style")):
        (state / "rules" / f"{n:02d}-{name}.yaml").write_text(_rules_yaml(rng, name, rng.randint(8, 20)))
    (state / "config.yaml").write_text(
        "plugins:\n  context_engineering:\n    task_context_budget_tokens: 4000\n    security_rule_filtering: true\n"
    )
    security = root / ".claude/rules/security"
    for rel, n in (
        ("_core/owasp-2025.md", 20),
        ("languages/python/CLAUDE.md", 12),
        ("languages/javascript/CLAUDE.md", 12),
        ("containers/docker/CLAUDE.md", 8),
    ):
        path = security / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            "".join(
                f"## Rule: {_sentence(rng)}\n**Level**: strict\n**When**: {_sentence(rng)}\n\n{_paragraph(rng)}\n\n"
                for _ in range(n)
            ),
            encoding="utf-8",
        )
    files: list[str] = []
    modules: list[str] = []
    words: dict[str, list[str]] = {}
    if sources_from:
        files, words = copy_sources(root, sources_from, sources, rng)
    for _ in range(0 if sources_from else sources):
        folder, suffixes = rng.choice(TREES)
        suffix = rng.choice(suffixes)
        rel = f"{folder}/{_name(rng)}{suffix}"
        if rel in files:
            continue
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if suffix == ".py":
            path.write_text(_python_source(rng, modules), encoding="utf-8")
            modules.append(rel[:-3].replace("/", "."))
        else:
            path.write_text(_js_source(rng, suffix.startswith(".ts")), encoding="utf-8")
        files.append(rel)
    per_feature = int(spec_mb * 1_000_000 / features / 2)
    left = tasks
    for f in range(features):
        spec = root / f".gsd/specs/feature-{f:02d}"
        spec.mkdir(parents=True)
        for name in ("requirements.md", "design.md"):
            parts, size = [], 0
            while size < per_feature:
                parts.append(_paragraph(rng))
                size += len(parts[-1]) + 2
            (spec / name).write_text("\n\n".join(parts), encoding="utf-8")
        count = left // (features - f)
        left -= count
        graph = []
        for t in range(count):
            if sources_from:
                graph.append(_real_task(rng, f"F{f:02d}-{t:03d}", 1 + t % 3, files, words))
                continue
            named = rng.sample(files, rng.randint(1, 4))
            if rng.random() < 0.3:
                named.append(f"{rng.choice(TREES)[0]}/{_name(rng)}.py")  # a file the task creates
            graph.append(
                {
                    "id": f"F{f:02d}-{t:03d}",
                    "title": _sentence(rng)[:60],
                    "description": _description(rng),
                    "files": {"create": named[:1], "modify": named[1:], "read": []},
                    "dependencies": [],
                    "level": 1 + t % 3,
                }
            )
        (spec / "task-graph.json").write_text(json.dumps({"feature": f"feature-{f:02d}", "tasks": graph}))
    return root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--tasks", type=int, default=700)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--sources", type=int, default=470)
    parser.add_argument("--spec-mb", type=float, default=2.0)
    parser.add_argument("--state-dir", default=".zerg", choices=(".zerg", ".mahabharatha"))
    parser.add_argument(
        "--sources-from",
        nargs="+",
        type=Path,
        default=[],
        metavar="DIR",
        help="copy at most --sources real sources from these folders instead of generating them",
    )
    args = parser.parse_args()
    generate(
        args.root, args.tasks, args.features, args.sources, args.spec_mb, args.state_dir, sources_from=args.sources_from
    )
    print(args.root)
    return 0


if __name__ == "__main__":
    sys.exit(main())

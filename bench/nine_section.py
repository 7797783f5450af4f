"""A generated project shaped like a real repository that upstream's nine-section pipeline runs.

Hundreds of Python, JavaScript and TypeScript sources for the repository map, features with
specs and task graphs whose tasks name those sources, engineering rules in YAML under the
state folder (``.zerg/`` or ``.mahabharatha/``, which is what detection reads) and the
security rule files.  ``bench_floor.py --shape nine-section`` and ``bench_window.py --shape
nine-section`` time ``batch`` and the window on it.

    python bench/nine_section.py /tmp/nine --tasks 700 --sources 470
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_batch import WORDS, _paragraph, _sentence

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


def generate(
    root: Path,
    tasks: int = 700,
    features: int = 20,
    sources: int = 470,
    spec_mb: float = 2.0,
    state_dir: str = ".zerg",
    seed: int = 32,
) -> Path:
    """Write the project under *root* (which must not exist yet) and return it."""
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
    for _ in range(sources):
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
    args = parser.parse_args()
    generate(args.root, args.tasks, args.features, args.sources, args.spec_mb, args.state_dir)
    print(args.root)
    return 0


if __name__ == "__main__":
    sys.exit(main())

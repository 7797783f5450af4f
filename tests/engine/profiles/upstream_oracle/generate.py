"""Random projects for the differential test against the real zerg-ai.

Each project has one feature whose tasks, specs, security rule files, engineering rule
files and Python / JavaScript / TypeScript sources are drawn from small vocabularies
chosen to exercise upstream's edges: substring keywords (``with``, ``tests``,
``requirements``), the abbreviations of compact mode, rule globs and priorities, the
1,600-character cuts, module/file matches in the repository map and its links.
"""

from __future__ import annotations

import json
import random
from itertools import product
from pathlib import Path
from typing import Any

_WORD_TEXT = """
ledger session token security configuration requirements implementation architecture with that from
tests latest build guide review debug refactor analyze document design validation performance
environment dependencies operations standards optimization documentation account balance refund
payment invoice export import parser schema render widget button modal cart checkout user admin
cache queue worker retry limit audit report chart search filter order price stock ship
"""
WORDS = tuple(_WORD_TEXT.split())
STEMS = ("ledger", "session_store", "user-profile", "cart", "checkout_flow", "audit", "report", "widget", "api")
DIRS = ("src", "src/app", "src/ui", "lib", "server", "pkg/core")
SUFFIXES = (".py", ".ts", ".tsx", ".js", ".jsx", ".css", ".html", ".md", ".pyi", ".mjs")

#: Every combination of the switch values the plugin distinguishes (None: unset).
DEPTHS = (None, "", "standard", "quick", "think", "think_hard", "think-hard", "ultrathink", "deep")
MODES = (None, "precision", "speed", "exploration", "refactor", "debug", "calm")
TDDS = (None, "1", "0", "true")
COMPACTS = (None, "1", "true", "0")
COMBOS: list[dict[str, str]] = [
    {
        k: v
        for k, v in zip(("ANALYSIS_DEPTH", "BEHAVIORAL_MODE", "TDD_MODE", "COMPACT_MODE"), c, strict=True)
        if v is not None
    }
    for c in product(DEPTHS, MODES, TDDS, COMPACTS)
]


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def _paragraphs(rng: random.Random, count: int) -> str:
    out = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.15:
            out.append(f"## {_sentence(rng, 3)[:-1].title()}")
        elif kind < 0.25:
            out.append("\n".join(f"- {_sentence(rng, rng.randint(3, 8))}" for _ in range(rng.randint(2, 5))))
        else:
            out.append(" ".join(_sentence(rng, rng.randint(5, 18)) for _ in range(rng.randint(1, 6))))
    sep = rng.choice(["\n\n", "\n\n", "\n\n\n"])
    return sep.join(out) + rng.choice(["", "\n", "\n\n  \n"])


def _security_file(rng: random.Random) -> str:
    lines = ["# Rules", ""]
    for _ in range(rng.randint(1, 14)):
        lines.append(f"{rng.choice(['## Rule:', '### Rule:'])} {_sentence(rng, rng.randint(2, 7))}")
        lines.append(f"**Level**: {rng.choice(['strict', 'warning', 'advisory'])}")
        if rng.random() < 0.8:
            lines.append(f"**When**: {_sentence(rng, rng.randint(4, 12))}")
        if rng.random() < 0.4:
            lines += ["```python", "## Rule: inside a fence", "x = 1", "```"]
        lines.append(_sentence(rng, 6))
        lines.append("")
    return "\n".join(lines)


def _engineering_file(rng: random.Random, ids: list[str]) -> str:
    rules = []
    for _ in range(rng.randint(1, 14)):
        if rng.random() < 0.3 and ids:
            rid = rng.choice(ids)
        else:
            rid = f"R{rng.randint(1, 999)}"
            ids.append(rid)
        rule: dict[str, Any] = {"id": rid, "title": _sentence(rng, rng.randint(2, 8))[:-1]}
        if rng.random() < 0.7:
            rule["description"] = _sentence(rng, rng.randint(3, 40))
        if rng.random() < 0.85:
            rule["priority"] = rng.choice(["critical", "important", "recommended", "Critical", "IMPORTANT", "urgent"])
        globs = rng.choice([None, "*.py", ["*.ts", "*.tsx"], ["*"], ["*.js", "Dockerfile*"], ["*_flow.*"], "*.md"])
        if globs is not None:
            rule["applies_to"] = globs
        if rng.random() < 0.15:
            rule["enabled"] = False
        if rng.random() < 0.05:
            rule.pop("title")
        if rng.random() < 0.04:  # odd values: some are skipped, some make upstream drop the section
            key, value = rng.choice(
                [("priority", None), ("applies_to", None), ("applies_to", 5), ("applies_to", {"*.py": 1}),
                 ("applies_to", [5]), ("title", 42), ("description", ["a", "b"]), ("id", [1]), ("enabled", "no"),
                 ("enabled", 0)]
            )  # fmt: skip
            rule[key] = value
        rules.append(rule)
    return json.dumps({"name": "generated", "rules": rules}, indent=1)  # JSON is YAML


def _python_source(rng: random.Random, modules: list[str]) -> str:
    out = []
    if rng.random() < 0.6 and modules:
        out.append(f"import {rng.choice(modules)}")
    if rng.random() < 0.5:
        out.append(f"from {rng.choice(modules or ['os'])} import {rng.choice(WORDS)} as alias_{rng.randint(1, 9)}")
    if rng.random() < 0.2:
        out.append("from . import sibling")
    out.append(f"LIMIT_{rng.randint(1, 99)} = {rng.randint(1, 999)}")
    out.append("lower_name = 1")
    for _ in range(rng.randint(0, 4)):
        name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}"
        names = dict.fromkeys(rng.choice(WORDS) for _ in range(rng.randint(0, 3)))
        notes = ("", ": int", ": str | None", ": dict[str, int]", ": list[Path]")
        args = ", ".join([*(n + rng.choice(notes) for n in names), "*rest", "key=None"])
        ret = rng.choice(["", " -> bool", " -> None", " -> tuple[int, str]", " -> 'Fwd'"])
        prefix = rng.choice(["def", "def", "async def"])
        doc = f'    """{_sentence(rng, 5)}\n\n    More text.\n    """\n' if rng.random() < 0.6 else ""
        out.append(f"{prefix} {name}({args}){ret}:\n{doc}    return None")
    for _ in range(rng.randint(0, 2)):
        base = rng.choice(["", "(object)", "(Base)", "(abc.ABC)", "(Generic[T], Mixin)"])
        doc = f'    """{_sentence(rng, 4)}"""\n' if rng.random() < 0.5 else ""
        methods = "\n".join(
            f"    def {rng.choice(WORDS)}(self, value: int = 0) -> int:\n        return value"
            for _ in range(rng.randint(0, 3))
        )
        out.append(f"class {rng.choice(WORDS).title()}{rng.randint(1, 9)}{base}:\n{doc}{methods or '    pass'}")
    if rng.random() < 0.05:
        out.append("def broken(:\n    pass")
    return "\n\n\n".join(out) + "\n"


def _js_source(rng: random.Random, ts: bool) -> str:
    out = []
    if rng.random() < 0.6:
        out.append(f"import {{ {rng.choice(WORDS)}, {rng.choice(WORDS)} as other }} from './{rng.choice(STEMS)}'")
    if rng.random() < 0.4:
        out.append(f'import {rng.choice(WORDS).title()} from "{rng.choice(WORDS)}"')
    for _ in range(rng.randint(0, 4)):
        name = f"{rng.choice(WORDS)}{rng.choice(WORDS).title()}"
        doc = rng.choice(["", f"/** {_sentence(rng, 4)} */\n", f"/**\n * {_sentence(rng, 5)}\n * @param x\n */\n"])
        kind = rng.random()
        if kind < 0.4:
            out.append(f"{doc}{rng.choice(['', 'export ', 'export default '])}function {name}(a, b) {{\n  return a\n}}")
        elif kind < 0.7:
            ann = ": Handler" if ts and rng.random() < 0.5 else ""
            out.append(f"{doc}export const {name}{ann} = async (req{', res' if rng.random() < 0.5 else ''}) => {{}}")
        else:
            out.append(f"export const {name.upper()}{': number' if ts else ''} = {rng.randint(1, 9)}")
    for _ in range(rng.randint(0, 2)):
        doc = rng.choice(["", f"/** {_sentence(rng, 3)} */\n"])
        ext = rng.choice(["", f" extends {rng.choice(WORDS).title()}"])
        out.append(f"{doc}export class {rng.choice(WORDS).title()}{ext} {{\n}}")
    if ts:
        out.append(f"export interface {rng.choice(WORDS).title()}Props {{\n  id: string\n}}")
        out.append(f"export type {rng.choice(WORDS).title()}Id = string")
    return "\n\n".join(out) + "\n"


def make_project(root: Path, seed: int, tasks: int) -> tuple[str, list[dict[str, Any]]]:
    """Write one random project under *root*; returns the feature name and its tasks."""
    rng = random.Random(seed)
    feature = f"feat-{seed}"
    spec = root / ".gsd" / "specs" / feature
    spec.mkdir(parents=True)
    if rng.random() < 0.9:
        (spec / rng.choice(["requirements.md", "REQUIREMENTS.md"])).write_text(_paragraphs(rng, rng.randint(3, 40)))
    if rng.random() < 0.85:
        name = rng.choice(["design.md", "DESIGN.md", "architecture.md", "ARCHITECTURE.md"])
        (spec / name).write_text(_paragraphs(rng, rng.randint(3, 40)))
    sec = root / ".claude" / "rules" / "security"
    for rel in ("_core/owasp-2025.md", "languages/python/CLAUDE.md", "languages/javascript/CLAUDE.md",
                "containers/docker/CLAUDE.md"):  # fmt: skip
        if rng.random() < 0.75:
            (sec / rel).parent.mkdir(parents=True, exist_ok=True)
            (sec / rel).write_text(_security_file(rng))
    rules = root / ".zerg" / "rules"
    if rng.random() < 0.9:
        rules.mkdir(parents=True)
        ids: list[str] = []
        for n in range(rng.randint(1, 4)):
            (rules / f"{n:02d}-{rng.choice(WORDS)}.{rng.choice(['yaml', 'yml'])}").write_text(
                _engineering_file(rng, ids)
            )
        if rng.random() < 0.3:
            (rules / "broken.yaml").write_text("rules: [unclosed\n")
    if rng.random() < 0.7:
        budget = rng.choice([500, 1000, 2000, 3999, 4000, 4001, 7777, 20000])
        filtering = "false" if rng.random() < 0.1 else "true"
        (root / ".zerg" / "config.yaml").parent.mkdir(parents=True, exist_ok=True)
        (root / ".zerg" / "config.yaml").write_text(
            "plugins:\n  context_engineering:\n"
            f"    task_context_budget_tokens: {budget}\n    security_rule_filtering: {filtering}\n"
        )
    modules: list[str] = []
    files: list[str] = []
    for _ in range(rng.randint(0, 25)):
        folder = rng.choice(DIRS)
        stem = rng.choice(STEMS) + rng.choice(["", "", "_v2", "s"])
        suffix = rng.choice([".py", ".py", ".ts", ".tsx", ".js", ".jsx", ".PY"])
        rel = f"{folder}/{stem}{suffix}"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if suffix.lower() == ".py":
            text = _python_source(rng, modules)
            modules.append(rel.rsplit(".", 1)[0].replace("/", "."))
        else:
            text = _js_source(rng, suffix.startswith(".ts"))
        data = text.encode()
        odd = rng.random()
        if odd < 0.05:
            data = data.replace(b"\n", b"\r\n")  # read with universal newlines
        elif odd < 0.08:
            data = data.replace(b"Limit", b"Lim\xe9t").replace(b"return", b'return "\xff"')  # not UTF-8
        path.write_bytes(data)
        files.append(rel)
    for hidden in ("node_modules/dep/index.js", ".venv/lib/x.py", "build/out.py"):
        if rng.random() < 0.3:
            (root / hidden).parent.mkdir(parents=True, exist_ok=True)
            (root / hidden).write_text("def hidden_thing():\n    pass\n")
    out: list[dict[str, Any]] = []
    for n in range(tasks):
        task: dict[str, Any] = {"id": f"T{seed}-{n:03d}", "title": _sentence(rng, rng.randint(2, 8))[:-1]}
        if rng.random() < 0.95:
            task["description"] = _sentence(rng, rng.randint(0, 30))
        chosen: dict[str, list[str]] = {}
        for key in ("create", "modify", "read"):
            if rng.random() < 0.6:
                picks = []
                for _ in range(rng.randint(0, 4)):
                    if files and rng.random() < 0.5:
                        picks.append(rng.choice(files))
                    else:
                        picks.append(f"{rng.choice(DIRS)}/{rng.choice(STEMS)}{rng.choice(SUFFIXES)}")
                if rng.random() < 0.1:
                    picks.append(rng.choice(["Dockerfile", "deploy/docker-compose.prod.yml", "api.Dockerfile"]))
                chosen[key] = picks
        if rng.random() < 0.03 and chosen.get("create"):
            chosen["create"].append(rng.choice([7, None]))  # not a path: some builders raise
        if rng.random() < 0.04:  # a real upstream shape: its spec keywords raise on it
            chosen["move"] = [{"from": "src/old.py", "to": "src/new.py"}]  # type: ignore[list-item]
        if chosen or rng.random() < 0.5:
            task["files"] = chosen
        if rng.random() < 0.02:
            task["files"] = ["src/app.py"]  # not a mapping: the whole context falls back to empty
        out.append(task)
    graph = {"feature": feature, "tasks": out}
    (spec / "task-graph.json").write_text(json.dumps(graph, indent=1))
    return feature, out


# -- sources only Python 3.12's grammar reads ---------------------------------------------------


def _newer_source(rng: random.Random) -> str:
    """A module using what Python 3.12 added (PEP 695 type parameters and aliases, PEP 701
    f-strings) among symbols the map lists; 3.11 cannot parse any of them."""
    word, other = rng.choice(WORDS), rng.choice(WORDS)
    newer = [
        f"type {word.title()}Map[K] = dict[K, int]",
        f"def {word}_{other}[T: (int, str), *Ts, **P](value: T, count: int = 0) -> list[T]:\n"
        f'    """Generic {word}."""\n    return [value]',
        f"class {other.title()}Box[T](Base):\n    def unwrap[U](self, value: U) -> U:\n        return value",
        f'LIMIT_{rng.randint(1, 99)} = f"{{"{word}"!r}}"',
        f'def {word}_label(d: dict[str, str]) -> str:\n    return f"{{d["{other}"]}}"',
        f"def {other}_lines(names: list[str]) -> str:\n    return f\"{{'\\n'.join(names)}}\"",
    ]
    plain = [
        f"import {rng.choice(DIRS).replace('/', '.')}.{rng.choice(STEMS).replace('-', '_')}",
        "from os import path",
    ]
    picked = rng.sample(newer, rng.randint(1, len(newer))) + rng.sample(plain, rng.randint(0, 2))
    rng.shuffle(picked)
    return "\n\n\n".join(picked) + "\n"


def add_newer_sources(root: Path, seed: int, count: int = 6) -> list[str]:
    """Write *count* modules of 3.12-only syntax into a generated project (at paths its tasks
    name at random, replacing a source already there); the files written."""
    rng = random.Random(f"newer-{seed}")
    written = []
    for _ in range(count):
        rel = f"{rng.choice(DIRS)}/{rng.choice(STEMS)}.py"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(_newer_source(rng))
        written.append(rel)
    return sorted(set(written))


# -- sources for the symbol extractors alone -----------------------------------------------------

_JS_TOKENS = (
    "export ", "default ", "async ", "function ", "class ", " extends ", " implements ", "interface ", "type ",
    "import ", " from ", "const ", "let ", "var ", " => ", "(", ")", "{", "}", "<", ">", " = ", ": ", "/** ", " */",
    "*/", " * ", "@param ", "\n", "\n", "\n", "  ", "foo", "Bar", "baz_1", "A, B", " as ", "'mod'", '"x"', ",",
    "abstract ", "{ type T }", "\t", "\u00e9",
)  # fmt: skip


_JS_STARTS = (
    "", "export ", "export default ", "export async function ", "function ", "async function ", "import ",
    "import type ", "class ", "export abstract class ", "interface ", "export interface ", "type ", "export type ",
    "const ", "export const ", "export let ", "var ", "/** ", " * ", " */", "*/",
)  # fmt: skip


def js_soup(seed: int) -> str:
    """Random JS/TS-ish text: lines starting like declarations, then every pattern's pieces in random order."""
    rng = random.Random(seed)
    lines = []
    for _ in range(rng.randint(1, 15)):
        start = rng.choice(_JS_STARTS)
        lines.append(start + "".join(rng.choice(_JS_TOKENS) for _ in range(rng.randint(0, 8))))
    return "\n".join(lines)


_ANNOTATIONS = (
    "int", "str | None", "dict[str, int]", "a.b.C", "'Fwd'", "b'x'", "None", "...", "list[int, str]", "f(x)",
    "lambda: 1", "[int]", "x[1:2]", "-1", "int + str", "tuple[()]", "Callable[[int], str]", "x if y else z",
)  # fmt: skip


def _function(rng: random.Random, indent: str = "") -> str:
    params: list[str] = []
    if rng.random() < 0.3:
        params += ["a", "/"]
    params += [
        f"p{i}" + (f": {rng.choice(_ANNOTATIONS)}" if rng.random() < 0.6 else "") for i in range(rng.randint(0, 3))
    ]
    if rng.random() < 0.3:
        params.append("*args: int")
    elif rng.random() < 0.3:
        params += ["*", "k: int = 1"]
    if rng.random() < 0.3:
        params.append("**kw")
    ret = f" -> {rng.choice(_ANNOTATIONS)}" if rng.random() < 0.5 else ""
    doc = rng.choice(
        ["pass", '"""Doc line.\n\n    more"""', '"""\n    Second line first.\n    """', "'''x'''", '""""""']
    )
    deco = rng.choice(["", f"{indent}@decorator\n", f"{indent}@a.b(1)\n"])
    head = rng.choice(["def", "async def"])
    return f"{deco}{indent}{head} f{rng.randint(0, 9)}({', '.join(params)}){ret}:\n{indent}    {doc}\n"


def python_module(seed: int) -> str:
    """A random Python 3.11 module: functions, classes, imports and assignments of every shape the map reads."""
    rng = random.Random(seed)
    out = []
    for _ in range(rng.randint(1, 10)):
        kind = rng.random()
        if kind < 0.35:
            out.append(_function(rng))
        elif kind < 0.55:
            picked = [
                rng.choice(["object", "ABC", "Base", "a.B", "Generic[T]", "*bs"]) for _ in range(rng.randint(0, 3))
            ]
            bases = ", ".join(picked + (["metaclass=M"] if rng.random() < 0.2 else []))
            body = "".join(_function(rng, "    ") for _ in range(rng.randint(0, 3))) or "    X = 1\n"
            doc = rng.choice(["", '    """Class doc."""\n'])
            out.append(f"class C{rng.randint(0, 9)}({bases}):\n{doc}{body}")
        elif kind < 0.65:
            out.append(
                rng.choice(["import os", "import a.b as c, d", "from . import x", "from ..p import (y as z, w)"])
            )
        elif kind < 0.85:
            out.append(
                rng.choice(["A = 1", "A = B = 2", "A, B = 1, 2", "a = 1", "A: int = 3", "A_B1 = 'x'", "X.Y = 1"])
            )
        else:
            out.append(rng.choice(["if x:\n    def hidden(): pass", "try:\n    import q\nexcept ImportError: pass"]))
    return "\n".join(out) + "\n"

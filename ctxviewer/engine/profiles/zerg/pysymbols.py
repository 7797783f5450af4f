"""The symbols and edges zerg-ai 0.3.2's repository map takes from one Python source.

Standard library only: besides serving :mod:`.repomap` in process, this file runs as a
script under a newer Python than ctxviewer's (:mod:`.newer_python`), reading sources as JSON
on stdin and writing what each yields as JSON on stdout.  It only parses; it never runs the
sources.  What is read and why: docs/profiles.md#python-sources-and-the-grammar.
"""

from __future__ import annotations

import ast
import json
import sys
import threading
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # kept out of the running code, which must start on any Python 3 it is given
    from typing import TypeAlias

    #: A symbol as the map needs it: (name, kind, signature, first docstring line or None, line).
    SymbolRow: TypeAlias = tuple[str, str, str, str | None, int]
    Edge: TypeAlias = tuple[str, str]
    Symbols: TypeAlias = tuple[list[SymbolRow], list[Edge]]

#: The warning filters are the process's: one parse at a time changes them.
_QUIET = threading.Lock()


def _expr(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _expr(node.value) + "." + node.attr
    if isinstance(node, ast.Constant):
        return repr(node.value)
    if isinstance(node, ast.Subscript):
        return _expr(node.value) + "[" + _expr(node.slice) + "]"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _expr(node.left) + " | " + _expr(node.right)
    if isinstance(node, ast.Tuple):
        return ", ".join(_expr(e) for e in node.elts)
    return "..."


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    params = [a.arg + (": " + _expr(a.annotation) if a.annotation else "") for a in node.args.args]
    head = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    tail = " -> " + _expr(node.returns) if node.returns else ""
    return f"{head} {node.name}({', '.join(params)}){tail}"


def _first_line(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str | None:
    doc = ast.get_docstring(node)
    return doc.split("\n")[0] if doc else None


def parse_strict(source: str, filename: str) -> ast.Module:
    """The syntax tree of *source*, warnings silenced; raises what :func:`ast.parse` raises."""
    with _QUIET, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes warn (and fail where warnings are errors)
        return ast.parse(source, filename)


def parse(source: str, filename: str) -> ast.Module | None:
    """The syntax tree of *source*; None when it does not parse on this Python."""
    try:
        return parse_strict(source, filename)
    except (SyntaxError, ValueError):  # 3.12 reports NUL bytes as SyntaxError, 3.11 as ValueError
        return None


def symbols(source: str, filename: str, module: str) -> Symbols | None:
    """Symbols and edges of one Python file; None when it does not parse on this Python."""
    tree = parse(source, filename)
    if tree is None:
        return None
    syms: list[SymbolRow] = []
    edges: list[Edge] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            syms.append((node.name, "function", _signature(node), _first_line(node), node.lineno))
        elif isinstance(node, ast.ClassDef):
            bases = [_expr(b) for b in node.bases]
            signature = f"class {node.name}" + (f"({', '.join(bases)})" if bases else "")
            syms.append((node.name, "class", signature, _first_line(node), node.lineno))
            edges.extend((f"{module}.{node.name}", b) for b in bases if b and b not in ("object", "ABC"))
            for member in node.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    name = f"{node.name}.{member.name}"
                    syms.append((name, "method", _signature(member), _first_line(member), member.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                syms.append((alias.asname or alias.name, "import", f"import {alias.name}", None, node.lineno))
                edges.append((module, alias.name))
        elif isinstance(node, ast.ImportFrom):
            origin = node.module or ""
            for alias in node.names:
                signature = f"from {origin} import {alias.name}"
                syms.append((alias.asname or alias.name, "import", signature, None, node.lineno))
            if origin:
                edges.append((module, origin))
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id.isupper():
                    syms.append((target.id, "variable", f"{target.id} = ...", None, node.lineno))
    return syms, edges


def main() -> None:
    """As a script: ``{"files": [[source, filename, module], ...]}`` in, one answer per file out.

    The answer is ``{"python": [major, minor], "results": [...]}``, each result ``[symbols,
    edges]``, null (does not parse) or ``{"raised": [type, message]}``; an interpreter older
    than 3.12 answers with its version alone.
    """
    version = list(sys.version_info[:2])
    request = json.load(sys.stdin)
    if sys.version_info < (3, 12):
        json.dump({"python": version}, sys.stdout)
        return
    results: list[object] = []
    for source, filename, module in request["files"]:
        try:
            results.append(symbols(source, filename, module))
        except Exception as exc:  # a source too deep for the parser: upstream's builder raises too
            results.append({"raised": [type(exc).__name__, str(exc)]})
    json.dump({"python": version, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()

"""Path globs as Claude Code's ``paths:`` front matter writes them (``src/**/*.{ts,tsx}``).

``**`` matches any number of folders (none included), ``*`` and ``?`` stay within one
path segment, ``[...]`` is a character class and ``{a,b}`` an alternation.  A pattern is
matched against the whole relative path; a leading ``./`` or ``/`` is ignored.
See docs/worker-window.md.
"""

from __future__ import annotations

import re
from functools import lru_cache


def _alternatives(pattern: str, start_at: int = 0) -> list[str]:
    """*pattern* with its ``{a,b}`` groups expanded (nested groups included); a group of one
    option (``{a}``) is literal text, as in a shell."""
    depth = 0
    start = -1
    for i in range(start_at, len(pattern)):
        ch = pattern[i]
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth:
                continue
            options: list[str] = []
            level = 0
            piece = ""
            for c in pattern[start + 1 : i]:
                if c == "," and level == 0:
                    options.append(piece)
                    piece = ""
                    continue
                level += c == "{"
                level -= c == "}"
                piece += c
            options.append(piece)
            if len(options) == 1:
                return _alternatives(pattern, i + 1)
            head, tail = pattern[:start], pattern[i + 1 :]
            return [out for option in options for out in _alternatives(head + option + tail, start)]
    return [pattern]


def _segment(part: str) -> str:
    out = ""
    i = 0
    while i < len(part):
        ch = part[i]
        if ch == "*":
            out += "[^/]*"
        elif ch == "?":
            out += "[^/]"
        elif ch == "[":
            end = part.find("]", i + 2 if part[i + 1 : i + 2] in ("!", "]") else i + 1)
            if end == -1:
                out += re.escape(ch)
            else:
                body = part[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out += "[" + body.replace("\\", "\\\\") + "]"
                i = end
        else:
            out += re.escape(ch)
        i += 1
    return out


def _regex(pattern: str) -> str:
    parts = pattern.split("/")
    out = ""
    for n, part in enumerate(parts):
        last = n == len(parts) - 1
        if part == "**":
            out += ".*" if last else "(?:[^/]+/)*"
        else:
            out += _segment(part) + ("" if last else "/")
    return out


@lru_cache(maxsize=1024)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """One regular expression for *pattern* and all its ``{a,b}`` alternatives."""
    pattern = pattern.strip()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = pattern.lstrip("/")
    return re.compile("(?:" + "|".join(_regex(p) for p in _alternatives(pattern)) + r")\Z")


def glob_match(pattern: str, path: str) -> bool:
    """Whether the relative POSIX *path* matches *pattern*."""
    return compile_glob(pattern).match(path) is not None

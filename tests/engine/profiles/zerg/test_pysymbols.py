"""What the repository map takes from one Python source, in process and as a script."""

from __future__ import annotations

import json
import subprocess
import sys

from ctxviewer.engine.profiles.zerg import pysymbols

SOURCE = '''import os.path as p
from . import sibling
from pkg.mod import (a, b as c)
LIMIT = 3
lower = 4
A, B = 1, 2


def load(path: str, *rest, key=None) -> dict[str, int] | None:
    """Load it.

    More."""


class Store(Base, object, metaclass=Meta):
    def get(self, n: int = 0) -> 'Fwd':
        pass
'''


def test_symbols_are_the_top_level_names_with_signatures_and_first_doc_lines() -> None:
    rows, edges = pysymbols.symbols(SOURCE, "m.py", "pkg.m") or ([], [])
    # Line by line: 1 import (its name is the alias), 2 a relative import (no edge: no module),
    # 3 two names, 4 an UPPERCASE assignment (lower and tuple targets are not symbols),
    # 9 a function with positional parameters only, 15 a class (bases as written) and its method.
    assert rows == [
        ("p", "import", "import os.path", None, 1),
        ("sibling", "import", "from  import sibling", None, 2),
        ("a", "import", "from pkg.mod import a", None, 3),
        ("c", "import", "from pkg.mod import b", None, 3),
        ("LIMIT", "variable", "LIMIT = ...", None, 4),
        ("load", "function", "def load(path: str) -> dict[str, int] | None", "Load it.", 9),
        ("Store", "class", "class Store(Base, object)", None, 15),
        ("Store.get", "method", "def get(self, n: int) -> 'Fwd'", None, 16),
    ]
    # A module to what it imports, a class to its bases but object (and ABC).
    assert edges == [("pkg.m", "os.path"), ("pkg.m", "pkg.mod"), ("pkg.m.Store", "Base")]


def test_a_source_that_does_not_parse_gives_none() -> None:
    assert pysymbols.symbols("def broken(:\n    pass\n", "m.py", "m") is None
    assert pysymbols.symbols("X = 1\x00\n", "m.py", "m") is None  # 3.11: ValueError, 3.12: SyntaxError


def test_an_invalid_escape_parses_even_where_warnings_are_errors() -> None:
    # pytest turns warnings into errors here; an invalid escape only warns, so upstream reads the file.
    rows, _ = pysymbols.symbols('PATTERN = "\\d+"\n', "m.py", "m") or ([], [])
    assert rows == [("PATTERN", "variable", "PATTERN = ...", None, 1)]


def test_as_a_script_it_answers_per_file_on_3_12_and_only_its_version_before() -> None:
    request = {"files": [[SOURCE, "a.py", "pkg.m"], ["def broken(:\n", "b.py", "b"]]}
    done = subprocess.run(
        [sys.executable, "-I", "-S", pysymbols.__file__],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answer = json.loads(done.stdout)
    assert answer["python"] == list(sys.version_info[:2])
    if sys.version_info < (3, 12):
        assert "results" not in answer
        return
    rows, edges = pysymbols.symbols(SOURCE, "a.py", "pkg.m") or ([], [])
    assert answer["results"] == [[[list(r) for r in rows], [list(e) for e in edges]], None]

"""Finding a Python >= 3.12 and parsing in it what this Python cannot."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ctxviewer.engine.profiles.zerg import newer_python

#: 3.12-only syntax: a generic function (PEP 695) and an f-string reusing its quotes (PEP 701).
NEWER = 'def first[T](items: list[T]) -> T:\n    """The first."""\n    return items[0]\n\nX = f"{"a"}"\n'
OLDER_311 = sys.version_info < (3, 12)


def _program(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


def _newer_python() -> str:
    if not OLDER_311:
        return sys.executable
    found = newer_python.candidates()
    if not found:
        pytest.skip("no Python >= 3.12 on this machine (PATH, ~/.pyenv/versions)")
    return found[0]


@pytest.fixture(autouse=True)
def _fresh_detection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(newer_python, "_auto", [])


def test_candidates_are_newest_first_path_before_pyenv_and_never_a_shim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_ = tmp_path / "bin"
    shims = tmp_path / "shims"
    on_path = [_program(bin_ / "python3.12", "true"), _program(bin_ / "python3.13", "true")]
    _program(shims / "python3.14", "true")
    versions = tmp_path / "pyenv" / "versions"
    pyenv = [
        _program(versions / "3.12.1" / "bin" / "python3.12", "true"),
        _program(versions / "3.12.10" / "bin" / "python3.12", "true"),
        _program(versions / "3.13.0" / "bin" / "python3.13", "true"),
        _program(versions / "3.11.7" / "bin" / "python3.11", "true"),  # too old by its name
    ]
    (versions / "dup" / "bin").mkdir(parents=True)
    (versions / "dup" / "bin" / "python3.13").symlink_to(on_path[1])  # the same program twice
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}{bin_}")
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "pyenv"))
    # PATH's 3.13 then 3.12 (the shim skipped), then pyenv's by minor and version, 3.12.10 over 3.12.1.
    assert newer_python.candidates() == [str(p) for p in (on_path[1], on_path[0], pyenv[2], pyenv[1], pyenv[0])]


def test_a_newer_python_parses_in_one_answer_what_3_11_cannot() -> None:
    python = _newer_python()
    found = newer_python.parse_elsewhere([(NEWER, "n.py", "n"), ("def broken(:\n", "b.py", "b")], python)
    assert (found.problem, found.python) == ("", python)
    assert found.version >= "3.12"
    # Type parameters are not printed (upstream prints the parameters alone); X holds an f-string.
    assert found.results == [
        (
            [
                ("first", "function", "def first(items: list[T]) -> T", "The first.", 1),
                ("X", "variable", "X = ...", None, 5),
            ],
            [],
        ),
        None,
    ]


def test_the_newer_python_only_parses(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    source = f"open({str(marker)!r}, 'w').close()\nimport os\nos.system('touch {marker}')\n"
    found = newer_python.parse_elsewhere([(source, "x.py", "x")], _newer_python())
    assert found.results == [([("os", "import", "import os", None, 2)], [("x", "os")])]
    assert not marker.exists()


def test_a_python_named_by_the_setting_that_cannot_serve_is_the_settings_fault(tmp_path: Path) -> None:
    files = [(NEWER, "n.py", "n")]
    missing = newer_python.parse_elsewhere(files, "no-such-python3.12")
    assert missing.problem == "python_for_sources: 'no-such-python3.12' is not a program on PATH"
    assert missing.setting_at_fault and not missing.results
    old = _program(tmp_path / "python3.12", "echo '{\"python\": [3, 11]}'")
    too_old = newer_python.parse_elsewhere(files, str(old))
    assert too_old.problem == f"python_for_sources: {old} is Python 3.11, older than 3.12"
    garbled = _program(tmp_path / "garbled", "echo not json")
    assert newer_python.parse_elsewhere(files, str(garbled)).problem.endswith("gave no answer ctxviewer can read")
    failing = _program(tmp_path / "failing", "echo 'Fatal: no encodings' >&2; exit 1")
    assert newer_python.parse_elsewhere(files, str(failing)).problem.endswith("failed (Fatal: no encodings)")


def test_a_python_that_does_not_answer_in_time_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(newer_python, "TIMEOUT", 0.5)
    slow = _program(tmp_path / "slow", "exec sleep 30")
    found = newer_python.parse_elsewhere([(NEWER, "n.py", "n")], str(slow))
    assert found.problem == f"python_for_sources: {slow} did not parse 1 source file(s) within 0.5 s"


def test_auto_without_any_python_3_12_says_so_and_remembers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = _program(tmp_path / "python3.12", "echo '{\"python\": [3, 11]}'")  # named 3.12, is 3.11
    monkeypatch.setattr(newer_python, "candidates", lambda: [str(old)])
    found = newer_python.parse_elsewhere([(NEWER, "n.py", "n")])
    assert found.problem.startswith("no Python 3.12 or newer found") and not found.setting_at_fault
    old.unlink()  # not asked again in this process
    assert newer_python.parse_elsewhere([(NEWER, "n.py", "n")]).problem == found.problem


def test_a_source_too_deep_for_the_parser_raises_as_upstream_s_builder_does() -> None:
    # Upstream catches only SyntaxError (and OSError) around ast.parse: this escapes its builder.
    deep = NEWER + "y = a" + ".b" * 200_000 + "\n"
    with pytest.raises(RecursionError, match="maximum recursion depth"):
        newer_python.parse_elsewhere([(deep, "d.py", "d")], _newer_python())


@pytest.mark.skipif(not OLDER_311, reason="3.12 parses what 3.11 stops on")
@pytest.mark.parametrize(
    ("source", "newer"),
    [
        ("def f[T](x: T) -> T:\n    return x\n", True),
        ("import os\n\nasync def g[T: int, *Ts](\n    x: T,\n) -> T:\n    pass\n", True),
        ("class C[T](Base):\n    pass\n", True),
        ("class C:\n    def m[T](self) -> T:\n        pass\n", True),
        ("type Alias = int\n", True),
        ("type Pairs[T] = list[tuple[T, T]]\n", True),
        ('x = f"{d["k"]}"\n', True),
        ("x = f\"{'\\n'.join(a)}\"\n", True),
        ("def broken(:\n    pass\n", False),
        ("this is not Python\n", False),
        ("X = 1\x00\n", False),
    ],
)
def test_a_3_11_error_on_3_12_syntax_is_told_from_a_broken_file(source: str, newer: bool) -> None:
    assert newer_python.uses_newer_syntax(source, "m.py") is newer

"""The package list in pyproject.toml names every package folder, so an install ships them all.

setuptools is told the packages by name (the data folders under ``resources/`` are mapped
into ``ctxviewer.resources``); a new sub-package left out of the list would be missing from
a non-editable install -- the one CI and users get -- while every test here still passed.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    code = {
        ".".join(p.parent.relative_to(REPO).parts)
        for p in (REPO / "ctxviewer").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    folders = [p for p in (REPO / "resources").iterdir() if p.is_dir() and p.name != "__pycache__"]
    data = {"ctxviewer.resources"} | {"ctxviewer.resources." + p.name for p in folders}
    assert listed == code | data

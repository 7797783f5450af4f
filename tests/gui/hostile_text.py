"""A project whose every name and text is markup, and the tools to see how the window shows it.

Used by the window cases of the bad-input corpus (tests/gui/window/test_hostile_window.py).  Each
hostile string holds a marker (``Q1Z``...) that nothing else in the window says, so a test
can tell "shown literally" (the whole string is there each time its marker is) from
"interpreted" (the tags are gone, the marker is left; or an image swallowed the marker).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import html
import json
import os
import struct
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from PySide6 import QtGui
from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt
from PySide6.QtGui import QTextDocument

from tests.factories import RULES, write

#: The image every hostile ``<img>`` names, outside the project (absolute and relative forms).
CANARY = "canary.png"


def _png_1x1() -> bytes:
    """A valid 1x1 PNG, so a Qt that loads the canary really decodes an image."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0\0\0\0\0"))
        + chunk(b"IEND", b"")
    )


@dataclass(frozen=True)
class Hostile:
    """The hostile strings of one project, each with the marker that identifies it."""

    root_name: str
    feature: str
    task_id: str
    title: str
    file_name: str
    paragraph: str
    rule_name: str
    rule_text: str
    zone: str
    event: str

    def pairs(self) -> list[tuple[str, str]]:
        """(marker, hostile string) for every string."""
        return [(_marker(value), value) for value in vars(self).values()]


def _marker(value: str) -> str:
    return next(word for word in _words(value) if len(word) == 3 and word[0] == "Q" and word[2] == "Z")


def _words(text: str) -> Iterator[str]:
    word = ""
    for ch in text + " ":
        if ch.isalnum():
            word += ch
        else:
            if word:
                yield word
            word = ""


def hostile_strings(canary_dir: Path) -> Hostile:
    url = (canary_dir / CANARY).as_uri()
    return Hostile(
        # folder names hold no '/': relative image names, resolved against the working folder
        root_name=f"<u>Q0Z<u>&amp;<img src={CANARY}>",
        feature=f"<img src={CANARY}>Q1Z",
        task_id=f'<img src="{url}">Q2Z<b>1</b>',
        title=f'<b>Login</b> session Q3Z &amp; <a href="https://example.com/">link</a><img src="{url}">',
        file_name=f"<i>Q4Z<img src={CANARY}>.py",
        paragraph=f'Login session store <img src="{url}"> Q5Z &amp; <b>bold</b> &lt;x&gt;',
        rule_name=f"<s>Q6Z<img src={CANARY}>.md",
        rule_text=f'## Rule: <b>Q7Z</b> <img src="{url}">',
        zone="<b>Q8Z",
        event="<b>Q9Z</b>",
    )


def hostile_project(base: Path) -> tuple[Path, Path, Hostile]:
    """(project root, canary folder, strings): a project outside the canary's folder."""
    canary_dir = base / "outside"
    canary_dir.mkdir(parents=True)
    (canary_dir / CANARY).write_bytes(_png_1x1())
    h = hostile_strings(canary_dir)
    root = base / h.root_name
    spec = f".gsd/specs/{h.feature}"
    task = {"id": h.task_id, "title": h.title, "files": {"create": [f"src/{h.file_name}"], "read": ["src/app.py"]}}
    second = {"id": "T2", "title": "Login session again", "files": {}, "dependencies": [h.task_id]}
    write(root, f"{spec}/task-graph.json", json.dumps({"feature": h.feature, "tasks": [task, second]}))
    write(root, f"{spec}/requirements.md", f"{h.paragraph}\n\nUnrelated text.\n")
    write(root, f"{spec}/design.md", f"# Design\n\nLogin session design {h.paragraph}\n")
    write(root, f"{RULES}/_core/owasp-2025.md", f"{h.rule_text}\n")  # the name the pipeline reads
    write(root, f"{RULES}/_core/{h.rule_name}", "## Rule: listed, never read\n")
    write(root, "src/app.py", "print('login session')\n")
    write(root, f"src/{h.file_name}", "x = 1\n")
    write(root, "ctxviewer.yaml", f"zones:\n  {json.dumps(h.zone)}: 60\n")
    log = root / ".mahabharatha" / "logs" / "worker.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text(
        json.dumps({"ts": 0, "event": "task_executed", "id": h.task_id})
        + "\n"
        + json.dumps({"ts": 1, "event": h.event})
        + "\n",
        encoding="utf-8",
    )
    return root, canary_dir, h


# -- how Qt shows a string ----------------------------------------------------------------------


def shown(text: str, fmt: Qt.TextFormat = Qt.TextFormat.AutoText) -> str:
    """The characters Qt shows for *text* in a label of format *fmt* (tooltips are AutoText)."""
    rich = fmt == Qt.TextFormat.RichText or (fmt == Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(text))
    if not rich:
        return text
    doc = _NoLoad()
    doc.setHtml(text)
    return doc.toPlainText()


class _NoLoad(QTextDocument):
    """Renders markup without loading what it names (the test must not open the canary itself)."""

    def loadResource(self, type: int, name: object) -> object:
        return None


def interpreted(text: str, fmt: Qt.TextFormat, pairs: list[tuple[str, str]]) -> list[str]:
    """What Qt would do wrong showing *text*: each hostile string not shown literally.

    A marker in *text* must be shown, and each time it is shown the whole hostile string
    must be there around it; an image placeholder (U+FFFC) must never be.
    """
    seen = shown(text, fmt)
    wrong = []
    if "\ufffc" in seen:
        wrong.append(f"an image is shown in {seen!r}")
    for marker, value in pairs:
        if marker not in text and marker not in html.unescape(text):
            continue
        if seen.count(marker) == 0 or seen.count(marker) != seen.count(value):
            wrong.append(f"{value!r} is not shown literally in {seen!r} (from {text!r}, format {fmt.name})")
    return wrong


def model_texts(model: QAbstractItemModel) -> Iterator[tuple[str, int, str]]:
    """(where, role, text) of every cell's DisplayRole and ToolTipRole, headers included."""
    roles = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole)
    for section in range(model.columnCount()):
        for role in roles:
            value = model.headerData(section, Qt.Orientation.Horizontal, role)
            if isinstance(value, str):
                yield f"header {section}", int(role), value
    stack = [QModelIndex()]
    while stack:
        parent = stack.pop()
        for row in range(model.rowCount(parent)):
            for column in range(model.columnCount(parent)):
                index = model.index(row, column, parent)
                for role in roles:
                    value = model.data(index, role)
                    if isinstance(value, str):
                        yield f"row {row} column {column}", int(role), value
                if column == 0 and model.rowCount(index) > 0:
                    stack.append(index)


# -- who opened the canary (Linux inotify) -------------------------------------------------------

_IN_OPEN = 0x00000020
_IN_ACCESS = 0x00000001
_IN_NONBLOCK = 0o4000


class OpenWatch:
    """Every open of a file in a folder, by any code of this process (Qt's C++ too), via inotify."""

    def __init__(self, folder: Path) -> None:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self.fd = libc.inotify_init1(_IN_NONBLOCK)
        if self.fd < 0 or libc.inotify_add_watch(self.fd, os.fsencode(folder), _IN_OPEN | _IN_ACCESS) < 0:
            raise OSError(ctypes.get_errno(), "inotify unavailable")

    def opened(self) -> list[str]:
        """Names of the files in the folder opened or read since the last call.

        Opening the folder itself (a listing: Python's imports scan the working folder when
        ``''`` is on ``sys.path``) reads no file in it and is left out.
        """
        names: list[str] = []
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return names
            pos = 0
            while pos < len(data):
                _wd, _mask, _cookie, length = struct.unpack_from("iIII", data, pos)
                name = data[pos + 16 : pos + 16 + length].rstrip(b"\0").decode()
                if name:
                    names.append(name)
                pos += 16 + length

    def close(self) -> None:
        os.close(self.fd)


inotify_available = sys.platform.startswith("linux")

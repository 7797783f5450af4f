"""Project text in the window: always shown as text, never as Qt rich text or a resource to load.

Shown as rich text, ``<img src="/etc/passwd">`` in a task id makes Qt read a local file.  So
tooltips with project text go through :func:`plain_tip` (Qt guesses whether a tooltip is rich
text), rich-text panes are :class:`NoResourceBrowser`, and file names suggested from project
text go through :func:`safe_file_name`.  The rules for every widget:
docs/security.md#the-window.
"""

from __future__ import annotations

import html
import re
import unicodedata
from typing import Any

from PySide6.QtCore import QByteArray, QUrl
from PySide6.QtGui import QImage, Qt, QTextDocument
from PySide6.QtWidgets import QTextBrowser

_BAR = Qt.ScrollBarPolicy

#: The markup a tooltip that Qt would read as rich text is wrapped in: a paragraph that keeps
#: spaces and line breaks, as the plain tooltip would have shown them.
_TIP = '<p style="white-space:pre-wrap">{}</p>'


def plain_tip(text: str) -> str:
    """*text* as a tooltip that Qt shows literally.

    Text that Qt would show as plain text anyway is returned as it is.  Text that Qt
    would take for rich text (it starts like a tag, or holds ``&lt;`` before one) is
    escaped inside a paragraph of ours, so Qt shows exactly the characters of *text*
    and interprets none of them: no bold, no link, no image loaded.
    """
    if not text or not Qt.mightBeRichText(text):
        return text
    return _TIP.format(html.escape(text, quote=False))


class NoResourceBrowser(QTextBrowser):
    """A read-only rich-text pane that never loads a resource (image, style sheet, page).

    Its HTML is built by ctxviewer with project text escaped, so it names no resource;
    should one ever slip through, nothing is read: not a local file, not ``/proc``.
    Links are not followed either.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)

    def loadResource(self, type: int, name: QUrl | str) -> Any:
        # Something, not None: on a null answer the document reads a local file itself, and
        # on an image it cannot decode the image handler loads the file by name.  So an image
        # is a blank pixel, anything else empty data.
        if type == QTextDocument.ResourceType.ImageResource.value:
            blank = QImage(1, 1, QImage.Format.Format_ARGB32)
            blank.fill(0)
            return blank
        return QByteArray()

    def replace_html(self, text: str) -> None:
        """``setHtml(text)``, laid out once where the vertical bar stays.

        ``setHtml`` empties the document first: an as-needed bar shown for the old text goes,
        the new text is laid out at the wider width, no longer fits and is laid out again
        with the bar back (about twice the time, on every new text of a short pane).  Here
        a bar shown stays while the new text goes in; if the new text fits without it, it
        goes after, as ``setHtml`` would have left it.
        """
        policy = self.verticalScrollBarPolicy()
        keep = policy == _BAR.ScrollBarAsNeeded and self.verticalScrollBar().isVisible()
        if keep:
            self.setVerticalScrollBarPolicy(_BAR.ScrollBarAlwaysOn)
        self.setHtml(text)
        if keep:
            self.setVerticalScrollBarPolicy(policy)


#: Characters Windows refuses in a file name (besides separators and control characters).
_RESERVED_CHARS = re.compile(r'[<>:"/\\|?*]')
#: Device names Windows reserves, whatever the extension.
_DEVICES = frozenset(
    ["CON", "PRN", "AUX", "NUL", *(f"COM{n}" for n in range(1, 10)), *(f"LPT{n}" for n in range(1, 10))]
)
#: At most this many characters of project text in a suggested file name.
MAX_NAME_CHARS = 80


def safe_file_name(text: str, fallback: str = "context") -> str:
    """*text* (e.g. a task id) made into one harmless file-name component.

    No path separator, no ``..``, no control or format character (a right-to-left
    override could disguise the extension), no character Windows refuses, no leading
    dot or space (no hidden file, no ``..``), no Windows device name, at most
    :data:`MAX_NAME_CHARS` characters; *fallback* when nothing is left.
    """
    out = []
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") or _RESERVED_CHARS.match(ch):
            out.append("_")
        else:
            out.append(ch)
    name = "".join(out)
    while ".." in name:
        name = name.replace("..", "_")
    name = name.strip(" .")[:MAX_NAME_CHARS].rstrip(" .")
    if not name:
        return fallback
    if name.split(".", 1)[0].upper() in _DEVICES:
        name = "_" + name
    return name

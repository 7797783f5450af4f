"""Words of task text as the ctxviewer and computed profiles read them: splitting, plurals, stopwords.

Shared by the task signals (:mod:`.task`) and the profiles that match keywords on word
boundaries (:mod:`ctxviewer.engine.profiles.ctxviewer.run`, :mod:`ctxviewer.engine.profiles.computed`).
"""

from __future__ import annotations

import re

#: Words that say nothing about what a task is about.
STOPWORDS = frozenset(
    """
    a about above after again against all also an and any are as at be because been before being below
    between both but by can could did do does doing down during each either else etc every few for from
    further had has have having he her here hers how however if in into is it its itself just like may
    might more most must my no nor not now of off on once only or other our out over own per same she
    should so some such than that the their them then there these they this those through to too under
    until up upon very via was we were what when where which while who whom why will with within without
    would yet you your add adds added adding allow allows create creates created creating ensure ensures
    handle handles implement implements implemented implementing implementation make makes need needs
    new provide provides support supports update updates use uses used using work works task tasks file
    files test tests spec specs init index main
    """.split()  # noqa: SIM905 - a word list reads best as text
)
_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script
_HUMP = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def words_of(text: str) -> list[str]:
    """Lowercased words of *text*: split on anything not a letter or digit (any script),
    and ASCII words also at camelCase humps (``sessionStore`` -> session, store)."""
    out: list[str] = []
    for token in _WORD.findall(text):
        parts = _HUMP.findall(token) if token.isascii() else [token]
        out.extend(part.lower() for part in parts)
    return out


def normalise(word: str) -> str:
    """A keyword's matching form: an English plural folded on words over 4 characters.

    ``policies`` -> policy, ``classes``/``dispatches``/``boxes`` -> class/dispatch/box,
    ``sessions`` -> session; ``status``, ``analysis`` and ``access`` stay as they are.
    """
    if len(word) <= 4 or not word.endswith("s"):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes", "zes")):
        return word[:-2]
    if word.endswith(("ss", "us", "is")):
        return word
    return word[:-1]


def forms(keyword: str) -> list[str]:
    """The words a keyword matches: itself and its plurals (``policy``: policies)."""
    out = [keyword, keyword + "s", keyword + "es"]
    if keyword.endswith("y") and len(keyword) > 2:
        out.append(keyword[:-1] + "ies")
    return out

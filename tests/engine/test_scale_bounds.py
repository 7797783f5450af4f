"""Scale bounds: the paragraph limit, keyword scoring that does not grow with keywords x size,
and cancellation from inside the scoring loops.

* A spec file that splits into more than ``spec.MAX_PARAGRAPHS`` paragraphs is not used:
  an ``input`` error in the trace names the count and the limit; ``mahabharatha`` treats
  the file as empty (as it does a file over the size limit), the peer profiles leave it out.
* ``spec.paragraph_hits`` (the reference's substring score) and the ctxviewer profile's ``match_counts``
  (whole-word counts) go through each paragraph's words once for all keywords; both are
  checked here against the plain definitions they replace, on generated text, with every
  strategy forced in turn.
* A run is cancelled from inside scoring: the cancel token is looked at every few thousand
  paragraphs, and the run stops at the first look after it is set.
"""

from __future__ import annotations

import re
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxviewer.engine.profiles import mahabharatha
from ctxviewer.engine.profiles.base import Cancelled
from ctxviewer.engine.profiles.ctxviewer import run as ctxviewer_run
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.signals import spec as spec_mod
from ctxviewer.engine.signals.spec import build_index, paragraph_count, paragraph_hits, paragraph_limit_problem, ranking
from ctxviewer.engine.trace.model import SPEC_PARAGRAPH
from tests.factories import make_project

REQ = ".gsd/specs/feat/requirements.md"
TASK: dict[str, Any] = {"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"]}}
CORE = "## Rule: A\n"
SEC = "## Security Rules (task-scoped)\n\n### _core/owasp-2025.md\n## Rule: A"
PEERS = ("drift", "shaktiman", "ctxviewer")


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    yield
    _clear_caches()


def _clear_caches() -> None:
    spec_mod.clear_caches()
    ctxviewer_run._matches.clear()
    mahabharatha.clear_caches()


# -- the paragraph limit ---------------------------------------------------------------------------


@given(st.lists(st.sampled_from(["a", "\n", "\n\n", " ", "\r"]), max_size=30).map("".join))
def test_paragraph_count_is_the_number_of_paragraphs_split(text: str) -> None:
    assert paragraph_count(text) == len(text.split("\n\n")) == len(build_index(text, 1).paragraphs)


def test_the_limit_message_names_the_count_and_the_limit() -> None:
    assert paragraph_limit_problem("x\n\n" * 4 + "x", limit=5) is None
    assert paragraph_limit_problem("x\n\n" * 5 + "x", limit=5) == "not used: 6 paragraphs is over the 5-paragraph limit"
    assert spec_mod.MAX_PARAGRAPHS == 250_000
    over = "x\n\n" * 250_000 + "x"
    assert paragraph_limit_problem(over) == "not used: 250,001 paragraphs is over the 250,000-paragraph limit"
    assert paragraph_limit_problem(over[3:]) is None  # exactly at the limit


def limited_project(root: Path, paragraphs: int) -> Path:
    """T1's requirements: 'Login session store.' and then 'x' paragraphs, *paragraphs* in all."""
    text = "Login session store.\n\n" + "x\n\n" * (paragraphs - 1)
    return make_project(root, [TASK], requirements=text, rules={"_core/owasp-2025.md": CORE})


@pytest.fixture
def limit_of_six(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spec_mod, "MAX_PARAGRAPHS", 6)


@pytest.mark.usefixtures("limit_of_six")
@pytest.mark.parametrize("profile", ["mahabharatha", *PEERS])
def test_a_spec_at_the_paragraph_limit_is_used(tmp_path: Path, profile: str) -> None:
    root = limited_project(tmp_path / "p", 6)
    trace = assemble(load_project(root, {"profile": profile}), "feat", "T1", exact=False)
    assert trace.errors == ()
    assert len(trace.items_of(SPEC_PARAGRAPH)) == 6
    assert "Login session store." in trace.context


@pytest.mark.usefixtures("limit_of_six")
def test_mahabharatha_treats_a_spec_over_the_paragraph_limit_as_empty(tmp_path: Path) -> None:
    root = limited_project(tmp_path / "p", 7)
    trace = assemble(load_project(root), "feat", "T1", exact=False)
    assert trace.context == SEC
    assert [(e.kind, e.one_line()) for e in trace.errors] == [
        ("input", f"{REQ}: not used: 7 paragraphs is over the 6-paragraph limit (treated as an empty spec file)")
    ]
    assert trace.items_of(SPEC_PARAGRAPH) == ()


@pytest.mark.usefixtures("limit_of_six")
@pytest.mark.parametrize("profile", PEERS)
def test_the_peer_profiles_leave_out_a_spec_over_the_paragraph_limit(tmp_path: Path, profile: str) -> None:
    root = limited_project(tmp_path / "p", 7)
    trace = assemble(load_project(root, {"profile": profile}), "feat", "T1", exact=False)
    assert [(e.kind, e.one_line()) for e in trace.errors] == [
        ("input", f"{REQ}: not used: 7 paragraphs is over the 6-paragraph limit (the requirements file is left out)")
    ]
    assert trace.items_of(SPEC_PARAGRAPH) == ()
    assert "Login" not in trace.context


# -- scoring: the fast ways against the plain definitions ------------------------------------------

#: Pieces of generated spec text: cased and uncased letters, letters whose lowercase is longer
#: (I with a dot) or depends on context (capital sigma), whitespace that str.split() splits on
#: (no-break space, tab) and punctuation.
PIECES = [
    "a",
    "b",
    "ab",
    "ba",
    "A",
    "B",
    "x",
    " ",
    "\t",
    "\u00a0",
    "\n",
    "\n\n",
    ".",
    "\u0130",
    "\u03a3",
    "\u03c3",
    "-",
]
spec_texts = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)
KEY_PIECES = ["a", "b", "ab", "x", "A", ".", " ", "\n", "\u00a0", "i\u0307", "\u03c3", "\u03c2", "-"]
keyword_lists = st.lists(st.lists(st.sampled_from(KEY_PIECES), max_size=4).map("".join), max_size=12)

#: Cost constants of spec.py that force each way of scoring in turn.
STRATEGIES = {
    "scan each keyword": {"_SCAN_NS": 0.0, "_TEST_NS": 0.0},
    "words, substrings": {"_SPLIT_NS": 0.0, "_PARAGRAPH_NS": 0.0, "_SCAN_NS": 1e6},
    "words, scan of the words": {"_SPLIT_NS": 0.0, "_PARAGRAPH_NS": 0.0, "_SUBSTRING_NS": 1e9, "_RUN_NS": 1e9},
}


def plain_hits(text: str, keywords: list[str]) -> dict[int, tuple[str, ...]]:
    """The reference: a keyword counts when it is a substring of the lowercased paragraph."""
    out = {}
    for n, para in enumerate(text.split("\n\n")):
        found = tuple(sorted(k for k in set(keywords) if k in para.lower()))
        if para.strip() and found:
            out[n] = found
    return out


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("batch", [3, 1 << 20])
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=spec_texts, keywords=keyword_lists)
def test_paragraph_hits_are_the_substring_matches(
    monkeypatch: pytest.MonkeyPatch, strategy: str, batch: int, text: str, keywords: list[str]
) -> None:
    with monkeypatch.context() as m:
        for name, value in STRATEGIES[strategy].items():
            m.setattr(spec_mod, name, value)
        m.setattr(spec_mod, "_BATCH_CHARS", batch)
        assert paragraph_hits(build_index(text, 1).paragraphs, keywords) == plain_hits(text, keywords)


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("dense", [0, 1 << 30])  # every paragraph a list up front, or only those hit
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=spec_texts, keywords=keyword_lists, again=keyword_lists)
def test_scoring_through_the_word_postings_is_the_substring_matches(
    monkeypatch: pytest.MonkeyPatch, strategy: str, dense: int, text: str, keywords: list[str], again: list[str]
) -> None:
    with monkeypatch.context() as m:
        for name, value in STRATEGIES[strategy].items():
            m.setattr(spec_mod, name, value)
        m.setattr(spec_mod, "DENSE_HITS", dense)
        index = build_index(text, 1)
        assert spec_mod.indexed_hits(index, keywords) == plain_hits(text, keywords)
        # the postings are cached per index: a second keyword set reads the same postings
        assert spec_mod.indexed_hits(index, again) == plain_hits(text, again)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=spec_texts, runs=st.lists(keyword_lists, min_size=1, max_size=4))
def test_a_keyword_table_past_its_limit_starts_afresh_and_scores_the_same(text: str, runs: list[list[str]]) -> None:
    index = build_index(text, 1)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(spec_mod, "KEYWORD_TABLE_LIMIT", 1)  # every table holding 2+ paragraph numbers resets
        for keywords in runs:
            assert spec_mod.indexed_hits(index, keywords) == plain_hits(text, keywords)


def test_each_keyword_is_worked_out_once_per_index_across_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    spec_mod.clear_caches()
    index = build_index("Login here\n\nsession store\n\n\n\nlogin session token", 1)
    asked: list[list[str]] = []
    real = spec_mod._words_holding
    monkeypatch.setattr(spec_mod, "_words_holding", lambda w, r, c: asked.append(sorted(w)) or real(w, r, c))
    first = spec_mod.indexed_hits(index, ["session", "login"])
    second = spec_mod.indexed_hits(index, ["store", "session"])
    third = spec_mod.indexed_hits(index, ["token", "login", "store", "session"])
    # Each task's new keywords only: the third task's login, store and session are known.
    assert asked == [["login", "session"], ["store"], ["token"]]
    # Paragraph 2 is blank ("\n\n\n\n" splits into an empty one); 3 holds login, session, token.
    assert first == {0: ("login",), 1: ("session",), 3: ("login", "session")}
    assert second == {1: ("session", "store"), 3: ("session",)}
    assert third == {0: ("login",), 1: ("session", "store"), 3: ("login", "session", "token")}


def test_the_second_ranking_of_an_index_goes_through_its_postings(monkeypatch: pytest.MonkeyPatch) -> None:
    spec_mod.clear_caches()
    index = build_index("Login here\n\nsession store\n\nlogin session", 1)
    built: list[int] = []
    real = spec_mod.keyword_table
    monkeypatch.setattr(spec_mod, "keyword_table", lambda i, c=None: built.append(id(i)) or real(i, c))
    first = ranking(index, ["login"])
    assert built == []  # once: the plain scan, no postings built
    second = ranking(index, ["session", "store"])
    assert built == [id(index)]
    assert (first.hits, second.hits) == ({0: ("login",), 2: ("login",)}, {1: ("session", "store"), 2: ("session",)})


def test_a_flood_of_keywords_over_many_paragraphs_scores_as_few_do() -> None:
    words = [f"w{i:05d}x" for i in range(2000)]
    paragraphs = [f"Login session {words[i * 7 % 2000]} store{i}." for i in range(1500)]
    text = "\n\n".join(paragraphs)
    keywords = [*words, "login", "store1", "e", "n s"]
    assert paragraph_hits(build_index(text, 1).paragraphs, keywords) == plain_hits(text, keywords)


def test_a_ranking_answers_for_every_paragraph() -> None:
    index = build_index("login here\n\n   \n\nnothing\n\nlogin session", 1)
    ranked = ranking(index, ["login", "session"])
    assert [ranked.score(n) for n in range(4)] == [1, 0, 0, 2]
    assert [ranked.matched(n) for n in range(4)] == [("login",), (), (), ("login", "session")]
    assert [s.paragraph.index for s in ranked.ranked] == [3, 0]
    assert [(s.score, s.matched) for s in ranked.scored] == [
        (1, ("login",)),
        (0, ()),
        (0, ()),
        (2, ("login", "session")),
    ]
    assert index.paragraphs[3].lower == "login session"


WORD_PIECES = [
    "box",
    "boxe",
    "es",
    "s",
    "Box",
    "polic",
    "ies",
    "y",
    "_",
    "-",
    " ",
    "\n\n",
    "\u0130",
    "\u00e9",
    "9",
    ".",
]
word_texts = st.lists(st.sampled_from(WORD_PIECES), max_size=40).map("".join)
KEYWORDS = ["box", "boxe", "boxes", "policy", "polic", "es", "i\u0307box", "\u00e9", "sbox", "bo"]


def plain_counts(text: str, words: tuple[str, ...]) -> dict[int, list[tuple[str, int]]]:
    """The ctxviewer profile's whole-word counts by their plain definition, character by character.

    A paragraph's words are its maximal runs of characters for which ``str.isalnum`` holds,
    each lowercased on its own; a word counts for the longest keyword it is a form of
    (``forms``), in the order the words come.
    """
    ordered = sorted(words, key=len, reverse=True)
    out: dict[int, list[tuple[str, int]]] = {}
    for n, para in enumerate(text.split("\n\n")):
        runs: list[str] = []
        current = ""
        for char in para + " ":
            if char.isalnum():
                current += char
            elif current:
                runs.append(current)
                current = ""
        counts: Counter[str] = Counter()
        for run in runs:
            owner = next((w for w in ordered if run.lower() in ctxviewer_run.forms(w)), None)
            if owner is not None:
                counts[owner] += 1
        if counts:
            out[n] = list(counts.items())
    return out


@pytest.mark.parametrize("piece", [4, 1 << 20])
@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=word_texts, keywords=st.lists(st.sampled_from(KEYWORDS), max_size=6))
def test_match_counts_are_the_whole_words_equal_to_a_form(
    monkeypatch: pytest.MonkeyPatch, piece: int, text: str, keywords: list[str]
) -> None:
    words = tuple(sorted(set(keywords)))
    with monkeypatch.context() as m:
        m.setattr(ctxviewer_run, "_PIECE_CHARS", piece)
        counts = ctxviewer_run._match_counts(build_index(text, 1), words, None)
    # The same counts, in the same order (a paragraph's worth sums its keywords in this order).
    assert {n: list(c.items()) for n, c in counts.items()} == plain_counts(text, words)


def test_a_form_two_keywords_share_counts_for_the_longer_keyword() -> None:
    # "boxes" is a form of "box" (box + es) and of "boxe" (boxe + s): the longer keyword owns it.
    text = "Boxes and a box; boxe-boxes.\n\nA box_boxes."
    counts = ctxviewer_run._match_counts(build_index(text, 1), ("box", "boxe"), None)
    expected = {0: [("boxe", 3), ("box", 1)], 1: [("box", 1), ("boxe", 1)]}
    assert {n: list(c.items()) for n, c in counts.items()} == expected
    assert plain_counts(text, ("box", "boxe")) == expected


def test_a_word_holding_a_dotted_capital_i_is_one_word() -> None:
    # "İbox" lowercases to "i", a combining dot and "box": one word of the text, so the
    # keyword "box" does not match inside it, and the keyword made from it ("i̇box") does.
    text = "İbox and box.\n\nİBOX"
    counts = ctxviewer_run._match_counts(build_index(text, 1), ("box", "i\u0307box"), None)
    assert {n: dict(c) for n, c in counts.items()} == {0: {"i\u0307box": 1, "box": 1}, 1: {"i\u0307box": 1}}
    counts = ctxviewer_run._match_counts(build_index(text, 1), ("box",), None)
    assert {n: dict(c) for n, c in counts.items()} == {0: {"box": 1}}


def test_matching_stays_linear_with_a_keyword_whose_lowercase_is_longer() -> None:
    # 20,000 keywords, the first from "İstanbul" (its lowercase is one character longer),
    # over 2,000 paragraphs.  One regular expression over every keyword took minutes here
    # (2,000 keywords: 10 s on vm); the word table takes milliseconds.  No clock is read:
    # faulthandler_timeout is the backstop.
    words = ("\u0130stanbul".lower(), *(f"word{i:05d}x" for i in range(19_999)))
    text = "\n\n".join(f"Paragraph {i}: word{i:05d}x, WORD{i:05d}X and \u0130STANBUL." for i in range(2000))
    counts = ctxviewer_run._match_counts(build_index(text, 1), tuple(sorted(words)), None)
    assert len(counts) == 2000
    assert counts[7] == {"word00007x": 2, "i\u0307stanbul": 1}


# -- cancelling from inside scoring ----------------------------------------------------------------

SCORERS = frozenset({"paragraph_hits", "_match_counts"})


class Watch(threading.Event):
    """A cancel token that is set from its (*flip_after* + 1)-th look on.

    It records, for each look, whether it was made from inside one of the functions
    named in *within* (by default, the scorers).
    """

    def __init__(self, flip_after: int | None = None, within: frozenset[str] = SCORERS) -> None:
        super().__init__()
        self.flip_after = flip_after
        self.within = within
        self.looks: list[bool] = []

    def is_set(self) -> bool:
        frame: FrameType | None = sys._getframe(1)
        inside = False
        while frame is not None:
            inside = inside or frame.f_code.co_name in self.within
            frame = frame.f_back
        self.looks.append(inside)
        return self.flip_after is not None and len(self.looks) > self.flip_after


def flood_project(root: Path) -> Path:
    """16,000 paragraphs and a task with 3,000 keywords: scoring takes many cancel checks."""
    words = " ".join(f"w{i:05d}x" for i in range(3000))
    task = {**TASK, "description": words}
    text = "\n\n".join(f"Login session store keeps tokens, entry {i}." for i in range(16_000))
    return make_project(root, [task], requirements=text, rules={"_core/owasp-2025.md": CORE})


@pytest.mark.parametrize("profile", ["mahabharatha", *PEERS])
def test_cancelling_while_scoring_stops_at_the_next_look(tmp_path: Path, profile: str) -> None:
    project = load_project(flood_project(tmp_path / "p"), {"profile": profile})
    _clear_caches()
    watch = Watch()
    full = assemble(project, "feat", "T1", exact=False, cancel=watch)
    scoring = [n for n, inside in enumerate(watch.looks) if inside]
    assert len(scoring) >= 8, watch.looks  # not only between stages

    # The same run, cancelled once scoring is under way: it stops at the very next look.
    _clear_caches()
    k = scoring[2]
    cancel = Watch(flip_after=k)
    with pytest.raises(Cancelled):
        assemble(project, "feat", "T1", exact=False, cancel=cancel)
    assert len(cancel.looks) == k + 1
    assert cancel.looks[k]  # ... inside scoring

    # Nothing half-done was cached: the next run gives the whole result.
    again = assemble(project, "feat", "T1", exact=False)
    assert again.context == full.context
    assert [(i.id, i.score, i.matched_keywords) for i in again.items] == [
        (i.id, i.score, i.matched_keywords) for i in full.items
    ]


def test_the_cancel_stage_names_the_stage_scoring_belongs_to(tmp_path: Path) -> None:
    project = load_project(flood_project(tmp_path / "p"))
    _clear_caches()
    watch = Watch()
    assemble(project, "feat", "T1", exact=False, cancel=watch)
    _clear_caches()
    k = [n for n, inside in enumerate(watch.looks) if inside][1]
    with pytest.raises(Cancelled, match=re.escape("spec excerpts")):
        assemble(project, "feat", "T1", exact=False, cancel=Watch(flip_after=k))


def test_eight_megabytes_of_tiny_paragraphs_are_refused_by_count(tmp_path: Path) -> None:
    text = "Login session store.\n\n" + "x\n\n" * 2_796_000 + "Session expiry.\n"
    root = make_project(tmp_path / "p", [TASK], requirements=text, rules={"_core/owasp-2025.md": CORE})
    trace = assemble(load_project(root), "feat", "T1", exact=False)
    assert trace.context == SEC
    assert [e.one_line() for e in trace.errors] == [
        f"{REQ}: not used: 2,796,002 paragraphs is over the 250,000-paragraph limit (treated as an empty spec file)"
    ]


@pytest.mark.parametrize("profile", ["mahabharatha", "shaktiman"])
def test_counting_every_paragraph_is_cancellable_too(tmp_path: Path, profile: str) -> None:
    # 16,000 paragraphs are counted 8,192 at a time, the token looked at before each batch.
    project = load_project(flood_project(tmp_path / "p"), {"profile": profile})
    _clear_caches()
    watch = Watch(within=frozenset({"measure_many"}))
    assemble(project, "feat", "T1", exact=True, cancel=watch)
    counting = [n for n, inside in enumerate(watch.looks) if inside]
    assert len(counting) >= 2
    _clear_caches()
    cancel = Watch(flip_after=counting[1])
    with pytest.raises(Cancelled):
        assemble(project, "feat", "T1", exact=True, cancel=cancel)
    assert len(cancel.looks) == counting[1] + 1

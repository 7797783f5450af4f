"""The ctxviewer profile's rules, each against a hand-worked expectation."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.profiles.base import NEVER_CONSIDERED
from ctxviewer.engine.profiles.ctxviewer.run import CUT_MARKER, extract, match_counts, similarity, triples
from ctxviewer.engine.profiles.mahabharatha import REQUIREMENTS_HEADER
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs import pipeline
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.signals.spec import build_index
from ctxviewer.engine.signals.words import normalise
from ctxviewer.engine.tokens.counting import get_counter
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, NOT_CANDIDATE, OUTRANKED, TRUNCATED, Trace
from tests.factories import make_project

CL = get_counter("cl100k_base")


def test_keywords_split_words_and_humps_drop_plurals_and_note_stopwords() -> None:
    task = {
        "title": "Add sessionStore for user-sessions API",
        "description": "Rotate tokens.",
        "files": {"create": ["src/auth_tokens.py"], "read": ["docs/obsession.md"]},
    }
    kws = {k.word: k for k in extract(task)}
    assert sorted(kws) == ["add", "api", "auth", "for", "obsession", "rotate", "session", "store", "token", "user"]
    assert kws["add"].note and kws["for"].note  # stopwords, listed but not used
    assert not kws["session"].note
    assert kws["session"].sources == ("title",)  # from "sessionStore" and "user-sessions"
    assert kws["token"].sources == ("description", "files.create: src/auth_tokens.py")
    assert kws["obsession"].sources == ("files.read: docs/obsession.md",)


def test_normalise_folds_english_plurals_only() -> None:
    words = ("sessions", "class", "bus", "tokens", "access", "policies", "dispatches", "classes", "status", "analysis")
    assert [normalise(w) for w in words] == [
        "session",
        "class",
        "bus",
        "token",
        "access",
        "policy",
        "dispatch",
        "class",
        "status",
        "analysis",
    ]


def test_keywords_and_matches_in_any_script() -> None:
    kws = [k.word for k in extract({"title": "Сессия входа: façade für Nutzer"})]
    assert kws == ["façade", "für", "nutzer", "входа", "сессия"]
    index = build_index("Сессия истекает.\n\nнет сессии_x; façade.\n\nfaçades und Nutzer", 1)  # noqa: RUF001
    # Whole words only: "сессии_x" is another word ("сессии"), the underscore a boundary.
    assert match_counts(index, ["сессия", "façade", "nutzer"]) == {
        0: {"сессия": 1},
        1: {"façade": 1},
        2: {"façade": 1, "nutzer": 1},
    }


def test_plural_forms_match_their_keyword() -> None:
    index = build_index("One policy, two policies.\n\nIt dispatches; we dispatch.\n\nPolicyholder", 1)
    assert match_counts(index, ["policy", "dispatch"]) == {0: {"policy": 2}, 1: {"dispatch": 2}}


def test_keywords_match_whole_words_with_plural_endings() -> None:
    index = build_index("The session_id and sessions are stored.\n\nAn obsession with restore.\n\nStore it.", 1)
    counts = match_counts(index, ["session", "store"])
    # "session_id" and "sessions" match; "stored", "obsession" and "restore" do not.
    assert counts == {0: {"session": 2}, 2: {"store": 1}}


def test_similarity_of_word_triples() -> None:
    a = triples("Sessions expire after thirty minutes.")
    b = triples("Sessions expire after thirty minutes!")
    c = triples("Sessions expire after ten minutes.")
    assert similarity(a, b) == 1.0
    # a: 3 triples; c: 3 triples; they share only (sessions, expire, after): 1 of 5 distinct.
    assert similarity(a, c) == pytest.approx(1 / 5)


P1 = "Sessions expire after thirty minutes of inactivity."
P2 = "Refunds go through the ledger."
D1 = "Sessions expire after thirty minutes of inactivity!"
SENTENCE = "Session tokens rotate on every login and are bound to one device."


def _project(tmp_path: Path, requirements: str, design: str | None = None, rules: dict[str, str] | None = None) -> Path:
    task = {"id": "T", "title": "Session expiry", "files": {"create": ["src/session.py"]}}
    return make_project(tmp_path, [task], requirements=requirements, design=design, rules=rules)


def _run(root: Path, **overrides: Any) -> Trace:
    return assemble(load_project(root), "feat", "T", {"profile": "ctxviewer", **overrides})


def test_near_duplicates_go_and_the_best_paragraph_that_did_not_fit_is_cut_to_fill(tmp_path: Path) -> None:
    p3 = " ".join([SENTENCE] * 60)
    root = _project(tmp_path, f"{P1}\n\n{P2}\n\n{p3}", D1)
    trace = _run(root, budget=200)
    # No rule files: security keeps nothing, and its 60 tokens go to the spec: 100 + 60.
    spec = trace.section("spec_excerpts")
    assert spec is not None and spec.budget == 160
    assert trace.section_budgets == {"security_rules": 60, "spec_excerpts": 160}
    assert trace.buffer == 40
    items = {i.id: i for i in trace.items}
    assert items["requirements:1"].status == INCLUDED
    assert items["requirements:2"].status == NOT_CANDIDATE and "no task keyword" in items["requirements:2"].reason
    assert items["design:1"].status == OUTRANKED  # lost to the paragraph it duplicates
    assert items["design:1"].reason.startswith("near-duplicate of paragraph 1 of requirements.md (line 1): 100%")
    p3_item = items["requirements:3"]
    assert p3_item.status == TRUNCATED
    kept = p3_item.text[: p3_item.kept_chars]
    # Cut after a whole sentence, and as many sentences as the room left allows.
    sentences = kept.count(SENTENCE)
    assert kept == " ".join([SENTENCE] * sentences)
    room = 160 - (CL.count(REQUIREMENTS_HEADER) + 1) - (CL.count(P1) + 1)
    space = room - 1 - CL.count(CUT_MARKER)
    assert CL.count(kept) <= space < CL.count(" ".join([SENTENCE] * (sentences + 1)))
    assert trace.context == f"{REQUIREMENTS_HEADER}\n\n{P1}\n\n{kept}{CUT_MARKER}"
    assert CL.count(spec.text) <= 160
    assert [s.action for s in trace.trim_steps] == ["near_duplicate", "truncate"]
    # Both measure the section: with the near-duplicate added and the cut paragraph whole,
    # then without the duplicate, then with the paragraph cut: the section as built.
    dup, cut = trace.trim_steps
    assert (dup.chars_before - dup.chars_after, dup.tokens_after) == (len(D1) + 2, cut.tokens_before)
    assert (cut.chars_before, cut.chars_after) == (
        len(spec.text) - len(kept) - len(CUT_MARKER) + len(p3),
        len(spec.text),
    )


def test_worth_per_token_prefers_the_short_paragraph_with_the_rare_word(tmp_path: Path) -> None:
    long_one = "The session " + "lasts and lasts " * 40 + "until expiry."
    short_one = "Expiry is absolute."
    common = "\n\n".join(f"Session note {n}." for n in range(4))
    root = _project(tmp_path, f"{long_one}\n\n{short_one}\n\n{common}")
    trace = _run(root, budget=100, security_share=0.0, spec_share=0.5)
    items = {i.id: i for i in trace.items}
    # "expiry" is in 2 of 6 paragraphs, "session" in 5: the short paragraph with "expiry" is
    # worth most per token and goes first; the long one does not fit the 50 tokens.
    assert items["requirements:2"].rank == 1
    assert items["requirements:1"].status in (CUT_FOR_BUDGET, TRUNCATED)
    assert items["requirements:1"].rank is None or items["requirements:1"].rank > 1
    assert all(items[f"requirements:{n}"].status == INCLUDED for n in range(3, 7))
    assert items["requirements:2"].details["matches"] == {"expiry": 1}


def test_a_rule_block_that_does_not_fit_is_kept_line_by_line(tmp_path: Path) -> None:
    lines = [f"## Rule: Rule number {n}" for n in range(40)]
    core = "\n".join(lines)
    root = _project(tmp_path, P1, rules={"_core/owasp-2025.md": core})
    trace = _run(root, budget=400, security_share=0.25)
    item = trace.item("rule:_core/owasp-2025.md")
    assert item is not None and item.status == TRUNCATED
    kept = item.text[: item.kept_chars]
    count = kept.count("\n")  # the block's header line, then whole rule lines
    assert kept == "### _core/owasp-2025.md\n" + "\n".join(lines[:count])
    section = trace.section("security_rules")
    assert section is not None and CL.count(section.text) <= 100
    # One more line would not have fit the section's 100 tokens.
    longer = "## Security Rules (task-scoped)\n\n### _core/owasp-2025.md\n" + "\n".join(lines[: count + 1])
    assert CL.count(longer) > 100


class Inflating:
    """cl100k_base, but a text with two blank lines or more costs 80 tokens more: joining is dearer than parts."""

    name = "cl100k_base"

    def count(self, text: str) -> int:
        return CL.count(text) + (80 if text.count("\n\n") >= 2 else 0)

    def count_many(self, texts: Iterable[str]) -> list[int]:
        return [self.count(t) for t in texts]

    def fits_prefix(self, text: str, max_tokens: int) -> int:
        return CL.fits_prefix(text, max_tokens)


def test_the_exact_check_takes_out_the_last_packed_paragraph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "get_counter", lambda name: Inflating())
    paragraphs = [f"Session rule {n} applies to every login." for n in range(3)]
    root = _project(tmp_path, "\n\n".join(paragraphs))
    trace = _run(root, budget=200, security_share=0.0, spec_share=0.5)
    # Packed: header + 3 paragraphs (about 40 tokens, 3 blank lines); counted joined, 80 more:
    # over the 100 of the spec.  Without the last-packed one: header + 2 (2 blank lines), still
    # over; without the next: header + 1 (1 blank line), about 14 tokens: within.
    cuts = [s for s in trace.trim_steps if s.action == "verify_cut"]
    assert len(cuts) == 2
    kept = [i for i in trace.items if i.status == INCLUDED]
    assert len(kept) == 1
    assert all("taken out again" in i.reason for i in trace.items if i.status == CUT_FOR_BUDGET and i.score)


def test_the_exact_check_takes_out_the_last_packed_not_the_last_in_the_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline, "get_counter", lambda name: Inflating())
    long_one = "Session " + "words " * 15 + "end."  # "session" only, and long: packed second
    short_one = "Expiry of a session."  # both keywords in four words: packed first
    root = _project(tmp_path, f"{long_one}\n\n{short_one}")
    trace = _run(root, budget=200, security_share=0.0, spec_share=0.5)
    # Header + both paragraphs: two blank lines, 80 more, over 100.  The long one was packed
    # last, so it comes out, although it stands first in the text.
    assert [s.target for s in trace.trim_steps if s.action == "verify_cut"] == ["requirements:1"]
    assert trace.context == f"{REQUIREMENTS_HEADER}\n\n{short_one}"


@pytest.mark.parametrize("profile", ["drift", "shaktiman", "ctxviewer"])
def test_rule_files_the_filter_never_chooses_are_listed(tmp_path: Path, profile: str) -> None:
    rules = {"_core/owasp-2025.md": "## Rule: A\n", "languages/go/CLAUDE.md": "## Rule: B\n"}
    root = _project(tmp_path, P1, rules=rules)
    trace = assemble(load_project(root), "feat", "T", {"profile": profile}, exact=False)
    item = trace.item("rule:languages/go/CLAUDE.md")
    assert item is not None and item.status == NOT_CANDIDATE and item.reason == NEVER_CONSIDERED


def test_headings_come_only_above_the_paragraphs_they_head(tmp_path: Path) -> None:
    spec = "## Session expiry\n\nSessions end after 30 idle minutes.\n\n## Docker\n\nThe image is unchanged."
    root = _project(tmp_path, spec)
    trace = _run(root, budget=400)
    # The heading matches keywords too, but is never packed alone: it comes with the
    # paragraph under it, its tokens counted in that paragraph's cost.  "## Docker" heads
    # nothing that was packed, so it stays out.
    assert trace.context == f"{REQUIREMENTS_HEADER}\n\n## Session expiry\n\nSessions end after 30 idle minutes."
    heading, para = trace.item("requirements:1"), trace.item("requirements:2")
    assert heading is not None and para is not None
    assert heading.status == INCLUDED and heading.reason.startswith(
        "the heading of paragraph 2 of requirements.md (line 3), placed above it"
    )
    assert para.status == INCLUDED
    need = CL.count("Sessions end after 30 idle minutes.") + 1 + CL.count(REQUIREMENTS_HEADER) + 1
    need += CL.count("## Session expiry") + 1
    assert f"for {need} tokens" in para.reason
    docker = trace.item("requirements:3")
    assert docker is not None and docker.status == NOT_CANDIDATE and docker.reason.startswith("a heading:")

"""The keyword check's ranking and the trace view behind :func:`findings_of`, on hand-built items.

``_Ranking`` redoes a file's top k without each common word looking only at the head of
the ranking; these cases are worked out by hand (the bound leaving a paragraph out, a
keyword held twice, a repeated id, the other profiles' question), and random files are
checked against the reference definition written out in full.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from ctxviewer.engine.analysis.findings import _Ranking, _View
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import KEPT, OUTRANKED, Item
from tests.factories import make_item, make_project

PUT_IN = "put in the context"
ALONE = "alone put in the context"


def pushed(k: int) -> str:
    return f"pushed out of the top {k} by lifting others above"


def para(n: int, keywords: Sequence[str], rank: int | None, status: str, item_id: str | None = None) -> Item:
    """Paragraph *n* (line 2n - 1) of requirements.md holding *keywords*."""
    return make_item(
        id=item_id or f"requirements:{n}",
        line_start=2 * n - 1,
        line_end=2 * n - 1,
        score=len(keywords),
        matched_keywords=tuple(keywords),
        rank=rank,
        status=status,
        text=" ".join(keywords) or "x",
    )


# -- worked out by hand -----------------------------------------------------------------------------


def test_the_head_leaves_out_what_cannot_reach_the_top_k() -> None:
    # Scores 2, 3, 3, 1 in file order; top 2 by rank: P2 and P3 (places 1, 2).  The 2nd best
    # score is 3, so the head is what scores 2 or more: places 1, 2, 0.  P4 (score 1) cannot
    # reach the top 2 whatever word goes: P2 and P3 keep at least 2 each.
    p1, p2, p3, p4 = (
        para(1, ("b", "c"), 3, "outranked"),
        para(2, ("a", "b", "c"), 1, "included"),
        para(3, ("a", "c", "d"), 2, "included"),
        para(4, ("d",), 4, "outranked"),
    )
    ranking = _Ranking([p1, p2, p3, p4], 2, reference=True, unique_ids=True)
    assert ranking.head_places == [1, 2, 0]
    # Without "a" all of P1-P3 score 2 and file order takes P1 and P2: "a" put P3 in, pushed P1 out.
    assert ranking.decided_by("a") == [(p1, pushed(2)), (p3, PUT_IN)]
    # Without "d" P2 scores 3, P1 and P3 2 (P1 first), P4 0: the same two changes.
    assert ranking.decided_by("d") == [(p1, pushed(2)), (p3, PUT_IN)]
    # Without "c" every head paragraph loses one point: the order holds.  Without "b" P3 leads.
    assert ranking.decided_by("c") == []
    assert ranking.decided_by("b") == []


def test_a_keyword_held_twice_ranks_as_the_reference_does() -> None:
    # Pa holds "w" twice (score 3, rank 1), Pb "w" once (score 2), Pc not (score 1).  Without
    # "w" all three score 1.  The reference takes the first paragraph of each group in the old
    # order -- Pa (having "w") and Pc (without) -- and keeps Pa: no fate changes.  (Sorting
    # every paragraph by its new score would put Pb first.)  With a keyword held twice the
    # head bound does not hold, so the head is the whole ranking.
    pb, pa, pc = (
        para(1, ("w", "y"), 2, "outranked"),
        para(2, ("w", "w", "x"), 1, "included"),
        para(3, ("z",), 3, "outranked"),
    )
    ranking = _Ranking([pb, pa, pc], 1, reference=True, unique_ids=True)
    assert ranking.head_places == [1, 0, 2]
    assert ranking.decided_by("w") == []


def test_a_repeated_id_stands_for_its_last_paragraph() -> None:
    # Top 1: P2 (a, b).  Without "b" both score 1 and P1 comes first: "b" put P2 in and pushed
    # P1 out -- unless both carry one id, which then is in the top 1 either way.
    p1, p2 = para(1, ("a",), 2, "outranked"), para(2, ("a", "b"), 1, "included")
    assert _Ranking([p1, p2], 1, reference=True, unique_ids=True).decided_by("b") == [(p1, pushed(1)), (p2, PUT_IN)]
    same = replace(p1, id=p2.id)
    assert _Ranking([same, p2], 1, reference=True, unique_ids=False).decided_by("b") == []


def test_other_profiles_ask_which_kept_paragraph_one_word_alone_put_in() -> None:
    paragraphs = [
        para(1, ("a",), 1, "included"),
        para(2, ("a", "b"), 2, "included"),
        para(3, ("a",), 3, "outranked"),
        para(4, ("b",), 4, "truncated"),
    ]
    for reference in (False, True):
        unranked = [replace(p, rank=None) for p in paragraphs]
        ranking = _Ranking(paragraphs if not reference else unranked, 5, reference, unique_ids=True)
        mine = paragraphs if not reference else unranked
        # With the reference profile but nothing ranked, the same question is asked.
        assert ranking.decided_by("a") == [(mine[0], ALONE)]
        assert ranking.decided_by("b") == [(mine[3], ALONE)]


# -- random files against the reference definition ----------------------------------------------------


def reference_decided_by(paragraphs: Sequence[Item], top_k: int, word: str) -> list[tuple[Item, str]]:
    """The definition, over the whole file: rank everything without *word*, compare by id."""
    ranked = [p for p in paragraphs if p.rank is not None and p.matched_keywords]
    if not ranked:
        return [(p, ALONE) for p in paragraphs if p.status in KEPT and p.matched_keywords == (word,)]
    place = {p.id: (n, p) for n, p in enumerate(ranked)}
    now = {p.id for p in sorted(ranked, key=lambda p: p.rank or 0)[:top_k]}
    order = sorted(((len(p.matched_keywords), n, p) for n, p in enumerate(ranked)), key=lambda t: (-t[0], t[1]))
    then: set[str] = set()
    if top_k > 0:
        without = [(s, n, p) for s, n, p in order if word not in p.matched_keywords][:top_k]
        having = [
            (s - p.matched_keywords.count(word), n, p)
            for s, n, p in order
            if word in p.matched_keywords and s - p.matched_keywords.count(word) > 0
        ][:top_k]
        best = sorted([t for t in without if t[0] > 0] + having, key=lambda t: (-t[0], t[1]))[:top_k]
        then = {p.id for _, _, p in best}
    out = []
    for _, p in sorted(place[i] for i in now ^ then):
        if p.id in now and p.status in KEPT:
            out.append((p, PUT_IN))
        elif p.id in then and p.status == OUTRANKED:
            out.append((p, pushed(top_k)))
    return out


def random_file(rng: random.Random) -> tuple[list[Item], bool]:
    """Up to 30 paragraphs over six words: now and then a keyword twice, a missing rank, a
    repeated id; ranks in score order or shuffled.  Also whether every id is distinct."""
    words = "abcdef"
    keywords = []
    for _ in range(rng.randint(0, 30)):
        held = rng.sample(words, rng.randint(0, 5))
        if held and rng.random() < 0.08:
            held.append(held[0])
        keywords.append(sorted(held))
    order = sorted(range(len(keywords)), key=lambda n: (-len(keywords[n]), n))
    if rng.random() < 0.3:
        rng.shuffle(order)
    ranks = {n: r for r, n in enumerate(order, start=1)}
    out = []
    for n, held in enumerate(keywords, start=1):
        rank = None if rng.random() < 0.05 else ranks[n - 1]
        item_id = f"requirements:{rng.randint(1, n)}" if rng.random() < 0.05 else None
        out.append(para(n, held, rank, rng.choice(["included", "truncated", "outranked", "cut_for_budget"]), item_id))
    return out, len({p.id for p in out}) == len(out)


@pytest.mark.parametrize("seed", range(40))
def test_random_files_decide_what_the_definition_decides(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(25):
        paragraphs, unique = random_file(rng)
        top_k = rng.choice([-1, 0, 1, 2, 3, 5, 40])
        reference = rng.random() < 0.9
        ranking = _Ranking(paragraphs, top_k, reference, unique)
        for word in "abcdefg":
            expected = (
                reference_decided_by(paragraphs, top_k, word)
                if reference
                else [(p, ALONE) for p in paragraphs if p.status in KEPT and p.matched_keywords == (word,)]
            )
            assert ranking.decided_by(word) == expected, (seed, top_k, word)


# -- the view --------------------------------------------------------------------------------------------


def test_the_view_groups_a_traces_items_once_each(tmp_path: Path) -> None:
    root = make_project(tmp_path, [{"id": "T", "title": "Task", "files": {}}], requirements="Task notes.")
    trace = assemble(load_project(root), "feat", "T", exact=False)
    req, design = ".gsd/specs/f/requirements.md", ".gsd/specs/f/design.md"
    rule = make_item(id="rule:a", kind="rule_file", section="security_rules", source="rules/a.md")
    r1 = make_item(id="requirements:1")
    d1 = make_item(id="design:1", part="design", source=design)
    chunk = make_item(id="requirements:2", details={"chunk": 1})
    r3 = make_item(id="requirements:3")
    again = make_item(id="requirements:1", line_start=9)
    items = (rule, r1, d1, chunk, r3, again)
    view = _View(replace(trace, items=items))
    assert view.rule_files == [rule]
    assert view.paragraphs == [r1, d1, chunk, r3, again]
    # A chunk of a paragraph is left out; a file's paragraphs stay in trace order across runs.
    assert view.paragraphs_by_file == {req: [r1, r3, again], design: [d1]}
    assert view.by_section == {"security_rules": [rule], "spec_excerpts": [r1, d1, chunk, r3, again]}
    assert view.order == {"rule:a": 0, "requirements:1": 5, "design:1": 2, "requirements:2": 3, "requirements:3": 4}
    assert not view.unique_ids
    assert _View(replace(trace, items=items[:-1])).unique_ids

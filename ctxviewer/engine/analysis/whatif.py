"""What-if: compare a run with a pinned baseline run.

:func:`diff_traces` says what a change of settings did: which settings differ, each
section's token delta, which candidates entered or left the context (with their reason
before and now), and a unified diff of the context.  Both runs are counted in the *current*
trace's decision tokenizer (the heuristic where a count was not made in it); a candidate in
the context counts as the part it kept.  See docs/cli.md#whatif.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxviewer.engine.analysis.explain import item_label
from ctxviewer.engine.errors import EncodingUnavailableError
from ctxviewer.engine.project.settings import SettingChange
from ctxviewer.engine.tokens.counting import TokenCounts, get_counter
from ctxviewer.engine.trace.model import INCLUDED, RULE_FILE, TRUNCATED, Item, Trace, fate_label

ENTERED, LEFT, GREW, SHRANK, NEW, GONE = "entered", "left", "grew", "shrank", "new", "gone"
#: A candidate out of both contexts whose fate differs (outranked -> cut for budget ...); only
#: reported when asked for (:func:`item_change` with *fates*), as the revision diff does.
FATE = "fate"
#: Every kind of item change, in the order :attr:`TraceDiff.items` lists them.
CHANGES: tuple[str, ...] = (ENTERED, LEFT, GREW, SHRANK, NEW, GONE)
#: What each change means, for tooltips and reports.
CHANGE_MEANINGS: Mapping[str, str] = {
    ENTERED: "was not in the baseline's context, is in the current one",
    LEFT: "was in the baseline's context, is not in the current one",
    GREW: "in both contexts, more of it is kept now",
    SHRANK: "in both contexts, less of it is kept now",
    NEW: "a candidate only the current run has, in its context",
    GONE: "a candidate only the baseline run had, in its context",
}

#: Unified-diff lines kept at most; a final marker says how many more there were.
MAX_DIFF_LINES = 5000
#: Unchanged lines shown around each change in the context diff.
CONTEXT_LINES = 2

_MINUS = "\u2212"


@dataclass(frozen=True, slots=True)
class SectionDelta:
    """One section in both runs; a section missing from a run has no budget/status and 0 tokens."""

    name: str
    title: str
    budget_before: int | None
    budget_after: int | None
    tokens_before: int
    tokens_after: int
    status_before: str | None
    status_after: str | None

    @property
    def delta(self) -> int:
        return self.tokens_after - self.tokens_before


@dataclass(frozen=True, slots=True)
class ItemChange:
    """A candidate whose fate differs between the runs (see :data:`CHANGES`).

    ``tokens_before``/``tokens_after`` count the part that was in the context (0 when
    it was not), in the current run's decision tokenizer.
    """

    item_id: str
    kind: str
    label: str
    change: str
    status_before: str | None
    status_after: str | None
    reason_before: str
    reason_after: str
    tokens_before: int
    tokens_after: int

    @property
    def delta(self) -> int:
        return self.tokens_after - self.tokens_before


@dataclass(frozen=True)
class TraceDiff:
    """Everything that differs between a pinned baseline run and the current run."""

    baseline: Trace
    current: Trace
    same_task: bool
    settings: tuple[SettingChange, ...]
    sections: tuple[SectionDelta, ...]
    items: tuple[ItemChange, ...]
    context_diff: tuple[str, ...]

    @property
    def tokenizer(self) -> str:
        """The unit of every token count here: the current run's decision tokenizer."""
        return self.current.tokenizer

    @property
    def context_tokens_before(self) -> int:
        return _count(self.baseline.context_tokens, self.tokenizer)

    @property
    def context_tokens_after(self) -> int:
        return _count(self.current.context_tokens, self.tokenizer)

    @property
    def context_delta(self) -> int:
        return self.context_tokens_after - self.context_tokens_before

    @property
    def unchanged(self) -> bool:
        """Nothing differs: settings, section budgets/tokens/statuses, candidates' fates, context text."""
        return (
            not self.settings
            and not self.items
            and self.baseline.context == self.current.context
            and all(
                s.delta == 0 and s.budget_before == s.budget_after and s.status_before == s.status_after
                for s in self.sections
            )
        )

    def changed(self, change: str) -> tuple[ItemChange, ...]:
        """The item changes of one kind (``entered``, ``left``, ...)."""
        return tuple(i for i in self.items if i.change == change)


# -- computing the diff -------------------------------------------------------------------


def _count(counts: TokenCounts, tokenizer: str) -> int:
    value = counts.get(tokenizer)
    return counts.heuristic if value is None else value


def in_context(item: Item) -> bool:
    """Whether any of the candidate's text is in the assembled context."""
    return item.status in (INCLUDED, TRUNCATED) and item.kept_chars > 0


def kept_tokens(item: Item, tokenizer: str) -> int:
    """Tokens of the part of *item* that is in the context (0 when none is): a truncated item's
    kept prefix counted with *tokenizer*, or a proportional share of its whole count when that
    tokenizer cannot be loaded."""
    if not in_context(item):
        return 0
    whole = _count(item.tokens, tokenizer)
    if item.kept_chars >= len(item.text):
        return whole
    try:
        return get_counter(tokenizer).count(item.text[: item.kept_chars])
    except EncodingUnavailableError:
        return round(whole * item.kept_chars / len(item.text)) if item.text else 0


def _settings(baseline: Trace, current: Trace) -> tuple[SettingChange, ...]:
    keys = list(current.settings) + [k for k in baseline.settings if k not in current.settings]
    out = []
    for key in keys:
        before, after = baseline.settings.get(key), current.settings.get(key)
        b = None if before is None else before.value
        a = None if after is None else after.value
        if (before is None) != (after is None) or b != a:
            out.append(SettingChange(key, b, a))
    return tuple(out)


def _sections(baseline: Trace, current: Trace) -> tuple[SectionDelta, ...]:
    tokenizer = current.tokenizer
    names = [s.name for s in current.sections] + [s.name for s in baseline.sections if current.section(s.name) is None]
    out = []
    for name in names:
        b, a = baseline.section(name), current.section(name)
        some = a if a is not None else b
        assert some is not None  # every name comes from one of the two runs
        out.append(
            SectionDelta(
                name=name,
                title=some.title,
                budget_before=None if b is None else b.budget,
                budget_after=None if a is None else a.budget,
                tokens_before=0 if b is None else _count(b.tokens, tokenizer),
                tokens_after=0 if a is None else _count(a.tokens, tokenizer),
                status_before=None if b is None else b.status,
                status_after=None if a is None else a.status,
            )
        )
    return tuple(out)


def item_change(before: Item | None, after: Item | None, tokenizer: str, *, fates: bool = False) -> ItemChange | None:
    """The change of one paired candidate, or None when it did not change.

    With *fates*, a candidate out of both contexts whose fate differs is a change too (:data:`FATE`).
    """
    if before is None and after is None:
        return None
    # A candidate only one run has matters only if that run put it in its context (another
    # profile's extra candidates, such as shaktiman's section chunks, otherwise flood the list).
    if before is None:
        assert after is not None
        if not in_context(after):
            return None
        change = NEW
    elif after is None:
        if not in_context(before):
            return None
        change = GONE
    else:
        was, now = in_context(before), in_context(after)
        if was != now:
            change = ENTERED if now else LEFT
        elif was and before.kept_chars != after.kept_chars:
            change = GREW if after.kept_chars > before.kept_chars else SHRANK
        elif fates and not was and before.status != after.status:
            change = FATE
        else:
            return None
    some = after or before
    assert some is not None
    return ItemChange(
        item_id=some.id,
        kind=some.kind,
        label=item_label(some),
        change=change,
        status_before=None if before is None else before.status,
        status_after=None if after is None else after.status,
        reason_before="" if before is None else before.reason,
        reason_after="" if after is None else after.reason,
        tokens_before=0 if before is None else kept_tokens(before, tokenizer),
        tokens_after=0 if after is None else kept_tokens(after, tokenizer),
    )


def _items(baseline: Trace, current: Trace) -> tuple[ItemChange, ...]:
    # A candidate is the same one when its file and its id agree: paragraph ids number
    # paragraphs within one file, so "requirements:4" of another feature is another one.
    keys = {(i.source, i.id) for i in current.items}
    if baseline is current and len(keys) == len(current.items):
        return ()  # each candidate pairs with itself only, and none changed from itself
    old = {(i.source, i.id): i for i in baseline.items}
    pairs: list[tuple[Item | None, Item | None]] = [(old.get((i.source, i.id)), i) for i in current.items]
    pairs += [(i, None) for i in baseline.items if (i.source, i.id) not in keys]
    changes = [c for b, a in pairs if (c := item_change(b, a, current.tokenizer)) is not None]
    order = {name: n for n, name in enumerate(CHANGES)}
    return tuple(sorted(changes, key=lambda c: order[c.change]))  # sorted() is stable


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def context_diff(before: str, after: str, limit: int = MAX_DIFF_LINES) -> tuple[str, ...]:
    """Unified diff lines of two contexts (``baseline`` → ``current``), at most *limit* + 1.

    The common first and last lines are set aside before difflib runs (keeping the
    unchanged lines a hunk shows around a change), so a large context with a few changed
    lines diffs quickly; hunk line numbers are those of the whole texts.
    """
    if before == after:
        return ()
    a, b = before.splitlines(), after.splitlines()
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    skip, keep_tail = max(0, head - CONTEXT_LINES), max(0, tail - CONTEXT_LINES)
    lines = difflib.unified_diff(
        a[skip : len(a) - keep_tail],
        b[skip : len(b) - keep_tail],
        fromfile="baseline",
        tofile="current",
        n=CONTEXT_LINES,
        lineterm="",
    )
    out: list[str] = []
    extra = 0
    for line in lines:
        if len(out) >= limit:
            extra += 1
            continue
        if skip and line.startswith("@@"):
            line = _HUNK.sub(lambda m: _shift(m, skip), line, count=1)
        out.append(line)
    if extra:
        out.append(f"\u2026 {extra:,} more lines")
    return tuple(out)


def _shift(m: re.Match[str], by: int) -> str:
    a_len, b_len = m.group(2) or "", m.group(4) or ""
    return f"@@ -{int(m.group(1)) + by}{a_len} +{int(m.group(3)) + by}{b_len} @@"


def diff_traces(baseline: Trace, current: Trace) -> TraceDiff:
    """What changed from *baseline* to *current* (computed even when they are different tasks)."""
    same = (baseline.project, baseline.feature, baseline.task_id) == (current.project, current.feature, current.task_id)
    return TraceDiff(
        baseline=baseline,
        current=current,
        same_task=same,
        settings=_settings(baseline, current),
        sections=_sections(baseline, current),
        items=_items(baseline, current),
        context_diff=context_diff(baseline.context, current.context),
    )


# -- exports ------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _run(trace: Trace, tokenizer: str) -> dict[str, Any]:
    return {
        "project": trace.project,
        "feature": trace.feature,
        "task_id": trace.task_id,
        "task_title": trace.task_title,
        "tokenizer": trace.tokenizer,
        "budget": trace.budget,
        "context_tokens": _count(trace.context_tokens, tokenizer),
        "context_chars": len(trace.context),
    }


def diff_to_json(diff: TraceDiff) -> dict[str, Any]:
    """The diff as plain JSON-able data; the two traces themselves are not included."""
    return {
        "tokenizer": diff.tokenizer,
        "baseline": _run(diff.baseline, diff.tokenizer),
        "current": _run(diff.current, diff.tokenizer),
        "same_task": diff.same_task,
        "unchanged": diff.unchanged,
        "context_delta": diff.context_delta,
        "settings": [{"key": s.key, "before": _plain(s.before), "after": _plain(s.after)} for s in diff.settings],
        "sections": [
            {
                "name": s.name,
                "title": s.title,
                "budget_before": s.budget_before,
                "budget_after": s.budget_after,
                "tokens_before": s.tokens_before,
                "tokens_after": s.tokens_after,
                "delta": s.delta,
                "status_before": s.status_before,
                "status_after": s.status_after,
            }
            for s in diff.sections
        ],
        "items": [
            {
                "item_id": i.item_id,
                "kind": i.kind,
                "label": i.label,
                "change": i.change,
                "status_before": i.status_before,
                "status_after": i.status_after,
                "reason_before": i.reason_before,
                "reason_after": i.reason_after,
                "tokens_before": i.tokens_before,
                "tokens_after": i.tokens_after,
                "delta": i.delta,
            }
            for i in diff.items
        ],
        "context_diff": list(diff.context_diff),
    }


# -- wording shared by the Markdown, HTML and GUI views ---------------------------------------


def signed(value: int) -> str:
    """``+12`` / ``-30`` with a true minus sign (U+2212) / ``0``."""
    return f"+{value:,}" if value > 0 else f"{_MINUS}{-value:,}" if value < 0 else "0"


def setting_text(value: Any) -> str:
    """A setting value as people write it: strings bare, numbers with separators, rest as JSON."""
    if value is None:
        return "(not set)"
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return json.dumps(_plain(value), ensure_ascii=False)


def arrow(before: object, after: object, missing: str = "\u2014") -> str:
    """``before → after``, or the single value when both are equal."""
    b = missing if before is None else f"{before:,}" if isinstance(before, int) else str(before)
    a = missing if after is None else f"{after:,}" if isinstance(after, int) else str(after)
    return a if b == a else f"{b} \u2192 {a}"


def fate_arrow(before: str | None, after: str | None, missing: str = "\u2014") -> str:
    """:func:`arrow` of two fates (or section statuses), in the words people read."""
    return arrow(None if before is None else fate_label(before), None if after is None else fate_label(after), missing)


def run_name(trace: Trace) -> str:
    return f"{trace.task_id} ({trace.feature})"


def summary(diff: TraceDiff) -> str:
    """One sentence: what was compared and how the context's size moved."""
    b, c = diff.baseline, diff.current
    parts = [f"Baseline {run_name(b)}" if diff.same_task else f"Baseline {run_name(b)}, current {run_name(c)}"]
    parts.append(f"budget {b.budget:,} \u2192 {c.budget:,}" if b.budget != c.budget else f"budget {c.budget:,}")
    context = f"{diff.context_tokens_before:,} \u2192 {diff.context_tokens_after:,} {diff.tokenizer} tokens"
    return f"{', '.join(parts)}; context {context} ({signed(diff.context_delta)})."


def kind_word(kind: str) -> str:
    nouns = {
        RULE_FILE: "rule file",
        "knowledge_node": "knowledge node",
        "context_map_entry": "component",
        "dependency": "dependency",
        "open_question": "blocking question",
    }
    return nouns.get(kind, "paragraph")


# -- Markdown ---------------------------------------------------------------------------------


def md_escape(text: str) -> str:
    """Project text made inert in Markdown: HTML (``<img src=...>``, ``<script>``) written as
    entities, and link or image brackets escaped (``![](file:///...)`` would load a file), so a
    Markdown viewer shows the text instead of rendering it."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("[", "\\[").replace("]", "\\]")


def _cell(value: object) -> str:
    """A Markdown table cell from project text: one line, inert (:func:`md_escape`), pipes escaped."""
    return md_escape(" ".join(str(value).split())).replace("|", "\\|")


def _md_table(headers: Sequence[str], rows: Iterable[Sequence[object]], right: Iterable[int] = ()) -> list[str]:
    numeric = set(right)
    out = ["| " + " | ".join(_cell(h) for h in headers) + " |"]
    out.append("|" + "|".join("---:" if n in numeric else "---" for n in range(len(headers))) + "|")
    out += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return out


def _fence(lines: Sequence[str]) -> str:
    longest = max((len(m) for line in lines for m in re.findall(r"`+", line)), default=0)
    return "`" * max(3, longest + 1)


_HEADINGS = {
    ENTERED: "Entered the context",
    LEFT: "Left the context",
    GREW: "Grew (more of it kept)",
    SHRANK: "Shrank (less of it kept)",
    NEW: "New candidates (only in the current run)",
    GONE: "Gone candidates (only in the baseline run)",
}


def diff_markdown(diff: TraceDiff) -> str:
    """A readable Markdown section: "What-if against the baseline"."""
    b, c = diff.baseline, diff.current
    out = ["## What-if against the baseline", ""]
    if not diff.same_task:
        out += [
            f"> **Different tasks:** the baseline is {_cell(run_name(b))}, the current run is {_cell(run_name(c))}. "
            "The comparison below is computed anyway; read it with care.",
            "",
        ]
    out += [_cell(summary(diff)), ""]
    if diff.unchanged:
        out += ["No change: settings, sections, candidates and the context are the same as the baseline's.", ""]
        return "\n".join(out)

    out += ["### Settings changed", ""]
    if diff.settings:
        rows = [(s.key, setting_text(s.before), setting_text(s.after)) for s in diff.settings]
        out += [*_md_table(("Setting", "Baseline", "Current"), rows), ""]
    else:
        out += ["No setting changed.", ""]

    out += [f"### Sections ({diff.tokenizer} tokens)", ""]
    rows2: list[Sequence[object]] = [
        (
            s.title,
            arrow(s.budget_before, s.budget_after),
            f"{s.tokens_before:,}",
            f"{s.tokens_after:,}",
            signed(s.delta),
            arrow(s.status_before, s.status_after),
        )
        for s in diff.sections
    ]
    total = ("Whole context", arrow(b.budget, c.budget), f"{diff.context_tokens_before:,}")
    rows2.append((*total, f"{diff.context_tokens_after:,}", signed(diff.context_delta), ""))
    out += [*_md_table(("Section", "Budget", "Before", "After", "Δ", "Status"), rows2, (2, 3, 4)), ""]

    if not diff.items:
        out += ["No candidate changed its fate.", ""]
    for change in CHANGES:
        group = diff.changed(change)
        if not group:
            continue
        out += [f"### {_HEADINGS[change]} ({len(group)})", ""]
        for i in group:
            tokens = f"{i.tokens_before:,} \u2192 {i.tokens_after:,} tokens ({signed(i.delta)})"
            out.append(
                f"- **{_cell(i.label)}** ({kind_word(i.kind)}): {fate_arrow(i.status_before, i.status_after)}, {tokens}"
            )
            if i.reason_before:
                out.append(f"  - before: {_cell(i.reason_before)}")
            if i.reason_after:
                out.append(f"  - now: {_cell(i.reason_after)}")
        out.append("")

    out += ["### Context diff", ""]
    if diff.context_diff:
        fence = _fence(diff.context_diff)
        out += [f"{fence}diff", *diff.context_diff, fence, ""]
    elif b.context != c.context:
        out += ["The contexts differ only in line endings or other line separators.", ""]
    else:
        out += ["The assembled context is the same as the baseline's.", ""]
    return "\n".join(out)

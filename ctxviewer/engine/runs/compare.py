"""Compare: one task assembled two ways (two profiles, or two settings of one) and diffed.

A side is a profile name with optional settings (``drift:budget=6000,top_k=8``, values read
as YAML) and a pair is ``A,B``: a comma starts a new side unless a ``KEY=VALUE`` of the side
before follows it, and commas inside brackets or quotes do not split.  :func:`compare_task`
runs A as the diff's baseline and B as its current run; :func:`compare_text`,
:func:`compare_markdown` and :func:`compare_to_json` render it.  See docs/cli.md#compare.
"""

from __future__ import annotations

import dataclasses
import difflib
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxviewer.engine.analysis.whatif import (
    CHANGES,
    ENTERED,
    GONE,
    GREW,
    LEFT,
    NEW,
    SHRANK,
    ItemChange,
    TraceDiff,
    diff_markdown,
    diff_to_json,
    diff_traces,
    fate_arrow,
    kind_word,
    md_escape,
    setting_text,
    signed,
)
from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.registry import PROFILES
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.trace.model import Trace
from ctxviewer.engine.wording import FOLD_SHOWN

#: ``progress(stage, fraction)`` as the pipeline reports it.
ProgressFn = Callable[[str, float], None]

#: What each item change means when A is compared with B (the what-if's words are
#: about a baseline and a current run).
SIDE_MEANINGS: Mapping[str, str] = {
    ENTERED: "not in A's context, in B's",
    LEFT: "in A's context, not in B's",
    GREW: "in both contexts, more of it kept in B",
    SHRANK: "in both contexts, less of it kept in B",
    NEW: "a candidate only B has",
    GONE: "a candidate only A has",
}

_EXAMPLE = "e.g. mahabharatha,drift:budget=6000,top_k=8"


# -- side specs -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a comparison as written: a profile and the settings put on top of it."""

    profile: str
    overrides: tuple[tuple[str, Any], ...] = ()
    #: The settings as written, tidied: ``budget=6000, top_k=8`` ('' when none).
    written: str = ""

    @property
    def label(self) -> str:
        """``drift`` or ``drift: budget=6000, top_k=8``."""
        return f"{self.profile}: {self.written}" if self.written else self.profile

    def settings(self, base: Settings, origin: str) -> Settings:
        """*base* with this side's profile and settings applied (validated by the engine)."""
        return base.with_overrides({"profile": self.profile, **dict(self.overrides)}, origin)


def split_top_level(text: str, separators: str = ",") -> list[str]:
    """*text* split at *separators* that are outside brackets and quotes."""
    parts: list[str] = []
    depth, quote, start = 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth = max(0, depth - 1)
        elif ch in separators and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_assignment(text: str, origin: str | None = None) -> tuple[str, Any]:
    """``KEY=VALUE`` with the value read as YAML (numbers, booleans, lists, mappings).

    The upstream switches (``compact_mode`` ...) stand for environment variables: their
    value is the text as typed (``null`` or ``~``: unset).

    A value YAML cannot read is kept as the text it is; the engine's validation says
    what it should have been.
    """
    import yaml

    from ctxviewer.engine.project.settings import SWITCH_KEYS

    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise SettingsError(f"{text.strip()!r}: write KEY=VALUE, e.g. budget=1500 or spec_share=0.4", origin)
    if key.strip() in SWITCH_KEYS:  # an environment variable's text, exactly as typed ('yes' is not 'true')
        return key.strip(), None if raw in ("null", "~") else raw
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except (yaml.YAMLError, RecursionError):
        value = raw.strip()
    return key.strip(), value


def parse_settings_text(text: str, origin: str | None = None) -> tuple[tuple[str, Any], ...]:
    """``budget=6000, top_k=8`` (commas or semicolons) as ordered (key, value) pairs."""
    pieces = [p.strip() for p in split_top_level(text, ",;")]
    pairs = [parse_assignment(p, origin) for p in pieces if p]
    seen: set[str] = set()
    for key, _value in pairs:
        if key == "profile":
            raise SettingsError("profile: the side's profile is chosen by its name, not as a setting", origin)
        if key in seen:
            raise SettingsError(f"{key}: given twice", origin)
        seen.add(key)
    return tuple(pairs)


def check_profile(name: str, origin: str | None = None) -> str:
    """*name* when it is a profile, else a :class:`SettingsError` naming the profiles."""
    name = name.strip()
    if name in PROFILES:
        return name
    if not name:
        raise SettingsError(f"name a profile ({', '.join(PROFILES)})", origin)
    close = difflib.get_close_matches(name.lower(), PROFILES, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]}?" if close else f"; choose from {', '.join(PROFILES)}"
    raise SettingsError(f"{name!r} is not a profile{hint}", origin)


def make_side(profile: str, settings_text: str = "", origin: str | None = None) -> Side:
    """A side from a profile name and settings as typed (``budget=6000, top_k=8``)."""
    pairs = parse_settings_text(settings_text, origin)
    pieces = (p.partition("=") for p in split_top_level(settings_text, ",;") if p.strip())
    written = ", ".join(f"{key.strip()}={raw.strip()}" for key, _eq, raw in pieces)
    return Side(check_profile(profile, origin), pairs, written)


def parse_side(text: str, origin: str | None = None) -> Side:
    """``drift`` or ``drift:budget=6000,top_k=8``."""
    name, _sep, rest = text.partition(":")
    return make_side(name, rest, origin)


def _starts_side(piece: str) -> bool:
    """Whether a comma-separated piece names a side (``drift``, ``drift:x=1``), not a ``KEY=VALUE``."""
    before_equals = piece.split("=", 1)[0]
    return "=" not in piece or ":" in before_equals


def parse_sides(text: str, origin: str = "--profiles") -> tuple[Side, Side]:
    """``A,B`` as two sides; a ``KEY=VALUE`` after a comma belongs to the side before it."""
    groups: list[list[str]] = []
    for piece in (p.strip() for p in split_top_level(text)):
        if not piece:
            continue
        if _starts_side(piece):
            groups.append([piece])
        elif groups:
            groups[-1].append(piece)
        else:
            raise SettingsError(f"{piece!r} comes before any profile; write it after one, {_EXAMPLE}", origin)
    if len(groups) != 2:
        raise SettingsError(f"name exactly two sides, A,B ({_EXAMPLE}); found {len(groups)}", origin)
    a, b = (parse_side(",".join(g), f"{origin} {name}") for g, name in zip(groups, "AB", strict=True))
    return a, b


# -- running ----------------------------------------------------------------------------------


def _half(progress: ProgressFn | None, name: str, index: int) -> ProgressFn | None:
    """Progress of one side mapped onto its half of the comparison."""
    if progress is None:
        return None

    def report(stage: str, fraction: float) -> None:
        progress(f"{name}: {stage}", (index + fraction) / 2)

    return report


def _relabel(lines: tuple[str, ...], names: tuple[str, str]) -> tuple[str, ...]:
    """The context diff with its file lines naming the sides instead of baseline/current."""
    if len(lines) < 2 or (lines[0], lines[1]) != ("--- baseline", "+++ current"):
        return lines
    return (f"--- {names[0]}", f"+++ {names[1]}", *lines[2:])


def compare_task(
    project: Project,
    feature: Feature,
    task: Task,
    a: Settings,
    b: Settings,
    *,
    exact: bool = True,
    cancel: threading.Event | None = None,
    progress: ProgressFn | None = None,
    names: tuple[str, str] = ("A", "B"),
) -> TraceDiff:
    """Assemble *task* with *a* (the diff's baseline) and *b* (its current run) and diff them.

    The diff counts both runs in B's decision tokenizer; when A was assembled without
    counts in it (``exact=False`` and B decides with an exact tokenizer), A is counted
    again exactly, so every figure of the diff is in one unit.
    """

    def run(index: int, settings: Settings, exact: bool, progress: ProgressFn | None) -> Trace:
        try:
            return assemble_task(project, feature, task, settings, exact=exact, cancel=cancel, progress=progress)
        except SettingsError as exc:  # a profile refusing its settings: say which side
            raise SettingsError(f"side {'AB'[index]}: {exc}") from exc

    baseline = run(0, a, exact, _half(progress, names[0], 0))
    current = run(1, b, exact, _half(progress, names[1], 1))
    if baseline.context_tokens.get(current.tokenizer) is None:
        baseline = run(0, a, True, None)
    diff = diff_traces(baseline, current)
    return dataclasses.replace(diff, context_diff=_relabel(diff.context_diff, names))


# -- reading a side's run ----------------------------------------------------------------------


def decision_tokens(trace: Trace) -> int:
    """The context's size in the run's own decision tokenizer (the heuristic if not measured)."""
    value = trace.context_tokens.get(trace.tokenizer)
    return trace.context_tokens.heuristic if value is None else value


def overshoot(trace: Trace) -> int:
    """Tokens over the budget in the run's decision tokenizer (0 when within it)."""
    return max(0, decision_tokens(trace) - trace.budget)


def run_summary(trace: Trace) -> str:
    """``1,836 of 4,000 heuristic tokens (45.9%), within budget`` / ``..., over budget by 120``."""
    used = decision_tokens(trace)
    share = f" ({100 * used / trace.budget:.1f}%)" if trace.budget else ""
    over = overshoot(trace)
    verdict = f"over budget by {over:,}" if over else "within budget"
    return f"{used:,} of {trace.budget:,} {trace.tokenizer} tokens{share}, {verdict}"


# -- text -----------------------------------------------------------------------------------------


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows as aligned columns: the first left-aligned, the others right-aligned."""
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    cells = ([r[0].ljust(widths[0]), *(v.rjust(w) for v, w in zip(r[1:], widths[1:], strict=True))] for r in rows)
    return ["  ".join(c).rstrip() for c in cells]


def _section_rows(diff: TraceDiff) -> list[list[str]]:
    def cell(value: int | None) -> str:
        return "\u2014" if value is None else f"{value:,}"

    rows = [["Section", "A budget", "A tokens", "B budget", "B tokens", "\u0394"]]
    for s in diff.sections:
        before, after = f"{s.tokens_before:,}", f"{s.tokens_after:,}"
        rows.append([s.title, cell(s.budget_before), before, cell(s.budget_after), after, signed(s.delta)])
    b, c = diff.baseline, diff.current
    whole = [f"{diff.context_tokens_before:,}", f"{c.budget:,}", f"{diff.context_tokens_after:,}"]
    rows.append(["Whole context", f"{b.budget:,}", *whole, signed(diff.context_delta)])
    return rows


def _change_lines(change: ItemChange) -> list[str]:
    kind = kind_word(change.kind)
    status = fate_arrow(change.status_before, change.status_after)
    tokens = f"{change.tokens_before:,} \u2192 {change.tokens_after:,} tokens"
    return [
        f"  {change.change:<7} {change.label} ({kind}): {status}, {tokens}",
        f"          A: {change.reason_before or '(no such candidate in A)'}",
        f"          B: {change.reason_after or '(no such candidate in B)'}",
    ]


def _items_text(diff: TraceDiff, every: bool) -> list[str]:
    if not diff.items:
        return ["No candidate's fate differs."]
    out = [f"Candidates whose fate differs ({len(diff.items)}):"]
    for change in CHANGES:
        group = diff.changed(change)
        if group:
            out.append(f" {change} \u2014 {SIDE_MEANINGS[change]} ({len(group)})")
            # A long group shows its first few (as folded lists do), unless every one is asked for.
            shown = group if every or len(group) <= FOLD_SHOWN + 1 else group[:FOLD_SHOWN]
            out += [line for c in shown for line in _change_lines(c)]
            if len(shown) < len(group):
                out.append(f"  ... and {len(group) - len(shown):,} more (-v for all)")
    return out


def _diff_text(diff: TraceDiff) -> list[str]:
    if diff.context_diff:
        return ["Context diff (A \u2192 B):", *diff.context_diff]
    if diff.baseline.context != diff.current.context:
        return ["The contexts differ only in line endings or other line separators."]
    return ["The two contexts are the same."]


def _sides_text(diff: TraceDiff, a: Side, b: Side) -> list[str]:
    width = max(len(a.label), len(b.label))
    out = [
        f"A  {a.label.ljust(width)}  {run_summary(diff.baseline)}",
        f"B  {b.label.ljust(width)}  {run_summary(diff.current)}",
    ]
    if diff.settings:
        changed = ", ".join(f"{s.key} {setting_text(s.before)} \u2192 {setting_text(s.after)}" for s in diff.settings)
        out.append(f"Settings that differ (A \u2192 B): {changed}")
    else:
        out.append("Both sides run with the same settings.")
    return out


def compare_text(diff: TraceDiff, a: Side, b: Side, *, every: bool = False) -> str:
    """The comparison for a terminal: both runs against their budgets, sections, candidates, diff.

    A long group of candidates shows its first few; *every* shows them all.
    """
    t = diff.current
    out = [f"{t.task_id} ({t.feature}): {t.task_title}", *_sides_text(diff, a, b), ""]
    out += [f"Sections ({diff.tokenizer} tokens):", *_table(_section_rows(diff)), ""]
    out += [*_items_text(diff, every), "", *_diff_text(diff)]
    return "\n".join(out) + "\n"


# -- Markdown and JSON ----------------------------------------------------------------------------


def compare_markdown(diff: TraceDiff, a: Side, b: Side) -> str:
    """The what-if Markdown, titled as a comparison: A is its baseline ("before"), B its current run."""
    body = diff_markdown(diff)
    if body.startswith("## "):
        body = body.split("\n", 1)[1].lstrip("\n")
    legend = [
        f"## Compare {md_escape(diff.current.task_id)}: A `{a.label}` vs B `{b.label}`",
        "",
        f"- **A** (the baseline, *before*): `{a.label}` \u2014 {md_escape(run_summary(diff.baseline))}",
        f"- **B** (the current run, *after*): `{b.label}` \u2014 {md_escape(run_summary(diff.current))}",
        "",
    ]
    return "\n".join(legend) + "\n" + body


def _side_json(side: Side, trace: Trace) -> dict[str, Any]:
    return {
        "label": side.label,
        "profile": side.profile,
        "settings": side.written,
        "tokenizer": trace.tokenizer,
        "budget": trace.budget,
        "context_tokens": decision_tokens(trace),
        "overshoot": overshoot(trace),
    }


def compare_to_json(diff: TraceDiff, a: Side, b: Side) -> dict[str, Any]:
    """:func:`~ctxviewer.engine.analysis.whatif.diff_to_json` with both sides (A is ``baseline``, B ``current``)."""
    return {"sides": {"A": _side_json(a, diff.baseline), "B": _side_json(b, diff.current)}, **diff_to_json(diff)}

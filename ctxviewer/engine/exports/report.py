"""Exports of one trace: the context as Markdown, the trace as JSON, a standalone HTML report.

With a what-if diff the JSON gains a ``whatif`` key and the HTML report a section; the Markdown
export stays exactly the context (the worker's input), the diff's own being ``whatif-md``.  The
HTML report is one file with no network (CSS and SVG inline, no scripts), for light and dark
mode, deterministic for a trace, every string from the trace HTML-escaped.  See docs/cli.md.
"""

from __future__ import annotations

import html
import io
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name

from ctxviewer import __version__
from ctxviewer.engine.analysis import upstream_items as nine
from ctxviewer.engine.analysis.whatif import (
    TraceDiff,
    arrow,
    diff_markdown,
    diff_to_json,
    kind_word,
    setting_text,
    summary,
)
from ctxviewer.engine.files.writing import atomic_write
from ctxviewer.engine.profiles.zerg.profile import SWITCHES, VERSIONS
from ctxviewer.engine.tokens.counting import CL100K, HEURISTIC, HEURISTIC_RULE, O200K, TokenCounts
from ctxviewer.engine.trace.model import (
    REACHED_LABELS,
    RULE_FILE,
    SPEC_PARAGRAPH,
    Item,
    Section,
    Trace,
    fate_label,
    step_label,
    trace_to_json,
)

FORMATS = ("markdown", "json", "html", "whatif-md")
#: Formats that render a what-if diff and so cannot be written without one.
DIFF_FORMATS = ("whatif-md",)
SUFFIXES = {"markdown": ".md", "json": ".json", "html": ".html", "whatif-md": ".whatif.md"}
_BY_SUFFIX = {".md": "markdown", ".markdown": "markdown", ".json": "json", ".html": "html"}
_BY_SUFFIX[".htm"] = "html"
#: Suffixes of more than one dot, checked before the last suffix alone.
_BY_LONG_SUFFIX = {".whatif.md": "whatif-md"}
_MINUS, _DASH = "\u2212", "\u2013"
_W, _LW = 720, 240  # SVG drawing width, and the width of the label column in bar rows


# -- the formats --------------------------------------------------------------------------


def context_markdown(trace: Trace) -> str:
    """The assembled context exactly as the task received it, nothing added."""
    return trace.context


def trace_json_text(trace: Trace, diff: TraceDiff | None = None, prompt: Mapping[str, Any] | None = None) -> str:
    """The trace as pretty JSON, the same text ``ctxviewer assemble --format json`` prints.

    With *diff*, the what-if against the pinned baseline is added under ``whatif``
    (:func:`~ctxviewer.engine.analysis.whatif.diff_to_json`); with *prompt* (the worker's prompt as
    a mapping, see :func:`html_report`), it is added under ``worker_prompt``.  The trace keys are
    unchanged, so the file still reads back with ``trace_from_json``.
    """
    data = trace_to_json(trace)
    if diff is not None:
        data["whatif"] = diff_to_json(diff)
    if prompt is not None:
        data["worker_prompt"] = dict(prompt)
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def html_report(
    trace: Trace,
    diff: TraceDiff | None = None,
    prompt: Mapping[str, Any] | None = None,
    suggestions: _Suggestions = None,
) -> str:
    """A self-contained HTML page showing what the task got and why (no network needed).

    With *diff*, a "What-if against the pinned baseline" section follows the header.
    *prompt* is the worker's whole prompt for the task, as
    :meth:`~ctxviewer.engine.worker.prompt.WorkerPrompt.to_json` gives it (a plain mapping:
    the exports do not import the upstream package); with it, a "The worker's prompt" section
    follows the context's parts.  *suggestions* maps a left-out candidate's id to the smallest
    change that brings it in, as :func:`~ctxviewer.engine.runs.pairs.suggestion_entry` gives it;
    with them, a "What would get it in?" section follows the rule files.
    """
    parts: list[Callable[[Trace], str]] = [_header, _alerts, _upstream, _worker_part]
    if diff is not None:
        parts.append(lambda _trace: _whatif(diff))
    parts += [
        _token_shares,
        _spec_table,
        _rules_table,
    ]
    if suggestions is not None:
        parts.append(lambda _trace: _suggestions(_trace, suggestions))
    parts += [
        _nine_sections,
        _compact_mode,
        _computed_entries,
        _trimming,
        _tracker,
        _window,
        _keywords,
        _signals,
        _settings,
        _context,
    ]
    if prompt is not None:
        parts.append(lambda _trace: _prompt(prompt))
    body = "\n".join(filter(None, (part(trace) for part in parts)))
    title = _e(f"{_project_name(trace)} · {trace.task_id} · ctxviewer report")
    css = _CSS + (_WHATIF_CSS if diff is not None else "")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f"<title>{title}</title>\n<style>\n{css}{_pygments_css()}</style>\n</head>\n"
        f"<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    )


_Prompt = Mapping[str, Any] | None
_Suggestions = Mapping[str, Mapping[str, Any]] | None


def whatif_markdown(diff: TraceDiff | None) -> str:
    """The ``whatif-md`` format: the diff's Markdown report (it needs a diff)."""
    if diff is None:
        raise ValueError(
            "the whatif-md format reports a what-if diff, and there is none: "
            "pin a baseline run and pass the diff against it"
        )
    return diff_markdown(diff)


_RENDERERS: dict[str, Callable[[Trace, TraceDiff | None, _Prompt, _Suggestions], str]] = {
    # the worker's input: never anything added
    "markdown": lambda trace, _diff, _prompt, _suggestions: context_markdown(trace),
    "json": lambda trace, diff, prompt, _suggestions: trace_json_text(trace, diff, prompt),
    "html": html_report,
    "whatif-md": lambda _trace, diff, _prompt, _suggestions: whatif_markdown(diff),
}


def render(
    trace: Trace, fmt: str, diff: TraceDiff | None = None, prompt: _Prompt = None, suggestions: _Suggestions = None
) -> str:
    """The trace rendered in *fmt*, one of :data:`FORMATS`.

    *diff* is the what-if of *trace* against a pinned baseline: JSON and HTML include it,
    ``markdown`` ignores it (it is exactly the context), ``whatif-md`` needs it.  *prompt*
    (the worker's prompt as a mapping, see :func:`html_report`) goes into the HTML report and the JSON;
    *suggestions* (see :func:`html_report`) into the HTML report.
    """
    renderer = _RENDERERS.get(fmt)
    if renderer is None:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return renderer(trace, diff, prompt, suggestions)


def format_for_path(path: str | os.PathLike[str]) -> str:
    """The export format a file name asks for, from its suffix (case-insensitive)."""
    name = Path(path).name.lower()
    for long_suffix, long_fmt in _BY_LONG_SUFFIX.items():
        if name.endswith(long_suffix) and len(name) > len(long_suffix):
            return long_fmt
    suffix = Path(path).suffix.lower()
    fmt = _BY_SUFFIX.get(suffix)
    if fmt is None:
        raise ValueError(
            f"cannot tell the export format of {os.fspath(path)!r} from its suffix "
            f"{suffix or '(none)'!r}; use one of {', '.join([*_BY_SUFFIX, *_BY_LONG_SUFFIX])}"
        )
    return fmt


def export(
    trace: Trace,
    path: str | os.PathLike[str],
    fmt: str | None = None,
    diff: TraceDiff | None = None,
    prompt: _Prompt = None,
    suggestions: _Suggestions = None,
) -> str:
    """Render *trace* (and *diff*, see :func:`render`) and write it atomically to *path*; returns the format used.

    *fmt* defaults to the one the suffix names.  Raises ``ValueError`` for an unknown
    format or suffix, or ``whatif-md`` without a diff (nothing is written), and
    ``WriteError`` when the file cannot be written (the old file, if any, is left intact).
    """
    used = format_for_path(path) if fmt is None else fmt
    atomic_write(path, render(trace, used, diff, prompt, suggestions))
    return used


# -- small helpers ----------------------------------------------------------------------


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _n(value: int | None, none: str = "n/a") -> str:
    return none if value is None else f"{value:,}"


def _signed(delta: int | None) -> str:
    """``+12`` / ``-30`` (with a true minus sign) / ``0``; ``n/a`` when there is no count."""
    if delta is None:
        return "n/a"
    return f"+{delta:,}" if delta > 0 else f"{_MINUS}{-delta:,}" if delta < 0 else "0"


def _decision(counts: TokenCounts, tokenizer: str) -> int:
    """The count by the decision tokenizer, or the heuristic when it was not measured."""
    value = counts.get(tokenizer)
    return counts.heuristic if value is None else value


def _project_name(trace: Trace) -> str:
    return re.split(r"[\\/]", trace.project.rstrip("\\/"))[-1] or trace.project


def _anchor(name: str) -> str:
    return "sec-" + re.sub(r"[^A-Za-z0-9_-]", "-", name)


class _Raw(str):
    """A table cell that is already HTML (every other cell is escaped)."""


def _status(status: str) -> _Raw:
    return _Raw(f'<span class="st st-{_e(status)}">{_e(fate_label(status))}</span>')


def _table(headers: str, rows: Iterable[Sequence[object]], nums: Iterable[int] = ()) -> str:
    """A table; *headers* are ``|``-separated, columns in *nums* are right-aligned numbers."""
    numeric = set(nums)

    def cell(tag: str, i: int, value: object) -> str:
        text = value if isinstance(value, _Raw) else _e("" if value is None else value)
        cls = ' class="num"' if i in numeric else ""
        return f"<{tag}{cls}>{text}</{tag}>"

    head = "".join(cell("th", i, h) for i, h in enumerate(headers.split("|")))
    body = "".join("<tr>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>\n" for row in rows)
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>"


def _facts(pairs: Iterable[tuple[str, object]]) -> str:
    return '<dl class="facts">' + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in pairs)


def _part(anchor: str, title: str, *body: str) -> str:
    return f'<section id="{anchor}">\n<h2>{_e(title)}</h2>\n' + "\n".join(body) + "\n</section>"


def _svg(height: int, label: str, body: Iterable[str]) -> str:
    return (
        f'<svg class="chart" viewBox="0 0 {_W} {height}" width="100%" role="img" '
        f'aria-label="{_e(label)}"><title>{_e(label)}</title>{"".join(body)}</svg>'
    )


def _rect(x: float, y: float, w: float, h: float, cls: str, tip: str = "") -> str:
    title = f"<title>{_e(tip)}</title>" if tip else ""
    box = f'x="{x:.1f}" y="{y:.1f}" width="{max(w, 0.0):.1f}" height="{h:.1f}"'
    return f'<rect class="{cls}" {box}>{title}</rect>'


def _text(x: float, y: float, text: str, cls: str = "lbl") -> str:
    return f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}">{_e(text)}</text>'


def _vline(x: float, height: float) -> str:
    return f'<line class="mark" x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{height:.1f}"/>'


# -- report parts, in page order --------------------------------------------------------


def _header(trace: Trace) -> str:
    facts = _facts(
        [
            ("Feature", trace.feature),
            ("Task", f"{trace.task_id} — {trace.task_title}"),
            ("Profile", trace.profile),
            *([("Upstream version", f"{trace.upstream}: {trace.upstream_reason}")] if trace.upstream else []),
            ("Decision tokenizer", trace.tokenizer),
            ("Budget", f"{trace.budget:,} tokens, of which {trace.buffer:,} buffer"),
            ("Context", f"{_decision(trace.context_tokens, trace.tokenizer):,} tokens"),
        ]
    )
    return (
        f"<header>\n<h1>{_e(_project_name(trace))}</h1>\n{facts}</dl>\n"
        f'<p class="muted">Generated by ctxviewer {_e(__version__)} '
        f"(trace schema {_e(trace.schema_version)}).</p>\n</header>"
    )


def _alerts(trace: Trace) -> str:
    items = [
        f'<li class="error"><strong>Error</strong> ({_e(err.stage)}, {_e(err.kind)}): {_e(err.one_line())}</li>'
        for err in trace.errors
    ]
    items += [f'<li class="warning"><strong>Warning</strong>: {_e(w)}</li>' for w in trace.warnings]
    if not items:
        return ""
    return _part("alerts", "Errors and warnings", '<ul class="alerts">' + "".join(items) + "</ul>")


def _share_chart(trace: Trace) -> str:
    """The stacked bar of all sections against the budget, then one bar per section."""
    used = [(s, _decision(s.tokens, trace.tokenizer)) for s in trace.sections]
    total, budget, buffer = sum(t for _, t in used), trace.budget, trace.buffer
    k = _W / max(budget, total, 1)
    body = [_rect(0, 4, budget * k, 26, "track", f"budget {budget:,}")]
    body.append(_rect((budget - buffer) * k, 4, buffer * k, 26, "buffer", f"buffer {buffer:,}"))
    x = 0.0
    for i, (sec, tokens) in enumerate(used):
        body.append(_rect(x, 4, tokens * k, 26, f"c{i % 6}", f"{sec.title}: {tokens:,}"))
        x += tokens * k
    body += [_vline(budget * k, 34), _text(0, 48, f"all sections: {total:,} of {budget:,}")]
    body.append(_text(_W, 48, f"buffer ({buffer:,}) at the end of the budget", "lbl end"))
    y = 62
    for i, (sec, tokens) in enumerate(used):
        own = trace.section_budgets.get(sec.name, sec.budget)
        fill = min(tokens / own, 1.0) if own > 0 else float(tokens > 0)
        cls = f"c{i % 6}" + (" over" if tokens > own else "")
        body += [_text(0, y + 13, f"{sec.title}: {tokens:,} / {own:,}")]
        body += [_rect(_LW, y, _W - _LW, 18, "track"), _rect(_LW, y, (_W - _LW) * fill, 18, cls)]
        y += 26
    return _svg(y + 4, f"Token shares by the {trace.tokenizer} tokenizer", body)


def _count_cells(counts: TokenCounts) -> list[object]:
    """Estimate, the two exact counts, and each exact count's difference from the estimate."""
    exact = (counts.cl100k_base, counts.o200k_base)
    diffs = [_signed(None if c is None else c - counts.heuristic) for c in exact]
    return [_n(counts.heuristic), *(_n(c) for c in exact), *diffs]


def _token_shares(trace: Trace) -> str:
    # A version that counts with another estimate than the heuristic (round(len / 4)) gets a
    # column of its own count beside the heuristic; every other report keeps its columns.
    own = [trace.own_count] if trace.own_estimate not in (None, HEURISTIC_RULE) else []
    rows: list[list[object]] = []
    for sec in trace.sections:
        label = _e(f"{sec.title} ({sec.name})")
        name = _Raw(f'<a href="#{_anchor(sec.name)}">{label}</a>' if sec.span else label)
        budget = _n(trace.section_budgets.get(sec.name, sec.budget))
        mine = [_n(f(sec.tokens), "") for f in own]
        rows.append([name, budget, *mine, *_count_cells(sec.tokens), _status(sec.status), sec.reason])
    total = [_Raw("<strong>Total context</strong>"), _n(trace.budget)]
    mine = [_n(f(trace.context_tokens), "") for f in own]
    rows.append([*total, *mine, *_count_cells(trace.context_tokens), "", f"by {trace.tokenizer}"])
    headers = "Section|Budget|" + "".join(f"Upstream's own ({trace.own_estimate})|" for _ in own)
    headers += f"Estimate ({HEURISTIC})|{CL100K}|{O200K}|{CL100K} {_MINUS} estimate"
    headers += f"|{O200K} {_MINUS} estimate|Status|Reason"
    return _part("tokens", "Token shares", _share_chart(trace), _table(headers, rows, range(1, 7 + len(own))))


def _reached(item: Item) -> str:
    """Whether the candidate reached the worker, and how, in a cell."""
    if not item.reached:
        return ""
    label = REACHED_LABELS.get(item.reached, item.reached)
    return f"{label}: {item.reached_how}" if item.reached_how else label


def _worker_part(trace: Trace) -> str:
    """What the task's worker session starts with: a line, then every block."""
    worker = trace.worker
    if worker is None:
        return ""
    rows = []
    for b in worker.blocks:
        loaded = "stated" if b.stated is not None else ("yes" if b.loaded else "no")
        exact = "" if b.stated is not None else _n(b.tokens.cl100k_base, "")
        rows.append([b.title, b.load.replace("_", " "), loaded, _n(b.size), exact, b.note])
    where = worker.folder or "the project root"
    head = (
        f"<p>{_e(worker.summary()[0].upper() + worker.summary()[1:])}. The session runs in {_e(where)} "
        f"({_e(worker.folder_reason)}). The plugin's context above reaches the worker only through a task's "
        "design-time context (docs/worker-window.md).</p>"
    )
    table = _table("Block|Load|Loaded|Tokens|cl100k|Note", rows, (3, 4))
    return _part("worker", "What the worker received", head, table)


def _spec_table(trace: Trace) -> str:
    rows = []
    for it in trace.items_of(SPEC_PARAGRAPH):
        lines = f"{it.line_start}{_DASH}{it.line_end}" if it.line_start is not None else ""
        where = [_n(it.rank, ""), it.source, lines, _n(it.score, "")]
        tokens = _n(_decision(it.tokens, trace.tokenizer))
        rows.append([*where, ", ".join(it.matched_keywords), tokens, _status(it.status), _reached(it), it.reason])
    if not rows:
        return _part("spec", "Spec paragraphs", "<p>No spec paragraphs were considered.</p>")
    headers = "Rank|Source|Lines|Score|Matched keywords|Tokens|Status|Reached worker|Reason"
    return _part("spec", "Spec paragraphs", _table(headers, rows, (0, 2, 3, 5)))


def _rules_table(trace: Trace) -> str:
    rows = []
    for it in trace.items_of(RULE_FILE):
        d = it.details
        matched = ", ".join(f"{m.get('file')} ({m.get('by')})" for m in d.get("matched_by") or [])
        room = ""
        if isinstance(d.get("needed"), int):
            room = f"{d['needed']:,} / {_n(d.get('left'))} {d.get('unit', '')}".rstrip()
        rows.append([it.source, d.get("trigger", ""), matched, _status(it.status), _reached(it), room, it.reason])
    if not rows:
        return _part("rules", "Security rules", "<p>No security rule files were considered.</p>")
    headers = "Source|Trigger|Matched by|Status|Reached worker|Needed / left|Reason"
    return _part("rules", "Security rules", _table(headers, rows, (5,)))


def _suggestions(trace: Trace, suggestions: Mapping[str, Mapping[str, Any]]) -> str:
    """Each left-out candidate worked out: the smallest change of one setting, or of two together,
    that brings it in (as ``--set`` takes it), or that none does."""
    rows = []
    for it in trace.items:
        entry = suggestions.get(it.id)
        if entry is None:
            continue
        changes = entry.get("changes") or []
        change = " ".join(f"--set {c['set']}" for c in changes) or "none: no one setting, nor any two together"
        size = "" if entry.get("size") is None else f"{entry['size'] * 100:.1f} %"
        then = _status(entry["status"]) if entry.get("status") else ""
        if entry.get("outside_range"):
            change += " (outside the real system's budget range: a what-if only)"
        out, into = ", ".join(entry.get("pushes_out") or []), ", ".join(entry.get("brings_in") or [])
        rows.append([it.id, _status(it.status), change, size, then, out, into])
    title = "What would get it in?"
    if not rows:
        return _part("suggest", title, "<p>No left-out candidate was worked out.</p>")
    headers = "Candidate|Now|Smallest change|Size|Then|Pushes out|Brings in"
    note = (
        "<p>The smallest change of one setting, or of two together when one is not enough, that brings "
        "each candidate worked out into the context (sizes: docs/sensitivity.md).</p>"
    )
    return _part("suggest", title, note, _table(headers, rows, (3,)))


def _trimming(trace: Trace) -> str:
    steps = trace.trim_steps
    if not steps:
        return _part("trimming", "Trimming steps", "<p>No trimming was needed.</p>")
    rows = []
    for s in steps:
        change = f"{s.tokens_before:,} → {s.tokens_after:,}"
        delta = _signed(s.tokens_after - s.tokens_before)
        target = trace.step_target(s)
        rows.append([s.order, s.section.replace("_", " "), step_label(s.action), target, s.description, change, delta])
    k = (_W - _LW) / max(max(max(s.tokens_before, s.tokens_after) for s in steps), 1)
    body = []
    for i, s in enumerate(steps):
        y, (low, high) = 4 + i * 26, sorted((s.tokens_after, s.tokens_before))
        body.append(_text(0, y + 13, f"#{s.order} {rows[i][3] or rows[i][2]}: {rows[i][-1]}"))
        body.append(_rect(_LW, y, low * k, 18, "kept", f"after {s.tokens_after:,}"))
        body.append(_rect(_LW + low * k, y, (high - low) * k, 18, "cut", f"{rows[i][-1]}"))
    chart = _svg(8 + len(steps) * 26, "Tokens before and after each trimming step", body)
    headers = "#|Section|Action|Target|Description|Tokens before → after|Delta"
    return _part("trimming", "Trimming steps", chart, _table(headers, rows, (0, 5, 6)))


def _tracker(trace: Trace) -> str:
    t = trace.tracker
    facts = _facts(
        [
            ("Estimated tokens", _n(t.estimated_tokens)),
            ("Max tokens", _n(t.max_tokens)),
            ("Usage", f"{t.usage_percent:.2f}%"),
            ("Threshold", f"{t.threshold_percent:g}%"),
            ("Over threshold", "yes" if t.is_over_threshold else "no"),
            ("Budget for task", _n(t.budget_for_task)),
        ]
    )
    use = min(max(t.usage_percent, 0.0), 100.0) / 100 * _W
    mark = min(max(t.threshold_percent, 0.0), 100.0) / 100 * _W
    fill = _rect(0, 4, use, 20, "over" if t.is_over_threshold else "c0", f"{t.usage_percent:.2f}%")
    label = _text(min(mark + 4, _W - 110), 40, f"threshold {t.threshold_percent:g}%")
    gauge = [_rect(0, 4, _W, 20, "track"), fill, _vline(mark, 28), label]
    chart = _svg(44, f"Tracker usage {t.usage_percent:.2f}% of {t.threshold_percent:g}%", gauge)
    rows = [[f.path, _n(f.size), _n(f.tokens), f.note] for f in t.files]
    files = _table("File|Size (bytes)|Tokens|Note", rows, (1, 2)) if rows else ""
    return _part("tracker", "Tracker", facts + "</dl>", chart, files or "<p>No files counted.</p>")


def _keywords(trace: Trace) -> str:
    rows = [[k.word, ", ".join(k.sources)] for k in trace.keywords]
    table = _table("Keyword|Sources", rows) if rows else "<p>The task has no keywords.</p>"
    return _part("keywords", "Keywords", table)


def _upstream(trace: Trace) -> str:
    """Which upstream version ran and why; for the nine-section versions, the switch variables."""
    if not trace.upstream:
        return ""
    chosen = trace.settings.get("upstream")
    pairs: list[tuple[str, object]] = [
        ("Version", trace.upstream),
        ("Profile that ran", trace.profile),
        ("Why", trace.upstream_reason or "n/a"),
    ]
    if chosen is not None:
        pairs.append(("Setting upstream", f"{chosen.value} (from {chosen.origin})"))
    body = [_facts(pairs) + "</dl>"]
    version = VERSIONS.get(trace.upstream)
    if version is not None:
        made = {i.id.removeprefix("switch:"): i for i in trace.items if i.kind == nine.SWITCH}
        rows = []
        for key, suffix in SWITCHES:
            setting = trace.settings.get(key)
            value = setting.value if setting is not None else None
            item = made.get(key)
            effect = f"{nine.section_title(item)}: {item.reason}" if item is not None else "names the token record only"
            shown = "unset" if value is None else repr(value)
            rows.append([version.env_prefix + suffix, key, shown, setting.origin if setting else "", effect])
        body.append(
            "<p>The switches: environment variables of the process that runs the plugin, unset by default "
            "as in the orchestrator's.</p>"
        )
        body.append(_table("Variable|Setting|Value|From|What it did", rows))
    return _part("upstream", "Upstream version", *body)


def _nine_sections(trace: Trace) -> str:
    """The nine-section versions' own candidates, section by section, with their facts and where the limits fell."""
    items = nine.nine_items(trace)
    if not items:
        return ""
    body = [f"<p>{_e(nine.counts_line(items))}</p>"]
    cuts = nine.cuts(trace)
    body.append("<p>Character limits: " + ("; ".join(_e(c) for c in cuts) if cuts else "none was reached") + ".</p>")
    for section, title in nine.SECTION_TITLES.items():
        rows = []
        for it in (i for i in items if i.section == section):
            facts = "; ".join(
                f"{label}: {value}" for label, value in nine.item_facts(it) if label != "Section" and "\n" not in value
            )
            rows.append(
                [
                    nine.KIND_WORDS.get(it.kind, it.kind),
                    nine.item_label(it),
                    facts,
                    _status(it.status),
                    _reached(it),
                    it.reason,
                ]
            )
        if rows:
            body.append(f"<h3>{_e(title)}</h3>")
            body.append(_table("Kind|Entry|Facts|Status|Reached worker|Reason", rows))
    return _part("nine", "Sections' candidates", *body)


def _compact_mode(trace: Trace) -> str:
    """The compact formatter's replacements and the text before and after each changed candidate."""
    if not nine.is_nine_section(trace):
        return ""
    setting = trace.settings.get("compact_mode")
    value = setting.value if setting is not None else None
    found = nine.replacements(trace)
    state = f"compact_mode is {'unset' if value is None else repr(value)}"
    if not found:
        on = value in ("1", "true")
        return _part(
            "compact", "Compact mode", f"<p>{_e(state)}: {'nothing to abbreviate' if on else 'no abbreviation'}.</p>"
        )
    rows = [[r.order, r.section, r.full, r.short, r.count, f"{r.tokens_before:,} → {r.tokens_after:,}"] for r in found]
    body = [f"<p>{_e(state)}: the joined text is abbreviated, section by section.</p>"]
    body.append(_table("#|Section|Replaced|With|Times|Tokens before → after", rows, (0, 4, 5)))
    for it in nine.compacted_items(trace):
        before = str(it.details.get("before_compact", ""))
        body.append(f"<h3>{_e(nine.section_title(it))} · {_e(nine.item_label(it))}</h3>")
        for word, text in (("before", before), ("after", it.text)):
            body.append(f'<p class="muted">{word}:</p>\n<pre class="hl">\n{_e(text)}</pre>')
    return _part("compact", "Compact mode", *body)


def _counts(value: Any) -> list[object]:
    """Estimate (upstream's), heuristic, cl100k and o200k of a prompt's ``tokens`` mapping."""
    counts = value if isinstance(value, Mapping) else {}
    return [_n(counts.get(k)) if isinstance(counts.get(k), int) else "n/a" for k in
            ("chars", "upstream_estimate", "heuristic", CL100K, O200K)]  # fmt: skip


def _prompt(prompt: Mapping[str, Any]) -> str:
    """The worker's whole prompt: its parts with their sources and counts, and the text itself."""
    error = prompt.get("error")
    pairs: list[tuple[str, object]] = [("Task", f"{prompt.get('feature', '')} / {prompt.get('task', '')}")]
    if error:
        pairs.append(("Upstream fails", str(error)))
    else:
        chars, estimate, heuristic, cl100k, o200k = _counts(prompt.get("tokens"))
        pairs.append(("Uses", str(prompt.get("uses") or "n/a")))
        pairs.append(("Size", f"{chars} characters; upstream's estimate {estimate}, heuristic {heuristic}, "
                              f"{CL100K} {cl100k}, {O200K} {o200k}"))  # fmt: skip
    body = [_facts(pairs) + "</dl>"]
    rows = []
    part_notes = []
    for part in prompt.get("parts") or ():
        if not isinstance(part, Mapping):
            continue
        span = part.get("span") or (0, 0)
        where = f"{span[0]:,}{_DASH}{span[1]:,}" if len(span) == 2 else ""
        rows.append([part.get("name", ""), part.get("source", ""), where, *_counts(part.get("tokens"))])
        if part.get("note"):  # under the table: a note is a sentence or two, too long for a cell
            part_notes.append(f"<li>{_e(part.get('name', ''))}: {_e(part['note'])}</li>")
    if rows:
        headers = f"Part|Source|Characters|Length|Upstream estimate|{HEURISTIC}|{CL100K}|{O200K}"
        body.append(_table(headers, rows, (3, 4, 5, 6, 7)))
    if part_notes:
        body.append("<ul>" + "".join(part_notes) + "</ul>")
    design = prompt.get("design_context")
    if isinstance(design, Mapping):
        stored, plugin = _counts(design.get("stored")), _counts(design.get("plugin"))
        same = "identical to" if design.get("identical") else "differs from"
        body.append(
            f"<p>The task's design-time context ({_e(stored[0])} characters, {_e(stored[3])} {CL100K}) {same} what "
            f"profile {_e(design.get('profile', ''))} assembles now ({_e(plugin[0])} characters, {_e(plugin[3])} "
            f"{CL100K}); the design step aims at about {_e(design.get('guidance_tokens', ''))} tokens.</p>"
        )
    notes = [str(n) for n in prompt.get("notes") or ()]
    if notes:
        body.append("<ul>" + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul>")
    text = prompt.get("prompt")
    if isinstance(text, str) and text:
        body.append(f'<pre class="hl">\n{_e(text)}</pre>')
    return _part("prompt", "The worker's prompt", *body)


#: The computed profile's item kinds (see ctxviewer.engine.profiles.computed), in report order.
_COMPUTED_KINDS = ("knowledge_node", "context_map_entry", "dependency", "open_question")


def _computed_entries(trace: Trace) -> str:
    """The computed profile's entries with their scores and fates, and its Context Debug record."""
    items = [i for i in trace.items if i.kind in _COMPUTED_KINDS]
    if not items and not trace.debug:
        return ""
    rows = []
    for it in items:
        label = it.details.get("summary") or it.details.get("component") or it.id.split(":", 1)[-1]
        rows.append(
            [
                it.section.replace("_", " "),
                label,
                _n(it.score, ""),
                _n(it.rank, ""),
                _status(it.status),
                _reached(it),
                it.reason,
            ]
        )
    table = (
        _table("Section|Entry|Score|Rank|Status|Reached worker|Reason", rows, (2, 3)) if rows else "<p>No entries.</p>"
    )
    debug = f"<pre>{_e(trace.debug)}</pre>" if trace.debug else ""
    return _part("computed", "Computed context: entries and Context Debug", table, debug)


def _signals(trace: Trace) -> str:
    s = trace.signals
    rows = [[g.kind, g.value, "; ".join(g.sources)] for g in (*s.keywords, *s.domains, *s.files, *s.task)]
    stop = ", ".join(g.value for g in s.stopwords)
    table = _table("Kind|Signal|From", rows) if rows else "<p>The task gives no signals.</p>"
    return _part("signals", "Signals", table, f"<p>Stopwords removed: {_e(stop)}</p>" if stop else "")


def _window(trace: Trace) -> str:
    w = trace.window
    if w is None:
        return ""
    rows = [
        [
            b.title,
            _n(b.tokens),
            _n(b.estimate),
            _n(b.exact),
            f"{100 * b.tokens / max(w.window, 1):.1f}%",
            b.source,
            b.note,
        ]
        for b in w.blocks
    ]
    used = w.used_without_reserve
    marks = ", ".join(f"{name} {pct:g}% ({w.threshold_tokens(pct):,})" for name, pct in w.thresholds)
    facts = _facts(
        [
            ("Window", _n(w.window)),
            ("Used without the reserve", f"{used:,} ({100 * used / max(w.window, 1):.1f}%)"),
            ("Free", _n(w.free)),
            ("Thresholds", marks),
        ]
    )
    table = _table("Block|Tokens|Estimate|Exact (cl100k)|% of window|Source|Note", rows, (1, 2, 3, 4))
    return _part("window", "The whole window", facts + "</dl>", table)


def _setting_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _settings(trace: Trace) -> str:
    rows = [[k, _setting_value(s.value), s.origin] for k, s in trace.settings.items()]
    return _part("settings", "Settings", _table("Setting|Value|Origin", rows))


# -- what-if against a pinned baseline ----------------------------------------------------

_OPEN_DIFF_LINES = 400  # a longer context diff starts folded


def _delta_cell(delta: int) -> _Raw:
    cls = "up" if delta > 0 else "down" if delta < 0 else "same"
    return _Raw(f'<span class="{cls}">{_e(_signed(delta))}</span>')


def _status_change(before: str | None, after: str | None) -> _Raw:
    if before == after:
        return _status(after) if after else _Raw("")
    b = _status(before) if before else _Raw("—")
    a = _status(after) if after else _Raw("—")
    return _Raw(f"{b} → {a}")


def _diff_line(line: str) -> str:
    if line.startswith(("+++ ", "--- ")):
        cls = "meta"
    elif line.startswith("@@"):
        cls = "hunk"
    elif line.startswith("+"):
        cls = "add"
    elif line.startswith("-"):
        cls = "del"
    elif line.startswith(" "):
        cls = "ctx"
    else:
        cls = "more"
    return f'<span class="{cls}">{_e(line)}\n</span>'  # block spans: full-width colour, copyable lines


def _whatif(diff: TraceDiff) -> str:
    b, c = diff.baseline, diff.current
    body = []
    if not diff.same_task:
        body.append(
            '<ul class="alerts"><li class="warning"><strong>Different tasks</strong>: the baseline is '
            f"{_e(b.task_id)} ({_e(b.feature)}), this report is {_e(c.task_id)} ({_e(c.feature)}); "
            "the comparison is computed anyway, read it with care.</li></ul>"
        )
    body.append(f'<p class="summary">{_e(summary(diff))}</p>')
    if diff.unchanged:
        body.append("<p>No change: settings, sections, candidates and the context are the same as the baseline's.</p>")
        return _part("whatif", "What-if against the pinned baseline", *body)

    if diff.settings:
        rows = [[s.key, setting_text(s.before), setting_text(s.after)] for s in diff.settings]
        body += ["<h3>Settings changed</h3>", _table("Setting|Baseline|Current", rows)]
    else:
        body.append("<p>No setting changed.</p>")

    sec_rows: list[list[object]] = [
        [
            f"{s.title} ({s.name})",
            arrow(s.budget_before, s.budget_after),
            _n(s.tokens_before),
            _n(s.tokens_after),
            _delta_cell(s.delta),
            _status_change(s.status_before, s.status_after),
        ]
        for s in diff.sections
    ]
    total = [_Raw("<strong>Whole context</strong>"), arrow(b.budget, c.budget), _n(diff.context_tokens_before)]
    sec_rows.append([*total, _n(diff.context_tokens_after), _delta_cell(diff.context_delta), ""])
    headers = f"Section|Budget|Before ({diff.tokenizer})|After ({diff.tokenizer})|Δ|Status"
    body += ["<h3>Sections</h3>", _table(headers, sec_rows, (1, 2, 3, 4))]

    if diff.items:
        item_rows = [
            [
                _Raw(f'<span class="chg chg-{_e(i.change)}">{_e(i.change)}</span>'),
                i.label,
                kind_word(i.kind),
                _status_change(i.status_before, i.status_after),
                _n(i.tokens_before),
                _n(i.tokens_after),
                i.reason_before,
                i.reason_after,
            ]
            for i in diff.items
        ]
        headers = "Change|Candidate|Kind|Status|Tokens before|Tokens after|Reason before|Reason now"
        body += ["<h3>Candidates whose fate changed</h3>", _table(headers, item_rows, (4, 5))]
    else:
        body.append("<p>No candidate changed its fate.</p>")

    body.append("<h3>Context diff</h3>")
    if diff.context_diff:
        lines = diff.context_diff
        added = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++ "))
        removed = sum(1 for x in lines if x.startswith("-") and not x.startswith("--- "))
        opened = " open" if len(lines) <= _OPEN_DIFF_LINES else ""
        pre = '<pre class="diff">' + "".join(_diff_line(x) for x in lines) + "</pre>"
        caption = f"{len(lines):,} diff lines: {added:,} added, {removed:,} removed (baseline → current)"
        body.append(f"<details{opened}><summary>{_e(caption)}</summary>\n{pre}\n</details>")
    elif b.context != c.context:
        body.append("<p>The contexts differ only in line endings or other line separators.</p>")
    else:
        body.append("<p>The assembled context is the same as the baseline's.</p>")
    return _part("whatif", "What-if against the pinned baseline", *body)


# -- the assembled context --------------------------------------------------------------


def _highlight(text: str) -> str:
    """*text* as highlighted HTML; every character is kept (CRs, leading/trailing blanks)."""
    lexer = get_lexer_by_name("markdown", stripnl=False, ensurenl=False, handlecodeblocks=False)
    tokens = [(kind, value) for _, kind, value in lexer.get_tokens_unprocessed(text)]
    if "".join(value for _, value in tokens) != text:  # never lose text to a lexer quirk
        return _e(text)
    out = io.StringIO()
    HtmlFormatter[str](nowrap=True).format_unencoded(tokens, out)
    result = out.getvalue()  # the formatter ends the last line with "\n"; keep the text's own
    return result[:-1] if result.endswith("\n") and not text.endswith("\n") else result


def _segments(trace: Trace) -> list[tuple[Section | None, int, int]]:
    """The context cut at section spans; text between or outside them is a gap (None)."""
    out: list[tuple[Section | None, int, int]] = []
    pos, end = 0, len(trace.context)
    for sec in sorted((s for s in trace.sections if s.span), key=lambda s: s.span or (0, 0)):
        a, b = (min(max(v, 0), end) for v in sec.span or (0, 0))
        if a > pos:
            out.append((None, pos, a))
        if b > max(a, pos):
            out.append((sec, max(a, pos), b))
            pos = b
    return [*out, (None, pos, end)] if pos < end else out


def _context(trace: Trace) -> str:
    blocks = []
    for sec, a, b in _segments(trace):
        # HTML parsers drop one newline right after <pre>, so a leading newline survives.
        pre = f'<pre class="hl">\n{_highlight(trace.context[a:b])}</pre>'
        if sec is None:
            blocks.append(f'<div class="gap" title="outside any section">{pre}</div>')
            continue
        label = _e(f"{sec.title} ({sec.name}) · characters {a:,}{_DASH}{b:,}")
        blocks.append(f'<section class="ctx" id="{_anchor(sec.name)}">\n<h3>{label}</h3>\n{pre}')
        blocks[-1] += "\n</section>"
    return _part("context", "Assembled context", *blocks or ["<p>The context is empty.</p>"])


def _pygments_css() -> str:
    """Highlighting rules for light mode (default style) and dark mode (github-dark)."""

    def rules(style: str) -> str:
        formatter = HtmlFormatter[str](style=style)
        defs = str(formatter.get_style_defs(".hl"))  # type: ignore[no-untyped-call]
        return "\n".join(line for line in defs.splitlines() if line.startswith(".hl"))

    light, dark = rules("default"), rules("github-dark")
    return (
        f"@media not all and (prefers-color-scheme: dark) {{\n{light}\n}}\n"
        f"@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"
    )


_CSS = """\
:root { --fg: #1d1f23; --bg: #fff; --muted: #5f6670; --line: #d5d9de; --head: #f2f4f7;
  --ok: #1a7f37; --warn: #9a6700; --drop: #6e7781; --bad: #cf222e; --track: #eaeef2; --part: #0969da; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1;
  --line: #30363d; --head: #161b22; --ok: #3fb950; --warn: #d29922; --drop: #8b949e; --part: #58a6ff;
  --bad: #f85149; --track: #21262d; } }
body { margin: 0; color: var(--fg); background: var(--bg); line-height: 1.45;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 1.5rem; } a { color: inherit; }
h1 { margin: 0 0 .5rem; } h2 { border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
.muted { color: var(--muted); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; font-variant-numeric: tabular-nums; }
table { border-collapse: collapse; width: 100%; margin: .75rem 0; font-size: .9rem; }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; vertical-align: top; }
th { background: var(--head); text-align: left; position: sticky; top: 0; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.st { font-weight: 600; padding: 0 .35rem; border-radius: .25rem; border: 1px solid; }
.st-included { color: var(--ok); } .st-truncated { color: var(--part); }
.st-cut_for_budget { color: var(--bad); } .st-outranked { color: var(--warn); }
.st-not_candidate, .st-empty { color: var(--drop); } .st-failed { color: var(--bad); }
.alerts { padding: 0; font-weight: 500; }
.alerts li { padding: .4rem .6rem; margin: .3rem 0; border-left: .3rem solid; list-style: none; }
.alerts .error { border-color: var(--bad); } .alerts .warning { border-color: var(--warn); }
svg.chart { display: block; max-width: 100%; margin: .75rem 0; }
.chart .lbl { fill: var(--fg); font-size: 12px; } .chart .end { text-anchor: end; }
.chart .track { fill: var(--track); } .chart .mark { stroke: var(--fg); stroke-width: 2; }
.chart .buffer { fill: var(--warn); fill-opacity: .25; stroke: var(--warn); stroke-dasharray: 4 3; }
.chart .c0, .chart .kept { fill: #4f7cff; } .chart .c1 { fill: #2da44e; }
.chart .c2 { fill: #bf8700; } .chart .c3 { fill: #8250df; } .chart .c4 { fill: #1b9aaa; }
.chart .c5 { fill: #e16f24; } .chart .over { fill: var(--bad); }
.chart .cut { fill: var(--bad); fill-opacity: .55; }
pre.hl { margin: 0; padding: .6rem .8rem; overflow-x: auto; white-space: pre-wrap;
  font: .85rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
section.ctx { border: 1px solid var(--line); border-left: .3rem solid #4f7cff; margin: .5rem 0; }
section.ctx h3 { margin: 0; padding: .3rem .8rem; font-size: .85rem; background: var(--head); }
.gap pre.hl { border: 1px dashed var(--line); }
"""

_WHATIF_CSS = """\
#whatif .summary { font-weight: 500; }
#whatif .up { color: var(--ok); font-weight: 600; } #whatif .down { color: var(--bad); font-weight: 600; }
#whatif .chg { font-weight: 600; } #whatif .chg-entered, #whatif .chg-grew { color: var(--ok); }
#whatif .chg-left { color: var(--bad); } #whatif .chg-shrank { color: var(--warn); }
#whatif .chg-new, #whatif .chg-gone { color: var(--drop); }
#whatif summary { cursor: pointer; color: var(--muted); margin: .3rem 0; }
pre.diff { margin: 0; padding: .4rem 0; border: 1px solid var(--line); overflow-x: auto;
  font: .85rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre.diff span { display: block; padding: 0 .8rem; white-space: pre-wrap; min-height: 1.4em; }
pre.diff .add { background: rgba(46, 160, 67, .18); } pre.diff .del { background: rgba(248, 81, 73, .18); }
pre.diff .hunk, pre.diff .more { color: var(--muted); background: var(--head); }
pre.diff .meta { color: var(--muted); font-weight: 600; }
"""

"""The ``why`` command: every candidate of one task that mentions TEXT, with its fate and the reason
(exit 1 when none does); with ``--suggest``, for each one not in the context, the setting values
that would bring it in and the smallest change that does, of one setting or else of two together
(docs/sensitivity.md).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from ctxviewer.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FINDINGS,
    EXIT_OK,
    OUTPUT_HELP,
    REPORT_SUFFIXES,
    Subparsers,
    add_feature,
    add_project,
    add_run_options,
    add_task,
    err,
    exits,
    finding_json,
    open_project,
    output_format,
    report_trace_errors,
    run_overrides,
    versioned_json,
    wrap_long_lines,
    write_out,
)
from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.exports.terminal import one_line
from ctxviewer.engine.wording import plural


def _item_label(item: Any) -> str:
    """The candidate's file and, for a spec paragraph, its lines (``requirements.md:58``, ``:12-14``)."""
    from ctxviewer.engine.trace.model import SPEC_PARAGRAPH

    if item.kind != SPEC_PARAGRAPH or item.line_start is None:
        return str(item.source)
    lines = str(item.line_start) if item.line_end in (None, item.line_start) else f"{item.line_start}-{item.line_end}"
    return f"{item.source}:{lines}"


def _why_data(args: argparse.Namespace) -> tuple[dict[str, Any], int]:
    """Every candidate of the task that mentions TEXT, as JSON-able data; the exit code the run's errors call for."""
    from ctxviewer.engine.analysis.explain import find_candidates, keyword_sources
    from ctxviewer.engine.analysis.findings import findings_of
    from ctxviewer.engine.runs.pipeline import assemble, decision_tokenizer
    from ctxviewer.engine.trace.model import fate_label

    query = args.text.strip()
    if not query:
        raise CtxViewerError("TEXT is empty: give a word, a rule name, a file or an id to look for")
    project = open_project(args.project, run_overrides(args))
    trace = assemble(project, args.feature, args.task, exact=True)
    suggest = _suggestions(project, args, trace) if args.suggest else None
    # Bad input (a file left out) is exit 2; the pipeline's own failures are in the answer.
    code = EXIT_BAD_INPUT if report_trace_errors(trace) == EXIT_BAD_INPUT else EXIT_OK
    tokenizer = decision_tokenizer(project.settings, project)
    about: dict[str, list[dict[str, Any]]] = {}
    for finding in findings_of(trace):
        if finding.item is not None:
            about.setdefault(finding.item, []).append(finding_json(finding))
    matches = []
    for match in find_candidates(trace, query):
        item = trace.item(match.item_id)
        assert item is not None
        section = trace.section(item.section)
        matches.append(
            {
                "id": item.id,
                "kind": item.kind,
                "label": _item_label(item),
                "source": item.source,
                "lines": None if item.line_start is None else [item.line_start, item.line_end],
                "section": item.section,
                "section_title": section.title if section is not None else item.section,
                "status": item.status,
                "fate": fate_label(item.status),
                "reason": item.reason,
                "reached": item.reached,
                "reached_how": item.reached_how,
                "score": item.score,
                "rank": item.rank,
                "matched_keywords": list(item.matched_keywords),
                "tokens": item.tokens.get(tokenizer),
                "token_counts": item.tokens.to_json(),
                "found_in": list(match.found_in),
                "excerpt": match.excerpt,
                "findings": about.get(item.id, []),
            }
        )
        if suggest is not None and item.status not in ("included", "truncated"):
            matches[-1]["suggest"] = suggest(item.id)
    data = {
        "project": project.name,
        "feature": trace.feature,
        "task": trace.task_id,
        "title": trace.task_title,
        "profile": trace.profile,
        "tokenizer": tokenizer,
        "budget": trace.budget,
        "text": query,
        "keyword_sources": keyword_sources(trace, query),
        "candidates": len(trace.items),
        "worker": None if trace.worker is None else trace.worker.summary(),
        "matches": matches,
        "errors": [e.one_line() for e in trace.errors],
    }
    return data, code


def _suggestions(project: Any, args: argparse.Namespace, trace: Any) -> Any:
    """A function from an item id to its ``suggest`` entry, from one sensitivity run over the task
    (and, for a candidate no single setting brings in, one search of two settings together)."""
    from ctxviewer.engine.runs.pairs import PairSearch
    from ctxviewer.engine.runs.sensitivity import sensitivity

    feature = project.feature(args.feature)
    task = feature.task(args.task)
    overrides = run_overrides(args)
    settings = project.settings.with_overrides(overrides, "override") if overrides else project.settings
    sens = sensitivity(project, feature, task, settings, trace)
    pairs: list[PairSearch] = []  # made when a candidate first needs it

    def entry(item_id: str) -> dict[str, Any]:
        intervals = {
            axis.key: [{"from": s.lo, "to": s.hi, "status": s.status} for s in sens.including(item_id, axis.key)]
            for axis in sens.axes
        }
        change = sens.suggestion(item_id)
        if change is None:
            if not pairs:
                pairs.append(PairSearch(project, feature, task, settings, trace, sens))
            return _pair_entry(intervals, pairs[0].suggestion(item_id))
        return {
            "intervals": intervals,
            "change": {"key": change.key, "value": change.value},
            "set": change.set_text,
            "status": change.status,
            "size": round(change.size, 4),
            "outside_range": change.outside_range,
            "pushes_out": list(change.pushes_out),
            "brings_in": list(change.brings_in),
        }

    return entry


def _pair_entry(intervals: dict[str, Any], pair: Any) -> dict[str, Any]:
    """The ``suggest`` entry of a candidate no single setting brings in: ``changes`` holds the two
    settings that do together (empty when no two do)."""
    return {
        "intervals": intervals,
        "change": None,
        "set": None,
        "status": None if pair is None else pair.status,
        "size": None if pair is None else round(pair.size, 4),
        "outside_range": None if pair is None else pair.outside_range,
        "pushes_out": [] if pair is None else list(pair.pushes_out),
        "brings_in": [] if pair is None else list(pair.brings_in),
        "changes": [] if pair is None else [{"key": c.key, "value": c.value, "set": c.set_text} for c in pair.changes],
    }


def _spans_text(key: str, spans: list[dict[str, Any]]) -> str:
    def show(v: Any) -> str:
        if isinstance(v, bool) or v is None or isinstance(v, str):
            return "unset" if v is None else str(v).lower() if isinstance(v, bool) else v
        if isinstance(v, float):
            return f"{v:.4g}"
        return f"{v:,}"

    parts = [show(s["from"]) if s["from"] == s["to"] else f"{show(s['from'])}-{show(s['to'])}" for s in spans]
    return f"{key} {', '.join(parts)}"


def _suggest_lines(suggest: Mapping[str, Any]) -> list[str]:
    ranges = [_spans_text(k, v) for k, v in suggest["intervals"].items() if v]
    out = [f"   in at: {one_line('; '.join(ranges))}" if ranges else "   no value of any one setting brings it in"]
    changes = suggest.get("changes")
    if changes == []:
        out[-1] += ", nor of any two together"
    setting = None
    if suggest["set"] is not None:
        setting = f"smallest change: --set {one_line(suggest['set'])}"
    elif changes:
        setting = "smallest change of two settings: " + " ".join(f"--set {one_line(c['set'])}" for c in changes)
    if setting is not None:
        effect = f"-> {suggest['status']}"
        if suggest["pushes_out"]:
            effect += f"; pushes out {one_line(', '.join(suggest['pushes_out']))}"
        if suggest["brings_in"]:
            effect += f"; brings in {one_line(', '.join(suggest['brings_in']))}"
        if suggest["outside_range"]:
            effect += "; outside the budgets the real system's config accepts, a what-if only"
        out.append(f"   {setting} ({effect})")
    return out


def _why_text(data: Mapping[str, Any]) -> str:
    from ctxviewer.engine.analysis.whatif import kind_word
    from ctxviewer.engine.trace.model import REACHED_LABELS

    matches = data["matches"]
    where = f"{one_line(data['feature'])}/{one_line(data['task'])}"
    head = (
        f"{one_line(data['text'])!r} in {where} (profile {data['profile']}, budget {data['budget']:,}): "
        f"{len(matches)} of {plural(data['candidates'], 'candidate')} {'matches' if len(matches) == 1 else 'match'}"
    )
    out = [head]
    if data["keyword_sources"]:
        sources = data["keyword_sources"]
        shown = ", ".join(sources[:3]) + (f" and {len(sources) - 3:,} more" if len(sources) > 3 else "")
        out.append(f"it is a keyword of the task, from {one_line(shown)}")
    for n, m in enumerate(matches, start=1):
        facts = [f"{kind_word(m['kind'])} in {one_line(m['section_title'])}"]
        if m["score"] is not None:
            facts.append(f"score {m['score']}")
        if m["rank"] is not None:
            facts.append(f"rank {m['rank']}")
        if m["tokens"] is not None:
            facts.append(f"{m['tokens']:,} {data['tokenizer']} tokens")
        out += [
            "",
            f"{n}. {one_line(m['label'])}  [{m['fate']}]",
            f"   {one_line(m['reason'])}" if m["reason"] else "   (no reason recorded)",
            f"   {' · '.join(facts)} · found in {', '.join(m['found_in'])}",
        ]
        if m["matched_keywords"]:
            out.append(f"   keywords: {one_line(', '.join(m['matched_keywords']))}")
        if m["excerpt"]:
            out.append(f"   text: {one_line(m['excerpt'])}")
        if m["reached"]:
            label = REACHED_LABELS.get(m["reached"], m["reached"])
            out.append(f"   reached the worker: {label}: {one_line(m['reached_how'])}")
        for f in m["findings"]:
            out.append(f"   finding {f['code']} ({f['severity']}): {one_line(f['message'])}")
        if "suggest" in m:
            out += _suggest_lines(m["suggest"])
    if data.get("worker"):
        worker = one_line(data["worker"])
        out += ["", f"What the worker received: {worker} (ctxviewer window shows each block)."]
    return "\n".join(out) + "\n"


def cmd_why(args: argparse.Namespace) -> int:
    fmt = output_format(args, REPORT_SUFFIXES, "text")
    data, code = _why_data(args)
    if not data["matches"]:
        err(
            f"no candidate of {one_line(data['feature'])}/{one_line(data['task'])} contains "
            f"{one_line(data['text'])!r} "
            f"({plural(data['candidates'], 'candidate')} searched: text, file, id, keywords)"
        )
        if fmt == "json":  # a script still gets the (empty) answer
            write_out(versioned_json("why", data), args.output)
        return code or EXIT_FINDINGS
    write_out(versioned_json("why", data) if fmt == "json" else wrap_long_lines(_why_text(data)), args.output)
    return code


def add_parser(sub: Subparsers) -> None:
    """Add the ``why`` command's parser to *sub*."""
    p = sub.add_parser(
        "why",
        allow_abbrev=False,
        help="why was it left out? every candidate of a task that contains TEXT, with its fate and reason",
        description="Assemble one task and print every candidate (spec paragraph, rule file, computed entry) "
        "whose text, file, id or matched keywords contain TEXT (case-insensitive), with its fate, the "
        "reason, its section, score, rank and tokens, and whether it reached the worker. "
        + exits("nothing matched (one line on stderr)"),
    )
    add_project(p)
    add_feature(p)
    add_task(p)
    p.add_argument("text", metavar="TEXT", help="a word, a rule name, a file path or an item id")
    add_run_options(p)
    p.add_argument(
        "--suggest",
        action="store_true",
        help="for each match not in the context: the values of each setting (budget, shares, top_k, switches) "
        "at which it would be, holding the others, and the smallest one-setting change that brings it in "
        "(as --set KEY=VALUE; in JSON as change: {key, value}); when no one setting does, the smallest change of "
        "two together (in JSON as changes: [{key, value, set}, ...])",
    )
    p.add_argument(
        "--format", choices=("text", "json"), help="text or json (default: from the -o file's extension, else text)"
    )
    p.add_argument("-o", "--output", help=OUTPUT_HELP)
    p.set_defaults(func=cmd_why)

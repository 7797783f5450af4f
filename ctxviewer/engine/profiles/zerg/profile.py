"""Profile ``zerg-0.3.2``: the nine-section context of PyPI ``zerg-ai`` 0.3.2, byte for byte.

The sections, their shares, failures and compact mode are in docs/profiles.md#zerg-032.
:meth:`ZergRun.run` runs the stages in order: the shares (:func:`section_shares`), the
task's files, the rules (sections 1-2, :func:`mixed_languages`), the spec excerpts, the
hints (sections 4-9), then the fall-back or upstream's token record
(:func:`token_breakdown`) and compact mode (:func:`compacted`), and the layout.  Each
builder module decides; a function here turns its outcome into items and steps, so each
can be read and tested without a run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

from ctxviewer.engine.files.readlog import Scan, note_scan
from ctxviewer.engine.profiles.base import ItemDraft, ProfileResult
from ctxviewer.engine.profiles.mahabharatha import MahabharathaRun, TaskFiles, fall_back, join_sections
from ctxviewer.engine.profiles.zerg import compact, engrules, repomap, switches
from ctxviewer.engine.profiles.zerg.fates import CUT_FOR_BUDGET, LOST_TO_FAILURE, NOT_CANDIDATE, OUTRANKED
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.project.upstream import LATEST, ZERG_0_3_2
from ctxviewer.engine.signals.keywords import describe_value
from ctxviewer.engine.tokens.counting import HeuristicCounter, rounded_estimate
from ctxviewer.engine.trace.model import INCLUDED, NEWER_SYNTAX, SECURITY, SPEC, TRUNCATED, Section

ENGINEERING = "engineering_rules"
MCP = "mcp_hints"
DEPTH = "depth_guidance"
MODE = "behavioral_mode"
TDD = "tdd_enforcement"
EFFICIENCY = "efficiency_hints"
REPO_MAP = "repo_map"
#: Section names in assembly order, with their titles and shares of the budget (None: no budget).
SECTIONS: tuple[tuple[str, str, float | None], ...] = (
    (ENGINEERING, "Engineering rules", 0.10),
    (SECURITY, "Security rules", 0.10),
    (SPEC, "Spec excerpts", 0.20),
    (MCP, "MCP servers", 0.10),
    (DEPTH, "Analysis depth", 0.10),
    (MODE, "Behavioral mode", 0.10),
    (TDD, "TDD enforcement", 0.10),
    (EFFICIENCY, "Token efficiency", None),
    (REPO_MAP, "Repository symbol map", 0.10),
)
#: Each section that has a budget, with its share of the budget (``int(budget * share)``).
SHARES: Mapping[str, float] = {name: share for name, _, share in SECTIONS if share is not None}
#: Sections that receive a budget and never look at it.
IGNORED_BUDGETS = (MCP, DEPTH, MODE, TDD)


@dataclass(frozen=True)
class Upstream:
    """What differs between upstream versions of the nine-section pipeline."""

    version: str  # the value of the ``upstream`` setting
    state_dir: str  # where rules, config and state live
    env_prefix: str  # of the switch variables


ZERG = Upstream(ZERG_0_3_2, ".zerg", "ZERG_")
#: The repository's main since 2026-02-21: the same assembly, renamed folders and variables.
MAIN = Upstream(LATEST, ".mahabharatha", "MAHABHARATHA_")
#: The nine-section versions by the ``upstream`` setting's value (a trace's ``upstream``).
VERSIONS: Mapping[str, Upstream] = {v.version: v for v in (ZERG, MAIN)}
#: The settings that stand for the plugin process's environment variables.
SWITCHES: tuple[tuple[str, str], ...] = (
    ("analysis_depth", "ANALYSIS_DEPTH"),
    ("behavioral_mode", "BEHAVIORAL_MODE"),
    ("tdd_mode", "TDD_MODE"),
    ("compact_mode", "COMPACT_MODE"),
    ("worker_id", "WORKER_ID"),
)


def upstream_estimate(text: str) -> int:
    """Upstream's token estimate for its records: ``max(1, round(len / 4))``, halves to even."""
    return rounded_estimate(len(text))


def section_shares(budget: int) -> dict[str, int]:
    """Each section's budget: ``int(budget * share)``, 0 for the section upstream gives none."""
    return {name: (int(budget * share) if share is not None else 0) for name, _, share in SECTIONS}


def mixed_languages(task_files: Sequence[Any]) -> bool:
    """Whether the task touches both Python and JavaScript files (upstream then adds their rule
    files in the order of a Python set)."""
    kinds = {
        "python" if s in (".py", ".pyx", ".pyi") else "javascript"
        for f in task_files
        if isinstance(f, str)
        for s in [PurePosixPath(f).suffix.lower()]
        if s in (".py", ".pyx", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx")
    }
    return len(kinds) == 2


def token_breakdown(texts: Mapping[str, str]) -> dict[str, int]:
    """Upstream's per-component token record (:func:`upstream_estimate` of each non-empty section,
    under upstream's component names)."""
    names = {SPEC: "spec_excerpt"}  # upstream's component names where they differ from the sections'
    return {names.get(n, n): upstream_estimate(t) for n, t in texts.items() if t}


def compacted(draft: ItemDraft, new: str, where: Sequence[int]) -> None:
    """Move a placed *draft* into its section's abbreviated text *new* (``where[i]``: where the
    original's character *i* went), keeping its text before abbreviation in its details."""
    assert draft.offset is not None
    start, end = where[draft.offset], where[draft.offset + draft.kept_chars]
    draft.details = {**(draft.details or {}), "before_compact": draft.text}
    draft.text = new[start:end] + draft.text[draft.kept_chars :]
    draft.offset, draft.kept_chars = start, end - start


# -- the builders' outcomes as items and steps ---------------------------------------------------------


def item(**fields: Any) -> ItemDraft:
    """A draft of one candidate: *fields* as :class:`ItemDraft` takes them, with the rest defaulted
    (its part is its section; it keeps its whole text when included, else nothing)."""
    fields.setdefault("line_start", None)
    fields.setdefault("line_end", None)
    fields.setdefault("score", None)
    fields.setdefault("matched", ())
    fields.setdefault("rank", None)
    fields.setdefault("part", fields["section"])
    text = fields.setdefault("text", "")
    fields.setdefault("kept_chars", len(text) if fields["status"] == INCLUDED else 0)
    return ItemDraft(**fields)


def engineering_items(result: engrules.RulesResult) -> list[ItemDraft]:
    """Each engineering rule's fate: kept or omitted for the limit (ranked), or not a candidate."""
    fates = {"kept": INCLUDED, "omitted": CUT_FOR_BUDGET}
    out = []
    for n, outcome in enumerate(result.outcomes, start=1):
        rule = outcome.rule
        out.append(
            item(
                id=f"eng:{rule.source}#{rule.index + 1}",
                kind="engineering_rule",
                section=ENGINEERING,
                source=rule.source,
                rank=n if outcome.status in fates else None,
                status=fates.get(outcome.status, NOT_CANDIDATE),
                reason=f"rule {rule.id!r}: {outcome.why}",
                text=outcome.line,
                offset=outcome.offset,
                details={"priority": rule.priority, "applies_to": repr(rule.globs)},
            )
        )
    return out


def engineering_cut(result: engrules.RulesResult) -> tuple[str, str, str] | None:
    """The step (description, before, after) of the rule lines the limit left out (None: none were)."""
    if not result.omitted_note:
        return None
    kept = sum(1 for o in result.outcomes if o.status == "kept")
    omitted = sum(1 for o in result.outcomes if o.status == "omitted")
    before = engrules.HEADER + "\n".join(o.line for o in result.outcomes if o.status in ("kept", "omitted"))
    return (
        f"{omitted} rule line(s) after the first {kept} did not fit {result.limit:,} characters; "
        "a note says how many were left out",
        before,
        result.text,
    )


def task_suffixes(task_files: Sequence[Any]) -> list[str]:
    """The distinct file suffixes of the task's files, in order; an entry that is not a path raises."""
    suffixes: list[str] = []
    for f in task_files:
        if not isinstance(f, str):
            raise TypeError(f"a create/modify entry is {describe_value(f)}, not a path")
        suffix = PurePosixPath(f).suffix
        if suffix and suffix not in suffixes:
            suffixes.append(suffix)
    return suffixes


def mcp_items(routing: switches.Routing) -> list[ItemDraft]:
    """Each MCP server's fate: the servers no capability asked for first, then those routed (kept or not)."""
    out = []
    text = routing.text
    names = [s.name for s in routing.servers]
    asked = "; ".join(f"{what} asks for {', '.join(caps)}" for what, caps in routing.asked)
    for name, caps, _ in switches.SERVERS:
        if name not in names:
            out.append(
                item(
                    id=f"mcp:{name}",
                    kind="mcp_server",
                    section=MCP,
                    source=name,
                    status=NOT_CANDIDATE,
                    reason=f"no capability asked for ({asked or 'nothing asked for any'})",
                    details={"capabilities": list(caps)},
                )
            )
    for server in routing.servers:
        offset = text.find(server.name, len(switches.MCP_HEADER)) if server.kept else -1
        out.append(
            item(
                id=f"mcp:{server.name}",
                kind="mcp_server",
                section=MCP,
                source=server.name,
                score=server.overlap,
                matched=server.shared,
                status=INCLUDED if server.kept else OUTRANKED,
                reason=server.why,
                text=server.name,
                offset=offset if offset >= 0 else None,
                details={"asked": [{"by": w, "capabilities": list(c)} for w, c in routing.asked]},
            )
        )
    return out


#: What each switch section needs to be built.
_WANTED = {DEPTH: "anything but empty or 'standard'", MODE: "speed, exploration, refactor or debug",
           TDD: "exactly '1'", EFFICIENCY: "exactly '1'"}  # fmt: skip


def switch_sections(settings: Settings, env_prefix: str) -> list[tuple[str, str, ItemDraft]]:
    """Sections 5-8 as the switch settings build them: (section, text, the switch's item) each."""
    s = settings
    built = {
        DEPTH: ("analysis_depth", switches.depth_section(s.analysis_depth)),
        MODE: ("behavioral_mode", switches.mode_section(s.behavioral_mode)),
        TDD: ("tdd_mode", switches.tdd_section(s.tdd_mode)),
        EFFICIENCY: ("compact_mode", switches.efficiency_section(s.compact_mode)),
    }
    out = []
    for section, (key, text) in built.items():
        value = getattr(s, key)
        variable = env_prefix + key.upper()
        shown = "unset" if value is None else f"{value!r}"
        draft = item(
            id=f"switch:{key}",
            kind="switch",
            section=section,
            source=f"setting {key} (environment variable {variable})",
            status=INCLUDED if text else NOT_CANDIDATE,
            reason=(
                f"{variable} is {shown}: builds this section"
                if text
                else f"{variable} is {shown}; the section needs {_WANTED[section]}"
            ),
            text=text,
            offset=0 if text else None,
        )
        out.append((section, text, draft))
    return out


@lru_cache(maxsize=1 << 16)
def _module_id(module: str) -> str:
    """A chosen module's item id: one text object per module (see :func:`.repomap.module_heading`)."""
    return f"map:{module}"


def repo_map_items(graph: repomap.RepoGraph, result: repomap.MapResult) -> list[ItemDraft]:
    """Each module the map chose (its heading) and each of its symbols: listed, or cut at the limit.

    The drafts are made with every field given, in order (a map has hundreds a task): what
    :func:`item` would make of the same fields.
    """
    out: list[ItemDraft] = []
    append = out.append
    cut = (
        f"; did not fit: the map's {result.limit:,}-character limit was reached at {result.cut_at:,} characters"
        if result.cut_at is not None
        else ""
    )
    files = graph.files
    for pick in result.picks:
        module = pick.module
        source = files.get(module, module)
        heading = repomap.module_heading(module)
        total = pick.count
        placed_heading = pick.heading_placed
        append(
            ItemDraft(
                _module_id(module),
                "repo_module",
                REPO_MAP,
                REPO_MAP,
                source,
                None,
                None,
                None,
                (),
                None,
                INCLUDED if placed_heading else CUT_FOR_BUDGET,
                f"{pick.why}; {pick.placed} of {total} symbol(s) listed" + ("" if pick.placed == total else cut),
                heading,
                len(heading) if placed_heading else 0,
                pick.offset,
            )
        )
        if not placed_heading:
            continue
        offset = (pick.offset or 0) + len(heading)
        for n, (sym, hits) in enumerate(pick.symbols):
            placed = n < pick.placed
            entry = sym.entry
            by = f"contains {', '.join(repr(h) for h in hits)}" if hits else "whole module"
            append(
                ItemDraft(
                    f"map:{module}:{sym.line}:{sym.name}",
                    "repo_symbol",
                    REPO_MAP,
                    REPO_MAP,
                    source,
                    sym.line,
                    sym.line,
                    None,
                    hits,
                    None,
                    INCLUDED if placed else CUT_FOR_BUDGET,
                    f"{sym.kind} {sym.name}: {by}" + ("" if placed else cut),
                    entry,
                    len(entry) if placed else 0,
                    offset if placed else None,
                )
            )
            if placed:
                offset += len(entry)
    return out


def repo_map_cut(result: repomap.MapResult) -> str | None:
    """The description of the step where the map's character limit fell (None: all fit); the map
    before it is :func:`.repomap.render_all`'s, after it the result's text."""
    if result.cut_at is None:
        return None
    listed = sum(p.placed for p in result.picks)
    total = sum(p.count for p in result.picks)
    return (
        f"the {result.limit:,}-character limit fell at {result.cut_at:,} characters: "
        f"{listed} of {total} chosen symbols listed, "
        f"{sum(p.heading_placed for p in result.picks)} of {len(result.picks)} modules"
    )


class ZergRun(MahabharathaRun):
    """One run of zerg-ai 0.3.2's context plugin over one task."""

    upstream: Upstream = ZERG

    def run(self) -> ProfileResult:
        self._check("start", 0.0)
        shares = section_shares(self.settings.budget)
        files = self._task_files()
        self.notes: list[str] = []
        self.token_record: dict[str, int] | None = None
        texts: dict[str, str] = {name: "" for name, _, _ in SECTIONS}
        fatal = self._rules(files, shares, texts)
        self._check("rules", 0.3)
        texts[SPEC] = self._spec(shares[SPEC])
        self._check("spec excerpts", 0.5)
        if fatal is None:
            self._hints(files, shares, texts)
        self._check("repository map", 0.9)
        if fatal is not None:
            fall_back(self.items, fatal, self.settings.fallback_to_full, LOST_TO_FAILURE)
            final = {name: "" for name in texts}
        else:
            self._token_record(texts)
            final = self._abbreviate(texts) if switches.compact_active(self.settings.compact_mode) else texts
        context, sections = self._layout(final, shares, fatal)
        return self._result(
            context,
            sections,
            files,
            section_budgets={name: shares[name] for name, _, share in SECTIONS if share is not None},
            buffer=self.settings.budget - sum(shares.values()),
            notes=tuple(self.notes),
            token_record=self.token_record,
        )

    def _rules(self, files: TaskFiles, shares: Mapping[str, int], texts: dict[str, str]) -> str | None:
        """Sections 1-2, engineering and security rules, into *texts*; why the whole run fails, if it does."""
        if files.fatal is not None:
            self._security_not_run(files.fatal)
            return files.fatal
        entries = files.entries
        texts[ENGINEERING] = self._guarded(ENGINEERING, lambda: self._engineering(entries, shares[ENGINEERING]))
        texts[SECURITY], fatal = self._security(entries, shares[SECURITY])
        if mixed_languages(entries):
            self.notes.append(
                "security rules: upstream adds the python and javascript rule files in the order of a Python "
                "set, which depends on PYTHONHASHSEED; shown python first"
            )
        return fatal

    def _hints(self, files: TaskFiles, shares: Mapping[str, int], texts: dict[str, str]) -> None:
        """Sections 4-9 into *texts*: MCP servers, the switch sections and the repository map."""
        entries = files.entries
        texts[MCP] = self._guarded(MCP, lambda: self._mcp(entries))
        texts.update(self._switch_sections())
        self._check("hint sections", 0.6)
        texts[REPO_MAP] = self._guarded(REPO_MAP, lambda: self._repo_map(entries, shares[REPO_MAP]))

    # -- helpers -------------------------------------------------------------------------

    def _guarded(self, section: str, build: Callable[[], str]) -> str:
        """Run a builder that upstream wraps in ``try``: a failure leaves its section out."""
        try:
            return build()
        except Exception as exc:  # upstream catches everything here too
            message = f"{section.replace('_', ' ')} failed: {exc}"
            self.left_out[section] = message
            self._error(section, "pipeline", message, "this section is left out", self.feature.graph_path)
            for draft in self.items:
                if isinstance(draft, ItemDraft) and draft.section == section and draft.status in (INCLUDED, TRUNCATED):
                    draft.reason = f"would be {draft.status} ({draft.reason}), but the section is left out: {message}"
                    draft.status, draft.kept_chars, draft.offset = LOST_TO_FAILURE, 0, None
            return ""

    # -- the builders: each runs its module, then records its items, steps and errors ------------

    def _engineering(self, task_files: Sequence[Any], budget: int) -> str:
        """1. Engineering rules (:mod:`.engrules`)."""
        result = engrules.build(self.fs, f"{self.upstream.state_dir}/rules", task_files, budget)
        for where, why in result.skipped:
            self._error(ENGINEERING, "input", f"{where}: {why}", "skipped, as upstream does", where.split("#")[0])
        self.items.extend(engineering_items(result))
        cut = engineering_cut(result)
        if cut is not None:
            self._step(ENGINEERING, "omit_rules", "engineering rules", *cut)
        return result.text

    def _mcp(self, task_files: Sequence[Any]) -> str:
        """4. MCP servers (:func:`.switches.route`)."""
        suffixes = task_suffixes(task_files)
        routing = switches.route(self.raw.get("description", ""), suffixes, self.settings.analysis_depth)
        self.items.extend(mcp_items(routing))
        return routing.text

    def _switch_sections(self) -> dict[str, str]:
        """5-8. The sections the switch settings build (:mod:`.switches`)."""
        out: dict[str, str] = {}
        for section, text, draft in switch_sections(self.settings, self.upstream.env_prefix):
            self.items.append(draft)
            out[section] = text
        return out

    def _repo_map(self, task_files: Sequence[Any], budget: int) -> str:
        """9. The repository symbol map (:mod:`.repomap`)."""
        if not task_files:
            return ""
        description = self.raw.get("description", "")
        if not isinstance(description, str):
            raise TypeError(f"the description is {describe_value(description)}, not text")
        keywords = repomap.description_keywords(description)
        # The map reads every source of the tree (bisect asks what a run read: docs/bisect.md).
        note_scan(Scan("", repomap.SUFFIXES, repomap.SKIPPED_FOLDERS, skip_dot=True))
        graph = repomap.build_graph(self.fs, self.settings.python_for_sources)
        self._report("source graph", 0.7)
        for rel, why, how in graph.skipped:
            # The file is the error's path (printed before its message): the message is why.
            if how == repomap.UNREAD:
                self._error(REPO_MAP, "input", why, "not in the symbol map", rel)
            elif how == repomap.UNPARSED:
                self._error(REPO_MAP, "pipeline", why, "not in the symbol map, as upstream skips it", rel)
            else:
                self._error(REPO_MAP, "pipeline", why, NEWER_SYNTAX, rel)
        if graph.problem:  # a newer Python was needed and none served
            kind = "input" if graph.problem_is_setting else "pipeline"
            self._error(REPO_MAP, kind, graph.problem, "what this Python cannot parse is left out", None)
        if graph.parsed_by:
            self.notes.append(f"repository map: {graph.parsed_by}")
        result = self._query_map(graph, task_files, keywords, budget * 4)
        self.items.extend(repo_map_items(graph, result))
        cut = repo_map_cut(result)
        if cut is not None and isinstance(self.counter, HeuristicCounter):
            # The estimate needs only the whole map's length: it is not written out in every task.
            chars = repomap.render_all_chars(result.picks)
            before, after = (
                (self.counter.count_chars(chars), chars),
                (self.counter.count(result.text), len(result.text)),
            )
            self._step_counted(REPO_MAP, "cut_map", "repository map", cut, before, after)
        elif cut is not None:
            self._step(REPO_MAP, "cut_map", "repository map", cut, repomap.render_all(result.picks), result.text)
        if result.unmatched:
            self.notes.append(
                f"repository map: {result.unmatched} module(s) with symbols matched no task file or keyword "
                f"(keywords: {', '.join(keywords) or 'none'})"
            )
        return result.text

    def _query_map(
        self, graph: repomap.RepoGraph, task_files: Sequence[str], keywords: Sequence[str], max_chars: int
    ) -> repomap.MapResult:
        """The map's query (:func:`.repomap.query`); a method so a refit's build run can keep every
        module it chose, with the symbols of those the limit left out (see :mod:`.refit`)."""
        return repomap.query(graph, task_files, keywords, max_chars)

    def _token_record(self, texts: Mapping[str, str]) -> None:
        """What upstream writes to its per-worker token file for this task (never part of the text)."""
        breakdown = self.token_record = token_breakdown(texts)
        worker = "unknown" if self.settings.worker_id is None else self.settings.worker_id  # as os.environ.get
        parts = ", ".join(f"{n} {c:,}" for n, c in breakdown.items()) or "no components"
        self.notes.append(
            f"when it runs this task, upstream records in {self.upstream.state_dir}/state/tokens-{worker}.json "
            f"(round(len / 4), before abbreviation): {parts}; total {sum(breakdown.values()):,}"
        )

    # -- compact formatter ------------------------------------------------------------------------------

    def _abbreviate(self, texts: Mapping[str, str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, text in texts.items():
            new, replacements, where = compact.abbreviate(text)
            out[name] = new
            for r in replacements:
                self._step(
                    name,
                    "abbreviate",
                    r.full,
                    f"compact mode: {r.full!r} \u2192 {r.short!r}, {r.count} time(s)",
                    r.before,
                    r.after,
                )
            if not replacements:
                continue
            for draft in self.items:
                if isinstance(draft, ItemDraft) and draft.section == name and draft.offset is not None:
                    compacted(draft, new, where)
        return out

    # -- layout --------------------------------------------------------------------------------------------

    def _layout(
        self, texts: Mapping[str, str], shares: Mapping[str, int], fatal: str | None
    ) -> tuple[str, tuple[Section, ...]]:
        context, spans = join_sections([name for name, _, _ in SECTIONS], texts)
        sections = []
        for name, title, share in SECTIONS:
            text = texts[name]
            status, reason = self._section_outcome(
                name, text, fatal, "built", lambda _name: "nothing to show for this task"
            )
            if name in IGNORED_BUDGETS:
                reason += f"; its budget of {shares[name]:,} tokens is passed and ignored upstream"
            elif share is None:
                reason += "; upstream gives it no budget"
            sub = dict(self.spec_sub_budgets) if name == SPEC else {}
            if name in (ENGINEERING, SECURITY, REPO_MAP):
                sub = {"character limit": shares[name] * 4}
            sections.append(
                Section(
                    name=name,
                    title=title,
                    text=text,
                    budget=shares[name],
                    tokens=self.census.measure(text),
                    status=status,
                    reason=reason,
                    span=spans.get(name),
                    sub_budgets=sub,
                )
            )
        return context, tuple(sections)


class LatestRun(ZergRun):
    """The repository's main today (profile ``mahabharatha-latest``): 0.3.2's assembly, byte for
    byte, reading ``.mahabharatha/rules`` and naming ``MAHABHARATHA_*`` variables (PIPELINE.md, section 9)."""

    upstream = MAIN

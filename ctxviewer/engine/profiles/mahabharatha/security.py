"""The reference run's security-rules stages: read the matched rule files, fit their blocks, chain the cuts.

1. :func:`read_rules` -- each candidate rule file in the reference order, read and
   summarized (:class:`RuleRead`), up to one that cannot be read (the run's failure);
2. :func:`fit_blocks` -- the usable blocks kept whole, in order, while they fit the
   summary's limit (:func:`rule_limit`: characters with the heuristic counter, else tokens);
3. :func:`rule_items` -- each rule file's fate as an item, in order;
4. :func:`skip_chain` -- the section before and after each block left out, so the
   steps chain from every block to the section as built.

The section is ``SECURITY_HEADER`` and the kept blocks joined by a blank line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxviewer.engine.files.reading import Problem, ProjectFS
from ctxviewer.engine.profiles.base import ItemDraft, fmt
from ctxviewer.engine.signals import rules as R
from ctxviewer.engine.tokens.counting import TokenCounter
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, NOT_CANDIDATE, RULE_FILE, SECURITY, TraceError

SECURITY_HEADER = "## Security Rules (task-scoped)\n\n"


@dataclass(frozen=True)
class RuleLimit:
    """The security summary's limit: characters (4 per token) with the heuristic counter, else tokens."""

    limit: int
    unit: str
    in_characters: bool

    def measure(self, block: str, counter: TokenCounter) -> int:
        return len(block) if self.in_characters else counter.count(block)


def rule_limit(budget: int, counter_name: str) -> RuleLimit:
    """The limit a security budget gives with the counter named *counter_name*."""
    if counter_name == "heuristic":
        return RuleLimit(budget * 4, "characters", True)
    return RuleLimit(budget, f"{counter_name} tokens", False)


@dataclass
class RuleRead:
    """One candidate rule file as read and summarized: a usable block, or why it is not a candidate."""

    rule: str
    details: dict[str, Any]
    #: The reason's head: why the rule was considered ("" when it was not matched).
    why: str = ""
    #: The summary block; "" when the rule is not a candidate (see :attr:`reason`).
    block: str = ""
    reason: str = ""
    #: The file's line count, where the trace shows it.
    lines: int | None = None


@dataclass
class RulesRead:
    """What reading the candidate rule files found, with the errors to record, in order."""

    reads: list[RuleRead] = field(default_factory=list)
    errors: list[TraceError] = field(default_factory=list)
    #: Why the whole run fails (a rule file that cannot be read; the last read is that file's).
    failure: str | None = None


def _matched_why(rule: str, match: R.RuleMatch) -> str:
    if rule == R.CORE:
        return "core rules, always considered"
    more = f" and {len(match.matched_by) - 3:,} more" if len(match.matched_by) > 3 else ""
    return "matched by " + ", ".join(f"{f} ({by})" for f, by in match.matched_by[:3]) + more


def read_rules(fs: ProjectFS, rules_dir: str, matches: Mapping[str, R.RuleMatch], failing: str) -> RulesRead:
    """Each candidate rule file in order (under *rules_dir*), read and summarized, up to one that
    cannot be read; *failing* is what such a failure does (the error's consequence)."""
    out = RulesRead()
    for rule in R.CANDIDATES:
        match = matches[rule]
        rel = f"{rules_dir}/{rule}"
        details: dict[str, Any] = {
            "trigger": R.TRIGGER_TEXT[rule],
            "matched_by": [{"file": f, "by": why} for f, why in match.matched_by],
        }
        if not match.matched:
            out.reads.append(RuleRead(rule, details, reason=f"not matched: no task file is {R.TRIGGER_TEXT[rule][2:]}"))
            continue
        why = _matched_why(rule, match)
        read = fs.read_text(rel)
        if read.problem in (Problem.MISSING, Problem.OUTSIDE, Problem.LOOP):
            if read.problem is not Problem.MISSING:
                out.errors.append(TraceError(SECURITY, "input", read.detail, "treated as absent: not read", rel))
            out.reads.append(RuleRead(rule, details, why, reason=f"{why}, but the file does not exist"))
            continue
        if not read.ok:
            message = f"reading rule file failed: {read.detail}"
            out.errors.append(TraceError(SECURITY, "input", message, failing, rel, read.line))
            out.reads.append(RuleRead(rule, details, why, reason=f"{why}, but {message}"))
            out.failure = message
            return out
        if read.has_nul:
            out.errors.append(
                TraceError(
                    SECURITY,
                    "input",
                    "binary content (NUL bytes) in a rule file",
                    "read as text all the same, as the real system does",
                    rel,
                )
            )
        assert read.text is not None
        block = R.summarize_file(rule, read.text)
        details["kept_lines"] = list(block.kept_lines)
        no_block = f"{why}; no '## Rule:', '### Rule:', '**Level**' or '**When**' lines outside code fences"
        out.reads.append(RuleRead(rule, details, why, block.block, "" if block.block else no_block, block.total_lines))
    return out


@dataclass(frozen=True)
class BlockFit:
    """Whether one usable block fit the summary's limit, and where it went."""

    size: int
    #: What was left of the limit when the block came up.
    left: int
    #: 1-based place among the blocks kept (None: left out).
    rank: int | None
    #: Offset of the block in the section (None: left out).
    offset: int | None

    @property
    def fits(self) -> bool:
        return self.rank is not None


def fit_blocks(sizes: Sequence[tuple[int, int]], limit: int, start: int) -> list[BlockFit]:
    """Each block, given as (length, size), kept whole in order while the sizes fit *limit*.

    A block that does not fit is left out and later ones still try; kept blocks are joined
    by a blank line after *start* characters (the header).
    """
    out: list[BlockFit] = []
    used = kept = 0
    offset = start
    for length, size in sizes:
        left = limit - used
        if used + size <= limit:
            sep = 2 if kept else 0
            kept += 1
            out.append(BlockFit(size, left, kept, offset + sep))
            used += size
            offset += sep + length
        else:
            out.append(BlockFit(size, left, None, None))
    return out


def skip_chain(blocks: Sequence[tuple[str, str, bool]]) -> list[tuple[str, str, str]]:
    """(rule, section before, section after) for each block of (rule, block, kept) that was left out.

    The steps chain: the first starts from the section holding every usable block in order,
    each takes its block out, and the last ends at the section as built (empty when no block
    went in).
    """
    state = {rule: block for rule, block, _ in blocks}
    out: list[tuple[str, str, str]] = []
    for rule, _, kept in blocks:
        if kept:
            continue
        before = SECURITY_HEADER + "\n\n".join(state.values())
        del state[rule]
        after = SECURITY_HEADER + "\n\n".join(state.values()) if state else ""
        out.append((rule, before, after))
    return out


def rule_item(
    rules_dir: str,
    rule: str,
    status: str,
    reason: str,
    text: str = "",
    rank: int | None = None,
    offset: int | None = None,
    details: Mapping[str, Any] | None = None,
    lines: int | None = None,
) -> ItemDraft:
    """A draft of one rule file under *rules_dir*: it keeps its whole *text* when included."""
    return ItemDraft(
        id=f"rule:{rule}",
        kind=RULE_FILE,
        section=SECURITY,
        part="rules",
        source=f"{rules_dir}/{rule}",
        line_start=1 if lines else None,
        line_end=lines,
        score=None,
        matched=(),
        rank=rank,
        status=status,
        reason=reason,
        text=text,
        kept_chars=len(text) if status == INCLUDED else 0,
        offset=offset,
        details=details or {},
    )


def rule_items(
    rules_dir: str, reads: Sequence[RuleRead], fits: Mapping[str, BlockFit], limit: RuleLimit
) -> list[ItemDraft]:
    """Each rule file read, in order: kept or cut for the *limit* (its fit in *fits*), or why not a candidate.

    A usable block's details gain what it needed and what was left.
    """
    out = []
    for r in reads:
        fit = fits.get(r.rule)
        if fit is None:
            out.append(rule_item(rules_dir, r.rule, NOT_CANDIDATE, r.reason, details=r.details, lines=r.lines))
            continue
        r.details.update({"needed": fit.size, "left": fit.left, "limit": limit.limit, "unit": limit.unit})
        verb = "fit" if fit.fits else "did not fit"
        out.append(
            rule_item(
                rules_dir,
                r.rule,
                INCLUDED if fit.fits else CUT_FOR_BUDGET,
                f"{r.why}; block of {fmt(fit.size)} {limit.unit} {verb} the {fmt(fit.left)} left of {fmt(limit.limit)}",
                text=r.block,
                rank=fit.rank,
                offset=fit.offset,
                details=r.details,
                lines=r.lines,
            )
        )
    return out

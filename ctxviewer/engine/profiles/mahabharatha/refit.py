"""A task's fates under the seed's run at other budgets and shares, in plain arithmetic.

Only the rule blocks' fit (:func:`~.security.fit_blocks`) and each spec part's truncation
(:func:`~.excerpts.part_budget`, :func:`~.excerpts.place_paragraphs`) depend on the budget
and the shares.  :func:`build_refit` runs the profile once and keeps what they start from
(``rule_sizes``, ``scored_parts``, ``fatal``); :class:`MahabharathaRefit` replays only those
decisions.  See docs/sensitivity.md#how-the-refits-work.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from ctxviewer.engine.profiles.lookup import profile_of_run
from ctxviewer.engine.profiles.mahabharatha.excerpts import DESIGN_HEADER, REQUIREMENTS_HEADER, ScoredPart
from ctxviewer.engine.profiles.mahabharatha.run import MahabharathaRun
from ctxviewer.engine.profiles.refit_contract import SHARE_KEYS, Refit, Sections, SpecSource, WholeRun, budget_range
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.project.upstream import resolve
from ctxviewer.engine.signals.spec import TRUNCATION_MARKER
from ctxviewer.engine.tokens.counting import HEURISTIC, Census, TokenCounter, get_counter
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, NOT_CANDIDATE, TRUNCATED

#: Statuses kept per section budget at most (then cleared: bounded memory).
MEMO_LIMIT = 100_000


@dataclass(frozen=True)
class SpecPart:
    """One spec part's top paragraphs as its truncation sees them.

    *text* is the paragraphs joined by blank lines (what :func:`truncate` is given);
    *paragraphs* each paragraph's item id, start and length in it; *breaks* and *sentences*
    the positions of every ``"\\n\\n"`` and every ``". "``/``".\\n"`` in it, ascending.
    """

    part: str
    text: str
    paragraphs: tuple[tuple[str, int, int], ...]
    breaks: tuple[int, ...]
    sentences: tuple[int, ...]

    @cached_property
    def ids(self) -> tuple[str, ...]:
        return tuple(p[0] for p in self.paragraphs)

    @cached_property
    def ends(self) -> tuple[int, ...]:
        """Where each paragraph ends (ascending)."""
        return tuple(start + length for _id, start, length in self.paragraphs)

    @cached_property
    def empty(self) -> tuple[str, ...]:
        """The paragraphs with no text."""
        return tuple(item_id for item_id, _start, length in self.paragraphs if length == 0)

    @classmethod
    def of(cls, scored: ScoredPart) -> SpecPart:
        texts = [(scored.drafts[s.paragraph.index].id, s.paragraph.text) for s in scored.top]
        text = "\n\n".join(t for _, t in texts)
        paragraphs: list[tuple[str, int, int]] = []
        start = 0
        for item_id, t in texts:
            paragraphs.append((item_id, start, len(t)))
            start += len(t) + 2
        breaks = tuple(p for p in range(len(text) - 1) if text[p] == "\n" and text[p + 1] == "\n")
        sentences = tuple(p for p in range(len(text) - 1) if text[p] == "." and text[p + 1] in " \n")
        return cls(scored.file.part, text, tuple(paragraphs), breaks, sentences)

    def kept(self, max_chars: int) -> int:
        """The characters a truncation to *max_chars* keeps (the text is longer), as
        :func:`~ctxviewer.engine.signals.spec.truncate` cuts: at the last paragraph break,
        else the last sentence end, past half of it, else hard."""
        half = max_chars // 2
        i = bisect_right(self.breaks, max_chars - 2) - 1
        if i >= 0 and self.breaks[i] > half:
            return self.breaks[i]
        i = bisect_right(self.sentences, max_chars - 2) - 1
        if i >= 0 and self.sentences[i] > half:
            return self.sentences[i] + 1
        return min(max_chars, len(self.text))


class MahabharathaRefit:
    """The seed run's fates at any budget and shares, from one run's rule sizes and spec parts.

    *base* is every item id's status in the built run; the rule blocks (*rules*: id and size
    in the limit's unit, in order) and the top paragraphs of *parts* are decided again on
    each call, everything else keeps its status.  *fatal*: the built run failed as a whole
    (``files`` not a mapping, a rule file that cannot be read), so whatever would be kept is
    not a candidate, as :func:`~.assembly.fall_back` leaves it.
    """

    def __init__(
        self,
        settings: Settings,
        counter: TokenCounter,
        base: Mapping[str, str],
        rules: Sequence[tuple[str, int]],
        parts: Sequence[SpecPart],
        fatal: bool,
    ) -> None:
        self.settings = settings
        self.counter = counter
        self.heuristic = counter.name == HEURISTIC
        self.base = dict(base)
        self.rules = tuple(rules)
        self.parts = tuple(parts)
        self.fatal = fatal
        # Exact tokenizers: each text's count, and per (part, budget) the prefix that fits.
        self._counts: dict[str, int] = {}
        self._prefixes: dict[tuple[str, int], int] = {}
        self._ceiling: int | None = None
        self._sections: Sections | None = None
        # Statuses by section budget (bounded: cleared when full).
        self._by_security: dict[int, dict[str, str]] = {}
        self._by_spec: dict[int, dict[str, str]] = {}
        self._last: tuple[tuple[int, int], dict[str, str]] | None = None

    @property
    def keys(self) -> frozenset[str]:
        return frozenset({"budget", *SHARE_KEYS})

    @property
    def decided(self) -> frozenset[str]:
        """The rule blocks and the top paragraphs: :meth:`decide` decides them again."""
        return frozenset([rule for rule, _size in self.rules] + [p[0] for part in self.parts for p in part.paragraphs])

    @property
    def sections(self) -> Sections:
        """Every rule block is decided by the security section's budget alone, every top
        paragraph by the spec section's (:meth:`decide` computes them apart)."""
        if self._sections is None:
            through = dict.fromkeys((rule for rule, _size in self.rules), "security_share")
            through.update(dict.fromkeys((p[0] for part in self.parts for p in part.paragraphs), "spec_share"))
            self._sections = Sections(through, {"security_share": self._security_top(), "spec_share": self._spec_top()})
        return self._sections

    def _security_top(self) -> int:
        """The smallest security budget at which every rule block fits (and so from which all do)."""
        need = sum(size for _rule, size in self.rules)
        return -(-need // 4) if self.heuristic else need

    def _spec_top(self) -> int:
        """A spec budget from which every part's top paragraphs are kept whole: the requirements'
        half reaches their length, and the design's room (the budget less the sections before it,
        the requirements whole) reaches its own; both only grow with the budget."""
        top = 0
        before: str | None = None
        for part in self.parts:
            need = self._count(part.text) if not self.heuristic else -(-len(part.text) // 4)
            if part.part == "requirements":
                top = max(top, 2 * need)
                before = part.text
            else:
                so_far = f"{REQUIREMENTS_HEADER}\n{before}\n{DESIGN_HEADER}" if before is not None else DESIGN_HEADER
                top = max(top, self._count(so_far) + need)
        return top

    def fates(self, budget: int, shares: Mapping[str, float] | None = None) -> Mapping[str, str]:
        """The fates at *budget* and *shares* (the same mapping as the call before when the section
        budgets are the same)."""
        security, spec = self._section_budgets(budget, shares)
        if self._last is not None and self._last[0] == (security, spec):
            return self._last[1]
        out = self.base.copy()
        out.update(self._rules_at(security))
        out.update(self._spec_at(spec))
        if self.fatal:
            for item_id in self.decided:
                if out[item_id] in (INCLUDED, TRUNCATED):
                    out[item_id] = NOT_CANDIDATE
        self._last = ((security, spec), out)
        return out

    def decide(self, budget: int, shares: Mapping[str, float] | None = None) -> dict[str, str]:
        """The rule blocks' and top paragraphs' statuses before any fall-back."""
        security, spec = self._section_budgets(budget, shares)
        return {**self._rules_at(security), **self._spec_at(spec)}

    def _section_budgets(self, budget: int, shares: Mapping[str, float] | None) -> tuple[int, int]:
        shares = shares or {}
        return (
            int(budget * shares.get("security_share", self.settings.security_share)),
            int(budget * shares.get("spec_share", self.settings.spec_share)),
        )

    def _rules_at(self, security: int) -> dict[str, str]:
        """The rule blocks' statuses at a security budget (kept, by section budget: walks along a
        share or the budget meet the same section budget again and again)."""
        out = self._by_security.get(security)
        if out is not None:
            return out
        out = {}
        limit = security * 4 if self.heuristic else security
        used = 0
        for rule, size in self.rules:
            if used + size <= limit:
                used += size
                out[rule] = INCLUDED
            else:
                out[rule] = CUT_FOR_BUDGET
        if len(self._by_security) >= MEMO_LIMIT:
            self._by_security.clear()
        self._by_security[security] = out
        return out

    def _spec_at(self, spec: int) -> dict[str, str]:
        """The top paragraphs' statuses at a spec budget (kept, as :meth:`_rules_at`)."""
        out = self._by_spec.get(spec)
        if out is not None:
            return out
        out = {}
        before: str | None = None  # the requirements' text as the section holds it
        for part in self.parts:
            if part.part == "requirements":
                tokens = spec // 2
            else:
                so_far = f"{REQUIREMENTS_HEADER}\n{before}\n{DESIGN_HEADER}" if before is not None else DESIGN_HEADER
                tokens = max(spec - self._count(so_far), spec // 4)
            kept = self._kept(part, tokens)
            if part.part == "requirements":
                before = part.text if kept is None else part.text[:kept] + TRUNCATION_MARKER
            kept = len(part.text) if kept is None else kept
            # Paragraphs ending by the cut are included, the one it falls inside truncated, the rest cut.
            ids, ends = part.ids, part.ends
            whole = bisect_right(ends, kept)
            out.update(dict.fromkeys(ids[:whole], INCLUDED))
            if whole < len(ids):
                out[ids[whole]] = TRUNCATED if part.paragraphs[whole][1] < kept else CUT_FOR_BUDGET
                out.update(dict.fromkeys(ids[whole + 1 :], CUT_FOR_BUDGET))
            out.update(dict.fromkeys(part.empty, INCLUDED))  # nothing to cut: included wherever it falls
        if len(self._by_spec) >= MEMO_LIMIT:
            self._by_spec.clear()
        self._by_spec[spec] = out
        return out

    def _count(self, text: str) -> int:
        if self.heuristic:
            return len(text) // 4
        count = self._counts.get(text)
        if count is None:
            count = self._counts[text] = self.counter.count(text)
        return count

    def _kept(self, part: SpecPart, tokens: int) -> int | None:
        """The characters of *part* a truncation to *tokens* keeps; None: it fits whole."""
        if self.heuristic:
            max_chars = tokens * 4
            if len(part.text) <= max_chars:
                return None
        else:
            if self._count(part.text) <= tokens:
                return None
            key = (part.part, tokens)
            prefix = self._prefixes.get(key)
            if prefix is None:
                prefix = self._prefixes[key] = self.counter.fits_prefix(part.text, tokens)
            max_chars = prefix
        return part.kept(max_chars)

    def ceiling(self) -> int:
        """The smallest budget from which every rule block and top paragraph stays as at the
        top of the range (found by bisection: each one's "all in" holds from a threshold on)."""
        if self._ceiling is None:
            bottom, top = budget_range(self.settings)
            target = self.decide(top)
            if any(status != INCLUDED for status in target.values()):
                self._ceiling = top  # something never fits: no threshold to bisect for
            elif self.decide(bottom) == target:
                self._ceiling = bottom
            else:
                lo, hi = bottom, top  # decide(lo) != target == decide(hi)
                while hi - lo > 1:
                    mid = (lo + hi) // 2
                    if self.decide(mid) == target:
                        hi = mid
                    else:
                        lo = mid
                self._ceiling = hi
        return self._ceiling


def build_refit(
    project: Project, feature: Feature, task: Task, settings: Settings, *, whole: WholeRun, source: SpecSource
) -> Refit:
    """A refit of *task* under the seed's ``mahabharatha`` run; *feature* as
    :func:`~ctxviewer.engine.runs.pipeline.assemble_task` receives it.

    The engine's layers keep this package from importing the runs package, so the caller
    passes in what it needs from there: *whole*, the whole-run refit
    (:class:`~ctxviewer.engine.runs.sensitivity.WholeRunRefit`), and *source*, the feature
    as a run reads it (:func:`~ctxviewer.engine.runs.pipeline.spec_source`).

    It returns ``whole(...)`` instead of a :class:`MahabharathaRefit` exactly when

    * the profile that runs is not the seed's (``settings.profile`` names another profile,
      or the upstream pipeline resolves to another version); or
    * the built run raises (a tokenizer whose encoding is missing, a setting the run
      refuses): the whole run then raises the same at every budget.

    A run that fails as a whole (and falls back to an empty context, or fails) is modelled,
    as is a run whose security or spec section is left out by a failure: those fates do not
    depend on the budget, or only through what would have been kept.
    """
    if resolve(project.fs, settings)[0] != profile_of_run(MahabharathaRun).name:
        return whole(project, feature, task, settings)
    try:
        # As assemble_task runs it: the seed decides with the tokenizer set, and counts
        # exactly only that one (exact=False).
        counter = get_counter(settings.tokenizer)
        census = Census(False, settings.tokenizer)
        run = MahabharathaRun(project, source(feature, settings)[0], task, settings, counter, census)
        result = run.run()
    except Exception:
        return whole(project, feature, task, settings)
    base = {item.id: item.status for item in result.items}
    rules = [(f"rule:{rule}", size) for rule, size in run.rule_sizes]
    parts = [SpecPart.of(scored) for scored in run.scored_parts]
    return MahabharathaRefit(settings, counter, base, rules, parts, run.fatal is not None)

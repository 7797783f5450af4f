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

from ctxviewer.engine.profiles.lookup import profile_of_run
from ctxviewer.engine.profiles.mahabharatha.excerpts import DESIGN_HEADER, REQUIREMENTS_HEADER, ScoredPart
from ctxviewer.engine.profiles.mahabharatha.run import MahabharathaRun
from ctxviewer.engine.profiles.refit_contract import SHARE_KEYS, Refit, SpecSource, WholeRun, budget_range
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.project.upstream import resolve
from ctxviewer.engine.signals.spec import TRUNCATION_MARKER
from ctxviewer.engine.tokens.counting import HEURISTIC, Census, TokenCounter, get_counter
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, NOT_CANDIDATE, TRUNCATED


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

    @property
    def keys(self) -> frozenset[str]:
        return frozenset({"budget", *SHARE_KEYS})

    @property
    def decided(self) -> frozenset[str]:
        """The rule blocks and the top paragraphs: :meth:`decide` decides them again."""
        return frozenset([rule for rule, _size in self.rules] + [p[0] for part in self.parts for p in part.paragraphs])

    def fates(self, budget: int, shares: Mapping[str, float] | None = None) -> Mapping[str, str]:
        out = dict(self.base)
        decided = self.decide(budget, shares)
        if self.fatal:
            decided = {k: NOT_CANDIDATE if v in (INCLUDED, TRUNCATED) else v for k, v in decided.items()}
        out.update(decided)
        return out

    def decide(self, budget: int, shares: Mapping[str, float] | None = None) -> dict[str, str]:
        """The rule blocks' and top paragraphs' statuses before any fall-back."""
        shares = shares or {}
        security = int(budget * shares.get("security_share", self.settings.security_share))
        spec = int(budget * shares.get("spec_share", self.settings.spec_share))
        out: dict[str, str] = {}
        limit = security * 4 if self.heuristic else security
        used = 0
        for rule, size in self.rules:
            if used + size <= limit:
                used += size
                out[rule] = INCLUDED
            else:
                out[rule] = CUT_FOR_BUDGET
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
            for item_id, start, length in part.paragraphs:
                keep = max(0, min(length, kept - start))
                out[item_id] = INCLUDED if keep == length else TRUNCATED if keep > 0 else CUT_FOR_BUDGET
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

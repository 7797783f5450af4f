"""A fast, exact :class:`~ctxviewer.engine.profiles.refit_contract.Refit` for the nine-section versions.

Only four decisions depend on the budget: the engineering rules (:func:`engineering_kept`),
the security blocks (:func:`security_kept`, not monotone), the spec excerpts
(:func:`spec_kept`, :func:`paragraph_fates`) and the repository map (:func:`map_fates`).
:func:`build_refit` runs the profile once and keeps what they read and every other item's
fate; :class:`ZergRefit` recomputes only those four in integer arithmetic.  See
docs/sensitivity.md#how-the-refits-work.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxviewer.engine.profiles.base import ItemDraft
from ctxviewer.engine.profiles.lookup import profile_of_run
from ctxviewer.engine.profiles.mahabharatha import DESIGN_HEADER, REQUIREMENTS_HEADER, TaskFiles
from ctxviewer.engine.profiles.refit_contract import Refit, SpecSource, WholeRun, budget_range
from ctxviewer.engine.profiles.zerg import repomap
from ctxviewer.engine.profiles.zerg.profile import ENGINEERING, REPO_MAP, SHARES, LatestRun, ZergRun
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.project.upstream import resolve
from ctxviewer.engine.signals.spec import TRUNCATION_MARKER
from ctxviewer.engine.tokens.counting import HEURISTIC, Census, get_counter
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, SECURITY, SPEC, TRUNCATED

#: Each budget-dependent section's share of the budget, as the run takes it (``int(budget * share)``).
ENGINEERING_SHARE, SECURITY_SHARE, SPEC_SHARE, MAP_SHARE = (
    SHARES[ENGINEERING], SHARES[SECURITY], SHARES[SPEC], SHARES[REPO_MAP],
)  # fmt: skip
#: Cached decisions per share value kept at most (a sweep of every budget meets each ten times in a row).
_CACHE_LIMIT = 4096


# -- the four decisions, each on plain lengths --------------------------------------------------------


def engineering_kept(line_ends: Sequence[int], limit: int) -> int:
    """How many rule lines go in: *line_ends* are the running totals of (line + newline) lengths,
    from 0 (``[0, l0 + 1, l0 + l1 + 2, ...]``); the first line always goes in."""
    if len(line_ends) < 2:
        return 0
    return max(1, bisect_right(line_ends, limit) - 1)


def security_kept(sizes: Sequence[int], limit: int) -> list[bool]:
    """Which blocks of *sizes* characters go in, in order, each when it fits what the kept ones left."""
    out: list[bool] = []
    used = 0
    for size in sizes:
        fits = used + size <= limit
        out.append(fits)
        if fits:
            used += size
    return out


@dataclass(frozen=True)
class SpecPart:
    """One spec part's top paragraphs as the truncation sees them."""

    part: str  # "requirements" or "design"
    header: str
    text: str  # the top paragraphs joined by blank lines
    ids: tuple[str, ...]  # in rank order
    starts: tuple[int, ...]  # of each paragraph in text
    ends: tuple[int, ...]


def truncated_length(text: str, max_chars: int) -> int:
    """What the spec's truncation keeps of *text* within *max_chars* (the whole text when it fits):
    the cut at the last blank line, else after the last sentence end, past half the limit, else hard."""
    if len(text) <= max_chars:
        return len(text)
    last_para = text.rfind("\n\n", 0, max_chars)
    if last_para > max_chars // 2:
        return last_para
    last_sentence = max(text.rfind(". ", 0, max_chars), text.rfind(".\n", 0, max_chars))
    if last_sentence > max_chars // 2:
        return last_sentence + 1
    return max_chars


def spec_kept(parts: Sequence[SpecPart], max_tokens: int) -> list[int]:
    """The characters each part keeps with a spec budget of *max_tokens*: requirements ``max_tokens // 2``
    tokens, design what the headers and parts before it (joined by line breaks) leave, at least a quarter."""
    kept: list[int] = []
    so_far = -1  # length of "\n".join(parts so far): each part adds itself and a newline
    for p in parts:
        so_far += len(p.header) + 1
        half, rest = max_tokens // 2, max(max_tokens - so_far // 4, max_tokens // 4)
        tokens = half if p.part == "requirements" else rest
        keep = truncated_length(p.text, tokens * 4)
        kept.append(keep)
        so_far += 1 + (keep if keep == len(p.text) else keep + len(TRUNCATION_MARKER))
    return kept


def paragraph_fates(part: SpecPart, kept: int) -> list[tuple[str, str]]:
    """Each top paragraph's fate when its part keeps *kept* characters: whole, cut inside, or cut before."""
    whole = bisect_right(part.ends, kept)
    out = [(i, INCLUDED) for i in part.ids[:whole]]
    if whole < len(part.ids):
        out.append((part.ids[whole], TRUNCATED if kept > part.starts[whole] else CUT_FOR_BUDGET))
        out.extend((i, CUT_FOR_BUDGET) for i in part.ids[whole + 1 :])
    return out


@dataclass(frozen=True)
class MapModule:
    """One module the map chose: its item id, heading length, and its symbols (id, running end) by line."""

    id: str
    heading: int
    symbol_ids: tuple[str, ...]
    symbol_ends: tuple[int, ...]  # running totals of the entries' lengths, from 0


def map_fates(modules: Sequence[MapModule], limit: int) -> list[tuple[str, str]]:
    """Every map item at a *limit* of characters: each module, and the symbols of those placed."""
    out: list[tuple[str, str]] = []
    used = len(repomap.HEADING)
    for n, module in enumerate(modules):
        if used + module.heading > limit:
            out.extend((m.id, CUT_FOR_BUDGET) for m in modules[n:])
            break
        used += module.heading
        out.append((module.id, INCLUDED))
        placed = bisect_right(module.symbol_ends, limit - used) - 1
        used += module.symbol_ends[placed]
        out.extend((i, INCLUDED) for i in module.symbol_ids[:placed])
        out.extend((i, CUT_FOR_BUDGET) for i in module.symbol_ids[placed:])
    return out


def _running(lengths: Sequence[int]) -> tuple[int, ...]:
    out = [0]
    for n in lengths:
        out.append(out[-1] + n)
    return tuple(out)


# -- the refit -------------------------------------------------------------------------------------------


class ZergRefit:
    """A task's fates at any budget, from its candidates' lengths: see the module's docstring.

    The section shares are fixed upstream, so :attr:`keys` is only ``budget`` and
    :meth:`fates` ignores *shares* (as a whole run does).
    """

    keys: frozenset[str] = frozenset({"budget"})

    def __init__(
        self,
        static: Mapping[str, str],
        engineering: Sequence[tuple[str, int]],
        security: Sequence[tuple[str, int]],
        spec: Sequence[SpecPart],
        modules: Sequence[MapModule],
        budgets: tuple[int, int],
    ) -> None:
        """*static*: every fate no budget changes; *engineering* and *security*: (id, characters) of
        each chosen line and usable block in order; *spec*: the parts with top paragraphs; *modules*:
        the map's chosen modules (no map at all: empty); *budgets*: the accepted range."""
        self._static = dict(static)
        self._eng_ids = tuple(i for i, _ in engineering)
        self._eng_ends = _running([n + 1 for _, n in engineering])
        self._sec_ids = tuple(i for i, _ in security)
        self._sec_sizes = tuple(n for _, n in security)
        self._spec = tuple(spec)
        self._modules = tuple(modules)
        #: The whole map's length (0: no map).
        self._map_chars = len(repomap.HEADING) + sum(m.heading + m.symbol_ends[-1] for m in modules) if modules else 0
        self._budgets = budgets
        self._by_tenths: dict[tuple[int, int, int], dict[str, str]] = {}
        self._by_spec: dict[int, dict[str, str]] = {}
        self._last: tuple[tuple[tuple[int, int, int], int], dict[str, str]] | None = None
        self._ceiling: int | None = None

    def fates(self, budget: int, shares: Mapping[str, float] | None = None) -> Mapping[str, str]:
        """The fates at *budget* (the same mapping as the call before when its section budgets are
        the same: a walk along the budget meets each one about ten times in a row)."""
        tenths = (int(budget * ENGINEERING_SHARE), int(budget * SECURITY_SHARE), int(budget * MAP_SHARE))
        spec_budget = int(budget * SPEC_SHARE)
        if self._last is not None and self._last[0] == (tenths, spec_budget):
            return self._last[1]
        out = self._static.copy()
        a = self._by_tenths.get(tenths)
        if a is None:
            a = self._tenths(*tenths)
        b = self._by_spec.get(spec_budget)
        if b is None:
            b = self._spec_fates(spec_budget)
        out.update(a)
        out.update(b)
        self._last = ((tenths, spec_budget), out)
        return out

    def _tenths(self, engineering: int, security: int, repo_map: int) -> dict[str, str]:
        """The fates the three 10 % sections decide, cached by their budgets."""
        out: dict[str, str] = {}
        kept = engineering_kept(self._eng_ends, engineering * 4)
        out.update(dict.fromkeys(self._eng_ids[:kept], INCLUDED))
        out.update(dict.fromkeys(self._eng_ids[kept:], CUT_FOR_BUDGET))
        for rule, fits in zip(self._sec_ids, security_kept(self._sec_sizes, security * 4), strict=True):
            out[rule] = INCLUDED if fits else CUT_FOR_BUDGET
        out.update(map_fates(self._modules, repo_map * 4))
        if len(self._by_tenths) >= _CACHE_LIMIT:
            self._by_tenths.clear()
        self._by_tenths[(engineering, security, repo_map)] = out
        return out

    @property
    def decided(self) -> frozenset[str]:
        """The engineering lines, the security blocks, the top paragraphs and the map's items."""
        spec = (i for part in self._spec for i in part.ids)
        mapped = (i for m in self._modules for i in (m.id, *m.symbol_ids))
        return frozenset((*self._eng_ids, *self._sec_ids, *spec, *mapped))

    @property
    def sections(self) -> None:
        """The shares are fixed upstream: the budget alone decides (see :attr:`Refit.sections`)."""
        return None

    def _spec_fates(self, spec_budget: int) -> dict[str, str]:
        out: dict[str, str] = {}
        for part, kept in zip(self._spec, spec_kept(self._spec, spec_budget), strict=True):
            out.update(paragraph_fates(part, kept))
        if len(self._by_spec) >= _CACHE_LIMIT:
            self._by_spec.clear()
        self._by_spec[spec_budget] = out
        return out

    def ceiling(self) -> int:
        """The smallest accepted budget from which every candidate of every section fits whole.

        Each section's fates stop changing once all its candidates fit, and until then at least
        one is not included, so this is exactly the last budget at which a fate changes (or the
        bottom of the range).  "All fit" only grows with the budget, so a binary search finds it.
        """
        if self._ceiling is None:
            lo, hi = self._budgets
            if not self._all_fit(hi):
                self._ceiling = hi
            else:
                while lo < hi:
                    mid = (lo + hi) // 2
                    if self._all_fit(mid):
                        hi = mid
                    else:
                        lo = mid + 1
                self._ceiling = lo
        return self._ceiling

    def _all_fit(self, budget: int) -> bool:
        eng, sec, repo_map = (int(budget * s) * 4 for s in (ENGINEERING_SHARE, SECURITY_SHARE, MAP_SHARE))
        if len(self._eng_ends) > 2 and self._eng_ends[-1] > eng:
            return False
        if sum(self._sec_sizes) > sec:
            return False
        if self._map_chars > repo_map:
            return False
        kept = spec_kept(self._spec, int(budget * SPEC_SHARE))
        return all(k == len(p.text) for p, k in zip(self._spec, kept, strict=True))


# -- building it from one run ----------------------------------------------------------------------------


class _ZergRecording(ZergRun):
    """The run, keeping what the four budget decisions read as each stage leaves it."""

    fatal: str | None = None
    #: (id, section, status, rank, text) of the rule drafts (engineering and security).
    rules: list[tuple[str, str, str, int | None, str]] | None = None
    #: (id, part, rank, text) of the spec's top paragraphs.
    spec: list[tuple[str, str, int | None, str]] | None = None
    #: Every module the map chose; kept only once the map's items are in (see :meth:`_repo_map`).
    picks: list[repomap.ModulePick] | None = None
    map_built = False

    def _rules(self, files: TaskFiles, shares: Mapping[str, int], texts: dict[str, str]) -> str | None:
        start = len(self.items)
        self.fatal = super()._rules(files, shares, texts)
        self.rules = [
            (d.id, d.section, d.status, d.rank, d.text) for d in self.items[start:] if isinstance(d, ItemDraft)
        ]
        return self.fatal

    def _spec(self, max_tokens: int) -> str:
        start = len(self.items)
        text = super()._spec(max_tokens)
        self.spec = [(d.id, d.part, d.rank, d.text) for d in self.items[start:] if isinstance(d, ItemDraft)]
        return text

    def _query_map(
        self, graph: repomap.RepoGraph, task_files: Sequence[str], keywords: Sequence[str], max_chars: int
    ) -> repomap.MapResult:
        result = super()._query_map(graph, task_files, keywords, max_chars)
        self.picks = result.picks
        return result

    def _repo_map(self, task_files: Sequence[Any], budget: int) -> str:
        text = super()._repo_map(task_files, budget)
        self.map_built = self.picks is not None  # not reached when the builder raised after its query
        return text


class _LatestRecording(_ZergRecording, LatestRun):
    """:class:`_ZergRecording` for ``mahabharatha-latest``."""


#: The recording run of each profile this refit serves, by the profile's name.
RECORDING: Mapping[str, type[_ZergRecording]] = {
    profile_of_run(run).name: recording for run, recording in ((ZergRun, _ZergRecording), (LatestRun, _LatestRecording))
}


def _spec_parts(top: Sequence[tuple[str, str, int | None, str]]) -> list[SpecPart]:
    by_part: dict[str, list[tuple[int, str, str]]] = {}
    for item_id, part, rank, text in top:
        by_part.setdefault(part, []).append((rank or 0, item_id, text))
    headers = {"requirements": REQUIREMENTS_HEADER, "design": DESIGN_HEADER}
    out = []
    for part, paragraphs in by_part.items():
        paragraphs.sort()
        starts, ends = [], []
        at = 0
        for _, _, text in paragraphs:
            starts.append(at)
            ends.append(at + len(text))
            at += len(text) + 2
        out.append(
            SpecPart(
                part,
                headers[part],
                "\n\n".join(t for _, _, t in paragraphs),
                tuple(i for _, i, _ in paragraphs),
                tuple(starts),
                tuple(ends),
            )
        )
    return out


def _map_modules(picks: Sequence[repomap.ModulePick]) -> list[MapModule]:
    out = []
    for pick in picks:
        symbols = sorted((sym for sym, _ in pick.symbols), key=lambda sym: sym.line)  # as the run places them
        out.append(
            MapModule(
                f"map:{pick.module}",
                len(f"\n### {pick.module}\n"),
                tuple(f"map:{pick.module}:{sym.line}:{sym.name}" for sym in symbols),
                _running([len(sym.entry) for sym in symbols]),
            )
        )
    return out


def build_refit(
    project: Project, feature: Feature, task: Task, settings: Settings, *, whole: WholeRun, source: SpecSource
) -> Refit:
    """*task*'s refit under *settings* (whose profile runs a nine-section version).

    One run at the built settings, as :func:`~ctxviewer.engine.runs.pipeline.assemble_task`
    makes it (the feature through *source*, the estimate counter), records the candidates.
    *whole* (the whole-run refit) is returned instead, exactly when:

    * the profile that runs is another (``mahabharatha`` detecting the seed's version, say);
    * the build run raises (a whole run then raises at every budget too);
    * the whole context fails (the task's ``files`` is not a mapping, or a security rule file
      cannot be read): every fate is then the fall-back's, which this refit does not model;
    * the fast fates at the built budget differ from the build run's (a safeguard: it should
      never happen, and the tests check it does not on every sample task).
    """
    profile = resolve(project.fs, settings)[0]
    run_class = RECORDING.get(profile)
    if run_class is None:
        return whole(project, feature, task, settings)
    counter = get_counter(HEURISTIC)
    try:
        run = run_class(project, source(feature, settings)[0], task, settings, counter, Census(False, HEURISTIC))
        result = run.run()
    except Exception:  # the same run raises at every budget: the whole-run refit says so at each
        return whole(project, feature, task, settings)
    if run.fatal is not None or run.rules is None or run.spec is None:
        return whole(project, feature, task, settings)
    built = {item.id: item.status for item in result.items}
    engineering = [
        (i, len(text)) for i, section, _, rank, text in run.rules if section == ENGINEERING and rank is not None
    ]
    security = [
        (i, len(text))
        for i, section, status, _, text in run.rules
        if section == SECURITY and status in (INCLUDED, CUT_FOR_BUDGET)
    ]
    modules = _map_modules(run.picks) if run.map_built and run.picks is not None else []
    static = {item.id: item.status for item in result.items if item.section != REPO_MAP}
    refit = ZergRefit(static, engineering, security, _spec_parts(run.spec), modules, budget_range(settings))
    if refit.fates(settings.budget) != built:
        return whole(project, feature, task, settings)
    return refit

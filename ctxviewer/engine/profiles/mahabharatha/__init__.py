"""Profile ``mahabharatha``: the reference context pipeline, decision for decision.

Security rules and spec excerpts, each within its share, failing as the real system
fails; the rules are in docs/profiles.md#mahabharatha.  :class:`~.run.MahabharathaRun`
runs the stages in order, each readable and testable alone: :mod:`.assembly` (the task's
files, the fall-back, the sections joined), :mod:`.security` (the matched rule files read,
summarized and fitted) and :mod:`.excerpts` (the spec files loaded, each kept paragraph
placed within its part's budget).  :mod:`.refit` replays the fit and truncation decisions
at other budgets and shares (not imported here: the runs package registers it).
"""

from ctxviewer.engine.profiles.mahabharatha.assembly import (
    SECTION_TITLES,
    TaskFiles,
    fall_back,
    join_sections,
    task_files,
)
from ctxviewer.engine.profiles.mahabharatha.excerpts import (
    DESIGN_HEADER,
    DESIGN_NAMES,
    REQUIREMENTS_HEADER,
    REQUIREMENTS_NAMES,
    ParagraphItems,
    clear_caches,
    part_budget,
    place_drafts,
    place_paragraphs,
    spec_chain,
)
from ctxviewer.engine.profiles.mahabharatha.run import MahabharathaRun
from ctxviewer.engine.profiles.mahabharatha.security import (
    SECURITY_HEADER,
    fit_blocks,
    read_rules,
    rule_items,
    rule_limit,
    skip_chain,
)

__all__ = [
    "DESIGN_HEADER",
    "DESIGN_NAMES",
    "REQUIREMENTS_HEADER",
    "REQUIREMENTS_NAMES",
    "SECTION_TITLES",
    "SECURITY_HEADER",
    "MahabharathaRun",
    "ParagraphItems",
    "TaskFiles",
    "clear_caches",
    "fall_back",
    "fit_blocks",
    "join_sections",
    "part_budget",
    "place_drafts",
    "place_paragraphs",
    "read_rules",
    "rule_items",
    "rule_limit",
    "skip_chain",
    "spec_chain",
    "task_files",
]

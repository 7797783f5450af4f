"""Profile ``mahabharatha``: the reference context pipeline, decision for decision.

The assembled context is the non-empty sections joined by ``"\\n\\n"``:

1. security rules, budget ``int(budget * 0.30)``:
   ``"## Security Rules (task-scoped)\\n\\n" + summary`` -- only when the task has
   create/modify files, filtering is on, and the summary is not empty;
2. spec excerpts, budget ``int(budget * 0.50)``: ``"## Relevant Requirements"`` +
   truncate(top paragraphs, budget // 2), then ``"## Relevant Design"`` +
   truncate(top paragraphs, max(remaining, budget // 4)), where *remaining* is the
   budget minus the estimate of the parts so far joined by ``"\\n"`` (the design
   header included); parts joined by ``"\\n\\n"``.

Failures behave as in the real system: a failing rule filter leaves the security
section out; a failing spec load (a non-text title, a ``files`` entry that is not a
path, a spec file that is not UTF-8) leaves the spec section out; any other failure
(``files`` not a mapping, a rule file that cannot be read) empties the whole context
when ``fallback_to_full`` is true and is an error otherwise.  Every such failure is in
the trace with its cause.

The run (:class:`~.run.MahabharathaRun`) is a sequence of stages, each readable and
testable alone:

* :mod:`.assembly` -- the task's files (:func:`task_files`); the fall-back when the whole
  run failed (:func:`fall_back`); the sections joined in order (:func:`join_sections`);
* :mod:`.security` -- read and summarize the matched rule files (:func:`read_rules`), fit
  their blocks to the limit in order (:func:`fit_blocks`, :func:`rule_limit`), each rule's
  fate as an item (:func:`rule_items`), chain the cuts (:func:`skip_chain`);
* :mod:`.excerpts` -- load each spec file (:func:`load_spec`), its paragraphs as items
  (:class:`ParagraphItems`), each part's budget (:func:`part_budget`), what each kept
  paragraph keeps and its fate (:func:`place_paragraphs`, :func:`place_drafts`), the steps
  on the whole section (:func:`spec_chain`);
* :mod:`.run` -- :class:`MahabharathaRun`, which runs them in order and records their
  decisions;
* :mod:`.refit` -- the fates at other budgets and shares from one run's rule sizes and
  scored spec parts, replaying only the fit and truncation decisions (not imported here:
  the runs package registers it for sensitivity).
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

"""``findings_of(trace, codes)``: only the checks asked for run, and they find what the full run finds."""

from __future__ import annotations

from ctxviewer.engine.analysis.findings import CODES, findings_of
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from tests.cli.helpers import STOREFRONT


def test_a_subset_of_codes_is_the_full_list_filtered() -> None:
    project = load_project(STOREFRONT)
    # CHK-L1-001 at 700 tokens: rule files cut for budget (loaded as memory all the same), an
    # empty section, ties broken by order.
    trace = assemble(project, "cart-checkout", "CHK-L1-001", {"budget": 700}, exact=False)
    everything = findings_of(trace)
    assert {"rule-cut-loaded", "tie-by-order"} <= {f.code for f in everything}
    for wanted in ({"rule-cut-loaded"}, {"tie-by-order", "over-budget"}, set(CODES), set()):
        assert findings_of(trace, wanted) == tuple(f for f in everything if f.code in wanted)

"""Builds task contexts with the real ``zerg-ai`` 0.3.2 plugin, its token records on; run by the oracle
virtualenv's Python.

Reads a JSON list of jobs from stdin: ``{"root", "feature", "task", "env", "worker", "budget",
"security_rule_filtering"}``.  For each,
chdir to the project root, set the plugin's ``ZERG_*`` variables as given (others removed) and
``ZERG_WORKER_ID`` to the job's worker, build a fresh plugin and its task context: upstream's own
``_record_token_metrics`` writes ``.zerg/state/tokens-<worker>.json`` as a worker's would.  Prints
the contexts' lengths (a job that raised: its error).  Not a test module: it imports ``zerg``.
"""

import json
import logging
import os
import sys

logging.disable(logging.CRITICAL)

from zerg import repo_map  # noqa: E402
from zerg.context_plugin import ContextEngineeringPlugin  # noqa: E402
from zerg.plugin_config import ContextEngineeringConfig  # noqa: E402

VARIABLES = ("ANALYSIS_DEPTH", "BEHAVIORAL_MODE", "TDD_MODE", "COMPACT_MODE", "WORKER_ID")


def main() -> None:
    jobs = json.load(sys.stdin)
    home = os.getcwd()
    out = []
    for job in jobs:
        os.chdir(job["root"])
        for name in VARIABLES:
            os.environ.pop("ZERG_" + name, None)
        for name, value in job["env"].items():
            os.environ["ZERG_" + name] = value
        os.environ["ZERG_WORKER_ID"] = job["worker"]
        repo_map.invalidate_cache()
        config = ContextEngineeringConfig(
            task_context_budget_tokens=job["budget"], security_rule_filtering=job["security_rule_filtering"]
        )
        plugin = ContextEngineeringPlugin(config)
        try:
            out.append({"chars": len(plugin.build_task_context(job["task"], {}, job["feature"]))})
        except Exception as exc:
            out.append({"error": f"{type(exc).__name__}: {exc}"})
        os.chdir(home)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()

"""Run an installed upstream context plugin over tasks; a script for ``ctxviewer verify``.

Run as a script by the *user's* interpreter (the one with ``zerg-ai`` or ``mahabharatha``), never
imported: it imports nothing of ctxviewer and only the standard library besides upstream.
Reads on stdin ``{"jobs": [{"root", "feature", "task", "env", "budget",
"security_rule_filtering", "fallback_to_full"}, ...]}``; writes on stdout ``{"package",
"version", "prefix", "results": [{"context": ...} or {"error": "Type: message"}, ...]}``.
Each job runs in the project root with exactly its switch variables and a fresh plugin, its
token records off (the project is never written to).  Exit 3 when no upstream package imports.
"""

import json
import os
import sys
from typing import Any

# The script's own folder holds ctxviewer's modules (zerg.py among them): never import those.
# Nor anything by a relative entry ('', '.'): each job runs in its project's folder, whose
# files (a glob.py, say) must not stand in for the standard library's.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if p and os.path.isabs(p) and os.path.abspath(p) != _HERE]

VARIABLES = ("ANALYSIS_DEPTH", "BEHAVIORAL_MODE", "TDD_MODE", "COMPACT_MODE", "WORKER_ID")


def _load() -> tuple[str, Any, Any, Any]:
    """(package name, plugin module, repo_map module, config module), or exit 3."""
    import importlib
    import logging

    logging.disable(logging.CRITICAL)
    problems = []
    for name in ("mahabharatha", "zerg"):
        try:
            plugin = importlib.import_module(f"{name}.context_plugin")
            repo_map = importlib.import_module(f"{name}.repo_map")
            config = importlib.import_module(f"{name}.plugin_config")
        except Exception as exc:  # not installed, or too new for this Python
            problems.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        return name, plugin, repo_map, config
    sys.stderr.write("no upstream package: " + "; ".join(problems) + "\n")
    raise SystemExit(3)


def _version(package: str) -> str:
    try:
        from importlib.metadata import version

        return version("zerg-ai" if package == "zerg" else package)
    except Exception:
        return "unknown"


def main() -> None:
    request = json.load(sys.stdin)
    package, plugin_module, repo_map, config_module = _load()
    source_path = getattr(plugin_module, "__file__", "") or ""
    with open(source_path, encoding="utf-8") as handle:
        source = handle.read()
    prefix = "MAHABHARATHA_" if "MAHABHARATHA_ANALYSIS_DEPTH" in source else "ZERG_"
    plugin_class = plugin_module.ContextEngineeringPlugin
    plugin_class._record_token_metrics = lambda self, task, components: None  # they never change the text
    home = os.getcwd()
    results = []
    last_root = None
    for job in request["jobs"]:
        os.chdir(job["root"])
        for name in VARIABLES:
            os.environ.pop(prefix + name, None)
        for name, value in job["env"].items():
            os.environ[prefix + name] = value
        if job["root"] != last_root:  # the repository map is cached per process, not per project
            invalidate = getattr(repo_map, "invalidate_cache", None)
            if invalidate is not None:
                invalidate()
            last_root = job["root"]
        config = config_module.ContextEngineeringConfig(
            task_context_budget_tokens=job["budget"],
            security_rule_filtering=job["security_rule_filtering"],
            fallback_to_full=job["fallback_to_full"],
        )
        try:
            plugin = plugin_class(config)  # a fresh one: it reads compact mode when built
            results.append({"context": plugin.build_task_context(job["task"], {}, job["feature"])})
        except Exception as exc:
            results.append({"error": f"{type(exc).__name__}: {exc}"})
        os.chdir(home)
    sys.stdout.write(
        json.dumps({"package": package, "version": _version(package), "prefix": prefix, "results": results})
    )


if __name__ == "__main__":
    main()

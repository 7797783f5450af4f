"""Runs inside the oracle virtualenv (real zerg-ai): one context per job, as JSON lines.

Reads a JSON list of jobs from stdin: {"root", "feature", "task", "env", "budget"}.
For each, chdir to the project root, set the plugin's environment variables exactly as
given (others removed), build a fresh plugin (it reads compact mode when built), clear
the repository map's cache between projects, and print {"context": ...} or {"error": ...}.
The plugin's token records (written after the text is final) are switched off: they
never change the text and rewriting the token cache per task is slow.
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


def symbols(jobs: list[dict[str, str]]) -> list[dict[str, list[list[object]]]]:
    """The repository map's extractors alone: {"js": source} or {"py": source} per job."""
    import tempfile
    from pathlib import Path

    from zerg.repo_map import _extract_python_symbols
    from zerg.repo_map_js import extract_js_symbols

    out = []
    folder = Path(tempfile.mkdtemp())
    for job in jobs:
        if "js" in job:
            found = [[s.name, s.kind, s.signature, s.line, s.docstring] for s in extract_js_symbols(job["js"])]
            out.append({"symbols": found, "edges": []})
        else:
            path = folder / "m.py"
            path.write_text(job["py"], encoding="utf-8")
            syms, edges = _extract_python_symbols(path, "pkg.m")
            found = [[s.name, s.kind, s.signature, s.line, s.docstring] for s in syms]
            out.append({"symbols": found, "edges": [[e.source, e.target] for e in edges]})
    return out


def prompts(jobs: list[dict[str, object]]) -> list[dict[str, str]]:
    """The worker's prompt per job {"root", "feature", "task"}: the spec context a worker for
    that feature loads at start (its spec loader on the project's .gsd), then the real
    ProtocolHandler._build_task_prompt; {"prompt": ...} or {"error": "TypeName: ..."}."""
    from pathlib import Path
    from types import SimpleNamespace

    from zerg.protocol_handler import ProtocolHandler
    from zerg.spec_loader import SpecLoader

    out = []
    for job in jobs:
        loader = SpecLoader(gsd_dir=Path(str(job["root"])) / ".gsd")
        feature = str(job["feature"])
        try:
            spec = loader.load_and_format(feature) if loader.specs_exist(feature) else ""
            handler = SimpleNamespace(_spec_context=spec)
            out.append({"prompt": ProtocolHandler._build_task_prompt(handler, job["task"])})  # type: ignore[arg-type]
        except Exception as exc:
            out.append({"error": f"{type(exc).__name__}: {exc}"})
    return out


def records(jobs: list[dict[str, object]]) -> list[dict[str, object]]:
    """The plugin run as in main, with its token records on: after each job, the text of the
    worker's token file (``.zerg/state/tokens-<ZERG_WORKER_ID>.json`` under the job's root; null
    when there is none yet) as {"context", "file"}."""
    from pathlib import Path

    out: list[dict[str, object]] = []
    home = os.getcwd()
    for job in jobs:
        os.chdir(str(job["root"]))
        env = dict(job["env"])  # type: ignore[call-overload]
        for name in VARIABLES:
            os.environ.pop("ZERG_" + name, None)
        for name, value in env.items():
            os.environ["ZERG_" + name] = value
        repo_map.invalidate_cache()
        config = ContextEngineeringConfig(
            task_context_budget_tokens=job.get("budget", 4000),  # type: ignore[arg-type]
            security_rule_filtering=job.get("security_rule_filtering", True),  # type: ignore[arg-type]
        )
        context = ContextEngineeringPlugin(config).build_task_context(job["task"], {}, job["feature"])  # type: ignore[arg-type]
        path = Path(".zerg/state") / f"tokens-{env.get('WORKER_ID', 'unknown')}.json"
        out.append({"context": context, "file": path.read_text() if path.exists() else None})
        os.chdir(home)
    return out


def main() -> None:
    jobs = json.load(sys.stdin)
    if "records" in sys.argv[1:]:
        json.dump(records(jobs), sys.stdout)
        return
    if "symbols" in sys.argv[1:]:
        json.dump(symbols(jobs), sys.stdout)
        return
    if "prompt" in sys.argv[1:]:
        json.dump(prompts(jobs), sys.stdout)
        return
    home = os.getcwd()
    out = []
    last_root = None
    ContextEngineeringPlugin._record_token_metrics = lambda self, task, components: None  # type: ignore[method-assign]
    for job in jobs:
        os.chdir(job["root"])
        for name in VARIABLES:
            os.environ.pop("ZERG_" + name, None)
        for name, value in job["env"].items():
            os.environ["ZERG_" + name] = value
        os.environ["ZERG_WORKER_ID"] = job["env"].get("WORKER_ID", "oracle")
        if job["root"] != last_root:
            repo_map.invalidate_cache()
            last_root = job["root"]
        config = ContextEngineeringConfig(
            task_context_budget_tokens=job.get("budget", 4000),
            security_rule_filtering=job.get("security_rule_filtering", True),
        )
        plugin = ContextEngineeringPlugin(config)
        try:
            out.append({"context": plugin.build_task_context(job["task"], {}, job["feature"])})
        except Exception as exc:
            out.append({"error": f"{type(exc).__name__}: {exc}"})
        os.chdir(home)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()

"""Sites as SARIF 2.1.0, the log code-scanning dashboards read (``check``/``diff --format sarif``;
docs/ci.md#sarif): every rule with its line and a link to its documentation, every site a result
at its file and line, with a fingerprint that survives edits elsewhere in the file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ctxviewer.engine.exports.sites import RULES, Site

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: The label of the package's documentation address in its metadata (pyproject's
#: ``[project.urls]``); without one, rules name their documentation by its path instead.
DOCS_LABEL = "Documentation"
#: The ``partialFingerprints`` key: ours, versioned, so a change of what it hashes is a new key.
FINGERPRINT_KEY = "ctxviewerSite/v1"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def docs_url() -> str | None:
    """The address of the documentation folder the installed package declares, if it declares one."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        urls: list[str] = metadata("ctxviewer").get_all("Project-URL") or []
    except PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = str(entry).partition(",")
        if label.strip() == DOCS_LABEL and url.strip().startswith("https://"):
            return url.strip().rstrip("/") + "/"
    return None


def help_path(rule: str) -> str:
    """Where *rule* is documented in the repository: its heading's anchor as GitHub makes it."""
    from ctxviewer.engine.analysis.findings import CODES

    if rule in CODES:
        return f"docs/findings.md#{rule}-{CODES[rule][0]}"
    return f"docs/ci.md#{rule}"


def _rule(rule: str, severity: str, meaning: str, docs: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": rule,
        "shortDescription": {"text": meaning},
        "fullDescription": {"text": meaning},
        "help": {"text": f"{meaning}. Documented in ctxviewer's {help_path(rule)}."},
        "defaultConfiguration": {"level": LEVELS[severity]},
        "properties": {"severity": severity, "docs": help_path(rule)},
    }
    if docs is not None:  # SARIF's helpUri is absolute: only where the package names its docs
        entry["helpUri"] = docs + help_path(rule).removeprefix("docs/")
    return entry


def fingerprints(sites: Sequence[Site]) -> list[str]:
    """Each site's fingerprint: a hash of its identity and, for identities that repeat, the
    count of those before it (as ``hash:n``)."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for site in sites:
        digest = hashlib.sha256(site.identity.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        n = seen.get(digest, 0) + 1
        seen[digest] = n
        out.append(f"{digest}:{n}")
    return out


def sarif_log(sites: Sequence[Site], version: str, rules: Mapping[str, tuple[str, str]] = RULES) -> dict[str, Any]:
    """*sites* as one SARIF run of the ``ctxviewer`` tool (*version*), declaring every rule of *rules*."""
    index = {rule: n for n, rule in enumerate(rules)}
    results: list[dict[str, Any]] = []
    for site, fingerprint in zip(sites, fingerprints(sites), strict=True):
        result: dict[str, Any] = {
            "ruleId": site.rule,
            "ruleIndex": index[site.rule],
            "level": LEVELS[site.severity],
            "message": {"text": f"{site.feature}/{site.task}: {site.message}"},
            "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
            "properties": {"feature": site.feature, "task": site.task, "fails": site.fails},
        }
        if site.path:
            physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(site.path)}}
            if site.line is not None:
                physical["region"] = {"startLine": site.line}
            result["locations"] = [{"physicalLocation": physical}]
        results.append(result)
    docs = docs_url()
    driver: dict[str, Any] = {
        "name": "ctxviewer",
        "version": version,
        **({"informationUri": docs + "ci.md"} if docs is not None else {}),
        "rules": [_rule(rule, severity, meaning, docs) for rule, (severity, meaning) in rules.items()],
    }
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }


def sarif_text(sites: Sequence[Site], version: str) -> str:
    """:func:`sarif_log` as indented JSON, ending in a newline."""
    return json.dumps(sarif_log(sites, version), ensure_ascii=False, indent=2) + "\n"


def _uri(path: str) -> str:
    """A path as a URI reference: relative paths stay relative; an absolute one is a file URI."""
    from urllib.parse import quote

    quoted = quote(path, safe="/-._~")
    return f"file://{quoted}" if path.startswith("/") else quoted

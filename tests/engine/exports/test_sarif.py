"""SARIF: every rule declared with its documentation's address, levels from severity, results at
their file and line, fingerprints from identities (never from lines); the log validates against
the official SARIF 2.1.0 schema (tests/data/README.md says where that copy comes from)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from jsonschema import Draft4Validator

from ctxviewer.engine.analysis.findings import CODES
from ctxviewer.engine.exports import sarif
from ctxviewer.engine.exports.sarif import FINGERPRINT_KEY, fingerprints, help_path, sarif_log
from ctxviewer.engine.exports.sites import EXTRA_RULES, RULES, Site

REPO = Path(__file__).resolve().parents[3]
SARIF_SCHEMA = json.loads((REPO / "tests/data/sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


def sarif_errors(log: dict) -> list[str]:
    """The official schema's complaints about *log* (none: valid)."""
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in Draft4Validator(SARIF_SCHEMA).iter_errors(log)
    ]


def site(rule: str, severity: str, identity: str, path: str = "p/a.md", line: int | None = 3) -> Site:
    return Site(rule, severity, "feat", "T1", "a sentence", path, line, identity)


def test_the_official_schema_is_the_oasis_one_and_rejects_what_it_should() -> None:
    assert SARIF_SCHEMA["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    assert sarif_errors({"version": "2.1.0", "runs": []}) == []
    assert sarif_errors({"version": "2.2.0", "runs": []})  # a test that can fail


def test_every_rule_is_declared_with_its_level_and_an_absolute_help_address() -> None:
    log = sarif_log([], "1.2.3")
    assert sarif_errors(log) == []
    driver = log["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("ctxviewer", "1.2.3")
    assert [r["id"] for r in driver["rules"]] == [*CODES, *EXTRA_RULES]
    levels = {"error": "error", "warning": "warning", "info": "note"}
    for rule in driver["rules"]:
        severity, meaning = RULES[rule["id"]]
        assert rule["shortDescription"]["text"] == meaning
        assert rule["defaultConfiguration"]["level"] == levels[severity]
        # The package declares no documentation address: each rule names its doc by path.
        assert "helpUri" not in rule and rule["properties"]["docs"] == help_path(rule["id"])
        assert rule["help"]["text"].endswith(f"Documented in ctxviewer's {help_path(rule['id'])}.")


def test_a_declared_documentation_address_gives_absolute_help_uris(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sarif, "docs_url", lambda: "https://docs.example/ctxviewer/")
    driver = sarif_log([], "1.2.3")["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://docs.example/ctxviewer/ci.md"
    rules = {r["id"]: r for r in driver["rules"]}
    assert rules["rule-cut"]["helpUri"] == "https://docs.example/ctxviewer/findings.md#rule-cut-error"
    assert all(urlparse(r["helpUri"]).scheme == "https" for r in driver["rules"])


def _github_anchor(heading: str) -> str:
    """A Markdown heading's anchor as GitHub makes it: lower case, punctuation but hyphens
    dropped, spaces made hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_each_help_address_is_a_heading_of_the_doc_it_names() -> None:
    docs = {
        name: {
            _github_anchor(line.lstrip("#"))
            for line in (REPO / "docs" / name).read_text().splitlines()
            if line.startswith("#")
        }
        for name in ("findings.md", "ci.md")
    }
    for rule in RULES:
        page, anchor = help_path(rule).removeprefix("docs/").split("#")
        assert anchor in docs[page], (rule, page, anchor)
    assert help_path("rule-cut") == "docs/findings.md#rule-cut-error"  # "## `rule-cut` (error)"


def test_results_sit_at_their_file_and_line_with_the_level_of_their_severity() -> None:
    sites = [
        site("rule-cut", "error", "a"),
        site("tie-by-order", "info", "b", line=None),
        site("section-empty", "warning", "c", path=""),
        site("over-limit", "error", "d", path="/abs/dir with space/g.json", line=7),
    ]
    log = sarif_log(sites, "0")
    assert sarif_errors(log) == []
    results = log["runs"][0]["results"]
    assert [r["level"] for r in results] == ["error", "note", "warning", "error"]
    assert results[0]["locations"] == [
        {"physicalLocation": {"artifactLocation": {"uri": "p/a.md"}, "region": {"startLine": 3}}}
    ]
    assert results[1]["locations"] == [{"physicalLocation": {"artifactLocation": {"uri": "p/a.md"}}}]
    assert "locations" not in results[2]
    assert results[3]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "file:///abs/dir%20with%20space/g.json"
    )
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [rules[r["ruleIndex"]]["id"] for r in results] == [r["ruleId"] for r in results]
    assert results[0]["message"]["text"] == "feat/T1: a sentence"


def test_fingerprints_hash_the_identity_and_count_repeats() -> None:
    same = [site("tie-by-order", "info", "x", line=3), site("tie-by-order", "info", "x", line=90)]
    other = site("tie-by-order", "info", "y")
    prints = fingerprints([*same, other])
    assert prints[0].endswith(":1") and prints[1].endswith(":2") and prints[2].endswith(":1")
    assert prints[0].split(":")[0] == prints[1].split(":")[0] != prints[2].split(":")[0]
    moved = fingerprints([site("tie-by-order", "info", "x", line=40)])
    assert moved[0] == prints[0]  # the line never enters
    log = sarif_log(same, "0")
    assert [r["partialFingerprints"][FINGERPRINT_KEY] for r in log["runs"][0]["results"]] == prints[:2]

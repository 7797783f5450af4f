"""The published schemas: one shipped file per output, each a valid draft 2020-12 schema whose
``schema_version`` is the one the output carries, copied unchanged to docs/schemas/."""

from __future__ import annotations

import json
from importlib.resources import files

import pytest
from jsonschema import Draft202012Validator

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.exports.schemas import SCHEMA_SUMMARIES, SCHEMA_VERSIONS, schema, schema_text, versioned
from tests.conftest import REPO

SHIPPED = files("ctxviewer.engine.exports.schemas")


def test_every_output_has_one_shipped_schema_and_docs_holds_the_same_files() -> None:
    shipped = sorted(p.name for p in SHIPPED.iterdir() if p.name.endswith(".schema.json"))
    assert shipped == sorted(f"{name}.schema.json" for name in SCHEMA_VERSIONS)
    assert set(SCHEMA_SUMMARIES) == set(SCHEMA_VERSIONS)
    docs = sorted(p.name for p in (REPO / "docs" / "schemas").iterdir())
    assert docs == shipped
    for name in SCHEMA_VERSIONS:
        assert (REPO / "docs" / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8") == schema_text(name)


@pytest.mark.parametrize("name", list(SCHEMA_VERSIONS))
def test_each_is_a_2020_12_schema_of_its_version(name: str) -> None:
    data = schema(name)
    Draft202012Validator.check_schema(data)
    assert data["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert data["properties"]["schema_version"] == {"const": SCHEMA_VERSIONS[name]}
    assert "schema_version" in data["required"]


def test_a_schema_refuses_what_its_output_never_is() -> None:
    check = Draft202012Validator(schema("check"))
    good = versioned(
        "check",
        {
            "limit": 4000,
            "tokenizer": "heuristic",
            "tasks": 1,
            "over": [],
            "fail_on": ["rule-cut"],
            "ignored": [],
            "exact": False,
            "failing": 0,
            "findings": [],
        },
    )
    assert list(check.iter_errors(good)) == []
    assert list(check.iter_errors({**good, "schema_version": "0.9"}))  # another version
    assert list(check.iter_errors({k: v for k, v in good.items() if k != "limit"}))  # a key missing
    assert list(check.iter_errors({**good, "surprise": 1}))  # a key no version has
    assert list(check.iter_errors({**good, "tasks": "1"}))  # a count as text


def test_versioned_puts_the_version_first_and_an_unknown_name_is_bad_input() -> None:
    assert list(versioned("list", {"project": "p"})) == ["schema_version", "project"]
    with pytest.raises(CtxViewerError, match="no schema 'nope'; schemas: trace, batch-row"):
        schema_text("nope")
    assert json.loads(schema_text("trace"))["properties"]["schema_version"]["const"] == SCHEMA_VERSIONS["trace"]

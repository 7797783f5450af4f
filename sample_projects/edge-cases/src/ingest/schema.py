"""Schema registry client and event validation.

Schemas are JSON documents identified by ``(subject, version)``. Events carry
their subject and version in the envelope; validation looks the schema up,
caches it, and checks required fields and primitive types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TYPE_CHECKS = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


class SchemaError(ValueError):
    pass


@dataclass(frozen=True)
class Schema:
    subject: str
    version: int
    fields: dict[str, str]
    required: frozenset[str]

    @classmethod
    def from_document(cls, doc: dict[str, Any]) -> "Schema":
        fields = {name: spec["type"] for name, spec in doc["properties"].items()}
        unknown = {t for t in fields.values() if t not in TYPE_CHECKS}
        if unknown:
            raise SchemaError(f"unsupported types: {sorted(unknown)}")
        return cls(doc["subject"], int(doc["version"]), fields, frozenset(doc.get("required", ())))

    def validate(self, payload: dict[str, Any]) -> list[str]:
        problems = [f"missing field {name}" for name in sorted(self.required) if name not in payload]
        for name, value in payload.items():
            expected = self.fields.get(name)
            if expected is None:
                problems.append(f"unexpected field {name}")
            elif value is not None and not TYPE_CHECKS[expected](value):
                problems.append(f"field {name} should be {expected}")
        return problems


class SchemaRegistry:
    def __init__(self, fetch) -> None:
        self._fetch = fetch  # callable (subject, version) -> dict
        self._cache: dict[tuple[str, int], Schema] = {}

    def get(self, subject: str, version: int) -> Schema:
        key = (subject, version)
        if key not in self._cache:
            self._cache[key] = Schema.from_document(self._fetch(subject, version))
        return self._cache[key]

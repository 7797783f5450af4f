"""User records and role helpers."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ledger import db

ROLES = ("customer", "operator", "auditor", "admin")


@dataclass
class User:
    id: str
    email: str
    password_hash: str
    roles: set[str] = field(default_factory=set)
    disabled: bool = False
    created_at: datetime | None = None
    password_changed_at: datetime | None = None

    def has_role(self, role: str) -> bool:
        return role in self.roles or "admin" in self.roles

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "User":
        return cls(
            id=row["id"],
            email=row["email"],
            password_hash=row["password_hash"],
            roles=set(row.get("roles") or ()),
            disabled=row.get("disabled", False),
            created_at=row.get("created_at"),
            password_changed_at=row.get("password_changed_at"),
        )


def find_by_email(email: str) -> User | None:
    row = db.fetch_one(
        "SELECT id, email, password_hash, roles, disabled, created_at, password_changed_at "
        "FROM users WHERE lower(email) = lower(%s)",
        (email,),
    )
    return User.from_row(row) if row else None


def find_by_id(user_id: str) -> User | None:
    row = db.fetch_one(
        "SELECT id, email, password_hash, roles, disabled, created_at, password_changed_at FROM users WHERE id = %s",
        (user_id,),
    )
    return User.from_row(row) if row else None

"""Ledger accounts.

An account has a type that decides the sign convention of its balance:
assets and expenses are debit-normal, liabilities, equity and income are
credit-normal.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ledger import db


class AccountType(str, enum.Enum):
    ASSET = "asset"
    LIABILITY = "liability"
    EQUITY = "equity"
    INCOME = "income"
    EXPENSE = "expense"

    @property
    def debit_normal(self) -> bool:
        return self in (AccountType.ASSET, AccountType.EXPENSE)


class AccountStatus(str, enum.Enum):
    OPEN = "open"
    FROZEN = "frozen"
    CLOSED = "closed"


@dataclass
class Account:
    id: str
    owner_id: str
    name: str
    type: AccountType
    currency: str
    status: AccountStatus
    created_at: datetime
    allow_negative: bool = False

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "Account":
        return cls(
            id=row["id"],
            owner_id=row["owner_id"],
            name=row["name"],
            type=AccountType(row["type"]),
            currency=row["currency"],
            status=AccountStatus(row["status"]),
            created_at=row["created_at"],
            allow_negative=row.get("allow_negative", False),
        )


def get(account_id: str) -> Account | None:
    row = db.fetch_one("SELECT * FROM accounts WHERE id = %s", (account_id,))
    return Account.from_row(row) if row else None


def list_for_owner(owner_id: str, limit: int, after: str | None = None) -> list[Account]:
    if after:
        rows = db.fetch_all(
            "SELECT * FROM accounts WHERE owner_id = %s AND id > %s ORDER BY id LIMIT %s",
            (owner_id, after, limit),
        )
    else:
        rows = db.fetch_all("SELECT * FROM accounts WHERE owner_id = %s ORDER BY id LIMIT %s", (owner_id, limit))
    return [Account.from_row(r) for r in rows]

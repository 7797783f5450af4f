"""Journal transactions and their entries (double entry).

A transaction groups two or more entries. The sum of debits equals the sum
of credits per currency; this invariant is checked by
:func:`Transaction.assert_balanced` before anything is written.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from ledger.money import Money


class Direction(str, enum.Enum):
    DEBIT = "debit"
    CREDIT = "credit"


class TransactionStatus(str, enum.Enum):
    PENDING = "pending"
    POSTED = "posted"
    REVERSED = "reversed"


class UnbalancedTransaction(ValueError):
    pass


@dataclass(frozen=True)
class Entry:
    account_id: str
    direction: Direction
    amount: Money
    memo: str = ""


@dataclass
class Transaction:
    id: str
    entries: list[Entry]
    effective_date: datetime
    status: TransactionStatus = TransactionStatus.PENDING
    description: str = ""
    idempotency_key: str | None = None
    reverses: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)

    def assert_balanced(self) -> None:
        if len(self.entries) < 2:
            raise UnbalancedTransaction("a transaction needs at least two entries")
        totals: dict[str, int] = defaultdict(int)
        for entry in self.entries:
            if entry.amount.minor <= 0:
                raise UnbalancedTransaction("entry amounts must be positive")
            sign = 1 if entry.direction is Direction.DEBIT else -1
            totals[entry.amount.currency] += sign * entry.amount.minor
        unbalanced = {cur: total for cur, total in totals.items() if total != 0}
        if unbalanced:
            raise UnbalancedTransaction(f"debits and credits differ: {unbalanced}")

    def reversal(self, new_id: str, when: datetime) -> "Transaction":
        flipped = [
            Entry(
                e.account_id,
                Direction.CREDIT if e.direction is Direction.DEBIT else Direction.DEBIT,
                e.amount,
                f"reversal of {self.id}",
            )
            for e in self.entries
        ]
        return Transaction(id=new_id, entries=flipped, effective_date=when, reverses=self.id)

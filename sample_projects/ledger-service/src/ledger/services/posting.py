"""Posting service: validates and writes balanced transactions.

Posting is the only code path allowed to insert rows into ``entries``.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime, timezone

from ledger import db
from ledger.models import account as account_model
from ledger.models.account import AccountStatus
from ledger.models.transaction import Transaction, TransactionStatus

log = logging.getLogger("ledger.posting")


class PostingError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def new_transaction_id() -> str:
    return f"txn_{uuid.uuid4().hex}"


def _check_accounts(txn: Transaction) -> None:
    for entry in txn.entries:
        acc = account_model.get(entry.account_id)
        if acc is None:
            raise PostingError("account_not_found", f"unknown account {entry.account_id}")
        if acc.status is not AccountStatus.OPEN:
            raise PostingError("account_not_open", f"account {acc.id} is {acc.status.value}")
        if acc.currency != entry.amount.currency:
            raise PostingError("currency_mismatch", f"account {acc.id} is {acc.currency}")


def post(txn: Transaction) -> Transaction:
    txn.assert_balanced()
    _check_accounts(txn)
    with db.transaction() as cur:
        cur.execute(
            "INSERT INTO transactions (id, status, description, effective_date, reverses, created_at) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            (
                txn.id,
                TransactionStatus.POSTED.value,
                txn.description,
                txn.effective_date,
                txn.reverses,
                datetime.now(timezone.utc),
            ),
        )
        for entry in txn.entries:
            cur.execute(
                "INSERT INTO entries (transaction_id, account_id, direction, amount_minor, currency, memo) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                (txn.id, entry.account_id, entry.direction.value, entry.amount.minor, entry.amount.currency, entry.memo),
            )
    txn.status = TransactionStatus.POSTED
    log.info("posted transaction", extra={"transaction_id": txn.id, "entries": len(txn.entries)})
    return txn

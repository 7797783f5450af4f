"""Balance queries.

Balances are computed from entries on demand. A materialized projection
(``account_balances``) is planned; see the transactions-api design.
"""

from __future__ import annotations

from datetime import datetime

from ledger import db
from ledger.models.account import Account
from ledger.money import Money


def _signed_sum(account: Account, as_of: datetime | None) -> int:
    sql = (
        "SELECT COALESCE(SUM(CASE WHEN direction = 'debit' THEN amount_minor ELSE -amount_minor END), 0) AS net "
        "FROM entries e JOIN transactions t ON t.id = e.transaction_id "
        "WHERE e.account_id = %s AND t.status = 'posted'"
    )
    params: list = [account.id]
    if as_of is not None:
        sql += " AND t.effective_date <= %s"
        params.append(as_of)
    row = db.fetch_one(sql, params)
    return int(row["net"]) if row else 0


def current_balance(account: Account) -> Money:
    net = _signed_sum(account, None)
    return Money(net if account.type.debit_normal else -net, account.currency)


def balance_as_of(account: Account, as_of: datetime) -> Money:
    net = _signed_sum(account, as_of)
    return Money(net if account.type.debit_normal else -net, account.currency)

"""Transaction endpoints (first cut).

Only listing and fetching are implemented. Creating transactions goes
through ``POST /v1/transactions`` once the posting service and idempotency
store land (feature: transactions-api).
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request

from ledger import db

router = APIRouter()


@router.get("/{transaction_id}")
def get_transaction(transaction_id: str, request: Request) -> dict:
    row = db.fetch_one(
        "SELECT t.id, t.status, t.description, t.effective_date "
        "FROM transactions t JOIN entries e ON e.transaction_id = t.id "
        "JOIN accounts a ON a.id = e.account_id "
        "WHERE t.id = %s AND a.owner_id = %s LIMIT 1",
        (transaction_id, request.state.user.id),
    )
    if row is None:
        raise HTTPException(status_code=404, detail="transaction_not_found")
    entries = db.fetch_all(
        "SELECT account_id, direction, amount_minor, currency, memo FROM entries WHERE transaction_id = %s",
        (transaction_id,),
    )
    return {
        "id": row["id"],
        "status": row["status"],
        "description": row["description"],
        "effective_date": row["effective_date"].isoformat(),
        "entries": entries,
    }


@router.get("")
def list_transactions(request: Request, account_id: str, limit: int = 50) -> dict:
    limit = max(1, min(limit, 500))
    rows = db.fetch_all(
        "SELECT DISTINCT t.id, t.status, t.effective_date FROM transactions t "
        "JOIN entries e ON e.transaction_id = t.id JOIN accounts a ON a.id = e.account_id "
        "WHERE e.account_id = %s AND a.owner_id = %s ORDER BY t.effective_date DESC LIMIT %s",
        (account_id, request.state.user.id, limit),
    )
    return {"items": rows}

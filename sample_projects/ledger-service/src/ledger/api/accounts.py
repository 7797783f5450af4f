"""Account endpoints."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Query, Request

from ledger.config import get_settings
from ledger.models import account as account_model
from ledger.services import balances

router = APIRouter()


def _serialize(acc: account_model.Account) -> dict:
    return {
        "id": acc.id,
        "name": acc.name,
        "type": acc.type.value,
        "currency": acc.currency,
        "status": acc.status.value,
        "created_at": acc.created_at.isoformat(),
    }


@router.get("")
def list_accounts(request: Request, limit: int = Query(None, ge=1), after: str | None = None) -> dict:
    settings = get_settings()
    limit = min(limit or settings.page_size_default, settings.page_size_max)
    items = account_model.list_for_owner(request.state.user.id, limit + 1, after)
    has_more = len(items) > limit
    items = items[:limit]
    return {
        "items": [_serialize(a) for a in items],
        "next": items[-1].id if has_more else None,
    }


@router.get("/{account_id}")
def get_account(account_id: str, request: Request) -> dict:
    acc = account_model.get(account_id)
    user = request.state.user
    if acc is None or (acc.owner_id != user.id and not user.has_role("auditor")):
        raise HTTPException(status_code=404, detail="account_not_found")
    return _serialize(acc)


@router.get("/{account_id}/balance")
def get_balance(account_id: str, request: Request) -> dict:
    acc = account_model.get(account_id)
    user = request.state.user
    if acc is None or (acc.owner_id != user.id and not user.has_role("auditor")):
        raise HTTPException(status_code=404, detail="account_not_found")
    bal = balances.current_balance(acc)
    return {"account_id": acc.id, "balance": str(bal.to_decimal()), "currency": bal.currency}

"""Match bank statement lines against ledger entries.

Matching runs in passes from the most to the least certain rule. A line
matched in an earlier pass is never considered again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from ledger.reconciliation.statement_parser import StatementLine


@dataclass(frozen=True)
class LedgerCandidate:
    entry_id: str
    transaction_id: str
    effective_date: date
    amount_minor: int
    currency: str
    reference: str


@dataclass
class MatchResult:
    matched: list[tuple[StatementLine, LedgerCandidate, str]] = field(default_factory=list)
    unmatched_lines: list[StatementLine] = field(default_factory=list)
    unmatched_entries: list[LedgerCandidate] = field(default_factory=list)


def _exact_reference(line: StatementLine, cand: LedgerCandidate) -> bool:
    return (
        line.reference != ""
        and line.reference == cand.reference
        and line.amount.minor == cand.amount_minor
        and line.amount.currency == cand.currency
    )


def _amount_and_date(line: StatementLine, cand: LedgerCandidate, window_days: int = 2) -> bool:
    return (
        line.amount.minor == cand.amount_minor
        and line.amount.currency == cand.currency
        and abs(line.value_date - cand.effective_date) <= timedelta(days=window_days)
    )


PASSES = (("exact_reference", _exact_reference), ("amount_and_date", _amount_and_date))


def match(lines: list[StatementLine], candidates: list[LedgerCandidate]) -> MatchResult:
    result = MatchResult()
    open_lines = list(lines)
    open_cands = list(candidates)
    for rule_name, rule in PASSES:
        still_open: list[StatementLine] = []
        for line in open_lines:
            hit = next((c for c in open_cands if rule(line, c)), None)
            if hit is None:
                still_open.append(line)
                continue
            open_cands.remove(hit)
            result.matched.append((line, hit, rule_name))
        open_lines = still_open
    result.unmatched_lines = open_lines
    result.unmatched_entries = open_cands
    return result

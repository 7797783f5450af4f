"""Bank statement parsing.

Supports the CSV export format used by the partner bank. Each line becomes
a :class:`StatementLine`. Camt.053 XML support is planned.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import date

from ledger.money import Money

REQUIRED_COLUMNS = ("booking_date", "value_date", "amount", "currency", "reference", "counterparty")


class StatementFormatError(ValueError):
    pass


@dataclass(frozen=True)
class StatementLine:
    line_no: int
    booking_date: date
    value_date: date
    amount: Money
    reference: str
    counterparty: str


def parse_csv(data: bytes, *, max_lines: int = 100_000) -> list[StatementLine]:
    text = data.decode("utf-8-sig")
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise StatementFormatError(f"missing columns: {', '.join(missing)}")
    lines: list[StatementLine] = []
    for i, row in enumerate(reader, start=2):
        if i > max_lines + 1:
            raise StatementFormatError("statement too large")
        try:
            lines.append(
                StatementLine(
                    line_no=i,
                    booking_date=date.fromisoformat(row["booking_date"]),
                    value_date=date.fromisoformat(row["value_date"]),
                    amount=Money.parse(row["amount"], row["currency"]),
                    reference=row["reference"].strip(),
                    counterparty=row["counterparty"].strip(),
                )
            )
        except (KeyError, ValueError) as exc:
            raise StatementFormatError(f"line {i}: {exc}") from exc
    return lines

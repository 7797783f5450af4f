"""Output formatters shared by reports.

CSV output neutralizes cells that spreadsheet software would evaluate as
formulas.
"""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from typing import Any, Iterable, Sequence

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def _safe_cell(value: Any) -> str:
    text = "" if value is None else str(value)
    if text.startswith(FORMULA_PREFIXES) and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        Decimal(text)
    except Exception:  # noqa: BLE001
        return False
    return True


def to_csv(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(headers)
    for row in rows:
        writer.writerow([_safe_cell(v) for v in row])
    return buf.getvalue()


def to_json(payload: Any) -> str:
    return json.dumps(payload, default=str, indent=2, sort_keys=True)

"""Money value type.

Amounts are stored as integer minor units together with an ISO-4217
currency code. Arithmetic between different currencies is an error; use an
explicit FX conversion in the posting service instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

MINOR_UNITS = {"USD": 2, "EUR": 2, "GBP": 2, "JPY": 0, "KWD": 3}


class CurrencyMismatch(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Money:
    minor: int
    currency: str

    @classmethod
    def parse(cls, amount: str, currency: str) -> "Money":
        exponent = MINOR_UNITS[currency]
        quantum = Decimal(1).scaleb(-exponent)
        value = Decimal(amount).quantize(quantum, rounding=ROUND_HALF_EVEN)
        return cls(int(value.scaleb(exponent)), currency)

    def _check(self, other: "Money") -> None:
        if self.currency != other.currency:
            raise CurrencyMismatch(f"{self.currency} != {other.currency}")

    def __add__(self, other: "Money") -> "Money":
        self._check(other)
        return Money(self.minor + other.minor, self.currency)

    def __sub__(self, other: "Money") -> "Money":
        self._check(other)
        return Money(self.minor - other.minor, self.currency)

    def __neg__(self) -> "Money":
        return Money(-self.minor, self.currency)

    def is_zero(self) -> bool:
        return self.minor == 0

    def to_decimal(self) -> Decimal:
        return Decimal(self.minor).scaleb(-MINOR_UNITS[self.currency])

    def __str__(self) -> str:
        return f"{self.to_decimal()} {self.currency}"

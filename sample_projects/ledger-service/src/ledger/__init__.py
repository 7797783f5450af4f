"""ledger-service: accounts, double-entry transactions and reconciliation."""

__version__ = "0.7.2"

"""Event ingest pipeline."""

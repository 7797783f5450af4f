"""Deprecated CSV loader from before the NDJSON envelope format.

Nothing imports this module any more; it is kept until the yaml-graph
feature deletes it (task YG-L1-004).
"""

import csv


def load_rows(path):
    rows = []
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if not row.get("event_id"):
                continue
            rows.append(
                {
                    "event_id": row["event_id"],
                    "subject": row.get("subject", "unknown"),
                    "ts": row.get("ts", ""),
                    "payload": {k: v for k, v in row.items() if k not in {"event_id", "subject", "ts"}},
                }
            )
    return rows


def load_many(paths):
    out = []
    for p in paths:
        out.extend(load_rows(p))
    return out

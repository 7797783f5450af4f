"""The ``schema`` command: the JSON Schema of each JSON output, as shipped
(docs/ci.md#json-schemas)."""

from __future__ import annotations

import argparse

from ctxviewer.cli.common import EXIT_OK, OUTPUT_HELP, Subparsers, exits, write_out


def cmd_schema(args: argparse.Namespace) -> int:
    from ctxviewer.engine.exports.schemas import SCHEMA_SUMMARIES, SCHEMA_VERSIONS, schema_text

    if args.name is None:
        width = max(map(len, SCHEMA_VERSIONS))
        lines = [f"{name:<{width}}  {SCHEMA_VERSIONS[name]:<5}  {SCHEMA_SUMMARIES[name]}\n" for name in SCHEMA_VERSIONS]
        write_out("".join(lines), args.output)
    else:
        write_out(schema_text(args.name), args.output)
    return EXIT_OK


def add_parser(sub: Subparsers) -> None:
    """Add the ``schema`` command's parser to *sub*."""
    p = sub.add_parser(
        "schema",
        allow_abbrev=False,
        help="the JSON Schema of a JSON output (draft 2020-12); without a name, every schema and its version",
        description="Print the JSON Schema (draft 2020-12) a JSON output follows, as shipped in the package; "
        "without a NAME, list every schema with its version and what it describes. " + exits(),
    )
    p.add_argument("name", nargs="?", metavar="NAME", help="a schema's name, as the list without one gives them")
    p.add_argument("-o", "--output", help=OUTPUT_HELP)
    p.set_defaults(func=cmd_schema)

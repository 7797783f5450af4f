"""Sites as GitHub Actions sees them (``check``/``diff --format github``; docs/ci.md#github-annotations):
workflow-command annotations on the lines they are about, as many as GitHub shows, one notice
counting the rest, and the whole table as Markdown for the job summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxviewer.engine.exports.sites import Site, ordered

#: GitHub shows at most this many annotations of one kind (error, warning, notice) per step ...
PER_KIND = 10
#: ... and this many in a whole job.
PER_JOB = 50
#: A step summary larger than this is refused by GitHub (1 MiB): the table stops short of it.
SUMMARY_BYTES = 1024 * 1024 - 4096
COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


@dataclass(frozen=True, slots=True)
class Annotations:
    """What ``--format github`` prints: the annotation lines, and how many sites were left out."""

    lines: tuple[str, ...]
    left_out: int


def workflow_annotations(sites: Sequence[Site]) -> Annotations:
    """The sites GitHub will show as workflow commands, failing ones first, then by severity;
    when some are left out, one notice (its slot kept free) says how many and where they are."""
    chosen: list[Site] = []
    per_kind: dict[str, int] = {}
    rest = 0
    overflow = _overflows(sites)
    for site in ordered(sites):
        kind = COMMANDS[site.severity]
        cap = PER_KIND - 1 if overflow and kind == "notice" else PER_KIND
        if per_kind.get(kind, 0) >= cap or len(chosen) >= PER_JOB - (1 if overflow else 0):
            rest += 1
            continue
        per_kind[kind] = per_kind.get(kind, 0) + 1
        chosen.append(site)
    lines = [_command(site) for site in chosen]
    if rest:
        lines.append(
            f"::notice title=ctxviewer::{rest:,} more not annotated (GitHub shows {PER_KIND} of a kind per step); "
            "every one is in the job summary"
        )
    return Annotations(tuple(lines), rest)


def _overflows(sites: Sequence[Site]) -> bool:
    """Whether GitHub's caps leave some of *sites* out (counted as :func:`workflow_annotations` would)."""
    counts: dict[str, int] = {}
    for site in sites:
        kind = COMMANDS[site.severity]
        counts[kind] = counts.get(kind, 0) + 1
    return any(n > PER_KIND for n in counts.values()) or len(sites) > PER_JOB


def _command(site: Site) -> str:
    props = []
    if site.path:
        props.append(f"file={_property(site.path)}")
        if site.line is not None:
            props.append(f"line={site.line}")
    props.append(f"title={_property(f'{site.rule} ({site.feature}/{site.task})')}")
    return f"::{COMMANDS[site.severity]} {','.join(props)}::{_data(site.message)}"


def _data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF escaped as the runner unescapes them."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """A workflow command's property value: as :func:`_data`, and ``:`` and ``,`` too."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def summary_markdown(title: str, headline: str, sites: Sequence[Site]) -> str:
    """The job summary: *title*, *headline*, then every site as a row of a Markdown table (as
    many as fit in what GitHub accepts, the rest counted)."""
    head = f"### {title}\n\n{headline}\n\n"
    if not sites:
        return head
    out = [head, "| | rule | task | where | message |\n", "|---|---|---|---|---|\n"]
    size = sum(len(part.encode("utf-8")) for part in out)
    for n, site in enumerate(ordered(sites)):
        where = site.path + (f":{site.line}" if site.line is not None else "")
        mark = "fails" if site.fails else site.severity
        task = f"{_cell(site.feature)}/{_cell(site.task)}"
        row = f"| {mark} | `{site.rule}` | {task} | {_cell(where)} | {_cell(site.message)} |\n"
        size += len(row.encode("utf-8"))
        if size > SUMMARY_BYTES:
            out.append(f"\n{len(sites) - n:,} more rows left out: a job summary holds 1 MiB.\n")
            break
        out.append(row)
    return "".join(out)


def _cell(text: str) -> str:
    """Text for one Markdown table cell: on one line, its ``|`` and backslashes escaped."""
    return " ".join(text.split()).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")

"""Which upstream version a project runs: the ``upstream`` setting and its detection.

The versions table (:data:`VERSION_PROFILES`, the profile that runs each version), the
version a profile pins (:func:`pinned_version`), :func:`detect`, and :func:`resolve`: the
profile that runs under a project's settings, with the version and why.  What each version
is and how detection decides: ``docs/profiles.md`` (which upstream version?).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ctxviewer.engine.project.settings import UPSTREAM_VERSIONS
from ctxviewer.engine.registry import find

if TYPE_CHECKING:
    from ctxviewer.engine.files.reading import ProjectFS
    from ctxviewer.engine.project.settings import Settings

#: The values of the ``upstream`` setting, ``auto`` first.
AUTO, SEED, ZERG_0_3_2, LATEST = UPSTREAM_VERSIONS
#: The profile that runs each version (the profile of the seed's is the one that picks versions).
VERSION_PROFILES: Mapping[str, str] = {SEED: "mahabharatha", ZERG_0_3_2: "zerg-0.3.2", LATEST: "mahabharatha-latest"}
#: The version each of those profiles runs.
PROFILE_VERSIONS: Mapping[str, str] = {p: v for v, p in VERSION_PROFILES.items()}
#: Each version as people name it: what the command line, the report and the window say.
VERSION_WORDS: Mapping[str, str] = {
    SEED: "the context plugin as of 2026-01-30",
    ZERG_0_3_2: "zerg-ai 0.3.2",
    LATEST: "today's nine-section pipeline (mahabharatha main)",
}
#: What detection found for a project with none of the later versions' files, shortly.
NOTHING_LATER = "nothing of zerg-ai 0.3.2 or later in the project"
#: Where each nine-section version keeps its rules, config and state (newest first).
FOLDERS: tuple[tuple[str, str], ...] = ((".mahabharatha", LATEST), (".zerg", ZERG_0_3_2))
#: Top-level config keys of features the history (PIPELINE.md section 9) dates after
#: 2026-01-30: engineering rules and MCP routing (02-02), depth / mode / TDD / efficiency
#: (02-02), the repository map (02-02) and token metrics (02-02).
LATER_CONFIG_KEYS: tuple[str, ...] = (
    "rules",
    "mcp_routing",
    "behavioral_modes",
    "tdd",
    "efficiency",
    "repo_map",
    "token_metrics",
)


@dataclass(frozen=True)
class Detection:
    """The version that runs and why, in a sentence (the trace keeps it as ``upstream_reason``)."""

    version: str
    reason: str


def version_words(version: str) -> str:
    """*version* (a value of the ``upstream`` setting) as people name it; an unknown one as it is."""
    return VERSION_WORDS.get(version, version)


def _evidence(fs: ProjectFS, folder: str) -> list[str]:
    """What under *folder* only the nine-section pipeline leaves: rule files, token records, config keys."""
    found: list[str] = []
    rules = [n for n in fs.list_dir(f"{folder}/rules") if n.endswith((".yaml", ".yml"))]
    if rules:
        found.append(
            f"engineering rule files in {folder}/rules ({', '.join(rules[:3])}{', ...' if len(rules) > 3 else ''})"
        )
    state = [
        n
        for n in fs.list_dir(f"{folder}/state")
        if n == "token-cache.json" or (n.startswith("tokens-") and n.endswith(".json"))
    ]
    if state:
        found.append(f"token records in {folder}/state ({', '.join(state[:3])}{', ...' if len(state) > 3 else ''})")
    keys = _config_keys(fs, f"{folder}/config.yaml")
    if keys:
        found.append(f"config keys {', '.join(keys)} in {folder}/config.yaml")
    return found


def _config_keys(fs: ProjectFS, rel: str) -> list[str]:
    if not fs.is_file(rel):
        return []
    from ctxviewer.engine.errors import CtxViewerError
    from ctxviewer.engine.project.loading import read_document

    try:
        data: Any = read_document(fs, rel)
    except CtxViewerError:
        return []  # loading the project reports a broken config
    if not isinstance(data, Mapping):
        return []
    return [k for k in LATER_CONFIG_KEYS if k in data]


def detect(fs: ProjectFS) -> Detection:
    """The version a project was run with, from what it holds (worked out once in a pass over
    many tasks, see :func:`~ctxviewer.engine.files.reading.one_pass`: every task of a batch asks).

    Only the nine-section pipeline (2026-02-02 onward) leaves engineering rule files
    (``<folder>/rules/*.yaml``), token records (``<folder>/state/tokens-*.json``,
    ``token-cache.json``) or config keys for its later features; which folder holds them
    says which version: ``.zerg/`` is zerg-ai 0.3.2, ``.mahabharatha/`` the repository's
    main (if both do, the newer name wins).  A project with none of these is the seed's
    pipeline: the seed describes it under ``.mahabharatha/`` (the samples follow it), so
    the folder's name alone does not tell the seed from later versions.
    """
    return fs.once_per_pass("upstream_detection", "", lambda _: _detect(fs))


def _detect(fs: ProjectFS) -> Detection:
    found = {version: (folder, _evidence(fs, folder)) for folder, version in FOLDERS}
    with_evidence = [v for v, (_, ev) in found.items() if ev]
    if with_evidence:
        version = with_evidence[0]
        evidence = found[version][1]
        reason = f"detected {version}: {'; '.join(evidence)}"
        if len(with_evidence) > 1:
            other_folder = found[with_evidence[1]][0]
            reason += f" (also in {other_folder}/: the newer folder name wins)"
        return Detection(version, reason)
    present = [f"{folder}/" for folder, _ in FOLDERS if fs.is_dir(folder)]
    where = f" ({' and '.join(present)} without them)" if present else ""
    return Detection(
        SEED,
        f"detected {SEED}: no engineering rule files, token records or config keys of zerg-ai 0.3.2 or later "
        f"under .zerg/ or .mahabharatha/{where}, so {VERSION_WORDS[SEED]}",
    )


def pinned_version(profile: str) -> str | None:
    """The version *profile* runs whatever ``upstream`` says; None for a profile that pins none
    (the one that picks the version, or a strategy of ctxviewer's own)."""
    found = find(profile)
    if found is None or found.picks_version:
        return None
    return PROFILE_VERSIONS.get(profile)


def picks_version(profile: str) -> bool:
    """Whether *profile* runs the version the ``upstream`` setting picks (or detection finds)."""
    found = find(profile)
    return found is not None and found.picks_version


def resolve(fs: ProjectFS, settings: Settings) -> tuple[str, Detection | None]:
    """The profile that runs and, for the upstream pipeline, its version and why."""
    profile = settings.profile
    version = pinned_version(profile)
    if version is not None:
        return profile, Detection(version, f"profile {profile} runs {version}")
    if not picks_version(profile):
        return profile, None
    chosen = settings.upstream
    if chosen != AUTO:
        return VERSION_PROFILES[chosen], Detection(
            chosen, f"setting upstream: {chosen} ({settings.origin('upstream')})"
        )
    detection = detect(fs)
    return VERSION_PROFILES[detection.version], detection

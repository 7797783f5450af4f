"""The scale of a fleet's gauges: the checkpoint threshold, the zone lines, upstream's colours.

The threshold is the project's ``workers.context_threshold_percent`` (70 by default, as
upstream's), the further zones those of ``ctxviewer.yaml``, and the band the colour upstream's
dashboard gives a context bar: ``docs/run-files.md#the-fleet``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.project.loading import CTXVIEWER_YAML, read_document
from ctxviewer.engine.project.settings import (
    Settings,
    apply_flat,
    flatten_ctxviewer_yaml,
    flatten_system_config,
)
from ctxviewer.engine.runfiles.problems import RunProblem
from ctxviewer.engine.runfiles.rundir import RunFiles
from ctxviewer.engine.runtime.tracker import MAX_CONTEXT_TOKENS

#: Upstream's default ``workers.context_threshold_percent`` (``config.py``: 0.70 x 100).
DEFAULT_THRESHOLD_PERCENT = 70.0
#: The range upstream's config model accepts for it.
UPSTREAM_THRESHOLD_RANGE = (50.0, 90.0)
#: Upstream's dashboard colours a context bar (``rendering/status_renderer.py``): red above
#: 85 %, yellow above 70 %, green otherwise.
BAND_RED, BAND_YELLOW = 0.85, 0.70


@dataclass(frozen=True, slots=True)
class FleetConfig:
    """The gauge's scale: the checkpoint threshold and the further zone lines."""

    threshold_percent: float = DEFAULT_THRESHOLD_PERCENT
    threshold_origin: str = "default"
    """``.zerg/config.yaml`` (or ``.mahabharatha/...``) when set there, else ``default``."""
    zones: tuple[tuple[str, float], ...] = ()
    """Further zones from ``ctxviewer.yaml`` (``zones``), as ctxviewer's tracker draws them."""
    max_tokens: int = MAX_CONTEXT_TOKENS

    @property
    def all_zones(self) -> tuple[tuple[str, float], ...]:
        """The checkpoint and the further zones, by percent."""
        return tuple(sorted((("checkpoint", self.threshold_percent), *self.zones), key=lambda z: z[1]))


def read_fleet_config(run: RunFiles) -> tuple[FleetConfig, tuple[RunProblem, ...]]:
    """The run's threshold (upstream's config) and zones (``ctxviewer.yaml``), and what was wrong."""
    fs = ProjectFS(run.root)
    problems: list[RunProblem] = []
    threshold, origin = DEFAULT_THRESHOLD_PERCENT, "default"
    if run.config is not None:
        try:
            values = flatten_system_config(read_document(fs, run.config), run.config)
            if "threshold_percent" in values:
                settings = apply_flat(Settings(), {"threshold_percent": values["threshold_percent"]}, run.config)
                threshold, origin = settings.threshold_percent, run.config
        except CtxViewerError as exc:
            problems.append(RunProblem(run.config, exc.line or 0, f"{exc.message}; the default 70% is used"))
        low, high = UPSTREAM_THRESHOLD_RANGE
        if origin != "default" and not low <= threshold <= high:
            problems.append(
                RunProblem(
                    run.config,
                    0,
                    f"workers.context_threshold_percent {threshold:g} is outside the {low:g}-{high:g} upstream accepts",
                )
            )
    zones: tuple[tuple[str, float], ...] = ()
    if fs.is_file(CTXVIEWER_YAML):
        try:
            values = flatten_ctxviewer_yaml(read_document(fs, CTXVIEWER_YAML), CTXVIEWER_YAML)
            if "zones" in values:
                zones = apply_flat(Settings(), {"zones": values["zones"]}, CTXVIEWER_YAML, check=False).zones
        except CtxViewerError as exc:
            problems.append(RunProblem(CTXVIEWER_YAML, exc.line or 0, f"{exc.message}; no further zones drawn"))
    return FleetConfig(threshold, origin, zones), tuple(problems)


def upstream_band(context_usage: float) -> str:
    """The colour upstream's own dashboard gives a context bar: ``green``, ``yellow`` or ``red``."""
    if context_usage > BAND_RED:
        return "red"
    if context_usage > BAND_YELLOW:
        return "yellow"
    return "green"


def zone_of(usage_percent: float, config: FleetConfig) -> str | None:
    """The highest zone line *usage_percent* reached (``checkpoint`` or a named zone), or None."""
    reached = None
    for name, percent in config.all_zones:
        if usage_percent >= percent:
            reached = name
    return reached

"""The Session panel: a feature's tasks replayed through the tracker, or a live worker log followed.

One job a module, lowest first:

* ``ticks`` -- axis maths: token labels, nice tick steps, the number guards (no Qt);
* ``series`` -- :class:`PlotValue`, what the plot shows, built from a replay or a live
  log's usage, and the plot's top and the thinning of long histories (no Qt);
* ``player`` -- :class:`ReplayPlayer`, the replay's timing;
* ``plot`` -- :class:`UsagePlot`, the painted plot of a :class:`PlotValue`;
* ``steps`` -- the step table: its columns, :class:`StepModel` and the view's set-up;
* ``controls`` -- Play/Step/Reset, the speed and the replay parameters with their checks;
* ``live`` -- :class:`~ctxviewer.gui.views.session.live.LiveLog`, when to read a followed
  event log and what was read;
* ``fleetvalues`` -- :class:`FleetValue`, a real run's workers as the fleet view shows them (no Qt);
* ``timelines`` -- :class:`TimelineValue`, one worker's events and recomputed tracker (no Qt);
* ``runwatch`` -- :class:`RunFollower`, when to read an attached run, read off the GUI thread;
* ``fleet`` -- :class:`FleetChart`, every worker's painted gauge, and the Fleet tab;
* ``timeline`` -- :class:`TimelinePlot`, a worker's timeline painted, and the Timeline tab;
* ``panel`` -- :class:`SessionPanel`, which wires them and shows the current step or poll.
"""

from ctxviewer.gui.views.session.controls import ReplayControls, parse_minutes, parse_tool_calls
from ctxviewer.gui.views.session.fleet import FleetChart, FleetPage
from ctxviewer.gui.views.session.fleetvalues import FleetValue, WorkerGauge
from ctxviewer.gui.views.session.live import LiveLog
from ctxviewer.gui.views.session.panel import SessionPanel
from ctxviewer.gui.views.session.player import BASE_INTERVAL_MS, SPEEDS, ReplayPlayer
from ctxviewer.gui.views.session.plot import UsagePlot
from ctxviewer.gui.views.session.runwatch import RunFollower, RunUpdate
from ctxviewer.gui.views.session.series import MAX_LIVE_POINTS, PlotValue, plot_top, step_detail, thin_history
from ctxviewer.gui.views.session.steps import StepModel, step_columns
from ctxviewer.gui.views.session.ticks import nice_step, nice_ticks, tokens_k
from ctxviewer.gui.views.session.timeline import TimelinePage, TimelinePlot
from ctxviewer.gui.views.session.timelines import TimelineValue

__all__ = [
    "BASE_INTERVAL_MS",
    "MAX_LIVE_POINTS",
    "SPEEDS",
    "FleetChart",
    "FleetPage",
    "FleetValue",
    "LiveLog",
    "PlotValue",
    "ReplayControls",
    "ReplayPlayer",
    "RunFollower",
    "RunUpdate",
    "SessionPanel",
    "StepModel",
    "TimelinePage",
    "TimelinePlot",
    "TimelineValue",
    "UsagePlot",
    "WorkerGauge",
    "nice_step",
    "nice_ticks",
    "parse_minutes",
    "parse_tool_calls",
    "plot_top",
    "step_columns",
    "step_detail",
    "thin_history",
    "tokens_k",
]

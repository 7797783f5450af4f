"""The Session panel: a feature's tasks replayed through the tracker, or a live worker log followed.

One job a module: values and axis maths without Qt (``ticks``, ``series``, ``fleetvalues``,
``timelines``); the replay's timing, plot, step table and controls (``player``, ``plot``,
``steps``, ``controls``); when to read a followed event log (``live``) and an attached run, off
the GUI thread (``runwatch``); the Fleet and Timeline tabs (``fleet``, ``timeline``); and
``panel``, which wires them.
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

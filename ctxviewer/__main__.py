"""``python -m ctxviewer`` runs the command-line interface."""

from ctxviewer.cli import run

run()

"""``python -m ctxviewer`` runs the command-line interface."""

from ctxviewer.startpath import drop_current_folder

drop_current_folder()  # before anything else is imported: a project's glob.py is not the standard library's

from ctxviewer.cli import run  # noqa: E402

run()

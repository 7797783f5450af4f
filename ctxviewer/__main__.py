"""``python -m ctxviewer`` runs the command-line interface."""

import sys

from ctxviewer.cli import main

sys.exit(main())

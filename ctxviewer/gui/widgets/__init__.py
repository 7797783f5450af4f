"""Building blocks every view uses: table models and tables, painted charts, the highlighter,
detail panes, plain-text display, plain wording.
"""

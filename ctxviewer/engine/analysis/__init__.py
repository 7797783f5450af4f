"""What reads a finished trace and tells a person something.

:mod:`.explain` -- "why was it dropped?" for every candidate mentioning a word;
:mod:`.findings` -- what to look at, each with a stable code (``docs/findings.md``);
:mod:`.whatif` -- a run against a pinned baseline; :mod:`.layout` -- the worker's whole context
window as seed 003 draws it.  A new finding goes in :mod:`.findings`.
"""

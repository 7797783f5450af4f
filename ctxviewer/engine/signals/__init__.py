"""What the pipelines read from a task and the project's text, before any profile decides.

:mod:`.keywords` -- task keywords as the reference pipeline extracts them; :mod:`.words` -- word
splitting, plurals and stopwords; :mod:`.task` -- the task signals of seed 004 (keywords,
domains, files, type, phase); :mod:`.spec` -- spec paragraphs, their scores and truncation;
:mod:`.rules` -- security-rule filtering and summaries.
"""

"""A trace written out for people and scripts: the context as Markdown, the trace as JSON, a
standalone HTML report (:mod:`.report`); a batch's traces as upstream's own token record
file (:mod:`.tokens`); a real run's fleet snapshot as text for a terminal (:mod:`.fleet_text`)
and as JSON (:mod:`.fleet_json`); findings placed on their lines for CI (:mod:`.sites`) as
SARIF (:mod:`.sarif`) and GitHub annotations (:mod:`.github`).  Every write goes through
:mod:`ctxviewer.engine.files.writing`.
"""

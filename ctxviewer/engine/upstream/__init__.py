"""Upstream as installed, beyond the context plugin: the prompt a worker receives
(:mod:`.prompt`), and checking an installed plugin against our profile (:mod:`.verify`, which runs
:mod:`.verify_driver` as a script under the upstream interpreter).
"""

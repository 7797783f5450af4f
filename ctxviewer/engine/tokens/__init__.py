"""Token counting: the pipeline's own estimate and exact tiktoken counts, with encodings
shipped in the package so nothing is downloaded (:mod:`.counting`).
"""

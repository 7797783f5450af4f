"""The Qt-free engine. Data flows down the folder list, each package importing only those below it.

What lives in each package is in docs/architecture.md#package-map; the import contract in
``pyproject.toml`` (run by ``lint-imports`` and by ``tests/test_architecture.py``) keeps
Qt out and fails the build if a lower package imports a higher one
(docs/architecture.md#the-import-contract).
"""

"""``ctxviewer verify``: the installed upstream plugin against our profile, task by task.

The interpreter given (``--upstream-python``) runs :mod:`.verify_driver` over every task; each
text is compared with what our profile of the matching version assembles (``zerg`` is
``zerg-ai-0.3.2``, ``mahabharatha`` is ``latest``, unless the user chose a version).  The
driver runs with ``PYTHONHASHSEED=1``: upstream adds the python and javascript rule files in
a set's order, and that seed puts python first, as the profiles do.  See docs/cli.md#verify.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.files.writing import scratch_folder
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import SWITCH_KEYS
from ctxviewer.engine.project.upstream import AUTO, LATEST, SEED, VERSION_PROFILES, ZERG_0_3_2, detect, pinned_version

DRIVER = Path(__file__).with_name("verify_driver.py")
#: The version each installable Python package (not a profile) of the plugin is.
PACKAGE_VERSIONS = {"zerg": ZERG_0_3_2, "mahabharatha": LATEST}
HASH_SEED = "1"


@dataclass(frozen=True)
class TaskCheck:
    feature: str
    task: str
    same: bool
    line: int | None = None  # the first differing line (1-based)
    upstream_line: str | None = None  # None: the text ended before it
    ours_line: str | None = None
    upstream_error: str | None = None


@dataclass(frozen=True)
class Verification:
    python: str
    package: str
    package_version: str
    version: str  # the upstream version compared with
    profile: str
    why: str
    checks: tuple[TaskCheck, ...]
    notes: tuple[str, ...] = ()

    @property
    def differing(self) -> tuple[TaskCheck, ...]:
        return tuple(c for c in self.checks if not c.same)


def first_difference(upstream: str, ours: str) -> tuple[int, str | None, str | None]:
    """The first line (1-based) where the texts differ, and that line of each (None past the end)."""
    a, b = upstream.split("\n"), ours.split("\n")
    for n in range(max(len(a), len(b))):
        left = a[n] if n < len(a) else None
        right = b[n] if n < len(b) else None
        if left != right:
            return n + 1, left, right
    return 0, None, None  # equal


def driver_environment(
    project_root: str | os.PathLike[str], environ: Mapping[str, str] | None = None, cwd: str | None = None
) -> dict[str, str]:
    """The driver's environment: *environ* (this process's), its hash seed, and a ``PYTHONPATH``
    without the entries that would import the project's files.

    An empty entry and ``.`` (the current folder) are dropped, and so is any entry inside the
    project; the others, made absolute against *cwd* (they may be where upstream's package is),
    are kept.  ``PYTHONSAFEPATH`` is set (Python 3.11 and later: nothing put before ``sys.path``).
    """
    env = dict(os.environ if environ is None else environ)
    env["PYTHONHASHSEED"] = HASH_SEED
    env["PYTHONSAFEPATH"] = "1"
    here = os.getcwd() if cwd is None else cwd
    project = os.path.realpath(project_root)
    kept: list[str] = []
    for entry in env.pop("PYTHONPATH", "").split(os.pathsep):
        if entry in ("", os.curdir):
            continue
        full = os.path.realpath(os.path.join(here, entry))
        if full != project and not full.startswith(project.rstrip(os.sep) + os.sep):
            kept.append(full)
    if kept:
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(kept))
    return env


def _run_driver(
    python: str, jobs: list[dict[str, Any]], timeout: float, project_root: str | os.PathLike[str]
) -> dict[str, Any]:
    """Run the driver over *jobs* in *python*, kept from the project's files.

    ``-s`` (no user site folder), a ``PYTHONPATH`` without the project (:func:`driver_environment`),
    and a private empty folder as its working folder: nothing of the project, or of the folder
    ctxviewer was started in, is on its ``sys.path`` when it starts.  Not ``-I``: that ignores
    ``PYTHONHASHSEED`` too, which orders upstream's rule files.
    """
    if not os.path.isfile(python) or not os.access(python, os.X_OK):
        raise CtxViewerError("--upstream-python: no such interpreter (not an executable file)", python)
    env = driver_environment(project_root)
    try:
        with scratch_folder("ctxviewer-verify-") as neutral:
            done = subprocess.run(
                [python, "-s", str(DRIVER)],
                input=json.dumps({"jobs": jobs}),
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
                env=env,
                cwd=neutral,
            )
    except subprocess.TimeoutExpired:
        raise CtxViewerError(
            f"--upstream-python: the upstream plugin did not finish in {timeout:g} s", python
        ) from None
    except OSError as exc:
        raise CtxViewerError(f"--upstream-python: cannot run it ({exc.strerror or exc})", python) from None
    last = (done.stderr.strip().splitlines() or ["no output"])[-1]
    if done.returncode == 3:
        raise CtxViewerError(
            f"--upstream-python: no zerg or mahabharatha package in it ({last}); pip install zerg-ai", python
        )
    if done.returncode != 0:
        raise CtxViewerError(f"--upstream-python: the upstream driver failed ({last})", python)
    try:
        data: dict[str, Any] = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise CtxViewerError("--upstream-python: the upstream driver wrote no result", python) from None
    if len(data.get("results", ())) != len(jobs):
        raise CtxViewerError("--upstream-python: the upstream driver answered for other tasks than asked", python)
    return data


def passed_feature(feature: Feature, settings: Any) -> Any:
    """The feature the plugin is given for *feature*'s tasks: the folder's name, or with
    ``spec_feature: graph`` the task graph's own value as upstream's orchestrator passes it
    (``""`` when the graph has none; a value that is not text as that value)."""
    if settings.spec_feature != "graph" or not feature.has_graph:
        return feature.name
    if feature.graph_feature is None:
        return ""
    if feature.graph_spec_dir is not None:  # the value is text
        return feature.graph_feature
    try:
        return json.loads(feature.graph_feature)
    except ValueError:
        return feature.graph_feature


def _job(project: Project, feature: Feature, task: Task, settings: Any) -> dict[str, Any]:
    env = {key.upper(): getattr(settings, key) for key in SWITCH_KEYS if getattr(settings, key) is not None}
    return {
        "root": str(project.root),
        "feature": passed_feature(feature, settings),
        "task": dict(task.raw),
        "env": env,
        "budget": settings.budget,
        "security_rule_filtering": settings.security_rule_filtering,
        "fallback_to_full": settings.fallback_to_full,
    }


def verify(
    project: Project, python: str, targets: Sequence[tuple[Feature, Task]], *, timeout: float = 900.0
) -> Verification:
    """Every target task through the installed plugin and through our profile of its version."""
    from ctxviewer.engine.runs.pipeline import assemble_task

    settings = project.settings
    jobs = [_job(project, f, t, settings) for f, t in targets]
    data = _run_driver(python, jobs, timeout, project.root)
    package = str(data.get("package"))
    installed = PACKAGE_VERSIONS.get(package, ZERG_0_3_2)
    notes: list[str] = []
    pinned = pinned_version(settings.profile)
    if pinned is not None:
        version, why = pinned, f"profile {settings.profile}"
    elif settings.upstream != AUTO:
        version, why = settings.upstream, f"setting upstream ({settings.origin('upstream')})"
    else:
        version, why = installed, f"the installed package {package} {data.get('version')}"
        detected = detect(project.fs)
        if detected.version != version:
            notes.append(f"the project itself looks like {detected.version} ({detected.reason})")
    if version == SEED:
        notes.append("the context plugin as of 2026-01-30 is not what any installed package runs: expect differences")
    if version != installed:
        notes.append(f"the interpreter has {package} {data.get('version')}, which is {installed}, not {version}")
    profile = VERSION_PROFILES[version]
    run_settings = settings.with_overrides({"profile": profile}, "verify")
    checks = []
    for (feature, task), result in zip(targets, data["results"], strict=True):
        ours = assemble_task(project, feature, task, run_settings, exact=False).context
        if "error" in result:
            same = ours == "" and not settings.fallback_to_full
            first: str | None = None if same else ours.split("\n")[0]
            error = str(result["error"])
            checks.append(TaskCheck(feature.name, task.id, same, None if same else 1, None, first, error))
            continue
        theirs = str(result.get("context", ""))
        if theirs == ours:
            checks.append(TaskCheck(feature.name, task.id, True))
        else:
            line, up, mine = first_difference(theirs, ours)
            checks.append(TaskCheck(feature.name, task.id, False, line, up, mine))
    return Verification(python, package, str(data.get("version")), version, profile, why, tuple(checks), tuple(notes))

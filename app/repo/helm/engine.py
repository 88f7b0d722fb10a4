"""The one door to Helm itself: render a chart directory in a bounded child process.

A `helm` binary on PATH is preferred (it is what Argo CD runs): `helm template` with the
same inputs as argv, values and file parameters in private files. Without one, the
binding below renders in `app.repo.helm.child`. Either way the process gets the bounds
below.

The chart engine is Helm's own Go SDK through the `helm-python-sdk` binding (see
docs/decisions.md for why), never a re-implementation of Go templates. It is loaded only
in a child process (`app.repo.helm.child`), so a panic, a runaway template or a leak
cannot take the render worker with it. The child gets its request on stdin and runs in
its own session with a controlled environment (private HOME, no kubeconfig, no
credentials); it is killed as a process group at the deadline (`RepoSettings.
tool_timeout`), when its resident memory passes `RepoSettings.max_render_memory`, when its
output passes `max_manifest_bytes`, or when the caller is cancelled. (An address-space
rlimit does not work here: Go's runtime reserves address space unpredictably and then
fails to start under one now and then.)
"""

import asyncio
import json
import os
import shutil
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from app import log
from app.engine.redact import redact_text
from app.repo.errors import LimitExceeded, RenderError
from app.repo.process import Finished, run_process

logger = log.get("repo.helm")


@dataclass(frozen=True, slots=True)
class ChartRender:
    """What `helm template` is told: the chart, the release, the values, the cluster."""

    chart: str
    """Absolute path of the chart directory (a private copy: it may be modified)."""
    release: str
    namespace: str
    kube_version: str = ""
    api_versions: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    """Values documents (YAML), lowest precedence first."""
    value_names: list[str] = field(default_factory=list)
    """Where each values document came from, for messages."""
    set: list[tuple[str, str]] = field(default_factory=list)
    set_string: list[tuple[str, str]] = field(default_factory=list)
    set_file: list[tuple[str, str]] = field(default_factory=list)
    """(name, file content) pairs: `--set-file` with the file already read."""
    include_crds: bool = True
    skip_schema_validation: bool = False


@dataclass(frozen=True, slots=True)
class Limits:
    deadline: float
    max_output: int
    memory_bytes: int


def _environment(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "HELM_CACHE_HOME": str(home / ".cache" / "helm"),
        "HELM_CONFIG_HOME": str(home / ".config" / "helm"),
        "HELM_DATA_HOME": str(home / ".data" / "helm"),
        "KUBECONFIG": os.devnull,
        "LC_ALL": "C",
        "LANG": "C",
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
    }


def _shown(text: str, root: Path) -> str:
    for prefix in {os.path.realpath(root), str(root)}:
        text = text.replace(prefix + os.sep, "").replace(prefix, ".")
    return redact_text(" ".join(text.split()))[:1500]


def find_helm() -> str | None:
    """A `helm` binary on PATH (what Argo CD runs), preferred over the binding."""
    return shutil.which("helm")


def _binary_argv(helm: str, request: ChartRender, scratch: Path) -> list[str]:
    """`helm template` argv for `request`; values and file parameters go in files under
    `scratch` (never in argv, which `ps` shows)."""
    argv = [helm, "template", request.release, request.chart, "--namespace", request.namespace]
    if request.kube_version:
        argv += ["--kube-version", request.kube_version]
    for api in request.api_versions:
        argv += ["--api-versions", api]
    if request.include_crds:
        argv.append("--include-crds")
    if request.skip_schema_validation:
        argv.append("--skip-schema-validation")
    for i, document in enumerate(request.values):
        path = scratch / f"values-{i}.yaml"
        path.write_text(document)
        argv += ["--values", str(path)]
    for name, value in request.set:
        argv += ["--set", f"{name}={value}"]
    for name, value in request.set_string:
        argv += ["--set-string", f"{name}={value}"]
    for i, (name, text) in enumerate(request.set_file):
        path = scratch / f"file-{i}"
        path.write_text(text)
        argv += ["--set-file", f"{name}={path}"]
    return argv


async def _run(
    request: ChartRender, limits: Limits, *, root: Path, home: Path
) -> tuple[Finished, bool]:
    """Run the binary if there is one, else the child; whether it was the binary."""
    helm = find_helm()
    if helm is None:
        finished = await run_process(
            [sys.executable, "-m", "app.repo.helm.child"],
            env=_environment(home),
            cwd=root,
            deadline=limits.deadline,
            max_output=limits.max_output,
            stdin=json.dumps(asdict(request)).encode(),
            max_rss=limits.memory_bytes,
        )
        return finished, False
    scratch = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="values-", dir=home))
    argv = await asyncio.to_thread(_binary_argv, helm, request, scratch)
    finished = await run_process(
        argv,
        env=_environment(home),
        cwd=root,
        deadline=limits.deadline,
        max_output=limits.max_output,
        max_rss=limits.memory_bytes,
    )
    return finished, True


async def render_chart(
    request: ChartRender, limits: Limits, *, field: str, root: Path, home: Path
) -> list[tuple[str, str]]:
    """The rendered files of the chart as (template path, YAML text); RenderError names
    `field` and Helm's own message (paths shown relative to `root`)."""
    try:
        finished, binary = await _run(request, limits, root=root, home=home)
    except TimeoutError:
        raise RenderError(
            f"{field}: helm template did not finish within {limits.deadline:g} s and was "
            "stopped; simplify the chart or split the application"
        ) from None
    if finished.violation is not None:
        raise LimitExceeded(
            f"{field}: helm template was stopped: {finished.violation} (max_manifest_bytes, "
            "max_render_memory); simplify the chart or split the application"
        )
    if binary:
        if finished.code != 0:
            text = finished.stderr.decode("utf-8", "replace").removeprefix("Error: ")
            raise RenderError(f"{field}: helm template failed: {_shown(text, root)}")
        return [("helm template", finished.stdout.decode("utf-8", "replace"))]
    return _answer(finished, field=field, root=root)


def _answer(finished: Finished, *, field: str, root: Path) -> list[tuple[str, str]]:
    try:
        answer = json.loads(finished.stdout) if finished.stdout else {}
    except ValueError:
        answer = {}
    if not isinstance(answer, dict) or ("files" not in answer and "error" not in answer):
        lines = finished.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = _shown(lines[0], root) if lines else ""
        logger.warning(
            "helm.render_process_failed",
            field=field,
            code=finished.code,
            stderr=[_shown(line, root) for line in lines[:20]],
        )
        raise RenderError(
            f"{field}: the Helm render process ended without an answer (exit status "
            f"{finished.code}{', ' + reason if reason else ''}); see the render worker's log"
        )
    if "error" in answer:
        raise RenderError(f"{field}: helm template failed: {_shown(str(answer['error']), root)}")
    return [(str(path), str(text)) for path, text in answer["files"]]

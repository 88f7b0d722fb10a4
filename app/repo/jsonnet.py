"""Evaluating a directory source's `.jsonnet` files: go-jsonnet in a bounded child process.

Argo CD evaluates every `.jsonnet` file a directory source's walk selects (include/exclude
apply as to YAML) with go-jsonnet, the app's directory and `directory.jsonnet.libs` as
import paths, and `extVars`/`tlas` from the Application (jsonnet_spec.py). Sluice does the
same with the `gojsonnet` binding of go-jsonnet, in this order:

1. The commit is checked out into a private work dir (`Repositories.checkout`, which has
   already refused symlinks that leave the repository); source.path and every lib are
   resolved inside it with the one path resolver.
2. One child process (jsonnet_child.py, `python -I`, an environment of PATH, HOME and the
   locale only) evaluates the files in walk order; its importer confines every import to
   the checkout (real paths, so no symlink leads out) and caps each imported file.
3. The child runs with a deadline (`RepoSettings.tool_timeout`), its stdout capped at
   `max_manifest_bytes` and its memory at `max_render_memory`; the process group is
   killed past any of them or on cancellation, and the render fails saying which.

Each file's output is handed on as `(path, JSON text)`, which the manifest loader shapes
as Argo CD does (an object, or an array of objects). Failures are RenderErrors naming the
source field and the file, with go-jsonnet's message and paths repository-relative.
"""

import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from app import log
from app.model.app_spec import ApplicationSource
from app.repo.errors import LimitExceeded, RenderError
from app.repo.jsonnet_spec import JsonnetOptions, parse_jsonnet_options
from app.repo.process import run_process
from app.repo.results import ManifestFile
from app.repo.service import Repositories
from app.repo.worktree import WorkTree

logger = log.get("repo.jsonnet")

CHILD = Path(__file__).with_name("jsonnet_child.py")
MAX_STACK = 500
"""Deepest Jsonnet call stack (go-jsonnet's own default)."""


def jsonnet_options(
    source: ApplicationSource, *, field: str, variables: Mapping[str, str]
) -> JsonnetOptions:
    """The source's `directory.jsonnet`, checked and substituted (empty when absent)."""
    raw = source.directory.jsonnet if source.directory is not None else {}
    return parse_jsonnet_options(raw, field=f"{field}.directory.jsonnet", variables=variables)


def _request(
    work: WorkTree, app_dir: Path, files: Sequence[str], options: JsonnetOptions, *,
    field: str, max_import_bytes: int,
) -> bytes:  # fmt: skip
    libs = [
        str(work.resolve(lib, field=f"{field}.directory.jsonnet.libs[{i}]"))
        for i, lib in enumerate(options.libs)
    ]
    request = {
        "root": str(work.root),
        "files": [str(work.root / path) for path in files],
        "jpaths": [str(app_dir), *libs],
        "ext_vars": {v.name: v.value for v in options.ext_vars if not v.code},
        "ext_codes": {v.name: v.value for v in options.ext_vars if v.code},
        "tla_vars": {v.name: v.value for v in options.tlas if not v.code},
        "tla_codes": {v.name: v.value for v in options.tlas if v.code},
        "max_stack": MAX_STACK,
        "max_import_bytes": max_import_bytes,
    }
    return json.dumps(request).encode()


def _environment(home: Path) -> dict[str, str]:
    return {"PATH": os.defpath, "HOME": str(home), "LC_ALL": "C", "LANG": "C"}


async def evaluate_jsonnet(
    repos: Repositories,
    source: ApplicationSource,
    commit: str,
    files: Sequence[str],
    *,
    field: str,
    project: str,
    variables: Mapping[str, str],
) -> list[ManifestFile]:
    """Each of `files` (repo-relative `.jsonnet` paths) evaluated: `(path, JSON text)`."""
    options = jsonnet_options(source, field=field, variables=variables)
    settings = repos.settings
    async with repos.checkout(source.repo_url, commit, field=field, project=project) as work:
        app_dir = work.resolve(source.path, field=f"{field}.path")
        request = _request(
            work, app_dir, files, options, field=field, max_import_bytes=settings.max_manifest_bytes
        )
        home = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="home-", dir=work.root.parent))
        try:
            finished = await run_process(
                [sys.executable, "-I", str(CHILD)],
                env=_environment(home),
                cwd=app_dir,
                deadline=settings.tool_timeout,
                max_output=settings.max_manifest_bytes,
                stdin=request,
                max_rss=settings.max_render_memory,
            )
        except TimeoutError:
            raise RenderError(
                f"{field}: Jsonnet evaluation of {', '.join(files)} did not finish within "
                f"{settings.tool_timeout:g} s and was stopped; simplify the Jsonnet or split "
                "the application"
            ) from None
    if finished.violation is not None:
        raise LimitExceeded(
            f"{field}: Jsonnet evaluation of {', '.join(files)} was stopped: "
            f"{finished.violation} (max_manifest_bytes, max_render_memory); split the "
            "application or reduce what the Jsonnet produces"
        )
    outputs = _outputs(finished.code, finished.stdout, finished.stderr, field)
    if len(outputs) != len(files):
        raise RenderError(f"{field}: {_UNREADABLE}")
    logger.debug(
        "jsonnet evaluated", field=field, files=len(files), seconds=round(finished.seconds, 3)
    )
    return [ManifestFile(path, text) for path, text in zip(files, outputs, strict=True)]


_UNREADABLE = "the Jsonnet evaluator gave an answer Sluice cannot read"


def _outputs(code: int, stdout: bytes, stderr: bytes, field: str) -> list[str]:
    """The child's per-file outputs, or the RenderError its answer or exit status means."""
    if code != 0:
        if b"goroutine stack exceeds" in stderr:
            raise RenderError(
                f"{field}: the Jsonnet evaluation recursed too deeply (the evaluator's stack "
                "overflowed); bound the recursion, or iterate with std.foldl or std.map"
            )
        tail = stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        detail = "; ".join(line.strip() for line in tail)[:800] or f"exit status {code}"
        raise RenderError(f"{field}: the Jsonnet evaluator failed: {detail}")
    if not stdout.startswith(b"ok\n"):
        try:
            answer = json.loads(stdout)
            error, file = str(answer["error"]), str(answer["file"])
        except (ValueError, KeyError, TypeError):
            raise RenderError(f"{field}: {_UNREADABLE}") from None
        raise RenderError(f"{field}.path: Jsonnet file {file!r} failed: {error}; fix it in Git")
    outputs: list[str] = []
    at = 3
    while at < len(stdout):
        end = stdout.find(b"\n", at)
        if end == -1 or not stdout[at:end].isdigit():
            raise RenderError(f"{field}: {_UNREADABLE}")
        size = int(stdout[at:end])
        outputs.append(stdout[end + 1 : end + 1 + size].decode("utf-8", "replace"))
        at = end + 1 + size
    return outputs

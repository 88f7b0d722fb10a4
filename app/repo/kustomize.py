"""Rendering a Kustomize source: `kustomize build` in a private checkout of the commit.

Argo CD runs `kustomize build <path>` from the repository root. Sluice does the same with
a `kustomize` binary on PATH, else `kubectl kustomize <path>` (kubectl embeds kustomize
v5); with neither, the source is refused, saying what to install. In order:

1. The commit is checked out into a private work dir (`Repositories.checkout`, which has
   already refused symlinks that leave the repository); source.path is resolved inside it.
2. The app's kustomization is read; the Application's `kustomize` overrides are merged in
   (kustomize_edit.py) and the file rewritten in the throwaway checkout.
3. Every kustomization reachable from it is checked: no local reference leaves the
   checkout, no remote one is fetched (kustomize_refs.py). The build keeps kustomize's
   default load restrictor (RootOnly) and never enables Helm inflation or plugins.
4. The build runs as argv (never a shell) with a controlled environment (a private HOME, no
   kubeconfig, no credentials), a deadline (`RepoSettings.tool_timeout`), and stdout capped
   at `max_manifest_bytes`; the process group is killed on either or on cancellation.

Failures are RenderErrors naming the source field and the kustomization file, with
kustomize's own message (work dir paths shown repository-relative, credentials redacted).
The output is YAML text; the caller parses it with the same bounded loader as directory
sources.
"""

import asyncio
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from app import log
from app.engine.redact import redact_text
from app.model.app_spec import ApplicationSource
from app.repo.errors import LimitExceeded, PathError, RenderError
from app.repo.kustomize_edit import apply_overrides
from app.repo.kustomize_refs import check_references, find_kustomization, read_kustomization
from app.repo.process import run_process
from app.repo.service import Repositories

logger = log.get("repo.kustomize")

_MAX_ERROR_LINES = 6
_KLOG_PREFIX = re.compile(r"^[IWEF]\d{4} [\d:.]+\s+\d+ [\w.-]+:\d+\] ")
"""kubectl's log header (`E1129 16:44:24.369456 18542 run.go:72] `): noise in a condition."""


@dataclass(frozen=True, slots=True)
class KustomizeBuild:
    """The output of one build and what produced it."""

    kustomization: str
    """The app's kustomization file, repository-relative."""
    output: bytes
    tool: str
    """`kustomize` or `kubectl kustomize`."""
    ignored: tuple[str, ...]
    """Override fields that had no effect (see kustomize_edit.IGNORED)."""


def find_tool() -> tuple[str, ...] | None:
    """argv before the directory: `kustomize build`, else `kubectl kustomize`, else None."""
    kustomize = shutil.which("kustomize")
    if kustomize is not None:
        return (kustomize, "build")
    kubectl = shutil.which("kubectl")
    if kubectl is not None:
        return (kubectl, "kustomize")
    return None


def _tool_name(tool: Sequence[str]) -> str:
    return f"{os.path.basename(tool[0])} {tool[1]}" if tool[1] != "build" else "kustomize"


def _environment(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "KUBECONFIG": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "LC_ALL": "C",
        "LANG": "C",
    }


def _prepare(
    root: Path, app_dir: Path, source: ApplicationSource, field: str
) -> tuple[str, tuple[str, ...]]:
    """Merge the overrides into the app's kustomization and check every reference.

    Returns the kustomization's repository-relative name and the ignored override fields.
    """
    path = find_kustomization(app_dir)
    shown_dir = os.path.relpath(app_dir, root)
    if path is None:
        raise RenderError(
            f"{field}.path: {shown_dir!r} has no kustomization.yaml, kustomization.yml or "
            "Kustomization file; add one, or remove the kustomize block to render the "
            "directory as plain manifests"
        )
    shown = os.path.relpath(path, root)
    ignored: tuple[str, ...] = ()
    if source.kustomize:
        current = read_kustomization(path, shown=f"{field}: {shown}")
        edited = apply_overrides(current.content, source.kustomize, field=f"{field}.kustomize")
        ignored = edited.ignored
        path.write_text(yaml.safe_dump(edited.kustomization, sort_keys=False))
    check_references(root, app_dir, field=field)
    return shown, ignored


def _failure(stderr: bytes, root: Path) -> str:
    text = stderr.decode("utf-8", "replace")
    for prefix in {os.path.realpath(root), str(root)}:
        text = text.replace(prefix + os.sep, "").replace(prefix, ".")
    lines = [_KLOG_PREFIX.sub("", line.strip()) for line in text.splitlines() if line.strip()]
    return redact_text("; ".join(lines[:_MAX_ERROR_LINES])[:1500])


async def build_kustomize(
    repos: Repositories, source: ApplicationSource, commit: str, *, field: str, project: str = ""
) -> KustomizeBuild:
    """`kustomize build` of `source` at `commit` (a resolved full SHA).

    `field` names the source in messages (`spec.source`, `spec.sources[1]`); `project` is
    the app's AppProject (which repository credentials the checkout uses).
    """
    tool = find_tool()
    if tool is None:
        raise RenderError(
            f"{field}: a Kustomize source ({source.path or '/'!r}), and the render host has "
            "neither `kustomize` nor `kubectl` on its PATH; install one of them (kubectl "
            "embeds kustomize) where the render worker runs"
        )
    settings = repos.settings
    async with repos.checkout(source.repo_url, commit, field=field, project=project) as work:
        app_dir = work.resolve(source.path, field=f"{field}.path")
        if not app_dir.is_dir():
            raise PathError(f"{field}.path", f"{source.path!r} is not a directory at {commit[:12]}")
        shown, ignored = await asyncio.to_thread(_prepare, work.root, app_dir, source, field)
        home = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="home-", dir=work.root.parent))
        relative = str(app_dir.relative_to(work.root))
        name = _tool_name(tool)
        try:
            finished = await run_process(
                [*tool, relative],
                env=_environment(home),
                cwd=work.root,
                deadline=settings.tool_timeout,
                max_output=settings.max_manifest_bytes,
            )
        except TimeoutError:
            raise RenderError(
                f"{field}: {name} {relative} did not finish within {settings.tool_timeout:g} s "
                "and was stopped; simplify the kustomization or split the application"
            ) from None
        if finished.violation is not None:
            raise LimitExceeded(
                f"{field}: {name} {relative} was stopped: {finished.violation} "
                f"(max_manifest_bytes); split the application into smaller ones"
            )
        if finished.code != 0:
            raise RenderError(
                f"{field}: {name} {relative} failed ({shown}): "
                f"{_failure(finished.stderr, work.root) or f'exit status {finished.code}'}; "
                "fix the kustomization in Git"
            )
        logger.debug(
            "kustomize built",
            field=field,
            path=relative,
            tool=name,
            bytes=len(finished.stdout),
            seconds=finished.seconds,
        )
        return KustomizeBuild(shown, finished.stdout, name, ignored)

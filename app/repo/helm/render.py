"""Rendering a Helm source: a chart in Git (source.path holding a Chart.yaml).

In order, as Argo CD's `helm template` does:

1. The commit is checked out into a private work dir (its symlink scan passed), and so is
   every `ref` source of a multi-source app at the commit it resolved to, for `$ref/…`
   value files. source.path is resolved in the checkout and must hold a Chart.yaml.
2. `source.helm` is read (options.py) and the values collected (values.py), with the
   app's build environment expanded in parameter values and value-file paths.
3. Chart dependencies missing from `charts/` are fetched or copied (dependencies.py).
4. The chart is rendered by Helm itself in a bounded child process (engine.py) with the
   release name (`releaseName`, else the app's name), the namespace (`helm.namespace`,
   else the destination's), `.Capabilities` from the destination cluster unless
   `kubeVersion`/`apiVersions` say otherwise, CRDs from `crds/` unless `skipCrds`, the
   values schema checked unless `skipSchemaValidation`.
5. The output is parsed by the same bounded loader as every other source; with
   `skipTests` Helm test hooks are left out.
"""

import asyncio
import contextlib
import posixpath
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from app import log
from app.engine.build_env import BuildTarget, build_environment
from app.engine.manifests import load_manifests
from app.model.annotations import HELM_HOOK
from app.model.app_spec import ApplicationSource
from app.model.errors import SpecError
from app.model.resource import KubeObject
from app.repo.errors import PathError, RenderError
from app.repo.helm.dependencies import fill_dependencies
from app.repo.helm.engine import ChartRender, Limits, render_chart
from app.repo.helm.options import HelmOptions, helm_options
from app.repo.helm.repository import HelmCharts, fetch_anonymous
from app.repo.helm.values import ChartPlace, RemoteReader, collect_values, referenced_refs
from app.repo.helm_settings import HelmSettings
from app.repo.service import Repositories
from app.repo.sourcetype import HELM_CHART_FILE
from app.repo.tree import NodeKind, RepoTree, TreeEntry
from app.repo.worktree import WorkTree, remove_tree

logger = log.get("repo.helm")

_TEST_HOOKS = {"test", "test-success", "test-failure"}


@dataclass(frozen=True, slots=True)
class RefCommit:
    """A `ref` source of the app, at the commit it resolved to."""

    repo_url: str
    commit: str


@dataclass(frozen=True, slots=True)
class HelmTarget:
    """Everything about the app and its destination that shapes a Helm render."""

    app_name: str
    """The app's instance name: the release name unless `releaseName`, and
    `ARGOCD_APP_NAME`."""
    app_namespace: str
    """`ARGOCD_APP_NAMESPACE`: the destination namespace, as in Argo CD."""
    destination_namespace: str
    kube_version: str = ""
    api_versions: tuple[str, ...] = ()
    refs: Mapping[str, RefCommit] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class HelmRender:
    manifests: list[KubeObject]
    chart: str
    """The chart as `name-version` from its Chart.yaml."""
    release: str
    missing_value_files: tuple[str, ...]
    dependencies: tuple[str, ...] = ()
    """Dependencies fetched or copied into `charts/` for this render."""


def remote_reader(repos: Repositories, field: str) -> RemoteReader:
    """Reads a remote value file with no credentials (HelmSettings allows remote files)."""

    async def read(url: str, max_bytes: int) -> bytes:
        anonymous = await repos.remote(url, field=f"{field}.helm.valueFiles")
        return await fetch_anonymous(
            anonymous, url, max_bytes=max_bytes, deadline=repos.settings.network_timeout
        )

    return read


def is_test_hook(obj: KubeObject) -> bool:
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    hooks = str(annotations.get(HELM_HOOK, ""))
    return any(h.strip() in _TEST_HOOKS for h in hooks.split(","))


def _chart_name(chart_dir: Path) -> str:
    try:
        meta = yaml.safe_load((chart_dir / HELM_CHART_FILE).read_text("utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return chart_dir.name
    if not isinstance(meta, dict):
        return chart_dir.name
    return f"{meta.get('name', chart_dir.name)}-{meta.get('version', '')}".rstrip("-")


async def render_chart_dir(
    place: ChartPlace,
    chart_dir: Path,
    options: HelmOptions,
    target: HelmTarget,
    refs: Mapping[str, WorkTree],
    *,
    env: Mapping[str, str],
    field: str,
    repos: Repositories,
    charts: HelmCharts,
    project: str,
    settings: HelmSettings,
) -> HelmRender:
    """Render the chart at `chart_dir` (inside `place`, a private copy) for `target`."""
    dependencies = await fill_dependencies(
        repos, charts, place.work, chart_dir, field=field, project=project
    )
    values = await collect_values(
        options,
        place,
        refs,
        env,
        field=f"{field}.helm",
        max_bytes=settings.max_value_file_bytes,
        remote=remote_reader(repos, field) if settings.allow_remote_value_files else None,
    )
    release = options.release_name or target.app_name
    request = ChartRender(
        chart=str(chart_dir),
        release=release,
        namespace=options.namespace or target.destination_namespace,
        kube_version=options.kube_version or target.kube_version,
        api_versions=list(options.api_versions or target.api_versions),
        values=values.documents,
        value_names=values.names,
        set=values.set,
        set_string=values.set_string,
        set_file=values.set_file,
        include_crds=not options.skip_crds,
        skip_schema_validation=options.skip_schema_validation,
    )
    limits = Limits(
        repos.settings.tool_timeout,
        repos.settings.max_manifest_bytes,
        repos.settings.max_render_memory,
    )
    home = Path(
        await asyncio.to_thread(tempfile.mkdtemp, prefix="home-", dir=place.work.root.parent)
    )
    files = await render_chart(request, limits, field=field, root=place.work.root, home=home)
    try:
        manifests = load_manifests(files)
    except SpecError as e:
        raise RenderError(f"{field}: the chart rendered invalid YAML: {e}") from None
    if options.skip_tests:
        manifests = [m for m in manifests if not is_test_hook(m)]
    return HelmRender(
        manifests, _chart_name(chart_dir), release, tuple(values.missing), tuple(dependencies)
    )


async def _ref_checkouts(
    stack: contextlib.AsyncExitStack,
    repos: Repositories,
    refs: Mapping[str, RefCommit],
    *,
    field: str,
    project: str,
) -> dict[str, WorkTree]:
    found: dict[str, WorkTree] = {}
    for name, ref in sorted(refs.items()):
        found[name] = await stack.enter_async_context(
            repos.checkout(
                ref.repo_url, ref.commit, field=f"{field} ($ref {name})", project=project
            )
        )
    return found


async def render_git_chart(
    repos: Repositories,
    source: ApplicationSource,
    commit: str,
    target: HelmTarget,
    *,
    field: str,
    project: str,
    charts: HelmCharts,
    settings: HelmSettings,
) -> HelmRender:
    """`helm template` of the chart at source.path in `commit` (a resolved full SHA)."""
    options = helm_options(source.helm, field=f"{field}.helm")
    async with contextlib.AsyncExitStack() as stack:
        work = await stack.enter_async_context(
            repos.checkout(source.repo_url, commit, field=field, project=project)
        )
        chart_dir = work.resolve(source.path, field=f"{field}.path")
        if not (chart_dir / HELM_CHART_FILE).is_file():
            raise PathError(
                f"{field}.path",
                f"{source.path or '/'!r} has no {HELM_CHART_FILE} at {commit[:12]}; a Helm "
                "source's path must be a chart directory",
            )
        relative = str(chart_dir.relative_to(work.root)) if chart_dir != work.root else ""
        env = build_environment(
            BuildTarget(
                target.app_name,
                target.app_namespace,
                commit,
                source.path,
                source.repo_url,
                source.target_revision,
                target.kube_version,
                target.api_versions,
            )
        )
        wanted = referenced_refs(options, env)
        refs = await _ref_checkouts(
            stack,
            repos,
            {k: v for k, v in target.refs.items() if k in wanted},
            field=field,
            project=project,
        )
        rendered = await render_chart_dir(
            ChartPlace(work, relative),
            chart_dir,
            options,
            target,
            refs,
            env=env,
            field=field,
            repos=repos,
            charts=charts,
            project=project,
            settings=settings,
        )
    logger.debug(
        "helm rendered",
        field=field,
        commit=commit,
        chart=rendered.chart,
        release=rendered.release,
        objects=len(rendered.manifests),
    )
    return rendered


def directory_tree(root: Path, label: str) -> RepoTree:
    """A listing of an extracted chart (files and directories only: extraction refused
    anything else), so value files resolve through the same path resolver as in Git."""
    entries: dict[str, TreeEntry] = {}
    children: dict[str, list[str]] = {"": []}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        parent = posixpath.dirname(relative)
        children.setdefault(parent, []).append(path.name)
        if path.is_dir():
            children.setdefault(relative, [])
        else:
            entries[relative] = TreeEntry(NodeKind.FILE, "", path.stat().st_size)
    return RepoTree(label, entries, children)


async def render_repo_chart(
    repos: Repositories,
    chart_dir: Path,
    source: ApplicationSource,
    version: str,
    target: HelmTarget,
    *,
    field: str,
    project: str,
    charts: HelmCharts,
    settings: HelmSettings,
) -> HelmRender:
    """`helm template` of an extracted chart from a Helm repository (copied first)."""
    options = helm_options(source.helm, field=f"{field}.helm")
    work_root = repos.settings.cache_dir / "helm-work"
    await asyncio.to_thread(work_root.mkdir, mode=0o700, parents=True, exist_ok=True)
    container = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="chart-", dir=work_root))
    try:
        copy = container / "tree"
        await asyncio.to_thread(shutil.copytree, chart_dir, copy, symlinks=True)
        tree = await asyncio.to_thread(directory_tree, copy, version)
        work = WorkTree(copy, version, tree, repos.settings.max_symlink_hops)
        env = build_environment(
            BuildTarget(
                target.app_name,
                target.app_namespace,
                version,
                source.path,
                source.repo_url,
                source.target_revision,
                target.kube_version,
                target.api_versions,
            )
        )
        async with contextlib.AsyncExitStack() as stack:
            wanted = referenced_refs(options, env)
            refs = await _ref_checkouts(
                stack,
                repos,
                {k: v for k, v in target.refs.items() if k in wanted},
                field=field,
                project=project,
            )
            return await render_chart_dir(
                ChartPlace(work, ""),
                copy,
                options,
                target,
                refs,
                env=env,
                field=field,
                repos=repos,
                charts=charts,
                project=project,
                settings=settings,
            )
    finally:
        await asyncio.shield(asyncio.to_thread(remove_tree, container))

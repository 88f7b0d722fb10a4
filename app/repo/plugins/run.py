"""Rendering a source with a Config Management Plugin, as Argo CD's CMP server does.

In order, for one source at one commit:

1. The plugins are read from `RepoSettings.plugins_dir` (registry.py). `source.plugin.name`
   selects one by `<name>-<version>`; without a name, the first plugin (in directory name
   order) whose `discover` rules match the app directory takes it (for an untyped source,
   the commit's listing first rules out what it can, discovery.py, so a source no plugin
   can take costs no checkout). A named plugin with
   discovery rules must match too, as in Argo CD. No match: a source that declared a
   plugin fails, naming what is registered; a source that declared nothing goes on to
   Argo CD's other discovery (Helm, Kustomize, directory).
2. The commit is checked out into a private work dir that is thrown away afterwards: the
   plugin may write anything into it. Unless `preserveFileMode`, execute bits are dropped
   from every file (Argo CD sends the files without their modes). `lockRepo` runs the
   plugin's commands one app at a time per repository.
3. `init` (if any) then `generate` run as argv in the app directory, each with a deadline
   (`tool_timeout`), stdout capped at `max_manifest_bytes`, the process group's memory
   capped at `max_render_memory`, and the group killed past any of them or on
   cancellation. The environment is built from nothing (environment.py): no variable of
   the render worker, no credential, reaches the plugin.

`generate`'s stdout (YAML or JSON documents) goes to the caller for the manifest loader.
`plugin_parameters` takes the same steps 1-2 and runs `parameters.dynamic` instead (for
the API's app details): its JSON list of announcements, then `parameters.static`.
Failures are RenderErrors naming the source field, the plugin and the command, with the
plugin's stderr (checkout paths shown relative, credentials redacted).
"""

import asyncio
import contextlib
import glob
import os
import stat
import tempfile
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from app import log
from app.engine.redact import redact_text
from app.model.app_spec import ApplicationSource
from app.repo.errors import LimitExceeded, PathError, RenderError
from app.repo.plugins.discovery import listing_discovers
from app.repo.plugins.environment import PluginSource, parse_plugin_source, plugin_environment
from app.repo.plugins.registry import Plugins, load_plugins
from app.repo.plugins.spec import PluginCommand, PluginSpec, StaticParameter, parse_announced
from app.repo.process import Finished, run_process
from app.repo.service import Repositories
from app.repo.settings import RepoSettings

logger = log.get("repo.plugins")

_MAX_ERROR_LINES = 6
_locks: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Lock]]" = (
    weakref.WeakKeyDictionary()
)


@dataclass(frozen=True, slots=True)
class PluginParameters:
    plugin: str
    """The plugin's full name."""
    announced: tuple[StaticParameter, ...]
    """`parameters.dynamic`'s output, then `parameters.static`."""


@dataclass(frozen=True, slots=True)
class PluginOutput:
    plugin: str
    """The plugin's full name."""
    output: bytes
    """`generate`'s stdout."""


def _repo_lock(repo_url: str) -> asyncio.Lock:
    table = _locks.setdefault(asyncio.get_running_loop(), {})
    return table.setdefault(repo_url, asyncio.Lock())


def _drop_execute_bits(root: Path) -> None:
    for directory, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISREG(mode) and mode & 0o111:
                os.chmod(path, stat.S_IMODE(mode) & ~0o111)


def _matches(pattern: str, app_dir: Path, root: Path, *, recursive: bool) -> bool:
    real_root = os.path.realpath(root)
    for found in glob.glob(
        os.path.join(app_dir, pattern), recursive=recursive, include_hidden=True
    ):
        real = os.path.realpath(found)
        if os.path.commonpath([real, real_root]) == real_root:
            return True
    return False


def _shown(text: str, root: Path) -> str:
    for prefix in {os.path.realpath(root), str(root)}:
        text = text.replace(prefix + os.sep, "").replace(prefix, ".")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return redact_text("; ".join(lines[:_MAX_ERROR_LINES])[:1500])


class _Run:
    """One plugin render's commands: same env, same directory, same limits."""

    def __init__(
        self, settings: RepoSettings, root: Path, app_dir: Path, env: Mapping[str, str], field: str
    ) -> None:
        self.settings = settings
        self.root = root
        self.app_dir = app_dir
        self.env = env
        self.field = field

    async def run(self, plugin: PluginSpec, command: PluginCommand, step: str) -> Finished:
        what = f"plugin {plugin.full_name!r} {step} ({os.path.basename(command.argv[0])})"
        try:
            finished = await run_process(
                command.argv,
                env=self.env,
                cwd=self.app_dir,
                deadline=self.settings.tool_timeout,
                max_output=self.settings.max_manifest_bytes,
                max_rss=self.settings.max_render_memory,
            )
        except TimeoutError:
            raise RenderError(
                f"{self.field}: {what} did not finish within {self.settings.tool_timeout:g} s "
                "and was killed; make the plugin faster or raise the exec timeout"
            ) from None
        except OSError as e:
            raise RenderError(
                f"{self.field}: {what} could not start: {e.strerror}; install it on the "
                "render host's PATH or fix the plugin's command"
            ) from None
        if finished.violation is not None:
            raise LimitExceeded(
                f"{self.field}: {what} was killed: {finished.violation} (max_manifest_bytes, "
                "max_render_memory); split the application or make the plugin produce less"
            )
        if finished.code != 0:
            detail = _shown(finished.stderr.decode("utf-8", "replace"), self.root)
            raise RenderError(
                f"{self.field}: {what} failed: {detail or f'exit status {finished.code}'}"
            )
        return finished

    async def discovers(self, plugin: PluginSpec) -> bool:
        rules = plugin.discover
        if rules.file_name:
            return await asyncio.to_thread(
                _matches, rules.file_name, self.app_dir, self.root, recursive=False
            )
        if rules.glob:
            return await asyncio.to_thread(
                _matches, rules.glob, self.app_dir, self.root, recursive=True
            )
        if rules.command is not None:
            found = await self.run(plugin, rules.command, "discover")
            return bool(found.stdout.strip())
        return False


async def _choose(run: _Run, plugins: Plugins, wanted: str) -> PluginSpec | None:
    if wanted:
        plugin = plugins.named(wanted)
        if plugin is None:
            raise RenderError(
                f"{run.field}.plugin.name: no plugin {wanted!r} ({plugins.described()}); "
                "name one as <metadata.name>-<spec.version>"
            )
        if plugin.discover.enabled and not await run.discovers(plugin):
            raise RenderError(
                f"{run.field}.plugin.name: plugin {wanted!r} does not support this source: "
                f"its discover rules ({plugin.source}) do not match {run.app_dir.name!r}"
            )
        return plugin
    for plugin in plugins.discoverable():
        if await run.discovers(plugin):
            return plugin
    return None


async def _may_discover(
    repos: Repositories,
    plugins: Plugins,
    source: ApplicationSource,
    commit: str,
    *,
    field: str,
    project: str,
) -> bool:
    """Whether some plugin may take an untyped source (False: none can, no checkout)."""
    candidates = plugins.discoverable()
    if not candidates:
        return False
    tree, app_dir = await repos.app_listing(source, commit, field=field, project=project)
    return any(listing_discovers(p.discover, tree, app_dir) is not False for p in candidates)


@contextlib.asynccontextmanager
async def _selected(
    repos: Repositories,
    source: ApplicationSource,
    commit: str,
    *,
    field: str,
    project: str,
    build: Callable[[], Awaitable[Mapping[str, str]]],
    declared: bool,
) -> AsyncIterator[tuple[_Run, PluginSpec] | None]:
    """The plugin that takes `source` and a runner in its throwaway checkout (steps 1-2),
    or None when nothing was declared and no plugin's discovery matches."""
    settings = repos.settings
    if settings.plugins_dir is None:
        if declared:
            raise RenderError(
                f"{field}.plugin: this render host has no Config Management Plugins; set "
                "SLUICE_PLUGINS_DIR for the render worker, or render the manifests into Git"
            )
        yield None
        return
    plugins = await asyncio.to_thread(load_plugins, settings.plugins_dir)
    wanted: PluginSource = parse_plugin_source(source.plugin, field=field)
    if not declared and not await _may_discover(
        repos, plugins, source, commit, field=field, project=project
    ):
        yield None
        return
    async with repos.checkout(source.repo_url, commit, field=field, project=project) as work:
        app_dir = work.resolve(source.path, field=f"{field}.path")
        if not app_dir.is_dir():
            raise PathError(f"{field}.path", f"{source.path!r} is not a directory at {commit[:12]}")
        home = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="home-", dir=work.root.parent))
        base = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home)}
        env = plugin_environment(await build(), wanted, base=base)
        run = _Run(settings, work.root, app_dir, env, field)
        plugin = await _choose(run, plugins, wanted.name)
        if plugin is None:
            if declared:
                raise RenderError(
                    f"{field}.plugin: no plugin's discover rules match {source.path or '/'!r} "
                    f"({plugins.described()}); name the plugin in plugin.name"
                )
            yield None
            return
        if not plugin.preserve_file_mode:
            await asyncio.to_thread(_drop_execute_bits, work.root)
        yield run, plugin


async def render_plugin(
    repos: Repositories,
    source: ApplicationSource,
    commit: str,
    *,
    field: str,
    project: str,
    build: Callable[[], Awaitable[Mapping[str, str]]],
    declared: bool,
) -> PluginOutput | None:
    """The plugin render of `source` at `commit`; None when nothing was declared and no
    plugin's discovery matches (the caller then discovers the other source types).
    `build` gives the build environment; it is asked for only when a plugin may run."""
    chosen_by = _selected(
        repos, source, commit, field=field, project=project, build=build, declared=declared
    )
    async with chosen_by as chosen:
        if chosen is None:
            return None
        run, plugin = chosen
        lock = _repo_lock(source.repo_url) if plugin.lock_repo else None
        if lock is not None:
            await lock.acquire()
        try:
            if plugin.init is not None:
                await run.run(plugin, plugin.init, "init")
            generated = await run.run(plugin, plugin.generate, "generate")
        finally:
            if lock is not None:
                lock.release()
    logger.debug(
        "plugin generated",
        field=field,
        plugin=plugin.full_name,
        bytes=len(generated.stdout),
        seconds=round(generated.seconds, 3),
    )
    return PluginOutput(plugin.full_name, generated.stdout)


async def plugin_parameters(
    repos: Repositories,
    source: ApplicationSource,
    commit: str,
    *,
    field: str,
    project: str,
    build: Callable[[], Awaitable[Mapping[str, str]]],
    declared: bool,
) -> PluginParameters | None:
    """The parameters the plugin that takes `source` announces, as Argo CD's CMP server
    lists them: the output of `parameters.dynamic` (run like `generate`, without `init`),
    then `parameters.static` (later entries win in Argo CD's UI, so static ones do).
    None when nothing was declared and no plugin's discovery matches."""
    chosen_by = _selected(
        repos, source, commit, field=field, project=project, build=build, declared=declared
    )
    async with chosen_by as chosen:
        if chosen is None:
            return None
        run, plugin = chosen
        dynamic: tuple[StaticParameter, ...] = ()
        if plugin.dynamic_parameters is not None:
            finished = await run.run(plugin, plugin.dynamic_parameters, "parameters.dynamic")
            dynamic = parse_announced(
                finished.stdout,
                where=f"{field}: plugin {plugin.full_name!r} parameters.dynamic output",
            )
    return PluginParameters(plugin.full_name, dynamic + plugin.static_parameters)

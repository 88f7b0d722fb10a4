"""The system-wide settings of one process: argocd-cm, read at start and followed after.

Every Sluice process follows the settings ConfigMap (`ControlPlaneSettings.
settings_configmap`, default Argo CD's `argocd-cm`, in the control-plane namespace) with a
LIST+WATCH of that one object, as every Argo CD component runs its own informer on it:
one list at start, then only changes, and no request at all while nothing changes.
`app.engine.system_settings` says what each key means.

- Start (`start`, from `Runtime.open`) waits for the first list, up to `START_WAIT`. No
  ConfigMap: Sluice's defaults. A map with a bad key, or a permission refused:
  `SettingsRefused` naming every bad key, and the process does not start (running on half
  of what the operator wrote could make a sync undo what an ignore rule protects). A
  cluster that does not answer in time: the process starts, the settings not yet `ready`,
  and they are put in force when the list arrives.
- Until the settings are `ready`, nothing that decides from them runs: comparisons and
  operation plans wait (`not_ready` gives the reason for their retry). The steps of an
  operation already planned go on (they act on what the plan says; their health checks
  are the packaged ones until the settings arrive).
- Running: a changed map that parses replaces the settings in force (a new `compare`
  object, so nothing compared under the old settings is reused) and every listener is
  told (the compare worker asks for a comparison of every app, the watcher rewrites its
  trees' health). A map that does not parse is refused whole: logged with every problem,
  the settings in force stay until a good version arrives. A deleted map brings back the
  defaults.
- The tracking method is decided at start (the map's, else `Settings.tracking_method`):
  the watcher's index and every comparison must agree on which objects are whose, so a
  change is logged as needing a restart of every Sluice process, and not applied.
"""

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from app import log
from app.cluster import Cluster, ClusterError, EventType, Synced
from app.engine.actions import load_actions_tree
from app.engine.compare import CompareSettings
from app.engine.health import HealthCustomizations
from app.engine.health.customizations import load_library_checks
from app.engine.system_settings import (
    CustomizationLibrary,
    SystemSettings,
    SystemSettingsError,
    default_settings,
    parse_system_settings,
)
from app.engine.tracking import TrackingMethod
from app.model.errors import SpecError
from app.model.resource import KubeObject, metadata

logger = log.get("settings")

START_WAIT = 3.0
"""Seconds `start` waits for the first list before the process goes on without it."""
RESUME_PAUSE = 1.0
"""Seconds before a first read that `start` gave up waiting for is tried again."""
RETRY_DELAY = 5.0
"""Seconds before a watch refused for good (e.g. permission withdrawn) is opened again."""
MAX_RETRY_DELAY = 60.0

Listener = Callable[[SystemSettings], Awaitable[None]]
"""Told of each new version of the settings once it is in force."""


def _version(obj: KubeObject) -> str:
    return str(metadata(obj).get("resourceVersion") or "")


class SettingsRefused(Exception):
    """The settings cannot be read or used at start; the text says what to fix."""


def load_library(directory: Path | None) -> CustomizationLibrary:
    """The operator's resource_customizations directory (`Settings.
    resource_customizations_dir`), compiled; SettingsRefused naming the file if any part
    cannot be used, so a process never runs on half a library."""
    if directory is None:
        return CustomizationLibrary()
    if not directory.is_dir():
        raise SettingsRefused(
            f"SLUICE_RESOURCE_CUSTOMIZATIONS_DIR={directory} is not a directory; "
            "set it to a <group>/<Kind>/health.lua tree or unset it"
        )
    try:
        checks = load_library_checks(directory)
        actions = load_actions_tree(directory, str(directory))
    except (SpecError, OSError, UnicodeDecodeError) as e:
        raise SettingsRefused(
            f"resource customizations in {directory}: {e}; check it with `sluice health test`"
        ) from None
    logger.info(
        "settings.library_loaded",
        directory=str(directory),
        health=[str(c.pattern) for c in checks],
        actions=[str(a.pattern) for a in actions],
    )
    return CustomizationLibrary(tuple(checks), tuple(actions))


class SystemSettingsSource:
    """The settings in force in this process, and the watch that keeps them current."""

    def __init__(
        self,
        cluster: Cluster,
        namespace: str,
        name: str,
        *,
        tracking: TrackingMethod,
        library: CustomizationLibrary = CustomizationLibrary(),  # noqa: B008
    ) -> None:
        self._cluster = cluster
        self._namespace = namespace
        self._name = name
        self.origin = f"ConfigMap {namespace}/{name}"
        self._default_tracking = tracking
        self.tracking = tracking
        """The tracking method in force for the life of the process."""
        self._library = library
        self.settings: SystemSettings = default_settings(library)
        self.compare: CompareSettings = self.settings.compare_settings(tracking)
        """CompareSettings of the settings in force (without discovery scopes); a new
        object for every new version."""
        self.version = ""
        """resourceVersion of the ConfigMap in force ("" for none)."""
        self.ready = False
        """The ConfigMap has been read once and its settings are in force."""
        self._problem = f"{self.origin} has not been read yet"
        self._data: Mapping[str, Any] | None = None
        self._listeners: list[Listener] = []
        self._task: asyncio.Task[None] | None = None

    @property
    def health(self) -> HealthCustomizations:
        """The custom Lua health checks in force."""
        return self.settings.health

    @property
    def not_ready(self) -> str:
        """Why the settings are not in force yet ("" once they are)."""
        return "" if self.ready else f"the system settings are not in force: {self._problem}"

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` after each change; returns the function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    async def start(self) -> None:
        """Read the settings and follow them (SettingsRefused if they cannot be used)."""
        first: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._follow(first), name=f"settings {self.origin}")
        try:
            async with asyncio.timeout(START_WAIT):
                await asyncio.shield(first)
        except TimeoutError:
            first.cancel()
            await self.stop()
            self._task = asyncio.create_task(
                self._follow(first, pause=RESUME_PAUSE), name=f"settings {self.origin}"
            )
            logger.warning(
                "settings.waiting",
                configmap=self.origin,
                waited_s=START_WAIT,
                retry_in_s=RESUME_PAUSE,
                reason="the control-plane cluster did not answer; comparisons and plans wait",
            )
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _follow(self, first: asyncio.Future[None], *, pause: float = 0.0) -> None:
        """Watch the ConfigMap for good; a start that gave up waiting comes back after
        `pause` (its first read, stuck on a silent cluster, was cancelled)."""
        delay = RETRY_DELAY
        await asyncio.sleep(pause)
        while True:
            try:
                await self._watch(first)
            except ClusterError as e:
                problem = f"cannot read {self.origin}: {e}"
                if not e.retriable:
                    problem += (
                        f"; Sluice needs get, list and watch on configmaps in namespace "
                        f"{self._namespace}"
                    )
                    if not first.done():
                        first.set_exception(SettingsRefused(problem))
                        return
                if not self.ready:
                    self._problem = problem
                logger.error(
                    "settings.watch_failed", configmap=self.origin, error=problem, retry_in_s=delay
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, MAX_RETRY_DELAY)

    async def _watch(self, first: asyncio.Future[None]) -> None:
        watch = self._cluster.watch(
            "v1",
            "ConfigMap",
            namespace=self._namespace,
            field_selector=f"metadata.name={self._name}",
        )
        listed: tuple[Mapping[str, Any], str] = ({}, "")
        synced = False
        async with watch as events:
            async for event in events:
                if isinstance(event, Synced):
                    synced = True
                elif event.type is EventType.DELETED:
                    listed = ({}, "")
                else:
                    listed = (event.object.get("data") or {}, _version(event.object))
                if synced and (not self.ready or listed[0] != self._data):
                    await self._take(*listed, first)

    async def _take(
        self, data: Mapping[str, Any], version: str, first: asyncio.Future[None]
    ) -> None:
        """Put a version of the map in force, or refuse it saying why."""
        try:
            settings = parse_system_settings(data, origin=self.origin, library=self._library)
        except SystemSettingsError as e:
            if not first.done():
                fix = "Fix the ConfigMap (kubectl edit) and start Sluice again"
                first.set_exception(SettingsRefused(f"{e}. {fix}"))
                return
            if not self.ready:
                self._problem = str(e)
            logger.error(
                "settings.refused",
                configmap=self.origin,
                resource_version=version,
                problems=list(e.problems),
                kept=self.version or ("defaults" if self.ready else "none yet: nothing compares"),
                reason="a settings map is used whole or not at all; the settings in force stay",
            )
            return
        wanted = settings.tracking or self._default_tracking
        if not first.done():
            self.tracking = wanted
        elif wanted is not self.tracking:
            logger.warning(
                "settings.tracking_not_changed",
                configmap=self.origin,
                wanted=wanted.value,
                in_force=self.tracking.value,
                reason="the tracking method changes only when every Sluice process restarts",
            )
        self._put(settings, data, version)
        if not first.done():
            first.set_result(None)
            return
        for listener in list(self._listeners):
            try:
                await listener(settings)
            except Exception as e:  # noqa: BLE001 - a listener's failure must not stop the settings being followed
                logger.error("settings.listener_failed", configmap=self.origin, error=repr(e))

    def _put(self, settings: SystemSettings, data: Mapping[str, Any], version: str) -> None:
        self.settings = settings
        self.compare = settings.compare_settings(self.tracking)
        self._data = data
        self.version = version
        self.ready = True
        logger.info(
            "settings.loaded",
            configmap=self.origin,
            resource_version=version or "none (defaults)",
            tracking=self.tracking.value,
            health_checks=list(settings.configured_health),
            ignore_rules=len(settings.ignore_differences),
            exclusions=len(settings.exclusions),
            inclusions=len(settings.inclusions),
            ignore_status=settings.ignore_status,
            notices=list(settings.notices),
        )

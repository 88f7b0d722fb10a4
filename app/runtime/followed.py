"""One named ConfigMap or Secret, read at start and followed after (LIST+WATCH of it).

For settings a process reads as a whole and must see change while it runs (the API's
`argocd-rbac-cm`, `argocd-cm` accounts and `argocd-secret`), as an Argo CD component
runs its informer on each. `start` waits up to `START_WAIT` for the first list; after
it, `data` is the object's `data` (`{}` when it does not exist), `version` its
resourceVersion, and every change is handed to the listener, which may refuse it (by
raising `Refused`: the data in force stays). The watch is reopened after a failure
(1 s, doubling to 60 s).
"""

import asyncio
import base64
import binascii
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from app import log
from app.cluster import Cluster, ClusterError, EventType, Synced
from app.model.resource import metadata

logger = log.get("settings")

START_WAIT = 3.0
RETRY_DELAY = 1.0
MAX_RETRY_DELAY = 60.0

Listener = Callable[[Mapping[str, Any], str], Awaitable[None]]


class Refused(Exception):
    """The listener will not use this version; the text says why."""


def decoded(data: Mapping[str, Any]) -> dict[str, str]:
    """A Secret's `data` with its base64 values decoded (values that are not UTF-8 base64
    are left out)."""
    out: dict[str, str] = {}
    for key, value in data.items():
        try:
            out[key] = base64.b64decode(str(value), validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            continue
    return out


class FollowedObject:
    """The latest `data` of one object, kept current by a watch."""

    def __init__(
        self, cluster: Cluster, kind: str, namespace: str, name: str, listener: Listener
    ) -> None:
        self._cluster = cluster
        self._kind = kind
        self.namespace = namespace
        self.name = name
        self.origin = f"{kind} {namespace}/{name}"
        self._listener = listener
        self.data: Mapping[str, Any] = {}
        self.version = ""
        self.exists = False
        self.ready = False
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Follow the object; returns once it was read (or after `START_WAIT` without an
        answer). A first version the listener refuses is raised as `Refused`."""
        first: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._follow(first), name=f"follow {self.origin}")
        try:
            async with asyncio.timeout(START_WAIT):
                await asyncio.shield(first)
        except TimeoutError:
            logger.warning("settings.waiting", object=self.origin, waited_s=START_WAIT)
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _follow(self, first: asyncio.Future[None]) -> None:
        delay = RETRY_DELAY
        while True:
            try:
                await self._watch(first)
            except ClusterError as e:
                logger.error(
                    "settings.watch_failed", object=self.origin, error=str(e), retry_in_s=delay
                )
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_RETRY_DELAY)

    async def _watch(self, first: asyncio.Future[None]) -> None:
        watch = self._cluster.watch(
            "v1", self._kind, namespace=self.namespace, field_selector=f"metadata.name={self.name}"
        )
        current: tuple[Mapping[str, Any], str, bool] = ({}, "", False)
        synced = False
        async with watch as events:
            async for event in events:
                if isinstance(event, Synced):
                    synced = True
                elif event.type is EventType.DELETED:
                    current = ({}, "", False)
                else:
                    obj = event.object
                    version = str(metadata(obj).get("resourceVersion") or "")
                    current = (obj.get("data") or {}, version, True)
                if synced and (not self.ready or current[1] != self.version):
                    await self._take(*current, first)

    async def _take(
        self, data: Mapping[str, Any], version: str, exists: bool, first: asyncio.Future[None]
    ) -> None:
        try:
            await self._listener(data, version)
        except Refused as e:
            if not first.done():
                first.set_exception(e)
                return
            logger.error(
                "settings.refused",
                object=self.origin,
                resource_version=version,
                reason=str(e),
                kept=self.version or "none",
            )
            return
        self.data, self.version, self.exists, self.ready = data, version, exists, True
        if not first.done():
            first.set_result(None)

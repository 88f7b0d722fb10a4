"""`argocd-notifications-cm` and `argocd-notifications-secret`, followed while running.

One LIST+WATCH of each object (by name, in the control-plane namespace). Each new version
of either is parsed with the other (`app.engine.notifications.config`) and put in force at
once; the keys it refuses are logged one by one (`notifications.config_refused`), and the
rest are used. Neither object present means the shipped catalog and no service: nothing
is sent. Until both first lists are in, `not_ready` says why and events wait.
"""

import asyncio
import base64
import binascii
import contextlib
from collections.abc import Mapping
from typing import Any

from app import log
from app.cluster import Cluster, ClusterError, EventType, Synced
from app.engine.notifications.config import NotificationsConfig, parse_notifications

logger = log.get("notifications")

START_WAIT = 3.0
"""Seconds `start` waits for both first lists before the worker goes on without them."""
RETRY_DELAY = 1.0
MAX_RETRY_DELAY = 60.0


def decode_secret(data: Mapping[str, Any]) -> dict[str, str]:
    """A Secret's `data` as text (a value that is not base64 is left out)."""
    out: dict[str, str] = {}
    for key, value in data.items():
        with contextlib.suppress(binascii.Error, ValueError, TypeError):
            out[str(key)] = base64.b64decode(str(value), validate=True).decode("utf-8", "replace")
    return out


class ConfigSource:
    """The notifications configuration in force (`current`), kept current."""

    def __init__(self, cluster: Cluster, namespace: str, configmap: str, secret: str) -> None:
        self._cluster = cluster
        self._namespace = namespace
        self._names = {"ConfigMap": configmap, "Secret": secret}
        self._data: dict[str, Mapping[str, Any]] = {}
        self._listed: set[str] = set()
        self._both_listed = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.current: NotificationsConfig | None = None

    @property
    def not_ready(self) -> str:
        if self.current is not None:
            return ""
        waiting = " and ".join(
            f"{kind} {self._namespace}/{name}"
            for kind, name in self._names.items()
            if kind not in self._listed
        )
        return f"the notifications configuration is not read yet ({waiting})"

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._follow(kind), name=f"notifications {kind}")
            for kind in self._names
        ]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._both_listed.wait(), START_WAIT)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []

    async def _follow(self, kind: str) -> None:
        delay = RETRY_DELAY
        while True:
            try:
                await self._watch(kind)
            except ClusterError as e:
                hint = (
                    ""
                    if e.retriable
                    else f"; Sluice needs get, list and watch on {kind.lower()}s in namespace "
                    f"{self._namespace}"
                )
                logger.error(
                    "notifications.config_unreadable",
                    kind=kind,
                    name=self._names[kind],
                    error=f"{e}{hint}",
                    retry_in_s=delay,
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, MAX_RETRY_DELAY)

    async def _watch(self, kind: str) -> None:
        watch = self._cluster.watch(
            "v1",
            kind,
            namespace=self._namespace,
            field_selector=f"metadata.name={self._names[kind]}",
        )
        async with watch as events:
            async for event in events:
                if isinstance(event, Synced):
                    self._listed.add(kind)
                elif event.type is EventType.DELETED:
                    self._data.pop(kind, None)
                else:
                    self._data[kind] = event.object.get("data") or {}
                if len(self._listed) == len(self._names):
                    self._take()
                    self._both_listed.set()

    def _take(self) -> None:
        data = self._data.get("ConfigMap", {})
        secret = decode_secret(self._data.get("Secret", {}))
        config = parse_notifications(data, secret)
        if self.current is not None and config == self.current:
            return
        self.current = config
        for problem in config.problems:
            logger.warning(
                "notifications.config_refused",
                configmap=self._names["ConfigMap"],
                problem=problem,
                consequence="this key is not used; the others are",
            )
        logger.info(
            "notifications.config_loaded",
            configmap=self._names["ConfigMap"],
            services={name: s.type for name, s in sorted(config.services.items())},
            triggers=sorted(config.triggers),
            subscriptions=len(config.subscriptions),
            refused=sorted(config.refused),
            notices=list(config.notices),
        )

"""Argo CD cluster Secrets, followed: the destination clusters of one process, kept current.

Every Sluice process that resolves destinations (all of them: `Runtime.open` starts this)
follows the Secrets labelled `argocd.argoproj.io/secret-type: cluster` in the
control-plane namespace with one LIST+WATCH, as every Argo CD component keeps its own
cluster informer:

- A Secret that parses (`app.model.cluster_secret`) and loads (`app.cluster.secret_config`)
  is opened as a `Cluster` and registered (`app.runtime.clusters.ClusterRegistry`). An edit
  that changes what it says (credential rotation) opens a new `Cluster` and registers it
  in place of the old one, which is closed `RETIRE_AFTER` seconds later so calls already
  under way finish on it. An edit that changes nothing is ignored.
- A Secret that cannot be used (bad JSON, no server, exec not allowed, a name or server
  another Secret holds) registers nothing: it is logged with the field to fix, what it
  registered before is unregistered, and a destination naming it reports why.
- A deleted Secret unregisters its cluster. After every first list (at start, and when the
  watch is opened again after a failure) Secrets no longer listed are unregistered too.
- Every change is announced to the registry's listeners after the registry holds it.

Start waits up to `START_WAIT` for the first list; a control plane that does not answer,
or refuses the list, does not stop the process: it is logged, and the watch is opened
again after a growing pause. No credential is ever logged.
"""

import asyncio
import contextlib

from app import log
from app.cluster import Cluster, ClusterError, ClusterSettings, ConfigError, EventType, Synced
from app.cluster.secret_config import load_cluster_secret
from app.model.cluster_secret import (
    LABEL_SELECTOR,
    ClusterCredentials,
    ClusterSecretError,
    claimed_address,
    parse_cluster_secret,
    secret_ref,
)
from app.model.resource import KubeObject
from app.runtime.clusters import ClusterChange, ClusterConflict, ClusterRegistry, Refused

logger = log.get("clusters")

START_WAIT = 3.0
"""Seconds start waits for the first list of cluster Secrets before going on without it."""
RETIRE_AFTER = 30.0
"""Seconds a replaced or unregistered cluster's connections stay open for calls under way."""
RETRY_DELAY = 1.0
"""First pause before a failed watch of the Secrets is opened again (doubles, up to 60 s)."""
MAX_RETRY_DELAY = 60.0


def credential_kind(credentials: ClusterCredentials) -> str:
    """Which kind of credentials a cluster uses, for logs (never the credentials)."""
    if credentials.exec_provider is not None:
        return "exec"
    if credentials.aws_auth is not None:
        return "aws"
    if credentials.bearer_token:
        return "bearer token"
    if credentials.tls.cert_data:
        return "client certificate"
    if credentials.username:
        return "basic"
    return "none"


class ClusterSecretsSource:
    """The registry's clusters from the cluster Secrets, and the watch that keeps them."""

    def __init__(
        self,
        registry: ClusterRegistry,
        control_plane: Cluster,
        namespace: str,
        *,
        allow_exec: bool,
        cluster_settings: ClusterSettings | None = None,
    ) -> None:
        self._registry = registry
        self._control_plane = control_plane
        self._namespace = namespace
        self._allow_exec = allow_exec
        self._cluster_settings = cluster_settings
        self._task: asyncio.Task[None] | None = None
        self._retiring: dict[Cluster, asyncio.Task[None]] = {}
        self._known: set[str] = set()
        """Secrets seen since the last first list (registered or refused)."""

    async def start(self) -> None:
        """Read the cluster Secrets (up to START_WAIT) and follow them."""
        first: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._follow(first), name="cluster secrets")
        try:
            async with asyncio.timeout(START_WAIT):
                await asyncio.shield(first)
        except TimeoutError:
            logger.warning(
                "clusters.waiting",
                namespace=self._namespace,
                waited_s=START_WAIT,
                reason="the cluster Secrets are not listed yet; their destinations resolve "
                "once they are",
            )

    async def stop(self) -> None:
        """Stop following and close every registered and retiring cluster."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        retiring, self._retiring = self._retiring, {}
        for closing in retiring.values():
            closing.cancel()
        await asyncio.gather(*retiring.values(), return_exceptions=True)
        for cluster in retiring:
            await cluster.close()
        for entry in self._registry.registered():
            self._registry.unregister(entry.record.secret)
            await entry.cluster.close()

    async def _follow(self, first: asyncio.Future[None]) -> None:
        delay = RETRY_DELAY
        while True:
            try:
                await self._watch(first)
            except ClusterError as e:
                hint = (
                    ""
                    if e.retriable
                    else f"; Sluice needs list and watch on secrets in namespace {self._namespace}"
                )
                logger.error(
                    "clusters.watch_failed",
                    namespace=self._namespace,
                    error=f"{e}{hint}",
                    retry_in_s=delay,
                )
                if not first.done():
                    first.set_result(None)
                await asyncio.sleep(delay)
                delay = min(delay * 2, MAX_RETRY_DELAY)

    async def _watch(self, first: asyncio.Future[None]) -> None:
        watch = self._control_plane.watch(
            "v1", "Secret", namespace=self._namespace, label_selector=LABEL_SELECTOR
        )
        listed: set[str] | None = set()
        async with watch as events:
            async for event in events:
                if isinstance(event, Synced):
                    if listed is not None:
                        await self._forget_unlisted(listed)
                        listed = None
                    if not first.done():
                        first.set_result(None)
                    continue
                ref = secret_ref(event.object)
                if event.type is EventType.DELETED:
                    await self._gone(ref, "the Secret was deleted")
                    continue
                if listed is not None:
                    listed.add(ref)
                await self._upsert(ref, event.object)

    async def _forget_unlisted(self, listed: set[str]) -> None:
        for ref in sorted(self._known - listed):
            await self._gone(ref, "the Secret is no longer listed")

    async def _upsert(self, ref: str, obj: KubeObject) -> None:
        self._known.add(ref)
        try:
            record = parse_cluster_secret(obj, allow_exec=self._allow_exec)
        except ClusterSecretError as e:
            await self._refuse(ref, obj, str(e))
            return
        current = self._registry.get(ref)
        if current is not None and current.record == record:
            return
        try:
            config = await load_cluster_secret(record, allow_exec=self._allow_exec)
        except ConfigError as e:
            await self._refuse(ref, obj, str(e))
            return
        cluster = await Cluster(config, self._cluster_settings).__aenter__()
        try:
            change = self._registry.register(record, cluster)
        except ClusterConflict as e:
            await cluster.close()
            await self._refuse(ref, obj, f"{record.source}: {e}")
            return
        logger.info(
            "cluster.registered" if change.before is None else "cluster.updated",
            secret=ref,
            cluster=record.display_name,
            server=record.server,
            auth=credential_kind(record.credentials),
            namespaces=list(record.namespaces),
        )
        await self._changed(change)

    async def _refuse(self, ref: str, obj: KubeObject, problem: str) -> None:
        name, server = claimed_address(obj)
        change = self._registry.refuse(ref, Refused(name, server, problem))
        logger.error(
            "cluster.refused",
            secret=ref,
            error=problem,
            unregistered=change is not None,
            reason="a cluster Secret that cannot be used registers nothing; fix it and it is "
            "read again",
        )
        if change is not None:
            await self._changed(change)

    async def _gone(self, ref: str, reason: str) -> None:
        self._known.discard(ref)
        change = self._registry.unregister(ref)
        if change is None:
            return
        logger.info("cluster.unregistered", secret=ref, reason=reason)
        await self._changed(change)

    async def _changed(self, change: ClusterChange) -> None:
        if change.before is not None:
            self._retire(change.before.cluster)
        await self._registry.announce(change)

    def _retire(self, cluster: Cluster) -> None:
        """Close a cluster no longer registered once the calls under way on it are done."""

        async def close_later() -> None:
            try:
                await asyncio.sleep(RETIRE_AFTER)
                await cluster.close()
            finally:
                if self._retiring.get(cluster) is asyncio.current_task():
                    del self._retiring[cluster]

        self._retiring[cluster] = asyncio.create_task(close_later(), name="retire cluster")

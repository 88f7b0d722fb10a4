"""The connections and stores one Sluice process shares between its workers.

`Runtime.open(settings)` connects to NATS (creating streams and consumers), Redis and
the control-plane cluster, reads the system-wide settings (`system`: argocd-cm, followed
while the Runtime is open; its tracking method is put in `settings`) and the destination
clusters registered by Argo CD cluster Secrets (`clusters`, followed likewise by
`app.runtime.cluster_secrets`), puts the repository Secrets, templates and trust ConfigMaps
in force on `repos` (followed by `app.runtime.repo_secrets`), and builds the stores on top;
closing it closes them in reverse order. `sluice up` opens one Runtime for every
worker; `sluice worker <name>` opens one for a single worker. Workers receive the
Runtime and never connect themselves.
"""

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace

from app import log
from app.bus import connection as bus_connection
from app.bus import topology
from app.bus.connection import Bus
from app.cluster import Cluster, ClusterSettings, load_in_cluster, load_kubeconfig
from app.engine.instance_names import instance_name
from app.model.application import Application
from app.repo.helm_settings import HelmSettings
from app.repo.service import Repositories
from app.repo.settings import RepoSettings
from app.runtime.cluster_secrets import ClusterSecretsSource
from app.runtime.clusters import ClusterRegistry
from app.runtime.credential_changes import CredentialRefresher
from app.runtime.repo_secrets import RepositorySecretsSource
from app.runtime.settings import Settings
from app.runtime.system_settings import SystemSettingsSource, load_library
from app.store import connection as store_connection
from app.store.apps import AppRegistry
from app.store.connection import Redis
from app.store.history import HistoryStore
from app.store.livecache import LiveCache
from app.store.manifests import ManifestCache, ManifestCacheSettings
from app.store.operations import OperationStore
from app.store.status import StatusStore
from app.store.tree import TreeStore

logger = log.get("runtime")


def _pool_for(settings: Settings) -> store_connection.RedisSettings:
    """The Redis settings with a pool sized to the process's concurrency (every worker's
    handlers, and the API's webhooks and streams, share it)."""
    wanted = store_connection.CONNECTIONS_PER_HANDLER * settings.concurrency
    redis = settings.redis
    return replace(redis, max_connections=max(redis.max_connections, wanted))


@dataclass
class Runtime:
    """What workers share: connections, stores, repositories and destination clusters."""

    settings: Settings
    bus: Bus
    redis: Redis
    clusters: ClusterRegistry
    repos: Repositories
    apps: AppRegistry
    status: StatusStore
    operations: OperationStore
    history: HistoryStore
    tree: TreeStore
    live: LiveCache
    manifests: ManifestCache
    system: SystemSettingsSource
    """The system-wide settings in force (argocd-cm), kept current."""

    @property
    def control_plane(self) -> Cluster:
        return self.clusters.control_plane

    def instance_name(self, app: Application) -> str:
        """The name `app` goes by on the objects it tracks (plain in the control namespace)."""
        return instance_name(
            app.namespace, app.name, control_namespace=self.settings.control_plane.namespace
        )

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls, settings: Settings, *, cluster_settings: ClusterSettings | None = None
    ) -> AsyncIterator["Runtime"]:
        """Connect everything (failing fast with what to fix) and close it all on exit."""
        async with contextlib.AsyncExitStack() as stack:
            bus = await bus_connection.connect(settings.nats)
            stack.push_async_callback(bus.close)
            await topology.ensure(bus, settings.topology)
            redis = await store_connection.connect(_pool_for(settings))
            stack.push_async_callback(redis.aclose)
            control = settings.control_plane
            if control.kubeconfig:
                config = await load_kubeconfig(
                    control.kubeconfig,
                    control.context or None,
                    allow_exec=control.allow_kubeconfig_exec,
                )
            else:
                config = load_in_cluster()
            cluster = await stack.enter_async_context(Cluster(config, cluster_settings))
            system = SystemSettingsSource(
                cluster,
                control.namespace,
                control.settings_configmap,
                tracking=settings.tracking_method,
                library=load_library(settings.resource_customizations_dir),
            )
            await system.start()
            stack.push_async_callback(system.stop)
            settings = replace(settings, tracking_method=system.tracking)
            clusters = ClusterRegistry(control_plane=cluster)
            secrets = ClusterSecretsSource(
                clusters,
                cluster,
                control.namespace,
                allow_exec=control.allow_kubeconfig_exec,
                cluster_settings=cluster_settings,
            )
            await secrets.start()
            stack.push_async_callback(secrets.stop)
            repos = Repositories(
                RepoSettings(
                    cache_dir=settings.state_dir / "repos",
                    allow_local=settings.allow_local_repos,
                    plugins_dir=settings.plugins_dir,
                    tool_timeout=settings.exec_timeout,
                    helm=HelmSettings(allow_remote_value_files=settings.helm_remote_value_files),
                )
            )
            repo_secrets = RepositorySecretsSource(repos, cluster, control.namespace)
            apps, status = AppRegistry(redis), StatusStore(redis)
            repo_secrets.on_change = CredentialRefresher(redis, bus, apps, status)
            await repo_secrets.start()
            stack.push_async_callback(repo_secrets.stop)
            runtime = cls(
                settings=settings,
                bus=bus,
                redis=redis,
                clusters=clusters,
                repos=repos,
                apps=apps,
                status=status,
                operations=OperationStore(redis),
                history=HistoryStore(redis),
                tree=TreeStore(redis),
                live=LiveCache(redis),
                manifests=ManifestCache(redis, ManifestCacheSettings(secret=settings.cache_secret)),
                system=system,
            )
            logger.info(
                "runtime.opened",
                nats=bus.server_version,
                cluster=cluster.name,
                namespace=control.namespace,
                tracking=settings.tracking_method.value,
            )
            yield runtime

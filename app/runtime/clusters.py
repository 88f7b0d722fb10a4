"""Destination clusters: which `Cluster` an Application's `spec.destination` names.

Argo CD's in-cluster destination (`https://kubernetes.default.svc`, or the name
`in-cluster`) is the control-plane cluster Sluice itself runs against: in `sluice up`
that is the local cluster. Further clusters are registered by Argo CD cluster Secrets
(`app.runtime.cluster_secrets` follows them and keeps this registry current), each under its
server URL and, if it has one, its name. A name or server already registered by another
Secret is a conflict: the later Secret is refused. An unknown destination is an error
that names it, says how to register it, and names a refused Secret that claims it.

`server_of` tells the server URL a destination resolves to, which is what the cluster
globs of `resource.exclusions`/`inclusions` match (also for an app addressed by name).

A Secret's `namespaces` limit what Sluice manages in its cluster (`scope_of`): the
watcher lists and watches only those namespaces (and cluster-scoped kinds only with
`clusterResources`), and a destination namespace outside them does not resolve: the app
reports which namespaces the Secret allows instead of syncing what no watch would see.

Listeners hear of every change once the registry holds it (`ClusterChange`), so the
watcher can start or stop watching a cluster and the compare stage can re-compare the
apps deploying there.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from app import log
from app.cluster import Cluster
from app.engine.project import DestinationCluster
from app.model.app_spec import ApplicationDestination
from app.model.cluster_secret import IN_CLUSTER_NAME, IN_CLUSTER_SERVER, ClusterSecret

logger = log.get("clusters")


class UnknownDestination(LookupError):
    """The destination names no registered cluster."""


class ClusterConflict(ValueError):
    """A Secret claims a name or server another Secret registered first."""


@dataclass(frozen=True, slots=True)
class Registered:
    record: ClusterSecret
    cluster: Cluster


@dataclass(frozen=True, slots=True)
class Refused:
    """A cluster Secret that registers nothing, and why."""

    name: str
    server: str
    problem: str


@dataclass(frozen=True, slots=True)
class ClusterChange:
    """A registered cluster appeared (`before` None), changed, or went (`after` None)."""

    secret: str
    before: Registered | None
    after: Registered | None

    def concerns(self, destination: ApplicationDestination) -> bool:
        """Whether `destination` named the cluster before or names it after the change."""
        return any(
            _addresses(destination, entry.record)
            for entry in (self.before, self.after)
            if entry is not None
        )

    @property
    def what(self) -> str:
        """How logs and refresh reasons tell the change."""
        if self.after is None:
            return f"cluster {self._name} unregistered ({self.secret} is gone or refused)"
        if self.before is None:
            return f"cluster {self._name} registered by {self.secret}"
        return f"cluster {self._name} changed ({self.secret})"

    @property
    def _name(self) -> str:
        entry = self.after or self.before
        return entry.record.display_name if entry is not None else "?"


Listener = Callable[[ClusterChange], Awaitable[None]]


def _addresses(destination: ApplicationDestination, record: ClusterSecret) -> bool:
    if destination.name:
        return bool(record.name) and destination.name == record.name
    return destination.server.rstrip("/") == record.server


@dataclass(frozen=True, slots=True)
class Scope:
    """What Sluice manages in one cluster."""

    namespaces: tuple[str, ...] = ()
    """The namespaces watched and deployed to (empty: every namespace)."""
    cluster_resources: bool = True
    """Whether cluster-scoped kinds are watched."""


EVERYTHING = Scope()


class ClusterRegistry:
    """Clusters by server URL and by name; the control plane answers for in-cluster."""

    def __init__(self, control_plane: Cluster) -> None:
        self.control_plane = control_plane
        self._registered: dict[str, Registered] = {}
        self._refused: dict[str, Refused] = {}
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` after each change; returns the function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    async def announce(self, change: ClusterChange) -> None:
        """Tell every listener; one failing does not keep the others from hearing."""
        for listener in list(self._listeners):
            try:
                await listener(change)
            except Exception as e:  # noqa: BLE001 - a listener's failure must not stop the registry being followed
                logger.error("clusters.listener_failed", secret=change.secret, error=repr(e))

    def get(self, secret: str) -> Registered | None:
        return self._registered.get(secret)

    def register(self, record: ClusterSecret, cluster: Cluster) -> ClusterChange:
        """Register (or replace) the cluster of `record.secret`; ClusterConflict if another
        Secret holds its name or server."""
        for secret, entry in self._registered.items():
            if secret == record.secret:
                continue
            if record.name and entry.record.name == record.name:
                raise ClusterConflict(
                    f"the name {record.name!r} is registered by cluster Secret {secret}"
                )
            if entry.record.server == record.server:
                raise ClusterConflict(
                    f"the server {record.server} is registered by cluster Secret {secret}"
                )
        self._refused.pop(record.secret, None)
        before = self._registered.get(record.secret)
        after = Registered(record, cluster)
        self._registered[record.secret] = after
        return ClusterChange(record.secret, before, after)

    def unregister(self, secret: str) -> ClusterChange | None:
        """Forget the cluster of `secret` (None if it registered none)."""
        self._refused.pop(secret, None)
        before = self._registered.pop(secret, None)
        return ClusterChange(secret, before, None) if before is not None else None

    def refuse(self, secret: str, refused: Refused) -> ClusterChange | None:
        """Record why `secret` registers nothing; unregisters what it registered before."""
        change = self.unregister(secret)
        self._refused[secret] = refused
        return change

    def scope_of(self, cluster: Cluster) -> Scope:
        """What Sluice manages in `cluster` (everything, unless its Secret says otherwise)."""
        for entry in self._registered.values():
            if entry.cluster is cluster and entry.record.namespaces:
                return Scope(entry.record.namespaces, entry.record.cluster_resources)
        return EVERYTHING

    def resolve(self, destination: ApplicationDestination) -> Cluster:
        """The cluster of a destination; UnknownDestination with what to do otherwise."""
        entry = self._find(destination)
        if entry is None:
            return self.control_plane
        allowed = entry.record.namespaces
        if destination.namespace and allowed and destination.namespace not in allowed:
            raise UnknownDestination(
                f"spec.destination.namespace: cluster {entry.record.display_name!r} is "
                f"limited to namespaces {', '.join(allowed)} by cluster Secret "
                f"{entry.record.secret}; deploy to one of them or add "
                f"{destination.namespace!r} to the Secret's namespaces"
            )
        return entry.cluster

    def server_of(self, destination: ApplicationDestination) -> str:
        """The server URL of the cluster a destination names (a name resolved through its
        Secret; the in-cluster server for the control plane), which the cluster globs of
        `resource.exclusions`/`inclusions` match, as Argo CD matches the cluster's server.
        A destination naming no registered cluster keeps its own `server` (empty for a
        name, which only `*` matches); such an app has nothing to compare or sync anyway."""
        try:
            entry = self._find(destination)
        except UnknownDestination:
            return destination.server
        return IN_CLUSTER_SERVER if entry is None else entry.record.server

    def destination_cluster(self, destination: ApplicationDestination) -> DestinationCluster | None:
        """The cluster a destination names, with the project its Secret scopes it to;
        None when it names no registered cluster."""
        try:
            entry = self._find(destination)
        except UnknownDestination:
            return None
        if entry is None:
            return DestinationCluster(IN_CLUSTER_NAME, IN_CLUSTER_SERVER)
        record = entry.record
        return DestinationCluster(record.name, record.server, record.project, record.secret)

    def _find(self, destination: ApplicationDestination) -> Registered | None:
        """The registered cluster a destination names; None for the control plane."""
        server = destination.server.rstrip("/")
        if destination.name:
            if destination.name == IN_CLUSTER_NAME:
                return None
            for entry in self._registered.values():
                if entry.record.name == destination.name:
                    return entry
            raise UnknownDestination(
                f"spec.destination.name: no cluster named {destination.name!r} is "
                f"registered; use {IN_CLUSTER_NAME!r} or register the cluster with an Argo "
                f"CD cluster Secret{self._refusal(name=destination.name)}"
            )
        if server == IN_CLUSTER_SERVER:
            return None
        for entry in self._registered.values():
            if entry.record.server == server:
                return entry
        raise UnknownDestination(
            f"spec.destination.server: no cluster with server {destination.server!r} is "
            f"registered; use {IN_CLUSTER_SERVER} or register the cluster with an Argo CD "
            f"cluster Secret{self._refusal(server=server)}"
        )

    def _refusal(self, *, name: str = "", server: str = "") -> str:
        for secret, refused in sorted(self._refused.items()):
            if (name and refused.name == name) or (server and refused.server == server):
                return f" (cluster Secret {secret} claims it but is refused: {refused.problem})"
        return ""

    def all(self) -> list[Cluster]:
        """Every cluster, the control plane first."""
        return [self.control_plane, *(entry.cluster for entry in self._registered.values())]

    def registered(self) -> list[Registered]:
        """The clusters registered by Secrets."""
        return list(self._registered.values())

"""Destination clusters: which `Cluster` an Application's `spec.destination` names.

Argo CD's in-cluster destination (`https://kubernetes.default.svc`, or the name
`in-cluster`) is the control-plane cluster Sluice itself runs against: in `sluice up`
that is the local cluster. Further clusters are registered by name and server URL.
An unknown destination is an error that names it and says how to register it.
"""

from dataclasses import dataclass, field

from app.cluster import Cluster
from app.model.application import ApplicationDestination

IN_CLUSTER_SERVER = "https://kubernetes.default.svc"
IN_CLUSTER_NAME = "in-cluster"


class UnknownDestination(LookupError):
    """The destination names no registered cluster."""


@dataclass
class ClusterRegistry:
    """Clusters by server URL and by name; the control plane answers for in-cluster."""

    control_plane: Cluster
    by_server: dict[str, Cluster] = field(default_factory=dict)
    by_name: dict[str, Cluster] = field(default_factory=dict)

    def register(self, name: str, server: str, cluster: Cluster) -> None:
        self.by_name[name] = cluster
        self.by_server[server.rstrip("/")] = cluster

    def resolve(self, destination: ApplicationDestination) -> Cluster:
        """The cluster of a destination; UnknownDestination with what to do otherwise."""
        server = destination.server.rstrip("/")
        if destination.name:
            if destination.name == IN_CLUSTER_NAME:
                return self.control_plane
            found = self.by_name.get(destination.name)
            if found is None:
                raise UnknownDestination(
                    f"spec.destination.name: no cluster named {destination.name!r} is "
                    f"registered; use {IN_CLUSTER_NAME!r} or register the cluster"
                )
            return found
        if server == IN_CLUSTER_SERVER:
            return self.control_plane
        found = self.by_server.get(server)
        if found is None:
            raise UnknownDestination(
                f"spec.destination.server: no cluster with server {destination.server!r} is "
                f"registered; use {IN_CLUSTER_SERVER} or register the cluster"
            )
        return found

    def all(self) -> list[Cluster]:
        """Every distinct cluster, the control plane first."""
        seen: list[Cluster] = [self.control_plane]
        for cluster in self.by_name.values():
            if all(cluster is not c for c in seen):
                seen.append(cluster)
        return seen

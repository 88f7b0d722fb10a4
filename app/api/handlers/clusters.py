"""`/api/v1/clusters`: the destination clusters Sluice knows (`sluice cluster list|get`).

The control plane (`in-cluster`, `https://kubernetes.default.svc`) and every cluster a
Secret registers, with what the Secret says about it (name, namespaces,
clusterResources, project) and the kind of its credentials, never their values. RBAC:
`clusters, get, <server>` (`<project>/<server>` for a cluster that belongs to a project);
a cluster the caller may not get is 404 like an unknown one, and lists leave it out.
"""

from app.api import authz
from app.api.auth_shapes import ClusterInfo, ClusterList, ClusterQuery
from app.api.errors import NotFound
from app.api.routes import Call, Route
from app.engine.rbac import names as n
from app.model.cluster_secret import IN_CLUSTER_NAME, IN_CLUSTER_SERVER
from app.runtime.cluster_secrets import credential_kind

IN_CLUSTER = ClusterInfo(
    server=IN_CLUSTER_SERVER,
    name=IN_CLUSTER_NAME,
    namespaces=[],
    cluster_resources=True,
    project="",
    secret="",
    credentials="Sluice's own (the control plane)",
)


def _known(call: Call[ClusterQuery, None] | Call[None, None]) -> list[ClusterInfo]:
    found = [IN_CLUSTER]
    for entry in call.rt.clusters.registered():
        record = entry.record
        found.append(
            ClusterInfo(
                server=record.server,
                name=record.name,
                namespaces=list(record.namespaces),
                cluster_resources=record.cluster_resources,
                project=record.project,
                secret=record.secret,
                credentials=credential_kind(record.credentials),
            )
        )
    return sorted(found, key=lambda c: (c.server != IN_CLUSTER_SERVER, c.server))


async def _may_get(call: Call[ClusterQuery, None] | Call[None, None], cluster: ClusterInfo) -> bool:
    obj = n.scoped_object(cluster.project, cluster.server)
    return await authz.allowed(call, n.CLUSTERS, n.GET, obj)


async def list_clusters(call: Call[None, None]) -> ClusterList:
    return ClusterList([c for c in _known(call) if await _may_get(call, c)])


async def get_cluster(call: Call[ClusterQuery, None]) -> ClusterInfo:
    wanted = call.path("server")
    by_name = call.query.type == "name"
    for cluster in _known(call):
        if (cluster.name if by_name else cluster.server) == wanted.rstrip("/"):
            if await _may_get(call, cluster):
                return cluster
            break
    raise NotFound(f"cluster {wanted[:300]} not found")


TAG = "clusters"
ROUTES = (
    Route(
        method="GET",
        path="/api/v1/clusters",
        handler=list_clusters,
        operation_id="listClusters",
        summary="Destination clusters the caller may get",
        tag=TAG,
        response=ClusterList,
    ),
    Route(
        method="GET",
        path="/api/v1/clusters/{server}",
        handler=get_cluster,
        operation_id="getCluster",
        summary="One destination cluster, by server URL (sent as %2F-encoded) or name",
        tag=TAG,
        query=ClusterQuery,
        response=ClusterInfo,
        errors=(400, 404),
    ),
)

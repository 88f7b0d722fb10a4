"""What a destination cluster tells Helm through `.Capabilities`, as Argo CD fills it.

Argo CD renders a Helm chart with `--kube-version` set to the destination cluster's server
version and `--api-versions` to every group/version it serves plus every
group/version/Kind, so `.Capabilities.KubeVersion` and `.Capabilities.APIVersions.Has`
answer for the cluster the app deploys to, not for the render host. Sluice reads both
from the cluster's discovery (kept by the Cluster client) and `/version`.

A destination that cannot be reached leaves both empty (Helm's defaults apply) and says so
in the log: a chart that does not ask renders the same, one that asks may differ until the
cluster answers.
"""

from dataclasses import dataclass

from app import log
from app.cluster.errors import ClusterError, Target
from app.model.application import Application
from app.runtime.clusters import UnknownDestination
from app.runtime.runtime import Runtime

logger = log.get("capabilities")


@dataclass(frozen=True, slots=True)
class Capabilities:
    kube_version: str = ""
    """The server's gitVersion (`v1.32.0`), "" when unknown."""
    api_versions: tuple[str, ...] = ()
    """`apps/v1`, `apps/v1/Deployment`, ... sorted; () when unknown."""


async def capabilities_for(rt: Runtime, app: Application) -> Capabilities:
    """The destination cluster's version and API versions (empty when unreachable)."""
    try:
        cluster = rt.clusters.resolve(app.spec.destination)
        target = Target("discover", name="/version", cluster=cluster.name)
        version = await cluster.transport.call("GET", "/version", target)
        index = await cluster.discovery.index()
    except (UnknownDestination, ClusterError) as e:
        logger.warning(
            "capabilities.unknown",
            app=f"{app.namespace}/{app.name}",
            reason=f"{e}; Helm renders with its default Capabilities",
        )
        return Capabilities()
    names = {r.api_version for r in index.resources}
    names |= {f"{r.api_version}/{r.kind}" for r in index.resources}
    kube = version.get("gitVersion", "") if isinstance(version, dict) else ""
    return Capabilities(str(kube), tuple(sorted(names)))

"""What a destination cluster tells Helm through `.Capabilities`, as Argo CD fills it.

Argo CD renders a Helm chart with `--kube-version` set to the destination cluster's server
version and `--api-versions` to every group/version it serves plus every
group/version/Kind, so `.Capabilities.KubeVersion` and `.Capabilities.APIVersions.Has`
answer for the cluster the app deploys to, not for the render host. Sluice reads both
from the cluster's discovery (kept by the Cluster client) and `/version`.

What a cluster answered is kept for `CAPABILITIES_TTL` seconds per Cluster object (every
cache check of a Helm render asks), and dropped with the Cluster. A destination that
cannot be reached leaves both empty (Helm's defaults apply) and says so
in the log: a chart that does not ask renders the same, one that asks may differ until the
cluster answers.
"""

import time
import weakref
from dataclasses import dataclass

from app import log
from app.cluster import Cluster
from app.cluster.errors import ClusterError, Target
from app.model.application import Application
from app.runtime.clusters import UnknownDestination
from app.runtime.runtime import Runtime

logger = log.get("capabilities")

CAPABILITIES_TTL = 30.0
"""Seconds a cluster's answer is reused (a new version shows within this)."""


@dataclass(frozen=True, slots=True)
class Capabilities:
    kube_version: str = ""
    """The server's gitVersion (`v1.32.0`), "" when unknown."""
    api_versions: tuple[str, ...] = ()
    """`apps/v1`, `apps/v1/Deployment`, ... sorted; () when unknown."""


_KNOWN: "weakref.WeakKeyDictionary[Cluster, tuple[float, Capabilities]]" = (
    weakref.WeakKeyDictionary()
)


async def capabilities_for(rt: Runtime, app: Application) -> Capabilities:
    """The destination cluster's version and API versions (empty when unreachable)."""
    try:
        cluster = rt.clusters.resolve(app.spec.destination)
    except UnknownDestination as e:
        return _unknown(app, str(e))
    known = _KNOWN.get(cluster)
    if known is not None and time.monotonic() < known[0]:
        return known[1]
    try:
        target = Target("discover", name="/version", cluster=cluster.name)
        version = await cluster.transport.call("GET", "/version", target)
        index = await cluster.discovery.index()
    except ClusterError as e:
        return _unknown(app, str(e))
    names = {r.api_version for r in index.resources}
    names |= {f"{r.api_version}/{r.kind}" for r in index.resources}
    kube = version.get("gitVersion", "") if isinstance(version, dict) else ""
    found = Capabilities(str(kube), tuple(sorted(names)))
    _KNOWN[cluster] = (time.monotonic() + CAPABILITIES_TTL, found)
    return found


def _unknown(app: Application, reason: str) -> Capabilities:
    logger.warning(
        "capabilities.unknown",
        app=f"{app.namespace}/{app.name}",
        reason=f"{reason}; Helm renders with its default Capabilities",
    )
    return Capabilities()

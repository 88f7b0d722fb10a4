"""Before a step: read the objects it looks at from the API server, with their health.

Only the keys `app.engine.sync.reads.objects_to_read` names are read, each with one GET,
all at once under one deadline. The API server, not the live cache, is asked: a running
task's object must be as fresh as the step that judges it (the cache may lag behind a
watch event). Health is assessed with the custom Lua checks of the system settings in
force, as compare assesses it. A missing object is reported absent; any other failure
means the step cannot be judged now, and the caller retries the whole step later.
"""

import asyncio
from collections.abc import Sequence
from datetime import datetime

from app.cluster import Cluster, NotFound
from app.engine.health import HealthCustomizations, assess
from app.engine.sync import Observation, Observed
from app.model.resource import KubeObject, ResourceKey


async def _get(cluster: Cluster, key: ResourceKey, api_version: str) -> KubeObject | None:
    try:
        return await cluster.get(api_version, key.kind, key.name, key.namespace)
    except NotFound:
        return None


async def observe(
    cluster: Cluster,
    reads: Sequence[tuple[ResourceKey, str]],
    *,
    prune_approved_at: datetime | None = None,
    health: HealthCustomizations | None = None,
    time_limit: float,
) -> Observation:
    """The objects of `reads` as the cluster has them now (ClusterError or TimeoutError if
    they cannot all be read within `time_limit` seconds)."""
    async with asyncio.timeout(time_limit):
        found = await asyncio.gather(*(_get(cluster, key, version) for key, version in reads))
    objects = {
        key: Observed(live, assess(live, customizations=health)) if live is not None else Observed()
        for (key, _), live in zip(reads, found, strict=True)
    }
    return Observation(objects, prune_approved_at)

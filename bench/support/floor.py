"""The physical floor of deploying a fleet: the cluster client doing a sync's writes, no pipeline.

`apply_floor` sends, for every app, the requests Sluice's sync must send and nothing else:
the app's Namespace created, a server-side dry run of each of its objects, then a
server-side apply of each (the objects of one app at the same time, as a sync batch sends
them), `concurrency` apps at a time (the sync worker's handlers). No Git, no rendering,
no comparison, no status: what is left of a deployment once the pipeline is taken away.
Run on the same local cluster as the benchmark, in the same run, its wall time is the
baseline the deployment's wall time is divided by.
"""

import asyncio
import time
from collections.abc import Iterable
from pathlib import Path

from app.cluster import ApplyMode, Cluster, ClusterSettings, load_kubeconfig
from app.model.resource import KubeObject
from bench.support.workload import app_manifests


async def _deploy_one(cluster: Cluster, namespace: str, objects: list[KubeObject]) -> None:
    await cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    for dry_run in (True, False):
        await asyncio.gather(
            *(cluster.apply(o, mode=ApplyMode.SERVER_SIDE, dry_run=dry_run) for o in objects)
        )


async def apply_floor(
    kubeconfig: Path, namespaces: Iterable[str], resources: int, concurrency: int
) -> float:
    """Seconds to create each namespace and dry-run then apply its `resources` objects."""
    config = await load_kubeconfig(kubeconfig)
    async with Cluster(config, ClusterSettings()) as cluster:
        await cluster.resource_types()
        pending = iter(list(namespaces))

        async def worker() -> None:
            for namespace in pending:
                await _deploy_one(cluster, namespace, app_manifests(namespace, resources, 0))

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started

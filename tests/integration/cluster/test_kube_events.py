"""Aggregated Kubernetes Events written on a real API server: repeats bump one object, and
replicas bumping at once lose no count (each write is conditional on resourceVersion)."""

import asyncio

from app.cluster import Cluster
from app.engine.kube_events import EventSpec, Involved
from app.runtime.kube_events import record

SPEC = EventSpec("Normal", "ResourceUpdated", "Updated sync status: OutOfSync -> Synced")


async def test_concurrent_repeats_are_all_counted_on_one_event(
    cluster: Cluster, namespace: str
) -> None:
    app = Involved("web", namespace, "uid-web")
    first = await record(cluster, app, SPEC, component="sluice-compare")
    assert first["count"] == 1
    await asyncio.gather(*(record(cluster, app, SPEC, component="sluice-sync") for _ in range(2)))

    listed = (await cluster.list("v1", "Event", namespace=namespace)).items
    (event,) = listed
    assert event["metadata"]["name"] == first["metadata"]["name"]
    assert event["count"] == 3
    assert event["involvedObject"]["name"] == "web"


async def test_another_message_or_a_recreated_app_is_its_own_event(
    cluster: Cluster, namespace: str
) -> None:
    await record(cluster, Involved("web", namespace, "uid-1"), SPEC, component="c")
    await record(cluster, Involved("web", namespace, "uid-2"), SPEC, component="c")
    other = EventSpec("Normal", "ResourceUpdated", "Updated sync status: Synced -> OutOfSync")
    await record(cluster, Involved("web", namespace, "uid-2"), other, component="c")
    listed = (await cluster.list("v1", "Event", namespace=namespace)).items
    assert sorted(e["count"] for e in listed) == [1, 1, 1]

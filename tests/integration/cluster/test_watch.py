"""The watch helper against the local cluster: every change once, across drops and 410s."""

import asyncio
from typing import Any

from app.cluster import Cluster, ClusterSettings, EventType, Synced, WatchEvent
from app.localcluster.cluster import LocalCluster
from app.localcluster.settings import LocalClusterSettings, WatchSettings
from tests.integration.cluster.conftest import configmap, open_cluster
from tests.support.waiting import eventually

Seen = list[tuple[str, str, str]]


def describe(event: WatchEvent | Synced) -> tuple[str, str, str]:
    if isinstance(event, Synced):
        return ("SYNCED", "", "")
    data = event.object.get("data") or {}
    return (event.type.value, event.object["metadata"]["name"], data.get("n", ""))


async def collect(cluster: Cluster, namespace: str, seen: Seen, synced: asyncio.Event) -> None:
    async with cluster.watch("v1", "ConfigMap", namespace=namespace) as events:
        async for event in events:
            seen.append(describe(event))
            if isinstance(event, Synced):
                synced.set()


async def test_list_then_watch_delivers_each_change(cluster: Cluster, namespace: str) -> None:
    await cluster.create(configmap("before", namespace, {"n": "0"}))
    seen: Seen = []
    synced = asyncio.Event()
    task = asyncio.create_task(collect(cluster, namespace, seen, synced))
    try:
        await asyncio.wait_for(synced.wait(), 5)
        await cluster.create(configmap("after", namespace, {"n": "1"}))
        await cluster.replace(configmap("after", namespace, {"n": "2"}))
        await cluster.delete("v1", "ConfigMap", "before", namespace)

        async def all_seen() -> bool:
            return len(seen) == 5

        await eventually(all_seen, timeout=5, what="five watch events")
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert seen == [
        ("ADDED", "before", "0"),
        ("SYNCED", "", ""),
        ("ADDED", "after", "1"),
        ("MODIFIED", "after", "2"),
        ("DELETED", "before", "0"),
    ]


async def test_cancelling_the_consumer_closes_the_watch(cluster: Cluster, namespace: str) -> None:
    synced = asyncio.Event()
    task = asyncio.create_task(collect(cluster, namespace, [], synced))
    await asyncio.wait_for(synced.wait(), 5)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled()


async def test_breaking_out_of_the_loop_closes_the_watch(cluster: Cluster, namespace: str) -> None:
    await cluster.create(configmap("one", namespace))
    async with cluster.watch("v1", "ConfigMap", namespace=namespace) as events:
        async for event in events:
            assert isinstance(event, WatchEvent) and event.type is EventType.ADDED
            break


async def test_watching_many_types_at_once(cluster: Cluster, namespace: str) -> None:
    types = [rt for rt in await cluster.resource_types() if rt.can("watch") and rt.namespaced]
    assert len(types) >= 15
    synced: set[str] = set()

    async def follow(api_version: str, kind: str) -> None:
        async with cluster.watch(api_version, kind, namespace=namespace) as events:
            async for event in events:
                if isinstance(event, Synced):
                    synced.add(kind)

    tasks = [asyncio.create_task(follow(rt.api_version, rt.kind)) for rt in types]
    try:

        async def all_synced() -> bool:
            return len(synced) == len(types)

        await eventually(all_synced, timeout=10, what=f"{len(types)} watches to sync")
        changed: Seen = []
        changed_synced = asyncio.Event()
        collector = asyncio.create_task(collect(cluster, namespace, changed, changed_synced))
        await asyncio.wait_for(changed_synced.wait(), 5)
        await cluster.create(configmap("while-many", namespace, {"n": "1"}))

        async def arrived() -> bool:
            return ("ADDED", "while-many", "1") in changed

        await eventually(arrived, timeout=5, what="an event while many watches are open")
        tasks.append(collector)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_watch_resumes_without_gaps_or_duplicates_when_watches_drop(
    local_cluster: Any, cluster: Cluster, namespace: str
) -> None:
    seen: Seen = []
    synced = asyncio.Event()
    task = asyncio.create_task(collect(cluster, namespace, seen, synced))
    expected: Seen = [("SYNCED", "", "")]
    try:
        await asyncio.wait_for(synced.wait(), 5)
        for i in range(200):
            name = f"cm{i % 7}"
            if i < 7:
                await cluster.create(configmap(name, namespace, {"n": str(i)}))
                expected.append(("ADDED", name, str(i)))
            else:
                await cluster.replace(configmap(name, namespace, {"n": str(i)}))
                expected.append(("MODIFIED", name, str(i)))
            if i % 10 == 9:
                local_cluster.drop_watches()

        async def caught_up() -> bool:
            return len(seen) >= len(expected)

        await eventually(caught_up, timeout=10, what="every change after the drops")
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert seen == expected


async def test_watch_relists_after_410_and_delivers_only_differences() -> None:
    history = 5
    local_settings = LocalClusterSettings(watch=WatchSettings(history=history))
    async with (
        LocalCluster(local_settings) as local,
        await open_cluster(local, ClusterSettings(watch_backoff_initial=0.05)) as cluster,
    ):
        await cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "w"}})
        for name in ("change", "keep", "remove"):
            await cluster.create(configmap(name, "w", {"n": "0"}))
        async with cluster.watch("v1", "ConfigMap", namespace="w") as events:
            first = [describe(await anext(events)) for _ in range(4)]
            assert first[-1] == ("SYNCED", "", "")
            local.drop_watches()
            for i in range(1, history + 5):
                await cluster.replace(configmap("change", "w", {"n": str(i)}))
            await cluster.delete("v1", "ConfigMap", "remove", "w")
            await cluster.create(configmap("new", "w", {"n": "9"}))
            after = [describe(await anext(events)) for _ in range(4)]
    assert after == [
        ("DELETED", "remove", ""),
        ("MODIFIED", "change", str(history + 4)),
        ("ADDED", "new", "9"),
        ("SYNCED", "", ""),
    ]

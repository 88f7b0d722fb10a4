"""The watch helper against the local cluster: every change once, across drops and 410s."""

import asyncio
from typing import Any

from app.cluster import Cluster, ClusterSettings, EventType, Synced, Unavailable, WatchEvent
from app.localcluster.settings import WatchSettings
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


async def test_a_list_of_many_pages_is_delivered_whole_before_synced(
    local_cluster: Any, namespace: str
) -> None:
    settings = ClusterSettings(watch_list_page_size=2)
    async with await open_cluster(local_cluster, settings) as small:
        for i in range(5):
            await small.create(configmap(f"p{i}", namespace, {"n": str(i)}))
        async with small.watch("v1", "ConfigMap", namespace=namespace) as events:
            first = [describe(await anext(events)) for _ in range(6)]
    assert sorted(first[:5]) == [("ADDED", f"p{i}", str(i)) for i in range(5)]
    assert first[5] == ("SYNCED", "", "")


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


async def test_watch_relists_after_410_and_delivers_only_differences(
    local_cluster_factory: Any,
) -> None:
    history = 5
    async with (
        local_cluster_factory(watch=WatchSettings(history=history)) as local,
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
        ("MODIFIED", "change", str(history + 4)),
        ("ADDED", "new", "9"),
        ("DELETED", "remove", ""),
        ("SYNCED", "", ""),
    ]


async def test_bookmarks_keep_the_resume_point_fresh(local_cluster_factory: Any) -> None:
    """Writes elsewhere compact the history; bookmarks move the watch past them, so a
    dropped watch resumes instead of relisting."""
    history = 5
    watch_settings = WatchSettings(history=history, bookmark_interval=0.1)
    async with (
        local_cluster_factory(watch=watch_settings) as local,
        await open_cluster(local) as cluster,
    ):
        for name in ("quiet", "busy"):
            await cluster.create(
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
            )
        seen: Seen = []
        synced = asyncio.Event()
        watch = cluster.watch("v1", "ConfigMap", namespace="quiet")

        async def consume() -> None:
            async with watch as events:
                async for event in events:
                    seen.append(describe(event))
                    if isinstance(event, Synced):
                        synced.set()

        task = asyncio.create_task(consume())
        try:
            await asyncio.wait_for(synced.wait(), 5)
            for i in range(history + 5):
                await cluster.create(configmap(f"other{i}", "busy"))
            latest = int((await cluster.list("v1", "ConfigMap")).resource_version)

            async def bookmarked() -> bool:
                return int(watch.resource_version or 0) >= latest

            await eventually(bookmarked, timeout=5, what="a bookmark past the other writes")
            local.drop_watches()
            await cluster.create(configmap("after", "quiet", {"n": "1"}))

            async def arrived() -> bool:
                return ("ADDED", "after", "1") in seen

            await eventually(arrived, timeout=5, what="the write after the drop")
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    assert seen == [("SYNCED", "", ""), ("ADDED", "after", "1")]


async def test_watch_rides_out_injected_server_errors(local_cluster_factory: Any) -> None:
    async with (
        local_cluster_factory(fault_seed=7) as local,
        await open_cluster(local, ClusterSettings(watch_backoff_initial=0.02)) as cluster,
    ):
        await cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "f"}})
        seen: Seen = []
        synced = asyncio.Event()
        task = asyncio.create_task(collect(cluster, "f", seen, synced))
        expected: Seen = [("SYNCED", "", "")]
        try:
            await asyncio.wait_for(synced.wait(), 5)
            local.faults.configure(error_rate=0.3)
            for i in range(60):
                while True:
                    try:
                        await cluster.replace(configmap("cm", "f", {"n": str(i)}))
                        break
                    except Unavailable:
                        continue
                expected.append(("ADDED" if i == 0 else "MODIFIED", "cm", str(i)))
                if i % 10 == 9:
                    local.drop_watches()

            async def caught_up() -> bool:
                return len(seen) >= len(expected)

            await eventually(caught_up, timeout=10, what="every change despite the faults")
        finally:
            local.faults.clear()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    assert seen == expected

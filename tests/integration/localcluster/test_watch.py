"""Watches over HTTP: resumption without gaps or duplicates, 410, bookmarks, selectors."""

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import aiohttp

from app.localcluster import LocalCluster, WatchSettings
from tests.integration.localcluster.conftest import CONFIGMAPS, WIDGETS_CRD, Http, configmap

Factory = Callable[..., AbstractAsyncContextManager[LocalCluster]]
Event = dict[str, Any]


@asynccontextmanager
async def watching(session: aiohttp.ClientSession, url: str) -> AsyncIterator[AsyncIterator[Event]]:
    async with session.get(url) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"] == "application/json"

        async def events() -> AsyncIterator[Event]:
            async for line in resp.content:
                if line.strip():
                    yield json.loads(line)

        yield events()


async def take(events: AsyncIterator[Event], count: int, timeout: float = 5.0) -> list[Event]:
    async def gather() -> list[Event]:
        return [await anext(events) for _ in range(count)]

    return await asyncio.wait_for(gather(), timeout)


def summary(event: Event) -> tuple[str, str, str]:
    meta = event["object"]["metadata"]
    return event["type"], meta.get("name", ""), meta["resourceVersion"]


async def test_watch_resumes_without_gaps_or_duplicates_across_1000_writes(
    local_cluster: LocalCluster, http: Http
) -> None:
    writes = 1000
    names = [f"cm-{i % 50}" for i in range(writes)]
    written: list[str] = []

    async def writer() -> None:
        for i, name in enumerate(names):
            if i < 50:
                body = await http.ok("POST", CONFIGMAPS, configmap(name, {"n": str(i)}))
            else:
                body = await http.ok("PUT", f"{CONFIGMAPS}/{name}", configmap(name, {"n": str(i)}))
            written.append(body["metadata"]["resourceVersion"])

    seen: list[tuple[str, str, str]] = []
    start = (await http.ok("GET", CONFIGMAPS))["metadata"]["resourceVersion"]
    task = asyncio.create_task(writer())
    last = start
    drops = 0
    try:
        while len(seen) < writes:
            url = f"{local_cluster.url}{CONFIGMAPS}?watch=1&resourceVersion={last}"
            async with aiohttp.ClientSession() as session, watching(session, url) as events:
                async for event in events:
                    seen.append(summary(event))
                    last = event["object"]["metadata"]["resourceVersion"]
                    if len(seen) % 150 == 0:
                        drops += local_cluster.drop_watches()
                    if len(seen) == writes:
                        break
    finally:
        await task
    assert drops >= 5
    assert [rv for _, _, rv in seen] == written
    assert [t for t, _, _ in seen] == ["ADDED"] * 50 + ["MODIFIED"] * (writes - 50)
    assert [name for _, name, _ in seen] == names


async def test_a_compacted_resource_version_is_one_410_error_event(
    local_cluster_factory: Factory,
) -> None:
    async with (
        local_cluster_factory(watch=WatchSettings(history=5)) as cluster,
        aiohttp.ClientSession() as session,
    ):
        http = Http(session, cluster.url)
        first = await http.ok("POST", CONFIGMAPS, configmap("c", {"n": "0"}))
        for i in range(1, 10):
            await http.ok("PUT", f"{CONFIGMAPS}/c", configmap("c", {"n": str(i)}))
        rv = first["metadata"]["resourceVersion"]
        url = f"{cluster.url}{CONFIGMAPS}?watch=true&resourceVersion={rv}"
        async with watching(session, url) as events:
            received = [event async for event in events]
    assert len(received) == 1
    error = received[0]
    assert error["type"] == "ERROR"
    assert (error["object"]["code"], error["object"]["reason"]) == (410, "Expired")
    assert error["object"]["message"].startswith("too old resource version")


async def test_initial_events_end_with_an_annotated_bookmark(
    local_cluster: LocalCluster, http: Http
) -> None:
    await http.ok("POST", CONFIGMAPS, configmap("a"))
    await http.ok("POST", CONFIGMAPS, configmap("b"))
    url = (
        f"{local_cluster.url}{CONFIGMAPS}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true"
        "&resourceVersionMatch=NotOlderThan"
    )
    async with aiohttp.ClientSession() as session, watching(session, url) as events:
        first = await take(events, 3)
        await http.ok("POST", CONFIGMAPS, configmap("c"))
        later = await take(events, 1)
    assert [(e["type"], e["object"]["metadata"].get("name")) for e in first] == [
        ("ADDED", "a"),
        ("ADDED", "b"),
        ("BOOKMARK", None),
    ]
    assert first[2]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    assert first[2]["object"]["kind"] == "ConfigMap"
    assert summary(later[0])[:2] == ("ADDED", "c")


async def test_an_idle_watch_gets_bookmarks_when_it_asks(
    local_cluster: LocalCluster, http: Http
) -> None:
    created = await http.ok("POST", CONFIGMAPS, configmap("a"))
    rv = created["metadata"]["resourceVersion"]
    url = f"{local_cluster.url}{CONFIGMAPS}?watch=1&allowWatchBookmarks=true&resourceVersion={rv}"
    async with aiohttp.ClientSession() as session, watching(session, url) as events:
        (event,) = await take(events, 1, timeout=5)
    assert event["type"] == "BOOKMARK"
    assert int(event["object"]["metadata"]["resourceVersion"]) >= int(rv)


async def test_timeout_seconds_ends_the_stream(local_cluster: LocalCluster) -> None:
    url = f"{local_cluster.url}{CONFIGMAPS}?watch=1&timeoutSeconds=1"
    async with aiohttp.ClientSession() as session, watching(session, url) as events:
        received = await asyncio.wait_for(_drain(events), 5)
    assert received == []


async def _drain(events: AsyncIterator[Event]) -> list[Event]:
    return [event async for event in events]


async def test_selector_watches_see_objects_enter_and_leave(
    local_cluster: LocalCluster, http: Http
) -> None:
    url = f"{local_cluster.url}{CONFIGMAPS}?watch=1&labelSelector=team%3Da"
    async with aiohttp.ClientSession() as session, watching(session, url) as events:
        await http.ok("POST", CONFIGMAPS, configmap("x", labels={"team": "b"}))
        await http.ok("PUT", f"{CONFIGMAPS}/x", configmap("x", labels={"team": "a"}))
        await http.ok("PUT", f"{CONFIGMAPS}/x", configmap("x", {"k": "v"}, labels={"team": "a"}))
        await http.ok("PUT", f"{CONFIGMAPS}/x", configmap("x", {"k": "v"}, labels={"team": "b"}))
        got = await take(events, 3)
    assert [(e["type"], e["object"]["metadata"]["labels"]["team"]) for e in got] == [
        ("ADDED", "a"),
        ("MODIFIED", "a"),
        ("DELETED", "b"),
    ]


async def test_watching_one_object_by_name(local_cluster: LocalCluster, http: Http) -> None:
    url = f"{local_cluster.url}{CONFIGMAPS}?watch=1&fieldSelector=metadata.name%3Dmine"
    async with aiohttp.ClientSession() as session, watching(session, url) as events:
        await http.ok("POST", CONFIGMAPS, configmap("other"))
        await http.ok("POST", CONFIGMAPS, configmap("mine"))
        got = await take(events, 1)
    assert summary(got[0])[:2] == ("ADDED", "mine")


async def test_the_admin_endpoint_drops_open_watches(
    local_cluster: LocalCluster, http: Http
) -> None:
    url = f"{local_cluster.url}{CONFIGMAPS}?watch=1"
    async with aiohttp.ClientSession() as session, watching(session, url) as events:
        await http.ok("POST", CONFIGMAPS, configmap("a"))
        await take(events, 1)
        dropped = await http.ok("POST", "/localcluster/drop-watches")
        rest = await asyncio.wait_for(_drain(events), 5)
    assert dropped == {"dropped": 1}
    assert rest == []


async def test_deleting_a_crd_ends_watches_of_its_type(
    local_cluster: LocalCluster, http: Http
) -> None:
    await http.ok("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", WIDGETS_CRD)
    url = f"{local_cluster.url}/apis/example.com/v1/widgets?watch=1"
    async with aiohttp.ClientSession() as session, watching(session, url) as events:
        await http.ok(
            "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com"
        )
        rest = await asyncio.wait_for(_drain(events), 5)
    assert rest == []

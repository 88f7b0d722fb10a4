"""Read-only views: diff (Secrets masked), history, resource tree, recent events."""

from app.bus.events import emit
from app.bus.subjects import EventType
from app.engine.redact import MASK
from app.model.identity import AppRef
from app.model.operation import RevisionHistory
from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import (
    COMMIT,
    REF,
    Client,
    application,
    auth,
    seed_app,
    seed_comparison,
)


async def test_diff_shows_what_a_sync_would_change(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    await seed_comparison(runtime)
    response = await api.get("/api/v1/applications/shop/diff", headers=auth())
    assert response.status == 200, await response.text()
    body = await response.json()
    assert body["syncStatus"] == "OutOfSync" and body["revisions"] == [COMMIT]
    diffs = {item["name"]: item for item in body["items"]}
    assert sorted(diffs) == ["cfg", "creds", "orphan"], "Synced resources are left out"
    assert "-  a: '1'" in diffs["cfg"]["diff"] and "+  a: '2'" in diffs["cfg"]["diff"]
    secret = diffs["creds"]["diff"]
    assert MASK in secret and "b2xk" not in secret and "bmV3" not in secret
    assert diffs["orphan"]["requiresPruning"] is True and "-  x: y" in diffs["orphan"]["diff"]


async def test_diff_before_any_comparison_says_what_to_do(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    response = await api.get("/api/v1/applications/shop/diff", headers=auth())
    assert response.status == 409
    assert "refresh" in (await response.json())["message"]


async def test_diff_with_a_cold_live_cache_is_unavailable(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    await seed_comparison(runtime)
    await runtime.live.invalidate(REF, reason="test")
    response = await api.get("/api/v1/applications/shop/diff", headers=auth())
    assert response.status == 503


async def test_history_lists_entries_with_ids(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    for revision in ("a" * 40, "b" * 40):
        await runtime.history.append(REF, RevisionHistory(id=0, revision=revision), limit=10)
    response = await api.get("/api/v1/applications/shop/history", headers=auth())
    items = (await response.json())["items"]
    assert [(i["id"], i["revision"]) for i in items] == [(0, "a" * 40), (1, "b" * 40)]


async def test_resource_tree(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    empty = await api.get("/api/v1/applications/shop/resource-tree", headers=auth())
    assert (await empty.json())["nodes"] == []
    node = {
        "group": "apps",
        "version": "v1",
        "kind": "Deployment",
        "namespace": "shop",
        "name": "web",
    }
    await runtime.tree.save(REF, [node])
    response = await api.get("/api/v1/applications/shop/resource-tree", headers=auth())
    assert (await response.json()) == {"nodes": [node], "orphanedNodes": []}

    stray = {"version": "v1", "kind": "ConfigMap", "namespace": "shop", "name": "stray"}
    await runtime.tree.save_many({REF: [node]}, {REF: [stray]})
    response = await api.get("/api/v1/applications/shop/resource-tree", headers=auth())
    assert (await response.json()) == {"nodes": [node], "orphanedNodes": [stray]}


async def test_recent_events_of_one_app(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    other = AppRef("sluice", "other")
    for i in range(5):
        await emit(runtime.bus, REF, EventType.OUT_OF_SYNC, {"n": i}, component="test")
        await emit(runtime.bus, other, EventType.SYNCED, {"n": i}, component="test")
    response = await api.get("/api/v1/applications/shop/events?limit=3", headers=auth())
    assert response.status == 200, await response.text()
    items = (await response.json())["items"]
    assert [i["event"]["data"]["n"] for i in items] == [2, 3, 4]
    assert {i["app"] for i in items} == {"sluice/shop"}
    assert all(i["type"] == "out-of-sync" for i in items)
    assert items[0]["seq"] < items[1]["seq"] < items[2]["seq"]
    none = await api.get("/api/v1/applications/shop/events?limit=0", headers=auth())
    assert none.status == 400

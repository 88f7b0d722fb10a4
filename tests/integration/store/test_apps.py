"""The app registry: put reports new apps and spec changes; reads survive unreadable entries."""

import copy

from app.model.application import Application
from app.store import keys
from app.store.apps import AppRegistry
from app.store.connection import Redis

DOC = {
    "apiVersion": "argoproj.io/v1alpha1",
    "kind": "Application",
    "metadata": {"name": "guestbook", "namespace": "sluice", "resourceVersion": "1"},
    "spec": {
        "project": "default",
        "source": {"repoURL": "https://git.example/apps.git", "path": "guestbook"},
        "destination": {"server": "https://kubernetes.default.svc", "namespace": "web"},
    },
    "status": {"sync": {"status": "Synced"}},
}


async def test_put_tells_created_then_spec_changes_only(redis_client: Redis) -> None:
    registry = AppRegistry(redis_client)
    first = await registry.put(Application.from_dict(DOC))
    assert (first.created, first.spec_changed) == (True, True)

    relabelled = copy.deepcopy(DOC)
    relabelled["metadata"]["labels"] = {"team": "a"}
    relabelled["metadata"]["resourceVersion"] = "2"
    same = await registry.put(Application.from_dict(relabelled))
    assert (same.created, same.spec_changed) == (False, False)

    moved = copy.deepcopy(relabelled)
    moved["spec"]["source"]["targetRevision"] = "v2"
    changed = await registry.put(Application.from_dict(moved))
    assert (changed.created, changed.spec_changed) == (False, True)

    stored = await registry.get(Application.from_dict(moved))
    assert stored is not None
    assert stored.spec.all_sources[0].target_revision == "v2"
    assert stored.metadata.labels == {"team": "a"}
    assert stored.to_dict().get("status") is None


async def test_all_lists_registered_apps_and_skips_unreadable_ones(redis_client: Redis) -> None:
    registry = AppRegistry(redis_client)
    for name in ("b", "a"):
        doc = copy.deepcopy(DOC)
        doc["metadata"]["name"] = name
        await registry.put(Application.from_dict(doc))
    broken = Application.from_dict(DOC)
    await registry.put(broken)
    await redis_client.hset(keys.app(broken), "doc", b"{not json")

    assert await registry.names() == [("sluice", "a"), ("sluice", "b"), ("sluice", "guestbook")]
    assert [app.name for app in await registry.all()] == ["a", "b"]

    assert await registry.delete(Application.from_dict(DOC))
    assert ("sluice", "guestbook") not in await registry.names()


async def test_default_project_is_permissive_when_not_stored(redis_client: Redis) -> None:
    registry = AppRegistry(redis_client)
    project = await registry.get_project("sluice", "default")
    assert project is not None and project.spec.source_repos == ["*"]
    assert await registry.get_project("sluice", "other") is None

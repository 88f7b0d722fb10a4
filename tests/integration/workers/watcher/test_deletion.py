"""Deleting an Application: without the finalizer its resources stay; with it they are
deleted (foreground, Delete=false respected) before the finalizer comes off."""

from typing import Any

from app.cluster import NotFound
from app.model.annotations import RESOURCES_FINALIZER, SYNC_OPTIONS
from app.runtime.runtime import Runtime
from tests.integration.workers.watcher.conftest import (
    DESTINATION,
    NAMESPACE,
    WEB,
    Published,
    application,
    config_map,
    deployment,
    kubectl_apply,
    tracked,
)
from tests.support.fixtures_cluster import Kubectl
from tests.support.waiting import eventually
from workers.watcher.worker import Watcher


async def exists(rt: Runtime, api_version: str, kind: str, name: str, namespace: str) -> bool:
    try:
        await rt.control_plane.get(api_version, kind, name, namespace)
    except NotFound:
        return False
    return True


async def configmaps(rt: Runtime) -> set[str]:
    listed = await rt.control_plane.list("v1", "ConfigMap", namespace=DESTINATION)
    return {o["metadata"]["name"] for o in listed.items}


async def app_gone(rt: Runtime) -> bool:
    return not await exists(rt, "argoproj.io/v1alpha1", "Application", "web", NAMESPACE)


async def test_without_the_finalizer_the_resources_stay(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, application("web"))
    await published.refresh("web")
    await runtime.control_plane.create(tracked(config_map("cfg")))
    await published.refresh("web")
    await kubectl("delete", "application", "web", "-n", NAMESPACE)
    await eventually(lambda: _unregistered(runtime), what="the app to be unregistered")
    assert await configmaps(runtime) == {"cfg"}


async def _unregistered(rt: Runtime) -> bool:
    return await rt.apps.get(WEB) is None


async def test_with_the_finalizer_managed_resources_go_first(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    cluster = runtime.control_plane
    await kubectl_apply(kubectl, application("web", finalizers=[RESOURCES_FINALIZER]))
    await published.refresh("web")
    kept: dict[str, Any] = tracked(config_map("kept"))
    kept["metadata"]["annotations"][SYNC_OPTIONS] = "Delete=false"
    others = tracked(config_map("other-app"), app="other")
    site = tracked(deployment("site", replicas=2))
    for obj in (tracked(config_map("cfg")), kept, config_map("unrelated"), others, site):
        await cluster.create(obj)

    async def pods() -> int:
        listed = await cluster.list("v1", "Pod", namespace=DESTINATION)
        return len(listed.items)

    await eventually(lambda: _equals(pods, 2), timeout=10, what="the deployment's pods")
    await kubectl("delete", "application", "web", "-n", NAMESPACE, "--wait=false")

    await eventually(lambda: app_gone(runtime), timeout=10, what="the app to go")
    assert await configmaps(runtime) == {"kept", "unrelated", "other-app"}
    assert not await exists(runtime, "apps/v1", "Deployment", "site", DESTINATION)
    await eventually(lambda: _equals(pods, 0), timeout=10, what="the pods to be collected")
    await eventually(lambda: _unregistered(runtime), what="the app to be unregistered")


async def _equals(probe: Any, expected: int) -> bool:
    return bool(await probe() == expected)

"""kubernetes-asyncio's typed and dynamic clients against the local cluster, unchanged."""

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from kubernetes_asyncio import client, config, watch
from kubernetes_asyncio.client.exceptions import ApiException
from kubernetes_asyncio.dynamic import DynamicClient

from app.localcluster import LocalCluster
from tests.support.manifests import crd
from tests.support.waiting import eventually


def deployment(name: str = "web", replicas: int = 1, image: str = "nginx:1") -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "main", "image": image}]},
            },
        },
    }


async def open_client(cluster: LocalCluster) -> client.ApiClient:
    return await config.new_client_from_config(config_file=str(cluster.kubeconfig_path))


@pytest.fixture
async def api_client(local_cluster: LocalCluster) -> AsyncIterator[client.ApiClient]:
    api = await open_client(local_cluster)
    try:
        yield api
    finally:
        await api.close()


def status_of(error: ApiException) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(error.body)
    return body


async def test_typed_client_crud(api_client: client.ApiClient) -> None:
    apps = client.AppsV1Api(api_client)
    created = await apps.create_namespaced_deployment("default", deployment())
    assert created.metadata.generation == 1
    listed = await apps.list_namespaced_deployment("default", label_selector="app in (web)")
    assert [d.metadata.name for d in listed.items] == ["web"]
    replaced = await apps.replace_namespaced_deployment("web", "default", deployment(replicas=2))
    assert replaced.spec.replicas == 2 and replaced.metadata.generation == 2
    patched = await apps.patch_namespaced_deployment(
        "web",
        "default",
        {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "nginx:2"}]}}}},
    )
    assert [c.image for c in patched.spec.template.spec.containers] == ["nginx:2"]
    await apps.delete_namespaced_deployment(
        "web", "default", body=client.V1DeleteOptions(propagation_policy="Foreground")
    )

    async def gone() -> bool:
        try:
            await apps.read_namespaced_deployment("web", "default")
        except ApiException as e:
            return e.status == 404 and status_of(e)["message"] == 'deployments.apps "web" not found'
        return False

    await eventually(gone, timeout=5, what="the deployment deleted in the foreground")


async def test_typed_client_optimistic_concurrency(api_client: client.ApiClient) -> None:
    core = client.CoreV1Api(api_client)
    created = await core.create_namespaced_config_map("default", {"metadata": {"name": "c"}})
    body = {"metadata": {"name": "c", "resourceVersion": created.metadata.resource_version}}
    await core.replace_namespaced_config_map("c", "default", {**body, "data": {"k": "1"}})
    with pytest.raises(ApiException) as e:
        await core.replace_namespaced_config_map("c", "default", {**body, "data": {"k": "2"}})
    assert e.value.status == 409 and status_of(e.value)["reason"] == "Conflict"
    assert (await core.read_namespaced_config_map("c", "default")).data == {"k": "1"}


async def test_typed_client_server_side_apply_and_dry_run(api_client: client.ApiClient) -> None:
    apps = client.AppsV1Api(api_client)
    kwargs: dict[str, Any] = {
        "field_manager": "sluice",
        "_content_type": "application/apply-patch+yaml",
    }
    applied = await apps.patch_namespaced_deployment(
        "web", "default", deployment(replicas=2), **kwargs
    )
    assert applied.metadata.managed_fields[0].manager == "sluice"
    preview = await apps.patch_namespaced_deployment(
        "web", "default", deployment(replicas=4), dry_run="All", **kwargs
    )
    assert preview.spec.replicas == 4
    live = await apps.read_namespaced_deployment("web", "default")
    assert live.spec.replicas == 2 and live.metadata.generation == 1
    with pytest.raises(ApiException) as conflict:
        await apps.patch_namespaced_deployment(
            "web",
            "default",
            deployment(replicas=3),
            field_manager="other",
            _content_type="application/apply-patch+yaml",
        )
    causes = status_of(conflict.value)["details"]["causes"]
    assert causes == [
        {
            "reason": "FieldManagerConflict",
            "message": 'conflict with "sluice"',
            "field": ".spec.replicas",
        }
    ]
    forced = await apps.patch_namespaced_deployment(
        "web",
        "default",
        deployment(replicas=3),
        field_manager="other",
        force=True,
        _content_type="application/apply-patch+yaml",
    )
    assert forced.spec.replicas == 3


async def test_typed_client_status_subresource(
    local_cluster_factory: Callable[..., AbstractAsyncContextManager[LocalCluster]],
) -> None:
    async with local_cluster_factory(controllers_enabled=False) as cluster:
        api = await open_client(cluster)
        try:
            apps = client.AppsV1Api(api)
            await apps.create_namespaced_deployment("default", deployment())
            updated = await apps.patch_namespaced_deployment_status(
                "web",
                "default",
                {"status": {"replicas": 1, "readyReplicas": 1}, "spec": {"replicas": 7}},
            )
            assert updated.status.ready_replicas == 1
            assert updated.spec.replicas == 1 and updated.metadata.generation == 1
            body = deployment(replicas=2)
            body["status"] = {"replicas": 99}
            replaced = await apps.replace_namespaced_deployment("web", "default", body)
            assert replaced.status.replicas == 1 and replaced.metadata.generation == 2
        finally:
            await api.close()


async def test_typed_client_watch_streams_changes(api_client: client.ApiClient) -> None:
    core = client.CoreV1Api(api_client)
    await core.create_namespaced_config_map("default", {"metadata": {"name": "before"}})
    seen: list[tuple[str, str]] = []
    first = asyncio.Event()
    stream = watch.Watch()

    async def consume() -> None:
        async with stream.stream(
            core.list_namespaced_config_map, "default", timeout_seconds=5
        ) as events:
            async for event in events:
                seen.append((event["type"], event["object"].metadata.name))
                first.set()
                if len(seen) == 3:
                    stream.stop()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 5)
    await core.create_namespaced_config_map("default", {"metadata": {"name": "after"}})
    await core.delete_namespaced_config_map("before", "default")
    await asyncio.wait_for(task, 5)
    assert seen == [("ADDED", "before"), ("ADDED", "after"), ("DELETED", "before")]


CRD = crd()


async def test_dynamic_client_crud_and_apply(api_client: client.ApiClient, tmp_path: Path) -> None:
    async with DynamicClient(api_client, cache_file=str(tmp_path / "discovery.json")) as dyn:
        deployments = await dyn.resources.get(api_version="apps/v1", kind="Deployment")
        await dyn.create(deployments, body=deployment(), namespace="default")
        await dyn.patch(
            deployments, name="web", namespace="default", body={"spec": {"replicas": 3}},
            content_type="application/merge-patch+json",
        )  # fmt: skip
        got = await dyn.get(deployments, name="web", namespace="default")
        assert got.spec.replicas == 3
        await dyn.server_side_apply(
            deployments,
            body=deployment(replicas=4),
            name="web",
            namespace="default",
            field_manager="dyn",
            force_conflicts=True,
        )
        listed = await dyn.get(deployments, namespace="default", label_selector="app=web")
        assert [item.spec.replicas for item in listed.items] == [4]
        await dyn.delete(deployments, name="web", namespace="default")
        after = await dyn.get(deployments, namespace="default")
        assert after.items == []


async def test_dynamic_client_uses_a_crd_after_refreshing_discovery(
    api_client: client.ApiClient, tmp_path: Path
) -> None:
    async with DynamicClient(api_client, cache_file=str(tmp_path / "discovery.json")) as dyn:
        crds = await dyn.resources.get(
            api_version="apiextensions.k8s.io/v1", kind="CustomResourceDefinition"
        )
        created = await dyn.create(crds, body=CRD)
        assert {c.type: c.status for c in created.status.conditions} == {
            "NamesAccepted": "True",
            "Established": "True",
        }
        await dyn.resources.invalidate_cache()
        widgets = await dyn.resources.get(api_version="example.com/v1", kind="Widget")
        await dyn.create(
            widgets,
            body={
                "apiVersion": "example.com/v1",
                "kind": "Widget",
                "metadata": {"name": "w"},
                "spec": {"size": 1},
            },
            namespace="default",
        )
        got = await dyn.get(widgets, name="w", namespace="default")
        assert got.spec.size == 1
        refused = await dyn.patch(
            widgets, name="w", namespace="default", body={"spec": {"size": 2}}
        )
        assert (refused.kind, refused.code) == ("Status", 415), (
            "strategic merge on a custom resource"
        )
        applications = await dyn.resources.get(
            api_version="argoproj.io/v1alpha1", kind="Application"
        )
        assert (applications.name, applications.namespaced) == ("applications", True)

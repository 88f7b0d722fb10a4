"""Discovery against the local cluster: built-in kinds, preferred versions, CRDs at run time."""

import itertools
from typing import Any

import pytest

from app.cluster import Cluster, ClusterSettings, UnknownKind
from app.model.resource import GroupKind
from tests.integration.cluster.conftest import open_cluster
from tests.support.manifests import crd

_groups = itertools.count()


def widget(group: str, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": f"{group}/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": namespace},
        "spec": {"size": 3},
    }


def fresh_group() -> str:
    return f"g{next(_groups)}.example.com"


async def test_built_in_kinds_resolve_with_scope(cluster: Cluster) -> None:
    deployments = await cluster.resource("apps/v1", "Deployment")
    assert (deployments.resource, deployments.namespaced) == ("deployments", True)
    namespaces = await cluster.resource("v1", "Namespace")
    assert (namespaces.resource, namespaces.namespaced) == ("namespaces", False)
    assert "status" in deployments.subresources


async def test_preferred_version_for_a_group_kind(cluster: Cluster) -> None:
    hpa = await cluster.preferred_resource(GroupKind("autoscaling", "HorizontalPodAutoscaler"))
    assert hpa.version == "v2"
    kinds = {rt.group_kind for rt in await cluster.resource_types()}
    assert GroupKind("apps", "Deployment") in kinds
    assert GroupKind("argoproj.io", "Application") in kinds


async def test_unknown_kind_says_to_install_the_crd(cluster: Cluster, namespace: str) -> None:
    with pytest.raises(UnknownKind) as caught:
        await cluster.apply(widget("nowhere.example.com", namespace))
    assert "no API group 'nowhere.example.com'" in str(caught.value)
    assert "CRD" in str(caught.value)


async def test_a_crd_written_through_the_client_is_usable_at_once(
    cluster: Cluster, namespace: str
) -> None:
    group = fresh_group()
    await cluster.resource("v1", "ConfigMap")
    await cluster.apply(crd(group))
    applied = await cluster.apply(widget(group, namespace))
    assert applied["spec"] == {"size": 3}


async def test_a_crd_created_elsewhere_is_found_by_refreshing_on_a_miss(
    local_cluster: Any, cluster: Cluster, namespace: str
) -> None:
    group = fresh_group()
    settings = ClusterSettings(discovery_miss_refresh_interval=0)
    async with await open_cluster(local_cluster, settings) as watcher:
        await watcher.resource("v1", "ConfigMap")
        loads = watcher.discovery.loads
        await cluster.apply(crd(group))
        applied = await watcher.apply(widget(group, namespace))
        assert applied["kind"] == "Widget"
        assert watcher.discovery.loads == loads + 1


async def test_misses_are_rate_limited_until_invalidated(
    local_cluster: Any, cluster: Cluster, namespace: str
) -> None:
    group = fresh_group()
    settings = ClusterSettings(discovery_miss_refresh_interval=3600)
    async with await open_cluster(local_cluster, settings) as slow:
        await slow.resource("v1", "ConfigMap")
        await cluster.apply(crd(group))
        with pytest.raises(UnknownKind):
            await slow.apply(widget(group, namespace))
        slow.invalidate()
        applied = await slow.apply(widget(group, namespace))
        assert applied["kind"] == "Widget"


async def test_both_discovery_formats_agree(local_cluster: Any, cluster: Cluster) -> None:
    aggregated = await cluster.discovery.index()
    async with await open_cluster(
        local_cluster, ClusterSettings(aggregated_discovery=False)
    ) as plain_client:
        plain = await plain_client.discovery.index()
    assert not plain.failed
    assert sorted(aggregated.resources, key=str) == sorted(plain.resources, key=str)
    assert aggregated.groups == plain.groups

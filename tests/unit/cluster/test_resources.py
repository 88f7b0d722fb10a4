"""Both discovery formats are read into the same index: kind ↔ resource, scope, versions."""

from typing import Any

import pytest

from app.cluster.resources import (
    GroupVersions,
    ResourceIndex,
    parse_aggregated,
    parse_core_versions,
    parse_group_list,
    parse_resource_list,
)
from app.model.resource import GroupKind


def aggregated_resource(
    resource: str, kind: str, scope: str, *, subresources: tuple[str, ...] = ()
) -> dict[str, Any]:
    return {
        "resource": resource,
        "responseKind": {"group": "", "version": "", "kind": kind},
        "scope": scope,
        "singularResource": kind.lower(),
        "verbs": ["get", "list", "watch", "create", "patch", "delete"],
        "shortNames": [resource[:3]],
        "subresources": [
            {"subresource": s, "responseKind": {"kind": kind}, "verbs": ["get"]}
            for s in subresources
        ],
    }


AGGREGATED_APIS = {
    "kind": "APIGroupDiscoveryList",
    "apiVersion": "apidiscovery.k8s.io/v2",
    "items": [
        {
            "metadata": {"name": "apps"},
            "versions": [
                {
                    "version": "v1",
                    "freshness": "Current",
                    "resources": [
                        aggregated_resource(
                            "deployments", "Deployment", "Namespaced", subresources=("status",)
                        )
                    ],
                }
            ],
        },
        {
            "metadata": {"name": "autoscaling"},
            "versions": [
                {
                    "version": "v2",
                    "resources": [
                        aggregated_resource(
                            "horizontalpodautoscalers", "HorizontalPodAutoscaler", "Namespaced"
                        )
                    ],
                },
                {
                    "version": "v1",
                    "resources": [
                        aggregated_resource(
                            "horizontalpodautoscalers", "HorizontalPodAutoscaler", "Namespaced"
                        )
                    ],
                },
            ],
        },
        {
            "metadata": {"name": "rbac.authorization.k8s.io"},
            "versions": [
                {
                    "version": "v1",
                    "resources": [aggregated_resource("clusterroles", "ClusterRole", "Cluster")],
                }
            ],
        },
    ],
}

PLAIN_GROUPS = {
    "kind": "APIGroupList",
    "groups": [
        {
            "name": "autoscaling",
            "versions": [
                {"groupVersion": "autoscaling/v2", "version": "v2"},
                {"groupVersion": "autoscaling/v1", "version": "v1"},
            ],
            "preferredVersion": {"groupVersion": "autoscaling/v2", "version": "v2"},
        }
    ],
}

PLAIN_CORE_V1 = {
    "kind": "APIResourceList",
    "groupVersion": "v1",
    "resources": [
        {
            "name": "namespaces",
            "singularName": "namespace",
            "namespaced": False,
            "kind": "Namespace",
            "verbs": ["get", "list", "watch", "create", "delete"],
            "shortNames": ["ns"],
        },
        {"name": "namespaces/status", "namespaced": False, "kind": "Namespace", "verbs": ["get"]},
        {
            "name": "configmaps",
            "singularName": "configmap",
            "namespaced": True,
            "kind": "ConfigMap",
            "verbs": ["get", "list"],
        },
    ],
}


def aggregated_index() -> ResourceIndex:
    resources, groups = parse_aggregated(AGGREGATED_APIS)
    return ResourceIndex(resources, groups)


@pytest.mark.parametrize(
    ("api_version", "kind", "resource", "namespaced"),
    [
        pytest.param("apps/v1", "Deployment", "deployments", True, id="namespaced-kind"),
        pytest.param(
            "rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles", False, id="cluster-kind"
        ),
        pytest.param(
            "autoscaling/v1",
            "HorizontalPodAutoscaler",
            "horizontalpodautoscalers",
            True,
            id="non-preferred-version-still-resolves",
        ),
    ],
)
def test_aggregated_kind_maps_to_resource(
    api_version: str, kind: str, resource: str, namespaced: bool
) -> None:
    rt = aggregated_index().by_kind(api_version, kind)
    assert rt is not None
    assert (rt.resource, rt.namespaced, rt.api_version) == (resource, namespaced, api_version)


def test_aggregated_keeps_verbs_short_names_and_subresources() -> None:
    rt = aggregated_index().by_kind("apps/v1", "Deployment")
    assert rt is not None
    assert rt.can("patch") and not rt.can("deletecollection")
    assert rt.short_names == ("dep",)
    assert rt.subresources == frozenset({"status"})
    assert rt.qualified == "deployments.apps"


def test_preferred_version_is_the_first_listed() -> None:
    idx = aggregated_index()
    assert idx.preferred_version("autoscaling") == "v2"
    rt = idx.by_group_kind(GroupKind("autoscaling", "HorizontalPodAutoscaler"))
    assert rt is not None and rt.version == "v2"


def test_preferred_lists_each_kind_once() -> None:
    kinds = [rt.group_kind for rt in aggregated_index().preferred()]
    assert len(kinds) == len(set(kinds)) == 3


def test_resource_name_maps_back_to_kind() -> None:
    rt = aggregated_index().by_resource("apps", "v1", "deployments")
    assert rt is not None and rt.kind == "Deployment"


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [
        pytest.param("apps/v2", "Deployment", id="unknown-version"),
        pytest.param("apps/v1", "Deploymnet", id="misspelled-kind"),
        pytest.param("example.com/v1", "Widget", id="unknown-group"),
    ],
)
def test_unknown_kinds_are_not_found(api_version: str, kind: str) -> None:
    assert aggregated_index().by_kind(api_version, kind) is None


def test_plain_format_reads_core_and_groups() -> None:
    core = parse_core_versions({"kind": "APIVersions", "versions": ["v1"]})
    assert core == GroupVersions("", ("v1",), "v1")
    groups = parse_group_list(PLAIN_GROUPS)
    assert groups == [GroupVersions("autoscaling", ("v2", "v1"), "v2")]


def test_plain_resource_list_folds_subresources_into_their_parent() -> None:
    resources = parse_resource_list(PLAIN_CORE_V1, "", "v1")
    by_name = {rt.resource: rt for rt in resources}
    assert set(by_name) == {"namespaces", "configmaps"}
    assert by_name["namespaces"].subresources == frozenset({"status"})
    assert not by_name["namespaces"].namespaced
    assert by_name["configmaps"].namespaced
    idx = ResourceIndex(resources, [GroupVersions("", ("v1",), "v1")])
    rt = idx.by_kind("v1", "ConfigMap")
    assert rt is not None and rt.api_version == "v1" and rt.qualified == "configmaps"


def test_malformed_entries_are_ignored_not_fatal() -> None:
    doc = {
        "items": [{"metadata": {"name": "x"}, "versions": [{"version": "v1", "resources": [{}]}]}]
    }
    resources, groups = parse_aggregated(doc)
    assert resources == []
    assert groups == [GroupVersions("x", ("v1",), "v1")]

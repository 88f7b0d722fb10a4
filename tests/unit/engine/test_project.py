"""AppProject checks: source repos, destinations, group/kind allow and deny lists."""

import pytest

from app.engine.project import (
    DestinationCluster,
    cluster_permitted,
    destination_permitted,
    group_kind_permitted,
    namespace_permitted,
    normalize_repo_url,
    resource_permitted,
    source_permitted,
)
from app.model.app_spec import ApplicationDestination
from app.model.project import AppProject
from app.model.resource import ResourceKey


def project(**spec: object) -> AppProject:
    return AppProject.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "AppProject",
            "metadata": {"name": "team"},
            "spec": spec,
        }
    )


SOURCES = [
    (["*"], "https://github.com/org/app.git", True, "source: lone star allows every repo"),
    (["https://github.com/org/*"], "https://github.com/org/app", True, "source: glob within org"),
    (["https://github.com/org/*"], "https://github.com/org/a/b", False, "source: star stops at /"),
    (
        ["https://github.com/**"],
        "https://github.com/org/a/b",
        True,
        "source: double star crosses /",
    ),
    (
        ["https://GitHub.com/Org/App.git"],
        "https://github.com/org/app/",
        True,
        "source: URLs normalized",
    ),
    (["git@github.com:org/app.git"], "ssh://git@github.com/org/app", True, "source: scp-style ssh"),
    (
        ["*", "!https://github.com/org/secret"],
        "https://github.com/org/secret",
        False,
        "source: negation denies even when another pattern allows",
    ),
    (
        ["*", "!https://github.com/org/secret"],
        "https://github.com/org/app",
        True,
        "source: negation leaves other repos",
    ),
    (
        ["!https://github.com/org/secret"],
        "https://github.com/org/app",
        True,
        "source: a deny pattern alone allows what it does not deny",
    ),
    ([], "https://github.com/org/app", False, "source: no repos, nothing allowed"),
]


@pytest.mark.parametrize(
    ("repos", "url", "allowed"), [s[:3] for s in SOURCES], ids=[s[3] for s in SOURCES]
)
def test_source_permitted(repos: list[str], url: str, allowed: bool) -> None:
    result = source_permitted(project(sourceRepos=repos), url)
    assert result.allowed is allowed
    if not allowed:
        assert result.message == f"application repo {url} is not permitted in project 'team'"


DESTINATIONS = [
    (
        [{"server": "*", "namespace": "*"}],
        {"server": "https://k", "namespace": "web"},
        True,
        "destination: wildcard",
    ),
    (
        [{"server": "https://k", "namespace": "team-*"}],
        {"server": "https://k", "namespace": "team-a"},
        True,
        "destination: namespace glob",
    ),
    (
        [{"server": "https://k", "namespace": "team-*"}],
        {"server": "https://k", "namespace": "other"},
        False,
        "destination: namespace outside glob",
    ),
    (
        [{"name": "in-cluster", "namespace": "*"}],
        {"name": "in-cluster", "namespace": "x"},
        True,
        "destination: by cluster name",
    ),
    (
        [{"server": "*", "namespace": "*"}, {"server": "*", "namespace": "!kube-system"}],
        {"server": "https://k", "namespace": "kube-system"},
        False,
        "destination: negated namespace denies",
    ),
    (
        [{"server": "*", "namespace": "*"}, {"server": "*", "namespace": "!kube-system"}],
        {"server": "https://k", "namespace": "web"},
        True,
        "destination: negation leaves others",
    ),
    (
        [{"server": "!https://prod", "namespace": "*"}, {"server": "*", "namespace": "*"}],
        {"server": "https://prod", "namespace": "web"},
        False,
        "destination: negated server denies",
    ),
    ([], {"server": "https://k", "namespace": "web"}, False, "destination: none allowed"),
]


@pytest.mark.parametrize(
    ("destinations", "dest", "allowed"),
    [d[:3] for d in DESTINATIONS],
    ids=[d[3] for d in DESTINATIONS],
)
def test_destination_permitted(
    destinations: list[dict[str, str]], dest: dict[str, str], allowed: bool
) -> None:
    result = destination_permitted(project(destinations=destinations), **dest)
    assert result.allowed is allowed


def test_destination_message_is_argo_cds() -> None:
    result = destination_permitted(project(destinations=[]), server="https://k", namespace="web")
    assert result.message == (
        "application destination server 'https://k' and namespace 'web' do not match any of "
        "the allowed destinations in project 'team'"
    )


def test_namespace_of_a_target_is_checked_against_destinations() -> None:
    proj = project(destinations=[{"server": "https://k", "namespace": "web"}])
    assert namespace_permitted(proj, "web", server="https://k").allowed
    denied = namespace_permitted(proj, "kube-system", server="https://k")
    assert denied.message == "namespace kube-system is not permitted in project 'team'"


GROUP_KINDS = [
    ({}, "", "ConfigMap", True, True, "kinds: namespaced allowed when no whitelist"),
    (
        {},
        "rbac.authorization.k8s.io",
        "ClusterRole",
        False,
        False,
        "kinds: cluster-scoped denied when no cluster whitelist",
    ),
    (
        {"clusterResourceWhitelist": [{"group": "*", "kind": "*"}]},
        "",
        "Namespace",
        False,
        True,
        "kinds: cluster whitelist glob",
    ),
    (
        {
            "clusterResourceWhitelist": [{"group": "*", "kind": "*"}],
            "clusterResourceBlacklist": [{"group": "", "kind": "Namespace"}],
        },
        "",
        "Namespace",
        False,
        False,
        "kinds: cluster blacklist wins",
    ),
    (
        {"namespaceResourceWhitelist": [{"group": "apps", "kind": "*"}]},
        "apps",
        "Deployment",
        True,
        True,
        "kinds: namespace whitelist glob",
    ),
    (
        {"namespaceResourceWhitelist": [{"group": "apps", "kind": "*"}]},
        "",
        "Secret",
        True,
        False,
        "kinds: outside namespace whitelist",
    ),
    (
        {"namespaceResourceBlacklist": [{"group": "", "kind": "Secret"}]},
        "",
        "Secret",
        True,
        False,
        "kinds: namespace blacklist",
    ),
    (
        {"namespaceResourceBlacklist": [{"group": "*", "kind": "Net*"}]},
        "networking.k8s.io",
        "NetworkPolicy",
        True,
        False,
        "kinds: namespace blacklist glob",
    ),
]


@pytest.mark.parametrize(
    ("spec", "group", "kind", "namespaced", "allowed"),
    [g[:5] for g in GROUP_KINDS],
    ids=[g[5] for g in GROUP_KINDS],
)
def test_group_kind_permitted(
    spec: dict[str, object], group: str, kind: str, namespaced: bool, allowed: bool
) -> None:
    result = group_kind_permitted(project(**spec), group, kind, namespaced=namespaced)
    assert result.allowed is allowed
    if not allowed:
        assert result.message == f"resource {group}:{kind} is not permitted in project team"


TEAM = {
    "destinations": [{"name": "edge", "namespace": "web"}],
    "namespaceResourceBlacklist": [{"group": "", "kind": "Secret"}],
}
EDGE = ApplicationDestination(name="edge", namespace="web")
RESOURCES = [
    (ResourceKey("apps", "Deployment", "web", "d"), True, "", "resource: allowed"),
    (
        ResourceKey("", "Secret", "web", "s"),
        True,
        "resource :Secret is not permitted in project team",
        "resource: the kind is checked first",
    ),
    (
        ResourceKey("apps", "Deployment", "kube-system", "d"),
        True,
        "namespace kube-system is not permitted in project 'team'",
        "resource: then its namespace on the destination cluster",
    ),
    (
        ResourceKey("apps", "Deployment", "", "d"),
        True,
        "",
        "resource: a namespaced object without a namespace is not checked for one",
    ),
    (
        ResourceKey("", "Namespace", "", "kube-system"),
        False,
        "resource :Namespace is not permitted in project team",
        "resource: a cluster-scoped kind needs the cluster whitelist",
    ),
]


@pytest.mark.parametrize(
    ("key", "namespaced", "message"), [r[:3] for r in RESOURCES], ids=[r[3] for r in RESOURCES]
)
def test_resource_permitted(key: ResourceKey, namespaced: bool, message: str) -> None:
    verdict = resource_permitted(project(**TEAM), key, namespaced=namespaced, destination=EDGE)
    assert (verdict.allowed, verdict.message) == (not message, message)


def test_default_project_allows_everything() -> None:
    default = AppProject.default()
    assert source_permitted(default, "https://any/repo").allowed
    assert destination_permitted(default, server="https://k", namespace="x").allowed
    assert group_kind_permitted(default, "", "Namespace", namespaced=False).allowed


def test_repo_url_normalization() -> None:
    assert normalize_repo_url(" https://GitHub.com/Org/App.git/ ") == "https://github.com/org/app"


def test_a_cluster_scoped_to_another_project_is_refused() -> None:
    team_a = AppProject.from_dict(
        {"metadata": {"name": "team-a"}, "spec": {"destinations": [{"server": "*"}]}}
    )
    mine = DestinationCluster("a-cluster", "https://a", "team-a", "sluice/a")
    theirs = DestinationCluster("b-cluster", "https://b", "team-b", "sluice/b")
    unscoped = DestinationCluster("shared", "https://shared")
    assert cluster_permitted(team_a, mine).allowed
    assert cluster_permitted(team_a, unscoped).allowed
    refused = cluster_permitted(team_a, theirs)
    assert not refused.allowed
    assert "scoped to project 'team-b' by cluster Secret sluice/b" in refused.message

    only_scoped = AppProject.from_dict(
        {"metadata": {"name": "team-a"}, "spec": {"permitOnlyProjectScopedClusters": True}}
    )
    assert cluster_permitted(only_scoped, mine).allowed
    refused = cluster_permitted(only_scoped, unscoped)
    assert not refused.allowed and "permitOnlyProjectScopedClusters" in refused.message

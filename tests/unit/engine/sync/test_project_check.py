"""A sync refuses exactly the objects the comparison found the project forbids."""

from app.engine.compare import CompareSettings, compare
from app.engine.sync import ResourceScope, project_check
from app.model.project import AppProject
from app.model.resource import ResourceKey
from tests.unit.engine.sync.builders import app, obj


def test_the_sync_verdict_on_each_object_is_the_comparisons() -> None:
    project = AppProject.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "AppProject",
            "metadata": {"name": "team"},
            "spec": {
                "destinations": [{"server": "https://kubernetes.default.svc", "namespace": "shop"}],
                "namespaceResourceBlacklist": [{"group": "", "kind": "Secret"}],
            },
        }
    )
    manifests = [
        obj("ConfigMap", "c"),
        obj("Secret", "s"),
        obj("ConfigMap", "elsewhere", namespace="kube-system"),
        obj("ClusterRole", "r"),
    ]
    application = app()
    judged = compare(application, manifests, [], project, CompareSettings())
    check = project_check(project, application.spec.destination)
    scopes = {
        "ConfigMap": ResourceScope.NAMESPACED,
        "Secret": ResourceScope.NAMESPACED,
        "ClusterRole": ResourceScope.CLUSTER,
    }
    verdicts = {
        ResourceKey.of(r.target): check(r.target, scopes[r.key.kind])
        for r in judged.resources
        if r.target is not None
    }
    assert verdicts == {r.key: r.message for r in judged.resources}
    assert sorted(m for m in verdicts.values() if m) == [
        "namespace kube-system is not permitted in project 'team'",
        "resource :Secret is not permitted in project team",
        "resource rbac.authorization.k8s.io:ClusterRole is not permitted in project team",
    ]


def test_an_api_the_cluster_lacks_is_scoped_by_the_built_in_list() -> None:
    check = project_check(AppProject.default(), app().spec.destination)
    assert check(obj("ClusterRole", "r"), None) == ""
    strict = AppProject.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "AppProject",
            "metadata": {"name": "team"},
            "spec": {"destinations": [{"server": "*", "namespace": "*"}]},
        }
    )
    assert project_check(strict, app().spec.destination)(obj("ClusterRole", "r"), None) == (
        "resource rbac.authorization.k8s.io:ClusterRole is not permitted in project team"
    )

"""AppProject orphanedResources (issue 12): what the app's namespace holds beyond the app.

A project with `orphanedResources: {warn: true, ignore: [Secrets]}`; its app syncs a
ConfigMap into its namespace. Objects created there with kubectl afterwards, which no
app manages, are listed beside the app's resource tree and counted in an
OrphanedResourceWarning; an ignored kind, the namespace's default ServiceAccount and
kube-root-ca.crt are not; deleting the orphan clears the condition.
"""

from typing import Any

import pytest

from app.model.identity import AppRef
from tests.e2e.manifests import CONTROL, application, as_yaml, config_map
from tests.e2e.pipeline import Pipeline
from tests.support.fixtures_cluster import Kubectl
from tests.support.gitrepo import GitRepo

pytestmark = pytest.mark.kubectl

NAMESPACE = "orphans"


def project(orphaned: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "AppProject",
        "metadata": {"name": "watched", "namespace": CONTROL},
        "spec": {
            "sourceRepos": ["*"],
            "destinations": [{"server": "*", "namespace": "*"}],
            "clusterResourceWhitelist": [{"group": "*", "kind": "*"}],
            "orphanedResources": orphaned,
        },
    }


def warning(status: dict[str, Any]) -> str:
    conditions = status.get("conditions") or []
    return next((c["message"] for c in conditions if c["type"] == "OrphanedResourceWarning"), "")


async def test_orphans_are_listed_and_warned_of(
    pipeline: Pipeline, git_repo: GitRepo, kubectl: Kubectl
) -> None:
    commit = git_repo.commit({"deploy/config.yaml": as_yaml(config_map("managed"))})
    await pipeline.apply(project({"warn": True, "ignore": [{"kind": "Secret"}]}))
    app = application("web", git_repo.url, path="deploy", namespace=NAMESPACE, automated={})
    app["spec"]["project"] = "watched"
    await pipeline.apply(app)
    await pipeline.wait_synced("web", commit, timeout=60)

    await kubectl("create", "configmap", "stray", "-n", NAMESPACE, "--from-literal=a=b")
    await kubectl("create", "secret", "generic", "ignored", "-n", NAMESPACE)
    await kubectl("create", "serviceaccount", "default", "-n", NAMESPACE, check=False)

    status = await pipeline.wait_status(
        "web", lambda s: bool(warning(s)), what="an OrphanedResourceWarning", timeout=60
    )
    assert warning(status) == "Application has 1 orphaned resources"
    assert status["sync"]["status"] == "Synced", "orphans do not make the app OutOfSync"
    orphaned = await pipeline.rt.tree.load_orphaned(AppRef(CONTROL, "web"))
    assert [(n["kind"], n["name"], n["namespace"]) for n in orphaned] == [
        ("ConfigMap", "stray", NAMESPACE)
    ]
    nodes = await pipeline.rt.tree.load(AppRef(CONTROL, "web")) or []
    assert [(n["kind"], n["name"]) for n in nodes] == [("ConfigMap", "managed")]

    await kubectl("delete", "configmap", "stray", "-n", NAMESPACE)
    await pipeline.wait_status(
        "web", lambda s: not warning(s), what="the warning cleared", timeout=60
    )
    assert await pipeline.rt.tree.load_orphaned(AppRef(CONTROL, "web")) == []

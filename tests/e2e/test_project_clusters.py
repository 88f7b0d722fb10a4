"""Project-scoped clusters (issue 12): a cluster Secret's `project` keeps other projects out.

Two AppProjects that allow every destination; a second cluster whose Secret says
`project: team-b`. The team-b app syncs there; the team-a app addressed to the same
cluster is refused by the workers (it never came through the API: kubectl applied it)
with an InvalidSpecError saying why, and nothing of it reaches the cluster.
"""

import contextlib
from collections.abc import Callable
from typing import Any

import pytest

from app.localcluster import LocalCluster
from tests.e2e.manifests import CONTROL, application, as_yaml, config_map
from tests.e2e.pipeline import Pipeline
from tests.support.cluster_secrets import cluster_secret
from tests.support.gitrepo import GitRepo

pytestmark = pytest.mark.kubectl

Factory = Callable[..., contextlib.AbstractAsyncContextManager[LocalCluster]]


def project(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "AppProject",
        "metadata": {"name": name, "namespace": CONTROL},
        "spec": {
            "sourceRepos": ["*"],
            "destinations": [{"server": "*", "name": "*", "namespace": "*"}],
            "clusterResourceWhitelist": [{"group": "*", "kind": "*"}],
        },
    }


def app_of(name: str, team: str, repo_url: str) -> dict[str, Any]:
    app = application(name, repo_url, path=name, namespace=name, automated={})
    app["spec"]["project"] = team
    app["spec"]["destination"] = {"name": "scoped", "namespace": name}
    return app


def invalid_spec(status: dict[str, Any]) -> str:
    conditions = status.get("conditions") or []
    return next((c["message"] for c in conditions if c["type"] == "InvalidSpecError"), "")


async def test_an_app_of_another_project_may_not_deploy_to_a_scoped_cluster(
    pipeline: Pipeline, git_repo: GitRepo, local_cluster_factory: Factory
) -> None:
    commit = git_repo.commit(
        {
            "owned/config.yaml": as_yaml(config_map("owned-config")),
            "intruder/config.yaml": as_yaml(config_map("intruder-config")),
        }
    )
    async with local_cluster_factory() as scoped:
        await pipeline.apply(
            project("team-a"),
            project("team-b"),
            cluster_secret("scoped-cluster", name="scoped", server=scoped.url, project="team-b"),
        )
        await pipeline.apply(
            app_of("owned", "team-b", git_repo.url), app_of("intruder", "team-a", git_repo.url)
        )

        await pipeline.wait_synced("owned", commit, timeout=60)
        status = await pipeline.wait_status(
            "intruder", lambda s: bool(invalid_spec(s)), what="the refusal", timeout=60
        )
        assert invalid_spec(status) == (
            "cluster 'scoped' is scoped to project 'team-b' by cluster Secret "
            "sluice/scoped-cluster; applications of project 'team-a' may not deploy to it "
            "(deploy to a cluster of project 'team-a' or an unscoped one)"
        )
        assert (status.get("sync") or {}).get("status") == "Unknown"
        assert not (status.get("operationState") or {}), "the refused app was never synced"
        assert [o["metadata"]["name"] for o in scoped.objects("configmaps", "owned")] == [
            "owned-config"
        ]
        assert scoped.objects("configmaps", "intruder") == []

"""The project is enforced by the workers, not only the API: Applications written straight to
the cluster (kubectl) that their AppProject refuses are never fetched, rendered or applied.

- An app in a namespace Sluice reconciles (`--application-namespaces 'apps-*'`) but that
  its project's `sourceNamespaces` does not list cannot borrow the project's rights: its
  ClusterRoleBinding to cluster-admin and its Application for the control-plane namespace
  never reach the cluster, and it shows InvalidSpecError (issue 13, defect 5).
- A repository the project does not list is refused before any ls-remote or fetch, in
  the project's words (issue 13, defect 6).
"""

from dataclasses import replace
from typing import Any

import pytest

from app.cluster import NotFound
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from app.runtime.worker import Worker
from tests.support.gitrepo import GitRepo, manifests
from tests.support.waiting import eventually

CONTROL = "sluice"
API = "argoproj.io/v1alpha1"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    control = replace(settings.control_plane, application_namespaces=("apps-*",))
    return replace(settings, control_plane=control)


def _application(
    name: str, namespace: str, repo_url: str, path: str, *, project: str = "default"
) -> dict[str, Any]:
    return {
        "apiVersion": API,
        "kind": "Application",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "project": project,
            "source": {"repoURL": repo_url, "path": path, "targetRevision": "main"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "default"},
            "syncPolicy": {"automated": {"prune": True}},
        },
    }


ESCALATION = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "ClusterRoleBinding",
    "metadata": {"name": "tenant-admin"},
    "roleRef": {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": "cluster-admin",
    },
    "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": "apps-other"}],
}


async def _namespaces(rt: Runtime, *names: str) -> None:
    for name in names:
        await rt.control_plane.create(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        )


async def _conditions(rt: Runtime, name: str, namespace: str) -> list[dict[str, Any]]:
    obj = await rt.control_plane.get(API, "Application", name, namespace)
    status = obj.get("status") or {}
    return list(status.get("conditions") or [])


async def _absent(rt: Runtime, api_version: str, kind: str, name: str, namespace: str = "") -> bool:
    try:
        await rt.control_plane.get(api_version, kind, name, namespace)
    except NotFound:
        return True
    return False


async def test_an_app_outside_its_projects_source_namespaces_is_refused_by_the_workers(
    runtime: Runtime, git_repo: GitRepo, pipeline_workers: list[Worker]
) -> None:
    child = _application("planted", CONTROL, git_repo.url, "child")
    git_repo.commit(
        {
            "escape/rbac.yaml": manifests(ESCALATION),
            "escape/app.yaml": manifests(child),
            "child/config.yaml": manifests(
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "planted"}}
            ),
        }
    )
    await _namespaces(runtime, CONTROL, "apps-other")
    await runtime.control_plane.create(_application("escape", "apps-other", git_repo.url, "escape"))

    async def refused() -> list[str]:
        conditions = await _conditions(runtime, "escape", "apps-other")
        return [c["message"] for c in conditions if c["type"] == "InvalidSpecError"]

    messages = await eventually(refused, timeout=30, what="the InvalidSpecError condition")
    assert messages == [
        "application 'escape' in namespace 'apps-other' is not allowed to use project "
        "default; add the namespace to the project's sourceNamespaces"
    ]
    obj = await runtime.control_plane.get(API, "Application", "escape", "apps-other")
    assert obj["status"]["sync"]["status"] == "Unknown"
    assert "operationState" not in obj["status"]
    assert await _absent(
        runtime, "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "tenant-admin"
    )
    assert await _absent(runtime, API, "Application", "planted", CONTROL)
    assert (runtime.repos.stats.ls_remote, runtime.repos.stats.fetch) == (0, 0)


async def test_a_repository_the_project_does_not_list_is_refused_before_any_fetch(
    runtime: Runtime, git_repo: GitRepo, pipeline_workers: list[Worker]
) -> None:
    git_repo.commit(
        {
            "deploy/config.yaml": manifests(
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web"}}
            )
        }
    )
    await _namespaces(runtime, CONTROL)
    await runtime.control_plane.create(
        {
            "apiVersion": API,
            "kind": "AppProject",
            "metadata": {"name": "team", "namespace": CONTROL},
            "spec": {
                "sourceRepos": ["https://git.example/allowed/*"],
                "destinations": [{"server": "*", "namespace": "*"}],
            },
        }
    )

    async def project_registered() -> bool:
        return await runtime.apps.get_project(CONTROL, "team") is not None

    await eventually(project_registered, timeout=20, what="the project in the registry")
    await runtime.control_plane.create(
        _application("web", CONTROL, git_repo.url, "deploy", project="team")
    )

    async def refused() -> list[str]:
        conditions = await _conditions(runtime, "web", CONTROL)
        return [c["message"] for c in conditions if c["type"] == "InvalidSpecError"]

    messages = await eventually(refused, timeout=30, what="the InvalidSpecError condition")
    assert messages == [f"application repo {git_repo.url} is not permitted in project 'team'"]
    assert (runtime.repos.stats.ls_remote, runtime.repos.stats.fetch) == (0, 0)
    assert await _absent(runtime, "v1", "ConfigMap", "web", "default")

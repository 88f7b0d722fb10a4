"""A Kustomize app among the real workers: an overlay with Application overrides goes from
nothing to Synced + Healthy, and what is live is what the build produced."""

from typing import Any

from app.runtime.runtime import Runtime
from app.runtime.worker import Worker
from tests.integration.workers.compare.conftest import NAMESPACE, deployment
from tests.support.gitrepo import GitRepo, manifests
from tests.support.kustomize import needs_kustomize
from tests.support.waiting import eventually


async def application_status(rt: Runtime) -> dict[str, Any]:
    obj = await rt.control_plane.get("argoproj.io/v1alpha1", "Application", "shop", NAMESPACE)
    status: dict[str, Any] = obj.get("status") or {}
    return status


@needs_kustomize
async def test_a_kustomize_app_goes_from_nothing_to_synced_and_healthy(
    runtime: Runtime, git_repo: GitRepo, pipeline_workers: list[Worker]
) -> None:
    commit = git_repo.commit(
        {
            "base/kustomization.yaml": "resources: [web.yaml]\n",
            "base/web.yaml": manifests(deployment("web", "nginx:1.25")),
            "overlays/prod/kustomization.yaml": "resources: [../../base]\nnameSuffix: -prod\n",
        }
    )
    await runtime.control_plane.create(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    )
    await runtime.control_plane.create(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": "shop", "namespace": NAMESPACE},
            "spec": {
                "project": "default",
                "source": {
                    "repoURL": git_repo.url,
                    "path": "overlays/prod",
                    "targetRevision": "main",
                    "kustomize": {"namePrefix": "shop-", "images": ["nginx:1.27"]},
                },
                "destination": {
                    "server": "https://kubernetes.default.svc",
                    "namespace": "default",
                },
                "syncPolicy": {"automated": {"prune": True}},
            },
        }
    )

    async def synced_and_healthy() -> dict[str, Any] | None:
        status = await application_status(runtime)
        sync, health = status.get("sync") or {}, status.get("health") or {}
        done = sync.get("status") == "Synced" and health.get("status") == "Healthy"
        return status if done else None

    status = await eventually(synced_and_healthy, timeout=30, what="Synced + Healthy")
    assert status is not None
    assert status["sync"]["revision"] == commit
    assert status["sourceType"] == "Kustomize"
    assert [(r["kind"], r["name"]) for r in status["resources"]] == [
        ("Deployment", "shop-web-prod")
    ]
    live = await runtime.control_plane.get("apps/v1", "Deployment", "shop-web-prod", "default")
    (container,) = live["spec"]["template"]["spec"]["containers"]
    assert container["image"] == "nginx:1.27"

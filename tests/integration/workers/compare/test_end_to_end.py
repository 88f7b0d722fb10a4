"""The compare stage among the real workers: an automated app goes from nothing to Synced +
Healthy, and drift on it is reported OutOfSync without selfHeal."""

from typing import Any

from app.metrics import REGISTRY
from app.model.health import HealthStatusCode
from app.model.identity import AppRef
from app.model.sync import SyncStatusCode
from app.runtime.runtime import Runtime
from app.runtime.worker import Worker
from tests.integration.workers.compare.conftest import NAMESPACE, deployment
from tests.support.gitrepo import GitRepo, manifests
from tests.support.waiting import eventually

PIPELINE_STAGES = ("refresh", "render", "compare", "sync")
REF = AppRef(NAMESPACE, "guestbook")


async def create_app(rt: Runtime, repo_url: str, automated: dict[str, Any]) -> None:
    await rt.control_plane.create(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    )
    await rt.control_plane.create(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": "guestbook", "namespace": NAMESPACE},
            "spec": {
                "project": "default",
                "source": {"repoURL": repo_url, "path": "deploy", "targetRevision": "main"},
                "destination": {
                    "server": "https://kubernetes.default.svc",
                    "namespace": "default",
                },
                "syncPolicy": {"automated": automated},
            },
        }
    )


async def application_status(rt: Runtime) -> dict[str, Any]:
    obj = await rt.control_plane.get("argoproj.io/v1alpha1", "Application", "guestbook", NAMESPACE)
    status: dict[str, Any] = obj.get("status") or {}
    return status


METRICS = [
    *(("sluice_reconcile_duration_seconds_count", {"stage": s}) for s in PIPELINE_STAGES),
    ("sluice_git_fetch_duration_seconds_count", {"op": "ls_remote"}),
    ("sluice_git_fetch_duration_seconds_count", {"op": "fetch"}),
    ("sluice_render_duration_seconds_count", {"source_type": "Directory"}),
]


def observations() -> list[float]:
    return [REGISTRY.get_sample_value(name, labels) or 0.0 for name, labels in METRICS]


async def test_an_automated_app_goes_from_nothing_to_synced_and_healthy(
    runtime: Runtime, git_repo: GitRepo, pipeline_workers: list[Worker]
) -> None:
    before = observations()
    commit = git_repo.commit(
        {
            "deploy/web.yaml": manifests(deployment("web", "nginx:1.25")),
            "deploy/config.yaml": manifests(
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web"}}
            ),
        }
    )
    await create_app(runtime, git_repo.url, {"prune": True})

    async def synced_and_healthy() -> dict[str, Any] | None:
        status = await application_status(runtime)
        sync, health = status.get("sync") or {}, status.get("health") or {}
        done = sync.get("status") == "Synced" and health.get("status") == "Healthy"
        return status if done else None

    status = await eventually(synced_and_healthy, timeout=30, what="Synced + Healthy")
    assert status is not None
    assert status["sync"]["revision"] == commit
    assert status["operationState"]["phase"] == "Succeeded"
    assert {(r["kind"], r["name"]) for r in status["resources"]} == {
        ("Deployment", "web"),
        ("ConfigMap", "web"),
    }
    stored = await runtime.status.read_status(REF)
    assert stored is not None
    assert stored.status.sync.status is SyncStatusCode.SYNCED
    assert stored.status.health.status is HealthStatusCode.HEALTHY
    observed = {
        f"{name}{labels}": after - earlier
        for (name, labels), after, earlier in zip(METRICS, observations(), before, strict=True)
    }
    assert all(count >= 1 for count in observed.values()), observed


async def test_drift_without_self_heal_stays_out_of_sync(
    runtime: Runtime, git_repo: GitRepo, pipeline_workers: list[Worker]
) -> None:
    git_repo.commit({"deploy/web.yaml": manifests(deployment("web", "nginx:1.25"))})
    await create_app(runtime, git_repo.url, {"prune": True})

    async def synced() -> bool:
        return ((await application_status(runtime)).get("sync") or {}).get("status") == "Synced"

    await eventually(synced, timeout=30, what="the first sync")
    await runtime.control_plane.patch(
        "apps/v1",
        "Deployment",
        "web",
        {"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:2"}]}}}},
        namespace="default",
    )

    async def out_of_sync() -> bool:
        stored = await runtime.status.read_status(REF)
        return stored is not None and stored.status.sync.status is SyncStatusCode.OUT_OF_SYNC

    await eventually(out_of_sync, timeout=20, what="the drift to be reported")
    stored = await runtime.status.read_status(REF)
    assert stored is not None
    assert [(r.name, r.status) for r in stored.status.resources] == [
        ("web", SyncStatusCode.OUT_OF_SYNC)
    ]
    live = await runtime.control_plane.get("apps/v1", "Deployment", "web", "default")
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:2"

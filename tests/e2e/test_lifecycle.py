"""An app's life as a user lives it: create, change, remove, empty (issue 4, acceptance 1).

The Application is Argo CD YAML applied with kubectl; commits reach it through the poller,
as in production; what is asserted is what `kubectl get` shows: the objects in the
destination namespace and the status written back to the Application.
"""

from typing import Any

import pytest

from app.bus.subjects import EventType
from app.model.resource import KubeObject
from tests.e2e.manifests import application, as_yaml, config_map, deployment, service
from tests.e2e.pipeline import Pipeline, operation_done, resource
from tests.support.gitrepo import GitRepo
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

NAMESPACE = "shop"
CYCLE_EVENTS = (
    EventType.OUT_OF_SYNC,
    EventType.OPERATION_STARTED,
    EventType.OPERATION_SUCCEEDED,
    EventType.SYNCED,
)
"""What the event stream tells of each commit an automated app syncs. The order is fixed
but for the last two: the comparison that sees the resources synced and the sync worker
finishing the operation are two stages, and either may tell first."""


def told_in_order(told: list[str]) -> bool:
    """The cycle's events, each once: out-of-sync, then operation-started, then the rest."""
    out, started, succeeded, synced = (e.value for e in CYCLE_EVENTS)
    return sorted(told) == sorted(e.value for e in CYCLE_EVENTS) and (
        told.index(out) < told.index(started) < min(told.index(succeeded), told.index(synced))
    )


def web(image: str = "nginx:1.27") -> dict[str, str]:
    """The app's directory: a Deployment, its Service and a ConfigMap."""
    return {
        "deploy/web.yaml": as_yaml(deployment("web", image), service("web")),
        "deploy/config.yaml": as_yaml(config_map("web-config", colour="blue")),
    }


def image_of(deployment: KubeObject | None) -> str:
    assert deployment is not None, "the Deployment is gone"
    image: str = deployment["spec"]["template"]["spec"]["containers"][0]["image"]
    return image


async def test_a_new_app_syncs_and_an_image_change_rolls_out(
    pipeline: Pipeline, git_repo: GitRepo
) -> None:
    first = git_repo.commit(web("nginx:1.27"))
    await pipeline.apply(
        application("web", git_repo.url, path="deploy", namespace=NAMESPACE, automated={})
    )

    status = await pipeline.wait_synced("web", first)
    assert {(r["kind"], r["name"], r["status"]) for r in status["resources"]} == {
        ("Deployment", "web", "Synced"),
        ("Service", "web", "Synced"),
        ("ConfigMap", "web-config", "Synced"),
    }
    assert status["operationState"]["phase"] == "Succeeded"
    live = await pipeline.live("apps/v1", "Deployment", "web", NAMESPACE)
    assert image_of(live) == "nginx:1.27"

    second = git_repo.commit(web("nginx:1.28"))
    status = await pipeline.wait_synced("web", second)
    assert status["operationState"]["syncResult"]["revision"] == second
    live = await pipeline.live("apps/v1", "Deployment", "web", NAMESPACE)
    assert image_of(live) == "nginx:1.28"
    assert [h["revision"] for h in status["history"]] == [first, second]

    async def both_cycles_told() -> bool:
        told = [
            (kind.value, data["revision"])
            for kind, data in await pipeline.events("web")
            if kind in CYCLE_EVENTS
        ]
        return all(
            told_in_order([kind for kind, revision in told if revision == commit])
            for commit in (first, second)
        )

    await eventually(both_cycles_told, timeout=10, what="each commit's cycle on the event stream")


async def deploy_web(pipeline: Pipeline, git_repo: GitRepo, *, prune: bool) -> str:
    """Commit the app, apply its Application with automated sync, wait for it; the commit."""
    commit = git_repo.commit(web())
    automated = {"prune": prune}
    await pipeline.apply(
        application("web", git_repo.url, path="deploy", namespace=NAMESPACE, automated=automated)
    )
    await pipeline.wait_synced("web", commit)
    return commit


async def test_with_prune_on_a_removed_resource_is_pruned(
    pipeline: Pipeline, git_repo: GitRepo
) -> None:
    await deploy_web(pipeline, git_repo, prune=True)

    second = git_repo.commit({"deploy/config.yaml": None})

    status = await pipeline.wait_synced("web", second)
    assert resource(status, "ConfigMap", "web-config") is None
    assert await pipeline.live("v1", "ConfigMap", "web-config", NAMESPACE) is None
    results = status["operationState"]["syncResult"]["resources"]
    pruned = next(r for r in results if r["name"] == "web-config")
    assert (pruned["kind"], pruned["status"]) == ("ConfigMap", "Pruned")


async def test_with_prune_off_a_removed_resource_stays_and_the_app_is_out_of_sync(
    pipeline: Pipeline, git_repo: GitRepo
) -> None:
    first = await deploy_web(pipeline, git_repo, prune=False)

    second = git_repo.commit({"deploy/config.yaml": None})

    def needs_pruning(status: dict[str, Any]) -> bool:
        sync = status.get("sync") or {}
        entry = resource(status, "ConfigMap", "web-config") or {}
        return (
            sync.get("status") == "OutOfSync"
            and sync.get("revision") == second
            and entry.get("requiresPruning") is True
        )

    await pipeline.wait_status("web", needs_pruning, what="OutOfSync, web-config to prune")
    reason = (
        "Skipping auto-sync: need to prune extra resources only but automated prune is disabled"
    )

    async def skipped() -> bool:
        return any(
            kind is EventType.AUTO_SYNC_SKIPPED
            and data.get("reason") == reason
            and data.get("revision") == second
            for kind, data in await pipeline.events("web")
        )

    await eventually(skipped, timeout=10, what="auto-sync skipped at the new revision")
    status = await pipeline.status("web")
    assert needs_pruning(status) and operation_done(status)
    assert status["operationState"]["syncResult"]["revision"] == first
    assert await pipeline.live("v1", "ConfigMap", "web-config", NAMESPACE) is not None


async def test_an_emptied_directory_never_wipes_the_app(
    pipeline: Pipeline, git_repo: GitRepo
) -> None:
    first = await deploy_web(pipeline, git_repo, prune=True)

    emptied = git_repo.commit(
        {"deploy/web.yaml": None, "deploy/config.yaml": None, "deploy/README.md": "moved away\n"}
    )
    wipe = f"Skipping sync attempt to [{emptied}]: auto-sync will wipe out all resources"

    def refused(status: dict[str, Any]) -> bool:
        conditions = status.get("conditions") or []
        return any(c.get("type") == "SyncError" and c.get("message") == wipe for c in conditions)

    status = await pipeline.wait_status("web", refused, what="the SyncError refusing to wipe")
    assert status["sync"]["status"] == "OutOfSync"
    assert all(r.get("requiresPruning") for r in status["resources"])
    assert status["operationState"]["syncResult"]["revision"] == first
    for api_version, kind, name in [
        ("apps/v1", "Deployment", "web"),
        ("v1", "Service", "web"),
        ("v1", "ConfigMap", "web-config"),
    ]:
        assert await pipeline.live(api_version, kind, name, NAMESPACE) is not None, name

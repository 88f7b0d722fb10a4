"""Kubernetes Events on the Application (issue 12): what `kubectl get events` shows.

An automated app with self-heal syncs, drifts (its ConfigMap deleted with kubectl) and
heals. The Events are Argo CD's reasons and messages, on the Application, and a repeated
message is one Event whose count went up, not a second object.
"""

import json
from typing import Any

import pytest

from tests.e2e.manifests import CONTROL, application, as_yaml, config_map
from tests.e2e.pipeline import Pipeline
from tests.support.fixtures_cluster import Kubectl
from tests.support.gitrepo import GitRepo
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

NAMESPACE = "events-demo"


async def events_of(kubectl: Kubectl, app: str) -> dict[tuple[str, str], dict[str, Any]]:
    """(reason, message) -> Event, for every Event on the Application `app`."""
    listed = json.loads((await kubectl("get", "events", "-n", CONTROL, "-o", "json")).stdout)
    found = {}
    for event in listed["items"]:
        involved = event.get("involvedObject") or {}
        if (involved.get("kind"), involved.get("name")) == ("Application", app):
            found[(event["reason"], event["message"])] = event
    return found


async def test_kubectl_shows_argo_cd_events_counted_per_message(
    pipeline: Pipeline, git_repo: GitRepo, kubectl: Kubectl
) -> None:
    rev = git_repo.commit({"deploy/config.yaml": as_yaml(config_map("settings", colour="blue"))})
    await pipeline.apply(
        application(
            "web", git_repo.url, path="deploy", namespace=NAMESPACE, automated={"selfHeal": True}
        )
    )
    await pipeline.wait_synced("web", rev, timeout=60)
    uid = (await pipeline.application("web"))["metadata"]["uid"]
    first_cycle = {
        ("ResourceCreated", "created application"),
        ("OperationStarted", f"Initiated automated sync to '{rev}'"),
        ("OperationCompleted", f"Sync operation to {rev} succeeded"),
        ("ResourceUpdated", "Updated sync status: OutOfSync -> Synced"),
    }

    async def told() -> dict[tuple[str, str], dict[str, Any]] | None:
        found = await events_of(kubectl, "web")
        return found if first_cycle <= set(found) else None

    found = await eventually(told, timeout=30, what="the first sync's Events")
    for key in first_cycle:
        event = found[key]
        assert event["involvedObject"]["uid"] == uid
        assert event["type"] == "Normal" and event["count"] == 1
    assert any(m.startswith("Updated health status: ") for _, m in found), found.keys()

    await kubectl("delete", "configmap", "settings", "-n", NAMESPACE)
    healed = f"Partial sync operation to {rev} succeeded"

    async def counted() -> dict[tuple[str, str], dict[str, Any]] | None:
        found = await events_of(kubectl, "web")
        synced = found.get(("ResourceUpdated", "Updated sync status: OutOfSync -> Synced"))
        done = ("OperationCompleted", healed) in found
        return found if done and synced is not None and synced["count"] == 2 else None

    found = await eventually(counted, timeout=60, what="the self-heal counted on the same Event")
    started = found[("OperationStarted", f"Initiated automated sync to '{rev}'")]
    assert started["count"] == 2
    assert started["lastTimestamp"] >= started["firstTimestamp"]
    table = (await kubectl("get", "events", "-n", CONTROL)).stdout
    assert "OperationCompleted" in table and "application/web" in table

    await kubectl("delete", "application", "web", "-n", CONTROL)

    async def deleted() -> dict[str, Any] | None:
        return (await events_of(kubectl, "web")).get(("ResourceDeleted", "deleted application"))

    event = await eventually(deleted, timeout=30, what="the deletion's Event")
    assert event["count"] == 1 and event["involvedObject"]["uid"] == uid

"""Every process serves metrics an Argo CD dashboard understands (issue 15).

Each worker runs as `sluice worker <name>` and the API as `sluice api`, each with its own
metrics port. One automated app is applied and syncs; then every process's port is
scraped without credentials and the series the standard Argo CD Grafana dashboard
(argo-cd's examples/dashboard.json) queries are checked: names, types, label names and
label values, each on the process that does that work.
"""

import asyncio
from collections.abc import Iterable
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from app.embedded.process import free_port
from app.runtime.runtime import Runtime
from tests.e2e.manifests import CONTROL, application, as_yaml, deployment
from tests.e2e.pipeline import APPLICATION, operation_done, synced_healthy
from tests.e2e.processes import Processes
from tests.support.fixtures_cluster import Kubectl
from tests.support.gitrepo import GitRepo
from tests.support.waiting import eventually
from workers import registry

pytestmark = [pytest.mark.kubectl, pytest.mark.slow, pytest.mark.timeout(360)]

IN_CLUSTER = "https://kubernetes.default.svc"

EVERY_PROCESS = {
    "process_cpu_seconds_total": set(),
    "process_start_time_seconds": set(),
    "argocd_redis_request_total": {"initiator", "failed"},
}
"""Series the dashboard reads from every component (its Redis panel sums them by `failed`)."""

BY_PROCESS: dict[str, dict[str, set[str]]] = {
    "watcher": {
        "argocd_app_info": {
            "namespace",
            "name",
            "project",
            "autosync_enabled",
            "repo",
            "dest_server",
            "dest_namespace",
            "sync_status",
            "health_status",
            "operation",
        },
        "argocd_cluster_info": {"server", "k8s_version", "name"},
        "argocd_cluster_api_resource_objects": {"server"},
        "argocd_cluster_api_resources": {"server"},
        "argocd_cluster_connection_status": {"server", "k8s_version"},
        "argocd_cluster_events_total": {"server", "group", "kind"},
        "workqueue_depth": {"name"},
        "argocd_app_k8s_request_total": {
            "namespace",
            "name",
            "project",
            "server",
            "response_code",
            "verb",
            "resource_kind",
            "resource_namespace",
            "dry_run",
        },
    },
    "compare": {
        "argocd_app_reconcile_bucket": {"namespace", "dest_server", "le"},
        "argocd_app_reconcile_count": {"namespace", "dest_server"},
    },
    "sync": {
        "argocd_app_sync_total": {
            "namespace",
            "name",
            "project",
            "dest_server",
            "phase",
            "dry_run",
        },
        "argocd_app_k8s_request_total": {"server", "verb", "resource_kind", "response_code"},
    },
    "render": {
        "argocd_git_request_total": {"repo", "request_type"},
        "argocd_git_request_duration_seconds_bucket": {"repo", "request_type", "le"},
    },
    "poller": {
        "argocd_git_request_total": {"repo", "request_type"},
    },
}
"""Per process kind: each series the dashboard queries there, with the labels it needs."""


async def scrape(port: int) -> dict[str, list[Sample]]:
    """Every sample on one metrics port, by sample name, fetched without credentials."""
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}/metrics") as response,
    ):
        assert response.status == 200
        text = await response.text()
    samples: dict[str, list[Sample]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples.setdefault(sample.name, []).append(sample)
    return samples


def having(samples: Iterable[Sample], **labels: str) -> list[Sample]:
    return [s for s in samples if all(s.labels.get(k) == v for k, v in labels.items())]


async def test_every_process_serves_the_series_an_argo_cd_dashboard_queries(
    runtime: Runtime, processes: Processes, kubectl: Kubectl, git_repo: GitRepo, tmp_path: Path
) -> None:
    await runtime.control_plane.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": CONTROL}}
    )
    ports = {name: free_port("127.0.0.1") for name in (*registry.WORKERS, "api")}

    def env(name: str) -> dict[str, str]:
        return {"SLUICE_METRICS_PORT": str(ports[name]), "SLUICE_METRICS_ADDRESS": "127.0.0.1"}

    api_env = env("api") | {"SLUICE_API_PORT": str(free_port("127.0.0.1"))}
    await asyncio.gather(
        *(processes.start(name, 0, env=env(name)) for name in registry.WORKERS),
        processes.start("api", 0, env=api_env, command=("api",)),
    )
    commit = git_repo.commit({"guestbook/app.yaml": as_yaml(deployment("guestbook"))})
    manifest = tmp_path / "app.yaml"
    manifest.write_text(
        as_yaml(
            application(
                "guestbook",
                git_repo.url,
                path="guestbook",
                namespace="web",
                automated={"prune": True},
            )
        )
    )
    await kubectl("apply", "-f", str(manifest))

    async def synced() -> bool:
        app = await runtime.control_plane.get(APPLICATION, "Application", "guestbook", CONTROL)
        status = app.get("status") or {}
        return synced_healthy(status, commit) and operation_done(status)

    await eventually(synced, timeout=120, interval=0.5, what="guestbook Synced and Healthy")

    async def app_info_shows_it() -> dict[str, list[Sample]] | None:
        samples = await scrape(ports["watcher"])
        found = having(samples.get("argocd_app_info", []), name="guestbook", sync_status="Synced")
        return samples if found and found[0].labels["health_status"] == "Healthy" else None

    watcher = await eventually(app_info_shows_it, timeout=60, what="argocd_app_info on the watcher")
    scraped = {name: await scrape(port) for name, port in ports.items()}
    scraped["watcher"] = watcher

    for name, samples in scraped.items():
        for series, labels in (EVERY_PROCESS | BY_PROCESS.get(name, {})).items():
            assert samples.get(series), f"{name} exports no {series}"
            assert any(labels <= set(s.labels) for s in samples[series]), (
                f"{name}'s {series} lacks labels {labels - set(samples[series][0].labels)}"
            )

    (info,) = having(watcher["argocd_app_info"], name="guestbook")
    assert info.labels == {
        "namespace": CONTROL,
        "name": "guestbook",
        "project": "default",
        "autosync_enabled": "true",
        "repo": info.labels["repo"],
        "dest_server": IN_CLUSTER,
        "dest_namespace": "web",
        "sync_status": "Synced",
        "health_status": "Healthy",
        "operation": "",
    }
    assert info.labels["repo"].startswith("file://") and info.value == 1
    (connected,) = having(watcher["argocd_cluster_connection_status"], server=IN_CLUSTER)
    assert connected.value == 1
    (cached,) = having(watcher["argocd_cluster_api_resource_objects"], server=IN_CLUSTER)
    assert cached.value > 0
    assert having(watcher["argocd_cluster_info"], server=IN_CLUSTER, name="in-cluster")
    assert {s.labels["name"] for s in watcher["workqueue_depth"]} == {
        "app_reconciliation_queue",
        "app_operation_processing_queue",
    }
    sync = scraped["sync"]["argocd_app_sync_total"]
    assert having(
        sync, name="guestbook", phase="Succeeded", dest_server=IN_CLUSTER, dry_run="false"
    )
    applies = having(
        scraped["sync"]["argocd_app_k8s_request_total"],
        name="guestbook",
        resource_kind="deployments",
        resource_namespace="web",
    )
    assert applies and all(s.labels["server"] for s in applies)
    reconciles = having(scraped["compare"]["argocd_app_reconcile_count"], dest_server=IN_CLUSTER)
    assert reconciles and reconciles[0].value >= 1
    for name in ("render", "poller"):
        assert having(scraped[name]["argocd_git_request_total"], request_type="ls-remote"), name
    assert having(scraped["render"]["argocd_git_request_total"], request_type="fetch")
    for name, samples in scraped.items():
        assert having(samples["argocd_redis_request_total"], initiator=f"sluice-{name}"), name
        for series in ("argocd_app_info", "argocd_cluster_info"):
            assert name == "watcher" or not samples.get(series), (
                f"{name} exports {series}: a dashboard's sum would count every app twice"
            )

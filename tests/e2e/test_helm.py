"""Helm apps through the whole pipeline: a chart in Git and a chart with a `$ref` values
file reach Synced + Healthy, their Helm hooks run in Argo CD's phases and waves, and a
value changed in Git moves the app to the new revision."""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.manifests import CONTROL, IN_CLUSTER
from tests.e2e.pipeline import Changes, Pipeline, operation_done
from tests.support.gitrepo import GitRepo
from tests.support.helm_charts import shop_chart
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

NAMESPACE = "shop"


def helm_app(name: str, *sources: Mapping[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "project": "default",
        "destination": {"server": IN_CLUSTER, "namespace": NAMESPACE},
        "syncPolicy": {"automated": {}, "syncOptions": ["CreateNamespace=true"]},
    }
    if len(sources) == 1:
        spec["source"] = dict(sources[0])
    else:
        spec["sources"] = [dict(s) for s in sources]
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": CONTROL},
        "spec": spec,
    }


def synced_at(revisions: list[str]) -> Any:
    def probe(status: Mapping[str, Any]) -> bool:
        sync = status.get("sync") or {}
        found = sync.get("revisions") if len(revisions) > 1 else [sync.get("revision")]
        return (
            sync.get("status") == "Synced"
            and found == revisions
            and (status.get("health") or {}).get("status") == "Healthy"
            and operation_done(status)
        )

    return probe


def first_write(changes: Changes, resource: str, name: str) -> float:
    (when, _kind, _obj), *_ = changes.of(resource, name)
    return when


async def test_a_helm_app_syncs_with_its_hooks_in_phases_and_follows_git(
    pipeline: Pipeline, git_repo: GitRepo, changes: Changes
) -> None:
    first = git_repo.commit(shop_chart("charts/shop"))
    source = {"repoURL": git_repo.url, "path": "charts/shop", "targetRevision": "main"}
    await pipeline.apply(helm_app("web", source))

    status = await pipeline.wait_status(
        "web", synced_at([first]), what="Synced + Healthy", timeout=60
    )

    assert status["sourceType"] == "Helm"
    hooks = [
        (r["hookType"], r["kind"], r["name"], r["hookPhase"])
        for r in status["operationState"]["syncResult"]["resources"]
        if r.get("hookType")
    ]
    assert hooks == [
        ("PreSync", "Job", "web-shop-migrate", "Succeeded"),
        ("PostSync", "Job", "web-shop-smoke", "Succeeded"),
    ]
    migrate = first_write(changes, "jobs", "web-shop-migrate")
    config = first_write(changes, "configmaps", "web-shop")
    smoke = first_write(changes, "jobs", "web-shop-smoke")
    assert migrate < config < smoke
    assert {(r["kind"], r["name"]) for r in status["resources"]} >= {
        ("ConfigMap", "web-shop"),
        ("ConfigMap", "web-sub"),
        ("ConfigMap", "web-shop-crd-install"),
        ("CustomResourceDefinition", "widgets.example.com"),
    }
    assert changes.of("pods", "web-shop-test") == []

    async def migrate_deleted() -> bool:
        return await pipeline.live("batch/v1", "Job", "web-shop-migrate", NAMESPACE) is None

    await eventually(migrate_deleted, timeout=30, what="hook-succeeded deletes the migrate Job")

    second = git_repo.commit({"charts/shop/values.yaml": "replicas: 1\ncolour: green\n"})
    await pipeline.wait_status("web", synced_at([second]), what="the new revision", timeout=60)
    live = await pipeline.live("v1", "ConfigMap", "web-shop", NAMESPACE)
    assert live is not None and live["data"]["colour"] == "green"


async def test_a_multi_source_app_takes_values_from_its_ref_source(
    pipeline: Pipeline, git_repo: GitRepo, tmp_path: Path
) -> None:
    chart = git_repo.commit(shop_chart("charts/shop"))
    values = GitRepo.create(tmp_path / "values")
    try:
        first = values.commit({"prod/values.yaml": "colour: gold\n"})
        chart_source = {
            "repoURL": git_repo.url,
            "path": "charts/shop",
            "targetRevision": "main",
            "helm": {"valueFiles": ["$values/prod/values.yaml"], "releaseName": "multi"},
        }
        ref_source = {"repoURL": values.url, "targetRevision": "main", "ref": "values"}
        await pipeline.apply(helm_app("multi", chart_source, ref_source))

        status = await pipeline.wait_status(
            "multi", synced_at([chart, first]), what="Synced + Healthy", timeout=60
        )
        assert status["sourceTypes"] == ["Helm", ""]
        live = await pipeline.live("v1", "ConfigMap", "multi-shop", NAMESPACE)
        assert live is not None and live["data"]["colour"] == "gold"

        second = values.commit({"prod/values.yaml": "colour: silver\n"})
        status = await pipeline.wait_status(
            "multi", synced_at([chart, second]), what="the ref source's new commit", timeout=60
        )
    finally:
        values.close()
    live = await pipeline.live("v1", "ConfigMap", "multi-shop", NAMESPACE)
    assert live is not None and live["data"]["colour"] == "silver"
    assert status["history"][-1]["revisions"] == [chart, second]

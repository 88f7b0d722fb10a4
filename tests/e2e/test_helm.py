"""A Helm app through the whole pipeline in this process: its Helm hooks run in Argo CD's
phases and waves (timed by the writes the cluster stored), and a value changed in Git
moves the app to the new revision. The same chart, alone and with a `$ref` values file,
goes through `sluice up` in tests/e2e/test_sources_up.py."""

from collections.abc import Mapping
from typing import Any

import pytest

from tests.e2e.manifests import CONTROL, IN_CLUSTER
from tests.e2e.pipeline import Changes, Pipeline
from tests.support.gitrepo import GitRepo
from tests.support.helm_charts import shop_chart
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

NAMESPACE = "shop"


def helm_app(name: str, source: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": CONTROL},
        "spec": {
            "project": "default",
            "source": dict(source),
            "destination": {"server": IN_CLUSTER, "namespace": NAMESPACE},
            "syncPolicy": {"automated": {}, "syncOptions": ["CreateNamespace=true"]},
        },
    }


def first_write(changes: Changes, resource: str, name: str) -> float:
    (when, _kind, _obj), *_ = changes.of(resource, name)
    return when


async def test_a_helm_app_syncs_with_its_hooks_in_phases_and_follows_git(
    pipeline: Pipeline, git_repo: GitRepo, changes: Changes
) -> None:
    first = git_repo.commit(shop_chart("charts/shop"))
    source = {"repoURL": git_repo.url, "path": "charts/shop", "targetRevision": "main"}
    await pipeline.apply(helm_app("web", source))

    status = await pipeline.wait_synced("web", first, timeout=60)

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
    await pipeline.wait_synced("web", second, timeout=60)
    live = await pipeline.live("v1", "ConfigMap", "web-shop", NAMESPACE)
    assert live is not None and live["data"]["colour"] == "green"

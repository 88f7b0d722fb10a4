"""A second cluster registered by an Argo CD cluster Secret (applied with kubectl, as an
operator would): apps addressed to it by name and by server sync there (hooks included)
and nowhere else, its drift is seen by the watcher (after a credential rotation),
deleting the Secret makes them report the unknown destination, registering the cluster
again brings them back, and deleting an app deletes its resources there. A Secret's
namespaces limit what is watched and deployed there."""

import contextlib
from collections.abc import Callable
from typing import Any

import pytest

from app.cluster import NotFound
from app.localcluster import LocalCluster
from app.model.app_spec import ApplicationDestination
from tests.e2e.manifests import application, as_yaml, config_map, deployment, service
from tests.e2e.pipeline import Pipeline, resource
from tests.support.cluster_secrets import cluster_secret
from tests.support.gitrepo import GitRepo
from tests.support.logscan import known_secret
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

Factory = Callable[..., contextlib.AbstractAsyncContextManager[LocalCluster]]
TOKEN = known_secret("second-cluster-token-0123456789", "a cluster bearer token")


def presync_job(name: str) -> dict[str, Any]:
    """A PreSync hook: a Job the local cluster completes."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "annotations": {"argocd.argoproj.io/hook": "PreSync"}},
        "spec": {
            "backoffLimit": 0,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox", "command": ["true"]}],
                }
            },
        },
    }


def to_second(app: dict[str, Any], **destination: str) -> dict[str, Any]:
    app["spec"]["destination"] = {
        **destination,
        "namespace": app["spec"]["destination"]["namespace"],
    }
    return app


def names(cluster: LocalCluster, resource_name: str, namespace: str) -> set[str]:
    return {o["metadata"]["name"] for o in cluster.objects(resource_name, namespace)}


def reports_unknown(status: dict[str, Any], text: str) -> bool:
    return any(text in str(c.get("message")) for c in status.get("conditions") or [])


async def test_apps_sync_to_a_cluster_registered_by_a_secret_and_lose_it_with_the_secret(
    pipeline: Pipeline,
    git_repo: GitRepo,
    local_cluster: LocalCluster,
    local_cluster_factory: Factory,
) -> None:
    commit = git_repo.commit(
        {
            "web/app.yaml": as_yaml(deployment("web"), service("web"), presync_job("migrate")),
            "web/config.yaml": as_yaml(config_map("web-config", colour="blue")),
            "billing/config.yaml": as_yaml(config_map("billing-config", tier="gold")),
        }
    )
    async with local_cluster_factory() as second:
        await pipeline.apply(
            cluster_secret(
                "second-cluster", name="second", server=second.url, config={"bearerToken": TOKEN}
            )
        )
        web = application("web", git_repo.url, path="web", namespace="shop", automated={})
        billing = application(
            "billing", git_repo.url, path="billing", namespace="billing", automated={}
        )
        billing["metadata"]["finalizers"] = ["resources-finalizer.argocd.argoproj.io"]
        await pipeline.apply(to_second(web, name="second"), to_second(billing, server=second.url))

        status = await pipeline.wait_synced("web", commit)
        assert {(r["kind"], r["name"], r["status"]) for r in status["resources"]} == {
            ("Deployment", "web", "Synced"),
            ("Service", "web", "Synced"),
            ("ConfigMap", "web-config", "Synced"),
        }
        hooks = [
            (r["hookType"], r["kind"], r["name"], r["hookPhase"])
            for r in status["operationState"]["syncResult"]["resources"]
            if r.get("hookType")
        ]
        assert hooks == [("PreSync", "Job", "migrate", "Succeeded")]
        await pipeline.wait_synced("billing", commit)
        assert names(second, "jobs.batch", "shop") == {"migrate"}
        assert names(local_cluster, "jobs.batch", "shop") == set()
        assert names(second, "deployments.apps", "shop") == {"web"}
        assert "web-config" in names(second, "configmaps", "shop")
        assert "billing-config" in names(second, "configmaps", "billing")
        assert names(local_cluster, "deployments.apps", "shop") == set()
        assert names(local_cluster, "configmaps", "shop") == set()
        assert names(local_cluster, "configmaps", "billing") == set()

        rotated = {"bearerToken": "rotated-token-0123456789"}
        await pipeline.apply(
            cluster_secret("second-cluster", name="second", server=second.url, config=rotated)
        )

        async def rotation_in_force() -> bool:
            cluster = pipeline.rt.clusters.resolve(ApplicationDestination(name="second"))
            token: str = cluster.config.configuration.api_key["BearerToken"]
            return token.endswith("rotated-token-0123456789")

        await eventually(rotation_in_force, what="the rotated token in force")
        await pipeline.kubectl(
            "--kubeconfig",
            str(second.kubeconfig_path),
            "-n",
            "shop",
            "delete",
            "configmap",
            "web-config",
        )
        status = await pipeline.wait_status(
            "web",
            lambda s: (resource(s, "ConfigMap", "web-config") or {}).get("status") == "OutOfSync",
            what="the ConfigMap deleted in the second cluster seen as OutOfSync",
        )
        assert status["sync"]["status"] == "OutOfSync"

        await pipeline.kubectl("-n", "sluice", "delete", "secret", "second-cluster")
        for app in ("web", "billing"):
            await pipeline.wait_status(
                app,
                lambda s: reports_unknown(s, "is registered; use"),
                what="the unknown destination reported",
            )
        status = await pipeline.status("web")
        assert reports_unknown(status, "no cluster named 'second' is registered")
        status = await pipeline.status("billing")
        assert reports_unknown(status, f"no cluster with server '{second.url}' is registered")

        await pipeline.apply(
            cluster_secret(
                "second-cluster", name="second", server=second.url, config={"bearerToken": "new"}
            )
        )
        status = await pipeline.wait_synced("billing", commit)
        assert not reports_unknown(status, "is registered; use")

        await pipeline.kubectl("-n", "sluice", "delete", "application", "billing", "--wait=false")

        async def cascaded() -> bool:
            try:
                await pipeline.application("billing")
            except NotFound:
                return "billing-config" not in names(second, "configmaps", "billing")
            return False

        await eventually(cascaded, timeout=30, what="billing's resources deleted, then the app")


STRAY = """\
apiVersion: v1
kind: Namespace
metadata:
  name: other
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: stray
  namespace: other
  annotations:
    argocd.argoproj.io/tracking-id: "web:/ConfigMap:other/stray"
"""


async def test_a_secret_limited_to_namespaces_scopes_what_is_watched_and_deployed(
    pipeline: Pipeline, git_repo: GitRepo, local_cluster_factory: Factory
) -> None:
    commit = git_repo.commit({"web/config.yaml": as_yaml(config_map("web-config", colour="blue"))})
    async with local_cluster_factory() as second:
        kubeconfig = str(second.kubeconfig_path)
        await pipeline.kubectl("--kubeconfig", kubeconfig, "apply", "-f", "-", stdin=STRAY)
        await pipeline.apply(
            cluster_secret("second-cluster", name="second", server=second.url, namespaces="shop")
        )
        web = application("web", git_repo.url, path="web", namespace="shop", automated={})
        billing = application("billing", git_repo.url, path="web", namespace="billing")
        await pipeline.apply(to_second(web, name="second"), to_second(billing, name="second"))

        status = await pipeline.wait_synced("web", commit)
        assert [(r["kind"], r["namespace"], r["name"]) for r in status["resources"]] == [
            ("ConfigMap", "shop", "web-config")
        ]
        assert "web-config" in names(second, "configmaps", "shop")
        await pipeline.wait_status(
            "billing",
            lambda s: reports_unknown(s, "is limited to namespaces shop by cluster Secret"),
            what="the namespace outside the Secret's scope reported",
        )
        assert names(second, "configmaps", "billing") == set()

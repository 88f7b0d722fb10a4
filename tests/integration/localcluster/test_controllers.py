"""Simulated controllers and the API server's own reconcilers, seen through the API."""

import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import aiohttp
import pytest

from app.localcluster import LocalCluster
from tests.integration.localcluster.conftest import (
    DEPLOYMENTS,
    WIDGETS_CRD,
    Http,
    conditions,
    configmap,
    deployment,
)
from tests.support.waiting import eventually

Factory = Callable[..., AbstractAsyncContextManager[LocalCluster]]
FAIL = "localcluster.sluice.dev/fail"
NEVER_READY = "localcluster.sluice.dev/never-ready"


async def get(http: Http, path: str) -> dict[str, Any] | None:
    reply = await http.get(path)
    return reply.body if reply.status == 200 else None


async def test_deployment_becomes_available_after_the_delay(local_cluster_factory: Factory) -> None:
    delay = 0.3
    async with (
        local_cluster_factory(delay_seconds=delay) as cluster,
        aiohttp.ClientSession() as session,
    ):
        http = Http(session, cluster.url)
        started = time.monotonic()
        await http.ok("POST", DEPLOYMENTS, deployment(replicas=3))
        early = await get(http, f"{DEPLOYMENTS}/web")
        assert early is not None and conditions(early).get("Available", ("False", ""))[0] == "False"

        async def available() -> dict[str, Any] | None:
            obj = await get(http, f"{DEPLOYMENTS}/web")
            return obj if obj and conditions(obj).get("Available", ("", ""))[0] == "True" else None

        ready = await eventually(available, timeout=5, what="Deployment Available")
        assert time.monotonic() - started >= delay
        status = ready["status"]
        assert (
            status["replicas"],
            status["readyReplicas"],
            status["availableReplicas"],
            status["updatedReplicas"],
        ) == (3, 3, 3, 3)
        assert status["observedGeneration"] == ready["metadata"]["generation"]
        assert conditions(ready)["Progressing"] == ("True", "NewReplicaSetAvailable")
        pods = (await http.ok("GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb"))[
            "items"
        ]
        assert len(pods) == 3
        assert all(
            p["status"]["phase"] == "Running" and conditions(p)["Ready"][0] == "True" for p in pods
        )
        owners = {p["metadata"]["ownerReferences"][0]["kind"] for p in pods}
        assert owners == {"ReplicaSet"}


async def test_the_delay_can_change_at_run_time(local_cluster: LocalCluster, http: Http) -> None:
    local_cluster.timing.delay_seconds = 0.5
    started = time.monotonic()
    await http.ok("POST", DEPLOYMENTS, deployment(replicas=1))

    async def available() -> bool:
        obj = await get(http, f"{DEPLOYMENTS}/web")
        return obj is not None and conditions(obj).get("Available", ("", ""))[0] == "True"

    await eventually(available, timeout=5, what="Deployment Available")
    assert time.monotonic() - started >= 0.5


async def test_rollout_replaces_the_replicaset(local_cluster: LocalCluster, http: Http) -> None:
    await http.ok("POST", DEPLOYMENTS, deployment(replicas=2))
    changed = deployment(replicas=2)
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    await http.ok("PUT", f"{DEPLOYMENTS}/web", changed)

    async def rolled_out() -> bool:
        sets = {
            rs["spec"]["template"]["spec"]["containers"][0]["image"]: rs["spec"]["replicas"]
            for rs in local_cluster.objects("replicasets.apps")
        }
        pods = [p["spec"]["containers"][0]["image"] for p in local_cluster.objects("pods")]
        return sets == {"nginx:1": 0, "nginx:2": 2} and pods == ["nginx:2", "nginx:2"]

    await eventually(
        rolled_out, timeout=5, what="the new ReplicaSet scaled up and the old one down"
    )


async def test_job_completes(http: Http) -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "once"},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "c", "image": "busybox"}],
                }
            }
        },
    }
    await http.ok("POST", "/apis/batch/v1/namespaces/default/jobs", job)

    async def complete() -> dict[str, Any] | None:
        obj = await get(http, "/apis/batch/v1/namespaces/default/jobs/once")
        return (
            obj
            if obj and conditions(obj).get("Complete") == ("True", "CompletionsReached")
            else None
        )

    done = await eventually(complete, timeout=5, what="Job Complete")
    assert done["status"]["succeeded"] == 1 and done["status"]["completionTime"]
    pods = (await http.ok("GET", "/api/v1/namespaces/default/pods"))["items"]
    assert [p["status"]["phase"] for p in pods] == ["Succeeded"]


@pytest.mark.parametrize(
    ("resource", "body", "lever", "expected"),
    [
        pytest.param(
            "/apis/apps/v1/namespaces/default/deployments",
            deployment(name="broken"),
            FAIL,
            {
                "Progressing": ("False", "ProgressDeadlineExceeded"),
                "Available": ("False", "MinimumReplicasUnavailable"),
            },
            id="deployment-fail-ends-progress-deadline-exceeded",
        ),
        pytest.param(
            "/apis/batch/v1/namespaces/default/jobs",
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {"name": "broken"},
                "spec": {
                    "template": {
                        "spec": {
                            "restartPolicy": "Never",
                            "containers": [{"name": "c", "image": "busybox"}],
                        }
                    }
                },
            },
            FAIL,
            {"Failed": ("True", "BackoffLimitExceeded")},
            id="job-fail-ends-failed",
        ),
    ],
)
async def test_fail_lever(
    http: Http,
    resource: str,
    body: dict[str, Any],
    lever: str,
    expected: dict[str, tuple[str, str]],
) -> None:
    body["metadata"]["annotations"] = {lever: "true"}
    await http.ok("POST", resource, body)

    async def failed() -> bool:
        obj = await get(http, f"{resource}/broken")
        return obj is not None and all(conditions(obj).get(k) == v for k, v in expected.items())

    await eventually(failed, timeout=5, what=f"conditions {expected}")


async def test_failing_deployment_pods_crash_loop(local_cluster: LocalCluster, http: Http) -> None:
    await http.ok("POST", DEPLOYMENTS, deployment(replicas=1, annotations={FAIL: "true"}))

    async def crash_looping() -> bool:
        pods = local_cluster.objects("pods")
        states = [
            s["state"] for p in pods for s in (p.get("status") or {}).get("containerStatuses") or []
        ]
        return states == [
            {
                "waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": f"back-off restarting failed container (lever {FAIL})",
                }
            }
        ]

    await eventually(crash_looping, timeout=5, what="a CrashLoopBackOff pod")


async def test_never_ready_pods_run_but_stay_unready(
    local_cluster: LocalCluster, http: Http
) -> None:
    await http.ok("POST", DEPLOYMENTS, deployment(replicas=1, annotations={NEVER_READY: "true"}))

    async def running_unready() -> bool:
        pods = local_cluster.objects("pods")
        return (
            len(pods) == 1
            and pods[0]["status"]["phase"] == "Running"
            and conditions(pods[0])["Ready"][0] == "False"
        )

    await eventually(running_unready, timeout=5, what="a running, unready pod")
    obj = await get(http, f"{DEPLOYMENTS}/web")
    assert obj is not None
    assert conditions(obj)["Available"] == ("False", "MinimumReplicasUnavailable")
    assert conditions(obj)["Progressing"] == ("True", "ReplicaSetUpdated")


@pytest.mark.parametrize(
    ("path", "body", "done"),
    [
        pytest.param(
            "/apis/apps/v1/namespaces/default/statefulsets",
            {
                "metadata": {"name": "db"},
                "spec": {
                    "replicas": 2,
                    "serviceName": "db",
                    "selector": {"matchLabels": {"a": "db"}},
                    "template": {
                        "metadata": {"labels": {"a": "db"}},
                        "spec": {"containers": [{"name": "c", "image": "pg"}]},
                    },
                },
            },
            lambda s: s.get("readyReplicas") == 2 and s["currentRevision"] == s["updateRevision"],
            id="statefulset-ready",
        ),
        pytest.param(
            "/apis/apps/v1/namespaces/default/daemonsets",
            {
                "metadata": {"name": "agent"},
                "spec": {
                    "selector": {"matchLabels": {"a": "x"}},
                    "template": {
                        "metadata": {"labels": {"a": "x"}},
                        "spec": {"containers": [{"name": "c", "image": "i"}]},
                    },
                },
            },
            lambda s: s.get("numberAvailable") == s["desiredNumberScheduled"] == 1,
            id="daemonset-available",
        ),
        pytest.param(
            "/api/v1/namespaces/default/persistentvolumeclaims",
            {
                "metadata": {"name": "data"},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}},
                },
            },
            lambda s: (
                s
                == {
                    "phase": "Bound",
                    "accessModes": ["ReadWriteOnce"],
                    "capacity": {"storage": "1Gi"},
                }
            ),
            id="pvc-bound",
        ),
        pytest.param(
            "/api/v1/namespaces/default/services",
            {"metadata": {"name": "lb"}, "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}},
            lambda s: [i["ip"][:8] for i in s["loadBalancer"].get("ingress", [])] == ["192.0.2."],
            id="loadbalancer-address",
        ),
        pytest.param(
            "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
            {"metadata": {"name": "web"}, "spec": {"rules": [{"host": "example.com"}]}},
            lambda s: bool(s.get("loadBalancer", {}).get("ingress")),
            id="ingress-address",
        ),
    ],
)
async def test_status_controllers(
    http: Http, path: str, body: dict[str, Any], done: Callable[[dict[str, Any]], bool]
) -> None:
    created = await http.ok("POST", path, body)

    async def settled() -> bool:
        obj = await get(http, f"{path}/{created['metadata']['name']}")
        return obj is not None and done(obj.get("status") or {})

    await eventually(settled, timeout=5, what=f"{path} status")


async def two_pods_running(local_cluster: LocalCluster, http: Http) -> None:
    """Create Deployment `web` of two replicas and wait until its two Pods exist."""
    await http.ok("POST", DEPLOYMENTS, deployment(replicas=2))

    async def pods_up() -> bool:
        return len(local_cluster.objects("pods")) == 2

    await eventually(pods_up, timeout=5, what="two pods")


async def test_deleting_a_deployment_collects_its_replicasets_and_pods(
    local_cluster: LocalCluster, http: Http
) -> None:
    await two_pods_running(local_cluster, http)
    await http.ok("DELETE", f"{DEPLOYMENTS}/web")

    async def collected() -> bool:
        return not local_cluster.objects("replicasets.apps") and not local_cluster.objects("pods")

    await eventually(collected, timeout=5, what="ReplicaSets and Pods collected")


async def test_foreground_deletion_removes_the_owner_last(
    local_cluster: LocalCluster, http: Http
) -> None:
    await two_pods_running(local_cluster, http)
    pending = await http.ok("DELETE", f"{DEPLOYMENTS}/web", {"propagationPolicy": "Foreground"})
    assert pending["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert pending["metadata"]["deletionTimestamp"]

    async def owner_gone() -> bool:
        return (await http.get(f"{DEPLOYMENTS}/web")).status == 404

    await eventually(owner_gone, timeout=5, what="the Deployment removed after its dependents")
    assert local_cluster.objects("replicasets.apps") == [] and local_cluster.objects("pods") == []


async def test_orphan_deletion_keeps_dependents_without_the_owner(
    local_cluster: LocalCluster, http: Http
) -> None:
    await http.ok("POST", DEPLOYMENTS, deployment(replicas=1))

    async def has_replicaset() -> bool:
        return len(local_cluster.objects("replicasets.apps")) == 1

    await eventually(has_replicaset, timeout=5, what="a ReplicaSet")
    await http.ok("DELETE", f"{DEPLOYMENTS}/web?propagationPolicy=Orphan")

    async def orphaned() -> bool:
        sets = local_cluster.objects("replicasets.apps")
        gone = (await http.get(f"{DEPLOYMENTS}/web")).status == 404
        return gone and len(sets) == 1 and "ownerReferences" not in sets[0]["metadata"]

    await eventually(orphaned, timeout=5, what="the ReplicaSet released and the Deployment gone")


async def test_deleting_a_namespace_empties_it_then_removes_it(http: Http) -> None:
    await http.ok("POST", "/api/v1/namespaces", {"metadata": {"name": "team"}})
    await http.ok("POST", "/api/v1/namespaces/team/configmaps", configmap("plain"))
    await http.ok(
        "POST",
        "/api/v1/namespaces/team/configmaps",
        configmap("held", finalizers=["example.com/hold"]),
    )
    terminating = await http.ok("DELETE", "/api/v1/namespaces/team")
    assert terminating["status"]["phase"] == "Terminating"
    refused = await http.post("/api/v1/namespaces/team/configmaps", configmap("late"))
    assert (refused.status, refused.body["reason"]) == (403, "Forbidden")

    async def only_held_left() -> bool:
        items = (await http.ok("GET", "/api/v1/namespaces/team/configmaps"))["items"]
        return [i["metadata"]["name"] for i in items] == ["held"] and bool(
            items[0]["metadata"].get("deletionTimestamp")
        )

    await eventually(
        only_held_left, timeout=5, what="the plain ConfigMap deleted, the held one terminating"
    )
    assert (await http.get("/api/v1/namespaces/team")).status == 200
    await http.ok(
        "PATCH",
        "/api/v1/namespaces/team/configmaps/held",
        [{"op": "remove", "path": "/metadata/finalizers"}],
        content_type="application/json-patch+json",
    )

    async def namespace_gone() -> bool:
        return (await http.get("/api/v1/namespaces/team")).status == 404

    await eventually(namespace_gone, timeout=5, what="the namespace removed")


async def test_deleting_a_crd_removes_its_objects_and_its_api(http: Http) -> None:
    await http.ok("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", WIDGETS_CRD)
    widgets = "/apis/example.com/v1/namespaces/default/widgets"
    await http.ok(
        "POST",
        widgets,
        {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}},
    )
    await http.ok(
        "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com"
    )

    async def api_gone() -> bool:
        return (await http.get(widgets)).status == 404 and (
            await http.get("/apis/example.com/v1")
        ).status == 404

    await eventually(api_gone, timeout=5, what="the Widget API gone")
    crd = await http.get(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com"
    )
    assert crd.status == 404

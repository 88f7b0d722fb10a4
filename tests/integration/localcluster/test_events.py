"""Events the simulated controllers record, as `kubectl get events` and `describe` show them."""

import json
from typing import Any

import pytest

from app.localcluster import LocalCluster
from tests.support.fixtures_cluster import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl


async def events(kubectl: Kubectl, *selector: str) -> list[dict[str, Any]]:
    listed = await kubectl("get", "events", "-o", "json", *selector)
    return list(json.loads(listed.stdout)["items"])


async def test_a_deployment_rollout_records_what_real_controllers_record(
    kubectl: Kubectl,
) -> None:
    await kubectl("create", "deployment", "web", "--image=nginx:1.25", "--replicas=2")
    await kubectl("wait", "--for=condition=Available", "deploy/web", "--timeout=10s")
    recorded = await events(kubectl)
    by_reason: dict[str, list[dict[str, Any]]] = {}
    for event in recorded:
        by_reason.setdefault(event["reason"], []).append(event)
    (scaling,) = by_reason["ScalingReplicaSet"]
    assert scaling["involvedObject"]["kind"] == "Deployment"
    assert scaling["source"] == {"component": "deployment-controller"}
    rs = scaling["message"].split()[4]
    assert scaling["message"] == f"Scaled up replica set {rs} from 0 to 2"
    assert [
        e["message"].startswith("Created pod: web-") for e in by_reason["SuccessfulCreate"]
    ] == [
        True,
        True,
    ]
    for reason in ("Scheduled", "Pulled", "Created", "Started"):
        assert len(by_reason[reason]) == 2, reason
    assert by_reason["Started"][0]["involvedObject"]["fieldPath"] == "spec.containers{nginx}"
    assert by_reason["Started"][0]["source"] == {"component": "kubelet", "host": "localcluster"}
    assert all(e["type"] == "Normal" and e["count"] == 1 for e in recorded)
    described = (await kubectl("describe", "deploy", "web")).stdout
    assert f"Scaled up replica set {rs} from 0 to 2" in described
    shown = (await kubectl("get", "events", "--field-selector", "reason=ScalingReplicaSet")).stdout
    assert shown.splitlines()[0].split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert f"deployment/web   Scaled up replica set {rs} from 0 to 2" in shown


async def test_a_repeated_event_is_counted_not_repeated(kubectl: Kubectl) -> None:
    await kubectl("create", "deployment", "web", "--image=nginx", "--replicas=1")
    for replicas in ("2", "1", "2"):
        await kubectl("scale", "deploy/web", f"--replicas={replicas}")
        await kubectl(
            "wait", f"--for=jsonpath={{.status.replicas}}={replicas}", "deploy/web", "--timeout=10s"
        )
    scaling = await events(kubectl, "--field-selector", "reason=ScalingReplicaSet")
    counts = {e["message"].split(" from ")[1]: e["count"] for e in scaling}
    assert counts == {"0 to 1": 1, "1 to 2": 2, "2 to 1": 1}
    twice = next(e for e in scaling if e["count"] == 2)
    assert twice["lastTimestamp"] >= twice["firstTimestamp"]
    listed = (await kubectl("get", "events", "--field-selector", "reason=ScalingReplicaSet")).stdout
    assert "(x2 over " in listed


async def test_jobs_and_failing_pods_say_how_they_ended(kubectl: Kubectl) -> None:
    await kubectl("create", "job", "once", "--image=busybox")
    await kubectl(
        "run", "crashy", "--image=app:1", "--annotations=localcluster.sluice.dev/fail=true"
    )
    await kubectl("wait", "--for=condition=Complete", "job/once", "--timeout=10s")
    job = await events(kubectl, "--field-selector", "involvedObject.kind=Job")
    assert [(e["reason"], e["message"]) for e in job][-1] == ("Completed", "Job completed")

    async def back_off() -> list[dict[str, Any]]:
        return await events(kubectl, "--field-selector", "involvedObject.name=crashy,type=Warning")

    (warning,) = await eventually(back_off, timeout=10, what="a BackOff warning")
    assert warning["reason"] == "BackOff"
    assert warning["message"].startswith(
        "Back-off restarting failed container crashy in pod crashy_"
    )
    scheduled = (await kubectl("get", "pod", "crashy", "-o", "jsonpath={.spec.nodeName}")).stdout
    assert scheduled == "localcluster"


async def test_events_expire(local_cluster_factory: Any, tmp_path: Any) -> None:
    async with local_cluster_factory(event_ttl_seconds=0.5) as cluster:
        assert isinstance(cluster, LocalCluster)
        home = tmp_path / "home"
        home.mkdir()
        kubectl = Kubectl(cluster.kubeconfig_path, home, "kubectl")
        await kubectl("run", "web", "--image=nginx")

        async def recorded() -> bool:
            return bool(cluster.objects("events", "default"))

        await eventually(recorded, timeout=10, what="events recorded")

        async def expired() -> bool:
            return not cluster.objects("events", "default")

        await eventually(expired, timeout=10, what="events expired")

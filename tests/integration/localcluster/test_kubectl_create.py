"""kubectl's generator commands (`kubectl create namespace|deployment|secret …`).

They send built-in kinds as protobuf; the local cluster must store exactly what it
stores when the same object arrives as JSON.
"""

import json
from typing import Any

import pytest

from tests.support.fixtures_cluster import Kubectl

pytestmark = pytest.mark.kubectl

GENERATORS = [
    pytest.param(("namespace", "demo"), "namespace/demo", id="namespace"),
    pytest.param(
        ("deployment", "web", "--image=nginx:1.25", "--replicas=0", "--port=80"),
        "deployment/web",
        id="deployment",
    ),
    pytest.param(
        ("secret", "generic", "creds", "--from-literal=user=admin", "--type=Opaque"),
        "secret/creds",
        id="secret",
    ),
    pytest.param(
        ("configmap", "settings", "--from-literal=mode=fast"), "configmap/settings", id="configmap"
    ),
    pytest.param(("service", "clusterip", "api", "--tcp=80:8080"), "service/api", id="service"),
    pytest.param(("job", "once", "--image=busybox", "--", "echo", "hi"), "job/once", id="job"),
    pytest.param(
        ("cronjob", "nightly", "--image=busybox", "--schedule=0 3 * * *"),
        "cronjob/nightly",
        id="cronjob",
    ),
    pytest.param(("serviceaccount", "builder"), "serviceaccount/builder", id="serviceaccount"),
    pytest.param(
        ("role", "reader", "--verb=get,list", "--resource=pods"), "role/reader", id="role"
    ),
    pytest.param(
        ("clusterrolebinding", "readers", "--clusterrole=view", "--user=ann"),
        "clusterrolebinding/readers",
        id="clusterrolebinding",
    ),
    pytest.param(("quota", "small", "--hard=pods=3,cpu=2"), "resourcequota/small", id="quota"),
    pytest.param(
        ("pdb", "web", "--selector=app=web", "--min-available=50%"),
        "poddisruptionbudget/web",
        id="pdb",
    ),
    pytest.param(
        ("ingress", "web", "--rule=example.com/api*=api:80", "--class=nginx"),
        "ingress/web",
        id="ingress",
    ),
]


def without_nulls(value: Any) -> Any:
    """`null` and absent mean the same to the API (kubectl's JSON writes a template's
    zero creationTimestamp as null; Kubernetes 1.33+ and the protobuf path leave it out)."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def comparable(obj: dict[str, Any]) -> dict[str, Any]:
    """What the request decided: no server-assigned identity (the uid also names a Job's
    generated selector), status or allocated IPs."""
    obj = json.loads(json.dumps(without_nulls(obj)).replace(obj["metadata"]["uid"], "UID"))
    meta = {
        k: v
        for k, v in obj["metadata"].items()
        if k not in ("uid", "resourceVersion", "creationTimestamp", "managedFields")
    }
    out = {k: v for k, v in obj.items() if k != "status"}
    out["metadata"] = meta
    if obj["kind"] == "Service":
        out["spec"] = {k: v for k, v in obj["spec"].items() if k not in ("clusterIP", "clusterIPs")}
    return out


async def test_create_namespace_then_use_it(kubectl: Kubectl) -> None:
    created = await kubectl("create", "namespace", "demo")
    assert created.stdout.strip() == "namespace/demo created"
    assert (await kubectl("get", "namespace", "demo", "--no-headers")).stdout.split()[:2] == [
        "demo",
        "Active",
    ]
    await kubectl("create", "deployment", "web", "--image=nginx", "-n", "demo")
    await kubectl("wait", "--for=condition=Available", "deploy/web", "-n", "demo", "--timeout=10s")


@pytest.mark.parametrize(("args", "ref"), GENERATORS)
async def test_a_generator_stores_what_the_same_object_as_json_stores(
    kubectl: Kubectl, args: tuple[str, ...], ref: str
) -> None:
    sent_as_protobuf = await kubectl("create", *args)
    assert "created" in sent_as_protobuf.stdout
    from_protobuf = json.loads((await kubectl("get", ref, "-o", "json")).stdout)
    await kubectl("delete", ref)
    cut = args.index("--") if "--" in args else len(args)  # flags go before a container command
    dry_run = ("create", *args[:cut], "--dry-run=client", "-o", "json", *args[cut:])
    as_json = (await kubectl(*dry_run)).stdout
    await kubectl("create", "-f", "-", stdin=as_json)
    from_json = json.loads((await kubectl("get", ref, "-o", "json")).stdout)
    assert comparable(from_protobuf) == comparable(from_json)


async def test_generated_objects_keep_what_the_flags_said(kubectl: Kubectl) -> None:
    await kubectl("create", "deployment", "idle", "--image=nginx", "--replicas=0")
    await kubectl("create", "secret", "generic", "creds", "--from-literal=user=admin")
    await kubectl("create", "service", "clusterip", "api", "--tcp=80:8080")
    deploy = json.loads((await kubectl("get", "deploy/idle", "-o", "json")).stdout)
    assert deploy["spec"]["replicas"] == 0, "a pointer's zero is a value, not a default"
    assert deploy["spec"]["strategy"]["type"] == "RollingUpdate"
    secret = json.loads((await kubectl("get", "secret/creds", "-o", "json")).stdout)
    assert secret["data"] == {"user": "YWRtaW4="}
    service = json.loads((await kubectl("get", "service/api", "-o", "json")).stdout)
    assert service["spec"]["ports"] == [
        {"name": "80-8080", "port": 80, "protocol": "TCP", "targetPort": 8080}
    ]


async def test_a_custom_resource_sent_as_protobuf_is_refused_with_what_to_do(
    kubectl: Kubectl,
) -> None:
    refused = await kubectl("create", "priorityclass", "high", "--value=1000", check=False)
    assert refused.returncode == 1
    assert "the server could not find the requested resource" in refused.stderr

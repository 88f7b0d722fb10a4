"""Each error class, produced by the real local cluster, with a message a user can act on."""

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from app.cluster import (
    Cluster,
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    Unavailable,
    load_kubeconfig_dict,
)
from tests.integration.cluster.conftest import configmap


@pytest.fixture
def faults(local_cluster: Any) -> Iterator[Any]:
    yield local_cluster.faults
    local_cluster.faults.clear()


async def test_not_found_names_the_object(cluster: Cluster, namespace: str) -> None:
    with pytest.raises(NotFound) as caught:
        await cluster.get("v1", "ConfigMap", "absent", namespace)
    assert caught.value.status == 404
    assert str(caught.value).startswith(f"get ConfigMap {namespace}/absent (v1) on cluster ")
    assert "absent" in caught.value.problem


async def test_missing_namespace_is_not_found_with_a_hint(cluster: Cluster) -> None:
    with pytest.raises(NotFound) as caught:
        await cluster.create(configmap("cfg", "no-such-namespace"))
    assert 'namespaces "no-such-namespace" not found' in str(caught.value)
    assert "CreateNamespace=true" in str(caught.value)


async def test_already_exists_is_a_conflict(cluster: Cluster, namespace: str) -> None:
    await cluster.create(configmap("cfg", namespace))
    with pytest.raises(Conflict) as caught:
        await cluster.create(configmap("cfg", namespace))
    assert caught.value.reason == "AlreadyExists"


async def test_invalid_lists_the_fields(cluster: Cluster, namespace: str) -> None:
    bad = configmap("cfg", namespace, labels={"tier": "x" * 70})
    with pytest.raises(Invalid) as caught:
        await cluster.create(bad)
    assert caught.value.status == 422
    assert any(c.field.startswith("metadata.labels") for c in caught.value.causes)
    assert 'ConfigMap "cfg" is invalid' in str(caught.value)


async def test_a_terminating_namespace_is_forbidden(cluster: Cluster, namespace: str) -> None:
    await cluster.create(configmap("held", namespace, finalizers=["example.com/hold"]))
    await cluster.delete("v1", "Namespace", namespace)
    try:
        with pytest.raises(Forbidden) as caught:
            await cluster.create(configmap("late", namespace))
        assert caught.value.status == 403
    finally:
        held = await cluster.get("v1", "ConfigMap", "held", namespace)
        held["metadata"]["finalizers"] = []
        await cluster.replace(held)


@pytest.mark.parametrize(
    ("rates", "status"),
    [
        pytest.param({"error_rate": 1.0}, 500, id="500-internal-error"),
        pytest.param({"throttle_rate": 1.0}, 429, id="429-too-many-requests"),
    ],
)
async def test_server_failures_are_retriable(
    cluster: Cluster, faults: Any, rates: dict[str, float], status: int
) -> None:
    await cluster.resource("v1", "ConfigMap")
    faults.configure(**rates)
    with pytest.raises(Unavailable) as caught:
        await cluster.get("v1", "ConfigMap", "anything", "default")
    assert caught.value.retriable
    assert caught.value.status == status
    if status == 429:
        assert caught.value.retry_after is not None


async def test_the_deadline_bounds_a_hung_request(cluster: Cluster, faults: Any) -> None:
    await cluster.resource("v1", "ConfigMap")
    faults.configure(timeout_rate=1.0, timeout_seconds=30)
    with pytest.raises(Unavailable) as caught:
        await cluster.get("v1", "ConfigMap", "anything", "default", time_limit=0.3)
    assert "no answer within 0.3 s" in str(caught.value)


async def test_an_unreachable_server_is_unavailable() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    doc = {
        "current-context": "gone",
        "clusters": [{"name": "gone", "cluster": {"server": f"http://127.0.0.1:{port}"}}],
        "contexts": [{"name": "gone", "context": {"cluster": "gone"}}],
        "users": [],
    }
    async with Cluster(await load_kubeconfig_dict(doc)) as gone:
        with pytest.raises(Unavailable) as caught:
            await gone.get("v1", "Namespace", "default")
    assert "cannot reach the API server" in str(caught.value)
    assert caught.value.retriable


@pytest.mark.parametrize(
    ("manifest", "problem", "verbs"),
    [
        pytest.param(
            configmap("cfg", ""), "namespaced kind", ("create", "apply", "replace"), id="no-ns"
        ),
        pytest.param(
            configmap("../../escape", "default"),
            "may not contain '/'",
            ("apply", "replace"),
            id="name-leaving-its-path",
        ),
        pytest.param(
            {"kind": "ConfigMap", "metadata": {}},
            "apiVersion is missing",
            ("create", "apply", "replace"),
            id="no-api-version",
        ),
        pytest.param(
            configmap("", "default"), "metadata.name", ("create", "apply", "replace"), id="no-name"
        ),
    ],
)
async def test_unaddressable_manifests_are_refused_before_sending(
    cluster: Cluster, manifest: dict[str, Any], problem: str, verbs: tuple[str, ...]
) -> None:
    for verb in verbs:
        with pytest.raises(Invalid) as caught:
            await getattr(cluster, verb)(manifest)
        assert problem in str(caught.value)
        assert caught.value.status == 0, "refused by the client, not the server"

"""Every Runtime follows the Argo CD cluster Secrets of its control namespace: a Secret
registers a cluster, an edit rotates its credentials, a bad edit or a deletion unregisters
it, and destinations resolve accordingly (also to the server URL exclusions match)."""

import contextlib
from collections.abc import Callable

import pytest

from app.cluster import Cluster, NotFound
from app.localcluster import LocalCluster
from app.model.app_spec import ApplicationDestination
from app.runtime.clusters import ClusterChange, UnknownDestination
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from tests.support.cluster_secrets import cluster_secret
from tests.support.logscan import known_secret
from tests.support.waiting import eventually

SECOND = ApplicationDestination(name="second", namespace="shop")
TOKEN = known_secret("first-token-0123456789", "a cluster bearer token")
ROTATED = "rotated-token-0123456789"

Factory = Callable[..., contextlib.AbstractAsyncContextManager[LocalCluster]]


NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "sluice"}}


def resolved(rt: Runtime, destination: ApplicationDestination) -> Cluster | None:
    try:
        return rt.clusters.resolve(destination)
    except UnknownDestination:
        return None


def token_of(cluster: Cluster | None) -> str:
    assert cluster is not None
    token: str = cluster.config.configuration.api_key["BearerToken"]
    return token


async def marker_in(cluster: Cluster) -> str:
    """The name of a ConfigMap only the second cluster holds (proves which one answers)."""
    found = await cluster.get("v1", "ConfigMap", "marker", "default")
    return str(found["data"]["cluster"])


async def test_a_secret_registers_rotates_and_unregisters_a_cluster(
    runtime: Runtime, local_cluster_factory: Factory
) -> None:
    rt = runtime
    heard: list[ClusterChange] = []

    async def listener(change: ClusterChange) -> None:
        heard.append(change)

    rt.clusters.subscribe(listener)
    await rt.control_plane.apply(NAMESPACE)
    async with local_cluster_factory() as second:
        marker = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "marker", "namespace": "default"},
            "data": {"cluster": "second"},
        }
        secret = cluster_secret(
            "second-cluster", name="second", server=second.url, config={"bearerToken": TOKEN}
        )
        await rt.control_plane.apply(secret)

        async def registered() -> Cluster | None:
            return resolved(rt, SECOND)

        cluster = await eventually(registered, what="the Secret's cluster registered")
        assert token_of(cluster) == f"Bearer {TOKEN}"
        by_server = resolved(rt, ApplicationDestination(server=second.url + "/"))
        assert by_server is cluster
        assert rt.clusters.server_of(SECOND) == second.url
        await cluster.apply(marker)
        assert await marker_in(cluster) == "second"
        with pytest.raises(NotFound):
            await rt.control_plane.get("v1", "ConfigMap", "marker", "default")
        assert heard[-1].before is None and heard[-1].concerns(SECOND)

        rotated = cluster_secret(
            "second-cluster", name="second", server=second.url, config={"bearerToken": ROTATED}
        )
        await rt.control_plane.apply(rotated)

        async def rotated_in() -> bool:
            return token_of(resolved(rt, SECOND)) == f"Bearer {ROTATED}"

        await eventually(rotated_in, what="the rotated token in force")
        assert heard[-1].before is not None and heard[-1].after is not None
        assert await marker_in(rt.clusters.resolve(SECOND)) == "second"

        exec_config = {"execProviderConfig": {"command": "/bin/steal-credentials"}}
        await rt.control_plane.apply(
            cluster_secret("second-cluster", name="second", server=second.url, config=exec_config)
        )

        async def refused() -> str:
            try:
                rt.clusters.resolve(SECOND)
            except UnknownDestination as e:
                return str(e)
            return ""

        problem = await eventually(refused, what="the exec Secret refused")
        assert "cluster Secret sluice/second-cluster claims it but is refused" in problem
        assert "data.config.execProviderConfig" in problem
        assert "SLUICE_ALLOW_KUBECONFIG_EXEC=true" in problem
        assert heard[-1].after is None

        await rt.control_plane.apply(secret)
        await eventually(registered, what="the fixed Secret registered again")
        await rt.control_plane.delete("v1", "Secret", "second-cluster", "sluice")

        async def unregistered() -> bool:
            return resolved(rt, SECOND) is None

        await eventually(unregistered, what="the deleted Secret's cluster unregistered")
        with pytest.raises(UnknownDestination, match="no cluster named 'second'"):
            rt.clusters.resolve(SECOND)
        assert rt.clusters.server_of(SECOND) == ""
        in_cluster = ApplicationDestination(name="in-cluster")
        assert rt.clusters.server_of(in_cluster) == "https://kubernetes.default.svc"


async def test_a_runtime_opens_with_the_clusters_already_registered(
    settings: Settings, runtime: Runtime, local_cluster_factory: Factory
) -> None:
    await runtime.control_plane.apply(NAMESPACE)
    async with local_cluster_factory() as second:
        await runtime.control_plane.apply(
            cluster_secret("second-cluster", name="second", server=second.url)
        )
        await runtime.control_plane.apply(
            cluster_secret("third-clash", name="second", server="https://other.example")
        )
        async with Runtime.open(settings) as fresh:
            cluster = fresh.clusters.resolve(SECOND)
            assert cluster.config.server == second.url
            with pytest.raises(UnknownDestination, match="registered by cluster Secret"):
                fresh.clusters.resolve(ApplicationDestination(server="https://other.example"))

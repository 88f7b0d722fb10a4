"""A `Cluster` client on the in-process local cluster, and small manifest builders."""

import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.cluster import Cluster, ClusterSettings, load_kubeconfig

_names = itertools.count()


async def open_cluster(local_cluster: Any, settings: ClusterSettings | None = None) -> Cluster:
    """A Cluster for the local cluster's kubeconfig (the caller enters and closes it)."""
    return Cluster(await load_kubeconfig(local_cluster.kubeconfig_path), settings)


@pytest.fixture
async def cluster(local_cluster: Any) -> AsyncIterator[Cluster]:
    async with await open_cluster(local_cluster) as opened:
        yield opened


@pytest.fixture
async def namespace(cluster: Cluster) -> str:
    """A fresh namespace for one test."""
    name = f"t{next(_names)}"
    await cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    return name


def configmap(
    name: str, namespace: str, data: dict[str, str] | None = None, **meta: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, **meta},
        "data": data or {},
    }

"""A kind the watcher may not watch (RBAC refuses it) holds up nothing, is retried, and
once allowed again its objects are current, those deleted meanwhile gone."""

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.localcluster import LocalCluster
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from tests.integration.workers.watcher.conftest import (
    DESTINATION,
    WEB,
    Starter,
    application,
    config_map,
    kubectl_apply,
    tracked,
)
from tests.integration.workers.watcher.forbidding_proxy import ForbiddingProxy
from tests.support.fixtures_cluster import Kubectl
from tests.support.waiting import eventually

SECRETS = "/secrets"


def secret(name: str) -> dict[str, Any]:
    return tracked(
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": DESTINATION}}
    )


@pytest.fixture
async def proxy(local_cluster: LocalCluster) -> AsyncIterator[ForbiddingProxy]:
    started = await ForbiddingProxy(local_cluster.url).start()
    yield started
    await started.close()


@pytest.fixture
async def proxied(
    settings: Settings, proxy: ForbiddingProxy, tmp_path: Path
) -> AsyncIterator[Runtime]:
    kubeconfig = proxy.kubeconfig(tmp_path / "proxy-kubeconfig")
    control = replace(settings.control_plane, kubeconfig=str(kubeconfig))
    async with Runtime.open(replace(settings, control_plane=control)) as rt:
        yield rt


async def cached(rt: Runtime) -> list[str]:
    snapshot = await rt.live.read(WEB)
    return sorted(f"{k.kind}/{k.name}" for k in snapshot.objects) if snapshot.warm else []


async def test_a_refused_kind_does_not_hold_up_the_rest_and_is_followed_once_allowed(
    runtime: Runtime,
    proxied: Runtime,
    proxy: ForbiddingProxy,
    start_watcher: Starter,
    kubectl: Kubectl,
) -> None:
    cluster = runtime.control_plane
    await kubectl_apply(kubectl, application("web"))
    await cluster.create(tracked(config_map("cfg")))
    await cluster.create(secret("kept"))
    await cluster.create(secret("gone"))
    proxy.forbid(SECRETS)
    await start_watcher(rt=proxied)
    assert await eventually(lambda: cached(runtime), what="a warm cache") == ["ConfigMap/cfg"]

    proxy.forbid(None)
    everything = ["ConfigMap/cfg", "Secret/gone", "Secret/kept"]
    await eventually(lambda: _equals(cached(runtime), everything), timeout=10,
                     what="the secrets once allowed")  # fmt: skip

    refused = proxy.refused
    proxy.forbid(SECRETS)

    async def retrying() -> bool:
        return proxy.refused >= refused + 2

    await eventually(retrying, what="the watcher to retry the refused watch")
    await cluster.delete("v1", "Secret", "gone", DESTINATION)
    await cluster.create(secret("new"))
    proxy.forbid(None)
    current = ["ConfigMap/cfg", "Secret/kept", "Secret/new"]
    await eventually(lambda: _equals(cached(runtime), current), timeout=10,
                     what="the secrets as they are after the refusal")  # fmt: skip


async def _equals(probe: Any, expected: list[str]) -> bool:
    return bool(await probe == expected)

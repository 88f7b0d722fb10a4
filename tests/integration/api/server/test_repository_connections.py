"""A repository's connection state through the API: measured against a real private git
server, cached as Argo CD caches it, measured afresh by validate and `forceRefresh`, and
forgotten when the repository Secrets or trust ConfigMaps change; a Helm repository's by
its `index.yaml` and an OCI registry's by `/v2/`, each with the Secret's password."""

from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import pytest

from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import Client, auth
from tests.support.fixtures_git_servers import HTTPS_USER
from tests.support.git_http import GitHttpsServer
from tests.support.gitrepo import GitRepo
from tests.support.helm_charts import shop_chart
from tests.support.helm_repo import HelmRepoServer, helm_repo
from tests.support.keys import HOST, CertificateAuthority
from tests.support.logscan import known_secret
from tests.support.oci_registry import TOKEN, OciRegistry
from tests.support.waiting import eventually

__all__ = ["helm_repo"]

CLIENT_PASSWORD = known_secret("client-Pw-7c2e", "a repository password")
HELM_PASSWORD = known_secret("s3cr3t-chart-pass", "the test Helm repository's password")


def _tls_certs(ca: CertificateAuthority, **more: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "argocd-tls-certs-cm", "namespace": "sluice"},
        "data": {HOST: ca.cert_pem, **more},
    }


async def test_connection_state_is_cached_refreshed_and_forgotten_on_change(
    api: Client,
    runtime: Runtime,
    https_git: GitHttpsServer,
    private_repo: GitRepo,
    test_ca: CertificateAuthority,
) -> None:
    await runtime.control_plane.apply(_tls_certs(test_ca))
    url = https_git.url("org/app.git")
    path = f"/api/v1/repositories/{quote(url, safe='')}"

    async def listed(query: str = "") -> dict[str, Any]:
        answer = await api.get("/api/v1/repositories" + query, headers=auth())
        assert answer.status == 200, await answer.text()
        (repo,) = [r for r in (await answer.json())["items"] if r["repo"] == url]
        return dict(repo["connectionState"])

    body = {"repo": url, "username": HTTPS_USER, "password": CLIENT_PASSWORD}
    created = await api.post("/api/v1/repositories", json=body, headers=auth())
    assert created.status == 201, await created.text()
    state = (await created.json())["connectionState"]
    assert state["status"] == "Failed" and "refused the credentials" in state["message"]
    assert state["attemptedAt"]

    https_git.passwords[HTTPS_USER] = CLIENT_PASSWORD
    assert (await listed())["status"] == "Failed", "answered from the cache"
    validated = await api.post(path + "/validate", json={}, headers=auth())
    assert validated.status == 200, await validated.text()
    assert (await validated.json())["status"] == "Successful"
    assert (await listed())["status"] == "Successful", "validate stored what it measured"
    got = await api.get(path, headers=auth())
    assert (await got.json())["connectionState"]["status"] == "Successful"

    https_git.passwords[HTTPS_USER] = "server-Pw-moved-9a1b"
    assert (await listed())["status"] == "Successful", "still the cached state"
    assert (await listed("?forceRefresh=true"))["status"] == "Failed"

    https_git.passwords[HTTPS_USER] = CLIENT_PASSWORD
    assert (await listed())["status"] == "Failed"
    await runtime.control_plane.apply(_tls_certs(test_ca, **{"other.example": test_ca.cert_pem}))

    async def measured_again() -> bool:
        return (await listed())["status"] == "Successful"

    await eventually(measured_again, timeout=30, what="the cache emptied by the trust change")
    for answer in (created, validated, got):
        assert CLIENT_PASSWORD not in await answer.text()


WRONG_PASSWORD = known_secret("wrong-Pw-41d8", "a repository password")


async def _created(api: Client, body: dict[str, Any]) -> dict[str, Any]:
    answer = await api.post("/api/v1/repositories", json=body, headers=auth())
    text = await answer.text()
    assert answer.status == 201, text
    assert WRONG_PASSWORD not in text and HELM_PASSWORD not in text
    return dict((await answer.json())["connectionState"])


async def _validated(api: Client, url: str) -> dict[str, Any]:
    answer = await api.post(
        f"/api/v1/repositories/{quote(url, safe='')}/validate", json={}, headers=auth()
    )
    assert answer.status == 200, await answer.text()
    return dict(await answer.json())


async def test_a_helm_repository_is_checked_by_its_index_with_the_secrets_password(
    api: Client, helm_repo: HelmRepoServer
) -> None:
    helm_repo.add_chart(shop_chart(""), "shop", "1.0.0")
    body = {"repo": helm_repo.url, "type": "helm", "username": "charts"}

    state = await _created(api, {**body, "password": WRONG_PASSWORD})

    assert state["status"] == "Failed"
    assert f"{helm_repo.url} (index.yaml): " in state["message"]
    assert "answered HTTP 401" in state["message"]
    assert WRONG_PASSWORD not in state["message"]
    updated = await api.put(
        f"/api/v1/repositories/{quote(helm_repo.url, safe='')}",
        json={**body, "password": HELM_PASSWORD},
        headers=auth(),
    )
    assert updated.status == 200, await updated.text()
    assert (await updated.json())["connectionState"]["status"] == "Successful"
    assert (await _validated(api, helm_repo.url))["status"] == "Successful"
    path, basic = helm_repo.seen[-1]
    assert path == "/charts/index.yaml" and basic is not None and basic.startswith("Basic ")


@pytest.fixture
async def registry(test_ca: CertificateAuthority) -> AsyncIterator[OciRegistry]:
    async for running in OciRegistry(test_ca, passwords={"robot": HELM_PASSWORD}).serve():
        yield running


@pytest.mark.parametrize(
    "secret",
    [
        pytest.param({"repo": "oci://{host}/charts", "type": "oci"}, id="type-oci"),
        pytest.param({"repo": "{host}/charts", "type": "helm", "enableOCI": True}, id="enableOCI"),
    ],
)
async def test_an_oci_registry_is_checked_at_v2_with_a_token_for_the_secrets_password(
    api: Client,
    runtime: Runtime,
    registry: OciRegistry,
    test_ca: CertificateAuthority,
    secret: dict[str, Any],
) -> None:
    await runtime.repos.update_trust("", {HOST: test_ca.cert_pem})
    host = registry.base.removeprefix("https://")
    url = secret["repo"].format(host=host)
    body = {**secret, "repo": url, "username": "robot"}

    state = await _created(api, {**body, "password": WRONG_PASSWORD})

    assert state["status"] == "Failed"
    assert state["message"].startswith(f"{url}: the registry's token service answered HTTP 401")
    got = await api.get(f"/api/v1/repositories/{quote(url, safe='')}", headers=auth())
    assert got.status == 200, await got.text()
    assert (await got.json())["repo"] == url
    updated = await api.put(
        f"/api/v1/repositories/{quote(url, safe='')}",
        json={**body, "password": HELM_PASSWORD},
        headers=auth(),
    )
    assert updated.status == 200, await updated.text()
    assert (await updated.json())["connectionState"]["status"] == "Successful"
    assert (await _validated(api, url))["status"] == "Successful"
    assert ("/v2/", f"Bearer {TOKEN}") in registry.seen
    token_asks = [a for path, a in registry.seen if path.startswith("/token")]
    assert token_asks and all(a is not None and a.startswith("Basic ") for a in token_asks)

"""A repository's connection state through the API: measured against a real private git
server, cached as Argo CD caches it, measured afresh by validate and `forceRefresh`, and
forgotten when the repository Secrets or trust ConfigMaps change."""

from typing import Any
from urllib.parse import quote

from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import Client, auth
from tests.support.fixtures_git_servers import HTTPS_USER
from tests.support.git_http import GitHttpsServer
from tests.support.gitrepo import GitRepo
from tests.support.keys import HOST, CertificateAuthority
from tests.support.logscan import known_secret
from tests.support.waiting import eventually

CLIENT_PASSWORD = known_secret("client-Pw-7c2e", "a repository password")


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

"""`sluice repo add --type helm|oci` and `repo list`: the real CLI as a subprocess against
the live API, registering a private Helm repository and an OCI registry in Argo CD's
Secret shape, with their connection states measured with the Secret's password."""

import base64
from collections.abc import AsyncIterator

import pytest

from app.model.repository_secret import TYPE_LABEL
from app.runtime.runtime import Runtime
from tests.integration.cli.test_rbac_cli import ADMIN, NAMESPACE, Sluice, sluice
from tests.support.helm_repo import HelmRepoServer, helm_repo
from tests.support.keys import HOST, CertificateAuthority
from tests.support.logscan import known_secret
from tests.support.oci_registry import OciRegistry

__all__ = ["helm_repo", "sluice"]

PASSWORD = known_secret("s3cr3t-chart-pass", "the test Helm repository's password")


@pytest.fixture
async def registry(test_ca: CertificateAuthority) -> AsyncIterator[OciRegistry]:
    async for running in OciRegistry(test_ca, passwords={"robot": PASSWORD}).serve():
        yield running


async def _secret_data(runtime: Runtime) -> list[dict[str, str]]:
    found = await runtime.control_plane.list(
        "v1", "Secret", namespace=NAMESPACE, label_selector=f"{TYPE_LABEL}=repository"
    )
    return [
        {k: base64.b64decode(v).decode() for k, v in (obj.get("data") or {}).items()}
        for obj in found.items
    ]


async def test_repo_add_writes_helm_and_registry_secrets_and_list_shows_their_state(
    sluice: Sluice,
    runtime: Runtime,
    helm_repo: HelmRepoServer,
    registry: OciRegistry,
    test_ca: CertificateAuthority,
) -> None:
    await runtime.repos.update_trust("", {HOST: test_ca.cert_pem})
    scheme_less = registry.base.removeprefix("https://") + "/charts"

    helm = await sluice.run(
        "repo", "add", helm_repo.url, "--type", "helm", "--username", "charts",
        "--password-stdin", stdin=PASSWORD + "\n", token=ADMIN, server=True,
    )  # fmt: skip
    oci = await sluice.run(
        "repo", "add", scheme_less, "--type", "helm", "--enable-oci", "--username", "robot",
        "--password-stdin", stdin=PASSWORD + "\n", token=ADMIN, server=True,
    )  # fmt: skip

    assert helm.code == 0, helm.err
    assert f"Repository '{helm_repo.url}' added (connection: Successful)" in helm.out
    assert oci.code == 0, oci.err
    assert f"Repository '{scheme_less}' added (connection: Successful)" in oci.out
    by_url = {d["url"]: d for d in await _secret_data(runtime)}
    assert by_url[helm_repo.url] == {
        "url": helm_repo.url, "type": "helm", "username": "charts", "password": PASSWORD,
    }  # fmt: skip
    assert by_url[scheme_less] == {
        "url": scheme_less, "type": "helm", "enableOCI": "true", "username": "robot",
        "password": PASSWORD,
    }  # fmt: skip
    listed = await sluice.admin("repo", "list")
    assert listed.code == 0, listed.err
    rows = {line.split()[1]: line.split() for line in listed.out.splitlines()[1:]}
    assert rows[helm_repo.url][0] == "helm" and "Successful" in rows[helm_repo.url]
    assert rows[scheme_less][0] == "helm" and "Successful" in rows[scheme_less]
    assert rows[scheme_less][3] == "true", "the OCI column"
    for done in (helm, oci, listed):
        assert PASSWORD not in done.out + done.err

"""A fixed repository Secret refreshes the apps waiting on it at once.

An app on a private repository whose Secret has the wrong password shows a
ComparisonError. Periodic resyncs are off here, so nothing but the credential change can
make it try again: once the Secret is fixed it renders without anyone asking.
"""

from dataclasses import replace
from typing import Any

import pytest

from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from app.runtime.worker import Worker
from tests.integration.repo.private import secret
from tests.support.fixtures_git_servers import HTTPS_PASSWORD, HTTPS_USER
from tests.support.git_http import GitHttpsServer
from tests.support.gitrepo import GitRepo
from tests.support.keys import HOST, CertificateAuthority
from tests.support.manifests import application
from tests.support.waiting import eventually

API = "argoproj.io/v1alpha1"
CONTROL = "sluice"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(settings, timing=replace(settings.timing, repo_error_grace=0.0))


async def _status(rt: Runtime) -> dict[str, Any]:
    obj = await rt.control_plane.get(API, "Application", "private", CONTROL)
    return dict(obj.get("status") or {})


async def test_fixing_the_password_refreshes_the_app_in_error(
    runtime: Runtime,
    pipeline_workers: list[Worker],
    https_git: GitHttpsServer,
    private_repo: GitRepo,
    test_ca: CertificateAuthority,
) -> None:
    rt = runtime
    url = https_git.url("org/app.git")
    await rt.control_plane.create(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": CONTROL}}
    )
    await rt.control_plane.apply(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "argocd-tls-certs-cm", "namespace": CONTROL},
            "data": {HOST: test_ca.cert_pem},
        }
    )
    await rt.control_plane.apply(
        secret("repo-1", url=url, username=HTTPS_USER, password="wrong-Pw-0d1e")
    )
    await rt.control_plane.create(application("private", url))

    async def in_error() -> list[str]:
        conditions = (await _status(rt)).get("conditions") or []
        return [c["message"] for c in conditions if c["type"] == "ComparisonError"]

    messages = await eventually(in_error, timeout=60, what="the ComparisonError")
    assert "refused the credentials" in messages[0]

    await rt.control_plane.apply(
        secret("repo-1", url=url, username=HTTPS_USER, password=HTTPS_PASSWORD)
    )

    async def rendered() -> bool:
        status = await _status(rt)
        return not await in_error() and status.get("sync", {}).get("status") == "OutOfSync"

    await eventually(rendered, timeout=60, what="the app rendered with the fixed password")
    assert (await _status(rt))["sync"]["revision"] == private_repo.head

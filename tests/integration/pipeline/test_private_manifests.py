"""A project-scoped repository's renders stay with its project.

Two apps of different projects name the same private repository; its Secret is scoped to
one of them. The shared caches (refs and manifests in Redis, bare caches on disk) must not
hand the first app's render to the second: the second is told the repository asks for
credentials, naming the app and the repository.
"""

import pytest

from app.model.application import Application
from app.runtime.manifests import ManifestsError, manifests_for
from app.runtime.runtime import Runtime
from tests.integration.repo.private import secret
from tests.support.git_http import GitHttpsServer
from tests.support.gitrepo import GitRepo
from tests.support.keys import HOST, CertificateAuthority
from tests.support.waiting import eventually

NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "sluice"}}


def app(name: str, project: str, url: str) -> Application:
    return Application.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": name, "namespace": "sluice"},
            "spec": {
                "project": project,
                "source": {"repoURL": url, "path": "app", "targetRevision": "HEAD"},
                "destination": {"server": "https://kubernetes.default.svc", "namespace": "x"},
            },
        }
    )


async def test_a_scoped_repositorys_render_is_not_served_to_another_project(
    runtime: Runtime,
    https_git: GitHttpsServer,
    private_repo: GitRepo,
    test_ca: CertificateAuthority,
) -> None:
    rt = runtime
    url = https_git.url("org/app.git")
    await rt.control_plane.apply(NAMESPACE)
    await rt.control_plane.apply(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "argocd-tls-certs-cm", "namespace": "sluice"},
            "data": {HOST: test_ca.cert_pem},
        }
    )
    await rt.control_plane.apply(
        secret("repo-a", url=url, username="bot", password="pw-Https-s3cret-7f3a", project="team-a")
    )

    async def team_a_renders() -> bool:
        try:
            await manifests_for(rt, app("a", "team-a", url))
        except ManifestsError:
            return False
        return True

    await eventually(team_a_renders, timeout=20, what="team-a's app renders")
    with pytest.raises(ManifestsError) as failed:
        await manifests_for(rt, app("b", "team-b", url))
    text = str(failed.value)
    assert "Application sluice/b" in text
    assert "org/app.git" in text and "asks for credentials" in text

"""`/api/v1/repositories` and `/api/v1/repocreds` write Argo CD's Secrets; secrets are write-only.

And the runtime follows what they write: a Secret it cannot use is refused naming the
field, and the repository it claims reports why instead of being fetched anonymously.
"""

import base64
from urllib.parse import quote

from app.repo.credentials import CredentialError
from app.repo.errors import GitError
from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import ADMIN, TEAM_A, Client, auth
from tests.integration.repo.private import secret
from tests.support.logscan import known_secret
from tests.support.waiting import eventually

URL = "https://git.example.com/org/private.git"
PASSWORD = known_secret("pw-Api-s3cret-31f0", "a repository password")


def path(url: str = URL) -> str:
    return f"/api/v1/repositories/{quote(url, safe='')}"


async def test_create_writes_the_secret_argo_cd_writes_and_never_returns_secrets(
    api: Client, runtime: Runtime
) -> None:
    body = {"repo": URL, "username": "bot", "password": PASSWORD, "insecure": True}
    created = await api.post("/api/v1/repositories", json=body, headers=auth())
    assert created.status == 201, await created.text()
    view = await created.json()
    assert view["repo"] == URL
    assert view["hasPassword"] is True and view["username"] == "bot"
    assert view["connectionState"]["status"] == "Failed"
    listed = await api.get("/api/v1/repositories", headers=auth())
    got = await api.get(path(), headers=auth())
    for answer in (created, listed, got):
        assert PASSWORD not in await answer.text()
    namespace, name = view["secret"].split("/")
    stored = await runtime.control_plane.get("v1", "Secret", name, namespace=namespace)
    assert name.startswith("repo-")
    assert stored["metadata"]["labels"] == {"argocd.argoproj.io/secret-type": "repository"}
    assert base64.b64decode(stored["data"]["password"]).decode() == PASSWORD
    assert base64.b64decode(stored["data"]["insecure"]).decode() == "true"

    again = await api.post("/api/v1/repositories", json=body, headers=auth())
    assert again.status == 409
    updated = await api.put(path(), json={"repo": URL, "username": "robot"}, headers=auth())
    assert updated.status == 200, await updated.text()
    stored = await runtime.control_plane.get("v1", "Secret", name, namespace=namespace)
    assert base64.b64decode(stored["data"]["password"]).decode() == PASSWORD, "kept"
    assert base64.b64decode(stored["data"]["username"]).decode() == "robot"

    deleted = await api.delete(path(), headers=auth())
    assert deleted.status == 200
    assert (await api.get(path(), headers=auth())).status == 404


async def test_unscoped_repositories_and_templates_need_an_all_projects_token(
    api: Client,
) -> None:
    body = {"repo": URL, "password": PASSWORD}
    refused = await api.post("/api/v1/repositories", json=body, headers=auth(TEAM_A))
    assert refused.status == 403
    scoped = await api.post(
        "/api/v1/repositories", json=body | {"project": "team-a1"}, headers=auth(TEAM_A)
    )
    assert scoped.status == 201, await scoped.text()
    template = {"url": "https://git.example.com/org", "password": PASSWORD}
    assert (await api.post("/api/v1/repocreds", json=template, headers=auth(TEAM_A))).status == 403
    made = await api.post("/api/v1/repocreds", json=template, headers=auth(ADMIN))
    assert made.status == 201, await made.text()
    listed = await api.get("/api/v1/repocreds", headers=auth())
    assert PASSWORD not in await listed.text()
    assert [c["url"] for c in (await listed.json())["items"]] == [template["url"]]


async def test_a_secret_sluice_cannot_use_is_reported_for_its_repository(
    api: Client, runtime: Runtime
) -> None:
    bad = secret("repo-bad", url=URL, sshPrivateKey="not a key")
    await runtime.control_plane.apply(bad)

    async def reported() -> bool:
        try:
            await runtime.repos.list_refs(URL)
        except CredentialError as e:
            return "data.sshPrivateKey" in str(e) and "repository Secret sluice/repo-bad" in str(e)
        except GitError:
            return False
        return False

    await eventually(reported, timeout=20, what="the refused Secret is reported")

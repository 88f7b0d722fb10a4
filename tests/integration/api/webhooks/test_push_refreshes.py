"""Each Git host's documented push, posted to the running route, refreshes exactly the right apps.

The fleet follows one repository in every way a user writes it (HEAD, empty, branch name,
`refs/heads/`, a tag, semver constraints, manifest-generate-paths, multi-source) plus an
app on another repository; each case checks the refresh messages on NATS, one per app.
"""

import pytest

from app.api.metrics import REGISTRY
from app.bus.connection import Bus
from app.model.sync import RefreshLevel
from tests.integration.api.webhooks.conftest import Start, nothing_published, refreshes
from tests.unit.api.webhooks.samples import HOSTS, SECRET, Host, expected, fleet, load

REFS = ["refs/heads/main", "refs/tags/v1.2.0", "refs/heads/feature/x"]
TITLES = {
    "github": "GitHub",
    "gitlab": "GitLab",
    "bitbucket": "Bitbucket Cloud",
    "bitbucketserver": "Bitbucket Server",
    "azuredevops": "Azure DevOps",
    "gitea": "Gitea",
    "gogs": "Gogs",
}


def _requests(provider: str, outcome: str) -> float:
    labels = {"provider": provider, "outcome": outcome}
    return REGISTRY.get_sample_value("sluice_webhook_requests_total", labels) or 0.0


@pytest.mark.parametrize("signed", [True, False], ids=["signed", "unsigned"])
@pytest.mark.parametrize("ref", REFS, ids=["default-branch", "tag", "other-branch"])
@pytest.mark.parametrize("host", HOSTS, ids=[h.provider for h in HOSTS])
async def test_push_refreshes_exactly_the_following_apps(
    start_webhook: Start, ready_bus: Bus, host: Host, ref: str, signed: bool
) -> None:
    secret = SECRET if signed else ""
    client = await start_webhook(host.settings(secret), fleet(host.repo_url))
    body, headers = host.request(host.payload(ref), secret, delivery="delivery-42")
    before = _requests(host.provider, "refreshed")

    response = await client.post("/api/webhook", data=body, headers=headers)

    want = expected(host, ref)
    assert response.status == 200, await response.text()
    assert await response.json() == {
        "provider": host.provider,
        "event": response_event(host, ref),
        "delivery": "delivery-42",
        "matched": len(want),
    }
    published = await refreshes(ready_bus)
    assert set(published) == want
    for name, (count, request) in published.items():
        assert count == 1, name
        assert request.app.namespace == "argocd"
        assert request.level is RefreshLevel.LATEST
        assert request.reason.startswith(f"{TITLES[host.provider]} ")
        assert "(delivery delivery-42)" in request.reason
    assert _requests(host.provider, "refreshed") == before + 1


def response_event(host: Host, ref: str) -> str:
    return {
        "gitlab": "Tag Push Hook" if ref.startswith("refs/tags/") else "Push Hook",
        "bitbucket": "repo:push",
        "bitbucketserver": "repo:refs_changed",
        "azuredevops": "git.push",
    }.get(host.provider, "push")


@pytest.mark.parametrize("host", HOSTS, ids=[h.provider for h in HOSTS])
async def test_push_to_another_repository_refreshes_nothing(
    start_webhook: Start, ready_bus: Bus, host: Host
) -> None:
    client = await start_webhook(host.settings(), fleet("https://git.example.net/team/unrelated"))
    body, headers = host.request(host.payload())

    response = await client.post("/api/webhook", data=body, headers=headers)

    assert response.status == 200
    assert (await response.json())["matched"] == 0
    assert await nothing_published(ready_bus)


@pytest.mark.parametrize(
    ("fixture", "headers"),
    [
        pytest.param("github_ping", {"X-GitHub-Event": "ping"}, id="github-ping"),
        pytest.param(
            "bitbucket_server_ping",
            {"X-Event-Key": "diagnostics:ping", "X-Request-Id": "ping-1"},
            id="bitbucket-server-diagnostics-ping",
        ),
    ],
)
async def test_ping_is_answered_and_ignored(
    start_webhook: Start, ready_bus: Bus, fixture: str, headers: dict[str, str]
) -> None:
    client = await start_webhook(HOSTS[0].settings(""), fleet(HOSTS[0].repo_url))

    response = await client.post("/api/webhook", json=load(fixture), headers=headers)

    assert response.status == 200
    answer = await response.json()
    assert answer["matched"] == 0
    assert "reaches Sluice" in answer["ignored"]
    assert await nothing_published(ready_bus)


async def test_gitlab_system_hook_push_refreshes_and_other_system_events_are_ignored(
    start_webhook: Start, ready_bus: Bus
) -> None:
    host = next(h for h in HOSTS if h.provider == "gitlab")
    client = await start_webhook(host.settings(), fleet(host.repo_url))
    body, headers = host.request(host.payload(), SECRET)
    headers["X-Gitlab-Event"] = "System Hook"

    pushed = await client.post("/api/webhook", data=body, headers=headers)
    created = await client.post(
        "/api/webhook",
        json={"event_name": "project_create", "name": "guestbook", "path": "guestbook"},
        headers={"X-Gitlab-Event": "System Hook", "X-Gitlab-Token": SECRET},
    )

    assert pushed.status == 200
    assert set(await refreshes(ready_bus)) == expected(host, "refs/heads/main")
    assert created.status == 200
    assert "not a push" in (await created.json())["ignored"]

"""Every refusal on the running route: its status, a message naming the problem, no refresh."""

from typing import Any, NamedTuple

import pytest

from app.api.metrics import REGISTRY
from app.api.webhooks import WebhookSettings
from app.bus.connection import Bus
from tests.integration.api.webhooks.conftest import Start, nothing_published
from tests.unit.api.webhooks.samples import HOSTS, HOSTS_BY_NAME, SECRET, Host, encode, fleet

GITHUB = HOSTS_BY_NAME["github"]


def _count(provider: str, outcome: str) -> float:
    labels = {"provider": provider, "outcome": outcome}
    return REGISTRY.get_sample_value("sluice_webhook_requests_total", labels) or 0.0


async def _refused(
    start_webhook: Start,
    bus: Bus,
    *,
    provider: str,
    body: bytes,
    headers: dict[str, str],
    status: int,
    outcome: str,
    message: str,
    settings: WebhookSettings | None = None,
) -> dict[str, Any]:
    host = HOSTS_BY_NAME.get(provider, GITHUB)
    client = await start_webhook(settings or host.settings(), fleet(host.repo_url))
    before = _count(provider, outcome)

    response = await client.post("/api/webhook", data=body, headers=headers)

    answer: dict[str, Any] = await response.json()
    assert response.status == status, answer
    assert answer["kind"] == "Status"
    assert answer["code"] == status
    assert message in answer["message"]
    assert await nothing_published(bus)
    assert _count(provider, outcome) == before + 1
    return answer


@pytest.mark.parametrize("host", HOSTS, ids=[h.provider for h in HOSTS])
async def test_forged_proof_is_401(start_webhook: Start, ready_bus: Bus, host: Host) -> None:
    body, headers = host.request(host.payload(), "another secret")
    await _refused(
        start_webhook,
        ready_bus,
        provider=host.provider,
        body=body,
        headers=headers,
        status=401,
        outcome="unauthorized",
        message="webhook",
    )


@pytest.mark.parametrize(
    "host", [h for h in HOSTS if h.provider != "bitbucket"], ids=lambda h: h.provider
)
async def test_missing_proof_when_a_secret_is_set_is_401(
    start_webhook: Start, ready_bus: Bus, host: Host
) -> None:
    body, headers = host.request(host.payload(), secret="")
    answer = await _refused(
        start_webhook,
        ready_bus,
        provider=host.provider,
        body=body,
        headers=headers,
        status=401,
        outcome="unauthorized",
        message="but",
    )
    assert SECRET not in answer["message"]


async def test_signature_over_another_body_is_401(start_webhook: Start, ready_bus: Bus) -> None:
    signed, headers = GITHUB.request(GITHUB.payload(), SECRET)
    tampered = signed.replace(b"refs/heads/main", b"refs/heads/prod")
    await _refused(
        start_webhook,
        ready_bus,
        provider="github",
        body=tampered,
        headers=headers,
        status=401,
        outcome="unauthorized",
        message="does not match the body",
    )


async def test_bitbucket_cloud_push_without_its_uuid_header_is_not_accepted(
    start_webhook: Start, ready_bus: Bus
) -> None:
    host = HOSTS_BY_NAME["bitbucket"]
    body, headers = host.request(host.payload(), SECRET)
    del headers["X-Hook-UUID"]
    await _refused(
        start_webhook,
        ready_bus,
        settings=host.settings(),
        provider="bitbucketserver",
        body=body,
        headers=headers,
        status=400,
        outcome="unknown_event",
        message="'repo:push' is not handled",
    )


def _github(mutate: Any) -> bytes:
    doc = GITHUB.payload()
    mutate(doc)
    return encode(doc)


def _signed(provider: str, body: bytes) -> dict[str, str]:
    return HOSTS_BY_NAME[provider].headers(body, SECRET, "delivery-bad")


def _doc(provider: str, mutate: Any) -> bytes:
    doc = HOSTS_BY_NAME[provider].payload()
    mutate(doc)
    return encode(doc)


class Bad(NamedTuple):
    rule: str
    provider: str
    body: bytes
    status: int
    outcome: str
    message: str
    """Text the refusal's message must contain."""


BAD_REQUESTS = [
    Bad(
        "malformed-json",
        "github",
        b'{"ref": "refs/heads/main",',
        400,
        "bad_payload",
        "not valid JSON",
    ),
    Bad(
        "form-encoded",
        "github",
        b"payload=%7B%22ref%22%3A%22refs%2Fheads%2Fmain%22%7D",
        400,
        "bad_payload",
        "set the webhook's content type to application/json",
    ),
    Bad("empty-body", "gitlab", b"", 400, "bad_payload", "body: is empty"),
    Bad("not-utf8", "gogs", b"\xff\xfe{", 400, "bad_payload", "body"),
    Bad("array-document", "gitea", b"[]", 400, "bad_payload", "payload: expected an object"),
    Bad(
        "wrong-type-url",
        "github",
        _github(lambda d: d["repository"].update(html_url=42)),
        400,
        "bad_payload",
        "repository.html_url: expected a string, got a number",
    ),
    Bad(
        "wrong-type-files",
        "github",
        _github(lambda d: d["commits"][1].update(added="docs/scaling.md")),
        400,
        "bad_payload",
        "commits[1].added: expected an array, got a string",
    ),
    Bad(
        "null-repository",
        "github",
        _github(lambda d: d.update(repository=None)),
        400,
        "bad_payload",
        "repository: is null",
    ),
    Bad(
        "missing-ref",
        "gitlab",
        _doc("gitlab", lambda d: d.pop("ref")),
        400,
        "bad_payload",
        "ref: is missing",
    ),
    Bad(
        "null-default-branch",
        "gitlab",
        _doc("gitlab", lambda d: d["project"].update(default_branch=None)),
        400,
        "bad_payload",
        "project.default_branch: is null",
    ),
    Bad(
        "empty-changes",
        "bitbucket",
        _doc("bitbucket", lambda d: d["push"].update(changes=[])),
        400,
        "bad_payload",
        "push.changes: is an empty array",
    ),
    Bad(
        "change-with-no-side",
        "bitbucket",
        _doc("bitbucket", lambda d: d["push"]["changes"][0].update(new=None, old=None)),
        400,
        "bad_payload",
        "push.changes[0]: has neither",
    ),
    Bad(
        "empty-clone-links",
        "bitbucketserver",
        _doc("bitbucketserver", lambda d: d["repository"]["links"].update(clone=[])),
        400,
        "bad_payload",
        "repository.links.clone: is an empty array",
    ),
    Bad(
        "empty-ref-updates",
        "azuredevops",
        _doc("azuredevops", lambda d: d["resource"].update(refUpdates=[])),
        400,
        "bad_payload",
        "resource.refUpdates: is an empty array",
    ),
    Bad(
        "null-ref-update",
        "azuredevops",
        _doc("azuredevops", lambda d: d["resource"].update(refUpdates=[None])),
        400,
        "bad_payload",
        "resource.refUpdates[0]: expected an object, got null",
    ),
    Bad(
        "unparseable-repo-url",
        "gogs",
        _doc(
            "gogs",
            lambda d: d["repository"].update(
                html_url="ext::sh -c touch% /tmp/pwned", clone_url="ext::x", ssh_url="-u"
            ),
        ),
        400,
        "bad_payload",
        "repository.html_url: is not a repository URL",
    ),
    Bad(
        "unknown-azure-event",
        "azuredevops",
        _doc("azuredevops", lambda d: d.update(eventType="git.pullrequest.created")),
        400,
        "unknown_event",
        "'git.pullrequest.created' is not handled",
    ),
]


@pytest.mark.parametrize("case", BAD_REQUESTS, ids=[r.rule for r in BAD_REQUESTS])
async def test_bad_payload_is_refused_and_names_the_field(
    start_webhook: Start, ready_bus: Bus, case: Bad
) -> None:
    await _refused(
        start_webhook,
        ready_bus,
        provider=case.provider,
        body=case.body,
        headers=_signed(case.provider, case.body),
        status=case.status,
        outcome=case.outcome,
        message=case.message,
    )


async def test_unknown_github_event_is_400(start_webhook: Start, ready_bus: Bus) -> None:
    body, headers = GITHUB.request({"action": "opened", "number": 7}, SECRET)
    headers["X-GitHub-Event"] = "pull_request"
    await _refused(
        start_webhook,
        ready_bus,
        provider="github",
        body=body,
        headers=headers,
        status=400,
        outcome="unknown_event",
        message="'pull_request' is not handled",
    )


async def test_request_without_git_host_headers_is_400(
    start_webhook: Start, ready_bus: Bus
) -> None:
    await _refused(
        start_webhook,
        ready_bus,
        provider="unknown",
        body=b"{}",
        headers={"Content-Type": "application/json"},
        status=400,
        outcome="unknown_event",
        message="no Git host webhook headers",
    )


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
async def test_other_methods_are_405(start_webhook: Start, ready_bus: Bus, method: str) -> None:
    client = await start_webhook(GITHUB.settings(), fleet(GITHUB.repo_url))
    body, headers = GITHUB.request(GITHUB.payload(), SECRET)

    response = await client.request(method, "/api/webhook", data=body, headers=headers)

    assert response.status == 405
    assert response.headers["Allow"] == "POST"
    assert await nothing_published(ready_bus)

"""Argo CD Notifications through the real pipeline (issue 15).

The notifications worker runs with every other worker; the receivers are real: an
aiohttp server standing in for a webhook receiver and for Slack's incoming webhooks,
and an aiosmtpd SMTP server. Configuration is Argo CD's own: argocd-notifications-cm
(services, one template overriding the shipped one) and argocd-notifications-secret
(the `$key` references), subscriptions by annotation on the Application and on its
AppProject.
"""

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from typing import Any

import pytest
from aiohttp import web
from aiosmtpd.smtp import SMTP, Envelope, Session

from app.bus import subjects
from app.bus.events import emit
from app.bus.subjects import EventType
from app.model.identity import AppRef
from tests.e2e.manifests import CONTROL, as_yaml, deployment
from tests.e2e.pipeline import Pipeline
from tests.support.gitrepo import GitRepo
from tests.support.logscan import known_secret
from tests.support.waiting import eventually

pytestmark = [pytest.mark.kubectl, pytest.mark.slow, pytest.mark.timeout(360)]

SUBSCRIBE = "notifications.argoproj.io/subscribe."
TOKEN = known_secret("hook-token-5d41402abc4b2a76", "the webhook service token")
SLACK_KEY = "T000/B000/slack-secret-path"


@dataclass
class Received:
    """Everything the receivers got, in arrival order."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    mails: list[Message] = field(default_factory=list)
    order: list[str] = field(default_factory=list)
    failures: dict[str, int] = field(default_factory=dict)
    """Path -> how many more requests to it answer 503."""

    def to(self, path: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["path"] == path and r["status"] == 200]


@pytest.fixture
async def received() -> AsyncIterator[tuple[Received, int, int]]:
    """(what arrived, HTTP port, SMTP port) of a webhook/Slack receiver and an SMTP server."""
    got = Received()

    async def any_request(request: web.Request) -> web.Response:
        path = request.path
        failing = got.failures.get(path, 0)
        status = 503 if failing else 200
        if failing:
            got.failures[path] = failing - 1
        got.requests.append(
            {
                "method": request.method,
                "path": path,
                "headers": dict(request.headers),
                "body": await request.text(),
                "status": status,
            }
        )
        got.order.append(f"http {path} {status}")
        return web.Response(status=status, text="ok" if status == 200 else "try later")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", any_request)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    http_port = runner.addresses[0][1]

    class Handler:
        async def handle_DATA(self, _server: SMTP, _session: Session, envelope: Envelope) -> str:
            mail = message_from_bytes(envelope.content or b"")
            got.mails.append(mail)
            got.order.append(f"mail {mail['To']}")
            return "250 OK"

    loop = asyncio.get_running_loop()
    smtp = await loop.create_server(lambda: SMTP(Handler()), "127.0.0.1", 0)
    smtp_port = smtp.sockets[0].getsockname()[1]
    try:
        yield got, http_port, smtp_port
    finally:
        smtp.close()
        await smtp.wait_closed()
        await runner.cleanup()


def notifications_config(http_port: int, smtp_port: int) -> list[dict[str, Any]]:
    base = f"http://127.0.0.1:{http_port}"
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "argocd-notifications-cm", "namespace": CONTROL},
        "data": {
            "service.webhook.receiver": (
                f"url: {base}/hooks\n"
                "headers:\n- name: Authorization\n  value: Bearer $hook-token\n"
                "- name: Content-Type\n  value: application/json\n"
            ),
            "service.slack": f"webhookUrl: {base}/slack/$slack-key\nusername: sluice\n",
            "service.email": (f"host: 127.0.0.1\nport: {smtp_port}\nfrom: sluice@example.com\n"),
            "template.app-sync-succeeded": (
                "message: Application {{.app.metadata.name}} synced "
                "{{.app.status.operationState.syncResult.revision}}.\n"
                "email:\n  subject: '{{.app.metadata.name}} synced'\n"
                "webhook:\n  receiver:\n    method: POST\n"
                "    path: /{{.app.metadata.name}}\n"
                '    body: \'{"app": "{{.app.metadata.name}}", '
                '"revision": "{{.app.status.operationState.syncResult.revision}}"}\'\n'
            ),
            "context": "argocdUrl: https://cd.example.com\n",
        },
    }
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "argocd-notifications-secret", "namespace": CONTROL},
        "stringData": {"hook-token": TOKEN, "slack-key": SLACK_KEY},
    }
    return [config, secret]


def notified_app(
    name: str, repo: str, annotations: dict[str, str], *, project: str = "default"
) -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": CONTROL, "annotations": annotations},
        "spec": {
            "project": project,
            "source": {"repoURL": repo, "path": name, "targetRevision": "main"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": name},
            "syncPolicy": {"automated": {}, "syncOptions": ["CreateNamespace=true"]},
        },
    }


async def settled(pipeline: Pipeline) -> bool:
    """Every event handed to the notifications worker, and every delivery, acknowledged."""
    js = pipeline.rt.bus.js
    events = await js.consumer_info(subjects.EVENTS_STREAM, subjects.NOTIFICATIONS_CONSUMER)
    deliveries = await js.consumer_info(
        subjects.WORK_STREAM, subjects.consumer(subjects.Work.NOTIFY)
    )
    return not any(
        (
            events.num_pending,
            events.num_ack_pending,
            deliveries.num_pending,
            deliveries.num_ack_pending,
        )
    )


async def test_a_sync_notifies_each_subscriber_once_per_revision(
    pipeline: Pipeline, git_repo: GitRepo, received: tuple[Received, int, int]
) -> None:
    got, http_port, smtp_port = received
    await pipeline.apply(*notifications_config(http_port, smtp_port))
    first = git_repo.commit({"guestbook/app.yaml": as_yaml(deployment("guestbook"))})
    await pipeline.apply(
        notified_app(
            "guestbook",
            git_repo.url,
            {
                SUBSCRIBE + "on-sync-succeeded.receiver": "",
                SUBSCRIBE + "on-sync-succeeded.email": "ops@example.com",
                SUBSCRIBE + "on-deployed.slack": "deploys",
                SUBSCRIBE + "on-created.slack": "audit",
            },
        )
    )
    await pipeline.wait_synced("guestbook", first, timeout=120)

    async def all_arrived() -> bool:
        slack = got.to(f"/slack/{SLACK_KEY}")
        channels = {json.loads(r["body"])["channel"] for r in slack}
        return bool(got.to("/hooks/guestbook") and got.mails and channels == {"deploys", "audit"})

    await eventually(all_arrived, timeout=60, what="webhook, email and both Slack messages")

    (hook,) = got.to("/hooks/guestbook")
    assert hook["method"] == "POST"
    assert hook["headers"]["Authorization"] == f"Bearer {TOKEN}"
    assert json.loads(hook["body"]) == {"app": "guestbook", "revision": first}
    (mail,) = got.mails
    assert (mail["To"], mail["From"], mail["Subject"]) == (
        "ops@example.com",
        "sluice@example.com",
        "guestbook synced",
    )
    assert f"synced {first}" in mail.get_payload()
    slack = {
        json.loads(r["body"])["channel"]: json.loads(r["body"])
        for r in got.to(f"/slack/{SLACK_KEY}")
    }
    deployed = slack["deploys"]
    assert deployed["username"] == "sluice"
    assert f"deployed at revision {first}" in deployed["text"]
    assert deployed["attachments"][0]["title_link"] == (
        f"https://cd.example.com/applications/{CONTROL}/guestbook"
    )
    assert "was created" in slack["audit"]["text"]

    for kind in (EventType.SYNCED, EventType.HEALTH_CHANGED, EventType.OPERATION_SUCCEEDED):
        await emit(pipeline.rt.bus, AppRef(CONTROL, "guestbook"), kind, {}, component="test")
    await eventually(lambda: settled(pipeline), timeout=60, what="the events handled")
    assert len(got.to("/hooks/guestbook")) == 1
    assert len(got.mails) == 1
    assert len(got.to(f"/slack/{SLACK_KEY}")) == 2

    second = git_repo.commit(
        {"guestbook/app.yaml": as_yaml(deployment("guestbook", image="nginx:1.28"))}
    )
    await pipeline.wait_synced("guestbook", second, timeout=120)

    async def second_arrived() -> bool:
        return len(got.to("/hooks/guestbook")) == 2 and len(got.mails) == 2

    await eventually(second_arrived, timeout=60, what="the second revision's notifications")
    assert json.loads(got.to("/hooks/guestbook")[1]["body"])["revision"] == second
    await eventually(lambda: settled(pipeline), timeout=60, what="the events handled")
    assert len(got.to("/hooks/guestbook")) == 2
    assert not any(r["status"] != 200 for r in got.requests)


async def test_a_degraded_app_is_announced_and_a_failing_receiver_retried(
    pipeline: Pipeline, git_repo: GitRepo, received: tuple[Received, int, int]
) -> None:
    got, http_port, smtp_port = received
    got.failures["/hooks"] = 2
    await pipeline.apply(*notifications_config(http_port, smtp_port))
    await pipeline.apply(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "AppProject",
            "metadata": {
                "name": "team",
                "namespace": CONTROL,
                "annotations": {
                    SUBSCRIBE + "on-health-degraded.receiver": "",
                    SUBSCRIBE + "on-health-degraded.email": "oncall@example.com",
                },
            },
            "spec": {
                "sourceRepos": ["*"],
                "destinations": [{"server": "*", "namespace": "*"}],
                "clusterResourceWhitelist": [{"group": "*", "kind": "*"}],
            },
        }
    )
    broken = deployment("broken")
    broken["metadata"]["annotations"] = {"localcluster.sluice.dev/fail": "true"}
    git_repo.commit({"broken/app.yaml": as_yaml(broken)})
    await pipeline.apply(notified_app("broken", git_repo.url, {}, project="team"))
    await pipeline.wait_status(
        "broken",
        lambda s: (s.get("health") or {}).get("status") == "Degraded",
        what="Degraded",
        timeout=120,
    )

    async def delivered() -> list[dict[str, Any]]:
        return got.to("/hooks")

    await eventually(delivered, timeout=60, what="the webhook after its retries")
    attempts = [r for r in got.requests if r["path"] == "/hooks"]
    assert [r["status"] for r in attempts] == [503, 503, 200]
    assert len({r["body"] for r in attempts}) == 1
    assert "broken is Degraded" in attempts[-1]["body"]
    (mail,) = got.mails
    assert mail["To"] == "oncall@example.com"
    assert "Degraded" in mail["Subject"]
    assert got.order.index("mail oncall@example.com") < got.order.index("http /hooks 200"), (
        "the email waited for the failing webhook"
    )
    await eventually(lambda: settled(pipeline), timeout=60, what="the events handled")
    assert len(got.to("/hooks")) == 1
    assert len(got.mails) == 1

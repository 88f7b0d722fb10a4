"""What is sent, and when again: notifications-engine's rules over Sluice's records."""

from typing import Any

from app.engine.notifications.config import parse_notifications
from app.engine.notifications.decide import decide, render
from app.engine.notifications.services import WebhookService
from app.engine.notifications.subscriptions import Destination, destinations

CONFIG = parse_notifications(
    {
        "service.webhook.hook": "url: https://hook.example.com\n",
        "service.slack": "webhookUrl: https://hooks.example.com/x\n",
        "trigger.on-degraded-plain": (
            "- when: app.status.health.status == 'Degraded'\n  send: [app-health-degraded]\n"
        ),
        "defaultTriggers": "[on-sync-succeeded]",
        "subscriptions": (
            "- recipients: [hook]\n  triggers: [on-sync-failed]\n  selector: team=web\n"
        ),
        "template.app-sync-succeeded": (
            "message: synced\nwebhook:\n  hook:\n    method: POST\n"
            "    path: /{{.app.metadata.name}}\n"
            "    body: '{{.recipient}} {{.serviceType}}'\n"
        ),
    },
    {},
)


def app(phase: str = "Succeeded", health: str = "Healthy", revision: str = "r1") -> dict[str, Any]:
    return {
        "metadata": {"name": "gb", "namespace": "sluice"},
        "status": {
            "sync": {"status": "Synced", "revision": revision},
            "health": {"status": health},
            "reconciledAt": "2026-01-01T00:01:00Z",
            "operationState": {
                "phase": phase,
                "startedAt": "2026-01-01T00:00:00Z",
                "finishedAt": "2026-01-01T00:00:30Z",
                "syncResult": {"revision": revision},
            },
        },
    }


def test_subscriptions_come_from_annotations_projects_defaults_and_the_configmap() -> None:
    found = destinations(
        {
            "notifications.argoproj.io/subscribe.on-deployed.slack": "a; b;",
            "notifications.argoproj.io/subscribe.hook": "",
            "unrelated": "x",
        },
        {"team": "web"},
        {"notifications.argoproj.io/subscribe.on-deployed.slack": "b;c"},
        CONFIG,
    )
    assert found == {
        "on-deployed": [
            Destination("slack", "a"),
            Destination("slack", "b"),
            Destination("slack", "c"),
        ],
        "on-sync-succeeded": [Destination("hook", "")],
        "on-sync-failed": [Destination("hook", "")],
    }
    assert "on-sync-failed" not in destinations({}, {"team": "db"}, {}, CONFIG)


def test_once_per_sends_once_per_value_and_never_again() -> None:
    dests = {"on-sync-succeeded": [Destination("hook", "")]}
    first = decide(CONFIG, app(revision="r1"), {}, dests, set())
    (send,) = first.sends
    assert send.once_per == "r1" and send.record.startswith("r1:on-sync-succeeded:")
    assert decide(CONFIG, app(revision="r1"), {}, dests, {send.record}).sends == ()
    running = decide(CONFIG, app(phase="Running", revision="r1"), {}, dests, {send.record})
    assert running.sends == () and running.clear == ()
    (again,) = decide(CONFIG, app(revision="r2"), {}, dests, {send.record}).sends
    assert again.once_per == "r2"


def test_without_once_per_a_condition_sends_again_after_it_was_false() -> None:
    dests = {"on-degraded-plain": [Destination("hook", "")]}
    (send,) = decide(CONFIG, app(health="Degraded"), {}, dests, set()).sends
    assert decide(CONFIG, app(health="Degraded"), {}, dests, {send.record}).sends == ()
    healthy = decide(CONFIG, app(health="Healthy"), {}, dests, {send.record})
    assert healthy.clear == (send.record,)
    assert len(decide(CONFIG, app(health="Degraded"), {}, dests, set()).sends) == 1


def test_a_status_older_than_the_operations_end_waits_for_the_refresh() -> None:
    stale = app()
    stale["status"]["reconciledAt"] = "2026-01-01T00:00:10Z"
    dests = {"on-sync-succeeded": [Destination("hook", "")]}
    decision = decide(CONFIG, stale, {}, dests, set())
    assert decision.sends == () and "predates" in decision.stale
    assert len(decide(CONFIG, stale, {}, dests, set(), ignore_stale=True).sends) == 1


def test_an_unknown_trigger_and_a_failing_condition_are_problems_not_sends() -> None:
    broken = parse_notifications(
        {"trigger.t": "- when: app.status.operationState.phase == 'x'\n  send: [app-created]\n"},
        {},
    )
    dests = {"t": [Destination("hook", "")], "nope": [Destination("hook", "")]}
    bare = {"metadata": {"name": "gb"}, "status": {}}
    decision = decide(broken, bare, {}, dests, set())
    assert decision.sends == ()
    assert any("trigger nope: not configured" in p for p in decision.problems)
    assert any("cannot fetch phase from nil" in p for p in decision.problems)


def test_render_writes_the_parts_of_the_destinations_service() -> None:
    dests = {"on-sync-succeeded": [Destination("hook", "me")]}
    (send,) = decide(CONFIG, app(), {}, dests, set()).sends
    service = CONFIG.services["hook"]
    assert isinstance(service, WebhookService)
    notification = render(CONFIG, send, service, app(), {})
    assert notification.webhook_method == "POST"
    assert notification.webhook_path == "/gb"
    assert notification.webhook_body == "me hook"
    assert notification.message == "synced"

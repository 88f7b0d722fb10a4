"""argocd-notifications-cm and its Secret, read key by key as Argo CD writes them."""

import pytest

from app.engine.notifications.config import parse_notifications
from app.engine.notifications.services import EmailService, SlackService, WebhookService

SECRET = {"token": "s3cr3t-token", "slack-url": "https://hooks.slack.com/services/T/B/X"}


def test_the_shipped_catalog_is_in_force_without_a_configmap() -> None:
    config = parse_notifications({}, {})
    assert set(config.triggers) == {
        "on-created",
        "on-deleted",
        "on-deployed",
        "on-health-degraded",
        "on-sync-failed",
        "on-sync-running",
        "on-sync-status-unknown",
        "on-sync-succeeded",
    }
    for trigger in config.triggers.values():
        for condition in trigger:
            assert all(name in config.templates for name in condition.send)
    assert config.services == {} and config.problems == ()


def test_services_read_their_secrets_and_templates_override_the_catalog() -> None:
    config = parse_notifications(
        {
            "service.webhook.github": (
                "url: https://api.example.com\n"
                "headers:\n- name: Authorization\n  value: token $token\n"
                "basicAuth:\n  username: bot\n  password: $token\n"
            ),
            "service.slack": "webhookUrl: $slack-url\nicon: ':rocket:'\n",
            "service.email.mail": "host: smtp.example.com\nport: 465\nfrom: cd@example.com\n",
            "template.app-deployed": "message: Deployed {{.app.metadata.name}}\n",
            "trigger.on-rollout": (
                "when: app.status.sync.status == 'Synced'\nsend: [app-deployed]\n"
            ),
            "defaultTriggers": "- on-sync-succeeded\n",
            "defaultTriggers.slack": "[on-deployed]",
            "context": "argocdUrl: https://cd.example.com\n",
        },
        SECRET,
    )
    assert config.problems == ()
    github = config.services["github"]
    assert isinstance(github, WebhookService)
    assert github.headers == (("Authorization", "token s3cr3t-token"),)
    assert github.basic_auth == ("bot", "s3cr3t-token")
    slack = config.services["slack"]
    assert isinstance(slack, SlackService) and slack.webhook_url == SECRET["slack-url"]
    mail = config.services["mail"]
    assert isinstance(mail, EmailService) and (mail.port, mail.sender) == (465, "cd@example.com")
    assert "s3cr3t" not in repr(config.services) and "hooks.slack" not in repr(config.services)
    assert config.templates["app-deployed"].slack == {}
    assert len(config.triggers["on-rollout"]) == 1
    assert config.default_triggers == ("on-sync-succeeded",)
    assert config.service_default_triggers == {"slack": ("on-deployed",)}
    assert config.context == {"argocdUrl": "https://cd.example.com"}


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("service.webhook.x", "url: $missing\n", "references $missing"),
        ("service.webhook.x", "url: file:///etc/passwd\n", "must be an http(s) URL"),
        ("service.webhook.x", "url: https://a\nheadres: []\n", "unknown options ['headres']"),
        ("service.teams", "recipientUrls: {}\n", "service type 'teams' is not supported"),
        ("service.slack", "username: x\n", "exactly one of webhookUrl"),
        ("trigger.bad", "- when: app.status ==\n  send: [x]\n", "trigger.bad[0]: when:"),
        ("trigger.bad", "- when: 'true'\n  sned: [x]\n", "unknown fields ['sned']"),
        ("template.bad", "message: '{{if .x}}'\n", "unclosed if"),
        ("template.bad", "message: [unclosed\n", "not valid YAML"),
        ("subscriptions", "- recipients: [slack:x]\n  selector: 'a in (b'\n", "selector"),
    ],
)
def test_a_bad_key_is_refused_alone_naming_it(key: str, value: str, problem: str) -> None:
    config = parse_notifications({key: value, "service.webhook.ok": "url: https://ok\n"}, {})
    (found,) = config.problems
    assert found.startswith(key) and problem in found
    assert "ok" in config.services
    kind, _, rest = key.partition(".")
    assert key == "subscriptions" or f"{kind}.{rest.rpartition('.')[2]}" in config.refused


def test_a_refused_override_of_a_shipped_trigger_removes_it_rather_than_keep_the_old() -> None:
    config = parse_notifications({"trigger.on-deployed": "- when: ((\n"}, {})
    assert "on-deployed" not in config.triggers
    assert "trigger.on-deployed" in config.refused


def test_template_sections_for_other_services_are_notices_not_errors() -> None:
    config = parse_notifications({"template.t": "message: hi\nteams:\n  title: x\n"}, {})
    assert config.problems == ()
    assert config.notices == ("template.t: section 'teams' is not used",)

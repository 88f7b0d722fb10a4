"""Webhook settings from a Kubernetes Secret's data and the environment (pure loader)."""

import base64
import hashlib
import hmac

import pytest

from app.api.webhooks.errors import Unauthorized
from app.api.webhooks.providers import PROVIDERS
from app.api.webhooks.settings import MIB, SettingsError, WebhookSettings, load_settings

BODY = b'{"ref": "refs/heads/main"}'


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_defaults() -> None:
    settings = load_settings({})
    assert settings == WebhookSettings()
    assert settings.max_body_bytes == 10 * MIB
    assert all(not p.secret_setting(settings) for p in PROVIDERS)


def test_argo_cd_secret_keys_are_read() -> None:
    data = {
        "webhook.github.secret": b64("gh"),
        "webhook.gitlab.secret": b64("gl"),
        "webhook.bitbucket.uuid": b64("{uuid}"),
        "webhook.bitbucketserver.secret": b64("bbs"),
        "webhook.azuredevops.username": b64("user"),
        "webhook.azuredevops.password": b64("pass"),
        "webhook.gogs.secret": b64("gogs"),
        "server.secretkey": b64("unrelated"),
    }
    settings = load_settings({}, data)
    assert (settings.github_secret, settings.gitlab_secret) == ("gh", "gl")
    assert (settings.bitbucket_uuid, settings.bitbucket_server_secret) == ("{uuid}", "bbs")
    assert (settings.azure_devops_username, settings.azure_devops_password) == ("user", "pass")
    assert settings.gogs_secret == "gogs"
    assert all(p.secret_setting(settings) for p in PROVIDERS)


def _gitea_signed_with(secret: str) -> dict[str, str]:
    return {"X-Gitea-Signature": hmac.new(secret.encode(), BODY, hashlib.sha256).hexdigest()}


def test_gitea_falls_back_to_the_gogs_secret() -> None:
    gitea = next(p for p in PROVIDERS if p.name == "gitea")
    only_gogs = load_settings({"SLUICE_WEBHOOK_GOGS_SECRET": "g"})
    both = load_settings({"SLUICE_WEBHOOK_GOGS_SECRET": "g", "SLUICE_WEBHOOK_GITEA_SECRET": "t"})
    gitea.authenticate(only_gogs, _gitea_signed_with("g"), BODY)
    assert "webhook.gogs.secret" in gitea.secret_setting(only_gogs)
    gitea.authenticate(both, _gitea_signed_with("t"), BODY)
    with pytest.raises(Unauthorized):
        gitea.authenticate(both, _gitea_signed_with("g"), BODY)
    assert "webhook.gitea.secret" in gitea.secret_setting(both)


def test_environment_and_secret_precedence() -> None:
    env = {"SLUICE_WEBHOOK_GITHUB_SECRET": "from-env", "SLUICE_WEBHOOK_GITLAB_SECRET": "env-gl"}
    settings = load_settings(env, {"webhook.github.secret": b64("from-secret")})
    assert settings.github_secret == "from-secret"
    assert settings.gitlab_secret == "env-gl"


def test_limits_from_the_environment() -> None:
    env = {
        "SLUICE_WEBHOOK_MAX_BODY_BYTES": "2048",
        "SLUICE_WEBHOOK_MAX_IN_FLIGHT": "8",
        "SLUICE_WEBHOOK_READ_TIMEOUT": "2.5",
        "SLUICE_WEBHOOK_APPS_TIMEOUT": "1",
    }
    settings = load_settings(env)
    assert (settings.max_body_bytes, settings.max_in_flight) == (2048, 8)
    assert (settings.read_timeout, settings.apps_timeout) == (2.5, 1.0)


@pytest.mark.parametrize(
    ("env", "data", "problem"),
    [
        ({}, {"webhook.github.secret": "not base64!"}, "webhook.github.secret: is not base64"),
        ({}, {"webhook.github.secret": base64.b64encode(b"\xff").decode()}, "UTF-8"),
        ({}, {"webhook.gitlab.secret": 7}, "webhook.gitlab.secret: expected a base64 string"),
        ({"SLUICE_WEBHOOK_MAX_BODY_BYTES": "ten"}, {}, "is not a number"),
        ({"SLUICE_WEBHOOK_MAX_BODY_BYTES": "1.5"}, {}, "is not a number"),
        ({"SLUICE_WEBHOOK_MAX_BODY_BYTES": "0"}, {}, "must be between 1024"),
        ({"SLUICE_WEBHOOK_MAX_BODY_BYTES": str(1 << 30)}, {}, "must be between"),
        ({"SLUICE_WEBHOOK_READ_TIMEOUT": "nan"}, {}, "must be between"),
        ({"SLUICE_WEBHOOK_MAX_IN_FLIGHT": "0"}, {}, "must be between 1"),
        ({"SLUICE_WEBHOOK_AZUREDEVOPS_USERNAME": "u"}, {}, "set both or neither"),
    ],
    ids=[
        "bad-base64",
        "not-utf8",
        "not-a-string",
        "word",
        "fraction",
        "zero-body",
        "gib-body",
        "nan-timeout",
        "no-webhooks",
        "azure-half",
    ],
)
def test_bad_settings_name_the_key(
    env: dict[str, str], data: dict[str, object], problem: str
) -> None:
    with pytest.raises(SettingsError, match=problem):
        load_settings(env, data)


def test_repr_never_shows_a_secret() -> None:
    settings = load_settings({"SLUICE_WEBHOOK_GITHUB_SECRET": "hunter2-very-secret"})
    assert "hunter2" not in repr(settings)
    assert "hunter2" not in str(settings)

"""Webhook settings: provider secrets and request limits, from a Secret or the environment.

Secrets use Argo CD's `argocd-secret` keys, so an existing Secret works unchanged; each also
has an environment variable for running Sluice without Kubernetes. `load_settings` is a pure
function of the environment and of a Secret's `data` (base64 values, as the API returns
them); the caller fetches the Secret. A key present in the Secret wins over its variable.
Limits come from the environment only.

| setting | Secret key | environment variable |
| --- | --- | --- |
| github_secret | webhook.github.secret | SLUICE_WEBHOOK_GITHUB_SECRET |
| gitlab_secret | webhook.gitlab.secret | SLUICE_WEBHOOK_GITLAB_SECRET |
| bitbucket_uuid | webhook.bitbucket.uuid | SLUICE_WEBHOOK_BITBUCKET_UUID |
| bitbucket_server_secret | webhook.bitbucketserver.secret | SLUICE_WEBHOOK_BITBUCKETSERVER_SECRET |
| azure_devops_username | webhook.azuredevops.username | SLUICE_WEBHOOK_AZUREDEVOPS_USERNAME |
| azure_devops_password | webhook.azuredevops.password | SLUICE_WEBHOOK_AZUREDEVOPS_PASSWORD |
| gogs_secret | webhook.gogs.secret | SLUICE_WEBHOOK_GOGS_SECRET |
| gitea_secret | webhook.gitea.secret | SLUICE_WEBHOOK_GITEA_SECRET |
| max_body_bytes | - | SLUICE_WEBHOOK_MAX_BODY_BYTES |
| max_in_flight | - | SLUICE_WEBHOOK_MAX_IN_FLIGHT |
| max_reading_bytes | - | SLUICE_WEBHOOK_MAX_READING_BYTES |
| read_timeout | - | SLUICE_WEBHOOK_READ_TIMEOUT |
| apps_timeout | - | SLUICE_WEBHOOK_APPS_TIMEOUT |

Gitea: Argo CD has no Gitea key (Gitea also sends Gogs headers and is checked with the
Gogs secret), so with `webhook.gitea.secret` unset, Gitea requests are checked against the
Gogs secret: moving from Argo CD never turns a checked webhook into an unchecked one.
"""

import base64
import binascii
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

MIB = 1024 * 1024


class SettingsError(ValueError):
    """A webhook setting cannot be used; the message names the key, never its value."""


@dataclass(frozen=True, slots=True)
class WebhookSettings:
    """Secrets per provider (empty: requests from it are not checked) and request limits."""

    github_secret: str = field(default="", repr=False)
    """HMAC key of `X-Hub-Signature-256`."""
    gitlab_secret: str = field(default="", repr=False)
    """Value `X-Gitlab-Token` must equal."""
    bitbucket_uuid: str = field(default="", repr=False)
    """Value `X-Hook-UUID` must equal (Bitbucket Cloud)."""
    bitbucket_server_secret: str = field(default="", repr=False)
    """HMAC key of `X-Hub-Signature` (Bitbucket Server / Data Center)."""
    azure_devops_username: str = field(default="", repr=False)
    """HTTP Basic user name of Azure DevOps service hooks (set with the password)."""
    azure_devops_password: str = field(default="", repr=False)
    """HTTP Basic password of Azure DevOps service hooks (set with the user name)."""
    gogs_secret: str = field(default="", repr=False)
    """HMAC key of `X-Gogs-Signature`."""
    gitea_secret: str = field(default="", repr=False)
    """HMAC key of `X-Gitea-Signature`; empty means the Gogs secret."""
    max_body_bytes: int = 10 * MIB
    """Largest body accepted (default 10 MiB); larger is 413, checked while streaming."""
    max_in_flight: int = 64
    """Authenticated webhooks handled at once; more are answered 503 at once, never queued."""
    max_reading_bytes: int = 64 * MIB
    """Bytes all webhook bodies being read may hold together, before their senders are
    authenticated (default 64 MiB); a body that would pass it is 503."""
    read_timeout: float = 30.0
    """Seconds the whole body may take to arrive (408 after)."""
    apps_timeout: float = 10.0
    """Seconds listing Applications may take (503 after)."""


_SECRETS = {
    "github_secret": ("webhook.github.secret", "SLUICE_WEBHOOK_GITHUB_SECRET"),
    "gitlab_secret": ("webhook.gitlab.secret", "SLUICE_WEBHOOK_GITLAB_SECRET"),
    "bitbucket_uuid": ("webhook.bitbucket.uuid", "SLUICE_WEBHOOK_BITBUCKET_UUID"),
    "bitbucket_server_secret": (
        "webhook.bitbucketserver.secret",
        "SLUICE_WEBHOOK_BITBUCKETSERVER_SECRET",
    ),
    "azure_devops_username": (
        "webhook.azuredevops.username",
        "SLUICE_WEBHOOK_AZUREDEVOPS_USERNAME",
    ),
    "azure_devops_password": (
        "webhook.azuredevops.password",
        "SLUICE_WEBHOOK_AZUREDEVOPS_PASSWORD",
    ),
    "gogs_secret": ("webhook.gogs.secret", "SLUICE_WEBHOOK_GOGS_SECRET"),
    "gitea_secret": ("webhook.gitea.secret", "SLUICE_WEBHOOK_GITEA_SECRET"),
}
MAX_BODY_CEILING = 1024 * MIB
"""No configuration may accept bodies of a GiB or more."""
_LIMITS: dict[str, tuple[str, Callable[[str], float], float, float]] = {
    "max_body_bytes": ("SLUICE_WEBHOOK_MAX_BODY_BYTES", int, 1024, MAX_BODY_CEILING - 1),
    "max_in_flight": ("SLUICE_WEBHOOK_MAX_IN_FLIGHT", int, 1, 100_000),
    "max_reading_bytes": ("SLUICE_WEBHOOK_MAX_READING_BYTES", int, 1024, 16 * MAX_BODY_CEILING),
    "read_timeout": ("SLUICE_WEBHOOK_READ_TIMEOUT", float, 0.1, 3600),
    "apps_timeout": ("SLUICE_WEBHOOK_APPS_TIMEOUT", float, 0.1, 3600),
}


def setting_names(attribute: str) -> str:
    """How a user sets `attribute`: `webhook.github.secret (SLUICE_WEBHOOK_GITHUB_SECRET)`."""
    key, variable = _SECRETS[attribute]
    return f"{key} ({variable})"


def _decode_secret_value(key: str, value: object) -> str:
    if not isinstance(value, str):
        raise SettingsError(f"Secret key {key}: expected a base64 string")
    try:
        return base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        raise SettingsError(
            f"Secret key {key}: is not base64-encoded UTF-8 text; `data` values are base64 "
            "(use `stringData` to write plain text)"
        ) from None


def _number(
    variable: str, text: str, convert: Callable[[str], float], low: float, high: float
) -> float:
    where = f"environment variable {variable}"
    try:
        value = convert(text.strip())
    except ValueError:
        raise SettingsError(f"{where}: {text.strip()[:40]!r} is not a number") from None
    if not math.isfinite(value) or not low <= value <= high:
        raise SettingsError(f"{where}: must be between {low:g} and {high:g}")
    return value


def load_settings(
    env: Mapping[str, str], secret_data: Mapping[str, object] | None = None
) -> WebhookSettings:
    """Settings from `env` and a Secret's `data`; SettingsError names the key at fault."""
    secret = secret_data or {}
    values: dict[str, Any] = {}
    for attribute, (key, variable) in _SECRETS.items():
        if key in secret:
            values[attribute] = _decode_secret_value(key, secret[key])
        elif variable in env:
            values[attribute] = env[variable]
    for attribute, (variable, convert, low, high) in _LIMITS.items():
        if variable in env:
            values[attribute] = _number(variable, env[variable], convert, low, high)
    settings = replace(WebhookSettings(), **values)
    if bool(settings.azure_devops_username) != bool(settings.azure_devops_password):
        raise SettingsError(
            "webhook.azuredevops.username and webhook.azuredevops.password: set both or "
            "neither (Azure DevOps service hooks send both)"
        )
    return settings

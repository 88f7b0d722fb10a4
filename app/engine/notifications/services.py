"""`service.<type>[.<name>]`: the webhook, Slack and email services, with their secrets.

Every `$key` in a string option is replaced by that key of argocd-notifications-secret;
a key the Secret lacks refuses the service (Argo CD would send the literal `$key`).
Outbound URLs must be http(s) with a host, and unknown options are refused (a typo
would otherwise send without the header the operator meant). Credentials are kept out
of every `repr` and of every error message.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from app.engine.notifications.config_errors import NotificationsConfigError, read_yaml

_SECRET_REF = re.compile(r"\$[\w-]+")


@dataclass(frozen=True, slots=True)
class WebhookService:
    name: str
    url: str = field(repr=False)
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    basic_auth: tuple[str, str] | None = field(default=None, repr=False)
    insecure_skip_verify: bool = False
    type: str = "webhook"


@dataclass(frozen=True, slots=True)
class SlackService:
    """Slack through an incoming webhook (`webhookUrl`) or the Web API (`token`)."""

    name: str
    webhook_url: str = field(default="", repr=False)
    token: str = field(default="", repr=False)
    api_url: str = "https://slack.com/api/"
    username: str = ""
    icon: str = ""
    insecure_skip_verify: bool = False
    type: str = "slack"


@dataclass(frozen=True, slots=True)
class EmailService:
    name: str
    host: str
    port: int
    sender: str
    username: str = field(default="", repr=False)
    password: str = field(default="", repr=False)
    html: bool = False
    insecure_skip_verify: bool = False
    type: str = "email"


Service = WebhookService | SlackService | EmailService


def _resolve_secrets(key: str, value: Any, secret: Mapping[str, str]) -> Any:
    """Every `$name` in every string replaced by the Secret's `name`; a missing one refused."""
    if isinstance(value, str):

        def one(m: re.Match[str]) -> str:
            name = m.group(0)[1:]
            if name not in secret:
                raise NotificationsConfigError(
                    f"{key}: references ${name}, which argocd-notifications-secret does not "
                    "hold; add the key to the Secret"
                )
            return secret[name]

        return _SECRET_REF.sub(one, value)
    if isinstance(value, list):
        return [_resolve_secrets(key, v, secret) for v in value]
    if isinstance(value, dict):
        return {k: _resolve_secrets(key, v, secret) for k, v in value.items()}
    return value


def _http_url(key: str, field_name: str, url: Any) -> str:
    if not isinstance(url, str) or not url:
        raise NotificationsConfigError(f"{key}: {field_name} is required")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise NotificationsConfigError(f"{key}: {field_name} must be an http(s) URL with a host")
    return url


def _only(key: str, doc: dict[str, Any], allowed: set[str]) -> None:
    unknown = set(doc) - allowed
    if unknown:
        raise NotificationsConfigError(
            f"{key}: unknown options {sorted(unknown)} (known: {', '.join(sorted(allowed))})"
        )


def _flag(key: str, doc: dict[str, Any], name: str) -> bool:
    value = doc.get(name, False)
    if not isinstance(value, bool):
        raise NotificationsConfigError(f"{key}: {name} must be true or false")
    return value


def parse_service(key: str, text: str, secret: Mapping[str, str]) -> Service:
    parts = key.split(".")
    if len(parts) not in (2, 3) or not all(parts):
        raise NotificationsConfigError(f"{key}: expected service.<type> or service.<type>.<name>")
    kind, name = parts[1], parts[-1]
    raw = read_yaml(key, text)
    if not isinstance(raw, dict):
        raise NotificationsConfigError(f"{key}: expected a mapping of options")
    doc = _resolve_secrets(key, raw, secret)
    if kind == "webhook":
        _only(key, doc, {"url", "headers", "basicAuth", "insecureSkipVerify"})
        headers = doc.get("headers") or []
        if not isinstance(headers, list) or not all(
            isinstance(h, dict) and isinstance(h.get("name"), str) for h in headers
        ):
            raise NotificationsConfigError(f"{key}: headers must be a list of {{name, value}}")
        auth = doc.get("basicAuth")
        if auth is not None and not (
            isinstance(auth, dict) and isinstance(auth.get("username"), str)
        ):
            raise NotificationsConfigError(f"{key}: basicAuth needs username and password")
        return WebhookService(
            name=name,
            url=_http_url(key, "url", doc.get("url")),
            headers=tuple((h["name"], str(h.get("value", ""))) for h in headers),
            basic_auth=(auth["username"], str(auth.get("password", ""))) if auth else None,
            insecure_skip_verify=_flag(key, doc, "insecureSkipVerify"),
        )
    if kind == "slack":
        _only(
            key,
            doc,
            {"webhookUrl", "token", "apiURL", "username", "icon", "insecureSkipVerify"},
        )
        webhook_url, token = doc.get("webhookUrl") or "", doc.get("token") or ""
        if bool(webhook_url) == bool(token):
            raise NotificationsConfigError(
                f"{key}: set exactly one of webhookUrl (an incoming webhook) or token"
            )
        return SlackService(
            name=name,
            webhook_url=_http_url(key, "webhookUrl", webhook_url) if webhook_url else "",
            token=str(token),
            api_url=_http_url(key, "apiURL", doc.get("apiURL") or "https://slack.com/api/"),
            username=str(doc.get("username") or ""),
            icon=str(doc.get("icon") or ""),
            insecure_skip_verify=_flag(key, doc, "insecureSkipVerify"),
        )
    if kind == "email":
        _only(
            key,
            doc,
            {"host", "port", "username", "password", "from", "html", "insecure_skip_verify"},
        )
        host, port = doc.get("host"), doc.get("port", 587)
        if not isinstance(host, str) or not host:
            raise NotificationsConfigError(f"{key}: host is required")
        if isinstance(port, str) and port.isdigit():
            port = int(port)
        if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
            raise NotificationsConfigError(f"{key}: port must be a port number")
        sender = doc.get("from") or doc.get("username")
        if not isinstance(sender, str) or not sender:
            raise NotificationsConfigError(f"{key}: from (the sender address) is required")
        return EmailService(
            name=name,
            host=host,
            port=port,
            sender=sender,
            username=str(doc.get("username") or ""),
            password=str(doc.get("password") or ""),
            html=_flag(key, doc, "html"),
            insecure_skip_verify=_flag(key, doc, "insecure_skip_verify"),
        )
    raise NotificationsConfigError(
        f"{key}: service type {kind!r} is not supported (webhook, slack, email)"
    )

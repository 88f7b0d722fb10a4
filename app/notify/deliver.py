"""Delivering one rendered notification through one service (see the package docstring)."""

import json
import re
import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

import aiohttp
import aiosmtplib

from app.engine.notifications.decide import Notification
from app.engine.notifications.services import EmailService, Service, SlackService, WebhookService
from app.notify.errors import DeliveryError
from app.notify.http import HttpSettings, request, where

_EMOJI = re.compile(r"^:[a-z0-9_+\-]+:$")


@dataclass(frozen=True, slots=True)
class DeliverySettings:
    http: HttpSettings = field(default_factory=HttpSettings)
    smtp_timeout: float = 30.0
    """Seconds one SMTP conversation may take."""


async def deliver(
    service: Service, notification: Notification, recipient: str, settings: DeliverySettings
) -> None:
    """Send `notification` to `recipient` through `service`; DeliveryError if it failed."""
    if isinstance(service, WebhookService):
        await _webhook(service, notification, settings.http)
    elif isinstance(service, SlackService):
        await _slack(service, notification, recipient, settings.http)
    else:
        await _email(service, notification, recipient, settings.smtp_timeout)


async def _webhook(service: WebhookService, n: Notification, http: HttpSettings) -> None:
    url = service.url
    if n.webhook_path:
        url = url.rstrip("/") + "/" + n.webhook_path.lstrip("/")
    body = n.webhook_body if n.webhook_body is not None else n.message
    auth = aiohttp.BasicAuth(*service.basic_auth) if service.basic_auth else None
    await request(
        n.webhook_method or "GET",
        url,
        what=f"webhook {service.name}",
        settings=http,
        headers=dict(service.headers),
        body=body.encode(),
        auth=auth,
        verify=not service.insecure_skip_verify,
        secrets=[
            service.url,
            *(value for _, value in service.headers),
            *(service.basic_auth or ()),
        ],
    )


def _json_list(text: str, what: str) -> list[Any]:
    try:
        value = json.loads(text)
    except ValueError as e:
        raise DeliveryError(f"{what} is not JSON ({e.args[0][:80]})", retriable=False) from None
    if not isinstance(value, list):
        raise DeliveryError(f"{what} must be a JSON array", retriable=False)
    return value


def slack_payload(service: SlackService, n: Notification, channel: str) -> dict[str, Any]:
    """The chat.postMessage / incoming-webhook body Argo CD's Slack service would send."""
    payload: dict[str, Any] = {"text": n.message}
    if channel:
        payload["channel"] = channel
    for part in ("attachments", "blocks"):
        if n.slack.get(part, "").strip():
            payload[part] = _json_list(n.slack[part], f"slack {service.name}: the {part}")
    username = n.slack.get("username") or service.username
    if username:
        payload["username"] = username
    icon = n.slack.get("icon") or service.icon
    if icon:
        payload["icon_emoji" if _EMOJI.match(icon) else "icon_url"] = icon
    return payload


async def _slack(service: SlackService, n: Notification, channel: str, http: HttpSettings) -> None:
    what = f"slack {service.name}"
    payload = slack_payload(service, n, channel)
    body = json.dumps(payload).encode()
    headers = {"Content-Type": "application/json; charset=utf-8"}
    verify = not service.insecure_skip_verify
    secrets = [service.webhook_url, service.token]
    if service.webhook_url:
        await request(
            "POST",
            service.webhook_url,
            what=what,
            settings=http,
            headers=headers,
            body=body,
            verify=verify,
            secrets=secrets,
        )
        return
    if not channel:
        raise DeliveryError(f"{what}: the subscription names no channel", retriable=False)
    url = service.api_url.rstrip("/") + "/chat.postMessage"
    headers["Authorization"] = f"Bearer {service.token}"
    answer = await request(
        "POST",
        url,
        what=what,
        settings=http,
        headers=headers,
        body=body,
        verify=verify,
        secrets=secrets,
    )
    try:
        doc = json.loads(answer)
    except ValueError:
        raise DeliveryError(f"{what}: {where(url)} answered with no JSON", retriable=True) from None
    if not isinstance(doc, dict) or doc.get("ok") is not True:
        error = str(doc.get("error") if isinstance(doc, dict) else "")[:80] or "no reason given"
        retriable = error in ("ratelimited", "internal_error", "service_unavailable")
        raise DeliveryError(f"{what}: Slack refused the message: {error}", retriable=retriable)


async def _email(service: EmailService, n: Notification, recipient: str, deadline: float) -> None:
    what = f"email {service.name}"
    recipients = [r.strip() for r in recipient.split(",") if r.strip()]
    if not recipients:
        raise DeliveryError(f"{what}: the subscription names no address", retriable=False)
    if any(c in recipient for c in "\r\n<>"):
        raise DeliveryError(f"{what}: the recipient is not an address", retriable=False)
    message = EmailMessage()
    message["From"] = service.sender
    message["To"] = ", ".join(recipients)
    first_line = n.message.strip().splitlines()[0][:120] if n.message.strip() else ""
    subject = n.subject or first_line or "Sluice notification"
    message["Subject"] = " ".join(subject.split())
    message.set_content(n.message, subtype="html" if service.html else "plain")
    context = ssl.create_default_context()
    if service.insecure_skip_verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    try:
        await aiosmtplib.send(
            message,
            hostname=service.host,
            port=service.port,
            username=service.username or None,
            password=service.password or None,
            use_tls=service.port == 465,
            start_tls=None,
            tls_context=context,
            timeout=deadline,
        )
    except aiosmtplib.SMTPResponseException as e:
        raise DeliveryError(
            f"{what}: {service.host}:{service.port} refused the message (SMTP {e.code})",
            retriable=e.code >= 400 and e.code < 500,
        ) from None
    except (aiosmtplib.SMTPException, OSError, TimeoutError) as e:
        raise DeliveryError(
            f"{what}: cannot deliver through {service.host}:{service.port} ({type(e).__name__})",
            retriable=True,
        ) from None

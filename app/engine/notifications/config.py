"""`argocd-notifications-cm` and `argocd-notifications-secret`, read as Argo CD reads them.

    trigger.<name>           YAML list of conditions {when, oncePer, send, description}
                             (one mapping is read as a list of one)
    template.<name>          YAML {message, email: {subject}, slack: {attachments, blocks,
                             username, icon, groupingKey, notifyBroadcast},
                             webhook: {<service>: {method, path, body}}}
    service.<type>[.<name>]  YAML options of a webhook, slack or email service; the name
                             defaults to the type; every `$key` in a string is replaced by
                             that key of the Secret
    subscriptions            YAML list of {recipients: [<service>[:<recipient>]],
                             triggers: [...], selector: <label selector>}
    defaultTriggers          YAML list of trigger names for subscriptions naming none
    defaultTriggers.<svc>    the same, for one service
    context                  YAML map of strings, `.context` in templates

Each key stands alone: a key that does not parse is refused and named in `problems`
(which the worker logs) and the others are used, so one broken template does not silence
every notification; a notification that needs a refused key fails naming it. Stricter
than Argo CD: a service referencing a `$key` the Secret lacks is refused (Argo CD sends
the literal `$key`), an outbound URL must be http(s), and unknown service options are
refused (a typo would otherwise send without the header the operator meant). Template
sections for services Sluice does not ship (`teams:`, `github:`, ...) are kept aside as
notices, as a catalog written for Argo CD carries them.

Secrets (tokens, passwords, header values, webhook URLs) live only in the service
objects (never in their `repr`) and are never put in a problem, a notice or a log line.
"""

import base64
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.engine.notifications import catalog
from app.engine.notifications.config_errors import NotificationsConfigError, read_yaml
from app.engine.notifications.expr import Expression, compile_expression
from app.engine.notifications.functions import EvalError
from app.engine.notifications.gotemplate import Template, parse_template
from app.engine.notifications.services import Service, parse_service
from app.model.label_selector import LabelSelector, SelectorError, parse_label_selector


@dataclass(frozen=True, slots=True)
class Condition:
    """One condition of a trigger."""

    key: str
    """`[<index>].<hash of when>`, as notifications-engine keys what it already sent."""
    when: Expression
    once_per: Expression | None
    send: tuple[str, ...]
    description: str = ""


@dataclass(frozen=True, slots=True)
class WebhookTemplate:
    method: str
    path: Template | None
    body: Template | None


@dataclass(frozen=True, slots=True)
class NotificationTemplate:
    """One `template.<name>`: the parts each service type reads."""

    name: str
    message: Template | None = None
    email_subject: Template | None = None
    slack: Mapping[str, Template] = field(default_factory=dict)
    """attachments, blocks, username, icon, groupingKey, notifyBroadcast."""
    webhook: Mapping[str, WebhookTemplate] = field(default_factory=dict)
    """By the name of the webhook service it is for."""


@dataclass(frozen=True, slots=True)
class GlobalSubscription:
    recipients: tuple[str, ...]
    triggers: tuple[str, ...]
    selector: LabelSelector | None


@dataclass(frozen=True, slots=True)
class NotificationsConfig:
    triggers: Mapping[str, tuple[Condition, ...]] = field(default_factory=dict)
    templates: Mapping[str, NotificationTemplate] = field(default_factory=dict)
    services: Mapping[str, Service] = field(default_factory=dict)
    subscriptions: tuple[GlobalSubscription, ...] = ()
    default_triggers: tuple[str, ...] = ()
    service_default_triggers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    context: Mapping[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    """Every key refused, and why (secret-free)."""
    notices: tuple[str, ...] = ()
    """What is read but not used (template sections for services Sluice does not ship)."""
    refused: frozenset[str] = frozenset()
    """`trigger.<name>`, `template.<name>`, `service.<name>` of every refused key, so a
    send that needs one can say why it failed."""


def _strings(key: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise NotificationsConfigError(f"{key}: expected a list of strings")
    return tuple(value)


def _hash(text: str) -> str:
    digest = hashlib.sha1(text.encode(), usedforsecurity=False).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def _expression(key: str, source: Any, what: str) -> Expression:
    if not isinstance(source, str | bool):
        raise NotificationsConfigError(f"{key}: {what} must be an expression (a string)")
    text = str(source).lower() if isinstance(source, bool) else source
    try:
        return compile_expression(text)
    except EvalError as e:
        raise NotificationsConfigError(f"{key}: {what}: {e}") from None


def parse_trigger(key: str, text: str) -> tuple[Condition, ...]:
    doc = read_yaml(key, text)
    items = [doc] if isinstance(doc, dict) else doc
    if not isinstance(items, list) or not items:
        raise NotificationsConfigError(f"{key}: expected a list of conditions")
    out: list[Condition] = []
    for i, item in enumerate(items):
        where = f"{key}[{i}]"
        if not isinstance(item, dict):
            raise NotificationsConfigError(f"{where}: expected a mapping")
        unknown = set(item) - {"when", "oncePer", "send", "description"}
        if unknown:
            raise NotificationsConfigError(f"{where}: unknown fields {sorted(unknown)}")
        when_source = item.get("when", "false")
        when = _expression(where, when_source, "when")
        once = item.get("oncePer")
        once_per = _expression(where, once, "oncePer") if once not in (None, "") else None
        send = _strings(f"{where}.send", item.get("send"))
        out.append(
            Condition(
                key=f"[{i}].{_hash(str(when_source))}",
                when=when,
                once_per=once_per,
                send=send,
                description=str(item.get("description") or ""),
            )
        )
    return tuple(out)


def _template(key: str, value: Any, name: str) -> Template | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise NotificationsConfigError(f"{key}: expected a string")
    try:
        return parse_template(value, name)
    except EvalError as e:
        raise NotificationsConfigError(f"{key}: {e}") from None


SLACK_FIELDS = ("attachments", "blocks", "username", "icon", "groupingKey", "notifyBroadcast")


def parse_template_spec(
    key: str, name: str, text: str
) -> tuple[NotificationTemplate, tuple[str, ...]]:
    """The template and the sections it holds for services Sluice does not ship."""
    doc = read_yaml(key, text)
    if not isinstance(doc, dict):
        raise NotificationsConfigError(f"{key}: expected a mapping")
    notices = tuple(sorted(k for k in doc if k not in ("message", "email", "slack", "webhook")))
    email = doc.get("email") or {}
    slack = doc.get("slack") or {}
    webhook = doc.get("webhook") or {}
    for section, value in (("email", email), ("slack", slack), ("webhook", webhook)):
        if not isinstance(value, dict):
            raise NotificationsConfigError(f"{key}.{section}: expected a mapping")
    slack_parts: dict[str, Template] = {}
    for part, value in slack.items():
        if part not in SLACK_FIELDS:
            raise NotificationsConfigError(f"{key}.slack: unknown field {part!r}")
        parsed = _template(f"{key}.slack.{part}", str(value), f"{name}.slack.{part}")
        if parsed is not None:
            slack_parts[part] = parsed
    hooks: dict[str, WebhookTemplate] = {}
    for service, spec in webhook.items():
        where = f"{key}.webhook.{service}"
        if not isinstance(spec, dict) or set(spec) - {"method", "path", "body"}:
            raise NotificationsConfigError(f"{where}: expected {{method, path, body}}")
        method = str(spec.get("method") or "GET").upper()
        if method not in ("GET", "POST", "PUT", "PATCH", "DELETE"):
            raise NotificationsConfigError(f"{where}.method: {method!r} is not an HTTP method")
        hooks[str(service)] = WebhookTemplate(
            method,
            _template(f"{where}.path", spec.get("path"), f"{name}.webhook.{service}.path"),
            _template(f"{where}.body", spec.get("body"), f"{name}.webhook.{service}.body"),
        )
    return (
        NotificationTemplate(
            name=name,
            message=_template(f"{key}.message", doc.get("message"), f"{name}.message"),
            email_subject=_template(
                f"{key}.email.subject", email.get("subject"), f"{name}.email.subject"
            ),
            slack=slack_parts,
            webhook=hooks,
        ),
        notices,
    )


def _subscriptions(text: str) -> tuple[GlobalSubscription, ...]:
    doc = read_yaml("subscriptions", text) or []
    if not isinstance(doc, list):
        raise NotificationsConfigError("subscriptions: expected a list")
    out: list[GlobalSubscription] = []
    for i, item in enumerate(doc):
        where = f"subscriptions[{i}]"
        if not isinstance(item, dict):
            raise NotificationsConfigError(f"{where}: expected a mapping")
        selector_text = item.get("selector") or ""
        try:
            selector = parse_label_selector(str(selector_text)) if selector_text else None
        except SelectorError as e:
            raise NotificationsConfigError(f"{where}.selector: {e}") from None
        out.append(
            GlobalSubscription(
                recipients=_strings(f"{where}.recipients", item.get("recipients")),
                triggers=_strings(f"{where}.triggers", item.get("triggers")),
                selector=selector,
            )
        )
    return tuple(out)


def _context(text: str) -> dict[str, str]:
    doc = read_yaml("context", text) or {}
    if not isinstance(doc, dict):
        raise NotificationsConfigError("context: expected a mapping of strings")
    return {str(k): "" if v is None else str(v) for k, v in doc.items()}


TRIGGERS = {name: parse_trigger(f"trigger.{name}", text) for name, text in catalog.TRIGGERS.items()}
TEMPLATES = {
    name: parse_template_spec(f"template.{name}", name, text)[0]
    for name, text in catalog.TEMPLATES.items()
}
"""The shipped catalog, parsed (a mistake in it fails at import, so in every test)."""


@dataclass
class _Builder:
    triggers: dict[str, tuple[Condition, ...]] = field(default_factory=lambda: dict(TRIGGERS))
    templates: dict[str, NotificationTemplate] = field(default_factory=lambda: dict(TEMPLATES))
    services: dict[str, Service] = field(default_factory=dict)
    subscriptions: tuple[GlobalSubscription, ...] = ()
    defaults: tuple[str, ...] = ()
    service_defaults: dict[str, tuple[str, ...]] = field(default_factory=dict)
    context: dict[str, str] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    refused: set[str] = field(default_factory=set)
    """`trigger.<name>`, `template.<name>`, `service.<name>` of the keys that failed."""

    def read(self, key: str, text: str, secret: Mapping[str, str]) -> None:
        if key.startswith("trigger."):
            name = key.removeprefix("trigger.")
            self.refused.add(key)
            self.triggers.pop(name, None)
            self.triggers[name] = parse_trigger(key, text)
            self.refused.discard(key)
        elif key.startswith("template."):
            name = key.removeprefix("template.")
            self.refused.add(key)
            self.templates.pop(name, None)
            self.templates[name], extra = parse_template_spec(key, name, text)
            self.refused.discard(key)
            self.notices += [f"{key}: section {section!r} is not used" for section in extra]
        elif key.startswith("service."):
            name = f"service.{key.rsplit('.', maxsplit=1)[-1]}"
            self.refused.add(name)
            self.services[name.removeprefix("service.")] = parse_service(key, text, secret)
            self.refused.discard(name)
        elif key == "subscriptions":
            self.subscriptions = _subscriptions(text)
        elif key == "defaultTriggers":
            self.defaults = _strings(key, read_yaml(key, text))
        elif key.startswith("defaultTriggers."):
            service = key.removeprefix("defaultTriggers.")
            self.service_defaults[service] = _strings(key, read_yaml(key, text))
        elif key == "context":
            self.context = _context(text)
        else:
            self.notices.append(f"{key}: not a key Sluice reads")


def parse_notifications(data: Mapping[str, Any], secret: Mapping[str, str]) -> NotificationsConfig:
    """The configuration in force for this ConfigMap data and decoded Secret data, with
    the shipped catalog under it (see the module docstring)."""
    built = _Builder()
    problems: list[str] = []
    for key in sorted(data):
        try:
            if not isinstance(data[key], str):
                raise NotificationsConfigError(f"{key}: expected a string value")
            built.read(key, data[key], secret)
        except NotificationsConfigError as e:
            problems.append(str(e))
    return NotificationsConfig(
        triggers=built.triggers,
        templates=built.templates,
        services=built.services,
        subscriptions=built.subscriptions,
        default_triggers=built.defaults,
        service_default_triggers=built.service_defaults,
        context=built.context,
        problems=tuple(problems),
        notices=tuple(built.notices),
        refused=frozenset(built.refused),
    )

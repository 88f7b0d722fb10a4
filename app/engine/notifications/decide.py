"""What to send for one app now, and the messages themselves.

`decide` runs every subscribed trigger's conditions over the Application (its JSON as
Argo CD shows it, status included) and compares with what was already sent (`sent`: the
record keys of earlier sends), as notifications-engine does:

- a condition true for a destination with no record → a `Send` (the worker records it
  once delivered);
- a condition false → its record, if any, is forgotten (`clear`), so the next time it
  becomes true it is sent again; a condition with `oncePer` records per value of that
  expression (`<value>:<trigger>:<condition>:<service>:<recipient>`), and those records
  are never forgotten: once per value, ever;
- a condition that fails to evaluate counts as false and is named in `problems`.

An app whose last operation finished after its last comparison is not evaluated (`stale`):
its sync and health status still describe the cluster before the operation, and Argo CD
waits for the refresh the same way.

`render` writes a Send's templates for the destination's service (later templates of
`send` fill or replace what earlier ones wrote, as Argo CD composes them); the result is
bounded in size, and carries no secret (templates get no `.secrets`).
"""

from collections.abc import Mapping, Set
from dataclasses import dataclass, field
from typing import Any

from app.engine.notifications.config import NotificationsConfig
from app.engine.notifications.functions import HELPERS, EvalError
from app.engine.notifications.services import Service
from app.engine.notifications.subscriptions import Destination, Destinations
from app.engine.notifications.template_functions import show
from app.model.timestamps import parse_time

MAX_NOTIFICATION_CHARS = 48 * 1024
"""A rendered notification (all its parts) longer than this is refused."""


@dataclass(frozen=True, slots=True)
class Send:
    trigger: str
    condition: str
    once_per: str
    destination: Destination
    templates: tuple[str, ...]
    has_once_per: bool = False

    @property
    def record(self) -> str:
        once = self.once_per if self.has_once_per else None
        return record_key(self.trigger, self.condition, self.destination, once)


@dataclass(frozen=True, slots=True)
class Decision:
    sends: tuple[Send, ...] = ()
    clear: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    stale: str = ""
    """Why nothing was evaluated (the status predates the last operation's end)."""


def record_key(trigger: str, condition: str, dest: Destination, once_per: str | None) -> str:
    key = f"{trigger}:{condition}:{dest.service}:{dest.recipient}"
    return f"{once_per}:{key}" if once_per is not None else key


def variables(
    config: NotificationsConfig, app: Mapping[str, Any], project: Mapping[str, Any]
) -> dict[str, Any]:
    """What expressions and templates see: `app`, `appProject`, `context` and the helpers."""
    return {"app": app, "appProject": project, "context": dict(config.context), **HELPERS}


def _stale(app: Mapping[str, Any]) -> str:
    status = app.get("status") or {}
    state = status.get("operationState") or {}
    if state.get("phase") not in ("Succeeded", "Failed", "Error"):
        return ""
    try:
        finished = parse_time(str(state.get("finishedAt") or "")).replace(microsecond=0)
    except ValueError:
        return "the finished operation has no finishedAt"
    seen = []
    for name in ("reconciledAt", "observedAt"):
        try:
            seen.append(parse_time(str(status.get(name) or "")))
        except ValueError:
            continue
    if all(finished > t for t in seen):
        return "the status predates the end of the last operation; waiting for its refresh"
    return ""


def decide(
    config: NotificationsConfig,
    app: Mapping[str, Any],
    project: Mapping[str, Any],
    destinations: Destinations,
    sent: Set[str],
    *,
    ignore_stale: bool = False,
) -> Decision:
    """What to send and which records to forget (see the module docstring);
    `ignore_stale` evaluates an app whose status predates its last operation's end."""
    stale = "" if ignore_stale else _stale(app)
    if stale:
        return Decision(stale=stale)
    env = variables(config, app, project)
    sends: list[Send] = []
    clear: list[str] = []
    problems: list[str] = []
    for trigger in sorted(destinations):
        dests = destinations[trigger]
        conditions = config.triggers.get(trigger)
        if conditions is None:
            why = (
                "refused (see notifications.config_refused)"
                if (f"trigger.{trigger}" in config.refused)
                else "not configured (add trigger." + trigger + " to argocd-notifications-cm)"
            )
            problems.append(f"trigger {trigger}: {why}")
            continue
        for condition in conditions:
            try:
                triggered = condition.when.run(env) is True
            except EvalError as e:
                problems.append(f"trigger {trigger} condition {condition.key}: when: {e}")
                triggered = False
            if not triggered:
                clear += [
                    key
                    for d in dests
                    if (key := record_key(trigger, condition.key, d, None)) in sent
                ]
                continue
            once: str | None = None
            if condition.once_per is not None:
                try:
                    value = condition.once_per.run(env)
                except EvalError as e:
                    problems.append(f"trigger {trigger} condition {condition.key}: oncePer: {e}")
                    continue
                once = "<nil>" if value is None else show(value)
            for d in dests:
                send = Send(
                    trigger,
                    condition.key,
                    once or "",
                    d,
                    condition.send,
                    has_once_per=once is not None,
                )
                if record_key(trigger, condition.key, d, once) not in sent:
                    sends.append(send)
    return Decision(tuple(sends), tuple(clear), tuple(problems))


@dataclass(frozen=True, slots=True)
class Notification:
    """A rendered notification for one service: what the sender delivers, as data."""

    message: str = ""
    subject: str = ""
    slack: dict[str, str] = field(default_factory=dict)
    webhook_method: str = ""
    webhook_path: str = ""
    webhook_body: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "subject": self.subject,
            "slack": dict(self.slack),
            "webhookMethod": self.webhook_method,
            "webhookPath": self.webhook_path,
            "webhookBody": self.webhook_body,
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> "Notification":
        body = doc.get("webhookBody")
        slack = doc.get("slack") or {}
        return cls(
            message=str(doc.get("message") or ""),
            subject=str(doc.get("subject") or ""),
            slack={str(k): str(v) for k, v in slack.items()} if isinstance(slack, dict) else {},
            webhook_method=str(doc.get("webhookMethod") or ""),
            webhook_path=str(doc.get("webhookPath") or ""),
            webhook_body=None if body is None else str(body),
        )


def render(
    config: NotificationsConfig,
    send: Send,
    service: Service,
    app: Mapping[str, Any],
    project: Mapping[str, Any],
) -> Notification:
    """The send's templates written for `service`; EvalError says which template failed."""
    env = variables(config, app, project) | {
        "serviceType": send.destination.service,
        "recipient": send.destination.recipient,
    }
    message = subject = path = method = ""
    body: str | None = None
    slack: dict[str, str] = {}
    for name in send.templates:
        template = config.templates.get(name)
        if template is None:
            state = "refused" if f"template.{name}" in config.refused else "not configured"
            raise EvalError(f"template {name} is {state}")
        if template.message is not None:
            message = template.message.render(env)
        if service.type == "email" and template.email_subject is not None:
            subject = template.email_subject.render(env)
        if service.type == "slack":
            slack |= {part: t.render(env) for part, t in template.slack.items()}
        hook = template.webhook.get(send.destination.service)
        if service.type == "webhook" and hook is not None:
            method = hook.method
            path = hook.path.render(env) if hook.path is not None else ""
            body = hook.body.render(env) if hook.body is not None else ""
    size = len(message) + len(subject) + len(path) + len(body or "") + sum(map(len, slack.values()))
    if size > MAX_NOTIFICATION_CHARS:
        raise EvalError(f"the notification is {size} characters, over {MAX_NOTIFICATION_CHARS}")
    return Notification(message, subject, slack, method, path, body)

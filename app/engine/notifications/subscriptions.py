"""Who is subscribed to which trigger of an app, as notifications-engine reads it.

- `notifications.argoproj.io/subscribe.<trigger>.<service>: <r1>;<r2>` on the Application
  or on its AppProject: those recipients (blank ones dropped; an empty value is one
  recipient "", which a webhook needs none of) for that trigger and service.
- `notifications.argoproj.io/subscribe.<service>: …`: the same for each trigger of
  `defaultTriggers.<service>`, else of `defaultTriggers`.
- `notifications.argoproj.io/subscriptions` (YAML list of `{trigger: [...], destinations:
  [{service, recipients: [...]}]}`), the long form.
- The ConfigMap's `subscriptions`: `recipients` written `<service>[:<recipient>]`, for
  the listed triggers (none listed: `defaultTriggers`), on apps matching `selector`.

Destinations are de-duplicated per trigger.
"""

from collections.abc import Mapping
from dataclasses import dataclass

import yaml

from app.engine.notifications.config import NotificationsConfig

PREFIX = "notifications.argoproj.io/subscribe."
LONG_FORM = "notifications.argoproj.io/subscriptions"


@dataclass(frozen=True, slots=True, order=True)
class Destination:
    service: str
    recipient: str


Destinations = dict[str, list[Destination]]
"""Trigger name -> its destinations, in the order found."""


def _recipients(value: str) -> list[str]:
    if value == "":
        return [""]
    return [r.strip() for r in value.split(";") if r.strip()]


def _add(out: Destinations, trigger: str, service: str, recipients: list[str]) -> None:
    found = out.setdefault(trigger, [])
    for recipient in recipients:
        dest = Destination(service, recipient)
        if dest not in found:
            found.append(dest)


def _long_form(value: str) -> list[tuple[list[str], str, list[str]]]:
    """(triggers, service, recipients) of the subscriptions annotation; nothing if unreadable."""
    try:
        doc = yaml.safe_load(value)
    except yaml.YAMLError:
        return []
    out: list[tuple[list[str], str, list[str]]] = []
    for item in doc if isinstance(doc, list) else []:
        if not isinstance(item, dict):
            continue
        triggers = [t for t in item.get("trigger") or [] if isinstance(t, str)]
        for dest in item.get("destinations") or []:
            if isinstance(dest, dict) and isinstance(dest.get("service"), str):
                recipients = [r for r in dest.get("recipients") or [] if isinstance(r, str)]
                out.append((triggers, dest["service"], recipients))
    return out


def annotation_destinations(
    annotations: Mapping[str, str], config: NotificationsConfig
) -> Destinations:
    out: Destinations = {}

    def defaults(service: str) -> tuple[str, ...]:
        return config.service_default_triggers.get(service, config.default_triggers)

    for key in sorted(annotations):
        value = annotations[key]
        if key.startswith(PREFIX):
            trigger, _, service = key.removeprefix(PREFIX).partition(".")
            if not service:
                trigger, service = "", trigger
            for name in [trigger] if trigger else defaults(service):
                _add(out, name, service, _recipients(value))
        elif key == LONG_FORM:
            for triggers, service, recipients in _long_form(value):
                for name in triggers or defaults(service):
                    _add(out, name, service, recipients)
    return out


def destinations(
    app_annotations: Mapping[str, str],
    app_labels: Mapping[str, str],
    project_annotations: Mapping[str, str],
    config: NotificationsConfig,
) -> Destinations:
    """Every trigger the app is subscribed to, with its destinations (see the docstring)."""
    out: Destinations = {}
    for subscription in config.subscriptions:
        if subscription.selector is not None and not subscription.selector.matches(app_labels):
            continue
        for trigger in subscription.triggers or config.default_triggers:
            for recipient in subscription.recipients:
                service, _, who = recipient.partition(":")
                _add(out, trigger, service, [who])
    for found in (
        annotation_destinations(app_annotations, config),
        annotation_destinations(project_annotations, config),
    ):
        for trigger, dests in found.items():
            for dest in dests:
                _add(out, trigger, dest.service, [dest.recipient])
    return out

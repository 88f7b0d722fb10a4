"""The values resource actions are described and answered with."""

import enum
from dataclasses import dataclass

from app.model.resource import KubeObject

MAX_PARAMS = 16
"""Parameters one run accepts."""
MAX_PARAM_CHARS = 1024
"""Longest parameter name or value."""


class ActionError(Exception):
    """An action cannot be listed or run; the text says which action, object and why."""


@dataclass(frozen=True, slots=True)
class ActionParam:
    """A parameter an action takes (discovery) or is given (a run)."""

    name: str
    value: str = ""
    type: str = ""
    default: str = ""


@dataclass(frozen=True, slots=True)
class ResourceAction:
    """One action an object offers, as Argo CD lists it."""

    name: str
    disabled: bool = False
    """Offered but not possible now (resume on a rollout that is not paused)."""
    icon_class: str = ""
    display_name: str = ""
    params: tuple[ActionParam, ...] = ()


class Operation(enum.StrEnum):
    """What the caller does with an object an action returns."""

    PATCH = "patch"
    """The object the action ran on, changed: patch it."""
    CREATE = "create"
    """A new object (a Job from a CronJob): create it."""


@dataclass(frozen=True, slots=True)
class ImpactedResource:
    operation: Operation
    obj: KubeObject

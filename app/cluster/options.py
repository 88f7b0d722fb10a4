"""The small named values cluster operations take and return."""

import enum
from dataclasses import dataclass

from app.model.resource import KubeObject


class ApplyMode(enum.Enum):
    """How `Cluster.apply` writes an object."""

    SERVER_SIDE = "server-side"
    """PATCH with `apply-patch+yaml`: the server merges and records field ownership."""
    CLIENT_SIDE = "client-side"
    """kubectl's classic apply: a three-way patch against the last-applied annotation."""


class FieldValidation(enum.Enum):
    """What the server does with fields the object's kind does not have (`fieldValidation`)."""

    STRICT = "Strict"
    """Refuse the write (kubectl's default, `--validate=true`)."""
    WARN = "Warn"
    """Drop them and warn (the server's default when a client says nothing)."""
    IGNORE = "Ignore"
    """Drop them silently (`kubectl --validate=false`, Argo CD's `Validate=false`)."""


class PatchType(enum.Enum):
    """A PATCH body's format, as its Content-Type."""

    JSON = "application/json-patch+json"
    """RFC 6902: a list of operations."""
    MERGE = "application/merge-patch+json"
    """RFC 7386: a partial object; null deletes; lists replaced whole."""
    STRATEGIC = "application/strategic-merge-patch+json"
    """Kubernetes' merge keyed by each list's patch strategy (built-in kinds only)."""
    APPLY = "application/apply-patch+yaml"
    """Server-side apply: the full intended object of one field manager."""


@dataclass(frozen=True, slots=True)
class Preconditions:
    """Delete only if the live object still has this uid and/or resourceVersion."""

    uid: str = ""
    resource_version: str = ""


@dataclass(frozen=True, slots=True)
class ObjectList:
    """The objects a list returned (apiVersion and kind set on each) and the list's
    resourceVersion, from which a watch continues without a gap."""

    items: list[KubeObject]
    resource_version: str

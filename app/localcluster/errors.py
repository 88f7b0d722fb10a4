"""Kubernetes `Status` errors: one exception type, one constructor per reason.

Every refusal the local cluster gives is an `ApiError` carrying the HTTP code, the
`reason` clients switch on (NotFound, Conflict, Invalid...) and a message worded the
way the real API server words it, so kubectl and kubernetes-asyncio show what the user
would see against a real cluster.
"""

from dataclasses import dataclass, field
from typing import Any

from app.localcluster.resources import GroupResource


@dataclass(frozen=True, slots=True)
class Cause:
    """One `details.causes[]` entry: which field, and what is wrong with it."""

    reason: str
    message: str
    field: str = ""

    def to_dict(self) -> dict[str, str]:
        out = {"reason": self.reason, "message": self.message}
        if self.field:
            out["field"] = self.field
        return out


@dataclass(slots=True)
class ApiError(Exception):
    """A refused request, rendered as a `Status` object with `code`."""

    code: int
    reason: str
    message: str
    name: str = ""
    group: str = ""
    kind: str = ""
    causes: list[Cause] = field(default_factory=list)
    retry_after: int = 0

    def __str__(self) -> str:
        return self.message

    def status(self) -> dict[str, Any]:
        """The `Status` object body."""
        details: dict[str, Any] = {}
        if self.name:
            details["name"] = self.name
        if self.group:
            details["group"] = self.group
        if self.kind:
            details["kind"] = self.kind
        if self.causes:
            details["causes"] = [c.to_dict() for c in self.causes]
        if self.retry_after:
            details["retryAfterSeconds"] = self.retry_after
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }
        if details:
            body["details"] = details
        return body


def not_found(gr: GroupResource, name: str) -> ApiError:
    return ApiError(
        404, "NotFound", f'{gr} "{name}" not found', name=name, group=gr.group, kind=gr.resource
    )


def namespace_not_found(namespace: str) -> ApiError:
    return ApiError(
        404, "NotFound", f'namespaces "{namespace}" not found', name=namespace, kind="namespaces"
    )


def already_exists(gr: GroupResource, name: str) -> ApiError:
    return ApiError(
        409,
        "AlreadyExists",
        f'{gr} "{name}" already exists',
        name=name,
        group=gr.group,
        kind=gr.resource,
    )


def conflict(gr: GroupResource, name: str, why: str) -> ApiError:
    return ApiError(
        409,
        "Conflict",
        f'Operation cannot be fulfilled on {gr} "{name}": {why}',
        name=name,
        group=gr.group,
        kind=gr.resource,
    )


def modified(gr: GroupResource, name: str) -> ApiError:
    """Optimistic concurrency: the resourceVersion sent is not the stored one."""
    return conflict(
        gr,
        name,
        "the object has been modified; please apply your changes to the latest version "
        "and try again",
    )


def invalid(kind: str, group: str, name: str, causes: list[Cause]) -> ApiError:
    """422 with one cause per bad field, worded `Kind.group "name" is invalid: field: ...`."""
    qualified = f"{kind}.{group}" if group else kind
    listed = ", ".join(f"{c.field}: {c.message}" if c.field else c.message for c in causes)
    label = f'{qualified} "{name}"' if name else qualified
    return ApiError(
        422,
        "Invalid",
        f"{label} is invalid: {listed}",
        name=name,
        group=group,
        kind=kind,
        causes=causes,
    )


def field_invalid(kind: str, group: str, name: str, path: str, problem: str) -> ApiError:
    return invalid(kind, group, name, [Cause("FieldValueInvalid", problem, path)])


def forbidden(gr: GroupResource, name: str, why: str, cause: Cause | None = None) -> ApiError:
    label = f'{gr} "{name}"' if name else str(gr)
    return ApiError(
        403,
        "Forbidden",
        f"{label} is forbidden: {why}",
        name=name,
        group=gr.group,
        kind=gr.resource,
        causes=[cause] if cause else [],
    )


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


def method_not_allowed(message: str) -> ApiError:
    return ApiError(405, "MethodNotAllowed", message)


def unsupported_media_type(message: str) -> ApiError:
    return ApiError(415, "UnsupportedMediaType", message)


def expired(message: str) -> ApiError:
    return ApiError(410, "Expired", message)


def too_large(limit: int) -> ApiError:
    return ApiError(
        413, "RequestEntityTooLarge", f"request body is larger than the limit of {limit} bytes"
    )

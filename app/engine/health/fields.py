"""Typed reads from raw Kubernetes objects, for the health checks.

Live objects are plain JSON dicts. A field that is absent or null reads as its default
(as Go's typed conversion does in Argo CD); a field of the wrong type raises `SpecError`
naming the dotted path, which `assess` turns into health Unknown with that text, instead
of a traceback or a silently wrong answer.
"""

from dataclasses import dataclass
from typing import Any

from app.model.errors import SpecError
from app.model.resource import KubeObject


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _where(at: str, path: str) -> str:
    return f"{at}.{path}" if at else path


def value(obj: KubeObject, path: str, *, at: str = "") -> object:
    """The value at a dotted path (`status.loadBalancer.ingress`), or None if absent.

    `at` is where `obj` itself sits (`status.containerStatuses[0]`), for error paths.
    """
    node: object = obj
    walked: list[str] = []
    for part in path.split("."):
        if node is None:
            return None
        if not isinstance(node, dict):
            where = _where(at, ".".join(walked))
            raise SpecError(where, f"expected an object, got {_json_type(node)}")
        node = node.get(part)
        walked.append(part)
    return node


def opt_integer(obj: KubeObject, path: str, *, at: str = "") -> int | None:
    """An integer field, or None when it is absent (Go's nil pointer)."""
    found = value(obj, path, at=at)
    if found is None:
        return None
    if isinstance(found, bool) or not isinstance(found, int | float):
        raise SpecError(_where(at, path), f"expected an integer, got {_json_type(found)}")
    if isinstance(found, float) and not found.is_integer():
        raise SpecError(_where(at, path), f"expected an integer, got {found}")
    return int(found)


def integer(obj: KubeObject, path: str, *, at: str = "") -> int:
    """An integer field; absent reads as 0."""
    found = opt_integer(obj, path, at=at)
    return 0 if found is None else found


def string(obj: KubeObject, path: str, *, at: str = "") -> str:
    """A string field; absent reads as ""."""
    found = value(obj, path, at=at)
    if found is None:
        return ""
    if not isinstance(found, str):
        raise SpecError(_where(at, path), f"expected a string, got {_json_type(found)}")
    return found


def flag(obj: KubeObject, path: str, *, at: str = "") -> bool:
    """A boolean field; absent reads as False."""
    found = value(obj, path, at=at)
    if found is None:
        return False
    if not isinstance(found, bool):
        raise SpecError(_where(at, path), f"expected a boolean, got {_json_type(found)}")
    return found


def mapping(obj: KubeObject, path: str, *, at: str = "") -> dict[str, Any]:
    """An object field; absent reads as {}."""
    found = value(obj, path, at=at)
    if found is None:
        return {}
    if not isinstance(found, dict):
        raise SpecError(_where(at, path), f"expected an object, got {_json_type(found)}")
    return found


def items(obj: KubeObject, path: str, *, at: str = "") -> list[Any]:
    """An array field; absent reads as []."""
    found = value(obj, path, at=at)
    if found is None:
        return []
    if not isinstance(found, list):
        raise SpecError(_where(at, path), f"expected an array, got {_json_type(found)}")
    return found


def entries(obj: KubeObject, path: str) -> list[tuple[str, dict[str, Any]]]:
    """The objects of an array field, each with its path (`status.conditions[2]`)."""
    result = []
    for index, entry in enumerate(items(obj, path)):
        where = f"{path}[{index}]"
        if not isinstance(entry, dict):
            raise SpecError(where, f"expected an object, got {_json_type(entry)}")
        result.append((where, entry))
    return result


@dataclass(frozen=True, slots=True)
class Condition:
    """One entry of a Kubernetes `conditions` array."""

    type: str
    status: str
    reason: str
    message: str

    @property
    def true(self) -> bool:
        return self.status == "True"

    @property
    def false(self) -> bool:
        return self.status == "False"


def condition_list(raw: list[Any], path: str) -> list[Condition]:
    """Conditions from an already-decoded array (used for annotation-encoded conditions)."""
    result = []
    for index, entry in enumerate(raw):
        where = f"{path}[{index}]"
        if not isinstance(entry, dict):
            raise SpecError(where, f"expected an object, got {_json_type(entry)}")
        result.append(
            Condition(
                type=string(entry, "type", at=where),
                status=string(entry, "status", at=where),
                reason=string(entry, "reason", at=where),
                message=string(entry, "message", at=where),
            )
        )
    return result


def conditions(obj: KubeObject, path: str = "status.conditions") -> list[Condition]:
    """The conditions array at `path` (default `status.conditions`)."""
    return condition_list(items(obj, path), path)


def find(found: list[Condition], condition_type: str) -> Condition | None:
    """The first condition of a type, or None (Kubernetes keeps one per type)."""
    for condition in found:
        if condition.type == condition_type:
            return condition
    return None


def name(obj: KubeObject) -> str:
    """`metadata.name`, or ""."""
    return string(obj, "metadata.name")

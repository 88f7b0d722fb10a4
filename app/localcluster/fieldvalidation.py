"""`fieldValidation`: what a write does with fields its kind does not have.

As the API server (1.27+): `Strict` refuses the write (400 BadRequest, "strict decoding
error: unknown field ..."), `Warn` (the default when a client sends nothing) and `Ignore`
drop the unknown fields and store the rest. kubectl sends `Strict` unless
`--validate=false`, which sends `Ignore`; Argo CD does the same for `Validate=false`.

Which fields are known: for a custom resource, its CRD's structural schema (`properties`,
`additionalProperties`, `items`, `x-kubernetes-preserve-unknown-fields`,
`x-kubernetes-embedded-resource`); for a built-in kind, `known_fields` (top level,
metadata, and the spec of workload kinds: deeper fields are not checked). `apiVersion`,
`kind` and metadata's fields are known everywhere. Internal writes (the simulated
controllers) are not checked.
"""

import enum
from collections.abc import Mapping
from typing import Any

from app.localcluster import errors
from app.localcluster.known_fields import BUILTIN_FIELDS, OBJECT_META, Fields
from app.localcluster.resources import ResourceType
from app.model.resource import KubeObject

PRESERVE = "x-kubernetes-preserve-unknown-fields"
EMBEDDED = "x-kubernetes-embedded-resource"


class FieldValidation(enum.Enum):
    IGNORE = "Ignore"
    WARN = "Warn"
    STRICT = "Strict"


def parse(value: str) -> FieldValidation:
    """The query parameter's value; empty is the server default, Warn."""
    if not value:
        return FieldValidation.WARN
    try:
        return FieldValidation(value)
    except ValueError:
        known = ", ".join(v.value for v in FieldValidation)
        raise errors.bad_request(
            f"fieldValidation must be one of {known}, got {value[:40]!r}"
        ) from None


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _by_table(value: Any, fields: Fields | None, path: str, unknown: list[str]) -> Any:
    if fields is None or not isinstance(value, dict):
        return value
    kept: dict[str, Any] = {}
    for key, child in value.items():
        if key not in fields:
            unknown.append(_join(path, key))
            continue
        kept[key] = _by_table(child, fields[key], _join(path, key), unknown)
    return kept


def _by_schema(value: Any, schema: Any, path: str, unknown: list[str], *, root: bool) -> Any:
    if not isinstance(schema, Mapping):
        return value
    if isinstance(value, list):
        items = schema.get("items")
        return [
            _by_schema(v, items, f"{path}[{i}]", unknown, root=False) for i, v in enumerate(value)
        ]
    if not isinstance(value, dict):
        return value
    properties = schema.get("properties") or {}
    additional = schema.get("additionalProperties")
    preserve = schema.get(PRESERVE) is True
    resource = root or schema.get(EMBEDDED) is True
    kept: dict[str, Any] = {}
    for key, child in value.items():
        where = _join(path, key)
        if resource and key in ("apiVersion", "kind"):
            kept[key] = child
        elif resource and key == "metadata":
            kept[key] = _by_table(child, OBJECT_META, where, unknown)
        elif key in properties:
            kept[key] = _by_schema(child, properties[key], where, unknown, root=False)
        elif isinstance(additional, Mapping):
            kept[key] = _by_schema(child, additional, where, unknown, root=False)
        elif additional is True or preserve:
            kept[key] = child
        else:
            unknown.append(where)
    return kept


def check(
    rt: ResourceType,
    obj: KubeObject,
    validation: FieldValidation,
    schema: Mapping[str, Any] | None,
) -> KubeObject:
    """`obj` without its unknown fields, or BadRequest naming them all under Strict.

    `schema` is the custom resource's openAPIV3Schema (None for built-in kinds).
    """
    unknown: list[str] = []
    if rt.crd:
        if schema is None:
            return obj
        kept = _by_schema(obj, schema, "", unknown, root=True)
    else:
        fields = BUILTIN_FIELDS.get(rt.kind)
        if fields is None:
            return obj
        kept = _by_table(obj, fields, "", unknown)
    if not unknown:
        return obj
    if validation is FieldValidation.STRICT:
        listed = ", ".join(f'unknown field "{path}"' for path in unknown)
        raise errors.bad_request(
            f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
            f"strict decoding error: {listed}"
        )
    result: KubeObject = kept
    return result

"""managedFields entries: reading them, writing them back, and who is who.

A manager is identified as the API server identifies it: by name, operation and
subresource, and for updates also by apiVersion, so `kubectl` applying and `kubectl`
updating are two entries. Entries are written in the API server's order (Apply before
Update, then by time, manager, apiVersion, subresource) and empty ones are dropped.

Fields no manager ever owns are taken out of every set: apiVersion, kind and the
identity and bookkeeping fields of metadata (`metadata` itself, name, namespace, uid,
resourceVersion, generation, creationTimestamp, selfLink, managedFields).
"""

from dataclasses import dataclass
from typing import Any, Final

from app.engine.merge.errors import ManagedFieldsError
from app.engine.merge.fieldset import FieldSet

APPLY: Final = "Apply"
UPDATE: Final = "Update"
FIELDS_V1: Final = "FieldsV1"
BEFORE_FIRST_APPLY: Final = "before-first-apply"
"""Owns what an object held when it was first applied without any managedFields."""

NEVER_OWNED: Final = FieldSet.from_fields_v1(
    {
        "f:apiVersion": {},
        "f:kind": {},
        "f:metadata": {
            ".": {},
            **{
                f"f:{name}": {}
                for name in (
                    "name",
                    "namespace",
                    "uid",
                    "resourceVersion",
                    "generation",
                    "creationTimestamp",
                    "selfLink",
                    "clusterName",
                    "managedFields",
                )
            },
        },
    }
)

Identity = tuple[str, str, str, str]
"""(manager, operation, apiVersion for updates else "", subresource)."""


@dataclass(slots=True)
class Entry:
    """One managedFields entry."""

    manager: str
    operation: str
    api_version: str
    fields: FieldSet
    time: str | None = None
    subresource: str = ""

    @property
    def identity(self) -> Identity:
        version = self.api_version if self.operation == UPDATE else ""
        return (self.manager, self.operation, version, self.subresource)


Managers = dict[Identity, Entry]


def read(managed_fields: Any) -> Managers:
    """The entries of `metadata.managedFields`; ManagedFieldsError naming the bad entry."""
    managers: Managers = {}
    if managed_fields is None:
        return managers
    if not isinstance(managed_fields, list):
        raise ManagedFieldsError(
            "metadata.managedFields", "must be a list", patch_type="managedFields"
        )
    for index, raw in enumerate(managed_fields):
        entry = _entry(raw, f"metadata.managedFields[{index}]")
        managers[entry.identity] = entry
    return managers


def _entry(raw: Any, where: str) -> Entry:
    def bad(problem: str) -> ManagedFieldsError:
        return ManagedFieldsError(where, problem, patch_type="managedFields")

    if not isinstance(raw, dict):
        raise bad("must be an object")
    operation = raw.get("operation")
    if operation not in (APPLY, UPDATE):
        raise bad("operation must be Apply or Update")
    api_version = raw.get("apiVersion")
    if not isinstance(api_version, str) or not api_version:
        raise bad("apiVersion must not be empty")
    if raw.get("fieldsType") != FIELDS_V1:
        raise bad("fieldsType must be FieldsV1")
    manager, time, subresource = raw.get("manager", ""), raw.get("time"), raw.get("subresource", "")
    if not isinstance(manager, str) or not isinstance(subresource, str):
        raise bad("manager and subresource must be strings")
    if time is not None and not isinstance(time, str):
        raise bad("time must be an RFC 3339 string")
    try:
        fields = FieldSet.from_fields_v1(raw.get("fieldsV1") or {})
    except ManagedFieldsError as e:
        raise bad(f"fieldsV1: {e.field + ': ' if e.field else ''}{e.problem}") from None
    return Entry(manager, operation, api_version, fields, time, subresource)


def write(managers: Managers) -> list[dict[str, Any]]:
    """The entries as `metadata.managedFields`, in the API server's order."""
    entries = sorted(
        (entry for entry in managers.values() if entry.fields),
        key=lambda e: (e.operation, e.time or "", e.manager, e.api_version, e.subresource),
    )
    out: list[dict[str, Any]] = []
    for entry in entries:
        raw: dict[str, Any] = {
            "manager": entry.manager,
            "operation": entry.operation,
            "apiVersion": entry.api_version,
        }
        if entry.time is not None:
            raw["time"] = entry.time
        raw["fieldsType"] = FIELDS_V1
        raw["fieldsV1"] = entry.fields.to_fields_v1()
        if entry.subresource:
            raw["subresource"] = entry.subresource
        out.append(raw)
    return out


def is_reset(managed_fields: Any) -> bool:
    """`[]` or `[{}]`: the documented way to clear an object's managedFields."""
    return isinstance(managed_fields, list) and managed_fields in ([], [{}])


def without_managed_fields(obj: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """`obj` without `metadata.managedFields` (shallow copies only), and what it held."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return obj, None
    meta = dict(meta)
    managed = meta.pop("managedFields")
    return {**obj, "metadata": meta}, managed


def with_managed_fields(obj: dict[str, Any], managers: Managers) -> dict[str, Any]:
    """`obj` carrying the managers' entries (none: no managedFields key at all)."""
    entries = write(managers)
    meta = obj.get("metadata")
    meta = dict(meta) if isinstance(meta, dict) else {}
    if entries:
        meta["managedFields"] = entries
    else:
        meta.pop("managedFields", None)
    return {**obj, "metadata": meta}


def take_ownership(
    managers: Managers, identity: Identity, changed: FieldSet, removed: FieldSet
) -> None:
    """Record an update: nobody owns what it removed, it alone owns what it changed."""
    for entry in managers.values():
        entry.fields = entry.fields - changed - removed
    if changed:
        own = managers.get(identity)
        if own is None:
            manager, operation, api_version, subresource = identity
            managers[identity] = Entry(
                manager, operation, api_version, changed, subresource=subresource
            )
        else:
            own.fields = own.fields | changed
    for key in [key for key, entry in managers.items() if not entry.fields]:
        del managers[key]

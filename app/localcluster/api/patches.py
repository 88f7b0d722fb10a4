"""PATCH: JSON patch, JSON merge patch, strategic merge patch, and server-side apply.

The merge itself is the engine's (`app.engine.merge`); this module decides what the
API server decides around it: which patch types a type accepts (strategic merge only
for built-in kinds, 415 otherwise, as for real custom resources), that a patch never
creates an object but an apply does, that apply needs a field manager and answers 409
with one FieldManagerConflict cause per contested field unless forced, and that a
main-resource apply leaves status alone while a status apply touches only status.
"""

from typing import Any

from app.engine.merge import (
    ApplyConflict,
    FieldSet,
    PatchError,
    apply_json_patch,
    apply_merge_patch,
    apply_strategic_patch,
    server_side_apply,
)
from app.localcluster import errors
from app.localcluster.api.options import WriteOptions
from app.localcluster.api.server import ApiServer, gvk_of, in_version
from app.localcluster.api.writes import (
    check_resource_version,
    decode_object,
    merge_into,
    prepare_create,
)
from app.localcluster.errors import Cause
from app.localcluster.objectmeta import now
from app.localcluster.resources import ResourceType
from app.model.resource import KubeObject

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
_STATUS_ONLY = FieldSet.from_fields_v1({"f:status": {}})
_ALWAYS_KEPT = frozenset({"apiVersion", "kind", "metadata", "status"})


def _invalid(rt: ResourceType, name: str, error: PatchError) -> errors.ApiError:
    return errors.invalid(
        rt.kind,
        rt.group,
        name,
        [Cause("FieldValueInvalid", f"{error.patch_type}: {error.problem}", error.field)],
    )


def _patched(rt: ResourceType, old: KubeObject, patch_type: str, body: Any) -> KubeObject:
    live = in_version(rt, old)
    if patch_type == JSON_PATCH:
        if not isinstance(body, list):
            raise errors.bad_request("a JSON patch must be a JSON list of operations")
        return apply_json_patch(live, body)
    if not isinstance(body, dict):
        raise errors.bad_request("a merge patch must be a JSON object")
    if patch_type == MERGE_PATCH:
        return apply_merge_patch(live, body)
    if not rt.strategic_merge:
        raise errors.unsupported_media_type(
            f"strategic merge patch is not supported for {rt.group_resource} (a custom "
            f"resource): send {MERGE_PATCH} or {JSON_PATCH} instead "
            "(kubectl patch --type=merge or --type=json)"
        )
    return apply_strategic_patch(live, body, gvk_of(rt))


def patch(
    api: ApiServer,
    rt: ResourceType,
    body: Any,
    *,
    namespace: str,
    name: str,
    patch_type: str,
    opts: WriteOptions,
) -> tuple[KubeObject, bool]:
    """Patch (or, for apply, create) one object; returns it and whether it was created."""
    if patch_type == APPLY_PATCH:
        return apply(api, rt, body, namespace=namespace, name=name, opts=opts)
    old = api.find(rt, namespace, name)
    if old is None:
        raise errors.not_found(rt.group_resource, name)
    try:
        patched = _patched(rt, old, patch_type, body)
    except PatchError as e:
        raise _invalid(rt, name, e) from None
    candidate = decode_object(rt, patched, namespace=namespace, name=name)
    candidate = api.known_fields(rt, candidate, opts)
    check_resource_version(rt, old, candidate)
    new = merge_into(rt, old, candidate, opts.subresource)
    return api.commit_update(rt, old, new, opts), False


def _reset_fields(rt: ResourceType, applied: KubeObject, subresource: str) -> FieldSet | None:
    """Fields this endpoint never takes from a configuration (the API server's reset fields)."""
    if subresource == "status":
        others: dict[str, Any] = {f"f:{key}": {} for key in applied if key not in _ALWAYS_KEPT}
        return FieldSet.from_fields_v1(others) if others else None
    return _STATUS_ONLY if rt.has_status else None


def _conflict(rt: ResourceType, name: str, error: ApplyConflict) -> errors.ApiError:
    return errors.ApiError(
        409,
        "Conflict",
        str(error),
        name=name,
        group=rt.group,
        kind=rt.plural,
        causes=[Cause("FieldManagerConflict", c.message, c.field) for c in error.conflicts],
    )


def apply(
    api: ApiServer, rt: ResourceType, body: Any, *, namespace: str, name: str, opts: WriteOptions
) -> tuple[KubeObject, bool]:
    """Server-side apply of the configuration `body` by opts.field_manager."""
    if not isinstance(body, dict):
        raise errors.bad_request("an applied configuration must be a YAML or JSON object")
    applied = api.known_fields(rt, decode_object(rt, body, namespace=namespace, name=name), opts)
    old = api.find(rt, namespace, name)
    if old is None and opts.subresource:
        raise errors.not_found(rt.group_resource, name)
    reset = _reset_fields(rt, applied, opts.subresource)
    if old is not None:
        check_resource_version(rt, old, applied)
    try:
        result = server_side_apply(
            in_version(rt, old) if old is not None else None,
            applied,
            manager=opts.field_manager,
            force=opts.force,
            gvk=gvk_of(rt),
            now=now(),
            subresource=opts.subresource,
            reset=reset,
        )
    except ApplyConflict as e:
        raise _conflict(rt, name, e) from None
    except PatchError as e:
        raise _invalid(rt, name, e) from None
    candidate = {**result, "metadata": dict(result["metadata"])}
    if old is None:
        prepare_create(api, rt, namespace, candidate)
        return api.commit_create(rt, candidate, opts, applied=True), True
    new = merge_into(rt, old, candidate, opts.subresource)
    return api.commit_update(rt, old, new, opts, applied=True), False

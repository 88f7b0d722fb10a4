"""JSON merge patch (RFC 7386): what `merge-patch+json` requests and custom resources use.

A patch is an object: null deletes a key, an object merges into the object at that key,
anything else (lists included) replaces. `create_three_way_merge_patch` is what
`kubectl apply` sends for kinds without a strategic-merge schema: the deletions of
fields that were in the last-applied configuration and are gone from the new one, plus
every change from the live object to the new configuration.

Results share unchanged subtrees with their inputs: treat inputs and results as
read-only (copy before mutating).
"""

from typing import Any

from app.engine.merge.errors import PatchError
from app.engine.merge.jsonvalue import MISSING, json_equal, kind_of

_PATCH_TYPE = "merge patch"


def apply_merge_patch(obj: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """`obj` with the RFC 7386 merge `patch` applied; `obj` is not modified."""
    if not isinstance(obj, dict):
        raise PatchError("", "the object to patch must be a JSON object", patch_type=_PATCH_TYPE)
    if not isinstance(patch, dict):
        raise PatchError(
            "",
            f"a merge patch must be a JSON object, got {kind_of(patch).__name__}",
            patch_type=_PATCH_TYPE,
        )
    try:
        return _merge(obj, patch)
    except RecursionError:
        raise PatchError("", "the patch nests too deeply", patch_type=_PATCH_TYPE) from None


def _merge(target: Any, patch: dict[str, Any]) -> dict[str, Any]:
    result = dict(target) if type(target) is dict else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        elif type(value) is dict:
            result[key] = _merge(result.get(key), value)
        else:
            result[key] = value
    return result


def create_merge_patch(original: dict[str, Any], modified: dict[str, Any]) -> dict[str, Any]:
    """The merge patch that turns `original` into `modified` (keys modified sets to null
    cannot be expressed: RFC 7386 reads null as "delete")."""
    for name, value in (("original", original), ("modified", modified)):
        if not isinstance(value, dict):
            raise PatchError("", f"{name} must be a JSON object", patch_type=_PATCH_TYPE)
    try:
        return _diff(original, modified)
    except RecursionError:
        raise PatchError("", "the objects nest too deeply", patch_type=_PATCH_TYPE) from None


def _diff(original: dict[str, Any], modified: dict[str, Any]) -> dict[str, Any]:
    patch: dict[str, Any] = {}
    for key, new in modified.items():
        old = original.get(key, MISSING)
        if old is new:
            continue
        if old is MISSING or kind_of(old) is not kind_of(new):
            patch[key] = new
        elif type(new) is dict:
            sub = _diff(old, new)
            if sub:
                patch[key] = sub
        elif not json_equal(old, new):
            patch[key] = new
    for key in original:
        if key not in modified:
            patch[key] = None
    return patch


def create_three_way_merge_patch(
    original: dict[str, Any] | None, modified: dict[str, Any], current: dict[str, Any]
) -> dict[str, Any]:
    """What `kubectl apply` sends as a JSON merge patch.

    Deletions come from `original` (the last-applied configuration; None when there is
    none) → `modified`, so fields someone else added to the live object survive;
    additions and changes come from `current` (live) → `modified`.
    """
    changes = _without_nulls(create_merge_patch(current, modified))
    deletions = _only_nulls(create_merge_patch(original or {}, modified))
    return _overlay(deletions, changes)


def _without_nulls(patch: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in patch.items():
        if value is None:
            continue
        if type(value) is dict and value:
            sub = _without_nulls(value)
            if sub:
                out[key] = sub
        else:
            out[key] = value
    return out


def _only_nulls(patch: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in patch.items():
        if value is None:
            out[key] = None
        elif type(value) is dict and value:
            sub = _only_nulls(value)
            if sub:
                out[key] = sub
    return out


def _overlay(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        below = out.get(key)
        out[key] = _overlay(below, value) if type(below) is dict and type(value) is dict else value
    return out

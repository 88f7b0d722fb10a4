"""JSON patch (RFC 6902): what `json-patch+json` requests carry.

Applied with the `jsonpatch` library one operation at a time, so an error names the
operation (`ops[3]`) and its path, and so the size a request can grow an object to is
bounded: the API server caps a patch at 10,000 operations and refuses copies that would
blow the object up; so does this.
"""

import copy
import json
from typing import Any, Final

import jsonpatch

from app.engine.merge.errors import PatchError, shown

MAX_OPERATIONS: Final = 10_000
"""The API server's limit on operations in one JSON patch."""
MAX_COPIED_BYTES: Final = 3 * 1024 * 1024
"""Total JSON size all `copy` operations of one patch may duplicate."""

_PATCH_TYPE = "json patch"
_OPS: Final = frozenset({"add", "remove", "replace", "move", "copy", "test"})


def apply_json_patch(obj: dict[str, Any], ops: list[Any]) -> dict[str, Any]:
    """`obj` with the RFC 6902 operations applied in order; `obj` is not modified."""
    if not isinstance(ops, list):
        raise PatchError("", "a JSON patch must be a list of operations", patch_type=_PATCH_TYPE)
    if len(ops) > MAX_OPERATIONS:
        raise PatchError(
            "",
            f"{len(ops)} operations exceed the limit of {MAX_OPERATIONS}; split the patch",
            patch_type=_PATCH_TYPE,
        )
    document: Any = copy.deepcopy(obj)
    copied = 0
    for index, op in enumerate(ops):
        where = f"ops[{index}]"
        _check_operation(op, where)
        if op["op"] == "copy":
            copied += _size_at(document, op.get("from"), where)
            if copied > MAX_COPIED_BYTES:
                raise PatchError(
                    where,
                    f"copy operations duplicate more than {MAX_COPIED_BYTES} bytes",
                    patch_type=_PATCH_TYPE,
                )
        try:
            document = jsonpatch.JsonPatch([op]).apply(document, in_place=True)
        except jsonpatch.JsonPatchTestFailed:
            raise PatchError(
                where, f"test failed: the value at {op['path']} differs", patch_type=_PATCH_TYPE
            ) from None
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as e:
            raise PatchError(
                where, f"{op['op']} {op['path']}: {e}", patch_type=_PATCH_TYPE
            ) from None
        except (TypeError, KeyError, IndexError, ValueError) as e:
            raise PatchError(
                where, f"{op['op']} {op['path']}: cannot apply ({e})", patch_type=_PATCH_TYPE
            ) from None
    if not isinstance(document, dict):
        raise PatchError(
            "", "the patched document is no longer a JSON object", patch_type=_PATCH_TYPE
        )
    return document


def _check_operation(op: Any, where: str) -> None:
    if not isinstance(op, dict):
        raise PatchError(where, "an operation must be an object", patch_type=_PATCH_TYPE)
    name = op.get("op")
    if name not in _OPS:
        raise PatchError(
            where,
            f"unknown op {shown(name)}; use one of {', '.join(sorted(_OPS))}",
            patch_type=_PATCH_TYPE,
        )
    if not isinstance(op.get("path"), str):
        raise PatchError(where, f"{name} needs a string 'path'", patch_type=_PATCH_TYPE)
    if name in ("move", "copy") and not isinstance(op.get("from"), str):
        raise PatchError(where, f"{name} needs a string 'from'", patch_type=_PATCH_TYPE)
    if name in ("add", "replace", "test") and "value" not in op:
        raise PatchError(where, f"{name} needs a 'value'", patch_type=_PATCH_TYPE)


def _size_at(document: Any, pointer: str, where: str) -> int:
    try:
        value = jsonpatch.JsonPointer(pointer).resolve(document)
    except jsonpatch.JsonPointerException as e:
        raise PatchError(where, f"copy from {pointer}: {e}", patch_type=_PATCH_TYPE) from None
    return len(json.dumps(value, separators=(",", ":")))

"""Fields every comparison drops or rewrites, whatever the kind (SEMANTICS §4.3-4.4)."""

import base64
from typing import Any

from app.model.resource import KubeObject

_SERVER_METADATA = ("creationTimestamp", "managedFields")
_APPLICATION_API_VERSIONS = frozenset({"argoproj.io/v1alpha1"})
"""An Argo CD Application's `operation` is a request to its controller (what `argocd app
sync` writes, removed once started), never desired state: a parent app ignores it."""


def _without(mapping: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    if not any(k in mapping for k in keys):
        return mapping
    return {k: v for k, v in mapping.items() if k not in keys}


def strip_server_fields(obj: KubeObject, *, ignore_status: bool = True) -> KubeObject:
    """`obj` without metadata.creationTimestamp, metadata.managedFields, (by default) status,
    and an Argo CD Application's `operation`."""
    out = _without(obj, ("status",)) if ignore_status else obj
    if obj.get("kind") == "Application" and obj.get("apiVersion") in _APPLICATION_API_VERSIONS:
        out = _without(out, ("operation",))
    meta = out.get("metadata")
    if isinstance(meta, dict):
        new_meta = _without(meta, _SERVER_METADATA)
        if new_meta is not meta:
            out = {**out, "metadata": new_meta}
    return out


def _encode(value: Any) -> str:
    text = value if isinstance(value, str) else str(value)
    return base64.b64encode(text.encode()).decode()


def merge_string_data(obj: KubeObject) -> KubeObject:
    """A Secret with `stringData` folded into base64 `data` (stringData wins), as servers do."""
    if obj.get("kind") != "Secret" or obj.get("apiVersion") != "v1":
        return obj
    string_data = obj.get("stringData")
    if string_data is None:
        return obj
    out = {k: v for k, v in obj.items() if k != "stringData"}
    if isinstance(string_data, dict) and string_data:
        data = dict(obj.get("data") or {})
        data.update({k: _encode(v) for k, v in string_data.items()})
        out["data"] = data
    return out

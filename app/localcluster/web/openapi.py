"""A minimal OpenAPI v3: what kubectl apply and diff need, nothing more.

kubectl reads `/openapi/v3` (the root listing one document per group-version) and,
per document, the PATCH operation carrying `x-kubernetes-group-version-kind` for the
type it applies: a `fieldValidation` parameter there tells it the server validates
fields, so it skips client-side schema validation. The PATCH request bodies list JSON
patch, merge patch and apply, but deliberately not strategic merge: kubectl then computes
client-side apply patches from its compiled-in types (strategic merge for built-in
kinds, JSON merge patch for custom resources), exactly as against a server whose schemas
it cannot use. Component schemas carry the group-version-kind, and for custom resources
the CRD's own openAPIV3Schema.
"""

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.localcluster.resources import Registry, ResourceType

SchemaLookup = Callable[[ResourceType], dict[str, Any] | None]

_QUERY_PARAMETERS = ("dryRun", "fieldManager", "fieldValidation", "force", "pretty")
_PATCH_MEDIA_TYPES = (
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/apply-patch+yaml",
)


def _prefix(group: str, version: str) -> str:
    return f"api/{version}" if not group else f"apis/{group}/{version}"


def _schema_name(rt: ResourceType) -> str:
    group = rt.group or "core"
    return f"io.k8s.{group}.{rt.version}.{rt.kind}"


def _gvk(rt: ResourceType, subresource: str = "") -> dict[str, str]:
    group, version, kind = rt.subresource_kind(subresource)
    return {"group": group, "version": version, "kind": kind}


def _operation(
    rt: ResourceType, action: str, ref: str, body: bool, subresource: str = ""
) -> dict[str, Any]:
    op: dict[str, Any] = {
        "operationId": f"{action}{rt.kind}{subresource.capitalize()}",
        "parameters": [
            {"name": name, "in": "query", "schema": {"type": "string", "uniqueItems": True}}
            for name in _QUERY_PARAMETERS
        ],
        "responses": {
            "200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": ref}}}}
        },
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": _gvk(rt, subresource),
    }
    if body:
        op["requestBody"] = {
            "content": {media: {"schema": {"type": "object"}} for media in _PATCH_MEDIA_TYPES},
            "required": True,
        }
    return op


def document(
    group: str, version: str, types: list[ResourceType], schema_of: SchemaLookup
) -> dict[str, Any]:
    """The OpenAPI v3 document of one group-version."""
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    base = "/" + _prefix(group, version)
    for rt in types:
        ref = f"#/components/schemas/{_schema_name(rt)}"
        item = (
            f"{base}/namespaces/{{namespace}}/{rt.plural}/{{name}}"
            if rt.namespaced
            else f"{base}/{rt.plural}/{{name}}"
        )
        paths[item] = {
            "get": _operation(rt, "get", ref, body=False),
            "patch": _operation(rt, "patch", ref, body=True),
        }
        for sub in rt.subresources:
            if "patch" in rt.subresource_verbs(sub):
                paths[f"{item}/{sub}"] = {"patch": _operation(rt, "patch", ref, True, sub)}
        schema = dict(
            schema_of(rt) or {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
        )
        schema["x-kubernetes-group-version-kind"] = [_gvk(rt)]
        schemas[_schema_name(rt)] = schema
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.32.0"},
        "paths": paths,
        "components": {"schemas": schemas},
    }


@dataclass(slots=True)
class OpenApi:
    """The v3 root and per-group-version documents, rebuilt when the registry changes."""

    registry: Registry
    schema_of: SchemaLookup
    _generation: int = -1
    _documents: dict[str, bytes] = field(default_factory=dict)
    _root: bytes = b""

    def _refresh(self) -> None:
        if self._generation == self.registry.generation:
            return
        self._documents.clear()
        root: dict[str, Any] = {}
        for group, versions in self.registry.groups():
            for version in versions:
                key = _prefix(group, version)
                body = json.dumps(
                    document(
                        group, version, self.registry.in_version(group, version), self.schema_of
                    ),
                    separators=(",", ":"),
                ).encode()
                self._documents[key] = body
                digest = hashlib.sha512(body).hexdigest().upper()[:32]
                root[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={digest}"}
        self._root = json.dumps({"paths": root}, separators=(",", ":")).encode()
        self._generation = self.registry.generation

    def root(self) -> bytes:
        self._refresh()
        return self._root

    def document(self, key: str) -> bytes | None:
        """The encoded document for `api/v1` or `apis/<group>/<version>`, or None."""
        self._refresh()
        return self._documents.get(key)

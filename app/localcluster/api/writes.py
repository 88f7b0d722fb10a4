"""Create and update (PUT), of the main resource or its status subresource.

A body must be an object of the URL's type: a missing apiVersion or kind is filled in,
a different one is refused, and so is a namespace or name that contradicts the URL.
A main-resource write keeps the stored status; a status write changes only status.
"""

import copy
from typing import Any

from app.localcluster import crds, errors, strategies
from app.localcluster.api.options import WriteOptions
from app.localcluster.api.server import ApiServer
from app.localcluster.errors import Cause
from app.localcluster.objectmeta import random_suffix
from app.localcluster.resources import ResourceType
from app.model.resource import KubeObject

MAX_GENERATE_NAME = 58


def decode_object(rt: ResourceType, body: Any, *, namespace: str, name: str = "") -> KubeObject:
    """`body` as an object of `rt`, owned by the caller down to its metadata."""
    if not isinstance(body, dict):
        raise errors.bad_request(f"the request body must be a JSON object of kind {rt.kind}")
    api_version = body.get("apiVersion")
    if api_version and api_version != rt.api_version:
        raise errors.bad_request(
            f"the API version in the data ({api_version}) does not match the expected API "
            f"version ({rt.api_version})"
        )
    kind = body.get("kind")
    if kind and kind != rt.kind:
        raise errors.bad_request(
            f"the kind in the data ({kind}) does not match the expected kind ({rt.kind}) of "
            f"{rt.group_resource}"
        )
    meta = body.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        raise errors.bad_request("metadata must be a JSON object")
    obj = {**body, "apiVersion": rt.api_version, "kind": rt.kind, "metadata": dict(meta or {})}
    meta = obj["metadata"]
    if rt.namespaced:
        given = meta.get("namespace")
        if given and given != namespace:
            raise errors.bad_request(
                f"the namespace of the provided object ({given}) does not match the namespace "
                f"sent on the request ({namespace})"
            )
        meta["namespace"] = namespace
    if name:
        given = meta.get("name")
        if given and given != name:
            raise errors.bad_request(
                f"the name of the object ({given}) does not match the name on the URL ({name})"
            )
        meta["name"] = name
    return obj


def initial_status(rt: ResourceType) -> dict[str, Any]:
    status = strategies.strategy(rt.group_resource).initial_status
    return copy.deepcopy(status) if status is not None else {}


def prepare_create(api: ApiServer, rt: ResourceType, namespace: str, obj: KubeObject) -> None:
    """Name (or generateName), namespace and terminating-CRD checks, initial status."""
    meta = obj["metadata"]
    if not meta.get("name"):
        prefix = meta.get("generateName")
        if not prefix:
            raise errors.invalid(
                rt.kind,
                rt.group,
                "",
                [
                    Cause(
                        "FieldValueRequired",
                        "Required value: name or generateName is required",
                        "metadata.name",
                    )
                ],
            )
        meta["name"] = str(prefix)[:MAX_GENERATE_NAME] + random_suffix()
    name = str(meta["name"])
    api.require_namespace(rt, namespace, name)
    if rt.crd:
        crd = api.store.get(crds.CRDS, "", rt.crd)
        if crd is not None and crd["metadata"].get("deletionTimestamp"):
            raise errors.method_not_allowed(
                f"create not allowed while custom resource definition {rt.crd} is terminating"
            )
    if rt.has_status:
        obj["status"] = initial_status(rt)


def create(
    api: ApiServer, rt: ResourceType, body: Any, *, namespace: str, opts: WriteOptions
) -> KubeObject:
    obj = api.known_fields(rt, decode_object(rt, body, namespace=namespace), opts)
    prepare_create(api, rt, namespace, obj)
    return api.commit_create(rt, obj, opts)


def check_resource_version(rt: ResourceType, old: KubeObject, candidate: KubeObject) -> None:
    """409 if the write names a resourceVersion other than the stored one."""
    wanted = candidate["metadata"].get("resourceVersion")
    if wanted and wanted != old["metadata"].get("resourceVersion"):
        raise errors.modified(rt.group_resource, str(old["metadata"]["name"]))


def merge_into(
    rt: ResourceType, old: KubeObject, candidate: KubeObject, subresource: str
) -> KubeObject:
    """What a write of `candidate` stores: status from old for a main write, only status
    from candidate for a status write."""
    if subresource == "status":
        new = {
            **old,
            "metadata": {
                **old["metadata"],
                "managedFields": candidate["metadata"].get("managedFields"),
            },
        }
        if candidate["metadata"].get("managedFields") is None:
            new["metadata"].pop("managedFields")
        status = candidate.get("status")
        if status is None:
            new.pop("status", None)
        else:
            new["status"] = status
        return new
    if rt.has_status:
        if "status" in old:
            candidate["status"] = old["status"]
        else:
            candidate.pop("status", None)
    return candidate


def update(
    api: ApiServer,
    rt: ResourceType,
    body: Any,
    *,
    namespace: str,
    name: str,
    opts: WriteOptions,
) -> KubeObject:
    old = api.find(rt, namespace, name)
    if old is None:
        raise errors.not_found(rt.group_resource, name)
    candidate = decode_object(rt, body, namespace=namespace, name=name)
    candidate = api.known_fields(rt, candidate, opts)
    check_resource_version(rt, old, candidate)
    new = merge_into(rt, old, candidate, opts.subresource)
    return api.commit_update(rt, old, new, opts)

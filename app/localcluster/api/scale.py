"""The scale subresource: an autoscaling/v1 Scale view of a workload's replica count.

`kubectl scale` patches it (or, with --current-replicas / --resource-version, reads it and
writes it back); HorizontalPodAutoscalers read it. The view shows the parent's desired
replicas (spec), its observed replicas and label selector (status); a write changes only
the desired replicas, through the parent's own update path (so generation rises, the
controllers react and managedFields record the write under the `scale` subresource).
Deployments, ReplicaSets and StatefulSets have one, as does any CRD that declares
`subresources.scale` (with its replica and selector paths).
"""

from typing import Any

from app.engine.merge import (
    GroupVersionKind,
    PatchError,
    apply_json_patch,
    apply_merge_patch,
    apply_strategic_patch,
)
from app.localcluster import errors, strategies
from app.localcluster.api.options import WriteOptions
from app.localcluster.api.patches import JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH
from app.localcluster.api.server import ApiServer
from app.localcluster.errors import Cause
from app.localcluster.resources import SCALE_KIND, ResourceType, ScalePaths
from app.model.resource import KubeObject

_GROUP, _VERSION, KIND = SCALE_KIND
API_VERSION = f"{_GROUP}/{_VERSION}"
_SCALE_GVK = GroupVersionKind(*SCALE_KIND)


def selector_string(selector: Any) -> str:
    """A LabelSelector as the label-selector string Kubernetes prints (keys sorted)."""
    if not isinstance(selector, dict):
        return ""
    terms: list[tuple[str, str]] = []
    for key, value in (selector.get("matchLabels") or {}).items():
        terms.append((str(key), f"{key}={value}"))
    for expr in selector.get("matchExpressions") or ():
        if not isinstance(expr, dict):
            continue
        key, op = str(expr.get("key", "")), expr.get("operator")
        values = ",".join(sorted(str(v) for v in expr.get("values") or ()))
        shown = {
            "In": f"{key} in ({values})",
            "NotIn": f"{key} notin ({values})",
            "Exists": key,
            "DoesNotExist": f"!{key}",
        }.get(str(op))
        if shown is not None:
            terms.append((key, shown))
    return ",".join(text for _, text in sorted(terms))


def _paths(rt: ResourceType) -> ScalePaths:
    if rt.scale is None:
        raise errors.ApiError(404, "NotFound", "the server could not find the requested resource")
    return rt.scale


def view(rt: ResourceType, obj: KubeObject) -> KubeObject:
    """The Scale object of `obj`."""
    paths = _paths(rt)
    meta = obj["metadata"]
    selector = (
        strategies.lookup(obj, paths.label_selector)
        if paths.label_selector
        else selector_string(strategies.lookup(obj, "spec.selector"))
    )
    spec: dict[str, Any] = {}
    wanted = strategies.lookup(obj, paths.spec_replicas)
    if wanted:
        spec["replicas"] = wanted
    status: dict[str, Any] = {"replicas": strategies.lookup(obj, paths.status_replicas) or 0}
    if selector:
        status["selector"] = str(selector)
    return {
        "kind": KIND,
        "apiVersion": API_VERSION,
        "metadata": {
            key: meta[key]
            for key in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
            if key in meta
        },
        "spec": spec,
        "status": status,
    }


def read(api: ApiServer, rt: ResourceType, namespace: str, name: str) -> KubeObject:
    _paths(rt)
    return view(rt, api.get(rt, namespace, name))


def _with_path(obj: dict[str, Any], path: str, value: Any) -> None:
    """Set a dotted path in `obj`, copying each dict on the way (they may be shared)."""
    *parents, last = path.split(".")
    node = obj
    for part in parents:
        node = strategies.own(node, part)
    node[last] = value


def _replicas(rt: ResourceType, name: str, scale: Any) -> int:
    if not isinstance(scale, dict):
        raise errors.bad_request(f"the request body must be a JSON object of kind {KIND}")
    for key, expected in (("apiVersion", API_VERSION), ("kind", KIND)):
        if scale.get(key) and scale[key] != expected:
            raise errors.bad_request(
                f"the {key} in the data ({scale[key]}) does not match the expected {key} "
                f"({expected}) of the scale subresource"
            )
    given = (scale.get("metadata") or {}).get("name")
    if given and given != name:
        raise errors.bad_request(
            f"the name of the object ({given}) does not match the name on the URL ({name})"
        )
    replicas = (scale.get("spec") or {}).get("replicas", 0)
    if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0:
        raise errors.invalid(
            KIND,
            _GROUP,
            name,
            [
                Cause(
                    "FieldValueInvalid",
                    f"Invalid value: {replicas!r}: must be greater than or equal to 0",
                    "spec.replicas",
                )
            ],
        )
    return replicas


def update(
    api: ApiServer, rt: ResourceType, body: Any, *, namespace: str, name: str, opts: WriteOptions
) -> KubeObject:
    """Write the desired replicas a Scale asks for; returns the Scale afterwards."""
    paths = _paths(rt)
    old = api.find(rt, namespace, name)
    if old is None:
        raise errors.not_found(rt.group_resource, name)
    replicas = _replicas(rt, name, body)
    wanted_version = (body.get("metadata") or {}).get("resourceVersion")
    if wanted_version and wanted_version != old["metadata"].get("resourceVersion"):
        raise errors.modified(rt.group_resource, name)
    new = {**old, "metadata": dict(old["metadata"])}
    _with_path(new, paths.spec_replicas, replicas)
    return view(rt, api.commit_update(rt, old, new, opts))


def patch(
    api: ApiServer,
    rt: ResourceType,
    body: Any,
    *,
    namespace: str,
    name: str,
    patch_type: str,
    opts: WriteOptions,
) -> KubeObject:
    """Patch the Scale view (JSON, merge or strategic merge), then write it as `update`."""
    current = read(api, rt, namespace, name)
    try:
        if patch_type == JSON_PATCH:
            if not isinstance(body, list):
                raise errors.bad_request("a JSON patch must be a JSON list of operations")
            patched = apply_json_patch(current, body)
        elif not isinstance(body, dict):
            raise errors.bad_request("a merge patch must be a JSON object")
        elif patch_type == MERGE_PATCH:
            patched = apply_merge_patch(current, body)
        elif patch_type == STRATEGIC_PATCH:
            patched = apply_strategic_patch(current, body, _SCALE_GVK)
        else:
            raise errors.unsupported_media_type(
                f"{patch_type} is not supported on the scale subresource of the local cluster: "
                f"use `kubectl scale`, or send {MERGE_PATCH} or {JSON_PATCH}"
            )
    except PatchError as e:
        raise errors.invalid(
            KIND, _GROUP, name, [Cause("FieldValueInvalid", e.problem, e.field)]
        ) from None
    return update(api, rt, patched, namespace=namespace, name=name, opts=opts)

"""Delete: preconditions, finalizers, propagation policy, namespaces going Terminating.

An object without finalizers goes away at once (its dependents are then collected by the
garbage collector, in the background). Otherwise it gets a deletionTimestamp and stays
until its finalizers are removed: by a client, or by the system reconcilers for the
finalizers the API server itself adds (`foregroundDeletion` when dependents must go
first, `orphan` when they must be released, a Namespace's `kubernetes`, a CRD's
cleanup of its objects).
"""

from app.localcluster import crds, errors
from app.localcluster.api.options import BACKGROUND, FOREGROUND, DeleteOptions
from app.localcluster.api.server import NAMESPACES, ApiServer
from app.localcluster.objectmeta import now
from app.localcluster.resources import ResourceType
from app.localcluster.selectors import Matcher
from app.model.resource import KubeObject

FOREGROUND_FINALIZER = "foregroundDeletion"
ORPHAN_FINALIZER = "orphan"


def _check_preconditions(rt: ResourceType, obj: KubeObject, opts: DeleteOptions) -> None:
    meta = obj["metadata"]
    name = str(meta["name"])
    if opts.uid and opts.uid != meta.get("uid"):
        raise errors.conflict(
            rt.group_resource,
            name,
            f"Precondition failed: UID in precondition: {opts.uid}, "
            f"UID in object meta: {meta.get('uid')}",
        )
    if opts.resource_version and opts.resource_version != meta.get("resourceVersion"):
        raise errors.conflict(
            rt.group_resource,
            name,
            "Precondition failed: ResourceVersion in precondition: "
            f"{opts.resource_version}, "
            f"ResourceVersion in object meta: {meta.get('resourceVersion')}",
        )


def delete(
    api: ApiServer, rt: ResourceType, namespace: str, name: str, opts: DeleteOptions
) -> tuple[KubeObject, bool]:
    """Delete one object; returns it and whether it is gone already."""
    obj = api.find(rt, namespace, name)
    if obj is None:
        raise errors.not_found(rt.group_resource, name)
    _check_preconditions(rt, obj, opts)
    meta = obj["metadata"]
    if meta.get("deletionTimestamp"):
        return obj, False
    policy = opts.propagation or BACKGROUND
    finalizers = list(meta.get("finalizers") or ())
    if policy != BACKGROUND and api.store.dependents(str(meta.get("uid"))):
        wanted = FOREGROUND_FINALIZER if policy == FOREGROUND else ORPHAN_FINALIZER
        if wanted not in finalizers:
            finalizers.append(wanted)
    resource = rt.group_resource
    if not finalizers and resource != NAMESPACES:
        if opts.dry_run:
            return obj, True
        return api.remove(resource, obj), True
    new = {**obj, "metadata": {**meta, "deletionTimestamp": now(), "deletionGracePeriodSeconds": 0}}
    if finalizers:
        new["metadata"]["finalizers"] = finalizers
    if resource == NAMESPACES:
        new["status"] = {**(obj.get("status") or {}), "phase": "Terminating"}
    if resource == crds.CRDS:
        new["status"] = crds.status(new, obj, api.registry, now())
    if opts.dry_run:
        return new, False
    new["metadata"]["resourceVersion"] = str(api.store.next_revision())
    api.store.put(resource, new)
    return new, False


def delete_collection(
    api: ApiServer,
    rt: ResourceType,
    namespace: str | None,
    match: Matcher | None,
    opts: DeleteOptions,
) -> list[KubeObject]:
    """Delete every matching object; returns them as the response list shows them."""
    items, _ = api.list(rt, namespace, match)
    out = []
    for item in items:
        meta = item["metadata"]
        obj, _gone = delete(api, rt, str(meta.get("namespace") or ""), str(meta["name"]), opts)
        out.append(obj)
    return out

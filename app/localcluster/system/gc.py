"""The garbage collector: ownerReferences decide when an object goes with its owners.

- An object whose owners are all gone (no live object has the referenced uid) is
  deleted in the background; one that lost only some owners drops those references.
- An owner deleted with propagationPolicy Foreground carries `foregroundDeletion`: its
  dependents are deleted (in the foreground too) and the finalizer is removed when the
  last one is gone, so the owner disappears last.
- An owner deleted with Orphan carries `orphan`: its dependents lose their reference to
  it, then the finalizer is removed.
"""

from collections.abc import Iterable
from typing import Any

from app import log
from app.localcluster.api import deletes
from app.localcluster.api.options import BACKGROUND, FOREGROUND, DeleteOptions
from app.localcluster.api.server import ApiServer
from app.localcluster.eventlog import DELETED, Change
from app.localcluster.resources import GroupResource
from app.localcluster.store import ObjectRef
from app.model.resource import KubeObject

logger = log.get("localcluster.gc")
MANAGER = "kube-controller-manager"
_GC_FINALIZERS = (deletes.FOREGROUND_FINALIZER, deletes.ORPHAN_FINALIZER)


def owner_uids(obj: KubeObject) -> list[str]:
    refs = obj["metadata"].get("ownerReferences") or ()
    return [str(r["uid"]) for r in refs if isinstance(r, dict) and r.get("uid")]


def ref_of(resource: GroupResource, obj: KubeObject) -> ObjectRef:
    meta = obj["metadata"]
    return ObjectRef(resource, str(meta.get("namespace") or ""), str(meta["name"]))


def without_finalizer(obj: KubeObject, finalizer: str) -> KubeObject:
    meta = obj["metadata"]
    rest = [f for f in meta.get("finalizers") or () if f != finalizer]
    new_meta: dict[str, Any] = {**meta, "finalizers": rest}
    if not rest:
        del new_meta["finalizers"]
    return {**obj, "metadata": new_meta}


class GarbageCollector:
    name = "garbagecollector"
    resources: tuple[GroupResource | None, ...] = (None,)

    def __init__(self, api: ApiServer) -> None:
        self.api = api

    def observe(self, change: Change) -> Iterable[tuple[ObjectRef, float]]:
        store = self.api.store
        meta = change.obj["metadata"]
        if change.type == DELETED:
            for dependent in store.dependents(str(meta.get("uid"))):
                yield dependent, 0.0
            for uid in owner_uids(change.obj):
                owner = store.by_uid(uid)
                if owner is not None:
                    yield owner, 0.0
            return
        finalizers = meta.get("finalizers") or ()
        if meta.get("deletionTimestamp") and any(f in finalizers for f in _GC_FINALIZERS):
            yield ref_of(change.resource, change.obj), 0.0
        uids = owner_uids(change.obj)
        if uids and any(store.by_uid(uid) is None for uid in uids):
            yield ref_of(change.resource, change.obj), 0.0

    def reconcile(self, ref: ObjectRef) -> float | None:
        obj = self.api.store.get(ref.resource, ref.namespace, ref.name)
        if obj is None:
            return None
        meta = obj["metadata"]
        finalizers = meta.get("finalizers") or ()
        if meta.get("deletionTimestamp") and deletes.ORPHAN_FINALIZER in finalizers:
            self._orphan_dependents(str(meta["uid"]))
            self._replace(ref, obj, without_finalizer(obj, deletes.ORPHAN_FINALIZER))
            return None
        if meta.get("deletionTimestamp") and deletes.FOREGROUND_FINALIZER in finalizers:
            if not self._delete_dependents(str(meta["uid"])):
                self._replace(ref, obj, without_finalizer(obj, deletes.FOREGROUND_FINALIZER))
            return None
        self._collect(ref, obj)
        return None

    def _replace(self, ref: ObjectRef, old: KubeObject, new: KubeObject) -> None:
        self.api.replace(self.api.type_of(ref.resource), old, new, MANAGER)

    def _collect(self, ref: ObjectRef, obj: KubeObject) -> None:
        """Delete `obj` if all its owners are gone; drop references to the ones that are."""
        refs = obj["metadata"].get("ownerReferences") or []
        live = [r for r in refs if isinstance(r, dict) and self.api.store.by_uid(str(r.get("uid")))]
        if len(live) == len(refs):
            return
        if live:
            self._replace(
                ref, obj, {**obj, "metadata": {**obj["metadata"], "ownerReferences": live}}
            )
            return
        if obj["metadata"].get("deletionTimestamp"):
            return
        logger.debug("collecting", object=str(ref))
        rt = self.api.type_of(ref.resource)
        deletes.delete(self.api, rt, ref.namespace, ref.name, DeleteOptions(propagation=BACKGROUND))

    def _delete_dependents(self, uid: str) -> bool:
        """Delete every dependent of `uid` in the foreground; True while any remains."""
        dependents = self.api.store.dependents(uid)
        for dep in dependents:
            obj = self.api.store.get(dep.resource, dep.namespace, dep.name)
            if obj is None or obj["metadata"].get("deletionTimestamp"):
                continue
            rt = self.api.type_of(dep.resource)
            deletes.delete(
                self.api, rt, dep.namespace, dep.name, DeleteOptions(propagation=FOREGROUND)
            )
        return bool(self.api.store.dependents(uid))

    def _orphan_dependents(self, uid: str) -> None:
        for dep in self.api.store.dependents(uid):
            obj = self.api.store.get(dep.resource, dep.namespace, dep.name)
            if obj is None:
                continue
            kept = [r for r in obj["metadata"].get("ownerReferences") or () if r.get("uid") != uid]
            new_meta: dict[str, Any] = {**obj["metadata"], "ownerReferences": kept}
            if not kept:
                del new_meta["ownerReferences"]
            self._replace(dep, obj, {**obj, "metadata": new_meta})

"""A deleted CRD takes its objects with it, then its API disappears.

CRDs carry `customresourcecleanup.apiextensions.k8s.io` from creation. Once one is
deleted, this reconciler deletes every object of its type (objects with finalizers of
their own stay until those are removed) and, when none is left, removes the finalizer:
the CRD goes away and the registry stops serving its type.
"""

from collections.abc import Iterable

from app.localcluster import crds
from app.localcluster.api import deletes
from app.localcluster.api.options import BACKGROUND, DeleteOptions
from app.localcluster.api.server import ApiServer
from app.localcluster.eventlog import DELETED, Change
from app.localcluster.resources import GroupResource
from app.localcluster.store import ObjectRef
from app.localcluster.system.gc import without_finalizer
from app.model.resource import KubeObject

MANAGER = "apiextensions-apiserver"


def _served_resource(crd: KubeObject) -> GroupResource:
    spec = crd["spec"]
    return GroupResource(str(spec["group"]), str(spec["names"]["plural"]))


class CrdCleanup:
    name = "crdcleanup"
    resources: tuple[GroupResource | None, ...] = (None,)

    def __init__(self, api: ApiServer) -> None:
        self.api = api

    def observe(self, change: Change) -> Iterable[tuple[ObjectRef, float]]:
        if change.resource == crds.CRDS:
            meta = change.obj["metadata"]
            if change.type != DELETED and meta.get("deletionTimestamp"):
                yield ObjectRef(crds.CRDS, "", str(meta["name"])), 0.0
            return
        if change.type != DELETED:
            return
        rt = self.api.registry.preferred(change.resource)
        if rt is not None and rt.crd:
            crd = self.api.store.get(crds.CRDS, "", rt.crd)
            if crd is not None and crd["metadata"].get("deletionTimestamp"):
                yield ObjectRef(crds.CRDS, "", rt.crd), 0.0

    def reconcile(self, ref: ObjectRef) -> float | None:
        store = self.api.store
        crd = store.get(crds.CRDS, "", ref.name)
        if crd is None or not crd["metadata"].get("deletionTimestamp"):
            return None
        if crds.CLEANUP_FINALIZER not in (crd["metadata"].get("finalizers") or ()):
            return None
        resource = _served_resource(crd)
        rt = self.api.registry.preferred(resource)
        if rt is not None:
            for obj in list(store.items(resource)):
                meta = obj["metadata"]
                if meta.get("deletionTimestamp"):
                    continue
                namespace = str(meta.get("namespace") or "")
                opts = DeleteOptions(propagation=BACKGROUND)
                deletes.delete(self.api, rt, namespace, str(meta["name"]), opts)
        if store.count(resource):
            return None
        crd_type = self.api.type_of(crds.CRDS)
        self.api.replace(crd_type, crd, without_finalizer(crd, crds.CLEANUP_FINALIZER), MANAGER)
        return None

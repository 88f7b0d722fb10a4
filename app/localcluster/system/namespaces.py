"""Namespace termination: empty a Terminating namespace, then let it go.

A deleted Namespace keeps `spec.finalizers: [kubernetes]` until everything in it is
gone: this reconciler deletes its contents (objects with finalizers of their own stay
until those are removed), and when the namespace is empty clears the finalizer, which
removes the Namespace.
"""

from collections.abc import Iterable

from app.localcluster.api import deletes
from app.localcluster.api.options import BACKGROUND, DeleteOptions
from app.localcluster.api.server import NAMESPACES, ApiServer
from app.localcluster.eventlog import DELETED, Change
from app.localcluster.resources import GroupResource
from app.localcluster.store import ObjectRef

MANAGER = "kube-controller-manager"


class NamespaceFinalizer:
    name = "namespace"
    resources: tuple[GroupResource | None, ...] = (None,)

    def __init__(self, api: ApiServer) -> None:
        self.api = api

    def observe(self, change: Change) -> Iterable[tuple[ObjectRef, float]]:
        if change.resource == NAMESPACES:
            meta = change.obj["metadata"]
            if change.type != DELETED and meta.get("deletionTimestamp"):
                yield ObjectRef(NAMESPACES, "", str(meta["name"])), 0.0
            return
        namespace = change.namespace
        if change.type == DELETED and namespace:
            ns = self.api.store.get(NAMESPACES, "", namespace)
            if ns is not None and ns["metadata"].get("deletionTimestamp"):
                yield ObjectRef(NAMESPACES, "", namespace), 0.0

    def reconcile(self, ref: ObjectRef) -> float | None:
        store = self.api.store
        ns = store.get(NAMESPACES, "", ref.name)
        if ns is None or not ns["metadata"].get("deletionTimestamp"):
            return None
        for resource in list(store.namespaces_in_use(ref.name)):
            rt = self.api.type_of(resource)
            for obj in list(store.items(resource, ref.name)):
                if obj["metadata"].get("deletionTimestamp"):
                    continue
                name = str(obj["metadata"]["name"])
                deletes.delete(self.api, rt, ref.name, name, DeleteOptions(propagation=BACKGROUND))
        if any(True for _ in store.namespaces_in_use(ref.name)):
            return None
        spec = dict(ns.get("spec") or {})
        spec.pop("finalizers", None)
        self.api.replace(self.api.type_of(NAMESPACES), ns, {**ns, "spec": spec}, MANAGER)
        return None

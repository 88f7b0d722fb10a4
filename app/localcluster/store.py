"""Object storage: objects indexed by (resource, namespace, name), one revision counter.

Stored objects are never mutated: every write stores a new dict (sharing unchanged
subtrees with the old one), so a reader, a watch event or a response may hold a stored
object without copying it. The store also keeps the two indexes the garbage collector
needs: objects by uid, and dependents by owner uid.
"""

from collections.abc import Iterator
from dataclasses import dataclass

from app.localcluster.eventlog import ADDED, DELETED, MODIFIED, Change, EventLog
from app.localcluster.resources import GroupResource
from app.model.resource import KubeObject


@dataclass(frozen=True, slots=True, order=True)
class ObjectRef:
    """One stored object: resource, namespace ("" when cluster-scoped), name."""

    resource: GroupResource
    namespace: str
    name: str

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.resource}/{where}{self.name}"


def _owner_uids(obj: KubeObject) -> list[str]:
    refs = obj["metadata"].get("ownerReferences") or ()
    return [str(ref.get("uid")) for ref in refs if isinstance(ref, dict) and ref.get("uid")]


class Store:
    """In-memory objects plus the global resourceVersion counter."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        self.revision = 0
        self._objects: dict[GroupResource, dict[str, dict[str, KubeObject]]] = {}
        self._by_uid: dict[str, ObjectRef] = {}
        self._dependents: dict[str, set[ObjectRef]] = {}

    def get(self, resource: GroupResource, namespace: str, name: str) -> KubeObject | None:
        spaces = self._objects.get(resource)
        if spaces is None:
            return None
        names = spaces.get(namespace)
        return names.get(name) if names is not None else None

    def items(self, resource: GroupResource, namespace: str | None = None) -> Iterator[KubeObject]:
        """Objects of `resource`, in one namespace or (None) in all, sorted by namespace/name."""
        spaces = self._objects.get(resource, {})
        if namespace is not None:
            names = spaces.get(namespace, {})
            for name in sorted(names):
                yield names[name]
            return
        for ns in sorted(spaces):
            names = spaces[ns]
            for name in sorted(names):
                yield names[name]

    def count(self, resource: GroupResource, namespace: str | None = None) -> int:
        spaces = self._objects.get(resource, {})
        if namespace is not None:
            return len(spaces.get(namespace, {}))
        return sum(len(names) for names in spaces.values())

    def namespaces_in_use(self, namespace: str) -> Iterator[GroupResource]:
        """Resources that have objects in `namespace`."""
        for resource, spaces in self._objects.items():
            if spaces.get(namespace):
                yield resource

    def by_uid(self, uid: str) -> ObjectRef | None:
        return self._by_uid.get(uid)

    def dependents(self, owner_uid: str) -> list[ObjectRef]:
        return sorted(self._dependents.get(owner_uid, ()))

    def next_revision(self) -> int:
        self.revision += 1
        return self.revision

    def put(self, resource: GroupResource, obj: KubeObject) -> Change:
        """Store a new version of `obj` (its metadata.resourceVersion already set)."""
        meta = obj["metadata"]
        namespace = str(meta.get("namespace") or "")
        name = str(meta["name"])
        names = self._objects.setdefault(resource, {}).setdefault(namespace, {})
        old = names.get(name)
        names[name] = obj
        ref = ObjectRef(resource, namespace, name)
        self._index(ref, old, obj)
        change = Change(
            int(meta["resourceVersion"]), MODIFIED if old is not None else ADDED, resource, obj, old
        )
        self.log.publish(change)
        return change

    def remove(self, resource: GroupResource, obj: KubeObject) -> Change:
        """Delete `obj`: the DELETED event carries it with a fresh resourceVersion."""
        meta = obj["metadata"]
        namespace = str(meta.get("namespace") or "")
        name = str(meta["name"])
        spaces = self._objects[resource]
        old = spaces[namespace].pop(name)
        if not spaces[namespace]:
            del spaces[namespace]
        revision = self.next_revision()
        gone = {**old, "metadata": {**old["metadata"], "resourceVersion": str(revision)}}
        self._index(ObjectRef(resource, namespace, name), old, None)
        change = Change(revision, DELETED, resource, gone, old)
        self.log.publish(change)
        return change

    def load(self, resource: GroupResource, obj: KubeObject) -> None:
        """Put an object from a snapshot: indexed, but no event and no new revision."""
        meta = obj["metadata"]
        namespace = str(meta.get("namespace") or "")
        name = str(meta["name"])
        self._objects.setdefault(resource, {}).setdefault(namespace, {})[name] = obj
        self._index(ObjectRef(resource, namespace, name), None, obj)

    def resources(self) -> list[GroupResource]:
        return sorted(self._objects)

    def _index(self, ref: ObjectRef, old: KubeObject | None, new: KubeObject | None) -> None:
        old_uid = str(old["metadata"].get("uid") or "") if old is not None else ""
        new_uid = str(new["metadata"].get("uid") or "") if new is not None else ""
        if old_uid and old_uid != new_uid:
            self._by_uid.pop(old_uid, None)
        if new_uid:
            self._by_uid[new_uid] = ref
        old_owners = set(_owner_uids(old)) if old is not None else set()
        new_owners = set(_owner_uids(new)) if new is not None else set()
        for uid in old_owners - new_owners:
            deps = self._dependents.get(uid)
            if deps is not None:
                deps.discard(ref)
                if not deps:
                    del self._dependents[uid]
        for uid in new_owners - old_owners:
            self._dependents.setdefault(uid, set()).add(ref)

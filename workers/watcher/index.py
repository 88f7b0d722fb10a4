"""Every watched object of one cluster in memory: by uid, by owner, by the app tracking it.

The index answers what the watcher needs on each event without asking the cluster:
which app tracks an object (`tracking.owning_app`), which objects an app tracks (its live
cache content), what an object owns (the resource tree), and which apps a change concerns:
the app tracking the object (a managed change) and the apps tracking any of its owners,
up the ownerReferences (a change under a managed object, e.g. a Pod of a Deployment).
Each object's health is assessed once per resourceVersion, when first asked for, with
the custom Lua checks in force (`health()`, the system settings'); again when those
checks change.

Each object is held as its compact JSON, the bytes the live cache stores, and decoded
afresh when read: a decoded object costs four to six times its JSON in memory (dicts,
a str per value), and the watcher holds every object of every managed app and of what
they own. What each event needs (uid, key, owners, tracking) is kept decoded beside it,
its strings interned: an owner's uid, a kind, a namespace, an app's name are held once
(`python -m bench watcher_memory`).
"""

from collections import defaultdict
from collections.abc import Callable, Iterator
from sys import intern

from app import jsonio
from app.engine.health import HealthCustomizations, assess
from app.engine.tracking import TrackingMethod, owning_app
from app.model.health import HealthStatus
from app.model.resource import GroupKind, KubeObject, ResourceKey, metadata

MAX_OWNER_DEPTH = 16
"""Owner levels followed up from a changed object (ownership chains are short; cycles end)."""


class Entry:
    """One live object, as its compact JSON, and what the index derived from it."""

    __slots__ = (
        "_assessed_with",
        "_health",
        "key",
        "owners",
        "raw",
        "resource_version",
        "tracked_by",
        "uid",
    )

    def __init__(self, obj: KubeObject, method: TrackingMethod) -> None:
        meta = metadata(obj)
        self.raw = jsonio.dumps_kept(obj)
        """The object's compact JSON, as the live cache stores it."""
        self.uid = intern(str(meta.get("uid") or ""))
        self.resource_version = str(meta.get("resourceVersion") or "")
        key = ResourceKey.of(obj)
        self.key = ResourceKey(intern(key.group), intern(key.kind), intern(key.namespace), key.name)
        refs = meta.get("ownerReferences")
        self.owners = tuple(
            intern(str(ref["uid"]))
            for ref in (refs if isinstance(refs, list) else ())
            if isinstance(ref, dict) and ref.get("uid")
        )
        tracked_by = owning_app(obj, method)
        self.tracked_by = None if tracked_by is None else intern(tracked_by)
        self._health: HealthStatus | None = None
        self._assessed_with: HealthCustomizations | None = None

    @property
    def obj(self) -> KubeObject:
        """The object, decoded afresh (a copy the caller may keep or change)."""
        live: KubeObject = jsonio.loads(self.raw)
        return live

    def holds(self, obj: KubeObject) -> bool:
        """Whether `obj` is this entry's object at this entry's resourceVersion."""
        meta = metadata(obj)
        return (
            bool(self.resource_version)
            and str(meta.get("uid") or "") == self.uid
            and str(meta.get("resourceVersion") or "") == self.resource_version
        )

    @property
    def untracked_top_level(self) -> bool:
        """Namespaced, tracked by no app, owned by nothing: an orphan candidate."""
        return self.tracked_by is None and not self.owners and bool(self.key.namespace)

    def health(self, checks: HealthCustomizations) -> HealthStatus | None:
        """The object's health under `checks` (assessed once per set of checks)."""
        if self._assessed_with is not checks:
            self._health = assess(self.obj, customizations=checks)
            self._assessed_with = checks
        return self._health


class ObjectIndex:
    def __init__(self, method: TrackingMethod, health: Callable[[], HealthCustomizations]) -> None:
        self._method = method
        self._checks = health
        self._entries: dict[str, Entry] = {}
        self._children: defaultdict[str, set[str]] = defaultdict(set)
        self._tracked: defaultdict[str, set[str]] = defaultdict(set)
        self._top_level: defaultdict[str, set[str]] = defaultdict(set)
        """Untracked objects without owners, by namespace (orphan candidates)."""

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, uid: str) -> Entry | None:
        return self._entries.get(uid)

    def upsert(self, obj: KubeObject) -> tuple[Entry, Entry | None]:
        """Record an added or modified object; the new entry and the one it replaced."""
        entry = Entry(obj, self._method)
        previous = self._entries.get(entry.uid)
        if previous is not None:
            self._unlink(previous)
        self._entries[entry.uid] = entry
        for owner in entry.owners:
            self._children[owner].add(entry.uid)
        if entry.tracked_by is not None:
            self._tracked[entry.tracked_by].add(entry.uid)
        elif entry.untracked_top_level:
            self._top_level[entry.key.namespace].add(entry.uid)
        return entry, previous

    def remove(self, obj: KubeObject) -> Entry | None:
        """Forget a deleted object (a full object or a tombstone with its uid)."""
        return self.remove_uid(str(metadata(obj).get("uid") or ""))

    def remove_uid(self, uid: str) -> Entry | None:
        """Forget the object with this uid."""
        entry = self._entries.pop(uid, None)
        if entry is not None:
            self._unlink(entry)
        return entry

    def of_kind(self, group_kind: GroupKind) -> list[Entry]:
        return [e for e in self._entries.values() if e.key.group_kind == group_kind]

    def remove_kind(self, group_kind: GroupKind) -> list[Entry]:
        """Forget every object of a kind that is no longer served."""
        gone = self.of_kind(group_kind)
        for entry in gone:
            del self._entries[entry.uid]
            self._unlink(entry)
        return gone

    def _unlink(self, entry: Entry) -> None:
        for owner in entry.owners:
            children = self._children.get(owner)
            if children is not None:
                children.discard(entry.uid)
                if not children:
                    del self._children[owner]
        if entry.tracked_by is not None:
            tracked = self._tracked.get(entry.tracked_by)
            if tracked is not None:
                tracked.discard(entry.uid)
                if not tracked:
                    del self._tracked[entry.tracked_by]
        elif entry.untracked_top_level:
            top = self._top_level.get(entry.key.namespace)
            if top is not None:
                top.discard(entry.uid)
                if not top:
                    del self._top_level[entry.key.namespace]

    def tracked(self, name: str) -> list[KubeObject]:
        """The objects tracked by the app named `name` on its objects."""
        return [self._entries[uid].obj for uid in self._tracked.get(name, ())]

    def untracked_top_level(self, namespace: str) -> list[Entry]:
        """The objects of `namespace` no app tracks and nothing owns (orphan candidates)."""
        return [self._entries[uid] for uid in self._top_level.get(namespace, ())]

    def children(self, uid: str) -> list[KubeObject]:
        """The objects whose ownerReferences name `uid`."""
        return [self._entries[child].obj for child in self._children.get(uid, ())]

    def health_of(self, obj: KubeObject) -> HealthStatus | None:
        """The (cached) health of an indexed object; assessed afresh if not indexed."""
        checks = self._checks()
        entry = self._entries.get(str(metadata(obj).get("uid") or ""))
        if entry is not None and entry.holds(obj):
            return entry.health(checks)
        return assess(obj, customizations=checks)

    def owning_apps(self, entry: Entry) -> Iterator[str]:
        """The tracking names of the apps tracking an owner of `entry`, up the chain."""
        seen = {entry.uid}
        level = list(entry.owners)
        for _ in range(MAX_OWNER_DEPTH):
            above: list[str] = []
            for uid in level:
                owner = self._entries.get(uid)
                if owner is None or uid in seen:
                    continue
                seen.add(uid)
                if owner.tracked_by is not None:
                    yield owner.tracked_by
                above.extend(owner.owners)
            if not above:
                return
            level = above

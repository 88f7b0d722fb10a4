"""What a watch delivers, and the bookkeeping that keeps it free of gaps and duplicates.

A watch hands its consumer one event per change: ADDED, MODIFIED, DELETED, and a `Synced`
marker when the consumer holds the complete state (after the first list and after every
relist). The helper remembers each object's uid and resourceVersion (not the object), so:

- an event repeating what was already delivered (same uid and resourceVersion) is dropped;
- a relist after `410 Expired` is turned into only the differences: ADDED for new objects,
  MODIFIED for changed ones, DELETED (with a minimal object) for those that vanished while
  the watch was away, and DELETED then ADDED for a name that was deleted and recreated.
  A relist is taken a page at a time (`begin_relist`, `listed` per page, `end_relist`),
  so the consumer never holds a whole list decoded; the vanished are known, and deleted,
  once the last page is in.
"""

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from app.model.resource import KubeObject


class EventType(enum.Enum):
    ADDED = "ADDED"
    MODIFIED = "MODIFIED"
    DELETED = "DELETED"


@dataclass(frozen=True, slots=True)
class WatchEvent:
    """One change: the object as it is now (for DELETED, as it was last)."""

    type: EventType
    object: KubeObject


@dataclass(frozen=True, slots=True)
class Synced:
    """The consumer now holds every object: sent after the first list and after each relist."""

    resource_version: str
    count: int


Key = tuple[str, str]
"""(namespace, name) of an object within one watched type."""


def _key(obj: KubeObject) -> Key:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def _version(obj: KubeObject) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return str(meta.get("uid") or ""), str(meta.get("resourceVersion") or "")


class KnownObjects:
    """uid and resourceVersion of every object delivered so far, for one watched type."""

    __slots__ = ("_api_version", "_kind", "_listed", "_seen")

    def __init__(self, api_version: str, kind: str) -> None:
        self._api_version = api_version
        self._kind = kind
        self._seen: dict[Key, tuple[str, str]] = {}
        self._listed: set[Key] = set()
        """The keys the relist under way has listed so far."""

    def __len__(self) -> int:
        return len(self._seen)

    def _tombstone(self, key: Key, uid: str, resource_version: str) -> KubeObject:
        meta = {"name": key[1], "uid": uid, "resourceVersion": resource_version}
        if key[0]:
            meta["namespace"] = key[0]
        return {"apiVersion": self._api_version, "kind": self._kind, "metadata": meta}

    def observe(self, event_type: EventType, obj: KubeObject) -> WatchEvent | None:
        """The event to deliver for one watch event, or None if it was already delivered."""
        key, version = _key(obj), _version(obj)
        seen = self._seen.get(key)
        if event_type is EventType.DELETED:
            if seen is None or (version[0] and seen[0] != version[0]):
                return None
            del self._seen[key]
            return WatchEvent(EventType.DELETED, obj)
        if seen == version:
            return None
        self._seen[key] = version
        kind = EventType.ADDED if seen is None or seen[0] != version[0] else EventType.MODIFIED
        return WatchEvent(kind, obj)

    def begin_relist(self) -> None:
        """A relist starts (or starts over): its pages follow, then `end_relist`."""
        self._listed = set()

    def listed(self, items: Iterable[KubeObject]) -> list[WatchEvent]:
        """The events for one page of a relist: ADDED or MODIFIED, each object at most once,
        with DELETED first for a name now held by a new uid."""
        events: list[WatchEvent] = []
        for obj in items:
            key = _key(obj)
            self._listed.add(key)
            seen = self._seen.get(key)
            if seen is not None and seen[0] != _version(obj)[0]:
                del self._seen[key]
                events.append(WatchEvent(EventType.DELETED, self._tombstone(key, *seen)))
            event = self.observe(EventType.ADDED, obj)
            if event is not None:
                events.append(event)
        return events

    def end_relist(self) -> list[WatchEvent]:
        """DELETED for each object delivered before that the relist's pages did not hold."""
        events = []
        for key, (uid, rv) in list(self._seen.items()):
            if key not in self._listed:
                del self._seen[key]
                events.append(WatchEvent(EventType.DELETED, self._tombstone(key, uid, rv)))
        self._listed = set()
        return events

    def relist(self, items: Iterable[KubeObject]) -> list[WatchEvent]:
        """The events that bring a consumer from what it was sent to exactly `items`."""
        self.begin_relist()
        return self.listed(items) + self.end_relist()

"""The application list's items, decoded and encoded once per version of what they are
made of.

A list of 1,000 apps is asked for at every page load and every reload of the UI's list;
decoding each app and its status from Redis and encoding them again was most of what the
route cost. Here each app keeps its decoded Application with the stored document it came
from, and its encoded item (with its status) with the document and the status reads, as
stored: the same bytes always decode to the same values, so a kept value is used only
while what is stored is byte for byte what it was made from, and nothing can go stale.
One of each per app (a change replaces it), so what is kept is about one list's worth.
Kept values are shared between requests and never changed: the route only reads them
(filters, RBAC) and writes them out. Each kept app is kept encoded too (without a
status), and an item is that with its encoded status, so a status change (a burst of
them, at 1,000 apps) costs decoding and encoding the status, not the app again.
"""

from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from app.api.routes import encode
from app.model.application import Application
from app.model.health import HealthStatusCode
from app.model.identity import AppRef
from app.model.status import ApplicationStatus
from app.model.sync import SyncStatusCode
from app.store.apps import decode_app
from app.store.status import RawStatus, decode_raw

KEPT = 8192
"""Apps kept; past it the least recently listed go (deleted apps, mostly)."""
K = TypeVar("K")
V = TypeVar("V")


class _Lru(Generic[K, V]):
    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._values: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        found = self._values.get(key)
        if found is not None:
            self._values.move_to_end(key)
        return found

    def put(self, key: K, value: V) -> V:
        self._values[key] = value
        if len(self._values) > self._limit:
            self._values.popitem(last=False)
        return value


@dataclass(frozen=True, slots=True)
class ListItem:
    """One app as the list shows it: what filters read, and its JSON."""

    sync: SyncStatusCode
    health: HealthStatusCode
    encoded: dict[str, Any]


class ListItems:
    """Decoded apps by stored document, encoded items by document and status reads."""

    def __init__(self, limit: int = KEPT) -> None:
        self._apps: _Lru[AppRef, tuple[bytes, Application, dict[str, Any]]] = _Lru(limit)
        self._items: _Lru[AppRef, tuple[bytes, RawStatus, ListItem]] = _Lru(limit)

    def _kept(self, ref: AppRef, doc: bytes) -> tuple[bytes, Application, dict[str, Any]] | None:
        found = self._apps.get(ref)
        if found is not None and found[0] == doc:
            return found
        app = decode_app(ref, doc)
        if app is None:
            return None
        return self._apps.put(ref, (doc, app, encode(replace(app, status=ApplicationStatus()))))

    def app(self, ref: AppRef, doc: bytes) -> Application | None:
        """The stored Application (shared: read it, never change it); None if unreadable."""
        kept = self._kept(ref, doc)
        return kept[1] if kept is not None else None

    def item(self, ref: AppRef, doc: bytes, raw: RawStatus) -> ListItem | None:
        """The app with its status, encoded; None if the document cannot be read."""
        found = self._items.get(ref)
        if found is not None and found[0] == doc and found[1] == raw:
            return found[2]
        kept = self._kept(ref, doc)
        if kept is None:
            return None
        stored = decode_raw(ref, raw)
        status = stored.status if stored is not None else ApplicationStatus()
        encoded = encode(status)
        item = ListItem(
            status.sync.status,
            status.health.status,
            kept[2] | {"status": encoded} if encoded else kept[2],
        )
        self._items.put(ref, (doc, raw, item))
        return item

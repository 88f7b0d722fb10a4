"""The application list's items, decoded and encoded once per version of what they are
made of.

A list of 1,000 apps is asked for at every page load and every reload of the UI's list;
decoding each app and its status from Redis and encoding them again was most of what the
route cost. Here each app's decoded Application is kept by its stored document, and its
encoded item (with its status) by the document and the status reads, as stored: the
same bytes always decode to the same values, so nothing here can go stale, and a changed
app or status is a new key. Kept values are shared between requests and never changed:
the route only reads them (filters, RBAC) and writes them out.
"""

from collections import OrderedDict
from dataclasses import dataclass
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
"""Apps (and, separately, items) kept; past it the least recently listed go."""
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
        self._apps: _Lru[bytes, Application] = _Lru(limit)
        self._items: _Lru[tuple[bytes, RawStatus], ListItem] = _Lru(limit)

    def app(self, ref: AppRef, doc: bytes) -> Application | None:
        """The stored Application (shared: read it, never change it); None if unreadable."""
        found = self._apps.get(doc)
        if found is not None:
            return found
        app = decode_app(ref, doc)
        return self._apps.put(doc, app) if app is not None else None

    def item(self, ref: AppRef, doc: bytes, raw: RawStatus) -> ListItem | None:
        """The app with its status, encoded; None if the document cannot be read."""
        key = (doc, raw)
        found = self._items.get(key)
        if found is not None:
            return found
        app = decode_app(ref, doc)
        if app is None:
            return None
        stored = decode_raw(ref, raw)
        app.status = stored.status if stored is not None else ApplicationStatus()
        item = ListItem(app.status.sync.status, app.status.health.status, encode(app))
        return self._items.put(key, item)

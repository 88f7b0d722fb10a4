"""The change log: every stored write becomes one `Change`, fanned out as it happens.

Listeners (open watches, the garbage collector, the simulated controllers) register per
resource and are called synchronously in the write that caused the change, so a watch
sees every change exactly once and in resourceVersion order without scanning. A bounded
history per resource lets a watch resume from a resourceVersion; asking for one older
than the history holds is answered 410 Expired, as etcd compaction is by a real server.
"""

import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from app.localcluster.resources import GroupResource
from app.model.resource import KubeObject

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"


@dataclass(slots=True)
class Change:
    """One write: its revision, type, resource and the object after it."""

    revision: int
    type: str
    resource: GroupResource
    obj: KubeObject
    old: KubeObject | None = None
    _line: bytes | None = field(default=None, repr=False)

    @property
    def namespace(self) -> str:
        return str(self.obj["metadata"].get("namespace") or "")

    def line(self) -> bytes:
        """The watch-stream line for this change, encoded once for every watcher."""
        if self._line is None:
            self._line = encode_event(self.type, self.obj)
        return self._line


def encode_event(kind: str, obj: object) -> bytes:
    return json.dumps({"type": kind, "object": obj}, separators=(",", ":")).encode() + b"\n"


Listener = Callable[[Change], None]


class EventLog:
    """Per-resource bounded history plus synchronous fan-out to listeners."""

    def __init__(self, history: int) -> None:
        self._limit = history
        self._history: dict[GroupResource, deque[Change]] = {}
        self._compacted: dict[GroupResource, int] = {}
        self._floor = 0
        self._listeners: dict[GroupResource | None, tuple[Listener, ...]] = {}

    def publish(self, change: Change) -> None:
        history = self._history.get(change.resource)
        if history is None:
            history = self._history[change.resource] = deque()
        if len(history) >= self._limit:
            self._compacted[change.resource] = history.popleft().revision
        history.append(change)
        for listener in self._listeners.get(change.resource, ()):
            listener(change)
        for listener in self._listeners.get(None, ()):
            listener(change)

    def listen(self, resource: GroupResource | None, listener: Listener) -> Callable[[], None]:
        """Call `listener` for every change of `resource` (None: of every resource)."""
        self._listeners[resource] = (*self._listeners.get(resource, ()), listener)

        def stop() -> None:
            current = self._listeners.get(resource, ())
            self._listeners[resource] = tuple(x for x in current if x is not listener)

        return stop

    def oldest_resumable(self, resource: GroupResource) -> int:
        """The lowest resourceVersion a watch of `resource` may resume from."""
        return max(self._floor, self._compacted.get(resource, 0))

    def since(self, resource: GroupResource, revision: int) -> list[Change] | None:
        """Changes of `resource` after `revision`, oldest first; None if compacted away."""
        if revision < self.oldest_resumable(resource):
            return None
        out: list[Change] = []
        for change in reversed(self._history.get(resource, ())):
            if change.revision <= revision:
                break
            out.append(change)
        out.reverse()
        return out

    def restart_at(self, revision: int) -> None:
        """Forget history: nothing at or before `revision` (a loaded snapshot) can be resumed."""
        self._history.clear()
        self._compacted.clear()
        self._floor = revision

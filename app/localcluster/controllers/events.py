"""Events the simulated controllers record, the way client-go's event recorder does.

An Event is a normal stored object (core/v1 `events`), written through the object API
and so listed, watched and field-selected like any other (`kubectl describe` asks for
`involvedObject.name=…`). As with the real recorder, it is named
`<object>.<hex nanoseconds>` in the object's namespace (`default` for cluster-scoped
objects), and an identical event (same source, object, type, reason and message) is not
written again: the first one's `count` rises and its `lastTimestamp` moves on (events
expire: `app.localcluster.system.eventexpiry`).
"""

import time
from collections import OrderedDict
from typing import Any

from app.localcluster.api import writes
from app.localcluster.api.options import WriteOptions
from app.localcluster.api.server import ApiServer
from app.localcluster.objectmeta import now
from app.localcluster.resources import GroupResource
from app.model.resource import KubeObject

EVENTS = GroupResource("", "events")
NORMAL = "Normal"
WARNING = "Warning"
NODE = "localcluster"
"""The one node every simulated pod is scheduled to."""
CACHE_SIZE = 4096
"""Distinct events remembered for aggregation, as client-go's correlator keeps."""

Key = tuple[str, ...]


class EventSink:
    """Where every recorder writes; remembers recent events to aggregate repeats."""

    def __init__(self, api: ApiServer) -> None:
        self.api = api
        self._recent: OrderedDict[Key, tuple[str, str]] = OrderedDict()

    def recorder(self, component: str, host: str = "") -> "EventRecorder":
        return EventRecorder(self, component, host)

    def write(self, key: Key, event: KubeObject) -> None:
        """Create `event`, or count it on the identical one recorded before."""
        rt = self.api.type_of(EVENTS)
        namespace = str(event["metadata"]["namespace"])
        known = self._recent.get(key)
        existing = self.api.find(rt, known[0], known[1]) if known is not None else None
        if existing is not None:
            self._recent.move_to_end(key)
            counted = {
                **existing,
                "metadata": dict(existing["metadata"]),
                "count": int(existing.get("count") or 1) + 1,
                "lastTimestamp": event["lastTimestamp"],
            }
            self.api.replace(rt, existing, counted, str(event["source"]["component"]))
            return
        opts = WriteOptions(field_manager=str(event["source"]["component"]))
        created = writes.create(self.api, rt, event, namespace=namespace, opts=opts)
        self._recent[key] = (namespace, str(created["metadata"]["name"]))
        while len(self._recent) > CACHE_SIZE:
            self._recent.popitem(last=False)


class EventRecorder:
    """Records events as one component (`deployment-controller`, `kubelet`…)."""

    def __init__(self, sink: EventSink, component: str, host: str) -> None:
        self.sink = sink
        self.component = component
        self.host = host

    def event(
        self,
        obj: KubeObject,
        reason: str,
        message: str,
        *,
        type_: str = NORMAL,
        field_path: str = "",
    ) -> None:
        meta = obj["metadata"]
        involved: dict[str, Any] = {
            "kind": obj.get("kind", ""),
            "namespace": meta.get("namespace", ""),
            "name": meta["name"],
            "uid": meta.get("uid", ""),
            "apiVersion": obj.get("apiVersion", ""),
            "resourceVersion": meta.get("resourceVersion", ""),
        }
        if field_path:
            involved["fieldPath"] = field_path
        if not involved["namespace"]:
            del involved["namespace"]
        source = {"component": self.component, **({"host": self.host} if self.host else {})}
        stamp = now()
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": f"{meta['name']}.{time.time_ns():x}",
                "namespace": meta.get("namespace") or "default",
            },
            "involvedObject": involved,
            "reason": reason,
            "message": message,
            "source": source,
            "firstTimestamp": stamp,
            "lastTimestamp": stamp,
            "count": 1,
            "type": type_,
            "reportingComponent": self.component,
            "reportingInstance": self.host,
        }
        key = (
            self.component,
            self.host,
            str(involved["kind"]),
            str(meta.get("namespace", "")),
            str(meta["name"]),
            str(involved["uid"]),
            str(involved["apiVersion"]),
            field_path,
            type_,
            reason,
            message,
        )
        self.sink.write(key, event)

"""What every request handler reaches through `request.app[CONTEXT]`."""

from collections import Counter
from dataclasses import dataclass, field

from aiohttp import web

from app.localcluster.api.server import ApiServer
from app.localcluster.eventlog import EventLog
from app.localcluster.faults import Faults
from app.localcluster.resources import Registry
from app.localcluster.web.discovery import Discovery
from app.localcluster.web.openapi import OpenApi
from app.localcluster.web.watch import WatchLimits, WatchStream


@dataclass(slots=True)
class Context:
    api: ApiServer
    registry: Registry
    events: EventLog
    discovery: Discovery
    openapi: OpenApi
    faults: Faults
    max_body_bytes: int
    watch_limits: WatchLimits
    server_address: str = ""
    watches: set[WatchStream] = field(default_factory=set)
    requests: Counter[str] = field(default_factory=Counter)
    """Resource requests served, by verb (get, list, watch, create, update, patch, delete,
    deletecollection): how benchmarks show that a resync made no LIST."""

    def drop_watches(self, reason: str) -> int:
        """Close every open watch (clients see the stream end and must resume)."""
        open_now = list(self.watches)
        for stream in open_now:
            stream.close(reason)
        return len(open_now)


CONTEXT = web.AppKey("localcluster", Context)

"""Writing one Kubernetes Event, aggregated: create it, or bump the one already there.

The Event's name is derived from what it says (`app.engine.kube_events.event_name`), so
the first write creates it and every repeat reads it and writes it back with `count` + 1
under its resourceVersion. Two replicas bumping at once: one gets a Conflict, reads
again and bumps the newer count, so no repeat is lost or counted twice. An Event that
expired meanwhile (the API server's event TTL) is created afresh.
"""

import datetime as dt

from app.cluster import Cluster, Conflict, NotFound
from app.engine.kube_events import EventSpec, Involved, counted, event_name, new_event
from app.model.resource import KubeObject
from app.model.timestamps import format_time

ATTEMPTS = 3
"""Reads and writes tried before a contended Event is given up (Conflict raised)."""


async def record(
    cluster: Cluster, involved: Involved, spec: EventSpec, *, component: str
) -> KubeObject:
    """Write the Event `spec` about `involved`; the Event as stored. Conflict (or
    NotFound) once `ATTEMPTS` writes lost their race."""
    attempt = 1
    while True:
        try:
            return await _write_once(cluster, involved, spec, component)
        except (Conflict, NotFound):
            if attempt >= ATTEMPTS:
                raise
            attempt += 1


async def _write_once(
    cluster: Cluster, involved: Involved, spec: EventSpec, component: str
) -> KubeObject:
    now = format_time(dt.datetime.now(dt.UTC))
    try:
        existing = await cluster.get("v1", "Event", event_name(involved, spec), involved.namespace)
    except NotFound:
        return await cluster.create(new_event(involved, spec, component=component, now=now))
    return await cluster.replace(counted(existing, now=now))

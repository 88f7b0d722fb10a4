"""Reconcilers the API server itself runs, whatever the simulated controllers do.

They finish what a delete starts: the garbage collector deletes dependents whose owners
are gone (and honours `foregroundDeletion` and `orphan`), the namespace reconciler
empties a Terminating namespace and then lets it go, and the CRD reconciler deletes a
deleted CRD's objects before the CRD and its API disappear, and Events expire an hour
(`event_ttl_seconds`) after they were last recorded. They run with no delay:
their timing is the API server's, not a simulated workload's.
"""

from app.localcluster.api.server import ApiServer
from app.localcluster.runtime import Runtime
from app.localcluster.system.crdcleanup import CrdCleanup
from app.localcluster.system.eventexpiry import EventExpiry
from app.localcluster.system.gc import GarbageCollector
from app.localcluster.system.namespaces import NamespaceFinalizer


def register(runtime: Runtime, api: ApiServer, event_ttl_seconds: float) -> None:
    runtime.register(GarbageCollector(api))
    runtime.register(NamespaceFinalizer(api))
    runtime.register(CrdCleanup(api))
    runtime.register(EventExpiry(api, event_ttl_seconds))

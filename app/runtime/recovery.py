"""When Redis lost a running operation: what the Application resource still says about it.

Redis is a cache (issue 13): a flush, or an empty restart, loses the operation's record
while the Application's `status.operationState` still says it runs. A step message that
finds no record reads `written_operation`; if the Application says the operation runs,
the record is restored from that OperationState (`OperationStore.restore`, unplanned)
and the operation is planned again and resumed (`app.engine.sync.resumption`, in
`workers.sync.loop`), never started anew. The compare stage asks the same question before
an auto-sync decision, so it never starts a second operation for the commit a lost one
was syncing, and it wakes such an operation when no step message is left to do it.
"""

from typing import Any

from app.cluster import Cluster, ClusterError, NotFound
from app.model import codec
from app.model.application import API_VERSION, KIND
from app.model.errors import SpecError
from app.model.identity import AppRef
from app.model.operation import OperationState


async def written_operation(
    cluster: Cluster, ref: AppRef, *, time_limit: float
) -> OperationState | None:
    """The OperationState the Application resource holds (None: none, unreadable, or the
    resource is gone); ClusterError if the cluster does not answer."""
    try:
        obj = await cluster.get(API_VERSION, KIND, ref.name, ref.namespace, time_limit=time_limit)
    except NotFound:
        return None
    status: Any = obj.get("status") or {}
    written = status.get("operationState") if isinstance(status, dict) else None
    if not isinstance(written, dict):
        return None
    try:
        return codec.decode(OperationState, written, "status.operationState")
    except SpecError:
        return None


async def application_exists(cluster: Cluster, ref: AppRef, *, time_limit: float) -> bool:
    try:
        await cluster.get(API_VERSION, KIND, ref.name, ref.namespace, time_limit=time_limit)
    except NotFound:
        return False
    except ClusterError:
        return True
    return True

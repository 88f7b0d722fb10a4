"""Application status write-back: the compare-owned fields, as a merge patch on the resource.

Argo CD's Application CRD has no status subresource, so the status is patched on the
resource itself: `{"status": {...}}` as a JSON merge patch holding only the fields the
compare stage owns (`app.engine.writeback` decides the patch and whether to skip it).
The sync worker patches `operationState` and `history` the same way; neither write can
undo the other's.

A failed write leaves the marks saying the resource does not hold the stored status, so
the next comparison writes again. An Application that is gone from the
cluster (deleted while its comparison ran) is not an error: the watcher forgets it.
"""

from dataclasses import dataclass, replace

from app import log
from app.cluster import Cluster, ClusterError, NotFound, PatchType
from app.engine.writeback import decide_write, owned_fields, same_content, status_patch
from app.model.application import API_VERSION, KIND, Application
from app.model.status import ApplicationStatus
from app.store.compare_marks import CompareMarks

logger = log.get("compare")


@dataclass(frozen=True, slots=True)
class StatusWrite:
    """What the write-back did."""

    marks: CompareMarks
    """The marks to keep: when the stored status last landed on the resource."""
    outcome: str
    """`written`, `skipped`, `gone` or `failed`."""
    reason: str


class StatusWriter:
    """Writes the compare-owned status of Applications through the control-plane cluster."""

    def __init__(self, control_plane: Cluster, resync_period: float) -> None:
        self._cluster = control_plane
        self._period = resync_period

    async def write(
        self,
        app: Application,
        status: ApplicationStatus,
        previous: ApplicationStatus | None,
        marks: CompareMarks,
        now: float,
    ) -> StatusWrite:
        """Patch `status` onto the Application unless only the reconcile time moved."""
        changed = not same_content(previous, status)
        decision = decide_write(changed, marks.written_at, now, self._period)
        if not decision.write:
            return StatusWrite(marks, "skipped", decision.reason)
        previous_owned = owned_fields(previous) if previous is not None else None
        patch = status_patch(previous_owned, owned_fields(status))
        try:
            await self._cluster.patch(
                API_VERSION,
                KIND,
                app.name,
                patch,
                namespace=app.namespace,
                patch_type=PatchType.MERGE,
            )
        except NotFound:
            unknown = replace(marks, written_at=0.0)
            return StatusWrite(unknown, "gone", "the Application no longer exists in the cluster")
        except ClusterError as e:
            logger.warning(
                "status.write_failed",
                app=f"{app.namespace}/{app.name}",
                error=str(e),
                consequence="written again by the next comparison",
            )
            return StatusWrite(replace(marks, written_at=0.0), "failed", str(e))
        return StatusWrite(replace(marks, written_at=now), "written", decision.reason)

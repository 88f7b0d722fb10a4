"""Resuming an operation Redis lost: what ran is carried over, nothing runs twice."""

from datetime import timedelta

from app.engine.sync import start
from app.engine.sync.resumption import RESUMED, resume
from app.model.operation import ResourceResult
from app.model.resource import ResourceKey
from app.model.sync import OperationPhase, ResultCode
from app.model.timestamps import format_time
from tests.unit.engine.sync.builders import NAMESPACE, obj, plan
from tests.unit.engine.sync.fake_cluster import T0


def _created(name: str, at: str) -> dict[str, object]:
    live = obj("Job", name, hook="PreSync")
    live["metadata"] = {**live["metadata"], "namespace": NAMESPACE, "creationTimestamp": at}
    return live


def test_recorded_and_created_hooks_are_carried_over_and_the_rest_runs_again() -> None:
    targets = [
        obj("Job", "done", hook="PreSync"),
        obj("Job", "started", hook="PreSync"),
        obj("Job", "older", hook="PreSync"),
        obj("Job", "fresh", hook="PostSync"),
        obj("ConfigMap", "cfg"),
    ]
    state = start(plan(targets), T0)
    recorded = [
        ResourceResult(
            kind="Job",
            name="done",
            group="batch",
            namespace=NAMESPACE,
            status="Synced",
            message="job completed",
            hook_type="PreSync",
            hook_phase="Succeeded",
            sync_phase="PreSync",
        )
    ]
    live = {
        ResourceKey("batch", "Job", NAMESPACE, "started"): _created("started", format_time(T0)),
        ResourceKey("batch", "Job", NAMESPACE, "older"): _created(
            "older", format_time(T0 - timedelta(hours=1))
        ),
    }
    resumed = {t.key.name: t for t in resume(state, recorded, live).tasks}
    done, started = resumed["done"], resumed["started"]
    assert (done.result, done.phase, done.message) == (
        ResultCode.SYNCED,
        OperationPhase.SUCCEEDED,
        "job completed",
    )
    assert (started.result, started.phase, started.message) == (
        ResultCode.SYNCED,
        OperationPhase.RUNNING,
        RESUMED,
    )
    assert done.order == 1 and started.order == 2
    for name in ("older", "fresh", "cfg"):
        assert resumed[name].pending, name

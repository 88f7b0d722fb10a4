"""What an operation records as synced (SEMANTICS §9): one revision, or one per source.

A single-source app's syncResult and history entry carry `revision` and `source`; a
multi-source app's carry `revisions` and `sources` (one commit per source, in order) and
an empty `revision`, as Argo CD records them. Auto-sync reads them to tell whether the
last operation already targeted these commits, so a failed multi-source sync is not
attempted again and again for the same commits.
"""

import json
from dataclasses import replace
from datetime import timedelta

from app.engine.autosync import AutoSyncOutcome, ComparedState, decide_auto_sync
from app.engine.history import append_history, rollback_operation
from app.engine.sync import SyncState, error_out, operation_state, start
from app.model.app_spec import ApplicationSource
from app.model.application import Application
from app.model.status import ResourceStatus
from app.model.sync import OperationPhase, SyncStatusCode
from tests.unit.engine.sync.builders import REVISION, app, obj, plan
from tests.unit.engine.sync.fake_cluster import T0, FakeCluster, drive

SECOND = "fedcba9876543210fedcba9876543210fedcba98"
SOURCES = [
    ApplicationSource(repo_url="https://git.example/shop.git", path="deploy"),
    ApplicationSource(repo_url="https://git.example/config.git", path="values"),
]


def multi_source(automated: bool = False) -> Application:
    base = app(extra_policy={"automated": {}} if automated else None)
    return replace(base, spec=replace(base.spec, source=None, sources=list(SOURCES)))


def synced(application: Application, revisions: tuple[str, ...] = ()) -> SyncState:
    planned = plan([obj("ConfigMap", "cfg")], application=application, revisions=revisions)
    state, _ = drive(planned, FakeCluster())
    return state


def test_a_multi_source_sync_records_every_sources_commit() -> None:
    state = synced(multi_source(), (REVISION, SECOND))
    result = operation_state(state).sync_result
    assert result is not None
    assert (result.revision, result.revisions) == ("", [REVISION, SECOND])
    assert result.sources == SOURCES


def test_a_single_source_sync_records_its_commit() -> None:
    state = synced(app(), (REVISION,))
    result = operation_state(state).sync_result
    assert result is not None
    assert (result.revision, result.revisions) == (REVISION, [])


def test_the_history_entry_of_a_multi_source_sync_can_roll_back_to_both_commits() -> None:
    application = multi_source()
    finished = operation_state(synced(application, (REVISION, SECOND)))
    assert finished.phase is OperationPhase.SUCCEEDED
    (entry,) = append_history([], finished, T0, limit=10)
    assert (entry.revisions, entry.sources) == ([REVISION, SECOND], SOURCES)
    application.status.history = [entry]
    rollback = rollback_operation(application, entry.id).sync
    assert rollback is not None and rollback.revisions == [REVISION, SECOND]


def test_revisions_survive_the_persisted_state() -> None:
    state = synced(multi_source(), (REVISION, SECOND))
    assert SyncState.from_dict(json.loads(json.dumps(state.to_dict()))).revisions == (
        REVISION,
        SECOND,
    )


def test_auto_sync_does_not_repeat_a_failed_multi_source_sync_of_the_same_commits() -> None:
    application = multi_source(automated=True)
    begun = start(
        plan([obj("ConfigMap", "cfg")], application=application, revisions=(REVISION, SECOND)), T0
    )
    failed = error_out(begun, "one or more objects failed to apply", T0)
    application.status.operation_state = operation_state(failed)
    drifted = ResourceStatus(kind="ConfigMap", name="cfg", status=SyncStatusCode.OUT_OF_SYNC)
    compared = ComparedState(SyncStatusCode.OUT_OF_SYNC, REVISION, [drifted], (REVISION, SECOND))
    decision = decide_auto_sync(application, compared, T0 + timedelta(minutes=5))
    assert decision.outcome is AutoSyncOutcome.SYNC_ERROR
    assert decision.sync_error.startswith(f"Failed last sync attempt to [{REVISION} {SECOND}]")

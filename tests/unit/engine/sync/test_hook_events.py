"""hook-phase-changed reports each hook's new phase once, whichever step made it."""

from app.engine.sync import Wait, next_step, record_results, start
from app.engine.sync.hook_events import hook_phase_changes
from app.model.health import HealthStatusCode as H
from app.model.sync import OperationPhase, SyncPhase
from tests.unit.engine.sync.builders import obj, plan
from tests.unit.engine.sync.fake_cluster import T0, FakeCluster


def test_each_hook_phase_is_reported_once_across_an_operation() -> None:
    targets = [
        obj("Job", "migrate", hook="PreSync"),
        obj("Deployment", "web"),
        obj("Job", "smoke", hook="PostSync"),
    ]
    cluster = FakeCluster(health_script={"migrate": [H.PROGRESSING, H.HEALTHY]})
    state, now = start(plan(targets), T0), T0
    reported: list[tuple[str, SyncPhase, OperationPhase]] = []
    while not state.completed:
        before = state
        step = next_step(state, cluster.observe(state), now)
        state = record_results(step.state, cluster.run(step), now)
        if isinstance(state.next, Wait):
            now = state.next.until
        for change in hook_phase_changes(before, state):
            reported.append((change.key.name, change.hook_type, change.phase))
    assert state.phase is OperationPhase.SUCCEEDED
    assert reported == [
        ("migrate", SyncPhase.PRE_SYNC, OperationPhase.RUNNING),
        ("migrate", SyncPhase.PRE_SYNC, OperationPhase.SUCCEEDED),
        ("smoke", SyncPhase.POST_SYNC, OperationPhase.RUNNING),
        ("smoke", SyncPhase.POST_SYNC, OperationPhase.SUCCEEDED),
    ]


def test_nothing_is_reported_when_no_hook_moved() -> None:
    state = start(plan([obj("Job", "migrate", hook="PreSync")]), T0)
    assert hook_phase_changes(state, state) == []
    assert hook_phase_changes(None, state) == []

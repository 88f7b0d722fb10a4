"""The persisted sync state: JSON round trips, damaged input, and recording rules."""

import json
from datetime import timedelta

import pytest

from app.engine.sync import (
    ActionResult,
    Continue,
    StateError,
    SyncState,
    Wait,
    next_step,
    record_results,
    start,
)
from app.model.app_spec import Backoff, RetryStrategy
from app.model.codec import decode, encode
from app.model.health import HealthStatusCode as H
from app.model.operation import Operation
from app.model.resource import ResourceKey
from app.model.sync import SyncStrategy
from tests.unit.engine.sync.builders import live_of, obj, operation, plan
from tests.unit.engine.sync.fake_cluster import T0, FakeCluster


def mid_operation_state() -> SyncState:
    """A state with results, a wave delay and actions in flight."""
    targets = [
        obj("Job", "", hook="PreSync", generate_name="migrate-", policy="HookSucceeded"),
        obj("ConfigMap", "cfg", wave=-1, options="Replace=true"),
        obj("Deployment", "web"),
    ]
    op = operation(retry=RetryStrategy(limit=3, backoff=Backoff(duration="2s"), refresh=True))
    cluster = FakeCluster(health_script={"web": [H.PROGRESSING]})
    state = start(plan(targets, live=live_of(obj("Secret", "old")), op=op), T0)
    for _ in range(3):
        step = next_step(state, cluster.observe(state), T0)
        state = record_results(step.state, cluster.run(step), T0)
    return next_step(state, cluster.observe(state), T0 + timedelta(seconds=3)).state


def test_state_survives_a_json_round_trip() -> None:
    state = mid_operation_state()
    assert state.in_flight and isinstance(state.next, Continue | Wait)
    text = json.dumps(state.to_dict())
    assert SyncState.from_dict(json.loads(text)) == state


def test_unknown_keys_are_ignored_and_missing_optional_ones_default() -> None:
    data = mid_operation_state().to_dict()
    data["addedByANewerSluice"] = {"x": 1}
    for optional in ("warnings", "failedToApply", "retryAt", "next"):
        data.pop(optional)
    reread = SyncState.from_dict(data)
    assert reread.tasks == mid_operation_state().tasks


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"schema": 99}, "not a sync state of schema 1"),
        ("text", "not a sync state of schema 1"),
        ({"schema": 1, "app": "shop"}, "damaged sync state for shop"),
    ],
    ids=["future-schema", "not-an-object", "missing-fields"],
)
def test_damaged_state_is_a_clear_error(data: object, needle: str) -> None:
    with pytest.raises(StateError, match=needle):
        SyncState.from_dict(data)


def test_apply_strategy_with_an_empty_object_survives_encoding() -> None:
    op = operation(strategy="apply")
    reread = decode(Operation, json.loads(json.dumps(encode(op))))
    assert reread.sync is not None and reread.sync.strategy is SyncStrategy.APPLY
    assert reread == op


def test_operation_codec_keeps_unknown_fields() -> None:
    data = {
        "sync": {"revision": "abc", "futureField": 1},
        "initiatedBy": {"automated": True},
        "x": 2,
    }
    op = decode(Operation, data)
    assert op.sync is not None and op.sync.extra == {"futureField": 1}
    assert encode(op) == data


def test_missing_results_are_refused_and_change_nothing() -> None:
    state = start(plan([obj("ConfigMap", "a"), obj("ConfigMap", "b")]), T0)
    step = next_step(state, FakeCluster().observe(state), T0)
    with pytest.raises(StateError, match=r"no result for action\(s\) 1.1 of step 1"):
        record_results(step.state, [ActionResult("1.0", True)], T0)
    assert step.state.in_flight


def test_results_of_another_step_are_ignored() -> None:
    state = start(plan([obj("ConfigMap", "a")]), T0)
    step = next_step(state, FakeCluster().observe(state), T0)
    recorded = record_results(
        step.state, [ActionResult("1.0", True), ActionResult("0.7", False, "stale")], T0
    )
    assert all(t.message != "stale" for t in recorded.tasks)


def test_observe_keys_list_every_task_object_once() -> None:
    state = start(plan([obj("Job", "h", hook="PreSync,PostSync"), obj("ConfigMap", "c")]), T0)
    assert state.observe_keys() == [
        (ResourceKey("batch", "Job", "shop", "h"), "batch/v1"),
        (ResourceKey("", "ConfigMap", "shop", "c"), "v1"),
    ]


def test_now_must_be_timezone_aware() -> None:
    state = start(plan([obj("ConfigMap", "a")]), T0)
    with pytest.raises(ValueError, match="timezone-aware"):
        next_step(state, FakeCluster().observe(state), T0.replace(tzinfo=None))


def test_recorded_messages_are_masked_and_bounded() -> None:
    state = start(plan([obj("ConfigMap", "a"), obj("ConfigMap", "b")]), T0)
    step = next_step(state, FakeCluster().observe(state), T0)
    leaked = "fetch https://bob:s3cr3t-token@git.example/x.git failed"
    recorded = record_results(
        step.state,
        [ActionResult("1.0", False, leaked), ActionResult("1.1", False, "x" * 10_000)],
        T0,
    )
    first, second = recorded.tasks
    assert "s3cr3t" not in first.message and "bob:***@" in first.message
    assert len(second.message) == 2000 and second.message.endswith("...(truncated)")


def test_observation_from_live_objects_and_a_health_function() -> None:
    from app.engine.sync import Observation
    from app.model.health import HealthStatus

    key = ResourceKey("apps", "Deployment", "shop", "web")
    gone = ResourceKey("", "ConfigMap", "shop", "c")
    live = {"metadata": {"name": "web", "deletionTimestamp": "2026-11-29T12:00:00Z"}}
    seen = Observation.from_live(
        {key: live, gone: None}, lambda o: HealthStatus(H.PROGRESSING, o["metadata"]["name"])
    )
    assert seen.of(key).health == HealthStatus(H.PROGRESSING, "web") and seen.of(key).deleting
    assert seen.of(gone).live is None and seen.of(gone).health is None
    assert seen.of(ResourceKey("", "Secret", "shop", "unreported")).live is None

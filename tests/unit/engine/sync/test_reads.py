"""Reading only what the next step looks at changes nothing about the operation.

Each case runs one operation twice on the fake cluster: once observing every task's
object, once observing only `objects_to_read`; the cluster must see the same actions and
the operation must end the same way. Direct cases pin which objects a step skips.
"""

import copy
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta

import pytest

from app.engine.sync import (
    Continue,
    Done,
    Observation,
    Observed,
    Replan,
    SyncPlan,
    SyncState,
    Wait,
    next_step,
    operation_state,
    record_results,
    start,
)
from app.engine.sync.reads import objects_to_read
from app.model.health import HealthStatusCode as H
from app.model.resource import ResourceKey
from app.model.sync import OperationPhase
from tests.unit.engine.sync.builders import app, live_of, obj, operation, plan
from tests.unit.engine.sync.fake_cluster import T0, FakeCluster


def observe_only(cluster: FakeCluster, keys: list[tuple[ResourceKey, str]]) -> Observation:
    seen: dict[ResourceKey, Observed] = {}
    for key, _ in keys:
        live = cluster.objects.get(key)
        seen[key] = Observed(copy.deepcopy(live), cluster.health(live) if live else None)
    return Observation(seen)


def run(made: SyncPlan, cluster: FakeCluster, *, restricted: bool) -> tuple[SyncState, list[str]]:
    """The final state and the message after every step."""
    state, now = start(made, T0), T0
    messages: list[str] = []
    for index in range(60):
        if isinstance(state.next, Done):
            return state, messages
        keys = objects_to_read(state, now) if restricted else state.observe_keys()
        step = next_step(state, observe_only(cluster, keys), now)
        state = record_results(step.state, cluster.run(step), now)
        messages.append(state.message)
        if index == 4:
            for live in cluster.objects.values():
                live["metadata"].pop("finalizers", None)
        cluster.finish_deletions()
        if isinstance(state.next, Wait):
            now = max(now, state.next.until)
        assert not isinstance(state.next, Replan)
        now += timedelta(milliseconds=10)
    raise AssertionError(f"operation did not finish: {state.message}")


Case = Callable[[], tuple[SyncPlan, FakeCluster]]


def hooks_and_waves() -> tuple[SyncPlan, FakeCluster]:
    targets = [
        obj("Job", "migrate", hook="PreSync"),
        obj("ConfigMap", "cfg", wave=-1),
        obj("Deployment", "web"),
        obj("Service", "web", wave=1),
        obj("Job", "smoke", hook="PostSync", policy="HookSucceeded"),
    ]
    cluster = FakeCluster(
        health_script={"migrate": [H.PROGRESSING, H.HEALTHY], "web": [H.PROGRESSING, H.HEALTHY]}
    )
    return plan(targets), cluster


def failing_hook_with_sync_fail() -> tuple[SyncPlan, FakeCluster]:
    targets = [
        obj("Job", "migrate", hook="PreSync", policy="HookFailed"),
        obj("Deployment", "web"),
        obj("Job", "alert", hook="SyncFail"),
    ]
    cluster = FakeCluster(
        health_script={"migrate": [H.DEGRADED], "alert": [H.PROGRESSING, H.HEALTHY]}
    )
    return plan(targets), cluster


def prune_and_recreated_hook() -> tuple[SyncPlan, FakeCluster]:
    old_hook = obj("Job", "seed", hook="PreSync")
    gone = obj("Secret", "old", options="PruneLast=true")
    cluster = FakeCluster()
    for existing in live_of(old_hook, gone, obj("ConfigMap", "stale")).values():
        cluster.add(existing)
    live = {ResourceKey.of(o): o for o in cluster.objects.values()}
    return plan([old_hook, obj("ConfigMap", "c")], live=live, op=operation(prune=True)), cluster


def namespace_created_meanwhile() -> tuple[SyncPlan, FakeCluster]:
    made = plan(
        [obj("Deployment", "web"), obj("Service", "web", wave=2)],
        application=app(sync_options=["CreateNamespace=true"]),
    )
    cluster = FakeCluster(health_script={"web": [H.PROGRESSING, H.HEALTHY]})
    cluster.add(obj("Namespace", "shop"))
    return made, cluster


def namespace_created_by_the_sync() -> tuple[SyncPlan, FakeCluster]:
    made = plan(
        [obj("Deployment", "web"), obj("Service", "web", wave=2)],
        application=app(sync_options=["CreateNamespace=true"]),
    )
    return made, FakeCluster(health_script={"web": [H.PROGRESSING, H.HEALTHY]})


def pruned_object_held_by_a_finalizer() -> tuple[SyncPlan, FakeCluster]:
    held = obj("ConfigMap", "held")
    held["metadata"]["finalizers"] = ["example.com/keep"]
    cluster = FakeCluster()
    for existing in live_of(held).values():
        cluster.add(existing)
    live = {ResourceKey.of(o): o for o in cluster.objects.values()}
    targets = [obj("ConfigMap", "c"), obj("Service", "s", wave=3)]
    return plan(targets, live=live, op=operation(prune=True)), cluster


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(hooks_and_waves, id="presync-waves-postsync"),
        pytest.param(failing_hook_with_sync_fail, id="failing-hook-syncfail"),
        pytest.param(prune_and_recreated_hook, id="prune-and-before-hook-creation"),
        pytest.param(namespace_created_meanwhile, id="create-namespace-found-existing"),
        pytest.param(namespace_created_by_the_sync, id="create-namespace-absent"),
        pytest.param(pruned_object_held_by_a_finalizer, id="prune-waits-for-deletion"),
    ],
)
def test_reading_only_what_a_step_looks_at_runs_the_same_operation(case: Case) -> None:
    full_plan, full_cluster = case()
    lean_plan, lean_cluster = case()
    full, full_messages = run(full_plan, full_cluster, restricted=False)
    lean, lean_messages = run(lean_plan, lean_cluster, restricted=True)
    assert lean_cluster.executed == full_cluster.executed
    assert lean_messages == full_messages
    assert (lean.phase, lean.message) == (full.phase, full.message)
    assert operation_state(lean).sync_result == operation_state(full).sync_result


def keys_of(reads: list[tuple[ResourceKey, str]]) -> list[str]:
    return [f"{k.kind}/{k.name}" for k, _ in reads]


def test_pending_plain_resources_are_not_read() -> None:
    state = start(plan([obj("Deployment", "web"), obj("Service", "web", wave=1)]), T0)
    assert objects_to_read(state, T0) == []


def test_running_tasks_and_hooks_are_read_and_in_flight_steps_read_nothing() -> None:
    targets = [obj("Job", "smoke", hook="PostSync"), obj("Deployment", "web")]
    cluster = FakeCluster(health_script={"web": [H.PROGRESSING]})
    state = start(plan(targets), T0)
    assert keys_of(objects_to_read(state, T0)) == ["Job/smoke"]
    dry_run = next_step(state, cluster.observe(state), T0)
    assert objects_to_read(dry_run.state, T0) == []
    state = record_results(dry_run.state, cluster.run(dry_run), T0)
    wave = next_step(state, cluster.observe(state), T0)
    state = record_results(wave.state, cluster.run(wave), T0)
    assert isinstance(state.next, Wait)
    assert keys_of(objects_to_read(state, state.next.until)) == ["Deployment/web", "Job/smoke"]


def test_a_wave_delay_that_has_not_elapsed_reads_nothing() -> None:
    targets = [obj("Deployment", "web"), obj("Service", "web", wave=1)]
    cluster = FakeCluster()
    state = start(plan(targets), T0)
    for _ in range(2):
        step = next_step(state, cluster.observe(state), T0)
        state = record_results(step.state, cluster.run(step), T0)
    pause = state.next
    assert isinstance(pause, Wait) and not pause.wakeable
    assert objects_to_read(state, T0) == []
    assert keys_of(objects_to_read(state, pause.until)) == ["Deployment/web"]


def test_after_the_last_wave_only_hooks_are_read() -> None:
    state = start(plan([obj("Deployment", "web"), obj("Job", "pre", hook="PreSync")]), T0)
    done_tasks = tuple(
        t.updated(t.result, OperationPhase.RUNNING if not t.hook else OperationPhase.SUCCEEDED)
        for t in state.tasks
    )
    ran = replace(state, tasks=done_tasks, all_tasks_run=True, next=Continue("all run"))
    assert keys_of(objects_to_read(ran, T0)) == ["Job/pre"]
    assert keys_of(objects_to_read(ran, T0, terminating=True)) == ["Job/pre"]


def test_the_namespace_just_created_is_not_read_again_before_the_dry_run() -> None:
    made = plan(
        [obj("Deployment", "web"), obj("Service", "web")],
        application=app(sync_options=["CreateNamespace=true"]),
    )
    cluster = FakeCluster()
    state = start(made, T0)
    assert keys_of(objects_to_read(state, T0)) == ["Namespace/shop"]
    namespace = next_step(state, cluster.observe(state), T0)
    state = record_results(namespace.state, cluster.run(namespace), T0)
    assert objects_to_read(state, T0) == [], "the dry run judges no running task"
    dry_run = next_step(state, observe_only(cluster, []), T0)
    state = record_results(dry_run.state, cluster.run(dry_run), T0)
    assert keys_of(objects_to_read(state, T0)) == ["Namespace/shop"]

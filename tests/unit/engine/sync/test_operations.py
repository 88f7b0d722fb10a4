"""Whole operations driven step by step through next_step/record_results on a fake cluster.

Each test is one rule of SEMANTICS §1 (Execution), §2 (hooks, failure path), §6 (retry)
or §9 (terminate), checked by what the cluster saw and what the user is told.
"""

import json
from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from app.engine.sync import (
    Apply,
    DeleteHook,
    Done,
    Observation,
    RemoveHookFinalizer,
    Replan,
    StateError,
    SyncState,
    Wait,
    error_out,
    next_step,
    operation_state,
    record_results,
    restart,
    start,
    terminate,
)
from app.model.app_spec import Backoff, RetryStrategy
from app.model.health import HealthStatusCode as H
from app.model.operation import ResourceResult
from app.model.resource import KubeObject
from app.model.sync import OperationPhase
from tests.unit.engine.sync.builders import app, live_of, obj, operation, plan
from tests.unit.engine.sync.fake_cluster import T0, FakeCluster, Trace, drive

WAVE_DELAY = (2.0, "delay between sync waves")


def applied(cluster: FakeCluster) -> list[str]:
    return [name for verb, name in cluster.executed if verb == "Apply"]


def results(state: SyncState) -> dict[str, ResourceResult]:
    sync_result = operation_state(state).sync_result
    assert sync_result is not None
    return {f"{r.sync_phase}:{r.kind}/{r.name}": r for r in sync_result.resources}


def full_app() -> list[KubeObject]:
    return [
        obj("Job", "migrate", hook="PreSync"),
        obj("ConfigMap", "cfg", wave=-1),
        obj("Deployment", "web"),
        obj("Service", "web", wave=1),
        obj("Job", "smoke", hook="PostSync", policy="HookSucceeded"),
    ]


def test_presync_hook_then_waves_then_postsync_in_order_with_the_wave_delay() -> None:
    cluster = FakeCluster(
        health_script={"migrate": [H.PROGRESSING, H.HEALTHY], "web": [H.PROGRESSING, H.HEALTHY]}
    )
    state, trace = drive(plan(full_app()), cluster)
    assert (state.phase, state.message) == (
        OperationPhase.SUCCEEDED,
        "successfully synced (no more tasks)",
    )
    assert applied(cluster) == ["migrate", "cfg", "web", "web", "smoke"]
    assert trace.waits.count(WAVE_DELAY) == 4
    assert "waiting for completion of hook batch/Job/migrate" in trace.messages
    assert "waiting for healthy state of apps/Deployment/web" in trace.messages
    service_index = next(
        i
        for i, s in enumerate(trace.steps)
        if any(isinstance(a, Apply) and a.key.kind == "Service" for a in s.actions)
    )
    assert trace.messages[service_index - 1] == "waiting for healthy state of apps/Deployment/web"
    assert [r.hook_phase for r in results(state).values()] == ["Succeeded"] * 5


def test_each_step_says_what_it_decided_for_the_workers_log() -> None:
    cluster = FakeCluster(
        health_script={"migrate": [H.PROGRESSING, H.HEALTHY], "web": [H.PROGRESSING, H.HEALTHY]}
    )
    _, trace = drive(plan(full_app()), cluster)
    assert [s.decision for s in trace.steps if s.decision] == [
        "run wave 0 of phase PreSync: 1 task(s)",
        "run wave -1 of phase Sync: 1 task(s)",
        "run wave 0 of phase Sync: 1 task(s)",
        "run wave 1 of phase Sync: 1 task(s)",
        "run wave 0 of phase PostSync: 1 task(s), the last wave",
        "succeed: successfully synced (no more tasks)",
    ]
    assert "smoke" not in {k.name for k in cluster.objects}
    migrate = next(o for k, o in cluster.objects.items() if k.name == "migrate")
    assert migrate["metadata"]["finalizers"] == []


def test_waves_wait_for_health_before_the_next_wave() -> None:
    cluster = FakeCluster(health_script={"web": [H.PROGRESSING, H.PROGRESSING, H.HEALTHY]})
    targets = [obj("Deployment", "web", wave=0), obj("Service", "web", wave=1)]
    state, trace = drive(plan(targets), cluster)
    assert state.phase is OperationPhase.SUCCEEDED
    assert trace.waits == [
        WAVE_DELAY,
        (5.0, "waiting for healthy state of apps/Deployment/web"),
        (5.0, "waiting for healthy state of apps/Deployment/web"),
    ]


def test_last_wave_is_not_waited_on_for_health() -> None:
    cluster = FakeCluster(health_script={"web": [H.DEGRADED]})
    state, trace = drive(plan([obj("Deployment", "web"), obj("ConfigMap", "c")]), cluster)
    assert (state.phase, state.message) == (
        OperationPhase.SUCCEEDED,
        "successfully synced (all tasks run)",
    )
    assert trace.waits == []
    assert results(state)["Sync:Deployment/web"].hook_phase == "Running"


def test_one_batch_per_consecutive_run_of_a_kind() -> None:
    targets = [
        obj("ConfigMap", "a"),
        obj("ConfigMap", "b"),
        obj("Service", "s"),
        obj("Deployment", "d"),
    ]
    _, trace = drive(plan(targets), FakeCluster())
    wave_step = trace.steps[1]
    assert [[a.key.name for a in batch] for batch in wave_step.batches] == [
        ["a", "b"],
        ["s"],
        ["d"],
    ]


def test_failing_presync_hook_without_syncfail_fails_and_stops() -> None:
    cluster = FakeCluster(health_script={"migrate": [H.DEGRADED]})
    state, _ = drive(plan(full_app()), cluster)
    assert (state.phase, state.message) == (
        OperationPhase.FAILED,
        "one or more synchronization tasks completed unsuccessfully, reason: migrate is degraded",
    )
    assert applied(cluster) == ["migrate"]
    assert results(state)["PreSync:Job/migrate"].hook_phase == "Failed"


def test_failing_presync_hook_runs_every_syncfail_hook_at_once_then_fails() -> None:
    targets = [
        *full_app(),
        obj("Job", "alert", hook="SyncFail", wave=5),
        obj("Job", "page", hook="SyncFail", wave=-5),
    ]
    cluster = FakeCluster(
        health_script={"migrate": [H.DEGRADED], "alert": [H.PROGRESSING, H.HEALTHY]}
    )
    state, trace = drive(plan(targets), cluster)
    assert applied(cluster) == ["migrate", "page", "alert"]
    start_step = next(
        s
        for s in trace.steps
        if any(isinstance(a, Apply) and a.key.name == "alert" for a in s.actions)
    )
    assert {a.key.name for a in start_step.actions if isinstance(a, Apply)} == {"page", "alert"}
    assert "waiting for completion of hook batch/Job/alert" in trace.messages
    assert (state.phase, state.message) == (
        OperationPhase.FAILED,
        "one or more synchronization tasks completed unsuccessfully, reason: migrate is degraded",
    )
    assert results(state)["SyncFail:Job/alert"].hook_phase == "Succeeded"


def test_failed_syncfail_hook_is_appended_to_the_message() -> None:
    targets = [obj("Job", "migrate", hook="PreSync"), obj("Job", "alert", hook="SyncFail")]
    cluster = FakeCluster(health_script={"migrate": [H.DEGRADED], "alert": [H.DEGRADED]})
    state, _ = drive(plan(targets), cluster)
    assert state.message == (
        "one or more synchronization tasks completed unsuccessfully, reason: migrate is degraded"
        "\none or more SyncFail hooks failed, reason: alert is degraded"
    )


def test_dry_run_failure_fails_without_applying_or_running_syncfail_hooks() -> None:
    targets = [*full_app(), obj("Job", "alert", hook="SyncFail")]
    cluster = FakeCluster(fail_dry_run={"cfg": 'ConfigMap "cfg" is invalid: data: must be a map'})
    state, _ = drive(plan(targets), cluster)
    assert (state.phase, state.message) == (
        OperationPhase.FAILED,
        "one or more objects failed to apply (dry run)",
    )
    assert applied(cluster) == []
    cfg = results(state)["Sync:ConfigMap/cfg"]
    assert (cfg.status, cfg.message) == (
        "SyncFailed",
        'ConfigMap "cfg" is invalid: data: must be a map',
    )


def test_invalid_tasks_fail_before_any_action() -> None:
    targets = [
        obj("Widget", "w", api_version="w.example.com/v1"),
        obj("Job", "alert", hook="SyncFail"),
    ]
    cluster = FakeCluster()
    state, trace = drive(plan(targets), cluster)
    assert (state.phase, state.message) == (
        OperationPhase.FAILED,
        "one or more synchronization tasks are not valid",
    )
    assert cluster.executed == [] and trace.steps == []
    widget = results(state)["Sync:Widget/w"]
    assert (
        widget.status == "SyncFailed" and "does not serve w.example.com/v1 Widget" in widget.message
    )


def test_apply_failure_with_nothing_running_says_failed_to_apply() -> None:
    cluster = FakeCluster(fail_apply={"web": "admission webhook denied the request"})
    state, _ = drive(plan([obj("Deployment", "web")]), cluster)
    assert state.message == (
        "one or more objects failed to apply, reason: admission webhook denied the request"
    )


def test_apply_failure_beside_a_running_task_says_completed_unsuccessfully() -> None:
    cluster = FakeCluster(fail_apply={"web": "denied"})
    state, trace = drive(plan([obj("Deployment", "web"), obj("Service", "front")]), cluster)
    assert (
        state.message
        == "one or more synchronization tasks completed unsuccessfully, reason: denied"
    )
    assert WAVE_DELAY not in trace.waits


def test_terminate_mid_operation_deletes_running_hooks_and_fails() -> None:
    targets = full_app()
    op = operation(retry=RetryStrategy(limit=3))
    cluster = FakeCluster(health_script={"migrate": [H.PROGRESSING]})
    state = start(plan(targets, op=op), T0)
    now = T0
    for _ in range(4):
        step = next_step(state, cluster.observe(state), now)
        state = record_results(step.state, cluster.run(step), now)
    assert state.message == "waiting for completion of hook batch/Job/migrate"
    stop = terminate(state, now, cluster.observe(state))
    assert [type(a) for a in stop.actions] == [RemoveHookFinalizer, DeleteHook]
    assert stop.state.phase is OperationPhase.TERMINATING
    state = record_results(stop.state, cluster.run(stop), now)
    cluster.finish_deletions()
    final = next_step(state, cluster.observe(state), now)
    assert final.then == Done(OperationPhase.FAILED, "Operation terminated")
    assert final.state.retry_at is None
    assert results(final.state)["PreSync:Job/migrate"].message == "Terminated"
    assert "migrate" not in {k.name for k in cluster.objects}


def test_terminate_without_observation_asks_for_every_hook_removal() -> None:
    cluster = FakeCluster(health_script={"migrate": [H.PROGRESSING]})
    state = start(plan(full_app()), T0)
    for _ in range(3):
        step = next_step(state, cluster.observe(state), T0)
        state = record_results(step.state, cluster.run(step), T0)
    stop = terminate(state, T0)
    assert [(type(a).__name__, a.key.name) for a in stop.actions] == [
        ("RemoveHookFinalizer", "migrate"),
        ("DeleteHook", "migrate"),
    ]
    failing = FakeCluster()
    state = record_results(
        stop.state, [r.__class__(r.action_id, False, "forbidden") for r in failing.run(stop)], T0
    )
    assert next_step(state, Observation(), T0).then == Done(
        OperationPhase.ERROR, "Operation termination had errors"
    )


def test_repeated_step_after_a_crash_gives_the_same_result() -> None:
    """Crashes after persisting a step, before or after running its actions: the re-read
    state gives the same actions back, and the operation ends exactly as without crashes."""
    health = {"migrate": [H.PROGRESSING, H.HEALTHY]}
    crashing = FakeCluster(health_script={k: list(v) for k, v in health.items()})
    state, _ = drive(plan(full_app()), crashing, crash_before_run={1, 4}, crash_after_run={1, 2, 6})
    baseline = FakeCluster(health_script={k: list(v) for k, v in health.items()})
    expected, _ = drive(plan(full_app()), baseline)
    assert (state.phase, state.message) == (expected.phase, expected.message)

    def outcome(s: SyncState) -> dict[str, tuple[str, str]]:
        return {k: (r.status, r.hook_phase) for k, r in results(s).items()}

    assert outcome(state) == outcome(expected)
    assert crashing.created == baseline.created == {"migrate": 1, "cfg": 1, "web": 2, "smoke": 1}
    assert applied(crashing).count("migrate") == 2


def test_next_step_repeated_without_results_gives_the_same_step() -> None:
    cluster = FakeCluster()
    state = start(plan(full_app()), T0)
    step = next_step(state, cluster.observe(state), T0)
    again = next_step(step.state, Observation(), T0)
    assert again.actions == step.actions and again.state == step.state
    assert [a.id for a in step.actions] == ["1.0", "1.1", "1.2", "1.3", "1.4"]


def test_recording_the_same_results_twice_changes_nothing() -> None:
    cluster = FakeCluster()
    state = start(plan([obj("ConfigMap", "c")]), T0)
    step = next_step(state, cluster.observe(state), T0)
    outcome = cluster.run(step)
    once = record_results(step.state, outcome, T0)
    assert record_results(once, outcome, T0) == once


def test_before_hook_creation_deletes_the_old_hook_and_waits() -> None:
    old_hook = obj("Job", "migrate", hook="PreSync")
    cluster = FakeCluster()
    cluster.add(
        {
            **old_hook,
            "metadata": {
                **old_hook["metadata"],
                "namespace": "shop",
                "finalizers": ["argocd.argoproj.io/hook-finalizer"],
            },
        }
    )
    state, trace = drive(plan([old_hook, obj("ConfigMap", "c")]), cluster)
    assert state.phase is OperationPhase.SUCCEEDED
    first_wave = trace.steps[1]
    assert [(type(a).__name__, a.key.name) for a in first_wave.actions] == [
        ("RemoveHookFinalizer", "migrate"),
        ("DeleteHook", "migrate"),
    ]
    assert trace.messages[1] == "waiting for deletion of hook batch/Job/migrate"
    assert cluster.created["migrate"] == 1


def test_hook_failed_policy_deletes_hooks_when_the_operation_fails() -> None:
    targets = [
        obj("Job", "migrate", hook="PreSync", policy="HookFailed"),
        obj("Job", "keep", hook="PreSync", policy="HookSucceeded", wave=-1),
    ]
    cluster = FakeCluster(health_script={"migrate": [H.DEGRADED]})
    state, _ = drive(plan(targets), cluster)
    assert state.phase is OperationPhase.FAILED
    assert {k.name for k in cluster.objects} == {"keep"}


def test_running_task_whose_object_vanished_fails_the_operation() -> None:
    def delete_web(state: SyncState, trace: Trace) -> None:
        if state.message == "waiting for healthy state of apps/Deployment/web":
            cluster.objects = {k: v for k, v in cluster.objects.items() if k.name != "web"}

    cluster = FakeCluster(health_script={"web": [H.PROGRESSING]})
    state, _ = drive(
        plan([obj("Deployment", "web"), obj("Service", "s", wave=1)]),
        cluster,
        before_step=delete_web,
    )
    assert state.message == (
        "one or more synchronization tasks completed unsuccessfully, "
        "reason: Resource apps/Deployment/web is missing, it might have been deleted"
    )
    assert results(state)["Sync:Deployment/web"].hook_phase == "Error"


PRUNE_CASES = [
    (
        "operation-prune-off",
        operation(prune=False),
        None,
        "PruneSkipped",
        "ignored (requires pruning)",
    ),
    ("resource-prune-false", operation(), "Prune=false", "PruneSkipped", "ignored (no prune)"),
    ("pruned", operation(), None, "Pruned", "pruned"),
]


def test_prune_results() -> None:
    for name, op, options, status, message in PRUNE_CASES:
        old = obj("ConfigMap", "old", options=options)
        cluster = FakeCluster()
        cluster.add({**old, "metadata": {**old["metadata"], "namespace": "shop"}})
        state, _ = drive(plan([obj("ConfigMap", "c")], live=live_of(old), op=op), cluster)
        entry = results(state)["Sync:ConfigMap/old"]
        assert (state.phase, entry.status, entry.message) == (
            OperationPhase.SUCCEEDED,
            status,
            message,
        ), name
        assert ("old" in {k.name for k in cluster.objects}) is (status != "Pruned"), name


def test_pruned_object_being_deleted_is_waited_for() -> None:
    old = obj("ConfigMap", "old", wave=-1)
    cluster = FakeCluster()
    cluster.add(
        {
            **old,
            "metadata": {
                **old["metadata"],
                "namespace": "shop",
                "finalizers": ["example.com/protect"],
            },
        }
    )

    def release(state: SyncState, trace: Trace) -> None:
        if len(trace.waits) == 2:
            key = next(k for k in cluster.objects if k.name == "old")
            cluster.objects[key]["metadata"]["finalizers"] = []

    state, trace = drive(
        plan([obj("ConfigMap", "c")], live=live_of(old)), cluster, before_step=release
    )
    assert state.phase is OperationPhase.SUCCEEDED
    assert (5.0, "waiting for deletion of /ConfigMap/old") in trace.waits


def test_prune_confirm_waits_for_an_approval_after_the_start() -> None:
    old = obj("ConfigMap", "old", options="Prune=confirm")
    cluster = FakeCluster()
    cluster.add({**old, "metadata": {**old["metadata"], "namespace": "shop"}})
    state = start(plan([], live=live_of(old)), T0)
    stale = Observation(
        cluster.observe(state).objects, prune_approved_at=datetime(2026, 1, 1, tzinfo=T0.tzinfo)
    )
    step = next_step(state, stale, T0)
    assert step.actions == []
    assert step.state.message.startswith("Waiting for pruning confirmation of v1/ConfigMap/old")
    assert "argocd.argoproj.io/deletion-approved" in step.state.message
    approved = Observation(stale.objects, prune_approved_at=T0)
    step = next_step(step.state, approved, T0)
    assert [type(a).__name__ for a in step.actions] == ["Prune"]


def test_dry_run_operation_validates_and_changes_nothing() -> None:
    old = obj("ConfigMap", "old")
    cluster = FakeCluster()
    state, _ = drive(plan(full_app(), live=live_of(old), op=operation(dry_run=True)), cluster)
    assert (state.phase, state.message) == (
        OperationPhase.SUCCEEDED,
        "successfully synced (no more tasks)",
    )
    assert {verb for verb, _ in cluster.executed} == {"DryRun"}
    assert results(state)["Sync:ConfigMap/old"].message == "pruned (dry run)"
    assert results(state)["PreSync:Job/migrate"].status == "Synced"


def test_create_namespace_is_applied_for_real_before_the_dry_run() -> None:
    cluster = FakeCluster()
    state, _ = drive(
        plan([obj("ConfigMap", "c")], application=app(sync_options=["CreateNamespace=true"])),
        cluster,
    )
    assert cluster.executed[:2] == [("CreateNamespace", "shop"), ("DryRun", "c")]
    assert state.phase is OperationPhase.SUCCEEDED


def test_namespace_that_fails_to_apply_fails_the_operation() -> None:
    cluster = FakeCluster(fail_apply={"shop": "namespaces is forbidden"})
    state, _ = drive(
        plan([obj("ConfigMap", "c")], application=app(sync_options=["CreateNamespace=true"])),
        cluster,
    )
    assert state.message == "the namespace failed to apply, reason: namespaces is forbidden"


def test_failed_sync_is_retried_with_backoff_then_reports_the_retries() -> None:
    targets = [obj("Deployment", "web")]
    op = operation(retry=RetryStrategy(limit=2, backoff=Backoff()))
    cluster = FakeCluster(fail_apply={"web": "denied"})
    replans: list[datetime] = []

    def replan(state: SyncState, now: datetime) -> SyncState:
        replans.append(now)
        return restart(state, plan(targets, op=op, started_at=state.started_at), now)

    state, trace = drive(plan(targets, op=op), cluster, replan=replan)
    assert (state.phase, state.retry_count) == (OperationPhase.FAILED, 2)
    assert state.message == "one or more objects failed to apply, reason: denied (retried 2 times)."
    retry_waits = [seconds for seconds, reason in trace.waits if reason.startswith("retry")]
    assert retry_waits == [10.0, 20.0]
    assert any(
        m.startswith(
            "one or more objects failed to apply, reason: denied. "
            "Retrying attempt #1 at 2026-11-29T12:00:"
        )
        and m.endswith("Z.")
        for m in trace.messages
    )
    assert len(replans) == 2
    assert applied(cluster) == ["web", "web", "web"]


def test_operation_state_reports_results_in_order() -> None:
    state, _ = drive(plan([obj("ConfigMap", "c"), obj("Job", "h", hook="PreSync")]), FakeCluster())
    reported = operation_state(state)
    assert reported.phase is OperationPhase.SUCCEEDED
    assert reported.started_at == "2026-11-29T12:00:00Z" and reported.finished_at
    assert reported.sync_result is not None
    assert [
        (r.kind, r.version, r.namespace, r.status, r.hook_type, r.hook_phase, r.sync_phase)
        for r in reported.sync_result.resources
    ] == [
        ("Job", "v1", "shop", "Synced", "PreSync", "Succeeded", "PreSync"),
        ("ConfigMap", "v1", "shop", "Synced", "", "Running", "Sync"),
    ]


def test_custom_resource_whose_crd_is_in_the_sync_skips_the_dry_run() -> None:
    crd = obj(
        "CustomResourceDefinition",
        "widgets.w.example.com",
        spec={"group": "w.example.com", "names": {"kind": "Widget"}},
    )
    widget = obj("Widget", "w", api_version="w.example.com/v1", wave=-1)
    cluster = FakeCluster()
    state, trace = drive(plan([widget, crd]), cluster)
    assert state.phase is OperationPhase.SUCCEEDED
    assert [a.key.name for a in trace.steps[0].actions] == ["widgets.w.example.com"]
    assert applied(cluster) == ["widgets.w.example.com", "w"]


def test_apply_out_of_sync_only_leaves_in_sync_resources_alone() -> None:
    same, changed = obj("ConfigMap", "same"), obj("ConfigMap", "changed")
    live = live_of(same, changed)
    modified = {key: key.name == "changed" for key in live}
    cluster = FakeCluster()
    state, _ = drive(
        plan(
            [same, changed],
            live=live,
            modified=modified,
            application=app(sync_options=["ApplyOutOfSyncOnly=true"]),
        ),
        cluster,
    )
    assert applied(cluster) == ["changed"]
    assert list(results(state)) == ["Sync:ConfigMap/changed"]


def test_retry_refresh_asks_the_worker_to_re_resolve_the_revision() -> None:
    targets = [obj("Deployment", "web")]
    op = operation(retry=RetryStrategy(limit=1, refresh=True))
    cluster = FakeCluster(fail_apply={"web": "denied"})
    asked: list[object] = []

    def replan(state: SyncState, now: datetime) -> SyncState:
        asked.append(state.next)
        return restart(state, plan(targets, op=op, started_at=state.started_at), now)

    drive(plan(targets, op=op), cluster, replan=replan)
    assert asked == [Replan(True, "retry #1 is due")]


def test_restart_needs_a_due_retry_and_the_same_start_time() -> None:
    targets = [obj("ConfigMap", "c")]
    state = start(plan(targets), T0)
    with pytest.raises(StateError, match="no retry is due"):
        restart(state, plan(targets), T0)
    due = replace(state, next=Replan(False))
    with pytest.raises(StateError, match="started_at=2026-11-29T12:00:00"):
        restart(due, plan(targets, started_at=T0 + timedelta(seconds=1)), T0)


def test_error_before_a_step_ends_in_error_or_schedules_a_retry() -> None:
    state = start(plan([obj("ConfigMap", "c")]), T0)
    failed = error_out(state, "ComparisonError: repository not found", T0)
    assert (failed.phase, failed.next) == (
        OperationPhase.ERROR,
        Done(OperationPhase.ERROR, "ComparisonError: repository not found"),
    )
    retried = start(plan([obj("ConfigMap", "c")], op=operation(retry=RetryStrategy(limit=1))), T0)
    retried = error_out(retried, "ComparisonError: repository not found", T0)
    assert retried.phase is OperationPhase.RUNNING and retried.retry_count == 1
    assert retried.message.startswith(
        "ComparisonError: repository not found. Retrying attempt #1 at"
    )


def test_waking_the_worker_early_cannot_shorten_the_wave_delay() -> None:
    cluster = FakeCluster()
    state = start(plan([obj("ConfigMap", "a", wave=0), obj("ConfigMap", "b", wave=1)]), T0)
    for _ in range(2):
        step = next_step(state, cluster.observe(state), T0)
        state = record_results(step.state, cluster.run(step), T0)
    assert state.next == Wait(
        T0 + timedelta(seconds=2), "delay between sync waves", 2.0, False, after_actions=True
    )
    assert SyncState.from_dict(json.loads(json.dumps(state.to_dict()))).next == state.next
    early = next_step(state, cluster.observe(state), T0 + timedelta(seconds=1))
    assert (early.actions, early.state) == ([], state)
    due = next_step(state, cluster.observe(state), T0 + timedelta(seconds=2))
    assert [a.key.name for a in due.actions] == ["b"]

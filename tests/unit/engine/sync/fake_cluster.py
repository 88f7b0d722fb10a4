"""A fake cluster for driving the sync step machine in tests: a dict of objects.

It applies the actions a step asks for, the way the API server would (apply stores,
delete sets a deletionTimestamp while finalizers remain, NotFound on delete is ok), and
reports health from a per-object script, standing in for the health engine.
"""

import copy
import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from app.engine.sync import (
    Action,
    ActionResult,
    Apply,
    Continue,
    CreateNamespace,
    DeleteHook,
    Done,
    DryRun,
    Observation,
    Observed,
    Prune,
    RemoveHookFinalizer,
    Replan,
    Step,
    SyncPlan,
    SyncState,
    Wait,
    next_step,
    record_results,
    start,
)
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject, ResourceKey

T0 = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
HEALTH_KINDS = {"Deployment", "Job", "Pod", "StatefulSet"}


@dataclass
class FakeCluster:
    objects: dict[ResourceKey, KubeObject] = field(default_factory=dict)
    health_script: dict[str, list[HealthStatusCode]] = field(default_factory=dict)
    """Object name -> health per observation (the last one repeats); default Healthy."""
    fail_apply: dict[str, str] = field(default_factory=dict)
    fail_dry_run: dict[str, str] = field(default_factory=dict)
    executed: list[tuple[str, str]] = field(default_factory=list)
    """(action class, object name) for every action run, in order."""
    created: dict[str, int] = field(default_factory=dict)
    """Object name -> how many times it was created (absent before the apply)."""
    uid_counter: int = 0

    def add(self, obj: KubeObject) -> None:
        self.uid_counter += 1
        stored = copy.deepcopy(obj)
        stored["metadata"]["uid"] = f"uid-{self.uid_counter}"
        self.objects[ResourceKey.of(stored)] = stored

    def health(self, obj: KubeObject) -> HealthStatus | None:
        name = obj["metadata"]["name"]
        script = self.health_script.get(name)
        if script:
            code = script.pop(0) if len(script) > 1 else script[0]
            return HealthStatus(code, f"{name} is {code.value.lower()}")
        if obj["kind"] in HEALTH_KINDS:
            return HealthStatus(HealthStatusCode.HEALTHY)
        return None

    def observe(self, state: SyncState, approved_at: datetime | None = None) -> Observation:
        seen: dict[ResourceKey, Observed] = {}
        for key, _ in state.observe_keys():
            live = self.objects.get(key)
            seen[key] = Observed(copy.deepcopy(live), self.health(live) if live else None)
        return Observation(seen, prune_approved_at=approved_at)

    def run(self, step: Step) -> list[ActionResult]:
        return [self.execute(a) for batch in step.batches for a in batch]

    def execute(self, action: Action) -> ActionResult:
        name = action.key.name
        self.executed.append((type(action).__name__, name))
        live = self.objects.get(action.key)
        match action:
            case DryRun():
                if name in self.fail_dry_run:
                    return ActionResult(action.id, False, self.fail_dry_run[name])
                return ActionResult(action.id, True, f"{action.key.kind.lower()}/{name} (dry run)")
            case Apply() | CreateNamespace():
                return self._apply(action, live)
            case Prune() | DeleteHook():
                if live is not None:
                    self._delete(action.key, live)
                return ActionResult(action.id, True, "deleted")
            case RemoveHookFinalizer():
                if live is not None:
                    self._remove_finalizer(action.key, live, action.finalizer)
                return ActionResult(action.id, True, "")
        raise AssertionError(f"unexpected action {action!r}")

    def _apply(self, action: Apply | CreateNamespace, live: KubeObject | None) -> ActionResult:
        name = action.key.name
        if name in self.fail_apply:
            return ActionResult(action.id, False, self.fail_apply[name])
        verb = "configured" if live else "created"
        if live is None:
            self.created[name] = self.created.get(name, 0) + 1
            self.add(action.object)
        else:
            merged = copy.deepcopy(action.object)
            merged["metadata"]["uid"] = live["metadata"]["uid"]
            self.objects[action.key] = merged
        return ActionResult(action.id, True, f"{action.key.kind.lower()}/{name} {verb}")

    def _delete(self, key: ResourceKey, live: KubeObject) -> None:
        if live["metadata"].get("finalizers"):
            live["metadata"]["deletionTimestamp"] = "2026-11-29T12:00:00Z"
        else:
            del self.objects[key]

    def _remove_finalizer(self, key: ResourceKey, live: KubeObject, finalizer: str) -> None:
        finalizers = live["metadata"].get("finalizers") or []
        live["metadata"]["finalizers"] = [f for f in finalizers if f != finalizer]
        if live["metadata"].get("deletionTimestamp") and not live["metadata"]["finalizers"]:
            del self.objects[key]

    def finish_deletions(self) -> None:
        """Let the garbage collector finish: objects being deleted without finalizers go."""
        for key, obj in list(self.objects.items()):
            meta = obj["metadata"]
            if meta.get("deletionTimestamp") and not meta.get("finalizers"):
                del self.objects[key]


@dataclass
class Trace:
    """What happened, step by step, for assertions."""

    steps: list[Step] = field(default_factory=list)
    waits: list[tuple[float, str]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    now: datetime = T0


Replanner = Callable[[SyncState, datetime], SyncState]


def _reread(step: Step, stored: str, cluster: FakeCluster, now: datetime) -> Step:
    reread = SyncState.from_dict(json.loads(stored))
    again = next_step(reread, cluster.observe(reread), now)
    assert again.actions == step.actions, "a re-read step must repeat the same actions"
    assert again.state == step.state
    return again


def drive(
    plan: SyncPlan,
    cluster: FakeCluster,
    *,
    max_steps: int = 60,
    before_step: Callable[[SyncState, Trace], None] | None = None,
    approved_at: datetime | None = None,
    replan: Replanner | None = None,
    crash_before_run: Collection[int] = (),
    crash_after_run: Collection[int] = (),
) -> tuple[SyncState, Trace]:
    """Run an operation to the end: observe, step, persist, run, record, follow `next`.

    Step numbers in `crash_before_run` are lost after persisting, those in
    `crash_after_run` after running the actions: the worker reads the persisted state
    back and asks for the step again, which must give the same actions.
    """
    trace = Trace()
    state = start(plan, trace.now)
    for index in range(max_steps):
        if isinstance(state.next, Done):
            return state, trace
        if before_step is not None:
            before_step(state, trace)
        step = next_step(state, cluster.observe(state, approved_at), trace.now)
        stored = json.dumps(step.state.to_dict())
        if index in crash_before_run:
            step = _reread(step, stored, cluster, trace.now)
        outcome = cluster.run(step)
        if index in crash_after_run:
            step = _reread(step, stored, cluster, trace.now)
            outcome = cluster.run(step)
        trace.steps.append(step)
        state = record_results(step.state, outcome, trace.now)
        trace.messages.append(state.message)
        cluster.finish_deletions()
        follow: Any = state.next
        if isinstance(follow, Wait):
            trace.waits.append((follow.seconds, follow.reason))
            trace.now = max(trace.now, follow.until)
        elif isinstance(follow, Replan):
            assert replan is not None, "a retry needs a replan function"
            state = replan(state, trace.now)
        elif not isinstance(follow, Continue | Done):
            raise AssertionError(f"unknown follow-up {follow!r}")
        trace.now += timedelta(milliseconds=10)
    raise AssertionError(f"operation did not finish in {max_steps} steps: {state.message}")

"""One operation's identity and its writes: persist, report hook phases, follow on.

`OperationContext` is built per message for the operation it names. It persists a state
with the store's step compare-and-set (the OperationState users see and the engine's
SyncState land together), tells the event stream about hook phase changes, and follows
what the engine decided comes next:

    Continue, Replan   take the next step now: in the same handler (the sync worker), or
                       by publishing SyncStep for it (the hook worker)
    Wait               a RETRY timer (retry backoff; the Application's operationState
                       shows "Retrying attempt #N") or a WAIT timer (wave delay, health,
                       deletion) carrying that SyncStep; the watcher may wake it earlier
    Done               `finishing.finish`: history, status, events, refresh

A step whose actions include hook actions is handed to the hook worker with a
HookRequest instead. Every follow-up is idempotent (step messages are de-duplicated by
step, a timer replaces the app's pending one, finishing checks what it did already), so
a message redelivered after a crash may follow the same state again.
"""

import datetime as dt
from dataclasses import dataclass
from typing import Any

from app import log
from app.bus import events, schedules
from app.bus.messages import HOOK, SYNC, HookRequest, SyncStep
from app.bus.publish import publish
from app.bus.subjects import EventType
from app.engine.sync import (
    Action,
    Continue,
    Done,
    DryRun,
    Replan,
    SyncState,
    Wait,
    operation_state,
)
from app.engine.sync import Settings as EngineSettings
from app.engine.sync.hook_events import hook_phase_changes
from app.model.application import Application
from app.model.identity import AppRef
from app.runtime.runtime import Runtime
from app.store.applied import AppliedObjects
from workers.sync.finishing import finish, write_status
from workers.sync.settings import SyncWorkerSettings

logger = log.get("sync")


@dataclass(frozen=True)
class SyncServices:
    """What the sync and hook workers of one process share."""

    rt: Runtime
    settings: SyncWorkerSettings
    engine: EngineSettings
    applied: AppliedObjects

    @classmethod
    def of(cls, rt: Runtime, settings: SyncWorkerSettings | None = None) -> "SyncServices":
        timing = rt.settings.timing
        return cls(
            rt,
            settings or SyncWorkerSettings(),
            EngineSettings(wave_delay=timing.wave_delay, recheck=timing.health_wait_fallback),
            AppliedObjects(rt.redis),
        )


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def has_hook_actions(state: SyncState, actions: list[Action]) -> bool:
    """The step creates, deletes or releases a hook: it is the hook worker's (a dry run of
    a hook touches nothing and stays with the sync worker)."""
    return any(state.task(a.task_id).hook and not isinstance(a, DryRun) for a in actions)


MAX_INLINE_STEPS = 64
"""Steps one message may take in a row before the next one is published instead."""


class OperationContext:
    """One operation of one app, as the message being handled names it.

    `inline`: a Continue is taken by the caller itself (the sync worker loops on it,
    saving a message per step) instead of being published as the next SyncStep.
    """

    def __init__(
        self,
        services: SyncServices,
        ref: AppRef,
        operation_id: str,
        stage: str,
        *,
        origin: int,
        inline: bool = False,
    ):
        self.services = services
        self.rt = services.rt
        self.ref = ref
        self.operation_id = operation_id
        self.stage = stage
        self.origin = origin
        self.inline = inline
        self.terminate = False
        """Termination was requested (as the last persisted step found)."""
        self._inline_steps = 0
        self.log: Any = logger.bind(app=str(ref), stage=stage, operation=operation_id)

    def bind(self, state: SyncState) -> None:
        self.log = self.log.bind(revision=state.revision)

    async def persist(self, step: int, state: SyncState) -> bool:
        """Store `state` as the outcome of step `step`; False if that step landed already."""
        landed = await self.rt.operations.advance(
            self.ref,
            self.operation_id,
            step,
            operation_state(state),
            state.to_dict(),
            origin=self.origin,
        )
        if landed is None:
            self.log.info("sync.superseded", step=step, reason="another run took this step")
            return False
        self.terminate = landed.terminate
        return True

    async def report_hooks(self, before: SyncState | None, after: SyncState) -> None:
        """One hook-phase-changed event per hook whose phase moved."""
        for change in hook_phase_changes(before, after):
            data = {
                "operation": self.operation_id,
                "kind": change.key.kind,
                "namespace": change.key.namespace,
                "name": change.key.name,
                "hookType": change.hook_type.value,
                "phase": change.phase.value,
                "message": change.message,
            }
            await events.emit(
                self.rt.bus, self.ref, EventType.HOOK_PHASE_CHANGED, data, component=self.stage
            )
            self.log.info(
                "sync.hook_phase",
                hook=f"{change.key.kind}/{change.key.name}",
                hook_type=change.hook_type.value,
                phase=change.phase.value,
            )

    async def hand_off(self, step: int, reason: str) -> None:
        """Give the persisted step `step` (it holds hook actions) to the hook worker."""
        await publish(
            self.rt.bus, HOOK, HookRequest(self.ref, self.operation_id, step, reason[:512])
        )
        self.log.info("sync.handed_to_hooks", step=step)

    async def follow(self, step: int, state: SyncState, app: Application | None) -> bool:
        """Do what comes after the persisted state `state`, which stands at step `step`.

        True when the caller is to take step `step` itself (`inline`, and a Continue).
        """
        follow = state.next
        message = SyncStep(self.ref, self.operation_id, step, _reason(follow))
        if isinstance(follow, Continue | Replan):
            if self.inline and self._inline_steps < MAX_INLINE_STEPS:
                self._inline_steps += 1
                self.log.info("sync.next", step=step, then="inline", reason=message.reason)
                return True
            await publish(self.rt.bus, SYNC, message)
            self.log.info("sync.next", step=step, then="continue", reason=message.reason)
        elif isinstance(follow, Wait):
            retrying = state.retry_at is not None
            timer = schedules.RETRY if retrying else schedules.WAIT
            await schedules.schedule(self.rt.bus, timer, message, follow.until)
            if retrying:
                await write_status(self, operation_state(state))
            self.log.info(
                "sync.next",
                step=step,
                then=timer.purpose.value,
                seconds=round(follow.seconds, 3),
                wakeable=follow.wakeable,
                reason=follow.reason,
            )
        elif isinstance(follow, Done):
            await finish(self, state, app)
        return False


def _reason(follow: Continue | Wait | Done | Replan) -> str:
    text = follow.reason if not isinstance(follow, Done) else follow.message
    return text[:512]

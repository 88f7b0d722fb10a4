"""One operation's identity and its writes: persist a state, report hook phases, hand over.

`OperationContext` is built per message for the operation it names. It persists a state
with the store's step compare-and-set (the OperationState users see and the engine's
SyncState land together), tells the event stream about hook phase changes, and hands a
step with hook actions to the hook worker. What comes after a persisted state is the
operation loop's (`workers.sync.loop`).
"""

import datetime as dt
from dataclasses import dataclass
from typing import Any

from app import log
from app.bus import events
from app.bus.messages import HOOK, HookRequest
from app.bus.publish import publish
from app.bus.subjects import EventType
from app.engine.sync import Settings as EngineSettings
from app.engine.sync import SyncState, operation_state
from app.engine.sync.hook_events import hook_phase_changes
from app.model.identity import AppRef
from app.runtime.runtime import Runtime
from app.store.applied import AppliedObjects
from workers.sync.settings import SyncWorkerSettings

logger = log.get("sync")

MAX_REASON = 512
"""Longest reason a step message carries."""


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


class OperationContext:
    """One operation of one app, as the message being handled names it."""

    def __init__(
        self, services: SyncServices, ref: AppRef, operation_id: str, stage: str, *, origin: int
    ):
        self.services = services
        self.rt = services.rt
        self.ref = ref
        self.operation_id = operation_id
        self.stage = stage
        self.origin = origin
        """The step the message being handled names (recorded with every state it stores)."""
        self.terminate = False
        """Termination was requested (as the last persisted step found)."""
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

    async def report_hooks(self, before: SyncState | None, after: SyncState) -> bool:
        """One hook-phase-changed event per hook whose phase moved; True if any did (the
        Application's operationState is then written: it is what survives Redis)."""
        changes = hook_phase_changes(before, after)
        for change in changes:
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
        return bool(changes)

    async def hand_off(self, step: int, reason: str) -> None:
        """Give the persisted step `step` (it holds hook actions) to the hook worker."""
        await publish(
            self.rt.bus, HOOK, HookRequest(self.ref, self.operation_id, step, reason[:MAX_REASON])
        )
        self.log.info("sync.handed_to_hooks", step=step)

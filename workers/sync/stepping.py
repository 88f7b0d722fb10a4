"""The step workers' common shell: consume one channel of operation steps, one app at a time.

The sync worker (SyncStep) and the hook worker (HookRequest) both run a `Stage` whose
coalescing level is the step number (the highest step asked wins), build one
`OperationContext` per message and hand it to the operation loop (`workers.sync.loop`)
in their role; each run is marked in the log with `<name>.step_started` and
`<name>.step_ended` (app, operation, step and time), so runs of one app can be checked
across replicas: no two overlap.
"""

from typing import ClassVar, Generic, TypeVar

from app.bus.consumer import ConsumerSettings
from app.bus.messages import Channel, HookRequest, SyncStep
from app.engine.sync.turns import Role
from app.runtime.runtime import Runtime
from app.runtime.stage import Stage
from app.store.coalescing import CoalesceSettings, Pending
from workers.sync.context import OperationContext, SyncServices
from workers.sync.loop import OperationLoop
from workers.sync.settings import SyncWorkerSettings

S = TypeVar("S", SyncStep, HookRequest)


class StepWorker(Generic[S]):
    """A worker that takes the operation step each message of `channel` names."""

    name: ClassVar[str]
    channel: ClassVar[Channel[S]]
    role: ClassVar[Role]
    inline: ClassVar[bool] = False
    """Steps that follow at once are taken in the same handler (see OperationLoop)."""

    def __init__(
        self,
        rt: Runtime,
        *,
        settings: SyncWorkerSettings | None = None,
        consumer: ConsumerSettings | None = None,
        coalesce: CoalesceSettings | None = None,
    ) -> None:
        self._services = SyncServices.of(rt, settings)
        self._loop = OperationLoop(self._services, self.role, inline=self.inline)
        self._stage: Stage[S] = Stage(
            rt,
            self.channel,
            self.handle,
            level=lambda message: message.step,
            consumer=consumer,
            coalesce=coalesce,
        )

    async def start(self) -> None:
        await self._stage.start()

    async def stop(self) -> None:
        await self._stage.stop()

    async def handle(self, message: S, _pending: Pending) -> None:
        """Take what `message` asks for, the run marked by `<name>.step_started`/`_ended`."""
        ctx = OperationContext(
            self._services, message.app, message.operation, self.name, origin=message.step
        )
        ctx.log.info(f"{self.name}.step_started", step=message.step)
        try:
            await self._loop.run(ctx, message.step)
        finally:
            ctx.log.info(f"{self.name}.step_ended", step=message.step)

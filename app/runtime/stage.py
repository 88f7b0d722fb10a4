"""A stage: one kind of work, consumed with "one handler per app at a time, coalesced".

Every worker is a Stage: JetStream delivers each message to one replica; the replica
offers it to the app's coalescer (`app.store.coalescing`). The replica holding the app's
lease runs the handler until nothing is pending; every other delivery is acknowledged
at once, its level merged into what the holder runs next. So a storm of refreshes for
one app becomes a handful of handler runs at the highest level asked, and two runs for
one app never overlap across replicas.

Each kind of work has its own lease per app (the stage name is the work's name). The
compare worker's `refresh` stage only routes (it never compares), so comparisons are
serialized by the `compare` stage alone. It is `answering`: a refresh asks to compare
the app as it is now, so a run that began after a request was made answers it, and the
coalescer drops it (`app.store.coalescing.Order`); a render run answers the refreshes
made before it began as well (`answers`).
"""

from collections.abc import Awaitable, Callable
from typing import Generic

from app import log
from app.bus.consumer import Consumer, ConsumerSettings, Delivery
from app.bus.errors import Retry
from app.bus.messages import Channel, M, decode, encode
from app.metrics import RECONCILE_DURATION
from app.metrics.argocd import for_app
from app.model.identity import AppRef
from app.runtime.runtime import Runtime
from app.store.coalescing import Coalescer, CoalesceSettings, Order, Pending
from app.store.errors import LeaseLost

logger = log.get("stage")

Handler = Callable[[M, Pending], Awaitable[None]]
"""Handles the merged work of one app: the message with the highest level, and the merge."""


class Stage(Generic[M]):
    """Consumes `channel`, running `handler` per app one at a time, coalesced."""

    def __init__(
        self,
        runtime: Runtime,
        channel: Channel[M],
        handler: Handler[M],
        *,
        level: Callable[[M], int] = lambda _message: 0,
        consumer: ConsumerSettings | None = None,
        coalesce: CoalesceSettings | None = None,
        answering: bool = False,
        answers: str | None = None,
    ) -> None:
        """`answering`: any run that began after a request was made answers it (the
        request asks about the app as it is, whatever it carries besides its level).
        `answers`: the stage whose requests, made before a run of this one began, that
        run answers too (the render stage answers refreshes)."""
        self.channel = channel
        self._answering = answering
        self._answers = answers
        self._handler = handler
        self._level = level
        self._coalescer = Coalescer(runtime.redis, channel.work.value, coalesce, marks_for=answers)
        self._consumer = Consumer(
            runtime.bus,
            channel,
            self._deliver,
            consumer or ConsumerSettings(concurrency=runtime.settings.concurrency),
        )

    async def start(self) -> None:
        await self._consumer.start()

    async def stop(self) -> None:
        await self._consumer.stop()

    async def _deliver(self, delivery: Delivery[M]) -> None:
        message = delivery.message
        app: AppRef = message.app

        async def run(pending: Pending) -> None:
            with (
                RECONCILE_DURATION.labels(self.channel.work.value).time(),
                for_app(app.namespace, app.name),
            ):
                await self._handler(decode(self.channel, pending.payload), pending)

        order = None
        if (self._answering or self._answers) and delivery.epoch and delivery.stream_seq > 0:
            bound = delivery.stream_seq + delivery.pending_after
            seq = delivery.stream_seq if self._answering else 0
            order = Order(seq, bound, delivery.epoch)
        try:
            await self._coalescer.run(app, self._level(message), encode(message), run, order=order)
        except LeaseLost as e:
            raise Retry(str(e), delay=1.0) from None

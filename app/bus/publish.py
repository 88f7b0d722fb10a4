"""Publishing work: encode, de-duplicate where a repeat is a replay, wait for the stream's ack.

A publish that gets no ack (the server went away, a NATS cluster is electing a new stream
leader, the connection is reconnecting) is sent again until `PUBLISH_DEADLINE`: a repeat
of a message with a `dedup_id` is stored once, and a repeated refresh merges with its
twin, so a retry never does work twice; giving up at once would lose the work.
"""

import asyncio
import time

import nats.errors
import nats.js.errors

from app import log
from app.bus import subjects
from app.bus.connection import Bus
from app.bus.errors import BusError
from app.bus.messages import Channel, M, encode

logger = log.get("bus")

MSG_ID = "Nats-Msg-Id"
PUBLISH_DEADLINE = 30.0
"""Seconds a publish keeps trying for an ack (a cluster elects a leader within seconds)."""
RETRY_PAUSE = 0.2
"""Seconds before the first repeat; doubles up to RETRY_PAUSE_MAX."""
RETRY_PAUSE_MAX = 2.0
_TRANSIENT = (
    TimeoutError,
    nats.errors.TimeoutError,
    nats.errors.NoRespondersError,
    nats.errors.ConnectionClosedError,
    nats.errors.ConnectionReconnectingError,
    nats.errors.StaleConnectionError,
    nats.errors.OutboundBufferLimitError,
    nats.js.errors.ServiceUnavailableError,
    nats.js.errors.NoStreamResponseError,
)


async def publish(bus: Bus, channel: Channel[M], message: M, *, deduplicate: bool = True) -> int:
    """Publish `message` on its app's subject; the stream sequence, or BusError.

    Messages with a `dedup_id` carry it as `Nats-Msg-Id`: the same step published twice
    within the duplicate window (a crashed worker replaying its last step) is stored once.
    `deduplicate=False` sends it without: for a message that is no replay although an
    earlier one had the same id (a step asked again after Redis lost the operation it
    belonged to, whose first message was taken already).
    """
    subject = subjects.work(channel.work, message.app)
    data = encode(message)
    dedup = message.dedup_id() if deduplicate else ""
    headers = {MSG_ID: dedup} if dedup else None
    deadline = time.monotonic() + PUBLISH_DEADLINE
    pause = RETRY_PAUSE
    attempt = 1
    while True:
        try:
            ack = await bus.js.publish(subject, data, headers=headers, stream=subjects.WORK_STREAM)
            break
        except (nats.errors.Error, TimeoutError) as e:
            transient = isinstance(e, _TRANSIENT) and not bus.client.is_closed
            if not transient or time.monotonic() + pause > deadline:
                raise BusError(
                    f"could not publish {channel.work.value} for {message.app} on {subject}"
                    f" ({attempt} attempt(s)): {type(e).__name__}: {e}"
                ) from None
            logger.info(
                "work.publish_retried",
                work=channel.work.value,
                app=str(message.app),
                attempt=attempt,
                error=type(e).__name__,
                retry_in_s=pause,
            )
        await asyncio.sleep(pause)
        pause = min(pause * 2, RETRY_PAUSE_MAX)
        attempt += 1
    logger.debug(
        "work.published",
        work=channel.work.value,
        app=str(message.app),
        seq=ack.seq,
        duplicate=bool(ack.duplicate),
    )
    return ack.seq

"""Publishing work: encode, de-duplicate where a repeat is a replay, wait for the stream's ack."""

import nats.errors
import nats.js.errors

from app import log
from app.bus import subjects
from app.bus.connection import Bus
from app.bus.errors import BusError
from app.bus.messages import Channel, M, encode

logger = log.get("bus")

MSG_ID = "Nats-Msg-Id"


async def publish(bus: Bus, channel: Channel[M], message: M) -> int:
    """Publish `message` on its app's subject; the stream sequence, or BusError.

    Messages with a `dedup_id` carry it as `Nats-Msg-Id`: the same step published twice
    within the duplicate window (a crashed worker replaying its last step) is stored once.
    """
    subject = subjects.work(channel.work, message.app)
    data = encode(message)
    dedup = message.dedup_id()
    headers = {MSG_ID: dedup} if dedup else None
    try:
        ack = await bus.js.publish(subject, data, headers=headers, stream=subjects.WORK_STREAM)
    except (nats.errors.Error, TimeoutError) as e:
        raise BusError(
            f"could not publish {channel.work.value} for {message.app} on {subject}: "
            f"{type(e).__name__}: {e}"
        ) from None
    logger.debug(
        "work.published",
        work=channel.work.value,
        app=str(message.app),
        seq=ack.seq,
        duplicate=bool(ack.duplicate),
    )
    return ack.seq

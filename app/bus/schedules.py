"""Delayed work as NATS message schedules (nats-server >= 2.12, ADR-51).

A timer is a message stored on `sluice.schedule.<purpose>.<app>` with these headers,
verified against nats-server 2.15:

    Nats-Schedule: @at 2026-01-02T03:04:05.678Z    (RFC 3339, UTC; sub-second is honoured)
    Nats-Schedule-Target: sluice.refresh.<app>     (must be a subject of the same stream)

At that time the server publishes the body to the target (headers other than the two
above are copied; it adds `Nats-Scheduler: <schedule subject>` and
`Nats-Schedule-Next: purge`) and removes the timer. The stream stores the timer as a
per-subject rollup, so publishing a newer timer on the same subject replaces the older
one: there is at most one pending timer per (purpose, app). A time in the past fires at
once. Cancelling purges the schedule subject. Timers never carry `Nats-Msg-Id`: the
server would take the replacing timer for a duplicate and keep the old one.
"""

import datetime as dt
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic

import nats.errors

from app import log
from app.bus import subjects
from app.bus.connection import Bus
from app.bus.errors import BusError
from app.bus.messages import REFRESH, RENDER, SYNC, Channel, M, RefreshRequest, encode
from app.bus.subjects import Purpose
from app.engine.autosync import RecheckCause
from app.model.identity import AppRef
from app.model.timestamps import format_time

logger = log.get("bus")

SCHEDULE = "Nats-Schedule"
SCHEDULE_TARGET = "Nats-Schedule-Target"
PURGE_API = "$JS.API.STREAM.PURGE."
"""JetStream API subject; its answer counts the purged messages (the client's does not)."""
SCHEDULER = "Nats-Scheduler"
"""Set by the server on a message a timer produced: the schedule subject it came from."""


@dataclass(frozen=True, slots=True)
class Timer(Generic[M]):
    """A purpose and the channel its timers fire into."""

    purpose: Purpose
    channel: Channel[M]


RESYNC = Timer(Purpose.RESYNC, RENDER)
"""A periodic resync is `latest` or `force` (`app.engine.resync`): it renders first, so it
fires into the render stage itself rather than through the refresh stage's routing."""
SELFHEAL = Timer(Purpose.SELFHEAL, REFRESH)
SYNC_WINDOW = Timer(Purpose.SYNC_WINDOW, REFRESH)
RETRY = Timer(Purpose.RETRY, SYNC)
WAIT = Timer(Purpose.WAIT, SYNC)

RECHECKS: Mapping[RecheckCause, Timer[RefreshRequest]] = {
    RecheckCause.SELF_HEAL: SELFHEAL,
    RecheckCause.SYNC_WINDOW: SYNC_WINDOW,
}
"""The timer of each cause of an auto-sync re-check (`app.engine.autosync.Recheck`)."""


def at_header(when: dt.datetime) -> str:
    """`@at <RFC 3339 UTC>` for an aware datetime (ValueError for a naive one)."""
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError(
            f"schedule time {when.isoformat()} has no time zone; pass an aware UTC time"
        )
    return "@at " + format_time(when, timespec="milliseconds")


async def schedule(bus: Bus, timer: Timer[M], message: M, when: dt.datetime) -> None:
    """Deliver `message` on its channel at `when`, replacing this (purpose, app)'s timer."""
    app = message.app
    subject = subjects.schedule(timer.purpose, app)
    target = subjects.work(timer.channel.work, app)
    headers = {SCHEDULE: at_header(when), SCHEDULE_TARGET: target}
    try:
        await bus.js.publish(subject, encode(message), headers=headers, stream=subjects.WORK_STREAM)
    except (nats.errors.Error, TimeoutError) as e:
        raise BusError(
            f"could not schedule {timer.purpose.value} for {app} at {when.isoformat()}: "
            f"{type(e).__name__}: {e}"
        ) from None
    logger.info(
        "timer.scheduled",
        purpose=timer.purpose.value,
        app=str(app),
        at=headers[SCHEDULE][4:],
        target=target,
    )


async def cancel(bus: Bus, timer: Timer[M], app: AppRef) -> bool:
    """Remove the pending timer of (purpose, app); False if there was none."""
    subject = subjects.schedule(timer.purpose, app)
    request = json.dumps({"filter": subject}).encode()
    try:
        reply = await bus.client.request(
            PURGE_API + subjects.WORK_STREAM, request, timeout=bus.settings.request_timeout
        )
        answer = json.loads(reply.data)
    except (nats.errors.Error, TimeoutError, ValueError) as e:
        raise BusError(
            f"could not cancel the {timer.purpose.value} timer of {app}: {type(e).__name__}: {e}"
        ) from None
    if not isinstance(answer, dict) or "error" in answer:
        raise BusError(f"could not cancel the {timer.purpose.value} timer of {app}: {answer}")
    found = bool(answer.get("purged"))
    logger.info("timer.cancelled", purpose=timer.purpose.value, app=str(app), found=found)
    return found

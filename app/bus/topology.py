"""Streams and durable consumers, created idempotently at start.

`ensure(bus, settings)` makes the server match `settings`: it creates what is missing,
updates what differs (a restart with new limits applies them) and leaves what matches
alone, so every replica may call it at start. A server that refuses a change (for
instance enabling schedules on a non-empty stream) gets a BusError naming the stream
and the server's reason.
"""

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import nats.errors
import nats.js.errors
from nats.js.api import (
    AckPolicy,
    ConsumerConfig,
    DeliverPolicy,
    DiscardPolicy,
    RetentionPolicy,
    StorageType,
    StreamConfig,
)

from app import log
from app.bus import subjects
from app.bus.connection import Bus
from app.bus.errors import BusError
from app.bus.messages import MAX_BYTES
from app.bus.subjects import Work
from app.engine.redact import redact_text

logger = log.get("bus")
T = TypeVar("T")

HEADER_ALLOWANCE = 4096
"""Bytes a message's headers may add to MAX_BYTES (schedule headers, message id)."""


@dataclass(frozen=True, slots=True)
class TopologySettings:
    """Limits of the two streams and the behaviour of the work consumers."""

    work_max_bytes: int = 1 << 30
    """Bytes of pending work kept (about a million messages); past it the oldest are dropped.

    The server refuses `discard: new` on a stream with message schedules, so a full work
    stream cannot refuse publishes; this bound is far above any healthy backlog.
    """
    work_max_age: float = 7 * 24 * 3600.0
    """Seconds a work message may wait unconsumed before the server discards it."""
    duplicate_window: float = 120.0
    """Seconds within which a repeated `Nats-Msg-Id` is recognised as a duplicate."""
    events_max_age: float = 7 * 24 * 3600.0
    """Seconds events are kept for replay."""
    events_max_bytes: int = 256 << 20
    """Bytes of events kept; the oldest go first."""
    replicas: int = 1
    """Stream replicas (1 on a single server; 3 on a NATS cluster)."""
    ack_wait: float = 30.0
    """Seconds a delivered message may go without ack or heartbeat before redelivery."""
    max_ack_pending: int = 1000
    """Messages a consumer may have delivered and unacknowledged across all replicas."""


def work_stream(settings: TopologySettings) -> StreamConfig:
    return StreamConfig(
        name=subjects.WORK_STREAM,
        description="Sluice work in flight: one message per unit of work per app",
        subjects=list(subjects.WORK_SUBJECTS),
        retention=RetentionPolicy.WORK_QUEUE,
        storage=StorageType.FILE,
        discard=DiscardPolicy.OLD,
        max_bytes=settings.work_max_bytes,
        max_age=settings.work_max_age,
        max_msg_size=MAX_BYTES + HEADER_ALLOWANCE,
        duplicate_window=settings.duplicate_window,
        num_replicas=settings.replicas,
        allow_msg_schedules=True,
        allow_msg_ttl=True,
    )


def events_stream(settings: TopologySettings) -> StreamConfig:
    return StreamConfig(
        name=subjects.EVENTS_STREAM,
        description="Sluice events (CloudEvents 1.0 JSON), kept for replay",
        subjects=list(subjects.EVENT_SUBJECTS),
        retention=RetentionPolicy.LIMITS,
        storage=StorageType.FILE,
        discard=DiscardPolicy.OLD,
        max_bytes=settings.events_max_bytes,
        max_age=settings.events_max_age,
        max_msg_size=MAX_BYTES + HEADER_ALLOWANCE,
        duplicate_window=settings.duplicate_window,
        num_replicas=settings.replicas,
    )


def work_consumer(kind: Work, settings: TopologySettings) -> ConsumerConfig:
    return ConsumerConfig(
        durable_name=subjects.consumer(kind),
        description=f"Sluice {kind.value} workers (every replica pulls from it)",
        filter_subject=subjects.work_filter(kind),
        deliver_policy=DeliverPolicy.ALL,
        ack_policy=AckPolicy.EXPLICIT,
        ack_wait=settings.ack_wait,
        max_deliver=-1,
        max_ack_pending=settings.max_ack_pending,
    )


def notifications_consumer(settings: TopologySettings) -> ConsumerConfig:
    """The notifications worker's consumer of SLUICE_EVENTS: only events stored after it
    was first created (a new installation does not replay a week of history)."""
    return _events_consumer(
        subjects.NOTIFICATIONS_CONSUMER, "Sluice notifications workers", settings
    )


def kube_events_consumer(settings: TopologySettings) -> ConsumerConfig:
    """The events worker's consumer of SLUICE_EVENTS (Kubernetes Events), new events only."""
    return _events_consumer(subjects.KUBE_EVENTS_CONSUMER, "Sluice events workers", settings)


def _events_consumer(durable: str, who: str, settings: TopologySettings) -> ConsumerConfig:
    return ConsumerConfig(
        durable_name=durable,
        description=f"{who} (every replica pulls from it)",
        filter_subject=subjects.events_filter(),
        deliver_policy=DeliverPolicy.NEW,
        ack_policy=AckPolicy.EXPLICIT,
        ack_wait=settings.ack_wait,
        max_deliver=-1,
        max_ack_pending=settings.max_ack_pending,
    )


async def ensure_notifications_consumer(bus: Bus, settings: TopologySettings | None = None) -> None:
    """Create the notifications consumer if missing (its position is kept across restarts)."""
    await _ensure_events_consumer(bus, notifications_consumer(settings or TopologySettings()))


async def ensure_kube_events_consumer(bus: Bus, settings: TopologySettings | None = None) -> None:
    """Create the events worker's consumer if missing (its position is kept across restarts)."""
    await _ensure_events_consumer(bus, kube_events_consumer(settings or TopologySettings()))


async def _ensure_events_consumer(bus: Bus, config: ConsumerConfig) -> None:
    durable = str(config.durable_name)
    where = redact_text(bus.settings.url)
    try:
        await bus.js.consumer_info(subjects.EVENTS_STREAM, durable)
        return
    except nats.js.errors.NotFoundError:
        pass
    except (nats.errors.Error, TimeoutError) as e:
        raise BusError(f"JetStream at {where} did not answer: {type(e).__name__}: {e}") from None
    try:
        await bus.js.add_consumer(subjects.EVENTS_STREAM, config)
    except nats.js.errors.APIError as e:
        raise BusError(
            f"NATS at {where} refused consumer {durable} on "
            f"{subjects.EVENTS_STREAM}: {e.description}"
        ) from None
    logger.info("consumer.created", consumer=durable, url=where)


_STREAM_FIELDS = (
    "subjects",
    "retention",
    "storage",
    "discard",
    "max_bytes",
    "max_age",
    "max_msg_size",
    "duplicate_window",
    "num_replicas",
    "allow_msg_schedules",
    "allow_msg_ttl",
)


def _differs(current: StreamConfig, wanted: StreamConfig, name: str) -> bool:
    """Whether the field differs; an unset flag equals false (the server reports a flag
    it was never given as false, and one asked for as unset must not update every start)."""
    have, want = getattr(current, name), getattr(wanted, name)
    if isinstance(have, bool) or isinstance(want, bool):
        return bool(have) != bool(want)
    return bool(have != want)


async def ensure(bus: Bus, settings: TopologySettings | None = None) -> None:
    """Create or update both streams and every work consumer to match `settings`."""
    settings = settings or TopologySettings()
    where = redact_text(bus.settings.url)
    try:
        await _patiently(bus.js.account_info, "JetStream", where)
    except nats.js.errors.ServiceUnavailableError:
        raise BusError(
            f"JetStream is not enabled on the NATS server at {where}; start nats-server "
            "with --jetstream (`sluice up` does)"
        ) from None
    except (nats.errors.Error, TimeoutError) as e:
        raise BusError(f"JetStream at {where} did not answer: {type(e).__name__}: {e}") from None
    for config in (work_stream(settings), events_stream(settings)):
        await _ensure_stream(bus, config, where)
    for kind in Work:
        await _ensure_consumer(bus, work_consumer(kind, settings), where)


CLUSTER_WAIT = 30.0
"""Seconds a JetStream request is made again when it times out or a stream's replicas find
too few peers: a NATS cluster still forming, or electing a leader after losing a member,
answers within seconds."""
NO_PEERS = 10005
"""JetStream's error code for "no suitable peers for placement"."""


async def _patiently(call: Callable[[], Awaitable[T]], what: str, where: str) -> T:
    """`call()`, made again for up to CLUSTER_WAIT while the cluster is not ready."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CLUSTER_WAIT
    while True:
        try:
            return await call()
        except (nats.errors.Error, TimeoutError) as e:
            timed_out = isinstance(e, TimeoutError | nats.errors.TimeoutError)
            no_peers = isinstance(e, nats.js.errors.APIError) and e.err_code == NO_PEERS
            if not (timed_out or no_peers) or loop.time() > deadline:
                raise
            logger.info(
                "jetstream.waiting", what=what, url=where, error=str(e)[:200], retry_in_s=1.0
            )
            await asyncio.sleep(1.0)


async def _ensure_stream(bus: Bus, config: StreamConfig, where: str) -> None:
    name = str(config.name)
    try:
        await _patiently(lambda: _ensure_stream_once(bus, config, where), name, where)
    except nats.js.errors.APIError as e:
        raise BusError(
            f"NATS at {where} refused to create or update stream {name}: {e.description}; "
            f"fix or delete the stream (`nats stream rm {name}`) and start again"
        ) from None
    except (nats.errors.Error, TimeoutError) as e:
        raise BusError(f"stream {name} at {where} did not answer: {type(e).__name__}") from None


async def _ensure_stream_once(bus: Bus, config: StreamConfig, where: str) -> None:
    name = str(config.name)
    try:
        current = (await bus.js.stream_info(name)).config
    except nats.js.errors.NotFoundError:
        await bus.js.add_stream(config)
        logger.info("stream.created", stream=name, url=where)
        return
    changed = [f for f in _STREAM_FIELDS if _differs(current, config, f)]
    if changed:
        await bus.js.update_stream(config)
        logger.info("stream.updated", stream=name, fields=changed, url=where)


async def _ensure_consumer(bus: Bus, config: ConsumerConfig, where: str) -> None:
    name = str(config.durable_name)
    try:
        await _patiently(
            lambda: bus.js.add_consumer(subjects.WORK_STREAM, config), f"consumer {name}", where
        )
    except nats.js.errors.APIError as e:
        raise BusError(
            f"NATS at {where} refused consumer {name} on {subjects.WORK_STREAM}: "
            f"{e.description}; delete it (`nats consumer rm {subjects.WORK_STREAM} {name}`) "
            "and start again"
        ) from None
    except (nats.errors.Error, TimeoutError) as e:
        raise BusError(f"consumer {name} at {where} did not answer: {type(e).__name__}") from None
    logger.debug("consumer.ensured", consumer=name, url=where)

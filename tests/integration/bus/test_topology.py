"""Streams and consumers are created idempotently, as the design describes, and follow settings."""

import structlog.testing
from nats.js.api import AckPolicy, DiscardPolicy, RetentionPolicy, StorageType

from app.bus import subjects, topology
from app.bus.connection import Bus
from app.bus.subjects import Work
from app.bus.topology import TopologySettings


async def test_work_and_event_streams_have_the_designed_shape(bus: Bus) -> None:
    await topology.ensure(bus)
    work = (await bus.js.stream_info(subjects.WORK_STREAM)).config
    assert work.retention == RetentionPolicy.WORK_QUEUE
    assert work.storage == StorageType.FILE
    assert work.discard == DiscardPolicy.OLD, "the server allows schedules only with discard old"
    assert work.max_bytes == TopologySettings().work_max_bytes
    assert work.allow_msg_schedules and work.allow_msg_ttl
    assert work.duplicate_window == 120
    assert set(work.subjects or []) == set(subjects.WORK_SUBJECTS)
    events = (await bus.js.stream_info(subjects.EVENTS_STREAM)).config
    assert events.retention == RetentionPolicy.LIMITS
    assert events.subjects == ["sluice.events.*.*"]


async def test_one_durable_pull_consumer_per_kind_of_work(bus: Bus) -> None:
    await topology.ensure(bus)
    consumers = {c.name: c.config for c in await bus.js.consumers_info(subjects.WORK_STREAM)}
    assert set(consumers) == {f"sluice-{kind.value}" for kind in Work}
    refresh = consumers["sluice-refresh"]
    assert refresh.filter_subject == "sluice.refresh.*"
    assert refresh.ack_policy == AckPolicy.EXPLICIT
    assert refresh.deliver_subject is None, "pull consumers have no deliver subject"


async def test_ensure_twice_changes_nothing(bus: Bus) -> None:
    await topology.ensure(bus)
    before = await bus.js.stream_info(subjects.WORK_STREAM)
    with structlog.testing.capture_logs() as logs:
        await topology.ensure(bus)
    assert [e for e in logs if e["event"] == "stream.updated"] == [], "no stream updated again"
    after = await bus.js.stream_info(subjects.WORK_STREAM)
    assert after.created == before.created
    assert after.config == before.config
    assert len(await bus.js.consumers_info(subjects.WORK_STREAM)) == len(Work)


async def test_changed_settings_are_applied_on_the_next_start(bus: Bus) -> None:
    await topology.ensure(bus)
    await topology.ensure(bus, TopologySettings(ack_wait=7, events_max_age=3600))
    events = (await bus.js.stream_info(subjects.EVENTS_STREAM)).config
    assert events.max_age == 3600
    sync = await bus.js.consumer_info(subjects.WORK_STREAM, "sluice-sync")
    assert sync.config.ack_wait == 7
